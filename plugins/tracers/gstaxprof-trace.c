/* gst-ax
 * Copyright (C) 2026 gst-ax developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

/* What the perfetto= timeline records while a run goes, when perfetto=
 * is set (axprof_trace_on): the latest spans and stages of each thread
 * slot in a ring per slot, the busy intervals of each device and the
 * levels of each queue in rings of their own, and, first thing in a
 * buffer's hooks, the probe clock against the hook's time, whose least
 * difference pairs the two clocks. gstaxprof-timeline.c writes them out
 * at the end. The rings are bounded, so a long run keeps its most recent
 * stretch. */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstaxprof-trace.h"

#include <string.h>
#ifdef __linux__
#include <sys/prctl.h>
#endif

gboolean axprof_trace_on;
TraceRing *axprof_trace_rings[MAX_THREAD_SLOTS];

/* The ring's pages are touched when it is made, so that filling it later
 * takes no page faults that the measured spans would be charged with. */
static TraceRing *
trace_ring_new (gint slot)
{
  TraceRing *ring = g_malloc (sizeof (TraceRing));

  memset (ring, 0, sizeof (TraceRing));
  __atomic_store_n (&axprof_trace_rings[slot], ring, __ATOMIC_RELEASE);
  return ring;
}

/* A thread took @slot: its ring, and its name for the track. */
void
axprof_trace_thread_start (gint slot)
{
  TraceRing *ring = axprof_trace_rings[slot];
  gchar name[TRACE_THREAD_NAME_SIZE] = "";

  if (ring == NULL)
    ring = trace_ring_new (slot);
#ifdef __linux__
  if (prctl (PR_GET_NAME, name, 0, 0, 0) != 0)
    name[0] = '\0';
  name[TRACE_THREAD_NAME_SIZE - 1] = '\0';
#endif
  if (name[0])
    memcpy (ring->thread_name, name, sizeof (name));
}

static TraceRing *
trace_ring_of (ThreadState * t)
{
  TraceRing *ring;

  if (t->slot < 0)
    return NULL;
  ring = axprof_trace_rings[t->slot];
  if (G_UNLIKELY (ring == NULL))
    ring = trace_ring_new (t->slot);
  return ring;
}

static void
trace_push (ThreadState * t, Row * row, guint64 start, guint64 dur,
    gboolean probe_clock, guint64 submit_seq)
{
  TraceRing *ring = trace_ring_of (t);
  TraceEvent *e;

  if (ring == NULL)
    return;
  e = &ring->events[ring->head % TRACE_RING_SIZE];
  e->row = row;
  e->start = start;
  e->dur = dur;
  e->run = row->pipe->run;
  e->probe_clock = probe_clock;
  e->submit_seq = submit_seq;
  __atomic_store_n (&ring->head, ring->head + 1, __ATOMIC_RELEASE);
}

void
axprof_trace_add (ThreadState * t, Row * row, guint64 start, guint64 dur,
    gboolean probe_clock)
{
  trace_push (t, row, start, dur, probe_clock, 0);
}

void
axprof_trace_span (ThreadState * t, Row * row, const GstAxProbeSpan * span)
{
  guint64 seq = 0;

  if (span->flags & GST_AX_PROBE_FLAG_SUBMIT)
    seq = __atomic_add_fetch (&row->trace_submits, 1, __ATOMIC_RELAXED);
  trace_push (t, row, span->start_ns, span->wall_ns, TRUE, seq);
}

/* d->lock held */
void
axprof_trace_device_event (DeviceState * d, const GstAxProbeDeviceEvent * ev,
    guint32 run)
{
  DeviceTraceEvent *te;

  if (d->trace == NULL)
    d->trace = g_new0 (DeviceTraceEvent, DEVICE_RING_SIZE);
  te = &d->trace[d->trace_head++ % DEVICE_RING_SIZE];
  te->core = ev->resource;
  te->job = ev->job_id;
  te->start_ns = ev->start_ns;
  te->end_ns = ev->end_ns;
  te->run = run;
  te->seq = ++d->trace_seq;
}

/* q->lock held */
void
axprof_trace_queue_level (QueueState * q, guint64 ts)
{
  QueueTraceSample *s;

  if (q->trace == NULL)
    q->trace = g_new0 (QueueTraceSample, QUEUE_RING_SIZE);
  s = &q->trace[q->trace_head++ % QUEUE_RING_SIZE];
  s->ts = ts;
  s->buffers = q->depth;
  s->bytes = q->bytes;
  s->run = q->elem->pipe->run;
}

/* First thing in a hook: the probe clock, read at @now, against the
 * hook's time, on the ring of the thread @t. */
void
axprof_trace_clock_sample (ThreadState * t, guint64 now, guint64 hook_ts)
{
  TraceRing *ring = trace_ring_of (t);
  gint64 d = (gint64) now - (gint64) hook_ts;

  if (ring == NULL || ring->clock_samples >= TRACE_CLOCK_SAMPLES)
    return;
  if (ring->clock_samples == 0 || d < ring->clock_offset)
    __atomic_store_n (&ring->clock_offset, d, __ATOMIC_RELAXED);
  __atomic_store_n (&ring->clock_samples, ring->clock_samples + 1,
      __ATOMIC_RELEASE);
}
