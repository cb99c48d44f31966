/* gst-ax
 * Copyright (C) 2026 gst-ax developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

/* Whether the debug log threshold voids a timing run before it starts.
 * Shared by the axprof tracer (at pipeline start) and gst-ax-benchmark
 * (before it opens the device or loads a model).
 *
 * The rule: refuse when the thresholds already show that the data path
 * will log per frame at DEBUG or above, that is when the default threshold
 * is DEBUG or above, or when one of the categories below is. The list
 * holds the categories that log per buffer on the way of every frame:
 * our elements (every category named ax*, the axprof tracer excepted), the
 * core's data flow and the base classes and queues that every pipeline
 * runs through. A category that logs at setup only (caps, states,
 * plugin loading) costs nothing per frame and is not on it, nor is
 * GST_TRACER, through which tracers such as the stock latency tracer log
 * the records the user asked for. What the thresholds cannot show (some
 * other element logging per frame) is caught after the run, from the
 * messages actually logged (gst_ax_debug_logged_per_frame()). */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstaxdebugcheck.h"

#include <string.h>

#define OUR_PREFIX "ax"
#define TRACER_CATEGORY "axprof"
/* the categories named in the reason; the others are counted */
#define MAX_NAMED 3

/* The slowdown the refusal quotes, from one run of each: the
 * ball-detector benchmark's pipeline (300 frames of videotestsrc's ball at
 * 1280x720, axinference's default window) under
 * axprof(allow-debug=true) on the 2-core development VM, with GST_DEBUG=5
 * written to a file (about 40000 lines) and without; see
 * docs/reading-the-report.md, "The DEBUG refusal". */
#define MEASURED_FPS_WITH_DEBUG 48.8
#define MEASURED_FPS_WITHOUT_DEBUG 63.0
#define PERCENT 100.0

/* Always looked up, registered if need be so that a pattern of GST_DEBUG
 * applies to them before their plugin is loaded. */
static const gchar *const data_path_categories[] = {
  /* ours */
  "axletterbox", "axletterboxrender", "axinference", "axnms", "axoverlay",
  /* the core's data flow */
  "GST_PADS", "GST_BUFFER", "GST_BUFFER_LIST", "GST_MEMORY",
  "GST_SCHEDULING", "GST_DATAFLOW", "GST_EVENT", "GST_CLOCK", "task",
  "bufferpool",
  /* base classes and queues on every frame's way */
  "basesrc", "basesink", "basetransform", "aggregator", "videodecoder",
  "videoencoder", "queue", "queue_dataflow", "multiqueue",
};

/* The description of a category the check registers before its owner:
 * GStreamer hands the owner's later registration under the same name this
 * very category (with its threshold), so only the description shows that
 * the check came first. */
#define LOOKUP_DESCRIPTION "(looked up by gst-ax's DEBUG check)"

static GstDebugLevel
threshold_of (const gchar * name)
{
  GstDebugCategory *cat;

  GST_DEBUG_CATEGORY_GET (cat, name);
  if (cat == NULL)
    GST_DEBUG_CATEGORY_INIT (cat, name, 0, LOOKUP_DESCRIPTION);
  return gst_debug_category_get_threshold (cat);
}

static gboolean
is_ours (const gchar * name)
{
  return g_str_has_prefix (name, OUR_PREFIX)
      && strcmp (name, TRACER_CATEGORY) != 0;
}

static gchar *
level_name (GstDebugLevel level)
{
  /* gst_debug_level_get_name() pads the name to a column width */
  return g_strstrip (g_strdup (gst_debug_level_get_name (level)));
}

static void
add_offender (GPtrArray * names, GstDebugLevel * highest, const gchar * name,
    GstDebugLevel level)
{
  guint i;

  for (i = 0; i < names->len; i++)
    if (strcmp (g_ptr_array_index (names, i), name) == 0)
      return;
  g_ptr_array_add (names, g_strdup (name));
  *highest = MAX (*highest, level);
}

/**
 * gst_ax_debug_check_threshold:
 *
 * Decides from the debug thresholds alone whether a run would log at
 * DEBUG or above on the data path, which makes its timings meaningless:
 * the default threshold at DEBUG or above, or a category of our elements
 * (ax*, not the axprof tracer) or of the core's data flow (GST_PADS,
 * GST_BUFFER, GST_SCHEDULING, GST_DATAFLOW, basesrc, basetransform,
 * queue, ...: see docs/reading-the-report.md) at DEBUG or above.
 * GST_TRACER, through which tracers log their records, is not held
 * against a run.
 *
 * Categories of the list that are not registered yet are registered, so
 * that the patterns of `GST_DEBUG` give them their threshold before their
 * plugin is loaded. Call it after gst_init().
 *
 * Returns: (transfer full) (nullable): why, in a sentence fragment such
 *   as "the default threshold is DEBUG" or "category axinference is at
 *   DEBUG", or %NULL when timings are valid
 */
gchar *
gst_ax_debug_check_threshold (void)
{
  GstDebugLevel level = gst_debug_get_default_threshold ();
  GstDebugLevel highest = GST_LEVEL_NONE;
  GPtrArray *names;
  GSList *all, *l;
  GString *why;
  gchar *name;
  guint i;

  if (level >= GST_LEVEL_DEBUG) {
    name = level_name (level);
    why = g_string_new (NULL);
    g_string_printf (why, "the default threshold is %s", name);
    g_free (name);
    return g_string_free (why, FALSE);
  }

  names = g_ptr_array_new_with_free_func (g_free);
  for (i = 0; i < G_N_ELEMENTS (data_path_categories); i++) {
    level = threshold_of (data_path_categories[i]);
    if (level >= GST_LEVEL_DEBUG)
      add_offender (names, &highest, data_path_categories[i], level);
  }
  all = gst_debug_get_all_categories ();
  for (l = all; l; l = l->next) {
    const gchar *cat_name = gst_debug_category_get_name (l->data);

    level = gst_debug_category_get_threshold (l->data);
    if (level >= GST_LEVEL_DEBUG && is_ours (cat_name))
      add_offender (names, &highest, cat_name, level);
  }
  g_slist_free (all);

  if (names->len == 0) {
    g_ptr_array_free (names, TRUE);
    return NULL;
  }
  why = g_string_new (names->len == 1 ? "category " : "categories ");
  for (i = 0; i < MIN (names->len, MAX_NAMED); i++)
    g_string_append_printf (why, "%s%s", i ? ", " : "",
        (const gchar *) g_ptr_array_index (names, i));
  if (names->len > MAX_NAMED)
    g_string_append_printf (why, " and %u more", names->len - MAX_NAMED);
  name = level_name (highest);
  g_string_append_printf (why, " %s at %s%s", names->len == 1 ? "is" : "are",
      names->len == 1 ? "" : "up to ", name);
  g_free (name);
  g_ptr_array_free (names, TRUE);
  return g_string_free (why, FALSE);
}

/**
 * gst_ax_debug_logged_per_frame:
 * @messages: the messages logged at DEBUG or above during the run (not
 *   counting the profiler's own category nor GST_TRACER)
 * @frames: the frames the run delivered to its sinks
 *
 * The after-the-run rule: a run is void when it logged at a per-frame
 * rate, at least one DEBUG message per frame on average, and at least
 * %GST_AX_DEBUG_MIN_MESSAGES in all. One stray message, or a few at
 * setup, never voids a report.
 *
 * Returns: %TRUE when the timings of the run are inflated by logging
 */
gboolean
gst_ax_debug_logged_per_frame (guint64 messages, guint64 frames)
{
  return messages >= GST_AX_DEBUG_MIN_MESSAGES && messages >= frames;
}

/**
 * gst_ax_debug_refusal_message:
 * @why: what enables the logging, as gst_ax_debug_check_threshold() says
 *
 * The refusal's sentence: what enables DEBUG logging, what it costs (the
 * slowdown measured on this project's benchmark), and what to do.
 *
 * Returns: (transfer full): the message
 */
gchar *
gst_ax_debug_refusal_message (const gchar * why)
{
  g_return_val_if_fail (why != NULL, NULL);

  return g_strdup_printf ("DEBUG logging is enabled (%s). Per-frame DEBUG "
      "logging on the data path costs about %.0f%% of throughput (measured "
      "%.1f fps with GST_DEBUG=5 against %.1f fps without, same benchmark "
      "otherwise; see docs/reading-the-report.md), which would invalidate a "
      "timed report. Rerun without GST_DEBUG (and without -v).", why,
      PERCENT * (1.0 - MEASURED_FPS_WITH_DEBUG / MEASURED_FPS_WITHOUT_DEBUG),
      MEASURED_FPS_WITH_DEBUG, MEASURED_FPS_WITHOUT_DEBUG);
}
