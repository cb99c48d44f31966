/* gst-ax
 * Copyright (C) 2026 gst-ax developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

/* The int8 quantisation of every tensor the device sees: scales and zero
 * points from the calibrated ranges (per tensor, asymmetric), the rules
 * that narrow a range (a reader's clamp, the logit floor), the image
 * input's quantisation with the preprocessing folded in, and that of the
 * postamble's quantised outputs. */

#include "quantize-private.h"

#include <math.h>
#include <string.h>

#define U8_TO_I8_ZP 128
/* below this a range is degenerate; it is widened so the scale is > 0 */
#define MIN_RANGE 1e-6f
/* how far below the device's requantisation limits a widened range keeps
 * a node's ratio (float rounding of the scales stays well inside) */
#define REQUANT_MARGIN 2.0

/* ------------------------------------------------------------------ */
/* Quantisation parameters */

void
simnpu__quantize_range_to_q (float mn, float mx, float *scale, int32_t * zp)
{
  double s, z;

  mn = MIN (mn, 0.0f);
  mx = MAX (mx, 0.0f);
  if (mx - mn < MIN_RANGE)
    mx = mn + MIN_RANGE;
  s = ((double) mx - mn) / (I8_MAX - I8_MIN);
  z = round (I8_MIN - mn / s);
  *scale = (float) s;
  *zp = (int32_t) CLAMP (z, I8_MIN, I8_MAX);
}

/* Whether op keeps its input's quantisation on its outputs (the device
 * kernels move int8 values without requantising). */
bool
simnpu__quantize_op_keeps_quant (simnpu__ir_op op)
{
  switch (op) {
    case SIMNPU_IR_RESHAPE:
    case SIMNPU_IR_TRANSPOSE:
    case SIMNPU_IR_SPLIT:
    case SIMNPU_IR_SLICE:
    case SIMNPU_IR_MAXPOOL:
    case SIMNPU_IR_AVGPOOL:
    case SIMNPU_IR_RESIZE:
    case SIMNPU_IR_PAD:
    case SIMNPU_IR_IDENTITY:
    case SIMNPU_IR_DEPTH_TO_SPACE:
    case SIMNPU_IR_SPACE_TO_DEPTH:
    case SIMNPU_IR_GATHER:
      return true;
    default:
      return false;
  }
}

/* The smallest output scale node N may have on the device given its
 * inputs' scales: the device requantises its result at input scale /
 * output scale (times the weight scale for conv and matmul, times the
 * second input's scale for mul) and bounds that ratio (graph-prepare.c).
 * 0 for nodes without such a bound (those that keep their input's
 * quantisation, tables, softmax, mean). *unit is the step of the node's
 * int8 arithmetic (input scale, times the weight scale or the other
 * input's), *limit the device's bound on unit / output scale. */
static double
min_output_scale (const compile_ctx * c, const simnpu__ir_node * n,
    double *unit, double *limit)
{
  double in = 0.0;
  unsigned j;

  *unit = 0.0;
  *limit = SIMNPU_MAX_ELTWISE_RATIO;

  /* where requantises the operands it picks from, as concat does; its
   * condition is no int8 data */
  if (n->op == SIMNPU_IR_WHERE) {
    for (j = 1; j < n->n_inputs; j++) {
      if (!c->has_q[n->inputs[j]])
        return 0.0;
      in = MAX (in, (double) c->q_scale[n->inputs[j]]);
    }
    *unit = in;
    return in * REQUANT_MARGIN / SIMNPU_MAX_ELTWISE_RATIO;
  }
  for (j = 0; j < n->n_inputs; j++)
    if (n->inputs[j] >= 0 && !c->has_q[n->inputs[j]])
      return 0.0;
  switch (n->op) {
    case SIMNPU_IR_CONV2D:
    case SIMNPU_IR_MATMUL:{
      float s = c->q_scale[n->inputs[0]];
      double ws;
      if (!c->g->tensors[n->inputs[1]].is_const)
        return 0.0;
      ws = simnpu__quantize_max_weight_scale (c, n, s);
      *unit = ws * s;
      *limit = SIMNPU_MAX_REQUANT_SCALE;
      return ws * s * REQUANT_MARGIN / SIMNPU_MAX_REQUANT_SCALE;
    }
    case SIMNPU_IR_MUL:
      if (n->n_inputs != 2)
        return 0.0;
      *unit = (double) c->q_scale[n->inputs[0]] * c->q_scale[n->inputs[1]];
      return *unit * REQUANT_MARGIN / SIMNPU_MAX_ELTWISE_RATIO;
    case SIMNPU_IR_PRELU:{
      const simnpu__ir_tensor *s = &c->g->tensors[n->inputs[1]];
      const float *v = s->data;
      double amax = 1.0;
      int64_t k, count = simnpu__ir_tensor_elements (s);
      if (!s->is_const)
        return 0.0;
      for (k = 0; k < count; k++)
        amax = MAX (amax, fabs (v[k]));
      *unit = c->q_scale[n->inputs[0]] * amax;
      *limit = SIMNPU_MAX_PRELU_RATIO;
      return *unit * REQUANT_MARGIN / SIMNPU_MAX_PRELU_RATIO;
    }
    case SIMNPU_IR_ADD:
    case SIMNPU_IR_SUB:
    case SIMNPU_IR_MAXIMUM:
    case SIMNPU_IR_MINIMUM:
    case SIMNPU_IR_CONCAT:
      for (j = 0; j < n->n_inputs; j++)
        if (n->inputs[j] >= 0)
          in = MAX (in, (double) c->q_scale[n->inputs[j]]);
      *unit = in;
      return in * REQUANT_MARGIN / SIMNPU_MAX_ELTWISE_RATIO;
    default:
      return 0.0;
  }
}

/* A calibrated range [MN, MX] (0 included) narrower than MIN_SCALE allows,
 * as a constant tensor has (every calibration image black, say), widened
 * away from zero on the side of its values to the narrowest the device
 * requantises to. Values the calibration saw stay exact. */
static bool
widen_range (float *mn, float *mx, double min_scale)
{
  double width = min_scale * (I8_MAX - I8_MIN);

  /* narrower: simnpu__quantize_range_to_q()'s own floor is enough */
  if (width <= MIN_RANGE)
    return false;
  *mn = MIN (*mn, 0.0f);
  *mx = MAX (*mx, 0.0f);
  if ((double) *mx - *mn >= width)
    return false;
  if (*mx == 0.0f && *mn < 0.0f)
    *mn = (float) ((double) *mx - width);
  else
    *mx = (float) ((double) *mn + width);
  return true;
}

/* A result narrower than the device's requantiser reaches from its
 * inputs: the report says which node, by how much and why. The images
 * are to blame only when the model's input itself was the same on every
 * calibration input. Otherwise the node's own arithmetic makes its
 * result constant (x - |x| of an x that is never negative) or far finer
 * than the step of its int8 inputs (a product of two small values), and
 * int8 inputs cannot carry it, whatever the images. */
static void
note_widened (compile_ctx * c, const simnpu__ir_node * n, int t, float cal_mn,
    float cal_mx, float mn, float mx, double unit, double limit)
{
  const simnpu__ir_graph *g = c->g;
  const simnpu__ir_tensor *ti = &g->tensors[t];
  const simnpu__ir_tensor *in = &g->tensors[g->inputs[0]];
  double cal_width = (double) MAX (cal_mx, 0.0f) - MIN (cal_mn, 0.0f);
  bool constant = ti->min == ti->max;
  bool same_input = in->has_range && in->min == in->max;
  double ratio = cal_width > 0.0 ? unit * (I8_MAX - I8_MIN) / cal_width :
      INFINITY;

  c->n_widened++;
  if (constant && same_input && c->n_widened_const++ == 0)
    c->first_widened_const = t;
  if (!(constant && same_input) && c->first_widened < 0)
    c->first_widened = t;
  if (c->widened_text == NULL)
    c->widened_text = g_string_new (NULL);
  g_string_append_printf (c->widened_text, "    '%s' (%s): ", n->name,
      simnpu__ir_op_name (n->op));
  if (constant && same_input)
    g_string_append_printf (c->widened_text, "%g on every calibration "
        "input, which is the same every time", (double) ti->min);
  else if (constant)
    g_string_append_printf (c->widened_text, "%g on every calibration "
        "input though the input varies (the model's arithmetic keeps it "
        "there)", (double) ti->min);
  else
    g_string_append_printf (c->widened_text, "its result spans [%g, %g]; "
        "requantising its int8 arithmetic (step %.3g) to that needs a scale "
        "ratio of %.3g, above the device's %g", cal_mn, cal_mx, unit, ratio,
        limit);
  g_string_append_printf (c->widened_text, "; range widened to [%g, %g]\n",
      mn, mx);
}

static bool
name_in (char **names, const char *name)
{
  for (; names && *names; names++)
    if (strcmp (*names, name) == 0)
      return true;
  return false;
}

/* The quantisation of the image input when the preprocessing folds into
 * it: u8 pixels with real = scale / std * (pixel - mean / scale). */
static bool
pixel_quant (const simnpu__preprocess * pp, float *scale, int32_t * zp_u8)
{
  if (pp->std[0] != pp->std[1] || pp->std[0] != pp->std[2]
      || pp->mean[0] != pp->mean[1] || pp->mean[0] != pp->mean[2]
      || !(pp->scale > 0.0f) || !(pp->std[0] > 0.0f))
    return false;
  *scale = pp->scale / pp->std[0];
  *zp_u8 = (int32_t) lround (pp->mean[0] / pp->scale);
  return *zp_u8 >= 0 && *zp_u8 <= 255;
}

/* Per tensor: whether its range stays the calibrated min/max when the
 * ranges are searched (SIMNPU_TECHNIQUE_MSE_RANGES). What leaves the
 * device (model outputs, what the postamble or a decoder reads) and
 * logits keep every value the calibration saw: clipping there cuts the
 * sparse peaks of a heat-map or a confident score, which are the
 * detections, and the squared error over all elements does not see
 * that. Ops that keep their input's quantisation pass the rule back. */
static bool *
exact_ranges (const compile_ctx * c)
{
  const simnpu__ir_graph *g = c->g;
  bool *exact = simnpu__quantize_read_in (c, SIMNPU_SECTION_DEVICE, true);
  unsigned i;

  for (i = 0; i < g->n_tensors; i++)
    exact[i] = exact[i] || c->is_logit[i];
  for (i = 0; i < g->n_outputs; i++)
    exact[g->outputs[i]] = true;
  for (i = g->n_nodes; i-- > 0;) {
    const simnpu__ir_node *n = &g->nodes[i];
    unsigned j;
    if (!simnpu__quantize_op_keeps_quant (n->op))
      continue;
    for (j = 0; j < n->n_outputs; j++)
      if (exact[n->outputs[j]])
        exact[n->inputs[0]] = true;
  }
  return exact;
}

int
simnpu__quantize_assign_quant (compile_ctx * c, simnpu_error * error)
{
  simnpu__ir_graph *g = c->g;
  const simnpu__compile_options *o = c->opts;
  bool *exact = NULL;
  unsigned i, j;

  for (i = 0; i < g->n_tensors; i++) {
    c->clamp_lo[i] = -INFINITY;
    c->clamp_hi[i] = INFINITY;
  }
  c->n_widened = c->n_widened_const = 0;
  c->n_searched = c->n_narrowed = 0;
  c->first_widened = c->first_widened_const = -1;
  if (c->widened_text)
    g_string_truncate (c->widened_text, 0);
  /* logits: inputs of sigmoid and softmax, and outputs named as such */
  for (i = 0; i < g->n_nodes; i++) {
    const simnpu__ir_node *n = &g->nodes[i];
    if (n->op == SIMNPU_IR_SIGMOID || n->op == SIMNPU_IR_SOFTMAX)
      c->is_logit[n->inputs[0]] = true;
  }
  for (i = 0; i < g->n_outputs; i++)
    if (name_in (o->logit_outputs, g->tensors[g->outputs[i]].name))
      c->is_logit[g->outputs[i]] = true;
  /* ops that keep their input's quantisation pass the rule back to the
   * tensor that sets it */
  for (i = g->n_nodes; i-- > 0;) {
    const simnpu__ir_node *n = &g->nodes[i];
    if (simnpu__quantize_op_keeps_quant (n->op) && c->is_logit[n->outputs[0]])
      c->is_logit[n->inputs[0]] = true;
  }

  if (c->hist)
    exact = exact_ranges (c);

  for (i = 0; i < g->n_inputs; i++) {
    int t = g->inputs[i];
    const simnpu__ir_tensor *ti = &g->tensors[t];
    int32_t zp_u8;
    if (i == 0 && o->has_preprocess && pixel_quant (&o->preprocess,
            &c->q_scale[t], &zp_u8)) {
      c->q_zp[t] = zp_u8 - U8_TO_I8_ZP;
      c->pixel_input = true;
      c->input_offset = c->q_scale[t] * ((float) zp_u8 -
          o->preprocess.mean[0] / o->preprocess.scale);
    } else if (ti->has_range) {
      simnpu__quantize_range_to_q (ti->min, ti->max, &c->q_scale[t],
          &c->q_zp[t]);
    } else {
      g_free (exact);
      return simnpu__set_error (error, SIMNPU_EINVAL,
          "input '%s': no calibration data reached it", ti->name);
    }
    c->has_q[t] = true;
  }

  for (i = 0; i < g->n_nodes; i++) {
    const simnpu__ir_node *n = &g->nodes[i];
    if (c->place[i] != SIMNPU_SECTION_DEVICE)
      continue;
    for (j = 0; j < n->n_inputs; j++) {
      int t = n->inputs[j];
      const simnpu__ir_tensor *ti;
      if (t < 0 || c->has_q[t])
        continue;
      ti = &g->tensors[t];
      /* gather's indices and where's condition are tables, not data */
      if (ti->dtype != SIMNPU_IR_F32)
        continue;
      if (ti->is_const) {
        const float *v = ti->data;
        int64_t k, count = simnpu__ir_tensor_elements (ti);
        float mn = 0.0f, mx = 0.0f;
        for (k = 0; k < count; k++) {
          mn = MIN (mn, v[k]);
          mx = MAX (mx, v[k]);
        }
        simnpu__quantize_range_to_q (mn, mx, &c->q_scale[t], &c->q_zp[t]);
      } else if (ti->has_range) {
        /* a device input produced by the preamble */
        simnpu__quantize_range_to_q (ti->min, ti->max, &c->q_scale[t],
            &c->q_zp[t]);
      } else {
        g_free (exact);
        return simnpu__set_error (error, SIMNPU_EINVAL,
            "tensor '%s': calibration never produced it", ti->name);
      }
      c->has_q[t] = true;
    }
    for (j = 0; j < n->n_outputs; j++) {
      int t = n->outputs[j];
      const simnpu__ir_tensor *ti = &g->tensors[t];
      float mn, mx;
      /* a mean's result is its own: far narrower than its input */
      if (simnpu__quantize_op_keeps_quant (n->op)
          && !simnpu__quantize_is_global_mean (g, n)) {
        c->q_scale[t] = c->q_scale[n->inputs[0]];
        c->q_zp[t] = c->q_zp[n->inputs[0]];
        c->has_q[t] = true;
        continue;
      }
      if (!ti->has_range) {
        g_free (exact);
        return simnpu__set_error (error, SIMNPU_EINVAL,
            "node '%s' (%s): calibration never produced '%s' (NaN or "
            "empty)", n->name, simnpu__ir_op_name (n->op), ti->name);
      }
      mn = ti->min;
      mx = ti->max;
      /* A result whose only reader clamps it (relu, clip) needs only the
       * clamped range: the int8 result saturates where the clamp would
       * cut, with twice the resolution for what is kept. */
      if (c->consumers[t] == 1 && !simnpu__ir_is_graph_output (g, t)) {
        const simnpu__ir_node *r = &g->nodes[c->reader[t]];
        if (c->place[c->reader[t]] == SIMNPU_SECTION_DEVICE
            && (r->op == SIMNPU_IR_RELU || r->op == SIMNPU_IR_CLIP)) {
          float lo = r->op == SIMNPU_IR_RELU ? 0.0f : r->attrs.f[0];
          float hi = r->op == SIMNPU_IR_RELU ? INFINITY : r->attrs.f[1];
          mn = MAX (mn, lo);
          mx = MIN (mx, hi);
          if (mx < mn)
            mx = mn;
          c->clamp_lo[t] = lo;
          c->clamp_hi[t] = hi;
        }
      }
      if (exact && !exact[t] && c->hist[t].count) {
        c->n_searched++;
        if (simnpu__quantize_mse_range (&c->hist[t], c->clamp_lo[t],
                c->clamp_hi[t], &mn, &mx))
          c->n_narrowed++;
      }
      /* Background logits far below zero would stretch the range until
       * moderate negatives round to zero, i.e. score 0.5. */
      if (c->is_logit[t] && mn < o->logit_floor)
        mn = o->logit_floor;
      {
        float cal_mn = mn, cal_mx = mx;
        double unit, limit, min_s = min_output_scale (c, n, &unit, &limit);
        if (widen_range (&mn, &mx, min_s))
          note_widened (c, n, t, cal_mn, cal_mx, mn, mx, unit, limit);
      }
      simnpu__quantize_range_to_q (mn, mx, &c->q_scale[t], &c->q_zp[t]);
      c->has_q[t] = true;
    }
  }
  g_free (exact);
  return 0;
}

/* Quantised public outputs: the postamble's float results are quantised
 * at its end like device outputs, each from its range on the calibration
 * set (a sigmoid's [0, 1] gives scale 1/255, zero point -128). */
void
simnpu__quantize_set_postamble_quant (const compile_ctx * c, simnpu__graph * dg,
    int dtype)
{
  const simnpu__ir_graph *post = dg->postamble;
  unsigned j;

  for (j = 0; j < post->n_outputs && j < SIMNPU_MAX_IO; j++) {
    const simnpu__ir_tensor *pt = &post->tensors[post->outputs[j]];
    int it = simnpu__ir_find_tensor (c->g, pt->name);
    const simnpu__ir_tensor *t = it >= 0 ? &c->g->tensors[it] : NULL;

    dg->postamble_quant[j].dtype = SIMNPU_DTYPE_F32;
    dg->postamble_quant[j].scale = 1.0f;
    dg->postamble_quant[j].zero_point = 0;
    if (t == NULL || !t->has_range || pt->dtype != SIMNPU_IR_F32
        || dtype != SIMNPU_DTYPE_I8)
      continue;
    dg->postamble_quant[j].dtype = SIMNPU_DTYPE_I8;
    simnpu__quantize_range_to_q (t->min, t->max, &dg->postamble_quant[j].scale,
        &dg->postamble_quant[j].zero_point);
  }
  dg->has_postamble_quant = true;
}
