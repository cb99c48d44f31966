/* gst-ax
 * Copyright (C) 2026 gst-ax developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

/* Stress, bounded: flushing seeks through a deep in-flight window lose
 * only the frames the flush discards and duplicate none; state cycles
 * under the tracer keep memory flat; eight pipelines on one shared
 * device each get their own report and their busy time adds up to the
 * device's; a long run keeps the tracer's and the runtime's memory
 * bounded. The short forms run in CI; GST_AX_STRESS=full runs the long
 * forms (scripts/stress.sh) and every test prints its figures. The
 * tracer is switched on in main() before gst_check_init(). */

#include "axproftest.h"
#include "gstaxdevice.h"

#include <malloc.h>
#include <math.h>
#include <string.h>

#define RUN_TIMEOUT (120 * GST_SECOND)
#define WAIT_TIMEOUT_US (60 * G_TIME_SPAN_SECOND)
#define FPS 25
#define FRAME_NS (GST_SECOND / FPS)
#define IN_FLIGHT 16
#define SOURCE_CAPS "video/x-raw,format=RGB,width=64,height=48," \
  "framerate=25/1"
#define DETECT "axletterbox name=lb ! axinference name=inf " \
  "model=ball-detector time-scale=0 in-flight=16 ! axnms name=nms ! " \
  "fakesink name=sink sync=false"
#define KIB 1024.0
/* frames a flush can discard: the in-flight window, plus one frame each
 * in axletterbox, in axnms and at the sink's pad */
#define MAX_IN_FLUSH (IN_FLIGHT + 3)
/* segment k plays from k x SEGMENT_SPAN frames: ranges that never
 * overlap, so that a frame from before a flush is recognised */
#define SEGMENT_SPAN 1000000

/* The short (CI) and the full forms of each test. */
typedef struct
{
  guint seek_frames, seek_every;
  guint cycles, cycle_warmup;
  guint pipelines, pipeline_frames;
  guint long_frames, long_warmup, long_sample;
  /* heap growth allowed per state cycle after the warm-up */
  gdouble max_cycle_heap_kib;
} StressSizes;

/* The tracer's per-thread figures fill in over the first twenty cycles or
 * so, as the streaming threads of each cycle take on new roles: one
 * latency histogram (30 KiB) per new pair of sink and thread slot, at
 * most MAX_THREAD_SLOTS. The short form, still inside that warm-up,
 * allows for one such pair per cycle (a model or a pipeline leaked per
 * cycle is more). */
static const StressSizes short_sizes = {
  96, 24, 12, 4, 8, 4, 240, 60, 30, 128.0
};

/* the tracer's per-thread figures settle after some twenty cycles, as
 * each cycle's new streaming threads take slots the last ones left */
static const StressSizes full_sizes = {
  10000, 500, 100, 25, 8, 100, 90000, 10000, 10000, 2.0
};

static const StressSizes *sizes;

/* RSS growth allowed over the long run after its warm-up: the allocator
 * settles in steps of its arenas' trim granularity */
#define MAX_LONG_GROWTH_KIB 2048.0
/* RSS growth allowed over all the state cycles after the warm-up: a
 * bound against gross growth; the heap in use is the precise figure */
#define MAX_CYCLES_RSS_KIB 8192.0
/* the report's peak memory may grow this much past the warm-up run's */
#define MAX_PEAK_GROWTH_MB 2.0

#if defined(__SANITIZE_ADDRESS__)
/* ASan keeps freed blocks in quarantine, so RSS grows by design: its
 * leak check covers leaks there, and only the figures are printed */
#define RSS_ASSERTED FALSE
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define RSS_ASSERTED FALSE
#endif
#endif
#ifndef RSS_ASSERTED
#define RSS_ASSERTED TRUE
#endif

/* RSS once the allocator has given back what it holds free: glibc keeps
 * freed blocks, and raises its mmap threshold after each large free, so
 * a bare RSS steps up long after the memory in use has stopped growing */
static gdouble
rss_kib (void)
{
  gchar *status = NULL, *line;
  gdouble kib = 0;

  malloc_trim (0);
  fail_unless (g_file_get_contents ("/proc/self/status", &status, NULL, NULL));
  line = strstr (status, "VmRSS:");
  fail_unless (line != NULL);
  kib = g_ascii_strtod (line + strlen ("VmRSS:"), NULL);
  g_free (status);
  return kib;
}

/* The last figure of the given element and type in malloc_info()'s
 * XML, which ends with the totals over all arenas. */
static gdouble
malloc_info_total (const gchar * xml, const gchar * tag, const gchar * type)
{
  gchar *key = g_strdup_printf ("<%s type=\"%s\"", tag, type);
  const gchar *at = NULL, *next = xml, *size;
  gdouble bytes = 0;

  while ((next = strstr (next, key)) != NULL)
    at = next++;
  fail_unless (at != NULL, "no %s in malloc_info", key);
  size = strstr (at, "size=\"");
  fail_unless (size != NULL);
  bytes = g_ascii_strtod (size + strlen ("size=\""), NULL);
  g_free (key);
  return bytes;
}

/* Bytes the heap has handed out and not taken back, over all the
 * arenas (the streaming threads allocate from their own): what a leak
 * raises, whatever the allocator keeps cached. */
static gdouble
heap_kib (void)
{
  gchar *xml = NULL;
  gsize len = 0;
  FILE *f = open_memstream (&xml, &len);
  gdouble in_use;

  fail_unless (f != NULL);
  fail_unless (malloc_info (0, f) == 0);
  fclose (f);
  in_use = malloc_info_total (xml, "system", "current") -
      malloc_info_total (xml, "total", "fast") -
      malloc_info_total (xml, "total", "rest") +
      malloc_info_total (xml, "total", "mmap");
  free (xml);
  return in_use / KIB;
}

static GstElement *
parse (const gchar * description)
{
  GError *err = NULL;
  GstElement *pipeline = gst_parse_launch (description, &err);

  fail_unless (pipeline != NULL, "cannot parse '%s': %s", description,
      err ? err->message : "?");
  return pipeline;
}

static GstPad *
element_pad (GstElement * pipeline, const gchar * element, const gchar * pad)
{
  GstElement *e = gst_bin_get_by_name (GST_BIN (pipeline), element);
  GstPad *p;

  fail_unless (e != NULL, "no element %s", element);
  p = gst_element_get_static_pad (e, pad);
  gst_object_unref (e);
  fail_unless (p != NULL);
  return p;
}

static void
fail_on_bus_error (GstBus * bus)
{
  GstMessage *msg = gst_bus_pop_filtered (bus, GST_MESSAGE_ERROR);

  if (msg) {
    GError *err = NULL;

    gst_message_parse_error (msg, &err, NULL);
    fail ("error from %s: %s", GST_OBJECT_NAME (GST_MESSAGE_SRC (msg)),
        err->message);
  }
}

/* ------------------------------------------------------------------ */
/* Seeks                                                                */

/* a PTS as a hash key: pointers hold 64 bits on the platforms built for */
#define PTS_KEY(pts) GSIZE_TO_POINTER ((gsize) (pts))
G_STATIC_ASSERT (sizeof (gpointer) >= sizeof (GstClockTime));

/* What one side of the pipeline saw of one segment, by PTS. */
typedef struct
{
  GHashTable *pts;
  GArray *order;
} SegmentSide;

typedef struct
{
  GMutex lock;
  GCond cond;
  /* (element-type SegmentSide) one per segment */
  GArray *in, *out;
  guint in_seg, out_seg;
  guint duplicates, strangers;
  gchar *first_problem;
} SeekCount;

static SegmentSide *
segment_side (GArray * sides, guint seg)
{
  while (sides->len <= seg) {
    SegmentSide s = { g_hash_table_new (g_direct_hash, g_direct_equal),
      g_array_new (FALSE, FALSE, sizeof (gint64))
    };
    g_array_append_val (sides, s);
  }
  return &g_array_index (sides, SegmentSide, seg);
}

static void
segment_side_clear (gpointer data)
{
  SegmentSide *s = data;

  g_hash_table_unref (s->pts);
  g_array_unref (s->order);
}

static void
note_problem (SeekCount * c, const gchar * what, guint seg, GstClockTime pts)
{
  if (c->first_problem == NULL)
    c->first_problem = g_strdup_printf ("%s: PTS %" GST_TIME_FORMAT
        " in segment %u", what, GST_TIME_ARGS (pts), seg);
}

/* Counts the segments by the flushes each side sees: a flush is
 * serialised with the buffers on a pad, so both sides agree on which
 * segment a buffer belongs to. */
static GstPadProbeReturn
count_side (GstPad * pad, GstPadProbeInfo * info, gpointer user_data)
{
  SeekCount *c = user_data;
  gboolean is_in = g_object_get_data (G_OBJECT (pad), "stress-in") != NULL;
  guint *seg = is_in ? &c->in_seg : &c->out_seg;

  g_mutex_lock (&c->lock);
  if (info->type & GST_PAD_PROBE_TYPE_EVENT_FLUSH) {
    if (GST_EVENT_TYPE (GST_PAD_PROBE_INFO_EVENT (info)) ==
        GST_EVENT_FLUSH_STOP)
      (*seg)++;
  } else if (info->type & GST_PAD_PROBE_TYPE_BUFFER) {
    GstBuffer *buf = GST_PAD_PROBE_INFO_BUFFER (info);
    gint64 pts = GST_BUFFER_PTS (buf);
    SegmentSide *s = segment_side (is_in ? c->in : c->out, *seg);

    if (g_hash_table_contains (s->pts, PTS_KEY (pts))) {
      c->duplicates++;
      note_problem (c, "duplicated frame", *seg, pts);
    } else {
      g_array_append_val (s->order, pts);
      g_hash_table_add (s->pts, PTS_KEY (pts));
    }
    if (!is_in && !g_hash_table_contains (segment_side (c->in, *seg)->pts,
            PTS_KEY (pts))) {
      c->strangers++;
      note_problem (c, "frame out that did not enter its segment", *seg, pts);
    }
    g_cond_broadcast (&c->cond);
  }
  g_mutex_unlock (&c->lock);
  return GST_PAD_PROBE_OK;
}

static guint
out_frames_in (SeekCount * c, guint seg)
{
  return c->out->len > seg ? g_array_index (c->out, SegmentSide,
      seg).order->len : 0;
}

static void
wait_out_frames (SeekCount * c, GstBus * bus, guint seg, guint n)
{
  gint64 deadline = g_get_monotonic_time () + WAIT_TIMEOUT_US;

  g_mutex_lock (&c->lock);
  while (c->out_seg < seg || out_frames_in (c, seg) < n) {
    if (!g_cond_wait_until (&c->cond, &c->lock, deadline)) {
      g_mutex_unlock (&c->lock);
      fail_on_bus_error (bus);
      fail ("segment %u: %u frames out after %d s, expected %u", seg,
          out_frames_in (c, seg), (int) (WAIT_TIMEOUT_US /
              G_TIME_SPAN_SECOND), n);
    }
  }
  g_mutex_unlock (&c->lock);
}

GST_START_TEST (test_seeks_lose_only_flushed_frames)
{
  GstElement *p = parse ("videotestsrc name=src ! " SOURCE_CAPS " ! " DETECT);
  GstPad *in = element_pad (p, "lb", "sink");
  GstPad *out = element_pad (p, "sink", "sink");
  GstBus *bus = gst_element_get_bus (p);
  guint n_seg = sizes->seek_frames / sizes->seek_every, seg;
  guint64 total_in = 0, total_out = 0, lost = 0;
  guint max_lost = 0;
  SeekCount c;
  GstMessage *msg;
  gint64 t0 = g_get_monotonic_time ();

  memset (&c, 0, sizeof (c));
  g_mutex_init (&c.lock);
  g_cond_init (&c.cond);
  c.in = g_array_new (FALSE, TRUE, sizeof (SegmentSide));
  c.out = g_array_new (FALSE, TRUE, sizeof (SegmentSide));
  g_array_set_clear_func (c.in, segment_side_clear);
  g_array_set_clear_func (c.out, segment_side_clear);
  g_object_set_data (G_OBJECT (in), "stress-in", GINT_TO_POINTER (1));
  gst_pad_add_probe (in, GST_PAD_PROBE_TYPE_BUFFER |
      GST_PAD_PROBE_TYPE_EVENT_FLUSH, count_side, &c, NULL);
  gst_pad_add_probe (out, GST_PAD_PROBE_TYPE_BUFFER |
      GST_PAD_PROBE_TYPE_EVENT_FLUSH, count_side, &c, NULL);

  fail_unless (gst_element_set_state (p, GST_STATE_PAUSED) !=
      GST_STATE_CHANGE_FAILURE);
  fail_unless (gst_element_get_state (p, NULL, NULL, RUN_TIMEOUT) ==
      GST_STATE_CHANGE_SUCCESS);
  fail_unless (gst_element_set_state (p, GST_STATE_PLAYING) !=
      GST_STATE_CHANGE_FAILURE);
  for (seg = 1; seg < n_seg; seg++) {
    GstClockTime start = (GstClockTime) seg * SEGMENT_SPAN * FRAME_NS;
    /* the last segment stops after its frames: an EOS with nothing lost */
    GstClockTime stop = seg + 1 == n_seg ?
        start + sizes->seek_every * FRAME_NS : GST_CLOCK_TIME_NONE;

    wait_out_frames (&c, bus, seg - 1, sizes->seek_every);
    fail_unless (gst_element_seek (p, 1.0, GST_FORMAT_TIME,
            GST_SEEK_FLAG_FLUSH | GST_SEEK_FLAG_ACCURATE, GST_SEEK_TYPE_SET,
            start, stop == GST_CLOCK_TIME_NONE ? GST_SEEK_TYPE_NONE :
            GST_SEEK_TYPE_SET, stop));
  }
  msg = gst_bus_timed_pop_filtered (bus, RUN_TIMEOUT,
      GST_MESSAGE_EOS | GST_MESSAGE_ERROR);
  fail_unless (msg != NULL, "no EOS");
  fail_unless_equals_int (GST_MESSAGE_TYPE (msg), GST_MESSAGE_EOS);
  gst_message_unref (msg);
  gst_element_set_state (p, GST_STATE_NULL);

  fail_unless (c.first_problem == NULL, "%s (%u duplicated, %u strangers)",
      c.first_problem, c.duplicates, c.strangers);
  fail_unless_equals_int (c.in->len, n_seg);
  fail_unless_equals_int (c.out->len, n_seg);
  for (seg = 0; seg < n_seg; seg++) {
    SegmentSide *si = segment_side (c.in, seg);
    SegmentSide *so = segment_side (c.out, seg);
    GstClockTime start = (GstClockTime) seg * SEGMENT_SPAN * FRAME_NS;
    guint n_in = si->order->len, n_out = so->order->len, i;

    /* the frames out are the first frames in, in order: what is lost
     * is the tail the flush found in flight, never one in the middle */
    fail_unless (n_out <= n_in, "segment %u: %u out of %u in", seg, n_out,
        n_in);
    for (i = 0; i < n_out; i++)
      fail_unless_equals_int64 (g_array_index (so->order, gint64, i),
          g_array_index (si->order, gint64, i));
    fail_unless_equals_int64 (g_array_index (si->order, gint64, 0), start);
    if (seg + 1 < n_seg) {
      fail_unless (n_in - n_out <= MAX_IN_FLUSH, "segment %u: %u frames "
          "lost, more than a flush can hold", seg, n_in - n_out);
      fail_unless (n_out >= sizes->seek_every);
    } else {
      fail_unless_equals_int (n_in, sizes->seek_every);
      fail_unless_equals_int (n_out, n_in);
    }
    total_in += n_in;
    total_out += n_out;
    lost += n_in - n_out;
    max_lost = MAX (max_lost, n_in - n_out);
  }
  g_print ("stress seeks: %" G_GUINT64_FORMAT " frames in, %"
      G_GUINT64_FORMAT " out, %u flushing seeks, %" G_GUINT64_FORMAT
      " lost to the flushes (at most %u in one), 0 duplicated, 0 "
      "unaccounted, %.1f s\n", total_in, total_out, n_seg - 1, lost,
      max_lost, (g_get_monotonic_time () - t0) / (gdouble) G_TIME_SPAN_SECOND);

  g_array_unref (c.in);
  g_array_unref (c.out);
  g_mutex_clear (&c.lock);
  g_cond_clear (&c.cond);
  gst_object_unref (in);
  gst_object_unref (out);
  gst_object_unref (bus);
  gst_object_unref (p);
}

GST_END_TEST;

/* ------------------------------------------------------------------ */
/* State cycles                                                         */

/* frames each cycle runs in PLAYING before it winds down */
#define CYCLE_FRAMES 3
/* cycles whose least RSS is taken, after the warm-up and at the end */
#define RSS_WINDOW 4
#define POLL_US 1000

static GstPadProbeReturn
count_buffer (GstPad * pad, GstPadProbeInfo * info, gpointer user_data)
{
  g_atomic_int_inc ((gint *) user_data);
  return GST_PAD_PROBE_OK;
}

static void
set_state_sync (GstElement * p, GstState state)
{
  fail_unless (gst_element_set_state (p, state) != GST_STATE_CHANGE_FAILURE,
      "cannot go to %s", gst_element_state_get_name (state));
  fail_unless (gst_element_get_state (p, NULL, NULL, RUN_TIMEOUT) ==
      GST_STATE_CHANGE_SUCCESS, "%s not reached",
      gst_element_state_get_name (state));
}

static void
free_reports (GPtrArray * reports)
{
  while (reports->len > 0)
    ax_prof_report_free (g_ptr_array_steal_index (reports, reports->len - 1));
}

GST_START_TEST (test_state_cycles_memory_flat)
{
  GstElement *p = parse ("videotestsrc ! " SOURCE_CAPS " ! " DETECT);
  GstPad *out = element_pad (p, "sink", "sink");
  GstBus *bus = gst_element_get_bus (p);
  GPtrArray *reports = g_ptr_array_new ();
  gdouble rss0 = G_MAXDOUBLE, heap0 = 0, rss1 = G_MAXDOUBLE, heap1;
  gdouble rss_per, heap_per;
  guint cycle, n_reports = 0, measured;
  gint frames = 0;

  ax_prof_watch (p, reports);
  gst_pad_add_probe (out, GST_PAD_PROBE_TYPE_BUFFER, count_buffer, &frames,
      NULL);
  for (cycle = 0; cycle < sizes->cycles; cycle++) {
    gint64 deadline = g_get_monotonic_time () + WAIT_TIMEOUT_US;

    /* RSS jumps by a few MiB with the allocator's free lists: the least
     * of a few cycles after the warm-up against the least of the last
     * few shows a trend that one sample each would not */
    if (cycle == sizes->cycle_warmup)
      heap0 = heap_kib ();
    if (cycle >= sizes->cycle_warmup &&
        cycle < sizes->cycle_warmup + RSS_WINDOW)
      rss0 = MIN (rss0, rss_kib ());
    if (cycle + RSS_WINDOW >= sizes->cycles)
      rss1 = MIN (rss1, rss_kib ());
    g_atomic_int_set (&frames, 0);
    set_state_sync (p, GST_STATE_PLAYING);
    while (g_atomic_int_get (&frames) < CYCLE_FRAMES) {
      fail_on_bus_error (bus);
      fail_unless (g_get_monotonic_time () < deadline, "cycle %u: %d frames",
          cycle, g_atomic_int_get (&frames));
      g_usleep (POLL_US);
    }
    set_state_sync (p, GST_STATE_PAUSED);
    set_state_sync (p, GST_STATE_READY);
    set_state_sync (p, GST_STATE_NULL);
    fail_on_bus_error (bus);
    /* each run reports when it stops, cut short of an EOS */
    fail_unless_equals_int (reports->len, 1);
    fail_unless_equals_string (((AxProfReport *) g_ptr_array_index (reports,
                0))->status, "cut-short");
    n_reports += reports->len;
    free_reports (reports);
    gst_bus_set_flushing (bus, TRUE);
    gst_bus_set_flushing (bus, FALSE);
  }
  heap1 = heap_kib ();
  measured = sizes->cycles - sizes->cycle_warmup;
  rss_per = (rss1 - rss0) / (measured - RSS_WINDOW);
  heap_per = (heap1 - heap0) / measured;
  g_print ("stress state cycles: %u cycles PLAYING-PAUSED-READY-NULL under "
      "axprof, %u reports; after %u warm-up cycles RSS %.0f KiB -> %.0f KiB "
      "(%+.1f KiB per cycle), heap in use %.0f KiB -> %.0f KiB (%+.1f KiB "
      "per cycle)%s\n", sizes->cycles, n_reports, sizes->cycle_warmup, rss0,
      rss1, rss_per, heap0, heap1, heap_per,
      RSS_ASSERTED ? "" : " (not asserted under ASan)");
  if (RSS_ASSERTED) {
    /* the RSS of a stopped pipeline moves by MiBs with what the freed
     * threads' arenas and stacks leave resident, whatever is in use: it
     * is bounded as a whole, and the heap in use carries the per-cycle
     * bound */
    fail_unless (rss1 - rss0 < MAX_CYCLES_RSS_KIB, "RSS grew %.0f KiB",
        rss1 - rss0);
    fail_unless (heap_per < sizes->max_cycle_heap_kib, "the heap grows "
        "%.1f KiB per cycle", heap_per);
  }

  gst_bus_set_sync_handler (bus, NULL, NULL, NULL);
  g_ptr_array_unref (reports);
  gst_object_unref (out);
  gst_object_unref (bus);
  gst_object_unref (p);
}

GST_END_TEST;

/* ------------------------------------------------------------------ */
/* Many pipelines on one device                                          */

#define MAX_PIPELINES 8
#define MS_PER_NS 1e-6
/* the figures are rounded in the JSON to a few digits */
#define ROUNDING 0.01

static JsonObject *
only_object (JsonObject * root, const gchar * member, const gchar * text)
{
  JsonArray *a = json_object_get_array_member (root, member);

  fail_unless (a != NULL && json_array_get_length (a) == 1, "%s: %s",
      member, text);
  return json_array_get_object_element (a, 0);
}

GST_START_TEST (test_pipelines_share_one_device)
{
  GstElement *p[MAX_PIPELINES] = { NULL, };
  GPtrArray *reports[MAX_PIPELINES];
  GstPad *out[MAX_PIPELINES];
  gint frames[MAX_PIPELINES];
  GstContext *context;
  GstAxDevice *device;
  simnpu_counters counters;
  guint n = MIN (sizes->pipelines, MAX_PIPELINES), i, k;
  guint64 jobs = 0;
  gdouble busy_ms = 0, core_busy_ms = 0, wall_ms;
  guint n_cores = 0;
  gint64 t0;

  for (i = 0; i < n; i++) {
    gchar *desc = g_strdup_printf ("videotestsrc num-buffers=%u ! "
        SOURCE_CAPS " ! axletterbox ! axinference name=inf "
        "model=ball-detector model-name=ball-%u ! axnms ! "
        "fakesink name=sink sync=false", sizes->pipeline_frames, i);

    p[i] = parse (desc);
    g_free (desc);
    reports[i] = g_ptr_array_new ();
    ax_prof_watch (p[i], reports[i]);
    frames[i] = 0;
    out[i] = element_pad (p[i], "sink", "sink");
    gst_pad_add_probe (out[i], GST_PAD_PROBE_TYPE_BUFFER, count_buffer,
        &frames[i], NULL);
  }
  /* the application shares the first pipeline's device with the others */
  set_state_sync (p[0], GST_STATE_READY);
  context = gst_element_get_context (p[0], GST_AX_DEVICE_CONTEXT_TYPE);
  fail_unless (context != NULL);
  /* a plain cast: the device's type is registered by the plugin, which
   * the test does not link */
  device = (GstAxDevice *) g_value_get_object (gst_structure_get_value
      (gst_context_get_structure (context), "device"));
  fail_unless (device != NULL && device->dev != NULL);
  gst_object_ref (device);
  for (i = 1; i < n; i++)
    gst_element_set_context (p[i], context);
  gst_context_unref (context);

  t0 = g_get_monotonic_time ();
  for (i = 0; i < n; i++)
    fail_unless (gst_element_set_state (p[i], GST_STATE_PLAYING) !=
        GST_STATE_CHANGE_FAILURE);
  for (i = 0; i < n; i++) {
    GstBus *bus = gst_element_get_bus (p[i]);
    GstMessage *msg = gst_bus_timed_pop_filtered (bus, RUN_TIMEOUT,
        GST_MESSAGE_EOS | GST_MESSAGE_ERROR);

    fail_unless (msg != NULL, "pipeline %u: no EOS", i);
    fail_unless_equals_int (GST_MESSAGE_TYPE (msg), GST_MESSAGE_EOS);
    gst_message_unref (msg);
    gst_object_unref (bus);
  }
  wall_ms = (g_get_monotonic_time () - t0) / (gdouble) G_TIME_SPAN_MILLISECOND;
  fail_unless_equals_int (simnpu_device_get_counters (device->dev, &counters),
      0);
  for (i = 0; i < n; i++) {
    GstElement *inf = gst_bin_get_by_name (GST_BIN (p[i]), "inf");
    guint64 handle = 0;

    g_object_get (inf, "device-handle", &handle, NULL);
    fail_unless_equals_uint64 (handle, device->handle);
    gst_object_unref (inf);
  }

  for (i = 0; i < n; i++) {
    AxProfReport *r;
    JsonObject *d, *o, *m;
    gchar *group = g_strdup_printf ("ball-%u", i);
    gdouble model_busy;

    fail_unless_equals_int (reports[i]->len, 1);
    r = g_ptr_array_index (reports[i], 0);
    fail_unless_equals_string (r->status, "eos");
    fail_unless_equals_string (r->pipeline, GST_OBJECT_NAME (p[i]));
    /* each report holds its own pipeline's model, and that alone */
    d = only_object (r->root, "devices", r->text);
    fail_unless_equals_string (json_object_get_string_member (d, "group"),
        group);
    fail_unless_equals_int (json_object_get_int_member (d, "jobs"),
        sizes->pipeline_frames);
    fail_unless_equals_int (g_atomic_int_get (&frames[i]),
        sizes->pipeline_frames);
    o = only_object (r->root, "device_occupancy", r->text);
    m = only_object (o, "models", r->text);
    fail_unless_equals_string (json_object_get_string_member (m, "group"),
        group);
    model_busy = json_object_get_double_member (m, "busy_ms");
    /* one busy interval per job */
    fail_unless (fabs (model_busy - json_object_get_int_member (d, "jobs") *
            json_object_get_double_member (d, "device_ms")) <=
        ROUNDING * MAX (model_busy, 1.0), "%s", r->text);
    fail_unless (fabs (json_object_get_double_member (o, "busy_ms") -
            model_busy) <= ROUNDING * MAX (model_busy, 1.0), "%s", r->text);
    fail_unless (model_busy > 0, "%s", r->text);
    n_cores = json_object_get_int_member (o, "n_cores");
    jobs += json_object_get_int_member (d, "jobs");
    busy_ms += model_busy;
    g_free (group);
  }
  /* the eight reports together hold every job the device ran, and their
   * busy time is at least its cores' compute time (a job's interval also
   * holds its DMA) and at most what its cores can give in the run */
  fail_unless_equals_uint64 (counters.jobs_done, jobs);
  fail_unless_equals_uint64 (counters.jobs_submitted, jobs);
  for (k = 0; k < (guint) n_cores && k < counters.n_resources; k++)
    core_busy_ms += counters.resource_busy_ns[k] * MS_PER_NS;
  fail_unless_equals_int (n_cores, 4);
  fail_unless (busy_ms >= core_busy_ms * (1 - ROUNDING), "reports' busy %.2f "
      "ms below the device's core busy %.2f ms", busy_ms, core_busy_ms);
  fail_unless (busy_ms <= n_cores * wall_ms, "reports' busy %.2f ms, more "
      "than %u cores over %.1f ms", busy_ms, n_cores, wall_ms);
  g_print ("stress pipelines: %u pipelines x %u frames on one device: %"
      G_GUINT64_FORMAT " jobs in the reports, %" G_GUINT64_FORMAT " done by "
      "the device; busy %.2f ms summed over the reports, the device's cores "
      "computed %.2f ms, %u cores x %.1f ms of run\n", n,
      sizes->pipeline_frames, jobs, counters.jobs_done, busy_ms,
      core_busy_ms, n_cores, wall_ms);

  for (i = 0; i < n; i++) {
    GstBus *bus = gst_element_get_bus (p[i]);

    gst_element_set_state (p[i], GST_STATE_NULL);
    gst_bus_set_sync_handler (bus, NULL, NULL, NULL);
    gst_object_unref (bus);
    free_reports (reports[i]);
    g_ptr_array_unref (reports[i]);
    gst_object_unref (out[i]);
    gst_object_unref (p[i]);
  }
  gst_object_unref (device);
}

GST_END_TEST;

/* ------------------------------------------------------------------ */
/* Long runs                                                             */

typedef struct
{
  gint frames;
  guint sample_every;
  GArray *rss;
} RssSamples;

static GstPadProbeReturn
sample_rss (GstPad * pad, GstPadProbeInfo * info, gpointer user_data)
{
  RssSamples *s = user_data;
  gint n = g_atomic_int_add (&s->frames, 1) + 1;

  if (n % s->sample_every == 0) {
    gdouble kib = rss_kib ();

    g_array_append_val (s->rss, kib);
  }
  return GST_PAD_PROBE_OK;
}

static AxProfReport *
run_long (guint frames, RssSamples * s)
{
  gchar *desc = g_strdup_printf ("videotestsrc num-buffers=%u ! "
      SOURCE_CAPS " ! " DETECT, frames);
  GPtrArray *reports = g_ptr_array_new ();
  GstElement *p = parse (desc);
  GstPad *out = element_pad (p, "sink", "sink");
  GstBus *bus = gst_element_get_bus (p);
  GstMessage *msg;
  AxProfReport *r;

  ax_prof_watch (p, reports);
  gst_pad_add_probe (out, GST_PAD_PROBE_TYPE_BUFFER, sample_rss, s, NULL);
  fail_unless (gst_element_set_state (p, GST_STATE_PLAYING) !=
      GST_STATE_CHANGE_FAILURE);
  msg = gst_bus_timed_pop_filtered (bus, GST_CLOCK_TIME_NONE,
      GST_MESSAGE_EOS | GST_MESSAGE_ERROR);
  fail_unless_equals_int (GST_MESSAGE_TYPE (msg), GST_MESSAGE_EOS);
  gst_message_unref (msg);
  gst_element_set_state (p, GST_STATE_NULL);
  gst_bus_set_sync_handler (bus, NULL, NULL, NULL);
  fail_unless_equals_int (reports->len, 1);
  r = g_ptr_array_steal_index (reports, 0);
  fail_unless_equals_string (r->status, "eos");
  g_ptr_array_unref (reports);
  gst_object_unref (out);
  gst_object_unref (bus);
  gst_object_unref (p);
  g_free (desc);
  return r;
}

static gdouble
throughput_number (AxProfReport * r, const gchar * member)
{
  JsonObject *t = json_object_get_object_member (r->root, "throughput");

  fail_unless (t != NULL && json_object_has_member (t, member),
      "no throughput %s in the report", member);
  return json_object_get_double_member (t, member);
}

GST_START_TEST (test_long_run_memory_bounded)
{
  RssSamples warm = { 0, sizes->long_sample, g_array_new (FALSE, FALSE,
        sizeof (gdouble))
  };
  RssSamples run = { 0, sizes->long_sample, g_array_new (FALSE, FALSE,
        sizeof (gdouble))
  };
  AxProfReport *r;
  gdouble peak_warm, peak_run, rss_warm, rss_end, growth, rss_max = 0;
  gdouble run_warm = 0;
  gint64 t0;
  guint i;

  /* the warm-up run settles the allocator, the model and the tracer */
  r = run_long (sizes->long_warmup, &warm);
  peak_warm = throughput_number (r, "peak_mem_mb");
  ax_prof_report_free (r);
  rss_warm = rss_kib ();
  for (i = 0; i < warm.rss->len; i++)
    run_warm = MAX (run_warm, g_array_index (warm.rss, gdouble, i));

  t0 = g_get_monotonic_time ();
  r = run_long (sizes->long_frames, &run);
  fail_unless_equals_int (throughput_number (r, "frames"), sizes->long_frames);
  peak_run = throughput_number (r, "peak_mem_mb");
  ax_prof_report_free (r);
  rss_end = rss_kib ();
  growth = rss_end - rss_warm;

  g_print ("stress long run: %u frames (%.1f min at %d fps) in %.1f s after "
      "a %u-frame warm-up; RSS every %u frames (KiB):", sizes->long_frames,
      sizes->long_frames / (gdouble) FPS / 60, FPS,
      (g_get_monotonic_time () - t0) / (gdouble) G_TIME_SPAN_SECOND,
      sizes->long_warmup, sizes->long_sample);
  for (i = 0; i < run.rss->len; i++) {
    gdouble kib = g_array_index (run.rss, gdouble, i);

    g_print (" %.0f", kib);
    rss_max = MAX (rss_max, kib);
  }
  g_print ("; while running: at most %.0f KiB in the warm-up run, %.0f KiB "
      "in the long run; stopped: after warm-up %.0f KiB, at the end %.0f KiB "
      "(%+.0f KiB), report peak memory %.1f MB after the warm-up run, "
      "%.1f MB after the long run%s\n", run_warm, rss_max, rss_warm, rss_end,
      growth, peak_warm, peak_run,
      RSS_ASSERTED ? "" : " (not asserted under ASan)");
  fail_unless (run.rss->len == sizes->long_frames / sizes->long_sample);
  if (RSS_ASSERTED) {
    /* the RSS of the stopped process is left out: the streaming threads'
     * arenas make it jump by megabytes from one stop to the next */
    /* a new pipeline's threads and arenas may start higher than the
     * last's, and until a quarter into the run its buffer pools and
     * device window may still grow to what a loaded machine's lag needs:
     * the run is flat from there on */
    guint from = run.rss->len / 4;
    gdouble base = g_array_index (run.rss, gdouble, from), top = base;

    for (i = from; i < run.rss->len; i++)
      top = MAX (top, g_array_index (run.rss, gdouble, i));
    /* a few seconds of the short form on a loaded machine move the RSS
     * and its peak by the allocator's arenas: only the hour of the full
     * form (scripts/stress.sh) bounds their growth */
    if (sizes == &full_sizes) {
      fail_unless (top - base < MAX_LONG_GROWTH_KIB, "RSS while running "
          "rose %.0f KiB from its sample %u of %u", top - base, from + 1,
          run.rss->len);
      fail_unless (peak_run - peak_warm < MAX_PEAK_GROWTH_MB, "peak "
          "memory %.1f MB after the warm-up, %.1f MB after the run",
          peak_warm, peak_run);
    }
  }
  g_array_unref (warm.rss);
  g_array_unref (run.rss);
}

GST_END_TEST;

static Suite *
stress_suite (void)
{
  Suite *s = suite_create ("stress");
  TCase *tc = tcase_create ("general");

  /* the full forms run for minutes */
  tcase_set_timeout (tc, sizes == &full_sizes ? 7200 : 300);
  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_seeks_lose_only_flushed_frames);
  tcase_add_test (tc, test_state_cycles_memory_flat);
  tcase_add_test (tc, test_pipelines_share_one_device);
  tcase_add_test (tc, test_long_run_memory_bounded);
  return s;
}

int
main (int argc, char **argv)
{
  sizes = g_strcmp0 (g_getenv ("GST_AX_STRESS"), "full") == 0 ?
      &full_sizes : &short_sizes;
  g_setenv ("GST_TRACERS", "axprof(file=/dev/null)", TRUE);
  gst_check_init (&argc, &argv);
  return gst_check_run_suite (stress_suite (), "stress", __FILE__);
}
