/* gst-ax
 * Copyright (C) 2026 gst-ax developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

/* The report's JSON twin: gst_ax_report_to_json() writes it and
 * gst_ax_report_new_from_json() reads it back, member for member, so
 * that rendering what was read gives the same JSON. Both walk the field
 * table (gstaxreport-fields.def): this file holds only the sections'
 * frame, the order of the sections and when one is absent. The reader
 * keeps the first error and the path of the member it is at
 * ("groups[1].rows[0].count"), so that every message names what was wrong
 * where. */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstaxreport-fields.h"
#include "gstaxprojection-private.h"

#include <json-glib/json-glib.h>
#include <math.h>
#include <string.h>

/* G_DEFINE_QUARK's first argument is the name itself, not a string:
 * gst-indent would read it as a subtraction and space it out */
/* *INDENT-OFF* */
G_DEFINE_QUARK (gst-ax-report-error-quark, gst_ax_report_error);
/* *INDENT-ON* */

#define fail gst_ax_fields_fail
#define node_kind gst_ax_fields_node_kind
#define REPORT gst_ax_report_desc

/* ---- writing ---- */

/* name: {"absent": the reason in the field @absent} */
static void
write_absent (const GstAxReport * r, JsonBuilder * b, const gchar * name,
    const gchar * absent)
{
  json_builder_set_member_name (b, name);
  json_builder_begin_object (b);
  gst_ax_fields_write_one (REPORT, r, absent, r, b);
  json_builder_end_object (b);
}

/* name: {the members of @section} */
static void
write_object (const GstAxReport * r, JsonBuilder * b, const gchar * name,
    GstAxFieldSection section)
{
  json_builder_set_member_name (b, name);
  json_builder_begin_object (b);
  gst_ax_fields_write (REPORT, r, section, r, b);
  json_builder_end_object (b);
}

/* name: {the members of @section}, or {"absent": reason} while the field
 * @absent is set */
static void
write_object_section (const GstAxReport * r, JsonBuilder * b,
    const gchar * name, GstAxFieldSection section, const gchar * absent,
    const gchar * why)
{
  if (why)
    write_absent (r, b, name, absent);
  else
    write_object (r, b, name, section);
}

/* an array section: its array member, or {"absent": reason} */
static void
write_array_section (const GstAxReport * r, JsonBuilder * b,
    const gchar * name, GstAxFieldSection section, const gchar * absent,
    const gchar * why)
{
  if (why)
    write_absent (r, b, name, absent);
  else
    gst_ax_fields_write (REPORT, r, section, r, b);
}

static void
write_latency (const GstAxReport * r, JsonBuilder * b)
{
  json_builder_set_member_name (b, "latency");
  json_builder_begin_object (b);
  gst_ax_fields_write_one (REPORT, r, "latency_serial", r, b);
  if (r->latency_absent) {
    gst_ax_fields_write_one (REPORT, r, "latency_absent", r, b);
    gst_ax_fields_write_one (REPORT, r, "latency_unmatched", r, b);
  } else {
    gst_ax_fields_write_one (gst_ax_report_latency_desc, &r->latency, "n", r,
        b);
    gst_ax_fields_write (REPORT, r, GST_AX_SECTION_LATENCY, r, b);
    gst_ax_fields_write (gst_ax_report_latency_desc, &r->latency,
        GST_AX_SECTION_ITEM, r, b);
  }
  json_builder_end_object (b);
}

/**
 * gst_ax_report_to_json:
 * @report: a report
 *
 * Renders the report as JSON (schema #GST_AX_REPORT_SCHEMA, documented in
 * docs/report-json.md). Absent sections are objects with one member,
 * "absent", holding the reason. A refused report carries only the
 * refusal.
 *
 * Returns: (transfer full): the JSON text
 *
 * Since: 0.2
 */
gchar *
gst_ax_report_to_json (const GstAxReport * report)
{
  const GstAxReport *r = report;
  JsonBuilder *b = json_builder_new ();
  JsonGenerator *gen;
  JsonNode *root;
  gchar *out;

  g_return_val_if_fail (report != NULL, NULL);

  /* the sections in the schema's order; their members come from the
   * field table (gstaxreport-fields.def) */
  json_builder_begin_object (b);
  json_builder_set_member_name (b, "schema");
  json_builder_add_string_value (b, GST_AX_REPORT_SCHEMA);
  gst_ax_fields_write (REPORT, r, GST_AX_SECTION_HEAD, r, b);
  if (r->status == GST_AX_REPORT_STATUS_INTERVAL)
    write_object (r, b, "interval", GST_AX_SECTION_INTERVAL);
  if (r->error_element || r->error_message) {
    write_object (r, b, "error", GST_AX_SECTION_ERROR);
  } else {
    json_builder_set_member_name (b, "error");
    json_builder_add_null_value (b);
  }
  gst_ax_fields_write (REPORT, r, GST_AX_SECTION_TRUST, r, b);
  if (r->refusal == NULL) {
    write_latency (r, b);
    write_array_section (r, b, "groups", GST_AX_SECTION_GROUPS,
        "groups_absent", r->groups_absent);
    write_object_section (r, b, "host_device_share", GST_AX_SECTION_SHARE,
        "share_absent", r->share_absent);
    write_object_section (r, b, "throughput", GST_AX_SECTION_THROUGHPUT,
        "throughput_absent", r->throughput_absent);
    write_object_section (r, b, "cpu", GST_AX_SECTION_CPU, "cpu_absent",
        r->cpu_absent);
    /* only a run split into streams has the member */
    if (r->streams->len > 0)
      gst_ax_fields_write (REPORT, r, GST_AX_SECTION_STREAMS, r, b);
    write_array_section (r, b, "queues", GST_AX_SECTION_QUEUES,
        "queues_absent", r->queues_absent);
    gst_ax_fields_write (REPORT, r, GST_AX_SECTION_QOS, r, b);
    write_array_section (r, b, "devices", GST_AX_SECTION_DEVICES,
        "devices_absent", r->devices_absent);
    /* absent with the devices, for the same reason */
    write_array_section (r, b, "device_occupancy", GST_AX_SECTION_OCCUPANCY,
        "devices_absent", r->devices_absent);
    write_object (r, b, "profiler", GST_AX_SECTION_PROFILER);
    gst_ax_fields_write (REPORT, r, GST_AX_SECTION_TAIL, r, b);
    write_object (r, b, "verdict", GST_AX_SECTION_VERDICT);
    gst_ax_projection_to_json (r, b);
  }
  json_builder_end_object (b);

  root = json_builder_get_root (b);
  gen = json_generator_new ();
  json_generator_set_pretty (gen, TRUE);
  json_generator_set_root (gen, root);
  out = json_generator_to_data (gen, NULL);
  g_object_unref (gen);
  json_node_unref (root);
  g_object_unref (b);
  return out;
}

/* ---- reading ---- */

typedef GstAxFieldReader Reader;

static JsonObject *
read_object (Reader * rd, JsonObject * o, const gchar * name)
{
  JsonNode *node;

  if (rd->error)
    return NULL;
  node = json_object_get_member (o, name);
  if (node == NULL) {
    fail (rd, "", name, "missing");
    return NULL;
  }
  if (!JSON_NODE_HOLDS_OBJECT (node)) {
    fail (rd, "", name, "expected an object, got %s", node_kind (node));
    return NULL;
  }
  return json_node_get_object (node);
}

/* {"absent": reason} into the field @absent (%NULL for anything else) */
static gboolean
read_absent (Reader * rd, JsonObject * o, const gchar * name,
    GstAxReport * r, const gchar * absent)
{
  if (!json_object_has_member (o, "absent"))
    return FALSE;
  gst_ax_fields_read_one (rd, REPORT, r, absent, o, name);
  return TRUE;
}

static void
read_object_section (Reader * rd, JsonObject * root, const gchar * name,
    GstAxReport * r, GstAxFieldSection section, const gchar * absent)
{
  JsonObject *o = read_object (rd, root, name);

  if (o && !read_absent (rd, o, name, r, absent))
    gst_ax_fields_read (rd, REPORT, r, section, o, name);
}

/* An array section: the array, or {"absent": reason}. */
static void
read_array_section (Reader * rd, JsonObject * root, const gchar * name,
    GstAxReport * r, GstAxFieldSection section, const gchar * absent)
{
  JsonNode *node = rd->error ? NULL : json_object_get_member (root, name);

  if (node && JSON_NODE_HOLDS_OBJECT (node)) {
    JsonObject *o = json_node_get_object (node);

    if (!read_absent (rd, o, name, r, absent) || (absent && !rd->error &&
            G_STRUCT_MEMBER (gchar *, r,
                gst_ax_fields_find (REPORT, absent)->offset) == NULL))
      fail (rd, name, "absent", "expected the reason the section is absent");
    return;
  }
  if (node && !JSON_NODE_HOLDS_ARRAY (node)) {
    fail (rd, "", name, "expected an array or {\"absent\": reason}, got %s",
        node_kind (node));
    return;
  }
  gst_ax_fields_read (rd, REPORT, r, section, root, "");
}

static void
read_latency (Reader * rd, JsonObject * root, GstAxReport * r)
{
  JsonObject *o = read_object (rd, root, "latency");

  if (o == NULL)
    return;
  gst_ax_fields_read_one (rd, REPORT, r, "latency_serial", o, "latency");
  gst_ax_fields_read_one (rd, REPORT, r, "latency_unmatched", o, "latency");
  if (read_absent (rd, o, "latency", r, "latency_absent"))
    return;
  gst_ax_fields_read_one (rd, gst_ax_report_latency_desc, &r->latency, "n",
      o, "latency");
  gst_ax_fields_read (rd, REPORT, r, GST_AX_SECTION_LATENCY, o, "latency");
  gst_ax_fields_read (rd, gst_ax_report_latency_desc, &r->latency,
      GST_AX_SECTION_ITEM, o, "latency");
}

/* DERIVED (GstAxReportDevice.occupancy_index): each model entry to the
 * device it ran on: the occupancy entry of the same device that lists its
 * model, the first not yet taken, as the tracer lists them in the order
 * of the devices. */
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

/* the inverse of gst_ax_report_to_json(), section for section */
static void
read_report (Reader * rd, JsonObject * root, GstAxReport * r)
{
  JsonNode *error;
  gchar *absent;

  gst_ax_fields_read (rd, REPORT, r, GST_AX_SECTION_HEAD, root, "");
  if (!rd->error && r->status == GST_AX_REPORT_STATUS_INTERVAL) {
    JsonObject *o = read_object (rd, root, "interval");

    if (o)
      gst_ax_fields_read (rd, REPORT, r, GST_AX_SECTION_INTERVAL, o,
          "interval");
  }
  /* "error": null, or the ERROR message that ended the run */
  error = json_object_get_member (root, "error");
  if (error && !JSON_NODE_HOLDS_NULL (error)) {
    JsonObject *o = read_object (rd, root, "error");

    if (o)
      gst_ax_fields_read (rd, REPORT, r, GST_AX_SECTION_ERROR, o, "error");
  }
  gst_ax_fields_read (rd, REPORT, r, GST_AX_SECTION_TRUST, root, "");
  /* a refused report carries nothing more */
  if (r->refusal || rd->error)
    return;
  read_latency (rd, root, r);
  read_array_section (rd, root, "groups", r, GST_AX_SECTION_GROUPS,
      "groups_absent");
  read_object_section (rd, root, "host_device_share", r,
      GST_AX_SECTION_SHARE, "share_absent");
  read_object_section (rd, root, "throughput", r, GST_AX_SECTION_THROUGHPUT,
      "throughput_absent");
  read_object_section (rd, root, "cpu", r, GST_AX_SECTION_CPU, "cpu_absent");
  gst_ax_fields_read (rd, REPORT, r, GST_AX_SECTION_STREAMS, root, "");
  read_array_section (rd, root, "queues", r, GST_AX_SECTION_QUEUES,
      "queues_absent");
  gst_ax_fields_read (rd, REPORT, r, GST_AX_SECTION_QOS, root, "");
  read_array_section (rd, root, "devices", r, GST_AX_SECTION_DEVICES,
      "devices_absent");
  /* absent with the devices, for the same reason: the reason is the
   * devices' */
  absent = r->devices_absent;
  r->devices_absent = NULL;
  read_array_section (rd, root, "device_occupancy", r,
      GST_AX_SECTION_OCCUPANCY, "devices_absent");
  g_free (r->devices_absent);
  r->devices_absent = absent;
  link_occupancy (r);
  gst_ax_fields_read (rd, REPORT, r, GST_AX_SECTION_PROFILER,
      read_object (rd, root, "profiler"), "profiler");
  gst_ax_fields_read (rd, REPORT, r, GST_AX_SECTION_TAIL, root, "");
  gst_ax_fields_read (rd, REPORT, r, GST_AX_SECTION_VERDICT,
      read_object (rd, root, "verdict"), "verdict");
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
