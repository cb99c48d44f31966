/* gst-ax
 * Copyright (C) 2026 gst-ax developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

/* The verdict: what the run's figures say constrains the pipeline. Kept
 * apart so that it can move into gst/ax as a function of GstAxReport. */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstaxprof-private.h"

#include <string.h>

/* Verdict thresholds, documented in docs/reading-the-report.md. */
#define DEVICE_BOUND_OCCUPANCY_PERCENT 80.0
#define QUEUE_FULL_PERCENT 50.0
#define QUEUE_EMPTY_PERCENT 50.0
#define SUBMISSION_DEPTH_RATIO 0.8
#define WINDOW_BOUND_DEPTH_RATIO 0.9
#define ALLOCATING_FAULTS_PER_CALL 10.0
/* The simulator falls behind its device model when its outputs come, per
 * job, later than both this fraction of the modelled device time and
 * this many ms (more than a thread's wake-up). */
#define SIM_LAG_PACE_RATIO 0.10
#define SIM_LAG_PACE_MS 0.5

typedef struct
{
  GstAxReportRow *row;
  const gchar *group;
  guint index;
} RowRef;

static RowRef
costliest_row (GstAxReport * r, gboolean (*accept) (GstAxReportRow *,
        gpointer), gpointer data)
{
  RowRef best = { NULL, NULL, 0 };
  guint i, j, k = 0;

  for (i = 0; i < r->groups->len; i++) {
    GstAxReportGroup *g = g_ptr_array_index (r->groups, i);

    for (j = 0; j < g->rows->len; j++, k++) {
      GstAxReportRow *row = &g_array_index (g->rows, GstAxReportRow, j);

      if (accept && !accept (row, data))
        continue;
      if (best.row == NULL || row->total_ms > best.row->total_ms) {
        best.row = row;
        best.group = g->name;
        best.index = k;
      }
    }
  }
  return best;
}

static gboolean
not_queue_row (GstAxReportRow * row, gpointer data)
{
  GstAxReport *r = data;
  guint i;

  for (i = 0; i < r->queues->len; i++) {
    const gchar *qn = g_array_index (r->queues, GstAxReportQueue, i).name;

    if (g_str_has_prefix (row->name, qn) || g_str_has_prefix (qn, row->name))
      return FALSE;
  }
  return TRUE;
}

static gboolean
computing_row (GstAxReportRow * row, gpointer data)
{
  return !(row->flags & (GST_AX_REPORT_ROW_FLAG_DEVICE_WAIT |
          GST_AX_REPORT_ROW_FLAG_BLOCKED |
          GST_AX_REPORT_ROW_FLAG_STRONGLY_BLOCKED));
}

/* The row that costs most among those that compute upstream of the
 * queue named @queue (smaller distance from the sources), queues apart:
 * what an empty queue is waiting for. */
static gchar *
upstream_culprit (ReportBuild * b, const gchar * queue)
{
  MergedRow *best = NULL;
  gint rank = -1;
  guint i;

  for (i = 0; i < b->p->queues->len; i++) {
    QueueState *q = g_ptr_array_index (b->p->queues, i);
    MergedRow *m;

    if (strcmp (q->name, queue) == 0 &&
        (m = axprof_merged_for (b, q->elem->chain_row)) != NULL)
      rank = m->rank;
  }
  for (i = 0; i < b->merged->len; i++) {
    MergedRow *m = &g_array_index (b->merged, MergedRow, i);

    if (m->rank >= rank || m->row->elem->queue_kind != QUEUE_NONE ||
        m->usage_count == 0 || m->row->kind == ROW_PROBE)
      continue;
    /* computing: CPU at least half of wall, as for the BLOCKED flag */
    if ((gdouble) m->cpu_sum_ns / m->usage_count <
        GST_AX_REPORT_BLOCKED_CPU_RATIO * m->wall_sum_ns / m->count)
      continue;
    if (best == NULL || m->wall_sum_ns > best->wall_sum_ns)
      best = m;
  }
  if (best == NULL)
    return NULL;
  {
    gchar *name = axprof_row_name (best->row);
    gchar *out = g_strdup_printf ("%s, %.2f ms per frame", name,
        best->wall_sum_ns / NS_PER_MS / best->count);

    g_free (name);
    return out;
  }
}

static const gchar *
sources_of (PipelineState * p, GString * s)
{
  guint i;

  for (i = 0; i < p->elems->len; i++) {
    ElementState *ei = g_ptr_array_index (p->elems, i);

    if (ei->is_source)
      g_string_append_printf (s, "%s%s", s->len ? ", " : "", ei->name);
  }
  return s->len ? s->str : "the source";
}

/* The device whose simulator fell furthest behind its model per job, if
 * any fell behind (SIM_LAG_PACE_RATIO, SIM_LAG_PACE_MS). */
static GstAxReportDevice *
lagging_device (GstAxReport * r, gdouble * lag_per_job_ms)
{
  GstAxReportDevice *worst = NULL;
  guint i;

  *lag_per_job_ms = 0;
  for (i = 0; i < r->devices->len; i++) {
    GstAxReportDevice *d = &g_array_index (r->devices, GstAxReportDevice, i);
    gdouble per_job = d->jobs ? d->lag_ms / d->jobs : 0;

    if (per_job > MAX (SIM_LAG_PACE_RATIO * d->device_ms, SIM_LAG_PACE_MS) &&
        per_job > *lag_per_job_ms) {
      worst = d;
      *lag_per_job_ms = per_job;
    }
  }
  return worst;
}

void
axprof_build_verdict (ReportBuild * b)
{
  GstAxReport *r = b->r;
  GString *v = g_string_new (NULL);
  GString *src = g_string_new (NULL);
  RowRef top = costliest_row (r, NULL, NULL);
  RowRef work = costliest_row (r, not_queue_row, r);
  RowRef compute = costliest_row (r, computing_row, NULL);
  GstAxReportQueue *full = NULL, *empty = NULL;
  GstAxReportDevice *dev = NULL;
  gchar *constraint = NULL;
  gdouble lag_per_job_ms, process_cpu_ms;
  gboolean sim_bound = FALSE;
  GstAxReportDevice *lagging = lagging_device (r, &lag_per_job_ms);
  guint i;

  /* 1. trust */
  g_string_append_printf (v, "  1. Trust: %s%s%s; the profiler cost %.1f%% "
      "of the profiled time%s.\n",
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
    g_string_append_printf (v, "     WARNING: the simulator cannot keep pace "
        "with the device model: %s's functional compute lagged it by %.1f ms "
        "(%.2f ms per job over %" G_GUINT64_FORMAT " jobs against %.2f ms of "
        "modelled device time). Device figures (device_ms, occupancy, device "
        "fps) are the model's; throughput and latency are the host's.\n",
        lagging->group, lagging->lag_ms, lag_per_job_ms, lagging->jobs,
        lagging->device_ms);
  if (top.row == NULL) {
    g_string_append (v, "  Nothing was measured.");
    r->constraint = g_strdup ("undetermined (no data)");
    r->verdict = g_string_free (v, FALSE);
    g_string_free (src, TRUE);
    return;
  }

  /* 2. where the wall time is */
  {
    GstAxReportGroup *g0 = g_ptr_array_index (r->groups, 0);

    g_string_append_printf (v, "  2. Wall time: group %s holds %.1f%% of the "
        "profiled time; its costliest row overall is %s (%s) with %.1f ms "
        "(%.2f ms x %" G_GUINT64_FORMAT " calls).\n", g0->name, g0->percent,
        top.row->name, top.group, top.row->total_ms, top.row->mean_ms,
        top.row->count);
    if (compute.row && compute.row != top.row)
      g_string_append_printf (v, "     The costliest row that computes is "
          "%s (%s) with %.1f ms (CPU %.2f of %.2f ms per call).\n",
          compute.row->name, compute.group, compute.row->total_ms,
          compute.row->cpu_ms, compute.row->mean_ms);
  }
  /* 3. compute or waiting */
  g_string_append_printf (v, "  3. %s is %s: CPU %.2f of wall %.2f ms per "
      "call.\n", top.row->name,
      top.row->flags & GST_AX_REPORT_ROW_FLAG_DEVICE_WAIT ?
      "waiting on the device by design" :
      top.row->flags & (GST_AX_REPORT_ROW_FLAG_BLOCKED |
          GST_AX_REPORT_ROW_FLAG_STRONGLY_BLOCKED) ? "mostly waiting, "
      "not computing" : "computing", top.row->cpu_ms, top.row->mean_ms);
  /* 4. allocation */
  {
    GstAxReportRow *a = compute.row ? compute.row : work.row;

    if (!r->faults_measured)
      g_string_append (v, "  4. Allocation: faults are not measured on this "
          "system.\n");
    else if (a && a->faults >= ALLOCATING_FAULTS_PER_CALL)
      g_string_append_printf (v, "  4. Allocation: %s takes %.0f page faults "
          "per call: reuse its output buffer (a pool).\n", a->name, a->faults);
    else if (a)
      g_string_append_printf (v, "  4. Allocation: %s takes %.0f faults per "
          "call; allocation is not what costs.\n", a->name, a->faults);
  }

  /* 5. which resource */
  for (i = 0; i < r->devices->len; i++) {
    GstAxReportDevice *d = &g_array_index (r->devices, GstAxReportDevice, i);

    if (dev == NULL || d->occupancy_percent > dev->occupancy_percent)
      dev = d;
  }
  if (dev && r->have_sim_cpu)
    g_string_append_printf (v, "  5. Resource: device occupancy %.1f%% of %u "
        "cores%s; host cores used %.2f of %u, %.2f of them by the simulator's "
        "own threads.\n", dev->occupancy_percent, dev->n_cores,
        lagging ? " (the model's)" : "", r->cores_used, r->cores_available,
        r->sim_cpu_percent / PERCENT);
  else if (dev)
    g_string_append_printf (v, "  5. Resource: device occupancy %.1f%% of %u "
        "cores; host cores used %.2f of %u.\n", dev->occupancy_percent,
        dev->n_cores, r->cores_used, r->cores_available);
  else
    g_string_append_printf (v, "  5. Resource: no device; host cores used "
        "%.2f of %u.\n", r->cores_used, r->cores_available);

  /* 6. who starves whom */
  for (i = 0; i < r->queues->len; i++) {
    GstAxReportQueue *q = &g_array_index (r->queues, GstAxReportQueue, i);

    if (q->full_percent >= QUEUE_FULL_PERCENT &&
        (full == NULL || q->full_percent > full->full_percent))
      full = q;
    if (q->empty_percent >= QUEUE_EMPTY_PERCENT &&
        (empty == NULL || q->empty_percent > empty->empty_percent))
      empty = q;
  }

  /* The simulator's threads are not element rows: when they lag their
   * model and burn more CPU than the costliest computing row, the host
   * computing the network is what the pipeline waits for (in the device
   * wait, upstream queues filling behind it). */
  process_cpu_ms = r->cores_used * r->wall_s * 1000.0;
  if (lagging && lagging->sim_cpu_ms > 0 && (compute.row == NULL ||
          lagging->sim_cpu_ms >= compute.row->cpu_ms * compute.row->count)) {
    constraint = g_strdup_printf ("the simulator's functional compute (%s: "
        "sim-npu's own threads used %.1f ms of CPU, %.1f%% of the process's, "
        "and delivered each job %.2f ms after the device model finished it: "
        "this host computes the network slower than the modelled device "
        "runs it)", lagging->group, lagging->sim_cpu_ms,
        process_cpu_ms > 0 ? PERCENT * lagging->sim_cpu_ms / process_cpu_ms :
        0, lag_per_job_ms);
    sim_bound = TRUE;
  } else if (dev && dev->occupancy_percent >= DEVICE_BOUND_OCCUPANCY_PERCENT) {
    constraint = g_strdup_printf ("the device (%s on %s, %.1f%% occupied)",
        dev->group, dev->device, dev->occupancy_percent);
  } else if (dev && dev->in_flight_window > 0 &&
      dev->depth >= WINDOW_BOUND_DEPTH_RATIO * dev->in_flight_window) {
    constraint = g_strdup_printf ("the device at its in-flight window (%s: "
        "%.1f of %u jobs in flight, %.1f%% of %u cores busy: a larger "
        "in-flight window would use the idle cores)", dev->group, dev->depth,
        dev->in_flight_window, dev->occupancy_percent, dev->n_cores);
  } else if (full) {
    gboolean waits = work.row && (work.row->flags &
        GST_AX_REPORT_ROW_FLAG_STRONGLY_BLOCKED);

    constraint = g_strdup_printf ("back-pressure: %s is full %.1f%% of the "
        "time because %s downstream is slower%s%s%s", full->name,
        full->full_percent, work.row ? work.row->name : "a later element",
        waits ? " (and it mostly waits: " : "",
        waits ? (r->pacing ? r->pacing : "a clock or a lock") : "",
        waits ? ")" : "");
  } else if (empty) {
    gchar *up = upstream_culprit (b, empty->name);

    constraint = g_strdup_printf ("source starvation: %s is empty %.1f%% of "
        "the time, waiting on %s%s%s%s", empty->name, empty->empty_percent,
        sources_of (b->p, src), up ? " (the costliest work upstream of it is "
        : "", up ? up : "", up ? ")" : "");
    g_free (up);
  } else if (dev && dev->in_flight_window > 0 &&
      dev->depth < SUBMISSION_DEPTH_RATIO * dev->in_flight_window) {
    constraint = g_strdup_printf ("the submission loop: %.1f jobs in flight "
        "of a window of %u with the device %.1f%% occupied",
        dev->depth, dev->in_flight_window, dev->occupancy_percent);
  } else if (top.row->flags & GST_AX_REPORT_ROW_FLAG_STAGE &&
      g_str_has_suffix (top.row->name, "(create)")) {
    constraint = g_strdup_printf ("source starvation: %s produces the "
        "frames slowest", top.row->name);
  } else if (top.row->flags & (GST_AX_REPORT_ROW_FLAG_BLOCKED |
          GST_AX_REPORT_ROW_FLAG_STRONGLY_BLOCKED)) {
    constraint = g_strdup_printf ("back-pressure from %s, which waits "
        "rather than computes (%s)", top.row->name,
        r->pacing ? r->pacing : "check its sync/clock");
  } else {
    constraint = g_strdup_printf ("a host element: %s", top.row->name);
  }

  if (full || empty) {
    GstAxReportQueue *q = full ? full : empty;

    g_string_append_printf (v, "  6. Starvation: %s mean depth %.1f (max %.0f"
        "), full %.1f%%, empty %.1f%% of the time%s.\n", q->name, q->mean,
        q->max, q->full_percent, q->empty_percent, sim_bound && full ?
        " (filled behind the simulator's pace: an effect, not the cause)" : "");
  } else if (dev) {
    g_string_append_printf (v, "  6. Starvation: in-flight depth %.1f of a "
        "window of %u.\n", dev->depth, dev->in_flight_window);
  } else {
    g_string_append (v, "  6. Starvation: no queue is mostly full or "
        "mostly empty.\n");
  }
  r->constraint = constraint;
  g_string_truncate (v, v->len - 1);
  r->verdict = g_string_free (v, FALSE);
  g_string_free (src, TRUE);
}
