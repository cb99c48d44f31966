/* gst-ax
 * Copyright (C) 2026 gst-ax developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

/* Depthwise conv2d (groups == ic == oc) for AVX-512 VNNI: the fast kernel
 * behind the seam in kernels-private.h where the CPU has it.
 *
 * Channels go along the lanes, 64 at a time (a block of four vectors of
 * 16 int32 accumulators). vpdpbusd adds four byte products to a lane: the
 * four taps of a channel are four kernel rows at the same column (a quad
 * of rows; a window of kh rows takes ceil (kh / 4) quads, rows past kh
 * with zero weights; at stride 1 one build serves two output rows when
 * their kh + 1 rows fit the same quads). For each output row the kernel builds, per block
 * and quad, the interleaved row of the quad's four input rows (sign bits
 * flipped, x + 128, positions outside the input holding the input zero
 * point as the portable kernel's column buffer does), so that tap column
 * kx of output ox is four 64-byte loads at column ox * sw + kx * dw. As in
 * kernels-dense-vnni.c the pack stores -128 * sum (w) per channel, which
 * makes the int32 sums the portable kernel's for every value.
 *
 * The byte and word unpacks that interleave work within 128-bit lanes:
 * vector v of a block holds, in lane 4 * L + j, channel 16 * L + 4 * v + j.
 * Weights, bias and scales are laid out in that order, and the
 * saturating packs of the requantised vectors (exact: the values are in
 * int8's range) put the channels back in order. The requantisation is
 * requant_one's single-precision sequence (as kernels-dense-vnni.c's). */

#include "kernels-private.h"

#ifdef SIMNPU_VNNI

#include <immintrin.h>
#include <string.h>

/* channels per block, int32 lanes per vector, vectors per block */
#define BLOCK 64
#define LANES 16
#define NV 4
/* kernel rows per vpdpbusd lane */
#define QUAD 4
/* bytes of one interleaved column of a block: NV vectors */
#define COL_BYTES (NV * 64)
/* a last block of at most this many channels runs on 256-bit vectors,
 * half the work */
#define HALF_BLOCK 32
#define HALF_LANES 8
/* the largest window and steps taken */
#define MAX_K 16
#define MAX_QUADS (MAX_K / QUAD)
#define MAX_STEP 8
/* the largest scratch for the interleaved rows (bytes): a 1x1 depthwise
 * conv that the graph runs as one long row stays with the AVX2 kernel */
#define MAX_ROWS_BYTES (4 * 1024 * 1024)
#define SIGN_FLIP 0x80

#define ALIGN_UP(n, a) (((n) + (a) - 1) / (a) * (a))

typedef struct
{
  int blocks;                   /* of BLOCK channels */
  bool half;                    /* the last block is HALF_BLOCK channels */
  int quads;                    /* quads of kernel rows */
  /* output rows per build of the interleaved rows: 2 when the rows of
   * two output rows (kh + 1 at stride 1) take no more quads than one's,
   * each then with its own weights (the window's rows shifted by one
   * lane) */
  int sets;
  int nj;                       /* padded input columns an output row reads */
  size_t w_bytes;               /* packed weights before the corrections */
} DwVnniShape;

static void
dwv_shape (const simnpu__conv_params * p, DwVnniShape * s)
{
  s->blocks = (p->oc + BLOCK - 1) / BLOCK;
  s->quads = (p->kh + QUAD - 1) / QUAD;
  s->sets = p->sh == 1 && p->dh == 1 && p->kh % QUAD != 0 ? 2 : 1;
  s->nj = (p->ow - 1) * p->sw + (p->kw - 1) * p->dw + 1;
  s->half = p->oc % BLOCK != 0 && p->oc % BLOCK <= HALF_BLOCK;
  s->w_bytes = ((size_t) s->blocks * COL_BYTES - (s->half ? COL_BYTES / 2 :
          0)) * s->quads * p->kw * s->sets;
}

static bool
dwv_takes (const simnpu__conv_params * p)
{
  DwVnniShape s;

  if (p->groups < 1 || p->groups != p->ic || p->groups != p->oc)
    return false;
  if (p->kh < 1 || p->kw < 1 || p->kh > MAX_K || p->kw > MAX_K)
    return false;
  if (p->sh < 1 || p->sw < 1 || p->sh > MAX_STEP || p->sw > MAX_STEP)
    return false;
  if (p->dh < 1 || p->dw < 1 || p->dh > MAX_STEP || p->dw > MAX_STEP)
    return false;
  if (p->oh < 1 || p->ow < 1 || p->n < 1 || p->pt < 0 || p->pl < 0)
    return false;
  dwv_shape (p, &s);
  return (size_t) s.quads * s.nj * COL_BYTES <= MAX_ROWS_BYTES;
}

/* the channel of lane 4 * L + j of vector v of a block */
static int
lane_channel (int v, int lane)
{
  return LANES * (lane / 4) + 4 * v + lane % 4;
}

size_t
simnpu__dw_vnni_packed_bytes (const simnpu__conv_params * p)
{
  DwVnniShape s;

  if (!dwv_takes (p))
    return 0;
  dwv_shape (p, &s);
  return s.w_bytes + (size_t) s.blocks * BLOCK * sizeof (int32_t);
}

/* Per block, quad and kernel column, the NV vectors of the block's
 * channels in lane order, each lane the quad's four rows' weights (zero
 * past kh and past oc); then -128 * sum (w) per channel, in order. */
void
simnpu__dw_vnni_pack (const simnpu__conv_params * p, const int8_t * weights,
    void *packed)
{
  DwVnniShape s;
  int8_t *dst = packed;
  int32_t *corr;
  const int taps = p->kh * p->kw;
  int b, set, q, kx, v, lane, r, c, t;

  if (!dwv_takes (p))
    return;
  dwv_shape (p, &s);
  for (b = 0; b < s.blocks; b++)
    for (set = 0; set < s.sets; set++)
      for (q = 0; q < s.quads; q++)
        for (kx = 0; kx < p->kw; kx++)
          for (v = 0; v < NV; v++)
            for (lane = 0; lane < (s.half && b == s.blocks - 1 ? HALF_LANES :
                    LANES); lane++)
              for (r = 0; r < QUAD; r++) {
                int ky = q * QUAD + r - set;
                c = b * BLOCK + lane_channel (v, lane);
                *dst++ = c < p->oc && ky >= 0 && ky < p->kh ?
                    weights[(size_t) c * taps + ky * p->kw + kx] : 0;
              }
  corr = (int32_t *) (void *) ((int8_t *) packed + s.w_bytes);
  for (c = 0; c < s.blocks * BLOCK; c++) {
    int32_t sum = 0;
    for (t = 0; c < p->oc && t < taps; t++)
      sum += weights[(size_t) c * taps + t];
    corr[c] = -SIGN_FLIP * sum;
  }
}

/* scratch: the interleaved rows of one block, then bias (with the
 * corrections) and scales of all blocks in lane order; aligned inside */
static size_t
dwv_scratch_layout (const DwVnniShape * s, size_t *at_bias, size_t *at_scale)
{
  *at_bias = (size_t) s->quads * s->nj * COL_BYTES;
  *at_scale = *at_bias + (size_t) s->blocks * BLOCK * sizeof (int32_t);
  return *at_scale + (size_t) s->blocks * BLOCK * sizeof (float) +
      SIMNPU_KERNEL_ALIGN;
}

size_t
simnpu__dw_vnni_scratch_bytes (const simnpu__conv_params * p)
{
  DwVnniShape s;
  size_t at_bias, at_scale;

  if (!dwv_takes (p))
    return 0;
  dwv_shape (p, &s);
  return dwv_scratch_layout (&s, &at_bias, &at_scale);
}

/* The interleaved row of one quad for one block: column j (padded
 * coordinates, input column j - pl) from the quad's rows (NULL: outside
 * the input, or past the window); mask: the block's channels below oc. */
SIMNPU_VNNI_TARGET static void
build_quad_row (const simnpu__conv_params * p, const int8_t * const *rows,
    int nj, __mmask64 mask, uint8_t * dst)
{
  const __m512i flip = _mm512_set1_epi8 ((char) SIGN_FLIP);
  const __m512i pad = _mm512_xor_si512 (_mm512_set1_epi8 ((char) p->in_zp),
      flip);
  const size_t ic = (size_t) p->ic;
  int j;

  for (j = 0; j < nj; j++) {
    const int ix = j - p->pl;
    const bool inside = ix >= 0 && ix < p->iw;
    __m512i x[QUAD], ab_lo, ab_hi, cd_lo, cd_hi;
    int r;
    for (r = 0; r < QUAD; r++)
      x[r] = inside && rows[r] != NULL ? _mm512_xor_si512
          (_mm512_maskz_loadu_epi8 (mask, rows[r] + (size_t) ix * ic), flip)
          : pad;
    ab_lo = _mm512_unpacklo_epi8 (x[0], x[1]);
    ab_hi = _mm512_unpackhi_epi8 (x[0], x[1]);
    cd_lo = _mm512_unpacklo_epi8 (x[2], x[3]);
    cd_hi = _mm512_unpackhi_epi8 (x[2], x[3]);
    _mm512_store_si512 ((void *) dst, _mm512_unpacklo_epi16 (ab_lo, cd_lo));
    _mm512_store_si512 ((void *) (dst + 64),
        _mm512_unpackhi_epi16 (ab_lo, cd_lo));
    _mm512_store_si512 ((void *) (dst + 128),
        _mm512_unpacklo_epi16 (ab_hi, cd_hi));
    _mm512_store_si512 ((void *) (dst + 192),
        _mm512_unpackhi_epi16 (ab_hi, cd_hi));
    dst += COL_BYTES;
  }
}

typedef struct
{
  const int32_t *bias;          /* the block's, lane order */
  const float *scale;           /* the block's, lane order */
  int32_t lo, zp;
  float hi_f;
} DwVnniOut;

/* requant_one on a vector, to int32 with the zero point (see
 * kernels-dense-vnni.c's vnni_store) */
SIMNPU_VNNI_TARGET static inline __m512i
dwv_requant (const DwVnniOut * d, __m512i acc, __m512 sc)
{
  __m512 f = _mm512_mul_ps (_mm512_cvtepi32_ps (acc), sc);
  __m512i q = _mm512_cvt_roundps_epi32 (_mm512_min_ps (_mm512_set1_ps
          (d->hi_f), f), _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);

  return _mm512_add_epi32 (_mm512_max_epi32 (q, _mm512_set1_epi32 (d->lo)),
      _mm512_set1_epi32 (d->zp));
}

/* One output row of one block: quads interleaved rows at qrows (nj
 * columns each), weights w (quads x kw x NV vectors); out: the block's
 * first channel of output pixel 0, pixels oc apart. */
SIMNPU_VNNI_TARGET static void
dwv_row (const simnpu__conv_params * p, const uint8_t * qrows, size_t nj,
    int quads, const int8_t * w, const DwVnniOut * d, __mmask64 mask,
    int8_t * out)
{
  const size_t oc = (size_t) p->oc;
  const size_t step = (size_t) p->sw * COL_BYTES;
  const size_t kstep = (size_t) p->dw * COL_BYTES;
  const __m512 s0 = _mm512_load_ps (d->scale);
  const __m512 s1 = _mm512_load_ps (d->scale + LANES);
  const __m512 s2 = _mm512_load_ps (d->scale + 2 * LANES);
  const __m512 s3 = _mm512_load_ps (d->scale + 3 * LANES);
  const bool full = mask == ~(__mmask64) 0;
  int ox, q, kx;

  for (ox = 0; ox < p->ow; ox++) {
    __m512i c0 = _mm512_load_si512 ((const void *) d->bias);
    __m512i c1 = _mm512_load_si512 ((const void *) (d->bias + LANES));
    __m512i c2 = _mm512_load_si512 ((const void *) (d->bias + 2 * LANES));
    __m512i c3 = _mm512_load_si512 ((const void *) (d->bias + 3 * LANES));
    const int8_t *wk = w;
    __m512i lo, hi, v;
    for (q = 0; q < quads; q++) {
      const uint8_t *a = qrows + (size_t) q * nj * COL_BYTES + ox * step;
      for (kx = 0; kx < p->kw; kx++, a += kstep, wk += COL_BYTES) {
        c0 = _mm512_dpbusd_epi32 (c0, _mm512_load_si512 ((const void *) a),
            _mm512_load_si512 ((const void *) wk));
        c1 = _mm512_dpbusd_epi32 (c1, _mm512_load_si512 ((const void *)
                (a + 64)), _mm512_load_si512 ((const void *) (wk + 64)));
        c2 = _mm512_dpbusd_epi32 (c2, _mm512_load_si512 ((const void *)
                (a + 128)), _mm512_load_si512 ((const void *) (wk + 128)));
        c3 = _mm512_dpbusd_epi32 (c3, _mm512_load_si512 ((const void *)
                (a + 192)), _mm512_load_si512 ((const void *) (wk + 192)));
      }
    }
    lo = _mm512_packs_epi32 (dwv_requant (d, c0, s0), dwv_requant (d, c1, s1));
    hi = _mm512_packs_epi32 (dwv_requant (d, c2, s2), dwv_requant (d, c3, s3));
    v = _mm512_packs_epi16 (lo, hi);
    if (full)
      _mm512_storeu_si512 ((void *) (out + (size_t) ox * oc), v);
    else
      _mm512_mask_storeu_epi8 (out + (size_t) ox * oc, mask, v);
  }
}

/* build_quad_row for a half block (256-bit vectors, HALF_BLOCK
 * channels, columns COL_BYTES / 2 apart) */
SIMNPU_VNNI_TARGET static void
build_quad_row_half (const simnpu__conv_params * p,
    const int8_t * const *rows, int nj, __mmask32 mask, uint8_t * dst)
{
  const __m256i flip = _mm256_set1_epi8 ((char) SIGN_FLIP);
  const __m256i pad = _mm256_xor_si256 (_mm256_set1_epi8 ((char) p->in_zp),
      flip);
  const size_t ic = (size_t) p->ic;
  int j;

  for (j = 0; j < nj; j++) {
    const int ix = j - p->pl;
    const bool inside = ix >= 0 && ix < p->iw;
    __m256i x[QUAD], ab_lo, ab_hi, cd_lo, cd_hi;
    int r;
    for (r = 0; r < QUAD; r++)
      x[r] = inside && rows[r] != NULL ? _mm256_xor_si256
          (_mm256_maskz_loadu_epi8 (mask, rows[r] + (size_t) ix * ic), flip)
          : pad;
    ab_lo = _mm256_unpacklo_epi8 (x[0], x[1]);
    ab_hi = _mm256_unpackhi_epi8 (x[0], x[1]);
    cd_lo = _mm256_unpacklo_epi8 (x[2], x[3]);
    cd_hi = _mm256_unpackhi_epi8 (x[2], x[3]);
    _mm256_store_si256 ((__m256i *) (void *) dst,
        _mm256_unpacklo_epi16 (ab_lo, cd_lo));
    _mm256_store_si256 ((__m256i *) (void *) (dst + 32),
        _mm256_unpackhi_epi16 (ab_lo, cd_lo));
    _mm256_store_si256 ((__m256i *) (void *) (dst + 64),
        _mm256_unpacklo_epi16 (ab_hi, cd_hi));
    _mm256_store_si256 ((__m256i *) (void *) (dst + 96),
        _mm256_unpackhi_epi16 (ab_hi, cd_hi));
    dst += COL_BYTES / 2;
  }
}

/* dwv_requant on 256-bit vectors */
SIMNPU_VNNI_TARGET static inline __m256i
dwv_requant_half (const DwVnniOut * d, __m256i acc, __m256 sc)
{
  __m256 f = _mm256_mul_ps (_mm256_cvtepi32_ps (acc), sc);
  __m256i q = _mm256_cvtps_epi32 (_mm256_min_ps (_mm256_set1_ps (d->hi_f),
          f));

  return _mm256_add_epi32 (_mm256_max_epi32 (q, _mm256_set1_epi32 (d->lo)),
      _mm256_set1_epi32 (d->zp));
}

/* dwv_row for a half block */
SIMNPU_VNNI_TARGET static void
dwv_row_half (const simnpu__conv_params * p, const uint8_t * qrows,
    size_t nj, int quads, const int8_t * w, const DwVnniOut * d,
    __mmask32 mask, int8_t * out)
{
  const size_t oc = (size_t) p->oc, col = COL_BYTES / 2;
  const size_t step = (size_t) p->sw * col, kstep = (size_t) p->dw * col;
  const __m256 s0 = _mm256_load_ps (d->scale);
  const __m256 s1 = _mm256_load_ps (d->scale + LANES);
  const __m256 s2 = _mm256_load_ps (d->scale + 2 * LANES);
  const __m256 s3 = _mm256_load_ps (d->scale + 3 * LANES);
  int ox, q, kx;

  for (ox = 0; ox < p->ow; ox++) {
    __m256i c0 = _mm256_load_si256 ((const __m256i *) (const void *) d->bias);
    __m256i c1 = _mm256_load_si256 ((const __m256i *) (const void *)
        (d->bias + LANES));
    __m256i c2 = _mm256_load_si256 ((const __m256i *) (const void *)
        (d->bias + 2 * LANES));
    __m256i c3 = _mm256_load_si256 ((const __m256i *) (const void *)
        (d->bias + 3 * LANES));
    const int8_t *wk = w;
    __m256i lo, hi;
    for (q = 0; q < quads; q++) {
      const uint8_t *a = qrows + (size_t) q * nj * col + ox * step;
      for (kx = 0; kx < p->kw; kx++, a += kstep, wk += col) {
#define HALF_MAC(C, OFF) \
        C = _mm256_dpbusd_epi32 (C, _mm256_load_si256 ((const __m256i *) \
                (const void *) (a + (OFF))), _mm256_load_si256 \
            ((const __m256i *) (const void *) (wk + (OFF))));
        HALF_MAC (c0, 0);
        HALF_MAC (c1, 32);
        HALF_MAC (c2, 64);
        HALF_MAC (c3, 96);
#undef HALF_MAC
      }
    }
    lo = _mm256_packs_epi32 (dwv_requant_half (d, c0, s0),
        dwv_requant_half (d, c1, s1));
    hi = _mm256_packs_epi32 (dwv_requant_half (d, c2, s2),
        dwv_requant_half (d, c3, s3));
    _mm256_mask_storeu_epi8 (out + (size_t) ox * oc, mask,
        _mm256_packs_epi16 (lo, hi));
  }
}

void
simnpu__dw_vnni_run (const simnpu__conv_params * p, const int8_t * input,
    const void *packed, const int32_t * bias, const float *scales,
    int8_t * output, int8_t * scratch)
{
  DwVnniShape s;
  DwVnniOut d;
  size_t at_bias, at_scale;
  uint8_t *base = (uint8_t *) ALIGN_UP ((uintptr_t) scratch,
      SIMNPU_KERNEL_ALIGN);
  int32_t *pbias;
  float *pscale;
  const int32_t *corr;
  const size_t in_image = (size_t) p->ih * p->iw * p->ic;
  const size_t out_image = (size_t) p->oh * p->ow * p->oc;
  int b, blk, oy, q, r, v, lane;

  dwv_shape (p, &s);
  dwv_scratch_layout (&s, &at_bias, &at_scale);
  corr = (const int32_t *) (const void *) ((const int8_t *) packed + s.w_bytes);
  pbias = (int32_t *) (void *) (base + at_bias);
  pscale = (float *) (void *) (base + at_scale);
  for (blk = 0; blk < s.blocks; blk++)
    for (v = 0; v < NV; v++)
      for (lane = 0; lane < LANES; lane++) {
        int c = blk * BLOCK + lane_channel (v, lane);
        size_t at = (size_t) blk * BLOCK + (size_t) v * LANES + lane;
        bool in = c < p->oc;
        /* int32 wraps as the portable kernel's sum does */
        pbias[at] = in ? (int32_t) ((uint32_t) bias[c] + (uint32_t) corr[c])
            : 0;
        pscale[at] = in ? scales[c] : 0.0f;
      }
  d.lo = p->act_min - p->out_zp;
  d.zp = p->out_zp;
  d.hi_f = (float) (p->act_max - p->out_zp);

  for (b = 0; b < p->n; b++) {
    const int8_t *in = input + (size_t) b * in_image;
    int8_t *out = output + (size_t) b * out_image;
    for (oy = 0; oy < p->oh; oy += s.sets)
      for (blk = 0; blk < s.blocks; blk++) {
        const int rest = p->oc - blk * BLOCK;
        const __mmask64 mask = rest >= BLOCK ? ~(__mmask64) 0 :
            (((__mmask64) 1 << rest) - 1);
        const bool half = s.half && blk == s.blocks - 1;
        const size_t set_bytes = (size_t) s.quads * p->kw *
            (half ? COL_BYTES / 2 : COL_BYTES);
        const int8_t *w = (const int8_t *) packed +
            (size_t) blk * s.sets * s.quads * p->kw * COL_BYTES;
        int set;
        for (q = 0; q < s.quads; q++) {
          const int8_t *rows[QUAD];
          for (r = 0; r < QUAD; r++) {
            int ky = q * QUAD + r;
            int iy = oy * p->sh - p->pt + ky * p->dh;
            rows[r] = ky < p->kh + s.sets - 1 && iy >= 0 && iy < p->ih ?
                in + (size_t) iy *p->iw * p->ic + (size_t) blk *BLOCK : NULL;
          }
          if (half)
            build_quad_row_half (p, rows, s.nj, (__mmask32) mask,
                base + (size_t) q * s.nj * (COL_BYTES / 2));
          else
            build_quad_row (p, rows, s.nj, mask,
                base + (size_t) q * s.nj * COL_BYTES);
        }
        d.bias = pbias + (size_t) blk *BLOCK;
        d.scale = pscale + (size_t) blk *BLOCK;
        for (set = 0; set < s.sets && oy + set < p->oh; set++) {
          int8_t *dst = out + (size_t) (oy + set) * p->ow * p->oc +
              (size_t) blk * BLOCK;
          if (half)
            dwv_row_half (p, base, (size_t) s.nj, s.quads,
                w + set * set_bytes, &d, (__mmask32) mask, dst);
          else
            dwv_row (p, base, (size_t) s.nj, s.quads, w + set * set_bytes,
                &d, mask, dst);
        }
      }
  }
}

#endif /* SIMNPU_VNNI */
