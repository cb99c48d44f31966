/* gst-ax
 * Copyright (C) 2026 gst-ax developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

/* Shared by the files of axnms's decoding engine (gstaxnmsdecode*.c):
 * the scratch of a stream, the constants of the tensors' layouts, the
 * small vector and dequantisation helpers the decoders inline, and the
 * functions one file calls in another. The API is gstaxnmsdecode.h. */

#ifndef __GST_AX_NMS_DECODE_PRIVATE_H__
#define __GST_AX_NMS_DECODE_PRIVATE_H__

#include "gstaxnmsdecode.h"

#include <math.h>
#include <string.h>

G_BEGIN_DECLS

#define LUT_SIZE 256
/* XORing an int8 with this maps it to uint8 with the same order */
#define INT8_BIAS 0x80
/* YOLOv8 rows / YOLOv5 columns before the class scores */
#define YOLOV8_BOX_VALUES 4
#define YOLOV5_BOX_VALUES 4
#define YOLOV5_OBJECTNESS 4
#define YOLOV5_CLASS_OFFSET 5
#define NO_CLASS G_MAXUINT32
/* bytes tested per vector step of the threshold scan */
#define VEC_BYTES 16
#define SCAN_BLOCK_BYTES (4 * VEC_BYTES)
#define SCAN_BLOCK_FLOATS (SCAN_BLOCK_BYTES / 4)
/* kept boxes are tested against a candidate this many at a time: one
 * F32x4 */
#define IOU_BLOCK 4

/* the most CenterNet peaks metadata may ask for */
#define MAX_TOP_K 100000
/* CenterNet box values per cell: left, top, right, bottom */
#define CENTERNET_BOX_VALUES 4
/* SSD regressors before the keypoints: centre x, y, width, height */
#define SSD_BOX_VALUES 4

/* The threshold scans of the heat-map look at blocks of SCAN_BLOCK_BYTES
 * bytes (int8) or SCAN_BLOCK_FLOATS floats and return a bit mask of the
 * values that pass, so that the few hits are visited with ctz. The AVX2
 * versions loop over blocks themselves, returning at the first block with
 * a hit. */
#define CN_BLOCK_U8 64
#define CN_BLOCK_F32 32

#if defined(__x86_64__) || defined(__i386__)
#define HAVE_AVX2_KERNELS 1
#endif

typedef guint8 U8x16 __attribute__((vector_size (VEC_BYTES)));
typedef gfloat F32x4 __attribute__((vector_size (VEC_BYTES)));
typedef gint32 I32x4 __attribute__((vector_size (VEC_BYTES)));
typedef guint64 U64x2 __attribute__((vector_size (VEC_BYTES)));

typedef struct
{
  gboolean valid;
  GstAxTensorDType dtype;
  gfloat scale;
  gint32 zp;
  gboolean sigmoid;
  gfloat lut[LUT_SIZE];
} LutSlot;

struct _GstAxNmsWork
{
  guint capacity;               /* anchors the arrays below can hold */

  /* per-anchor best class among the scores above the threshold:
   * best_class[a] is NO_CLASS until a hit; best_u8 / best_f32 hold its
   * (biased) score. Only touched anchors are reset after a frame. */
  guint32 *best_class;
  guint8 *best_u8;
  gfloat *best_f32;
  guint64 *touched;             /* one bit per anchor */
  guint n_touched_words;

  /* candidates, in anchor order */
  guint n_cand;
  gfloat *cx0, *cy0, *cx1, *cy1, *cscore;
  guint32 *cclass, *canchor;

  /* sort keys and permutation, with scratch for the radix passes */
  guint32 *key, *key_tmp, *order, *order_tmp;

  /* kept boxes, in output order */
  gfloat *kx0, *ky0, *kx1, *ky1, *karea;
  guint32 *kclass;

  /* dequantisation table, valid for lut_dtype / lut_scale / lut_zp */
  gboolean lut_valid;
  GstAxTensorDType lut_dtype;
  gfloat lut_scale;
  gint32 lut_zp;
  gfloat lut[LUT_SIZE];

  /* tables of the other decoders, one per input slot: the value (or its
   * sigmoid) of each biased byte */
  LutSlot slots[GST_AX_NMS_MAX_INPUTS];

  /* weighted NMS: candidates already merged into a kept box, by rank */
  guint8 *consumed;
  /* the hits of the heat-map block being visited */
  guint64 scan_mask;
};

/* Keypoints of an anchor, for decoders that have them (SSD). */
typedef struct
{
  const GstAxNmsParams *params;
  const GstAxNmsInput *inputs;
  guint n_inputs;
} KeypointSource;

static inline gint
raw_int (GstAxTensorDType dtype, guint8 b)
{
  return dtype == GST_AX_TENSOR_DTYPE_I8 ? (gint) (gint8) b : (gint) b;
}

/* Whether any of the SCAN_BLOCK_BYTES bytes at @p, XOR @flip, is >= @t.
 * Explicit vectors: GCC's -O2 cost model leaves the plain loop scalar. */
static inline gboolean
block_any_u8 (const guint8 * p, U8x16 flip, U8x16 t)
{
  U8x16 v0, v1, v2, v3;
  U64x2 m;

  memcpy (&v0, p, VEC_BYTES);
  memcpy (&v1, p + VEC_BYTES, VEC_BYTES);
  memcpy (&v2, p + 2 * VEC_BYTES, VEC_BYTES);
  memcpy (&v3, p + 3 * VEC_BYTES, VEC_BYTES);
  m = (U64x2) (((v0 ^ flip) >= t) | ((v1 ^ flip) >= t) | ((v2 ^ flip) >= t)
      | ((v3 ^ flip) >= t));
  return (m[0] | m[1]) != 0;
}

static inline gboolean
block_any_f32 (const gfloat * p, F32x4 t)
{
  F32x4 v0, v1, v2, v3;
  I32x4 m;

  memcpy (&v0, p, VEC_BYTES);
  memcpy (&v1, p + 4, VEC_BYTES);
  memcpy (&v2, p + 8, VEC_BYTES);
  memcpy (&v3, p + 12, VEC_BYTES);
  m = (v0 > t) | (v1 > t) | (v2 > t) | (v3 > t);
  return (m[0] | m[1] | m[2] | m[3]) != 0;
}

static inline gfloat
sigmoidf (gfloat v)
{
  return 1.0f / (1.0f + expf (-v));
}

/* The value at element @i of a tensor, dequantised. */
static inline gfloat
value_at (const GstAxNmsInput * in, gsize i)
{
  switch (in->dtype) {
    case GST_AX_TENSOR_DTYPE_F32:{
      gfloat v;
      memcpy (&v, (const guint8 *) in->data + i * sizeof (gfloat), sizeof v);
      return v;
    }
    case GST_AX_TENSOR_DTYPE_I8:
      return in->scale * (gfloat) ((gint) ((const gint8 *) in->data)[i]
          - in->zero_point);
    default:
      return in->scale * (gfloat) ((gint) ((const guint8 *) in->data)[i]
          - in->zero_point);
  }
}

/* Anchors of one SSD level. */
static inline guint
ssd_grid (guint input, guint stride)
{
  return (input + stride - 1) / stride;
}

/* The stride of a CenterNet grid: the metadata's, else the input size
 * over the grid. 0 if neither is known. */
static inline guint
centernet_stride (const GstAxNmsParams * p, guint width)
{
  if (p->stride)
    return p->stride;
  if (p->input_width && width && p->input_width % width == 0)
    return p->input_width / width;
  return 0;
}

/* gstaxnmsdecode.c */
G_GNUC_INTERNAL
void gst_ax_nms_decode_work_ensure (GstAxNmsWork * w, guint n_anchors);
G_GNUC_INTERNAL
gboolean gst_ax_nms_decode_lut_build (gfloat * lut, GstAxTensorDType dtype,
    gfloat scale, gint32 zp);
G_GNUC_INTERNAL
const gfloat *gst_ax_nms_decode_slot_lut (GstAxNmsWork * w, guint i,
    const GstAxNmsInput * in, gboolean sigmoid);
G_GNUC_INTERNAL
guint gst_ax_nms_decode_lut_first_above (const gfloat * lut, gfloat thr);

/* gstaxnmsdecode-nms.c */
G_GNUC_INTERNAL
void gst_ax_nms_decode_sort_candidates (GstAxNmsWork * w);
G_GNUC_INTERNAL
guint gst_ax_nms_decode_suppress (GstAxNmsWork * w, const GstAxNmsParams * p,
    const guint32 * order, guint n, const KeypointSource * ks,
    GstAxNmsResult * results, guint limit);

/* gstaxnmsdecode-centernet.c */
G_GNUC_INTERNAL
guint gst_ax_nms_decode_run_centernet (GstAxNmsWork * w,
    const GstAxNmsParams * p, const GstAxNmsInput * inputs,
    GstAxNmsResult * results, guint limit);

/* gstaxnmsdecode-ssd.c */
G_GNUC_INTERNAL
guint gst_ax_nms_decode_run_ssd (GstAxNmsWork * w, const GstAxNmsParams * p,
    const GstAxNmsInput * inputs, guint n_inputs, GstAxNmsResult * results,
    guint limit);
G_GNUC_INTERNAL
void gst_ax_nms_decode_keypoints_of (const KeypointSource * ks, guint anchor,
    gfloat * kp);

#ifdef HAVE_AVX2_KERNELS
/* gstaxnmsdecode-avx2.c, called only when the CPU has AVX2 */
G_GNUC_INTERNAL
gsize gst_ax_nms_decode_next_block_u8_avx2 (const guint8 * t, gsize blk,
    gsize n_blk, guint8 flip, guint first_pass, guint64 * mask);
G_GNUC_INTERNAL
gsize gst_ax_nms_decode_next_block_f32_avx2 (const gfloat * t, gsize blk,
    gsize n_blk, gfloat thr, guint64 * mask);
#endif

G_END_DECLS

#endif /* __GST_AX_NMS_DECODE_PRIVATE_H__ */
