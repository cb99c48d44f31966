/* gst-ax
 * Copyright (C) 2026 gst-ax developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

#ifndef __GST_AX_OUTPUT_H__
#define __GST_AX_OUTPUT_H__

#include <gst/ax/ax-prelude.h>

G_BEGIN_DECLS

/**
 * GstAxOutputMode:
 * @GST_AX_OUTPUT_REPLACE: the path ends up holding exactly the data
 * @GST_AX_OUTPUT_APPEND: the data is added at the end of what is there
 *
 * How gst_ax_output_write() treats what the path already holds.
 */
typedef enum
{
  GST_AX_OUTPUT_REPLACE,
  GST_AX_OUTPUT_APPEND,
} GstAxOutputMode;

GST_AX_API gboolean gst_ax_output_write (const gchar * path,
    const gchar * data, gssize len, GstAxOutputMode mode, GError ** error);

GST_AX_API gboolean gst_ax_output_is_stream (const gchar * path);

G_END_DECLS

#endif /* __GST_AX_OUTPUT_H__ */
