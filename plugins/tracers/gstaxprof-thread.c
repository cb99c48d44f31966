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

#include "gstaxprof-thread.h"

#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <unistd.h>

static GMutex slot_lock;
static gboolean slot_used[MAX_THREAD_SLOTS];
/* per slot, under slot_lock: its live thread, and what the threads that
 * held it before ran and waited for a CPU */
static ThreadState *slot_thread[MAX_THREAD_SLOTS];
static guint64 slot_ended_cpu_ns[MAX_THREAD_SLOTS];
static guint64 slot_ended_wait_ns[MAX_THREAD_SLOTS];
guint axprof_slots_high;
static void thread_state_free (gpointer data);
static GPrivate thread_key = G_PRIVATE_INIT (thread_state_free);

gboolean axprof_exact;
guint64 axprof_read_interval_ns = READ_INTERVAL_FALLBACK_NS;
guint64 axprof_read_outlier_ns = G_MAXUINT64;
guint64 axprof_dropped_records;
__thread ThreadState *axprof_tls_state
    __attribute__((tls_model ("initial-exec")));
RowStats axprof_overflow_stats;

/* ---------------------------------------------------------------- threads */

/* Thread @tid's time on a CPU and time runnable but waiting for one
 * (/proc/<pid>/task/<tid>/schedstat: run ns, run-queue wait ns,
 * timeslices); FALSE where the kernel does not keep them. */
static gboolean
read_schedstat (gint tid, guint64 * cpu_ns, guint64 * wait_ns)
{
  gchar path[64], buf[128];
  gboolean ok = FALSE;
  gssize n;
  gint fd;

  g_snprintf (path, sizeof (path), "/proc/self/task/%d/schedstat", tid);
  fd = open (path, O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return FALSE;
  n = read (fd, buf, sizeof (buf) - 1);
  if (n > 0) {
    buf[n] = '\0';
    ok = sscanf (buf, "%" G_GUINT64_FORMAT " %" G_GUINT64_FORMAT, cpu_ns,
        wait_ns) == 2;
  }
  close (fd);
  return ok;
}

/* What @t ran and waited since it was first seen, added to @cpu_ns and
 * @wait_ns. */
static void
thread_sched_add (ThreadState * t, guint64 * cpu_ns, guint64 * wait_ns)
{
  guint64 cpu, wait;

  if (!t->sched_ok || !read_schedstat (t->tid, &cpu, &wait))
    return;
  if (cpu >= t->sched_cpu0_ns && wait >= t->sched_wait0_ns) {
    *cpu_ns += cpu - t->sched_cpu0_ns;
    *wait_ns += wait - t->sched_wait0_ns;
  }
}

/* Per thread slot below @n, the time its threads spent runnable waiting
 * for a CPU per ns of CPU they ran: on a machine busy with other work a
 * call's wall time holds this much waiting for each ns it computed, which
 * is not the call's own waiting (a lock, a clock). Free with g_free(). */
gdouble *
axprof_slot_wait_ratios (guint n)
{
  gdouble *ratios = g_new0 (gdouble, MAX (n, 1));
  guint i;

  g_mutex_lock (&slot_lock);
  for (i = 0; i < n && i < MAX_THREAD_SLOTS; i++) {
    guint64 cpu = slot_ended_cpu_ns[i], wait = slot_ended_wait_ns[i];

    if (slot_thread[i])
      thread_sched_add (slot_thread[i], &cpu, &wait);
    ratios[i] = cpu > 0 ? wait / (gdouble) cpu : 0;
  }
  g_mutex_unlock (&slot_lock);
  return ratios;
}

static void
thread_state_free (gpointer data)
{
  ThreadState *t = data;

  axprof_census_thread_exit (t);
  if (t->slot >= 0) {
    g_mutex_lock (&slot_lock);
    thread_sched_add (t, &slot_ended_cpu_ns[t->slot],
        &slot_ended_wait_ns[t->slot]);
    slot_thread[t->slot] = NULL;
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
  t->tid = axprof_gettid ();
  t->sched_ok = read_schedstat (t->tid, &t->sched_cpu0_ns, &t->sched_wait0_ns);
  axprof_span_stack_grow (t);
  g_mutex_lock (&slot_lock);
  for (i = 0; i < MAX_THREAD_SLOTS; i++) {
    if (!slot_used[i]) {
      slot_used[i] = TRUE;
      slot_thread[i] = t;
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

/* Clears @st, which a section's start asked for (gstaxprof-section.c).
 * Run by the thread that owns @st (axprof_stats_own()), so it never
 * races that thread's own writes; the stores are atomic for a report
 * reading meanwhile. */
void
axprof_stats_restart (RowStats * st, guint gen)
{
  LatencyHistogram *lat = st->lat;
  guint i;

  AXPROF_STORE (st->count, 0);
  AXPROF_STORE (st->items, 0);
  AXPROF_STORE (st->wall_sum_ns, 0);
  AXPROF_STORE (st->wall_min_ns, G_MAXUINT64);
  AXPROF_STORE (st->wall_max_ns, 0);
  AXPROF_STORE (st->cpu_sum_ns, 0);
  AXPROF_STORE (st->faults_sum, 0);
  AXPROF_STORE (st->reads, 0);
  AXPROF_STORE (st->reads_timed, 0);
  AXPROF_STORE (st->read_timed_ns, 0);
  AXPROF_STORE (st->first_seen_ns, AXPROF_LOAD (st->restart_ns));
  if (lat) {
    AXPROF_STORE (lat->n, 0);
    AXPROF_STORE (lat->min_ns, G_MAXUINT64);
    AXPROF_STORE (lat->max_ns, 0);
    AXPROF_STORE (lat->sum_ns, 0);
    AXPROF_STORE (lat->sumsq_ns, 0);
    AXPROF_STORE (lat->unmatched, 0);
    for (i = 0; i < HIST_BUCKETS; i++)
      AXPROF_STORE (lat->buckets[i], 0);
  }
  __atomic_store_n (&st->gen_seen, gen, __ATOMIC_RELEASE);
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

/* the value (ns) a histogram bucket stands for */
gdouble
axprof_hist_bucket_value (guint idx)
{
  return hist_value (idx);
}

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
