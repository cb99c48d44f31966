/* gst-ax
 * Copyright (C) 2026 gst-ax developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

/* TF while loops whose trip count is known when the model is compiled,
 * unrolled, and the TensorList ops that carry their values.
 *
 * A TF while loop in a GraphDef is a frame: Enter nodes bring values in,
 * Merge takes the Enter's value on the first iteration and the
 * NextIteration's after, LoopCond's predicate drives the Switches, whose
 * true output feeds the body and whose false output leaves through Exit.
 * The commonest such loop in detection models is tf.map_fn over the batch
 * (the TF Object Detection API's preprocessing: cast, scale, resize of
 * each image), whose trip count is the batch size: a constant once the
 * input's shape is. Such a loop is run here at compile time: each
 * iteration translates the body again, with every value of the iteration
 * under the key "node@k", and the predicate must fold to a constant. A
 * loop whose predicate does not (an NMS, whose count depends on the data)
 * or that uses what this file does not take is left to the cut before
 * control flow (tfjs.c), as before.
 *
 * TensorLists are values of the loader, not of the IR: a list is its
 * items (IR tensors), or the tensor it was made from, whose items are
 * gathered when read. */

#include "tfjs-private.h"

#include <string.h>

/* a loop is unrolled up to this many iterations (a batch); above, it is
 * cut like any other control flow */
#define TFJS_MAX_UNROLL 64

typedef enum
{
  FRAME_PENDING,
  FRAME_DONE,
  FRAME_CUT,
} frame_state;

typedef struct
{
  const char *name;             /* frame_name, as the JSON stores it */
  GArray *enters;               /* node indices */
  GArray *nodes;                /* the frame's nodes, in execution order */
  frame_state state;
  unsigned iterations;
  bool poisoned;
  char *why;                    /* why the loop was cut */
} tfjs_frame;

/* A TensorList: n items, each an IR tensor or -1; unset items of a list
 * made from a tensor are that tensor's slices along dim 0. Shared by the
 * keys that name it (reference-counted), never changed once made. */
typedef struct
{
  unsigned n;
  int source;
  int *items;
} tfjs_list;

static void
list_clear (gpointer p)
{
  g_free (((tfjs_list *) p)->items);
}

static void
list_release (gpointer p)
{
  g_rc_box_release_full (p, list_clear);
}

static tfjs_list *
list_new (unsigned n, int source)
{
  tfjs_list *ls = g_rc_box_new0 (tfjs_list);
  unsigned i;

  ls->n = n;
  ls->source = source;
  ls->items = g_new (int, MAX (n, 1));
  for (i = 0; i < n; i++)
    ls->items[i] = -1;
  return ls;
}

static bool
is_op (const tfjs_node * tn, const char *op)
{
  return strcmp (tn->op, op) == 0;
}

static void
frame_free (gpointer p)
{
  tfjs_frame *f = p;

  g_array_unref (f->enters);
  g_array_unref (f->nodes);
  g_free (f->why);
  g_free (f);
}

static void
frame_cut (tfjs_frame * f, char *why)
{
  if (f->why == NULL)
    f->why = why;
  else
    g_free (why);
  f->state = FRAME_CUT;
}

/* ------------------------------------------------------------------ */
/* Frames */

int
simnpu__tfjs_find_frames (tfjs_loader * l)
{
  unsigned *n_cons = g_new0 (unsigned, l->n_nodes + 1);
  unsigned *cons, *fill, *queue, i, j, f;

  l->frames = g_ptr_array_new_with_free_func (frame_free);
  l->lists = g_hash_table_new_full (g_str_hash, g_str_equal, g_free,
      list_release);
  l->frame_of = g_new (int, MAX (l->n_nodes, 1));
  for (i = 0; i < l->n_nodes; i++) {
    const tfjs_node *tn = &l->nodes[i];
    const char *name;
    tfjs_frame *fr = NULL;

    l->frame_of[i] = -1;
    if (!is_op (tn, "Enter") && !is_op (tn, "RefEnter"))
      continue;
    name = simnpu__tfjs_get_string (simnpu__tfjs_attr_value (tn,
            "frame_name"), "s");
    if (name == NULL)
      name = "";
    for (f = 0; f < l->frames->len; f++) {
      fr = g_ptr_array_index (l->frames, f);
      if (strcmp (fr->name, name) == 0)
        break;
    }
    if (f == l->frames->len) {
      fr = g_new0 (tfjs_frame, 1);
      fr->name = name;
      fr->enters = g_array_new (FALSE, FALSE, sizeof (unsigned));
      fr->nodes = g_array_new (FALSE, FALSE, sizeof (unsigned));
      g_ptr_array_add (l->frames, fr);
    }
    g_array_append_val (fr->enters, i);
    l->frame_of[i] = (int) f;
  }
  if (l->frames->len == 0) {
    g_free (n_cons);
    return 0;
  }
  /* consumers of each node, compressed: cons[n_cons[u] .. n_cons[u+1]) */
  for (i = 0; i < l->n_nodes; i++)
    for (j = 0; j < l->nodes[i].n_inputs; j++)
      n_cons[l->nodes[i].input_nodes[j] + 1]++;
  for (i = 0; i < l->n_nodes; i++)
    n_cons[i + 1] += n_cons[i];
  cons = g_new (unsigned, MAX (n_cons[l->n_nodes], 1));
  fill = g_memdup2 (n_cons, (l->n_nodes + 1) * sizeof n_cons[0]);
  for (i = 0; i < l->n_nodes; i++)
    for (j = 0; j < l->nodes[i].n_inputs; j++)
      cons[fill[l->nodes[i].input_nodes[j]]++] = i;
  g_free (fill);

  /* a frame is what its Enters reach, up to its Exits; a node two frames
   * reach is a nested loop, which is not unrolled */
  queue = g_new (unsigned, MAX (l->n_nodes, 1));
  for (f = 0; f < l->frames->len; f++) {
    tfjs_frame *fr = g_ptr_array_index (l->frames, f);
    unsigned head = 0, tail = 0;

    for (i = 0; i < fr->enters->len; i++)
      queue[tail++] = g_array_index (fr->enters, unsigned, i);
    while (head < tail) {
      unsigned u = queue[head++];
      if (is_op (&l->nodes[u], "Exit") || is_op (&l->nodes[u], "RefExit"))
        continue;
      for (j = n_cons[u]; j < n_cons[u + 1]; j++) {
        unsigned c = cons[j];
        if (l->frame_of[c] == -1) {
          l->frame_of[c] = (int) f;
          queue[tail++] = c;
        } else if (l->frame_of[c] != (int) f) {
          tfjs_frame *other = g_ptr_array_index (l->frames, l->frame_of[c]);
          frame_cut (fr, g_strdup ("it shares nodes with another loop "
                  "(nested loops are not unrolled)"));
          frame_cut (other, g_strdup ("it shares nodes with another loop "
                  "(nested loops are not unrolled)"));
        }
      }
    }
  }
  g_free (queue);
  g_free (cons);
  g_free (n_cons);
  return 0;
}

void
simnpu__tfjs_frames_free (tfjs_loader * l)
{
  if (l->frames)
    g_ptr_array_unref (l->frames);
  if (l->lists)
    g_hash_table_unref (l->lists);
  g_free (l->frame_of);
}

/* Edges the execution order follows: the data inputs, except the loop's
 * back edge NextIteration -> Merge; the control inputs outside loops;
 * and from an Exit to every Enter of its frame, so that the whole loop's
 * inputs are there when its first Exit runs it. -1 for an edge not
 * followed. */
unsigned
simnpu__tfjs_n_deps (const tfjs_loader * l, unsigned v)
{
  const tfjs_node *tn = &l->nodes[v];
  unsigned n = tn->n_inputs + tn->n_ctrl;

  if (l->frame_of && l->frame_of[v] >= 0 && (is_op (tn, "Exit")
          || is_op (tn, "RefExit"))) {
    const tfjs_frame *fr = g_ptr_array_index (l->frames, l->frame_of[v]);
    n += fr->enters->len;
  }
  return n;
}

int
simnpu__tfjs_dep (const tfjs_loader * l, unsigned v, unsigned i)
{
  const tfjs_node *tn = &l->nodes[v];
  const tfjs_frame *fr;

  if (i < tn->n_inputs) {
    const tfjs_node *src = &l->nodes[tn->input_nodes[i]];
    if ((is_op (tn, "Merge") || is_op (tn, "RefMerge"))
        && (is_op (src, "NextIteration") || is_op (src, "RefNextIteration")))
      return -1;
    return tn->input_nodes[i];
  }
  i -= tn->n_inputs;
  if (i < tn->n_ctrl) {
    /* a control input, followed outside loops only: a cond's node that
     * reads only constants is dead with the pivot it depends on
     * (tfjs-cond.c), which must come first */
    int u = tn->ctrl_nodes[i];
    if (l->frame_of && (l->frame_of[v] >= 0 || l->frame_of[u] >= 0))
      return -1;
    return u;
  }
  i -= tn->n_ctrl;
  fr = g_ptr_array_index (l->frames, l->frame_of[v]);
  return (int) g_array_index (fr->enters, unsigned, i);
}

void
simnpu__tfjs_frames_order (tfjs_loader * l, const unsigned *order)
{
  unsigned i;

  for (i = 0; l->frame_of && i < l->n_nodes; i++) {
    int f = l->frame_of[order[i]];
    if (f >= 0) {
      tfjs_frame *fr = g_ptr_array_index (l->frames, f);
      g_array_append_val (fr->nodes, order[i]);
    }
  }
}

/* ------------------------------------------------------------------ */
/* Values: IR tensors in l->tensors, lists in l->lists, by key */

static char *
value_key (const char *name, int iteration, unsigned output)
{
  if (iteration < 0)
    return output ? g_strdup_printf ("%s:%u", name, output) : g_strdup (name);
  return output ? g_strdup_printf ("%s@%d:%u", name, iteration, output)
      : g_strdup_printf ("%s@%d", name, iteration);
}

typedef struct
{
  int t;                        /* -1 unless a tensor */
  tfjs_list *list;              /* NULL unless a list */
} tfjs_value;

static bool
get_value (tfjs_loader * l, const char *key, tfjs_value * v)
{
  gpointer p = g_hash_table_lookup (l->tensors, key);

  v->t = p ? GPOINTER_TO_INT (p) - 1 : -1;
  v->list = p ? NULL : g_hash_table_lookup (l->lists, key);
  return v->t >= 0 || v->list != NULL;
}

static void
set_value (tfjs_loader * l, const char *key, const tfjs_value * v)
{
  if (v->t >= 0)
    g_hash_table_replace (l->tensors, g_strdup (key),
        GINT_TO_POINTER (v->t + 1));
  else
    g_hash_table_replace (l->lists, g_strdup (key), g_rc_box_acquire (v->list));
}

/* The value input j of node v reads at iteration k (-1: outside any
 * loop). Values from outside the frame are the graph's; a Const there
 * that the execution order has not reached yet is translated now. */
static bool
input_value (tfjs_loader * l, unsigned v, unsigned j, int k, tfjs_value * out)
{
  const tfjs_node *tn = &l->nodes[v];
  unsigned u = (unsigned) tn->input_nodes[j];
  bool inside = k >= 0 && l->frame_of[u] == l->frame_of[v];
  char *key = value_key (tn->inputs[j].name, inside ? k : -1,
      tn->inputs[j].output);
  bool found = get_value (l, key, out);

  if (!found && !inside && is_op (&l->nodes[u], "Const")
      && l->nodes[u].n_inputs == 0 && l->nodes[u].poison == TFJS_NO_POISON) {
    const tfjs_node *cur = l->cur;
    if (simnpu__tfjs_translate_node (l, u) == 0)
      found = get_value (l, key, out);
    l->cur = cur;
  }
  g_free (key);
  return found;
}

/* ------------------------------------------------------------------ */
/* TensorList ops */

static int
list_index (tfjs_loader * l, int t, const tfjs_list * ls, unsigned *out)
{
  int64_t idx;
  unsigned n;
  int ret = simnpu__tfjs_const_ints (l, t, "index", &idx, 1, &n);

  if (ret < 0)
    return ret;
  if (n != 1 || idx < 0 || idx >= (int64_t) ls->n)
    return simnpu__tfjs_fail (l, SIMNPU_EFORMAT, "index %" G_GINT64_FORMAT
        " of a list of %u items", idx, ls->n);
  *out = (unsigned) idx;
  return 0;
}

/* item i of the list, gathered from its source tensor if unset */
static int
list_item (tfjs_loader * l, const tfjs_list * ls, unsigned i)
{
  simnpu__ir_node *n;
  int32_t *v;
  int in[2], out, ret;
  char suffix[32];

  if (ls->items[i] >= 0)
    return ls->items[i];
  if (ls->source < 0)
    return simnpu__tfjs_fail (l, SIMNPU_EUNSUPPORTED,
        "reads item %u of a list, which nothing has written", i);
  g_snprintf (suffix, sizeof suffix, "item%u", i);
  v = g_new (int32_t, 1);
  *v = (int32_t) i;
  in[0] = ls->source;
  in[1] = simnpu__tfjs_new_const (l, suffix, SIMNPU_IR_I32, 0, NULL, v);
  if (in[1] < 0)
    return in[1];
  ret = simnpu__tfjs_begin_op (l, SIMNPU_IR_GATHER, suffix, 2, in, 1, &out, &n);
  if (ret < 0)
    return ret;
  n->attrs.axis = 0;
  ret = simnpu__tfjs_finish_op (l, n);
  return ret < 0 ? ret : out;
}

/* A TensorList op of node tn (named as the iteration's copy) on inputs
 * in[]; its result stored under key. TFJS_DECLINED for a list op or a
 * use of lists this file does not take. */
static int
list_op (tfjs_loader * l, const tfjs_node * tn, const tfjs_value * in,
    const char *key)
{
  tfjs_value res = { -1, NULL };
  tfjs_list *ls;
  unsigned i = 0;
  int ret = 0;

  if (is_op (tn, "TensorListReserve")) {
    int64_t n;
    unsigned got;
    if (tn->n_inputs != 2 || in[1].t < 0)
      return simnpu__tfjs_fail (l, SIMNPU_EFORMAT,
          "expected an element shape and a count");
    ret = simnpu__tfjs_const_ints (l, in[1].t, "num_elements", &n, 1, &got);
    if (ret < 0)
      return ret;
    if (n < 0 || n > TFJS_MAX_UNROLL)
      return TFJS_DECLINED;
    res.list = list_new ((unsigned) n, -1);
  } else if (is_op (tn, "TensorListFromTensor")) {
    const simnpu__ir_tensor *x;
    if (tn->n_inputs != 2 || in[0].t < 0)
      return simnpu__tfjs_fail (l, SIMNPU_EFORMAT,
          "expected a tensor and an element shape");
    x = T (l, in[0].t);
    if (x->rank == 0 || x->dims[0] < 0 || x->dims[0] > TFJS_MAX_UNROLL)
      return TFJS_DECLINED;
    res.list = list_new ((unsigned) x->dims[0], in[0].t);
  } else if (is_op (tn, "TensorListGetItem")) {
    if (tn->n_inputs != 3 || in[0].list == NULL || in[1].t < 0)
      return simnpu__tfjs_fail (l, SIMNPU_EFORMAT,
          "expected a list, an index and an element shape");
    ret = list_index (l, in[1].t, in[0].list, &i);
    if (ret == 0)
      ret = res.t = list_item (l, in[0].list, i);
    if (ret < 0)
      return ret;
    ret = simnpu__tfjs_simple_op (l, SIMNPU_IR_IDENTITY, NULL, 1, &res.t);
    if (ret < 0)
      return ret;
    res.t = ret;
  } else if (is_op (tn, "TensorListSetItem")) {
    if (tn->n_inputs != 3 || in[0].list == NULL || in[1].t < 0 || in[2].t < 0)
      return simnpu__tfjs_fail (l, SIMNPU_EFORMAT,
          "expected a list, an index and an item");
    ret = list_index (l, in[1].t, in[0].list, &i);
    if (ret < 0)
      return ret;
    ls = list_new (in[0].list->n, in[0].list->source);
    memcpy (ls->items, in[0].list->items, ls->n * sizeof ls->items[0]);
    ls->items[i] = in[2].t;
    res.list = ls;
  } else if (is_op (tn, "TensorListStack")) {
    int parts[SIMNPU_IR_MAX_INPUTS];
    tfjs_node pack = *tn;
    const tfjs_op *op = simnpu__tfjs_find_op ("Pack");
    if (tn->n_inputs != 2 || in[0].list == NULL)
      return simnpu__tfjs_fail (l, SIMNPU_EFORMAT,
          "expected a list and an element shape");
    ls = in[0].list;
    if (ls->n == 0 || ls->n > SIMNPU_IR_MAX_INPUTS)
      return TFJS_DECLINED;
    for (i = 0; i < ls->n && ret >= 0; i++)
      ret = parts[i] = list_item (l, ls, i);
    if (ret < 0)
      return ret;
    /* Pack along axis 0: the list's items as its rows */
    pack.attr = NULL;
    pack.n_inputs = ls->n;
    ret = op->translate (l, &pack, parts);
    if (ret != 0)
      return ret;
    return 0;
  } else if (is_op (tn, "TensorListLength")) {
    int32_t *v = g_new (int32_t, 1);
    if (tn->n_inputs != 1 || in[0].list == NULL) {
      g_free (v);
      return simnpu__tfjs_fail (l, SIMNPU_EFORMAT, "expected a list");
    }
    *v = (int32_t) in[0].list->n;
    res.t = simnpu__tfjs_new_const (l, "length", SIMNPU_IR_I32, 0, NULL, v);
    if (res.t < 0)
      return res.t;
  } else {
    return TFJS_DECLINED;
  }
  set_value (l, key, &res);
  if (res.list)
    g_rc_box_release_full (res.list, list_clear);
  return 0;
}

/* A TensorList op outside any loop: node idx, its inputs the graph's. */
int
simnpu__tfjs_tr_list (tfjs_loader * l, unsigned idx)
{
  const tfjs_node *tn = &l->nodes[idx];
  tfjs_value in[3];
  unsigned j;

  if (tn->n_inputs > G_N_ELEMENTS (in))
    return TFJS_DECLINED;
  for (j = 0; j < tn->n_inputs; j++)
    if (!input_value (l, idx, j, -1, &in[j]))
      return TFJS_DECLINED;
  return list_op (l, tn, in, tn->name);
}

/* ------------------------------------------------------------------ */
/* Running a loop */

/* Whether a tensor folds to a constant, leaving no error behind when it
 * does not: a predicate that depends on the data is not an error, only a
 * loop that is not unrolled. */
bool
simnpu__tfjs_folds_to_bool (tfjs_loader * l, int t, bool *out)
{
  simnpu__ir_tensor *x = T (l, t);
  simnpu_error scratch = { 0 };

  if (!x->is_const && simnpu__ir_fold_constants (l->g, &scratch) < 0)
    return false;
  x = T (l, t);
  if (!x->is_const || simnpu__ir_tensor_elements (x) != 1)
    return false;
  switch (x->dtype) {
    case SIMNPU_IR_BOOL:
    case SIMNPU_IR_U8:
      *out = *(const guint8 *) x->data != 0;
      return true;
    case SIMNPU_IR_I32:
      *out = *(const int32_t *) x->data != 0;
      return true;
    default:
      return false;
  }
}

/* One node of the frame at iteration k. *dead: the node has no value this
 * iteration (a Switch's untaken side flowed into it). */
static int
run_node (tfjs_loader * l, tfjs_frame * fr, unsigned v, int k, bool *stop,
    GPtrArray * names)
{
  const tfjs_node *tn = &l->nodes[v];
  tfjs_value in[TFJS_MAX_NODE_INPUTS];
  char *key = value_key (tn->name, k, 0);
  unsigned j;
  int ret = 0;

  g_ptr_array_add (names, key);
  if (is_op (tn, "Merge") || is_op (tn, "RefMerge")) {
    /* the Enter's value first, then the previous NextIteration's */
    for (j = 0; j < tn->n_inputs; j++) {
      const tfjs_node *src = &l->nodes[tn->input_nodes[j]];
      bool back = is_op (src, "NextIteration")
          || is_op (src, "RefNextIteration");
      if (back != (k > 0))
        continue;
      if (back) {
        char *prev = value_key (src->name, k - 1, tn->inputs[j].output);
        bool found = get_value (l, prev, &in[0]);
        g_free (prev);
        if (found)
          break;
      } else if (input_value (l, v, j, k, &in[0])) {
        break;
      }
    }
    if (j < tn->n_inputs)
      set_value (l, key, &in[0]);
    return 0;
  }
  for (j = 0; j < tn->n_inputs; j++) {
    const tfjs_node *src = &l->nodes[tn->input_nodes[j]];
    if (l->frame_of[tn->input_nodes[j]] != l->frame_of[v]
        && src->poison != TFJS_NO_POISON) {
      /* what the loop reads from outside is left out (a TF1 TensorArray,
       * an unknown op): so is the loop */
      const tfjs_node *why = &l->nodes[src->poison];
      frame_cut (fr, why == src ? g_strdup_printf ("its node '%s' reads "
              "'%s' (op %s), which is not supported", tn->name, src->name,
              src->op) : g_strdup_printf ("its node '%s' reads '%s', which "
              "needs '%s' (op %s), not supported", tn->name, src->name,
              why->name, why->op));
      return TFJS_DECLINED;
    }
    if (!input_value (l, v, j, is_op (tn, "Enter") ? -1 : k, &in[j]))
      return 0;                 /* dead this iteration */
  }
  if (is_op (tn, "Enter") || is_op (tn, "RefEnter") || is_op (tn, "LoopCond")
      || is_op (tn, "NextIteration") || is_op (tn, "RefNextIteration")) {
    set_value (l, key, &in[0]);
  } else if (is_op (tn, "Switch") || is_op (tn, "RefSwitch")) {
    bool pred;
    char *side;
    if (tn->n_inputs != 2 || in[1].t < 0
        || !simnpu__tfjs_folds_to_bool (l, in[1].t, &pred)) {
      frame_cut (fr,
          g_strdup_printf ("its condition ('%s') depends on the "
              "model's input, not only on constants", tn->inputs[1].name));
      return TFJS_DECLINED;
    }
    side = value_key (tn->name, k, pred ? 1 : 0);
    set_value (l, side, &in[0]);
    g_ptr_array_add (names, side);
    if (!pred)
      *stop = true;
  } else if (is_op (tn, "Exit") || is_op (tn, "RefExit")) {
    set_value (l, tn->name, &in[0]);
  } else if (g_str_has_prefix (tn->op, "TensorList")) {
    tfjs_node copy = *tn;
    const tfjs_node *cur = l->cur;
    copy.name = key;
    l->cur = &copy;
    ret = tn->n_inputs <= 3 ? list_op (l, &copy, in, key) : TFJS_DECLINED;
    l->cur = cur;
    if (ret == TFJS_DECLINED)
      frame_cut (fr, g_strdup_printf ("its node '%s' (op %s) uses a list "
              "as simnpu-compile does not", tn->name, tn->op));
  } else if (is_op (tn, "Placeholder") || is_op (tn, "Const")
      || simnpu__tfjs_is_control_flow (tn->op)) {
    frame_cut (fr, g_strdup_printf ("its node '%s' (op %s) is not taken "
            "inside a loop", tn->name, tn->op));
    return TFJS_DECLINED;
  } else {
    const tfjs_op *op = simnpu__tfjs_find_op (tn->op);
    int ins[TFJS_MAX_NODE_INPUTS];
    tfjs_node copy = *tn;
    const tfjs_node *cur = l->cur;

    for (j = 0; j < tn->n_inputs; j++) {
      if (in[j].t < 0) {
        frame_cut (fr, g_strdup_printf ("its node '%s' (op %s) reads a list "
                "as a tensor", tn->name, tn->op));
        return TFJS_DECLINED;
      }
      ins[j] = in[j].t;
    }
    if (op == NULL) {
      frame_cut (fr, g_strdup_printf ("its node '%s' has op %s, which is not "
              "supported", tn->name, tn->op));
      return TFJS_DECLINED;
    }
    copy.name = key;
    l->cur = &copy;
    ret = op->translate ? op->translate (l, &copy, ins)
        : simnpu__tfjs_tr_elementwise (l, &copy, ins, op->ir_op);
    l->cur = cur;
    if (ret == TFJS_DECLINED)
      frame_cut (fr, g_strdup_printf ("its node '%s' (op %s) is beyond what "
              "simnpu-compile takes", tn->name, tn->op));
  }
  return ret;
}

/* Unrolls the frame: FRAME_DONE, every Exit's value registered, or
 * FRAME_CUT with the reason. An error of a translation in the body cuts
 * the loop too (the graph before it still compiles), with the error as
 * the reason. */
static void
run_frame (tfjs_loader * l, tfjs_frame * fr)
{
  GPtrArray *names = g_ptr_array_new_with_free_func (g_free);
  simnpu_error *saved = l->error, scratch = { 0 };
  bool stop = false;
  int k, ret = 0;
  unsigned i;

  l->error = &scratch;
  for (k = 0; k <= TFJS_MAX_UNROLL && !stop && ret == 0; k++)
    for (i = 0; i < fr->nodes->len && ret == 0; i++)
      ret = run_node (l, fr, g_array_index (fr->nodes, unsigned, i), k, &stop,
          names);
  l->error = saved;
  if (ret < 0)
    frame_cut (fr, g_strdup_printf ("%s", scratch.message));
  else if (ret == 0 && !stop)
    frame_cut (fr, g_strdup_printf ("it runs more than the %d iterations "
            "simnpu-compile unrolls", TFJS_MAX_UNROLL));
  if (fr->state == FRAME_PENDING) {
    fr->state = FRAME_DONE;
    fr->iterations = (unsigned) k - 1;
  }
  g_ptr_array_unref (names);
}

static void
poison_frame (tfjs_loader * l, tfjs_frame * fr)
{
  int first = (int) g_array_index (fr->enters, unsigned, 0);
  unsigned i;

  if (fr->poisoned)
    return;
  fr->poisoned = true;
  for (i = 0; i < l->n_nodes; i++)
    if (l->frame_of[i] >= 0
        && g_ptr_array_index (l->frames, l->frame_of[i]) == fr)
      l->nodes[i].poison = first;
}

static const char *
frame_label (tfjs_loader * l, const tfjs_frame * fr)
{
  return l->nodes[g_array_index (fr->enters, unsigned, 0)].name;
}

/* Node idx belongs to a loop: nothing until the loop's first Exit, which
 * runs the whole loop. */
int
simnpu__tfjs_frame_node (tfjs_loader * l, unsigned idx)
{
  tfjs_frame *fr = g_ptr_array_index (l->frames, l->frame_of[idx]);
  const tfjs_node *tn = &l->nodes[idx];

  if (fr->state == FRAME_PENDING && (is_op (tn, "Exit")
          || is_op (tn, "RefExit"))) {
    run_frame (l, fr);
    if (fr->state == FRAME_DONE)
      g_message ("tfjs: the TF while loop of '%s' runs %u times whatever "
          "the input (a map over the batch, as a rule): unrolled",
          frame_label (l, fr), fr->iterations);
    else
      g_message ("tfjs: the TF while loop of '%s' is not unrolled: %s",
          frame_label (l, fr), fr->why);
  }
  if (fr->state == FRAME_CUT)
    poison_frame (l, fr);
  return 0;
}

/* After the last node: a loop no Exit ran is cut. */
void
simnpu__tfjs_frames_finish (tfjs_loader * l)
{
  unsigned f;

  for (f = 0; l->frames && f < l->frames->len; f++) {
    tfjs_frame *fr = g_ptr_array_index (l->frames, f);
    if (fr->state == FRAME_PENDING)
      frame_cut (fr, g_strdup ("it has no Exit"));
    if (fr->state == FRAME_CUT)
      poison_frame (l, fr);
  }
}
