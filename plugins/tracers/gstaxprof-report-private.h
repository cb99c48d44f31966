/* gst-ax
 * Copyright (C) 2026 gst-ax developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

/* The report side's records: what the report (gstaxprof-report*.c),
 * the timeline's writer, the sections and the tracer object share to
 * make a pipeline's report, and no file of the hot path includes. */

#ifndef __GST_AX_PROF_REPORT_PRIVATE_H__
#define __GST_AX_PROF_REPORT_PRIVATE_H__

#include "gstaxprof-private.h"

G_BEGIN_DECLS

#define PERCENT 100.0

/* gstaxprof-registry.c: the first lock of the lock order (see
 * gstaxprof-private.h) */
extern GMutex axprof_global_lock;

/* How the tracer measures, which every report states: its mode and the
 * cost of its own work, calibrated when it starts (gstaxprof.c). */
typedef struct
{
  /* exact=true: a usage read at every span boundary */
  gboolean exact;
  /* default mode: read when this much wall time has passed (ns) */
  guint64 read_interval_ns;
  gboolean allow_debug;
  gdouble read_cost_ns;
  /* one gst_ax_probe_now_ns(), which a timed read includes once */
  gdouble clock_cost_ns;
  /* GStreamer's own cost of dispatching the four hooks of an
   * element-buffer to the tracers and axprof's bookkeeping of it,
   * measured at start in GStreamer's push path */
  gdouble dispatch_cost_ns;
} TracerSetup;

/* A row's slots summed over threads, while a report is made. */
typedef struct
{
  Row *row;
  guint64 count;
  guint64 items;
  guint64 wall_sum_ns;
  guint64 wall_min_ns;
  guint64 wall_max_ns;
  gint64 cpu_sum_ns;
  /* estimated time runnable waiting for a CPU while computing */
  gdouble cpu_wait_ns;
  gint64 faults_sum;
  guint64 reads;
  guint64 reads_timed;
  guint64 read_timed_ns;
  guint64 first_seen_ns;
  gint rank;
} MergedRow;

/* A report being made: what its parts share. */
/* A queue's accumulators behind its report line (aligned with the
 * report's queues): what an interval's report subtracts. */
typedef struct
{
  gdouble area;
  guint64 span_ns;
  guint64 at_max_ns;
  guint64 full_ns;
  guint64 empty_ns;
} RawQueue;

/* A device's accumulators behind its report line (aligned with the
 * report's devices). */
typedef struct
{
  guint64 busy_ns;
  guint64 events;
  guint64 window_ns;
  guint64 union_ns;
} RawDevice;

/* What a report was made from that it does not carry itself, for
 * interval reports and the metrics endpoint (gstaxprof-interval.c,
 * gstaxprof-metrics.c): the merged latency histogram and the queues' and
 * devices' accumulators. */
typedef struct
{
  LatencyHistogram lat;
  GArray *queues;
  GArray *devices;
} ReportRaw;

typedef struct
{
  GstAxReport *r;
  /* filled when not NULL */
  ReportRaw *raw;
  GArray *merged;
  PipelineState *p;
  gdouble wall_ns;
  /* ElementState -> its workers over the run (gstaxprof-report.c) */
  GHashTable *workers;
  /* what the rows took of the workers' CPU: threads the elements made,
   * and thread pools */
  guint64 workers_in_rows_ns;
  guint64 pool_in_rows_ns;
} ReportBuild;

/* gstaxprof-debug.c */
void axprof_debug_watch (void);
void axprof_debug_run_start (PipelineState * p);
guint64 axprof_debug_logged (void);
gchar *axprof_debug_default_offender (void);
gchar *axprof_debug_logged_offender (gint64 logged, guint64 frames);

/* gstaxprof-report.c */
MergedRow *axprof_merged_for (ReportBuild * b, Row * row);
GstAxReport *axprof_make_report (const TracerSetup * setup,
    PipelineState * p, GstAxReportStatus status);
GstAxReport *axprof_make_report_raw (const TracerSetup * setup,
    PipelineState * p, GstAxReportStatus status, ReportRaw * raw);
ReportRaw *axprof_report_raw_new (void);
void axprof_report_raw_free (ReportRaw * raw);
void axprof_report_fill_latency (GstAxReport * r,
    const LatencyHistogram * lat);

/* gstaxprof-report-queues.c */
void axprof_build_queues (ReportBuild * b);

/* gstaxprof-report-devices.c */
void axprof_build_devices (ReportBuild * b);

/* gstaxprof-report-projection.c */
void axprof_build_projection (ReportBuild * b);

/* gstaxprof-section.c */
void axprof_section_start (GstElement * pipeline);
GstAxReport *axprof_section_stop (GstElement * pipeline,
    const TracerSetup * setup);
void axprof_pipeline_reset (PipelineState * p);

/* gstaxprof-timeline.c */
gchar *axprof_make_timeline (PipelineState * p);

/* gstaxprof-interval.c */
typedef void (*AxprofIntervalEmit) (gpointer user_data, PipelineState * p,
    GstAxReport * r);
void axprof_interval_start (const TracerSetup * setup, gdouble seconds,
    AxprofIntervalEmit emit, gpointer user_data);
void axprof_interval_run_started (void);
void axprof_interval_stop (void);
gboolean axprof_interval_enabled (void);
void axprof_interval_lock (void);
void axprof_interval_unlock (void);
GstAxReport *axprof_interval_finish (PipelineState * p,
    const GstAxReport * final, const ReportRaw * raw);
GstAxReport *axprof_interval_diff (const GstAxReport * cur,
    const ReportRaw * craw, const GstAxReport * prev, const ReportRaw * praw,
    guint index);
gchar *axprof_interval_text (const GstAxReport * r);

/* gstaxprof-metrics.c */
void axprof_metrics_configure (const TracerSetup * setup,
    const gchar * address);
void axprof_metrics_run_started (gboolean print);
gchar *axprof_metrics_uri (void);
gchar *axprof_metrics_text (const TracerSetup * setup, gboolean openmetrics);
void axprof_metrics_stop (void);

G_END_DECLS
#endif /* __GST_AX_PROF_REPORT_PRIVATE_H__ */
