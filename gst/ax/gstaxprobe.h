/* gst-ax
 * Copyright (C) 2026 gst-ax developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

#ifndef __GST_AX_PROBE_H__
#define __GST_AX_PROBE_H__

#include <gst/ax/ax-prelude.h>

G_BEGIN_DECLS

/**
 * GstAxProbeFlags:
 * @GST_AX_PROBE_FLAG_NONE: an ordinary compute stage
 * @GST_AX_PROBE_FLAG_DEVICE_WAIT: the stage waits on the device by design;
 *   profilers show it as `DEVICE WAIT` instead of classifying it as blocked
 * @GST_AX_PROBE_FLAG_STAGE: the row is a stage, not an element or operator
 * @GST_AX_PROBE_FLAG_SUBMIT: the stage submits one device job, whose
 *   device event the element reports later through
 *   gst_ax_probe_device_event(), in the order of the submissions; a
 *   timeline draws a flow from the one to the other
 *
 * Flags of a stage span.
 */
typedef enum
{
  GST_AX_PROBE_FLAG_NONE = 0,
  GST_AX_PROBE_FLAG_DEVICE_WAIT = (1 << 0),
  GST_AX_PROBE_FLAG_STAGE = (1 << 1),
  GST_AX_PROBE_FLAG_SUBMIT = (1 << 2),
} GstAxProbeFlags;

/**
 * GstAxProbeSpan:
 * @element: the element that ran the stage (not reffed)
 * @group: the group the row belongs to, usually the model name; %NULL
 *   for the element's own group
 * @stage: the stage name; must stay valid for the life of the process
 *   (a static string or an interned one)
 * @start_ns: start of the span, on the probe clock (gst_ax_probe_now_ns())
 * @wall_ns: wall time of the span
 * @cpu_ns: CPU time of the calling thread during the span
 * @faults: minor page faults of the calling thread during the span
 * @flags: #GstAxProbeFlags
 *
 * One measured execution of an element's internal stage.
 */
typedef struct
{
  GstElement *element;
  const gchar *group;
  const gchar *stage;
  guint64 start_ns;
  guint64 wall_ns;
  guint64 cpu_ns;
  guint64 faults;
  GstAxProbeFlags flags;
} GstAxProbeSpan;

/**
 * GstAxProbeDeviceEvent:
 * @element: the element that submitted the work (not reffed)
 * @group: the model name
 * @resource: index of the device core (or engine) that ran it
 * @n_resources: number of such cores on the device
 * @job_id: the job the event belongs to
 * @start_ns: start of the busy interval, on the probe clock
 * @end_ns: end of the busy interval, on the probe clock
 *
 * One interval during which a device core was busy with a job.
 */
typedef struct
{
  GstElement *element;
  const gchar *group;
  guint resource;
  guint n_resources;
  guint64 job_id;
  guint64 start_ns;
  guint64 end_ns;
} GstAxProbeDeviceEvent;

/**
 * GstAxProbeDevice:
 * @element: the element driving the device (not reffed)
 * @group: the model name
 * @device: the device profile string, e.g. "metis"
 * @n_cores: compute cores (or slices) of the device
 * @in_flight_window: the declared maximum number of outstanding jobs
 * @jobs_done: the element's jobs completed so far
 * @sim_cpu_ns: CPU time the simulator's own threads used so far (the
 *   device's, shared or not)
 * @lag_ns: accumulated time by which functional compute of the element's
 *   jobs fell behind the modelled device time
 * @in_window_ns: summed time frames spent inside the element's in-flight
 *   window so far, from entering it to leaving it, when the output thread
 *   takes them for the postamble and the push (finished
 *   frames waiting for the in-order push included); 0 if not measured
 * @held_in_window_ns: the part of @in_window_ns during which frames were
 *   finished and waited for the frames before them to be pushed
 * @window_span_ns: from the first frame's entry into the window to the
 *   last push; @in_window_ns over it is the achieved in-flight depth
 * @device_id: which chip of @device the element asked for (the
 *   axinference device-id property)
 * @device_handle: identity of the device in the process, the same for
 *   every element that shares it; 0 when unknown, in which case the
 *   device is taken to be the element's own
 *
 * The state of a device as seen by the element driving it. Elements send it
 * when they open the device and again whenever the counters change; each
 * report supersedes the previous one.
 */
typedef struct
{
  GstElement *element;
  const gchar *group;
  const gchar *device;
  guint n_cores;
  guint in_flight_window;
  guint64 jobs_done;
  guint64 sim_cpu_ns;
  guint64 lag_ns;
  guint64 in_window_ns;
  guint64 held_in_window_ns;
  guint64 window_span_ns;
  guint device_id;
  guint64 device_handle;
} GstAxProbeDevice;

/**
 * GstAxProbeSinkFuncs:
 * @span: receives stage spans
 * @device_event: receives device busy intervals
 * @device: receives device descriptions and counters
 *
 * What a profiler implements to receive probe records. Callbacks run on the
 * thread that recorded the data and must be thread-safe. Any may be %NULL.
 */
typedef struct
{
  void (*span) (const GstAxProbeSpan * span, gpointer user_data);
  void (*device_event) (const GstAxProbeDeviceEvent * event,
      gpointer user_data);
  void (*device) (const GstAxProbeDevice * device, gpointer user_data);
} GstAxProbeSinkFuncs;

/* Non-zero while at least one sink is registered. Read it through
 * gst_ax_probe_is_active(). */
GST_AX_API gint _gst_ax_probe_active;

/**
 * gst_ax_probe_is_active:
 *
 * Whether a profiler is listening. This is one load and one branch, so
 * elements can call it on every buffer.
 *
 * Returns: %TRUE if a profiler is registered
 */
static inline gboolean
gst_ax_probe_is_active (void)
{
  return G_UNLIKELY (__atomic_load_n (&_gst_ax_probe_active,
          __ATOMIC_RELAXED) != 0);
}

GST_AX_API guint64 gst_ax_probe_now_ns (void);

GST_AX_API guint gst_ax_probe_add_sink (const GstAxProbeSinkFuncs * funcs,
    gpointer user_data);
GST_AX_API void gst_ax_probe_remove_sink (guint sink_id);

GST_AX_API void _gst_ax_probe_emit_span (const GstAxProbeSpan * span);
GST_AX_API void _gst_ax_probe_emit_span_calls (const GstAxProbeSpan * span,
    guint n);
GST_AX_API void _gst_ax_probe_emit_device_event (const GstAxProbeDeviceEvent *
    event);
GST_AX_API void _gst_ax_probe_emit_device (const GstAxProbeDevice * device);

/**
 * gst_ax_probe_span:
 * @span: the span to record
 *
 * Records a stage span. Costs one branch when no profiler is active.
 */
static inline void
gst_ax_probe_span (const GstAxProbeSpan * span)
{
  if (gst_ax_probe_is_active ())
    _gst_ax_probe_emit_span (span);
}

/**
 * gst_ax_probe_span_calls:
 * @span: the span to record
 * @n: how many calls it holds
 *
 * Records a stage span that did the work of @n calls at once (a cascade
 * waits for all of a frame's per-region jobs together) as @n calls, each
 * with an equal share of its wall time, CPU time and faults, so that the
 * row's Count is one per job. Costs one branch when no profiler is
 * active.
 */
static inline void
gst_ax_probe_span_calls (const GstAxProbeSpan * span, guint n)
{
  if (gst_ax_probe_is_active ())
    _gst_ax_probe_emit_span_calls (span, n);
}

/**
 * gst_ax_probe_device_event:
 * @event: the event to record
 *
 * Records a device busy interval. Costs one branch when no profiler is
 * active.
 */
static inline void
gst_ax_probe_device_event (const GstAxProbeDeviceEvent * event)
{
  if (gst_ax_probe_is_active ())
    _gst_ax_probe_emit_device_event (event);
}

/**
 * gst_ax_probe_device:
 * @device: the device state to record
 *
 * Records the state of a device. Costs one branch when no profiler is
 * active.
 */
static inline void
gst_ax_probe_device (const GstAxProbeDevice * device)
{
  if (gst_ax_probe_is_active ())
    _gst_ax_probe_emit_device (device);
}

/**
 * GstAxProbeTimer:
 *
 * Measures one span on the calling thread: wall time, thread CPU time and
 * minor faults. Lives on the stack; start and stop on the same thread.
 */
typedef struct
{
  gboolean active;
  guint64 start_ns;
  guint64 cpu_ns;
  guint64 faults;
} GstAxProbeTimer;

GST_AX_API void _gst_ax_probe_timer_start (GstAxProbeTimer * timer);
GST_AX_API void _gst_ax_probe_timer_stop (GstAxProbeTimer * timer,
    GstElement * element, const gchar * group, const gchar * stage,
    GstAxProbeFlags flags);
GST_AX_API void _gst_ax_probe_timer_stop_calls (GstAxProbeTimer * timer,
    GstElement * element, const gchar * group, const gchar * stage,
    GstAxProbeFlags flags, guint n);

/**
 * gst_ax_probe_timer_start:
 * @timer: a timer on the caller's stack
 *
 * Starts measuring a span if a profiler is active; otherwise costs one
 * branch.
 */
static inline void
gst_ax_probe_timer_start (GstAxProbeTimer * timer)
{
  timer->active = gst_ax_probe_is_active ();
  if (timer->active)
    _gst_ax_probe_timer_start (timer);
}

/**
 * gst_ax_probe_timer_stop:
 * @timer: a started timer
 * @element: the element running the stage
 * @group: (nullable): the group of the row, usually the model name
 * @stage: the stage name, valid for the life of the process
 * @flags: #GstAxProbeFlags
 *
 * Stops the timer and records the span, if the timer was started while a
 * profiler was active.
 */
static inline void
gst_ax_probe_timer_stop (GstAxProbeTimer * timer, GstElement * element,
    const gchar * group, const gchar * stage, GstAxProbeFlags flags)
{
  if (G_UNLIKELY (timer->active))
    _gst_ax_probe_timer_stop (timer, element, group, stage, flags);
}

/**
 * gst_ax_probe_timer_stop_calls:
 * @timer: a started timer
 * @element: the element running the stage
 * @group: (nullable): the group of the row, usually the model name
 * @stage: the stage name, valid for the life of the process
 * @flags: #GstAxProbeFlags
 * @n: how many calls the span held
 *
 * Stops the timer and records the span as @n calls
 * (gst_ax_probe_span_calls()), if the timer was started while a profiler
 * was active.
 */
static inline void
gst_ax_probe_timer_stop_calls (GstAxProbeTimer * timer, GstElement * element,
    const gchar * group, const gchar * stage, GstAxProbeFlags flags, guint n)
{
  if (G_UNLIKELY (timer->active))
    _gst_ax_probe_timer_stop_calls (timer, element, group, stage, flags, n);
}

GST_AX_API void gst_ax_probe_thread_usage (guint64 * cpu_ns,
    guint64 * faults);

/**
 * GstAxProbeUsageReader:
 * @GST_AX_PROBE_USAGE_UNKNOWN: no thread has read yet
 * @GST_AX_PROBE_USAGE_PERF: CLOCK_THREAD_CPUTIME_ID and a per-thread perf
 *   event group of minor faults, two syscalls per read; kept by
 *   gst_ax_probe_thread_usage_choose_reader() where it is much cheaper, or
 *   wherever it opens when `GST_AX_PROBE_USAGE=perf` is set
 * @GST_AX_PROBE_USAGE_RUSAGE: CLOCK_THREAD_CPUTIME_ID and
 *   getrusage(RUSAGE_THREAD), two syscalls per read; used where
 *   perf_event_open() is refused, or when the environment variable
 *   `GST_AX_PROBE_USAGE=rusage` is set
 *
 * How gst_ax_probe_thread_usage() reads.
 */
typedef enum
{
  GST_AX_PROBE_USAGE_UNKNOWN = 0,
  GST_AX_PROBE_USAGE_PERF = 1,
  GST_AX_PROBE_USAGE_RUSAGE = 2,
} GstAxProbeUsageReader;

GST_AX_API GstAxProbeUsageReader gst_ax_probe_thread_usage_reader (void);
GST_AX_API const gchar *
gst_ax_probe_thread_usage_reader_name (GstAxProbeUsageReader reader);
GST_AX_API guint gst_ax_probe_thread_usage_fallback_threads (void);
GST_AX_API GstAxProbeUsageReader
gst_ax_probe_thread_usage_choose_reader (void);

G_END_DECLS

#endif /* __GST_AX_PROBE_H__ */
