/* gst-ax
 * Copyright (C) 2026 gst-ax developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

#ifndef __GST_AX_PROF_H__
#define __GST_AX_PROF_H__

#include <gst/gst.h>
#include <gst/gsttracer.h>

G_BEGIN_DECLS

#define GST_TYPE_AX_PROF (gst_ax_prof_get_type ())
G_DECLARE_FINAL_TYPE (GstAxProf, gst_ax_prof, GST, AX_PROF, GstTracer);

G_END_DECLS

#endif /* __GST_AX_PROF_H__ */
