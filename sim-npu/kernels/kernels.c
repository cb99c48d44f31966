/* gst-ax
 * Copyright (C) 2026 gst-ax developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

/* The portable conv2d: a column buffer per output row and group, then
 * multiply-accumulate along the row (four taps a pass, with a
 * hand-written AVX2 form), requantised by requant_one. It is the oracle
 * of the fast kernels behind the seam, and runs the shapes and CPUs they
 * do not take. The arithmetic is defined in kernels-private.h.
 *
 * This file is built at -O3: inner loops are simple and use restrict
 * pointers so that GCC vectorises them. */

#include "kernels-private.h"

#include <math.h>
#include <string.h>

/* taps accumulated per pass over a row (the four-way loop below) */
#define MAC_TAPS 4

/* pixels per pass of a pointwise conv's long row: its columns and
 * accumulators stay in L1/L2 */
#define POINTWISE_CHUNK 2048

#ifdef SIMNPU_MAC_AVX2
#define SHUFFLE_ZERO ((int8_t) 0x80)

/* dst[i] = src[i * step] for 2 <= step <= GATHER_AVX2_MAX_STEP, 16
 * elements from step 16-byte loads at a time: byte shuffles pick each
 * load's elements into place (the others zero) and are or-ed together.
 * Reads no byte past src[(n - 1) * step]: a block runs only when another
 * element follows it. Returns the elements done. */
__attribute__((target ("avx2"), noinline))
     size_t simnpu__gather_avx2 (int8_t * restrict dst,
    const int8_t * restrict src, size_t step, size_t n)
{
  int8_t sel[GATHER_AVX2_MAX_STEP][GATHER_AVX2_STEP];
  __m128i mask[GATHER_AVX2_MAX_STEP];
  size_t v, j, x;

  for (v = 0; v < step; v++) {
    for (j = 0; j < GATHER_AVX2_STEP; j++) {
      size_t at = j * step;
      sel[v][j] = at >= v * GATHER_AVX2_STEP
          && at < (v + 1) * GATHER_AVX2_STEP ?
          (int8_t) (at - v * GATHER_AVX2_STEP) : SHUFFLE_ZERO;
    }
    mask[v] = _mm_loadu_si128 ((const __m128i *) (const void *) sel[v]);
  }
  for (x = 0; x + GATHER_AVX2_STEP < n; x += GATHER_AVX2_STEP) {
    const int8_t *s = src + x * step;
    __m128i acc = _mm_shuffle_epi8 (_mm_loadu_si128 ((const __m128i *)
            (const void *) s), mask[0]);
    for (v = 1; v < step; v++)
      acc = _mm_or_si128 (acc, _mm_shuffle_epi8 (_mm_loadu_si128 ((const
                      __m128i *) (const void *) (s + v * GATHER_AVX2_STEP)),
              mask[v]));
    _mm_storeu_si128 ((__m128i *) (void *) (dst + x), acc);
  }
  return x;
}
#endif

#ifdef __SSE2__
#include <emmintrin.h>
/* pixels per step of interleave4_sse2 */
#define INTERLEAVE_STEP 16

/* The four-channel interleave of interleave_rows in 16-pixel steps: two
 * rounds of byte and word unpacks give out[x][0..3] = r0..r3[x] as 32-bit
 * words q[0..3], four pixels each; with a fifth row (dst_stride 5), each
 * word is followed by that row's byte. Returns the pixels done. */
static inline __attribute__((always_inline))
     int interleave4_sse2 (int8_t * restrict dst, const int8_t * restrict r0,
    const int8_t * restrict r1, const int8_t * restrict r2,
    const int8_t * restrict r3, const int8_t * restrict r4, int ow)
{
  const int n = ow - ow % INTERLEAVE_STEP;
  int x, i, j;

  for (x = 0; x < n; x += INTERLEAVE_STEP) {
    __m128i a0 = _mm_loadu_si128 ((const __m128i *) (const void *) (r0 + x));
    __m128i a1 = _mm_loadu_si128 ((const __m128i *) (const void *) (r1 + x));
    __m128i a2 = _mm_loadu_si128 ((const __m128i *) (const void *) (r2 + x));
    __m128i a3 = _mm_loadu_si128 ((const __m128i *) (const void *) (r3 + x));
    __m128i lo01 = _mm_unpacklo_epi8 (a0, a1), hi01 = _mm_unpackhi_epi8 (a0,
        a1);
    __m128i lo23 = _mm_unpacklo_epi8 (a2, a3), hi23 = _mm_unpackhi_epi8 (a2,
        a3);
    __m128i q[4];
    q[0] = _mm_unpacklo_epi16 (lo01, lo23);
    q[1] = _mm_unpackhi_epi16 (lo01, lo23);
    q[2] = _mm_unpacklo_epi16 (hi01, hi23);
    q[3] = _mm_unpackhi_epi16 (hi01, hi23);
    if (r4 == NULL) {
      for (i = 0; i < 4; i++)
        _mm_storeu_si128 ((__m128i *) (void *) (dst + (size_t) (x + 4 * i)
                * 4), q[i]);
    } else {
      for (i = 0; i < 4; i++)
        for (j = 0; j < 4; j++) {
          int8_t *o = dst + (size_t) (x + 4 * i + j) * 5;
          int32_t word = _mm_cvtsi128_si32 (q[i]);
          memcpy (o, &word, sizeof (word));
          o[4] = r4[x + 4 * i + j];
          q[i] = _mm_srli_si128 (q[i], 4);
        }
    }
  }
  return n;
}
#endif

/* dst[ox * oc + o] = rows[o * ow + ox]: interleaves the per-channel output
 * rows into NHWC, with constant channel counts for the common thin
 * cases. */
static inline __attribute__((always_inline))
     void interleave_rows (int8_t * restrict dst,
    const int8_t * restrict rows, int oc, int ow)
{
  int ox, o;

  switch (oc) {
    case 1:
      memcpy (dst, rows, ow);
      break;
#define INTERLEAVE_CASE(K) \
    case K: \
      for (ox = 0; ox < ow; ox++) \
        for (o = 0; o < K; o++) \
          dst[(size_t) ox * K + o] = rows[(size_t) o * ow + ox]; \
      break;
#ifdef __SSE2__
    case 4:
    case 5:
      ox = interleave4_sse2 (dst, rows, rows + ow, rows + 2 * ow,
          rows + 3 * (size_t) ow, oc == 5 ? rows + 4 * (size_t) ow : NULL, ow);
      for (; ox < ow; ox++)
        for (o = 0; o < oc; o++)
          dst[(size_t) ox * oc + o] = rows[(size_t) o * ow + ox];
      break;
#else
      INTERLEAVE_CASE (4) INTERLEAVE_CASE (5)
#endif
          INTERLEAVE_CASE (2) INTERLEAVE_CASE (3) INTERLEAVE_CASE (8)
#undef INTERLEAVE_CASE
    default:
      for (o = 0; o < oc; o++)
        for (ox = 0; ox < ow; ox++)
          dst[(size_t) ox * oc + o] = rows[(size_t) o * ow + ox];
      break;
  }
}

/* Column buffer of one output row for one group: col[k][ox], k over the
 * kernel window [ky][kx][c]. Padded positions hold the input zero
 * point. */
static inline __attribute__((always_inline))
     void build_columns (const simnpu__conv_params * p,
    const int8_t * restrict in, int oy, int g, int8_t * restrict col)
{
  int icg = p->ic / p->groups;
  int ky, kx, c;
  int8_t pad = (int8_t) p->in_zp;
  const int ow = p->ow;
  const size_t step = (size_t) p->sw * p->ic;

  for (ky = 0; ky < p->kh; ky++) {
    int iy = oy * p->sh - p->pt + ky * p->dh;
    for (kx = 0; kx < p->kw; kx++) {
      int off = kx * p->dw - p->pl;
      /* outputs whose input column ox * sw + off is inside [0, iw) */
      int lo = off >= 0 ? 0 : (-off + p->sw - 1) / p->sw;
      int hi = p->iw - off <= 0 ? 0 : (p->iw - off - 1) / p->sw + 1;
      lo = MIN (lo, ow);
      hi = MIN (MAX (hi, lo), ow);
      for (c = 0; c < icg; c++) {
        int8_t *restrict dst = col + (size_t) ((ky * p->kw + kx) * icg + c)
            * ow;
        if (iy < 0 || iy >= p->ih) {
          memset (dst, pad, ow);
          continue;
        }
        memset (dst, pad, lo);
        if (hi > lo) {
          /* off + lo * sw >= 0 by the choice of lo */
          int64_t ix = (int64_t) off + (int64_t) lo * p->sw;
          const int8_t *restrict src = in + ((size_t) iy * p->iw +
              (size_t) ix) * p->ic + g * icg + c;
          gather_strided (dst + lo, src, step, (size_t) (hi - lo));
        }
        memset (dst + hi, pad, ow - hi);
      }
    }
  }
}

/* Scratch of conv_rows: the column pointers, the column buffer, the
 * accumulators, the output rows of a group and, for one-channel inputs at
 * stride 1, the padded input rows plus one row of padding. */
typedef struct
{
  const int8_t **colptr;
  int8_t *col;
  int32_t *acc;
  int8_t *row;
  int8_t *rows;
  int8_t *padrow;
  size_t span;
} ConvScratch;

#define SCRATCH_ALIGN(n) (((n) + 63) & ~(size_t) 63)

/* Offsets of the scratch parts; returns the scratch size. */
static inline size_t
conv_scratch_offsets (const simnpu__conv_params * p, size_t *span,
    size_t *at_col, size_t *at_acc, size_t *at_row, size_t *at_rows,
    size_t *at_pad)
{
  size_t klen = (size_t) p->kh * p->kw * (p->ic / p->groups);

  *span = SCRATCH_ALIGN ((size_t) p->ow + (size_t) (p->kw - 1) * p->dw);
  *at_col = SCRATCH_ALIGN (klen * sizeof (const int8_t *));
  *at_acc = *at_col + SCRATCH_ALIGN (klen * p->ow);
  *at_row = *at_acc + SCRATCH_ALIGN ((size_t) p->ow * sizeof (int32_t));
  *at_rows = *at_row + SCRATCH_ALIGN ((size_t) p->ow * p->oc);
  *at_pad = *at_rows + (size_t) p->kh * *span;
  return *at_pad + *span;
}

static inline void
conv_scratch_layout (const simnpu__conv_params * p, int8_t * base,
    ConvScratch * s)
{
  size_t at_col, at_acc, at_row, at_rows, at_pad;

  conv_scratch_offsets (p, &s->span, &at_col, &at_acc, &at_row, &at_rows,
      &at_pad);
  s->colptr = (const int8_t **) (void *) base;
  s->col = base + at_col;
  s->acc = (int32_t *) (void *) (base + at_acc);
  s->row = base + at_row;
  s->rows = base + at_rows;
  s->padrow = base + at_pad;
}

static bool
is_depthwise (const simnpu__conv_params * p)
{
  return p->groups > 1 && p->groups == p->ic && p->groups == p->oc;
}

size_t
simnpu__conv2d_scratch_bytes (const simnpu__conv_params * p)
{
  size_t span, at_col, at_acc, at_row, at_rows, at_pad, bytes;

  bytes = conv_scratch_offsets (p, &span, &at_col, &at_acc, &at_row,
      &at_rows, &at_pad);
  if (is_depthwise (p))
    bytes = MAX (bytes, simnpu__dw_scratch_bytes (p));
  else if (p->groups == 1)
    bytes = MAX (bytes, simnpu__dense_scratch_bytes (p));
#ifdef SIMNPU_AVXVNNI
  if (p->groups == 1 && !is_depthwise (p)
      && simnpu__kernels_cpu_has (SIMNPU_KERNELS_AVXVNNI))
    bytes = MAX (bytes, simnpu__dense_avxvnni_scratch_bytes (p));
#endif
#ifdef SIMNPU_VNNI
  if (simnpu__kernels_cpu_has (SIMNPU_KERNELS_AVX512VNNI)) {
    if (is_depthwise (p))
      bytes = MAX (bytes, simnpu__dw_vnni_scratch_bytes (p));
    else if (p->groups == 1)
      bytes = MAX (bytes, simnpu__dense_vnni_scratch_bytes (p));
  }
#endif
  return bytes;
}

/* Packed weights start with a header naming the kernel that packed them
 * (PackHeader, padded to keep the weights aligned): run takes that
 * kernel, whichever path is chosen when it runs. */
typedef enum
{
  PACK_NONE,
  PACK_DENSE_AVX2,
  PACK_DW_AVX2,
  PACK_DENSE_VNNI,
  PACK_DW_VNNI,
  PACK_DENSE_AVXVNNI,
} PackKind;

typedef struct
{
  int32_t kind;
} PackHeader;

#define PACK_HEADER_BYTES SIMNPU_KERNEL_ALIGN
G_STATIC_ASSERT (sizeof (PackHeader) <= PACK_HEADER_BYTES);

/* the kernel path packs p for, and its packed bytes (without header) */
static PackKind
pack_kind (const simnpu__conv_params * p, simnpu__kernels_path path,
    size_t *bytes)
{
  *bytes = 0;
  if (path == SIMNPU_KERNELS_PORTABLE)
    return PACK_NONE;
#ifdef SIMNPU_VNNI
  if (path == SIMNPU_KERNELS_AVX512VNNI) {
    if (is_depthwise (p) && (*bytes = simnpu__dw_vnni_packed_bytes (p)) > 0)
      return PACK_DW_VNNI;
    if (p->groups == 1 && (*bytes = simnpu__dense_vnni_packed_bytes (p)) > 0)
      return PACK_DENSE_VNNI;
  }
#endif
#ifdef SIMNPU_AVXVNNI
  /* AVX-VNNI has a dense kernel; its depthwise convs are AVX2's */
  if (path == SIMNPU_KERNELS_AVXVNNI && p->groups == 1 && !is_depthwise (p)
      && (*bytes = simnpu__dense_avxvnni_packed_bytes (p)) > 0)
    return PACK_DENSE_AVXVNNI;
#endif
  if (is_depthwise (p) && (*bytes = simnpu__dw_packed_bytes (p)) > 0)
    return PACK_DW_AVX2;
  if (p->groups == 1 && (*bytes = simnpu__dense_packed_bytes (p)) > 0)
    return PACK_DENSE_AVX2;
  return PACK_NONE;
}

static simnpu__kernels_path
kind_path (PackKind kind)
{
  switch (kind) {
    case PACK_DENSE_AVX2:
    case PACK_DW_AVX2:
      return SIMNPU_KERNELS_AVX2;
    case PACK_DENSE_AVXVNNI:
      return SIMNPU_KERNELS_AVXVNNI;
    case PACK_DENSE_VNNI:
    case PACK_DW_VNNI:
      return SIMNPU_KERNELS_AVX512VNNI;
    default:
      return SIMNPU_KERNELS_PORTABLE;
  }
}

simnpu__kernels_path
simnpu__kernels_path_of_packing (const simnpu__conv_params * p,
    simnpu__kernels_path path)
{
  size_t bytes;

  return kind_path (pack_kind (p, path, &bytes));
}

size_t
simnpu__conv2d_packed_bytes_for (const simnpu__conv_params * p,
    simnpu__kernels_path path)
{
  size_t bytes;

  if (pack_kind (p, path, &bytes) == PACK_NONE)
    return 0;
  return PACK_HEADER_BYTES + bytes;
}

void
simnpu__conv2d_pack_for (const simnpu__conv_params * p,
    const int8_t * weights, void *packed, simnpu__kernels_path path)
{
  size_t bytes;
  PackKind kind = pack_kind (p, path, &bytes);
  PackHeader h = {.kind = kind };
  void *data;

  if (kind == PACK_NONE)
    return;
  data = (int8_t *) packed + PACK_HEADER_BYTES;
  memcpy (packed, &h, sizeof (h));
  switch (kind) {
    case PACK_DENSE_AVX2:
      simnpu__dense_pack (p, weights, data);
      break;
    case PACK_DW_AVX2:
      simnpu__dw_pack (p, weights, data);
      break;
#ifdef SIMNPU_VNNI
    case PACK_DENSE_VNNI:
      simnpu__dense_vnni_pack (p, weights, data);
      break;
    case PACK_DW_VNNI:
      simnpu__dw_vnni_pack (p, weights, data);
      break;
#endif
#ifdef SIMNPU_AVXVNNI
    case PACK_DENSE_AVXVNNI:
      simnpu__dense_avxvnni_pack (p, weights, data);
      break;
#endif
    default:
      break;
  }
}

size_t
simnpu__conv2d_packed_bytes (const simnpu__conv_params * p)
{
  return simnpu__conv2d_packed_bytes_for (p, simnpu__kernels_packing_path ());
}

void
simnpu__conv2d_pack (const simnpu__conv_params * p, const int8_t * weights,
    void *packed)
{
  simnpu__conv2d_pack_for (p, weights, packed, simnpu__kernels_packing_path ());
}

simnpu__kernels_path
simnpu__conv2d_packed_path (const void *packed)
{
  PackHeader h;

  if (packed == NULL)
    return SIMNPU_KERNELS_PORTABLE;
  memcpy (&h, packed, sizeof (h));
  return kind_path ((PackKind) h.kind);
}

/* One-channel input at stride 1: column (ky, kx) of an output row is the
 * padded input row ky from offset kx * dw, so no column is copied; rows
 * that need no padding are used in place, rows outside the input are the
 * padding row. */
static inline __attribute__((always_inline))
     void point_rows (const simnpu__conv_params * p, const int8_t * in,
    int oy, const ConvScratch * s)
{
  const size_t span = (size_t) p->ow + (size_t) (p->kw - 1) * p->dw;
  const int8_t pad = (int8_t) p->in_zp;
  int ky, kx;

  for (ky = 0; ky < p->kh; ky++) {
    int iy = oy * p->sh - p->pt + ky * p->dh;
    const int8_t *base;
    if (iy < 0 || iy >= p->ih) {
      base = s->padrow;
    } else {
      const int8_t *src = in + (size_t) iy * p->iw;
      if (p->pl == 0 && span <= (size_t) p->iw) {
        base = src;
      } else {
        int8_t *buf = s->rows + (size_t) ky * s->span;
        size_t lo = MIN ((size_t) p->pl, span);
        size_t n = MIN ((size_t) p->iw, span - lo);
        memset (buf, pad, lo);
        memcpy (buf + lo, src, n);
        memset (buf + lo + n, pad, span - lo - n);
        base = buf;
      }
    }
    for (kx = 0; kx < p->kw; kx++)
      s->colptr[ky * p->kw + kx] = base + (size_t) kx *p->dw;
  }
}

#ifdef SIMNPU_MAC_AVX2
/* pixels per step of the AVX2 pass */
#define MAC_AVX2_STEP 16

/* One pass of conv_rows over an output row for the four taps c[], w[]
 * (unused taps with zero weight): the pixels up to a multiple of
 * MAC_AVX2_STEP; returns how many it did, the caller does the rest.
 * first: start from bias b0, else from acc; last: requantise into r,
 * else store into acc. */
__attribute__((target ("avx2"), noinline))
     static int mac_pass_avx2 (const int8_t * const *c, const int32_t * w,
    int live, bool first, bool last, int32_t b0, int32_t * restrict acc,
    int8_t * restrict r, int ow, float scale, int32_t out_zp, float lo_f,
    float hi_f)
{
  const __m256i w01 = _mm256_set1_epi32 ((int32_t) weight_pair (w[0], w[1]));
  const __m256i w23 = _mm256_set1_epi32 ((int32_t) weight_pair (w[2], w[3]));
  const __m256i bias = _mm256_set1_epi32 (b0);
  const __m256i zp = _mm256_set1_epi32 (out_zp);
  const __m256 sc = _mm256_set1_ps (scale);
  const __m256 lo = _mm256_set1_ps (lo_f), hi = _mm256_set1_ps (hi_f);
  const __m256 magic = _mm256_set1_ps (RQ_MAGIC);
  const bool two_pairs = live > 2;
  const int n = ow - ow % MAC_AVX2_STEP;
  int x;

  for (x = 0; x < n; x += MAC_AVX2_STEP) {
    __m128i a = _mm_loadu_si128 ((const __m128i *) (const void *) (c[0] + x));
    __m128i b = _mm_loadu_si128 ((const __m128i *) (const void *) (c[1] + x));
    __m256i s0 = _mm256_madd_epi16 (_mm256_cvtepi8_epi16
        (_mm_unpacklo_epi8 (a, b)), w01);
    __m256i s1 = _mm256_madd_epi16 (_mm256_cvtepi8_epi16
        (_mm_unpackhi_epi8 (a, b)), w01);
    if (two_pairs) {
      a = _mm_loadu_si128 ((const __m128i *) (const void *) (c[2] + x));
      b = _mm_loadu_si128 ((const __m128i *) (const void *) (c[3] + x));
      s0 = _mm256_add_epi32 (s0, _mm256_madd_epi16 (_mm256_cvtepi8_epi16
              (_mm_unpacklo_epi8 (a, b)), w23));
      s1 = _mm256_add_epi32 (s1, _mm256_madd_epi16 (_mm256_cvtepi8_epi16
              (_mm_unpackhi_epi8 (a, b)), w23));
    }
    if (first) {
      s0 = _mm256_add_epi32 (s0, bias);
      s1 = _mm256_add_epi32 (s1, bias);
    } else {
      s0 = _mm256_add_epi32 (s0, _mm256_loadu_si256 ((const __m256i *)
              (const void *) (acc + x)));
      s1 = _mm256_add_epi32 (s1, _mm256_loadu_si256 ((const __m256i *)
              (const void *) (acc + x + MAC_AVX2_STEP / 2)));
    }
    if (last) {
      /* requant_one: max (x, lo) and min (x, hi) take the bound when x is
       * NaN, as its comparisons do */
      __m256 f0 = _mm256_mul_ps (_mm256_cvtepi32_ps (s0), sc);
      __m256 f1 = _mm256_mul_ps (_mm256_cvtepi32_ps (s1), sc);
      __m256i q0, q1, q;
      f0 = _mm256_min_ps (_mm256_max_ps (f0, lo), hi);
      f1 = _mm256_min_ps (_mm256_max_ps (f1, lo), hi);
      f0 = _mm256_sub_ps (_mm256_add_ps (f0, magic), magic);
      f1 = _mm256_sub_ps (_mm256_add_ps (f1, magic), magic);
      q0 = _mm256_add_epi32 (_mm256_cvttps_epi32 (f0), zp);
      q1 = _mm256_add_epi32 (_mm256_cvttps_epi32 (f1), zp);
      /* in [act_min, act_max], so the saturating packs are exact; they
       * work per 128-bit lane, the permutation puts the lanes in order */
      q = _mm256_packs_epi32 (q0, q1);
      q = _mm256_permute4x64_epi64 (q, _MM_SHUFFLE (3, 1, 2, 0));
      _mm_storeu_si128 ((__m128i *) (void *) (r + x),
          _mm_packs_epi16 (_mm256_castsi256_si128 (q),
              _mm256_extracti128_si256 (q, 1)));
    } else {
      _mm256_storeu_si256 ((__m256i *) (void *) (acc + x), s0);
      _mm256_storeu_si256 ((__m256i *) (void *) (acc + x + MAC_AVX2_STEP /
              2), s1);
    }
  }
  return n;
}
#endif

/* bias must already have the input zero point folded in:
 * bias[oc] = b[oc] - in_zp * sum (w[oc]). Computes one output row at a
 * time: a column buffer of the row's receptive fields, then per output
 * channel a multiply-accumulate over the row and its requantisation, loops
 * that run along the row and vectorise. */
static inline __attribute__((always_inline))
     void conv_rows (const simnpu__conv_params * p, const int8_t * input,
    const int8_t * weights, const int32_t * bias, const float *scales,
    int8_t * output, int8_t * scratch)
{
  int icg = p->ic / p->groups;
  int ocg = p->oc / p->groups;
  int klen = p->kh * p->kw * icg;
  ConvScratch s;
  int8_t *col;
  int32_t *restrict acc;
  int8_t *restrict row;
  const int8_t **colptr;
  const bool pointed = p->ic == 1 && p->sw == 1;
  /* locals, so that stores through acc cannot alias the parameters */
  const int ow = p->ow, oc = p->oc, out_zp = p->out_zp;
  const float lo_f = (float) (p->act_min - out_zp);
  const float hi_f = (float) (p->act_max - out_zp);
#ifdef SIMNPU_MAC_AVX2
  const bool use_avx2 = __builtin_cpu_supports ("avx2");
#endif
  int b, oy, ox, g, o, k;

  conv_scratch_layout (p, scratch, &s);
  col = s.col;
  acc = s.acc;
  row = s.row;
  colptr = s.colptr;
  if (pointed)
    memset (s.padrow, (int8_t) p->in_zp, s.span);
  else
    for (k = 0; k < klen; k++)
      colptr[k] = col + (size_t) k *ow;

  for (b = 0; b < p->n; b++) {
    const int8_t *in = input + (size_t) b * p->ih * p->iw * p->ic;
    int8_t *out = output + (size_t) b * p->oh * p->ow * p->oc;
    for (oy = 0; oy < p->oh; oy++) {
      int8_t *restrict dst = out + (size_t) oy * p->ow * p->oc;
      for (g = 0; g < p->groups; g++) {
        if (pointed)
          point_rows (p, in, oy, &s);
        else
          build_columns (p, in, oy, g, col);
        for (o = g * ocg; o < (g + 1) * ocg; o++) {
          const int8_t *w = weights + (size_t) o * klen;
          float scale = scales[o];
          int32_t b0 = bias[o];
          /* one output channel: the row is the output row itself */
          int8_t *restrict r = oc == 1 ? dst :
              row + (size_t) (o - g * ocg) * ow;
          bool first = true;
          /* Zero taps add nothing and are skipped; the others go in fours
           * (padded with zero-weight taps on a valid column), so that acc
           * is touched once per four taps, and the first and last passes
           * fold in the bias and the requantisation: a thin conv is one
           * pass. */
          k = 0;
          do {
            const int8_t *cp[MAC_TAPS];
            int32_t wv[MAC_TAPS];
            int m = 0, live;
            bool last;
            for (; k < klen && m < MAC_TAPS; k++)
              if (w[k] != 0) {
                cp[m] = colptr[k];
                wv[m] = w[k];
                m++;
              }
            live = m;
            for (; m < MAC_TAPS; m++) {
              cp[m] = colptr[0];
              wv[m] = 0;
            }
            last = k >= klen;
            {
              const int8_t *restrict c0 = cp[0], *restrict c1 = cp[1];
              const int8_t *restrict c2 = cp[2], *restrict c3 = cp[3];
              const int32_t w0 = wv[0], w1 = wv[1], w2 = wv[2], w3 = wv[3];
              /* a pass with fewer than four live taps (the end of a row of
               * taps, or a thin conv) loads and multiplies only those */
#define DOT0(x) 0
#define DOT1(x) (w0 * c0[x])
#define DOT2(x) (w0 * c0[x] + w1 * c1[x])
#define DOT3(x) (w0 * c0[x] + w1 * c1[x] + w2 * c2[x])
#define DOT4(x) (w0 * c0[x] + w1 * c1[x] + w2 * c2[x] + w3 * c3[x])
#define MAC_PASS(DOT) \
              if (first && last) \
                for (ox = x0; ox < ow; ox++) \
                  r[ox] = requant_one (b0 + DOT (ox - x0), scale, out_zp, \
                      lo_f, hi_f); \
              else if (first) \
                for (ox = x0; ox < ow; ox++) \
                  acc[ox] = b0 + DOT (ox - x0); \
              else if (last) \
                for (ox = x0; ox < ow; ox++) \
                  r[ox] = requant_one (acc[ox] + DOT (ox - x0), scale, \
                      out_zp, lo_f, hi_f); \
              else \
                for (ox = x0; ox < ow; ox++) \
                  acc[ox] += DOT (ox - x0);
              int x0 = 0;
#ifdef SIMNPU_MAC_AVX2
              if (use_avx2) {
                x0 = mac_pass_avx2 (cp, wv, live, first, last, b0, acc, r,
                    ow, scale, out_zp, lo_f, hi_f);
                c0 += x0;
                c1 += x0;
                c2 += x0;
                c3 += x0;
              }
#endif
              switch (live) {
                case 0:
                  MAC_PASS (DOT0) break;
                case 1:
                  MAC_PASS (DOT1) break;
                case 2:
                  MAC_PASS (DOT2) break;
                case 3:
                  MAC_PASS (DOT3) break;
                default:
                  MAC_PASS (DOT4) break;
              }
#undef MAC_PASS
#undef DOT0
#undef DOT1
#undef DOT2
#undef DOT3
#undef DOT4
            }
            first = false;
          } while (k < klen);
        }
        if (oc == 1)
          continue;
        if (p->groups == 1)
          interleave_rows (dst, row, oc, ow);
        else
          for (o = 0; o < ocg; o++)
            for (ox = 0; ox < ow; ox++)
              dst[(size_t) ox * oc + g * ocg + o] = row[(size_t) o * ow + ox];
      }
    }
  }
}

/* bias must already have the input zero point folded in (see
 * conv_rows). The graph runs a pointwise conv over one long row (ih = oh
 * = 1); that row goes in chunks, so that its working set stays in cache. */
SIMNPU_CLONES void
simnpu__conv2d_portable (const simnpu__conv_params * p, const int8_t * input,
    const int8_t * weights, const int32_t * bias, const float *scales,
    int8_t * output, int8_t * scratch)
{
  if (p->ih == 1 && p->oh == 1 && p->kh == 1 && p->kw == 1 && p->sw == 1
      && p->pl == 0 && p->pt == 0 && p->iw == p->ow
      && p->ow > POINTWISE_CHUNK) {
    simnpu__conv_params c = *p;
    int b, x0;

    c.n = 1;
    for (b = 0; b < p->n; b++)
      for (x0 = 0; x0 < p->ow; x0 += POINTWISE_CHUNK) {
        c.iw = c.ow = MIN (POINTWISE_CHUNK, p->ow - x0);
        conv_rows (&c, input + ((size_t) b * p->iw + x0) * p->ic, weights,
            bias, scales, output + ((size_t) b * p->ow + x0) * p->oc, scratch);
      }
    return;
  }
  conv_rows (p, input, weights, bias, scales, output, scratch);
}

void
simnpu__conv2d (const simnpu__conv_params * p, const int8_t * input,
    const int8_t * weights, const void *packed, const int32_t * bias,
    const float *scales, int8_t * output, int8_t * scratch)
{
  PackHeader h = {.kind = PACK_NONE };
  const void *data;

  /* no offset from NULL: an unpacked layer has no data */
  if (packed != NULL)
    memcpy (&h, packed, sizeof (h));
  data = packed != NULL ? (const int8_t *) packed + PACK_HEADER_BYTES : NULL;
  switch (h.kind) {
    case PACK_DENSE_AVX2:
      simnpu__dense_run (p, input, data, bias, scales, output, scratch);
      break;
    case PACK_DW_AVX2:
      simnpu__dw_run (p, input, data, bias, scales, output, scratch);
      break;
#ifdef SIMNPU_VNNI
    case PACK_DENSE_VNNI:
      simnpu__dense_vnni_run (p, input, data, bias, scales, output, scratch);
      break;
    case PACK_DW_VNNI:
      simnpu__dw_vnni_run (p, input, data, bias, scales, output, scratch);
      break;
#endif
#ifdef SIMNPU_AVXVNNI
    case PACK_DENSE_AVXVNNI:
      simnpu__dense_avxvnni_run (p, input, data, bias, scales, output, scratch);
      break;
#endif
    default:
      simnpu__conv2d_portable (p, input, weights, bias, scales, output,
          scratch);
      return;
  }
  if (G_UNLIKELY (simnpu__kernels_fault_mask != 0)
      && (simnpu__kernels_fault_mask & (1 << kind_path ((PackKind) h.kind))))
    output[0] ^= 1;
}
