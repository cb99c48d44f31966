/* gst-ax
 * Copyright (C) 2026 gst-ax developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

/* axprof on stock pipelines, against what GStreamer itself says:
 * buffers a leaky queue drops, counted with pad probes on the queue's own
 * pads; drops a sink reports in its QoS messages; video frames and audio
 * buffers counted at the sinks of playbin3; an ERROR message on the bus,
 * and gst-launch-1.0's exit status. No timing is asserted. */

#include "axproftest.h"
#include "reportcheck.h"

#include <glib/gstdio.h>
#include <math.h>
#include <string.h>
#include <sys/wait.h>

#define RUN_TIMEOUT (60 * GST_SECOND)
/* a tee feeds a fast branch and, through a 5-buffer queue, a 20 ms one */
#define TEE_BUFFERS 300
#define CONTROL_BUFFERS 40
#define SLOW_BRANCH "identity name=slow sleep-time=20000 ! fakesink name=slowsink"
#define TEE_HEAD "videotestsrc num-buffers=%d ! " \
  "video/x-raw,width=64,height=48 ! tee name=t " \
  "t. ! queue name=fastq ! fakesink name=fast t. ! "
/* a sink at 30 fps behind a 50 ms element: its buffers come later and
 * later, and it drops those more than 1 ms late */
#define QOS_BUFFERS 30
/* the media of the playbin3 test: more audio buffers than video frames,
 * so that the busiest sink is the audio one */
#define AV_VIDEO_FRAMES 30
#define AV_AUDIO_BUFFERS 150
/* the /dev/full transcode */
#define FULL_PIPELINE "videotestsrc num-buffers=60 ! " \
  "video/x-raw,width=64,height=48 ! x264enc ! mp4mux ! " \
  "filesink location=/dev/full"

static gboolean
have_factories (const gchar * test, const gchar * const *names)
{
  guint i;

  for (i = 0; names[i]; i++) {
    GstElementFactory *f = gst_element_factory_find (names[i]);

    if (f == NULL) {
      g_print ("SKIP %s: no %s element (install the plugin that has it)\n",
          test, names[i]);
      return FALSE;
    }
    gst_object_unref (f);
  }
  return TRUE;
}

static GstPadProbeReturn
count_buffers (GstPad * pad, GstPadProbeInfo * info, gpointer user_data)
{
  gint *n = user_data;

  if (GST_PAD_PROBE_INFO_TYPE (info) & GST_PAD_PROBE_TYPE_BUFFER_LIST)
    g_atomic_int_add (n,
        gst_buffer_list_length (GST_PAD_PROBE_INFO_BUFFER_LIST (info)));
  else
    g_atomic_int_inc (n);
  return GST_PAD_PROBE_OK;
}

static void
count_on_pad (GstElement * e, const gchar * pad_name, gint * n)
{
  GstPad *pad = gst_element_get_static_pad (e, pad_name);

  fail_unless (pad != NULL);
  gst_pad_add_probe (pad, GST_PAD_PROBE_TYPE_BUFFER |
      GST_PAD_PROBE_TYPE_BUFFER_LIST, count_buffers, n, NULL);
  gst_object_unref (pad);
}

static GstElement *
child (GstElement * pipeline, const gchar * name)
{
  GstElement *e = gst_bin_get_by_name (GST_BIN (pipeline), name);

  fail_unless (e != NULL, "no element %s", name);
  /* the pipeline holds it for the test's length */
  gst_object_unref (e);
  return e;
}

/* Plays @pipeline until EOS or ERROR, the reports collected in @reports;
 * returns that message, the pipeline still playing. */
static GstMessage *
play (GstElement * pipeline, GPtrArray * reports)
{
  GstBus *bus = gst_element_get_bus (pipeline);
  GstMessage *msg;

  ax_prof_watch (pipeline, reports);
  fail_unless (gst_element_set_state (pipeline, GST_STATE_PLAYING) !=
      GST_STATE_CHANGE_FAILURE);
  msg = gst_bus_timed_pop_filtered (bus, RUN_TIMEOUT,
      GST_MESSAGE_EOS | GST_MESSAGE_ERROR);
  fail_unless (msg != NULL, "neither EOS nor ERROR within the timeout");
  gst_object_unref (bus);
  return msg;
}

/* Stops @pipeline with the reports still collected, so that a second
 * report made on the way down would be seen; returns the only one. */
static AxProfReport *
stop (GstElement * pipeline, GPtrArray * reports)
{
  GstBus *bus = gst_element_get_bus (pipeline);
  AxProfReport *r;

  gst_element_set_state (pipeline, GST_STATE_NULL);
  gst_bus_set_sync_handler (bus, NULL, NULL, NULL);
  gst_object_unref (bus);
  gst_object_unref (pipeline);
  fail_unless_equals_int (reports->len, 1);
  r = g_ptr_array_index (reports, 0);
  g_ptr_array_unref (reports);
  return r;
}

/* The report read back into a GstAxReport renders the same JSON. */
static void
assert_reads_back (AxProfReport * r)
{
  GError *err = NULL;
  GstAxReport *back = gst_ax_report_new_from_json (r->json, &err);

  fail_unless (back != NULL, "%s", err ? err->message : "?");
  ax_assert_report_round_trip (back);
  gst_ax_report_unref (back);
}

static gint64
int_member (JsonObject * o, const gchar * name)
{
  fail_unless (o != NULL && json_object_has_member (o, name), "no %s", name);
  return json_object_get_int_member (o, name);
}

typedef struct
{
  gint in;
  gint out;
  guint level;
} QueueTruth;

/* What @queue really dropped: buffers into its sink pad, minus those out
 * of its src pad, minus what it still holds. */
static gint
truth_dropped (GstElement * queue, QueueTruth * t)
{
  g_object_get (queue, "current-level-buffers", &t->level, NULL);
  return g_atomic_int_get (&t->in) - g_atomic_int_get (&t->out) -
      (gint) t->level;
}

static AxProfReport *
run_tee (const gchar * slow_queue, gint buffers, QueueTruth * slow,
    QueueTruth * fast, gint * slow_dropped, gint * fast_dropped)
{
  gchar *description = g_strdup_printf (TEE_HEAD "%s ! " SLOW_BRANCH,
      buffers, slow_queue);
  GPtrArray *reports = g_ptr_array_new ();
  GstElement *pipeline = gst_parse_launch (description, NULL);
  GstMessage *msg;

  fail_unless (pipeline != NULL, "%s", description);
  count_on_pad (child (pipeline, "lq"), "sink", &slow->in);
  count_on_pad (child (pipeline, "lq"), "src", &slow->out);
  count_on_pad (child (pipeline, "fastq"), "sink", &fast->in);
  count_on_pad (child (pipeline, "fastq"), "src", &fast->out);
  msg = play (pipeline, reports);
  fail_unless_equals_int (GST_MESSAGE_TYPE (msg), GST_MESSAGE_EOS);
  gst_message_unref (msg);
  *slow_dropped = truth_dropped (child (pipeline, "lq"), slow);
  *fast_dropped = truth_dropped (child (pipeline, "fastq"), fast);
  g_free (description);
  return stop (pipeline, reports);
}

/* The tee/leaky pipeline: the leaky queue's drops as it really dropped
 * them, and a verdict that names the slow branch, not back-pressure. */
GST_START_TEST (test_leaky_queue_drops)
{
  QueueTruth slow = { 0, }, fast = { 0, };
  gint slow_dropped, fast_dropped;
  AxProfReport *r;
  JsonObject *lq, *fq, *verdict;
  gchar *line;
  /* GStreamer 1.22's queue, leaking a sticky event while its task pushes
   * the one before (caps), stores the two on its source pad out of order
   * and warns; the stream and what this test counts are not affected */
  GstCheckLogFilter *misordering = gst_check_add_log_filter ("GStreamer",
      G_LOG_LEVEL_WARNING, g_regex_new ("Sticky event misordering", 0, 0,
          NULL), NULL, NULL, NULL);

  r = run_tee ("queue name=lq leaky=downstream max-size-buffers=5",
      TEE_BUFFERS, &slow, &fast, &slow_dropped, &fast_dropped);
  gst_check_remove_log_filter (misordering);
  lq = ax_prof_find_queue (r->root, "lq");
  fq = ax_prof_find_queue (r->root, "fastq");
  verdict = json_object_get_object_member (r->root, "verdict");

  fail_unless (lq != NULL && fq != NULL, "%s", r->text);
  /* the scenario is real: the 20 ms branch could not take them all */
  fail_unless (slow_dropped > 0, "the queue dropped nothing");
  fail_unless_equals_int (int_member (lq, "dropped"), slow_dropped);
  fail_unless_equals_int (int_member (lq, "input"), slow.in);
  fail_unless_equals_string (json_object_get_string_member (lq, "leaky"),
      "downstream");
  fail_unless_equals_int (int_member (fq, "dropped"), fast_dropped);
  fail_unless_equals_int (fast_dropped, 0);
  fail_unless (json_object_get_null_member (fq, "leaky"));
  line = g_strdup_printf ("dropped %d of %d in (", slow_dropped, slow.in);
  fail_unless (strstr (r->text, line) != NULL, "'%s' not in\n%s", line,
      r->text);
  g_free (line);

  fail_if (g_strcmp0 (r->verdict_kind, "backpressure") == 0, "%s", r->text);
  fail_unless_equals_string (r->verdict_kind, "drops");
  fail_unless_equals_string (r->verdict_element, "slow");
  fail_unless_equals_string (json_object_get_string_member (verdict,
          "queue"), "lq");
  fail_unless (strstr (json_object_get_string_member (verdict, "constraint"),
          "slow") != NULL, "%s", r->text);
  assert_reads_back (r);
  ax_prof_report_free (r);
}

GST_END_TEST;

/* The same branch behind a normal queue: it holds the source back and
 * drops nothing. */
GST_START_TEST (test_normal_queue_drops_nothing)
{
  QueueTruth slow = { 0, }, fast = { 0, };
  gint slow_dropped, fast_dropped;
  AxProfReport *r = run_tee ("queue name=lq max-size-buffers=5",
      CONTROL_BUFFERS, &slow, &fast, &slow_dropped, &fast_dropped);
  JsonObject *lq = ax_prof_find_queue (r->root, "lq");

  fail_unless (lq != NULL, "%s", r->text);
  fail_unless_equals_int (slow.in, CONTROL_BUFFERS);
  fail_unless_equals_int (slow_dropped, 0);
  fail_unless_equals_int (int_member (lq, "dropped"), slow_dropped);
  fail_unless_equals_int (int_member (lq, "input"), slow.in);
  fail_unless (json_object_get_null_member (lq, "leaky"));
  fail_unless (strstr (r->text, "dropped") == NULL, "%s", r->text);
  fail_if (g_strcmp0 (r->verdict_kind, "drops") == 0, "%s", r->text);
  ax_prof_report_free (r);
}

GST_END_TEST;

typedef struct
{
  GPtrArray *reports;
  GstElement *sink;
  gint messages;
  guint64 processed;
  guint64 dropped;
} QosWatch;

static GstBusSyncReply
watch_qos (GstBus * bus, GstMessage * msg, gpointer user_data)
{
  QosWatch *w = user_data;

  if (GST_MESSAGE_TYPE (msg) == GST_MESSAGE_QOS &&
      GST_MESSAGE_SRC (msg) == GST_OBJECT (w->sink)) {
    GstFormat format;

    gst_message_parse_qos_stats (msg, &format, &w->processed, &w->dropped);
    w->messages++;
  }
  return ax_prof_collect_report (bus, msg, w->reports);
}

/* A sink that drops late buffers says so in QoS messages: the report
 * carries the counts of its last one. */
GST_START_TEST (test_qos_drops)
{
  QosWatch w = { g_ptr_array_new (), NULL, 0, 0, 0 };
  gchar *description = g_strdup_printf ("videotestsrc num-buffers=%d ! "
      "video/x-raw,width=64,height=48,framerate=30/1 ! "
      "identity sleep-time=50000 ! fakesink name=sink sync=true qos=true "
      "max-lateness=1000000", QOS_BUFFERS);
  GstElement *pipeline = gst_parse_launch (description, NULL);
  GstBus *bus = gst_element_get_bus (pipeline);
  GstMessage *msg;
  AxProfReport *r;
  JsonArray *qos;
  JsonObject *q;

  w.sink = child (pipeline, "sink");
  gst_bus_set_sync_handler (bus, watch_qos, &w, NULL);
  fail_unless (gst_element_set_state (pipeline, GST_STATE_PLAYING) !=
      GST_STATE_CHANGE_FAILURE);
  msg = gst_bus_timed_pop_filtered (bus, RUN_TIMEOUT, GST_MESSAGE_EOS |
      GST_MESSAGE_ERROR);
  fail_unless (msg != NULL && GST_MESSAGE_TYPE (msg) == GST_MESSAGE_EOS);
  gst_message_unref (msg);
  gst_element_set_state (pipeline, GST_STATE_NULL);
  gst_bus_set_sync_handler (bus, NULL, NULL, NULL);
  gst_object_unref (bus);
  gst_object_unref (pipeline);
  fail_unless_equals_int (w.reports->len, 1);
  r = g_ptr_array_index (w.reports, 0);

  /* the scenario is real: the sink dropped late buffers */
  fail_unless (w.messages > 0 && w.dropped > 0, "no QoS drops");
  qos = json_object_get_array_member (r->root, "qos_drops");
  fail_unless_equals_int (json_array_get_length (qos), 1);
  q = json_array_get_object_element (qos, 0);
  fail_unless_equals_string (json_object_get_string_member (q, "element"),
      "sink");
  fail_unless_equals_int (int_member (q, "messages"), w.messages);
  fail_unless_equals_int (int_member (q, "dropped"), w.dropped);
  fail_unless_equals_int (int_member (q, "processed"), w.processed);
  fail_unless (strstr (r->text, "Drops reported by elements") != NULL, "%s",
      r->text);
  assert_reads_back (r);
  ax_prof_report_free (r);
  g_ptr_array_unref (w.reports);
  g_free (description);
}

GST_END_TEST;

/* playbin3 on an H.264 + AAC file: frames are the video frames at the
 * video sink, the audio buffers are counted apart. */
GST_START_TEST (test_frames_are_video_frames)
{
  static const gchar *const needed[] = { "x264enc", "avenc_aac", "mp4mux",
    "playbin3", "avdec_h264", NULL
  };
  gint video = 0, audio = 0;
  gchar *dir, *path, *uri, *make;
  GPtrArray *reports;
  GstElement *playbin, *vsink, *asink;
  GstMessage *msg;
  AxProfReport *r;
  JsonObject *tp, *g;

  if (!have_factories ("test_frames_are_video_frames", needed))
    return;
  dir = g_dir_make_tmp ("axprof-real-XXXXXX", NULL);
  fail_unless (dir != NULL);
  path = g_build_filename (dir, "av.mp4", NULL);
  make = g_strdup_printf ("videotestsrc num-buffers=%d ! "
      "video/x-raw,width=64,height=48,framerate=30/1 ! x264enc ! "
      "mp4mux name=m ! filesink location=\"%s\" audiotestsrc num-buffers=%d ! "
      "avenc_aac ! m.", AV_VIDEO_FRAMES, path, AV_AUDIO_BUFFERS);
  ax_prof_report_free (ax_prof_run (make));

  playbin = gst_element_factory_make ("playbin3", NULL);
  vsink = gst_element_factory_make ("fakesink", "vsink");
  asink = gst_element_factory_make ("fakesink", "asink");
  uri = gst_filename_to_uri (path, NULL);
  g_object_set (playbin, "uri", uri, "video-sink", vsink, "audio-sink", asink,
      NULL);
  count_on_pad (vsink, "sink", &video);
  count_on_pad (asink, "sink", &audio);
  reports = g_ptr_array_new ();
  msg = play (playbin, reports);
  fail_unless_equals_int (GST_MESSAGE_TYPE (msg), GST_MESSAGE_EOS);
  gst_message_unref (msg);
  r = stop (playbin, reports);

  fail_unless_equals_int (video, AV_VIDEO_FRAMES);
  fail_unless (audio > video, "audio %d, video %d", audio, video);
  tp = json_object_get_object_member (r->root, "throughput");
  fail_unless_equals_int (int_member (tp, "frames"), video);
  fail_unless_equals_int (int_member (tp, "audio_buffers"), audio);
  fail_unless_equals_string (json_object_get_string_member (tp,
          "frames_sink"), "vsink");
  fail_unless_equals_string (json_object_get_string_member (tp,
          "audio_sink"), "asink");
  fail_unless_equals_int (int_member (tp, "video_sinks"), 1);
  /* per frame is per video frame */
  g = ax_prof_find_group (r->root, "pipeline");
  fail_unless (g != NULL);
  fail_unless (fabs (json_object_get_double_member (g, "ms_per_frame") -
          json_object_get_double_member (g, "total_ms") / video) < 1e-9);
  assert_reads_back (r);
  ax_prof_report_free (r);

  g_unlink (path);
  g_rmdir (dir);
  g_free (uri);
  g_free (make);
  g_free (path);
  g_free (dir);
}

GST_END_TEST;

/* A transcode into /dev/full: the first ERROR on the bus is the one the
 * report names; the run is never complete; one report. */
GST_START_TEST (test_error_in_process)
{
  static const gchar *const needed[] = { "x264enc", "mp4mux", NULL };
  GPtrArray *reports;
  GstElement *pipeline;
  GstMessage *msg;
  GError *err = NULL;
  gchar *source;
  AxProfReport *r;
  JsonObject *error, *verdict;
  GstAxReport *back;

  if (!have_factories ("test_error_in_process", needed))
    return;
  pipeline = gst_parse_launch (FULL_PIPELINE, NULL);
  fail_unless (pipeline != NULL);
  reports = g_ptr_array_new ();
  msg = play (pipeline, reports);
  fail_unless_equals_int (GST_MESSAGE_TYPE (msg), GST_MESSAGE_ERROR);
  gst_message_parse_error (msg, &err, NULL);
  source = gst_object_get_name (GST_MESSAGE_SRC (msg));
  /* the report came before the ERROR reached the bus */
  fail_unless_equals_int (reports->len, 1);
  gst_message_unref (msg);
  r = stop (pipeline, reports);

  fail_unless_equals_string (source, "filesink0");
  fail_unless_equals_string (r->status, "error");
  fail_unless_equals_string (json_object_get_string_member (r->root,
          "status"), "error");
  error = json_object_get_object_member (r->root, "error");
  fail_unless (error != NULL, "%s", r->json);
  fail_unless_equals_string (json_object_get_string_member (error,
          "element"), source);
  fail_unless_equals_string (json_object_get_string_member (error,
          "message"), err->message);
  verdict = json_object_get_object_member (r->root, "verdict");
  fail_unless (strstr (json_object_get_string_member (verdict, "text"),
          "1. Trust: the run is INCOMPLETE") != NULL, "%s", r->text);
  fail_unless (strstr (r->text, "complete run") == NULL, "%s", r->text);
  fail_unless (g_str_has_prefix (r->text, "axprof report for pipeline"));
  fail_unless (strstr (r->text, "(ERROR") != NULL, "%s", r->text);
  back = gst_ax_report_new_from_json (r->json, NULL);
  fail_unless (back != NULL);
  fail_unless_equals_int (back->status, GST_AX_REPORT_STATUS_ERROR);
  fail_unless_equals_string (back->error_element, source);
  gst_ax_report_unref (back);
  assert_reads_back (r);
  ax_prof_report_free (r);
  g_clear_error (&err);
  g_free (source);
}

GST_END_TEST;

static guint
occurrences (const gchar * text, const gchar * needle)
{
  guint n = 0;
  const gchar *p = text;

  while ((p = strstr (p, needle)) != NULL) {
    n++;
    p += strlen (needle);
  }
  return n;
}

/* The same under gst-launch-1.0: it exits 1 and prints the report once,
 * as an ERROR report. */
GST_START_TEST (test_error_gst_launch)
{
  static const gchar *const needed[] = { "x264enc", "mp4mux", NULL };
  gchar *launch = g_find_program_in_path ("gst-launch-1.0");
  gchar **argv, **envp, *out = NULL, *err = NULL, *line;
  GError *error = NULL;
  gint status = 0;

  if (launch == NULL) {
    g_print ("SKIP test_error_gst_launch: no gst-launch-1.0 in PATH\n");
    return;
  }
#ifdef __SANITIZE_ADDRESS__
  /* a sanitized tracer cannot load into the uninstrumented gst-launch */
  g_print ("SKIP test_error_gst_launch: a sanitizer build\n");
  g_free (launch);
  return;
#endif
  if (!have_factories ("test_error_gst_launch", needed)) {
    g_free (launch);
    return;
  }
  line = g_strdup_printf ("%s " FULL_PIPELINE, launch);
  fail_unless (g_shell_parse_argv (line, NULL, &argv, NULL));
  envp = g_environ_setenv (g_get_environ (), "GST_TRACERS", "axprof", TRUE);
  fail_unless (g_spawn_sync (NULL, argv, envp, G_SPAWN_DEFAULT, NULL, NULL,
          &out, &err, &status, &error), "%s", error ? error->message : "?");
  fail_unless (WIFEXITED (status), "gst-launch-1.0 did not exit: %s", err);
  fail_unless_equals_int (WEXITSTATUS (status), 1);
  fail_unless (strstr (err, "No space left") != NULL ||
      strstr (out, "No space left") != NULL, "%s\n%s", out, err);
  fail_unless_equals_int (occurrences (out, "axprof report for "), 1);
  fail_unless (strstr (out, "axprof report for pipeline0 (ERROR") != NULL,
      "%s", out);
  fail_unless (strstr (out, "ERROR from filesink0: ") != NULL, "%s", out);
  fail_unless (strstr (out, "complete run") == NULL, "%s", out);
  g_free (out);
  g_free (err);
  g_strfreev (envp);
  g_strfreev (argv);
  g_free (line);
  g_free (launch);
}

GST_END_TEST;

static Suite *
axprof_real_suite (void)
{
  Suite *s = suite_create ("axprof-real");
  TCase *tc = tcase_create ("general");

  suite_add_tcase (s, tc);
  tcase_set_timeout (tc, 120);
  tcase_add_test (tc, test_leaky_queue_drops);
  tcase_add_test (tc, test_normal_queue_drops_nothing);
  tcase_add_test (tc, test_qos_drops);
  tcase_add_test (tc, test_frames_are_video_frames);
  tcase_add_test (tc, test_error_in_process);
  tcase_add_test (tc, test_error_gst_launch);
  return s;
}

int
main (int argc, char **argv)
{
  g_setenv ("GST_TRACERS", "axprof(file=/dev/null)", TRUE);
  gst_check_init (&argc, &argv);
  return gst_check_run_suite (axprof_real_suite (), "axprof-real", __FILE__);
}
