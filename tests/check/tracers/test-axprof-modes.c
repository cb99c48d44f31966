/* gst-ax
 * Copyright (C) 2026 gst-ax developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

/* CPU and fault attribution in axprof's two modes, on elements that know
 * their own figures: a sleeper, a CPU burner and a page toucher, each a
 * few ms per buffer. The default mode reads CPU and faults once per read
 * interval and shares each read among the calls since by wall time; calls
 * this long are measured at their own boundaries, so its figures must
 * match exact=true's and the ground truth, and the thread's CPU over all
 * rows must match the thread's own clock.
 *
 * A tracer's params are fixed at gst_init(), so the test (default mode)
 * runs this binary again with AXPROF_TEST_EXACT=1 for exact=true; each
 * run prints or returns the same figures. These are attribution checks
 * on long spans, not timings: wall figures are compared with what the
 * elements measured around their own work in the same run. */

#include "axproftest.h"
#include "axtestelements.h"

#include <gst/ax/ax.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#define BUFFERS 10
#define SLEEP_US 4000
#define BURN_US 3000
/* 2048 fresh pages take a few ms to fault in */
#define PAGES 2048
/* the bounds: per-row figures within 3%, thread totals within 1% */
#define ROW_TOLERANCE 0.03
#define THREAD_TOLERANCE 0.01
/* wall outside the elements' own measurement (base class, hooks): a
 * preemption there on a loaded machine is real wall time of the call */
#define WALL_SLACK_MS 0.1
/* CPU of a call outside the element's own measurement: the base class,
 * the hooks; ThreadSanitizer runs that code 5-15x slower */
#ifdef __SANITIZE_THREAD__
#define CALL_SLACK_MS 0.5
#else
#define CALL_SLACK_MS 0.05
#endif
#define MAX_ATTEMPTS 3
#define EXACT_ENV "AXPROF_TEST_EXACT"
#define N_FIGURES 15
/* the exact run's line of figures among the check framework's output */
#define FIGURES_MARK "axprof-modes figures:"

typedef struct
{
  gdouble sleep_wall_ms;
  gdouble sleep_own_wall_ms;
  gdouble sleep_cpu_ms;
  gdouble sleep_own_cpu_ms;
  gdouble burn_wall_ms;
  gdouble burn_own_wall_ms;
  gdouble burn_cpu_ms;
  gdouble burn_own_cpu_ms;
  gdouble touch_faults;
  /* not compared across runs: the kernel's cost of a fault moves with
   * the machine's load, and the toucher has no CPU figure of its own */
  gdouble touch_cpu_ms;
  /* CPU of all rows (mean x count), and the streaming thread's own clock
   * from its task's start to EOS, read with the tracer's reader */
  gdouble rows_cpu_ms;
  gdouble thread_cpu_ms;
  /* the profiler's own cost over the run, as the report estimates it */
  gdouble profiler_ms;
  /* the default mode's read interval (0 in exact mode) */
  gdouble interval_ms;
  gdouble exact;
} Figures;

G_STATIC_ASSERT (sizeof (Figures) == N_FIGURES * sizeof (gdouble));

typedef struct
{
  guint64 start_ns;
  guint64 eos_ns;
  GPtrArray *reports;
} ThreadClock;

/* The thread's own clock as the tracer reads it (the perf group's task
 * clock, or CLOCK_THREAD_CPUTIME_ID on the fallback): the two part under
 * a hypervisor that steals time, which test-axprobe-usage covers; here
 * only the attribution is checked. */
static guint64
thread_cpu_ns (void)
{
  guint64 cpu, faults;

  gst_ax_probe_thread_usage (&cpu, &faults);
  return cpu;
}

/* The task's thread posts ENTER as soon as it runs, before any measured
 * span: its clock starts there. The report is taken synchronously, so
 * that it is not lost to bus flushing. */
static GstBusSyncReply
on_sync_message (GstBus * bus, GstMessage * msg, gpointer data)
{
  ThreadClock *clock = data;
  GstStreamStatusType type;

  if (GST_MESSAGE_TYPE (msg) == GST_MESSAGE_STREAM_STATUS) {
    gst_message_parse_stream_status (msg, &type, NULL);
    if (type == GST_STREAM_STATUS_TYPE_ENTER && clock->start_ns == 0)
      clock->start_ns = thread_cpu_ns ();
  } else if (GST_MESSAGE_TYPE (msg) == GST_MESSAGE_ELEMENT &&
      gst_message_has_name (msg, "axprof-report")) {
    g_ptr_array_add (clock->reports,
        ax_prof_report_from_structure (gst_message_get_structure (msg)));
  }
  return GST_BUS_PASS;
}

static GstPadProbeReturn
on_eos (GstPad * pad, GstPadProbeInfo * info, gpointer data)
{
  ThreadClock *clock = data;

  if (GST_EVENT_TYPE (GST_PAD_PROBE_INFO_EVENT (info)) == GST_EVENT_EOS)
    clock->eos_ns = thread_cpu_ns ();
  return GST_PAD_PROBE_OK;
}

static gdouble
row_member (JsonObject * root, const gchar * name, const gchar * member)
{
  JsonObject *row = ax_prof_find_row (root, "pipeline", name);

  fail_unless (row != NULL, "no row %s", name);
  return json_object_get_double_member (row, member);
}

/* what the element measured around its own work, per call */
static void
own_figures (GstElement * pipeline, const gchar * name, gdouble * wall_ms,
    gdouble * cpu_ms)
{
  GstElement *e = gst_bin_get_by_name (GST_BIN (pipeline), name);
  guint64 wall_ns, cpu_ns;
  guint calls;

  g_object_get (e, "wall-ns", &wall_ns, "cpu-ns", &cpu_ns, "calls", &calls,
      NULL);
  gst_object_unref (e);
  fail_unless (calls == BUFFERS);
  *wall_ms = wall_ns / (gdouble) GST_MSECOND / calls;
  *cpu_ms = cpu_ns / (gdouble) GST_MSECOND / calls;
}

static void
measure (Figures * f)
{
  gchar *desc = g_strdup_printf ("fakesrc name=src num-buffers=%d ! "
      "axtestburn name=sleep burn-us=0 sleep-us=%d ! "
      "axtestburn name=burn burn-us=%d ! axtesttouch name=touch pages=%d ! "
      "fakesink", BUFFERS, SLEEP_US, BURN_US, PAGES);
  GstElement *pipeline = gst_parse_launch (desc, NULL), *src;
  GPtrArray *reports = g_ptr_array_new_with_free_func ((GDestroyNotify)
      ax_prof_report_free);
  ThreadClock clock = { 0, 0, reports };
  GstMessage *msg;
  GstBus *bus;
  GstPad *pad;
  AxProfReport *r;
  JsonArray *groups;
  const gchar *mode;
  guint i, j;

  fail_unless (pipeline != NULL);
  src = gst_bin_get_by_name (GST_BIN (pipeline), "src");
  pad = gst_element_get_static_pad (src, "src");
  gst_pad_add_probe (pad, GST_PAD_PROBE_TYPE_EVENT_DOWNSTREAM, on_eos,
      &clock, NULL);
  gst_object_unref (pad);
  gst_object_unref (src);
  bus = gst_element_get_bus (pipeline);
  gst_bus_set_sync_handler (bus, on_sync_message, &clock, NULL);
  gst_element_set_state (pipeline, GST_STATE_PLAYING);
  msg = gst_bus_timed_pop_filtered (bus, GST_CLOCK_TIME_NONE,
      GST_MESSAGE_EOS | GST_MESSAGE_ERROR);
  fail_unless (GST_MESSAGE_TYPE (msg) == GST_MESSAGE_EOS);
  gst_message_unref (msg);
  fail_unless (reports->len >= 1);
  r = g_ptr_array_index (reports, 0);

  memset (f, 0, sizeof (*f));
  f->sleep_wall_ms = row_member (r->root, "sleep", "mean_ms");
  f->sleep_cpu_ms = row_member (r->root, "sleep", "cpu_ms");
  f->burn_wall_ms = row_member (r->root, "burn", "mean_ms");
  f->burn_cpu_ms = row_member (r->root, "burn", "cpu_ms");
  f->touch_faults = row_member (r->root, "touch", "faults");
  f->touch_cpu_ms = row_member (r->root, "touch", "cpu_ms");
  own_figures (pipeline, "sleep", &f->sleep_own_wall_ms, &f->sleep_own_cpu_ms);
  own_figures (pipeline, "burn", &f->burn_own_wall_ms, &f->burn_own_cpu_ms);
  groups = json_object_get_array_member (r->root, "groups");
  for (i = 0; i < json_array_get_length (groups); i++) {
    JsonArray *rows = json_object_get_array_member
        (json_array_get_object_element (groups, i), "rows");

    for (j = 0; j < json_array_get_length (rows); j++) {
      JsonObject *row = json_array_get_object_element (rows, j);

      f->rows_cpu_ms += json_object_get_double_member (row, "cpu_ms") *
          json_object_get_int_member (row, "count");
    }
  }
  fail_unless (clock.start_ns > 0 && clock.eos_ns > clock.start_ns);
  f->thread_cpu_ms = (clock.eos_ns - clock.start_ns) / (gdouble) GST_MSECOND;
  {
    JsonObject *prof = json_object_get_object_member (r->root, "profiler");

    f->profiler_ms = json_object_get_double_member (prof,
        "ns_per_element_buffer") * json_object_get_int_member (prof,
        "element_buffers") / GST_MSECOND;
  }
  mode = json_object_get_string_member (json_object_get_object_member
      (r->root, "profiler"), "usage_mode");
  fail_unless (mode != NULL);
  f->exact = g_str_has_prefix (mode, "exact per call");
  if (!f->exact) {
    fail_unless (sscanf (strstr (mode, ">= ") + 3, "%lf",
            &f->interval_ms) == 1, "%s", mode);
    f->interval_ms /= 1000.0;
  }

  gst_element_set_state (pipeline, GST_STATE_NULL);
  gst_bus_set_sync_handler (bus, NULL, NULL, NULL);
  gst_object_unref (bus);
  gst_object_unref (pipeline);
  g_ptr_array_unref (reports);
  g_free (desc);
}

static void
assert_close (gdouble value, gdouble expected, gdouble tolerance,
    gdouble slack, const gchar * what, const gchar * mode)
{
  fail_unless (fabs (value - expected) <= tolerance * fabs (expected) + slack,
      "%s: %s is %.4f, expected %.4f +- %.0f%% + %.4f", mode, what, value,
      expected, tolerance * 100, slack);
}

static gboolean
close_to (gdouble value, gdouble expected, gdouble tolerance, gdouble slack)
{
  return fabs (value - expected) <= tolerance * fabs (expected) + slack;
}

/* A preemption between an element's own clock reading and the hook's is
 * wall time the tracer rightly gives the call but the element does not
 * see; it only adds. On a loaded machine a run is repeated (up to
 * MAX_ATTEMPTS) until no preemption lands there: the attribution, which
 * is what is checked, is the same in every run. */
static void
measure_quiet (Figures * f)
{
  guint attempt;

  for (attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
    measure (f);
    /* and no burst of the streaming thread's own work between the calls
     * (GStreamer's, which a loaded host makes slower) */
    if (close_to (f->sleep_wall_ms, f->sleep_own_wall_ms, ROW_TOLERANCE,
            WALL_SLACK_MS) && close_to (f->burn_wall_ms,
            f->burn_own_wall_ms, ROW_TOLERANCE, WALL_SLACK_MS)
        && close_to (f->rows_cpu_ms, f->thread_cpu_ms, THREAD_TOLERANCE,
            f->profiler_ms))
      return;
  }
}

/* Each mode against the ground truth of its own run. */
static void
check_truth (const Figures * f, const gchar * mode)
{
  assert_close (f->sleep_wall_ms, f->sleep_own_wall_ms, ROW_TOLERANCE,
      WALL_SLACK_MS, "sleeper mean wall ms", mode);
  assert_close (f->burn_wall_ms, f->burn_own_wall_ms, ROW_TOLERANCE,
      WALL_SLACK_MS, "burner mean wall ms", mode);
  assert_close (f->burn_cpu_ms, f->burn_own_cpu_ms, ROW_TOLERANCE, 0,
      "burner CPU ms", mode);
  /* the burner's own figure, on the thread CPU clock it burns by */
  fail_unless (f->burn_own_cpu_ms >= BURN_US / 1000.0 * (1 - ROW_TOLERANCE),
      "%s: the burner burnt %.4f ms", mode, f->burn_own_cpu_ms);
#ifdef __SANITIZE_THREAD__
  /* ThreadSanitizer also faults in the shadow pages of each page touched:
   * the row must still count at least the pages */
  fail_unless (f->touch_faults >= PAGES * (1 - ROW_TOLERANCE),
      "%s: toucher faults %.1f, fewer than its %d pages", mode,
      f->touch_faults, PAGES);
#else
  assert_close (f->touch_faults, PAGES, ROW_TOLERANCE, 0, "toucher faults",
      mode);
#endif
  /* plus, in the default mode, the short neighbours' CPU shared into it:
   * at most one read interval's worth */
  assert_close (f->sleep_cpu_ms, f->sleep_own_cpu_ms, ROW_TOLERANCE,
      f->interval_ms + CALL_SLACK_MS, "sleeper CPU ms", mode);
  /* the profiler's hooks run partly between the rows' spans: their cost,
   * which grows under the sanitizers and on a busy machine, is the slack */
  assert_close (f->rows_cpu_ms, f->thread_cpu_ms, THREAD_TOLERANCE,
      f->profiler_ms, "CPU of all rows against the thread's clock (ms)", mode);
}

static void
parse_figures (const gchar * out, Figures * f)
{
  gdouble *v = (gdouble *) f;
  gchar *end = strstr (out, FIGURES_MARK);
  guint i;

  fail_unless (end != NULL, "no figures from the exact run: %s", out);
  end += strlen (FIGURES_MARK);

  for (i = 0; i < N_FIGURES; i++) {
    gchar *next;

    v[i] = g_ascii_strtod (end, &next);
    fail_unless (next != end, "cannot read the exact run's figures: %s", out);
    end = next;
  }
}

GST_START_TEST (test_modes_agree)
{
  Figures def, exact;
  gchar *argv[] = { g_file_read_link ("/proc/self/exe", NULL), NULL };
  gchar **envp = g_environ_setenv (g_get_environ (), EXACT_ENV, "1", TRUE);
  gchar *out = NULL, *err = NULL;
  gint status;

  measure_quiet (&def);
  fail_if (def.exact, "the default run ran in exact mode");
  check_truth (&def, "default");

  fail_unless (g_spawn_sync (NULL, argv, envp, G_SPAWN_DEFAULT, NULL, NULL,
          &out, &err, &status, NULL));
  fail_unless (g_spawn_check_wait_status (status, NULL), "%s", err);
  parse_figures (out, &exact);
  fail_unless (exact.exact, "the exact=true run did not say so");
  check_truth (&exact, "exact");

  g_print ("per call, default / exact / own (default run, exact run): "
      "sleeper wall %.3f / %.3f / %.3f, %.3f ms; CPU %.4f / %.4f / %.4f, "
      "%.4f ms; burner wall %.3f / %.3f / %.3f, %.3f ms; CPU %.4f / %.4f / "
      "%.4f, %.4f ms; toucher faults %.1f / %.1f (%d pages); CPU of all rows "
      "against the thread's clock %.3f / %.3f ms, %.3f / %.3f ms; read "
      "interval %.3f ms\n", def.sleep_wall_ms, exact.sleep_wall_ms,
      def.sleep_own_wall_ms, exact.sleep_own_wall_ms, def.sleep_cpu_ms,
      exact.sleep_cpu_ms, def.sleep_own_cpu_ms, exact.sleep_own_cpu_ms,
      def.burn_wall_ms, exact.burn_wall_ms, def.burn_own_wall_ms,
      exact.burn_own_wall_ms, def.burn_cpu_ms, exact.burn_cpu_ms,
      def.burn_own_cpu_ms, exact.burn_own_cpu_ms, def.touch_faults,
      exact.touch_faults, PAGES, def.rows_cpu_ms, def.thread_cpu_ms,
      exact.rows_cpu_ms, exact.thread_cpu_ms, def.interval_ms);

  /* the default mode against exact=true: wall as a share of what the
   * element measured itself (the runs are apart, the machine is shared) */
  assert_close (def.sleep_wall_ms / def.sleep_own_wall_ms,
      exact.sleep_wall_ms / exact.sleep_own_wall_ms, ROW_TOLERANCE,
      WALL_SLACK_MS / def.sleep_own_wall_ms, "sleeper wall / its own", "vs");
  assert_close (def.burn_wall_ms / def.burn_own_wall_ms,
      exact.burn_wall_ms / exact.burn_own_wall_ms, ROW_TOLERANCE,
      WALL_SLACK_MS / def.burn_own_wall_ms, "burner wall / its own", "vs");
  assert_close (def.burn_cpu_ms / def.burn_own_cpu_ms,
      exact.burn_cpu_ms / exact.burn_own_cpu_ms, ROW_TOLERANCE, 0,
      "burner CPU / its own", "vs");
  assert_close (def.touch_faults, exact.touch_faults, ROW_TOLERANCE, 0,
      "toucher faults", "vs");
  /* the short neighbours' CPU shared into the sleeper is at most one
   * read interval's worth */
  assert_close (def.sleep_cpu_ms - def.sleep_own_cpu_ms,
      exact.sleep_cpu_ms - exact.sleep_own_cpu_ms, 0,
      def.interval_ms + 2 * CALL_SLACK_MS, "sleeper CPU beyond its own ms",
      "vs");

  g_strfreev (envp);
  g_free (argv[0]);
  g_free (out);
  g_free (err);
}

GST_END_TEST;

/* the child: one run in exact mode, its figures on stdout */
GST_START_TEST (test_exact_figures)
{
  Figures f;
  gdouble *v = (gdouble *) & f;
  guint i;

  measure_quiet (&f);
  printf ("%s", FIGURES_MARK);
  for (i = 0; i < N_FIGURES; i++)
    printf (" %.6f", v[i]);
  printf ("\n");
  fflush (stdout);
}

GST_END_TEST;

static Suite *
axprof_modes_suite (gboolean exact)
{
  Suite *s = suite_create ("axprof-modes");
  TCase *tc = tcase_create ("general");

  suite_add_tcase (s, tc);
  if (exact)
    tcase_add_test (tc, test_exact_figures);
  else
    tcase_add_test (tc, test_modes_agree);
  return s;
}

int
main (int argc, char **argv)
{
  gboolean exact = g_getenv (EXACT_ENV) != NULL;

  g_setenv ("GST_TRACERS", exact ? "axprof(print=false,exact=true)" :
      "axprof(print=false)", TRUE);
  gst_check_init (&argc, &argv);
  ax_test_elements_register ();
  return gst_check_run_suite (axprof_modes_suite (exact), "axprof-modes",
      __FILE__);
}
