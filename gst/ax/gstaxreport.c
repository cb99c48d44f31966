/* gst-ax
 * Copyright (C) 2026 gst-ax developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

/**
 * SECTION:gstaxreport
 * @title: GstAxReport
 * @short_description: the benchmark report model, text and JSON
 *
 * A #GstAxReport holds every section of the benchmark report as numbers.
 * The axprof tracer fills one at EOS; the benchmark CLI prints the same
 * structure, so both front doors print identical reports. Rendering to
 * text and to JSON reads only the model, so the two carry the same
 * numbers. The JSON schema is documented in docs/report-json.md. The
 * verdict is made from the filled model too (gstaxverdict.c).
 *
 * gst_ax_report_get_for_pipeline() asks the active profiler (registered
 * with gst_ax_report_set_provider()) for the report of a running pipeline.
 */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstaxreport-fields.h"
#include "gstax-private.h"
#include "gstaxprojection-private.h"

#include <json-glib/json-glib.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#define NAME_WIDTH 35
#define GROUP_NAME_WIDTH 33
#define QUEUE_NAME_WIDTH 20
#define STREAM_NAME_WIDTH 10
#define SINK_NAME_WIDTH 20
#define PERCENT 100.0

static GMutex provider_lock;
static GstAxReportProvider provider_func;
static gpointer provider_data;

/**
 * gst_ax_report_new:
 *
 * Returns: (transfer full): an empty report: every section is present and
 *   empty, sampling is off (1) and faults count as measured on Linux
 *
 * Since: 0.2
 */
GstAxReport *
gst_ax_report_new (void)
{
  GstAxReport *r = g_new0 (GstAxReport, 1);

  r->ref_count = 1;
  gst_ax_fields_init (gst_ax_report_desc, r);
  r->sample = 1;
#ifdef __linux__
  r->faults_measured = TRUE;
#endif
  r->latency.p999_ms = NAN;
  return r;
}

/**
 * gst_ax_report_copy:
 * @report: a report
 *
 * A deep copy of @report: every field, string and array, its own.
 *
 * Returns: (transfer full): the copy, with one reference
 *
 * Since: 0.2
 */
GstAxReport *
gst_ax_report_copy (const GstAxReport * report)
{
  GstAxReport *r;

  g_return_val_if_fail (report != NULL, NULL);

  r = g_new0 (GstAxReport, 1);
  r->ref_count = 1;
  gst_ax_fields_copy (gst_ax_report_desc, r, report);
  gst_ax_projection_copy (r, report);
  return r;
}

G_DEFINE_BOXED_TYPE (GstAxReport, gst_ax_report, gst_ax_report_ref,
    gst_ax_report_unref);

/**
 * gst_ax_report_ref:
 * @report: a report
 *
 * Returns: (transfer full): @report, with one more reference
 *
 * Since: 0.2
 */
GstAxReport *
gst_ax_report_ref (GstAxReport * report)
{
  g_return_val_if_fail (report != NULL, NULL);
  g_atomic_int_inc (&report->ref_count);
  return report;
}

/**
 * gst_ax_report_free:
 * @report: (transfer full) (nullable): a report
 *
 * The same as gst_ax_report_unref().
 *
 * Since: 0.2
 */
void
gst_ax_report_free (GstAxReport * report)
{
  gst_ax_report_unref (report);
}

/**
 * gst_ax_report_unref:
 * @report: (transfer full) (nullable): a report
 *
 * Drops a reference; the last one frees the report.
 *
 * Since: 0.2
 */
void
gst_ax_report_unref (GstAxReport * report)
{
  if (report == NULL || !g_atomic_int_dec_and_test (&report->ref_count))
    return;
  gst_ax_report_projection_free (report->projection);
  gst_ax_fields_clear (gst_ax_report_desc, report);
  g_free (report);
}

static gint
compare_doubles (gconstpointer a, gconstpointer b)
{
  gdouble x = *(const gdouble *) a, y = *(const gdouble *) b;

  return x < y ? -1 : x > y;
}

/* nearest rank: the smallest sample with at least @q of them at or below */
static gdouble
sorted_percentile (const gdouble * sorted, guint n, gdouble q)
{
  gdouble rank = ceil (q * n);

  return sorted[(guint) CLAMP (rank, 1, n) - 1];
}

/**
 * gst_ax_report_latency_from_samples:
 * @latency: (out caller-allocates): filled
 * @samples_ms: (array length=n): latencies in ms, in any order
 * @n: how many
 *
 * The latency statistics of the report from individual samples, with
 * exact (nearest-rank) percentiles; p99.9 is NAN under
 * #GST_AX_REPORT_MIN_P999_SAMPLES samples.
 *
 * Since: 0.2
 */
void
gst_ax_report_latency_from_samples (GstAxReportLatency * latency,
    const gdouble * samples_ms, guint n)
{
  gdouble *sorted, sum = 0, sumsq = 0, mean;
  guint i;

  g_return_if_fail (latency != NULL);
  g_return_if_fail (samples_ms != NULL || n == 0);

  memset (latency, 0, sizeof (*latency));
  latency->p999_ms = NAN;
  if (n == 0)
    return;
  sorted = g_memdup2 (samples_ms, n * sizeof (gdouble));
  qsort (sorted, n, sizeof (gdouble), compare_doubles);
  for (i = 0; i < n; i++) {
    sum += sorted[i];
    sumsq += sorted[i] * sorted[i];
  }
  mean = sum / n;
  latency->n = n;
  latency->min_ms = sorted[0];
  latency->max_ms = sorted[n - 1];
  latency->mean_ms = mean;
  latency->stddev_ms = sqrt (MAX (sumsq / n - mean * mean, 0));
  latency->jitter_ms = latency->max_ms - latency->min_ms;
  latency->p50_ms = sorted_percentile (sorted, n, 0.50);
  latency->p95_ms = sorted_percentile (sorted, n, 0.95);
  latency->p99_ms = sorted_percentile (sorted, n, 0.99);
  if (n >= GST_AX_REPORT_MIN_P999_SAMPLES)
    latency->p999_ms = sorted_percentile (sorted, n, 0.999);
  g_free (sorted);
}

/**
 * gst_ax_report_set_serial_latency:
 * @report: a report of a streamed run
 * @latency: (nullable): the latency of a serial pass over the same
 *   pipeline, one frame in it at a time
 * @absent: (nullable): why the serial pass has no latency, when
 *   @latency is %NULL
 *
 * Replaces the report's latency by a serial pass's, as gst-ax-benchmark
 * does: a frame's latency is only its own cost when no other frame is
 * queued ahead of it, while the rest of the report describes the
 * streamed run.
 *
 * Since: 0.2
 */
void
gst_ax_report_set_serial_latency (GstAxReport * report,
    const GstAxReportLatency * latency, const gchar * absent)
{
  g_return_if_fail (report != NULL);
  g_return_if_fail (latency != NULL || absent != NULL);

  g_clear_pointer (&report->latency_absent, g_free);
  report->latency_serial = TRUE;
  report->latency_unmatched = 0;
  if (latency)
    report->latency = *latency;
  else
    report->latency_absent = g_strdup (absent);
}

/* A frame of a serial pass is still warming up while it takes more than
 * this many times the median of the pass's second half, which is warm;
 * the warm-up is at most a quarter of the frames. */
#define WARMUP_RATIO 2.0
#define WARMUP_MAX_SHARE 4

static gint
compare_ms (gconstpointer a, gconstpointer b)
{
  gdouble x = *(const gdouble *) a, y = *(const gdouble *) b;

  return x < y ? -1 : x > y;
}

/**
 * gst_ax_report_serial_warmup:
 * @samples_ms: (array length=n): a serial pass's latencies, in the order
 *   the frames ran
 * @n: their number
 *
 * How many of the first frames ran before the pipeline was warm: the
 * first frame (a model's load, the first allocations, a codec's setup)
 * and those after it that still take more than twice the median of the
 * pass's second half, at most a quarter of the frames. A pass of one
 * frame has no warm-up.
 *
 * Returns: the number of warm-up frames, 0 to @n - 1
 *
 * Since: 0.2
 */
guint
gst_ax_report_serial_warmup (const gdouble * samples_ms, guint n)
{
  gdouble *tail, median;
  guint k, limit;

  if (n < 2)
    return 0;
  tail = g_memdup2 (samples_ms + n / 2, (n - n / 2) * sizeof (gdouble));
  qsort (tail, n - n / 2, sizeof (gdouble), compare_ms);
  median = tail[(n - n / 2) / 2];
  g_free (tail);
  limit = MAX (n / WARMUP_MAX_SHARE, 1);
  for (k = 1; k < limit && samples_ms[k] > WARMUP_RATIO * median; k++);
  return k;
}

/**
 * gst_ax_report_set_serial_warmup:
 * @report: a report whose latency is a serial pass's
 *   (gst_ax_report_set_serial_latency())
 * @samples_ms: (array length=n_warmup): the warm-up frames' latencies
 * @n_warmup: their number (gst_ax_report_serial_warmup())
 *
 * Records the frames a serial pass ran before the pipeline was warm,
 * which its latency leaves out: the report prints the first frame's
 * latency and the warm-up's mean apart.
 *
 * Since: 0.2
 */
void
gst_ax_report_set_serial_warmup (GstAxReport * report,
    const gdouble * samples_ms, guint n_warmup)
{
  gdouble sum = 0;
  guint i;

  g_return_if_fail (report != NULL);
  g_return_if_fail (n_warmup == 0 || samples_ms != NULL);

  for (i = 0; i < n_warmup; i++)
    sum += samples_ms[i];
  report->latency_warmup_frames = n_warmup;
  report->latency_first_frame_ms = n_warmup ? samples_ms[0] : 0;
  report->latency_warmup_mean_ms = n_warmup ? sum / n_warmup : 0;
}

/**
 * gst_ax_report_add_group:
 * @report: a report
 * @name: the group name
 *
 * Returns: (transfer none): the new group, owned by @report
 *
 * Since: 0.2
 */
GstAxReportGroup *
gst_ax_report_add_group (GstAxReport * report, const gchar * name)
{
  GstAxReportGroup *g = g_new0 (GstAxReportGroup, 1);

  gst_ax_fields_init (gst_ax_report_group_desc, g);
  g->name = g_strdup (name);
  g_ptr_array_add (report->groups, g);
  return g;
}

/**
 * gst_ax_report_group_add_row:
 * @group: a group
 * @name: the row name
 *
 * Returns: (transfer none): the new zeroed row (an element row of unknown
 *   rank); valid until the next row is added to @group
 *
 * Since: 0.2
 */
GstAxReportRow *
gst_ax_report_group_add_row (GstAxReportGroup * group, const gchar * name)
{
  GstAxReportRow row = { 0, };

  row.name = g_strdup (name);
  row.kind = GST_AX_REPORT_ROW_KIND_ELEMENT;
  row.rank = GST_AX_REPORT_RANK_UNKNOWN;
  g_array_append_val (group->rows, row);
  return &g_array_index (group->rows, GstAxReportRow, group->rows->len - 1);
}

/**
 * gst_ax_report_row_classify:
 * @row: a filled row
 *
 * Sets BLOCKED or STRONGLY BLOCKED from the ratio of mean CPU to mean
 * wall (#GST_AX_REPORT_BLOCKED_CPU_RATIO,
 * #GST_AX_REPORT_STRONGLY_BLOCKED_CPU_RATIO), where the CPU includes the
 * time the row waited for a CPU taken by other work (@cpu_wait_ms): a
 * call that computes on a busy machine does not wait on its own account.
 * DEVICE WAIT rows wait by design and are never classified; rows shorter
 * than #GST_AX_REPORT_MIN_CLASSIFIED_MS are not either.
 *
 * Since: 0.2
 */
void
gst_ax_report_row_classify (GstAxReportRow * row)
{
  gdouble wanted_ms;

  row->flags &= ~(GST_AX_REPORT_ROW_FLAG_BLOCKED |
      GST_AX_REPORT_ROW_FLAG_STRONGLY_BLOCKED);
  if (row->flags & GST_AX_REPORT_ROW_FLAG_DEVICE_WAIT)
    return;
  if (row->count == 0 || row->mean_ms < GST_AX_REPORT_MIN_CLASSIFIED_MS)
    return;
  wanted_ms = row->cpu_ms + row->cpu_wait_ms;
  if (wanted_ms < GST_AX_REPORT_STRONGLY_BLOCKED_CPU_RATIO * row->mean_ms)
    row->flags |= GST_AX_REPORT_ROW_FLAG_STRONGLY_BLOCKED;
  else if (wanted_ms < GST_AX_REPORT_BLOCKED_CPU_RATIO * row->mean_ms)
    row->flags |= GST_AX_REPORT_ROW_FLAG_BLOCKED;
}

/**
 * gst_ax_report_row_is_computing:
 * @row: a classified row (gst_ax_report_row_classify())
 *
 * The one rule for "is this row computing?": it neither waits on a device
 * by design nor is flagged BLOCKED or STRONGLY BLOCKED. A row too short to
 * classify (#GST_AX_REPORT_MIN_CLASSIFIED_MS) counts as computing.
 *
 * Returns: %TRUE if @row spends its wall time computing
 *
 * Since: 0.2
 */
gboolean
gst_ax_report_row_is_computing (const GstAxReportRow * row)
{
  return !(row->flags & (GST_AX_REPORT_ROW_FLAG_DEVICE_WAIT |
          GST_AX_REPORT_ROW_FLAG_BLOCKED |
          GST_AX_REPORT_ROW_FLAG_STRONGLY_BLOCKED));
}

/**
 * gst_ax_report_row_flags_to_string:
 * @flags: row flags
 *
 * Returns: (transfer full): the Flag column text, e.g. "STAGE BLOCKED"
 *
 * Since: 0.2
 */
gchar *
gst_ax_report_row_flags_to_string (GstAxReportRowFlags flags)
{
  GString *s = g_string_new (NULL);

  /* a device wait is shown as such alone, stage or not */
  if (flags & GST_AX_REPORT_ROW_FLAG_DEVICE_WAIT)
    g_string_append (s, "DEVICE WAIT");
  else if (flags & GST_AX_REPORT_ROW_FLAG_STAGE)
    g_string_append (s, "STAGE");
  if (flags & GST_AX_REPORT_ROW_FLAG_STRONGLY_BLOCKED)
    g_string_append_printf (s, "%sSTRONGLY BLOCKED", s->len ? " " : "");
  else if (flags & GST_AX_REPORT_ROW_FLAG_BLOCKED)
    g_string_append_printf (s, "%sBLOCKED", s->len ? " " : "");
  if (flags & GST_AX_REPORT_ROW_FLAG_WORKERS)
    g_string_append_printf (s, "%sWORKERS", s->len ? " " : "");
  return g_string_free (s, FALSE);
}

static gint
compare_groups (gconstpointer a, gconstpointer b)
{
  const GstAxReportGroup *ga = *(GstAxReportGroup * const *) a;
  const GstAxReportGroup *gb = *(GstAxReportGroup * const *) b;

  if (ga->total_ms > gb->total_ms)
    return -1;
  if (ga->total_ms < gb->total_ms)
    return 1;
  return g_strcmp0 (ga->name, gb->name);
}

/**
 * gst_ax_report_finish_groups:
 * @report: a report whose rows are filled
 *
 * Sums each group's total, computes its share of the profiled time and
 * ranks the groups by total, most expensive first. Rows keep their order.
 *
 * Since: 0.2
 */
void
gst_ax_report_finish_groups (GstAxReport * report)
{
  gdouble all_ms = 0;
  guint i, j;

  for (i = 0; i < report->groups->len; i++) {
    GstAxReportGroup *g = g_ptr_array_index (report->groups, i);

    g->total_ms = 0;
    for (j = 0; j < g->rows->len; j++)
      g->total_ms += g_array_index (g->rows, GstAxReportRow, j).total_ms;
    all_ms += g->total_ms;
  }
  for (i = 0; i < report->groups->len; i++) {
    GstAxReportGroup *g = g_ptr_array_index (report->groups, i);

    g->percent = all_ms > 0 ? 100.0 * g->total_ms / all_ms : 0;
  }
  g_ptr_array_sort (report->groups, compare_groups);
}

/**
 * gst_ax_report_add_device_occupancy:
 * @report: a report
 * @device: the device profile name
 * @device_id: which chip of @device
 *
 * Adds a device to the occupancy section, with no model yet.
 *
 * Returns: (transfer none): the new entry, valid until the next one is
 *   added
 *
 * Since: 0.2
 */
GstAxReportDeviceOccupancy *
gst_ax_report_add_device_occupancy (GstAxReport * report,
    const gchar * device, guint device_id)
{
  GstAxReportDeviceOccupancy o = { 0, };

  gst_ax_fields_init (gst_ax_report_device_occupancy_desc, &o);
  o.device = g_strdup (device);
  o.device_id = device_id;
  g_array_append_val (report->device_occupancy, o);
  return &g_array_index (report->device_occupancy,
      GstAxReportDeviceOccupancy, report->device_occupancy->len - 1);
}

/**
 * gst_ax_report_device_occupancy_add_model:
 * @occupancy: a device of the occupancy section
 * @group: the model name
 * @busy_ms: busy core time of the model's jobs on the device
 *
 * Adds a model's busy time to the device's, and shares the total out
 * again among its models.
 *
 * Since: 0.2
 */
void
gst_ax_report_device_occupancy_add_model (GstAxReportDeviceOccupancy *
    occupancy, const gchar * group, gdouble busy_ms)
{
  GstAxReportModelShare m = { g_strdup (group), busy_ms, 0 };
  guint i;

  g_array_append_val (occupancy->models, m);
  occupancy->busy_ms += busy_ms;
  for (i = 0; i < occupancy->models->len; i++) {
    GstAxReportModelShare *s = &g_array_index (occupancy->models,
        GstAxReportModelShare, i);

    s->share_percent = occupancy->busy_ms > 0 ?
        100.0 * s->busy_ms / occupancy->busy_ms : 0;
  }
}

/**
 * gst_ax_report_add_stream:
 * @report: a report whose wall time is set
 * @name: the stream's name, e.g. "stream 1"
 * @sink: (nullable): the sink element it ends in
 * @frames: frames that reached @sink
 *
 * Lists one of the run's independent streams; its fps is @frames over the
 * report's wall time, the one the throughput line divides by.
 *
 * Returns: (transfer none): the new entry, valid until the next one is
 *   added
 *
 * Since: 0.2
 */
GstAxReportStream *
gst_ax_report_add_stream (GstAxReport * report, const gchar * name,
    const gchar * sink, guint64 frames)
{
  GstAxReportStream st = { g_strdup (name), g_strdup (sink), frames, 0 };

  g_return_val_if_fail (report != NULL && name != NULL, NULL);
  if (report->wall_s > 0)
    st.fps = frames / report->wall_s;
  g_array_append_val (report->streams, st);
  return &g_array_index (report->streams, GstAxReportStream,
      report->streams->len - 1);
}

/**
 * gst_ax_report_add_warning:
 * @report: a report
 * @format: printf format
 * @...: arguments
 *
 * Adds a warning printed before the verdict.
 *
 * Since: 0.2
 */
void
gst_ax_report_add_warning (GstAxReport * report, const gchar * format, ...)
{
  va_list args;

  va_start (args, format);
  g_ptr_array_add (report->warnings, g_strdup_vprintf (format, args));
  va_end (args);
}

/**
 * gst_ax_report_status_to_string:
 * @status: a report status
 *
 * Returns: the status's name in the JSON report and the `axprof-report`
 *   bus message: "eos", "cut-short", "running", "section", "error" or
 *   "interval"
 *
 * Since: 0.2
 */
const gchar *
gst_ax_report_status_to_string (GstAxReportStatus status)
{
  switch (status) {
    case GST_AX_REPORT_STATUS_EOS:
      return "eos";
    case GST_AX_REPORT_STATUS_CUT_SHORT:
      return "cut-short";
    case GST_AX_REPORT_STATUS_SECTION:
      return "section";
    case GST_AX_REPORT_STATUS_ERROR:
      return "error";
    case GST_AX_REPORT_STATUS_INTERVAL:
      return "interval";
    case GST_AX_REPORT_STATUS_RUNNING:
    default:
      return "running";
  }
}

static void
text_header (const GstAxReport * r, GString * s)
{
  if (r->status == GST_AX_REPORT_STATUS_INTERVAL) {
    g_string_append_printf (s, "axprof report for %s (INTERVAL %u: %.1f s "
        "to %.1f s of the run, figures of that interval alone)\n",
        r->pipeline ? r->pipeline : "(unnamed)", r->interval_index,
        r->interval_start_s, r->interval_start_s + r->wall_s);
    return;
  }
  g_string_append_printf (s, "axprof report for %s (%s)\n",
      r->pipeline ? r->pipeline : "(unnamed)",
      r->status == GST_AX_REPORT_STATUS_EOS ? "EOS" :
      r->status == GST_AX_REPORT_STATUS_CUT_SHORT ?
      "CUT SHORT: stopped without EOS, figures cover the run until then" :
      r->status == GST_AX_REPORT_STATUS_SECTION ?
      "SECTION: what ran between gst_ax_profiler_start() and _stop()" :
      r->status == GST_AX_REPORT_STATUS_ERROR ?
      "ERROR: the run ended in an error, figures cover it until then" :
      "on demand, still running");
  if (r->error_element || r->error_message)
    g_string_append_printf (s, "ERROR from %s: %s\n",
        r->error_element ? r->error_element : "an element",
        r->error_message ? r->error_message : "(no message)");
  if (r->error_debug)
    g_string_append_printf (s, "  debug: %s\n", r->error_debug);
  if (r->allow_debug)
    g_string_append (s, "ALLOW-DEBUG: DEBUG logging was on and allow-debug="
        "true overrode the refusal; every timing below is inflated by "
        "logging.\n");
}

static void
text_latency (const GstAxReport * r, GString * s)
{
  const GstAxReportLatency *l = &r->latency;

  if (r->latency_absent) {
    g_string_append_printf (s, "Latency e2e%s: %s\n",
        r->latency_serial ? " (serial)" : "", r->latency_absent);
    return;
  }
  if (r->latency_serial && r->latency_warmup_frames > 0)
    g_string_append_printf (s, "Latency e2e (ms, N=%" G_GUINT64_FORMAT
        ", serial, after %u warm-up frame%s: the first took %.2f ms, the "
        "warm-up %.2f ms on average):\n", l->n, r->latency_warmup_frames,
        r->latency_warmup_frames == 1 ? "" : "s", r->latency_first_frame_ms,
        r->latency_warmup_mean_ms);
  else if (r->latency_serial)
    g_string_append_printf (s, "Latency e2e (ms, N=%" G_GUINT64_FORMAT
        ", serial):\n", l->n);
  else
    g_string_append_printf (s, "Latency e2e (ms, N=%" G_GUINT64_FORMAT
        ", %s):\n", l->n, r->pacing ? r->pacing : "pacing unknown");
  g_string_append_printf (s, "  min %.2f  mean %.2f  p50 %.2f  p95 %.2f  "
      "p99 %.2f  ", l->min_ms, l->mean_ms, l->p50_ms, l->p95_ms, l->p99_ms);
  if (isnan (l->p999_ms))
    g_string_append_printf (s, "p99.9 n/a(<%d)",
        GST_AX_REPORT_MIN_P999_SAMPLES);
  else
    g_string_append_printf (s, "p99.9 %.2f", l->p999_ms);
  g_string_append_printf (s, "  max %.2f  stddev %.2f  jitter %.2f\n",
      l->max_ms, l->stddev_ms, l->jitter_ms);
  if (r->latency_unmatched > 0)
    g_string_append_printf (s, "  UNMATCHED: %" G_GUINT64_FORMAT " sink "
        "buffers could not be matched to the frame they came from and are "
        "not in N\n", r->latency_unmatched);
}

/* The in-flight window the run streamed at, as the section headers state
 * it: "in_flight=4", or each model's window when they differ; %NULL
 * without a device. */
static gchar *
in_flight_text (const GstAxReport * r)
{
  GString *s;
  gboolean same = TRUE;
  guint i;

  if (r->devices_absent || r->devices->len == 0)
    return NULL;
  for (i = 1; i < r->devices->len; i++)
    if (g_array_index (r->devices, GstAxReportDevice, i).in_flight_window !=
        g_array_index (r->devices, GstAxReportDevice, 0).in_flight_window)
      same = FALSE;
  s = g_string_new ("in_flight=");
  for (i = 0; i < (same ? 1 : r->devices->len); i++) {
    const GstAxReportDevice *d =
        &g_array_index (r->devices, GstAxReportDevice, i);

    g_string_append_printf (s, "%s%u", i ? ", " : "", d->in_flight_window);
    if (!same)
      g_string_append_printf (s, " (%s)", d->group);
  }
  return g_string_free (s, FALSE);
}

static void
text_groups (const GstAxReport * r, GString * s)
{
  gchar *in_flight = in_flight_text (r);
  gchar *streamed = in_flight ? g_strdup_printf ("streamed at %s; ",
      in_flight) : g_strdup ("");
  guint i, j;

  if (r->groups_absent) {
    g_string_append_printf (s, "Per-operator/stage time: %s\n",
        r->groups_absent);
    g_free (in_flight);
    g_free (streamed);
    return;
  }
  if (r->sample > 1)
    g_string_append_printf (s, "Per-operator/stage time (ms; %swall on every "
        "call, CPU and faults SAMPLED on every %uth call per row), execution "
        "order within each group.\n", streamed, r->sample);
  else
    g_string_append_printf (s, "Per-operator/stage time (ms; %swall, CPU and "
        "faults on every call), execution order within each group.\n",
        streamed);
  g_free (in_flight);
  g_free (streamed);
  g_string_append (s, "  Mean/CPU/Faults are per CALL: read Count beside "
      "them; rank groups by their header, not by Mean.\n");
  if (!r->faults_measured)
    g_string_append (s, "  Faults are NOT MEASURED on this system (no "
        "per-thread usage): 0 means not measured.\n");
  g_string_append_printf (s, "    %-*s%8s%9s%9s%9s%9s%8s  %s\n", NAME_WIDTH,
      "Name", "Mean", "CPU", "Faults", "Min", "Max", "Count", "Flag");
  for (i = 0; i < r->groups->len; i++) {
    GstAxReportGroup *g = g_ptr_array_index (r->groups, i);

    /* a cascade's model runs once per detection: its cost per frame, not
     * its Mean per call, is what compares with the detector's */
    if (r->frames > 0)
      g_string_append_printf (s, "  %-*s%10.2f ms total (%.1f%% of profiled, "
          "%.2f ms per frame)\n", GROUP_NAME_WIDTH, g->name, g->total_ms,
          g->percent, g->total_ms / r->frames);
    else
      g_string_append_printf (s, "  %-*s%10.2f ms total (%.1f%% of "
          "profiled)\n", GROUP_NAME_WIDTH, g->name, g->total_ms, g->percent);
    for (j = 0; j < g->rows->len; j++) {
      GstAxReportRow *row = &g_array_index (g->rows, GstAxReportRow, j);
      gchar *flags = gst_ax_report_row_flags_to_string (row->flags);

      g_string_append_printf (s, "    %-*s%8.2f%9.2f%9.0f%9.2f%9.2f%8"
          G_GUINT64_FORMAT "  %s", NAME_WIDTH, row->name, row->mean_ms,
          row->cpu_ms, row->faults, row->min_ms, row->max_ms, row->count,
          flags);
      if (row->workers > 0)
        g_string_append_printf (s, " (%u thread%s)", row->workers,
            row->workers == 1 ? "" : "s");
      g_string_append_c (s, '\n');
      g_free (flags);
    }
  }
}

static void
text_share (const GstAxReport * r, GString * s)
{
  gchar *in_flight;
  gdouble sum;

  if (r->share_absent) {
    g_string_append_printf (s, "Host/device wall-time share: %s\n",
        r->share_absent);
    return;
  }
  sum = r->share_device_ms + r->share_host_ms;
  in_flight = in_flight_text (r);
  g_string_append_printf (s, "Host/device wall-time share (%s%s%sdevice = "
      "time per job on the device, setup + DMA in + compute + DMA out, as "
      "simnpu-compile estimates it; host = rows that are not waiting; "
      "per-frame averages, not one frame's latency decomposition):\n",
      in_flight ? "streamed at " : "", in_flight ? in_flight : "",
      in_flight ? "; " : "");
  g_free (in_flight);
  g_string_append_printf (s, "  device (inference)  %.2f ms/frame  (%.1f%% of "
      "summed wall)\n", r->share_device_ms,
      sum > 0 ? 100.0 * r->share_device_ms / sum : 0);
  g_string_append_printf (s, "  host   (pre/post)   %.2f ms/frame  (%.1f%% of "
      "summed wall)\n", r->share_host_ms,
      sum > 0 ? 100.0 * r->share_host_ms / sum : 0);
  g_string_append (s, "  device_ms is a per-frame average, not a throughput; "
      "see Occupancy below.\n");
}

static void
text_throughput (const GstAxReport * r, GString * s)
{
  gchar *in_flight;

  if (r->throughput_absent) {
    g_string_append_printf (s, "Throughput: %s\n", r->throughput_absent);
    return;
  }
  g_string_append (s, "Throughput (wall-clock, first buffer to end of "
      "run):\n");
  in_flight = in_flight_text (r);
  g_string_append_printf (s, "  %" G_GUINT64_FORMAT " frames in %.2f s  ->  "
      "%.1f fps%s%s%s\n", r->frames, r->wall_s, r->fps,
      in_flight ? "  (" : "", in_flight ? in_flight : "", in_flight ? ")" : "");
  g_free (in_flight);
  if (r->video_sinks > 1)
    g_string_append_printf (s, "  frames: video frames at %s, the busiest of "
        "%u video sinks\n", r->frames_sink ? r->frames_sink : "a sink",
        r->video_sinks);
  if (r->audio_sink)
    g_string_append_printf (s, "  audio: %" G_GUINT64_FORMAT " buffers at %s "
        "(not counted as frames)\n", r->audio_buffers, r->audio_sink);
  g_string_append_printf (s, "  host cpu %.1f%% (=%.2f cores of %u)  peak "
      "mem %.1f MB\n", r->cpu_percent, r->cores_used, r->cores_available,
      r->peak_mem_mb);
  if (r->have_sim_cpu)
    g_string_append_printf (s, "  simulator cpu %.1f%% (its own threads, "
        "reported apart; included in host cpu above)\n", r->sim_cpu_percent);
}

/* one part of the other threads' CPU, with the threads of @kind named */
static void
text_other_part (const GstAxReport * r, GString * s, const gchar * what,
    gdouble ms, const gchar * kind)
{
  gboolean first = TRUE;
  guint i;

  if (ms < 0.05)
    return;
  g_string_append_printf (s, "    %-33s%10.1f ms", what, ms);
  for (i = 0; kind && i < r->threads->len; i++) {
    const GstAxReportThread *t = &g_array_index (r->threads,
        GstAxReportThread, i);

    if (g_strcmp0 (t->kind, kind) != 0 || t->cpu_ms < 0.05)
      continue;
    g_string_append_printf (s, "%s%s %.1f", first ? "  (" : ", ", t->name,
        t->cpu_ms);
    first = FALSE;
  }
  g_string_append (s, first ? "\n" : ")\n");
}

/* Where the CPU went: the rows, and what no row holds. */
static void
text_cpu (const GstAxReport * r, GString * s)
{
  gdouble total = r->pipeline_cpu_ms;
  gboolean first = TRUE;
  guint i, j;

  if (r->cpu_absent) {
    g_string_append_printf (s, "CPU accounting: %s\n", r->cpu_absent);
    return;
  }
  g_string_append_printf (s, "CPU accounting (ms of CPU over the run, every "
      "thread of %s):\n", r->pipeline ? r->pipeline : "the pipeline");
  g_string_append_printf (s, "  rows                             %10.1f ms  "
      "%5.1f%%", r->rows_cpu_ms, total > 0 ? PERCENT * r->rows_cpu_ms /
      total : 0);
  for (i = 0; i < r->groups->len; i++) {
    GstAxReportGroup *g = g_ptr_array_index (r->groups, i);

    for (j = 0; j < g->rows->len; j++) {
      GstAxReportRow *row = &g_array_index (g->rows, GstAxReportRow, j);

      if (row->workers == 0)
        continue;
      g_string_append_printf (s, "%s%s's %u worker%s %.1f", first ?
          "  (of which " : ", ", row->name, row->workers,
          row->workers == 1 ? "" : "s", row->worker_cpu_ms);
      first = FALSE;
    }
  }
  g_string_append (s, first ? "\n" : ")\n");
  g_string_append_printf (s, "  other threads                    %10.1f ms  "
      "%5.1f%%\n", r->other_cpu_ms, total > 0 ? PERCENT * r->other_cpu_ms /
      total : 0);
  text_other_part (r, s, "streaming, outside element calls",
      r->streaming_outside_cpu_ms, NULL);
  text_other_part (r, s, "thread pools, between calls",
      r->pool_unattributed_cpu_ms, NULL);
  text_other_part (r, s, "sim-npu device threads", r->simulator_cpu_ms,
      "simulator");
  text_other_part (r, s, "not attributed", r->unattributed_cpu_ms, "other");
  text_other_part (r, s, "threads that ended", r->ended_cpu_ms, NULL);
  g_string_append_printf (s, "  pipeline total                   %10.1f ms  "
      "(the process: %.1f ms over the same wall)\n", total, r->process_cpu_ms);
}

/* Several streams into one device: each one's rate, and what they reach
 * together, which the throughput line (the busiest sink) does not give */
static void
text_streams (const GstAxReport * r, GString * s)
{
  guint64 frames = 0;
  gdouble fps = 0;
  guint i;

  if (r->streams->len == 0)
    return;
  g_string_append_printf (s, "Streams (%u, each from its own source into its "
      "own sink; fps = its frames / the wall time above):\n", r->streams->len);
  for (i = 0; i < r->streams->len; i++) {
    const GstAxReportStream *st = &g_array_index (r->streams,
        GstAxReportStream, i);

    g_string_append_printf (s, "  %-*s %-*s %8" G_GUINT64_FORMAT " frames  "
        "%8.1f fps\n", STREAM_NAME_WIDTH, st->name, SINK_NAME_WIDTH,
        st->sink ? st->sink : "", st->frames, st->fps);
    frames += st->frames;
    fps += st->fps;
  }
  g_string_append_printf (s, "  %-*s %8" G_GUINT64_FORMAT " frames  %8.1f "
      "fps  (all streams together)\n", STREAM_NAME_WIDTH + SINK_NAME_WIDTH + 1,
      "aggregate", frames, fps);
}

static void
text_queues (const GstAxReport * r, GString * s)
{
  guint i;

  if (r->queues_absent) {
    g_string_append_printf (s, "Queue depth: %s\n", r->queues_absent);
    return;
  }
  g_string_append (s, "Queue depth (buffers, time-weighted from each queue's "
      "own level; full = at a limit, empty = level 0):\n");
  for (i = 0; i < r->queues->len; i++) {
    GstAxReportQueue *q = &g_array_index (r->queues, GstAxReportQueue, i);

    g_string_append_printf (s, "  %-*s mean %.1f  min %.0f  max %.0f  ",
        QUEUE_NAME_WIDTH, q->name, q->mean, q->min, q->max);
    if (q->max_size_buffers > 0)
      g_string_append_printf (s, "at max-size-buffers=%u %.1f%% of the time",
          q->max_size_buffers, q->at_max_percent);
    else
      g_string_append (s, "no max-size-buffers limit");
    g_string_append_printf (s, "  full %.1f%%", q->full_percent);
    if (q->full_limit != NULL)
      g_string_append_printf (s, " (%s)", q->full_limit);
    g_string_append_printf (s, "  empty %.1f%%", q->empty_percent);
    if (q->leaky || q->dropped > 0)
      g_string_append_printf (s, "  dropped %" G_GUINT64_FORMAT " of %"
          G_GUINT64_FORMAT " in (%.1f%%%s%s)", q->dropped, q->input,
          q->dropped_percent, q->leaky ? ", leaky=" : "",
          q->leaky ? q->leaky : "");
    g_string_append_c (s, '\n');
  }
}

/* Drops the elements reported themselves (QoS messages); nothing when
 * none did. */
static void
text_qos (const GstAxReport * r, GString * s)
{
  guint i;

  if (r->qos->len == 0)
    return;
  g_string_append (s, "Drops reported by elements (QoS messages, counts of "
      "the last one):\n");
  for (i = 0; i < r->qos->len; i++) {
    const GstAxReportQos *q = &g_array_index (r->qos, GstAxReportQos, i);
    guint64 all = q->processed + q->dropped;

    g_string_append_printf (s, "  %-*s dropped %" G_GUINT64_FORMAT " of %"
        G_GUINT64_FORMAT " %s (%.1f%%), %" G_GUINT64_FORMAT " QoS messages\n",
        QUEUE_NAME_WIDTH, q->element, q->dropped, all,
        q->format ? q->format : "units",
        all ? PERCENT * q->dropped / all : 0.0, q->messages);
  }
}

static gboolean
first_on_device (const GstAxReport * r, const GstAxReportDevice * d, guint i)
{
  guint j;

  for (j = 0; j < i; j++)
    if (g_array_index (r->devices, GstAxReportDevice, j).occupancy_index ==
        d->occupancy_index)
      return FALSE;
  return TRUE;
}

/* A device several models share: once, with each model's share of its
 * busy time and the model's own window beneath it. */
static void
text_shared_device (const GstAxReport * r,
    const GstAxReportDeviceOccupancy * o, GString * s)
{
  guint i, j;

  g_string_append_printf (s, "  %s (device-id %u), shared by %u models:\n",
      o->device, o->device_id, o->models->len);
  g_string_append_printf (s, "  device occupancy   %.1f%%  (of %u device "
      "cores)\n", o->occupancy_percent, o->n_cores);
  g_string_append_printf (s, "  host cores used    %.2f of %u available\n",
      r->cores_used, r->cores_available);
  for (i = 0; i < o->models->len; i++) {
    const GstAxReportModelShare *m = &g_array_index (o->models,
        GstAxReportModelShare, i);
    const GstAxReportDevice *d = NULL;

    for (j = 0; j < r->devices->len && d == NULL; j++) {
      const GstAxReportDevice *c = &g_array_index (r->devices,
          GstAxReportDevice, j);

      if (gst_ax_report_device_get_occupancy (r, c) == o && g_strcmp0 (c->group,
              m->group) == 0)
        d = c;
    }
    g_string_append_printf (s, "    %-20s %5.1f%% of the device's busy time",
        m->group, m->share_percent);
    if (d)
      g_string_append_printf (s, "  in-flight depth %.1f achieved  "
          "(in-flight window %u)", d->depth, d->in_flight_window);
    g_string_append_c (s, '\n');
  }
}

static void
text_occupancy (const GstAxReport * r, GString * s)
{
  guint i;

  if (r->devices_absent) {
    g_string_append_printf (s, "Occupancy: %s (host cores used %.2f of %u "
        "available)\n", r->devices_absent, r->cores_used, r->cores_available);
    return;
  }
  g_string_append (s, "Occupancy (at the declared in-flight window; where "
      "the throughput above goes):\n");
  for (i = 0; i < r->devices->len; i++) {
    GstAxReportDevice *d = &g_array_index (r->devices, GstAxReportDevice, i);
    const GstAxReportDeviceOccupancy *o =
        gst_ax_report_device_get_occupancy (r, d);

    if (o && o->models->len > 1) {
      if (first_on_device (r, d, i))
        text_shared_device (r, o, s);
      continue;
    }
    g_string_append_printf (s, "  %s on %s:\n", d->group, d->device);
    g_string_append_printf (s, "  device occupancy   %.1f%%  (of %u device "
        "cores)\n", d->occupancy_percent, d->n_cores);
    g_string_append_printf (s, "  host cores used    %.2f of %u available\n",
        r->cores_used, r->cores_available);
    g_string_append_printf (s, "  in-flight depth    %.1f achieved  "
        "(in-flight window %u)\n", d->depth, d->in_flight_window);
    if (d->held_depth > 0)
      g_string_append_printf (s, "    of which %.1f finished frames waiting "
          "for the in-order push\n", d->held_depth);
  }
}

static void
text_device_throughput (const GstAxReport * r, GString * s)
{
  guint i;

  if (r->devices_absent) {
    g_string_append_printf (s, "Device throughput: %s\n", r->devices_absent);
    return;
  }
  g_string_append (s, "Device throughput (wall-clock, device op only; "
      "excludes host stages):\n");
  for (i = 0; i < r->devices->len; i++) {
    GstAxReportDevice *d = &g_array_index (r->devices, GstAxReportDevice, i);

    /* no modelled device time (time-scale=0): there is no rate to give */
    if (d->device_s > 0)
      g_string_append_printf (s, "  %s: %" G_GUINT64_FORMAT " jobs in %.2f s  "
          "->  %.1f fps  (in_flight=%u)\n", d->group, d->jobs, d->device_s,
          d->device_fps, d->in_flight_window);
    else
      g_string_append_printf (s, "  %s: %" G_GUINT64_FORMAT " jobs in n/a  "
          "->  n/a fps  (in_flight=%u; no modelled device time elapsed, as "
          "with time-scale=0)\n", d->group, d->jobs, d->in_flight_window);
    if (d->sim_cpu_ms > 0 || d->lag_ms > 0)
      g_string_append_printf (s, "  simulator: %.1f ms CPU of its own, "
          "functional compute lagged the device model by %.1f ms\n",
          d->sim_cpu_ms, d->lag_ms);
  }
  g_string_append (s, "  this is the fps counterpart of device_ms above: "
      "latency against throughput, not a contradiction.\n");
}

/**
 * gst_ax_report_to_text:
 * @report: a report
 *
 * Renders the report as text in the order of the reference: latency,
 * per-operator/stage time, host/device share, throughput, queue depth,
 * occupancy, device throughput, then the profiler's own cost, warnings and
 * the verdict. A refused report prints the refusal and no timings.
 *
 * Returns: (transfer full): the text
 *
 * Since: 0.2
 */
gchar *
gst_ax_report_to_text (const GstAxReport * report)
{
  GString *s = g_string_new (NULL);
  guint i;

  text_header (report, s);
  if (report->refusal) {
    g_string_append_printf (s, "Error: %s\n", report->refusal);
    return g_string_free (s, FALSE);
  }
  text_latency (report, s);
  text_groups (report, s);
  text_share (report, s);
  text_throughput (report, s);
  text_cpu (report, s);
  text_streams (report, s);
  text_queues (report, s);
  text_qos (report, s);
  text_occupancy (report, s);
  text_device_throughput (report, s);
  g_string_append_printf (s, "Profiler: own cost about %.2f us per "
      "element-buffer over %" G_GUINT64_FORMAT " element-buffers (%.1f%% of "
      "the profiled time)%s\n", report->profiler_ns_per_element_buffer /
      (gdouble) GST_USECOND,
      report->element_buffers, report->profiler_percent,
      report->sample > 1 ? "; CPU and faults sampled" : "");
  if (report->usage_reader)
    g_string_append_printf (s, "  CPU and faults read with: %s\n",
        report->usage_reader);
  if (report->usage_mode)
    g_string_append_printf (s, "  CPU and faults: %s\n", report->usage_mode);
  if (report->dropped_threads > 0)
    g_string_append_printf (s, "  %" G_GUINT64_FORMAT " records from threads "
        "beyond the per-thread slot limit were not measured\n",
        report->dropped_threads);
  for (i = 0; i < report->warnings->len; i++)
    g_string_append_printf (s, "WARNING: %s\n",
        (gchar *) g_ptr_array_index (report->warnings, i));
  gst_ax_projection_append_text (report, s);
  g_string_append_printf (s, "Verdict: the constraint is %s.\n",
      report->constraint ? report->constraint : "undetermined");
  if (report->verdict)
    g_string_append_printf (s, "%s\n", report->verdict);
  return g_string_free (s, FALSE);
}

/**
 * gst_ax_report_set_provider: (skip)
 * @provider: (nullable): the function that makes reports, %NULL to unset
 * @user_data: passed to @provider
 *
 * Registers the profiler that answers gst_ax_report_get_for_pipeline().
 * The axprof tracer registers itself when it starts.
 *
 * Since: 0.2
 */
void
gst_ax_report_set_provider (GstAxReportProvider provider, gpointer user_data)
{
  g_mutex_lock (&provider_lock);
  provider_func = provider;
  provider_data = user_data;
  g_mutex_unlock (&provider_lock);
}

/**
 * gst_ax_report_get_for_pipeline:
 * @pipeline: a pipeline profiled by the active profiler
 *
 * Makes the report of @pipeline now, before EOS too (its status is then
 * #GST_AX_REPORT_STATUS_RUNNING).
 *
 * Returns: (transfer full) (nullable): the report, or %NULL when no
 *   profiler is active (run with GST_TRACERS=axprof, or call
 *   gst_ax_profiler_enable()) or it has not seen @pipeline stream yet
 *
 * Since: 0.2
 */
GstAxReport *
gst_ax_report_get_for_pipeline (GstElement * pipeline)
{
  GstAxReportProvider func;
  gpointer data;

  g_return_val_if_fail (GST_IS_ELEMENT (pipeline), NULL);

  g_mutex_lock (&provider_lock);
  func = provider_func;
  data = provider_data;
  g_mutex_unlock (&provider_lock);
  if (func == NULL)
    return NULL;
  return func (pipeline, data);
}
