/* gst-ax
 * Copyright (C) 2026 gst-ax developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

/* The axprof tracer's params string, parsed without a tracer so that the
 * parse can be tested and fuzzed on its own (tests/fuzz/fuzz-axprof). */

#ifndef __GST_AX_PROF_PARAMS_H__
#define __GST_AX_PROF_PARAMS_H__

#include <glib.h>

G_BEGIN_DECLS

typedef struct
{
  gchar *file;
  gchar *json;
  gchar *perfetto;
  gboolean exact;
  /* the default mode's read interval; 0 and @read_interval_set FALSE
   * when the params do not set it */
  guint64 read_interval_ns;
  gboolean read_interval_set;
  gboolean allow_debug;
  gboolean print;
  /* interval=SECONDS: a report of each interval; 0 when unset */
  gdouble interval_s;
  /* metrics=[HOST:]PORT: the OpenMetrics endpoint's address, NULL when
   * unset */
  gchar *metrics;
} AxProfParams;

/* Reads @params ("file=PATH, exact=true, ...") into @out, whose fields keep
 * their values (the caller's defaults) unless @params sets them; the
 * strings are newly allocated (free them with g_free). Each problem found
 * is one line of @warnings. FALSE when @params is not key=value pairs at
 * all (then @out is unchanged). */
gboolean axprof_params_parse (const gchar * params, AxProfParams * out,
    GString * warnings);

G_END_DECLS

#endif /* __GST_AX_PROF_PARAMS_H__ */
