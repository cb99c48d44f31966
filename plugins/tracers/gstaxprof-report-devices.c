/* gst-ax
 * Copyright (C) 2026 gst-ax developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

/* The report's devices: each model's device from the events and books
 * its element reported (jobs, busy time, occupancy, depth, lag), each
 * simulated device once over the models that shared it, and a frame's
 * time on the device against the host's. */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstaxprof-report-private.h"

#include <math.h>

/* Host time per frame over every row that is not waiting: neither the
 * device wait, nor a task loop (STAGE), nor STRONGLY BLOCKED. */
static gdouble
host_ms_per_frame (GstAxReport * r, guint64 frames)
{
  gdouble host = 0;
  guint i, j;

  for (i = 0; i < r->groups->len; i++) {
    GstAxReportGroup *g = g_ptr_array_index (r->groups, i);

    for (j = 0; j < g->rows->len; j++) {
      GstAxReportRow *row = &g_array_index (g->rows, GstAxReportRow, j);

      if (!(row->flags & (GST_AX_REPORT_ROW_FLAG_DEVICE_WAIT |
                  GST_AX_REPORT_ROW_FLAG_STAGE |
                  GST_AX_REPORT_ROW_FLAG_STRONGLY_BLOCKED)))
        host += row->total_ms;
    }
  }
  return frames ? host / frames : 0;
}

/* Summed wall of the model's own host stages (probe spans that are not
 * the device wait): the frames inside the model but not on the device. */
static gdouble
model_host_stage_ns (ReportBuild * b, const gchar * group)
{
  gdouble ns = 0;
  guint i;

  for (i = 0; i < b->merged->len; i++) {
    MergedRow *m = &g_array_index (b->merged, MergedRow, i);

    if (m->row->kind == ROW_PROBE && g_strcmp0 (m->row->group, group) == 0 &&
        !(m->row->probe_flags & GST_AX_PROBE_FLAG_DEVICE_WAIT))
      ns += m->wall_sum_ns;
  }
  return ns;
}

/* What the occupancy section needs of a device record, read under its
 * lock by axprof_build_devices(). */
typedef struct
{
  guint64 handle;
  guint device_id;
  guint n_cores;
  guint64 busy_ns;
  guint64 events;
  guint64 first_start;
  guint64 last_end;
  guint64 sim_cpu_ns;
} DeviceSnap;

/* The same figures for a simulated device: the union of the windows and
 * the sum of the busy times of the models that ran on it. */
typedef struct
{
  guint64 handle;
  guint64 busy_ns;
  guint64 first_start;
  guint64 last_end;
  guint64 sim_cpu_ns;
} OccupancyAcc;

/* Lists each simulated device once: models whose elements reported the
 * same device handle shared it; a handle of 0 is the element's own. The
 * simulator's CPU time is the device's, so a shared device's counts
 * once. */
static void
build_device_occupancy (ReportBuild * b, const DeviceSnap * snaps)
{
  GstAxReport *r = b->r;
  GArray *acc = g_array_new (FALSE, TRUE, sizeof (OccupancyAcc));
  guint i, k;

  for (i = 0; i < r->devices->len; i++) {
    GstAxReportDevice *rd = &g_array_index (r->devices, GstAxReportDevice, i);
    const DeviceSnap *sn = &snaps[i];
    GstAxReportDeviceOccupancy *o = NULL;
    OccupancyAcc *a;

    for (k = 0; sn->handle != 0 && k < acc->len && o == NULL; k++)
      if (g_array_index (acc, OccupancyAcc, k).handle == sn->handle)
        o = &g_array_index (r->device_occupancy, GstAxReportDeviceOccupancy, k);
    if (o == NULL) {
      OccupancyAcc fresh = { sn->handle, 0, 0, 0, 0 };

      o = gst_ax_report_add_device_occupancy (r, rd->device, rd->device_id);
      g_array_append_val (acc, fresh);
      k = acc->len;
    }
    a = &g_array_index (acc, OccupancyAcc, k - 1);
    rd->occupancy_index = k;
    o->n_cores = MAX (o->n_cores, rd->n_cores);
    gst_ax_report_device_occupancy_add_model (o, rd->group,
        sn->busy_ns / (gdouble) GST_MSECOND);
    a->busy_ns += sn->busy_ns;
    if (sn->events > 0) {
      if (a->first_start == 0 || sn->first_start < a->first_start)
        a->first_start = sn->first_start;
      a->last_end = MAX (a->last_end, sn->last_end);
    }
    a->sim_cpu_ns = MAX (a->sim_cpu_ns, sn->sim_cpu_ns);
  }
  for (k = 0; k < acc->len; k++) {
    GstAxReportDeviceOccupancy *o = &g_array_index (r->device_occupancy,
        GstAxReportDeviceOccupancy, k);
    OccupancyAcc *a = &g_array_index (acc, OccupancyAcc, k);
    guint64 window_ns = a->last_end - a->first_start;

    o->window_s = window_ns / (gdouble) GST_SECOND;
    if (window_ns > 0)
      o->occupancy_percent = PERCENT * a->busy_ns /
          (MAX (o->n_cores, 1) * (gdouble) window_ns);
    o->sim_cpu_ms = a->sim_cpu_ns / (gdouble) GST_MSECOND;
    if (a->sim_cpu_ns > 0 && b->wall_ns > 0) {
      r->have_sim_cpu = TRUE;
      r->sim_cpu_percent += PERCENT * a->sim_cpu_ns / b->wall_ns;
    }
  }
  g_array_unref (acc);
}

static guint64
since (guint64 now, guint64 base)
{
  /* books that went back were started afresh (a new run) */
  return now >= base ? now - base : now;
}

/* What @d's own books counted since its base, which a section's start
 * sets (gstaxprof-section.c); d->lock held. */
static void
device_books_since_base (const DeviceState * d, DeviceBooks * books)
{
  books->jobs_done = since (d->jobs_done, d->base.jobs_done);
  books->sim_cpu_ns = since (d->sim_cpu_ns, d->base.sim_cpu_ns);
  books->lag_ns = since (d->lag_ns, d->base.lag_ns);
  books->in_window_ns = since (d->in_window_ns, d->base.in_window_ns);
  books->held_in_window_ns = since (d->held_in_window_ns,
      d->base.held_in_window_ns);
  books->window_span_ns = since (d->window_span_ns, d->base.window_span_ns);
}

/* Device figures are taken over the device window, from the first job's
 * start to the last job's end: the time the model was running, without
 * the pipeline's preroll and teardown. */
void
axprof_build_devices (ReportBuild * b)
{
  GstAxReport *r = b->r;
  gdouble device_sum = 0;
  DeviceSnap *snaps = g_new0 (DeviceSnap, b->p->devices->len + 1);
  guint i;

  for (i = 0; i < b->p->devices->len; i++) {
    DeviceState *d = g_ptr_array_index (b->p->devices, i);
    GstAxReportDevice rd = { 0, };
    gdouble events_per_job, fps, expected, window_ns, host_ns, work_ns;
    guint64 union_ns, events;
    DeviceBooks books;

    g_mutex_lock (&d->lock);
    /* the busy intervals go on arriving while a running pipeline is
     * reported: what is read is read under the lock */
    events = d->events;
    device_books_since_base (d, &books);
    rd.group = g_strdup (d->group);
    rd.device = g_strdup (d->device ? d->device : "device");
    rd.n_cores = MAX (d->n_cores, 1);
    rd.in_flight_window = d->window;
    rd.jobs = books.jobs_done;
    if (rd.jobs == 0 && d->events > 0)
      rd.jobs = d->max_job - d->min_job + 1;
    union_ns = d->union_ns + (d->cur_end - d->cur_start);
    window_ns = d->events ? (gdouble) (d->last_end - d->first_start) : 0;
    rd.sim_cpu_ms = books.sim_cpu_ns / (gdouble) GST_MSECOND;
    rd.lag_ms = books.lag_ns / (gdouble) GST_MSECOND;
    events_per_job = rd.jobs ? MAX ((gdouble) d->events / rd.jobs, 1.0) : 1;
    rd.device_ms =
        d->events ? d->busy_ns / (gdouble) GST_MSECOND / d->events : 0;
    host_ns = model_host_stage_ns (b, d->group);
    rd.host_ms = rd.jobs ? host_ns / (gdouble) GST_MSECOND / rd.jobs : 0;
    /* what the frames spent on the device and in the model's own host
     * stages: the least of their time inside the window */
    work_ns = d->busy_ns / events_per_job + host_ns;
    if (window_ns > 0)
      rd.occupancy_percent = PERCENT * d->busy_ns / (rd.n_cores * window_ns);
    /* the depth is the element's own count of frames inside its window
     * (finished ones waiting for the in-order push too); an element that
     * does not keep it is read from its device and host stages */
    if (books.window_span_ns > 0) {
      rd.depth = books.in_window_ns / (gdouble) books.window_span_ns;
      rd.held_depth = books.held_in_window_ns / (gdouble) books.window_span_ns;
    } else if (window_ns > 0) {
      rd.depth = work_ns / window_ns;
    }
    rd.device_s = union_ns / (gdouble) GST_SECOND;
    rd.device_fps =
        union_ns > 0 ? rd.jobs / (union_ns / (gdouble) GST_SECOND) : 0;
    rd.device_id = d->device_id;
    snaps[i].handle = d->device_handle;
    snaps[i].device_id = d->device_id;
    snaps[i].n_cores = rd.n_cores;
    snaps[i].busy_ns = d->busy_ns;
    snaps[i].events = d->events;
    snaps[i].first_start = d->first_start;
    snaps[i].last_end = d->last_end;
    snaps[i].sim_cpu_ns = books.sim_cpu_ns;
    if (b->raw) {
      RawDevice raw = { d->busy_ns, d->events, (guint64) window_ns,
        union_ns
      };

      g_array_append_val (b->raw->devices, raw);
    }
    g_mutex_unlock (&d->lock);

    rd.frames = rd.jobs;
    device_sum += rd.device_ms;

    if (events == 0) {
      gst_ax_report_add_warning (r, "%s reported a device but no device "
          "busy intervals: occupancy and device throughput read 0", rd.group);
    } else if (window_ns > 0) {
      fps = rd.jobs / (window_ns / (gdouble) GST_SECOND);
      /* occupancy x cores == fps x device_ms x cores per job */
      expected =
          fps * rd.device_ms / (gdouble) (GST_SECOND / GST_MSECOND) *
          events_per_job;
      if (fabs (rd.occupancy_percent / PERCENT * rd.n_cores - expected) >
          GST_AX_REPORT_CHECK_TOLERANCE * MAX (expected, 1e-9))
        gst_ax_report_add_warning (r, "%s: occupancy x cores = %.2f but fps "
            "x device_ms = %.2f; they differ by more than %.0f%%: jobs, "
            "frames and busy intervals do not add up", rd.group,
            rd.occupancy_percent / PERCENT * rd.n_cores, expected,
            GST_AX_REPORT_CHECK_TOLERANCE * PERCENT);
      /* Little's law over the model: a frame is inside the window at
       * least while it is on the device or in the model's host stages,
       * so depth >= fps x (device_ms + host_ms), over the window's span
       * (equal when nothing else holds frames in it) */
      expected = work_ns / (books.window_span_ns > 0 ?
          (gdouble) books.window_span_ns : window_ns);
      if (rd.depth < (1.0 - GST_AX_REPORT_CHECK_TOLERANCE) * expected)
        gst_ax_report_add_warning (r, "%s: achieved depth %.2f but fps x "
            "(device_ms + host_ms) = %.2f, which it cannot be below by more "
            "than %.0f%%: jobs and frames do not add up", rd.group, rd.depth,
            expected, GST_AX_REPORT_CHECK_TOLERANCE * PERCENT);
    }
    g_array_append_val (r->devices, rd);
  }

  build_device_occupancy (b, snaps);
  g_free (snaps);
  if (r->devices->len == 0) {
    r->devices_absent = g_strdup ("no device in this pipeline");
    r->share_absent = g_strdup ("no device in this pipeline");
    return;
  }
  r->share_device_ms = device_sum;
  r->share_host_ms = host_ms_per_frame (r, MAX (r->frames, 1));
}
