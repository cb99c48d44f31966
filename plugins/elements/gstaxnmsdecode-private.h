/* gst-ax
 * Copyright (C) 2026 gst-ax developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

/* Shared by the files of axnms's decoding engine (gstaxnmsdecode*.c):
 * the scratch of a stream, the row each decoder defines for the table of
 * decoders, the small vector and dequantisation helpers the decoders
 * inline, and the functions one file calls in another. The API is
 * gstaxnmsdecode.h; the dequantisation tables are below, in
 * gstaxnmsdecode-lut.h.
 *
 * A decoder is one file, gstaxnmsdecode-NAME.c, defining its row (a
 * GstAxNmsDecoder: its name, how it reads its metadata, which outputs it
 * reads and how it decodes them) and one line in the table of
 * gstaxnmsdecode.c; the metadata reading (gstaxnmsdecode-params.c), the
 * scratch (-work.c) and the NMS (-nms.c) are shared. */

#ifndef __GST_AX_NMS_DECODE_PRIVATE_H__
#define __GST_AX_NMS_DECODE_PRIVATE_H__

#include "gstaxnmsdecode.h"
#include "gstaxnmsdecode-lut.h"

#include <json-glib/json-glib.h>
#include <math.h>
#include <string.h>

G_BEGIN_DECLS

#define NO_CLASS G_MAXUINT32
/* bytes tested per vector step of the threshold scan */
#define VEC_BYTES 16
#define SCAN_BLOCK_BYTES (4 * VEC_BYTES)
#define SCAN_BLOCK_FLOATS (SCAN_BLOCK_BYTES / 4)
/* kept boxes are tested against a candidate this many at a time: one
 * F32x4 */
#define IOU_BLOCK 4

/* bounds of what metadata may ask for, shared by several decoders */
#define MAX_INPUT_SIZE 16384
#define MAX_STRIDE 1024
#define DEFAULT_ANCHOR_OFFSET 0.5f
/* keeps every q - zero_point exact in a float */
#define MAX_ABS_ZERO_POINT 65536
/* in range without ABS (), which overflows for G_MININT32 */
#define ZERO_POINT_IN_RANGE(zp) \
  ((zp) >= -MAX_ABS_ZERO_POINT && (zp) <= MAX_ABS_ZERO_POINT)

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

/**
 * GstAxNmsDecoder:
 * @name: the "type" of the decoder metadata, the nick of axnms's decode
 * @description: a line for the decode property's values
 * @parse: reads the members of the metadata object that are the
 *   decoder's own (the shared ones are read already, the input names
 *   emptied), into @p, which may be left partly updated on failure
 * @count_inputs: how many of a model's @n_metas outputs the decoder reads
 *   (also the number of names it needs when the metadata names them)
 * @bind: checks the shapes of the outputs picked for it (@picked[i] is
 *   output @idx[i] of the model; their quantisation is checked already)
 *   and sets @inputs from them, data unset
 * @run: decodes @inputs and suppresses, writing at most @limit (> 0)
 *   results, best first
 *
 * One decoder; each is defined in its own file and listed once in the
 * table of gstaxnmsdecode.c, at its GstAxNmsDecodeKind. The functions
 * that fail return FALSE with a message in *@error (if not NULL).
 */
typedef struct
{
  const gchar *name;
  const gchar *description;
  gboolean (*parse) (GstAxNmsParams * p, JsonObject * o, gchar ** error);
  gboolean (*count_inputs) (const GstAxNmsParams * p, guint n_metas,
      guint * n_inputs, gchar ** error);
  gboolean (*bind) (const GstAxNmsParams * p,
      const GstAxTensorMeta * const *picked, const guint * idx, guint n,
      GstAxNmsInput * inputs, gchar ** error);
  guint (*run) (GstAxNmsWork * w, const GstAxNmsParams * p,
      const GstAxNmsInput * inputs, guint n_inputs, GstAxNmsResult * results,
      guint limit);
} GstAxNmsDecoder;

/* gstaxnmsdecode.c: the table */
G_GNUC_INTERNAL
const GstAxNmsDecoder *gst_ax_nms_decoder_get (GstAxNmsDecodeKind kind);
G_GNUC_INTERNAL
gboolean gst_ax_nms_decoder_find (const gchar * name,
    GstAxNmsDecodeKind * kind);
G_GNUC_INTERNAL
gchar *gst_ax_nms_decoder_names (void);

/* the rows, one per decoder file */
G_GNUC_INTERNAL extern const GstAxNmsDecoder gst_ax_nms_decoder_yolov8;
G_GNUC_INTERNAL extern const GstAxNmsDecoder gst_ax_nms_decoder_yolov5;
G_GNUC_INTERNAL extern const GstAxNmsDecoder gst_ax_nms_decoder_centernet;
G_GNUC_INTERNAL extern const GstAxNmsDecoder gst_ax_nms_decoder_ssd;

/* gstaxnmsdecode-work.c */
G_GNUC_INTERNAL
void gst_ax_nms_decode_work_ensure (GstAxNmsWork * w, guint n_anchors);

/* gstaxnmsdecode-params.c: reading the metadata and binding the outputs,
 * for the decoders' own members and shapes */
G_GNUC_INTERNAL
gboolean gst_ax_nms_decode_fail (gchar ** error, const gchar * fmt, ...)
    G_GNUC_PRINTF (2, 3);
G_GNUC_INTERNAL
gboolean gst_ax_nms_json_node_is_number (JsonNode * n);
G_GNUC_INTERNAL
gboolean gst_ax_nms_json_get_number (JsonObject * o, const gchar * key,
    gdouble lo, gdouble hi, gdouble * out, gboolean * found, gchar ** error);
G_GNUC_INTERNAL
gboolean gst_ax_nms_json_get_uint (JsonObject * o, const gchar * key,
    guint lo, guint hi, guint * out, gchar ** error);
G_GNUC_INTERNAL
gboolean gst_ax_nms_json_get_float (JsonObject * o, const gchar * key,
    gdouble lo, gdouble hi, gfloat * out, gchar ** error);
G_GNUC_INTERNAL
gboolean gst_ax_nms_json_get_bool (JsonObject * o, const gchar * key,
    gboolean * out, gchar ** error);
G_GNUC_INTERNAL
gboolean gst_ax_nms_json_get_string (JsonObject * o, const gchar * key,
    const gchar ** out, gchar ** error);
G_GNUC_INTERNAL
gboolean gst_ax_nms_json_get_names (GstAxNmsParams * p, JsonObject * o,
    const gchar * key, guint * count, gchar ** error);
G_GNUC_INTERNAL
gboolean gst_ax_nms_json_get_uint_array (JsonObject * o, const gchar * key,
    guint lo, guint hi, guint max, guint * out, guint * count,
    gchar ** error);
G_GNUC_INTERNAL
gchar *gst_ax_nms_decode_shape_string (const GstAxTensorMeta * m);
G_GNUC_INTERNAL
guint gst_ax_nms_decode_inner_dims (const GstAxTensorMeta * m, guint keep,
    const gint64 ** dims);
G_GNUC_INTERNAL
void gst_ax_nms_decode_input_set (GstAxNmsInput * in,
    const GstAxTensorMeta * m, guint meta_index, guint n_anchors,
    guint n_classes, guint height, guint width);

/* gstaxnmsdecode-nms.c */
G_GNUC_INTERNAL
void gst_ax_nms_decode_sort_candidates (GstAxNmsWork * w);
G_GNUC_INTERNAL
guint gst_ax_nms_decode_suppress (GstAxNmsWork * w, const GstAxNmsParams * p,
    const guint32 * order, guint n, const KeypointSource * ks,
    GstAxNmsResult * results, guint limit);

/* gstaxnmsdecode-ssd.c */
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
