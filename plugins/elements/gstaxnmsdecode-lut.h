/* gst-ax
 * Copyright (C) 2026 gst-ax developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

/* The dequantisation tables of axnms's decoders: the value (or its
 * sigmoid) of each of the 256 levels of a quantised tensor, indexed by the
 * level biased to unsigned so that the table increases with the index.
 * They know a tensor's quantisation only, nothing of the decoders or of
 * the dispatcher (gstaxnmsdecode.c) above them. */

#ifndef __GST_AX_NMS_DECODE_LUT_H__
#define __GST_AX_NMS_DECODE_LUT_H__

#include "gstaxnmsdecode.h"

#include <math.h>

G_BEGIN_DECLS

#define LUT_SIZE 256
/* XORing an int8 with this maps it to uint8 with the same order */
#define INT8_BIAS 0x80

/* The table of one input of a decoder, valid for the quantisation and
 * activation it was built for. */
typedef struct
{
  gboolean valid;
  GstAxTensorDType dtype;
  gfloat scale;
  gint32 zp;
  gboolean sigmoid;
  gfloat lut[LUT_SIZE];
} LutSlot;

static inline gint
raw_int (GstAxTensorDType dtype, guint8 b)
{
  return dtype == GST_AX_TENSOR_DTYPE_I8 ? (gint) (gint8) b : (gint) b;
}

static inline gfloat
sigmoidf (gfloat v)
{
  return 1.0f / (1.0f + expf (-v));
}

G_GNUC_INTERNAL
gboolean gst_ax_nms_decode_lut_build (gfloat * lut, GstAxTensorDType dtype,
    gfloat scale, gint32 zp);
G_GNUC_INTERNAL
const gfloat *gst_ax_nms_decode_slot_lut (LutSlot * slot,
    const GstAxNmsInput * in, gboolean sigmoid);
G_GNUC_INTERNAL
guint gst_ax_nms_decode_lut_first_above (const gfloat * lut, gfloat thr);

G_END_DECLS

#endif /* __GST_AX_NMS_DECODE_LUT_H__ */
