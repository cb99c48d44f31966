/* gst-ax
 * Copyright (C) 2026 gst-ax developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

/* The TF.js weights manifest: each group's shards read through the
 * caller's reader, checked against the sizes its weights need, and every
 * weight decoded (float16 and affine uint8/uint16 dequantised) into the
 * loader's table, where the Const node of that name takes it. */

#include "tfjs-private.h"

#include <math.h>
#include <string.h>

/* every shard of a model together */
#define TFJS_MAX_WEIGHT_BYTES (G_GINT64_CONSTANT (4) << 30)

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

void
simnpu__tfjs_weight_free (gpointer p)
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
  s->name = simnpu__tfjs_get_string (o, "name");
  if (s->name == NULL)
    return simnpu__tfjs_fail (l, SIMNPU_EFORMAT,
        "weightsManifest[%u].weights[%u]: no name", group, index);
  shape = simnpu__tfjs_get_array (o, "shape");
  if (shape == NULL)
    return simnpu__tfjs_fail (l, SIMNPU_EFORMAT, "weight '%s': no shape",
        s->name);
  s->rank = json_array_get_length (shape);
  if (s->rank > SIMNPU_IR_MAX_RANK)
    return simnpu__tfjs_fail (l, SIMNPU_EUNSUPPORTED,
        "weight '%s': rank %u; expected at most %d", s->name, s->rank,
        SIMNPU_IR_MAX_RANK);
  s->n = 1;
  for (i = 0; i < s->rank; i++) {
    if (!simnpu__tfjs_node_int (json_array_get_element (shape, i), &s->dims[i])
        || s->dims[i] < 0 || s->dims[i] > SIMNPU_IR_MAX_ELEMENTS)
      return simnpu__tfjs_fail (l, SIMNPU_EFORMAT,
          "weight '%s': shape[%u] is not a size", s->name, i);
    s->n *= s->dims[i];
    if (s->n > SIMNPU_IR_MAX_ELEMENTS)
      return simnpu__tfjs_fail (l, SIMNPU_ENOMEM, "weight '%s': more than %"
          G_GINT64_FORMAT " elements", s->name, SIMNPU_IR_MAX_ELEMENTS);
  }
  dtype = simnpu__tfjs_get_string (o, "dtype");
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
    return simnpu__tfjs_fail (l, SIMNPU_EUNSUPPORTED,
        "weight '%s': dtype '%s' is not "
        "supported; expected float32, int32 or bool", s->name,
        dtype ? dtype : "(none)");
  }
  q = simnpu__tfjs_get_object (o, "quantization");
  if (q) {
    qdtype = simnpu__tfjs_get_string (q, "dtype");
    if (qdtype && strcmp (qdtype, "float16") == 0) {
      s->quant = QUANT_F16;
      elem = 2;
    } else if (qdtype && (strcmp (qdtype, "uint8") == 0
            || strcmp (qdtype, "uint16") == 0)) {
      s->quant = qdtype[4] == '8' ? QUANT_U8 : QUANT_U16;
      elem = s->quant == QUANT_U8 ? 1 : 2;
      if (!simnpu__tfjs_node_float (json_object_get_member (q, "min"), &d)
          || !isfinite (d))
        return simnpu__tfjs_fail (l, SIMNPU_EFORMAT,
            "weight '%s': quantization has no finite min", s->name);
      s->min = (float) d;
      if (!simnpu__tfjs_node_float (json_object_get_member (q, "scale"), &d)
          || !isfinite (d))
        return simnpu__tfjs_fail (l, SIMNPU_EFORMAT,
            "weight '%s': quantization has no finite scale", s->name);
      s->scale = (float) d;
    } else {
      return simnpu__tfjs_fail (l, SIMNPU_EUNSUPPORTED,
          "weight '%s': quantization dtype "
          "'%s' is not supported; expected float16, uint8 or uint16", s->name,
          qdtype ? qdtype : "(none)");
    }
    if (s->dtype == SIMNPU_IR_BOOL)
      return simnpu__tfjs_fail (l, SIMNPU_EUNSUPPORTED,
          "weight '%s': quantised bool", s->name);
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
  JsonArray *paths = simnpu__tfjs_get_array (group, "paths");
  JsonArray *weights = simnpu__tfjs_get_array (group, "weights");
  tfjs_weight_spec *specs;
  GByteArray *buf;
  unsigned i, n_weights;
  size_t expected = 0, offset = 0;
  GError *err = NULL;
  int ret = 0;

  if (paths == NULL || weights == NULL)
    return simnpu__tfjs_fail (l, SIMNPU_EFORMAT,
        "weightsManifest[%u]: expected 'paths' and 'weights' arrays", gi);
  n_weights = json_array_get_length (weights);
  specs = g_new0 (tfjs_weight_spec, MAX (n_weights, 1));
  for (i = 0; i < n_weights && ret == 0; i++) {
    ret = parse_weight_spec (l, json_array_get_element (weights, i), gi, i,
        &specs[i]);
    if (ret == 0) {
      expected += specs[i].bytes;
      *total += specs[i].bytes;
      if (*total > TFJS_MAX_WEIGHT_BYTES)
        ret =
            simnpu__tfjs_fail (l, SIMNPU_ENOMEM,
            "weights: more than %" G_GINT64_FORMAT " bytes",
            TFJS_MAX_WEIGHT_BYTES);
      else if (g_hash_table_contains (l->weights, specs[i].name))
        ret =
            simnpu__tfjs_fail (l, SIMNPU_EFORMAT, "weight '%s' is listed twice",
            specs[i].name);
    }
  }
  if (ret < 0) {
    g_free (specs);
    return ret;
  }

  buf = g_byte_array_new ();
  for (i = 0; i < json_array_get_length (paths) && ret == 0; i++) {
    const char *path =
        simnpu__tfjs_node_string (json_array_get_element (paths, i));
    GBytes *b;
    gsize size;
    gconstpointer data;

    if (path == NULL) {
      ret =
          simnpu__tfjs_fail (l, SIMNPU_EFORMAT,
          "weightsManifest[%u].paths[%u]: expected a file name", gi, i);
      break;
    }
    b = reader ? reader (path, user_data, &err) : NULL;
    if (b == NULL) {
      if (err != NULL)
        ret = simnpu__tfjs_fail (l, err->code == G_FILE_ERROR_ACCES ?
            SIMNPU_EFORMAT : SIMNPU_EIO, "weightsManifest[%u].paths[%u]: %s",
            gi, i, err->message);
      else
        ret =
            simnpu__tfjs_fail (l, SIMNPU_EIO,
            "weights shard '%s' is missing or unreadable", path);
      g_clear_error (&err);
      break;
    }
    data = g_bytes_get_data (b, &size);
    if (size > expected - buf->len)
      ret =
          simnpu__tfjs_fail (l, SIMNPU_ESIZE,
          "weights shard '%s': the group's shards "
          "hold more than the %zu bytes its %u weights need", path, expected,
          n_weights);
    else
      g_byte_array_append (buf, data, size);
    g_bytes_unref (b);
  }
  if (ret == 0 && buf->len != expected)
    ret =
        simnpu__tfjs_fail (l, SIMNPU_ESIZE,
        "weightsManifest[%u]: the shards hold %u "
        "bytes; its %u weights need %zu (a shard is short or missing: '%s')",
        gi, buf->len, n_weights, expected,
        json_array_get_length (paths) ?
        simnpu__tfjs_node_string (json_array_get_element (paths,
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

int
simnpu__tfjs_load_weights (tfjs_loader * l, JsonObject * root,
    simnpu__tfjs_shard_reader reader, gpointer user_data)
{
  JsonArray *manifest = simnpu__tfjs_get_array (root, "weightsManifest");
  int64_t total = 0;
  unsigned i;
  int ret;

  if (manifest == NULL)
    return 0;
  for (i = 0; i < json_array_get_length (manifest); i++) {
    JsonNode *n = json_array_get_element (manifest, i);
    if (!JSON_NODE_HOLDS_OBJECT (n))
      return simnpu__tfjs_fail (l, SIMNPU_EFORMAT,
          "weightsManifest[%u]: expected an object", i);
    ret =
        load_group (l, json_node_get_object (n), i, reader, user_data, &total);
    if (ret < 0)
      return ret;
  }
  return 0;
}
