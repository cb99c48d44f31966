/* gst-ax
 * Copyright (C) 2026 gst-ax developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

/* The IR's binary form (host sections of the .axm), all little-endian:
 *
 *   "AXIR" u32 version, str name
 *   u32 n_tensors, per tensor: str name, u8 dtype, u8 rank, u8 is_const,
 *     u8 has_range, i64 dims[rank], f32 min, f32 max,
 *     constants: u64 bytes, data
 *   u32 n_nodes, per node: u32 op, str name, u32 n_inputs, i32 inputs[],
 *     u32 n_outputs, i32 outputs[], attrs (see write_attrs)
 *   u32 n_inputs, i32 inputs[], u32 n_outputs, i32 outputs[]
 *
 * where str is u32 length + bytes (no NUL). The reader checks every field
 * against the remaining bytes and the IR's limits, then infers shapes. */

#include "ir.h"

#include <math.h>
#include <string.h>

#define IR_MAGIC "AXIR"
#define IR_MAGIC_SIZE 4
#define IR_VERSION 1
/* longest tensor, node or graph name accepted */
#define IR_MAX_NAME 4096

/* ------------------------------------------------------------------ */
/* Writing */

static void
put_u8 (GByteArray * out, uint8_t v)
{
  g_byte_array_append (out, &v, 1);
}

static void
put_u32 (GByteArray * out, uint32_t v)
{
  uint32_t le = GUINT32_TO_LE (v);
  g_byte_array_append (out, (const guint8 *) &le, sizeof (le));
}

static void
put_i32 (GByteArray * out, int32_t v)
{
  put_u32 (out, (uint32_t) v);
}

static void
put_u64 (GByteArray * out, uint64_t v)
{
  uint64_t le = GUINT64_TO_LE (v);
  g_byte_array_append (out, (const guint8 *) &le, sizeof (le));
}

static void
put_f32 (GByteArray * out, float v)
{
  uint32_t u;
  memcpy (&u, &v, sizeof (u));
  put_u32 (out, u);
}

static void
put_str (GByteArray * out, const char *s)
{
  size_t len = s != NULL ? strlen (s) : 0;

  len = MIN (len, IR_MAX_NAME);
  put_u32 (out, (uint32_t) len);
  if (len > 0)
    g_byte_array_append (out, (const guint8 *) s, (guint) len);
}

/* constant data, element by element so that the byte order is fixed */
static void
put_data (GByteArray * out, const simnpu__ir_tensor * t)
{
  size_t es = simnpu__ir_dtype_size (t->dtype), bytes =
      simnpu__ir_tensor_bytes (t), i;

  put_u64 (out, bytes);
  if (es == 1 || G_BYTE_ORDER == G_LITTLE_ENDIAN) {
    g_byte_array_append (out, t->data, (guint) bytes);
    return;
  }
  for (i = 0; i < bytes; i += es) {
    if (es == sizeof (uint32_t)) {
      uint32_t v;
      memcpy (&v, (const uint8_t *) t->data + i, es);
      put_u32 (out, v);
    } else {
      uint64_t v;
      memcpy (&v, (const uint8_t *) t->data + i, es);
      put_u64 (out, v);
    }
  }
}

static void
write_attrs (GByteArray * out, const simnpu__ir_attrs * a)
{
  unsigned i;

  for (i = 0; i < 2; i++)
    put_i32 (out, a->kernel[i]);
  for (i = 0; i < 2; i++)
    put_i32 (out, a->stride[i]);
  for (i = 0; i < 2; i++)
    put_i32 (out, a->dilation[i]);
  for (i = 0; i < 4; i++)
    put_i32 (out, a->pads[i]);
  put_i32 (out, a->groups);
  put_u8 (out, a->ceil_mode);
  put_u8 (out, a->count_include_pad);
  put_u8 (out, a->keepdims);
  put_i32 (out, a->axis);
  put_i32 (out, a->mode);
  put_i32 (out, a->coord);
  put_i32 (out, a->nearest);
  put_i32 (out, (int32_t) a->dtype);
  put_i32 (out, (int32_t) a->act);
  put_f32 (out, a->act_min);
  put_f32 (out, a->act_max);
  put_f32 (out, a->act_alpha);
  for (i = 0; i < 4; i++)
    put_f32 (out, a->f[i]);
  put_u32 (out, MIN (a->n_ints, SIMNPU_IR_MAX_INTS));
  for (i = 0; i < a->n_ints && i < SIMNPU_IR_MAX_INTS; i++)
    put_u64 (out, (uint64_t) a->ints[i]);
  for (i = 0; i < SIMNPU_IR_MAX_RANK; i++)
    put_u64 (out, (uint64_t) a->steps[i]);
}

void
simnpu__ir_serialize (const simnpu__ir_graph * g, GByteArray * out)
{
  unsigned i, j;

  g_byte_array_append (out, (const guint8 *) IR_MAGIC, IR_MAGIC_SIZE);
  put_u32 (out, IR_VERSION);
  put_str (out, g->name);
  put_u32 (out, g->n_tensors);
  for (i = 0; i < g->n_tensors; i++) {
    const simnpu__ir_tensor *t = &g->tensors[i];
    bool is_const = t->is_const && t->data != NULL;
    put_str (out, t->name);
    put_u8 (out, (uint8_t) t->dtype);
    put_u8 (out, (uint8_t) t->rank);
    put_u8 (out, is_const);
    put_u8 (out, t->has_range);
    for (j = 0; j < t->rank && j < SIMNPU_IR_MAX_RANK; j++)
      put_u64 (out, (uint64_t) t->dims[j]);
    put_f32 (out, t->min);
    put_f32 (out, t->max);
    if (is_const)
      put_data (out, t);
  }
  put_u32 (out, g->n_nodes);
  for (i = 0; i < g->n_nodes; i++) {
    const simnpu__ir_node *n = &g->nodes[i];
    put_u32 (out, (uint32_t) n->op);
    put_str (out, n->name);
    put_u32 (out, n->n_inputs);
    for (j = 0; j < n->n_inputs; j++)
      put_i32 (out, n->inputs[j]);
    put_u32 (out, n->n_outputs);
    for (j = 0; j < n->n_outputs; j++)
      put_i32 (out, n->outputs[j]);
    write_attrs (out, &n->attrs);
  }
  put_u32 (out, g->n_inputs);
  for (i = 0; i < g->n_inputs; i++)
    put_i32 (out, g->inputs[i]);
  put_u32 (out, g->n_outputs);
  for (i = 0; i < g->n_outputs; i++)
    put_i32 (out, g->outputs[i]);
}

/* ------------------------------------------------------------------ */
/* Reading */

typedef struct
{
  const uint8_t *p;
  size_t left;
  bool failed;
  const char *what;             /* the field being read, for the message */
} reader;

static bool
take (reader * r, void *dst, size_t n)
{
  if (r->failed || n > r->left) {
    r->failed = true;
    return false;
  }
  memcpy (dst, r->p, n);
  r->p += n;
  r->left -= n;
  return true;
}

static uint8_t
get_u8 (reader * r)
{
  uint8_t v = 0;
  take (r, &v, 1);
  return v;
}

static uint32_t
get_u32 (reader * r)
{
  uint32_t v = 0;
  take (r, &v, sizeof (v));
  return GUINT32_FROM_LE (v);
}

static int32_t
get_i32 (reader * r)
{
  return (int32_t) get_u32 (r);
}

static uint64_t
get_u64 (reader * r)
{
  uint64_t v = 0;
  take (r, &v, sizeof (v));
  return GUINT64_FROM_LE (v);
}

static float
get_f32 (reader * r)
{
  uint32_t u = get_u32 (r);
  float v;
  memcpy (&v, &u, sizeof (v));
  return v;
}

/* NULL (failed) when too long, past the end or holding a NUL */
static char *
get_str (reader * r)
{
  uint32_t len = get_u32 (r);
  char *s;

  if (r->failed || len > IR_MAX_NAME || len > r->left
      || memchr (r->p, '\0', len) != NULL) {
    r->failed = true;
    return NULL;
  }
  s = g_strndup ((const char *) r->p, len);
  r->p += len;
  r->left -= len;
  return s;
}

static int
fail (reader * r, simnpu_error * error, const char *what, unsigned index)
{
  return simnpu__set_error (error, SIMNPU_EFORMAT,
      "IR: %s %u is %s", what, index, r->failed ? "truncated or malformed"
      : "out of range");
}

static int
read_tensor (reader * r, simnpu__ir_graph * g, unsigned index,
    simnpu_error * error)
{
  char *name = get_str (r);
  uint8_t dtype = get_u8 (r), rank = get_u8 (r), is_const = get_u8 (r);
  uint8_t has_range = get_u8 (r);
  int64_t dims[SIMNPU_IR_MAX_RANK];
  simnpu__ir_tensor *t;
  unsigned i;
  int id;

  if (r->failed || dtype >= SIMNPU_IR_N_DTYPES || rank > SIMNPU_IR_MAX_RANK
      || is_const > 1 || has_range > 1) {
    g_free (name);
    return fail (r, error, "tensor", index);
  }
  for (i = 0; i < rank; i++) {
    uint64_t d = get_u64 (r);
    if (d > (uint64_t) SIMNPU_IR_MAX_ELEMENTS) {
      g_free (name);
      return fail (r, error, "tensor dimension of tensor", index);
    }
    dims[i] = (int64_t) d;
  }
  id = simnpu__ir_add_tensor (g, name, (simnpu__ir_dtype) dtype, rank, dims);
  g_free (name);
  if (id < 0)
    return fail (r, error, "tensor", index);
  t = &g->tensors[id];
  t->min = get_f32 (r);
  t->max = get_f32 (r);
  t->has_range = has_range;
  if (r->failed)
    return fail (r, error, "tensor", index);
  if (is_const) {
    uint64_t bytes = get_u64 (r);
    int64_t n = simnpu__ir_tensor_elements (t);
    if (r->failed || n < 0 || bytes != simnpu__ir_tensor_bytes (t)
        || bytes > r->left)
      return simnpu__set_error (error, SIMNPU_EFORMAT,
          "IR: constant '%s' holds %" G_GUINT64_FORMAT " bytes, its shape "
          "needs %zu", t->name, bytes, simnpu__ir_tensor_bytes (t));
    t->is_const = true;
    t->data = g_malloc (MAX (bytes, 1));
    take (r, t->data, bytes);
    if (G_BYTE_ORDER != G_LITTLE_ENDIAN) {
      size_t es = simnpu__ir_dtype_size (t->dtype), k;
      for (k = 0; es > 1 && k < bytes; k += es) {
        uint8_t *e = (uint8_t *) t->data + k;
        size_t a;
        for (a = 0; a < es / 2; a++) {
          uint8_t tmp = e[a];
          e[a] = e[es - 1 - a];
          e[es - 1 - a] = tmp;
        }
      }
    }
  }
  return 0;
}

static bool
read_indices (reader * r, int n_tensors, unsigned count, int *dst)
{
  unsigned i;

  for (i = 0; i < count; i++) {
    int32_t v = get_i32 (r);
    if (r->failed || v < SIMNPU_IR_NONE || v >= n_tensors)
      return false;
    dst[i] = v;
  }
  return !r->failed;
}

static int
read_attrs (reader * r, simnpu__ir_attrs * a)
{
  unsigned i;
  int32_t v;

  for (i = 0; i < 2; i++)
    a->kernel[i] = get_i32 (r);
  for (i = 0; i < 2; i++)
    a->stride[i] = get_i32 (r);
  for (i = 0; i < 2; i++)
    a->dilation[i] = get_i32 (r);
  for (i = 0; i < 4; i++)
    a->pads[i] = get_i32 (r);
  a->groups = get_i32 (r);
  a->ceil_mode = get_u8 (r) != 0;
  a->count_include_pad = get_u8 (r) != 0;
  a->keepdims = get_u8 (r) != 0;
  a->axis = get_i32 (r);
  a->mode = get_i32 (r);
  a->coord = get_i32 (r);
  a->nearest = get_i32 (r);
  v = get_i32 (r);
  if (v < 0 || v >= SIMNPU_IR_N_DTYPES)
    return -1;
  a->dtype = (simnpu__ir_dtype) v;
  v = get_i32 (r);
  if (v < SIMNPU_IR_ACT_NONE || v > SIMNPU_IR_ACT_ELU)
    return -1;
  a->act = (simnpu__ir_act) v;
  a->act_min = get_f32 (r);
  a->act_max = get_f32 (r);
  a->act_alpha = get_f32 (r);
  for (i = 0; i < 4; i++)
    a->f[i] = get_f32 (r);
  a->n_ints = get_u32 (r);
  if (a->n_ints > SIMNPU_IR_MAX_INTS)
    return -1;
  for (i = 0; i < a->n_ints; i++)
    a->ints[i] = (int64_t) get_u64 (r);
  for (i = 0; i < SIMNPU_IR_MAX_RANK; i++)
    a->steps[i] = (int64_t) get_u64 (r);
  return r->failed ? -1 : 0;
}

static int
read_node (reader * r, simnpu__ir_graph * g, unsigned index,
    simnpu_error * error)
{
  uint32_t op = get_u32 (r), n_in, n_out;
  char *name = get_str (r);
  int ins[SIMNPU_IR_MAX_INPUTS], outs[SIMNPU_IR_MAX_OUTPUTS];
  simnpu__ir_node *n;

  if (r->failed || op >= SIMNPU_IR_N_OPS) {
    g_free (name);
    return fail (r, error, "node", index);
  }
  n_in = get_u32 (r);
  if (n_in > SIMNPU_IR_MAX_INPUTS
      || !read_indices (r, (int) g->n_tensors, n_in, ins)) {
    g_free (name);
    return fail (r, error, "input list of node", index);
  }
  n_out = get_u32 (r);
  if (n_out > SIMNPU_IR_MAX_OUTPUTS
      || !read_indices (r, (int) g->n_tensors, n_out, outs)) {
    g_free (name);
    return fail (r, error, "output list of node", index);
  }
  n = simnpu__ir_add_node (g, (simnpu__ir_op) op, name, n_in, ins, n_out, outs);
  g_free (name);
  if (n == NULL)
    return fail (r, error, "node", index);
  if (read_attrs (r, &n->attrs) < 0)
    return fail (r, error, "attributes of node", index);
  return 0;
}

static int
read_io (reader * r, simnpu__ir_graph * g, simnpu_error * error)
{
  uint32_t n = get_u32 (r);
  unsigned i;

  if (n > SIMNPU_IR_MAX_INPUTS
      || !read_indices (r, (int) g->n_tensors, n, g->inputs))
    return fail (r, error, "graph input list", 0);
  g->n_inputs = n;
  n = get_u32 (r);
  if (n > SIMNPU_IR_MAX_OUTPUTS
      || !read_indices (r, (int) g->n_tensors, n, g->outputs))
    return fail (r, error, "graph output list", 0);
  g->n_outputs = n;
  for (i = 0; i < g->n_inputs; i++)
    if (g->inputs[i] < 0)
      return fail (r, error, "graph input", i);
  for (i = 0; i < g->n_outputs; i++)
    if (g->outputs[i] < 0)
      return fail (r, error, "graph output", i);
  return 0;
}

int
simnpu__ir_deserialize (const void *data, size_t size,
    simnpu__ir_graph ** out, simnpu_error * error)
{
  reader r = { data, size, false, NULL };
  char magic[IR_MAGIC_SIZE], *name;
  simnpu__ir_graph *g;
  uint32_t version, count, i;
  int ret;

  *out = NULL;
  if (data == NULL || !take (&r, magic, IR_MAGIC_SIZE)
      || memcmp (magic, IR_MAGIC, IR_MAGIC_SIZE) != 0)
    return simnpu__set_error (error, SIMNPU_EFORMAT,
        "IR: not a serialised graph (magic '%s' expected)", IR_MAGIC);
  version = get_u32 (&r);
  if (r.failed || version != IR_VERSION)
    return simnpu__set_error (error, SIMNPU_EVERSION,
        "IR: version %u, only %d is supported", version, IR_VERSION);
  name = get_str (&r);
  if (name == NULL)
    return fail (&r, error, "graph name", 0);
  g = simnpu__ir_graph_new (name);
  g_free (name);
  count = get_u32 (&r);
  if (r.failed || count > SIMNPU_IR_MAX_TENSORS) {
    ret = fail (&r, error, "tensor count", count);
    goto failed;
  }
  for (i = 0; i < count; i++)
    if ((ret = read_tensor (&r, g, i, error)) < 0)
      goto failed;
  count = get_u32 (&r);
  if (r.failed || count > SIMNPU_IR_MAX_NODES) {
    ret = fail (&r, error, "node count", count);
    goto failed;
  }
  for (i = 0; i < count; i++)
    if ((ret = read_node (&r, g, i, error)) < 0)
      goto failed;
  if ((ret = read_io (&r, g, error)) < 0)
    goto failed;
  if (r.left != 0) {
    ret = simnpu__set_error (error, SIMNPU_EFORMAT,
        "IR: %zu bytes after the end of the graph", r.left);
    goto failed;
  }
  if ((ret = simnpu__ir_infer_shapes (g, error)) < 0)
    goto failed;
  *out = g;
  return 0;
failed:
  simnpu__ir_graph_free (g);
  return ret;
}
