/* gst-ax
 * Copyright (C) 2026 gst-ax developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

/* The dequantisation tables the decoders share (gstaxnmsdecode-lut.h). */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstaxnmsdecode-lut.h"

#include <math.h>

/* Fills lut[b] with the value of the byte b (biased for int8, so that b
 * orders like the value). Returns FALSE if two levels are not distinct
 * finite floats, which would break the ordering the fast path relies on. */
gboolean
gst_ax_nms_decode_lut_build (gfloat * lut, GstAxTensorDType dtype, gfloat scale,
    gint32 zp)
{
  guint b;
  guint8 flip = dtype == GST_AX_TENSOR_DTYPE_I8 ? INT8_BIAS : 0;

  for (b = 0; b < LUT_SIZE; b++)
    lut[b] = scale * (gfloat) (raw_int (dtype, (guint8) (b ^ flip)) - zp);
  for (b = 0; b < LUT_SIZE; b++) {
    if (!isfinite (lut[b]))
      return FALSE;
    if (b > 0 && !(lut[b] > lut[b - 1]))
      return FALSE;
  }
  return TRUE;
}

/* The table of @slot for @in: values (or their sigmoids) of the biased
 * bytes, non-decreasing. */
const gfloat *
gst_ax_nms_decode_slot_lut (LutSlot * s, const GstAxNmsInput * in,
    gboolean sigmoid)
{
  guint8 flip = in->dtype == GST_AX_TENSOR_DTYPE_I8 ? INT8_BIAS : 0;
  guint b;

  if (s->valid && s->dtype == in->dtype && s->scale == in->scale
      && s->zp == in->zero_point && s->sigmoid == sigmoid)
    return s->lut;
  for (b = 0; b < LUT_SIZE; b++) {
    gfloat v = in->scale * (gfloat) (raw_int (in->dtype, (guint8) (b ^ flip))
        - in->zero_point);
    s->lut[b] = sigmoid ? sigmoidf (v) : v;
  }
  s->valid = TRUE;
  s->dtype = in->dtype;
  s->scale = in->scale;
  s->zp = in->zero_point;
  s->sigmoid = sigmoid;
  return s->lut;
}

/* The first biased byte whose value is above @thr (LUT_SIZE if none). */
guint
gst_ax_nms_decode_lut_first_above (const gfloat * lut, gfloat thr)
{
  guint b;

  for (b = 0; b < LUT_SIZE; b++)
    if (lut[b] > thr)
      break;
  return b;
}
