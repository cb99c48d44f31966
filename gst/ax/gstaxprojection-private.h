/* gst-ax
 * Copyright (C) 2026 gst-ax developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

/* Not installed: the projection onto the modelled device
 * (gstaxprojection.c), shared by libgstax, the axprof tracer (which
 * records the topology it needs), gst-ax-benchmark's --what-if and the
 * tests.
 *
 * The topology is what the report's rows and devices do not say: which
 * streaming thread ran each row (threads are numbered by the recorder,
 * any numbering will do), and each model's device time scale. Queues
 * link the thread that runs their chain to the thread that runs their
 * pull; a model links the thread that runs its element's chain (the
 * submission) to the thread that runs its task loop (the output). */

#ifndef __GST_AX_PROJECTION_PRIVATE_H__
#define __GST_AX_PROJECTION_PRIVATE_H__

#include <gst/ax/ax.h>
#include <json-glib/json-glib.h>

G_BEGIN_DECLS

/* frames each source brings into the model, of which the first and the
 * last PROJECTION_EDGE_FRACTION are left out of the figures (the pipeline
 * filling and draining) */
#define GST_AX_PROJECTION_FRAMES 600
#define GST_AX_PROJECTION_EDGE_FRACTION 0.1
/* frames of the serial latency pass (one frame in the pipeline) */
#define GST_AX_PROJECTION_SERIAL_FRAMES 20
/* bounds of the what-if values */
#define GST_AX_PROJECTION_MAX_IN_FLIGHT 64
#define GST_AX_PROJECTION_MAX_CORES 64
#define GST_AX_PROJECTION_MAX_TIME_SCALE 1000.0
#define GST_AX_PROJECTION_MIN_HOST_SPEED 0.01
/* device resources other than the cores (DMA engines, ...) modelled */
#define GST_AX_PROJECTION_MAX_ENGINES 8
#define GST_AX_PROJECTION_MAX_HOST_SPEED 100.0
typedef struct _GstAxProjectionTopology GstAxProjectionTopology;

GST_AX_API GstAxProjectionTopology *gst_ax_projection_topology_new (void);
GST_AX_API void gst_ax_projection_topology_free (GstAxProjectionTopology *
    topology);
GST_AX_API void gst_ax_projection_topology_add_row (GstAxProjectionTopology *
    topology, const gchar * group, const gchar * element, const gchar * row,
    guint thread);
/* @resources: what one job asks of the device's resources at time scale
 * 1.0, as axinference's job-resources ("core=170000,dma=120000", ns),
 * or NULL: then the whole job (the report's device_ms at @time_scale)
 * takes its core */
GST_AX_API void gst_ax_projection_topology_add_device (GstAxProjectionTopology
    * topology, const gchar * group, const gchar * element, gdouble time_scale,
    const gchar * resources);

/* What to project. Zero members keep the run's own value. */
typedef struct
{
  /* device time scale; 0: 1.0, the modelled device's own speed */
  gdouble time_scale;
  /* every model's in-flight window; 0: as set */
  guint in_flight;
  /* every device's cores; 0: as set */
  guint cores;
  /* host rows' speed against this host's; 0: 1.0 */
  gdouble host_speed;
  /* per report device (gst_ax_report_get_device()), what a job asks of
   * the resources of another device profile (as
   * gst_ax_projection_topology_add_device()); NULL where the run's own */
  const gchar *const *resources;
  guint n_resources;
  /* the device profile @job_ms are for, for the what-if text */
  const gchar *device;
} GstAxProjectionConfig;

/* Projects @report (which must carry a projection with its topology:
 * gst_ax_report_attach_projection()) onto @config. NULL with @error set
 * when it cannot (no model, no topology, a device at time scale 0). */
GST_AX_API GstAxReportProjection *gst_ax_report_project (const GstAxReport *
    report, const GstAxProjectionConfig * config, GError ** error);
GST_AX_API void gst_ax_report_projection_free (GstAxReportProjection *
    projection);
/* Projects @report at its own configuration (time scale 1.0) from
 * @topology (taken) and stores the result in report->projection: an
 * absent one (kind undetermined, the reason in its constraint) when it
 * cannot. Does nothing without devices. */
GST_AX_API void gst_ax_report_attach_projection (GstAxReport * report,
    GstAxProjectionTopology * topology);
/* The section's text, as gst_ax_report_to_text() prints it. */
GST_AX_API gchar *gst_ax_report_projection_to_text (const
    GstAxReportProjection * projection);

/* for the report's own files */
G_GNUC_INTERNAL void gst_ax_projection_append_text (const GstAxReport *
    report, GString * s);
G_GNUC_INTERNAL void gst_ax_projection_to_json (const GstAxReport * report,
    JsonBuilder * b);
G_GNUC_INTERNAL gboolean gst_ax_projection_from_json (GstAxReport * report,
    JsonObject * root, GError ** error);
G_GNUC_INTERNAL void gst_ax_projection_copy (GstAxReport * dest,
    const GstAxReport * src);
G_GNUC_INTERNAL void gst_ax_projection_note_verdict (const GstAxReport *
    report, GstAxReportVerdict * verdict);

G_END_DECLS
#endif /* __GST_AX_PROJECTION_PRIVATE_H__ */
