/* gst-ax
 * Copyright (C) 2026 gst-ax developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

/* Pipelines past the sizes the tracer first sets aside for them: a
 * hundred elements calling each other in one thread, and more streaming
 * threads than a chunk of thread slots. Every row is there with every
 * buffer, the throughput counts every frame, and Trust says the run is
 * complete only because nothing was dropped. */

#include "axproftest.h"

#include <string.h>

#define DEPTH 100
#define DEPTH_BUFFERS 5
/* more than one chunk of the tracer's thread slots (64) */
#define BRANCHES 80
#define BRANCH_BUFFERS 3

static void
assert_complete (AxProfReport * r)
{
  JsonArray *warnings = json_object_get_array_member (r->root, "warnings");

  if (strstr (r->text, "1. Trust: complete run") == NULL ||
      (warnings && json_array_get_length (warnings) > 0))
    g_printerr ("%s", r->text);
  fail_unless (strstr (r->text, "1. Trust: complete run") != NULL,
      "Trust does not say complete run (the report is on stderr)");
  fail_unless (warnings == NULL || json_array_get_length (warnings) == 0,
      "the report warns (it is on stderr)");
  fail_unless_equals_int (json_object_get_int_member
      (json_object_get_object_member (r->root, "profiler"),
          "dropped_thread_records"), 0);
}

/* 100 identities in a row: each chain call nests in the one before */
GST_START_TEST (test_deep_pipeline)
{
  GString *desc = g_string_new ("videotestsrc num-buffers="
      G_STRINGIFY (DEPTH_BUFFERS) " ! video/x-raw,width=64,height=48");
  AxProfReport *r;
  guint i;

  for (i = 1; i <= DEPTH; i++)
    g_string_append_printf (desc, " ! identity name=i%u", i);
  g_string_append (desc, " ! fakesink name=sink");
  r = ax_prof_run (desc->str);
  for (i = 1; i <= DEPTH; i++) {
    gchar *name = g_strdup_printf ("i%u", i);
    JsonObject *row = ax_prof_find_row (r->root, NULL, name);

    if (row == NULL)
      g_printerr ("%s", r->text);
    fail_unless (row != NULL, "no row %s (the report is on stderr)", name);
    fail_unless_equals_int (json_object_get_int_member (row, "count"),
        DEPTH_BUFFERS);
    g_free (name);
  }
  fail_unless (ax_prof_find_row (r->root, NULL, "sink") != NULL, "no row sink");
  fail_unless_equals_int (json_object_get_int_member (ax_prof_find_row
          (r->root, NULL, "sink"), "count"), DEPTH_BUFFERS);
  fail_unless_equals_int (json_object_get_int_member
      (json_object_get_object_member (r->root, "throughput"), "frames"),
      DEPTH_BUFFERS);
  assert_complete (r);
  ax_prof_report_free (r);
  g_string_free (desc, TRUE);
}

GST_END_TEST;

/* 80 sources, each on its own streaming thread, alive together until the
 * pipeline stops */
GST_START_TEST (test_many_threads)
{
  GString *desc = g_string_new (NULL);
  AxProfReport *r;
  guint i;

  for (i = 0; i < BRANCHES; i++)
    g_string_append_printf (desc, "videotestsrc num-buffers="
        G_STRINGIFY (BRANCH_BUFFERS) " ! video/x-raw,width=32,height=24 ! "
        "fakesink name=s%u ", i);
  r = ax_prof_run (desc->str);
  for (i = 0; i < BRANCHES; i++) {
    gchar *name = g_strdup_printf ("s%u", i);
    JsonObject *row = ax_prof_find_row (r->root, NULL, name);

    if (row == NULL)
      g_printerr ("%s", r->text);
    fail_unless (row != NULL, "no row %s (the report is on stderr)", name);
    fail_unless_equals_int (json_object_get_int_member (row, "count"),
        BRANCH_BUFFERS);
    g_free (name);
  }
  /* frames are counted at the busiest video sink */
  fail_unless_equals_int (json_object_get_int_member
      (json_object_get_object_member (r->root, "throughput"), "frames"),
      BRANCH_BUFFERS);
  assert_complete (r);
  ax_prof_report_free (r);
  g_string_free (desc, TRUE);
}

GST_END_TEST;

static Suite *
axprof_limits_suite (void)
{
  Suite *s = suite_create ("axprof-limits");
  TCase *tc = tcase_create ("general");

  tcase_set_timeout (tc, 300);
  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_deep_pipeline);
  tcase_add_test (tc, test_many_threads);
  return s;
}

int
main (int argc, char **argv)
{
  g_setenv ("GST_TRACERS", "axprof(file=/dev/null)", TRUE);
  gst_check_init (&argc, &argv);
  return gst_check_run_suite (axprof_limits_suite (), "axprof-limits",
      __FILE__);
}
