/* gst-ax
 * Copyright (C) 2026 gst-ax developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

/* GST_TRACERS="axprof;axprof": the tracer keeps its run state once per
 * process, so the second instance must refuse with one warning and
 * register nothing, and the first must count every buffer once. */

#include "axproftest.h"

#include <string.h>

#define N_BUFFERS 25

static guint axprof_warnings;

/* Installed before gst_check_init(), which creates the tracers (and
 * replaces the handler afterwards). */
static void
count_axprof_warnings (const gchar * domain, GLogLevelFlags level,
    const gchar * message, gpointer user_data)
{
  if ((level & G_LOG_LEVEL_WARNING) && strstr (message, "axprof") != NULL)
    axprof_warnings++;
  g_log_default_handler (domain, level, message, user_data);
}

GST_START_TEST (test_second_instance_refused)
{
  AxProfReport *r =
      ax_prof_run ("fakesrc num-buffers=" G_STRINGIFY (N_BUFFERS) " ! "
      "identity name=work ! fakesink name=out");
  JsonObject *work = ax_prof_find_row (r->root, NULL, "work");
  JsonObject *out = ax_prof_find_row (r->root, NULL, "out");

  fail_unless (work != NULL && out != NULL, "%s", r->text);
  fail_unless_equals_int (json_object_get_int_member (work, "count"),
      N_BUFFERS);
  fail_unless_equals_int (json_object_get_int_member (out, "count"), N_BUFFERS);
  fail_unless_equals_int (json_object_get_int_member
      (json_object_get_object_member (r->root, "throughput"), "frames"),
      N_BUFFERS);
  fail_unless_equals_int (axprof_warnings, 1);
  ax_prof_report_free (r);
}

GST_END_TEST;

static Suite *
axprof_twice_suite (void)
{
  Suite *s = suite_create ("axprof-twice");
  TCase *tc = tcase_create ("general");

  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_second_instance_refused);
  return s;
}

int
main (int argc, char **argv)
{
  g_setenv ("GST_TRACERS", "axprof(file=/dev/null);axprof(file=/dev/null)",
      TRUE);
  g_log_set_default_handler (count_axprof_warnings, NULL);
  gst_check_init (&argc, &argv);
  return gst_check_run_suite (axprof_twice_suite (), "axprof-twice", __FILE__);
}
