/* gst-ax
 * Copyright (C) 2026 gst-ax developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

/* Shared by the two halves of axletterbox's pixel engine: the portable
 * part with the tables and the render loop (gstaxletterboxrender.c) and
 * the AVX2 row kernels (gstaxletterboxrender-avx2.c). */

#ifndef __GST_AX_LETTERBOX_RENDER_PRIVATE_H__
#define __GST_AX_LETTERBOX_RENDER_PRIVATE_H__

#include <glib.h>

#if defined(__GNUC__) && (defined(__x86_64__) || defined(__i386__))
#define HAVE_X86_SIMD 1
#endif

G_BEGIN_DECLS

/* Rows are rendered with three colour channels; a gray tensor has one. */
#define N_CHANNELS 3
#define GRAY_CHANNELS 1
/* the luma weights of a gray model's input, as its calibration used */
#define LUMA_R 0.299f
#define LUMA_G 0.587f
#define LUMA_B 0.114f
/* how close 1 / d must be to a pixel scale to be taken for it exactly */
#define DIVISOR_TOLERANCE 1e-6
#define MAX_PIXEL_VALUE 255
#define CHROMA_OFFSET 128.0f
#define SIGN_BIT 0x80
/* the vector affine map adds the zero point in int32 and saturates to
 * int16 then to the byte range: keep both terms well inside int16 */
#define MIN_AFFINE_ZERO_POINT (-1024)
#define MAX_AFFINE_ZERO_POINT 1024
#define MAX_AFFINE_SCALED 16384.0f
/* the vector kernels load a packed pixel as four bytes */
#define VECTOR_PIXEL_BYTES 4
/* weights of the integer kernels are in 1/64: both taps' weights fit the
 * signed bytes of pmaddubsw, a vertical blend of bytes fits int16 */
#define WEIGHT_BITS 6
#define WEIGHT_ONE (1 << WEIGHT_BITS)
/* packed RGB also runs in integers with weights in 1/128 (1080 rows into
 * 512): pmaddubsw takes (128 - m, m) for m >= 1, and a row with m = 0
 * (both taps the same row) takes (64, 64) */
#define FINE_WEIGHT_BITS 7
#define WEIGHT_PAIR_SHIFT 16
#define PAIRS_PER_VECTOR 4
#define ROW_PAD_FLOATS 4
#define HALF 0.5f
#define BOX_PIXELS 8
#define BOX_LOAD_BYTES 16
#define PERIOD_BLOCK 8
#define AFFINE_BLOCK 32
/* which term of a YUV to RGB channel has a zero coefficient */
#define ZERO_NONE 0
#define ZERO_U 1
#define ZERO_V 2
/* floats from a U (or V) to the next in an NV12 chroma row */
#define UV_STEP 2
/* int16 samples past the last that the fused YUV kernel may load */
#define CHROMA16_PAD 16
/* a vertically blended chroma sample in int16: 128 * WEIGHT_ONE */
#define CHROMA16_OFFSET (128 * WEIGHT_ONE)

/* Output channel k = gain * (Y - offset) + from_u[k] * (U - 128) +
 * from_v[k] * (V - 128), rows already in the tensor's channel order. */
typedef struct
{
  gfloat y_offset;
  gfloat y_gain;
  gfloat from_u[N_CHANNELS];
  gfloat from_v[N_CHANNELS];
} YuvMatrix;

#ifdef HAVE_X86_SIMD
/* The AVX2 row kernels (gstaxletterboxrender-avx2.c), called only when
 * the CPU has AVX2. Each does the leading columns it can and returns how
 * many; the portable kernel finishes the row. */
gint gst_ax_letterbox_avx2_lerp_packed (guint8 * restrict out,
    const guint8 * restrict top, const guint8 * restrict bot, gfloat wy,
    const gint32 * restrict p0, const gint32 * restrict p1,
    const gfloat * restrict w, const gint off[N_CHANNELS], guint8 flip,
    gint n);
gint gst_ax_letterbox_avx2_pack_affine (guint8 * restrict out,
    const guint8 * restrict in, gfloat gain, gfloat bias, gint zero_point,
    gboolean s8, gint n);
gint gst_ax_letterbox_avx2_dyadic_packed (guint8 * restrict out,
    const guint8 * restrict top, const guint8 * restrict bot, gint my,
    gint bits, const gint32 * restrict p0, const gint32 * restrict wx_pair,
    const gint off[N_CHANNELS], gint pstride, guint8 flip, gint n);
gint gst_ax_letterbox_avx2_lerp_pairs (gfloat * restrict dst,
    const gfloat * restrict row, const gint32 * restrict i0,
    const gfloat * restrict w, gint n);
gint gst_ax_letterbox_avx2_lerp_period2 (gfloat * restrict dst,
    const gfloat * restrict row, const gint32 * restrict i0,
    const gfloat * restrict w, gint from, gint run_end);
gint gst_ax_letterbox_avx2_lerp_uv_period2 (gfloat * restrict du,
    gfloat * restrict dv, const gfloat * restrict row,
    const gint32 * restrict i0, const gfloat * restrict w, gint from,
    gint run_end);
gint gst_ax_letterbox_avx2_lerp_uv (gfloat * restrict du,
    gfloat * restrict dv, const gfloat * restrict row,
    const gint32 * restrict i0, const gfloat * restrict w, gint n);
gint gst_ax_letterbox_avx2_combine_yuv (guint8 * restrict out,
    const gfloat * restrict yr, const gfloat * restrict ur,
    const gfloat * restrict vr, const YuvMatrix * restrict m, guint8 flip,
    gint n);
void gst_ax_letterbox_avx2_chroma16_rows (gint16 * restrict du,
    gint16 * restrict dv, const guint8 * restrict a,
    const guint8 * restrict b, gint m, gboolean interleaved, gint lo,
    gint hi);
gint gst_ax_letterbox_avx2_yuv_period2 (guint8 * restrict out,
    const guint8 * restrict luma, const gint16 * restrict u16,
    const gint16 * restrict v16, const gint32 * restrict i0, gint ps,
    gint poff, const gfloat * wx, const YuvMatrix * restrict m, guint8 flip,
    gint from, gint run_end, gint n);
gint gst_ax_letterbox_avx2_box2_packed (guint8 * restrict out,
    const guint8 * restrict top, const guint8 * restrict bot,
    const guint8 * restrict base_px, const gint off[N_CHANNELS],
    guint8 flip, gint n, gint row_pixels);
#endif

G_END_DECLS
#endif /* __GST_AX_LETTERBOX_RENDER_PRIVATE_H__ */
