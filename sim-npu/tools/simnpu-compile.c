/* gst-ax
 * Copyright (C) 2026 gst-ax developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

/* simnpu-compile: JSON graph -> .axm container, with the schedule and its
 * cycle estimates for one device profile.
 *
 *   simnpu-compile models/yolov8n.json -o yolov8n.axm --device torq \
 *     --estimate-only --enable-profiling --dump-profiling=trace.csv \
 *     --debug-info=yolov8n_debug
 */

#include "simnpu-private.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define EXIT_USAGE 2

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

static int
write_trace (const char *path, const char *src, const simnpu__graph * g,
    const simnpu__schedule * s, const simnpu__profile * p)
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
static int
write_debug_info (const char *dir, const char *src, const simnpu__graph * g,
    const simnpu__schedule * s, const simnpu__profile * p)
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

int
main (int argc, char **argv)
{
  gchar *output = NULL, *device = NULL, *trace = NULL, *debug_dir = NULL;
  gboolean estimate_only = FALSE, profiling = FALSE, quiet = FALSE;
  GOptionEntry entries[] = {
    {"output", 'o', 0, G_OPTION_ARG_FILENAME, &output,
        "Write the compiled model to FILE (.axm)", "FILE"},
    {"device", 'd', 0, G_OPTION_ARG_STRING, &device,
          "Device profile, e.g. metis, torq, metis:cores=2 (default metis)",
        "PROFILE"},
    {"estimate-only", 0, 0, G_OPTION_ARG_NONE, &estimate_only,
        "Shape-only graph: compile for estimates, without weights", NULL},
    {"enable-profiling", 0, 0, G_OPTION_ARG_NONE, &profiling,
        "Write the compile-time trace (timeline.csv unless "
          "--dump-profiling is given)", NULL},
    {"dump-profiling", 0, 0, G_OPTION_ARG_FILENAME, &trace,
        "Compile-time trace CSV (ID, Start, End, Location, Op Type)", "FILE"},
    {"debug-info", 0, 0, G_OPTION_ARG_FILENAME, &debug_dir,
        "Write debug information for simnpu-annotate into DIR", "DIR"},
    {"quiet", 'q', 0, G_OPTION_ARG_NONE, &quiet, "Print nothing on success",
        NULL},
    {NULL}
  };
  GOptionContext *ctx = g_option_context_new ("SRC.json - compile a model "
      "for the simulated NPU");
  GError *err = NULL;
  simnpu_error error = { 0 };
  simnpu__profile profile;
  simnpu__schedule schedule = { 0 };
  simnpu__graph *g = NULL;
  int status = EXIT_FAILURE;
  unsigned i;

  g_option_context_add_main_entries (ctx, entries, NULL);
  if (!g_option_context_parse (ctx, &argc, &argv, &err)) {
    fprintf (stderr, "simnpu-compile: %s\n", err->message);
    g_error_free (err);
    g_option_context_free (ctx);
    return EXIT_USAGE;
  }
  if (argc != 2 || output == NULL) {
    gchar *help = g_option_context_get_help (ctx, TRUE, NULL);
    fprintf (stderr, "simnpu-compile: expected one SRC.json and -o "
        "MODEL.axm\n\n%s", help);
    g_free (help);
    g_option_context_free (ctx);
    return EXIT_USAGE;
  }
  g_option_context_free (ctx);
  if (profiling && trace == NULL)
    trace = g_strdup ("timeline.csv");

  if (simnpu__profile_parse (device ? device : "metis", &profile, &error) < 0
      || simnpu__graph_load_json_file (argv[1], estimate_only, &g,
          &error) < 0
      || simnpu__graph_prepare (g, &error) < 0
      || simnpu__schedule_build (g, &profile, &schedule, &error) < 0) {
    fprintf (stderr, "simnpu-compile: %s: %s (%s)\n", argv[1],
        error.message, simnpu_strerror (error.code));
    goto out;
  }
  if (g->estimate_only) {
    /* a shape-only container carries no weights */
    for (i = 0; i < g->n_tensors; i++) {
      g_clear_pointer (&g->tensors[i].data, g_free);
      g->tensors[i].data_bytes = 0;
    }
  }
  if (simnpu__axm_write (g, &schedule, output, &error) < 0) {
    fprintf (stderr, "simnpu-compile: %s\n", error.message);
    goto out;
  }
  if (trace && write_trace (trace, argv[1], g, &schedule, &profile) < 0) {
    fprintf (stderr, "simnpu-compile: cannot write '%s'\n", trace);
    goto out;
  }
  if (debug_dir && write_debug_info (debug_dir, argv[1], g, &schedule,
          &profile) < 0) {
    fprintf (stderr, "simnpu-compile: cannot write debug info to '%s'\n",
        debug_dir);
    goto out;
  }
  if (!quiet) {
    double us = schedule.device_ns / 1000.0;
    printf ("model:          %s%s\n", g->name,
        g->estimate_only ? " (estimate only)" : "");
    printf ("device:         %s\n", schedule.spec);
    printf ("ops:            %u (%u actions)\n", g->n_ops, schedule.n_actions);
    printf ("MACs per job:   %.3f M\n", g->total_macs / 1e6);
    printf ("weights:        %.3f MB\n", g->weight_bytes / 1e6);
    printf ("device time:    %.1f us per job (%.1f jobs/s per core, "
        "up to %.1f jobs/s on %u cores)\n", us, 1e6 / us,
        profile.cores * 1e6 / us, profile.cores);
    printf ("written:        %s\n", output);
  }
  status = EXIT_SUCCESS;

out:
  simnpu__schedule_clear (&schedule);
  simnpu__graph_free (g);
  g_free (output);
  g_free (device);
  g_free (trace);
  g_free (debug_dir);
  return status;
}
