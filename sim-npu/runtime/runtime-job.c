/* gst-ax
 * Copyright (C) 2026 gst-ax developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

/* simnpu_job_*: submit, wait, poll, cancel, free; and the job records'
 * life cycle (taking, fitting, completing, recycling). */

#include "runtime-private.h"

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

static void
recycle_job (simnpu_device * dev, simnpu_job * job)
{
  job->state = SIMNPU__JOB_IDLE;
  job->model = NULL;
  job->next_free = dev->free_jobs;
  dev->free_jobs = job;
}

/* Completes the job: accounting, callback (lock released around it),
 * and recycling; the wake-ups it needs go to w. Lock held. */
void
simnpu__finish_job (simnpu_device * dev, simnpu_job * job, simnpu__wakeups * w)
{
  simnpu_job_result result;

  job->result.complete_ns = simnpu__device_now (dev);
  simnpu__account_job (dev, job);
  job->state = SIMNPU__JOB_CALLBACK;
  result = job->result;
  if (job->callback) {
    g_mutex_unlock (&dev->lock);
    job->callback (job->detached ? NULL : job, &result, job->user_data);
    g_mutex_lock (&dev->lock);
  }
  /* a model with no outstanding job is what drain, unload and close wait
   * for (a device with none has none on any model) */
  if (--job->model->outstanding == 0 && dev->n_waiters > 0)
    simnpu__wake_later (w, &dev->cond, true);
  dev->outstanding--;
  if (job->detached || job->user_freed) {
    recycle_job (dev, job);
  } else {
    job->state = SIMNPU__JOB_DONE;
    simnpu__job_notify (job, w);
  }
}

void
simnpu__cancel_locked (simnpu_device * dev, simnpu_job * job,
    simnpu__wakeups * w)
{
  switch (job->state) {
    case SIMNPU__JOB_QUEUED:
      g_queue_unlink (&dev->queues[job->core], &job->link);
      job->result.status = SIMNPU_ECANCELED;
      job->due_ns = simnpu__device_now (dev);
      job->state = SIMNPU__JOB_PACING;
      simnpu__pacer_push (dev, job, w);
      break;
    case SIMNPU__JOB_PACING:
      if (job->result.status == 0)
        job->result.status = SIMNPU_ECANCELED;
      job->due_ns = 0;
      if (job->heap_index < 0) {
        /* held by its core's worker, which waits for it to fall due */
        if (dev->worker_waiting[job->core])
          simnpu__wake_later (w, &dev->queue_cond[job->core], false);
      } else {
        simnpu__heap_remove (&dev->heap, job);
        simnpu__pacer_push (dev, job, w);
      }
      break;
    default:
      break;
  }
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
    job->staging = g_aligned_alloc (1, m->staging_bytes, SIMNPU__STAGING_ALIGN);
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

/* Readies SIMNPU__JOBS_RESERVED_PER_CORE job records per core for @m at load, so
 * that the first jobs of a stream neither allocate nor map fresh pages
 * for their staging. The records stay the device's, for any model. */
void
simnpu__reserve_jobs (simnpu_device * dev, simnpu_model * m)
{
  unsigned want = SIMNPU__JOBS_RESERVED_PER_CORE * dev->profile.cores, n = 0, i;
  simnpu_job *taken[SIMNPU__JOBS_RESERVED_PER_CORE * SIMNPU__MAX_CORES];

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
  job->state = SIMNPU__JOB_QUEUED;
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
    uint64_t now = simnpu__device_now (dev);
    uint64_t job_id = job->result.job_id;
    memset (&job->result, 0, sizeof (job->result));
    job->result.job_id = job_id;
    job->result.user_data = user_data;
    job->result.host_copy_ns = t1 - t0;
    job->result.submit_ns = dev->virtual_clock ? now : t0;
    simnpu__timeline_schedule_job (dev, job, now);
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
  until = timeout_ns > 0 ? simnpu__deadline_us (timeout_ns) : 0;
  g_mutex_lock (&dev->lock);
  while (job->state != SIMNPU__JOB_DONE) {
    if (timeout_ns == 0)
      break;
    if (timeout_ns < 0)
      simnpu__job_wait_locked (dev, job);
    else if (!simnpu__job_wait_until_locked (dev, job, until))
      break;
  }
  if (job->state == SIMNPU__JOB_DONE) {
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
  simnpu__wakeups w = { 0 };
  int ret = 0;

  if (job == NULL)
    return SIMNPU_EINVAL;
  dev = job->dev;
  g_mutex_lock (&dev->lock);
  if (job->state == SIMNPU__JOB_COMPUTING) {
    job->cancel_requested = true;
    while (job->state == SIMNPU__JOB_COMPUTING)
      simnpu__job_wait_locked (dev, job);
  }
  if (job->state == SIMNPU__JOB_QUEUED || job->state == SIMNPU__JOB_PACING)
    simnpu__cancel_locked (dev, job, &w);
  else if (job->result.status != SIMNPU_ECANCELED)
    ret = SIMNPU_EINVAL;
  g_mutex_unlock (&dev->lock);
  simnpu__wake_now (&w);
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
  if (job->state == SIMNPU__JOB_DONE)
    recycle_job (dev, job);
  else
    job->user_freed = true;
  g_mutex_unlock (&dev->lock);
}
