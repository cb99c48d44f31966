/* gst-ax
 * Copyright (C) 2026 gst-ax developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

#ifndef __GST_AX_REPORT_H__
#define __GST_AX_REPORT_H__

#include <gst/ax/ax-prelude.h>

G_BEGIN_DECLS

/**
 * GST_AX_REPORT_SCHEMA:
 *
 * The schema identifier written into every JSON report.
 */
#define GST_AX_REPORT_SCHEMA "gst-ax/axprof-report/1"

/**
 * GST_AX_REPORT_MIN_P999_SAMPLES:
 *
 * Below this many latency samples the p99.9 is not reported.
 */
#define GST_AX_REPORT_MIN_P999_SAMPLES 1000

/**
 * GstAxReportRowFlags:
 * @GST_AX_REPORT_ROW_FLAG_NONE: a plain element row
 * @GST_AX_REPORT_ROW_FLAG_DEVICE_WAIT: the row waits on a device by design
 * @GST_AX_REPORT_ROW_FLAG_STAGE: the row is a stage, not an element
 * @GST_AX_REPORT_ROW_FLAG_BLOCKED: CPU is well below wall
 * @GST_AX_REPORT_ROW_FLAG_STRONGLY_BLOCKED: CPU is a small fraction of wall
 * @GST_AX_REPORT_ROW_FLAG_WORKERS: the row's CPU includes threads of its
 *   element's own (codec frame threads, an encoder's pool, a thread pool
 *   its calls hand work to), so it can exceed the wall
 *
 * Classification of a row, printed in the Flag column.
 */
typedef enum
{
  GST_AX_REPORT_ROW_FLAG_NONE = 0,
  GST_AX_REPORT_ROW_FLAG_DEVICE_WAIT = (1 << 0),
  GST_AX_REPORT_ROW_FLAG_STAGE = (1 << 1),
  GST_AX_REPORT_ROW_FLAG_BLOCKED = (1 << 2),
  GST_AX_REPORT_ROW_FLAG_STRONGLY_BLOCKED = (1 << 3),
  GST_AX_REPORT_ROW_FLAG_WORKERS = (1 << 4),
} GstAxReportRowFlags;

/**
 * GST_AX_REPORT_RANK_UNKNOWN:
 *
 * The rank of a row whose distance from the sources is not known; it
 * sorts after every known rank.
 */
#define GST_AX_REPORT_RANK_UNKNOWN G_MAXINT

/**
 * GstAxReportRowKind:
 * @GST_AX_REPORT_ROW_KIND_ELEMENT: an element's chain or getrange function
 * @GST_AX_REPORT_ROW_KIND_TASK: a task loop between two pushes (create,
 *   pull, loop)
 * @GST_AX_REPORT_ROW_KIND_REPORTED: a stage an element reported through
 *   the probe API
 *
 * What a row measures.
 */
typedef enum
{
  GST_AX_REPORT_ROW_KIND_ELEMENT,
  GST_AX_REPORT_ROW_KIND_TASK,
  GST_AX_REPORT_ROW_KIND_REPORTED,
} GstAxReportRowKind;

/**
 * GstAxReportStatus:
 * @GST_AX_REPORT_STATUS_EOS: the pipeline reached EOS
 * @GST_AX_REPORT_STATUS_CUT_SHORT: the pipeline stopped without EOS
 * @GST_AX_REPORT_STATUS_RUNNING: taken on demand while running
 * @GST_AX_REPORT_STATUS_SECTION: a profiled section: what ran between
 *   gst_ax_profiler_start() and gst_ax_profiler_stop()
 * @GST_AX_REPORT_STATUS_ERROR: an element posted an ERROR message: the
 *   run is incomplete (the report's error_* fields name it)
 * @GST_AX_REPORT_STATUS_INTERVAL: one interval of a run (the tracer's
 *   `interval=` param): the figures of that interval alone; the report's
 *   interval_index and interval_start_s say which (Since: 0.2)
 *
 * How the run ended when the report was made, or what it covers.
 */
typedef enum
{
  GST_AX_REPORT_STATUS_EOS,
  GST_AX_REPORT_STATUS_CUT_SHORT,
  GST_AX_REPORT_STATUS_RUNNING,
  GST_AX_REPORT_STATUS_SECTION,
  GST_AX_REPORT_STATUS_ERROR,
  GST_AX_REPORT_STATUS_INTERVAL,
} GstAxReportStatus;

/**
 * GstAxReportConstraintKind:
 * @GST_AX_REPORT_CONSTRAINT_UNDETERMINED: nothing was measured, or the run
 *   was refused
 * @GST_AX_REPORT_CONSTRAINT_SIMULATOR: the simulator's functional compute
 *   on the host is slower than the device it models
 * @GST_AX_REPORT_CONSTRAINT_DEVICE: the device is mostly occupied
 * @GST_AX_REPORT_CONSTRAINT_WINDOW: the device's in-flight window is full
 *   while cores are idle
 * @GST_AX_REPORT_CONSTRAINT_BACKPRESSURE: a queue is mostly full, or the
 *   costliest row mostly waits, behind something slower downstream
 * @GST_AX_REPORT_CONSTRAINT_SOURCE: a queue is mostly empty, or a source's
 *   task is the costliest row: upstream cannot keep up
 * @GST_AX_REPORT_CONSTRAINT_SUBMISSION: the device's window is not kept
 *   full
 * @GST_AX_REPORT_CONSTRAINT_HOST: a host element computing
 * @GST_AX_REPORT_CONSTRAINT_LIVE_PACED: the pipeline keeps pace with its
 *   live source, which waits for its clock between frames
 * @GST_AX_REPORT_CONSTRAINT_DROPS: a leaky queue drops buffers: the branch
 *   after it cannot keep up
 *
 * The kind of constraint the verdict names.
 */
typedef enum
{
  GST_AX_REPORT_CONSTRAINT_UNDETERMINED,
  GST_AX_REPORT_CONSTRAINT_SIMULATOR,
  GST_AX_REPORT_CONSTRAINT_DEVICE,
  GST_AX_REPORT_CONSTRAINT_WINDOW,
  GST_AX_REPORT_CONSTRAINT_BACKPRESSURE,
  GST_AX_REPORT_CONSTRAINT_SOURCE,
  GST_AX_REPORT_CONSTRAINT_SUBMISSION,
  GST_AX_REPORT_CONSTRAINT_HOST,
  GST_AX_REPORT_CONSTRAINT_LIVE_PACED,
  GST_AX_REPORT_CONSTRAINT_DROPS,
} GstAxReportConstraintKind;

/**
 * GstAxReportProjection:
 * @time_scale: the device time scale projected: every device job takes
 *   its modelled time multiplied by it (1.0: the modelled device's own
 *   speed)
 * @host_speed: the host rows' speed against this host's (1.0: as
 *   measured; 0.5: a host half as fast)
 * @what_if: (nullable): the configuration changed from the run's, e.g.
 *   "in-flight=8,cores=2"; %NULL for the run's own
 * @fps: frames per second at the busiest sink, as the report's
 * @latency_p50_ms: median end-to-end latency (of a frame alone in the
 *   pipeline when the report's latency comes from a serial pass)
 * @occupancy_percent: occupancy of the busiest device
 * @kind: the constraint on the modelled device
 * @element: (nullable): the element the constraint names
 * @row: (nullable): the row the constraint names
 * @queue: (nullable): the queue it rests on
 * @model: (nullable): the model (device group) it rests on
 * @constraint: (nullable): what follows "the constraint would be", or
 *   why nothing was projected (@kind undetermined)
 *
 * What the pipeline would do on the modelled device: a queueing model of
 * its streaming threads (each serving its rows' CPU per frame as measured
 * on this host, the simulator's threads left out), its queues, in-flight
 * windows and device cores, with every device job taking its modelled
 * time. gst_ax_report_get_projection() reads it.
 *
 * Since: 0.2
 */
typedef struct
{
  gdouble time_scale;
  gdouble host_speed;
  gchar *what_if;
  gdouble fps;
  gdouble latency_p50_ms;
  gdouble occupancy_percent;
  GstAxReportConstraintKind kind;
  gchar *element;
  gchar *row;
  gchar *queue;
  gchar *model;
  gchar *constraint;

  /*< private >*/
  gpointer topology;
  gpointer _gst_reserved[GST_PADDING];
} GstAxReportProjection;

/* the report's structs, generated from the field table
 * gstaxreport-fields.def */
#include <gst/ax/gstaxreport-structs.h>

/**
 * GST_AX_REPORT_ERROR:
 *
 * The error domain of gst_ax_report_new_from_json().
 */
#define GST_AX_REPORT_ERROR (gst_ax_report_error_quark ())

/**
 * GstAxReportError:
 * @GST_AX_REPORT_ERROR_PARSE: the text is not JSON, or not a JSON object
 * @GST_AX_REPORT_ERROR_SCHEMA: the JSON is not a report of
 *   #GST_AX_REPORT_SCHEMA
 * @GST_AX_REPORT_ERROR_INVALID: a member is missing, of the wrong type or
 *   out of range; the message names it
 *
 * Why a report could not be read.
 */
typedef enum
{
  GST_AX_REPORT_ERROR_PARSE,
  GST_AX_REPORT_ERROR_SCHEMA,
  GST_AX_REPORT_ERROR_INVALID,
} GstAxReportError;

/**
 * GST_AX_TYPE_REPORT:
 *
 * The boxed type of #GstAxReport, reference-counted: the `report` field
 * of the tracer's `axprof-report` bus message holds one.
 */
#define GST_AX_TYPE_REPORT (gst_ax_report_get_type ())

/**
 * GST_AX_TYPE_REPORT_VERDICT:
 *
 * The boxed type of #GstAxReportVerdict (copied with
 * gst_ax_report_verdict_copy()).
 *
 * Since: 0.2
 */
#define GST_AX_TYPE_REPORT_VERDICT (gst_ax_report_verdict_get_type ())

/**
 * GstAxReportProvider:
 * @pipeline: the pipeline asked about
 * @user_data: the provider's data
 *
 * Makes a report for @pipeline now.
 *
 * Returns: (transfer full) (nullable): the report, or %NULL if the
 *   provider does not know @pipeline
 */
typedef GstAxReport *(*GstAxReportProvider) (GstElement * pipeline,
    gpointer user_data);

GST_AX_API GType gst_ax_report_get_type (void);
GST_AX_API GQuark gst_ax_report_error_quark (void);
GST_AX_API GstAxReport *gst_ax_report_new (void);
GST_AX_API GstAxReport *gst_ax_report_new_from_json (const gchar * json,
    GError ** error);
GST_AX_API GstAxReport *gst_ax_report_copy (const GstAxReport * report);
GST_AX_API GstAxReport *gst_ax_report_ref (GstAxReport * report);
GST_AX_API void gst_ax_report_unref (GstAxReport * report);
GST_AX_API void gst_ax_report_free (GstAxReport * report);
GST_AX_API void gst_ax_report_latency_from_samples (GstAxReportLatency *
    latency, const gdouble * samples_ms, guint n);
GST_AX_API void gst_ax_report_set_serial_latency (GstAxReport * report,
    const GstAxReportLatency * latency, const gchar * absent);
GST_AX_API guint gst_ax_report_serial_warmup (const gdouble * samples_ms,
    guint n);
GST_AX_API void gst_ax_report_set_serial_warmup (GstAxReport * report,
    const gdouble * samples_ms, guint n_warmup);

GST_AX_API GstAxReportGroup *gst_ax_report_add_group (GstAxReport * report,
    const gchar * name);
GST_AX_API GstAxReportRow *gst_ax_report_group_add_row (GstAxReportGroup *
    group, const gchar * name);
GST_AX_API void gst_ax_report_row_classify (GstAxReportRow * row);
GST_AX_API gboolean gst_ax_report_row_is_computing (const GstAxReportRow *
    row);
GST_AX_API gchar *gst_ax_report_row_flags_to_string (GstAxReportRowFlags
    flags);
GST_AX_API void gst_ax_report_finish_groups (GstAxReport * report);
GST_AX_API GstAxReportDeviceOccupancy *
gst_ax_report_add_device_occupancy (GstAxReport * report,
    const gchar * device, guint device_id);
GST_AX_API void gst_ax_report_device_occupancy_add_model
    (GstAxReportDeviceOccupancy * occupancy, const gchar * group,
    gdouble busy_ms);
GST_AX_API GstAxReportStream *gst_ax_report_add_stream (GstAxReport *
    report, const gchar * name, const gchar * sink, guint64 frames);
GST_AX_API void gst_ax_report_add_warning (GstAxReport * report,
    const gchar * format, ...) G_GNUC_PRINTF (2, 3);

GST_AX_API const gchar *
gst_ax_report_constraint_kind_to_string (GstAxReportConstraintKind kind);
GST_AX_API const gchar *gst_ax_report_status_to_string (GstAxReportStatus
    status);
GST_AX_API GstAxReportVerdict *gst_ax_report_make_verdict (const GstAxReport *
    report);
GST_AX_API void gst_ax_report_verdict_free (GstAxReportVerdict * verdict);
GST_AX_API GType gst_ax_report_verdict_get_type (void);
GST_AX_API GstAxReportVerdict *gst_ax_report_verdict_copy (const
    GstAxReportVerdict * verdict);
GST_AX_API void gst_ax_report_set_verdict (GstAxReport * report,
    const GstAxReportVerdict * verdict);

GST_AX_API const GstAxReportLatency *
gst_ax_report_get_latency (const GstAxReport * report);
GST_AX_API const GstAxReportRow *
gst_ax_report_find_row (const GstAxReport * report, const gchar * group_name,
    const gchar * name, const GstAxReportGroup ** group);
GST_AX_API const GstAxReportDeviceOccupancy *
gst_ax_report_device_get_occupancy (const GstAxReport * report,
    const GstAxReportDevice * device);
GST_AX_API GstAxReportVerdict *gst_ax_report_get_verdict (const GstAxReport *
    report);
GST_AX_API GVariant *gst_ax_report_get_rows (const GstAxReport * report);
GST_AX_API const GstAxReportProjection *
gst_ax_report_get_projection (const GstAxReport * report);

GST_AX_API gchar *gst_ax_report_to_text (const GstAxReport * report);
GST_AX_API gchar *gst_ax_report_to_json (const GstAxReport * report);

GST_AX_API void gst_ax_report_set_provider (GstAxReportProvider provider,
    gpointer user_data);
GST_AX_API GstAxReport *gst_ax_report_get_for_pipeline (GstElement *
    pipeline);

G_END_DECLS

#endif /* __GST_AX_REPORT_H__ */
