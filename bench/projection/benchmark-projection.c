/* gst-ax
 * Copyright (C) 2026 gst-ax developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

/* The projection onto the modelled device against the truth. A run at
 * time-scale 1, where sim-npu's functional compute lags the device model
 * (its report's projection is what a user without the chip reads), is
 * projected to a time scale S at which the simulator keeps pace with the
 * scaled device; a second run at S, which needs no projection, is the
 * truth. For each shipped detector in the standard pipeline, the
 * BlazeFace + emotion cascade and four streams into one device it prints
 * the projected and the measured fps, device occupancy and verdict, and
 * whether they agree: fps and occupancy within TOLERANCE, the same
 * verdict kind.
 *
 * S is chosen from the first run: the device's ceiling at time scale 1
 * (the projection with a host HOST_FAST times as fast) times the
 * simulator's CPU per job, times HOST_MARGIN, so that the simulator needs
 * under 1/HOST_MARGIN of a core at the device's pace, and at least
 * HOST_MARGIN times the ceiling over the projected fps, so that the
 * device binds at S (a host-bound truth would measure how busy this
 * host's cores are, the simulator's threads among them); a run at S that
 * still lags is run again at twice S. Arguments pick cases by name. */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <gst/gst.h>
#include <gst/ax/ax.h>
#include <gst/ax/gstax-private.h>
#include <gst/ax/gstaxprojection-private.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TRACER_PARAMS "axprof(print=false)"
#define TOLERANCE 0.10
#define HOST_MARGIN 2.0
#define HOST_FAST 100.0
#define MIN_TIME_SCALE 2.0
#define MAX_TIME_SCALE 1000.0
#define RETRIES 3
/* the lagging run's frames, and the truth's length: long enough that
 * the device's filling and draining (its occupancy is over the whole run,
 * the projection's over its steady middle) weigh little */
#define LAGGING_FRAMES 60
#define RUN_S 10.0
#define MIN_FRAMES 300
#define MAX_FRAMES 3000
/* the simulator keeps pace when its lag per job stays under this share
 * of the device time per job */
#define PACE_LAG_RATIO 0.1
#define IN_FLIGHT 8
#define PERCENT 100.0

typedef enum
{
  CASE_MODEL,
  CASE_CASCADE,
  CASE_STREAMS,
} CaseKind;

typedef struct
{
  const gchar *name;
  CaseKind kind;
  const gchar *model;
  guint streams;
} Case;

/* *INDENT-OFF* */
static const Case cases[] = {
  {"ball-detector", CASE_MODEL, "ball-detector", 1},
  {"blazeface", CASE_MODEL, "blazeface", 1},
  {"centernet-coco", CASE_MODEL, "centernet-coco", 1},
  {"cascade", CASE_CASCADE, "blazeface/emotion", 1},
  {"streams-4", CASE_STREAMS, "blazeface", 4},
};
/* *INDENT-ON* */

static gchar *face_photo;

static gchar *
describe (const Case * c, guint frames, gdouble time_scale)
{
  GString *s = g_string_new (NULL);
  gchar scale[G_ASCII_DTOSTR_BUF_SIZE];
  guint i;

  g_ascii_dtostr (scale, sizeof (scale), time_scale);
  if (c->kind == CASE_CASCADE) {
    g_string_append_printf (s, "filesrc location=\"%s\" ! jpegdec ! "
        "videoconvert ! imagefreeze num-buffers=%u ! queue ! axletterbox ! "
        "axinference model=blazeface in-flight=%d time-scale=%s ! axnms ! "
        "axletterbox roi-mode=true ! axinference model=emotion in-flight=%d "
        "time-scale=%s ! axclassify ! fakesink sync=false", face_photo,
        frames, IN_FLIGHT, scale, IN_FLIGHT, scale);
    return g_string_free (s, FALSE);
  }
  for (i = 0; i < c->streams; i++)
    g_string_append_printf (s, "%svideotestsrc pattern=ball num-buffers=%u ! "
        "video/x-raw,width=640,height=480 ! queue ! axletterbox ! "
        "axinference model=%s in-flight=%d time-scale=%s ! axnms ! "
        "fakesink sync=false", i ? "  " : "", frames, c->model, IN_FLIGHT,
        scale);
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

static GstAxReport *
run (const Case * c, guint frames, gdouble time_scale)
{
  gchar *desc = describe (c, frames, time_scale);
  GError *err = NULL;
  GstElement *pipeline = gst_parse_launch (desc, &err);
  GstAxReport *report = NULL;
  gboolean done = FALSE, ok = TRUE;
  GstMessage *msg;
  GstBus *bus;

  g_free (desc);
  if (pipeline == NULL || err) {
    g_printerr ("%s: cannot build the pipeline: %s\n", c->name,
        err ? err->message : "?");
    g_clear_error (&err);
    return NULL;
  }
  bus = gst_element_get_bus (pipeline);
  gst_element_set_state (pipeline, GST_STATE_PLAYING);
  while (!done) {
    msg = gst_bus_timed_pop_filtered (bus, GST_CLOCK_TIME_NONE,
        GST_MESSAGE_EOS | GST_MESSAGE_ERROR | GST_MESSAGE_ELEMENT);
    if (GST_MESSAGE_TYPE (msg) == GST_MESSAGE_ERROR) {
      GError *e = NULL;

      gst_message_parse_error (msg, &e, NULL);
      g_printerr ("%s: error from %s: %s\n", c->name,
          GST_OBJECT_NAME (msg->src), e->message);
      g_clear_error (&e);
      ok = FALSE;
      done = TRUE;
    } else if (GST_MESSAGE_TYPE (msg) == GST_MESSAGE_EOS) {
      done = TRUE;
    } else if (report == NULL) {
      report = take_report (msg);
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
  if (!ok && report) {
    gst_ax_report_unref (report);
    report = NULL;
  }
  return report;
}

static gdouble
busiest_occupancy (const GstAxReport * r)
{
  gdouble o = 0;
  guint i;

  for (i = 0; i < gst_ax_report_get_n_device_occupancy (r); i++)
    o = MAX (o, gst_ax_report_get_device_occupancy (r, i)->occupancy_percent);
  return o;
}

/* The worst lag per job over the report's devices, as a share of their
 * device time per job. */
static gdouble
lag_ratio (const GstAxReport * r)
{
  gdouble worst = 0;
  guint i;

  for (i = 0; i < gst_ax_report_get_n_devices (r); i++) {
    const GstAxReportDevice *d = gst_ax_report_get_device (r, i);

    if (d->jobs > 0 && d->device_ms > 0)
      worst = MAX (worst, d->lag_ms / d->jobs / d->device_ms);
  }
  return worst;
}

/* The time scale at which the simulator needs under 1/HOST_MARGIN of a
 * core at the device's ceiling, and at which that ceiling is HOST_MARGIN
 * times below what the host's rows allow: the device binds, so that the
 * truth does not hang on how busy this host's cores are. */
static gdouble
pick_time_scale (const GstAxReport * r)
{
  GstAxProjectionConfig c = { 0, };
  GstAxReportProjection *fast, *host;
  gdouble jobs_per_frame = 0, sim_ms_per_job, scale;
  guint64 jobs = 0;
  guint i;

  host = gst_ax_report_project (r, &c, NULL);
  c.host_speed = HOST_FAST;
  fast = gst_ax_report_project (r, &c, NULL);
  if (fast == NULL || host == NULL) {
    gst_ax_report_projection_free (host);
    gst_ax_report_projection_free (fast);
    return MIN_TIME_SCALE;
  }
  for (i = 0; i < gst_ax_report_get_n_devices (r); i++)
    jobs += gst_ax_report_get_device (r, i)->jobs;
  jobs_per_frame = r->frames ? (gdouble) jobs / r->frames : 1;
  /* the simulator's threads: each device's once */
  sim_ms_per_job = 0;
  for (i = 0; i < gst_ax_report_get_n_device_occupancy (r); i++)
    sim_ms_per_job += gst_ax_report_get_device_occupancy (r, i)->sim_cpu_ms;
  sim_ms_per_job /= MAX (jobs, 1);
  /* at time scale 1 the device would run fast->fps frames a second (per
   * stream: the streams' sum), each jobs_per_frame jobs of
   * sim_ms_per_job */
  scale = HOST_MARGIN * fast->fps * MAX (gst_ax_report_get_n_streams (r), 1)
      * jobs_per_frame * sim_ms_per_job / 1000.0;
  /* the host's rate: its rows' CPU, or what this busy host made of it
   * in the run at time scale 1, whichever is lower */
  if (host->fps > 0 && r->fps > 0)
    scale = MAX (scale, HOST_MARGIN * fast->fps / MIN (host->fps, r->fps));
  gst_ax_report_projection_free (fast);
  gst_ax_report_projection_free (host);
  return CLAMP (ceil (scale), MIN_TIME_SCALE, MAX_TIME_SCALE);
}

static gboolean
near (gdouble projected, gdouble actual)
{
  return fabs (projected - actual) <= TOLERANCE * actual;
}

static gboolean
run_case (const Case * c, guint * agreed)
{
  GstAxReport *lagging, *truth = NULL;
  GstAxReportProjection *p = NULL;
  GstAxProjectionConfig conf = { 0, };
  GError *err = NULL;
  gdouble scale, occ_p, occ_t;
  const gchar *kind_p, *kind_t;
  gboolean ok;
  guint attempt, frames;

  lagging = run (c, LAGGING_FRAMES, 1.0);
  if (lagging == NULL)
    return FALSE;
  scale = pick_time_scale (lagging);
  for (attempt = 0; attempt < RETRIES; attempt++) {
    conf.time_scale = scale;
    if (p)
      gst_ax_report_projection_free (p);
    p = gst_ax_report_project (lagging, &conf, &err);
    if (p == NULL) {
      g_printerr ("%s: no projection: %s\n", c->name, err->message);
      g_clear_error (&err);
      gst_ax_report_unref (lagging);
      return FALSE;
    }
    frames = CLAMP ((guint) (p->fps * RUN_S), MIN_FRAMES, MAX_FRAMES);
    if (truth)
      gst_ax_report_unref (truth);
    truth = run (c, frames, scale);
    if (truth == NULL) {
      gst_ax_report_projection_free (p);
      gst_ax_report_unref (lagging);
      return FALSE;
    }
    if (lag_ratio (truth) <= PACE_LAG_RATIO || scale >= MAX_TIME_SCALE)
      break;
    scale = MIN (scale * 2, MAX_TIME_SCALE);
  }

  occ_p = p->occupancy_percent;
  occ_t = busiest_occupancy (truth);
  kind_p = gst_ax_report_constraint_kind_to_string (p->kind);
  kind_t = gst_ax_report_constraint_kind_to_string (truth->constraint_kind);
  ok = near (p->fps, truth->fps) && near (occ_p, occ_t) &&
      strcmp (kind_p, kind_t) == 0 && lag_ratio (truth) <= PACE_LAG_RATIO;
  if (ok)
    (*agreed)++;
  g_print ("| %s | %.1f (%s) | %g | %.2f | %.2f | %+.1f%% | %.1f%% | %.1f%% | "
      "%s | %s | %s |\n", c->name, lagging->fps,
      gst_ax_report_constraint_kind_to_string (lagging->constraint_kind),
      scale, p->fps, truth->fps, PERCENT * (p->fps - truth->fps) / truth->fps,
      occ_p, occ_t, kind_p, kind_t, ok ? "yes" : "NO");
  gst_ax_report_projection_free (p);
  gst_ax_report_unref (truth);
  gst_ax_report_unref (lagging);
  return TRUE;
}

static gboolean
wanted (const Case * c, gint argc, gchar ** argv)
{
  gint i;

  if (argc < 2)
    return TRUE;
  for (i = 1; i < argc; i++)
    if (strcmp (argv[i], c->name) == 0)
      return TRUE;
  return FALSE;
}

int
main (int argc, char **argv)
{
  const gchar *data = g_getenv ("GST_AX_DATA_DIR");
  guint i, ran = 0, agreed = 0;

  g_setenv ("GST_TRACERS", TRACER_PARAMS, TRUE);
  gst_init (&argc, &argv);
  if (data)
    face_photo = g_build_filename (data, "face-api", "sample1.jpg", NULL);

  g_print ("Projection onto the modelled device against the truth: a run "
      "at time-scale 1\n(the simulator lags) projected to time-scale S, "
      "against a run at S (it keeps pace).\nAgreement: fps and occupancy "
      "within %.0f%%, the same verdict kind. in-flight=%d, metis.\n\n",
      TOLERANCE * PERCENT, IN_FLIGHT);
  g_print ("| case | run at x1: fps (verdict) | S | projected fps | fps at S "
      "| error | projected occupancy | occupancy at S | projected verdict | "
      "verdict at S | agree |\n");
  g_print ("|---|---|---|---|---|---|---|---|---|---|---|\n");
  for (i = 0; i < G_N_ELEMENTS (cases); i++) {
    gchar *path;

    if (!wanted (&cases[i], argc, argv))
      continue;
    if (cases[i].kind == CASE_CASCADE && (face_photo == NULL ||
            !g_file_test (face_photo, G_FILE_TEST_EXISTS))) {
      g_print ("| %s | skipped: no face photo (GST_AX_DATA_DIR) |\n",
          cases[i].name);
      continue;
    }
    path = gst_ax_model_find (cases[i].kind == CASE_CASCADE ? "emotion" :
        cases[i].model, NULL);
    if (path == NULL) {
      g_print ("| %s | skipped: model not built |\n", cases[i].name);
      continue;
    }
    g_free (path);
    if (run_case (&cases[i], &agreed))
      ran++;
  }
  g_print ("\n%u of %u cases agree\n", agreed, ran);
  g_free (face_photo);
  return ran > 0 && agreed == ran ? EXIT_SUCCESS : EXIT_FAILURE;
}
