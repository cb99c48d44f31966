/* gst-ax
 * Copyright (C) 2026 gst-ax developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

/* The TF.js front-end's reading of TF's JSON: the error form every
 * translation reports with, plain JSON values (TF's JSON writes 64-bit
 * integers as strings) and the AttrValue and TensorShapeProto messages of
 * GraphDef nodes. */

#include "tfjs-private.h"

#include <math.h>
#include <string.h>

/* ------------------------------------------------------------------ */
/* Errors */

int
simnpu__tfjs_fail (tfjs_loader * l, int code, const char *format, ...)
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

JsonObject *
simnpu__tfjs_get_object (JsonObject * o, const char *member)
{
  JsonNode *n = o ? json_object_get_member (o, member) : NULL;
  return n && JSON_NODE_HOLDS_OBJECT (n) ? json_node_get_object (n) : NULL;
}

JsonArray *
simnpu__tfjs_get_array (JsonObject * o, const char *member)
{
  JsonNode *n = o ? json_object_get_member (o, member) : NULL;
  return n && JSON_NODE_HOLDS_ARRAY (n) ? json_node_get_array (n) : NULL;
}

const char *
simnpu__tfjs_node_string (JsonNode * n)
{
  if (n == NULL || !JSON_NODE_HOLDS_VALUE (n)
      || json_node_get_value_type (n) != G_TYPE_STRING)
    return NULL;
  return json_node_get_string (n);
}

const char *
simnpu__tfjs_get_string (JsonObject * o, const char *member)
{
  return o ? simnpu__tfjs_node_string (json_object_get_member (o,
          member)) : NULL;
}

bool
simnpu__tfjs_node_int (JsonNode * n, int64_t * out)
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

bool
simnpu__tfjs_node_float (JsonNode * n, double *out)
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

JsonObject *
simnpu__tfjs_attr_value (const tfjs_node * tn, const char *key)
{
  return simnpu__tfjs_get_object (tn->attr, key);
}

int
simnpu__tfjs_attr_int (tfjs_loader * l, const tfjs_node * tn, const char *key,
    int64_t def, int64_t min, int64_t max, int64_t * out)
{
  JsonObject *a = simnpu__tfjs_attr_value (tn, key);
  JsonNode *n;

  *out = def;
  if (a == NULL)
    return 0;
  n = json_object_get_member (a, "i");
  if (n == NULL)
    return 0;                   /* proto3 JSON omits a zero */
  if (!simnpu__tfjs_node_int (n, out) || *out < min || *out > max)
    return simnpu__tfjs_fail (l, SIMNPU_EFORMAT,
        "attribute '%s': expected an integer in [%" G_GINT64_FORMAT ", %"
        G_GINT64_FORMAT "]", key, min, max);
  return 0;
}

int
simnpu__tfjs_attr_float (tfjs_loader * l, const tfjs_node * tn, const char *key,
    float def, float *out)
{
  JsonObject *a = simnpu__tfjs_attr_value (tn, key);
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
  if (!simnpu__tfjs_node_float (n, &d))
    return simnpu__tfjs_fail (l, SIMNPU_EFORMAT,
        "attribute '%s': expected a number", key);
  *out = (float) d;
  return 0;
}

bool
simnpu__tfjs_attr_bool (const tfjs_node * tn, const char *key, bool def)
{
  JsonObject *a = simnpu__tfjs_attr_value (tn, key);
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
int
simnpu__tfjs_decode_b64 (tfjs_loader * l, const char *key, const char *b64,
    char *buf, size_t size)
{
  guchar *raw;
  gsize len = 0;

  buf[0] = '\0';
  if (b64 == NULL)
    return 0;
  if (strlen (b64) > size * 2)
    return simnpu__tfjs_fail (l, SIMNPU_EFORMAT,
        "attribute '%s': string too long", key);
  raw = g_base64_decode (b64, &len);
  if (len >= size || memchr (raw, '\0', len) != NULL) {
    g_free (raw);
    return simnpu__tfjs_fail (l, SIMNPU_EFORMAT,
        "attribute '%s': expected a short base64 text", key);
  }
  memcpy (buf, raw, len);
  buf[len] = '\0';
  g_free (raw);
  return 0;
}

int
simnpu__tfjs_attr_string (tfjs_loader * l, const tfjs_node * tn,
    const char *key, char *buf)
{
  JsonObject *a = simnpu__tfjs_attr_value (tn, key);
  return simnpu__tfjs_decode_b64 (l, key, simnpu__tfjs_get_string (a, "s"), buf,
      TFJS_ATTR_STRING);
}

/* A list attribute's integers; absent or empty gives *n = 0. */
int
simnpu__tfjs_attr_ints (tfjs_loader * l, const tfjs_node * tn, const char *key,
    int64_t * out, unsigned max, unsigned *n)
{
  JsonArray *arr =
      simnpu__tfjs_get_array (simnpu__tfjs_get_object (simnpu__tfjs_attr_value
          (tn, key), "list"), "i");
  unsigned i, len;

  *n = 0;
  if (arr == NULL)
    return 0;
  len = json_array_get_length (arr);
  if (len > max)
    return simnpu__tfjs_fail (l, SIMNPU_EFORMAT,
        "attribute '%s': %u values; expected at most %u", key, len, max);
  for (i = 0; i < len; i++)
    if (!simnpu__tfjs_node_int (json_array_get_element (arr, i), &out[i]))
      return simnpu__tfjs_fail (l, SIMNPU_EFORMAT,
          "attribute '%s'[%u]: expected an integer", key, i);
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
    /* TF.js computes doubles in float32 and stores them so */
    {"DT_DOUBLE", SIMNPU_IR_F32},
  };
  unsigned i;

  for (i = 0; s && i < G_N_ELEMENTS (map); i++)
    if (strcmp (s, map[i].name) == 0) {
      *out = map[i].dtype;
      return 0;
    }
  return -1;
}

int
simnpu__tfjs_attr_type (tfjs_loader * l, const tfjs_node * tn, const char *key,
    simnpu__ir_dtype def, simnpu__ir_dtype * out)
{
  JsonObject *a = simnpu__tfjs_attr_value (tn, key);
  const char *s;

  *out = def;
  if (a == NULL)
    return 0;
  s = simnpu__tfjs_get_string (a, "type");
  if (s == NULL)
    s = "DT_INVALID";
  if (parse_tf_dtype (s, out) < 0)
    return simnpu__tfjs_fail (l, SIMNPU_EUNSUPPORTED,
        "attribute '%s': type %s is not "
        "supported; expected DT_FLOAT, DT_INT32, DT_INT64, DT_UINT8, DT_INT8 "
        "or DT_BOOL", key, s);
  return 0;
}

/* A TensorShapeProto's dims (-1 for unknown); an unknown rank fails. */
int
simnpu__tfjs_parse_shape (tfjs_loader * l, JsonObject * shape, const char *what,
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
    return simnpu__tfjs_fail (l, SIMNPU_EUNSUPPORTED,
        "%s: the shape's rank is unknown", what);
  dim = simnpu__tfjs_get_array (shape, "dim");
  if (dim == NULL)
    return 0;
  len = json_array_get_length (dim);
  if (len > SIMNPU_IR_MAX_RANK)
    return simnpu__tfjs_fail (l, SIMNPU_EUNSUPPORTED,
        "%s: rank %u; expected at most %d", what, len, SIMNPU_IR_MAX_RANK);
  for (i = 0; i < len; i++) {
    JsonNode *d = json_array_get_element (dim, i);
    JsonObject *o = JSON_NODE_HOLDS_OBJECT (d) ? json_node_get_object (d)
        : NULL;
    JsonNode *size = o ? json_object_get_member (o, "size") : NULL;
    if (o == NULL)
      return simnpu__tfjs_fail (l, SIMNPU_EFORMAT,
          "%s: dim %u is not an object", what, i);
    dims[i] = 0;
    if (size && (!simnpu__tfjs_node_int (size, &dims[i]) || dims[i] < -1
            || dims[i] > SIMNPU_IR_MAX_ELEMENTS))
      return simnpu__tfjs_fail (l, SIMNPU_EFORMAT,
          "%s: dim %u: expected a size in [-1, %" G_GINT64_FORMAT "]", what,
          i, SIMNPU_IR_MAX_ELEMENTS);
  }
  *rank = len;
  return 0;
}
