/* gst-ax
 * Copyright (C) 2026 gst-ax developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

/* Per-thread state: thread slots, the span stacks' bookkeeping, sampling
 * and the latency histograms. */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstaxprof-private.h"

#include <math.h>

static GMutex slot_lock;
static gboolean slot_used[MAX_THREAD_SLOTS];
static void thread_state_free (gpointer data);
static GPrivate thread_key = G_PRIVATE_INIT (thread_state_free);

guint axprof_sample_every = 1;
TraceRing *axprof_trace_rings[MAX_THREAD_SLOTS];
gboolean axprof_trace_on;
guint64 axprof_dropped_records;
__thread ThreadState *axprof_tls_state;
RowStats axprof_overflow_stats;

/* ---------------------------------------------------------------- threads */

static void
thread_state_free (gpointer data)
{
  ThreadState *t = data;

  if (t->slot >= 0) {
    g_mutex_lock (&slot_lock);
    slot_used[t->slot] = FALSE;
    g_mutex_unlock (&slot_lock);
  }
  g_free (t);
}

ThreadState *
axprof_thread_state_new (void)
{
  ThreadState *t = g_new0 (ThreadState, 1);
  gint i;

  t->slot = -1;
  g_mutex_lock (&slot_lock);
  for (i = 0; i < MAX_THREAD_SLOTS; i++) {
    if (!slot_used[i]) {
      slot_used[i] = TRUE;
      t->slot = i;
      break;
    }
  }
  g_mutex_unlock (&slot_lock);
  if (axprof_trace_on && t->slot >= 0)
    axprof_trace_thread_start (t->slot);
  g_private_set (&thread_key, t);
  return t;
}

/* ---------------------------------------------------------------- stats */

RowStats *
axprof_row_stats_new (Row * row, ThreadState * t)
{
  RowStats *st = g_new0 (RowStats, 1);

  st->wall_min_ns = G_MAXUINT64;
  st->first_seen_ns = gst_ax_probe_now_ns ();
  if (row->kind == ROW_CHAIN && row->elem && row->elem->is_sink) {
    st->lat = g_new0 (LatencyHistogram, 1);
    st->lat->min_ns = G_MAXUINT64;
  }
  __atomic_store_n (&row->slots[t->slot], st, __ATOMIC_RELEASE);
  return st;
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
