/* gst-ax
 * Copyright (C) 2026 gst-ax developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

/* The ONNX front-end: ModelProto (parsed by protobuf-c code generated from
 * Debian's onnx.proto) into the float IR.
 *
 * Every IR node is shape-inferred as soon as it is added, and a node whose
 * inputs are all constants is executed at once and replaced by constants,
 * so that shape-valued inputs computed in the model (Shape -> Gather ->
 * Concat -> Reshape) are constants by the time a consumer needs them as
 * attributes.
 *
 * Layout: tensors stay NCHW as in the model; each spatial op (conv, pools,
 * resize, batchnorm, depth/space) runs on a transpose to NHWC and back
 * (simnpu__ir_cancel_transposes() removes the pairs that cancel). 1-D
 * convs and pools run as 2-D ones of height 1.
 *
 * ONNX ops without an IR op of their own are compositions of IR ops
 * (Gemm, Celu, Mish, LayerNormalization, InstanceNormalization, LRN,
 * ConvTranspose, GatherElements, the losses, the quantize ops, ...): one
 * static table maps each ONNX op to its import function and the oldest
 * opset whose definition that function reads. */

#include "compiler.h"
#include "onnx.pb-c.h"

#include <glib/gstdio.h>
#include <float.h>
#include <math.h>
#include <string.h>

#define ONNX_MIN_OPSET 11
#define ONNX_MAX_OPSET 17
/* the oldest opset any op's import reads (see onnx_op.min_opset) */
#define ONNX_OLDEST_OPSET 1
/* protobuf-c parses from one buffer; ONNX keeps models under 2 GiB */
#define ONNX_MAX_FILE_SIZE (G_GINT64_CONSTANT (2) << 30)
#define ONNX_FLOAT16_EXP_BITS 0x1f
#define ONNX_FLOAT16_MANT_BITS 0x3ff
#define ONNX_FLOAT16_MANT_SHIFT 10
#define ONNX_FLOAT16_EXP_SHIFT 10
#define ONNX_FLOAT16_SIGN_SHIFT 15
#define ONNX_FLOAT16_BIAS 15
#define ONNX_FLOAT32_BIAS 127
#define ONNX_FLOAT32_MANT_SHIFT 13
#define ONNX_FLOAT32_EXP_SHIFT 23
#define ONNX_FLOAT32_SIGN_SHIFT 31
#define ONNX_FLOAT32_EXP_BITS 0xff
#define ONNX_DEFAULT_LEAKY_ALPHA 0.01f
#define ONNX_DEFAULT_SELU_ALPHA 1.67326319217681884765625f
#define ONNX_DEFAULT_SELU_GAMMA 1.05070102214813232421875f
#define ONNX_DEFAULT_HARD_SIGMOID_ALPHA 0.2f
#define ONNX_DEFAULT_HARD_SIGMOID_BETA 0.5f
#define ONNX_DEFAULT_BN_EPSILON 1e-5f
#define ONNX_DEFAULT_CUBIC_A -0.75f
#define ONNX_SPATIAL_DIMS 2
#define ONNX_CONV_RANK 4
/* constants made at import (folding, ConstantOfShape) stay under this, so
 * a small file cannot make the importer allocate gigabytes */
#define ONNX_MAX_FOLD_ELEMENTS (G_GINT64_CONSTANT (1) << 24)

typedef struct
{
  simnpu__ir_graph *g;
  int opset;
  /* ONNX value name -> IR tensor index + 1 */
  GHashTable *names;
  const Onnx__NodeProto *node;
  const char *node_name;
  simnpu_error *error;
  unsigned tmp;
} onnx_ctx;

/* ------------------------------------------------------------------ */
/* Tensors */

static bool
simnpu__onnx_dtype_to_ir (int32_t onnx, simnpu__ir_dtype * out)
{
  switch (onnx) {
    case ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT:
    case ONNX__TENSOR_PROTO__DATA_TYPE__DOUBLE:
    case ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT16:
      *out = SIMNPU_IR_F32;
      return true;
    case ONNX__TENSOR_PROTO__DATA_TYPE__INT64:
      *out = SIMNPU_IR_I64;
      return true;
    case ONNX__TENSOR_PROTO__DATA_TYPE__INT32:
      *out = SIMNPU_IR_I32;
      return true;
    case ONNX__TENSOR_PROTO__DATA_TYPE__UINT8:
      *out = SIMNPU_IR_U8;
      return true;
    case ONNX__TENSOR_PROTO__DATA_TYPE__INT8:
      *out = SIMNPU_IR_I8;
      return true;
    case ONNX__TENSOR_PROTO__DATA_TYPE__BOOL:
      *out = SIMNPU_IR_BOOL;
      return true;
    default:
      return false;
  }
}

static const char *
simnpu__onnx_dtype_name (int32_t onnx)
{
  const ProtobufCEnumValue *v =
      protobuf_c_enum_descriptor_get_value
      (&onnx__tensor_proto__data_type__descriptor, onnx);
  return v != NULL ? v->name : "unknown";
}

static float
onnx_half_to_float (uint16_t h)
{
  uint32_t sign = (uint32_t) (h >> ONNX_FLOAT16_SIGN_SHIFT) <<
      ONNX_FLOAT32_SIGN_SHIFT;
  uint32_t exp = (h >> ONNX_FLOAT16_EXP_SHIFT) & ONNX_FLOAT16_EXP_BITS;
  uint32_t mant = h & ONNX_FLOAT16_MANT_BITS;
  uint32_t bits;
  float f;

  if (exp == 0) {
    /* zero or subnormal: exact in float */
    f = ldexpf ((float) mant, 1 - ONNX_FLOAT16_BIAS - ONNX_FLOAT16_MANT_SHIFT);
    return sign ? -f : f;
  }
  if (exp == ONNX_FLOAT16_EXP_BITS)
    bits = sign | ((uint32_t) ONNX_FLOAT32_EXP_BITS << ONNX_FLOAT32_EXP_SHIFT)
        | (mant << ONNX_FLOAT32_MANT_SHIFT);
  else
    bits = sign | ((exp - ONNX_FLOAT16_BIAS + ONNX_FLOAT32_BIAS) <<
        ONNX_FLOAT32_EXP_SHIFT) | (mant << ONNX_FLOAT32_MANT_SHIFT);
  memcpy (&f, &bits, sizeof f);
  return f;
}

/* size of one element as stored in raw_data */
static size_t
onnx_raw_size (int32_t onnx)
{
  switch (onnx) {
    case ONNX__TENSOR_PROTO__DATA_TYPE__DOUBLE:
    case ONNX__TENSOR_PROTO__DATA_TYPE__INT64:
      return 8;
    case ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT:
    case ONNX__TENSOR_PROTO__DATA_TYPE__INT32:
      return 4;
    case ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT16:
      return 2;
    default:
      return 1;
  }
}

static int
simnpu__onnx_tensor_from_proto (const Onnx__TensorProto * t, const char *what,
    simnpu__ir_dtype * dtype_out, unsigned *rank_out, int64_t * dims_out,
    void **data_out, simnpu_error * error)
{
  simnpu__ir_dtype dtype;
  int64_t n = 1;
  size_t i, esize, n_typed;
  uint8_t *data;
  int32_t dt = t->has_data_type ? t->data_type : 0;

  if (!simnpu__onnx_dtype_to_ir (dt, &dtype))
    return simnpu__set_error (error, SIMNPU_EUNSUPPORTED,
        "%s: data type %s (%d) is not supported (expected float, double, "
        "float16, int64, int32, uint8, int8 or bool)", what,
        simnpu__onnx_dtype_name (dt), (int) dt);
  if (t->has_data_location
      && t->data_location == ONNX__TENSOR_PROTO__DATA_LOCATION__EXTERNAL)
    return simnpu__set_error (error, SIMNPU_EUNSUPPORTED,
        "%s: external data is not supported (save the model with its "
        "weights inside)", what);
  if (t->segment != NULL)
    return simnpu__set_error (error, SIMNPU_EUNSUPPORTED,
        "%s: segmented tensors are not supported", what);
  if (t->n_dims > SIMNPU_IR_MAX_RANK)
    return simnpu__set_error (error, SIMNPU_EUNSUPPORTED,
        "%s: rank %zu is above the maximum %d", what, t->n_dims,
        SIMNPU_IR_MAX_RANK);
  for (i = 0; i < t->n_dims; i++) {
    if (t->dims[i] < 0 || t->dims[i] > SIMNPU_IR_MAX_ELEMENTS)
      return simnpu__set_error (error, SIMNPU_EFORMAT,
          "%s: dimension %zu is %" G_GINT64_FORMAT
          " (expected 0 to %" G_GINT64_FORMAT ")", what, i, t->dims[i],
          (gint64) SIMNPU_IR_MAX_ELEMENTS);
    n *= t->dims[i];
    if (n > SIMNPU_IR_MAX_ELEMENTS)
      return simnpu__set_error (error, SIMNPU_ENOMEM,
          "%s: more than %" G_GINT64_FORMAT " elements", what,
          (gint64) SIMNPU_IR_MAX_ELEMENTS);
    dims_out[i] = t->dims[i];
  }
  esize = simnpu__ir_dtype_size (dtype);

  switch (dt) {
    case ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT:
      n_typed = t->n_float_data;
      break;
    case ONNX__TENSOR_PROTO__DATA_TYPE__DOUBLE:
      n_typed = t->n_double_data;
      break;
    case ONNX__TENSOR_PROTO__DATA_TYPE__INT64:
      n_typed = t->n_int64_data;
      break;
    default:
      n_typed = t->n_int32_data;
      break;
  }
  if (t->has_raw_data && t->raw_data.len > 0) {
    if (t->raw_data.len != (size_t) n * onnx_raw_size (dt))
      return simnpu__set_error (error, SIMNPU_EFORMAT,
          "%s: raw_data has %zu bytes, expected %" G_GINT64_FORMAT
          " (%" G_GINT64_FORMAT " elements of %s)", what, t->raw_data.len,
          (gint64) (n * onnx_raw_size (dt)), (gint64) n,
          simnpu__onnx_dtype_name (dt));
  } else if (n_typed != (size_t) n) {
    return simnpu__set_error (error, SIMNPU_EFORMAT,
        "%s: has %zu values, expected %" G_GINT64_FORMAT " (the product of "
        "its dims)", what, n_typed, (gint64) n);
  }

  data = g_malloc0 (MAX (1, (size_t) n * esize));
  for (i = 0; i < (size_t) n; i++) {
    if (t->has_raw_data && t->raw_data.len > 0) {
      const uint8_t *src = t->raw_data.data + i * onnx_raw_size (dt);
      if (dt == ONNX__TENSOR_PROTO__DATA_TYPE__DOUBLE) {
        double d;
        float f;
        memcpy (&d, src, sizeof d);
        f = (float) d;
        memcpy (data + i * esize, &f, esize);
      } else if (dt == ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT16) {
        uint16_t h;
        float f;
        memcpy (&h, src, sizeof h);
        f = onnx_half_to_float (h);
        memcpy (data + i * esize, &f, esize);
      } else if (dt == ONNX__TENSOR_PROTO__DATA_TYPE__BOOL) {
        data[i] = src[0] != 0;
      } else {
        memcpy (data + i * esize, src, esize);
      }
      continue;
    }
    switch (dt) {
      case ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT:
        ((float *) data)[i] = t->float_data[i];
        break;
      case ONNX__TENSOR_PROTO__DATA_TYPE__DOUBLE:
        ((float *) data)[i] = (float) t->double_data[i];
        break;
      case ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT16:
        ((float *) data)[i] = onnx_half_to_float ((uint16_t)
            t->int32_data[i]);
        break;
      case ONNX__TENSOR_PROTO__DATA_TYPE__INT64:
        ((int64_t *) data)[i] = t->int64_data[i];
        break;
      case ONNX__TENSOR_PROTO__DATA_TYPE__INT32:
        ((int32_t *) data)[i] = t->int32_data[i];
        break;
      case ONNX__TENSOR_PROTO__DATA_TYPE__UINT8:
        data[i] = (uint8_t) t->int32_data[i];
        break;
      case ONNX__TENSOR_PROTO__DATA_TYPE__INT8:
        ((int8_t *) data)[i] = (int8_t) t->int32_data[i];
        break;
      default:
        data[i] = t->int32_data[i] != 0;
        break;
    }
  }
  *dtype_out = dtype;
  *rank_out = t->n_dims;
  *data_out = data;
  return 0;
}

int
simnpu__onnx_read_tensor (const void *data, size_t size, char **name_out,
    simnpu__ir_dtype * dtype_out, unsigned *rank_out, int64_t * dims_out,
    void **data_out, simnpu_error * error)
{
  Onnx__TensorProto *t;
  int ret;

  t = onnx__tensor_proto__unpack (NULL, size, data);
  if (t == NULL)
    return simnpu__set_error (error, SIMNPU_EFORMAT,
        "not a valid ONNX TensorProto (%zu bytes; protobuf parse failed)",
        size);
  ret = simnpu__onnx_tensor_from_proto (t, t->name && t->name[0] ? t->name :
      "tensor", dtype_out, rank_out, dims_out, data_out, error);
  if (ret == 0 && name_out != NULL)
    *name_out = g_strdup (t->name ? t->name : "");
  onnx__tensor_proto__free_unpacked (t, NULL);
  return ret;
}

/* ------------------------------------------------------------------ */
/* Context helpers */

static int
simnpu__onnx_err (onnx_ctx * c, int code, const char *fmt, ...)
G_GNUC_PRINTF (3, 4);

     static int simnpu__onnx_err (onnx_ctx * c, int code, const char *fmt, ...)
{
  va_list ap;
  gchar *msg;
  int ret;

  va_start (ap, fmt);
  msg = g_strdup_vprintf (fmt, ap);
  va_end (ap);
  ret = simnpu__set_error (c->error, code, "node '%s' (%s): %s",
      c->node_name, c->node->op_type, msg);
  g_free (msg);
  return ret;
}

static int
simnpu__onnx_lookup (onnx_ctx * c, const char *name)
{
  gpointer v = g_hash_table_lookup (c->names, name);
  return v != NULL ? GPOINTER_TO_INT (v) - 1 : SIMNPU_IR_NONE;
}

static void
simnpu__onnx_bind (onnx_ctx * c, const char *name, int t)
{
  g_hash_table_replace (c->names, g_strdup (name), GINT_TO_POINTER (t + 1));
}

static simnpu__ir_tensor *
T (onnx_ctx * c, int t)
{
  return &c->g->tensors[t];
}

/* optional input k: SIMNPU_IR_NONE when absent or empty */
static int
simnpu__onnx_opt_in (onnx_ctx * c, unsigned k, int *t)
{
  const char *name;

  *t = SIMNPU_IR_NONE;
  if (k >= c->node->n_input)
    return 0;
  name = c->node->input[k];
  if (name == NULL || name[0] == '\0')
    return 0;
  *t = simnpu__onnx_lookup (c, name);
  if (*t == SIMNPU_IR_NONE)
    return simnpu__onnx_err (c, SIMNPU_EFORMAT,
        "input %u '%s' is not defined (no initializer, graph input or "
        "earlier node output of that name)", k, name);
  return 0;
}

static int
simnpu__onnx_in (onnx_ctx * c, unsigned k, int *t)
{
  int ret = simnpu__onnx_opt_in (c, k, t);
  if (ret < 0)
    return ret;
  if (*t == SIMNPU_IR_NONE)
    return simnpu__onnx_err (c, SIMNPU_EFORMAT, "input %u is missing", k);
  return 0;
}

/* a new intermediate tensor */
static int
simnpu__onnx_tmp (onnx_ctx * c)
{
  gchar *name = g_strdup_printf ("%s/tmp%u", c->node_name, c->tmp++);
  int t = simnpu__ir_add_tensor (c->g, name, SIMNPU_IR_F32, 0, NULL);
  g_free (name);
  return t;
}

/* the tensor of ONNX output k (bound to its name) */
static int
simnpu__onnx_out (onnx_ctx * c, unsigned k, int *t)
{
  const char *name;

  if (k >= c->node->n_output || c->node->output[k] == NULL
      || c->node->output[k][0] == '\0')
    return simnpu__onnx_err (c, SIMNPU_EFORMAT, "output %u is missing", k);
  name = c->node->output[k];
  if (simnpu__onnx_lookup (c, name) != SIMNPU_IR_NONE)
    return simnpu__onnx_err (c, SIMNPU_EFORMAT,
        "output '%s' is already defined (each value has one producer)", name);
  *t = simnpu__ir_add_tensor (c->g, name, SIMNPU_IR_F32, 0, NULL);
  simnpu__onnx_bind (c, name, *t);
  return 0;
}

/* Only the first n outputs are produced. */
static int
simnpu__onnx_check_outputs (onnx_ctx * c, unsigned n)
{
  unsigned i;

  for (i = n; i < c->node->n_output; i++)
    if (c->node->output[i] != NULL && c->node->output[i][0] != '\0')
      return simnpu__onnx_err (c, SIMNPU_EUNSUPPORTED,
          "output %u ('%s') is not supported (only the first %u)", i,
          c->node->output[i], n);
  return 0;
}

static int
simnpu__onnx_add_const (onnx_ctx * c, simnpu__ir_dtype dtype, unsigned rank,
    const int64_t * dims, const void *src)
{
  simnpu__ir_tensor tmp = { 0 };
  gchar *name;
  size_t bytes;
  int t;

  tmp.dtype = dtype;
  tmp.rank = rank;
  if (rank > 0)
    memcpy (tmp.dims, dims, rank * sizeof dims[0]);
  bytes = simnpu__ir_tensor_bytes (&tmp);
  name = g_strdup_printf ("%s/const%u", c->node_name, c->tmp++);
  t = simnpu__ir_add_const (c->g, name, dtype, rank, dims,
      src != NULL ? g_memdup2 (src, MAX (bytes, 1)) : g_malloc0 (MAX (bytes,
              1)));
  g_free (name);
  return t;
}

static int
simnpu__onnx_scalar_f32 (onnx_ctx * c, float v)
{
  return simnpu__onnx_add_const (c, SIMNPU_IR_F32, 0, NULL, &v);
}

static void
simnpu__onnx_attrs_init (simnpu__ir_attrs * a)
{
  memset (a, 0, sizeof *a);
  a->kernel[0] = a->kernel[1] = 1;
  a->stride[0] = a->stride[1] = 1;
  a->dilation[0] = a->dilation[1] = 1;
  a->groups = 1;
  a->act_max = INFINITY;
  a->act_min = -INFINITY;
}

/* Replaces the last node, whose inputs are all constants, by constants:
 * runs it alone in a graph of its own. */
static int
onnx_fold_last (onnx_ctx * c)
{
  simnpu__ir_graph *g = c->g;
  simnpu__ir_node *n = &g->nodes[g->n_nodes - 1];
  simnpu__ir_graph *tg;
  simnpu__ir_exec *x = NULL;
  int ins[SIMNPU_IR_MAX_INPUTS], outs[SIMNPU_IR_MAX_OUTPUTS];
  unsigned i;
  int ret = 0;

  tg = simnpu__ir_graph_new ("fold");
  for (i = 0; i < n->n_inputs; i++) {
    simnpu__ir_tensor *t;
    if (n->inputs[i] == SIMNPU_IR_NONE) {
      ins[i] = SIMNPU_IR_NONE;
      continue;
    }
    t = &g->tensors[n->inputs[i]];
    ins[i] = simnpu__ir_add_const (tg, t->name, t->dtype, t->rank, t->dims,
        g_memdup2 (t->data, MAX (simnpu__ir_tensor_bytes (t), 1)));
  }
  for (i = 0; i < n->n_outputs; i++)
    outs[i] = simnpu__ir_add_tensor (tg, g->tensors[n->outputs[i]].name,
        SIMNPU_IR_F32, 0, NULL);
  simnpu__ir_add_node (tg, n->op, n->name, n->n_inputs, ins, n->n_outputs,
      outs)->attrs = n->attrs;
  tg->n_outputs = n->n_outputs;
  memcpy (tg->outputs, outs, n->n_outputs * sizeof outs[0]);
  ret = simnpu__ir_infer_shapes (tg, c->error);
  if (ret == 0) {
    x = simnpu__ir_exec_new (tg, c->error);
    if (x == NULL)
      ret = c->error->code < 0 ? c->error->code : SIMNPU_EINTERNAL;
  }
  if (ret == 0)
    ret = simnpu__ir_exec_run (x, 0, tg->n_nodes, c->error);
  if (ret == 0) {
    for (i = 0; i < n->n_outputs; i++) {
      simnpu__ir_tensor *dst = &g->tensors[n->outputs[i]];
      const simnpu__ir_tensor *src = &tg->tensors[outs[i]];
      size_t bytes = simnpu__ir_tensor_bytes (src);
      dst->dtype = src->dtype;
      dst->rank = src->rank;
      memcpy (dst->dims, src->dims, sizeof dst->dims);
      g_free (dst->data);
      dst->data = g_memdup2 (simnpu__ir_exec_data (x, outs[i]), MAX (bytes, 1));
      dst->is_const = true;
      dst->producer = SIMNPU_IR_NONE;
    }
    g_free (n->name);
    n->name = NULL;
    g->n_nodes--;
  }
  if (x != NULL)
    simnpu__ir_exec_free (x);
  simnpu__ir_graph_free (tg);
  return ret;
}

/* Adds an IR node, infers its outputs at once and folds it when all its
 * inputs are constants. */
static int
simnpu__onnx_emit (onnx_ctx * c, simnpu__ir_op op, const int *ins,
    unsigned n_in, const int *outs, unsigned n_out,
    const simnpu__ir_attrs * attrs)
{
  const simnpu__ir_op_info *info = simnpu__ir_op_get (op);
  simnpu__ir_node *n;
  bool all_const = true;
  unsigned i;
  int ret;

  if (info == NULL || info->infer == NULL)
    return simnpu__onnx_err (c, SIMNPU_EINTERNAL,
        "IR op %d has no shape inference", (int) op);
  if (n_in < info->min_inputs || n_in > info->max_inputs)
    return simnpu__onnx_err (c, SIMNPU_EFORMAT,
        "%u inputs for IR op %s (expected %u to %u)", n_in,
        simnpu__ir_op_name (op), info->min_inputs, info->max_inputs);
  if (c->g->n_nodes >= SIMNPU_IR_MAX_NODES)
    return simnpu__onnx_err (c, SIMNPU_ENOMEM, "more than %d IR nodes",
        SIMNPU_IR_MAX_NODES);
  n = simnpu__ir_add_node (c->g, op, c->node_name, n_in, ins, n_out, outs);
  if (n == NULL)
    return simnpu__onnx_err (c, SIMNPU_ENOMEM, "cannot add an IR node");
  if (attrs != NULL)
    n->attrs = *attrs;
  ret = info->infer (c->g, n, c->error);
  if (ret < 0)
    return ret;
  for (i = 0; i < n_in; i++)
    if (ins[i] != SIMNPU_IR_NONE && !c->g->tensors[ins[i]].is_const)
      all_const = false;
  for (i = 0; i < n_out; i++) {
    c->g->tensors[outs[i]].producer = c->g->n_nodes - 1;
    if (simnpu__ir_tensor_elements (&c->g->tensors[outs[i]]) >
        ONNX_MAX_FOLD_ELEMENTS)
      all_const = false;
  }
  if (all_const)
    return onnx_fold_last (c);
  return 0;
}

/* one input, one new output */
/* two inputs, the given output */
static int
simnpu__onnx_emit2 (onnx_ctx * c, simnpu__ir_op op, int a, int b, int out)
{
  int pair[2] = { a, b };
  return simnpu__onnx_emit (c, op, pair, 2, &out, 1, NULL);
}

static int
simnpu__onnx_emit1 (onnx_ctx * c, simnpu__ir_op op, int in, int *out,
    const simnpu__ir_attrs * attrs)
{
  *out = simnpu__onnx_tmp (c);
  return simnpu__onnx_emit (c, op, &in, 1, out, 1, attrs);
}

static int
simnpu__onnx_emit_transpose (onnx_ctx * c, int in, int out,
    const int64_t * perm, unsigned rank)
{
  simnpu__ir_attrs a;
  simnpu__onnx_attrs_init (&a);
  a.n_ints = rank;
  memcpy (a.ints, perm, rank * sizeof perm[0]);
  return simnpu__onnx_emit (c, SIMNPU_IR_TRANSPOSE, &in, 1, &out, 1, &a);
}

static int
simnpu__onnx_emit_reshape (onnx_ctx * c, int in, int out, const int64_t * dims,
    unsigned rank)
{
  simnpu__ir_attrs a;
  simnpu__onnx_attrs_init (&a);
  if (rank > SIMNPU_IR_MAX_INTS)
    return simnpu__onnx_err (c, SIMNPU_EUNSUPPORTED, "rank %u above %d", rank,
        SIMNPU_IR_MAX_INTS);
  a.n_ints = rank;
  if (rank > 0)
    memcpy (a.ints, dims, rank * sizeof dims[0]);
  return simnpu__onnx_emit (c, SIMNPU_IR_RESHAPE, &in, 1, &out, 1, &a);
}

/* channels (axis 1) to last and back, for the NHWC ops */
static void
onnx_perm_to_last (unsigned rank, int64_t * perm, int64_t * back)
{
  unsigned i;

  perm[0] = 0;
  for (i = 1; i + 1 < rank; i++)
    perm[i] = i + 1;
  perm[rank - 1] = 1;
  back[0] = 0;
  back[1] = rank - 1;
  for (i = 2; i < rank; i++)
    back[i] = i - 1;
}

static int
onnx_to_nhwc (onnx_ctx * c, int x, int *y)
{
  int64_t perm[SIMNPU_IR_MAX_RANK], back[SIMNPU_IR_MAX_RANK];
  unsigned rank = T (c, x)->rank;

  if (rank < 2)
    return simnpu__onnx_err (c, SIMNPU_ESHAPE,
        "input of rank %u (expected >= 2)", rank);
  if (rank == 2) {
    *y = x;
    return 0;
  }
  onnx_perm_to_last (rank, perm, back);
  *y = simnpu__onnx_tmp (c);
  return simnpu__onnx_emit_transpose (c, x, *y, perm, rank);
}

/* Runs op on NHWC of x (NCHW) and writes NCHW into out. */
static int
simnpu__onnx_emit_nhwc_to (onnx_ctx * c, simnpu__ir_op op, int *ins,
    unsigned n_in, const simnpu__ir_attrs * a, int out)
{
  int64_t perm[SIMNPU_IR_MAX_RANK], back[SIMNPU_IR_MAX_RANK];
  unsigned rank = T (c, ins[0])->rank;
  int xt = SIMNPU_IR_NONE, yt, ret;

  if ((ret = onnx_to_nhwc (c, ins[0], &xt)) < 0)
    return ret;
  ins[0] = xt;
  if (rank == 2)
    return simnpu__onnx_emit (c, op, ins, n_in, &out, 1, a);
  yt = simnpu__onnx_tmp (c);
  if ((ret = simnpu__onnx_emit (c, op, ins, n_in, &yt, 1, a)) < 0)
    return ret;
  onnx_perm_to_last (rank, perm, back);
  return simnpu__onnx_emit_transpose (c, yt, out, back, rank);
}

/* ... into output 0 */
static int
simnpu__onnx_emit_nhwc (onnx_ctx * c, simnpu__ir_op op, int *ins, unsigned n_in,
    const simnpu__ir_attrs * a)
{
  int out, ret;

  if ((ret = simnpu__onnx_out (c, 0, &out)) < 0)
    return ret;
  return simnpu__onnx_emit_nhwc_to (c, op, ins, n_in, a, out);
}

/* 1-D spatial ops run as 2-D ones of height 1: [N, C, L] as [N, C, 1, L] */
static int
onnx_unsqueeze_h (onnx_ctx * c, int x, int *y)
{
  int64_t d[ONNX_CONV_RANK];
  const simnpu__ir_tensor *t = T (c, x);

  d[0] = t->dims[0];
  d[1] = t->dims[1];
  d[2] = 1;
  d[3] = t->dims[2];
  *y = simnpu__onnx_tmp (c);
  return simnpu__onnx_emit_reshape (c, x, *y, d, ONNX_CONV_RANK);
}

/* runs a 2-D op on a 1-D (rank 3) or 2-D input, into output 0 */
static int
onnx_emit_spatial (onnx_ctx * c, simnpu__ir_op op, int *ins, unsigned n_in,
    const simnpu__ir_attrs * a, bool one_d)
{
  int64_t d[ONNX_CONV_RANK - 1];
  int y, out, ret;

  if (!one_d)
    return simnpu__onnx_emit_nhwc (c, op, ins, n_in, a);
  y = simnpu__onnx_tmp (c);
  if ((ret = simnpu__onnx_emit_nhwc_to (c, op, ins, n_in, a, y)) < 0
      || (ret = simnpu__onnx_out (c, 0, &out)) < 0)
    return ret;
  d[0] = T (c, y)->dims[0];
  d[1] = T (c, y)->dims[1];
  d[2] = T (c, y)->dims[3];
  return simnpu__onnx_emit_reshape (c, y, out, d, ONNX_CONV_RANK - 1);
}

/* ------------------------------------------------------------------ */
/* Attributes and constant inputs */

static const Onnx__AttributeProto *
simnpu__onnx_attr (onnx_ctx * c, const char *name)
{
  size_t i;
  for (i = 0; i < c->node->n_attribute; i++)
    if (c->node->attribute[i]->name != NULL
        && strcmp (c->node->attribute[i]->name, name) == 0)
      return c->node->attribute[i];
  return NULL;
}

static int64_t
simnpu__onnx_attr_int (onnx_ctx * c, const char *name, int64_t def)
{
  const Onnx__AttributeProto *a = simnpu__onnx_attr (c, name);
  return a != NULL && a->has_i ? a->i : def;
}

static float
simnpu__onnx_attr_float (onnx_ctx * c, const char *name, float def)
{
  const Onnx__AttributeProto *a = simnpu__onnx_attr (c, name);
  return a != NULL && a->has_f ? a->f : def;
}

/* the string attribute, or def ("" when absent and def is NULL) */
static const char *
simnpu__onnx_attr_str (onnx_ctx * c, const char *name, const char *def,
    char *buf, size_t size)
{
  const Onnx__AttributeProto *a = simnpu__onnx_attr (c, name);
  size_t len;

  if (a == NULL || !a->has_s)
    return def ? def : "";
  len = MIN (a->s.len, size - 1);
  if (len > 0)
    memcpy (buf, a->s.data, len);
  buf[len] = '\0';
  return buf;
}

#define ONNX_STR_SIZE 64

/* ints attribute: *n = -1 when absent */
static int
simnpu__onnx_attr_ints (onnx_ctx * c, const char *name, int64_t * out, int max,
    int *n)
{
  const Onnx__AttributeProto *a = simnpu__onnx_attr (c, name);

  *n = -1;
  if (a == NULL)
    return 0;
  if (a->n_ints > (size_t) max)
    return simnpu__onnx_err (c, SIMNPU_EUNSUPPORTED,
        "attribute '%s' has %zu values (at most %d supported)", name,
        a->n_ints, max);
  if (a->n_ints > 0)
    memcpy (out, a->ints, a->n_ints * sizeof out[0]);
  *n = a->n_ints;
  return 0;
}

/* the values of a constant integer input (I64 or I32) */
static int
simnpu__onnx_const_ints (onnx_ctx * c, int t, const char *what, int64_t * out,
    int max, int *n)
{
  const simnpu__ir_tensor *x = T (c, t);
  int64_t count, i;

  if (!x->is_const)
    return simnpu__onnx_err (c, SIMNPU_EUNSUPPORTED,
        "%s input must be constant", what);
  if (x->dtype != SIMNPU_IR_I64 && x->dtype != SIMNPU_IR_I32)
    return simnpu__onnx_err (c, SIMNPU_EFORMAT,
        "%s input is %s (expected int64)", what,
        simnpu__ir_dtype_name (x->dtype));
  count = simnpu__ir_tensor_elements (x);
  if (count > max)
    return simnpu__onnx_err (c, SIMNPU_EUNSUPPORTED,
        "%s input has %" G_GINT64_FORMAT " values (at most %d)", what,
        count, max);
  for (i = 0; i < count; i++)
    out[i] = x->dtype == SIMNPU_IR_I64 ? ((const int64_t *) x->data)[i] :
        ((const int32_t *) x->data)[i];
  *n = (int) count;
  return 0;
}

/* a constant scalar input as float */
static int
simnpu__onnx_const_float (onnx_ctx * c, int t, const char *what, float *v)
{
  const simnpu__ir_tensor *x = T (c, t);

  if (!x->is_const)
    return simnpu__onnx_err (c, SIMNPU_EUNSUPPORTED,
        "%s input must be constant", what);
  if (simnpu__ir_tensor_elements (x) != 1)
    return simnpu__onnx_err (c, SIMNPU_ESHAPE, "%s input must be a scalar",
        what);
  switch (x->dtype) {
    case SIMNPU_IR_F32:
      *v = *(const float *) x->data;
      break;
    case SIMNPU_IR_I64:
      *v = (float) *(const int64_t *) x->data;
      break;
    case SIMNPU_IR_I32:
      *v = (float) *(const int32_t *) x->data;
      break;
    case SIMNPU_IR_U8:
    case SIMNPU_IR_BOOL:
      *v = *(const uint8_t *) x->data;
      break;
    case SIMNPU_IR_I8:
      *v = *(const int8_t *) x->data;
      break;
    default:
      return simnpu__onnx_err (c, SIMNPU_EFORMAT,
          "%s input has an unknown dtype", what);
  }
  return 0;
}

static int
simnpu__onnx_norm_axis (onnx_ctx * c, int64_t axis, unsigned rank,
    int32_t * out)
{
  if (axis < -(int64_t) rank || axis >= (int64_t) rank)
    return simnpu__onnx_err (c, SIMNPU_EFORMAT,
        "axis %" G_GINT64_FORMAT " out of range for rank %u", axis, rank);
  *out = axis < 0 ? (int32_t) (axis + rank) : (int32_t) axis;
  return 0;
}

/* ------------------------------------------------------------------ */
/* Op import functions */

typedef struct _onnx_op onnx_op;
typedef int (*onnx_import_fn) (onnx_ctx * c, const onnx_op * op);
struct _onnx_op
{
  const char *name;
  onnx_import_fn fn;
  simnpu__ir_op ir;
  /* Oldest opset whose definition of the op this import reads (0:
   * ONNX_MIN_OPSET). A model of an older opset is accepted when all its
   * ops are unchanged since then: ONNX tests ops at the opset that last
   * changed them. */
  int min_opset;
};

static int
imp_simple (onnx_ctx * c, const onnx_op * op, unsigned n_in,
    const simnpu__ir_attrs * a)
{
  int ins[SIMNPU_IR_MAX_INPUTS], out, ret;
  unsigned i;

  if (c->node->n_input != n_in)
    return simnpu__onnx_err (c, SIMNPU_EFORMAT, "%zu inputs (expected %u)",
        c->node->n_input, n_in);
  for (i = 0; i < n_in; i++)
    if ((ret = simnpu__onnx_in (c, i, &ins[i])) < 0)
      return ret;
  if ((ret = simnpu__onnx_check_outputs (c, 1)) < 0
      || (ret = simnpu__onnx_out (c, 0, &out)) < 0)
    return ret;
  return simnpu__onnx_emit (c, op->ir, ins, n_in, &out, 1, a);
}

static int
simnpu__onnx_imp_unary (onnx_ctx * c, const onnx_op * op)
{
  simnpu__ir_attrs a;
  simnpu__onnx_attrs_init (&a);
  switch (op->ir) {
    case SIMNPU_IR_LEAKY_RELU:
      a.f[0] = simnpu__onnx_attr_float (c, "alpha", ONNX_DEFAULT_LEAKY_ALPHA);
      break;
    case SIMNPU_IR_ELU:
      a.f[0] = simnpu__onnx_attr_float (c, "alpha", 1.0f);
      break;
    case SIMNPU_IR_SELU:
      a.f[0] = simnpu__onnx_attr_float (c, "alpha", ONNX_DEFAULT_SELU_ALPHA);
      a.f[1] = simnpu__onnx_attr_float (c, "gamma", ONNX_DEFAULT_SELU_GAMMA);
      break;
    case SIMNPU_IR_HARD_SIGMOID:
      a.f[0] =
          simnpu__onnx_attr_float (c, "alpha", ONNX_DEFAULT_HARD_SIGMOID_ALPHA);
      a.f[1] =
          simnpu__onnx_attr_float (c, "beta", ONNX_DEFAULT_HARD_SIGMOID_BETA);
      break;
    default:
      break;
  }
  return imp_simple (c, op, 1, &a);
}

static int
simnpu__onnx_imp_dropout (onnx_ctx * c, const onnx_op * op)
{
  int x, ratio, train, out, ret;
  float v;

  if ((ret = simnpu__onnx_in (c, 0, &x)) < 0
      || (ret = simnpu__onnx_opt_in (c, 1, &ratio)) < 0
      || (ret = simnpu__onnx_opt_in (c, 2, &train)) < 0)
    return ret;
  if (train != SIMNPU_IR_NONE) {
    if ((ret = simnpu__onnx_const_float (c, train, "training_mode", &v)) < 0)
      return ret;
    if (v != 0) {
      float r = 0.5f;
      /* training with ratio 0 drops nothing either */
      if (ratio == SIMNPU_IR_NONE
          || simnpu__onnx_const_float (c, ratio, "ratio", &r) < 0 || r != 0.0f)
        return simnpu__onnx_err (c, SIMNPU_EUNSUPPORTED,
            "training mode is not supported");
    }
  }
  if ((ret = simnpu__onnx_check_outputs (c, 2)) < 0
      || (ret = simnpu__onnx_out (c, 0, &out)) < 0)
    return ret;
  if ((ret =
          simnpu__onnx_emit (c, SIMNPU_IR_IDENTITY, &x, 1, &out, 1, NULL)) < 0)
    return ret;
  if (c->node->n_output > 1 && c->node->output[1] != NULL
      && c->node->output[1][0] != '\0') {
    /* outside training nothing is dropped: the mask is all true */
    int64_t n = simnpu__ir_tensor_elements (T (c, x));
    int64_t dims[SIMNPU_IR_MAX_RANK];
    unsigned rank = T (c, x)->rank;
    uint8_t *ones;
    int k, mask;
    if (n > ONNX_MAX_FOLD_ELEMENTS)
      return simnpu__onnx_err (c, SIMNPU_ENOMEM, "mask above %" G_GINT64_FORMAT
          " elements", (gint64) ONNX_MAX_FOLD_ELEMENTS);
    ones = g_malloc (MAX (n, 1));
    memset (ones, 1, MAX (n, 1));
    memcpy (dims, T (c, x)->dims, sizeof dims);
    k = simnpu__onnx_add_const (c, SIMNPU_IR_BOOL, rank, dims, ones);
    g_free (ones);
    if ((ret = simnpu__onnx_out (c, 1, &mask)) < 0)
      return ret;
    return simnpu__onnx_emit (c, SIMNPU_IR_IDENTITY, &k, 1, &mask, 1, NULL);
  }
  return 0;
}

static int
simnpu__onnx_imp_binary (onnx_ctx * c, const onnx_op * op)
{
  return imp_simple (c, op, 2, NULL);
}

static int
simnpu__onnx_imp_pow (onnx_ctx * c, const onnx_op * op)
{
  int ins[2], out, ret;
  simnpu__ir_attrs a;

  if ((ret = simnpu__onnx_in (c, 0, &ins[0])) < 0
      || (ret = simnpu__onnx_in (c, 1, &ins[1])) < 0
      || (ret = simnpu__onnx_out (c, 0, &out)) < 0)
    return ret;
  if (T (c, ins[1])->dtype != T (c, ins[0])->dtype) {
    int e;
    simnpu__onnx_attrs_init (&a);
    a.dtype = T (c, ins[0])->dtype;
    if ((ret = simnpu__onnx_emit1 (c, SIMNPU_IR_CAST, ins[1], &e, &a)) < 0)
      return ret;
    ins[1] = e;
  }
  return simnpu__onnx_emit (c, SIMNPU_IR_POW, ins, 2, &out, 1, NULL);
}

static int
simnpu__onnx_imp_mod (onnx_ctx * c, const onnx_op * op)
{
  int x, y, q, t, ty, out, ret;

  if (simnpu__onnx_attr_int (c, "fmod", 0) == 0)
    return imp_simple (c, op, 2, NULL);
  /* fmod: x - trunc (x / y) * y, the sign of the dividend; integer
   * division truncates already */
  if ((ret = simnpu__onnx_in (c, 0, &x)) < 0
      || (ret = simnpu__onnx_in (c, 1, &y)) < 0
      || (ret = simnpu__onnx_out (c, 0, &out)) < 0)
    return ret;
  q = simnpu__onnx_tmp (c);
  ty = simnpu__onnx_tmp (c);
  if ((ret = simnpu__onnx_emit2 (c, SIMNPU_IR_DIV, x, y, q)) < 0)
    return ret;
  t = q;
  if (T (c, x)->dtype == SIMNPU_IR_F32) {
    int ab, fl, sg;
    t = simnpu__onnx_tmp (c);
    if ((ret = simnpu__onnx_emit1 (c, SIMNPU_IR_ABS, q, &ab, NULL)) < 0
        || (ret = simnpu__onnx_emit1 (c, SIMNPU_IR_FLOOR, ab, &fl, NULL)) < 0
        || (ret = simnpu__onnx_emit1 (c, SIMNPU_IR_SIGN, q, &sg, NULL)) < 0
        || (ret = simnpu__onnx_emit2 (c, SIMNPU_IR_MUL, sg, fl, t)) < 0)
      return ret;
  }
  if ((ret = simnpu__onnx_emit2 (c, SIMNPU_IR_MUL, t, y, ty)) < 0)
    return ret;
  return simnpu__onnx_emit2 (c, SIMNPU_IR_SUB, x, ty, out);
}

static int
simnpu__onnx_imp_where (onnx_ctx * c, const onnx_op * op)
{
  return imp_simple (c, op, 3, NULL);
}

/* Max, Min: n-ary IR ops; Sum, Mean: chains of adds */
static int
simnpu__onnx_imp_variadic (onnx_ctx * c, const onnx_op * op)
{
  int ins[SIMNPU_IR_MAX_INPUTS], out, ret, acc;
  unsigned i, n = c->node->n_input;

  if (n == 0 || n > SIMNPU_IR_MAX_INPUTS)
    return simnpu__onnx_err (c, SIMNPU_EUNSUPPORTED,
        "%u inputs (expected 1 to %d)", n, SIMNPU_IR_MAX_INPUTS);
  for (i = 0; i < n; i++)
    if ((ret = simnpu__onnx_in (c, i, &ins[i])) < 0)
      return ret;
  if ((ret = simnpu__onnx_out (c, 0, &out)) < 0)
    return ret;
  if (op->ir != SIMNPU_IR_ADD || n == 1) {
    if (n == 1)
      return simnpu__onnx_emit (c, SIMNPU_IR_IDENTITY, ins, 1, &out, 1, NULL);
    return simnpu__onnx_emit (c, op->ir, ins, n, &out, 1, NULL);
  }
  acc = ins[0];
  for (i = 1; i < n; i++) {
    int pair[2] = { acc, ins[i] };
    bool last = i + 1 == n && strcmp (op->name, "Sum") == 0;
    int o = last ? out : simnpu__onnx_tmp (c);
    if ((ret = simnpu__onnx_emit (c, SIMNPU_IR_ADD, pair, 2, &o, 1, NULL)) < 0)
      return ret;
    acc = o;
  }
  if (strcmp (op->name, "Mean") == 0) {
    int pair[2] = { acc, simnpu__onnx_scalar_f32 (c, (float) n) };
    return simnpu__onnx_emit (c, SIMNPU_IR_DIV, pair, 2, &out, 1, NULL);
  }
  return 0;
}

static int
simnpu__onnx_imp_clip (onnx_ctx * c, const onnx_op * op)
{
  int x, lo, hi, out, ret;
  simnpu__ir_attrs a;

  simnpu__onnx_attrs_init (&a);
  a.f[0] = -INFINITY;
  a.f[1] = INFINITY;
  if ((ret = simnpu__onnx_in (c, 0, &x)) < 0
      || (ret = simnpu__onnx_opt_in (c, 1, &lo)) < 0
      || (ret = simnpu__onnx_opt_in (c, 2, &hi)) < 0)
    return ret;
  if (c->opset < 11) {
    /* attributes before opset 11 */
    a.f[0] = simnpu__onnx_attr_float (c, "min", -FLT_MAX);
    a.f[1] = simnpu__onnx_attr_float (c, "max", FLT_MAX);
    lo = hi = SIMNPU_IR_NONE;
  }
  if (lo != SIMNPU_IR_NONE
      && (ret = simnpu__onnx_const_float (c, lo, "min", &a.f[0])) < 0)
    return ret;
  if (hi != SIMNPU_IR_NONE
      && (ret = simnpu__onnx_const_float (c, hi, "max", &a.f[1])) < 0)
    return ret;
  if ((ret = simnpu__onnx_out (c, 0, &out)) < 0)
    return ret;
  return simnpu__onnx_emit (c, SIMNPU_IR_CLIP, &x, 1, &out, 1, &a);
}

static bool
simnpu__onnx_dtype_from_attr (int64_t to, simnpu__ir_dtype * d)
{
  /* doubles are computed in float, as the importer reads them */
  return to == ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT
      || to == ONNX__TENSOR_PROTO__DATA_TYPE__DOUBLE
      || to == ONNX__TENSOR_PROTO__DATA_TYPE__INT64
      || to == ONNX__TENSOR_PROTO__DATA_TYPE__INT32
      || to == ONNX__TENSOR_PROTO__DATA_TYPE__UINT8
      || to == ONNX__TENSOR_PROTO__DATA_TYPE__INT8
      || to == ONNX__TENSOR_PROTO__DATA_TYPE__BOOL ?
      simnpu__onnx_dtype_to_ir ((int32_t) to, d) : false;
}

static int
simnpu__onnx_imp_cast (onnx_ctx * c, const onnx_op * op)
{
  simnpu__ir_attrs a;
  int x, out, ret;

  simnpu__onnx_attrs_init (&a);
  if ((ret = simnpu__onnx_in (c, 0, &x)) < 0)
    return ret;
  if (strcmp (op->name, "CastLike") == 0) {
    int like;
    if ((ret = simnpu__onnx_in (c, 1, &like)) < 0)
      return ret;
    a.dtype = T (c, like)->dtype;
  } else {
    int64_t to = simnpu__onnx_attr_int (c, "to", 0);
    if (!simnpu__onnx_dtype_from_attr (to, &a.dtype))
      return simnpu__onnx_err (c, SIMNPU_EUNSUPPORTED,
          "cast to %s is not supported",
          simnpu__onnx_dtype_name ((int32_t) to));
  }
  if ((ret = simnpu__onnx_out (c, 0, &out)) < 0)
    return ret;
  return simnpu__onnx_emit (c, SIMNPU_IR_CAST, &x, 1, &out, 1, &a);
}

static int
simnpu__onnx_imp_softmax (onnx_ctx * c, const onnx_op * op)
{
  simnpu__ir_attrs a;
  int x, out, ret;
  unsigned rank, i;
  int32_t axis = 0;

  if ((ret = simnpu__onnx_in (c, 0, &x)) < 0)
    return ret;
  rank = T (c, x)->rank;
  if (rank == 0)
    return simnpu__onnx_err (c, SIMNPU_ESHAPE, "scalar input");
  if ((ret = simnpu__onnx_norm_axis (c, simnpu__onnx_attr_int (c, "axis",
                  c->opset < 13 ? 1 : -1), rank, &axis)) < 0)
    return ret;
  if ((ret = simnpu__onnx_out (c, 0, &out)) < 0)
    return ret;
  simnpu__onnx_attrs_init (&a);
  if (c->opset < 13 && axis != (int32_t) rank - 1) {
    /* before opset 13 the input is coerced to 2-D at axis */
    int64_t d2[2] = { 1, 1 };
    int r, s;
    for (i = 0; i < rank; i++)
      d2[i < (unsigned) axis ? 0 : 1] *= T (c, x)->dims[i];
    r = simnpu__onnx_tmp (c);
    if ((ret = simnpu__onnx_emit_reshape (c, x, r, d2, 2)) < 0)
      return ret;
    a.axis = 1;
    if ((ret = simnpu__onnx_emit1 (c, op->ir, r, &s, &a)) < 0)
      return ret;
    return simnpu__onnx_emit_reshape (c, s, out, T (c, x)->dims, rank);
  }
  a.axis = axis;
  return simnpu__onnx_emit (c, op->ir, &x, 1, &out, 1, &a);
}

static int
simnpu__onnx_imp_reduce (onnx_ctx * c, const onnx_op * op)
{
  simnpu__ir_attrs a;
  int64_t axes[SIMNPU_IR_MAX_INTS];
  int x, out, ret, n = -1, i;
  unsigned rank;
  bool sum_input = c->opset >= 13 && strcmp (op->name, "ReduceSum") == 0;
  const char *name = op->name;
  int cur, t;

  if ((ret = simnpu__onnx_in (c, 0, &x)) < 0)
    return ret;
  rank = T (c, x)->rank;
  simnpu__onnx_attrs_init (&a);
  a.keepdims = simnpu__onnx_attr_int (c, "keepdims", 1) != 0;
  if (sum_input) {
    int ta;
    if ((ret = simnpu__onnx_opt_in (c, 1, &ta)) < 0)
      return ret;
    if (ta != SIMNPU_IR_NONE
        && (ret =
            simnpu__onnx_const_ints (c, ta, "axes", axes, SIMNPU_IR_MAX_INTS,
                &n)) < 0)
      return ret;
  } else if ((ret = simnpu__onnx_attr_ints (c, "axes", axes, SIMNPU_IR_MAX_INTS,
              &n)) < 0) {
    return ret;
  }
  if (n <= 0) {
    if (sum_input && simnpu__onnx_attr_int (c, "noop_with_empty_axes", 0) != 0) {
      if ((ret = simnpu__onnx_out (c, 0, &out)) < 0)
        return ret;
      return simnpu__onnx_emit (c, SIMNPU_IR_IDENTITY, &x, 1, &out, 1, NULL);
    }
    n = 0;
  }
  for (i = 0; i < n; i++) {
    int32_t ax = 0;
    if ((ret = simnpu__onnx_norm_axis (c, axes[i], rank, &ax)) < 0)
      return ret;
    a.ints[i] = ax;
  }
  a.n_ints = n;
  if (n == 0 && rank > 0) {
    /* all axes, explicitly */
    for (i = 0; i < (int) rank; i++)
      a.ints[i] = i;
    a.n_ints = rank;
  }
  if ((ret = simnpu__onnx_check_outputs (c, 1)) < 0
      || (ret = simnpu__onnx_out (c, 0, &out)) < 0)
    return ret;

  cur = x;
  if (strcmp (name, "ReduceL1") == 0) {
    if ((ret = simnpu__onnx_emit1 (c, SIMNPU_IR_ABS, cur, &t, NULL)) < 0)
      return ret;
    cur = t;
  } else if (strcmp (name, "ReduceL2") == 0
      || strcmp (name, "ReduceSumSquare") == 0) {
    int pair[2] = { cur, cur };
    t = simnpu__onnx_tmp (c);
    if ((ret = simnpu__onnx_emit (c, SIMNPU_IR_MUL, pair, 2, &t, 1, NULL)) < 0)
      return ret;
    cur = t;
  } else if (strcmp (name, "ReduceLogSumExp") == 0) {
    if ((ret = simnpu__onnx_emit1 (c, SIMNPU_IR_EXP, cur, &t, NULL)) < 0)
      return ret;
    cur = t;
  }
  if (strcmp (name, "ReduceL2") == 0 || strcmp (name, "ReduceLogSum") == 0
      || strcmp (name, "ReduceLogSumExp") == 0) {
    if ((ret = simnpu__onnx_emit1 (c, op->ir, cur, &t, &a)) < 0)
      return ret;
    return simnpu__onnx_emit (c, strcmp (name,
            "ReduceL2") == 0 ? SIMNPU_IR_SQRT : SIMNPU_IR_LOG, &t, 1, &out, 1,
        NULL);
  }
  return simnpu__onnx_emit (c, op->ir, &cur, 1, &out, 1, &a);
}

static int
simnpu__onnx_imp_arg (onnx_ctx * c, const onnx_op * op)
{
  simnpu__ir_attrs a;
  int x, out, ret;

  bool last = simnpu__onnx_attr_int (c, "select_last_index", 0) != 0;
  simnpu__ir_attrs s;
  unsigned r, rank;
  int rev, idx;
  int64_t dim;

  if ((ret = simnpu__onnx_in (c, 0, &x)) < 0)
    return ret;
  rank = T (c, x)->rank;
  simnpu__onnx_attrs_init (&a);
  if ((ret =
          simnpu__onnx_norm_axis (c, simnpu__onnx_attr_int (c, "axis", 0), rank,
              &a.axis)) < 0)
    return ret;
  a.keepdims = simnpu__onnx_attr_int (c, "keepdims", 1) != 0;
  if ((ret = simnpu__onnx_out (c, 0, &out)) < 0)
    return ret;
  if (!last)
    return simnpu__onnx_emit (c, op->ir, &x, 1, &out, 1, &a);
  /* the last extremum is the first of the reversed axis:
   * dim - 1 - arg (reverse (x)) */
  dim = T (c, x)->dims[a.axis];
  simnpu__onnx_attrs_init (&s);
  for (r = 0; r < rank; r++) {
    bool ax = r == (unsigned) a.axis;
    s.ints[r] = ax ? T (c, x)->dims[r] - 1 : 0;
    s.ints[rank + r] = ax ? -1 : T (c, x)->dims[r];
    s.steps[r] = ax ? -1 : 1;
  }
  s.n_ints = 2 * rank;
  if ((ret = simnpu__onnx_emit1 (c, SIMNPU_IR_SLICE, x, &rev, &s)) < 0
      || (ret = simnpu__onnx_emit1 (c, op->ir, rev, &idx, &a)) < 0)
    return ret;
  {
    int64_t top = dim - 1;
    int pair[2] =
        { simnpu__onnx_add_const (c, SIMNPU_IR_I64, 0, NULL, &top), idx };
    return simnpu__onnx_emit (c, SIMNPU_IR_SUB, pair, 2, &out, 1, NULL);
  }
}

/* kernel, strides, dilations, pads (with auto_pad resolved) of conv and
 * pools on a rank-4 NCHW input; a 1-D op's (one_d: the input has been
 * given a height of 1) attributes go to the width */
static int
onnx_spatial_attrs (onnx_ctx * c, int x, const int64_t * kernel, bool one_d,
    simnpu__ir_attrs * a)
{
  int64_t v[2 * ONNX_SPATIAL_DIMS];
  char buf[ONNX_STR_SIZE];
  const char *auto_pad;
  int nsp = one_d ? 1 : ONNX_SPATIAL_DIMS, off = ONNX_SPATIAL_DIMS - nsp;
  int n, ret, i;

  if (T (c, x)->rank != ONNX_CONV_RANK)
    return simnpu__onnx_err (c, SIMNPU_EUNSUPPORTED,
        "input of rank %u: only 1-D and 2-D (rank-3 and rank-4 NCHW) are "
        "supported", T (c, x)->rank);
  for (i = 0; i < nsp; i++) {
    if (kernel[i] < 1 || kernel[i] > G_MAXINT32)
      return simnpu__onnx_err (c, SIMNPU_EFORMAT,
          "kernel size %" G_GINT64_FORMAT, kernel[i]);
    a->kernel[off + i] = (int32_t) kernel[i];
  }
  if ((ret = simnpu__onnx_attr_ints (c, "strides", v, nsp, &n)) < 0)
    return ret;
  for (i = 0; i < n; i++) {
    if (v[i] < 1 || v[i] > G_MAXINT32)
      return simnpu__onnx_err (c, SIMNPU_EFORMAT, "stride %" G_GINT64_FORMAT,
          v[i]);
    a->stride[off + i] = (int32_t) v[i];
  }
  if ((ret = simnpu__onnx_attr_ints (c, "dilations", v, nsp, &n)) < 0)
    return ret;
  for (i = 0; i < n; i++) {
    if (v[i] < 1 || v[i] > G_MAXINT32)
      return simnpu__onnx_err (c, SIMNPU_EFORMAT, "dilation %" G_GINT64_FORMAT,
          v[i]);
    a->dilation[off + i] = (int32_t) v[i];
  }
  auto_pad = simnpu__onnx_attr_str (c, "auto_pad", "NOTSET", buf, sizeof buf);
  if (strcmp (auto_pad, "NOTSET") == 0) {
    if ((ret = simnpu__onnx_attr_ints (c, "pads", v, 2 * nsp, &n)) < 0)
      return ret;
    if (n > 0 && n != 2 * nsp)
      return simnpu__onnx_err (c, SIMNPU_EFORMAT, "%d pads (expected %d)", n,
          2 * nsp);
    for (i = 0; i < n; i++) {
      if (v[i] < 0 || v[i] > G_MAXINT32)
        return simnpu__onnx_err (c, SIMNPU_EFORMAT, "pad %" G_GINT64_FORMAT,
            v[i]);
      /* ONNX: begins then ends (h, w), as the IR's top, left, bottom,
       * right */
      a->pads[(i / nsp) * ONNX_SPATIAL_DIMS + off + i % nsp] = (int32_t) v[i];
    }
  } else if (strcmp (auto_pad, "SAME_UPPER") == 0
      || strcmp (auto_pad, "SAME_LOWER") == 0) {
    bool lower = strcmp (auto_pad, "SAME_LOWER") == 0;
    for (i = off; i < ONNX_SPATIAL_DIMS; i++) {
      int64_t in = T (c, x)->dims[2 + i];
      int64_t out = (in + a->stride[i] - 1) / a->stride[i];
      int64_t k = (int64_t) (a->kernel[i] - 1) * a->dilation[i] + 1;
      int64_t total = MAX (0, (out - 1) * a->stride[i] + k - in);
      int64_t small = total / 2;
      a->pads[i] = (int32_t) (lower ? total - small : small);
      a->pads[i + 2] = (int32_t) (lower ? small : total - small);
    }
  } else if (strcmp (auto_pad, "VALID") != 0) {
    return simnpu__onnx_err (c, SIMNPU_EFORMAT, "auto_pad '%s' is not one of "
        "NOTSET, SAME_UPPER, SAME_LOWER, VALID", auto_pad);
  }
  return 0;
}

static int
simnpu__onnx_imp_conv (onnx_ctx * c, const onnx_op * op)
{
  static const int64_t oihw_to_ohwi[] = { 0, 2, 3, 1 };
  simnpu__ir_attrs a;
  int ins[3], wt, ret;
  int64_t k[2];
  bool one_d;

  if ((ret = simnpu__onnx_in (c, 0, &ins[0])) < 0
      || (ret = simnpu__onnx_in (c, 1, &ins[1])) < 0
      || (ret = simnpu__onnx_opt_in (c, 2, &ins[2])) < 0)
    return ret;
  one_d = T (c, ins[1])->rank == ONNX_CONV_RANK - 1
      && T (c, ins[0])->rank == ONNX_CONV_RANK - 1;
  if (T (c, ins[1])->rank != ONNX_CONV_RANK && !one_d)
    return simnpu__onnx_err (c, SIMNPU_EUNSUPPORTED,
        "weights of rank %u: only 1-D and 2-D convolutions are supported",
        T (c, ins[1])->rank);
  if (one_d && ((ret = onnx_unsqueeze_h (c, ins[0], &ins[0])) < 0
          || (ret = onnx_unsqueeze_h (c, ins[1], &ins[1])) < 0))
    return ret;
  simnpu__onnx_attrs_init (&a);
  k[0] = T (c, ins[1])->dims[one_d ? 3 : 2];
  k[1] = T (c, ins[1])->dims[3];
  if ((ret = onnx_spatial_attrs (c, ins[0], k, one_d, &a)) < 0)
    return ret;
  a.groups = (int32_t) simnpu__onnx_attr_int (c, "group", 1);
  if (a.groups < 1)
    return simnpu__onnx_err (c, SIMNPU_EFORMAT, "group %d", a.groups);
  wt = simnpu__onnx_tmp (c);
  if ((ret = simnpu__onnx_emit_transpose (c, ins[1], wt, oihw_to_ohwi, 4)) < 0)
    return ret;
  ins[1] = wt;
  return onnx_emit_spatial (c, SIMNPU_IR_CONV2D, ins,
      ins[2] == SIMNPU_IR_NONE ? 2 : 3, &a, one_d);
}

/* ConvTranspose as a convolution: the input with stride - 1 zeros between
 * its pixels, padded by (k - 1) * dilation less the pads, convolved at
 * stride 1 with the kernel flipped and its in/out channels swapped */
static int
simnpu__onnx_imp_conv_transpose (onnx_ctx * c, const onnx_op * op)
{
  int64_t v[2 * ONNX_SPATIAL_DIMS], k[ONNX_SPATIAL_DIMS];
  int64_t s[ONNX_SPATIAL_DIMS] = { 1, 1 }, d[ONNX_SPATIAL_DIMS] = { 1, 1 };
  int64_t pb[ONNX_SPATIAL_DIMS] = { 0, 0 }, pe[ONNX_SPATIAL_DIMS] = { 0, 0 };
  int64_t opad[ONNX_SPATIAL_DIMS] = { 0, 0 }, in[ONNX_SPATIAL_DIMS];
  int64_t xd[ONNX_CONV_RANK], wd[ONNX_CONV_RANK], dims[2 * ONNX_CONV_RANK];
  char buf[ONNX_STR_SIZE];
  const char *auto_pad;
  simnpu__ir_attrs a;
  int ins[3], x, w, ret, n, i, nsp, off, os_n;
  int64_t os[ONNX_SPATIAL_DIMS], g;
  bool one_d;

  if ((ret = simnpu__onnx_in (c, 0, &ins[0])) < 0
      || (ret = simnpu__onnx_in (c, 1, &ins[1])) < 0
      || (ret = simnpu__onnx_opt_in (c, 2, &ins[2])) < 0)
    return ret;
  one_d = T (c, ins[0])->rank == ONNX_CONV_RANK - 1
      && T (c, ins[1])->rank == ONNX_CONV_RANK - 1;
  if (!one_d && (T (c, ins[0])->rank != ONNX_CONV_RANK
          || T (c, ins[1])->rank != ONNX_CONV_RANK))
    return simnpu__onnx_err (c, SIMNPU_EUNSUPPORTED,
        "input of rank %u: only 1-D and 2-D transposed convolutions are "
        "supported", T (c, ins[0])->rank);
  x = ins[0];
  w = ins[1];
  if (one_d && ((ret = onnx_unsqueeze_h (c, x, &x)) < 0
          || (ret = onnx_unsqueeze_h (c, w, &w)) < 0))
    return ret;
  nsp = one_d ? 1 : ONNX_SPATIAL_DIMS;
  off = ONNX_SPATIAL_DIMS - nsp;
  memcpy (xd, T (c, x)->dims, sizeof xd);
  memcpy (wd, T (c, w)->dims, sizeof wd);
  g = simnpu__onnx_attr_int (c, "group", 1);
  if (g < 1 || xd[1] != wd[0] || wd[0] % g != 0)
    return simnpu__onnx_err (c, SIMNPU_ESHAPE,
        "weights [%" G_GINT64_FORMAT ", ...] " "for %" G_GINT64_FORMAT
        " input channels in %" G_GINT64_FORMAT " groups", wd[0], xd[1], g);
  for (i = 0; i < ONNX_SPATIAL_DIMS; i++) {
    k[i] = wd[2 + i];
    in[i] = xd[2 + i];
  }
  if ((ret = simnpu__onnx_attr_ints (c, "strides", v, nsp, &n)) < 0)
    return ret;
  for (i = 0; i < n; i++)
    s[off + i] = v[i];
  if ((ret = simnpu__onnx_attr_ints (c, "dilations", v, nsp, &n)) < 0)
    return ret;
  for (i = 0; i < n; i++)
    d[off + i] = v[i];
  if ((ret = simnpu__onnx_attr_ints (c, "output_padding", v, nsp, &n)) < 0)
    return ret;
  for (i = 0; i < n; i++)
    opad[off + i] = v[i];
  for (i = 0; i < ONNX_SPATIAL_DIMS; i++)
    if (s[i] < 1 || s[i] > G_MAXINT32 || d[i] < 1 || d[i] > G_MAXINT32
        || opad[i] < 0 || opad[i] >= MAX (s[i], d[i]))
      return simnpu__onnx_err (c, SIMNPU_EFORMAT, "strides, dilations or "
          "output_padding out of range");
  if ((ret =
          simnpu__onnx_attr_ints (c, "output_shape", v, 2 * ONNX_SPATIAL_DIMS,
              &os_n)) < 0)
    return ret;
  if (os_n >= nsp)
    for (i = 0; i < nsp; i++)
      os[off + i] = v[os_n - nsp + i];
  auto_pad = simnpu__onnx_attr_str (c, "auto_pad", "NOTSET", buf, sizeof buf);
  if (os_n >= nsp || strcmp (auto_pad, "SAME_UPPER") == 0
      || strcmp (auto_pad, "SAME_LOWER") == 0) {
    bool upper = strcmp (auto_pad, "SAME_UPPER") == 0;
    for (i = off; i < ONNX_SPATIAL_DIMS; i++) {
      int64_t out = os_n >= nsp ? os[i] : in[i] * s[i];
      int64_t total = s[i] * (in[i] - 1) + opad[i] + (k[i] - 1) * d[i] + 1
          - out;
      /* floor division, as ONNX's reference: a negative total (an output
       * larger than the stride gives) pads the end */
      int64_t half = total >= 0 ? total / 2 : -((1 - total) / 2);
      pb[i] = upper ? half : total - half;
      pe[i] = upper ? total - half : half;
    }
  } else if (strcmp (auto_pad, "NOTSET") == 0) {
    if ((ret = simnpu__onnx_attr_ints (c, "pads", v, 2 * nsp, &n)) < 0)
      return ret;
    if (n > 0 && n != 2 * nsp)
      return simnpu__onnx_err (c, SIMNPU_EFORMAT, "%d pads (expected %d)", n,
          2 * nsp);
    for (i = 0; i < n; i++)
      (i < nsp ? pb : pe)[off + i % nsp] = v[i];
  } else if (strcmp (auto_pad, "VALID") != 0) {
    return simnpu__onnx_err (c, SIMNPU_EFORMAT, "auto_pad '%s'", auto_pad);
  }
  for (i = 0; i < ONNX_SPATIAL_DIMS; i++)
    if (pb[i] < -G_MAXINT32 || pe[i] < -G_MAXINT32 || pb[i] > G_MAXINT32
        || pe[i] > G_MAXINT32 || k[i] > G_MAXINT32
        || in[i] * s[i] > SIMNPU_IR_MAX_ELEMENTS)
      return simnpu__onnx_err (c, SIMNPU_EFORMAT, "pads or sizes out of range");

  /* zeros between the pixels: [N, C, H, 1, W, 1] padded to
   * [N, C, H, sh, W, sw], the trailing zeros cut by the padding below */
  if (s[0] > 1 || s[1] > 1) {
    int64_t r6[6] = { xd[0], xd[1], in[0], 1, in[1], 1 };
    int64_t r4[ONNX_CONV_RANK] = { xd[0], xd[1], in[0] * s[0],
      in[1] * s[1]
    };
    int t6 = simnpu__onnx_tmp (c), z = simnpu__onnx_tmp (c), t4 =
        simnpu__onnx_tmp (c);
    simnpu__onnx_attrs_init (&a);
    memset (a.ints, 0, sizeof a.ints);
    a.ints[6 + 3] = s[0] - 1;
    a.ints[6 + 5] = s[1] - 1;
    a.n_ints = 12;
    if ((ret = simnpu__onnx_emit_reshape (c, x, t6, r6, 6)) < 0
        || (ret = simnpu__onnx_emit (c, SIMNPU_IR_PAD, &t6, 1, &z, 1, &a)) < 0
        || (ret = simnpu__onnx_emit_reshape (c, z, t4, r4, ONNX_CONV_RANK)) < 0)
      return ret;
    x = t4;
  }
  simnpu__onnx_attrs_init (&a);
  memset (dims, 0, sizeof dims);
  for (i = 0; i < ONNX_SPATIAL_DIMS; i++) {
    a.ints[2 + i] = (k[i] - 1) * d[i] - pb[i];
    a.ints[ONNX_CONV_RANK + 2 + i] = (k[i] - 1) * d[i] - pe[i] + opad[i]
        - (s[i] - 1);
  }
  a.n_ints = 2 * ONNX_CONV_RANK;
  {
    int p = simnpu__onnx_tmp (c);
    if ((ret = simnpu__onnx_emit (c, SIMNPU_IR_PAD, &x, 1, &p, 1, &a)) < 0)
      return ret;
    x = p;
  }
  /* weights [C, M/g, kh, kw] flipped, as [g, C/g, M/g, kh, kw] ->
   * [g, M/g, kh, kw, C/g] -> OHWI [M, kh, kw, C/g] */
  {
    static const int64_t perm[] = { 0, 2, 3, 4, 1 };
    int64_t w5[5] = { g, wd[0] / g, wd[1], k[0], k[1] };
    int64_t ohwi[ONNX_CONV_RANK] = { g * wd[1], k[0], k[1], wd[0] / g };
    int fl = simnpu__onnx_tmp (c), r5 = simnpu__onnx_tmp (c), t5 =
        simnpu__onnx_tmp (c);
    int wo = simnpu__onnx_tmp (c);
    simnpu__ir_attrs sl;
    unsigned r;
    simnpu__onnx_attrs_init (&sl);
    for (r = 0; r < ONNX_CONV_RANK; r++) {
      bool sp = r >= 2;
      sl.ints[r] = sp ? wd[r] - 1 : 0;
      sl.ints[ONNX_CONV_RANK + r] = sp ? -1 : wd[r];
      sl.steps[r] = sp ? -1 : 1;
    }
    sl.n_ints = 2 * ONNX_CONV_RANK;
    if ((ret = simnpu__onnx_emit (c, SIMNPU_IR_SLICE, &w, 1, &fl, 1, &sl)) < 0
        || (ret = simnpu__onnx_emit_reshape (c, fl, r5, w5, 5)) < 0
        || (ret = simnpu__onnx_emit_transpose (c, r5, t5, perm, 5)) < 0
        || (ret =
            simnpu__onnx_emit_reshape (c, t5, wo, ohwi, ONNX_CONV_RANK)) < 0)
      return ret;
    w = wo;
  }
  simnpu__onnx_attrs_init (&a);
  a.kernel[0] = (int32_t) k[0];
  a.kernel[1] = (int32_t) k[1];
  a.dilation[0] = (int32_t) d[0];
  a.dilation[1] = (int32_t) d[1];
  a.groups = (int32_t) g;
  ins[0] = x;
  ins[1] = w;
  return onnx_emit_spatial (c, SIMNPU_IR_CONV2D, ins,
      ins[2] == SIMNPU_IR_NONE ? 2 : 3, &a, one_d);
}

static int
simnpu__onnx_imp_pool (onnx_ctx * c, const onnx_op * op)
{
  simnpu__ir_attrs a;
  int64_t k[2];
  int x, n, ret;
  bool one_d;

  if ((ret = simnpu__onnx_in (c, 0, &x)) < 0
      || (ret = simnpu__onnx_check_outputs (c, 1)) < 0)
    return ret;
  one_d = T (c, x)->rank == ONNX_CONV_RANK - 1;
  if (T (c, x)->rank != ONNX_CONV_RANK && !one_d)
    return simnpu__onnx_err (c, SIMNPU_EUNSUPPORTED,
        "input of rank %u: only 1-D and 2-D pooling are supported",
        T (c, x)->rank);
  if ((ret = simnpu__onnx_attr_ints (c, "kernel_shape", k, 2, &n)) < 0)
    return ret;
  if (n != (one_d ? 1 : 2))
    return simnpu__onnx_err (c, SIMNPU_EFORMAT, "kernel_shape has %d values "
        "(expected %d)", n, one_d ? 1 : 2);
  if (one_d && (ret = onnx_unsqueeze_h (c, x, &x)) < 0)
    return ret;
  simnpu__onnx_attrs_init (&a);
  if ((ret = onnx_spatial_attrs (c, x, k, one_d, &a)) < 0)
    return ret;
  a.ceil_mode = simnpu__onnx_attr_int (c, "ceil_mode", 0) != 0;
  a.count_include_pad = simnpu__onnx_attr_int (c, "count_include_pad", 0) != 0;
  if (simnpu__onnx_attr_int (c, "storage_order", 0) != 0)
    return simnpu__onnx_err (c, SIMNPU_EUNSUPPORTED, "storage_order=1");
  return onnx_emit_spatial (c, op->ir, &x, 1, &a, one_d);
}

static int
simnpu__onnx_imp_global_pool (onnx_ctx * c, const onnx_op * op)
{
  simnpu__ir_attrs a;
  int x, ret, out;
  unsigned i, rank;

  if ((ret = simnpu__onnx_in (c, 0, &x)) < 0)
    return ret;
  rank = T (c, x)->rank;
  simnpu__onnx_attrs_init (&a);
  if (rank == ONNX_CONV_RANK) {
    a.kernel[0] = (int32_t) T (c, x)->dims[2];
    a.kernel[1] = (int32_t) T (c, x)->dims[3];
    return simnpu__onnx_emit_nhwc (c, op->ir, &x, 1, &a);
  }
  if (rank < 3)
    return simnpu__onnx_err (c, SIMNPU_ESHAPE,
        "input of rank %u (expected >= 3)", rank);
  for (i = 2; i < rank; i++)
    a.ints[a.n_ints++] = i;
  a.keepdims = true;
  if ((ret = simnpu__onnx_out (c, 0, &out)) < 0)
    return ret;
  return simnpu__onnx_emit (c,
      op->ir ==
      SIMNPU_IR_MAXPOOL ? SIMNPU_IR_REDUCE_MAX : SIMNPU_IR_REDUCE_MEAN, &x, 1,
      &out, 1, &a);
}

static int
simnpu__onnx_imp_batchnorm (onnx_ctx * c, const onnx_op * op)
{
  simnpu__ir_attrs a;
  int ins[5], ret;
  unsigned i;

  if (c->node->n_input != 5)
    return simnpu__onnx_err (c, SIMNPU_EFORMAT, "%zu inputs (expected 5)",
        c->node->n_input);
  for (i = 0; i < 5; i++)
    if ((ret = simnpu__onnx_in (c, i, &ins[i])) < 0)
      return ret;
  if ((ret = simnpu__onnx_check_outputs (c, 1)) < 0)
    return ret;
  if (simnpu__onnx_attr_int (c, "training_mode", 0) != 0)
    return simnpu__onnx_err (c, SIMNPU_EUNSUPPORTED, "training mode");
  simnpu__onnx_attrs_init (&a);
  a.f[0] = simnpu__onnx_attr_float (c, "epsilon", ONNX_DEFAULT_BN_EPSILON);
  return simnpu__onnx_emit_nhwc (c, SIMNPU_IR_BATCHNORM, ins, 5, &a);
}

static int
simnpu__onnx_imp_depth_space (onnx_ctx * c, const onnx_op * op)
{
  simnpu__ir_attrs a;
  char buf[ONNX_STR_SIZE];
  const char *mode;
  int x, ret;

  if ((ret = simnpu__onnx_in (c, 0, &x)) < 0)
    return ret;
  if (T (c, x)->rank != ONNX_CONV_RANK)
    return simnpu__onnx_err (c, SIMNPU_ESHAPE, "input of rank %u (expected 4)",
        T (c, x)->rank);
  simnpu__onnx_attrs_init (&a);
  a.ints[0] = simnpu__onnx_attr_int (c, "blocksize", 0);
  a.n_ints = 1;
  if (a.ints[0] < 1)
    return simnpu__onnx_err (c, SIMNPU_EFORMAT, "blocksize %" G_GINT64_FORMAT
        " (expected >= 1)", a.ints[0]);
  mode = simnpu__onnx_attr_str (c, "mode", "DCR", buf, sizeof buf);
  if (strcmp (mode, "CRD") == 0)
    a.mode = 1;
  else if (strcmp (mode, "DCR") != 0)
    return simnpu__onnx_err (c, SIMNPU_EFORMAT,
        "mode '%s' (expected DCR or CRD)", mode);
  return simnpu__onnx_emit_nhwc (c, op->ir, &x, 1, &a);
}

/* ONNX Resize's source coordinate of output o along an axis (as its
 * reference: a given scale maps coordinates, its resized length unrounded) */
static double
onnx_resize_coord (int coord, int64_t o, int64_t in, int64_t out, float given)
{
  double scale = given > 0 ? given : (double) out / (double) in;
  double len = given > 0 ? (double) in * given : (double) out;

  switch (coord) {
    case SIMNPU_IR_COORD_PYTORCH_HALF_PIXEL:
      return len > 1 ? ((double) o + 0.5) / scale - 0.5 : 0.0;
    case SIMNPU_IR_COORD_ALIGN_CORNERS:
      return len == 1 ? 0.0 : (double) o *(double) (in - 1) / (len - 1);
    case SIMNPU_IR_COORD_ASYMMETRIC:
      return (double) o / scale;
    case SIMNPU_IR_COORD_TF_HALF_PIXEL_FOR_NN:
      return ((double) o + 0.5) / scale;
    default:
      return ((double) o + 0.5) / scale - 0.5;
  }
}

static double
onnx_cubic_weight (double d, double a)
{
  d = fabs (d);
  if (d <= 1)
    return ((a + 2) * d - (a + 3)) * d * d + 1;
  if (d < 2)
    return ((a * d - 5 * a) * d + 8 * a) * d - 4 * a;
  return 0;
}

#define ONNX_CUBIC_TAPS 4

/* [in, out]: column o holds the cubic taps of output o (edge-clamped, or
 * dropped and renormalised with exclude_outside) */
static float *
onnx_cubic_matrix (int64_t in, int64_t out, float given, int coord,
    double a, bool exclude)
{
  float *m = g_new0 (float, in * out);
  int64_t o, j;

  for (o = 0; o < out; o++) {
    double x = onnx_resize_coord (coord, o, in, out, given);
    double fl = floor (x), t = x - fl, w[ONNX_CUBIC_TAPS], sum = 0;
    int64_t idx[ONNX_CUBIC_TAPS];
    for (j = 0; j < ONNX_CUBIC_TAPS; j++) {
      idx[j] = (int64_t) fl - 1 + j;
      w[j] = onnx_cubic_weight (t + 1 - j, a);
      if (exclude && (idx[j] < 0 || idx[j] >= in))
        w[j] = 0;
      sum += w[j];
    }
    for (j = 0; j < ONNX_CUBIC_TAPS; j++) {
      int64_t i = CLAMP (idx[j], 0, in - 1);
      m[i * out + o] += (float) (exclude && sum != 0 ? w[j] / sum : w[j]);
    }
  }
  return m;
}

/* cubic resize of NCHW x: x @ Mw, then the same along the height through
 * a transpose of the last two axes */
static int
onnx_resize_cubic (onnx_ctx * c, int x, const simnpu__ir_attrs * ra,
    bool exclude)
{
  static const int64_t swap[] = { 0, 1, 3, 2 };
  int64_t h = T (c, x)->dims[2], w = T (c, x)->dims[3];
  int64_t oh = ra->ints[0], ow = ra->ints[1], d[2];
  int mw, mh, y1, t1, y2, out, ret;
  float *m;

  if (h * oh > ONNX_MAX_FOLD_ELEMENTS || w * ow > ONNX_MAX_FOLD_ELEMENTS)
    return simnpu__onnx_err (c, SIMNPU_ENOMEM, "resize too large for cubic");
  m = onnx_cubic_matrix (w, ow, ra->f[2], ra->coord, ra->f[0], exclude);
  d[0] = w;
  d[1] = ow;
  mw = simnpu__onnx_add_const (c, SIMNPU_IR_F32, 2, d, m);
  g_free (m);
  m = onnx_cubic_matrix (h, oh, ra->f[1], ra->coord, ra->f[0], exclude);
  d[0] = h;
  d[1] = oh;
  mh = simnpu__onnx_add_const (c, SIMNPU_IR_F32, 2, d, m);
  g_free (m);
  y1 = simnpu__onnx_tmp (c);
  t1 = simnpu__onnx_tmp (c);
  y2 = simnpu__onnx_tmp (c);
  if ((ret = simnpu__onnx_emit2 (c, SIMNPU_IR_MATMUL, x, mw, y1)) < 0
      || (ret = simnpu__onnx_emit_transpose (c, y1, t1, swap, 4)) < 0
      || (ret = simnpu__onnx_emit2 (c, SIMNPU_IR_MATMUL, t1, mh, y2)) < 0
      || (ret = simnpu__onnx_out (c, 0, &out)) < 0)
    return ret;
  return simnpu__onnx_emit_transpose (c, y2, out, swap, 4);
}

static int
simnpu__onnx_imp_resize (onnx_ctx * c, const onnx_op * op)
{
  static const char *const coords[] = { "half_pixel", "pytorch_half_pixel",
    "align_corners", "asymmetric", "tf_half_pixel_for_nn"
  };
  static const char *const nearests[] = { "round_prefer_floor",
    "round_prefer_ceil", "floor", "ceil"
  };
  simnpu__ir_attrs a;
  char buf[ONNX_STR_SIZE];
  const char *s;
  int x, scales, sizes, ret, n = 0;
  bool has_sizes, cubic;
  int64_t out_dims[SIMNPU_IR_MAX_RANK];
  unsigned i;
  const simnpu__ir_tensor *xt;

  if ((ret = simnpu__onnx_in (c, 0, &x)) < 0
      || (ret = simnpu__onnx_opt_in (c, 2, &scales)) < 0
      || (ret = simnpu__onnx_opt_in (c, 3, &sizes)) < 0)
    return ret;
  xt = T (c, x);
  if (xt->rank != ONNX_CONV_RANK)
    return simnpu__onnx_err (c, SIMNPU_EUNSUPPORTED,
        "input of rank %u: only rank-4 NCHW is supported", xt->rank);
  simnpu__onnx_attrs_init (&a);
  s = simnpu__onnx_attr_str (c, "mode", "nearest", buf, sizeof buf);
  cubic = strcmp (s, "cubic") == 0;
  if (strcmp (s, "linear") == 0)
    a.mode = SIMNPU_IR_RESIZE_BILINEAR;
  else if (strcmp (s, "nearest") != 0 && !cubic)
    return simnpu__onnx_err (c, SIMNPU_EUNSUPPORTED,
        "mode '%s' is not supported " "(nearest, linear or cubic)", s);
  s = simnpu__onnx_attr_str (c, "coordinate_transformation_mode", "half_pixel",
      buf, sizeof buf);
  for (i = 0; i < G_N_ELEMENTS (coords); i++)
    if (strcmp (s, coords[i]) == 0)
      break;
  if (i == G_N_ELEMENTS (coords))
    return simnpu__onnx_err (c, SIMNPU_EUNSUPPORTED,
        "coordinate_transformation_mode '%s' is not supported", s);
  a.coord = i;
  s = simnpu__onnx_attr_str (c, "nearest_mode", "round_prefer_floor", buf,
      sizeof buf);
  for (i = 0; i < G_N_ELEMENTS (nearests); i++)
    if (strcmp (s, nearests[i]) == 0)
      break;
  if (i == G_N_ELEMENTS (nearests))
    return simnpu__onnx_err (c, SIMNPU_EUNSUPPORTED, "nearest_mode '%s'", s);
  a.nearest = i;
  a.f[0] = simnpu__onnx_attr_float (c, "cubic_coeff_a", ONNX_DEFAULT_CUBIC_A);

  has_sizes = sizes != SIMNPU_IR_NONE
      && simnpu__ir_tensor_elements (T (c, sizes)) > 0;
  if (has_sizes) {
    if ((ret = simnpu__onnx_const_ints (c, sizes, "sizes", out_dims,
                SIMNPU_IR_MAX_RANK, &n)) < 0)
      return ret;
  } else if (scales != SIMNPU_IR_NONE) {
    const simnpu__ir_tensor *st = T (c, scales);
    if (!st->is_const || st->dtype != SIMNPU_IR_F32)
      return simnpu__onnx_err (c, SIMNPU_EUNSUPPORTED,
          "scales input must be constant (float)");
    n = (int) simnpu__ir_tensor_elements (st);
    if (n != (int) xt->rank)
      return simnpu__onnx_err (c, SIMNPU_ESHAPE, "%d scales for rank %u", n,
          xt->rank);
    for (i = 0; i < xt->rank; i++)
      out_dims[i] = (int64_t) floor ((double) xt->dims[i] *
          ((const float *) st->data)[i]);
    /* ONNX maps coordinates with the given scales, not out / in (they
     * differ when in * scale is not whole) */
    a.f[1] = ((const float *) st->data)[2];
    a.f[2] = ((const float *) st->data)[3];
  } else {
    return simnpu__onnx_err (c, SIMNPU_EFORMAT,
        "neither scales nor sizes given");
  }
  if (n != (int) xt->rank)
    return simnpu__onnx_err (c, SIMNPU_ESHAPE, "%d sizes for rank %u", n,
        xt->rank);
  if (out_dims[0] != xt->dims[0] || out_dims[1] != xt->dims[1])
    return simnpu__onnx_err (c, SIMNPU_EUNSUPPORTED,
        "resizing the batch or channel axis is not supported");
  for (i = 2; i < 4; i++)
    if (out_dims[i] < 1 || out_dims[i] > SIMNPU_IR_MAX_ELEMENTS)
      return simnpu__onnx_err (c, SIMNPU_ESHAPE,
          "output size %" G_GINT64_FORMAT, out_dims[i]);
  a.ints[0] = out_dims[2];
  a.ints[1] = out_dims[3];
  a.n_ints = 2;
  if (cubic)
    return onnx_resize_cubic (c, x, &a,
        simnpu__onnx_attr_int (c, "exclude_outside", 0) != 0);
  return simnpu__onnx_emit_nhwc (c, SIMNPU_IR_RESIZE, &x, 1, &a);
}

static int
simnpu__onnx_imp_reshape (onnx_ctx * c, const onnx_op * op)
{
  int64_t shape[SIMNPU_IR_MAX_RANK];
  int x, st, out, ret, n, i, infer = -1;
  int64_t known = 1, total;
  const simnpu__ir_tensor *xt;
  bool allowzero = simnpu__onnx_attr_int (c, "allowzero", 0) != 0;

  if ((ret = simnpu__onnx_in (c, 0, &x)) < 0
      || (ret = simnpu__onnx_in (c, 1, &st)) < 0)
    return ret;
  if ((ret = simnpu__onnx_const_ints (c, st, "shape", shape, SIMNPU_IR_MAX_RANK,
              &n)) < 0)
    return ret;
  xt = T (c, x);
  total = simnpu__ir_tensor_elements (xt);
  for (i = 0; i < n; i++) {
    if (shape[i] == 0 && !allowzero) {
      if (i >= (int) xt->rank)
        return simnpu__onnx_err (c, SIMNPU_ESHAPE,
            "shape[%d] = 0 copies a dimension the input (rank %u) lacks", i,
            xt->rank);
      shape[i] = xt->dims[i];
    }
    if (shape[i] == -1) {
      if (infer >= 0)
        return simnpu__onnx_err (c, SIMNPU_ESHAPE, "more than one -1 in shape");
      infer = i;
      continue;
    }
    if (shape[i] < 0)
      return simnpu__onnx_err (c, SIMNPU_ESHAPE,
          "shape[%d] = %" G_GINT64_FORMAT, i, shape[i]);
    known *= shape[i];
    if (known > SIMNPU_IR_MAX_ELEMENTS)
      return simnpu__onnx_err (c, SIMNPU_ESHAPE, "shape too large");
  }
  if (infer >= 0) {
    if (known == 0 || total % known != 0)
      return simnpu__onnx_err (c, SIMNPU_ESHAPE,
          "cannot infer the -1 of shape: %" G_GINT64_FORMAT " elements into %"
          G_GINT64_FORMAT, total, known);
    shape[infer] = total / known;
  } else if (known != total) {
    return simnpu__onnx_err (c, SIMNPU_ESHAPE, "shape has %" G_GINT64_FORMAT
        " elements, the input %" G_GINT64_FORMAT, known, total);
  }
  if ((ret = simnpu__onnx_out (c, 0, &out)) < 0)
    return ret;
  return simnpu__onnx_emit_reshape (c, x, out, shape, n);
}

static int
simnpu__onnx_imp_flatten (onnx_ctx * c, const onnx_op * op)
{
  int64_t d2[2] = { 1, 1 };
  int x, out, ret;
  int64_t axis;
  unsigned i, rank;

  if ((ret = simnpu__onnx_in (c, 0, &x)) < 0)
    return ret;
  rank = T (c, x)->rank;
  axis = simnpu__onnx_attr_int (c, "axis", 1);
  if (axis < 0)
    axis += rank;
  if (axis < 0 || axis > rank)
    return simnpu__onnx_err (c, SIMNPU_EFORMAT, "axis out of range for rank %u",
        rank);
  for (i = 0; i < rank; i++)
    d2[i < axis ? 0 : 1] *= T (c, x)->dims[i];
  if ((ret = simnpu__onnx_out (c, 0, &out)) < 0)
    return ret;
  return simnpu__onnx_emit_reshape (c, x, out, d2, 2);
}

static int
simnpu__onnx_imp_squeeze (onnx_ctx * c, const onnx_op * op)
{
  int64_t axes[SIMNPU_IR_MAX_RANK], dims[SIMNPU_IR_MAX_RANK];
  bool sel[SIMNPU_IR_MAX_RANK] = { false };
  bool unsq = op->ir != SIMNPU_IR_RESHAPE;
  int x, ta, out, ret, n = -1, i;
  unsigned rank, orank, k = 0, j = 0;
  const simnpu__ir_tensor *xt;

  if ((ret = simnpu__onnx_in (c, 0, &x)) < 0)
    return ret;
  xt = T (c, x);
  rank = xt->rank;
  if (c->opset >= 13) {
    if ((ret = simnpu__onnx_opt_in (c, 1, &ta)) < 0)
      return ret;
    if (ta != SIMNPU_IR_NONE
        && (ret =
            simnpu__onnx_const_ints (c, ta, "axes", axes, SIMNPU_IR_MAX_RANK,
                &n)) < 0)
      return ret;
  } else if ((ret = simnpu__onnx_attr_ints (c, "axes", axes, SIMNPU_IR_MAX_RANK,
              &n)) < 0) {
    return ret;
  }
  if (unsq && n <= 0)
    return simnpu__onnx_err (c, SIMNPU_EFORMAT, "axes missing");
  orank = unsq ? rank + n : rank;
  if (orank > SIMNPU_IR_MAX_RANK)
    return simnpu__onnx_err (c, SIMNPU_EUNSUPPORTED, "output rank above %d",
        SIMNPU_IR_MAX_RANK);
  for (i = 0; i < n; i++) {
    int32_t ax = 0;
    if ((ret = simnpu__onnx_norm_axis (c, axes[i], orank, &ax)) < 0)
      return ret;
    if (sel[ax])
      return simnpu__onnx_err (c, SIMNPU_EFORMAT, "axis %d repeated", ax);
    sel[ax] = true;
  }
  if (unsq) {
    for (k = 0; k < orank; k++)
      dims[k] = sel[k] ? 1 : xt->dims[j++];
  } else {
    for (j = 0; j < rank; j++) {
      if (n > 0 && sel[j] && xt->dims[j] != 1)
        return simnpu__onnx_err (c, SIMNPU_ESHAPE,
            "cannot squeeze axis %u of size %" G_GINT64_FORMAT, j, xt->dims[j]);
      if (n > 0 ? !sel[j] : xt->dims[j] != 1)
        dims[k++] = xt->dims[j];
    }
    orank = k;
  }
  if ((ret = simnpu__onnx_out (c, 0, &out)) < 0)
    return ret;
  return simnpu__onnx_emit_reshape (c, x, out, dims, orank);
}

static int
simnpu__onnx_imp_transpose (onnx_ctx * c, const onnx_op * op)
{
  int64_t perm[SIMNPU_IR_MAX_RANK];
  bool seen[SIMNPU_IR_MAX_RANK] = { false };
  int x, out, ret, n, i;
  unsigned rank;

  if ((ret = simnpu__onnx_in (c, 0, &x)) < 0)
    return ret;
  rank = T (c, x)->rank;
  if ((ret =
          simnpu__onnx_attr_ints (c, "perm", perm, SIMNPU_IR_MAX_RANK, &n)) < 0)
    return ret;
  if (n < 0) {
    for (i = 0; i < (int) rank; i++)
      perm[i] = rank - 1 - i;
    n = rank;
  }
  if (n != (int) rank)
    return simnpu__onnx_err (c, SIMNPU_ESHAPE, "perm has %d values for rank %u",
        n, rank);
  for (i = 0; i < n; i++) {
    if (perm[i] < 0 || perm[i] >= n || seen[perm[i]])
      return simnpu__onnx_err (c, SIMNPU_EFORMAT, "perm is not a permutation");
    seen[perm[i]] = true;
  }
  if ((ret = simnpu__onnx_out (c, 0, &out)) < 0)
    return ret;
  return simnpu__onnx_emit_transpose (c, x, out, perm, rank);
}

static int
simnpu__onnx_imp_concat (onnx_ctx * c, const onnx_op * op)
{
  simnpu__ir_attrs a;
  int ins[SIMNPU_IR_MAX_INPUTS], out, ret;
  unsigned i, n = c->node->n_input;

  if (n == 0 || n > SIMNPU_IR_MAX_INPUTS)
    return simnpu__onnx_err (c, SIMNPU_EUNSUPPORTED,
        "%u inputs (expected 1 to %d)", n, SIMNPU_IR_MAX_INPUTS);
  for (i = 0; i < n; i++)
    if ((ret = simnpu__onnx_in (c, i, &ins[i])) < 0)
      return ret;
  simnpu__onnx_attrs_init (&a);
  if (simnpu__onnx_attr (c, "axis") == NULL)
    return simnpu__onnx_err (c, SIMNPU_EFORMAT, "attribute 'axis' missing");
  if ((ret = simnpu__onnx_norm_axis (c, simnpu__onnx_attr_int (c, "axis", 0),
              T (c, ins[0])->rank, &a.axis)) < 0)
    return ret;
  if ((ret = simnpu__onnx_out (c, 0, &out)) < 0)
    return ret;
  return simnpu__onnx_emit (c, SIMNPU_IR_CONCAT, ins, n, &out, 1, &a);
}

static int
simnpu__onnx_imp_split (onnx_ctx * c, const onnx_op * op)
{
  simnpu__ir_attrs a;
  int64_t split[SIMNPU_IR_MAX_INTS];
  int x, ts, outs[SIMNPU_IR_MAX_OUTPUTS], ret, n = -1;
  unsigned i, n_out = c->node->n_output;
  int64_t dim;

  if ((ret = simnpu__onnx_in (c, 0, &x)) < 0)
    return ret;
  if (n_out == 0 || n_out > SIMNPU_IR_MAX_INTS)
    return simnpu__onnx_err (c, SIMNPU_EUNSUPPORTED,
        "%u outputs (expected 1 to %d)", n_out, SIMNPU_IR_MAX_INTS);
  simnpu__onnx_attrs_init (&a);
  if ((ret = simnpu__onnx_norm_axis (c, simnpu__onnx_attr_int (c, "axis", 0),
              T (c, x)->rank, &a.axis)) < 0)
    return ret;
  dim = T (c, x)->dims[a.axis];
  if (c->opset >= 13) {
    if ((ret = simnpu__onnx_opt_in (c, 1, &ts)) < 0)
      return ret;
    if (ts != SIMNPU_IR_NONE
        && (ret =
            simnpu__onnx_const_ints (c, ts, "split", split, SIMNPU_IR_MAX_INTS,
                &n)) < 0)
      return ret;
  } else if ((ret =
          simnpu__onnx_attr_ints (c, "split", split, SIMNPU_IR_MAX_INTS,
              &n)) < 0) {
    return ret;
  }
  if (n < 0) {
    if (dim % n_out != 0)
      return simnpu__onnx_err (c, SIMNPU_ESHAPE,
          "axis of size %" G_GINT64_FORMAT " does not split evenly into %u",
          dim, n_out);
    for (i = 0; i < n_out; i++)
      split[i] = dim / n_out;
    n = n_out;
  }
  if (n != (int) n_out)
    return simnpu__onnx_err (c, SIMNPU_ESHAPE,
        "split has %d sizes for %u outputs", n, n_out);
  memcpy (a.ints, split, n * sizeof split[0]);
  a.n_ints = n;
  for (i = 0; i < n_out; i++)
    if ((ret = simnpu__onnx_out (c, i, &outs[i])) < 0)
      return ret;
  return simnpu__onnx_emit (c, SIMNPU_IR_SPLIT, &x, 1, outs, n_out, &a);
}

static int
simnpu__onnx_imp_slice (onnx_ctx * c, const onnx_op * op)
{
  int64_t starts[SIMNPU_IR_MAX_RANK], ends[SIMNPU_IR_MAX_RANK];
  int64_t axes[SIMNPU_IR_MAX_RANK], steps[SIMNPU_IR_MAX_RANK];
  bool seen[SIMNPU_IR_MAX_RANK] = { false };
  simnpu__ir_attrs a;
  int x, ts, te, ta, tp, out, ret, n, ne, na = -1, np = -1, i;
  unsigned rank, r;
  const simnpu__ir_tensor *xt;

  if ((ret = simnpu__onnx_in (c, 0, &x)) < 0
      || (ret = simnpu__onnx_in (c, 1, &ts)) < 0
      || (ret = simnpu__onnx_in (c, 2, &te)) < 0
      || (ret = simnpu__onnx_opt_in (c, 3, &ta)) < 0
      || (ret = simnpu__onnx_opt_in (c, 4, &tp)) < 0)
    return ret;
  xt = T (c, x);
  rank = xt->rank;
  if ((ret =
          simnpu__onnx_const_ints (c, ts, "starts", starts, SIMNPU_IR_MAX_RANK,
              &n)) < 0
      || (ret =
          simnpu__onnx_const_ints (c, te, "ends", ends, SIMNPU_IR_MAX_RANK,
              &ne)) < 0)
    return ret;
  if (ta != SIMNPU_IR_NONE
      && (ret =
          simnpu__onnx_const_ints (c, ta, "axes", axes, SIMNPU_IR_MAX_RANK,
              &na)) < 0)
    return ret;
  if (tp != SIMNPU_IR_NONE
      && (ret =
          simnpu__onnx_const_ints (c, tp, "steps", steps, SIMNPU_IR_MAX_RANK,
              &np)) < 0)
    return ret;
  if (ne != n || (na >= 0 && na != n) || (np >= 0 && np != n))
    return simnpu__onnx_err (c, SIMNPU_ESHAPE,
        "starts, ends, axes and steps differ in length");
  simnpu__onnx_attrs_init (&a);
  for (r = 0; r < rank; r++) {
    a.ints[r] = 0;
    a.ints[rank + r] = xt->dims[r];
    a.steps[r] = 1;
  }
  for (i = 0; i < n; i++) {
    int32_t ax = 0;
    int64_t dim, s, e, st = np >= 0 ? steps[i] : 1;
    if ((ret =
            simnpu__onnx_norm_axis (c, na >= 0 ? axes[i] : i, rank, &ax)) < 0)
      return ret;
    if (seen[ax])
      return simnpu__onnx_err (c, SIMNPU_EFORMAT, "axis %d repeated", ax);
    seen[ax] = true;
    if (st == 0)
      return simnpu__onnx_err (c, SIMNPU_EFORMAT, "step 0");
    dim = xt->dims[ax];
    s = starts[i];
    e = ends[i];
    if (s < 0)
      s += dim;
    if (e < 0)
      e += dim;
    if (st > 0) {
      s = CLAMP (s, 0, dim);
      e = CLAMP (e, 0, dim);
    } else {
      s = CLAMP (s, 0, dim - 1);
      e = CLAMP (e, -1, dim - 1);
    }
    a.ints[ax] = s;
    a.ints[rank + ax] = e;
    a.steps[ax] = st;
  }
  a.n_ints = 2 * rank;
  if ((ret = simnpu__onnx_out (c, 0, &out)) < 0)
    return ret;
  return simnpu__onnx_emit (c, SIMNPU_IR_SLICE, &x, 1, &out, 1, &a);
}

static int
simnpu__onnx_imp_pad (onnx_ctx * c, const onnx_op * op)
{
  int64_t pads[2 * SIMNPU_IR_MAX_RANK];
  simnpu__ir_attrs a;
  char buf[ONNX_STR_SIZE];
  const char *mode;
  int x, tp, tv, out, ret, n;
  unsigned rank;

  tp = tv = SIMNPU_IR_NONE;
  if ((ret = simnpu__onnx_in (c, 0, &x)) < 0)
    return ret;
  rank = T (c, x)->rank;
  simnpu__onnx_attrs_init (&a);
  if (c->opset < 11) {
    /* attributes before opset 11 */
    if ((ret = simnpu__onnx_attr_ints (c, "pads", pads, 2 * SIMNPU_IR_MAX_RANK,
                &n)) < 0)
      return ret;
    a.f[0] = simnpu__onnx_attr_float (c, "value", 0.0f);
  } else {
    if ((ret = simnpu__onnx_in (c, 1, &tp)) < 0
        || (ret = simnpu__onnx_opt_in (c, 2, &tv)) < 0)
      return ret;
    if (c->node->n_input > 3)
      return simnpu__onnx_err (c, SIMNPU_EUNSUPPORTED,
          "the axes input (opset 18)");
    if ((ret =
            simnpu__onnx_const_ints (c, tp, "pads", pads,
                2 * SIMNPU_IR_MAX_RANK, &n)) < 0)
      return ret;
  }
  if (n != 2 * (int) rank)
    return simnpu__onnx_err (c, SIMNPU_ESHAPE,
        "%d pads for rank %u (expected %u)", n, rank, 2 * rank);
  memcpy (a.ints, pads, n * sizeof pads[0]);
  a.n_ints = n;
  if (tv != SIMNPU_IR_NONE
      && (ret =
          simnpu__onnx_const_float (c, tv, "constant_value", &a.f[0])) < 0)
    return ret;
  mode = simnpu__onnx_attr_str (c, "mode", "constant", buf, sizeof buf);
  if (strcmp (mode, "reflect") == 0)
    a.mode = SIMNPU_IR_PAD_REFLECT;
  else if (strcmp (mode, "edge") == 0)
    a.mode = SIMNPU_IR_PAD_EDGE;
  else if (strcmp (mode, "constant") != 0)
    return simnpu__onnx_err (c, SIMNPU_EUNSUPPORTED,
        "mode '%s' is not supported", mode);
  if ((ret = simnpu__onnx_out (c, 0, &out)) < 0)
    return ret;
  return simnpu__onnx_emit (c, SIMNPU_IR_PAD, &x, 1, &out, 1, &a);
}

static int
simnpu__onnx_imp_gather (onnx_ctx * c, const onnx_op * op)
{
  simnpu__ir_attrs a;
  int ins[2], out, ret;

  if ((ret = simnpu__onnx_in (c, 0, &ins[0])) < 0
      || (ret = simnpu__onnx_in (c, 1, &ins[1])) < 0)
    return ret;
  simnpu__onnx_attrs_init (&a);
  if ((ret = simnpu__onnx_norm_axis (c, simnpu__onnx_attr_int (c, "axis", 0),
              T (c, ins[0])->rank, &a.axis)) < 0)
    return ret;
  if ((ret = simnpu__onnx_out (c, 0, &out)) < 0)
    return ret;
  return simnpu__onnx_emit (c, SIMNPU_IR_GATHER, ins, 2, &out, 1, &a);
}

static int
simnpu__onnx_imp_tile (onnx_ctx * c, const onnx_op * op)
{
  simnpu__ir_attrs a;
  int x, tr, out, ret, n;

  if ((ret = simnpu__onnx_in (c, 0, &x)) < 0
      || (ret = simnpu__onnx_in (c, 1, &tr)) < 0)
    return ret;
  simnpu__onnx_attrs_init (&a);
  if ((ret =
          simnpu__onnx_const_ints (c, tr, "repeats", a.ints, SIMNPU_IR_MAX_RANK,
              &n)) < 0)
    return ret;
  if (n != (int) T (c, x)->rank)
    return simnpu__onnx_err (c, SIMNPU_ESHAPE, "%d repeats for rank %u", n,
        T (c, x)->rank);
  a.n_ints = n;
  if ((ret = simnpu__onnx_out (c, 0, &out)) < 0)
    return ret;
  return simnpu__onnx_emit (c, SIMNPU_IR_TILE, &x, 1, &out, 1, &a);
}

static int
simnpu__onnx_imp_expand (onnx_ctx * c, const onnx_op * op)
{
  simnpu__ir_attrs a;
  int64_t shape[SIMNPU_IR_MAX_RANK];
  int x, ts, out, ret, n;
  unsigned rank, r;
  const simnpu__ir_tensor *xt;

  if ((ret = simnpu__onnx_in (c, 0, &x)) < 0
      || (ret = simnpu__onnx_in (c, 1, &ts)) < 0)
    return ret;
  if ((ret = simnpu__onnx_const_ints (c, ts, "shape", shape, SIMNPU_IR_MAX_RANK,
              &n)) < 0)
    return ret;
  xt = T (c, x);
  rank = MAX ((unsigned) n, xt->rank);
  simnpu__onnx_attrs_init (&a);
  /* ONNX broadcasts both ways: the output is the broadcast of the two */
  for (r = 0; r < rank; r++) {
    int si = (int) r - (int) (rank - n);
    int xi = (int) r - (int) (rank - xt->rank);
    int64_t sd = si >= 0 ? shape[si] : 1;
    int64_t xd = xi >= 0 ? xt->dims[xi] : 1;
    if (sd != xd && sd != 1 && xd != 1)
      return simnpu__onnx_err (c, SIMNPU_ESHAPE, "cannot broadcast dimension %"
          G_GINT64_FORMAT " to %" G_GINT64_FORMAT, xd, sd);
    if (sd < 0)
      return simnpu__onnx_err (c, SIMNPU_ESHAPE, "negative shape");
    a.ints[r] = sd == 1 ? xd : sd;
  }
  a.n_ints = rank;
  if ((ret = simnpu__onnx_out (c, 0, &out)) < 0)
    return ret;
  return simnpu__onnx_emit (c, SIMNPU_IR_EXPAND, &x, 1, &out, 1, &a);
}

static int
simnpu__onnx_imp_shape (onnx_ctx * c, const onnx_op * op)
{
  int64_t dims[SIMNPU_IR_MAX_RANK];
  int x, out, ret, i, n;
  int64_t start, end, rank;

  if ((ret = simnpu__onnx_in (c, 0, &x)) < 0)
    return ret;
  rank = T (c, x)->rank;
  if (strcmp (op->name, "Size") == 0) {
    int64_t size = simnpu__ir_tensor_elements (T (c, x));
    int k;
    if ((ret = simnpu__onnx_out (c, 0, &out)) < 0)
      return ret;
    k = simnpu__onnx_add_const (c, SIMNPU_IR_I64, 0, NULL, &size);
    return simnpu__onnx_emit (c, SIMNPU_IR_IDENTITY, &k, 1, &out, 1, NULL);
  }
  start = simnpu__onnx_attr_int (c, "start", 0);
  end = simnpu__onnx_attr_int (c, "end", rank);
  if (start < 0)
    start += rank;
  if (end < 0)
    end += rank;
  start = CLAMP (start, 0, rank);
  end = CLAMP (end, 0, rank);
  n = 0;
  for (i = start; i < end; i++)
    dims[n++] = T (c, x)->dims[i];
  if ((ret = simnpu__onnx_out (c, 0, &out)) < 0)
    return ret;
  {
    int64_t len = n;
    int k = simnpu__onnx_add_const (c, SIMNPU_IR_I64, 1, &len, dims);
    return simnpu__onnx_emit (c, SIMNPU_IR_IDENTITY, &k, 1, &out, 1, NULL);
  }
}

static int
simnpu__onnx_imp_range (onnx_ctx * c, const onnx_op * op)
{
  return imp_simple (c, op, 3, NULL);
}

static int
simnpu__onnx_imp_matmul (onnx_ctx * c, const onnx_op * op)
{
  return imp_simple (c, op, 2, NULL);
}

static int
onnx_scale (onnx_ctx * c, int x, float s, int *out)
{
  int pair[2] = { x, simnpu__onnx_scalar_f32 (c, s) };
  *out = simnpu__onnx_tmp (c);
  return simnpu__onnx_emit (c, SIMNPU_IR_MUL, pair, 2, out, 1, NULL);
}

static int
simnpu__onnx_imp_gemm (onnx_ctx * c, const onnx_op * op)
{
  static const int64_t swap[] = { 1, 0 };
  int ab[2], cc, out, ret, y, i;
  float alpha = simnpu__onnx_attr_float (c, "alpha", 1.0f);
  float beta = simnpu__onnx_attr_float (c, "beta", 1.0f);
  bool trans[2];

  trans[0] = simnpu__onnx_attr_int (c, "transA", 0) != 0;
  trans[1] = simnpu__onnx_attr_int (c, "transB", 0) != 0;
  if ((ret = simnpu__onnx_in (c, 0, &ab[0])) < 0
      || (ret = simnpu__onnx_in (c, 1, &ab[1])) < 0
      || (ret = simnpu__onnx_opt_in (c, 2, &cc)) < 0)
    return ret;
  for (i = 0; i < 2; i++) {
    if (T (c, ab[i])->rank != 2)
      return simnpu__onnx_err (c, SIMNPU_ESHAPE,
          "input %d of rank %u (expected 2)", i, T (c, ab[i])->rank);
    if (trans[i]) {
      int t = simnpu__onnx_tmp (c);
      if ((ret = simnpu__onnx_emit_transpose (c, ab[i], t, swap, 2)) < 0)
        return ret;
      ab[i] = t;
    }
  }
  /* alpha on the constant operand when there is one */
  if (alpha != 1.0f) {
    int k = T (c, ab[1])->is_const ? 1 : 0;
    if ((ret = onnx_scale (c, ab[k], alpha, &ab[k])) < 0)
      return ret;
  }
  if ((ret = simnpu__onnx_out (c, 0, &out)) < 0)
    return ret;
  if (cc == SIMNPU_IR_NONE || beta == 0.0f)
    return simnpu__onnx_emit (c, SIMNPU_IR_MATMUL, ab, 2, &out, 1, NULL);
  y = simnpu__onnx_tmp (c);
  if ((ret = simnpu__onnx_emit (c, SIMNPU_IR_MATMUL, ab, 2, &y, 1, NULL)) < 0)
    return ret;
  if (beta != 1.0f && (ret = onnx_scale (c, cc, beta, &cc)) < 0)
    return ret;
  {
    int pair[2] = { y, cc };
    return simnpu__onnx_emit (c, SIMNPU_IR_ADD, pair, 2, &out, 1, NULL);
  }
}

static int
onnx_attr_tensor_const (onnx_ctx * c, const Onnx__AttributeProto * at, int *t)
{
  simnpu__ir_dtype dtype;
  unsigned rank;
  int64_t dims[SIMNPU_IR_MAX_RANK];
  void *data;
  gchar *what;
  int ret;

  what = g_strdup_printf ("node '%s' (%s): attribute '%s'", c->node_name,
      c->node->op_type, at->name);
  ret = simnpu__onnx_tensor_from_proto (at->t, what, &dtype, &rank, dims, &data,
      c->error);
  g_free (what);
  if (ret < 0)
    return ret;
  *t = simnpu__onnx_add_const (c, dtype, rank, dims, data);
  g_free (data);
  return 0;
}

static int
simnpu__onnx_imp_constant (onnx_ctx * c, const onnx_op * op)
{
  const Onnx__AttributeProto *at;
  int k, out, ret;

  if (c->node->n_attribute != 1)
    return simnpu__onnx_err (c, SIMNPU_EFORMAT,
        "%zu attributes (expected exactly one value)", c->node->n_attribute);
  at = c->node->attribute[0];
  if (at->name == NULL)
    return simnpu__onnx_err (c, SIMNPU_EFORMAT, "attribute without a name");
  if (strcmp (at->name, "value") == 0 && at->t != NULL) {
    if ((ret = onnx_attr_tensor_const (c, at, &k)) < 0)
      return ret;
  } else if (strcmp (at->name, "value_float") == 0) {
    k = simnpu__onnx_scalar_f32 (c, at->f);
  } else if (strcmp (at->name, "value_int") == 0) {
    k = simnpu__onnx_add_const (c, SIMNPU_IR_I64, 0, NULL, &at->i);
  } else if (strcmp (at->name, "value_floats") == 0) {
    int64_t len = at->n_floats;
    k = simnpu__onnx_add_const (c, SIMNPU_IR_F32, 1, &len, at->floats);
  } else if (strcmp (at->name, "value_ints") == 0) {
    int64_t len = at->n_ints;
    k = simnpu__onnx_add_const (c, SIMNPU_IR_I64, 1, &len, at->ints);
  } else {
    return simnpu__onnx_err (c, SIMNPU_EUNSUPPORTED,
        "constant attribute '%s' is not supported", at->name);
  }
  if ((ret = simnpu__onnx_out (c, 0, &out)) < 0)
    return ret;
  return simnpu__onnx_emit (c, SIMNPU_IR_IDENTITY, &k, 1, &out, 1, NULL);
}

static int
simnpu__onnx_imp_constant_of_shape (onnx_ctx * c, const onnx_op * op)
{
  const Onnx__AttributeProto *at = simnpu__onnx_attr (c, "value");
  int64_t dims[SIMNPU_IR_MAX_RANK];
  int ts, k, out, ret, n, i;
  int64_t total = 1;
  simnpu__ir_tensor tmp = { 0 };
  uint8_t *data;
  size_t esize;
  float zero = 0;
  const void *value = &zero;
  int vk = SIMNPU_IR_NONE;

  if ((ret = simnpu__onnx_in (c, 0, &ts)) < 0)
    return ret;
  if ((ret = simnpu__onnx_const_ints (c, ts, "shape", dims, SIMNPU_IR_MAX_RANK,
              &n)) < 0)
    return ret;
  for (i = 0; i < n; i++) {
    if (dims[i] < 0 || dims[i] > SIMNPU_IR_MAX_ELEMENTS)
      return simnpu__onnx_err (c, SIMNPU_ESHAPE,
          "shape[%d] = %" G_GINT64_FORMAT, i, dims[i]);
    total *= dims[i];
    if (total > ONNX_MAX_FOLD_ELEMENTS)
      return simnpu__onnx_err (c, SIMNPU_ENOMEM, "shape above %" G_GINT64_FORMAT
          " elements", (gint64) ONNX_MAX_FOLD_ELEMENTS);
  }
  tmp.dtype = SIMNPU_IR_F32;
  if (at != NULL && at->t != NULL) {
    if ((ret = onnx_attr_tensor_const (c, at, &vk)) < 0)
      return ret;
    if (simnpu__ir_tensor_elements (T (c, vk)) != 1)
      return simnpu__onnx_err (c, SIMNPU_ESHAPE, "value must have one element");
    tmp.dtype = T (c, vk)->dtype;
    value = T (c, vk)->data;
  }
  esize = simnpu__ir_dtype_size (tmp.dtype);
  data = g_malloc (MAX (1, total * esize));
  for (i = 0; i < total; i++)
    memcpy (data + i * esize, value, esize);
  tmp.rank = n;
  k = simnpu__onnx_add_const (c, tmp.dtype, n, dims, data);
  g_free (data);
  if ((ret = simnpu__onnx_out (c, 0, &out)) < 0)
    return ret;
  return simnpu__onnx_emit (c, SIMNPU_IR_IDENTITY, &k, 1, &out, 1, NULL);
}

static int
simnpu__onnx_imp_identity (onnx_ctx * c, const onnx_op * op)
{
  return imp_simple (c, op, 1, NULL);
}

/* x * tanh (softplus (x)) */
static int
simnpu__onnx_imp_mish (onnx_ctx * c, const onnx_op * op)
{
  int x, sp, th, out, ret;

  if ((ret = simnpu__onnx_in (c, 0, &x)) < 0
      || (ret = simnpu__onnx_emit1 (c, SIMNPU_IR_SOFTPLUS, x, &sp, NULL)) < 0
      || (ret = simnpu__onnx_emit1 (c, SIMNPU_IR_TANH, sp, &th, NULL)) < 0
      || (ret = simnpu__onnx_out (c, 0, &out)) < 0)
    return ret;
  {
    int pair[2] = { x, th };
    return simnpu__onnx_emit (c, SIMNPU_IR_MUL, pair, 2, &out, 1, NULL);
  }
}

static bool
onnx_has_output (onnx_ctx * c, unsigned k)
{
  return k < c->node->n_output && c->node->output[k] != NULL
      && c->node->output[k][0] != '\0';
}

/* (x - mean) / sqrt (var + epsilon) * scale + bias over the axes from
 * axis on; outputs Y, Mean, InvStdDev */
static int
simnpu__onnx_imp_layer_norm (onnx_ctx * c, const onnx_op * op)
{
  simnpu__ir_attrs a;
  int x, scale, bias, mean, d, dd, var, ve, sd, inv, nrm, ys, y, ret;
  unsigned rank, i;
  int32_t axis = 0;

  if ((ret = simnpu__onnx_in (c, 0, &x)) < 0
      || (ret = simnpu__onnx_in (c, 1, &scale)) < 0
      || (ret = simnpu__onnx_opt_in (c, 2, &bias)) < 0
      || (ret = simnpu__onnx_check_outputs (c, 3)) < 0)
    return ret;
  rank = T (c, x)->rank;
  if ((ret =
          simnpu__onnx_norm_axis (c, simnpu__onnx_attr_int (c, "axis", -1),
              rank, &axis)) < 0)
    return ret;
  simnpu__onnx_attrs_init (&a);
  for (i = axis; i < rank; i++)
    a.ints[a.n_ints++] = i;
  a.keepdims = true;
  if ((ret = simnpu__onnx_out (c, 0, &y)) < 0)
    return ret;
  if (onnx_has_output (c, 1)) {
    if ((ret = simnpu__onnx_out (c, 1, &mean)) < 0)
      return ret;
  } else {
    mean = simnpu__onnx_tmp (c);
  }
  if (onnx_has_output (c, 2)) {
    if ((ret = simnpu__onnx_out (c, 2, &inv)) < 0)
      return ret;
  } else {
    inv = simnpu__onnx_tmp (c);
  }
  d = simnpu__onnx_tmp (c);
  dd = simnpu__onnx_tmp (c);
  ve = simnpu__onnx_tmp (c);
  nrm = simnpu__onnx_tmp (c);
  ys = bias != SIMNPU_IR_NONE ? simnpu__onnx_tmp (c) : y;
  if ((ret =
          simnpu__onnx_emit (c, SIMNPU_IR_REDUCE_MEAN, &x, 1, &mean, 1, &a)) < 0
      || (ret = simnpu__onnx_emit2 (c, SIMNPU_IR_SUB, x, mean, d)) < 0
      || (ret = simnpu__onnx_emit2 (c, SIMNPU_IR_MUL, d, d, dd)) < 0
      || (ret = simnpu__onnx_emit1 (c, SIMNPU_IR_REDUCE_MEAN, dd, &var, &a)) < 0
      || (ret =
          simnpu__onnx_emit2 (c, SIMNPU_IR_ADD, var, simnpu__onnx_scalar_f32 (c,
                  simnpu__onnx_attr_float (c, "epsilon",
                      ONNX_DEFAULT_BN_EPSILON)), ve)) < 0
      || (ret = simnpu__onnx_emit1 (c, SIMNPU_IR_SQRT, ve, &sd, NULL)) < 0
      || (ret =
          simnpu__onnx_emit (c, SIMNPU_IR_RECIPROCAL, &sd, 1, &inv, 1,
              NULL)) < 0
      || (ret = simnpu__onnx_emit2 (c, SIMNPU_IR_MUL, d, inv, nrm)) < 0
      || (ret = simnpu__onnx_emit2 (c, SIMNPU_IR_MUL, nrm, scale, ys)) < 0)
    return ret;
  if (bias != SIMNPU_IR_NONE)
    return simnpu__onnx_emit2 (c, SIMNPU_IR_ADD, ys, bias, y);
  return 0;
}

/* where (x > alpha, x, 0) */
static int
simnpu__onnx_imp_thresholded_relu (onnx_ctx * c, const onnx_op * op)
{
  int x, gt, out, ret;
  float zero = 0;

  if ((ret = simnpu__onnx_in (c, 0, &x)) < 0
      || (ret = simnpu__onnx_out (c, 0, &out)) < 0)
    return ret;
  gt = simnpu__onnx_tmp (c);
  if ((ret =
          simnpu__onnx_emit2 (c, SIMNPU_IR_GREATER, x,
              simnpu__onnx_scalar_f32 (c, simnpu__onnx_attr_float (c, "alpha",
                      1.0f)), gt)) < 0)
    return ret;
  {
    int ins[3] = { gt, x, simnpu__onnx_scalar_f32 (c, zero) };
    return simnpu__onnx_emit (c, SIMNPU_IR_WHERE, ins, 3, &out, 1, NULL);
  }
}

/* per (sample, channel) over the spatial axes:
 * (x - mean) / sqrt (var + epsilon) * scale[c] + bias[c] */
static int
simnpu__onnx_imp_instance_norm (onnx_ctx * c, const onnx_op * op)
{
  simnpu__ir_attrs a;
  int64_t cdims[SIMNPU_IR_MAX_RANK];
  int x, scale, bias, mean, d, dd, var, ve, sd, nrm, s2, b2, ys, y, ret;
  unsigned rank, i;

  if ((ret = simnpu__onnx_in (c, 0, &x)) < 0
      || (ret = simnpu__onnx_in (c, 1, &scale)) < 0
      || (ret = simnpu__onnx_in (c, 2, &bias)) < 0)
    return ret;
  rank = T (c, x)->rank;
  if (rank < 3)
    return simnpu__onnx_err (c, SIMNPU_ESHAPE,
        "input of rank %u (expected >= 3)", rank);
  simnpu__onnx_attrs_init (&a);
  for (i = 2; i < rank; i++)
    a.ints[a.n_ints++] = i;
  a.keepdims = true;
  /* scale and bias [C] broadcast as [C, 1, ...] */
  cdims[0] = T (c, x)->dims[1];
  for (i = 1; i + 1 < rank; i++)
    cdims[i] = 1;
  if ((ret = simnpu__onnx_out (c, 0, &y)) < 0)
    return ret;
  s2 = simnpu__onnx_tmp (c);
  b2 = simnpu__onnx_tmp (c);
  d = simnpu__onnx_tmp (c);
  dd = simnpu__onnx_tmp (c);
  ve = simnpu__onnx_tmp (c);
  nrm = simnpu__onnx_tmp (c);
  ys = simnpu__onnx_tmp (c);
  if ((ret = simnpu__onnx_emit_reshape (c, scale, s2, cdims, rank - 1)) < 0
      || (ret = simnpu__onnx_emit_reshape (c, bias, b2, cdims, rank - 1)) < 0
      || (ret = simnpu__onnx_emit1 (c, SIMNPU_IR_REDUCE_MEAN, x, &mean, &a)) < 0
      || (ret = simnpu__onnx_emit2 (c, SIMNPU_IR_SUB, x, mean, d)) < 0
      || (ret = simnpu__onnx_emit2 (c, SIMNPU_IR_MUL, d, d, dd)) < 0
      || (ret = simnpu__onnx_emit1 (c, SIMNPU_IR_REDUCE_MEAN, dd, &var, &a)) < 0
      || (ret =
          simnpu__onnx_emit2 (c, SIMNPU_IR_ADD, var, simnpu__onnx_scalar_f32 (c,
                  simnpu__onnx_attr_float (c, "epsilon",
                      ONNX_DEFAULT_BN_EPSILON)), ve)) < 0
      || (ret = simnpu__onnx_emit1 (c, SIMNPU_IR_SQRT, ve, &sd, NULL)) < 0
      || (ret = simnpu__onnx_emit2 (c, SIMNPU_IR_DIV, d, sd, nrm)) < 0
      || (ret = simnpu__onnx_emit2 (c, SIMNPU_IR_MUL, nrm, s2, ys)) < 0)
    return ret;
  return simnpu__onnx_emit2 (c, SIMNPU_IR_ADD, ys, b2, y);
}

/* a zero scalar of dtype */
static int
onnx_zero (onnx_ctx * c, simnpu__ir_dtype dtype)
{
  int64_t zero = 0;
  return simnpu__onnx_add_const (c, dtype, 0, NULL, &zero);
}

/* dims that place a [n] vector on axis of a rank-r tensor: [n, 1, ...] */
static unsigned
simnpu__onnx_axis_dims (unsigned rank, unsigned axis, int64_t n, int64_t * dims)
{
  unsigned i, k = 0;
  dims[k++] = n;
  for (i = axis + 1; i < rank; i++)
    dims[k++] = 1;
  return k;
}

/* 0, 1, ... n-1 (I64) shaped to lie on axis of a rank-r tensor */
static int
simnpu__onnx_iota_on_axis (onnx_ctx * c, int64_t n, unsigned rank,
    unsigned axis, int *out)
{
  int64_t dims[SIMNPU_IR_MAX_RANK], i;
  int64_t *v;
  unsigned r;

  if (n < 1 || n > ONNX_MAX_FOLD_ELEMENTS)
    return simnpu__onnx_err (c, SIMNPU_ESHAPE, "axis of size %" G_GINT64_FORMAT,
        n);
  v = g_new (int64_t, n);
  for (i = 0; i < n; i++)
    v[i] = i;
  r = simnpu__onnx_axis_dims (rank, axis, n, dims);
  *out = simnpu__onnx_add_const (c, SIMNPU_IR_I64, r, dims, v);
  g_free (v);
  return 0;
}

static int
simnpu__onnx_cast (onnx_ctx * c, int x, simnpu__ir_dtype dtype, int *out)
{
  simnpu__ir_attrs a;

  if (T (c, x)->dtype == dtype) {
    *out = x;
    return 0;
  }
  simnpu__onnx_attrs_init (&a);
  a.dtype = dtype;
  return simnpu__onnx_emit1 (c, SIMNPU_IR_CAST, x, out, &a);
}

/* where (j - i >= k, x, 0) on the last two axes (upper; <= k for lower) */
static int
simnpu__onnx_imp_trilu (onnx_ctx * c, const onnx_op * op)
{
  bool upper = simnpu__onnx_attr_int (c, "upper", 1) != 0;
  int64_t k = 0, dims[2], i, j;
  int x, tk, out, mask, ret, n;
  uint8_t *m;
  const simnpu__ir_tensor *xt;

  if ((ret = simnpu__onnx_in (c, 0, &x)) < 0
      || (ret = simnpu__onnx_opt_in (c, 1, &tk)) < 0)
    return ret;
  if (tk != SIMNPU_IR_NONE
      && (ret = simnpu__onnx_const_ints (c, tk, "k", &k, 1, &n)) < 0)
    return ret;
  xt = T (c, x);
  if (xt->rank < 2)
    return simnpu__onnx_err (c, SIMNPU_ESHAPE,
        "input of rank %u (expected >= 2)", xt->rank);
  dims[0] = xt->dims[xt->rank - 2];
  dims[1] = xt->dims[xt->rank - 1];
  if (dims[0] * dims[1] > ONNX_MAX_FOLD_ELEMENTS)
    return simnpu__onnx_err (c, SIMNPU_ENOMEM, "matrix too large");
  m = g_malloc (MAX (dims[0] * dims[1], 1));
  for (i = 0; i < dims[0]; i++)
    for (j = 0; j < dims[1]; j++)
      m[i * dims[1] + j] = upper ? j - i >= k : j - i <= k;
  mask = simnpu__onnx_add_const (c, SIMNPU_IR_BOOL, 2, dims, m);
  g_free (m);
  if ((ret = simnpu__onnx_out (c, 0, &out)) < 0)
    return ret;
  {
    int ins[3] = { mask, x, onnx_zero (c, T (c, x)->dtype) };
    return simnpu__onnx_emit (c, SIMNPU_IR_WHERE, ins, 3, &out, 1, NULL);
  }
}

/* a per-axis [C] parameter as [C, 1, ...] against x, in F32 */
static int
onnx_axis_param (onnx_ctx * c, int x, int p, int64_t axis_attr, int *out)
{
  /* copies: adding tensors may move the array */
  unsigned prank = T (c, p)->rank, rank = T (c, x)->rank, r;
  int64_t pn = simnpu__ir_tensor_elements (T (c, p));
  int64_t dims[SIMNPU_IR_MAX_RANK];
  int32_t axis = 0;
  int ret, f;

  if ((ret = simnpu__onnx_cast (c, p, SIMNPU_IR_F32, &f)) < 0)
    return ret;
  if (prank == 0 || pn == 1) {
    *out = f;
    return 0;
  }
  if (prank != 1)
    return simnpu__onnx_err (c, SIMNPU_ESHAPE, "scale or zero point of rank %u "
        "(expected a scalar or 1-D)", prank);
  if ((ret = simnpu__onnx_norm_axis (c, axis_attr, rank, &axis)) < 0)
    return ret;
  r = simnpu__onnx_axis_dims (rank, axis, pn, dims);
  *out = simnpu__onnx_tmp (c);
  return simnpu__onnx_emit_reshape (c, f, *out, dims, r);
}

/* saturate (round (x / scale) + zero_point) */
static int
simnpu__onnx_imp_quantize (onnx_ctx * c, const onnx_op * op)
{
  int64_t axis = simnpu__onnx_attr_int (c, "axis", 1);
  simnpu__ir_dtype dtype = SIMNPU_IR_U8;
  simnpu__ir_attrs a;
  int x, ts, tz, sc, zp, q, r, out, ret;

  if ((ret = simnpu__onnx_in (c, 0, &x)) < 0
      || (ret = simnpu__onnx_in (c, 1, &ts)) < 0
      || (ret = simnpu__onnx_opt_in (c, 2, &tz)) < 0)
    return ret;
  if (tz != SIMNPU_IR_NONE)
    dtype = T (c, tz)->dtype;
  if (dtype != SIMNPU_IR_U8 && dtype != SIMNPU_IR_I8)
    return simnpu__onnx_err (c, SIMNPU_EUNSUPPORTED,
        "output %s (uint8 or int8)", simnpu__ir_dtype_name (dtype));
  if ((ret = simnpu__onnx_cast (c, x, SIMNPU_IR_F32, &x)) < 0
      || (ret = onnx_axis_param (c, x, ts, axis, &sc)) < 0)
    return ret;
  q = simnpu__onnx_tmp (c);
  if ((ret = simnpu__onnx_emit2 (c, SIMNPU_IR_DIV, x, sc, q)) < 0
      || (ret = simnpu__onnx_emit1 (c, SIMNPU_IR_ROUND, q, &r, NULL)) < 0)
    return ret;
  if (tz != SIMNPU_IR_NONE) {
    int s;
    if ((ret = onnx_axis_param (c, x, tz, axis, &zp)) < 0)
      return ret;
    s = simnpu__onnx_tmp (c);
    if ((ret = simnpu__onnx_emit2 (c, SIMNPU_IR_ADD, r, zp, s)) < 0)
      return ret;
    r = s;
  }
  simnpu__onnx_attrs_init (&a);
  a.f[0] = dtype == SIMNPU_IR_U8 ? 0.0f : (float) G_MININT8;
  a.f[1] = dtype == SIMNPU_IR_U8 ? (float) G_MAXUINT8 : (float) G_MAXINT8;
  if ((ret = simnpu__onnx_emit1 (c, SIMNPU_IR_CLIP, r, &q, &a)) < 0
      || (ret = simnpu__onnx_out (c, 0, &out)) < 0)
    return ret;
  simnpu__onnx_attrs_init (&a);
  a.dtype = dtype;
  return simnpu__onnx_emit (c, SIMNPU_IR_CAST, &q, 1, &out, 1, &a);
}

/* (x - zero_point) * scale */
static int
simnpu__onnx_imp_dequantize (onnx_ctx * c, const onnx_op * op)
{
  int64_t axis = simnpu__onnx_attr_int (c, "axis", 1);
  int x, ts, tz, sc, zp, xf, out, ret;

  if ((ret = simnpu__onnx_in (c, 0, &x)) < 0
      || (ret = simnpu__onnx_in (c, 1, &ts)) < 0
      || (ret = simnpu__onnx_opt_in (c, 2, &tz)) < 0)
    return ret;
  if ((ret = simnpu__onnx_cast (c, x, SIMNPU_IR_F32, &xf)) < 0
      || (ret = onnx_axis_param (c, x, ts, axis, &sc)) < 0
      || (ret = simnpu__onnx_out (c, 0, &out)) < 0)
    return ret;
  if (tz != SIMNPU_IR_NONE) {
    int d = simnpu__onnx_tmp (c);
    if ((ret = onnx_axis_param (c, x, tz, axis, &zp)) < 0
        || (ret = simnpu__onnx_emit2 (c, SIMNPU_IR_SUB, xf, zp, d)) < 0)
      return ret;
    xf = d;
  }
  return simnpu__onnx_emit2 (c, SIMNPU_IR_MUL, xf, sc, out);
}

/* cast (argmax (x, axis) == iota, x's dtype) */
static int
simnpu__onnx_imp_hardmax (onnx_ctx * c, const onnx_op * op)
{
  simnpu__ir_attrs a;
  int x, am, iota, eq, out, ret;
  unsigned rank;

  if ((ret = simnpu__onnx_in (c, 0, &x)) < 0)
    return ret;
  rank = T (c, x)->rank;
  simnpu__onnx_attrs_init (&a);
  if (rank == 0)
    return simnpu__onnx_err (c, SIMNPU_ESHAPE, "scalar input");
  if ((ret =
          simnpu__onnx_norm_axis (c, simnpu__onnx_attr_int (c, "axis", -1),
              rank, &a.axis)) < 0)
    return ret;
  a.keepdims = true;
  if ((ret = simnpu__onnx_emit1 (c, SIMNPU_IR_ARGMAX, x, &am, &a)) < 0
      || (ret =
          simnpu__onnx_iota_on_axis (c, T (c, x)->dims[a.axis], rank, a.axis,
              &iota)) < 0)
    return ret;
  eq = simnpu__onnx_tmp (c);
  if ((ret = simnpu__onnx_emit2 (c, SIMNPU_IR_EQUAL, am, iota, eq)) < 0
      || (ret = simnpu__onnx_out (c, 0, &out)) < 0)
    return ret;
  simnpu__onnx_attrs_init (&a);
  a.dtype = T (c, x)->dtype;
  return simnpu__onnx_emit (c, SIMNPU_IR_CAST, &eq, 1, &out, 1, &a);
}

/* where (x < -lambd, x + bias, where (x > lambd, x - bias, 0)) */
static int
simnpu__onnx_imp_shrink (onnx_ctx * c, const onnx_op * op)
{
  float lambd = simnpu__onnx_attr_float (c, "lambd", 0.5f);
  float bias = simnpu__onnx_attr_float (c, "bias", 0.0f);
  int x, lo, hi, xp, xm, inner, out, ret;

  if ((ret = simnpu__onnx_in (c, 0, &x)) < 0)
    return ret;
  if (T (c, x)->dtype != SIMNPU_IR_F32)
    return simnpu__onnx_err (c, SIMNPU_EUNSUPPORTED, "%s input (float only)",
        simnpu__ir_dtype_name (T (c, x)->dtype));
  lo = simnpu__onnx_tmp (c);
  hi = simnpu__onnx_tmp (c);
  xp = simnpu__onnx_tmp (c);
  xm = simnpu__onnx_tmp (c);
  inner = simnpu__onnx_tmp (c);
  if ((ret =
          simnpu__onnx_emit2 (c, SIMNPU_IR_LESS, x, simnpu__onnx_scalar_f32 (c,
                  -lambd), lo)) < 0
      || (ret =
          simnpu__onnx_emit2 (c, SIMNPU_IR_GREATER, x,
              simnpu__onnx_scalar_f32 (c, lambd), hi)) < 0
      || (ret =
          simnpu__onnx_emit2 (c, SIMNPU_IR_ADD, x, simnpu__onnx_scalar_f32 (c,
                  bias), xp)) < 0
      || (ret =
          simnpu__onnx_emit2 (c, SIMNPU_IR_SUB, x, simnpu__onnx_scalar_f32 (c,
                  bias), xm)) < 0 || (ret = simnpu__onnx_out (c, 0, &out)) < 0)
    return ret;
  {
    int in1[3] = { hi, xm, simnpu__onnx_scalar_f32 (c, 0.0f) };
    int in2[3] = { lo, xp, inner };
    if ((ret =
            simnpu__onnx_emit (c, SIMNPU_IR_WHERE, in1, 3, &inner, 1,
                NULL)) < 0)
      return ret;
    return simnpu__onnx_emit (c, SIMNPU_IR_WHERE, in2, 3, &out, 1, NULL);
  }
}

/* hyperbolic functions from exp, log and sqrt */
static int
simnpu__onnx_imp_hyperbolic (onnx_ctx * c, const onnx_op * op)
{
  const char *name = op->name;
  int x, out, ret, t1, t2, t3;

  if ((ret = simnpu__onnx_in (c, 0, &x)) < 0
      || (ret = simnpu__onnx_out (c, 0, &out)) < 0)
    return ret;
  t1 = simnpu__onnx_tmp (c);
  t2 = simnpu__onnx_tmp (c);
  t3 = simnpu__onnx_tmp (c);
  if (strcmp (name, "Sinh") == 0 || strcmp (name, "Cosh") == 0) {
    int e, n, en;
    /* (exp (x) -+ exp (-x)) / 2 */
    if ((ret = simnpu__onnx_emit1 (c, SIMNPU_IR_EXP, x, &e, NULL)) < 0
        || (ret = simnpu__onnx_emit1 (c, SIMNPU_IR_NEG, x, &n, NULL)) < 0
        || (ret = simnpu__onnx_emit1 (c, SIMNPU_IR_EXP, n, &en, NULL)) < 0
        || (ret = simnpu__onnx_emit2 (c, name[0] == 'S' ? SIMNPU_IR_SUB :
                SIMNPU_IR_ADD, e, en, t1)) < 0)
      return ret;
    return simnpu__onnx_emit2 (c, SIMNPU_IR_MUL, t1, simnpu__onnx_scalar_f32 (c,
            0.5f), out);
  }
  if (strcmp (name, "Atanh") == 0) {
    int one = simnpu__onnx_scalar_f32 (c, 1.0f), l;
    /* log ((1 + x) / (1 - x)) / 2 */
    if ((ret = simnpu__onnx_emit2 (c, SIMNPU_IR_ADD, one, x, t1)) < 0
        || (ret = simnpu__onnx_emit2 (c, SIMNPU_IR_SUB, one, x, t2)) < 0
        || (ret = simnpu__onnx_emit2 (c, SIMNPU_IR_DIV, t1, t2, t3)) < 0
        || (ret = simnpu__onnx_emit1 (c, SIMNPU_IR_LOG, t3, &l, NULL)) < 0)
      return ret;
    return simnpu__onnx_emit2 (c, SIMNPU_IR_MUL, l, simnpu__onnx_scalar_f32 (c,
            0.5f), out);
  }
  {
    /* log (x + sqrt (x * x +- 1)) */
    int sq, t4 = simnpu__onnx_tmp (c);
    if ((ret = simnpu__onnx_emit2 (c, SIMNPU_IR_MUL, x, x, t1)) < 0
        || (ret = simnpu__onnx_emit2 (c, strcmp (name, "Asinh") == 0 ?
                SIMNPU_IR_ADD : SIMNPU_IR_SUB, t1, simnpu__onnx_scalar_f32 (c,
                    1.0f), t2)) < 0
        || (ret = simnpu__onnx_emit1 (c, SIMNPU_IR_SQRT, t2, &sq, NULL)) < 0
        || (ret = simnpu__onnx_emit2 (c, SIMNPU_IR_ADD, x, sq, t4)) < 0)
      return ret;
    return simnpu__onnx_emit (c, SIMNPU_IR_LOG, &t4, 1, &out, 1, NULL);
  }
}

#define ONNX_MVN_EPSILON 1e-9f

/* (x - mean) / (sqrt (var) + epsilon) over axes (default 0, 2, 3) */
static int
simnpu__onnx_imp_mvn (onnx_ctx * c, const onnx_op * op)
{
  static const int64_t def_axes[] = { 0, 2, 3 };
  int64_t axes[SIMNPU_IR_MAX_RANK];
  simnpu__ir_attrs a;
  int x, mean, d, dd, var, sd, se, out, ret, n, i;
  unsigned rank;

  if ((ret = simnpu__onnx_in (c, 0, &x)) < 0
      || (ret =
          simnpu__onnx_attr_ints (c, "axes", axes, SIMNPU_IR_MAX_RANK, &n)) < 0)
    return ret;
  if (n < 0) {
    memcpy (axes, def_axes, sizeof def_axes);
    n = G_N_ELEMENTS (def_axes);
  }
  rank = T (c, x)->rank;
  simnpu__onnx_attrs_init (&a);
  for (i = 0; i < n; i++) {
    int32_t ax = 0;
    if ((ret = simnpu__onnx_norm_axis (c, axes[i], rank, &ax)) < 0)
      return ret;
    a.ints[a.n_ints++] = ax;
  }
  a.keepdims = true;
  d = simnpu__onnx_tmp (c);
  dd = simnpu__onnx_tmp (c);
  se = simnpu__onnx_tmp (c);
  if ((ret = simnpu__onnx_emit1 (c, SIMNPU_IR_REDUCE_MEAN, x, &mean, &a)) < 0
      || (ret = simnpu__onnx_emit2 (c, SIMNPU_IR_SUB, x, mean, d)) < 0
      || (ret = simnpu__onnx_emit2 (c, SIMNPU_IR_MUL, d, d, dd)) < 0
      || (ret = simnpu__onnx_emit1 (c, SIMNPU_IR_REDUCE_MEAN, dd, &var, &a)) < 0
      || (ret = simnpu__onnx_emit1 (c, SIMNPU_IR_SQRT, var, &sd, NULL)) < 0
      || (ret =
          simnpu__onnx_emit2 (c, SIMNPU_IR_ADD, sd, simnpu__onnx_scalar_f32 (c,
                  ONNX_MVN_EPSILON), se)) < 0
      || (ret = simnpu__onnx_out (c, 0, &out)) < 0)
    return ret;
  return simnpu__onnx_emit2 (c, SIMNPU_IR_DIV, d, se, out);
}

/* where (unsqueeze (wrap (indices), axis) == iota, on, off) */
static int
simnpu__onnx_imp_onehot (onnx_ctx * c, const onnx_op * op)
{
  int64_t dims[SIMNPU_IR_MAX_RANK], depth_v[1] = { 0 };
  int idx, td, tv, ii, neg, wrapped, un, iota, eq, on, off, out, ret;
  unsigned rank, r, j;
  int32_t axis = 0;
  float depth_f;
  simnpu__ir_attrs a;
  int64_t zero = 0, one = 1;

  if ((ret = simnpu__onnx_in (c, 0, &idx)) < 0
      || (ret = simnpu__onnx_in (c, 1, &td)) < 0
      || (ret = simnpu__onnx_in (c, 2, &tv)) < 0)
    return ret;
  if ((ret = simnpu__onnx_const_float (c, td, "depth", &depth_f)) < 0)
    return ret;
  depth_v[0] = (int64_t) depth_f;
  rank = T (c, idx)->rank + 1;
  if (rank > SIMNPU_IR_MAX_RANK)
    return simnpu__onnx_err (c, SIMNPU_EUNSUPPORTED, "output rank above %d",
        SIMNPU_IR_MAX_RANK);
  if ((ret =
          simnpu__onnx_norm_axis (c, simnpu__onnx_attr_int (c, "axis", -1),
              rank, &axis)) < 0)
    return ret;
  if (simnpu__ir_tensor_elements (T (c, tv)) != 2)
    return simnpu__onnx_err (c, SIMNPU_ESHAPE, "values must hold [off, on]");
  /* indices below 0 count from depth */
  neg = simnpu__onnx_tmp (c);
  wrapped = simnpu__onnx_tmp (c);
  ii = simnpu__onnx_tmp (c);
  if ((ret = simnpu__onnx_cast (c, idx, SIMNPU_IR_I64, &idx)) < 0
      || (ret =
          simnpu__onnx_emit2 (c, SIMNPU_IR_LESS, idx, simnpu__onnx_add_const (c,
                  SIMNPU_IR_I64, 0, NULL, &zero), neg)) < 0
      || (ret =
          simnpu__onnx_emit2 (c, SIMNPU_IR_ADD, idx, simnpu__onnx_add_const (c,
                  SIMNPU_IR_I64, 0, NULL, depth_v), ii)) < 0)
    return ret;
  {
    int ins[3] = { neg, ii, idx };
    if ((ret =
            simnpu__onnx_emit (c, SIMNPU_IR_WHERE, ins, 3, &wrapped, 1,
                NULL)) < 0)
      return ret;
  }
  for (r = 0, j = 0; r < rank; r++)
    dims[r] = r == (unsigned) axis ? 1 : T (c, idx)->dims[j++];
  un = simnpu__onnx_tmp (c);
  if ((ret = simnpu__onnx_emit_reshape (c, wrapped, un, dims, rank)) < 0
      || (ret =
          simnpu__onnx_iota_on_axis (c, depth_v[0], rank, axis, &iota)) < 0)
    return ret;
  eq = simnpu__onnx_tmp (c);
  if ((ret = simnpu__onnx_emit2 (c, SIMNPU_IR_EQUAL, un, iota, eq)) < 0)
    return ret;
  simnpu__onnx_attrs_init (&a);
  {
    int flat = simnpu__onnx_tmp (c);
    int64_t two = 2;
    if ((ret = simnpu__onnx_emit_reshape (c, tv, flat, &two, 1)) < 0)
      return ret;
    off = simnpu__onnx_tmp (c);
    on = simnpu__onnx_tmp (c);
    {
      int g0[2] = { flat, simnpu__onnx_add_const (c, SIMNPU_IR_I64, 0, NULL,
            &zero)
      };
      int g1[2] =
          { flat, simnpu__onnx_add_const (c, SIMNPU_IR_I64, 0, NULL, &one) };
      if ((ret =
              simnpu__onnx_emit (c, SIMNPU_IR_GATHER, g0, 2, &off, 1, &a)) < 0
          || (ret =
              simnpu__onnx_emit (c, SIMNPU_IR_GATHER, g1, 2, &on, 1, &a)) < 0)
        return ret;
    }
  }
  if ((ret = simnpu__onnx_out (c, 0, &out)) < 0)
    return ret;
  {
    int ins[3] = { eq, on, off };
    return simnpu__onnx_emit (c, SIMNPU_IR_WHERE, ins, 3, &out, 1, NULL);
  }
}

/* scale = (max (0, max x) - min (0, min x)) / 255, zero point =
 * saturate (round (-min / scale)), y = saturate (round (x / scale) + zp):
 * outputs y, y_scale, y_zero_point (uint8) */
static int
simnpu__onnx_imp_dynamic_quantize (onnx_ctx * c, const onnx_op * op)
{
  simnpu__ir_attrs r, clip, cast;
  int x, mn, mx, mn0, mx0, range, scale, nmn, zf, zr, zc, q, qr, qz, qc;
  int y, ys, yz, ret;
  unsigned i;
  float zero = 0;

  if ((ret = simnpu__onnx_in (c, 0, &x)) < 0
      || (ret = simnpu__onnx_out (c, 0, &y)) < 0
      || (ret = simnpu__onnx_out (c, 1, &ys)) < 0
      || (ret = simnpu__onnx_out (c, 2, &yz)) < 0)
    return ret;
  if (T (c, x)->dtype != SIMNPU_IR_F32)
    return simnpu__onnx_err (c, SIMNPU_EFORMAT, "input must be float");
  simnpu__onnx_attrs_init (&r);
  for (i = 0; i < T (c, x)->rank; i++)
    r.ints[r.n_ints++] = i;
  simnpu__onnx_attrs_init (&clip);
  clip.f[0] = 0.0f;
  clip.f[1] = (float) G_MAXUINT8;
  simnpu__onnx_attrs_init (&cast);
  cast.dtype = SIMNPU_IR_U8;
  mn0 = simnpu__onnx_tmp (c);
  mx0 = simnpu__onnx_tmp (c);
  range = simnpu__onnx_tmp (c);
  nmn = simnpu__onnx_tmp (c);
  q = simnpu__onnx_tmp (c);
  qz = simnpu__onnx_tmp (c);
  if ((ret = simnpu__onnx_emit1 (c, SIMNPU_IR_REDUCE_MIN, x, &mn, &r)) < 0
      || (ret = simnpu__onnx_emit1 (c, SIMNPU_IR_REDUCE_MAX, x, &mx, &r)) < 0
      || (ret =
          simnpu__onnx_emit2 (c, SIMNPU_IR_MINIMUM, mn,
              simnpu__onnx_scalar_f32 (c, zero), mn0)) < 0
      || (ret =
          simnpu__onnx_emit2 (c, SIMNPU_IR_MAXIMUM, mx,
              simnpu__onnx_scalar_f32 (c, zero), mx0)) < 0
      || (ret = simnpu__onnx_emit2 (c, SIMNPU_IR_SUB, mx0, mn0, range)) < 0)
    return ret;
  scale = ys;
  if ((ret =
          simnpu__onnx_emit2 (c, SIMNPU_IR_DIV, range,
              simnpu__onnx_scalar_f32 (c, (float) G_MAXUINT8), scale)) < 0
      || (ret = simnpu__onnx_emit2 (c, SIMNPU_IR_DIV, mn0, scale, nmn)) < 0
      || (ret = simnpu__onnx_emit1 (c, SIMNPU_IR_NEG, nmn, &zf, NULL)) < 0
      || (ret = simnpu__onnx_emit1 (c, SIMNPU_IR_ROUND, zf, &zr, NULL)) < 0
      || (ret = simnpu__onnx_emit1 (c, SIMNPU_IR_CLIP, zr, &zc, &clip)) < 0
      || (ret =
          simnpu__onnx_emit (c, SIMNPU_IR_CAST, &zc, 1, &yz, 1, &cast)) < 0
      || (ret = simnpu__onnx_emit2 (c, SIMNPU_IR_DIV, x, scale, q)) < 0
      || (ret = simnpu__onnx_emit1 (c, SIMNPU_IR_ROUND, q, &qr, NULL)) < 0
      || (ret = simnpu__onnx_emit2 (c, SIMNPU_IR_ADD, qr, zc, qz)) < 0
      || (ret = simnpu__onnx_emit1 (c, SIMNPU_IR_CLIP, qz, &qc, &clip)) < 0)
    return ret;
  return simnpu__onnx_emit (c, SIMNPU_IR_CAST, &qc, 1, &y, 1, &cast);
}

/* x @ M along the axis, M[j][i] = 1 where j runs into i (exclusive,
 * reverse), with the axis moved last */
static int
simnpu__onnx_imp_cumsum (onnx_ctx * c, const onnx_op * op)
{
  bool excl = simnpu__onnx_attr_int (c, "exclusive", 0) != 0;
  bool rev = simnpu__onnx_attr_int (c, "reverse", 0) != 0;
  int64_t perm[SIMNPU_IR_MAX_RANK], axis_v, len, i, j, dims[2];
  int x, ta, m, xt, y, out, ret, n;
  unsigned rank, k;
  int32_t axis = 0;
  float *mv;

  if ((ret = simnpu__onnx_in (c, 0, &x)) < 0
      || (ret = simnpu__onnx_in (c, 1, &ta)) < 0
      || (ret = simnpu__onnx_const_ints (c, ta, "axis", &axis_v, 1, &n)) < 0)
    return ret;
  rank = T (c, x)->rank;
  if (n != 1 || (ret = simnpu__onnx_norm_axis (c, axis_v, rank, &axis)) < 0)
    return n != 1 ? simnpu__onnx_err (c, SIMNPU_EFORMAT,
        "axis must be a scalar") : ret;
  if (T (c, x)->dtype != SIMNPU_IR_F32)
    return simnpu__onnx_err (c, SIMNPU_EUNSUPPORTED, "%s input (float only)",
        simnpu__ir_dtype_name (T (c, x)->dtype));
  len = T (c, x)->dims[axis];
  if (len * len > ONNX_MAX_FOLD_ELEMENTS)
    return simnpu__onnx_err (c, SIMNPU_ENOMEM, "axis too long");
  mv = g_new0 (float, MAX (len * len, 1));
  for (j = 0; j < len; j++)
    for (i = 0; i < len; i++)
      mv[j * len + i] = (rev ? (excl ? j > i : j >= i)
          : (excl ? j < i : j <= i)) ? 1.0f : 0.0f;
  dims[0] = dims[1] = len;
  m = simnpu__onnx_add_const (c, SIMNPU_IR_F32, 2, dims, mv);
  g_free (mv);
  if ((ret = simnpu__onnx_out (c, 0, &out)) < 0)
    return ret;
  if (axis == (int32_t) rank - 1)
    return simnpu__onnx_emit2 (c, SIMNPU_IR_MATMUL, x, m, out);
  /* swapping the axis with the last is its own inverse */
  for (k = 0; k < rank; k++)
    perm[k] = k;
  perm[axis] = rank - 1;
  perm[rank - 1] = axis;
  xt = simnpu__onnx_tmp (c);
  y = simnpu__onnx_tmp (c);
  if ((ret = simnpu__onnx_emit_transpose (c, x, xt, perm, rank)) < 0
      || (ret = simnpu__onnx_emit2 (c, SIMNPU_IR_MATMUL, xt, m, y)) < 0)
    return ret;
  return simnpu__onnx_emit_transpose (c, y, out, perm, rank);
}

/* out[.., i, ..] = data[.., idx[.., i, ..], ..] as
 * reduce_sum (where (unsqueeze (idx) == iota, unsqueeze (data), 0)) over
 * a new axis after axis: exact, one term is not zero */
static int
simnpu__onnx_gather_elements (onnx_ctx * c, int data, int idx,
    int64_t axis_attr, int out)
{
  int64_t dd[SIMNPU_IR_MAX_RANK], id[SIMNPU_IR_MAX_RANK];
  int64_t ud[SIMNPU_IR_MAX_RANK], ui[SIMNPU_IR_MAX_RANK];
  int neg, ii, wrapped, di, du, iu, iota, eq, sel, ret;
  simnpu__ir_attrs a;
  unsigned rank, r, k;
  int32_t axis = 0;
  int64_t zero = 0, len;

  rank = T (c, data)->rank;
  if (T (c, idx)->rank != rank || rank == 0 || rank >= SIMNPU_IR_MAX_RANK)
    return simnpu__onnx_err (c, SIMNPU_ESHAPE, "indices of rank %u for data of "
        "rank %u", T (c, idx)->rank, rank);
  if ((ret = simnpu__onnx_norm_axis (c, axis_attr, rank, &axis)) < 0)
    return ret;
  memcpy (dd, T (c, data)->dims, sizeof dd);
  memcpy (id, T (c, idx)->dims, sizeof id);
  len = dd[axis];
  /* data cut to the indices' extent off the axis */
  simnpu__onnx_attrs_init (&a);
  for (r = 0; r < rank; r++) {
    if (r != (unsigned) axis && id[r] > dd[r])
      return simnpu__onnx_err (c, SIMNPU_ESHAPE,
          "indices exceed data on axis %u", r);
    a.ints[r] = 0;
    a.ints[rank + r] = r == (unsigned) axis ? dd[r] : id[r];
    a.steps[r] = 1;
  }
  a.n_ints = 2 * rank;
  if ((ret = simnpu__onnx_emit1 (c, SIMNPU_IR_SLICE, data, &di, &a)) < 0)
    return ret;
  /* indices below 0 count from the axis' end */
  neg = simnpu__onnx_tmp (c);
  ii = simnpu__onnx_tmp (c);
  wrapped = simnpu__onnx_tmp (c);
  if ((ret = simnpu__onnx_cast (c, idx, SIMNPU_IR_I64, &idx)) < 0
      || (ret =
          simnpu__onnx_emit2 (c, SIMNPU_IR_LESS, idx, simnpu__onnx_add_const (c,
                  SIMNPU_IR_I64, 0, NULL, &zero), neg)) < 0
      || (ret =
          simnpu__onnx_emit2 (c, SIMNPU_IR_ADD, idx, simnpu__onnx_add_const (c,
                  SIMNPU_IR_I64, 0, NULL, &len), ii)) < 0)
    return ret;
  {
    int ins[3] = { neg, ii, idx };
    if ((ret =
            simnpu__onnx_emit (c, SIMNPU_IR_WHERE, ins, 3, &wrapped, 1,
                NULL)) < 0)
      return ret;
  }
  /* indices [.., I, 1, ..], data [.., 1, D, ..], iota [D, 1, ..] */
  for (r = 0, k = 0; r < rank; r++) {
    ui[k] = id[r];
    ud[k++] = r == (unsigned) axis ? 1 : id[r];
    if (r == (unsigned) axis) {
      ui[k] = 1;
      ud[k++] = len;
    }
  }
  iu = simnpu__onnx_tmp (c);
  du = simnpu__onnx_tmp (c);
  eq = simnpu__onnx_tmp (c);
  sel = simnpu__onnx_tmp (c);
  if ((ret = simnpu__onnx_emit_reshape (c, wrapped, iu, ui, rank + 1)) < 0
      || (ret = simnpu__onnx_emit_reshape (c, di, du, ud, rank + 1)) < 0
      || (ret =
          simnpu__onnx_iota_on_axis (c, len, rank + 1, axis + 1, &iota)) < 0
      || (ret = simnpu__onnx_emit2 (c, SIMNPU_IR_EQUAL, iu, iota, eq)) < 0)
    return ret;
  {
    int ins[3] = { eq, du, onnx_zero (c, T (c, data)->dtype) };
    if ((ret =
            simnpu__onnx_emit (c, SIMNPU_IR_WHERE, ins, 3, &sel, 1, NULL)) < 0)
      return ret;
  }
  simnpu__onnx_attrs_init (&a);
  a.ints[0] = axis + 1;
  a.n_ints = 1;
  a.keepdims = false;
  return simnpu__onnx_emit (c, SIMNPU_IR_REDUCE_SUM, &sel, 1, &out, 1, &a);
}

static int
simnpu__onnx_imp_gather_elements (onnx_ctx * c, const onnx_op * op)
{
  int data, idx, out, ret;

  if ((ret = simnpu__onnx_in (c, 0, &data)) < 0
      || (ret = simnpu__onnx_in (c, 1, &idx)) < 0
      || (ret = simnpu__onnx_out (c, 0, &out)) < 0)
    return ret;
  return simnpu__onnx_gather_elements (c, data, idx, simnpu__onnx_attr_int (c,
          "axis", 0), out);
}

/* loss[n, d..] = -input[n, target[n, d..], d..] * weight[target], 0 where
 * target is ignore_index; reduced by none, sum or mean (over the
 * weights) */
static int
onnx_nll (onnx_ctx * c, int input, int target, int weight, int out)
{
  char buf[ONNX_STR_SIZE];
  const char *red =
      simnpu__onnx_attr_str (c, "reduction", "mean", buf, sizeof buf);
  bool has_ignore = simnpu__onnx_attr (c, "ignore_index") != NULL;
  int64_t ignore = simnpu__onnx_attr_int (c, "ignore_index", 0), zero = 0;
  int64_t td[SIMNPU_IR_MAX_RANK], ud[SIMNPU_IR_MAX_RANK];
  int t, ign = SIMNPU_IR_NONE, tu, sel, selr, w, wl, loss, ret;
  unsigned rank, r, tr;
  simnpu__ir_attrs all;

  if (strcmp (red, "none") != 0 && strcmp (red, "sum") != 0
      && strcmp (red, "mean") != 0)
    return simnpu__onnx_err (c, SIMNPU_EFORMAT, "reduction '%s' (none, sum or "
        "mean)", red);
  rank = T (c, input)->rank;
  tr = T (c, target)->rank;
  if (rank < 2 || tr + 1 != rank)
    return simnpu__onnx_err (c, SIMNPU_ESHAPE, "target of rank %u for input of "
        "rank %u", tr, rank);
  memcpy (td, T (c, target)->dims, sizeof td);
  if ((ret = simnpu__onnx_cast (c, target, SIMNPU_IR_I64, &t)) < 0)
    return ret;
  if (has_ignore) {
    int safe = simnpu__onnx_tmp (c);
    ign = simnpu__onnx_tmp (c);
    if ((ret =
            simnpu__onnx_emit2 (c, SIMNPU_IR_EQUAL, t,
                simnpu__onnx_add_const (c, SIMNPU_IR_I64, 0, NULL, &ignore),
                ign)) < 0)
      return ret;
    {
      int ins[3] =
          { ign, simnpu__onnx_add_const (c, SIMNPU_IR_I64, 0, NULL, &zero),
        t
      };
      if ((ret =
              simnpu__onnx_emit (c, SIMNPU_IR_WHERE, ins, 3, &safe, 1,
                  NULL)) < 0)
        return ret;
    }
    t = safe;
  }
  /* target as [N, 1, d..] picks along the classes */
  ud[0] = td[0];
  ud[1] = 1;
  for (r = 1; r < tr; r++)
    ud[r + 1] = td[r];
  tu = simnpu__onnx_tmp (c);
  sel = simnpu__onnx_tmp (c);
  selr = simnpu__onnx_tmp (c);
  if ((ret = simnpu__onnx_emit_reshape (c, t, tu, ud, rank)) < 0
      || (ret = simnpu__onnx_gather_elements (c, input, tu, 1, sel)) < 0
      || (ret = simnpu__onnx_emit_reshape (c, sel, selr, td, tr)) < 0)
    return ret;
  /* the weight of each element: weight[target], 1 without weights, 0 where
   * ignored */
  if (weight != SIMNPU_IR_NONE) {
    simnpu__ir_attrs g;
    int gi[2] = { weight, t };
    simnpu__onnx_attrs_init (&g);
    w = simnpu__onnx_tmp (c);
    if ((ret = simnpu__onnx_emit (c, SIMNPU_IR_GATHER, gi, 2, &w, 1, &g)) < 0)
      return ret;
  } else {
    w = simnpu__onnx_scalar_f32 (c, 1.0f);
  }
  if (ign != SIMNPU_IR_NONE) {
    int ins[3] = { ign, simnpu__onnx_scalar_f32 (c, 0.0f), w };
    int wi = simnpu__onnx_tmp (c);
    if ((ret =
            simnpu__onnx_emit (c, SIMNPU_IR_WHERE, ins, 3, &wi, 1, NULL)) < 0)
      return ret;
    w = wi;
  }
  wl = simnpu__onnx_tmp (c);
  if ((ret = simnpu__onnx_emit2 (c, SIMNPU_IR_MUL, selr, w, wl)) < 0)
    return ret;
  if (strcmp (red, "none") == 0)
    return simnpu__onnx_emit (c, SIMNPU_IR_NEG, &wl, 1, &out, 1, NULL);
  if ((ret = simnpu__onnx_emit1 (c, SIMNPU_IR_NEG, wl, &loss, NULL)) < 0)
    return ret;
  simnpu__onnx_attrs_init (&all);
  for (r = 0; r < tr; r++)
    all.ints[all.n_ints++] = r;
  if (strcmp (red, "sum") == 0)
    return simnpu__onnx_emit (c, SIMNPU_IR_REDUCE_SUM, &loss, 1, &out, 1, &all);
  if (T (c, w)->rank == 0)
    return simnpu__onnx_emit (c, SIMNPU_IR_REDUCE_MEAN, &loss, 1, &out, 1,
        &all);
  {
    int num, den;
    if ((ret =
            simnpu__onnx_emit1 (c, SIMNPU_IR_REDUCE_SUM, loss, &num, &all)) < 0
        || (ret =
            simnpu__onnx_emit1 (c, SIMNPU_IR_REDUCE_SUM, w, &den, &all)) < 0)
      return ret;
    return simnpu__onnx_emit2 (c, SIMNPU_IR_DIV, num, den, out);
  }
}

static int
simnpu__onnx_imp_nll_loss (onnx_ctx * c, const onnx_op * op)
{
  int input, target, weight, out, ret;

  if ((ret = simnpu__onnx_in (c, 0, &input)) < 0
      || (ret = simnpu__onnx_in (c, 1, &target)) < 0
      || (ret = simnpu__onnx_opt_in (c, 2, &weight)) < 0
      || (ret = simnpu__onnx_out (c, 0, &out)) < 0)
    return ret;
  return onnx_nll (c, input, target, weight, out);
}

/* nll (log_softmax (scores, 1)); outputs the loss and the log
 * probabilities */
static int
simnpu__onnx_imp_sce_loss (onnx_ctx * c, const onnx_op * op)
{
  simnpu__ir_attrs a;
  int scores, labels, weight, out, lp, ret;

  if ((ret = simnpu__onnx_in (c, 0, &scores)) < 0
      || (ret = simnpu__onnx_in (c, 1, &labels)) < 0
      || (ret = simnpu__onnx_opt_in (c, 2, &weight)) < 0
      || (ret = simnpu__onnx_check_outputs (c, 2)) < 0
      || (ret = simnpu__onnx_out (c, 0, &out)) < 0)
    return ret;
  if (T (c, scores)->rank < 2)
    return simnpu__onnx_err (c, SIMNPU_ESHAPE,
        "scores of rank %u (expected >= 2)", T (c, scores)->rank);
  if (onnx_has_output (c, 1)) {
    if ((ret = simnpu__onnx_out (c, 1, &lp)) < 0)
      return ret;
  } else {
    lp = simnpu__onnx_tmp (c);
  }
  simnpu__onnx_attrs_init (&a);
  a.axis = 1;
  if ((ret =
          simnpu__onnx_emit (c, SIMNPU_IR_LOG_SOFTMAX, &scores, 1, &lp, 1,
              &a)) < 0)
    return ret;
  return onnx_nll (c, lp, labels, weight, out);
}

/* ones on the k-th diagonal of a static 2-D shape: a constant */
static int
simnpu__onnx_imp_eye_like (onnx_ctx * c, const onnx_op * op)
{
  int64_t dims[2], i, kd = simnpu__onnx_attr_int (c, "k", 0);
  simnpu__ir_dtype dtype;
  simnpu__ir_tensor tmp = { 0 };
  int x, kt, out, ret;
  uint8_t *data;
  size_t esize;

  if ((ret = simnpu__onnx_in (c, 0, &x)) < 0)
    return ret;
  if (T (c, x)->rank != 2)
    return simnpu__onnx_err (c, SIMNPU_ESHAPE, "input of rank %u (expected 2)",
        T (c, x)->rank);
  dtype = T (c, x)->dtype;
  if (simnpu__onnx_attr (c, "dtype") != NULL
      && !simnpu__onnx_dtype_from_attr (simnpu__onnx_attr_int (c, "dtype", 0),
          &dtype))
    return simnpu__onnx_err (c, SIMNPU_EUNSUPPORTED, "dtype %s",
        simnpu__onnx_dtype_name ((int32_t) simnpu__onnx_attr_int (c, "dtype",
                0)));
  dims[0] = T (c, x)->dims[0];
  dims[1] = T (c, x)->dims[1];
  if (dims[0] * dims[1] > ONNX_MAX_FOLD_ELEMENTS)
    return simnpu__onnx_err (c, SIMNPU_ENOMEM, "shape too large");
  tmp.dtype = dtype;
  tmp.rank = 2;
  memcpy (tmp.dims, dims, sizeof dims);
  esize = simnpu__ir_dtype_size (dtype);
  data = g_malloc0 (MAX (simnpu__ir_tensor_bytes (&tmp), 1));
  for (i = 0; i < dims[0]; i++) {
    int64_t j = i + kd;
    uint8_t *e;
    if (j < 0 || j >= dims[1])
      continue;
    e = data + (i * dims[1] + j) * esize;
    switch (dtype) {
      case SIMNPU_IR_F32:
        *(float *) e = 1.0f;
        break;
      case SIMNPU_IR_I64:
        *(int64_t *) e = 1;
        break;
      case SIMNPU_IR_I32:
        *(int32_t *) e = 1;
        break;
      default:
        *e = 1;
        break;
    }
  }
  kt = simnpu__onnx_add_const (c, dtype, 2, dims, data);
  g_free (data);
  if ((ret = simnpu__onnx_out (c, 0, &out)) < 0)
    return ret;
  return simnpu__onnx_emit (c, SIMNPU_IR_IDENTITY, &kt, 1, &out, 1, NULL);
}

/* Upsample (opset 9): Resize with asymmetric coordinates, nearest rounding
 * down */
static int
simnpu__onnx_imp_upsample (onnx_ctx * c, const onnx_op * op)
{
  char buf[ONNX_STR_SIZE];
  const char *mode =
      simnpu__onnx_attr_str (c, "mode", "nearest", buf, sizeof buf);
  const simnpu__ir_tensor *st;
  simnpu__ir_attrs a;
  int x, ts, ret;
  unsigned i;

  if ((ret = simnpu__onnx_in (c, 0, &x)) < 0
      || (ret = simnpu__onnx_in (c, 1, &ts)) < 0)
    return ret;
  st = T (c, ts);
  if (!st->is_const || st->dtype != SIMNPU_IR_F32)
    return simnpu__onnx_err (c, SIMNPU_EUNSUPPORTED,
        "scales input must be constant (float)");
  if (T (c, x)->rank != ONNX_CONV_RANK
      || simnpu__ir_tensor_elements (st) != ONNX_CONV_RANK)
    return simnpu__onnx_err (c, SIMNPU_EUNSUPPORTED,
        "only rank-4 NCHW with 4 scales is supported");
  simnpu__onnx_attrs_init (&a);
  if (strcmp (mode, "linear") == 0 || strcmp (mode, "bilinear") == 0)
    a.mode = SIMNPU_IR_RESIZE_BILINEAR;
  else if (strcmp (mode, "nearest") != 0)
    return simnpu__onnx_err (c, SIMNPU_EUNSUPPORTED, "mode '%s'", mode);
  a.coord = SIMNPU_IR_COORD_ASYMMETRIC;
  a.nearest = SIMNPU_IR_NEAREST_FLOOR;
  for (i = 0; i < 2; i++)
    if (((const float *) st->data)[i] != 1.0f)
      return simnpu__onnx_err (c, SIMNPU_EUNSUPPORTED,
          "scaling the batch or channel axis is not supported");
  for (i = 0; i < 2; i++) {
    float sc = ((const float *) st->data)[2 + i];
    double o = floor ((double) T (c, x)->dims[2 + i] * sc);
    if (!(o >= 1 && o <= SIMNPU_IR_MAX_ELEMENTS))
      return simnpu__onnx_err (c, SIMNPU_ESHAPE, "scale %g", sc);
    a.ints[i] = (int64_t) o;
    a.f[1 + i] = sc;
  }
  a.n_ints = 2;
  return simnpu__onnx_emit_nhwc (c, SIMNPU_IR_RESIZE, &x, 1, &a);
}

/* x / (bias + alpha / size * sum of squares over a window of channels) ^
 * beta, the sum by a 1x1 convolution with a band of ones */
static int
simnpu__onnx_imp_lrn (onnx_ctx * c, const onnx_op * op)
{
  float alpha = simnpu__onnx_attr_float (c, "alpha", 1e-4f);
  float beta = simnpu__onnx_attr_float (c, "beta", 0.75f);
  float bias = simnpu__onnx_attr_float (c, "bias", 1.0f);
  int64_t size = simnpu__onnx_attr_int (c, "size", 0), ch, o, i, wdims[4];
  int x, sq, sum, sc, den, pw, out, ret, band;
  simnpu__ir_attrs a;
  float *w;

  if ((ret = simnpu__onnx_in (c, 0, &x)) < 0)
    return ret;
  if (T (c, x)->rank != ONNX_CONV_RANK || size < 1)
    return simnpu__onnx_err (c, SIMNPU_EUNSUPPORTED,
        "rank-4 input and size >= 1 " "expected");
  ch = T (c, x)->dims[1];
  if (ch * ch > ONNX_MAX_FOLD_ELEMENTS)
    return simnpu__onnx_err (c, SIMNPU_ENOMEM, "too many channels");
  w = g_new0 (float, MAX (ch * ch, 1));
  for (o = 0; o < ch; o++)
    for (i = MAX (0, o - (size - 1) / 2); i <= MIN (ch - 1, o + size / 2); i++)
      w[o * ch + i] = 1.0f;
  wdims[0] = ch;
  wdims[1] = wdims[2] = 1;
  wdims[3] = ch;
  band = simnpu__onnx_add_const (c, SIMNPU_IR_F32, 4, wdims, w);
  g_free (w);
  sq = simnpu__onnx_tmp (c);
  if ((ret = simnpu__onnx_emit2 (c, SIMNPU_IR_MUL, x, x, sq)) < 0)
    return ret;
  simnpu__onnx_attrs_init (&a);
  sum = simnpu__onnx_tmp (c);
  {
    int ins[2] = { sq, band };
    if ((ret =
            simnpu__onnx_emit_nhwc_to (c, SIMNPU_IR_CONV2D, ins, 2, &a,
                sum)) < 0)
      return ret;
  }
  sc = simnpu__onnx_tmp (c);
  den = simnpu__onnx_tmp (c);
  pw = simnpu__onnx_tmp (c);
  if ((ret =
          simnpu__onnx_emit2 (c, SIMNPU_IR_MUL, sum, simnpu__onnx_scalar_f32 (c,
                  alpha / (float) size), sc)) < 0
      || (ret =
          simnpu__onnx_emit2 (c, SIMNPU_IR_ADD, sc, simnpu__onnx_scalar_f32 (c,
                  bias), den)) < 0
      || (ret =
          simnpu__onnx_emit2 (c, SIMNPU_IR_POW, den, simnpu__onnx_scalar_f32 (c,
                  beta), pw)) < 0 || (ret = simnpu__onnx_out (c, 0, &out)) < 0)
    return ret;
  return simnpu__onnx_emit2 (c, SIMNPU_IR_DIV, x, pw, out);
}

/* a scalar of dtype with value v (small integers) */
static int
onnx_scalar_of (onnx_ctx * c, simnpu__ir_dtype dtype, int v)
{
  uint8_t buf[sizeof (int64_t)] = { 0 };

  switch (dtype) {
    case SIMNPU_IR_F32:{
      float f = (float) v;
      memcpy (buf, &f, sizeof f);
      break;
    }
    case SIMNPU_IR_I64:{
      int64_t i = v;
      memcpy (buf, &i, sizeof i);
      break;
    }
    case SIMNPU_IR_I32:{
      int32_t i = v;
      memcpy (buf, &i, sizeof i);
      break;
    }
    default:
      buf[0] = (uint8_t) v;
      break;
  }
  return simnpu__onnx_add_const (c, dtype, 0, NULL, buf);
}

/* data with data[.., idx[.., i, ..], ..] = updates[.., i, ..] (or += / *=
 * for reduction add / mul): the updates spread over a new axis by a
 * one-hot mask of the indices, reduced over the indices' axis */
static int
simnpu__onnx_imp_scatter_elements (onnx_ctx * c, const onnx_op * op)
{
  char buf[ONNX_STR_SIZE];
  const char *red =
      simnpu__onnx_attr_str (c, "reduction", "none", buf, sizeof buf);
  bool mul = strcmp (red, "mul") == 0, add = strcmp (red, "add") == 0;
  int64_t dd[SIMNPU_IR_MAX_RANK], id[SIMNPU_IR_MAX_RANK];
  int64_t ui[SIMNPU_IR_MAX_RANK], zero = 0, len;
  int data, idx, upd, neg, ii, wrapped, iu, uu, iota, eq, contrib, sum;
  int maskf, hitf, hit, out, ret;
  simnpu__ir_attrs a, cf;
  simnpu__ir_dtype dtype;
  unsigned rank, r, k;
  int32_t axis = 0;

  if ((ret = simnpu__onnx_in (c, 0, &data)) < 0
      || (ret = simnpu__onnx_in (c, 1, &idx)) < 0
      || (ret = simnpu__onnx_in (c, 2, &upd)) < 0)
    return ret;
  if (!mul && !add && strcmp (red, "none") != 0)
    return simnpu__onnx_err (c, SIMNPU_EUNSUPPORTED, "reduction '%s'", red);
  rank = T (c, data)->rank;
  dtype = T (c, data)->dtype;
  if (T (c, idx)->rank != rank || T (c, upd)->rank != rank || rank == 0
      || rank >= SIMNPU_IR_MAX_RANK)
    return simnpu__onnx_err (c, SIMNPU_ESHAPE,
        "indices, updates and data differ " "in rank");
  if ((ret =
          simnpu__onnx_norm_axis (c, simnpu__onnx_attr_int (c, "axis", 0), rank,
              &axis)) < 0)
    return ret;
  memcpy (dd, T (c, data)->dims, sizeof dd);
  memcpy (id, T (c, idx)->dims, sizeof id);
  for (r = 0; r < rank; r++)
    if ((r != (unsigned) axis && id[r] != dd[r])
        || id[r] != T (c, upd)->dims[r])
      return simnpu__onnx_err (c, SIMNPU_EUNSUPPORTED,
          "indices must cover the data " "off the axis and match the updates");
  len = dd[axis];
  neg = simnpu__onnx_tmp (c);
  ii = simnpu__onnx_tmp (c);
  wrapped = simnpu__onnx_tmp (c);
  if ((ret = simnpu__onnx_cast (c, idx, SIMNPU_IR_I64, &idx)) < 0
      || (ret =
          simnpu__onnx_emit2 (c, SIMNPU_IR_LESS, idx, simnpu__onnx_add_const (c,
                  SIMNPU_IR_I64, 0, NULL, &zero), neg)) < 0
      || (ret =
          simnpu__onnx_emit2 (c, SIMNPU_IR_ADD, idx, simnpu__onnx_add_const (c,
                  SIMNPU_IR_I64, 0, NULL, &len), ii)) < 0)
    return ret;
  {
    int ins[3] = { neg, ii, idx };
    if ((ret =
            simnpu__onnx_emit (c, SIMNPU_IR_WHERE, ins, 3, &wrapped, 1,
                NULL)) < 0)
      return ret;
  }
  for (r = 0, k = 0; r < rank; r++) {
    ui[k++] = id[r];
    if (r == (unsigned) axis)
      ui[k++] = 1;
  }
  iu = simnpu__onnx_tmp (c);
  uu = simnpu__onnx_tmp (c);
  eq = simnpu__onnx_tmp (c);
  contrib = simnpu__onnx_tmp (c);
  sum = simnpu__onnx_tmp (c);
  if ((ret = simnpu__onnx_emit_reshape (c, wrapped, iu, ui, rank + 1)) < 0
      || (ret = simnpu__onnx_emit_reshape (c, upd, uu, ui, rank + 1)) < 0
      || (ret =
          simnpu__onnx_iota_on_axis (c, len, rank + 1, axis + 1, &iota)) < 0
      || (ret = simnpu__onnx_emit2 (c, SIMNPU_IR_EQUAL, iu, iota, eq)) < 0)
    return ret;
  {
    int ins[3] = { eq, uu, onnx_scalar_of (c, dtype, mul ? 1 : 0) };
    if ((ret =
            simnpu__onnx_emit (c, SIMNPU_IR_WHERE, ins, 3, &contrib, 1,
                NULL)) < 0)
      return ret;
  }
  simnpu__onnx_attrs_init (&a);
  a.ints[0] = axis;
  a.n_ints = 1;
  if ((ret =
          simnpu__onnx_emit (c,
              mul ? SIMNPU_IR_REDUCE_PROD : SIMNPU_IR_REDUCE_SUM, &contrib, 1,
              &sum, 1, &a)) < 0 || (ret = simnpu__onnx_out (c, 0, &out)) < 0)
    return ret;
  if (add || mul)
    return simnpu__onnx_emit2 (c, add ? SIMNPU_IR_ADD : SIMNPU_IR_MUL, data,
        sum, out);
  /* where any index hit, the update; elsewhere the data */
  simnpu__onnx_attrs_init (&cf);
  cf.dtype = SIMNPU_IR_F32;
  hit = simnpu__onnx_tmp (c);
  if ((ret = simnpu__onnx_emit1 (c, SIMNPU_IR_CAST, eq, &maskf, &cf)) < 0
      || (ret =
          simnpu__onnx_emit1 (c, SIMNPU_IR_REDUCE_MAX, maskf, &hitf, &a)) < 0
      || (ret =
          simnpu__onnx_emit2 (c, SIMNPU_IR_GREATER, hitf,
              simnpu__onnx_scalar_f32 (c, 0.0f), hit)) < 0)
    return ret;
  {
    int ins[3] = { hit, sum, data };
    return simnpu__onnx_emit (c, SIMNPU_IR_WHERE, ins, 3, &out, 1, NULL);
  }
}

/* data[idx[.., 0], .., idx[.., k - 1]] as a gather along the first axis
 * of data reshaped to [d0 * .. * d(k-1), rest], by the linear index
 * sum (idx * strides) */
static int
simnpu__onnx_imp_gather_nd (onnx_ctx * c, const onnx_op * op)
{
  int64_t dd[SIMNPU_IR_MAX_RANK], st[SIMNPU_IR_MAX_RANK], flat[1 +
      SIMNPU_IR_MAX_RANK], kdim[1], zero = 0, p = 1;
  int data, idx, neg, ii, wrapped, sc, lin, df, out, ret, j;
  unsigned rank, qr, r;
  simnpu__ir_attrs a;
  int64_t k;

  if ((ret = simnpu__onnx_in (c, 0, &data)) < 0
      || (ret = simnpu__onnx_in (c, 1, &idx)) < 0)
    return ret;
  if (simnpu__onnx_attr_int (c, "batch_dims", 0) != 0)
    return simnpu__onnx_err (c, SIMNPU_EUNSUPPORTED, "batch_dims other than 0");
  rank = T (c, data)->rank;
  qr = T (c, idx)->rank;
  if (qr == 0)
    return simnpu__onnx_err (c, SIMNPU_ESHAPE, "scalar indices");
  k = T (c, idx)->dims[qr - 1];
  if (k < 1 || k > rank)
    return simnpu__onnx_err (c, SIMNPU_ESHAPE,
        "index tuples of %" G_GINT64_FORMAT " for data of rank %u", k, rank);
  memcpy (dd, T (c, data)->dims, sizeof dd);
  for (j = (int) k - 1; j >= 0; j--) {
    st[j] = p;
    p *= dd[j];
  }
  kdim[0] = k;
  neg = simnpu__onnx_tmp (c);
  ii = simnpu__onnx_tmp (c);
  wrapped = simnpu__onnx_tmp (c);
  sc = simnpu__onnx_tmp (c);
  if ((ret = simnpu__onnx_cast (c, idx, SIMNPU_IR_I64, &idx)) < 0
      || (ret =
          simnpu__onnx_emit2 (c, SIMNPU_IR_LESS, idx, simnpu__onnx_add_const (c,
                  SIMNPU_IR_I64, 0, NULL, &zero), neg)) < 0
      || (ret =
          simnpu__onnx_emit2 (c, SIMNPU_IR_ADD, idx, simnpu__onnx_add_const (c,
                  SIMNPU_IR_I64, 1, kdim, dd), ii)) < 0)
    return ret;
  {
    int ins[3] = { neg, ii, idx };
    if ((ret =
            simnpu__onnx_emit (c, SIMNPU_IR_WHERE, ins, 3, &wrapped, 1,
                NULL)) < 0)
      return ret;
  }
  simnpu__onnx_attrs_init (&a);
  a.ints[0] = qr - 1;
  a.n_ints = 1;
  if ((ret =
          simnpu__onnx_emit2 (c, SIMNPU_IR_MUL, wrapped,
              simnpu__onnx_add_const (c, SIMNPU_IR_I64, 1, kdim, st), sc)) < 0
      || (ret = simnpu__onnx_emit1 (c, SIMNPU_IR_REDUCE_SUM, sc, &lin, &a)) < 0)
    return ret;
  flat[0] = p;
  for (r = k; r < rank; r++)
    flat[1 + r - k] = dd[r];
  df = simnpu__onnx_tmp (c);
  if ((ret = simnpu__onnx_emit_reshape (c, data, df, flat, 1 + rank - k)) < 0
      || (ret = simnpu__onnx_out (c, 0, &out)) < 0)
    return ret;
  simnpu__onnx_attrs_init (&a);
  {
    int gi[2] = { df, lin };
    return simnpu__onnx_emit (c, SIMNPU_IR_GATHER, gi, 2, &out, 1, &a);
  }
}

/* TopK's k stays under the IR's concat inputs */
#define ONNX_MAX_TOPK SIMNPU_IR_MAX_INPUTS

/* k rounds of argmax (argmin) along the axis, each masking its pick with
 * -inf (+inf): sorted values and indices, ties to the lower index */
static int
simnpu__onnx_imp_topk (onnx_ctx * c, const onnx_op * op)
{
  bool largest = simnpu__onnx_attr_int (c, "largest", 1) != 0;
  int vals[ONNX_MAX_TOPK], idxs[ONNX_MAX_TOPK];
  int x, tk, cur, iota, vo, io, ret, n, i;
  simnpu__ir_attrs a, cat;
  unsigned rank;
  int64_t k;

  if ((ret = simnpu__onnx_in (c, 0, &x)) < 0
      || (ret = simnpu__onnx_in (c, 1, &tk)) < 0
      || (ret = simnpu__onnx_const_ints (c, tk, "k", &k, 1, &n)) < 0)
    return ret;
  rank = T (c, x)->rank;
  if (T (c, x)->dtype != SIMNPU_IR_F32)
    return simnpu__onnx_err (c, SIMNPU_EUNSUPPORTED, "%s input (float only)",
        simnpu__ir_dtype_name (T (c, x)->dtype));
  simnpu__onnx_attrs_init (&a);
  if (rank == 0
      || (ret =
          simnpu__onnx_norm_axis (c, simnpu__onnx_attr_int (c, "axis", -1),
              rank, &a.axis)) < 0)
    return rank == 0 ? simnpu__onnx_err (c, SIMNPU_ESHAPE,
        "scalar input") : ret;
  if (n != 1 || k < 1 || k > ONNX_MAX_TOPK || k > T (c, x)->dims[a.axis])
    return simnpu__onnx_err (c, SIMNPU_EUNSUPPORTED, "k must be 1 to %d and at "
        "most the axis' size", ONNX_MAX_TOPK);
  a.keepdims = true;
  if ((ret = simnpu__onnx_iota_on_axis (c, T (c, x)->dims[a.axis], rank, a.axis,
              &iota)) < 0
      || (ret = simnpu__onnx_out (c, 0, &vo)) < 0
      || (ret = simnpu__onnx_out (c, 1, &io)) < 0)
    return ret;
  cur = x;
  for (i = 0; i < k; i++) {
    int hit, masked;
    if ((ret =
            simnpu__onnx_emit1 (c,
                largest ? SIMNPU_IR_ARGMAX : SIMNPU_IR_ARGMIN, cur, &idxs[i],
                &a)) < 0)
      return ret;
    vals[i] = simnpu__onnx_tmp (c);
    if ((ret =
            simnpu__onnx_gather_elements (c, x, idxs[i], a.axis, vals[i])) < 0)
      return ret;
    if (i + 1 == k)
      break;
    hit = simnpu__onnx_tmp (c);
    masked = simnpu__onnx_tmp (c);
    if ((ret = simnpu__onnx_emit2 (c, SIMNPU_IR_EQUAL, idxs[i], iota, hit)) < 0)
      return ret;
    {
      int ins[3] = { hit, simnpu__onnx_scalar_f32 (c, largest ? -INFINITY :
            INFINITY), cur
      };
      if ((ret =
              simnpu__onnx_emit (c, SIMNPU_IR_WHERE, ins, 3, &masked, 1,
                  NULL)) < 0)
        return ret;
    }
    cur = masked;
  }
  simnpu__onnx_attrs_init (&cat);
  cat.axis = a.axis;
  if ((ret =
          simnpu__onnx_emit (c, k == 1 ? SIMNPU_IR_IDENTITY : SIMNPU_IR_CONCAT,
              vals, k, &vo, 1, &cat)) < 0)
    return ret;
  return simnpu__onnx_emit (c, k == 1 ? SIMNPU_IR_IDENTITY : SIMNPU_IR_CONCAT,
      idxs, k, &io, 1, &cat);
}

/* x != x */
static int
simnpu__onnx_imp_isnan (onnx_ctx * c, const onnx_op * op)
{
  int x, eq, out, ret;

  if ((ret = simnpu__onnx_in (c, 0, &x)) < 0
      || (ret = simnpu__onnx_out (c, 0, &out)) < 0)
    return ret;
  eq = simnpu__onnx_tmp (c);
  if ((ret = simnpu__onnx_emit2 (c, SIMNPU_IR_EQUAL, x, x, eq)) < 0)
    return ret;
  return simnpu__onnx_emit (c, SIMNPU_IR_NOT, &eq, 1, &out, 1, NULL);
}

/* |x| == inf, or x == +inf / -inf when only one sign is detected */
static int
simnpu__onnx_imp_isinf (onnx_ctx * c, const onnx_op * op)
{
  bool pos = simnpu__onnx_attr_int (c, "detect_positive", 1) != 0;
  bool neg = simnpu__onnx_attr_int (c, "detect_negative", 1) != 0;
  int x, v, out, ret;

  if ((ret = simnpu__onnx_in (c, 0, &x)) < 0
      || (ret = simnpu__onnx_out (c, 0, &out)) < 0)
    return ret;
  if (!pos && !neg) {
    int eq = simnpu__onnx_tmp (c);
    /* never true: x == x and x != x */
    if ((ret = simnpu__onnx_emit2 (c, SIMNPU_IR_EQUAL, x, x, eq)) < 0)
      return ret;
    v = simnpu__onnx_tmp (c);
    if ((ret = simnpu__onnx_emit (c, SIMNPU_IR_NOT, &eq, 1, &v, 1, NULL)) < 0)
      return ret;
    return simnpu__onnx_emit2 (c, SIMNPU_IR_AND, eq, v, out);
  }
  v = x;
  if (pos && neg
      && (ret = simnpu__onnx_emit1 (c, SIMNPU_IR_ABS, x, &v, NULL)) < 0)
    return ret;
  return simnpu__onnx_emit2 (c, SIMNPU_IR_EQUAL, v, simnpu__onnx_scalar_f32 (c,
          neg && !pos ? -INFINITY : INFINITY), out);
}

/* alpha * elu (x / alpha) */
static int
simnpu__onnx_imp_celu (onnx_ctx * c, const onnx_op * op)
{
  float alpha = simnpu__onnx_attr_float (c, "alpha", 1.0f);
  simnpu__ir_attrs a;
  int x, d, e, out, ret;

  if (alpha == 0.0f)
    return simnpu__onnx_err (c, SIMNPU_EFORMAT, "alpha 0");
  simnpu__onnx_attrs_init (&a);
  a.f[0] = 1.0f;
  if ((ret = simnpu__onnx_in (c, 0, &x)) < 0
      || (ret = onnx_scale (c, x, 1.0f / alpha, &d)) < 0
      || (ret = simnpu__onnx_emit1 (c, SIMNPU_IR_ELU, d, &e, &a)) < 0
      || (ret = simnpu__onnx_out (c, 0, &out)) < 0)
    return ret;
  {
    int pair[2] = { e, simnpu__onnx_scalar_f32 (c, alpha) };
    return simnpu__onnx_emit (c, SIMNPU_IR_MUL, pair, 2, &out, 1, NULL);
  }
}

/* sin / cos */
static int
simnpu__onnx_imp_tan (onnx_ctx * c, const onnx_op * op)
{
  int x, s, co, out, ret;

  if ((ret = simnpu__onnx_in (c, 0, &x)) < 0
      || (ret = simnpu__onnx_emit1 (c, SIMNPU_IR_SIN, x, &s, NULL)) < 0
      || (ret = simnpu__onnx_emit1 (c, SIMNPU_IR_COS, x, &co, NULL)) < 0
      || (ret = simnpu__onnx_out (c, 0, &out)) < 0)
    return ret;
  {
    int pair[2] = { s, co };
    return simnpu__onnx_emit (c, SIMNPU_IR_DIV, pair, 2, &out, 1, NULL);
  }
}

static const onnx_op onnx_ops[] = {
  {"Abs", simnpu__onnx_imp_unary, SIMNPU_IR_ABS, 6},
  {"Acosh", simnpu__onnx_imp_hyperbolic, SIMNPU_IR_LOG, 9},
  {"Add", simnpu__onnx_imp_binary, SIMNPU_IR_ADD, 7},
  {"And", simnpu__onnx_imp_binary, SIMNPU_IR_AND, 7},
  {"ArgMax", simnpu__onnx_imp_arg, SIMNPU_IR_ARGMAX, 1},
  {"ArgMin", simnpu__onnx_imp_arg, SIMNPU_IR_ARGMIN, 1},
  {"Asinh", simnpu__onnx_imp_hyperbolic, SIMNPU_IR_LOG, 9},
  {"Atanh", simnpu__onnx_imp_hyperbolic, SIMNPU_IR_LOG, 9},
  {"AveragePool", simnpu__onnx_imp_pool, SIMNPU_IR_AVGPOOL, 1},
  {"BatchNormalization", simnpu__onnx_imp_batchnorm, SIMNPU_IR_BATCHNORM, 9},
  {"Cast", simnpu__onnx_imp_cast, SIMNPU_IR_CAST, 6},
  {"CastLike", simnpu__onnx_imp_cast, SIMNPU_IR_CAST},
  {"Ceil", simnpu__onnx_imp_unary, SIMNPU_IR_CEIL, 6},
  {"Celu", simnpu__onnx_imp_celu, SIMNPU_IR_ELU},
  {"Clip", simnpu__onnx_imp_clip, SIMNPU_IR_CLIP, 6},
  {"Concat", simnpu__onnx_imp_concat, SIMNPU_IR_CONCAT, 4},
  {"Constant", simnpu__onnx_imp_constant, SIMNPU_IR_IDENTITY, 1},
  {"ConstantOfShape", simnpu__onnx_imp_constant_of_shape, SIMNPU_IR_IDENTITY,
      9},
  {"Conv", simnpu__onnx_imp_conv, SIMNPU_IR_CONV2D, 1},
  {"ConvTranspose", simnpu__onnx_imp_conv_transpose, SIMNPU_IR_CONV2D, 11},
  {"Cos", simnpu__onnx_imp_unary, SIMNPU_IR_COS, 7},
  {"Cosh", simnpu__onnx_imp_hyperbolic, SIMNPU_IR_EXP, 9},
  {"CumSum", simnpu__onnx_imp_cumsum, SIMNPU_IR_MATMUL, 11},
  {"DepthToSpace", simnpu__onnx_imp_depth_space, SIMNPU_IR_DEPTH_TO_SPACE, 1},
  {"DequantizeLinear", simnpu__onnx_imp_dequantize, SIMNPU_IR_MUL, 10},
  {"Div", simnpu__onnx_imp_binary, SIMNPU_IR_DIV, 7},
  {"Dropout", simnpu__onnx_imp_dropout, SIMNPU_IR_IDENTITY, 7},
  {"DynamicQuantizeLinear", simnpu__onnx_imp_dynamic_quantize, SIMNPU_IR_CAST,
      11},
  {"Elu", simnpu__onnx_imp_unary, SIMNPU_IR_ELU, 6},
  {"Equal", simnpu__onnx_imp_binary, SIMNPU_IR_EQUAL, 7},
  {"Erf", simnpu__onnx_imp_unary, SIMNPU_IR_ERF, 9},
  {"Exp", simnpu__onnx_imp_unary, SIMNPU_IR_EXP, 6},
  {"Expand", simnpu__onnx_imp_expand, SIMNPU_IR_EXPAND, 8},
  {"EyeLike", simnpu__onnx_imp_eye_like, SIMNPU_IR_IDENTITY, 9},
  {"Flatten", simnpu__onnx_imp_flatten, SIMNPU_IR_RESHAPE, 1},
  {"Floor", simnpu__onnx_imp_unary, SIMNPU_IR_FLOOR, 6},
  {"Gather", simnpu__onnx_imp_gather, SIMNPU_IR_GATHER, 1},
  {"GatherElements", simnpu__onnx_imp_gather_elements, SIMNPU_IR_REDUCE_SUM,
      11},
  {"GatherND", simnpu__onnx_imp_gather_nd, SIMNPU_IR_GATHER, 11},
  {"Gemm", simnpu__onnx_imp_gemm, SIMNPU_IR_MATMUL},
  {"GlobalAveragePool", simnpu__onnx_imp_global_pool, SIMNPU_IR_AVGPOOL, 1},
  {"GlobalMaxPool", simnpu__onnx_imp_global_pool, SIMNPU_IR_MAXPOOL, 1},
  {"Greater", simnpu__onnx_imp_binary, SIMNPU_IR_GREATER, 7},
  {"GreaterOrEqual", simnpu__onnx_imp_binary, SIMNPU_IR_GREATER_EQUAL},
  {"HardSigmoid", simnpu__onnx_imp_unary, SIMNPU_IR_HARD_SIGMOID, 6},
  {"HardSwish", simnpu__onnx_imp_unary, SIMNPU_IR_HARD_SWISH},
  {"Hardmax", simnpu__onnx_imp_hardmax, SIMNPU_IR_ARGMAX, 13},
  {"Identity", simnpu__onnx_imp_identity, SIMNPU_IR_IDENTITY, 1},
  {"InstanceNormalization", simnpu__onnx_imp_instance_norm,
      SIMNPU_IR_REDUCE_MEAN, 6},
  {"IsInf", simnpu__onnx_imp_isinf, SIMNPU_IR_EQUAL, 10},
  {"IsNaN", simnpu__onnx_imp_isnan, SIMNPU_IR_EQUAL, 9},
  {"LRN", simnpu__onnx_imp_lrn, SIMNPU_IR_CONV2D, 1},
  {"LayerNormalization", simnpu__onnx_imp_layer_norm, SIMNPU_IR_REDUCE_MEAN},
  {"LeakyRelu", simnpu__onnx_imp_unary, SIMNPU_IR_LEAKY_RELU, 6},
  {"Less", simnpu__onnx_imp_binary, SIMNPU_IR_LESS, 7},
  {"LessOrEqual", simnpu__onnx_imp_binary, SIMNPU_IR_LESS_EQUAL},
  {"Log", simnpu__onnx_imp_unary, SIMNPU_IR_LOG, 6},
  {"LogSoftmax", simnpu__onnx_imp_softmax, SIMNPU_IR_LOG_SOFTMAX, 1},
  {"MatMul", simnpu__onnx_imp_matmul, SIMNPU_IR_MATMUL, 1},
  {"Max", simnpu__onnx_imp_variadic, SIMNPU_IR_MAXIMUM, 8},
  {"MaxPool", simnpu__onnx_imp_pool, SIMNPU_IR_MAXPOOL, 1},
  {"Mean", simnpu__onnx_imp_variadic, SIMNPU_IR_ADD, 8},
  {"MeanVarianceNormalization", simnpu__onnx_imp_mvn, SIMNPU_IR_REDUCE_MEAN, 9},
  {"Min", simnpu__onnx_imp_variadic, SIMNPU_IR_MINIMUM, 8},
  {"Mish", simnpu__onnx_imp_mish, SIMNPU_IR_MUL},
  {"Mod", simnpu__onnx_imp_mod, SIMNPU_IR_FLOOR_MOD, 10},
  {"Mul", simnpu__onnx_imp_binary, SIMNPU_IR_MUL, 7},
  {"Neg", simnpu__onnx_imp_unary, SIMNPU_IR_NEG, 6},
  {"NegativeLogLikelihoodLoss", simnpu__onnx_imp_nll_loss, SIMNPU_IR_NEG, 13},
  {"Not", simnpu__onnx_imp_unary, SIMNPU_IR_NOT, 1},
  {"OneHot", simnpu__onnx_imp_onehot, SIMNPU_IR_WHERE, 11},
  {"Or", simnpu__onnx_imp_binary, SIMNPU_IR_OR, 7},
  {"PRelu", simnpu__onnx_imp_binary, SIMNPU_IR_PRELU, 7},
  {"Pad", simnpu__onnx_imp_pad, SIMNPU_IR_PAD, 2},
  {"Pow", simnpu__onnx_imp_pow, SIMNPU_IR_POW, 7},
  {"QuantizeLinear", simnpu__onnx_imp_quantize, SIMNPU_IR_CAST, 10},
  {"Range", simnpu__onnx_imp_range, SIMNPU_IR_RANGE},
  {"Reciprocal", simnpu__onnx_imp_unary, SIMNPU_IR_RECIPROCAL, 6},
  {"ReduceL1", simnpu__onnx_imp_reduce, SIMNPU_IR_REDUCE_SUM, 1},
  {"ReduceL2", simnpu__onnx_imp_reduce, SIMNPU_IR_REDUCE_SUM, 1},
  {"ReduceLogSum", simnpu__onnx_imp_reduce, SIMNPU_IR_REDUCE_SUM, 1},
  {"ReduceLogSumExp", simnpu__onnx_imp_reduce, SIMNPU_IR_REDUCE_SUM, 1},
  {"ReduceMax", simnpu__onnx_imp_reduce, SIMNPU_IR_REDUCE_MAX, 1},
  {"ReduceMean", simnpu__onnx_imp_reduce, SIMNPU_IR_REDUCE_MEAN, 1},
  {"ReduceMin", simnpu__onnx_imp_reduce, SIMNPU_IR_REDUCE_MIN, 1},
  {"ReduceProd", simnpu__onnx_imp_reduce, SIMNPU_IR_REDUCE_PROD, 1},
  {"ReduceSum", simnpu__onnx_imp_reduce, SIMNPU_IR_REDUCE_SUM, 1},
  {"ReduceSumSquare", simnpu__onnx_imp_reduce, SIMNPU_IR_REDUCE_SUM, 1},
  {"Relu", simnpu__onnx_imp_unary, SIMNPU_IR_RELU, 6},
  {"Reshape", simnpu__onnx_imp_reshape, SIMNPU_IR_RESHAPE, 5},
  {"Resize", simnpu__onnx_imp_resize, SIMNPU_IR_RESIZE},
  {"Round", simnpu__onnx_imp_unary, SIMNPU_IR_ROUND},
  {"Scatter", simnpu__onnx_imp_scatter_elements, SIMNPU_IR_WHERE, 9},
  {"ScatterElements", simnpu__onnx_imp_scatter_elements, SIMNPU_IR_WHERE, 11},
  {"Selu", simnpu__onnx_imp_unary, SIMNPU_IR_SELU, 6},
  {"Shape", simnpu__onnx_imp_shape, SIMNPU_IR_SHAPE, 1},
  {"Shrink", simnpu__onnx_imp_shrink, SIMNPU_IR_WHERE, 9},
  {"Sigmoid", simnpu__onnx_imp_unary, SIMNPU_IR_SIGMOID, 6},
  {"Sign", simnpu__onnx_imp_unary, SIMNPU_IR_SIGN, 9},
  {"Sin", simnpu__onnx_imp_unary, SIMNPU_IR_SIN, 7},
  {"Sinh", simnpu__onnx_imp_hyperbolic, SIMNPU_IR_EXP, 9},
  {"Size", simnpu__onnx_imp_shape, SIMNPU_IR_SHAPE, 1},
  {"Slice", simnpu__onnx_imp_slice, SIMNPU_IR_SLICE, 10},
  {"Softmax", simnpu__onnx_imp_softmax, SIMNPU_IR_SOFTMAX, 1},
  {"SoftmaxCrossEntropyLoss", simnpu__onnx_imp_sce_loss, SIMNPU_IR_LOG_SOFTMAX,
      13},
  {"Softplus", simnpu__onnx_imp_unary, SIMNPU_IR_SOFTPLUS, 1},
  {"Softsign", simnpu__onnx_imp_unary, SIMNPU_IR_SOFTSIGN, 1},
  {"SpaceToDepth", simnpu__onnx_imp_depth_space, SIMNPU_IR_SPACE_TO_DEPTH, 1},
  {"Split", simnpu__onnx_imp_split, SIMNPU_IR_SPLIT, 2},
  {"Sqrt", simnpu__onnx_imp_unary, SIMNPU_IR_SQRT, 6},
  {"Squeeze", simnpu__onnx_imp_squeeze, SIMNPU_IR_RESHAPE, 1},
  {"Sub", simnpu__onnx_imp_binary, SIMNPU_IR_SUB, 7},
  {"Sum", simnpu__onnx_imp_variadic, SIMNPU_IR_ADD, 8},
  {"Tan", simnpu__onnx_imp_tan, SIMNPU_IR_DIV, 7},
  {"Tanh", simnpu__onnx_imp_unary, SIMNPU_IR_TANH, 6},
  {"ThresholdedRelu", simnpu__onnx_imp_thresholded_relu, SIMNPU_IR_WHERE, 10},
  {"Tile", simnpu__onnx_imp_tile, SIMNPU_IR_TILE, 6},
  {"TopK", simnpu__onnx_imp_topk, SIMNPU_IR_ARGMAX, 11},
  {"Transpose", simnpu__onnx_imp_transpose, SIMNPU_IR_TRANSPOSE, 1},
  {"Trilu", simnpu__onnx_imp_trilu, SIMNPU_IR_WHERE, 14},
  {"Unsqueeze", simnpu__onnx_imp_squeeze, SIMNPU_IR_IDENTITY, 1},
  {"Upsample", simnpu__onnx_imp_upsample, SIMNPU_IR_RESIZE, 9},
  {"Where", simnpu__onnx_imp_where, SIMNPU_IR_WHERE, 9},
  {"Xor", simnpu__onnx_imp_binary, SIMNPU_IR_XOR, 7},
};

static const onnx_op *
onnx_find_op (const char *name)
{
  unsigned i;
  for (i = 0; i < G_N_ELEMENTS (onnx_ops); i++)
    if (strcmp (onnx_ops[i].name, name) == 0)
      return &onnx_ops[i];
  return NULL;
}

/* ------------------------------------------------------------------ */
/* The model */

static int
onnx_opset (const Onnx__ModelProto * m, int *opset, simnpu_error * error)
{
  size_t i;

  *opset = -1;
  for (i = 0; i < m->n_opset_import; i++) {
    const Onnx__OperatorSetIdProto *o = m->opset_import[i];
    if (o->domain == NULL || o->domain[0] == '\0'
        || strcmp (o->domain, "ai.onnx") == 0)
      *opset = o->has_version ? (int) CLAMP (o->version, -1, G_MAXINT) : -1;
  }
  if (*opset < 0)
    return simnpu__set_error (error, m->n_opset_import > 0 ?
        SIMNPU_EUNSUPPORTED : SIMNPU_EFORMAT,
        "model: opset_import has no version for the default ONNX domain "
        "(other domains are not supported)");
  if (*opset < ONNX_OLDEST_OPSET || *opset > ONNX_MAX_OPSET)
    return simnpu__set_error (error, SIMNPU_EUNSUPPORTED,
        "model: opset %d is not supported (expected %d to %d: opsets %d "
        "to %d, and older ones for ops unchanged since; convert the model "
        "with onnx.version_converter)", *opset, ONNX_OLDEST_OPSET,
        ONNX_MAX_OPSET, ONNX_MIN_OPSET, ONNX_MAX_OPSET);
  return 0;
}

static int
onnx_add_input (onnx_ctx * c, const Onnx__ValueInfoProto * vi)
{
  const Onnx__TypeProto__Tensor *tt;
  simnpu__ir_dtype dtype;
  int64_t dims[SIMNPU_IR_MAX_RANK];
  size_t i;
  int t;

  if (vi->name == NULL || vi->name[0] == '\0')
    return simnpu__set_error (c->error, SIMNPU_EFORMAT,
        "graph input without a name");
  if (simnpu__onnx_lookup (c, vi->name) != SIMNPU_IR_NONE)
    return 0;                   /* an initializer's default: a constant */
  if (vi->type == NULL
      || vi->type->value_case != ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE
      || vi->type->tensor_type == NULL)
    return simnpu__set_error (c->error, SIMNPU_EUNSUPPORTED,
        "graph input '%s': not a tensor", vi->name);
  tt = vi->type->tensor_type;
  if (!simnpu__onnx_dtype_to_ir (tt->has_elem_type ? tt->elem_type : 0, &dtype))
    return simnpu__set_error (c->error, SIMNPU_EUNSUPPORTED,
        "graph input '%s': data type %s is not supported", vi->name,
        simnpu__onnx_dtype_name (tt->elem_type));
  if (tt->shape == NULL)
    return simnpu__set_error (c->error, SIMNPU_EUNSUPPORTED,
        "graph input '%s': no shape", vi->name);
  if (tt->shape->n_dim > SIMNPU_IR_MAX_RANK)
    return simnpu__set_error (c->error, SIMNPU_EUNSUPPORTED,
        "graph input '%s': rank %zu above %d", vi->name, tt->shape->n_dim,
        SIMNPU_IR_MAX_RANK);
  for (i = 0; i < tt->shape->n_dim; i++) {
    const Onnx__TensorShapeProto__Dimension *d = tt->shape->dim[i];
    dims[i] = 1;
    if (d->value_case == ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_VALUE) {
      if (d->dim_value < 0 || d->dim_value > SIMNPU_IR_MAX_ELEMENTS)
        return simnpu__set_error (c->error, SIMNPU_EFORMAT,
            "graph input '%s': dimension %zu is %" G_GINT64_FORMAT,
            vi->name, i, d->dim_value);
      dims[i] = d->dim_value;
    }
  }
  if (c->g->n_inputs >= SIMNPU_IR_MAX_INPUTS)
    return simnpu__set_error (c->error, SIMNPU_EUNSUPPORTED,
        "more than %d graph inputs", SIMNPU_IR_MAX_INPUTS);
  t = simnpu__ir_add_tensor (c->g, vi->name, dtype, tt->shape->n_dim, dims);
  simnpu__onnx_bind (c, vi->name, t);
  c->g->inputs[c->g->n_inputs++] = t;
  return 0;
}

static int
onnx_import_graph (onnx_ctx * c, const Onnx__GraphProto * gp)
{
  size_t i;
  int ret;

  for (i = 0; i < gp->n_initializer; i++) {
    const Onnx__TensorProto *tp = gp->initializer[i];
    simnpu__ir_dtype dtype;
    unsigned rank;
    int64_t dims[SIMNPU_IR_MAX_RANK];
    void *data;
    gchar *what;
    int t;

    if (tp->name == NULL || tp->name[0] == '\0')
      return simnpu__set_error (c->error, SIMNPU_EFORMAT,
          "initializer %zu has no name", i);
    what = g_strdup_printf ("initializer '%s'", tp->name);
    ret = simnpu__onnx_tensor_from_proto (tp, what, &dtype, &rank, dims, &data,
        c->error);
    g_free (what);
    if (ret < 0)
      return ret;
    if (c->g->n_tensors >= SIMNPU_IR_MAX_TENSORS) {
      g_free (data);
      return simnpu__set_error (c->error, SIMNPU_ENOMEM,
          "more than %d tensors", SIMNPU_IR_MAX_TENSORS);
    }
    t = simnpu__ir_add_const (c->g, tp->name, dtype, rank, dims, data);
    simnpu__onnx_bind (c, tp->name, t);
  }
  if (gp->n_sparse_initializer > 0)
    return simnpu__set_error (c->error, SIMNPU_EUNSUPPORTED,
        "sparse initializers are not supported");
  for (i = 0; i < gp->n_input; i++)
    if ((ret = onnx_add_input (c, gp->input[i])) < 0)
      return ret;

  for (i = 0; i < gp->n_node; i++) {
    const Onnx__NodeProto *n = gp->node[i];
    const onnx_op *op;
    gchar *fallback = NULL;

    c->node = n;
    if (n->name != NULL && n->name[0] != '\0')
      c->node_name = n->name;
    else if (n->n_output > 0 && n->output[0] != NULL && n->output[0][0])
      c->node_name = n->output[0];
    else
      c->node_name = fallback = g_strdup_printf ("#%zu", i);
    if (n->op_type == NULL) {
      ret = simnpu__set_error (c->error, SIMNPU_EFORMAT,
          "node '%s' has no op_type", c->node_name);
    } else if (n->domain != NULL && n->domain[0] != '\0'
        && strcmp (n->domain, "ai.onnx") != 0) {
      ret =
          simnpu__onnx_err (c, SIMNPU_EUNSUPPORTED,
          "domain '%s' is not supported", n->domain);
    } else if ((op = onnx_find_op (n->op_type)) == NULL) {
      ret =
          simnpu__onnx_err (c, SIMNPU_EUNSUPPORTED, "op '%s' is not supported",
          n->op_type);
    } else if (c->opset < (op->min_opset ? op->min_opset : ONNX_MIN_OPSET)) {
      ret = simnpu__onnx_err (c, SIMNPU_EUNSUPPORTED,
          "model opset %d is not supported for this op (expected %d to %d; "
          "convert the model with onnx.version_converter)", c->opset,
          op->min_opset ? op->min_opset : ONNX_MIN_OPSET, ONNX_MAX_OPSET);
    } else if (c->g->n_tensors >= SIMNPU_IR_MAX_TENSORS - SIMNPU_IR_MAX_RANK
        * SIMNPU_IR_MAX_OUTPUTS) {
      ret = simnpu__onnx_err (c, SIMNPU_ENOMEM, "more than %d tensors",
          SIMNPU_IR_MAX_TENSORS);
    } else {
      ret = op->fn (c, op);
    }
    g_free (fallback);
    if (ret < 0)
      return ret;
  }

  for (i = 0; i < gp->n_output; i++) {
    const char *name = gp->output[i]->name;
    int t = name != NULL ? simnpu__onnx_lookup (c, name) : SIMNPU_IR_NONE;
    if (t == SIMNPU_IR_NONE)
      return simnpu__set_error (c->error, SIMNPU_EFORMAT,
          "graph output '%s' is not produced by any node, input or "
          "initializer", name ? name : "");
    if (c->g->n_outputs >= SIMNPU_IR_MAX_OUTPUTS)
      return simnpu__set_error (c->error, SIMNPU_EUNSUPPORTED,
          "more than %d graph outputs", SIMNPU_IR_MAX_OUTPUTS);
    c->g->outputs[c->g->n_outputs++] = t;
  }
  if (gp->n_output == 0)
    return simnpu__set_error (c->error, SIMNPU_EFORMAT, "graph has no outputs");
  return simnpu__ir_infer_shapes (c->g, c->error);
}

int
simnpu__onnx_load_data (const void *data, size_t size,
    simnpu__ir_graph ** out, simnpu_error * error)
{
  Onnx__ModelProto *m;
  onnx_ctx c = { 0 };
  int ret;

  *out = NULL;
  if (data == NULL && size > 0)
    return simnpu__set_error (error, SIMNPU_EINVAL, "no data");
  m = onnx__model_proto__unpack (NULL, size, data);
  if (m == NULL)
    return simnpu__set_error (error, SIMNPU_EFORMAT,
        "not a valid ONNX model (%zu bytes; protobuf parse of ModelProto "
        "failed: truncated or not ONNX)", size);
  if (m->graph == NULL) {
    onnx__model_proto__free_unpacked (m, NULL);
    return simnpu__set_error (error, SIMNPU_EFORMAT, "model has no graph");
  }
  if ((ret = onnx_opset (m, &c.opset, error)) < 0) {
    onnx__model_proto__free_unpacked (m, NULL);
    return ret;
  }
  c.g = simnpu__ir_graph_new (m->graph->name ? m->graph->name : "onnx");
  c.names = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  c.error = error;
  ret = onnx_import_graph (&c, m->graph);
  g_hash_table_unref (c.names);
  onnx__model_proto__free_unpacked (m, NULL);
  if (ret < 0) {
    if (error != NULL && error->code == 0)
      simnpu__set_error (error, ret, "ONNX import failed");
    simnpu__ir_graph_free (c.g);
    return ret;
  }
  *out = c.g;
  return 0;
}

int
simnpu__onnx_load_file (const char *path, simnpu__ir_graph ** out,
    simnpu_error * error)
{
  gchar *data = NULL;
  gsize len = 0;
  GError *gerr = NULL;
  GStatBuf st;
  int ret;

  *out = NULL;
  if (g_stat (path, &st) == 0 && st.st_size > ONNX_MAX_FILE_SIZE)
    return simnpu__set_error (error, SIMNPU_ENOMEM,
        "%s: %lld bytes, above the %lld-byte limit", path,
        (long long) st.st_size, (long long) ONNX_MAX_FILE_SIZE);
  if (!g_file_get_contents (path, &data, &len, &gerr)) {
    ret = simnpu__set_error (error, SIMNPU_EIO, "%s: %s", path, gerr->message);
    g_error_free (gerr);
    return ret;
  }
  ret = simnpu__onnx_load_data (data, len, out, error);
  g_free (data);
  if (ret < 0 && error != NULL) {
    gchar *msg = g_strdup (error->message);
    simnpu__set_error (error, ret, "%s: %s", path, msg);
    g_free (msg);
  }
  return ret;
}
