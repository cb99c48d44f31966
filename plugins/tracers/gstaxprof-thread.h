/* gst-ax
 * Copyright (C) 2026 gst-ax developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

/* A thread's state, and the fast path that the pad hooks (and the
 * calibration, gstaxprof.c) inline: the thread's span stack, its figures
 * in each row's slot, the usage reads, and the per-thread memo of pad ->
 * element, which asks the registry on a miss. Below it: the registry,
 * the census and the timeline's recording (gstaxprof-trace.h). */

#ifndef __GST_AX_PROF_THREAD_H__
#define __GST_AX_PROF_THREAD_H__

#include "gstaxprof-private.h"
#include "gstaxprof-trace.h"

G_BEGIN_DECLS

/* one usage read in this many (a power of two) is timed where it runs;
 * a timing above this many calibrated reads was preempted and is left
 * out */
#define READ_TIMING_EVERY 64
#define READ_TIMING_OUTLIER 8
/* The default read interval is this many usage reads' cost, so that the
 * reads take at most 1/50 (2%) of the profiled time; clamped. */
#define READ_INTERVAL_PER_READ 50
#define READ_INTERVAL_MIN_NS (10 * GST_USECOND)
#define READ_INTERVAL_FALLBACK_NS (40 * GST_USECOND)
#define READ_INTERVAL_MAX_NS GST_MSECOND

/* exact=true: read usage at every span boundary; else batch short spans
 * and read once axprof_read_interval_ns of wall time has passed */
extern gboolean axprof_exact;
extern guint64 axprof_read_interval_ns;
/* a timed read longer than this was preempted (ns) */
extern guint64 axprof_read_outlier_ns;
extern guint64 axprof_dropped_records;
/* initial-exec: one %fs-relative load per hook instead of a call to
 * __tls_get_addr (the module takes 8 bytes of glibc's static TLS
 * surplus, which exists for this) */
extern __thread ThreadState *axprof_tls_state
    __attribute__((tls_model ("initial-exec")));
/* Shared sink for threads beyond MAX_THREAD_SLOTS: written racily and
 * never reported. */
extern RowStats axprof_overflow_stats;

/* gstaxprof-registry.c: the pad -> element lookup's keys */
extern GQuark axprof_element_quark;
extern GType axprof_pad_type;

/* gstaxprof-thread.c */
ThreadState *axprof_thread_state_new (void);
gdouble *axprof_slot_wait_ratios (guint n);
RowStats *axprof_row_stats_new (Row * row, ThreadState * t);
void axprof_batch_read (ThreadState * t, guint64 ts);
gdouble axprof_hist_percentile (const LatencyHistogram * h, gdouble q);
gdouble axprof_hist_bucket_value (guint idx);

/* ---------------------------------------------------------------- fast path
 * Inline here so that the pad hooks and the calibration inline them. */

static inline ThreadState *
axprof_thread_state (void)
{
  if (G_UNLIKELY (axprof_tls_state == NULL))
    axprof_tls_state = axprof_thread_state_new ();
  return axprof_tls_state;
}

void axprof_span_stack_grow (ThreadState * t);

/* A new innermost span on @t's stack, which grows as deep as the
 * pipeline nests (100 elements in a row, each calling the next). */
static inline Span *
axprof_span_push (ThreadState * t)
{
  if (G_UNLIKELY (t->depth >= t->stack_size))
    axprof_span_stack_grow (t);
  return &t->stack[t->depth++];
}

/* Slots up to the highest one any thread has held (for the readers'
 * loops over them) */
extern guint axprof_slots_high;

/* Row @row's figures from thread slot @i, or NULL; safe from any thread */
static inline RowStats *
axprof_row_slot (Row * row, guint i)
{
  RowStats **chunk = __atomic_load_n (&row->slot_chunks[i / SLOTS_PER_CHUNK],
      __ATOMIC_ACQUIRE);

  return chunk ? __atomic_load_n (&chunk[i % SLOTS_PER_CHUNK],
      __ATOMIC_ACQUIRE) : NULL;
}

static inline guint
axprof_slot_count (void)
{
  return __atomic_load_n (&axprof_slots_high, __ATOMIC_ACQUIRE);
}

static inline RowStats *
axprof_row_stats (Row * row, ThreadState * t)
{
  RowStats **chunk;
  RowStats *st;

  if (G_UNLIKELY (t->slot < 0)) {
    __atomic_add_fetch (&axprof_dropped_records, 1, __ATOMIC_RELAXED);
    return &axprof_overflow_stats;
  }
  /* another thread of the chunk may have added it (an acquire load is a
   * plain load on x86); the slot itself is only ever written by us */
  chunk = __atomic_load_n (&row->slot_chunks[t->slot / SLOTS_PER_CHUNK],
      __ATOMIC_ACQUIRE);
  st = chunk ? chunk[t->slot % SLOTS_PER_CHUNK] : NULL;
  if (G_UNLIKELY (st == NULL))
    st = axprof_row_stats_new (row, t);
  return st;
}

void axprof_stats_restart (RowStats * st, guint gen);

/* Before a write to @st by its own thread: a restart a section asked for
 * since the last write is done here, by the writer. */
static inline void
axprof_stats_own (RowStats * st)
{
  guint gen = __atomic_load_n (&st->restart_gen, __ATOMIC_ACQUIRE);

  if (G_UNLIKELY (gen != st->gen_seen))
    axprof_stats_restart (st, gen);
}

/* CPU time and faults of the calling thread, exactly: the probe API's
 * reader (the thread CPU clock, with faults from a per-thread perf group
 * where perf_event_open() is allowed, else from getrusage), so a stage
 * subtracted from its
 * element's span uses the same clock. Counted in @st for the report's
 * own cost. */
static inline void
axprof_read_usage (ThreadState * t, RowStats * st, guint64 * cpu,
    guint64 * faults)
{
  axprof_stats_own (st);
  AXPROF_ADD (st->reads, 1);
  if (G_UNLIKELY (++t->reads_done % READ_TIMING_EVERY == 0)) {
    guint64 t0 = gst_ax_probe_now_ns (), dt;

    gst_ax_probe_thread_usage (cpu, faults);
    dt = gst_ax_probe_now_ns () - t0;
    if (dt < axprof_read_outlier_ns) {
      AXPROF_ADD (st->read_timed_ns, dt);
      AXPROF_ADD (st->reads_timed, 1);
    }
    return;
  }
  gst_ax_probe_thread_usage (cpu, faults);
}

/* Wall, count, min and max of one call; CPU and faults of the call in
 * exact mode, or only what reported stages took out of it in the default
 * mode (its share of the reads is added by axprof_batch_read()). */
static inline void
axprof_stats_add (RowStats * st, gint64 wall, gint64 cpu, gint64 faults)
{
  guint64 w = wall > 0 ? (guint64) wall : 0;

  axprof_stats_own (st);
  AXPROF_ADD (st->count, 1);
  AXPROF_ADD (st->wall_sum_ns, w);
  if (w < st->wall_min_ns)
    AXPROF_STORE (st->wall_min_ns, w);
  if (w > st->wall_max_ns)
    AXPROF_STORE (st->wall_max_ns, w);
  AXPROF_ADD (st->cpu_sum_ns, cpu);
  AXPROF_ADD (st->faults_sum, faults);
}

/* Default mode, where a segment of a span starts: the batch is closed by
 * a read here only once the interval has passed (or for the thread's
 * first read), so a long call that starts now is not batched with the
 * short ones before it. */
static inline void
axprof_batch_segment_start (ThreadState * t, guint64 ts)
{
  if (G_UNLIKELY (ts - t->last_read_ts >= axprof_read_interval_ns) &&
      (t->n_batch > 0 || !t->have_read))
    axprof_batch_read (t, ts);
}

/* Default mode, where a segment ends: its wall joins its row's share of
 * the batch; a read is due once the interval has passed since the last
 * one, or when the batch is full. */
static inline void
axprof_batch_segment_end (ThreadState * t, RowStats * st, guint64 wall,
    guint64 ts)
{
  st->batch_wall += wall;
  t->batch_wall += wall;
  if (G_UNLIKELY (!st->in_batch)) {
    st->in_batch = TRUE;
    t->batch[t->n_batch++] = st;
    if (G_UNLIKELY (t->n_batch == USAGE_BATCH_ROWS)) {
      axprof_batch_read (t, ts);
      return;
    }
  }
  if (G_UNLIKELY (ts - t->last_read_ts >= axprof_read_interval_ns))
    axprof_batch_read (t, ts);
}

/* Starts a segment of @f: in exact mode from the usage the segment
 * before it on this thread ended with, when it kept one. */
static inline void
axprof_span_resume (Span * f, guint64 ts, ThreadState * t)
{
  f->seg_start = ts;
  if (G_UNLIKELY (f->pool))
    axprof_pool_boundary (f->row->elem, TRUE);
  if (G_LIKELY (!axprof_exact)) {
    axprof_batch_segment_start (t, ts);
    return;
  }
  if (t->pending) {
    f->cpu0 = t->pending_cpu;
    f->faults0 = t->pending_faults;
  } else {
    axprof_read_usage (t, f->st, &f->cpu0, &f->faults0);
  }
  t->pending = FALSE;
}

static inline void
axprof_span_open (Span * f, Row * row, RowStats * st, guint64 ts,
    ThreadState * t)
{
  f->row = row;
  f->st = st;
  f->pull_pad = NULL;
  f->chain_pad = NULL;
  f->open_ts = ts;
  f->acc_wall = f->acc_cpu = f->acc_faults = 0;
  f->pool = __atomic_load_n (&row->pool, __ATOMIC_RELAXED);
  axprof_span_resume (f, ts, t);
}

/* Ends the running segment of @f. In exact mode the usage read is kept
 * so the segment that starts next on this thread reuses it instead of
 * reading again. */
static inline void
axprof_span_pause (Span * f, guint64 ts, ThreadState * t)
{
  guint64 cpu, faults;
  gint64 wall = (gint64) (ts - f->seg_start);

  f->acc_wall += wall;
  if (G_UNLIKELY (f->pool))
    axprof_pool_boundary (f->row->elem, FALSE);
  if (G_LIKELY (!axprof_exact)) {
    axprof_batch_segment_end (t, f->st, (guint64) wall, ts);
    return;
  }
  axprof_read_usage (t, f->st, &cpu, &faults);
  f->acc_cpu += (gint64) (cpu - f->cpu0);
  f->acc_faults += (gint64) (faults - f->faults0);
  t->pending = TRUE;
  t->pending_cpu = cpu;
  t->pending_faults = faults;
}

static inline void
axprof_span_record (Span * f, ThreadState * t, guint64 end_ts)
{
  axprof_stats_add (f->st, f->acc_wall, f->acc_cpu, f->acc_faults);
  if (G_UNLIKELY (axprof_trace_on) && end_ts > f->open_ts)
    axprof_trace_add (t, f->row, f->open_ts, end_ts - f->open_ts, FALSE);
}

/* The thread leaves the element on top of its stack (or its task loop)
 * to run downstream or upstream code. */
static inline void
axprof_leave_current (ThreadState * t, guint64 ts)
{
  if (t->depth > 0) {
    axprof_span_pause (&t->stack[t->depth - 1], ts, t);
  } else if (t->loop_open) {
    Span *f = &t->loop;

    axprof_span_pause (f, ts, t);
    axprof_span_record (f, t, ts);
    t->loop_open = FALSE;
  } else {
    t->pending = FALSE;
  }
}

/* The thread comes back to the element it left. */
static inline void
axprof_return_to_current (ThreadState * t, ElementState * ei, guint64 ts)
{
  if (t->depth > 0) {
    axprof_span_resume (&t->stack[t->depth - 1], ts, t);
  } else {
    /* a task loop: time until its next push belongs to the task owner */
    axprof_span_open (&t->loop, ei->loop_row, axprof_row_stats (ei->loop_row,
            t), ts, t);
    t->loop_open = TRUE;
  }
}

/* the first way of @parent's set; the second follows it */
static inline ElementCacheEntry *
axprof_element_cache_slot (ThreadState * t, GstObject * parent)
{
  guint64 h = (guint64) (guintptr) parent * ELEMENT_CACHE_MULTIPLIER;

  return &t->elems[(h >> (64 - ELEMENT_CACHE_BITS + 1)) * ELEMENT_CACHE_WAYS];
}

static inline ElementState *
axprof_element_cache_lookup (ElementCacheEntry * c, GstObject * parent)
{
  if (G_LIKELY (c->parent == parent) &&
      G_LIKELY (__atomic_load_n (&c->ei->element, __ATOMIC_RELAXED) ==
          (GstElement *) parent))
    return c->ei;
  return NULL;
}

/* Ghost and proxy pads only forward: the real element's own pad carries
 * the hook we measure, so they are skipped. Unparented pads belong to no
 * element and are skipped too. */
static inline ElementState *
axprof_element_of_pad_in (ThreadState * t, GstPad * pad)
{
  GType type = G_TYPE_FROM_INSTANCE (pad);
  GstObject *parent;
  ElementCacheEntry *c;
  ElementState *ei;

  if (G_UNLIKELY (type != axprof_pad_type) &&
      g_type_is_a (type, GST_TYPE_PROXY_PAD))
    return NULL;
  parent = GST_OBJECT_PARENT (pad);
  if (G_UNLIKELY (parent == NULL))
    return NULL;
  c = axprof_element_cache_slot (t, parent);
  ei = axprof_element_cache_lookup (c, parent);
  if (G_LIKELY (ei != NULL))
    return ei;
  ei = axprof_element_cache_lookup (c + 1, parent);
  if (G_LIKELY (ei != NULL))
    return ei;
  ei = g_object_get_qdata (G_OBJECT (parent), axprof_element_quark);
  if (G_UNLIKELY (ei == NULL))
    ei = axprof_element_state_slow (parent);
  if (ei != NULL) {
    /* the newest in the first way, the one it displaces in the second */
    c[1] = c[0];
    c->parent = parent;
    c->ei = ei;
  }
  return ei;
}

static inline ElementState *
axprof_element_of_pad (GstPad * pad)
{
  return axprof_element_of_pad_in (axprof_thread_state (), pad);
}

/* The element whose call is open on the thread (its chain, a pull from
 * it, or its task loop), if @pad is one of its own pads: a push from
 * inside a call is resolved without the cache. */
static inline ElementState *
axprof_element_of_own_pad (ThreadState * t, GstPad * pad)
{
  ElementState *ei;

  if (t->depth > 0)
    ei = t->stack[t->depth - 1].row->elem;
  else if (t->loop_open)
    ei = t->loop.row->elem;
  else
    return axprof_element_of_pad_in (t, pad);
  if (G_LIKELY (GST_OBJECT_PARENT (pad) != NULL) &&
      G_LIKELY ((GstElement *) GST_OBJECT_PARENT (pad) ==
          __atomic_load_n (&ei->element, __ATOMIC_RELAXED)))
    return ei;
  return axprof_element_of_pad_in (t, pad);
}

G_END_DECLS
#endif /* __GST_AX_PROF_THREAD_H__ */
