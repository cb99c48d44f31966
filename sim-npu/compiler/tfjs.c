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
 * when no output is left is that an error.
 *
 * This file holds the entry points and the walk over the GraphDef; the
 * front-end's other files are listed in tfjs-private.h. */

#include "tfjs-private.h"
#include "format/format.h"
#include "simnpu-file.h"

#include <string.h>

#define TFJS_MAX_JSON_BYTES (G_GINT64_CONSTANT (256) << 20)
#define TFJS_MAX_JSON_DEPTH 64

/* ------------------------------------------------------------------ */
/* Const and Placeholder */

static int
tr_const (tfjs_loader * l, const tfjs_node * tn)
{
  JsonObject *tensor =
      simnpu__tfjs_get_object (simnpu__tfjs_attr_value (tn, "value"), "tensor");
  tfjs_weight *w = g_hash_table_lookup (l->weights, tn->name);
  simnpu__ir_dtype dt;
  int64_t dims[SIMNPU_IR_MAX_RANK];
  unsigned rank, i;
  int t, ret;

  if (w == NULL || w->data == NULL)
    return simnpu__tfjs_fail (l, SIMNPU_EFORMAT,
        "no weight of that name in the weights manifest");
  ret = simnpu__tfjs_attr_type (l, tn, "dtype", w->dtype, &dt);
  if (ret < 0)
    return ret;
  if (dt == SIMNPU_IR_I64 && w->dtype == SIMNPU_IR_I32) {
    /* the TF.js converter stores int64 weights as int32 by design */
    int64_t k, count = 1;
    int64_t *wide;

    for (i = 0; i < w->rank; i++)
      count *= w->dims[i];
    wide = g_new (int64_t, MAX (count, 1));
    for (k = 0; k < count; k++)
      wide[k] = ((const int32_t *) w->data)[k];
    g_free (w->data);
    w->data = wide;
    w->dtype = SIMNPU_IR_I64;
  }
  if (dt != w->dtype)
    return simnpu__tfjs_fail (l, SIMNPU_EFORMAT,
        "dtype %s, but the manifest's weight is %s",
        simnpu__ir_dtype_name (dt), simnpu__ir_dtype_name (w->dtype));
  if (tensor) {
    ret =
        simnpu__tfjs_parse_shape (l, simnpu__tfjs_get_object (tensor,
            "tensorShape"), "value", &rank, dims);
    if (ret < 0)
      return ret;
    if (rank != w->rank || memcmp (dims, w->dims, rank * sizeof dims[0]))
      return simnpu__tfjs_fail (l, SIMNPU_ESHAPE,
          "the node's shape and weight '%s''s "
          "shape in the manifest differ (rank %u and %u)", tn->name, rank,
          w->rank);
    for (i = 0; i < rank; i++)
      if (dims[i] < 0)
        return simnpu__tfjs_fail (l, SIMNPU_ESHAPE, "shape dim %u is unknown",
            i);
  }
  t = simnpu__tfjs_new_tensor (l, tn->name, true, w->dtype, w->rank, w->dims,
      w->data);
  w->data = NULL;
  return t < 0 ? t : 0;
}

/* An image input of integer pixels ([N,H,W,1|3] u8 or i32) */
static bool
is_integer_image (simnpu__ir_dtype dt, unsigned rank, const int64_t * dims)
{
  return (dt == SIMNPU_IR_U8 || dt == SIMNPU_IR_I32) && rank == 4
      && (dims[3] == 1 || dims[3] == 3);
}

static int
tr_placeholder (tfjs_loader * l, const tfjs_node * tn)
{
  simnpu__ir_dtype dt;
  int64_t dims[SIMNPU_IR_MAX_RANK], n = 1;
  unsigned rank, i;
  int t, ret;
  JsonObject *shape =
      simnpu__tfjs_get_object (simnpu__tfjs_attr_value (tn, "shape"),
      "shape");
  JsonNode *unknown = shape ? json_object_get_member (shape, "unknownRank")
      : NULL;
  bool rank_known = shape != NULL && !(unknown
      && JSON_NODE_HOLDS_VALUE (unknown)
      && json_node_get_value_type (unknown) == G_TYPE_BOOLEAN
      && json_node_get_boolean (unknown));
  simnpu_error err = { 0 };

  const simnpu__input_value *value;

  rank = 0;
  ret = simnpu__tfjs_attr_type (l, tn, "dtype", SIMNPU_IR_F32, &dt);
  if (ret == 0 && rank_known)
    ret = simnpu__tfjs_parse_shape (l, shape, "shape", &rank, dims);
  if (ret < 0)
    return ret;
  value = simnpu__input_value_find (l->shapes, tn->name);
  if (value != NULL) {
    /* fixed by the user: a constant, which the graph folds through (a
     * tf.cond on it keeps only the branch it takes) */
    void *data;
    ret = simnpu__input_value_resolve (l->shapes, l->n_placeholders, value,
        dt, rank_known, &rank, dims, &data, &err);
    if (ret < 0)
      return simnpu__tfjs_fail (l, ret, "%s", err.message);
    t = simnpu__tfjs_new_tensor (l, tn->name, true, dt, rank, dims, data);
    return t < 0 ? t : 0;
  }
  ret = simnpu__input_shape_resolve (l->shapes, l->n_placeholders, tn->name,
      rank_known, &rank, dims, &err);
  if (ret < 0)
    return simnpu__tfjs_fail (l, ret, "%s", err.message);
  for (i = 0; i < rank; i++) {
    n *= dims[i];
    if (n > SIMNPU_IR_MAX_ELEMENTS)
      return simnpu__tfjs_fail (l, SIMNPU_ENOMEM, "more than %" G_GINT64_FORMAT
          " elements", SIMNPU_IR_MAX_ELEMENTS);
  }
  if (l->g->n_inputs >= SIMNPU_IR_MAX_INPUTS)
    return simnpu__tfjs_fail (l, SIMNPU_EUNSUPPORTED, "more than %d inputs",
        SIMNPU_IR_MAX_INPUTS);
  if (is_integer_image (dt, rank, dims)) {
    /* the pixels are whole numbers: the input is float (as the compiler
     * feeds it) and becomes the model's integers at once, which the
     * model's own cast to float then undoes (tr_cast) */
    simnpu__ir_node *cast;
    int as_int;

    t = simnpu__tfjs_new_tensor (l, tn->name, false, SIMNPU_IR_F32, rank,
        dims, NULL);
    if (t < 0)
      return t;
    l->g->inputs[l->g->n_inputs++] = t;
    ret = simnpu__tfjs_begin_op (l, SIMNPU_IR_CAST, "pixels", 1, &t, 1,
        &as_int, &cast);
    if (ret < 0)
      return ret;
    cast->attrs.dtype = dt;
    ret = simnpu__tfjs_finish_op (l, cast);
    return ret < 0 ? ret : simnpu__tfjs_register_output (l, tn, 0, as_int);
  }
  t = simnpu__tfjs_new_tensor (l, tn->name, false, dt, rank, dims, NULL);
  if (t < 0)
    return t;
  l->g->inputs[l->g->n_inputs++] = t;
  return 0;
}

/* ------------------------------------------------------------------ */

static const tfjs_op *
find_in (const tfjs_op * ops, unsigned n, const char *op)
{
  unsigned i;

  for (i = 0; i < n; i++)
    if (strcmp (ops[i].op, op) == 0)
      return &ops[i];
  return NULL;
}

const tfjs_op *
simnpu__tfjs_find_op (const char *op)
{
  const tfjs_op *found = find_in (simnpu__tfjs_nn_ops, simnpu__tfjs_n_nn_ops,
      op);

  if (found == NULL)
    found = find_in (simnpu__tfjs_shape_ops, simnpu__tfjs_n_shape_ops, op);
  return found ? found : find_in (simnpu__tfjs_index_ops,
      simnpu__tfjs_n_index_ops, op);
}

/* ------------------------------------------------------------------ */
/* Control flow: TF's while loops and conds (the dataflow form of
 * tf.while_loop and tf.cond, whose NextIteration -> Merge edges are the
 * graph's only cycles). A while loop of a constant trip count is unrolled
 * (tfjs-loop.c), a cond of a constant predicate is the branch it takes
 * (tfjs-cond.c); the rest is not run: the graph is cut before it, as
 * before an unsupported op, and what feeds it becomes the outputs. Such a
 * loop is almost always an NMS, which axnms does. */

bool
simnpu__tfjs_is_control_flow (const char *op)
{
  static const char *const ops[] = {
    "Enter", "RefEnter", "Exit", "RefExit", "Merge", "RefMerge", "Switch",
    "RefSwitch", "NextIteration", "RefNextIteration", "LoopCond",
    "While", "StatelessWhile", "If", "StatelessIf",
  };
  unsigned i;

  for (i = 0; i < G_N_ELEMENTS (ops); i++)
    if (strcmp (op, ops[i]) == 0)
      return true;
  return false;
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
  JsonArray *nodes =
      simnpu__tfjs_get_array (simnpu__tfjs_get_object (root, "modelTopology"),
      "node");
  unsigned i, j;

  if (nodes == NULL)
    return simnpu__tfjs_fail (l, SIMNPU_EFORMAT,
        "no modelTopology.node array; expected a TF.js graph model");
  l->n_nodes = json_array_get_length (nodes);
  if (l->n_nodes > SIMNPU_IR_MAX_NODES)
    return simnpu__tfjs_fail (l, SIMNPU_ENOMEM, "%u nodes; expected at most %d",
        l->n_nodes, SIMNPU_IR_MAX_NODES);
  l->nodes = g_new0 (tfjs_node, MAX (l->n_nodes, 1));
  for (i = 0; i < l->n_nodes; i++) {
    JsonNode *jn = json_array_get_element (nodes, i);
    JsonObject *o = JSON_NODE_HOLDS_OBJECT (jn) ? json_node_get_object (jn)
        : NULL;
    tfjs_node *tn = &l->nodes[i];
    JsonArray *inputs = simnpu__tfjs_get_array (o, "input");
    unsigned n_in = inputs ? json_array_get_length (inputs) : 0;

    tn->poison = TFJS_NO_POISON;
    tn->taken = -1;
    tn->name = simnpu__tfjs_get_string (o, "name");
    tn->op = simnpu__tfjs_get_string (o, "op");
    if (tn->name == NULL || tn->op == NULL)
      return simnpu__tfjs_fail (l, SIMNPU_EFORMAT,
          "modelTopology.node[%u]: expected 'name' and 'op' strings", i);
    if (strcmp (tn->op, "Placeholder") == 0)
      l->n_placeholders++;
    if (o && json_object_has_member (o, "attr")) {
      tn->attr = simnpu__tfjs_get_object (o, "attr");
      if (tn->attr == NULL)
        return simnpu__tfjs_fail (l, SIMNPU_EFORMAT,
            "node '%s': 'attr' is not an object", tn->name);
    }
    if (g_hash_table_contains (l->node_by_name, tn->name))
      return simnpu__tfjs_fail (l, SIMNPU_EFORMAT, "two nodes are named '%s'",
          tn->name);
    g_hash_table_insert (l->node_by_name, (gpointer) tn->name,
        GUINT_TO_POINTER (i + 1));
    if (n_in > TFJS_MAX_NODE_INPUTS)
      return simnpu__tfjs_fail (l, SIMNPU_EFORMAT,
          "node '%s': %u inputs; expected at most %d", tn->name, n_in,
          TFJS_MAX_NODE_INPUTS);
    tn->inputs = g_new0 (tfjs_ref, MAX (n_in, 1));
    tn->input_nodes = g_new0 (int, MAX (n_in, 1));
    tn->ctrl_nodes = g_new0 (int, MAX (n_in, 1));
    for (j = 0; j < n_in; j++) {
      const char *s =
          simnpu__tfjs_node_string (json_array_get_element (inputs, j));
      char *own;
      if (s == NULL)
        return simnpu__tfjs_fail (l, SIMNPU_EFORMAT,
            "node '%s': input %u is not a string", tn->name, j);
      if (parse_ref (s, &tn->inputs[tn->n_inputs], &own))
        tn->n_inputs++;
      if (own)
        g_ptr_array_add (owned, own);
    }
  }
  for (i = 0; i < l->n_nodes; i++) {
    tfjs_node *tn = &l->nodes[i];
    JsonNode *jn = json_array_get_element (nodes, i);
    JsonArray *inputs = simnpu__tfjs_get_array (json_node_get_object (jn),
        "input");
    unsigned n_in = inputs ? json_array_get_length (inputs) : 0;

    for (j = 0; j < tn->n_inputs; j++) {
      gpointer p = g_hash_table_lookup (l->node_by_name, tn->inputs[j].name);
      if (p == NULL)
        return simnpu__tfjs_fail (l, SIMNPU_EFORMAT,
            "node '%s': input '%s' names no node", tn->name,
            tn->inputs[j].name);
      tn->input_nodes[j] = GPOINTER_TO_INT (p) - 1;
    }
    /* the control inputs: a cond's constants depend on its pivot so */
    for (j = 0; j < n_in; j++) {
      const char *s =
          simnpu__tfjs_node_string (json_array_get_element (inputs, j));
      gpointer p;
      if (s[0] != '^')
        continue;
      p = g_hash_table_lookup (l->node_by_name, s + 1);
      if (p == NULL)
        return simnpu__tfjs_fail (l, SIMNPU_EFORMAT,
            "node '%s': control input '%s' names no node", tn->name, s + 1);
      tn->ctrl_nodes[tn->n_ctrl++] = GPOINTER_TO_INT (p) - 1;
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
      /* a loop's back edge is not followed (tfjs-loop.c) */
      if (next[v] < simnpu__tfjs_n_deps (l, v)) {
        int d = simnpu__tfjs_dep (l, v, next[v]++);
        unsigned u = (unsigned) d;
        if (d < 0)
          continue;
        if (state[u] == GREY) {
          ret =
              simnpu__tfjs_fail (l, SIMNPU_EFORMAT,
              "node '%s' depends on itself (a cycle through '%s', with no "
              "NextIteration -> Merge loop edge on it)",
              l->nodes[u].name, tn->name);
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

/* The tensor a reference names, or -1 */
static int
find_tensor (tfjs_loader * l, const tfjs_ref * r)
{
  char *key = r->output ? g_strdup_printf ("%s:%u", r->name, r->output)
      : g_strdup (r->name);
  gpointer p = g_hash_table_lookup (l->tensors, key);

  g_free (key);
  return p ? GPOINTER_TO_INT (p) - 1 : -1;
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
  ret =
      simnpu__tfjs_fail (l, SIMNPU_EFORMAT,
      "input '%s:%u' does not exist (that node has fewer outputs)", r->name,
      r->output);
  return ret;
}

int
simnpu__tfjs_translate_node (tfjs_loader * l, unsigned idx)
{
  tfjs_node *tn = &l->nodes[idx];
  const tfjs_op *op;
  int in[TFJS_MAX_NODE_INPUTS];
  unsigned i;
  int ret;

  l->cur = tn;
  if (l->frame_of != NULL && l->frame_of[idx] >= 0)
    return simnpu__tfjs_frame_node (l, idx);
  if (simnpu__tfjs_cond_dead (l, tn)) {
    tn->dead = true;
    return 0;
  }
  if (simnpu__tfjs_is_cond_op (tn->op))
    return simnpu__tfjs_tr_cond (l, idx);
  if (simnpu__tfjs_is_control_flow (tn->op)) {
    tn->poison = (int) idx;
    return 0;
  }
  for (i = 0; i < tn->n_inputs; i++)
    if (l->nodes[tn->input_nodes[i]].poison != TFJS_NO_POISON) {
      tn->poison = l->nodes[tn->input_nodes[i]].poison;
      return 0;
    }
  if (strcmp (tn->op, "Const") == 0) {
    /* a loop's body may have read it already */
    if (g_hash_table_contains (l->tensors, tn->name))
      return 0;
    return tn->n_inputs ? simnpu__tfjs_fail (l, SIMNPU_EFORMAT,
        "a Const with inputs")
        : tr_const (l, tn);
  }
  if (g_str_has_prefix (tn->op, "TensorList")) {
    ret = simnpu__tfjs_tr_list (l, idx);
    if (ret == TFJS_DECLINED)
      tn->poison = (int) idx;
    return ret < 0 ? ret : 0;
  }
  if (strcmp (tn->op, "Placeholder") == 0)
    return tn->n_inputs ? simnpu__tfjs_fail (l, SIMNPU_EFORMAT,
        "a Placeholder with inputs") : tr_placeholder (l, tn);
  if (strcmp (tn->op, "NoOp") == 0)
    return 0;
  op = simnpu__tfjs_find_op (tn->op);
  if (op == NULL) {
    tn->poison = (int) idx;
    return 0;
  }
  for (i = 0; i < tn->n_inputs; i++) {
    if (find_tensor (l, &tn->inputs[i]) < 0
        && g_hash_table_contains (l->lists, tn->inputs[i].name)) {
      /* a TensorList read as a tensor: left out as an unknown op */
      tn->poison = (int) idx;
      return 0;
    }
    in[i] = lookup_input (l, &tn->inputs[i]);
    if (in[i] < 0)
      return in[i];
  }
  if (!simnpu__tfjs_space_batch_check (l, tn, in, tn->n_inputs)) {
    tn->poison = (int) idx;
    return 0;
  }
  if (op->translate)
    ret = op->translate (l, tn, in);
  else
    ret = simnpu__tfjs_tr_elementwise (l, tn, in, op->ir_op);
  if (ret == TFJS_DECLINED)
    tn->poison = (int) idx;
  return ret < 0 ? ret : 0;
}

/* The signature's output names (modelTopology's "signature" or
 * userDefinedMetadata's), else every node nothing consumes. */
static int
find_outputs (tfjs_loader * l, JsonObject * root, GPtrArray * refs)
{
  JsonObject *sig = simnpu__tfjs_get_object (root, "signature");
  JsonObject *outs;
  unsigned i, j;

  if (sig == NULL)
    sig =
        simnpu__tfjs_get_object (simnpu__tfjs_get_object (root,
            "userDefinedMetadata"), "signature");
  outs = simnpu__tfjs_get_object (sig, "outputs");
  if (outs && json_object_get_size (outs) > 0) {
    GList *members = json_object_get_members (outs), *m;
    for (m = members; m; m = m->next) {
      JsonObject *o = simnpu__tfjs_get_object (outs, m->data);
      const char *name = simnpu__tfjs_get_string (o, "name");
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

/* The cut before control flow: the float tensors, computed from the
 * input, that the left-out part reads become outputs. Returns the first
 * control-flow node, or NULL when the graph has none. */
static const tfjs_node *
cut_before_control_flow (tfjs_loader * l, GString * added)
{
  const tfjs_node *cf = NULL;
  bool *dep;
  unsigned i, j, k;

  /* a node of a folded cond that carries the poison of an unsupported
   * op is not what the cut is for */
  for (i = 0; i < l->n_nodes && cf == NULL; i++)
    if (simnpu__tfjs_is_control_flow (l->nodes[i].op)
        && l->nodes[i].poison != TFJS_NO_POISON
        && simnpu__tfjs_is_control_flow (l->nodes[l->nodes[i].poison].op))
      cf = &l->nodes[i];
  if (cf == NULL)
    return NULL;
  dep = simnpu__import_data_dependent (l->g);
  for (i = 0; i < l->n_nodes; i++) {
    const tfjs_node *tn = &l->nodes[i];
    if (tn->poison == TFJS_NO_POISON)
      continue;
    for (j = 0; j < tn->n_inputs; j++) {
      const tfjs_node *src = &l->nodes[tn->input_nodes[j]];
      int t;
      if (src->poison != TFJS_NO_POISON)
        continue;
      t = find_tensor (l, &tn->inputs[j]);
      if (t < 0 || !dep[t] || T (l, t)->is_const
          || T (l, t)->dtype != SIMNPU_IR_F32)
        continue;
      for (k = 0; k < l->g->n_outputs; k++)
        if (l->g->outputs[k] == t)
          break;
      if (k < l->g->n_outputs)
        continue;
      if (l->g->n_outputs >= SIMNPU_IR_MAX_OUTPUTS) {
        g_string_append_printf (added, "%s(and more, above the %d outputs "
            "a model may have)", added->len ? ", " : "", SIMNPU_IR_MAX_OUTPUTS);
        g_free (dep);
        return cf;
      }
      l->g->outputs[l->g->n_outputs++] = t;
      g_string_append_printf (added, "%s'%s'", added->len ? ", " : "",
          T (l, t)->name);
    }
  }
  g_free (dep);
  return cf;
}

/* What the cut part is, for the messages: a loop, as a rule the model's
 * NMS (axnms does it), or a cond whose predicate is no constant
 * (--input-value may make it one). g_free() the result. */
static char *
control_flow_what (const tfjs_loader * l, const tfjs_node * cf)
{
  unsigned idx = (unsigned) (cf - l->nodes);
  char *inputs, *what;

  if (!simnpu__tfjs_is_cond_op (cf->op) || (l->frame_of != NULL
          && l->frame_of[idx] >= 0))
    return g_strdup ("a TF while loop, usually the model's NMS, which axnms "
        "does on the outputs left");
  if (strcmp (cf->op, "If") == 0 || strcmp (cf->op, "StatelessIf") == 0)
    return g_strdup ("a tf.cond in functional form, whose branches "
        "simnpu-compile does not take");
  inputs = simnpu__tfjs_cond_inputs (l, cf);
  if (inputs == NULL)
    return g_strdup ("a tf.cond whose predicate is not a constant");
  what = g_strdup_printf ("a tf.cond whose predicate is not a constant; it "
      "reads the input%s %s: if that is constant in use, --input-value "
      "NAME=NUMBER fixes it and keeps only the branch taken",
      strchr (inputs, ',') ? "s" : "", inputs);
  g_free (inputs);
  return what;
}

static int
set_outputs (tfjs_loader * l, JsonObject * root)
{
  GPtrArray *refs = g_ptr_array_new ();
  GString *dropped = g_string_new (NULL), *untaken = g_string_new (NULL);
  int first_poison = TFJS_NO_POISON;
  unsigned i;
  int ret = find_outputs (l, root, refs);

  l->cur = NULL;
  for (i = 0; i < refs->len && ret == 0; i++) {
    tfjs_ref r = { 0 };
    char *own;
    gpointer p;
    const char *s = g_ptr_array_index (refs, i);

    parse_ref (s[0] == '^' ? s + 1 : s, &r, &own);
    p = g_hash_table_lookup (l->node_by_name, r.name);
    if (p == NULL) {
      ret =
          simnpu__tfjs_fail (l, SIMNPU_EFORMAT,
          "the signature's output '%s' names no node", s);
    } else if (l->nodes[GPOINTER_TO_INT (p) - 1].dead) {
      g_string_append_printf (untaken, "%s'%s'", untaken->len ? ", " : "", s);
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
        ret = simnpu__tfjs_fail (l, SIMNPU_EUNSUPPORTED, "more than %d outputs",
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
  if (ret == 0 && untaken->len) {
    if (l->g->n_outputs == 0)
      ret = simnpu__tfjs_fail (l, SIMNPU_EINVAL, "every output is in a "
          "branch that a tf.cond does not take with the inputs fixed by "
          "--input-value: %s", untaken->str);
    else
      g_message ("tfjs: left out outputs in a branch that a tf.cond does "
          "not take with the inputs fixed by --input-value: %s", untaken->str);
  }
  if (ret == 0 && dropped->len) {
    GString *added = g_string_new (NULL);
    const tfjs_node *cf = cut_before_control_flow (l, added);
    char *what = cf ? control_flow_what (l, cf) : NULL;

    if (cf != NULL && l->g->n_outputs == 0)
      ret = simnpu__tfjs_fail (l, SIMNPU_EUNSUPPORTED, "every output needs "
          "the graph's control flow (node '%s', op %s: %s), which "
          "simnpu-compile does not run, here before any output can be "
          "computed", cf->name, cf->op, what);
    else if (cf != NULL && added->len)
      g_message ("tfjs: the graph has control flow (node '%s', op %s: %s), "
          "which simnpu-compile does not run; it is cut before it. Outputs "
          "dropped: %s. Outputs added, the tensors the cut part reads: %s.",
          cf->name, cf->op, what, dropped->str, added->str);
    else if (cf != NULL)
      g_message ("tfjs: the graph has control flow (node '%s', op %s: %s), "
          "which simnpu-compile does not run; it is cut before it. Outputs "
          "dropped: %s; the outputs left read nothing of the cut part.",
          cf->name, cf->op, what, dropped->str);
    if (cf != NULL)
      g_string_truncate (dropped, 0);
    g_string_free (added, TRUE);
    g_free (what);
  }
  if (ret == 0 && l->g->n_outputs == 0) {
    if (first_poison != TFJS_NO_POISON)
      ret =
          simnpu__tfjs_fail (l, SIMNPU_EUNSUPPORTED,
          "node '%s' has op '%s', which is "
          "not supported, and every output depends on it",
          l->nodes[first_poison].name, l->nodes[first_poison].op);
    else
      ret = simnpu__tfjs_fail (l, SIMNPU_EFORMAT, "the graph has no outputs");
  } else if (ret == 0 && dropped->len) {
    g_message ("tfjs: left out outputs needing unsupported ops: %s",
        dropped->str);
  }
  g_string_free (dropped, TRUE);
  g_string_free (untaken, TRUE);
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
    ret =
        simnpu__tfjs_fail (l, SIMNPU_EFORMAT,
        "model.json is not a JSON object");
    goto out;
  }
  ret = simnpu__tfjs_load_weights (l, root, reader, user_data);
  if (ret == 0)
    ret = parse_nodes (l, root, owned);
  if (ret < 0)
    goto out;
  ret = simnpu__tfjs_find_frames (l);
  if (ret < 0)
    goto out;
  order = g_new (unsigned, MAX (l->n_nodes, 1));
  ret = topo_sort (l, order);
  if (ret == 0)
    simnpu__tfjs_frames_order (l, order);
  for (i = 0; i < l->n_nodes && ret == 0; i++)
    ret = simnpu__tfjs_translate_node (l, order[i]);
  if (ret == 0)
    simnpu__tfjs_frames_finish (l);
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
  return simnpu__tfjs_load_data_shaped (json, size, reader, user_data, NULL,
      out, error);
}

int
simnpu__tfjs_load_data_shaped (const char *json, size_t size,
    simnpu__tfjs_shard_reader reader, gpointer user_data,
    simnpu__input_shapes * shapes, simnpu__ir_graph ** out,
    simnpu_error * error)
{
  tfjs_loader l = { 0 };
  JsonParser *parser;
  GError *err = NULL;
  int ret;

  *out = NULL;
  l.error = error;
  l.shapes = shapes;
  if (size > TFJS_MAX_JSON_BYTES)
    return simnpu__tfjs_fail (&l, SIMNPU_ENOMEM,
        "model.json: %zu bytes; expected at most %" G_GINT64_FORMAT, size,
        TFJS_MAX_JSON_BYTES);
  if (simnpu__json_depth (json, size) > TFJS_MAX_JSON_DEPTH)
    return simnpu__tfjs_fail (&l, SIMNPU_EFORMAT,
        "model.json: nested deeper than %d levels", TFJS_MAX_JSON_DEPTH);
  {
    char msg[SIMNPU_ERROR_MESSAGE_SIZE];
    if (simnpu__json_find_bad_int (json, size, msg, sizeof (msg)))
      return simnpu__tfjs_fail (&l, SIMNPU_EFORMAT, "model.json: %s", msg);
  }
  parser = json_parser_new ();
  if (!json_parser_load_from_data (parser, json, (gssize) size, &err)) {
    ret =
        simnpu__tfjs_fail (&l, SIMNPU_EFORMAT, "model.json: %s", err->message);
    g_error_free (err);
    g_object_unref (parser);
    return ret;
  }
  l.g = simnpu__ir_graph_new ("tfjs");
  l.weights = g_hash_table_new_full (g_str_hash, g_str_equal, NULL,
      simnpu__tfjs_weight_free);
  l.node_by_name = g_hash_table_new (g_str_hash, g_str_equal);
  l.tensors = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);

  ret = load_root (&l, json_parser_get_root (parser), reader, user_data);

  if (l.nodes) {
    unsigned i;
    for (i = 0; i < l.n_nodes; i++) {
      g_free (l.nodes[i].inputs);
      g_free (l.nodes[i].input_nodes);
      g_free (l.nodes[i].ctrl_nodes);
    }
    g_free (l.nodes);
  }
  simnpu__tfjs_frames_free (&l);
  g_hash_table_destroy (l.weights);
  g_hash_table_destroy (l.node_by_name);
  g_hash_table_destroy (l.tensors);
  if (l.space_batch)
    g_hash_table_destroy (l.space_batch);
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
  /* the shards' paths, for the graph's model_files */
  GPtrArray *files;
} tfjs_file_reader;

/* A shard of the model's own folder only: a hostile manifest could name
 * any file of the user's and carry its bytes into the compiled model. */
static GBytes *
read_shard (const char *path, gpointer user_data, GError ** error)
{
  tfjs_file_reader *r = user_data;
  char *full = simnpu__file_resolve_inside (r->dir, path, "weights shard",
      error);
  gchar *contents = NULL;
  gsize len = 0;

  if (full != NULL)
    g_ptr_array_add (r->files, g_strdup (full));
  if (full == NULL || !simnpu__file_read (full, "weights shard",
          SIMNPU_FILE_MAX_WEIGHTS_BYTES, &contents, &len, error)) {
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
  return simnpu__tfjs_load_file_shaped (model_json, NULL, out, error);
}

int
simnpu__tfjs_load_file_shaped (const char *model_json,
    simnpu__input_shapes * shapes, simnpu__ir_graph ** out,
    simnpu_error * error)
{
  tfjs_file_reader r;
  gchar *contents = NULL;
  gsize len = 0;
  GError *err = NULL;
  int ret;

  *out = NULL;
  if (!simnpu__file_read (model_json, "model", TFJS_MAX_JSON_BYTES,
          &contents, &len, &err)) {
    ret = simnpu__set_error (error, SIMNPU_EIO, "%s", err->message);
    g_error_free (err);
    return ret;
  }
  r.dir = g_path_get_dirname (model_json);
  r.files = g_ptr_array_new_with_free_func (g_free);
  ret = simnpu__tfjs_load_data_shaped (contents, len, read_shard, &r, shapes,
      out, error);
  if (ret == 0 && r.files->len > 0) {
    g_ptr_array_add (r.files, NULL);
    (*out)->model_files = (char **) g_ptr_array_free (r.files, FALSE);
  } else {
    g_ptr_array_unref (r.files);
  }
  g_free (r.dir);
  g_free (contents);
  return ret;
}
