/* gst-ax
 * Copyright (C) 2026 gst-ax developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

#include "axproftest.h"

#define RUN_TIMEOUT (60 * GST_SECOND)

static GMutex reports_lock;

GstBusSyncReply
ax_prof_collect_report (GstBus * bus, GstMessage * msg, gpointer user_data)
{
  GPtrArray *reports = user_data;
  const GstStructure *s = gst_message_get_structure (msg);

  if (GST_MESSAGE_TYPE (msg) == GST_MESSAGE_ELEMENT && s &&
      gst_structure_has_name (s, "axprof-report")) {
    g_mutex_lock (&reports_lock);
    g_ptr_array_add (reports, ax_prof_report_from_structure (s));
    g_mutex_unlock (&reports_lock);
  }
  return GST_BUS_PASS;
}

void
ax_prof_watch (GstElement * pipeline, GPtrArray * reports)
{
  GstBus *bus = gst_element_get_bus (pipeline);

  gst_bus_set_sync_handler (bus, ax_prof_collect_report, reports, NULL);
  gst_object_unref (bus);
}

AxProfReport *
ax_prof_report_from_structure (const GstStructure * s)
{
  AxProfReport *r = g_new0 (AxProfReport, 1);
  GError *err = NULL;

  r->pipeline = g_strdup (gst_structure_get_string (s, "pipeline"));
  r->status = g_strdup (gst_structure_get_string (s, "status"));
  r->text = g_strdup (gst_structure_get_string (s, "text"));
  r->json = g_strdup (gst_structure_get_string (s, "json"));
  r->usage_reader = g_strdup (gst_structure_get_string (s, "usage-reader"));
  r->verdict_kind = g_strdup (gst_structure_get_string (s, "verdict-kind"));
  r->verdict_element =
      g_strdup (gst_structure_get_string (s, "verdict-element"));
  r->output_errors = g_strdup (gst_structure_get_string (s, "output-errors"));
  fail_unless (r->text != NULL && r->json != NULL);
  r->parser = json_parser_new ();
  fail_unless (json_parser_load_from_data (r->parser, r->json, -1, &err),
      "report JSON does not parse: %s", err ? err->message : "?");
  r->root = json_node_get_object (json_parser_get_root (r->parser));
  return r;
}

void
ax_prof_report_free (AxProfReport * r)
{
  if (r == NULL)
    return;
  g_free (r->pipeline);
  g_free (r->status);
  g_free (r->text);
  g_free (r->json);
  g_free (r->usage_reader);
  g_free (r->verdict_kind);
  g_free (r->verdict_element);
  g_free (r->output_errors);
  g_object_unref (r->parser);
  g_free (r);
}

AxProfReport *
ax_prof_run (const gchar * description)
{
  return ax_prof_run_full (description, NULL);
}

AxProfReport *
ax_prof_run_full (const gchar * description, GstElement ** at_eos)
{
  GError *err = NULL;
  GstElement *pipeline = gst_parse_launch (description, &err);

  fail_unless (pipeline != NULL, "cannot parse '%s': %s", description,
      err ? err->message : "?");
  g_clear_error (&err);
  return ax_prof_run_pipeline (pipeline, at_eos);
}

AxProfReport *
ax_prof_run_pipeline (GstElement * pipeline, GstElement ** at_eos)
{
  GPtrArray *reports = g_ptr_array_new ();
  GstBus *bus;
  GstMessage *msg;
  AxProfReport *r;

  ax_prof_watch (pipeline, reports);
  bus = gst_element_get_bus (pipeline);
  fail_unless (gst_element_set_state (pipeline, GST_STATE_PLAYING) !=
      GST_STATE_CHANGE_FAILURE);
  msg = gst_bus_timed_pop_filtered (bus, RUN_TIMEOUT,
      GST_MESSAGE_EOS | GST_MESSAGE_ERROR);
  fail_unless (msg != NULL, "no EOS within the timeout for %s",
      GST_OBJECT_NAME (pipeline));
  fail_unless_equals_int (GST_MESSAGE_TYPE (msg), GST_MESSAGE_EOS);
  gst_message_unref (msg);
  gst_bus_set_sync_handler (bus, NULL, NULL, NULL);
  gst_object_unref (bus);
  if (at_eos) {
    *at_eos = pipeline;
  } else {
    gst_element_set_state (pipeline, GST_STATE_NULL);
    gst_object_unref (pipeline);
  }

  fail_unless_equals_int (reports->len, 1);
  r = g_ptr_array_index (reports, 0);
  g_ptr_array_unref (reports);
  fail_unless_equals_string (r->status, "eos");
  return r;
}

JsonObject *
ax_prof_find_group (JsonObject * root, const gchar * group)
{
  JsonArray *groups = json_object_get_array_member (root, "groups");
  guint i;

  for (i = 0; groups && i < json_array_get_length (groups); i++) {
    JsonObject *g = json_array_get_object_element (groups, i);

    if (g_strcmp0 (json_object_get_string_member (g, "name"), group) == 0)
      return g;
  }
  return NULL;
}

JsonObject *
ax_prof_find_row (JsonObject * root, const gchar * group, const gchar * row)
{
  JsonArray *groups = json_object_get_array_member (root, "groups");
  guint i, j;

  for (i = 0; groups && i < json_array_get_length (groups); i++) {
    JsonObject *g = json_array_get_object_element (groups, i);
    JsonArray *rows = json_object_get_array_member (g, "rows");

    if (group && g_strcmp0 (json_object_get_string_member (g, "name"),
            group) != 0)
      continue;
    for (j = 0; j < json_array_get_length (rows); j++) {
      JsonObject *r = json_array_get_object_element (rows, j);

      if (g_strcmp0 (json_object_get_string_member (r, "name"), row) == 0)
        return r;
    }
  }
  return NULL;
}

gboolean
ax_prof_row_has_flag (JsonObject * row, const gchar * flag)
{
  JsonArray *flags = json_object_get_array_member (row, "flags");
  guint i;

  for (i = 0; i < json_array_get_length (flags); i++)
    if (g_strcmp0 (json_array_get_string_element (flags, i), flag) == 0)
      return TRUE;
  return FALSE;
}

JsonObject *
ax_prof_find_queue (JsonObject * root, const gchar * name)
{
  JsonArray *queues;
  guint i;

  if (!json_object_has_member (root, "queues") ||
      JSON_NODE_TYPE (json_object_get_member (root, "queues")) !=
      JSON_NODE_ARRAY)
    return NULL;
  queues = json_object_get_array_member (root, "queues");
  for (i = 0; i < json_array_get_length (queues); i++) {
    JsonObject *q = json_array_get_object_element (queues, i);

    if (g_strcmp0 (json_object_get_string_member (q, "name"), name) == 0)
      return q;
  }
  return NULL;
}
