/* gst-ax
 * Copyright (C) 2026 gst-ax contributors
 *
 * Rows of the bad-input matrix (docs/reliability-matrix.md) that no other
 * test covers: extreme frame sizes, a flood of candidates, empty and short
 * labels files, a model deleted while running, malformed tracer params.
 */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <gst/check/gstcheck.h>
#include <gst/check/gstharness.h>
#include <gst/video/video.h>
#include <glib/gstdio.h>
#include <gst/ax/ax.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>

#define TENSOR_SIDE 32
#define HUGE_SIDE 8192
#define FLOOD_ANCHORS 100000
#define FLOOD_CLASSES 1
#define YOLOV8_BOX_ROWS 4
/* disjoint 8x8 boxes on a 10 px grid, this many per row */
#define FLOOD_GRID 316
#define FLOOD_CELL 10.0f
#define FLOOD_BOX 8.0f
#define DEFAULT_MAX_DETECTIONS 300

static void
push_frame_through_letterbox (const gchar * format, gint w, gint h)
{
  GstHarness *h_ = gst_harness_new ("axletterbox");
  GstVideoInfo info;
  GstBuffer *out;
  GstAxTensorMeta *meta;

  g_object_set (h_->element, "width", TENSOR_SIDE, "height", TENSOR_SIDE, NULL);
  gst_video_info_set_format (&info, gst_video_format_from_string (format),
      w, h);
  gst_harness_set_src_caps (h_, gst_video_info_to_caps (&info));
  out = gst_harness_push_and_pull (h_,
      gst_buffer_new_allocate (NULL, info.size, NULL));
  fail_unless (out != NULL);
  meta = gst_buffer_get_ax_tensor_meta_by_role (out,
      GST_AX_TENSOR_ROLE_INPUT, 0, 0);
  fail_unless (meta != NULL);
  fail_unless_equals_int (meta->n_dims, 4);
  fail_unless_equals_int (meta->dims[1], TENSOR_SIDE);
  fail_unless_equals_int (meta->dims[2], TENSOR_SIDE);
  fail_unless (meta->has_letterbox);
  /* the frame lands inside the tensor, at least one pixel of it */
  fail_unless_equals_int (meta->letterbox.src_width, w);
  fail_unless_equals_int (meta->letterbox.src_height, h);
  fail_unless (meta->letterbox.resized_width >= 1 &&
      meta->letterbox.resized_width <= TENSOR_SIDE);
  fail_unless (meta->letterbox.resized_height >= 1 &&
      meta->letterbox.resized_height <= TENSOR_SIDE);
  gst_buffer_unref (out);
  gst_harness_teardown (h_);
}

GST_START_TEST (test_tiny_frames)
{
  push_frame_through_letterbox ("RGB", 1, 1);
  push_frame_through_letterbox ("NV12", 1, 1);
  push_frame_through_letterbox ("RGB", 1, 2);
  push_frame_through_letterbox ("I420", 2, 1);
}

GST_END_TEST;

GST_START_TEST (test_huge_frame)
{
  /* 8192x8192 NV12 is 96 MiB; the letterbox reads only what it samples */
  push_frame_through_letterbox ("NV12", HUGE_SIDE, HUGE_SIDE);
}

GST_END_TEST;

static GstBuffer *
yolov8_frame (GstHarness * h, const gfloat * data, guint na, guint nc)
{
  GstBuffer *buf = gst_harness_create_buffer (h, 16);
  gint64 dims[3] = { 1, YOLOV8_BOX_ROWS + nc, na };

  gst_buffer_add_ax_tensor_meta (buf, "output0", GST_AX_TENSOR_ROLE_OUTPUT,
      GST_AX_TENSOR_DTYPE_F32, GST_AX_TENSOR_LAYOUT_NHWC, 3, dims, 1.0f, 0,
      gst_buffer_new_memdup (data,
          sizeof (gfloat) * (YOLOV8_BOX_ROWS + nc) * na));
  return buf;
}

static GstHarness *
yolov8_harness (const gchar * labels)
{
  gchar *launch = g_strdup_printf ("axnms decode=yolov8 labels=\"%s\"",
      labels ? labels : "");
  GstHarness *h = gst_harness_new_parse (launch);

  g_free (launch);
  gst_harness_set_src_caps_str (h, "video/x-raw,format=RGB,width=3200,"
      "height=3200,framerate=30/1");
  return h;
}

/* 100,000 disjoint candidates, all above threshold: max-detections caps
 * the output at its default. */
GST_START_TEST (test_flood_of_candidates)
{
  const guint na = FLOOD_ANCHORS;
  gfloat *data = g_new (gfloat, (YOLOV8_BOX_ROWS + FLOOD_CLASSES) * na);
  GstHarness *h;
  GstBuffer *out;
  guint a;

  for (a = 0; a < na; a++) {
    data[a] = (a % FLOOD_GRID) * FLOOD_CELL + FLOOD_BOX / 2;
    data[na + a] = (a / FLOOD_GRID) * FLOOD_CELL + FLOOD_BOX / 2;
    data[2 * na + a] = FLOOD_BOX;
    data[3 * na + a] = FLOOD_BOX;
    data[4 * na + a] = 0.5f + 0.4f * (a % 1000) / 1000;
  }
  h = yolov8_harness (NULL);
  out = gst_harness_push_and_pull (h, yolov8_frame (h, data, na,
          FLOOD_CLASSES));
  fail_unless_equals_int (gst_ax_detection_count (out), DEFAULT_MAX_DETECTIONS);
  gst_buffer_unref (out);
  gst_harness_teardown (h);
  g_free (data);
}

GST_END_TEST;

/* A labels file shorter than the model's classes names the classes it has;
 * the others, and every class of an empty file, are called classN. */
static void
check_labels_file (const gchar * contents, const gchar * label0)
{
  const guint na = 2, nc = 2;
  /* anchor 0 is class 0, anchor 1 class 1, far apart */
  gfloat data[(YOLOV8_BOX_ROWS + 2) * 2] = {
    20, 200, 20, 200, 10, 10, 10, 10, 0.9f, 0.0f, 0.0f, 0.8f
  };
  gchar *path = NULL;
  gint fd = g_file_open_tmp ("axbadinput-labels-XXXXXX", &path, NULL);
  GstHarness *h;
  GstBuffer *out;
  GstAxDetection det;
  GstVideoRegionOfInterestMeta *roi;
  gpointer state = NULL;
  guint seen = 0;

  fail_unless (fd >= 0);
  fail_unless (g_file_set_contents (path, contents, -1, NULL));
  close (fd);
  h = yolov8_harness (path);
  out = gst_harness_push_and_pull (h, yolov8_frame (h, data, na, nc));
  fail_unless_equals_int (gst_ax_detection_count (out), 2);
  while (gst_ax_detection_iterate (out, &state, &det, &roi)) {
    gchar *fallback = g_strdup_printf ("class%u", det.label_id);

    /* a class the file does not name is called classN */
    fail_unless_equals_string (det.label, det.label_id == 0 && label0 ?
        label0 : fallback);
    g_free (fallback);
    seen |= 1u << det.label_id;
  }
  fail_unless_equals_int (seen, 3);
  gst_buffer_unref (out);
  gst_harness_teardown (h);
  g_unlink (path);
  g_free (path);
}

GST_START_TEST (test_short_labels_file)
{
  check_labels_file ("ball\n", "ball");
}

GST_END_TEST;

GST_START_TEST (test_empty_labels_file)
{
  check_labels_file ("", NULL);
}

GST_END_TEST;

/* Starts an axnms whose labels= is @labels: the start must fail, posting
 * an error that names the file and carries @needle. */
static void
check_labels_refused (const gchar * labels, const gchar * needle)
{
  GstElement *nms = gst_element_factory_make ("axnms", NULL);
  GstBus *bus = gst_bus_new ();
  GstMessage *msg;
  GError *err = NULL;
  gchar *debug = NULL;

  fail_unless (nms != NULL);
  gst_element_set_bus (nms, bus);
  g_object_set (nms, "labels", labels, NULL);
  fail_unless_equals_int (gst_element_set_state (nms, GST_STATE_PAUSED),
      GST_STATE_CHANGE_FAILURE);
  msg = gst_bus_pop_filtered (bus, GST_MESSAGE_ERROR);
  fail_unless (msg != NULL, "no error posted for labels=%s", labels);
  gst_message_parse_error (msg, &err, &debug);
  fail_unless (strstr (err->message, labels) != NULL, "%s", err->message);
  fail_unless (debug != NULL && strstr (debug, needle) != NULL,
      "no '%s' in: %s", needle, GST_STR_NULL (debug));
  g_clear_error (&err);
  g_free (debug);
  gst_message_unref (msg);
  gst_element_set_state (nms, GST_STATE_NULL);
  gst_element_set_bus (nms, NULL);
  gst_object_unref (bus);
  gst_object_unref (nms);
}

/* labels= a FIFO nobody writes to: the start fails at once (it waited
 * for a writer, hanging the pipeline's start) */
GST_START_TEST (test_labels_fifo)
{
  gchar *dir = g_dir_make_tmp ("axbadinput-XXXXXX", NULL);
  gchar *fifo = g_build_filename (dir, "labels.fifo", NULL);

  fail_unless (dir != NULL);
  fail_unless_equals_int (mkfifo (fifo, 0600), 0);
  check_labels_refused (fifo, "is a FIFO (named pipe); expected a regular "
      "file");
  g_unlink (fifo);
  g_rmdir (dir);
  g_free (fifo);
  g_free (dir);
}

GST_END_TEST;

/* labels= a device without end, or a file far larger than any labels:
 * refused (/dev/zero was read until memory ran out) */
GST_START_TEST (test_labels_endless)
{
  gchar *path = NULL;
  gint fd = g_file_open_tmp ("axbadinput-labels-XXXXXX", &path, NULL);

  check_labels_refused ("/dev/zero", "'/dev/zero' is a character device; "
      "expected a regular file");
  /* sparse: 64 MiB of holes, above the 4 MiB a labels file may hold */
  fail_unless (fd >= 0);
  fail_unless_equals_int (ftruncate (fd, 64 << 20), 0);
  close (fd);
  check_labels_refused (path, "is larger than 4194304 bytes");
  g_unlink (path);
  g_free (path);
}

GST_END_TEST;

#define RUN_FRAMES 2

static void
run_frames (GstHarness * h, guint n)
{
  guint i;

  for (i = 0; i < n; i++) {
    GstBuffer *out;

    fail_unless_equals_int (gst_harness_push_from_src (h), GST_FLOW_OK);
    out = gst_harness_pull (h);
    fail_unless (out != NULL);
    fail_unless (gst_buffer_count_ax_tensor_meta (out,
            GST_AX_TENSOR_ROLE_OUTPUT) >= 1);
    gst_buffer_unref (out);
  }
}

/* The model is read whole at start: deleting its file while running does
 * not stop the stream; the next start fails, naming the model. */
GST_START_TEST (test_model_deleted_while_running)
{
  const gchar *dir = g_getenv ("GST_AX_MODEL_PATH");
  gchar *src, *contents = NULL, *path = NULL, *launch;
  gsize len;
  gint fd;
  GstHarness *h;
  GstElement *e;
  GstBus *bus;
  GstMessage *msg;
  GError *err = NULL;

  src = g_build_filename (dir ? dir : ".", "ball-detector.axm", NULL);
  if (!g_file_get_contents (src, &contents, &len, NULL)) {
    GST_INFO ("no %s: skipped", src);
    g_free (src);
    return;
  }
  fd = g_file_open_tmp ("axbadinput-XXXXXX.axm", &path, NULL);
  fail_unless (fd >= 0);
  close (fd);
  fail_unless (g_file_set_contents (path, contents, len, NULL));
  launch = g_strdup_printf ("axletterbox ! axinference model=%s", path);
  h = gst_harness_new_parse (launch);
  gst_harness_add_src_parse (h, "videotestsrc pattern=ball ! capsfilter "
      "caps=video/x-raw,format=RGB,width=320,height=240,framerate=30/1", FALSE);
  run_frames (h, RUN_FRAMES);
  fail_unless_equals_int (g_unlink (path), 0);
  run_frames (h, RUN_FRAMES);
  gst_harness_teardown (h);

  e = gst_element_factory_make ("axinference", NULL);
  bus = gst_bus_new ();
  gst_element_set_bus (e, bus);
  g_object_set (e, "model", path, NULL);
  fail_unless_equals_int (gst_element_set_state (e, GST_STATE_READY),
      GST_STATE_CHANGE_FAILURE);
  msg = gst_bus_pop_filtered (bus, GST_MESSAGE_ERROR);
  fail_unless (msg != NULL);
  gst_message_parse_error (msg, &err, NULL);
  fail_unless (g_error_matches (err, GST_RESOURCE_ERROR,
          GST_RESOURCE_ERROR_NOT_FOUND), "%s", err->message);
  fail_unless (strstr (err->message, "not found") != NULL, "%s", err->message);
  fail_unless (strstr (err->message, path) != NULL, "%s", err->message);
  g_error_free (err);
  gst_message_unref (msg);
  gst_element_set_state (e, GST_STATE_NULL);
  gst_object_unref (bus);
  gst_object_unref (e);
  g_free (launch);
  g_free (path);
  g_free (contents);
  g_free (src);
}

GST_END_TEST;

static gboolean
collect_warning (const gchar * domain, GLogLevelFlags level,
    const gchar * message, gpointer user_data)
{
  g_string_append_printf ((GString *) user_data, "%s\n", message);
  return TRUE;
}

static GType
axprof_type (void)
{
  GstPluginFeature *f;
  GType type;

  f = gst_registry_find_feature (gst_registry_get (), "axprof",
      GST_TYPE_TRACER_FACTORY);
  fail_unless (f != NULL, "axprof tracer not found");
  fail_unless (gst_plugin_feature_load (f) != NULL);
  type = gst_tracer_factory_get_tracer_type (GST_TRACER_FACTORY (f));
  fail_unless (type != G_TYPE_NONE);
  gst_object_unref (f);
  return type;
}

/* Makes the tracer with PARAMS and returns the axprof warnings it gave.
 * The tracer keeps one run state per process (and its hooks keep it), so
 * each process makes one. */
static gchar *
warnings_of_params (const gchar * params)
{
  GString *warnings = g_string_new (NULL);
  GstCheckLogFilter *filter;
  GType type = axprof_type ();

  filter = gst_check_add_log_filter (NULL, G_LOG_LEVEL_WARNING,
      g_regex_new ("^axprof: ", 0, 0, NULL), collect_warning, warnings, NULL);
  g_object_new (type, "params", params, NULL);
  gst_check_remove_log_filter (filter);
  return g_string_free (warnings, FALSE);
}

/* A params string that is no key=value list at all is refused whole with
 * the list of known keys. In a child, since a process makes one tracer;
 * this test runs before test_malformed_tracer_params. */
GST_START_TEST (test_unparsable_tracer_params)
{
  pid_t pid = fork ();
  gint status = 0;

  fail_unless (pid >= 0);
  if (pid == 0) {
    gchar *w = warnings_of_params ("=,=");

    _exit (strstr (w, "axprof: cannot parse params '=,='") != NULL &&
        strstr (w, "expected key=value pairs") != NULL ? 0 : 1);
  }
  fail_unless_equals_int (waitpid (pid, &status, 0), pid);
  fail_unless (WIFEXITED (status) && WEXITSTATUS (status) == 0,
      "the unparsable params gave no 'cannot parse params' warning");
}

GST_END_TEST;

/* Each malformed param warns, naming the key and what it expects; the
 * string as a whole still parses, so the other keys are read. */
GST_START_TEST (test_malformed_tracer_params)
{
  const gchar *expected[] = {
    "exact must be true or false",
    "read-interval-us must be an integer >= 1",
    "print must be true or false",
    "file=, json= and perfetto= take a path",
    "unknown param 'bogus' ignored",
  };
  gchar *w =
      warnings_of_params ("exact=maybe,read-interval-us=0,print=2,file=5,"
      "bogus=1");
  guint i;

  for (i = 0; i < G_N_ELEMENTS (expected); i++)
    fail_unless (strstr (w, expected[i]) != NULL,
        "no '%s' among the warnings:\n%s", expected[i], w);
  fail_if (strstr (w, "cannot parse") != NULL, "%s", w);
  g_free (w);
}

GST_END_TEST;

#define SHARED_PIPELINE "fakesrc num-buffers=20 sizetype=fixed sizemax=64 ! " \
  "identity ! fakesink"

/* In a child (a process makes one tracer): the tracer made with @params
 * profiles a short pipeline; the child exits 0 when the axprof warnings
 * hold each of @needles and @path holds @kept and none of @lost. */
static gboolean
shared_output_run (const gchar * params, const gchar * const *needles,
    const gchar * path, const gchar * kept, const gchar * lost)
{
  pid_t pid = fork ();
  gint status = 0;

  fail_unless (pid >= 0);
  if (pid == 0) {
    gchar *w = warnings_of_params (params), *contents = NULL;
    GstElement *pipeline = gst_parse_launch (SHARED_PIPELINE, NULL);
    GstBus *bus = gst_element_get_bus (pipeline);
    GstMessage *msg;
    guint i;

    gst_element_set_state (pipeline, GST_STATE_PLAYING);
    msg = gst_bus_timed_pop_filtered (bus, GST_CLOCK_TIME_NONE,
        GST_MESSAGE_EOS | GST_MESSAGE_ERROR);
    gst_message_unref (msg);
    gst_element_set_state (pipeline, GST_STATE_NULL);
    gst_object_unref (bus);
    gst_object_unref (pipeline);
    for (i = 0; needles[i]; i++)
      if (strstr (w, needles[i]) == NULL) {
        g_printerr ("no '%s' among the warnings:\n%s", needles[i], w);
        _exit (1);
      }
    if (!g_file_get_contents (path, &contents, NULL, NULL)
        || strstr (contents, kept) == NULL
        || (lost && strstr (contents, lost) != NULL)) {
      g_printerr ("%s holds no '%s' or holds '%s':\n%s\n", path, kept,
          lost ? lost : "", contents ? contents : "(unreadable)");
      _exit (1);
    }
    _exit (0);
  }
  fail_unless_equals_int (waitpid (pid, &status, 0), pid);
  return WIFEXITED (status) && WEXITSTATUS (status) == 0;
}

/* Two of file=, json= and perfetto= on one file (by its name, another
 * spelling or a hard link): a warning names both keys, the later key is
 * ignored, and the file holds the earlier one's output whole. */
GST_START_TEST (test_tracer_outputs_on_one_file)
{
  gchar *dir = g_dir_make_tmp ("axbadinput-XXXXXX", NULL);
  gchar *report = g_build_filename (dir, "report.txt", NULL);
  gchar *linked = g_build_filename (dir, "report-link.txt", NULL);
  gchar *json = g_build_filename (dir, "report.json", NULL);
  gchar *params, *n1, *n2;

  fail_unless (dir != NULL);
  /* the text reports are appended to what the file holds */
  fail_unless (g_file_set_contents (report, "before the run\n", -1, NULL));
  fail_unless_equals_int (link (report, linked), 0);
  params = g_strdup_printf ("file=%s,json=%s/./report.txt,perfetto=%s",
      report, dir, linked);
  n1 = g_strdup_printf ("axprof: file=%s and json=%s/./report.txt name the "
      "same file; json= is ignored so that file= keeps its output", report,
      dir);
  n2 = g_strdup_printf ("axprof: file=%s and perfetto=%s name the same "
      "file; perfetto= is ignored so that file= keeps its output", report,
      linked);
  {
    const gchar *needles[] = { n1, n2, NULL };

    fail_unless (shared_output_run (params, needles, report,
            "before the run\naxprof report for ", "\"schema\""),
        "file= and json= or perfetto= on one file");
  }
  g_free (params);
  g_free (n1);
  params = g_strdup_printf ("json=%s,perfetto=%s", json, json);
  n1 = g_strdup_printf ("axprof: json=%s and perfetto=%s name the same "
      "file; perfetto= is ignored so that json= keeps its output", json, json);
  {
    const gchar *needles[] = { n1, NULL };

    fail_unless (shared_output_run (params, needles, json,
            "\"schema\" : \"gst-ax/axprof-report/1\"", "\"traceEvents\""),
        "json= and perfetto= on one file");
  }
  g_unlink (json);
  g_unlink (linked);
  g_unlink (report);
  g_rmdir (dir);
  g_free (params);
  g_free (n1);
  g_free (n2);
  g_free (json);
  g_free (linked);
  g_free (report);
  g_free (dir);
}

GST_END_TEST;

static Suite *
axbadinput_suite (void)
{
  Suite *s = suite_create ("axbadinput");
  TCase *tc = tcase_create ("general");

  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_tiny_frames);
  tcase_add_test (tc, test_huge_frame);
  tcase_add_test (tc, test_flood_of_candidates);
  tcase_add_test (tc, test_short_labels_file);
  tcase_add_test (tc, test_empty_labels_file);
  tcase_add_test (tc, test_labels_fifo);
  tcase_add_test (tc, test_labels_endless);
  tcase_add_test (tc, test_model_deleted_while_running);
  tcase_add_test (tc, test_unparsable_tracer_params);
  tcase_add_test (tc, test_tracer_outputs_on_one_file);
  tcase_add_test (tc, test_malformed_tracer_params);
  return s;
}

GST_CHECK_MAIN (axbadinput);
