/* gst-ax
 * Copyright (C) 2026 gst-ax developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

/* The refusal under DEBUG logging. Run twice by meson: plain (the report
 * must refuse) and with AXPROF_TEST_ALLOW_DEBUG=1 (allow-debug=true: the
 * report prints timings and says so). */

#include "axproftest.h"

#include <string.h>

static gboolean allow_debug;

GST_START_TEST (test_debug_logging)
{
  AxProfReport *r = ax_prof_run ("fakesrc num-buffers=10 ! "
      "identity name=logged ! fakesink");

  if (allow_debug) {
    fail_unless (strstr (r->text, "ALLOW-DEBUG") != NULL, "%s", r->text);
    fail_unless (strstr (r->text, "Per-operator/stage time (") != NULL);
    fail_unless (json_object_get_boolean_member (r->root, "allow_debug"));
    fail_unless (ax_prof_find_row (r->root, NULL, "logged") != NULL);
  } else {
    fail_unless (strstr (r->text, "Error: DEBUG logging is enabled") != NULL,
        "%s", r->text);
    fail_unless (strstr (r->text, "Rerun without GST_DEBUG") != NULL);
    fail_unless (strstr (r->text, "Per-operator") == NULL, "%s", r->text);
    fail_unless (strstr (r->text, "Latency e2e") == NULL);
    fail_if (json_node_is_null (json_object_get_member (r->root, "refusal")));
    fail_if (json_object_has_member (r->root, "groups"));
  }
  ax_prof_report_free (r);
}

GST_END_TEST;

static Suite *
axprof_debug_suite (void)
{
  Suite *s = suite_create ("axprof-debug");
  TCase *tc = tcase_create ("general");

  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_debug_logging);
  return s;
}

int
main (int argc, char **argv)
{
  allow_debug = g_getenv ("AXPROF_TEST_ALLOW_DEBUG") != NULL;
  g_setenv ("GST_TRACERS", allow_debug ? "axprof(allow-debug=true)" :
      "axprof", TRUE);
  g_setenv ("GST_DEBUG", "*:5", TRUE);
  /* the logging only has to happen, not to be read */
  g_setenv ("GST_DEBUG_FILE", "/dev/null", TRUE);
  gst_check_init (&argc, &argv);
  return gst_check_run_suite (axprof_debug_suite (), "axprof-debug", __FILE__);
}
