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
 * opset whose definition that function reads.
 *
 * The front-end's files, one concern each:
 *   onnx-private.h      the import context, the op table's record and the
 *                       functions the files share (this file)
 *   onnx.c              the model: opset, initializers, graph inputs and
 *                       outputs, the node loop and the op table
 *   onnx-tensor.c       ONNX data types and TensorProto to IR data
 *   onnx-emit.c         the import context: names, inputs and outputs, IR
 *                       nodes (inferred and folded as they are added),
 *                       NHWC wrapping, attributes and constant inputs
 *   onnx-ops-math.c     element-wise ops and activations, casts, the
 *                       quantize ops, MatMul and Gemm
 *   onnx-ops-reduce.c   reductions and what is built on them: softmax,
 *                       arg max / min, the normalizations, CumSum, losses
 *   onnx-ops-shape.c    shapes and layout: reshapes, transposes, concat,
 *                       split, slice, pad, tile, expand, Shape, constants
 *   onnx-ops-index.c    indexing: Gather*, ScatterElements, OneHot, TopK,
 *                       Trilu
 *   onnx-ops-spatial.c  convolutions, pools, depth / space, Resize */

#ifndef SIMNPU_ONNX_PRIVATE_H
#define SIMNPU_ONNX_PRIVATE_H

#include "compiler.h"
#include "onnx.pb-c.h"

#include <math.h>
#include <string.h>

#define ONNX_CONV_RANK 4
/* constants made at import (folding, ConstantOfShape) stay under this, so
 * a small file cannot make the importer allocate gigabytes */
#define ONNX_MAX_FOLD_ELEMENTS (G_GINT64_CONSTANT (1) << 24)
#define ONNX_STR_SIZE 64

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
  /* the shapes given for inputs the model leaves open (may be NULL), and
   * the model's count of inputs (initializers left out) */
  simnpu__input_shapes *shapes;
  unsigned n_model_inputs;
} onnx_ctx;

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

static inline simnpu__ir_tensor *
T (onnx_ctx * c, int t)
{
  return &c->g->tensors[t];
}

/* ONNX data types and TensorProto (onnx-tensor.c) */
SIMNPU_INTERNAL bool simnpu__onnx_dtype_to_ir (int32_t onnx,
    simnpu__ir_dtype * out);
SIMNPU_INTERNAL const char *simnpu__onnx_dtype_name (int32_t onnx);
SIMNPU_INTERNAL int simnpu__onnx_tensor_from_proto (const Onnx__TensorProto * t,
    const char *what, simnpu__ir_dtype * dtype_out, unsigned *rank_out,
    int64_t * dims_out, void **data_out, simnpu_error * error);
SIMNPU_INTERNAL bool simnpu__onnx_dtype_from_attr (int64_t to,
    simnpu__ir_dtype * d);

/* the import context (onnx-emit.c) */
SIMNPU_INTERNAL int simnpu__onnx_err (onnx_ctx * c, int code,
    const char *fmt, ...) G_GNUC_PRINTF (3, 4);
SIMNPU_INTERNAL int simnpu__onnx_lookup (onnx_ctx * c, const char *name);
SIMNPU_INTERNAL void simnpu__onnx_bind (onnx_ctx * c, const char *name,
    int t);
SIMNPU_INTERNAL int simnpu__onnx_opt_in (onnx_ctx * c, unsigned k, int *t);
SIMNPU_INTERNAL int simnpu__onnx_in (onnx_ctx * c, unsigned k, int *t);
SIMNPU_INTERNAL int simnpu__onnx_tmp (onnx_ctx * c);
SIMNPU_INTERNAL int simnpu__onnx_out (onnx_ctx * c, unsigned k, int *t);
SIMNPU_INTERNAL int simnpu__onnx_check_outputs (onnx_ctx * c, unsigned n);
SIMNPU_INTERNAL int simnpu__onnx_add_const (onnx_ctx * c,
    simnpu__ir_dtype dtype, unsigned rank, const int64_t * dims,
    const void *src);
SIMNPU_INTERNAL int simnpu__onnx_scalar_f32 (onnx_ctx * c, float v);
SIMNPU_INTERNAL void simnpu__onnx_attrs_init (simnpu__ir_attrs * a);
SIMNPU_INTERNAL int simnpu__onnx_emit (onnx_ctx * c, simnpu__ir_op op,
    const int *ins, unsigned n_in, const int *outs, unsigned n_out,
    const simnpu__ir_attrs * attrs);
SIMNPU_INTERNAL int simnpu__onnx_emit2 (onnx_ctx * c, simnpu__ir_op op,
    int a, int b, int out);
SIMNPU_INTERNAL int simnpu__onnx_emit1 (onnx_ctx * c, simnpu__ir_op op,
    int in, int *out, const simnpu__ir_attrs * attrs);
SIMNPU_INTERNAL int simnpu__onnx_emit_transpose (onnx_ctx * c, int in,
    int out, const int64_t * perm, unsigned rank);
SIMNPU_INTERNAL int simnpu__onnx_emit_reshape (onnx_ctx * c, int in,
    int out, const int64_t * dims, unsigned rank);
SIMNPU_INTERNAL int simnpu__onnx_emit_nhwc_to (onnx_ctx * c,
    simnpu__ir_op op, int *ins, unsigned n_in, const simnpu__ir_attrs * a,
    int out);
SIMNPU_INTERNAL int simnpu__onnx_emit_nhwc (onnx_ctx * c, simnpu__ir_op op,
    int *ins, unsigned n_in, const simnpu__ir_attrs * a);
SIMNPU_INTERNAL const Onnx__AttributeProto *simnpu__onnx_attr (onnx_ctx *
    c, const char *name);
SIMNPU_INTERNAL int64_t simnpu__onnx_attr_int (onnx_ctx * c,
    const char *name, int64_t def);
SIMNPU_INTERNAL float simnpu__onnx_attr_float (onnx_ctx * c,
    const char *name, float def);
SIMNPU_INTERNAL const char *simnpu__onnx_attr_str (onnx_ctx * c,
    const char *name, const char *def, char *buf, size_t size);
SIMNPU_INTERNAL int simnpu__onnx_attr_ints (onnx_ctx * c, const char *name,
    int64_t * out, int max, int *n);
SIMNPU_INTERNAL int simnpu__onnx_const_ints (onnx_ctx * c, int t,
    const char *what, int64_t * out, int max, int *n);
SIMNPU_INTERNAL int simnpu__onnx_const_float (onnx_ctx * c, int t,
    const char *what, float *v);
SIMNPU_INTERNAL int simnpu__onnx_norm_axis (onnx_ctx * c, int64_t axis,
    unsigned rank, int32_t * out);
SIMNPU_INTERNAL unsigned simnpu__onnx_axis_dims (unsigned rank,
    unsigned axis, int64_t n, int64_t * dims);
SIMNPU_INTERNAL int simnpu__onnx_iota_on_axis (onnx_ctx * c, int64_t n,
    unsigned rank, unsigned axis, int *out);
SIMNPU_INTERNAL int simnpu__onnx_cast (onnx_ctx * c, int x,
    simnpu__ir_dtype dtype, int *out);

/* the imports of the op table (onnx.c), by file */
/* onnx-ops-index.c */
SIMNPU_INTERNAL int simnpu__onnx_imp_gather (onnx_ctx * c,
    const onnx_op * op);
SIMNPU_INTERNAL int simnpu__onnx_imp_trilu (onnx_ctx * c,
    const onnx_op * op);
SIMNPU_INTERNAL int simnpu__onnx_imp_onehot (onnx_ctx * c,
    const onnx_op * op);
SIMNPU_INTERNAL int simnpu__onnx_gather_elements (onnx_ctx * c, int data,
    int idx, int64_t axis_attr, int out);
SIMNPU_INTERNAL int simnpu__onnx_imp_gather_elements (onnx_ctx * c,
    const onnx_op * op);
SIMNPU_INTERNAL int simnpu__onnx_imp_scatter_elements (onnx_ctx * c,
    const onnx_op * op);
SIMNPU_INTERNAL int simnpu__onnx_imp_gather_nd (onnx_ctx * c,
    const onnx_op * op);
SIMNPU_INTERNAL int simnpu__onnx_imp_topk (onnx_ctx * c,
    const onnx_op * op);

/* onnx-ops-math.c */
SIMNPU_INTERNAL int simnpu__onnx_imp_unary (onnx_ctx * c,
    const onnx_op * op);
SIMNPU_INTERNAL int simnpu__onnx_imp_dropout (onnx_ctx * c,
    const onnx_op * op);
SIMNPU_INTERNAL int simnpu__onnx_imp_binary (onnx_ctx * c,
    const onnx_op * op);
SIMNPU_INTERNAL int simnpu__onnx_imp_pow (onnx_ctx * c,
    const onnx_op * op);
SIMNPU_INTERNAL int simnpu__onnx_imp_mod (onnx_ctx * c,
    const onnx_op * op);
SIMNPU_INTERNAL int simnpu__onnx_imp_where (onnx_ctx * c,
    const onnx_op * op);
SIMNPU_INTERNAL int simnpu__onnx_imp_variadic (onnx_ctx * c,
    const onnx_op * op);
SIMNPU_INTERNAL int simnpu__onnx_imp_clip (onnx_ctx * c,
    const onnx_op * op);
SIMNPU_INTERNAL int simnpu__onnx_imp_cast (onnx_ctx * c,
    const onnx_op * op);
SIMNPU_INTERNAL int simnpu__onnx_imp_range (onnx_ctx * c,
    const onnx_op * op);
SIMNPU_INTERNAL int simnpu__onnx_imp_matmul (onnx_ctx * c,
    const onnx_op * op);
SIMNPU_INTERNAL int simnpu__onnx_imp_gemm (onnx_ctx * c,
    const onnx_op * op);
SIMNPU_INTERNAL int simnpu__onnx_imp_identity (onnx_ctx * c,
    const onnx_op * op);
SIMNPU_INTERNAL int simnpu__onnx_imp_mish (onnx_ctx * c,
    const onnx_op * op);
SIMNPU_INTERNAL int simnpu__onnx_imp_thresholded_relu (onnx_ctx * c,
    const onnx_op * op);
SIMNPU_INTERNAL int simnpu__onnx_imp_quantize (onnx_ctx * c,
    const onnx_op * op);
SIMNPU_INTERNAL int simnpu__onnx_imp_dequantize (onnx_ctx * c,
    const onnx_op * op);
SIMNPU_INTERNAL int simnpu__onnx_imp_shrink (onnx_ctx * c,
    const onnx_op * op);
SIMNPU_INTERNAL int simnpu__onnx_imp_hyperbolic (onnx_ctx * c,
    const onnx_op * op);
SIMNPU_INTERNAL int simnpu__onnx_imp_dynamic_quantize (onnx_ctx * c,
    const onnx_op * op);
SIMNPU_INTERNAL int simnpu__onnx_imp_isnan (onnx_ctx * c,
    const onnx_op * op);
SIMNPU_INTERNAL int simnpu__onnx_imp_isinf (onnx_ctx * c,
    const onnx_op * op);
SIMNPU_INTERNAL int simnpu__onnx_imp_celu (onnx_ctx * c,
    const onnx_op * op);
SIMNPU_INTERNAL int simnpu__onnx_imp_tan (onnx_ctx * c,
    const onnx_op * op);

/* onnx-ops-reduce.c */
SIMNPU_INTERNAL int simnpu__onnx_imp_softmax (onnx_ctx * c,
    const onnx_op * op);
SIMNPU_INTERNAL int simnpu__onnx_imp_reduce (onnx_ctx * c,
    const onnx_op * op);
SIMNPU_INTERNAL int simnpu__onnx_imp_arg (onnx_ctx * c,
    const onnx_op * op);
SIMNPU_INTERNAL int simnpu__onnx_imp_batchnorm (onnx_ctx * c,
    const onnx_op * op);
SIMNPU_INTERNAL int simnpu__onnx_imp_layer_norm (onnx_ctx * c,
    const onnx_op * op);
SIMNPU_INTERNAL int simnpu__onnx_imp_instance_norm (onnx_ctx * c,
    const onnx_op * op);
SIMNPU_INTERNAL int simnpu__onnx_imp_hardmax (onnx_ctx * c,
    const onnx_op * op);
SIMNPU_INTERNAL int simnpu__onnx_imp_mvn (onnx_ctx * c,
    const onnx_op * op);
SIMNPU_INTERNAL int simnpu__onnx_imp_cumsum (onnx_ctx * c,
    const onnx_op * op);
SIMNPU_INTERNAL int simnpu__onnx_imp_nll_loss (onnx_ctx * c,
    const onnx_op * op);
SIMNPU_INTERNAL int simnpu__onnx_imp_sce_loss (onnx_ctx * c,
    const onnx_op * op);
SIMNPU_INTERNAL int simnpu__onnx_imp_lrn (onnx_ctx * c,
    const onnx_op * op);

/* onnx-ops-shape.c */
SIMNPU_INTERNAL int simnpu__onnx_imp_reshape (onnx_ctx * c,
    const onnx_op * op);
SIMNPU_INTERNAL int simnpu__onnx_imp_flatten (onnx_ctx * c,
    const onnx_op * op);
SIMNPU_INTERNAL int simnpu__onnx_imp_squeeze (onnx_ctx * c,
    const onnx_op * op);
SIMNPU_INTERNAL int simnpu__onnx_imp_transpose (onnx_ctx * c,
    const onnx_op * op);
SIMNPU_INTERNAL int simnpu__onnx_imp_concat (onnx_ctx * c,
    const onnx_op * op);
SIMNPU_INTERNAL int simnpu__onnx_imp_split (onnx_ctx * c,
    const onnx_op * op);
SIMNPU_INTERNAL int simnpu__onnx_imp_slice (onnx_ctx * c,
    const onnx_op * op);
SIMNPU_INTERNAL int simnpu__onnx_imp_pad (onnx_ctx * c,
    const onnx_op * op);
SIMNPU_INTERNAL int simnpu__onnx_imp_tile (onnx_ctx * c,
    const onnx_op * op);
SIMNPU_INTERNAL int simnpu__onnx_imp_expand (onnx_ctx * c,
    const onnx_op * op);
SIMNPU_INTERNAL int simnpu__onnx_imp_shape (onnx_ctx * c,
    const onnx_op * op);
SIMNPU_INTERNAL int simnpu__onnx_imp_constant (onnx_ctx * c,
    const onnx_op * op);
SIMNPU_INTERNAL int simnpu__onnx_imp_constant_of_shape (onnx_ctx * c,
    const onnx_op * op);
SIMNPU_INTERNAL int simnpu__onnx_imp_eye_like (onnx_ctx * c,
    const onnx_op * op);

/* onnx-ops-spatial.c */
SIMNPU_INTERNAL int simnpu__onnx_imp_conv (onnx_ctx * c,
    const onnx_op * op);
SIMNPU_INTERNAL int simnpu__onnx_imp_conv_transpose (onnx_ctx * c,
    const onnx_op * op);
SIMNPU_INTERNAL int simnpu__onnx_imp_pool (onnx_ctx * c,
    const onnx_op * op);
SIMNPU_INTERNAL int simnpu__onnx_imp_global_pool (onnx_ctx * c,
    const onnx_op * op);
SIMNPU_INTERNAL int simnpu__onnx_imp_depth_space (onnx_ctx * c,
    const onnx_op * op);
SIMNPU_INTERNAL int simnpu__onnx_imp_resize (onnx_ctx * c,
    const onnx_op * op);
SIMNPU_INTERNAL int simnpu__onnx_imp_upsample (onnx_ctx * c,
    const onnx_op * op);

#endif /* SIMNPU_ONNX_PRIVATE_H */
