/* gst-ax
 * Copyright (C) 2026 gst-ax developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

/* gst-ax-benchmark: the second front door to the axprof report. It builds
 * the standard detection pipeline for a model, runs it under the axprof
 * tracer and lets the tracer print its report at EOS, so the report is the
 * one `GST_TRACERS=axprof gst-launch-1.0 ...` prints for the same
 * pipeline. */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <gst/gst.h>
#include <stdio.h>
#include <stdlib.h>

#define DEFAULT_FRAMES 300
#define DEFAULT_WIDTH 1280
#define DEFAULT_HEIGHT 720

typedef struct
{
  gchar *video;
  gint frames;
  gint in_flight;
  gchar *device;
  gdouble time_scale;
  gchar *json;
  gchar *report_file;
  gboolean print_pipeline;
  gboolean overlay;
} Options;

/* gst_parse_launch() reads double-quoted strings, not shell quoting */
static gchar *
parse_quote (const gchar * str)
{
  GString *s = g_string_new ("\"");

  for (; *str; str++) {
    if (*str == '"' || *str == '\\')
      g_string_append_c (s, '\\');
    g_string_append_c (s, *str);
  }
  g_string_append_c (s, '"');
  return g_string_free (s, FALSE);
}

static gchar *
build_pipeline (const gchar * model, const Options * o)
{
  GString *s = g_string_new (NULL);
  gchar *quoted_model = parse_quote (model);

  if (o->video) {
    gchar *quoted = parse_quote (o->video);

    g_string_append_printf (s, "filesrc location=%s ! decodebin ! "
        "videoconvert ! ", quoted);
    g_free (quoted);
  } else {
    g_string_append_printf (s, "videotestsrc pattern=ball num-buffers=%d ! "
        "video/x-raw,width=%d,height=%d ! ", o->frames, DEFAULT_WIDTH,
        DEFAULT_HEIGHT);
  }
  g_string_append (s, "queue ! axletterbox ! ");
  g_string_append_printf (s, "axinference model=%s", quoted_model);
  if (o->in_flight > 0)
    g_string_append_printf (s, " in-flight=%d", o->in_flight);
  if (o->device)
    g_string_append_printf (s, " device=%s", o->device);
  if (o->time_scale >= 0)
    g_string_append_printf (s, " time-scale=%g", o->time_scale);
  g_string_append (s, " ! axnms ! ");
  if (o->overlay)
    g_string_append (s, "axoverlay ! ");
  g_string_append (s, "fakesink sync=false");
  g_free (quoted_model);
  return g_string_free (s, FALSE);
}

static gchar *
build_tracer_params (const Options * o)
{
  GString *s = g_string_new ("axprof");
  gboolean first = TRUE;

  if (o->json || o->report_file) {
    g_string_append_c (s, '(');
    if (o->json) {
      g_string_append_printf (s, "json=%s", o->json);
      first = FALSE;
    }
    if (o->report_file)
      g_string_append_printf (s, "%sfile=%s", first ? "" : ",", o->report_file);
    g_string_append_c (s, ')');
  }
  return g_string_free (s, FALSE);
}

static gboolean
run (GstElement * pipeline)
{
  GstBus *bus = gst_element_get_bus (pipeline);
  gboolean ok = TRUE, done = FALSE;

  /* a failed start posts its reason as an ERROR message: read it below */
  gst_element_set_state (pipeline, GST_STATE_PLAYING);
  while (!done) {
    GstMessage *msg = gst_bus_timed_pop_filtered (bus, GST_CLOCK_TIME_NONE,
        GST_MESSAGE_EOS | GST_MESSAGE_ERROR);

    if (GST_MESSAGE_TYPE (msg) == GST_MESSAGE_ERROR) {
      GError *err = NULL;
      gchar *dbg = NULL;

      gst_message_parse_error (msg, &err, &dbg);
      g_printerr ("gst-ax-benchmark: error from %s: %s\n%s\n",
          GST_OBJECT_NAME (GST_MESSAGE_SRC (msg)), err->message,
          dbg ? dbg : "");
      g_clear_error (&err);
      g_free (dbg);
      ok = FALSE;
    }
    gst_message_unref (msg);
    done = TRUE;
  }
  gst_element_set_state (pipeline, GST_STATE_NULL);
  gst_object_unref (bus);
  return ok;
}

int
main (int argc, char **argv)
{
  Options o = { NULL, DEFAULT_FRAMES, 0, NULL, -1.0, NULL, NULL, FALSE,
    FALSE
  };
  GOptionEntry entries[] = {
    {"video", 'v', 0, G_OPTION_ARG_FILENAME, &o.video,
        "Video file to run (default: videotestsrc pattern=ball)", "FILE"},
    {"frames", 'n', 0, G_OPTION_ARG_INT, &o.frames,
        "Frames of the test source (default 300)", "N"},
    {"in-flight", 'i', 0, G_OPTION_ARG_INT, &o.in_flight,
        "Frames outstanding on the device (default: 2 x cores)", "N"},
    {"device", 'd', 0, G_OPTION_ARG_STRING, &o.device,
        "Device profile, e.g. metis, torq, metis:cores=2", "PROFILE"},
    {"time-scale", 't', 0, G_OPTION_ARG_DOUBLE, &o.time_scale,
        "Device pacing: 1.0 real time, 0 as fast as the host computes", "X"},
    {"json", 'j', 0, G_OPTION_ARG_FILENAME, &o.json,
        "Also write the report as JSON", "FILE"},
    {"report", 'o', 0, G_OPTION_ARG_FILENAME, &o.report_file,
        "Write the text report to FILE instead of stdout", "FILE"},
    {"overlay", 0, 0, G_OPTION_ARG_NONE, &o.overlay,
        "Draw the detections (adds axoverlay)", NULL},
    {"print-pipeline", 'p', 0, G_OPTION_ARG_NONE, &o.print_pipeline,
        "Print the pipeline before running it", NULL},
    {NULL}
  };
  GOptionContext *ctx;
  GError *err = NULL;
  GstElement *pipeline;
  gchar *desc, *tracers;
  gboolean ok;

  ctx = g_option_context_new ("MODEL - profile a detection pipeline");
  g_option_context_set_summary (ctx,
      "Runs MODEL (a name looked up like axinference's model property, or "
      "an .axm path)\nin the standard detection pipeline under the axprof "
      "tracer and prints its\nbenchmark report at EOS.");
  g_option_context_add_main_entries (ctx, entries, NULL);
  if (!g_option_context_parse (ctx, &argc, &argv, &err)) {
    g_printerr ("gst-ax-benchmark: %s\n", err->message);
    return 2;
  }
  if (argc != 2) {
    gchar *help = g_option_context_get_help (ctx, TRUE, NULL);

    g_printerr ("gst-ax-benchmark: expected one MODEL argument, got %d\n\n%s",
        argc - 1, help);
    g_free (help);
    return 2;
  }
  if (o.frames <= 0) {
    g_printerr ("gst-ax-benchmark: --frames must be positive, got %d\n",
        o.frames);
    return 2;
  }
  g_option_context_free (ctx);

  /* the tracer must be named before GStreamer initialises its tracers,
   * which is why GStreamer's own options are not parsed here */
  tracers = build_tracer_params (&o);
  if (g_getenv ("GST_TRACERS") != NULL)
    g_printerr ("gst-ax-benchmark: replacing GST_TRACERS=%s with %s\n",
        g_getenv ("GST_TRACERS"), tracers);
  g_setenv ("GST_TRACERS", tracers, TRUE);
  gst_init (NULL, NULL);

  desc = build_pipeline (argv[1], &o);
  if (o.print_pipeline)
    g_print ("gst-launch-1.0 -e %s\n", desc);
  pipeline = gst_parse_launch (desc, &err);
  if (pipeline == NULL) {
    g_printerr ("gst-ax-benchmark: could not build the pipeline: %s\n"
        "(is the gst-ax plugin on GST_PLUGIN_PATH?)\n", err->message);
    return 1;
  }
  g_clear_error (&err);

  ok = run (pipeline);
  gst_object_unref (pipeline);
  g_free (desc);
  g_free (tracers);
  g_free (o.video);
  g_free (o.device);
  g_free (o.json);
  g_free (o.report_file);
  return ok ? 0 : 1;
}
