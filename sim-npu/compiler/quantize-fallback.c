/* gst-ax
 * Copyright (C) 2026 gst-ax developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

/* Host fallback's candidates: the layers that make a low output (the
 * tail, to the postamble) and the model's first layers (the head, to the
 * preamble), within the share of the model's MACs the options allow.
 * quantize.c measures them and keeps the best. */

#include "quantize-private.h"

#include <string.h>

/* ------------------------------------------------------------------ */
/* Host fallback */

static uint64_t
node_macs (const simnpu__ir_graph * g, unsigned i)
{
  const simnpu__ir_op_info *info = simnpu__ir_op_get (g->nodes[i].op);

  return info && info->cost ? info->cost (g, &g->nodes[i]) : 0;
}

uint64_t
simnpu__quantize_total_macs (const compile_ctx * c)
{
  uint64_t total = 0;
  unsigned i;

  for (i = 0; i < c->g->n_nodes; i++)
    total += node_macs (c->g, i);
  return total;
}

/* Marks in in_set node from and every node that depends on it (what
 * moves to the postamble with it); returns the MACs of those still on the
 * device and not yet moved, and in *n_dev how many they are. */
static uint64_t
suffix_of (const compile_ctx * c, unsigned from, const bool *moved,
    bool *in_set, bool *tainted, unsigned *n_dev)
{
  const simnpu__ir_graph *g = c->g;
  uint64_t macs = 0;
  unsigned i, j;

  *n_dev = 0;

  memset (in_set, 0, g->n_nodes * sizeof (bool));
  memset (tainted, 0, g->n_tensors * sizeof (bool));
  for (i = from; i < g->n_nodes; i++) {
    const simnpu__ir_node *n = &g->nodes[i];
    bool dep = i == from;
    for (j = 0; j < n->n_inputs && !dep; j++)
      dep = n->inputs[j] >= 0 && tainted[n->inputs[j]];
    if (!dep)
      continue;
    in_set[i] = true;
    for (j = 0; j < n->n_outputs; j++)
      tainted[n->outputs[j]] = true;
    if (c->place[i] == SIMNPU_SECTION_DEVICE && !moved[i]) {
      macs += node_macs (g, i);
      (*n_dev)++;
    }
  }
  return macs;
}

/* The device-made data input of node p nearest to it (latest producer):
 * the next step back towards the device section's start. */
static int
nearest_device_input (const compile_ctx * c, unsigned p)
{
  const simnpu__ir_graph *g = c->g;
  const simnpu__ir_node *n = &g->nodes[p];
  int best = -1, best_p = -1;
  unsigned j;

  for (j = 0; j < n->n_inputs; j++) {
    int t = n->inputs[j], q;
    if (t < 0 || g->tensors[t].is_const)
      continue;
    q = g->tensors[t].producer;
    if (q >= 0 && c->place[q] == SIMNPU_SECTION_DEVICE && q > best_p) {
      best_p = q;
      best = t;
    }
  }
  return best;
}

/* Host fallback: for each device output whose int8 SQNR (over the
 * foreground when there is one) is below the bar, the layers that make it
 * run on the host in float: at least back to and including its conv or
 * matmul, and further back (with everything that depends on them) while
 * the MACs moved stay within the share of the model the options allow,
 * since the error of int8 accumulates over the last layers. Returns how
 * many nodes were marked. */
unsigned
simnpu__quantize_mark_fallback (compile_ctx * c, const simnpu__graph * dg,
    const evaluator * e, GString * text)
{
  const simnpu__ir_graph *g = c->g;
  bool *moved = g_new0 (bool, g->n_nodes);
  bool *in_set = g_new0 (bool, g->n_nodes);
  bool *tainted = g_new0 (bool, g->n_tensors);
  uint64_t total = 0, budget, spent = 0;
  unsigned i, k, marked = 0, n_dev = 0, n_sub;

  for (i = 0; i < g->n_nodes; i++) {
    total += node_macs (g, i);
    n_dev += c->place[i] == SIMNPU_SECTION_DEVICE;
  }
  budget = (uint64_t) (c->opts->fallback_mac_share * (double) total);
  for (i = 0; i < dg->n_outputs; i++) {
    unsigned d = dg->outputs[i];
    const sqnr_acc *a = &e->acc[d];
    double db = a->fg_n ? simnpu__quantize_sqnr_db (a->fg_sig, a->fg_noise) :
        simnpu__quantize_sqnr_db (a->sig, a->noise);
    int t = e->ir_of_dev[d], cut = -1;
    uint64_t cut_macs = 0;
    bool past_conv = false;
    unsigned n_moved = 0;
    if (t < 0 || !(db < c->opts->fallback_db))
      continue;
    while (t >= 0 && g->tensors[t].producer >= 0) {
      int p = g->tensors[t].producer;
      const simnpu__ir_node *n = &g->nodes[p];
      uint64_t macs;
      if (c->place[p] != SIMNPU_SECTION_DEVICE || moved[p])
        break;
      macs = suffix_of (c, (unsigned) p, moved, in_set, tainted, &n_sub);
      /* the device keeps at least one layer */
      if (past_conv && (spent + macs > budget || n_sub + marked >= n_dev))
        break;
      cut = p;
      cut_macs = macs;
      past_conv |= n->op == SIMNPU_IR_CONV2D || n->op == SIMNPU_IR_MATMUL
          || !(simnpu__quantize_op_keeps_quant (n->op)
          || simnpu__quantize_is_unary_lut (n->op));
      t = nearest_device_input (c, (unsigned) p);
    }
    if (cut < 0)
      continue;
    c->force_host[cut] = true;
    suffix_of (c, (unsigned) cut, moved, in_set, tainted, &n_sub);
    for (k = 0; k < g->n_nodes; k++)
      if (in_set[k] && !moved[k] && c->place[k] == SIMNPU_SECTION_DEVICE) {
        moved[k] = true;
        n_moved++;
      }
    spent += cut_macs;
    marked += n_moved;
    g_string_append_printf (text, "  host fallback: '%s' (%s) and the %u "
        "device layers after it (%.3f M MACs), for output '%s' at %.1f "
        "dB\n", g->nodes[cut].name, simnpu__ir_op_name (g->nodes[cut].op),
        n_moved - 1, cut_macs / 1e6, dg->tensors[d].name, db);
  }
  g_free (moved);
  g_free (in_set);
  g_free (tainted);
  return marked;
}

/* Host fallback at the model's start: the number K of leading nodes
 * (nodes[0..K-1], in the graph's order) that may run in the preamble, in
 * float, instead of on the device. The input layers are where int8
 * weights meet unnormalised pixels: a convolution over 0..255 whose
 * clamp (ReLU6) keeps a window of a few units turns the weights'
 * rounding into errors every later layer carries. A cut is valid when
 * the prefix holds a conv or matmul, only device nodes (or preamble
 * ones), no model output, and exactly one computed tensor crosses it (the
 * device's one input), within BUDGET MACs. FIRST: the shortest such
 * prefix; else the longest of those whose crossing tensor is the
 * smallest (the device reads it in every job: an expansion to 64
 * channels at full resolution would cost more DMA than it saves). 0 when
 * there is none. */
/* The elements of the one computed tensor made by nodes[0..i] that a
 * later node reads */
static int64_t
crossing_size (const simnpu__ir_graph * g, const int *last, unsigned i)
{
  unsigned t;

  for (t = 0; t < g->n_tensors; t++) {
    int p = g->tensors[t].producer;
    if (p >= 0 && p <= (int) i && last[t] > (int) i && !g->tensors[t].is_const)
      return simnpu__ir_tensor_elements (&g->tensors[t]);
  }
  return INT64_MAX;
}

unsigned
simnpu__quantize_prefix_cut (const compile_ctx * c, uint64_t budget,
    bool first, uint64_t * macs_out)
{
  int64_t best_size = INT64_MAX;
  const simnpu__ir_graph *g = c->g;
  int *last = g_new (int, g->n_tensors);
  uint64_t macs = 0;
  unsigned i, j, best = 0, crossing = 0;
  bool have_conv = false;

  *macs_out = 0;
  for (i = 0; i < g->n_tensors; i++)
    last[i] = -1;
  for (i = 0; i < g->n_nodes; i++)
    for (j = 0; j < g->nodes[i].n_inputs; j++)
      if (g->nodes[i].inputs[j] >= 0)
        last[g->nodes[i].inputs[j]] = (int) i;
  for (i = 0; i < g->n_inputs; i++)
    crossing += last[g->inputs[i]] >= 0;
  for (i = 0; i < g->n_nodes; i++) {
    const simnpu__ir_node *n = &g->nodes[i];
    bool input_crosses = false;
    if (c->place[i] == SIMNPU_SECTION_POSTAMBLE || c->force_host[i])
      break;
    macs += node_macs (g, i);
    if (macs > budget)
      break;
    have_conv |= n->op == SIMNPU_IR_CONV2D || n->op == SIMNPU_IR_MATMUL;
    for (j = 0; j < n->n_outputs; j++) {
      int t = n->outputs[j];
      if (simnpu__ir_is_graph_output (g, t))
        goto out;
      if (last[t] > (int) i)
        crossing++;
    }
    for (j = 0; j < n->n_inputs; j++) {
      int t = n->inputs[j];
      unsigned k;
      bool dup = false;
      if (t < 0 || g->tensors[t].is_const || last[t] != (int) i)
        continue;
      /* a node reading one tensor twice releases it once */
      for (k = 0; k < j; k++)
        dup |= n->inputs[k] == t;
      if (!dup)
        crossing--;
    }
    for (j = 0; j < g->n_inputs; j++)
      input_crosses |= last[g->inputs[j]] > (int) i;
    if (have_conv && crossing == 1 && !input_crosses) {
      int64_t size = crossing_size (g, last, i);
      if (size <= best_size) {
        best = i + 1;
        best_size = size;
        *macs_out = macs;
      }
      if (first)
        break;
    }
  }
out:
  g_free (last);
  return best;
}
