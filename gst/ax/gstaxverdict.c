/* gst-ax
 * Copyright (C) 2026 gst-ax developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

/*
 * The verdict: the six reading steps of docs/reading-the-report.md walked
 * with one run's figures, and the constraint they lead to. It reads only
 * the report model, so the tracer, the benchmark CLI and applications
 * get the same verdict from the same report, and it is unit-tested on
 * hand-built reports (tests/ax/test-verdict.c). Every threshold is a
 * GST_AX_REPORT_* constant in gstaxreport.h, beside the row ratios.
 */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstaxreport-fields.h"
#include "gstax-private.h"
#include "gstaxprojection-private.h"

#include <string.h>

#define PERCENT 100.0
#define BYTES_PER_MB (1024.0 * 1024.0)
/* a window held by its output thread names this many of the rows after
 * the model, each at least NAMED_ROW_SHARE of the costliest one's total */
#define MAX_NAMED_ROWS 3
#define NAMED_ROW_SHARE 0.25

typedef struct
{
  const GstAxReportRow *row;
  const gchar *group;
} RowRef;

typedef gboolean (*RowFilter) (const GstAxReport * r,
    const GstAxReportRow * row, gconstpointer data);

/* The costliest row by total wall among those @accept takes, over every
 * group (ranked groups first, rows in order; the first of equals wins).
 * Rows of a branch an input-selector does not pass on never count. */
static RowRef
costliest_row (const GstAxReport * r, RowFilter accept, gconstpointer data)
{
  RowRef best = { NULL, NULL };
  guint i, j;

  for (i = 0; i < r->groups->len; i++) {
    GstAxReportGroup *g = g_ptr_array_index (r->groups, i);

    for (j = 0; j < g->rows->len; j++) {
      const GstAxReportRow *row = &g_array_index (g->rows, GstAxReportRow, j);

      if (row->inactive || (accept && !accept (r, row, data)))
        continue;
      if (best.row == NULL || row->total_ms > best.row->total_ms) {
        best.row = row;
        best.group = g->name;
      }
    }
  }
  return best;
}

/* A pipeline whose threads keep this share of the host's cores busy is
 * bound by the host's CPU, and a row that holds HOT_ROW_SHARE of its CPU
 * is what it is bound by. */
#define CPU_BOUND_RATIO 0.85
#define HOT_ROW_SHARE 0.5
/* Of a full queue's branch, a row that computes is blamed before the
 * costliest row, which waits, when it holds at least this share of that
 * row's time: a compositor's loop on its pool against its input pads
 * waiting for it, not a sink's microseconds against a throttled element. */
#define BRANCH_COMPUTING_SHARE 0.25

/* The hottest row: the most CPU in total, its element's workers
 * included, as perf would rank the element's code and threads. */
static RowRef
hottest_row (const GstAxReport * r)
{
  RowRef best = { NULL, NULL };
  gdouble best_ms = 0;
  guint i, j;

  for (i = 0; i < r->groups->len; i++) {
    GstAxReportGroup *g = g_ptr_array_index (r->groups, i);

    for (j = 0; j < g->rows->len; j++) {
      const GstAxReportRow *row = &g_array_index (g->rows, GstAxReportRow, j);
      gdouble ms = row->cpu_ms * row->count;

      if (row->inactive || (row->flags & GST_AX_REPORT_ROW_FLAG_DEVICE_WAIT))
        continue;
      if (best.row == NULL || ms > best_ms) {
        best.row = row;
        best.group = g->name;
        best_ms = ms;
      }
    }
  }
  return best;
}

/* @row's share of the pipeline's CPU (of the rows' where the report has
 * no CPU accounting) */
static gdouble
cpu_share (const GstAxReport * r, const GstAxReportRow * row)
{
  gdouble total = r->cpu_absent ? 0 : r->pipeline_cpu_ms;
  guint i, j;

  if (total <= 0) {
    for (i = 0; i < r->groups->len; i++) {
      GstAxReportGroup *g = g_ptr_array_index (r->groups, i);

      for (j = 0; j < g->rows->len; j++) {
        const GstAxReportRow *o = &g_array_index (g->rows, GstAxReportRow, j);

        total += o->cpu_ms * o->count;
      }
    }
  }
  return total > 0 ? row->cpu_ms * row->count / total : 0;
}

/* "x264enc0 takes 71% of the pipeline's CPU (10031 ms, 4 worker
 * threads included)" */
static gchar *
hot_text (const GstAxReport * r, RowRef hot)
{
  gchar *workers = hot.row->workers > 0 ?
      g_strdup_printf (", %.1f ms of it on %u worker thread%s of its own",
      hot.row->worker_cpu_ms, hot.row->workers,
      hot.row->workers == 1 ? "" : "s") : g_strdup ("");
  gchar *t = g_strdup_printf ("%s takes %.0f%% of the pipeline's CPU "
      "(%.1f ms%s)", hot.row->name, PERCENT * cpu_share (r, hot.row),
      hot.row->cpu_ms * hot.row->count, workers);

  g_free (workers);
  return t;
}

static const gchar *
row_element (const GstAxReportRow * row)
{
  return row->element ? row->element : row->name;
}

static gboolean
is_queue_row (const GstAxReport * r, const GstAxReportRow * row)
{
  guint i;

  for (i = 0; i < r->queues->len; i++) {
    const GstAxReportQueue *q = &g_array_index (r->queues, GstAxReportQueue, i);

    if (g_strcmp0 (q->element ? q->element : q->name, row_element (row)) == 0)
      return TRUE;
  }
  return FALSE;
}

static gboolean
not_queue_row (const GstAxReport * r, const GstAxReportRow * row,
    gconstpointer data)
{
  return !is_queue_row (r, row);
}

static gboolean
computing_row (const GstAxReport * r, const GstAxReportRow * row,
    gconstpointer data)
{
  return gst_ax_report_row_is_computing (row);
}

/* The rank of @q's element: that of its element row. */
static gboolean
queue_rank (const GstAxReport * r, const GstAxReportQueue * q, gint * rank)
{
  const gchar *element = q->element ? q->element : q->name;
  guint i, j;

  for (i = 0; i < r->groups->len; i++) {
    GstAxReportGroup *g = g_ptr_array_index (r->groups, i);

    for (j = 0; j < g->rows->len; j++) {
      const GstAxReportRow *row = &g_array_index (g->rows, GstAxReportRow, j);

      if (row->kind == GST_AX_REPORT_ROW_KIND_ELEMENT &&
          g_strcmp0 (row_element (row), element) == 0) {
        *rank = row->rank;
        return TRUE;
      }
    }
  }
  return FALSE;
}

/* The rank of the model @group's element: that of its element row. */
static gboolean
model_rank (const GstAxReport * r, const gchar * group, gint * rank)
{
  guint i, j;

  for (i = 0; i < r->groups->len; i++) {
    GstAxReportGroup *g = g_ptr_array_index (r->groups, i);

    if (g_strcmp0 (g->name, group) != 0)
      continue;
    for (j = 0; j < g->rows->len; j++) {
      const GstAxReportRow *row = &g_array_index (g->rows, GstAxReportRow, j);

      if (row->kind == GST_AX_REPORT_ROW_KIND_ELEMENT &&
          row->rank != GST_AX_REPORT_RANK_UNKNOWN) {
        *rank = row->rank;
        return TRUE;
      }
    }
  }
  return FALSE;
}

/* The stages axinference runs on its output thread, after the device and
 * before the push: what a window of finished frames waits for besides
 * the elements downstream. */
static const gchar *const output_thread_stages[] = {
  "postamble", "host copy out"
};

typedef struct
{
  const gchar *group;
  gint rank;
} ModelRef;

/* What a model's window of finished frames waits for: the rows after the
 * model along the links (queues apart), and its own output-thread stages. */
static gboolean
after_model (const GstAxReport * r, const GstAxReportRow * row,
    gconstpointer data)
{
  const ModelRef *m = data;
  guint i;

  if (row->kind == GST_AX_REPORT_ROW_KIND_REPORTED) {
    for (i = 0; i < G_N_ELEMENTS (output_thread_stages); i++)
      if (g_strcmp0 (row->name, output_thread_stages[i]) == 0 &&
          row->rank == m->rank)
        return TRUE;
  }
  return row->rank != GST_AX_REPORT_RANK_UNKNOWN && row->rank > m->rank &&
      !is_queue_row (r, row);
}

/* The rows after @data's rank along the links, queues apart. */
static gboolean
downstream_of (const GstAxReport * r, const GstAxReportRow * row,
    gconstpointer data)
{
  const ModelRef *m = data;

  return row->rank != GST_AX_REPORT_RANK_UNKNOWN && row->rank > m->rank &&
      !is_queue_row (r, row);
}

/* The rows of elements @data's queue feeds, queues apart. */
static gboolean
in_branch (const GstAxReport * r, const GstAxReportRow * row,
    gconstpointer data)
{
  const GstAxReportQueue *q = data;
  const gchar *element = row_element (row);
  guint i;

  if (element == NULL || is_queue_row (r, row))
    return FALSE;
  for (i = 0; i < q->branch->len; i++)
    if (strcmp (g_ptr_array_index (q->branch, i), element) == 0)
      return TRUE;
  return FALSE;
}

static gboolean
computing_in_branch (const GstAxReport * r, const GstAxReportRow * row,
    gconstpointer data)
{
  return in_branch (r, row, data) && gst_ax_report_row_is_computing (row);
}

/* What an empty queue waits for: among the rows that compute closer to
 * the sources than it, queues and reported stages apart. */
static gboolean
upstream_of_queue (const GstAxReport * r, const GstAxReportRow * row,
    gconstpointer data)
{
  const gint *rank = data;

  return row->rank < *rank && row->kind != GST_AX_REPORT_ROW_KIND_REPORTED &&
      gst_ax_report_row_is_computing (row) && !is_queue_row (r, row);
}

/* A task loop closer to the sources than @data's rank (a source's create,
 * a demuxer's loop), computing or waiting. */
static gboolean
source_task_before (const GstAxReport * r, const GstAxReportRow * row,
    gconstpointer data)
{
  const gint *rank = data;

  return row->rank < *rank && row->kind == GST_AX_REPORT_ROW_KIND_TASK &&
      !is_queue_row (r, row);
}

/* The model whose simulator fell furthest behind in total, among those
 * that fell behind per job (GST_AX_REPORT_SIM_LAG_RATIO,
 * GST_AX_REPORT_SIM_LAG_MS). */
static const GstAxReportDevice *
lagging_device (const GstAxReport * r, gdouble * lag_per_job_ms)
{
  const GstAxReportDevice *worst = NULL;
  guint i;

  *lag_per_job_ms = 0;
  for (i = 0; i < r->devices->len; i++) {
    const GstAxReportDevice *d =
        &g_array_index (r->devices, GstAxReportDevice, i);
    gdouble per_job = d->jobs ? d->lag_ms / d->jobs : 0;

    /* a model qualifies by its lag per job; among those, the one that
     * lagged most in total is named, as a cascade model's many short
     * jobs can add up to more than a detector's few long ones */
    if (per_job > MAX (GST_AX_REPORT_SIM_LAG_RATIO * d->device_ms,
            GST_AX_REPORT_SIM_LAG_MS) && (worst == NULL ||
            d->lag_ms > worst->lag_ms)) {
      worst = d;
      *lag_per_job_ms = per_job;
    }
  }
  return worst;
}

static const GstAxReportDevice *
busiest_device (const GstAxReport * r)
{
  const GstAxReportDevice *dev = NULL;
  guint i;

  for (i = 0; i < r->devices->len; i++) {
    const GstAxReportDevice *d =
        &g_array_index (r->devices, GstAxReportDevice, i);

    if (dev == NULL || d->occupancy_percent > dev->occupancy_percent)
      dev = d;
  }
  return dev;
}

static void
add_step (GstAxReportVerdict * v, gchar * step)
{
  g_ptr_array_add (v->steps, step);
}

/* Shared devices. Each model's own occupancy is its busy time over the
 * device's cores: N streams of one model, or a cascade's models, can
 * fill a device that none of them fills alone. */

typedef struct
{
  const gchar *group;
  guint count;
  gdouble share_percent;
} GroupShare;

/* The device @dev ran on, when other models ran there too. */
static const GstAxReportDeviceOccupancy *
shared_occupancy_of (const GstAxReport * r, const GstAxReportDevice * dev)
{
  const GstAxReportDeviceOccupancy *o =
      dev ? gst_ax_report_device_get_occupancy (r, dev) : NULL;

  return o && o->models->len > 1 ? o : NULL;
}

/* The busiest device that several models share, when it is occupied as
 * a whole (GST_AX_REPORT_DEVICE_BOUND_OCCUPANCY_PERCENT). */
static const GstAxReportDeviceOccupancy *
saturated_shared_device (const GstAxReport * r)
{
  const GstAxReportDeviceOccupancy *best = NULL;
  guint i;

  for (i = 0; i < r->device_occupancy->len; i++) {
    const GstAxReportDeviceOccupancy *o =
        &g_array_index (r->device_occupancy, GstAxReportDeviceOccupancy, i);

    if (o->models->len > 1 && o->occupancy_percent >=
        GST_AX_REPORT_DEVICE_BOUND_OCCUPANCY_PERCENT &&
        (best == NULL || o->occupancy_percent > best->occupancy_percent))
      best = o;
  }
  return best;
}

/* @o's models by name, the windows of one name (one per stream) summed:
 * "blazeface x8 100.0%" or "blazeface 70.0%, blazeface/emotion 30.0%";
 * @largest is the name with the largest share. */
static gchar *
shared_models_text (const GstAxReportDeviceOccupancy * o,
    const gchar ** largest)
{
  GArray *groups = g_array_new (FALSE, TRUE, sizeof (GroupShare));
  GString *s = g_string_new (NULL);
  gdouble largest_share = 0;
  guint i, j;

  for (i = 0; i < o->models->len; i++) {
    const GstAxReportModelShare *m = &g_array_index (o->models,
        GstAxReportModelShare, i);
    GroupShare *g = NULL;

    for (j = 0; j < groups->len && g == NULL; j++)
      if (g_strcmp0 (g_array_index (groups, GroupShare, j).group,
              m->group) == 0)
        g = &g_array_index (groups, GroupShare, j);
    if (g == NULL) {
      GroupShare fresh = { m->group, 0, 0 };

      g_array_append_val (groups, fresh);
      g = &g_array_index (groups, GroupShare, groups->len - 1);
    }
    g->count++;
    g->share_percent += m->share_percent;
  }
  *largest = NULL;
  for (i = 0; i < groups->len; i++) {
    const GroupShare *g = &g_array_index (groups, GroupShare, i);

    g_string_append_printf (s, "%s%s", i ? ", " : "", g->group);
    if (g->count > 1)
      g_string_append_printf (s, " x%u", g->count);
    g_string_append_printf (s, " %.1f%%", g->share_percent);
    if (*largest == NULL || g->share_percent > largest_share) {
      *largest = g->group;
      largest_share = g->share_percent;
    }
  }
  g_array_unref (groups);
  return g_string_free (s, FALSE);
}

/* The device is the constraint: its models together occupy it. */
static void
decide_shared_device (GstAxReportVerdict * v,
    const GstAxReportDeviceOccupancy * o)
{
  const gchar *largest;
  gchar *models = shared_models_text (o, &largest);

  v->kind = GST_AX_REPORT_CONSTRAINT_DEVICE;
  v->model = g_strdup (largest);
  v->constraint = g_strdup_printf ("the device (%s device-id %u, %.1f%% of "
      "its %u cores occupied by the %u models that share it: %s of its busy "
      "time; more streams or models would only queue on it)", o->device,
      o->device_id, o->occupancy_percent, o->n_cores, o->models->len, models);
  g_free (models);
}

static void
name_row (GstAxReportVerdict * v, RowRef ref)
{
  v->element = g_strdup (row_element (ref.row));
  v->row = g_strdup (ref.row->name);
  v->group = g_strdup (ref.group);
}

/* 1. trust */
static void
step_trust (const GstAxReport * r, GstAxReportVerdict * v,
    const GstAxReportDevice * lagging, gdouble lag_per_job_ms)
{
  GString *s = g_string_new (NULL);

  gchar *error = NULL;

  /* an error ends the run wherever it was: never a complete run */
  if (r->status == GST_AX_REPORT_STATUS_ERROR)
    error = g_strdup_printf ("the run is INCOMPLETE: it ended in an ERROR "
        "from %s (%s), figures cover it until then",
        r->error_element ? r->error_element : "an element",
        r->error_message ? r->error_message : "no message");
  else if (r->dropped_threads > 0)
    error = g_strdup_printf ("the figures are INCOMPLETE: %" G_GUINT64_FORMAT
        " records from threads beyond the profiler's thread slots were not "
        "measured, so the verdict rests on incomplete data",
        r->dropped_threads);
  g_string_append_printf (s, "  1. Trust: %s%s%s; the profiler cost %.1f%% "
      "of the profiled time%s.", error ? error :
      r->status == GST_AX_REPORT_STATUS_CUT_SHORT ? "the run was CUT SHORT" :
      r->status == GST_AX_REPORT_STATUS_RUNNING ? "the run is still going" :
      "complete run", r->allow_debug ? ", DEBUG logging on (allow-debug)" :
      ", no DEBUG logging",
      r->sample > 1 ? ", CPU/faults sampled" : "",
      r->profiler_percent, r->warnings->len ? ", and the arithmetic checks "
      "raised warnings (above)" : "");
  /* the device model's figures stay what the modelled device would do,
   * but the pipeline waits for the host's functional compute */
  if (lagging)
    g_string_append_printf (s, "\n     WARNING: the simulator cannot keep "
        "pace with the device model: %s's functional compute lagged it by "
        "%.1f ms (%.2f ms per job over %" G_GUINT64_FORMAT " jobs against "
        "%.2f ms of modelled device time). Device figures (device_ms, "
        "occupancy, device fps) are the model's; throughput and latency are "
        "the host's.", lagging->group, lagging->lag_ms, lag_per_job_ms,
        lagging->jobs, lagging->device_ms);
  g_free (error);
  add_step (v, g_string_free (s, FALSE));
}

static gboolean
in_group (const GstAxReport * r, const GstAxReportRow * row, gconstpointer data)
{
  const GstAxReportGroup *g = data;

  return row >= &g_array_index (g->rows, GstAxReportRow, 0) &&
      row < &g_array_index (g->rows, GstAxReportRow, g->rows->len);
}

/* 2. where the wall time is: the costliest group, its own costliest row,
 * and the costliest row overall when another group holds it */
static void
step_wall_time (const GstAxReport * r, GstAxReportVerdict * v, RowRef top,
    RowRef compute)
{
  GstAxReportGroup *g0 = g_ptr_array_index (r->groups, 0);
  RowRef own = costliest_row (r, in_group, g0);
  GString *s = g_string_new (NULL);

  g_string_append_printf (s, "  2. Wall time: group %s holds %.1f%% of the "
      "profiled time", g0->name, g0->percent);
  if (own.row)
    g_string_append_printf (s, "; its costliest row is %s with %.1f ms "
        "(%.2f ms x %" G_GUINT64_FORMAT " calls)", own.row->name,
        own.row->total_ms, own.row->mean_ms, own.row->count);
  g_string_append_c (s, '.');
  if (own.row != top.row)
    g_string_append_printf (s, "\n     The costliest row overall is %s (%s) "
        "with %.1f ms (%.2f ms x %" G_GUINT64_FORMAT " calls).",
        top.row->name, top.group, top.row->total_ms, top.row->mean_ms,
        top.row->count);
  if (compute.row && compute.row != top.row)
    g_string_append_printf (s, "\n     The costliest row that computes is "
        "%s (%s) with %.1f ms (CPU %.2f of %.2f ms per call).",
        compute.row->name, compute.group, compute.row->total_ms,
        compute.row->cpu_ms, compute.row->mean_ms);
  add_step (v, g_string_free (s, FALSE));
}

/* 3. compute or waiting */
static void
step_computing (GstAxReportVerdict * v, RowRef top)
{
  const gchar *what;

  if (top.row->flags & GST_AX_REPORT_ROW_FLAG_DEVICE_WAIT)
    what = "waiting on the device by design";
  else if (gst_ax_report_row_is_computing (top.row))
    what = "computing";
  else
    what = "mostly waiting, not computing";
  add_step (v, g_strdup_printf ("  3. %s is %s: CPU %.2f of wall %.2f ms per "
          "call%s.", top.row->name, what, top.row->cpu_ms, top.row->mean_ms,
          top.row->workers > 0 ? ", its worker threads' included" : ""));
}

/* The share of @a's output that its faults per call hand over, 0 when
 * its output size is not known. */
static gdouble
fault_share (const GstAxReportRow * a)
{
  return a->out_bytes > 0 ?
      a->faults * GST_AX_REPORT_PAGE_BYTES / (gdouble) a->out_bytes : 0;
}

/* A row allocates its output when it takes many faults, and, where its
 * output size is known, they hand over a large part of that output: a
 * pooled 1.4 MB frame still takes a dozen faults in its own work. */
static gboolean
row_allocates (const GstAxReportRow * a)
{
  if (a->faults < GST_AX_REPORT_ALLOCATING_FAULTS_PER_CALL)
    return FALSE;
  return a->out_bytes == 0 ||
      fault_share (a) >= GST_AX_REPORT_ALLOCATING_OUTPUT_RATIO;
}

/* 4. allocation, for the costliest computing row (else the costliest row
 * that is not a queue's) */
static void
step_allocation (const GstAxReport * r, GstAxReportVerdict * v,
    const GstAxReportRow * a)
{
  if (!r->faults_measured)
    add_step (v, g_strdup ("  4. Allocation: faults are not measured on this "
            "system."));
  else if (a && row_allocates (a) && a->out_bytes > 0)
    add_step (v, g_strdup_printf ("  4. Allocation: %s takes %.0f page faults "
            "per call, %.0f%% of the pages of its %.2f MB output: reuse its "
            "output buffer (a pool).", a->name, a->faults,
            PERCENT * fault_share (a), a->out_bytes / BYTES_PER_MB));
  else if (a && row_allocates (a))
    add_step (v, g_strdup_printf ("  4. Allocation: %s takes %.0f page faults "
            "per call: reuse its output buffer (a pool).", a->name, a->faults));
  else if (a && a->faults >= GST_AX_REPORT_ALLOCATING_FAULTS_PER_CALL)
    add_step (v, g_strdup_printf ("  4. Allocation: %s takes %.0f faults per "
            "call, %.0f%% of the pages of its %.2f MB output: it does not "
            "make its output afresh; allocation is not what costs.", a->name,
            a->faults, PERCENT * fault_share (a), a->out_bytes / BYTES_PER_MB));
  else if (a)
    add_step (v, g_strdup_printf ("  4. Allocation: %s takes %.0f faults per "
            "call; allocation is not what costs.", a->name, a->faults));
}

/* The figure a shared device's step 5 needs besides the one model's own
 * occupancy: what all its models occupy together. */
static void
note_shared_device (const GstAxReport * r, GstAxReportVerdict * v,
    const GstAxReportDevice * dev)
{
  const GstAxReportDeviceOccupancy *o = shared_occupancy_of (r, dev);
  gchar *step;

  if (o == NULL || v->steps->len == 0)
    return;
  step = g_ptr_array_index (v->steps, v->steps->len - 1);
  v->steps->pdata[v->steps->len - 1] = g_strdup_printf ("%s\n     %s "
      "shares the device with %u other model%s: together they occupy "
      "%.1f%% of its %u cores.", step, dev->group, o->models->len - 1,
      o->models->len == 2 ? "" : "s", o->occupancy_percent, o->n_cores);
  g_free (step);
}

/* 5. which resource */
static void
step_resource (const GstAxReport * r, GstAxReportVerdict * v,
    const GstAxReportDevice * dev, gboolean lagging)
{
  if (dev && r->have_sim_cpu)
    add_step (v, g_strdup_printf ("  5. Resource: device occupancy %.1f%% of "
            "%u cores%s; host cores used %.2f of %u, %.2f of them by the "
            "simulator's own threads.", dev->occupancy_percent, dev->n_cores,
            lagging ? " (the model's)" : "", r->cores_used,
            r->cores_available, r->sim_cpu_percent / PERCENT));
  else if (dev)
    add_step (v, g_strdup_printf ("  5. Resource: device occupancy %.1f%% of "
            "%u cores; host cores used %.2f of %u.", dev->occupancy_percent,
            dev->n_cores, r->cores_used, r->cores_available));
  else
    add_step (v, g_strdup_printf ("  5. Resource: no device; host cores used "
            "%.2f of %u.", r->cores_used, r->cores_available));
  note_shared_device (r, v, dev);
}

/* Step 6's lines on buffers lost on the way: each queue that dropped,
 * each element that reported drops in QoS messages. */
static void
note_drops (const GstAxReport * r, GstAxReportVerdict * v)
{
  GString *s;
  gchar *step;
  guint i;

  if (v->steps->len == 0)
    return;
  s = g_string_new (g_ptr_array_index (v->steps, v->steps->len - 1));
  for (i = 0; i < r->queues->len; i++) {
    const GstAxReportQueue *q = &g_array_index (r->queues, GstAxReportQueue, i);

    if (q->dropped == 0)
      continue;
    g_string_append_printf (s, "\n     %s dropped %" G_GUINT64_FORMAT " of the "
        "%" G_GUINT64_FORMAT " buffers it took in (%.1f%%)", q->name,
        q->dropped, q->input, q->dropped_percent);
    if (q->leaky)
      g_string_append_printf (s, ": a leaky queue (leaky=%s) never holds its "
          "producer back, so its being full is not back-pressure; %s after "
          "it cannot keep up", q->leaky, q->downstream ? q->downstream :
          "the branch");
    g_string_append_c (s, '.');
  }
  for (i = 0; i < r->qos->len; i++) {
    const GstAxReportQos *q = &g_array_index (r->qos, GstAxReportQos, i);
    guint64 all = q->processed + q->dropped;

    if (q->dropped == 0)
      continue;
    g_string_append_printf (s, "\n     %s reported in QoS messages that it "
        "dropped %" G_GUINT64_FORMAT " of %" G_GUINT64_FORMAT " %s (%.1f%%).",
        q->element, q->dropped, all, q->format ? q->format : "units",
        all ? PERCENT * q->dropped / all : 0.0);
  }
  step = g_string_free (s, FALSE);
  g_free (v->steps->pdata[v->steps->len - 1]);
  v->steps->pdata[v->steps->len - 1] = step;
}

/* The leaky queue that drops the largest share of its input, from
 * GST_AX_REPORT_QUEUE_DROP_PERCENT; NULL if none does. */
static const GstAxReportQueue *
dropping_queue (const GstAxReport * r)
{
  const GstAxReportQueue *worst = NULL;
  guint i;

  for (i = 0; i < r->queues->len; i++) {
    const GstAxReportQueue *q = &g_array_index (r->queues, GstAxReportQueue, i);

    if (q->leaky && q->input > 0 && q->dropped_percent >=
        GST_AX_REPORT_QUEUE_DROP_PERCENT && (worst == NULL ||
            q->dropped_percent > worst->dropped_percent))
      worst = q;
  }
  return worst;
}

/* The element row of the element named @element. */
static RowRef
element_row (const GstAxReport * r, const gchar * element)
{
  RowRef ref = { NULL, NULL };
  guint i, j;

  for (i = 0; element && i < r->groups->len && ref.row == NULL; i++) {
    GstAxReportGroup *g = g_ptr_array_index (r->groups, i);

    for (j = 0; j < g->rows->len; j++) {
      const GstAxReportRow *row = &g_array_index (g->rows, GstAxReportRow, j);

      if (row->kind == GST_AX_REPORT_ROW_KIND_ELEMENT &&
          g_strcmp0 (row_element (row), element) == 0) {
        ref.row = row;
        ref.group = g->name;
        break;
      }
    }
  }
  return ref;
}

/* 6. who starves whom */
static void
step_starvation (GstAxReportVerdict * v, const GstAxReportQueue * full,
    const GstAxReportQueue * empty, const GstAxReportDevice * dev)
{
  if (full || empty) {
    const GstAxReportQueue *q = full ? full : empty;
    gboolean effect = full && v->kind == GST_AX_REPORT_CONSTRAINT_SIMULATOR;
    gboolean paced = !full && v->kind == GST_AX_REPORT_CONSTRAINT_LIVE_PACED;

    add_step (v, g_strdup_printf ("  6. Starvation: %s mean depth %.1f (max "
            "%.0f), full %.1f%%, empty %.1f%% of the time%s.", q->name,
            q->mean, q->max, q->full_percent, q->empty_percent, effect ?
            " (filled behind the simulator's pace: an effect, not the cause)"
            : paced ? " (emptied between the live source's frames: an "
            "effect of its pace, not starvation)" : ""));
  } else if (dev && dev->held_depth > 0) {
    add_step (v, g_strdup_printf ("  6. Starvation: in-flight depth %.1f of "
            "a window of %u, %.1f of them finished frames waiting for the "
            "in-order push.", dev->depth, dev->in_flight_window,
            dev->held_depth));
  } else if (dev) {
    add_step (v, g_strdup_printf ("  6. Starvation: in-flight depth %.1f of "
            "a window of %u.", dev->depth, dev->in_flight_window));
  } else {
    add_step (v, g_strdup ("  6. Starvation: no queue is mostly full or "
            "mostly empty."));
  }
}

static gchar *
sources_text (const GstAxReport * r)
{
  GString *s = g_string_new (NULL);
  guint i;

  for (i = 0; i < r->sources->len; i++)
    g_string_append_printf (s, "%s%s", i ? ", " : "",
        (const gchar *) g_ptr_array_index (r->sources, i));
  if (s->len == 0)
    g_string_append (s, "the source");
  return g_string_free (s, FALSE);
}

/* The task row of the live source that paces the run, if any. */
static RowRef
live_source_row (const GstAxReport * r)
{
  RowRef ref = { NULL, NULL };
  guint i, j;

  if (r->live_source == NULL)
    return ref;
  for (i = 0; i < r->groups->len; i++) {
    GstAxReportGroup *g = g_ptr_array_index (r->groups, i);

    for (j = 0; j < g->rows->len; j++) {
      const GstAxReportRow *row = &g_array_index (g->rows, GstAxReportRow, j);

      if (row->kind == GST_AX_REPORT_ROW_KIND_TASK && !row->inactive &&
          g_strcmp0 (row_element (row), r->live_source) == 0) {
        ref.row = row;
        ref.group = g->name;
      }
    }
  }
  return ref;
}

/* Names the rows after a model whose window its finished frames fill:
 * the costliest first, then the next ones that weigh as much. */
static gboolean
after_model_except (const GstAxReport * r, const GstAxReportRow * row,
    gconstpointer data)
{
  const gpointer *ctx = (const gpointer *) data;
  const GPtrArray *named = ctx[1];
  guint i;

  for (i = 0; i < named->len; i++)
    if (g_ptr_array_index (named, i) == row)
      return FALSE;
  return after_model (r, row, ctx[0]);
}

/* The share of the run's wall time the rows after the model take. */
static gdouble
after_model_busy (const GstAxReport * r, const ModelRef * m)
{
  gdouble ms = 0;
  guint i, j;

  if (r->wall_s <= 0)
    return 0;
  for (i = 0; i < r->groups->len; i++) {
    GstAxReportGroup *g = g_ptr_array_index (r->groups, i);

    for (j = 0; j < g->rows->len; j++) {
      const GstAxReportRow *row = &g_array_index (g->rows, GstAxReportRow, j);

      if (!row->inactive && after_model (r, row, m))
        ms += row->total_ms;
    }
  }
  return ms / (r->wall_s * (gdouble) (GST_SECOND / GST_MSECOND));
}

static gchar *
name_rows_after_model (const GstAxReport * r, const ModelRef * m,
    RowRef * first)
{
  GPtrArray *named = g_ptr_array_new ();
  gconstpointer ctx[2] = { m, named };
  GString *s = g_string_new (NULL);
  guint i;

  for (i = 0; i < MAX_NAMED_ROWS; i++) {
    RowRef ref = costliest_row (r, after_model_except, ctx);

    if (ref.row == NULL || (i > 0 && ref.row->total_ms <
            NAMED_ROW_SHARE * first->row->total_ms))
      break;
    if (i == 0)
      *first = ref;
    g_ptr_array_add (named, (gpointer) ref.row);
    g_string_append_printf (s, "%s%s (%.2f ms x %" G_GUINT64_FORMAT
        " calls%s)", i ? ", then " : "", ref.row->name, ref.row->mean_ms,
        ref.row->count, gst_ax_report_row_is_computing (ref.row) ?
        "" : ", waiting rather than computing");
  }
  g_ptr_array_unref (named);
  return g_string_free (s, FALSE);
}

/* The constraint: the first of the decisions below that holds. */
static void
decide (const GstAxReport * r, GstAxReportVerdict * v, RowRef top,
    RowRef work, RowRef compute, const GstAxReportDevice * dev,
    const GstAxReportDevice * lagging, gdouble lag_per_job_ms,
    const GstAxReportQueue * full, const GstAxReportQueue * empty)
{
  gdouble process_cpu_ms = r->cores_used * r->wall_s *
      (gdouble) (GST_SECOND / GST_MSECOND);
  RowRef live = live_source_row (r);
  RowRef hot = hottest_row (r);
  ModelRef after = { dev ? dev->group : NULL, 0 };
  gboolean window_full = dev && dev->in_flight_window > 0 && dev->depth >=
      GST_AX_REPORT_WINDOW_BOUND_DEPTH_RATIO * dev->in_flight_window;
  const GstAxReportDeviceOccupancy *shared = saturated_shared_device (r);
  const GstAxReportQueue *drops = dropping_queue (r);

  /* Frames lost in a leaky queue: the branch after it cannot keep up,
   * whatever paces the rest (a live source, a faster branch). */
  if (drops) {
    RowRef slow = element_row (r, drops->downstream);

    v->kind = GST_AX_REPORT_CONSTRAINT_DROPS;
    v->queue = g_strdup (drops->name);
    if (slow.row)
      name_row (v, slow);
    else if (drops->downstream)
      v->element = g_strdup (drops->downstream);
    if (slow.row)
      v->constraint = g_strdup_printf ("drops: the branch after %s cannot "
          "keep up: %s (%.2f ms per buffer) takes buffers slower than they "
          "come, so the leaky queue (leaky=%s) dropped %" G_GUINT64_FORMAT
          " of the %" G_GUINT64_FORMAT " buffers it took in (%.1f%%)",
          drops->name, slow.row->name, slow.row->mean_ms, drops->leaky,
          drops->dropped, drops->input, drops->dropped_percent);
    else
      v->constraint = g_strdup_printf ("drops: the branch after %s%s%s%s "
          "cannot keep up, so the leaky queue (leaky=%s) dropped %"
          G_GUINT64_FORMAT " of the %" G_GUINT64_FORMAT " buffers it took in "
          "(%.1f%%)", drops->name, drops->downstream ? " (" : "",
          drops->downstream ? drops->downstream : "",
          drops->downstream ? ")" : "", drops->leaky, drops->dropped,
          drops->input, drops->dropped_percent);
    return;
  }
  /* A live source that waits for its clock between frames is not held
   * back by anything downstream (a slower one would make it wait on its
   * push instead, which is not in its row, or fill a queue): the run
   * goes at the source's rate, whatever else is slow. */
  if (live.row && !full && !gst_ax_report_row_is_computing (live.row)) {
    v->kind = GST_AX_REPORT_CONSTRAINT_LIVE_PACED;
    name_row (v, live);
    v->constraint = g_strdup_printf ("the live source's rate: the pipeline "
        "keeps pace with its live source %s, which waits for its clock "
        "between frames (%s %.2f ms per frame, CPU %.2f ms); nothing "
        "downstream holds it back (%.1f fps)", r->live_source, live.row->name,
        live.row->mean_ms, live.row->cpu_ms, r->fps);
    return;
  }
  /* A window full of finished frames waits for what runs after the
   * device, however slow the device or the simulator: they are not what
   * holds the frames. */
  if (dev && (window_full ||
          dev->held_depth >= GST_AX_REPORT_HELD_MIN_FRAMES) &&
      dev->held_depth > 0 &&
      dev->held_depth >= GST_AX_REPORT_HELD_DEPTH_RATIO * dev->depth &&
      model_rank (r, dev->group, &after.rank) &&
      costliest_row (r, after_model, &after).row != NULL &&
      after_model_busy (r, &after) >= GST_AX_REPORT_OUTPUT_BUSY_RATIO) {
    /* the window is full of finished frames: what runs after the device
     * on the output thread, downstream, is slower than the device */
    RowRef first = { NULL, NULL };
    gchar *names = name_rows_after_model (r, &after, &first);

    v->kind = GST_AX_REPORT_CONSTRAINT_BACKPRESSURE;
    v->model = g_strdup (dev->group);
    name_row (v, first);
    v->constraint = g_strdup_printf ("back-pressure on %s's in-flight "
        "window: %.1f of %u frames in flight, %.1f of them finished and "
        "waiting for the in-order push, because what runs after the model "
        "is slower: %s", dev->group, dev->depth, dev->in_flight_window,
        dev->held_depth, names);
    g_free (names);
  } else if (lagging && lagging->sim_cpu_ms > 0 && (compute.row == NULL ||
          lagging->sim_cpu_ms >= compute.row->cpu_ms * compute.row->count)) {
    /* The simulator's threads are not element rows: when they lag their
     * model and burn more CPU than the costliest computing row, the host
     * computing the network is what the pipeline waits for (in the device
     * wait, upstream queues filling behind it). */
    v->kind = GST_AX_REPORT_CONSTRAINT_SIMULATOR;
    v->model = g_strdup (lagging->group);
    v->constraint = g_strdup_printf ("the simulator's functional compute "
        "(%s: sim-npu's own threads used %.1f ms of CPU, %.1f%% of the "
        "process's, and delivered each job %.2f ms after the device model "
        "finished it: this host computes the network slower than the "
        "modelled device runs it)", lagging->group, lagging->sim_cpu_ms,
        process_cpu_ms > 0 ? PERCENT * lagging->sim_cpu_ms / process_cpu_ms :
        0, lag_per_job_ms);
  } else if (shared) {
    /* busy in total: named with the model whose busy time dominates */
    decide_shared_device (v, shared);
  } else if (dev && dev->occupancy_percent >=
      GST_AX_REPORT_DEVICE_BOUND_OCCUPANCY_PERCENT) {
    v->kind = GST_AX_REPORT_CONSTRAINT_DEVICE;
    v->model = g_strdup (dev->group);
    v->constraint = g_strdup_printf ("the device (%s on %s, %.1f%% occupied)",
        dev->group, dev->device, dev->occupancy_percent);
  } else if (window_full) {
    v->kind = GST_AX_REPORT_CONSTRAINT_WINDOW;
    v->model = g_strdup (dev->group);
    v->constraint = g_strdup_printf ("the device at its in-flight window (%s: "
        "%.1f of %u frames in flight, %.1f%% of %u cores busy: a larger "
        "in-flight window would use the idle cores)", dev->group, dev->depth,
        dev->in_flight_window, dev->occupancy_percent, dev->n_cores);
  } else if (hot.row && r->cores_available > 0 &&
      r->cores_used >= CPU_BOUND_RATIO * r->cores_available &&
      cpu_share (r, hot.row) >= HOT_ROW_SHARE) {
    /* every core is busy, and mostly with one element's work: queues
     * fill or empty around it, but it is what the run waits for */
    gchar *hot_desc = hot_text (r, hot);

    v->kind = GST_AX_REPORT_CONSTRAINT_HOST;
    name_row (v, hot);
    v->constraint = g_strdup_printf ("the host's CPU: the pipeline keeps "
        "%.2f of %u cores busy, and %s", r->cores_used, r->cores_available,
        hot_desc);
    g_free (hot_desc);
  } else if (full) {
    gboolean waits;
    gint rank;

    /* what a full queue waits for is after it along the links, in its
     * own branch */
    if (full->branch != NULL) {
      /* of its branch, what computes (a compositor's loop on its pool)
       * before what waits (the compositor's input pads), if it holds a
       * good share of the time */
      RowRef costliest = costliest_row (r, in_branch, full);

      work = costliest_row (r, computing_in_branch, full);
      if (work.row == NULL || work.row->total_ms < BRANCH_COMPUTING_SHARE *
          costliest.row->total_ms)
        work = costliest;
    } else if (queue_rank (r, full, &rank)) {
      ModelRef down = { NULL, rank };

      work = costliest_row (r, downstream_of, &down);
    }
    waits = work.row && (work.row->flags &
        GST_AX_REPORT_ROW_FLAG_STRONGLY_BLOCKED);
    v->kind = GST_AX_REPORT_CONSTRAINT_BACKPRESSURE;
    v->queue = g_strdup (full->name);
    if (work.row)
      name_row (v, work);
    v->constraint = g_strdup_printf ("back-pressure: %s is full %.1f%% of the "
        "time because %s downstream is slower%s%s%s", full->name,
        full->full_percent, work.row ? work.row->name : "a later element",
        waits ? " (and it mostly waits: " : "",
        waits ? (r->pacing ? r->pacing : "a clock or a lock") : "",
        waits ? ")" : "");
  } else if (empty) {
    RowRef up = { NULL, NULL };
    gchar *sources = sources_text (r);
    gint rank;

    if (queue_rank (r, empty, &rank)) {
      up = costliest_row (r, upstream_of_queue, &rank);
      /* nothing upstream computes measurably (a capsfilter at 0.00 ms):
       * what the queue waits for is a source's own task */
      if (up.row == NULL || up.row->mean_ms < GST_AX_REPORT_MIN_CLASSIFIED_MS) {
        RowRef task = costliest_row (r, source_task_before, &rank);

        if (task.row)
          up = task;
      }
    }
    v->kind = GST_AX_REPORT_CONSTRAINT_SOURCE;
    v->queue = g_strdup (empty->name);
    if (up.row)
      name_row (v, up);
    else if (r->sources->len > 0)
      v->element = g_strdup (g_ptr_array_index (r->sources, 0));
    if (up.row)
      v->constraint = g_strdup_printf ("source starvation: %s is empty %.1f%% "
          "of the time, waiting on %s (the costliest work upstream of it is "
          "%s, %.2f ms per frame)", empty->name, empty->empty_percent,
          sources, up.row->name, up.row->mean_ms);
    else
      v->constraint = g_strdup_printf ("source starvation: %s is empty %.1f%% "
          "of the time, waiting on %s", empty->name, empty->empty_percent,
          sources);
    g_free (sources);
  } else if (dev && dev->in_flight_window > 0 && dev->depth <
      GST_AX_REPORT_SUBMISSION_DEPTH_RATIO * dev->in_flight_window) {
    v->kind = GST_AX_REPORT_CONSTRAINT_SUBMISSION;
    v->model = g_strdup (dev->group);
    v->constraint = g_strdup_printf ("the submission loop: %.1f frames in "
        "flight of a window of %u with the device %.1f%% occupied",
        dev->depth, dev->in_flight_window, dev->occupancy_percent);
  } else if (top.row->kind == GST_AX_REPORT_ROW_KIND_TASK &&
      g_str_has_suffix (top.row->name, "(create)")) {
    v->kind = GST_AX_REPORT_CONSTRAINT_SOURCE;
    name_row (v, top);
    v->constraint = g_strdup_printf ("source starvation: %s produces the "
        "frames slowest", top.row->name);
  } else if (top.row->kind == GST_AX_REPORT_ROW_KIND_TASK && hot.row &&
      hot.row != top.row && !gst_ax_report_row_is_computing (top.row)) {
    /* a muxer's, an aggregator's or a sink's task loop that waits for
     * its inputs holds the most wall time, but holds nothing back: the
     * work it waits for is the hottest row's */
    gchar *hot_desc = hot_text (r, hot);

    v->kind = GST_AX_REPORT_CONSTRAINT_HOST;
    name_row (v, hot);
    v->constraint = g_strdup_printf ("a host element: %s; %s, the costliest "
        "row by wall, only waits for its input", hot_desc, top.row->name);
    g_free (hot_desc);
  } else if (!gst_ax_report_row_is_computing (top.row) &&
      !(top.row->flags & GST_AX_REPORT_ROW_FLAG_DEVICE_WAIT)) {
    v->kind = GST_AX_REPORT_CONSTRAINT_BACKPRESSURE;
    name_row (v, top);
    v->constraint = g_strdup_printf ("back-pressure from %s, which waits "
        "rather than computes (%s)", top.row->name,
        r->pacing ? r->pacing : "check its sync/clock");
  } else {
    v->kind = GST_AX_REPORT_CONSTRAINT_HOST;
    name_row (v, top);
    v->constraint = g_strdup_printf ("a host element: %s", top.row->name);
  }
}

/* Whether @q is on a branch an input-selector does not pass on. */
static gboolean
queue_inactive (const GstAxReport * r, const GstAxReportQueue * q)
{
  const gchar *element = q->element ? q->element : q->name;
  guint i, j;

  for (i = 0; i < r->groups->len; i++) {
    GstAxReportGroup *g = g_ptr_array_index (r->groups, i);

    for (j = 0; j < g->rows->len; j++) {
      const GstAxReportRow *row = &g_array_index (g->rows, GstAxReportRow, j);

      if (g_strcmp0 (row_element (row), element) == 0)
        return row->inactive;
    }
  }
  return FALSE;
}

static void
mostly_full_and_empty (const GstAxReport * r, const GstAxReportQueue ** full,
    const GstAxReportQueue ** empty)
{
  guint i;

  *full = *empty = NULL;
  for (i = 0; i < r->queues->len; i++) {
    const GstAxReportQueue *q = &g_array_index (r->queues, GstAxReportQueue, i);

    if (queue_inactive (r, q))
      continue;
    /* a leaky queue makes room by dropping: it never blocks upstream */
    if (!q->leaky && q->full_percent >= GST_AX_REPORT_QUEUE_FULL_PERCENT &&
        (*full == NULL || q->full_percent > (*full)->full_percent))
      *full = q;
    if (q->empty_percent >= GST_AX_REPORT_QUEUE_EMPTY_PERCENT &&
        (*empty == NULL || q->empty_percent > (*empty)->empty_percent))
      *empty = q;
  }
}

static void
join_steps (GstAxReportVerdict * v)
{
  GString *s = g_string_new (NULL);
  guint i;

  for (i = 0; i < v->steps->len; i++)
    g_string_append_printf (s, "%s%s", i ? "\n" : "",
        (const gchar *) g_ptr_array_index (v->steps, i));
  v->text = g_string_free (s, FALSE);
}

/**
 * gst_ax_report_make_verdict:
 * @report: a filled report
 *
 * Walks the six reading steps (trust, wall time, computing or waiting,
 * allocation, resource, starvation) on @report's figures and names the
 * constraint. Reads nothing but @report. A refused report has no timings
 * to judge: its verdict is undetermined, without steps.
 *
 * Returns: (transfer full): the verdict; free with
 *   gst_ax_report_verdict_free()
 *
 * Since: 0.2
 */
GstAxReportVerdict *
gst_ax_report_make_verdict (const GstAxReport * report)
{
  GstAxReportVerdict *v = g_new0 (GstAxReportVerdict, 1);
  const GstAxReportQueue *full, *empty;
  const GstAxReportDevice *lagging;
  RowRef top, work, compute;
  gdouble lag_per_job_ms;

  g_return_val_if_fail (report != NULL, v);

  v->steps = g_ptr_array_new_with_free_func (g_free);
  v->kind = GST_AX_REPORT_CONSTRAINT_UNDETERMINED;
  if (report->refusal) {
    v->constraint = g_strdup ("undetermined (the run was refused: no "
        "timings)");
    join_steps (v);
    return v;
  }

  lagging = lagging_device (report, &lag_per_job_ms);
  v->simulator_lags = lagging != NULL;
  step_trust (report, v, lagging, lag_per_job_ms);
  top = costliest_row (report, NULL, NULL);
  if (top.row == NULL) {
    add_step (v, g_strdup ("  Nothing was measured."));
    v->constraint = g_strdup ("undetermined (no data)");
    join_steps (v);
    return v;
  }
  work = costliest_row (report, not_queue_row, NULL);
  compute = costliest_row (report, computing_row, NULL);
  mostly_full_and_empty (report, &full, &empty);

  step_wall_time (report, v, top, compute);
  step_computing (v, top);
  step_allocation (report, v, compute.row ? compute.row : work.row);
  step_resource (report, v, busiest_device (report), lagging != NULL);
  decide (report, v, top, work, compute, busiest_device (report), lagging,
      lag_per_job_ms, full, empty);
  step_starvation (v, full, empty, busiest_device (report));
  note_drops (report, v);
  gst_ax_projection_note_verdict (report, v);
  join_steps (v);
  return v;
}

G_DEFINE_BOXED_TYPE (GstAxReportVerdict, gst_ax_report_verdict,
    gst_ax_report_verdict_copy, gst_ax_report_verdict_free);

/**
 * gst_ax_report_verdict_copy:
 * @verdict: a verdict
 *
 * Copies a verdict, its strings and steps (language bindings copy the
 * boxed #GstAxReportVerdict this way).
 *
 * Returns: (transfer full): the copy; free it with
 *   gst_ax_report_verdict_free()
 *
 * Since: 0.2
 */
GstAxReportVerdict *
gst_ax_report_verdict_copy (const GstAxReportVerdict * verdict)
{
  GstAxReportVerdict *copy;

  g_return_val_if_fail (verdict != NULL, NULL);

  copy = g_new0 (GstAxReportVerdict, 1);
  gst_ax_fields_copy (gst_ax_report_verdict_desc, copy, verdict);
  if (copy->steps == NULL)
    copy->steps = g_ptr_array_new_with_free_func (g_free);
  return copy;
}

/**
 * gst_ax_report_verdict_free:
 * @verdict: (transfer full) (nullable): a verdict
 *
 * Since: 0.2
 */
void
gst_ax_report_verdict_free (GstAxReportVerdict * verdict)
{
  if (verdict == NULL)
    return;
  gst_ax_fields_clear (gst_ax_report_verdict_desc, verdict);
  g_free (verdict);
}

/**
 * gst_ax_report_set_verdict:
 * @report: a report
 * @verdict: its verdict (gst_ax_report_make_verdict())
 *
 * Stores @verdict's kind, names, constraint and text in @report, where the
 * text and JSON renderings read them. @verdict stays the caller's.
 *
 * Since: 0.2
 */
void
gst_ax_report_set_verdict (GstAxReport * report,
    const GstAxReportVerdict * verdict)
{
  g_return_if_fail (report != NULL && verdict != NULL);

  report->constraint_kind = verdict->kind;
  g_free (report->constraint_element);
  report->constraint_element = g_strdup (verdict->element);
  g_free (report->constraint_row);
  report->constraint_row = g_strdup (verdict->row);
  g_free (report->constraint_queue);
  report->constraint_queue = g_strdup (verdict->queue);
  g_free (report->constraint_model);
  report->constraint_model = g_strdup (verdict->model);
  g_free (report->constraint);
  report->constraint = g_strdup (verdict->constraint);
  g_free (report->verdict);
  report->verdict = g_strdup (verdict->text);
}

/**
 * gst_ax_report_constraint_kind_to_string:
 * @kind: a constraint kind
 *
 * Returns: the kind's name in the JSON report: "undetermined",
 *   "simulator", "device", "window", "backpressure", "source",
 *   "submission", "host", "live-paced" or "drops"
 *
 * Since: 0.2
 */
const gchar *
gst_ax_report_constraint_kind_to_string (GstAxReportConstraintKind kind)
{
  switch (kind) {
    case GST_AX_REPORT_CONSTRAINT_SIMULATOR:
      return "simulator";
    case GST_AX_REPORT_CONSTRAINT_DEVICE:
      return "device";
    case GST_AX_REPORT_CONSTRAINT_WINDOW:
      return "window";
    case GST_AX_REPORT_CONSTRAINT_BACKPRESSURE:
      return "backpressure";
    case GST_AX_REPORT_CONSTRAINT_SOURCE:
      return "source";
    case GST_AX_REPORT_CONSTRAINT_SUBMISSION:
      return "submission";
    case GST_AX_REPORT_CONSTRAINT_HOST:
      return "host";
    case GST_AX_REPORT_CONSTRAINT_LIVE_PACED:
      return "live-paced";
    case GST_AX_REPORT_CONSTRAINT_DROPS:
      return "drops";
    case GST_AX_REPORT_CONSTRAINT_UNDETERMINED:
    default:
      return "undetermined";
  }
}
