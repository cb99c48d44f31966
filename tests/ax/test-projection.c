/* gst-ax
 * Copyright (C) 2026 gst-ax developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

/* The projection's queueing model on hand-built reports whose answer is
 * known exactly: a pipeline held by one thread, by the device's cores, by
 * the in-flight window, by a full bounded queue; what-if changes of
 * those; the projection through JSON and into the verdict. */

#include <gst/check/gstcheck.h>
#include <gst/ax/ax.h>
#include <gst/ax/gstax-private.h>
#include <gst/ax/gstaxprojection-private.h>
#include <math.h>
#include <string.h>

#include "reportcheck.h"

#define FRAMES 300
#define WALL_S 30.0
/* a deterministic model reaches its rates to within its edges */
#define RATE_TOLERANCE 0.02

/* Threads of the standard pipeline: src ! queue0 ! axletterbox0 !
 * axinference0 ! axnms0 ! sink */
enum
{
  T_SRC,
  T_QUEUE,
  T_OUTPUT,
};

typedef struct
{
  /* CPU per frame of the rows that compute, on each thread */
  gdouble src_ms;
  gdouble letterbox_ms;
  gdouble nms_ms;
  /* the device */
  gdouble job_ms;
  guint cores;
  guint window;
  guint queue_buffers;
  /* what a job asks of the device's resources, or NULL: all of job_ms on
   * its core */
  const gchar *resources;
} Shape;

static GstAxReportRow *
add_row (GstAxReportGroup * g, GstAxProjectionTopology * t, guint thread,
    const gchar * name, const gchar * element, GstAxReportRowKind kind,
    gint rank, gdouble cpu_ms)
{
  GstAxReportRow *row = gst_ax_report_group_add_row (g, name);

  row->element = g_strdup (element);
  row->kind = kind;
  row->rank = rank;
  /* as a lagging run measured them: the waits long, the CPU as given */
  row->mean_ms = row->min_ms = row->max_ms = MAX (cpu_ms, 0.01) * 3;
  row->cpu_ms = cpu_ms;
  row->count = FRAMES;
  row->total_ms = row->mean_ms * FRAMES;
  if (kind == GST_AX_REPORT_ROW_KIND_TASK)
    row->flags |= GST_AX_REPORT_ROW_FLAG_STAGE;
  gst_ax_report_row_classify (row);
  gst_ax_projection_topology_add_row (t, g->name, element, name, thread);
  return row;
}

static GstAxReport *
make_report (const Shape * sh)
{
  GstAxReport *r = gst_ax_report_new ();
  GstAxProjectionTopology *t = gst_ax_projection_topology_new ();
  GstAxReportGroup *p, *m;
  GstAxReportRow *wait;
  GstAxReportQueue q = { 0, };
  GstAxReportDevice d = { 0, };
  GstAxReportDeviceOccupancy *o;

  r->pipeline = g_strdup ("pipeline0");
  r->status = GST_AX_REPORT_STATUS_EOS;
  r->frames = FRAMES;
  r->wall_s = WALL_S;
  r->fps = FRAMES / WALL_S;
  r->cores_used = 1.0;
  r->cpu_percent = 100.0;
  r->cores_available = 4;
  g_ptr_array_add (r->sources, g_strdup ("src"));

  p = gst_ax_report_add_group (r, "pipeline");
  add_row (p, t, T_SRC, "src (create)", "src", GST_AX_REPORT_ROW_KIND_TASK,
      0, sh->src_ms);
  add_row (p, t, T_SRC, "queue0", "queue0", GST_AX_REPORT_ROW_KIND_ELEMENT,
      1, 0);
  add_row (p, t, T_QUEUE, "queue0 (pull)", "queue0",
      GST_AX_REPORT_ROW_KIND_TASK, 1, 0);
  add_row (p, t, T_QUEUE, "axletterbox0", "axletterbox0",
      GST_AX_REPORT_ROW_KIND_ELEMENT, 2, sh->letterbox_ms);
  add_row (p, t, T_OUTPUT, "axnms0", "axnms0",
      GST_AX_REPORT_ROW_KIND_ELEMENT, 4, sh->nms_ms);
  add_row (p, t, T_OUTPUT, "sink", "sink", GST_AX_REPORT_ROW_KIND_ELEMENT,
      5, 0);
  m = gst_ax_report_add_group (r, "model");
  add_row (m, t, T_QUEUE, "axinference0", "axinference0",
      GST_AX_REPORT_ROW_KIND_ELEMENT, 3, 0);
  wait = add_row (m, t, T_OUTPUT, "device wait", "axinference0",
      GST_AX_REPORT_ROW_KIND_REPORTED, 3, 0);
  wait->flags |=
      GST_AX_REPORT_ROW_FLAG_DEVICE_WAIT | GST_AX_REPORT_ROW_FLAG_STAGE;
  gst_ax_report_row_classify (wait);
  add_row (m, t, T_OUTPUT, "axinference0 (loop)", "axinference0",
      GST_AX_REPORT_ROW_KIND_TASK, 3, 0);

  q.name = g_strdup ("queue0");
  q.element = g_strdup ("queue0");
  q.max_size_buffers = sh->queue_buffers;
  q.max = 1;
  g_array_append_val (r->queues, q);

  d.group = g_strdup ("model");
  d.device = g_strdup ("metis");
  d.n_cores = sh->cores;
  d.in_flight_window = sh->window;
  d.jobs = d.frames = FRAMES;
  d.device_ms = sh->job_ms;
  d.lag_ms = 50.0 * FRAMES;
  d.sim_cpu_ms = 100.0 * FRAMES;
  d.occupancy_index = 1;
  g_array_append_val (r->devices, d);
  o = gst_ax_report_add_device_occupancy (r, "metis", 0);
  o->n_cores = sh->cores;
  gst_ax_projection_topology_add_device (t, "model", "axinference0", 1.0,
      sh->resources);

  gst_ax_report_finish_groups (r);
  gst_ax_report_attach_projection (r, t);
  return r;
}

static void
assert_near (gdouble got, gdouble want, const gchar * what)
{
  fail_unless (fabs (got - want) <= RATE_TOLERANCE * want,
      "%s: %.3f, expected %.3f", what, got, want);
}

static const GstAxReportProjection *
projection_of (const GstAxReport * r)
{
  const GstAxReportProjection *p = gst_ax_report_get_projection (r);

  fail_unless (p != NULL);
  fail_unless (p->kind != GST_AX_REPORT_CONSTRAINT_UNDETERMINED, "%s",
      p->constraint);
  return p;
}

static GstAxReportProjection *
what_if (const GstAxReport * r, const GstAxProjectionConfig * c)
{
  GError *err = NULL;
  GstAxReportProjection *p = gst_ax_report_project (r, c, &err);

  fail_unless (p != NULL, "%s", err ? err->message : "?");
  return p;
}

/* One thread after the device costs 10 ms a frame: 100 fps, whatever
 * the device and window, and the window fills with finished frames. */
GST_START_TEST (test_thread_bound)
{
  Shape sh = { 0.1, 0.1, 10.0, 2.0, 4, 4, 200 };
  GstAxReport *r = make_report (&sh);
  const GstAxReportProjection *p = projection_of (r);
  GstAxProjectionConfig c = { 0, };
  GstAxReportProjection *slow;

  assert_near (p->fps, 100.0, "fps");
  /* 2 ms jobs at 100 fps on 4 cores */
  assert_near (p->occupancy_percent, 5.0, "occupancy");
  fail_unless_equals_int (p->kind, GST_AX_REPORT_CONSTRAINT_BACKPRESSURE);
  fail_unless_equals_string (p->element, "axnms0");
  fail_unless_equals_string (p->model, "model");

  /* a host half as fast: 50 fps */
  c.host_speed = 0.5;
  slow = what_if (r, &c);
  assert_near (slow->fps, 50.0, "fps at host-speed 0.5");
  fail_unless_equals_string (slow->what_if, "host-speed=0.5");
  gst_ax_report_projection_free (slow);
  gst_ax_report_unref (r);
}

GST_END_TEST;

/* 10 ms jobs on 2 cores, a window of 8: the cores are the limit, 200
 * fps, the device fully occupied; 4 cores double it, time-scale 2 halves
 * it. */
GST_START_TEST (test_device_bound)
{
  Shape sh = { 0.1, 0.1, 0.1, 10.0, 2, 8, 200 };
  GstAxReport *r = make_report (&sh);
  const GstAxReportProjection *p = projection_of (r);
  GstAxProjectionConfig c = { 0, };
  GstAxReportProjection *more, *slower;

  assert_near (p->fps, 200.0, "fps");
  fail_unless (p->occupancy_percent >= 98.0, "occupancy %.1f",
      p->occupancy_percent);
  fail_unless_equals_int (p->kind, GST_AX_REPORT_CONSTRAINT_DEVICE);
  fail_unless_equals_string (p->model, "model");

  c.cores = 4;
  more = what_if (r, &c);
  assert_near (more->fps, 400.0, "fps on 4 cores");
  fail_unless_equals_int (more->kind, GST_AX_REPORT_CONSTRAINT_DEVICE);
  gst_ax_report_projection_free (more);

  memset (&c, 0, sizeof (c));
  c.time_scale = 2.0;
  slower = what_if (r, &c);
  assert_near (slower->fps, 100.0, "fps at time-scale 2");
  fail_unless (slower->time_scale == 2.0);
  gst_ax_report_projection_free (slower);
  gst_ax_report_unref (r);
}

GST_END_TEST;

/* 10 ms jobs on 4 cores with a window of 2: two frames in flight, 200
 * fps, half the cores busy; a window of 4 uses them all. */
GST_START_TEST (test_window_bound)
{
  Shape sh = { 0.1, 0.1, 0.1, 10.0, 4, 2, 200 };
  GstAxReport *r = make_report (&sh);
  const GstAxReportProjection *p = projection_of (r);
  GstAxProjectionConfig c = { 0, };
  GstAxReportProjection *wider;

  assert_near (p->fps, 200.0, "fps");
  assert_near (p->occupancy_percent, 50.0, "occupancy");
  fail_unless_equals_int (p->kind, GST_AX_REPORT_CONSTRAINT_WINDOW);
  fail_unless_equals_string (p->model, "model");

  c.in_flight = 4;
  wider = what_if (r, &c);
  assert_near (wider->fps, 400.0, "fps at in-flight 4");
  fail_unless_equals_string (wider->what_if, "in-flight=4");
  gst_ax_report_projection_free (wider);
  gst_ax_report_unref (r);
}

GST_END_TEST;

/* 2 ms on a core and 4 ms on the one DMA engine a job: the engine, not
 * the 4 cores, bounds the device at 250 jobs a second. */
GST_START_TEST (test_engine_bound)
{
  Shape sh = { 0.1, 0.1, 0.1, 6.0, 4, 8, 200, "core=2000000,dma=4000000@0" };
  GstAxReport *r = make_report (&sh);
  const GstAxReportProjection *p = projection_of (r);

  assert_near (p->fps, 250.0, "fps");
  fail_unless_equals_int (p->kind, GST_AX_REPORT_CONSTRAINT_DEVICE);
  gst_ax_report_unref (r);
}

GST_END_TEST;

/* Two jobs a frame (a cascade's per-ROI model), 10 ms each on 4 cores
 * with a window of 8 jobs: 400 jobs, so 200 frames a second. */
GST_START_TEST (test_jobs_per_frame)
{
  Shape sh = { 0.1, 0.1, 0.1, 10.0, 4, 8, 200, NULL };
  GstAxReport *r = make_report (&sh);
  GstAxReportDevice *d = &g_array_index (r->devices, GstAxReportDevice, 0);
  GstAxProjectionConfig c = { 0, };
  GstAxReportProjection *p;

  d->jobs = 2 * FRAMES;
  p = what_if (r, &c);
  assert_near (p->fps, 200.0, "fps");
  fail_unless (p->occupancy_percent >= 98.0, "occupancy %.1f",
      p->occupancy_percent);
  fail_unless_equals_int (p->kind, GST_AX_REPORT_CONSTRAINT_DEVICE);
  gst_ax_report_projection_free (p);
  gst_ax_report_unref (r);
}

GST_END_TEST;

/* A fast source in front of a queue of 3 and a 20 ms letterbox: the
 * queue stays full, 50 fps. */
GST_START_TEST (test_full_queue)
{
  Shape sh = { 1.0, 20.0, 0.1, 1.0, 4, 4, 3 };
  GstAxReport *r = make_report (&sh);
  const GstAxReportProjection *p = projection_of (r);

  assert_near (p->fps, 50.0, "fps");
  fail_unless_equals_int (p->kind, GST_AX_REPORT_CONSTRAINT_BACKPRESSURE);
  fail_unless_equals_string (p->queue, "queue0");
  fail_unless_equals_string (p->element, "axletterbox0");
  gst_ax_report_unref (r);
}

GST_END_TEST;

/* The serial latency is one frame's path: the threads' service and one
 * job. */
GST_START_TEST (test_serial_latency)
{
  Shape sh = { 1.0, 2.0, 3.0, 4.0, 4, 4, 200 };
  GstAxReport *r;
  const GstAxReportProjection *p;
  GstAxProjectionTopology *t;

  r = make_report (&sh);
  /* again, with the report's latency from a serial pass */
  r->latency_serial = TRUE;
  t = r->projection->topology;
  r->projection->topology = NULL;
  gst_ax_report_attach_projection (r, t);
  p = projection_of (r);
  /* it enters after the source's 1 ms: 2 + 4 + 3 */
  assert_near (p->latency_p50_ms, 9.0, "serial latency p50");
  gst_ax_report_unref (r);
}

GST_END_TEST;

/* The run's verdict blames the simulator; the projection, in JSON and
 * in the verdict, names what would hold the device's run. */
GST_START_TEST (test_verdict_and_json)
{
  Shape sh = { 0.1, 0.1, 10.0, 2.0, 4, 4, 200 };
  GstAxReport *r = make_report (&sh), *back;
  GstAxReportVerdict *v;
  gchar *json, *text;
  JsonParser *parser = json_parser_new ();
  JsonObject *o;
  GError *err = NULL;
  GstAxProjectionConfig c = { 0, };
  GstAxReportProjection *p;

  v = gst_ax_report_make_verdict (r);
  fail_unless_equals_int (v->kind, GST_AX_REPORT_CONSTRAINT_SIMULATOR);
  fail_unless (strstr (v->text, "7. On the modelled device (every job at "
          "its modelled time, the host rows as measured) the constraint would "
          "be another: back-pressure on model's in-flight window") != NULL,
      "%s", v->text);
  gst_ax_report_set_verdict (r, v);
  gst_ax_report_verdict_free (v);

  text = gst_ax_report_to_text (r);
  fail_unless (strstr (text, "On the modelled device (") != NULL, "%s", text);
  g_free (text);

  json = gst_ax_report_to_json (r);
  fail_unless (json_parser_load_from_data (parser, json, -1, NULL));
  o = json_object_get_object_member (json_node_get_object
      (json_parser_get_root (parser)), "projection");
  fail_unless_equals_string (json_object_get_string_member (o, "kind"),
      "backpressure");
  fail_unless (json_object_has_member (o, "topology"));
  ax_assert_report_round_trip (r);

  /* what-if from the report read back */
  back = gst_ax_report_new_from_json (json, &err);
  fail_unless (back != NULL, "%s", err ? err->message : "?");
  c.host_speed = 2.0;
  p = what_if (back, &c);
  assert_near (p->fps, 200.0, "fps at host-speed 2 from JSON");
  gst_ax_report_projection_free (p);

  /* a copy has its own projection, what-if included */
  gst_ax_report_unref (back);
  back = gst_ax_report_copy (r);
  fail_unless (back->projection != NULL && back->projection != r->projection);
  fail_unless_equals_string (back->projection->constraint,
      r->projection->constraint);
  p = what_if (back, &c);
  assert_near (p->fps, 200.0, "fps at host-speed 2 from a copy");
  gst_ax_report_projection_free (p);

  g_object_unref (parser);
  g_free (json);
  gst_ax_report_unref (back);
  gst_ax_report_unref (r);
}

GST_END_TEST;

/* No device: no projection; a report without topology cannot be
 * projected, and says so. */
GST_START_TEST (test_no_model)
{
  GstAxReport *r = gst_ax_report_new ();
  GstAxProjectionTopology *t = gst_ax_projection_topology_new ();
  GError *err = NULL;

  r->pipeline = g_strdup ("pipeline0");
  gst_ax_report_attach_projection (r, t);
  fail_unless (gst_ax_report_get_projection (r) == NULL);
  fail_unless (gst_ax_report_project (r, NULL, &err) == NULL);
  fail_unless (err != NULL);
  g_clear_error (&err);
  gst_ax_report_unref (r);
}

GST_END_TEST;

static Suite *
projection_suite (void)
{
  Suite *s = suite_create ("projection");
  TCase *tc = tcase_create ("general");

  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_thread_bound);
  tcase_add_test (tc, test_device_bound);
  tcase_add_test (tc, test_window_bound);
  tcase_add_test (tc, test_engine_bound);
  tcase_add_test (tc, test_jobs_per_frame);
  tcase_add_test (tc, test_full_queue);
  tcase_add_test (tc, test_serial_latency);
  tcase_add_test (tc, test_verdict_and_json);
  tcase_add_test (tc, test_no_model);
  return s;
}

GST_CHECK_MAIN (projection);
