/* gst-ax
 * Copyright (C) 2026 gst-ax developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

/* The verdict on hand-built reports: one case per constraint kind, and the
 * trust and allocation steps. */

#include <gst/check/gstcheck.h>
#include <gst/ax/ax.h>
#include <gst/ax/gstax-private.h>
#include <json-glib/json-glib.h>
#include <string.h>

#define WALL_S 10.0
#define FRAMES 100

static GstAxReport *
new_report (void)
{
  GstAxReport *r = gst_ax_report_new ();

  r->pipeline = g_strdup ("pipeline0");
  r->status = GST_AX_REPORT_STATUS_EOS;
  r->frames = FRAMES;
  r->wall_s = WALL_S;
  r->fps = FRAMES / WALL_S;
  r->cores_used = 1.0;
  r->cpu_percent = 100.0;
  r->cores_available = 2;
  r->profiler_percent = 1.0;
  g_ptr_array_add (r->sources, g_strdup ("src"));
  return r;
}

/* A classified row of @count calls, @mean_ms wall and @cpu_ms CPU each. */
static GstAxReportRow *
add_row (GstAxReportGroup * g, const gchar * name, const gchar * element,
    GstAxReportRowKind kind, gint rank, gdouble mean_ms, gdouble cpu_ms,
    guint64 count)
{
  GstAxReportRow *row = gst_ax_report_group_add_row (g, name);

  row->element = g_strdup (element);
  row->kind = kind;
  row->rank = rank;
  row->mean_ms = row->min_ms = row->max_ms = mean_ms;
  row->cpu_ms = cpu_ms;
  row->count = count;
  row->total_ms = mean_ms * count;
  if (kind == GST_AX_REPORT_ROW_KIND_TASK)
    row->flags |= GST_AX_REPORT_ROW_FLAG_STAGE;
  gst_ax_report_row_classify (row);
  return row;
}

static GstAxReportQueue *
add_queue (GstAxReport * r, const gchar * name, gdouble full_percent,
    gdouble empty_percent)
{
  GstAxReportQueue q = { 0, };

  q.name = g_strdup (name);
  q.element = g_strdup (name);
  q.mean = 1.5;
  q.max = 3;
  q.max_size_buffers = 3;
  q.full_percent = full_percent;
  q.empty_percent = empty_percent;
  g_array_append_val (r->queues, q);
  return &g_array_index (r->queues, GstAxReportQueue, r->queues->len - 1);
}

static GstAxReportDevice *
add_device (GstAxReport * r, const gchar * model, gdouble occupancy,
    gdouble depth, guint window)
{
  GstAxReportDevice d = { 0, };

  d.group = g_strdup (model);
  d.device = g_strdup ("metis");
  d.n_cores = 4;
  d.in_flight_window = window;
  d.jobs = d.frames = FRAMES;
  d.device_ms = 2.0;
  d.occupancy_percent = occupancy;
  d.depth = depth;
  g_array_append_val (r->devices, d);
  return &g_array_index (r->devices, GstAxReportDevice, r->devices->len - 1);
}

/* a model group: axinference with its copies and device wait */
static void
add_model (GstAxReport * r, const gchar * model, gdouble copy_cpu_ms)
{
  GstAxReportGroup *g = gst_ax_report_add_group (r, model);
  GstAxReportRow *wait;

  add_row (g, "axinference0", "axinference0", GST_AX_REPORT_ROW_KIND_ELEMENT,
      2, 0.2, 0.2, FRAMES);
  add_row (g, "host copy in", "axinference0", GST_AX_REPORT_ROW_KIND_REPORTED,
      2, 1.0, copy_cpu_ms, FRAMES);
  wait = add_row (g, "device wait", "axinference0",
      GST_AX_REPORT_ROW_KIND_REPORTED, 2, 20.0, 0.1, FRAMES);
  wait->flags |=
      GST_AX_REPORT_ROW_FLAG_DEVICE_WAIT | GST_AX_REPORT_ROW_FLAG_STAGE;
  gst_ax_report_row_classify (wait);
}

static GstAxReportVerdict *
judge (GstAxReport * r)
{
  gst_ax_report_finish_groups (r);
  return gst_ax_report_make_verdict (r);
}

static void
assert_has (const gchar * text, const gchar * needle)
{
  fail_unless (text != NULL && strstr (text, needle) != NULL,
      "'%s' not in:\n%s", needle, text ? text : "(null)");
}

GST_START_TEST (test_one_computing_rule)
{
  GstAxReport *r = new_report ();
  GstAxReportGroup *g = gst_ax_report_add_group (r, "pipeline");
  GstAxReportRow *row;

  row = add_row (g, "a", "a", GST_AX_REPORT_ROW_KIND_ELEMENT, 0, 2.0, 1.0, 1);
  fail_unless (gst_ax_report_row_is_computing (row));
  row = add_row (g, "b", "b", GST_AX_REPORT_ROW_KIND_ELEMENT, 0, 2.0, 0.9, 1);
  fail_unless (row->flags & GST_AX_REPORT_ROW_FLAG_BLOCKED);
  fail_if (gst_ax_report_row_is_computing (row));
  row = add_row (g, "c", "c", GST_AX_REPORT_ROW_KIND_ELEMENT, 0, 2.0, 0.1, 1);
  fail_unless (row->flags & GST_AX_REPORT_ROW_FLAG_STRONGLY_BLOCKED);
  fail_if (gst_ax_report_row_is_computing (row));
  /* too short to compare CPU with wall: computing */
  row = add_row (g, "d", "d", GST_AX_REPORT_ROW_KIND_ELEMENT, 0, 0.01, 0, 1);
  fail_unless (gst_ax_report_row_is_computing (row));
  row = add_row (g, "e", "e", GST_AX_REPORT_ROW_KIND_REPORTED, 0, 2.0, 2.0, 1);
  row->flags |= GST_AX_REPORT_ROW_FLAG_DEVICE_WAIT;
  fail_if (gst_ax_report_row_is_computing (row));
  gst_ax_report_free (r);
}

GST_END_TEST;

GST_START_TEST (test_host_element)
{
  GstAxReport *r = new_report ();
  GstAxReportGroup *g = gst_ax_report_add_group (r, "pipeline");
  GstAxReportVerdict *v;

  add_row (g, "src (create)", "src", GST_AX_REPORT_ROW_KIND_TASK, 0, 0.5, 0.5,
      FRAMES);
  add_row (g, "convert", "convert", GST_AX_REPORT_ROW_KIND_ELEMENT, 1, 8.0,
      7.5, FRAMES)->faults = 300;
  add_row (g, "sink", "sink", GST_AX_REPORT_ROW_KIND_ELEMENT, 2, 0.1, 0.1,
      FRAMES);
  v = judge (r);
  fail_unless_equals_int (v->kind, GST_AX_REPORT_CONSTRAINT_HOST);
  fail_unless_equals_string (v->element, "convert");
  fail_unless_equals_string (v->row, "convert");
  fail_unless_equals_string (v->group, "pipeline");
  fail_unless (v->queue == NULL && v->model == NULL);
  fail_unless_equals_string (v->constraint, "a host element: convert");
  fail_unless_equals_int (v->steps->len, 6);
  fail_unless_equals_string (v->text,
      "  1. Trust: complete run, no DEBUG logging; the profiler cost 1.0% of "
      "the profiled time.\n"
      "  2. Wall time: group pipeline holds 100.0% of the profiled time; its "
      "costliest row is convert with 800.0 ms (8.00 ms x 100 calls).\n"
      "  3. convert is computing: CPU 7.50 of wall 8.00 ms per call.\n"
      "  4. Allocation: convert takes 300 page faults per call: reuse its "
      "output buffer (a pool).\n"
      "  5. Resource: no device; host cores used 1.00 of 2.\n"
      "  6. Starvation: no queue is mostly full or mostly empty.");
  /* the copy language bindings take owns all of it */
  {
    GstAxReportVerdict *c = gst_ax_report_verdict_copy (v);
    guint i;

    fail_unless (c != v && c->element != v->element && c->steps != v->steps);
    fail_unless_equals_int (c->kind, v->kind);
    fail_unless_equals_string (c->element, v->element);
    fail_unless_equals_string (c->row, v->row);
    fail_unless_equals_string (c->group, v->group);
    fail_unless (c->queue == NULL && c->model == NULL);
    fail_unless_equals_string (c->constraint, v->constraint);
    fail_unless_equals_string (c->text, v->text);
    fail_unless_equals_int (c->steps->len, v->steps->len);
    gst_ax_report_verdict_free (v);
    for (i = 0; i < c->steps->len; i++)
      fail_unless (strlen (g_ptr_array_index (c->steps, i)) > 0);
    fail_unless_equals_string (c->constraint, "a host element: convert");
    v = c;
  }
  gst_ax_report_verdict_free (v);
  gst_ax_report_free (r);
}

GST_END_TEST;

GST_START_TEST (test_allocation_step)
{
  GstAxReport *r = new_report ();
  GstAxReportGroup *g = gst_ax_report_add_group (r, "pipeline");
  GstAxReportRow *row;
  GstAxReportVerdict *v;

  /* the costliest row waits: allocation is judged on the computing one */
  add_row (g, "sink", "sink", GST_AX_REPORT_ROW_KIND_ELEMENT, 2, 30.0, 0.1,
      FRAMES)->faults = 500;
  row = add_row (g, "convert", "convert", GST_AX_REPORT_ROW_KIND_ELEMENT, 1,
      8.0, 7.5, FRAMES);
  row->faults = 2;
  v = judge (r);
  assert_has (v->text, "  4. Allocation: convert takes 2 faults per call; "
      "allocation is not what costs.");
  assert_has (v->text, "     The costliest row that computes is convert "
      "(pipeline) with 800.0 ms (CPU 7.50 of 8.00 ms per call).");
  gst_ax_report_verdict_free (v);

  r->faults_measured = FALSE;
  v = gst_ax_report_make_verdict (r);
  assert_has (v->text, "  4. Allocation: faults are not measured on this "
      "system.");
  gst_ax_report_verdict_free (v);
  gst_ax_report_free (r);
}

GST_END_TEST;

GST_START_TEST (test_device_bound)
{
  GstAxReport *r = new_report ();
  GstAxReportVerdict *v;

  add_model (r, "yolo", 1.0);
  add_device (r, "yolo", 92.5, 3.0, 8);
  v = judge (r);
  fail_unless_equals_int (v->kind, GST_AX_REPORT_CONSTRAINT_DEVICE);
  fail_unless_equals_string (v->model, "yolo");
  fail_unless (v->element == NULL);
  fail_unless_equals_string (v->constraint,
      "the device (yolo on metis, 92.5% occupied)");
  assert_has (v->text, "  3. device wait is waiting on the device by design: "
      "CPU 0.10 of wall 20.00 ms per call.");
  assert_has (v->text, "  5. Resource: device occupancy 92.5% of 4 cores; "
      "host cores used 1.00 of 2.");
  assert_has (v->text, "  6. Starvation: in-flight depth 3.0 of a window of "
      "8.");
  fail_unless (!v->simulator_lags);
  gst_ax_report_verdict_free (v);
  gst_ax_report_free (r);
}

GST_END_TEST;

/* N streams of one model on one device: each model's own occupancy is a
 * quarter of the device's, their windows are full, and the device they
 * fill together is the constraint; below the threshold it is not. */
GST_START_TEST (test_shared_device_bound)
{
  GstAxReport *r = new_report ();
  GstAxReportDeviceOccupancy *o;
  GstAxReportVerdict *v;
  guint i;

  add_model (r, "blazeface", 1.0);
  o = gst_ax_report_add_device_occupancy (r, "metis", 0);
  o->n_cores = 4;
  o->window_s = WALL_S;
  for (i = 0; i < 4; i++) {
    add_device (r, "blazeface", 23.0, 1.0, 1)->occupancy_index = 1;
    gst_ax_report_device_occupancy_add_model (o, "blazeface", 9200.0);
  }
  o->occupancy_percent = 92.0;
  v = judge (r);
  fail_unless_equals_int (v->kind, GST_AX_REPORT_CONSTRAINT_DEVICE);
  fail_unless_equals_string (v->model, "blazeface");
  fail_unless_equals_string (v->constraint, "the device (metis device-id 0, "
      "92.0% of its 4 cores occupied by the 4 models that share it: "
      "blazeface x4 100.0% of its busy time; more streams or models would "
      "only queue on it)");
  assert_has (v->text, "  5. Resource: device occupancy 23.0% of 4 cores; "
      "host cores used 1.00 of 2.\n     blazeface shares the device with 3 "
      "other models: together they occupy 92.0% of its 4 cores.");
  gst_ax_report_verdict_free (v);

  /* half occupied: the windows hold it, not the device */
  o->occupancy_percent = 50.0;
  v = gst_ax_report_make_verdict (r);
  fail_unless_equals_int (v->kind, GST_AX_REPORT_CONSTRAINT_WINDOW);
  gst_ax_report_verdict_free (v);
  gst_ax_report_free (r);
}

GST_END_TEST;

GST_START_TEST (test_window_and_submission)
{
  GstAxReport *r = new_report ();
  GstAxReportDevice *d;
  GstAxReportVerdict *v;

  add_model (r, "yolo", 1.0);
  d = add_device (r, "yolo", 40.0, 3.8, 4);
  v = judge (r);
  fail_unless_equals_int (v->kind, GST_AX_REPORT_CONSTRAINT_WINDOW);
  fail_unless_equals_string (v->model, "yolo");
  fail_unless_equals_string (v->constraint, "the device at its in-flight "
      "window (yolo: 3.8 of 4 frames in flight, 40.0% of 4 cores busy: a "
      "larger in-flight window would use the idle cores)");
  gst_ax_report_verdict_free (v);

  d->depth = 1.2;
  v = gst_ax_report_make_verdict (r);
  fail_unless_equals_int (v->kind, GST_AX_REPORT_CONSTRAINT_SUBMISSION);
  fail_unless_equals_string (v->model, "yolo");
  fail_unless_equals_string (v->constraint, "the submission loop: 1.2 frames "
      "in flight of a window of 4 with the device 40.0% occupied");
  gst_ax_report_verdict_free (v);
  gst_ax_report_free (r);
}

GST_END_TEST;

GST_START_TEST (test_simulator_compute)
{
  GstAxReport *r = new_report ();
  GstAxReportGroup *g;
  GstAxReportDevice *d;
  GstAxReportVerdict *v;

  g = gst_ax_report_add_group (r, "pipeline");
  add_row (g, "src (create)", "src", GST_AX_REPORT_ROW_KIND_TASK, 0, 0.5, 0.5,
      FRAMES);
  add_row (g, "queue0", "queue0", GST_AX_REPORT_ROW_KIND_ELEMENT, 1, 30.0,
      0.1, FRAMES);
  add_model (r, "yolo", 1.0);
  d = add_device (r, "yolo", 30.0, 3.0, 8);
  /* 12 ms late per job on a 2 ms device: far behind; 6 s of CPU */
  d->lag_ms = 1200.0;
  d->sim_cpu_ms = 6000.0;
  r->have_sim_cpu = TRUE;
  r->sim_cpu_percent = 60.0;
  add_queue (r, "queue0", 90.0, 0);
  v = judge (r);
  fail_unless_equals_int (v->kind, GST_AX_REPORT_CONSTRAINT_SIMULATOR);
  fail_unless (v->simulator_lags);
  fail_unless_equals_string (v->model, "yolo");
  fail_unless_equals_string (v->constraint, "the simulator's functional "
      "compute (yolo: sim-npu's own threads used 6000.0 ms of CPU, 60.0% of "
      "the process's, and delivered each job 12.00 ms after the device model "
      "finished it: this host computes the network slower than the modelled "
      "device runs it)");
  assert_has (v->text, "\n     WARNING: the simulator cannot keep pace with "
      "the device model: yolo's functional compute lagged it by 1200.0 ms "
      "(12.00 ms per job over 100 jobs against 2.00 ms of modelled device "
      "time).");
  assert_has (v->text, "occupancy 30.0% of 4 cores (the model's); host "
      "cores used 1.00 of 2, 0.60 of them by the simulator's own threads.");
  assert_has (v->text, "full 90.0%, empty 0.0% of the time (filled behind "
      "the simulator's pace: an effect, not the cause).");
  gst_ax_report_verdict_free (v);

  /* a lag within a thread's wake-up is no lag */
  d->lag_ms = 0.3 * FRAMES;
  v = gst_ax_report_make_verdict (r);
  fail_if (v->simulator_lags);
  fail_unless_equals_int (v->kind, GST_AX_REPORT_CONSTRAINT_BACKPRESSURE);
  fail_if (strstr (v->text, "WARNING") != NULL, "%s", v->text);
  gst_ax_report_verdict_free (v);
  gst_ax_report_free (r);
}

GST_END_TEST;

GST_START_TEST (test_queue_full)
{
  GstAxReport *r = new_report ();
  GstAxReportGroup *g = gst_ax_report_add_group (r, "pipeline");
  GstAxReportVerdict *v;
  GstAxReportRow *sink;

  r->pacing = g_strdup ("paced by clock sync in sink (sync=true)");
  add_row (g, "src (create)", "src", GST_AX_REPORT_ROW_KIND_TASK, 0, 0.5, 0.5,
      FRAMES);
  /* the queue's own rows block most: they are not what is slower */
  add_row (g, "queue1", "queue1", GST_AX_REPORT_ROW_KIND_ELEMENT, 1, 40.0, 0.1,
      FRAMES);
  add_row (g, "queue1 (pull)", "queue1", GST_AX_REPORT_ROW_KIND_TASK, 1, 35.0,
      0.1, FRAMES);
  sink = add_row (g, "sink", "sink", GST_AX_REPORT_ROW_KIND_ELEMENT, 2, 33.0,
      0.2, FRAMES);
  add_queue (r, "queue1", 90.3, 2.0);
  v = judge (r);
  fail_unless_equals_int (v->kind, GST_AX_REPORT_CONSTRAINT_BACKPRESSURE);
  fail_unless_equals_string (v->queue, "queue1");
  fail_unless_equals_string (v->element, "sink");
  fail_unless_equals_string (v->constraint, "back-pressure: queue1 is full "
      "90.3% of the time because sink downstream is slower (and it mostly "
      "waits: paced by clock sync in sink (sync=true))");
  assert_has (v->text, "  6. Starvation: queue1 mean depth 1.5 (max 3), full "
      "90.3%, empty 2.0% of the time.");
  gst_ax_report_verdict_free (v);

  /* a computing downstream row is named without the pacing */
  sink->cpu_ms = sink->mean_ms;
  gst_ax_report_row_classify (sink);
  v = gst_ax_report_make_verdict (r);
  fail_unless_equals_string (v->constraint, "back-pressure: queue1 is full "
      "90.3% of the time because sink downstream is slower");
  gst_ax_report_verdict_free (v);
  gst_ax_report_free (r);
}

GST_END_TEST;

GST_START_TEST (test_waiting_row)
{
  GstAxReport *r = new_report ();
  GstAxReportGroup *g = gst_ax_report_add_group (r, "pipeline");
  GstAxReportVerdict *v;

  add_row (g, "src (create)", "src", GST_AX_REPORT_ROW_KIND_TASK, 0, 0.5, 0.5,
      FRAMES);
  add_row (g, "sink", "sink", GST_AX_REPORT_ROW_KIND_ELEMENT, 1, 33.0, 0.2,
      FRAMES);
  v = judge (r);
  fail_unless_equals_int (v->kind, GST_AX_REPORT_CONSTRAINT_BACKPRESSURE);
  fail_unless_equals_string (v->element, "sink");
  fail_unless (v->queue == NULL);
  fail_unless_equals_string (v->constraint, "back-pressure from sink, which "
      "waits rather than computes (check its sync/clock)");
  assert_has (v->text, "  3. sink is mostly waiting, not computing: CPU 0.20 "
      "of wall 33.00 ms per call.");
  gst_ax_report_verdict_free (v);
  gst_ax_report_free (r);
}

GST_END_TEST;

GST_START_TEST (test_queue_empty)
{
  GstAxReport *r = new_report ();
  GstAxReportGroup *g = gst_ax_report_add_group (r, "pipeline");
  GstAxReportVerdict *v;

  g_ptr_array_add (r->sources, g_strdup ("src2"));
  add_row (g, "src (create)", "src", GST_AX_REPORT_ROW_KIND_TASK, 0, 1.0, 1.0,
      FRAMES);
  /* costlier upstream, but it waits: not the work the queue waits for */
  add_row (g, "throttle", "throttle", GST_AX_REPORT_ROW_KIND_ELEMENT, 1, 5.0,
      0.1, FRAMES);
  /* costlier upstream, but a stage the element reported */
  add_row (g, "decode stage", "dec", GST_AX_REPORT_ROW_KIND_REPORTED, 1, 4.0,
      4.0, FRAMES);
  add_row (g, "dec", "dec", GST_AX_REPORT_ROW_KIND_ELEMENT, 1, 2.0, 1.9,
      FRAMES);
  add_row (g, "queue0", "queue0", GST_AX_REPORT_ROW_KIND_ELEMENT, 2, 0.1, 0.1,
      FRAMES);
  add_row (g, "queue0 (pull)", "queue0", GST_AX_REPORT_ROW_KIND_TASK, 2, 30.0,
      0.1, FRAMES);
  /* costlier, computing, but downstream of the queue */
  add_row (g, "convert", "convert", GST_AX_REPORT_ROW_KIND_ELEMENT, 3, 9.0,
      9.0, FRAMES);
  add_queue (r, "queue0", 0, 90.0);
  v = judge (r);
  fail_unless_equals_int (v->kind, GST_AX_REPORT_CONSTRAINT_SOURCE);
  fail_unless_equals_string (v->queue, "queue0");
  fail_unless_equals_string (v->element, "dec");
  fail_unless_equals_string (v->constraint, "source starvation: queue0 is "
      "empty 90.0% of the time, waiting on src, src2 (the costliest work "
      "upstream of it is dec, 2.00 ms per frame)");
  gst_ax_report_verdict_free (v);
  gst_ax_report_free (r);

  /* nothing upstream computes measurably: not "capsfilter0, 0.00 ms",
   * but the source's task the queue waits for */
  r = new_report ();
  g = gst_ax_report_add_group (r, "pipeline");
  add_row (g, "src (create)", "src", GST_AX_REPORT_ROW_KIND_TASK, 0, 33.0,
      0.5, FRAMES);
  add_row (g, "capsfilter0", "capsfilter0", GST_AX_REPORT_ROW_KIND_ELEMENT, 1,
      0.001, 0.001, FRAMES);
  add_row (g, "queue0", "queue0", GST_AX_REPORT_ROW_KIND_ELEMENT, 2, 0.01,
      0.01, FRAMES);
  add_row (g, "queue0 (pull)", "queue0", GST_AX_REPORT_ROW_KIND_TASK, 2, 33.0,
      0.1, FRAMES);
  add_queue (r, "queue0", 0, 99.0);
  v = judge (r);
  fail_unless_equals_int (v->kind, GST_AX_REPORT_CONSTRAINT_SOURCE);
  fail_unless_equals_string (v->element, "src");
  fail_unless_equals_string (v->constraint, "source starvation: queue0 is "
      "empty 99.0% of the time, waiting on src (the costliest work upstream "
      "of it is src (create), 33.00 ms per frame)");
  gst_ax_report_verdict_free (v);
  gst_ax_report_free (r);
}

GST_END_TEST;

GST_START_TEST (test_source_task)
{
  GstAxReport *r = new_report ();
  GstAxReportGroup *g = gst_ax_report_add_group (r, "pipeline");
  GstAxReportVerdict *v;

  add_row (g, "src (create)", "src", GST_AX_REPORT_ROW_KIND_TASK, 0, 10.0,
      9.0, FRAMES);
  add_row (g, "sink", "sink", GST_AX_REPORT_ROW_KIND_ELEMENT, 1, 0.2, 0.2,
      FRAMES);
  v = judge (r);
  fail_unless_equals_int (v->kind, GST_AX_REPORT_CONSTRAINT_SOURCE);
  fail_unless_equals_string (v->element, "src");
  fail_unless_equals_string (v->row, "src (create)");
  fail_unless_equals_string (v->constraint, "source starvation: src (create) "
      "produces the frames slowest");
  gst_ax_report_verdict_free (v);
  gst_ax_report_free (r);
}

GST_END_TEST;

GST_START_TEST (test_trust_step)
{
  GstAxReport *r = new_report ();
  GstAxReportGroup *g = gst_ax_report_add_group (r, "pipeline");
  GstAxReportVerdict *v;

  add_row (g, "convert", "convert", GST_AX_REPORT_ROW_KIND_ELEMENT, 0, 8.0,
      7.5, FRAMES);
  r->status = GST_AX_REPORT_STATUS_CUT_SHORT;
  r->allow_debug = TRUE;
  r->sample = 16;
  r->profiler_percent = 12.5;
  gst_ax_report_add_warning (r, "figures disagree");
  v = judge (r);
  fail_unless_equals_string (g_ptr_array_index (v->steps, 0),
      "  1. Trust: the run was CUT SHORT, DEBUG logging on (allow-debug), "
      "CPU/faults sampled; the profiler cost 12.5% of the profiled time, and "
      "the arithmetic checks raised warnings (above).");
  gst_ax_report_verdict_free (v);
  gst_ax_report_free (r);
}

GST_END_TEST;

GST_START_TEST (test_refused_and_empty)
{
  GstAxReport *r = new_report ();
  GstAxReportVerdict *v;

  /* nothing measured */
  v = judge (r);
  fail_unless_equals_int (v->kind, GST_AX_REPORT_CONSTRAINT_UNDETERMINED);
  fail_unless_equals_string (v->constraint, "undetermined (no data)");
  fail_unless_equals_string (v->text, "  1. Trust: complete run, no DEBUG "
      "logging; the profiler cost 1.0% of the profiled time.\n"
      "  Nothing was measured.");
  gst_ax_report_verdict_free (v);

  /* DEBUG logging refused the run: nothing to judge */
  r->refusal = g_strdup ("DEBUG logging is enabled");
  v = gst_ax_report_make_verdict (r);
  fail_unless_equals_int (v->kind, GST_AX_REPORT_CONSTRAINT_UNDETERMINED);
  fail_unless_equals_int (v->steps->len, 0);
  assert_has (v->constraint, "refused");
  gst_ax_report_verdict_free (v);
  gst_ax_report_free (r);
}

GST_END_TEST;

GST_START_TEST (test_json_carries_verdict)
{
  GstAxReport *r = new_report ();
  GstAxReportGroup *g = gst_ax_report_add_group (r, "pipeline");
  GstAxReportVerdict *v;
  JsonParser *parser = json_parser_new ();
  JsonObject *root, *verdict, *row, *queue;
  gchar *json, *text;

  add_row (g, "queue1", "queue1", GST_AX_REPORT_ROW_KIND_ELEMENT, 1, 40.0, 0.1,
      FRAMES);
  add_row (g, "sink", "sink", GST_AX_REPORT_ROW_KIND_ELEMENT, 2, 33.0, 33.0,
      FRAMES);
  add_queue (r, "queue1", 90.0, 0);
  v = judge (r);
  gst_ax_report_set_verdict (r, v);
  gst_ax_report_verdict_free (v);

  text = gst_ax_report_to_text (r);
  assert_has (text, "Verdict: the constraint is back-pressure: queue1 is full "
      "90.0% of the time because sink downstream is slower.\n  1. Trust:");
  json = gst_ax_report_to_json (r);
  fail_unless (json_parser_load_from_data (parser, json, -1, NULL));
  root = json_node_get_object (json_parser_get_root (parser));
  verdict = json_object_get_object_member (root, "verdict");
  fail_unless_equals_string (json_object_get_string_member (verdict, "kind"),
      "backpressure");
  fail_unless_equals_string (json_object_get_string_member (verdict,
          "element"), "sink");
  fail_unless_equals_string (json_object_get_string_member (verdict, "queue"),
      "queue1");
  fail_unless (json_object_get_null_member (verdict, "model"));
  fail_unless_equals_string (json_array_get_string_element
      (json_object_get_array_member (root, "sources"), 0), "src");
  row = json_array_get_object_element (json_object_get_array_member
      (json_array_get_object_element (json_object_get_array_member (root,
                  "groups"), 0), "rows"), 1);
  fail_unless_equals_string (json_object_get_string_member (row, "element"),
      "sink");
  fail_unless_equals_string (json_object_get_string_member (row, "kind"),
      "element");
  fail_unless_equals_int (json_object_get_int_member (row, "rank"), 2);
  queue = json_array_get_object_element (json_object_get_array_member (root,
          "queues"), 0);
  fail_unless_equals_string (json_object_get_string_member (queue,
          "element"), "queue1");
  g_object_unref (parser);
  g_free (json);
  g_free (text);
  gst_ax_report_free (r);
}

GST_END_TEST;

/* A slow element after the model: the window is full of finished frames
 * waiting for the in-order push. The verdict names the element, even
 * with a simulator that lags its model (the trust step still warns). */
GST_START_TEST (test_slow_after_model)
{
  GstAxReport *r = new_report ();
  GstAxReportGroup *g = gst_ax_report_add_group (r, "pipeline");
  GstAxReportDevice *d;
  GstAxReportVerdict *v;

  add_row (g, "src (create)", "src", GST_AX_REPORT_ROW_KIND_TASK, 0, 0.2,
      0.2, FRAMES);
  add_row (g, "slow", "slow", GST_AX_REPORT_ROW_KIND_ELEMENT, 3, 20.0, 0.05,
      FRAMES);
  add_row (g, "sink", "sink", GST_AX_REPORT_ROW_KIND_ELEMENT, 4, 0.1, 0.1,
      FRAMES);
  add_model (r, "yolo", 1.0);
  d = add_device (r, "yolo", 0.2, 0.4, 64);
  /* the old depth (device and host stages) read 0.4; the window's own */
  d->depth = 60.0;
  d->held_depth = 58.0;
  d->lag_ms = 6.5 * FRAMES;
  d->sim_cpu_ms = 500.0;
  /* the slow element is busy most of the run */
  r->wall_s = 2.2;
  v = judge (r);
  fail_unless_equals_int (v->kind, GST_AX_REPORT_CONSTRAINT_BACKPRESSURE);
  fail_unless_equals_string (v->element, "slow");
  fail_unless_equals_string (v->model, "yolo");
  assert_has (v->constraint, "back-pressure on yolo's in-flight window: 60.0 "
      "of 64 frames in flight, 58.0 of them finished and waiting for the "
      "in-order push, because what runs after the model is slower: slow "
      "(20.00 ms x 100 calls, waiting rather than computing)");
  fail_unless (strstr (v->constraint, "submission") == NULL);
  fail_unless (v->simulator_lags);
  assert_has (v->text, "WARNING: the simulator cannot keep pace");
  assert_has (v->text, "  6. Starvation: in-flight depth 60.0 of a window "
      "of 64, 58.0 of them finished frames waiting for the in-order push.");
  gst_ax_report_verdict_free (v);

  /* frames that wait on the device are not held by what follows */
  d->held_depth = 5.0;
  v = judge (r);
  fail_if (v->kind == GST_AX_REPORT_CONSTRAINT_BACKPRESSURE);
  gst_ax_report_verdict_free (v);
  gst_ax_report_free (r);
}

GST_END_TEST;

/* decodebin ! detection: axnms and axoverlay limit axinference's output
 * thread; the full multiqueue and axinference's wait for room are the
 * effect. The window is not full, but most of what is in it is finished. */
GST_START_TEST (test_output_thread_rows)
{
  GstAxReport *r = new_report ();
  GstAxReportGroup *g = gst_ax_report_add_group (r, "pipeline");
  GstAxReportGroup *m;
  GstAxReportDevice *d;
  GstAxReportQueue *q;
  GstAxReportVerdict *v;

  add_row (g, "avidemux0 (loop)", "avidemux0", GST_AX_REPORT_ROW_KIND_TASK, 1,
      2.5, 0.6, FRAMES);
  add_row (g, "multiqueue0", "multiqueue0", GST_AX_REPORT_ROW_KIND_ELEMENT, 2,
      13.7, 0.03, FRAMES);
  add_row (g, "avdec_msmpeg4-0", "avdec_msmpeg4-0",
      GST_AX_REPORT_ROW_KIND_ELEMENT, 3, 3.0, 2.5, FRAMES);
  add_row (g, "axnms0", "axnms0", GST_AX_REPORT_ROW_KIND_ELEMENT, 6, 5.0, 4.5,
      FRAMES);
  add_row (g, "axoverlay0", "axoverlay0", GST_AX_REPORT_ROW_KIND_ELEMENT, 7,
      8.0, 7.5, FRAMES);
  add_row (g, "fakesink0", "fakesink0", GST_AX_REPORT_ROW_KIND_ELEMENT, 8,
      0.1, 0.1, FRAMES);
  q = add_queue (r, "multiqueue0:0", 66.8, 2.0);
  g_free (q->element);
  q->element = g_strdup ("multiqueue0");
  m = gst_ax_report_add_group (r, "ball");
  add_row (m, "axinference0", "axinference0", GST_AX_REPORT_ROW_KIND_ELEMENT,
      5, 12.0, 0.03, FRAMES);
  d = add_device (r, "ball", 0.3, 5.1, 8);
  d->held_depth = 4.3;
  /* the output thread's rows take most of the run */
  r->wall_s = 2.0;
  v = judge (r);
  fail_unless_equals_int (v->kind, GST_AX_REPORT_CONSTRAINT_BACKPRESSURE);
  fail_unless_equals_string (v->element, "axoverlay0");
  assert_has (v->constraint, "axoverlay0 (8.00 ms x 100 calls), then axnms0 "
      "(5.00 ms x 100 calls)");
  fail_unless (strstr (v->constraint, "axinference0") == NULL, "%s",
      v->constraint);
  fail_unless (strstr (v->constraint, "fakesink0") == NULL, "%s",
      v->constraint);
  gst_ax_report_verdict_free (v);

  /* frames finished out of order wait for the earlier ones, not for an
   * output thread that is idle most of the run */
  r->wall_s = 20.0;
  v = judge (r);
  fail_if (v->kind == GST_AX_REPORT_CONSTRAINT_BACKPRESSURE &&
      v->model != NULL, "%s", v->constraint);
  gst_ax_report_verdict_free (v);
  gst_ax_report_free (r);
}

GST_END_TEST;

/* A live source at 30 fps that the pipeline keeps up with: not "source
 * starvation ... capsfilter0, 0.00 ms". */
GST_START_TEST (test_live_paced)
{
  GstAxReport *r = new_report ();
  GstAxReportGroup *g = gst_ax_report_add_group (r, "pipeline");
  GstAxReportVerdict *v;
  JsonParser *parser = json_parser_new ();
  JsonObject *verdict;
  gchar *json;

  r->live_source = g_strdup ("src");
  r->pacing = g_strdup ("paced by the live source src");
  add_row (g, "src (create)", "src", GST_AX_REPORT_ROW_KIND_TASK, 0, 33.0,
      0.6, FRAMES);
  add_row (g, "capsfilter0", "capsfilter0", GST_AX_REPORT_ROW_KIND_ELEMENT, 1,
      0.001, 0.001, FRAMES);
  add_row (g, "queue0", "queue0", GST_AX_REPORT_ROW_KIND_ELEMENT, 2, 0.05,
      0.02, FRAMES);
  add_row (g, "queue0 (pull)", "queue0", GST_AX_REPORT_ROW_KIND_TASK, 2, 33.0,
      0.03, FRAMES);
  add_row (g, "sink", "sink", GST_AX_REPORT_ROW_KIND_ELEMENT, 3, 0.5, 0.5,
      FRAMES);
  add_queue (r, "queue0", 0.1, 100.0);
  v = judge (r);
  fail_unless_equals_int (v->kind, GST_AX_REPORT_CONSTRAINT_LIVE_PACED);
  fail_unless_equals_string (v->element, "src");
  fail_unless_equals_string (v->row, "src (create)");
  assert_has (v->constraint, "the pipeline keeps pace with its live source "
      "src");
  fail_unless (strstr (v->constraint, "starvation") == NULL);
  fail_unless (strstr (v->constraint, "capsfilter0") == NULL);
  assert_has (v->text, "empty 100.0% of the time (emptied between the live "
      "source's frames: an effect of its pace, not starvation).");
  gst_ax_report_set_verdict (r, v);
  gst_ax_report_verdict_free (v);
  fail_unless_equals_string (gst_ax_report_constraint_kind_to_string
      (GST_AX_REPORT_CONSTRAINT_LIVE_PACED), "live-paced");
  json = gst_ax_report_to_json (r);
  fail_unless (json_parser_load_from_data (parser, json, -1, NULL));
  verdict = json_object_get_object_member (json_node_get_object
      (json_parser_get_root (parser)), "verdict");
  fail_unless_equals_string (json_object_get_string_member (verdict, "kind"),
      "live-paced");
  fail_unless_equals_string (json_object_get_string_member (verdict,
          "element"), "src");
  g_object_unref (parser);
  g_free (json);

  /* a live source that cannot wait for its clock is not keeping pace */
  g_array_index (((GstAxReportGroup *) g_ptr_array_index (r->groups,
              0))->rows, GstAxReportRow, 0).cpu_ms = 30.0;
  gst_ax_report_row_classify (&g_array_index (((GstAxReportGroup *)
              g_ptr_array_index (r->groups, 0))->rows, GstAxReportRow, 0));
  v = judge (r);
  fail_if (v->kind == GST_AX_REPORT_CONSTRAINT_LIVE_PACED);
  gst_ax_report_verdict_free (v);
  gst_ax_report_free (r);
}

GST_END_TEST;

/* input-selector: the idle branch's rows and queue are never blamed. */
GST_START_TEST (test_idle_branch_not_blamed)
{
  GstAxReport *r = new_report ();
  GstAxReportGroup *g = gst_ax_report_add_group (r, "pipeline");
  GstAxReportVerdict *v;

  add_row (g, "on (create)", "on", GST_AX_REPORT_ROW_KIND_TASK, 0, 0.5, 0.5,
      FRAMES);
  add_row (g, "off (create)", "off", GST_AX_REPORT_ROW_KIND_TASK, 0, 40.0,
      39.0, FRAMES)->inactive = TRUE;
  add_row (g, "heavy", "heavy", GST_AX_REPORT_ROW_KIND_ELEMENT, 2, 30.0, 29.0,
      FRAMES)->inactive = TRUE;
  add_row (g, "qb", "qb", GST_AX_REPORT_ROW_KIND_ELEMENT, 1, 50.0, 0.1,
      FRAMES)->inactive = TRUE;
  add_row (g, "convert", "convert", GST_AX_REPORT_ROW_KIND_ELEMENT, 1, 4.0,
      3.8, FRAMES);
  add_row (g, "sel", "sel", GST_AX_REPORT_ROW_KIND_ELEMENT, 3, 0.01, 0.01,
      FRAMES);
  add_queue (r, "qb", 95.0, 0);
  v = judge (r);
  fail_unless_equals_int (v->kind, GST_AX_REPORT_CONSTRAINT_HOST);
  fail_unless_equals_string (v->element, "convert");
  fail_unless (v->queue == NULL);
  fail_unless (strstr (v->text, "off") == NULL && strstr (v->text, "heavy")
      == NULL && strstr (v->text, "qb") == NULL, "%s", v->text);
  gst_ax_report_verdict_free (v);
  gst_ax_report_free (r);
}

GST_END_TEST;

/* The costliest group's header names its own costliest row; the costliest
 * row overall, from another group, is named as such. */
GST_START_TEST (test_costliest_of_group)
{
  GstAxReport *r = new_report ();
  GstAxReportGroup *g = gst_ax_report_add_group (r, "pipeline");
  GstAxReportGroup *m = gst_ax_report_add_group (r, "yolo");
  GstAxReportVerdict *v;
  guint i;

  for (i = 0; i < 5; i++) {
    gchar *name = g_strdup_printf ("f%u", i);

    add_row (g, name, name, GST_AX_REPORT_ROW_KIND_ELEMENT, i, 3.0, 2.9,
        FRAMES);
    g_free (name);
  }
  add_row (m, "postamble", "axinference0", GST_AX_REPORT_ROW_KIND_REPORTED, 5,
      9.0, 8.9, FRAMES);
  v = judge (r);
  assert_has (v->text, "  2. Wall time: group pipeline holds 62.5% of the "
      "profiled time; its costliest row is f0 with 300.0 ms (3.00 ms x 100 "
      "calls).\n     The costliest row overall is postamble (yolo) with "
      "900.0 ms (9.00 ms x 100 calls).");
  fail_unless (strstr (v->text, "its costliest row is postamble") == NULL &&
      strstr (v->text, "its costliest row overall is postamble") == NULL,
      "%s", v->text);
  gst_ax_report_verdict_free (v);
  gst_ax_report_free (r);
}

GST_END_TEST;

/* Faults against the row's output: a pooled 1.4 MB frame at 15 faults is
 * not told to reuse its buffer; one that takes a page per page is. */
GST_START_TEST (test_allocation_against_output)
{
  GstAxReport *r = new_report ();
  GstAxReportGroup *g = gst_ax_report_add_group (r, "pipeline");
  GstAxReportRow *src;
  GstAxReportVerdict *v;
  const guint64 frame_bytes = 1280 * 720 * 3 / 2;

  r->faults_measured = TRUE;
  src = add_row (g, "videotestsrc0 (create)", "videotestsrc0",
      GST_AX_REPORT_ROW_KIND_TASK, 0, 4.0, 3.9, FRAMES);
  add_row (g, "fakesink0", "fakesink0", GST_AX_REPORT_ROW_KIND_ELEMENT, 1,
      0.01, 0.01, FRAMES);
  src = &g_array_index (g->rows, GstAxReportRow, 0);
  src->faults = 15;
  src->out_bytes = frame_bytes;
  v = judge (r);
  fail_unless (strstr (v->text, "reuse its output buffer") == NULL, "%s",
      v->text);
  assert_has (v->text, "  4. Allocation: videotestsrc0 (create) takes 15 "
      "faults per call, 4% of the pages of its 1.32 MB output: it does not "
      "make its output afresh; allocation is not what costs.");
  gst_ax_report_verdict_free (v);

  /* rows live in the group's array: look the source up again */
  src = &g_array_index (g->rows, GstAxReportRow, 0);
  src->faults = frame_bytes / (guint64) GST_AX_REPORT_PAGE_BYTES;
  v = judge (r);
  assert_has (v->text, "  4. Allocation: videotestsrc0 (create) takes 337 "
      "page faults per call, 100% of the pages of its 1.32 MB output: reuse "
      "its output buffer (a pool).");
  gst_ax_report_verdict_free (v);
  gst_ax_report_free (r);
}

GST_END_TEST;

/* The sections state the window the run streamed at; without device time
 * (time-scale=0) there is no device fps. */
GST_START_TEST (test_in_flight_headers_and_no_device_time)
{
  GstAxReport *r = new_report ();
  GstAxReportGroup *g = gst_ax_report_add_group (r, "pipeline");
  GstAxReportDevice *d;
  JsonParser *parser = json_parser_new ();
  JsonObject *dev;
  gchar *text, *json;

  add_row (g, "sink", "sink", GST_AX_REPORT_ROW_KIND_ELEMENT, 3, 0.5, 0.5,
      FRAMES);
  add_model (r, "yolo", 1.0);
  d = add_device (r, "yolo", 0, 3.5, 4);
  d->jobs = 300;
  d->device_s = 0;
  d->device_fps = 0;
  d->held_depth = 1.5;
  gst_ax_report_finish_groups (r);
  text = gst_ax_report_to_text (r);
  assert_has (text, "Per-operator/stage time (ms; streamed at in_flight=4; "
      "wall, CPU and faults on every call)");
  assert_has (text, "Host/device wall-time share (streamed at in_flight=4; "
      "device = ");
  assert_has (text, "  100 frames in 10.00 s  ->  10.0 fps  (in_flight=4)\n");
  assert_has (text, "  yolo: 300 jobs in n/a  ->  n/a fps  (in_flight=4;");
  fail_unless (strstr (text, "jobs in 0.00 s") == NULL, "%s", text);
  assert_has (text, "  in-flight depth    3.5 achieved  (in-flight window "
      "4)\n    of which 1.5 finished frames waiting for the in-order push\n");
  json = gst_ax_report_to_json (r);
  fail_unless (json_parser_load_from_data (parser, json, -1, NULL));
  dev = json_array_get_object_element (json_object_get_array_member
      (json_node_get_object (json_parser_get_root (parser)), "devices"), 0);
  fail_unless (json_object_get_null_member (dev, "device_fps"));
  fail_unless (json_object_get_double_member (dev, "held_depth") == 1.5);
  g_object_unref (parser);
  g_free (json);
  g_free (text);
  gst_ax_report_free (r);
}

GST_END_TEST;

/* A cascade: the detector's rows have the larger Mean, the per-face
 * model's the larger total (many short calls). Groups rank by total, and
 * the verdict names the cascade's row, not the detector's slower call. */
GST_START_TEST (test_cascade_ranked_by_total)
{
  GstAxReport *r = new_report ();
  GstAxReportGroup *det = gst_ax_report_add_group (r, "detector");
  GstAxReportGroup *cas = gst_ax_report_add_group (r, "detector/cascade");
  GstAxReportGroup *g0;
  GstAxReportVerdict *v;

  /* 100 frames x 6 ms = 600 ms; 2000 faces x 0.5 ms = 1000 ms */
  add_row (det, "postamble", "axinference0", GST_AX_REPORT_ROW_KIND_REPORTED,
      1, 6.0, 5.8, FRAMES)->flags |= GST_AX_REPORT_ROW_FLAG_STAGE;
  add_row (cas, "postamble", "axinference1", GST_AX_REPORT_ROW_KIND_REPORTED,
      3, 0.5, 0.48, 20 * FRAMES)->flags |= GST_AX_REPORT_ROW_FLAG_STAGE;
  v = judge (r);
  g0 = g_ptr_array_index (r->groups, 0);
  fail_unless_equals_string (g0->name, "detector/cascade");
  fail_unless (g0->total_ms > ((GstAxReportGroup *)
          g_ptr_array_index (r->groups, 1))->total_ms);
  fail_unless_equals_int (v->kind, GST_AX_REPORT_CONSTRAINT_HOST);
  fail_unless_equals_string (v->group, "detector/cascade");
  fail_unless_equals_string (v->element, "axinference1");
  assert_has (v->text, "  2. Wall time: group detector/cascade holds 62.5% "
      "of the profiled time; its costliest row is postamble with 1000.0 ms "
      "(0.50 ms x 2000 calls).");
  gst_ax_report_verdict_free (v);
  gst_ax_report_free (r);
}

GST_END_TEST;

/* Two models on one device, each under the device-bound line alone and
 * over it together: the device is the constraint, and the model named is
 * the one whose busy time dominates, though its jobs are the shorter. */
GST_START_TEST (test_shared_device_busy_in_total)
{
  GstAxReport *r = new_report ();
  GstAxReportDevice *det, *cas;
  GstAxReportDeviceOccupancy *o;
  GstAxReportVerdict *v;

  add_model (r, "detector", 1.0);
  add_model (r, "detector/cascade", 1.0);
  det = add_device (r, "detector", 38.0, 3.0, 8);
  det->device_ms = 15.2;
  cas = add_device (r, "detector/cascade", 57.0, 6.0, 8);
  cas->jobs = 20 * FRAMES;
  cas->device_ms = 1.14;
  v = judge (r);
  /* without the device listed once, no model alone is device-bound */
  fail_if (v->kind == GST_AX_REPORT_CONSTRAINT_DEVICE);
  gst_ax_report_verdict_free (v);

  o = gst_ax_report_add_device_occupancy (r, "metis", 0);
  o->n_cores = 4;
  o->window_s = WALL_S;
  gst_ax_report_device_occupancy_add_model (o, "detector", 15200.0);
  gst_ax_report_device_occupancy_add_model (o, "detector/cascade", 22800.0);
  o->occupancy_percent = 95.0;
  /* re-read: adding the second device may have moved the first */
  det = &g_array_index (r->devices, GstAxReportDevice, 0);
  cas = &g_array_index (r->devices, GstAxReportDevice, 1);
  det->occupancy_index = cas->occupancy_index = 1;
  v = gst_ax_report_make_verdict (r);
  fail_unless_equals_int (v->kind, GST_AX_REPORT_CONSTRAINT_DEVICE);
  fail_unless_equals_string (v->model, "detector/cascade");
  fail_unless_equals_string (v->constraint, "the device (metis device-id 0, "
      "95.0% of its 4 cores occupied by the 2 models that share it: "
      "detector 40.0%, detector/cascade 60.0% of its busy time; more "
      "streams or models would only queue on it)");
  assert_has (v->text, "shares the device with 1 other model: together "
      "they occupy 95.0% of its 4 cores.");
  gst_ax_report_verdict_free (v);
  gst_ax_report_free (r);
}

GST_END_TEST;

/* Both models' simulators lag: the detector's more per job, the
 * cascade's more in total. The verdict names the cascade. */
GST_START_TEST (test_simulator_lag_by_total)
{
  GstAxReport *r = new_report ();
  GstAxReportDevice *det, *cas;
  GstAxReportVerdict *v;

  add_model (r, "detector", 1.0);
  add_model (r, "detector/cascade", 1.0);
  det = add_device (r, "detector", 20.0, 3.0, 8);
  det->lag_ms = 1500.0;         /* 15 ms per job over 100 */
  det->sim_cpu_ms = 3000.0;
  cas = add_device (r, "detector/cascade", 20.0, 3.0, 8);
  cas->jobs = 20 * FRAMES;
  cas->lag_ms = 4000.0;         /* 2 ms per job over 2000 */
  cas->sim_cpu_ms = 4000.0;
  r->have_sim_cpu = TRUE;
  r->sim_cpu_percent = 70.0;
  v = judge (r);
  fail_unless_equals_int (v->kind, GST_AX_REPORT_CONSTRAINT_SIMULATOR);
  fail_unless_equals_string (v->model, "detector/cascade");
  gst_ax_report_verdict_free (v);
  gst_ax_report_free (r);
}

GST_END_TEST;

/* A full leaky queue is not back-pressure: it makes room by dropping.
 * Dropping a share of its input, it names the branch after it. */
GST_START_TEST (test_leaky_queue_drops)
{
  GstAxReport *r = new_report ();
  GstAxReportGroup *g = gst_ax_report_add_group (r, "pipeline");
  GstAxReportVerdict *v;
  GstAxReportQueue *q;

  add_row (g, "src (create)", "src", GST_AX_REPORT_ROW_KIND_TASK, 0, 0.5, 0.5,
      FRAMES);
  add_row (g, "queue1", "queue1", GST_AX_REPORT_ROW_KIND_ELEMENT, 2, 0.01,
      0.01, FRAMES);
  add_row (g, "slow", "slow", GST_AX_REPORT_ROW_KIND_ELEMENT, 3, 20.0, 0.1, 10);
  add_row (g, "sink", "sink", GST_AX_REPORT_ROW_KIND_ELEMENT, 4, 0.01, 0.01,
      10);
  q = add_queue (r, "queue1", 92.0, 1.0);
  q->downstream = g_strdup ("slow");
  q->leaky = g_strdup ("downstream");
  q->input = FRAMES;
  q->dropped = 90;
  q->dropped_percent = 90.0;
  v = judge (r);
  fail_unless_equals_int (v->kind, GST_AX_REPORT_CONSTRAINT_DROPS);
  fail_unless_equals_string (gst_ax_report_constraint_kind_to_string
      (v->kind), "drops");
  fail_unless_equals_string (v->queue, "queue1");
  fail_unless_equals_string (v->element, "slow");
  fail_unless_equals_string (v->constraint, "drops: the branch after queue1 "
      "cannot keep up: slow (20.00 ms per buffer) takes buffers slower than "
      "they come, so the leaky queue (leaky=downstream) dropped 90 of the "
      "100 buffers it took in (90.0%)");
  assert_has (v->text, "queue1 dropped 90 of the 100 buffers it took in "
      "(90.0%): a leaky queue (leaky=downstream) never holds its producer "
      "back, so its being full is not back-pressure; slow after it cannot "
      "keep up.");
  gst_ax_report_verdict_free (v);

  /* under the threshold it is no constraint, and never back-pressure */
  q->dropped = 0;
  q->dropped_percent = 0;
  v = gst_ax_report_make_verdict (r);
  fail_if (v->kind == GST_AX_REPORT_CONSTRAINT_DROPS);
  fail_if (v->kind == GST_AX_REPORT_CONSTRAINT_BACKPRESSURE &&
      g_strcmp0 (v->queue, "queue1") == 0, "%s", v->constraint);
  gst_ax_report_verdict_free (v);
  gst_ax_report_free (r);
}

GST_END_TEST;

/* A run that ended in an ERROR is never a complete run. */
GST_START_TEST (test_error_trust_step)
{
  GstAxReport *r = new_report ();
  GstAxReportGroup *g = gst_ax_report_add_group (r, "pipeline");
  GstAxReportVerdict *v;
  gchar *text;

  add_row (g, "convert", "convert", GST_AX_REPORT_ROW_KIND_ELEMENT, 0, 8.0,
      7.5, FRAMES);
  r->status = GST_AX_REPORT_STATUS_ERROR;
  r->error_element = g_strdup ("filesink0");
  r->error_message = g_strdup ("No space left on the resource.");
  r->error_debug = g_strdup ("gstelements_private.c(338)");
  v = judge (r);
  fail_unless_equals_string (g_ptr_array_index (v->steps, 0),
      "  1. Trust: the run is INCOMPLETE: it ended in an ERROR from filesink0 "
      "(No space left on the resource.), figures cover it until then, no "
      "DEBUG logging; the profiler cost 1.0% of the profiled time.");
  fail_if (strstr (v->text, "complete run") != NULL);
  gst_ax_report_set_verdict (r, v);
  text = gst_ax_report_to_text (r);
  assert_has (text, "axprof report for pipeline0 (ERROR: the run ended in an "
      "error, figures cover it until then)\nERROR from filesink0: No space "
      "left on the resource.\n  debug: gstelements_private.c(338)\n");
  fail_unless_equals_string (gst_ax_report_status_to_string (r->status),
      "error");
  g_free (text);
  gst_ax_report_verdict_free (v);
  gst_ax_report_free (r);
}

GST_END_TEST;

/* Records the tracer could not keep (threads beyond its slots) make the
 * figures incomplete: Trust says so, never "complete run". */
GST_START_TEST (test_dropped_records_trust_step)
{
  GstAxReport *r = new_report ();
  GstAxReportGroup *g = gst_ax_report_add_group (r, "pipeline");
  GstAxReportVerdict *v;

  add_row (g, "convert", "convert", GST_AX_REPORT_ROW_KIND_ELEMENT, 0, 8.0,
      7.5, FRAMES);
  r->dropped_threads = 42;
  v = judge (r);
  fail_unless_equals_string (g_ptr_array_index (v->steps, 0),
      "  1. Trust: the figures are INCOMPLETE: 42 records from threads "
      "beyond the profiler's thread slots were not measured, so the verdict "
      "rests on incomplete data, no DEBUG logging; the profiler cost 1.0% of "
      "the profiled time.");
  fail_if (strstr (v->text, "complete run") != NULL);
  gst_ax_report_verdict_free (v);
  gst_ax_report_free (r);
}

GST_END_TEST;

/* A full queue blames its own branch: what computes there before what
 * waits when it holds a good share of the branch's time (a compositor's
 * loop against its waiting pads), else the costliest row (a throttled
 * element, not the sink's microseconds after it). */
GST_START_TEST (test_full_queue_branch)
{
  GstAxReport *r = new_report ();
  GstAxReportGroup *g = gst_ax_report_add_group (r, "pipeline");
  GstAxReportQueue *q;
  GstAxReportRow *sink;
  GstAxReportVerdict *v;

  add_row (g, "src", "src", GST_AX_REPORT_ROW_KIND_TASK, 0, 0.02, 0.02, FRAMES);
  add_row (g, "q", "q", GST_AX_REPORT_ROW_KIND_ELEMENT, 1, 0.01, 0.01, FRAMES);
  /* sleeps 2 ms a buffer: strongly blocked */
  add_row (g, "slow", "slow", GST_AX_REPORT_ROW_KIND_ELEMENT, 2, 2.0, 0.01,
      FRAMES);
  /* too short to classify: counts as computing */
  sink = add_row (g, "sink", "sink", GST_AX_REPORT_ROW_KIND_ELEMENT, 3, 0.04,
      0.01, FRAMES);
  fail_unless (gst_ax_report_row_is_computing (sink));
  q = add_queue (r, "q", 95.0, 0.0);
  q->downstream = g_strdup ("slow");
  q->branch = g_ptr_array_new_with_free_func (g_free);
  g_ptr_array_add (q->branch, g_strdup ("slow"));
  g_ptr_array_add (q->branch, g_strdup ("sink"));
  v = judge (r);
  fail_unless_equals_int (v->kind, GST_AX_REPORT_CONSTRAINT_BACKPRESSURE);
  fail_unless_equals_string (v->element, "slow");
  gst_ax_report_verdict_free (v);

  /* the sink now computes a third of the throttled element's time */
  sink->mean_ms = sink->min_ms = sink->max_ms = 0.7;
  sink->cpu_ms = 0.7;
  sink->total_ms = 0.7 * FRAMES;
  gst_ax_report_row_classify (sink);
  v = judge (r);
  fail_unless_equals_string (v->element, "sink");
  gst_ax_report_verdict_free (v);
  gst_ax_report_free (r);
}

GST_END_TEST;

/* A call that waited for a CPU taken by other work computes: the
 * classification counts its run-queue wait with its CPU. */
GST_START_TEST (test_cpu_wait_is_not_blocking)
{
  GstAxReport *r = new_report ();
  GstAxReportGroup *g = gst_ax_report_add_group (r, "pipeline");
  GstAxReportRow *row = add_row (g, "conv", "conv",
      GST_AX_REPORT_ROW_KIND_ELEMENT, 1, 6.6, 3.1, FRAMES);

  fail_unless (row->flags & GST_AX_REPORT_ROW_FLAG_BLOCKED);
  row->cpu_wait_ms = 3.0;
  gst_ax_report_row_classify (row);
  fail_unless (gst_ax_report_row_is_computing (row));
  /* waiting for a CPU does not hide a call that sleeps */
  row->cpu_ms = 0.1;
  row->cpu_wait_ms = 0.1;
  gst_ax_report_row_classify (row);
  fail_unless (row->flags & GST_AX_REPORT_ROW_FLAG_STRONGLY_BLOCKED);
  gst_ax_report_free (r);
}

GST_END_TEST;

static Suite *
verdict_suite (void)
{
  Suite *s = suite_create ("verdict");
  TCase *tc = tcase_create ("general");

  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_one_computing_rule);
  tcase_add_test (tc, test_host_element);
  tcase_add_test (tc, test_allocation_step);
  tcase_add_test (tc, test_device_bound);
  tcase_add_test (tc, test_shared_device_bound);
  tcase_add_test (tc, test_window_and_submission);
  tcase_add_test (tc, test_simulator_compute);
  tcase_add_test (tc, test_queue_full);
  tcase_add_test (tc, test_waiting_row);
  tcase_add_test (tc, test_queue_empty);
  tcase_add_test (tc, test_source_task);
  tcase_add_test (tc, test_trust_step);
  tcase_add_test (tc, test_refused_and_empty);
  tcase_add_test (tc, test_json_carries_verdict);
  tcase_add_test (tc, test_slow_after_model);
  tcase_add_test (tc, test_output_thread_rows);
  tcase_add_test (tc, test_live_paced);
  tcase_add_test (tc, test_idle_branch_not_blamed);
  tcase_add_test (tc, test_costliest_of_group);
  tcase_add_test (tc, test_allocation_against_output);
  tcase_add_test (tc, test_in_flight_headers_and_no_device_time);
  tcase_add_test (tc, test_cascade_ranked_by_total);
  tcase_add_test (tc, test_shared_device_busy_in_total);
  tcase_add_test (tc, test_simulator_lag_by_total);
  tcase_add_test (tc, test_leaky_queue_drops);
  tcase_add_test (tc, test_error_trust_step);
  tcase_add_test (tc, test_dropped_records_trust_step);
  tcase_add_test (tc, test_full_queue_branch);
  tcase_add_test (tc, test_cpu_wait_is_not_blocking);
  return s;
}

GST_CHECK_MAIN (verdict);
