/* gst-ax
 * Copyright (C) 2026 gst-ax developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

/* Every thread's CPU on stock pipelines, against references the tracer
 * does not share: the process's getrusage, and each thread's own usage
 * from /proc/self/task read by the test while the pipeline sits at EOS
 * (the codec threads are still alive there). A transcode with threaded
 * codecs (their frame threads and x264's pool are the elements'
 * workers), the same with single-threaded codecs (the verdict names the
 * encoder, not the muxer's waiting loop), videoconvert on a thread pool,
 * a pad probe that burns CPU, and two pipelines in one process; and the
 * transcode's latency against GStreamer's own latency tracer. */

#include "axproftest.h"

#include <glib/gstdio.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#define CLIP_FRAMES 120
/* the accounting's rows and other threads against the process's CPU */
#define PROCESS_TOLERANCE 0.05
/* /proc's per-thread times are in clock ticks */
#define TICK_SLACK_MS 25.0
#define THREAD_TOLERANCE 0.10
#define PROBE_BURN_US 2000
#define PROBE_FRAMES 40
/* the latency tracer keeps one probe in flight per source: fewer records
 * than frames */
#define CORE_MIN_RECORDS 10

static gchar *clip_dir;
static gchar *clip_path;

static gboolean
have_elements (const gchar * const *names)
{
  guint i;

  for (i = 0; names[i]; i++) {
    GstElementFactory *f = gst_element_factory_find (names[i]);

    if (f == NULL)
      return FALSE;
    gst_object_unref (f);
  }
  return TRUE;
}

/* An H.264 clip in MP4, made once per process with the stock encoder
 * (before the suite runs: no check may fail here), or NULL. */
static const gchar *
h264_clip (void)
{
  static const gchar *const needed[] = { "x264enc", "avdec_h264", "mp4mux",
    "qtdemux", NULL
  };
  gchar *desc;
  GstElement *p;
  GstBus *bus;
  GstMessage *msg;
  gboolean ok;

  if (clip_path || !have_elements (needed))
    return clip_path;
  clip_dir = g_dir_make_tmp ("axprof-threads-XXXXXX", NULL);
  if (clip_dir == NULL)
    return NULL;
  clip_path = g_build_filename (clip_dir, "clip.mp4", NULL);
  desc = g_strdup_printf ("videotestsrc num-buffers=%d pattern=ball ! "
      "video/x-raw,width=640,height=480,framerate=30/1 ! x264enc "
      "speed-preset=ultrafast ! mp4mux ! filesink location=%s",
      CLIP_FRAMES, clip_path);
  p = gst_parse_launch (desc, NULL);
  g_free (desc);
  if (p == NULL)
    return NULL;
  bus = gst_element_get_bus (p);
  gst_element_set_state (p, GST_STATE_PLAYING);
  msg = gst_bus_timed_pop_filtered (bus, 60 * GST_SECOND,
      GST_MESSAGE_EOS | GST_MESSAGE_ERROR);
  ok = msg != NULL && GST_MESSAGE_TYPE (msg) == GST_MESSAGE_EOS;
  if (msg)
    gst_message_unref (msg);
  gst_element_set_state (p, GST_STATE_NULL);
  gst_object_unref (bus);
  gst_object_unref (p);
  if (!ok) {
    g_printerr ("could not make %s: the codec tests will skip\n", clip_path);
    g_unlink (clip_path);
    g_rmdir (clip_dir);
    g_clear_pointer (&clip_path, g_free);
    g_clear_pointer (&clip_dir, g_free);
  }
  return clip_path;
}

/* the clip and the transcode's output, made in the test's own process */
static void
remove_clip (void)
{
  if (clip_path) {
    gchar *out = g_strdup_printf ("%s.out.mp4", clip_path);

    g_unlink (out);
    g_unlink (clip_path);
    g_rmdir (clip_dir);
    g_free (out);
  }
  g_clear_pointer (&clip_path, g_free);
  g_clear_pointer (&clip_dir, g_free);
}

static gdouble
process_cpu_ms (void)
{
  struct rusage ru;

  getrusage (RUSAGE_SELF, &ru);
  return (ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1e3 +
      (ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e3;
}

/* A thread's CPU so far from its /proc stat line (utime + stime), or a
 * negative value when it has ended. */
static gdouble
proc_thread_cpu_ms (gint tid)
{
  gchar *path = g_strdup_printf ("/proc/self/task/%d/stat", tid);
  gchar *contents = NULL, *p, **fields;
  gdouble ms = -1;

  if (g_file_get_contents (path, &contents, NULL, NULL) &&
      (p = strrchr (contents, ')')) != NULL) {
    /* after the name: state is field 0, utime 11, stime 12 */
    fields = g_strsplit (p + 2, " ", 14);
    if (g_strv_length (fields) >= 13)
      ms = (g_ascii_strtod (fields[11], NULL) + g_ascii_strtod (fields[12],
              NULL)) * 1e3 / sysconf (_SC_CLK_TCK);
    g_strfreev (fields);
  }
  g_free (contents);
  g_free (path);
  return ms;
}

static JsonObject *
cpu_of (AxProfReport * r)
{
  JsonObject *cpu = json_object_get_object_member (r->root, "cpu");

  fail_unless (cpu != NULL && !json_object_has_member (cpu, "absent"),
      "no CPU accounting:\n%s", r->text);
  return cpu;
}

/* The rows and the other threads hold the process's CPU over the run,
 * as getrusage gives it for the run's window (the report's process_ms,
 * read apart from the per-thread counters), and that window lies inside
 * the test's own getrusage window around the whole pipeline. */
static void
check_accounted (AxProfReport * r, gdouble process_ms)
{
  JsonObject *cpu = cpu_of (r);
  gdouble rows = json_object_get_double_member (cpu, "rows_ms");
  gdouble other = json_object_get_double_member (cpu, "other_ms");
  gdouble run = json_object_get_double_member (cpu, "process_ms");

  fail_unless (run <= process_ms + TICK_SLACK_MS, "the run's %.1f ms above "
      "the process's %.1f around it", run, process_ms);
  fail_unless (rows + other <= run * (1 + PROCESS_TOLERANCE) +
      TICK_SLACK_MS, "rows %.1f + other %.1f ms above the run's %.1f:\n%s",
      rows, other, run, r->text);
  fail_unless (rows + other >= run * (1 - PROCESS_TOLERANCE) -
      TICK_SLACK_MS, "rows %.1f + other %.1f ms miss the run's %.1f:\n%s",
      rows, other, run, r->text);
}

/* Each worker thread the report gives @element agrees with the thread's
 * own /proc figure (still alive: the pipeline is at EOS); returns how
 * many it has. */
static guint
check_workers (AxProfReport * r, const gchar * element)
{
  JsonArray *threads = json_object_get_array_member (cpu_of (r), "threads");
  guint i, n = 0;

  for (i = 0; i < json_array_get_length (threads); i++) {
    JsonObject *t = json_array_get_object_element (threads, i);
    gdouble ms, ref;

    if (g_strcmp0 (json_object_get_string_member (t, "kind"), "worker") ||
        g_strcmp0 (json_object_get_string_member (t, "element"), element))
      continue;
    ms = json_object_get_double_member (t, "cpu_ms");
    ref = proc_thread_cpu_ms ((gint) json_object_get_int_member (t, "tid"));
    if (ref >= 0)
      fail_unless (ABS (ms - ref) <= THREAD_TOLERANCE * ref + TICK_SLACK_MS,
          "%s's worker %" G_GINT64_FORMAT ": %.1f ms, /proc says %.1f",
          element, json_object_get_int_member (t, "tid"), ms, ref);
    n++;
  }
  return n;
}

static JsonObject *
row_of (AxProfReport * r, const gchar * name)
{
  JsonObject *row = ax_prof_find_row (r->root, "pipeline", name);

  fail_unless (row != NULL, "no row %s:\n%s", name, r->text);
  return row;
}

static gdouble
row_cpu_total (JsonObject * row)
{
  return json_object_get_double_member (row, "cpu_ms") *
      json_object_get_int_member (row, "count");
}

static AxProfReport *
transcode (const gchar * options_dec, const gchar * options_enc,
    gdouble * process_ms, GstElement ** at_eos)
{
  const gchar *clip = h264_clip ();
  gchar *desc;
  AxProfReport *r;
  gdouble before;

  if (clip == NULL)
    return NULL;
  /* no parser: h264parse is in gst-plugins-bad, which the project does
   * not install; avdec_h264 takes qtdemux's stream as it is */
  desc = g_strdup_printf ("filesrc location=%s ! qtdemux ! "
      "avdec_h264 name=dec %s ! videoconvert ! videoscale ! "
      "x264enc name=enc %s ! mp4mux name=mux ! filesink location=%s.out.mp4",
      clip, options_dec, options_enc, clip);
  before = process_cpu_ms ();
  r = ax_prof_run_full (desc, at_eos);
  *process_ms = process_cpu_ms () - before;
  g_free (desc);
  return r;
}

GST_START_TEST (test_transcode_threaded)
{
  GstElement *pipeline;
  gdouble process_ms, rows_ms;
  AxProfReport *r = transcode ("", "threads=2", &process_ms, &pipeline);
  JsonObject *enc, *dec, *v;
  guint enc_workers;

  if (r == NULL) {
    g_print ("SKIP: x264enc, avdec_h264, qtdemux or mp4mux not installed\n");
    return;
  }
  check_accounted (r, process_ms);
  /* the codecs' own threads compute most of a transcode: before their
   * CPU was counted the rows held a tenth of it */
  rows_ms = json_object_get_double_member (cpu_of (r), "rows_ms");
  fail_unless (rows_ms >= 0.8 * process_ms, "rows hold %.1f of %.1f ms:\n%s",
      rows_ms, process_ms, r->text);
  enc = row_of (r, "enc");
  fail_unless (ax_prof_row_has_flag (enc, "WORKERS"), "%s", r->text);
  enc_workers = check_workers (r, "enc");
  fail_unless (enc_workers >= 2, "x264 threads=2 made %u workers:\n%s",
      enc_workers, r->text);
  fail_unless_equals_int (json_object_get_int_member (enc, "workers"),
      enc_workers);
  /* its workers compute while its calls wait for them */
  fail_if (ax_prof_row_has_flag (enc, "BLOCKED"), "%s", r->text);
  fail_if (ax_prof_row_has_flag (enc, "STRONGLY BLOCKED"), "%s", r->text);
  dec = row_of (r, "dec");
  if (json_object_get_int_member (dec, "workers") > 0)
    check_workers (r, "dec");
  /* the verdict never rests on the muxer's loop, which only waits */
  v = json_object_get_object_member (r->root, "verdict");
  fail_if (g_strcmp0 (json_object_get_string_member (v, "row"),
          "mux (loop)") == 0, "%s", r->text);
  gst_element_set_state (pipeline, GST_STATE_NULL);
  gst_object_unref (pipeline);
  ax_prof_report_free (r);
  remove_clip ();
}

GST_END_TEST;

GST_START_TEST (test_transcode_single_threaded)
{
  GstElement *pipeline;
  gdouble process_ms, best = 0;
  AxProfReport *r = transcode ("max-threads=1", "threads=1", &process_ms,
      &pipeline);
  JsonObject *v;
  JsonArray *groups;
  const gchar *hottest = NULL;
  guint i, j;

  if (r == NULL) {
    g_print ("SKIP: x264enc, avdec_h264, qtdemux or mp4mux not installed\n");
    return;
  }
  /* torn down outside the measured window, as the report is made at EOS */
  gst_element_set_state (pipeline, GST_STATE_NULL);
  gst_object_unref (pipeline);
  check_accounted (r, process_ms);
  groups = json_object_get_array_member (r->root, "groups");
  for (i = 0; i < json_array_get_length (groups); i++) {
    JsonArray *rows = json_object_get_array_member
        (json_array_get_object_element (groups, i), "rows");

    for (j = 0; j < json_array_get_length (rows); j++) {
      JsonObject *row = json_array_get_object_element (rows, j);

      if (row_cpu_total (row) > best) {
        best = row_cpu_total (row);
        hottest = json_object_get_string_member (row, "name");
      }
    }
  }
  /* the encoder is where a single-threaded transcode spends its CPU (a
   * third of the process's at least), and the verdict says so */
#ifndef __SANITIZE_ADDRESS__
  /* (under AddressSanitizer the decoder's allocations cost more than the
   * encoding) */
  fail_unless (row_cpu_total (row_of (r, "enc")) >= process_ms / 3,
      "enc %.1f of %.1f ms:\n%s", row_cpu_total (row_of (r, "enc")),
      process_ms, r->text);
  fail_unless (g_strcmp0 (hottest, "enc") == 0, "the hottest row is %s:\n%s",
      hottest, r->text);
#endif
  v = json_object_get_object_member (r->root, "verdict");
  fail_unless (g_strcmp0 (json_object_get_string_member (v, "element"),
          hottest) == 0, "the verdict names %s, the hottest row is %s:\n%s",
      json_object_get_string_member (v, "element"), hottest, r->text);
  fail_unless_equals_string (json_object_get_string_member (v, "kind"), "host");
  ax_prof_report_free (r);
}

GST_END_TEST;

GST_START_TEST (test_videoconvert_pool)
{
  GstElement *pipeline;
  gdouble before = process_cpu_ms (), process_ms, pool_ref = 0, worker_ms;
  AxProfReport *r = ax_prof_run_full ("videotestsrc num-buffers=30 ! "
      "video/x-raw,width=1920,height=1080,format=I420 ! "
      "videoconvert name=conv n-threads=2 ! video/x-raw,format=BGRx ! fakesink",
      &pipeline);
  JsonObject *row;
  JsonArray *threads;
  guint i;

  process_ms = process_cpu_ms () - before;
  check_accounted (r, process_ms);
  row = row_of (r, "conv");
  fail_unless (ax_prof_row_has_flag (row, "WORKERS"), "%s", r->text);
  fail_if (ax_prof_row_has_flag (row, "BLOCKED"), "%s", r->text);
  worker_ms = json_object_get_double_member (row, "worker_cpu_ms");
  /* the converter's other half runs on the GLib pool's thread, which
   * computed for nothing else in this process */
  threads = json_object_get_array_member (cpu_of (r), "threads");
  for (i = 0; i < json_array_get_length (threads); i++) {
    JsonObject *t = json_array_get_object_element (threads, i);

    if (g_strcmp0 (json_object_get_string_member (t, "kind"), "pool") == 0)
      pool_ref += MAX (proc_thread_cpu_ms ((gint)
              json_object_get_int_member (t, "tid")), 0);
  }
  fail_unless (pool_ref > 0, "no pool thread:\n%s", r->text);
  fail_unless (ABS (worker_ms - pool_ref) <= THREAD_TOLERANCE * pool_ref +
      TICK_SLACK_MS, "conv's workers %.1f ms, its pool thread %.1f",
      worker_ms, pool_ref);
  gst_element_set_state (pipeline, GST_STATE_NULL);
  gst_object_unref (pipeline);
  ax_prof_report_free (r);
}

GST_END_TEST;

static gint64 probe_burnt_us;

/* Spins for PROBE_BURN_US of wall, and adds up what it took. */
static GstPadProbeReturn
burn_probe (GstPad * pad, GstPadProbeInfo * info, gpointer user_data)
{
  gint64 t0 = g_get_monotonic_time (), t1;
  volatile guint64 x = 0;

  do {
    x++;
    t1 = g_get_monotonic_time ();
  } while (t1 - t0 < PROBE_BURN_US);
  probe_burnt_us += t1 - t0;
  return GST_PAD_PROBE_OK;
}

GST_START_TEST (test_probe_time_is_the_pads)
{
  GstElement *pipeline, *caps;
  gchar *desc = g_strdup_printf ("videotestsrc num-buffers=%d ! "
      "capsfilter name=cf caps=video/x-raw,width=64,height=48 ! fakesink",
      PROBE_FRAMES);
  GstPad *src;
  AxProfReport *r;
  JsonObject *row;
  gdouble probe_ms, mean, cpu;

  pipeline = gst_parse_launch (desc, NULL);
  fail_unless (pipeline != NULL);
  caps = gst_bin_get_by_name (GST_BIN (pipeline), "cf");
  src = gst_element_get_static_pad (caps, "src");
  gst_pad_add_probe (src, GST_PAD_PROBE_TYPE_BUFFER, burn_probe, NULL, NULL);
  probe_burnt_us = 0;
  r = ax_prof_run_pipeline (pipeline, NULL);
  row = row_of (r, "cf");
  mean = json_object_get_double_member (row, "mean_ms");
  cpu = json_object_get_double_member (row, "cpu_ms");
  probe_ms = probe_burnt_us / 1e3 / PROBE_FRAMES;
  /* the probe's wall is inside its pad's element; no row's CPU exceeds
   * its wall because of it (the probe spins: its CPU is at most its wall) */
  fail_unless (mean >= probe_ms, "cf %.3f ms per call, its probe "
      "%.3f:\n%s", mean, probe_ms, r->text);
  fail_unless (cpu <= mean * 1.05 + 0.02, "cf CPU %.3f above its "
      "wall %.3f:\n%s", cpu, mean, r->text);
  ax_prof_report_free (r);
  gst_object_unref (src);
  gst_object_unref (caps);
  g_free (desc);
}

GST_END_TEST;

GST_START_TEST (test_two_pipelines)
{
  GPtrArray *reports = g_ptr_array_new ();
  GstElement *heavy = gst_parse_launch ("videotestsrc num-buffers=40 ! "
      "video/x-raw,width=1920,height=1080,format=I420 ! videoconvert ! "
      "video/x-raw,format=BGRx ! fakesink", NULL);
  GstElement *light = gst_parse_launch ("videotestsrc num-buffers=40 ! "
      "video/x-raw,width=64,height=48 ! fakesink", NULL);
  GstBus *hb, *lb;
  GstMessage *msg;
  AxProfReport *rh = NULL, *rl = NULL;
  gdouble heavy_ms, light_ms, light_ref;
  guint i;

  fail_unless (heavy != NULL && light != NULL);
  ax_prof_watch (heavy, reports);
  ax_prof_watch (light, reports);
  hb = gst_element_get_bus (heavy);
  lb = gst_element_get_bus (light);
  /* both run at once; the light one waits at PAUSED until the heavy one
   * is streaming */
  gst_element_set_state (heavy, GST_STATE_PLAYING);
  gst_element_set_state (light, GST_STATE_PLAYING);
  msg = gst_bus_timed_pop_filtered (lb, 60 * GST_SECOND,
      GST_MESSAGE_EOS | GST_MESSAGE_ERROR);
  fail_unless (msg != NULL && GST_MESSAGE_TYPE (msg) == GST_MESSAGE_EOS);
  gst_message_unref (msg);
  light_ref = 0;
  msg = gst_bus_timed_pop_filtered (hb, 60 * GST_SECOND,
      GST_MESSAGE_EOS | GST_MESSAGE_ERROR);
  fail_unless (msg != NULL && GST_MESSAGE_TYPE (msg) == GST_MESSAGE_EOS);
  gst_message_unref (msg);
  gst_bus_set_sync_handler (hb, NULL, NULL, NULL);
  gst_bus_set_sync_handler (lb, NULL, NULL, NULL);
  fail_unless_equals_int (reports->len, 2);
  for (i = 0; i < reports->len; i++) {
    AxProfReport *r = g_ptr_array_index (reports, i);

    if (g_strcmp0 (r->pipeline, GST_OBJECT_NAME (heavy)) == 0)
      rh = r;
    else
      rl = r;
  }
  fail_unless (rh != NULL && rl != NULL);
  heavy_ms = json_object_get_double_member (cpu_of (rh), "pipeline_ms");
  light_ms = json_object_get_double_member (cpu_of (rl), "pipeline_ms");
  /* each report holds its own pipeline's threads: the light one's own
   * streaming thread, by /proc, is all of its CPU */
  {
    JsonArray *threads = json_object_get_array_member (cpu_of (rl),
        "threads");

    for (i = 0; i < json_array_get_length (threads); i++) {
      JsonObject *t = json_array_get_object_element (threads, i);

      fail_unless_equals_string (json_object_get_string_member (t, "kind"),
          "streaming");
      light_ref += MAX (proc_thread_cpu_ms ((gint)
              json_object_get_int_member (t, "tid")), 0);
    }
  }
  fail_unless (light_ms <= light_ref * (1 + THREAD_TOLERANCE) +
      TICK_SLACK_MS, "light pipeline %.1f ms, its threads %.1f by /proc:\n%s",
      light_ms, light_ref, rl->text);
  gst_element_set_state (heavy, GST_STATE_NULL);
  gst_element_set_state (light, GST_STATE_NULL);
  fail_unless (light_ms < heavy_ms, "light %.1f ms, heavy %.1f", light_ms,
      heavy_ms);
  for (i = 0; i < reports->len; i++)
    ax_prof_report_free (g_ptr_array_index (reports, i));
  g_ptr_array_unref (reports);
  gst_object_unref (hb);
  gst_object_unref (lb);
  gst_object_unref (heavy);
  gst_object_unref (light);
}

GST_END_TEST;

static GstPadProbeReturn
count_buffers (GstPad * pad, GstPadProbeInfo * info, gpointer user_data)
{
  g_atomic_int_inc ((gint *) user_data);
  return GST_PAD_PROBE_OK;
}

/* A compositor on its thread pool beside an audio branch: frames are the
 * video sink's (counted by a probe there), audio buffers apart (the
 * audio sink's probe), the blending pool's CPU is the compositor's loop,
 * and every buffer's latency is matched, through it for video. */
GST_START_TEST (test_compositor_and_audio)
{
  GstElement *pipeline, *vsink, *asink;
  GstPad *vpad, *apad;
  gint video = 0, audio = 0;
  AxProfReport *r;
  JsonObject *tp, *loop;

  /* the big source paints black, a memset: the compositor's blending is
   * clearly the heaviest work on a busy machine too (an SMPTE frame at
   * 720p costs about what blending it does) */
  pipeline = gst_parse_launch ("videotestsrc num-buffers=30 pattern=black ! "
      "video/x-raw,width=1280,height=720 ! queue ! comp.sink_0 "
      "videotestsrc num-buffers=30 pattern=ball ! "
      "video/x-raw,width=320,height=240 ! queue ! comp.sink_1 "
      "compositor name=comp ! video/x-raw,width=1280,height=720 ! "
      "fakesink name=vsink audiotestsrc num-buffers=50 ! queue ! "
      "fakesink name=asink", NULL);
  fail_unless (pipeline != NULL);
  vsink = gst_bin_get_by_name (GST_BIN (pipeline), "vsink");
  asink = gst_bin_get_by_name (GST_BIN (pipeline), "asink");
  vpad = gst_element_get_static_pad (vsink, "sink");
  apad = gst_element_get_static_pad (asink, "sink");
  gst_pad_add_probe (vpad, GST_PAD_PROBE_TYPE_BUFFER, count_buffers, &video,
      NULL);
  gst_pad_add_probe (apad, GST_PAD_PROBE_TYPE_BUFFER, count_buffers, &audio,
      NULL);
  r = ax_prof_run_pipeline (pipeline, NULL);
  tp = json_object_get_object_member (r->root, "throughput");
  fail_unless (video > 0 && audio > 0);
  fail_unless_equals_int (json_object_get_int_member (tp, "frames"), video);
  fail_unless_equals_int (json_object_get_int_member (tp, "audio_buffers"),
      audio);
  /* every buffer at both sinks is matched to where it entered, the video
   * frames through the compositor */
  fail_unless_equals_int (json_object_get_int_member
      (json_object_get_object_member (r->root, "latency"), "n"), video + audio);
  fail_unless_equals_int (json_object_get_int_member
      (json_object_get_object_member (r->root, "latency"), "unmatched"), 0);
  loop = row_of (r, "comp (loop)");
  fail_unless (ax_prof_row_has_flag (loop, "WORKERS"), "%s", r->text);
  fail_unless (json_object_get_double_member (loop, "worker_cpu_ms") > 0);
  fail_if (ax_prof_row_has_flag (row_of (r, "comp"), "WORKERS"), "%s", r->text);
  /* the compositor's blending is what the run waits for, not the audio
   * branch that finished early */
  fail_unless_equals_string (json_object_get_string_member
      (json_object_get_object_member (r->root, "verdict"), "element"), "comp");
  ax_prof_report_free (r);
  gst_object_unref (vpad);
  gst_object_unref (apad);
  gst_object_unref (vsink);
  gst_object_unref (asink);
}

GST_END_TEST;

/* The core latency tracer's records, while a test collects them */
static GMutex core_lock;
static GArray *core_latencies;

static void
collect_core_latency (GstDebugCategory * category, GstDebugLevel level,
    const gchar * file, const gchar * function, gint line, GObject * object,
    GstDebugMessage * message, gpointer user_data)
{
  const gchar *text, *t;
  gdouble ms;

  if (g_strcmp0 (gst_debug_category_get_name (category), "GST_TRACER"))
    return;
  text = gst_debug_message_get (message);
  if (text == NULL || !g_str_has_prefix (text, "latency,") ||
      (t = strstr (text, "time=(guint64)")) == NULL)
    return;
  ms = g_ascii_strtoull (t + strlen ("time=(guint64)"), NULL, 10) / 1e6;
  g_mutex_lock (&core_lock);
  if (core_latencies)
    g_array_append_val (core_latencies, ms);
  g_mutex_unlock (&core_lock);
}

static gint
compare_doubles (gconstpointer a, gconstpointer b)
{
  gdouble x = *(const gdouble *) a, y = *(const gdouble *) b;

  return x < y ? -1 : x > y;
}

/* Through an encoder and a muxer, the end-to-end p50 agrees with the
 * median of GStreamer's own latency tracer on the same run: its probe
 * events travel with the frames through the encoder and the muxer. */
GST_START_TEST (test_transcode_latency)
{
  GstElement *pipeline;
  gdouble process_ms, p50, median;
  AxProfReport *r;
  JsonObject *lat;

  /* the clip's own encoding is no part of the reference */
  (void) h264_clip ();
  g_mutex_lock (&core_lock);
  core_latencies = g_array_new (FALSE, FALSE, sizeof (gdouble));
  g_mutex_unlock (&core_lock);
  r = transcode ("", "", &process_ms, &pipeline);
  g_mutex_lock (&core_lock);
  if (r == NULL) {
    g_clear_pointer (&core_latencies, g_array_unref);
    g_mutex_unlock (&core_lock);
    g_print ("SKIP: x264enc, avdec_h264, qtdemux or mp4mux not installed\n");
    return;
  }
  gst_element_set_state (pipeline, GST_STATE_NULL);
  gst_object_unref (pipeline);
  fail_unless (core_latencies->len >= CORE_MIN_RECORDS, "the latency tracer "
      "gave %u records", core_latencies->len);
  g_array_sort (core_latencies, compare_doubles);
  median = g_array_index (core_latencies, gdouble, core_latencies->len / 2);
  g_clear_pointer (&core_latencies, g_array_unref);
  g_mutex_unlock (&core_lock);
  lat = json_object_get_object_member (r->root, "latency");
  fail_unless (lat != NULL, "%s", r->text);
  p50 = json_object_get_double_member (lat, "p50_ms");
  fail_unless (ABS (p50 - median) <= 0.25 * median, "p50 %.2f ms, the core "
      "latency tracer's median %.2f ms:\n%s", p50, median, r->text);
  ax_prof_report_free (r);
  remove_clip ();
}

GST_END_TEST;

static Suite *
axprof_threads_suite (void)
{
  Suite *s = suite_create ("axprof-threads");
  TCase *tc = tcase_create ("general");

  tcase_set_timeout (tc, 300);
  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_transcode_threaded);
  tcase_add_test (tc, test_transcode_single_threaded);
  tcase_add_test (tc, test_transcode_latency);
  tcase_add_test (tc, test_videoconvert_pool);
  tcase_add_test (tc, test_compositor_and_audio);
  tcase_add_test (tc, test_probe_time_is_the_pads);
  tcase_add_test (tc, test_two_pipelines);
  return s;
}

int
main (int argc, char **argv)
{
  int ret;

  /* GStreamer's own latency tracer beside axprof, as the reference of
   * the transcode's latency; its records are the user's output, which
   * axprof does not take for DEBUG logging */
  g_setenv ("GST_TRACERS", "axprof(file=/dev/null);latency(flags=pipeline)",
      TRUE);
  gst_check_init (&argc, &argv);
  gst_debug_set_threshold_for_name ("GST_TRACER", GST_LEVEL_TRACE);
  /* the records are read here, not printed */
  gst_debug_remove_log_function (gst_debug_log_default);
  gst_debug_add_log_function (collect_core_latency, NULL, NULL);
  ret = gst_check_run_suite (axprof_threads_suite (), "axprof-threads",
      __FILE__);
  remove_clip ();
  return ret;
}
