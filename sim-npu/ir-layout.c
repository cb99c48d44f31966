/* gst-ax
 * Copyright (C) 2026 gst-ax developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

/* Transpose cancellation: the ONNX front-end wraps every spatial op in
 * NCHW -> NHWC -> NCHW transposes. Between two spatial ops the pair
 * "to NCHW, (element-wise ops), to NHWC" is the identity once the
 * transpose is pushed below the element-wise ops; this pass does that and
 * removes the pairs. Transposes that produce graph outputs stay, so the
 * graph's interface keeps its layout. */

#include "ir.h"

#include <string.h>

/* Each rewrite removes or moves one transpose down; the bound stops a
 * pathological graph from looping. */
#define LAYOUT_MAX_ROUNDS_PER_NODE 16
/* a transpose read by more nodes stays where it is */
#define LAYOUT_MAX_CONSUMERS 64


/* number of node inputs reading t; *user = the last such node */
static unsigned
count_uses (const simnpu__ir_graph * g, int t, int *user)
{
  unsigned i, j, n = 0;

  *user = SIMNPU_IR_NONE;
  for (i = 0; i < g->n_nodes; i++)
    for (j = 0; j < g->nodes[i].n_inputs; j++)
      if (g->nodes[i].inputs[j] == t) {
        n++;
        *user = (int) i;
      }
  return n;
}

static int
producer_of (const simnpu__ir_graph * g, int t)
{
  unsigned i, j;
  for (i = 0; i < g->n_nodes; i++)
    for (j = 0; j < g->nodes[i].n_outputs; j++)
      if (g->nodes[i].outputs[j] == t)
        return (int) i;
  return SIMNPU_IR_NONE;
}


static bool
is_binary (simnpu__ir_op op)
{
  switch (op) {
    case SIMNPU_IR_ADD:
    case SIMNPU_IR_SUB:
    case SIMNPU_IR_MUL:
    case SIMNPU_IR_DIV:
    case SIMNPU_IR_FLOOR_DIV:
    case SIMNPU_IR_FLOOR_MOD:
    case SIMNPU_IR_POW:
    case SIMNPU_IR_MAXIMUM:
    case SIMNPU_IR_MINIMUM:
    case SIMNPU_IR_EQUAL:
    case SIMNPU_IR_LESS:
    case SIMNPU_IR_LESS_EQUAL:
    case SIMNPU_IR_GREATER:
    case SIMNPU_IR_GREATER_EQUAL:
    case SIMNPU_IR_AND:
    case SIMNPU_IR_OR:
    case SIMNPU_IR_XOR:
    case SIMNPU_IR_PRELU:
      return true;
    default:
      return false;
  }
}

static void
remove_node (simnpu__ir_graph * g, unsigned i)
{
  g_free (g->nodes[i].name);
  memmove (&g->nodes[i], &g->nodes[i + 1],
      (g->n_nodes - i - 1) * sizeof g->nodes[0]);
  g->n_nodes--;
}

static void
replace_uses (simnpu__ir_graph * g, int from, int to)
{
  unsigned i, j;
  for (i = 0; i < g->n_nodes; i++)
    for (j = 0; j < g->nodes[i].n_inputs; j++)
      if (g->nodes[i].inputs[j] == from)
        g->nodes[i].inputs[j] = to;
}

/* The constant c (rank <= r) as seen through the transpose's inverse:
 * c' such that transpose (c', perm) broadcasts like c. A new constant. */
static int
permuted_const (simnpu__ir_graph * g, int ci, const int64_t * perm, unsigned r)
{
  const simnpu__ir_tensor *c = &g->tensors[ci];
  int64_t cd[SIMNPU_IR_MAX_RANK], od[SIMNPU_IR_MAX_RANK];
  int64_t cstride[SIMNPU_IR_MAX_RANK], idx[SIMNPU_IR_MAX_RANK];
  size_t esize = simnpu__ir_dtype_size (c->dtype);
  int64_t n = simnpu__ir_tensor_elements (c), e;
  uint8_t *data;
  gchar *name;
  unsigned i;
  int t;

  /* c right-aligned to rank r */
  for (i = 0; i < r; i++)
    cd[i] = i < r - c->rank ? 1 : c->dims[i - (r - c->rank)];
  /* transpose (c', perm)[i] = c'[perm[i]] = c[i] */
  for (i = 0; i < r; i++)
    od[perm[i]] = cd[i];
  cstride[r - 1] = 1;
  for (i = r - 1; i > 0; i--)
    cstride[i - 1] = cstride[i] * cd[i];
  data = g_malloc (MAX ((size_t) n * esize, 1));
  memset (idx, 0, sizeof idx);
  for (e = 0; e < n; e++) {
    /* idx: position in c' (dims od); its value is c at idx[perm[i]] */
    int64_t src = 0;
    for (i = 0; i < r; i++)
      src += idx[perm[i]] * cstride[i];
    memcpy (data + e * esize, (const uint8_t *) c->data + src * esize, esize);
    for (i = r; i-- > 0;) {
      if (++idx[i] < od[i])
        break;
      idx[i] = 0;
    }
  }
  name = g_strdup_printf ("%s/perm", c->name);
  t = simnpu__ir_add_const (g, name, c->dtype, r, od, data);
  g_free (name);
  return t;
}

static bool
same_perm (const simnpu__ir_node * a, const simnpu__ir_node * b)
{
  return a->attrs.n_ints == b->attrs.n_ints
      && memcmp (a->attrs.ints, b->attrs.ints,
      a->attrs.n_ints * sizeof a->attrs.ints[0]) == 0;
}

/* Whether consumer u of b (the output of transpose tn) can run before the
 * transpose: element-wise, and every other operand is a constant that
 * broadcasts into the rank, the output of a transpose by the same
 * permutation, or the output of a unary consumer of b (which moves too). */
static bool
can_sink_into (const simnpu__ir_graph * g, const simnpu__ir_node * tn,
    const simnpu__ir_node * u)
{
  int b = tn->outputs[0];
  unsigned r = tn->attrs.n_ints, i;

  if (u->n_outputs != 1)
    return false;
  if (simnpu__ir_op_is_unary (u->op) && u->n_inputs == 1)
    return true;
  if (!is_binary (u->op) || u->n_inputs != 2)
    return false;
  for (i = 0; i < 2; i++) {
    int t = u->inputs[i], p;
    const simnpu__ir_node *pn;
    if (t == b)
      continue;
    if (g->tensors[t].is_const) {
      if (g->tensors[t].rank > r)
        return false;
      continue;
    }
    p = producer_of (g, t);
    if (p == SIMNPU_IR_NONE)
      return false;
    pn = &g->nodes[p];
    if (pn->op == SIMNPU_IR_TRANSPOSE && same_perm (pn, tn)
        && g->tensors[pn->inputs[0]].rank == r)
      continue;
    if (simnpu__ir_op_is_unary (pn->op) && pn->n_inputs == 1
        && pn->inputs[0] == b && pn->n_outputs == 1)
      continue;
    return false;
  }
  return true;
}

/* Inserts a transpose by tn's permutation from in to out right after node
 * i. */
static int
insert_transpose_after (simnpu__ir_graph * g, unsigned i, unsigned ti,
    int in, int out)
{
  simnpu__ir_attrs attrs = g->nodes[ti].attrs;
  gchar *name = g_strdup (g->nodes[ti].name);
  simnpu__ir_node *n, tmp;

  n = simnpu__ir_add_node (g, SIMNPU_IR_TRANSPOSE, name, 1, &in, 1, &out);
  g_free (name);
  if (n == NULL)
    return -1;
  n->attrs = attrs;
  tmp = *n;
  memmove (&g->nodes[i + 2], &g->nodes[i + 1],
      (g->n_nodes - 1 - (i + 1)) * sizeof g->nodes[0]);
  g->nodes[i + 1] = tmp;
  return 0;
}

/* Moves transpose ti below all its consumers (each gets its own copy of
 * the transpose after it), when every consumer allows it. */
static bool
sink (simnpu__ir_graph * g, unsigned ti)
{
  unsigned users[LAYOUT_MAX_CONSUMERS];
  unsigned n_users = 0, i, j, k, inserted = 0, r;
  int a = g->nodes[ti].inputs[0], b = g->nodes[ti].outputs[0];

  r = g->nodes[ti].attrs.n_ints;
  for (i = ti + 1; i < g->n_nodes; i++)
    for (j = 0; j < g->nodes[i].n_inputs; j++)
      if (g->nodes[i].inputs[j] == b) {
        if (n_users == G_N_ELEMENTS (users)
            || !can_sink_into (g, &g->nodes[ti], &g->nodes[i]))
          return false;
        users[n_users++] = i;
        break;
      }
  if (n_users == 0)
    return false;
  for (k = 0; k < n_users; k++) {
    unsigned ui = users[k] + inserted;
    simnpu__ir_node *u = &g->nodes[ui];
    int out = u->outputs[0], nt;
    gchar *name;

    for (j = 0; j < u->n_inputs; j++) {
      int t = u->inputs[j], p;
      if (t == b) {
        u->inputs[j] = a;
      } else if (g->tensors[t].is_const) {
        if (simnpu__ir_tensor_elements (&g->tensors[t]) != 1) {
          int nc = permuted_const (g, t, g->nodes[ti].attrs.ints, r);
          u = &g->nodes[ui];
          u->inputs[j] = nc;
        }
      } else {
        /* a transpose by the same permutation (possibly one just placed
         * after an earlier consumer) */
        p = producer_of (g, t);
        u->inputs[j] = g->nodes[p].inputs[0];
      }
    }
    name = g_strdup_printf ("%s/pre", g->tensors[out].name);
    nt = simnpu__ir_add_tensor (g, name, g->tensors[out].dtype, 0, NULL);
    g_free (name);
    if (nt < 0)
      return false;
    g->nodes[ui].outputs[0] = nt;
    if (insert_transpose_after (g, ui, ti, nt, out) < 0)
      return false;
    inserted++;
  }
  remove_node (g, ti);
  return true;
}

/* One rewrite at transpose node ti; true if the graph changed. */
static bool
rewrite (simnpu__ir_graph * g, unsigned ti)
{
  simnpu__ir_node *tn = &g->nodes[ti];
  int a = tn->inputs[0], b = tn->outputs[0];
  unsigned r = tn->attrs.n_ints, i;
  int user, pi;
  bool ident = true;

  for (i = 0; i < r; i++)
    if (tn->attrs.ints[i] != (int64_t) i)
      ident = false;
  if (simnpu__ir_is_graph_output (g, b))
    return false;
  /* unused, or an identity: its output is its input */
  if (count_uses (g, b, &user) == 0 || ident) {
    replace_uses (g, b, a);
    remove_node (g, ti);
    return true;
  }

  /* compose with a transpose above */
  pi = producer_of (g, a);
  if (pi != SIMNPU_IR_NONE && g->nodes[pi].op == SIMNPU_IR_TRANSPOSE
      && g->nodes[pi].attrs.n_ints == r) {
    const simnpu__ir_node *p = &g->nodes[pi];
    int64_t q[SIMNPU_IR_MAX_RANK];
    for (i = 0; i < r; i++)
      q[i] = p->attrs.ints[tn->attrs.ints[i]];
    tn->inputs[0] = p->inputs[0];
    memcpy (tn->attrs.ints, q, r * sizeof q[0]);
    return true;
  }

  return sink (g, ti);
}

int
simnpu__ir_cancel_transposes (simnpu__ir_graph * g, simnpu_error * error)
{
  unsigned rounds = 0, max_rounds;
  bool changed = true;
  int ret;

  if (g == NULL)
    return simnpu__set_error (error, SIMNPU_EINVAL, "no graph");
  max_rounds = LAYOUT_MAX_ROUNDS_PER_NODE * MAX (g->n_nodes, 1);
  while (changed && rounds < max_rounds) {
    unsigned i;
    changed = false;
    for (i = 0; i < g->n_nodes; i++) {
      if (g->nodes[i].op != SIMNPU_IR_TRANSPOSE || g->nodes[i].n_inputs != 1
          || g->nodes[i].n_outputs != 1)
        continue;
      if (rewrite (g, i)) {
        changed = true;
        rounds++;
        /* the moved tensors' shapes change */
        if ((ret = simnpu__ir_infer_shapes (g, error)) < 0)
          return ret;
        break;
      }
    }
  }
  return simnpu__ir_infer_shapes (g, error);
}
