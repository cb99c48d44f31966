/* gst-ax
 * Copyright (C) 2026 gst-ax developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

/* The device graph's op registry: one definition per op type
 * (simnpu__op_defs, naming the functions of every pass, in
 * graph-validate.c, graph-prepare.c and graph-run.c, and how the cost
 * model counts the op), the real functions of the table ops and the
 * tables built from them; the graph's lifecycle and tensor sizes. */

#include "graph-private.h"
#include "ir/ir.h"

#include <math.h>
#include <string.h>

simnpu__graph *
simnpu__graph_new (void)
{
  return g_new0 (simnpu__graph, 1);
}

void
simnpu__graph_free (simnpu__graph * g)
{
  unsigned i;

  if (g == NULL)
    return;
  for (i = 0; i < g->n_tensors; i++) {
    g_free (g->tensors[i].name);
    g_free (g->tensors[i].data);
    g_free (g->tensors[i].channel_scales);
  }
  for (i = 0; i < g->n_ops; i++) {
    g_free (g->ops[i].name);
    g_free (g->ops[i].location);
    g_free (g->ops[i].requant_scales);
    g_free (g->ops[i].bias_folded);
    g_aligned_free (g->ops[i].weights_packed);
    g_free (g->ops[i].table);
  }
  g_free (g->tensors);
  g_free (g->ops);
  g_free (g->name);
  g_strfreev (g->labels);
  simnpu__ir_graph_free (g->preamble);
  simnpu__ir_graph_free (g->postamble);
  g_free (g->decoder);
  g_strfreev (g->model_files);
  g_free (g);
}

/* NULL if @label is acceptable as a class label, else what is wrong */
const char *
simnpu__label_problem (const char *label)
{
  const char *p;

  if (label[0] == '\0')
    return "is empty";
  if (strlen (label) >= SIMNPU_MAX_NAME_BYTES)
    return "is longer than 255 bytes";
  if (!g_utf8_validate (label, -1, NULL))
    return "is not valid UTF-8";
  for (p = label; *p; p++)
    if ((unsigned char) *p < 0x20 || *p == 0x7f)
      return "contains a control character";
  return NULL;
}

int64_t
simnpu__tensor_elements (const simnpu__tensor * t)
{
  int64_t n = 1;
  unsigned i;

  for (i = 0; i < t->n_dims; i++)
    n *= t->dims[i];
  return n;
}

size_t
simnpu__tensor_bytes (const simnpu__tensor * t)
{
  return (size_t) simnpu__tensor_elements (t) * simnpu__dtype_size (t->dtype);
}

float
simnpu__attr_float (int32_t bits)
{
  float f;

  memcpy (&f, &bits, sizeof (f));
  return f;
}

int32_t
simnpu__float_attr (float value)
{
  int32_t bits;

  memcpy (&bits, &value, sizeof (bits));
  return bits;
}

/* hard_swish's and hard_sigmoid's ReLU6 and its divisor */
#define HARD_SWISH_SHIFT 3.0
#define HARD_SWISH_LIMIT 6.0

static double
lut_relu (double x, double a, double b)
{
  (void) a;
  (void) b;
  return x > 0.0 ? x : 0.0;
}

static double
lut_sigmoid (double x, double a, double b)
{
  (void) a;
  (void) b;
  return 1.0 / (1.0 + exp (-x));
}

static double
lut_silu (double x, double a, double b)
{
  (void) a;
  (void) b;
  return x / (1.0 + exp (-x));
}

static double
lut_tanh (double x, double a, double b)
{
  (void) a;
  (void) b;
  return tanh (x);
}

static double
lut_hard_swish (double x, double a, double b)
{
  (void) a;
  (void) b;
  return x * fmin (fmax (x + HARD_SWISH_SHIFT, 0.0), HARD_SWISH_LIMIT)
      / HARD_SWISH_LIMIT;
}

static double
lut_hard_sigmoid (double x, double a, double b)
{
  return fmax (0.0, fmin (1.0, a * x + b));
}

static double
lut_leaky_relu (double x, double a, double b)
{
  (void) b;
  return x >= 0.0 ? x : a * x;
}

static double
lut_clip (double x, double a, double b)
{
  return fmin (fmax (x, a), b);
}

static double
lut_elu (double x, double a, double b)
{
  (void) b;
  return x >= 0.0 ? x : a * expm1 (x);
}

void
simnpu__build_lut_params (simnpu__op_type type, float p0, float p1,
    float in_scale, int32_t in_zp, float out_scale, int32_t out_zp,
    int8_t * lut)
{
  const double a = p0, b = p1;
  const simnpu__op_def *def = op_def (type);
  /* ops without a real function of their own get relu's */
  double (*f) (double, double, double) = def != NULL && def->lut != NULL ?
      def->lut : lut_relu;
  int q;

  for (q = I8_MIN; q <= I8_MAX; q++) {
    double x = (double) in_scale * (q - in_zp);
    double y = f (x, a, b), r;
    r = round (y / out_scale) + out_zp;
    /* a NaN (from parameters the graph rejects) must not reach the
     * conversion */
    if (isnan (r))
      r = out_zp;
    lut[q - I8_MIN] = (int8_t) (r < I8_MIN ? I8_MIN : (r > I8_MAX ? I8_MAX :
            r));
  }
}

void
simnpu__build_lut (simnpu__op_type type, float in_scale, int32_t in_zp,
    float out_scale, int32_t out_zp, int8_t * lut)
{
  simnpu__build_lut_params (type, 0.0f, 0.0f, in_scale, in_zp, out_scale,
      out_zp, lut);
}

const simnpu__op_def simnpu__op_defs[] = {
  [SIMNPU_OP_CONV2D] = {.bind =
        simnpu__op_bind_conv,.infer = simnpu__op_infer_window,.prepare =
        simnpu__op_prepare_conv,.run = simnpu__op_run_conv,.n_params = 2,.cost =
        SIMNPU__COST_MACS,.movement = SIMNPU__COMPUTES},
  [SIMNPU_OP_ADD] = {.infer = simnpu__op_infer_binary,.prepare =
        simnpu__op_prepare_binary,.run = simnpu__op_run_binary,.cost =
        SIMNPU__COST_OUTPUT_BYTES,.movement = SIMNPU__COMPUTES},
  [SIMNPU_OP_MUL] = {.infer = simnpu__op_infer_binary,.prepare =
        simnpu__op_prepare_binary,.run = simnpu__op_run_binary,.cost =
        SIMNPU__COST_OUTPUT_BYTES,.movement = SIMNPU__COMPUTES},
  [SIMNPU_OP_CONCAT] = {.infer =
        simnpu__op_infer_concat,.prepare = simnpu__op_prepare_concat,.run =
        simnpu__op_run_concat,.cost = SIMNPU__COST_OUTPUT_BYTES,.movement =
        SIMNPU__MOVES_DATA},
  [SIMNPU_OP_SPLIT] = {.infer =
        simnpu__op_infer_split,.prepare = simnpu__op_prepare_same_quant,.run =
        simnpu__op_run_split,.cost = SIMNPU__COST_OUTPUT_BYTES,.movement =
        SIMNPU__MOVES_DATA},
  [SIMNPU_OP_SLICE] = {.infer =
        simnpu__op_infer_slice,.prepare = simnpu__op_prepare_same_quant,.run =
        simnpu__op_run_slice,.cost = SIMNPU__COST_OUTPUT_BYTES,.movement =
        SIMNPU__MOVES_DATA},
  [SIMNPU_OP_MAXPOOL] = {.infer = simnpu__op_infer_window,.prepare =
        simnpu__op_prepare_pool,.run = simnpu__op_run_pool,.cost =
        SIMNPU__COST_WINDOW_BYTES,.movement = SIMNPU__COMPUTES},
  [SIMNPU_OP_AVGPOOL] = {.infer = simnpu__op_infer_window,.prepare =
        simnpu__op_prepare_pool,.run = simnpu__op_run_pool,.cost =
        SIMNPU__COST_WINDOW_BYTES,.movement = SIMNPU__COMPUTES},
  [SIMNPU_OP_RESIZE] = {.infer = simnpu__op_infer_resize,.prepare =
        simnpu__op_prepare_resize,.run = simnpu__op_run_resize,.cost =
        SIMNPU__COST_RESIZE,.movement = SIMNPU__MOVES_DATA_IF_NEAREST},
  [SIMNPU_OP_RESHAPE] = {.infer = simnpu__op_infer_reshape,.prepare =
        simnpu__op_prepare_same_quant,.run = simnpu__op_run_reshape,.cost =
        SIMNPU__COST_OUTPUT_BYTES,.movement = SIMNPU__MOVES_DATA},
  [SIMNPU_OP_TRANSPOSE] = {.infer =
        simnpu__op_infer_transpose,.prepare =
        simnpu__op_prepare_same_quant,.run = simnpu__op_run_transpose,.cost =
        SIMNPU__COST_OUTPUT_BYTES,.movement = SIMNPU__MOVES_DATA},
  [SIMNPU_OP_RELU] = {.infer = simnpu__op_infer_unary,.prepare =
        simnpu__op_prepare_lut_fixed,.run = simnpu__op_run_lut,.lut =
        lut_relu,.cost = SIMNPU__COST_OUTPUT_BYTES,.movement =
        SIMNPU__COMPUTES},
  [SIMNPU_OP_SIGMOID] = {.infer = simnpu__op_infer_unary,.prepare =
        simnpu__op_prepare_lut_fixed,.run = simnpu__op_run_lut,.lut =
        lut_sigmoid,.cost = SIMNPU__COST_OUTPUT_BYTES,.movement =
        SIMNPU__COMPUTES},
  [SIMNPU_OP_SILU] = {.infer = simnpu__op_infer_unary,.prepare =
        simnpu__op_prepare_lut_fixed,.run = simnpu__op_run_lut,.lut =
        lut_silu,.cost = SIMNPU__COST_OUTPUT_BYTES,.movement =
        SIMNPU__COMPUTES},
  [SIMNPU_OP_SOFTMAX] = {.infer = simnpu__op_infer_softmax,.prepare =
        simnpu__op_prepare_softmax,.run = simnpu__op_run_softmax_op,.cost =
        SIMNPU__COST_OUTPUT_BYTES,.movement = SIMNPU__COMPUTES},
  [SIMNPU_OP_TANH] = {.infer = simnpu__op_infer_unary,.prepare =
        simnpu__op_prepare_lut_params,.run = simnpu__op_run_lut,.lut =
        lut_tanh,.cost = SIMNPU__COST_OUTPUT_BYTES,.movement =
        SIMNPU__COMPUTES},
  [SIMNPU_OP_HARD_SWISH] = {.infer = simnpu__op_infer_unary,.prepare =
        simnpu__op_prepare_lut_params,.run = simnpu__op_run_lut,.lut =
        lut_hard_swish,.cost = SIMNPU__COST_OUTPUT_BYTES,.movement =
        SIMNPU__COMPUTES},
  [SIMNPU_OP_HARD_SIGMOID] = {.infer = simnpu__op_infer_unary,.prepare =
        simnpu__op_prepare_lut_params,.run = simnpu__op_run_lut,.lut =
        lut_hard_sigmoid,.cost = SIMNPU__COST_OUTPUT_BYTES,.movement =
        SIMNPU__COMPUTES},
  [SIMNPU_OP_LEAKY_RELU] = {.infer = simnpu__op_infer_unary,.prepare =
        simnpu__op_prepare_lut_params,.run = simnpu__op_run_lut,.lut =
        lut_leaky_relu,.cost = SIMNPU__COST_OUTPUT_BYTES,.movement =
        SIMNPU__COMPUTES},
  [SIMNPU_OP_CLIP] = {.infer = simnpu__op_infer_unary,.prepare =
        simnpu__op_prepare_lut_params,.run = simnpu__op_run_lut,.lut =
        lut_clip,.cost = SIMNPU__COST_OUTPUT_BYTES,.movement =
        SIMNPU__COMPUTES},
  [SIMNPU_OP_ELU] = {.infer = simnpu__op_infer_unary,.prepare =
        simnpu__op_prepare_lut_params,.run = simnpu__op_run_lut,.lut =
        lut_elu,.cost = SIMNPU__COST_OUTPUT_BYTES,.movement = SIMNPU__COMPUTES},
  [SIMNPU_OP_LUT] = {.infer = simnpu__op_infer_lut,.prepare =
        simnpu__op_prepare_lut,.run = simnpu__op_run_lut,.cost =
        SIMNPU__COST_OUTPUT_BYTES,.movement = SIMNPU__COMPUTES},
  [SIMNPU_OP_MEAN] = {.infer = simnpu__op_infer_mean,.prepare =
        simnpu__op_prepare_mean,.run = simnpu__op_run_mean,.cost =
        SIMNPU__COST_INPUT_BYTES,.movement = SIMNPU__COMPUTES},
  [SIMNPU_OP_PAD] = {.infer = simnpu__op_infer_pad,.prepare =
        simnpu__op_prepare_pad,.run = simnpu__op_run_pad,.cost =
        SIMNPU__COST_OUTPUT_BYTES,.movement = SIMNPU__MOVES_DATA},
  [SIMNPU_OP_SUB] = {.infer = simnpu__op_infer_binary,.prepare =
        simnpu__op_prepare_binary,.run = simnpu__op_run_binary,.cost =
        SIMNPU__COST_OUTPUT_BYTES,.movement = SIMNPU__COMPUTES},
  [SIMNPU_OP_MAXIMUM] = {.infer = simnpu__op_infer_binary,.prepare =
        simnpu__op_prepare_binary,.run = simnpu__op_run_binary,.cost =
        SIMNPU__COST_OUTPUT_BYTES,.movement = SIMNPU__COMPUTES},
  [SIMNPU_OP_MINIMUM] = {.infer = simnpu__op_infer_binary,.prepare =
        simnpu__op_prepare_binary,.run = simnpu__op_run_binary,.cost =
        SIMNPU__COST_OUTPUT_BYTES,.movement = SIMNPU__COMPUTES},
  [SIMNPU_OP_PRELU] = {.infer = simnpu__op_infer_prelu,.prepare =
        simnpu__op_prepare_prelu,.run = simnpu__op_run_prelu,.n_params =
        1,.cost = SIMNPU__COST_OUTPUT_BYTES,.movement = SIMNPU__COMPUTES},
  [SIMNPU_OP_DEPTH_TO_SPACE] = {.infer =
        simnpu__op_infer_depth_space,.prepare =
        simnpu__op_prepare_same_quant,.run = simnpu__op_run_depth_space,.cost =
        SIMNPU__COST_OUTPUT_BYTES,.movement = SIMNPU__MOVES_DATA},
  [SIMNPU_OP_SPACE_TO_DEPTH] = {.infer =
        simnpu__op_infer_depth_space,.prepare =
        simnpu__op_prepare_same_quant,.run = simnpu__op_run_depth_space,.cost =
        SIMNPU__COST_OUTPUT_BYTES,.movement = SIMNPU__MOVES_DATA},
  [SIMNPU_OP_GATHER] = {.infer = simnpu__op_infer_gather,.prepare =
        simnpu__op_prepare_gather,.run = simnpu__op_run_gather,.n_params =
        1,.cost = SIMNPU__COST_OUTPUT_BYTES,.movement = SIMNPU__MOVES_DATA},
  [SIMNPU_OP_SELECT] = {.infer = simnpu__op_infer_select,.prepare =
        simnpu__op_prepare_select,.run = simnpu__op_run_select,.cost =
        SIMNPU__COST_OUTPUT_BYTES,.movement = SIMNPU__MOVES_DATA},
};

/* every op has its row: the table ends with the last op */
G_STATIC_ASSERT (G_N_ELEMENTS (simnpu__op_defs) == SIMNPU_N_OP_TYPES);

simnpu__op_cost
simnpu__op_cost_of (simnpu__op_type type)
{
  const simnpu__op_def *def = op_def (type);

  return def != NULL ? def->cost : SIMNPU__COST_OUTPUT_BYTES;
}

simnpu__op_movement
simnpu__op_movement_of (simnpu__op_type type)
{
  const simnpu__op_def *def = op_def (type);

  return def != NULL ? def->movement : SIMNPU__COMPUTES;
}
