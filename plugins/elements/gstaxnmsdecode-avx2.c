/* gst-ax
 * Copyright (C) 2026 gst-ax developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

/* The AVX2 threshold scans of the CenterNet heat-map, picked at run time
 * by gstaxnmsdecode-centernet.c; same masks as the portable scans. */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstaxnmsdecode-private.h"

#ifdef HAVE_AVX2_KERNELS
#include <immintrin.h>

#define AVX2_FN __attribute__ ((target ("avx2")))

AVX2_FN gsize
gst_ax_nms_decode_next_block_u8_avx2 (const guint8 * t, gsize blk, gsize n_blk,
    guint8 flip, guint first_pass, guint64 * mask)
{
  /* biased byte >= first_pass <=> signed byte (raw ^ flip ^ 0x80) >
   * first_pass - 129 */
  const __m256i tov = _mm256_set1_epi8 ((gchar) (flip ^ INT8_BIAS));
  const __m256i thv = _mm256_set1_epi8 ((gchar) ((gint) first_pass - 129));

  for (; blk < n_blk; blk++) {
    const guint8 *bp = t + blk * CN_BLOCK_U8;
    __m256i a = _mm256_xor_si256 (_mm256_loadu_si256 ((const __m256i *) bp),
        tov);
    __m256i b = _mm256_xor_si256 (_mm256_loadu_si256 ((const __m256i *)
            (bp + 32)), tov);
    __m256i ga = _mm256_cmpgt_epi8 (a, thv), gb = _mm256_cmpgt_epi8 (b, thv);

    if (G_LIKELY (_mm256_testz_si256 (_mm256_or_si256 (ga, gb),
                _mm256_or_si256 (ga, gb))))
      continue;
    *mask = (guint64) (guint32) _mm256_movemask_epi8 (ga)
        | ((guint64) (guint32) _mm256_movemask_epi8 (gb) << 32);
    return blk;
  }
  return n_blk;
}

AVX2_FN gsize
gst_ax_nms_decode_next_block_f32_avx2 (const gfloat * t, gsize blk, gsize n_blk,
    gfloat thr, guint64 * mask)
{
  const __m256 tv = _mm256_set1_ps (thr);

  for (; blk < n_blk; blk++) {
    const gfloat *bp = t + blk * CN_BLOCK_F32;
    __m256 c0 = _mm256_cmp_ps (_mm256_loadu_ps (bp), tv, _CMP_GT_OQ);
    __m256 c1 = _mm256_cmp_ps (_mm256_loadu_ps (bp + 8), tv, _CMP_GT_OQ);
    __m256 c2 = _mm256_cmp_ps (_mm256_loadu_ps (bp + 16), tv, _CMP_GT_OQ);
    __m256 c3 = _mm256_cmp_ps (_mm256_loadu_ps (bp + 24), tv, _CMP_GT_OQ);
    __m256 any = _mm256_or_ps (_mm256_or_ps (c0, c1), _mm256_or_ps (c2, c3));

    if (G_LIKELY (_mm256_testz_ps (any, any)))
      continue;
    *mask = (guint64) _mm256_movemask_ps (c0)
        | ((guint64) _mm256_movemask_ps (c1) << 8)
        | ((guint64) _mm256_movemask_ps (c2) << 16)
        | ((guint64) _mm256_movemask_ps (c3) << 24);
    return blk;
  }
  return n_blk;
}
#endif
