/* gst-ax
 * Copyright (C) 2026 gst-ax developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

/* What the files of the int8 kernels share (kernels.c, kernels-eltwise.c,
 * kernels-pool.c, kernels-copy.c, kernels-dense.c, kernels-dw.c): the
 * arithmetic every kernel follows, the run-time choice between the
 * portable C and its AVX2 forms, the small inline helpers of more than
 * one family, and the seam to the fast conv2d kernels. */

/* Arithmetic definitions of the int8 kernels (shared with the reference
 * implementations in tests/simnpu/test-kernels-conv.c and
 * test-kernels-vector.c, which must agree bit for bit):
 *
 * - requantisation of conv2d: q = round_half_even (clamp ((float) acc *
 *   scale, -2^20, 2^20)) in single precision, scale = in_scale * w_scale /
 *   out_scale per output channel; out = clamp (q + out_zp, act_min, 127);
 * - conv2d: acc = bias[oc] + sum ((x - in_zp) * w) over the window, padded
 *   positions contributing 0; out = clamp (requant (acc) + out_zp);
 * - add: out = out_zp + round_half_up (((a - za) * ma + (b - zb) * mb)
 *   / 2^SIMNPU_ELTWISE_SHIFT); mul: ((a - za) * (b - zb) * ma) likewise;
 * - sub: add with mb negated; maximum, minimum: out = out_zp +
 *   round_half_up (max or min ((a - za) * ma, (b - zb) * mb) / 2^SHIFT);
 * - pools: max ignores padding; avg averages valid positions only,
 *   rounding half away from zero;
 * - resize: nearest copies the source pixel of precomputed indices
 *   (requantised like concat); bilinear: v = sum of the four taps (x -
 *   zp) * wy * wx with 11-bit weights per axis, out = requant_one (v, in_scale
 *   / out_scale / 2^22) as conv2d's requantisation;
 * - mean: s = sum (x - zp) over H x W in integers, out = out_zp +
 *   round_half_away ((double) s * (in_scale / out_scale) / (H * W));
 * - pad: the input requantised like concat, the border the constant or
 *   the nearest edge value of the requantised input. */

#ifndef __SIMNPU_KERNELS_PRIVATE_H__
#define __SIMNPU_KERNELS_PRIVATE_H__

#include "kernels.h"

#include <string.h>

/* The seam between the portable conv2d (kernels.c) and the fast conv2d
 * kernels picked by CPU feature at run time:
 *
 * - kernels-dense.c: dense and pointwise convs (groups == 1), including
 *   the few-channel first layer;
 * - kernels-dw.c: depthwise convs (groups == ic == oc).
 *
 * Each family answers for a shape: the bytes of its packed weights (0
 * when it does not take the shape on this machine), packs the weights
 * once per model (simnpu__conv2d_pack), says how much scratch it needs,
 * and runs. The packed form is private to the family; the choice of
 * kernel is a pure function of the shape and the CPU, so pack and run
 * agree. Every fast kernel is bit-exact with the portable one, which is
 * itself checked against the reference in tests/simnpu/test-kernels-conv.c. */

/* alignment of packed weights and of scratch (bytes) */
#define SIMNPU_KERNEL_ALIGN 64

SIMNPU_INTERNAL size_t simnpu__dense_packed_bytes (const simnpu__conv_params
    * p);
SIMNPU_INTERNAL void simnpu__dense_pack (const simnpu__conv_params * p,
    const int8_t * weights, void *packed);
SIMNPU_INTERNAL size_t simnpu__dense_scratch_bytes (const simnpu__conv_params
    * p);
SIMNPU_INTERNAL void simnpu__dense_run (const simnpu__conv_params * p,
    const int8_t * input, const void *packed, const int32_t * bias,
    const float *scales, int8_t * output, int8_t * scratch);

SIMNPU_INTERNAL size_t simnpu__dw_packed_bytes (const simnpu__conv_params * p);
SIMNPU_INTERNAL void simnpu__dw_pack (const simnpu__conv_params * p,
    const int8_t * weights, void *packed);
SIMNPU_INTERNAL size_t simnpu__dw_scratch_bytes (const simnpu__conv_params * p);
SIMNPU_INTERNAL void simnpu__dw_run (const simnpu__conv_params * p,
    const int8_t * input, const void *packed, const int32_t * bias,
    const float *scales, int8_t * output, int8_t * scratch);

/* The AVX-512 VNNI forms (kernels-dense-vnni.c, kernels-dw-vnni.c): the
 * same seam; their packed weights carry what the unsigned-by-signed byte
 * multiply-add needs. The path that packs is chosen once per process
 * (kernels-select.c). */
#if defined(__GNUC__) && defined(__x86_64__) && defined(__has_attribute) \
    && !defined(__clang__)
#if __has_attribute (target) && __GNUC__ >= 9
#define SIMNPU_VNNI 1
#define SIMNPU_VNNI_TARGET \
  __attribute__((target ("avx512f,avx512bw,avx512vl,avx512vnni,bmi2")))
/* and, where the CPU has it, the byte permutation of AVX-512 VBMI */
#define SIMNPU_VBMI_TARGET \
  __attribute__((target ("avx512f,avx512bw,avx512vl,avx512vnni,bmi2," \
          "avx512vbmi")))
#endif
#endif

/* The AVX-VNNI form of the dense kernel (kernels-dense-avxvnni.c): the
 * same kernel as the AVX-512 one at 256 bits, for CPUs with the VEX byte
 * multiply-add and no AVX-512. */
#if defined(__GNUC__) && defined(__x86_64__) && defined(__has_attribute) \
    && !defined(__clang__)
#if __has_attribute (target) && __GNUC__ >= 11
#define SIMNPU_AVXVNNI 1
#define SIMNPU_AVXVNNI_TARGET \
  __attribute__((target ("avx2,avxvnni,bmi2")))
#endif
#endif

/* whether the CPU has AVX-512 VNNI and VBMI (a form of the VNNI dense
 * kernel uses it) */
SIMNPU_INTERNAL bool simnpu__kernels_cpu_has_vbmi (void);
/* the shapes the dense kernels take, whatever the CPU */
SIMNPU_INTERNAL bool simnpu__dense_shape_ok (const simnpu__conv_params * p);
SIMNPU_INTERNAL size_t simnpu__dense_vnni_packed_bytes (const
    simnpu__conv_params * p);
SIMNPU_INTERNAL void simnpu__dense_vnni_pack (const simnpu__conv_params * p,
    const int8_t * weights, void *packed);
SIMNPU_INTERNAL size_t simnpu__dense_vnni_scratch_bytes (const
    simnpu__conv_params * p);
SIMNPU_INTERNAL void simnpu__dense_vnni_run (const simnpu__conv_params * p,
    const int8_t * input, const void *packed, const int32_t * bias,
    const float *scales, int8_t * output, int8_t * scratch);
SIMNPU_INTERNAL size_t simnpu__dense_avxvnni_packed_bytes (const
    simnpu__conv_params * p);
SIMNPU_INTERNAL void simnpu__dense_avxvnni_pack (const simnpu__conv_params *
    p, const int8_t * weights, void *packed);
SIMNPU_INTERNAL size_t simnpu__dense_avxvnni_scratch_bytes (const
    simnpu__conv_params * p);
SIMNPU_INTERNAL void simnpu__dense_avxvnni_run (const simnpu__conv_params *
    p, const int8_t * input, const void *packed, const int32_t * bias,
    const float *scales, int8_t * output, int8_t * scratch);
SIMNPU_INTERNAL size_t simnpu__dw_vnni_packed_bytes (const
    simnpu__conv_params * p);
SIMNPU_INTERNAL void simnpu__dw_vnni_pack (const simnpu__conv_params * p,
    const int8_t * weights, void *packed);
SIMNPU_INTERNAL size_t simnpu__dw_vnni_scratch_bytes (const
    simnpu__conv_params * p);
SIMNPU_INTERNAL void simnpu__dw_vnni_run (const simnpu__conv_params * p,
    const int8_t * input, const void *packed, const int32_t * bias,
    const float *scales, int8_t * output, int8_t * scratch);

/* the packing of the path in use now (kernels-select.c); run reads the
 * kernel from what was packed, so the two always agree */
SIMNPU_INTERNAL simnpu__kernels_path simnpu__kernels_packing_path (void);
/* the path whose kernel packing for path packs p with (a slower one
 * where path's kernels do not take p) */
SIMNPU_INTERNAL simnpu__kernels_path simnpu__kernels_path_of_packing (const
    simnpu__conv_params * p, simnpu__kernels_path path);
/* bit (1 << path): flip a bit of that path's outputs (tests) */
SIMNPU_INTERNAL int simnpu__kernels_fault_mask;

/* The hot kernels are also built for AVX2 and picked at load time: the
 * same C, so the same integer and single-precision arithmetic (no FMA is
 * enabled, so nothing is contracted), with wider vectors. Not under
 * ThreadSanitizer: gcc instruments the ifunc resolvers, which the dynamic
 * loader runs before the TSan runtime is set up, and they crash. */
#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__) \
    && defined(__has_attribute) && !defined(__SANITIZE_THREAD__)
#if __has_attribute (target_clones)
#define SIMNPU_CLONES __attribute__ ((target_clones ("avx2", "default")))
#endif
#endif
#ifndef SIMNPU_CLONES
#define SIMNPU_CLONES
#endif

/* The multiply-accumulate passes of conv2d also have a hand-written AVX2
 * form (GCC's vectorisation of them uses 32-bit multiplies): taps go in
 * pairs through the 16-bit multiply-add, which is exact here since each
 * pair of int8 products sums to at most 2 * 128 * 128, and the
 * requantisation is the same single-precision sequence as requant_one. */
#if defined(__GNUC__) && defined(__x86_64__) && defined(__has_attribute)
#if __has_attribute (target)
#define SIMNPU_MAC_AVX2 1
#include <immintrin.h>
#endif
#endif

#define I8_MIN (-128)
#define I8_MAX 127

static inline int8_t
clamp_i8 (int32_t v)
{
  return (int8_t) (v < I8_MIN ? I8_MIN : (v > I8_MAX ? I8_MAX : v));
}

/* Round to nearest even without a libm call, so the loop vectorises:
 * adding and removing 1.5 * 2^23 leaves no fraction bits for |x| < 2^22;
 * requant_one's clamp keeps x far inside that range. */
#define RQ_MAGIC 12582912.0f

/* The clamps to [act_min, act_max] are applied before rounding, in
 * float, to the integer bounds lo_f = act_min - zp and hi_f = act_max - zp:
 * rounding is monotone and leaves integers alone, so this equals clamping
 * after rounding, and it subsumes the clamp to +-2^20 (|lo_f|, |hi_f| <=
 * 255) while the conversion to int8 needs no saturation. A NaN product
 * goes to act_min as the int32 conversion's INT_MIN did. Needs -128 <=
 * act_min <= act_max <= 127, which the graph guarantees. */
static inline int8_t
requant_one (int32_t acc, float scale, int32_t zp, float lo_f, float hi_f)
{
  float x = (float) acc * scale;

  x = x > lo_f ? x : lo_f;
  x = x < hi_f ? x : hi_f;
  return (int8_t) ((int32_t) ((x + RQ_MAGIC) - RQ_MAGIC) + zp);
}

#ifdef SIMNPU_MAC_AVX2
/* the widest stride of gather_avx2 */
#define GATHER_AVX2_MAX_STEP 8
/* elements per step of gather_avx2 */
#define GATHER_AVX2_STEP 16

/* gather_strided's AVX2 path (kernels.c) */
SIMNPU_INTERNAL size_t simnpu__gather_avx2 (int8_t * restrict dst,
    const int8_t * restrict src, size_t step, size_t n)
    __attribute__((target ("avx2"), noinline));

/* 16-bit pair of taps (wa, wb) as the multiply-add's operand */
static inline uint32_t
weight_pair (int32_t wa, int32_t wb)
{
  return (uint32_t) (uint16_t) wa | (uint32_t) (uint16_t) wb << 16;
}
#endif

/* dst[i] = src[i * step]; constant strides for the few-channel cases so
 * that the loads vectorise. */
static inline __attribute__((always_inline))
     void gather_strided (int8_t * restrict dst, const int8_t * restrict src,
    size_t step, size_t n)
{
  size_t i = 0;

#ifdef SIMNPU_MAC_AVX2
  if (step >= 2 && step <= GATHER_AVX2_MAX_STEP
      && n > 2 * GATHER_AVX2_STEP && __builtin_cpu_supports ("avx2")) {
    i = simnpu__gather_avx2 (dst, src, step, n);
    dst += i;
    src += i * step;
    n -= i;
  }
#endif
  switch (step) {
    case 1:
      memcpy (dst, src, n);
      break;
#define GATHER_CASE(S) \
    case S: \
      for (i = 0; i < n; i++) \
        dst[i] = src[i * S]; \
      break;
      GATHER_CASE (2) GATHER_CASE (3) GATHER_CASE (4) GATHER_CASE (5)
          GATHER_CASE (6) GATHER_CASE (8)
#undef GATHER_CASE
    default:
      for (i = 0; i < n; i++)
        dst[i] = src[i * step];
      break;
  }
}

/* Tests clear this to run the portable element-wise loops on an AVX2
 * machine too (simnpu__kernels_disable_avx2). */
SIMNPU_INTERNAL bool simnpu__elt_avx2_disabled;

static inline bool
elt_use_avx2 (void)
{
#ifdef SIMNPU_MAC_AVX2
  return !simnpu__elt_avx2_disabled && __builtin_cpu_supports ("avx2");
#else
  return false;
#endif
}

#endif /* __SIMNPU_KERNELS_PRIVATE_H__ */
