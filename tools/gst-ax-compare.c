/* gst-ax
 * Copyright (C) 2026 gst-ax developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

/* gst-ax-compare A.json B.json: two axprof reports (or two sets of
 * repeats, comma-separated) side by side, and with --max-regression a
 * gate for CI: its own exit status when B is slower than A. */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "axcompare.h"

#include <locale.h>
#include <stdlib.h>

#define EXIT_UNREADABLE 1
#define EXIT_USAGE 2
#define EXIT_REGRESSION 3

#define SUMMARY \
  "A and B are report files (axprof's json= or gst-ax-benchmark --json); " \
  "several\nruns of one configuration, comma-separated, are compared by " \
  "the median of each\nfigure. Rows are matched by group and name; a " \
  "row's CPU is compared per frame.\n\nExit status: 0 compared (and, with " \
  "--max-regression, no regression); 1 a report\ncould not be read; 2 bad " \
  "arguments; 3 a regression over the gate (each one\nprinted, prefixed " \
  "REGRESSION)."

int
main (int argc, char **argv)
{
  gdouble max_regression = -1.0;
  gdouble noise_floor = AX_COMPARE_DEFAULT_NOISE_FLOOR_MS;
  GOptionEntry entries[] = {
    {"max-regression", 0, 0, G_OPTION_ARG_DOUBLE, &max_regression,
        "Fail (exit 3) when B's fps falls, its p95 latency rises, or a "
          "row's CPU per frame rises by more than PCT percent", "PCT"},
    {"noise-floor-ms", 0, 0, G_OPTION_ARG_DOUBLE, &noise_floor,
        "A row's CPU per frame must also rise by more than this many ms "
          "(default 0.05)", "MS"},
    {NULL}
  };
  GOptionContext *ctx = g_option_context_new ("A.json[,A2.json...] "
      "B.json[,B2.json...] - compare axprof reports");
  GError *error = NULL;
  AxCompareSide *a = NULL, *b = NULL;
  AxCompareOptions o;
  GPtrArray *regs = NULL;
  gchar *text;
  int status = 0;

  setlocale (LC_ALL, "");
  g_option_context_add_main_entries (ctx, entries, NULL);
  g_option_context_set_summary (ctx, SUMMARY);
  if (!g_option_context_parse (ctx, &argc, &argv, &error)) {
    g_printerr ("gst-ax-compare: %s (gst-ax-compare --help lists the "
        "options)\n", error->message);
    g_error_free (error);
    g_option_context_free (ctx);
    return EXIT_USAGE;
  }
  g_option_context_free (ctx);
  if (argc != 3) {
    g_printerr ("gst-ax-compare: expected two reports, A and B, got %d "
        "argument%s (gst-ax-compare --help)\n", argc - 1, argc == 2 ? "" : "s");
    return EXIT_USAGE;
  }
  if (noise_floor < 0.0 || (max_regression < 0.0 && max_regression != -1.0)) {
    g_printerr ("gst-ax-compare: --max-regression and --noise-floor-ms "
        "take a value of 0 or more\n");
    return EXIT_USAGE;
  }
  a = ax_compare_side_load (argv[1], &error);
  if (a != NULL)
    b = ax_compare_side_load (argv[2], &error);
  if (b == NULL) {
    g_printerr ("gst-ax-compare: %s\n", error->message);
    g_error_free (error);
    ax_compare_side_free (a);
    return EXIT_UNREADABLE;
  }
  ax_compare_options_init (&o);
  o.max_regression_percent = max_regression;
  o.noise_floor_ms = noise_floor;
  text = ax_compare_format (a, b, argv[1], argv[2], &o, &regs);
  g_print ("%s", text);
  if (regs->len > 0)
    status = EXIT_REGRESSION;
  g_free (text);
  g_ptr_array_unref (regs);
  ax_compare_side_free (a);
  ax_compare_side_free (b);
  return status;
}
