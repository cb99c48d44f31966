/* gst-ax
 * Copyright (C) 2026 gst-ax developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

/* The TF.js translations of the ops that compute: element-wise arithmetic
 * and activations, softmax, convolutions (plain, depthwise and fused, the
 * filters rearranged from HWIO to OHWI), matrix products, batch norms,
 * pooling, reductions and arg-max/min. The table at the end maps each TF
 * op to its translation, or to an IR op for the plain element-wise ones. */

#include "tfjs-private.h"

#include <math.h>
#include <string.h>

#define TFJS_DEFAULT_LEAKY_ALPHA 0.2f
#define TFJS_ELU_ALPHA 1.0f
#define TFJS_RELU6_MAX 6.0f
#define TFJS_SELU_ALPHA 1.67326324f
#define TFJS_SELU_GAMMA 1.05070098f
#define TFJS_DEFAULT_BN_EPSILON 0.0001f

static int
tr_unary_attrs (tfjs_loader * l, const tfjs_node * tn, const int *in,
    simnpu__ir_op op, float f0, float f1)
{
  simnpu__ir_node *n;
  int out, ret = simnpu__tfjs_need_inputs (l, tn, 1, 1);

  if (ret == 0)
    ret = simnpu__tfjs_begin_op (l, op, NULL, 1, in, 1, &out, &n);
  if (ret < 0)
    return ret;
  n->attrs.f[0] = f0;
  n->attrs.f[1] = f1;
  ret = simnpu__tfjs_finish_op (l, n);
  return ret < 0 ? ret : simnpu__tfjs_register_output (l, tn, 0, out);
}

static int
tr_relu6 (tfjs_loader * l, const tfjs_node * tn, const int *in)
{
  return tr_unary_attrs (l, tn, in, SIMNPU_IR_CLIP, 0.0f, TFJS_RELU6_MAX);
}

static int
tr_elu (tfjs_loader * l, const tfjs_node * tn, const int *in)
{
  return tr_unary_attrs (l, tn, in, SIMNPU_IR_ELU, TFJS_ELU_ALPHA, 0.0f);
}

static int
tr_selu (tfjs_loader * l, const tfjs_node * tn, const int *in)
{
  return tr_unary_attrs (l, tn, in, SIMNPU_IR_SELU, TFJS_SELU_ALPHA,
      TFJS_SELU_GAMMA);
}

static int
tr_leaky_relu (tfjs_loader * l, const tfjs_node * tn, const int *in)
{
  float alpha;
  int ret = simnpu__tfjs_attr_float (l, tn, "alpha", TFJS_DEFAULT_LEAKY_ALPHA,
      &alpha);
  return ret < 0 ? ret : tr_unary_attrs (l, tn, in, SIMNPU_IR_LEAKY_RELU, alpha,
      0.0f);
}

static int
tr_square (tfjs_loader * l, const tfjs_node * tn, const int *in)
{
  int xx[2], out, ret = simnpu__tfjs_need_inputs (l, tn, 1, 1);

  if (ret < 0)
    return ret;
  xx[0] = xx[1] = in[0];
  out = simnpu__tfjs_simple_op (l, SIMNPU_IR_MUL, NULL, 2, xx);
  return out < 0 ? out : simnpu__tfjs_register_output (l, tn, 0, out);
}

static int
tr_squared_difference (tfjs_loader * l, const tfjs_node * tn, const int *in)
{
  int d[2], out, ret = simnpu__tfjs_need_inputs (l, tn, 2, 2);

  if (ret < 0)
    return ret;
  d[0] = d[1] = simnpu__tfjs_simple_op (l, SIMNPU_IR_SUB, "sub", 2, in);
  if (d[0] < 0)
    return d[0];
  out = simnpu__tfjs_simple_op (l, SIMNPU_IR_MUL, NULL, 2, d);
  return out < 0 ? out : simnpu__tfjs_register_output (l, tn, 0, out);
}

static int
tr_add_n (tfjs_loader * l, const tfjs_node * tn, const int *in)
{
  int acc, ret = simnpu__tfjs_need_inputs (l, tn, 1, TFJS_MAX_NODE_INPUTS);
  unsigned i;

  if (ret < 0)
    return ret;
  if (tn->n_inputs == 1)
    return simnpu__tfjs_tr_elementwise (l, tn, in, SIMNPU_IR_IDENTITY);
  acc = in[0];
  for (i = 1; i < tn->n_inputs; i++) {
    int pair[2] = { acc, in[i] };
    char suffix[32];
    g_snprintf (suffix, sizeof suffix, "add%u", i);
    acc =
        simnpu__tfjs_simple_op (l, SIMNPU_IR_ADD,
        i + 1 == tn->n_inputs ? NULL : suffix, 2, pair);
    if (acc < 0)
      return acc;
  }
  return simnpu__tfjs_register_output (l, tn, 0, acc);
}

int
simnpu__tfjs_check_nhwc (tfjs_loader * l, const tfjs_node * tn)
{
  char fmt[TFJS_ATTR_STRING];
  int ret = simnpu__tfjs_attr_string (l, tn, "data_format", fmt);

  if (ret < 0)
    return ret;
  if (fmt[0] != '\0' && strcmp (fmt, "NHWC") != 0)
    return simnpu__tfjs_fail (l, SIMNPU_EUNSUPPORTED,
        "data_format '%s'; only NHWC is supported", fmt);
  return 0;
}

static int
tr_bias_add (tfjs_loader * l, const tfjs_node * tn, const int *in)
{
  int ret = simnpu__tfjs_need_inputs (l, tn, 2, 2);

  if (ret == 0)
    ret = simnpu__tfjs_check_nhwc (l, tn);
  return ret < 0 ? ret : simnpu__tfjs_tr_elementwise (l, tn, in, SIMNPU_IR_ADD);
}

static int
tr_softmax (tfjs_loader * l, const tfjs_node * tn, const int *in,
    simnpu__ir_op op)
{
  simnpu__ir_node *n;
  int out, ret = simnpu__tfjs_need_inputs (l, tn, 1, 1);

  if (ret == 0 && T (l, in[0])->rank == 0)
    ret = simnpu__tfjs_fail (l, SIMNPU_ESHAPE, "the input is a scalar");
  if (ret == 0)
    ret = simnpu__tfjs_begin_op (l, op, NULL, 1, in, 1, &out, &n);
  if (ret < 0)
    return ret;
  n->attrs.axis = (int32_t) T (l, in[0])->rank - 1;
  ret = simnpu__tfjs_finish_op (l, n);
  return ret < 0 ? ret : simnpu__tfjs_register_output (l, tn, 0, out);
}

static int
tr_softmax_op (tfjs_loader * l, const tfjs_node * tn, const int *in)
{
  return tr_softmax (l, tn, in, SIMNPU_IR_SOFTMAX);
}

static int
tr_log_softmax (tfjs_loader * l, const tfjs_node * tn, const int *in)
{
  return tr_softmax (l, tn, in, SIMNPU_IR_LOG_SOFTMAX);
}

/* TF's SAME: pad_total = max((ceil(in/s) - 1) * s + (k - 1) * d + 1 - in,
 * 0), the smaller half before. */
static void
same_pads (int64_t in, int64_t k, int64_t s, int64_t d, int32_t * before,
    int32_t * after)
{
  int64_t out = (in + s - 1) / s;
  int64_t total = MAX ((out - 1) * s + (k - 1) * d + 1 - in, 0);
  *before = (int32_t) (total / 2);
  *after = (int32_t) (total - total / 2);
}

/* strides, dilations and padding of a conv or pool over NHWC input x. */
static int
spatial_attrs (tfjs_loader * l, const tfjs_node * tn, int x,
    simnpu__ir_attrs * a)
{
  char padding[TFJS_ATTR_STRING];
  int64_t v[TFJS_MAX_LIST];
  unsigned n, i;
  int ret;
  const simnpu__ir_tensor *t = T (l, x);

  if (t->rank != 4)
    return simnpu__tfjs_fail (l, SIMNPU_ESHAPE,
        "input '%s' has rank %u; expected NHWC (rank 4)", t->name, t->rank);
  ret = simnpu__tfjs_check_nhwc (l, tn);
  if (ret < 0)
    return ret;
  ret = simnpu__tfjs_attr_ints (l, tn, "strides", v, TFJS_MAX_LIST, &n);
  if (ret < 0)
    return ret;
  if (n == 4) {
    if (v[1] < 1 || v[2] < 1 || v[1] > G_MAXINT16 || v[2] > G_MAXINT16)
      return simnpu__tfjs_fail (l, SIMNPU_EFORMAT, "strides must be positive");
    a->stride[0] = (int32_t) v[1];
    a->stride[1] = (int32_t) v[2];
  } else if (n != 0) {
    return simnpu__tfjs_fail (l, SIMNPU_EFORMAT,
        "%u strides; expected 4 (NHWC)", n);
  }
  ret = simnpu__tfjs_attr_ints (l, tn, "dilations", v, TFJS_MAX_LIST, &n);
  if (ret < 0)
    return ret;
  if (n == 4) {
    if (v[1] < 1 || v[2] < 1 || v[1] > G_MAXINT16 || v[2] > G_MAXINT16)
      return simnpu__tfjs_fail (l, SIMNPU_EFORMAT,
          "dilations must be positive");
    a->dilation[0] = (int32_t) v[1];
    a->dilation[1] = (int32_t) v[2];
  } else if (n != 0) {
    return simnpu__tfjs_fail (l, SIMNPU_EFORMAT,
        "%u dilations; expected 4 (NHWC)", n);
  }
  ret = simnpu__tfjs_attr_string (l, tn, "padding", padding);
  if (ret < 0)
    return ret;
  if (strcmp (padding, "SAME") == 0) {
    same_pads (t->dims[1], a->kernel[0], a->stride[0], a->dilation[0],
        &a->pads[0], &a->pads[2]);
    same_pads (t->dims[2], a->kernel[1], a->stride[1], a->dilation[1],
        &a->pads[1], &a->pads[3]);
  } else if (strcmp (padding, "EXPLICIT") == 0) {
    ret =
        simnpu__tfjs_attr_ints (l, tn, "explicit_paddings", v, TFJS_MAX_LIST,
        &n);
    if (ret < 0)
      return ret;
    if (n != 8)
      return simnpu__tfjs_fail (l, SIMNPU_EFORMAT,
          "%u explicit_paddings; expected 8", n);
    for (i = 0; i < 8; i++)
      if (v[i] < 0 || v[i] > G_MAXINT16 || ((i < 2 || i >= 6) && v[i] != 0))
        return simnpu__tfjs_fail (l, SIMNPU_EUNSUPPORTED,
            "explicit_paddings[%u] = %" G_GINT64_FORMAT
            "; expected spatial pads >= 0 only", i, v[i]);
    a->pads[0] = (int32_t) v[2];
    a->pads[2] = (int32_t) v[3];
    a->pads[1] = (int32_t) v[4];
    a->pads[3] = (int32_t) v[5];
  } else if (strcmp (padding, "VALID") != 0) {
    return simnpu__tfjs_fail (l, SIMNPU_EUNSUPPORTED,
        "padding '%s'; expected SAME, VALID or EXPLICIT", padding);
  }
  return 0;
}

/* The activation of a fused op by its TF name. */
static bool
act_by_name (const char *s, float leaky_alpha, simnpu__ir_act * act,
    float *lo, float *hi, float *alpha)
{
  *lo = 0.0f;
  *hi = INFINITY;
  *alpha = 0.0f;
  if (strcmp (s, "Relu") == 0)
    *act = SIMNPU_IR_ACT_RELU;
  else if (strcmp (s, "Relu6") == 0) {
    *act = SIMNPU_IR_ACT_CLIP;
    *hi = TFJS_RELU6_MAX;
  } else if (strcmp (s, "Elu") == 0) {
    *act = SIMNPU_IR_ACT_ELU;
    *alpha = TFJS_ELU_ALPHA;
  } else if (strcmp (s, "LeakyRelu") == 0) {
    *act = SIMNPU_IR_ACT_LEAKY_RELU;
    *alpha = leaky_alpha;
  } else if (strcmp (s, "Sigmoid") == 0)
    *act = SIMNPU_IR_ACT_SIGMOID;
  else if (strcmp (s, "Tanh") == 0)
    *act = SIMNPU_IR_ACT_TANH;
  else
    return false;
  return true;
}

/* The standalone op for an activation (after a fused batchnorm). */
static int
act_op (tfjs_loader * l, int x, simnpu__ir_act act, float lo, float hi,
    float alpha, const char *suffix)
{
  static const simnpu__ir_op ops[] = {
    [SIMNPU_IR_ACT_RELU] = SIMNPU_IR_RELU,
    [SIMNPU_IR_ACT_CLIP] = SIMNPU_IR_CLIP,
    [SIMNPU_IR_ACT_LEAKY_RELU] = SIMNPU_IR_LEAKY_RELU,
    [SIMNPU_IR_ACT_SIGMOID] = SIMNPU_IR_SIGMOID,
    [SIMNPU_IR_ACT_TANH] = SIMNPU_IR_TANH,
    [SIMNPU_IR_ACT_HARD_SWISH] = SIMNPU_IR_HARD_SWISH,
    [SIMNPU_IR_ACT_ELU] = SIMNPU_IR_ELU,
  };
  simnpu__ir_node *n;
  int out, ret;

  ret = simnpu__tfjs_begin_op (l, ops[act], suffix, 1, &x, 1, &out, &n);
  if (ret < 0)
    return ret;
  if (act == SIMNPU_IR_ACT_CLIP) {
    n->attrs.f[0] = lo;
    n->attrs.f[1] = hi;
  } else {
    n->attrs.f[0] = alpha;
  }
  ret = simnpu__tfjs_finish_op (l, n);
  return ret < 0 ? ret : out;
}

typedef struct
{
  bool bias, batchnorm, prelu;
  bool has_act;
  simnpu__ir_act act;
  float lo, hi, alpha;
  unsigned n_args;
} tfjs_fused;

static int
parse_fused (tfjs_loader * l, const tfjs_node * tn, unsigned n_main,
    tfjs_fused * f)
{
  JsonArray *ops =
      simnpu__tfjs_get_array (simnpu__tfjs_get_object (simnpu__tfjs_attr_value
          (tn, "fused_ops"),
          "list"), "s");
  float leaky;
  unsigned i, len;
  int64_t num_args;
  int ret;

  memset (f, 0, sizeof *f);
  ret =
      simnpu__tfjs_attr_float (l, tn, "leakyrelu_alpha",
      TFJS_DEFAULT_LEAKY_ALPHA, &leaky);
  if (ret == 0)
    ret = simnpu__tfjs_attr_int (l, tn, "num_args", 0, 0, 8, &num_args);
  if (ret < 0)
    return ret;
  len = ops ? json_array_get_length (ops) : 0;
  for (i = 0; i < len; i++) {
    char s[TFJS_ATTR_STRING];
    ret = simnpu__tfjs_decode_b64 (l, "fused_ops",
        simnpu__tfjs_node_string (json_array_get_element (ops, i)), s,
        sizeof s);
    if (ret < 0)
      return ret;
    if (i == 0 && strcmp (s, "BiasAdd") == 0)
      f->bias = true;
    else if (i == 0 && strcmp (s, "FusedBatchNorm") == 0)
      f->batchnorm = true;
    else if (!f->has_act && strcmp (s, "Prelu") == 0)
      f->prelu = f->has_act = true;
    else if (!f->has_act && act_by_name (s, leaky, &f->act, &f->lo, &f->hi,
            &f->alpha))
      f->has_act = true;
    else
      return simnpu__tfjs_fail (l, SIMNPU_EUNSUPPORTED,
          "fused op %u '%s' is not "
          "supported (expected BiasAdd or FusedBatchNorm, then Relu, Relu6, "
          "Elu, LeakyRelu, Sigmoid, Tanh or Prelu)", i, s);
  }
  f->n_args = (f->bias ? 1 : 0) + (f->batchnorm ? 4 : 0) + (f->prelu ? 1 : 0);
  if ((int64_t) f->n_args != num_args && !(num_args == 0 && f->n_args == 0))
    return simnpu__tfjs_fail (l, SIMNPU_EFORMAT,
        "num_args %" G_GINT64_FORMAT " does not "
        "match fused_ops (%u arguments)", num_args, f->n_args);
  if (tn->n_inputs != n_main + f->n_args)
    return simnpu__tfjs_fail (l, SIMNPU_EFORMAT, "%u inputs; expected %u",
        tn->n_inputs, n_main + f->n_args);
  return 0;
}

/* Applies the fused ops after the main op (output x, whose node got the
 * bias and activation when it could); registers the final tensor. */
static int
finish_fused (tfjs_loader * l, const tfjs_node * tn, const int *in,
    unsigned n_main, const tfjs_fused * f, int x)
{
  float eps;
  int ret;

  if (f->batchnorm) {
    simnpu__ir_node *n;
    int bn_in[5] = { x, in[n_main], in[n_main + 1], in[n_main + 2],
      in[n_main + 3]
    };
    int out;
    ret =
        simnpu__tfjs_attr_float (l, tn, "epsilon", TFJS_DEFAULT_BN_EPSILON,
        &eps);
    if (ret == 0)
      ret =
          simnpu__tfjs_begin_op (l, SIMNPU_IR_BATCHNORM,
          f->has_act ? "bn" : NULL, 5, bn_in, 1, &out, &n);
    if (ret < 0)
      return ret;
    n->attrs.f[0] = eps;
    ret = simnpu__tfjs_finish_op (l, n);
    if (ret < 0)
      return ret;
    x = out;
    if (f->has_act && !f->prelu) {
      x = act_op (l, x, f->act, f->lo, f->hi, f->alpha, NULL);
      if (x < 0)
        return x;
    }
  }
  if (f->prelu) {
    int pr[2] = { x, in[n_main + f->n_args - 1] };
    x = simnpu__tfjs_simple_op (l, SIMNPU_IR_PRELU, NULL, 2, pr);
    if (x < 0)
      return x;
  }
  return simnpu__tfjs_register_output (l, tn, 0, x);
}

/* HWIO (depthwise: H, W, C, multiplier) filter into OHWI. */
static int
filter_ohwi (tfjs_loader * l, int f, bool depthwise)
{
  const simnpu__ir_tensor *t = T (l, f);
  int64_t kh = t->dims[0], kw = t->dims[1], ci = t->dims[2], co = t->dims[3];
  int64_t dims[4];
  const float *src;
  float *dst;
  int64_t h, w, i, o;

  if (!t->is_const || t->dtype != SIMNPU_IR_F32) {
    int64_t perm_conv[4] = { 3, 0, 1, 2 }, perm_dw[4] = { 2, 3, 0, 1 };
    int x = simnpu__tfjs_transpose_op (l, "filter", f, 4,
        depthwise ? perm_dw : perm_conv);
    if (x < 0 || !depthwise)
      return x;
    dims[0] = ci * co;
    dims[1] = kh;
    dims[2] = kw;
    dims[3] = 1;
    return simnpu__tfjs_reshape_op (l, "filter_ohwi", x, 4, dims);
  }
  src = t->data;
  dst = g_new (float, MAX (kh * kw * ci * co, 1));
  for (h = 0; h < kh; h++)
    for (w = 0; w < kw; w++)
      for (i = 0; i < ci; i++)
        for (o = 0; o < co; o++) {
          float v = src[((h * kw + w) * ci + i) * co + o];
          if (depthwise)
            dst[((i * co + o) * kh + h) * kw + w] = v;
          else
            dst[((o * kh + h) * kw + w) * ci + i] = v;
        }
  if (depthwise) {
    dims[0] = ci * co;
    dims[3] = 1;
  } else {
    dims[0] = co;
    dims[3] = ci;
  }
  dims[1] = kh;
  dims[2] = kw;
  return simnpu__tfjs_new_const (l, "ohwi", SIMNPU_IR_F32, 4, dims, dst);
}

static int
translate_conv (tfjs_loader * l, const tfjs_node * tn, const int *in,
    bool depthwise, bool fused)
{
  simnpu__ir_attrs a = { 0 };
  const simnpu__ir_tensor *x, *f;
  simnpu__ir_node *n;
  tfjs_fused fu = { 0 };
  int conv_in[3], w, out, ret, conv;
  int64_t xc;

  ret =
      fused ? parse_fused (l, tn, 2, &fu) : simnpu__tfjs_need_inputs (l, tn, 2,
      2);
  if (ret < 0)
    return ret;
  x = T (l, in[0]);
  f = T (l, in[1]);
  if (f->rank != 4 || f->dtype != SIMNPU_IR_F32)
    return simnpu__tfjs_fail (l, SIMNPU_ESHAPE,
        "filter '%s' has rank %u; expected 4 (HWIO)", f->name, f->rank);
  if (f->dims[0] < 1 || f->dims[1] < 1 || f->dims[0] > G_MAXINT16
      || f->dims[1] > G_MAXINT16 || f->dims[2] < 1 || f->dims[3] < 1)
    return simnpu__tfjs_fail (l, SIMNPU_ESHAPE,
        "filter '%s' has an empty or huge kernel", f->name);
  a.kernel[0] = (int32_t) f->dims[0];
  a.kernel[1] = (int32_t) f->dims[1];
  a.stride[0] = a.stride[1] = a.dilation[0] = a.dilation[1] = 1;
  ret = spatial_attrs (l, tn, in[0], &a);
  if (ret < 0)
    return ret;
  if (!simnpu__tfjs_space_batch_conv (l, in[0], &a))
    return TFJS_DECLINED;
  xc = x->dims[3];
  if (depthwise) {
    if (xc != f->dims[2])
      return simnpu__tfjs_fail (l, SIMNPU_ESHAPE,
          "input '%s' has %" G_GINT64_FORMAT
          " channels; the depthwise filter '%s' expects %" G_GINT64_FORMAT,
          x->name, xc, f->name, f->dims[2]);
    a.groups = (int32_t) xc;
  } else {
    if (xc % f->dims[2] != 0)
      return simnpu__tfjs_fail (l, SIMNPU_ESHAPE,
          "input '%s' has %" G_GINT64_FORMAT
          " channels, not a multiple of the filter's %" G_GINT64_FORMAT,
          x->name, xc, f->dims[2]);
    a.groups = (int32_t) (xc / f->dims[2]);
  }
  if (fu.has_act && !fu.batchnorm && !fu.prelu) {
    a.act = fu.act;
    a.act_min = fu.lo;
    a.act_max = fu.hi;
    a.act_alpha = fu.alpha;
  } else {
    a.act_max = INFINITY;
  }
  w = filter_ohwi (l, in[1], depthwise);
  if (w < 0)
    return w;
  conv_in[0] = in[0];
  conv_in[1] = w;
  conv_in[2] = fu.bias ? in[2] : SIMNPU_IR_NONE;
  ret = simnpu__tfjs_begin_op (l, SIMNPU_IR_CONV2D,
      fu.batchnorm || fu.prelu ? "conv" : NULL, fu.bias ? 3 : 2, conv_in, 1,
      &out, &n);
  if (ret < 0)
    return ret;
  n->attrs = a;
  conv = (int) (n - l->g->nodes);
  ret = simnpu__tfjs_finish_op (l, n);
  if (ret == 0)
    ret = finish_fused (l, tn, in, 2, &fu, out);
  if (ret == 0)
    simnpu__tfjs_space_batch_conv_done (l, tn, in[0], conv);
  return ret;
}

static int
tr_conv2d (tfjs_loader * l, const tfjs_node * tn, const int *in)
{
  return translate_conv (l, tn, in, false, false);
}

static int
tr_fused_conv2d (tfjs_loader * l, const tfjs_node * tn, const int *in)
{
  return translate_conv (l, tn, in, false, true);
}

static int
tr_depthwise (tfjs_loader * l, const tfjs_node * tn, const int *in)
{
  return translate_conv (l, tn, in, true, false);
}

static int
tr_fused_depthwise (tfjs_loader * l, const tfjs_node * tn, const int *in)
{
  return translate_conv (l, tn, in, true, true);
}

/* The last two axes swapped: of a constant's data, else by a node. */
static int
swap_last (tfjs_loader * l, int x, const char *suffix)
{
  const simnpu__ir_tensor *t = T (l, x);
  int64_t perm[SIMNPU_IR_MAX_RANK];
  unsigned i;

  if (t->rank < 2)
    return simnpu__tfjs_fail (l, SIMNPU_ESHAPE,
        "cannot transpose '%s' of rank %u", t->name, t->rank);
  if (t->is_const && t->rank == 2 && t->dtype == SIMNPU_IR_F32) {
    int64_t r = t->dims[0], c = t->dims[1], dims[2] = { c, r }, y, z;
    float *dst = g_new (float, MAX (r * c, 1));
    for (y = 0; y < r; y++)
      for (z = 0; z < c; z++)
        dst[z * r + y] = ((const float *) t->data)[y * c + z];
    return simnpu__tfjs_new_const (l, suffix, SIMNPU_IR_F32, 2, dims, dst);
  }
  for (i = 0; i < t->rank; i++)
    perm[i] = i;
  perm[t->rank - 2] = t->rank - 1;
  perm[t->rank - 1] = t->rank - 2;
  return simnpu__tfjs_transpose_op (l, suffix, x, t->rank, perm);
}

static int
translate_matmul (tfjs_loader * l, const tfjs_node * tn, const int *in,
    bool fused)
{
  simnpu__ir_node *n;
  tfjs_fused fu = { 0 };
  int mm_in[3], out, ret;

  ret =
      fused ? parse_fused (l, tn, 2, &fu) : simnpu__tfjs_need_inputs (l, tn, 2,
      2);
  if (ret < 0)
    return ret;
  if (fu.batchnorm)
    return simnpu__tfjs_fail (l, SIMNPU_EUNSUPPORTED,
        "FusedBatchNorm after MatMul");
  mm_in[0] = in[0];
  mm_in[1] = in[1];
  if (simnpu__tfjs_attr_bool (tn, "transpose_a", false)
      || simnpu__tfjs_attr_bool (tn, "adj_x", false)) {
    mm_in[0] = swap_last (l, in[0], "a_t");
    if (mm_in[0] < 0)
      return mm_in[0];
  }
  if (simnpu__tfjs_attr_bool (tn, "transpose_b", false)
      || simnpu__tfjs_attr_bool (tn, "adj_y", false)) {
    mm_in[1] = swap_last (l, in[1], "b_t");
    if (mm_in[1] < 0)
      return mm_in[1];
  }
  mm_in[2] = fu.bias ? in[2] : SIMNPU_IR_NONE;
  ret = simnpu__tfjs_begin_op (l, SIMNPU_IR_MATMUL, fu.prelu ? "matmul" : NULL,
      fu.bias ? 3 : 2, mm_in, 1, &out, &n);
  if (ret < 0)
    return ret;
  if (fu.has_act && !fu.prelu) {
    n->attrs.act = fu.act;
    n->attrs.act_min = fu.lo;
    n->attrs.act_max = fu.hi;
    n->attrs.act_alpha = fu.alpha;
  }
  ret = simnpu__tfjs_finish_op (l, n);
  if (ret < 0)
    return ret;
  return finish_fused (l, tn, in, 2, &fu, out);
}

static int
tr_matmul (tfjs_loader * l, const tfjs_node * tn, const int *in)
{
  return translate_matmul (l, tn, in, false);
}

static int
tr_fused_matmul (tfjs_loader * l, const tfjs_node * tn, const int *in)
{
  return translate_matmul (l, tn, in, true);
}

static int
tr_batchnorm (tfjs_loader * l, const tfjs_node * tn, const int *in)
{
  simnpu__ir_node *n;
  float eps;
  int out, ret = simnpu__tfjs_need_inputs (l, tn, 5, 5);

  if (ret == 0)
    ret = simnpu__tfjs_check_nhwc (l, tn);
  if (ret == 0 && simnpu__tfjs_attr_bool (tn, "is_training", false))
    ret = simnpu__tfjs_fail (l, SIMNPU_EUNSUPPORTED, "is_training is set; only "
        "inference batch norms are supported");
  if (ret == 0)
    ret =
        simnpu__tfjs_attr_float (l, tn, "epsilon", TFJS_DEFAULT_BN_EPSILON,
        &eps);
  if (ret == 0)
    ret =
        simnpu__tfjs_begin_op (l, SIMNPU_IR_BATCHNORM, NULL, 5, in, 1, &out,
        &n);
  if (ret < 0)
    return ret;
  n->attrs.f[0] = eps;
  ret = simnpu__tfjs_finish_op (l, n);
  return ret < 0 ? ret : simnpu__tfjs_register_output (l, tn, 0, out);
}

static int
translate_pool (tfjs_loader * l, const tfjs_node * tn, const int *in,
    simnpu__ir_op op)
{
  simnpu__ir_attrs a = { 0 };
  simnpu__ir_node *n;
  int64_t k[TFJS_MAX_LIST];
  unsigned nk;
  int out, ret = simnpu__tfjs_need_inputs (l, tn, 1, 1);

  if (ret == 0)
    ret = simnpu__tfjs_attr_ints (l, tn, "ksize", k, TFJS_MAX_LIST, &nk);
  if (ret < 0)
    return ret;
  if (nk != 4 || k[0] != 1 || k[3] != 1 || k[1] < 1 || k[2] < 1
      || k[1] > G_MAXINT16 || k[2] > G_MAXINT16)
    return simnpu__tfjs_fail (l, SIMNPU_EUNSUPPORTED,
        "ksize: expected [1, h, w, 1]");
  a.kernel[0] = (int32_t) k[1];
  a.kernel[1] = (int32_t) k[2];
  a.stride[0] = a.stride[1] = a.dilation[0] = a.dilation[1] = 1;
  a.groups = 1;
  a.act_max = INFINITY;
  ret = spatial_attrs (l, tn, in[0], &a);
  if (ret < 0)
    return ret;
  /* TF averages over the window's part inside the input */
  a.count_include_pad = false;
  ret = simnpu__tfjs_begin_op (l, op, NULL, 1, in, 1, &out, &n);
  if (ret < 0)
    return ret;
  n->attrs = a;
  ret = simnpu__tfjs_finish_op (l, n);
  return ret < 0 ? ret : simnpu__tfjs_register_output (l, tn, 0, out);
}

static int
tr_maxpool (tfjs_loader * l, const tfjs_node * tn, const int *in)
{
  return translate_pool (l, tn, in, SIMNPU_IR_MAXPOOL);
}

static int
tr_avgpool (tfjs_loader * l, const tfjs_node * tn, const int *in)
{
  return translate_pool (l, tn, in, SIMNPU_IR_AVGPOOL);
}

static int
translate_reduce (tfjs_loader * l, const tfjs_node * tn, const int *in,
    simnpu__ir_op op)
{
  simnpu__ir_node *n;
  int64_t axes[SIMNPU_IR_MAX_RANK];
  unsigned n_axes, i, j, rank;
  int out, ret = simnpu__tfjs_need_inputs (l, tn, 2, 2);

  if (ret == 0)
    ret =
        simnpu__tfjs_const_ints (l, in[1], "reduction_indices", axes,
        SIMNPU_IR_MAX_RANK, &n_axes);
  if (ret < 0)
    return ret;
  if (n_axes == 0)
    return simnpu__tfjs_tr_elementwise (l, tn, in, SIMNPU_IR_IDENTITY);
  ret = simnpu__tfjs_begin_op (l, op, NULL, 1, in, 1, &out, &n);
  if (ret < 0)
    return ret;
  rank = T (l, in[0])->rank;
  for (i = 0; i < n_axes; i++) {
    int32_t ax = 0;
    ret = simnpu__tfjs_normalise_axis (l, axes[i], rank, &ax);
    if (ret < 0)
      return ret;
    for (j = 0; j < i; j++)
      if (n->attrs.ints[j] == ax)
        return simnpu__tfjs_fail (l, SIMNPU_EFORMAT, "axis %d is reduced twice",
            ax);
    n->attrs.ints[i] = ax;
  }
  n->attrs.n_ints = n_axes;
  n->attrs.keepdims = simnpu__tfjs_attr_bool (tn, "keep_dims", false);
  ret = simnpu__tfjs_finish_op (l, n);
  return ret < 0 ? ret : simnpu__tfjs_register_output (l, tn, 0, out);
}

static int
tr_mean (tfjs_loader * l, const tfjs_node * tn, const int *in)
{
  return translate_reduce (l, tn, in, SIMNPU_IR_REDUCE_MEAN);
}

static int
tr_sum (tfjs_loader * l, const tfjs_node * tn, const int *in)
{
  return translate_reduce (l, tn, in, SIMNPU_IR_REDUCE_SUM);
}

static int
tr_max (tfjs_loader * l, const tfjs_node * tn, const int *in)
{
  return translate_reduce (l, tn, in, SIMNPU_IR_REDUCE_MAX);
}

static int
tr_min (tfjs_loader * l, const tfjs_node * tn, const int *in)
{
  return translate_reduce (l, tn, in, SIMNPU_IR_REDUCE_MIN);
}

static int
tr_prod (tfjs_loader * l, const tfjs_node * tn, const int *in)
{
  return translate_reduce (l, tn, in, SIMNPU_IR_REDUCE_PROD);
}

static int
translate_arg (tfjs_loader * l, const tfjs_node * tn, const int *in,
    simnpu__ir_op op)
{
  simnpu__ir_node *n;
  simnpu__ir_dtype dt;
  int64_t axis;
  unsigned na;
  int out, ret = simnpu__tfjs_need_inputs (l, tn, 2, 2);

  if (ret == 0)
    ret = simnpu__tfjs_const_ints (l, in[1], "dimension", &axis, 1, &na);
  if (ret == 0 && na != 1)
    ret = simnpu__tfjs_fail (l, SIMNPU_EFORMAT, "expected one dimension");
  if (ret == 0)
    ret = simnpu__tfjs_attr_type (l, tn, "output_type", SIMNPU_IR_I64, &dt);
  if (ret == 0)
    ret =
        simnpu__tfjs_begin_op (l, op, dt == SIMNPU_IR_I64 ? NULL : "arg", 1, in,
        1, &out, &n);
  if (ret < 0)
    return ret;
  ret =
      simnpu__tfjs_normalise_axis (l, axis, T (l, in[0])->rank, &n->attrs.axis);
  n->attrs.keepdims = false;
  if (ret == 0)
    ret = simnpu__tfjs_finish_op (l, n);
  if (ret == 0 && dt != SIMNPU_IR_I64) {
    int arg = out;
    ret = simnpu__tfjs_begin_op (l, SIMNPU_IR_CAST, NULL, 1, &arg, 1, &out, &n);
    if (ret == 0) {
      n->attrs.dtype = dt;
      ret = simnpu__tfjs_finish_op (l, n);
    }
  }
  return ret < 0 ? ret : simnpu__tfjs_register_output (l, tn, 0, out);
}

static int
tr_argmax (tfjs_loader * l, const tfjs_node * tn, const int *in)
{
  return translate_arg (l, tn, in, SIMNPU_IR_ARGMAX);
}

static int
tr_argmin (tfjs_loader * l, const tfjs_node * tn, const int *in)
{
  return translate_arg (l, tn, in, SIMNPU_IR_ARGMIN);
}

/* ------------------------------------------------------------------ */

const tfjs_op simnpu__tfjs_nn_ops[] = {
  {"_FusedConv2D", tr_fused_conv2d, 0},
  {"Conv2D", tr_conv2d, 0},
  {"Conv2DBackpropInput", simnpu__tfjs_tr_conv_transpose, 0},
  {"DepthToSpace", simnpu__tfjs_tr_depth_to_space, 0},
  {"SpaceToDepth", simnpu__tfjs_tr_space_to_depth, 0},
  {"DepthwiseConv2dNative", tr_depthwise, 0},
  {"SpaceToBatchND", simnpu__tfjs_tr_space_to_batch, 0},
  {"BatchToSpaceND", simnpu__tfjs_tr_batch_to_space, 0},
  {"FusedDepthwiseConv2dNative", tr_fused_depthwise, 0},
  {"MatMul", tr_matmul, 0},
  {"BatchMatMul", tr_matmul, 0},
  {"BatchMatMulV2", tr_matmul, 0},
  {"_FusedMatMul", tr_fused_matmul, 0},
  {"FusedBatchNorm", tr_batchnorm, 0},
  {"FusedBatchNormV2", tr_batchnorm, 0},
  {"FusedBatchNormV3", tr_batchnorm, 0},
  {"BiasAdd", tr_bias_add, 0},
  {"Add", NULL, SIMNPU_IR_ADD},
  {"AddV2", NULL, SIMNPU_IR_ADD},
  {"AddN", tr_add_n, 0},
  {"Sub", NULL, SIMNPU_IR_SUB},
  {"Mul", NULL, SIMNPU_IR_MUL},
  {"RealDiv", NULL, SIMNPU_IR_DIV},
  {"Div", NULL, SIMNPU_IR_DIV},
  {"FloorDiv", NULL, SIMNPU_IR_FLOOR_DIV},
  {"FloorMod", NULL, SIMNPU_IR_FLOOR_MOD},
  {"Pow", NULL, SIMNPU_IR_POW},
  {"Atan2", NULL, SIMNPU_IR_ATAN2},
  {"Maximum", NULL, SIMNPU_IR_MAXIMUM},
  {"Minimum", NULL, SIMNPU_IR_MINIMUM},
  {"Equal", NULL, SIMNPU_IR_EQUAL},
  {"Less", NULL, SIMNPU_IR_LESS},
  {"LessEqual", NULL, SIMNPU_IR_LESS_EQUAL},
  {"Greater", NULL, SIMNPU_IR_GREATER},
  {"GreaterEqual", NULL, SIMNPU_IR_GREATER_EQUAL},
  {"LogicalAnd", NULL, SIMNPU_IR_AND},
  {"LogicalOr", NULL, SIMNPU_IR_OR},
  {"LogicalNot", NULL, SIMNPU_IR_NOT},
  {"Select", NULL, SIMNPU_IR_WHERE},
  {"SelectV2", NULL, SIMNPU_IR_WHERE},
  {"SquaredDifference", tr_squared_difference, 0},
  {"Relu", NULL, SIMNPU_IR_RELU},
  {"Relu6", tr_relu6, 0},
  {"Elu", tr_elu, 0},
  {"Selu", tr_selu, 0},
  {"LeakyRelu", tr_leaky_relu, 0},
  {"Prelu", NULL, SIMNPU_IR_PRELU},
  {"Sigmoid", NULL, SIMNPU_IR_SIGMOID},
  {"Tanh", NULL, SIMNPU_IR_TANH},
  {"Softplus", NULL, SIMNPU_IR_SOFTPLUS},
  {"Softsign", NULL, SIMNPU_IR_SOFTSIGN},
  {"Exp", NULL, SIMNPU_IR_EXP},
  {"Log", NULL, SIMNPU_IR_LOG},
  {"Sqrt", NULL, SIMNPU_IR_SQRT},
  {"Rsqrt", NULL, SIMNPU_IR_RSQRT},
  {"Reciprocal", NULL, SIMNPU_IR_RECIPROCAL},
  {"Square", tr_square, 0},
  {"Neg", NULL, SIMNPU_IR_NEG},
  {"Abs", NULL, SIMNPU_IR_ABS},
  {"Floor", NULL, SIMNPU_IR_FLOOR},
  {"Ceil", NULL, SIMNPU_IR_CEIL},
  {"Round", NULL, SIMNPU_IR_ROUND},
  {"Sign", NULL, SIMNPU_IR_SIGN},
  {"Erf", NULL, SIMNPU_IR_ERF},
  {"Sin", NULL, SIMNPU_IR_SIN},
  {"Cos", NULL, SIMNPU_IR_COS},
  {"Softmax", tr_softmax_op, 0},
  {"LogSoftmax", tr_log_softmax, 0},
  {"Mean", tr_mean, 0},
  {"Sum", tr_sum, 0},
  {"Max", tr_max, 0},
  {"Min", tr_min, 0},
  {"Prod", tr_prod, 0},
  {"ArgMax", tr_argmax, 0},
  {"ArgMin", tr_argmin, 0},
  {"MaxPool", tr_maxpool, 0},
  {"AvgPool", tr_avgpool, 0},
};

const unsigned simnpu__tfjs_n_nn_ops = G_N_ELEMENTS (simnpu__tfjs_nn_ops);
