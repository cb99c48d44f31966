/* gst-ax
 * Copyright (C) 2026 gst-ax developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstaxprof-private.h"

#include <string.h>

/* End-to-end latency: how a frame at a sink is matched to the moment it
 * entered the pipeline.
 *
 * Buffer identity does not survive the way (decoders, videoconvert,
 * axletterbox and axinference allocate new buffers), a meta cannot be
 * attached by an observer (the buffers it sees are not writable) and
 * frame order breaks wherever frames are dropped or duplicated (videorate,
 * QoS). What every element that maps frames keeps is the timeline: a new
 * buffer copies its input's timestamp, and a decoder turns a demuxer's
 * DTS-only buffers into PTS on the same timeline. So a frame is known by
 * its running time, PTS else DTS, through the segment of the pad it
 * travels on: at the pad where it enters (a source's, or a demuxer's or
 * parser's, which produce the first timestamps) and at the sink.
 *
 * Entries are kept per entering pad, tagged with the pad's stream-id,
 * which stream-start events carry unchanged through decoders and
 * filters, so that a demuxer's audio never answers for its video. A sink
 * buffer matches the entry of its stream with the largest running time
 * not after its own, if it lies within that entry's duration (or before
 * the next entry when there is no duration): exact for elements that copy
 * timestamps, and the original frame for a duplicate made by videorate.
 * An aggregator starts a new stream, so entries of sources on any stream
 * match too when the running time is exactly equal; of several matches the
 * earliest push is where the frame entered. A sink buffer without any
 * timestamp can only be the very buffer a source pushed (identity).
 * Sink buffers that match nothing are counted and reported. */

/* bumped after every segment or stream-start push, so that a pad's
 * stream-id and segment are read again only when they may have changed */
static guint latency_gen;

/* A segment or stream-start event was pushed: it is stored on both pads
 * now, for the readers to see. */
void
axprof_latency_streams_changed (void)
{
  __atomic_add_fetch (&latency_gen, 1, __ATOMIC_RELEASE);
}

static inline guint64
latency_timed_key (guint64 running_time)
{
  /* never 0, which marks an entry being written */
  return (running_time + 1) << 1;
}

static inline guint64
latency_untimed_key (GstBuffer * buf)
{
  return ((guint64) (guintptr) buf) | 1;
}

/* The running time of @ts on @seg (a TIME segment), or @ts itself when
 * there is no segment or @ts lies outside it. */
static inline guint64
latency_running_time (const GstSegment * seg, gboolean have_seg,
    GstClockTime ts)
{
  GstClockTime rt;

  if (!have_seg || seg->format != GST_FORMAT_TIME)
    return ts;
  rt = gst_segment_to_running_time (seg, GST_FORMAT_TIME, ts);
  return GST_CLOCK_TIME_IS_VALID (rt) ? rt : ts;
}

/* Reads the current stream-id (interned) and segment of @pad. */
static void
latency_read_sticky (GstPad * pad, const gchar ** stream_id,
    GstSegment * seg, gboolean * have_seg)
{
  gchar *id = gst_pad_get_stream_id (pad);
  GstEvent *ev = gst_pad_get_sticky_event (pad, GST_EVENT_SEGMENT, 0);

  *stream_id = id ? g_intern_string (id) : NULL;
  g_free (id);
  *have_seg = ev != NULL;
  if (ev) {
    gst_event_copy_segment (ev, seg);
    gst_event_unref (ev);
  }
}

/* The ring of entries for @pad of @ei, made or replaced (under the
 * pipeline's lock) when the pad starts a new stream; NULL when the
 * pipeline has no room for another ring. Only the pad's streaming thread
 * writes the ring it returns. */
static LatencyRing *
latency_ring_for_pad (ElementState * ei, GstPad * pad)
{
  guint gen = __atomic_load_n (&latency_gen, __ATOMIC_ACQUIRE);
  gint n = __atomic_load_n (&ei->n_pad_rings, __ATOMIC_ACQUIRE);
  LatencyRing *r = NULL;
  const gchar *stream_id;
  GstSegment seg;
  gboolean have_seg;
  PipelineState *p = ei->pipe;
  gint i;

  for (i = 0; i < n; i++)
    if (ei->pad_rings[i]->pad == pad) {
      r = ei->pad_rings[i];
      break;
    }
  if (G_LIKELY (r != NULL && r->gen == gen))
    return r;

  latency_read_sticky (pad, &stream_id, &seg, &have_seg);
  if (r != NULL && r->stream_id == stream_id) {
    r->seg = seg;
    r->have_seg = have_seg;
    r->gen = gen;
    return r;
  }
  /* a new pad, or a new stream on it: the entries of the old stream stay
   * readable in the old ring for the frames still on their way */
  g_mutex_lock (&p->lock);
  if (p->n_rings < MAX_LATENCY_RINGS && (r != NULL ||
          ei->n_pad_rings < MAX_RINGS_PER_ELEMENT)) {
    LatencyRing *nr = g_new0 (LatencyRing, 1);

    nr->src = ei;
    nr->pad = pad;
    nr->stream_id = stream_id;
    nr->seg = seg;
    nr->have_seg = have_seg;
    nr->gen = gen;
    p->rings[p->n_rings] = nr;
    __atomic_store_n (&p->n_rings, p->n_rings + 1, __ATOMIC_RELEASE);
    if (r != NULL) {
      __atomic_store_n (&ei->pad_rings[i], nr, __ATOMIC_RELEASE);
    } else {
      ei->pad_rings[ei->n_pad_rings] = nr;
      __atomic_store_n (&ei->n_pad_rings, ei->n_pad_rings + 1,
          __ATOMIC_RELEASE);
    }
    r = nr;
  } else {
    r = NULL;
  }
  g_mutex_unlock (&p->lock);
  return r;
}

void
axprof_latency_mark (ElementState * ei, GstPad * pad, guint64 ts,
    GstBuffer * buf)
{
  LatencyRing *r = latency_ring_for_pad (ei, pad);
  GstClockTime bts = axprof_latency_buffer_ts (buf);
  guint64 key, dur = GST_BUFFER_DURATION (buf);
  LatencyEntry *e;
  guint64 h;

  if (G_UNLIKELY (r == NULL))
    return;
  key = GST_CLOCK_TIME_IS_VALID (bts) ?
      latency_timed_key (latency_running_time (&r->seg, r->have_seg, bts)) :
      latency_untimed_key (buf);
  if (G_UNLIKELY (!(r->kinds & ((key & 1) ? LATENCY_RING_UNTIMED :
                  LATENCY_RING_TIMED))))
    __atomic_or_fetch (&r->kinds, (key & 1) ? LATENCY_RING_UNTIMED :
        LATENCY_RING_TIMED, __ATOMIC_RELAXED);
  h = r->head;
  e = &r->entries[h % LATENCY_RING_SIZE];
  __atomic_store_n (&e->key, 0, __ATOMIC_RELAXED);
  __atomic_store_n (&e->ts, ts, __ATOMIC_RELAXED);
  __atomic_store_n (&e->dur, dur, __ATOMIC_RELAXED);
  __atomic_store_n (&e->key, key, __ATOMIC_RELEASE);
  __atomic_store_n (&r->head, h + 1, __ATOMIC_RELEASE);
}

/* Searches @r for @key (see the comment above); @interval allows the
 * match within an entry's duration, else only an exact one. */
static gboolean
latency_ring_lookup (LatencyRing * r, guint64 key, gboolean interval,
    guint64 * src_ts)
{
  guint64 head = __atomic_load_n (&r->head, __ATOMIC_ACQUIRE);
  guint64 j, lim = MIN (head, LATENCY_RING_SIZE), best_at = 0;
  guint64 best_key = 0, best_ts = 0, best_dur = GST_CLOCK_TIME_NONE;
  gboolean timed = (key & 1) == 0, have_later = FALSE;
  guint kinds = __atomic_load_n (&r->kinds, __ATOMIC_RELAXED);

  if (!(kinds & (timed ? LATENCY_RING_TIMED : LATENCY_RING_UNTIMED)))
    return FALSE;
  for (j = 1; j <= lim; j++) {
    LatencyEntry *e = &r->entries[(head - j) % LATENCY_RING_SIZE];
    guint64 k = __atomic_load_n (&e->key, __ATOMIC_ACQUIRE);
    guint64 ts = __atomic_load_n (&e->ts, __ATOMIC_RELAXED);
    guint64 dur = __atomic_load_n (&e->dur, __ATOMIC_RELAXED);

    if (__atomic_load_n (&e->key, __ATOMIC_ACQUIRE) != k || k == 0)
      continue;
    if (k == key) {
      *src_ts = ts;
      return TRUE;
    }
    if (!timed || (k & 1))
      continue;
    if (k > key) {
      have_later = TRUE;
    } else if (best_key == 0 || k > best_key) {
      best_key = k;
      best_ts = ts;
      best_dur = dur;
      best_at = j;
    }
    /* entries come in push order, which a source reorders only a little
     * (PTS of B-frames) */
    if (best_key != 0 && j - best_at > LATENCY_REORDER_WINDOW)
      break;
  }
  if (best_key == 0 || !interval)
    return FALSE;
  if (GST_CLOCK_TIME_IS_VALID (best_dur) ?
      ((key - best_key) >> 1) >= best_dur : !have_later)
    return FALSE;
  *src_ts = best_ts;
  return TRUE;
}

/* The earliest entry of @buf, seen at a sink with @stream_id (interned, or
 * NULL when unknown) and running time from @seg. */
static gboolean
latency_lookup (PipelineState * p, GstBuffer * buf, const gchar * stream_id,
    const GstSegment * seg, gboolean have_seg, guint64 * src_ts)
{
  GstClockTime bts = axprof_latency_buffer_ts (buf);
  gboolean timed = GST_CLOCK_TIME_IS_VALID (bts);
  guint64 key = timed ?
      latency_timed_key (latency_running_time (seg, have_seg, bts)) :
      latency_untimed_key (buf);
  gint n = __atomic_load_n (&p->n_rings, __ATOMIC_ACQUIRE);
  gboolean found = FALSE;
  gint i;

  for (i = 0; i < n; i++) {
    LatencyRing *r = p->rings[i];
    gboolean same = stream_id == NULL || r->stream_id == stream_id;
    guint64 ts;

    if (!same && !r->src->is_source)
      continue;
    if (latency_ring_lookup (r, key, same, &ts) && (!found || ts < *src_ts)) {
      *src_ts = ts;
      found = TRUE;
    }
  }
  return found;
}

/* Containers are bytes, not frames, though their caps say video/. */
static const gchar *const container_caps[] = {
  "video/quicktime", "video/x-matroska", "video/webm", "video/mpegts",
  "video/x-msvideo", "video/x-flv", "video/ogg", "video/x-ms-asf",
  "video/mj2",
};

/* What the sink pad @pad carries, from its current caps. */
static guint
sink_media_of (GstPad * pad)
{
  GstCaps *caps = gst_pad_get_current_caps (pad);
  const gchar *name;
  guint media = SINK_MEDIA_OTHER, i;

  if (caps == NULL)
    return SINK_MEDIA_UNKNOWN;
  if (gst_caps_get_size (caps) == 0) {
    gst_caps_unref (caps);
    return SINK_MEDIA_UNKNOWN;
  }
  name = gst_structure_get_name (gst_caps_get_structure (caps, 0));
  if (g_str_has_prefix (name, "audio/"))
    media = SINK_MEDIA_AUDIO;
  else if (g_str_has_prefix (name, "video/"))
    media = SINK_MEDIA_VIDEO;
  for (i = 0; media == SINK_MEDIA_VIDEO && i < G_N_ELEMENTS (container_caps);
      i++)
    if (strcmp (name, container_caps[i]) == 0)
      media = SINK_MEDIA_OTHER;
  gst_caps_unref (caps);
  return media;
}

/* Records the latency of every buffer that reaches sink @ei through @pad,
 * or counts it unmatched. */
void
axprof_latency_at_sink (ElementState * ei, GstPad * pad, guint64 ts,
    LatencyHistogram * lat, GstBuffer * buf, GstBufferList * list)
{
  guint gen = __atomic_load_n (&latency_gen, __ATOMIC_ACQUIRE);
  guint i, n = list ? gst_buffer_list_length (list) : 1;

  if (G_UNLIKELY (ei->sink_gen != gen || ei->sink_pad != pad)) {
    latency_read_sticky (pad, &ei->sink_stream, &ei->sink_seg,
        &ei->sink_have_seg);
    /* caps come before the segment, which bumps the generation */
    __atomic_store_n (&ei->sink_media, sink_media_of (pad), __ATOMIC_RELAXED);
    ei->sink_gen = gen;
    ei->sink_pad = pad;
  }
  for (i = 0; i < n; i++) {
    GstBuffer *b = list ? gst_buffer_list_get (list, i) : buf;
    guint64 src_ts = 0;

    if (latency_lookup (ei->pipe, b, ei->sink_stream, &ei->sink_seg,
            ei->sink_have_seg, &src_ts) && ts >= src_ts)
      axprof_hist_add (lat, ts - src_ts);
    else
      AXPROF_ADD (lat->unmatched, 1);
  }
}

/* ---------------------------------------------------------------- relays */

/* A muxer's input frames, by when they entered the pipeline, until its
 * output carries them on: a muxer writes bytes (a BYTES segment, offsets,
 * no frame timestamps), so its output matches no frame, and its own push
 * is not where a frame entered. Each buffer it pushes takes the oldest
 * entering time not yet passed on. */
#define RELAY_PADS 4
#define RELAY_FIFO 256

struct _LatencyRelay
{
  GMutex lock;
  /* protected by lock: the inputs' stream and segment by pad */
  struct
  {
    GstPad *pad;
    guint gen;
    const gchar *stream_id;
    GstSegment seg;
    gboolean have_seg;
  } pads[RELAY_PADS];
  guint64 fifo[RELAY_FIFO];
  guint64 head;
  guint64 tail;
};

/* A relay for @element if it is a muxer: an aggregator whose source pad
 * template offers no raw media. */
LatencyRelay *
axprof_latency_relay_new (GstElement * element)
{
  GType agg = g_type_from_name ("GstAggregator");
  GstPadTemplate *t;
  GstCaps *caps;
  gboolean raw = FALSE;
  guint i;
  LatencyRelay *r;

  if (agg == 0 || !g_type_is_a (G_OBJECT_TYPE (element), agg))
    return NULL;
  t = gst_element_class_get_pad_template (GST_ELEMENT_GET_CLASS (element),
      "src");
  if (t == NULL)
    return NULL;
  caps = gst_pad_template_get_caps (t);
  raw = gst_caps_is_any (caps);
  for (i = 0; i < gst_caps_get_size (caps); i++) {
    const gchar *name = gst_structure_get_name (gst_caps_get_structure (caps,
            i));

    if (strcmp (name, "video/x-raw") == 0 || strcmp (name, "audio/x-raw") == 0)
      raw = TRUE;
  }
  gst_caps_unref (caps);
  if (raw)
    return NULL;
  r = g_new0 (LatencyRelay, 1);
  g_mutex_init (&r->lock);
  return r;
}

/* A frame comes into the muxer on @pad: when it entered is queued. */
void
axprof_latency_relay_in (ElementState * ei, GstPad * pad, GstBuffer * buf)
{
  LatencyRelay *r = ei->relay;
  guint gen = __atomic_load_n (&latency_gen, __ATOMIC_ACQUIRE);
  guint64 src_ts;
  guint i;

  g_mutex_lock (&r->lock);
  for (i = 0; i < RELAY_PADS; i++)
    if (r->pads[i].pad == pad || r->pads[i].pad == NULL)
      break;
  if (i == RELAY_PADS)
    i = RELAY_PADS - 1;
  if (r->pads[i].pad != pad || r->pads[i].gen != gen) {
    latency_read_sticky (pad, &r->pads[i].stream_id, &r->pads[i].seg,
        &r->pads[i].have_seg);
    r->pads[i].pad = pad;
    r->pads[i].gen = gen;
  }
  if (latency_lookup (ei->pipe, buf, r->pads[i].stream_id, &r->pads[i].seg,
          r->pads[i].have_seg, &src_ts)) {
    /* full: the oldest is dropped, as a muxer that holds that many
     * frames has passed it on in a header or not at all */
    if (r->head - r->tail == RELAY_FIFO)
      r->tail++;
    r->fifo[r->head++ % RELAY_FIFO] = src_ts;
  }
  g_mutex_unlock (&r->lock);
}

/* A buffer leaves the muxer at @ts: when the oldest frame it carries on
 * entered the pipeline, else @ts (a header, or nothing came in). */
guint64
axprof_latency_relay_out (ElementState * ei, guint64 ts)
{
  LatencyRelay *r = ei->relay;
  guint64 out = ts;

  g_mutex_lock (&r->lock);
  if (r->tail < r->head)
    out = r->fifo[r->tail++ % RELAY_FIFO];
  g_mutex_unlock (&r->lock);
  return MIN (out, ts);
}
