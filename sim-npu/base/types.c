/* gst-ax
 * Copyright (C) 2026 gst-ax developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */


/* Element types: their sizes and the names of the public enums. */

#include "base/base.h"

/**
 * simnpu_dtype_size:
 * @dtype: an element type
 *
 * Returns: bytes per element, 0 for an unknown type
 */
size_t
simnpu_dtype_size (simnpu_dtype dtype)
{
  return simnpu__dtype_size (dtype);
}

size_t
simnpu__dtype_size (int dtype)
{
  switch (dtype) {
    case SIMNPU_DTYPE_U8:
    case SIMNPU_DTYPE_I8:
      return 1;
    case SIMNPU_DTYPE_F32:
    case SIMNPU__DTYPE_I32:
      return 4;
    default:
      return 0;
  }
}

/**
 * simnpu_dtype_to_string:
 * @dtype: an element type
 *
 * Returns: "u8", "i8", "f32", or "unknown"
 */
const char *
simnpu_dtype_to_string (simnpu_dtype dtype)
{
  switch ((int) dtype) {
    case SIMNPU_DTYPE_U8:
      return "u8";
    case SIMNPU_DTYPE_I8:
      return "i8";
    case SIMNPU_DTYPE_F32:
      return "f32";
    case SIMNPU__DTYPE_I32:
      return "i32";
    default:
      return "unknown";
  }
}

/**
 * simnpu_layout_to_string:
 * @layout: a layout
 *
 * Returns: "NHWC", "NCHW" or "unknown"
 */
const char *
simnpu_layout_to_string (simnpu_layout layout)
{
  switch (layout) {
    case SIMNPU_LAYOUT_NHWC:
      return "NHWC";
    case SIMNPU_LAYOUT_NCHW:
      return "NCHW";
    default:
      return "unknown";
  }
}

/**
 * simnpu_action_kind_to_string:
 * @kind: an action kind
 *
 * Returns: "DMA_IN", "COMPUTE", "DMA_OUT", "CDMA", "CSS" or "unknown"
 */
const char *
simnpu_action_kind_to_string (simnpu_action_kind kind)
{
  switch (kind) {
    case SIMNPU_ACTION_DMA_IN:
      return "DMA_IN";
    case SIMNPU_ACTION_COMPUTE:
      return "COMPUTE";
    case SIMNPU_ACTION_DMA_OUT:
      return "DMA_OUT";
    case SIMNPU_ACTION_CDMA:
      return "CDMA";
    case SIMNPU_ACTION_CSS:
      return "CSS";
    default:
      return "unknown";
  }
}
