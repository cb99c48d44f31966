/* gst-ax
 * Copyright (C) 2026 gst-ax developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

/* Read-only accessors of a GstAxReport, for applications and language
 * bindings that would rather not index its GArray and GPtrArray fields
 * themselves: each section's entries by index, a row by name, a model's
 * device entry, and the stored verdict as a GstAxReportVerdict. */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstaxreport-fields.h"

#include <string.h>

/* how the verdict text starts each reading step: "  1. ", "  2. ", ... */
#define STEP_INDENT "  "
#define SIMULATOR_WARNING "WARNING: the simulator cannot keep pace"

/**
 * gst_ax_report_get_latency:
 * @report: a report
 *
 * Returns: (transfer none) (nullable): the end-to-end latency, %NULL when
 *   the report has none (`latency_absent` says why, or the report was
 *   refused)
 *
 * Since: 0.2
 */
const GstAxReportLatency *
gst_ax_report_get_latency (const GstAxReport * report)
{
  g_return_val_if_fail (report != NULL, NULL);

  if (report->refusal || report->latency_absent)
    return NULL;
  return &report->latency;
}

/**
 * gst_ax_report_find_row:
 * @report: a report
 * @group_name: (nullable): the group to look in, %NULL for any
 * @name: the row's name, e.g. "axnms0" or "src (create)"
 * @group: (out) (optional) (transfer none): the row's group
 *
 * Finds a row by name, in the groups' order.
 *
 * Returns: (transfer none) (nullable): the first row named @name, %NULL
 *   if none is
 *
 * Since: 0.2
 */
const GstAxReportRow *
gst_ax_report_find_row (const GstAxReport * report, const gchar * group_name,
    const gchar * name, const GstAxReportGroup ** group)
{
  guint i, j;

  g_return_val_if_fail (report != NULL, NULL);
  g_return_val_if_fail (name != NULL, NULL);

  for (i = 0; i < report->groups->len; i++) {
    const GstAxReportGroup *g = g_ptr_array_index (report->groups, i);

    if (group_name && g_strcmp0 (g->name, group_name) != 0)
      continue;
    for (j = 0; j < g->rows->len; j++) {
      const GstAxReportRow *row = &g_array_index (g->rows, GstAxReportRow, j);

      if (g_strcmp0 (row->name, name) == 0) {
        if (group)
          *group = g;
        return row;
      }
    }
  }
  return NULL;
}

/**
 * gst_ax_report_device_get_occupancy:
 * @report: a report
 * @device: one of @report's device entries
 *
 * Returns: (transfer none) (nullable): the simulated device @device's
 *   model ran on, with every model's share of it; %NULL when it is not
 *   listed
 *
 * Since: 0.2
 */
const GstAxReportDeviceOccupancy *
gst_ax_report_device_get_occupancy (const GstAxReport * report,
    const GstAxReportDevice * device)
{
  g_return_val_if_fail (report != NULL, NULL);
  g_return_val_if_fail (device != NULL, NULL);

  if (device->occupancy_index == 0 ||
      device->occupancy_index > report->device_occupancy->len)
    return NULL;
  return &g_array_index (report->device_occupancy,
      GstAxReportDeviceOccupancy, device->occupancy_index - 1);
}

/**
 * gst_ax_report_get_verdict:
 * @report: a report whose verdict is set (the tracer's reports, a report
 *   read by gst_ax_report_new_from_json(), or after
 *   gst_ax_report_set_verdict())
 *
 * The verdict the report carries, as a #GstAxReportVerdict: the same
 * kind, names, sentence and text as when it was set, its steps split
 * from the text. gst_ax_report_make_verdict() instead judges the
 * report's figures afresh.
 *
 * Returns: (transfer full): the verdict; free it with
 *   gst_ax_report_verdict_free()
 *
 * Since: 0.2
 */
GstAxReportVerdict *
gst_ax_report_get_verdict (const GstAxReport * report)
{
  GstAxReportVerdict *v;
  const GstAxReportGroup *group = NULL;
  gchar **lines;
  GString *step = NULL;
  guint i;

  g_return_val_if_fail (report != NULL, NULL);

  v = g_new0 (GstAxReportVerdict, 1);
  v->kind = report->constraint_kind;
  v->element = g_strdup (report->constraint_element);
  v->row = g_strdup (report->constraint_row);
  if (v->row && gst_ax_report_find_row (report, NULL, v->row, &group))
    v->group = g_strdup (group->name);
  v->queue = g_strdup (report->constraint_queue);
  v->model = g_strdup (report->constraint_model);
  v->constraint = g_strdup (report->constraint);
  v->text = g_strdup (report->verdict);
  v->steps = g_ptr_array_new_with_free_func (g_free);
  v->simulator_lags = report->verdict &&
      strstr (report->verdict, SIMULATOR_WARNING) != NULL;
  lines = g_strsplit (report->verdict ? report->verdict : "", "\n", -1);
  for (i = 0; lines[i]; i++) {
    const gchar *l = lines[i];
    gboolean starts = g_str_has_prefix (l, STEP_INDENT) &&
        g_ascii_isdigit (l[strlen (STEP_INDENT)]);

    if (*l == '\0' && lines[i + 1] == NULL)
      break;
    /* a step's continuation lines stay with it */
    if (starts || step == NULL) {
      if (step)
        g_ptr_array_add (v->steps, g_string_free (step, FALSE));
      step = g_string_new (l);
    } else {
      g_string_append_printf (step, "\n%s", l);
    }
  }
  if (step)
    g_ptr_array_add (v->steps, g_string_free (step, FALSE));
  g_strfreev (lines);
  return v;
}

/**
 * gst_ax_report_get_rows:
 * @report: a report
 *
 * Every row of the per-operator/stage table as a dictionary, the form a
 * language binding reads most easily (PyGObject's `unpack()` makes it a
 * list of dicts). The rows come group by group, the groups ranked (most
 * expensive first) and each group's rows in execution order, as
 * gst_ax_report_get_group() and gst_ax_report_group_get_row() give them.
 * Each dictionary holds the row's figures under the names of its JSON
 * members (docs/report-json.md):
 *
 * - `group` (s): the group's name (model, named bin or "pipeline");
 * - `name` (s, when set), `kind` (s: "element", "task" or "reported"),
 *   and `element` (s) when the row has one;
 * - `mean_ms`, `cpu_ms`, `faults`, `min_ms`, `max_ms`, `total_ms`,
 *   `worker_cpu_ms`, `cpu_wait_ms` (d);
 * - `count`, `out_bytes` (t); `workers` (u); `rank` (i, -1 when not
 *   known); `inactive` (b);
 * - `flags` (s): the Flag column, e.g. "DEVICE WAIT" or "" (see
 *   gst_ax_report_row_flags_to_string()), where the JSON has an array;
 * - and every member a later version adds to the rows (one of the field
 *   table, gstaxreport-fields.def).
 *
 * Returns: (transfer full): an `aa{sv}` variant, empty when the report
 *   has no rows (`groups_absent` says why)
 *
 * Since: 0.2
 */
GVariant *
gst_ax_report_get_rows (const GstAxReport * report)
{
  GVariantBuilder rows;
  guint i, j;

  g_return_val_if_fail (report != NULL, NULL);

  g_variant_builder_init (&rows, G_VARIANT_TYPE ("aa{sv}"));
  for (i = 0; i < report->groups->len; i++) {
    const GstAxReportGroup *g = g_ptr_array_index (report->groups, i);

    for (j = 0; j < g->rows->len; j++) {
      const GstAxReportRow *row = &g_array_index (g->rows, GstAxReportRow, j);
      GVariantBuilder d;

      g_variant_builder_init (&d, G_VARIANT_TYPE_VARDICT);
      g_variant_builder_add (&d, "{sv}", "group",
          g_variant_new_string (g->name ? g->name : ""));
      /* its JSON members, from the field table */
      gst_ax_fields_to_vardict (gst_ax_report_row_desc, row, &d);
      g_variant_builder_add_value (&rows, g_variant_builder_end (&d));
    }
  }
  return g_variant_ref_sink (g_variant_builder_end (&rows));
}
