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
 * (before it opens the device or loads a model). */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstaxdebugcheck.h"

/**
 * gst_ax_debug_check_threshold:
 *
 * Decides from the debug thresholds alone whether a run would log at
 * DEBUG or above on the data path, which makes its timings meaningless.
 *
 * Returns: (transfer full) (nullable): why, in a sentence fragment such
 *   as "the default threshold is DEBUG", or %NULL when timings are valid
 */
gchar *
gst_ax_debug_check_threshold (void)
{
  GstDebugLevel level = gst_debug_get_default_threshold ();
  gchar *name, *why;

  if (level < GST_LEVEL_DEBUG)
    return NULL;
  /* gst_debug_level_get_name() pads the name to a column width */
  name = g_strstrip (g_strdup (gst_debug_level_get_name (level)));
  why = g_strdup_printf ("the default threshold is %s", name);
  g_free (name);
  return why;
}
