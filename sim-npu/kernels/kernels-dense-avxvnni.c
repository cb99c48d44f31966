/* gst-ax
 * Copyright (C) 2026 gst-ax developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

/* Dense and pointwise conv2d for AVX-VNNI, the VEX form of the byte
 * multiply-add on CPUs with AVX2 but without AVX-512
 * (kernels-dense-vnni-impl.h at 256 bits): 8 channels per vector, 16
 * registers, panels of up to 16 channels; a first layer's tail quads
 * gathered byte by byte, and 16-channel outputs stored two pixels at a
 * time. */

#include "kernels-private.h"

#ifdef SIMNPU_AVXVNNI

#include <immintrin.h>
#include <string.h>

#define VNNI_TARGET SIMNPU_AVXVNNI_TARGET
#define VNNI_NAME(x) simnpu__dense_avxvnni_##x
/* int32 lanes, output channels per vector */
#define LANES 8
/* bytes of a vector */
#define VEC_BYTES 32
/* vectors of channels in the widest panel */
#define MAX_NV 2
/* pixels per block of the widest panel's micro-kernel: 12 accumulators,
 * 2 weight vectors and a broadcast in the 16 registers; a one-vector
 * panel takes twice the pixels */
#define MAX_ROWS 12
/* the tail quads are gathered byte by byte: any kernel row */
#define TAIL_MAX_RUN SIZE_MAX
#define TAIL_SLACK 0
#define VNNI_BLOCK_FUNCS BLOCK_FUNC (2, 6) BLOCK_FUNC (1, 12)
#define VNNI_BLOCK_TABLE { NULL, vnni_block_1, vnni_block_2 }
#define VNNI_BLOCK_ROWS { 0, 12, 6 }

typedef __m256i vnni_vec;

VNNI_TARGET static inline vnni_vec
vnni_load (const void *p)
{
  return _mm256_load_si256 ((const __m256i *) p);
}

VNNI_TARGET static inline vnni_vec
vnni_set1 (int32_t t)
{
  return _mm256_set1_epi32 (t);
}

VNNI_TARGET static inline vnni_vec
vnni_dpbusd (vnni_vec acc, vnni_vec a, vnni_vec b)
{
  return _mm256_dpbusd_avx_epi32 (acc, a, b);
}

/* the tail quad's bytes: byte t is kernel row row[t]'s byte at off[t] of
 * the pixel's window row, or a zero where row[t] is -1 */
typedef struct
{
  int row[4];
  size_t off[4];
} TailPerm;

#include "kernels-dense-vnni-impl.h"

VNNI_TARGET static void
flip_copy (uint8_t * dst, const int8_t * src, size_t n)
{
  const __m256i flip = _mm256_set1_epi8 ((char) SIGN_FLIP);
  size_t j = 0;

  for (; j + VEC_BYTES <= n; j += VEC_BYTES)
    _mm256_storeu_si256 ((__m256i *) (void *) (dst + j),
        _mm256_xor_si256 (_mm256_loadu_si256 ((const __m256i *) (const void *)
                (src + j)), flip));
  for (; j < n; j++)
    dst[j] = (uint8_t) ((uint8_t) src[j] ^ SIGN_FLIP);
}

static bool
vnni_tail_ok (void)
{
  return true;
}

/* byte t of a pixel's tail quad: kernel row t / rem's tap at + t % rem,
 * rem = kw * ic % 4 and at = seg4 * 4 */
static void
tail_perm (const simnpu__conv_params * p, const VnniShape * s, TailPerm * tp)
{
  const size_t rem = (size_t) p->kw * p->ic % QUAD, at = s->seg4 * QUAD;
  size_t t;

  for (t = 0; t < QUAD; t++) {
    tp->row[t] = t / rem < (size_t) p->kh ? (int) (t / rem) : -1;
    tp->off[t] = at + t % rem;
  }
}

/* the bytes past the kernel rows (zero weights) are zeros */
static void
build_tail (const simnpu__conv_params * p, const VnniShape * s,
    const TailPerm * tp, const uint8_t * const *seg, size_t count,
    uint8_t * tail)
{
  const size_t step = (size_t) p->sw * p->ic;
  const uint8_t *src[QUAD];
  size_t r, t;

  (void) s;
  for (t = 0; t < QUAD; t++)
    src[t] = tp->row[t] >= 0 ? seg[tp->row[t]] + tp->off[t] : NULL;
  for (r = 0; r < count + MAX_ROWS - 1; r++)
    for (t = 0; t < QUAD; t++)
      tail[r * QUAD + t] = src[t] != NULL ? src[t][r * step] : 0;
}

/* requant_one on 8 lanes, in its own order (clamps in single precision,
 * the magic number's rounding to nearest even, the zero point); the
 * results, in [act_min, act_max], pack to bytes exactly */
VNNI_TARGET static inline __m256i
vnni_round (const VnniOut * d, __m256i acc, const float *scale)
{
  __m256 x = _mm256_mul_ps (_mm256_cvtepi32_ps (acc), _mm256_load_ps (scale));
  const __m256 magic = _mm256_set1_ps (RQ_MAGIC);

  /* max and min return their second operand when the first is NaN, as
   * requant_one's comparisons do */
  x = _mm256_max_ps (x, _mm256_set1_ps ((float) d->lo));
  x = _mm256_min_ps (x, _mm256_set1_ps (d->hi_f));
  return _mm256_cvttps_epi32 (_mm256_sub_ps (_mm256_add_ps (x, magic), magic));
}

VNNI_TARGET static inline void
vnni_store (const VnniOut * d, __m256i acc, const float *scale, size_t o,
    int8_t * dst)
{
  const __m256i order = _mm256_setr_epi32 (0, 4, 1, 5, 2, 6, 3, 7);
  __m256i q = _mm256_add_epi32 (vnni_round (d, acc, scale),
      _mm256_set1_epi32 (d->zp));
  int8_t bytes[LANES];

  /* each 128-bit lane's four values end in its first dword */
  q = _mm256_packs_epi32 (q, q);
  q = _mm256_permutevar8x32_epi32 (_mm256_packs_epi16 (q, q), order);
  if (o + LANES <= (size_t) d->oc) {
    _mm_storel_epi64 ((__m128i *) (void *) dst, _mm256_castsi256_si128 (q));
  } else {
    _mm_storel_epi64 ((__m128i *) (void *) bytes, _mm256_castsi256_si128 (q));
    memcpy (dst, bytes, (size_t) d->oc - o);
  }
}

/* Where the output has exactly 16 channels (one panel of two vectors),
 * two pixels at a time: packs leave each 128-bit lane holding both
 * pixels' channels 4l..4l+3 of each vector, and one dword permutation
 * orders the 32 bytes. */
VNNI_TARGET static inline bool
vnni_store_block (const VnniOut * d, __m256i (*c)[MAX_NV], int nv, int rows,
    int valid, int8_t * out)
{
  const __m256i order = _mm256_setr_epi32 (0, 4, 1, 5, 2, 6, 3, 7);
  const __m256i zp = _mm256_set1_epi16 ((short) d->zp);
  int r;

  if (nv != 2 || d->oc != 2 * LANES || valid != rows || rows % 2 != 0)
    return false;
#pragma GCC unroll 12
  for (r = 0; r < rows; r += 2) {
    __m256i a = _mm256_packs_epi32 (vnni_round (d, c[r][0], d->scale),
        vnni_round (d, c[r][1], d->scale + LANES));
    __m256i b = _mm256_packs_epi32 (vnni_round (d, c[r + 1][0], d->scale),
        vnni_round (d, c[r + 1][1], d->scale + LANES));
    a = _mm256_add_epi16 (a, zp);
    b = _mm256_add_epi16 (b, zp);
    _mm256_storeu_si256 ((__m256i *) (void *) (out + (size_t) r * 2 * LANES),
        _mm256_permutevar8x32_epi32 (_mm256_packs_epi16 (a, b), order));
  }
  return true;
}

#endif /* SIMNPU_AVXVNNI */
