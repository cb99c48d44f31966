/* gst-ax
 * Copyright (C) 2026 gst-ax developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

/* The element-wise ops of one input: activations and math functions
 * (exp, sigmoid, SiLU, ELU, SELU and tanh vectorised where the CPU has
 * AVX2 and FMA), the integer ones, cast and copy, and the fused
 * activation of conv2d and matmul. */

#include "ir-exec-private.h"

/* ONNX HardSwish's fixed slope and offset */
#define HARD_SWISH_ALPHA (1.0f / 6.0f)
#define HARD_SWISH_BETA 0.5f

/* ------------------------------------------------------------------ */
/* Unary element-wise ops and activations */

static inline float
sigmoidf (float v)
{
  return 1.0f / (1.0f + expf (-v));
}

static inline float
hard_swishf (float v)
{
  float g = v * HARD_SWISH_ALPHA + HARD_SWISH_BETA;

  g = g < 0 ? 0 : g > 1 ? 1 : g;
  return v * g;
}

#ifdef IR_HAVE_FMA_PATH
/* exp of float arguments where the result is not a normal float, and
 * tanh's core, computed in double: x = k ln2 + r with |r| <= ln2 / 2,
 * e^r - 1 by its Taylor series to degree EXP_DEGREE (truncation below
 * 1.1e-14 relative on that interval), times 2^k. Rounding errors of the
 * reduction (ln2's own error times |k| <= 217) and of the polynomial's
 * evaluation (all terms of one sign but for r < 0, where the sum is at
 * least e^-0.35 of their magnitudes) stay below 2^-44 relative;
 * rounding that to float gives at most 0.5 + 2^-20 ulp, the correctly
 * rounded value but when the exact one lies within 2^-20 ulp of a tie
 * (glibc's expf: 0.502 ulp). Arguments are clamped where the float
 * result is already 0 or infinity: the double result rounds to them,
 * subnormal results included. */
/* odd: Estrin's scheme below pairs the coefficients after the first */
#define EXP_DEGREE 11
#define EXP_ARG_MIN (-150.0)
#define EXP_ARG_MAX 128.0
/* tanh (x) rounds to 1 in float from x = 9.01 on: 2x beyond this is
 * clamped */
#define TANH_2X_MAX 20.0
#define DBL_EXP_BIAS 1023
#define DBL_MANT_BITS 52
#define HALF_VEC 4

static const double exp_taylor[EXP_DEGREE + 1] = {
  1.0, 1.0, 1.0 / 2, 1.0 / 6, 1.0 / 24, 1.0 / 120, 1.0 / 720, 1.0 / 5040,
  1.0 / 40320, 1.0 / 362880, 1.0 / 3628800, 1.0 / 39916800,
};

/* e^r - 1 for x = k ln2 + r (x clamped), and 2^k in *scale */
static ALWAYS_INLINE IR_FMA __m256d
expm1_reduced (__m256d x, __m256d * scale)
{
  const __m256d inv_ln2 = _mm256_set1_pd (1.0 / M_LN2);
  const __m256d ln2 = _mm256_set1_pd (M_LN2);
  __m256d kd = _mm256_round_pd (_mm256_mul_pd (x, inv_ln2),
      _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
  __m256d r = _mm256_fnmadd_pd (kd, ln2, x);
  __m256d r2 = _mm256_mul_pd (r, r), r4 = _mm256_mul_pd (r2, r2);
  __m256d r8 = _mm256_mul_pd (r4, r4), c[EXP_DEGREE / 2], q0, q1, q2;
  __m256i k = _mm256_cvtepi32_epi64 (_mm256_cvtpd_epi32 (kd));
  int i;

  *scale = _mm256_castsi256_pd (_mm256_slli_epi64 (_mm256_add_epi64 (k,
              _mm256_set1_epi64x (DBL_EXP_BIAS)), DBL_MANT_BITS));
  /* (e^r - 1) / r = sum of r^i / (i + 1)!, by Estrin's scheme (depth 5
   * instead of Horner's 10: the loop is latency-bound) */
  for (i = 0; i < EXP_DEGREE / 2; i++)
    c[i] = _mm256_fmadd_pd (_mm256_set1_pd (exp_taylor[2 * i + 2]), r,
        _mm256_set1_pd (exp_taylor[2 * i + 1]));
  q0 = _mm256_fmadd_pd (c[1], r2, c[0]);
  q1 = _mm256_fmadd_pd (c[3], r2, c[2]);
  q2 = _mm256_fmadd_pd (_mm256_set1_pd (exp_taylor[EXP_DEGREE]), r2, c[4]);
  q0 = _mm256_fmadd_pd (q1, r4, q0);
  return _mm256_mul_pd (_mm256_fmadd_pd (q2, r8, q0), r);
}

static ALWAYS_INLINE IR_FMA __m256d
exp_pd (__m256d x)
{
  __m256d s, q;

  x = _mm256_max_pd (_mm256_min_pd (x, _mm256_set1_pd (EXP_ARG_MAX)),
      _mm256_set1_pd (EXP_ARG_MIN));
  q = expm1_reduced (x, &s);
  return _mm256_mul_pd (s, _mm256_add_pd (q, _mm256_set1_pd (1.0)));
}

/* tanh (|x|) = expm1 (2|x|) / (expm1 (2|x|) + 2): no cancellation for
 * small x, and expm1 = 2^k (e^r - 1) + (2^k - 1) loses at most a factor
 * 2 of its accuracy where k > 0 */
static ALWAYS_INLINE IR_FMA __m256d
tanh_abs_pd (__m256d ax)
{
  __m256d t = _mm256_min_pd (_mm256_add_pd (ax, ax),
      _mm256_set1_pd (TANH_2X_MAX));
  __m256d s, q, em1;

  q = expm1_reduced (t, &s);
  em1 = _mm256_fmadd_pd (s, q, _mm256_sub_pd (s, _mm256_set1_pd (1.0)));
  return _mm256_div_pd (em1, _mm256_add_pd (em1, _mm256_set1_pd (2.0)));
}

/* exp in float for arguments whose result is a normal float: x = n ln2
 * + r, x - n EXPF_LN2_HI exact under FMA (Cody and Waite), then e^r by
 * its Taylor series to degree EXPF_DEGREE (truncation below 2^-27 on
 * |r| <= ln2 / 2), times 2^n. The error, mostly the rounding of r and of
 * the result, stays within 1 ulp of (float) exp ((double) x), checked
 * on every float (it differs from glibc's expf, by 1 ulp, on 0.24 % of
 * them). */
#define EXPF_DEGREE 7
#define EXPF_ARG_MIN (-87.0f)
#define EXPF_ARG_MAX 88.0f
#define FLT_EXP_BIAS 127
#define FLT_MANT_BITS 23
/* ln2 = EXPF_LN2_HI + EXPF_LN2_LO: the float nearest ln2 and the rest */
#define EXPF_LN2_HI 0x1.62e430p-1f
#define EXPF_LN2_LO -0x1.05c610p-29f

static ALWAYS_INLINE IR_FMA __m256
expf_normal (__m256 x)
{
  static const float taylor[EXPF_DEGREE + 1] = {
    1.0f, 1.0f, 1.0f / 2, 1.0f / 6, 1.0f / 24, 1.0f / 120, 1.0f / 720,
    1.0f / 5040,
  };
  __m256 n = _mm256_round_ps (_mm256_mul_ps (x,
          _mm256_set1_ps ((float) M_LOG2E)),
      _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
  __m256 r = _mm256_fnmadd_ps (n, _mm256_set1_ps (EXPF_LN2_HI), x);
  __m256 p = _mm256_set1_ps (taylor[EXPF_DEGREE]);
  __m256i e = _mm256_slli_epi32 (_mm256_add_epi32 (_mm256_cvtps_epi32 (n),
          _mm256_set1_epi32 (FLT_EXP_BIAS)), FLT_MANT_BITS);
  int i;

  r = _mm256_fnmadd_ps (n, _mm256_set1_ps (EXPF_LN2_LO), r);
  for (i = EXPF_DEGREE - 1; i >= 0; i--)
    p = _mm256_fmadd_ps (p, r, _mm256_set1_ps (taylor[i]));
  return _mm256_mul_ps (p, _mm256_castsi256_ps (e));
}

static ALWAYS_INLINE IR_FMA __m256
exp_ps_double (__m256 x)
{
  __m128 lo = _mm256_cvtpd_ps (exp_pd (_mm256_cvtps_pd
          (_mm256_castps256_ps128 (x))));
  __m128 hi = _mm256_cvtpd_ps (exp_pd (_mm256_cvtps_pd
          (_mm256_extractf128_ps (x, 1))));
  __m256 r = _mm256_insertf128_ps (_mm256_castps128_ps256 (lo), hi, 1);

  /* NaN in, NaN out (the clamp dropped it) */
  return _mm256_blendv_ps (r, _mm256_add_ps (x, x), _mm256_cmp_ps (x, x,
          _CMP_UNORD_Q));
}

static ALWAYS_INLINE IR_FMA __m256
exp_ps (__m256 x)
{
  __m256 ok = _mm256_and_ps (_mm256_cmp_ps (x, _mm256_set1_ps (EXPF_ARG_MIN),
          _CMP_GE_OQ), _mm256_cmp_ps (x, _mm256_set1_ps (EXPF_ARG_MAX),
          _CMP_LE_OQ));
  if (_mm256_movemask_ps (ok) == 0xff)
    return expf_normal (x);
  return exp_ps_double (x);
}

static ALWAYS_INLINE IR_FMA __m256
tanh_ps (__m256 x)
{
  const __m256 sign = _mm256_set1_ps (-0.0f);
  __m256 ax = _mm256_andnot_ps (sign, x);
  __m128 lo = _mm256_cvtpd_ps (tanh_abs_pd (_mm256_cvtps_pd
          (_mm256_castps256_ps128 (ax))));
  __m128 hi = _mm256_cvtpd_ps (tanh_abs_pd (_mm256_cvtps_pd
          (_mm256_extractf128_ps (ax, 1))));
  __m256 r = _mm256_insertf128_ps (_mm256_castps128_ps256 (lo), hi, 1);

  r = _mm256_or_ps (r, _mm256_and_ps (x, sign));
  return _mm256_blendv_ps (r, _mm256_add_ps (x, x), _mm256_cmp_ps (x, x,
          _CMP_UNORD_Q));
}

/* the scalar formulas of f32_unary_run, with exp and tanh vectorised
 * (the float arithmetic around them is the same) */
static ALWAYS_INLINE IR_FMA __m256
unary_vec (simnpu__ir_op op, __m256 v, __m256 f0, __m256 f1)
{
  const __m256 one = _mm256_set1_ps (1.0f), zero = _mm256_setzero_ps ();
  __m256 neg, e;

  switch (op) {
    case SIMNPU_IR_EXP:
      return exp_ps (v);
    case SIMNPU_IR_TANH:
      return tanh_ps (v);
    case SIMNPU_IR_SIGMOID:
      /* 0 - v is not -v for v = 0 and NaN, but both give the same exp */
      e = exp_ps (_mm256_sub_ps (zero, v));
      return _mm256_div_ps (one, _mm256_add_ps (one, e));
    case SIMNPU_IR_SILU:
      e = exp_ps (_mm256_sub_ps (zero, v));
      return _mm256_mul_ps (v, _mm256_div_ps (one, _mm256_add_ps (one, e)));
    case SIMNPU_IR_ELU:
      neg = _mm256_cmp_ps (v, zero, _CMP_LT_OQ);
      e = _mm256_mul_ps (f0, _mm256_sub_ps (exp_ps (v), one));
      return _mm256_blendv_ps (v, e, neg);
    default:                   /* SELU */
      neg = _mm256_cmp_ps (v, zero, _CMP_LE_OQ);
      e = _mm256_mul_ps (f0, _mm256_sub_ps (exp_ps (v), one));
      return _mm256_mul_ps (f1, _mm256_blendv_ps (v, e, neg));
  }
}

IR_FMA static void
unary_fma (simnpu__ir_op op, const simnpu__ir_attrs * at, float *o,
    const float *in, int64_t len)
{
  const __m256 f0 = _mm256_set1_ps (at->f[0]), f1 = _mm256_set1_ps (at->f[1]);
  float tail[OC_HALF] = { 0 };
  int64_t i;

  /* two vectors at a time: independent chains to overlap */
  for (i = 0; i + 2 * OC_HALF <= len; i += 2 * OC_HALF) {
    __m256 a = unary_vec (op, _mm256_loadu_ps (in + i), f0, f1);
    __m256 b = unary_vec (op, _mm256_loadu_ps (in + i + OC_HALF), f0, f1);
    _mm256_storeu_ps (o + i, a);
    _mm256_storeu_ps (o + i + OC_HALF, b);
  }
  for (; i + OC_HALF <= len; i += OC_HALF)
    _mm256_storeu_ps (o + i, unary_vec (op, _mm256_loadu_ps (in + i), f0, f1));
  if (i < len) {
    /* the last few through a copy: no load past the end */
    memcpy (tail, in + i, (size_t) (len - i) * sizeof (float));
    _mm256_storeu_ps (tail, unary_vec (op, _mm256_loadu_ps (tail), f0, f1));
    memcpy (o + i, tail, (size_t) (len - i) * sizeof (float));
  }
}

static bool
unary_has_fma_path (simnpu__ir_op op)
{
  return op == SIMNPU_IR_EXP || op == SIMNPU_IR_TANH
      || op == SIMNPU_IR_SIGMOID || op == SIMNPU_IR_SILU
      || op == SIMNPU_IR_ELU || op == SIMNPU_IR_SELU;
}
#endif

IR_CLONES static void
f32_unary_run (simnpu__ir_op op, const simnpu__ir_attrs * at,
    float *o, const float *in, int64_t len)
{
  const float f0 = at->f[0], f1 = at->f[1];
  int64_t i;

#ifdef IR_HAVE_FMA_PATH
  if (unary_has_fma_path (op) && have_fma ()) {
    unary_fma (op, at, o, in, len);
    return;
  }
#endif
  switch (op) {
    case SIMNPU_IR_RELU:
      for (i = 0; i < len; i++)
        o[i] = in[i] < 0 ? 0 : in[i];
      break;
    case SIMNPU_IR_CLIP:
      for (i = 0; i < len; i++) {
        float v = in[i] < f0 ? f0 : in[i];
        o[i] = v > f1 ? f1 : v;
      }
      break;
    case SIMNPU_IR_LEAKY_RELU:
      for (i = 0; i < len; i++)
        o[i] = in[i] < 0 ? in[i] * f0 : in[i];
      break;
    case SIMNPU_IR_ELU:
      for (i = 0; i < len; i++)
        o[i] = in[i] < 0 ? f0 * (expf (in[i]) - 1.0f) : in[i];
      break;
    case SIMNPU_IR_SELU:
      for (i = 0; i < len; i++)
        o[i] = f1 * (in[i] <= 0 ? f0 * (expf (in[i]) - 1.0f) : in[i]);
      break;
    case SIMNPU_IR_SIGMOID:
      for (i = 0; i < len; i++)
        o[i] = sigmoidf (in[i]);
      break;
    case SIMNPU_IR_HARD_SIGMOID:
      for (i = 0; i < len; i++) {
        float v = f0 * in[i] + f1;
        o[i] = v < 0 ? 0 : v > 1 ? 1 : v;
      }
      break;
    case SIMNPU_IR_HARD_SWISH:
      for (i = 0; i < len; i++)
        o[i] = hard_swishf (in[i]);
      break;
    case SIMNPU_IR_SILU:
      for (i = 0; i < len; i++)
        o[i] = in[i] * sigmoidf (in[i]);
      break;
    case SIMNPU_IR_TANH:
      for (i = 0; i < len; i++)
        o[i] = tanhf (in[i]);
      break;
    case SIMNPU_IR_SOFTPLUS:
      /* log (1 + exp (x)) without overflow for large x */
      for (i = 0; i < len; i++)
        o[i] = in[i] > 0 ? in[i] + log1pf (expf (-in[i]))
            : log1pf (expf (in[i]));
      break;
    case SIMNPU_IR_SOFTSIGN:
      for (i = 0; i < len; i++)
        o[i] = in[i] / (1.0f + fabsf (in[i]));
      break;
    case SIMNPU_IR_EXP:
      for (i = 0; i < len; i++)
        o[i] = expf (in[i]);
      break;
    case SIMNPU_IR_LOG:
      for (i = 0; i < len; i++)
        o[i] = logf (in[i]);
      break;
    case SIMNPU_IR_SQRT:
      for (i = 0; i < len; i++)
        o[i] = sqrtf (in[i]);
      break;
    case SIMNPU_IR_RSQRT:
      for (i = 0; i < len; i++)
        o[i] = 1.0f / sqrtf (in[i]);
      break;
    case SIMNPU_IR_RECIPROCAL:
      for (i = 0; i < len; i++)
        o[i] = 1.0f / in[i];
      break;
    case SIMNPU_IR_NEG:
      for (i = 0; i < len; i++)
        o[i] = -in[i];
      break;
    case SIMNPU_IR_ABS:
      for (i = 0; i < len; i++)
        o[i] = fabsf (in[i]);
      break;
    case SIMNPU_IR_FLOOR:
      for (i = 0; i < len; i++)
        o[i] = floorf (in[i]);
      break;
    case SIMNPU_IR_CEIL:
      for (i = 0; i < len; i++)
        o[i] = ceilf (in[i]);
      break;
    case SIMNPU_IR_ROUND:
      /* the default rounding mode rounds halves to even */
      for (i = 0; i < len; i++)
        o[i] = rintf (in[i]);
      break;
    case SIMNPU_IR_SIGN:
      for (i = 0; i < len; i++)
        o[i] = in[i] > 0 ? 1.0f : in[i] < 0 ? -1.0f : in[i];
      break;
    case SIMNPU_IR_ERF:
      for (i = 0; i < len; i++)
        o[i] = erff (in[i]);
      break;
    case SIMNPU_IR_SIN:
      for (i = 0; i < len; i++)
        o[i] = sinf (in[i]);
      break;
    case SIMNPU_IR_COS:
      for (i = 0; i < len; i++)
        o[i] = cosf (in[i]);
      break;
    default:
      memmove (o, in, (size_t) len * sizeof (float));
      break;
  }
}

static inline int64_t
int_unary (simnpu__ir_op op, const simnpu__ir_attrs * at, int64_t v)
{
  switch (op) {
    case SIMNPU_IR_RELU:
      return v < 0 ? 0 : v;
    case SIMNPU_IR_CLIP:
      /* integer bounds stored as floats: ceil of the min, floor of the
       * max keep the result inside them */
      if (v < (double) at->f[0])
        v = f2i (ceilf (at->f[0]));
      if (v > (double) at->f[1])
        v = f2i (floorf (at->f[1]));
      return v;
    case SIMNPU_IR_NEG:
      return (int64_t) (0 - (uint64_t) v);
    case SIMNPU_IR_ABS:
      return v < 0 ? (int64_t) (0 - (uint64_t) v) : v;
    case SIMNPU_IR_SIGN:
      return (v > 0) - (v < 0);
    case SIMNPU_IR_NOT:
      return v == 0;
    default:
      return v;
  }
}

void
simnpu__ir_f32_unary (simnpu__ir_op op, const simnpu__ir_attrs * at,
    float *o, const float *in, int64_t len)
{
  f32_unary_run (op, at, o, in, len);
}

int
simnpu__ir_run_unary (simnpu__ir_exec * x, const simnpu__ir_node * n,
    simnpu_error * error)
{
  const simnpu__ir_tensor *t = tin (x, n, 0);
  int64_t len = elems (t), i;
  const void *in = din (x, n, 0);
  void *o = dout (x, n, 0);

  if (t->dtype == SIMNPU_IR_F32) {
    f32_unary_run (n->op, &n->attrs, o, in, len);
    return 0;
  }
  for (i = 0; i < len; i++)
    store_int (t->dtype, o, i, int_unary (n->op, &n->attrs,
            load_int (t->dtype, in, i)));
  return 0;
}

int
simnpu__ir_run_cast (simnpu__ir_exec * x, const simnpu__ir_node * n,
    simnpu_error * error)
{
  const simnpu__ir_tensor *t = tin (x, n, 0);
  simnpu__ir_dtype to = n->attrs.dtype;
  const void *in = din (x, n, 0);
  void *o = dout (x, n, 0);
  int64_t len = elems (t), i;

  if (t->dtype == to) {
    if (o != in)
      memcpy (o, in, simnpu__ir_tensor_bytes (t));
    return 0;
  }
  if (t->dtype == SIMNPU_IR_F32) {
    const float *f = in;
    if (to == SIMNPU_IR_BOOL) {
      for (i = 0; i < len; i++)
        ((uint8_t *) o)[i] = f[i] != 0;
    } else {
      for (i = 0; i < len; i++)
        store_int (to, o, i, f2i (f[i]));
    }
    return 0;
  }
  if (to == SIMNPU_IR_F32) {
    for (i = 0; i < len; i++)
      ((float *) o)[i] = (float) load_int (t->dtype, in, i);
    return 0;
  }
  for (i = 0; i < len; i++)
    store_int (to, o, i, load_int (t->dtype, in, i));
  return 0;
}

int
simnpu__ir_run_copy (simnpu__ir_exec * x, const simnpu__ir_node * n,
    simnpu_error * error)
{
  const void *in = din (x, n, 0);
  void *o = dout (x, n, 0);

  if (o != in)
    memcpy (o, in, simnpu__ir_tensor_bytes (tout (x, n, 0)));
  return 0;
}

/* fused activation of conv2d and matmul, in place */
void
simnpu__ir_apply_act (float *p, int64_t len, const simnpu__ir_attrs * at)
{
  simnpu__ir_attrs a = *at;

  switch (at->act) {
    case SIMNPU_IR_ACT_NONE:
      return;
    case SIMNPU_IR_ACT_RELU:
      f32_unary_run (SIMNPU_IR_RELU, at, p, p, len);
      return;
    case SIMNPU_IR_ACT_CLIP:
      a.f[0] = at->act_min;
      a.f[1] = at->act_max;
      f32_unary_run (SIMNPU_IR_CLIP, &a, p, p, len);
      return;
    case SIMNPU_IR_ACT_LEAKY_RELU:
      a.f[0] = at->act_alpha;
      f32_unary_run (SIMNPU_IR_LEAKY_RELU, &a, p, p, len);
      return;
    case SIMNPU_IR_ACT_SIGMOID:
      f32_unary_run (SIMNPU_IR_SIGMOID, at, p, p, len);
      return;
    case SIMNPU_IR_ACT_TANH:
      f32_unary_run (SIMNPU_IR_TANH, at, p, p, len);
      return;
    case SIMNPU_IR_ACT_HARD_SWISH:
      f32_unary_run (SIMNPU_IR_HARD_SWISH, at, p, p, len);
      return;
    case SIMNPU_IR_ACT_ELU:
      a.f[0] = at->act_alpha;
      f32_unary_run (SIMNPU_IR_ELU, &a, p, p, len);
      return;
  }
}
