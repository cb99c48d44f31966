/* gst-ax
 * Copyright (C) 2026 gst-ax developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

/* The float32 reference executor of the IR: one buffer per tensor,
 * allocated once, and a kernel for every op (ONNX semantics).
 *
 * Built at -O3 like kernels.c: conv2d and matmul run through one
 * register-blocked tile (PIXEL_BLOCK outputs x OC_BLOCK channels, the
 * weights packed once so that the channel vectors are contiguous), which
 * GCC keeps in vector registers; the hot loops are also cloned for AVX2.
 * Where the CPU has AVX2 and FMA, conv2d, depthwise and matmul run a
 * third copy built with FMA (the accumulations contract: sums may differ
 * in their last bits from other machines'), and exp, sigmoid, SiLU, ELU,
 * SELU and tanh run vectorised: exp in float within 1 ulp of the exact
 * value (checked on every float argument against libm's double exp),
 * tanh and exp's extreme arguments in double precision, within 0.5 +
 * 2^-20 ulp (as close as libm's). */

/* The executor's files, one concern each:
 *   ir-exec-private.h     what they share (this file)
 *   ir-exec.c             the executor: buffers, packing at set-up, the run
 *   ir-exec-binary.c      broadcasting element-wise ops of two or more inputs
 *   ir-exec-unary.c       element-wise ops of one input, activations, cast
 *   ir-exec-gemm.c        conv2d and matmul: packed weights, register tiles
 *   ir-exec-reduce.c      normalisation, reductions, argmax/argmin
 *   ir-exec-spatial.c     NHWC pooling and resize
 *   ir-exec-movement.c    data movement of any dtype: views, pad, gather */

#ifndef __SIMNPU_IR_EXEC_PRIVATE_H__
#define __SIMNPU_IR_EXEC_PRIVATE_H__

#include "ir-exec.h"

#include <math.h>
#include <string.h>

/* not under ThreadSanitizer: see SIMNPU_CLONES in kernels-private.h */
#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__) \
    && defined(__has_attribute) && !defined(__SANITIZE_THREAD__)
#if __has_attribute (target_clones)
#define IR_CLONES __attribute__ ((target_clones ("avx2", "default")))
#endif
#endif
#ifndef IR_CLONES
#define IR_CLONES
#endif

#if defined(__GNUC__) && defined(__x86_64__)
#include <immintrin.h>
#define IR_HAVE_FMA_PATH 1
#define IR_FMA __attribute__ ((target ("avx2,fma")))
#define IR_AVX512 __attribute__ ((target ("avx512f,avx2,fma")))
#endif

#define ALWAYS_INLINE inline __attribute__ ((always_inline))

/* output channels of one conv/matmul tile: two 8-float vectors */
#define OC_BLOCK 16
#define OC_HALF 8
/* the same on the AVX-512 path: two 16-float vectors, of WIDE_PIXELS
 * pixels */
#define WIDE_BLOCK 32
#define WIDE_HALF 16
#define WIDE_PIXELS 12

#ifdef IR_HAVE_FMA_PATH
/* run-time choice of the AVX2+FMA copies (cheap: a load of what
 * libgcc's constructor found) */
static inline bool
have_fma (void)
{
  return __builtin_cpu_supports ("avx2") && __builtin_cpu_supports ("fma");
}
#endif

/* Accessors and element loads and stores of every kernel: inline, the
 * kernels call them per element. */

static inline const simnpu__ir_tensor *
tin (const simnpu__ir_exec * x, const simnpu__ir_node * n, unsigned i)
{
  if (i >= n->n_inputs || n->inputs[i] == SIMNPU_IR_NONE)
    return NULL;
  return &x->g->tensors[n->inputs[i]];
}

static inline const simnpu__ir_tensor *
tout (const simnpu__ir_exec * x, const simnpu__ir_node * n, unsigned i)
{
  return &x->g->tensors[n->outputs[i]];
}

static inline const void *
din (const simnpu__ir_exec * x, const simnpu__ir_node * n, unsigned i)
{
  if (i >= n->n_inputs || n->inputs[i] == SIMNPU_IR_NONE)
    return NULL;
  return x->bufs[n->inputs[i]];
}

static inline void *
dout (const simnpu__ir_exec * x, const simnpu__ir_node * n, unsigned i)
{
  return x->bufs[n->outputs[i]];
}

static inline int64_t
elems (const simnpu__ir_tensor * t)
{
  return simnpu__ir_tensor_elements (t);
}

static inline int
run_error (simnpu_error * error, int code, const simnpu__ir_node * n,
    const char *what)
{
  return simnpu__set_error (error, code, "node '%s' (%s): %s", n->name,
      simnpu__ir_op_name (n->op), what);
}

/* float to integer as numpy on x86: truncation toward zero; values out of
 * range saturate and NaN gives 0 instead of undefined behaviour */
static inline int64_t
f2i (float v)
{
  /* 2^63 as a float */
  const float limit = 9223372036854775808.0f;

  if (isnan (v))
    return 0;
  if (v >= limit)
    return G_MAXINT64;
  if (v <= -limit)
    return G_MININT64;
  return (int64_t) v;
}

static inline int64_t
load_int (simnpu__ir_dtype d, const void *p, int64_t i)
{
  switch (d) {
    case SIMNPU_IR_I64:
      return ((const int64_t *) p)[i];
    case SIMNPU_IR_I32:
      return ((const int32_t *) p)[i];
    case SIMNPU_IR_I8:
      return ((const int8_t *) p)[i];
    case SIMNPU_IR_F32:
      return f2i (((const float *) p)[i]);
    default:
      return ((const uint8_t *) p)[i];
  }
}

static inline double
load_f64 (simnpu__ir_dtype d, const void *p, int64_t i)
{
  if (d == SIMNPU_IR_F32)
    return ((const float *) p)[i];
  return (double) load_int (d, p, i);
}

/* integer stores wrap modulo the type's width, as numpy */
static inline void
store_int (simnpu__ir_dtype d, void *p, int64_t i, int64_t v)
{
  switch (d) {
    case SIMNPU_IR_I64:
      ((int64_t *) p)[i] = v;
      break;
    case SIMNPU_IR_I32:
      ((int32_t *) p)[i] = (int32_t) (uint32_t) (uint64_t) v;
      break;
    case SIMNPU_IR_I8:
      ((int8_t *) p)[i] = (int8_t) (uint8_t) (uint64_t) v;
      break;
    case SIMNPU_IR_BOOL:
      ((uint8_t *) p)[i] = v != 0;
      break;
    case SIMNPU_IR_F32:
      ((float *) p)[i] = (float) v;
      break;
    default:
      ((uint8_t *) p)[i] = (uint8_t) (uint64_t) v;
      break;
  }
}

static inline int64_t
int_pow (int64_t a, int64_t e)
{
  uint64_t r = 1, base = (uint64_t) a;

  if (e < 0)
    return a == 1 ? 1 : a == -1 ? ((e & 1) ? -1 : 1) : 0;
  while (e > 0) {
    if (e & 1)
      r *= base;
    base *= base;
    e >>= 1;
  }
  return (int64_t) r;
}

/* integer arithmetic in 64 bits, wrapping (the store truncates to the
 * type); division by zero gives 0 instead of a trap */
static inline int64_t
int_binary (simnpu__ir_op op, int64_t a, int64_t b)
{
  int64_t q, r;

  switch (op) {
    case SIMNPU_IR_ADD:
      return (int64_t) ((uint64_t) a + (uint64_t) b);
    case SIMNPU_IR_SUB:
      return (int64_t) ((uint64_t) a - (uint64_t) b);
    case SIMNPU_IR_MUL:
      return (int64_t) ((uint64_t) a * (uint64_t) b);
    case SIMNPU_IR_DIV:
      if (b == 0)
        return 0;
      if (b == -1)
        return (int64_t) (0 - (uint64_t) a);
      return a / b;
    case SIMNPU_IR_FLOOR_DIV:
      if (b == 0)
        return 0;
      if (b == -1)
        return (int64_t) (0 - (uint64_t) a);
      q = a / b;
      if (a % b != 0 && ((a < 0) != (b < 0)))
        q--;
      return q;
    case SIMNPU_IR_FLOOR_MOD:
      if (b == 0 || b == -1)
        return 0;
      r = a % b;
      if (r != 0 && ((r < 0) != (b < 0)))
        r += b;
      return r;
    case SIMNPU_IR_POW:
      return int_pow (a, b);
    case SIMNPU_IR_MAXIMUM:
      return MAX (a, b);
    case SIMNPU_IR_MINIMUM:
      return MIN (a, b);
    case SIMNPU_IR_AND:
      return a != 0 && b != 0;
    case SIMNPU_IR_OR:
      return a != 0 || b != 0;
    case SIMNPU_IR_XOR:
      return (a != 0) != (b != 0);
    default:
      return 0;
  }
}

/* [outer, axis, inner] view of a tensor around one axis */
static inline void
axis_view (const simnpu__ir_tensor * t, unsigned axis, int64_t * outer,
    int64_t * len, int64_t * inner)
{
  unsigned i;

  *outer = 1;
  *inner = 1;
  *len = t->rank > 0 ? t->dims[axis] : 1;
  for (i = 0; i < axis && i < t->rank; i++)
    *outer *= t->dims[i];
  for (i = axis + 1; i < t->rank; i++)
    *inner *= t->dims[i];
}

/* fused activation of conv2d and matmul, in place (ir-exec-unary.c) */
SIMNPU_INTERNAL void simnpu__ir_apply_act (float *p, int64_t len,
    const simnpu__ir_attrs * at);

/* The geometry and weight packing of conv2d and matmul (ir-exec-gemm.c),
 * also used by the executor to size and fill the packed buffers once. */

typedef struct
{
  int64_t groups, ocg, icg, kh, kw, blocks, bw;
  bool depthwise;
  bool wide;                    /* packed for the AVX-512 tiles */
} conv_geom;

SIMNPU_INTERNAL void simnpu__ir_conv_geometry (const simnpu__ir_exec * x,
    const simnpu__ir_node * n, conv_geom * cg);
/* floats of packed weights and bias */
SIMNPU_INTERNAL int64_t simnpu__ir_conv_packed_size (const conv_geom * cg,
    int64_t * wsize);
SIMNPU_INTERNAL void simnpu__ir_conv_pack_weights (const conv_geom * cg,
    const float *w, float *dst);

typedef struct
{
  int64_t m, k, nn;
  unsigned batch_rank;
  int64_t batch[SIMNPU_IR_MAX_RANK];
  int64_t a_st[SIMNPU_IR_MAX_RANK], b_st[SIMNPU_IR_MAX_RANK];
  int64_t n_batch, n_bmats, blocks, bw;
  bool wide;                    /* packed for the AVX-512 tiles */
} mm_geom;

SIMNPU_INTERNAL void simnpu__ir_matmul_geometry (const simnpu__ir_tensor * a,
    const simnpu__ir_tensor * b, mm_geom * mg);
SIMNPU_INTERNAL void simnpu__ir_matmul_pack (const mm_geom * mg,
    const float *b, float *dst);

#endif /* __SIMNPU_IR_EXEC_PRIVATE_H__ */
