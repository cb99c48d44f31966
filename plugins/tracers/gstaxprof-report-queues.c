/* gst-ax
 * Copyright (C) 2026 gst-ax developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

/* The report's queues: each queue's own level over the run against its
 * limits, how long it sat full or empty, what it dropped, and where its
 * output goes (the element it feeds, the branch of a tee). */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstaxprof-report-private.h"

/* GstQueueLeaky */
#define LEAKY_UPSTREAM 1
#define LEAKY_DOWNSTREAM 2

/* The limit that held @q full longest, NULL if none did; q->lock held. */
static const gchar *
queue_full_limit (const QueueState * q)
{
  const gchar *limit = NULL;
  guint64 best = 0;

  if (q->at_max_ns > best) {
    best = q->at_max_ns;
    limit = "max-size-buffers";
  }
  if (q->at_max_bytes_ns > best) {
    best = q->at_max_bytes_ns;
    limit = "max-size-bytes";
  }
  if (q->at_max_time_ns > best)
    limit = "max-size-time";
  return limit;
}

/* The element @q (a multiqueue's stream) pushes into, through ghost
 * pads (ref'd, or NULL); the global lock is held, so the queue element,
 * while set, is alive. */
static GstElement *
queue_next_element (const QueueState * q)
{
  GstElement *e = q->elem->element, *down;
  GstPad *src;
  gchar *name;

  if (e == NULL)
    return NULL;
  if (q->elem->queue_kind == QUEUE_MULTI) {
    name = g_strdup_printf ("src_%u", q->stream);
    src = gst_element_get_static_pad (e, name);
    g_free (name);
  } else {
    src = gst_element_get_static_pad (e, "src");
  }
  if (src == NULL)
    return NULL;
  /* a pad's real peer, through ghost pads, whichever its direction */
  down = axprof_upstream_element (src);
  gst_object_unref (src);
  return down;
}

static gchar *
queue_downstream (const QueueState * q)
{
  GstElement *down = queue_next_element (q);
  gchar *name;

  if (down == NULL)
    return NULL;
  name = gst_object_get_name (GST_OBJECT (down));
  gst_object_unref (down);
  return name;
}

/* Adds the names of @e and every element it feeds along the links to
 * @names (@seen: the elements visited). */
static void
collect_downstream (GstElement * e, GHashTable * seen, GPtrArray * names)
{
  GList *pads = NULL, *l;

  if (g_hash_table_contains (seen, e))
    return;
  g_hash_table_add (seen, e);
  g_ptr_array_add (names, gst_object_get_name (GST_OBJECT (e)));
  GST_OBJECT_LOCK (e);
  for (l = e->srcpads; l; l = l->next)
    pads = g_list_prepend (pads, gst_object_ref (l->data));
  GST_OBJECT_UNLOCK (e);
  for (l = pads; l; l = l->next) {
    GstElement *down = axprof_upstream_element (l->data);

    if (down) {
      collect_downstream (down, seen, names);
      gst_object_unref (down);
    }
  }
  g_list_free_full (pads, gst_object_unref);
}

/* The elements @q's output (a multiqueue stream's) reaches: its branch
 * of a tee, or NULL. The global lock is held. */
static GPtrArray *
queue_branch (const QueueState * q)
{
  GstElement *down = queue_next_element (q);
  GHashTable *seen;
  GPtrArray *names;

  if (down == NULL)
    return NULL;
  seen = g_hash_table_new (NULL, NULL);
  names = g_ptr_array_new_with_free_func (g_free);
  collect_downstream (down, seen, names);
  g_hash_table_unref (seen);
  gst_object_unref (down);
  return names;
}

/* Each queue's own level over its window: full and empty are the time
 * its level sat at a limit or at 0, never a guess from its threads. */
void
axprof_build_queues (ReportBuild * b)
{
  GstAxReport *r = b->r;
  /* the run's end on the hooks' clock: a queue keeps its last level
   * until then (a branch that finished early sat empty) */
  guint64 end_ts = b->p->first_ts != 0 && b->wall_ns > 0 ?
      b->p->first_ts + (guint64) b->wall_ns : 0;
  guint i;

  for (i = 0; i < b->p->queues->len; i++) {
    QueueState *q = g_ptr_array_index (b->p->queues, i);
    GstAxReportQueue rq = { 0, };
    guint64 span, held;

    g_mutex_lock (&q->lock);
    if (q->seen && end_ts > q->last_ns)
      axprof_queue_advance (q, end_ts);
    if (!q->seen || q->last_ns <= q->first_ns) {
      g_mutex_unlock (&q->lock);
      continue;
    }
    span = q->last_ns - q->first_ns;
    rq.name = g_strdup (q->name);
    rq.element = g_strdup (q->elem->name);
    rq.mean = q->area / span;
    rq.min = q->min;
    rq.max = q->max;
    rq.max_size_buffers = q->limits.buffers;
    rq.max_size_bytes = q->limits.bytes;
    rq.max_size_time_ms = q->limits.time_ns / (gdouble) GST_MSECOND;
    rq.at_max_percent = PERCENT * q->at_max_ns / span;
    rq.full_percent = MIN (PERCENT, PERCENT * q->full_ns / span);
    rq.empty_percent = MIN (PERCENT, PERCENT * q->empty_ns / span);
    rq.full_limit = g_strdup (queue_full_limit (q));
    rq.leaky = q->limits.leaky == LEAKY_UPSTREAM ? g_strdup ("upstream") :
        q->limits.leaky == LEAKY_DOWNSTREAM ? g_strdup ("downstream") : NULL;
    rq.input = q->in_buffers;
    /* what went in and neither came out, nor was flushed, nor is held */
    held = q->out_buffers + q->flushed + (guint64) MAX (q->depth, 0);
    rq.dropped = q->in_buffers > held ? q->in_buffers - held : 0;
    rq.dropped_percent = q->in_buffers > 0 ?
        PERCENT * rq.dropped / q->in_buffers : 0;
    if (b->raw) {
      RawQueue raw = { q->area, span, q->at_max_ns, q->full_ns, q->empty_ns };

      g_array_append_val (b->raw->queues, raw);
    }
    g_mutex_unlock (&q->lock);
    rq.downstream = queue_downstream (q);
    rq.branch = queue_branch (q);
    g_array_append_val (r->queues, rq);
  }
  if (r->queues->len == 0)
    r->queues_absent = g_strdup ("no queue, queue2 or multiqueue carried "
        "buffers in this pipeline");
}
