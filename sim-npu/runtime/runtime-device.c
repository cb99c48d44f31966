/* gst-ax
 * Copyright (C) 2026 gst-ax developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

/* simnpu_device_*: open and close, the time scale, the clocks, drain. */

#include "runtime-private.h"

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
  if (p.cores > SIMNPU__MAX_CORES)
    return simnpu__set_error (error, SIMNPU_EINVAL,
        "profile cores=%u; expected at most %d", p.cores, SIMNPU__MAX_CORES);

  dev = g_new0 (simnpu_device, 1);
  dev->profile = p;
  simnpu__profile_to_spec (&p, dev->spec, sizeof (dev->spec));
  dev->n_resources = simnpu__profile_resources (&p, dev->resources,
      dev->resource_names);
  g_mutex_init (&dev->lock);
  g_cond_init (&dev->cond);
  g_cond_init (&dev->pacer_cond);
  g_mutex_init (&dev->profile_lock);
  dev->profile_rows = g_array_new (FALSE, FALSE, sizeof (simnpu__profile_row));
  dev->profile_spare_rows = g_array_new (FALSE, FALSE,
      sizeof (simnpu__profile_row));
  dev->time_scale = 1.0;
  dev->next_job_id = 1;
  dev->all_jobs = g_ptr_array_new ();
  dev->models = g_ptr_array_new ();
  dev->names = g_ptr_array_new_with_free_func (g_free);
  dev->ring_cap = SIMNPU__DEFAULT_EVENT_CAPACITY;
  dev->ring = g_new (simnpu_event, dev->ring_cap);
  /* mapped now, not a page at a time by the first jobs' events */
  memset (dev->ring, 0, dev->ring_cap * sizeof (simnpu_event));
  dev->counters.n_resources = dev->n_resources;
  for (i = 0; i < dev->n_resources; i++)
    dev->reserved[i] = g_array_new (FALSE, FALSE, sizeof (simnpu__interval));
  for (i = 0; i < p.cores; i++) {
    simnpu__worker_arg *arg = g_new (simnpu__worker_arg, 1);
    char name[32];
    arg->dev = dev;
    arg->core = i;
    g_queue_init (&dev->queues[i]);
    g_cond_init (&dev->queue_cond[i]);
    snprintf (name, sizeof (name), "simnpu-core%u", i);
    dev->workers[i] = g_thread_new (name, simnpu__worker_main, arg);
  }
  dev->pacer = g_thread_new ("simnpu-pacer", simnpu__pacer_main, dev);
  *out_device = dev;
  return 0;
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
  simnpu__wakeups w = { 0 };
  unsigned i;

  if (dev == NULL)
    return;
  g_mutex_lock (&dev->lock);
  dev->closing = true;
  for (i = 0; i < dev->all_jobs->len; i++) {
    simnpu_job *job = g_ptr_array_index (dev->all_jobs, i);
    if (job->state == SIMNPU__JOB_COMPUTING)
      job->cancel_requested = true;
    simnpu__cancel_locked (dev, job, &w);
  }
  g_mutex_unlock (&dev->lock);
  simnpu__wake_now (&w);
  g_mutex_lock (&dev->lock);
  while (dev->outstanding > 0)
    simnpu__dev_wait (dev);
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
  simnpu__profile_close (dev);
  g_array_free (dev->profile_rows, TRUE);
  g_array_free (dev->profile_spare_rows, TRUE);
  g_mutex_clear (&dev->profile_lock);
  g_ptr_array_free (dev->all_jobs, TRUE);
  g_ptr_array_free (dev->models, TRUE);
  g_ptr_array_free (dev->names, TRUE);
  for (i = 0; i < dev->n_resources; i++)
    g_array_free (dev->reserved[i], TRUE);
  simnpu__heap_clear (&dev->heap);
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
  now = simnpu__device_now (dev);
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
  gint64 until = timeout_ns >= 0 ? simnpu__deadline_us (timeout_ns) : 0;
  int ret = 0;

  if (dev == NULL)
    return SIMNPU_EINVAL;
  g_mutex_lock (&dev->lock);
  while (dev->outstanding > 0) {
    if (timeout_ns < 0) {
      simnpu__dev_wait (dev);
    } else if (!simnpu__dev_wait_until (dev, until)) {
      ret = dev->outstanding > 0 ? SIMNPU_ETIMEDOUT : 0;
      break;
    }
  }
  g_mutex_unlock (&dev->lock);
  return ret;
}
