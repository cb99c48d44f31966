/* gst-ax
 * Copyright (C) 2026 gst-ax developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

/* The report of a pipeline's run: the rows merged over threads in
 * execution order, the CPU accounting, latency, throughput, queues
 * (gstaxprof-report-queues.c) and devices (gstaxprof-report-devices.c),
 * the profiler's own cost, then the verdict, which gst/ax makes from the
 * report alone (gst_ax_report_make_verdict()). */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstaxprof-thread.h"
#include "gstaxprof-census.h"
#include "gstaxprof-report-private.h"

#include <math.h>
#include <string.h>
#include <sys/resource.h>

#define KIB_PER_MIB 1024.0

/* The buffers the sinks got, by media: frames are counted at the busiest
 * video sink, else (no sink negotiated video caps) at the busiest sink
 * that is not an audio one; audio buffers apart, at the busiest audio
 * sink. */
typedef struct
{
  guint64 frames;
  ElementState *frames_sink;
  guint video_sinks;
  guint64 audio;
  ElementState *audio_sink;
} SinkCounts;

static void
sink_counts_add (SinkCounts * c, ElementState * ei, guint64 items,
    guint64 * other, ElementState ** other_sink)
{
  switch (__atomic_load_n (&ei->sink_media, __ATOMIC_RELAXED)) {
    case SINK_MEDIA_VIDEO:
      c->video_sinks++;
      if (c->frames_sink == NULL || items > c->frames) {
        c->frames = items;
        c->frames_sink = ei;
      }
      break;
    case SINK_MEDIA_AUDIO:
      if (c->audio_sink == NULL || items > c->audio) {
        c->audio = items;
        c->audio_sink = ei;
      }
      break;
    default:
      if (*other_sink == NULL || items > *other) {
        *other = items;
        *other_sink = ei;
      }
      break;
  }
}

static void
sink_counts_finish (SinkCounts * c, guint64 other, ElementState * other_sink)
{
  if (c->video_sinks == 0) {
    c->frames = other;
    c->frames_sink = other_sink;
  }
}

static void
merge_row (Row * row, MergedRow * m, LatencyHistogram * lat,
    const gdouble * wait_ratios)
{
  guint i, b;

  memset (m, 0, sizeof (*m));
  m->row = row;
  m->wall_min_ns = G_MAXUINT64;
  m->first_seen_ns = G_MAXUINT64;
  for (i = 0; i < axprof_slot_count (); i++) {
    RowStats *st = axprof_row_slot (row, i);

    /* a section restarted it and its thread has not written since: it
     * holds only what came before the section */
    if (st == NULL || __atomic_load_n (&st->restart_gen, __ATOMIC_ACQUIRE) !=
        __atomic_load_n (&st->gen_seen, __ATOMIC_ACQUIRE))
      continue;
    m->count += AXPROF_LOAD (st->count);
    m->items += AXPROF_LOAD (st->items);
    m->wall_sum_ns += AXPROF_LOAD (st->wall_sum_ns);
    m->wall_min_ns = MIN (m->wall_min_ns, AXPROF_LOAD (st->wall_min_ns));
    m->wall_max_ns = MAX (m->wall_max_ns, AXPROF_LOAD (st->wall_max_ns));
    m->cpu_sum_ns += AXPROF_LOAD (st->cpu_sum_ns);
    if (wait_ratios)
      m->cpu_wait_ns += wait_ratios[i] * MAX (AXPROF_LOAD (st->cpu_sum_ns), 0);
    m->faults_sum += AXPROF_LOAD (st->faults_sum);
    m->reads += AXPROF_LOAD (st->reads);
    m->reads_timed += AXPROF_LOAD (st->reads_timed);
    m->read_timed_ns += AXPROF_LOAD (st->read_timed_ns);
    if (AXPROF_LOAD (st->count) > 0)
      m->first_seen_ns =
          MIN (m->first_seen_ns, AXPROF_LOAD (st->first_seen_ns));
    if (st->lat && lat) {
      LatencyHistogram *sl = st->lat;

      lat->n += AXPROF_LOAD (sl->n);
      lat->sum_ns += AXPROF_LOAD (sl->sum_ns);
      lat->sumsq_ns += AXPROF_LOAD (sl->sumsq_ns);
      lat->unmatched += AXPROF_LOAD (sl->unmatched);
      lat->min_ns = MIN (lat->min_ns, AXPROF_LOAD (sl->min_ns));
      lat->max_ns = MAX (lat->max_ns, AXPROF_LOAD (sl->max_ns));
      for (b = 0; b < HIST_BUCKETS; b++)
        lat->buckets[b] += AXPROF_LOAD (sl->buckets[b]);
    }
  }
}

/* Execution order: by distance from the sources along the links, then by
 * the order elements were added; within an element its chain row, then
 * the stages it reported, then its task loop. */
static gint
kind_order (RowKind kind)
{
  switch (kind) {
    case ROW_CHAIN:
      return 0;
    case ROW_PROBE:
      return 1;
    case ROW_LOOP:
    default:
      return 2;
  }
}

static gint
compare_merged (gconstpointer a, gconstpointer b)
{
  const MergedRow *ma = a, *mb = b;

  if (ma->rank != mb->rank)
    return ma->rank < mb->rank ? -1 : 1;
  if (ma->row->elem != mb->row->elem)
    return ma->row->elem->order < mb->row->elem->order ? -1 : 1;
  if (ma->row->kind != mb->row->kind)
    return kind_order (ma->row->kind) < kind_order (mb->row->kind) ? -1 : 1;
  if (ma->first_seen_ns != mb->first_seen_ns)
    return ma->first_seen_ns < mb->first_seen_ns ? -1 : 1;
  return 0;
}

#define RANK_VISITING (-1)
#define RANK_UNKNOWN GST_AX_REPORT_RANK_UNKNOWN

static gint
element_rank (GstElement * e, GHashTable * memo)
{
  gpointer v;
  GList *pads = NULL, *l;
  gint rank = 0;

  if (g_hash_table_lookup_extended (memo, e, NULL, &v))
    return GPOINTER_TO_INT (v) == RANK_VISITING ? 0 : GPOINTER_TO_INT (v);
  g_hash_table_insert (memo, e, GINT_TO_POINTER (RANK_VISITING));

  GST_OBJECT_LOCK (e);
  for (l = e->sinkpads; l; l = l->next)
    pads = g_list_prepend (pads, gst_object_ref (l->data));
  GST_OBJECT_UNLOCK (e);
  for (l = pads; l; l = l->next) {
    GstElement *up = axprof_upstream_element (l->data);

    if (up) {
      rank = MAX (rank, element_rank (up, memo) + 1);
      gst_object_unref (up);
    }
  }
  g_list_free_full (pads, gst_object_unref);
  g_hash_table_insert (memo, e, GINT_TO_POINTER (rank));
  return rank;
}

static gboolean
element_bool_prop (GstElement * e, const gchar * name, gboolean * value)
{
  if (e == NULL || !g_object_class_find_property (G_OBJECT_GET_CLASS (e), name))
    return FALSE;
  g_object_get (e, name, value, NULL);
  return TRUE;
}

/* axprof_global_lock held (elements are only read while their info says they
 * are alive) */
static gchar *
describe_pacing (PipelineState * p, gchar ** live_source)
{
  GString *synced = g_string_new (NULL);
  gchar *out = NULL;
  guint i;

  for (i = 0; i < p->elems->len; i++) {
    ElementState *ei = g_ptr_array_index (p->elems, i);
    gboolean v;

    if (ei->is_source && element_bool_prop (ei->element, "is-live", &v) && v) {
      out = g_strdup_printf ("paced by the live source %s", ei->name);
      *live_source = g_strdup (ei->name);
      break;
    }
    if (ei->is_sink && element_bool_prop (ei->element, "sync", &v) && v)
      g_string_append_printf (synced, "%s%s", synced->len ? ", " : "",
          ei->name);
  }
  if (out == NULL && synced->len)
    out = g_strdup_printf ("paced by clock sync in %s (sync=true)",
        synced->str);
  if (out == NULL)
    out = g_strdup ("free-running: no live source, no sink syncs");
  g_string_free (synced, TRUE);
  return out;
}

/* Adds @e and every element upstream of it to @set. */
static void
collect_upstream (GstElement * e, GHashTable * set)
{
  GList *pads = NULL, *l;

  if (g_hash_table_contains (set, e))
    return;
  g_hash_table_add (set, e);
  GST_OBJECT_LOCK (e);
  for (l = e->sinkpads; l; l = l->next)
    pads = g_list_prepend (pads, gst_object_ref (l->data));
  GST_OBJECT_UNLOCK (e);
  for (l = pads; l; l = l->next) {
    GstElement *up = axprof_upstream_element (l->data);

    if (up) {
      collect_upstream (up, set);
      gst_object_unref (up);
    }
  }
  g_list_free_full (pads, gst_object_unref);
}

#define INPUT_SELECTOR_TYPE "GstInputSelector"

/* The elements that feed only pads an input-selector does not pass on
 * (read once, at the report, from its active-pad property): their time
 * never reaches a sink. axprof_global_lock held. */
static GHashTable *
inactive_elements (PipelineState * p)
{
  GHashTable *active = g_hash_table_new (NULL, NULL);
  GHashTable *idle = g_hash_table_new (NULL, NULL);
  GHashTableIter it;
  gpointer e;
  guint i;

  for (i = 0; i < p->elems->len; i++) {
    ElementState *ei = g_ptr_array_index (p->elems, i);
    GstPad *on = NULL;
    GList *pads = NULL, *l;

    if (ei->element == NULL ||
        g_strcmp0 (G_OBJECT_TYPE_NAME (ei->element), INPUT_SELECTOR_TYPE))
      continue;
    g_object_get (ei->element, "active-pad", &on, NULL);
    GST_OBJECT_LOCK (ei->element);
    for (l = ei->element->sinkpads; l; l = l->next)
      pads = g_list_prepend (pads, gst_object_ref (l->data));
    GST_OBJECT_UNLOCK (ei->element);
    for (l = pads; l; l = l->next) {
      GstElement *up = axprof_upstream_element (l->data);

      if (up) {
        collect_upstream (up, l->data == (gpointer) on ? active : idle);
        gst_object_unref (up);
      }
    }
    g_list_free_full (pads, gst_object_unref);
    if (on)
      gst_object_unref (on);
  }
  g_hash_table_iter_init (&it, idle);
  while (g_hash_table_iter_next (&it, &e, NULL))
    if (g_hash_table_contains (active, e))
      g_hash_table_iter_remove (&it);
  g_hash_table_unref (active);
  return idle;
}

static gdouble
peak_mem_mb (void)
{
  struct rusage ru;

  getrusage (RUSAGE_SELF, &ru);
  /* ru_maxrss is in KiB on Linux */
  return ru.ru_maxrss / KIB_PER_MIB;
}

MergedRow *
axprof_merged_for (ReportBuild * b, Row * row)
{
  guint i;

  for (i = 0; i < b->merged->len; i++) {
    MergedRow *m = &g_array_index (b->merged, MergedRow, i);

    if (m->row == row)
      return m;
  }
  return NULL;
}

/* ---------------------------------------------------------------- CPU */

/* An element's workers over the run: the threads it made and the pool
 * CPU its calls took. */
typedef struct
{
  guint64 cpu_ns;
  guint threads;
  /* the part from thread pools */
  guint64 pool_ns;
} WorkerSum;

static const gchar *
census_kind_name (CensusKind kind)
{
  switch (kind) {
    case CENSUS_HOOKED:
      return "streaming";
    case CENSUS_WORKER:
      return "worker";
    case CENSUS_POOL:
      return "pool";
    case CENSUS_SIMULATOR:
      return "simulator";
    case CENSUS_OTHER:
    default:
      return "other";
  }
}

/* Each element's workers, by ElementState (owned by the table). */
static GHashTable *
worker_sums (PipelineState * p, GArray * uses)
{
  GHashTable *sums = g_hash_table_new_full (NULL, NULL, NULL, g_free);
  guint i;

  for (i = 0; i < uses->len; i++) {
    ThreadUse *u = &g_array_index (uses, ThreadUse, i);
    WorkerSum *w;

    if (u->kind != CENSUS_WORKER || u->owner == NULL)
      continue;
    w = g_hash_table_lookup (sums, u->owner);
    if (w == NULL) {
      w = g_new0 (WorkerSum, 1);
      g_hash_table_insert (sums, u->owner, w);
    }
    w->cpu_ns += u->cpu_ns;
    w->threads++;
  }
  for (i = 0; i < p->elems->len; i++) {
    ElementState *ei = g_ptr_array_index (p->elems, i);
    guint64 pool_ns;
    guint threads;
    WorkerSum *w;

    axprof_pool_share (ei, &pool_ns, &threads);
    if (pool_ns == 0)
      continue;
    w = g_hash_table_lookup (sums, ei);
    if (w == NULL) {
      w = g_new0 (WorkerSum, 1);
      g_hash_table_insert (sums, ei, w);
    }
    w->cpu_ns += pool_ns;
    w->pool_ns += pool_ns;
    w->threads += MAX (threads, 1);
  }
  return sums;
}

/* The row that carries @m's element's workers: an aggregator's task loop
 * (it blends or muxes there), else of its chain and its task loop the one
 * with the more wall time. */
static gboolean
carries_workers (ReportBuild * b, MergedRow * m)
{
  ElementState *ei = m->row->elem;
  MergedRow *other;

  if (m->row->kind == ROW_PROBE)
    return FALSE;
  /* an aggregator's chain calls only queue its input */
  if (ei->is_aggregator && axprof_merged_for (b, ei->loop_row) != NULL)
    return m->row->kind == ROW_LOOP;
  other = axprof_merged_for (b, m->row->kind == ROW_CHAIN ? ei->loop_row :
      ei->chain_row);
  if (other == NULL)
    return TRUE;
  if (m->wall_sum_ns != other->wall_sum_ns)
    return m->wall_sum_ns > other->wall_sum_ns;
  return m->row->kind == ROW_CHAIN;
}

/* The report's CPU accounting from the threads' use over the run and
 * what the rows took. */
static void
build_cpu (ReportBuild * b, GArray * uses, guint64 process_cpu_ns,
    gboolean alone, guint64 workers_in_rows_ns, guint64 pool_in_rows_ns)
{
  GstAxReport *r = b->r;
  guint64 streaming = 0, pool = 0, sim = 0, other = 0, workers = 0, all;
  gdouble rows = 0, ms = GST_MSECOND;
  guint i, j;

  for (i = 0; i < uses->len; i++) {
    ThreadUse *u = &g_array_index (uses, ThreadUse, i);
    GstAxReportThread t = { 0, };

    switch (u->kind) {
      case CENSUS_HOOKED:
        streaming += u->cpu_ns;
        break;
      case CENSUS_WORKER:
        workers += u->cpu_ns;
        break;
      case CENSUS_POOL:
        pool += u->cpu_ns;
        break;
      case CENSUS_SIMULATOR:
        sim += u->cpu_ns;
        break;
      case CENSUS_OTHER:
      default:
        other += u->cpu_ns;
        break;
    }
    if (u->cpu_ns == 0)
      continue;
    t.name = g_strdup (u->name);
    t.tid = u->tid;
    t.kind = g_strdup (census_kind_name (u->kind));
    t.element = u->owner ? g_strdup (u->owner->name) : NULL;
    t.cpu_ms = u->cpu_ns / ms;
    t.faults = (gdouble) u->faults;
    g_array_append_val (r->threads, t);
  }
  for (i = 0; i < r->groups->len; i++) {
    GstAxReportGroup *g = g_ptr_array_index (r->groups, i);

    for (j = 0; j < g->rows->len; j++) {
      GstAxReportRow *row = &g_array_index (g->rows, GstAxReportRow, j);

      rows += row->cpu_ms * row->count;
    }
  }
  all = streaming + workers + pool + sim + other;
  /* the pool threads are the process's: without them, what the pipeline's
   * calls took of them is still its own */
  if (!alone)
    all += pool_in_rows_ns;
  r->process_cpu_ms = process_cpu_ns / ms;
  r->ended_cpu_ms = alone && process_cpu_ns > all ?
      (process_cpu_ns - all) / ms : 0;
  r->pipeline_cpu_ms = all / ms + r->ended_cpu_ms;
  r->rows_cpu_ms = rows;
  r->other_cpu_ms = MAX (r->pipeline_cpu_ms - rows, 0);
  /* the rows' own CPU is the streaming threads' inside element calls */
  r->streaming_outside_cpu_ms = MAX ((streaming / ms) - (rows -
          workers_in_rows_ns / ms - pool_in_rows_ns / ms), 0);
  r->pool_unattributed_cpu_ms = alone && pool > pool_in_rows_ns ?
      (pool - pool_in_rows_ns) / ms : 0;
  r->simulator_cpu_ms = sim / ms;
  r->unattributed_cpu_ms = (other + (workers > workers_in_rows_ns ?
          workers - workers_in_rows_ns : 0)) / ms;
}

static void
build_rows (ReportBuild * b, LatencyHistogram * lat, gdouble * profiled_ns,
    guint64 * element_buffers, guint64 * reads, guint64 * reads_timed,
    guint64 * read_timed_ns)
{
  GstAxReport *r = b->r;
  GHashTable *memo = g_hash_table_new (NULL, NULL);
  GHashTable *idle = inactive_elements (b->p);
  guint slots = axprof_slot_count (), i, j;
  gdouble *wait_ratios = axprof_slot_wait_ratios (slots);
  gdouble wait_sum_ns = 0, cpu_sum_ns = 0, mean_ratio;

  for (i = 0; i < b->p->rows->len; i++) {
    MergedRow m;

    merge_row (g_ptr_array_index (b->p->rows, i), &m, lat, wait_ratios);
    if (m.count == 0)
      continue;
    m.rank = m.row->elem->element ?
        element_rank (m.row->elem->element, memo) : RANK_UNKNOWN;
    g_array_append_val (b->merged, m);
  }
  g_hash_table_unref (memo);
  g_free (wait_ratios);
  g_array_sort (b->merged, compare_merged);
  /* workers' threads wait for a CPU as the rows' threads do, on average */
  for (i = 0; i < b->merged->len; i++) {
    MergedRow *m = &g_array_index (b->merged, MergedRow, i);

    wait_sum_ns += m->cpu_wait_ns;
    cpu_sum_ns += MAX (m->cpu_sum_ns, 0);
  }
  mean_ratio = cpu_sum_ns > 0 ? wait_sum_ns / cpu_sum_ns : 0;

  for (i = 0; i < b->merged->len; i++) {
    MergedRow *m = &g_array_index (b->merged, MergedRow, i);
    const gchar *gname = axprof_row_group (m->row);
    GstAxReportGroup *g = NULL;
    GstAxReportRow *row;
    gchar *name;

    for (j = 0; j < r->groups->len; j++) {
      GstAxReportGroup *c = g_ptr_array_index (r->groups, j);

      if (strcmp (c->name, gname) == 0)
        g = c;
    }
    if (g == NULL)
      g = gst_ax_report_add_group (r, gname);
    name = axprof_row_name (m->row);
    row = gst_ax_report_group_add_row (g, name);
    g_free (name);
    if (b->workers && carries_workers (b, m)) {
      WorkerSum *w = g_hash_table_lookup (b->workers, m->row->elem);

      if (w && w->cpu_ns > 0) {
        /* CPU only: the workers' faults are theirs (cpu.threads[]), not
         * the calls', whose faults weigh the element's own allocation */
        m->cpu_sum_ns += (gint64) w->cpu_ns;
        m->cpu_wait_ns += mean_ratio * w->cpu_ns;
        row->workers = w->threads;
        row->worker_cpu_ms = w->cpu_ns / (gdouble) GST_MSECOND;
        row->flags |= GST_AX_REPORT_ROW_FLAG_WORKERS;
        b->workers_in_rows_ns += w->cpu_ns - w->pool_ns;
        b->pool_in_rows_ns += w->pool_ns;
      }
    }
    row->count = m->count;
    row->total_ms = m->wall_sum_ns / (gdouble) GST_MSECOND;
    row->mean_ms = row->total_ms / m->count;
    row->min_ms = m->wall_min_ns / (gdouble) GST_MSECOND;
    row->max_ms = m->wall_max_ns / (gdouble) GST_MSECOND;
    row->cpu_ms = MAX (m->cpu_sum_ns, 0) / (gdouble) GST_MSECOND / m->count;
    row->cpu_wait_ms = m->cpu_wait_ns / GST_MSECOND / m->count;
    row->faults = (gdouble) MAX (m->faults_sum, 0) / m->count;
    if (m->row->kind == ROW_LOOP)
      row->flags |= GST_AX_REPORT_ROW_FLAG_STAGE;
    if (m->row->kind == ROW_PROBE) {
      if (m->row->probe_flags & GST_AX_PROBE_FLAG_STAGE)
        row->flags |= GST_AX_REPORT_ROW_FLAG_STAGE;
      if (m->row->probe_flags & GST_AX_PROBE_FLAG_DEVICE_WAIT)
        row->flags |= GST_AX_REPORT_ROW_FLAG_DEVICE_WAIT;
    }
    row->element = g_strdup (m->row->elem->name);
    row->kind = m->row->kind == ROW_LOOP ? GST_AX_REPORT_ROW_KIND_TASK :
        m->row->kind == ROW_PROBE ? GST_AX_REPORT_ROW_KIND_REPORTED :
        GST_AX_REPORT_ROW_KIND_ELEMENT;
    row->rank = m->rank;
    if (m->row->kind != ROW_PROBE)
      row->out_bytes = __atomic_load_n (&m->row->elem->out_bytes,
          __ATOMIC_RELAXED);
    row->inactive = m->row->elem->element != NULL &&
        g_hash_table_contains (idle, m->row->elem->element);
    gst_ax_report_row_classify (row);
    *profiled_ns += m->wall_sum_ns;
    *reads += m->reads;
    *reads_timed += m->reads_timed;
    *read_timed_ns += m->read_timed_ns;
    if (m->row->kind == ROW_CHAIN)
      *element_buffers += m->count;
  }
  g_hash_table_unref (idle);
  if (b->merged->len == 0)
    r->groups_absent = g_strdup ("no buffer was processed by any element");
  gst_ax_report_finish_groups (r);
}

static void
build_latency (ReportBuild * b, LatencyHistogram * lat)
{
  axprof_report_fill_latency (b->r, lat);
}

/* The latency section from a merged histogram. */
void
axprof_report_fill_latency (GstAxReport * r, const LatencyHistogram * lat)
{
  GstAxReportLatency *l = &r->latency;
  gdouble mean, var;

  r->latency_unmatched = lat->unmatched;
  if (lat->n == 0) {
    r->latency_absent = lat->unmatched ?
        g_strdup_printf ("none of the %" G_GUINT64_FORMAT " sink buffers "
        "could be matched to the frame they came from (timestamps changed "
        "on the way, or buffers without timestamps replaced)", lat->unmatched)
        : g_strdup ("no buffer reached a sink");
    return;
  }
  mean = lat->sum_ns / lat->n;
  var = lat->sumsq_ns / lat->n - mean * mean;
  l->n = lat->n;
  l->min_ms = lat->min_ns / (gdouble) GST_MSECOND;
  l->max_ms = lat->max_ns / (gdouble) GST_MSECOND;
  l->mean_ms = mean / (gdouble) GST_MSECOND;
  l->stddev_ms = sqrt (MAX (var, 0)) / (gdouble) GST_MSECOND;
  l->jitter_ms = l->max_ms - l->min_ms;
  l->p50_ms = axprof_hist_percentile (lat, 0.50) / (gdouble) GST_MSECOND;
  l->p95_ms = axprof_hist_percentile (lat, 0.95) / (gdouble) GST_MSECOND;
  l->p99_ms = axprof_hist_percentile (lat, 0.99) / (gdouble) GST_MSECOND;
  l->p999_ms = lat->n >= GST_AX_REPORT_MIN_P999_SAMPLES ?
      axprof_hist_percentile (lat, 0.999) / (gdouble) GST_MSECOND : NAN;
}

/* The drops elements reported in QoS messages, in the order they were
 * added. */
static void
build_qos (ReportBuild * b)
{
  guint i;

  for (i = 0; i < b->p->elems->len; i++) {
    ElementState *ei = g_ptr_array_index (b->p->elems, i);
    GstAxReportQos q = { 0, };

    if (ei->qos_messages == 0)
      continue;
    q.element = g_strdup (ei->name);
    q.format = g_strdup (gst_format_get_name (ei->qos_format));
    q.processed = ei->qos_processed;
    q.dropped = ei->qos_dropped;
    q.messages = ei->qos_messages;
    g_array_append_val (b->r->qos, q);
  }
}

/* The frames the sinks got, as the throughput line counts them: what the
 * after-the-run DEBUG rule measures its rate against. p->lock held. */
static guint64
sink_frames (PipelineState * p)
{
  SinkCounts c = { 0, };
  ElementState *other_sink = NULL;
  guint64 other = 0;
  guint i;

  for (i = 0; i < p->rows->len; i++) {
    MergedRow m;
    Row *row = g_ptr_array_index (p->rows, i);

    if (row->kind != ROW_CHAIN || !row->elem->is_sink)
      continue;
    merge_row (row, &m, NULL, NULL);
    if (m.count > 0)
      sink_counts_add (&c, row->elem, m.items, &other, &other_sink);
  }
  sink_counts_finish (&c, other, other_sink);
  /* an audio-only run logs per buffer as much as per frame */
  return c.frames > 0 ? c.frames : c.audio;
}

ReportRaw *
axprof_report_raw_new (void)
{
  ReportRaw *raw = g_new0 (ReportRaw, 1);

  raw->queues = g_array_new (FALSE, TRUE, sizeof (RawQueue));
  raw->devices = g_array_new (FALSE, TRUE, sizeof (RawDevice));
  return raw;
}

void
axprof_report_raw_free (ReportRaw * raw)
{
  if (raw == NULL)
    return;
  g_array_unref (raw->queues);
  g_array_unref (raw->devices);
  g_free (raw);
}

/* axprof_global_lock and p->lock held */
GstAxReport *
axprof_make_report (const TracerSetup * setup, PipelineState * p,
    GstAxReportStatus status)
{
  return axprof_make_report_raw (setup, p, status, NULL);
}

/* The report, and what it was made from in @raw (emptied first) when
 * @raw is not NULL. axprof_global_lock and p->lock held. */
GstAxReport *
axprof_make_report_raw (const TracerSetup * setup, PipelineState * p,
    GstAxReportStatus status, ReportRaw * raw)
{
  GstAxReport *r = gst_ax_report_new ();
  LatencyHistogram *lat = g_new0 (LatencyHistogram, 1);
  ReportBuild b = {.r = r,.raw = raw,.merged = g_array_new (FALSE, TRUE,
        sizeof (MergedRow)),.p = p
  };
  gdouble profiled_ns = 0, cost_ns;
  guint64 element_buffers = 0, reads = 0, reads_timed = 0, read_timed_ns = 0,
      cpu1, end_ns;
  gdouble read_cost_ns;
  gchar *offender;
  gint64 logged;
  GArray *uses;
  gboolean alone;

  if (raw) {
    memset (&raw->lat, 0, sizeof (raw->lat));
    g_array_set_size (raw->queues, 0);
    g_array_set_size (raw->devices, 0);
  }
  r->pipeline = p->pipeline ? gst_object_get_name (GST_OBJECT (p->pipeline)) :
      g_strdup (p->name);
  r->status = status;
  if (status == GST_AX_REPORT_STATUS_ERROR) {
    r->error_element = g_strdup (p->error_element);
    r->error_message = g_strdup (p->error_message);
    r->error_debug = g_strdup (p->error_debug);
  }
  r->sample = 1;
  r->usage_mode = setup->exact ? g_strdup ("exact per call (exact=true: a "
      "read at every span boundary)") : g_strdup_printf ("exact per thread; "
      "per call exact for calls >= %.0f us, calls shorter than that share "
      "their neighbours' reads by wall time", setup->read_interval_ns /
      (gdouble) GST_USECOND);
  r->allow_debug = FALSE;

  offender = p->debug_at_start ? g_strdup (p->debug_at_start) :
      axprof_debug_default_offender ();
  logged = axprof_debug_logged () - (gint64) p->log_count0;
  if (offender == NULL && logged > 0) {
    guint64 frames = sink_frames (p);

    /* one stray message does not void a run; logging per frame does */
    if (gst_ax_debug_logged_per_frame (logged, frames))
      offender = axprof_debug_logged_offender (logged, frames);
  }
  if (offender) {
    if (setup->allow_debug) {
      r->allow_debug = TRUE;
    } else {
      gchar *message = gst_ax_debug_refusal_message (offender);

      r->refusal = g_strdup_printf ("%s This run logged %" G_GINT64_FORMAT
          " messages at DEBUG or above, each formatted and written on the "
          "thread that logged it. No timings are reported; pass "
          "allow-debug=true to report them anyway.", message, logged);
      g_free (message);
      g_free (offender);
      g_free (lat);
      g_array_unref (b.merged);
      return r;
    }
    g_free (offender);
  }

  end_ns = status == GST_AX_REPORT_STATUS_RUNNING || p->end_probe_ns == 0 ?
      gst_ax_probe_now_ns () : p->end_probe_ns;
  cpu1 = status == GST_AX_REPORT_STATUS_RUNNING || p->cpu1_ns == 0 ?
      axprof_process_cpu_ns () : p->cpu1_ns;
  if (p->first_ts != 0 && end_ns > p->first_probe_ns)
    b.wall_ns = end_ns - p->first_probe_ns;

  lat->min_ns = G_MAXUINT64;
  uses = g_array_new (FALSE, TRUE, sizeof (ThreadUse));
  alone = axprof_pipeline_alone (p);
  if (p->thread_base != NULL) {
    axprof_census_account (p, alone, uses);
    b.workers = worker_sums (p, uses);
  }
  build_rows (&b, lat, &profiled_ns, &element_buffers, &reads, &reads_timed,
      &read_timed_ns);
  if (p->thread_base != NULL && p->first_ts != 0)
    build_cpu (&b, uses, cpu1 - p->acct_cpu0_ns, alone, b.workers_in_rows_ns,
        b.pool_in_rows_ns);
  else
    r->cpu_absent = g_strdup ("no source pushed a buffer, so there is no run "
        "to account for");
  g_array_unref (uses);
  if (b.workers)
    g_hash_table_unref (b.workers);
  build_latency (&b, lat);
  if (raw)
    raw->lat = *lat;
  r->pacing = describe_pacing (p, &r->live_source);

  r->cores_available = g_get_num_processors ();
  r->peak_mem_mb = peak_mem_mb ();
  {
    SinkCounts c = { 0, };
    ElementState *other_sink = NULL;
    guint64 other = 0;
    guint i;

    for (i = 0; i < b.merged->len; i++) {
      MergedRow *m = &g_array_index (b.merged, MergedRow, i);

      /* buffers, not calls: a list brings several */
      if (m->row->kind == ROW_CHAIN && m->row->elem->is_sink)
        sink_counts_add (&c, m->row->elem, m->items, &other, &other_sink);
    }
    sink_counts_finish (&c, other, other_sink);
    r->frames = c.frames;
    r->frames_sink = c.frames_sink ? g_strdup (c.frames_sink->name) : NULL;
    r->video_sinks = c.video_sinks;
    r->audio_buffers = c.audio;
    r->audio_sink = c.audio_sink ? g_strdup (c.audio_sink->name) : NULL;
  }
  if (b.wall_ns > 0) {
    r->wall_s = b.wall_ns / (gdouble) GST_SECOND;
    r->fps = r->frames / r->wall_s;
    /* the pipeline's own threads where they are known, else the
     * process's */
    r->cores_used = r->cpu_absent || alone ?
        (cpu1 - p->cpu0_ns) / b.wall_ns :
        r->pipeline_cpu_ms * GST_MSECOND / b.wall_ns;
    r->cpu_percent = PERCENT * r->cores_used;
  } else {
    r->throughput_absent = g_strdup ("no source pushed a buffer, so there "
        "is no run to time");
  }
  axprof_build_queues (&b);
  build_qos (&b);
  axprof_build_devices (&b);

  /* GStreamer's dispatch of the hooks is paid only because a tracer is
   * on, so it is part of the profiler's cost */
  /* a read costs more among the pipeline's code than in the calibration's
   * tight loop: the reads timed where they ran say how much */
  read_cost_ns = reads_timed > 0 ? MAX (read_timed_ns / (gdouble) reads_timed -
      setup->clock_cost_ns, setup->read_cost_ns) : setup->read_cost_ns;
  cost_ns = element_buffers * setup->dispatch_cost_ns + reads * read_cost_ns;
  r->element_buffers = element_buffers;
  r->usage_reads = reads;
  r->profiler_ns_per_element_buffer = element_buffers ?
      cost_ns / element_buffers : 0;
  r->profiler_percent = profiled_ns > 0 ? PERCENT * cost_ns / profiled_ns : 0;
  r->dropped_threads =
      __atomic_load_n (&axprof_dropped_records, __ATOMIC_RELAXED);
  if (r->dropped_threads > 0)
    gst_ax_report_add_warning (r, "%" G_GUINT64_FORMAT " records from "
        "threads beyond axprof's %d thread slots were not measured: rows, "
        "frame counts and latency miss them", r->dropped_threads,
        MAX_THREAD_SLOTS);
  r->usage_reader =
      g_strdup (gst_ax_probe_thread_usage_reader_name
      (gst_ax_probe_thread_usage_reader ()));

  {
    guint i;

    for (i = 0; i < p->elems->len; i++) {
      ElementState *ei = g_ptr_array_index (p->elems, i);

      if (ei->is_source)
        g_ptr_array_add (r->sources, g_strdup (ei->name));
    }
  }
  axprof_build_projection (&b);
  /* the verdict reads only the report (gst/ax/gstaxverdict.c) */
  {
    GstAxReportVerdict *v = gst_ax_report_make_verdict (r);

    gst_ax_report_set_verdict (r, v);
    gst_ax_report_verdict_free (v);
  }
  g_free (lat);
  g_array_unref (b.merged);
  return r;
}
