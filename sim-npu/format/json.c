/* gst-ax
 * Copyright (C) 2026 gst-ax developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

/* The JSON graph source format (docs/models.md describes it). Every
 * member is checked for presence and type; errors name the JSON path. */

#include "format-private.h"
#include "simnpu-file.h"

#include <json-glib/json-glib.h>
#include <math.h>
#include <string.h>

#define GRAPH_FORMAT "simnpu-graph"
#define GRAPH_VERSION 1
#define U8_TO_I8_ZP 128
#define MAX_JSON_BYTES ((size_t) 1 << 30)

typedef struct
{
  simnpu__graph *g;
  GArray *tensors;
  GArray *ops;
  GHashTable *by_name;
  const char *base_dir;
  const char *weights_file;
  guint8 *sidecar;
  gsize sidecar_bytes;
  simnpu_error *error;
} loader;

static int
fail (loader * l, int code, const char *path, const char *what)
{
  return simnpu__set_error (l->error, code, "%s: %s", path, what);
}

static JsonObject *
get_object (JsonObject * o, const char *member)
{
  JsonNode *n = json_object_get_member (o, member);
  return n && JSON_NODE_HOLDS_OBJECT (n) ? json_node_get_object (n) : NULL;
}

static JsonArray *
get_array (JsonObject * o, const char *member)
{
  JsonNode *n = json_object_get_member (o, member);
  return n && JSON_NODE_HOLDS_ARRAY (n) ? json_node_get_array (n) : NULL;
}

static const char *
get_string (JsonObject * o, const char *member)
{
  JsonNode *n = json_object_get_member (o, member);
  if (n == NULL || !JSON_NODE_HOLDS_VALUE (n)
      || json_node_get_value_type (n) != G_TYPE_STRING)
    return NULL;
  return json_node_get_string (n);
}

static bool
get_number (JsonObject * o, const char *member, double *out)
{
  JsonNode *n = json_object_get_member (o, member);
  GType t;
  if (n == NULL || !JSON_NODE_HOLDS_VALUE (n))
    return false;
  t = json_node_get_value_type (n);
  if (t == G_TYPE_INT64)
    *out = (double) json_node_get_int (n);
  else if (t == G_TYPE_DOUBLE)
    *out = json_node_get_double (n);
  else
    return false;
  return isfinite (*out);
}

static bool
get_int (JsonObject * o, const char *member, int64_t min, int64_t max,
    int64_t * out)
{
  JsonNode *n = json_object_get_member (o, member);
  int64_t v;
  if (n == NULL || !JSON_NODE_HOLDS_VALUE (n)
      || json_node_get_value_type (n) != G_TYPE_INT64)
    return false;
  v = json_node_get_int (n);
  if (v < min || v > max)
    return false;
  *out = v;
  return true;
}

/* Reads an array of up to max integers in [min, max_v]. */
static int
get_int_array (loader * l, JsonObject * o, const char *member,
    const char *path, unsigned min_len, unsigned max_len, int64_t min_v,
    int64_t max_v, int64_t * out, unsigned *len)
{
  JsonArray *a = get_array (o, member);
  char p[512];
  unsigned i, n;

  snprintf (p, sizeof (p), "%s.%s", path, member);
  if (a == NULL)
    return fail (l, SIMNPU_EFORMAT, p, "missing or not an array");
  n = json_array_get_length (a);
  if (n < min_len || n > max_len) {
    char msg[128];
    snprintf (msg, sizeof (msg), "%u elements; expected %u to %u", n,
        min_len, max_len);
    return fail (l, SIMNPU_EFORMAT, p, msg);
  }
  for (i = 0; i < n; i++) {
    JsonNode *e = json_array_get_element (a, i);
    int64_t v;
    if (!JSON_NODE_HOLDS_VALUE (e)
        || json_node_get_value_type (e) != G_TYPE_INT64)
      return fail (l, SIMNPU_EFORMAT, p, "elements must be integers");
    v = json_node_get_int (e);
    if (v < min_v || v > max_v) {
      char msg[128];
      snprintf (msg, sizeof (msg), "element %u = %" G_GINT64_FORMAT
          " out of range [%" G_GINT64_FORMAT ", %" G_GINT64_FORMAT "]", i,
          (gint64) v, (gint64) min_v, (gint64) max_v);
      return fail (l, SIMNPU_EFORMAT, p, msg);
    }
    out[i] = v;
  }
  *len = n;
  return 0;
}

static int
parse_dtype (const char *s, bool allow_i32)
{
  if (s == NULL)
    return -1;
  if (strcmp (s, "u8") == 0)
    return SIMNPU_DTYPE_U8;
  if (strcmp (s, "i8") == 0)
    return SIMNPU_DTYPE_I8;
  if (strcmp (s, "f32") == 0)
    return SIMNPU_DTYPE_F32;
  if (allow_i32 && strcmp (s, "i32") == 0)
    return SIMNPU__DTYPE_I32;
  return -1;
}

static unsigned
add_tensor (loader * l, const char *name, simnpu__tensor_kind kind)
{
  simnpu__tensor t = { 0 };

  t.name = g_strdup (name);
  t.kind = kind;
  t.dtype = SIMNPU_DTYPE_I8;
  t.io_dtype = SIMNPU_DTYPE_I8;
  t.scale = 1.0f;
  t.layout = SIMNPU_LAYOUT_NHWC;
  g_array_append_val (l->tensors, t);
  g_hash_table_insert (l->by_name, t.name, GUINT_TO_POINTER (l->tensors->len));
  return l->tensors->len - 1;
}

static int
lookup (loader * l, const char *name)
{
  gpointer v = g_hash_table_lookup (l->by_name, name);
  return v ? (int) GPOINTER_TO_UINT (v) - 1 : -1;
}

static simnpu__tensor *
tensor_at (loader * l, unsigned i)
{
  return &g_array_index (l->tensors, simnpu__tensor, i);
}

/* {"base64": "..."} or {"offset": N, "size": M} into the sidecar. */
static int
read_data (loader * l, JsonObject * o, const char *path, void **data,
    size_t *size)
{
  const char *b64 = get_string (o, "base64");
  char p[512];
  int64_t off, sz;

  snprintf (p, sizeof (p), "%s", path);
  if (b64 != NULL) {
    gsize n = 0;
    *data = g_base64_decode (b64, &n);
    *size = n;
    return 0;
  }
  if (!get_int (o, "offset", 0, G_MAXINT64, &off)
      || !get_int (o, "size", 0, G_MAXINT64, &sz))
    return fail (l, SIMNPU_EFORMAT, p,
        "expected {\"base64\": string} or {\"offset\": int >= 0, "
        "\"size\": int >= 0} into the weights file");
  if (l->weights_file == NULL)
    return fail (l, SIMNPU_EFORMAT, p,
        "offset/size given but the graph has no \"weights_file\"");
  if (l->sidecar == NULL) {
    GError *err = NULL;
    /* the model's own folder only: a hostile graph could name any file of
     * the user's and carry its bytes into the compiled model */
    char *file = simnpu__file_resolve_inside (l->base_dir, l->weights_file,
        "weights_file", &err);
    if (file == NULL || !simnpu__file_read (file, "weights_file",
            SIMNPU_FILE_MAX_WEIGHTS_BYTES, (gchar **) & l->sidecar,
            &l->sidecar_bytes, &err)) {
      int ret = simnpu__set_error (l->error, file == NULL
          && err->code == G_FILE_ERROR_ACCES ? SIMNPU_EFORMAT : SIMNPU_EIO,
          "%s", err->message);
      g_error_free (err);
      g_free (file);
      return ret;
    }
    g_free (file);
  }
  if ((uint64_t) off > l->sidecar_bytes
      || (uint64_t) sz > l->sidecar_bytes - (uint64_t) off) {
    char msg[160];
    snprintf (msg, sizeof (msg), "range [%" G_GINT64_FORMAT ", +%"
        G_GINT64_FORMAT ") is outside the %zu-byte weights file",
        (gint64) off, (gint64) sz, (size_t) l->sidecar_bytes);
    return fail (l, SIMNPU_EFORMAT, p, msg);
  }
  *data = g_memdup2 (l->sidecar + off, (gsize) sz);
  *size = (size_t) sz;
  return 0;
}

static int
read_quant (loader * l, JsonObject * o, const char *path, int io_dtype,
    simnpu__tensor * t, bool required)
{
  double scale = 1.0;
  int64_t zp = 0;
  int64_t zmin = io_dtype == SIMNPU_DTYPE_U8 ? 0 : -128;
  int64_t zmax = io_dtype == SIMNPU_DTYPE_U8 ? 255 : 127;
  char p[512];

  if (json_object_has_member (o, "scale")) {
    snprintf (p, sizeof (p), "%s.scale", path);
    if (!get_number (o, "scale", &scale) || !(scale > 0.0))
      return fail (l, SIMNPU_EFORMAT, p, "expected a positive number");
  } else if (required) {
    snprintf (p, sizeof (p), "%s.scale", path);
    return fail (l, SIMNPU_EFORMAT, p, "missing; expected a positive number");
  }
  if (json_object_has_member (o, "zero_point")) {
    snprintf (p, sizeof (p), "%s.zero_point", path);
    if (!get_int (o, "zero_point", zmin, zmax, &zp))
      return fail (l, SIMNPU_EFORMAT, p, io_dtype == SIMNPU_DTYPE_U8 ?
          "expected an integer in [0, 255] for u8" :
          "expected an integer in [-128, 127]");
  }
  t->scale = (float) scale;
  /* internally every activation is int8: u8 data is shifted by 128 */
  t->zero_point = (int32_t) (io_dtype == SIMNPU_DTYPE_U8 ?
      zp - U8_TO_I8_ZP : zp);
  return 0;
}

static int
parse_io (loader * l, JsonObject * o, const char *path, bool is_input,
    unsigned *out_index)
{
  const char *name = get_string (o, "name");
  const char *dtype_s = get_string (o, "dtype");
  const char *layout_s = get_string (o, "layout");
  int dtype = parse_dtype (dtype_s, false);
  int64_t dims[SIMNPU_MAX_DIMS];
  unsigned n = 0, idx;
  simnpu__tensor *t;
  char p[512];
  int ret;

  if (name == NULL || name[0] == '\0' || strlen (name) >= SIMNPU_MAX_NAME_BYTES)
    return fail (l, SIMNPU_EFORMAT, path, "\"name\" missing or not a "
        "non-empty string under 256 bytes");
  if (lookup (l, name) >= 0)
    return fail (l, SIMNPU_EFORMAT, path, "duplicate tensor name");
  snprintf (p, sizeof (p), "%s.dtype", path);
  if (dtype < 0)
    return fail (l, SIMNPU_EFORMAT, p, "expected \"u8\", \"i8\" or \"f32\"");
  if (is_input || json_object_has_member (o, "shape")) {
    if ((ret = get_int_array (l, o, "shape", path, 1, SIMNPU_MAX_DIMS, 1,
                SIMNPU_MAX_TENSOR_ELEMENTS, dims, &n)) < 0)
      return ret;
  }
  idx = add_tensor (l, name, is_input ? SIMNPU_TENSOR_INPUT :
      SIMNPU_TENSOR_OUTPUT);
  t = tensor_at (l, idx);
  t->io_dtype = dtype;
  t->n_dims = n;
  memcpy (t->dims, dims, n * sizeof (int64_t));
  if (layout_s != NULL) {
    snprintf (p, sizeof (p), "%s.layout", path);
    if (strcmp (layout_s, "NHWC") == 0)
      t->layout = SIMNPU_LAYOUT_NHWC;
    else if (strcmp (layout_s, "NCHW") == 0)
      t->layout = SIMNPU_LAYOUT_NCHW;
    else
      return fail (l, SIMNPU_EFORMAT, p, "expected \"NHWC\" or \"NCHW\"");
  }
  if ((ret = read_quant (l, o, path, dtype == SIMNPU_DTYPE_F32 ?
              SIMNPU_DTYPE_I8 : dtype, t, false)) < 0)
    return ret;
  if (json_object_has_member (o, "row_scales")) {
    JsonArray *rows = get_array (o, "row_scales");
    unsigned i, nr;
    snprintf (p, sizeof (p), "%s.row_scales", path);
    if (is_input || dtype != SIMNPU_DTYPE_F32)
      return fail (l, SIMNPU_EFORMAT, p, "only f32 outputs have row scales");
    nr = rows ? json_array_get_length (rows) : 0;
    if (nr < 1 || nr > SIMNPU_MAX_ROW_SCALES)
      return fail (l, SIMNPU_EFORMAT, p, "expected an array of 1 to 65536 "
          "positive numbers, one per index of axis 1");
    t->channel_scales = g_new (float, nr);
    t->n_channel_scales = nr;
    for (i = 0; i < nr; i++) {
      JsonNode *e = json_array_get_element (rows, i);
      double v = -1;
      if (JSON_NODE_HOLDS_VALUE (e)
          && json_node_get_value_type (e) == G_TYPE_INT64)
        v = (double) json_node_get_int (e);
      else if (JSON_NODE_HOLDS_VALUE (e)
          && json_node_get_value_type (e) == G_TYPE_DOUBLE)
        v = json_node_get_double (e);
      if (!(v > 0.0) || !isfinite (v))
        return fail (l, SIMNPU_EFORMAT, p, "row scales must be positive "
            "finite numbers");
      t->channel_scales[i] = (float) v;
    }
  }
  *out_index = idx;
  return 0;
}

static int
parse_constant (loader * l, JsonObject * o, const char *path)
{
  const char *name = get_string (o, "name");
  int dtype = parse_dtype (get_string (o, "dtype"), true);
  int64_t dims[SIMNPU_MAX_DIMS];
  unsigned n = 0, idx;
  JsonObject *data;
  simnpu__tensor *t;
  char p[512];
  int ret;

  if (name == NULL || name[0] == '\0' || strlen (name) >= SIMNPU_MAX_NAME_BYTES)
    return fail (l, SIMNPU_EFORMAT, path, "\"name\" missing or not a "
        "non-empty string under 256 bytes");
  if (lookup (l, name) >= 0)
    return fail (l, SIMNPU_EFORMAT, path, "duplicate tensor name");
  if (dtype != SIMNPU_DTYPE_I8 && dtype != SIMNPU__DTYPE_I32) {
    snprintf (p, sizeof (p), "%s.dtype", path);
    return fail (l, SIMNPU_EFORMAT, p, "expected \"i8\" or \"i32\"");
  }
  if ((ret = get_int_array (l, o, "shape", path, 1, SIMNPU_MAX_DIMS, 1,
              SIMNPU_MAX_TENSOR_ELEMENTS, dims, &n)) < 0)
    return ret;
  idx = add_tensor (l, name, SIMNPU_TENSOR_CONSTANT);
  t = tensor_at (l, idx);
  t->dtype = dtype;
  t->n_dims = n;
  memcpy (t->dims, dims, n * sizeof (int64_t));
  if ((ret = read_quant (l, o, path, SIMNPU_DTYPE_I8, t, false)) < 0)
    return ret;
  data = get_object (o, "data");
  if (data != NULL) {
    snprintf (p, sizeof (p), "%s.data", path);
    t = tensor_at (l, idx);
    if ((ret = read_data (l, data, p, &t->data, &t->data_bytes)) < 0)
      return ret;
  }
  return 0;
}

static int
resolve_inputs (loader * l, JsonObject * o, const char *path, simnpu__op * op)
{
  JsonArray *a = get_array (o, "inputs");
  char p[512];
  unsigned i;

  snprintf (p, sizeof (p), "%s.inputs", path);
  if (a == NULL || json_array_get_length (a) < 1
      || json_array_get_length (a) > SIMNPU_MAX_OP_INPUTS)
    return fail (l, SIMNPU_EFORMAT, p, "expected an array of 1 to 8 tensor "
        "names");
  op->n_inputs = json_array_get_length (a);
  for (i = 0; i < op->n_inputs; i++) {
    JsonNode *e = json_array_get_element (a, i);
    const char *name;
    int idx;
    if (!JSON_NODE_HOLDS_VALUE (e)
        || json_node_get_value_type (e) != G_TYPE_STRING)
      return fail (l, SIMNPU_EFORMAT, p, "elements must be tensor names");
    name = json_node_get_string (e);
    idx = lookup (l, name);
    if (idx < 0) {
      char msg[384];
      snprintf (msg, sizeof (msg), "unknown tensor '%s'; expected a graph "
          "input, a constant or an earlier op's output", name);
      return fail (l, SIMNPU_ESHAPE, p, msg);
    }
    op->inputs[i] = (unsigned) idx;
  }
  return 0;
}

static int
resolve_outputs (loader * l, JsonObject * o, const char *path,
    simnpu__op * op, JsonObject * quant)
{
  JsonArray *a = get_array (o, "outputs");
  char p[512];
  unsigned i;
  int ret;

  snprintf (p, sizeof (p), "%s.outputs", path);
  if (a == NULL || json_array_get_length (a) < 1
      || json_array_get_length (a) > SIMNPU_MAX_OP_OUTPUTS)
    return fail (l, SIMNPU_EFORMAT, p, "expected an array of 1 to 8 tensor "
        "names");
  op->n_outputs = json_array_get_length (a);
  for (i = 0; i < op->n_outputs; i++) {
    JsonNode *e = json_array_get_element (a, i);
    const simnpu__tensor *in0 = tensor_at (l, op->inputs[0]);
    simnpu__tensor *t;
    const char *name;
    int idx;
    if (!JSON_NODE_HOLDS_VALUE (e)
        || json_node_get_value_type (e) != G_TYPE_STRING)
      return fail (l, SIMNPU_EFORMAT, p, "elements must be tensor names");
    name = json_node_get_string (e);
    if (name[0] == '\0' || strlen (name) >= SIMNPU_MAX_NAME_BYTES)
      return fail (l, SIMNPU_EFORMAT, p, "names must be 1 to 255 bytes");
    idx = lookup (l, name);
    if (idx >= 0 && tensor_at (l, idx)->kind != SIMNPU_TENSOR_OUTPUT)
      return fail (l, SIMNPU_EFORMAT, p, "output name already used by "
          "another tensor");
    if (idx >= 0) {
      t = tensor_at (l, idx);
      if (quant != NULL) {
        simnpu__tensor q = { 0 };
        char qp[512];
        snprintf (qp, sizeof (qp), "%s.quant", path);
        if ((ret = read_quant (l, quant, qp, SIMNPU_DTYPE_I8, &q, true)) < 0)
          return ret;
        t = tensor_at (l, idx);
        if (q.scale != t->scale || q.zero_point != t->zero_point)
          return fail (l, SIMNPU_EFORMAT, qp, "differs from the declared "
              "quantisation of the graph output it produces");
      }
    } else {
      float s = in0->scale;
      int32_t z = in0->zero_point;
      idx = (int) add_tensor (l, name, SIMNPU_TENSOR_ACTIVATION);
      t = tensor_at (l, idx);
      /* default: keep the input's quantisation */
      t->scale = s;
      t->zero_point = z;
      if (quant != NULL) {
        char qp[512];
        snprintf (qp, sizeof (qp), "%s.quant", path);
        if ((ret = read_quant (l, quant, qp, SIMNPU_DTYPE_I8, t, true)) < 0)
          return ret;
      }
    }
    op->outputs[i] = (unsigned) idx;
  }
  return 0;
}

static int
attr_ints (loader * l, JsonObject * attrs, const char *path,
    const char *member, unsigned len, int64_t min, int64_t max,
    const int64_t * defaults, int32_t * out)
{
  int64_t v[SIMNPU_N_ATTRS];
  unsigned n = 0, i;
  int ret;

  if (attrs == NULL || !json_object_has_member (attrs, member)) {
    if (defaults == NULL) {
      char p[512];
      snprintf (p, sizeof (p), "%s.attrs.%s", path, member);
      return fail (l, SIMNPU_EFORMAT, p, "missing");
    }
    for (i = 0; i < len; i++)
      out[i] = (int32_t) defaults[i];
    return 0;
  }
  {
    char p[512];
    snprintf (p, sizeof (p), "%s.attrs", path);
    if ((ret = get_int_array (l, attrs, member, p, len, len, min, max, v,
                &n)) < 0)
      return ret;
  }
  for (i = 0; i < n; i++)
    out[i] = (int32_t) v[i];
  return 0;
}

static int
attr_int (loader * l, JsonObject * attrs, const char *path,
    const char *member, int64_t min, int64_t max, int64_t def, bool required,
    int32_t * out)
{
  int64_t v;
  char p[512];

  snprintf (p, sizeof (p), "%s.attrs.%s", path, member);
  if (attrs == NULL || !json_object_has_member (attrs, member)) {
    if (required)
      return fail (l, SIMNPU_EFORMAT, p, "missing");
    *out = (int32_t) def;
    return 0;
  }
  if (!get_int (attrs, member, min, max, &v)) {
    char msg[128];
    snprintf (msg, sizeof (msg), "expected an integer in [%" G_GINT64_FORMAT
        ", %" G_GINT64_FORMAT "]", (gint64) min, (gint64) max);
    return fail (l, SIMNPU_EFORMAT, p, msg);
  }
  *out = (int32_t) v;
  return 0;
}

/* An optional real attribute; def when absent. */
static int
attr_number (loader * l, JsonObject * attrs, const char *path,
    const char *member, double def, double *out)
{
  char p[512];

  snprintf (p, sizeof (p), "%s.attrs.%s", path, member);
  if (attrs == NULL || !json_object_has_member (attrs, member)) {
    *out = def;
    return 0;
  }
  if (!get_number (attrs, member, out))
    return fail (l, SIMNPU_EFORMAT, p, "expected a finite number");
  return 0;
}

/* An optional string attribute, one of names[n] (its index), def when
 * absent. */
static int
attr_choice (loader * l, JsonObject * attrs, const char *path,
    const char *member, const char *const *names, unsigned n, int def,
    int32_t * out)
{
  const char *v;
  char p[512];
  GString *msg;
  unsigned i;
  int ret;

  if (attrs == NULL || !json_object_has_member (attrs, member)) {
    *out = def;
    return 0;
  }
  v = get_string (attrs, member);
  for (i = 0; v != NULL && i < n; i++)
    if (strcmp (v, names[i]) == 0) {
      *out = (int32_t) i;
      return 0;
    }
  snprintf (p, sizeof (p), "%s.attrs.%s", path, member);
  msg = g_string_new ("expected one of");
  for (i = 0; i < n; i++)
    g_string_append_printf (msg, "%s \"%s\"", i ? "," : "", names[i]);
  ret = fail (l, SIMNPU_EFORMAT, p, msg->str);
  g_string_free (msg, TRUE);
  return ret;
}

/* A real value in the quantised domain of tensor t, rounded half to even
 * as conv2d's requantisation (so that clamping before or after the
 * rounding agrees) and saturated to int8. */
static int32_t
quantise_real (const simnpu__tensor * t, double v)
{
  double q = nearbyint (v / t->scale) + t->zero_point;

  return (int32_t) CLAMP (q, -128.0, 127.0);
}

static unsigned
input_rank (loader * l, const simnpu__op * op)
{
  return tensor_at (l, op->inputs[0])->n_dims;
}

static int
normalise_axis (loader * l, const char *path, simnpu__op * op, unsigned rank)
{
  int32_t *axis = &op->attrs[SIMNPU_A_AXIS];
  char p[512];

  snprintf (p, sizeof (p), "%s.attrs.axis", path);
  if (rank == 0)
    return 0;
  if (*axis < 0)
    *axis += (int32_t) rank;
  if (*axis < 0 || (unsigned) *axis >= rank)
    return fail (l, SIMNPU_EFORMAT, p, "axis out of range for the input "
        "rank");
  return 0;
}

/* Real values of an op that become quantised attributes once its
 * output's quantisation is known. */
typedef struct
{
  bool clip;
  double clip_min, clip_max;
  bool pad_value;
  double value;
} pending_reals;

struct simnpu__json_op
{
  loader *l;
  JsonObject *o;
  JsonObject *attrs;
  const char *path;
  simnpu__op *op;
  pending_reals pend;
};

simnpu__op *
simnpu__json_op_get (simnpu__json_op * j)
{
  return j->op;
}

unsigned
simnpu__json_input_rank (simnpu__json_op * j)
{
  return input_rank (j->l, j->op);
}

bool
simnpu__json_has_attrs (simnpu__json_op * j)
{
  return j->attrs != NULL;
}

bool
simnpu__json_has_attr (simnpu__json_op * j, const char *member)
{
  return j->attrs != NULL && json_object_has_member (j->attrs, member);
}

const char *
simnpu__json_attr_string (simnpu__json_op * j, const char *member)
{
  return j->attrs ? get_string (j->attrs, member) : NULL;
}

int
simnpu__json_fail (simnpu__json_op * j, int code, const char *where,
    const char *what)
{
  char p[512];

  snprintf (p, sizeof (p), "%s.%s", j->path, where);
  return fail (j->l, code, p, what);
}

int
simnpu__json_attr_ints (simnpu__json_op * j, const char *member,
    unsigned len, int64_t min, int64_t max, const int64_t * defaults,
    int32_t * out)
{
  return attr_ints (j->l, j->attrs, j->path, member, len, min, max, defaults,
      out);
}

int
simnpu__json_attr_int (simnpu__json_op * j, const char *member, int64_t min,
    int64_t max, int64_t def, bool required, int32_t * out)
{
  return attr_int (j->l, j->attrs, j->path, member, min, max, def, required,
      out);
}

int
simnpu__json_attr_number (simnpu__json_op * j, const char *member,
    double def, double *out)
{
  return attr_number (j->l, j->attrs, j->path, member, def, out);
}

int
simnpu__json_attr_choice (simnpu__json_op * j, const char *member,
    const char *const *names, unsigned n, int def, int32_t * out)
{
  return attr_choice (j->l, j->attrs, j->path, member, names, n, def, out);
}

int
simnpu__json_attr_int_array (simnpu__json_op * j, const char *member,
    unsigned min_len, unsigned max_len, int64_t min_v, int64_t max_v,
    int64_t * out, unsigned *len)
{
  char p[512];

  snprintf (p, sizeof (p), "%s.attrs", j->path);
  return get_int_array (j->l, j->attrs, member, p, min_len, max_len, min_v,
      max_v, out, len);
}

int
simnpu__json_attr_reals (simnpu__json_op * j, const char *member,
    unsigned n, const char *missing, double *out)
{
  JsonArray *c = j->attrs ? get_array (j->attrs, member) : NULL;
  char p[512];
  unsigned i;

  snprintf (p, sizeof (p), "%s.attrs.%s", j->path, member);
  if (c == NULL || json_array_get_length (c) != n)
    return fail (j->l, SIMNPU_EFORMAT, p, missing);
  for (i = 0; i < n; i++) {
    JsonNode *e = json_array_get_element (c, i);
    if (!JSON_NODE_HOLDS_VALUE (e)
        || (json_node_get_value_type (e) != G_TYPE_INT64
            && json_node_get_value_type (e) != G_TYPE_DOUBLE))
      return fail (j->l, SIMNPU_EFORMAT, p, "elements must be numbers");
    out[i] = json_node_get_value_type (e) == G_TYPE_INT64 ?
        (double) json_node_get_int (e) : json_node_get_double (e);
    if (!isfinite (out[i]))
      return fail (j->l, SIMNPU_EFORMAT, p, "elements must be finite");
  }
  return 0;
}

int
simnpu__json_normalise_axis (simnpu__json_op * j)
{
  return normalise_axis (j->l, j->path, j->op, input_rank (j->l, j->op));
}

int
simnpu__json_n_outputs (simnpu__json_op * j)
{
  JsonArray *a = get_array (j->o, "outputs");

  return a ? (int) json_array_get_length (a) : -1;
}

void
simnpu__json_pending_clip (simnpu__json_op * j, double min, double max)
{
  j->pend.clip = true;
  j->pend.clip_min = min;
  j->pend.clip_max = max;
}

void
simnpu__json_pending_pad_value (simnpu__json_op * j, double value)
{
  j->pend.pad_value = true;
  j->pend.value = value;
}

int
simnpu__json_conv_params (simnpu__json_op * j)
{
  loader *l = j->l;
  JsonObject *o = j->o;
  const char *path = j->path;
  simnpu__op *op = j->op;
  int32_t *at = op->attrs;
  JsonObject *w, *b;
  unsigned wi, bi;
  char name[SIMNPU_MAX_NAME_BYTES + 16], p[512];
  int ret;

  if (op->n_inputs != 1) {
    snprintf (p, sizeof (p), "%s.inputs", path);
    return fail (l, SIMNPU_EFORMAT, p, "conv2d takes one input tensor; "
        "weights and bias are members of the op");
  }

  snprintf (name, sizeof (name), "%s.weights", op->name);
  if (lookup (l, name) >= 0)
    return fail (l, SIMNPU_EFORMAT, path, "duplicate op name");
  wi = add_tensor (l, name, SIMNPU_TENSOR_CONSTANT);
  tensor_at (l, wi)->shape_from_op = true;
  snprintf (name, sizeof (name), "%s.bias", op->name);
  bi = add_tensor (l, name, SIMNPU_TENSOR_CONSTANT);
  tensor_at (l, bi)->shape_from_op = true;
  tensor_at (l, bi)->dtype = SIMNPU__DTYPE_I32;
  op->inputs[1] = wi;
  op->inputs[2] = bi;
  op->n_inputs = 3;

  w = get_object (o, "weights");
  if (w != NULL) {
    JsonArray *scales = get_array (w, "scales");
    JsonObject *data = get_object (w, "data");
    simnpu__tensor *wt = tensor_at (l, wi);
    if (scales != NULL) {
      unsigned n = json_array_get_length (scales), i;
      snprintf (p, sizeof (p), "%s.weights.scales", path);
      if (n != (unsigned) at[SIMNPU_A_OC])
        return fail (l, SIMNPU_EFORMAT, p, "expected one scale per output "
            "channel");
      wt->channel_scales = g_new (float, n);
      wt->n_channel_scales = n;
      for (i = 0; i < n; i++) {
        JsonNode *e = json_array_get_element (scales, i);
        double v = JSON_NODE_HOLDS_VALUE (e) ? json_node_get_double (e) : -1;
        if (JSON_NODE_HOLDS_VALUE (e)
            && json_node_get_value_type (e) == G_TYPE_INT64)
          v = (double) json_node_get_int (e);
        if (!(v > 0.0) || !isfinite (v))
          return fail (l, SIMNPU_EFORMAT, p, "scales must be positive "
              "numbers");
        wt->channel_scales[i] = (float) v;
      }
    } else if ((ret = read_quant (l, w, path, SIMNPU_DTYPE_I8, wt, false)) < 0) {
      return ret;
    }
    if (data != NULL) {
      snprintf (p, sizeof (p), "%s.weights.data", path);
      if ((ret = read_data (l, data, p, &wt->data, &wt->data_bytes)) < 0)
        return ret;
    }
  }
  b = get_object (o, "bias");
  if (b != NULL) {
    JsonObject *data = get_object (b, "data");
    simnpu__tensor *bt = tensor_at (l, bi);
    if (data != NULL) {
      snprintf (p, sizeof (p), "%s.bias.data", path);
      if ((ret = read_data (l, data, p, &bt->data, &bt->data_bytes)) < 0)
        return ret;
    }
  } else if (tensor_at (l, wi)->data != NULL) {
    simnpu__tensor *bt = tensor_at (l, bi);
    /* no bias: zeros */
    bt->data_bytes = (size_t) at[SIMNPU_A_OC] * sizeof (int32_t);
    bt->data = g_malloc0 (bt->data_bytes);
  }
  return 0;
}

static int
parse_op (loader * l, JsonObject * o, const char *path)
{
  simnpu__op op = { 0 };
  const char *type_s = get_string (o, "type");
  const char *name = get_string (o, "name");
  JsonObject *attrs = get_object (o, "attrs");
  int type, ret;
  char p[512];
  pending_reals pend = { 0 };

  snprintf (p, sizeof (p), "%s.type", path);
  if (type_s == NULL)
    return fail (l, SIMNPU_EFORMAT, p, "missing or not a string");
  type = simnpu__op_type_from_name (type_s);
  if (type < 0) {
    GString *msg = g_string_new (NULL);
    int i;
    g_string_printf (msg, "unknown op '%.200s'; expected one of ", type_s);
    for (i = 0; i < SIMNPU_N_OP_TYPES; i++)
      g_string_append_printf (msg, "%s%s", i ? ", " : "",
          simnpu__op_type_name (i));
    ret = fail (l, SIMNPU_EUNSUPPORTED, p, msg->str);
    g_string_free (msg, TRUE);
    return ret;
  }
  if (name != NULL && strlen (name) >= SIMNPU_MAX_NAME_BYTES) {
    snprintf (p, sizeof (p), "%s.name", path);
    return fail (l, SIMNPU_EFORMAT, p, "longer than 255 bytes");
  }
  op.type = type;
  op.name = g_strdup (name ? name : path);
  op.location = g_strdup (path);
  /* the op owns its strings from here; on error they go with the array */
  if ((ret = resolve_inputs (l, o, path, &op)) < 0)
    goto out;
  for (unsigned i = 0; i < op.n_inputs; i++) {
    if (tensor_at (l, op.inputs[i])->n_dims == 0) {
      char msg[384];
      snprintf (p, sizeof (p), "%s.inputs[%u]", path, i);
      snprintf (msg, sizeof (msg), "tensor '%s' is used before an op "
          "produces it (ops must be in execution order)",
          tensor_at (l, op.inputs[i])->name);
      ret = fail (l, SIMNPU_EFORMAT, p, msg);
      goto out;
    }
  }
  {
    simnpu__json_op j = {.l = l,.o = o,.attrs = attrs,.path = path,.op = &op };
    ret = simnpu__op_parse_attrs (&j);
    pend = j.pend;
  }
  if (ret < 0)
    goto out;
  ret = resolve_outputs (l, o, path, &op, get_object (o, "quant"));
  if (ret < 0)
    goto out;
  if (pend.clip) {
    const simnpu__tensor *t = tensor_at (l, op.outputs[0]);
    op.attrs[SIMNPU_A_ACT_QMIN] = quantise_real (t, pend.clip_min);
    op.attrs[SIMNPU_A_ACT_QMAX] = quantise_real (t, pend.clip_max);
  }
  if (pend.pad_value)
    op.attrs[SIMNPU_A_PAD_VALUE] = quantise_real (tensor_at (l,
            op.outputs[0]), pend.value);
  g_array_append_val (l->ops, op);
  {
    /* infer now so later ops can use this op's output ranks */
    simnpu__graph view = *l->g;
    view.tensors = (simnpu__tensor *) l->tensors->data;
    view.n_tensors = l->tensors->len;
    view.ops = (simnpu__op *) l->ops->data;
    view.n_ops = l->ops->len;
    return simnpu__graph_infer_op (&view, view.n_ops - 1, NULL, l->error);
  }

out:
  g_free (op.name);
  g_free (op.location);
  return ret;
}


/* "labels": optional class names, class 0 first */
static int
parse_labels (loader * l, JsonObject * o)
{
  JsonNode *n;
  JsonArray *a;
  unsigned i, len;
  char p[64];

  if (!json_object_has_member (o, "labels"))
    return 0;
  n = json_object_get_member (o, "labels");
  if (!JSON_NODE_HOLDS_ARRAY (n))
    return fail (l, SIMNPU_EFORMAT, "$.labels", "expected an array of "
        "class name strings");
  a = json_node_get_array (n);
  len = json_array_get_length (a);
  if (len > SIMNPU_MAX_LABELS)
    return fail (l, SIMNPU_EFORMAT, "$.labels", "expected at most 4096 "
        "labels");
  l->g->labels = g_new0 (char *, len + 1);
  for (i = 0; i < len; i++) {
    JsonNode *e = json_array_get_element (a, i);
    const char *s, *problem;
    snprintf (p, sizeof (p), "$.labels[%u]", i);
    if (!JSON_NODE_HOLDS_VALUE (e)
        || json_node_get_value_type (e) != G_TYPE_STRING)
      return fail (l, SIMNPU_EFORMAT, p, "expected a string");
    s = json_node_get_string (e);
    if ((problem = simnpu__label_problem (s)) != NULL)
      return simnpu__set_error (l->error, SIMNPU_EFORMAT, "%s: label %s; "
          "expected a non-empty name under 256 bytes without control "
          "characters", p, problem);
    l->g->labels[i] = g_strdup (s);
    l->g->n_labels = i + 1;
  }
  return 0;
}

/* The graph's "inputs" or "outputs": 1 to SIMNPU_MAX_IO tensor objects. */
static int
parse_io_array (loader * l, JsonObject * o, bool is_input, unsigned *indices,
    unsigned *n_out)
{
  const char *member = is_input ? "inputs" : "outputs";
  JsonArray *a = get_array (o, member);
  char p[64];
  unsigned i;
  int ret;

  snprintf (p, sizeof (p), "$.%s", member);
  if (a == NULL || json_array_get_length (a) < 1
      || json_array_get_length (a) > SIMNPU_MAX_IO)
    return fail (l, SIMNPU_EFORMAT, p, "expected an array of 1 to "
        "16 tensor objects");
  for (i = 0; i < json_array_get_length (a); i++) {
    JsonNode *e = json_array_get_element (a, i);
    snprintf (p, sizeof (p), "$.%s[%u]", member, i);
    if (!JSON_NODE_HOLDS_OBJECT (e))
      return fail (l, SIMNPU_EFORMAT, p, "expected an object");
    if ((ret = parse_io (l, json_node_get_object (e), p, is_input,
                &indices[i])) < 0)
      return ret;
    *n_out = i + 1;
  }
  return 0;
}

static int
load_root (loader * l, JsonNode * root)
{
  JsonObject *o;
  JsonArray *a;
  const char *s;
  int64_t version;
  unsigned i;
  int ret;
  char p[64];

  if (root == NULL || !JSON_NODE_HOLDS_OBJECT (root))
    return fail (l, SIMNPU_EFORMAT, "$", "expected a JSON object");
  o = json_node_get_object (root);
  s = get_string (o, "format");
  if (s == NULL || strcmp (s, GRAPH_FORMAT) != 0)
    return fail (l, SIMNPU_EFORMAT, "$.format", "expected \"simnpu-graph\"");
  if (!get_int (o, "version", 1, G_MAXINT32, &version))
    return fail (l, SIMNPU_EFORMAT, "$.version", "expected an integer");
  if (version != GRAPH_VERSION)
    return fail (l, SIMNPU_EVERSION, "$.version", "expected 1");
  s = get_string (o, "name");
  if (s == NULL || s[0] == '\0' || strlen (s) >= SIMNPU_MAX_NAME_BYTES)
    return fail (l, SIMNPU_EFORMAT, "$.name", "expected a non-empty string "
        "under 256 bytes");
  l->g->name = g_strdup (s);
  l->weights_file = get_string (o, "weights_file");
  if (json_object_has_member (o, "estimate_only")) {
    JsonNode *n = json_object_get_member (o, "estimate_only");
    if (!JSON_NODE_HOLDS_VALUE (n)
        || json_node_get_value_type (n) != G_TYPE_BOOLEAN)
      return fail (l, SIMNPU_EFORMAT, "$.estimate_only", "expected a boolean");
    l->g->estimate_only |= json_node_get_boolean (n);
  }

  if ((ret = parse_labels (l, o)) < 0)
    return ret;

  if ((ret = parse_io_array (l, o, true, l->g->inputs, &l->g->n_inputs)) < 0)
    return ret;
  if ((ret = parse_io_array (l, o, false, l->g->outputs, &l->g->n_outputs)) < 0)
    return ret;
  a = get_array (o, "constants");
  if (a != NULL) {
    if (json_array_get_length (a) > SIMNPU_MAX_TENSORS)
      return fail (l, SIMNPU_ENOMEM, "$.constants", "too many constants");
    for (i = 0; i < json_array_get_length (a); i++) {
      JsonNode *e = json_array_get_element (a, i);
      snprintf (p, sizeof (p), "$.constants[%u]", i);
      if (!JSON_NODE_HOLDS_OBJECT (e))
        return fail (l, SIMNPU_EFORMAT, p, "expected an object");
      if ((ret = parse_constant (l, json_node_get_object (e), p)) < 0)
        return ret;
    }
  }
  a = get_array (o, "ops");
  if (a == NULL || json_array_get_length (a) < 1
      || json_array_get_length (a) > SIMNPU_MAX_OPS)
    return fail (l, SIMNPU_EFORMAT, "$.ops", "expected an array of 1 to 2048 "
        "op objects");
  for (i = 0; i < json_array_get_length (a); i++) {
    JsonNode *e = json_array_get_element (a, i);
    snprintf (p, sizeof (p), "$.ops[%u]", i);
    if (!JSON_NODE_HOLDS_OBJECT (e))
      return fail (l, SIMNPU_EFORMAT, p, "expected an object");
    if ((ret = parse_op (l, json_node_get_object (e), p)) < 0)
      return ret;
    if (l->tensors->len > SIMNPU_MAX_TENSORS)
      return fail (l, SIMNPU_ENOMEM, p, "too many tensors");
  }
  return 0;
}

int
simnpu__graph_load_json_data (const char *data, size_t size,
    const char *base_dir, bool estimate_only, simnpu__graph ** out,
    simnpu_error * error)
{
  JsonParser *parser;
  GError *err = NULL;
  loader l = { 0 };
  int ret;

  *out = NULL;
  if (size > MAX_JSON_BYTES)
    return simnpu__set_error (error, SIMNPU_ENOMEM, "graph JSON: %zu bytes; "
        "expected at most 1 GiB", size);
  if (simnpu__json_depth (data, size) > SIMNPU__MAX_JSON_DEPTH)
    return simnpu__set_error (error, SIMNPU_EFORMAT, "graph JSON: nested "
        "deeper than %d levels; expected a simnpu-graph object",
        SIMNPU__MAX_JSON_DEPTH);
  {
    char msg[SIMNPU_ERROR_MESSAGE_SIZE];
    if (simnpu__json_find_bad_int (data, size, msg, sizeof (msg)))
      return simnpu__set_error (error, SIMNPU_EFORMAT, "%s", msg);
  }
  parser = json_parser_new ();
  if (!json_parser_load_from_data (parser, data, (gssize) size, &err)) {
    ret = simnpu__set_error (error, SIMNPU_EFORMAT, "graph JSON: %s",
        err->message);
    g_error_free (err);
    g_object_unref (parser);
    return ret;
  }
  l.g = simnpu__graph_new ();
  l.tensors = g_array_new (FALSE, TRUE, sizeof (simnpu__tensor));
  l.ops = g_array_new (FALSE, TRUE, sizeof (simnpu__op));
  l.by_name = g_hash_table_new (g_str_hash, g_str_equal);
  l.base_dir = base_dir ? base_dir : ".";
  l.error = error;

  l.g->estimate_only = estimate_only;
  ret = load_root (&l, json_parser_get_root (parser));
  /* read or not (estimate-only), it is part of the model */
  if (l.weights_file != NULL) {
    l.g->model_files = g_new0 (char *, 2);
    l.g->model_files[0] = g_build_filename (l.base_dir, l.weights_file, NULL);
  }

  l.g->n_tensors = l.tensors->len;
  l.g->tensors = (simnpu__tensor *) g_array_free (l.tensors, FALSE);
  l.g->n_ops = l.ops->len;
  l.g->ops = (simnpu__op *) g_array_free (l.ops, FALSE);
  g_hash_table_destroy (l.by_name);
  g_free (l.sidecar);
  g_object_unref (parser);

  if (ret == 0)
    ret = simnpu__graph_validate (l.g, error);
  if (ret < 0) {
    simnpu__graph_free (l.g);
    return ret;
  }
  *out = l.g;
  return 0;
}

int
simnpu__graph_load_json_file (const char *path, bool estimate_only,
    simnpu__graph ** out, simnpu_error * error)
{
  gchar *contents = NULL, *dir;
  gsize len = 0;
  GError *err = NULL;
  int ret;

  if (!simnpu__file_read (path, "model", MAX_JSON_BYTES, &contents, &len, &err)) {
    ret = simnpu__set_error (error, SIMNPU_EIO, "%s", err->message);
    g_error_free (err);
    return ret;
  }
  dir = g_path_get_dirname (path);
  ret = simnpu__graph_load_json_data (contents, len, dir, estimate_only, out,
      error);
  g_free (dir);
  g_free (contents);
  return ret;
}
