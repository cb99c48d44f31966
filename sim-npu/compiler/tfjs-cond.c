/* gst-ax
 * Copyright (C) 2026 gst-ax developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

/* TF conds (tf.cond in TF1's dataflow form) whose predicate is a
 * constant once the model is compiled, folded to the branch taken.
 *
 * Outside a while loop, tf.cond is a Switch per value a branch reads:
 * Switch (data, pred) passes data to its output 1 when pred is true, to
 * its output 0 when it is false, and the other output is dead. A node
 * that reads a dead value (through a data or a control input) is dead
 * too, and a Merge passes on the one of its inputs that is not dead (its
 * output 1 is that input's index). So a cond whose predicate folds to a
 * constant (a comparison of an input the user fixed with --input-value,
 * as Robust Video Matting's `downsample_ratio == 1`) is the branch it
 * takes: the Switches are aliases of their data on the side taken, the
 * untaken branch is dead and never translated, the Merges are aliases of
 * the taken branch's results. A cond whose predicate depends on the
 * model's input is left to the cut before control flow (tfjs.c), as
 * before. The functional form (If, StatelessIf, with their branches as
 * functions of the graph's library) is not taken: it is cut. */

#include "tfjs-private.h"

#include <string.h>

static bool
is_op (const tfjs_node * tn, const char *op)
{
  return strcmp (tn->op, op) == 0;
}

static bool
is_switch (const tfjs_node * tn)
{
  return is_op (tn, "Switch") || is_op (tn, "RefSwitch");
}

bool
simnpu__tfjs_is_cond_op (const char *op)
{
  return strcmp (op, "Switch") == 0 || strcmp (op, "RefSwitch") == 0
      || strcmp (op, "Merge") == 0 || strcmp (op, "RefMerge") == 0
      || strcmp (op, "If") == 0 || strcmp (op, "StatelessIf") == 0;
}

/* Whether data input j of tn reads a dead value: a dead node's, or the
 * untaken output of a folded Switch */
static bool
input_dead (const tfjs_loader * l, const tfjs_node * tn, unsigned j)
{
  const tfjs_node *src = &l->nodes[tn->input_nodes[j]];

  if (src->dead)
    return true;
  return is_switch (src) && src->taken >= 0
      && tn->inputs[j].output != (unsigned) src->taken;
}

bool
simnpu__tfjs_cond_dead (const tfjs_loader * l, const tfjs_node * tn)
{
  unsigned j;

  for (j = 0; j < tn->n_ctrl; j++)
    if (l->nodes[tn->ctrl_nodes[j]].dead)
      return true;
  if (is_op (tn, "Merge") || is_op (tn, "RefMerge")) {
    /* dead only when every input is */
    for (j = 0; j < tn->n_inputs; j++)
      if (!input_dead (l, tn, j))
        return false;
    return tn->n_inputs > 0;
  }
  for (j = 0; j < tn->n_inputs; j++)
    if (input_dead (l, tn, j))
      return true;
  return false;
}

static int
find_input (tfjs_loader * l, const tfjs_node * tn, unsigned j)
{
  const tfjs_ref *r = &tn->inputs[j];
  char *key = r->output ? g_strdup_printf ("%s:%u", r->name, r->output)
      : g_strdup (r->name);
  gpointer p = g_hash_table_lookup (l->tensors, key);

  g_free (key);
  if (p == NULL)
    return simnpu__tfjs_fail (l, SIMNPU_EFORMAT, "input '%s:%u' does not "
        "exist (that node has fewer outputs)", r->name, r->output);
  return GPOINTER_TO_INT (p) - 1;
}

static int
tr_switch (tfjs_loader * l, unsigned idx)
{
  tfjs_node *tn = &l->nodes[idx];
  const tfjs_node *data, *pred;
  bool taken;
  int t;

  if (tn->n_inputs != 2)
    return simnpu__tfjs_fail (l, SIMNPU_EFORMAT,
        "expected a value and a predicate");
  data = &l->nodes[tn->input_nodes[0]];
  pred = &l->nodes[tn->input_nodes[1]];
  if (pred->poison != TFJS_NO_POISON) {
    tn->poison = pred->poison;
    return 0;
  }
  t = find_input (l, tn, 1);
  if (t < 0)
    return t;
  if (!simnpu__tfjs_folds_to_bool (l, t, &taken)) {
    /* the predicate depends on the input: the cut takes it */
    tn->poison = (int) idx;
    return 0;
  }
  tn->taken = taken ? 1 : 0;
  if (data->poison != TFJS_NO_POISON) {
    /* the taken side needs what is left out; the other is dead all the
     * same (input_dead() is asked first) */
    tn->poison = data->poison;
    return 0;
  }
  t = find_input (l, tn, 0);
  if (t < 0)
    return t;
  return simnpu__tfjs_register_output (l, tn, (unsigned) tn->taken, t);
}

static int
tr_merge (tfjs_loader * l, unsigned idx)
{
  tfjs_node *tn = &l->nodes[idx];
  int live = -1, t;
  unsigned j;
  int32_t *which;

  for (j = 0; j < tn->n_inputs; j++) {
    if (input_dead (l, tn, j))
      continue;
    if (live >= 0) {
      /* two live inputs: a Merge of no folded cond (TF takes whichever
       * comes first), which is not run */
      tn->poison = (int) idx;
      return 0;
    }
    live = (int) j;
  }
  if (live < 0)
    return simnpu__tfjs_fail (l, SIMNPU_EFORMAT, "a Merge without inputs");
  if (l->nodes[tn->input_nodes[live]].poison != TFJS_NO_POISON) {
    tn->poison = l->nodes[tn->input_nodes[live]].poison;
    return 0;
  }
  t = find_input (l, tn, (unsigned) live);
  if (t < 0)
    return t;
  simnpu__tfjs_register_output (l, tn, 0, t);
  which = g_new (int32_t, 1);
  *which = live;
  t = simnpu__tfjs_new_tensor (l, tn->name, true, SIMNPU_IR_I32, 0, NULL,
      which);
  if (t < 0)
    return t;
  return simnpu__tfjs_register_output (l, tn, 1, t);
}

int
simnpu__tfjs_tr_cond (tfjs_loader * l, unsigned idx)
{
  tfjs_node *tn = &l->nodes[idx];

  if (is_switch (tn))
    return tr_switch (l, idx);
  if (is_op (tn, "Merge") || is_op (tn, "RefMerge"))
    return tr_merge (l, idx);
  /* If, StatelessIf: not taken */
  tn->poison = (int) idx;
  return 0;
}

/* The placeholders the predicate of a cond's node reads, "'a', 'b'", or
 * NULL (no predicate, or it reads none) */
char *
simnpu__tfjs_cond_inputs (const tfjs_loader * l, const tfjs_node * tn)
{
  GString *names;
  bool *seen;
  GArray *stack;
  int start;

  if (is_switch (tn) && tn->n_inputs == 2)
    start = tn->input_nodes[1];
  else if ((is_op (tn, "If") || is_op (tn, "StatelessIf")) && tn->n_inputs)
    start = tn->input_nodes[0];
  else
    return NULL;
  names = g_string_new (NULL);
  seen = g_new0 (bool, MAX (l->n_nodes, 1));
  stack = g_array_new (FALSE, FALSE, sizeof (int));
  g_array_append_val (stack, start);
  seen[start] = true;
  while (stack->len > 0) {
    int v = g_array_index (stack, int, stack->len - 1);
    const tfjs_node *n = &l->nodes[v];
    unsigned j;

    g_array_set_size (stack, stack->len - 1);
    if (is_op (n, "Placeholder"))
      g_string_append_printf (names, "%s'%s'", names->len ? ", " : "", n->name);
    for (j = 0; j < n->n_inputs; j++)
      if (!seen[n->input_nodes[j]]) {
        seen[n->input_nodes[j]] = true;
        g_array_append_val (stack, n->input_nodes[j]);
      }
  }
  g_array_unref (stack);
  g_free (seen);
  if (names->len == 0) {
    g_string_free (names, TRUE);
    return NULL;
  }
  return g_string_free (names, FALSE);
}
