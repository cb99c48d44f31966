/* gst-ax
 * Copyright (C) 2026 gst-ax developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

/* The report's JSON twin read back into a GstAxReport: the inverse of
 * gst_ax_report_to_json() (gstaxreport.c), member for member, so that
 * rendering what was read gives the same JSON. The reader keeps the first
 * error and the path of the member it is at ("groups[1].rows[0].count"),
 * so that every message names what was wrong where. */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstaxreport.h"
#include "gstaxprojection-private.h"

#include <json-glib/json-glib.h>
#include <math.h>
#include <string.h>

typedef struct
{
  GError *error;
} Reader;

/* G_DEFINE_QUARK's first argument is the name itself, not a string:
 * gst-indent would read it as a subtraction and space it out */
/* *INDENT-OFF* */
G_DEFINE_QUARK (gst-ax-report-error-quark, gst_ax_report_error);
/* *INDENT-ON* */

static void
fail (Reader * rd, const gchar * where, const gchar * name,
    const gchar * format, ...)
G_GNUC_PRINTF (4, 5);

     static void
         fail (Reader * rd, const gchar * where, const gchar * name,
    const gchar * format, ...)
{
  va_list args;
  gchar *what;

  if (rd->error)
    return;
  va_start (args, format);
  what = g_strdup_vprintf (format, args);
  va_end (args);
  rd->error = g_error_new (GST_AX_REPORT_ERROR, GST_AX_REPORT_ERROR_INVALID,
      "report JSON: %s%s%s: %s", where, *where && name ? "." : "",
      name ? name : "", what);
  g_free (what);
}

static const gchar *
node_kind (JsonNode * node)
{
  GType t;

  switch (JSON_NODE_TYPE (node)) {
    case JSON_NODE_OBJECT:
      return "an object";
    case JSON_NODE_ARRAY:
      return "an array";
    case JSON_NODE_NULL:
      return "null";
    case JSON_NODE_VALUE:
    default:
      break;
  }
  t = json_node_get_value_type (node);
  if (t == G_TYPE_INT64)
    return "an integer";
  if (t == G_TYPE_DOUBLE)
    return "a number";
  if (t == G_TYPE_BOOLEAN)
    return "a boolean";
  return "a string";
}

/* The member @name of @o, or NULL (an error) when it is missing. */
static JsonNode *
member (Reader * rd, JsonObject * o, const gchar * where, const gchar * name)
{
  JsonNode *node;

  if (rd->error)
    return NULL;
  node = json_object_get_member (o, name);
  if (node == NULL)
    fail (rd, where, name, "missing");
  return node;
}

/* A number; null reads NAN (the JSON writes what does not exist so). */
static gdouble
read_double (Reader * rd, JsonObject * o, const gchar * where,
    const gchar * name)
{
  JsonNode *node = member (rd, o, where, name);
  GType t;

  if (node == NULL)
    return 0;
  if (JSON_NODE_HOLDS_NULL (node))
    return NAN;
  t = JSON_NODE_HOLDS_VALUE (node) ? json_node_get_value_type (node) : 0;
  if (t != G_TYPE_DOUBLE && t != G_TYPE_INT64) {
    fail (rd, where, name, "expected a number, got %s", node_kind (node));
    return 0;
  }
  return json_node_get_double (node);
}

static gint64
read_int_range (Reader * rd, JsonObject * o, const gchar * where,
    const gchar * name, gint64 min, gint64 max)
{
  JsonNode *node = member (rd, o, where, name);
  gint64 v;

  if (node == NULL)
    return 0;
  if (!JSON_NODE_HOLDS_VALUE (node) ||
      json_node_get_value_type (node) != G_TYPE_INT64) {
    fail (rd, where, name, "expected an integer, got %s", node_kind (node));
    return 0;
  }
  v = json_node_get_int (node);
  if (v < min || v > max) {
    fail (rd, where, name, "%" G_GINT64_FORMAT " is out of range (%"
        G_GINT64_FORMAT " to %" G_GINT64_FORMAT ")", v, min, max);
    return 0;
  }
  return v;
}

static guint64
read_count (Reader * rd, JsonObject * o, const gchar * where,
    const gchar * name)
{
  return (guint64) read_int_range (rd, o, where, name, 0, G_MAXINT64);
}

static guint
read_uint (Reader * rd, JsonObject * o, const gchar * where, const gchar * name)
{
  return (guint) read_int_range (rd, o, where, name, 0, G_MAXUINT);
}

static gboolean
read_bool (Reader * rd, JsonObject * o, const gchar * where, const gchar * name)
{
  JsonNode *node = member (rd, o, where, name);

  if (node == NULL)
    return FALSE;
  if (!JSON_NODE_HOLDS_VALUE (node) ||
      json_node_get_value_type (node) != G_TYPE_BOOLEAN) {
    fail (rd, where, name, "expected true or false, got %s", node_kind (node));
    return FALSE;
  }
  return json_node_get_boolean (node);
}

/* A string or null (newly allocated, NULL for null). */
static gchar *
read_string (Reader * rd, JsonObject * o, const gchar * where,
    const gchar * name)
{
  JsonNode *node = member (rd, o, where, name);

  if (node == NULL || JSON_NODE_HOLDS_NULL (node))
    return NULL;
  if (!JSON_NODE_HOLDS_VALUE (node) ||
      json_node_get_value_type (node) != G_TYPE_STRING) {
    fail (rd, where, name, "expected a string, got %s", node_kind (node));
    return NULL;
  }
  return g_strdup (json_node_get_string (node));
}

/* Members added after the schema's first version are read only where
 * present, so that a report written before them still reads. */
static gboolean
has (Reader * rd, JsonObject * o, const gchar * name)
{
  return !rd->error && json_object_has_member (o, name);
}

static JsonObject *
read_object (Reader * rd, JsonObject * o, const gchar * where,
    const gchar * name)
{
  JsonNode *node = member (rd, o, where, name);

  if (node == NULL)
    return NULL;
  if (!JSON_NODE_HOLDS_OBJECT (node)) {
    fail (rd, where, name, "expected an object, got %s", node_kind (node));
    return NULL;
  }
  return json_node_get_object (node);
}

/* A section: an array, or {"absent": reason}. Returns the array, or NULL
 * with *absent set (or an error). */
static JsonArray *
read_section (Reader * rd, JsonObject * o, const gchar * name, gchar ** absent)
{
  JsonNode *node = member (rd, o, "", name);

  *absent = NULL;
  if (node == NULL)
    return NULL;
  if (JSON_NODE_HOLDS_ARRAY (node))
    return json_node_get_array (node);
  if (JSON_NODE_HOLDS_OBJECT (node)) {
    *absent = read_string (rd, json_node_get_object (node), name, "absent");
    if (*absent == NULL)
      fail (rd, name, "absent", "expected the reason the section is absent");
    return NULL;
  }
  fail (rd, "", name, "expected an array or {\"absent\": reason}, got %s",
      node_kind (node));
  return NULL;
}

/* An object section, or {"absent": reason}: the object, or NULL with
 * *absent set. */
static JsonObject *
read_object_section (Reader * rd, JsonObject * o, const gchar * name,
    gchar ** absent)
{
  JsonObject *s = read_object (rd, o, "", name);

  *absent = NULL;
  if (s == NULL || !json_object_has_member (s, "absent"))
    return s;
  *absent = read_string (rd, s, name, "absent");
  return NULL;
}

/* The element @i of @a as an object; @where gets its path. */
static JsonObject *
element_object (Reader * rd, JsonArray * a, guint i, const gchar * name,
    gchar ** where)
{
  JsonNode *node = json_array_get_element (a, i);

  *where = g_strdup_printf ("%s[%u]", name, i);
  if (!JSON_NODE_HOLDS_OBJECT (node)) {
    fail (rd, *where, NULL, "expected an object, got %s", node_kind (node));
    return NULL;
  }
  return json_node_get_object (node);
}

static void
read_strings (Reader * rd, JsonObject * o, const gchar * name, GPtrArray * to)
{
  JsonNode *node = member (rd, o, "", name);
  JsonArray *a;
  guint i;

  if (node == NULL)
    return;
  if (!JSON_NODE_HOLDS_ARRAY (node)) {
    fail (rd, "", name, "expected an array of strings, got %s",
        node_kind (node));
    return;
  }
  a = json_node_get_array (node);
  for (i = 0; i < json_array_get_length (a) && !rd->error; i++) {
    JsonNode *e = json_array_get_element (a, i);

    if (!JSON_NODE_HOLDS_VALUE (e) ||
        json_node_get_value_type (e) != G_TYPE_STRING) {
      gchar *where = g_strdup_printf ("%s[%u]", name, i);

      fail (rd, where, NULL, "expected a string, got %s", node_kind (e));
      g_free (where);
      return;
    }
    g_ptr_array_add (to, g_strdup (json_node_get_string (e)));
  }
}

static void
read_status (Reader * rd, JsonObject * o, GstAxReport * r)
{
  gchar *s = read_string (rd, o, "", "status");

  if (g_strcmp0 (s, "eos") == 0)
    r->status = GST_AX_REPORT_STATUS_EOS;
  else if (g_strcmp0 (s, "cut-short") == 0)
    r->status = GST_AX_REPORT_STATUS_CUT_SHORT;
  else if (g_strcmp0 (s, "running") == 0)
    r->status = GST_AX_REPORT_STATUS_RUNNING;
  else if (g_strcmp0 (s, "section") == 0)
    r->status = GST_AX_REPORT_STATUS_SECTION;
  else if (g_strcmp0 (s, "error") == 0)
    r->status = GST_AX_REPORT_STATUS_ERROR;
  else if (g_strcmp0 (s, "interval") == 0)
    r->status = GST_AX_REPORT_STATUS_INTERVAL;
  else if (!rd->error)
    fail (rd, "", "status", "unknown status '%s' (eos, cut-short, running, "
        "section, error or interval)", s ? s : "null");
  g_free (s);
}

/* "error": null, or the ERROR message that ended the run */
static void
read_error (Reader * rd, JsonObject * root, GstAxReport * r)
{
  JsonObject *o;

  if (!has (rd, root, "error") ||
      JSON_NODE_HOLDS_NULL (json_object_get_member (root, "error")))
    return;
  o = read_object (rd, root, "", "error");
  if (o == NULL)
    return;
  r->error_element = read_string (rd, o, "error", "element");
  r->error_message = read_string (rd, o, "error", "message");
  r->error_debug = read_string (rd, o, "error", "debug");
}

static void
read_latency (Reader * rd, JsonObject * root, GstAxReport * r)
{
  JsonObject *o = read_object (rd, root, "", "latency");
  GstAxReportLatency *l = &r->latency;
  gchar *pass;

  if (o == NULL)
    return;
  pass = read_string (rd, o, "latency", "pass");
  if (g_strcmp0 (pass, "serial") == 0)
    r->latency_serial = TRUE;
  else if (g_strcmp0 (pass, "streamed") != 0 && !rd->error)
    fail (rd, "latency", "pass", "expected \"streamed\" or \"serial\"");
  g_free (pass);
  r->latency_unmatched = read_count (rd, o, "latency", "unmatched");
  if (json_object_has_member (o, "absent")) {
    r->latency_absent = read_string (rd, o, "latency", "absent");
    return;
  }
  l->n = read_count (rd, o, "latency", "n");
  r->pacing = read_string (rd, o, "latency", "pacing");
  /* reports written before the warm-up was set apart have none */
  if (json_object_has_member (o, "warmup_frames")) {
    r->latency_warmup_frames = read_uint (rd, o, "latency", "warmup_frames");
    if (r->latency_warmup_frames > 0) {
      r->latency_first_frame_ms = read_double (rd, o, "latency",
          "first_frame_ms");
      r->latency_warmup_mean_ms = read_double (rd, o, "latency",
          "warmup_mean_ms");
    }
  }
  l->min_ms = read_double (rd, o, "latency", "min_ms");
  l->mean_ms = read_double (rd, o, "latency", "mean_ms");
  l->p50_ms = read_double (rd, o, "latency", "p50_ms");
  l->p95_ms = read_double (rd, o, "latency", "p95_ms");
  l->p99_ms = read_double (rd, o, "latency", "p99_ms");
  l->p999_ms = read_double (rd, o, "latency", "p999_ms");
  l->max_ms = read_double (rd, o, "latency", "max_ms");
  l->stddev_ms = read_double (rd, o, "latency", "stddev_ms");
  l->jitter_ms = read_double (rd, o, "latency", "jitter_ms");
}

static GstAxReportRowFlags
read_flags (Reader * rd, JsonObject * o, const gchar * where)
{
  static const struct
  {
    const gchar *name;
    GstAxReportRowFlags flag;
  } names[] = {
    {"DEVICE WAIT", GST_AX_REPORT_ROW_FLAG_DEVICE_WAIT},
    {"STAGE", GST_AX_REPORT_ROW_FLAG_STAGE},
    {"BLOCKED", GST_AX_REPORT_ROW_FLAG_BLOCKED},
    {"STRONGLY BLOCKED", GST_AX_REPORT_ROW_FLAG_STRONGLY_BLOCKED},
    {"WORKERS", GST_AX_REPORT_ROW_FLAG_WORKERS},
  };
  GstAxReportRowFlags flags = GST_AX_REPORT_ROW_FLAG_NONE;
  JsonNode *node = member (rd, o, where, "flags");
  JsonArray *a;
  guint i, k;

  if (node == NULL)
    return flags;
  if (!JSON_NODE_HOLDS_ARRAY (node)) {
    fail (rd, where, "flags", "expected an array of strings, got %s",
        node_kind (node));
    return flags;
  }
  a = json_node_get_array (node);
  for (i = 0; i < json_array_get_length (a); i++) {
    JsonNode *e = json_array_get_element (a, i);
    const gchar *s = JSON_NODE_HOLDS_VALUE (e) &&
        json_node_get_value_type (e) == G_TYPE_STRING ?
        json_node_get_string (e) : NULL;

    for (k = 0; s && k < G_N_ELEMENTS (names); k++)
      if (strcmp (s, names[k].name) == 0)
        break;
    if (s == NULL || k == G_N_ELEMENTS (names)) {
      fail (rd, where, "flags", "unknown flag %s%s%s (DEVICE WAIT, STAGE, "
          "BLOCKED, STRONGLY BLOCKED or WORKERS)", s ? "'" : "", s ? s :
          node_kind (e), s ? "'" : "");
      return flags;
    }
    flags |= names[k].flag;
  }
  return flags;
}

static void
read_row (Reader * rd, JsonObject * o, const gchar * where,
    GstAxReportGroup * g)
{
  gchar *name = read_string (rd, o, where, "name");
  GstAxReportRow *row = gst_ax_report_group_add_row (g, name);
  gchar *kind;
  JsonNode *rank;

  g_free (name);
  row->mean_ms = read_double (rd, o, where, "mean_ms");
  row->cpu_ms = read_double (rd, o, where, "cpu_ms");
  row->faults = read_double (rd, o, where, "faults");
  row->min_ms = read_double (rd, o, where, "min_ms");
  row->max_ms = read_double (rd, o, where, "max_ms");
  row->total_ms = read_double (rd, o, where, "total_ms");
  row->count = read_count (rd, o, where, "count");
  row->flags = read_flags (rd, o, where);
  row->element = read_string (rd, o, where, "element");
  kind = read_string (rd, o, where, "kind");
  if (g_strcmp0 (kind, "task") == 0)
    row->kind = GST_AX_REPORT_ROW_KIND_TASK;
  else if (g_strcmp0 (kind, "reported") == 0)
    row->kind = GST_AX_REPORT_ROW_KIND_REPORTED;
  else if (g_strcmp0 (kind, "element") == 0)
    row->kind = GST_AX_REPORT_ROW_KIND_ELEMENT;
  else if (!rd->error)
    fail (rd, where, "kind", "unknown kind '%s' (element, task or "
        "reported)", kind ? kind : "null");
  g_free (kind);
  rank = member (rd, o, where, "rank");
  if (rank && !JSON_NODE_HOLDS_NULL (rank))
    row->rank = (gint) read_int_range (rd, o, where, "rank", 0,
        GST_AX_REPORT_RANK_UNKNOWN - 1);
  row->out_bytes = read_count (rd, o, where, "out_bytes");
  row->inactive = read_bool (rd, o, where, "inactive");
  row->workers = read_uint (rd, o, where, "workers");
  row->worker_cpu_ms = read_double (rd, o, where, "worker_cpu_ms");
  /* reports written before the member was added: no estimate */
  if (json_object_has_member (o, "cpu_wait_ms"))
    row->cpu_wait_ms = read_double (rd, o, where, "cpu_wait_ms");
}

static void
read_groups (Reader * rd, JsonObject * root, GstAxReport * r)
{
  JsonArray *groups = read_section (rd, root, "groups", &r->groups_absent);
  guint i, j;

  for (i = 0; groups && i < json_array_get_length (groups) && !rd->error; i++) {
    gchar *where, *name;
    JsonObject *o = element_object (rd, groups, i, "groups", &where);
    GstAxReportGroup *g;
    JsonNode *rows;

    if (o == NULL) {
      g_free (where);
      break;
    }
    name = read_string (rd, o, where, "name");
    g = gst_ax_report_add_group (r, name);
    g_free (name);
    g->total_ms = read_double (rd, o, where, "total_ms");
    g->percent = read_double (rd, o, where, "percent");
    rows = member (rd, o, where, "rows");
    if (rows && !JSON_NODE_HOLDS_ARRAY (rows))
      fail (rd, where, "rows", "expected an array, got %s", node_kind (rows));
    for (j = 0; rows && !rd->error &&
        j < json_array_get_length (json_node_get_array (rows)); j++) {
      gchar *row_where, *prefix = g_strdup_printf ("%s.rows", where);
      JsonObject *ro = element_object (rd, json_node_get_array (rows), j,
          prefix, &row_where);

      if (ro)
        read_row (rd, ro, row_where, g);
      g_free (row_where);
      g_free (prefix);
    }
    g_free (where);
  }
}

static void
read_share_throughput (Reader * rd, JsonObject * root, GstAxReport * r)
{
  JsonObject *o;
  gdouble sim;

  o = read_object_section (rd, root, "host_device_share", &r->share_absent);
  if (o) {
    r->share_device_ms = read_double (rd, o, "host_device_share",
        "device_ms_per_frame");
    r->share_host_ms = read_double (rd, o, "host_device_share",
        "host_ms_per_frame");
  }
  o = read_object_section (rd, root, "throughput", &r->throughput_absent);
  if (o == NULL)
    return;
  r->frames = read_count (rd, o, "throughput", "frames");
  r->wall_s = read_double (rd, o, "throughput", "wall_s");
  r->fps = read_double (rd, o, "throughput", "fps");
  r->cpu_percent = read_double (rd, o, "throughput", "cpu_percent");
  r->cores_used = read_double (rd, o, "throughput", "cores_used");
  r->cores_available = read_uint (rd, o, "throughput", "cores_available");
  r->peak_mem_mb = read_double (rd, o, "throughput", "peak_mem_mb");
  sim = read_double (rd, o, "throughput", "sim_cpu_percent");
  r->have_sim_cpu = !isnan (sim);
  r->sim_cpu_percent = r->have_sim_cpu ? sim : 0;
  if (has (rd, o, "frames_sink")) {
    r->frames_sink = read_string (rd, o, "throughput", "frames_sink");
    r->video_sinks = read_uint (rd, o, "throughput", "video_sinks");
    r->audio_buffers = read_count (rd, o, "throughput", "audio_buffers");
    r->audio_sink = read_string (rd, o, "throughput", "audio_sink");
  }
}

static void
read_queues (Reader * rd, JsonObject * root, GstAxReport * r)
{
  JsonArray *a = read_section (rd, root, "queues", &r->queues_absent);
  guint i;

  for (i = 0; a && i < json_array_get_length (a) && !rd->error; i++) {
    gchar *w;
    JsonObject *o = element_object (rd, a, i, "queues", &w);
    GstAxReportQueue q = { 0, };

    if (o) {
      q.name = read_string (rd, o, w, "name");
      q.mean = read_double (rd, o, w, "mean");
      q.min = read_double (rd, o, w, "min");
      q.max = read_double (rd, o, w, "max");
      q.max_size_buffers = read_uint (rd, o, w, "max_size_buffers");
      q.at_max_percent = read_double (rd, o, w, "at_max_percent");
      if (isnan (q.at_max_percent))
        q.at_max_percent = 0;
      q.full_percent = read_double (rd, o, w, "full_percent");
      q.empty_percent = read_double (rd, o, w, "empty_percent");
      q.element = read_string (rd, o, w, "element");
      q.max_size_bytes = read_count (rd, o, w, "max_size_bytes");
      q.max_size_time_ms = read_double (rd, o, w, "max_size_time_ms");
      q.full_limit = read_string (rd, o, w, "full_limit");
      q.downstream = read_string (rd, o, w, "downstream");
      if (has (rd, o, "dropped")) {
        q.leaky = read_string (rd, o, w, "leaky");
        q.input = read_count (rd, o, w, "input");
        q.dropped = read_count (rd, o, w, "dropped");
        q.dropped_percent = read_double (rd, o, w, "dropped_percent");
        if (isnan (q.dropped_percent))
          q.dropped_percent = 0;
      }
      /* reports of older versions know no branch */
      if (has (rd, o, "branch")) {
        JsonNode *bn = json_object_get_member (o, "branch");

        if (JSON_NODE_HOLDS_ARRAY (bn)) {
          JsonArray *ba = json_node_get_array (bn);
          guint k;

          q.branch = g_ptr_array_new_with_free_func (g_free);
          for (k = 0; k < json_array_get_length (ba); k++) {
            JsonNode *e = json_array_get_element (ba, k);

            if (!JSON_NODE_HOLDS_VALUE (e) ||
                json_node_get_value_type (e) != G_TYPE_STRING) {
              fail (rd, w, "branch", "expected an array of element names");
              break;
            }
            g_ptr_array_add (q.branch, g_strdup (json_node_get_string (e)));
          }
        } else if (!JSON_NODE_HOLDS_NULL (bn)) {
          fail (rd, w, "branch", "expected an array or null, got %s",
              node_kind (bn));
        }
      }
      g_array_append_val (r->queues, q);
    }
    g_free (w);
  }
}

static void
read_qos (Reader * rd, JsonObject * root, GstAxReport * r)
{
  JsonArray *a;
  guint i;

  if (!has (rd, root, "qos_drops"))
    return;
  if (!JSON_NODE_HOLDS_ARRAY (json_object_get_member (root, "qos_drops"))) {
    fail (rd, "", "qos_drops", "expected an array, got %s",
        node_kind (json_object_get_member (root, "qos_drops")));
    return;
  }
  a = json_object_get_array_member (root, "qos_drops");
  for (i = 0; i < json_array_get_length (a) && !rd->error; i++) {
    gchar *w;
    JsonObject *o = element_object (rd, a, i, "qos_drops", &w);
    GstAxReportQos q = { 0, };

    if (o) {
      q.element = read_string (rd, o, w, "element");
      q.format = read_string (rd, o, w, "format");
      q.processed = read_count (rd, o, w, "processed");
      q.dropped = read_count (rd, o, w, "dropped");
      q.messages = read_count (rd, o, w, "messages");
      g_array_append_val (r->qos, q);
    }
    g_free (w);
  }
}

/* streams[] is written only for a run split into streams */
static void
read_streams (Reader * rd, JsonObject * root, GstAxReport * r)
{
  JsonArray *a;
  guint i;

  if (rd->error || !json_object_has_member (root, "streams"))
    return;
  if (!JSON_NODE_HOLDS_ARRAY (json_object_get_member (root, "streams"))) {
    fail (rd, "", "streams", "expected an array, got %s",
        node_kind (json_object_get_member (root, "streams")));
    return;
  }
  a = json_object_get_array_member (root, "streams");
  for (i = 0; i < json_array_get_length (a) && !rd->error; i++) {
    gchar *w;
    JsonObject *o = element_object (rd, a, i, "streams", &w);
    GstAxReportStream st = { 0, };

    if (o) {
      st.name = read_string (rd, o, w, "name");
      st.sink = read_string (rd, o, w, "sink");
      st.frames = read_count (rd, o, w, "frames");
      st.fps = read_double (rd, o, w, "fps");
      g_array_append_val (r->streams, st);
    }
    g_free (w);
  }
}

static void
read_cpu (Reader * rd, JsonObject * root, GstAxReport * r)
{
  JsonObject *o = read_object_section (rd, root, "cpu", &r->cpu_absent);
  JsonNode *node;
  JsonArray *a;
  guint i;

  if (o == NULL)
    return;
  r->pipeline_cpu_ms = read_double (rd, o, "cpu", "pipeline_ms");
  r->process_cpu_ms = read_double (rd, o, "cpu", "process_ms");
  r->rows_cpu_ms = read_double (rd, o, "cpu", "rows_ms");
  r->other_cpu_ms = read_double (rd, o, "cpu", "other_ms");
  r->streaming_outside_cpu_ms = read_double (rd, o, "cpu",
      "streaming_outside_ms");
  r->pool_unattributed_cpu_ms = read_double (rd, o, "cpu",
      "pool_unattributed_ms");
  r->simulator_cpu_ms = read_double (rd, o, "cpu", "simulator_ms");
  r->unattributed_cpu_ms = read_double (rd, o, "cpu", "unattributed_ms");
  r->ended_cpu_ms = read_double (rd, o, "cpu", "ended_ms");
  node = member (rd, o, "cpu", "threads");
  if (node == NULL)
    return;
  if (!JSON_NODE_HOLDS_ARRAY (node)) {
    fail (rd, "cpu", "threads", "expected an array, got %s", node_kind (node));
    return;
  }
  a = json_node_get_array (node);
  for (i = 0; i < json_array_get_length (a) && !rd->error; i++) {
    gchar *w;
    JsonObject *to = element_object (rd, a, i, "cpu.threads", &w);
    GstAxReportThread t = { 0, };

    if (to) {
      t.name = read_string (rd, to, w, "name");
      t.tid = (gint) read_int_range (rd, to, w, "tid", 0, G_MAXINT);
      t.kind = read_string (rd, to, w, "kind");
      t.element = read_string (rd, to, w, "element");
      t.cpu_ms = read_double (rd, to, w, "cpu_ms");
      t.faults = read_double (rd, to, w, "faults");
      if (t.kind == NULL && !rd->error)
        fail (rd, w, "kind", "expected the thread's kind");
      g_array_append_val (r->threads, t);
    }
    g_free (w);
  }
}

static void
read_devices (Reader * rd, JsonObject * root, GstAxReport * r)
{
  JsonArray *a = read_section (rd, root, "devices", &r->devices_absent);
  guint i;

  for (i = 0; a && i < json_array_get_length (a) && !rd->error; i++) {
    gchar *w;
    JsonObject *o = element_object (rd, a, i, "devices", &w);
    GstAxReportDevice d = { 0, };

    if (o) {
      d.group = read_string (rd, o, w, "group");
      d.device = read_string (rd, o, w, "device");
      d.n_cores = read_uint (rd, o, w, "n_cores");
      d.in_flight_window = read_uint (rd, o, w, "in_flight_window");
      d.jobs = read_count (rd, o, w, "jobs");
      d.frames = read_count (rd, o, w, "frames");
      d.device_ms = read_double (rd, o, w, "device_ms");
      d.host_ms = read_double (rd, o, w, "host_ms");
      d.occupancy_percent = read_double (rd, o, w, "occupancy_percent");
      d.depth = read_double (rd, o, w, "depth");
      d.device_s = read_double (rd, o, w, "device_s");
      d.device_fps = read_double (rd, o, w, "device_fps");
      if (isnan (d.device_fps))
        d.device_fps = 0;
      d.sim_cpu_ms = read_double (rd, o, w, "sim_cpu_ms");
      d.lag_ms = read_double (rd, o, w, "lag_ms");
      d.held_depth = read_double (rd, o, w, "held_depth");
      d.device_id = read_uint (rd, o, w, "device_id");
      g_array_append_val (r->devices, d);
    }
    g_free (w);
  }
}

/* Each model entry to the device it ran on: the occupancy entry of the
 * same device that lists its model, the first not yet taken, as the
 * tracer lists them in the order of the devices. */
static void
link_occupancy (GstAxReport * r)
{
  GHashTable *taken = g_hash_table_new (NULL, NULL);
  guint i, k, m;

  for (i = 0; i < r->devices->len; i++) {
    GstAxReportDevice *d = &g_array_index (r->devices, GstAxReportDevice, i);

    for (k = 0; k < r->device_occupancy->len && d->occupancy_index == 0; k++) {
      GstAxReportDeviceOccupancy *o = &g_array_index (r->device_occupancy,
          GstAxReportDeviceOccupancy, k);

      if (g_strcmp0 (o->device, d->device) || o->device_id != d->device_id)
        continue;
      for (m = 0; m < o->models->len; m++) {
        GstAxReportModelShare *s = &g_array_index (o->models,
            GstAxReportModelShare, m);

        if (g_strcmp0 (s->group, d->group) == 0 &&
            !g_hash_table_contains (taken, s)) {
          g_hash_table_add (taken, s);
          d->occupancy_index = k + 1;
          break;
        }
      }
    }
  }
  g_hash_table_unref (taken);
}

static void
read_device_occupancy (Reader * rd, JsonObject * root, GstAxReport * r)
{
  gchar *absent;
  JsonArray *a = read_section (rd, root, "device_occupancy", &absent);
  guint i, j;

  /* absent with the devices, for the same reason */
  g_free (absent);
  for (i = 0; a && i < json_array_get_length (a) && !rd->error; i++) {
    gchar *w, *device;
    JsonObject *o = element_object (rd, a, i, "device_occupancy", &w);
    GstAxReportDeviceOccupancy *occ;
    JsonNode *models;

    if (o == NULL) {
      g_free (w);
      break;
    }
    device = read_string (rd, o, w, "device");
    occ = gst_ax_report_add_device_occupancy (r, device,
        read_uint (rd, o, w, "device_id"));
    g_free (device);
    occ->n_cores = read_uint (rd, o, w, "n_cores");
    occ->busy_ms = read_double (rd, o, w, "busy_ms");
    occ->window_s = read_double (rd, o, w, "window_s");
    occ->occupancy_percent = read_double (rd, o, w, "occupancy_percent");
    occ->sim_cpu_ms = read_double (rd, o, w, "sim_cpu_ms");
    models = member (rd, o, w, "models");
    if (models && !JSON_NODE_HOLDS_ARRAY (models))
      fail (rd, w, "models", "expected an array, got %s", node_kind (models));
    for (j = 0; models && !rd->error &&
        j < json_array_get_length (json_node_get_array (models)); j++) {
      gchar *mw, *prefix = g_strdup_printf ("%s.models", w);
      JsonObject *mo = element_object (rd, json_node_get_array (models), j,
          prefix, &mw);

      if (mo) {
        GstAxReportModelShare s = { 0, };

        s.group = read_string (rd, mo, mw, "group");
        s.busy_ms = read_double (rd, mo, mw, "busy_ms");
        s.share_percent = read_double (rd, mo, mw, "share_percent");
        g_array_append_val (occ->models, s);
      }
      g_free (mw);
      g_free (prefix);
    }
    g_free (w);
  }
  link_occupancy (r);
}

static void
read_profiler (Reader * rd, JsonObject * root, GstAxReport * r)
{
  JsonObject *o = read_object (rd, root, "", "profiler");

  if (o == NULL)
    return;
  r->profiler_ns_per_element_buffer = read_double (rd, o, "profiler",
      "ns_per_element_buffer");
  r->element_buffers = read_count (rd, o, "profiler", "element_buffers");
  r->profiler_percent = read_double (rd, o, "profiler", "percent_of_profiled");
  r->dropped_threads = read_count (rd, o, "profiler", "dropped_thread_records");
  r->usage_reader = read_string (rd, o, "profiler", "usage_reader");
  r->usage_reads = read_count (rd, o, "profiler", "usage_reads");
  r->usage_mode = read_string (rd, o, "profiler", "usage_mode");
}

static void
read_verdict (Reader * rd, JsonObject * root, GstAxReport * r)
{
  JsonObject *o = read_object (rd, root, "", "verdict");
  gchar *kind;
  gint k;

  if (o == NULL)
    return;
  kind = read_string (rd, o, "verdict", "kind");
  for (k = GST_AX_REPORT_CONSTRAINT_UNDETERMINED;
      k <= GST_AX_REPORT_CONSTRAINT_DROPS; k++)
    if (g_strcmp0 (kind, gst_ax_report_constraint_kind_to_string (k)) == 0)
      break;
  if (k > GST_AX_REPORT_CONSTRAINT_DROPS && !rd->error)
    fail (rd, "verdict", "kind", "unknown kind '%s'", kind ? kind : "null");
  else
    r->constraint_kind = k;
  g_free (kind);
  r->constraint_element = read_string (rd, o, "verdict", "element");
  r->constraint_row = read_string (rd, o, "verdict", "row");
  r->constraint_queue = read_string (rd, o, "verdict", "queue");
  r->constraint_model = read_string (rd, o, "verdict", "model");
  r->constraint = read_string (rd, o, "verdict", "constraint");
  r->verdict = read_string (rd, o, "verdict", "text");
}

static void
read_report (Reader * rd, JsonObject * root, GstAxReport * r)
{
  r->pipeline = read_string (rd, root, "", "pipeline");
  read_status (rd, root, r);
  if (r->status == GST_AX_REPORT_STATUS_INTERVAL) {
    JsonObject *o = read_object (rd, root, "", "interval");

    if (o) {
      r->interval_index = read_int_range (rd, o, "interval", "index", 1,
          G_MAXUINT);
      r->interval_start_s = read_double (rd, o, "interval", "start_s");
    }
  }
  read_error (rd, root, r);
  r->refusal = read_string (rd, root, "", "refusal");
  r->allow_debug = read_bool (rd, root, "", "allow_debug");
  r->sample = read_int_range (rd, root, "", "sample", 1, G_MAXUINT);
  r->faults_measured = read_bool (rd, root, "", "faults_measured");
  /* a refused report carries nothing more */
  if (r->refusal)
    return;
  read_latency (rd, root, r);
  read_groups (rd, root, r);
  read_share_throughput (rd, root, r);
  read_streams (rd, root, r);
  read_cpu (rd, root, r);
  read_queues (rd, root, r);
  read_qos (rd, root, r);
  read_devices (rd, root, r);
  read_device_occupancy (rd, root, r);
  read_profiler (rd, root, r);
  read_strings (rd, root, "warnings", r->warnings);
  read_strings (rd, root, "sources", r->sources);
  r->live_source = read_string (rd, root, "", "live_source");
  read_verdict (rd, root, r);
  if (rd->error == NULL)
    gst_ax_projection_from_json (r, root, &rd->error);
}

/**
 * gst_ax_report_new_from_json:
 * @json: a report's JSON twin (schema #GST_AX_REPORT_SCHEMA, as
 *   gst_ax_report_to_json() writes it and docs/report-json.md describes
 *   it)
 * @error: (nullable): where to put the error
 *
 * Reads a report back from its JSON: every member the JSON carries goes
 * into its field, so gst_ax_report_to_json() on the result gives @json
 * back (as gst_ax_report_to_json() formatted it). Members the schema does
 * not know are ignored, as a later minor version may add some. Figures
 * the JSON writes as null (a p99.9 under
 * #GST_AX_REPORT_MIN_P999_SAMPLES samples) read NAN.
 *
 * Returns: (transfer full) (nullable): the report, or %NULL with @error
 *   set (#GST_AX_REPORT_ERROR): #GST_AX_REPORT_ERROR_PARSE when @json is
 *   not JSON, #GST_AX_REPORT_ERROR_SCHEMA when it is not a report of this
 *   schema, #GST_AX_REPORT_ERROR_INVALID when a member is missing or of
 *   the wrong type, the message naming the member, e.g.
 *   "groups[0].rows[2].count"
 *
 * Since: 0.2
 */
GstAxReport *
gst_ax_report_new_from_json (const gchar * json, GError ** error)
{
  JsonParser *parser;
  JsonNode *root, *node;
  GError *err = NULL;
  Reader rd = { NULL };
  GstAxReport *r;
  const gchar *schema;

  g_return_val_if_fail (json != NULL, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  parser = json_parser_new ();
  if (!json_parser_load_from_data (parser, json, -1, &err)) {
    g_set_error (error, GST_AX_REPORT_ERROR, GST_AX_REPORT_ERROR_PARSE,
        "report JSON does not parse: %s", err->message);
    g_error_free (err);
    g_object_unref (parser);
    return NULL;
  }
  root = json_parser_get_root (parser);
  if (root == NULL || !JSON_NODE_HOLDS_OBJECT (root)) {
    g_set_error (error, GST_AX_REPORT_ERROR, GST_AX_REPORT_ERROR_PARSE,
        "report JSON: expected an object at the top, got %s",
        root ? node_kind (root) : "nothing");
    g_object_unref (parser);
    return NULL;
  }
  node = json_object_get_member (json_node_get_object (root), "schema");
  schema = node && JSON_NODE_HOLDS_VALUE (node) &&
      json_node_get_value_type (node) == G_TYPE_STRING ?
      json_node_get_string (node) : NULL;
  if (g_strcmp0 (schema, GST_AX_REPORT_SCHEMA) != 0) {
    g_set_error (error, GST_AX_REPORT_ERROR, GST_AX_REPORT_ERROR_SCHEMA,
        "report JSON: schema is %s%s%s, expected \"%s\"", schema ? "\"" : "",
        schema ? schema : "missing", schema ? "\"" : "", GST_AX_REPORT_SCHEMA);
    g_object_unref (parser);
    return NULL;
  }

  r = gst_ax_report_new ();
  read_report (&rd, json_node_get_object (root), r);
  g_object_unref (parser);
  if (rd.error) {
    g_propagate_error (error, rd.error);
    gst_ax_report_unref (r);
    return NULL;
  }
  return r;
}
