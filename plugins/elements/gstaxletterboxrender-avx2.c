/* gst-ax
 * Copyright (C) 2026 gst-ax developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

/* The AVX2 row kernels of axletterbox's pixel engine, bit-exact with the
 * portable ones of gstaxletterboxrender.c, which picks them at run time. */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstaxletterboxrender-private.h"

#include <string.h>

#ifdef HAVE_X86_SIMD
#include <immintrin.h>

/* AVX2 kernels, picked at run time. They work on 128-bit vectors of one
 * pixel's four bytes: Zen 1 splits 256-bit operations in two anyway, and
 * a packed pixel fills one vector without shuffles. No FMA: a fused
 * multiply-add would round differently from the portable kernels. */
#define AVX2_FN __attribute__ ((target ("avx2")))
/* bodies instantiated with constant arguments */
#define INLINE_AVX2_FN \
  __attribute__ ((target ("avx2"), always_inline)) static inline
#define PIXELS_PER_STORE 4
#define PIXELS_PER_YMM 8
#define ZERO_BYTE ((gchar) 0x80)
#define BITS_PER_BYTE 8
#define BYTES_PER_XMM 16
/* 16-byte stores of 12 bytes run 4 bytes (under 2 pixels) on */
#define STORE_SLACK_PIXELS 2

AVX2_FN static inline __m128
load_pixel_f32 (const guint8 * p)
{
  gint32 v;

  memcpy (&v, p, sizeof (v));
  return _mm_cvtepi32_ps (_mm_cvtepu8_epi32 (_mm_cvtsi32_si128 (v)));
}

/* lerp_packed_value on the four bytes of a pixel, as four int32 */
AVX2_FN static inline __m128i
lerp_pixel_avx2 (const guint8 * top, const guint8 * bot, gint p0, gint p1,
    __m128 wy, gfloat wx)
{
  const __m128 t0 = load_pixel_f32 (top + p0), t1 = load_pixel_f32 (top + p1);
  const __m128 a = _mm_add_ps (t0,
      _mm_mul_ps (_mm_sub_ps (load_pixel_f32 (bot + p0), t0), wy));
  const __m128 b = _mm_add_ps (t1,
      _mm_mul_ps (_mm_sub_ps (load_pixel_f32 (bot + p1), t1), wy));
  const __m128 v = _mm_add_ps (a, _mm_mul_ps (_mm_sub_ps (b, a),
          _mm_set1_ps (wx)));

  return _mm_cvttps_epi32 (_mm_add_ps (v, _mm_set1_ps (0.5f)));
}

/* lerp_packed for the first @n columns, four at a time; the caller does
 * the rest with lerp_packed. */
AVX2_FN gint
gst_ax_letterbox_avx2_lerp_packed (guint8 * restrict out,
    const guint8 * restrict top, const guint8 * restrict bot, gfloat wy,
    const gint32 * restrict p0, const gint32 * restrict p1,
    const gfloat * restrict w, const gint off[N_CHANNELS], guint8 flip, gint n)
{
  const __m128 vwy = _mm_set1_ps (wy);
  const __m128i vflip = _mm_set1_epi8 ((gchar) flip);
  gchar order[sizeof (__m128i)];
  __m128i vorder;
  gint x, j, k;

  /* four pixels' bytes to twelve tensor bytes in channel order */
  memset (order, ZERO_BYTE, sizeof (order));
  for (j = 0; j < PIXELS_PER_STORE; j++)
    for (k = 0; k < N_CHANNELS; k++)
      order[N_CHANNELS * j + k] = (gchar) (VECTOR_PIXEL_BYTES * j + off[k]);
  vorder = _mm_loadu_si128 ((const __m128i *) order);

  for (x = 0; x + PIXELS_PER_STORE <= n; x += PIXELS_PER_STORE) {
    const __m128i q0 = lerp_pixel_avx2 (top, bot, p0[x], p1[x], vwy, w[x]);
    const __m128i q1 = lerp_pixel_avx2 (top, bot, p0[x + 1], p1[x + 1], vwy,
        w[x + 1]);
    const __m128i q2 = lerp_pixel_avx2 (top, bot, p0[x + 2], p1[x + 2], vwy,
        w[x + 2]);
    const __m128i q3 = lerp_pixel_avx2 (top, bot, p0[x + 3], p1[x + 3], vwy,
        w[x + 3]);
    /* values are 0..255: the saturating packs only narrow */
    __m128i bytes = _mm_packus_epi16 (_mm_packs_epi32 (q0, q1),
        _mm_packs_epi32 (q2, q3));
    guint8 *o = out + N_CHANNELS * x;
    gint32 tail;

    bytes = _mm_xor_si128 (_mm_shuffle_epi8 (bytes, vorder), vflip);
    _mm_storel_epi64 ((__m128i *) o, bytes);
    tail = _mm_cvtsi128_si32 (_mm_srli_si128 (bytes, sizeof (gint64)));
    memcpy (o + sizeof (gint64), &tail, sizeof (tail));
  }
  return x;
}

/* The affine quantisation (see compute_quantisation) of 32 bytes at a
 * time; the caller does the rest with the LUT. */
AVX2_FN gint
gst_ax_letterbox_avx2_pack_affine (guint8 * restrict out,
    const guint8 * restrict in, gfloat gain, gfloat bias, gint zero_point,
    gboolean s8, gint n)
{
  const __m256 vgain = _mm256_set1_ps (gain);
  const __m256 vbias = _mm256_set1_ps (bias);
  const __m256i vzp = _mm256_set1_epi32 (zero_point);
  gint i, j;

  for (i = 0; i + AFFINE_BLOCK <= n; i += AFFINE_BLOCK) {
    __m256i q[4], w0, w1, bytes;

    for (j = 0; j < 4; j++) {
      const __m256 f = _mm256_cvtepi32_ps (_mm256_cvtepu8_epi32
          (_mm_loadl_epi64 ((const __m128i *) (in + i + PIXELS_PER_YMM * j))));

      /* cvtps2dq rounds half to even, like nearbyintf */
      q[j] = _mm256_add_epi32 (_mm256_cvtps_epi32 (_mm256_add_ps
              (_mm256_mul_ps (f, vgain), vbias)), vzp);
    }
    /* the packs work per 128-bit lane: the permute puts q0 .. q3 back in
     * order */
    w0 = _mm256_packs_epi32 (q[0], q[1]);
    w1 = _mm256_packs_epi32 (q[2], q[3]);
    bytes = s8 ? _mm256_packs_epi16 (w0, w1) : _mm256_packus_epi16 (w0, w1);
    bytes = _mm256_permutevar8x32_epi32 (bytes, _mm256_setr_epi32 (0, 4, 1,
            5, 2, 6, 3, 7));
    _mm256_storeu_si256 ((__m256i *) (out + i), bytes);
  }
  return i;
}

/* Packed RGB with dyadic weights (is_dyadic, or multiples of 1/128 with
 * @bits 7): the float arithmetic of lerp_packed_value is exact there, so
 * it equals the integer, with one = 2^@bits,
 * ((T0 (one - my) + B0 my) (one - mx) + (T1 (one - my) + B1 my) mx +
 * one^2 / 2) >> 2 @bits, done with pmaddubsw (vertical) and pmaddwd
 * (horizontal), two pixels per 256-bit vector. The eight bytes at a
 * pixel hold both horizontal taps (the second is the next pixel, or
 * unused at weight 0); the caller checks that the loads stay in the row
 * (n_vector8) and does the rest with lerp_packed. */
AVX2_FN gint
gst_ax_letterbox_avx2_dyadic_packed (guint8 * restrict out,
    const guint8 * restrict top, const guint8 * restrict bot, gint my,
    gint bits, const gint32 * restrict p0, const gint32 * restrict wx_pair,
    const gint off[N_CHANNELS], gint pstride, guint8 flip, gint n)
{
  const gint one = 1 << bits;
  /* (128, 0) does not fit pmaddubsw's signed bytes; at my = 0 the bottom
   * row is the top row and (64, 64) gives the same sums */
  const gboolean split = my == 0 && one > G_MAXINT8;
  const gint w_top = split ? one / 2 : one - my;
  const gint w_bot = split ? one / 2 : my;
  const __m256i wy = _mm256_set1_epi16 ((gint16) ((w_bot << CHAR_BIT) | w_top));
  const __m256i round = _mm256_set1_epi32 (1 << (2 * bits - 1));
  const __m128i shift = _mm_cvtsi32_si128 (2 * bits);
  const __m128i vflip = _mm_set1_epi8 ((gchar) flip);
  /* pixels x, x + 2, x + 1, x + 3 after the packs, as RGB0 each */
  const __m128i compact = _mm_setr_epi8 (0, 1, 2, 8, 9, 10, 4, 5, 6, 12, 13,
      14, ZERO_BYTE, ZERO_BYTE, ZERO_BYTE, ZERO_BYTE);
  gchar pairs[sizeof (__m128i)];
  __m256i vpairs;
  gint x, k;

  /* per channel: top tap 0, bottom tap 0, top tap 1, bottom tap 1, from
   * eight top then eight bottom bytes */
  memset (pairs, ZERO_BYTE, sizeof (pairs));
  for (k = 0; k < N_CHANNELS; k++) {
    pairs[4 * k] = (gchar) off[k];
    pairs[4 * k + 1] = (gchar) (sizeof (gint64) + off[k]);
    pairs[4 * k + 2] = (gchar) (off[k] + pstride);
    pairs[4 * k + 3] = (gchar) (sizeof (gint64) + off[k] + pstride);
  }
  vpairs = _mm256_broadcastsi128_si256 (_mm_loadu_si128 ((const __m128i *)
          pairs));

  for (x = 0; x + PIXELS_PER_STORE <= n; x += PIXELS_PER_STORE) {
    __m256i v[2];
    __m128i lo, hi, bytes;
    guint8 *o = out + N_CHANNELS * x;
    gint32 tail;
    gint j;

    for (j = 0; j < 2; j++) {
      const gint a = x + 2 * j, b = a + 1;
      const __m128i pa = _mm_unpacklo_epi64 (_mm_loadl_epi64 ((const __m128i
                  *) (top + p0[a])), _mm_loadl_epi64 ((const __m128i *) (bot +
                  p0[a])));
      const __m128i pb = _mm_unpacklo_epi64 (_mm_loadl_epi64 ((const __m128i
                  *) (top + p0[b])), _mm_loadl_epi64 ((const __m128i *) (bot +
                  p0[b])));
      __m256i t = _mm256_inserti128_si256 (_mm256_castsi128_si256 (pa), pb,
          1);

      t = _mm256_maddubs_epi16 (_mm256_shuffle_epi8 (t, vpairs), wy);
      t = _mm256_madd_epi16 (t, _mm256_loadu_si256 ((const __m256i *)
              (wx_pair + PAIRS_PER_VECTOR * a)));
      v[j] = _mm256_sra_epi32 (_mm256_add_epi32 (t, round), shift);
    }
    /* lanes: x, x + 2 | x + 1, x + 3 */
    v[0] = _mm256_packs_epi32 (v[0], v[1]);
    lo = _mm256_castsi256_si128 (v[0]);
    hi = _mm256_extracti128_si256 (v[0], 1);
    bytes = _mm_packus_epi16 (lo, hi);
    bytes = _mm_xor_si128 (_mm_shuffle_epi8 (bytes, compact), vflip);
    _mm_storel_epi64 ((__m128i *) o, bytes);
    tail = _mm_cvtsi128_si32 (_mm_srli_si128 (bytes, sizeof (gint64)));
    memcpy (o + sizeof (gint64), &tail, sizeof (tail));
  }
  return x;
}

/* Horizontal pass from a blended row of one-byte samples (luma, planar
 * chroma): the two taps of a column are adjacent floats, or the second is
 * unused at weight 0, so one 64-bit load fetches both. The row is padded
 * for the last column. */
AVX2_FN gint
gst_ax_letterbox_avx2_lerp_pairs (gfloat * restrict dst,
    const gfloat * restrict row, const gint32 * restrict i0,
    const gfloat * restrict w, gint n)
{
  gint x;

  for (x = 0; x + PIXELS_PER_STORE <= n; x += PIXELS_PER_STORE) {
    const __m128 p01 = _mm_castsi128_ps (_mm_unpacklo_epi64 (_mm_loadl_epi64
            ((const __m128i *) (row + i0[x])), _mm_loadl_epi64 ((const __m128i
                    *) (row + i0[x + 1]))));
    const __m128 p23 = _mm_castsi128_ps (_mm_unpacklo_epi64 (_mm_loadl_epi64
            ((const __m128i *) (row + i0[x + 2])),
            _mm_loadl_epi64 ((const __m128i *) (row + i0[x + 3]))));
    const __m128 a = _mm_shuffle_ps (p01, p23, _MM_SHUFFLE (2, 0, 2, 0));
    const __m128 b = _mm_shuffle_ps (p01, p23, _MM_SHUFFLE (3, 1, 3, 1));

    _mm_storeu_ps (dst + x, _mm_add_ps (a, _mm_mul_ps (_mm_sub_ps (b, a),
                _mm_loadu_ps (w + x))));
  }
  return x;
}

/* lerp_pairs_avx2 over a periodic run (period_lo, period_hi): even and
 * odd columns each take four consecutive samples, with one weight each.
 * Returns the first column not done. */
AVX2_FN gint
gst_ax_letterbox_avx2_lerp_period2 (gfloat * restrict dst,
    const gfloat * restrict row, const gint32 * restrict i0,
    const gfloat * restrict w, gint from, gint run_end)
{
  gint x;

  for (x = from; x + PERIOD_BLOCK - 2 <= run_end; x += PERIOD_BLOCK) {
    const gfloat *e = row + i0[x], *o = row + i0[x + 1];
    const __m128 ea = _mm_loadu_ps (e), eb = _mm_loadu_ps (e + 1);
    const __m128 oa = _mm_loadu_ps (o), ob = _mm_loadu_ps (o + 1);
    const __m128 ev = _mm_add_ps (ea, _mm_mul_ps (_mm_sub_ps (eb, ea),
            _mm_set1_ps (w[x])));
    const __m128 ov = _mm_add_ps (oa, _mm_mul_ps (_mm_sub_ps (ob, oa),
            _mm_set1_ps (w[x + 1])));

    _mm_storeu_ps (dst + x, _mm_unpacklo_ps (ev, ov));
    _mm_storeu_ps (dst + x + PIXELS_PER_STORE, _mm_unpackhi_ps (ev, ov));
  }
  return x;
}

/* Two taps of four interleaved (NV12) columns a sample apart, split into
 * U and V, blended with one weight. */
AVX2_FN static inline void
lerp_uv4 (const gfloat * r, __m128 w, __m128 * u, __m128 * v)
{
  const __m128 a0 = _mm_loadu_ps (r);
  const __m128 a1 = _mm_loadu_ps (r + PIXELS_PER_STORE);
  const __m128 b0 = _mm_loadu_ps (r + UV_STEP);
  const __m128 b1 = _mm_loadu_ps (r + UV_STEP + PIXELS_PER_STORE);
  const __m128 ua = _mm_shuffle_ps (a0, a1, _MM_SHUFFLE (2, 0, 2, 0));
  const __m128 va = _mm_shuffle_ps (a0, a1, _MM_SHUFFLE (3, 1, 3, 1));
  const __m128 ub = _mm_shuffle_ps (b0, b1, _MM_SHUFFLE (2, 0, 2, 0));
  const __m128 vb = _mm_shuffle_ps (b0, b1, _MM_SHUFFLE (3, 1, 3, 1));

  *u = _mm_add_ps (ua, _mm_mul_ps (_mm_sub_ps (ub, ua), w));
  *v = _mm_add_ps (va, _mm_mul_ps (_mm_sub_ps (vb, va), w));
}

/* lerp_period2_avx2 for interleaved chroma (NV12). */
AVX2_FN gint
gst_ax_letterbox_avx2_lerp_uv_period2 (gfloat * restrict du,
    gfloat * restrict dv, const gfloat * restrict row,
    const gint32 * restrict i0, const gfloat * restrict w, gint from,
    gint run_end)
{
  const __m128 we = _mm_set1_ps (w[from]), wo = _mm_set1_ps (w[from + 1]);
  gint x;

  for (x = from; x + PERIOD_BLOCK - 2 <= run_end; x += PERIOD_BLOCK) {
    __m128 ue, ve, uo, vo;

    lerp_uv4 (row + i0[x], we, &ue, &ve);
    lerp_uv4 (row + i0[x + 1], wo, &uo, &vo);
    _mm_storeu_ps (du + x, _mm_unpacklo_ps (ue, uo));
    _mm_storeu_ps (du + x + PIXELS_PER_STORE, _mm_unpackhi_ps (ue, uo));
    _mm_storeu_ps (dv + x, _mm_unpacklo_ps (ve, vo));
    _mm_storeu_ps (dv + x + PIXELS_PER_STORE, _mm_unpackhi_ps (ve, vo));
  }
  return x;
}

/* The same for interleaved chroma (NV12): the four floats at a column's
 * first U tap are U0 V0 U1 V1, both components' taps at once. */
AVX2_FN gint
gst_ax_letterbox_avx2_lerp_uv (gfloat * restrict du, gfloat * restrict dv,
    const gfloat * restrict row, const gint32 * restrict i0,
    const gfloat * restrict w, gint n)
{
  gint x;

  for (x = 0; x + PIXELS_PER_STORE <= n; x += PIXELS_PER_STORE) {
    const __m128 r0 = _mm_loadu_ps (row + i0[x]);
    const __m128 r1 = _mm_loadu_ps (row + i0[x + 1]);
    const __m128 r2 = _mm_loadu_ps (row + i0[x + 2]);
    const __m128 r3 = _mm_loadu_ps (row + i0[x + 3]);
    const __m128 t0 = _mm_unpacklo_ps (r0, r1), t1 = _mm_unpacklo_ps (r2, r3);
    const __m128 t2 = _mm_unpackhi_ps (r0, r1), t3 = _mm_unpackhi_ps (r2, r3);
    const __m128 u0 = _mm_movelh_ps (t0, t1), v0 = _mm_movehl_ps (t1, t0);
    const __m128 u1 = _mm_movelh_ps (t2, t3), v1 = _mm_movehl_ps (t3, t2);
    const __m128 vw = _mm_loadu_ps (w + x);

    _mm_storeu_ps (du + x, _mm_add_ps (u0, _mm_mul_ps (_mm_sub_ps (u1, u0),
                vw)));
    _mm_storeu_ps (dv + x, _mm_add_ps (v0, _mm_mul_ps (_mm_sub_ps (v1, v0),
                vw)));
  }
  return x;
}


/* One channel of combine_yuv: (l + cu * u) + cv * v. A zero coefficient
 * (R has no U term, B no V term) is left out: its product is a signed
 * zero, and adding a signed zero changes at most the sign of a zero sum,
 * which the truncation to an integer does not see. */
INLINE_AVX2_FN __m256i
combine_channel (__m256 l, __m256 u, __m256 v, __m256 cu, __m256 cv, gint zero)
{
  switch (zero) {
    case ZERO_U:
      return _mm256_cvttps_epi32 (_mm256_add_ps (l, _mm256_mul_ps (cv, v)));
    case ZERO_V:
      return _mm256_cvttps_epi32 (_mm256_add_ps (l, _mm256_mul_ps (cu, u)));
    default:
      return _mm256_cvttps_epi32 (_mm256_add_ps (_mm256_add_ps (l,
                  _mm256_mul_ps (cu, u)), _mm256_mul_ps (cv, v)));
  }
}

static gint
zero_term (const YuvMatrix * m, gint k)
{
  if (m->from_u[k] == 0.0f)
    return ZERO_U;
  if (m->from_v[k] == 0.0f)
    return ZERO_V;
  return ZERO_NONE;
}

/* per 128-bit lane: a0..a3 b0..b3 c0..c3 (c again) to a0 b0 c0 a1 ... */
AVX2_FN static inline __m256i
rgb8_interleave (void)
{
  return _mm256_setr_epi8 (0, 4, 8, 1, 5, 9, 2, 6, 10, 3, 7, 11, ZERO_BYTE,
      ZERO_BYTE, ZERO_BYTE, ZERO_BYTE, 0, 4, 8, 1, 5, 9, 2, 6, 10, 3, 7, 11,
      ZERO_BYTE, ZERO_BYTE, ZERO_BYTE, ZERO_BYTE);
}

/* Eight pixels' channels (int32, saturated here to bytes) stored as 24
 * interleaved bytes, xor @vflip. With @room the 4 bytes after them may be
 * overwritten (the caller writes them later): two 16-byte stores. */
AVX2_FN static inline void
store_rgb8 (guint8 * o, __m256i a, __m256i b, __m256i c, __m256i interleave,
    __m256i vflip, gboolean room)
{
  __m256i bytes = _mm256_packus_epi16 (_mm256_packs_epi32 (a, b),
      _mm256_packs_epi32 (c, c));
  __m128i lo, hi;
  gint32 tail;

  bytes = _mm256_xor_si256 (_mm256_shuffle_epi8 (bytes, interleave), vflip);
  lo = _mm256_castsi256_si128 (bytes);
  hi = _mm256_extracti128_si256 (bytes, 1);
  if (room) {
    _mm_storeu_si128 ((__m128i *) o, lo);
    _mm_storeu_si128 ((__m128i *) (o + N_CHANNELS * PIXELS_PER_STORE), hi);
    return;
  }
  _mm_storel_epi64 ((__m128i *) o, lo);
  tail = _mm_cvtsi128_si32 (_mm_srli_si128 (lo, sizeof (gint64)));
  memcpy (o + sizeof (gint64), &tail, sizeof (tail));
  o += N_CHANNELS * PIXELS_PER_STORE;
  _mm_storel_epi64 ((__m128i *) o, hi);
  tail = _mm_cvtsi128_si32 (_mm_srli_si128 (hi, sizeof (gint64)));
  memcpy (o + sizeof (gint64), &tail, sizeof (tail));
}

/* combine_yuv eight pixels at a time, the same operations in the same
 * order; the saturating packs are its clamp to 0..255. Written here
 * because the compiler's version spends most of its time interleaving
 * the three channels. */
INLINE_AVX2_FN gint
combine_yuv_body (guint8 * restrict out, const gfloat * restrict yr,
    const gfloat * restrict ur, const gfloat * restrict vr,
    const YuvMatrix * restrict m, guint8 flip, gint n, gint z0, gint z1,
    gint z2)
{
  const __m256 yo = _mm256_set1_ps (m->y_offset);
  const __m256 yg = _mm256_set1_ps (m->y_gain);
  const __m256 half = _mm256_set1_ps (0.5f);
  const __m256 mid = _mm256_set1_ps (CHROMA_OFFSET);
  const __m256 u0 = _mm256_set1_ps (m->from_u[0]);
  const __m256 u1 = _mm256_set1_ps (m->from_u[1]);
  const __m256 u2 = _mm256_set1_ps (m->from_u[2]);
  const __m256 v0 = _mm256_set1_ps (m->from_v[0]);
  const __m256 v1 = _mm256_set1_ps (m->from_v[1]);
  const __m256 v2 = _mm256_set1_ps (m->from_v[2]);
  const __m256i vflip = _mm256_set1_epi8 ((gchar) flip);
  const __m256i interleave = rgb8_interleave ();
  gint x;

  for (x = 0; x + PIXELS_PER_YMM <= n; x += PIXELS_PER_YMM) {
    const __m256 l = _mm256_add_ps (_mm256_mul_ps (_mm256_sub_ps
            (_mm256_loadu_ps (yr + x), yo), yg), half);
    const __m256 u = _mm256_sub_ps (_mm256_loadu_ps (ur + x), mid);
    const __m256 v = _mm256_sub_ps (_mm256_loadu_ps (vr + x), mid);
    const __m256i a = combine_channel (l, u, v, u0, v0, z0);
    const __m256i b = combine_channel (l, u, v, u1, v1, z1);
    const __m256i c = combine_channel (l, u, v, u2, v2, z2);

    store_rgb8 (out + N_CHANNELS * x, a, b, c, interleave, vflip,
        x + PIXELS_PER_YMM + STORE_SLACK_PIXELS <= n);
  }
  return x;
}

AVX2_FN gint
gst_ax_letterbox_avx2_combine_yuv (guint8 * restrict out,
    const gfloat * restrict yr, const gfloat * restrict ur,
    const gfloat * restrict vr, const YuvMatrix * restrict m, guint8 flip,
    gint n)
{
  const gint z0 = zero_term (m, 0), z1 = zero_term (m, 1);
  const gint z2 = zero_term (m, 2);

  if (z0 == ZERO_U && z1 == ZERO_NONE && z2 == ZERO_V)
    return combine_yuv_body (out, yr, ur, vr, m, flip, n, ZERO_U, ZERO_NONE,
        ZERO_V);
  if (z0 == ZERO_V && z1 == ZERO_NONE && z2 == ZERO_U)
    return combine_yuv_body (out, yr, ur, vr, m, flip, n, ZERO_V, ZERO_NONE,
        ZERO_U);
  return combine_yuv_body (out, yr, ur, vr, m, flip, n, z0, z1, z2);
}

/* Blends two chroma source rows at @m / WEIGHT_ONE into chroma16 samples
 * [@lo, @hi]: planar (one component's row) or, @interleaved, NV12's UV
 * row split into @du and @dv. Bytes and weights that are multiples of
 * 1 / WEIGHT_ONE make blend_rows exact: these integers are its floats
 * times WEIGHT_ONE, minus CHROMA16_OFFSET. */
AVX2_FN void
gst_ax_letterbox_avx2_chroma16_rows (gint16 * restrict du, gint16 * restrict dv,
    const guint8 * restrict a, const guint8 * restrict b, gint m,
    gboolean interleaved, gint lo, gint hi)
{
  const __m128i w = _mm_set1_epi16 ((gint16) ((m << BITS_PER_BYTE) |
          (WEIGHT_ONE - m)));
  const __m128i off = _mm_set1_epi16 (CHROMA16_OFFSET);
  /* even words (U) to the low half, odd words (V) to the high half */
  const __m128i split = _mm_setr_epi8 (0, 1, 4, 5, 8, 9, 12, 13, 2, 3, 6,
      7, 10, 11, 14, 15);
  const gint per = interleaved ? UV_STEP : 1;
  const gint step = BYTES_PER_XMM / per;
  gint s;

  for (s = lo; s + step <= hi + 1; s += step) {
    const __m128i va = _mm_loadu_si128 ((const __m128i *) (a + per * s));
    const __m128i vb = _mm_loadu_si128 ((const __m128i *) (b + per * s));
    const __m128i r0 = _mm_sub_epi16 (_mm_maddubs_epi16 (_mm_unpacklo_epi8
            (va, vb), w), off);
    const __m128i r1 = _mm_sub_epi16 (_mm_maddubs_epi16 (_mm_unpackhi_epi8
            (va, vb), w), off);

    if (interleaved) {
      const __m128i s0 = _mm_shuffle_epi8 (r0, split);
      const __m128i s1 = _mm_shuffle_epi8 (r1, split);

      _mm_storeu_si128 ((__m128i *) (du + s), _mm_unpacklo_epi64 (s0, s1));
      _mm_storeu_si128 ((__m128i *) (dv + s), _mm_unpackhi_epi64 (s0, s1));
    } else {
      _mm_storeu_si128 ((__m128i *) (du + s), r0);
      _mm_storeu_si128 ((__m128i *) (du + s + step / 2), r1);
    }
  }
  for (; s <= hi; s++) {
    du[s] = (gint16) (a[per * s] * (WEIGHT_ONE - m) + b[per * s] * m -
        CHROMA16_OFFSET);
    if (interleaved)
      dv[s] = (gint16) (a[per * s + 1] * (WEIGHT_ONE - m) +
          b[per * s + 1] * m - CHROMA16_OFFSET);
  }
}

/* Four chroma samples of a period-2 run: columns e, e + 2, e + 4, e + 6
 * blend chroma16 samples (i, i + 1) from i = @s with the pair weights @w;
 * the int32 results are the horizontal float lerp times WEIGHT_ONE^2
 * (exact: dyadic weights). */
AVX2_FN static inline __m128i
chroma16_taps (const gint16 * c, gint s, __m128i w)
{
  const __m128i t0 = _mm_loadu_si128 ((const __m128i *) (c + s));
  const __m128i t1 = _mm_loadu_si128 ((const __m128i *) (c + s + 1));

  return _mm_madd_epi16 (_mm_unpacklo_epi16 (t0, t1), w);
}

AVX2_FN static inline __m256
chroma16_block (const gint16 * c, gint se, gint so, __m128i we, __m128i wo)
{
  const __m128i e = chroma16_taps (c, se, we), o = chroma16_taps (c, so, wo);

  return _mm256_cvtepi32_ps (_mm256_set_m128i (_mm_unpackhi_epi32 (e, o),
          _mm_unpacklo_epi32 (e, o)));
}

INLINE_AVX2_FN gint
yuv_period2_body (guint8 * restrict out, const guint8 * restrict luma,
    const gint16 * restrict u16, const gint16 * restrict v16, gint se,
    gint so, const gfloat * wx, const YuvMatrix * restrict m, guint8 flip,
    gint from, gint run_end, gint n, gint z0, gint z1, gint z2)
{
  const gint me = (gint) (wx[from] * WEIGHT_ONE);
  const gint mo = (gint) (wx[from + 1] * WEIGHT_ONE);
  const __m128i we = _mm_set1_epi32 ((gint32) (((guint32) me <<
              WEIGHT_PAIR_SHIFT) | (WEIGHT_ONE - me)));
  const __m128i wo = _mm_set1_epi32 ((gint32) (((guint32) mo <<
              WEIGHT_PAIR_SHIFT) | (WEIGHT_ONE - mo)));
  const gfloat unit = 1.0f / (WEIGHT_ONE * WEIGHT_ONE);
  const __m256 yo = _mm256_set1_ps (m->y_offset);
  const __m256 yg = _mm256_set1_ps (m->y_gain);
  const __m256 half = _mm256_set1_ps (0.5f);
  const __m256 u0 = _mm256_set1_ps (m->from_u[0] * unit);
  const __m256 u1 = _mm256_set1_ps (m->from_u[1] * unit);
  const __m256 u2 = _mm256_set1_ps (m->from_u[2] * unit);
  const __m256 v0 = _mm256_set1_ps (m->from_v[0] * unit);
  const __m256 v1 = _mm256_set1_ps (m->from_v[1] * unit);
  const __m256 v2 = _mm256_set1_ps (m->from_v[2] * unit);
  const __m256i vflip = _mm256_set1_epi8 ((gchar) flip);
  const __m256i interleave = rgb8_interleave ();
  gint x, last = -1;

  for (x = from; x + PERIOD_BLOCK - 2 <= run_end || last >= 0;
      x += PERIOD_BLOCK) {
    const __m256 u = chroma16_block (u16, se, so, we, wo);
    const __m256 v = chroma16_block (v16, se, so, we, wo);
    const __m256 yf = _mm256_cvtepi32_ps (_mm256_cvtepu8_epi32
        (_mm_loadl_epi64 ((const __m128i *) (luma + x))));
    const __m256 l = _mm256_add_ps (_mm256_mul_ps (_mm256_sub_ps (yf, yo),
            yg), half);
    const __m256i a = combine_channel (l, u, v, u0, v0, z0);
    const __m256i b = combine_channel (l, u, v, u1, v1, z1);
    const __m256i c = combine_channel (l, u, v, u2, v2, z2);

    store_rgb8 (out + N_CHANNELS * x, a, b, c, interleave, vflip,
        x + PIXELS_PER_YMM + STORE_SLACK_PIXELS <= n);
    /* a block is four chroma samples on */
    se += PERIOD_BLOCK / 2;
    so += PERIOD_BLOCK / 2;
    if (last >= 0)
      return last;
    /* the run's last columns: a block overlapping the previous one, at
     * the same phase, rewrites some columns with the same bytes */
    if (x + PERIOD_BLOCK + PERIOD_BLOCK - 2 > run_end &&
        x + PERIOD_BLOCK < run_end + 2) {
      const gint next = from + ((run_end - (PERIOD_BLOCK - 2) - from) & ~1);

      if (next > x) {
        se += (next - x - PERIOD_BLOCK) / 2;
        so += (next - x - PERIOD_BLOCK) / 2;
        last = next + PERIOD_BLOCK;
        x = next - PERIOD_BLOCK;
      }
    }
  }
  return x;
}

/* YUV at 1:1 luma (rows of luma bytes taken as they are) with chroma in a
 * dyadic period-2 run [@from, @run_end) (2x upsampling): chroma from the
 * chroma16 rows, then combine_yuv's operations on the same floats. U - 128
 * is the chroma16 lerp times 2^-2*WEIGHT_BITS exactly, and scaling by a
 * power of two commutes with rounding, so from_u * (U - 128) is computed
 * as (from_u * 2^-2*WEIGHT_BITS) * lerp with the same result. @i0 are the
 * U column taps (byte offsets, @ps bytes a sample). The usual zero terms
 * (RGB or BGR order) get their own loops. Stores stay inside the row's
 * @n columns. Returns the first column not done. */
AVX2_FN gint
gst_ax_letterbox_avx2_yuv_period2 (guint8 * restrict out,
    const guint8 * restrict luma, const gint16 * restrict u16,
    const gint16 * restrict v16, const gint32 * restrict i0, gint ps, gint poff,
    const gfloat * wx, const YuvMatrix * restrict m, guint8 flip, gint from,
    gint run_end, gint n)
{
  const gint z0 = zero_term (m, 0), z1 = zero_term (m, 1);
  const gint z2 = zero_term (m, 2);
  const gint se = (i0[from] - poff) / ps, so = (i0[from + 1] - poff) / ps;

  if (z0 == ZERO_U && z1 == ZERO_NONE && z2 == ZERO_V)
    return yuv_period2_body (out, luma, u16, v16, se, so, wx, m, flip, from,
        run_end, n, ZERO_U, ZERO_NONE, ZERO_V);
  if (z0 == ZERO_V && z1 == ZERO_NONE && z2 == ZERO_U)
    return yuv_period2_body (out, luma, u16, v16, se, so, wx, m, flip, from,
        run_end, n, ZERO_V, ZERO_NONE, ZERO_U);
  return yuv_period2_body (out, luma, u16, v16, se, so, wx, m, flip, from,
      run_end, n, z0, z1, z2);
}

/* Packed RGB at exactly 2:1 in both axes (halves, wy 1/2): the dyadic
 * formula is then (T0 + T1 + B0 + B1 + 2) >> 2, and two tensor pixels
 * read twelve consecutive bytes of each row, so one 16-byte load serves
 * both. pmaddubsw by ones sums the horizontal pairs. Stores stay inside
 * the row's @row_pixels; the bytes after the last column done are left
 * for the caller to write. */
AVX2_FN gint
gst_ax_letterbox_avx2_box2_packed (guint8 * restrict out,
    const guint8 * restrict top, const guint8 * restrict bot,
    const guint8 * restrict base_px, const gint off[N_CHANNELS], guint8 flip,
    gint n, gint row_pixels)
{
  const __m256i ones = _mm256_set1_epi8 (1);
  const __m256i two = _mm256_set1_epi16 (2);
  const __m128i vflip = _mm_set1_epi8 ((gchar) flip);
  const __m256i compact = _mm256_setr_epi8 (0, 1, 2, 3, 4, 5, 8, 9, 10, 11,
      12, 13, ZERO_BYTE, ZERO_BYTE, ZERO_BYTE, ZERO_BYTE, 0, 1, 2, 3, 4, 5,
      8, 9, 10, 11, 12, 13, ZERO_BYTE, ZERO_BYTE, ZERO_BYTE, ZERO_BYTE);
  const gsize px_off = base_px - top;
  const gint chunk = 2 * 2 * N_CHANNELS;
  gchar pairs[sizeof (__m128i)];
  __m256i vpairs;
  gint x, j, k;

  memset (pairs, ZERO_BYTE, sizeof (pairs));
  for (j = 0; j < 2; j++)
    for (k = 0; k < N_CHANNELS; k++) {
      pairs[2 * (N_CHANNELS * j + k)] = (gchar) (2 * N_CHANNELS * j + off[k]);
      pairs[2 * (N_CHANNELS * j + k) + 1] =
          (gchar) (2 * N_CHANNELS * j + off[k] + N_CHANNELS);
    }
  vpairs = _mm256_broadcastsi128_si256 (_mm_loadu_si128 ((const __m128i *)
          pairs));

  for (x = 0; x + BOX_PIXELS <= n; x += BOX_PIXELS) {
    const gsize at = px_off + (gsize) x * 2 * N_CHANNELS;
    /* lanes: pixels x, x + 1 | x + 4, x + 5, then x + 2, x + 3 | x + 6,
     * x + 7, so that the packs put x .. x + 3 in the low lane */
    const __m256i ta = _mm256_loadu2_m128i ((const __m128i *) (top + at +
            2 * chunk), (const __m128i *) (top + at));
    const __m256i tb = _mm256_loadu2_m128i ((const __m128i *) (top + at +
            3 * chunk), (const __m128i *) (top + at + chunk));
    const __m256i ba = _mm256_loadu2_m128i ((const __m128i *) (bot + at +
            2 * chunk), (const __m128i *) (bot + at));
    const __m256i bb = _mm256_loadu2_m128i ((const __m128i *) (bot + at +
            3 * chunk), (const __m128i *) (bot + at + chunk));
    __m256i a = _mm256_add_epi16 (_mm256_maddubs_epi16 (_mm256_shuffle_epi8
            (ta, vpairs), ones), _mm256_maddubs_epi16 (_mm256_shuffle_epi8
            (ba, vpairs), ones));
    __m256i b = _mm256_add_epi16 (_mm256_maddubs_epi16 (_mm256_shuffle_epi8
            (tb, vpairs), ones), _mm256_maddubs_epi16 (_mm256_shuffle_epi8
            (bb, vpairs), ones));
    __m128i lo, hi;
    guint8 *o = out + N_CHANNELS * x;
    gint32 tail;

    a = _mm256_srli_epi16 (_mm256_add_epi16 (a, two), 2);
    b = _mm256_srli_epi16 (_mm256_add_epi16 (b, two), 2);
    a = _mm256_shuffle_epi8 (_mm256_packus_epi16 (a, b), compact);
    lo = _mm_xor_si128 (_mm256_castsi256_si128 (a), vflip);
    hi = _mm_xor_si128 (_mm256_extracti128_si256 (a, 1), vflip);
    /* the 4 bytes after the block are written later by the caller */
    if (x + BOX_PIXELS + STORE_SLACK_PIXELS <= row_pixels) {
      _mm_storeu_si128 ((__m128i *) o, lo);
      _mm_storeu_si128 ((__m128i *) (o + N_CHANNELS * PIXELS_PER_STORE), hi);
      continue;
    }
    _mm_storel_epi64 ((__m128i *) o, lo);
    tail = _mm_cvtsi128_si32 (_mm_srli_si128 (lo, sizeof (gint64)));
    memcpy (o + sizeof (gint64), &tail, sizeof (tail));
    o += N_CHANNELS * PIXELS_PER_STORE;
    _mm_storel_epi64 ((__m128i *) o, hi);
    tail = _mm_cvtsi128_si32 (_mm_srli_si128 (hi, sizeof (gint64)));
    memcpy (o + sizeof (gint64), &tail, sizeof (tail));
  }
  return x;
}
#else
/* ISO C wants a declaration in every translation unit */
typedef int GstAxLetterboxAvx2Unused;
#endif
