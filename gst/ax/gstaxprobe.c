/* gst-ax
 * Copyright (C) 2026 gst-ax developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

/**
 * SECTION:gstaxprobe
 * @title: GstAxProbe
 * @short_description: the seam between elements and profilers
 *
 * Elements report their internal stages (a device wait, a dequantisation,
 * a host copy) and device busy intervals through this API. A profiler such
 * as the `axprof` tracer registers a sink with gst_ax_probe_add_sink() and
 * receives the records. With no sink registered every call is a single
 * predictable branch on a global flag.
 *
 * Time stamps use the probe clock, CLOCK_MONOTONIC in nanoseconds
 * (gst_ax_probe_now_ns()).
 */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstaxprobe.h"

#include <time.h>
#ifdef __linux__
#include <sys/resource.h>
#endif

#define GST_AX_PROBE_MAX_SINKS 8

typedef struct
{
  /* Written once under sinks_lock before the slot is published through
   * 'funcs'; cleared by gst_ax_probe_remove_sink(). */
  const GstAxProbeSinkFuncs *funcs;
  gpointer user_data;
} GstAxProbeSink;

gint _gst_ax_probe_active = 0;

static GMutex sinks_lock;
static GstAxProbeSink sinks[GST_AX_PROBE_MAX_SINKS];

/**
 * gst_ax_probe_now_ns:
 *
 * Returns: the probe clock, CLOCK_MONOTONIC in nanoseconds
 */
guint64
gst_ax_probe_now_ns (void)
{
  struct timespec ts;

  clock_gettime (CLOCK_MONOTONIC, &ts);
  return (guint64) ts.tv_sec * G_GUINT64_CONSTANT (1000000000) + ts.tv_nsec;
}

/**
 * gst_ax_probe_thread_usage:
 * @cpu_ns: (out): CPU time used by the calling thread
 * @faults: (out): minor page faults taken by the calling thread
 *
 * Reads the calling thread's resource usage. On systems without per-thread
 * usage, faults read 0, which means "not measured".
 */
void
gst_ax_probe_thread_usage (guint64 * cpu_ns, guint64 * faults)
{
  struct timespec ts;
#if defined(__linux__) && defined(RUSAGE_THREAD)
  struct rusage ru;

  /* getrusage's CPU time only advances at scheduler ticks (4 ms with
   * HZ=250), far too coarse for a span; the thread CPU clock is exact.
   * Its fault counters are exact. */
  getrusage (RUSAGE_THREAD, &ru);
  *faults = ru.ru_minflt;
#else
  *faults = 0;
#endif
  clock_gettime (CLOCK_THREAD_CPUTIME_ID, &ts);
  *cpu_ns = (guint64) ts.tv_sec * G_GUINT64_CONSTANT (1000000000) + ts.tv_nsec;
}

/**
 * gst_ax_probe_add_sink:
 * @funcs: the callbacks; must stay valid until removed
 * @user_data: passed to every callback
 *
 * Registers a profiler. The probe turns active with the first sink.
 *
 * Returns: an id for gst_ax_probe_remove_sink(), or 0 if all slots are
 *   taken
 */
guint
gst_ax_probe_add_sink (const GstAxProbeSinkFuncs * funcs, gpointer user_data)
{
  guint i, id = 0;

  g_return_val_if_fail (funcs != NULL, 0);

  g_mutex_lock (&sinks_lock);
  for (i = 0; i < GST_AX_PROBE_MAX_SINKS; i++) {
    if (__atomic_load_n (&sinks[i].funcs, __ATOMIC_ACQUIRE) == NULL) {
      sinks[i].user_data = user_data;
      __atomic_store_n (&sinks[i].funcs, funcs, __ATOMIC_RELEASE);
      __atomic_add_fetch (&_gst_ax_probe_active, 1, __ATOMIC_RELEASE);
      id = i + 1;
      break;
    }
  }
  g_mutex_unlock (&sinks_lock);

  if (id == 0)
    g_warning ("gst-ax: more than %d profilers registered; ignoring one",
        GST_AX_PROBE_MAX_SINKS);
  return id;
}

/**
 * gst_ax_probe_remove_sink:
 * @sink_id: an id returned by gst_ax_probe_add_sink()
 *
 * Unregisters a profiler. Callbacks already running on other threads may
 * still complete after this returns, so a profiler removes its sink only
 * once no streaming thread can record any more (at process exit, or after
 * all its pipelines are in NULL).
 */
void
gst_ax_probe_remove_sink (guint sink_id)
{
  g_return_if_fail (sink_id > 0 && sink_id <= GST_AX_PROBE_MAX_SINKS);

  g_mutex_lock (&sinks_lock);
  if (sinks[sink_id - 1].funcs != NULL) {
    __atomic_store_n (&sinks[sink_id - 1].funcs, NULL, __ATOMIC_RELEASE);
    __atomic_sub_fetch (&_gst_ax_probe_active, 1, __ATOMIC_RELEASE);
  }
  g_mutex_unlock (&sinks_lock);
}

#define EMIT(member, record)                                            \
  G_STMT_START {                                                        \
    guint i_;                                                           \
    for (i_ = 0; i_ < GST_AX_PROBE_MAX_SINKS; i_++) {                   \
      const GstAxProbeSinkFuncs *f_ =                                   \
          __atomic_load_n (&sinks[i_].funcs, __ATOMIC_ACQUIRE);         \
      if (f_ != NULL && f_->member != NULL)                             \
        f_->member (record, sinks[i_].user_data);                       \
    }                                                                   \
  } G_STMT_END

void
_gst_ax_probe_emit_span (const GstAxProbeSpan * span)
{
  EMIT (span, span);
}

void
_gst_ax_probe_emit_device_event (const GstAxProbeDeviceEvent * event)
{
  EMIT (device_event, event);
}

void
_gst_ax_probe_emit_device (const GstAxProbeDevice * device)
{
  EMIT (device, device);
}

void
_gst_ax_probe_timer_start (GstAxProbeTimer * timer)
{
  gst_ax_probe_thread_usage (&timer->cpu_ns, &timer->faults);
  timer->start_ns = gst_ax_probe_now_ns ();
}

void
_gst_ax_probe_timer_stop (GstAxProbeTimer * timer, GstElement * element,
    const gchar * group, const gchar * stage, GstAxProbeFlags flags)
{
  GstAxProbeSpan span;
  guint64 end_ns, cpu_ns, faults;

  end_ns = gst_ax_probe_now_ns ();
  gst_ax_probe_thread_usage (&cpu_ns, &faults);

  span.element = element;
  span.group = group;
  span.stage = stage;
  span.start_ns = timer->start_ns;
  span.wall_ns = end_ns - timer->start_ns;
  span.cpu_ns = cpu_ns - timer->cpu_ns;
  span.faults = faults - timer->faults;
  span.flags = flags;
  _gst_ax_probe_emit_span (&span);
}
