/* gst-ax
 * Copyright (C) 2026 gst-ax developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

/* Dense and pointwise conv2d for AVX-512 VNNI (kernels-dense-vnni-impl.h
 * at 512 bits): 16 channels per vector, 32 registers, panels of up to 64
 * channels; a first layer's tail quads built by an AVX-512 VBMI byte
 * permutation, and 16-channel outputs stored four pixels at a time. */

#include "kernels-private.h"

#ifdef SIMNPU_VNNI

#include <immintrin.h>
#include <string.h>

#define VNNI_TARGET SIMNPU_VNNI_TARGET
#define VNNI_NAME(x) simnpu__dense_vnni_##x
/* int32 lanes, output channels per vector */
#define LANES 16
/* bytes of a vector */
#define VEC_BYTES 64
/* vectors of channels in the widest panel */
#define MAX_NV 4
/* pixels per block of the widest panel's micro-kernel: 24 accumulators,
 * 4 weight vectors and a broadcast in the 32 registers; narrower panels
 * take more pixels (block_rows) */
#define MAX_ROWS 16
/* the widest kernel row a tail permutation takes */
#define TAIL_MAX_RUN VEC_BYTES
/* slack after each segment for the tail's loads */
#define TAIL_SLACK (2 * VEC_BYTES)
#define VNNI_BLOCK_FUNCS \
  BLOCK_FUNC (4, 6) BLOCK_FUNC (3, 8) BLOCK_FUNC (2, 12) BLOCK_FUNC (1, 16)
#define VNNI_BLOCK_TABLE \
  { NULL, vnni_block_1, vnni_block_2, vnni_block_3, vnni_block_4 }
#define VNNI_BLOCK_ROWS { 0, 16, 12, 8, 6 }

typedef __m512i vnni_vec;

VNNI_TARGET static inline vnni_vec
vnni_load (const void *p)
{
  return _mm512_load_si512 (p);
}

VNNI_TARGET static inline vnni_vec
vnni_set1 (int32_t t)
{
  return _mm512_set1_epi32 (t);
}

VNNI_TARGET static inline vnni_vec
vnni_dpbusd (vnni_vec acc, vnni_vec a, vnni_vec b)
{
  return _mm512_dpbusd_epi32 (acc, a, b);
}

/* the tail's permutation: see tail_perm */
typedef struct
{
  uint8_t idx01[VEC_BYTES], idx2[VEC_BYTES];
  uint64_t row2;
  size_t per;
} TailPerm;

#include "kernels-dense-vnni-impl.h"

/* dst[0..n) = src[0..n) with the sign bits flipped; masked loads read
 * nothing past src + n */
VNNI_TARGET static void
flip_copy (uint8_t * dst, const int8_t * src, size_t n)
{
  const __m512i flip = _mm512_set1_epi8 ((char) SIGN_FLIP);
  size_t j = 0;

  for (; j + 64 <= n; j += 64)
    _mm512_storeu_si512 ((void *) (dst + j),
        _mm512_xor_si512 (_mm512_loadu_si512 ((const void *) (src + j)), flip));
  if (j < n) {
    __mmask64 m = _bzhi_u64 (~(uint64_t) 0, (unsigned) (n - j));
    _mm512_mask_storeu_epi8 (dst + j, m, _mm512_xor_si512
        (_mm512_maskz_loadu_epi8 (m, src + j), flip));
  }
}

static bool
vnni_tail_ok (void)
{
  return simnpu__kernels_cpu_has_vbmi ();
}

/* The tail's permutation (TailPerm): per pixel (per of them from each load) the
 * quad of the kernel rows' last rem taps, row ky's from the ky-th
 * table (rows 0 and 1 in one permutation, bit 6 of the index picking row
 * 1; row 2 merged in by a second one, its bytes in row2) */
static void
tail_perm (const simnpu__conv_params * p, const VnniShape * s, TailPerm * tp)
{
  const size_t step = (size_t) p->sw * p->ic, run = (size_t) p->kw * p->ic;
  const size_t rem = run % QUAD, at = s->seg4 * QUAD;
  size_t o;

  tp->per = MIN ((VEC_BYTES - run) / step + 1, VEC_BYTES / QUAD);
  tp->row2 = 0;
  for (o = 0; o < VEC_BYTES; o++) {
    size_t px = o / QUAD, t = o % QUAD, ky = t / rem;
    size_t src = px * step + at + t % rem;
    bool used = px < tp->per && ky < (size_t) p->kh;
    tp->idx01[o] = (uint8_t) (used && ky == 1 ? VEC_BYTES + src : used
        && ky == 0 ? src : 0);
    tp->idx2[o] = (uint8_t) (used && ky == 2 ? src : 0);
    if (used && ky == 2)
      tp->row2 |= (uint64_t) 1 << o;
  }
}

/* The tail quads of pixels [0, count) and of the rest of a last block
 * from the segments (already sign-flipped and padded), per pixels a
 * permutation; the loads read up to TAIL_SLACK past a segment's bytes
 * into its slack, bytes that only the rows past count take. */
SIMNPU_VBMI_TARGET static void
build_tail (const simnpu__conv_params * p, const VnniShape * s,
    const TailPerm * tp, const uint8_t * const *seg, size_t count,
    uint8_t * tail)
{
  const size_t step = (size_t) p->sw * p->ic;
  const __m512i i01 = _mm512_loadu_si512 ((const void *) tp->idx01);
  const __m512i i2 = _mm512_loadu_si512 ((const void *) tp->idx2);
  size_t r0;

  (void) s;
  for (r0 = 0; r0 < count + MAX_ROWS - 1; r0 += tp->per) {
    __m512i v = _mm512_permutex2var_epi8 (_mm512_loadu_si512 ((const void *)
            (seg[0] + r0 * step)), i01, _mm512_loadu_si512 ((const void *)
            (seg[1] + r0 * step)));
    if (p->kh > 2)
      v = _mm512_mask_permutexvar_epi8 (v, tp->row2, i2,
          _mm512_loadu_si512 ((const void *) (seg[2] + r0 * step)));
    _mm512_storeu_si512 ((void *) (tail + r0 * QUAD), v);
  }
}

/* requant_one on 16 lanes, stored for the channels below oc: x clamped
 * to [lo, hi] and rounded is x rounded (to nearest even, as the magic
 * number does) and clamped, lo and hi being integers; min (hi, x) keeps a
 * NaN x, which converts to INT_MIN and clamps to lo, as requant_one's NaN
 * does. In [act_min, act_max] after the zero point, so the truncating
 * narrowing is exact. */
VNNI_TARGET static inline void
vnni_store (const VnniOut * d, __m512i acc, const float *scale, size_t o,
    int8_t * dst)
{
  __m512 f = _mm512_mul_ps (_mm512_cvtepi32_ps (acc),
      _mm512_load_ps (scale));
  __m512i q = _mm512_cvt_roundps_epi32 (_mm512_min_ps (_mm512_set1_ps
          (d->hi_f), f), _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
  __m128i b;

  q = _mm512_add_epi32 (_mm512_max_epi32 (q, _mm512_set1_epi32 (d->lo)),
      _mm512_set1_epi32 (d->zp));
  b = _mm512_cvtepi32_epi8 (q);

  if (o + LANES <= (size_t) d->oc)
    _mm_storeu_si128 ((__m128i *) (void *) dst, b);
  else
    _mm_mask_storeu_epi8 (dst, (__mmask16) _bzhi_u32 (~0u,
            (unsigned) ((size_t) d->oc - o)), b);
}

/* requant_one's rounding on 16 lanes, before the clamp to lo and the
 * zero point: x clamped to hi and rounded */
VNNI_TARGET static inline __m512i
vnni_round (const VnniOut * d, __m512i acc, __m512 sc)
{
  __m512 f = _mm512_mul_ps (_mm512_cvtepi32_ps (acc), sc);

  return _mm512_cvt_roundps_epi32 (_mm512_min_ps (_mm512_set1_ps (d->hi_f),
          f), _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
}

/* Four pixels' 16 channels requantised and stored as 64 bytes, where the
 * output has exactly 16 channels (pixels 16 bytes apart). The rounded
 * values are at most hi (<= 255); a saturating pack to int16 keeps them,
 * except values below -32768, which the clamp to lo (>= -255) raises
 * anyway, so the clamp and the zero point run on int16 lanes, and the
 * results, in [act_min, act_max], pack to int8 exactly. Each 128-bit lane
 * l then holds channels 4l..4l+3 of the four pixels in turn; a dword
 * permutation puts each pixel's 16 channels together. */
VNNI_TARGET static inline void
vnni_store4 (const VnniOut * d, const __m512i * acc, __m512 sc, int8_t * dst)
{
  const __m512i order = _mm512_set_epi32 (15, 11, 7, 3, 14, 10, 6, 2,
      13, 9, 5, 1, 12, 8, 4, 0);
  const __m512i lo = _mm512_set1_epi16 ((short) d->lo);
  const __m512i zp = _mm512_set1_epi16 ((short) d->zp);
  __m512i p01 = _mm512_packs_epi32 (vnni_round (d, acc[0], sc),
      vnni_round (d, acc[1], sc));
  __m512i p23 = _mm512_packs_epi32 (vnni_round (d, acc[2], sc),
      vnni_round (d, acc[3], sc));

  p01 = _mm512_add_epi16 (_mm512_max_epi16 (p01, lo), zp);
  p23 = _mm512_add_epi16 (_mm512_max_epi16 (p23, lo), zp);
  _mm512_storeu_si512 ((void *) dst, _mm512_permutexvar_epi32 (order,
          _mm512_packs_epi16 (p01, p23)));
}

/* four pixels at a time where the output has exactly 16 channels */
VNNI_TARGET static inline bool
vnni_store_block (const VnniOut * d, __m512i (*c)[MAX_NV], int nv, int rows,
    int valid, int8_t * out)
{
  __m512 sc;
  __m512i q[4];
  int r;

  if (nv != 1 || d->oc != LANES || valid != rows || rows % 4 != 0)
    return false;
  sc = _mm512_load_ps (d->scale);
#pragma GCC unroll 16
  for (r = 0; r < rows; r += 4) {
    q[0] = c[r][0];
    q[1] = c[r + 1][0];
    q[2] = c[r + 2][0];
    q[3] = c[r + 3][0];
    vnni_store4 (d, q, sc, out + (size_t) r * LANES);
  }
  return true;
}

#endif /* SIMNPU_VNNI */
