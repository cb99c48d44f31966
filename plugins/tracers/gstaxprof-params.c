/* gst-ax
 * Copyright (C) 2026 gst-ax developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstaxprof-params.h"

#include "axfile.h"

#include <gst/gst.h>
#include <string.h>

static const gchar *const known_params[] = {
  "file", "json", "perfetto", "exact", "read-interval-us", "sample",
  "allow-debug", "print", "interval", "metrics", NULL
};

/* Whether @params holds a list, array or range value ({ }, < >, [ ])
 * outside double quotes. None of the params takes one, and GStreamer
 * 1.22's gst_structure_from_string() leaks the value when such a list
 * fails to parse, so they are refused before it sees them. */
static gboolean
has_compound_value (const gchar * params)
{
  gboolean quoted = FALSE;
  const gchar *c;

  for (c = params; *c != '\0'; c++) {
    if (*c == '\\' && c[1] != '\0')
      c++;
    else if (*c == '"')
      quoted = !quoted;
    else if (!quoted && strchr ("{<[", *c) != NULL)
      return TRUE;
  }
  return FALSE;
}

static gchar *
path_param (const GstStructure * s, const gchar * name, gchar * old)
{
  if (!gst_structure_has_field (s, name))
    return old;
  g_free (old);
  return g_strdup (gst_structure_get_string (s, name));
}

/* The field's position in @s, or -1 when @s does not set it */
static gint
field_index (const GstStructure * s, const gchar * name)
{
  gint i;

  for (i = 0; i < gst_structure_n_fields (s); i++)
    if (strcmp (gst_structure_nth_field_name (s, i), name) == 0)
      return i;
  return -1;
}

/* Two outputs on one file would keep only the one written last (json= and
 * perfetto= replace the file, file= appends to it): of the keys naming
 * the same file, the first one in @s keeps it and the later ones are
 * ignored (left unset), with a warning naming both. A FIFO or a device
 * takes every output in turn, so it may be named twice. */
static void
drop_shared_outputs (const GstStructure * s, AxProfParams * out,
    GString * warnings)
{
  struct
  {
    const gchar *key;
    gchar **path;
    gint index;
  } o[] = {
    {"file", &out->file, 0}, {"json", &out->json, 0},
    {"perfetto", &out->perfetto, 0},
  }, t;
  guint i, j;

  for (i = 0; i < G_N_ELEMENTS (o); i++)
    o[i].index = field_index (s, o[i].key);
  /* in the order the params give them */
  for (i = 1; i < G_N_ELEMENTS (o); i++)
    for (j = i; j > 0 && o[j - 1].index > o[j].index; j--) {
      t = o[j];
      o[j] = o[j - 1];
      o[j - 1] = t;
    }
  for (i = 1; i < G_N_ELEMENTS (o); i++) {
    if (*o[i].path == NULL || ax_file_is_stream (*o[i].path))
      continue;
    for (j = 0; j < i; j++) {
      if (*o[j].path == NULL || !ax_file_same (*o[i].path, *o[j].path))
        continue;
      g_string_append_printf (warnings, "axprof: %s=%s and %s=%s name the "
          "same file; %s= is ignored so that %s= keeps its output (give "
          "each output its own path)\n", o[j].key, *o[j].path, o[i].key,
          *o[i].path, o[i].key, o[j].key);
      g_clear_pointer (o[i].path, g_free);
      break;
    }
  }
}

gboolean
axprof_params_parse (const gchar * params, AxProfParams * out,
    GString * warnings)
{
  GstStructure *s;
  gchar *tmp, *end = NULL;
  gint i, n;

  if (has_compound_value (params)) {
    g_string_append_printf (warnings, "axprof: cannot parse params '%s'; "
        "the values are paths, numbers and booleans, not lists ({ }, < >, "
        "[ ]); quote a path that holds one of these characters\n", params);
    return FALSE;
  }
  tmp = g_strdup_printf ("axprof,%s", params);
  s = gst_structure_from_string (tmp, &end);
  /* trailing text GStreamer stopped before ("a=1;b") is refused too */
  if (s != NULL && *end != '\0')
    g_clear_pointer (&s, gst_structure_free);
  g_free (tmp);
  if (s == NULL) {
    g_string_append_printf (warnings, "axprof: cannot parse params '%s'; "
        "expected key=value pairs separated by commas: file=PATH, json=PATH, "
        "perfetto=PATH, exact=true, read-interval-us=N, allow-debug=true, "
        "print=false, interval=SECONDS, metrics=HOST:PORT\n", params);
    return FALSE;
  }
  out->file = path_param (s, "file", out->file);
  out->json = path_param (s, "json", out->json);
  out->perfetto = path_param (s, "perfetto", out->perfetto);
  if (gst_structure_has_field (s, "exact") &&
      !gst_structure_get_boolean (s, "exact", &out->exact))
    g_string_append_printf (warnings, "axprof: exact must be true or false; "
        "got '%s'\n", params);
  if (gst_structure_has_field (s, "read-interval-us")) {
    if (gst_structure_get_int (s, "read-interval-us", &n) && n >= 1) {
      out->read_interval_ns = (guint64) n *G_GUINT64_CONSTANT (1000);
      out->read_interval_set = TRUE;
    } else {
      g_string_append_printf (warnings, "axprof: read-interval-us must be an "
          "integer >= 1; got '%s'; using the default\n", params);
    }
  }
  /* the default mode made sampling pointless: its thread totals are exact
   * and it reads less often than sample=16 did */
  if (gst_structure_has_field (s, "sample"))
    g_string_append (warnings, "axprof: sample=N is deprecated and ignored: "
        "the default mode reads CPU and faults once per read interval with "
        "exact per-thread totals (see read-interval-us=, exact=true)\n");
  if (gst_structure_has_field (s, "print") &&
      !gst_structure_get_boolean (s, "print", &out->print))
    g_string_append_printf (warnings, "axprof: print must be true or false; "
        "got '%s'\n", params);
  if (gst_structure_has_field (s, "interval")) {
    gdouble v = -1;
    gint iv;

    if (gst_structure_get_int (s, "interval", &iv))
      v = iv;
    else if (!gst_structure_get_double (s, "interval", &v))
      v = -1;
    /* below a tenth of a second the reports would cost more than they say */
    if (v >= 0.1 && v <= 86400)
      out->interval_s = v;
    else
      g_string_append_printf (warnings, "axprof: interval must be a number "
          "of seconds from 0.1 to 86400; got '%s'; no interval reports\n",
          params);
  }
  if (gst_structure_has_field (s, "metrics")) {
    gint port;

    g_clear_pointer (&out->metrics, g_free);
    /* a port alone parses as an integer */
    if (gst_structure_get_int (s, "metrics", &port))
      out->metrics = g_strdup_printf ("%d", port);
    else if (gst_structure_get_string (s, "metrics"))
      out->metrics = g_strdup (gst_structure_get_string (s, "metrics"));
    else
      g_string_append_printf (warnings, "axprof: metrics takes HOST:PORT or "
          "PORT; got '%s'\n", params);
  }
  if (gst_structure_has_field (s, "allow-debug") &&
      !gst_structure_get_boolean (s, "allow-debug", &out->allow_debug))
    g_string_append_printf (warnings, "axprof: allow-debug must be true or "
        "false; got '%s'\n", params);
  if ((gst_structure_has_field (s, "file") && out->file == NULL) ||
      (gst_structure_has_field (s, "json") && out->json == NULL) ||
      (gst_structure_has_field (s, "perfetto") && out->perfetto == NULL))
    g_string_append_printf (warnings, "axprof: file=, json= and perfetto= "
        "take a path; got '%s'\n", params);
  drop_shared_outputs (s, out, warnings);
  for (i = 0; i < gst_structure_n_fields (s); i++) {
    const gchar *f = gst_structure_nth_field_name (s, i);

    if (!g_strv_contains (known_params, f))
      g_string_append_printf (warnings, "axprof: unknown param '%s' ignored; "
          "known: file, json, perfetto, exact, read-interval-us, allow-debug, "
          "print, interval, metrics\n", f);
  }
  gst_structure_free (s);
  return TRUE;
}
