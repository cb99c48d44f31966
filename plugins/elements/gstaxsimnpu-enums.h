/* gst-ax
 * Copyright (C) 2026 gst-ax developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

/* The enums libsimnpu and libgstax both have, mapped in one place: a
 * tensor's dtype and layout, a model's colour order and resize mode. The
 * two libraries do not see each other; the elements that drive sim-npu
 * (axinference) convert here and nowhere else.
 *
 * Every pair has the same value (asserted below), so each conversion is
 * the identity; the switches make the compiler (-Wswitch, an error here)
 * name a value added to one enum and not mapped, in either direction.
 * A value outside its enum passes through unchanged. */

#ifndef __GST_AX_SIMNPU_ENUMS_H__
#define __GST_AX_SIMNPU_ENUMS_H__

#include <gst/ax/gstaxmodelquery.h>
#include <gst/ax/gstaxtensormeta.h>
#include <simnpu/simnpu.h>

G_BEGIN_DECLS

G_STATIC_ASSERT ((gint) GST_AX_TENSOR_DTYPE_U8 == (gint) SIMNPU_DTYPE_U8);
G_STATIC_ASSERT ((gint) GST_AX_TENSOR_DTYPE_I8 == (gint) SIMNPU_DTYPE_I8);
G_STATIC_ASSERT ((gint) GST_AX_TENSOR_DTYPE_F32 == (gint) SIMNPU_DTYPE_F32);

G_STATIC_ASSERT ((gint) GST_AX_TENSOR_LAYOUT_NHWC ==
    (gint) SIMNPU_LAYOUT_NHWC);
G_STATIC_ASSERT ((gint) GST_AX_TENSOR_LAYOUT_NCHW ==
    (gint) SIMNPU_LAYOUT_NCHW);

G_STATIC_ASSERT ((gint) GST_AX_COLOR_ORDER_RGB == (gint) SIMNPU_PREPROCESS_RGB);
G_STATIC_ASSERT ((gint) GST_AX_COLOR_ORDER_BGR == (gint) SIMNPU_PREPROCESS_BGR);
G_STATIC_ASSERT ((gint) GST_AX_COLOR_ORDER_GRAY ==
    (gint) SIMNPU_PREPROCESS_GRAY);

G_STATIC_ASSERT ((gint) GST_AX_RESIZE_LETTERBOX ==
    (gint) SIMNPU_PREPROCESS_LETTERBOX);
G_STATIC_ASSERT ((gint) GST_AX_RESIZE_STRETCH ==
    (gint) SIMNPU_PREPROCESS_STRETCH);

static inline GstAxTensorDType
gst_ax_tensor_dtype_from_simnpu (simnpu_dtype dtype)
{
  switch (dtype) {
    case SIMNPU_DTYPE_U8:
      return GST_AX_TENSOR_DTYPE_U8;
    case SIMNPU_DTYPE_I8:
      return GST_AX_TENSOR_DTYPE_I8;
    case SIMNPU_DTYPE_F32:
      return GST_AX_TENSOR_DTYPE_F32;
  }
  return (GstAxTensorDType) dtype;
}

static inline simnpu_dtype
gst_ax_tensor_dtype_to_simnpu (GstAxTensorDType dtype)
{
  switch (dtype) {
    case GST_AX_TENSOR_DTYPE_U8:
      return SIMNPU_DTYPE_U8;
    case GST_AX_TENSOR_DTYPE_I8:
      return SIMNPU_DTYPE_I8;
    case GST_AX_TENSOR_DTYPE_F32:
      return SIMNPU_DTYPE_F32;
  }
  return (simnpu_dtype) dtype;
}

static inline GstAxTensorLayout
gst_ax_tensor_layout_from_simnpu (simnpu_layout layout)
{
  switch (layout) {
    case SIMNPU_LAYOUT_NHWC:
      return GST_AX_TENSOR_LAYOUT_NHWC;
    case SIMNPU_LAYOUT_NCHW:
      return GST_AX_TENSOR_LAYOUT_NCHW;
  }
  return (GstAxTensorLayout) layout;
}

static inline simnpu_layout
gst_ax_tensor_layout_to_simnpu (GstAxTensorLayout layout)
{
  switch (layout) {
    case GST_AX_TENSOR_LAYOUT_NHWC:
      return SIMNPU_LAYOUT_NHWC;
    case GST_AX_TENSOR_LAYOUT_NCHW:
      return SIMNPU_LAYOUT_NCHW;
  }
  return (simnpu_layout) layout;
}

static inline GstAxColorOrder
gst_ax_color_order_from_simnpu (simnpu_color_order order)
{
  switch (order) {
    case SIMNPU_PREPROCESS_RGB:
      return GST_AX_COLOR_ORDER_RGB;
    case SIMNPU_PREPROCESS_BGR:
      return GST_AX_COLOR_ORDER_BGR;
    case SIMNPU_PREPROCESS_GRAY:
      return GST_AX_COLOR_ORDER_GRAY;
  }
  return (GstAxColorOrder) order;
}

static inline simnpu_color_order
gst_ax_color_order_to_simnpu (GstAxColorOrder order)
{
  switch (order) {
    case GST_AX_COLOR_ORDER_RGB:
      return SIMNPU_PREPROCESS_RGB;
    case GST_AX_COLOR_ORDER_BGR:
      return SIMNPU_PREPROCESS_BGR;
    case GST_AX_COLOR_ORDER_GRAY:
      return SIMNPU_PREPROCESS_GRAY;
  }
  return (simnpu_color_order) order;
}

static inline GstAxResizeMode
gst_ax_resize_mode_from_simnpu (simnpu_resize_kind resize)
{
  switch (resize) {
    case SIMNPU_PREPROCESS_LETTERBOX:
      return GST_AX_RESIZE_LETTERBOX;
    case SIMNPU_PREPROCESS_STRETCH:
      return GST_AX_RESIZE_STRETCH;
  }
  return (GstAxResizeMode) resize;
}

static inline simnpu_resize_kind
gst_ax_resize_mode_to_simnpu (GstAxResizeMode resize)
{
  switch (resize) {
    case GST_AX_RESIZE_LETTERBOX:
      return SIMNPU_PREPROCESS_LETTERBOX;
    case GST_AX_RESIZE_STRETCH:
      return SIMNPU_PREPROCESS_STRETCH;
  }
  return (simnpu_resize_kind) resize;
}

G_END_DECLS

#endif /* __GST_AX_SIMNPU_ENUMS_H__ */
