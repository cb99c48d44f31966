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
 * graph's interface keeps its layout.
 *
 * The pass rewrites the earliest transpose (in execution order) that can
 * change, then looks again. It finds that transpose without scanning the
 * graph: each tensor's readers are kept in a list and each node has an
 * order key, a rewrite queues only the transposes around the nodes it
 * changed, and the queue is a heap by key. Nodes are not moved in the
 * array until the end, where they are sorted by key; so a chain of n
 * element-wise ops costs O(n log n), not a rescan per step. */

#include "ir.h"

#include <stdlib.h>
#include <string.h>

/* Each rewrite removes or moves one transpose down; the bound stops a
 * pathological graph from looping. */
#define LAYOUT_MAX_ROUNDS_PER_NODE 16
/* a transpose read by more nodes stays where it is */
#define LAYOUT_MAX_CONSUMERS 64
/* Reader records the bookkeeping may visit per node of the graph; past
 * that the pass stops where it is (the graph stays correct, some
 * transposes stay), so a graph made to have every rewrite visit many
 * readers still costs linear time. Real models use a small fraction. */
#define LAYOUT_MAX_WORK_PER_NODE 1024
/* Order keys: original node i has key i << 32, and the s-th transpose the
 * pass inserts after original node i has (i << 32) | (G_MAXUINT32 - s):
 * after node i, before what was inserted there earlier, as inserting it
 * right after node i in the array would place it. */
#define LAYOUT_KEY_SHIFT 32
/* The tensor table is compacted when it is full and at least 1 / this of
 * it is garbage (tensors the pass left unused), so compaction costs O(1)
 * per rewrite over time. */
#define LAYOUT_COMPACT_FRACTION 8

/* One input slot of a node, linked into the list of the tensor it reads. */
typedef struct
{
  int node;
  int tensor;                   /* SIMNPU_IR_NONE when not linked */
  int prev, next;               /* neighbours in the tensor's list, or -1 */
} layout_use;

typedef struct
{
  simnpu__ir_graph *g;
  /* per node slot of g->nodes */
  guint64 *key;
  int *use0;                    /* input j's record is uses[use0 + j] */
  unsigned *use_cap;            /* records reserved at use0 */
  bool *dead, *queued;
  unsigned slots_alloc;
  GArray *free_slots;           /* dead slots, reused by new transposes */
  /* per tensor: the first record of its readers, and how many input slots
   * read it */
  int *head;
  unsigned *n_uses;
  unsigned tensors_alloc;
  /* tensors orphaned since the last compaction (a lower bound) */
  unsigned garbage;
  GArray *uses;                 /* layout_use */
  /* transposes whose rewrite may have changed, a binary heap by key */
  GArray *heap;
  guint32 n_inserted;
  guint64 work, max_work;
} layout;

#define USE(L, r) (&g_array_index ((L)->uses, layout_use, (r)))

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
    case SIMNPU_IR_ATAN2:
      return true;
    default:
      return false;
  }
}

/* ------------------------------------------------------------------ */
/* Indices */

static void
grow_slots (layout * L)
{
  unsigned n = L->g->n_nodes, old = L->slots_alloc;

  if (n <= old)
    return;
  L->slots_alloc = MAX (n, old * 2);
  L->key = g_renew (guint64, L->key, L->slots_alloc);
  L->use0 = g_renew (int, L->use0, L->slots_alloc);
  L->use_cap = g_renew (unsigned, L->use_cap, L->slots_alloc);
  L->dead = g_renew (bool, L->dead, L->slots_alloc);
  L->queued = g_renew (bool, L->queued, L->slots_alloc);
  memset (L->use_cap + old, 0, (L->slots_alloc - old) * sizeof (unsigned));
  memset (L->dead + old, 0, (L->slots_alloc - old) * sizeof (bool));
  memset (L->queued + old, 0, (L->slots_alloc - old) * sizeof (bool));
}

static void
grow_tensors (layout * L)
{
  unsigned n = L->g->n_tensors, old = L->tensors_alloc, i;

  if (n <= old)
    return;
  L->tensors_alloc = MAX (n, old * 2);
  L->head = g_renew (int, L->head, L->tensors_alloc);
  L->n_uses = g_renew (unsigned, L->n_uses, L->tensors_alloc);
  for (i = old; i < L->tensors_alloc; i++) {
    L->head[i] = -1;
    L->n_uses[i] = 0;
  }
}

static void
use_link (layout * L, int r, int t)
{
  layout_use *u = USE (L, r);

  u->tensor = t;
  u->prev = -1;
  u->next = -1;
  if (t < 0)
    return;
  u->next = L->head[t];
  if (u->next >= 0)
    USE (L, u->next)->prev = r;
  L->head[t] = r;
  L->n_uses[t]++;
}

static void
use_unlink (layout * L, int r)
{
  layout_use *u = USE (L, r);

  if (u->tensor < 0)
    return;
  if (u->prev >= 0)
    USE (L, u->prev)->next = u->next;
  else
    L->head[u->tensor] = u->next;
  if (u->next >= 0)
    USE (L, u->next)->prev = u->prev;
  L->n_uses[u->tensor]--;
  u->tensor = SIMNPU_IR_NONE;
}

/* Links node i's inputs into the readers' lists and makes it its
 * outputs' producer. */
static void
attach (layout * L, int i)
{
  simnpu__ir_node *n = &L->g->nodes[i];
  unsigned j;

  if (L->use_cap[i] < n->n_inputs) {
    L->use0[i] = (int) L->uses->len;
    L->use_cap[i] = n->n_inputs;
    g_array_set_size (L->uses, L->uses->len + n->n_inputs);
  }
  for (j = 0; j < n->n_inputs; j++) {
    USE (L, L->use0[i] + (int) j)->node = i;
    use_link (L, L->use0[i] + (int) j, n->inputs[j]);
  }
  for (j = 0; j < n->n_outputs; j++)
    L->g->tensors[n->outputs[j]].producer = i;
  L->dead[i] = false;
}

/* Removes node i; its slot is reused by the next new transpose. */
static void
kill_node (layout * L, int i)
{
  simnpu__ir_node *n = &L->g->nodes[i];
  unsigned j;

  for (j = 0; j < n->n_inputs; j++)
    use_unlink (L, L->use0[i] + (int) j);
  for (j = 0; j < n->n_outputs; j++)
    if (L->g->tensors[n->outputs[j]].producer == i)
      L->g->tensors[n->outputs[j]].producer = SIMNPU_IR_NONE;
  g_free (n->name);
  n->name = NULL;
  L->dead[i] = true;
  g_array_append_val (L->free_slots, i);
}

static void
set_input (layout * L, int i, unsigned j, int t)
{
  use_unlink (L, L->use0[i] + (int) j);
  L->g->nodes[i].inputs[j] = t;
  use_link (L, L->use0[i] + (int) j, t);
}

/* ------------------------------------------------------------------ */
/* The queue */

static void
heap_swap (layout * L, guint a, guint b)
{
  int *h = (int *) L->heap->data, t = h[a];

  h[a] = h[b];
  h[b] = t;
}

static void
heap_push (layout * L, int i)
{
  guint k = L->heap->len;
  int *h;

  g_array_append_val (L->heap, i);
  h = (int *) L->heap->data;
  while (k > 0 && L->key[h[(k - 1) / 2]] > L->key[h[k]]) {
    heap_swap (L, k, (k - 1) / 2);
    k = (k - 1) / 2;
  }
}

static int
heap_pop (layout * L)
{
  int *h = (int *) L->heap->data, top = h[0];
  guint k = 0, n = L->heap->len - 1;

  h[0] = h[n];
  g_array_set_size (L->heap, n);
  for (;;) {
    guint c = 2 * k + 1;
    if (c >= n)
      break;
    if (c + 1 < n && L->key[h[c + 1]] < L->key[h[c]])
      c++;
    if (L->key[h[k]] <= L->key[h[c]])
      break;
    heap_swap (L, k, c);
    k = c;
  }
  return top;
}

static bool
is_candidate (const layout * L, int i)
{
  const simnpu__ir_node *n = &L->g->nodes[i];

  return !L->dead[i] && n->op == SIMNPU_IR_TRANSPOSE && n->n_inputs == 1
      && n->n_outputs == 1;
}

static void
push (layout * L, int i)
{
  if (i < 0 || L->queued[i] || !is_candidate (L, i))
    return;
  L->queued[i] = true;
  heap_push (L, i);
}

static void
push_producer (layout * L, int t)
{
  if (t >= 0)
    push (L, L->g->tensors[t].producer);
}

/* Queues the transposes whose rewrite may differ now that node i changed
 * (its inputs, outputs or permutation): i, the producers of what it reads
 * (their readers changed), the transposes reading what it makes, and the
 * producers of the operands of binary nodes reading what it makes (sinking
 * into those looks at both operands' producers). */
static void
touch (layout * L, int i)
{
  const simnpu__ir_graph *g = L->g;
  const simnpu__ir_node *n = &g->nodes[i];
  unsigned j;
  int r;

  push (L, i);
  for (j = 0; j < n->n_inputs; j++)
    push_producer (L, n->inputs[j]);
  for (j = 0; j < n->n_outputs; j++)
    for (r = L->head[n->outputs[j]]; r >= 0; r = USE (L, r)->next) {
      const simnpu__ir_node *v = &g->nodes[USE (L, r)->node];
      L->work++;
      push (L, USE (L, r)->node);
      if (is_binary (v->op) && v->n_inputs == 2) {
        push_producer (L, v->inputs[0]);
        push_producer (L, v->inputs[1]);
      }
    }
}

/* ------------------------------------------------------------------ */
/* Room for new tensors and nodes */

/* Drops the tensors nothing refers to and renumbers the rest. */
static void
compact_tensors (layout * L)
{
  simnpu__ir_graph *g = L->g;
  int *map = g_new (int, MAX (g->n_tensors, 1));
  unsigned i, j, o = 0;

  for (i = 0; i < g->n_tensors; i++)
    map[i] = SIMNPU_IR_NONE;
  for (i = 0; i < g->n_inputs; i++)
    map[g->inputs[i]] = 0;
  for (i = 0; i < g->n_outputs; i++)
    map[g->outputs[i]] = 0;
  for (i = 0; i < g->n_nodes; i++) {
    const simnpu__ir_node *n = &g->nodes[i];
    if (L->dead[i])
      continue;
    for (j = 0; j < n->n_inputs; j++)
      if (n->inputs[j] >= 0)
        map[n->inputs[j]] = 0;
    for (j = 0; j < n->n_outputs; j++)
      map[n->outputs[j]] = 0;
  }
  for (i = 0; i < g->n_tensors; i++) {
    if (map[i] == SIMNPU_IR_NONE) {
      g_free (g->tensors[i].name);
      g_free (g->tensors[i].data);
      continue;
    }
    map[i] = (int) o;
    if (o != i) {
      g->tensors[o] = g->tensors[i];
      L->head[o] = L->head[i];
      L->n_uses[o] = L->n_uses[i];
    }
    o++;
  }
  for (i = o; i < g->n_tensors; i++) {
    L->head[i] = -1;
    L->n_uses[i] = 0;
  }
  g->n_tensors = o;
  for (i = 0; i < g->n_nodes; i++) {
    simnpu__ir_node *n = &g->nodes[i];
    if (L->dead[i])
      continue;
    for (j = 0; j < n->n_inputs; j++)
      if (n->inputs[j] >= 0)
        n->inputs[j] = map[n->inputs[j]];
    for (j = 0; j < n->n_outputs; j++)
      n->outputs[j] = map[n->outputs[j]];
  }
  for (i = 0; i < L->uses->len; i++)
    if (USE (L, i)->tensor >= 0)
      USE (L, i)->tensor = map[USE (L, i)->tensor];
  for (i = 0; i < g->n_inputs; i++)
    g->inputs[i] = map[g->inputs[i]];
  for (i = 0; i < g->n_outputs; i++)
    g->outputs[i] = map[g->outputs[i]];
  L->garbage = 0;
  g_free (map);
}

/* Whether need more tensors fit (compacting the table if that is worth
 * it); tensor indices change when it compacts. */
static bool
reserve_tensors (layout * L, unsigned need)
{
  simnpu__ir_graph *g = L->g;

  if (g->n_tensors + need <= SIMNPU_IR_MAX_TENSORS)
    return true;
  if (L->garbage < MAX (need, g->n_tensors / LAYOUT_COMPACT_FRACTION))
    return false;
  compact_tensors (L);
  return g->n_tensors + need <= SIMNPU_IR_MAX_TENSORS;
}

/* A transpose by attrs from in to out, ordered right after original node
 * `after`, in a dead slot if there is one; the caller made sure a node
 * fits. */
static int
new_transpose (layout * L, int after, const simnpu__ir_attrs * attrs,
    const char *name, int in, int out)
{
  simnpu__ir_graph *g = L->g;
  simnpu__ir_node *n;
  int i;

  if (L->free_slots->len > 0) {
    i = g_array_index (L->free_slots, int, L->free_slots->len - 1);
    g_array_set_size (L->free_slots, L->free_slots->len - 1);
    n = &g->nodes[i];
    memset (n, 0, sizeof (*n));
    n->op = SIMNPU_IR_TRANSPOSE;
    n->name = g_strdup (name);
    n->n_inputs = 1;
    n->inputs[0] = in;
    n->n_outputs = 1;
    n->outputs[0] = out;
  } else {
    n = simnpu__ir_add_node (g, SIMNPU_IR_TRANSPOSE, name, 1, &in, 1, &out);
    g_assert (n != NULL);
    i = (int) g->n_nodes - 1;
    grow_slots (L);
  }
  n->attrs = *attrs;
  L->key[i] = (L->key[after] >> LAYOUT_KEY_SHIFT << LAYOUT_KEY_SHIFT)
      | (G_MAXUINT32 - ++L->n_inserted);
  L->queued[i] = false;
  attach (L, i);
  return i;
}

/* ------------------------------------------------------------------ */
/* Rewrites */

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
    p = g->tensors[t].producer;
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

/* Transpose ti is unused or the identity: its readers read its input. */
static void
bypass (layout * L, int ti)
{
  simnpu__ir_graph *g = L->g;
  int a = g->nodes[ti].inputs[0], b = g->nodes[ti].outputs[0], r, next;
  GArray *readers = g_array_new (FALSE, FALSE, sizeof (int));
  guint k;

  for (r = L->head[b]; r >= 0; r = next) {
    int v = USE (L, r)->node;
    next = USE (L, r)->next;
    L->work++;
    set_input (L, v, (unsigned) (r - L->use0[v]), a);
    g_array_append_val (readers, v);
  }
  kill_node (L, ti);
  push_producer (L, a);
  for (k = 0; k < readers->len; k++)
    touch (L, g_array_index (readers, int, k));
  g_array_free (readers, TRUE);
  L->garbage++;
}

/* Moves transpose ti below all its consumers (each gets its own copy of
 * the transpose after it), when every consumer allows it. */
static bool
sink (layout * L, int ti)
{
  simnpu__ir_graph *g = L->g;
  int users[LAYOUT_MAX_CONSUMERS], copies[LAYOUT_MAX_CONSUMERS];
  unsigned n_users = 0, need = 0, i, j, k, r;
  simnpu__ir_attrs attrs;
  gchar *name;
  int a, b, u;

  b = g->nodes[ti].outputs[0];
  for (u = L->head[b]; u >= 0; u = USE (L, u)->next) {
    int v = USE (L, u)->node;
    L->work++;
    for (k = 0; k < n_users && users[k] != v; k++);
    if (k < n_users)
      continue;
    if (n_users == G_N_ELEMENTS (users))
      return false;
    users[n_users++] = v;
  }
  if (n_users == 0)
    return false;
  /* in execution order: a unary consumer moves before the binary one
   * that reads its result */
  for (i = 1; i < n_users; i++)
    for (k = i; k > 0 && L->key[users[k - 1]] > L->key[users[k]]; k--) {
      int t = users[k];
      users[k] = users[k - 1];
      users[k - 1] = t;
    }
  for (k = 0; k < n_users; k++) {
    const simnpu__ir_node *v = &g->nodes[users[k]];
    if (!can_sink_into (g, &g->nodes[ti], v))
      return false;
    need++;
    for (j = 0; j < v->n_inputs; j++)
      need += v->inputs[j] != b && g->tensors[v->inputs[j]].is_const
          && simnpu__ir_tensor_elements (&g->tensors[v->inputs[j]]) != 1;
  }
  /* the copies take ti's slot and the free ones, then grow the array */
  if (n_users > L->free_slots->len + 1
      && g->n_nodes + (n_users - L->free_slots->len - 1) > SIMNPU_IR_MAX_NODES)
    return false;
  if (!reserve_tensors (L, need))
    return false;

  a = g->nodes[ti].inputs[0];
  b = g->nodes[ti].outputs[0];
  attrs = g->nodes[ti].attrs;
  r = attrs.n_ints;
  name = g_strdup (g->nodes[ti].name);
  kill_node (L, ti);
  for (k = 0; k < n_users; k++) {
    int ui = users[k], out = g->nodes[ui].outputs[0], nt;
    int64_t dims[SIMNPU_IR_MAX_RANK];
    gchar *pre;

    for (j = 0; j < g->nodes[ui].n_inputs; j++) {
      int t = g->nodes[ui].inputs[j], p;
      if (t == b) {
        set_input (L, ui, j, a);
      } else if (g->tensors[t].is_const) {
        if (simnpu__ir_tensor_elements (&g->tensors[t]) != 1) {
          int nc = permuted_const (g, t, attrs.ints, r);
          grow_tensors (L);
          set_input (L, ui, j, nc);
        }
      } else {
        /* a transpose by the same permutation (possibly one just placed
         * after an earlier consumer) */
        p = g->tensors[t].producer;
        set_input (L, ui, j, g->nodes[p].inputs[0]);
        push (L, p);
      }
    }
    /* out = transpose (nt): nt's dims are out's through the inverse */
    for (i = 0; i < r; i++)
      dims[attrs.ints[i]] = g->tensors[out].dims[i];
    pre = g_strdup_printf ("%s/pre", g->tensors[out].name);
    nt = simnpu__ir_add_tensor (g, pre, g->tensors[out].dtype, r, dims);
    g_free (pre);
    grow_tensors (L);
    g->nodes[ui].outputs[0] = nt;
    g->tensors[nt].producer = ui;
    copies[k] = new_transpose (L, ui, &attrs, name, nt, out);
  }
  g_free (name);
  for (k = 0; k < n_users; k++) {
    touch (L, users[k]);
    touch (L, copies[k]);
  }
  L->garbage++;
  return true;
}

/* One rewrite at transpose node ti; true if the graph changed. */
static bool
rewrite (layout * L, int ti)
{
  simnpu__ir_graph *g = L->g;
  simnpu__ir_node *tn = &g->nodes[ti];
  int a = tn->inputs[0], b = tn->outputs[0];
  unsigned r = tn->attrs.n_ints, i;
  bool ident = true;
  int pi;

  for (i = 0; i < r; i++)
    if (tn->attrs.ints[i] != (int64_t) i)
      ident = false;
  if (simnpu__ir_is_graph_output (g, b))
    return false;
  /* unused, or an identity: its output is its input */
  if (L->n_uses[b] == 0 || ident) {
    bypass (L, ti);
    return true;
  }

  /* compose with a transpose above */
  pi = g->tensors[a].producer;
  if (pi != SIMNPU_IR_NONE && g->nodes[pi].op == SIMNPU_IR_TRANSPOSE
      && g->nodes[pi].attrs.n_ints == r) {
    const simnpu__ir_node *p = &g->nodes[pi];
    int64_t q[SIMNPU_IR_MAX_RANK];
    for (i = 0; i < r; i++)
      q[i] = p->attrs.ints[tn->attrs.ints[i]];
    set_input (L, ti, 0, p->inputs[0]);
    memcpy (tn->attrs.ints, q, r * sizeof q[0]);
    /* the transpose above lost a reader */
    push (L, pi);
    touch (L, ti);
    return true;
  }

  return sink (L, ti);
}

/* ------------------------------------------------------------------ */

static int
compare_keys (gconstpointer pa, gconstpointer pb, gpointer data)
{
  const guint64 *key = data;
  guint64 a = key[*(const int *) pa], b = key[*(const int *) pb];

  return a < b ? -1 : a > b;
}

/* The live nodes in key order make the graph's node array again. */
static void
reorder (layout * L)
{
  simnpu__ir_graph *g = L->g;
  int *order = g_new (int, MAX (g->n_nodes, 1));
  simnpu__ir_node *nodes;
  unsigned i, n = 0;

  for (i = 0; i < g->n_nodes; i++)
    if (!L->dead[i])
      order[n++] = (int) i;
  g_qsort_with_data (order, (gint) n, sizeof (int), compare_keys, L->key);
  nodes = g_new (simnpu__ir_node, MAX (g->nodes_alloc, 1));
  for (i = 0; i < n; i++)
    nodes[i] = g->nodes[order[i]];
  g_free (g->nodes);
  g->nodes = nodes;
  g->n_nodes = n;
  g_free (order);
}

int
simnpu__ir_cancel_transposes (simnpu__ir_graph * g, simnpu_error * error)
{
  layout L = { 0 };
  guint64 rounds = 0, max_rounds;
  unsigned i;
  int ret;

  if (g == NULL)
    return simnpu__set_error (error, SIMNPU_EINVAL, "no graph");
  /* the indices trust the structure: checked (and producers set) here */
  if ((ret = simnpu__ir_infer_shapes (g, error)) < 0)
    return ret;
  max_rounds = LAYOUT_MAX_ROUNDS_PER_NODE * (guint64) MAX (g->n_nodes, 1);
  L.g = g;
  L.max_work = LAYOUT_MAX_WORK_PER_NODE * ((guint64) g->n_nodes + 1);
  L.uses = g_array_new (FALSE, FALSE, sizeof (layout_use));
  L.heap = g_array_new (FALSE, FALSE, sizeof (int));
  L.free_slots = g_array_new (FALSE, FALSE, sizeof (int));
  grow_slots (&L);
  grow_tensors (&L);
  for (i = 0; i < g->n_nodes; i++) {
    L.key[i] = (guint64) i << LAYOUT_KEY_SHIFT;
    attach (&L, (int) i);
  }
  for (i = 0; i < g->n_nodes; i++)
    push (&L, (int) i);

  while (L.heap->len > 0 && rounds < max_rounds && L.work <= L.max_work) {
    int ti = heap_pop (&L);
    L.queued[ti] = false;
    L.work++;
    if (is_candidate (&L, ti) && rewrite (&L, ti))
      rounds++;
  }

  reorder (&L);
  g_free (L.key);
  g_free (L.use0);
  g_free (L.use_cap);
  g_free (L.dead);
  g_free (L.queued);
  g_free (L.head);
  g_free (L.n_uses);
  g_array_free (L.uses, TRUE);
  g_array_free (L.heap, TRUE);
  g_array_free (L.free_slots, TRUE);
  return simnpu__ir_infer_shapes (g, error);
}
