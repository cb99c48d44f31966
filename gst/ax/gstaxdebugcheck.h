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

/**
 * GST_AX_DEBUG_MIN_MESSAGES:
 *
 * The fewest DEBUG messages logged during a run that can void its report
 * after the run (see gst_ax_debug_logged_per_frame()): a handful of
 * one-off messages in a short run cost nothing measurable.
 */
#define GST_AX_DEBUG_MIN_MESSAGES 16

/**
 * GST_AX_DEBUG_TRACER_CATEGORY:
 *
 * The category through which tracers log their records
 * (`GST_DEBUG=GST_TRACER:7` for the stock latency tracer): what the user
 * asked to see, never held against a run.
 */
#define GST_AX_DEBUG_TRACER_CATEGORY "GST_TRACER"

GST_AX_API gchar *gst_ax_debug_check_threshold (void);

GST_AX_API gboolean gst_ax_debug_logged_per_frame (guint64 messages,
    guint64 frames);

GST_AX_API gchar *gst_ax_debug_refusal_message (const gchar * why);

G_END_DECLS

#endif /* __GST_AX_DEBUG_CHECK_H__ */
