/* gst-ax
 * Copyright (C) 2026 gst-ax developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

/* What to decode: the parameters from a model's decoder metadata (JSON)
 * and the binding of a frame's output tensors to the inputs a decoder
 * reads, validated (shape, type, quantisation). */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstaxnmsdecode-private.h"

#include <json-glib/json-glib.h>
#include <math.h>
#include <string.h>

/* keeps every q - zero_point exact in a float */
#define MAX_ABS_ZERO_POINT 65536
/* in range without ABS (), which overflows for G_MININT32 */
#define ZERO_POINT_IN_RANGE(zp) \
  ((zp) >= -MAX_ABS_ZERO_POINT && (zp) <= MAX_ABS_ZERO_POINT)

/* ------------------------------------------------------------------ */
/* Parameters */

#define DEFAULT_SCORE_THRESHOLD 0.25f
#define DEFAULT_IOU_THRESHOLD 0.45f
#define DEFAULT_MAX_DETECTIONS 300
#define DEFAULT_PEAK_KERNEL 3
#define DEFAULT_TOP_K 100
#define DEFAULT_ANCHOR_OFFSET 0.5f
/* bounds of what metadata may ask for */
#define MAX_INPUT_SIZE 16384
#define MAX_STRIDE 1024
#define MAX_ANCHORS_PER_CELL 64
#define MAX_DETECTIONS 100000
/* MediaPipe's SsdAnchorsCalculator: the lowest layer gets three anchors
 * (aspect ratios 1, 2 and 1/2) when reduce_boxes_in_lowest_layer */
#define MEDIAPIPE_LOWEST_LAYER_ANCHORS 3
/* MediaPipe's default interpolated_scale_aspect_ratio: one more anchor
 * per layer */
#define MEDIAPIPE_DEFAULT_INTERPOLATED 1.0
/* the peak test's neighbourhood, the only one implemented */
#define PEAK_KERNEL 3

/**
 * gst_ax_nms_params_init:
 * @params: (out): parameters to set
 *
 * Sets every field to its default: YOLOv8, xywh boxes in tensor pixels,
 * score threshold 0.25, IoU threshold 0.45, 300 detections, per-class
 * hard NMS; CenterNet 3x3 peaks and top 100 with the stride taken from
 * the input size; SSD anchor offsets 0.5 and sigmoid scores.
 */
void
gst_ax_nms_params_init (GstAxNmsParams * p)
{
  memset (p, 0, sizeof (*p));
  p->kind = GST_AX_NMS_DECODE_YOLOV8;
  p->box_format = GST_AX_NMS_BOX_XYWH;
  p->score_threshold = DEFAULT_SCORE_THRESHOLD;
  p->iou_threshold = DEFAULT_IOU_THRESHOLD;
  p->max_detections = DEFAULT_MAX_DETECTIONS;
  p->class_agnostic = FALSE;
  p->box_scale_x = 1.0f;
  p->box_scale_y = 1.0f;
  p->suppression = GST_AX_NMS_SUPPRESS_HARD;
  p->stride = 0;
  p->peak_kernel = DEFAULT_PEAK_KERNEL;
  p->top_k = DEFAULT_TOP_K;
  p->anchor_offset = DEFAULT_ANCHOR_OFFSET;
  p->anchor_offset_y = DEFAULT_ANCHOR_OFFSET;
  p->sigmoid_scores = TRUE;
}

static gboolean
json_fail (gchar ** error, const gchar * fmt, ...)
G_GNUC_PRINTF (2, 3);

     static gboolean json_fail (gchar ** error, const gchar * fmt, ...)
{
  va_list ap;

  if (error) {
    va_start (ap, fmt);
    *error = g_strdup_vprintf (fmt, ap);
    va_end (ap);
  }
  return FALSE;
}

static gboolean
node_is_number (JsonNode * n)
{
  GType t;

  if (!JSON_NODE_HOLDS_VALUE (n))
    return FALSE;
  t = json_node_get_value_type (n);
  return t == G_TYPE_INT64 || t == G_TYPE_DOUBLE;
}

/* A number member within [lo, hi]; FALSE with *error if present and bad,
 * TRUE with *found FALSE if absent. */
static gboolean
get_number (JsonObject * o, const gchar * key, gdouble lo, gdouble hi,
    gdouble * out, gboolean * found, gchar ** error)
{
  JsonNode *n = json_object_get_member (o, key);
  gdouble v;

  *found = FALSE;
  if (n == NULL)
    return TRUE;
  if (!node_is_number (n))
    return json_fail (error, "\"%s\" is not a number; expected a number "
        "from %g to %g", key, lo, hi);
  v = json_node_get_double (n);
  if (!(v >= lo && v <= hi))
    return json_fail (error, "\"%s\" is %g; expected a number from %g to "
        "%g", key, v, lo, hi);
  *out = v;
  *found = TRUE;
  return TRUE;
}

static gboolean
node_to_uint (JsonNode * n, const gchar * what, guint lo, guint hi,
    guint * out, gchar ** error)
{
  gint64 v;

  if (!JSON_NODE_HOLDS_VALUE (n)
      || json_node_get_value_type (n) != G_TYPE_INT64)
    return json_fail (error, "%s is not an integer; expected an integer "
        "from %u to %u", what, lo, hi);
  v = json_node_get_int (n);
  if (v < lo || v > hi)
    return json_fail (error, "%s is %" G_GINT64_FORMAT "; expected an "
        "integer from %u to %u", what, v, lo, hi);
  *out = (guint) v;
  return TRUE;
}

static gboolean
get_uint (JsonObject * o, const gchar * key, guint lo, guint hi, guint * out,
    gchar ** error)
{
  JsonNode *n = json_object_get_member (o, key);
  gchar *what;
  gboolean ok;

  if (n == NULL)
    return TRUE;
  what = g_strdup_printf ("\"%s\"", key);
  ok = node_to_uint (n, what, lo, hi, out, error);
  g_free (what);
  return ok;
}

static gboolean
get_float (JsonObject * o, const gchar * key, gdouble lo, gdouble hi,
    gfloat * out, gchar ** error)
{
  gdouble v;
  gboolean found;

  if (!get_number (o, key, lo, hi, &v, &found, error))
    return FALSE;
  if (found)
    *out = (gfloat) v;
  return TRUE;
}

static gboolean
get_bool (JsonObject * o, const gchar * key, gboolean * out, gchar ** error)
{
  JsonNode *n = json_object_get_member (o, key);

  if (n == NULL)
    return TRUE;
  if (!JSON_NODE_HOLDS_VALUE (n)
      || json_node_get_value_type (n) != G_TYPE_BOOLEAN)
    return json_fail (error, "\"%s\" is not a boolean; expected true or "
        "false", key);
  *out = json_node_get_boolean (n);
  return TRUE;
}

/* A string member; NULL if absent; FALSE if not a string. */
static gboolean
get_string (JsonObject * o, const gchar * key, const gchar ** out,
    gchar ** error)
{
  JsonNode *n = json_object_get_member (o, key);

  *out = NULL;
  if (n == NULL)
    return TRUE;
  if (!JSON_NODE_HOLDS_VALUE (n)
      || json_node_get_value_type (n) != G_TYPE_STRING)
    return json_fail (error, "\"%s\" is not a string", key);
  *out = json_node_get_string (n);
  return TRUE;
}

static gboolean
add_input_name (GstAxNmsParams * p, const gchar * key, const gchar * name,
    gchar ** error)
{
  if (name[0] == '\0')
    return json_fail (error, "\"%s\" names an empty output; expected an "
        "output tensor name", key);
  if (strlen (name) >= GST_AX_NMS_MAX_NAME)
    return json_fail (error, "\"%s\" names an output of %zu bytes; expected "
        "at most %d", key, strlen (name), GST_AX_NMS_MAX_NAME - 1);
  if (p->n_input_names >= GST_AX_NMS_MAX_INPUTS)
    return json_fail (error, "too many outputs named; expected at most %d",
        GST_AX_NMS_MAX_INPUTS);
  g_strlcpy (p->input_names[p->n_input_names++], name, GST_AX_NMS_MAX_NAME);
  return TRUE;
}

/* A string or an array of strings, appended to the input names; *count
 * says how many (0 if absent). */
static gboolean
get_names (GstAxNmsParams * p, JsonObject * o, const gchar * key,
    guint * count, gchar ** error)
{
  JsonNode *n = json_object_get_member (o, key);
  JsonArray *a;
  guint i;

  *count = 0;
  if (n == NULL)
    return TRUE;
  if (JSON_NODE_HOLDS_VALUE (n)
      && json_node_get_value_type (n) == G_TYPE_STRING) {
    *count = 1;
    return add_input_name (p, key, json_node_get_string (n), error);
  }
  if (!JSON_NODE_HOLDS_ARRAY (n))
    return json_fail (error, "\"%s\" is neither a string nor an array of "
        "strings; expected output tensor names", key);
  a = json_node_get_array (n);
  if (json_array_get_length (a) == 0)
    return json_fail (error, "\"%s\" is an empty array; expected output "
        "tensor names", key);
  for (i = 0; i < json_array_get_length (a); i++) {
    JsonNode *e = json_array_get_element (a, i);
    if (!JSON_NODE_HOLDS_VALUE (e)
        || json_node_get_value_type (e) != G_TYPE_STRING)
      return json_fail (error, "\"%s\"[%u] is not a string; expected output "
          "tensor names", key, i);
    if (!add_input_name (p, key, json_node_get_string (e), error))
      return FALSE;
  }
  *count = i;
  return TRUE;
}

/* An array of 1..max unsigned integers within [lo, hi]. */
static gboolean
get_uint_array (JsonObject * o, const gchar * key, guint lo, guint hi,
    guint max, guint * out, guint * count, gchar ** error)
{
  JsonNode *n = json_object_get_member (o, key);
  JsonArray *a;
  guint i, len;

  *count = 0;
  if (n == NULL)
    return TRUE;
  if (!JSON_NODE_HOLDS_ARRAY (n))
    return json_fail (error, "\"%s\" is not an array; expected 1 to %u "
        "integers", key, max);
  a = json_node_get_array (n);
  len = json_array_get_length (a);
  if (len < 1 || len > max)
    return json_fail (error, "\"%s\" has %u entries; expected 1 to %u", key,
        len, max);
  for (i = 0; i < len; i++) {
    gchar *what = g_strdup_printf ("\"%s\"[%u]", key, i);
    gboolean ok = node_to_uint (json_array_get_element (a, i), what, lo, hi,
        &out[i], error);
    g_free (what);
    if (!ok)
      return FALSE;
  }
  *count = len;
  return TRUE;
}

static gboolean
parse_input_size (GstAxNmsParams * p, JsonObject * o, gchar ** error)
{
  guint size[2], n;

  if (!get_uint_array (o, "input_size", 1, MAX_INPUT_SIZE, 2, size, &n, error))
    return FALSE;
  if (n == 0)
    return TRUE;
  if (n != 2)
    return json_fail (error, "\"input_size\" has 1 entry; expected [width, "
        "height]");
  p->input_width = size[0];
  p->input_height = size[1];
  return TRUE;
}

/* The anchors of "anchors": either levels ("strides", "anchors_per_cell",
 * "offset") or MediaPipe's SsdAnchorsCalculatorOptions ("num_layers",
 * "strides", "aspect_ratios", "interpolated_scale_aspect_ratio",
 * "reduce_boxes_in_lowest_layer", "anchor_offset_x", "anchor_offset_y",
 * "fixed_anchor_size"), whose layers of one stride make one level. */
static gboolean
parse_anchors (GstAxNmsParams * p, JsonObject * o, gchar ** error)
{
  guint strides[GST_AX_NMS_MAX_LEVELS * 4], per[GST_AX_NMS_MAX_LEVELS];
  guint n_strides, n_per, num_layers = 0, i;
  gdouble interp = MEDIAPIPE_DEFAULT_INTERPOLATED, dummy;
  gboolean reduce = FALSE, fixed = FALSE, found;
  guint n_ratios = 0;
  JsonNode *ratios;
  gfloat off;

  if (!get_uint_array (o, "strides", 1, MAX_STRIDE,
          G_N_ELEMENTS (strides), strides, &n_strides, error))
    return FALSE;
  if (n_strides == 0)
    return json_fail (error, "\"anchors\" has no \"strides\"; expected the "
        "stride of each anchor layer");

  if (json_object_has_member (o, "anchors_per_cell")) {
    if (!get_uint_array (o, "anchors_per_cell", 1, MAX_ANCHORS_PER_CELL,
            GST_AX_NMS_MAX_LEVELS, per, &n_per, error))
      return FALSE;
    if (n_per != n_strides)
      return json_fail (error, "\"anchors_per_cell\" has %u entries and "
          "\"strides\" %u; expected one per level", n_per, n_strides);
    off = DEFAULT_ANCHOR_OFFSET;
    if (!get_float (o, "offset", 0.0, 1.0, &off, error))
      return FALSE;
    p->n_levels = n_strides;
    for (i = 0; i < n_strides; i++) {
      p->strides[i] = strides[i];
      p->anchors_per_cell[i] = per[i];
    }
    p->anchor_offset = p->anchor_offset_y = off;
    return TRUE;
  }

  /* MediaPipe's options */
  if (!get_uint (o, "num_layers", 1, G_N_ELEMENTS (strides), &num_layers,
          error))
    return FALSE;
  if (num_layers == 0)
    num_layers = n_strides;
  if (num_layers != n_strides)
    return json_fail (error, "\"num_layers\" is %u and \"strides\" has %u "
        "entries; expected one stride per layer", num_layers, n_strides);
  ratios = json_object_get_member (o, "aspect_ratios");
  if (ratios) {
    JsonArray *a;
    if (!JSON_NODE_HOLDS_ARRAY (ratios))
      return json_fail (error, "\"aspect_ratios\" is not an array; "
          "expected numbers");
    a = json_node_get_array (ratios);
    n_ratios = json_array_get_length (a);
    for (i = 0; i < n_ratios; i++)
      if (!node_is_number (json_array_get_element (a, i))
          || !(json_array_get_double_element (a, i) > 0))
        return json_fail (error, "\"aspect_ratios\"[%u] is not a positive "
            "number", i);
  }
  if (!get_number (o, "interpolated_scale_aspect_ratio", 0.0, G_MAXFLOAT,
          &interp, &found, error))
    return FALSE;
  if (!get_bool (o, "reduce_boxes_in_lowest_layer", &reduce, error)
      || !get_bool (o, "fixed_anchor_size", &fixed, error))
    return FALSE;
  if (!fixed)
    return json_fail (error, "\"fixed_anchor_size\" is not true; axnms "
        "decodes anchors of one fixed size (regressors in input pixels), "
        "expected \"fixed_anchor_size\": true");
  if (json_object_has_member (o, "feature_map_width")
      || json_object_has_member (o, "feature_map_height"))
    return json_fail (error, "\"feature_map_width\" / \"feature_map_height\" "
        "are not supported; the grids are the input size over the strides, "
        "rounded up");
  off = DEFAULT_ANCHOR_OFFSET;
  if (!get_float (o, "anchor_offset_x", 0.0, 1.0, &off, error))
    return FALSE;
  p->anchor_offset = off;
  off = DEFAULT_ANCHOR_OFFSET;
  if (!get_float (o, "anchor_offset_y", 0.0, 1.0, &off, error))
    return FALSE;
  p->anchor_offset_y = off;
  /* the scales only size the anchors, which fixed_anchor_size ignores */
  if (!get_number (o, "min_scale", 0.0, G_MAXFLOAT, &dummy, &found, error)
      || !get_number (o, "max_scale", 0.0, G_MAXFLOAT, &dummy, &found, error))
    return FALSE;
  {
    guint in_w = 0, in_h = 0;
    if (!get_uint (o, "input_size_width", 1, MAX_INPUT_SIZE, &in_w, error)
        || !get_uint (o, "input_size_height", 1, MAX_INPUT_SIZE, &in_h, error))
      return FALSE;
    if (in_w)
      p->input_width = in_w;
    if (in_h)
      p->input_height = in_h;
  }

  p->n_levels = 0;
  for (i = 0; i < num_layers; i++) {
    guint n = (reduce && i == 0) ? MEDIAPIPE_LOWEST_LAYER_ANCHORS :
        n_ratios + (interp > 0.0 ? 1 : 0);

    if (n == 0)
      return json_fail (error, "layer %u has no anchors; expected "
          "\"aspect_ratios\" or \"interpolated_scale_aspect_ratio\" > 0", i);
    if (p->n_levels > 0 && p->strides[p->n_levels - 1] == strides[i]) {
      p->anchors_per_cell[p->n_levels - 1] += n;
    } else {
      if (p->n_levels == GST_AX_NMS_MAX_LEVELS)
        return json_fail (error, "more than %d distinct strides",
            GST_AX_NMS_MAX_LEVELS);
      p->strides[p->n_levels] = strides[i];
      p->anchors_per_cell[p->n_levels] = n;
      p->n_levels++;
    }
  }
  return TRUE;
}

/**
 * gst_ax_nms_params_from_json:
 * @params: parameters to update
 * @decoder_json: the model's decoder metadata, a JSON object
 * @error: (out) (optional): what was wrong, to free with g_free()
 *
 * Reads "type" (yolov8, yolov5, centernet, ssd) and the members of that
 * decoder (see docs/elements-nms-inference.md). On failure @params may be
 * partly updated.
 *
 * Returns: %FALSE for malformed or unsupported metadata
 */
gboolean
gst_ax_nms_params_from_json (GstAxNmsParams * p, const gchar * decoder_json,
    gchar ** error)
{
  JsonParser *parser;
  JsonNode *root;
  JsonObject *o;
  GError *err = NULL;
  const gchar *type, *s;
  gboolean ok = FALSE;
  guint n;

  g_return_val_if_fail (decoder_json != NULL, FALSE);

  parser = json_parser_new ();
  if (!json_parser_load_from_data (parser, decoder_json, -1, &err)) {
    json_fail (error, "invalid JSON: %s", err->message);
    g_error_free (err);
    goto done;
  }
  root = json_parser_get_root (parser);
  if (root == NULL || !JSON_NODE_HOLDS_OBJECT (root)) {
    json_fail (error, "not a JSON object; expected {\"type\": ...}");
    goto done;
  }
  o = json_node_get_object (root);
  if (!get_string (o, "type", &type, error))
    goto done;
  if (type == NULL) {
    json_fail (error, "no \"type\"; expected \"type\": \"yolov8\", "
        "\"yolov5\", \"centernet\" or \"ssd\"");
    goto done;
  }
  if (g_str_equal (type, "yolov8"))
    p->kind = GST_AX_NMS_DECODE_YOLOV8;
  else if (g_str_equal (type, "yolov5"))
    p->kind = GST_AX_NMS_DECODE_YOLOV5;
  else if (g_str_equal (type, "centernet"))
    p->kind = GST_AX_NMS_DECODE_CENTERNET;
  else if (g_str_equal (type, "ssd"))
    p->kind = GST_AX_NMS_DECODE_SSD;
  else {
    json_fail (error, "decoder type \"%s\" is not a detector axnms "
        "decodes; expected \"yolov8\", \"yolov5\", \"centernet\" or "
        "\"ssd\"", type);
    goto done;
  }

  if (!parse_input_size (p, o, error)
      || !get_float (o, "score_threshold", 0.0, 1.0, &p->score_threshold, error)
      || !get_float (o, "iou_threshold", 0.0, 1.0, &p->iou_threshold, error)
      || !get_uint (o, "max_detections", 1, MAX_DETECTIONS,
          &p->max_detections, error)
      || !get_bool (o, "class_agnostic", &p->class_agnostic, error))
    goto done;
  if (!get_string (o, "suppression", &s, error))
    goto done;
  if (s && g_str_equal (s, "hard"))
    p->suppression = GST_AX_NMS_SUPPRESS_HARD;
  else if (s && g_str_equal (s, "weighted"))
    p->suppression = GST_AX_NMS_SUPPRESS_WEIGHTED;
  else if (s) {
    json_fail (error, "\"suppression\" is \"%s\"; expected \"hard\" or "
        "\"weighted\"", s);
    goto done;
  }

  p->n_input_names = 0;
  switch (p->kind) {
    case GST_AX_NMS_DECODE_YOLOV8:
    case GST_AX_NMS_DECODE_YOLOV5:
      if (!get_names (p, o, "output", &n, error))
        goto done;
      if (n > 1) {
        json_fail (error, "\"output\" names %u tensors; expected the one "
            "head", n);
        goto done;
      }
      if (!get_string (o, "box_format", &s, error))
        goto done;
      if (s && g_str_equal (s, "xywh"))
        p->box_format = GST_AX_NMS_BOX_XYWH;
      else if (s && g_str_equal (s, "ltrb"))
        p->box_format = GST_AX_NMS_BOX_LTRB;
      else if (s) {
        json_fail (error, "\"box_format\" is \"%s\"; expected \"xywh\" or "
            "\"ltrb\"", s);
        goto done;
      }
      break;
    case GST_AX_NMS_DECODE_CENTERNET:{
      guint nh, nb;
      if (!get_names (p, o, "heatmap", &nh, error)
          || !get_names (p, o, "boxes", &nb, error))
        goto done;
      if (nh > 1 || nb > 1 || nh != nb) {
        json_fail (error, "\"heatmap\" and \"boxes\" name %u and %u "
            "tensors; expected one each (or neither, for the outputs in "
            "order)", nh, nb);
        goto done;
      }
      if (!get_uint (o, "stride", 1, MAX_STRIDE, &p->stride, error)
          || !get_uint (o, "peak_kernel", 1, PEAK_KERNEL, &p->peak_kernel,
              error)
          || !get_uint (o, "top_k", 1, MAX_TOP_K, &p->top_k, error))
        goto done;
      if (p->peak_kernel != PEAK_KERNEL) {
        json_fail (error, "\"peak_kernel\" is %u; expected %d (a 3x3 peak "
            "test)", p->peak_kernel, PEAK_KERNEL);
        goto done;
      }
      break;
    }
    case GST_AX_NMS_DECODE_SSD:{
      JsonNode *an = json_object_get_member (o, "anchors");
      guint ns, nb;
      if (an == NULL || !JSON_NODE_HOLDS_OBJECT (an)) {
        json_fail (error, "no \"anchors\" object; expected the anchor "
            "options (\"strides\", ...)");
        goto done;
      }
      if (!parse_anchors (p, json_node_get_object (an), error))
        goto done;
      if (!get_names (p, o, "scores", &ns, error)
          || !get_names (p, o, "boxes", &nb, error))
        goto done;
      if (ns != nb) {
        json_fail (error, "\"scores\" names %u tensors and \"boxes\" %u; "
            "expected as many of each", ns, nb);
        goto done;
      }
      if (!get_uint (o, "keypoints", 0, GST_AX_NMS_MAX_KEYPOINTS,
              &p->n_keypoints, error))
        goto done;
      if (!get_string (o, "score_activation", &s, error))
        goto done;
      if (s && g_str_equal (s, "sigmoid"))
        p->sigmoid_scores = TRUE;
      else if (s && g_str_equal (s, "none"))
        p->sigmoid_scores = FALSE;
      else if (s) {
        json_fail (error, "\"score_activation\" is \"%s\"; expected "
            "\"sigmoid\" or \"none\"", s);
        goto done;
      }
      break;
    }
  }
  ok = TRUE;

done:
  g_object_unref (parser);
  return ok;
}

/* ------------------------------------------------------------------ */
/* Inputs */

static const gchar *
dtype_name (GstAxTensorDType dtype)
{
  return gst_ax_tensor_dtype_to_string (dtype);
}

/**
 * gst_ax_nms_input_from_meta:
 * @meta: a model output tensor
 * @kind: how to read it
 * @input: (out): the validated view
 * @error: (out) (optional): what was wrong, to free with g_free()
 *
 * Returns: %FALSE if the tensor cannot be decoded as @kind
 */
gboolean
gst_ax_nms_input_from_meta (const GstAxTensorMeta * meta,
    GstAxNmsDecodeKind kind, GstAxNmsInput * input, gchar ** error)
{
  gint64 rows, cols;
  guint lead = 0, i;
  gfloat lut[LUT_SIZE];

  /* leading 1s are batch dimensions of size one */
  while (meta->n_dims - lead > 2 && meta->dims[lead] == 1)
    lead++;
  if (meta->n_dims - lead != 2) {
    GString *s = g_string_new (NULL);
    for (i = 0; i < meta->n_dims; i++)
      g_string_append_printf (s, "%s%" G_GINT64_FORMAT, i ? ", " : "",
          meta->dims[i]);
    if (error)
      *error = g_strdup_printf ("tensor '%s' has shape [%s]; expected "
          "%s", meta->name, s->str, kind == GST_AX_NMS_DECODE_YOLOV8 ?
          "[1, 4 + classes, anchors]" : "[1, anchors, 5 + classes]");
    g_string_free (s, TRUE);
    return FALSE;
  }
  rows = meta->dims[lead];
  cols = meta->dims[lead + 1];

  if (kind == GST_AX_NMS_DECODE_YOLOV8) {
    if (rows <= YOLOV8_BOX_VALUES || cols < 1 || cols > G_MAXINT32) {
      if (error)
        *error = g_strdup_printf ("tensor '%s' is [%" G_GINT64_FORMAT ", %"
            G_GINT64_FORMAT "]; yolov8 expects [4 + classes, anchors] with "
            "at least one class and one anchor", meta->name, rows, cols);
      return FALSE;
    }
    input->n_classes = rows - YOLOV8_BOX_VALUES;
    input->n_anchors = cols;
  } else {
    if (cols <= YOLOV5_CLASS_OFFSET || rows < 1 || rows > G_MAXINT32) {
      if (error)
        *error = g_strdup_printf ("tensor '%s' is [%" G_GINT64_FORMAT ", %"
            G_GINT64_FORMAT "]; yolov5 expects [anchors, 5 + classes] with "
            "at least one class and one anchor", meta->name, rows, cols);
      return FALSE;
    }
    input->n_classes = cols - YOLOV5_CLASS_OFFSET;
    input->n_anchors = rows;
  }

  input->dtype = meta->dtype;
  input->scale = meta->scale;
  input->zero_point = meta->zero_point;
  if (meta->dtype != GST_AX_TENSOR_DTYPE_F32) {
    if (!(meta->scale > 0.0f) || !isfinite (meta->scale)
        || !ZERO_POINT_IN_RANGE (meta->zero_point)
        || !gst_ax_nms_decode_lut_build (lut, meta->dtype, meta->scale,
            meta->zero_point)) {
      if (error)
        *error = g_strdup_printf ("tensor '%s' (%s) has quantisation scale "
            "%g and zero point %d; expected a positive scale and a zero "
            "point within +-%d that give 256 distinct finite levels",
            meta->name, dtype_name (meta->dtype), meta->scale,
            meta->zero_point, MAX_ABS_ZERO_POINT);
      return FALSE;
    }
  }
  input->data = NULL;
  return TRUE;
}

static gchar *
shape_string (const GstAxTensorMeta * m)
{
  GString *s = g_string_new ("[");
  guint i;

  for (i = 0; i < m->n_dims; i++)
    g_string_append_printf (s, "%s%" G_GINT64_FORMAT, i ? ", " : "",
        m->dims[i]);
  g_string_append_c (s, ']');
  return g_string_free (s, FALSE);
}

/* The dims after leading batch dimensions of 1, keeping at least @keep. */
static guint
inner_dims (const GstAxTensorMeta * m, guint keep, const gint64 ** dims)
{
  guint lead = 0;

  while (m->n_dims - lead > keep && m->dims[lead] == 1)
    lead++;
  *dims = m->dims + lead;
  return m->n_dims - lead;
}

static gboolean
check_quant (const GstAxTensorMeta * m, gchar ** error)
{
  gfloat lut[LUT_SIZE];

  if (m->dtype == GST_AX_TENSOR_DTYPE_F32)
    return TRUE;
  if (m->dtype != GST_AX_TENSOR_DTYPE_I8 && m->dtype != GST_AX_TENSOR_DTYPE_U8)
    return json_fail (error, "tensor '%s' is %s; expected int8, uint8 or "
        "float32", m->name, dtype_name (m->dtype));
  if (!(m->scale > 0.0f) || !isfinite (m->scale)
      || !ZERO_POINT_IN_RANGE (m->zero_point)
      || !gst_ax_nms_decode_lut_build (lut, m->dtype, m->scale, m->zero_point))
    return json_fail (error, "tensor '%s' (%s) has quantisation scale %g "
        "and zero point %d; expected a positive scale and a zero point "
        "within +-%d that give 256 distinct finite levels", m->name,
        dtype_name (m->dtype), m->scale, m->zero_point, MAX_ABS_ZERO_POINT);
  return TRUE;
}

static void
input_set (GstAxNmsInput * in, const GstAxTensorMeta * m, guint meta_index,
    guint n_anchors, guint n_classes, guint height, guint width)
{
  in->data = NULL;
  in->dtype = m->dtype;
  in->scale = m->scale;
  in->zero_point = m->zero_point;
  in->n_anchors = n_anchors;
  in->n_classes = n_classes;
  in->height = height;
  in->width = width;
  in->meta_index = meta_index;
}

static gchar *
names_of (const GstAxTensorMeta * const *metas, guint n)
{
  GString *s = g_string_new (NULL);
  guint i;

  for (i = 0; i < n; i++)
    g_string_append_printf (s, "%s'%s'", i ? ", " : "", metas[i]->name);
  if (n == 0)
    g_string_append (s, "none");
  return g_string_free (s, FALSE);
}

static guint64
ssd_total_anchors (const GstAxNmsParams * p)
{
  guint64 total = 0;
  guint l;

  for (l = 0; l < p->n_levels; l++)
    total += (guint64) ssd_grid (p->input_width, p->strides[l]) *
        ssd_grid (p->input_height, p->strides[l]) * p->anchors_per_cell[l];
  return total;
}

static const gchar *
kind_name (GstAxNmsDecodeKind kind)
{
  switch (kind) {
    case GST_AX_NMS_DECODE_YOLOV8:
      return "yolov8";
    case GST_AX_NMS_DECODE_YOLOV5:
      return "yolov5";
    case GST_AX_NMS_DECODE_CENTERNET:
      return "centernet";
    case GST_AX_NMS_DECODE_SSD:
      return "ssd";
  }
  return "unknown";
}

/**
 * gst_ax_nms_inputs_from_metas:
 * @params: the decoder
 * @metas: (array length=n_metas): a frame's output tensors, in the
 *   model's order
 * @n_metas: their number
 * @inputs: (out caller-allocates) (array fixed-size=8): the inputs the
 *   decoder reads, data unset (map metas[inputs[i].meta_index])
 * @n_inputs: (out): how many
 * @error: (out) (optional): what was wrong, to free with g_free()
 *
 * Returns: %FALSE if a named output is missing or a tensor does not have
 *   the shape, type or quantisation the decoder reads
 */
gboolean
gst_ax_nms_inputs_from_metas (const GstAxNmsParams * p,
    const GstAxTensorMeta * const *metas, guint n_metas,
    GstAxNmsInput * inputs, guint * n_inputs, gchar ** error)
{
  const GstAxTensorMeta *picked[GST_AX_NMS_MAX_INPUTS];
  guint idx[GST_AX_NMS_MAX_INPUTS];
  guint n_need, i, j;

  *n_inputs = 0;
  switch (p->kind) {
    case GST_AX_NMS_DECODE_YOLOV8:
    case GST_AX_NMS_DECODE_YOLOV5:
      n_need = 1;
      break;
    case GST_AX_NMS_DECODE_CENTERNET:
      n_need = 2;
      break;
    default:
      if (p->n_input_names)
        n_need = p->n_input_names;
      else
        n_need = MIN (n_metas, GST_AX_NMS_MAX_INPUTS);
      if (n_need == 0 || n_need % 2 != 0)
        return json_fail (error, "ssd reads a score tensor and a box tensor "
            "per group of anchors; got %u tensors", n_need);
      break;
  }

  if (p->n_input_names) {
    if (p->n_input_names != n_need)
      return json_fail (error, "%u outputs named; %s reads %u",
          p->n_input_names, kind_name (p->kind), n_need);
    for (i = 0; i < n_need; i++) {
      for (j = 0; j < n_metas; j++)
        if (g_strcmp0 (metas[j]->name, p->input_names[i]) == 0)
          break;
      if (j == n_metas) {
        gchar *names = names_of (metas, n_metas);
        json_fail (error, "the model has no output '%s' (the decoder "
            "metadata names it); its outputs are %s", p->input_names[i], names);
        g_free (names);
        return FALSE;
      }
      picked[i] = metas[j];
      idx[i] = j;
    }
  } else {
    if (n_metas < n_need)
      return json_fail (error, "%s reads %u outputs; the model has %u",
          kind_name (p->kind), n_need, n_metas);
    for (i = 0; i < n_need; i++) {
      picked[i] = metas[i];
      idx[i] = i;
    }
  }
  for (i = 0; i < n_need; i++)
    if (!check_quant (picked[i], error))
      return FALSE;

  if (p->kind == GST_AX_NMS_DECODE_YOLOV8
      || p->kind == GST_AX_NMS_DECODE_YOLOV5) {
    if (!gst_ax_nms_input_from_meta (picked[0], p->kind, &inputs[0], error))
      return FALSE;
    inputs[0].height = inputs[0].width = 0;
    inputs[0].meta_index = idx[0];
    *n_inputs = 1;
    return TRUE;
  }

  if (p->kind == GST_AX_NMS_DECODE_CENTERNET) {
    const gint64 *hd, *bd;
    guint nh = inner_dims (picked[0], 3, &hd);
    guint nb = inner_dims (picked[1], 3, &bd);
    gchar *hs = shape_string (picked[0]), *bs = shape_string (picked[1]);
    gboolean ok = TRUE;

    if (nh != 3 || hd[0] < 1 || hd[1] < 1 || hd[2] < 1
        || hd[0] * hd[1] * hd[2] > G_MAXINT32)
      ok = json_fail (error, "heat-map '%s' has shape %s; expected [1, "
          "height, width, classes]", picked[0]->name, hs);
    else if (nb != 3 || bd[0] != hd[0] || bd[1] != hd[1]
        || bd[2] != CENTERNET_BOX_VALUES)
      ok = json_fail (error, "box tensor '%s' has shape %s; expected [1, "
          "%" G_GINT64_FORMAT ", %" G_GINT64_FORMAT ", 4] (left, top, "
          "right, bottom per cell of heat-map '%s' %s)", picked[1]->name, bs,
          hd[0], hd[1], picked[0]->name, hs);
    else if (centernet_stride (p, hd[1]) == 0)
      ok = json_fail (error, "no stride for heat-map '%s' %s; expected "
          "\"stride\" in the metadata or an input width that is a multiple "
          "of the grid width (input width %u)", picked[0]->name, hs,
          p->input_width);
    g_free (hs);
    g_free (bs);
    if (!ok)
      return FALSE;
    input_set (&inputs[0], picked[0], idx[0], hd[0] * hd[1], hd[2], hd[0],
        hd[1]);
    input_set (&inputs[1], picked[1], idx[1], hd[0] * hd[1],
        CENTERNET_BOX_VALUES, hd[0], hd[1]);
    *n_inputs = 2;
    return TRUE;
  }

  /* SSD */
  {
    const guint k = n_need / 2;
    guint64 total = 0, expect;

    if (p->n_levels == 0 || p->input_width == 0 || p->input_height == 0)
      return json_fail (error, "ssd needs anchor levels and the input size; "
          "expected \"anchors\" and \"input_size\" in the metadata");
    for (i = 0; i < k; i++) {
      const gint64 *sd, *rd;
      guint ns = inner_dims (picked[i], 2, &sd);
      guint nr = inner_dims (picked[k + i], 2, &rd);
      gchar *ss = shape_string (picked[i]), *rs = shape_string (picked[k + i]);
      gint64 na = sd[0], nc = ns == 2 ? sd[1] : 1;
      gboolean ok = TRUE;

      if (ns > 2 || na < 1 || nc < 1 || na > G_MAXINT32 || nc > G_MAXINT32)
        ok = json_fail (error, "score tensor '%s' has shape %s; expected "
            "[1, anchors, classes]", picked[i]->name, ss);
      else if (nr != 2 || rd[0] != na
          || rd[1] < SSD_BOX_VALUES + 2 * (gint64) p->n_keypoints
          || rd[1] > G_MAXINT32)
        ok = json_fail (error, "box tensor '%s' has shape %s; expected [1, "
            "%" G_GINT64_FORMAT ", %u or more] (box centre and size, then "
            "%u keypoints, per anchor of score tensor '%s' %s)",
            picked[k + i]->name, rs, na, SSD_BOX_VALUES + 2 * p->n_keypoints,
            p->n_keypoints, picked[i]->name, ss);
      g_free (ss);
      g_free (rs);
      if (!ok)
        return FALSE;
      input_set (&inputs[i], picked[i], idx[i], na, nc, 0, 0);
      input_set (&inputs[k + i], picked[k + i], idx[k + i], na, rd[1], 0, 0);
      total += na;
    }
    expect = ssd_total_anchors (p);
    if (total != expect)
      return json_fail (error, "the score tensors hold %" G_GUINT64_FORMAT
          " anchors; the anchor options give %" G_GUINT64_FORMAT " for a "
          "%ux%u input", total, expect, p->input_width, p->input_height);
    *n_inputs = n_need;
    return TRUE;
  }
}
