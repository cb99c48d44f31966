/* gst-ax
 * Copyright (C) 2026 gst-ax developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

/* The float executor of the IR: one buffer per tensor allocated once (or
 * one arena for them all, planned by their live ranges), weights packed
 * once where they are constant, and the loop that runs a range of nodes
 * through the op table's kernels (ir-exec-*.c). */

#include "ir-exec-private.h"

static void *
try_alloc0 (int64_t bytes)
{
  return g_try_malloc0 ((gsize) MAX (bytes, 1));
}

/* Elements of a conv's zero-padded input copy: 0 when it has no padding,
 * -1 when the copy would be larger than the executor allocates. */
static int64_t
conv_pad_elements (const simnpu__ir_graph * g, const simnpu__ir_node * n)
{
  const simnpu__ir_attrs *at = &n->attrs;
  const simnpu__ir_tensor *ti;
  int64_t hp, wp, e;

  if (n->op != SIMNPU_IR_CONV2D || n->n_inputs < 1 || n->inputs[0] < 0
      || !(at->pads[0] || at->pads[1] || at->pads[2] || at->pads[3]))
    return 0;
  ti = &g->tensors[n->inputs[0]];
  if (ti->rank != 4)
    return -1;
  /* depthwise reads the unpadded input (as simnpu__ir_conv_geometry says:
   * one input and one output channel per group) */
  if (n->n_inputs > 1 && n->inputs[1] >= 0 && at->groups > 0) {
    const simnpu__ir_tensor *w = &g->tensors[n->inputs[1]];
    if (w->rank == 4 && w->dims[3] == 1 && w->dims[0] == at->groups)
      return 0;
  }
  hp = ti->dims[1] + at->pads[0] + at->pads[2];
  wp = ti->dims[2] + at->pads[1] + at->pads[3];
  e = ti->dims[0] * hp;
  if (e < 0 || e > SIMNPU_IR_MAX_ELEMENTS || (e *= wp) > SIMNPU_IR_MAX_ELEMENTS
      || (e *= ti->dims[3]) > SIMNPU_IR_MAX_ELEMENTS || e < 0)
    return -1;
  return e;
}

/* The live ranges of a whole-graph run, in node steps: entry t for tensor
 * t (not a constant) from the node making it (section inputs: the first
 * step) to the last node reading it (section outputs: past the last
 * node, the caller reads them after the run); entry n_tensors + i for
 * node i's padded input copy, live during node i only. */
static simnpu__live_buffer *
ir_live_ranges (const simnpu__ir_graph * g, simnpu_error * error)
{
  unsigned n = g->n_tensors + g->n_nodes, i, k;
  simnpu__live_buffer *b = g_new0 (simnpu__live_buffer, MAX (n, 1));

  for (i = 0; i < g->n_tensors; i++) {
    const simnpu__ir_tensor *t = &g->tensors[i];
    int64_t e = simnpu__ir_tensor_elements (t);
    b[i].first = (int) g->n_nodes;
    b[i].last = 0;
    if (e < 0 || e > SIMNPU_IR_MAX_ELEMENTS) {
      simnpu__set_error (error, SIMNPU_ESHAPE, "tensor '%s': %"
          G_GINT64_FORMAT " elements; expected 0 to 2^28 (were shapes "
          "inferred?)", t->name, (gint64) e);
      g_free (b);
      return NULL;
    }
    if (!t->is_const)
      b[i].bytes = simnpu__ir_tensor_bytes (t);
  }
  for (i = 0; i < g->n_inputs; i++)
    if (g->inputs[i] >= 0 && (unsigned) g->inputs[i] < g->n_tensors)
      b[g->inputs[i]].first = 0;
  for (i = 0; i < g->n_nodes; i++) {
    const simnpu__ir_node *nd = &g->nodes[i];
    int64_t pad = conv_pad_elements (g, nd);
    for (k = 0; k < nd->n_inputs; k++)
      if (nd->inputs[k] >= 0 && (unsigned) nd->inputs[k] < g->n_tensors)
        b[nd->inputs[k]].last = MAX (b[nd->inputs[k]].last, (int) i);
    for (k = 0; k < nd->n_outputs; k++) {
      simnpu__live_buffer *o;
      if (nd->outputs[k] < 0 || (unsigned) nd->outputs[k] >= g->n_tensors)
        continue;
      o = &b[nd->outputs[k]];
      o->first = MIN (o->first, (int) i);
      o->last = MAX (o->last, (int) i);
    }
    if (pad < 0) {
      simnpu__set_error (error, SIMNPU_ENOMEM, "node '%s': padded input "
          "too large", nd->name);
      g_free (b);
      return NULL;
    }
    b[g->n_tensors + i].bytes = (size_t) pad *sizeof (float);
    b[g->n_tensors + i].first = b[g->n_tensors + i].last = (int) i;
  }
  for (i = 0; i < g->n_outputs; i++)
    if (g->outputs[i] >= 0 && (unsigned) g->outputs[i] < g->n_tensors)
      b[g->outputs[i]].last = (int) g->n_nodes;
  /* a tensor no node makes or reads */
  for (i = 0; i < g->n_tensors; i++)
    if (b[i].first > b[i].last)
      b[i].first = b[i].last;
  return b;
}

int
simnpu__ir_plan_memory (const simnpu__ir_graph * g, size_t *planned_bytes,
    size_t *flat_bytes, simnpu_error * error)
{
  simnpu__live_buffer *b = ir_live_ranges (g, error);
  unsigned n = g->n_tensors + g->n_nodes;

  if (b == NULL)
    return error != NULL && error->code < 0 ? error->code : SIMNPU_ESHAPE;
  if (planned_bytes != NULL)
    *planned_bytes = simnpu__memplan (b, n, SIMNPU_IR_ARENA_ALIGN);
  if (flat_bytes != NULL)
    *flat_bytes = simnpu__memplan_flat (b, n, SIMNPU_IR_ARENA_ALIGN);
  g_free (b);
  return 0;
}

/* per-node buffers: packed weights, padded input copies (in the arena
 * when there is one) */
static int
exec_node_buffers (simnpu__ir_exec * x, unsigned id, simnpu_error * error)
{
  const simnpu__ir_node *n = &x->g->nodes[id];
  const simnpu__ir_attrs *at = &n->attrs;

  if (n->op == SIMNPU_IR_CONV2D) {
    const simnpu__ir_tensor *ti = tin (x, n, 0), *tw = tin (x, n, 1);
    int64_t wsize, size;
    conv_geom cg;
    simnpu__ir_conv_geometry (x, n, &cg);
    size = simnpu__ir_conv_packed_size (&cg, &wsize);
    if (size > SIMNPU_IR_MAX_ELEMENTS
        || (x->packed[id] = try_alloc0 (size * (int64_t) sizeof (float)))
        == NULL)
      return run_error (error, SIMNPU_ENOMEM, n, "packed weights too large");
    if (tw->is_const) {
      simnpu__ir_conv_pack_weights (&cg, tw->data, x->packed[id]);
      x->packed_const[id] = true;
    }
    if (x->arena != NULL) {
      /* the plan placed it */
    } else if (!cg.depthwise && (at->pads[0] || at->pads[1] || at->pads[2]
            || at->pads[3])) {
      /* depthwise reads the unpadded input */
      int64_t hp = ti->dims[1] + at->pads[0] + at->pads[2];
      int64_t wp = ti->dims[2] + at->pads[1] + at->pads[3];
      int64_t e = ti->dims[0] * hp;
      if (e > SIMNPU_IR_MAX_ELEMENTS || (e *= wp) > SIMNPU_IR_MAX_ELEMENTS
          || (e *= ti->dims[3]) > SIMNPU_IR_MAX_ELEMENTS
          || (x->scratch[id] = try_alloc0 (e * (int64_t) sizeof (float)))
          == NULL)
        return run_error (error, SIMNPU_ENOMEM, n, "padded input too large");
    }
  } else if (n->op == SIMNPU_IR_MATMUL && tin (x, n, 0)->dtype == SIMNPU_IR_F32) {
    const simnpu__ir_tensor *tb = tin (x, n, 1);
    int64_t size;
    mm_geom mg;
    simnpu__ir_matmul_geometry (tin (x, n, 0), tb, &mg);
    size = mg.n_bmats * mg.blocks * mg.k;
    if (size > SIMNPU_IR_MAX_ELEMENTS / WIDE_BLOCK
        || (x->packed[id] = try_alloc0 ((size + mg.blocks) * mg.bw *
                (int64_t) sizeof (float))) == NULL)
      return run_error (error, SIMNPU_ENOMEM, n, "packed weights too large");
    if (tb->is_const) {
      simnpu__ir_matmul_pack (&mg, tb->data, x->packed[id]);
      x->packed_const[id] = true;
    }
  } else if (n->op == SIMNPU_IR_BATCHNORM) {
    const simnpu__ir_tensor *t = tin (x, n, 0);
    x->scratch[id] = try_alloc0 (2 * t->dims[t->rank - 1] *
        (int64_t) sizeof (float));
    if (x->scratch[id] == NULL)
      return run_error (error, SIMNPU_ENOMEM, n, "out of memory");
  }
  return 0;
}

/* The buffers of the tensors: one each, or their places in the arena at
 * the plan's offsets. */
static int
exec_tensor_buffers (simnpu__ir_exec * x, const simnpu__live_buffer * plan,
    simnpu_error * error)
{
  const simnpu__ir_graph *g = x->g;
  unsigned i;

  for (i = 0; i < g->n_tensors; i++) {
    const simnpu__ir_tensor *t = &g->tensors[i];
    if (simnpu__ir_tensor_elements (t) < 0)
      return simnpu__set_error (error, SIMNPU_ESHAPE,
          "tensor '%s': invalid shape (were shapes inferred?)", t->name);
    if (t->is_const) {
      x->bufs[i] = t->data != NULL ? t->data : &x->empty;
      continue;
    }
    if (plan != NULL) {
      x->bufs[i] = x->arena + plan[i].offset;
      continue;
    }
    x->bufs[i] = try_alloc0 ((int64_t) simnpu__ir_tensor_bytes (t));
    if (x->bufs[i] == NULL)
      return simnpu__set_error (error, SIMNPU_ENOMEM,
          "tensor '%s': out of memory for %zu bytes", t->name,
          simnpu__ir_tensor_bytes (t));
  }
  if (plan != NULL)
    for (i = 0; i < g->n_nodes; i++)
      if (plan[g->n_tensors + i].bytes > 0)
        x->scratch[i] = (float *) (void *) (x->arena +
            plan[g->n_tensors + i].offset);
  return 0;
}

static simnpu__ir_exec *
exec_new (const simnpu__ir_graph * g, bool planned, simnpu_error * error)
{
  simnpu__live_buffer *plan = NULL;
  simnpu__ir_exec *x;
  unsigned i;

  if (g == NULL) {
    simnpu__set_error (error, SIMNPU_EINVAL, "no graph");
    return NULL;
  }
  x = g_new0 (simnpu__ir_exec, 1);
  x->g = g;
  x->bufs = g_new0 (void *, MAX (g->n_tensors, 1));
  x->packed = g_new0 (float *, MAX (g->n_nodes, 1));
  x->packed_const = g_new0 (bool, MAX (g->n_nodes, 1));
  x->scratch = g_new0 (float *, MAX (g->n_nodes, 1));
  if (planned) {
    if ((plan = ir_live_ranges (g, error)) == NULL)
      goto fail;
    x->arena_bytes = simnpu__memplan (plan, g->n_tensors + g->n_nodes,
        SIMNPU_IR_ARENA_ALIGN);
    x->arena_mem = g_try_malloc0 (x->arena_bytes + SIMNPU_IR_ARENA_ALIGN);
    if (x->arena_mem == NULL) {
      simnpu__set_error (error, SIMNPU_ENOMEM, "out of memory for the "
          "tensors' arena of %zu bytes", x->arena_bytes);
      goto fail;
    }
    x->arena = (uint8_t *) (((uintptr_t) x->arena_mem +
            SIMNPU_IR_ARENA_ALIGN - 1) & ~(uintptr_t) (SIMNPU_IR_ARENA_ALIGN -
            1));
  }
  if (exec_tensor_buffers (x, plan, error) < 0)
    goto fail;
  g_clear_pointer (&plan, g_free);
  for (i = 0; i < g->n_nodes; i++) {
    const simnpu__ir_node *n = &g->nodes[i];
    if ((unsigned) n->op >= SIMNPU_IR_N_OPS) {
      simnpu__set_error (error, SIMNPU_EUNSUPPORTED,
          "node '%s': unknown op %d", n->name, (int) n->op);
      goto fail;
    }
    if (exec_node_buffers (x, i, error) < 0)
      goto fail;
  }
  return x;
fail:
  g_free (plan);
  simnpu__ir_exec_free (x);
  return NULL;
}

simnpu__ir_exec *
simnpu__ir_exec_new (const simnpu__ir_graph * g, simnpu_error * error)
{
  return exec_new (g, false, error);
}

simnpu__ir_exec *
simnpu__ir_exec_new_planned (const simnpu__ir_graph * g, simnpu_error * error)
{
  return exec_new (g, true, error);
}

void
simnpu__ir_exec_free (simnpu__ir_exec * x)
{
  unsigned i;

  if (x == NULL)
    return;
  for (i = 0; i < x->g->n_tensors && x->arena == NULL; i++)
    if (!x->g->tensors[i].is_const)
      g_free (x->bufs[i]);
  for (i = 0; i < x->g->n_nodes; i++) {
    g_free (x->packed[i]);
    if (x->arena == NULL || x->g->nodes[i].op != SIMNPU_IR_CONV2D)
      g_free (x->scratch[i]);
  }
  g_free (x->arena_mem);
  g_free (x->bufs);
  g_free (x->packed);
  g_free (x->packed_const);
  g_free (x->scratch);
  g_free (x);
}

const simnpu__ir_graph *
simnpu__ir_exec_graph (const simnpu__ir_exec * x)
{
  return x != NULL ? x->g : NULL;
}

void *
simnpu__ir_exec_data (simnpu__ir_exec * x, int t)
{
  if (x == NULL || t < 0 || (unsigned) t >= x->g->n_tensors)
    return NULL;
  return x->bufs[t];
}

void *
simnpu__ir_exec_bind (simnpu__ir_exec * x, int t, void *data)
{
  void *was;

  if (x == NULL || t < 0 || (unsigned) t >= x->g->n_tensors
      || x->g->tensors[t].is_const)
    return NULL;
  was = x->bufs[t];
  x->bufs[t] = data;
  return was;
}

/* calloc hands out fresh pages untouched: writing zeros keeps the
 * contents and maps them */
void
simnpu__ir_exec_prefault (simnpu__ir_exec * x, const bool *skip)
{
  unsigned i;

  if (x == NULL)
    return;
  /* the arena's bytes are shared: all of them are touched */
  if (x->arena != NULL)
    memset (x->arena, 0, x->arena_bytes);
  for (i = 0; i < x->g->n_tensors && x->arena == NULL; i++) {
    const simnpu__ir_tensor *t = &x->g->tensors[i];
    if (t->is_const || (skip != NULL && skip[i]))
      continue;
    memset (x->bufs[i], 0, simnpu__ir_tensor_bytes (t));
  }
  for (i = 0; i < x->g->n_nodes; i++) {
    const simnpu__ir_node *n = &x->g->nodes[i];
    int64_t bytes;
    /* the sizes are the ones exec_node_buffers allocated */
    if (x->scratch[i] != NULL && n->op == SIMNPU_IR_CONV2D && x->arena == NULL) {
      const simnpu__ir_tensor *ti = tin (x, n, 0);
      const simnpu__ir_attrs *at = &n->attrs;
      bytes = ti->dims[0] * (ti->dims[1] + at->pads[0] + at->pads[2]) *
          (ti->dims[2] + at->pads[1] + at->pads[3]) * ti->dims[3] *
          (int64_t) sizeof (float);
      memset (x->scratch[i], 0, (size_t) bytes);
    }
    if (x->packed[i] != NULL && !x->packed_const[i]
        && n->op == SIMNPU_IR_CONV2D) {
      int64_t wsize;
      conv_geom cg;
      simnpu__ir_conv_geometry (x, n, &cg);
      bytes =
          simnpu__ir_conv_packed_size (&cg, &wsize) * (int64_t) sizeof (float);
      memset (x->packed[i], 0, (size_t) bytes);
    }
  }
}

int
simnpu__ir_exec_run (simnpu__ir_exec * x, unsigned first, unsigned last,
    simnpu_error * error)
{
  unsigned i;

  if (x == NULL || first > last || last > x->g->n_nodes)
    return simnpu__set_error (error, SIMNPU_EINVAL,
        "ir exec: node range [%u, %u) invalid", first, last);
  for (i = first; i < last; i++) {
    const simnpu__ir_node *n = &x->g->nodes[i];
    bool empty = true;
    unsigned k;
    int ret;
    /* nothing to compute, and the loops over the other axes of an empty
     * tensor could still be long */
    for (k = 0; k < n->n_outputs && empty; k++)
      empty = simnpu__ir_tensor_elements (&x->g->tensors[n->outputs[k]])
          == 0;
    if (!empty && (ret = simnpu__ir_op_get (n->op)->run (x, n, error)) < 0)
      return ret;
    if (x->observer != NULL)
      x->observer (x, n, x->observer_data);
  }
  return 0;
}

void
simnpu__ir_exec_set_observer (simnpu__ir_exec * x,
    simnpu__ir_exec_observer observer, gpointer user_data)
{
  x->observer = observer;
  x->observer_data = user_data;
}
