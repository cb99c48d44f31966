/* gst-ax
 * Copyright (C) 2026 gst-ax developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

/* A pipeline's records started afresh: for a new run after a report
 * (axprof_pipeline_reset()), and for a profiled section of a run, which
 * the action signals "section-start" and "section-stop" of the tracer
 * (gstaxprof.c) start and stop.
 *
 * A section's start clears the pipeline's accumulators (rows, latency
 * histograms, queue levels over time, device busy intervals) and notes
 * what the elements' own device books hold; the stop makes the report of
 * what ran since, through the same axprof_make_report() as the report at
 * EOS. The EOS report (and its perfetto= timeline) that follows a section
 * covers the run from the section's start.
 *
 * The per-buffer hooks write their rows without a lock (see
 * gstaxprof-private.h), so a start while buffers flow races with the
 * call in progress on each streaming thread: that call may count on
 * either side of the boundary. Counts are exact when no buffer moves at
 * the start and the stop (the source held, or the pipeline paused);
 * nothing is freed or moved, so the race costs at most those calls. */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstaxprof-thread.h"
#include "gstaxprof-census.h"
#include "gstaxprof-report-private.h"

#include <string.h>

/* PipelineState (never freed) -> the section is open; under
 * axprof_global_lock */
static GHashTable *open_sections;

/* Asks the thread that owns @st to clear it before its next write. */
static void
request_row_restart (RowStats * st, guint64 now_ns)
{
  AXPROF_STORE (st->restart_ns, now_ns);
  __atomic_add_fetch (&st->restart_gen, 1, __ATOMIC_RELEASE);
}

/* q->lock held. The level over time restarts at @hook_ns (the pad
 * hooks' clock) from the level the queue holds now. */
static void
restart_queue (QueueState * q, guint64 hook_ns)
{
  gint64 level = MAX (q->depth, 0);

  if (!q->seen)
    return;
  if (q->elem->queue_kind == QUEUE_SINGLE && q->limits.buffers > 0)
    level = MIN (level, (gint64) q->limits.buffers);
  q->first_ns = q->last_ns = MAX (hook_ns, q->last_ns);
  q->area = 0;
  q->at_max_ns = q->at_max_bytes_ns = q->at_max_time_ns = 0;
  q->full_ns = q->empty_ns = 0;
  q->min = q->max = level;
}

/* d->lock held */
static void
restart_device (DeviceState * d)
{
  d->busy_ns = d->events = d->union_ns = d->cur_start = d->cur_end = 0;
  d->first_start = d->last_end = 0;
  d->min_job = G_MAXUINT64;
  d->max_job = 0;
  d->base.jobs_done = d->jobs_done;
  d->base.sim_cpu_ns = d->sim_cpu_ns;
  d->base.lag_ns = d->lag_ns;
  d->base.in_window_ns = d->in_window_ns;
  d->base.held_in_window_ns = d->held_in_window_ns;
  d->base.window_span_ns = d->window_span_ns;
}

/* A new run of @p, after its report (the pipeline goes to PAUSED again):
 * every record starts afresh. axprof_global_lock and p->lock held. */
void
axprof_pipeline_reset (PipelineState * p)
{
  guint i, s;

  for (i = 0; i < p->rows->len; i++) {
    Row *row = g_ptr_array_index (p->rows, i);

    __atomic_store_n (&row->trace_submits, 0, __ATOMIC_RELAXED);
    for (s = 0; s < axprof_slot_count (); s++) {
      RowStats *st = axprof_row_slot (row, s);
      LatencyHistogram *lat;

      if (st == NULL)
        continue;
      lat = st->lat;
      memset (st, 0, sizeof (*st));
      st->wall_min_ns = G_MAXUINT64;
      st->first_seen_ns = gst_ax_probe_now_ns ();
      if (lat) {
        memset (lat, 0, sizeof (*lat));
        lat->min_ns = G_MAXUINT64;
        st->lat = lat;
      }
    }
  }
  for (i = 0; i < p->queues->len; i++) {
    QueueState *q = g_ptr_array_index (p->queues, i);

    g_mutex_lock (&q->lock);
    q->seen = FALSE;
    q->depth = q->bytes = 0;
    q->in_end = q->out_end = GST_CLOCK_TIME_NONE;
    q->area = 0;
    q->at_max_ns = q->at_max_bytes_ns = q->at_max_time_ns = 0;
    q->full_ns = q->empty_ns = 0;
    q->in_buffers = q->out_buffers = q->flushed = 0;
    g_mutex_unlock (&q->lock);
  }
  for (i = 0; i < p->elems->len; i++) {
    ElementState *ei = g_ptr_array_index (p->elems, i);

    ei->qos_messages = ei->qos_processed = ei->qos_dropped = 0;
  }
  for (i = 0; i < p->devices->len; i++) {
    DeviceState *d = g_ptr_array_index (p->devices, i);

    g_mutex_lock (&d->lock);
    d->busy_ns = d->events = d->union_ns = d->cur_start = d->cur_end = 0;
    d->first_start = d->last_end = 0;
    d->min_job = G_MAXUINT64;
    d->max_job = 0;
    d->trace_seq = 0;
    memset (&d->base, 0, sizeof (d->base));
    g_mutex_unlock (&d->lock);
  }
  for (i = 0; i < (guint) p->n_rings; i++)
    p->rings[i]->head = 0;
  p->first_ts = 0;
  p->end_probe_ns = p->cpu1_ns = 0;
  p->run++;
}

/* axprof_global_lock and p->lock held */
static void
restart_pipeline (PipelineState * p)
{
  guint64 now_ns = gst_ax_probe_now_ns (), hook_ns = 0;
  guint i, s;

  /* the pad hooks stamp on GStreamer's tracer clock, the probe on
   * CLOCK_MONOTONIC: the first buffer gave one reading of each */
  if (p->first_ts != 0 && now_ns > p->first_probe_ns)
    hook_ns = p->first_ts + (now_ns - p->first_probe_ns);
  for (i = 0; i < p->rows->len; i++) {
    Row *row = g_ptr_array_index (p->rows, i);

    for (s = 0; s < axprof_slot_count (); s++) {
      RowStats *st = axprof_row_slot (row, s);

      if (st)
        request_row_restart (st, now_ns);
    }
  }
  for (i = 0; i < p->queues->len; i++) {
    QueueState *q = g_ptr_array_index (p->queues, i);

    g_mutex_lock (&q->lock);
    restart_queue (q, hook_ns);
    g_mutex_unlock (&q->lock);
  }
  for (i = 0; i < p->devices->len; i++) {
    DeviceState *d = g_ptr_array_index (p->devices, i);

    g_mutex_lock (&d->lock);
    restart_device (d);
    g_mutex_unlock (&d->lock);
  }
  /* the wall time starts again at the next buffer a source pushes */
  __atomic_store_n (&p->first_ts, 0, __ATOMIC_RELEASE);
  p->end_probe_ns = p->cpu1_ns = 0;
  p->log_count0 = axprof_debug_logged ();
  p->started = TRUE;
  axprof_census_snapshot (p);
  /* the perfetto= timeline keeps only the spans of the current run */
  p->run++;
}

/* Starts a section of @pipeline's run: its figures count from now. */
void
axprof_section_start (GstElement * pipeline)
{
  PipelineState *p = axprof_pipeline_of (pipeline, TRUE);

  g_mutex_lock (&axprof_global_lock);
  g_mutex_lock (&p->lock);
  restart_pipeline (p);
  g_mutex_unlock (&p->lock);
  if (open_sections == NULL)
    open_sections = g_hash_table_new (NULL, NULL);
  g_hash_table_add (open_sections, p);
  g_mutex_unlock (&axprof_global_lock);
  GST_INFO_OBJECT (pipeline, "section started");
}

/* Ends the section of @pipeline: the report of what ran in it, or NULL
 * when no section of @pipeline was started. */
GstAxReport *
axprof_section_stop (GstElement * pipeline, const TracerSetup * setup)
{
  PipelineState *p = axprof_pipeline_of (pipeline, FALSE);
  GstAxReport *r;

  if (p == NULL)
    return NULL;
  g_mutex_lock (&axprof_global_lock);
  if (open_sections == NULL || !g_hash_table_remove (open_sections, p)) {
    g_mutex_unlock (&axprof_global_lock);
    return NULL;
  }
  g_mutex_lock (&p->lock);
  r = axprof_make_report (setup, p, GST_AX_REPORT_STATUS_SECTION);
  g_mutex_unlock (&p->lock);
  g_mutex_unlock (&axprof_global_lock);
  GST_INFO_OBJECT (pipeline, "section stopped: %" G_GUINT64_FORMAT
      " frames", r->frames);
  return r;
}
