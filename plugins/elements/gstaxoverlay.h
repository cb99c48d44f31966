/* gst-ax
 * Copyright (C) 2026 gst-ax developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

#ifndef __GST_AX_OVERLAY_H__
#define __GST_AX_OVERLAY_H__

#include <gst/video/gstvideofilter.h>

G_BEGIN_DECLS
#define GST_TYPE_AX_OVERLAY (gst_ax_overlay_get_type ())
G_DECLARE_FINAL_TYPE (GstAxOverlay, gst_ax_overlay, GST, AX_OVERLAY,
    GstVideoFilter);

GST_ELEMENT_REGISTER_DECLARE (axoverlay);

G_END_DECLS
#endif /* __GST_AX_OVERLAY_H__ */
