/* gst-ax
 * Copyright (C) 2026 gst-ax developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

/* What the files of the TF.js graph-model front-end share: the loader's
 * records and the helpers every translation uses.
 *
 * The front-end's files, one concern each:
 *   tfjs-private.h    the loader and node records (this file)
 *   tfjs.c            the entry points; the GraphDef's nodes in
 *                     topological order, Const, Placeholder, the outputs
 *   tfjs-json.c       the error form; JSON values, AttrValues, shapes
 *   tfjs-weights.c    the weights manifest, its shards, dequantisation
 *   tfjs-build.c      making IR tensors and nodes, constant operands
 *   tfjs-ops-nn.c     the translations of the ops that compute
 *   tfjs-ops-shape.c  the translations of the ops that move data
 *   tfjs-ops-index.c  the translations of GatherNd, TopKV2 and of the ops
 *                     that make tensors of shapes and constants
 *   tfjs-loop.c       TF while loops of a constant trip count, unrolled;
 *                     TensorLists
 *   tfjs-cond.c       TF conds of a constant predicate, folded to the
 *                     branch taken */

#ifndef __SIMNPU_TFJS_PRIVATE_H__
#define __SIMNPU_TFJS_PRIVATE_H__

#include "compiler.h"

#include <json-glib/json-glib.h>

G_BEGIN_DECLS
#define TFJS_MAX_NODE_INPUTS 1024
#define TFJS_MAX_LIST 64
#define TFJS_ATTR_STRING 64
/* a translation's answer for a node it does not take after all (beyond a
 * limit of the IR): the node is left out as an unknown op is */
#define TFJS_DECLINED 1
/* a node's poison when it depends on no left-out node */
#define TFJS_NO_POISON (-1)
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
  unsigned n_ctrl;              /* control inputs ("^node") */
  int *ctrl_nodes;              /* index of each control input's node */
  int poison;                   /* unsupported node it depends on */
  /* conds (tfjs-cond.c): the node is in a branch a folded cond does not
   * take; a Switch's output taken (0 or 1), or -1 */
  bool dead;
  int taken;
} tfjs_node;

/* A tensor of a dilated conv as TF writes it (tfjs-ops-space.c): the
 * SpaceToBatchND's result (batched), or the conv's on it, before the
 * BatchToSpaceND */
typedef struct
{
  bool batched;
  int32_t block[2];
  int32_t pads[4];              /* top, left, bottom, right */
  int x;                        /* the SpaceToBatchND's input */
  int conv;                     /* the conv's IR node */
} tfjs_space_batch;

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
  /* the shapes given for placeholders the model leaves open (may be
   * NULL), and the model's count of placeholders */
  simnpu__input_shapes *shapes;
  unsigned n_placeholders;
  /* TF while loops (tfjs-loop.c): the frames, each node's frame index
   * or -1, and the TensorList values by key (owned) */
  GPtrArray *frames;
  int *frame_of;
  GHashTable *lists;
  /* tensor + 1 -> tfjs_space_batch (owned), or NULL */
  GHashTable *space_batch;
} tfjs_loader;

typedef struct
{
  const char *op;
  int (*translate) (tfjs_loader * l, const tfjs_node * tn, const int *in);
  simnpu__ir_op ir_op;          /* for the table-driven element-wise ops */
} tfjs_op;

/* The translations by family (tfjs-ops-*.c), each op in one table. */
SIMNPU_INTERNAL const tfjs_op simnpu__tfjs_nn_ops[];
SIMNPU_INTERNAL const unsigned simnpu__tfjs_n_nn_ops;
SIMNPU_INTERNAL const tfjs_op simnpu__tfjs_shape_ops[];
SIMNPU_INTERNAL const unsigned simnpu__tfjs_n_shape_ops;
SIMNPU_INTERNAL const tfjs_op simnpu__tfjs_index_ops[];
SIMNPU_INTERNAL const unsigned simnpu__tfjs_n_index_ops;

static inline simnpu__ir_tensor *
T (tfjs_loader * l, int t)
{
  return &l->g->tensors[t];
}

/* tfjs-json.c */
SIMNPU_INTERNAL int
simnpu__tfjs_fail (tfjs_loader * l, int code, const char *format, ...)
G_GNUC_PRINTF (3, 4);
     SIMNPU_INTERNAL JsonObject *simnpu__tfjs_get_object (JsonObject * o,
    const char *member);
     SIMNPU_INTERNAL JsonArray *simnpu__tfjs_get_array (JsonObject * o,
    const char *member);
     SIMNPU_INTERNAL const char *simnpu__tfjs_node_string (JsonNode * n);
     SIMNPU_INTERNAL const char *simnpu__tfjs_get_string (JsonObject * o,
    const char *member);
     SIMNPU_INTERNAL bool simnpu__tfjs_node_int (JsonNode * n, int64_t * out);
     SIMNPU_INTERNAL bool simnpu__tfjs_node_float (JsonNode * n, double *out);
     SIMNPU_INTERNAL JsonObject *simnpu__tfjs_attr_value (const tfjs_node * tn,
    const char *key);
     SIMNPU_INTERNAL int simnpu__tfjs_attr_int (tfjs_loader * l,
    const tfjs_node * tn, const char *key, int64_t def, int64_t min,
    int64_t max, int64_t * out);
     SIMNPU_INTERNAL int simnpu__tfjs_attr_float (tfjs_loader * l,
    const tfjs_node * tn, const char *key, float def, float *out);
     SIMNPU_INTERNAL bool simnpu__tfjs_attr_bool (const tfjs_node * tn,
    const char *key, bool def);
     SIMNPU_INTERNAL int simnpu__tfjs_decode_b64 (tfjs_loader * l,
    const char *key, const char *b64, char *buf, size_t size);
     SIMNPU_INTERNAL int simnpu__tfjs_attr_string (tfjs_loader * l,
    const tfjs_node * tn, const char *key, char *buf);
     SIMNPU_INTERNAL int simnpu__tfjs_attr_ints (tfjs_loader * l,
    const tfjs_node * tn, const char *key, int64_t * out, unsigned max,
    unsigned *n);
     SIMNPU_INTERNAL int simnpu__tfjs_attr_type (tfjs_loader * l,
    const tfjs_node * tn, const char *key, simnpu__ir_dtype def,
    simnpu__ir_dtype * out);
     SIMNPU_INTERNAL int simnpu__tfjs_parse_shape (tfjs_loader * l,
    JsonObject * shape, const char *what, unsigned *rank, int64_t * dims);

/* tfjs-weights.c */
     SIMNPU_INTERNAL void simnpu__tfjs_weight_free (gpointer p);
     SIMNPU_INTERNAL int simnpu__tfjs_load_weights (tfjs_loader * l,
    JsonObject * root, simnpu__tfjs_shard_reader reader, gpointer user_data);

/* tfjs-build.c */
     SIMNPU_INTERNAL int simnpu__tfjs_new_tensor (tfjs_loader * l,
    const char *base, bool is_const, simnpu__ir_dtype dtype, unsigned rank,
    const int64_t * dims, void *data);
     SIMNPU_INTERNAL int simnpu__tfjs_new_const (tfjs_loader * l,
    const char *suffix, simnpu__ir_dtype dtype, unsigned rank,
    const int64_t * dims, void *data);
     SIMNPU_INTERNAL int simnpu__tfjs_begin_op (tfjs_loader * l,
    simnpu__ir_op op, const char *suffix, unsigned n_in, const int *in,
    unsigned n_out, int *out, simnpu__ir_node ** node_out);
     SIMNPU_INTERNAL int simnpu__tfjs_finish_op (tfjs_loader * l,
    simnpu__ir_node * n);
     SIMNPU_INTERNAL int simnpu__tfjs_simple_op (tfjs_loader * l,
    simnpu__ir_op op, const char *suffix, unsigned n_in, const int *in);
     SIMNPU_INTERNAL int simnpu__tfjs_reshape_op (tfjs_loader * l,
    const char *suffix, int x, unsigned rank, const int64_t * dims);
     SIMNPU_INTERNAL int simnpu__tfjs_transpose_op (tfjs_loader * l,
    const char *suffix, int x, unsigned rank, const int64_t * perm);
     SIMNPU_INTERNAL int simnpu__tfjs_const_ints (tfjs_loader * l, int t,
    const char *what, int64_t * vals, unsigned max, unsigned *n);
     SIMNPU_INTERNAL int simnpu__tfjs_const_float (tfjs_loader * l, int t,
    const char *what, float *out);
     SIMNPU_INTERNAL int simnpu__tfjs_normalise_axis (tfjs_loader * l,
    int64_t axis, unsigned rank, int32_t * out);
     SIMNPU_INTERNAL int simnpu__tfjs_register_output (tfjs_loader * l,
    const tfjs_node * tn, unsigned k, int t);
     SIMNPU_INTERNAL int simnpu__tfjs_tr_elementwise (tfjs_loader * l,
    const tfjs_node * tn, const int *in, simnpu__ir_op op);
     SIMNPU_INTERNAL int simnpu__tfjs_need_inputs (tfjs_loader * l,
    const tfjs_node * tn, unsigned min, unsigned max);

/* tfjs.c */
     SIMNPU_INTERNAL bool simnpu__tfjs_is_control_flow (const char *op);
     SIMNPU_INTERNAL const tfjs_op *simnpu__tfjs_find_op (const char *op);
     SIMNPU_INTERNAL int simnpu__tfjs_translate_node (tfjs_loader * l,
    unsigned idx);

/* tfjs-loop.c */
     SIMNPU_INTERNAL int simnpu__tfjs_find_frames (tfjs_loader * l);
     SIMNPU_INTERNAL void simnpu__tfjs_frames_free (tfjs_loader * l);
     SIMNPU_INTERNAL unsigned simnpu__tfjs_n_deps (const tfjs_loader * l,
    unsigned v);
     SIMNPU_INTERNAL int simnpu__tfjs_dep (const tfjs_loader * l, unsigned v,
    unsigned i);
     SIMNPU_INTERNAL void simnpu__tfjs_frames_order (tfjs_loader * l,
    const unsigned *order);
     SIMNPU_INTERNAL int simnpu__tfjs_frame_node (tfjs_loader * l,
    unsigned idx);
     SIMNPU_INTERNAL int simnpu__tfjs_tr_list (tfjs_loader * l, unsigned idx);
     SIMNPU_INTERNAL void simnpu__tfjs_frames_finish (tfjs_loader * l);
/* whether tensor t folds to a constant scalar, and its truth (no error
 * left behind when it does not) */
     SIMNPU_INTERNAL bool simnpu__tfjs_folds_to_bool (tfjs_loader * l, int t,
    bool *out);

/* tfjs-cond.c */
     SIMNPU_INTERNAL bool simnpu__tfjs_is_cond_op (const char *op);
/* whether the node, outside any loop, is in a branch a folded cond does
 * not take (its inputs translated) */
     SIMNPU_INTERNAL bool simnpu__tfjs_cond_dead (const tfjs_loader * l,
    const tfjs_node * tn);
/* a Switch, Merge, If or StatelessIf outside any loop */
     SIMNPU_INTERNAL int simnpu__tfjs_tr_cond (tfjs_loader * l, unsigned idx);
/* the placeholders a cond's predicate reads, "'a', 'b'" (g_free), or
 * NULL */
     SIMNPU_INTERNAL char *simnpu__tfjs_cond_inputs (const tfjs_loader * l,
    const tfjs_node * tn);

/* tfjs-ops-nn.c */
/* fails unless the node's data_format is NHWC (or absent) */
     SIMNPU_INTERNAL int simnpu__tfjs_check_nhwc (tfjs_loader * l,
    const tfjs_node * tn);

/* tfjs-ops-space.c */
     SIMNPU_INTERNAL int simnpu__tfjs_tr_conv_transpose (tfjs_loader * l,
    const tfjs_node * tn, const int *in);
     SIMNPU_INTERNAL int simnpu__tfjs_tr_depth_to_space (tfjs_loader * l,
    const tfjs_node * tn, const int *in);
     SIMNPU_INTERNAL int simnpu__tfjs_tr_space_to_depth (tfjs_loader * l,
    const tfjs_node * tn, const int *in);
     SIMNPU_INTERNAL int simnpu__tfjs_tr_space_to_batch (tfjs_loader * l,
    const tfjs_node * tn, const int *in);
     SIMNPU_INTERNAL int simnpu__tfjs_tr_batch_to_space (tfjs_loader * l,
    const tfjs_node * tn, const int *in);
/* a conv over x: false when x is a SpaceToBatchND's and the conv is not
 * one of stride 1 without padding; else its dilation is the block */
     SIMNPU_INTERNAL bool simnpu__tfjs_space_batch_conv (tfjs_loader * l,
    int x, simnpu__ir_attrs * a);
/* after the conv tn (IR node conv) over x: its result awaits the
 * BatchToSpaceND */
     SIMNPU_INTERNAL void simnpu__tfjs_space_batch_conv_done (tfjs_loader * l,
    const tfjs_node * tn, int x, int conv);
/* whether node tn may read inputs in (false: a SpaceToBatchND's result
 * read by other than a conv, or such a conv's by other than a
 * BatchToSpaceND) */
     SIMNPU_INTERNAL bool simnpu__tfjs_space_batch_check (tfjs_loader * l,
    const tfjs_node * tn, const int *in, unsigned n_in);

G_END_DECLS
#endif /* __SIMNPU_TFJS_PRIVATE_H__ */
