/* gst-ax
 * Copyright (C) 2026 gst-ax developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

/* Small ONNX models written with the protobuf-c API (the onnx.proto of
 * Debian's libonnx-dev), for the tests that compare the ONNX front-end
 * with onnxruntime and for the NCHW model the element tests compile.
 * Everything a model allocates is freed by onnx_builder_clear(). */

#ifndef GST_AX_TESTS_ONNX_BUILDER_H
#define GST_AX_TESTS_ONNX_BUILDER_H

#include "onnx.pb-c.h"

#include <glib.h>
#include <string.h>

#define ONNX_BUILDER_IR_VERSION 7
#define ONNX_BUILDER_MAX_NODE_INPUTS 5

typedef struct
{
  GPtrArray *mem;
  Onnx__ModelProto model;
  Onnx__GraphProto graph;
  Onnx__OperatorSetIdProto opset;
  Onnx__OperatorSetIdProto *opsets[1];
  GPtrArray *nodes, *inits, *inputs, *outputs;
} onnx_builder;

static inline gpointer
onnx_builder_keep (onnx_builder * b, gpointer p)
{
  g_ptr_array_add (b->mem, p);
  return p;
}

static inline void
onnx_builder_init (onnx_builder * b, int64_t opset)
{
  memset (b, 0, sizeof *b);
  b->mem = g_ptr_array_new_with_free_func (g_free);
  b->nodes = g_ptr_array_new ();
  b->inits = g_ptr_array_new ();
  b->inputs = g_ptr_array_new ();
  b->outputs = g_ptr_array_new ();
  onnx__model_proto__init (&b->model);
  onnx__graph_proto__init (&b->graph);
  onnx__operator_set_id_proto__init (&b->opset);
  b->opset.domain = (char *) "";
  b->opset.has_version = TRUE;
  b->opset.version = opset;
  b->opsets[0] = &b->opset;
  b->model.has_ir_version = TRUE;
  /* IR version 7 is what onnxruntime reads for opsets 7 to 12 too */
  b->model.ir_version = ONNX_BUILDER_IR_VERSION;
  b->model.n_opset_import = 1;
  b->model.opset_import = b->opsets;
  b->model.graph = &b->graph;
  b->graph.name = (char *) "test";
}

static inline void
onnx_builder_clear (onnx_builder * b)
{
  g_ptr_array_unref (b->nodes);
  g_ptr_array_unref (b->inits);
  g_ptr_array_unref (b->inputs);
  g_ptr_array_unref (b->outputs);
  g_ptr_array_unref (b->mem);
}

/* a float tensor's value info; rank 0 leaves the shape out (an output
 * whose shape the importer infers) */
static inline Onnx__ValueInfoProto *
onnx_builder_value_info (onnx_builder * b, const char *name, unsigned rank,
    const int64_t * dims)
{
  Onnx__ValueInfoProto *vi = onnx_builder_keep (b,
      g_new0 (Onnx__ValueInfoProto, 1));
  Onnx__TypeProto *tp = onnx_builder_keep (b, g_new0 (Onnx__TypeProto, 1));
  Onnx__TypeProto__Tensor *tt = onnx_builder_keep (b,
      g_new0 (Onnx__TypeProto__Tensor, 1));
  unsigned i;

  onnx__value_info_proto__init (vi);
  onnx__type_proto__init (tp);
  onnx__type_proto__tensor__init (tt);
  if (rank > 0) {
    Onnx__TensorShapeProto *sp = onnx_builder_keep (b,
        g_new0 (Onnx__TensorShapeProto, 1));
    Onnx__TensorShapeProto__Dimension **dp = onnx_builder_keep (b,
        g_new0 (Onnx__TensorShapeProto__Dimension *, rank));
    onnx__tensor_shape_proto__init (sp);
    for (i = 0; i < rank; i++) {
      dp[i] = onnx_builder_keep (b,
          g_new0 (Onnx__TensorShapeProto__Dimension, 1));
      onnx__tensor_shape_proto__dimension__init (dp[i]);
      dp[i]->value_case = ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_VALUE;
      dp[i]->dim_value = dims[i];
    }
    sp->n_dim = rank;
    sp->dim = dp;
    tt->shape = sp;
  }
  tt->has_elem_type = TRUE;
  tt->elem_type = ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT;
  tp->value_case = ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE;
  tp->tensor_type = tt;
  vi->name = (char *) name;
  vi->type = tp;
  return vi;
}

static inline void
onnx_builder_input (onnx_builder * b, const char *name, unsigned rank,
    const int64_t * dims)
{
  g_ptr_array_add (b->inputs, onnx_builder_value_info (b, name, rank, dims));
}

static inline void
onnx_builder_output (onnx_builder * b, const char *name)
{
  g_ptr_array_add (b->outputs, onnx_builder_value_info (b, name, 0, NULL));
}

static inline Onnx__TensorProto *
onnx_builder_tensor (onnx_builder * b, const char *name, int32_t dtype,
    unsigned rank, const int64_t * dims)
{
  Onnx__TensorProto *t = onnx_builder_keep (b, g_new0 (Onnx__TensorProto, 1));

  onnx__tensor_proto__init (t);
  t->name = (char *) name;
  t->n_dims = rank;
  t->dims = onnx_builder_keep (b, g_memdup2 (dims,
          MAX (rank, 1) * sizeof dims[0]));
  t->has_data_type = TRUE;
  t->data_type = dtype;
  return t;
}

static inline void
onnx_builder_floats (onnx_builder * b, const char *name, unsigned rank,
    const int64_t * dims, const float *v)
{
  Onnx__TensorProto *t = onnx_builder_tensor (b, name,
      ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT, rank, dims);
  size_t n = 1, i;

  for (i = 0; i < rank; i++)
    n *= dims[i];
  t->n_float_data = n;
  t->float_data = onnx_builder_keep (b, g_memdup2 (v, n * sizeof v[0]));
  g_ptr_array_add (b->inits, t);
}

/* a 1-D int64 initializer of @n values */
static inline void
onnx_builder_int64s (onnx_builder * b, const char *name, const int64_t * v,
    size_t n)
{
  int64_t dims[1] = { (int64_t) n };
  Onnx__TensorProto *t = onnx_builder_tensor (b, name,
      ONNX__TENSOR_PROTO__DATA_TYPE__INT64, 1, dims);

  t->n_int64_data = n;
  t->int64_data = onnx_builder_keep (b, g_memdup2 (v,
          MAX (n, 1) * sizeof v[0]));
  g_ptr_array_add (b->inits, t);
}

/* a node of @n_in inputs ("" for an absent optional one) and one output */
static inline Onnx__NodeProto *
onnx_builder_node (onnx_builder * b, const char *op, const char *const *ins,
    unsigned n_in, const char *out)
{
  Onnx__NodeProto *n = onnx_builder_keep (b, g_new0 (Onnx__NodeProto, 1));
  char **in = onnx_builder_keep (b, g_new0 (char *, MAX (n_in, 1)));
  char **outs = onnx_builder_keep (b, g_new0 (char *, 1));
  unsigned i;

  g_assert (n_in <= ONNX_BUILDER_MAX_NODE_INPUTS);
  onnx__node_proto__init (n);
  n->op_type = (char *) op;
  n->name = (char *) out;
  for (i = 0; i < n_in; i++)
    in[i] = (char *) ins[i];
  n->n_input = n_in;
  n->input = in;
  outs[0] = (char *) out;
  n->n_output = 1;
  n->output = outs;
  g_ptr_array_add (b->nodes, n);
  return n;
}

static inline Onnx__AttributeProto *
onnx_builder_attr (onnx_builder * b, Onnx__NodeProto * n, const char *name,
    Onnx__AttributeProto__AttributeType type)
{
  Onnx__AttributeProto *a = onnx_builder_keep (b,
      g_new0 (Onnx__AttributeProto, 1));
  Onnx__AttributeProto **all = onnx_builder_keep (b,
      g_new0 (Onnx__AttributeProto *, n->n_attribute + 1));

  onnx__attribute_proto__init (a);
  a->name = (char *) name;
  a->has_type = TRUE;
  a->type = type;
  if (n->n_attribute > 0)
    memcpy (all, n->attribute, n->n_attribute * sizeof all[0]);
  all[n->n_attribute++] = a;
  n->attribute = all;
  return a;
}

static inline void
onnx_builder_attr_ints (onnx_builder * b, Onnx__NodeProto * n,
    const char *name, const int64_t * v, size_t count)
{
  Onnx__AttributeProto *a = onnx_builder_attr (b, n, name,
      ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__INTS);

  a->n_ints = count;
  a->ints = onnx_builder_keep (b, g_memdup2 (v, count * sizeof v[0]));
}

static inline void
onnx_builder_attr_int (onnx_builder * b, Onnx__NodeProto * n,
    const char *name, int64_t v)
{
  Onnx__AttributeProto *a = onnx_builder_attr (b, n, name,
      ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__INT);

  a->has_i = TRUE;
  a->i = v;
}

static inline void
onnx_builder_attr_floats (onnx_builder * b, Onnx__NodeProto * n,
    const char *name, const float *v, size_t count)
{
  Onnx__AttributeProto *a = onnx_builder_attr (b, n, name,
      ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__FLOATS);

  a->n_floats = count;
  a->floats = onnx_builder_keep (b, g_memdup2 (v, count * sizeof v[0]));
}

static inline void
onnx_builder_attr_float (onnx_builder * b, Onnx__NodeProto * n,
    const char *name, float v)
{
  Onnx__AttributeProto *a = onnx_builder_attr (b, n, name,
      ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__FLOAT);

  a->has_f = TRUE;
  a->f = v;
}

static inline void
onnx_builder_attr_string (onnx_builder * b, Onnx__NodeProto * n,
    const char *name, const char *v)
{
  Onnx__AttributeProto *a = onnx_builder_attr (b, n, name,
      ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__STRING);

  a->has_s = TRUE;
  a->s.data = (uint8_t *) v;
  a->s.len = strlen (v);
}

/* the model's bytes, g_free() them */
static inline guint8 *
onnx_builder_pack (onnx_builder * b, size_t *len)
{
  guint8 *buf;

  b->graph.n_node = b->nodes->len;
  b->graph.node = (Onnx__NodeProto **) b->nodes->pdata;
  b->graph.n_initializer = b->inits->len;
  b->graph.initializer = (Onnx__TensorProto **) b->inits->pdata;
  b->graph.n_input = b->inputs->len;
  b->graph.input = (Onnx__ValueInfoProto **) b->inputs->pdata;
  b->graph.n_output = b->outputs->len;
  b->graph.output = (Onnx__ValueInfoProto **) b->outputs->pdata;
  *len = onnx__model_proto__get_packed_size (&b->model);
  buf = g_malloc (*len);
  onnx__model_proto__pack (&b->model, buf);
  return buf;
}

#endif /* GST_AX_TESTS_ONNX_BUILDER_H */
