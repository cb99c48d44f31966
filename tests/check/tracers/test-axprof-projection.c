/* gst-ax
 * Copyright (C) 2026 gst-ax developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

/* The projection onto the modelled device against runs that need none:
 * a run at time-scale 1 projected to a time scale at which the simulator
 * keeps pace with the scaled device, and a run at that time scale, which
 * is then the truth. The fps and the device occupancy must agree within
 * VALIDATION_TOLERANCE and the verdict's kind must be the same; one model,
 * and two streams into one shared device. The full forms (every shipped
 * model, the cascade, four streams) are bench/projection. The tracer is
 * switched on in main() before gst_check_init(), as GST_TRACERS must be
 * set before gst_init(). */

#include "axproftest.h"

#include <gst/ax/ax.h>
#include <gst/ax/gstaxprojection-private.h>
#include <math.h>
#include <string.h>

#define VALIDATION_TOLERANCE 0.10
#define FRAMES 150
/* ball-detector's jobs take 0.29 ms of modelled time: at x 100 the
 * simulator's few tenths of a ms of compute per job keep pace, and four
 * cores bound the run well below what the host rows allow */
#define TIME_SCALE 100.0
/* the simulator keeps pace when its lag per job stays under this share
 * of the scaled job time */
#define PACE_LAG_RATIO 0.1

static gchar *
pipeline_at (guint streams, gdouble time_scale)
{
  GString *s = g_string_new (NULL);
  gchar scale[G_ASCII_DTOSTR_BUF_SIZE];
  guint i;

  g_ascii_dtostr (scale, sizeof (scale), time_scale);
  for (i = 0; i < streams; i++)
    g_string_append_printf (s, "videotestsrc pattern=ball num-buffers=%d ! "
        "video/x-raw,width=640,height=360 ! queue ! axletterbox ! "
        "axinference model=ball-detector in-flight=8 time-scale=%s ! "
        "axnms ! fakesink sync=false  ", FRAMES, scale);
  return g_string_free (s, FALSE);
}

static GstAxReport *
run_at (guint streams, gdouble time_scale)
{
  gchar *desc = pipeline_at (streams, time_scale);
  AxProfReport *rep = ax_prof_run (desc);
  GError *err = NULL;
  GstAxReport *r;

  fail_unless (rep != NULL);
  r = gst_ax_report_new_from_json (rep->json, &err);
  fail_unless (r != NULL, "%s", err ? err->message : "?");
  ax_prof_report_free (rep);
  g_free (desc);
  return r;
}

static gdouble
busiest_occupancy (const GstAxReport * r)
{
  gdouble o = 0;
  guint i;

  for (i = 0; i < gst_ax_report_get_n_device_occupancy (r); i++)
    o = MAX (o, gst_ax_report_get_device_occupancy (r, i)->occupancy_percent);
  return o;
}

static void
assert_within (gdouble projected, gdouble actual, const gchar * what,
    const GstAxReport * truth)
{
  if (fabs (projected - actual) > VALIDATION_TOLERANCE * actual) {
    gchar *text = gst_ax_report_to_text (truth);

    g_printerr ("%s", text);
    g_free (text);
  }
  fail_unless (fabs (projected - actual) <= VALIDATION_TOLERANCE * actual,
      "%s: projected %.2f, the run at time-scale %g %.2f", what,
      projected, TIME_SCALE, actual);
}

static void
validate (guint streams)
{
  GstAxReport *lagging = run_at (streams, 1.0), *truth;
  GstAxProjectionConfig c = { 0, };
  GstAxReportProjection *p;
  const GstAxReportDevice *d;
  GError *err = NULL;
  guint i;

  /* the run at time-scale 1 carries its projection, to the device's own
   * speed */
  fail_unless (gst_ax_report_get_projection (lagging) != NULL);
  fail_unless (gst_ax_report_get_projection (lagging)->fps > 0);
  c.time_scale = TIME_SCALE;
  p = gst_ax_report_project (lagging, &c, &err);
  fail_unless (p != NULL, "%s", err ? err->message : "?");

  truth = run_at (streams, TIME_SCALE);
  /* the truth needs no projection: its simulator kept pace */
  for (i = 0; i < gst_ax_report_get_n_devices (truth); i++) {
    d = gst_ax_report_get_device (truth, i);
    fail_unless (d->lag_ms / MAX (d->jobs, 1) <= PACE_LAG_RATIO *
        d->device_ms, "%s lags %.3f ms per job at time-scale %g", d->group,
        d->lag_ms / MAX (d->jobs, 1), TIME_SCALE);
  }
  assert_within (p->fps, truth->fps, "fps", truth);
  assert_within (p->occupancy_percent, busiest_occupancy (truth),
      "device occupancy", truth);
  fail_unless_equals_string (gst_ax_report_constraint_kind_to_string
      (p->kind), gst_ax_report_constraint_kind_to_string
      (truth->constraint_kind));
  fail_unless_equals_string (p->model, truth->constraint_model);

  gst_ax_report_projection_free (p);
  gst_ax_report_unref (lagging);
  gst_ax_report_unref (truth);
}

GST_START_TEST (test_one_model)
{
  validate (1);
}

GST_END_TEST;

GST_START_TEST (test_two_streams_one_device)
{
  validate (2);
}

GST_END_TEST;

static Suite *
axprof_projection_suite (void)
{
  Suite *s = suite_create ("axprof-projection");
  TCase *tc = tcase_create ("general");

  suite_add_tcase (s, tc);
  tcase_set_timeout (tc, 300);
  tcase_add_test (tc, test_one_model);
  tcase_add_test (tc, test_two_streams_one_device);
  return s;
}

int
main (int argc, char **argv)
{
  g_setenv ("GST_TRACERS", "axprof(file=/dev/null)", TRUE);
  gst_check_init (&argc, &argv);
  return gst_check_run_suite (axprof_projection_suite (), "axprof-projection",
      __FILE__);
}
