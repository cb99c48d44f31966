/* gst-ax
 * Copyright (C) 2026 gst-ax developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

/* The report of models that share one simulated device: the device is
 * listed once in device_occupancy, its occupancy is the sum of its
 * models' busy time over its cores and window, and each model's share
 * is given beneath it; device-id=1 lists two devices; a model alone on
 * its device keeps the report it always had. The tracer is switched on
 * in main() before gst_check_init(). */

#include "axproftest.h"

#include <math.h>
#include <string.h>

#define PERCENT 100.0
#define MS_PER_S 1000.0
/* the figures are rounded in the JSON to a few digits */
#define ROUNDING 0.01
#define SOURCE "videotestsrc num-buffers=8 ! " \
  "video/x-raw,format=RGB,width=64,height=48,framerate=30/1 ! "
#define BRANCHES(id_b) SOURCE "tee name=t ! queue ! axletterbox ! " \
  "axinference model=ball-detector model-name=ball-a ! fakesink " \
  "t. ! queue ! axletterbox ! axinference model=ball-detector " \
  "model-name=ball-b " id_b " ! fakesink"

static JsonArray *
array_member (AxProfReport * r, const gchar * name)
{
  fail_unless (json_object_has_member (r->root, name), "%s", r->text);
  return json_object_get_array_member (r->root, name);
}

static JsonObject *
model_device (AxProfReport * r, const gchar * group)
{
  JsonArray *devices = array_member (r, "devices");
  guint i;

  for (i = 0; i < json_array_get_length (devices); i++) {
    JsonObject *d = json_array_get_object_element (devices, i);

    if (g_strcmp0 (json_object_get_string_member (d, "group"), group) == 0)
      return d;
  }
  fail ("no device entry for %s: %s", group, r->text);
  return NULL;
}

static void
assert_close (gdouble got, gdouble want, const gchar * what)
{
  fail_unless (fabs (got - want) <= ROUNDING * MAX (fabs (want), 1.0),
      "%s: got %f, expected %f", what, got, want);
}

GST_START_TEST (test_shared_device_listed_once)
{
  AxProfReport *r = ax_prof_run (BRANCHES (""));
  JsonArray *occ = array_member (r, "device_occupancy");
  JsonObject *o, *a, *b;
  JsonArray *models;
  gdouble busy_a, busy_b, busy, window_s, cores;
  guint i;

  fail_unless_equals_int (json_array_get_length (array_member (r,
              "devices")), 2);
  fail_unless_equals_int (json_array_get_length (occ), 1);
  o = json_array_get_object_element (occ, 0);
  fail_unless_equals_string (json_object_get_string_member (o, "device"),
      "metis");
  models = json_object_get_array_member (o, "models");
  fail_unless_equals_int (json_array_get_length (models), 2);

  a = model_device (r, "ball-a");
  b = model_device (r, "ball-b");
  fail_unless_equals_int (json_object_get_int_member (a, "jobs"), 8);
  fail_unless_equals_int (json_object_get_int_member (b, "jobs"), 8);
  /* one busy interval per job: a model's busy time is jobs x device_ms */
  busy_a = json_object_get_int_member (a, "jobs") *
      json_object_get_double_member (a, "device_ms");
  busy_b = json_object_get_int_member (b, "jobs") *
      json_object_get_double_member (b, "device_ms");
  busy = json_object_get_double_member (o, "busy_ms");
  assert_close (busy, busy_a + busy_b, "device busy = sum of models' busy");
  for (i = 0; i < 2; i++) {
    JsonObject *m = json_array_get_object_element (models, i);
    const gchar *group = json_object_get_string_member (m, "group");
    gdouble mine = g_str_equal (group, "ball-a") ? busy_a : busy_b;

    assert_close (json_object_get_double_member (m, "busy_ms"), mine, group);
    assert_close (json_object_get_double_member (m, "share_percent"),
        PERCENT * mine / (busy_a + busy_b), "share");
  }
  cores = json_object_get_int_member (o, "n_cores");
  window_s = json_object_get_double_member (o, "window_s");
  fail_unless (cores == 4 && window_s > 0, "%s", r->text);
  assert_close (json_object_get_double_member (o, "occupancy_percent"),
      PERCENT * (busy_a + busy_b) / (cores * window_s * MS_PER_S),
      "occupancy = sum of busy over cores x window");
  /* the device's busy time holds both models' (its window is the union of
   * theirs, so its occupancy need not exceed a model's own on a slow run) */
  fail_unless (busy_b > 0 && busy > busy_a, "device busy %.3f ms, ball-a "
      "%.3f ms, ball-b %.3f ms", busy, busy_a, busy_b);

  fail_unless (strstr (r->text, "  metis (device-id 0), shared by 2 models:\n"
          "  device occupancy   ") != NULL, "%s", r->text);
  fail_unless (strstr (r->text, "    ball-a ") != NULL, "%s", r->text);
  fail_unless (strstr (r->text, "  ball-a on metis:") == NULL, "%s", r->text);
  ax_prof_report_free (r);
}

GST_END_TEST;

GST_START_TEST (test_device_id_two_devices)
{
  AxProfReport *r = ax_prof_run (BRANCHES ("device-id=1"));
  JsonArray *occ = array_member (r, "device_occupancy");
  guint i, ids = 0;

  fail_unless_equals_int (json_array_get_length (occ), 2);
  for (i = 0; i < 2; i++) {
    JsonObject *o = json_array_get_object_element (occ, i);

    fail_unless_equals_int (json_array_get_length
        (json_object_get_array_member (o, "models")), 1);
    ids |= 1u << json_object_get_int_member (o, "device_id");
  }
  /* device-id 0 and device-id 1, in whichever order they reported */
  fail_unless_equals_int (ids, 3);
  fail_unless_equals_int (json_object_get_int_member (model_device (r,
              "ball-b"), "device_id"), 1);
  fail_unless (strstr (r->text, "shared by") == NULL, "%s", r->text);
  fail_unless (strstr (r->text, "  ball-a on metis:\n  device occupancy")
      != NULL, "%s", r->text);
  ax_prof_report_free (r);
}

GST_END_TEST;

/* A model alone on its device: the occupancy entry is its own figure. */
GST_START_TEST (test_single_model_unchanged)
{
  AxProfReport *r = ax_prof_run (SOURCE "axletterbox ! axinference "
      "model=ball-detector ! fakesink");
  JsonArray *occ = array_member (r, "device_occupancy");
  JsonObject *o, *d;

  fail_unless_equals_int (json_array_get_length (occ), 1);
  o = json_array_get_object_element (occ, 0);
  d = model_device (r, "ball-detector");
  assert_close (json_object_get_double_member (o, "occupancy_percent"),
      json_object_get_double_member (d, "occupancy_percent"), "occupancy");
  fail_unless (strstr (r->text, "  ball-detector on metis:\n"
          "  device occupancy   ") != NULL, "%s", r->text);
  ax_prof_report_free (r);
}

GST_END_TEST;

/* A model that runs on the ROIs another model made is a cascade: its
 * group is scoped under that model, and under a bin the user named; its
 * total is the sum of its rows. A second ball-detector on the first's
 * detections makes one, with no data to fetch. */
#define CASCADE(inner) "videotestsrc pattern=ball num-buffers=6 ! " \
  "video/x-raw,width=320,height=240 ! axletterbox ! " \
  "axinference model=ball-detector time-scale=0 ! axnms ! " inner " ! " \
  "fakesink"

static void
assert_group_total_is_sum (AxProfReport * r, const gchar * name)
{
  JsonObject *g = ax_prof_find_group (r->root, name);
  JsonArray *rows;
  gdouble sum = 0;
  guint i;

  fail_unless (g != NULL, "no group %s in\n%s", name, r->text);
  rows = json_object_get_array_member (g, "rows");
  fail_unless (json_array_get_length (rows) > 0);
  for (i = 0; i < json_array_get_length (rows); i++)
    sum += json_object_get_double_member (json_array_get_object_element
        (rows, i), "total_ms");
  assert_close (json_object_get_double_member (g, "total_ms"), sum,
      "group total = sum of its rows");
}

GST_START_TEST (test_cascade_groups_scoped)
{
  AxProfReport *r = ax_prof_run (CASCADE ("axletterbox roi-mode=true ! "
          "axinference model=ball-detector model-name=second time-scale=0"));

  assert_group_total_is_sum (r, "ball-detector/second");
  assert_group_total_is_sum (r, "ball-detector");
  fail_unless (ax_prof_find_group (r->root, "second") == NULL, "%s", r->text);
  ax_prof_report_free (r);

  /* without roi-mode the second model runs on whole frames: no cascade */
  r = ax_prof_run (CASCADE ("axletterbox ! axinference model=ball-detector "
          "model-name=second time-scale=0"));
  fail_unless (ax_prof_find_group (r->root, "second") != NULL, "%s", r->text);
  ax_prof_report_free (r);

  /* inside a named bin, the bin's name first */
  r = ax_prof_run (CASCADE ("bin. ( name=ages axletterbox roi-mode=true ! "
          "axinference model=ball-detector model-name=second time-scale=0 )"));
  assert_group_total_is_sum (r, "ages/ball-detector/second");
  ax_prof_report_free (r);
}

GST_END_TEST;

static Suite *
axprof_share_suite (void)
{
  Suite *s = suite_create ("axprof-share");
  TCase *tc = tcase_create ("general");

  tcase_set_timeout (tc, 120);
  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_shared_device_listed_once);
  tcase_add_test (tc, test_device_id_two_devices);
  tcase_add_test (tc, test_single_model_unchanged);
  tcase_add_test (tc, test_cascade_groups_scoped);
  return s;
}

int
main (int argc, char **argv)
{
  g_setenv ("GST_TRACERS", "axprof(file=/dev/null)", TRUE);
  gst_check_init (&argc, &argv);
  return gst_check_run_suite (axprof_share_suite (), "axprof-share", __FILE__);
}
