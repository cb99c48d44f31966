/* gst-ax
 * Copyright (C) 2026 gst-ax developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

/* The device threads: one worker per core computes its queue's jobs and
 * completes those due; the pacer completes the others in due order. The
 * waits and the deferred wake-ups they share live here too. */

#include "runtime-private.h"

uint64_t
simnpu__device_now (simnpu_device * dev)
{
  return dev->virtual_clock ? dev->virtual_now_ns : simnpu__monotonic_ns ();
}

/* GLib's monotonic clock is CLOCK_MONOTONIC in microseconds; rounded up,
 * so a wait until then does not end before the job is due */
static gint64
due_to_monotonic_us (uint64_t due_ns)
{
  return (gint64) ((due_ns + SIMNPU_NS_PER_US - 1) / SIMNPU_NS_PER_US);
}

/* Waits on dev->cond; the count lets notifiers skip the broadcast (a
 * syscall) when nobody waits. Lock held. */
void
simnpu__dev_wait (simnpu_device * dev)
{
  dev->n_waiters++;
  g_cond_wait (&dev->cond, &dev->lock);
  dev->n_waiters--;
}

gboolean
simnpu__dev_wait_until (simnpu_device * dev, gint64 until_us)
{
  gboolean ret;

  dev->n_waiters++;
  ret = g_cond_wait_until (&dev->cond, &dev->lock, until_us);
  dev->n_waiters--;
  return ret;
}

/* Lock held. Waking after the unlock is safe: the predicates changed
 * under the lock, and conditions outlive the threads that signal them
 * (jobs and the device are freed only after the threads are joined). */
void
simnpu__wake_later (simnpu__wakeups * w, GCond * cond, bool broadcast)
{
  unsigned i;

  for (i = 0; i < w->n; i++) {
    if (w->conds[i] == cond) {
      w->broadcast[i] |= broadcast;
      return;
    }
  }
  if (w->n == SIMNPU__MAX_WAKEUPS) {
    /* full: wake under the lock rather than lose a wake-up */
    if (broadcast)
      g_cond_broadcast (cond);
    else
      g_cond_signal (cond);
    return;
  }
  w->conds[w->n] = cond;
  w->broadcast[w->n] = broadcast;
  w->n++;
}

/* Lock not held. */
void
simnpu__wake_now (simnpu__wakeups * w)
{
  unsigned i;

  for (i = 0; i < w->n; i++) {
    if (w->broadcast[i])
      g_cond_broadcast (w->conds[i]);
    else
      g_cond_signal (w->conds[i]);
  }
  w->n = 0;
}

/* Lock held; for a job whose state just changed. */
void
simnpu__job_notify (simnpu_job * job, simnpu__wakeups * w)
{
  if (job->n_waiters > 0)
    simnpu__wake_later (w, &job->cond, true);
}

/* Waits on the job's own condition. Lock held. */
void
simnpu__job_wait_locked (simnpu_device * dev, simnpu_job * job)
{
  job->n_waiters++;
  g_cond_wait (&job->cond, &dev->lock);
  job->n_waiters--;
}

gboolean
simnpu__job_wait_until_locked (simnpu_device * dev, simnpu_job * job,
    gint64 until_us)
{
  gboolean ret;

  job->n_waiters++;
  ret = g_cond_wait_until (&job->cond, &dev->lock, until_us);
  job->n_waiters--;
  return ret;
}

/* ------------------------------------------------------------------ */
/* Completion (pacer thread)                                            */

/* Hands a computed job to the pacer. Lock held. */
void
simnpu__pacer_push (simnpu_device * dev, simnpu_job * job, simnpu__wakeups * w)
{
  /* the pacer only needs waking when its next deadline moved earlier */
  if (simnpu__heap_push (&dev->heap, job) && dev->pacer_waiting)
    simnpu__wake_later (w, &dev->pacer_cond, false);
}

static void
record_thread_clock (simnpu_device * dev, unsigned slot)
{
  clockid_t cid;

  if (pthread_getcpuclockid (pthread_self (), &cid) == 0) {
    g_mutex_lock (&dev->lock);
    dev->thread_clocks[slot] = cid;
    dev->thread_clock_valid[slot] = true;
    g_mutex_unlock (&dev->lock);
  }
}

gpointer
simnpu__pacer_main (gpointer data)
{
  simnpu_device *dev = data;

  simnpu__wakeups w = { 0 };

  record_thread_clock (dev, SIMNPU__MAX_CORES);
#ifdef __linux__
  /* the default 50 us timer slack would add directly to pacing error */
  prctl (PR_SET_TIMERSLACK, SIMNPU__PACER_TIMER_SLACK_NS, 0, 0, 0);
#endif
  g_mutex_lock (&dev->lock);
  for (;;) {
    simnpu_job *job;
    uint64_t now;

    if (dev->heap.len == 0) {
      if (dev->stop_threads)
        break;
      dev->pacer_waiting = true;
      g_cond_wait (&dev->pacer_cond, &dev->lock);
      dev->pacer_waiting = false;
      continue;
    }
    job = dev->heap.items[0];
    now = simnpu__device_now (dev);
    if (!dev->virtual_clock && job->due_ns > now) {
      dev->pacer_waiting = true;
      g_cond_wait_until (&dev->pacer_cond, &dev->lock,
          due_to_monotonic_us (job->due_ns));
      dev->pacer_waiting = false;
      continue;
    }
    simnpu__heap_remove (&dev->heap, job);
    simnpu__finish_job (dev, job, &w);
    if (w.n > 0 || dev->profile_rows->len > 0) {
      g_mutex_unlock (&dev->lock);
      simnpu__wake_now (&w);
      simnpu__profile_flush (dev);
      g_mutex_lock (&dev->lock);
    }
  }
  g_mutex_unlock (&dev->lock);
  return NULL;
}

/* ------------------------------------------------------------------ */
/* Workers                                                              */

/* Where the job's device input of tensor @index is: its staging copy,
 * which the kernels read in place. */
static const int8_t *
staged_input (simnpu_model * m, simnpu_job * job, unsigned index)
{
  const simnpu__graph *g = m->graph;
  unsigned i;

  for (i = 0; i < g->n_inputs; i++)
    if (g->inputs[i] == index)
      return (const int8_t *) job->staging + m->staging_offsets[i];
  return NULL;
}

static void
copy_outputs (simnpu_model * m, simnpu_job * job, const uint8_t * arena)
{
  const simnpu__graph *g = m->graph;
  unsigned i;

  for (i = 0; i < g->n_outputs; i++) {
    const simnpu__tensor *t = &g->tensors[g->outputs[i]];
    /* an output that is an input was never copied into the arena */
    const int8_t *restrict src = t->kind == SIMNPU_TENSOR_INPUT ?
        staged_input (m, job, g->outputs[i]) :
        (const int8_t *) (arena + t->offset);
    size_t n = (size_t) simnpu__tensor_elements (t);
    if (t->io_dtype == SIMNPU_DTYPE_U8) {
      simnpu__flip_sign_copy (job->outputs[i].data, (const uint8_t *) src, n);
    } else if (t->io_dtype == SIMNPU_DTYPE_F32 && t->n_channel_scales) {
      /* one scale per index of axis 1 (validated at load) */
      size_t rows = (size_t) t->n_channel_scales, inner = n / rows, r;
      size_t outer = n / (rows * inner), o;
      float *dst = job->outputs[i].data;
      for (o = 0; o < outer; o++)
        for (r = 0; r < rows; r++) {
          size_t at = (o * rows + r) * inner;
          simnpu__dequantize (dst + at, src + at, inner,
              t->channel_scales[r], t->zero_point);
        }
    } else if (t->io_dtype == SIMNPU_DTYPE_F32) {
      simnpu__dequantize (job->outputs[i].data, src, n, t->scale,
          t->zero_point);
    } else {
      memcpy (job->outputs[i].data, src, n);
    }
  }
}

static void
compute_job (simnpu_model * m, simnpu_job * job, unsigned core)
{
  const simnpu__graph *g = m->graph;
  uint8_t *arena = m->arenas[core];
  const int8_t *inputs[SIMNPU_MAX_IO];
  unsigned i;

  if (g->estimate_only)
    return;
  /* the staging copy made at submit is the input: copying it into the
   * arena would be a second copy per job */
  for (i = 0; i < g->n_inputs; i++)
    inputs[i] = (const int8_t *) job->staging + m->staging_offsets[i];
  job->result.status = simnpu__graph_run_inputs (g, arena, m->scratch[core],
      inputs);
  if (job->result.status == 0)
    copy_outputs (m, job, arena);
}

gpointer
simnpu__worker_main (gpointer data)
{
  simnpu__worker_arg *arg = data;
  simnpu_device *dev = arg->dev;
  unsigned core = arg->core;
  simnpu__wakeups w = { 0 };
  /* a computed job not due yet, which this worker completes itself at its
   * due time unless another job for this core comes first (saving the
   * hand-off to the pacer and its wake-up); in state PACING, out of the
   * heap (heap_index -1) */
  simnpu_job *held = NULL;

  g_free (arg);
  record_thread_clock (dev, core);
#ifdef __linux__
  /* the default 50 us timer slack would add to the pacing error of the
   * jobs this worker completes */
  prctl (PR_SET_TIMERSLACK, SIMNPU__PACER_TIMER_SLACK_NS, 0, 0, 0);
#endif
  g_mutex_lock (&dev->lock);
  for (;;) {
    simnpu_job *job;
    uint64_t t0, t1, now;
    bool skip;
    GList *link;

    if (held != NULL && held->due_ns <= simnpu__device_now (dev)) {
      simnpu__finish_job (dev, held, &w);
      held = NULL;
      if (w.n > 0 || dev->profile_rows->len > 0) {
        g_mutex_unlock (&dev->lock);
        simnpu__wake_now (&w);
        simnpu__profile_flush (dev);
        g_mutex_lock (&dev->lock);
      }
    }
    link = g_queue_pop_head_link (&dev->queues[core]);
    if (link == NULL) {
      if (held != NULL) {
        dev->worker_waiting[core] = true;
        g_cond_wait_until (&dev->queue_cond[core], &dev->lock,
            due_to_monotonic_us (held->due_ns));
        dev->worker_waiting[core] = false;
        continue;
      }
      if (dev->stop_threads)
        break;
      dev->worker_waiting[core] = true;
      g_cond_wait (&dev->queue_cond[core], &dev->lock);
      dev->worker_waiting[core] = false;
      continue;
    }
    if (held != NULL) {
      /* the pacer completes it on time while this worker computes */
      simnpu__pacer_push (dev, held, &w);
      held = NULL;
    }
    job = link->data;
    job->state = SIMNPU__JOB_COMPUTING;
    skip = job->cancel_requested;
    g_mutex_unlock (&dev->lock);

    t0 = simnpu__monotonic_ns ();
    if (!skip)
      compute_job (job->model, job, core);
    t1 = simnpu__monotonic_ns ();

    g_mutex_lock (&dev->lock);
    job->result.compute_ns = t1 - t0;
    dev->counters.compute_ns += t1 - t0;
    now = simnpu__device_now (dev);
    if (job->cancel_requested) {
      job->result.status = SIMNPU_ECANCELED;
      job->due_ns = now;
    } else if (dev->virtual_clock || dev->time_scale == 0.0) {
      job->due_ns = now;
    } else {
      job->due_ns = job->result.device_end_ns;
      if (now > job->result.device_end_ns) {
        uint64_t lag = now - job->result.device_end_ns;
        job->result.lag_ns = lag;
        dev->counters.lag_ns += lag;
        dev->counters.lagged_jobs++;
        dev->counters.max_lag_ns = MAX (dev->counters.max_lag_ns, lag);
      }
    }
    /* a cancel may wait for the end of the computation */
    simnpu__job_notify (job, &w);
    if (job->due_ns <= now) {
      /* due already (time scale 0, virtual clock, late or cancelled):
       * complete here rather than hand over to the pacer */
      simnpu__finish_job (dev, job, &w);
    } else if (dev->queues[core].length == 0) {
      job->state = SIMNPU__JOB_PACING;
      held = job;
    } else {
      job->state = SIMNPU__JOB_PACING;
      simnpu__pacer_push (dev, job, &w);
    }
    if (w.n > 0 || dev->profile_rows->len > 0) {
      g_mutex_unlock (&dev->lock);
      simnpu__wake_now (&w);
      simnpu__profile_flush (dev);
      g_mutex_lock (&dev->lock);
    }
  }
  g_mutex_unlock (&dev->lock);
  return NULL;
}

gint64
simnpu__deadline_us (int64_t timeout_ns)
{
  return g_get_monotonic_time () + (timeout_ns + SIMNPU_NS_PER_US -
      1) / SIMNPU_NS_PER_US;
}
