/* gst-ax
 * Copyright (C) 2026 gst-ax developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

/* Accuracy of the real detection pipelines (issue 10, "Accuracy,
 * measured"): `axletterbox ! axinference ! axnms` with the shipped real
 * models on held-out media, against the float reference.
 *
 * The float path sees exactly what the int8 model saw: the input tensor
 * axletterbox made for the frame, dequantised with its own scale and zero
 * point, goes through the model's float graph (the compiler's IR
 * executor), whose outputs go through the same decoder code as axnms
 * (gstaxnmsdecode.h, configured from the model's decoder metadata as the
 * element is) and back to frame pixels through the same letterbox
 * geometry (the tensor meta's). So a difference is the int8 model's, or
 * a bug in how the elements use these pieces, never the test's own
 * decoding.
 *
 * - BlazeFace on sample5.jpg and sample6.jpg (held out of calibration).
 * - CenterNet-COCO on vtest.avi frames after the calibration's (it takes
 *   frames 0, 25, ..., 375).
 * - The geometry: NV12, I420 and RGB at 768x576 and upscaled to
 *   1920x1080; the pipeline's ROIs equal its own output tensors decoded
 *   and mapped through its own letterbox, and the 1920x1080 ROIs equal
 *   the 768x576 ones scaled.
 *
 * axnms keeps the tensors on the frame (keep-tensors) so that the appsink
 * sees the input tensor, its letterbox and the outputs beside the ROIs.
 *
 * The float graph runs in this process on libsimnpu's internals (linked
 * statically), while the plugin uses the shared libsimnpu: the two copies
 * share no state and the test hands no object from one to the other. */

#include <gst/check/gstcheck.h>
#include <gst/app/gstappsink.h>
#include <gst/ax/ax.h>
#include <math.h>
#include <string.h>

#include "compiler.h"
#include "gstaxnmsdecode.h"
#include "imageset.h"

/* bounds of what one frame carries */
#define MAX_OUTPUTS GST_AX_NMS_MAX_INPUTS
/* how long the pipeline may make no progress (sanitizer builds are slow) */
#define PULL_TIMEOUT (120 * GST_SECOND)
#define PULL_STEP (GST_SECOND / 2)
#define TEST_TIMEOUT_S 600

/* BlazeFace (issue 10) */
#define FACE_SCORE 0.5
#define FACE_MATCH_IOU 0.8
#define FACE_MAX_SCORE_DELTA 0.15
/* a landmark may be off by this share of its face's width */
#define FACE_LANDMARK_SHARE 0.1
#define FACE_OUTPUTS "Identity,Identity_1,Identity_2,Identity_3"

/* CenterNet-COCO (issue 10) */
#define OBJECT_SCORE 0.4
#define OBJECT_MATCH_IOU 0.5
#define OBJECT_MIN_MATCHED 0.95
#define OBJECT_MAX_EXTRAS 0.05
#define OBJECT_OUTPUTS "tower_0/keypoints,tower_0/wh"

/* The pipeline's ROIs against its own outputs decoded here: the same code
 * on the same bytes, so only float rounding of the normalised ROI
 * coordinates (single precision, times the frame size) may differ. */
#define EXACT_TOLERANCE_PX 1e-3
/* The 1920x1080 run against the 768x576 one: the same picture, but
 * videoscale upscaled it and axletterbox resampled that again, so the
 * tensors differ by resampling. Twins are matched as the float path is
 * (label, IoU, the shares of the CenterNet criterion), for the
 * int8 ROIs and for the float path's boxes. The float path's twins must
 * agree within one cell of the heat-map (the decoder's stride, in tensor
 * pixels): a box placed off by a wrong scale, pad or half-pixel
 * convention in either geometry moves by more at these sizes. The int8
 * twins' edges are reported, not bounded: the int8 regressors turn the
 * resampling difference into more (measured on frame 437: 5.05 px where
 * the float path's boxes move 0.57), which is the quantisation the
 * accuracy test measures, not the geometry. */
/* The input tensor against the compiler's preprocessing of the same RGB
 * picture, in pixel levels: half a level of rounding to the tensor's
 * grid, half a level of a zero point that cannot be the exact mean
 * (BlazeFace's 127.5), and slack for the resamplers' own rounding. */
#define PREPROCESS_MAX_LEVELS 1.5
/* letterbox scales are ratios of integers: exact in double */
#define SCALE_TOLERANCE 1e-12

/* held-out vtest.avi frames: the calibration takes frames 0, 25, ..., 375
 * (16 frames, stride 25); these spread over the rest of the clip (795
 * frames), between the calibration's stride points, so that a person who
 * stays in one place weighs as much as in the clip */
static const guint accuracy_frames[] = { 412, 487, 562, 637, 712, 787 };
static const guint geometry_frames[] = { 437 };

#define VTEST_WIDTH 768
#define VTEST_HEIGHT 576
#define HD_WIDTH 1920
#define HD_HEIGHT 1080

typedef struct
{
  gfloat x0, y0, x1, y1;        /* frame pixels */
  gfloat score;
  guint label;
  guint anchor;                 /* the decoder's: a CenterNet cell */
  guint n_points;
  gfloat points[2 * GST_AX_NMS_MAX_KEYPOINTS];  /* frame pixels */
} Det;

typedef struct
{
  gchar *name;
  guint index;
  guint n_dims;
  gint64 dims[GST_AX_TENSOR_MAX_DIMS];
  gfloat *values;               /* the int8 output, dequantised */
} OutputSpec;

typedef struct
{
  guint number;                 /* in the source */
  gint width, height;
  GstAxLetterboxGeometry lb;
  GstAxTensorDType in_dtype;
  gfloat in_scale;
  gint32 in_zero_point;
  gfloat *input;                /* the input tensor, dequantised */
  gsize n_input;
  guint n_outputs;
  OutputSpec outputs[MAX_OUTPUTS];
  GArray *rois;                 /* Det: what the pipeline attached */
  GArray *redecoded;            /* Det: its own outputs, decoded here */
  GArray *floats;               /* Det: the float path (filled later) */
} Frame;

typedef struct
{
  GPtrArray *frames;            /* Frame */
  gchar *decoder_json;
  GstAxModelPreprocess pp;
  GstAxNmsParams params;
  GstAxNmsWork *work;
  GstAxNmsResult *results;
  guint n_results;
} Run;

static const gchar *
data_dir (void)
{
  return g_getenv ("GST_AX_DATA_DIR");
}

static gchar *
data_file (const gchar * rel)
{
  return g_build_filename (data_dir (), rel, NULL);
}

static gchar *
model_file (const gchar * name)
{
  const gchar *dir = g_getenv ("GST_AX_MODEL_PATH");
  gchar *file = g_strconcat (name, ".axm", NULL);
  gchar *path = g_build_filename (dir ? dir : ".", file, NULL);

  g_free (file);
  return path;
}

/* Whether the data and the models are there; says why not otherwise. */
static gboolean
have_data (const gchar * model, const gchar * media)
{
  gchar *m, *f;
  gboolean ok;

  if (data_dir () == NULL) {
    GST_INFO ("skipped: GST_AX_DATA_DIR is not set (scripts/fetch-data.sh)");
    g_print ("skipped: GST_AX_DATA_DIR is not set\n");
    return FALSE;
  }
  m = model_file (model);
  f = data_file (media);
  ok = g_file_test (m, G_FILE_TEST_EXISTS) &&
      g_file_test (f, G_FILE_TEST_EXISTS);
  if (!ok)
    g_print ("skipped: %s or %s is missing\n", m, f);
  g_free (m);
  g_free (f);
  return ok;
}

static void
frame_free (Frame * f)
{
  guint i;

  g_free (f->input);
  for (i = 0; i < f->n_outputs; i++) {
    g_free (f->outputs[i].name);
    g_free (f->outputs[i].values);
  }
  g_array_free (f->rois, TRUE);
  g_array_free (f->redecoded, TRUE);
  if (f->floats)
    g_array_free (f->floats, TRUE);
  g_free (f);
}

static void
run_free (Run * r)
{
  g_ptr_array_unref (r->frames);
  g_free (r->decoder_json);
  gst_ax_nms_work_free (r->work);
  g_free (r->results);
  g_free (r);
}

/* The figures, for the test log (stdout) and the debug log alike. */
static void
G_GNUC_PRINTF (1, 2)
report (const gchar * format, ...)
{
  va_list args;
  gchar *text;

  va_start (args, format);
  text = g_strdup_vprintf (format, args);
  va_end (args);
  GST_INFO ("%s", text);
  g_print ("%s\n", text);
  g_free (text);
}

/* ------------------------------------------------------------------ */
/* The decoder, as axnms runs it */

/* Decodes a frame's output tensors @metas (sorted by index) with the
 * run's parameters and maps the results to frame pixels through @lb, as
 * axnms does. */
static GArray *
decode_and_map (Run * r, const GstAxTensorMeta * const *metas,
    guint n_metas, const GstAxLetterboxGeometry * lb, gint width, gint height)
{
  GArray *dets = g_array_new (FALSE, TRUE, sizeof (Det));
  GstAxNmsParams params = r->params;
  GstAxNmsInput inputs[GST_AX_NMS_MAX_INPUTS];
  GstMapInfo maps[GST_AX_NMS_MAX_INPUTS];
  guint n_inputs = 0, n, i, k;
  gchar *why = NULL;

  /* what axnms fills in from the geometry (its box-units default: tensor
   * pixels) */
  if (params.input_width == 0 || params.input_height == 0) {
    params.input_width = lb->tensor_width;
    params.input_height = lb->tensor_height;
  }
  params.box_scale_x = 1.0f;
  params.box_scale_y = 1.0f;
  if (!gst_ax_nms_inputs_from_metas (&params, metas, n_metas, inputs,
          &n_inputs, &why))
    fail ("the frame's outputs: %s", why);
  for (i = 0; i < n_inputs; i++) {
    const GstAxTensorMeta *m = metas[inputs[i].meta_index];
    fail_unless (gst_buffer_map (m->data, &maps[i], GST_MAP_READ));
    fail_unless (maps[i].size >= gst_ax_tensor_meta_n_bytes (m));
    inputs[i].data = maps[i].data;
  }
  if (r->n_results < params.max_detections) {
    g_free (r->results);
    r->results = g_new (GstAxNmsResult, params.max_detections);
    r->n_results = params.max_detections;
  }
  n = gst_ax_nms_run_multi (r->work, &params, inputs, n_inputs, r->results,
      params.max_detections);
  for (i = 0; i < n_inputs; i++)
    gst_buffer_unmap (metas[inputs[i].meta_index]->data, &maps[i]);

  for (i = 0; i < n; i++) {
    const GstAxNmsResult *res = &r->results[i];
    gdouble tbox[4] = { res->x0, res->y0, res->x1, res->y1 }, sbox[4];
    Det d = { 0 };

    gst_ax_letterbox_geometry_box_to_source (lb, tbox, sbox, width, height);
    d.x0 = sbox[0];
    d.y0 = sbox[1];
    d.x1 = sbox[2];
    d.y1 = sbox[3];
    d.score = res->score;
    d.label = res->class_id;
    d.anchor = res->anchor;
    d.n_points = res->n_keypoints;
    for (k = 0; k < res->n_keypoints; k++) {
      gdouble sx, sy;
      gst_ax_letterbox_geometry_to_source (lb, res->keypoints[2 * k],
          res->keypoints[2 * k + 1], &sx, &sy);
      d.points[2 * k] = sx;
      d.points[2 * k + 1] = sy;
    }
    g_array_append_val (dets, d);
  }
  return dets;
}

/* ------------------------------------------------------------------ */
/* The pipeline */

typedef struct
{
  const guint *wanted;
  guint n_wanted;
  guint count;                  /* buffers seen */
  guint next;                   /* next wanted */
  GPtrArray *numbers;           /* frame numbers let through, in order */
  GstPad *srcpad;
} Picker;

/* Lets through only the wanted frames; after the last one, ends the
 * stream so that the rest of the file is not decoded. */
static GstPadProbeReturn
pick_frames (GstPad * pad, GstPadProbeInfo * info, gpointer user_data)
{
  Picker *p = user_data;
  guint n;

  if (!(GST_PAD_PROBE_INFO_TYPE (info) & GST_PAD_PROBE_TYPE_BUFFER))
    return GST_PAD_PROBE_OK;
  n = p->count++;
  if (p->next < p->n_wanted && n == p->wanted[p->next]) {
    p->next++;
    g_ptr_array_add (p->numbers, GUINT_TO_POINTER (n));
    return GST_PAD_PROBE_OK;
  }
  if (p->next < p->n_wanted)
    return GST_PAD_PROBE_DROP;
  if (p->next == p->n_wanted) {
    p->next++;
    gst_pad_push_event (p->srcpad, gst_event_new_eos ());
  }
  /* upstream stops decoding */
  gst_buffer_unref (GST_PAD_PROBE_INFO_BUFFER (info));
  GST_PAD_PROBE_INFO_FLOW_RETURN (info) = GST_FLOW_EOS;
  return GST_PAD_PROBE_HANDLED;
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

/* The run's decoder parameters, from the model's metadata as axnms reads
 * it: the model query answered by axinference. */
static void
query_decoder (GstElement * pipeline, Run * r)
{
  GstElement *nms = gst_bin_get_by_name (GST_BIN (pipeline), "nms");
  GstPad *pad = gst_element_get_static_pad (nms, "sink");
  GstQuery *q = gst_ax_model_query_new ();
  gchar *why = NULL;

  fail_unless (gst_pad_peer_query (pad, q), "the model query failed");
  fail_unless (gst_ax_model_query_parse_decoder (q, &r->decoder_json),
      "the model has no decoder metadata");
  fail_unless (gst_ax_model_query_parse_preprocess (q, &r->pp),
      "the model query carries no preprocessing");
  gst_ax_nms_params_init (&r->params);
  if (!gst_ax_nms_params_from_json (&r->params, r->decoder_json, &why))
    fail ("decoder metadata: %s", why);
  gst_query_unref (q);
  gst_object_unref (pad);
  gst_object_unref (nms);
}

static void
frame_from_buffer (Run * r, Frame * f, GstBuffer * buf)
{
  GstAxTensorMeta *in, *m;
  const GstAxTensorMeta *outs[MAX_OUTPUTS];
  guint i, j, k;
  gsize n;
  gpointer state = NULL;
  GstAxDetection det;
  GstVideoRegionOfInterestMeta *roi;

  in = gst_buffer_get_ax_tensor_meta_by_role (buf, GST_AX_TENSOR_ROLE_INPUT,
      0, 0);
  fail_unless (in != NULL, "no input tensor on the frame (keep-tensors)");
  fail_unless (in->has_letterbox);
  fail_unless_equals_int (in->layout, GST_AX_TENSOR_LAYOUT_NHWC);
  f->lb = in->letterbox;
  f->in_dtype = in->dtype;
  f->in_scale = in->scale;
  f->in_zero_point = in->zero_point;
  f->input = dequantise (in, &f->n_input);

  /* by index, as axnms gathers them */
  while ((m = gst_buffer_iterate_ax_tensor_meta (buf, &state,
              GST_AX_TENSOR_ROLE_OUTPUT))) {
    fail_unless (f->n_outputs < MAX_OUTPUTS);
    for (j = f->n_outputs; j > 0 && outs[j - 1]->index > m->index; j--)
      outs[j] = outs[j - 1];
    outs[j] = m;
    f->n_outputs++;
  }
  fail_unless (f->n_outputs > 0, "no output tensors on the frame");
  for (i = 0; i < f->n_outputs; i++) {
    OutputSpec *o = &f->outputs[i];
    o->name = g_strdup (outs[i]->name);
    o->index = outs[i]->index;
    o->n_dims = outs[i]->n_dims;
    memcpy (o->dims, outs[i]->dims, sizeof (o->dims));
    o->values = dequantise (outs[i], &n);
  }

  /* the pipeline's own outputs through the decoder again */
  f->redecoded = decode_and_map (r, outs, f->n_outputs, &f->lb, f->width,
      f->height);

  f->rois = g_array_new (FALSE, TRUE, sizeof (Det));
  state = NULL;
  while (gst_ax_detection_iterate (buf, &state, &det, &roi)) {
    Det d = { 0 };
    gfloat pts[2 * GST_AX_NMS_MAX_KEYPOINTS];
    d.x0 = det.x_min * f->width;
    d.y0 = det.y_min * f->height;
    d.x1 = det.x_max * f->width;
    d.y1 = det.y_max * f->height;
    d.score = det.confidence;
    d.label = det.label_id;
    d.n_points = gst_ax_detection_get_landmarks (roi, pts,
        GST_AX_NMS_MAX_KEYPOINTS);
    fail_unless (d.n_points <= GST_AX_NMS_MAX_KEYPOINTS);
    for (k = 0; k < d.n_points; k++) {
      d.points[2 * k] = pts[2 * k] * f->width;
      d.points[2 * k + 1] = pts[2 * k + 1] * f->height;
    }
    g_array_append_val (f->rois, d);
  }
}

/* Runs @desc (with elements "nms", an appsink "sink" and, with @wanted,
 * an identity "pick" that lets only those frames through) to EOS. */
static Run *
run_pipeline (const gchar * desc, const guint * wanted, guint n_wanted)
{
  GError *err = NULL;
  GstElement *pipeline = gst_parse_launch (desc, &err);
  GstElement *sink;
  GstBus *bus;
  GstMessage *msg;
  GstSample *sample;
  Picker picker = { wanted, n_wanted, 0, 0, NULL, NULL };
  Run *r = g_new0 (Run, 1);
  guint got = 0;
  GstClockTime stalled = 0;

  if (pipeline == NULL)
    fail ("%s: %s", desc, err->message);
  GST_INFO ("pipeline: %s", desc);
  r->frames = g_ptr_array_new_with_free_func ((GDestroyNotify) frame_free);
  r->work = gst_ax_nms_work_new ();
  picker.numbers = g_ptr_array_new ();
  if (wanted) {
    GstElement *pick = gst_bin_get_by_name (GST_BIN (pipeline), "pick");
    GstPad *pad = gst_element_get_static_pad (pick, "sink");
    picker.srcpad = gst_element_get_static_pad (pick, "src");
    gst_pad_add_probe (pad, GST_PAD_PROBE_TYPE_BUFFER, pick_frames, &picker,
        NULL);
    gst_object_unref (pad);
    gst_object_unref (pick);
  }
  sink = gst_bin_get_by_name (GST_BIN (pipeline), "sink");
  fail_unless_equals_int (gst_element_set_state (pipeline, GST_STATE_PLAYING),
      GST_STATE_CHANGE_ASYNC);

  bus = gst_element_get_bus (pipeline);
  for (;;) {
    GstBuffer *buf;
    GstVideoInfo vinfo;
    Frame *f;

    sample = gst_app_sink_try_pull_sample (GST_APP_SINK (sink), PULL_STEP);
    if (sample == NULL) {
      if (gst_app_sink_is_eos (GST_APP_SINK (sink)))
        break;
      /* an error stops the stream without EOS: say it now */
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
    buf = gst_sample_get_buffer (sample);
    f = g_new0 (Frame, 1);

    if (r->decoder_json == NULL)
      query_decoder (pipeline, r);
    fail_unless (gst_video_info_from_caps (&vinfo,
            gst_sample_get_caps (sample)));
    f->width = GST_VIDEO_INFO_WIDTH (&vinfo);
    f->height = GST_VIDEO_INFO_HEIGHT (&vinfo);
    f->number = got < picker.numbers->len ?
        GPOINTER_TO_UINT (g_ptr_array_index (picker.numbers, got)) : got;
    frame_from_buffer (r, f, buf);
    g_ptr_array_add (r->frames, f);
    gst_sample_unref (sample);
    got++;
  }
  msg = gst_bus_pop_filtered (bus, GST_MESSAGE_ERROR);
  if (msg) {
    GError *e = NULL;
    gst_message_parse_error (msg, &e, NULL);
    fail ("pipeline error: %s", e->message);
  }
  gst_object_unref (bus);
  fail_unless_equals_int (gst_element_set_state (pipeline, GST_STATE_NULL),
      GST_STATE_CHANGE_SUCCESS);
  fail_unless (r->frames->len == (wanted ? n_wanted : 1),
      "%u frames at the sink", r->frames->len);
  if (picker.srcpad)
    gst_object_unref (picker.srcpad);
  g_ptr_array_unref (picker.numbers);
  gst_object_unref (sink);
  gst_object_unref (pipeline);
  return r;
}

/* ------------------------------------------------------------------ */
/* The float path */

typedef struct
{
  simnpu__ir_graph *g;
  simnpu__ir_exec *x;
  gsize n_input;
} FloatModel;

static void
float_model_open (FloatModel * fm, const gchar * source, const gchar * outputs)
{
  gchar *rel = g_build_filename ("human", source, NULL);
  gchar *path = data_file (rel);
  simnpu_error error = { 0 };
  const simnpu__ir_tensor *in;

  memset (fm, 0, sizeof (*fm));
  if (simnpu__import_model (path, NULL, outputs, &fm->g, &error) != 0)
    fail ("%s: %s", path, error.message);
  fm->x = simnpu__ir_exec_new (fm->g, &error);
  fail_unless (fm->x != NULL, "%s", error.message);
  in = &fm->g->tensors[fm->g->inputs[0]];
  fm->n_input = (gsize) simnpu__ir_tensor_elements (in);
  g_free (path);
  g_free (rel);
}

static void
float_model_close (FloatModel * fm)
{
  simnpu__ir_exec_free (fm->x);
  simnpu__ir_graph_free (fm->g);
}

/* The float graph on the frame's dequantised input tensor; its outputs
 * (named as the pipeline's) through the decoder and the letterbox. */
static void
float_path (Run * r, FloatModel * fm, Frame * f)
{
  simnpu_error error = { 0 };
  GstAxTensorMeta metas[MAX_OUTPUTS];
  const GstAxTensorMeta *mp[MAX_OUTPUTS];
  guint i;

  fail_unless_equals_uint64 (f->n_input, fm->n_input);
  memcpy (simnpu__ir_exec_data (fm->x, fm->g->inputs[0]), f->input,
      f->n_input * sizeof (gfloat));
  if (simnpu__ir_exec_run (fm->x, 0, fm->g->n_nodes, &error) != 0)
    fail ("float graph: %s", error.message);

  /* the pipeline's output metas, holding the float outputs instead */
  memset (metas, 0, sizeof (metas));
  for (i = 0; i < f->n_outputs; i++) {
    const OutputSpec *o = &f->outputs[i];
    int t = simnpu__ir_find_tensor (fm->g, o->name);
    gsize n;
    fail_unless (t >= 0, "the float graph has no tensor '%s'", o->name);
    metas[i].name = g_intern_string (o->name);
    metas[i].role = GST_AX_TENSOR_ROLE_OUTPUT;
    metas[i].index = o->index;
    metas[i].dtype = GST_AX_TENSOR_DTYPE_F32;
    metas[i].layout = GST_AX_TENSOR_LAYOUT_NHWC;
    metas[i].n_dims = o->n_dims;
    memcpy (metas[i].dims, o->dims, sizeof (o->dims));
    metas[i].scale = 1.0f;
    metas[i].zero_point = 0;
    n = gst_ax_tensor_meta_n_elements (&metas[i]);
    fail_unless_equals_uint64 (n, (guint64)
        simnpu__ir_tensor_elements (&fm->g->tensors[t]));
    metas[i].data = gst_buffer_new_wrapped_full (GST_MEMORY_FLAG_READONLY,
        simnpu__ir_exec_data (fm->x, t), n * sizeof (gfloat), 0,
        n * sizeof (gfloat), NULL, NULL);
    mp[i] = &metas[i];
  }
  f->floats = decode_and_map (r, mp, f->n_outputs, &f->lb, f->width, f->height);
  for (i = 0; i < f->n_outputs; i++)
    gst_buffer_unref (metas[i].data);
}

/* ------------------------------------------------------------------ */
/* Matching */

static gdouble
iou (const Det * a, const Det * b)
{
  gdouble ix = MIN (a->x1, b->x1) - MAX (a->x0, b->x0);
  gdouble iy = MIN (a->y1, b->y1) - MAX (a->y0, b->y0);
  gdouble inter, uni;

  if (ix <= 0.0 || iy <= 0.0)
    return 0.0;
  inter = ix * iy;
  uni = (gdouble) (a->x1 - a->x0) * (a->y1 - a->y0) +
      (gdouble) (b->x1 - b->x0) * (b->y1 - b->y0) - inter;
  return uni > 0.0 ? inter / uni : 0.0;
}

typedef struct
{
  guint ref_total;              /* reference detections at the score */
  guint ref_matched;
  guint got_total;              /* tested detections at the score */
  guint got_extra;              /* of those, matched to no reference */
  gdouble iou_min;
  gdouble score_delta_max;
  gdouble landmark_err_max;     /* frame pixels */
  gdouble landmark_share_max;   /* of the face's width */
} Match;

static void
match_init (Match * m)
{
  memset (m, 0, sizeof (*m));
  m->iou_min = 1.0;
}

/* One-to-one matching of @got to @ref (both best first, as the decoder
 * returns them): each reference detection takes the unmatched tested one
 * of its label with the highest IoU, if at least @min_iou. Counted: the
 * references at @score or above and how many of them matched; the tested
 * detections at @score or above and how many of them matched nothing.
 * Both lists hold everything the decoder kept (its own threshold), so a
 * detection just above @score on one side still matches one just below
 * on the other. */
static void
match (const GArray * ref, const GArray * got, gdouble min_iou,
    gdouble score, Match * m)
{
  gboolean *used = g_new0 (gboolean, got->len + 1);
  guint i, j, k;

  for (i = 0; i < ref->len; i++) {
    const Det *a = &g_array_index (ref, Det, i);
    gdouble best = 0.0;
    gint bj = -1;
    for (j = 0; j < got->len; j++) {
      const Det *b = &g_array_index (got, Det, j);
      gdouble v;
      if (used[j] || b->label != a->label)
        continue;
      v = iou (a, b);
      if (v > best) {
        best = v;
        bj = j;
      }
    }
    if (bj >= 0 && best >= min_iou)
      used[bj] = TRUE;
    else
      bj = -1;
    if (a->score < score)
      continue;
    m->ref_total++;
    if (bj < 0) {
      GST_INFO ("  unmatched reference: label %u score %.3f at "
          "%.1f,%.1f-%.1f,%.1f (best IoU %.3f)", a->label, a->score, a->x0,
          a->y0, a->x1, a->y1, best);
      continue;
    }
    {
      const Det *b = &g_array_index (got, Det, bj);
      m->ref_matched++;
      m->iou_min = MIN (m->iou_min, best);
      m->score_delta_max = MAX (m->score_delta_max, fabs (a->score - b->score));
      if (a->n_points == b->n_points)
        for (k = 0; k < a->n_points; k++) {
          gdouble e = hypot (a->points[2 * k] - b->points[2 * k],
              a->points[2 * k + 1] - b->points[2 * k + 1]);
          m->landmark_err_max = MAX (m->landmark_err_max, e);
          m->landmark_share_max = MAX (m->landmark_share_max,
              e / MAX (a->x1 - a->x0, 1.0f));
      } else
        m->landmark_err_max = m->landmark_share_max = G_MAXDOUBLE;
    }
  }
  for (j = 0; j < got->len; j++) {
    const Det *b = &g_array_index (got, Det, j);
    if (b->score < score)
      continue;
    m->got_total++;
    if (!used[j]) {
      m->got_extra++;
      GST_INFO ("  extra: label %u score %.3f at %.1f,%.1f-%.1f,%.1f",
          b->label, b->score, b->x0, b->y0, b->x1, b->y1);
    }
  }
  g_free (used);
}

/* The ROIs equal the frame's own outputs decoded and mapped here. */
static gdouble
check_exact (const Frame * f)
{
  gdouble worst = 0.0;
  guint i, k;

  fail_unless_equals_int (f->rois->len, f->redecoded->len);
  for (i = 0; i < f->rois->len; i++) {
    const Det *a = &g_array_index (f->rois, Det, i);
    const Det *b = &g_array_index (f->redecoded, Det, i);
    fail_unless_equals_int (a->label, b->label);
    fail_unless (fabs (a->score - b->score) < 1e-6);
    worst = MAX (worst, fabs (a->x0 - b->x0));
    worst = MAX (worst, fabs (a->y0 - b->y0));
    worst = MAX (worst, fabs (a->x1 - b->x1));
    worst = MAX (worst, fabs (a->y1 - b->y1));
    fail_unless_equals_int (a->n_points, b->n_points);
    for (k = 0; k < 2 * a->n_points; k++)
      worst = MAX (worst, fabs (a->points[k] - b->points[k]));
  }
  fail_unless (worst <= EXACT_TOLERANCE_PX, "frame %u: ROI %.4g px away "
      "from its outputs decoded and mapped", f->number, worst);
  return worst;
}

/* ------------------------------------------------------------------ */
/* The input tensor against the compiler's preprocessing */

/* A tensor against another, in pixel levels (0..255 steps) */
typedef struct
{
  gdouble max_levels;
  gdouble mean_levels;
  gdouble bias[3];              /* mean signed difference per channel */
} TensorDiff;

/* Where a difference between the two paths could also come from: the
 * frame's input tensor (axletterbox applying the model's stored
 * preprocessing) against the compiler's own preprocessing of the same
 * decoded picture (simnpu_image_to_tensor(), which calibration used).
 * Both resample bilinearly at half-pixel centres; they differ by the
 * tensor's quantisation and rounding, and for YUV input by the colour
 * conversion. */
static TensorDiff
compare_preprocessing (const Run * r, const Frame * f, const gchar * rel,
    guint frame_number)
{
  gchar *path = data_file (rel);
  GPtrArray *images = g_ptr_array_new_with_free_func ((GDestroyNotify)
      simnpu_image_free);
  const simnpu_image *img;
  simnpu__preprocess pp;
  GError *err = NULL;
  gint tw = f->lb.tensor_width, th = f->lb.tensor_height, px = 0, py = 0;
  guint ch, c;
  gfloat *ref, s = 0.0f;
  gsize i;
  TensorDiff d = { 0.0, 0.0, {0.0, 0.0, 0.0} };

  /* frame 0 and then frame_number, or the photo */
  if (simnpu_imageset_load (path, frame_number ? 2 : 1,
          MAX (frame_number, 1), images, &err) < 0)
    fail ("%s: %s", path, err->message);
  img = g_ptr_array_index (images, images->len - 1);
  fail_unless_equals_int (img->width, f->width);
  fail_unless_equals_int (img->height, f->height);
  memset (&pp, 0, sizeof (pp));
  pp.color = r->pp.color == GST_AX_COLOR_ORDER_BGR ? SIMNPU_COLOR_BGR :
      r->pp.color == GST_AX_COLOR_ORDER_GRAY ? SIMNPU_COLOR_GRAY :
      SIMNPU_COLOR_RGB;
  pp.resize = r->pp.resize == GST_AX_RESIZE_STRETCH ?
      SIMNPU_RESIZE_STRETCH : SIMNPU_RESIZE_LETTERBOX;
  pp.fill = r->pp.fill;
  pp.scale = r->pp.scale;
  for (c = 0; c < 3; c++) {
    pp.mean[c] = r->pp.mean[c];
    pp.std[c] = r->pp.std[c];
  }
  ch = f->n_input / ((gsize) tw * th);
  fail_unless_equals_uint64 ((guint64) ch * tw * th, f->n_input);
  ref = g_new (gfloat, f->n_input);
  fail_unless_equals_int (simnpu_image_to_tensor (img, &pp, tw, th, ch, ref,
          &s, &px, &py), 0);
  /* the same geometry */
  fail_unless_equals_int (px, f->lb.pad_x);
  fail_unless_equals_int (py, f->lb.pad_y);
  for (i = 0; i < f->n_input; i++) {
    gdouble e = fabs ((gdouble) f->input[i] - ref[i]) * pp.std[i % ch] /
        pp.scale;
    d.max_levels = MAX (d.max_levels, e);
    d.mean_levels += e;
    if (i % ch < G_N_ELEMENTS (d.bias))
      d.bias[i % ch] += ((gdouble) f->input[i] - ref[i]) * pp.std[i % ch] /
          pp.scale;
  }
  d.mean_levels /= f->n_input;
  for (c = 0; c < MIN (ch, G_N_ELEMENTS (d.bias)); c++)
    d.bias[c] /= f->n_input / ch;
  g_free (ref);
  g_ptr_array_unref (images);
  g_free (path);
  return d;
}

/* ------------------------------------------------------------------ */
/* BlazeFace */

static const gchar *const face_photos[] = { "sample5.jpg", "sample6.jpg" };

/* BlazeFace is trained on letterboxed faces: the photo scaled by one
 * factor to fit, centred, padded */
static void
check_letterbox_fit (const Frame * f)
{
  const GstAxLetterboxGeometry *lb = &f->lb;
  gdouble fit = MIN ((gdouble) lb->tensor_width / f->width,
      (gdouble) lb->tensor_height / f->height);

  fail_unless (!lb->stretch);
  fail_unless_equals_int (lb->src_width, f->width);
  fail_unless_equals_int (lb->src_height, f->height);
  /* the content is the photo at the fitting scale, rounded to pixels */
  fail_unless (fabs (lb->resized_width - fit * f->width) <= 1.0);
  fail_unless (fabs (lb->resized_height - fit * f->height) <= 1.0);
  fail_unless (lb->resized_width == lb->tensor_width ||
      lb->resized_height == lb->tensor_height);
  /* centred */
  fail_unless (ABS (2 * lb->pad_x + lb->resized_width - lb->tensor_width)
      <= 1);
  fail_unless (ABS (2 * lb->pad_y + lb->resized_height - lb->tensor_height)
      <= 1);
  fail_unless (fabs (lb->scale_x - (gdouble) lb->resized_width / f->width)
      < SCALE_TOLERANCE);
  fail_unless (fabs (lb->scale_y - (gdouble) lb->resized_height / f->height)
      < SCALE_TOLERANCE);
}

GST_START_TEST (test_blazeface_photos)
{
  FloatModel fm;
  Match total;
  TensorDiff pre;
  gdouble pre_max = 0.0, pre_mean = 0.0;
  guint i;

  if (!have_data ("blazeface", "face-api/sample5.jpg"))
    return;
  match_init (&total);
  float_model_open (&fm, "blazeface.json", FACE_OUTPUTS);
  for (i = 0; i < G_N_ELEMENTS (face_photos); i++) {
    gchar *rel = g_build_filename ("face-api", face_photos[i], NULL);
    gchar *path = data_file (rel);
    gchar *desc = g_strdup_printf ("filesrc location=\"%s\" ! jpegdec ! "
        "videoconvert ! video/x-raw,format=RGB ! axletterbox ! "
        "axinference model=blazeface in-flight=1 time-scale=0 ! "
        "axnms name=nms keep-tensors=true ! appsink name=sink sync=false",
        path);
    Run *r = run_pipeline (desc, NULL, 0);
    Frame *f = g_ptr_array_index (r->frames, 0);
    Match m;

    fail_unless_equals_int (r->params.kind, GST_AX_NMS_DECODE_SSD);
    check_letterbox_fit (f);
    check_exact (f);
    pre = compare_preprocessing (r, f, rel, 0);
    report ("blazeface %s: the input tensor (%s, scale %.6f, zero point "
        "%d) against the compiler's preprocessing: mean %.3f, max %.2f "
        "pixel levels", face_photos[i],
        gst_ax_tensor_dtype_to_string (f->in_dtype), f->in_scale,
        f->in_zero_point, pre.mean_levels, pre.max_levels);
    pre_max = MAX (pre_max, pre.max_levels);
    pre_mean = MAX (pre_mean, pre.mean_levels);
    float_path (r, &fm, f);
    match_init (&m);
    match (f->floats, f->rois, FACE_MATCH_IOU, FACE_SCORE, &m);
    report ("blazeface %s (%dx%d, letterbox scale %.4f pad %d,%d): "
        "%u/%u float faces matched, %u extras of %u, IoU min %.3f, "
        "|dscore| max %.3f, landmarks max %.2f px (%.3f of the face)",
        face_photos[i], f->width, f->height, f->lb.scale_x, f->lb.pad_x,
        f->lb.pad_y, m.ref_matched, m.ref_total, m.got_extra, m.got_total,
        m.iou_min, m.score_delta_max, m.landmark_err_max, m.landmark_share_max);
    total.ref_total += m.ref_total;
    total.ref_matched += m.ref_matched;
    total.got_total += m.got_total;
    total.got_extra += m.got_extra;
    total.iou_min = MIN (total.iou_min, m.iou_min);
    total.score_delta_max = MAX (total.score_delta_max, m.score_delta_max);
    total.landmark_err_max = MAX (total.landmark_err_max, m.landmark_err_max);
    total.landmark_share_max = MAX (total.landmark_share_max,
        m.landmark_share_max);
    run_free (r);
    g_free (desc);
    g_free (path);
    g_free (rel);
  }
  float_model_close (&fm);
  report ("blazeface on the held-out photos: %u/%u float faces (score > "
      "%.1f) found at IoU >= %.1f, %u extras, IoU min %.3f, |dscore| max "
      "%.3f, landmark error max %.2f px (%.3f of the face width)",
      total.ref_matched, total.ref_total, FACE_SCORE, FACE_MATCH_IOU,
      total.got_extra, total.iou_min, total.score_delta_max,
      total.landmark_err_max, total.landmark_share_max);
  /* the held-out photos show faces: a model that finds none fails */
  fail_unless (total.ref_total >= G_N_ELEMENTS (face_photos));
  fail_unless_equals_int (total.ref_matched, total.ref_total);
  fail_unless_equals_int (total.got_extra, 0);
  fail_unless (total.iou_min >= FACE_MATCH_IOU);
  fail_unless (total.score_delta_max <= FACE_MAX_SCORE_DELTA);
  fail_unless (total.landmark_share_max <= FACE_LANDMARK_SHARE);
  report ("blazeface input tensors against the compiler's preprocessing: "
      "mean %.3f, max %.2f pixel levels", pre_mean, pre_max);
  fail_unless (pre_max <= PREPROCESS_MAX_LEVELS);
}

GST_END_TEST;

/* ------------------------------------------------------------------ */
/* CenterNet on vtest.avi */

static gchar *
vtest_pipeline (const gchar * format, gint width, gint height)
{
  gchar *path = data_file ("opencv/vtest.avi");
  gchar *desc = g_strdup_printf ("filesrc location=\"%s\" ! decodebin ! "
      "identity name=pick ! videoscale add-borders=false ! videoconvert ! "
      "video/x-raw,format=%s,width=%d,height=%d ! axletterbox ! "
      "axinference model=centernet-coco in-flight=2 time-scale=0 ! "
      "axnms name=nms keep-tensors=true ! appsink name=sink sync=false",
      path, format, width, height);
  g_free (path);
  return desc;
}

static void
match_add (Match * total, const Match * m)
{
  total->ref_total += m->ref_total;
  total->ref_matched += m->ref_matched;
  total->got_total += m->got_total;
  total->got_extra += m->got_extra;
  total->iou_min = MIN (total->iou_min, m->iou_min);
  total->score_delta_max = MAX (total->score_delta_max, m->score_delta_max);
}

/* Where a float CenterNet detection the pipeline lacks went: the int8
 * heat-map (the pipeline's own output tensor) at its cell and around it,
 * against the decoder's threshold; and the nearest ROI of its label. */
static void
explain_misses (const Run * r, const Frame * f)
{
  const OutputSpec *heat = NULL;
  guint i, j;

  for (i = 0; i < f->n_outputs; i++)
    if (g_str_equal (f->outputs[i].name, r->params.input_names[0]))
      heat = &f->outputs[i];
  if (heat == NULL || heat->n_dims != 4)
    return;
  for (i = 0; i < f->floats->len; i++) {
    const Det *a = &g_array_index (f->floats, Det, i);
    gint w = heat->dims[2], h = heat->dims[1], nc = heat->dims[3];
    gint cx = a->anchor % w, cy = a->anchor / w, dx, dy;
    gdouble best = 0.0, around = -G_MAXDOUBLE, here;
    for (j = 0; j < f->rois->len; j++) {
      const Det *b = &g_array_index (f->rois, Det, j);
      if (b->label == a->label)
        best = MAX (best, iou (a, b));
    }
    if (a->score < OBJECT_SCORE || best >= OBJECT_MATCH_IOU)
      continue;
    for (dy = -1; dy <= 1; dy++)
      for (dx = -1; dx <= 1; dx++)
        if (cx + dx >= 0 && cx + dx < w && cy + dy >= 0 && cy + dy < h)
          around = MAX (around, heat->values[((gsize) (cy + dy) * w + cx +
                      dx) * nc + a->label]);
    here = heat->values[(gsize) a->anchor * nc + a->label];
    report ("  frame %u: float label %u score %.3f at %.1f,%.1f-%.1f,%.1f "
        "(cell %d,%d) has no ROI (best IoU %.3f): the int8 heat-map there "
        "is %.3f (%.3f at most around it), decoder threshold %.2f", f->number,
        a->label, a->score, a->x0, a->y0, a->x1, a->y1, cx, cy, best, here,
        around, r->params.score_threshold);
  }
}

/* The float path on every frame of @r, matched against the ROIs. */
static void
centernet_against_float (Run * r, FloatModel * fm, const gchar * what,
    Match * total)
{
  guint i;

  for (i = 0; i < r->frames->len; i++) {
    Frame *f = g_ptr_array_index (r->frames, i);
    Match m;
    float_path (r, fm, f);
    match_init (&m);
    match (f->floats, f->rois, OBJECT_MATCH_IOU, OBJECT_SCORE, &m);
    explain_misses (r, f);
    report ("centernet %s frame %u: %u/%u float detections matched, "
        "%u extras of %u, IoU min %.3f, |dscore| max %.3f", what,
        f->number, m.ref_matched, m.ref_total, m.got_extra, m.got_total,
        m.iou_min, m.score_delta_max);
    match_add (total, &m);
  }
}

GST_START_TEST (test_centernet_vtest)
{
  FloatModel fm;
  Match total;
  gchar *desc;
  Run *r;
  guint i;

  if (!have_data ("centernet-coco", "opencv/vtest.avi"))
    return;
  match_init (&total);
  desc = vtest_pipeline ("I420", VTEST_WIDTH, VTEST_HEIGHT);
  r = run_pipeline (desc, accuracy_frames, G_N_ELEMENTS (accuracy_frames));
  fail_unless_equals_int (r->params.kind, GST_AX_NMS_DECODE_CENTERNET);
  for (i = 0; i < r->frames->len; i++)
    check_exact (g_ptr_array_index (r->frames, i));
  {
    const Frame *f = g_ptr_array_index (r->frames, 0);
    TensorDiff pre = compare_preprocessing (r, f, "opencv/vtest.avi",
        f->number);
    /* YUV: axletterbox converts the I420 frame itself, the compiler's
     * path had videoconvert make RGB: reported, not bounded */
    report ("centernet frame %u (I420): the input tensor against the "
        "compiler's preprocessing of videoconvert's RGB: mean %.3f, max "
        "%.2f pixel levels", f->number, pre.mean_levels, pre.max_levels);
  }
  float_model_open (&fm, "centernet.json", OBJECT_OUTPUTS);
  centernet_against_float (r, &fm, "I420 768x576", &total);
  float_model_close (&fm);
  report ("centernet on %u held-out vtest.avi frames: %u/%u float "
      "detections (score >= %.1f) matched by label at IoU >= %.1f (%.1f %%), "
      "%u/%u extras (%.1f %%), IoU min %.3f, |dscore| max %.3f",
      r->frames->len, total.ref_matched, total.ref_total, OBJECT_SCORE,
      OBJECT_MATCH_IOU, 100.0 * total.ref_matched / MAX (total.ref_total, 1),
      total.got_extra, total.got_total,
      100.0 * total.got_extra / MAX (total.got_total, 1), total.iou_min,
      total.score_delta_max);
  /* people walk through every frame */
  fail_unless (total.ref_total >= r->frames->len);
  fail_unless ((gdouble) total.ref_matched >=
      OBJECT_MIN_MATCHED * total.ref_total);
  fail_unless ((gdouble) total.got_extra <=
      OBJECT_MAX_EXTRAS * total.got_total);
  run_free (r);
  g_free (desc);
}

GST_END_TEST;

/* ------------------------------------------------------------------ */
/* Geometry: formats and sizes */

static const gchar *const geometry_formats[] = { "NV12", "I420", "RGB" };

static void
check_letterbox (const Frame * f)
{
  const GstAxLetterboxGeometry *lb = &f->lb;

  fail_unless_equals_int (lb->src_x, 0);
  fail_unless_equals_int (lb->src_y, 0);
  fail_unless_equals_int (lb->src_width, f->width);
  fail_unless_equals_int (lb->src_height, f->height);
  /* CenterNet is trained on stretched frames */
  fail_unless (lb->stretch);
  fail_unless_equals_int (lb->pad_x, 0);
  fail_unless_equals_int (lb->pad_y, 0);
  fail_unless_equals_int (lb->resized_width, lb->tensor_width);
  fail_unless_equals_int (lb->resized_height, lb->tensor_height);
  fail_unless (fabs (lb->scale_x - (gdouble) lb->tensor_width / f->width)
      < SCALE_TOLERANCE);
  fail_unless (fabs (lb->scale_y - (gdouble) lb->tensor_height / f->height)
      < SCALE_TOLERANCE);
}

/* The ROIs of @hd against those of @sd, the HD ones scaled by the sizes'
 * ratio: matched one to one by label at IoU >= OBJECT_MATCH_IOU as the
 * float path is; counted as in match() (@m), and the largest edge
 * difference of a twin pair in tensor pixels (@worst). */
static void
check_resize (const Run * sd, const Run * hd, gboolean floats,
    const gchar * format, Match * m, gdouble * worst)
{
  gdouble sx = (gdouble) HD_WIDTH / VTEST_WIDTH;
  gdouble sy = (gdouble) HD_HEIGHT / VTEST_HEIGHT;
  guint i, j, k;

  fail_unless_equals_int (sd->frames->len, hd->frames->len);
  for (i = 0; i < sd->frames->len; i++) {
    const Frame *a = g_ptr_array_index (sd->frames, i);
    const Frame *b = g_ptr_array_index (hd->frames, i);
    const GArray *ad = floats ? a->floats : a->rois;
    const GArray *bd = floats ? b->floats : b->rois;
    const gchar *what = floats ? "float box" : "ROI";
    GArray *scaled = g_array_new (FALSE, TRUE, sizeof (Det));
    gboolean *used = g_new0 (gboolean, bd->len + 1);
    fail_unless_equals_int (a->number, b->number);
    for (j = 0; j < bd->len; j++) {
      Det d = g_array_index (bd, Det, j);
      d.x0 /= sx;
      d.x1 /= sx;
      d.y0 /= sy;
      d.y1 /= sy;
      g_array_append_val (scaled, d);
    }
    for (j = 0; j < ad->len; j++) {
      const Det *d = &g_array_index (ad, Det, j);
      gdouble best = 0.0, err = 0.0;
      gint bk = -1;
      for (k = 0; k < scaled->len; k++) {
        const Det *e = &g_array_index (scaled, Det, k);
        gdouble v = (!used[k] && e->label == d->label) ? iou (d, e) : 0.0;
        if (v > best) {
          best = v;
          bk = k;
        }
      }
      if (bk >= 0 && best >= OBJECT_MATCH_IOU) {
        const Det *e = &g_array_index (scaled, Det, bk);
        used[bk] = TRUE;
        err = MAX (MAX (fabs (d->x0 - e->x0), fabs (d->x1 - e->x1)) *
            a->lb.scale_x, MAX (fabs (d->y0 - e->y0),
                fabs (d->y1 - e->y1)) * a->lb.scale_y);
      } else
        bk = -1;
      if (d->score < OBJECT_SCORE)
        continue;
      m->ref_total++;
      if (bk < 0) {
        report ("  %s frame %u: 768x576 %s label %u %.3f at "
            "%.1f,%.1f-%.1f,%.1f has no 1920x1080 twin (best IoU %.3f)",
            format, a->number, what, d->label, d->score, d->x0, d->y0, d->x1,
            d->y1, best);
        continue;
      }
      m->ref_matched++;
      m->iou_min = MIN (m->iou_min, best);
      m->score_delta_max = MAX (m->score_delta_max,
          fabs (d->score - g_array_index (scaled, Det, bk).score));
      if (err > sd->params.stride)
        report ("  %s frame %u: 768x576 %s label %u %.3f at "
            "%.1f,%.1f-%.1f,%.1f: its 1920x1080 twin's edges differ by "
            "%.2f tensor px", format, a->number, what, d->label, d->score,
            d->x0, d->y0, d->x1, d->y1, err);
      *worst = MAX (*worst, err);
    }
    for (k = 0; k < scaled->len; k++) {
      const Det *e = &g_array_index (scaled, Det, k);
      if (e->score < OBJECT_SCORE)
        continue;
      m->got_total++;
      if (!used[k]) {
        m->got_extra++;
        report ("  %s frame %u: 1920x1080 %s label %u %.3f at "
            "%.1f,%.1f-%.1f,%.1f (768x576 pixels) has no 768x576 twin",
            format, a->number, what, e->label, e->score, e->x0, e->y0,
            e->x1, e->y1);
      }
    }
    g_free (used);
    g_array_free (scaled, TRUE);
  }
}

GST_START_TEST (test_centernet_geometry)
{
  FloatModel fm;
  Match total, twins, ftwins;
  guint i, n_frames = 0, stride = 0;
  gdouble exact = 0.0, worst = 0.0, fworst = 0.0;

  if (!have_data ("centernet-coco", "opencv/vtest.avi"))
    return;
  match_init (&total);
  match_init (&twins);
  match_init (&ftwins);
  float_model_open (&fm, "centernet.json", OBJECT_OUTPUTS);
  for (i = 0; i < G_N_ELEMENTS (geometry_formats); i++) {
    const gchar *fmt = geometry_formats[i];
    gchar *sd_desc = vtest_pipeline (fmt, VTEST_WIDTH, VTEST_HEIGHT);
    gchar *hd_desc = vtest_pipeline (fmt, HD_WIDTH, HD_HEIGHT);
    Run *sd = run_pipeline (sd_desc, geometry_frames,
        G_N_ELEMENTS (geometry_frames));
    Run *hd = run_pipeline (hd_desc, geometry_frames,
        G_N_ELEMENTS (geometry_frames));
    Run *runs[2] = { sd, hd };
    Match here, ftwins_here;
    gdouble here_worst = 0.0;
    guint k, j;

    stride = sd->params.stride;
    {
      const Frame *f = g_ptr_array_index (sd->frames, 0);
      TensorDiff pre = compare_preprocessing (sd, f, "opencv/vtest.avi",
          f->number);
      report ("centernet %s 768x576 frame %u: the input tensor against the "
          "compiler's preprocessing of videoconvert's RGB: mean %.3f, max "
          "%.2f pixel levels, mean signed difference per channel %.2f %.2f "
          "%.2f", fmt, f->number, pre.mean_levels, pre.max_levels,
          pre.bias[0], pre.bias[1], pre.bias[2]);
      /* the same RGB pixels: only rounding may differ */
      if (g_str_equal (fmt, "RGB"))
        fail_unless (pre.max_levels <= PREPROCESS_MAX_LEVELS);
    }
    for (k = 0; k < 2; k++)
      for (j = 0; j < runs[k]->frames->len; j++) {
        const Frame *f = g_ptr_array_index (runs[k]->frames, j);
        check_letterbox (f);
        exact = MAX (exact, check_exact (f));
        n_frames++;
      }
    {
      gchar *what = g_strdup_printf ("%s %dx%d", fmt, VTEST_WIDTH,
          VTEST_HEIGHT);
      centernet_against_float (sd, &fm, what, &total);
      g_free (what);
      what = g_strdup_printf ("%s %dx%d", fmt, HD_WIDTH, HD_HEIGHT);
      centernet_against_float (hd, &fm, what, &total);
      g_free (what);
    }
    match_init (&here);
    match_init (&ftwins_here);
    check_resize (sd, hd, TRUE, fmt, &ftwins_here, &fworst);
    match_add (&ftwins, &ftwins_here);
    check_resize (sd, hd, FALSE, fmt, &here, &here_worst);
    report ("centernet %s: %u/%u 768x576 ROIs (score >= %.1f) have a "
        "1920x1080 twin (its ROIs scaled by 1/%.4g x 1/%.4g) at IoU >= %.1f, "
        "%u/%u 1920x1080 ROIs without one; twin IoU min %.3f, edges within "
        "%.2f tensor px, |dscore| max %.3f", fmt, here.ref_matched,
        here.ref_total, OBJECT_SCORE, (gdouble) HD_WIDTH / VTEST_WIDTH,
        (gdouble) HD_HEIGHT / VTEST_HEIGHT, OBJECT_MATCH_IOU, here.got_extra,
        here.got_total, here.iou_min, here_worst, here.score_delta_max);
    match_add (&twins, &here);
    worst = MAX (worst, here_worst);
    run_free (sd);
    run_free (hd);
    g_free (sd_desc);
    g_free (hd_desc);
  }
  float_model_close (&fm);
  report ("geometry over NV12, I420, RGB at 768x576 and 1920x1080 (%u "
      "frames): the letterbox is the frame's stretch exactly; ROIs against "
      "their own outputs decoded and mapped: max %.2g px; against the float "
      "path: %u/%u matched, %u/%u extras, IoU min %.3f; 1920x1080 against "
      "768x576: int8 ROIs %u/%u twins, %u/%u extras, edges within %.2f "
      "tensor px; the float path's boxes %u/%u twins, edges within %.2f "
      "tensor px (tolerance: one heat-map cell, %u px)", n_frames, exact,
      total.ref_matched, total.ref_total, total.got_extra, total.got_total,
      total.iou_min, twins.ref_matched, twins.ref_total, twins.got_extra,
      twins.got_total, worst, ftwins.ref_matched, ftwins.ref_total, fworst,
      stride);
  /* the float comparison's criterion is test_centernet_vtest's; here the
   * mapping, which must not depend on the frame's format or size */
  fail_unless (total.ref_total >= n_frames);
  fail_unless (twins.ref_total >= G_N_ELEMENTS (geometry_formats));
  fail_unless ((gdouble) twins.ref_matched >=
      OBJECT_MIN_MATCHED * twins.ref_total);
  fail_unless ((gdouble) twins.got_extra <=
      OBJECT_MAX_EXTRAS * twins.got_total);
  fail_unless ((gdouble) ftwins.ref_matched >=
      OBJECT_MIN_MATCHED * ftwins.ref_total);
  fail_unless (stride > 0);
  fail_unless (fworst <= stride, "float twin edges %.2f tensor px apart",
      fworst);
}

GST_END_TEST;

static Suite *
real_detection_suite (void)
{
  Suite *s = suite_create ("real-detection");
  TCase *tc = tcase_create ("general");

  /* real models on the simulator: minutes under the sanitizers */
  tcase_set_timeout (tc, TEST_TIMEOUT_S);
  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_blazeface_photos);
  tcase_add_test (tc, test_centernet_vtest);
  tcase_add_test (tc, test_centernet_geometry);
  return s;
}

GST_CHECK_MAIN (real_detection);
