/* gst-ax
 * Copyright (C) 2026 gst-ax developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

/* simnpu-compile's compile-time trace (--dump-profiling) and debug
 * directory (--debug-info): the schedule's actions with their estimated
 * cycles, for simnpu-annotate and Perfetto. */

#include "compile-trace.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

static const char *
action_id_prefix (simnpu_action_kind kind)
{
  switch (kind) {
    case SIMNPU_ACTION_DMA_IN:
      return "DI";
    case SIMNPU_ACTION_DMA_OUT:
      return "DO";
    case SIMNPU_ACTION_CDMA:
      return "CD";
    case SIMNPU_ACTION_CSS:
      return "CS";
    default:
      return "S";
  }
}

static const char *
action_op_type (const simnpu__graph * g, const simnpu__action * a)
{
  if (a->kind == SIMNPU_ACTION_COMPUTE || a->kind == SIMNPU_ACTION_CDMA) {
    if (a->op_index >= 0)
      return simnpu__op_type_name (g->ops[a->op_index].type);
  }
  if (a->kind == SIMNPU_ACTION_DMA_IN && a->op_index >= 0)
    return "DMA_IN_WEIGHTS";
  return simnpu_action_kind_to_string (a->kind);
}

/* CSV fields are written quoted when they may hold commas. */
static void
csv_quoted (FILE * f, const char *s)
{
  fputc ('"', f);
  for (; *s; s++) {
    if (*s == '"')
      fputc ('"', f);
    fputc (*s, f);
  }
  fputc ('"', f);
}

static void
write_location (FILE * f, const char *src, const simnpu__graph * g,
    const simnpu__action * a)
{
  gchar *loc;

  if (a->op_index >= 0)
    loc = g_strdup_printf ("%s:%s (%s)", src, g->ops[a->op_index].location,
        g->ops[a->op_index].name);
  else if (a->kind == SIMNPU_ACTION_DMA_IN)
    loc = g_strdup_printf ("%s:$.inputs", src);
  else if (a->kind == SIMNPU_ACTION_DMA_OUT)
    loc = g_strdup_printf ("%s:$.outputs", src);
  else
    loc = g_strdup_printf ("%s:job", src);
  csv_quoted (f, loc);
  g_free (loc);
}

int
simnpu_compile_write_trace (const char *path, const char *src,
    const simnpu__graph * g, const simnpu__schedule * s,
    const simnpu__profile * p)
{
  uint64_t *start = g_new0 (uint64_t, s->n_actions + 1);
  uint64_t *end = g_new0 (uint64_t, s->n_actions + 1);
  unsigned counts[SIMNPU_ACTION_CSS + 1] = { 0 };
  FILE *f = fopen (path, "w");
  unsigned i;

  if (f == NULL) {
    fprintf (stderr, "simnpu-compile: --dump-profiling '%s': %s\n", path,
        g_strerror (errno));
    g_free (start);
    g_free (end);
    return -1;
  }
  simnpu__schedule_estimate (s, p, start, end);
  fprintf (f, "ID,Start,End,Location,Op Type\n");
  for (i = 0; i < s->n_actions; i++) {
    const simnpu__action *a = &s->actions[i];
    fprintf (f, "%s%u,%" G_GUINT64_FORMAT ",%" G_GUINT64_FORMAT ",",
        action_id_prefix (a->kind), counts[a->kind]++, (guint64) start[i],
        (guint64) end[i]);
    write_location (f, src, g, a);
    fprintf (f, ",%s\n", action_op_type (g, a));
  }
  g_free (start);
  g_free (end);
  if (fclose (f) != 0)
    return -1;
  return 0;
}

/* The debug directory: actions.csv (one row per action, keyed by
 * action_id as in the runtime CSV) and device.txt (the device spec and
 * resource names), read back by simnpu-annotate. */
int
simnpu_compile_write_debug_info (const char *dir, const char *src,
    const simnpu__graph * g, const simnpu__schedule * s,
    const simnpu__profile * p)
{
  uint64_t *start = g_new0 (uint64_t, s->n_actions + 1);
  uint64_t *end = g_new0 (uint64_t, s->n_actions + 1);
  simnpu_resource_info res[SIMNPU_MAX_RESOURCES];
  char names[SIMNPU_MAX_RESOURCES][16];
  unsigned n_res = simnpu__profile_resources (p, res, names);
  unsigned counts[SIMNPU_ACTION_CSS + 1] = { 0 };
  gchar *path;
  FILE *f;
  unsigned i;
  int ret = 0;

  if (g_mkdir_with_parents (dir, 0755) != 0) {
    fprintf (stderr, "simnpu-compile: --debug-info '%s': %s\n", dir,
        g_strerror (errno));
    ret = -1;
    goto out;
  }
  path = g_build_filename (dir, "device.txt", NULL);
  f = fopen (path, "w");
  g_free (path);
  if (f == NULL) {
    ret = -1;
    goto out;
  }
  fprintf (f, "model=%s\nsource=%s\nspec=%s\nclock_mhz=%g\n", g->name, src,
      s->spec, p->clock_mhz);
  for (i = 0; i < n_res; i++)
    fprintf (f, "resource=%s\n", names[i]);
  fclose (f);

  path = g_build_filename (dir, "actions.csv", NULL);
  f = fopen (path, "w");
  g_free (path);
  if (f == NULL) {
    ret = -1;
    goto out;
  }
  simnpu__schedule_estimate (s, p, start, end);
  fprintf (f, "action_id,id,kind,resource,op_index,op_name,op_type,"
      "location,bytes,cycles,est_start_cycles,est_end_cycles\n");
  for (i = 0; i < s->n_actions; i++) {
    const simnpu__action *a = &s->actions[i];
    const char *resource = a->resource < 0 ? "core" : names[a->resource];
    fprintf (f, "%u,%s%u,%s,%s,%d,", i, action_id_prefix (a->kind),
        counts[a->kind]++, simnpu_action_kind_to_string (a->kind), resource,
        a->op_index);
    csv_quoted (f, a->op_index >= 0 ? g->ops[a->op_index].name : "");
    fprintf (f, ",%s,", action_op_type (g, a));
    write_location (f, src, g, a);
    fprintf (f, ",%" G_GUINT64_FORMAT ",%" G_GUINT64_FORMAT ",%"
        G_GUINT64_FORMAT ",%" G_GUINT64_FORMAT "\n", (guint64) a->bytes,
        (guint64) a->cycles, (guint64) start[i], (guint64) end[i]);
  }
  if (fclose (f) != 0)
    ret = -1;
out:
  g_free (start);
  g_free (end);
  return ret;
}
