/* gst-ax
 * Copyright (C) 2026 gst-ax developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

/* The float IR: the graph every front-end (ONNX, TF graph model, our JSON
 * graph) lowers to, the op table, and the float32 reference executor.
 *
 * It lives in libsimnpu (not in the compiler) because the host sections of
 * a compiled model (preamble and postamble) are IR graphs that the runtime
 * executes on the host.
 *
 * Conventions, fixed for every front-end and pass:
 * - Tensors have any rank up to SIMNPU_IR_MAX_RANK, row-major.
 * - Spatial ops (conv2d, pools, resize, batchnorm, depth_to_space) take
 *   rank-4 NHWC input. A front-end whose model is NCHW (ONNX) wraps each
 *   spatial op in transposes; simnpu__ir_cancel_transposes() removes the
 *   pairs that cancel.
 * - conv2d weights are [out_channels, kh, kw, in_channels / groups]
 *   (OHWI), the device's layout; depthwise is groups == in_channels.
 * - Every tensor's dtype and full static shape are known after
 *   simnpu__ir_infer_shapes(); an op that cannot infer its output shape
 *   from the static shapes fails there with a message naming the node.
 * - Constants own their data (g_malloc'd). Shape-like values (reshape
 *   targets, slice bounds, pads, resize sizes) are folded into attributes
 *   by the front-end or simnpu__ir_fold_constants() before lowering.
 */

#ifndef __SIMNPU_IR_H__
#define __SIMNPU_IR_H__

#include "base/base.h"

G_BEGIN_DECLS

#define SIMNPU_IR_MAX_RANK 8
#define SIMNPU_IR_MAX_INPUTS 32
#define SIMNPU_IR_MAX_OUTPUTS 32
#define SIMNPU_IR_MAX_INTS 16
#define SIMNPU_IR_MAX_NODES 65536
#define SIMNPU_IR_MAX_TENSORS 131072
/* largest tensor the executor allocates (elements) */
#define SIMNPU_IR_MAX_ELEMENTS (G_GINT64_CONSTANT (1) << 28)
/* absent optional input */
#define SIMNPU_IR_NONE (-1)

typedef enum
{
  SIMNPU_IR_F32 = 0,
  SIMNPU_IR_I64,
  SIMNPU_IR_I32,
  SIMNPU_IR_U8,
  SIMNPU_IR_I8,
  SIMNPU_IR_BOOL,               /* one byte, 0 or 1 */
  SIMNPU_IR_N_DTYPES
} simnpu__ir_dtype;

/* The op table's keys. Semantics follow ONNX's operator docs unless noted;
 * "NHWC" marks ops whose rank-4 input is channels-last. */
typedef enum
{
  /* inputs x[NHWC], w[OHWI], optional bias[OC]; attrs kernel, stride,
   * dilation, pads, groups, act */
  SIMNPU_IR_CONV2D = 0,
  /* numpy matmul (rank >= 1, batch dims broadcast); optional bias added
   * along the last axis; act. f32, or i32/i64 operands of one dtype
   * (wrapping, as TF's int32 MatMul; no bias or act) */
  SIMNPU_IR_MATMUL,
  /* binary, numpy broadcasting */
  SIMNPU_IR_ADD,
  SIMNPU_IR_SUB,
  SIMNPU_IR_MUL,
  SIMNPU_IR_DIV,                /* integer dtypes: truncating, as ONNX */
  SIMNPU_IR_FLOOR_DIV,          /* TF FloorDiv */
  SIMNPU_IR_FLOOR_MOD,          /* TF FloorMod (result has the divisor's sign) */
  SIMNPU_IR_POW,
  SIMNPU_IR_MAXIMUM,            /* n-ary (ONNX Max) */
  SIMNPU_IR_MINIMUM,            /* n-ary (ONNX Min) */
  SIMNPU_IR_EQUAL,              /* comparisons give BOOL */
  SIMNPU_IR_LESS,
  SIMNPU_IR_LESS_EQUAL,
  SIMNPU_IR_GREATER,
  SIMNPU_IR_GREATER_EQUAL,
  SIMNPU_IR_AND,
  SIMNPU_IR_OR,
  SIMNPU_IR_XOR,
  SIMNPU_IR_WHERE,              /* cond, x, y */
  /* unary, element-wise */
  SIMNPU_IR_IDENTITY,
  SIMNPU_IR_RELU,
  SIMNPU_IR_CLIP,               /* f[0] = min, f[1] = max (relu6: 0, 6) */
  SIMNPU_IR_LEAKY_RELU,         /* f[0] = alpha */
  SIMNPU_IR_ELU,                /* f[0] = alpha */
  SIMNPU_IR_SELU,               /* f[0] = alpha, f[1] = gamma */
  SIMNPU_IR_PRELU,              /* x, slope (broadcast) */
  SIMNPU_IR_SIGMOID,
  SIMNPU_IR_HARD_SIGMOID,       /* f[0] = alpha, f[1] = beta */
  SIMNPU_IR_HARD_SWISH,
  SIMNPU_IR_SILU,               /* x * sigmoid (x) */
  SIMNPU_IR_TANH,
  SIMNPU_IR_SOFTPLUS,
  SIMNPU_IR_SOFTSIGN,
  SIMNPU_IR_EXP,
  SIMNPU_IR_LOG,
  SIMNPU_IR_SQRT,
  SIMNPU_IR_RSQRT,
  SIMNPU_IR_RECIPROCAL,
  SIMNPU_IR_NEG,
  SIMNPU_IR_ABS,
  SIMNPU_IR_FLOOR,
  SIMNPU_IR_CEIL,
  SIMNPU_IR_ROUND,              /* half to even */
  SIMNPU_IR_SIGN,
  SIMNPU_IR_ERF,
  SIMNPU_IR_SIN,
  SIMNPU_IR_COS,
  SIMNPU_IR_NOT,
  SIMNPU_IR_CAST,               /* to attrs.dtype */
  /* normalisation and reductions */
  SIMNPU_IR_SOFTMAX,            /* axis */
  SIMNPU_IR_LOG_SOFTMAX,        /* axis */
  SIMNPU_IR_BATCHNORM,          /* NHWC (channels last axis): x, scale,
                                 * bias, mean, var; f[0] = epsilon */
  SIMNPU_IR_REDUCE_MEAN,        /* ints = axes (n_ints == 0: all), keepdims */
  SIMNPU_IR_REDUCE_SUM,
  SIMNPU_IR_REDUCE_MAX,
  SIMNPU_IR_REDUCE_MIN,
  SIMNPU_IR_REDUCE_PROD,
  SIMNPU_IR_ARGMAX,             /* axis, keepdims; gives I64 */
  SIMNPU_IR_ARGMIN,
  /* pooling, NHWC; kernel, stride, dilation, pads, ceil_mode,
   * count_include_pad (average) */
  SIMNPU_IR_MAXPOOL,
  SIMNPU_IR_AVGPOOL,
  /* resize, NHWC: ints[0..1] = output height and width; mode, coord,
   * nearest; f[0] = cubic coefficient (unused for nearest/bilinear);
   * f[1], f[2] = the model's height and width scales (output / input)
   * when it gave scales, else 0: coordinates map with them */
  SIMNPU_IR_RESIZE,
  SIMNPU_IR_DEPTH_TO_SPACE,     /* NHWC, ints[0] = block size, mode (DCR/CRD) */
  SIMNPU_IR_SPACE_TO_DEPTH,     /* NHWC, ints[0] = block size */
  /* data movement, any dtype */
  SIMNPU_IR_RESHAPE,            /* ints = the output shape, fully resolved */
  SIMNPU_IR_TRANSPOSE,          /* ints = perm */
  SIMNPU_IR_CONCAT,             /* axis */
  SIMNPU_IR_SPLIT,              /* axis; ints = output sizes */
  /* ints[0..r) = starts, [r..2r) = ends, attrs.steps[0..r) = steps, all
   * resolved and clamped, r = input rank */
  SIMNPU_IR_SLICE,
  /* ints[0..r) = pads before, [r..2r) = pads after (may be negative);
   * mode; f[0] = constant value */
  SIMNPU_IR_PAD,
  SIMNPU_IR_GATHER,             /* data, indices (I64/I32); axis */
  SIMNPU_IR_TILE,               /* ints = repeats per axis */
  SIMNPU_IR_EXPAND,             /* ints = target shape (broadcast) */
  SIMNPU_IR_SHAPE,              /* gives I64 [rank] */
  SIMNPU_IR_RANGE,              /* start, limit, delta scalars */
  /* binary, f32, numpy broadcasting: the angle of (x, y) = (input 1,
   * input 0), TF's Atan2. Appended: host sections in .axm files number
   * their ops by this enum. */
  SIMNPU_IR_ATAN2,
  SIMNPU_IR_N_OPS
} simnpu__ir_op;

/* fused activation of conv2d and matmul */
typedef enum
{
  SIMNPU_IR_ACT_NONE = 0,
  SIMNPU_IR_ACT_RELU,
  SIMNPU_IR_ACT_CLIP,           /* act_min, act_max (relu6: 0, 6) */
  SIMNPU_IR_ACT_LEAKY_RELU,     /* act_alpha */
  SIMNPU_IR_ACT_SIGMOID,
  SIMNPU_IR_ACT_TANH,
  SIMNPU_IR_ACT_HARD_SWISH,
  SIMNPU_IR_ACT_ELU,            /* act_alpha */
} simnpu__ir_act;

typedef enum
{
  SIMNPU_IR_RESIZE_NEAREST = 0,
  SIMNPU_IR_RESIZE_BILINEAR,
} simnpu__ir_resize_mode;

/* ONNX Resize coordinate_transformation_mode; TF's ResizeBilinear maps
 * to ASYMMETRIC, ALIGN_CORNERS or HALF_PIXEL by its two flags. */
typedef enum
{
  SIMNPU_IR_COORD_HALF_PIXEL = 0,
  SIMNPU_IR_COORD_PYTORCH_HALF_PIXEL,
  SIMNPU_IR_COORD_ALIGN_CORNERS,
  SIMNPU_IR_COORD_ASYMMETRIC,
  SIMNPU_IR_COORD_TF_HALF_PIXEL_FOR_NN,
} simnpu__ir_coord;

/* ONNX Resize nearest_mode */
typedef enum
{
  SIMNPU_IR_NEAREST_ROUND_PREFER_FLOOR = 0,
  SIMNPU_IR_NEAREST_ROUND_PREFER_CEIL,
  SIMNPU_IR_NEAREST_FLOOR,
  SIMNPU_IR_NEAREST_CEIL,
} simnpu__ir_nearest;

typedef enum
{
  SIMNPU_IR_PAD_CONSTANT = 0,
  SIMNPU_IR_PAD_EDGE,
  SIMNPU_IR_PAD_REFLECT,
} simnpu__ir_pad_mode;

/* One attribute record for every op; each op reads the fields its table
 * entry documents and ignores the rest. */
typedef struct
{
  int32_t kernel[2];            /* h, w */
  int32_t stride[2];
  int32_t dilation[2];
  int32_t pads[4];              /* top, left, bottom, right */
  int32_t groups;
  bool ceil_mode;
  bool count_include_pad;
  bool keepdims;
  int32_t axis;                 /* normalised to [0, rank) by the front-end */
  int32_t mode;                 /* resize, pad, depth_to_space (0 DCR, 1 CRD) */
  int32_t coord;                /* simnpu__ir_coord */
  int32_t nearest;              /* simnpu__ir_nearest */
  simnpu__ir_dtype dtype;       /* cast target */
  simnpu__ir_act act;
  float act_min, act_max, act_alpha;
  float f[4];
  unsigned n_ints;
  int64_t ints[SIMNPU_IR_MAX_INTS];
  int64_t steps[SIMNPU_IR_MAX_RANK];    /* slice */
} simnpu__ir_attrs;

typedef struct
{
  char *name;
  simnpu__ir_dtype dtype;
  unsigned rank;
  int64_t dims[SIMNPU_IR_MAX_RANK];
  bool is_const;
  /* constants: rank/dims/dtype complete, data holds
   * simnpu__ir_tensor_bytes() bytes */
  void *data;
  /* set by simnpu__ir_infer_shapes(): producing node or SIMNPU_IR_NONE */
  int producer;
  /* calibration: observed range over the calibration set (valid when
   * has_range) */
  bool has_range;
  float min, max;
} simnpu__ir_tensor;

typedef struct
{
  simnpu__ir_op op;
  char *name;                   /* the source model's node name */
  unsigned n_inputs;
  int inputs[SIMNPU_IR_MAX_INPUTS];     /* tensor index or SIMNPU_IR_NONE */
  unsigned n_outputs;
  int outputs[SIMNPU_IR_MAX_OUTPUTS];
  simnpu__ir_attrs attrs;
} simnpu__ir_node;

typedef struct _simnpu__ir_graph
{
  char *name;
  unsigned n_tensors, tensors_alloc;
  simnpu__ir_tensor *tensors;
  /* nodes in execution order (topologically sorted) */
  unsigned n_nodes, nodes_alloc;
  simnpu__ir_node *nodes;
  unsigned n_inputs;
  int inputs[SIMNPU_IR_MAX_INPUTS];
  unsigned n_outputs;
  int outputs[SIMNPU_IR_MAX_OUTPUTS];
  /* the files besides its own that the source model was read from (TF.js
   * weight shards), NULL-terminated; NULL if none. A tool must not write
   * over them. */
  char **model_files;
} simnpu__ir_graph;

/* ------------------------------------------------------------------ */
/* The op table: one entry per simnpu__ir_op. */

typedef struct _simnpu__ir_exec simnpu__ir_exec;

typedef struct
{
  const char *name;             /* e.g. "conv2d" */
  /* number of inputs accepted (max may be SIMNPU_IR_MAX_INPUTS) */
  unsigned min_inputs, max_inputs;
  /* sets dtype, rank and dims of every output from the inputs; returns 0
   * or a SIMNPU_E* code with error filled (naming the node) */
  int (*infer) (simnpu__ir_graph * g, simnpu__ir_node * n,
      simnpu_error * error);
  /* float reference kernel: reads inputs, writes outputs (already
   * allocated to their inferred shapes) */
  int (*run) (simnpu__ir_exec * x, const simnpu__ir_node * n,
      simnpu_error * error);
  /* multiply-accumulates (or element operations) of one execution, for
   * the compile report and the host cost */
  uint64_t (*cost) (const simnpu__ir_graph * g, const simnpu__ir_node * n);
} simnpu__ir_op_info;

SIMNPU_INTERNAL const simnpu__ir_op_info *simnpu__ir_op_get (simnpu__ir_op
    op);
SIMNPU_INTERNAL const char *simnpu__ir_op_name (simnpu__ir_op op);
SIMNPU_INTERNAL const char *simnpu__ir_dtype_name (simnpu__ir_dtype dtype);
SIMNPU_INTERNAL size_t simnpu__ir_dtype_size (simnpu__ir_dtype dtype);
/* element-wise with one operand (identity, activations, cast, ...) */
SIMNPU_INTERNAL bool simnpu__ir_op_is_unary (simnpu__ir_op op);
SIMNPU_INTERNAL bool simnpu__ir_is_graph_output (const simnpu__ir_graph *
    g, int t);

/* ------------------------------------------------------------------ */
/* Graph building */

SIMNPU_INTERNAL simnpu__ir_graph *simnpu__ir_graph_new (const char *name);
SIMNPU_INTERNAL void simnpu__ir_graph_free (simnpu__ir_graph * g);
/* deep copy */
SIMNPU_INTERNAL simnpu__ir_graph *simnpu__ir_graph_copy (const
    simnpu__ir_graph * g);
/* Adds a tensor (dims may be NULL when rank is 0 or the shape is to be
 * inferred); returns its index. The name is copied. */
SIMNPU_INTERNAL int simnpu__ir_add_tensor (simnpu__ir_graph * g,
    const char *name, simnpu__ir_dtype dtype, unsigned rank,
    const int64_t * dims);
/* Adds a constant and takes ownership of data (g_malloc'd, exactly
 * simnpu__ir_tensor_bytes() bytes). */
SIMNPU_INTERNAL int simnpu__ir_add_const (simnpu__ir_graph * g,
    const char *name, simnpu__ir_dtype dtype, unsigned rank,
    const int64_t * dims, void *data);
/* Appends a node with zeroed attrs (stride, dilation, groups, kernel set
 * to 1; act_max +inf); returns its index. Inputs and outputs are tensor
 * indices. The returned pointer is valid until the next add. */
SIMNPU_INTERNAL simnpu__ir_node *simnpu__ir_add_node (simnpu__ir_graph * g,
    simnpu__ir_op op, const char *name, unsigned n_inputs,
    const int *inputs, unsigned n_outputs, const int *outputs);
SIMNPU_INTERNAL int simnpu__ir_find_tensor (const simnpu__ir_graph * g,
    const char *name);
/* For many look-ups (simnpu__ir_find_tensor scans): name -> index + 1 of
 * the first tensor of that name. The keys are g's names: free the table
 * before g changes. */
SIMNPU_INTERNAL GHashTable *simnpu__ir_tensor_names (const simnpu__ir_graph *
    g);
SIMNPU_INTERNAL int64_t simnpu__ir_tensor_elements (const simnpu__ir_tensor *
    t);
SIMNPU_INTERNAL size_t simnpu__ir_tensor_bytes (const simnpu__ir_tensor * t);

/* Checks structure (indices, single producer, no use before definition,
 * arity from the op table) and infers every non-constant, non-input
 * tensor's dtype and shape in node order. */
SIMNPU_INTERNAL int simnpu__ir_infer_shapes (simnpu__ir_graph * g,
    simnpu_error * error);

/* ------------------------------------------------------------------ */
/* Passes (ir-passes.c) */

/* Evaluates every node whose inputs are all constants and replaces its
 * outputs by constants (shape arithmetic, Shape of static tensors, ...).
 * Needs shapes inferred. */
SIMNPU_INTERNAL int simnpu__ir_fold_constants (simnpu__ir_graph * g,
    simnpu_error * error);
/* Pushes transposes through layout-agnostic element-wise ops and removes
 * pairs that compose to the identity. */
SIMNPU_INTERNAL int simnpu__ir_cancel_transposes (simnpu__ir_graph * g,
    simnpu_error * error);
/* Folds batchnorm, bias adds, scalar muls of weights and activations into
 * a preceding conv2d or matmul, and constant pads into conv/pool padding,
 * where the intermediate tensor has no other consumer. */
SIMNPU_INTERNAL int simnpu__ir_fuse (simnpu__ir_graph * g,
    simnpu_error * error);
/* Removes identities and nodes whose outputs reach no graph output, and
 * tensors no longer referenced; renumbers. */
SIMNPU_INTERNAL int simnpu__ir_prune (simnpu__ir_graph * g,
    simnpu_error * error);
/* Makes the named tensors the graph's outputs (or inputs), dropping what
 * lies beyond; names are comma-separated. */
SIMNPU_INTERNAL int simnpu__ir_cut_outputs (simnpu__ir_graph * g,
    const char *names, simnpu_error * error);
SIMNPU_INTERNAL int simnpu__ir_cut_inputs (simnpu__ir_graph * g,
    const char *names, simnpu_error * error);

/* ------------------------------------------------------------------ */
/* The float reference executor (ir-exec.c) */

/* Buffers for one graph: one per tensor, sized from the inferred shapes.
 * Created once and reused for every run (no allocation per run). */
SIMNPU_INTERNAL simnpu__ir_exec *simnpu__ir_exec_new (const simnpu__ir_graph
    * g, simnpu_error * error);
/* As simnpu__ir_exec_new(), with the tensors that are not constants and
 * the conv's padded input copies in one arena, placed by the memory plan
 * of a whole-graph run (simnpu__ir_plan_memory()): a tensor's buffer
 * holds its value only while it is live, from the node making it to the
 * last node reading it; the graph's outputs until the next run. Only
 * whole-graph runs, or a run of the first nodes followed by the rest,
 * may use it. */
SIMNPU_INTERNAL simnpu__ir_exec *simnpu__ir_exec_new_planned (const
    simnpu__ir_graph * g, simnpu_error * error);
/* The arena of simnpu__ir_exec_new_planned() for @g, with the memory plan
 * (tensors whose live ranges overlap never share bytes) and without it
 * (each tensor and padded copy apart, as simnpu__ir_exec_new() allocates
 * them); either pointer may be NULL. Returns 0, or SIMNPU_ESHAPE or
 * SIMNPU_ENOMEM for a tensor or a padded copy larger than the executor
 * allocates. */
SIMNPU_INTERNAL int simnpu__ir_plan_memory (const simnpu__ir_graph * g,
    size_t *planned_bytes, size_t *flat_bytes, simnpu_error * error);
/* the alignment of every buffer in an executor's arena */
#define SIMNPU_IR_ARENA_ALIGN 64
SIMNPU_INTERNAL void simnpu__ir_exec_free (simnpu__ir_exec * x);
SIMNPU_INTERNAL const simnpu__ir_graph *simnpu__ir_exec_graph (const
    simnpu__ir_exec * x);
/* The buffer of tensor t (constants: their data). */
SIMNPU_INTERNAL void *simnpu__ir_exec_data (simnpu__ir_exec * x, int t);
/* Makes tensor t (not a constant) use @data instead of its own buffer
 * until bound again, e.g. to its own buffer (the value returned): a
 * caller's input read in place, or a caller's output written in place.
 * Returns the buffer it used, or NULL for a constant or no such tensor. */
SIMNPU_INTERNAL void *simnpu__ir_exec_bind (simnpu__ir_exec * x, int t,
    void *data);
/* Touches every buffer the executor owns (zeroed, as allocated), except
 * those of the tensors marked in @skip (nullable, one flag per tensor), so
 * that the kernel maps their pages now rather than on the first run. */
SIMNPU_INTERNAL void simnpu__ir_exec_prefault (simnpu__ir_exec * x,
    const bool *skip);
/* Runs nodes [first, last) after the caller has filled the graph inputs'
 * buffers; (0, g->n_nodes) runs the whole graph. */
SIMNPU_INTERNAL int simnpu__ir_exec_run (simnpu__ir_exec * x,
    unsigned first, unsigned last, simnpu_error * error);
/* The f32 kernel of a unary element-wise op (sigmoid, tanh, relu, clip)
 * on @len values, the same value for each element as a run of the node
 * (so a caller may apply it block by block). */
SIMNPU_INTERNAL void simnpu__ir_f32_unary (simnpu__ir_op op,
    const simnpu__ir_attrs * attrs, float *out, const float *in,
    int64_t len);
/* Called after each node with its outputs computed (calibration records
 * ranges through it); NULL to remove. */
typedef void (*simnpu__ir_exec_observer) (simnpu__ir_exec * x,
    const simnpu__ir_node * n, gpointer user_data);
SIMNPU_INTERNAL void simnpu__ir_exec_set_observer (simnpu__ir_exec * x,
    simnpu__ir_exec_observer observer, gpointer user_data);

/* ------------------------------------------------------------------ */
/* Serialisation of host sections in the .axm (ir-serial.c): a compact
 * binary form validated field by field on read. */

SIMNPU_INTERNAL void simnpu__ir_serialize (const simnpu__ir_graph * g,
    GByteArray * out);
SIMNPU_INTERNAL int simnpu__ir_deserialize (const void *data, size_t size,
    simnpu__ir_graph ** out, simnpu_error * error);

G_END_DECLS

#endif /* __SIMNPU_IR_H__ */
