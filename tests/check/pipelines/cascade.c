/* gst-ax
 * Copyright (C) 2026 gst-ax developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

/* The shipped cascade (issue 13, "The cascade"): BlazeFace finds the
 * faces, axletterbox roi-mode=true crops each one as the emotion model's
 * metadata asks (64x64 gray, square, enlarged), axinference runs the
 * emotion model once per face and axclassify puts the emotion on the
 * face:
 *
 *   filesrc ! jpegdec ! videoconvert ! axletterbox !
 *     axinference model=blazeface ! axnms ! axletterbox roi-mode=true !
 *     axinference model=emotion ! axclassify ! appsink
 *
 * on the six face photos, under the axprof tracer.
 * - Every detected face gets a classification, and the emotion model's
 *   Count (its "host copy in" row: one per job) is the number of faces.
 * - Its top-1 agrees with the float path on the same crops: the input
 *   tensor axletterbox made for each face, dequantised, through the
 *   emotion model's float graph (the compiler's IR executor), on at
 *   least 90 % of the faces whose float top-2 are more than 0.1 apart.
 * - A frame without faces runs no emotion job and gets no
 *   classification.
 *
 * Needs the data dir and the real models; skips cleanly without them.
 * The float graph runs on libsimnpu's internals linked statically, as in
 * real-detection.c: the two copies share no state. */

#include <gst/check/gstcheck.h>
#include <gst/app/gstappsink.h>
#include <gst/ax/ax.h>
#include <json-glib/json-glib.h>
#include <math.h>
#include <string.h>

#include "compiler.h"

#define PULL_TIMEOUT (120 * GST_SECOND)
#define PULL_STEP (GST_SECOND / 2)
#define TEST_TIMEOUT_S 600
#define N_PHOTOS 6
#define EMOTION_MARGIN 0.1
#define EMOTION_AGREEMENT 0.9
/* the photos hold 22 faces (models/faceres.crops); BlazeFace may miss a
 * few, but a cascade over fewer than this proves little */
#define MIN_FACES 15
#define EMOTION_OUTPUT "Identity"
#define CONFIDENCE_TOLERANCE 1e-5
#define BLANK_FRAMES 2

typedef struct
{
  guint faces;                  /* detections at the sink */
  guint classified;             /* of which with a classification */
  guint judged;                 /* float top-2 apart by the margin */
  guint agree;                  /* of which the same top-1 */
  guint64 emotion_count;        /* the report's emotion jobs */
  guint frames;
} Tally;

static const gchar *
data_dir (void)
{
  return g_getenv ("GST_AX_DATA_DIR");
}

static gboolean
have_models (void)
{
  const gchar *dir = g_getenv ("GST_AX_MODEL_PATH");
  gchar *a, *b;
  gboolean ok;

  if (data_dir () == NULL) {
    g_print ("skipped: GST_AX_DATA_DIR is not set\n");
    return FALSE;
  }
  a = g_build_filename (dir ? dir : ".", "blazeface.axm", NULL);
  b = g_build_filename (dir ? dir : ".", "emotion.axm", NULL);
  ok = g_file_test (a, G_FILE_TEST_EXISTS) && g_file_test (b,
      G_FILE_TEST_EXISTS);
  if (!ok)
    g_print ("skipped: %s or %s is missing\n", a, b);
  g_free (a);
  g_free (b);
  return ok;
}

static gfloat *
dequantise (const GstAxTensorMeta * m, gsize * n_out)
{
  gsize n = gst_ax_tensor_meta_n_elements (m), i;
  gfloat *v = g_new (gfloat, n);
  GstMapInfo map;

  fail_unless (gst_buffer_map (m->data, &map, GST_MAP_READ));
  fail_unless (map.size >= gst_ax_tensor_meta_n_bytes (m));
  switch (m->dtype) {
    case GST_AX_TENSOR_DTYPE_U8:
      for (i = 0; i < n; i++)
        v[i] = m->scale * ((gint32) map.data[i] - m->zero_point);
      break;
    case GST_AX_TENSOR_DTYPE_I8:
      for (i = 0; i < n; i++)
        v[i] = m->scale * ((gint32) (gint8) map.data[i] - m->zero_point);
      break;
    case GST_AX_TENSOR_DTYPE_F32:
      memcpy (v, map.data, n * sizeof (gfloat));
      break;
  }
  gst_buffer_unmap (m->data, &map);
  *n_out = n;
  return v;
}

typedef struct
{
  simnpu__ir_graph *g;
  simnpu__ir_exec *x;
  gsize n_input;
  int output;
} FloatModel;

static void
float_model_open (FloatModel * fm)
{
  gchar *path = g_build_filename (data_dir (), "human", "emotion.json",
      NULL);
  simnpu_error error = { 0 };

  memset (fm, 0, sizeof (*fm));
  if (simnpu__import_model (path, NULL, EMOTION_OUTPUT, &fm->g, &error) != 0)
    fail ("%s: %s", path, error.message);
  fm->x = simnpu__ir_exec_new (fm->g, &error);
  fail_unless (fm->x != NULL, "%s", error.message);
  fm->n_input = (gsize) simnpu__ir_tensor_elements (&fm->g->tensors
      [fm->g->inputs[0]]);
  fm->output = simnpu__ir_find_tensor (fm->g, EMOTION_OUTPUT);
  fail_unless (fm->output >= 0);
  g_free (path);
}

static void
float_model_close (FloatModel * fm)
{
  simnpu__ir_exec_free (fm->x);
  simnpu__ir_graph_free (fm->g);
}

/* The float graph's top-1 on @input and the gap to its top-2. */
static guint
float_top (FloatModel * fm, const gfloat * input, gsize n, gdouble * gap)
{
  simnpu_error error = { 0 };
  const gfloat *p;
  gsize k, n_out;
  guint top = 0;
  gfloat first = -G_MAXFLOAT, second = -G_MAXFLOAT;

  fail_unless_equals_uint64 (n, fm->n_input);
  memcpy (simnpu__ir_exec_data (fm->x, fm->g->inputs[0]), input,
      n * sizeof (gfloat));
  if (simnpu__ir_exec_run (fm->x, 0, fm->g->n_nodes, &error) != 0)
    fail ("float graph: %s", error.message);
  p = simnpu__ir_exec_data (fm->x, fm->output);
  n_out = (gsize) simnpu__ir_tensor_elements (&fm->g->tensors[fm->output]);
  for (k = 0; k < n_out; k++) {
    if (p[k] > first) {
      second = first;
      first = p[k];
      top = (guint) k;
    } else if (p[k] > second) {
      second = p[k];
    }
  }
  *gap = first - second;
  return top;
}

/* Checks one frame at the sink: each face classified, by what its own
 * crop gives (the int8 output, decoded here), and the float path. */
static void
check_frame (GstBuffer * buf, FloatModel * fm, Tally * t)
{
  gpointer state = NULL;
  GstAxDetection det;
  GstVideoRegionOfInterestMeta *roi;
  GstAxTensorMeta *in;
  guint n_crops = 0;

  t->frames++;
  while (gst_ax_detection_iterate (buf, &state, &det, &roi)) {
    GstAxClassification c;

    t->faces++;
    fail_unless (gst_ax_detection_get_classification (roi, 0, &c),
        "face %d (%.3f,%.3f) has no classification", roi->id, det.x_min,
        det.y_min);
    t->classified++;
    fail_unless (c.label != NULL && c.label[0] != 'c',
        "face %d classified '%s', not an emotion label", roi->id, c.label);
  }

  state = NULL;
  while ((in = gst_buffer_iterate_ax_tensor_meta (buf, &state,
              GST_AX_TENSOR_ROLE_INPUT))) {
    GstAxTensorMeta *out;
    GstAxClassification c;
    gfloat *x, *q;
    gsize n, nq, k;
    gdouble gap;
    guint ftop, qtop = 0;

    n_crops++;
    fail_unless (in->roi_id != GST_AX_TENSOR_ROI_NONE);
    /* the emotion model's preprocessing: one gray channel */
    fail_unless_equals_int (in->dims[3], 1);
    roi = gst_buffer_get_video_region_of_interest_meta_id (buf, in->roi_id);
    fail_unless (roi != NULL, "crop of region %d, not on the frame",
        in->roi_id);
    /* square crops larger than the face, as the metadata asks (each
     * side rounded on its own: one pixel apart at most) */
    fail_unless (ABS (in->letterbox.src_width - in->letterbox.src_height)
        <= 1 && in->letterbox.src_width >= (gint) MAX (roi->w, roi->h),
        "crop %dx%d of a %ux%u face", in->letterbox.src_width,
        in->letterbox.src_height, roi->w, roi->h);
    out = gst_buffer_get_ax_tensor_meta_by_role (buf,
        GST_AX_TENSOR_ROLE_OUTPUT, in->instance, 0);
    fail_unless (out != NULL && out->roi_id == in->roi_id);
    fail_unless (gst_ax_detection_get_classification (roi, 0, &c));

    /* axclassify's class is the int8 output's best, its probability */
    q = dequantise (out, &nq);
    for (k = 1; k < nq; k++)
      if (q[k] > q[qtop])
        qtop = (guint) k;
    fail_unless_equals_int (c.label_id, qtop);
    fail_unless (fabs (c.confidence - q[qtop]) < CONFIDENCE_TOLERANCE,
        "confidence %g, the output says %g", c.confidence, q[qtop]);
    g_free (q);

    x = dequantise (in, &n);
    ftop = float_top (fm, x, n, &gap);
    g_free (x);
    GST_INFO ("face %d: int8 %u (%.3f), float %u (gap %.3f)", roi->id,
        c.label_id, c.confidence, ftop, gap);
    if (gap > EMOTION_MARGIN) {
      t->judged++;
      t->agree += ftop == c.label_id;
    }
  }
  fail_unless_equals_int (n_crops, gst_ax_detection_count (buf));
}

static GstBusSyncReply
catch_report (GstBus * bus, GstMessage * msg, gpointer user_data)
{
  gchar **json = user_data;
  const GstStructure *s = gst_message_get_structure (msg);

  if (GST_MESSAGE_TYPE (msg) == GST_MESSAGE_ELEMENT && s
      && gst_structure_has_name (s, "axprof-report")) {
    g_free (*json);
    *json = g_strdup (gst_structure_get_string (s, "json"));
  }
  return GST_BUS_PASS;
}

/* JSON times carry 3 decimals */
#define TOTAL_ROUNDING_MS 0.001

/* The Count of the emotion model's per-job row ("host copy in"); 0 when
 * the model ran no job. Checks on the way that the groups are ranked by
 * total and that each group's total is the sum of its rows'. */
static guint64
emotion_count (const gchar * json)
{
  JsonParser *parser = json_parser_new ();
  JsonArray *groups, *rows;
  guint64 count = 0;
  guint i, j;

  fail_unless (json != NULL, "no axprof report");
  fail_unless (json_parser_load_from_data (parser, json, -1, NULL),
      "the report is not JSON: %s", json);
  groups = json_object_get_array_member (json_node_get_object
      (json_parser_get_root (parser)), "groups");
  for (i = 0; groups && i < json_array_get_length (groups); i++) {
    JsonObject *g = json_array_get_object_element (groups, i);
    const gchar *name = json_object_get_string_member (g, "name");
    gdouble total = json_object_get_double_member (g, "total_ms"), sum = 0;

    /* groups are ranked by total, most expensive first */
    if (i > 0)
      fail_unless (total <= json_object_get_double_member
          (json_array_get_object_element (groups, i - 1), "total_ms"),
          "group %s is ranked below a cheaper one", name);
    rows = json_object_get_array_member (g, "rows");
    for (j = 0; rows && j < json_array_get_length (rows); j++)
      sum += json_object_get_double_member (json_array_get_object_element
          (rows, j), "total_ms");
    /* the group's total is the sum of its rows (each row rounded) */
    fail_unless (fabs (total - sum) <= TOTAL_ROUNDING_MS * (j + 1),
        "group %s: total %.3f ms, its rows sum to %.3f ms", name, total, sum);
    /* the group may be scoped under the detector, e.g. blazeface/emotion */
    if (!g_str_has_suffix (name, "emotion"))
      continue;
    for (j = 0; rows && j < json_array_get_length (rows); j++) {
      JsonObject *r = json_array_get_object_element (rows, j);

      if (g_str_equal (json_object_get_string_member (r, "name"),
              "host copy in"))
        count += json_object_get_int_member (r, "count");
    }
    /* every device row of the per-region model counts one call per job,
     * as host copy in does */
    for (j = 0; rows && j < json_array_get_length (rows); j++) {
      JsonObject *r = json_array_get_object_element (rows, j);
      const gchar *row = json_object_get_string_member (r, "name");

      if (g_str_equal (row, "device wait") ||
          g_str_equal (row, "host copy out") || g_str_equal (row, "postamble"))
        fail_unless_equals_int (json_object_get_int_member (r, "count"), count);
    }
  }
  g_object_unref (parser);
  return count;
}

/* Runs @desc (an appsink "sink") to EOS, checking each frame. */
static void
run_cascade (const gchar * desc, FloatModel * fm, Tally * t)
{
  GError *err = NULL;
  GstElement *pipeline = gst_parse_launch (desc, &err);
  GstElement *sink;
  GstBus *bus;
  GstMessage *msg;
  GstClockTime stalled = 0;
  gchar *json = NULL;

  if (pipeline == NULL)
    fail ("%s: %s", desc, err->message);
  GST_INFO ("pipeline: %s", desc);
  bus = gst_element_get_bus (pipeline);
  gst_bus_set_sync_handler (bus, catch_report, &json, NULL);
  sink = gst_bin_get_by_name (GST_BIN (pipeline), "sink");
  fail_unless (gst_element_set_state (pipeline, GST_STATE_PLAYING) !=
      GST_STATE_CHANGE_FAILURE);
  for (;;) {
    GstSample *sample = gst_app_sink_try_pull_sample (GST_APP_SINK (sink),
        PULL_STEP);

    if (sample == NULL) {
      if (gst_app_sink_is_eos (GST_APP_SINK (sink)))
        break;
      msg = gst_bus_pop_filtered (bus, GST_MESSAGE_ERROR);
      if (msg) {
        GError *e = NULL;

        gst_message_parse_error (msg, &e, NULL);
        fail ("pipeline error: %s", e->message);
      }
      stalled += PULL_STEP;
      fail_unless (stalled < PULL_TIMEOUT, "no frame within %"
          GST_TIME_FORMAT, GST_TIME_ARGS (PULL_TIMEOUT));
      continue;
    }
    stalled = 0;
    check_frame (gst_sample_get_buffer (sample), fm, t);
    gst_sample_unref (sample);
  }
  msg = gst_bus_pop_filtered (bus, GST_MESSAGE_ERROR);
  fail_unless (msg == NULL, "pipeline error");
  /* the report is posted at EOS, before the sink's EOS reaches us */
  fail_unless_equals_int (gst_element_set_state (pipeline, GST_STATE_NULL),
      GST_STATE_CHANGE_SUCCESS);
  t->emotion_count += emotion_count (json);
  g_free (json);
  gst_bus_set_sync_handler (bus, NULL, NULL, NULL);
  gst_object_unref (bus);
  gst_object_unref (sink);
  gst_object_unref (pipeline);
}

#define CASCADE_TAIL \
  "axletterbox ! axinference model=blazeface time-scale=0 ! axnms ! " \
  "axletterbox roi-mode=true ! axinference model=emotion time-scale=0 ! " \
  "axclassify keep-tensors=true ! appsink name=sink sync=false"

GST_START_TEST (test_cascade_photos)
{
  FloatModel fm;
  Tally t = { 0 };
  guint i;

  if (!have_models ())
    return;
  float_model_open (&fm);
  for (i = 1; i <= N_PHOTOS; i++) {
    gchar *name = g_strdup_printf ("sample%u.jpg", i);
    gchar *path = g_build_filename (data_dir (), "face-api", name, NULL);
    gchar *desc = g_strdup_printf ("filesrc location=\"%s\" ! jpegdec ! "
        "videoconvert ! " CASCADE_TAIL, path);
    guint before = t.faces;

    run_cascade (desc, &fm, &t);
    g_print ("%s: %u faces\n", name, t.faces - before);
    g_free (desc);
    g_free (path);
    g_free (name);
  }
  float_model_close (&fm);

  g_print ("cascade: %u faces in %u photos, %u classified; the emotion "
      "model ran %" G_GUINT64_FORMAT " jobs; top-1 agrees with the float "
      "path on %u of %u faces (%.1f %%) whose float top-2 are more than "
      "%.1f apart\n", t.faces, t.frames, t.classified, t.emotion_count,
      t.agree, t.judged, t.judged ? 100.0 * t.agree / t.judged : 0.0,
      EMOTION_MARGIN);
  fail_unless_equals_int (t.frames, N_PHOTOS);
  fail_unless (t.faces >= MIN_FACES, "only %u faces", t.faces);
  fail_unless_equals_int (t.classified, t.faces);
  /* the cascade model's Count is the number of detections */
  fail_unless_equals_uint64 (t.emotion_count, t.faces);
  fail_unless (t.judged >= MIN_FACES / 2, "only %u faces judged", t.judged);
  fail_unless ((gdouble) t.agree >= EMOTION_AGREEMENT * t.judged,
      "top-1 agrees on %u of %u", t.agree, t.judged);
}

GST_END_TEST;

/* Frames without a face: the emotion model runs no job, nothing is
 * classified, the frames still arrive and the report holds. */
GST_START_TEST (test_cascade_no_faces)
{
  FloatModel fm;
  Tally t = { 0 };

  if (!have_models ())
    return;
  float_model_open (&fm);
  run_cascade ("videotestsrc pattern=black num-buffers="
      G_STRINGIFY (BLANK_FRAMES) " ! video/x-raw,width=320,height=240 ! "
      CASCADE_TAIL, &fm, &t);
  float_model_close (&fm);
  fail_unless_equals_int (t.frames, BLANK_FRAMES);
  fail_unless_equals_int (t.faces, 0);
  fail_unless_equals_uint64 (t.emotion_count, 0);
}

GST_END_TEST;

/* A crowd: 200 regions on one frame through an emotion model with a
 * window of 4: every region is cropped, inferred and classified, none is
 * dropped, and the model's Count is 200. */
#define CROWD_COLS 20
#define CROWD_ROWS 10
#define CROWD_CELL_W 32
#define CROWD_CELL_H 48
#define CROWD_WINDOW 4

static GstPadProbeReturn
add_crowd (GstPad * pad, GstPadProbeInfo * info, gpointer user_data)
{
  GstBuffer *buf = gst_buffer_make_writable (GST_PAD_PROBE_INFO_BUFFER (info));
  guint r, c;

  for (r = 0; r < CROWD_ROWS; r++)
    for (c = 0; c < CROWD_COLS; c++) {
      GstAxDetection det = { 0, 0.9f,
        (gfloat) c / CROWD_COLS, (gfloat) r / CROWD_ROWS,
        (gfloat) (c + 1) / CROWD_COLS, (gfloat) (r + 1) / CROWD_ROWS,
        "face"
      };

      gst_ax_detection_add (buf, &det, CROWD_COLS * CROWD_CELL_W,
          CROWD_ROWS * CROWD_CELL_H);
    }
  GST_PAD_PROBE_INFO_DATA (info) = buf;
  return GST_PAD_PROBE_OK;
}

GST_START_TEST (test_cascade_crowd)
{
  GError *err = NULL;
  GstElement *pipeline, *sink, *crowd;
  GstPad *pad;
  GstSample *sample;
  GstBuffer *buf;
  GstBus *bus;
  GstMessage *msg;
  gpointer state = NULL;
  GstAxDetection det;
  GstVideoRegionOfInterestMeta *roi;
  gchar *json = NULL, *desc;
  guint n = 0, classified = 0;

  if (!have_models ())
    return;
  desc = g_strdup_printf ("videotestsrc num-buffers=1 ! "
      "video/x-raw,format=RGB,width=%d,height=%d ! identity name=crowd ! "
      "axletterbox roi-mode=true ! axinference model=emotion in-flight=%d "
      "time-scale=0 ! axclassify ! appsink name=sink sync=false",
      CROWD_COLS * CROWD_CELL_W, CROWD_ROWS * CROWD_CELL_H, CROWD_WINDOW);
  pipeline = gst_parse_launch (desc, &err);
  g_free (desc);
  fail_unless (pipeline != NULL, "%s", err ? err->message : "");
  crowd = gst_bin_get_by_name (GST_BIN (pipeline), "crowd");
  pad = gst_element_get_static_pad (crowd, "src");
  gst_pad_add_probe (pad, GST_PAD_PROBE_TYPE_BUFFER, add_crowd, NULL, NULL);
  gst_object_unref (pad);
  gst_object_unref (crowd);
  bus = gst_element_get_bus (pipeline);
  gst_bus_set_sync_handler (bus, catch_report, &json, NULL);
  sink = gst_bin_get_by_name (GST_BIN (pipeline), "sink");
  fail_unless (gst_element_set_state (pipeline, GST_STATE_PLAYING) !=
      GST_STATE_CHANGE_FAILURE);
  sample = gst_app_sink_try_pull_sample (GST_APP_SINK (sink), PULL_TIMEOUT);
  fail_unless (sample != NULL, "the crowd's frame did not arrive");
  buf = gst_sample_get_buffer (sample);
  while (gst_ax_detection_iterate (buf, &state, &det, &roi)) {
    GstAxClassification c;

    n++;
    classified += gst_ax_detection_get_classification (roi, 0, &c);
  }
  gst_sample_unref (sample);
  msg = gst_bus_timed_pop_filtered (bus, PULL_TIMEOUT,
      GST_MESSAGE_EOS | GST_MESSAGE_ERROR);
  fail_unless (msg != NULL && GST_MESSAGE_TYPE (msg) == GST_MESSAGE_EOS,
      "no EOS after the crowd's frame");
  gst_message_unref (msg);
  fail_unless_equals_int (gst_element_set_state (pipeline, GST_STATE_NULL),
      GST_STATE_CHANGE_SUCCESS);
  fail_unless_equals_int (n, CROWD_COLS * CROWD_ROWS);
  fail_unless_equals_int (classified, CROWD_COLS * CROWD_ROWS);
  fail_unless_equals_uint64 (emotion_count (json), CROWD_COLS * CROWD_ROWS);
  g_free (json);
  gst_bus_set_sync_handler (bus, NULL, NULL, NULL);
  gst_object_unref (bus);
  gst_object_unref (sink);
  gst_object_unref (pipeline);
}

GST_END_TEST;

static Suite *
cascade_suite (void)
{
  Suite *s = suite_create ("cascade");
  TCase *tc = tcase_create ("general");

  tcase_set_timeout (tc, TEST_TIMEOUT_S);
  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_cascade_photos);
  tcase_add_test (tc, test_cascade_no_faces);
  tcase_add_test (tc, test_cascade_crowd);
  return s;
}

int
main (int argc, char **argv)
{
  int ret;

  /* the tracer must be named before gst_init; its text report is not
   * wanted here, the JSON rides on the bus */
  g_setenv ("GST_TRACERS", "axprof(print=false)", TRUE);
  gst_check_init (&argc, &argv);
  ret = gst_check_run_suite (cascade_suite (), "cascade", __FILE__);
  return ret;
}
