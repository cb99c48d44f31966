/* gst-ax
 * Copyright (C) 2026 gst-ax developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

/* libFuzzer target: the axprof tracer's params string (GST_TRACERS=
 * "axprof(file=PATH,sample=N,...)"), through the parse the tracer calls. */

#include "fuzz-common.h"

#include "../../plugins/tracers/gstaxprof-params.h"

#include <gst/gst.h>


int
LLVMFuzzerTestOneInput (const uint8_t * data, size_t size)
{
  static gboolean inited;
  AxProfParams p = { NULL, NULL, NULL, FALSE, 0, FALSE, FALSE, TRUE, 0, NULL };
  GString *warnings = g_string_new (NULL);
  gchar *params;
  gboolean ok;

  if (!inited) {
    gst_init (NULL, NULL);
    inited = TRUE;
  }
  params = g_strndup ((const gchar *) data, size);
  ok = axprof_params_parse (params, &p, warnings);
  /* a refusal always says why; a read interval set is a real one */
  if ((!ok && warnings->len == 0) || (p.read_interval_set &&
          p.read_interval_ns == 0))
    abort ();
  if (!ok && (p.file || p.json || p.perfetto || p.metrics))
    abort ();
  /* an interval set is one the tracer can keep */
  if (p.interval_s != 0 && (p.interval_s < 0.1 || p.interval_s > 86400))
    abort ();
  g_free (p.file);
  g_free (p.json);
  g_free (p.perfetto);
  g_free (p.metrics);
  g_free (params);
  g_string_free (warnings, TRUE);
  return 0;
}
