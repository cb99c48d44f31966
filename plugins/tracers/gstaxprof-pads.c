/* gst-ax
 * Copyright (C) 2026 gst-ax developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

/* The pad hooks, which follow each buffer through the elements, and the
 * probe sink, which takes the stages and device events the elements
 * report through the gst/ax probe API. */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstaxprof-thread.h"

#include <string.h>

static void
mark_first_buffer (PipelineState * p, guint64 ts)
{
  /* once per run: the three stamps together under the pipeline's lock, as
   * a section's restart and the report read them */
  g_mutex_lock (&p->lock);
  if (__atomic_load_n (&p->first_ts, __ATOMIC_RELAXED) == 0) {
    p->cpu0_ns = axprof_process_cpu_ns ();
    p->first_probe_ns = gst_ax_probe_now_ns ();
    __atomic_store_n (&p->first_ts, ts, __ATOMIC_RELEASE);
  }
  g_mutex_unlock (&p->lock);
}

/* What @first, or @list when not NULL, holds for a queue's level: bytes
 * as the queue counts them, and the stretch of stream time it covers
 * (GST_CLOCK_TIME_NONE where untimed). Queue elements only. */
static void
queue_items (GstBuffer * first, GstBufferList * list, guint64 * bytes,
    GstClockTime * start, GstClockTime * end)
{
  GstBuffer *last = first;
  GstClockTime dur;

  *bytes = 0;
  *start = *end = GST_CLOCK_TIME_NONE;
  if (first == NULL)
    return;
  if (list != NULL) {
    *bytes = gst_buffer_list_calculate_size (list);
    last = gst_buffer_list_get (list, gst_buffer_list_length (list) - 1);
  } else {
    *bytes = gst_buffer_get_size (first);
  }
  *start = axprof_latency_buffer_ts (first);
  *end = axprof_latency_buffer_ts (last);
  dur = GST_BUFFER_DURATION (last);
  if (GST_CLOCK_TIME_IS_VALID (*end) && GST_CLOCK_TIME_IS_VALID (dur))
    *end += dur;
}

static void
do_push_common (guint64 ts, GstPad * pad, GstBuffer * first,
    GstBufferList * list, guint n)
{
  ThreadState *t = axprof_thread_state ();
  ElementState *ei = axprof_element_of_own_pad (t, pad);
  guint pushes;

  if (ei == NULL)
    return;
  pushes = __atomic_load_n (&ei->pushes, __ATOMIC_RELAXED);
  __atomic_store_n (&ei->pushes, pushes + 1, __ATOMIC_RELAXED);
  if (first != NULL && pushes % OUT_BYTES_EVERY == 0)
    __atomic_store_n (&ei->out_bytes, gst_buffer_get_size (first),
        __ATOMIC_RELAXED);
  /* Where frames enter: sources, the task loops of elements that are
   * not queues (a demuxer pulling from its source, an aggregator), and
   * the first timestamps on a path (a demuxer or parser in push mode, fed
   * bytes): the latency lookup takes the earliest push of a frame, so an
   * aggregator's own pushes never shadow its inputs'. A push from inside
   * an event (a decoder draining at EOS) is not a task loop's. */
  if (first != NULL && (ei->is_source || (t->depth == 0 &&
              t->event_depth == 0 && ei->queue_kind == QUEUE_NONE) ||
          (t->depth > 0 &&
              t->stack[t->depth - 1].untimed_in &&
              t->stack[t->depth - 1].row->elem == ei &&
              GST_CLOCK_TIME_IS_VALID (axprof_latency_buffer_ts (first))))) {
    if (G_UNLIKELY (__atomic_load_n (&ei->pipe->first_ts,
                __ATOMIC_RELAXED) == 0))
      mark_first_buffer (ei->pipe, ts);
    axprof_latency_mark (ei, pad, G_UNLIKELY (ei->relay != NULL) ?
        axprof_latency_relay_out (ei, ts) : ts, first);
  }
  if (ei->queue_kind != QUEUE_NONE && GST_PAD_IS_SRC (pad)) {
    guint64 bytes;
    GstClockTime start, end;

    queue_items (first, list, &bytes, &start, &end);
    axprof_queue_out (axprof_queue_of_pad (ei, pad), ts, n, bytes, end);
  }
  /* The call is left where the next element's chain begins: the pushing
   * pad's probes run before it, and their time is the pusher's. A push
   * made from inside a probe leaves at once. */
  if (G_UNLIKELY (t->push_pending))
    axprof_leave_current (t, ts);
  else
    t->push_pending = TRUE;
}

/* While tracing, first thing in a buffer's push and chain: the probe
 * clock against the hook's time, read before the thread's state, which
 * a thread's first hook makes. Out of line, so that the hooks pay
 * nothing for it (no registers saved) when the timeline is off. */
G_GNUC_NO_INLINE static void
trace_clock_sample (guint64 hook_ts)
{
  guint64 now = gst_ax_probe_now_ns ();

  axprof_trace_clock_sample (axprof_thread_state (), now, hook_ts);
}

void
axprof_pad_push_pre (GObject * self, GstClockTime ts, GstPad * pad,
    GstBuffer * buf)
{
  if (G_UNLIKELY (axprof_trace_on))
    trace_clock_sample (ts);
  do_push_common (ts, pad, buf, NULL, 1);
}

void
axprof_pad_push_list_pre (GObject * self, GstClockTime ts, GstPad * pad,
    GstBufferList * list)
{
  guint n = gst_buffer_list_length (list);

  do_push_common (ts, pad, n ? gst_buffer_list_get (list, 0) : NULL,
      n ? list : NULL, n);
}

void
axprof_pad_push_post (GObject * self, GstClockTime ts, GstPad * pad,
    GstFlowReturn r)
{
  ThreadState *t = axprof_thread_state ();
  ElementState *ei = axprof_element_of_own_pad (t, pad);

  if (ei == NULL)
    return;
  /* the buffer reached no element's chain (a probe dropped it, the pad
   * was flushing or unlinked): the call was never left */
  if (t->push_pending) {
    t->push_pending = FALSE;
    return;
  }
  axprof_return_to_current (t, ei, ts);
}

/* The element that receives the event pushed on @pad enters @t's census
 * context; caps and EOS are rare, so the peer is resolved through ghost
 * pads here. */
static ElementState *
event_receiver (ThreadState * t, GstPad * pad)
{
  GstPad *peer = axprof_upstream_pad (pad);
  ElementState *receiver = NULL;

  if (peer != NULL) {
    receiver = axprof_element_of_pad_in (t, peer);
    gst_object_unref (peer);
  }
  return receiver;
}

static void
event_context_enter (ThreadState * t, GstPad * pad, const gchar * how)
{
  ElementState *receiver = event_receiver (t, pad);

  if (receiver != NULL)
    axprof_element_check_pool (receiver);
  GST_INFO ("%s on %s:%s enters %s", how, GST_DEBUG_PAD_NAME (pad),
      receiver ? receiver->name : "nobody");
  axprof_census_context_enter (t, receiver, how);
}

/* A task pushes its stream-start, caps and segment events before its
 * first buffer: opening the loop when the outermost event push returns
 * lets the first buffer's create or pull be measured too (events that
 * elements forward from inside it are nested and ignored). An open loop
 * is left alone. */
void
axprof_pad_push_event_pre (GObject * self, GstClockTime ts, GstPad * pad,
    GstEvent * event)
{
  ThreadState *t = axprof_thread_state ();

  if (t->event_depth < MAX_TRACKED_EVENT_DEPTH &&
      (GST_EVENT_TYPE (event) == GST_EVENT_SEGMENT ||
          GST_EVENT_TYPE (event) == GST_EVENT_STREAM_START))
    t->sticky_events |= G_GUINT64_CONSTANT (1) << t->event_depth;
  /* an element that learns its caps opens its codec, whose threads are
   * its workers (gstaxprof-census.c); an encoder may reopen at EOS */
  if (G_UNLIKELY (GST_EVENT_TYPE (event) == GST_EVENT_CAPS ||
          GST_EVENT_TYPE (event) == GST_EVENT_EOS) &&
      t->event_depth < MAX_TRACKED_EVENT_DEPTH) {
    t->context_events |= G_GUINT64_CONSTANT (1) << t->event_depth;
    event_context_enter (t, pad, GST_EVENT_TYPE_NAME (event));
  }
  t->event_depth++;
  /* the thread's last short calls get their share now, so that its
   * totals are complete when the report is made */
  if (G_UNLIKELY (GST_EVENT_TYPE (event) == GST_EVENT_EOS) && !axprof_exact &&
      t->n_batch > 0)
    axprof_batch_read (t, ts);
  /* a queue forwards FLUSH_STOP, then drops what it holds without a push */
  if (G_UNLIKELY (GST_EVENT_TYPE (event) == GST_EVENT_FLUSH_STOP) &&
      GST_PAD_IS_SRC (pad)) {
    ElementState *ei = axprof_element_of_pad (pad);

    if (ei != NULL && ei->queue_kind != QUEUE_NONE)
      axprof_queue_flush (axprof_queue_of_pad (ei, pad), ts);
  }
}

void
axprof_pad_push_event_post (GObject * self, GstClockTime ts, GstPad * pad,
    gboolean res)
{
  ThreadState *t = axprof_thread_state ();
  ElementState *ei;

  if (t->event_depth > 0)
    t->event_depth--;
  if (G_UNLIKELY (t->event_depth < MAX_TRACKED_EVENT_DEPTH &&
          (t->context_events & (G_GUINT64_CONSTANT (1) << t->event_depth)))) {
    t->context_events &= ~(G_GUINT64_CONSTANT (1) << t->event_depth);
    /* a bin that plugs the receiver in while the event is on its way
     * (decodebin3 makes a decoder when caps reach its queue) links it
     * only then */
    if (t->n_ctx > 0 && t->n_ctx <= MAX_CENSUS_CONTEXTS &&
        t->ctx[t->n_ctx - 1] == NULL)
      t->ctx[t->n_ctx - 1] = event_receiver (t, pad);
    axprof_census_context_leave (t, "event");
  }
  /* the event is stored on both pads now: readers will see it */
  if (t->event_depth < MAX_TRACKED_EVENT_DEPTH &&
      (t->sticky_events & (G_GUINT64_CONSTANT (1) << t->event_depth))) {
    t->sticky_events &= ~(G_GUINT64_CONSTANT (1) << t->event_depth);
    axprof_latency_streams_changed ();
  }
  if (t->event_depth > 0 || t->depth > 0 || t->loop_open ||
      !GST_PAD_IS_SRC (pad) || (ei = axprof_element_of_pad (pad)) == NULL)
    return;
  axprof_return_to_current (t, ei, ts);
}

static void
do_chain_common (guint64 ts, GstPad * pad, GstBuffer * first,
    GstBufferList * list, guint items)
{
  ThreadState *t = axprof_thread_state ();
  ElementState *ei = axprof_element_of_pad_in (t, pad);
  Span *f;

  if (ei == NULL)
    return;
  if (G_LIKELY (t->push_pending)) {
    t->push_pending = FALSE;
    axprof_leave_current (t, ts);
  }
  /* caps that reach an element as sticky events with its first buffer
   * (decodebin's and playbin's decoders) take no hook: the threads its
   * codec started for them are found here */
  if (G_UNLIKELY (!__atomic_load_n (&ei->census_seen, __ATOMIC_RELAXED))) {
    __atomic_store_n (&ei->census_seen, TRUE, __ATOMIC_RELAXED);
    axprof_census_scan (ei, "first buffer");
    /* exact=true measures each call alone: the listing's CPU (tens of
     * us) is not the next call's. The default mode keeps it in the
     * thread's totals, shared by wall time like the pad code's. */
    if (axprof_exact)
      t->pending = FALSE;
  }
  f = axprof_span_push (t);
  axprof_span_open (f, ei->chain_row, axprof_row_stats (ei->chain_row, t), ts,
      t);
  f->chain_pad = pad;
  f->items = items;
  f->untimed_in = first != NULL &&
      !GST_CLOCK_TIME_IS_VALID (axprof_latency_buffer_ts (first));
  if (G_UNLIKELY (ei->relay != NULL) && first != NULL)
    axprof_latency_relay_in (ei, pad, first);
  if (ei->is_sink && first != NULL && f->st->lat != NULL) {
    axprof_stats_own (f->st);
    axprof_latency_at_sink (ei, pad, ts, f->st->lat, first, list);
  }
  if (ei->queue_kind != QUEUE_NONE)
    queue_items (first, list, &f->queue_bytes, &f->queue_start, &f->queue_end);
}

void
axprof_pad_chain_pre (GObject * self, GstClockTime ts, GstPad * pad,
    GstBuffer * buf)
{
  if (G_UNLIKELY (axprof_trace_on))
    trace_clock_sample (ts);
  do_chain_common (ts, pad, buf, NULL, 1);
}

void
axprof_pad_chain_list_pre (GObject * self, GstClockTime ts, GstPad * pad,
    GstBufferList * list)
{
  guint n = gst_buffer_list_length (list);

  do_chain_common (ts, pad, n ? gst_buffer_list_get (list, 0) : NULL, list, n);
}

void
axprof_pad_chain_post (GObject * self, GstClockTime ts, GstPad * pad,
    GstFlowReturn r)
{
  ThreadState *t = axprof_thread_state ();
  ElementState *ei;
  Span *f = t->depth > 0 ? &t->stack[t->depth - 1] : NULL;

  /* the call it closes is on top of the stack, opened on this very pad;
   * else the pad is resolved as its chain-pre did */
  if (G_LIKELY (f != NULL && f->chain_pad == pad)) {
    ei = f->row->elem;
  } else {
    ei = axprof_element_of_pad_in (t, pad);
    if (ei == NULL)
      return;
    if (G_UNLIKELY (f == NULL) || G_UNLIKELY (f->row->elem != ei))
      return;
  }
  axprof_span_pause (f, ts, t);
  /* axprof_span_record() has taken over any restart of f->st */
  axprof_span_record (f, t, ts);
  AXPROF_ADD (f->st->items, f->items);
  t->depth--;
  /* a queue stores a list as one item but pushes it as a list, which its
   * push-list hook counts buffer by buffer */
  if (ei->queue_kind != QUEUE_NONE && r == GST_FLOW_OK) {
    QueueState *q = axprof_queue_of_pad (ei, pad);

    if (G_UNLIKELY (__atomic_load_n (&q->leaky, __ATOMIC_RELAXED)))
      axprof_queue_in_leaky (q, GST_OBJECT_PARENT (pad), ts, f->items,
          f->queue_start, f->queue_end);
    else
      axprof_queue_in (q, ts, f->items, f->queue_bytes, f->queue_start,
          f->queue_end);
  }
}

void
axprof_pad_pull_range_pre (GObject * self, GstClockTime ts, GstPad * pad,
    guint64 offset, guint size)
{
  ElementState *ei = axprof_element_of_pad (pad), *peer_ei;
  GstPad *peer;
  ThreadState *t;
  Span *f;

  if (ei == NULL)
    return;
  /* pulls are per chunk, not per frame: resolving ghost pads here with
   * locks and refs is affordable */
  peer = axprof_upstream_pad (pad);
  if (peer == NULL)
    return;
  peer_ei = axprof_element_of_pad (peer);
  gst_object_unref (peer);
  if (peer_ei == NULL)
    return;
  t = axprof_thread_state ();
  axprof_leave_current (t, ts);
  f = axprof_span_push (t);
  axprof_span_open (f, peer_ei->chain_row, axprof_row_stats (peer_ei->chain_row,
          t), ts, t);
  f->pull_pad = pad;
}

void
axprof_pad_pull_range_post (GObject * self, GstClockTime ts, GstPad * pad,
    GstBuffer * buffer, GstFlowReturn r)
{
  ElementState *ei = axprof_element_of_pad (pad);
  ThreadState *t;
  Span *f;

  if (ei == NULL)
    return;
  t = axprof_thread_state ();
  if (t->depth == 0)
    return;
  f = &t->stack[t->depth - 1];
  if (f->pull_pad != pad)
    return;
  axprof_span_pause (f, ts, t);
  if (r == GST_FLOW_OK) {
    axprof_span_record (f, t, ts);
    if (f->row->elem->is_source &&
        G_UNLIKELY (__atomic_load_n (&ei->pipe->first_ts,
                __ATOMIC_RELAXED) == 0))
      mark_first_buffer (ei->pipe, ts);
  }
  t->depth--;
  axprof_return_to_current (t, ei, ts);
}

/* ---------------------------------------------------------------- probe */

static ElementState *
element_state_of (GstElement * element)
{
  ElementState *ei;

  if (element == NULL)
    return NULL;
  ei = g_object_get_qdata (G_OBJECT (element), axprof_element_quark);
  if (ei == NULL)
    ei = axprof_element_state_slow (GST_OBJECT (element));
  return ei;
}

static inline ProbeCacheEntry *
probe_cache_slot (ProbeCacheEntry * cache, ElementState * ei,
    const gchar * stage, const gchar * group)
{
  guintptr h = (guintptr) ei ^ ((guintptr) stage >> 3) ^
      ((guintptr) group >> 5);

  return &cache[(h ^ (h >> 7)) % PROBE_CACHE_SIZE];
}

static Row *
probe_row (ElementState * ei, const GstAxProbeSpan * span, ThreadState * t)
{
  ProbeCacheEntry *c = probe_cache_slot (t->rows, ei, span->stage,
      span->group);
  Row *row;

  /* the group string carries no lifetime promise: compare its text */
  if (c->ei == ei && c->stage == span->stage && c->group == span->group &&
      g_strcmp0 (((Row *) c->value)->group, span->group) == 0)
    return c->value;

  row = axprof_pipeline_stage_row (ei->pipe, ei, span);
  c->ei = ei;
  c->stage = span->stage;
  c->group = span->group;
  c->value = row;
  return row;
}

/* Stages run inside an element's own span on the same thread; they are
 * taken out of it, like a nested push, so that no time counts twice. */
static void
on_span (const GstAxProbeSpan * span, gpointer user_data)
{
  ElementState *ei = element_state_of (span->element);
  ThreadState *t;
  Span *f = NULL;
  Row *row;
  RowStats *st;

  if (ei == NULL || span->stage == NULL)
    return;
  t = axprof_thread_state ();
  if (t->depth > 0)
    f = &t->stack[t->depth - 1];
  else if (t->loop_open)
    f = &t->loop;
  if (f && f->row->elem == ei) {
    f->acc_wall -= (gint64) span->wall_ns;
    f->acc_cpu -= (gint64) span->cpu_ns;
    f->acc_faults -= (gint64) span->faults;
  }
  row = probe_row (ei, span, t);
  st = axprof_row_stats (row, t);
  axprof_stats_add (st, span->wall_ns, span->cpu_ns, span->faults);
  if (G_UNLIKELY (axprof_trace_on))
    axprof_trace_span (t, row, span);
}

static DeviceState *
device_state_for (ElementState * ei, const gchar * group)
{
  ThreadState *t = axprof_thread_state ();
  ProbeCacheEntry *c = probe_cache_slot (t->devs, ei, NULL, group);
  DeviceState *d;

  if (c->ei == ei && c->group == group &&
      strcmp (((DeviceState *) c->value)->group, group ? group : ei->name) == 0)
    return c->value;

  d = axprof_pipeline_device (ei->pipe, ei, group);
  c->ei = ei;
  c->group = group;
  c->value = d;
  return d;
}

static void
on_device_event (const GstAxProbeDeviceEvent * ev, gpointer user_data)
{
  ElementState *ei = element_state_of (ev->element);
  DeviceState *d;

  if (ei == NULL || ev->end_ns < ev->start_ns)
    return;
  d = device_state_for (ei, ev->group);
  g_mutex_lock (&d->lock);
  d->busy_ns += ev->end_ns - ev->start_ns;
  if (G_UNLIKELY (axprof_trace_on))
    axprof_trace_device_event (d, ev, ei->pipe->run);
  d->events++;
  if (ev->n_resources > d->n_cores)
    d->n_cores = ev->n_resources;
  d->min_job = MIN (d->min_job, ev->job_id);
  d->max_job = MAX (d->max_job, ev->job_id);
  if (d->first_start == 0 || ev->start_ns < d->first_start)
    d->first_start = ev->start_ns;
  d->last_end = MAX (d->last_end, ev->end_ns);
  /* union of busy intervals, for the device-only wall time */
  if (d->cur_end == 0 || ev->start_ns > d->cur_end) {
    d->union_ns += d->cur_end - d->cur_start;
    d->cur_start = ev->start_ns;
    d->cur_end = ev->end_ns;
  } else if (ev->end_ns > d->cur_end) {
    d->cur_end = ev->end_ns;
  }
  g_mutex_unlock (&d->lock);
}

static void
on_device (const GstAxProbeDevice * dev, gpointer user_data)
{
  ElementState *ei = element_state_of (dev->element);
  DeviceState *d;

  if (ei == NULL)
    return;
  d = device_state_for (ei, dev->group);
  g_mutex_lock (&d->lock);
  if (dev->device && g_strcmp0 (d->device, dev->device) != 0) {
    g_free (d->device);
    d->device = g_strdup (dev->device);
  }
  if (dev->n_cores > 0)
    d->n_cores = dev->n_cores;
  d->window = dev->in_flight_window;
  d->jobs_done = dev->jobs_done;
  d->sim_cpu_ns = dev->sim_cpu_ns;
  d->lag_ns = dev->lag_ns;
  d->in_window_ns = dev->in_window_ns;
  d->held_in_window_ns = dev->held_in_window_ns;
  d->window_span_ns = dev->window_span_ns;
  d->device_id = dev->device_id;
  d->device_handle = dev->device_handle;
  g_mutex_unlock (&d->lock);
}

static const GstAxProbeSinkFuncs probe_sink_funcs = {
  on_span, on_device_event, on_device
};

/* The stages and device events the elements report from now on come
 * here; the sink's id, as gst_ax_probe_add_sink() gives it. */
guint
axprof_probe_sink_add (gpointer user_data)
{
  return gst_ax_probe_add_sink (&probe_sink_funcs, user_data);
}
