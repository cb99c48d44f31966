/* gst-ax
 * Copyright (C) 2026 gst-ax developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

/**
 * SECTION:gstaxprofiler
 * @title: Profiler
 * @short_description: the axprof tracer driven from code
 *
 * An application turns the axprof tracer on from code with
 * gst_ax_profiler_enable() (the same as `GST_TRACERS="axprof(PARAMS)"` in
 * the environment), and profiles a section of a pipeline's run between
 * gst_ax_profiler_start() and gst_ax_profiler_stop(), which returns the
 * report of what ran in between:
 *
 * |[<!-- language="C" -->
 * gst_init (&argc, &argv);
 * if (!gst_ax_profiler_enable ("print=false", &error))
 *   g_printerr ("no profile: %s\n", error->message);
 * pipeline = gst_parse_launch ("...", NULL);
 * gst_element_set_state (pipeline, GST_STATE_PLAYING);
 * ...
 * gst_ax_profiler_start (pipeline, NULL);
 * ... the frames to profile ...
 * report = gst_ax_profiler_stop (pipeline, NULL);
 * g_print ("%.1f fps\n", report->fps);
 * gst_ax_report_unref (report);
 * ]|
 *
 * The library never links the tracer: it finds the active one among
 * gst_tracing_get_active_tracers() and emits its action signals
 * "section-start" and "section-stop".
 */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstaxprofiler.h"

#include <gst/gsttracer.h>
#include <gst/gsttracerfactory.h>

/* the axprof tracer's GType name (plugins/tracers/gstaxprof.h) */
#define AXPROF_TYPE_NAME "GstAxProf"

/* tracers are instantiated once, never two at a time */
static GMutex enable_lock;

/* G_DEFINE_QUARK's first argument is the name itself, not a string:
 * gst-indent would read it as a subtraction and space it out */
/* *INDENT-OFF* */
G_DEFINE_QUARK (gst-ax-profiler-error-quark, gst_ax_profiler_error);
/* *INDENT-ON* */

/* The active axprof tracers, each with a reference. */
static GList *
active_axprof (void)
{
  GList *all = gst_tracing_get_active_tracers (), *l, *ours = NULL;

  for (l = all; l; l = l->next) {
    if (g_strcmp0 (G_OBJECT_TYPE_NAME (l->data), AXPROF_TYPE_NAME) == 0)
      ours = g_list_prepend (ours, gst_object_ref (l->data));
  }
  g_list_free_full (all, gst_object_unref);
  return ours;
}

/**
 * gst_ax_profiler_is_enabled:
 *
 * Returns: %TRUE when an axprof tracer is active, from GST_TRACERS or
 *   gst_ax_profiler_enable()
 *
 * Since: 0.2
 */
gboolean
gst_ax_profiler_is_enabled (void)
{
  GList *tracers = active_axprof ();
  gboolean on = tracers != NULL;

  g_list_free_full (tracers, gst_object_unref);
  return on;
}

/**
 * gst_ax_profiler_enable:
 * @params: (nullable): the tracer's params, as between the parentheses of
 *   `GST_TRACERS="axprof(...)"`, e.g. "print=false,json=report.json"
 * @error: (nullable): where to put the error
 *
 * Turns the axprof tracer on from code, as GStreamer does for each tracer
 * GST_TRACERS names: it looks the "axprof" tracer factory up in the
 * registry and creates its tracer with @params. Call it after gst_init()
 * and before any pipeline is built: GStreamer's tracing is not thread
 * safe while a tracer is being added, and the tracer learns a pipeline's
 * elements as they are added to it. An application usually passes
 * "print=false": the report then reaches it only as data, in the
 * `axprof-report` bus message and from gst_ax_profiler_stop().
 *
 * When an axprof tracer is active already (GST_TRACERS named it), it is
 * kept and @params are ignored.
 *
 * Returns: %TRUE when an axprof tracer is active
 *
 * Since: 0.2
 */
gboolean
gst_ax_profiler_enable (const gchar * params, GError ** error)
{
  GstPluginFeature *feature, *loaded;
  GstTracer *tracer;
  GType type;
  gboolean on;

  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  g_mutex_lock (&enable_lock);
  if (gst_ax_profiler_is_enabled ()) {
    g_mutex_unlock (&enable_lock);
    return TRUE;
  }
  feature = gst_registry_lookup_feature (gst_registry_get (),
      GST_AX_PROFILER_TRACER_NAME);
  if (feature == NULL || !GST_IS_TRACER_FACTORY (feature)) {
    g_mutex_unlock (&enable_lock);
    g_clear_object (&feature);
    g_set_error (error, GST_AX_PROFILER_ERROR,
        GST_AX_PROFILER_ERROR_NOT_FOUND, "no tracer named '%s' in the "
        "registry: the axtracers plugin is not on the plugin path "
        "(GST_PLUGIN_PATH)", GST_AX_PROFILER_TRACER_NAME);
    return FALSE;
  }
  loaded = gst_plugin_feature_load (feature);
  gst_object_unref (feature);
  if (loaded == NULL) {
    g_mutex_unlock (&enable_lock);
    g_set_error (error, GST_AX_PROFILER_ERROR,
        GST_AX_PROFILER_ERROR_NOT_FOUND, "the plugin of the '%s' tracer "
        "could not be loaded", GST_AX_PROFILER_TRACER_NAME);
    return FALSE;
  }
  type = gst_tracer_factory_get_tracer_type (GST_TRACER_FACTORY (loaded));
  gst_object_unref (loaded);
  /* the tracer registers its hooks, which hold it, while constructed */
  tracer = g_object_new (type, "params", params, NULL);
  gst_object_ref_sink (tracer);
  gst_object_unref (tracer);
  on = gst_ax_profiler_is_enabled ();
  g_mutex_unlock (&enable_lock);
  if (!on)
    g_set_error (error, GST_AX_PROFILER_ERROR,
        GST_AX_PROFILER_ERROR_NOT_ENABLED, "the '%s' tracer was created "
        "but did not register with GStreamer's tracing",
        GST_AX_PROFILER_TRACER_NAME);
  return on;
}

static void
not_enabled (GError ** error)
{
  g_set_error (error, GST_AX_PROFILER_ERROR,
      GST_AX_PROFILER_ERROR_NOT_ENABLED, "no %s tracer is active: call "
      "gst_ax_profiler_enable() before building the pipeline, or run with "
      "GST_TRACERS=%s", GST_AX_PROFILER_TRACER_NAME,
      GST_AX_PROFILER_TRACER_NAME);
}

/**
 * gst_ax_profiler_start:
 * @pipeline: a top-level pipeline
 * @error: (nullable): where to put the error
 *
 * Starts a profiled section of @pipeline's run: the active axprof tracer
 * clears what it measured of @pipeline so far, and its figures count from
 * now. gst_ax_profiler_stop() ends the section and returns its report.
 * Starting again restarts the section.
 *
 * The boundary is exact when no buffer moves at the start (a paused
 * pipeline, a held source); while buffers flow, the call in progress on
 * each streaming thread may count on either side of it. The report the
 * tracer makes at EOS then covers the run from the section's start.
 *
 * Returns: %TRUE when the section started; %FALSE with @error set when no
 *   axprof tracer is active (#GST_AX_PROFILER_ERROR_NOT_ENABLED)
 *
 * Since: 0.2
 */
gboolean
gst_ax_profiler_start (GstElement * pipeline, GError ** error)
{
  GList *tracers, *l;
  gboolean started = FALSE;

  g_return_val_if_fail (GST_IS_ELEMENT (pipeline), FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  tracers = active_axprof ();
  for (l = tracers; l && !started; l = l->next)
    g_signal_emit_by_name (l->data, "section-start", pipeline, &started);
  g_list_free_full (tracers, gst_object_unref);
  if (!started)
    not_enabled (error);
  return started;
}

/**
 * gst_ax_profiler_stop:
 * @pipeline: a pipeline whose section was started
 * @error: (nullable): where to put the error
 *
 * Ends the section gst_ax_profiler_start() started and makes its report:
 * the rows, latency, queues and devices of what ran in between, with
 * the verdict on them; its status is #GST_AX_REPORT_STATUS_SECTION and
 * its wall time runs from the first buffer a source pushed in the section
 * to now (or to EOS, when the pipeline reached it first). The tracer
 * prints nothing and posts no message for a section.
 *
 * Returns: (transfer full) (nullable): the report, or %NULL with @error
 *   set when no axprof tracer is active or no section of @pipeline was
 *   started (#GST_AX_PROFILER_ERROR_NO_SECTION)
 *
 * Since: 0.2
 */
GstAxReport *
gst_ax_profiler_stop (GstElement * pipeline, GError ** error)
{
  GList *tracers, *l;
  GstAxReport *report = NULL;
  gboolean any;

  g_return_val_if_fail (GST_IS_ELEMENT (pipeline), NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  tracers = active_axprof ();
  any = tracers != NULL;
  for (l = tracers; l && report == NULL; l = l->next)
    g_signal_emit_by_name (l->data, "section-stop", pipeline, &report);
  g_list_free_full (tracers, gst_object_unref);
  if (!any)
    not_enabled (error);
  else if (report == NULL)
    g_set_error (error, GST_AX_PROFILER_ERROR,
        GST_AX_PROFILER_ERROR_NO_SECTION, "no profiled section of %s was "
        "started: call gst_ax_profiler_start() first",
        GST_OBJECT_NAME (pipeline));
  return report;
}
