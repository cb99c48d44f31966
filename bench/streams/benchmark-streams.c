/* gst-ax
 * Copyright (C) 2026 gst-ax developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

/* Many streams into one shared device: blazeface on metis for N = 1, 2, 4
 * and 8 streams, in one pipeline of N branches (the one
 * `gst-ax-benchmark blazeface --streams N` builds), each stream with one
 * frame on the device at a time (in-flight 1), under the axprof tracer.
 * Per N it prints the aggregate and per-stream fps, the occupancy of the
 * one device they share, and the aggregate against the device's ceiling
 * from the cost model, taken in the same run from the model loaded on the
 * same profile: cores / device time per job (a job holds its core from
 * its first action to its last). Occupancy should rise with N until the
 * device is the constraint, where the aggregate should reach TARGET_RATIO
 * of the ceiling.
 *
 * The simulator computes every job on the host, whose cores the pipeline's
 * own elements share. A calibration run of the largest N at time-scale 0
 * (jobs complete as soon as computed) measures what the host sustains; the
 * runs then use the smallest time-scale (device time stretched, host work
 * unchanged) at which the device's ceiling is HOST_MARGIN times below it,
 * so that the device, not the host, is what the streams saturate. The
 * time-scale and why are printed. An argument forces a time-scale. */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <gst/gst.h>
#include <gst/ax/ax.h>
#include <gst/ax/gstax-private.h>
#include <simnpu/simnpu.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MODEL "blazeface"
#define DEVICE "metis"
#define IN_FLIGHT 1
/* a VGA camera: the device's work per frame does not depend on the
 * frame's size, the host's (the test source's drawing) does */
#define WIDTH 640
#define HEIGHT 480
#define MAX_STREAMS 8
#define TARGET_RATIO 0.90
/* the host must sustain this many times the device's ceiling */
#define HOST_MARGIN 2.0
/* frames per stream of the calibration run */
#define CALIBRATION_FRAMES 12
/* the largest N's run lasts about this long at the device's ceiling */
#define RUN_S 4.0
#define MIN_FRAMES 24
/* axinference's time-scale property goes no further */
#define MAX_TIME_SCALE 1000.0
#define TRACER_PARAMS "axprof(print=false)"
#define NS_PER_S 1e9
#define PERCENT 100.0

static const guint stream_counts[] = { 1, 2, 4, MAX_STREAMS };

typedef struct
{
  guint n;
  gdouble wall_s;
  guint64 frames;
  gdouble fps;
  gdouble min_stream_fps;
  gdouble max_stream_fps;
  guint n_devices;
  guint n_models;
  gdouble occupancy;
  gdouble lag_ms_per_job;
  gchar *constraint_kind;
} RunResult;

typedef struct
{
  gint frames;
} SinkCount;

static GstPadProbeReturn
count_probe (GstPad * pad, GstPadProbeInfo * info, gpointer user_data)
{
  SinkCount *c = user_data;

  g_atomic_int_inc (&c->frames);
  return GST_PAD_PROBE_OK;
}

static gchar *
describe (guint n, guint frames, gdouble time_scale)
{
  GString *s = g_string_new (NULL);
  guint i;

  for (i = 1; i <= n; i++)
    g_string_append_printf (s, "%svideotestsrc pattern=ball num-buffers=%u ! "
        "video/x-raw,width=%d,height=%d ! queue ! axletterbox ! axinference "
        "model=" MODEL " device=" DEVICE " in-flight=%d time-scale=%g ! "
        "axnms ! fakesink name=sink-%u sync=false", i > 1 ? "  " : "",
        frames, WIDTH, HEIGHT, IN_FLIGHT, time_scale, i);
  return g_string_free (s, FALSE);
}

static GstAxReport *
take_report (GstMessage * msg)
{
  const GstStructure *st = gst_message_get_structure (msg);
  GstAxReport *r = NULL;

  if (st && gst_structure_has_name (st, "axprof-report"))
    gst_structure_get (st, "report", GST_AX_TYPE_REPORT, &r, NULL);
  return r;
}

/* Runs @n streams of @frames each to EOS; FALSE on failure. */
static gboolean
run_streams (guint n, guint frames, gdouble time_scale, RunResult * res)
{
  gchar *desc = describe (n, frames, time_scale);
  GError *err = NULL;
  GstElement *pipeline = gst_parse_launch (desc, &err);
  SinkCount counts[MAX_STREAMS];
  GstAxReport *report = NULL;
  GstMessage *msg;
  GstBus *bus;
  gboolean done = FALSE, ok = TRUE;
  guint i, j;

  g_free (desc);
  if (pipeline == NULL || err) {
    g_printerr ("cannot build the pipeline: %s\n", err ? err->message : "?");
    g_clear_error (&err);
    return FALSE;
  }
  memset (res, 0, sizeof (*res));
  memset (counts, 0, sizeof (counts));
  for (i = 0; i < n; i++) {
    gchar *name = g_strdup_printf ("sink-%u", i + 1);
    GstElement *sink = gst_bin_get_by_name (GST_BIN (pipeline), name);
    GstPad *pad = gst_element_get_static_pad (sink, "sink");

    gst_pad_add_probe (pad, GST_PAD_PROBE_TYPE_BUFFER, count_probe,
        &counts[i], NULL);
    gst_object_unref (pad);
    gst_object_unref (sink);
    g_free (name);
  }
  bus = gst_element_get_bus (pipeline);
  gst_element_set_state (pipeline, GST_STATE_PLAYING);
  while (!done) {
    msg = gst_bus_timed_pop_filtered (bus, GST_CLOCK_TIME_NONE,
        GST_MESSAGE_EOS | GST_MESSAGE_ERROR | GST_MESSAGE_ELEMENT);
    switch (GST_MESSAGE_TYPE (msg)) {
      case GST_MESSAGE_ERROR:{
        GError *e = NULL;

        gst_message_parse_error (msg, &e, NULL);
        g_printerr ("error from %s: %s\n", GST_OBJECT_NAME (msg->src),
            e->message);
        g_clear_error (&e);
        ok = FALSE;
        done = TRUE;
        break;
      }
      case GST_MESSAGE_EOS:
        done = TRUE;
        break;
      default:
        if (report == NULL)
          report = take_report (msg);
        break;
    }
    gst_message_unref (msg);
  }
  /* the tracer posts its report at EOS, before the EOS message */
  gst_element_set_state (pipeline, GST_STATE_NULL);
  while ((msg = gst_bus_pop_filtered (bus, GST_MESSAGE_ELEMENT)) != NULL) {
    if (report == NULL)
      report = take_report (msg);
    gst_message_unref (msg);
  }
  gst_object_unref (bus);
  gst_object_unref (pipeline);
  if (!ok)
    goto out;
  if (report == NULL || report->wall_s <= 0) {
    g_printerr ("the axprof tracer gave no report with a wall time\n");
    ok = FALSE;
    goto out;
  }

  res->n = n;
  res->wall_s = report->wall_s;
  res->min_stream_fps = G_MAXDOUBLE;
  for (i = 0; i < n; i++) {
    gdouble fps = counts[i].frames / report->wall_s;

    res->frames += counts[i].frames;
    res->min_stream_fps = MIN (res->min_stream_fps, fps);
    res->max_stream_fps = MAX (res->max_stream_fps, fps);
  }
  res->fps = res->frames / report->wall_s;
  res->n_devices = report->device_occupancy->len;
  if (res->n_devices > 0) {
    const GstAxReportDeviceOccupancy *o =
        &g_array_index (report->device_occupancy, GstAxReportDeviceOccupancy,
        0);

    res->occupancy = o->occupancy_percent;
    res->n_models = o->models->len;
  }
  for (j = 0; j < report->devices->len; j++) {
    const GstAxReportDevice *d = &g_array_index (report->devices,
        GstAxReportDevice, j);

    res->lag_ms_per_job += d->jobs ? d->lag_ms / d->jobs / report->devices->len
        : 0;
  }
  res->constraint_kind =
      g_strdup (gst_ax_report_constraint_kind_to_string
      (report->constraint_kind));
out:
  if (report)
    gst_ax_report_unref (report);
  return ok;
}

int
main (int argc, char **argv)
{
  gchar *tried = NULL, *path;
  simnpu_device *dev;
  simnpu_model *net;
  simnpu_device_info di;
  simnpu_model_info mi;
  simnpu_error err;
  gdouble ceiling1, ceiling, time_scale, wanted, host_fps = 0;
  RunResult runs[G_N_ELEMENTS (stream_counts)], calibration;
  guint i, frames, n_cores, bound_at = 0;
  gboolean forced = argc > 1;

  g_setenv ("GST_TRACERS", TRACER_PARAMS, TRUE);
  gst_init (&argc, &argv);

  path = gst_ax_model_find (MODEL, &tried);
  if (path == NULL) {
    g_printerr ("model " MODEL " not found (tried %s)\n", tried);
    return 1;
  }
  if (simnpu_device_open (DEVICE, &dev, &err) < 0
      || simnpu_model_load (dev, path, &net, &err) < 0) {
    g_printerr ("cannot load %s on " DEVICE ": %s\n", path, err.message);
    return 1;
  }
  simnpu_device_get_info (dev, &di);
  simnpu_model_get_info (net, &mi);
  n_cores = di.n_cores;
  simnpu_model_unload (net);
  simnpu_device_close (dev);
  if (mi.device_ns == 0) {
    g_printerr ("the cost model gives " MODEL " no device time\n");
    return 1;
  }
  ceiling1 = n_cores / (mi.device_ns / NS_PER_S);

  printf ("streams: " MODEL " on " DEVICE " (%u cores), device time %.3f "
      "ms per job at time-scale 1 (cost model): device ceiling %u cores / "
      "%.3f ms = %.1f fps\n", n_cores, mi.device_ns / 1e6, n_cores,
      mi.device_ns / 1e6, ceiling1);

  if (forced) {
    time_scale = g_ascii_strtod (argv[1], NULL);
    if (!(time_scale > 0)) {
      g_printerr ("usage: %s [TIME-SCALE > 0]\n", argv[0]);
      return 2;
    }
    printf ("time-scale %g, as given\n", time_scale);
  } else {
    if (!run_streams (MAX_STREAMS, CALIBRATION_FRAMES, 0, &calibration))
      return 1;
    host_fps = calibration.fps;
    g_free (calibration.constraint_kind);
    /* a round figure, never faster than real time */
    wanted = MAX (1.0, ceil (HOST_MARGIN * ceiling1 / host_fps));
    time_scale = MIN (wanted, MAX_TIME_SCALE);
    printf ("time-scale %g: at time-scale 0 the host computes %d streams of "
        "this pipeline at %.1f fps in all (functional int8 compute and the "
        "pipeline's own elements, on %u host cores); the device's ceiling "
        "is %.1f fps at time-scale 1, so it is run %gx slower (ceiling "
        "%.1f fps), %.1fx below what the host sustains\n", time_scale,
        MAX_STREAMS, host_fps, g_get_num_processors (), ceiling1, time_scale,
        ceiling1 / time_scale, host_fps / (ceiling1 / time_scale));
    if (wanted > time_scale)
      printf ("WARNING: keeping pace needs time-scale %g, beyond "
          "axinference's maximum %g: the host is too busy for the device "
          "to be the constraint, the simulator lag below says by how "
          "much\n", wanted, MAX_TIME_SCALE);
  }
  ceiling = ceiling1 / time_scale;
  frames = MAX (MIN_FRAMES, (guint) (RUN_S * ceiling / MAX_STREAMS));
  printf ("each stream: videotestsrc %dx%d, %u frames, in-flight %d, one "
      "pipeline of N branches sharing one device\n", WIDTH, HEIGHT, frames,
      IN_FLIGHT);

  for (i = 0; i < G_N_ELEMENTS (stream_counts); i++) {
    RunResult *r = &runs[i];

    if (!run_streams (stream_counts[i], frames, time_scale, r))
      return 1;
    printf ("N=%u: aggregate %.1f fps, per stream %.2f fps (min %.2f, max "
        "%.2f); device occupancy %.1f%%; %.3f of the device ceiling %.2f fps; "
        "simulator lag %.2f ms per job; verdict: %s\n", r->n, r->fps,
        r->fps / r->n, r->min_stream_fps, r->max_stream_fps, r->occupancy,
        r->fps / ceiling, ceiling, r->lag_ms_per_job, r->constraint_kind);
    if (r->n_devices != 1 || r->n_models != r->n)
      printf ("WARNING: N=%u ran on %u devices (%u axinference on the "
          "first), not on one shared device\n", r->n, r->n_devices,
          r->n_models);
    if (bound_at == 0 && r->occupancy >=
        GST_AX_REPORT_DEVICE_BOUND_OCCUPANCY_PERCENT)
      bound_at = i + 1;
  }

  if (bound_at == 0) {
    printf ("streams: the device never reached %.0f%% occupancy up to N=%u: "
        "no device-bound point (best aggregate %.3f of the ceiling)\n",
        GST_AX_REPORT_DEVICE_BOUND_OCCUPANCY_PERCENT, MAX_STREAMS,
        runs[G_N_ELEMENTS (stream_counts) - 1].fps / ceiling);
  } else {
    const RunResult *b = &runs[bound_at - 1];
    const RunResult *last = &runs[G_N_ELEMENTS (stream_counts) - 1];

    printf ("streams: device-bound from N=%u (occupancy %.1f%% >= %.0f%%): "
        "aggregate %.1f fps = %.3f of the device ceiling %.1f fps (target "
        ">= %.2f%s); at N=%u %.1f fps = %.3f (occupancy %.1f%%); time-scale "
        "%g\n", b->n, b->occupancy,
        GST_AX_REPORT_DEVICE_BOUND_OCCUPANCY_PERCENT, b->fps, b->fps / ceiling,
        ceiling, TARGET_RATIO, b->fps / ceiling >= TARGET_RATIO ? ", met" :
        ", NOT met", last->n, last->fps, last->fps / ceiling, last->occupancy,
        time_scale);
  }
  for (i = 0; i < G_N_ELEMENTS (stream_counts); i++)
    g_free (runs[i].constraint_kind);
  g_free (path);
  g_free (tried);
  return 0;
}
