/* gst-ax
 * Copyright (C) 2026 gst-ax developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

/* Interval reports (the tracer's `interval=SECONDS`): every interval, the
 * report of that interval alone.
 *
 * Nothing is reset: the records keep counting over the whole run, so the
 * report at EOS still covers all of it. An interval's report is the
 * difference of two whole-run reports, the one made at the interval's end
 * and the one made at its start, with what a report does not carry
 * itself (the merged latency histogram, the queues' level integrals, the
 * devices' busy sums) taken from the ReportRaw made with each: counts,
 * sums, percentiles, queue levels and occupancy of an interval are exact,
 * and the frames of all intervals add up to the run's. The last interval
 * ends with the run (axprof_interval_finish()), so the intervals tile it.
 * Only per-call minima and maxima, and queues' minimum and maximum
 * levels, are not kept per interval: they read null.
 *
 * One thread ("axprof-interval") wakes at the end of each pipeline's
 * interval (and every 100 ms, to see pipelines that start) and reports
 * each pipeline whose interval has ended, counted from the run's first
 * buffer. Memory is bounded: one report and one ReportRaw per
 * pipeline, whatever the run length. */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstaxprof-thread.h"
#include "gstaxprof-report-private.h"

#include <math.h>
#include <string.h>
#include <unistd.h>

typedef struct
{
  PipelineState *p;
  /* the run (p->run) the previous report is of */
  guint32 run;
  guint index;
  /* the whole-run report at the end of the last interval, NULL before
   * the first */
  GstAxReport *prev;
  ReportRaw *prev_raw;
} IntervalState;

/* Protects states and the tick: a tick and the run's last interval
 * (axprof_interval_finish()) come in order. Recursive: a handler of the
 * bus message may stop the pipeline, which finishes the run on the same
 * thread. Taken before axprof_global_lock. */
static GRecMutex interval_lock;
static GPtrArray *states;
static GThread *interval_thread;
static pid_t interval_pid;
static GMutex tick_lock;
static GCond tick_cond;
static gboolean tick_stop;
static guint64 interval_ns;
static const TracerSetup *interval_setup;
static AxprofIntervalEmit interval_emit;
static gpointer interval_emit_data;

static IntervalState *
state_of (PipelineState * p)
{
  IntervalState *st;
  guint i;

  for (i = 0; i < states->len; i++) {
    st = g_ptr_array_index (states, i);
    if (st->p == p)
      return st;
  }
  st = g_new0 (IntervalState, 1);
  st->p = p;
  st->run = p->run;
  g_ptr_array_add (states, st);
  return st;
}

static void
state_restart (IntervalState * st, guint32 run)
{
  g_clear_pointer (&st->prev, gst_ax_report_unref);
  g_clear_pointer (&st->prev_raw, axprof_report_raw_free);
  st->index = 0;
  st->run = run;
}

/* ---------------------------------------------------------------- diff */

static const GstAxReportRow *
find_row (const GstAxReport * r, const gchar * group, const GstAxReportRow * m)
{
  guint i, j;

  if (r == NULL)
    return NULL;
  for (i = 0; i < r->groups->len; i++) {
    GstAxReportGroup *g = g_ptr_array_index (r->groups, i);

    if (strcmp (g->name, group) != 0)
      continue;
    for (j = 0; j < g->rows->len; j++) {
      GstAxReportRow *row = &g_array_index (g->rows, GstAxReportRow, j);

      if (strcmp (row->name, m->name) == 0 && row->kind == m->kind &&
          g_strcmp0 (row->element, m->element) == 0)
        return row;
    }
  }
  return NULL;
}

/* The difference of two means over counts, as a mean over the
 * difference of the counts. */
static gdouble
mean_since (gdouble now, guint64 n_now, gdouble then, guint64 n_then)
{
  guint64 n = n_now - n_then;

  return n > 0 ? MAX (now * n_now - then * n_then, 0) / n : 0;
}

static void
diff_rows (GstAxReport * r, const GstAxReport * cur, const GstAxReport * prev)
{
  guint i, j;

  for (i = 0; i < cur->groups->len; i++) {
    GstAxReportGroup *cg = g_ptr_array_index (cur->groups, i);
    GstAxReportGroup *g = NULL;

    for (j = 0; j < cg->rows->len; j++) {
      GstAxReportRow *c = &g_array_index (cg->rows, GstAxReportRow, j);
      const GstAxReportRow *o = find_row (prev, cg->name, c);
      guint64 n0 = o ? o->count : 0;
      GstAxReportRow *row;

      if (c->count <= n0)
        continue;
      if (g == NULL)
        g = gst_ax_report_add_group (r, cg->name);
      row = gst_ax_report_group_add_row (g, c->name);
      row->count = c->count - n0;
      row->total_ms = MAX (c->total_ms - (o ? o->total_ms : 0), 0);
      row->mean_ms = row->total_ms / row->count;
      row->cpu_ms = mean_since (c->cpu_ms, c->count, o ? o->cpu_ms : 0, n0);
      row->faults = mean_since (c->faults, c->count, o ? o->faults : 0, n0);
      row->cpu_wait_ms = mean_since (c->cpu_wait_ms, c->count,
          o ? o->cpu_wait_ms : 0, n0);
      row->min_ms = row->max_ms = NAN;
      row->flags = c->flags;
      row->element = g_strdup (c->element);
      row->kind = c->kind;
      row->rank = c->rank;
      row->out_bytes = c->out_bytes - MIN (o ? o->out_bytes : 0, c->out_bytes);
      row->inactive = c->inactive;
      row->workers = c->workers;
      row->worker_cpu_ms = MAX (c->worker_cpu_ms - (o ? o->worker_cpu_ms : 0),
          0);
      gst_ax_report_row_classify (row);
    }
  }
  if (r->groups->len == 0)
    r->groups_absent = g_strdup ("no element processed a buffer in this "
        "interval");
  gst_ax_report_finish_groups (r);
}

static void
diff_latency (GstAxReport * r, const ReportRaw * cur, const ReportRaw * prev)
{
  LatencyHistogram *h = g_new0 (LatencyHistogram, 1);
  guint b;

  *h = cur->lat;
  if (prev) {
    h->n -= MIN (prev->lat.n, h->n);
    h->sum_ns = MAX (h->sum_ns - prev->lat.sum_ns, 0);
    h->sumsq_ns = MAX (h->sumsq_ns - prev->lat.sumsq_ns, 0);
    h->unmatched -= MIN (prev->lat.unmatched, h->unmatched);
    for (b = 0; b < HIST_BUCKETS; b++)
      h->buckets[b] -= MIN (prev->lat.buckets[b], h->buckets[b]);
    /* the interval's extremes, to the histogram's resolution */
    h->min_ns = 0;
    h->max_ns = G_MAXUINT64;
    if (h->n > 0) {
      h->min_ns = (guint64) axprof_hist_percentile (h, 0);
      h->max_ns = (guint64) axprof_hist_percentile (h, 1);
    }
  }
  axprof_report_fill_latency (r, h);
  g_free (h);
}

static void
diff_queues (GstAxReport * r, const GstAxReport * cur, const ReportRaw * craw,
    const GstAxReport * prev, const ReportRaw * praw)
{
  guint i, j;

  for (i = 0; i < cur->queues->len && i < craw->queues->len; i++) {
    const GstAxReportQueue *c = &g_array_index (cur->queues,
        GstAxReportQueue, i);
    const RawQueue *cq = &g_array_index (craw->queues, RawQueue, i);
    const GstAxReportQueue *o = NULL;
    RawQueue zero = { 0, }, *oq = &zero;
    GstAxReportQueue q = { 0, };
    guint64 span;

    for (j = 0; prev && j < prev->queues->len && j < praw->queues->len; j++)
      if (strcmp (g_array_index (prev->queues, GstAxReportQueue, j).name,
              c->name) == 0) {
        o = &g_array_index (prev->queues, GstAxReportQueue, j);
        oq = &g_array_index (praw->queues, RawQueue, j);
      }
    span = cq->span_ns > oq->span_ns ? cq->span_ns - oq->span_ns : 0;
    q.name = g_strdup (c->name);
    q.element = g_strdup (c->element);
    q.mean = span > 0 ? MAX (cq->area - oq->area, 0) / span : 0;
    q.min = q.max = NAN;
    q.max_size_buffers = c->max_size_buffers;
    q.max_size_bytes = c->max_size_bytes;
    q.max_size_time_ms = c->max_size_time_ms;
#define SHARE(f) (span > 0 ? MIN (100.0, 100.0 * (cq->f - MIN (oq->f, cq->f)) \
        / span) : 0)
    q.at_max_percent = SHARE (at_max_ns);
    q.full_percent = SHARE (full_ns);
    q.empty_percent = SHARE (empty_ns);
#undef SHARE
    q.full_limit = g_strdup (c->full_limit);
    q.downstream = g_strdup (c->downstream);
    q.leaky = g_strdup (c->leaky);
    q.input = c->input - MIN (o ? o->input : 0, c->input);
    q.dropped = c->dropped - MIN (o ? o->dropped : 0, c->dropped);
    q.dropped_percent = q.input > 0 ? 100.0 * q.dropped / q.input : 0;
    if (c->branch) {
      q.branch = g_ptr_array_new_with_free_func (g_free);
      for (j = 0; j < c->branch->len; j++)
        g_ptr_array_add (q.branch, g_strdup (g_ptr_array_index (c->branch, j)));
    }
    g_array_append_val (r->queues, q);
  }
  r->queues_absent = g_strdup (cur->queues_absent);
}

static void
diff_qos (GstAxReport * r, const GstAxReport * cur, const GstAxReport * prev)
{
  guint i, j;

  for (i = 0; i < cur->qos->len; i++) {
    const GstAxReportQos *c = &g_array_index (cur->qos, GstAxReportQos, i);
    const GstAxReportQos *o = NULL;
    GstAxReportQos q = { 0, };

    for (j = 0; prev && j < prev->qos->len; j++)
      if (g_strcmp0 (g_array_index (prev->qos, GstAxReportQos, j).element,
              c->element) == 0)
        o = &g_array_index (prev->qos, GstAxReportQos, j);
    q.messages = c->messages - MIN (o ? o->messages : 0, c->messages);
    if (q.messages == 0)
      continue;
    q.element = g_strdup (c->element);
    q.format = g_strdup (c->format);
    q.processed = c->processed - MIN (o ? o->processed : 0, c->processed);
    q.dropped = c->dropped - MIN (o ? o->dropped : 0, c->dropped);
    g_array_append_val (r->qos, q);
  }
}

#define SINCE(a, b) ((a) > (b) ? (a) - (b) : 0)

static void
diff_devices (GstAxReport * r, const GstAxReport * cur, const ReportRaw * craw,
    const GstAxReport * prev, const ReportRaw * praw)
{
  gdouble device_sum = 0;
  guint i, j, k;

  for (i = 0; i < cur->devices->len && i < craw->devices->len; i++) {
    const GstAxReportDevice *c = &g_array_index (cur->devices,
        GstAxReportDevice, i);
    const RawDevice *cd = &g_array_index (craw->devices, RawDevice, i);
    const GstAxReportDevice *o = NULL;
    RawDevice zero = { 0, }, *od = &zero;
    GstAxReportDevice d = { 0, };
    guint64 busy, events, window, u;

    for (j = 0; prev && j < prev->devices->len && j < praw->devices->len; j++) {
      const GstAxReportDevice *c2 = &g_array_index (prev->devices,
          GstAxReportDevice, j);

      if (g_strcmp0 (c2->group, c->group) == 0 && c2->device_id == c->device_id) {
        o = c2;
        od = &g_array_index (praw->devices, RawDevice, j);
      }
    }
    busy = SINCE (cd->busy_ns, od->busy_ns);
    events = SINCE (cd->events, od->events);
    window = SINCE (cd->window_ns, od->window_ns);
    u = SINCE (cd->union_ns, od->union_ns);
    d.group = g_strdup (c->group);
    d.device = g_strdup (c->device);
    d.n_cores = c->n_cores;
    d.in_flight_window = c->in_flight_window;
    d.jobs = SINCE (c->jobs, o ? o->jobs : 0);
    d.frames = SINCE (c->frames, o ? o->frames : 0);
    d.device_ms = events ? busy / (gdouble) GST_MSECOND / events : 0;
    d.host_ms = mean_since (c->host_ms, c->jobs, o ? o->host_ms : 0,
        o ? o->jobs : 0);
    d.occupancy_percent = window > 0 ?
        100.0 * busy / (MAX (d.n_cores, 1) * (gdouble) window) : 0;
    /* the element's own books, as the run's report has them */
    d.depth = c->depth;
    d.held_depth = c->held_depth;
    d.device_s = u / (gdouble) GST_SECOND;
    d.device_fps = u > 0 ? d.jobs / d.device_s : 0;
    d.sim_cpu_ms = MAX (c->sim_cpu_ms - (o ? o->sim_cpu_ms : 0), 0);
    d.lag_ms = MAX (c->lag_ms - (o ? o->lag_ms : 0), 0);
    d.device_id = c->device_id;
    d.occupancy_index = c->occupancy_index;
    device_sum += d.device_ms;
    g_array_append_val (r->devices, d);
  }
  for (i = 0; i < cur->device_occupancy->len; i++) {
    const GstAxReportDeviceOccupancy *c =
        &g_array_index (cur->device_occupancy, GstAxReportDeviceOccupancy, i);
    const GstAxReportDeviceOccupancy *o = NULL;
    GstAxReportDeviceOccupancy *d;

    for (j = 0; prev && j < prev->device_occupancy->len; j++)
      if (g_strcmp0 (g_array_index (prev->device_occupancy,
                  GstAxReportDeviceOccupancy, j).device, c->device) == 0)
        o = &g_array_index (prev->device_occupancy,
            GstAxReportDeviceOccupancy, j);
    d = gst_ax_report_add_device_occupancy (r, c->device, c->device_id);
    d->n_cores = c->n_cores;
    d->window_s = MAX (c->window_s - (o ? o->window_s : 0), 0);
    d->sim_cpu_ms = MAX (c->sim_cpu_ms - (o ? o->sim_cpu_ms : 0), 0);
    /* the device's busy time is its models' (which adding them sums) */
    for (j = 0; c->models && j < c->models->len; j++) {
      const GstAxReportModelShare *m = &g_array_index (c->models,
          GstAxReportModelShare, j);
      gdouble before = 0;

      for (k = 0; o && o->models && k < o->models->len; k++)
        if (g_strcmp0 (g_array_index (o->models, GstAxReportModelShare,
                    k).group, m->group) == 0)
          before = g_array_index (o->models, GstAxReportModelShare, k).busy_ms;
      gst_ax_report_device_occupancy_add_model (d, m->group,
          MAX (m->busy_ms - before, 0));
    }
    if (c->models == NULL || c->models->len == 0)
      d->busy_ms = MAX (c->busy_ms - (o ? o->busy_ms : 0), 0);
    d->occupancy_percent = d->window_s > 0 ? 100.0 * d->busy_ms /
        (MAX (d->n_cores, 1) * d->window_s * 1000.0) : 0;
    if (r->wall_s > 0 && d->sim_cpu_ms > 0) {
      r->have_sim_cpu = TRUE;
      r->sim_cpu_percent += 100.0 * d->sim_cpu_ms / (r->wall_s * 1000.0);
    }
  }
  r->devices_absent = g_strdup (cur->devices_absent);
  r->share_absent = g_strdup (cur->share_absent);
  if (r->devices->len > 0) {
    r->share_device_ms = device_sum;
    r->share_host_ms = cur->share_host_ms;
  }
}

static void
diff_cpu (GstAxReport * r, const GstAxReport * cur, const GstAxReport * prev)
{
  guint i, j;

  r->cpu_absent = g_strdup (cur->cpu_absent);
#define D(f) r->f = MAX (cur->f - (prev ? prev->f : 0), 0)
  D (pipeline_cpu_ms);
  D (process_cpu_ms);
  D (rows_cpu_ms);
  D (other_cpu_ms);
  D (streaming_outside_cpu_ms);
  D (pool_unattributed_cpu_ms);
  D (simulator_cpu_ms);
  D (unattributed_cpu_ms);
  D (ended_cpu_ms);
#undef D
  for (i = 0; i < cur->threads->len; i++) {
    const GstAxReportThread *c = &g_array_index (cur->threads,
        GstAxReportThread, i);
    GstAxReportThread t = { 0, };
    gdouble cpu0 = 0, faults0 = 0;

    for (j = 0; prev && j < prev->threads->len; j++) {
      const GstAxReportThread *o = &g_array_index (prev->threads,
          GstAxReportThread, j);

      if (o->tid == c->tid && g_strcmp0 (o->name, c->name) == 0) {
        cpu0 = o->cpu_ms;
        faults0 = o->faults;
      }
    }
    t.name = g_strdup (c->name);
    t.tid = c->tid;
    t.kind = g_strdup (c->kind);
    t.element = g_strdup (c->element);
    t.cpu_ms = MAX (c->cpu_ms - cpu0, 0);
    t.faults = MAX (c->faults - faults0, 0);
    g_array_append_val (r->threads, t);
  }
}

GstAxReport *
axprof_interval_diff (const GstAxReport * cur, const ReportRaw * craw,
    const GstAxReport * prev, const ReportRaw * praw, guint index)
{
  GstAxReport *r = gst_ax_report_new ();
  GstAxReportVerdict *v;
  guint i;

  r->pipeline = g_strdup (cur->pipeline);
  r->status = GST_AX_REPORT_STATUS_INTERVAL;
  r->interval_index = index;
  r->interval_start_s = prev ? prev->wall_s : 0;
  r->sample = cur->sample;
  r->faults_measured = cur->faults_measured;
  r->allow_debug = cur->allow_debug;
  r->usage_reader = g_strdup (cur->usage_reader);
  r->usage_mode = g_strdup (cur->usage_mode);
  if (cur->refusal) {
    r->refusal = g_strdup (cur->refusal);
    return r;
  }
  r->pacing = g_strdup (cur->pacing);
  r->live_source = g_strdup (cur->live_source);
  for (i = 0; i < cur->sources->len; i++)
    g_ptr_array_add (r->sources, g_strdup (g_ptr_array_index (cur->sources,
                i)));
  r->cores_available = cur->cores_available;
  r->peak_mem_mb = cur->peak_mem_mb;
  r->frames_sink = g_strdup (cur->frames_sink);
  r->video_sinks = cur->video_sinks;
  r->audio_sink = g_strdup (cur->audio_sink);

  r->frames = SINCE (cur->frames, prev ? prev->frames : 0);
  r->audio_buffers = SINCE (cur->audio_buffers, prev ? prev->audio_buffers : 0);
  r->wall_s = MAX (cur->wall_s - r->interval_start_s, 0);
  r->element_buffers = SINCE (cur->element_buffers,
      prev ? prev->element_buffers : 0);
  r->usage_reads = SINCE (cur->usage_reads, prev ? prev->usage_reads : 0);
  r->profiler_ns_per_element_buffer = cur->profiler_ns_per_element_buffer;
  r->profiler_percent = cur->profiler_percent;
  r->dropped_threads = cur->dropped_threads;

  diff_rows (r, cur, prev);
  diff_cpu (r, cur, prev);
  if (r->wall_s > 0 && cur->throughput_absent == NULL) {
    r->fps = r->frames / r->wall_s;
    r->cores_used = r->pipeline_cpu_ms / (r->wall_s * 1000.0);
    r->cpu_percent = 100.0 * r->cores_used;
  } else {
    r->throughput_absent = g_strdup (cur->throughput_absent ?
        cur->throughput_absent : "the interval has no length");
  }
  diff_latency (r, craw, prev ? praw : NULL);
  diff_queues (r, cur, craw, prev, praw);
  diff_qos (r, cur, prev);
  diff_devices (r, cur, craw, prev, praw);
  v = gst_ax_report_make_verdict (r);
  gst_ax_report_set_verdict (r, v);
  gst_ax_report_verdict_free (v);
  return r;
}

/* ---------------------------------------------------------------- text */

gchar *
axprof_interval_text (const GstAxReport * r)
{
  GString *s = g_string_new (NULL);
  GPtrArray *rows = g_ptr_array_new ();
  guint i, j;

  g_string_append_printf (s, "axprof interval %u of %s (%.1f s to %.1f s)",
      r->interval_index, r->pipeline ? r->pipeline : "(unnamed)",
      r->interval_start_s, r->interval_start_s + r->wall_s);
  if (r->refusal) {
    g_string_append_printf (s, ": no timings: %s\n", r->refusal);
    g_ptr_array_unref (rows);
    return g_string_free (s, FALSE);
  }
  g_string_append_printf (s, ": %" G_GUINT64_FORMAT " frames, %.1f fps, "
      "%.2f cores\n", r->frames, r->fps, r->cores_used);
  if (r->latency_absent == NULL)
    g_string_append_printf (s, "  latency ms: p50 %.2f  p95 %.2f  p99 %.2f"
        "  (%" G_GUINT64_FORMAT " frames)\n", r->latency.p50_ms,
        r->latency.p95_ms, r->latency.p99_ms, r->latency.n);
  for (i = 0; i < r->groups->len; i++) {
    GstAxReportGroup *g = g_ptr_array_index (r->groups, i);

    for (j = 0; j < g->rows->len; j++)
      g_ptr_array_add (rows, &g_array_index (g->rows, GstAxReportRow, j));
  }
  /* the three rows that took the most wall time in the interval */
  for (i = 0; i < rows->len && i < 3; i++) {
    guint best = i;
    gpointer t;

    for (j = i + 1; j < rows->len; j++)
      if (((GstAxReportRow *) g_ptr_array_index (rows, j))->total_ms >
          ((GstAxReportRow *) g_ptr_array_index (rows, best))->total_ms)
        best = j;
    t = rows->pdata[i];
    rows->pdata[i] = rows->pdata[best];
    rows->pdata[best] = t;
  }
  if (rows->len > 0) {
    g_string_append (s, "  busiest (wall ms, CPU ms per call):");
    for (i = 0; i < rows->len && i < 3; i++) {
      GstAxReportRow *row = g_ptr_array_index (rows, i);

      g_string_append_printf (s, "%s %s %.2f/%.2f", i ? "," : "", row->name,
          row->mean_ms, row->cpu_ms);
    }
    g_string_append_c (s, '\n');
  }
  g_ptr_array_unref (rows);
  for (i = 0; i < r->queues->len; i++) {
    GstAxReportQueue *q = &g_array_index (r->queues, GstAxReportQueue, i);

    g_string_append_printf (s, "%s %s %.1f (full %.0f%%, dropped %"
        G_GUINT64_FORMAT ")", i ? "," : "  queues (mean level):", q->name,
        q->mean, q->full_percent, q->dropped);
  }
  if (r->queues->len > 0)
    g_string_append_c (s, '\n');
  for (i = 0; i < r->device_occupancy->len; i++) {
    GstAxReportDeviceOccupancy *o = &g_array_index (r->device_occupancy,
        GstAxReportDeviceOccupancy, i);

    g_string_append_printf (s, "%s %s %.1f%%", i ? "," : "  occupancy:",
        o->device, o->occupancy_percent);
  }
  if (r->device_occupancy->len > 0)
    g_string_append_c (s, '\n');
  if (r->constraint)
    g_string_append_printf (s, "  verdict: %s\n", r->constraint);
  return g_string_free (s, FALSE);
}

/* ---------------------------------------------------------------- ticks */

/* Reports @p's interval when it has ended, and lowers @next_ns to the
 * end of its next one. interval_lock held. */
static void
tick_pipeline (PipelineState * p, guint64 now_ns, guint64 * next_ns)
{
  guint64 end_ns;

  IntervalState *st;
  ReportRaw *raw;
  GstAxReport *cur, *r;

  g_mutex_lock (&axprof_global_lock);
  if (!p->started || p->reported || p->pipeline == NULL) {
    g_mutex_unlock (&axprof_global_lock);
    return;
  }
  /* the first buffer's stamps are set under p->lock */
  g_mutex_lock (&p->lock);
  if (__atomic_load_n (&p->first_ts, __ATOMIC_ACQUIRE) == 0) {
    g_mutex_unlock (&p->lock);
    g_mutex_unlock (&axprof_global_lock);
    return;
  }
  st = state_of (p);
  if (st->run != p->run)
    state_restart (st, p->run);
  end_ns = p->first_probe_ns + (st->index + 1) * interval_ns;
  if (now_ns < end_ns) {
    *next_ns = MIN (*next_ns, end_ns);
    g_mutex_unlock (&p->lock);
    g_mutex_unlock (&axprof_global_lock);
    return;
  }
  *next_ns = MIN (*next_ns, end_ns + interval_ns);
  raw = axprof_report_raw_new ();
  cur = axprof_make_report_raw (interval_setup, p,
      GST_AX_REPORT_STATUS_RUNNING, raw);
  g_mutex_unlock (&p->lock);
  g_mutex_unlock (&axprof_global_lock);

  r = axprof_interval_diff (cur, raw, st->prev, st->prev_raw, ++st->index);
  state_restart (st, st->run);
  st->index = r->interval_index;
  st->prev = cur;
  st->prev_raw = raw;
  interval_emit (interval_emit_data, p, r);
  gst_ax_report_unref (r);
}

static gpointer
interval_loop (gpointer data)
{
  /* a pipeline that starts is seen within this */
  const gint64 look_us = 100000;
  gint64 wait_us = look_us;

  g_mutex_lock (&tick_lock);
  while (!tick_stop) {
    GPtrArray *pipes;
    guint64 now_ns, next_ns;
    guint i;

    g_cond_wait_until (&tick_cond, &tick_lock, g_get_monotonic_time () +
        wait_us);
    if (tick_stop)
      break;
    g_mutex_unlock (&tick_lock);
    pipes = axprof_pipelines ();
    now_ns = gst_ax_probe_now_ns ();
    next_ns = G_MAXUINT64;
    g_rec_mutex_lock (&interval_lock);
    for (i = 0; i < pipes->len; i++)
      tick_pipeline (g_ptr_array_index (pipes, i), now_ns, &next_ns);
    g_rec_mutex_unlock (&interval_lock);
    g_ptr_array_unref (pipes);
    /* wake at the next interval's end (both clocks are CLOCK_MONOTONIC) */
    now_ns = gst_ax_probe_now_ns ();
    wait_us = next_ns > now_ns ? (gint64) MIN ((next_ns - now_ns) / 1000 + 1,
        (guint64) look_us) : 1000;
    g_mutex_lock (&tick_lock);
  }
  g_mutex_unlock (&tick_lock);
  return NULL;
}

void
axprof_interval_start (const TracerSetup * setup, gdouble seconds,
    AxprofIntervalEmit emit, gpointer user_data)
{
  interval_ns = (guint64) (seconds * GST_SECOND);
  interval_setup = setup;
  interval_emit = emit;
  interval_emit_data = user_data;
  states = g_ptr_array_new ();
}

/* A run starts: the thread runs from the first run of the process (a
 * process forked after the tracer started, as gst-check's tests are, has
 * no thread of its parent's). */
void
axprof_interval_run_started (void)
{
  if (interval_ns == 0)
    return;
  g_mutex_lock (&tick_lock);
  if (interval_thread == NULL || interval_pid != getpid ()) {
    tick_stop = FALSE;
    interval_pid = getpid ();
    interval_thread = g_thread_new ("axprof-interval", interval_loop, NULL);
  }
  g_mutex_unlock (&tick_lock);
}

void
axprof_interval_stop (void)
{
  guint i;

  if (interval_ns == 0)
    return;
  if (interval_thread != NULL && interval_pid == getpid ()) {
    g_mutex_lock (&tick_lock);
    tick_stop = TRUE;
    g_cond_signal (&tick_cond);
    g_mutex_unlock (&tick_lock);
    g_thread_join (interval_thread);
  }
  interval_thread = NULL;
  interval_ns = 0;
  for (i = 0; i < states->len; i++) {
    IntervalState *st = g_ptr_array_index (states, i);

    state_restart (st, 0);
    g_free (st);
  }
  g_clear_pointer (&states, g_ptr_array_unref);
}

gboolean
axprof_interval_enabled (void)
{
  return interval_ns > 0;
}

void
axprof_interval_lock (void)
{
  g_rec_mutex_lock (&interval_lock);
}

void
axprof_interval_unlock (void)
{
  g_rec_mutex_unlock (&interval_lock);
}

/* The run's last interval, from the last one's end to @final (the run's
 * report, made with @raw): the intervals tile the run. Called with
 * axprof_interval_lock(), axprof_global_lock and p->lock held, before
 * @final is written; NULL when no
 * interval report is due (interval= unset, or the run had no buffer). */
GstAxReport *
axprof_interval_finish (PipelineState * p, const GstAxReport * final,
    const ReportRaw * raw)
{
  IntervalState *st;
  GstAxReport *r;

  if (interval_ns == 0 || final->refusal != NULL ||
      __atomic_load_n (&p->first_ts, __ATOMIC_ACQUIRE) == 0)
    return NULL;
  st = state_of (p);
  if (st->run != p->run)
    state_restart (st, p->run);
  r = axprof_interval_diff (final, raw, st->prev, st->prev_raw, st->index + 1);
  /* the next run counts from 1 again */
  state_restart (st, p->run + 1);
  return r;
}
