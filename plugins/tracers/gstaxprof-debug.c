/* gst-ax
 * Copyright (C) 2026 gst-ax developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

/* What the run logs: GStreamer logging at DEBUG or above formats and
 * writes every message on the thread that logs it, which voids the
 * timings. The thresholds are read when a run starts (gst/ax's
 * gstaxdebugcheck.c decides), and a log function counts what was logged
 * meanwhile, and through which categories, for the report's refusal. */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstaxprof-report-private.h"

/* messages logged at DEBUG or above by other categories than axprof's and
 * the tracers' (relaxed atomic) */
static guint64 log_count;

/* The categories that logged at DEBUG or above since the last pipeline
 * start: the ones "the run logs through" at that level. */
#define MAX_NAMED_CATEGORIES 3
static GstDebugCategory *logged_categories[MAX_NAMED_CATEGORIES];
/* the tracers' records (the latency tracer's GST_TRACER:7) are output the
 * user asked for, not logging that voids a run */
static GstDebugCategory *tracer_category;

static void
count_debug_log (GstDebugCategory * category, GstDebugLevel level,
    const gchar * file, const gchar * function, gint line, GObject * object,
    GstDebugMessage * message, gpointer user_data)
{
  guint i;

  if (level < GST_LEVEL_DEBUG || category == gst_ax_prof_debug
      || category == tracer_category)
    return;
  __atomic_add_fetch (&log_count, 1, __ATOMIC_RELAXED);
  for (i = 0; i < MAX_NAMED_CATEGORIES; i++) {
    GstDebugCategory *expected = NULL;

    if (__atomic_load_n (&logged_categories[i], __ATOMIC_RELAXED) == category
        || __atomic_compare_exchange_n (&logged_categories[i], &expected,
            category, FALSE, __ATOMIC_RELAXED, __ATOMIC_RELAXED))
      break;
  }
}

/* What the thresholds say will log per frame on the data path, or NULL:
 * the decision before the run (gst/ax/gstaxdebugcheck.c). */
gchar *
axprof_debug_default_offender (void)
{
  return gst_ax_debug_check_threshold ();
}

gchar *
axprof_debug_logged_offender (gint64 logged, guint64 frames)
{
  GString *s = g_string_new ("category ");
  guint i;

  for (i = 0; i < MAX_NAMED_CATEGORIES; i++) {
    GstDebugCategory *c = __atomic_load_n (&logged_categories[i],
        __ATOMIC_RELAXED);

    if (c)
      g_string_append_printf (s, "%s%s", i ? ", " : "",
          gst_debug_category_get_name (c));
  }
  g_string_append_printf (s, " (and any others) logged %" G_GINT64_FORMAT
      " messages at DEBUG or above during the run, %.1f per frame over %"
      G_GUINT64_FORMAT " frames", logged, frames ? logged / (gdouble) frames
      : (gdouble) logged, frames);
  return g_string_free (s, FALSE);
}

/* From now on, every message logged is counted. */
void
axprof_debug_watch (void)
{
  GST_DEBUG_CATEGORY_GET (tracer_category, GST_AX_DEBUG_TRACER_CATEGORY);
  gst_debug_add_log_function (count_debug_log, NULL, NULL);
}

guint64
axprof_debug_logged (void)
{
  return __atomic_load_n (&log_count, __ATOMIC_RELAXED);
}

/* A run of @p starts: what the thresholds say now, and what was logged
 * so far, which the report subtracts. */
void
axprof_debug_run_start (PipelineState * p)
{
  guint i;

  g_free (p->debug_at_start);
  p->debug_at_start = axprof_debug_default_offender ();
  p->log_count0 = axprof_debug_logged ();
  for (i = 0; i < MAX_NAMED_CATEGORIES; i++)
    __atomic_store_n (&logged_categories[i], NULL, __ATOMIC_RELAXED);
}
