/* gst-ax
 * Copyright (C) 2026 gst-ax developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

#ifndef __GST_AX_PROFILER_H__
#define __GST_AX_PROFILER_H__

#include <gst/ax/ax-prelude.h>
#include <gst/ax/gstaxreport.h>

G_BEGIN_DECLS

/**
 * GST_AX_PROFILER_ERROR:
 *
 * The error domain of the profiler calls.
 */
#define GST_AX_PROFILER_ERROR (gst_ax_profiler_error_quark ())

/**
 * GstAxProfilerError:
 * @GST_AX_PROFILER_ERROR_NOT_FOUND: the registry has no axprof tracer
 *   (the axtracers plugin is not on the plugin path)
 * @GST_AX_PROFILER_ERROR_NOT_ENABLED: no axprof tracer is active: call
 *   gst_ax_profiler_enable() or set GST_TRACERS=axprof
 * @GST_AX_PROFILER_ERROR_NO_SECTION: gst_ax_profiler_stop() on a pipeline
 *   whose section was not started
 *
 * Why a profiler call failed.
 */
typedef enum
{
  GST_AX_PROFILER_ERROR_NOT_FOUND,
  GST_AX_PROFILER_ERROR_NOT_ENABLED,
  GST_AX_PROFILER_ERROR_NO_SECTION,
} GstAxProfilerError;

/**
 * GST_AX_PROFILER_TRACER_NAME:
 *
 * The name of the tracer the profiler calls drive, as in
 * `GST_TRACERS=axprof`.
 */
#define GST_AX_PROFILER_TRACER_NAME "axprof"

GST_AX_API GQuark gst_ax_profiler_error_quark (void);
GST_AX_API gboolean gst_ax_profiler_enable (const gchar * params,
    GError ** error);
GST_AX_API gboolean gst_ax_profiler_is_enabled (void);
GST_AX_API gboolean gst_ax_profiler_start (GstElement * pipeline,
    GError ** error);
GST_AX_API GstAxReport *gst_ax_profiler_stop (GstElement * pipeline,
    GError ** error);

G_END_DECLS

#endif /* __GST_AX_PROFILER_H__ */

