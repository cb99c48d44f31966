/* gst-ax
 * Copyright (C) 2026 gst-ax developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

/* Where each node of the float graph runs: what the device can run (and
 * why not), the graph surgery that splits activations the device does
 * not fuse, the placement into preamble, device and postamble, its report,
 * and the host sections cut out as graphs of their own (host fallback's
 * candidates are in quantize-fallback.c). */

#include "quantize-private.h"

#include <math.h>
#include <string.h>

/* ------------------------------------------------------------------ */
/* What the device runs */

static bool
is_f32 (const simnpu__ir_graph * g, int t)
{
  return t >= 0 && g->tensors[t].dtype == SIMNPU_IR_F32;
}

static bool
is_const (const simnpu__ir_graph * g, int t)
{
  return t >= 0 && g->tensors[t].is_const;
}

static bool
device_shape_ok (const simnpu__ir_tensor * t)
{
  unsigned i;
  int64_t n = 1;

  if (t->rank > SIMNPU_MAX_DIMS)
    return false;
  for (i = 0; i < t->rank; i++)
    n *= t->dims[i];
  return n <= SIMNPU_MAX_TENSOR_ELEMENTS;
}

/* element-wise functions of one float, which the device runs as a table
 * (an identity is lowered as a reshape) */
bool
simnpu__quantize_is_unary_lut (simnpu__ir_op op)
{
  return simnpu__ir_op_is_unary (op) && op != SIMNPU_IR_IDENTITY;
}

/* An average pool over the whole of a map larger than the device's pool
 * windows, which the device runs as a mean over height and width (smaller
 * ones stay pools, as compiled models have them). */
bool
simnpu__quantize_is_global_mean (const simnpu__ir_graph * g,
    const simnpu__ir_node * n)
{
  const simnpu__ir_attrs *a = &n->attrs;
  const simnpu__ir_tensor *in = &g->tensors[n->inputs[0]];

  return n->op == SIMNPU_IR_AVGPOOL && in->rank == 4
      && a->kernel[0] == in->dims[1] && a->kernel[1] == in->dims[2]
      && (a->kernel[0] > SIMNPU_MAX_KERNEL_DIM
      || a->kernel[1] > SIMNPU_MAX_KERNEL_DIM) && a->pads[0] == 0
      && a->pads[1] == 0 && a->pads[2] == 0 && a->pads[3] == 0
      && a->dilation[0] == 1 && a->dilation[1] == 1;
}

/* The operands the device takes as tables of their own, not as int8
 * data: gather's indices and where's condition, when constant. */
static bool
is_table_operand (const simnpu__ir_graph * g, const simnpu__ir_node * n,
    unsigned i)
{
  return ((n->op == SIMNPU_IR_GATHER && i == 1)
      || (n->op == SIMNPU_IR_WHERE && i == 0)) && is_const (g, n->inputs[i]);
}

const char *
simnpu__device_refusal (const simnpu__ir_graph * g, const simnpu__ir_node * n)
{
  const simnpu__ir_attrs *a = &n->attrs;
  unsigned i, n_data = 0;

  if (n->op == SIMNPU_IR_GATHER && !is_const (g, n->inputs[1]))
    return "indices computed at run time";
  if (n->op == SIMNPU_IR_WHERE && !is_const (g, n->inputs[0]))
    return "condition computed at run time";
  for (i = 0; i < n->n_inputs; i++) {
    int t = n->inputs[i];
    if (t < 0)
      continue;
    if (is_table_operand (g, n, i)) {
      /* the device reads them as one list or broadcast map */
      if (!device_shape_ok (&g->tensors[t]))
        return "rank above 4 or too many elements";
      continue;
    }
    if (!is_f32 (g, t))
      return "non-float operand";
    if (!device_shape_ok (&g->tensors[t]))
      return "rank above 4 or too many elements";
    if (!is_const (g, t))
      n_data++;
  }
  for (i = 0; i < n->n_outputs; i++) {
    if (!is_f32 (g, n->outputs[i]))
      return "non-float result";
    if (!device_shape_ok (&g->tensors[n->outputs[i]]))
      return "rank above 4 or too many elements";
  }
  if (n_data == 0)
    return "constant operands only";
  if (n->n_outputs > SIMNPU_MAX_OP_OUTPUTS
      || n->n_inputs > SIMNPU_MAX_OP_INPUTS)
    return "too many operands";

  switch (n->op) {
    case SIMNPU_IR_CONV2D:{
      const simnpu__ir_tensor *w = &g->tensors[n->inputs[1]];
      if (!is_const (g, n->inputs[1]) || (n->n_inputs > 2
              && n->inputs[2] >= 0 && !is_const (g, n->inputs[2])))
        return "weights or bias computed at run time";
      if (a->kernel[0] > SIMNPU_MAX_KERNEL_DIM
          || a->kernel[1] > SIMNPU_MAX_KERNEL_DIM
          || a->stride[0] > SIMNPU_MAX_KERNEL_DIM
          || a->stride[1] > SIMNPU_MAX_KERNEL_DIM
          || a->dilation[0] > SIMNPU_MAX_KERNEL_DIM
          || a->dilation[1] > SIMNPU_MAX_KERNEL_DIM)
        return "kernel, stride or dilation above 64";
      for (i = 0; i < 4; i++)
        if (a->pads[i] < 0 || a->pads[i] > SIMNPU_MAX_KERNEL_DIM)
          return "padding outside [0, 64]";
      if (w->dims[1] * w->dims[2] * w->dims[3] > 32768)
        return "kernel window above 32768 taps";
      if (a->act != SIMNPU_IR_ACT_NONE && a->act != SIMNPU_IR_ACT_RELU
          && a->act != SIMNPU_IR_ACT_CLIP)
        return "fused activation (split before lowering)";
      return NULL;
    }
    case SIMNPU_IR_MATMUL:{
      const simnpu__ir_tensor *b = &g->tensors[n->inputs[1]];
      if (!is_const (g, n->inputs[1]) || b->rank != 2)
        return "matmul by a run-time or batched right operand";
      if (n->n_inputs > 2 && n->inputs[2] >= 0 && !is_const (g, n->inputs[2]))
        return "bias computed at run time";
      if (g->tensors[n->inputs[0]].rank < 1 || b->dims[0] > 32768)
        return "inner dimension above 32768";
      if (a->act != SIMNPU_IR_ACT_NONE && a->act != SIMNPU_IR_ACT_RELU
          && a->act != SIMNPU_IR_ACT_CLIP)
        return "fused activation (split before lowering)";
      return NULL;
    }
    case SIMNPU_IR_ADD:
    case SIMNPU_IR_SUB:
    case SIMNPU_IR_MUL:
    case SIMNPU_IR_MAXIMUM:
    case SIMNPU_IR_MINIMUM:
      if (n->n_inputs != 2)
        return "more than two operands";
      return NULL;
    case SIMNPU_IR_CONCAT:
      for (i = 0; i < n->n_inputs; i++)
        if (is_const (g, n->inputs[i]))
          return "constant operand";
      return NULL;
    case SIMNPU_IR_SPLIT:
      if (n->n_outputs > SIMNPU_N_ATTRS - 1)
        return "too many outputs";
      return NULL;
    case SIMNPU_IR_SLICE:{
      unsigned r = g->tensors[n->inputs[0]].rank;
      for (i = 0; i < r; i++)
        if (a->steps[i] != 1)
          return "strided slice";
      return NULL;
    }
    case SIMNPU_IR_RESHAPE:
    case SIMNPU_IR_TRANSPOSE:
      return NULL;
    case SIMNPU_IR_MAXPOOL:
    case SIMNPU_IR_AVGPOOL:
      if (simnpu__quantize_is_global_mean (g, n))
        return NULL;
      if (a->dilation[0] != 1 || a->dilation[1] != 1)
        return "dilated pooling";
      if (n->op == SIMNPU_IR_AVGPOOL && a->count_include_pad
          && (a->pads[0] || a->pads[1] || a->pads[2] || a->pads[3]))
        return "average pooling that counts the padding";
      if (a->kernel[0] > SIMNPU_MAX_KERNEL_DIM
          || a->kernel[1] > SIMNPU_MAX_KERNEL_DIM
          || a->stride[0] > SIMNPU_MAX_KERNEL_DIM
          || a->stride[1] > SIMNPU_MAX_KERNEL_DIM)
        return "window or stride above 64";
      for (i = 0; i < 4; i++)
        if (a->pads[i] < 0 || a->pads[i] > SIMNPU_MAX_KERNEL_DIM)
          return "padding outside [0, 64]";
      return NULL;
    case SIMNPU_IR_RESIZE:
      if (a->mode != SIMNPU_IR_RESIZE_NEAREST
          && a->mode != SIMNPU_IR_RESIZE_BILINEAR)
        return "resize mode other than nearest or bilinear";
      return NULL;
    case SIMNPU_IR_REDUCE_MEAN:{
      const simnpu__ir_tensor *in = &g->tensors[n->inputs[0]];
      if (in->rank != 4 || a->n_ints != 2 || !((a->ints[0] == 1
                  && a->ints[1] == 2) || (a->ints[0] == 2 && a->ints[1] == 1)))
        return "mean over axes other than height and width";
      return NULL;
    }
    case SIMNPU_IR_SOFTMAX:
      return NULL;
    case SIMNPU_IR_PAD:{
      unsigned r = g->tensors[n->inputs[0]].rank;
      if (r != 4)
        return "pad of a tensor of rank other than 4";
      if (a->mode != SIMNPU_IR_PAD_CONSTANT && a->mode != SIMNPU_IR_PAD_EDGE)
        return "reflect padding";
      for (i = 0; i < 2 * r; i++)
        if (a->ints[i] < 0 || a->ints[i] > G_MAXINT16)
          return "negative or huge padding";
      return NULL;
    }
    case SIMNPU_IR_PRELU:{
      const simnpu__ir_tensor *x = &g->tensors[n->inputs[0]];
      const simnpu__ir_tensor *s = &g->tensors[n->inputs[1]];
      int64_t ns = simnpu__ir_tensor_elements (s);
      if (!is_const (g, n->inputs[1]))
        return "slope computed at run time";
      if (x->rank < 1 || (ns != 1 && (s->rank < 1
                  || s->dims[s->rank - 1] != ns || ns != x->dims[x->rank - 1])))
        return "slope neither one value nor one per channel";
      return NULL;
    }
    case SIMNPU_IR_DEPTH_TO_SPACE:
    case SIMNPU_IR_SPACE_TO_DEPTH:
      if (g->tensors[n->inputs[0]].rank != 4)
        return "input of rank other than 4";
      if (a->ints[0] < 2 || a->ints[0] > SIMNPU_MAX_KERNEL_DIM)
        return "block size outside [2, 64]";
      return NULL;
    case SIMNPU_IR_GATHER:
      if (g->tensors[n->inputs[1]].dtype != SIMNPU_IR_I64
          && g->tensors[n->inputs[1]].dtype != SIMNPU_IR_I32)
        return "indices of a dtype other than int32 or int64";
      return NULL;
    case SIMNPU_IR_WHERE:
      if (g->tensors[n->inputs[0]].dtype != SIMNPU_IR_BOOL)
        return "non-boolean condition";
      return NULL;
    case SIMNPU_IR_IDENTITY:
      return NULL;
    default:
      if (simnpu__quantize_is_unary_lut (n->op))
        return NULL;
      return "no device kernel";
  }
}

/* ------------------------------------------------------------------ */
/* Graph surgery */

static simnpu__ir_op
act_to_op (simnpu__ir_act act)
{
  switch (act) {
    case SIMNPU_IR_ACT_LEAKY_RELU:
      return SIMNPU_IR_LEAKY_RELU;
    case SIMNPU_IR_ACT_SIGMOID:
      return SIMNPU_IR_SIGMOID;
    case SIMNPU_IR_ACT_TANH:
      return SIMNPU_IR_TANH;
    case SIMNPU_IR_ACT_HARD_SWISH:
      return SIMNPU_IR_HARD_SWISH;
    case SIMNPU_IR_ACT_ELU:
      return SIMNPU_IR_ELU;
    default:
      return SIMNPU_IR_IDENTITY;
  }
}

/* The device fuses only clamps into conv; any other fused activation
 * becomes its own element-wise node, whose input range calibration then
 * sees. The new nodes are appended, then all put in place at once. */
int
simnpu__quantize_split_activations (simnpu__ir_graph * g, simnpu_error * error)
{
  unsigned n0 = g->n_nodes, i, o;
  int *split = g_new (int, MAX (n0, 1));
  simnpu__ir_node *nodes;
  int ret = 0;

  for (i = 0; i < n0; i++)
    split[i] = -1;
  for (i = 0; i < n0 && ret == 0; i++) {
    simnpu__ir_node *n = &g->nodes[i];
    simnpu__ir_act act = n->attrs.act;
    float alpha = n->attrs.act_alpha;
    int out, pre;
    char *pre_name;
    simnpu__ir_node *u;

    if ((n->op != SIMNPU_IR_CONV2D && n->op != SIMNPU_IR_MATMUL)
        || act == SIMNPU_IR_ACT_NONE || act == SIMNPU_IR_ACT_RELU
        || act == SIMNPU_IR_ACT_CLIP)
      continue;
    out = n->outputs[0];
    pre_name = g_strdup_printf ("%s/preact", g->tensors[out].name);
    pre = simnpu__ir_add_tensor (g, pre_name, SIMNPU_IR_F32, 0, NULL);
    g_free (pre_name);
    u = pre < 0 ? NULL : simnpu__ir_add_node (g, act_to_op (act),
        g->nodes[i].name, 1, &pre, 1, &out);
    if (u == NULL) {
      ret = simnpu__set_error (error, SIMNPU_ENOMEM, "graph '%s': no room "
          "to split the activation of node '%s' into a node of its own "
          "(at most %d nodes and %d tensors)", g->name, g->nodes[i].name,
          SIMNPU_IR_MAX_NODES, SIMNPU_IR_MAX_TENSORS);
      break;
    }
    u->attrs.f[0] = alpha;
    n = &g->nodes[i];
    n->outputs[0] = pre;
    n->attrs.act = SIMNPU_IR_ACT_NONE;
    split[i] = (int) g->n_nodes - 1;
  }
  if (g->n_nodes > n0) {
    /* each activation right after its conv or matmul */
    nodes = g_new (simnpu__ir_node, g->nodes_alloc);
    for (i = 0, o = 0; i < n0; i++) {
      nodes[o++] = g->nodes[i];
      if (split[i] >= 0)
        nodes[o++] = g->nodes[split[i]];
    }
    g_free (g->nodes);
    g->nodes = nodes;
    g->n_nodes = o;
  }
  g_free (split);
  if (ret == 0 && g->n_nodes > n0)
    ret = simnpu__ir_infer_shapes (g, error);
  return ret;
}

/* ------------------------------------------------------------------ */
/* Placement */

/* The device results the host reads after the device, or the model
 * returns: the device section's outputs, as lowering makes them. */
static unsigned
mark_device_outputs (const compile_ctx * c, bool *is_out)
{
  const simnpu__ir_graph *g = c->g;
  unsigned i, j, n = 0;

  memset (is_out, 0, g->n_tensors * sizeof (bool));
  for (i = 0; i < g->n_nodes; i++) {
    const simnpu__ir_node *nd = &g->nodes[i];
    if (c->place[i] != SIMNPU_SECTION_POSTAMBLE)
      continue;
    for (j = 0; j < nd->n_inputs; j++) {
      int t = nd->inputs[j], p = t >= 0 ? g->tensors[t].producer : -1;
      if (p >= 0 && c->place[p] == SIMNPU_SECTION_DEVICE)
        is_out[t] = true;
    }
  }
  for (i = 0; i < g->n_outputs; i++) {
    int p = g->tensors[g->outputs[i]].producer;
    if (p >= 0 && c->place[p] == SIMNPU_SECTION_DEVICE)
      is_out[g->outputs[i]] = true;
  }
  for (i = 0; i < g->n_tensors; i++)
    n += is_out[i];
  return n;
}

/* Whether device node i may move to the postamble: nothing on the device
 * reads its results, and the device makes each of its data inputs (the
 * postamble cannot read the preamble's results). */
static bool
movable_to_postamble (const compile_ctx * c, unsigned i, const bool *dev_read)
{
  const simnpu__ir_graph *g = c->g;
  const simnpu__ir_node *n = &g->nodes[i];
  unsigned j;

  if (c->place[i] != SIMNPU_SECTION_DEVICE)
    return false;
  for (j = 0; j < n->n_outputs; j++)
    if (dev_read[n->outputs[j]])
      return false;
  for (j = 0; j < n->n_inputs; j++) {
    int t = n->inputs[j], p;
    if (t < 0 || g->tensors[t].is_const)
      continue;
    p = g->tensors[t].producer;
    if (p < 0 || c->place[p] != SIMNPU_SECTION_DEVICE)
      return false;
  }
  return true;
}

/* The runtime takes at most SIMNPU_MAX_IO device outputs. A device section
 * with more (PINTO's facemesh-attention: twelve copies of one feature map
 * reshaped for the twelve gathers of its crops, and the landmarks that
 * place them) hands the host fewer, earlier tensors instead: its last
 * nodes move to the postamble while that lowers the count, the cheapest
 * first. The host then computes them in float, and a tensor several of
 * them read leaves the device once rather than once per reader, which
 * also saves the DMA out. A move that exposes an input shared by k
 * movable nodes costs 1/k of an output, so the first of k reshapes of one
 * map moves although it alone gains nothing; over the limit, a move that
 * gains nothing is still taken (the cheapest), as a device gather of
 * constant indices must move before the reshape it reads can follow it.
 * Once under the limit, the
 * reshapes whose input already leaves the device follow them: each is
 * one DMA out fewer for no device work. */
static int
fit_device_outputs (compile_ctx * c, simnpu_error * error)
{
  simnpu__ir_graph *g = c->g;
  bool *is_out = g_new0 (bool, MAX (g->n_tensors, 1));
  bool *dev_read = g_new0 (bool, MAX (g->n_tensors, 1));
  bool *movable = g_new0 (bool, MAX (g->n_nodes, 1));
  unsigned *movable_readers = g_new0 (unsigned, MAX (g->n_tensors, 1));
  unsigned n_out, n_out0, i, j, n_moved = 0;
  int ret = 0;

  n_out = n_out0 = mark_device_outputs (c, is_out);
  while (n_out0 > SIMNPU_MAX_IO) {
    bool over = n_out > SIMNPU_MAX_IO;
    double min_gain = over ? 0.0 : 1.0;
    int best = -1;
    double best_gain = 0.0;
    uint64_t best_macs = 0;

    memset (dev_read, 0, g->n_tensors * sizeof (bool));
    memset (movable_readers, 0, g->n_tensors * sizeof (unsigned));
    for (i = 0; i < g->n_nodes; i++)
      if (c->place[i] == SIMNPU_SECTION_DEVICE)
        for (j = 0; j < g->nodes[i].n_inputs; j++)
          if (g->nodes[i].inputs[j] >= 0)
            dev_read[g->nodes[i].inputs[j]] = true;
    for (i = 0; i < g->n_nodes; i++) {
      movable[i] = movable_to_postamble (c, i, dev_read);
      if (movable[i])
        for (j = 0; j < g->nodes[i].n_inputs; j++)
          if (g->nodes[i].inputs[j] >= 0)
            movable_readers[g->nodes[i].inputs[j]]++;
    }
    for (i = 0; i < g->n_nodes; i++) {
      const simnpu__ir_node *n = &g->nodes[i];
      const simnpu__ir_op_info *info = simnpu__ir_op_get (n->op);
      double gain = 0.0;
      uint64_t macs;
      if (!movable[i] || (!over && n->op != SIMNPU_IR_RESHAPE
              && n->op != SIMNPU_IR_IDENTITY))
        continue;
      for (j = 0; j < n->n_outputs; j++)
        gain += is_out[n->outputs[j]];
      for (j = 0; j < n->n_inputs; j++) {
        int t = n->inputs[j];
        unsigned k;
        bool seen = false;
        if (t < 0 || g->tensors[t].is_const || is_out[t])
          continue;
        for (k = 0; k < j && !seen; k++)
          seen = n->inputs[k] == t;
        if (!seen)
          gain -= 1.0 / movable_readers[t];
      }
      if (gain < min_gain)
        continue;
      macs = info && info->cost ? info->cost (g, n) : 0;
      if (best < 0 || gain > best_gain || (gain == best_gain
              && macs < best_macs)) {
        best = (int) i;
        best_gain = gain;
        best_macs = macs;
      }
    }
    if (best < 0)
      break;
    c->place[best] = SIMNPU_SECTION_POSTAMBLE;
    n_moved++;
    n_out = mark_device_outputs (c, is_out);
  }
  if (n_out > SIMNPU_MAX_IO)
    ret = simnpu__set_error (error, SIMNPU_EUNSUPPORTED, "the device "
        "section has %u outputs (%u after moving %u of its last nodes to "
        "the host); the runtime takes at most %d: cut the model with "
        "--outputs", n_out0, n_out, n_moved, SIMNPU_MAX_IO);
  g_free (is_out);
  g_free (dev_read);
  g_free (movable);
  g_free (movable_readers);
  return ret;
}

/* Each node's section: the device where it can, the preamble before
 * the device, the postamble after it (force_host and host_only, nodes
 * kept off the device, may be NULL). */
static void
assign_sections (const simnpu__ir_graph * g, const bool *force_host,
    const bool *host_only, simnpu__section * place)
{
  /* per tensor: produced (directly or through its inputs) by a device or
   * postamble node; produced by a postamble node */
  bool *after_dev = g_new0 (bool, g->n_tensors);
  bool *from_post = g_new0 (bool, g->n_tensors);
  unsigned i, j;

  for (i = 0; i < g->n_nodes; i++) {
    const simnpu__ir_node *n = &g->nodes[i];
    bool dep = false, post_in = false;
    bool dev_ok = simnpu__device_refusal (g, n) == NULL && !(force_host
        && force_host[i]) && !(host_only && host_only[i]);
    for (j = 0; j < n->n_inputs; j++) {
      int t = n->inputs[j];
      if (t < 0)
        continue;
      dep |= after_dev[t];
      post_in |= from_post[t];
    }
    if (dep)
      place[i] = dev_ok && !post_in ? SIMNPU_SECTION_DEVICE :
          SIMNPU_SECTION_POSTAMBLE;
    else
      place[i] = dev_ok ? SIMNPU_SECTION_DEVICE : SIMNPU_SECTION_PREAMBLE;
    for (j = 0; j < n->n_outputs; j++) {
      after_dev[n->outputs[j]] = place[i] != SIMNPU_SECTION_PREAMBLE;
      from_post[n->outputs[j]] = place[i] == SIMNPU_SECTION_POSTAMBLE;
    }
  }
  g_free (after_dev);
  g_free (from_post);
}

/* A copy of tensor x, appended (the caller puts it in place) */
static int
add_copy (simnpu__ir_graph * g, int x, const char *suffix, simnpu_error * error)
{
  const simnpu__ir_tensor *t = &g->tensors[x];
  char *name = g_strdup_printf ("%s/%s", t->name, suffix);
  int copy = simnpu__ir_add_tensor (g, name, t->dtype, t->rank, t->dims);
  simnpu__ir_node *u = copy < 0 ? NULL : simnpu__ir_add_node (g,
      SIMNPU_IR_IDENTITY, name, 1, &x, 1, &copy);

  g_free (name);
  if (u == NULL)
    return simnpu__set_error (error, SIMNPU_ENOMEM, "graph '%s': no room to "
        "pass input '%s' on (at most %d nodes and %d tensors)", g->name,
        g->tensors[x].name, SIMNPU_IR_MAX_NODES, SIMNPU_IR_MAX_TENSORS);
  return copy;
}

/* Points the readers of x in section sec at copy */
static void
reread (simnpu__ir_graph * g, const simnpu__section * place, unsigned n0,
    simnpu__section sec, int x, int copy)
{
  unsigned i, j;

  for (i = 0; i < n0; i++)
    for (j = 0; place[i] == sec && j < g->nodes[i].n_inputs; j++)
      if (g->nodes[i].inputs[j] == x)
        g->nodes[i].inputs[j] = copy;
}

/* A graph input read by the host after the device (a matting model's
 * refiner reads the full-size frame after the network) or by both the
 * preamble and the device: the postamble has only what the device gives,
 * and a model's public inputs are the preamble's and the device inputs
 * the preamble does not make, each name once. So the device passes such
 * an input through, a copy (an identity, a device reshape) that the
 * postamble reads; and when the preamble reads the input too, the
 * preamble makes the device's copy (an identity kept on the host). */
int
simnpu__quantize_pass_inputs (simnpu__ir_graph * g, bool **host_only,
    simnpu_error * error)
{
  simnpu__section *place = g_new (simnpu__section, MAX (g->n_nodes, 1));
  unsigned n0 = g->n_nodes, i, j, k;
  int ret = 0;

  *host_only = NULL;
  assign_sections (g, NULL, NULL, place);
  for (k = 0; k < g->n_inputs && ret == 0; k++) {
    int x = g->inputs[k], pre_copy = -1, dev_copy;
    bool read[3] = { false, false, false };
    for (i = 0; i < n0; i++)
      for (j = 0; j < g->nodes[i].n_inputs; j++)
        if (g->nodes[i].inputs[j] == x)
          read[place[i]] = true;
    if (!read[SIMNPU_SECTION_POSTAMBLE] && !(read[SIMNPU_SECTION_PREAMBLE]
            && read[SIMNPU_SECTION_DEVICE]))
      continue;
    if (read[SIMNPU_SECTION_PREAMBLE]) {
      if ((pre_copy = add_copy (g, x, "through_preamble", error)) < 0) {
        ret = pre_copy;
        break;
      }
      if (*host_only == NULL)
        *host_only = g_new0 (bool, SIMNPU_IR_MAX_NODES);
      (*host_only)[g->n_nodes - 1] = true;
      reread (g, place, n0, SIMNPU_SECTION_DEVICE, x, pre_copy);
    }
    if (read[SIMNPU_SECTION_POSTAMBLE]) {
      if ((dev_copy = add_copy (g, pre_copy >= 0 ? pre_copy : x,
                  "through_device", error)) < 0) {
        ret = dev_copy;
        break;
      }
      reread (g, place, n0, SIMNPU_SECTION_POSTAMBLE, x, dev_copy);
    }
  }
  if (g->n_nodes > n0) {
    /* the copies first, in the order made */
    simnpu__ir_node *nodes = g_new (simnpu__ir_node, g->nodes_alloc);
    bool *moved = *host_only ? g_new0 (bool, SIMNPU_IR_MAX_NODES) : NULL;
    unsigned o = 0;
    for (i = n0; i < g->n_nodes; i++) {
      if (moved)
        moved[o] = (*host_only)[i];
      nodes[o++] = g->nodes[i];
    }
    for (i = 0; i < n0; i++)
      nodes[o++] = g->nodes[i];
    g_free (g->nodes);
    g->nodes = nodes;
    if (moved) {
      g_free (*host_only);
      *host_only = moved;
    }
    if (ret == 0)
      ret = simnpu__ir_infer_shapes (g, error);
  }
  g_free (place);
  return ret;
}

int
simnpu__quantize_place_nodes (compile_ctx * c, simnpu_error * error)
{
  simnpu__ir_graph *g = c->g;
  unsigned i, j;
  int ret = 0;

  assign_sections (g, c->force_host, c->host_only, c->place);
  /* A preamble result that bypasses the device, or a graph output straight
   * from the preamble, has no place in the three-section model. */
  for (i = 0; i < g->n_nodes && ret == 0; i++) {
    const simnpu__ir_node *n = &g->nodes[i];
    if (c->place[i] != SIMNPU_SECTION_POSTAMBLE)
      continue;
    for (j = 0; j < n->n_inputs; j++) {
      int t = n->inputs[j];
      int p = t >= 0 ? g->tensors[t].producer : SIMNPU_IR_NONE;
      if (t >= 0 && !g->tensors[t].is_const && (p < 0
              || c->place[p] == SIMNPU_SECTION_PREAMBLE)) {
        ret = simnpu__set_error (error, SIMNPU_EUNSUPPORTED,
            "node '%s' (%s) runs after the device but reads '%s', which "
            "the device does not produce; cut the model with --inputs or "
            "--outputs", n->name, simnpu__ir_op_name (n->op),
            g->tensors[t].name);
        break;
      }
    }
  }
  for (i = 0; i < g->n_outputs && ret == 0; i++) {
    int p = g->tensors[g->outputs[i]].producer;
    if (p < 0 || c->place[p] == SIMNPU_SECTION_PREAMBLE)
      ret = simnpu__set_error (error, SIMNPU_EUNSUPPORTED,
          "output '%s' does not come from the device or after it",
          g->tensors[g->outputs[i]].name);
  }
  if (ret == 0)
    ret = fit_device_outputs (c, error);
  return ret;
}

int
simnpu__quantize_check_device_size (const compile_ctx * c, simnpu_error * error)
{
  const simnpu__ir_graph *g = c->g;
  unsigned i, n_ops = 0, n_tensors = 0;

  for (i = 0; i < g->n_nodes; i++)
    if (c->place[i] == SIMNPU_SECTION_DEVICE) {
      n_ops++;
      n_tensors += g->nodes[i].n_outputs;
    }
  if (n_ops > SIMNPU_MAX_OPS || n_tensors > SIMNPU_MAX_TENSORS)
    return simnpu__set_error (error, SIMNPU_EUNSUPPORTED,
        "the device section has %u nodes making %u tensors (at least as "
        "many ops and tensors once lowered); the device takes at most %d "
        "ops and %d tensors: cut the model with --inputs or --outputs",
        n_ops, n_tensors, SIMNPU_MAX_OPS, SIMNPU_MAX_TENSORS);
  return 0;
}

void
simnpu__quantize_report_placement (compile_ctx * c, simnpu__compile_result * r)
{
  const simnpu__ir_graph *g = c->g;
  GString *s = r->text;
  /* per op and section: node count and MACs */
  unsigned counts[SIMNPU_IR_N_OPS][3] = { {0} };
  uint64_t macs[SIMNPU_IR_N_OPS][3] = { {0} };
  const char *refusal[SIMNPU_IR_N_OPS] = { 0 };
  static const char *const section_names[] = {
    [SIMNPU_SECTION_PREAMBLE] = "preamble",
    [SIMNPU_SECTION_POSTAMBLE] = "postamble",
    [SIMNPU_SECTION_DEVICE] = "device",
  };
  unsigned i, k;

  for (i = 0; i < g->n_nodes; i++) {
    const simnpu__ir_node *n = &g->nodes[i];
    const simnpu__ir_op_info *info = simnpu__ir_op_get (n->op);
    uint64_t m = info && info->cost ? info->cost (g, n) : 0;
    counts[n->op][c->place[i]]++;
    macs[n->op][c->place[i]] += m;
    if (c->place[i] == SIMNPU_SECTION_DEVICE)
      r->device_macs += m;
    else
      r->host_macs += m;
    if (c->place[i] != SIMNPU_SECTION_DEVICE && refusal[n->op] == NULL)
      refusal[n->op] = simnpu__device_refusal (g, n);
  }
  g_string_append_printf (s, "Placement (%u nodes)\n", g->n_nodes);
  g_string_append_printf (s, "  %-16s %-10s %6s %14s  %s\n", "op", "section",
      "nodes", "MACs", "why on the host");
  for (i = 0; i < SIMNPU_IR_N_OPS; i++)
    for (k = 0; k < 3; k++)
      if (counts[i][k])
        g_string_append_printf (s, "  %-16s %-10s %6u %14" G_GUINT64_FORMAT
            "  %s\n", simnpu__ir_op_name ((simnpu__ir_op) i),
            section_names[k], counts[i][k], macs[i][k],
            k != SIMNPU_SECTION_DEVICE && refusal[i] ? refusal[i] : "");
  g_string_append_printf (s, "  device MACs %.3f M, host MACs %.3f M (%.1f%% "
      "on the device)\n", r->device_macs / 1e6, r->host_macs / 1e6,
      r->device_macs + r->host_macs ? 100.0 * r->device_macs /
      (double) (r->device_macs + r->host_macs) : 0.0);
}

/* ------------------------------------------------------------------ */
/* Host sections */

bool *
simnpu__quantize_read_in (const compile_ctx * c, simnpu__section which,
    bool others)
{
  const simnpu__ir_graph *g = c->g;
  bool *read = g_new0 (bool, MAX (g->n_tensors, 1));
  unsigned i, j;

  for (i = 0; i < g->n_nodes; i++) {
    if ((c->place[i] == which) == others)
      continue;
    for (j = 0; j < g->nodes[i].n_inputs; j++)
      if (g->nodes[i].inputs[j] >= 0)
        read[g->nodes[i].inputs[j]] = true;
  }
  return read;
}

static int
copy_tensor_into (simnpu__ir_graph * dst, const simnpu__ir_graph * src,
    int t, int *map)
{
  const simnpu__ir_tensor *s = &src->tensors[t];

  if (map[t] >= 0)
    return map[t];
  if (s->is_const) {
    size_t bytes = simnpu__ir_tensor_bytes (s);
    map[t] = simnpu__ir_add_const (dst, s->name, s->dtype, s->rank, s->dims,
        g_memdup2 (s->data, bytes));
  } else {
    map[t] = simnpu__ir_add_tensor (dst, s->name, s->dtype, s->rank, s->dims);
  }
  return map[t];
}

/* The nodes of one host section as a graph of their own: inputs are the
 * non-constant tensors they read and do not make; outputs what they make
 * that others read or the model returns. */
int
simnpu__quantize_extract_section (compile_ctx * c, simnpu__section which,
    simnpu__ir_graph ** out, simnpu_error * error)
{
  const simnpu__ir_graph *g = c->g;
  simnpu__ir_graph *s;
  int *map;
  bool *made, *read_elsewhere;
  unsigned i, j;
  int ret;

  *out = NULL;
  for (i = 0; i < g->n_nodes; i++)
    if (c->place[i] == which)
      break;
  if (i == g->n_nodes)
    return 0;
  s = simnpu__ir_graph_new (which == SIMNPU_SECTION_PREAMBLE ? "preamble" :
      "postamble");
  map = g_new (int, g->n_tensors);
  made = g_new0 (bool, g->n_tensors);
  for (i = 0; i < g->n_tensors; i++)
    map[i] = -1;
  for (i = 0; i < g->n_nodes; i++) {
    const simnpu__ir_node *n = &g->nodes[i];
    int ins[SIMNPU_IR_MAX_INPUTS], outs[SIMNPU_IR_MAX_OUTPUTS];
    simnpu__ir_node *m;
    if (c->place[i] != which)
      continue;
    for (j = 0; j < n->n_inputs; j++) {
      int t = n->inputs[j];
      if (t < 0) {
        ins[j] = SIMNPU_IR_NONE;
        continue;
      }
      if (!made[t] && !g->tensors[t].is_const && map[t] < 0) {
        if (s->n_inputs >= SIMNPU_IR_MAX_INPUTS) {
          ret = simnpu__set_error (error, SIMNPU_EUNSUPPORTED,
              "%s: more than %d inputs", s->name, SIMNPU_IR_MAX_INPUTS);
          goto fail;
        }
        copy_tensor_into (s, g, t, map);
        s->inputs[s->n_inputs++] = map[t];
      }
      ins[j] = copy_tensor_into (s, g, t, map);
    }
    for (j = 0; j < n->n_outputs; j++) {
      outs[j] = copy_tensor_into (s, g, n->outputs[j], map);
      made[n->outputs[j]] = true;
    }
    m = simnpu__ir_add_node (s, n->op, n->name, n->n_inputs, ins,
        n->n_outputs, outs);
    m->attrs = n->attrs;
  }
  read_elsewhere = simnpu__quantize_read_in (c, which, true);
  for (i = 0; i < g->n_tensors; i++) {
    if (!made[i] || !(read_elsewhere[i]
            || simnpu__ir_is_graph_output (g, (int) i)))
      continue;
    if (s->n_outputs >= SIMNPU_IR_MAX_OUTPUTS) {
      ret = simnpu__set_error (error, SIMNPU_EUNSUPPORTED,
          "%s: more than %d outputs", s->name, SIMNPU_IR_MAX_OUTPUTS);
      g_free (read_elsewhere);
      goto fail;
    }
    s->outputs[s->n_outputs++] = map[i];
  }
  g_free (read_elsewhere);
  if ((ret = simnpu__ir_infer_shapes (s, error)) < 0)
    goto fail;
  g_free (map);
  g_free (made);
  *out = s;
  return 0;

fail:
  g_free (map);
  g_free (made);
  simnpu__ir_graph_free (s);
  return ret;
}
