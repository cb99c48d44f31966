/* gst-ax
 * Copyright (C) 2026 gst-ax developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

/* The ONNX front-end's entry points, simnpu__onnx_load_data() and
 * simnpu__onnx_load_file(): the ModelProto's opset, the graph's
 * initializers, inputs and outputs, the loop over its nodes, and the one
 * table that maps each ONNX op to its import (the design is described in
 * onnx-private.h). */

#include "onnx-private.h"
#include "simnpu-file.h"

#define ONNX_MIN_OPSET 11
#define ONNX_MAX_OPSET 21
/* the oldest opset any op's import reads (see onnx_op.min_opset) */
#define ONNX_OLDEST_OPSET 1
/* protobuf-c parses from one buffer; ONNX keeps models under 2 GiB */
#define ONNX_MAX_FILE_SIZE (G_GINT64_CONSTANT (2) << 30)

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
  {"BatchNormalization", simnpu__onnx_imp_batchnorm, SIMNPU_IR_BATCHNORM, 7},
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
  {"Gemm", simnpu__onnx_imp_gemm, SIMNPU_IR_MATMUL, 7},
  {"GlobalAveragePool", simnpu__onnx_imp_global_pool, SIMNPU_IR_AVGPOOL, 1},
  {"GlobalMaxPool", simnpu__onnx_imp_global_pool, SIMNPU_IR_MAXPOOL, 1},
  {"Greater", simnpu__onnx_imp_binary, SIMNPU_IR_GREATER, 7},
  {"GreaterOrEqual", simnpu__onnx_imp_binary, SIMNPU_IR_GREATER_EQUAL},
  {"HardSigmoid", simnpu__onnx_imp_unary, SIMNPU_IR_HARD_SIGMOID, 6},
  {"HardSwish", simnpu__onnx_imp_unary, SIMNPU_IR_HARD_SWISH},
  {"Hardmax", simnpu__onnx_imp_hardmax, SIMNPU_IR_ARGMAX, 1},
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
  {"OneHot", simnpu__onnx_imp_onehot, SIMNPU_IR_WHERE, 9},
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
  {"Resize", simnpu__onnx_imp_resize, SIMNPU_IR_RESIZE, 10},
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
  {"Slice", simnpu__onnx_imp_slice, SIMNPU_IR_SLICE, 1},
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
  {"TopK", simnpu__onnx_imp_topk, SIMNPU_IR_ARGMAX, 10},
  {"Transpose", simnpu__onnx_imp_transpose, SIMNPU_IR_TRANSPOSE, 1},
  {"Trilu", simnpu__onnx_imp_trilu, SIMNPU_IR_WHERE, 14},
  {"Unsqueeze", simnpu__onnx_imp_squeeze, SIMNPU_IR_IDENTITY, 1},
  {"Upsample", simnpu__onnx_imp_upsample, SIMNPU_IR_RESIZE, 7},
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
  const simnpu__input_value *value;
  simnpu__ir_dtype dtype;
  int64_t dims[SIMNPU_IR_MAX_RANK];
  unsigned rank;
  size_t i;
  int t, ret;

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
    /* a dim_param or no value: dynamic */
    dims[i] = -1;
    if (d->value_case == ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_VALUE) {
      if (d->dim_value < 0 || d->dim_value > SIMNPU_IR_MAX_ELEMENTS)
        return simnpu__set_error (c->error, SIMNPU_EFORMAT,
            "graph input '%s': dimension %zu is %" G_GINT64_FORMAT,
            vi->name, i, d->dim_value);
      dims[i] = d->dim_value;
    }
  }
  rank = (unsigned) tt->shape->n_dim;
  value = simnpu__input_value_find (c->shapes, vi->name);
  if (value != NULL) {
    /* fixed by the user: a constant, which the graph folds through */
    void *data;
    if ((ret = simnpu__input_value_resolve (c->shapes, c->n_model_inputs,
                value, dtype, true, &rank, dims, &data, c->error)) < 0)
      return ret;
    t = simnpu__ir_add_const (c->g, vi->name, dtype, rank, dims, data);
    if (t < 0)
      return simnpu__set_error (c->error, SIMNPU_ENOMEM, "too many tensors");
    simnpu__onnx_bind (c, vi->name, t);
    return 0;
  }
  if ((ret = simnpu__input_shape_resolve (c->shapes, c->n_model_inputs,
              vi->name, true, &rank, dims, c->error)) < 0)
    return ret;
  if (c->g->n_inputs >= SIMNPU_IR_MAX_INPUTS)
    return simnpu__set_error (c->error, SIMNPU_EUNSUPPORTED,
        "more than %d graph inputs", SIMNPU_IR_MAX_INPUTS);
  t = simnpu__ir_add_tensor (c->g, vi->name, dtype, rank, dims);
  simnpu__onnx_bind (c, vi->name, t);
  c->g->inputs[c->g->n_inputs++] = t;
  return 0;
}

/* ------------------------------------------------------------------ */
/* Control flow (Loop, If, Scan) is never run: the graph is cut before it,
 * with every node that reads its results, and the values it reads (its
 * inputs and its bodies' reads of the outer graph) become outputs. Such
 * a loop is almost always the model's NMS, which axnms does. */

typedef struct _onnx_cut onnx_cut;
struct _onnx_cut
{
  GHashTable *names;            /* values the cut nodes make (borrowed) */
  GArray *read;                 /* tensors the cut nodes read (int) */
  char *first;                  /* the first control-flow node, op */
  const char *first_op;
};

static int onnx_import_nodes (onnx_ctx * c, const Onnx__GraphProto * gp,
    onnx_cut * cut, GString * dropped);

static bool
onnx_is_control_flow (const char *op)
{
  return strcmp (op, "Loop") == 0 || strcmp (op, "If") == 0
      || strcmp (op, "Scan") == 0;
}

static void
onnx_cut_read (onnx_ctx * c, onnx_cut * cut, const char *name)
{
  int t;

  if (name == NULL || name[0] == '\0'
      || g_hash_table_contains (cut->names, name))
    return;
  t = simnpu__onnx_lookup (c, name);
  if (t != SIMNPU_IR_NONE)
    g_array_append_val (cut->read, t);
}

/* Whether node n is cut: control flow, or a reader of what is cut */
static bool
onnx_cut_node (onnx_ctx * c, onnx_cut * cut, const Onnx__NodeProto * n)
{
  bool is_cut = n->op_type != NULL && onnx_is_control_flow (n->op_type);
  size_t i, j, k;

  for (i = 0; i < n->n_input && !is_cut; i++)
    is_cut = n->input[i] != NULL
        && g_hash_table_contains (cut->names, n->input[i]);
  if (!is_cut)
    return false;
  if (cut->first == NULL && onnx_is_control_flow (n->op_type)) {
    cut->first = g_strdup (c->node_name);
    cut->first_op = n->op_type;
  }
  for (i = 0; i < n->n_input; i++)
    onnx_cut_read (c, cut, n->input[i]);
  for (i = 0; i < n->n_attribute; i++) {
    const Onnx__AttributeProto *at = n->attribute[i];
    const Onnx__GraphProto *body = at->g;
    if (body == NULL)
      continue;
    for (j = 0; j < body->n_node; j++)
      for (k = 0; k < body->node[j]->n_input; k++)
        onnx_cut_read (c, cut, body->node[j]->input[k]);
  }
  for (i = 0; i < n->n_output; i++)
    if (n->output[i] != NULL && n->output[i][0] != '\0')
      g_hash_table_add (cut->names, n->output[i]);
  return true;
}

/* The outputs once the graph is cut: what the cut part read, computed
 * from the inputs, in float; and the note. dropped lists the outputs
 * that needed the cut part. */
static int
onnx_finish_cut (onnx_ctx * c, onnx_cut * cut, GString * dropped)
{
  GString *added = g_string_new (NULL);
  bool *dep = simnpu__import_data_dependent (c->g);
  unsigned i, k;
  int ret = 0;

  for (i = 0; i < cut->read->len; i++) {
    int t = g_array_index (cut->read, int, i);
    const simnpu__ir_tensor *x = &c->g->tensors[t];
    if (!dep[t] || x->is_const || x->dtype != SIMNPU_IR_F32)
      continue;
    for (k = 0; k < c->g->n_outputs && c->g->outputs[k] != t; k++);
    if (k < c->g->n_outputs)
      continue;
    if (c->g->n_outputs >= SIMNPU_IR_MAX_OUTPUTS)
      break;
    c->g->outputs[c->g->n_outputs++] = t;
    g_string_append_printf (added, "%s'%s'", added->len ? ", " : "", x->name);
  }
  g_free (dep);
  if (c->g->n_outputs == 0)
    ret = simnpu__set_error (c->error, SIMNPU_EUNSUPPORTED, "node '%s' (%s): "
        "every output needs the graph's control flow, which the compile "
        "cannot cut off", cut->first, cut->first_op);
  else
    g_message ("onnx: the graph has control flow (node '%s', op %s), which "
        "simnpu-compile does not run; it is cut before it. Outputs dropped: "
        "%s. Outputs added, the tensors the cut part reads: %s. Such a loop "
        "is usually the model's NMS, which axnms does on these outputs.",
        cut->first, cut->first_op, dropped->len ? dropped->str : "none",
        added->len ? added->str : "none");
  g_string_free (added, TRUE);
  return ret;
}

static int
onnx_import_graph (onnx_ctx * c, const Onnx__GraphProto * gp)
{
  onnx_cut cut = { 0 };
  GString *dropped = g_string_new (NULL);
  int ret;

  cut.names = g_hash_table_new (g_str_hash, g_str_equal);
  cut.read = g_array_new (FALSE, FALSE, sizeof (int));
  ret = onnx_import_nodes (c, gp, &cut, dropped);
  if (ret == 0 && cut.first != NULL)
    ret = onnx_finish_cut (c, &cut, dropped);
  if (ret == 0)
    ret = simnpu__ir_infer_shapes (c->g, c->error);
  g_hash_table_unref (cut.names);
  g_array_unref (cut.read);
  g_free (cut.first);
  g_string_free (dropped, TRUE);
  return ret;
}

static int
onnx_import_nodes (onnx_ctx * c, const Onnx__GraphProto * gp, onnx_cut * cut,
    GString * dropped)
{
  size_t i;
  int ret;

  /* the model's size first, before any work in proportion to it */
  if (gp->n_node > SIMNPU_IR_MAX_NODES)
    return simnpu__set_error (c->error, SIMNPU_ENOMEM,
        "the graph has %zu nodes; expected at most %d", gp->n_node,
        SIMNPU_IR_MAX_NODES);
  if (gp->n_initializer > SIMNPU_IR_MAX_TENSORS)
    return simnpu__set_error (c->error, SIMNPU_ENOMEM,
        "the graph has %zu initializers; expected at most %d",
        gp->n_initializer, SIMNPU_IR_MAX_TENSORS);
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
    if (gp->input[i]->name == NULL
        || simnpu__onnx_lookup (c, gp->input[i]->name) == SIMNPU_IR_NONE)
      c->n_model_inputs++;
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
    } else if (onnx_cut_node (c, cut, n)) {
      ret = 0;
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
    if (name != NULL && g_hash_table_contains (cut->names, name)) {
      g_string_append_printf (dropped, "%s'%s'", dropped->len ? ", " : "",
          name);
      continue;
    }
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
  return 0;
}

int
simnpu__onnx_load_data (const void *data, size_t size,
    simnpu__ir_graph ** out, simnpu_error * error)
{
  return simnpu__onnx_load_data_shaped (data, size, NULL, out, error);
}

int
simnpu__onnx_load_data_shaped (const void *data, size_t size,
    simnpu__input_shapes * shapes, simnpu__ir_graph ** out,
    simnpu_error * error)
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
  c.shapes = shapes;
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
  return simnpu__onnx_load_file_shaped (path, NULL, out, error);
}

int
simnpu__onnx_load_file_shaped (const char *path,
    simnpu__input_shapes * shapes, simnpu__ir_graph ** out,
    simnpu_error * error)
{
  gchar *data = NULL;
  gsize len = 0;
  GError *gerr = NULL;
  int ret;

  *out = NULL;
  if (!simnpu__file_read (path, "model", ONNX_MAX_FILE_SIZE, &data, &len,
          &gerr)) {
    ret = simnpu__set_error (error, gerr->code == G_FILE_ERROR_FAILED ?
        SIMNPU_ENOMEM : SIMNPU_EIO, "%s", gerr->message);
    g_error_free (gerr);
    return ret;
  }
  ret = simnpu__onnx_load_data_shaped (data, len, shapes, out, error);
  g_free (data);
  if (ret < 0 && error != NULL) {
    gchar *msg = g_strdup (error->message);
    simnpu__set_error (error, ret, "%s: %s", path, msg);
    g_free (msg);
  }
  return ret;
}
