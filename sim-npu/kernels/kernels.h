/* gst-ax
 * Copyright (C) 2026 gst-ax developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

/* The int8 kernels (kernels/), as the device graph calls them. */

#ifndef __SIMNPU_KERNELS_H__
#define __SIMNPU_KERNELS_H__

#include "base/ops.h"

G_BEGIN_DECLS
/* Fixed-point precision of bilinear resize weights, per axis. */
#define SIMNPU_RESIZE_WEIGHT_BITS 11
/* A resize's index table (simnpu__op.table): per output row, then per
 * output column, the source indices i0, i1 and the weight of i1. */
#define SIMNPU_RESIZE_TAB_I0 0
#define SIMNPU_RESIZE_TAB_I1 1
#define SIMNPU_RESIZE_TAB_W 2
#define SIMNPU_RESIZE_TAB_STRIDE 3
    typedef struct
{
  int n, ih, iw, ic;
  int oh, ow, oc;
  int kh, kw, sh, sw, pt, pl, dh, dw, groups;
  int32_t in_zp, out_zp;
  int32_t act_min, act_max;
} simnpu__conv_params;

/* The forms of the int8 conv kernels, slowest first. One is chosen per
 * process at the first conv packed (kernels-select.c): the fastest the CPU
 * has that passes its self-test against the portable kernel, or the one
 * SIMNPU_KERNELS=portable|avx2|avxvnni|avx512vnni names (if the CPU has it). */
typedef enum
{
  SIMNPU_KERNELS_PORTABLE,
  SIMNPU_KERNELS_AVX2,
  SIMNPU_KERNELS_AVXVNNI,
  SIMNPU_KERNELS_AVX512VNNI,
  SIMNPU_KERNELS_N_PATHS
} simnpu__kernels_path;

SIMNPU_INTERNAL const char *simnpu__kernels_path_name (simnpu__kernels_path
    path);
/* whether the CPU has what path needs */
SIMNPU_INTERNAL bool simnpu__kernels_cpu_has (simnpu__kernels_path path);
/* whether the CPU has path and path passed its self-test (run at the
 * first call; a failure is logged once and the path is not used) */
SIMNPU_INTERNAL bool simnpu__kernels_path_ok (simnpu__kernels_path path);
/* the path convs are packed for from now on */
SIMNPU_INTERNAL simnpu__kernels_path simnpu__kernels_path_chosen (void);
/* for tests and benchmarks: pack for path from now on (weights packed
 * before keep theirs); false, and no change, if !simnpu__kernels_path_ok */
SIMNPU_INTERNAL bool simnpu__kernels_use_path (simnpu__kernels_path path);
/* for tests: flip one output bit of every conv of path's fast kernels
 * while on, and forget the self-tests' results so that they run again */
SIMNPU_INTERNAL void simnpu__kernels_inject_fault (simnpu__kernels_path path,
    bool on);
/* for tests: the avx512vnni kernels do without AVX-512 VBMI even where
 * the CPU has it (set before packing, kept until the convs ran) */
SIMNPU_INTERNAL void simnpu__kernels_disable_vbmi (bool disable);
/* the packed form's kernel: the path that packed it (PORTABLE: none) */
SIMNPU_INTERNAL simnpu__kernels_path simnpu__conv2d_packed_path (const void
    *packed);
/* simnpu__conv2d_packed_bytes and _pack for a given path */
SIMNPU_INTERNAL size_t simnpu__conv2d_packed_bytes_for (const
    simnpu__conv_params * p, simnpu__kernels_path path);
SIMNPU_INTERNAL void simnpu__conv2d_pack_for (const simnpu__conv_params * p,
    const int8_t * weights, void *packed, simnpu__kernels_path path);

/* Kernels (kernels.c). Activations are int8 with a per-tensor zero
 * point; all shapes NHWC. */


/* conv2d: weights [oc][kh][kw][ic / groups]; bias with the input zero
 * point folded in (bias - in_zp * sum (w)); scratch of
 * simnpu__conv2d_scratch_bytes. packed: NULL, or the weights packed by
 * simnpu__conv2d_pack into simnpu__conv2d_packed_bytes (64-byte
 * aligned), which runs the fast kernel for the shape (the seam in
 * kernels-private.h); the results are the same bit for bit. */
SIMNPU_INTERNAL void simnpu__conv2d (const simnpu__conv_params * p,
    const int8_t * input, const int8_t * weights, const void *packed,
    const int32_t * bias, const float *scales, int8_t * output,
    int8_t * scratch);
/* the portable kernel alone (the oracle of the fast ones) */
SIMNPU_INTERNAL void simnpu__conv2d_portable (const simnpu__conv_params * p,
    const int8_t * input, const int8_t * weights, const int32_t * bias,
    const float *scales, int8_t * output, int8_t * scratch);
SIMNPU_INTERNAL size_t simnpu__conv2d_scratch_bytes (const
    simnpu__conv_params * p);
/* 0 when no fast kernel takes the shape on this machine */
SIMNPU_INTERNAL size_t simnpu__conv2d_packed_bytes (const
    simnpu__conv_params * p);
SIMNPU_INTERNAL void simnpu__conv2d_pack (const simnpu__conv_params * p,
    const int8_t * weights, void *packed);
SIMNPU_INTERNAL void simnpu__lut (const int8_t * lut, const int8_t * input,
    int8_t * output, size_t n);
SIMNPU_INTERNAL void simnpu__eltwise (simnpu__op_type type,
    const int64_t * in_dims_a, const int8_t * a, int32_t zp_a,
    const int64_t * in_dims_b, const int8_t * b, int32_t zp_b,
    const int64_t * out_dims, int8_t * out, int32_t zp_out,
    int64_t mult_a, int64_t mult_b);
/* prelu over rows of ch channels: (x - zp_in) times the multiplier
 * (split in halves by simnpu__eltwise_split) pos where x >= zp_in, else
 * its channel's neg_hi[c], neg_lo[c] */
SIMNPU_INTERNAL void simnpu__prelu (const int8_t * in, int8_t * out,
    size_t rows, size_t ch, int32_t zp_in, int32_t zp_out, int32_t pos_hi,
    int32_t pos_lo, const int32_t * neg_hi, const int32_t * neg_lo);
/* a multiplier m in 2^SIMNPU_ELTWISE_SHIFT fixed point, |m| < 2^31, as
 * prelu takes it: m = hi * 2^(SHIFT / 2) + lo with 0 <= lo < 2^(SHIFT /
 * 2) */
SIMNPU_INTERNAL void simnpu__eltwise_split (int64_t m, int32_t * hi,
    int32_t * lo);
/* depth_to_space (NHWC, block b, simnpu__d2s_mode) and its inverse
 * space_to_depth (DCR order); in_dims are the input's */
SIMNPU_INTERNAL void simnpu__depth_to_space (const int64_t * in_dims,
    const int8_t * in, int8_t * out, int b, int mode);
SIMNPU_INTERNAL void simnpu__space_to_depth (const int64_t * in_dims,
    const int8_t * in, int8_t * out, int b);
/* gather: out[o][j][i] = in[o][idx[j]][i] over outer x len x inner data,
 * 0 <= idx[j] < len */
SIMNPU_INTERNAL void simnpu__gather (const int8_t * in, int8_t * out,
    int64_t outer, int64_t len, int64_t inner, const int32_t * idx,
    int64_t n_idx);
/* select over rank-4 views broadcast to dout (a dimension of 1 repeats):
 * x where cond is non-zero, else y, each requantised to the output by its
 * multiplier (SIMNPU_ELTWISE_SHIFT fixed point) */
SIMNPU_INTERNAL void simnpu__select (const int64_t * dc, const int8_t * cond,
    const int64_t * dx, const int8_t * x, int32_t zp_x, int64_t mult_x,
    const int64_t * dy, const int8_t * y, int32_t zp_y, int64_t mult_y,
    const int64_t * dout, int8_t * out, int32_t zp_out);
SIMNPU_INTERNAL void simnpu__resize_nearest (const int64_t * in_dims,
    const int8_t * in, const int64_t * out_dims, int8_t * out,
    const int32_t * table, int32_t zp_in, int32_t zp_out, int64_t mult);
/* rows: NULL, or scratch for two rows of horizontal taps, 2 * out_dims[2]
 * * out_dims[3] int32 (see simnpu__resize_bilinear_scratch_bytes) */
SIMNPU_INTERNAL void simnpu__resize_bilinear (const int64_t * in_dims,
    const int8_t * in, const int64_t * out_dims, int8_t * out,
    const int32_t * table, int32_t zp_in, int32_t zp_out, float scale,
    int32_t * rows);
SIMNPU_INTERNAL size_t simnpu__resize_bilinear_scratch_bytes (const int64_t
    * out_dims);
SIMNPU_INTERNAL void simnpu__mean (const int64_t * in_dims, const int8_t * in,
    int8_t * out, int32_t * acc, int32_t zp_in, int32_t zp_out, double rescale);
SIMNPU_INTERNAL void simnpu__pad (const int64_t * in_dims, const int8_t * in,
    const int64_t * out_dims, int8_t * out, const int32_t * before,
    bool edge, int8_t value, int32_t zp_in, int32_t zp_out, int64_t mult);
SIMNPU_INTERNAL void simnpu__pool (bool max, const int64_t * in_dims,
    const int8_t * in, const int64_t * out_dims, int8_t * out,
    int kh, int kw, int sh, int sw, int pt, int pl, int32_t zp);
SIMNPU_INTERNAL void simnpu__flip_sign_copy (uint8_t * dst,
    const uint8_t * src, size_t n);
SIMNPU_INTERNAL void simnpu__dequantize (float *dst, const int8_t * src,
    size_t n, float scale, int32_t zp);
SIMNPU_INTERNAL void simnpu__requant_copy (const int8_t * in, int8_t * out,
    size_t n, int32_t zp_in, int32_t zp_out, int64_t mult);
SIMNPU_INTERNAL void simnpu__copy_box (const int8_t * src,
    const int64_t * src_dims, const int64_t * src_begin, int8_t * dst,
    const int64_t * dst_dims, const int64_t * dst_begin,
    const int64_t * size, int32_t zp_in, int32_t zp_out, int64_t mult);
SIMNPU_INTERNAL void simnpu__transpose (const int8_t * in,
    const int64_t * in_strides, const int64_t * out_dims, int8_t * out);
/* for tests: the memory-bound kernels (all but conv2d) run their portable
 * loops even where AVX2 is available */
SIMNPU_INTERNAL void simnpu__kernels_disable_avx2 (bool disable);

G_END_DECLS
#endif /* __SIMNPU_KERNELS_H__ */
