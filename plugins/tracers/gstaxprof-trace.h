/* gst-ax
 * Copyright (C) 2026 gst-ax developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

/* What the perfetto= timeline records while a run goes
 * (gstaxprof-trace.c), for gstaxprof-timeline.c to write at the end. */

#ifndef __GST_AX_PROF_TRACE_H__
#define __GST_AX_PROF_TRACE_H__

#include "gstaxprof-private.h"

G_BEGIN_DECLS

/* perfetto= is set: the hooks record */
extern gboolean axprof_trace_on;
/* one ring per thread slot, allocated on first use when tracing */
extern TraceRing *axprof_trace_rings[MAX_THREAD_SLOTS];

void axprof_trace_thread_start (gint slot);
void axprof_trace_add (ThreadState * t, Row * row, guint64 start,
    guint64 dur, gboolean probe_clock);
void axprof_trace_span (ThreadState * t, Row * row,
    const GstAxProbeSpan * span);
void axprof_trace_device_event (DeviceState * d,
    const GstAxProbeDeviceEvent * ev, guint32 run);
void axprof_trace_queue_level (QueueState * q, guint64 ts);
void axprof_trace_clock_sample (ThreadState * t, guint64 now,
    guint64 hook_ts);

G_END_DECLS
#endif /* __GST_AX_PROF_TRACE_H__ */
