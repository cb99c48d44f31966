/* gst-ax
 * Copyright (C) 2026 gst-ax developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

/* Per-thread state: thread slots, the span stacks' bookkeeping, the
 * default mode's batched usage reads and the latency histograms. */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstaxprof-private.h"

#include <math.h>

static GMutex slot_lock;
static gboolean slot_used[MAX_THREAD_SLOTS];
guint axprof_slots_high;
static void thread_state_free (gpointer data);
static GPrivate thread_key = G_PRIVATE_INIT (thread_state_free);

gboolean axprof_exact;
guint64 axprof_read_interval_ns = READ_INTERVAL_FALLBACK_NS;
guint64 axprof_read_outlier_ns = G_MAXUINT64;
TraceRing *axprof_trace_rings[MAX_THREAD_SLOTS];
gboolean axprof_trace_on;
guint64 axprof_dropped_records;
__thread ThreadState *axprof_tls_state
    __attribute__((tls_model ("initial-exec")));
RowStats axprof_overflow_stats;

/* ---------------------------------------------------------------- threads */

static void
thread_state_free (gpointer data)
{
  ThreadState *t = data;

  axprof_census_thread_exit (t);
  if (t->slot >= 0) {
    g_mutex_lock (&slot_lock);
    slot_used[t->slot] = FALSE;
    g_mutex_unlock (&slot_lock);
  }
  g_free (t->stack);
  g_free (t);
}

/* The span stack is full: double it. Spans are only ever addressed
 * within one hook, so moving them is safe. */
void
axprof_span_stack_grow (ThreadState * t)
{
  t->stack_size = t->stack_size ? t->stack_size * 2 : SPAN_STACK_INITIAL;
  t->stack = g_renew (Span, t->stack, t->stack_size);
}

ThreadState *
axprof_thread_state_new (void)
{
  ThreadState *t = g_new0 (ThreadState, 1);
  gint i;

  t->slot = -1;
  axprof_span_stack_grow (t);
  g_mutex_lock (&slot_lock);
  for (i = 0; i < MAX_THREAD_SLOTS; i++) {
    if (!slot_used[i]) {
      slot_used[i] = TRUE;
      t->slot = i;
      if ((guint) i >= axprof_slots_high)
        __atomic_store_n (&axprof_slots_high, i + 1, __ATOMIC_RELEASE);
      break;
    }
  }
  g_mutex_unlock (&slot_lock);
  if (axprof_trace_on && t->slot >= 0)
    axprof_trace_thread_start (t->slot);
  axprof_census_hooked (t);
  g_private_set (&thread_key, t);
  return t;
}

/* ---------------------------------------------------------------- stats */

RowStats *
axprof_row_stats_new (Row * row, ThreadState * t)
{
  RowStats *st = g_new0 (RowStats, 1);
  RowStats ***chunkp = &row->slot_chunks[t->slot / SLOTS_PER_CHUNK];
  RowStats **chunk;

  st->wall_min_ns = G_MAXUINT64;
  st->first_seen_ns = gst_ax_probe_now_ns ();
  if (row->kind == ROW_CHAIN && row->elem && row->elem->is_sink) {
    st->lat = g_new0 (LatencyHistogram, 1);
    st->lat->min_ns = G_MAXUINT64;
  }
  chunk = __atomic_load_n (chunkp, __ATOMIC_ACQUIRE);
  if (chunk == NULL) {
    /* threads of the same chunk may race to add it: one wins */
    RowStats **fresh = g_new0 (RowStats *, SLOTS_PER_CHUNK);

    if (__atomic_compare_exchange_n (chunkp, &chunk, fresh, FALSE,
            __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
      chunk = fresh;
    else
      g_free (fresh);
  }
  __atomic_store_n (&chunk[t->slot % SLOTS_PER_CHUNK], st, __ATOMIC_RELEASE);
  axprof_census_thread_serves (t, row->pipe);
  return st;
}

/* ---------------------------------------------------------------- reads */

/* Share of @delta up to a running wall of @cum out of @total, rounded:
 * consecutive differences split @delta exactly, with no bias towards the
 * first or last row. */
static inline guint64
cumulative_share (guint64 delta, guint64 cum, guint64 total)
{
  if (cum >= total)
    return delta;
  return (guint64) ((gdouble) delta * ((gdouble) cum / (gdouble) total) + 0.5);
}

/* Default mode: one usage read, its CPU and fault deltas since the last
 * read split over the rows of the batch in proportion to their wall time.
 * The deltas include what ran between the segments (pad code), as the
 * exact mode gives it to the segment that follows, so the thread's totals
 * are exactly its CPU and faults from its first read to its last. */
void
axprof_batch_read (ThreadState * t, guint64 ts)
{
  guint64 cpu, faults, dcpu, dfaults, cum = 0, given_cpu = 0, given_f = 0;
  guint i, n = t->n_batch;
  RowStats dummy = { 0, };

  /* counted on the batch's last row */
  axprof_read_usage (t, n > 0 ? t->batch[n - 1] : &dummy, &cpu, &faults);
  if (n > 0) {
    /* the fallback's two clocks never run back, but stay safe */
    dcpu = t->have_read && cpu > t->last_cpu ? cpu - t->last_cpu : 0;
    dfaults = t->have_read && faults > t->last_faults ?
        faults - t->last_faults : 0;
    for (i = 0; i < n; i++) {
      RowStats *st = t->batch[i];
      guint64 c, f;

      axprof_stats_own (st);
      cum += st->batch_wall;
      /* a batch of zero wall (equal hook times) goes to its first row */
      c = i + 1 == n ? dcpu : cumulative_share (dcpu, cum, t->batch_wall);
      f = i + 1 == n ? dfaults : cumulative_share (dfaults, cum, t->batch_wall);
      /* read by a report on a running pipeline: relaxed atomics */
      AXPROF_ADD (st->cpu_sum_ns, (gint64) (c - given_cpu));
      AXPROF_ADD (st->faults_sum, (gint64) (f - given_f));
      given_cpu = c;
      given_f = f;
      st->batch_wall = 0;
      st->in_batch = FALSE;
    }
  }
  t->n_batch = 0;
  t->batch_wall = 0;
  t->last_read_ts = ts;
  t->last_cpu = cpu;
  t->last_faults = faults;
  t->have_read = TRUE;
}

static gdouble
hist_value (guint idx)
{
  guint e, sub;
  gdouble lo, width;

  if (idx < HIST_SUB)
    return idx;
  e = idx / HIST_SUB + HIST_SUB_BITS - 1;
  sub = idx % HIST_SUB;
  width = ldexp (1.0, e - HIST_SUB_BITS);
  lo = ldexp (1.0, e) + sub * width;
  return lo + width / 2;
}

/* ---------------------------------------------------------------- spans */

gdouble
axprof_hist_percentile (const LatencyHistogram * h, gdouble q)
{
  guint64 target = (guint64) ceil (q * h->n), acc = 0;
  guint b;

  if (target == 0)
    target = 1;
  for (b = 0; b < HIST_BUCKETS; b++) {
    acc += h->buckets[b];
    if (acc >= target)
      return CLAMP (hist_value (b), (gdouble) h->min_ns, (gdouble) h->max_ns);
  }
  return h->max_ns;
}
