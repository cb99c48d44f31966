/* gst-ax
 * Copyright (C) 2026 gst-ax developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

/* gst-ax example: an application that embeds the detection pipeline.
 *
 * It builds the pipeline in code, turns the axprof tracer on from code
 * (no GST_TRACERS needed), reads each frame's detections from the
 * region-of-interest metas in a pad probe, takes the benchmark report from
 * the bus as a GstAxReport, and prints three figures from it.
 *
 *   ax-detect [--model NAME] [--frames N]
 *
 * Build it against an installed gst-ax with
 *
 *   cc ax-detect.c -o ax-detect $(pkg-config --cflags --libs gstreamer-ax-1.0)
 */

#include <gst/gst.h>
#include <gst/ax/ax.h>
#include <stdlib.h>

#define DEFAULT_MODEL "ball-detector"
#define DEFAULT_FRAMES 60
#define WIDTH 320
#define HEIGHT 240
#define FPS 30
/* detections printed one by one before only counting them */
#define DETECTIONS_SHOWN 3
#define PERCENT 100.0

typedef struct
{
  guint frames;
  guint frames_with_detections;
  guint detections;
} Counts;

/* Runs on the sink's streaming thread for every frame: the detections are
 * GstVideoRegionOfInterestMeta on the buffer, each with a "detection"
 * param that gst_ax_detection_iterate() reads. */
static GstPadProbeReturn
on_frame (GstPad * pad, GstPadProbeInfo * info, gpointer user_data)
{
  Counts *counts = user_data;
  GstBuffer *buf = GST_PAD_PROBE_INFO_BUFFER (info);
  gpointer state = NULL;
  GstAxDetection det;
  GstVideoRegionOfInterestMeta *roi;
  guint n = 0;

  while (gst_ax_detection_iterate (buf, &state, &det, &roi)) {
    if (counts->detections + n < DETECTIONS_SHOWN)
      g_print ("frame %u: %s %.2f at %u,%u %ux%u px\n", counts->frames,
          det.label ? det.label : "?", det.confidence, roi->x, roi->y,
          roi->w, roi->h);
    n++;
  }
  counts->frames++;
  counts->detections += n;
  if (n > 0)
    counts->frames_with_detections++;
  return GST_PAD_PROBE_OK;
}

static GstElement *
make (GstElement * pipeline, const gchar * factory, const gchar * name)
{
  GstElement *e = gst_element_factory_make (factory, name);

  if (e == NULL) {
    g_printerr ("no element '%s': is the gst-ax plugin dir on "
        "GST_PLUGIN_PATH?\n", factory);
    exit (EXIT_FAILURE);
  }
  gst_bin_add (GST_BIN (pipeline), e);
  return e;
}

/* videotestsrc pattern=ball ! capsfilter ! queue ! axletterbox !
 * axinference ! axnms ! fakesink: the standard detection pipeline. */
static GstElement *
build_pipeline (const gchar * model, gint frames, Counts * counts)
{
  GstElement *pipeline = gst_pipeline_new ("detect");
  GstElement *src, *caps, *queue, *letterbox, *inference, *nms, *sink;
  GstCaps *c;
  GstPad *pad;

  src = make (pipeline, "videotestsrc", "src");
  caps = make (pipeline, "capsfilter", NULL);
  queue = make (pipeline, "queue", NULL);
  letterbox = make (pipeline, "axletterbox", NULL);
  inference = make (pipeline, "axinference", NULL);
  nms = make (pipeline, "axnms", NULL);
  sink = make (pipeline, "fakesink", "sink");

  gst_util_set_object_arg (G_OBJECT (src), "pattern", "ball");
  g_object_set (src, "num-buffers", frames, NULL);
  c = gst_caps_new_simple ("video/x-raw", "format", G_TYPE_STRING, "RGB",
      "width", G_TYPE_INT, WIDTH, "height", G_TYPE_INT, HEIGHT,
      "framerate", GST_TYPE_FRACTION, FPS, 1, NULL);
  g_object_set (caps, "caps", c, NULL);
  gst_caps_unref (c);
  g_object_set (inference, "model", model, NULL);
  g_object_set (sink, "sync", FALSE, NULL);

  if (!gst_element_link_many (src, caps, queue, letterbox, inference, nms,
          sink, NULL)) {
    g_printerr ("cannot link the pipeline\n");
    exit (EXIT_FAILURE);
  }

  pad = gst_element_get_static_pad (sink, "sink");
  gst_pad_add_probe (pad, GST_PAD_PROBE_TYPE_BUFFER, on_frame, counts, NULL);
  gst_object_unref (pad);
  return pipeline;
}

static void
print_figures (const GstAxReport * r)
{
  const GstAxReportRow *row = NULL;
  const GstAxReportGroup *group = NULL;
  guint i;

  /* 1: throughput */
  if (r->throughput_absent)
    g_print ("fps: n/a (%s)\n", r->throughput_absent);
  else
    g_print ("fps: %.1f (%" G_GUINT64_FORMAT " frames in %.2f s)\n", r->fps,
        r->frames, r->wall_s);

  /* 2: the bottleneck: what the verdict rests on, by its kind */
  if (r->constraint_row)
    row = gst_ax_report_find_row (r, NULL, r->constraint_row, &group);
  g_print ("bottleneck: %s", gst_ax_report_constraint_kind_to_string
      (r->constraint_kind));
  if (row)
    g_print (" (row %s in %s, %.2f ms per call over %" G_GUINT64_FORMAT
        " calls)", row->name, group->name, row->mean_ms, row->count);
  else if (r->constraint_model)
    g_print (" (model %s)", r->constraint_model);
  else if (r->constraint_element)
    g_print (" (element %s)", r->constraint_element);
  if (r->constraint_queue)
    g_print (" (queue %s)", r->constraint_queue);
  g_print ("\n  the constraint is %s\n", r->constraint ? r->constraint :
      "undetermined");

  /* 3: each simulated device's occupancy */
  if (r->devices_absent)
    g_print ("device occupancy: n/a (%s)\n", r->devices_absent);
  for (i = 0; i < gst_ax_report_get_n_device_occupancy (r); i++) {
    const GstAxReportDeviceOccupancy *o =
        gst_ax_report_get_device_occupancy (r, i);

    g_print ("device occupancy: %.1f%% of %u cores on %s (device-id %u)\n",
        o->occupancy_percent, o->n_cores, o->device, o->device_id);
  }
}

int
main (int argc, char **argv)
{
  gchar *model = NULL;
  gint frames = DEFAULT_FRAMES;
  GOptionEntry entries[] = {
    {"model", 'm', 0, G_OPTION_ARG_STRING, &model,
        "Model name or .axm path (default " DEFAULT_MODEL ")", "NAME"},
    {"frames", 'n', 0, G_OPTION_ARG_INT, &frames,
        "Frames to run (default " G_STRINGIFY (DEFAULT_FRAMES) ")", "N"},
    {NULL}
  };
  GOptionContext *ctx = g_option_context_new ("- detection with gst-ax");
  GError *error = NULL;
  Counts counts = { 0, };
  GstAxReport *report = NULL;
  GstElement *pipeline;
  GstBus *bus;
  GstMessage *msg;
  gboolean ok = TRUE;

  g_option_context_add_main_entries (ctx, entries, NULL);
  g_option_context_add_group (ctx, gst_init_get_option_group ());
  if (!g_option_context_parse (ctx, &argc, &argv, &error)) {
    g_printerr ("%s\n", error->message);
    return EXIT_FAILURE;
  }
  g_option_context_free (ctx);

  /* before any pipeline exists; print=false: the report comes as data */
  if (!gst_ax_profiler_enable ("print=false", &error)) {
    g_printerr ("cannot enable axprof: %s\n", error->message);
    return EXIT_FAILURE;
  }

  pipeline = build_pipeline (model ? model : DEFAULT_MODEL, frames, &counts);
  bus = gst_element_get_bus (pipeline);
  if (gst_element_set_state (pipeline, GST_STATE_PLAYING) ==
      GST_STATE_CHANGE_FAILURE) {
    GError *err = NULL;

    /* the element that failed posted why */
    msg = gst_bus_pop_filtered (bus, GST_MESSAGE_ERROR);
    if (msg)
      gst_message_parse_error (msg, &err, NULL);
    g_printerr ("the pipeline does not start: %s\n",
        err ? err->message : "no error message");
    g_clear_error (&err);
    if (msg)
      gst_message_unref (msg);
    return EXIT_FAILURE;
  }

  /* axprof posts its report as an element message just before the EOS */
  while ((msg = gst_bus_timed_pop_filtered (bus, GST_CLOCK_TIME_NONE,
              GST_MESSAGE_EOS | GST_MESSAGE_ERROR | GST_MESSAGE_ELEMENT))) {
    GstMessageType type = GST_MESSAGE_TYPE (msg);

    if (type == GST_MESSAGE_ELEMENT &&
        gst_message_has_name (msg, "axprof-report")) {
      gst_ax_report_unref (report);
      gst_structure_get (gst_message_get_structure (msg), "report",
          GST_AX_TYPE_REPORT, &report, NULL);
    } else if (type == GST_MESSAGE_ERROR) {
      GError *err = NULL;

      gst_message_parse_error (msg, &err, NULL);
      g_printerr ("error: %s\n", err->message);
      g_error_free (err);
      ok = FALSE;
    }
    gst_message_unref (msg);
    if (type != GST_MESSAGE_ELEMENT)
      break;
  }
  gst_element_set_state (pipeline, GST_STATE_NULL);

  g_print ("detections: %u in %u frames (%u frames with at least one)\n",
      counts.detections, counts.frames, counts.frames_with_detections);
  if (report) {
    print_figures (report);
    gst_ax_report_unref (report);
  } else {
    g_printerr ("no axprof report on the bus\n");
    ok = FALSE;
  }

  gst_object_unref (bus);
  gst_object_unref (pipeline);
  g_free (model);
  return ok ? EXIT_SUCCESS : EXIT_FAILURE;
}
