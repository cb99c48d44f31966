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
 * reads, validated (shape, type, quantisation). The members and the
 * shapes that are a decoder's own are read by its row
 * (gstaxnmsdecode-private.h), with the helpers here. */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstaxnmsdecode-private.h"

#include <math.h>
#include <string.h>

/* ------------------------------------------------------------------ */
/* Parameters */

#define DEFAULT_SCORE_THRESHOLD 0.25f
#define DEFAULT_IOU_THRESHOLD 0.45f
#define DEFAULT_MAX_DETECTIONS 300
#define DEFAULT_PEAK_KERNEL 3
#define DEFAULT_TOP_K 100
/* bounds of what metadata may ask for */
#define MAX_DETECTIONS 100000

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

gboolean
gst_ax_nms_decode_fail (gchar ** error, const gchar * fmt, ...)
{
  va_list ap;

  if (error) {
    va_start (ap, fmt);
    *error = g_strdup_vprintf (fmt, ap);
    va_end (ap);
  }
  return FALSE;
}

gboolean
gst_ax_nms_json_node_is_number (JsonNode * n)
{
  GType t;

  if (!JSON_NODE_HOLDS_VALUE (n))
    return FALSE;
  t = json_node_get_value_type (n);
  return t == G_TYPE_INT64 || t == G_TYPE_DOUBLE;
}

/* A number member within [lo, hi]; FALSE with *error if present and bad,
 * TRUE with *found FALSE if absent. */
gboolean
gst_ax_nms_json_get_number (JsonObject * o, const gchar * key, gdouble lo,
    gdouble hi, gdouble * out, gboolean * found, gchar ** error)
{
  JsonNode *n = json_object_get_member (o, key);
  gdouble v;

  *found = FALSE;
  if (n == NULL)
    return TRUE;
  if (!gst_ax_nms_json_node_is_number (n))
    return gst_ax_nms_decode_fail (error,
        "\"%s\" is not a number; expected a number " "from %g to %g", key, lo,
        hi);
  v = json_node_get_double (n);
  if (!(v >= lo && v <= hi))
    return gst_ax_nms_decode_fail (error,
        "\"%s\" is %g; expected a number from %g to " "%g", key, v, lo, hi);
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
    return gst_ax_nms_decode_fail (error,
        "%s is not an integer; expected an integer " "from %u to %u", what, lo,
        hi);
  v = json_node_get_int (n);
  if (v < lo || v > hi)
    return gst_ax_nms_decode_fail (error,
        "%s is %" G_GINT64_FORMAT "; expected an " "integer from %u to %u",
        what, v, lo, hi);
  *out = (guint) v;
  return TRUE;
}

gboolean
gst_ax_nms_json_get_uint (JsonObject * o, const gchar * key, guint lo, guint hi,
    guint * out, gchar ** error)
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

gboolean
gst_ax_nms_json_get_float (JsonObject * o, const gchar * key, gdouble lo,
    gdouble hi, gfloat * out, gchar ** error)
{
  gdouble v;
  gboolean found;

  if (!gst_ax_nms_json_get_number (o, key, lo, hi, &v, &found, error))
    return FALSE;
  if (found)
    *out = (gfloat) v;
  return TRUE;
}

gboolean
gst_ax_nms_json_get_bool (JsonObject * o, const gchar * key, gboolean * out,
    gchar ** error)
{
  JsonNode *n = json_object_get_member (o, key);

  if (n == NULL)
    return TRUE;
  if (!JSON_NODE_HOLDS_VALUE (n)
      || json_node_get_value_type (n) != G_TYPE_BOOLEAN)
    return gst_ax_nms_decode_fail (error,
        "\"%s\" is not a boolean; expected true or " "false", key);
  *out = json_node_get_boolean (n);
  return TRUE;
}

/* A string member; NULL if absent; FALSE if not a string. */
gboolean
gst_ax_nms_json_get_string (JsonObject * o, const gchar * key,
    const gchar ** out, gchar ** error)
{
  JsonNode *n = json_object_get_member (o, key);

  *out = NULL;
  if (n == NULL)
    return TRUE;
  if (!JSON_NODE_HOLDS_VALUE (n)
      || json_node_get_value_type (n) != G_TYPE_STRING)
    return gst_ax_nms_decode_fail (error, "\"%s\" is not a string", key);
  *out = json_node_get_string (n);
  return TRUE;
}

static gboolean
add_input_name (GstAxNmsParams * p, const gchar * key, const gchar * name,
    gchar ** error)
{
  if (name[0] == '\0')
    return gst_ax_nms_decode_fail (error,
        "\"%s\" names an empty output; expected an " "output tensor name", key);
  if (strlen (name) >= GST_AX_NMS_MAX_NAME)
    return gst_ax_nms_decode_fail (error,
        "\"%s\" names an output of %zu bytes; expected " "at most %d", key,
        strlen (name), GST_AX_NMS_MAX_NAME - 1);
  if (p->n_input_names >= GST_AX_NMS_MAX_INPUTS)
    return gst_ax_nms_decode_fail (error,
        "too many outputs named; expected at most %d", GST_AX_NMS_MAX_INPUTS);
  g_strlcpy (p->input_names[p->n_input_names++], name, GST_AX_NMS_MAX_NAME);
  return TRUE;
}

/* A string or an array of strings, appended to the input names; *count
 * says how many (0 if absent). */
gboolean
gst_ax_nms_json_get_names (GstAxNmsParams * p, JsonObject * o,
    const gchar * key, guint * count, gchar ** error)
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
    return gst_ax_nms_decode_fail (error,
        "\"%s\" is neither a string nor an array of "
        "strings; expected output tensor names", key);
  a = json_node_get_array (n);
  if (json_array_get_length (a) == 0)
    return gst_ax_nms_decode_fail (error,
        "\"%s\" is an empty array; expected output " "tensor names", key);
  for (i = 0; i < json_array_get_length (a); i++) {
    JsonNode *e = json_array_get_element (a, i);
    if (!JSON_NODE_HOLDS_VALUE (e)
        || json_node_get_value_type (e) != G_TYPE_STRING)
      return gst_ax_nms_decode_fail (error,
          "\"%s\"[%u] is not a string; expected output " "tensor names", key,
          i);
    if (!add_input_name (p, key, json_node_get_string (e), error))
      return FALSE;
  }
  *count = i;
  return TRUE;
}

/* An array of 1..max unsigned integers within [lo, hi]. */
gboolean
gst_ax_nms_json_get_uint_array (JsonObject * o, const gchar * key, guint lo,
    guint hi, guint max, guint * out, guint * count, gchar ** error)
{
  JsonNode *n = json_object_get_member (o, key);
  JsonArray *a;
  guint i, len;

  *count = 0;
  if (n == NULL)
    return TRUE;
  if (!JSON_NODE_HOLDS_ARRAY (n))
    return gst_ax_nms_decode_fail (error,
        "\"%s\" is not an array; expected 1 to %u " "integers", key, max);
  a = json_node_get_array (n);
  len = json_array_get_length (a);
  if (len < 1 || len > max)
    return gst_ax_nms_decode_fail (error,
        "\"%s\" has %u entries; expected 1 to %u", key, len, max);
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

  if (!gst_ax_nms_json_get_uint_array (o, "input_size", 1, MAX_INPUT_SIZE, 2,
          size, &n, error))
    return FALSE;
  if (n == 0)
    return TRUE;
  if (n != 2)
    return gst_ax_nms_decode_fail (error,
        "\"input_size\" has 1 entry; expected [width, " "height]");
  p->input_width = size[0];
  p->input_height = size[1];
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
  const GstAxNmsDecoder *d;
  gchar *names;
  gboolean ok = FALSE;

  g_return_val_if_fail (decoder_json != NULL, FALSE);

  parser = json_parser_new ();
  if (!json_parser_load_from_data (parser, decoder_json, -1, &err)) {
    gst_ax_nms_decode_fail (error, "invalid JSON: %s", err->message);
    g_error_free (err);
    goto done;
  }
  root = json_parser_get_root (parser);
  if (root == NULL || !JSON_NODE_HOLDS_OBJECT (root)) {
    gst_ax_nms_decode_fail (error,
        "not a JSON object; expected {\"type\": ...}");
    goto done;
  }
  o = json_node_get_object (root);
  if (!gst_ax_nms_json_get_string (o, "type", &type, error))
    goto done;
  if (type == NULL) {
    names = gst_ax_nms_decoder_names ();
    gst_ax_nms_decode_fail (error, "no \"type\"; expected \"type\": %s", names);
    g_free (names);
    goto done;
  }
  if (!gst_ax_nms_decoder_find (type, &p->kind)) {
    names = gst_ax_nms_decoder_names ();
    gst_ax_nms_decode_fail (error,
        "decoder type \"%s\" is not a detector axnms " "decodes; expected %s",
        type, names);
    g_free (names);
    goto done;
  }
  d = gst_ax_nms_decoder_get (p->kind);

  if (!parse_input_size (p, o, error)
      || !gst_ax_nms_json_get_float (o, "score_threshold", 0.0, 1.0,
          &p->score_threshold, error)
      || !gst_ax_nms_json_get_float (o, "iou_threshold", 0.0, 1.0,
          &p->iou_threshold, error)
      || !gst_ax_nms_json_get_uint (o, "max_detections", 1, MAX_DETECTIONS,
          &p->max_detections, error)
      || !gst_ax_nms_json_get_bool (o, "class_agnostic", &p->class_agnostic,
          error))
    goto done;
  if (!gst_ax_nms_json_get_string (o, "suppression", &s, error))
    goto done;
  if (s && g_str_equal (s, "hard"))
    p->suppression = GST_AX_NMS_SUPPRESS_HARD;
  else if (s && g_str_equal (s, "weighted"))
    p->suppression = GST_AX_NMS_SUPPRESS_WEIGHTED;
  else if (s) {
    gst_ax_nms_decode_fail (error,
        "\"suppression\" is \"%s\"; expected \"hard\" or " "\"weighted\"", s);
    goto done;
  }

  p->n_input_names = 0;
  if (!d->parse (p, o, error))
    goto done;
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

gchar *
gst_ax_nms_decode_shape_string (const GstAxTensorMeta * m)
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
guint
gst_ax_nms_decode_inner_dims (const GstAxTensorMeta * m, guint keep,
    const gint64 ** dims)
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
    return gst_ax_nms_decode_fail (error,
        "tensor '%s' is %s; expected int8, uint8 or " "float32", m->name,
        dtype_name (m->dtype));
  if (!(m->scale > 0.0f) || !isfinite (m->scale)
      || !ZERO_POINT_IN_RANGE (m->zero_point)
      || !gst_ax_nms_decode_lut_build (lut, m->dtype, m->scale, m->zero_point))
    return gst_ax_nms_decode_fail (error,
        "tensor '%s' (%s) has quantisation scale %g "
        "and zero point %d; expected a positive scale and a zero point "
        "within +-%d that give 256 distinct finite levels", m->name,
        dtype_name (m->dtype), m->scale, m->zero_point, MAX_ABS_ZERO_POINT);
  return TRUE;
}

void
gst_ax_nms_decode_input_set (GstAxNmsInput * in, const GstAxTensorMeta * m,
    guint meta_index, guint n_anchors, guint n_classes, guint height,
    guint width)
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
  const GstAxNmsDecoder *d = gst_ax_nms_decoder_get (p->kind);
  guint n_need, i, j;

  *n_inputs = 0;
  if (d == NULL)
    return gst_ax_nms_decode_fail (error, "decode kind %d is not one of "
        "axnms's decoders", (gint) p->kind);
  if (!d->count_inputs (p, n_metas, &n_need, error))
    return FALSE;

  if (p->n_input_names) {
    if (p->n_input_names != n_need)
      return gst_ax_nms_decode_fail (error, "%u outputs named; %s reads %u",
          p->n_input_names, d->name, n_need);
    for (i = 0; i < n_need; i++) {
      for (j = 0; j < n_metas; j++)
        if (g_strcmp0 (metas[j]->name, p->input_names[i]) == 0)
          break;
      if (j == n_metas) {
        gchar *names = names_of (metas, n_metas);
        gst_ax_nms_decode_fail (error,
            "the model has no output '%s' (the decoder "
            "metadata names it); its outputs are %s", p->input_names[i], names);
        g_free (names);
        return FALSE;
      }
      picked[i] = metas[j];
      idx[i] = j;
    }
  } else {
    if (n_metas < n_need)
      return gst_ax_nms_decode_fail (error,
          "%s reads %u outputs; the model has %u", d->name, n_need, n_metas);
    for (i = 0; i < n_need; i++) {
      picked[i] = metas[i];
      idx[i] = i;
    }
  }
  for (i = 0; i < n_need; i++)
    if (!check_quant (picked[i], error))
      return FALSE;

  if (!d->bind (p, picked, idx, n_need, inputs, error))
    return FALSE;
  *n_inputs = n_need;
  return TRUE;
}
