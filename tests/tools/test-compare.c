/* gst-ax
 * Copyright (C) 2026 gst-ax developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

/* gst-ax-compare as CI runs it, on reports written by libgstax's JSON
 * writer: identical reports pass the gate, a slowed element fails it with
 * the gate's own status and the row named, a rise under the noise floor
 * does not count, and a side of three runs is judged by its medians. */

#include <gst/ax/ax.h>
#include <glib/gstdio.h>
#include <string.h>
#include <sys/wait.h>

#define EXIT_UNREADABLE 1
#define EXIT_REGRESSION 3
#define FRAMES 100

static const gchar *tool;
static gchar *dir;

typedef struct
{
  gdouble fps;
  gdouble nms_cpu_ms;           /* per call, one call per frame */
  gdouble tiny_cpu_ms;
  gdouble latency_ms;
} Figures;

static const Figures base = { 50.0, 0.40, 0.001, 20.0 };

static gchar *
write_report (const gchar * name, const Figures * f)
{
  GstAxReport *r = gst_ax_report_new ();
  GstAxReportGroup *g;
  GstAxReportRow *row;
  gdouble samples[FRAMES];
  gchar *path = g_build_filename (dir, name, NULL), *json;
  guint i;

  r->pipeline = g_strdup ("pipeline0");
  for (i = 0; i < FRAMES; i++)
    samples[i] = f->latency_ms + 0.01 * i;
  gst_ax_report_latency_from_samples (&r->latency, samples, FRAMES);
  g = gst_ax_report_add_group (r, "pipeline");
  row = gst_ax_report_group_add_row (g, "axnms0");
  row->cpu_ms = f->nms_cpu_ms;
  row->mean_ms = f->nms_cpu_ms * 1.25;
  row->count = FRAMES;
  row->total_ms = row->mean_ms * FRAMES;
  row = gst_ax_report_group_add_row (g, "tiny");
  row->cpu_ms = row->mean_ms = f->tiny_cpu_ms;
  row->count = FRAMES;
  row->total_ms = row->mean_ms * FRAMES;
  g = gst_ax_report_add_group (r, "ball-detector");
  row = gst_ax_report_group_add_row (g, "axinference0");
  row->cpu_ms = row->mean_ms = 0.2;
  row->count = FRAMES;
  row->total_ms = row->mean_ms * FRAMES;
  gst_ax_report_finish_groups (r);
  r->frames = FRAMES;
  r->fps = f->fps;
  r->wall_s = FRAMES / f->fps;
  r->cores_available = 2;
  json = gst_ax_report_to_json (r);
  g_assert_true (g_file_set_contents (path, json, -1, NULL));
  g_free (json);
  gst_ax_report_unref (r);
  return path;
}

/* runs gst-ax-compare; its exit status, *out its stdout and stderr */
static gint
run (gchar ** out, const gchar * a, const gchar * b, const gchar * gate)
{
  const gchar *argv[6] = { tool, a, b, NULL, NULL, NULL };
  gchar *sout = NULL, *serr = NULL;
  gint wait_status, status;
  GError *error = NULL;

  if (gate) {
    argv[3] = "--max-regression";
    argv[4] = gate;
  }
  g_assert_true (g_spawn_sync (NULL, (gchar **) argv, NULL,
          G_SPAWN_DEFAULT, NULL, NULL, &sout, &serr, &wait_status, &error));
  g_assert_no_error (error);
  g_assert_true (WIFEXITED (wait_status));
  status = WEXITSTATUS (wait_status);
  *out = g_strconcat (sout, serr, NULL);
  g_free (sout);
  g_free (serr);
  return status;
}

/* the table's line of a row */
static gchar *
row_line (const gchar * out, const gchar * label)
{
  const gchar *at = strstr (out, label), *end;

  g_assert_nonnull (at);
  end = strchr (at, '\n');
  return g_strndup (at, end ? (gsize) (end - at) : strlen (at));
}

static void
test_identical (void)
{
  gchar *a = write_report ("a.json", &base);
  gchar *b = write_report ("b.json", &base);
  gchar *out, *line;

  g_assert_cmpint (run (&out, a, b, "5"), ==, 0);
  g_assert_nonnull (strstr (out, "gate: no regression over 5.0 %"));
  g_assert_null (strstr (out, "REGRESSION"));
  line = row_line (out, "axnms0 (pipeline)");
  g_assert_nonnull (strstr (line, "0.500"));    /* mean 0.40 x 1.25 */
  g_assert_nonnull (strstr (line, "0.400"));    /* CPU per frame */
  g_free (line);
  line = row_line (out, "throughput (fps)");
  g_assert_nonnull (strstr (line, "50.00"));
  g_free (line);
  g_free (out);
  g_free (a);
  g_free (b);
}

static void
test_slowed_element (void)
{
  Figures slow = base;
  gchar *a = write_report ("a.json", &base), *b, *out, *line;

  /* axnms0 50 % more CPU per frame; tiny ten times more, but by 9 us */
  slow.nms_cpu_ms = 0.60;
  slow.tiny_cpu_ms = 0.010;
  b = write_report ("b.json", &slow);
  g_assert_cmpint (run (&out, a, b, "5"), ==, EXIT_REGRESSION);
  g_assert_nonnull (strstr (out, "REGRESSION row 'axnms0' (pipeline): CPU "
          "per frame rose 50.0 % (0.400 -> 0.600 ms)"));
  g_assert_null (strstr (out, "REGRESSION row 'tiny'"));
  g_assert_null (strstr (out, "REGRESSION throughput"));
  line = row_line (out, "axnms0 (pipeline)");
  g_assert_nonnull (strstr (line, "+50.0 %"));
  g_free (line);
  g_free (out);

  /* a gate wider than the change passes; no gate only compares */
  g_assert_cmpint (run (&out, a, b, "60"), ==, 0);
  g_free (out);
  g_assert_cmpint (run (&out, a, b, NULL), ==, 0);
  g_assert_null (strstr (out, "gate:"));
  g_free (out);
  g_free (a);
  g_free (b);
}

static void
test_fps_and_latency (void)
{
  Figures slow = base;
  gchar *a = write_report ("a.json", &base), *b, *out;

  slow.fps = 40.0;
  slow.latency_ms = 30.0;
  b = write_report ("b.json", &slow);
  g_assert_cmpint (run (&out, a, b, "10"), ==, EXIT_REGRESSION);
  g_assert_nonnull (strstr (out, "REGRESSION throughput fell 20.0 % "
          "(50.00 -> 40.00 fps)"));
  g_assert_nonnull (strstr (out, "REGRESSION latency p95 rose"));
  g_assert_null (strstr (out, "REGRESSION row"));
  g_free (out);
  g_free (a);
  g_free (b);
}

/* one slow run of three is noise: the median is the base's */
static void
test_medians (void)
{
  Figures slow = base;
  gchar *a = write_report ("a.json", &base);
  gchar *b1 = write_report ("b1.json", &base), *b2, *b3, *bs, *out;

  slow.nms_cpu_ms = 0.9;
  slow.fps = 25.0;
  b2 = write_report ("b2.json", &slow);
  b3 = write_report ("b3.json", &base);
  bs = g_strjoin (",", b1, b2, b3, NULL);
  g_assert_cmpint (run (&out, a, bs, "5"), ==, 0);
  g_assert_nonnull (strstr (out, "(3 runs)"));
  g_free (out);
  /* two slow runs of three are the median */
  g_free (bs);
  bs = g_strjoin (",", b2, b1, b2, NULL);
  g_assert_cmpint (run (&out, a, bs, "5"), ==, EXIT_REGRESSION);
  g_assert_nonnull (strstr (out, "REGRESSION row 'axnms0'"));
  g_free (out);
  g_free (bs);
  g_free (a);
  g_free (b1);
  g_free (b2);
  g_free (b3);
}

static void
test_unreadable (void)
{
  gchar *a = write_report ("a.json", &base);
  gchar *bad = g_build_filename (dir, "not-a-report.json", NULL), *out;

  g_assert_true (g_file_set_contents (bad, "{\"x\": 1}", -1, NULL));
  g_assert_cmpint (run (&out, a, bad, "5"), ==, EXIT_UNREADABLE);
  g_assert_nonnull (strstr (out, "not-a-report.json"));
  g_free (out);
  g_free (bad);
  g_free (a);
}

int
main (int argc, char **argv)
{
  int ret;
  GDir *d;
  const gchar *name;

  g_test_init (&argc, &argv, NULL);
  if (argc < 2)
    g_error ("usage: %s PATH-TO-gst-ax-compare", argv[0]);
  tool = argv[1];
  dir = g_dir_make_tmp ("gst-ax-compare-XXXXXX", NULL);
  g_assert_nonnull (dir);
  g_test_add_func ("/compare/identical", test_identical);
  g_test_add_func ("/compare/slowed-element", test_slowed_element);
  g_test_add_func ("/compare/fps-and-latency", test_fps_and_latency);
  g_test_add_func ("/compare/medians", test_medians);
  g_test_add_func ("/compare/unreadable", test_unreadable);
  ret = g_test_run ();
  d = g_dir_open (dir, 0, NULL);
  while (d && (name = g_dir_read_name (d)) != NULL) {
    gchar *p = g_build_filename (dir, name, NULL);
    g_unlink (p);
    g_free (p);
  }
  if (d)
    g_dir_close (d);
  g_rmdir (dir);
  g_free (dir);
  return ret;
}
