/* gst-ax
 * Copyright (C) 2026 gst-ax developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

/* The registry: a record per pipeline, element, queue and device, made
 * when first seen and kept for the life of the process. */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstaxprof-private.h"
#include "gstaxprof-trace.h"

#include <string.h>

/* ghost and proxy pads followed from a pad to its real peer, at most */
#define MAX_PAD_HOPS 16

GMutex axprof_global_lock;
GQuark axprof_element_quark;
GType axprof_pad_type;
static GQuark pad_queue_quark;
/* protected by axprof_global_lock */
static GPtrArray *pipes;

static void
element_state_gone (gpointer data)
{
  ElementState *ei = data;

  g_mutex_lock (&axprof_global_lock);
  ei->element = NULL;
  g_mutex_unlock (&axprof_global_lock);
}

static void pipeline_state_gone (gpointer data, GObject * where_the_object_was);

static PipelineState *
pipeline_state_get (GstElement * top)
{
  PipelineState *p;
  guint i;

  for (i = 0; i < pipes->len; i++) {
    p = g_ptr_array_index (pipes, i);
    if (p->pipeline == top)
      return p;
  }
  p = g_new0 (PipelineState, 1);
  p->pipeline = top;
  p->name = gst_object_get_name (GST_OBJECT (top));
  p->is_pipeline = GST_IS_PIPELINE (top);
  g_mutex_init (&p->lock);
  p->rows = g_ptr_array_new ();
  p->elems = g_ptr_array_new ();
  p->queues = g_ptr_array_new ();
  p->devices = g_ptr_array_new ();
  g_ptr_array_add (pipes, p);
  g_object_weak_ref (G_OBJECT (top), pipeline_state_gone, p);
  return p;
}

static void
pipeline_state_gone (gpointer data, GObject * where_the_object_was)
{
  PipelineState *p = data;

  g_mutex_lock (&axprof_global_lock);
  p->pipeline = NULL;
  g_mutex_unlock (&axprof_global_lock);
}

static Row *
row_new (PipelineState * p, ElementState * ei, RowKind kind)
{
  Row *row = g_new0 (Row, 1);

  row->pipe = p;
  row->elem = ei;
  row->kind = kind;
  g_ptr_array_add (p->rows, row);
  return row;
}

static guint
pad_index (GstPad * pad)
{
  const gchar *name = GST_OBJECT_NAME (pad);
  const gchar *us = name ? strrchr (name, '_') : NULL;

  return us ? (guint) g_ascii_strtoull (us + 1, NULL, 10) : 0;
}

/* An unsigned integer property of @obj, 0 when it has none. */
static guint64
uint_property (GObject * obj, const gchar * name)
{
  GParamSpec *pspec = g_object_class_find_property (G_OBJECT_GET_CLASS (obj),
      name);
  GValue v = G_VALUE_INIT;
  guint64 ret = 0;

  if (pspec == NULL)
    return 0;
  g_value_init (&v, pspec->value_type);
  g_object_get_property (obj, name, &v);
  if (G_VALUE_HOLDS_UINT (&v))
    ret = g_value_get_uint (&v);
  else if (G_VALUE_HOLDS_UINT64 (&v))
    ret = g_value_get_uint64 (&v);
  else if (G_VALUE_HOLDS_INT (&v))
    ret = (guint64) MAX (g_value_get_int (&v), 0);
  else if (G_VALUE_HOLDS_INT64 (&v))
    ret = (guint64) MAX (g_value_get_int64 (&v), 0);
  else if (G_VALUE_HOLDS_ENUM (&v))
    ret = (guint64) MAX (g_value_get_enum (&v), 0);
  g_value_unset (&v);
  return ret;
}

/* Never on the per-buffer path (at registration, a multiqueue stream's
 * first buffer, a notify), and never under a pipeline's or a queue's
 * lock: the getters take the queue element's own lock. */
static void
queue_read_limits (GstElement * element, QueueLimits * l)
{
  GObject *obj = G_OBJECT (element);

  l->buffers = (guint) MIN (uint_property (obj, "max-size-buffers"), G_MAXUINT);
  l->bytes = uint_property (obj, "max-size-bytes");
  l->time_ns = uint_property (obj, "max-size-time");
  l->leaky = (guint) uint_property (obj, "leaky");
}

static QueueState *
queue_state_new (PipelineState * p, ElementState * ei, const gchar * name,
    const QueueLimits * limits)
{
  QueueState *q = g_new0 (QueueState, 1);

  q->name = g_strdup (name);
  q->elem = ei;
  g_mutex_init (&q->lock);
  q->limits = *limits;
  q->leaky = limits->leaky;
  q->in_end = q->out_end = GST_CLOCK_TIME_NONE;
  g_ptr_array_add (p->queues, q);
  return q;
}

/* The limits are set before the run as a rule, but may change in it.
 * The hooks' clock is not at hand here, so the new limits count from the
 * queue's last change on: an error of at most one interval between two
 * buffers. */
static void
queue_limits_notify (GObject * obj, GParamSpec * pspec, gpointer user_data)
{
  ElementState *ei = user_data;
  QueueLimits l;
  guint i;

  queue_read_limits (GST_ELEMENT (obj), &l);
  g_mutex_lock (&ei->pipe->lock);
  for (i = 0; i < ei->pipe->queues->len; i++) {
    QueueState *q = g_ptr_array_index (ei->pipe->queues, i);

    if (q->elem != ei)
      continue;
    g_mutex_lock (&q->lock);
    q->limits = l;
    __atomic_store_n (&q->leaky, l.leaky, __ATOMIC_RELAXED);
    g_mutex_unlock (&q->lock);
  }
  g_mutex_unlock (&ei->pipe->lock);
}

static const gchar *const queue_limit_notifies[] = {
  "notify::max-size-buffers", "notify::max-size-bytes",
  "notify::max-size-time", "notify::leaky",
};

/* axprof_global_lock held. Walks up to the top-level bin; the child of the top
 * that contains the element names its group when it is a bin the user
 * built (a plain GstBin). A bin that is an element in its own right
 * (decodebin, autovideosink: a GstBin subclass) plugs its children in on
 * the user's behalf, so they are the pipeline's work, not a group. */
static ElementState *
element_state_create (GstElement * element)
{
  GstObject *obj = GST_OBJECT (element), *parent, *below_top = NULL;
  const gchar *factory_name = NULL;
  GstElementFactory *factory;
  ElementState *ei;
  PipelineState *p;
  QueueLimits limits = { 0, };

  while ((parent = GST_OBJECT_PARENT (obj)) != NULL && GST_IS_ELEMENT (parent)) {
    below_top = obj;
    obj = parent;
  }
  p = pipeline_state_get (GST_ELEMENT (obj));

  ei = g_new0 (ElementState, 1);
  ei->element = element;
  ei->name = gst_object_get_name (GST_OBJECT (element));
  ei->pipe = p;
  ei->is_sink = GST_OBJECT_FLAG_IS_SET (element, GST_ELEMENT_FLAG_SINK);
  ei->is_source = GST_OBJECT_FLAG_IS_SET (element, GST_ELEMENT_FLAG_SOURCE);
  ei->is_basesrc = g_type_is_a (G_OBJECT_TYPE (element),
      g_type_from_name ("GstBaseSrc"));
  ei->is_aggregator = g_type_is_a (G_OBJECT_TYPE (element),
      g_type_from_name ("GstAggregator"));
  if (below_top && below_top != GST_OBJECT (element) &&
      G_OBJECT_TYPE (below_top) == GST_TYPE_BIN)
    ei->bin_group = gst_object_get_name (below_top);

  factory = gst_element_get_factory (element);
  if (factory)
    factory_name = GST_OBJECT_NAME (factory);
  if (g_strcmp0 (factory_name, "queue") == 0 ||
      g_strcmp0 (factory_name, "queue2") == 0)
    ei->queue_kind = QUEUE_SINGLE;
  else if (g_strcmp0 (factory_name, "multiqueue") == 0)
    ei->queue_kind = QUEUE_MULTI;

  if (ei->queue_kind != QUEUE_NONE)
    queue_read_limits (element, &limits);
  ei->relay = axprof_latency_relay_new (element);

  g_mutex_lock (&p->lock);
  ei->order = p->elems->len;
  g_ptr_array_add (p->elems, ei);
  ei->chain_row = row_new (p, ei, ROW_CHAIN);
  ei->loop_row = row_new (p, ei, ROW_LOOP);
  if (ei->queue_kind == QUEUE_SINGLE)
    ei->queue = queue_state_new (p, ei, ei->name, &limits);
  g_mutex_unlock (&p->lock);

  g_object_set_qdata_full (G_OBJECT (element), axprof_element_quark, ei,
      element_state_gone);
  axprof_element_check_pool (ei);
  if (ei->queue_kind != QUEUE_NONE) {
    guint i;

    for (i = 0; i < G_N_ELEMENTS (queue_limit_notifies); i++)
      g_signal_connect (element, queue_limit_notifies[i],
          G_CALLBACK (queue_limits_notify), ei);
  }
  return ei;
}

ElementState *
axprof_element_state_slow (GstObject * parent)
{
  ElementState *ei;

  if (!GST_IS_ELEMENT (parent))
    return NULL;
  g_mutex_lock (&axprof_global_lock);
  ei = g_object_get_qdata (G_OBJECT (parent), axprof_element_quark);
  if (ei == NULL)
    ei = element_state_create (GST_ELEMENT (parent));
  g_mutex_unlock (&axprof_global_lock);
  return ei;
}

/* The real pad upstream of @sinkpad, through ghost and proxy pads (ref'd,
 * or NULL). */
GstPad *
axprof_upstream_pad (GstPad * sinkpad)
{
  GstPad *p = gst_pad_get_peer (sinkpad);
  guint hops;

  for (hops = 0; p != NULL && hops < MAX_PAD_HOPS; hops++) {
    if (GST_IS_GHOST_PAD (p)) {
      GstPad *target = gst_ghost_pad_get_target (GST_GHOST_PAD (p));

      gst_object_unref (p);
      p = target;
    } else if (GST_IS_PROXY_PAD (p)) {
      GstProxyPad *ghost = gst_proxy_pad_get_internal (GST_PROXY_PAD (p));

      gst_object_unref (p);
      p = ghost ? gst_pad_get_peer (GST_PAD (ghost)) : NULL;
      if (ghost)
        gst_object_unref (ghost);
    } else {
      return p;
    }
  }
  if (p)
    gst_object_unref (p);
  return NULL;
}

/* The real element upstream of @sinkpad, through ghost and proxy pads
 * (ref'd, or NULL). */
GstElement *
axprof_upstream_element (GstPad * sinkpad)
{
  GstPad *p = axprof_upstream_pad (sinkpad);
  GstElement *e;

  if (p == NULL)
    return NULL;
  e = gst_pad_get_parent_element (p);
  gst_object_unref (p);
  return e;
}

QueueState *
axprof_queue_of_pad (ElementState * ei, GstPad * pad)
{
  QueueState *q;
  QueueLimits limits;
  gchar *name;

  if (ei->queue_kind == QUEUE_SINGLE)
    return ei->queue;
  q = g_object_get_qdata (G_OBJECT (pad), pad_queue_quark);
  if (G_LIKELY (q != NULL))
    return q;

  /* multiqueue pairs sink_N with src_N: one record per stream, made on
   * its first buffer or flush; its limits are the element's */
  name = g_strdup_printf ("%s:%u", ei->name, pad_index (pad));
  queue_read_limits (GST_ELEMENT (GST_OBJECT_PARENT (pad)), &limits);
  g_mutex_lock (&ei->pipe->lock);
  {
    guint i;

    for (i = 0; i < ei->pipe->queues->len; i++) {
      QueueState *c = g_ptr_array_index (ei->pipe->queues, i);

      if (c->elem == ei && strcmp (c->name, name) == 0) {
        q = c;
        break;
      }
    }
    if (q == NULL) {
      q = queue_state_new (ei->pipe, ei, name, &limits);
      q->stream = pad_index (pad);
    }
  }
  g_mutex_unlock (&ei->pipe->lock);
  g_free (name);
  g_object_set_qdata (G_OBJECT (pad), pad_queue_quark, q);
  return q;
}

static GstClockTime
queue_time_level (const QueueState * q)
{
  if (!GST_CLOCK_TIME_IS_VALID (q->in_end) ||
      !GST_CLOCK_TIME_IS_VALID (q->out_end) || q->in_end <= q->out_end)
    return 0;
  return q->in_end - q->out_end;
}

/* The level the queue itself holds: the producer's chain return can land
 * after the consumer's push of the item the queue already let go, a
 * transient of one above a queue's limit (a multiqueue stream grows its
 * buffer limit while another stream is empty, so its level is kept). */
static gint64
queue_held (const QueueState * q)
{
  gint64 d = MAX (q->depth, 0);

  if (q->elem->queue_kind == QUEUE_SINGLE && q->limits.buffers > 0)
    d = MIN (d, (gint64) q->limits.buffers);
  return d;
}

/* q->lock held. Charges the time since the last change to the level
 * held during it. */
void
axprof_queue_advance (QueueState * q, guint64 ts)
{
  guint64 dt;
  gboolean full = FALSE;

  if (ts <= q->last_ns)
    return;
  dt = ts - q->last_ns;
  q->area += (gdouble) queue_held (q) * dt;
  if (q->limits.buffers > 0 && q->depth >= (gint64) q->limits.buffers) {
    q->at_max_ns += dt;
    full = TRUE;
  }
  if (q->limits.bytes > 0 && q->bytes >= (gint64) q->limits.bytes) {
    q->at_max_bytes_ns += dt;
    full = TRUE;
  }
  if (q->limits.time_ns > 0 && queue_time_level (q) >= q->limits.time_ns) {
    q->at_max_time_ns += dt;
    full = TRUE;
  }
  if (full)
    q->full_ns += dt;
  if (q->depth <= 0)
    q->empty_ns += dt;
  q->last_ns = ts;
}

/* q->lock held. Whether the queue, as tracked, would refuse a buffer:
 * then a buffer that comes in anyway was let in by a dequeue whose push
 * the hooks have not seen yet. A multiqueue stream's buffer limit is not
 * a hard one (it grows while another stream is empty), a leaky queue
 * takes the buffer and drops one. */
static gboolean
queue_refuses (const QueueState * q)
{
  if (q->limits.leaky)
    return FALSE;
  return (q->elem->queue_kind == QUEUE_SINGLE && q->limits.buffers > 0 &&
      q->depth >= (gint64) q->limits.buffers) ||
      (q->limits.bytes > 0 && q->bytes >= (gint64) q->limits.bytes) ||
      (q->limits.time_ns > 0 && queue_time_level (q) >= q->limits.time_ns);
}

/* q->lock held */
static void
queue_begin (QueueState * q, guint64 ts)
{
  if (!q->seen) {
    q->seen = TRUE;
    q->first_ns = q->last_ns = ts;
    q->min = q->max = 0;
  }
  axprof_queue_advance (q, ts);
}

/* q->lock held */
static void
queue_track_extremes (QueueState * q)
{
  if (q->depth >= 0) {
    gint64 d = queue_held (q);

    q->min = MIN (q->min, d);
    q->max = MAX (q->max, d);
  }
}

void
axprof_queue_in (QueueState * q, guint64 ts, guint n, guint64 bytes,
    GstClockTime start, GstClockTime end)
{
  gboolean transient;

  g_mutex_lock (&q->lock);
  queue_begin (q, ts);
  transient = queue_refuses (q);
  q->in_buffers += n;
  q->depth += n;
  q->bytes += (gint64) bytes;
  /* nothing has left yet: the time level starts at the first buffer */
  if (!GST_CLOCK_TIME_IS_VALID (q->out_end))
    q->out_end = start;
  if (GST_CLOCK_TIME_IS_VALID (end))
    q->in_end = end;
  /* a level the queue never held: left out of the extremes, while the
   * level itself stays exact for the push to come */
  if (!transient)
    queue_track_extremes (q);
  if (G_UNLIKELY (axprof_trace_on))
    axprof_trace_queue_level (q, ts);
  g_mutex_unlock (&q->lock);
}

/* A leaky queue drops buffers without a push, so its level is the
 * queue's own, read after its chain returned (never under q->lock: the
 * getters take the queue's lock, and it is taken on no other path). It
 * can read one below the hooks' count while the queue's thread has taken
 * a buffer out and not pushed it yet; what it dropped is counted at the
 * report from the buffers in and out, exact once the queue has drained. */
void
axprof_queue_in_leaky (QueueState * q, GstObject * queue, guint64 ts,
    guint n, GstClockTime start, GstClockTime end)
{
  guint level = 0, level_bytes = 0;
  guint64 level_time = 0;

  g_object_get (queue, "current-level-buffers", &level, "current-level-bytes",
      &level_bytes, "current-level-time", &level_time, NULL);
  g_mutex_lock (&q->lock);
  queue_begin (q, ts);
  q->in_buffers += n;
  q->depth = level;
  q->bytes = level_bytes;
  if (!GST_CLOCK_TIME_IS_VALID (q->out_end))
    q->out_end = start;
  if (GST_CLOCK_TIME_IS_VALID (end))
    q->in_end = end;
  /* what a leaky downstream queue drops is its oldest: the time level is
   * the queue's own */
  if (GST_CLOCK_TIME_IS_VALID (q->in_end))
    q->out_end = q->in_end > level_time ? q->in_end - level_time : 0;
  queue_track_extremes (q);
  if (G_UNLIKELY (axprof_trace_on))
    axprof_trace_queue_level (q, ts);
  g_mutex_unlock (&q->lock);
}

void
axprof_queue_out (QueueState * q, guint64 ts, guint n, guint64 bytes,
    GstClockTime end)
{
  g_mutex_lock (&q->lock);
  queue_begin (q, ts);
  q->out_buffers += n;
  q->depth -= n;
  q->bytes -= (gint64) bytes;
  if (GST_CLOCK_TIME_IS_VALID (end))
    q->out_end = end;
  queue_track_extremes (q);
  if (G_UNLIKELY (axprof_trace_on))
    axprof_trace_queue_level (q, ts);
  g_mutex_unlock (&q->lock);
}

void
axprof_queue_flush (QueueState * q, guint64 ts)
{
  g_mutex_lock (&q->lock);
  if (q->seen)
    axprof_queue_advance (q, ts);
  q->flushed += MAX (q->depth, 0);
  q->depth = q->bytes = 0;
  q->in_end = q->out_end = GST_CLOCK_TIME_NONE;
  if (G_UNLIKELY (axprof_trace_on))
    axprof_trace_queue_level (q, ts);
  g_mutex_unlock (&q->lock);
}

PipelineState *
axprof_pipeline_of (GstElement * element, gboolean create)
{
  PipelineState *p = NULL;
  guint i;

  g_mutex_lock (&axprof_global_lock);
  for (i = 0; i < pipes->len; i++) {
    PipelineState *c = g_ptr_array_index (pipes, i);

    if (c->pipeline == element)
      p = c;
  }
  if (p == NULL && create)
    p = pipeline_state_get (element);
  g_mutex_unlock (&axprof_global_lock);
  return p;
}

/* Every pipeline the tracer has seen (PipelineStates are never freed), in
 * a new array. */
GPtrArray *
axprof_pipelines (void)
{
  GPtrArray *out = g_ptr_array_new ();
  guint i;

  g_mutex_lock (&axprof_global_lock);
  for (i = 0; pipes != NULL && i < pipes->len; i++)
    g_ptr_array_add (out, g_ptr_array_index (pipes, i));
  g_mutex_unlock (&axprof_global_lock);
  return out;
}

/* Whether no other pipeline's run overlaps @p's now: then the process's
 * threads that nobody owns count as @p's. axprof_global_lock held. */
gboolean
axprof_pipeline_alone (PipelineState * p)
{
  guint i;

  for (i = 0; i < pipes->len; i++) {
    PipelineState *o = g_ptr_array_index (pipes, i);

    if (o != p && o->started && !o->reported)
      return FALSE;
  }
  return TRUE;
}

void
axprof_registry_init (void)
{
  axprof_element_quark = g_quark_from_static_string ("gst-ax-axprof-element");
  pad_queue_quark = g_quark_from_static_string ("gst-ax-axprof-queue");
  axprof_pad_type = GST_TYPE_PAD;
  g_mutex_lock (&axprof_global_lock);
  if (pipes == NULL)
    pipes = g_ptr_array_new ();
  g_mutex_unlock (&axprof_global_lock);
}

/* The row of the stage @span reports for @ei, made on first use; the
 * element's model group follows the last group it reported. */
Row *
axprof_pipeline_stage_row (PipelineState * p, ElementState * ei,
    const GstAxProbeSpan * span)
{
  Row *row = NULL;
  guint i;

  g_mutex_lock (&p->lock);
  for (i = 0; i < p->rows->len; i++) {
    Row *r = g_ptr_array_index (p->rows, i);

    if (r->kind == ROW_PROBE && r->elem == ei &&
        strcmp (r->stage, span->stage) == 0 &&
        g_strcmp0 (r->group, span->group) == 0) {
      row = r;
      break;
    }
  }
  if (row == NULL) {
    row = row_new (p, ei, ROW_PROBE);
    row->stage = g_strdup (span->stage);
    row->group = g_strdup (span->group);
    row->probe_flags = span->flags;
  }
  if (span->group && g_strcmp0 (ei->model_group, span->group) != 0) {
    g_free (ei->model_group);
    ei->model_group = g_strdup (span->group);
  }
  g_mutex_unlock (&p->lock);
  return row;
}

static const gchar *
loop_suffix (ElementState * ei)
{
  if (ei->queue_kind != QUEUE_NONE)
    return "pull";
  if (ei->is_basesrc)
    return "create";
  return "loop";
}

/* A row's name in the report and the timeline: its element's, with what
 * its task loop does, or the stage's. */
gchar *
axprof_row_name (Row * row)
{
  switch (row->kind) {
    case ROW_CHAIN:
      return g_strdup (row->elem->name);
    case ROW_LOOP:
      return g_strdup_printf ("%s (%s)", row->elem->name,
          loop_suffix (row->elem));
    case ROW_PROBE:
    default:
      return g_strdup (row->stage);
  }
}

/* The group a row is listed under: its stage's model, its element's
 * model or bin, else the pipeline. */
const gchar *
axprof_row_group (Row * row)
{
  if (row->kind == ROW_PROBE && row->group)
    return row->group;
  if (row->elem->model_group)
    return row->elem->model_group;
  if (row->elem->bin_group)
    return row->elem->bin_group;
  return "pipeline";
}

/* The device record of @ei's @group (the element's name when NULL), made
 * on first use. */
DeviceState *
axprof_pipeline_device (PipelineState * p, ElementState * ei,
    const gchar * group)
{
  DeviceState *d = NULL;
  guint i;

  g_mutex_lock (&p->lock);
  for (i = 0; i < p->devices->len; i++) {
    DeviceState *c = g_ptr_array_index (p->devices, i);

    if (c->elem == ei && g_strcmp0 (c->group, group) == 0) {
      d = c;
      break;
    }
  }
  if (d == NULL) {
    d = g_new0 (DeviceState, 1);
    d->group = g_strdup (group ? group : ei->name);
    d->elem = ei;
    d->min_job = G_MAXUINT64;
    g_mutex_init (&d->lock);
    g_ptr_array_add (p->devices, d);
  }
  if (group && g_strcmp0 (ei->model_group, group) != 0) {
    g_free (ei->model_group);
    ei->model_group = g_strdup (group);
  }
  g_mutex_unlock (&p->lock);
  return d;
}

/* A QoS message @ei posted: its counts are cumulative, the last one's
 * stand. Rare (a sink posts one per late buffer it drops), so under the
 * pipeline's lock. */
void
axprof_element_qos (ElementState * ei, GstMessage * message)
{
  GstFormat format = GST_FORMAT_UNDEFINED;
  guint64 processed = 0, dropped = 0;

  gst_message_parse_qos_stats (message, &format, &processed, &dropped);
  g_mutex_lock (&ei->pipe->lock);
  ei->qos_messages++;
  ei->qos_format = format;
  /* -1: the element does not know */
  ei->qos_processed = processed == G_MAXUINT64 ? 0 : processed;
  ei->qos_dropped = dropped == G_MAXUINT64 ? 0 : dropped;
  g_mutex_unlock (&ei->pipe->lock);
}
