/* gst-ax
 * Copyright (C) 2026 gst-ax developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

/* Generic passes over the float IR: constant folding, conv/matmul fusion,
 * pruning and cutting. Every pass keeps the nodes in execution order and
 * ends with the shapes inferred again. */

#include "ir.h"

#include <float.h>
#include <math.h>
#include <string.h>

/* a folded node's outputs stay below this (elements): folding must not
 * materialise huge constants (a tile or expand of a small one) */
#define FOLD_MAX_ELEMENTS (G_GINT64_CONSTANT (1) << 22)
/* and all the folded values of one call together stay below this (the
 * executor holds them at once); what is left folds on the next call */
#define FOLD_MAX_TOTAL_BYTES (G_GINT64_CONSTANT (1) << 28)
/* unknown-name errors list this many similar names */
#define NEAR_NAMES 3
/* names longer than this are not compared for similarity */
#define NEAR_MAX_LEN 256
/* hard swish as TF writes it: x * relu6 (x + 3) / 6 */
#define HARD_SWISH_SHIFT 3.0f
#define HARD_SWISH_CLIP 6.0f
#define HARD_SWISH_TOL 1e-3f
/* hard_sigmoid's beta in a hard swish, and how near 1/6 its alpha is (the
 * float of 1/6 and its spellings) */
#define HARD_SIGMOID_BETA 0.5f
#define HARD_SIGMOID_TOL 1e-6f

/* ------------------------------------------------------------------ */
/* Helpers */


static bool
is_graph_input (const simnpu__ir_graph * g, int t)
{
  unsigned i;

  for (i = 0; i < g->n_inputs; i++)
    if (g->inputs[i] == t)
      return true;
  return false;
}

/* Tensor names in use, built on first use, so that fresh names cost no
 * scan of the graph each. */
typedef struct
{
  GHashTable *taken;            /* names (owned) */
  GHashTable *next;             /* base -> the next suffix to try */
} name_set;

static void
name_set_clear (name_set * s)
{
  if (s->taken)
    g_hash_table_unref (s->taken);
  if (s->next)
    g_hash_table_unref (s->next);
  s->taken = s->next = NULL;
}

/* A name no tensor has: base, else base_1, base_2, ... (the first one
 * free: the suffixes below the one remembered for base are taken). The
 * caller gives it to a new tensor. */
static char *
fresh_name (const simnpu__ir_graph * g, name_set * s, const char *base)
{
  char *name = g_strdup (base);
  unsigned k;

  if (s->taken == NULL) {
    unsigned i;
    s->taken = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
    s->next = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
    for (i = 0; i < g->n_tensors; i++)
      g_hash_table_add (s->taken, g_strdup (g->tensors[i].name));
  }
  k = MAX (GPOINTER_TO_UINT (g_hash_table_lookup (s->next, base)), 1);
  while (g_hash_table_contains (s->taken, name)) {
    g_free (name);
    name = g_strdup_printf ("%s_%u", base, k++);
  }
  g_hash_table_replace (s->next, g_strdup (base), GUINT_TO_POINTER (k));
  g_hash_table_add (s->taken, g_strdup (name));
  return name;
}

/* Removes the nodes marked dead, keeping the others' order. */
static void
compact_nodes (simnpu__ir_graph * g, const bool *dead)
{
  unsigned i, o = 0;

  for (i = 0; i < g->n_nodes; i++) {
    if (dead[i]) {
      g_free (g->nodes[i].name);
      continue;
    }
    if (o != i)
      g->nodes[o] = g->nodes[i];
    o++;
  }
  g->n_nodes = o;
}

/* A modifiable copy of constant t (others may share the original). */
static int
clone_const (simnpu__ir_graph * g, name_set * names, int t,
    const char *suffix, simnpu_error * error)
{
  const simnpu__ir_tensor *c = &g->tensors[t];
  char *base = g_strdup_printf ("%s/%s", c->name, suffix);
  char *name = fresh_name (g, names, base);
  int64_t dims[SIMNPU_IR_MAX_RANK];
  simnpu__ir_dtype dtype = c->dtype;
  unsigned rank = c->rank;
  void *data = g_memdup2 (c->data, MAX (simnpu__ir_tensor_bytes (c), 1));
  int r;

  memcpy (dims, c->dims, sizeof dims);
  r = simnpu__ir_add_const (g, name, dtype, rank, dims, data);
  g_free (base);
  g_free (name);
  if (r < 0)
    return simnpu__set_error (error, SIMNPU_ENOMEM, "graph '%s': too many "
        "tensors", g->name);
  return r;
}

/* ------------------------------------------------------------------ */
/* Constant folding */

static void
fold_shape (simnpu__ir_graph * g, const simnpu__ir_node * n)
{
  const simnpu__ir_tensor *x = &g->tensors[n->inputs[0]];
  simnpu__ir_tensor *o = &g->tensors[n->outputs[0]];
  int64_t *data = g_new (int64_t, MAX (x->rank, 1));

  memcpy (data, x->dims, x->rank * sizeof (int64_t));
  g_free (o->data);
  o->data = data;
  o->is_const = true;
}

int
simnpu__ir_fold_constants (simnpu__ir_graph * g, simnpu_error * error)
{
  bool *cst, *fold;
  int *map = NULL;
  unsigned i, j, n_fold = 0;
  int64_t total = 0, bytes;
  simnpu__ir_graph *sub = NULL;
  simnpu__ir_exec *x = NULL;
  int ret = 0;

  cst = g_new0 (bool, MAX (g->n_tensors, 1));
  fold = g_new0 (bool, MAX (g->n_nodes, 1));
  for (i = 0; i < g->n_tensors; i++)
    cst[i] = g->tensors[i].is_const;
  for (i = 0; i < g->n_nodes; i++) {
    const simnpu__ir_node *n = &g->nodes[i];
    bool ok = n->n_outputs > 0;
    if (n->op == SIMNPU_IR_SHAPE && n->n_inputs == 1
        && n->inputs[0] != SIMNPU_IR_NONE) {
      fold_shape (g, n);
      cst[n->outputs[0]] = true;
      fold[i] = true;
      continue;
    }
    for (j = 0; j < n->n_inputs && ok; j++)
      if (n->inputs[j] != SIMNPU_IR_NONE && !cst[n->inputs[j]])
        ok = false;
    for (j = 0, bytes = 0; j < n->n_outputs && ok; j++) {
      int64_t e = simnpu__ir_tensor_elements (&g->tensors[n->outputs[j]]);
      if (e < 0 || e > FOLD_MAX_ELEMENTS)
        ok = false;
      bytes += simnpu__ir_tensor_bytes (&g->tensors[n->outputs[j]]);
    }
    for (j = 0; j < n->n_inputs && ok; j++)
      if (n->inputs[j] != SIMNPU_IR_NONE && g->tensors[n->inputs[j]].is_const)
        bytes += simnpu__ir_tensor_bytes (&g->tensors[n->inputs[j]]);
    if (!ok || total + bytes > FOLD_MAX_TOTAL_BYTES)
      continue;
    total += bytes;
    fold[i] = true;
    n_fold++;
    for (j = 0; j < n->n_outputs; j++)
      cst[n->outputs[j]] = true;
  }
  if (n_fold == 0)
    goto done;

  /* the folded nodes run on their own small graph */
  sub = simnpu__ir_graph_new ("fold");
  map = g_new (int, MAX (g->n_tensors, 1));
  for (i = 0; i < g->n_tensors; i++)
    map[i] = SIMNPU_IR_NONE;
  for (i = 0; i < g->n_nodes && ret == 0; i++) {
    const simnpu__ir_node *n = &g->nodes[i];
    int ins[SIMNPU_IR_MAX_INPUTS], outs[SIMNPU_IR_MAX_OUTPUTS];
    simnpu__ir_node *s;
    if (!fold[i] || n->op == SIMNPU_IR_SHAPE)
      continue;
    for (j = 0; j < n->n_inputs; j++) {
      int t = n->inputs[j];
      if (t != SIMNPU_IR_NONE && map[t] == SIMNPU_IR_NONE) {
        const simnpu__ir_tensor *c = &g->tensors[t];
        map[t] = simnpu__ir_add_const (sub, c->name, c->dtype, c->rank,
            c->dims, g_memdup2 (c->data, MAX (simnpu__ir_tensor_bytes (c), 1)));
      }
      ins[j] = t == SIMNPU_IR_NONE ? SIMNPU_IR_NONE : map[t];
    }
    for (j = 0; j < n->n_outputs; j++) {
      const simnpu__ir_tensor *o = &g->tensors[n->outputs[j]];
      outs[j] = map[n->outputs[j]] = simnpu__ir_add_tensor (sub, o->name,
          o->dtype, o->rank, o->dims);
    }
    s = simnpu__ir_add_node (sub, n->op, n->name, n->n_inputs, ins,
        n->n_outputs, outs);
    if (s == NULL)
      ret = simnpu__set_error (error, SIMNPU_ENOMEM, "graph '%s': constant "
          "folding ran out of room", g->name);
    else
      s->attrs = n->attrs;
  }
  if (ret == 0)
    ret = simnpu__ir_infer_shapes (sub, error);
  if (ret == 0) {
    x = simnpu__ir_exec_new (sub, error);
    if (x == NULL)
      ret = error && error->code < 0 ? error->code : SIMNPU_EINTERNAL;
  }
  if (ret == 0)
    ret = simnpu__ir_exec_run (x, 0, sub->n_nodes, error);
  for (i = 0; i < g->n_nodes && ret == 0; i++) {
    const simnpu__ir_node *n = &g->nodes[i];
    if (!fold[i] || n->op == SIMNPU_IR_SHAPE)
      continue;
    for (j = 0; j < n->n_outputs; j++) {
      simnpu__ir_tensor *o = &g->tensors[n->outputs[j]];
      const simnpu__ir_tensor *so = &sub->tensors[map[n->outputs[j]]];
      size_t bytes = simnpu__ir_tensor_bytes (so);
      /* the executor's inference is the truth for the folded value */
      o->dtype = so->dtype;
      o->rank = so->rank;
      memcpy (o->dims, so->dims, sizeof o->dims);
      g_free (o->data);
      o->data = g_memdup2 (simnpu__ir_exec_data (x, map[n->outputs[j]]),
          MAX (bytes, 1));
      o->is_const = true;
    }
  }
  if (x)
    simnpu__ir_exec_free (x);
  simnpu__ir_graph_free (sub);
  g_free (map);
  if (ret < 0) {
    /* undo the SHAPE folds so the graph stays as it was */
    for (i = 0; i < g->n_nodes; i++)
      if (fold[i] && g->nodes[i].op == SIMNPU_IR_SHAPE) {
        simnpu__ir_tensor *o = &g->tensors[g->nodes[i].outputs[0]];
        g_free (o->data);
        o->data = NULL;
        o->is_const = false;
      }
    g_free (cst);
    g_free (fold);
    return ret;
  }
done:
  compact_nodes (g, fold);
  g_free (cst);
  g_free (fold);
  return simnpu__ir_infer_shapes (g, error);
}

/* ------------------------------------------------------------------ */
/* Fusion */

/* What the fusion rewrites keep up to date: the nodes gone, the readers of
 * each tensor among the others, and the tensor names taken. A node is
 * detached before its inputs change and attached again after, or
 * killed. */
typedef struct
{
  bool *dead;
  /* per tensor: the input slots of live nodes reading it, and the sum of
   * their codes (node * SIMNPU_IR_MAX_INPUTS + slot), which is the code of
   * the one reader when there is one */
  unsigned *n_readers;
  gint64 *reader_sum;
  unsigned tensors_alloc;
  name_set names;
} fuse_state;

static void
readers_count (fuse_state * s, const simnpu__ir_graph * g, unsigned i, int sign)
{
  const simnpu__ir_node *n = &g->nodes[i];
  unsigned j, old = s->tensors_alloc;

  if (g->n_tensors > old) {
    s->tensors_alloc = MAX (g->n_tensors, 2 * old);
    s->n_readers = g_renew (unsigned, s->n_readers, s->tensors_alloc);
    s->reader_sum = g_renew (gint64, s->reader_sum, s->tensors_alloc);
    memset (s->n_readers + old, 0,
        (s->tensors_alloc - old) * sizeof (unsigned));
    memset (s->reader_sum + old, 0, (s->tensors_alloc - old) * sizeof (gint64));
  }
  for (j = 0; j < n->n_inputs; j++) {
    int t = n->inputs[j];
    if (t < 0)
      continue;
    s->n_readers[t] += sign;
    s->reader_sum[t] += sign * ((gint64) i * SIMNPU_IR_MAX_INPUTS + j);
  }
}

static void
readers_attach (fuse_state * s, const simnpu__ir_graph * g, unsigned i)
{
  readers_count (s, g, i, 1);
}

static void
readers_detach (fuse_state * s, const simnpu__ir_graph * g, unsigned i)
{
  readers_count (s, g, i, -1);
}

static void
kill_node (fuse_state * s, const simnpu__ir_graph * g, unsigned i)
{
  readers_detach (s, g, i);
  s->dead[i] = true;
}

/* The one live node reading t (and where), or -1 when t has no reader,
 * several, or is a graph output. */
static int
single_consumer (const simnpu__ir_graph * g, const fuse_state * s, int t,
    unsigned *slot)
{
  gint64 code;

  if (simnpu__ir_is_graph_output (g, t))
    return -1;
  if (t < 0 || (unsigned) t >= s->tensors_alloc || s->n_readers[t] != 1)
    return -1;
  code = s->reader_sum[t];
  *slot = (unsigned) (code % SIMNPU_IR_MAX_INPUTS);
  return (int) (code / SIMNPU_IR_MAX_INPUTS);
}

/* The value of per-channel constant c for channel o, when c broadcasts
 * along the last axis only (scalar, [C] or [1, ..., 1, C]) and its rank
 * does not exceed out_rank. */
static bool
per_channel (const simnpu__ir_graph * g, int c, int64_t channels,
    unsigned out_rank, const float **vals, bool *scalar)
{
  const simnpu__ir_tensor *t;
  int64_t n;
  unsigned i;

  if (c == SIMNPU_IR_NONE)
    return false;
  t = &g->tensors[c];
  if (!t->is_const || t->dtype != SIMNPU_IR_F32 || t->rank > out_rank)
    return false;
  n = simnpu__ir_tensor_elements (t);
  if (n == 1) {
    *scalar = true;
  } else if (n == channels) {
    for (i = 0; i + 1 < t->rank; i++)
      if (t->dims[i] != 1)
        return false;
    *scalar = false;
  } else {
    return false;
  }
  *vals = t->data;
  return true;
}

/* Output channels of a conv or matmul, and the weights' layout: weights
 * [oc, k] (conv, OHWI rows) or [k, oc] (matmul). */
static bool
fusable_producer (const simnpu__ir_graph * g, const simnpu__ir_node * n,
    int64_t * oc, int64_t * k, bool *rows)
{
  const simnpu__ir_tensor *w;

  if (n->n_inputs < 2 || n->inputs[1] == SIMNPU_IR_NONE)
    return false;
  w = &g->tensors[n->inputs[1]];
  if (!w->is_const || w->dtype != SIMNPU_IR_F32)
    return false;
  if (n->op == SIMNPU_IR_CONV2D && w->rank == 4) {
    *oc = w->dims[0];
    *k = w->dims[1] * w->dims[2] * w->dims[3];
    *rows = true;
    return true;
  }
  if (n->op == SIMNPU_IR_MATMUL && w->rank == 2) {
    *oc = w->dims[1];
    *k = w->dims[0];
    *rows = false;
    return true;
  }
  return false;
}

typedef struct
{
  float *w, *b;
  int64_t oc, k;
  bool rows;
} fuse_target;

/* Private copies of the weights and the bias (created as zeros) of node
 * ni, ready to be scaled and shifted. */
static int
fuse_prepare (simnpu__ir_graph * g, fuse_state * s, unsigned ni,
    fuse_target * f, simnpu_error * error)
{
  int w, b;
  simnpu__ir_node *n = &g->nodes[ni];

  if (!fusable_producer (g, n, &f->oc, &f->k, &f->rows))
    return SIMNPU_EINTERNAL;
  w = clone_const (g, &s->names, n->inputs[1], "fused", error);
  if (w < 0)
    return w;
  n = &g->nodes[ni];
  n->inputs[1] = w;
  if (n->n_inputs > 2 && n->inputs[2] != SIMNPU_IR_NONE) {
    b = clone_const (g, &s->names, n->inputs[2], "fused", error);
  } else {
    int64_t dims[1] = { f->oc };
    char *base = g_strdup_printf ("%s/bias", n->name);
    char *name = fresh_name (g, &s->names, base);
    b = simnpu__ir_add_const (g, name, SIMNPU_IR_F32, 1, dims,
        g_new0 (float, MAX (f->oc, 1)));
    g_free (base);
    g_free (name);
    if (b < 0)
      b = simnpu__set_error (error, SIMNPU_ENOMEM, "graph '%s': too many "
          "tensors", g->name);
  }
  if (b < 0)
    return b;
  n = &g->nodes[ni];
  n->inputs[2] = b;
  n->n_inputs = MAX (n->n_inputs, 3);
  f->w = g->tensors[n->inputs[1]].data;
  f->b = g->tensors[b].data;
  return 0;
}

static void
fuse_scale (fuse_target * f, int64_t o, float s)
{
  int64_t i;

  if (f->rows)
    for (i = 0; i < f->k; i++)
      f->w[o * f->k + i] *= s;
  else
    for (i = 0; i < f->k; i++)
      f->w[i * f->oc + o] *= s;
  f->b[o] *= s;
}

static bool
const_scalar (const simnpu__ir_graph * g, int t, float *v)
{
  const simnpu__ir_tensor *c;

  if (t == SIMNPU_IR_NONE)
    return false;
  c = &g->tensors[t];
  if (!c->is_const || c->dtype != SIMNPU_IR_F32
      || simnpu__ir_tensor_elements (c) != 1)
    return false;
  *v = *(const float *) c->data;
  return true;
}

/* Folds consumer c of node ni's output into ni where it can; returns 1
 * when it did, 0 when not, or an error. */
static int
fuse_one (simnpu__ir_graph * g, fuse_state * st, unsigned ni, unsigned ci,
    unsigned slot, simnpu_error * error)
{
  simnpu__ir_node *n = &g->nodes[ni], *c = &g->nodes[ci];
  int t = n->outputs[0];
  unsigned out_rank = g->tensors[t].rank;
  int64_t oc, k, o;
  bool rows, scalar;
  const float *v[4];
  fuse_target f;
  float s;
  int other = c->n_inputs == 2 ? c->inputs[1 - slot] : SIMNPU_IR_NONE;
  int ret;
  simnpu__ir_act act = n->attrs.act;

  if (!fusable_producer (g, n, &oc, &k, &rows))
    return 0;
  switch (c->op) {
    case SIMNPU_IR_BATCHNORM:
      if (act != SIMNPU_IR_ACT_NONE || slot != 0 || c->n_inputs != 5)
        return 0;
      for (o = 0; o < 4; o++)
        if (!per_channel (g, c->inputs[1 + o], oc, out_rank, &v[o], &scalar)
            || scalar)
          return 0;
      if ((ret = fuse_prepare (g, st, ni, &f, error)) < 0)
        return ret;
      c = &g->nodes[ci];
      for (o = 0; o < oc; o++) {
        float inv = v[0][o] / sqrtf (v[3][o] + c->attrs.f[0]);
        f.b[o] -= v[2][o];
        fuse_scale (&f, o, inv);
        f.b[o] += v[1][o];
      }
      break;
    case SIMNPU_IR_ADD:
    case SIMNPU_IR_SUB:
      if (act != SIMNPU_IR_ACT_NONE || c->n_inputs != 2
          || (c->op == SIMNPU_IR_SUB && slot != 0)
          || !per_channel (g, other, oc, out_rank, &v[0], &scalar))
        return 0;
      if ((ret = fuse_prepare (g, st, ni, &f, error)) < 0)
        return ret;
      c = &g->nodes[ci];
      for (o = 0; o < oc; o++)
        f.b[o] += (c->op == SIMNPU_IR_SUB ? -1.0f : 1.0f) * v[0][scalar ? 0
            : o];
      break;
    case SIMNPU_IR_MUL:
    case SIMNPU_IR_DIV:
      if (c->n_inputs != 2 || (c->op == SIMNPU_IR_DIV && slot != 0)
          || !per_channel (g, other, oc, out_rank, &v[0], &scalar))
        return 0;
      for (o = 0; o < (scalar ? 1 : oc); o++)
        if (v[0][o] == 0.0f || !isfinite (v[0][o])
            || (act != SIMNPU_IR_ACT_NONE && v[0][o] < 0.0f))
          return 0;
      /* a positive scale commutes with relu, and with a clip whose bounds
       * scale too (relu6 (x + 3) / 6 of hard sigmoids) */
      if (act != SIMNPU_IR_ACT_NONE && act != SIMNPU_IR_ACT_RELU
          && !(act == SIMNPU_IR_ACT_CLIP && scalar))
        return 0;
      if (act == SIMNPU_IR_ACT_CLIP) {
        s = c->op == SIMNPU_IR_DIV ? 1.0f / v[0][0] : v[0][0];
        n->attrs.act_min *= s;
        n->attrs.act_max *= s;
      }
      if ((ret = fuse_prepare (g, st, ni, &f, error)) < 0)
        return ret;
      c = &g->nodes[ci];
      for (o = 0; o < oc; o++) {
        s = v[0][scalar ? 0 : o];
        fuse_scale (&f, o, c->op == SIMNPU_IR_DIV ? 1.0f / s : s);
      }
      break;
    case SIMNPU_IR_RELU:
      if (act == SIMNPU_IR_ACT_NONE)
        n->attrs.act = SIMNPU_IR_ACT_RELU;
      else if (!(act == SIMNPU_IR_ACT_RELU || (act == SIMNPU_IR_ACT_CLIP
                  && n->attrs.act_min >= 0.0f)))
        return 0;
      break;
    case SIMNPU_IR_CLIP:
      if (act == SIMNPU_IR_ACT_NONE) {
        n->attrs.act = SIMNPU_IR_ACT_CLIP;
        n->attrs.act_min = c->attrs.f[0];
        n->attrs.act_max = c->attrs.f[1];
      } else if (act == SIMNPU_IR_ACT_RELU && c->attrs.f[0] >= 0.0f) {
        n->attrs.act = SIMNPU_IR_ACT_CLIP;
        n->attrs.act_min = c->attrs.f[0];
        n->attrs.act_max = c->attrs.f[1];
      } else {
        return 0;
      }
      break;
    case SIMNPU_IR_MINIMUM:
      /* relu then min (k): clip (0, k), as Keras' ReLU(max_value) */
      if (c->n_inputs != 2 || !const_scalar (g, other, &s))
        return 0;
      if (act == SIMNPU_IR_ACT_RELU && s >= 0.0f) {
        n->attrs.act = SIMNPU_IR_ACT_CLIP;
        n->attrs.act_min = 0.0f;
        n->attrs.act_max = s;
      } else if (act == SIMNPU_IR_ACT_CLIP && s >= n->attrs.act_min) {
        n->attrs.act_max = MIN (n->attrs.act_max, s);
      } else {
        return 0;
      }
      break;
    case SIMNPU_IR_MAXIMUM:
      if (c->n_inputs != 2 || !const_scalar (g, other, &s))
        return 0;
      if (act == SIMNPU_IR_ACT_NONE && s == 0.0f)
        n->attrs.act = SIMNPU_IR_ACT_RELU;
      else if (act == SIMNPU_IR_ACT_RELU && s <= 0.0f)
        break;
      else if (act == SIMNPU_IR_ACT_CLIP && s <= n->attrs.act_max)
        n->attrs.act_min = MAX (n->attrs.act_min, s);
      else
        return 0;
      break;
    case SIMNPU_IR_LEAKY_RELU:
    case SIMNPU_IR_ELU:
    case SIMNPU_IR_SIGMOID:
    case SIMNPU_IR_TANH:
    case SIMNPU_IR_HARD_SWISH:
      if (act != SIMNPU_IR_ACT_NONE)
        return 0;
      n->attrs.act = c->op == SIMNPU_IR_LEAKY_RELU ? SIMNPU_IR_ACT_LEAKY_RELU
          : c->op == SIMNPU_IR_ELU ? SIMNPU_IR_ACT_ELU
          : c->op == SIMNPU_IR_SIGMOID ? SIMNPU_IR_ACT_SIGMOID
          : c->op == SIMNPU_IR_TANH ? SIMNPU_IR_ACT_TANH
          : SIMNPU_IR_ACT_HARD_SWISH;
      n->attrs.act_alpha = c->attrs.f[0];
      break;
    default:
      return 0;
  }
  n = &g->nodes[ni];
  c = &g->nodes[ci];
  n->outputs[0] = c->outputs[0];
  return 1;
}

/* A constant zero pad of the spatial axes only, before conv2d (or a
 * -inf pad before maxpool), becomes the consumer's padding. */
static bool
fuse_pad (simnpu__ir_graph * g, fuse_state * s, unsigned pi)
{
  const simnpu__ir_node *p = &g->nodes[pi];
  simnpu__ir_node *c;
  const simnpu__ir_attrs *a = &p->attrs;
  int32_t add[4];
  unsigned slot, r = 4, i;
  int ci;

  if (p->n_inputs != 1 || p->n_outputs != 1
      || g->tensors[p->inputs[0]].rank != r || a->n_ints != 2 * r
      || a->mode != SIMNPU_IR_PAD_CONSTANT)
    return false;
  if (a->ints[0] != 0 || a->ints[r] != 0 || a->ints[3] != 0
      || a->ints[r + 3] != 0)
    return false;
  for (i = 1; i < 3; i++)
    if (a->ints[i] < 0 || a->ints[r + i] < 0 || a->ints[i] > G_MAXINT16
        || a->ints[r + i] > G_MAXINT16)
      return false;
  ci = single_consumer (g, s, p->outputs[0], &slot);
  if (ci < 0 || slot != 0)
    return false;
  c = &g->nodes[ci];
  if (c->op == SIMNPU_IR_CONV2D) {
    if (a->f[0] != 0.0f)
      return false;
  } else if (c->op == SIMNPU_IR_MAXPOOL) {
    if (!(a->f[0] <= -FLT_MAX))
      return false;
  } else {
    return false;
  }
  add[0] = (int32_t) a->ints[1];
  add[1] = (int32_t) a->ints[2];
  add[2] = (int32_t) a->ints[r + 1];
  add[3] = (int32_t) a->ints[r + 2];
  if (c->op == SIMNPU_IR_MAXPOOL)
    for (i = 0; i < 4; i++)
      if ((int64_t) c->attrs.pads[i] + add[i] >=
          (int64_t) c->attrs.kernel[i % 2] * c->attrs.dilation[i % 2])
        return false;
  for (i = 0; i < 4; i++)
    c->attrs.pads[i] += add[i];
  readers_detach (s, g, (unsigned) ci);
  c->inputs[0] = p->inputs[0];
  readers_attach (s, g, (unsigned) ci);
  kill_node (s, g, pi);
  return true;
}

/* The producer of t when it is a live node of op whose output only node
 * `reader` reads; else -1. */
static int
sole_producer (const simnpu__ir_graph * g, const fuse_state * s, int t,
    simnpu__ir_op op, unsigned reader)
{
  unsigned slot;
  int p;

  if (t == SIMNPU_IR_NONE || g->tensors[t].is_const)
    return -1;
  p = g->tensors[t].producer;
  if (p < 0 || s->dead[p] || g->nodes[p].op != op
      || g->nodes[p].n_outputs != 1
      || single_consumer (g, s, t, &slot) != (int) reader)
    return -1;
  return p;
}

/* The input x of binary node n whose other input is a scalar constant
 * within HARD_SWISH_TOL (relative) of want, or SIMNPU_IR_NONE; *v gets
 * the constant (float16 weights hold 1/6 inexactly). */
static int
with_scalar (const simnpu__ir_graph * g, const simnpu__ir_node * n,
    float want, float *v)
{
  unsigned i;

  if (n->n_inputs != 2)
    return SIMNPU_IR_NONE;
  for (i = 0; i < 2; i++)
    if (const_scalar (g, n->inputs[1 - i], v)
        && fabsf (*v - want) <= HARD_SWISH_TOL * fabsf (want)
        && !g->tensors[n->inputs[i]].is_const)
      return n->inputs[i];
  return SIMNPU_IR_NONE;
}

/* The x of relu6 (x + 3) computed by clip node *k for reader r, or
 * SIMNPU_IR_NONE. */
static int
relu6_plus3 (const simnpu__ir_graph * g, const fuse_state * s, int t,
    unsigned r, int *k)
{
  int d;
  float v;

  *k = sole_producer (g, s, t, SIMNPU_IR_CLIP, r);
  if (*k < 0 || g->nodes[*k].attrs.f[0] != 0.0f
      || g->nodes[*k].attrs.f[1] != HARD_SWISH_CLIP)
    return SIMNPU_IR_NONE;
  d = sole_producer (g, s, g->nodes[*k].inputs[0], SIMNPU_IR_ADD,
      (unsigned) *k);
  if (d < 0 || with_scalar (g, &g->nodes[d], HARD_SWISH_SHIFT, &v)
      == SIMNPU_IR_NONE || v != HARD_SWISH_SHIFT)
    return SIMNPU_IR_NONE;
  return with_scalar (g, &g->nodes[d], HARD_SWISH_SHIFT, &v);
}

/* Rewrites the pattern ending at mul node fi: clip node k becomes
 * hard_swish (x) and fi multiplies it by 6c (c the pattern's 1/6), or fi
 * becomes the hard_swish when 6c is 1. */
static int
rewrite_hard_swish (simnpu__ir_graph * g, fuse_state * s, unsigned fi,
    int k, int m, int x, float c, simnpu_error * error)
{
  simnpu__ir_node *f;
  float scale = c * HARD_SWISH_CLIP;

  kill_node (s, g, (unsigned) g->tensors[g->nodes[k].inputs[0]].producer);
  kill_node (s, g, (unsigned) m);
  if (scale == 1.0f) {
    kill_node (s, g, (unsigned) k);
    readers_detach (s, g, fi);
    f = &g->nodes[fi];
    f->op = SIMNPU_IR_HARD_SWISH;
    f->inputs[0] = x;
    f->n_inputs = 1;
    readers_attach (s, g, fi);
    return 0;
  } else {
    char *base = g_strdup_printf ("%s/scale", g->nodes[fi].name);
    char *name = fresh_name (g, &s->names, base);
    float *data = g_new (float, 1);
    int sc;
    data[0] = scale;
    sc = simnpu__ir_add_const (g, name, SIMNPU_IR_F32, 0, NULL, data);
    g_free (base);
    g_free (name);
    if (sc < 0)
      return simnpu__set_error (error, SIMNPU_ENOMEM, "graph '%s': too many "
          "tensors", g->name);
    readers_detach (s, g, (unsigned) k);
    g->nodes[k].op = SIMNPU_IR_HARD_SWISH;
    g->nodes[k].inputs[0] = x;
    readers_attach (s, g, (unsigned) k);
    readers_detach (s, g, fi);
    f = &g->nodes[fi];
    f->inputs[0] = g->nodes[k].outputs[0];
    f->inputs[1] = sc;
    readers_attach (s, g, fi);
  }
  return 0;
}

/* x * relu6 (x + 3) * c with c about 1/6, as TF spells hard swish ((x *
 * c) * relu6 (x + 3) or (x * relu6 (x + 3)) * c), becomes one hard_swish
 * node (and a multiply when c is not exactly 1/6). */
static int
fuse_hard_swish (simnpu__ir_graph * g, fuse_state * s, unsigned fi,
    simnpu_error * error)
{
  simnpu__ir_node *f = &g->nodes[fi];
  unsigned i, j;
  float c;

  if (f->op != SIMNPU_IR_MUL || f->n_inputs != 2)
    return 0;
  for (i = 0; i < 2; i++) {
    int a = f->inputs[i], b = f->inputs[1 - i], x, m, k;
    /* (x * c) * relu6 (x + 3) */
    x = relu6_plus3 (g, s, b, fi, &k);
    m = sole_producer (g, s, a, SIMNPU_IR_MUL, fi);
    if (x != SIMNPU_IR_NONE && m >= 0
        && with_scalar (g, &g->nodes[m], 1.0f / HARD_SWISH_CLIP, &c) == x)
      return rewrite_hard_swish (g, s, fi, k, m, x, c, error);
  }
  /* (x * relu6 (x + 3)) * c */
  {
    int y = with_scalar (g, f, 1.0f / HARD_SWISH_CLIP, &c), m, k;
    m = sole_producer (g, s, y, SIMNPU_IR_MUL, fi);
    if (y == SIMNPU_IR_NONE || m < 0 || g->nodes[m].n_inputs != 2)
      return 0;
    for (j = 0; j < 2; j++) {
      int xx = g->nodes[m].inputs[j];
      if (relu6_plus3 (g, s, g->nodes[m].inputs[1 - j], m, &k) == xx) {
        /* the inner mul becomes the hard swish, the outer scales it */
        float scale = c * HARD_SWISH_CLIP;
        kill_node (s, g, (unsigned) k);
        kill_node (s, g, (unsigned) g->tensors[g->nodes[k].inputs[0]].producer);
        readers_detach (s, g, (unsigned) m);
        g->nodes[m].op = SIMNPU_IR_HARD_SWISH;
        g->nodes[m].inputs[0] = xx;
        g->nodes[m].n_inputs = 1;
        readers_attach (s, g, (unsigned) m);
        if (scale == 1.0f) {
          readers_detach (s, g, fi);
          f = &g->nodes[fi];
          f->op = SIMNPU_IR_IDENTITY;
          f->inputs[0] = g->nodes[m].outputs[0];
          f->n_inputs = 1;
          readers_attach (s, g, fi);
        } else {
          /* the outer mul keeps its constant, scaled to 6c */
          unsigned cs = y == f->inputs[0] ? 1 : 0;
          int cl = clone_const (g, &s->names, f->inputs[cs], "scale", error);
          if (cl < 0)
            return cl;
          ((float *) g->tensors[cl].data)[0] = scale;
          readers_detach (s, g, fi);
          g->nodes[fi].inputs[cs] = cl;
          readers_attach (s, g, fi);
        }
        return 0;
      }
    }
  }
  return 0;
}

/* x / c for a constant c of finite non-zero values becomes x * (1 / c),
 * which the device runs and the hard swish and hard sigmoid patterns
 * below see (their "/ 6" spelling). */
static int
div_to_mul (simnpu__ir_graph * g, fuse_state * s, unsigned di,
    simnpu_error * error)
{
  const simnpu__ir_node *d = &g->nodes[di];
  const simnpu__ir_tensor *c;
  int64_t i, n;
  float *v;
  int r;

  if (d->op != SIMNPU_IR_DIV || d->n_inputs != 2 || d->n_outputs != 1
      || d->inputs[1] == SIMNPU_IR_NONE
      || g->tensors[d->inputs[0]].is_const
      || g->tensors[d->inputs[0]].dtype != SIMNPU_IR_F32)
    return 0;
  c = &g->tensors[d->inputs[1]];
  if (!c->is_const || c->dtype != SIMNPU_IR_F32)
    return 0;
  n = simnpu__ir_tensor_elements (c);
  for (i = 0; i < n; i++)
    if (!isfinite (((const float *) c->data)[i])
        || ((const float *) c->data)[i] == 0.0f)
      return 0;
  r = clone_const (g, &s->names, d->inputs[1], "reciprocal", error);
  if (r < 0)
    return r;
  v = g->tensors[r].data;
  for (i = 0; i < n; i++)
    v[i] = 1.0f / v[i];
  readers_detach (s, g, di);
  g->nodes[di].op = SIMNPU_IR_MUL;
  g->nodes[di].inputs[1] = r;
  readers_attach (s, g, di);
  return 0;
}

/* relu6 (x + 3) * c with c about 1/6 becomes hard_sigmoid (x) (times 6c
 * when that is not 1): clip node k turns into the hard sigmoid, or mul
 * node fi does. */
static int
fuse_hard_sigmoid (simnpu__ir_graph * g, fuse_state * s, unsigned fi,
    simnpu_error * error)
{
  simnpu__ir_node *f = &g->nodes[fi];
  int y, x, k, p;
  unsigned slot;
  float c, scale;

  if (f->op != SIMNPU_IR_MUL || f->n_inputs != 2)
    return 0;
  y = with_scalar (g, f, 1.0f / HARD_SWISH_CLIP, &c);
  if (y == SIMNPU_IR_NONE)
    return 0;
  x = relu6_plus3 (g, s, y, fi, &k);
  if (x == SIMNPU_IR_NONE)
    return 0;
  /* a conv or matmul read by the add alone takes the add and the clip
   * into its bias and activation, and its reader the scale: better than
   * a table */
  p = g->tensors[x].producer;
  if (p >= 0 && (g->nodes[p].op == SIMNPU_IR_CONV2D
          || g->nodes[p].op == SIMNPU_IR_MATMUL)
      && single_consumer (g, s, x, &slot) >= 0)
    return 0;
  scale = c * HARD_SWISH_CLIP;
  kill_node (s, g, (unsigned) g->tensors[g->nodes[k].inputs[0]].producer);
  if (scale == 1.0f) {
    kill_node (s, g, (unsigned) k);
    readers_detach (s, g, fi);
    f = &g->nodes[fi];
    f->op = SIMNPU_IR_HARD_SIGMOID;
    f->inputs[0] = x;
    f->n_inputs = 1;
    f->attrs.f[0] = 1.0f / HARD_SWISH_CLIP;
    f->attrs.f[1] = HARD_SIGMOID_BETA;
    readers_attach (s, g, fi);
  } else {
    unsigned cs = y == f->inputs[0] ? 1 : 0;
    int cl = clone_const (g, &s->names, f->inputs[cs], "scale", error);
    if (cl < 0)
      return cl;
    ((float *) g->tensors[cl].data)[0] = scale;
    readers_detach (s, g, (unsigned) k);
    g->nodes[k].op = SIMNPU_IR_HARD_SIGMOID;
    g->nodes[k].inputs[0] = x;
    g->nodes[k].attrs.f[0] = 1.0f / HARD_SWISH_CLIP;
    g->nodes[k].attrs.f[1] = HARD_SIGMOID_BETA;
    readers_attach (s, g, (unsigned) k);
    readers_detach (s, g, fi);
    g->nodes[fi].inputs[cs] = cl;
    readers_attach (s, g, fi);
  }
  return 0;
}

/* x * hard_sigmoid (x) with hard sigmoid's alpha 1/6 and beta 1/2 becomes
 * hard_swish (x). */
static void
fuse_x_hard_sigmoid (simnpu__ir_graph * g, fuse_state * s, unsigned fi)
{
  simnpu__ir_node *f = &g->nodes[fi];
  unsigned i;

  if (f->op != SIMNPU_IR_MUL || f->n_inputs != 2)
    return;
  for (i = 0; i < 2; i++) {
    int h = sole_producer (g, s, f->inputs[1 - i], SIMNPU_IR_HARD_SIGMOID,
        fi);
    const simnpu__ir_node *hs = h >= 0 ? &g->nodes[h] : NULL;
    if (hs == NULL || hs->inputs[0] != f->inputs[i]
        || fabsf (hs->attrs.f[0] * HARD_SWISH_CLIP - 1.0f) > HARD_SIGMOID_TOL
        || hs->attrs.f[1] != HARD_SIGMOID_BETA)
      continue;
    kill_node (s, g, (unsigned) h);
    readers_detach (s, g, fi);
    f = &g->nodes[fi];
    f->op = SIMNPU_IR_HARD_SWISH;
    f->n_inputs = 1;
    f->inputs[0] = f->inputs[i];
    readers_attach (s, g, fi);
    return;
  }
}

/* A multiply by a scalar constant whose only reader is a conv2d's input
 * scales the conv's weights instead (the zero padding scales too). */
static int
fuse_mul_into_conv (simnpu__ir_graph * g, fuse_state * st, unsigned mi,
    simnpu_error * error)
{
  const simnpu__ir_node *m = &g->nodes[mi];
  unsigned slot, i;
  int ci, y = SIMNPU_IR_NONE, w;
  float s = 0.0f, *data;
  int64_t n;

  if (m->op != SIMNPU_IR_MUL || m->n_inputs != 2 || m->n_outputs != 1)
    return 0;
  for (i = 0; i < 2; i++)
    if (const_scalar (g, m->inputs[1 - i], &s)
        && !g->tensors[m->inputs[i]].is_const)
      y = m->inputs[i];
  if (y == SIMNPU_IR_NONE || !isfinite (s)
      || g->tensors[y].dtype != SIMNPU_IR_F32)
    return 0;
  ci = single_consumer (g, st, m->outputs[0], &slot);
  if (ci < 0 || slot != 0 || g->nodes[ci].op != SIMNPU_IR_CONV2D
      || !g->tensors[g->nodes[ci].inputs[1]].is_const
      || g->tensors[y].rank != 4)
    return 0;
  w = clone_const (g, &st->names, g->nodes[ci].inputs[1], "scaled", error);
  if (w < 0)
    return w;
  data = g->tensors[w].data;
  n = simnpu__ir_tensor_elements (&g->tensors[w]);
  for (i = 0; i < n; i++)
    data[i] *= s;
  readers_detach (st, g, (unsigned) ci);
  g->nodes[ci].inputs[1] = w;
  g->nodes[ci].inputs[0] = y;
  readers_attach (st, g, (unsigned) ci);
  kill_node (st, g, mi);
  return 1;
}

int
simnpu__ir_fuse (simnpu__ir_graph * g, simnpu_error * error)
{
  fuse_state s = { 0 };
  unsigned i, slot;
  int ret = simnpu__ir_infer_shapes (g, error);

  if (ret < 0)
    return ret;
  s.dead = g_new0 (bool, MAX (g->n_nodes, 1));
  for (i = 0; i < g->n_nodes; i++)
    readers_attach (&s, g, i);
  for (i = 0; i < g->n_nodes && ret == 0; i++) {
    if (s.dead[i])
      continue;
    ret = div_to_mul (g, &s, i, error);
    if (ret == 0)
      ret = fuse_hard_swish (g, &s, i, error);
    if (ret == 0 && !s.dead[i])
      ret = fuse_hard_sigmoid (g, &s, i, error);
    if (ret == 0 && !s.dead[i])
      fuse_x_hard_sigmoid (g, &s, i);
  }
  for (i = 0; i < g->n_nodes && ret == 0; i++) {
    if (s.dead[i])
      continue;
    if (g->nodes[i].op == SIMNPU_IR_MUL) {
      ret = fuse_mul_into_conv (g, &s, i, error);
      ret = MIN (ret, 0);
      continue;
    }
    if (g->nodes[i].op == SIMNPU_IR_PAD) {
      fuse_pad (g, &s, i);
      continue;
    }
    if (g->nodes[i].op != SIMNPU_IR_CONV2D
        && g->nodes[i].op != SIMNPU_IR_MATMUL)
      continue;
    for (;;) {
      int ci = single_consumer (g, &s, g->nodes[i].outputs[0], &slot);
      if (ci < 0 || g->nodes[ci].n_outputs != 1)
        break;
      readers_detach (&s, g, i);
      ret = fuse_one (g, &s, i, (unsigned) ci, slot, error);
      readers_attach (&s, g, i);
      if (ret <= 0)
        break;
      kill_node (&s, g, (unsigned) ci);
      ret = 0;
    }
  }
  compact_nodes (g, s.dead);
  g_free (s.dead);
  g_free (s.n_readers);
  g_free (s.reader_sum);
  name_set_clear (&s.names);
  if (ret < 0)
    return ret;
  return simnpu__ir_prune (g, error);
}

/* ------------------------------------------------------------------ */
/* Pruning */

/* Drops identities: readers read the identity's input; when its output
 * is a graph output, the input tensor takes over that output's name.
 * Readers are redirected as the nodes are visited in order (alias[t] is
 * the tensor that stands for t), since a node reads only what earlier
 * nodes made. */
/* A where whose constant condition picks the same operand everywhere,
 * at the operand's own shape and dtype, is that operand: TF.js's GatherNd
 * of constant in-range indices leaves one (its out-of-range guard). */
static void
uniform_where_to_identity (const simnpu__ir_graph * g, simnpu__ir_node * n)
{
  const simnpu__ir_tensor *c, *o, *p;
  const uint8_t *v;
  int64_t k, count;
  bool all = true, none = true;
  int pick;

  if (n->op != SIMNPU_IR_WHERE || n->n_inputs != 3 || n->n_outputs != 1
      || n->inputs[0] < 0 || n->inputs[1] < 0 || n->inputs[2] < 0)
    return;
  c = &g->tensors[n->inputs[0]];
  if (!c->is_const || c->data == NULL || c->dtype != SIMNPU_IR_BOOL)
    return;
  v = c->data;
  count = simnpu__ir_tensor_elements (c);
  for (k = 0; k < count; k++) {
    all = all && v[k] != 0;
    none = none && v[k] == 0;
  }
  if (!all && !none)
    return;
  pick = n->inputs[all ? 1 : 2];
  p = &g->tensors[pick];
  o = &g->tensors[n->outputs[0]];
  if (p->dtype != o->dtype || p->rank != o->rank
      || memcmp (p->dims, o->dims, p->rank * sizeof (int64_t)) != 0)
    return;
  n->op = SIMNPU_IR_IDENTITY;
  n->inputs[0] = pick;
  n->inputs[1] = n->inputs[2] = SIMNPU_IR_NONE;
  n->n_inputs = 1;
}

static void
drop_identities (simnpu__ir_graph * g, bool *dead)
{
  int *alias = g_new (int, MAX (g->n_tensors, 1));
  unsigned i, j, k;

  for (i = 0; i < g->n_tensors; i++)
    alias[i] = (int) i;
  for (i = 0; i < g->n_nodes; i++) {
    simnpu__ir_node *n = &g->nodes[i];
    int a, b;
    for (j = 0; j < n->n_inputs; j++)
      if (n->inputs[j] >= 0)
        n->inputs[j] = alias[n->inputs[j]];
    uniform_where_to_identity (g, n);
    if (n->op != SIMNPU_IR_IDENTITY || n->n_inputs != 1
        || n->n_outputs != 1 || n->inputs[0] == SIMNPU_IR_NONE)
      continue;
    a = n->inputs[0];
    b = n->outputs[0];
    if (simnpu__ir_is_graph_output (g, b)) {
      char *tmp;
      if (g->tensors[a].is_const || is_graph_input (g, a)
          || simnpu__ir_is_graph_output (g, a))
        continue;
      tmp = g->tensors[a].name;
      g->tensors[a].name = g->tensors[b].name;
      g->tensors[b].name = tmp;
      for (k = 0; k < g->n_outputs; k++)
        if (g->outputs[k] == b)
          g->outputs[k] = a;
    }
    alias[b] = a;
    dead[i] = true;
  }
  g_free (alias);
}

int
simnpu__ir_prune (simnpu__ir_graph * g, simnpu_error * error)
{
  bool *dead = g_new0 (bool, MAX (g->n_nodes, 1));
  bool *need = g_new0 (bool, MAX (g->n_tensors, 1));
  int *map = g_new (int, MAX (g->n_tensors, 1));
  unsigned i, j, o;

  drop_identities (g, dead);
  for (i = 0; i < g->n_outputs; i++)
    if (g->outputs[i] >= 0 && (unsigned) g->outputs[i] < g->n_tensors)
      need[g->outputs[i]] = true;
  for (i = g->n_nodes; i-- > 0;) {
    const simnpu__ir_node *n = &g->nodes[i];
    bool keep = false;
    if (dead[i])
      continue;
    for (j = 0; j < n->n_outputs; j++)
      if (n->outputs[j] >= 0 && need[n->outputs[j]])
        keep = true;
    if (!keep) {
      dead[i] = true;
      continue;
    }
    for (j = 0; j < n->n_inputs; j++)
      if (n->inputs[j] != SIMNPU_IR_NONE)
        need[n->inputs[j]] = true;
  }
  compact_nodes (g, dead);
  g_free (dead);
  for (i = 0; i < g->n_inputs; i++)
    need[g->inputs[i]] = true;
  for (i = 0; i < g->n_nodes; i++)
    for (j = 0; j < g->nodes[i].n_outputs; j++)
      need[g->nodes[i].outputs[j]] = true;

  /* renumber the tensors that stay */
  for (i = 0, o = 0; i < g->n_tensors; i++) {
    if (!need[i]) {
      map[i] = SIMNPU_IR_NONE;
      g_free (g->tensors[i].name);
      g_free (g->tensors[i].data);
      continue;
    }
    map[i] = (int) o;
    if (o != i)
      g->tensors[o] = g->tensors[i];
    o++;
  }
  g->n_tensors = o;
  for (i = 0; i < g->n_nodes; i++) {
    simnpu__ir_node *n = &g->nodes[i];
    for (j = 0; j < n->n_inputs; j++)
      if (n->inputs[j] != SIMNPU_IR_NONE)
        n->inputs[j] = map[n->inputs[j]];
    for (j = 0; j < n->n_outputs; j++)
      n->outputs[j] = map[n->outputs[j]];
  }
  for (i = 0; i < g->n_inputs; i++)
    g->inputs[i] = map[g->inputs[i]];
  for (i = 0; i < g->n_outputs; i++)
    g->outputs[i] = map[g->outputs[i]];
  g_free (map);
  g_free (need);
  return simnpu__ir_infer_shapes (g, error);
}

/* ------------------------------------------------------------------ */
/* Cutting */

static unsigned
edit_distance (const char *a, const char *b)
{
  size_t la = strlen (a), lb = strlen (b), i, j;
  unsigned *row, best;

  if (la > NEAR_MAX_LEN || lb > NEAR_MAX_LEN)
    return G_MAXUINT;
  row = g_new (unsigned, lb + 1);
  for (j = 0; j <= lb; j++)
    row[j] = (unsigned) j;
  for (i = 1; i <= la; i++) {
    unsigned diag = row[0];
    row[0] = (unsigned) i;
    for (j = 1; j <= lb; j++) {
      unsigned up = row[j];
      unsigned cost = diag + (a[i - 1] == b[j - 1] ? 0 : 1);
      row[j] = MIN (MIN (row[j] + 1, row[j - 1] + 1), cost);
      diag = up;
    }
  }
  best = row[lb];
  g_free (row);
  return best;
}

static int
unknown_name (const simnpu__ir_graph * g, const char *name,
    simnpu_error * error)
{
  unsigned best[NEAR_NAMES], dist[NEAR_NAMES], i, k, m;
  unsigned found = 0;
  GString *s = g_string_new (NULL);
  int ret;

  for (i = 0; i < g->n_tensors; i++) {
    unsigned d = edit_distance (name, g->tensors[i].name);
    if (d == G_MAXUINT)
      continue;
    for (k = 0; k < found && dist[k] <= d; k++);
    if (k >= NEAR_NAMES)
      continue;
    for (m = MIN (found, NEAR_NAMES - 1); m > k; m--) {
      best[m] = best[m - 1];
      dist[m] = dist[m - 1];
    }
    best[k] = i;
    dist[k] = d;
    found = MIN (found + 1, NEAR_NAMES);
  }
  for (k = 0; k < found; k++)
    g_string_append_printf (s, "%s'%s'", k ? ", " : "",
        g->tensors[best[k]].name);
  ret = simnpu__set_error (error, SIMNPU_ENOENT, "graph '%s': no tensor "
      "named '%s'%s%s", g->name, name, found ? "; similar names: " : "",
      s->str);
  g_string_free (s, TRUE);
  return ret;
}

/* The tensors named in a comma-separated list ("name:0" also names
 * "name", TF's way). */
static int
parse_names (const simnpu__ir_graph * g, const char *names, int *out,
    unsigned max, unsigned *n, simnpu_error * error)
{
  gchar **parts;
  unsigned i, k;
  int ret = 0;

  *n = 0;
  if (names == NULL)
    return simnpu__set_error (error, SIMNPU_EINVAL, "no tensor names");
  parts = g_strsplit (names, ",", -1);
  for (i = 0; parts[i] && ret == 0; i++) {
    char *name = g_strstrip (parts[i]);
    int t;
    if (name[0] == '\0')
      continue;
    t = simnpu__ir_find_tensor (g, name);
    if (t == SIMNPU_IR_NONE && g_str_has_suffix (name, ":0")) {
      char *base = g_strndup (name, strlen (name) - 2);
      t = simnpu__ir_find_tensor (g, base);
      g_free (base);
    }
    if (t == SIMNPU_IR_NONE) {
      ret = unknown_name (g, name, error);
      break;
    }
    for (k = 0; k < *n; k++)
      if (out[k] == t)
        break;
    if (k < *n)
      continue;
    if (*n >= max) {
      ret = simnpu__set_error (error, SIMNPU_EINVAL, "more than %u tensor "
          "names", max);
      break;
    }
    out[(*n)++] = t;
  }
  g_strfreev (parts);
  if (ret == 0 && *n == 0)
    ret = simnpu__set_error (error, SIMNPU_EINVAL, "graph '%s': no tensor "
        "names in '%s'", g->name, names);
  return ret;
}

int
simnpu__ir_cut_outputs (simnpu__ir_graph * g, const char *names,
    simnpu_error * error)
{
  int outs[SIMNPU_IR_MAX_OUTPUTS];
  unsigned n, i;
  int ret = parse_names (g, names, outs, SIMNPU_IR_MAX_OUTPUTS, &n, error);

  if (ret < 0)
    return ret;
  for (i = 0; i < n; i++)
    g->outputs[i] = outs[i];
  g->n_outputs = n;
  return simnpu__ir_prune (g, error);
}

int
simnpu__ir_cut_inputs (simnpu__ir_graph * g, const char *names,
    simnpu_error * error)
{
  int ins[SIMNPU_IR_MAX_INPUTS];
  bool *need, *made;
  name_set taken = { 0 };
  unsigned n, i, j;
  int ret = parse_names (g, names, ins, SIMNPU_IR_MAX_INPUTS, &n, error);

  if (ret < 0)
    return ret;
  for (i = 0; i < n; i++) {
    const simnpu__ir_tensor *t = &g->tensors[ins[i]];
    if (t->is_const)
      return simnpu__set_error (error, SIMNPU_EINVAL, "graph '%s': '%s' is "
          "a constant, not a possible input", g->name, t->name);
  }
  /* the producers of the new inputs write fresh tensors instead */
  for (i = 0; i < g->n_nodes; i++) {
    simnpu__ir_node *nd = &g->nodes[i];
    for (j = 0; j < nd->n_outputs; j++) {
      unsigned k;
      for (k = 0; k < n; k++)
        if (nd->outputs[j] == ins[k])
          break;
      if (k < n) {
        const simnpu__ir_tensor *t = &g->tensors[ins[k]];
        char *base = g_strdup_printf ("%s/cut", t->name);
        char *name = fresh_name (g, &taken, base);
        int64_t dims[SIMNPU_IR_MAX_RANK];
        simnpu__ir_dtype dtype = t->dtype;
        unsigned rank = t->rank;
        int r;
        memcpy (dims, t->dims, sizeof dims);
        r = simnpu__ir_add_tensor (g, name, dtype, rank, dims);
        g_free (base);
        g_free (name);
        if (r < 0) {
          name_set_clear (&taken);
          return simnpu__set_error (error, SIMNPU_ENOMEM, "graph '%s': too "
              "many tensors", g->name);
        }
        g->nodes[i].outputs[j] = r;
      }
    }
  }
  name_set_clear (&taken);
  for (i = 0; i < n; i++)
    g->inputs[i] = ins[i];
  g->n_inputs = n;

  /* every tensor the outputs need must come from a kept node, a constant
   * or a new input */
  need = g_new0 (bool, MAX (g->n_tensors, 1));
  made = g_new0 (bool, MAX (g->n_tensors, 1));
  for (i = 0; i < g->n_outputs; i++)
    need[g->outputs[i]] = true;
  for (i = g->n_nodes; i-- > 0;) {
    const simnpu__ir_node *nd = &g->nodes[i];
    bool keep = false;
    for (j = 0; j < nd->n_outputs; j++)
      keep = keep || need[nd->outputs[j]];
    if (!keep)
      continue;
    for (j = 0; j < nd->n_outputs; j++)
      made[nd->outputs[j]] = true;
    for (j = 0; j < nd->n_inputs; j++)
      if (nd->inputs[j] != SIMNPU_IR_NONE)
        need[nd->inputs[j]] = true;
  }
  for (i = 0; i < n; i++)
    made[ins[i]] = true;
  for (i = 0; i < g->n_tensors && ret == 0; i++)
    if (need[i] && !made[i] && !g->tensors[i].is_const)
      ret = simnpu__set_error (error, SIMNPU_EINVAL, "graph '%s': the "
          "outputs still need '%s', which the cut inputs do not determine; "
          "name it (or what it comes from) as an input too", g->name,
          g->tensors[i].name);
  g_free (need);
  g_free (made);
  if (ret < 0)
    return ret;
  return simnpu__ir_prune (g, error);
}
