/* gst-ax
 * Copyright (C) 2026 gst-ax developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

/* The perfetto= timeline: the Trace Event Format JSON written at the
 * end of a run, which the Perfetto UI and chrome://tracing open, from
 * what gstaxprof-trace.c recorded while it went (the trace rings of the
 * thread slots, the device and queue rings, the pairing of the two
 * clocks).
 *
 * The format's rules that the writer keeps (the Trace Event Format, and
 * Perfetto's JSON importer, which reads it):
 * - "ts" and "dur" are microseconds as numbers; the importer truncates
 *   ts * 1000 to whole nanoseconds, so each value is written half a
 *   nanosecond above its nanosecond count and reads back exact.
 * - Complete events ("ph":"X") on one pid/tid must nest: a slice that
 *   begins inside another ends inside it too, or the importer drops it.
 * - Tracks are named by metadata events ("ph":"M", process_name and
 *   thread_name with args.name); tid 0 is no thread of its own.
 * - A counter ("ph":"C") is a track per process, name and args key.
 * - A flow starts ("ph":"s") in the slice open at its ts on its thread
 *   and ends ("ph":"f", "bp":"e") in the slice enclosing its ts; both
 *   carry the same id, cat and name.
 *
 * Two clocks meet in the host rows: the pad hooks' times (GStreamer's
 * tracer clock, CLOCK_MONOTONIC from gst_init()) and the stages'
 * (gst_ax_probe_now_ns(), CLOCK_MONOTONIC). Their offset is constant; it
 * is taken as the least difference of a probe clock reading made first
 * thing in a hook and the hook's time, over many hooks and threads, which
 * leaves only the hook's dispatch in the error. What error is left (tens
 * of nanoseconds) could still make a stage straddle its element's span:
 * each stage is fitted into the span and the gap between nested calls
 * that it lies in. */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstaxprof-thread.h"
#include "gstaxprof-report-private.h"

#include <json-glib/json-glib.h>
#include <string.h>

/* Track ids. The host is one process and each device another; a
 * thread's tid is its process's pid times TRACE_TIDS_PER_PID plus one
 * plus its index, so tids are unique, and never 0. */
#define TRACE_PID_HOST 1
#define TRACE_PID_DEVICE_BASE 2
#define TRACE_TIDS_PER_PID 1000
/* lanes of a device core (see device_lanes()): core + lane * stride */
#define TRACE_LANE_STRIDE 100
#define TRACE_FLOW_NAME "job"
#define TRACE_FLOW_CAT "submit"
/* half a nanosecond in microseconds: see the format's rules above */
#define TRACE_HALF_NS_US 0.0005
/* a flow binds at the middle of its slices: they must be this long */
#define TRACE_FLOW_MIN_DUR_NS 2
#define NS_PER_US 1000.0

typedef struct
{
  gint64 ts;
  gint64 end;
  guint pid;
  guint tid;
  gchar *name;
  const gchar *cat;
  /* measured by the pad hooks, else a stage on the probe clock */
  gboolean hook;
  guint64 flow_out;
  guint64 flow_in;
} TlSlice;

typedef struct
{
  gint64 ts;
  guint pid;
  const gchar *name;
  const gchar *key;
  gint64 value;
} TlCounter;

typedef struct
{
  guint pid;
  guint tid;
  gchar *name;
} TlTrack;

typedef struct
{
  GArray *slices;
  GArray *counters;
  /* TlTrack: processes (tid 0) and threads */
  GArray *tracks;
  GPtrArray *strings;
} Timeline;

static void
tl_track (Timeline * tl, guint pid, guint tid, gchar * name)
{
  TlTrack t = { pid, tid, name };
  guint i;

  for (i = 0; i < tl->tracks->len; i++) {
    TlTrack *o = &g_array_index (tl->tracks, TlTrack, i);

    if (o->pid == pid && o->tid == tid) {
      g_free (name);
      return;
    }
  }
  g_array_append_val (tl->tracks, t);
}

static guint
tl_tid (guint pid, guint index)
{
  return pid * TRACE_TIDS_PER_PID + 1 + index;
}

static const gchar *
tl_intern (Timeline * tl, gchar * s)
{
  g_ptr_array_add (tl->strings, s);
  return s;
}

/* The probe clock minus the hook clock: the least pairing seen. */
static gint64
clock_offset (PipelineState * p)
{
  gboolean have = FALSE;
  gint64 best = 0;
  guint s;

  for (s = 0; s < axprof_slot_count (); s++) {
    TraceRing *ring =
        __atomic_load_n (&axprof_trace_rings[s], __ATOMIC_ACQUIRE);
    gint64 d;

    if (ring == NULL || __atomic_load_n (&ring->clock_samples,
            __ATOMIC_ACQUIRE) == 0)
      continue;
    d = __atomic_load_n (&ring->clock_offset, __ATOMIC_RELAXED);
    if (!have || d < best)
      best = d;
    have = TRUE;
  }
  /* no hook ran while tracing: the run's bounds pair the clocks */
  return have ? best : (gint64) p->first_probe_ns - (gint64) p->first_ts;
}

/* The device record of @row's element and group, where its submissions'
 * jobs are. */
static DeviceState *
device_of_row (PipelineState * p, Row * row)
{
  const gchar *group = row->group ? row->group : row->elem->name;
  guint i;

  for (i = 0; i < p->devices->len; i++) {
    DeviceState *d = g_ptr_array_index (p->devices, i);

    if (d->elem == row->elem && strcmp (d->group, group) == 0)
      return d;
  }
  return NULL;
}

static void
collect_host (Timeline * tl, PipelineState * p, gint64 offset)
{
  guint s;

  for (s = 0; s < axprof_slot_count (); s++) {
    TraceRing *ring =
        __atomic_load_n (&axprof_trace_rings[s], __ATOMIC_ACQUIRE);
    guint64 head, j;
    gboolean used = FALSE;
    /* the thread is named after the element of its earliest span: a
     * source's or a queue's task, an element's own thread */
    const gchar *owner = NULL;
    guint64 owner_start = G_MAXUINT64;

    if (ring == NULL)
      continue;
    head = __atomic_load_n (&ring->head, __ATOMIC_ACQUIRE);
    for (j = head > TRACE_RING_SIZE ? head - TRACE_RING_SIZE : 0; j < head; j++) {
      TraceEvent *e = &ring->events[j % TRACE_RING_SIZE];
      TlSlice sl = { 0 };

      if (e->row == NULL || e->row->pipe != p || e->run != p->run)
        continue;
      sl.ts = e->probe_clock ? (gint64) e->start : (gint64) e->start + offset;
      sl.end = sl.ts + (gint64) e->dur;
      sl.pid = TRACE_PID_HOST;
      sl.tid = tl_tid (TRACE_PID_HOST, s);
      sl.name = axprof_row_name (e->row);
      sl.cat = axprof_row_group (e->row);
      sl.hook = !e->probe_clock;
      /* the submission's place, matched to its job below */
      sl.flow_out = e->submit_seq;
      if (e->submit_seq)
        sl.flow_in = GPOINTER_TO_SIZE (e->row);
      g_array_append_val (tl->slices, sl);
      used = TRUE;
      if (sl.hook && (guint64) sl.ts < owner_start && e->row->elem) {
        owner_start = sl.ts;
        owner = e->row->elem->name;
      }
    }
    if (used && owner)
      tl_track (tl, TRACE_PID_HOST, tl_tid (TRACE_PID_HOST, s),
          g_strdup_printf ("%s thread", owner));
    else if (used)
      tl_track (tl, TRACE_PID_HOST, tl_tid (TRACE_PID_HOST, s),
          ring->thread_name[0] ? g_strdup (ring->thread_name) :
          g_strdup_printf ("thread %u", s));
  }
}

/* The process of device record @i: one per simulated device, so that the
 * models sharing a device share its cores' tracks. */
static guint
device_pid (PipelineState * p, guint i)
{
  DeviceState *d = g_ptr_array_index (p->devices, i);
  guint j;

  if (d->device_handle != 0)
    for (j = 0; j < i; j++) {
      DeviceState *o = g_ptr_array_index (p->devices, j);

      if (o->device_handle == d->device_handle)
        return device_pid (p, j);
    }
  return TRACE_PID_DEVICE_BASE + i;
}

static gchar *
device_process_name (PipelineState * p, guint pid)
{
  GString *s = g_string_new (NULL);
  guint i, j;

  for (i = 0; i < p->devices->len; i++) {
    DeviceState *d = g_ptr_array_index (p->devices, i);

    if (device_pid (p, i) != pid)
      continue;
    if (s->len == 0)
      g_string_append_printf (s, "device %s #%u:", d->device ? d->device :
          "?", d->device_id);
    for (j = 0; j < i; j++)
      if (device_pid (p, j) == pid && strcmp (((DeviceState *)
                  g_ptr_array_index (p->devices, j))->group, d->group) == 0)
        break;
    if (j == i)
      g_string_append_printf (s, " %s", d->group);
  }
  return g_string_free (s, FALSE);
}

typedef struct
{
  gint64 ts;
  gint delta;
  guint pid;
  const gchar *name;
} InFlightEdge;

static gint
compare_in_flight (gconstpointer a, gconstpointer b)
{
  const InFlightEdge *x = a, *y = b;

  if (x->ts != y->ts)
    return x->ts < y->ts ? -1 : 1;
  /* a job that leaves as the next enters: the depth does not peak */
  return x->delta - y->delta;
}

static gint
compare_by_track (gconstpointer a, gconstpointer b)
{
  const TlSlice *x = a, *y = b;

  if (x->tid != y->tid)
    return x->tid < y->tid ? -1 : 1;
  if (x->ts != y->ts)
    return x->ts < y->ts ? -1 : 1;
  return (x->end > y->end) - (x->end < y->end);
}

/* A core runs one job at a time; should a device report jobs that
 * overlap on one core, the later ones go on further lanes of it
 * ("core 0 #2"), so that no slice straddles another. Slices from
 * @first on are the device's, on the tracks of their cores. */
static void
device_lanes (Timeline * tl, guint first)
{
  TlSlice *sl = (TlSlice *) tl->slices->data + first;
  guint n = tl->slices->len - first, i, start = 0;
  GArray *lane_end = g_array_new (FALSE, FALSE, sizeof (gint64));

  qsort (sl, n, sizeof (TlSlice), compare_by_track);
  for (i = 0; i < n; i++) {
    guint core_tid, core, lane;

    if (i == 0 || sl[i].tid != sl[start].tid) {
      start = i;
      g_array_set_size (lane_end, 0);
    }
    core_tid = sl[start].tid;
    core = core_tid - tl_tid (sl[i].pid, 0);
    for (lane = 0; lane < lane_end->len; lane++)
      if (g_array_index (lane_end, gint64, lane) <= sl[i].ts)
        break;
    if (lane == lane_end->len)
      g_array_append_val (lane_end, sl[i].end);
    else
      g_array_index (lane_end, gint64, lane) = sl[i].end;
    if (lane > 0) {
      sl[i].tid = tl_tid (sl[i].pid, core + lane * TRACE_LANE_STRIDE);
      tl_track (tl, sl[i].pid, sl[i].tid, g_strdup_printf ("core %u #%u",
              core, lane + 1));
    } else {
      tl_track (tl, sl[i].pid, sl[i].tid, g_strdup_printf ("core %u", core));
    }
  }
  g_array_free (lane_end, TRUE);
}

/* The device jobs, each linked to its submission where the element
 * flagged it, and the in-flight depth: jobs submitted and not done. */
static void
collect_devices (Timeline * tl, PipelineState * p)
{
  GHashTable *submits = g_hash_table_new (g_int64_hash, g_int64_equal);
  GArray *edges = g_array_new (FALSE, FALSE, sizeof (InFlightEdge));
  GArray *keys = g_array_new (FALSE, FALSE, sizeof (gint64));
  guint i, n_host = tl->slices->len;

  /* submissions by (device record, place): the key is the flow's id */
  g_array_set_size (keys, n_host);
  for (i = 0; i < n_host; i++) {
    TlSlice *sl = &g_array_index (tl->slices, TlSlice, i);
    Row *row = GSIZE_TO_POINTER (sl->flow_in);
    DeviceState *d;
    guint k;

    sl->flow_in = 0;
    if (sl->flow_out == 0)
      continue;
    d = device_of_row (p, row);
    for (k = 0; d && k < p->devices->len; k++)
      if (g_ptr_array_index (p->devices, k) == d)
        break;
    if (d == NULL) {
      sl->flow_out = 0;
      continue;
    }
    sl->flow_out |= (guint64) (k + 1) << 32;
    g_array_index (keys, gint64, i) = (gint64) sl->flow_out;
    g_hash_table_insert (submits, &g_array_index (keys, gint64, i),
        GUINT_TO_POINTER (i + 1));
  }

  for (i = 0; i < p->devices->len; i++) {
    DeviceState *d = g_ptr_array_index (p->devices, i);
    guint pid = device_pid (p, i);
    const gchar *in_flight;
    gboolean shared_group = FALSE;
    guint64 j;
    guint k;

    /* two elements running one model: each its own depth */
    for (k = 0; k < p->devices->len; k++)
      shared_group |= k != i && strcmp (((DeviceState *)
              g_ptr_array_index (p->devices, k))->group, d->group) == 0;
    in_flight = tl_intern (tl, shared_group ?
        g_strdup_printf ("%s (%s) in flight", d->group, d->elem->name) :
        g_strdup_printf ("%s in flight", d->group));

    g_mutex_lock (&d->lock);
    for (j = d->trace_head > DEVICE_RING_SIZE ?
        d->trace_head - DEVICE_RING_SIZE : 0; d->trace && j < d->trace_head;
        j++) {
      DeviceTraceEvent *e = &d->trace[j % DEVICE_RING_SIZE];
      TlSlice sl = { 0 };
      gint64 key = (gint64) (e->seq | ((guint64) (i + 1) << 32));
      guint sub_index;

      if (e->run != p->run)
        continue;
      sl.ts = (gint64) e->start_ns;
      sl.end = (gint64) MAX (e->end_ns, e->start_ns);
      sl.pid = pid;
      sl.tid = tl_tid (pid, e->core);
      sl.name = g_strdup_printf ("%s job %" G_GUINT64_FORMAT, d->group, e->job);
      sl.cat = d->group;
      sub_index = GPOINTER_TO_UINT (g_hash_table_lookup (submits, &key));
      if (sub_index) {
        const TlSlice *sub = &g_array_index (tl->slices, TlSlice,
            sub_index - 1);
        InFlightEdge in = { sub->end, 1, pid, in_flight };
        InFlightEdge out = { sl.end, -1, pid, in_flight };

        g_array_append_val (edges, in);
        g_array_append_val (edges, out);
        if (sub->end - sub->ts >= TRACE_FLOW_MIN_DUR_NS &&
            sl.end - sl.ts >= TRACE_FLOW_MIN_DUR_NS)
          sl.flow_in = (guint64) key;
      }
      g_array_append_val (tl->slices, sl);
    }
    g_mutex_unlock (&d->lock);
  }

  /* only submissions whose job is in the trace keep their flow */
  {
    GHashTable *ended = g_hash_table_new (g_int64_hash, g_int64_equal);

    for (i = n_host; i < tl->slices->len; i++) {
      TlSlice *sl = &g_array_index (tl->slices, TlSlice, i);

      if (sl->flow_in)
        g_hash_table_add (ended, &sl->flow_in);
    }
    for (i = 0; i < n_host; i++) {
      TlSlice *sl = &g_array_index (tl->slices, TlSlice, i);

      if (sl->flow_out && !g_hash_table_contains (ended, &sl->flow_out))
        sl->flow_out = 0;
    }
    g_hash_table_destroy (ended);
  }

  g_array_sort (edges, compare_in_flight);
  {
    GHashTable *depth = g_hash_table_new (g_str_hash, g_str_equal);

    for (i = 0; i < edges->len; i++) {
      InFlightEdge *e = &g_array_index (edges, InFlightEdge, i);
      gint64 v = GPOINTER_TO_SIZE (g_hash_table_lookup (depth, e->name));
      TlCounter c;

      v += e->delta;
      g_hash_table_insert (depth, (gpointer) e->name, GSIZE_TO_POINTER (v));
      c.ts = e->ts;
      c.pid = e->pid;
      c.name = e->name;
      c.key = "jobs";
      c.value = v;
      g_array_append_val (tl->counters, c);
    }
    g_hash_table_destroy (depth);
  }

  for (i = 0; i < p->devices->len; i++) {
    guint pid = device_pid (p, i);

    tl_track (tl, pid, 0, device_process_name (p, pid));
  }
  device_lanes (tl, n_host);
  g_array_free (edges, TRUE);
  g_array_free (keys, TRUE);
  g_hash_table_destroy (submits);
}

static void
collect_queues (Timeline * tl, PipelineState * p, gint64 offset)
{
  guint i;

  for (i = 0; i < p->queues->len; i++) {
    QueueState *q = g_ptr_array_index (p->queues, i);
    guint64 j;

    g_mutex_lock (&q->lock);
    for (j = q->trace_head > QUEUE_RING_SIZE ?
        q->trace_head - QUEUE_RING_SIZE : 0; q->trace && j < q->trace_head;
        j++) {
      QueueTraceSample *s = &q->trace[j % QUEUE_RING_SIZE];
      TlCounter c;

      if (s->run != p->run)
        continue;
      c.ts = (gint64) s->ts + offset;
      c.pid = TRACE_PID_HOST;
      c.name = q->name;
      c.key = "buffers";
      c.value = MAX (s->buffers, 0);
      g_array_append_val (tl->counters, c);
    }
    g_mutex_unlock (&q->lock);
  }
}

static gint
compare_slices (gconstpointer a, gconstpointer b)
{
  const TlSlice *x = a, *y = b;

  if (x->tid != y->tid)
    return x->tid < y->tid ? -1 : 1;
  if (x->ts != y->ts)
    return x->ts < y->ts ? -1 : 1;
  if (x->end != y->end)
    return x->end > y->end ? -1 : 1;
  /* a span and a stage of one extent: the span is the parent */
  return y->hook - x->hook;
}

/* Fits the stages of one thread (slices [first, last) sorted by
 * compare_slices) into the spans and gaps between nested calls that
 * their middles lie in, and the spans into their parents. */
static void
fit_thread (TlSlice * sl, guint first, guint last)
{
  GArray *hooks = g_array_new (FALSE, FALSE, sizeof (guint));
  GArray *parent = g_array_new (FALSE, FALSE, sizeof (gint));
  GArray *stack = g_array_new (FALSE, FALSE, sizeof (guint));
  gint64 prev_end = G_MININT64;
  guint i;

  /* the spans, nested by construction; a parent for each (the stack
   * holds indices into hooks) */
  for (i = first; i < last; i++) {
    gint up = -1;

    if (!sl[i].hook)
      continue;
    while (stack->len > 0 && sl[g_array_index (hooks, guint,
                g_array_index (stack, guint, stack->len - 1))].end <= sl[i].ts)
      g_array_set_size (stack, stack->len - 1);
    if (stack->len > 0) {
      up = (gint) g_array_index (stack, guint, stack->len - 1);
      sl[i].end = MIN (sl[i].end, sl[g_array_index (hooks, guint, up)].end);
    }
    g_array_append_val (hooks, i);
    g_array_append_val (parent, up);
    {
      guint h = hooks->len - 1;

      g_array_append_val (stack, h);
    }
  }

  for (i = first; i < last; i++) {
    gint64 mid, lo = G_MININT64, hi = G_MAXINT64;
    gint k, below = -1, lo_idx, hi_idx;

    if (sl[i].hook)
      continue;
    mid = sl[i].ts + (sl[i].end - sl[i].ts) / 2;
    /* the last span that starts at or before the middle */
    lo_idx = 0;
    hi_idx = (gint) hooks->len;
    while (lo_idx < hi_idx) {
      gint m = (lo_idx + hi_idx) / 2;

      if (sl[g_array_index (hooks, guint, m)].ts <= mid)
        lo_idx = m + 1;
      else
        hi_idx = m;
    }
    k = lo_idx - 1;
    if (lo_idx < (gint) hooks->len)
      hi = sl[g_array_index (hooks, guint, lo_idx)].ts;
    /* up to the deepest span that holds the middle; the one below it on
     * the way ended before the middle, and bounds the stage's start */
    while (k >= 0 && sl[g_array_index (hooks, guint, k)].end <= mid) {
      below = k;
      k = g_array_index (parent, gint, k);
    }
    if (below >= 0)
      lo = sl[g_array_index (hooks, guint, below)].end;
    if (k >= 0) {
      TlSlice *h = &sl[g_array_index (hooks, guint, k)];

      lo = MAX (lo, h->ts);
      hi = MIN (hi, h->end);
    }
    sl[i].ts = CLAMP (sl[i].ts, lo, hi);
    sl[i].end = CLAMP (sl[i].end, sl[i].ts, hi);
  }

  /* stages among themselves, one after another */
  for (i = first; i < last; i++) {
    if (sl[i].hook)
      continue;
    if (sl[i].ts < prev_end && sl[i].end > prev_end)
      sl[i].ts = prev_end;
    prev_end = MAX (prev_end, sl[i].end);
  }
  g_array_free (hooks, TRUE);
  g_array_free (parent, TRUE);
  g_array_free (stack, TRUE);
}

static void
fit_host_threads (Timeline * tl)
{
  TlSlice *sl;
  guint i, first = 0;

  g_array_sort (tl->slices, compare_slices);
  sl = (TlSlice *) tl->slices->data;
  for (i = 1; i <= tl->slices->len; i++) {
    if (i < tl->slices->len && sl[i].tid == sl[first].tid)
      continue;
    if (sl[first].pid == TRACE_PID_HOST)
      fit_thread (sl, first, i);
    first = i;
  }
  /* fitting moved stages: the order again */
  g_array_sort (tl->slices, compare_slices);
}

/* @tid 0: a process's event (its name, a counter), on no thread */
static void
event_head (JsonBuilder * b, const gchar * ph, const gchar * name,
    guint pid, guint tid)
{
  json_builder_set_member_name (b, "ph");
  json_builder_add_string_value (b, ph);
  json_builder_set_member_name (b, "name");
  json_builder_add_string_value (b, name);
  json_builder_set_member_name (b, "pid");
  json_builder_add_int_value (b, pid);
  if (tid != 0) {
    json_builder_set_member_name (b, "tid");
    json_builder_add_int_value (b, tid);
  }
}

static void
event_ts (JsonBuilder * b, const gchar * member, gint64 ns)
{
  json_builder_set_member_name (b, member);
  json_builder_add_double_value (b, ns / NS_PER_US + TRACE_HALF_NS_US);
}

static void
emit_flow (JsonBuilder * b, const gchar * ph, guint64 id, const TlSlice * sl,
    gint64 origin)
{
  json_builder_begin_object (b);
  event_head (b, ph, TRACE_FLOW_NAME, sl->pid, sl->tid);
  json_builder_set_member_name (b, "cat");
  json_builder_add_string_value (b, TRACE_FLOW_CAT);
  json_builder_set_member_name (b, "id");
  json_builder_add_int_value (b, (gint64) id);
  if (ph[0] == 'f') {
    json_builder_set_member_name (b, "bp");
    json_builder_add_string_value (b, "e");
  }
  event_ts (b, "ts", sl->ts + (sl->end - sl->ts) / 2 - origin);
  json_builder_end_object (b);
}

static void
emit (JsonBuilder * b, Timeline * tl, PipelineState * p)
{
  gint64 origin = G_MAXINT64;
  guint i;

  for (i = 0; i < tl->slices->len; i++)
    origin = MIN (origin, g_array_index (tl->slices, TlSlice, i).ts);
  for (i = 0; i < tl->counters->len; i++)
    origin = MIN (origin, g_array_index (tl->counters, TlCounter, i).ts);
  if (origin == G_MAXINT64)
    origin = 0;

  tl_track (tl, TRACE_PID_HOST, 0, g_strdup_printf ("%s (host)", p->name));
  for (i = 0; i < tl->tracks->len; i++) {
    TlTrack *t = &g_array_index (tl->tracks, TlTrack, i);

    json_builder_begin_object (b);
    event_head (b, "M", t->tid ? "thread_name" : "process_name", t->pid,
        t->tid);
    json_builder_set_member_name (b, "args");
    json_builder_begin_object (b);
    json_builder_set_member_name (b, "name");
    json_builder_add_string_value (b, t->name);
    json_builder_end_object (b);
    json_builder_end_object (b);
  }
  for (i = 0; i < tl->slices->len; i++) {
    TlSlice *sl = &g_array_index (tl->slices, TlSlice, i);

    json_builder_begin_object (b);
    event_head (b, "X", sl->name, sl->pid, sl->tid);
    json_builder_set_member_name (b, "cat");
    json_builder_add_string_value (b, sl->cat ? sl->cat : "");
    event_ts (b, "ts", sl->ts - origin);
    event_ts (b, "dur", sl->end - sl->ts);
    json_builder_end_object (b);
    if (sl->flow_out)
      emit_flow (b, "s", sl->flow_out, sl, origin);
    if (sl->flow_in)
      emit_flow (b, "f", sl->flow_in, sl, origin);
  }
  for (i = 0; i < tl->counters->len; i++) {
    TlCounter *c = &g_array_index (tl->counters, TlCounter, i);

    json_builder_begin_object (b);
    event_head (b, "C", c->name, c->pid, 0);
    event_ts (b, "ts", c->ts - origin);
    json_builder_set_member_name (b, "args");
    json_builder_begin_object (b);
    json_builder_set_member_name (b, c->key);
    json_builder_add_int_value (b, c->value);
    json_builder_end_object (b);
    json_builder_end_object (b);
  }
}

/* axprof_global_lock and p->lock held. */
gchar *
axprof_make_timeline (PipelineState * p)
{
  JsonBuilder *b = json_builder_new ();
  JsonGenerator *gen;
  JsonNode *root;
  Timeline tl;
  gint64 offset = clock_offset (p);
  gchar *json, *out;
  guint i;

  tl.slices = g_array_new (FALSE, FALSE, sizeof (TlSlice));
  tl.counters = g_array_new (FALSE, FALSE, sizeof (TlCounter));
  tl.tracks = g_array_new (FALSE, FALSE, sizeof (TlTrack));
  tl.strings = g_ptr_array_new_with_free_func (g_free);

  collect_host (&tl, p, offset);
  collect_devices (&tl, p);
  collect_queues (&tl, p, offset);
  fit_host_threads (&tl);

  json_builder_begin_object (b);
  json_builder_set_member_name (b, "displayTimeUnit");
  json_builder_add_string_value (b, "ms");
  json_builder_set_member_name (b, "traceEvents");
  json_builder_begin_array (b);
  emit (b, &tl, p);
  json_builder_end_array (b);
  json_builder_end_object (b);

  root = json_builder_get_root (b);
  gen = json_generator_new ();
  json_generator_set_root (gen, root);
  json = json_generator_to_data (gen, NULL);
  out = g_strconcat (json, "\n", NULL);
  g_free (json);
  g_object_unref (gen);
  json_node_unref (root);
  g_object_unref (b);

  for (i = 0; i < tl.slices->len; i++)
    g_free (g_array_index (tl.slices, TlSlice, i).name);
  for (i = 0; i < tl.tracks->len; i++)
    g_free (g_array_index (tl.tracks, TlTrack, i).name);
  g_array_free (tl.slices, TRUE);
  g_array_free (tl.counters, TRUE);
  g_array_free (tl.tracks, TRUE);
  g_ptr_array_free (tl.strings, TRUE);
  return out;
}
