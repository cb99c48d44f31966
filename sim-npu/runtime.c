/* gst-ax
 * Copyright (C) 2026 gst-ax developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

/* The asynchronous runtime.
 *
 * Threads: the caller submits (validates, copies the inputs, and places
 * the job's actions on the device resources in simulated time, all under
 * the device lock except the copy); one worker thread per core pops its
 * core's queue and runs the int8 kernels. A job's due time is the modelled
 * end of the job on the device timeline, or "now" at time scale 0 and on
 * the virtual clock. A job due when computed completes on its worker; one
 * not yet due stays with its worker, which sleeps until then, unless
 * another job arrives in that core's queue: then the pacer thread takes
 * it and completes jobs in due order. Completing records events and
 * counters and calls the callback.
 *
 * Every thread hand-off is a futex wake-up (slow in a VM), so only the
 * thread with something to do is woken (per-job conditions, targeted
 * signals), and only after the lock is released.
 *
 * Job states move QUEUED -> COMPUTING -> PACING -> CALLBACK -> DONE, all
 * transitions under the device lock. A job is recycled (never freed) when
 * both the device and the user are done with it, so the steady state
 * allocates nothing. */

#include "host.h"

#include <errno.h>
#include <pthread.h>
#ifdef __linux__
#include <sys/prctl.h>
#endif
#include <string.h>
#include <time.h>

#define MAX_CORES 8
#define DEFAULT_EVENT_CAPACITY 8192
#define MAX_EVENT_CAPACITY (1u << 24)
#define MAX_MODEL_FILE_BYTES (G_GSIZE_CONSTANT (1) << 31)
#define NS_PER_US 1000
#define PACER_TIMER_SLACK_NS 1000UL
#define SIM_CPU_REFRESH_NS (G_GUINT64_CONSTANT (1000) * 1000)
/* the staged inputs are read in place by the kernels, which expect the
 * arena's alignment */
#define STAGING_ALIGN 64
/* job records made ready at model load, per device core */
#define JOBS_RESERVED_PER_CORE 2

typedef enum
{
  JOB_IDLE = 0,
  JOB_QUEUED,
  JOB_COMPUTING,
  JOB_PACING,
  JOB_CALLBACK,
  JOB_DONE,
} job_state;

struct simnpu_model
{
  simnpu_device *dev;
  simnpu__graph *graph;
  simnpu__schedule schedule;
  bool rescheduled;
  const char *dispatch_name;
  uint8_t *arenas[MAX_CORES];
  int8_t *scratch[MAX_CORES];
  simnpu_tensor_spec in_specs[SIMNPU_MAX_IO];
  simnpu_tensor_spec out_specs[SIMNPU_MAX_IO];
  /* the public tensors and the host sections */
  simnpu__host_view host;
  /* each device input's place in a job's staging buffer */
  size_t staging_offsets[SIMNPU_MAX_IO];
  size_t staging_bytes;
  /* protected by the device lock */
  unsigned outstanding;
};

struct simnpu_job
{
  simnpu_device *dev;
  simnpu_model *model;
  job_state state;
  bool cancel_requested;
  bool detached;
  bool user_freed;
  simnpu_job_callback callback;
  void *user_data;
  uint8_t *staging;
  size_t staging_cap;
  simnpu_output_buffer outputs[SIMNPU_MAX_IO];
  uint64_t *act_start;
  uint64_t *act_end;
  unsigned act_cap;
  unsigned core;
  /* the time scale the job was scheduled with */
  double scale;
  uint64_t due_ns;
  int heap_index;
  GList link;
  simnpu_job_result result;
  simnpu_job *next_free;
  /* waiters in simnpu_job_wait() and simnpu_job_cancel(); a job's
   * completion wakes only its own waiters */
  GCond cond;
  unsigned n_waiters;
};

struct simnpu_device
{
  simnpu__profile profile;
  char spec[256];
  simnpu_resource_info resources[SIMNPU_MAX_RESOURCES];
  char resource_names[SIMNPU_MAX_RESOURCES][16];
  unsigned n_resources;

  GMutex lock;
  /* broadcast when a model's last outstanding job completes, while
   * someone waits (drain, unload, close) */
  GCond cond;
  unsigned n_waiters;
  bool pacer_waiting;
  bool worker_waiting[MAX_CORES];
  double time_scale;
  bool virtual_clock;
  uint64_t virtual_now_ns;
  bool closing;
  bool stop_threads;

  /* end of the last reservation per resource */
  uint64_t free_at_ns[SIMNPU_MAX_RESOURCES];
  /* future reservations per resource, sorted and disjoint */
  GArray *reserved[SIMNPU_MAX_RESOURCES];
  GQueue queues[MAX_CORES];
  GCond queue_cond[MAX_CORES];
  GThread *workers[MAX_CORES];
  clockid_t thread_clocks[MAX_CORES + 1];
  bool thread_clock_valid[MAX_CORES + 1];

  GThread *pacer;
  GCond pacer_cond;
  simnpu_job **heap;
  unsigned heap_len;
  unsigned heap_cap;

  uint64_t next_job_id;
  unsigned outstanding;
  simnpu_job *free_jobs;
  GPtrArray *all_jobs;
  GPtrArray *models;
  GPtrArray *names;

  simnpu_counters counters;
  /* the last reading of the threads' CPU clocks, and when it was taken */
  uint64_t sim_cpu_ns;
  uint64_t sim_cpu_read_ns;
  simnpu_event *ring;
  size_t ring_cap;
  size_t ring_head;
  size_t ring_len;
  FILE *profile_file;
};

typedef struct
{
  simnpu_device *dev;
  unsigned core;
} worker_arg;

typedef struct
{
  uint64_t start_ns;
  uint64_t end_ns;
} interval;

#define MAX_WAKEUPS 4

/* Condition variables to wake once the device lock is released: a thread
 * woken while the waker still holds the lock would only block again on
 * the lock, two more futex calls and a context switch per hand-off. */
typedef struct
{
  GCond *conds[MAX_WAKEUPS];
  bool broadcast[MAX_WAKEUPS];
  unsigned n;
} wakeups;

/* Allocations on the job path (job records, their staging and schedule
 * arrays, host section executors): they stop once a stream reaches its
 * steady state, which the tests check. */
static gint job_path_allocations;

void
simnpu__count_job_path_allocation (void)
{
  g_atomic_int_inc (&job_path_allocations);
}

unsigned
simnpu__job_path_allocations (void)
{
  return (unsigned) g_atomic_int_get (&job_path_allocations);
}

static uint64_t
device_now (simnpu_device * dev)
{
  return dev->virtual_clock ? dev->virtual_now_ns : simnpu__monotonic_ns ();
}

/* GLib's monotonic clock is CLOCK_MONOTONIC in microseconds; rounded up,
 * so a wait until then does not end before the job is due */
static gint64
due_to_monotonic_us (uint64_t due_ns)
{
  return (gint64) ((due_ns + NS_PER_US - 1) / NS_PER_US);
}

/* Waits on dev->cond; the count lets notifiers skip the broadcast (a
 * syscall) when nobody waits. Lock held. */
static void
dev_wait (simnpu_device * dev)
{
  dev->n_waiters++;
  g_cond_wait (&dev->cond, &dev->lock);
  dev->n_waiters--;
}

static gboolean
dev_wait_until (simnpu_device * dev, gint64 until_us)
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
static void
wake_later (wakeups * w, GCond * cond, bool broadcast)
{
  unsigned i;

  for (i = 0; i < w->n; i++) {
    if (w->conds[i] == cond) {
      w->broadcast[i] |= broadcast;
      return;
    }
  }
  if (w->n == MAX_WAKEUPS) {
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
static void
wake_now (wakeups * w)
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
static void
job_notify (simnpu_job * job, wakeups * w)
{
  if (job->n_waiters > 0)
    wake_later (w, &job->cond, true);
}

/* Waits on the job's own condition. Lock held. */
static void
job_wait_locked (simnpu_device * dev, simnpu_job * job)
{
  job->n_waiters++;
  g_cond_wait (&job->cond, &dev->lock);
  job->n_waiters--;
}

static gboolean
job_wait_until_locked (simnpu_device * dev, simnpu_job * job, gint64 until_us)
{
  gboolean ret;

  job->n_waiters++;
  ret = g_cond_wait_until (&job->cond, &dev->lock, until_us);
  job->n_waiters--;
  return ret;
}

/* ------------------------------------------------------------------ */
/* Completion heap, ordered by (due_ns, job id); protected by the lock */

static bool
heap_less (const simnpu_job * a, const simnpu_job * b)
{
  if (a->due_ns != b->due_ns)
    return a->due_ns < b->due_ns;
  return a->result.job_id < b->result.job_id;
}

static void
heap_set (simnpu_device * dev, unsigned i, simnpu_job * job)
{
  dev->heap[i] = job;
  job->heap_index = (int) i;
}

static void
heap_up (simnpu_device * dev, unsigned i)
{
  simnpu_job *job = dev->heap[i];

  while (i > 0 && heap_less (job, dev->heap[(i - 1) / 2])) {
    heap_set (dev, i, dev->heap[(i - 1) / 2]);
    i = (i - 1) / 2;
  }
  heap_set (dev, i, job);
}

static void
heap_down (simnpu_device * dev, unsigned i)
{
  simnpu_job *job = dev->heap[i];

  for (;;) {
    unsigned c = 2 * i + 1;
    if (c >= dev->heap_len)
      break;
    if (c + 1 < dev->heap_len && heap_less (dev->heap[c + 1], dev->heap[c]))
      c++;
    if (!heap_less (dev->heap[c], job))
      break;
    heap_set (dev, i, dev->heap[c]);
    i = c;
  }
  heap_set (dev, i, job);
}

static void
heap_push (simnpu_device * dev, simnpu_job * job, wakeups * w)
{
  if (dev->heap_len == dev->heap_cap) {
    dev->heap_cap = MAX (16, dev->heap_cap * 2);
    dev->heap = g_renew (simnpu_job *, dev->heap, dev->heap_cap);
  }
  heap_set (dev, dev->heap_len++, job);
  heap_up (dev, dev->heap_len - 1);
  /* the pacer only needs waking when its next deadline moved earlier */
  if (dev->pacer_waiting && dev->heap[0] == job)
    wake_later (w, &dev->pacer_cond, false);
}

static void
heap_remove (simnpu_device * dev, simnpu_job * job)
{
  unsigned i = (unsigned) job->heap_index;
  simnpu_job *last = dev->heap[--dev->heap_len];

  job->heap_index = -1;
  if (i == dev->heap_len)
    return;
  heap_set (dev, i, last);
  heap_up (dev, i);
  heap_down (dev, (unsigned) last->heap_index);
}

/* ------------------------------------------------------------------ */
/* Completion (pacer thread)                                            */

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

static void
write_event_rows (FILE * f, const simnpu_event * e)
{
  fprintf (f, "%s,%" G_GUINT64_FORMAT ",%u,%.3f,start\n", e->dispatch_name,
      (guint64) e->job_id, e->action_id, e->start_ns / 1000.0);
  fprintf (f, "%s,%" G_GUINT64_FORMAT ",%u,%.3f,end\n", e->dispatch_name,
      (guint64) e->job_id, e->action_id, e->end_ns / 1000.0);
}

#define HOST_COPY_DISPATCH "host_copy"
#define JOB_CORE_DISPATCH "job_core"

/* Accounts a completed job: counters, event ring, runtime CSV. Called
 * with the lock held. */
static void
account_job (simnpu_device * dev, simnpu_job * job)
{
  simnpu_model *m = job->model;
  simnpu_counters *c = &dev->counters;
  unsigned i;

  if (job->result.status == SIMNPU_ECANCELED) {
    c->jobs_cancelled++;
    return;
  }
  if (job->result.status != 0) {
    c->jobs_failed++;
    return;
  }
  c->jobs_done++;
  for (i = 0; i < m->schedule.n_actions; i++) {
    const simnpu__action *a = &m->schedule.actions[i];
    unsigned r = a->resource < 0 ? job->core : (unsigned) a->resource;
    /* the time the resource spent on the action: a split transfer's span
     * also covers other jobs' pieces */
    uint64_t dur = (uint64_t) ((double) a->device_ns * job->scale);
    simnpu_event e;

    c->resource_busy_ns[r] += dur;
    c->resource_device_ns[r] += a->device_ns;
    if (a->kind == SIMNPU_ACTION_DMA_IN || a->kind == SIMNPU_ACTION_DMA_OUT) {
      c->dma_bytes += a->bytes;
      c->dma_busy_ns += dur;
    }
    e.dispatch_name = m->dispatch_name;
    e.job_id = job->result.job_id;
    e.action_id = i;
    e.op_index = a->op_index;
    e.kind = a->kind;
    e.resource = r;
    e.bytes = a->bytes;
    e.start_ns = job->act_start[i];
    e.end_ns = job->act_end[i];
    e.start_us = e.start_ns / NS_PER_US;
    e.end_us = e.end_ns / NS_PER_US;
    if (dev->ring_cap > 0) {
      /* head < cap and len <= cap, so one subtraction wraps (a modulo
       * per event would be a division per action) */
      size_t slot = dev->ring_head + dev->ring_len;
      if (slot >= dev->ring_cap)
        slot -= dev->ring_cap;
      if (dev->ring_len == dev->ring_cap) {
        if (++dev->ring_head == dev->ring_cap)
          dev->ring_head = 0;
        c->events_dropped++;
      } else {
        dev->ring_len++;
      }
      dev->ring[slot] = e;
    }
    if (dev->profile_file)
      write_event_rows (dev->profile_file, &e);
  }
  if (dev->profile_file) {
    simnpu_event h = {.dispatch_name = HOST_COPY_DISPATCH,
      .job_id = job->result.job_id,
      .start_ns = job->result.submit_ns,
      .end_ns = job->result.submit_ns + job->result.host_copy_ns,
    };
    write_event_rows (dev->profile_file, &h);
    /* the core the job ran on, which action rows cannot say (their
     * compute actions run on "the job's core") */
    fprintf (dev->profile_file, "%s,%" G_GUINT64_FORMAT ",%u,%.3f,core\n",
        JOB_CORE_DISPATCH, (guint64) job->result.job_id, job->core,
        job->result.device_start_ns / 1000.0);
  }
}

static void
recycle_job (simnpu_device * dev, simnpu_job * job)
{
  job->state = JOB_IDLE;
  job->model = NULL;
  job->next_free = dev->free_jobs;
  dev->free_jobs = job;
}

/* Completes the job: accounting, callback (lock released around it),
 * and recycling; the wake-ups it needs go to w. Lock held. */
static void
finish_job (simnpu_device * dev, simnpu_job * job, wakeups * w)
{
  simnpu_job_result result;

  job->result.complete_ns = device_now (dev);
  account_job (dev, job);
  job->state = JOB_CALLBACK;
  result = job->result;
  if (job->callback) {
    g_mutex_unlock (&dev->lock);
    job->callback (job->detached ? NULL : job, &result, job->user_data);
    g_mutex_lock (&dev->lock);
  }
  /* a model with no outstanding job is what drain, unload and close wait
   * for (a device with none has none on any model) */
  if (--job->model->outstanding == 0 && dev->n_waiters > 0)
    wake_later (w, &dev->cond, true);
  dev->outstanding--;
  if (job->detached || job->user_freed) {
    recycle_job (dev, job);
  } else {
    job->state = JOB_DONE;
    job_notify (job, w);
  }
}

static gpointer
pacer_main (gpointer data)
{
  simnpu_device *dev = data;

  wakeups w = { 0 };

  record_thread_clock (dev, MAX_CORES);
#ifdef __linux__
  /* the default 50 us timer slack would add directly to pacing error */
  prctl (PR_SET_TIMERSLACK, PACER_TIMER_SLACK_NS, 0, 0, 0);
#endif
  g_mutex_lock (&dev->lock);
  for (;;) {
    simnpu_job *job;
    uint64_t now;

    if (dev->heap_len == 0) {
      if (dev->stop_threads)
        break;
      dev->pacer_waiting = true;
      g_cond_wait (&dev->pacer_cond, &dev->lock);
      dev->pacer_waiting = false;
      continue;
    }
    job = dev->heap[0];
    now = device_now (dev);
    if (!dev->virtual_clock && job->due_ns > now) {
      dev->pacer_waiting = true;
      g_cond_wait_until (&dev->pacer_cond, &dev->lock,
          due_to_monotonic_us (job->due_ns));
      dev->pacer_waiting = false;
      continue;
    }
    heap_remove (dev, job);
    finish_job (dev, job, &w);
    if (w.n > 0) {
      g_mutex_unlock (&dev->lock);
      wake_now (&w);
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

static gpointer
worker_main (gpointer data)
{
  worker_arg *arg = data;
  simnpu_device *dev = arg->dev;
  unsigned core = arg->core;
  wakeups w = { 0 };
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
  prctl (PR_SET_TIMERSLACK, PACER_TIMER_SLACK_NS, 0, 0, 0);
#endif
  g_mutex_lock (&dev->lock);
  for (;;) {
    simnpu_job *job;
    uint64_t t0, t1, now;
    bool skip;
    GList *link;

    if (held != NULL && held->due_ns <= device_now (dev)) {
      finish_job (dev, held, &w);
      held = NULL;
      if (w.n > 0) {
        g_mutex_unlock (&dev->lock);
        wake_now (&w);
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
      heap_push (dev, held, &w);
      held = NULL;
    }
    job = link->data;
    job->state = JOB_COMPUTING;
    skip = job->cancel_requested;
    g_mutex_unlock (&dev->lock);

    t0 = simnpu__monotonic_ns ();
    if (!skip)
      compute_job (job->model, job, core);
    t1 = simnpu__monotonic_ns ();

    g_mutex_lock (&dev->lock);
    job->result.compute_ns = t1 - t0;
    dev->counters.compute_ns += t1 - t0;
    now = device_now (dev);
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
    job_notify (job, &w);
    if (job->due_ns <= now) {
      /* due already (time scale 0, virtual clock, late or cancelled):
       * complete here rather than hand over to the pacer */
      finish_job (dev, job, &w);
    } else if (dev->queues[core].length == 0) {
      job->state = JOB_PACING;
      held = job;
    } else {
      job->state = JOB_PACING;
      heap_push (dev, job, &w);
    }
    if (w.n > 0) {
      g_mutex_unlock (&dev->lock);
      wake_now (&w);
      g_mutex_lock (&dev->lock);
    }
  }
  g_mutex_unlock (&dev->lock);
  return NULL;
}

/* ------------------------------------------------------------------ */
/* Devices                                                              */

/**
 * simnpu_device_open:
 * @profile: "metis" or "torq", optionally with overrides, e.g.
 *   "metis:cores=2,clock_mhz=600"; NULL means "metis"
 * @out_device: (out): the device
 * @error: (nullable): filled on failure
 *
 * Opens a simulated device and starts its threads (one worker per core
 * and a pacer). The time scale starts at 1.0 (real time).
 *
 * Returns: 0, or %SIMNPU_ENOENT / %SIMNPU_EINVAL for a bad profile
 */
int
simnpu_device_open (const char *profile, simnpu_device ** out_device,
    simnpu_error * error)
{
  simnpu_device *dev;
  simnpu__profile p;
  unsigned i;
  int ret;

  if (out_device == NULL)
    return simnpu__set_error (error, SIMNPU_EINVAL, "out_device is NULL");
  *out_device = NULL;
  if ((ret = simnpu__profile_parse (profile, &p, error)) < 0)
    return ret;
  if (p.cores > MAX_CORES)
    return simnpu__set_error (error, SIMNPU_EINVAL,
        "profile cores=%u; expected at most %d", p.cores, MAX_CORES);

  dev = g_new0 (simnpu_device, 1);
  dev->profile = p;
  simnpu__profile_to_spec (&p, dev->spec, sizeof (dev->spec));
  dev->n_resources = simnpu__profile_resources (&p, dev->resources,
      dev->resource_names);
  g_mutex_init (&dev->lock);
  g_cond_init (&dev->cond);
  g_cond_init (&dev->pacer_cond);
  dev->time_scale = 1.0;
  dev->next_job_id = 1;
  dev->all_jobs = g_ptr_array_new ();
  dev->models = g_ptr_array_new ();
  dev->names = g_ptr_array_new_with_free_func (g_free);
  dev->ring_cap = DEFAULT_EVENT_CAPACITY;
  dev->ring = g_new (simnpu_event, dev->ring_cap);
  /* mapped now, not a page at a time by the first jobs' events */
  memset (dev->ring, 0, dev->ring_cap * sizeof (simnpu_event));
  dev->counters.n_resources = dev->n_resources;
  for (i = 0; i < dev->n_resources; i++)
    dev->reserved[i] = g_array_new (FALSE, FALSE, sizeof (interval));
  for (i = 0; i < p.cores; i++) {
    worker_arg *arg = g_new (worker_arg, 1);
    char name[32];
    arg->dev = dev;
    arg->core = i;
    g_queue_init (&dev->queues[i]);
    g_cond_init (&dev->queue_cond[i]);
    snprintf (name, sizeof (name), "simnpu-core%u", i);
    dev->workers[i] = g_thread_new (name, worker_main, arg);
  }
  dev->pacer = g_thread_new ("simnpu-pacer", pacer_main, dev);
  *out_device = dev;
  return 0;
}

static void
cancel_locked (simnpu_device * dev, simnpu_job * job, wakeups * w)
{
  switch (job->state) {
    case JOB_QUEUED:
      g_queue_unlink (&dev->queues[job->core], &job->link);
      job->result.status = SIMNPU_ECANCELED;
      job->due_ns = device_now (dev);
      job->state = JOB_PACING;
      heap_push (dev, job, w);
      break;
    case JOB_PACING:
      if (job->result.status == 0)
        job->result.status = SIMNPU_ECANCELED;
      job->due_ns = 0;
      if (job->heap_index < 0) {
        /* held by its core's worker, which waits for it to fall due */
        if (dev->worker_waiting[job->core])
          wake_later (w, &dev->queue_cond[job->core], false);
      } else {
        heap_remove (dev, job);
        heap_push (dev, job, w);
      }
      break;
    default:
      break;
  }
}

/**
 * simnpu_device_close:
 * @device: (nullable): the device
 *
 * Cancels every pending job (their callbacks run with
 * %SIMNPU_ECANCELED), stops the device's threads and frees the device,
 * its models and its jobs. Job and model handles become invalid.
 */
void
simnpu_device_close (simnpu_device * dev)
{
  wakeups w = { 0 };
  unsigned i;

  if (dev == NULL)
    return;
  g_mutex_lock (&dev->lock);
  dev->closing = true;
  for (i = 0; i < dev->all_jobs->len; i++) {
    simnpu_job *job = g_ptr_array_index (dev->all_jobs, i);
    if (job->state == JOB_COMPUTING)
      job->cancel_requested = true;
    cancel_locked (dev, job, &w);
  }
  g_mutex_unlock (&dev->lock);
  wake_now (&w);
  g_mutex_lock (&dev->lock);
  while (dev->outstanding > 0)
    dev_wait (dev);
  dev->stop_threads = true;
  for (i = 0; i < dev->profile.cores; i++)
    g_cond_signal (&dev->queue_cond[i]);
  g_cond_signal (&dev->pacer_cond);
  g_mutex_unlock (&dev->lock);

  for (i = 0; i < dev->profile.cores; i++) {
    g_thread_join (dev->workers[i]);
    g_cond_clear (&dev->queue_cond[i]);
  }
  g_thread_join (dev->pacer);

  while (dev->models->len > 0)
    simnpu_model_unload (g_ptr_array_index (dev->models, 0));
  for (i = 0; i < dev->all_jobs->len; i++) {
    simnpu_job *job = g_ptr_array_index (dev->all_jobs, i);
    g_aligned_free (job->staging);
    g_free (job->act_start);
    g_free (job->act_end);
    g_cond_clear (&job->cond);
    g_free (job);
  }
  if (dev->profile_file)
    fclose (dev->profile_file);
  g_ptr_array_free (dev->all_jobs, TRUE);
  g_ptr_array_free (dev->models, TRUE);
  g_ptr_array_free (dev->names, TRUE);
  for (i = 0; i < dev->n_resources; i++)
    g_array_free (dev->reserved[i], TRUE);
  g_free (dev->heap);
  g_free (dev->ring);
  g_cond_clear (&dev->cond);
  g_cond_clear (&dev->pacer_cond);
  g_mutex_clear (&dev->lock);
  g_free (dev);
}

/**
 * simnpu_device_get_info:
 * @device: the device
 * @info: (out): its parameters
 *
 * Returns: 0 or %SIMNPU_EINVAL
 */
int
simnpu_device_get_info (simnpu_device * dev, simnpu_device_info * info)
{
  if (dev == NULL || info == NULL)
    return SIMNPU_EINVAL;
  g_mutex_lock (&dev->lock);
  info->profile = dev->profile.name;
  info->spec = dev->spec;
  info->description = dev->profile.description;
  info->n_cores = dev->profile.cores;
  info->n_resources = dev->n_resources;
  info->resources = dev->resources;
  info->clock_mhz = dev->profile.clock_mhz;
  info->macs_per_cycle = dev->profile.macs_per_cycle;
  info->onchip_memory_bytes = dev->profile.onchip_memory_bytes;
  info->dma_bytes_per_s = dev->profile.dma_bytes_per_s;
  info->host_copy_bytes_per_s = dev->profile.host_copy_bytes_per_s;
  info->job_overhead_ns = dev->profile.job_overhead_ns;
  info->time_scale = dev->time_scale;
  info->virtual_clock = dev->virtual_clock;
  g_mutex_unlock (&dev->lock);
  return 0;
}

#define MAX_TIME_SCALE 1000.0

/**
 * simnpu_device_set_time_scale:
 * @device: the device
 * @time_scale: wall ns per modelled device ns: 1.0 is real time, 2.0 half
 *   speed, 0 completes jobs as soon as their outputs are computed
 *
 * Applies to jobs submitted afterwards.
 *
 * Returns: 0 or %SIMNPU_EINVAL (negative, not finite, or above 1000)
 */
int
simnpu_device_set_time_scale (simnpu_device * dev, double time_scale)
{
  if (dev == NULL || !(time_scale >= 0.0) || time_scale > MAX_TIME_SCALE)
    return SIMNPU_EINVAL;
  g_mutex_lock (&dev->lock);
  dev->time_scale = time_scale;
  g_mutex_unlock (&dev->lock);
  return 0;
}

/**
 * simnpu_device_get_time_scale:
 * @device: the device
 *
 * Returns: the time scale, or -1 for a NULL device
 */
double
simnpu_device_get_time_scale (simnpu_device * dev)
{
  double s;

  if (dev == NULL)
    return -1.0;
  g_mutex_lock (&dev->lock);
  s = dev->time_scale;
  g_mutex_unlock (&dev->lock);
  return s;
}

/**
 * simnpu_device_now_ns:
 * @device: the device
 *
 * Returns: the device clock: CLOCK_MONOTONIC ns, or the virtual clock
 */
uint64_t
simnpu_device_now_ns (simnpu_device * dev)
{
  uint64_t now;

  g_mutex_lock (&dev->lock);
  now = device_now (dev);
  g_mutex_unlock (&dev->lock);
  return now;
}

/**
 * simnpu_device_use_virtual_clock:
 * @device: an idle device (no outstanding jobs)
 * @start_ns: the initial virtual time
 *
 * Switches the device to a virtual clock, for tests: the schedule runs in
 * modelled device ns (unscaled), the clock advances only through
 * simnpu_device_advance_virtual_clock(), and jobs complete as soon as
 * they are computed, with their modelled time stamps.
 *
 * Returns: 0, or %SIMNPU_EINVAL if jobs are outstanding
 */
int
simnpu_device_use_virtual_clock (simnpu_device * dev, uint64_t start_ns)
{
  int ret = 0;

  if (dev == NULL)
    return SIMNPU_EINVAL;
  g_mutex_lock (&dev->lock);
  if (dev->outstanding > 0) {
    ret = SIMNPU_EINVAL;
  } else {
    dev->virtual_clock = true;
    dev->virtual_now_ns = start_ns;
    memset (dev->free_at_ns, 0, sizeof (dev->free_at_ns));
    for (unsigned r = 0; r < dev->n_resources; r++)
      g_array_set_size (dev->reserved[r], 0);
  }
  g_mutex_unlock (&dev->lock);
  return ret;
}

/**
 * simnpu_device_advance_virtual_clock:
 * @device: a device on the virtual clock
 * @delta_ns: how far to advance
 *
 * Returns: 0, or %SIMNPU_EINVAL if the device is on the real clock
 */
int
simnpu_device_advance_virtual_clock (simnpu_device * dev, uint64_t delta_ns)
{
  int ret = 0;

  if (dev == NULL)
    return SIMNPU_EINVAL;
  g_mutex_lock (&dev->lock);
  if (!dev->virtual_clock)
    ret = SIMNPU_EINVAL;
  else
    dev->virtual_now_ns += delta_ns;
  g_mutex_unlock (&dev->lock);
  return ret;
}

static gint64
deadline_us (int64_t timeout_ns)
{
  return g_get_monotonic_time () + (timeout_ns + NS_PER_US - 1) / NS_PER_US;
}

/**
 * simnpu_device_drain:
 * @device: the device
 * @timeout_ns: how long to wait; negative waits forever
 *
 * Waits until every submitted job has completed.
 *
 * Returns: 0, or %SIMNPU_ETIMEDOUT
 */
int
simnpu_device_drain (simnpu_device * dev, int64_t timeout_ns)
{
  gint64 until = timeout_ns >= 0 ? deadline_us (timeout_ns) : 0;
  int ret = 0;

  if (dev == NULL)
    return SIMNPU_EINVAL;
  g_mutex_lock (&dev->lock);
  while (dev->outstanding > 0) {
    if (timeout_ns < 0) {
      dev_wait (dev);
    } else if (!dev_wait_until (dev, until)) {
      ret = dev->outstanding > 0 ? SIMNPU_ETIMEDOUT : 0;
      break;
    }
  }
  g_mutex_unlock (&dev->lock);
  return ret;
}

/* ------------------------------------------------------------------ */
/* Models                                                               */

static void
fill_spec (const simnpu__tensor * t, simnpu_tensor_spec * spec)
{
  unsigned i;

  memset (spec, 0, sizeof (*spec));
  spec->name = t->name;
  spec->dtype = t->io_dtype;
  spec->layout = t->layout;
  spec->n_dims = t->n_dims;
  for (i = 0; i < t->n_dims; i++)
    spec->dims[i] = t->dims[i];
  if (t->io_dtype == SIMNPU_DTYPE_F32) {
    spec->scale = 1.0f;
    spec->zero_point = 0;
  } else {
    spec->scale = t->scale;
    spec->zero_point = t->io_dtype == SIMNPU_DTYPE_U8 ? t->zero_point + 128 :
        t->zero_point;
  }
  spec->size_bytes = (size_t) simnpu__tensor_elements (t) *
      simnpu__dtype_size (t->io_dtype);
}

static bool
schedule_fits (const simnpu__schedule * s, const simnpu_device * dev,
    const simnpu__graph * g)
{
  unsigned i;

  if (strcmp (s->spec, dev->spec) != 0)
    return false;
  for (i = 0; i < s->n_actions; i++) {
    int32_t r = s->actions[i].resource;
    if (r != SIMNPU__RES_CORE && (r < (int32_t) dev->profile.cores
            || r >= (int32_t) dev->n_resources))
      return false;
    if (s->actions[i].op_index >= (int32_t) g->n_ops)
      return false;
  }
  return true;
}

/* in the section on jobs */
static void reserve_jobs (simnpu_device * dev, simnpu_model * m);

/**
 * simnpu_model_load_from_memory:
 * @device: the device
 * @data: a compiled .axm container
 * @size_bytes: its size
 * @out_model: (out): the model
 * @error: (nullable): filled on failure, naming the field at fault
 *
 * Loads a model. The container is validated field by field; a malformed
 * one gives %SIMNPU_EFORMAT (or %SIMNPU_EVERSION, %SIMNPU_EUNSUPPORTED,
 * %SIMNPU_ESHAPE, %SIMNPU_ENOMEM for absurd sizes). If the container was
 * compiled for another device spec, the schedule is rebuilt for this one.
 *
 * Returns: 0 or a negative error
 */
int
simnpu_model_load_from_memory (simnpu_device * dev, const void *data,
    size_t size_bytes, simnpu_model ** out_model, simnpu_error * error)
{
  simnpu_model *m;
  simnpu__graph *g = NULL;
  simnpu__schedule s;
  unsigned i;
  int ret;

  if (dev == NULL || out_model == NULL)
    return simnpu__set_error (error, SIMNPU_EINVAL,
        "device and out_model must not be NULL");
  *out_model = NULL;
  if ((ret = simnpu__axm_read (data, size_bytes, &g, &s, error)) < 0)
    return ret;
  if ((ret = simnpu__graph_prepare (g, error)) < 0) {
    simnpu__graph_free (g);
    simnpu__schedule_clear (&s);
    return ret;
  }
  m = g_new0 (simnpu_model, 1);
  m->dev = dev;
  m->graph = g;
  if (!schedule_fits (&s, dev, g)) {
    simnpu__schedule_clear (&s);
    simnpu__schedule_build (g, &dev->profile, &s, error);
    m->rescheduled = true;
  } else {
    simnpu__schedule_finish (&s, &dev->profile);
  }
  m->schedule = s;
  for (i = 0; i < g->n_inputs; i++) {
    fill_spec (&g->tensors[g->inputs[i]], &m->in_specs[i]);
    m->staging_offsets[i] = m->staging_bytes;
    m->staging_bytes += (simnpu__tensor_bytes (&g->tensors[g->inputs[i]])
        + STAGING_ALIGN - 1) & ~(size_t) (STAGING_ALIGN - 1);
  }
  for (i = 0; i < g->n_outputs; i++)
    fill_spec (&g->tensors[g->outputs[i]], &m->out_specs[i]);
  if ((ret = simnpu__host_view_init (&m->host, g, m->in_specs, m->out_specs,
              error)) < 0) {
    simnpu__schedule_clear (&m->schedule);
    simnpu__graph_free (g);
    g_free (m);
    return ret;
  }
  if (!g->estimate_only) {
    for (i = 0; i < dev->profile.cores; i++) {
      m->arenas[i] = g_malloc0 (MAX (g->arena_bytes, 1));
      m->scratch[i] = g_aligned_alloc0 (MAX (g->scratch_bytes, 1), 1, 64);
    }
  }
  if (!g->estimate_only)
    reserve_jobs (dev, m);
  g_mutex_lock (&dev->lock);
  m->dispatch_name = g_strdup (g->name);
  g_ptr_array_add (dev->names, (gpointer) m->dispatch_name);
  g_ptr_array_add (dev->models, m);
  g_mutex_unlock (&dev->lock);
  *out_model = m;
  return 0;
}

/**
 * simnpu_model_load:
 * @device: the device
 * @path: an .axm file
 * @out_model: (out): the model
 * @error: (nullable): filled on failure
 *
 * Reads @path and calls simnpu_model_load_from_memory().
 *
 * Returns: 0, %SIMNPU_EIO if the file cannot be read, or a load error
 */
int
simnpu_model_load (simnpu_device * dev, const char *path,
    simnpu_model ** out_model, simnpu_error * error)
{
  gchar *contents = NULL;
  gsize len = 0;
  GError *err = NULL;
  int ret;

  if (path == NULL)
    return simnpu__set_error (error, SIMNPU_EINVAL, "path is NULL");
  if (!g_file_get_contents (path, &contents, &len, &err)) {
    ret = simnpu__set_error (error, err->code == G_FILE_ERROR_NOENT ?
        SIMNPU_ENOENT : SIMNPU_EIO, "%s: %s", path, err->message);
    g_error_free (err);
    return ret;
  }
  ret = simnpu_model_load_from_memory (dev, contents, len, out_model, error);
  if (ret < 0 && error != NULL) {
    gchar *msg = g_strdup_printf ("%s: %s", path, error->message);
    g_strlcpy (error->message, msg, sizeof (error->message));
    g_free (msg);
  }
  g_free (contents);
  return ret;
}

/**
 * simnpu_model_unload:
 * @model: (nullable): a model
 *
 * Waits for the model's outstanding jobs to complete, then frees it.
 */
void
simnpu_model_unload (simnpu_model * m)
{
  simnpu_device *dev;
  unsigned i;

  if (m == NULL)
    return;
  dev = m->dev;
  g_mutex_lock (&dev->lock);
  while (m->outstanding > 0)
    dev_wait (dev);
  g_ptr_array_remove (dev->models, m);
  g_mutex_unlock (&dev->lock);
  for (i = 0; i < MAX_CORES; i++) {
    g_free (m->arenas[i]);
    g_aligned_free (m->scratch[i]);
  }
  simnpu__host_view_clear (&m->host);
  simnpu__schedule_clear (&m->schedule);
  simnpu__graph_free (m->graph);
  g_free (m);
}

/**
 * simnpu_model_get_info:
 * @model: a model
 * @info: (out): facts about it
 *
 * Returns: 0 or %SIMNPU_EINVAL
 */
int
simnpu_model_get_info (simnpu_model * m, simnpu_model_info * info)
{
  static const char *const no_labels[] = { NULL };

  if (m == NULL || info == NULL)
    return SIMNPU_EINVAL;
  info->name = m->graph->name;
  info->compiled_for = m->schedule.spec;
  info->n_inputs = m->host.n_inputs;
  info->n_outputs = m->host.n_outputs;
  info->n_ops = m->graph->n_ops;
  info->n_actions = m->schedule.n_actions;
  info->total_macs = m->graph->total_macs;
  info->weight_bytes = m->graph->weight_bytes;
  info->device_ns = m->schedule.device_ns;
  info->estimate_only = m->graph->estimate_only;
  info->rescheduled = m->rescheduled;
  info->n_labels = m->graph->n_labels;
  info->labels = m->graph->labels ?
      (const char *const *) m->graph->labels : no_labels;
  info->n_device_inputs = m->graph->n_inputs;
  info->n_device_outputs = m->graph->n_outputs;
  info->has_preamble = m->graph->preamble != NULL;
  info->has_postamble = m->graph->postamble != NULL;
  return 0;
}

/**
 * simnpu_model_get_input:
 * @model: a model
 * @index: input index
 * @spec: (out): its description
 *
 * Describes a public input of the model: what the caller provides for a
 * frame. Without a preamble these are the device inputs. With one, they
 * are the preamble's (f32) inputs, in order, followed by the device
 * inputs the preamble does not produce; simnpu_model_get_input_binding()
 * says which is which.
 *
 * Returns: 0, %SIMNPU_EINVAL or %SIMNPU_ENOENT (no such input)
 */
int
simnpu_model_get_input (simnpu_model * m, unsigned index,
    simnpu_tensor_spec * spec)
{
  if (m == NULL || spec == NULL)
    return SIMNPU_EINVAL;
  if (index >= m->host.n_inputs)
    return SIMNPU_ENOENT;
  *spec = m->host.inputs[index];
  return 0;
}

/**
 * simnpu_model_get_output:
 * @model: a model
 * @index: output index
 * @spec: (out): its description
 *
 * Describes a public output of the model: without a postamble the device
 * outputs; with one, the postamble's outputs (f32, or u8 / i8 when the
 * model was compiled with quantised outputs), in order, followed by
 * the device outputs the postamble does not consume.
 *
 * Returns: 0, %SIMNPU_EINVAL or %SIMNPU_ENOENT (no such output)
 */
int
simnpu_model_get_output (simnpu_model * m, unsigned index,
    simnpu_tensor_spec * spec)
{
  if (m == NULL || spec == NULL)
    return SIMNPU_EINVAL;
  if (index >= m->host.n_outputs)
    return SIMNPU_ENOENT;
  *spec = m->host.outputs[index];
  return 0;
}

/**
 * simnpu_model_get_device_input:
 * @model: a model
 * @index: device input index
 * @spec: (out): its description
 *
 * Describes an input of the device graph: the buffers simnpu_job_submit()
 * takes, in this order (%simnpu_model_info.n_device_inputs of them).
 *
 * Returns: 0, %SIMNPU_EINVAL or %SIMNPU_ENOENT (no such input)
 */
int
simnpu_model_get_device_input (simnpu_model * m, unsigned index,
    simnpu_tensor_spec * spec)
{
  if (m == NULL || spec == NULL)
    return SIMNPU_EINVAL;
  if (index >= m->graph->n_inputs)
    return SIMNPU_ENOENT;
  *spec = m->in_specs[index];
  return 0;
}

/**
 * simnpu_model_get_device_output:
 * @model: a model
 * @index: device output index
 * @spec: (out): its description
 *
 * Describes an output of the device graph: the buffers simnpu_job_submit()
 * fills, in this order (%simnpu_model_info.n_device_outputs of them).
 *
 * Returns: 0, %SIMNPU_EINVAL or %SIMNPU_ENOENT (no such output)
 */
int
simnpu_model_get_device_output (simnpu_model * m, unsigned index,
    simnpu_tensor_spec * spec)
{
  if (m == NULL || spec == NULL)
    return SIMNPU_EINVAL;
  if (index >= m->graph->n_outputs)
    return SIMNPU_ENOENT;
  *spec = m->out_specs[index];
  return 0;
}

/**
 * simnpu_model_get_input_binding:
 * @model: a model
 * @index: public input index
 * @binding: (out): %SIMNPU_SECTION_PREAMBLE and the preamble input it
 *   feeds, or %SIMNPU_SECTION_DEVICE and the device input it is passed to
 *   as is
 *
 * Returns: 0, %SIMNPU_EINVAL or %SIMNPU_ENOENT (no such input)
 */
int
simnpu_model_get_input_binding (simnpu_model * m, unsigned index,
    simnpu_binding * binding)
{
  if (m == NULL || binding == NULL)
    return SIMNPU_EINVAL;
  if (index >= m->host.n_inputs)
    return SIMNPU_ENOENT;
  *binding = m->host.in_bind[index];
  return 0;
}

/**
 * simnpu_model_get_output_binding:
 * @model: a model
 * @index: public output index
 * @binding: (out): %SIMNPU_SECTION_POSTAMBLE and the postamble output it
 *   is, or %SIMNPU_SECTION_DEVICE and the device output it is as is
 *
 * Returns: 0, %SIMNPU_EINVAL or %SIMNPU_ENOENT (no such output)
 */
int
simnpu_model_get_output_binding (simnpu_model * m, unsigned index,
    simnpu_binding * binding)
{
  if (m == NULL || binding == NULL)
    return SIMNPU_EINVAL;
  if (index >= m->host.n_outputs)
    return SIMNPU_ENOENT;
  *binding = m->host.out_bind[index];
  return 0;
}

/**
 * simnpu_model_get_host_section:
 * @model: a model
 * @kind: %SIMNPU_SECTION_PREAMBLE or %SIMNPU_SECTION_POSTAMBLE
 *
 * A frame of a model with host sections goes: the public inputs through
 * simnpu_host_section_run() of the preamble into device inputs,
 * simnpu_job_submit() with the device inputs, then on completion the
 * device outputs through the postamble's run into public outputs. The
 * sections run on the caller's thread, so the caller can time them.
 *
 * Returns: (transfer none) (nullable): the section, valid while the model
 *   is loaded, or NULL if the model has none of that kind
 */
simnpu_host_section *
simnpu_model_get_host_section (simnpu_model * m, simnpu_section_kind kind)
{
  if (m == NULL || (kind != SIMNPU_SECTION_PREAMBLE
          && kind != SIMNPU_SECTION_POSTAMBLE))
    return NULL;
  return m->host.sections[kind];
}

/**
 * simnpu_model_get_preprocess:
 * @model: a model
 * @preprocess: (out): how pixels become the model's input
 *
 * Returns: 0, %SIMNPU_EINVAL, or %SIMNPU_ENOENT if the model does not say
 *   (containers before 1.2, or compiled without preprocessing)
 */
G_STATIC_ASSERT ((int) SIMNPU_COLOR_RGB == (int) SIMNPU_PREPROCESS_RGB);
G_STATIC_ASSERT ((int) SIMNPU_COLOR_BGR == (int) SIMNPU_PREPROCESS_BGR);
G_STATIC_ASSERT ((int) SIMNPU_COLOR_GRAY == (int) SIMNPU_PREPROCESS_GRAY);
G_STATIC_ASSERT ((int) SIMNPU_RESIZE_LETTERBOX ==
    (int) SIMNPU_PREPROCESS_LETTERBOX);
G_STATIC_ASSERT ((int) SIMNPU_RESIZE_STRETCH ==
    (int) SIMNPU_PREPROCESS_STRETCH);

int
simnpu_model_get_preprocess (simnpu_model * m, simnpu_preprocess * pp)
{
  const simnpu__preprocess *p;
  unsigned c;

  if (m == NULL || pp == NULL)
    return SIMNPU_EINVAL;
  if (!m->graph->has_preprocess)
    return SIMNPU_ENOENT;
  p = &m->graph->preprocess;
  pp->color = (simnpu_color_order) p->color;
  pp->resize = (simnpu_resize_kind) p->resize;
  pp->fill = p->fill;
  pp->scale = p->scale;
  pp->layout = p->layout;
  for (c = 0; c < G_N_ELEMENTS (p->mean); c++) {
    pp->mean[c] = p->mean[c];
    pp->std[c] = p->std[c];
  }
  return 0;
}

/**
 * simnpu_model_get_decoder_json:
 * @model: a model
 *
 * The decoder the model's outputs are meant for and its parameters, as
 * compiled: a JSON object such as `{"type": "ssd", ...}`, validated at
 * load.
 *
 * Returns: (nullable): the JSON text, valid while the model is loaded, or
 *   NULL if the model carries none
 */
const char *
simnpu_model_get_decoder_json (simnpu_model * m)
{
  return m ? m->graph->decoder : NULL;
}

/**
 * simnpu_model_get_device_ns:
 * @model: a model
 *
 * Returns: the modelled device time of one job on an idle device, in
 *   device ns (time scale 1.0)
 */
uint64_t
simnpu_model_get_device_ns (simnpu_model * m)
{
  return m ? m->schedule.device_ns : 0;
}

/**
 * simnpu_model_get_latency_ns:
 * @model: a model
 *
 * What a GStreamer element reports as its latency: the modelled device
 * time of one job, in wall ns at the device's current time scale.
 *
 * Returns: the latency in ns
 */
uint64_t
simnpu_model_get_latency_ns (simnpu_model * m)
{
  double scale;

  if (m == NULL)
    return 0;
  scale = simnpu_device_get_time_scale (m->dev);
  return (uint64_t) ((double) m->schedule.device_ns * scale);
}

/* ------------------------------------------------------------------ */
/* Jobs                                                                 */

static unsigned
first_ending_after (GArray * a, uint64_t t)
{
  unsigned lo = 0, hi = a->len;

  /* reservations are disjoint and sorted, so their ends are sorted too */
  while (lo < hi) {
    unsigned mid = lo + (hi - lo) / 2;
    if (g_array_index (a, interval, mid).end_ns <= t)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo;
}

/* Reserves dur of resource r at or after ready, in the earliest free time:
 * engines serve requests in the order they become ready, so an action may
 * run in a gap before reservations made by earlier jobs. Compute needs one
 * gap of the whole length; a transfer (split) may be cut into pieces that
 * fill several gaps, as a DMA engine interleaves descriptor chains. Sets
 * the end of the last piece and returns the start of the first. Lock
 * held. */
static uint64_t
reserve (simnpu_device * dev, unsigned r, uint64_t ready, uint64_t dur,
    bool split, uint64_t * end)
{
  GArray *a = dev->reserved[r];
  uint64_t t = ready, first = G_MAXUINT64, left = dur;
  unsigned i = first_ending_after (a, ready);
  interval iv;

  if (dur == 0) {
    *end = ready;
    return ready;
  }
  while (left > 0) {
    uint64_t gap_end = i < a->len ? g_array_index (a, interval,
        i).start_ns : G_MAXUINT64;
    if (t < gap_end && (split || gap_end - t >= left)) {
      uint64_t piece = MIN (left, gap_end - t);
      iv.start_ns = t;
      iv.end_ns = t + piece;
      g_array_insert_val (a, i, iv);
      i++;
      first = MIN (first, t);
      left -= piece;
      t += piece;
    }
    if (left > 0) {
      t = MAX (t, g_array_index (a, interval, i).end_ns);
      i++;
    }
  }
  dev->free_at_ns[r] = MAX (dev->free_at_ns[r], t);
  *end = t;
  return first;
}

/* Drops reservations that ended before now; they are disjoint and
 * sorted, so they form a prefix. */
static void
prune_reservations (simnpu_device * dev, uint64_t now)
{
  unsigned r, n;

  for (r = 0; r < dev->n_resources; r++) {
    GArray *a = dev->reserved[r];
    for (n = 0; n < a->len && g_array_index (a, interval, n).end_ns <= now;
        n++);
    if (n > 0)
      g_array_remove_range (a, 0, n);
  }
}

/* Places the job's actions on the device resources in action order, each
 * after its dependencies, in the earliest free slot of its resource. The
 * job goes to the core that frees up first. Lock held. */
static void
schedule_job (simnpu_device * dev, simnpu_job * job, uint64_t now)
{
  const simnpu__schedule *s = &job->model->schedule;
  double scale = dev->virtual_clock ? 1.0 : dev->time_scale;
  unsigned cores = dev->profile.cores, best = 0, i;
  uint64_t t0 = now, first = G_MAXUINT64, last = 0;

  if (!dev->virtual_clock)
    prune_reservations (dev, now);
  for (i = 1; i < cores; i++) {
    if (dev->free_at_ns[i] < dev->free_at_ns[best]
        || (dev->free_at_ns[i] == dev->free_at_ns[best]
            && dev->queues[i].length < dev->queues[best].length))
      best = i;
  }
  job->core = best;
  job->scale = scale;
  if (!dev->profile.has_cdma_css)
    t0 += (uint64_t) ((double) dev->profile.job_overhead_ns * scale);
  for (i = 0; i < s->n_actions; i++) {
    const simnpu__action *a = &s->actions[i];
    unsigned r = a->resource < 0 ? best : (unsigned) a->resource;
    uint64_t ready = t0, dur = (uint64_t) ((double) a->device_ns * scale);
    if (a->dep >= 0)
      ready = MAX (ready, job->act_end[a->dep]);
    if (a->dep2 >= 0)
      ready = MAX (ready, job->act_end[a->dep2]);
    job->act_start[i] = reserve (dev, r, ready, dur,
        a->kind != SIMNPU_ACTION_COMPUTE && a->kind != SIMNPU_ACTION_CSS,
        &job->act_end[i]);
    first = MIN (first, job->act_start[i]);
    last = MAX (last, job->act_end[i]);
  }
  if (s->n_actions == 0)
    first = last = t0;
  job->result.core_start_ns = G_MAXUINT64;
  job->result.core_end_ns = 0;
  job->result.core_busy_ns = 0;
  for (i = 0; i < s->n_actions; i++) {
    if (s->actions[i].resource != SIMNPU__RES_CORE)
      continue;
    job->result.core_start_ns = MIN (job->result.core_start_ns,
        job->act_start[i]);
    job->result.core_end_ns = MAX (job->result.core_end_ns, job->act_end[i]);
    job->result.core_busy_ns += job->act_end[i] - job->act_start[i];
  }
  if (job->result.core_start_ns == G_MAXUINT64)
    job->result.core_start_ns = job->result.core_end_ns = first;
  job->result.device_start_ns = first;
  job->result.device_end_ns = last;
  job->result.device_ns = s->device_ns;
  job->result.core = best;
}

static int
validate_buffers (simnpu_model * m, const simnpu_input_buffer * inputs,
    unsigned n_inputs, const simnpu_output_buffer * outputs,
    unsigned n_outputs, simnpu_error * error)
{
  const simnpu__graph *g = m->graph;
  unsigned i;

  if (g->estimate_only) {
    if (n_inputs == 0 && n_outputs == 0)
      return 0;
    return simnpu__set_error (error, SIMNPU_ENOWEIGHTS,
        "model '%s' is shape-only (compiled with --estimate-only): it has "
        "no weights to compute outputs; submit timing-only jobs with no "
        "input and output buffers", g->name);
  }
  if (n_inputs != g->n_inputs || (n_inputs > 0 && inputs == NULL))
    return simnpu__set_error (error, SIMNPU_EINVAL,
        "submit: %u input buffers; model '%s' expects %u%s", n_inputs,
        g->name, g->n_inputs, g->preamble ? " (its device inputs, made by "
        "the preamble)" : "");
  if (n_outputs != g->n_outputs || (n_outputs > 0 && outputs == NULL))
    return simnpu__set_error (error, SIMNPU_EINVAL,
        "submit: %u output buffers; model '%s' expects %u%s", n_outputs,
        g->name, g->n_outputs, g->postamble ? " (its device outputs, read by "
        "the postamble)" : "");
  for (i = 0; i < n_inputs; i++) {
    const simnpu_tensor_spec *s = &m->in_specs[i];
    if (inputs[i].data == NULL)
      return simnpu__set_error (error, SIMNPU_EINVAL,
          "submit: input %u ('%s') data is NULL", i, s->name);
    if (inputs[i].size_bytes != s->size_bytes)
      return simnpu__set_error (error, SIMNPU_ESIZE,
          "submit: input %u ('%s') has %zu bytes; expected %zu (%s %"
          G_GINT64_FORMAT "x%" G_GINT64_FORMAT "x%" G_GINT64_FORMAT "x%"
          G_GINT64_FORMAT ")", i, s->name, inputs[i].size_bytes,
          s->size_bytes, simnpu_dtype_to_string (s->dtype),
          (gint64) s->dims[0], (gint64) (s->n_dims > 1 ? s->dims[1] : 1),
          (gint64) (s->n_dims > 2 ? s->dims[2] : 1),
          (gint64) (s->n_dims > 3 ? s->dims[3] : 1));
  }
  for (i = 0; i < n_outputs; i++) {
    const simnpu_tensor_spec *s = &m->out_specs[i];
    if (outputs[i].data == NULL)
      return simnpu__set_error (error, SIMNPU_EINVAL,
          "submit: output %u ('%s') data is NULL", i, s->name);
    if (outputs[i].size_bytes != s->size_bytes)
      return simnpu__set_error (error, SIMNPU_ESIZE,
          "submit: output %u ('%s') buffer has %zu bytes; expected %zu", i,
          s->name, outputs[i].size_bytes, s->size_bytes);
  }
  return 0;
}

static simnpu_job *
take_job (simnpu_device * dev)
{
  simnpu_job *job = dev->free_jobs;

  if (job != NULL) {
    dev->free_jobs = job->next_free;
  } else {
    job = g_new0 (simnpu_job, 1);
    simnpu__count_job_path_allocation ();
    job->dev = dev;
    job->link.data = job;
    g_cond_init (&job->cond);
    g_ptr_array_add (dev->all_jobs, job);
  }
  job->next_free = NULL;
  return job;
}

/* Grows the job's buffers for @m; they only grow, so a steady stream of
 * one model allocates nothing. @touch maps the staging's pages now (at
 * load; a submit writes them at once anyway). */
static void
job_fit (simnpu_job * job, simnpu_model * m, bool touch)
{
  unsigned n_actions = m->schedule.n_actions;

  if (job->staging_cap < m->staging_bytes) {
    /* nothing in it is kept: no need to copy it over */
    g_aligned_free (job->staging);
    job->staging = g_aligned_alloc (1, m->staging_bytes, STAGING_ALIGN);
    job->staging_cap = m->staging_bytes;
    simnpu__count_job_path_allocation ();
    if (touch)
      memset (job->staging, 0, job->staging_cap);
  }
  if (job->act_cap < n_actions) {
    job->act_start = g_renew (uint64_t, job->act_start, n_actions);
    job->act_end = g_renew (uint64_t, job->act_end, n_actions);
    job->act_cap = n_actions;
    simnpu__count_job_path_allocation ();
  }
}

/* Readies JOBS_RESERVED_PER_CORE job records per core for @m at load, so
 * that the first jobs of a stream neither allocate nor map fresh pages
 * for their staging. The records stay the device's, for any model. */
static void
reserve_jobs (simnpu_device * dev, simnpu_model * m)
{
  unsigned want = JOBS_RESERVED_PER_CORE * dev->profile.cores, n = 0, i;
  simnpu_job *taken[JOBS_RESERVED_PER_CORE * MAX_CORES];

  g_mutex_lock (&dev->lock);
  while (n < want)
    taken[n++] = take_job (dev);
  g_mutex_unlock (&dev->lock);
  /* out of the lock: the workers need it, and this writes megabytes */
  for (i = 0; i < n; i++)
    job_fit (taken[i], m, true);
  g_mutex_lock (&dev->lock);
  for (i = 0; i < n; i++)
    recycle_job (dev, taken[i]);
  g_mutex_unlock (&dev->lock);
}

/**
 * simnpu_job_submit:
 * @model: a loaded model
 * @inputs: one buffer per device input (simnpu_model_get_device_input()),
 *   in order; copied before returning
 * @n_inputs: number of input buffers
 * @outputs: one caller-owned buffer per device output
 *   (simnpu_model_get_device_output())
 * @n_outputs: number of output buffers
 * @callback: (nullable): called on a device thread when the job completes
 * @user_data: passed to @callback and returned in the result
 * @out_job: (out) (nullable): the job handle, to wait, poll, cancel and
 *   free; with NULL the job is detached and freed after its callback
 * @error: (nullable): filled on failure
 *
 * Submits a job without blocking. The inputs are validated (count and
 * byte size against the tensor specs) and copied; the job is placed on
 * the device's resources and queued on the chosen core. A shape-only
 * model (estimate_only) takes timing-only jobs: no buffers, nothing
 * computed, the modelled timing and events as for any job.
 *
 * A job runs the device graph only: for a model with host sections the
 * caller runs the preamble before (its outputs are device inputs) and the
 * postamble after completion (see simnpu_model_get_host_section()).
 * Without host sections the device tensors are the model's public ones.
 *
 * Returns: 0, or %SIMNPU_ESIZE / %SIMNPU_EINVAL for wrong buffers,
 *   %SIMNPU_ENOWEIGHTS for a shape-only model, %SIMNPU_ECLOSED
 */
int
simnpu_job_submit (simnpu_model * m, const simnpu_input_buffer * inputs,
    unsigned n_inputs, const simnpu_output_buffer * outputs,
    unsigned n_outputs, simnpu_job_callback callback, void *user_data,
    simnpu_job ** out_job, simnpu_error * error)
{
  simnpu_device *dev;
  simnpu_job *job;
  uint64_t t0, t1, copied = 0;
  unsigned i;
  bool wake_worker;
  int ret;

  if (out_job)
    *out_job = NULL;
  if (m == NULL)
    return simnpu__set_error (error, SIMNPU_EINVAL, "submit: model is NULL");
  if ((ret = validate_buffers (m, inputs, n_inputs, outputs, n_outputs,
              error)) < 0)
    return ret;
  dev = m->dev;

  g_mutex_lock (&dev->lock);
  if (dev->closing) {
    g_mutex_unlock (&dev->lock);
    return simnpu__set_error (error, SIMNPU_ECLOSED,
        "submit: the device is closing");
  }
  job = take_job (dev);
  job->state = JOB_QUEUED;
  job->result.job_id = dev->next_job_id++;
  g_mutex_unlock (&dev->lock);

  job_fit (job, m, false);
  job->model = m;
  job->callback = callback;
  job->user_data = user_data;
  job->detached = out_job == NULL;
  job->user_freed = false;
  job->cancel_requested = false;
  job->heap_index = -1;
  if (n_outputs > 0)
    memcpy (job->outputs, outputs, n_outputs * sizeof (*outputs));

  t0 = simnpu__monotonic_ns ();
  for (i = 0; i < n_inputs; i++) {
    size_t n = inputs[i].size_bytes;
    uint8_t *dst = job->staging + m->staging_offsets[i];
    if (m->in_specs[i].dtype == SIMNPU_DTYPE_U8)
      simnpu__flip_sign_copy (dst, inputs[i].data, n);
    else
      memcpy (dst, inputs[i].data, n);
    copied += n;
  }
  t1 = simnpu__monotonic_ns ();

  g_mutex_lock (&dev->lock);
  {
    uint64_t now = device_now (dev);
    uint64_t job_id = job->result.job_id;
    memset (&job->result, 0, sizeof (job->result));
    job->result.job_id = job_id;
    job->result.user_data = user_data;
    job->result.host_copy_ns = t1 - t0;
    job->result.submit_ns = dev->virtual_clock ? now : t0;
    schedule_job (dev, job, now);
  }
  dev->counters.jobs_submitted++;
  dev->counters.host_copy_bytes += copied;
  dev->counters.host_copy_ns += t1 - t0;
  dev->outstanding++;
  m->outstanding++;
  g_queue_push_tail_link (&dev->queues[job->core], &job->link);
  wake_worker = dev->worker_waiting[job->core];
  g_mutex_unlock (&dev->lock);
  if (wake_worker)
    g_cond_signal (&dev->queue_cond[job->core]);
  if (out_job)
    *out_job = job;
  return 0;
}

/**
 * simnpu_job_get_id:
 * @job: a job
 *
 * Returns: the job's id (unique per device, from 1), 0 for NULL
 */
uint64_t
simnpu_job_get_id (simnpu_job * job)
{
  return job ? job->result.job_id : 0;
}

/**
 * simnpu_job_wait:
 * @job: a job
 * @timeout_ns: how long to wait; 0 polls; negative waits forever
 * @result: (out) (nullable): the result once complete
 *
 * Waits for the job to complete (after its callback has returned).
 *
 * Returns: %SIMNPU_ETIMEDOUT if not complete in time, otherwise the job's
 *   final status (0, %SIMNPU_ECANCELED, or the error that failed it)
 */
int
simnpu_job_wait (simnpu_job * job, int64_t timeout_ns,
    simnpu_job_result * result)
{
  simnpu_device *dev;
  gint64 until;
  int ret;

  if (job == NULL)
    return SIMNPU_EINVAL;
  dev = job->dev;
  until = timeout_ns > 0 ? deadline_us (timeout_ns) : 0;
  g_mutex_lock (&dev->lock);
  while (job->state != JOB_DONE) {
    if (timeout_ns == 0)
      break;
    if (timeout_ns < 0)
      job_wait_locked (dev, job);
    else if (!job_wait_until_locked (dev, job, until))
      break;
  }
  if (job->state == JOB_DONE) {
    ret = job->result.status;
    if (result)
      *result = job->result;
  } else {
    ret = SIMNPU_ETIMEDOUT;
  }
  g_mutex_unlock (&dev->lock);
  return ret;
}

/**
 * simnpu_job_poll:
 * @job: a job
 * @result: (out) (nullable): the result once complete
 *
 * Returns: %SIMNPU_EAGAIN if not complete yet, otherwise the job's final
 *   status
 */
int
simnpu_job_poll (simnpu_job * job, simnpu_job_result * result)
{
  int ret = simnpu_job_wait (job, 0, result);
  return ret == SIMNPU_ETIMEDOUT ? SIMNPU_EAGAIN : ret;
}

/**
 * simnpu_job_cancel:
 * @job: a job
 *
 * Cancels a job that has not completed. A job being computed finishes its
 * kernels first; when this returns the device no longer writes the job's
 * output buffers. The job then completes with %SIMNPU_ECANCELED (its
 * callback runs on a device thread).
 *
 * Returns: 0 if the job will complete cancelled, %SIMNPU_EINVAL if it had
 *   already completed (its result stands)
 */
int
simnpu_job_cancel (simnpu_job * job)
{
  simnpu_device *dev;
  wakeups w = { 0 };
  int ret = 0;

  if (job == NULL)
    return SIMNPU_EINVAL;
  dev = job->dev;
  g_mutex_lock (&dev->lock);
  if (job->state == JOB_COMPUTING) {
    job->cancel_requested = true;
    while (job->state == JOB_COMPUTING)
      job_wait_locked (dev, job);
  }
  if (job->state == JOB_QUEUED || job->state == JOB_PACING)
    cancel_locked (dev, job, &w);
  else if (job->result.status != SIMNPU_ECANCELED)
    ret = SIMNPU_EINVAL;
  g_mutex_unlock (&dev->lock);
  wake_now (&w);
  return ret;
}

/**
 * simnpu_job_free:
 * @job: (nullable): a job
 *
 * Releases the handle. Freeing a job that has not completed does not
 * cancel it: its output buffers are still written, and it is recycled
 * when it completes.
 */
void
simnpu_job_free (simnpu_job * job)
{
  simnpu_device *dev;

  if (job == NULL)
    return;
  dev = job->dev;
  g_mutex_lock (&dev->lock);
  if (job->state == JOB_DONE)
    recycle_job (dev, job);
  else
    job->user_freed = true;
  g_mutex_unlock (&dev->lock);
}

/* ------------------------------------------------------------------ */
/* Counters and events                                                  */

/**
 * simnpu_device_get_counters:
 * @device: the device
 * @counters: (out): a snapshot of the cumulative counters
 *
 * Returns: 0 or %SIMNPU_EINVAL
 */
int
simnpu_device_get_counters (simnpu_device * dev, simnpu_counters * counters)
{
  clockid_t clocks[MAX_CORES + 1];
  unsigned i, n_clocks = 0;
  uint64_t cpu = 0, now = simnpu__monotonic_ns ();
  bool refresh;

  if (dev == NULL || counters == NULL)
    return SIMNPU_EINVAL;
  g_mutex_lock (&dev->lock);
  *counters = dev->counters;
  /* a thread CPU clock read is a syscall per thread: while jobs run, a
   * caller that asks per frame gets a reading at most SIM_CPU_REFRESH_NS
   * old; an idle device (after a drain, at the end of a run) is read
   * exactly */
  refresh = dev->outstanding == 0 || dev->sim_cpu_read_ns == 0
      || now - dev->sim_cpu_read_ns >= SIM_CPU_REFRESH_NS;
  if (refresh) {
    for (i = 0; i <= MAX_CORES; i++)
      if (dev->thread_clock_valid[i])
        clocks[n_clocks++] = dev->thread_clocks[i];
  }
  counters->sim_cpu_ns = dev->sim_cpu_ns;
  g_mutex_unlock (&dev->lock);
  if (!refresh)
    return 0;

  /* read outside the lock, which the workers need */
  for (i = 0; i < n_clocks; i++) {
    struct timespec ts;
    if (clock_gettime (clocks[i], &ts) == 0)
      cpu += (uint64_t) ts.tv_sec * SIMNPU_NS_PER_S + (uint64_t) ts.tv_nsec;
  }
  g_mutex_lock (&dev->lock);
  /* concurrent readers may finish out of order: keep it monotonic */
  if (cpu > dev->sim_cpu_ns)
    dev->sim_cpu_ns = cpu;
  dev->sim_cpu_read_ns = now;
  counters->sim_cpu_ns = dev->sim_cpu_ns;
  g_mutex_unlock (&dev->lock);
  return 0;
}

/**
 * simnpu_device_set_event_capacity:
 * @device: the device
 * @capacity: events kept in the ring (0 disables it); at most 2^24
 *
 * Resizes the event ring, discarding the events it holds.
 *
 * Returns: 0 or %SIMNPU_EINVAL
 */
int
simnpu_device_set_event_capacity (simnpu_device * dev, size_t capacity)
{
  if (dev == NULL || capacity > MAX_EVENT_CAPACITY)
    return SIMNPU_EINVAL;
  g_mutex_lock (&dev->lock);
  g_free (dev->ring);
  /* a size the caller chose (up to 2^24 events): mapped as it fills */
  dev->ring = capacity ? g_new (simnpu_event, capacity) : NULL;
  dev->ring_cap = capacity;
  dev->ring_head = 0;
  dev->ring_len = 0;
  g_mutex_unlock (&dev->lock);
  return 0;
}

/**
 * simnpu_device_read_events:
 * @device: the device
 * @events: (out): room for @max_events
 * @max_events: how many to read at most
 *
 * Takes the oldest events out of the ring, in completion order (per job,
 * in action order). Overwritten events are counted in events_dropped.
 *
 * Returns: the number of events copied
 */
size_t
simnpu_device_read_events (simnpu_device * dev, simnpu_event * events,
    size_t max_events)
{
  size_t n = 0;

  if (dev == NULL || events == NULL)
    return 0;
  g_mutex_lock (&dev->lock);
  while (n < max_events && dev->ring_len > 0) {
    events[n++] = dev->ring[dev->ring_head];
    if (++dev->ring_head == dev->ring_cap)
      dev->ring_head = 0;
    dev->ring_len--;
  }
  g_mutex_unlock (&dev->lock);
  return n;
}

/**
 * simnpu_write_runtime_csv_header:
 * @file: where to write
 *
 * Writes the header of the runtime CSV:
 * `dispatch_name,invocation_id,action_id,timestamp_us,event`.
 *
 * Returns: 0 or %SIMNPU_EIO
 */
int
simnpu_write_runtime_csv_header (FILE * file)
{
  if (file == NULL)
    return SIMNPU_EINVAL;
  if (fputs ("dispatch_name,invocation_id,action_id,timestamp_us,event\n",
          file) < 0)
    return SIMNPU_EIO;
  return 0;
}

/**
 * simnpu_write_runtime_csv:
 * @file: where to write
 * @events: events, e.g. from simnpu_device_read_events()
 * @n_events: how many
 *
 * Writes two rows per event (`start` and `end`): dispatch_name is the
 * model name, invocation_id the job id, action_id the action's index in
 * the model's schedule, timestamp_us the device clock in µs.
 *
 * Returns: 0 or %SIMNPU_EIO
 */
int
simnpu_write_runtime_csv (FILE * file, const simnpu_event * events,
    size_t n_events)
{
  size_t i;

  if (file == NULL || (events == NULL && n_events > 0))
    return SIMNPU_EINVAL;
  for (i = 0; i < n_events; i++)
    write_event_rows (file, &events[i]);
  return ferror (file) ? SIMNPU_EIO : 0;
}

/**
 * simnpu_device_start_host_profile:
 * @device: the device
 * @path: the runtime CSV to write
 * @error: (nullable): filled on failure
 *
 * From now on every completed job appends its action rows (see
 * simnpu_write_runtime_csv()), a `host_copy` start/end pair for its input
 * copy, and a `job_core` row (event `core`, action_id = the core the job
 * ran on) to @path. Replaces a profile already running.
 *
 * Returns: 0 or %SIMNPU_EIO
 */
int
simnpu_device_start_host_profile (simnpu_device * dev, const char *path,
    simnpu_error * error)
{
  FILE *f;

  if (dev == NULL || path == NULL)
    return simnpu__set_error (error, SIMNPU_EINVAL,
        "device and path must not be NULL");
  f = fopen (path, "w");
  if (f == NULL)
    return simnpu__set_error (error, SIMNPU_EIO, "profile-host '%s': %s",
        path, g_strerror (errno));
  simnpu_write_runtime_csv_header (f);
  g_mutex_lock (&dev->lock);
  if (dev->profile_file)
    fclose (dev->profile_file);
  dev->profile_file = f;
  g_mutex_unlock (&dev->lock);
  return 0;
}

/**
 * simnpu_device_stop_host_profile:
 * @device: the device
 *
 * Flushes and closes the runtime CSV.
 *
 * Returns: 0, or %SIMNPU_EIO if writing failed
 */
int
simnpu_device_stop_host_profile (simnpu_device * dev)
{
  int ret = 0;

  if (dev == NULL)
    return SIMNPU_EINVAL;
  g_mutex_lock (&dev->lock);
  if (dev->profile_file) {
    if (ferror (dev->profile_file) || fclose (dev->profile_file) != 0)
      ret = SIMNPU_EIO;
    dev->profile_file = NULL;
  }
  g_mutex_unlock (&dev->lock);
  return ret;
}
