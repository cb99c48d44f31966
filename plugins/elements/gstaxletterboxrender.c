/* gst-ax
 * Copyright (C) 2026 gst-ax developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

/* axletterbox's pixel engine: sampling tables, YUV matrix, quantisation
 * tables, the portable row kernels, the pad fill and the render loop
 * that picks the AVX2 kernels (gstaxletterboxrender-avx2.c) where the
 * CPU has them. The maths (pixel centres, clamped taps, quantisation in
 * double, gray in float) is described in the element's documentation. */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstaxletterboxrender.h"
#include "gstaxletterboxrender-private.h"

#include <math.h>
#include <string.h>

GST_DEBUG_CATEGORY_STATIC (gst_ax_letterbox_render_debug);
#define GST_CAT_DEFAULT gst_ax_letterbox_render_debug

/* Per-geometry sampling tables, sized once per configuration for the
 * largest geometry (the tensor) so that ROI crops reuse them. Component c
 * is R, G, B for RGB formats and Y, U, V for YUV formats. Indices are
 * byte offsets into a row of the component's plane. */
typedef struct
{
  gint n_planes;
  gint comp_plane[N_CHANNELS];
  gint32 *x0[N_CHANNELS];
  gint32 *x1[N_CHANNELS];
  gfloat *wx[N_CHANNELS];
  gint32 *y0[GST_VIDEO_MAX_PLANES];
  gint32 *y1[GST_VIDEO_MAX_PLANES];
  gfloat *wy[GST_VIDEO_MAX_PLANES];
  /* byte range of a plane row that the x tables read */
  gint col_lo[GST_VIDEO_MAX_PLANES];
  gint col_hi[GST_VIDEO_MAX_PLANES];
  /* vertically blended plane rows, bilinear only */
  gfloat *rowf[GST_VIDEO_MAX_PLANES];
  /* every x weight of the component is 0: one tap suffices */
  gboolean one_tap_x[N_CHANNELS];
  /* one row of each component's samples */
  gfloat *comp[N_CHANNELS];
  /* packed RGB formats: byte offsets of the pixels holding the two taps
   * (component offsets left out) */
  gint32 *px0;
  gint32 *px1;
  /* the leading tensor columns whose 4-byte and 8-byte loads at px0 stay
   * inside the source row, for the vector kernels */
  gint n_vector;
  gint n_vector8;
  /* RGB at exactly 2:1 across: each column averages two consecutive
   * pixels with weight 1/2; n_box columns can load 16 bytes at px0 */
  gboolean halves;
  gint n_box;
  /* columns [period_lo, period_hi) of each component repeat every two
   * columns one sample further on with the same weight (chroma upsampled
   * 2x at 1:1): blocks starting at x with period_lo <= x and x + 6 <=
   * period_hi need no index loads */
  gint period_lo[N_CHANNELS];
  gint period_hi[N_CHANNELS];
  /* in [period_lo, period_hi + 2) the second tap is the next sample (or
   * has weight 0) */
  gboolean period_taps[N_CHANNELS];
  /* YUV, chroma (U, V) rows blended vertically in integers, minus 128, in
   * 1/WEIGHT_ONE, one int16 per chroma sample */
  gint16 *chroma16[2];
  /* every weight of the component (x) or plane (y) is a multiple of
   * 1 / WEIGHT_ONE: the float arithmetic is exact and integers give the
   * same results */
  gboolean dyadic_x[N_CHANNELS];
  gboolean dyadic_y[GST_VIDEO_MAX_PLANES];
  /* packed RGB whose weights in both axes are multiples of 1 / 2^bits
   * (bits WEIGHT_BITS or FINE_WEIGHT_BITS; 0 if none): per column the int16
   * weights (2^bits - m, m) of its taps, repeated four times */
  gint packed_bits;
  gint32 *wx_pair;
  /* one tap in both axes at every column, on consecutive source pixels:
   * rows are copied */
  gboolean contiguous;
} SampleTables;

struct _GstAxLetterboxRender
{
  GstVideoInfo in_info;
  gboolean is_yuv;
  /* the CPU runs the AVX2 kernels */
  gboolean use_simd;

  gint tensor_width;
  gint tensor_height;
  GstAxTensorDType tensor_dtype;
  GstAxTensorLayout tensor_layout;
  gfloat tensor_scale;
  gint32 tensor_zero_point;
  gboolean bilinear;
  guint8 cfg_fill;
  /* the model's preprocessing */
  GstAxModelPreprocess cfg_pp;
  /* 3, or 1 for gray: the rows are still rendered as RGB, then reduced */
  gint tensor_channels;
  gint red_pos;
  gint blue_pos;
  /* YUV to tensor channels, in the configured channel order: the only
   * copy of the colour state */
  YuvMatrix matrix;
  /* the u8 quantisation is p ^ flip (flip 0 or 0x80), fused into the
   * kernels' stores, and NHWC: rows are rendered into the tensor */
  gboolean direct_u8;
  guint8 flip;
  /* not direct: the LUT is saturate (round (p * affine_gain +
   * affine_bias) + zero point), checked on every p, and NHWC rows use the
   * vector kernel */
  gboolean affine;
  gfloat affine_gain;
  gfloat affine_bias;
  /* per tensor channel: the model's preprocessing and the quantisation of
   * each pixel value; uniform when the three are the same table */
  guint8 lut_u8[N_CHANNELS][MAX_PIXEL_VALUE + 1];
  gfloat lut_f32[N_CHANNELS][MAX_PIXEL_VALUE + 1];
  gboolean uniform;
  /* the pad value of each tensor channel */
  guint8 qfill_u8[N_CHANNELS];
  gfloat qfill_f32[N_CHANNELS];
  /* gray: value = (luma * pixel_scale - mean) / std, luma in float from
   * the rendered RGB bytes */
  gdouble pixel_divisor;
  /* a pixel input: what the model's integer zero point leaves out, added
   * before rounding; 0 for other models */
  gdouble zero_point_offset;
  gsize tensor_bytes;

  /* the current region */
  GstAxLetterboxGeometry lb;
  SampleTables tables;
  /* one rendered RGB row */
  guint8 *scratch;
};

static void
sample_tables_clear (SampleTables * t)
{
  gint i;

  for (i = 0; i < N_CHANNELS; i++) {
    g_clear_pointer (&t->x0[i], g_free);
    g_clear_pointer (&t->x1[i], g_free);
    g_clear_pointer (&t->wx[i], g_free);
    g_clear_pointer (&t->comp[i], g_free);
  }
  for (i = 0; i < GST_VIDEO_MAX_PLANES; i++) {
    g_clear_pointer (&t->y0[i], g_free);
    g_clear_pointer (&t->y1[i], g_free);
    g_clear_pointer (&t->wy[i], g_free);
    g_clear_pointer (&t->rowf[i], g_free);
  }
  g_clear_pointer (&t->px0, g_free);
  g_clear_pointer (&t->px1, g_free);
  g_clear_pointer (&t->wx_pair, g_free);
  g_clear_pointer (&t->chroma16[0], g_free);
  g_clear_pointer (&t->chroma16[1], g_free);
  t->n_planes = 0;
}

/* The YUV to RGB coefficients of @info: R = g (Y - o) + rv V', G = g (Y -
 * o) - gu U' - gv V', B = g (Y - o) + bu U', with U' = U - 128, V' = V -
 * 128, in 0..255 pixel units, stored in the tensor's channel order. */
static void
setup_matrix (GstAxLetterboxRender * self)
{
  const GstVideoColorimetry *cinfo = &self->in_info.colorimetry;
  GstVideoColorMatrix matrix = GST_VIDEO_COLOR_MATRIX_BT601;
  GstVideoColorRange range = GST_VIDEO_COLOR_RANGE_16_235;
  gdouble kr, kb, kg;
  gint offset[GST_VIDEO_MAX_COMPONENTS], scale[GST_VIDEO_MAX_COMPONENTS];
  gdouble y_gain, c_gain;
  gfloat r_from_v, g_from_u, g_from_v, b_from_u;

  if (cinfo->matrix != GST_VIDEO_COLOR_MATRIX_UNKNOWN &&
      cinfo->matrix != GST_VIDEO_COLOR_MATRIX_RGB)
    matrix = cinfo->matrix;
  if (cinfo->range != GST_VIDEO_COLOR_RANGE_UNKNOWN)
    range = cinfo->range;

  if (!gst_video_color_matrix_get_Kr_Kb (matrix, &kr, &kb)) {
    matrix = GST_VIDEO_COLOR_MATRIX_BT601;
    gst_video_color_matrix_get_Kr_Kb (matrix, &kr, &kb);
  }
  kg = 1.0 - kr - kb;
  gst_video_color_range_offsets (range, self->in_info.finfo, offset, scale);

  y_gain = (gdouble) MAX_PIXEL_VALUE / scale[0];
  c_gain = (gdouble) MAX_PIXEL_VALUE / scale[1];
  r_from_v = 2.0 * (1.0 - kr) * c_gain;
  b_from_u = 2.0 * (1.0 - kb) * c_gain;
  g_from_u = 2.0 * (1.0 - kb) * kb / kg * c_gain;
  g_from_v = 2.0 * (1.0 - kr) * kr / kg * c_gain;

  self->matrix.y_offset = offset[0];
  self->matrix.y_gain = y_gain;
  self->matrix.from_u[self->red_pos] = 0.0f;
  self->matrix.from_v[self->red_pos] = r_from_v;
  self->matrix.from_u[1] = -g_from_u;
  self->matrix.from_v[1] = -g_from_v;
  self->matrix.from_u[self->blue_pos] = b_from_u;
  self->matrix.from_v[self->blue_pos] = 0.0f;

  GST_DEBUG ("YUV matrix %d range %d (Kr %f Kb %f)", matrix, range, kr, kb);
}

/* Whether the float bilinear arithmetic on bytes with weight @w is exact:
 * with weights that are multiples of 1 / WEIGHT_ONE (2^-6) every value
 * needs at most 8 + 2 * 6 bits, well inside a float's 24. */
static gboolean
is_dyadic (gfloat w)
{
  const gfloat scaled = w * WEIGHT_ONE;

  return scaled == floorf (scaled);
}

/* Every weight of @w a multiple of 2^-@bits: at 7 bits the float
 * arithmetic still needs at most 8 + 2 * 7 bits, exact too. */
static gboolean
weights_fit (const gfloat * w, gint n, gint bits)
{
  const gfloat one = (gfloat) (1 << bits);
  gint i;

  for (i = 0; i < n; i++)
    if (w[i] * one != floorf (w[i] * one))
      return FALSE;
  return TRUE;
}

/* The source taps of one output sample at @luma (in luma pixels; @sub is
 * the component's subsampling factor), kept inside [@lo, @hi]. At the
 * region's edges the sample clamps to one tap rather than blending in
 * pixels from outside the region. */
static void
sample_taps (gdouble luma, gdouble sub, gint lo, gint hi, gboolean bilinear,
    gint * i0, gint * i1, gdouble * w)
{
  *w = 0.0;
  if (bilinear) {
    gdouble pos = luma / sub - 0.5;

    *i0 = (gint) floor (pos);
    *w = pos - *i0;
    if (*i0 < lo) {
      *i0 = lo;
      *w = 0.0;
    }
    if (*i0 >= hi) {
      *i0 = hi;
      *w = 0.0;
    }
    *i1 = *w > 0.0 ? *i0 + 1 : *i0;
  } else {
    *i0 = CLAMP ((gint) floor (luma / sub), lo, hi);
    *i1 = *i0;
  }
}

/* Fills the sampling tables for the region of @lb. Coordinates follow
 * pixel centres: tensor column x samples the region at (x + 0.5) * w / rw
 * - 0.5 in the component's own grid, where a subsampled chroma sample
 * sits at the centre of the luma samples it covers. Bilinear taps are
 * clamped to the region like OpenCV's resize; nearest takes the sample
 * under the pixel centre. w / rw is 1 / scale_x of the geometry, per axis
 * (letterbox or stretch), the map gst_ax_letterbox_geometry_to_source() inverts:
 * the two agree to the last bits of a double. */
static void
sample_tables_compute (SampleTables * t, const GstVideoInfo * info,
    const GstAxLetterboxGeometry * lb, gboolean bilinear)
{
  const GstVideoFormatInfo *finfo = info->finfo;
  const gdouble fx = (gdouble) lb->src_width / lb->resized_width;
  const gdouble fy = (gdouble) lb->src_height / lb->resized_height;
  gint c, p, x, y;

  for (p = 0; p < GST_VIDEO_MAX_PLANES; p++) {
    t->col_lo[p] = G_MAXINT;
    t->col_hi[p] = -1;
  }

  for (c = 0; c < N_CHANNELS; c++) {
    const gint plane = GST_VIDEO_FORMAT_INFO_PLANE (finfo, c);
    const gint pstride = GST_VIDEO_FORMAT_INFO_PSTRIDE (finfo, c);
    const gint poffset = GST_VIDEO_FORMAT_INFO_POFFSET (finfo, c);
    const gint wsub = GST_VIDEO_FORMAT_INFO_W_SUB (finfo, c);
    const gint comp_width = GST_VIDEO_INFO_COMP_WIDTH (info, c);
    const gint lo = lb->src_x >> wsub;
    const gint hi = MIN ((lb->src_x + lb->src_width - 1) >> wsub,
        comp_width - 1);
    const gdouble sub = 1 << wsub;

    t->comp_plane[c] = plane;
    t->one_tap_x[c] = TRUE;
    t->dyadic_x[c] = TRUE;
    for (x = 0; x < lb->resized_width; x++) {
      gint i0, i1;
      gdouble w;

      sample_taps (lb->src_x + (x + 0.5) * fx, sub, lo, hi, bilinear, &i0,
          &i1, &w);
      t->x0[c][x] = i0 * pstride + poffset;
      t->x1[c][x] = i1 * pstride + poffset;
      t->wx[c][x] = w;
      if (w != 0.0)
        t->one_tap_x[c] = FALSE;
      if (!is_dyadic (t->wx[c][x]))
        t->dyadic_x[c] = FALSE;
    }
    /* the longest run of columns x with x + 2 one sample on */
    t->period_lo[c] = t->period_hi[c] = 0;
    {
      const gint ps = GST_VIDEO_FORMAT_INFO_PSTRIDE (finfo, c);
      gint run = 0;

      for (x = 0; x + 2 < lb->resized_width; x++) {
        if (t->x0[c][x + 2] == t->x0[c][x] + ps &&
            t->wx[c][x + 2] == t->wx[c][x]) {
          run++;
          if (run > t->period_hi[c] - t->period_lo[c]) {
            t->period_lo[c] = x + 1 - run;
            t->period_hi[c] = x + 1;
          }
        } else {
          run = 0;
        }
      }
    }
    t->period_taps[c] = TRUE;
    for (x = t->period_lo[c]; x < MIN (t->period_hi[c] + 2,
            lb->resized_width); x++)
      if (t->x1[c][x] != t->x0[c][x] + pstride && t->wx[c][x] != 0.0f)
        t->period_taps[c] = FALSE;
    t->col_lo[plane] = MIN (t->col_lo[plane], t->x0[c][0]);
    t->col_hi[plane] = MAX (t->col_hi[plane], t->x1[c][lb->resized_width - 1]);
  }

  t->n_vector = 0;
  t->n_vector8 = 0;
  t->n_box = 0;
  t->halves = FALSE;
  t->contiguous = FALSE;
  if (GST_VIDEO_FORMAT_INFO_IS_RGB (finfo)) {
    /* packed: the components of a pixel share its taps and weights */
    const gint pstride = GST_VIDEO_FORMAT_INFO_PSTRIDE (finfo, 0);
    const gint poffset = GST_VIDEO_FORMAT_INFO_POFFSET (finfo, 0);
    const gint row_bytes = GST_VIDEO_INFO_COMP_WIDTH (info, 0) * pstride;

    t->contiguous = t->one_tap_x[0] && pstride == N_CHANNELS;
    t->halves = pstride == N_CHANNELS;
    for (x = 0; x < lb->resized_width; x++) {
      t->px0[x] = t->x0[0][x] - poffset;
      t->px1[x] = t->x1[0][x] - poffset;
      if (t->px1[x] + VECTOR_PIXEL_BYTES <= row_bytes)
        t->n_vector = x + 1;
      if (t->px0[x] + 2 * VECTOR_PIXEL_BYTES <= row_bytes)
        t->n_vector8 = x + 1;
      if (t->px0[x] + BOX_LOAD_BYTES <= row_bytes)
        t->n_box = x + 1;
      if (t->wx[0][x] != HALF || t->px0[x] != t->px0[0] + 2 * pstride * x)
        t->halves = FALSE;
      if (t->px0[x] != t->px0[0] + x * pstride)
        t->contiguous = FALSE;
    }
  } else if (GST_VIDEO_FORMAT_INFO_PSTRIDE (finfo, 0) == 1) {
    /* YUV: luma taken one to one */
    t->contiguous = t->one_tap_x[0];
    for (x = 0; x < lb->resized_width; x++)
      if (t->x0[0][x] != t->x0[0][0] + x)
        t->contiguous = FALSE;
  }

  for (p = 0; p < t->n_planes; p++) {
    gint comp[GST_VIDEO_MAX_COMPONENTS];
    gint hsub, comp_height, lo, hi;
    gdouble sub;

    gst_video_format_info_component (finfo, p, comp);
    hsub = GST_VIDEO_FORMAT_INFO_H_SUB (finfo, comp[0]);
    comp_height = GST_VIDEO_INFO_COMP_HEIGHT (info, comp[0]);
    lo = lb->src_y >> hsub;
    hi = MIN ((lb->src_y + lb->src_height - 1) >> hsub, comp_height - 1);
    sub = 1 << hsub;

    t->dyadic_y[p] = TRUE;
    for (y = 0; y < lb->resized_height; y++) {
      gint i0, i1;
      gdouble w;

      sample_taps (lb->src_y + (y + 0.5) * fy, sub, lo, hi, bilinear, &i0,
          &i1, &w);
      t->y0[p][y] = i0;
      t->y1[p][y] = i1;
      t->wy[p][y] = w;
      if (!is_dyadic (t->wy[p][y]))
        t->dyadic_y[p] = FALSE;
    }
  }

  t->packed_bits = 0;
  if (GST_VIDEO_FORMAT_INFO_IS_RGB (finfo)) {
    if (t->dyadic_x[0] && t->dyadic_y[0])
      t->packed_bits = WEIGHT_BITS;
    else if (weights_fit (t->wx[0], lb->resized_width, FINE_WEIGHT_BITS) &&
        weights_fit (t->wy[0], lb->resized_height, FINE_WEIGHT_BITS))
      t->packed_bits = FINE_WEIGHT_BITS;
    for (x = 0; x < lb->resized_width && t->packed_bits; x++) {
      const gint one = 1 << t->packed_bits;
      const gint m = (gint) (t->wx[0][x] * one);
      gint k;

      for (k = 0; k < PAIRS_PER_VECTOR; k++)
        t->wx_pair[PAIRS_PER_VECTOR * x + k] =
            (gint32) (((guint32) m << WEIGHT_PAIR_SHIFT) | (guint32) (one - m));
    }
  }
}

static void
sample_tables_alloc (SampleTables * t, const GstVideoInfo * info,
    gint max_width, gint max_height)
{
  const GstVideoFormatInfo *finfo = info->finfo;
  gint row_bytes[GST_VIDEO_MAX_PLANES] = { 0, };
  gint c, p;

  sample_tables_clear (t);
  t->n_planes = GST_VIDEO_INFO_N_PLANES (info);
  for (c = 0; c < N_CHANNELS; c++) {
    const gint plane = GST_VIDEO_FORMAT_INFO_PLANE (finfo, c);
    const gint bytes = (GST_VIDEO_INFO_COMP_WIDTH (info, c) - 1) *
        GST_VIDEO_FORMAT_INFO_PSTRIDE (finfo, c) +
        GST_VIDEO_FORMAT_INFO_POFFSET (finfo, c) + 1;

    row_bytes[plane] = MAX (row_bytes[plane], bytes);
    t->x0[c] = g_new (gint32, max_width);
    t->x1[c] = g_new (gint32, max_width);
    t->wx[c] = g_new (gfloat, max_width);
    t->comp[c] = g_new (gfloat, max_width);
  }
  for (p = 0; p < t->n_planes; p++) {
    t->y0[p] = g_new (gint32, max_height);
    t->y1[p] = g_new (gint32, max_height);
    t->wy[p] = g_new (gfloat, max_height);
    /* the vector kernels load the taps of the last column as a group */
    t->rowf[p] = g_new0 (gfloat, row_bytes[p] + ROW_PAD_FLOATS);
  }
  if (GST_VIDEO_FORMAT_INFO_IS_YUV (finfo)) {
    /* the vector kernels load CHROMA16_PAD samples past the last */
    for (c = 0; c < 2; c++)
      t->chroma16[c] = g_new0 (gint16, GST_VIDEO_INFO_COMP_WIDTH (info, 1) +
          CHROMA16_PAD);
  }
  if (GST_VIDEO_FORMAT_INFO_IS_RGB (finfo)) {
    t->px0 = g_new (gint32, max_width);
    t->px1 = g_new (gint32, max_width);
    t->wx_pair = g_new (gint32, (gsize) max_width * PAIRS_PER_VECTOR);
  }
}

/* The divisor d of a pixel scale that is 1 / d with 2 d an integer (1/255,
 * 1/127.5, 1, ...), or 0: dividing by d in double gives the exact value
 * that the float scale only approximates, and keeps the default (p / 255)
 * bit-identical with the element's quantisation before preprocessing. */
static gdouble
pixel_divisor (gfloat scale)
{
  const gdouble half_steps = nearbyint (2.0 / scale);
  const gdouble d = half_steps / 2.0;

  if (half_steps >= 1.0 && fabs (d * scale - 1.0) < DIVISOR_TOLERANCE)
    return d;
  return 0.0;
}

/* The real value the model sees for pixel value @p of tensor channel
 * @c: (p * scale - mean) / std. */
static gdouble
preprocess_value (const GstAxLetterboxRender * self, gint c, gdouble p)
{
  const GstAxModelPreprocess *pp = &self->cfg_pp;
  const gdouble v = self->pixel_divisor > 0.0 ? p / self->pixel_divisor :
      p * (gdouble) pp->scale;

  return (v - (gdouble) pp->mean[c]) / (gdouble) pp->std[c];
}

/* The tensor value of real value @real, in double like the LUT. */
static void
quantise_value (const GstAxLetterboxRender * self, gdouble real,
    guint8 * q_u8, gfloat * q_f32)
{
  const gdouble scaled = real / self->tensor_scale;
  const gdouble q = round (scaled + self->zero_point_offset) +
      self->tensor_zero_point;

  *q_u8 = 0;
  *q_f32 = 0.0f;
  switch (self->tensor_dtype) {
    case GST_AX_TENSOR_DTYPE_U8:
      *q_u8 = (guint8) CLAMP (q, 0, G_MAXUINT8);
      break;
    case GST_AX_TENSOR_DTYPE_I8:
      *q_u8 = (guint8) (gint8) CLAMP (q, G_MININT8, G_MAXINT8);
      break;
    case GST_AX_TENSOR_DTYPE_F32:
      *q_f32 = scaled + self->tensor_zero_point;
      break;
  }
}

/* Gray: the luma of a rendered RGB pixel, in float as the compiler's
 * calibration (sim-npu's imageset) computes it. */
static inline gfloat
gray_of (const guint8 * rgb)
{
  return LUMA_R * rgb[0] + LUMA_G * rgb[1] + LUMA_B * rgb[2];
}

static void
compute_quantisation (GstAxLetterboxRender * self)
{
  const gboolean f32 = self->tensor_dtype == GST_AX_TENSOR_DTYPE_F32;
  gboolean shift = !f32;
  gint v, c;

  self->pixel_divisor = pixel_divisor (self->cfg_pp.scale);
  for (c = 0; c < N_CHANNELS; c++)
    for (v = 0; v <= MAX_PIXEL_VALUE; v++)
      quantise_value (self, preprocess_value (self, c, v),
          &self->lut_u8[c][v], &self->lut_f32[c][v]);
  self->uniform = self->tensor_channels == N_CHANNELS;
  for (c = 1; c < N_CHANNELS && self->uniform; c++)
    if (memcmp (self->lut_u8[c], self->lut_u8[0], sizeof (self->lut_u8[0]))
        || memcmp (self->lut_f32[c], self->lut_f32[0],
            sizeof (self->lut_f32[0])))
      self->uniform = FALSE;

  if (self->tensor_channels == N_CHANNELS) {
    for (c = 0; c < N_CHANNELS; c++) {
      self->qfill_u8[c] = self->lut_u8[c][self->cfg_fill];
      self->qfill_f32[c] = self->lut_f32[c][self->cfg_fill];
    }
  } else {
    const guint8 fill[N_CHANNELS] = { self->cfg_fill, self->cfg_fill,
      self->cfg_fill
    };

    quantise_value (self, preprocess_value (self, 0, gray_of (fill)),
        &self->qfill_u8[0], &self->qfill_f32[0]);
  }

  /* u8 with scale 1/255 and zero point 0 is the identity, i8 with zero
   * point -128 flips the top bit: both are an XOR of every byte */
  self->flip = self->lut_u8[0][0];
  if (self->flip != 0 && self->flip != SIGN_BIT)
    shift = FALSE;
  if (!self->uniform)
    shift = FALSE;
  for (v = 0; v <= MAX_PIXEL_VALUE && shift; v++)
    if (self->lut_u8[0][v] != (v ^ self->flip))
      shift = FALSE;
  self->direct_u8 = shift && self->tensor_layout == GST_AX_TENSOR_LAYOUT_NHWC;
  if (!self->direct_u8)
    self->flip = 0;

  /* Other quantisations: the vector kernel computes saturate (nearbyint
   * ((float) p * gain + bias) + zero point) in float; it is used only if
   * it gives the LUT's byte for every one of the 256 pixel values. The
   * bias is the mean folded in, 0 without one (then the sum is the
   * product exactly). */
  self->affine = FALSE;
  if (!self->direct_u8 && !f32 && self->uniform) {
    const gboolean s8 = self->tensor_dtype == GST_AX_TENSOR_DTYPE_I8;
    const gdouble at0 = preprocess_value (self, 0, 0.0);
    const gdouble at1 = preprocess_value (self, 0, 1.0);

    self->affine_gain = (gfloat) ((at1 - at0) / self->tensor_scale);
    self->affine_bias = (gfloat) (at0 / self->tensor_scale +
        self->zero_point_offset);
    self->affine = self->tensor_zero_point >= MIN_AFFINE_ZERO_POINT &&
        self->tensor_zero_point <= MAX_AFFINE_ZERO_POINT;
    for (v = 0; v <= MAX_PIXEL_VALUE && self->affine; v++) {
      const gfloat scaled = (gfloat) v * self->affine_gain + self->affine_bias;
      gint q;

      if (!(fabsf (scaled) < MAX_AFFINE_SCALED))
        self->affine = FALSE;
      q = (gint) nearbyintf (scaled) + self->tensor_zero_point;
      q = s8 ? CLAMP (q, G_MININT8, G_MAXINT8) : CLAMP (q, 0, G_MAXUINT8);
      if ((guint8) q != self->lut_u8[0][v])
        self->affine = FALSE;
    }
  }
  GST_DEBUG ("quantisation: %s", self->tensor_channels == 1 ?
      "gray in float" : (self->direct_u8 ? (self->flip ?
              "top bit flipped in the stores" : "identity") :
          (self->affine ? "vector affine map" : (self->uniform ? "LUT" :
                  "per-channel LUT"))));
}

#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__) \
    && !defined(__SANITIZE_THREAD__)
/* The arithmetic row loops are compiled for AVX2 (8 lanes) and for the
 * baseline; the loader picks one for the CPU. The gather loops stay
 * baseline: AVX2 gathers were no faster on the development machine.
 * Not under ThreadSanitizer: gcc instruments the ifunc resolvers, which
 * the dynamic loader runs before the TSan runtime is set up. */
#define ROW_LOOP __attribute__ ((target_clones ("avx2", "default")))
#else
#define ROW_LOOP
#endif
#define GATHER_LOOP

/* Vertical pass of bilinear sampling: one plane row blended from two
 * source rows, over the byte range the x tables read. */
ROW_LOOP static void
blend_rows (gfloat * restrict dst, const guint8 * restrict a,
    const guint8 * restrict b, gfloat w, gint n)
{
  gint i;

  for (i = 0; i < n; i++) {
    const gfloat va = a[i];

    dst[i] = va + ((gfloat) b[i] - va) * w;
  }
}

/* One-tap samples on consecutive bytes (luma at 1:1) */
ROW_LOOP static void
widen_u8 (gfloat * restrict dst, const guint8 * restrict row, gint n)
{
  gint i;

  for (i = 0; i < n; i++)
    dst[i] = row[i];
}

/* Horizontal passes, one component at a time: from a source row (u8) or
 * a blended row (float), one tap where every weight is 0, else two. */
GATHER_LOOP static void
gather_u8 (gfloat * restrict dst, const guint8 * restrict row,
    const gint32 * restrict i0, gint n)
{
  gint x;

  for (x = 0; x < n; x++)
    dst[x] = row[i0[x]];
}

GATHER_LOOP static void
lerp_u8 (gfloat * restrict dst, const guint8 * restrict row,
    const gint32 * restrict i0, const gint32 * restrict i1,
    const gfloat * restrict w, gint n)
{
  gint x;

  for (x = 0; x < n; x++) {
    const gfloat a = row[i0[x]];

    dst[x] = a + ((gfloat) row[i1[x]] - a) * w[x];
  }
}

GATHER_LOOP static void
gather_f32 (gfloat * restrict dst, const gfloat * restrict row,
    const gint32 * restrict i0, gint n)
{
  gint x;

  for (x = 0; x < n; x++)
    dst[x] = row[i0[x]];
}

GATHER_LOOP static void
lerp_f32 (gfloat * restrict dst, const gfloat * restrict row,
    const gint32 * restrict i0, const gint32 * restrict i1,
    const gfloat * restrict w, gint n)
{
  gint x;

  for (x = 0; x < n; x++) {
    const gfloat a = row[i0[x]];

    dst[x] = a + (row[i1[x]] - a) * w[x];
  }
}

/* One-tap RGB rows need no arithmetic: bytes are copied into place. */
GATHER_LOOP static void
copy_rgb (guint8 * restrict out, const guint8 * restrict row,
    const gint32 * restrict c0, const gint32 * restrict c1,
    const gint32 * restrict c2, guint8 flip, gint n)
{
  gint x;

  for (x = 0; x < n; x++) {
    out[N_CHANNELS * x] = row[c0[x]] ^ flip;
    out[N_CHANNELS * x + 1] = row[c1[x]] ^ flip;
    out[N_CHANNELS * x + 2] = row[c2[x]] ^ flip;
  }
}

/* Rows of consecutive RGB pixels taken one to one. */
ROW_LOOP static void
copy_flip (guint8 * restrict out, const guint8 * restrict in, guint8 flip,
    gint n)
{
  gint i;

  for (i = 0; i < n; i++)
    out[i] = in[i] ^ flip;
}

/* One tensor value of a packed RGB pixel in both axes at once: the two
 * vertical blends (one per horizontal tap), then the horizontal one, with
 * the very operations of the separate passes, so that a zero weight
 * reduces exactly to a copy of the tap. */
static inline guint8
lerp_packed_value (const guint8 * top, const guint8 * bot, gint i0, gint i1,
    gfloat wy, gfloat wx)
{
  const gfloat t0 = top[i0], t1 = top[i1];
  const gfloat a = t0 + ((gfloat) bot[i0] - t0) * wy;
  const gfloat b = t1 + ((gfloat) bot[i1] - t1) * wy;

  return (guint8) (gint32) (a + (b - a) * wx + 0.5f);
}

/* Packed RGB in, both passes fused; @off are the byte offsets of the
 * tensor's channels inside a pixel. */
static void
lerp_packed (guint8 * restrict out, const guint8 * restrict top,
    const guint8 * restrict bot, gfloat wy, const gint32 * restrict p0,
    const gint32 * restrict p1, const gfloat * restrict w,
    const gint off[N_CHANNELS], guint8 flip, gint from, gint n)
{
  gint x, k;

  for (x = from; x < n; x++)
    for (k = 0; k < N_CHANNELS; k++)
      out[N_CHANNELS * x + k] = lerp_packed_value (top, bot, p0[x] + off[k],
          p1[x] + off[k], wy, w[x]) ^ flip;
}

/* Two-tap RGB from a blended row: the three components of a pixel sit at
 * fixed offsets from its first byte, so one index and one weight serve
 * all three. */
GATHER_LOOP static void
lerp_rgb_f32 (guint8 * restrict out, const gfloat * restrict row,
    const gint32 * restrict i0, const gint32 * restrict i1,
    const gfloat * restrict w, gint d0, gint d1, gint d2, guint8 flip, gint n)
{
  gint x;

  for (x = 0; x < n; x++) {
    const gfloat *a = row + i0[x], *b = row + i1[x];
    const gfloat wx = w[x];

    out[N_CHANNELS * x] = (guint8) (gint32) (a[d0] + (b[d0] - a[d0]) * wx +
        0.5f) ^ flip;
    out[N_CHANNELS * x + 1] = (guint8) (gint32) (a[d1] + (b[d1] - a[d1]) *
        wx + 0.5f) ^ flip;
    out[N_CHANNELS * x + 2] = (guint8) (gint32) (a[d2] + (b[d2] - a[d2]) *
        wx + 0.5f) ^ flip;
  }
}

/* Interleaves three 0..255 float rows into u8 pixels; a convex
 * combination of bytes needs no clamping. */
ROW_LOOP static void
combine_rgb (guint8 * restrict out, const gfloat * restrict c0,
    const gfloat * restrict c1, const gfloat * restrict c2, guint8 flip, gint n)
{
  gint x;

  for (x = 0; x < n; x++) {
    out[N_CHANNELS * x] = (guint8) (gint32) (c0[x] + 0.5f) ^ flip;
    out[N_CHANNELS * x + 1] = (guint8) (gint32) (c1[x] + 0.5f) ^ flip;
    out[N_CHANNELS * x + 2] = (guint8) (gint32) (c2[x] + 0.5f) ^ flip;
  }
}

/* The components of YUV columns [@from, @to) with blend_rows' and
 * lerp_f32's float operations, straight from the source rows: the few
 * columns around a vector kernel's run. */
static void
sample_yuv_columns (SampleTables * t, const guint8 * const *top,
    const guint8 * const *bot, gint y, gint from, gint to)
{
  gint c, x;

  for (c = 0; c < N_CHANNELS; c++) {
    const gint pl = t->comp_plane[c];
    const gfloat wy = t->wy[pl][y];

    for (x = from; x < to; x++) {
      const gfloat a0 = top[pl][t->x0[c][x]], a1 = top[pl][t->x1[c][x]];
      const gfloat a = a0 + ((gfloat) bot[pl][t->x0[c][x]] - a0) * wy;
      const gfloat b = a1 + ((gfloat) bot[pl][t->x1[c][x]] - a1) * wy;

      t->comp[c][x] = a + (b - a) * t->wx[c][x];
    }
  }
}

ROW_LOOP static void
combine_yuv (guint8 * restrict out, const gfloat * restrict yr,
    const gfloat * restrict ur, const gfloat * restrict vr,
    const YuvMatrix * restrict m, guint8 flip, gint n)
{
  const gfloat yo = m->y_offset, yg = m->y_gain;
  const gfloat u0 = m->from_u[0], u1 = m->from_u[1], u2 = m->from_u[2];
  const gfloat v0 = m->from_v[0], v1 = m->from_v[1], v2 = m->from_v[2];
  gint x;

  for (x = 0; x < n; x++) {
    const gfloat l = (yr[x] - yo) * yg + 0.5f;
    const gfloat u = ur[x] - CHROMA_OFFSET;
    const gfloat v = vr[x] - CHROMA_OFFSET;
    /* rounded by truncation; clamped as integers, which vectorises where
     * float clamps (NaN rules) do not */
    gint32 a = (gint32) (l + u0 * u + v0 * v);
    gint32 b = (gint32) (l + u1 * u + v1 * v);
    gint32 c = (gint32) (l + u2 * u + v2 * v);

    a = a < 0 ? 0 : (a > MAX_PIXEL_VALUE ? MAX_PIXEL_VALUE : a);
    b = b < 0 ? 0 : (b > MAX_PIXEL_VALUE ? MAX_PIXEL_VALUE : b);
    c = c < 0 ? 0 : (c > MAX_PIXEL_VALUE ? MAX_PIXEL_VALUE : c);
    out[N_CHANNELS * x] = (guint8) a ^ flip;
    out[N_CHANNELS * x + 1] = (guint8) b ^ flip;
    out[N_CHANNELS * x + 2] = (guint8) c ^ flip;
  }
}

ROW_LOOP static void
pack_lut_u8 (guint8 * restrict out, const guint8 * restrict in,
    const guint8 * restrict lut, gint n)
{
  gint i;

  for (i = 0; i < n; i++)
    out[i] = lut[in[i]];
}

ROW_LOOP static void
pack_lut_f32 (gfloat * restrict out, const guint8 * restrict in,
    const gfloat * restrict lut, gint n)
{
  gint i;

  for (i = 0; i < n; i++)
    out[i] = lut[in[i]];
}

/* NHWC with a table per channel (means or stds that differ) */
static void
pack_lut3_u8 (guint8 * restrict out, const guint8 * restrict in,
    const guint8 (*restrict lut)[MAX_PIXEL_VALUE + 1], gint n)
{
  gint x, k;

  for (x = 0; x < n; x++)
    for (k = 0; k < N_CHANNELS; k++)
      out[N_CHANNELS * x + k] = lut[k][in[N_CHANNELS * x + k]];
}

static void
pack_lut3_f32 (gfloat * restrict out, const guint8 * restrict in,
    const gfloat (*restrict lut)[MAX_PIXEL_VALUE + 1], gint n)
{
  gint x, k;

  for (x = 0; x < n; x++)
    for (k = 0; k < N_CHANNELS; k++)
      out[N_CHANNELS * x + k] = lut[k][in[N_CHANNELS * x + k]];
}

/* Gray: each rendered RGB pixel's luma, preprocessed and quantised in
 * double like the LUTs (the luma is not a byte, so no table). */
static void
pack_gray (const GstAxLetterboxRender * self, guint8 * restrict out,
    const guint8 * restrict in, gint n)
{
  const gboolean f32 = self->tensor_dtype == GST_AX_TENSOR_DTYPE_F32;
  gint x;

  for (x = 0; x < n; x++) {
    guint8 q;
    gfloat f;

    quantise_value (self, preprocess_value (self, 0,
            gray_of (in + N_CHANNELS * x)), &q, &f);
    if (f32)
      memcpy (out + x * sizeof (gfloat), &f, sizeof (f));
    else
      out[x] = q;
  }
}

static void
pack_planar_u8 (guint8 * restrict out, const guint8 * restrict in,
    const guint8 * restrict lut, gint channel, gint n)
{
  gint x;

  for (x = 0; x < n; x++)
    out[x] = lut[in[N_CHANNELS * x + channel]];
}

static void
pack_planar_f32 (gfloat * restrict out, const guint8 * restrict in,
    const gfloat * restrict lut, gint channel, gint n)
{
  gint x;

  for (x = 0; x < n; x++)
    out[x] = lut[in[N_CHANNELS * x + channel]];
}

static void
fill_f32 (gfloat * restrict out, gfloat value, gsize n)
{
  gsize i;

  for (i = 0; i < n; i++)
    out[i] = value;
}

/* Fills a rectangle of the tensor with the quantised fill value. */
static void
fill_rect (GstAxLetterboxRender * self, guint8 * tensor, gint x, gint y,
    gint w, gint h)
{
  const gsize esize = gst_ax_tensor_dtype_size (self->tensor_dtype);
  const gint tw = self->tensor_width, th = self->tensor_height;
  const gint nc = self->tensor_channels;
  const gboolean f32 = self->tensor_dtype == GST_AX_TENSOR_DTYPE_F32;
  const gboolean same = nc == GRAY_CHANNELS ||
      (self->qfill_u8[0] == self->qfill_u8[1] &&
      self->qfill_u8[0] == self->qfill_u8[2] &&
      self->qfill_f32[0] == self->qfill_f32[1] &&
      self->qfill_f32[0] == self->qfill_f32[2]);
  gint row, c, i;

  if (w <= 0 || h <= 0)
    return;

  if (self->tensor_layout == GST_AX_TENSOR_LAYOUT_NHWC || nc == 1) {
    const gsize run = (gsize) w * nc;

    for (row = y; row < y + h; row++) {
      guint8 *p = tensor + (((gsize) row * tw + x) * nc) * esize;

      if (same && f32)
        fill_f32 ((gfloat *) p, self->qfill_f32[0], run);
      else if (same)
        memset (p, self->qfill_u8[0], run);
      else if (f32)
        for (i = 0; i < w; i++)
          memcpy (p + (gsize) i * N_CHANNELS * esize, self->qfill_f32,
              sizeof (self->qfill_f32));
      else
        for (i = 0; i < w; i++)
          memcpy (p + (gsize) i * N_CHANNELS, self->qfill_u8,
              sizeof (self->qfill_u8));
    }
  } else {
    for (c = 0; c < N_CHANNELS; c++) {
      for (row = y; row < y + h; row++) {
        guint8 *p = tensor + (((gsize) c * th + row) * tw + x) * esize;

        if (f32)
          fill_f32 ((gfloat *) p, self->qfill_f32[c], w);
        else
          memset (p, self->qfill_u8[c], w);
      }
    }
  }
}

/* Writes one tensor: content rows in one pass (sample, convert, quantise
 * per row), then the pad bands. */
void
gst_ax_letterbox_render_frame (GstAxLetterboxRender * self,
    const GstVideoFrame * frame, guint8 * tensor)
{
  const GstAxLetterboxGeometry *lb = &self->lb;
  SampleTables *t = &self->tables;
  const gint rw = lb->resized_width, rh = lb->resized_height;
  const gint tw = self->tensor_width, th = self->tensor_height;
  const gint px = lb->pad_x, py = lb->pad_y;
  const gsize esize = gst_ax_tensor_dtype_size (self->tensor_dtype);
  /* components in tensor channel order */
  const gint first = self->red_pos == 0 ? 0 : 2, third = 2 - first;
  const gboolean one_tap_x = t->one_tap_x[0] && t->one_tap_x[1] &&
      t->one_tap_x[2];
  const guint8 flip = self->flip;
  const guint8 *src_row[GST_VIDEO_MAX_PLANES] = { NULL, };
  const guint8 *src_row1[GST_VIDEO_MAX_PLANES] = { NULL, };
  gboolean blended[GST_VIDEO_MAX_PLANES] = { FALSE, };
  gint off[N_CHANNELS] = { 0, };
  const gint pstride = GST_VIDEO_FORMAT_INFO_PSTRIDE (frame->info.finfo, 0);
  gboolean fused = FALSE, in_order = FALSE, dyadic = FALSE;
  gboolean yuv_vector = FALSE, uv_taps = FALSE, yuv_period2 = FALSE;
  gboolean pair_taps[N_CHANNELS] = { FALSE, };
  gint y, p, c;

  if (!self->is_yuv) {
    /* byte offsets of the tensor channels inside a source pixel */
    off[0] = t->x0[first][0] - t->px0[0];
    off[1] = t->x0[1][0] - t->px0[0];
    off[2] = t->x0[third][0] - t->px0[0];
    in_order = off[0] == 0 && off[1] == 1 && off[2] == 2;
    fused = self->use_simd;
    dyadic = t->packed_bits != 0;
  } else if (self->use_simd) {
    const GstVideoFormatInfo *finfo = frame->info.finfo;

    yuv_vector = TRUE;
    for (c = 0; c < N_CHANNELS; c++)
      pair_taps[c] = GST_VIDEO_FORMAT_INFO_PSTRIDE (finfo, c) == 1;
    uv_taps = t->comp_plane[1] == t->comp_plane[2] &&
        GST_VIDEO_FORMAT_INFO_PSTRIDE (finfo, 1) == 2 &&
        GST_VIDEO_FORMAT_INFO_PSTRIDE (finfo, 2) == 2 &&
        t->x0[2][0] == t->x0[1][0] + 1;
    /* 1:1 luma and exact 2x chroma upsampling (dyadic in both axes) in one
     * period-2 run shared by U and V: the fused kernel */
    yuv_period2 = t->contiguous && t->dyadic_x[1] && t->dyadic_x[2] &&
        t->dyadic_y[t->comp_plane[1]] && t->dyadic_y[t->comp_plane[2]] &&
        t->period_lo[1] == t->period_lo[2] &&
        t->period_hi[1] == t->period_hi[2] &&
        t->period_hi[1] - t->period_lo[1] >= PERIOD_BLOCK &&
        t->period_taps[1] && t->period_taps[2] &&
        (uv_taps || (pair_taps[1] && pair_taps[2] &&
            t->comp_plane[1] != t->comp_plane[2] &&
            t->x0[2][0] == t->x0[1][0]));
  }
#ifndef HAVE_X86_SIMD
  /* only the vector kernels look at these */
  (void) dyadic;
  (void) uv_taps;
  (void) pair_taps;
  (void) pstride;
  (void) yuv_period2;
#endif

  for (y = 0; y < rh; y++) {
    const gint ty = py + y;
    guint8 *out;

    if (self->direct_u8)
      out = tensor + ((gsize) ty * tw + px) * N_CHANNELS;
    else
      out = self->scratch;

    for (p = 0; p < t->n_planes; p++) {
      const guint8 *base = GST_VIDEO_FRAME_PLANE_DATA (frame, p);
      const gint stride = GST_VIDEO_FRAME_PLANE_STRIDE (frame, p);

      src_row[p] = base + (gsize) t->y0[p][y] * stride;
      src_row1[p] = base + (gsize) t->y1[p][y] * stride;
      blended[p] = t->wy[p][y] != 0.0f;
    }

    if (!self->is_yuv && t->contiguous && in_order && !blended[0]) {
      copy_flip (out, src_row[0] + t->px0[0], flip, rw * N_CHANNELS);
    } else if (fused) {
      gint done = 0;

#ifdef HAVE_X86_SIMD
      if (t->halves && t->wy[0][y] == HALF)
        done = gst_ax_letterbox_avx2_box2_packed (out, src_row[0], src_row1[0],
            src_row[0] + t->px0[0], off, flip, t->n_box, rw);
      if (dyadic && done < t->n_vector8)
        done +=
            gst_ax_letterbox_avx2_dyadic_packed (out + N_CHANNELS * done,
            src_row[0], src_row1[0],
            (gint) (t->wy[0][y] * (1 << t->packed_bits)), t->packed_bits,
            t->px0 + done, t->wx_pair + PAIRS_PER_VECTOR * done, off, pstride,
            flip, t->n_vector8 - done);
      else if (!dyadic)
        done =
            gst_ax_letterbox_avx2_lerp_packed (out, src_row[0], src_row1[0],
            t->wy[0][y], t->px0, t->px1, t->wx[0], off, flip, t->n_vector);
#endif
      lerp_packed (out, src_row[0], src_row1[0], t->wy[0][y], t->px0,
          t->px1, t->wx[0], off, flip, done, rw);
#ifdef HAVE_X86_SIMD
    } else if (yuv_period2 && !blended[0]) {
      const gint pu = t->comp_plane[1], pv = t->comp_plane[2];
      const gint ps = GST_VIDEO_FORMAT_INFO_PSTRIDE (frame->info.finfo, 1);
      const gint poff = GST_VIDEO_FORMAT_INFO_POFFSET (frame->info.finfo, 1);
      const gint s_lo = (t->col_lo[pu] - poff) / ps;
      const gint s_hi = (t->col_hi[pu] - poff) / ps;
      const gint lo = t->period_lo[1];
      gint end;

      gst_ax_letterbox_avx2_chroma16_rows (t->chroma16[0], t->chroma16[1],
          src_row[pu], src_row1[pu], (gint) (t->wy[pu][y] * WEIGHT_ONE),
          uv_taps, s_lo, s_hi);
      if (!uv_taps)
        gst_ax_letterbox_avx2_chroma16_rows (t->chroma16[1], NULL, src_row[pv],
            src_row1[pv], (gint) (t->wy[pv][y] * WEIGHT_ONE), FALSE, s_lo,
            s_hi);
      end =
          gst_ax_letterbox_avx2_yuv_period2 (out,
          src_row[t->comp_plane[0]] + t->x0[0][0], t->chroma16[0],
          t->chroma16[1], t->x0[1], ps, poff, t->wx[1], &self->matrix, flip, lo,
          t->period_hi[1], rw);
      sample_yuv_columns (t, src_row, src_row1, y, 0, lo);
      combine_yuv (out, t->comp[0], t->comp[1], t->comp[2], &self->matrix,
          flip, lo);
      sample_yuv_columns (t, src_row, src_row1, y, end, rw);
      combine_yuv (out + N_CHANNELS * end, t->comp[0] + end,
          t->comp[1] + end, t->comp[2] + end, &self->matrix, flip, rw - end);
#endif
    } else if (yuv_vector) {
      const gboolean copy_luma = t->contiguous && !blended[0];

      /* every plane blended, at weight 0 too (a copy), for the vector
       * horizontal passes */
      for (p = 0; p < t->n_planes; p++) {
        const gint lo = t->col_lo[p];

        if (p == t->comp_plane[0] && copy_luma)
          continue;
        blend_rows (t->rowf[p] + lo, src_row[p] + lo, src_row1[p] + lo,
            t->wy[p][y], t->col_hi[p] - lo + 1);
      }
      for (c = 0; c < N_CHANNELS; c++) {
        const gint pl = t->comp_plane[c];
        gint done = 0;

        if (c == 0 && copy_luma) {
          widen_u8 (t->comp[0], src_row[pl] + t->x0[0][0], rw);
          continue;
        }
#ifdef HAVE_X86_SIMD
        if (c == 1 && uv_taps && t->period_hi[1] - t->period_lo[1] >=
            PERIOD_BLOCK && t->period_lo[1] == t->period_lo[2] &&
            t->period_hi[1] == t->period_hi[2]) {
          const gint lo = t->period_lo[1];

          done =
              gst_ax_letterbox_avx2_lerp_uv (t->comp[1], t->comp[2],
              t->rowf[pl], t->x0[1], t->wx[1], lo);
          lerp_f32 (t->comp[1] + done, t->rowf[pl], t->x0[1] + done,
              t->x1[1] + done, t->wx[1] + done, lo - done);
          lerp_f32 (t->comp[2] + done, t->rowf[pl], t->x0[2] + done,
              t->x1[2] + done, t->wx[2] + done, lo - done);
          done =
              gst_ax_letterbox_avx2_lerp_uv_period2 (t->comp[1], t->comp[2],
              t->rowf[pl], t->x0[1], t->wx[1], lo, t->period_hi[1]);
          done +=
              gst_ax_letterbox_avx2_lerp_uv (t->comp[1] + done,
              t->comp[2] + done, t->rowf[pl], t->x0[1] + done, t->wx[1] + done,
              rw - done);
          lerp_f32 (t->comp[2] + done, t->rowf[pl], t->x0[2] + done,
              t->x1[2] + done, t->wx[2] + done, rw - done);
        } else if (c == 1 && uv_taps) {
          done =
              gst_ax_letterbox_avx2_lerp_uv (t->comp[1], t->comp[2],
              t->rowf[pl], t->x0[1], t->wx[1], rw);
          lerp_f32 (t->comp[2] + done, t->rowf[pl], t->x0[2] + done,
              t->x1[2] + done, t->wx[2] + done, rw - done);
        } else if (c == 2 && uv_taps) {
          continue;
        } else if (pair_taps[c] && t->period_hi[c] - t->period_lo[c] >=
            PERIOD_BLOCK) {
          const gint lo = t->period_lo[c];

          done =
              gst_ax_letterbox_avx2_lerp_pairs (t->comp[c], t->rowf[pl],
              t->x0[c], t->wx[c], lo);
          lerp_f32 (t->comp[c] + done, t->rowf[pl], t->x0[c] + done,
              t->x1[c] + done, t->wx[c] + done, lo - done);
          done =
              gst_ax_letterbox_avx2_lerp_period2 (t->comp[c], t->rowf[pl],
              t->x0[c], t->wx[c], lo, t->period_hi[c]);
          done +=
              gst_ax_letterbox_avx2_lerp_pairs (t->comp[c] + done, t->rowf[pl],
              t->x0[c] + done, t->wx[c] + done, rw - done);
        } else if (pair_taps[c]) {
          done =
              gst_ax_letterbox_avx2_lerp_pairs (t->comp[c], t->rowf[pl],
              t->x0[c], t->wx[c], rw);
        }
#endif
        lerp_f32 (t->comp[c] + done, t->rowf[pl], t->x0[c] + done,
            t->x1[c] + done, t->wx[c] + done, rw - done);
      }
      {
        gint done = 0;

#ifdef HAVE_X86_SIMD
        done =
            gst_ax_letterbox_avx2_combine_yuv (out, t->comp[0], t->comp[1],
            t->comp[2], &self->matrix, flip, rw);
#endif
        combine_yuv (out + N_CHANNELS * done, t->comp[0] + done,
            t->comp[1] + done, t->comp[2] + done, &self->matrix, flip,
            rw - done);
      }
    } else {
      for (p = 0; p < t->n_planes; p++) {
        if (blended[p]) {
          const gint lo = t->col_lo[p];

          blend_rows (t->rowf[p] + lo, src_row[p] + lo, src_row1[p] + lo,
              t->wy[p][y], t->col_hi[p] - lo + 1);
        }
      }

      if (!self->is_yuv && one_tap_x && !blended[t->comp_plane[0]]) {
        copy_rgb (out, src_row[t->comp_plane[0]], t->x0[first], t->x0[1],
            t->x0[third], flip, rw);
      } else if (!self->is_yuv && blended[t->comp_plane[0]]) {
        /* x0[c] - x0[0] is the component's fixed byte offset */
        lerp_rgb_f32 (out, t->rowf[t->comp_plane[0]], t->x0[0], t->x1[0],
            t->wx[0], t->x0[first][0] - t->x0[0][0],
            t->x0[1][0] - t->x0[0][0], t->x0[third][0] - t->x0[0][0], flip, rw);
      } else {
        for (c = 0; c < N_CHANNELS; c++) {
          const gint pl = t->comp_plane[c];

          if (blended[pl] && t->one_tap_x[c])
            gather_f32 (t->comp[c], t->rowf[pl], t->x0[c], rw);
          else if (blended[pl])
            lerp_f32 (t->comp[c], t->rowf[pl], t->x0[c], t->x1[c], t->wx[c],
                rw);
          else if (t->one_tap_x[c])
            gather_u8 (t->comp[c], src_row[pl], t->x0[c], rw);
          else
            lerp_u8 (t->comp[c], src_row[pl], t->x0[c], t->x1[c], t->wx[c], rw);
        }
        if (self->is_yuv)
          combine_yuv (out, t->comp[0], t->comp[1], t->comp[2],
              &self->matrix, flip, rw);
        else
          combine_rgb (out, t->comp[first], t->comp[1], t->comp[third], flip,
              rw);
      }
    }

    if (self->direct_u8)
      continue;

    if (self->tensor_channels == GRAY_CHANNELS) {
      pack_gray (self, tensor + ((gsize) ty * tw + px) * esize, out, rw);
    } else if (self->tensor_layout == GST_AX_TENSOR_LAYOUT_NHWC) {
      guint8 *dst = tensor + ((gsize) ty * tw + px) * N_CHANNELS * esize;

      if (self->tensor_dtype == GST_AX_TENSOR_DTYPE_F32 && self->uniform)
        pack_lut_f32 ((gfloat *) dst, out, self->lut_f32[0], rw * N_CHANNELS);
      else if (self->tensor_dtype == GST_AX_TENSOR_DTYPE_F32)
        pack_lut3_f32 ((gfloat *) dst, out, self->lut_f32, rw);
      else if (!self->uniform)
        pack_lut3_u8 (dst, out, self->lut_u8, rw);
      else {
        gint done = 0;

#ifdef HAVE_X86_SIMD
        if (self->affine && self->use_simd)
          done = gst_ax_letterbox_avx2_pack_affine (dst, out, self->affine_gain,
              self->affine_bias, self->tensor_zero_point,
              self->tensor_dtype == GST_AX_TENSOR_DTYPE_I8, rw * N_CHANNELS);
#endif
        pack_lut_u8 (dst + done, out + done, self->lut_u8[0],
            rw * N_CHANNELS - done);
      }
    } else {
      for (c = 0; c < N_CHANNELS; c++) {
        guint8 *dst = tensor + (((gsize) c * th + ty) * tw + px) * esize;

        if (self->tensor_dtype == GST_AX_TENSOR_DTYPE_F32)
          pack_planar_f32 ((gfloat *) dst, out, self->lut_f32[c], c, rw);
        else
          pack_planar_u8 (dst, out, self->lut_u8[c], c, rw);
      }
    }
  }

  fill_rect (self, tensor, 0, 0, tw, py);
  fill_rect (self, tensor, 0, py + rh, tw, th - py - rh);
  fill_rect (self, tensor, 0, py, px, rh);
  fill_rect (self, tensor, px + rw, py, tw - px - rw, rh);
}

/* The frame's own bytes are the tensor when it is packed RGB in the
 * tensor's channel order, u8 without flip, every tensor row one source
 * row taken pixel for pixel (1:1, no padding), and rows without stride
 * padding, so the tensor is one range of the frame. */
gssize
gst_ax_letterbox_render_shared_offset (const GstAxLetterboxRender * self,
    const GstVideoFrame * frame, gsize buffer_size)
{
  const GstAxLetterboxGeometry *lb = &self->lb;
  const SampleTables *t = &self->tables;
  const gint tw = self->tensor_width, th = self->tensor_height;
  const gint first = self->red_pos == 0 ? 0 : 2, third = 2 - first;
  const gint stride = GST_VIDEO_FRAME_PLANE_STRIDE (frame, 0);
  gsize offset;
  gint y;

  if (self->is_yuv || !self->direct_u8 || self->flip != 0 ||
      !t->contiguous || lb->resized_width != tw || lb->resized_height != th ||
      stride != tw * N_CHANNELS ||
      GST_VIDEO_FORMAT_INFO_PSTRIDE (frame->info.finfo, 0) != N_CHANNELS)
    return -1;
  /* channels in the tensor's order at byte offsets 0, 1, 2 of a pixel */
  if (t->px0[0] != 0 || t->x0[first][0] != 0 || t->x0[1][0] != 1 ||
      t->x0[third][0] != 2)
    return -1;
  for (y = 0; y < th; y++)
    if (t->y0[0][y] != t->y0[0][0] + y || t->wy[0][y] != 0.0f)
      return -1;
  offset = GST_VIDEO_INFO_PLANE_OFFSET (&frame->info, 0) +
      (gsize) t->y0[0][0] * stride;
  if (offset > G_MAXSSIZE || buffer_size < offset + self->tensor_bytes)
    return -1;
  return (gssize) offset;
}

gint
gst_ax_letterbox_render_channels (GstAxColorOrder color)
{
  return color == GST_AX_COLOR_ORDER_GRAY ? GRAY_CHANNELS : N_CHANNELS;
}

gsize
gst_ax_letterbox_render_tensor_size (const GstAxLetterboxRenderParams * params)
{
  return (gsize) params->width * params->height *
      gst_ax_letterbox_render_channels (params->preprocess.color) *
      gst_ax_tensor_dtype_size (params->dtype);
}

GstAxLetterboxRender *
gst_ax_letterbox_render_new (const GstVideoInfo * info,
    const GstAxLetterboxRenderParams * params,
    const GstAxLetterboxGeometry * lb)
{
  static gsize debug_once = 0;
  GstAxLetterboxRender *self;

  g_return_val_if_fail (info != NULL && params != NULL, NULL);
  g_return_val_if_fail (params->width > 0 && params->height > 0, NULL);

  if (g_once_init_enter (&debug_once)) {
    GST_DEBUG_CATEGORY_INIT (gst_ax_letterbox_render_debug,
        "axletterboxrender", 0, "ax letterbox pixel engine");
    g_once_init_leave (&debug_once, 1);
  }

  self = g_new0 (GstAxLetterboxRender, 1);
  self->in_info = *info;
  self->is_yuv = GST_VIDEO_INFO_IS_YUV (info);
#ifdef HAVE_X86_SIMD
  self->use_simd = __builtin_cpu_supports ("avx2") && !params->portable;
#endif
  self->tensor_width = params->width;
  self->tensor_height = params->height;
  self->tensor_dtype = params->dtype;
  self->tensor_layout = params->layout;
  self->tensor_scale = params->scale;
  self->tensor_zero_point = params->zero_point;
  self->zero_point_offset = params->zero_point_offset;
  self->bilinear = params->bilinear;
  self->cfg_pp = params->preprocess;
  self->cfg_fill = params->preprocess.fill;
  self->tensor_channels =
      gst_ax_letterbox_render_channels (params->preprocess.color);
  self->tensor_bytes = gst_ax_letterbox_render_tensor_size (params);
  /* gray is reduced from rows rendered as RGB */
  self->red_pos = params->preprocess.color == GST_AX_COLOR_ORDER_BGR ? 2 : 0;
  self->blue_pos = 2 - self->red_pos;
  if (self->is_yuv)
    setup_matrix (self);
  compute_quantisation (self);

  sample_tables_alloc (&self->tables, &self->in_info, self->tensor_width,
      self->tensor_height);
  self->scratch = g_new (guint8, (gsize) self->tensor_width * N_CHANNELS);
  if (lb)
    gst_ax_letterbox_render_set_region (self, lb);
  return self;
}

void
gst_ax_letterbox_render_set_region (GstAxLetterboxRender * self,
    const GstAxLetterboxGeometry * lb)
{
  g_return_if_fail (lb->resized_width <= self->tensor_width &&
      lb->resized_height <= self->tensor_height);

  self->lb = *lb;
  sample_tables_compute (&self->tables, &self->in_info, lb, self->bilinear);
  GST_LOG ("packed integer weights: %d bits", self->tables.packed_bits);
}

void
gst_ax_letterbox_render_free (GstAxLetterboxRender * self)
{
  if (self == NULL)
    return;
  sample_tables_clear (&self->tables);
  g_free (self->scratch);
  g_free (self);
}
