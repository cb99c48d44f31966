/* gst-ax
 * Copyright (C) 2026 gst-ax developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

/* gst_ax_report_new_from_json(): a report built by hand, with every
 * section, absent sections and a refused report, read back to the same
 * JSON and text; bad JSON refused with an error naming what was wrong;
 * the accessors and the stored verdict. Reports of real runs are read back in
 * tests/check/tracers/test-axprof-embed.c. */

#include <gst/check/gstcheck.h>
#include <gst/ax/gstaxprofiler.h>
#include <gst/ax/gstaxreport.h>
#include <json-glib/json-glib.h>
#include "reportcheck.h"
#include <math.h>
#include <string.h>

static GstAxReport *
full_report (void)
{
  GstAxReport *r = gst_ax_report_new ();
  GstAxReportGroup *g;
  GstAxReportRow *row;
  GstAxReportQueue q = { 0, };
  GstAxReportDevice d = { 0, };
  GstAxReportDeviceOccupancy *o;
  GstAxReportVerdict *v;
  gdouble samples[] = { 10.5, 12.25, 11.0, 30.125 };
  guint i;

  r->pipeline = g_strdup ("pipeline0");
  r->status = GST_AX_REPORT_STATUS_SECTION;
  r->usage_reader = g_strdup ("perf event group");
  r->usage_reads = 42;
  r->usage_mode = g_strdup ("exact per thread");
  gst_ax_report_latency_from_samples (&r->latency, samples,
      G_N_ELEMENTS (samples));
  r->pacing = g_strdup ("free-running: no live source, no sink syncs");
  r->latency_unmatched = 2;
  g = gst_ax_report_add_group (r, "ball-detector");
  row = gst_ax_report_group_add_row (g, "axinference0");
  row->mean_ms = 3.5;
  row->cpu_ms = 0.1;
  row->total_ms = 35;
  row->count = 10;
  row->min_ms = 1.0 / 3;
  row->max_ms = 9;
  row->element = g_strdup ("axinference0");
  row->rank = 3;
  row->out_bytes = 12288;
  row->flags = GST_AX_REPORT_ROW_FLAG_DEVICE_WAIT |
      GST_AX_REPORT_ROW_FLAG_STAGE;
  row = gst_ax_report_group_add_row (g, "src (create)");
  row->kind = GST_AX_REPORT_ROW_KIND_TASK;
  row->mean_ms = 2;
  row->cpu_ms = 0.01;
  row->cpu_wait_ms = 0.125;
  row->count = 10;
  row->total_ms = 20;
  row->inactive = TRUE;
  gst_ax_report_row_classify (row);
  g = gst_ax_report_add_group (r, "pipeline");
  row = gst_ax_report_group_add_row (g, "decode");
  row->kind = GST_AX_REPORT_ROW_KIND_REPORTED;
  row->count = 10;
  row->total_ms = 1e-3;
  gst_ax_report_finish_groups (r);
  r->frames = 10;
  r->wall_s = 0.7;
  r->fps = r->frames / r->wall_s;
  r->cores_available = 2;
  r->have_sim_cpu = TRUE;
  r->sim_cpu_percent = 12.5;
  q.name = g_strdup ("q");
  q.element = g_strdup ("q");
  q.mean = 1.25;
  q.max = 4;
  q.max_size_buffers = 4;
  q.at_max_percent = 10;
  q.full_percent = 10;
  q.full_limit = g_strdup ("max-size-buffers");
  q.downstream = g_strdup ("slow");
  q.leaky = g_strdup ("upstream");
  q.input = 40;
  q.dropped = 30;
  q.dropped_percent = 75;
  g_array_append_val (r->queues, q);
  memset (&q, 0, sizeof (q));
  q.name = g_strdup ("mq:1");
  q.max_size_time_ms = 1000;
  q.max_size_bytes = G_MAXUINT32;
  g_array_append_val (r->queues, q);
  for (i = 0; i < 2; i++) {
    memset (&d, 0, sizeof (d));
    d.group = g_strdup (i ? "ball-b" : "ball-a");
    d.device = g_strdup ("metis");
    d.n_cores = 4;
    d.in_flight_window = 4;
    d.jobs = d.frames = 10;
    d.device_ms = 1.5;
    d.device_s = i ? 0 : 0.5;
    d.device_fps = i ? 0 : 20;
    d.occupancy_index = 1;
    g_array_append_val (r->devices, d);
  }
  r->frames_sink = g_strdup ("vsink");
  r->video_sinks = 2;
  r->audio_buffers = 7;
  r->audio_sink = g_strdup ("asink");
  {
    GstAxReportQos qos = { g_strdup ("vsink"), g_strdup ("buffers"), 9, 3, 3 };

    g_array_append_val (r->qos, qos);
  }
  gst_ax_report_add_stream (r, "stream 1", "sink-1", 30);
  gst_ax_report_add_stream (r, "stream 2", "sink-2", 29);
  o = gst_ax_report_add_device_occupancy (r, "metis", 0);
  o->n_cores = 4;
  o->window_s = 0.5;
  gst_ax_report_device_occupancy_add_model (o, "ball-a", 15);
  gst_ax_report_device_occupancy_add_model (o, "ball-b", 15);
  gst_ax_report_add_warning (r, "a warning with \"quotes\"");
  g_ptr_array_add (r->sources, g_strdup ("src"));
  v = gst_ax_report_make_verdict (r);
  gst_ax_report_set_verdict (r, v);
  gst_ax_report_verdict_free (v);
  return r;
}

GST_START_TEST (test_round_trip_full)
{
  GstAxReport *r = full_report (), *back;
  gchar *json = gst_ax_report_to_json (r);

  ax_assert_report_round_trip (r);
  back = gst_ax_report_new_from_json (json, NULL);
  /* the figures themselves, not only their rendering */
  fail_unless_equals_int (back->status, GST_AX_REPORT_STATUS_SECTION);
  fail_unless (isnan (back->latency.p999_ms));
  fail_unless_equals_int (back->latency.n, 4);
  fail_unless_equals_int (back->groups->len, 2);
  fail_unless_equals_int (g_array_index (((GstAxReportGroup *)
              g_ptr_array_index (back->groups, 0))->rows, GstAxReportRow,
          0).rank, 3);
  fail_unless_equals_int (g_array_index (((GstAxReportGroup *)
              g_ptr_array_index (back->groups, 1))->rows, GstAxReportRow,
          0).rank, GST_AX_REPORT_RANK_UNKNOWN);
  fail_unless_equals_int (g_array_index (back->devices, GstAxReportDevice,
          1).occupancy_index, 1);
  fail_unless_equals_int (back->constraint_kind, r->constraint_kind);
  fail_unless_equals_string (back->verdict, r->verdict);
  /* drops, QoS drops and the sinks frames and audio are counted at */
  fail_unless_equals_int (back->constraint_kind,
      GST_AX_REPORT_CONSTRAINT_DROPS);
  fail_unless_equals_string (g_array_index (back->queues, GstAxReportQueue,
          0).leaky, "upstream");
  fail_unless_equals_int (g_array_index (back->queues, GstAxReportQueue,
          0).dropped, 30);
  fail_unless_equals_int (g_array_index (back->queues, GstAxReportQueue,
          0).input, 40);
  fail_unless (g_array_index (back->queues, GstAxReportQueue, 1).leaky == NULL);
  fail_unless_equals_int (gst_ax_report_get_n_qos (back), 1);
  fail_unless_equals_int (gst_ax_report_get_qos (back, 0)->dropped, 3);
  fail_unless_equals_string (back->frames_sink, "vsink");
  fail_unless_equals_int (back->video_sinks, 2);
  fail_unless_equals_int (back->audio_buffers, 7);
  fail_unless_equals_string (back->audio_sink, "asink");
  gst_ax_report_unref (back);
  g_free (json);
  gst_ax_report_unref (r);
}

GST_END_TEST;

/* A run ended by an ERROR: its status and the error read back. */
GST_START_TEST (test_round_trip_error)
{
  GstAxReport *r = full_report (), *back;
  gchar *json;

  r->status = GST_AX_REPORT_STATUS_ERROR;
  r->error_element = g_strdup ("filesink0");
  r->error_message = g_strdup ("No space left on the resource.");
  ax_assert_report_round_trip (r);
  json = gst_ax_report_to_json (r);
  back = gst_ax_report_new_from_json (json, NULL);
  fail_unless_equals_int (back->status, GST_AX_REPORT_STATUS_ERROR);
  fail_unless_equals_string (back->error_element, "filesink0");
  fail_unless_equals_string (back->error_message,
      "No space left on the resource.");
  fail_unless (back->error_debug == NULL);
  gst_ax_report_unref (back);
  g_free (json);
  gst_ax_report_unref (r);
}

GST_END_TEST;

/* A report written before the drop, QoS, sink and error members reads
 * back with them empty. */
GST_START_TEST (test_reads_without_later_members)
{
  GstAxReport *r = full_report (), *back;
  JsonParser *parser = json_parser_new ();
  JsonGenerator *gen = json_generator_new ();
  JsonObject *root, *o;
  JsonArray *queues;
  gchar *json = gst_ax_report_to_json (r), *old;
  guint i;
  static const gchar *const later[] = { "leaky", "input", "dropped",
    "dropped_percent"
  };
  static const gchar *const later_throughput[] = { "frames_sink",
    "video_sinks", "audio_buffers", "audio_sink"
  };

  fail_unless (json_parser_load_from_data (parser, json, -1, NULL));
  root = json_node_get_object (json_parser_get_root (parser));
  json_object_remove_member (root, "error");
  json_object_remove_member (root, "qos_drops");
  o = json_object_get_object_member (root, "throughput");
  for (i = 0; i < G_N_ELEMENTS (later_throughput); i++)
    json_object_remove_member (o, later_throughput[i]);
  queues = json_object_get_array_member (root, "queues");
  for (i = 0; i < G_N_ELEMENTS (later); i++)
    json_object_remove_member (json_array_get_object_element (queues, 0),
        later[i]);
  json_generator_set_root (gen, json_parser_get_root (parser));
  old = json_generator_to_data (gen, NULL);
  back = gst_ax_report_new_from_json (old, NULL);
  fail_unless (back != NULL);
  fail_unless_equals_int (back->qos->len, 0);
  fail_unless (back->frames_sink == NULL && back->error_element == NULL);
  fail_unless_equals_int (g_array_index (back->queues, GstAxReportQueue,
          0).dropped, 0);
  gst_ax_report_unref (back);
  g_free (old);
  g_free (json);
  g_object_unref (gen);
  g_object_unref (parser);
  gst_ax_report_unref (r);
}

GST_END_TEST;

GST_START_TEST (test_round_trip_absent_and_refused)
{
  GstAxReport *r = gst_ax_report_new ();

  r->pipeline = g_strdup ("empty");
  r->status = GST_AX_REPORT_STATUS_CUT_SHORT;
  r->latency_absent = g_strdup ("no buffer reached a sink");
  r->latency_serial = TRUE;
  r->groups_absent = g_strdup ("no buffer was processed by any element");
  r->share_absent = g_strdup ("no device in this pipeline");
  r->throughput_absent = g_strdup ("no source pushed a buffer");
  r->queues_absent = g_strdup ("no queue");
  r->devices_absent = g_strdup ("no device in this pipeline");
  ax_assert_report_round_trip (r);
  gst_ax_report_unref (r);

  r = gst_ax_report_new ();
  r->refusal = g_strdup ("DEBUG logging is enabled");
  r->sample = 16;
  ax_assert_report_round_trip (r);
  gst_ax_report_unref (r);
}

GST_END_TEST;

/* Replaces the first @from in @json by @to. */
static gchar *
edit (const gchar * json, const gchar * from, const gchar * to)
{
  const gchar *at = strstr (json, from);

  fail_unless (at != NULL, "'%s' not in the JSON", from);
  return g_strdup_printf ("%.*s%s%s", (gint) (at - json), json, to,
      at + strlen (from));
}

static void
assert_refused (const gchar * json, gint code, const gchar * names)
{
  GError *err = NULL;
  GstAxReport *r = gst_ax_report_new_from_json (json, &err);

  fail_unless (r == NULL);
  fail_unless (g_error_matches (err, GST_AX_REPORT_ERROR, code),
      "%s", err ? err->message : "no error");
  fail_unless (strstr (err->message, names) != NULL, "'%s' does not name "
      "'%s'", err->message, names);
  g_error_free (err);
}

GST_START_TEST (test_bad_json_named)
{
  GstAxReport *r = full_report ();
  gchar *json = gst_ax_report_to_json (r), *bad;

  assert_refused ("{\"schema\": ", GST_AX_REPORT_ERROR_PARSE, "does not parse");
  assert_refused ("[1, 2]", GST_AX_REPORT_ERROR_PARSE, "an array");
  assert_refused ("{\"pipeline\": \"p\"}", GST_AX_REPORT_ERROR_SCHEMA,
      "schema is missing");
  bad = edit (json, GST_AX_REPORT_SCHEMA, "gst-ax/axprof-report/0");
  assert_refused (bad, GST_AX_REPORT_ERROR_SCHEMA,
      "\"gst-ax/axprof-report/0\"");
  g_free (bad);
  /* the second row's count, as a string */
  {
    const gchar *first = strstr (json, "\"count\" : 10");
    const gchar *second = strstr (first + 1, "\"count\" : 10");
    gchar *head = g_strndup (json, second - json);

    bad = g_strdup_printf ("%s\"count\" : \"ten\"%s", head,
        second + strlen ("\"count\" : 10"));
    g_free (head);
  }
  assert_refused (bad, GST_AX_REPORT_ERROR_INVALID,
      "groups[0].rows[1].count: expected an integer, got a string");
  g_free (bad);
  bad = edit (json, "\"fps\"", "\"frames_per_second\"");
  assert_refused (bad, GST_AX_REPORT_ERROR_INVALID, "throughput.fps: missing");
  g_free (bad);
  bad = edit (json, "\"status\" : \"section\"", "\"status\" : \"done\"");
  assert_refused (bad, GST_AX_REPORT_ERROR_INVALID, "status: unknown status "
      "'done'");
  g_free (bad);
  bad = edit (json, "\"jobs\" : 10", "\"jobs\" : -1");
  assert_refused (bad, GST_AX_REPORT_ERROR_INVALID, "devices[0].jobs: -1 is "
      "out of range");
  g_free (bad);
  bad = edit (json, "\"DEVICE WAIT\"", "\"WAITING\"");
  assert_refused (bad, GST_AX_REPORT_ERROR_INVALID, "groups[0].rows[0].flags: "
      "unknown flag 'WAITING'");
  g_free (bad);
  bad = edit (json, "\"kind\" : \"task\"", "\"kind\" : 7");
  assert_refused (bad, GST_AX_REPORT_ERROR_INVALID, "groups[0].rows[1].kind: "
      "expected a string, got an integer");
  g_free (bad);
  bad = edit (json, "\"queues\" : [", "\"queues\" : 3, \"x\" : [");
  assert_refused (bad, GST_AX_REPORT_ERROR_INVALID, "queues: expected an "
      "array or {\"absent\": reason}, got an integer");
  g_free (bad);
  /* a member the schema does not know is not an error */
  bad = edit (json, "\"pipeline\"", "\"added_later\" : [1], \"pipeline\"");
  {
    GstAxReport *later = gst_ax_report_new_from_json (bad, NULL);

    fail_unless (later != NULL);
    gst_ax_report_unref (later);
  }
  g_free (bad);
  g_free (json);
  gst_ax_report_unref (r);
}

GST_END_TEST;

static void
assert_same_verdict (const GstAxReportVerdict * a, const GstAxReportVerdict * b)
{
  guint i;

  fail_unless_equals_int (a->kind, b->kind);
  fail_unless_equals_string (a->element, b->element);
  fail_unless_equals_string (a->row, b->row);
  fail_unless_equals_string (a->group, b->group);
  fail_unless_equals_string (a->queue, b->queue);
  fail_unless_equals_string (a->model, b->model);
  fail_unless_equals_int (a->simulator_lags, b->simulator_lags);
  fail_unless_equals_string (a->constraint, b->constraint);
  fail_unless_equals_string (a->text, b->text);
  fail_unless_equals_int (a->steps->len, b->steps->len);
  for (i = 0; i < a->steps->len; i++)
    fail_unless_equals_string (g_ptr_array_index (a->steps, i),
        g_ptr_array_index (b->steps, i));
}

GST_START_TEST (test_accessors)
{
  GstAxReport *r = full_report ();
  const GstAxReportGroup *g = NULL;
  const GstAxReportRow *row;
  const GstAxReportDevice *d;
  GstAxReportVerdict *stored, *made;

  fail_unless (gst_ax_report_get_latency (r) == &r->latency);
  fail_unless_equals_int (gst_ax_report_get_n_groups (r), 2);
  g = gst_ax_report_get_group (r, 0);
  fail_unless_equals_string (g->name, "ball-detector");
  fail_unless_equals_int (gst_ax_report_group_get_n_rows (g), 2);
  fail_unless_equals_string (gst_ax_report_group_get_row (g, 1)->name,
      "src (create)");
  g = NULL;
  row = gst_ax_report_find_row (r, NULL, "decode", &g);
  fail_unless (row != NULL && row->kind == GST_AX_REPORT_ROW_KIND_REPORTED);
  fail_unless_equals_string (g->name, "pipeline");
  fail_unless (gst_ax_report_find_row (r, "pipeline", "axinference0",
          NULL) == NULL);
  fail_unless_equals_int (gst_ax_report_get_n_queues (r), 2);
  fail_unless_equals_string (gst_ax_report_get_queue (r, 1)->name, "mq:1");
  fail_unless_equals_int (gst_ax_report_get_n_devices (r), 2);
  d = gst_ax_report_get_device (r, 1);
  fail_unless_equals_string (d->group, "ball-b");
  fail_unless_equals_int (gst_ax_report_get_n_device_occupancy (r), 1);
  fail_unless (gst_ax_report_device_get_occupancy (r, d) ==
      gst_ax_report_get_device_occupancy (r, 0));
  fail_unless_equals_int (gst_ax_report_get_device_occupancy (r,
          0)->models->len, 2);
  fail_unless_equals_int (gst_ax_report_device_occupancy_get_n_models
      (gst_ax_report_get_device_occupancy (r, 0)), 2);
  fail_unless_equals_string (gst_ax_report_device_occupancy_get_model
      (gst_ax_report_get_device_occupancy (r, 0), 1)->group, "ball-b");
  fail_unless_equals_float (gst_ax_report_device_occupancy_get_model
      (gst_ax_report_get_device_occupancy (r, 0), 1)->share_percent, 50);

  /* the stored verdict is the one that was made and set */
  stored = gst_ax_report_get_verdict (r);
  made = gst_ax_report_make_verdict (r);
  fail_unless (made->steps->len > 1);
  assert_same_verdict (stored, made);
  gst_ax_report_verdict_free (stored);
  gst_ax_report_verdict_free (made);

  g_free (r->latency_absent);
  r->latency_absent = g_strdup ("no buffer reached a sink");
  fail_unless (gst_ax_report_get_latency (r) == NULL);
  gst_ax_report_unref (r);
}

GST_END_TEST;

/* The error domains' names, as GError prints them and bindings see them:
 * gst-indent once spaced them out ("gst - ax - report - error - quark") */
GST_START_TEST (test_error_domain_names)
{
  fail_unless_equals_string (g_quark_to_string (GST_AX_REPORT_ERROR),
      "gst-ax-report-error-quark");
  fail_unless_equals_string (g_quark_to_string (GST_AX_PROFILER_ERROR),
      "gst-ax-profiler-error-quark");
}

GST_END_TEST;

/* The writer's members, their order and number formatting, of the report
 * above, against the JSON stored when the writer was written by hand for
 * each member: a change of the field table that moves or renames a
 * member shows here. */
GST_START_TEST (test_writer_matches_stored_json)
{
  GstAxReport *r = full_report ();
  gchar *json = gst_ax_report_to_json (r), *expected;
  GError *err = NULL;
  gchar **lines, **expected_lines;
  guint i;

  fail_unless (g_file_get_contents (AX_REPORT_FULL_JSON, &expected, NULL,
          &err), "%s", err ? err->message : "?");
  /* the first line that differs, rather than the whole text */
  lines = g_strsplit (json, "\n", -1);
  expected_lines = g_strsplit (expected, "\n", -1);
  for (i = 0; lines[i] && expected_lines[i]; i++)
    fail_unless_equals_string (lines[i], expected_lines[i]);
  fail_unless (lines[i] == NULL && expected_lines[i] == NULL,
      "line %u: %s where report-full.json has %s", i + 1,
      lines[i] ? lines[i] : "the end", expected_lines[i] ?
      expected_lines[i] : "its end");
  g_strfreev (expected_lines);
  g_strfreev (lines);
  g_free (expected);
  g_free (json);
  gst_ax_report_unref (r);
}

GST_END_TEST;

static Suite *
report_json_suite (void)
{
  Suite *s = suite_create ("report-json");
  TCase *tc = tcase_create ("general");

  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_round_trip_full);
  tcase_add_test (tc, test_writer_matches_stored_json);
  tcase_add_test (tc, test_round_trip_absent_and_refused);
  tcase_add_test (tc, test_round_trip_error);
  tcase_add_test (tc, test_reads_without_later_members);
  tcase_add_test (tc, test_bad_json_named);
  tcase_add_test (tc, test_accessors);
  tcase_add_test (tc, test_error_domain_names);
  return s;
}

GST_CHECK_MAIN (report_json);
