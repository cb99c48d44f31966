/* gst-ax
 * Copyright (C) 2026 gst-ax developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

/* The front-end step shared by simnpu-compile and the tests: pick the
 * front-end by the file, cut, fold, cancel layout transposes, fuse,
 * prune. */

#include "compiler.h"
#include "simnpu-file.h"

#include <errno.h>
#include <math.h>
#include <string.h>
#include <unistd.h>

/* enough to tell JSON from a protobuf */
#define FORMAT_HEAD_BYTES 64

/* Whether the first bytes of a file open a JSON object (after blanks and
 * a UTF-8 byte order mark); an ONNX model starts with a protobuf tag. */
static gboolean
starts_json (const guint8 * head, gsize len)
{
  static const guint8 bom[] = { 0xef, 0xbb, 0xbf };
  gsize i = 0;

  if (len >= sizeof bom && memcmp (head, bom, sizeof bom) == 0)
    i = sizeof bom;
  while (i < len && (head[i] == ' ' || head[i] == '\t' || head[i] == '\r'
          || head[i] == '\n'))
    i++;
  return i == len || head[i] == '{';
}

simnpu__model_format
simnpu__model_format_of (const char *path)
{
  guint8 head[FORMAT_HEAD_BYTES];
  gchar *text = NULL;
  gsize len = 0;
  gssize n;
  simnpu__model_format k = SIMNPU_MODEL_FORMAT_UNKNOWN;
  int fd;

  if (g_str_has_suffix (path, ".onnx"))
    return SIMNPU_MODEL_FORMAT_ONNX;
  /* a file that is not regular or cannot be read is left to the loader
   * the caller then picks, which says why */
  fd = simnpu__file_open (path, "model", NULL);
  if (fd < 0)
    return SIMNPU_MODEL_FORMAT_UNKNOWN;
  do
    n = read (fd, head, sizeof head);
  while (n < 0 && errno == EINTR);
  close (fd);
  if (n <= 0)
    return SIMNPU_MODEL_FORMAT_UNKNOWN;
  if (!starts_json (head, (gsize) n))
    return SIMNPU_MODEL_FORMAT_ONNX;
  /* JSON: read whole for the key that tells its format */
  if (!simnpu__file_read (path, "model", SIMNPU_FILE_MAX_JSON_BYTES, &text,
          &len, NULL))
    return SIMNPU_MODEL_FORMAT_UNKNOWN;
  if (g_strstr_len (text, len, "\"modelTopology\"") != NULL)
    k = SIMNPU_MODEL_FORMAT_TFJS;
  else if (g_strstr_len (text, len, "\"simnpu-graph\"") != NULL)
    k = SIMNPU_MODEL_FORMAT_SIMNPU_JSON;
  g_free (text);
  return k;
}

/* ------------------------------------------------------------------ */
/* Input shapes (--input-shape) */

#define INPUT_SHAPE_OPTION "--input-shape"

bool
simnpu__input_shape_parse (const char *spec, simnpu__input_shape * out,
    simnpu_error * error)
{
  const char *eq = strrchr (spec, '=');
  const char *dims = eq ? eq + 1 : spec;
  gchar **parts;
  guint n, i;
  bool ok = true;

  memset (out, 0, sizeof *out);
  if (eq == spec) {
    simnpu__set_error (error, SIMNPU_EINVAL, INPUT_SHAPE_OPTION " '%s': "
        "empty input name; expected NAME=DIMS or DIMS, e.g. x=1x3x480x640",
        spec);
    return false;
  }
  parts = g_strsplit (dims, "x", -1);
  n = g_strv_length (parts);
  if (n == 0 || n > SIMNPU_IR_MAX_RANK)
    ok = false;
  for (i = 0; ok && i < n; i++) {
    guint64 v;
    ok = g_ascii_string_to_unsigned (parts[i], 10, 1, SIMNPU_IR_MAX_ELEMENTS,
        &v, NULL);
    out->dims[i] = (int64_t) v;
  }
  g_strfreev (parts);
  if (!ok) {
    simnpu__set_error (error, SIMNPU_EINVAL, INPUT_SHAPE_OPTION " '%s': "
        "expected [NAME=]DIMS, DIMS being 1 to %d sizes of 1 to %"
        G_GINT64_FORMAT " joined by 'x', e.g. x=1x3x480x640", spec,
        SIMNPU_IR_MAX_RANK, SIMNPU_IR_MAX_ELEMENTS);
    return false;
  }
  out->rank = n;
  out->name = eq ? g_strndup (spec, eq - spec) : NULL;
  return true;
}

/* "1x?x?x3": the declared shape, ? for dynamic dims */
static char *
shape_template (unsigned rank, const int64_t * dims)
{
  GString *s = g_string_new (NULL);
  unsigned i;

  for (i = 0; i < rank; i++) {
    if (i)
      g_string_append_c (s, 'x');
    if (dims[i] < 0)
      g_string_append_c (s, '?');
    else
      g_string_append_printf (s, "%" G_GINT64_FORMAT, dims[i]);
  }
  return g_string_free (s, FALSE);
}

int
simnpu__input_shape_resolve (simnpu__input_shapes * shapes,
    unsigned n_model_inputs, const char *input, bool rank_known,
    unsigned *rank, int64_t * dims, simnpu_error * error)
{
  const simnpu__input_shape *given = NULL;
  char *tmpl;
  unsigned i;
  int ret = 0;

  for (i = 0; shapes != NULL && i < shapes->n && given == NULL; i++) {
    const simnpu__input_shape *s = &shapes->items[i];
    if ((s->name && strcmp (s->name, input) == 0)
        || (s->name == NULL && n_model_inputs == 1)) {
      given = s;
      if (i < SIMNPU_IR_MAX_INPUTS)
        shapes->used[i] = true;
    }
  }
  if (given != NULL) {
    if (rank_known && given->rank != *rank) {
      tmpl = shape_template (*rank, dims);
      ret = simnpu__set_error (error, SIMNPU_EINVAL, INPUT_SHAPE_OPTION
          " for input '%s': %u dims, but the model gives it rank %u (%s, ? "
          "for a dynamic dim)", input, given->rank, *rank, tmpl);
      g_free (tmpl);
      return ret;
    }
    for (i = 0; rank_known && i < *rank; i++)
      if (dims[i] >= 0 && dims[i] != given->dims[i]) {
        tmpl = shape_template (*rank, dims);
        ret = simnpu__set_error (error, SIMNPU_EINVAL, INPUT_SHAPE_OPTION
            " for input '%s': dim %u is %" G_GINT64_FORMAT ", but the model "
            "fixes it at %" G_GINT64_FORMAT " (%s, ? for a dynamic dim)",
            input, i, given->dims[i], dims[i], tmpl);
        g_free (tmpl);
        return ret;
      }
    *rank = given->rank;
    memcpy (dims, given->dims, given->rank * sizeof dims[0]);
    return 0;
  }
  if (!rank_known)
    return simnpu__set_error (error, SIMNPU_EINVAL, "input '%s': the "
        "model leaves its rank and shape open; give it with "
        INPUT_SHAPE_OPTION " %s=DIMS", input, input);
  for (i = 0; i < *rank; i++) {
    if (dims[i] >= 0)
      continue;
    if (i == 0) {
      g_message ("input '%s': its batch dim 0 is dynamic; compiled for a "
          "batch of 1 (" INPUT_SHAPE_OPTION " sets another)", input);
      dims[i] = 1;
      continue;
    }
    tmpl = shape_template (*rank, dims);
    ret = simnpu__set_error (error, SIMNPU_EINVAL, "input '%s': dim %u "
        "is dynamic (the model's shape is %s); give the shape to compile "
        "for with " INPUT_SHAPE_OPTION " %s=DIMS", input, i, tmpl, input);
    g_free (tmpl);
    return ret;
  }
  return 0;
}

/* ------------------------------------------------------------------ */
/* Input values (--input-value) */

#define INPUT_VALUE_OPTION "--input-value"

bool
simnpu__input_value_parse (const char *spec, simnpu__input_value * out,
    simnpu_error * error)
{
  const char *eq = strrchr (spec, '=');
  char *end = NULL;
  double v = 0.0;

  memset (out, 0, sizeof *out);
  if (eq != NULL && eq[1] != '\0')
    v = g_ascii_strtod (eq + 1, &end);
  if (eq == NULL || eq == spec || end == NULL || end == eq + 1 || *end != '\0'
      || !isfinite (v)) {
    simnpu__set_error (error, SIMNPU_EINVAL, INPUT_VALUE_OPTION " '%s': "
        "expected NAME=NUMBER, a model input and a finite number, e.g. "
        "downsample_ratio=0.5", spec);
    return false;
  }
  out->name = g_strndup (spec, eq - spec);
  out->value = v;
  return true;
}

const simnpu__input_value *
simnpu__input_value_find (simnpu__input_shapes * shapes, const char *input)
{
  unsigned i;

  for (i = 0; shapes != NULL && i < shapes->n_values; i++)
    if (strcmp (shapes->values[i].name, input) == 0) {
      if (i < SIMNPU_IR_MAX_INPUTS)
        shapes->values_used[i] = true;
      return &shapes->values[i];
    }
  return NULL;
}

static bool
shape_given (const simnpu__input_shapes * shapes, const char *input)
{
  unsigned i;

  for (i = 0; shapes != NULL && i < shapes->n; i++)
    if (shapes->items[i].name && strcmp (shapes->items[i].name, input) == 0)
      return true;
  return false;
}

int
simnpu__input_value_resolve (simnpu__input_shapes * shapes,
    unsigned n_model_inputs, const simnpu__input_value * v,
    simnpu__ir_dtype dtype, bool rank_known, unsigned *rank, int64_t * dims,
    void **data_out, simnpu_error * error)
{
  int64_t k, n = 1;
  unsigned i;
  void *data;
  int ret;

  *data_out = NULL;
  if (!rank_known && !shape_given (shapes, v->name)) {
    *rank = 0;
  } else if ((ret = simnpu__input_shape_resolve (shapes, n_model_inputs,
              v->name, rank_known, rank, dims, error)) < 0) {
    return ret;
  }
  for (i = 0; i < *rank; i++)
    n *= dims[i];
  if (dtype == SIMNPU_IR_F32) {
    float *f = g_new (float, MAX (n, 1));
    for (k = 0; k < n; k++)
      f[k] = (float) v->value;
    data = f;
  } else {
    double lo = dtype == SIMNPU_IR_BOOL || dtype == SIMNPU_IR_U8 ? 0.0 :
        dtype == SIMNPU_IR_I8 ? -128.0 : dtype == SIMNPU_IR_I32 ?
        (double) G_MININT32 : -9.2e18;
    double hi = dtype == SIMNPU_IR_BOOL ? 1.0 : dtype == SIMNPU_IR_U8 ?
        255.0 : dtype == SIMNPU_IR_I8 ? 127.0 : dtype == SIMNPU_IR_I32 ?
        (double) G_MAXINT32 : 9.2e18;
    size_t size = simnpu__ir_dtype_size (dtype);
    if (v->value != floor (v->value) || v->value < lo || v->value > hi)
      return simnpu__set_error (error, SIMNPU_EINVAL, INPUT_VALUE_OPTION
          " %s=%g: the input is %s, which does not hold that value (whole "
          "numbers from %.0f to %.0f)", v->name, v->value,
          simnpu__ir_dtype_name (dtype), lo, hi);
    data = g_malloc (MAX ((size_t) n, 1) * size);
    for (k = 0; k < n; k++) {
      guint8 *p = (guint8 *) data + k * size;
      if (dtype == SIMNPU_IR_I64) {
        int64_t x = (int64_t) v->value;
        memcpy (p, &x, size);
      } else if (dtype == SIMNPU_IR_I32) {
        int32_t x = (int32_t) v->value;
        memcpy (p, &x, size);
      } else if (dtype == SIMNPU_IR_I8) {
        *(int8_t *) p = (int8_t) v->value;
      } else {
        *p = (guint8) v->value;
      }
    }
  }
  *data_out = data;
  return 0;
}

/* "'a', 'b'": the graph's inputs, then the inputs fixed to a value */
static GString *
input_names (const simnpu__input_shapes * shapes, const simnpu__ir_graph * g)
{
  GString *names = g_string_new (NULL);
  unsigned j;

  for (j = 0; j < g->n_inputs; j++)
    g_string_append_printf (names, "%s'%s'", j ? ", " : "",
        g->tensors[g->inputs[j]].name);
  for (j = 0; j < shapes->n_values; j++)
    if (j < SIMNPU_IR_MAX_INPUTS && shapes->values_used[j])
      g_string_append_printf (names, "%s'%s' (fixed by " INPUT_VALUE_OPTION
          ")", names->len ? ", " : "", shapes->values[j].name);
  if (names->len == 0)
    g_string_append (names, "none");
  return names;
}

int
simnpu__input_shapes_check_used (const simnpu__input_shapes * shapes,
    const simnpu__ir_graph * g, simnpu_error * error)
{
  unsigned i;
  GString *names;
  int ret = 0;

  for (i = 0; shapes != NULL && i < shapes->n_values && ret == 0; i++) {
    if (i < SIMNPU_IR_MAX_INPUTS && shapes->values_used[i])
      continue;
    names = input_names (shapes, g);
    ret = simnpu__set_error (error, SIMNPU_EINVAL, INPUT_VALUE_OPTION
        " %s=...: the model has no input of that name (its inputs: %s)",
        shapes->values[i].name, names->str);
    g_string_free (names, TRUE);
  }

  for (i = 0; shapes != NULL && i < shapes->n && ret == 0; i++) {
    if (i < SIMNPU_IR_MAX_INPUTS && shapes->used[i])
      continue;
    names = input_names (shapes, g);
    if (shapes->items[i].name)
      ret = simnpu__set_error (error, SIMNPU_EINVAL, INPUT_SHAPE_OPTION
          " %s=...: the model has no input of that name (its inputs: %s)",
          shapes->items[i].name, names->str);
    else
      ret = simnpu__set_error (error, SIMNPU_EINVAL, INPUT_SHAPE_OPTION
          " without a name is for a model of one input; this one has %u "
          "(%s): give NAME=DIMS", g->n_inputs, names->str);
    g_string_free (names, TRUE);
  }
  return ret;
}

/* ------------------------------------------------------------------ */

/* ------------------------------------------------------------------ */
/* The cut before control flow */

bool *
simnpu__import_data_dependent (const simnpu__ir_graph * g)
{
  bool *dep = g_new0 (bool, MAX (g->n_tensors, 1));
  unsigned i, j;

  for (i = 0; i < g->n_inputs; i++)
    dep[g->inputs[i]] = true;
  for (i = 0; i < g->n_nodes; i++) {
    const simnpu__ir_node *n = &g->nodes[i];
    bool d = false;
    if (n->op != SIMNPU_IR_SHAPE)
      for (j = 0; j < n->n_inputs; j++)
        d |= n->inputs[j] >= 0 && dep[n->inputs[j]];
    for (j = 0; j < n->n_outputs; j++)
      dep[n->outputs[j]] = d;
  }
  return dep;
}

int
simnpu__import_model (const char *path, const char *inputs,
    const char *outputs, simnpu__ir_graph ** out, simnpu_error * error)
{
  return simnpu__import_model_shaped (path, inputs, outputs, NULL, out, error);
}

int
simnpu__import_model_shaped (const char *path, const char *inputs,
    const char *outputs, simnpu__input_shapes * shapes,
    simnpu__ir_graph ** out, simnpu_error * error)
{
  simnpu__model_format k = simnpu__model_format_of (path);
  simnpu__ir_graph *g = NULL;
  int ret;

  *out = NULL;
  if (k == SIMNPU_MODEL_FORMAT_ONNX)
    ret = simnpu__onnx_load_file_shaped (path, shapes, &g, error);
  else if (k == SIMNPU_MODEL_FORMAT_TFJS)
    ret = simnpu__tfjs_load_file_shaped (path, shapes, &g, error);
  else
    return simnpu__set_error (error, SIMNPU_EFORMAT, "%s: not an ONNX model "
        "nor a TF.js graph model (model.json with modelTopology)", path);
  if (ret == 0)
    ret = simnpu__input_shapes_check_used (shapes, g, error);
  if (ret == 0 && inputs)
    ret = simnpu__ir_cut_inputs (g, inputs, error);
  if (ret == 0 && outputs)
    ret = simnpu__ir_cut_outputs (g, outputs, error);
  if (ret == 0)
    ret = simnpu__ir_fold_constants (g, error);
  if (ret == 0)
    ret = simnpu__ir_cancel_transposes (g, error);
  if (ret == 0)
    ret = simnpu__ir_fuse (g, error);
  if (ret == 0)
    ret = simnpu__ir_prune (g, error);
  if (ret < 0) {
    simnpu__ir_graph_free (g);
    return ret;
  }
  *out = g;
  return 0;
}
