/* gst-ax
 * Copyright (C) 2026 gst-ax developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

#ifndef __GST_AX_DEBUG_CHECK_H__
#define __GST_AX_DEBUG_CHECK_H__

#include <gst/ax/ax-prelude.h>

G_BEGIN_DECLS

GST_AX_API gchar *gst_ax_debug_check_threshold (void);

G_END_DECLS

#endif /* __GST_AX_DEBUG_CHECK_H__ */
