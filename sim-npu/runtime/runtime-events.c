/* gst-ax
 * Copyright (C) 2026 gst-ax developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

/* Accounting of completed jobs: counters, the event ring, and the
 * runtime CSV (simnpu_write_runtime_csv(), the host profile). */

#include "runtime-private.h"

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

static void
write_profile_row (FILE * f, const simnpu__profile_row * row)
{
  const simnpu_event *e = &row->event;

  if (row->core_row)
    fprintf (f, "%s,%" G_GUINT64_FORMAT ",%u,%.3f,core\n", e->dispatch_name,
        (guint64) e->job_id, e->action_id, e->start_ns / 1000.0);
  else
    write_event_rows (f, e);
}

/* Queues a row of the runtime CSV; simnpu__profile_flush() writes it out
 * of the lock, so that the file's I/O never delays the threads being
 * profiled. Lock held. */
static void
add_profile_row (simnpu_device * dev, const simnpu_event * e, bool core_row)
{
  simnpu__profile_row row = {.event = *e,.core_row = core_row };

  g_array_append_val (dev->profile_rows, row);
}

/* Takes the queued rows and the file they go to, and puts @f in its
 * place; then writes the rows. Holding profile_lock keeps the rows of
 * concurrent flushes in completion order. With @flushed, the file is
 * also flushed, under profile_lock so that no stop closes it meanwhile,
 * and *@flushed says whether everything written to it so far reached it.
 * Returns the file replaced. Lock not held. */
static FILE *
swap_profile_file (simnpu_device * dev, FILE * f, bool replace, bool *flushed)
{
  GArray *rows;
  FILE *old;
  guint i;

  g_mutex_lock (&dev->profile_lock);
  g_mutex_lock (&dev->lock);
  rows = dev->profile_rows;
  dev->profile_rows = dev->profile_spare_rows;
  old = dev->profile_file;
  if (replace)
    dev->profile_file = f;
  g_mutex_unlock (&dev->lock);
  /* rows are queued only while a file is set, and the file changes only
   * here, after the rows queued for it are taken */
  for (i = 0; i < rows->len; i++)
    write_profile_row (old, &g_array_index (rows, simnpu__profile_row, i));
  g_array_set_size (rows, 0);
  dev->profile_spare_rows = rows;
  if (flushed)
    *flushed = old == NULL || (fflush (old) == 0 && !ferror (old));
  g_mutex_unlock (&dev->profile_lock);
  return old;
}

void
simnpu__profile_flush (simnpu_device * dev)
{
  swap_profile_file (dev, NULL, false, NULL);
}

void
simnpu__profile_close (simnpu_device * dev)
{
  FILE *old = swap_profile_file (dev, NULL, true, NULL);

  if (old)
    fclose (old);
}

/* Accounts a completed job: counters, event ring, runtime CSV. Called
 * with the lock held. */
void
simnpu__account_job (simnpu_device * dev, simnpu_job * job)
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
    e.start_us = e.start_ns / SIMNPU_NS_PER_US;
    e.end_us = e.end_ns / SIMNPU_NS_PER_US;
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
      add_profile_row (dev, &e, false);
  }
  if (dev->profile_file) {
    simnpu_event h = {.dispatch_name = HOST_COPY_DISPATCH,
      .job_id = job->result.job_id,
      .start_ns = job->result.submit_ns,
      .end_ns = job->result.submit_ns + job->result.host_copy_ns,
    };
    /* the core the job ran on, which action rows cannot say (their
     * compute actions run on "the job's core") */
    simnpu_event k = {.dispatch_name = JOB_CORE_DISPATCH,
      .job_id = job->result.job_id,
      .action_id = job->core,
      .start_ns = job->result.device_start_ns,
    };
    add_profile_row (dev, &h, false);
    add_profile_row (dev, &k, true);
  }
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
  clockid_t clocks[SIMNPU__MAX_CORES + 1];
  unsigned i, n_clocks = 0;
  uint64_t cpu = 0, now = simnpu__monotonic_ns ();
  bool refresh;

  if (dev == NULL || counters == NULL)
    return SIMNPU_EINVAL;
  g_mutex_lock (&dev->lock);
  *counters = dev->counters;
  /* a thread CPU clock read is a syscall per thread: while jobs run, a
   * caller that asks per frame gets a reading at most SIMNPU__SIM_CPU_REFRESH_NS
   * old; an idle device (after a drain, at the end of a run) is read
   * exactly */
  refresh = dev->outstanding == 0 || dev->sim_cpu_read_ns == 0
      || now - dev->sim_cpu_read_ns >= SIMNPU__SIM_CPU_REFRESH_NS;
  if (refresh) {
    for (i = 0; i <= SIMNPU__MAX_CORES; i++)
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
  if (dev == NULL || capacity > SIMNPU__MAX_EVENT_CAPACITY)
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
  FILE *f, *old;

  if (dev == NULL || path == NULL)
    return simnpu__set_error (error, SIMNPU_EINVAL,
        "device and path must not be NULL");
  f = fopen (path, "w");
  if (f == NULL)
    return simnpu__set_error (error, SIMNPU_EIO, "profile-host '%s': %s",
        path, g_strerror (errno));
  simnpu_write_runtime_csv_header (f);
  old = swap_profile_file (dev, f, true, NULL);
  if (old)
    fclose (old);
  return 0;
}

/**
 * simnpu_device_flush_host_profile:
 * @device: the device
 *
 * Writes the rows of the jobs completed so far to the runtime CSV and
 * flushes it, so that a write error (a full disk, `/dev/full`) is known
 * while the run is still on rather than only when the profile stops.
 * An error stays: simnpu_device_stop_host_profile() reports it too.
 *
 * Returns: 0 (also when no profile runs), or %SIMNPU_EIO if anything
 *   written to the profile so far could not be written
 */
int
simnpu_device_flush_host_profile (simnpu_device * dev)
{
  bool flushed = true;

  if (dev == NULL)
    return SIMNPU_EINVAL;
  swap_profile_file (dev, NULL, false, &flushed);
  return flushed ? 0 : SIMNPU_EIO;
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
  FILE *old;
  int ret = 0;

  if (dev == NULL)
    return SIMNPU_EINVAL;
  old = swap_profile_file (dev, NULL, true, NULL);
  if (old) {
    /* closed whatever ferror() says: the file is not leaked */
    if (ferror (old))
      ret = SIMNPU_EIO;
    if (fclose (old) != 0)
      ret = SIMNPU_EIO;
  }
  return ret;
}
