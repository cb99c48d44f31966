/* gst-ax
 * Copyright (C) 2026 gst-ax developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

#ifndef __GST_AX_CLASSIFY_H__
#define __GST_AX_CLASSIFY_H__

#include <gst/base/gstbasetransform.h>

G_BEGIN_DECLS

#define GST_TYPE_AX_CLASSIFY (gst_ax_classify_get_type ())
G_DECLARE_FINAL_TYPE (GstAxClassify, gst_ax_classify, GST, AX_CLASSIFY,
    GstBaseTransform);

GST_ELEMENT_REGISTER_DECLARE (axclassify);

G_END_DECLS

#endif /* __GST_AX_CLASSIFY_H__ */
