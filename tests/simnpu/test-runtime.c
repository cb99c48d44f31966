/* gst-ax
 * Copyright (C) 2026 gst-ax developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

/* The runtime and its scheduler: concurrency on the virtual clock, event
 * order, cancellation, callbacks, counters, lag, the runtime CSV, device
 * profiles. */

#include "simnpu-test-util.h"

#include <stdio.h>
#include <stdlib.h>

#define SEED 7
#define WAIT_NS (G_GINT64_CONSTANT (30) * 1000000000)
/* DMA made negligible and no per-job latency, so a job's time is its
 * compute time and the core count decides the makespan */
#define COMPUTE_BOUND "metis:job_overhead_ns=0,dma_bytes_per_s=1e12"
#define MAX_EVENTS 4096

typedef struct
{
  simnpu_device *dev;
  simnpu_model *model;
  gchar *path;
  simnpu_tensor_spec in, out;
  guint8 *in_data;
  guint8 *out_data;
} Fixture;

static void
fixture_open (Fixture * f, const char *profile, int size, int ch, int k)
{
  simnpu_error error = { 0 };
  gchar *json = test_conv_graph_json ("conv", size, ch, ch, k, SEED);

  f->path = test_compile_json (json, profile, false, &error);
  g_assert_nonnull (f->path);
  g_free (json);
  g_assert_cmpint (simnpu_device_open (profile, &f->dev, &error), ==, 0);
  g_assert_cmpint (simnpu_model_load (f->dev, f->path, &f->model, &error),
      ==, 0);
  g_assert_cmpint (simnpu_model_get_input (f->model, 0, &f->in), ==, 0);
  g_assert_cmpint (simnpu_model_get_output (f->model, 0, &f->out), ==, 0);
  f->in_data = g_malloc0 (f->in.size_bytes);
  f->out_data = g_malloc0 (f->out.size_bytes * 64);
}

static void
fixture_close (Fixture * f)
{
  simnpu_model_unload (f->model);
  simnpu_device_close (f->dev);
  g_unlink (f->path);
  g_free (f->path);
  g_free (f->in_data);
  g_free (f->out_data);
}

static simnpu_job *
submit (Fixture * f, unsigned slot, simnpu_job_callback cb, void *data)
{
  simnpu_input_buffer in = { f->in_data, f->in.size_bytes };
  simnpu_output_buffer out = { f->out_data + slot * f->out.size_bytes,
    f->out.size_bytes
  };
  simnpu_error error = { 0 };
  simnpu_job *job = NULL;

  g_assert_cmpint (simnpu_job_submit (f->model, &in, 1, &out, 1, cb, data,
          &job, &error), ==, 0);
  return job;
}

static void
run_wave (Fixture * f, unsigned n, simnpu_job_result * results)
{
  simnpu_job *jobs[64];
  unsigned i;

  for (i = 0; i < n; i++)
    jobs[i] = submit (f, i, NULL, NULL);
  for (i = 0; i < n; i++) {
    g_assert_cmpint (simnpu_job_wait (jobs[i], WAIT_NS, &results[i]), ==, 0);
    simnpu_job_free (jobs[i]);
  }
}

static void
test_concurrency_virtual_clock (void)
{
  Fixture f;
  simnpu_job_result r[8];
  simnpu_model_info info;
  uint64_t t_job, end4 = 0, end8 = 0;
  unsigned cores_seen = 0, i;

  fixture_open (&f, COMPUTE_BOUND, 16, 16, 3);
  g_assert_cmpint (simnpu_device_use_virtual_clock (f.dev, 0), ==, 0);
  simnpu_model_get_info (f.model, &info);
  t_job = info.device_ns;
  g_assert_cmpuint (t_job, >, 0);

  /* 4 jobs on 4 cores: one job time, each on its own core */
  run_wave (&f, 4, r);
  for (i = 0; i < 4; i++) {
    g_assert_cmpuint (r[i].core_start_ns, >=, r[i].device_start_ns);
    g_assert_cmpuint (r[i].core_end_ns, <=, r[i].device_end_ns);
    g_assert_cmpuint (r[i].core_busy_ns, ==, r[i].core_end_ns -
        r[i].core_start_ns);
    g_assert_cmpuint (r[i].core_busy_ns, >, 0);
    /* the shared DMA engine serialises the inputs: a few ns each */
    g_assert_cmpuint (r[i].device_start_ns, <=, t_job / 100);
    g_assert_cmpuint (r[i].device_ns, ==, t_job);
    end4 = MAX (end4, r[i].device_end_ns);
    cores_seen |= 1u << r[i].core;
  }
  g_assert_cmpuint (cores_seen, ==, 0xf);
  /* within 1 % (the DMA engine is shared, at 1 TB/s) */
  g_assert_cmpuint (end4, >=, t_job);
  g_assert_cmpuint (end4, <=, t_job + t_job / 100);

  /* on the idle device, 8 jobs take two job times (the DMA, shared but
   * at 1 TB/s, accounts for the tolerance) */
  g_assert_cmpint (simnpu_device_advance_virtual_clock (f.dev, end4), ==, 0);
  run_wave (&f, 8, r);
  for (i = 0; i < 8; i++)
    end8 = MAX (end8, r[i].device_end_ns);
  g_assert_cmpuint (end8 - end4, >=, 2 * t_job - 3 * t_job / 100);
  g_assert_cmpuint (end8 - end4, <=, 2 * t_job + 3 * t_job / 100);
  fixture_close (&f);
}

static int
compare_resource_start (const void *pa, const void *pb)
{
  const simnpu_event *a = pa, *b = pb;

  if (a->resource != b->resource)
    return a->resource < b->resource ? -1 : 1;
  if (a->start_ns != b->start_ns)
    return a->start_ns < b->start_ns ? -1 : 1;
  return 0;
}

/* Metis has no command processor: each job's fixed setup holds the core
 * it runs on, so a job's device time (device_end - device_start, what the
 * report's device_ms and occupancy are made of) is the model info's
 * device_ns, which is simnpu-compile's estimate; and the cores' busy time
 * includes it, so jobs queued on one core follow each other's setup. */
static void
test_device_time_includes_job_overhead (void)
{
  Fixture f;
  simnpu_job_result r[8];
  simnpu_model_info info;
  simnpu_device_info dinfo;
  uint64_t end = 0;
  unsigned i;

  fixture_open (&f, "metis", 16, 16, 3);
  g_assert_cmpint (simnpu_device_use_virtual_clock (f.dev, 0), ==, 0);
  simnpu_model_get_info (f.model, &info);
  simnpu_device_get_info (f.dev, &dinfo);
  g_assert_cmpuint (dinfo.job_overhead_ns, >, 0);
  g_assert_cmpuint (info.device_ns, >, dinfo.job_overhead_ns);

  run_wave (&f, 1, r);
  g_assert_cmpuint (r[0].device_end_ns - r[0].device_start_ns, ==,
      info.device_ns);
  g_assert_cmpuint (r[0].device_ns, ==, info.device_ns);
  /* the computing starts after the setup */
  g_assert_cmpuint (r[0].core_start_ns - r[0].device_start_ns, >=,
      dinfo.job_overhead_ns);
  end = r[0].device_end_ns;

  /* two waves of one job per core: each core runs its two jobs one after
   * the other, setup included */
  g_assert_cmpint (simnpu_device_advance_virtual_clock (f.dev, end), ==, 0);
  run_wave (&f, 2 * dinfo.n_cores, r);
  for (i = 0; i < 2 * dinfo.n_cores; i++)
    g_assert_cmpuint (r[i].device_end_ns - r[i].device_start_ns, >=,
        info.device_ns);
  for (i = 0; i < 2 * dinfo.n_cores; i++)
    end = MAX (end, r[i].device_end_ns);
  g_assert_cmpuint (end - r[0].device_start_ns, >=,
      2 * (dinfo.job_overhead_ns + r[0].core_busy_ns));
  fixture_close (&f);
}

static void
test_event_order_and_counters (void)
{
  Fixture f;
  simnpu_job_result r[8];
  simnpu_event *ev = g_new (simnpu_event, MAX_EVENTS);
  simnpu_counters c;
  simnpu_model_info info;
  simnpu_device_info dinfo;
  uint64_t busy[SIMNPU_MAX_RESOURCES] = { 0 }, dma_busy = 0, dma_bytes = 0;
  uint64_t last_end[SIMNPU_MAX_RESOURCES] = { 0 };
  size_t n, i;

  fixture_open (&f, "torq", 12, 8, 3);
  g_assert_cmpint (simnpu_device_use_virtual_clock (f.dev, 1000), ==, 0);
  simnpu_model_get_info (f.model, &info);
  simnpu_device_get_info (f.dev, &dinfo);
  run_wave (&f, 8, r);
  n = simnpu_device_read_events (f.dev, ev, MAX_EVENTS);
  g_assert_cmpuint (n, ==, 8 * info.n_actions);

  /* events come per job (jobs in completion order), in action order;
   * each action starts after the previous one of its job ... */
  for (i = 0; i < n; i++) {
    if (i % info.n_actions == 0)
      g_assert_cmpuint (ev[i].job_id, >=, 1);
    else
      g_assert_cmpuint (ev[i].job_id, ==, ev[i - 1].job_id);
    g_assert_cmpuint (ev[i].action_id, ==, i % info.n_actions);
    g_assert_cmpuint (ev[i].end_ns, >=, ev[i].start_ns);
    g_assert_cmpuint (ev[i].start_ns, >=, 1000);
    g_assert_cmpstr (ev[i].dispatch_name, ==, "conv");
    g_assert_cmpuint (ev[i].resource, <, dinfo.n_resources);
    if (i % info.n_actions > 0 && ev[i].kind != SIMNPU_ACTION_DMA_IN)
      g_assert_cmpuint (ev[i].start_ns, >=, ev[i - 1].end_ns);
    busy[ev[i].resource] += ev[i].end_ns - ev[i].start_ns;
    if (ev[i].kind == SIMNPU_ACTION_DMA_IN
        || ev[i].kind == SIMNPU_ACTION_DMA_OUT) {
      dma_busy += ev[i].end_ns - ev[i].start_ns;
      dma_bytes += ev[i].bytes;
    }
  }
  /* ... and a core runs one action at a time (transfers may be split
   * between gaps, so DMA spans can interleave) */
  qsort (ev, n, sizeof (simnpu_event), compare_resource_start);
  for (i = 0; i < n; i++) {
    if (ev[i].resource >= dinfo.n_cores)
      continue;
    if (i > 0 && ev[i].resource == ev[i - 1].resource)
      g_assert_cmpuint (ev[i].start_ns, >=, last_end[ev[i].resource]);
    last_end[ev[i].resource] = ev[i].end_ns;
  }

  /* counters add up */
  g_assert_cmpint (simnpu_device_get_counters (f.dev, &c), ==, 0);
  g_assert_cmpuint (c.jobs_submitted, ==, 8);
  g_assert_cmpuint (c.jobs_done + c.jobs_cancelled + c.jobs_failed, ==, 8);
  g_assert_cmpuint (c.n_resources, ==, dinfo.n_resources);
  for (i = 0; i < dinfo.n_resources; i++) {
    /* on the virtual clock the timeline is in device ns */
    g_assert_cmpuint (c.resource_busy_ns[i], ==, c.resource_device_ns[i]);
    if (i < dinfo.n_cores)
      g_assert_cmpuint (c.resource_busy_ns[i], ==, busy[i]);
    else
      g_assert_cmpuint (c.resource_busy_ns[i], <=, busy[i]);
  }
  g_assert_cmpuint (c.dma_busy_ns, ==,
      c.resource_busy_ns[2] + c.resource_busy_ns[3]);
  g_assert_cmpuint (c.dma_busy_ns, <=, dma_busy);
  g_assert_cmpuint (c.dma_bytes, ==, dma_bytes);
  g_assert_cmpuint (c.dma_bytes, ==, 8 * (f.in.size_bytes + f.out.size_bytes));
  g_assert_cmpuint (c.host_copy_bytes, ==, 8 * f.in.size_bytes);
  g_assert_cmpuint (c.lag_ns, ==, 0);
  g_assert_cmpuint (c.sim_cpu_ns, >, 0);
  g_assert_cmpuint (c.events_dropped, ==, 0);
  /* torq: both slices used, CSS busy once per job */
  g_assert_cmpuint (c.resource_busy_ns[0], >, 0);
  g_assert_cmpuint (c.resource_busy_ns[1], >, 0);
  g_free (ev);
  fixture_close (&f);
}

/* A transfer fills a gap left between an earlier job's transfers, split
 * around them: the span of its event is longer than its duration, and the
 * engine's busy time is the sum of the durations. */
static void
test_dma_transfers_split (void)
{
  Fixture f;
  simnpu_job_result r[2];
  simnpu_event ev[16];
  simnpu_counters c;
  const simnpu_event *in1 = NULL, *out1 = NULL, *in2 = NULL;
  size_t n, i;

  /* 1x1 conv: little compute between two 48x48x32 transfers */
  fixture_open (&f, "metis:job_overhead_ns=0", 48, 32, 1);
  g_assert_cmpint (simnpu_device_use_virtual_clock (f.dev, 0), ==, 0);
  run_wave (&f, 2, r);
  n = simnpu_device_read_events (f.dev, ev, G_N_ELEMENTS (ev));
  for (i = 0; i < n; i++) {
    if (ev[i].job_id == 1 && ev[i].kind == SIMNPU_ACTION_DMA_IN)
      in1 = &ev[i];
    if (ev[i].job_id == 1 && ev[i].kind == SIMNPU_ACTION_DMA_OUT)
      out1 = &ev[i];
    if (ev[i].job_id == 2 && ev[i].kind == SIMNPU_ACTION_DMA_IN)
      in2 = &ev[i];
  }
  g_assert_nonnull (in1);
  g_assert_nonnull (out1);
  g_assert_nonnull (in2);
  /* job 2's input starts in the gap during job 1's compute and ends after
   * job 1's output */
  g_assert_cmpuint (in2->start_ns, ==, in1->end_ns);
  g_assert_cmpuint (in2->start_ns, <, out1->start_ns);
  g_assert_cmpuint (in2->end_ns, >, out1->end_ns);
  g_assert_cmpuint (in2->end_ns - in2->start_ns, ==, (in1->end_ns -
          in1->start_ns) + (out1->end_ns - out1->start_ns));
  simnpu_device_get_counters (f.dev, &c);
  g_assert_cmpuint (c.dma_busy_ns, ==, 2 * (in1->end_ns - in1->start_ns +
          out1->end_ns - out1->start_ns));
  fixture_close (&f);
}

typedef struct
{
  GMutex lock;
  int calls;
  int cancelled;
  GThread *thread;
  uint64_t job_id;
} CallbackLog;

static void
on_done (simnpu_job * job, const simnpu_job_result * r, void *data)
{
  CallbackLog *log = data;

  g_mutex_lock (&log->lock);
  log->calls++;
  if (r->status == SIMNPU_ECANCELED)
    log->cancelled++;
  log->thread = g_thread_self ();
  log->job_id = r->job_id;
  g_assert_true (r->user_data == data);
  g_mutex_unlock (&log->lock);
}

static void
test_cancel_poll_callback (void)
{
  Fixture f;
  CallbackLog log = { 0 };
  simnpu_job *a, *b;
  simnpu_job_result r;
  simnpu_counters c;

  g_mutex_init (&log.lock);
  /* a slow device (each job takes over 0.1 s of wall time at this time
   * scale) so that jobs are still pending when cancelled */
  fixture_open (&f, "metis:cores=1", 8, 4, 1);
  g_assert_cmpint (simnpu_device_set_time_scale (f.dev, 1000.0), ==, 0);
  a = submit (&f, 0, on_done, &log);
  b = submit (&f, 1, on_done, &log);
  g_assert_cmpint (simnpu_job_poll (a, NULL), ==, SIMNPU_EAGAIN);
  g_assert_cmpint (simnpu_job_wait (b, 1000000, NULL), ==, SIMNPU_ETIMEDOUT);
  g_assert_cmpint (simnpu_job_cancel (b), ==, 0);
  g_assert_cmpint (simnpu_job_cancel (a), ==, 0);
  g_assert_cmpint (simnpu_job_wait (a, WAIT_NS, &r), ==, SIMNPU_ECANCELED);
  g_assert_cmpint (r.status, ==, SIMNPU_ECANCELED);
  g_assert_cmpint (simnpu_job_wait (b, WAIT_NS, &r), ==, SIMNPU_ECANCELED);
  /* cancelling a cancelled job again changes nothing */
  g_assert_cmpint (simnpu_job_cancel (a), ==, 0);
  simnpu_job_free (a);
  simnpu_job_free (b);
  g_assert_cmpint (log.calls, ==, 2);
  g_assert_cmpint (log.cancelled, ==, 2);
  g_assert_true (log.thread != g_thread_self ());

  /* a normal job after the cancellations, at time scale 0 */
  g_assert_cmpint (simnpu_device_set_time_scale (f.dev, 0.0), ==, 0);
  a = submit (&f, 0, on_done, &log);
  g_assert_cmpint (simnpu_job_wait (a, WAIT_NS, &r), ==, 0);
  g_assert_cmpint (simnpu_job_cancel (a), ==, SIMNPU_EINVAL);
  simnpu_job_free (a);
  g_assert_cmpint (log.calls, ==, 3);
  simnpu_device_get_counters (f.dev, &c);
  g_assert_cmpuint (c.jobs_cancelled, ==, 2);
  g_assert_cmpuint (c.jobs_done, ==, 1);
  g_mutex_clear (&log.lock);
  fixture_close (&f);
}

static void
on_detached (simnpu_job * job, const simnpu_job_result * r, void *data)
{
  gint *count = data;

  g_assert_null (job);
  g_assert_cmpint (r->status, ==, 0);
  g_atomic_int_inc (count);
}

static void
test_detached_jobs_and_drain (void)
{
  Fixture f;
  simnpu_input_buffer in;
  simnpu_output_buffer out;
  simnpu_error error = { 0 };
  gint count = 0;
  int i;

  fixture_open (&f, "metis", 8, 4, 3);
  simnpu_device_set_time_scale (f.dev, 0.0);
  in.data = f.in_data;
  in.size_bytes = f.in.size_bytes;
  for (i = 0; i < 20; i++) {
    out.data = f.out_data + (i % 64) * f.out.size_bytes;
    out.size_bytes = f.out.size_bytes;
    g_assert_cmpint (simnpu_job_submit (f.model, &in, 1, &out, 1,
            on_detached, &count, NULL, &error), ==, 0);
  }
  g_assert_cmpint (simnpu_device_drain (f.dev, WAIT_NS), ==, 0);
  g_assert_cmpint (g_atomic_int_get (&count), ==, 20);
  fixture_close (&f);
}

/* The outputs are what the kernels compute: the same job twice gives the
 * same bytes, and changing the input changes them. */
static void
test_outputs_are_computed (void)
{
  Fixture f;
  simnpu_job *a, *b;
  size_t i;

  fixture_open (&f, "metis", 8, 4, 3);
  simnpu_device_set_time_scale (f.dev, 0.0);
  for (i = 0; i < f.in.size_bytes; i++)
    f.in_data[i] = (guint8) (i * 37);
  a = submit (&f, 0, NULL, NULL);
  b = submit (&f, 1, NULL, NULL);
  g_assert_cmpint (simnpu_job_wait (a, WAIT_NS, NULL), ==, 0);
  g_assert_cmpint (simnpu_job_wait (b, WAIT_NS, NULL), ==, 0);
  g_assert_cmpmem (f.out_data, f.out.size_bytes,
      f.out_data + f.out.size_bytes, f.out.size_bytes);
  simnpu_job_free (a);
  simnpu_job_free (b);
  for (i = 0; i < f.in.size_bytes; i++)
    f.in_data[i] = (guint8) (i * 11 + 5);
  a = submit (&f, 1, NULL, NULL);
  g_assert_cmpint (simnpu_job_wait (a, WAIT_NS, NULL), ==, 0);
  simnpu_job_free (a);
  g_assert_true (memcmp (f.out_data, f.out_data + f.out.size_bytes,
          f.out.size_bytes) != 0);
  fixture_close (&f);
}

/* A device whose modelled time is far below the functional compute time
 * must count the lag instead of hiding it. */
static void
test_lag_is_counted (void)
{
  Fixture f;
  simnpu_job_result r[4];
  simnpu_counters c;
  unsigned i;

  fixture_open (&f, "metis:clock_mhz=10000,macs_per_cycle=1048576,"
      "job_overhead_ns=0,op_overhead_cycles=0,dma_bytes_per_s=1e12", 48, 32, 3);
  run_wave (&f, 4, r);
  simnpu_device_get_counters (f.dev, &c);
  g_assert_cmpuint (c.lagged_jobs, ==, 4);
  g_assert_cmpuint (c.lag_ns, >, 0);
  for (i = 0; i < 4; i++) {
    g_assert_cmpuint (r[i].lag_ns, >, 0);
    g_assert_cmpuint (r[i].complete_ns, >=, r[i].device_end_ns);
    g_assert_cmpuint (r[i].compute_ns, >, 0);
  }
  fixture_close (&f);
}

static void
test_host_profile_csv (void)
{
  Fixture f;
  simnpu_job_result r[3];
  simnpu_model_info info;
  simnpu_error error = { 0 };
  gchar *path, *contents = NULL, **lines;
  int fd;
  unsigned n_lines, i, host_rows = 0, core_rows = 0;

  fixture_open (&f, "torq", 8, 4, 3);
  simnpu_device_set_time_scale (f.dev, 0.0);
  simnpu_model_get_info (f.model, &info);
  fd = g_file_open_tmp ("simnpu-runtime-XXXXXX.csv", &path, NULL);
  close (fd);
  g_assert_cmpint (simnpu_device_start_host_profile (f.dev, path, &error),
      ==, 0);
  run_wave (&f, 3, r);
  g_assert_cmpint (simnpu_device_stop_host_profile (f.dev), ==, 0);
  g_assert_true (g_file_get_contents (path, &contents, NULL, NULL));
  lines = g_strsplit (contents, "\n", -1);
  n_lines = g_strv_length (lines);
  /* header; per job start and end per action and for the host copy, and
   * the core row; trailing "" */
  g_assert_cmpuint (n_lines, ==, 1 + 3 * (2 * (info.n_actions + 1) + 1) + 1);
  g_assert_cmpstr (lines[0], ==,
      "dispatch_name,invocation_id,action_id,timestamp_us,event");
  for (i = 1; i + 1 < n_lines; i++) {
    gchar **fields = g_strsplit (lines[i], ",", -1);
    g_assert_cmpuint (g_strv_length (fields), ==, 5);
    if (g_str_equal (fields[0], "job_core")) {
      g_assert_cmpstr (fields[4], ==, "core");
      g_assert_cmpint (atoi (fields[2]), <, 2);
      core_rows++;
    } else {
      g_assert_true (g_str_equal (fields[4], "start")
          || g_str_equal (fields[4], "end"));
      if (g_str_equal (fields[0], "host_copy"))
        host_rows++;
      else
        g_assert_cmpstr (fields[0], ==, "conv");
    }
    g_strfreev (fields);
  }
  g_assert_cmpuint (host_rows, ==, 6);
  g_assert_cmpuint (core_rows, ==, 3);
  g_strfreev (lines);
  g_free (contents);
  g_unlink (path);
  g_free (path);
  fixture_close (&f);
}

#define ORDER_JOBS 32

/* The rows of the runtime CSV are written out of the device lock by
 * whichever thread completed the job: concurrent completions on two
 * cores must still leave each job's rows together, in completion order,
 * and every job's rows in the file once stopped. */
static void
test_host_profile_rows_stay_grouped (void)
{
  Fixture f;
  simnpu_job_result r[ORDER_JOBS];
  simnpu_model_info info;
  simnpu_error error = { 0 };
  gchar *path, *contents = NULL, **lines;
  gboolean seen[ORDER_JOBS + 1] = { FALSE };
  unsigned n_lines, i, group, per_job;
  int fd;

  fixture_open (&f, "torq", 8, 4, 3);
  simnpu_device_set_time_scale (f.dev, 0.0);
  simnpu_model_get_info (f.model, &info);
  fd = g_file_open_tmp ("simnpu-runtime-XXXXXX.csv", &path, NULL);
  close (fd);
  g_assert_cmpint (simnpu_device_start_host_profile (f.dev, path, &error),
      ==, 0);
  run_wave (&f, ORDER_JOBS, r);
  g_assert_cmpint (simnpu_device_stop_host_profile (f.dev), ==, 0);
  g_assert_true (g_file_get_contents (path, &contents, NULL, NULL));
  lines = g_strsplit (contents, "\n", -1);
  n_lines = g_strv_length (lines);
  /* per job: start and end per action and for the host copy, the core */
  per_job = 2 * (info.n_actions + 1) + 1;
  g_assert_cmpuint (n_lines, ==, 1 + ORDER_JOBS * per_job + 1);
  for (group = 0; group < ORDER_JOBS; group++) {
    guint64 id = 0;
    for (i = 0; i < per_job; i++) {
      gchar **fields = g_strsplit (lines[1 + group * per_job + i], ",", -1);
      g_assert_cmpuint (g_strv_length (fields), ==, 5);
      if (i == 0)
        id = g_ascii_strtoull (fields[1], NULL, 10);
      g_assert_cmpuint (g_ascii_strtoull (fields[1], NULL, 10), ==, id);
      /* the core row closes the job's rows */
      g_assert_cmpint (g_str_equal (fields[4], "core"), ==, i + 1 == per_job);
      g_strfreev (fields);
    }
    g_assert_cmpuint (id, >=, 1);
    g_assert_cmpuint (id, <=, ORDER_JOBS);
    g_assert_false (seen[id]);
    seen[id] = TRUE;
  }
  g_strfreev (lines);
  g_free (contents);
  g_unlink (path);
  g_free (path);
  fixture_close (&f);
}

static void
test_profiles (void)
{
  simnpu_device *dev;
  simnpu_device_info info;
  simnpu_error error = { 0 };
  const char *const *names = simnpu_profile_names ();

  g_assert_cmpstr (names[0], ==, "metis");
  g_assert_cmpstr (names[1], ==, "torq");
  g_assert_null (names[2]);

  g_assert_cmpint (simnpu_device_open ("metis", &dev, &error), ==, 0);
  simnpu_device_get_info (dev, &info);
  g_assert_cmpuint (info.n_cores, ==, 4);
  g_assert_cmpuint (info.n_resources, ==, 5);
  g_assert_cmpstr (info.resources[0].name, ==, "core0");
  g_assert_cmpstr (info.resources[4].name, ==, "dma");
  g_assert_cmpfloat (info.time_scale, ==, 1.0);
  simnpu_device_close (dev);

  g_assert_cmpint (simnpu_device_open ("torq", &dev, &error), ==, 0);
  simnpu_device_get_info (dev, &info);
  g_assert_cmpuint (info.n_cores, ==, 2);
  g_assert_cmpuint (info.n_resources, ==, 6);
  g_assert_cmpstr (info.resources[1].name, ==, "slice1");
  g_assert_cmpstr (info.resources[2].name, ==, "dma_in");
  g_assert_cmpstr (info.resources[3].name, ==, "dma_out");
  g_assert_cmpstr (info.resources[4].name, ==, "cdma");
  g_assert_cmpstr (info.resources[5].name, ==, "css");
  simnpu_device_close (dev);

  g_assert_cmpint (simnpu_device_open ("metis:cores=2,clock_mhz=600", &dev,
          &error), ==, 0);
  simnpu_device_get_info (dev, &info);
  g_assert_cmpuint (info.n_cores, ==, 2);
  g_assert_cmpfloat (info.clock_mhz, ==, 600.0);
  g_assert_nonnull (strstr (info.spec, "cores=2,clock_mhz=600"));
  simnpu_device_close (dev);

  g_assert_cmpint (simnpu_device_open ("npu9000", &dev, &error), ==,
      SIMNPU_ENOENT);
  g_assert_nonnull (strstr (error.message, "npu9000"));
  g_assert_cmpint (simnpu_device_open ("metis:cores=0", &dev, &error), ==,
      SIMNPU_EINVAL);
  g_assert_nonnull (strstr (error.message, "cores"));
  g_assert_cmpint (simnpu_device_open ("metis:speed=3", &dev, &error), ==,
      SIMNPU_EINVAL);
  g_assert_nonnull (strstr (error.message, "speed"));
  g_assert_cmpint (simnpu_device_open ("metis:clock_mhz", &dev, &error), ==,
      SIMNPU_EINVAL);
  g_assert_null (dev);
}

static void
test_rescheduled_for_other_device (void)
{
  simnpu_error error = { 0 };
  gchar *json = test_conv_graph_json ("conv", 8, 4, 4, 3, SEED);
  gchar *path = test_compile_json (json, "metis", false, &error);
  simnpu_device *dev;
  simnpu_model *model;
  simnpu_model_info info;

  g_assert_cmpint (simnpu_device_open ("torq", &dev, &error), ==, 0);
  g_assert_cmpint (simnpu_model_load (dev, path, &model, &error), ==, 0);
  simnpu_model_get_info (model, &info);
  g_assert_true (info.rescheduled);
  g_assert_true (g_str_has_prefix (info.compiled_for, "torq:"));
  /* torq adds the CSS setup action */
  g_assert_cmpuint (info.n_actions, ==, 4);
  g_assert_cmpuint (simnpu_model_get_latency_ns (model), ==, info.device_ns);
  simnpu_device_set_time_scale (dev, 2.0);
  g_assert_cmpuint (simnpu_model_get_latency_ns (model), ==,
      2 * info.device_ns);
  simnpu_model_unload (model);
  simnpu_device_close (dev);
  g_unlink (path);
  g_free (path);
  g_free (json);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/simnpu/runtime/concurrency",
      test_concurrency_virtual_clock);
  g_test_add_func ("/simnpu/runtime/events-counters",
      test_event_order_and_counters);
  g_test_add_func ("/simnpu/runtime/device-time-overhead",
      test_device_time_includes_job_overhead);
  g_test_add_func ("/simnpu/runtime/dma-split", test_dma_transfers_split);
  g_test_add_func ("/simnpu/runtime/cancel-poll-callback",
      test_cancel_poll_callback);
  g_test_add_func ("/simnpu/runtime/detached", test_detached_jobs_and_drain);
  g_test_add_func ("/simnpu/runtime/outputs", test_outputs_are_computed);
  g_test_add_func ("/simnpu/runtime/lag", test_lag_is_counted);
  g_test_add_func ("/simnpu/runtime/host-profile", test_host_profile_csv);
  g_test_add_func ("/simnpu/runtime/host-profile-grouped",
      test_host_profile_rows_stay_grouped);
  g_test_add_func ("/simnpu/runtime/profiles", test_profiles);
  g_test_add_func ("/simnpu/runtime/rescheduled",
      test_rescheduled_for_other_device);
  return g_test_run ();
}
