/* gst-ax
 * Copyright (C) 2026 gst-ax developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

/* The TF.js graph-model front-end: model.json holds a TF GraphDef as JSON
 * (modelTopology.node[]) and a weights manifest naming the binary shards
 * that hold every Const's value. Nodes are translated in topological
 * order into the float IR; TF's NHWC layout is the IR's, only the conv
 * filters are rearranged (HWIO to OHWI).
 *
 * A node whose op the front-end does not know is left out with everything
 * that depends on it; the graph outputs it would have fed are dropped (a
 * model's post-processing tail, e.g. TopKV2, is cut off that way). Only
 * when no output is left is that an error. */

#include "compiler.h"

#include <json-glib/json-glib.h>
#include <math.h>
#include <string.h>

#define TFJS_MAX_JSON_BYTES (G_GINT64_CONSTANT (256) << 20)
#define TFJS_MAX_JSON_DEPTH 64
/* every shard of a model together */
#define TFJS_MAX_WEIGHT_BYTES (G_GINT64_CONSTANT (4) << 30)
#define TFJS_MAX_NODE_INPUTS 1024
#define TFJS_MAX_LIST 64
#define TFJS_DEFAULT_LEAKY_ALPHA 0.2f
#define TFJS_ELU_ALPHA 1.0f
#define TFJS_RELU6_MAX 6.0f
#define TFJS_SELU_ALPHA 1.67326324f
#define TFJS_SELU_GAMMA 1.05070098f
#define TFJS_DEFAULT_BN_EPSILON 0.0001f
/* largest integer constant read as shape-like values (slice bounds,
 * reshape targets, pads) */
#define TFJS_MAX_CONST_INTS (2 * SIMNPU_IR_MAX_RANK)
#define TFJS_NO_POISON (-1)

/* half-precision layout */
#define F16_EXP_BITS 0x1f
#define F16_MANT_BITS 0x3ff
#define F16_EXP_SHIFT 10
#define F16_SIGN_SHIFT 15
#define F16_BIAS 15
#define F32_BIAS 127
#define F32_EXP_SHIFT 23
#define F32_MANT_SHIFT 13
#define F32_EXP_ALL 0xff

typedef struct
{
  simnpu__ir_dtype dtype;
  unsigned rank;
  int64_t dims[SIMNPU_IR_MAX_RANK];
  void *data;                   /* decoded; NULL once a Const took it */
} tfjs_weight;

typedef struct
{
  const char *name;             /* the producing node */
  unsigned output;
} tfjs_ref;

typedef struct
{
  const char *name;
  const char *op;
  JsonObject *attr;             /* may be NULL */
  unsigned n_inputs;            /* data inputs only */
  tfjs_ref *inputs;
  int *input_nodes;             /* index of each input's node */
  int poison;                   /* unsupported node it depends on */
} tfjs_node;

typedef struct
{
  simnpu__ir_graph *g;
  simnpu_error *error;
  GHashTable *weights;          /* name -> tfjs_weight */
  tfjs_node *nodes;
  unsigned n_nodes;
  GHashTable *node_by_name;     /* name -> index + 1 */
  GHashTable *tensors;          /* "node" or "node:k" (owned) -> index + 1 */
  const tfjs_node *cur;
} tfjs_loader;

typedef struct
{
  const char *op;
  int (*translate) (tfjs_loader * l, const tfjs_node * tn, const int *in);
  simnpu__ir_op ir_op;          /* for the table-driven element-wise ops */
} tfjs_op;

/* ------------------------------------------------------------------ */
/* Errors */

static int
fail (tfjs_loader * l, int code, const char *format, ...)
G_GNUC_PRINTF (3, 4);

     static int fail (tfjs_loader * l, int code, const char *format, ...)
{
  va_list args;
  char *msg;
  int ret;

  va_start (args, format);
  msg = g_strdup_vprintf (format, args);
  va_end (args);
  if (l->cur)
    ret = simnpu__set_error (l->error, code, "tfjs node '%s' (%s): %s",
        l->cur->name, l->cur->op, msg);
  else
    ret = simnpu__set_error (l->error, code, "tfjs: %s", msg);
  g_free (msg);
  return ret;
}

/* ------------------------------------------------------------------ */
/* JSON values: TF's JSON writes 64-bit integers as strings */

static JsonObject *
get_object (JsonObject * o, const char *member)
{
  JsonNode *n = o ? json_object_get_member (o, member) : NULL;
  return n && JSON_NODE_HOLDS_OBJECT (n) ? json_node_get_object (n) : NULL;
}

static JsonArray *
get_array (JsonObject * o, const char *member)
{
  JsonNode *n = o ? json_object_get_member (o, member) : NULL;
  return n && JSON_NODE_HOLDS_ARRAY (n) ? json_node_get_array (n) : NULL;
}

static const char *
node_string (JsonNode * n)
{
  if (n == NULL || !JSON_NODE_HOLDS_VALUE (n)
      || json_node_get_value_type (n) != G_TYPE_STRING)
    return NULL;
  return json_node_get_string (n);
}

static const char *
get_string (JsonObject * o, const char *member)
{
  return o ? node_string (json_object_get_member (o, member)) : NULL;
}

static bool
node_int (JsonNode * n, int64_t * out)
{
  GType t;
  const char *s;

  if (n == NULL || !JSON_NODE_HOLDS_VALUE (n))
    return false;
  t = json_node_get_value_type (n);
  if (t == G_TYPE_INT64) {
    *out = json_node_get_int (n);
    return true;
  }
  if (t == G_TYPE_DOUBLE) {
    double d = json_node_get_double (n);
    if (!(d >= (double) G_MININT64 && d <= (double) G_MAXINT32 * 4.0)
        || d != floor (d))
      return false;
    *out = (int64_t) d;
    return true;
  }
  if (t == G_TYPE_STRING) {
    gint64 v;
    s = json_node_get_string (n);
    if (!g_ascii_string_to_signed (s, 10, G_MININT64, G_MAXINT64, &v, NULL))
      return false;
    *out = v;
    return true;
  }
  return false;
}

static bool
node_float (JsonNode * n, double *out)
{
  GType t;
  const char *s;

  if (n == NULL || !JSON_NODE_HOLDS_VALUE (n))
    return false;
  t = json_node_get_value_type (n);
  if (t == G_TYPE_INT64) {
    *out = (double) json_node_get_int (n);
    return true;
  }
  if (t == G_TYPE_DOUBLE) {
    *out = json_node_get_double (n);
    return true;
  }
  if (t == G_TYPE_STRING) {
    s = json_node_get_string (n);
    if (strcmp (s, "NaN") == 0)
      *out = NAN;
    else if (strcmp (s, "Infinity") == 0)
      *out = INFINITY;
    else if (strcmp (s, "-Infinity") == 0)
      *out = -INFINITY;
    else
      return false;
    return true;
  }
  return false;
}

/* ------------------------------------------------------------------ */
/* TF AttrValue JSON */

static JsonObject *
attr_value (const tfjs_node * tn, const char *key)
{
  return get_object (tn->attr, key);
}

static int
attr_int (tfjs_loader * l, const tfjs_node * tn, const char *key,
    int64_t def, int64_t min, int64_t max, int64_t * out)
{
  JsonObject *a = attr_value (tn, key);
  JsonNode *n;

  *out = def;
  if (a == NULL)
    return 0;
  n = json_object_get_member (a, "i");
  if (n == NULL)
    return 0;                   /* proto3 JSON omits a zero */
  if (!node_int (n, out) || *out < min || *out > max)
    return fail (l, SIMNPU_EFORMAT, "attribute '%s': expected an integer in "
        "[%" G_GINT64_FORMAT ", %" G_GINT64_FORMAT "]", key, min, max);
  return 0;
}

static int
attr_float (tfjs_loader * l, const tfjs_node * tn, const char *key,
    float def, float *out)
{
  JsonObject *a = attr_value (tn, key);
  JsonNode *n;
  double d;

  *out = def;
  if (a == NULL)
    return 0;
  n = json_object_get_member (a, "f");
  if (n == NULL) {
    *out = 0.0f;
    return 0;
  }
  if (!node_float (n, &d))
    return fail (l, SIMNPU_EFORMAT, "attribute '%s': expected a number", key);
  *out = (float) d;
  return 0;
}

static bool
attr_bool (const tfjs_node * tn, const char *key, bool def)
{
  JsonObject *a = attr_value (tn, key);
  JsonNode *n;

  if (a == NULL)
    return def;
  n = json_object_get_member (a, "b");
  if (n == NULL)
    return false;
  return JSON_NODE_HOLDS_VALUE (n)
      && json_node_get_value_type (n) == G_TYPE_BOOLEAN
      && json_node_get_boolean (n);
}

/* Decodes a base64 string attribute into buf (NUL-terminated); absent
 * gives "". */
static int
decode_b64 (tfjs_loader * l, const char *key, const char *b64, char *buf,
    size_t size)
{
  guchar *raw;
  gsize len = 0;

  buf[0] = '\0';
  if (b64 == NULL)
    return 0;
  if (strlen (b64) > size * 2)
    return fail (l, SIMNPU_EFORMAT, "attribute '%s': string too long", key);
  raw = g_base64_decode (b64, &len);
  if (len >= size || memchr (raw, '\0', len) != NULL) {
    g_free (raw);
    return fail (l, SIMNPU_EFORMAT, "attribute '%s': expected a short "
        "base64 text", key);
  }
  memcpy (buf, raw, len);
  buf[len] = '\0';
  g_free (raw);
  return 0;
}

#define TFJS_ATTR_STRING 64

static int
attr_string (tfjs_loader * l, const tfjs_node * tn, const char *key, char *buf)
{
  JsonObject *a = attr_value (tn, key);
  return decode_b64 (l, key, get_string (a, "s"), buf, TFJS_ATTR_STRING);
}

/* A list attribute's integers; absent or empty gives *n = 0. */
static int
attr_ints (tfjs_loader * l, const tfjs_node * tn, const char *key,
    int64_t * out, unsigned max, unsigned *n)
{
  JsonArray *arr = get_array (get_object (attr_value (tn, key), "list"), "i");
  unsigned i, len;

  *n = 0;
  if (arr == NULL)
    return 0;
  len = json_array_get_length (arr);
  if (len > max)
    return fail (l, SIMNPU_EFORMAT, "attribute '%s': %u values; expected at "
        "most %u", key, len, max);
  for (i = 0; i < len; i++)
    if (!node_int (json_array_get_element (arr, i), &out[i]))
      return fail (l, SIMNPU_EFORMAT, "attribute '%s'[%u]: expected an "
          "integer", key, i);
  *n = len;
  return 0;
}

static int
parse_tf_dtype (const char *s, simnpu__ir_dtype * out)
{
  static const struct
  {
    const char *name;
    simnpu__ir_dtype dtype;
  } map[] = {
    {"DT_FLOAT", SIMNPU_IR_F32}, {"DT_INT32", SIMNPU_IR_I32},
    {"DT_INT64", SIMNPU_IR_I64}, {"DT_UINT8", SIMNPU_IR_U8},
    {"DT_INT8", SIMNPU_IR_I8}, {"DT_BOOL", SIMNPU_IR_BOOL},
  };
  unsigned i;

  for (i = 0; s && i < G_N_ELEMENTS (map); i++)
    if (strcmp (s, map[i].name) == 0) {
      *out = map[i].dtype;
      return 0;
    }
  return -1;
}

static int
attr_type (tfjs_loader * l, const tfjs_node * tn, const char *key,
    simnpu__ir_dtype def, simnpu__ir_dtype * out)
{
  JsonObject *a = attr_value (tn, key);
  const char *s;

  *out = def;
  if (a == NULL)
    return 0;
  s = get_string (a, "type");
  if (s == NULL)
    s = "DT_INVALID";
  if (parse_tf_dtype (s, out) < 0)
    return fail (l, SIMNPU_EUNSUPPORTED, "attribute '%s': type %s is not "
        "supported; expected DT_FLOAT, DT_INT32, DT_INT64, DT_UINT8, DT_INT8 "
        "or DT_BOOL", key, s);
  return 0;
}

/* A TensorShapeProto's dims (-1 for unknown); an unknown rank fails. */
static int
parse_shape (tfjs_loader * l, JsonObject * shape, const char *what,
    unsigned *rank, int64_t * dims)
{
  JsonArray *dim;
  JsonNode *unknown;
  unsigned i, len;

  *rank = 0;
  if (shape == NULL)
    return 0;
  unknown = json_object_get_member (shape, "unknownRank");
  if (unknown && JSON_NODE_HOLDS_VALUE (unknown)
      && json_node_get_value_type (unknown) == G_TYPE_BOOLEAN
      && json_node_get_boolean (unknown))
    return fail (l, SIMNPU_EUNSUPPORTED, "%s: the shape's rank is unknown",
        what);
  dim = get_array (shape, "dim");
  if (dim == NULL)
    return 0;
  len = json_array_get_length (dim);
  if (len > SIMNPU_IR_MAX_RANK)
    return fail (l, SIMNPU_EUNSUPPORTED, "%s: rank %u; expected at most %d",
        what, len, SIMNPU_IR_MAX_RANK);
  for (i = 0; i < len; i++) {
    JsonNode *d = json_array_get_element (dim, i);
    JsonObject *o = JSON_NODE_HOLDS_OBJECT (d) ? json_node_get_object (d)
        : NULL;
    JsonNode *size = o ? json_object_get_member (o, "size") : NULL;
    if (o == NULL)
      return fail (l, SIMNPU_EFORMAT, "%s: dim %u is not an object", what, i);
    dims[i] = 0;
    if (size && (!node_int (size, &dims[i]) || dims[i] < -1
            || dims[i] > SIMNPU_IR_MAX_ELEMENTS))
      return fail (l, SIMNPU_EFORMAT, "%s: dim %u: expected a size in [-1, "
          "%" G_GINT64_FORMAT "]", what, i, SIMNPU_IR_MAX_ELEMENTS);
  }
  *rank = len;
  return 0;
}

/* ------------------------------------------------------------------ */
/* Weights */

static float
half_to_float (uint16_t h)
{
  uint32_t sign = (uint32_t) (h >> F16_SIGN_SHIFT) << 31;
  uint32_t exp = (h >> F16_EXP_SHIFT) & F16_EXP_BITS;
  uint32_t mant = h & F16_MANT_BITS;
  uint32_t bits;
  float f;

  if (exp == 0) {
    /* zero or subnormal: mant * 2^-24 */
    f = ldexpf ((float) mant, 1 - F16_BIAS - F16_EXP_SHIFT);
    return sign ? -f : f;
  }
  if (exp == F16_EXP_BITS)
    bits = sign | ((uint32_t) F32_EXP_ALL << F32_EXP_SHIFT)
        | (mant << F32_MANT_SHIFT);
  else
    bits = sign | ((exp - F16_BIAS + F32_BIAS) << F32_EXP_SHIFT)
        | (mant << F32_MANT_SHIFT);
  memcpy (&f, &bits, sizeof f);
  return f;
}

static void
weight_free (gpointer p)
{
  tfjs_weight *w = p;
  g_free (w->data);
  g_free (w);
}

typedef enum
{
  QUANT_NONE = 0,
  QUANT_F16,
  QUANT_U8,
  QUANT_U16,
} tfjs_quant;

typedef struct
{
  const char *name;
  simnpu__ir_dtype dtype;
  unsigned rank;
  int64_t dims[SIMNPU_IR_MAX_RANK];
  int64_t n;
  tfjs_quant quant;
  float min, scale;
  size_t bytes;
} tfjs_weight_spec;

static int
parse_weight_spec (tfjs_loader * l, JsonNode * node, unsigned group,
    unsigned index, tfjs_weight_spec * s)
{
  JsonObject *o = JSON_NODE_HOLDS_OBJECT (node) ?
      json_node_get_object (node) : NULL;
  JsonObject *q;
  JsonArray *shape;
  const char *dtype, *qdtype;
  size_t elem;
  unsigned i;
  double d;

  memset (s, 0, sizeof *s);
  s->name = get_string (o, "name");
  if (s->name == NULL)
    return fail (l, SIMNPU_EFORMAT, "weightsManifest[%u].weights[%u]: no "
        "name", group, index);
  shape = get_array (o, "shape");
  if (shape == NULL)
    return fail (l, SIMNPU_EFORMAT, "weight '%s': no shape", s->name);
  s->rank = json_array_get_length (shape);
  if (s->rank > SIMNPU_IR_MAX_RANK)
    return fail (l, SIMNPU_EUNSUPPORTED, "weight '%s': rank %u; expected at "
        "most %d", s->name, s->rank, SIMNPU_IR_MAX_RANK);
  s->n = 1;
  for (i = 0; i < s->rank; i++) {
    if (!node_int (json_array_get_element (shape, i), &s->dims[i])
        || s->dims[i] < 0 || s->dims[i] > SIMNPU_IR_MAX_ELEMENTS)
      return fail (l, SIMNPU_EFORMAT, "weight '%s': shape[%u] is not a size",
          s->name, i);
    s->n *= s->dims[i];
    if (s->n > SIMNPU_IR_MAX_ELEMENTS)
      return fail (l, SIMNPU_ENOMEM, "weight '%s': more than %"
          G_GINT64_FORMAT " elements", s->name, SIMNPU_IR_MAX_ELEMENTS);
  }
  dtype = get_string (o, "dtype");
  if (dtype && strcmp (dtype, "float32") == 0) {
    s->dtype = SIMNPU_IR_F32;
    elem = 4;
  } else if (dtype && strcmp (dtype, "int32") == 0) {
    s->dtype = SIMNPU_IR_I32;
    elem = 4;
  } else if (dtype && strcmp (dtype, "bool") == 0) {
    s->dtype = SIMNPU_IR_BOOL;
    elem = 1;
  } else {
    return fail (l, SIMNPU_EUNSUPPORTED, "weight '%s': dtype '%s' is not "
        "supported; expected float32, int32 or bool", s->name,
        dtype ? dtype : "(none)");
  }
  q = get_object (o, "quantization");
  if (q) {
    qdtype = get_string (q, "dtype");
    if (qdtype && strcmp (qdtype, "float16") == 0) {
      s->quant = QUANT_F16;
      elem = 2;
    } else if (qdtype && (strcmp (qdtype, "uint8") == 0
            || strcmp (qdtype, "uint16") == 0)) {
      s->quant = qdtype[4] == '8' ? QUANT_U8 : QUANT_U16;
      elem = s->quant == QUANT_U8 ? 1 : 2;
      if (!node_float (json_object_get_member (q, "min"), &d) || !isfinite (d))
        return fail (l, SIMNPU_EFORMAT, "weight '%s': quantization has no "
            "finite min", s->name);
      s->min = (float) d;
      if (!node_float (json_object_get_member (q, "scale"), &d)
          || !isfinite (d))
        return fail (l, SIMNPU_EFORMAT, "weight '%s': quantization has no "
            "finite scale", s->name);
      s->scale = (float) d;
    } else {
      return fail (l, SIMNPU_EUNSUPPORTED, "weight '%s': quantization dtype "
          "'%s' is not supported; expected float16, uint8 or uint16",
          s->name, qdtype ? qdtype : "(none)");
    }
    if (s->dtype == SIMNPU_IR_BOOL)
      return fail (l, SIMNPU_EUNSUPPORTED, "weight '%s': quantised bool",
          s->name);
  }
  s->bytes = (size_t) s->n * elem;
  return 0;
}

static void
decode_weight (const tfjs_weight_spec * s, const guint8 * src, tfjs_weight * w)
{
  size_t out_size = s->dtype == SIMNPU_IR_BOOL ? 1 : 4;
  float *f;
  int64_t i;

  w->dtype = s->dtype;
  w->rank = s->rank;
  memcpy (w->dims, s->dims, sizeof w->dims);
  w->data = g_malloc0 (MAX ((size_t) s->n * out_size, 1));
  if (s->quant == QUANT_NONE) {
    memcpy (w->data, src, s->bytes);
    return;
  }
  /* dequantise into floats, then round into int32 if that is the type */
  f = s->dtype == SIMNPU_IR_F32 ? w->data : g_new (float, MAX (s->n, 1));
  for (i = 0; i < s->n; i++) {
    uint16_t h;
    switch (s->quant) {
      case QUANT_F16:
        memcpy (&h, src + 2 * i, 2);
        f[i] = half_to_float (GUINT16_FROM_LE (h));
        break;
      case QUANT_U16:
        memcpy (&h, src + 2 * i, 2);
        f[i] = (float) GUINT16_FROM_LE (h) * s->scale + s->min;
        break;
      default:
        f[i] = (float) src[i] * s->scale + s->min;
        break;
    }
  }
  if (s->dtype == SIMNPU_IR_I32) {
    int32_t *o = w->data;
    for (i = 0; i < s->n; i++)
      o[i] = isfinite (f[i]) && fabsf (f[i]) < (float) G_MAXINT32 ?
          (int32_t) lrintf (f[i]) : 0;
    g_free (f);
  }
}

static int
load_group (tfjs_loader * l, JsonObject * group, unsigned gi,
    simnpu__tfjs_shard_reader reader, gpointer user_data, int64_t * total)
{
  JsonArray *paths = get_array (group, "paths");
  JsonArray *weights = get_array (group, "weights");
  tfjs_weight_spec *specs;
  GByteArray *buf;
  unsigned i, n_weights;
  size_t expected = 0, offset = 0;
  int ret = 0;

  if (paths == NULL || weights == NULL)
    return fail (l, SIMNPU_EFORMAT, "weightsManifest[%u]: expected 'paths' "
        "and 'weights' arrays", gi);
  n_weights = json_array_get_length (weights);
  specs = g_new0 (tfjs_weight_spec, MAX (n_weights, 1));
  for (i = 0; i < n_weights && ret == 0; i++) {
    ret = parse_weight_spec (l, json_array_get_element (weights, i), gi, i,
        &specs[i]);
    if (ret == 0) {
      expected += specs[i].bytes;
      *total += specs[i].bytes;
      if (*total > TFJS_MAX_WEIGHT_BYTES)
        ret = fail (l, SIMNPU_ENOMEM, "weights: more than %" G_GINT64_FORMAT
            " bytes", TFJS_MAX_WEIGHT_BYTES);
      else if (g_hash_table_contains (l->weights, specs[i].name))
        ret = fail (l, SIMNPU_EFORMAT, "weight '%s' is listed twice",
            specs[i].name);
    }
  }
  if (ret < 0) {
    g_free (specs);
    return ret;
  }

  buf = g_byte_array_new ();
  for (i = 0; i < json_array_get_length (paths) && ret == 0; i++) {
    const char *path = node_string (json_array_get_element (paths, i));
    GBytes *b;
    gsize size;
    gconstpointer data;

    if (path == NULL) {
      ret = fail (l, SIMNPU_EFORMAT, "weightsManifest[%u].paths[%u]: "
          "expected a file name", gi, i);
      break;
    }
    b = reader ? reader (path, user_data) : NULL;
    if (b == NULL) {
      ret = fail (l, SIMNPU_EIO, "weights shard '%s' is missing or "
          "unreadable", path);
      break;
    }
    data = g_bytes_get_data (b, &size);
    if (size > expected - buf->len)
      ret = fail (l, SIMNPU_ESIZE, "weights shard '%s': the group's shards "
          "hold more than the %zu bytes its %u weights need", path, expected,
          n_weights);
    else
      g_byte_array_append (buf, data, size);
    g_bytes_unref (b);
  }
  if (ret == 0 && buf->len != expected)
    ret = fail (l, SIMNPU_ESIZE, "weightsManifest[%u]: the shards hold %u "
        "bytes; its %u weights need %zu (a shard is short or missing: '%s')",
        gi, buf->len, n_weights, expected,
        json_array_get_length (paths) ?
        node_string (json_array_get_element (paths,
                json_array_get_length (paths) - 1)) : "");
  for (i = 0; i < n_weights && ret == 0; i++) {
    tfjs_weight *w = g_new0 (tfjs_weight, 1);
    decode_weight (&specs[i], buf->data + offset, w);
    offset += specs[i].bytes;
    g_hash_table_insert (l->weights, (gpointer) specs[i].name, w);
  }
  g_byte_array_unref (buf);
  g_free (specs);
  return ret;
}

static int
load_weights (tfjs_loader * l, JsonObject * root,
    simnpu__tfjs_shard_reader reader, gpointer user_data)
{
  JsonArray *manifest = get_array (root, "weightsManifest");
  int64_t total = 0;
  unsigned i;
  int ret;

  if (manifest == NULL)
    return 0;
  for (i = 0; i < json_array_get_length (manifest); i++) {
    JsonNode *n = json_array_get_element (manifest, i);
    if (!JSON_NODE_HOLDS_OBJECT (n))
      return fail (l, SIMNPU_EFORMAT, "weightsManifest[%u]: expected an "
          "object", i);
    ret = load_group (l, json_node_get_object (n), i, reader, user_data,
        &total);
    if (ret < 0)
      return ret;
  }
  return 0;
}

/* ------------------------------------------------------------------ */
/* IR building helpers */

static const char *
dims_str (const simnpu__ir_tensor * t, char *buf, size_t size)
{
  size_t len = 0;
  unsigned i;

  buf[0] = '\0';
  len += g_snprintf (buf + len, size - len, "[");
  for (i = 0; i < t->rank && len < size; i++)
    len += g_snprintf (buf + len, size - len, "%s%" G_GINT64_FORMAT,
        i ? "," : "", t->dims[i]);
  if (len < size)
    g_snprintf (buf + len, size - len, "]");
  return buf;
}

static simnpu__ir_tensor *
T (tfjs_loader * l, int t)
{
  return &l->g->tensors[t];
}

/* A tensor name not yet taken: base, else base_1, base_2, ... */
static char *
unique_name (tfjs_loader * l, const char *base)
{
  char *name = g_strdup (base);
  unsigned k = 1;

  while (g_hash_table_contains (l->tensors, name)) {
    g_free (name);
    name = g_strdup_printf ("%s_%u", base, k++);
  }
  return name;
}

/* Adds a tensor registered under its (unique) name; the graph's tensor
 * name and the lookup key are the same. */
static int
new_tensor (tfjs_loader * l, const char *base, bool is_const,
    simnpu__ir_dtype dtype, unsigned rank, const int64_t * dims, void *data)
{
  char *name = unique_name (l, base);
  int t;

  if (is_const)
    t = simnpu__ir_add_const (l->g, name, dtype, rank, dims, data);
  else
    t = simnpu__ir_add_tensor (l->g, name, dtype, rank, dims);
  if (t < 0) {
    g_free (name);
    if (is_const)
      g_free (data);
    return fail (l, SIMNPU_ENOMEM, "too many tensors (at most %d)",
        SIMNPU_IR_MAX_TENSORS);
  }
  g_hash_table_insert (l->tensors, name, GINT_TO_POINTER (t + 1));
  return t;
}

static int
new_const (tfjs_loader * l, const char *suffix, simnpu__ir_dtype dtype,
    unsigned rank, const int64_t * dims, void *data)
{
  char *base = g_strdup_printf ("%s/%s", l->cur->name, suffix);
  int t = new_tensor (l, base, true, dtype, rank, dims, data);
  g_free (base);
  return t;
}

/* Starts a node of op named after the TF node (suffix NULL) or
 * node/suffix, with n_out fresh outputs named likewise ("name:k" for
 * k > 0). Fill the attrs of *node_out, then finish_op(). */
static int
begin_op (tfjs_loader * l, simnpu__ir_op op, const char *suffix,
    unsigned n_in, const int *in, unsigned n_out, int *out,
    simnpu__ir_node ** node_out)
{
  char *base = suffix ? g_strdup_printf ("%s/%s", l->cur->name, suffix)
      : g_strdup (l->cur->name);
  simnpu__ir_node *n;
  unsigned k;

  for (k = 0; k < n_out; k++) {
    char *name = k ? g_strdup_printf ("%s:%u", base, k) : g_strdup (base);
    out[k] = new_tensor (l, name, false, SIMNPU_IR_F32, 0, NULL, NULL);
    g_free (name);
    if (out[k] < 0) {
      g_free (base);
      return out[k];
    }
  }
  n = l->g->n_nodes < SIMNPU_IR_MAX_NODES ?
      simnpu__ir_add_node (l->g, op, base, n_in, in, n_out, out) : NULL;
  g_free (base);
  if (n == NULL)
    return fail (l, SIMNPU_ENOMEM, "too many nodes (at most %d)",
        SIMNPU_IR_MAX_NODES);
  *node_out = n;
  return 0;
}

/* Infers the new node's output shapes at once: later nodes' translation
 * needs them (SAME padding, reshape targets). */
static int
finish_op (tfjs_loader * l, simnpu__ir_node * n)
{
  const simnpu__ir_op_info *info = simnpu__ir_op_get (n->op);
  unsigned i;

  if (info == NULL || info->infer == NULL)
    return fail (l, SIMNPU_EINTERNAL, "IR op %d has no shape inference", n->op);
  if (n->n_inputs < info->min_inputs || n->n_inputs > info->max_inputs)
    return fail (l, SIMNPU_EFORMAT, "%u inputs for %s; expected %u to %u",
        n->n_inputs, info->name, info->min_inputs, info->max_inputs);
  for (i = 0; i < n->n_outputs; i++)
    l->g->tensors[n->outputs[i]].producer = (int) (n - l->g->nodes);
  return info->infer (l->g, n, l->error);
}

/* One-output op with default attributes. */
static int
simple_op (tfjs_loader * l, simnpu__ir_op op, const char *suffix,
    unsigned n_in, const int *in)
{
  simnpu__ir_node *n;
  int out, ret;

  ret = begin_op (l, op, suffix, n_in, in, 1, &out, &n);
  if (ret == 0)
    ret = finish_op (l, n);
  return ret < 0 ? ret : out;
}

static int
reshape_op (tfjs_loader * l, const char *suffix, int x, unsigned rank,
    const int64_t * dims)
{
  simnpu__ir_node *n;
  int out, ret;
  unsigned i;

  ret = begin_op (l, SIMNPU_IR_RESHAPE, suffix, 1, &x, 1, &out, &n);
  if (ret < 0)
    return ret;
  n->attrs.n_ints = rank;
  for (i = 0; i < rank; i++)
    n->attrs.ints[i] = dims[i];
  ret = finish_op (l, n);
  return ret < 0 ? ret : out;
}

static int
transpose_op (tfjs_loader * l, const char *suffix, int x, unsigned rank,
    const int64_t * perm)
{
  simnpu__ir_node *n;
  int out, ret;
  unsigned i;

  ret = begin_op (l, SIMNPU_IR_TRANSPOSE, suffix, 1, &x, 1, &out, &n);
  if (ret < 0)
    return ret;
  n->attrs.n_ints = rank;
  for (i = 0; i < rank; i++)
    n->attrs.ints[i] = perm[i];
  ret = finish_op (l, n);
  return ret < 0 ? ret : out;
}

/* Makes tensor t constant, folding what computes it. */
static int
need_const (tfjs_loader * l, int t, const char *what)
{
  int ret;

  if (T (l, t)->is_const)
    return 0;
  ret = simnpu__ir_fold_constants (l->g, l->error);
  if (ret < 0)
    return ret;
  if (!T (l, t)->is_const)
    return fail (l, SIMNPU_EUNSUPPORTED, "%s ('%s') must be constant",
        what, T (l, t)->name);
  return 0;
}

/* The integer values of a constant (any rank, I32 or I64). */
static int
const_ints (tfjs_loader * l, int t, const char *what, int64_t * vals,
    unsigned max, unsigned *n)
{
  simnpu__ir_tensor *x;
  int64_t count, i;
  int ret = need_const (l, t, what);

  if (ret < 0)
    return ret;
  x = T (l, t);
  count = simnpu__ir_tensor_elements (x);
  if (x->dtype != SIMNPU_IR_I32 && x->dtype != SIMNPU_IR_I64)
    return fail (l, SIMNPU_EFORMAT, "%s ('%s'): expected int32 values, not "
        "%s", what, x->name, simnpu__ir_dtype_name (x->dtype));
  if (count > max)
    return fail (l, SIMNPU_EFORMAT, "%s ('%s'): %" G_GINT64_FORMAT
        " values; expected at most %u", what, x->name, count, max);
  for (i = 0; i < count; i++)
    vals[i] = x->dtype == SIMNPU_IR_I32 ? ((const int32_t *) x->data)[i]
        : ((const int64_t *) x->data)[i];
  *n = (unsigned) count;
  return 0;
}

static int
const_float (tfjs_loader * l, int t, const char *what, float *out)
{
  simnpu__ir_tensor *x;
  int ret = need_const (l, t, what);

  if (ret < 0)
    return ret;
  x = T (l, t);
  if (simnpu__ir_tensor_elements (x) != 1)
    return fail (l, SIMNPU_EFORMAT, "%s ('%s'): expected one value", what,
        x->name);
  switch (x->dtype) {
    case SIMNPU_IR_F32:
      *out = *(const float *) x->data;
      break;
    case SIMNPU_IR_I32:
      *out = (float) *(const int32_t *) x->data;
      break;
    case SIMNPU_IR_I64:
      *out = (float) *(const int64_t *) x->data;
      break;
    default:
      return fail (l, SIMNPU_EFORMAT, "%s ('%s'): expected a number", what,
          x->name);
  }
  return 0;
}

static int
normalise_axis (tfjs_loader * l, int64_t axis, unsigned rank, int32_t * out)
{
  if (axis < -(int64_t) rank || axis >= (int64_t) rank)
    return fail (l, SIMNPU_EFORMAT, "axis %" G_GINT64_FORMAT " is out of "
        "range for rank %u", axis, rank);
  *out = (int32_t) (axis < 0 ? axis + rank : axis);
  return 0;
}

static int
register_output (tfjs_loader * l, const tfjs_node * tn, unsigned k, int t)
{
  char *key = k ? g_strdup_printf ("%s:%u", tn->name, k) : g_strdup (tn->name);
  /* the final op of a node already carries its name; an alias (identity
   * translations) points the key at an existing tensor */
  g_hash_table_replace (l->tensors, key, GINT_TO_POINTER (t + 1));
  return 0;
}

/* ------------------------------------------------------------------ */
/* Op translations. Each receives the data inputs' tensors and registers
 * the node's outputs. */

static int
tr_elementwise (tfjs_loader * l, const tfjs_node * tn, const int *in,
    simnpu__ir_op op)
{
  const simnpu__ir_op_info *info = simnpu__ir_op_get (op);
  int out;

  if (info && (tn->n_inputs < info->min_inputs
          || tn->n_inputs > info->max_inputs))
    return fail (l, SIMNPU_EFORMAT, "%u inputs; expected %u to %u",
        tn->n_inputs, info->min_inputs, info->max_inputs);
  out = simple_op (l, op, NULL, tn->n_inputs, in);
  return out < 0 ? out : register_output (l, tn, 0, out);
}

static int
need_inputs (tfjs_loader * l, const tfjs_node * tn, unsigned min, unsigned max)
{
  if (tn->n_inputs < min || tn->n_inputs > max)
    return fail (l, SIMNPU_EFORMAT, "%u inputs; expected %u to %u",
        tn->n_inputs, min, max);
  return 0;
}

static int
tr_unary_attrs (tfjs_loader * l, const tfjs_node * tn, const int *in,
    simnpu__ir_op op, float f0, float f1)
{
  simnpu__ir_node *n;
  int out, ret = need_inputs (l, tn, 1, 1);

  if (ret == 0)
    ret = begin_op (l, op, NULL, 1, in, 1, &out, &n);
  if (ret < 0)
    return ret;
  n->attrs.f[0] = f0;
  n->attrs.f[1] = f1;
  ret = finish_op (l, n);
  return ret < 0 ? ret : register_output (l, tn, 0, out);
}

static int
tr_relu6 (tfjs_loader * l, const tfjs_node * tn, const int *in)
{
  return tr_unary_attrs (l, tn, in, SIMNPU_IR_CLIP, 0.0f, TFJS_RELU6_MAX);
}

static int
tr_elu (tfjs_loader * l, const tfjs_node * tn, const int *in)
{
  return tr_unary_attrs (l, tn, in, SIMNPU_IR_ELU, TFJS_ELU_ALPHA, 0.0f);
}

static int
tr_selu (tfjs_loader * l, const tfjs_node * tn, const int *in)
{
  return tr_unary_attrs (l, tn, in, SIMNPU_IR_SELU, TFJS_SELU_ALPHA,
      TFJS_SELU_GAMMA);
}

static int
tr_leaky_relu (tfjs_loader * l, const tfjs_node * tn, const int *in)
{
  float alpha;
  int ret = attr_float (l, tn, "alpha", TFJS_DEFAULT_LEAKY_ALPHA, &alpha);
  return ret < 0 ? ret : tr_unary_attrs (l, tn, in, SIMNPU_IR_LEAKY_RELU,
      alpha, 0.0f);
}

static int
tr_square (tfjs_loader * l, const tfjs_node * tn, const int *in)
{
  int xx[2], out, ret = need_inputs (l, tn, 1, 1);

  if (ret < 0)
    return ret;
  xx[0] = xx[1] = in[0];
  out = simple_op (l, SIMNPU_IR_MUL, NULL, 2, xx);
  return out < 0 ? out : register_output (l, tn, 0, out);
}

static int
tr_squared_difference (tfjs_loader * l, const tfjs_node * tn, const int *in)
{
  int d[2], out, ret = need_inputs (l, tn, 2, 2);

  if (ret < 0)
    return ret;
  d[0] = d[1] = simple_op (l, SIMNPU_IR_SUB, "sub", 2, in);
  if (d[0] < 0)
    return d[0];
  out = simple_op (l, SIMNPU_IR_MUL, NULL, 2, d);
  return out < 0 ? out : register_output (l, tn, 0, out);
}

static int
tr_add_n (tfjs_loader * l, const tfjs_node * tn, const int *in)
{
  int acc, ret = need_inputs (l, tn, 1, TFJS_MAX_NODE_INPUTS);
  unsigned i;

  if (ret < 0)
    return ret;
  if (tn->n_inputs == 1)
    return tr_elementwise (l, tn, in, SIMNPU_IR_IDENTITY);
  acc = in[0];
  for (i = 1; i < tn->n_inputs; i++) {
    int pair[2] = { acc, in[i] };
    char suffix[32];
    g_snprintf (suffix, sizeof suffix, "add%u", i);
    acc = simple_op (l, SIMNPU_IR_ADD, i + 1 == tn->n_inputs ? NULL : suffix,
        2, pair);
    if (acc < 0)
      return acc;
  }
  return register_output (l, tn, 0, acc);
}

static int
check_nhwc (tfjs_loader * l, const tfjs_node * tn)
{
  char fmt[TFJS_ATTR_STRING];
  int ret = attr_string (l, tn, "data_format", fmt);

  if (ret < 0)
    return ret;
  if (fmt[0] != '\0' && strcmp (fmt, "NHWC") != 0)
    return fail (l, SIMNPU_EUNSUPPORTED, "data_format '%s'; only NHWC is "
        "supported", fmt);
  return 0;
}

static int
tr_bias_add (tfjs_loader * l, const tfjs_node * tn, const int *in)
{
  int ret = need_inputs (l, tn, 2, 2);

  if (ret == 0)
    ret = check_nhwc (l, tn);
  return ret < 0 ? ret : tr_elementwise (l, tn, in, SIMNPU_IR_ADD);
}

static int
tr_softmax (tfjs_loader * l, const tfjs_node * tn, const int *in,
    simnpu__ir_op op)
{
  simnpu__ir_node *n;
  int out, ret = need_inputs (l, tn, 1, 1);

  if (ret == 0 && T (l, in[0])->rank == 0)
    ret = fail (l, SIMNPU_ESHAPE, "the input is a scalar");
  if (ret == 0)
    ret = begin_op (l, op, NULL, 1, in, 1, &out, &n);
  if (ret < 0)
    return ret;
  n->attrs.axis = (int32_t) T (l, in[0])->rank - 1;
  ret = finish_op (l, n);
  return ret < 0 ? ret : register_output (l, tn, 0, out);
}

static int
tr_softmax_op (tfjs_loader * l, const tfjs_node * tn, const int *in)
{
  return tr_softmax (l, tn, in, SIMNPU_IR_SOFTMAX);
}

static int
tr_log_softmax (tfjs_loader * l, const tfjs_node * tn, const int *in)
{
  return tr_softmax (l, tn, in, SIMNPU_IR_LOG_SOFTMAX);
}

/* TF's SAME: pad_total = max((ceil(in/s) - 1) * s + (k - 1) * d + 1 - in,
 * 0), the smaller half before. */
static void
same_pads (int64_t in, int64_t k, int64_t s, int64_t d, int32_t * before,
    int32_t * after)
{
  int64_t out = (in + s - 1) / s;
  int64_t total = MAX ((out - 1) * s + (k - 1) * d + 1 - in, 0);
  *before = (int32_t) (total / 2);
  *after = (int32_t) (total - total / 2);
}

/* strides, dilations and padding of a conv or pool over NHWC input x. */
static int
spatial_attrs (tfjs_loader * l, const tfjs_node * tn, int x,
    simnpu__ir_attrs * a)
{
  char padding[TFJS_ATTR_STRING];
  int64_t v[TFJS_MAX_LIST];
  unsigned n, i;
  int ret;
  const simnpu__ir_tensor *t = T (l, x);

  if (t->rank != 4)
    return fail (l, SIMNPU_ESHAPE, "input '%s' has rank %u; expected NHWC "
        "(rank 4)", t->name, t->rank);
  ret = check_nhwc (l, tn);
  if (ret < 0)
    return ret;
  ret = attr_ints (l, tn, "strides", v, TFJS_MAX_LIST, &n);
  if (ret < 0)
    return ret;
  if (n == 4) {
    if (v[1] < 1 || v[2] < 1 || v[1] > G_MAXINT16 || v[2] > G_MAXINT16)
      return fail (l, SIMNPU_EFORMAT, "strides must be positive");
    a->stride[0] = (int32_t) v[1];
    a->stride[1] = (int32_t) v[2];
  } else if (n != 0) {
    return fail (l, SIMNPU_EFORMAT, "%u strides; expected 4 (NHWC)", n);
  }
  ret = attr_ints (l, tn, "dilations", v, TFJS_MAX_LIST, &n);
  if (ret < 0)
    return ret;
  if (n == 4) {
    if (v[1] < 1 || v[2] < 1 || v[1] > G_MAXINT16 || v[2] > G_MAXINT16)
      return fail (l, SIMNPU_EFORMAT, "dilations must be positive");
    a->dilation[0] = (int32_t) v[1];
    a->dilation[1] = (int32_t) v[2];
  } else if (n != 0) {
    return fail (l, SIMNPU_EFORMAT, "%u dilations; expected 4 (NHWC)", n);
  }
  ret = attr_string (l, tn, "padding", padding);
  if (ret < 0)
    return ret;
  if (strcmp (padding, "SAME") == 0) {
    same_pads (t->dims[1], a->kernel[0], a->stride[0], a->dilation[0],
        &a->pads[0], &a->pads[2]);
    same_pads (t->dims[2], a->kernel[1], a->stride[1], a->dilation[1],
        &a->pads[1], &a->pads[3]);
  } else if (strcmp (padding, "EXPLICIT") == 0) {
    ret = attr_ints (l, tn, "explicit_paddings", v, TFJS_MAX_LIST, &n);
    if (ret < 0)
      return ret;
    if (n != 8)
      return fail (l, SIMNPU_EFORMAT, "%u explicit_paddings; expected 8", n);
    for (i = 0; i < 8; i++)
      if (v[i] < 0 || v[i] > G_MAXINT16 || ((i < 2 || i >= 6) && v[i] != 0))
        return fail (l, SIMNPU_EUNSUPPORTED, "explicit_paddings[%u] = %"
            G_GINT64_FORMAT "; expected spatial pads >= 0 only", i, v[i]);
    a->pads[0] = (int32_t) v[2];
    a->pads[2] = (int32_t) v[3];
    a->pads[1] = (int32_t) v[4];
    a->pads[3] = (int32_t) v[5];
  } else if (strcmp (padding, "VALID") != 0) {
    return fail (l, SIMNPU_EUNSUPPORTED, "padding '%s'; expected SAME, "
        "VALID or EXPLICIT", padding);
  }
  return 0;
}

/* The activation of a fused op by its TF name. */
static bool
act_by_name (const char *s, float leaky_alpha, simnpu__ir_act * act,
    float *lo, float *hi, float *alpha)
{
  *lo = 0.0f;
  *hi = INFINITY;
  *alpha = 0.0f;
  if (strcmp (s, "Relu") == 0)
    *act = SIMNPU_IR_ACT_RELU;
  else if (strcmp (s, "Relu6") == 0) {
    *act = SIMNPU_IR_ACT_CLIP;
    *hi = TFJS_RELU6_MAX;
  } else if (strcmp (s, "Elu") == 0) {
    *act = SIMNPU_IR_ACT_ELU;
    *alpha = TFJS_ELU_ALPHA;
  } else if (strcmp (s, "LeakyRelu") == 0) {
    *act = SIMNPU_IR_ACT_LEAKY_RELU;
    *alpha = leaky_alpha;
  } else if (strcmp (s, "Sigmoid") == 0)
    *act = SIMNPU_IR_ACT_SIGMOID;
  else if (strcmp (s, "Tanh") == 0)
    *act = SIMNPU_IR_ACT_TANH;
  else
    return false;
  return true;
}

/* The standalone op for an activation (after a fused batchnorm). */
static int
act_op (tfjs_loader * l, int x, simnpu__ir_act act, float lo, float hi,
    float alpha, const char *suffix)
{
  static const simnpu__ir_op ops[] = {
    [SIMNPU_IR_ACT_RELU] = SIMNPU_IR_RELU,
    [SIMNPU_IR_ACT_CLIP] = SIMNPU_IR_CLIP,
    [SIMNPU_IR_ACT_LEAKY_RELU] = SIMNPU_IR_LEAKY_RELU,
    [SIMNPU_IR_ACT_SIGMOID] = SIMNPU_IR_SIGMOID,
    [SIMNPU_IR_ACT_TANH] = SIMNPU_IR_TANH,
    [SIMNPU_IR_ACT_HARD_SWISH] = SIMNPU_IR_HARD_SWISH,
    [SIMNPU_IR_ACT_ELU] = SIMNPU_IR_ELU,
  };
  simnpu__ir_node *n;
  int out, ret;

  ret = begin_op (l, ops[act], suffix, 1, &x, 1, &out, &n);
  if (ret < 0)
    return ret;
  if (act == SIMNPU_IR_ACT_CLIP) {
    n->attrs.f[0] = lo;
    n->attrs.f[1] = hi;
  } else {
    n->attrs.f[0] = alpha;
  }
  ret = finish_op (l, n);
  return ret < 0 ? ret : out;
}

typedef struct
{
  bool bias, batchnorm, prelu;
  bool has_act;
  simnpu__ir_act act;
  float lo, hi, alpha;
  unsigned n_args;
} tfjs_fused;

static int
parse_fused (tfjs_loader * l, const tfjs_node * tn, unsigned n_main,
    tfjs_fused * f)
{
  JsonArray *ops = get_array (get_object (attr_value (tn, "fused_ops"),
          "list"), "s");
  float leaky;
  unsigned i, len;
  int64_t num_args;
  int ret;

  memset (f, 0, sizeof *f);
  ret = attr_float (l, tn, "leakyrelu_alpha", TFJS_DEFAULT_LEAKY_ALPHA, &leaky);
  if (ret == 0)
    ret = attr_int (l, tn, "num_args", 0, 0, 8, &num_args);
  if (ret < 0)
    return ret;
  len = ops ? json_array_get_length (ops) : 0;
  for (i = 0; i < len; i++) {
    char s[TFJS_ATTR_STRING];
    ret = decode_b64 (l, "fused_ops",
        node_string (json_array_get_element (ops, i)), s, sizeof s);
    if (ret < 0)
      return ret;
    if (i == 0 && strcmp (s, "BiasAdd") == 0)
      f->bias = true;
    else if (i == 0 && strcmp (s, "FusedBatchNorm") == 0)
      f->batchnorm = true;
    else if (!f->has_act && strcmp (s, "Prelu") == 0)
      f->prelu = f->has_act = true;
    else if (!f->has_act && act_by_name (s, leaky, &f->act, &f->lo, &f->hi,
            &f->alpha))
      f->has_act = true;
    else
      return fail (l, SIMNPU_EUNSUPPORTED, "fused op %u '%s' is not "
          "supported (expected BiasAdd or FusedBatchNorm, then Relu, Relu6, "
          "Elu, LeakyRelu, Sigmoid, Tanh or Prelu)", i, s);
  }
  f->n_args = (f->bias ? 1 : 0) + (f->batchnorm ? 4 : 0) + (f->prelu ? 1 : 0);
  if ((int64_t) f->n_args != num_args && !(num_args == 0 && f->n_args == 0))
    return fail (l, SIMNPU_EFORMAT, "num_args %" G_GINT64_FORMAT " does not "
        "match fused_ops (%u arguments)", num_args, f->n_args);
  if (tn->n_inputs != n_main + f->n_args)
    return fail (l, SIMNPU_EFORMAT, "%u inputs; expected %u", tn->n_inputs,
        n_main + f->n_args);
  return 0;
}

/* Applies the fused ops after the main op (output x, whose node got the
 * bias and activation when it could); registers the final tensor. */
static int
finish_fused (tfjs_loader * l, const tfjs_node * tn, const int *in,
    unsigned n_main, const tfjs_fused * f, int x)
{
  float eps;
  int ret;

  if (f->batchnorm) {
    simnpu__ir_node *n;
    int bn_in[5] = { x, in[n_main], in[n_main + 1], in[n_main + 2],
      in[n_main + 3]
    };
    int out;
    ret = attr_float (l, tn, "epsilon", TFJS_DEFAULT_BN_EPSILON, &eps);
    if (ret == 0)
      ret = begin_op (l, SIMNPU_IR_BATCHNORM, f->has_act ? "bn" : NULL, 5,
          bn_in, 1, &out, &n);
    if (ret < 0)
      return ret;
    n->attrs.f[0] = eps;
    ret = finish_op (l, n);
    if (ret < 0)
      return ret;
    x = out;
    if (f->has_act && !f->prelu) {
      x = act_op (l, x, f->act, f->lo, f->hi, f->alpha, NULL);
      if (x < 0)
        return x;
    }
  }
  if (f->prelu) {
    int pr[2] = { x, in[n_main + f->n_args - 1] };
    x = simple_op (l, SIMNPU_IR_PRELU, NULL, 2, pr);
    if (x < 0)
      return x;
  }
  return register_output (l, tn, 0, x);
}

/* HWIO (depthwise: H, W, C, multiplier) filter into OHWI. */
static int
filter_ohwi (tfjs_loader * l, int f, bool depthwise)
{
  const simnpu__ir_tensor *t = T (l, f);
  int64_t kh = t->dims[0], kw = t->dims[1], ci = t->dims[2], co = t->dims[3];
  int64_t dims[4];
  const float *src;
  float *dst;
  int64_t h, w, i, o;

  if (!t->is_const || t->dtype != SIMNPU_IR_F32) {
    int64_t perm_conv[4] = { 3, 0, 1, 2 }, perm_dw[4] = { 2, 3, 0, 1 };
    int x = transpose_op (l, "filter", f, 4, depthwise ? perm_dw : perm_conv);
    if (x < 0 || !depthwise)
      return x;
    dims[0] = ci * co;
    dims[1] = kh;
    dims[2] = kw;
    dims[3] = 1;
    return reshape_op (l, "filter_ohwi", x, 4, dims);
  }
  src = t->data;
  dst = g_new (float, MAX (kh * kw * ci * co, 1));
  for (h = 0; h < kh; h++)
    for (w = 0; w < kw; w++)
      for (i = 0; i < ci; i++)
        for (o = 0; o < co; o++) {
          float v = src[((h * kw + w) * ci + i) * co + o];
          if (depthwise)
            dst[((i * co + o) * kh + h) * kw + w] = v;
          else
            dst[((o * kh + h) * kw + w) * ci + i] = v;
        }
  if (depthwise) {
    dims[0] = ci * co;
    dims[3] = 1;
  } else {
    dims[0] = co;
    dims[3] = ci;
  }
  dims[1] = kh;
  dims[2] = kw;
  return new_const (l, "ohwi", SIMNPU_IR_F32, 4, dims, dst);
}

static int
translate_conv (tfjs_loader * l, const tfjs_node * tn, const int *in,
    bool depthwise, bool fused)
{
  simnpu__ir_attrs a = { 0 };
  const simnpu__ir_tensor *x, *f;
  simnpu__ir_node *n;
  tfjs_fused fu = { 0 };
  int conv_in[3], w, out, ret;
  int64_t xc;

  ret = fused ? parse_fused (l, tn, 2, &fu) : need_inputs (l, tn, 2, 2);
  if (ret < 0)
    return ret;
  x = T (l, in[0]);
  f = T (l, in[1]);
  if (f->rank != 4 || f->dtype != SIMNPU_IR_F32)
    return fail (l, SIMNPU_ESHAPE, "filter '%s' has rank %u; expected 4 "
        "(HWIO)", f->name, f->rank);
  if (f->dims[0] < 1 || f->dims[1] < 1 || f->dims[0] > G_MAXINT16
      || f->dims[1] > G_MAXINT16 || f->dims[2] < 1 || f->dims[3] < 1)
    return fail (l, SIMNPU_ESHAPE, "filter '%s' has an empty or huge "
        "kernel", f->name);
  a.kernel[0] = (int32_t) f->dims[0];
  a.kernel[1] = (int32_t) f->dims[1];
  a.stride[0] = a.stride[1] = a.dilation[0] = a.dilation[1] = 1;
  ret = spatial_attrs (l, tn, in[0], &a);
  if (ret < 0)
    return ret;
  xc = x->dims[3];
  if (depthwise) {
    if (xc != f->dims[2])
      return fail (l, SIMNPU_ESHAPE, "input '%s' has %" G_GINT64_FORMAT
          " channels; the depthwise filter '%s' expects %" G_GINT64_FORMAT,
          x->name, xc, f->name, f->dims[2]);
    a.groups = (int32_t) xc;
  } else {
    if (xc % f->dims[2] != 0)
      return fail (l, SIMNPU_ESHAPE, "input '%s' has %" G_GINT64_FORMAT
          " channels, not a multiple of the filter's %" G_GINT64_FORMAT,
          x->name, xc, f->dims[2]);
    a.groups = (int32_t) (xc / f->dims[2]);
  }
  if (fu.has_act && !fu.batchnorm && !fu.prelu) {
    a.act = fu.act;
    a.act_min = fu.lo;
    a.act_max = fu.hi;
    a.act_alpha = fu.alpha;
  } else {
    a.act_max = INFINITY;
  }
  w = filter_ohwi (l, in[1], depthwise);
  if (w < 0)
    return w;
  conv_in[0] = in[0];
  conv_in[1] = w;
  conv_in[2] = fu.bias ? in[2] : SIMNPU_IR_NONE;
  ret = begin_op (l, SIMNPU_IR_CONV2D,
      fu.batchnorm || fu.prelu ? "conv" : NULL, fu.bias ? 3 : 2, conv_in, 1,
      &out, &n);
  if (ret < 0)
    return ret;
  n->attrs = a;
  ret = finish_op (l, n);
  if (ret < 0)
    return ret;
  return finish_fused (l, tn, in, 2, &fu, out);
}

static int
tr_conv2d (tfjs_loader * l, const tfjs_node * tn, const int *in)
{
  return translate_conv (l, tn, in, false, false);
}

static int
tr_fused_conv2d (tfjs_loader * l, const tfjs_node * tn, const int *in)
{
  return translate_conv (l, tn, in, false, true);
}

static int
tr_depthwise (tfjs_loader * l, const tfjs_node * tn, const int *in)
{
  return translate_conv (l, tn, in, true, false);
}

static int
tr_fused_depthwise (tfjs_loader * l, const tfjs_node * tn, const int *in)
{
  return translate_conv (l, tn, in, true, true);
}

/* The last two axes swapped: of a constant's data, else by a node. */
static int
swap_last (tfjs_loader * l, int x, const char *suffix)
{
  const simnpu__ir_tensor *t = T (l, x);
  int64_t perm[SIMNPU_IR_MAX_RANK];
  unsigned i;

  if (t->rank < 2)
    return fail (l, SIMNPU_ESHAPE, "cannot transpose '%s' of rank %u",
        t->name, t->rank);
  if (t->is_const && t->rank == 2 && t->dtype == SIMNPU_IR_F32) {
    int64_t r = t->dims[0], c = t->dims[1], dims[2] = { c, r }, y, z;
    float *dst = g_new (float, MAX (r * c, 1));
    for (y = 0; y < r; y++)
      for (z = 0; z < c; z++)
        dst[z * r + y] = ((const float *) t->data)[y * c + z];
    return new_const (l, suffix, SIMNPU_IR_F32, 2, dims, dst);
  }
  for (i = 0; i < t->rank; i++)
    perm[i] = i;
  perm[t->rank - 2] = t->rank - 1;
  perm[t->rank - 1] = t->rank - 2;
  return transpose_op (l, suffix, x, t->rank, perm);
}

static int
translate_matmul (tfjs_loader * l, const tfjs_node * tn, const int *in,
    bool fused)
{
  simnpu__ir_node *n;
  tfjs_fused fu = { 0 };
  int mm_in[3], out, ret;

  ret = fused ? parse_fused (l, tn, 2, &fu) : need_inputs (l, tn, 2, 2);
  if (ret < 0)
    return ret;
  if (fu.batchnorm)
    return fail (l, SIMNPU_EUNSUPPORTED, "FusedBatchNorm after MatMul");
  mm_in[0] = in[0];
  mm_in[1] = in[1];
  if (attr_bool (tn, "transpose_a", false)
      || attr_bool (tn, "adj_x", false)) {
    mm_in[0] = swap_last (l, in[0], "a_t");
    if (mm_in[0] < 0)
      return mm_in[0];
  }
  if (attr_bool (tn, "transpose_b", false)
      || attr_bool (tn, "adj_y", false)) {
    mm_in[1] = swap_last (l, in[1], "b_t");
    if (mm_in[1] < 0)
      return mm_in[1];
  }
  mm_in[2] = fu.bias ? in[2] : SIMNPU_IR_NONE;
  ret = begin_op (l, SIMNPU_IR_MATMUL, fu.prelu ? "matmul" : NULL,
      fu.bias ? 3 : 2, mm_in, 1, &out, &n);
  if (ret < 0)
    return ret;
  if (fu.has_act && !fu.prelu) {
    n->attrs.act = fu.act;
    n->attrs.act_min = fu.lo;
    n->attrs.act_max = fu.hi;
    n->attrs.act_alpha = fu.alpha;
  }
  ret = finish_op (l, n);
  if (ret < 0)
    return ret;
  return finish_fused (l, tn, in, 2, &fu, out);
}

static int
tr_matmul (tfjs_loader * l, const tfjs_node * tn, const int *in)
{
  return translate_matmul (l, tn, in, false);
}

static int
tr_fused_matmul (tfjs_loader * l, const tfjs_node * tn, const int *in)
{
  return translate_matmul (l, tn, in, true);
}

static int
tr_batchnorm (tfjs_loader * l, const tfjs_node * tn, const int *in)
{
  simnpu__ir_node *n;
  float eps;
  int out, ret = need_inputs (l, tn, 5, 5);

  if (ret == 0)
    ret = check_nhwc (l, tn);
  if (ret == 0 && attr_bool (tn, "is_training", false))
    ret = fail (l, SIMNPU_EUNSUPPORTED, "is_training is set; only "
        "inference batch norms are supported");
  if (ret == 0)
    ret = attr_float (l, tn, "epsilon", TFJS_DEFAULT_BN_EPSILON, &eps);
  if (ret == 0)
    ret = begin_op (l, SIMNPU_IR_BATCHNORM, NULL, 5, in, 1, &out, &n);
  if (ret < 0)
    return ret;
  n->attrs.f[0] = eps;
  ret = finish_op (l, n);
  return ret < 0 ? ret : register_output (l, tn, 0, out);
}

static int
translate_pool (tfjs_loader * l, const tfjs_node * tn, const int *in,
    simnpu__ir_op op)
{
  simnpu__ir_attrs a = { 0 };
  simnpu__ir_node *n;
  int64_t k[TFJS_MAX_LIST];
  unsigned nk;
  int out, ret = need_inputs (l, tn, 1, 1);

  if (ret == 0)
    ret = attr_ints (l, tn, "ksize", k, TFJS_MAX_LIST, &nk);
  if (ret < 0)
    return ret;
  if (nk != 4 || k[0] != 1 || k[3] != 1 || k[1] < 1 || k[2] < 1
      || k[1] > G_MAXINT16 || k[2] > G_MAXINT16)
    return fail (l, SIMNPU_EUNSUPPORTED, "ksize: expected [1, h, w, 1]");
  a.kernel[0] = (int32_t) k[1];
  a.kernel[1] = (int32_t) k[2];
  a.stride[0] = a.stride[1] = a.dilation[0] = a.dilation[1] = 1;
  a.groups = 1;
  a.act_max = INFINITY;
  ret = spatial_attrs (l, tn, in[0], &a);
  if (ret < 0)
    return ret;
  /* TF averages over the window's part inside the input */
  a.count_include_pad = false;
  ret = begin_op (l, op, NULL, 1, in, 1, &out, &n);
  if (ret < 0)
    return ret;
  n->attrs = a;
  ret = finish_op (l, n);
  return ret < 0 ? ret : register_output (l, tn, 0, out);
}

static int
tr_maxpool (tfjs_loader * l, const tfjs_node * tn, const int *in)
{
  return translate_pool (l, tn, in, SIMNPU_IR_MAXPOOL);
}

static int
tr_avgpool (tfjs_loader * l, const tfjs_node * tn, const int *in)
{
  return translate_pool (l, tn, in, SIMNPU_IR_AVGPOOL);
}

static int
translate_reduce (tfjs_loader * l, const tfjs_node * tn, const int *in,
    simnpu__ir_op op)
{
  simnpu__ir_node *n;
  int64_t axes[SIMNPU_IR_MAX_RANK];
  unsigned n_axes, i, j, rank;
  int out, ret = need_inputs (l, tn, 2, 2);

  if (ret == 0)
    ret = const_ints (l, in[1], "reduction_indices", axes, SIMNPU_IR_MAX_RANK,
        &n_axes);
  if (ret < 0)
    return ret;
  if (n_axes == 0)
    return tr_elementwise (l, tn, in, SIMNPU_IR_IDENTITY);
  ret = begin_op (l, op, NULL, 1, in, 1, &out, &n);
  if (ret < 0)
    return ret;
  rank = T (l, in[0])->rank;
  for (i = 0; i < n_axes; i++) {
    int32_t ax = 0;
    ret = normalise_axis (l, axes[i], rank, &ax);
    if (ret < 0)
      return ret;
    for (j = 0; j < i; j++)
      if (n->attrs.ints[j] == ax)
        return fail (l, SIMNPU_EFORMAT, "axis %d is reduced twice", ax);
    n->attrs.ints[i] = ax;
  }
  n->attrs.n_ints = n_axes;
  n->attrs.keepdims = attr_bool (tn, "keep_dims", false);
  ret = finish_op (l, n);
  return ret < 0 ? ret : register_output (l, tn, 0, out);
}

static int
tr_mean (tfjs_loader * l, const tfjs_node * tn, const int *in)
{
  return translate_reduce (l, tn, in, SIMNPU_IR_REDUCE_MEAN);
}

static int
tr_sum (tfjs_loader * l, const tfjs_node * tn, const int *in)
{
  return translate_reduce (l, tn, in, SIMNPU_IR_REDUCE_SUM);
}

static int
tr_max (tfjs_loader * l, const tfjs_node * tn, const int *in)
{
  return translate_reduce (l, tn, in, SIMNPU_IR_REDUCE_MAX);
}

static int
tr_min (tfjs_loader * l, const tfjs_node * tn, const int *in)
{
  return translate_reduce (l, tn, in, SIMNPU_IR_REDUCE_MIN);
}

static int
tr_prod (tfjs_loader * l, const tfjs_node * tn, const int *in)
{
  return translate_reduce (l, tn, in, SIMNPU_IR_REDUCE_PROD);
}

static int
translate_arg (tfjs_loader * l, const tfjs_node * tn, const int *in,
    simnpu__ir_op op)
{
  simnpu__ir_node *n;
  simnpu__ir_dtype dt;
  int64_t axis;
  unsigned na;
  int out, ret = need_inputs (l, tn, 2, 2);

  if (ret == 0)
    ret = const_ints (l, in[1], "dimension", &axis, 1, &na);
  if (ret == 0 && na != 1)
    ret = fail (l, SIMNPU_EFORMAT, "expected one dimension");
  if (ret == 0)
    ret = attr_type (l, tn, "output_type", SIMNPU_IR_I64, &dt);
  if (ret == 0)
    ret = begin_op (l, op, dt == SIMNPU_IR_I64 ? NULL : "arg", 1, in, 1,
        &out, &n);
  if (ret < 0)
    return ret;
  ret = normalise_axis (l, axis, T (l, in[0])->rank, &n->attrs.axis);
  n->attrs.keepdims = false;
  if (ret == 0)
    ret = finish_op (l, n);
  if (ret == 0 && dt != SIMNPU_IR_I64) {
    int arg = out;
    ret = begin_op (l, SIMNPU_IR_CAST, NULL, 1, &arg, 1, &out, &n);
    if (ret == 0) {
      n->attrs.dtype = dt;
      ret = finish_op (l, n);
    }
  }
  return ret < 0 ? ret : register_output (l, tn, 0, out);
}

static int
tr_argmax (tfjs_loader * l, const tfjs_node * tn, const int *in)
{
  return translate_arg (l, tn, in, SIMNPU_IR_ARGMAX);
}

static int
tr_argmin (tfjs_loader * l, const tfjs_node * tn, const int *in)
{
  return translate_arg (l, tn, in, SIMNPU_IR_ARGMIN);
}

static int
translate_pad (tfjs_loader * l, const tfjs_node * tn, const int *in,
    simnpu__ir_pad_mode mode, float value)
{
  simnpu__ir_node *n;
  int64_t p[TFJS_MAX_CONST_INTS];
  unsigned np, rank = T (l, in[0])->rank, i;
  int out, ret;

  ret = const_ints (l, in[1], "paddings", p, TFJS_MAX_CONST_INTS, &np);
  if (ret < 0)
    return ret;
  if (np != 2 * rank)
    return fail (l, SIMNPU_EFORMAT, "%u paddings; expected %u ([rank, 2])",
        np, 2 * rank);
  ret = begin_op (l, SIMNPU_IR_PAD, NULL, 1, in, 1, &out, &n);
  if (ret < 0)
    return ret;
  for (i = 0; i < rank; i++) {
    if (p[2 * i] < 0 || p[2 * i + 1] < 0 || p[2 * i] > G_MAXINT32
        || p[2 * i + 1] > G_MAXINT32)
      return fail (l, SIMNPU_EFORMAT, "paddings of axis %u must be >= 0", i);
    n->attrs.ints[i] = p[2 * i];
    n->attrs.ints[rank + i] = p[2 * i + 1];
  }
  n->attrs.n_ints = 2 * rank;
  n->attrs.mode = mode;
  n->attrs.f[0] = value;
  ret = finish_op (l, n);
  return ret < 0 ? ret : register_output (l, tn, 0, out);
}

static int
tr_pad (tfjs_loader * l, const tfjs_node * tn, const int *in)
{
  float value = 0.0f;
  int ret = need_inputs (l, tn, 2, 3);

  if (ret == 0 && tn->n_inputs == 3)
    ret = const_float (l, in[2], "constant_values", &value);
  return ret < 0 ? ret : translate_pad (l, tn, in, SIMNPU_IR_PAD_CONSTANT,
      value);
}

static int
tr_mirror_pad (tfjs_loader * l, const tfjs_node * tn, const int *in)
{
  char mode[TFJS_ATTR_STRING];
  int ret = need_inputs (l, tn, 2, 2);

  if (ret == 0)
    ret = attr_string (l, tn, "mode", mode);
  if (ret < 0)
    return ret;
  if (strcmp (mode, "REFLECT") != 0)
    return fail (l, SIMNPU_EUNSUPPORTED, "mode '%s'; only REFLECT is "
        "supported", mode);
  return translate_pad (l, tn, in, SIMNPU_IR_PAD_REFLECT, 0.0f);
}

static int
tr_concat (tfjs_loader * l, const tfjs_node * tn, const int *in)
{
  simnpu__ir_node *n;
  int64_t axis;
  unsigned na;
  int out, ret = need_inputs (l, tn, 2, SIMNPU_IR_MAX_INPUTS + 1);

  if (ret == 0)
    ret = const_ints (l, in[tn->n_inputs - 1], "axis", &axis, 1, &na);
  if (ret == 0 && na != 1)
    ret = fail (l, SIMNPU_EFORMAT, "expected one axis");
  if (ret < 0)
    return ret;
  if (tn->n_inputs == 2) {
    out = simple_op (l, SIMNPU_IR_IDENTITY, NULL, 1, in);
    return out < 0 ? out : register_output (l, tn, 0, out);
  }
  ret = begin_op (l, SIMNPU_IR_CONCAT, NULL, tn->n_inputs - 1, in, 1, &out, &n);
  if (ret == 0)
    ret = normalise_axis (l, axis, T (l, in[0])->rank, &n->attrs.axis);
  if (ret == 0)
    ret = finish_op (l, n);
  return ret < 0 ? ret : register_output (l, tn, 0, out);
}

static int
tr_pack (tfjs_loader * l, const tfjs_node * tn, const int *in)
{
  int parts[SIMNPU_IR_MAX_INPUTS];
  simnpu__ir_node *n;
  int64_t axis, dims[SIMNPU_IR_MAX_RANK];
  int32_t ax = 0;
  unsigned i, j, rank;
  int out, ret = need_inputs (l, tn, 1, SIMNPU_IR_MAX_INPUTS);

  if (ret == 0)
    ret = attr_int (l, tn, "axis", 0, -SIMNPU_IR_MAX_RANK,
        SIMNPU_IR_MAX_RANK, &axis);
  if (ret < 0)
    return ret;
  rank = T (l, in[0])->rank;
  if (rank >= SIMNPU_IR_MAX_RANK)
    return fail (l, SIMNPU_EUNSUPPORTED, "the result's rank exceeds %d",
        SIMNPU_IR_MAX_RANK);
  ret = normalise_axis (l, axis, rank + 1, &ax);
  if (ret < 0)
    return ret;
  for (i = 0; i < tn->n_inputs; i++) {
    const simnpu__ir_tensor *t = T (l, in[i]);
    char suffix[32];
    if (t->rank != rank)
      return fail (l, SIMNPU_ESHAPE, "input %u has rank %u; expected %u", i,
          t->rank, rank);
    for (j = 0; j < rank + 1; j++)
      dims[j] = j < (unsigned) ax ? t->dims[j] : j == (unsigned) ax ? 1
          : t->dims[j - 1];
    g_snprintf (suffix, sizeof suffix, "expand%u", i);
    parts[i] = reshape_op (l, suffix, in[i], rank + 1, dims);
    if (parts[i] < 0)
      return parts[i];
  }
  ret = begin_op (l, SIMNPU_IR_CONCAT, NULL, tn->n_inputs, parts, 1, &out, &n);
  if (ret < 0)
    return ret;
  n->attrs.axis = ax;
  ret = finish_op (l, n);
  return ret < 0 ? ret : register_output (l, tn, 0, out);
}

/* Split along axis into the given sizes, each reshaped when drop_axis. */
static int
split_into (tfjs_loader * l, const tfjs_node * tn, int x, int32_t axis,
    const int64_t * sizes, unsigned n_out, bool drop_axis)
{
  int outs[SIMNPU_IR_MAX_OUTPUTS];
  simnpu__ir_node *n;
  unsigned i, j;
  int ret;

  if (n_out < 1 || n_out > SIMNPU_IR_MAX_OUTPUTS)
    return fail (l, SIMNPU_EUNSUPPORTED, "%u outputs; expected 1 to %d",
        n_out, SIMNPU_IR_MAX_OUTPUTS);
  ret = begin_op (l, SIMNPU_IR_SPLIT, drop_axis ? "split" : NULL, 1, &x,
      n_out, outs, &n);
  if (ret < 0)
    return ret;
  n->attrs.axis = axis;
  n->attrs.n_ints = n_out;
  for (i = 0; i < n_out && i < SIMNPU_IR_MAX_INTS; i++)
    n->attrs.ints[i] = sizes[i];
  if (n_out > SIMNPU_IR_MAX_INTS)
    return fail (l, SIMNPU_EUNSUPPORTED, "more than %d parts",
        SIMNPU_IR_MAX_INTS);
  ret = finish_op (l, n);
  if (ret < 0)
    return ret;
  for (i = 0; i < n_out; i++) {
    int t = outs[i];
    if (drop_axis) {
      const simnpu__ir_tensor *p = T (l, outs[i]);
      int64_t dims[SIMNPU_IR_MAX_RANK];
      char suffix[32];
      unsigned r = 0;
      for (j = 0; j < p->rank; j++)
        if (j != (unsigned) axis)
          dims[r++] = p->dims[j];
      g_snprintf (suffix, sizeof suffix, "part%u", i);
      t = reshape_op (l, suffix, outs[i], r, dims);
      if (t < 0)
        return t;
    }
    register_output (l, tn, i, t);
  }
  return 0;
}

static int
tr_unpack (tfjs_loader * l, const tfjs_node * tn, const int *in)
{
  int64_t axis, num, sizes[SIMNPU_IR_MAX_OUTPUTS];
  int32_t ax = 0;
  unsigned i;
  int ret = need_inputs (l, tn, 1, 1);

  if (ret == 0)
    ret = attr_int (l, tn, "axis", 0, -SIMNPU_IR_MAX_RANK,
        SIMNPU_IR_MAX_RANK, &axis);
  if (ret == 0)
    ret = normalise_axis (l, axis, T (l, in[0])->rank, &ax);
  if (ret == 0)
    ret = attr_int (l, tn, "num", 0, 1, SIMNPU_IR_MAX_INTS, &num);
  if (ret < 0)
    return ret;
  if (T (l, in[0])->dims[ax] != num)
    return fail (l, SIMNPU_ESHAPE, "num %" G_GINT64_FORMAT " is not the "
        "size of axis %d", num, ax);
  for (i = 0; i < num; i++)
    sizes[i] = 1;
  return split_into (l, tn, in[0], ax, sizes, (unsigned) num, true);
}

static int
tr_split (tfjs_loader * l, const tfjs_node * tn, const int *in)
{
  int64_t axis, num, sizes[SIMNPU_IR_MAX_OUTPUTS];
  unsigned na, i;
  int32_t ax = 0;
  int ret = need_inputs (l, tn, 2, 2);

  if (ret == 0)
    ret = const_ints (l, in[0], "split_dim", &axis, 1, &na);
  if (ret == 0 && na != 1)
    ret = fail (l, SIMNPU_EFORMAT, "expected one split_dim");
  if (ret == 0)
    ret = normalise_axis (l, axis, T (l, in[1])->rank, &ax);
  if (ret == 0)
    ret = attr_int (l, tn, "num_split", 1, 1, SIMNPU_IR_MAX_INTS, &num);
  if (ret < 0)
    return ret;
  if (T (l, in[1])->dims[ax] % num != 0)
    return fail (l, SIMNPU_ESHAPE, "axis %d does not split into %"
        G_GINT64_FORMAT " equal parts", ax, num);
  for (i = 0; i < num; i++)
    sizes[i] = T (l, in[1])->dims[ax] / num;
  return split_into (l, tn, in[1], ax, sizes, (unsigned) num, false);
}

static int
tr_split_v (tfjs_loader * l, const tfjs_node * tn, const int *in)
{
  int64_t axis, sizes[SIMNPU_IR_MAX_INTS], known = 0, dim;
  unsigned na, ns, i, unknown = SIMNPU_IR_MAX_INTS;
  int32_t ax = 0;
  int ret = need_inputs (l, tn, 3, 3);

  if (ret == 0)
    ret = const_ints (l, in[2], "split_dim", &axis, 1, &na);
  if (ret == 0 && na != 1)
    ret = fail (l, SIMNPU_EFORMAT, "expected one split_dim");
  if (ret == 0)
    ret = normalise_axis (l, axis, T (l, in[0])->rank, &ax);
  if (ret == 0)
    ret = const_ints (l, in[1], "size_splits", sizes, SIMNPU_IR_MAX_INTS, &ns);
  if (ret < 0)
    return ret;
  dim = T (l, in[0])->dims[ax];
  for (i = 0; i < ns; i++) {
    if (sizes[i] == -1 && unknown == SIMNPU_IR_MAX_INTS)
      unknown = i;
    else if (sizes[i] < 0 || sizes[i] > dim)
      return fail (l, SIMNPU_EFORMAT, "size_splits[%u] is invalid", i);
    else
      known += sizes[i];
  }
  if (unknown < SIMNPU_IR_MAX_INTS)
    sizes[unknown] = dim - known;
  if ((unknown < SIMNPU_IR_MAX_INTS && known > dim)
      || (unknown == SIMNPU_IR_MAX_INTS && known != dim))
    return fail (l, SIMNPU_ESHAPE, "size_splits do not add up to %"
        G_GINT64_FORMAT, dim);
  return split_into (l, tn, in[0], ax, sizes, ns, false);
}

static int
tr_reshape (tfjs_loader * l, const tfjs_node * tn, const int *in)
{
  int64_t dims[SIMNPU_IR_MAX_RANK], known = 1, total;
  unsigned nd, i, unknown = SIMNPU_IR_MAX_RANK;
  int out, ret = need_inputs (l, tn, 2, 2);

  if (ret == 0)
    ret = const_ints (l, in[1], "shape", dims, SIMNPU_IR_MAX_RANK, &nd);
  if (ret < 0)
    return ret;
  total = simnpu__ir_tensor_elements (T (l, in[0]));
  for (i = 0; i < nd; i++) {
    if (dims[i] == -1 && unknown == SIMNPU_IR_MAX_RANK)
      unknown = i;
    else if (dims[i] < 0 || dims[i] > SIMNPU_IR_MAX_ELEMENTS)
      return fail (l, SIMNPU_EFORMAT, "shape[%u] = %" G_GINT64_FORMAT
          " is invalid", i, dims[i]);
    else
      known *= dims[i];
    if (known > SIMNPU_IR_MAX_ELEMENTS)
      return fail (l, SIMNPU_ESHAPE, "the target shape is too large");
  }
  if (unknown < SIMNPU_IR_MAX_RANK) {
    if (known == 0 || total % known != 0)
      return fail (l, SIMNPU_ESHAPE, "cannot reshape %" G_GINT64_FORMAT
          " elements with -1 in the target", total);
    dims[unknown] = total / known;
  } else if (known != total) {
    char buf[128];
    return fail (l, SIMNPU_ESHAPE, "cannot reshape '%s' %s (%"
        G_GINT64_FORMAT " elements) into %" G_GINT64_FORMAT " elements",
        T (l, in[0])->name, dims_str (T (l, in[0]), buf, sizeof buf), total,
        known);
  }
  out = reshape_op (l, NULL, in[0], nd, dims);
  return out < 0 ? out : register_output (l, tn, 0, out);
}

static int
tr_expand_dims (tfjs_loader * l, const tfjs_node * tn, const int *in)
{
  const simnpu__ir_tensor *t;
  int64_t axis, dims[SIMNPU_IR_MAX_RANK];
  int32_t ax = 0;
  unsigned na, i;
  int out, ret = need_inputs (l, tn, 2, 2);

  if (ret == 0)
    ret = const_ints (l, in[1], "dim", &axis, 1, &na);
  if (ret == 0 && na != 1)
    ret = fail (l, SIMNPU_EFORMAT, "expected one dim");
  if (ret < 0)
    return ret;
  t = T (l, in[0]);
  if (t->rank >= SIMNPU_IR_MAX_RANK)
    return fail (l, SIMNPU_EUNSUPPORTED, "rank above %d", SIMNPU_IR_MAX_RANK);
  ret = normalise_axis (l, axis, t->rank + 1, &ax);
  if (ret < 0)
    return ret;
  for (i = 0; i <= t->rank; i++)
    dims[i] = i < (unsigned) ax ? t->dims[i] : i == (unsigned) ax ? 1
        : t->dims[i - 1];
  out = reshape_op (l, NULL, in[0], t->rank + 1, dims);
  return out < 0 ? out : register_output (l, tn, 0, out);
}

static int
tr_squeeze (tfjs_loader * l, const tfjs_node * tn, const int *in)
{
  const simnpu__ir_tensor *t;
  int64_t axes[TFJS_MAX_LIST], dims[SIMNPU_IR_MAX_RANK];
  bool drop[SIMNPU_IR_MAX_RANK] = { false };
  unsigned na, i, r = 0;
  int out, ret = need_inputs (l, tn, 1, 1);

  if (ret == 0)
    ret = attr_ints (l, tn, "squeeze_dims", axes, TFJS_MAX_LIST, &na);
  if (ret < 0)
    return ret;
  t = T (l, in[0]);
  for (i = 0; i < na; i++) {
    int32_t ax = 0;
    ret = normalise_axis (l, axes[i], t->rank, &ax);
    if (ret < 0)
      return ret;
    if (t->dims[ax] != 1)
      return fail (l, SIMNPU_ESHAPE, "axis %d has size %" G_GINT64_FORMAT
          ", not 1", ax, t->dims[ax]);
    drop[ax] = true;
  }
  for (i = 0; i < t->rank; i++)
    if (!(na ? drop[i] : t->dims[i] == 1))
      dims[r++] = t->dims[i];
  out = reshape_op (l, NULL, in[0], r, dims);
  return out < 0 ? out : register_output (l, tn, 0, out);
}

static int
tr_transpose (tfjs_loader * l, const tfjs_node * tn, const int *in)
{
  int64_t perm[SIMNPU_IR_MAX_RANK];
  bool seen[SIMNPU_IR_MAX_RANK] = { false };
  unsigned np, i, rank;
  int out, ret = need_inputs (l, tn, 2, 2);

  if (ret == 0)
    ret = const_ints (l, in[1], "perm", perm, SIMNPU_IR_MAX_RANK, &np);
  if (ret < 0)
    return ret;
  rank = T (l, in[0])->rank;
  if (np != rank)
    return fail (l, SIMNPU_EFORMAT, "perm has %u values; expected %u", np,
        rank);
  for (i = 0; i < np; i++) {
    if (perm[i] < 0)
      perm[i] += rank;
    if (perm[i] < 0 || perm[i] >= rank || seen[perm[i]])
      return fail (l, SIMNPU_EFORMAT, "perm is not a permutation");
    seen[perm[i]] = true;
  }
  out = transpose_op (l, NULL, in[0], rank, perm);
  return out < 0 ? out : register_output (l, tn, 0, out);
}

/* One resolved slice per input axis and the result's final shape. */
typedef struct
{
  int64_t start[SIMNPU_IR_MAX_RANK], end[SIMNPU_IR_MAX_RANK],
      step[SIMNPU_IR_MAX_RANK];
  unsigned final_rank;
  int64_t final_dims[SIMNPU_IR_MAX_RANK];
} tfjs_slice;

static int
slice_op (tfjs_loader * l, const tfjs_node * tn, int x, const tfjs_slice * s)
{
  const simnpu__ir_tensor *t = T (l, x);
  simnpu__ir_node *n;
  unsigned i, rank = t->rank;
  bool whole = true, same_shape;
  int out, ret;

  for (i = 0; i < rank; i++)
    if (s->start[i] != 0 || s->end[i] != t->dims[i] || s->step[i] != 1)
      whole = false;
  if (2 * rank > SIMNPU_IR_MAX_INTS)
    return fail (l, SIMNPU_EUNSUPPORTED, "rank %u is too high to slice", rank);
  same_shape = s->final_rank == rank;
  for (i = 0; same_shape && i < rank; i++) {
    int64_t len = (s->end[i] - s->start[i] + s->step[i] - 1) / s->step[i];
    same_shape = MAX (len, 0) == s->final_dims[i];
  }
  if (whole) {
    out = x;
  } else {
    ret = begin_op (l, SIMNPU_IR_SLICE, same_shape ? NULL : "slice", 1, &x, 1,
        &out, &n);
    if (ret < 0)
      return ret;
    for (i = 0; i < rank; i++) {
      n->attrs.ints[i] = s->start[i];
      n->attrs.ints[rank + i] = s->end[i];
      n->attrs.steps[i] = s->step[i];
    }
    n->attrs.n_ints = 2 * rank;
    ret = finish_op (l, n);
    if (ret < 0)
      return ret;
  }
  if (!same_shape || whole)
    out = reshape_op (l, NULL, out, s->final_rank, s->final_dims);
  return out < 0 ? out : register_output (l, tn, 0, out);
}

static int
tr_strided_slice (tfjs_loader * l, const tfjs_node * tn, const int *in)
{
  const simnpu__ir_tensor *t;
  int64_t begin[SIMNPU_IR_MAX_RANK], end[SIMNPU_IR_MAX_RANK],
      strides[SIMNPU_IR_MAX_RANK];
  int64_t begin_mask, end_mask, ellipsis_mask, new_axis_mask, shrink_mask;
  unsigned nb, ne, ns, i, full = 0, rank, n_new_after = 0, k;
  bool seen_ellipsis = false;
  tfjs_slice s = { 0 };
  int ret = need_inputs (l, tn, 4, 4);

  if (ret == 0)
    ret = const_ints (l, in[1], "begin", begin, SIMNPU_IR_MAX_RANK, &nb);
  if (ret == 0)
    ret = const_ints (l, in[2], "end", end, SIMNPU_IR_MAX_RANK, &ne);
  if (ret == 0)
    ret = const_ints (l, in[3], "strides", strides, SIMNPU_IR_MAX_RANK, &ns);
  if (ret == 0 && (nb != ne || nb != ns))
    ret = fail (l, SIMNPU_EFORMAT, "begin, end and strides differ in length");
  if (ret == 0)
    ret = attr_int (l, tn, "begin_mask", 0, 0, G_MAXINT32, &begin_mask);
  if (ret == 0)
    ret = attr_int (l, tn, "end_mask", 0, 0, G_MAXINT32, &end_mask);
  if (ret == 0)
    ret = attr_int (l, tn, "ellipsis_mask", 0, 0, G_MAXINT32, &ellipsis_mask);
  if (ret == 0)
    ret = attr_int (l, tn, "new_axis_mask", 0, 0, G_MAXINT32, &new_axis_mask);
  if (ret == 0)
    ret = attr_int (l, tn, "shrink_axis_mask", 0, 0, G_MAXINT32, &shrink_mask);
  if (ret < 0)
    return ret;
  t = T (l, in[0]);
  rank = t->rank;
  if ((ellipsis_mask & (ellipsis_mask - 1)) != 0)
    return fail (l, SIMNPU_EFORMAT, "more than one ellipsis");
  for (i = 0; i < nb; i++)
    if (ellipsis_mask & (G_GINT64_CONSTANT (1) << i))
      seen_ellipsis = true;
    else if (seen_ellipsis && (new_axis_mask & (G_GINT64_CONSTANT (1) << i)))
      n_new_after++;
  for (i = 0; i < rank; i++) {
    s.start[i] = 0;
    s.end[i] = t->dims[i];
    s.step[i] = 1;
  }
  /* sparse spec to dense: an ellipsis (or the end of the spec) stands for
   * every axis not named */
  for (i = 0; i < nb; i++) {
    int64_t bit = G_GINT64_CONSTANT (1) << i;
    if (ellipsis_mask & bit) {
      unsigned next = MIN (rank, rank - (nb - i) + 1 + n_new_after);
      if (rank + 1 + n_new_after < nb - i)
        return fail (l, SIMNPU_EFORMAT, "the slice spec is longer than the "
            "input's rank %u", rank);
      for (; full < next; full++)
        if (s.final_rank < SIMNPU_IR_MAX_RANK)
          s.final_dims[s.final_rank++] = t->dims[full];
      continue;
    }
    if (new_axis_mask & bit) {
      if (s.final_rank >= SIMNPU_IR_MAX_RANK)
        return fail (l, SIMNPU_EUNSUPPORTED, "the result's rank exceeds %d",
            SIMNPU_IR_MAX_RANK);
      s.final_dims[s.final_rank++] = 1;
      continue;
    }
    if (full >= rank)
      return fail (l, SIMNPU_EFORMAT, "the slice spec names more axes than "
          "the input's rank %u", rank);
    {
      int64_t d = t->dims[full], st = strides[i], b = begin[i], e = end[i];
      if (st == 0)
        return fail (l, SIMNPU_EFORMAT, "strides[%u] is 0", i);
      if (st < 0)
        return fail (l, SIMNPU_EUNSUPPORTED, "negative strides[%u]", i);
      if (shrink_mask & bit) {
        if (b < 0)
          b += d;
        if (b < 0 || b >= d)
          return fail (l, SIMNPU_EFORMAT, "index %" G_GINT64_FORMAT " of "
              "axis %u is out of range", begin[i], full);
        s.start[full] = b;
        s.end[full] = b + 1;
        s.step[full] = 1;
      } else {
        if (begin_mask & bit)
          b = 0;
        else
          b = CLAMP (b < 0 ? b + d : b, 0, d);
        if (end_mask & bit)
          e = d;
        else
          e = CLAMP (e < 0 ? e + d : e, 0, d);
        s.start[full] = b;
        s.end[full] = MAX (e, b);
        s.step[full] = st;
        if (s.final_rank >= SIMNPU_IR_MAX_RANK)
          return fail (l, SIMNPU_EUNSUPPORTED, "the result's rank exceeds "
              "%d", SIMNPU_IR_MAX_RANK);
        s.final_dims[s.final_rank++] = (s.end[full] - b + st - 1) / st;
      }
      full++;
    }
  }
  for (k = full; k < rank; k++) {
    if (s.final_rank >= SIMNPU_IR_MAX_RANK)
      return fail (l, SIMNPU_EUNSUPPORTED, "the result's rank exceeds %d",
          SIMNPU_IR_MAX_RANK);
    s.final_dims[s.final_rank++] = t->dims[k];
  }
  return slice_op (l, tn, in[0], &s);
}

static int
tr_slice (tfjs_loader * l, const tfjs_node * tn, const int *in)
{
  const simnpu__ir_tensor *t;
  int64_t begin[SIMNPU_IR_MAX_RANK], size[SIMNPU_IR_MAX_RANK];
  unsigned nb, nsz, i;
  tfjs_slice s = { 0 };
  int ret = need_inputs (l, tn, 3, 3);

  if (ret == 0)
    ret = const_ints (l, in[1], "begin", begin, SIMNPU_IR_MAX_RANK, &nb);
  if (ret == 0)
    ret = const_ints (l, in[2], "size", size, SIMNPU_IR_MAX_RANK, &nsz);
  if (ret < 0)
    return ret;
  t = T (l, in[0]);
  if (nb != t->rank || nsz != t->rank)
    return fail (l, SIMNPU_EFORMAT, "begin and size need %u values", t->rank);
  for (i = 0; i < t->rank; i++) {
    int64_t e = size[i] == -1 ? t->dims[i] : begin[i] + size[i];
    if (begin[i] < 0 || begin[i] > t->dims[i] || size[i] < -1 || e > t->dims[i])
      return fail (l, SIMNPU_EFORMAT, "slice of axis %u is out of range", i);
    s.start[i] = begin[i];
    s.end[i] = e;
    s.step[i] = 1;
    s.final_dims[i] = e - begin[i];
  }
  s.final_rank = t->rank;
  return slice_op (l, tn, in[0], &s);
}

static int
translate_resize (tfjs_loader * l, const tfjs_node * tn, const int *in,
    simnpu__ir_resize_mode mode)
{
  simnpu__ir_node *n;
  int64_t size[2];
  unsigned ns;
  bool align = attr_bool (tn, "align_corners", false);
  bool half = attr_bool (tn, "half_pixel_centers", false);
  int out, ret = need_inputs (l, tn, 2, 2);

  if (ret == 0)
    ret = const_ints (l, in[1], "size", size, 2, &ns);
  if (ret == 0 && (ns != 2 || size[0] < 1 || size[1] < 1
          || size[0] > G_MAXINT32 || size[1] > G_MAXINT32))
    ret = fail (l, SIMNPU_EFORMAT, "size: expected [height, width] > 0");
  if (ret == 0 && align && half)
    ret = fail (l, SIMNPU_EFORMAT, "align_corners and half_pixel_centers "
        "are both set");
  if (ret == 0)
    ret = begin_op (l, SIMNPU_IR_RESIZE, NULL, 1, in, 1, &out, &n);
  if (ret < 0)
    return ret;
  n->attrs.ints[0] = size[0];
  n->attrs.ints[1] = size[1];
  n->attrs.n_ints = 2;
  n->attrs.mode = mode;
  if (mode == SIMNPU_IR_RESIZE_BILINEAR) {
    n->attrs.coord = align ? SIMNPU_IR_COORD_ALIGN_CORNERS
        : half ? SIMNPU_IR_COORD_HALF_PIXEL : SIMNPU_IR_COORD_ASYMMETRIC;
  } else {
    /* TF rounds half away from zero with align_corners, else floors */
    n->attrs.coord = align ? SIMNPU_IR_COORD_ALIGN_CORNERS
        : half ? SIMNPU_IR_COORD_TF_HALF_PIXEL_FOR_NN
        : SIMNPU_IR_COORD_ASYMMETRIC;
    n->attrs.nearest = align ? SIMNPU_IR_NEAREST_ROUND_PREFER_CEIL
        : SIMNPU_IR_NEAREST_FLOOR;
  }
  ret = finish_op (l, n);
  return ret < 0 ? ret : register_output (l, tn, 0, out);
}

static int
tr_resize_bilinear (tfjs_loader * l, const tfjs_node * tn, const int *in)
{
  return translate_resize (l, tn, in, SIMNPU_IR_RESIZE_BILINEAR);
}

static int
tr_resize_nearest (tfjs_loader * l, const tfjs_node * tn, const int *in)
{
  return translate_resize (l, tn, in, SIMNPU_IR_RESIZE_NEAREST);
}

static int
tr_cast (tfjs_loader * l, const tfjs_node * tn, const int *in)
{
  simnpu__ir_node *n;
  simnpu__ir_dtype dt;
  int out, ret = need_inputs (l, tn, 1, 1);

  if (ret == 0)
    ret = attr_type (l, tn, "DstT", SIMNPU_IR_F32, &dt);
  if (ret == 0)
    ret = begin_op (l, SIMNPU_IR_CAST, NULL, 1, in, 1, &out, &n);
  if (ret < 0)
    return ret;
  n->attrs.dtype = dt;
  ret = finish_op (l, n);
  return ret < 0 ? ret : register_output (l, tn, 0, out);
}

static int
tr_shape (tfjs_loader * l, const tfjs_node * tn, const int *in)
{
  simnpu__ir_node *n;
  simnpu__ir_dtype dt;
  int out, ret = need_inputs (l, tn, 1, 1);

  if (ret == 0)
    ret = attr_type (l, tn, "out_type", SIMNPU_IR_I32, &dt);
  if (ret < 0)
    return ret;
  out = simple_op (l, SIMNPU_IR_SHAPE, dt == SIMNPU_IR_I64 ? NULL : "shape",
      1, in);
  if (out < 0 || dt == SIMNPU_IR_I64)
    return out < 0 ? out : register_output (l, tn, 0, out);
  {
    int shape = out;
    ret = begin_op (l, SIMNPU_IR_CAST, NULL, 1, &shape, 1, &out, &n);
  }
  if (ret < 0)
    return ret;
  n->attrs.dtype = dt;
  ret = finish_op (l, n);
  return ret < 0 ? ret : register_output (l, tn, 0, out);
}

static int
tr_gather (tfjs_loader * l, const tfjs_node * tn, const int *in)
{
  simnpu__ir_node *n;
  int64_t axis = 0, batch_dims;
  unsigned na = 1;
  int out, ret = need_inputs (l, tn, 2, 3);

  if (ret == 0 && tn->n_inputs == 3)
    ret = const_ints (l, in[2], "axis", &axis, 1, &na);
  if (ret == 0 && na != 1)
    ret = fail (l, SIMNPU_EFORMAT, "expected one axis");
  if (ret == 0)
    ret = attr_int (l, tn, "batch_dims", 0, -SIMNPU_IR_MAX_RANK,
        SIMNPU_IR_MAX_RANK, &batch_dims);
  if (ret == 0 && batch_dims != 0)
    ret = fail (l, SIMNPU_EUNSUPPORTED, "batch_dims %" G_GINT64_FORMAT
        "; only 0 is supported", batch_dims);
  if (ret == 0)
    ret = begin_op (l, SIMNPU_IR_GATHER, NULL, 2, in, 1, &out, &n);
  if (ret == 0)
    ret = normalise_axis (l, axis, T (l, in[0])->rank, &n->attrs.axis);
  if (ret == 0)
    ret = finish_op (l, n);
  return ret < 0 ? ret : register_output (l, tn, 0, out);
}

static int
tr_tile (tfjs_loader * l, const tfjs_node * tn, const int *in)
{
  simnpu__ir_node *n;
  int64_t reps[SIMNPU_IR_MAX_RANK];
  unsigned nr, i;
  int out, ret = need_inputs (l, tn, 2, 2);

  if (ret == 0)
    ret = const_ints (l, in[1], "multiples", reps, SIMNPU_IR_MAX_RANK, &nr);
  if (ret == 0 && nr != T (l, in[0])->rank)
    ret = fail (l, SIMNPU_EFORMAT, "%u multiples for rank %u", nr,
        T (l, in[0])->rank);
  if (ret == 0)
    ret = begin_op (l, SIMNPU_IR_TILE, NULL, 1, in, 1, &out, &n);
  if (ret < 0)
    return ret;
  for (i = 0; i < nr; i++)
    n->attrs.ints[i] = reps[i];
  n->attrs.n_ints = nr;
  ret = finish_op (l, n);
  return ret < 0 ? ret : register_output (l, tn, 0, out);
}

static int
tr_identity (tfjs_loader * l, const tfjs_node * tn, const int *in)
{
  int ret = need_inputs (l, tn, 1, 1);
  return ret < 0 ? ret : tr_elementwise (l, tn, in, SIMNPU_IR_IDENTITY);
}

/* ------------------------------------------------------------------ */
/* Const and Placeholder */

static int
tr_const (tfjs_loader * l, const tfjs_node * tn)
{
  JsonObject *tensor = get_object (attr_value (tn, "value"), "tensor");
  tfjs_weight *w = g_hash_table_lookup (l->weights, tn->name);
  simnpu__ir_dtype dt;
  int64_t dims[SIMNPU_IR_MAX_RANK];
  unsigned rank, i;
  int t, ret;

  if (w == NULL || w->data == NULL)
    return fail (l, SIMNPU_EFORMAT, "no weight of that name in the weights "
        "manifest");
  ret = attr_type (l, tn, "dtype", w->dtype, &dt);
  if (ret < 0)
    return ret;
  if (dt != w->dtype)
    return fail (l, SIMNPU_EFORMAT, "dtype %s, but the manifest's weight is "
        "%s", simnpu__ir_dtype_name (dt), simnpu__ir_dtype_name (w->dtype));
  if (tensor) {
    ret = parse_shape (l, get_object (tensor, "tensorShape"), "value", &rank,
        dims);
    if (ret < 0)
      return ret;
    if (rank != w->rank || memcmp (dims, w->dims, rank * sizeof dims[0]))
      return fail (l, SIMNPU_ESHAPE, "the node's shape and weight '%s''s "
          "shape in the manifest differ (rank %u and %u)", tn->name, rank,
          w->rank);
    for (i = 0; i < rank; i++)
      if (dims[i] < 0)
        return fail (l, SIMNPU_ESHAPE, "shape dim %u is unknown", i);
  }
  t = new_tensor (l, tn->name, true, w->dtype, w->rank, w->dims, w->data);
  w->data = NULL;
  return t < 0 ? t : 0;
}

static int
tr_placeholder (tfjs_loader * l, const tfjs_node * tn)
{
  simnpu__ir_dtype dt;
  int64_t dims[SIMNPU_IR_MAX_RANK], n = 1;
  unsigned rank, i;
  int t, ret;

  ret = attr_type (l, tn, "dtype", SIMNPU_IR_F32, &dt);
  if (ret == 0)
    ret = parse_shape (l, get_object (attr_value (tn, "shape"), "shape"),
        "shape", &rank, dims);
  if (ret < 0)
    return ret;
  if (attr_value (tn, "shape") == NULL)
    return fail (l, SIMNPU_EUNSUPPORTED, "no shape; the input's shape must "
        "be known");
  for (i = 0; i < rank; i++) {
    if (dims[i] == -1 && i == 0)
      dims[i] = 1;
    else if (dims[i] < 0)
      return fail (l, SIMNPU_EUNSUPPORTED, "dim %u is dynamic; only a "
          "dynamic batch (dim 0) is supported", i);
    n *= dims[i];
    if (n > SIMNPU_IR_MAX_ELEMENTS)
      return fail (l, SIMNPU_ENOMEM, "more than %" G_GINT64_FORMAT
          " elements", SIMNPU_IR_MAX_ELEMENTS);
  }
  if (l->g->n_inputs >= SIMNPU_IR_MAX_INPUTS)
    return fail (l, SIMNPU_EUNSUPPORTED, "more than %d inputs",
        SIMNPU_IR_MAX_INPUTS);
  t = new_tensor (l, tn->name, false, dt, rank, dims, NULL);
  if (t < 0)
    return t;
  l->g->inputs[l->g->n_inputs++] = t;
  return 0;
}

/* ------------------------------------------------------------------ */

static const tfjs_op tfjs_ops[] = {
  {"Identity", tr_identity, 0},
  {"StopGradient", tr_identity, 0},
  {"Snapshot", tr_identity, 0},
  {"_FusedConv2D", tr_fused_conv2d, 0},
  {"Conv2D", tr_conv2d, 0},
  {"DepthwiseConv2dNative", tr_depthwise, 0},
  {"FusedDepthwiseConv2dNative", tr_fused_depthwise, 0},
  {"MatMul", tr_matmul, 0},
  {"BatchMatMul", tr_matmul, 0},
  {"BatchMatMulV2", tr_matmul, 0},
  {"_FusedMatMul", tr_fused_matmul, 0},
  {"FusedBatchNorm", tr_batchnorm, 0},
  {"FusedBatchNormV2", tr_batchnorm, 0},
  {"FusedBatchNormV3", tr_batchnorm, 0},
  {"BiasAdd", tr_bias_add, 0},
  {"Add", NULL, SIMNPU_IR_ADD},
  {"AddV2", NULL, SIMNPU_IR_ADD},
  {"AddN", tr_add_n, 0},
  {"Sub", NULL, SIMNPU_IR_SUB},
  {"Mul", NULL, SIMNPU_IR_MUL},
  {"RealDiv", NULL, SIMNPU_IR_DIV},
  {"Div", NULL, SIMNPU_IR_DIV},
  {"FloorDiv", NULL, SIMNPU_IR_FLOOR_DIV},
  {"FloorMod", NULL, SIMNPU_IR_FLOOR_MOD},
  {"Pow", NULL, SIMNPU_IR_POW},
  {"Maximum", NULL, SIMNPU_IR_MAXIMUM},
  {"Minimum", NULL, SIMNPU_IR_MINIMUM},
  {"Equal", NULL, SIMNPU_IR_EQUAL},
  {"Less", NULL, SIMNPU_IR_LESS},
  {"LessEqual", NULL, SIMNPU_IR_LESS_EQUAL},
  {"Greater", NULL, SIMNPU_IR_GREATER},
  {"GreaterEqual", NULL, SIMNPU_IR_GREATER_EQUAL},
  {"LogicalAnd", NULL, SIMNPU_IR_AND},
  {"LogicalOr", NULL, SIMNPU_IR_OR},
  {"LogicalNot", NULL, SIMNPU_IR_NOT},
  {"Select", NULL, SIMNPU_IR_WHERE},
  {"SelectV2", NULL, SIMNPU_IR_WHERE},
  {"SquaredDifference", tr_squared_difference, 0},
  {"Relu", NULL, SIMNPU_IR_RELU},
  {"Relu6", tr_relu6, 0},
  {"Elu", tr_elu, 0},
  {"Selu", tr_selu, 0},
  {"LeakyRelu", tr_leaky_relu, 0},
  {"Prelu", NULL, SIMNPU_IR_PRELU},
  {"Sigmoid", NULL, SIMNPU_IR_SIGMOID},
  {"Tanh", NULL, SIMNPU_IR_TANH},
  {"Softplus", NULL, SIMNPU_IR_SOFTPLUS},
  {"Softsign", NULL, SIMNPU_IR_SOFTSIGN},
  {"Exp", NULL, SIMNPU_IR_EXP},
  {"Log", NULL, SIMNPU_IR_LOG},
  {"Sqrt", NULL, SIMNPU_IR_SQRT},
  {"Rsqrt", NULL, SIMNPU_IR_RSQRT},
  {"Reciprocal", NULL, SIMNPU_IR_RECIPROCAL},
  {"Square", tr_square, 0},
  {"Neg", NULL, SIMNPU_IR_NEG},
  {"Abs", NULL, SIMNPU_IR_ABS},
  {"Floor", NULL, SIMNPU_IR_FLOOR},
  {"Ceil", NULL, SIMNPU_IR_CEIL},
  {"Round", NULL, SIMNPU_IR_ROUND},
  {"Sign", NULL, SIMNPU_IR_SIGN},
  {"Erf", NULL, SIMNPU_IR_ERF},
  {"Sin", NULL, SIMNPU_IR_SIN},
  {"Cos", NULL, SIMNPU_IR_COS},
  {"Softmax", tr_softmax_op, 0},
  {"LogSoftmax", tr_log_softmax, 0},
  {"Mean", tr_mean, 0},
  {"Sum", tr_sum, 0},
  {"Max", tr_max, 0},
  {"Min", tr_min, 0},
  {"Prod", tr_prod, 0},
  {"ArgMax", tr_argmax, 0},
  {"ArgMin", tr_argmin, 0},
  {"MaxPool", tr_maxpool, 0},
  {"AvgPool", tr_avgpool, 0},
  {"Pad", tr_pad, 0},
  {"PadV2", tr_pad, 0},
  {"MirrorPad", tr_mirror_pad, 0},
  {"ConcatV2", tr_concat, 0},
  {"Pack", tr_pack, 0},
  {"Unpack", tr_unpack, 0},
  {"Split", tr_split, 0},
  {"SplitV", tr_split_v, 0},
  {"Reshape", tr_reshape, 0},
  {"ExpandDims", tr_expand_dims, 0},
  {"Squeeze", tr_squeeze, 0},
  {"Transpose", tr_transpose, 0},
  {"StridedSlice", tr_strided_slice, 0},
  {"Slice", tr_slice, 0},
  {"ResizeBilinear", tr_resize_bilinear, 0},
  {"ResizeNearestNeighbor", tr_resize_nearest, 0},
  {"Cast", tr_cast, 0},
  {"Shape", tr_shape, 0},
  {"GatherV2", tr_gather, 0},
  {"Gather", tr_gather, 0},
  {"Tile", tr_tile, 0},
};

static const tfjs_op *
find_op (const char *op)
{
  unsigned i;

  for (i = 0; i < G_N_ELEMENTS (tfjs_ops); i++)
    if (strcmp (tfjs_ops[i].op, op) == 0)
      return &tfjs_ops[i];
  return NULL;
}

/* ------------------------------------------------------------------ */
/* GraphDef nodes */

/* "node", "node:k", "^ctrl"; false for control inputs. */
static bool
parse_ref (const char *s, tfjs_ref * r, char **owned)
{
  const char *colon;
  gint64 k;

  *owned = NULL;
  if (s[0] == '^')
    return false;
  colon = strrchr (s, ':');
  if (colon && colon[1] != '\0'
      && g_ascii_string_to_signed (colon + 1, 10, 0, SIMNPU_IR_MAX_OUTPUTS,
          &k, NULL)) {
    *owned = g_strndup (s, colon - s);
    r->name = *owned;
    r->output = (unsigned) k;
  } else {
    r->name = s;
    r->output = 0;
  }
  return true;
}

static int
parse_nodes (tfjs_loader * l, JsonObject * root, GPtrArray * owned)
{
  JsonArray *nodes = get_array (get_object (root, "modelTopology"), "node");
  unsigned i, j;

  if (nodes == NULL)
    return fail (l, SIMNPU_EFORMAT, "no modelTopology.node array; expected "
        "a TF.js graph model");
  l->n_nodes = json_array_get_length (nodes);
  if (l->n_nodes > SIMNPU_IR_MAX_NODES)
    return fail (l, SIMNPU_ENOMEM, "%u nodes; expected at most %d",
        l->n_nodes, SIMNPU_IR_MAX_NODES);
  l->nodes = g_new0 (tfjs_node, MAX (l->n_nodes, 1));
  for (i = 0; i < l->n_nodes; i++) {
    JsonNode *jn = json_array_get_element (nodes, i);
    JsonObject *o = JSON_NODE_HOLDS_OBJECT (jn) ? json_node_get_object (jn)
        : NULL;
    tfjs_node *tn = &l->nodes[i];
    JsonArray *inputs = get_array (o, "input");
    unsigned n_in = inputs ? json_array_get_length (inputs) : 0;

    tn->poison = TFJS_NO_POISON;
    tn->name = get_string (o, "name");
    tn->op = get_string (o, "op");
    if (tn->name == NULL || tn->op == NULL)
      return fail (l, SIMNPU_EFORMAT, "modelTopology.node[%u]: expected "
          "'name' and 'op' strings", i);
    if (o && json_object_has_member (o, "attr")) {
      tn->attr = get_object (o, "attr");
      if (tn->attr == NULL)
        return fail (l, SIMNPU_EFORMAT, "node '%s': 'attr' is not an object",
            tn->name);
    }
    if (g_hash_table_contains (l->node_by_name, tn->name))
      return fail (l, SIMNPU_EFORMAT, "two nodes are named '%s'", tn->name);
    g_hash_table_insert (l->node_by_name, (gpointer) tn->name,
        GUINT_TO_POINTER (i + 1));
    if (n_in > TFJS_MAX_NODE_INPUTS)
      return fail (l, SIMNPU_EFORMAT, "node '%s': %u inputs; expected at "
          "most %d", tn->name, n_in, TFJS_MAX_NODE_INPUTS);
    tn->inputs = g_new0 (tfjs_ref, MAX (n_in, 1));
    tn->input_nodes = g_new0 (int, MAX (n_in, 1));
    for (j = 0; j < n_in; j++) {
      const char *s = node_string (json_array_get_element (inputs, j));
      char *own;
      if (s == NULL)
        return fail (l, SIMNPU_EFORMAT, "node '%s': input %u is not a "
            "string", tn->name, j);
      if (parse_ref (s, &tn->inputs[tn->n_inputs], &own))
        tn->n_inputs++;
      if (own)
        g_ptr_array_add (owned, own);
    }
  }
  for (i = 0; i < l->n_nodes; i++) {
    tfjs_node *tn = &l->nodes[i];
    for (j = 0; j < tn->n_inputs; j++) {
      gpointer p = g_hash_table_lookup (l->node_by_name, tn->inputs[j].name);
      if (p == NULL)
        return fail (l, SIMNPU_EFORMAT, "node '%s': input '%s' names no "
            "node", tn->name, tn->inputs[j].name);
      tn->input_nodes[j] = GPOINTER_TO_INT (p) - 1;
    }
  }
  return 0;
}

/* Execution order: depth-first, inputs before their consumers, keeping
 * the GraphDef's order where it is already one. */
static int
topo_sort (tfjs_loader * l, unsigned *order)
{
  enum
  { WHITE = 0, GREY, BLACK };
  guint8 *state = g_new0 (guint8, MAX (l->n_nodes, 1));
  unsigned *stack = g_new (unsigned, MAX (l->n_nodes, 1));
  unsigned *next = g_new0 (unsigned, MAX (l->n_nodes, 1));
  unsigned i, sp, n = 0;
  int ret = 0;

  for (i = 0; i < l->n_nodes && ret == 0; i++) {
    if (state[i] != WHITE)
      continue;
    sp = 0;
    stack[sp++] = i;
    state[i] = GREY;
    while (sp > 0) {
      unsigned v = stack[sp - 1];
      const tfjs_node *tn = &l->nodes[v];
      if (next[v] < tn->n_inputs) {
        unsigned u = (unsigned) tn->input_nodes[next[v]++];
        if (state[u] == GREY) {
          ret = fail (l, SIMNPU_EFORMAT, "node '%s' depends on itself "
              "(a cycle through '%s')", l->nodes[u].name, tn->name);
          break;
        }
        if (state[u] == WHITE) {
          state[u] = GREY;
          stack[sp++] = u;
        }
      } else {
        state[v] = BLACK;
        order[n++] = v;
        sp--;
      }
    }
  }
  g_free (state);
  g_free (stack);
  g_free (next);
  return ret;
}

static int
lookup_input (tfjs_loader * l, const tfjs_ref * r)
{
  char *key = r->output ? g_strdup_printf ("%s:%u", r->name, r->output)
      : g_strdup (r->name);
  gpointer p = g_hash_table_lookup (l->tensors, key);
  int ret;

  g_free (key);
  if (p)
    return GPOINTER_TO_INT (p) - 1;
  ret = fail (l, SIMNPU_EFORMAT, "input '%s:%u' does not exist (that node "
      "has fewer outputs)", r->name, r->output);
  return ret;
}

static int
translate_node (tfjs_loader * l, unsigned idx)
{
  tfjs_node *tn = &l->nodes[idx];
  const tfjs_op *op;
  int in[TFJS_MAX_NODE_INPUTS];
  unsigned i;
  int ret;

  l->cur = tn;
  for (i = 0; i < tn->n_inputs; i++)
    if (l->nodes[tn->input_nodes[i]].poison != TFJS_NO_POISON) {
      tn->poison = l->nodes[tn->input_nodes[i]].poison;
      return 0;
    }
  if (strcmp (tn->op, "Const") == 0)
    return tn->n_inputs ? fail (l, SIMNPU_EFORMAT, "a Const with inputs")
        : tr_const (l, tn);
  if (strcmp (tn->op, "Placeholder") == 0)
    return tn->n_inputs ? fail (l, SIMNPU_EFORMAT, "a Placeholder with "
        "inputs") : tr_placeholder (l, tn);
  if (strcmp (tn->op, "NoOp") == 0)
    return 0;
  op = find_op (tn->op);
  if (op == NULL) {
    tn->poison = (int) idx;
    return 0;
  }
  for (i = 0; i < tn->n_inputs; i++) {
    in[i] = lookup_input (l, &tn->inputs[i]);
    if (in[i] < 0)
      return in[i];
  }
  if (op->translate)
    ret = op->translate (l, tn, in);
  else
    ret = tr_elementwise (l, tn, in, op->ir_op);
  return ret < 0 ? ret : 0;
}

/* The signature's output names (modelTopology's "signature" or
 * userDefinedMetadata's), else every node nothing consumes. */
static int
find_outputs (tfjs_loader * l, JsonObject * root, GPtrArray * refs)
{
  JsonObject *sig = get_object (root, "signature");
  JsonObject *outs;
  unsigned i, j;

  if (sig == NULL)
    sig = get_object (get_object (root, "userDefinedMetadata"), "signature");
  outs = get_object (sig, "outputs");
  if (outs && json_object_get_size (outs) > 0) {
    GList *members = json_object_get_members (outs), *m;
    for (m = members; m; m = m->next) {
      JsonObject *o = get_object (outs, m->data);
      const char *name = get_string (o, "name");
      g_ptr_array_add (refs, (gpointer) (name ? name : m->data));
    }
    g_list_free (members);
    return 0;
  }
  {
    bool *consumed = g_new0 (bool, MAX (l->n_nodes, 1));
    for (i = 0; i < l->n_nodes; i++)
      for (j = 0; j < l->nodes[i].n_inputs; j++)
        consumed[l->nodes[i].input_nodes[j]] = true;
    for (i = 0; i < l->n_nodes; i++)
      if (!consumed[i] && strcmp (l->nodes[i].op, "Const") != 0
          && strcmp (l->nodes[i].op, "Placeholder") != 0
          && strcmp (l->nodes[i].op, "NoOp") != 0)
        g_ptr_array_add (refs, (gpointer) l->nodes[i].name);
    g_free (consumed);
  }
  return 0;
}

static int
set_outputs (tfjs_loader * l, JsonObject * root)
{
  GPtrArray *refs = g_ptr_array_new ();
  GString *dropped = g_string_new (NULL);
  int first_poison = TFJS_NO_POISON;
  unsigned i;
  int ret = find_outputs (l, root, refs);

  l->cur = NULL;
  for (i = 0; i < refs->len && ret == 0; i++) {
    tfjs_ref r;
    char *own;
    gpointer p;
    const char *s = g_ptr_array_index (refs, i);

    parse_ref (s[0] == '^' ? s + 1 : s, &r, &own);
    p = g_hash_table_lookup (l->node_by_name, r.name);
    if (p == NULL) {
      ret = fail (l, SIMNPU_EFORMAT, "the signature's output '%s' names no "
          "node", s);
    } else if (l->nodes[GPOINTER_TO_INT (p) - 1].poison != TFJS_NO_POISON) {
      const tfjs_node *bad =
          &l->nodes[l->nodes[GPOINTER_TO_INT (p) - 1].poison];
      if (first_poison == TFJS_NO_POISON)
        first_poison = l->nodes[GPOINTER_TO_INT (p) - 1].poison;
      g_string_append_printf (dropped, "%s'%s' (needs '%s', op %s)",
          dropped->len ? ", " : "", s, bad->name, bad->op);
    } else {
      int t = lookup_input (l, &r);
      unsigned k;
      if (t < 0) {
        ret = t;
      } else if (l->g->n_outputs >= SIMNPU_IR_MAX_OUTPUTS) {
        ret = fail (l, SIMNPU_EUNSUPPORTED, "more than %d outputs",
            SIMNPU_IR_MAX_OUTPUTS);
      } else {
        for (k = 0; k < l->g->n_outputs; k++)
          if (l->g->outputs[k] == t)
            break;
        if (k == l->g->n_outputs)
          l->g->outputs[l->g->n_outputs++] = t;
      }
    }
    g_free (own);
  }
  if (ret == 0 && l->g->n_outputs == 0) {
    if (first_poison != TFJS_NO_POISON)
      ret = fail (l, SIMNPU_EUNSUPPORTED, "node '%s' has op '%s', which is "
          "not supported, and every output depends on it",
          l->nodes[first_poison].name, l->nodes[first_poison].op);
    else
      ret = fail (l, SIMNPU_EFORMAT, "the graph has no outputs");
  } else if (ret == 0 && dropped->len) {
    g_message ("tfjs: left out outputs needing unsupported ops: %s",
        dropped->str);
  }
  g_string_free (dropped, TRUE);
  g_ptr_array_free (refs, TRUE);
  return ret;
}

static int
load_root (tfjs_loader * l, JsonNode * root_node,
    simnpu__tfjs_shard_reader reader, gpointer user_data)
{
  JsonObject *root = root_node && JSON_NODE_HOLDS_OBJECT (root_node) ?
      json_node_get_object (root_node) : NULL;
  GPtrArray *owned = g_ptr_array_new_with_free_func (g_free);
  unsigned *order = NULL, i;
  int ret;

  if (root == NULL) {
    ret = fail (l, SIMNPU_EFORMAT, "model.json is not a JSON object");
    goto out;
  }
  ret = load_weights (l, root, reader, user_data);
  if (ret == 0)
    ret = parse_nodes (l, root, owned);
  if (ret < 0)
    goto out;
  order = g_new (unsigned, MAX (l->n_nodes, 1));
  ret = topo_sort (l, order);
  for (i = 0; i < l->n_nodes && ret == 0; i++)
    ret = translate_node (l, order[i]);
  if (ret == 0)
    ret = set_outputs (l, root);
  l->cur = NULL;
  if (ret == 0)
    ret = simnpu__ir_prune (l->g, l->error);
out:
  g_free (order);
  g_ptr_array_free (owned, TRUE);
  return ret;
}

/* ------------------------------------------------------------------ */

int
simnpu__tfjs_load_data (const char *json, size_t size,
    simnpu__tfjs_shard_reader reader, gpointer user_data,
    simnpu__ir_graph ** out, simnpu_error * error)
{
  tfjs_loader l = { 0 };
  JsonParser *parser;
  GError *err = NULL;
  int ret;

  *out = NULL;
  l.error = error;
  if (size > TFJS_MAX_JSON_BYTES)
    return fail (&l, SIMNPU_ENOMEM, "model.json: %zu bytes; expected at "
        "most %" G_GINT64_FORMAT, size, TFJS_MAX_JSON_BYTES);
  if (simnpu__json_depth (json, size) > TFJS_MAX_JSON_DEPTH)
    return fail (&l, SIMNPU_EFORMAT, "model.json: nested deeper than %d "
        "levels", TFJS_MAX_JSON_DEPTH);
  parser = json_parser_new ();
  if (!json_parser_load_from_data (parser, json, (gssize) size, &err)) {
    ret = fail (&l, SIMNPU_EFORMAT, "model.json: %s", err->message);
    g_error_free (err);
    g_object_unref (parser);
    return ret;
  }
  l.g = simnpu__ir_graph_new ("tfjs");
  l.weights = g_hash_table_new_full (g_str_hash, g_str_equal, NULL,
      weight_free);
  l.node_by_name = g_hash_table_new (g_str_hash, g_str_equal);
  l.tensors = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);

  ret = load_root (&l, json_parser_get_root (parser), reader, user_data);

  if (l.nodes) {
    unsigned i;
    for (i = 0; i < l.n_nodes; i++) {
      g_free (l.nodes[i].inputs);
      g_free (l.nodes[i].input_nodes);
    }
    g_free (l.nodes);
  }
  g_hash_table_destroy (l.weights);
  g_hash_table_destroy (l.node_by_name);
  g_hash_table_destroy (l.tensors);
  g_object_unref (parser);
  if (ret < 0) {
    simnpu__ir_graph_free (l.g);
    return ret;
  }
  *out = l.g;
  return 0;
}

typedef struct
{
  char *dir;
} tfjs_file_reader;

static GBytes *
read_shard (const char *path, gpointer user_data)
{
  tfjs_file_reader *r = user_data;
  char *full = g_build_filename (r->dir, path, NULL);
  gchar *contents = NULL;
  gsize len = 0;

  if (!g_file_get_contents (full, &contents, &len, NULL)) {
    g_free (full);
    return NULL;
  }
  g_free (full);
  return g_bytes_new_take (contents, len);
}

int
simnpu__tfjs_load_file (const char *model_json, simnpu__ir_graph ** out,
    simnpu_error * error)
{
  tfjs_file_reader r;
  gchar *contents = NULL;
  gsize len = 0;
  GError *err = NULL;
  int ret;

  *out = NULL;
  if (!g_file_get_contents (model_json, &contents, &len, &err)) {
    ret = simnpu__set_error (error, SIMNPU_EIO, "%s: %s", model_json,
        err->message);
    g_error_free (err);
    return ret;
  }
  r.dir = g_path_get_dirname (model_json);
  ret = simnpu__tfjs_load_data (contents, len, read_shard, &r, out, error);
  g_free (r.dir);
  g_free (contents);
  return ret;
}
