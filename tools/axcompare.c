/* gst-ax
 * Copyright (C) 2026 gst-ax developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

/* Each side is the median of its reports, figure by figure: one run of a
 * pipeline on a shared machine can be off by tens of percent, and the
 * median of three or five is what a gate in CI can trust (docs/
 * benchmarks.md). A row's CPU is compared per frame of the pipeline
 * (mean CPU per call x calls / frames), so that a row called more often
 * for the same frames counts as slower. */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "axcompare.h"

#include <math.h>
#include <string.h>

typedef struct
{
  gchar *group;
  gchar *name;
  GArray *mean_ms;              /* gdouble, one per report that has it */
  GArray *cpu_frame_ms;
} RowFigs;

typedef struct
{
  gchar *name;
  GArray *occupancy;
} DeviceFigs;

struct _AxCompareSide
{
  guint n_runs;
  gdouble fps, p50_ms, p95_ms, p99_ms;
  GPtrArray *rows;              /* RowFigs, in the first report's order */
  GHashTable *row_index;        /* "group\nname" -> RowFigs */
  GPtrArray *devices;           /* DeviceFigs */
  gchar *verdict;
};

void
ax_compare_options_init (AxCompareOptions * o)
{
  o->max_regression_percent = -1.0;
  o->noise_floor_ms = AX_COMPARE_DEFAULT_NOISE_FLOOR_MS;
}

static gint
cmp_double (gconstpointer a, gconstpointer b)
{
  gdouble x = *(const gdouble *) a, y = *(const gdouble *) b;
  return x < y ? -1 : x > y ? 1 : 0;
}

/* the median of the finite values, NAN when there are none */
static gdouble
median (const gdouble * v, guint n)
{
  gdouble *s = g_new (gdouble, MAX (n, 1));
  guint i, m = 0;
  gdouble r;

  for (i = 0; i < n; i++)
    if (isfinite (v[i]))
      s[m++] = v[i];
  if (m == 0) {
    g_free (s);
    return NAN;
  }
  qsort (s, m, sizeof s[0], cmp_double);
  r = m % 2 ? s[m / 2] : 0.5 * (s[m / 2 - 1] + s[m / 2]);
  g_free (s);
  return r;
}

static gdouble
garray_median (const GArray * a)
{
  return median ((const gdouble *) a->data, a->len);
}

static void
row_figs_free (gpointer p)
{
  RowFigs *r = p;
  g_free (r->group);
  g_free (r->name);
  g_array_unref (r->mean_ms);
  g_array_unref (r->cpu_frame_ms);
  g_free (r);
}

static void
device_figs_free (gpointer p)
{
  DeviceFigs *d = p;
  g_free (d->name);
  g_array_unref (d->occupancy);
  g_free (d);
}

static void
add_row (AxCompareSide * s, const gchar * group, const GstAxReportRow * row,
    guint64 frames)
{
  gchar *key = g_strdup_printf ("%s\n%s", group, row->name);
  RowFigs *r = g_hash_table_lookup (s->row_index, key);
  gdouble cpf = frames > 0 ? row->cpu_ms * (gdouble) row->count /
      (gdouble) frames : NAN;

  if (r == NULL) {
    r = g_new0 (RowFigs, 1);
    r->group = g_strdup (group);
    r->name = g_strdup (row->name);
    r->mean_ms = g_array_new (FALSE, FALSE, sizeof (gdouble));
    r->cpu_frame_ms = g_array_new (FALSE, FALSE, sizeof (gdouble));
    g_ptr_array_add (s->rows, r);
    g_hash_table_insert (s->row_index, key, r);
  } else {
    g_free (key);
  }
  g_array_append_val (r->mean_ms, row->mean_ms);
  g_array_append_val (r->cpu_frame_ms, cpf);
}

static void
add_device (AxCompareSide * s, const gchar * name, gdouble occupancy)
{
  DeviceFigs *d = NULL;
  guint i;

  for (i = 0; i < s->devices->len && d == NULL; i++) {
    DeviceFigs *e = g_ptr_array_index (s->devices, i);
    if (g_strcmp0 (e->name, name) == 0)
      d = e;
  }
  if (d == NULL) {
    d = g_new0 (DeviceFigs, 1);
    d->name = g_strdup (name);
    d->occupancy = g_array_new (FALSE, FALSE, sizeof (gdouble));
    g_ptr_array_add (s->devices, d);
  }
  g_array_append_val (d->occupancy, occupancy);
}

AxCompareSide *
ax_compare_side_new (GstAxReport ** reports, guint n)
{
  AxCompareSide *s = g_new0 (AxCompareSide, 1);
  gdouble *fps = g_new (gdouble, MAX (n, 1));
  gdouble *p50 = g_new (gdouble, MAX (n, 1));
  gdouble *p95 = g_new (gdouble, MAX (n, 1));
  gdouble *p99 = g_new (gdouble, MAX (n, 1));
  guint i, j, k;

  s->n_runs = n;
  s->rows = g_ptr_array_new_with_free_func (row_figs_free);
  s->row_index = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  s->devices = g_ptr_array_new_with_free_func (device_figs_free);
  for (i = 0; i < n; i++) {
    const GstAxReport *r = reports[i];
    const GstAxReportLatency *lat = gst_ax_report_get_latency (r);
    gboolean have_lat = lat != NULL && lat->n > 0;

    fps[i] = r->frames > 0 ? r->fps : NAN;
    p50[i] = have_lat ? lat->p50_ms : NAN;
    p95[i] = have_lat ? lat->p95_ms : NAN;
    p99[i] = have_lat ? lat->p99_ms : NAN;
    for (j = 0; j < gst_ax_report_get_n_groups (r); j++) {
      const GstAxReportGroup *g = gst_ax_report_get_group (r, j);
      for (k = 0; k < gst_ax_report_group_get_n_rows (g); k++)
        add_row (s, g->name, gst_ax_report_group_get_row (g, k), r->frames);
    }
    for (j = 0; j < gst_ax_report_get_n_device_occupancy (r); j++) {
      const GstAxReportDeviceOccupancy *d =
          gst_ax_report_get_device_occupancy (r, j);
      add_device (s, d->device, d->occupancy_percent);
    }
    if (i == 0) {
      GstAxReportVerdict *v = gst_ax_report_get_verdict (r);
      s->verdict = g_strdup (v && v->constraint ? v->constraint : "none");
      if (v)
        gst_ax_report_verdict_free (v);
    }
  }
  s->fps = median (fps, n);
  s->p50_ms = median (p50, n);
  s->p95_ms = median (p95, n);
  s->p99_ms = median (p99, n);
  g_free (fps);
  g_free (p50);
  g_free (p95);
  g_free (p99);
  return s;
}

AxCompareSide *
ax_compare_side_load (const gchar * paths, GError ** error)
{
  gchar **files = g_strsplit (paths, ",", -1);
  GPtrArray *reports = g_ptr_array_new_with_free_func ((GDestroyNotify)
      gst_ax_report_unref);
  AxCompareSide *side = NULL;
  guint i;

  for (i = 0; files[i] != NULL; i++) {
    gchar *text = NULL;
    GError *e = NULL;
    GstAxReport *r;
    if (files[i][0] == '\0')
      continue;
    if (!g_file_get_contents (files[i], &text, NULL, &e)) {
      g_set_error (error, e->domain, e->code, "%s", e->message);
      g_error_free (e);
      goto out;
    }
    r = gst_ax_report_new_from_json (text, &e);
    g_free (text);
    if (r == NULL) {
      g_set_error (error, e->domain, e->code, "%s: %s (expected the JSON "
          "report of axprof or gst-ax-benchmark --json)", files[i], e->message);
      g_error_free (e);
      goto out;
    }
    g_ptr_array_add (reports, r);
  }
  if (reports->len == 0) {
    g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_INVAL, "'%s' names no "
        "report file", paths);
    goto out;
  }
  side = ax_compare_side_new ((GstAxReport **) reports->pdata, reports->len);
out:
  g_ptr_array_unref (reports);
  g_strfreev (files);
  return side;
}

void
ax_compare_side_free (AxCompareSide * side)
{
  if (side == NULL)
    return;
  g_ptr_array_unref (side->rows);
  g_hash_table_unref (side->row_index);
  g_ptr_array_unref (side->devices);
  g_free (side->verdict);
  g_free (side);
}

/* ------------------------------------------------------------------ */
/* The table */

/* v in a column of width characters with decimals digits, "-" if none */
static void
append_value (GString * s, gdouble v, int width, int decimals)
{
  if (isfinite (v))
    g_string_append_printf (s, "%*.*f", width, decimals, v);
  else
    g_string_append_printf (s, "%*s", width, "-");
}

static gdouble
change_percent (gdouble a, gdouble b)
{
  return isfinite (a) && isfinite (b) && a != 0.0 ? 100.0 * (b - a) /
      fabs (a) : NAN;
}

static void
append_change (GString * s, gdouble a, gdouble b)
{
  gdouble c = change_percent (a, b);
  if (isfinite (c))
    g_string_append_printf (s, "  %+8.1f %%", c);
  else
    g_string_append_printf (s, "  %10s", "-");
}

static void
figure_line (GString * s, const gchar * label, gdouble a, gdouble b,
    int decimals)
{
  g_string_append_printf (s, "%-28s", label);
  append_value (s, a, 12, decimals);
  append_value (s, b, 12, decimals);
  append_change (s, a, b);
  g_string_append_c (s, '\n');
}

static const DeviceFigs *
find_device (const AxCompareSide * s, const gchar * name)
{
  guint i;
  for (i = 0; i < s->devices->len; i++) {
    const DeviceFigs *d = g_ptr_array_index (s->devices, i);
    if (g_strcmp0 (d->name, name) == 0)
      return d;
  }
  return NULL;
}

/* a figure over the gate: whether b is worse than a by more than pct
 * (higher_is_worse: b above a) */
static gboolean
over (gdouble a, gdouble b, gdouble pct, gboolean higher_is_worse)
{
  gdouble c = change_percent (a, b);
  if (!isfinite (c))
    return FALSE;
  return higher_is_worse ? c > pct : c < -pct;
}

static void
gate (const AxCompareSide * a, const AxCompareSide * b,
    const AxCompareOptions * o, GPtrArray * out)
{
  gdouble pct = o->max_regression_percent;
  guint i;

  if (over (a->fps, b->fps, pct, FALSE))
    g_ptr_array_add (out, g_strdup_printf ("throughput fell %.1f %% (%.2f "
            "-> %.2f fps), more than %.1f %%", -change_percent (a->fps,
                b->fps), a->fps, b->fps, pct));
  if (over (a->p95_ms, b->p95_ms, pct, TRUE))
    g_ptr_array_add (out, g_strdup_printf ("latency p95 rose %.1f %% (%.2f "
            "-> %.2f ms), more than %.1f %%", change_percent (a->p95_ms,
                b->p95_ms), a->p95_ms, b->p95_ms, pct));
  for (i = 0; i < b->rows->len; i++) {
    const RowFigs *rb = g_ptr_array_index (b->rows, i);
    gchar *key = g_strdup_printf ("%s\n%s", rb->group, rb->name);
    const RowFigs *ra = g_hash_table_lookup (a->row_index, key);
    g_free (key);
    if (ra != NULL) {
      gdouble ca = garray_median (ra->cpu_frame_ms);
      gdouble cb = garray_median (rb->cpu_frame_ms);
      if (over (ca, cb, pct, TRUE) && cb - ca > o->noise_floor_ms)
        g_ptr_array_add (out, g_strdup_printf ("row '%s' (%s): CPU per "
                "frame rose %.1f %% (%.3f -> %.3f ms), more than %.1f %% "
                "and %.3f ms", rb->name, rb->group, change_percent (ca, cb),
                ca, cb, pct, o->noise_floor_ms));
    }
  }
}

gchar *
ax_compare_format (const AxCompareSide * a, const AxCompareSide * b,
    const gchar * label_a, const gchar * label_b, const AxCompareOptions * o,
    GPtrArray ** regressions)
{
  GString *s = g_string_new (NULL);
  GPtrArray *regs = g_ptr_array_new_with_free_func (g_free);
  guint i;

  g_string_append_printf (s, "A: %s (%u run%s)\nB: %s (%u run%s)%s\n\n",
      label_a, a->n_runs, a->n_runs == 1 ? "" : "s", label_b, b->n_runs,
      b->n_runs == 1 ? "" : "s", a->n_runs > 1 || b->n_runs > 1 ?
      "\n(each figure the median over that side's runs)" : "");
  g_string_append_printf (s, "%-28s%12s%12s  %10s\n", "", "A", "B", "change");
  figure_line (s, "throughput (fps)", a->fps, b->fps, 2);
  figure_line (s, "latency p50 (ms)", a->p50_ms, b->p50_ms, 2);
  figure_line (s, "latency p95 (ms)", a->p95_ms, b->p95_ms, 2);
  figure_line (s, "latency p99 (ms)", a->p99_ms, b->p99_ms, 2);
  for (i = 0; i < b->devices->len; i++) {
    const DeviceFigs *db = g_ptr_array_index (b->devices, i);
    const DeviceFigs *da = find_device (a, db->name);
    gchar *label = g_strdup_printf ("occupancy %s (%%)", db->name);
    figure_line (s, label, da ? garray_median (da->occupancy) : NAN,
        garray_median (db->occupancy), 1);
    g_free (label);
  }

  g_string_append_printf (s, "\n%-36s %10s %10s %10s  %10s %10s %10s\n",
      "row (group)", "A mean ms", "B mean ms", "change", "A CPU/fr",
      "B CPU/fr", "change");
  for (i = 0; i < a->rows->len + b->rows->len; i++) {
    /* B's rows in B's order, then those only A has */
    const RowFigs *r = i < b->rows->len ? g_ptr_array_index (b->rows, i)
        : g_ptr_array_index (a->rows, i - b->rows->len);
    gchar *key = g_strdup_printf ("%s\n%s", r->group, r->name);
    const RowFigs *ra = g_hash_table_lookup (a->row_index, key);
    const RowFigs *rb = g_hash_table_lookup (b->row_index, key);
    gchar *label;
    gdouble ma, mb, ca, cb;
    g_free (key);
    if (i >= b->rows->len && rb != NULL)
      continue;
    ma = ra ? garray_median (ra->mean_ms) : NAN;
    mb = rb ? garray_median (rb->mean_ms) : NAN;
    ca = ra ? garray_median (ra->cpu_frame_ms) : NAN;
    cb = rb ? garray_median (rb->cpu_frame_ms) : NAN;
    label = g_strdup_printf ("%s (%s)", r->name, r->group);
    g_string_append_printf (s, "%-36s", label);
    g_free (label);
    append_value (s, ma, 11, 3);
    append_value (s, mb, 11, 3);
    append_change (s, ma, mb);
    append_value (s, ca, 11, 3);
    append_value (s, cb, 11, 3);
    append_change (s, ca, cb);
    g_string_append_c (s, '\n');
  }
  g_string_append_printf (s, "\nverdict A: %s\nverdict B: %s\n", a->verdict,
      b->verdict);

  if (o->max_regression_percent >= 0.0) {
    gate (a, b, o, regs);
    if (regs->len == 0)
      g_string_append_printf (s, "\ngate: no regression over %.1f %% "
          "(rows: and over %.3f ms CPU per frame)\n",
          o->max_regression_percent, o->noise_floor_ms);
    else
      g_string_append_printf (s, "\ngate: %u regression%s over %.1f %%:\n",
          regs->len, regs->len == 1 ? "" : "s", o->max_regression_percent);
    for (i = 0; i < regs->len; i++)
      g_string_append_printf (s, "  REGRESSION %s\n",
          (const gchar *) g_ptr_array_index (regs, i));
  }
  if (regressions)
    *regressions = regs;
  else
    g_ptr_array_unref (regs);
  return g_string_free (s, FALSE);
}
