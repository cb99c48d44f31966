/* gst-ax
 * Copyright (C) 2026 gst-ax developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

/* The axprof tracer's own cost.
 *
 * Runs `fakesrc num-buffers=N sizetype=empty ! identity x10 ! fakesink
 * sync=false` with no tracer, with a test-only tracer whose hooks are
 * empty (GStreamer's own cost of tracing being on: the floor of any
 * tracer), with axprof in its default mode and with exact=true (each
 * with its usage reader as found, then forced onto the two-syscall
 * fallback), and the core stats tracer. Wall and process CPU time are
 * both kept; each axprof run also hands back its report's own-cost
 * estimate and the reads it made.
 * Tracers can only be chosen before gst_init() and never removed, so each
 * configuration runs in a child process of this binary; the runs are
 * interleaved and the best of REPEATS is kept, so that the noise of a
 * shared machine hits every configuration alike. */

#include <gst/gst.h>
#include <gst/gsttracer.h>
#include <gst/ax/ax.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <linux/perf_event.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/syscall.h>

#define DEFAULT_BUFFERS 100000
#define IDENTITIES 10
/* fakesrc + identities + fakesink each handle every buffer */
#define ELEMENTS (IDENTITIES + 2)
#define REPEATS 5
#define USAGE_READS 4000
/* the reads' costs are the best of this many passes, like the runs */
#define READ_PASSES 8

/* ------------------------------------------------------------ empty hooks */

typedef struct
{
  GstTracer parent;
} AxEmptyHooks;

typedef struct
{
  GstTracerClass parent_class;
} AxEmptyHooksClass;

static GType ax_empty_hooks_get_type (void);
G_DEFINE_TYPE (AxEmptyHooks, ax_empty_hooks, GST_TYPE_TRACER);

static void
empty_hook (void)
{
}

static void
ax_empty_hooks_class_init (AxEmptyHooksClass * klass)
{
}

/* the same hooks axprof registers */
static void
ax_empty_hooks_init (AxEmptyHooks * self)
{
  static const gchar *const hooks[] = {
    "pad-push-pre", "pad-push-post", "pad-push-list-pre",
    "pad-push-list-post", "pad-chain-pre", "pad-chain-post",
    "pad-chain-list-pre", "pad-chain-list-post", "pad-push-event-pre",
    "pad-push-event-post",
    "pad-pull-range-pre",
    "pad-pull-range-post", "element-post-message-pre", "element-new",
    "bin-add-post", "element-change-state-post",
  };
  guint i;

  for (i = 0; i < G_N_ELEMENTS (hooks); i++)
    gst_tracing_register_hook (GST_TRACER (self), hooks[i],
        G_CALLBACK (empty_hook));
}

/* ------------------------------------------------------------ configs */

typedef struct
{
  const gchar *name;
  const gchar *label;
  const gchar *tracers;
  /* GST_AX_PROBE_USAGE for the run, or NULL */
  const gchar *usage;
} Config;

static const Config configs[] = {
  {"none", "no tracer", NULL, NULL},
  {"empty", "empty hooks (test-only)", NULL, NULL},
  {"axprof", "axprof (default)", "axprof(file=/dev/null)", NULL},
  {"axprof-exact", "axprof exact=true", "axprof(file=/dev/null,exact=true)",
      NULL},
  {"axprof-rusage", "axprof, fallback reader", "axprof(file=/dev/null)",
      "rusage"},
  {"axprof-exact-rusage", "axprof exact=true, fallback",
      "axprof(file=/dev/null,exact=true)", "rusage"},
  {"axprof-exact-perf", "axprof exact=true, perf group",
      "axprof(file=/dev/null,exact=true)", "perf"},
  {"stats", "stats", "stats", NULL},
};

enum
{
  CFG_NONE,
  CFG_EMPTY,
  CFG_AXPROF,
  CFG_EXACT,
  CFG_AXPROF_RUSAGE,
  CFG_EXACT_RUSAGE,
  CFG_EXACT_PERF,
  CFG_STATS,
  N_CONFIGS
};

/* What a child run hands back. */
typedef struct
{
  guint64 ns;
  guint64 cpu_ns;
  gint reader;
  guint fallback_threads;
  /* axprof's report: its own-cost estimate and the reads it made */
  gdouble report_ns;
  guint64 reads;
  guint64 element_buffers;
} RunResult;

/* A tracer that fails to load leaves the run untraced: its figure would
 * be the no-tracer one under another name. */
static gboolean
tracer_active (const gchar * spec)
{
  GList *tracers = gst_tracing_get_active_tracers (), *l;
  gsize len = strcspn (spec, "(");
  gboolean found = FALSE;

  for (l = tracers; l != NULL; l = l->next) {
    gchar *type = g_ascii_strdown (G_OBJECT_TYPE_NAME (l->data), -1);

    /* GstAxProf, GstLatencyTracer, GstStatsTracer */
    if (strstr (type, "gst") == type && strncmp (type + 3, spec, len) == 0)
      found = TRUE;
    g_free (type);
  }
  g_list_free_full (tracers, gst_object_unref);
  return found;
}

/* CPU of the whole process: the streaming thread does the work, the main
 * thread waits; unlike wall time it does not grow when other processes
 * take the cores. */
static guint64
process_cpu_ns (void)
{
  struct timespec ts;

  clock_gettime (CLOCK_PROCESS_CPUTIME_ID, &ts);
  return (guint64) ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

static int
run_child (const gchar * mode, guint buffers)
{
  const Config *cfg = NULL;
  GString *desc = g_string_new (NULL);
  GstElement *pipeline;
  GstMessage *msg;
  GError *err = NULL;
  guint64 t0, t1, c0, c1, reads = 0, element_buffers = 0;
  gdouble report_ns = 0;
  guint i;

  for (i = 0; i < N_CONFIGS; i++)
    if (strcmp (configs[i].name, mode) == 0)
      cfg = &configs[i];
  if (cfg == NULL) {
    g_printerr ("unknown configuration '%s'\n", mode);
    return 1;
  }
  g_unsetenv ("GST_DEBUG");
  if (cfg->usage)
    g_setenv ("GST_AX_PROBE_USAGE", cfg->usage, TRUE);
  else
    g_unsetenv ("GST_AX_PROBE_USAGE");
  if (cfg->tracers)
    g_setenv ("GST_TRACERS", cfg->tracers, TRUE);
  else
    g_unsetenv ("GST_TRACERS");
  gst_init (NULL, NULL);
  if (strcmp (mode, "empty") == 0)
    g_object_new (ax_empty_hooks_get_type (), NULL);
  if (cfg->tracers != NULL && !tracer_active (cfg->tracers)) {
    g_printerr ("configuration '%s': GST_TRACERS=%s did not load (is the "
        "plugin on GST_PLUGIN_PATH_1_0? run through meson test "
        "--benchmark)\n", mode, cfg->tracers);
    return 1;
  }

  g_string_printf (desc, "fakesrc num-buffers=%u sizetype=empty", buffers);
  for (i = 0; i < IDENTITIES; i++)
    g_string_append (desc, " ! identity");
  g_string_append (desc, " ! fakesink sync=false");
  pipeline = gst_parse_launch (desc->str, &err);
  if (pipeline == NULL) {
    g_printerr ("cannot build '%s': %s\n", desc->str, err->message);
    return 1;
  }
  c0 = process_cpu_ns ();
  t0 = gst_ax_probe_now_ns ();
  gst_element_set_state (pipeline, GST_STATE_PLAYING);
  /* the report's message comes just before EOS */
  for (;;) {
    msg = gst_bus_timed_pop_filtered (GST_ELEMENT_BUS (pipeline),
        GST_CLOCK_TIME_NONE, GST_MESSAGE_EOS | GST_MESSAGE_ERROR |
        GST_MESSAGE_ELEMENT);
    if (GST_MESSAGE_TYPE (msg) != GST_MESSAGE_ELEMENT)
      break;
    if (gst_message_has_name (msg, "axprof-report")) {
      GstAxReport *r = NULL;

      gst_structure_get (gst_message_get_structure (msg), "report",
          GST_AX_TYPE_REPORT, &r, NULL);
      if (r) {
        report_ns = r->profiler_ns_per_element_buffer;
        reads = r->usage_reads;
        element_buffers = r->element_buffers;
        gst_ax_report_unref (r);
      }
    }
    gst_message_unref (msg);
  }
  t1 = gst_ax_probe_now_ns ();
  c1 = process_cpu_ns ();
  if (GST_MESSAGE_TYPE (msg) != GST_MESSAGE_EOS) {
    g_printerr ("pipeline failed\n");
    return 1;
  }
  gst_message_unref (msg);
  gst_element_set_state (pipeline, GST_STATE_NULL);
  gst_object_unref (pipeline);
  g_string_free (desc, TRUE);
  /* the reader the streaming thread used, as decided for the process */
  printf ("%" G_GUINT64_FORMAT " %" G_GUINT64_FORMAT " %d %u %.3f %"
      G_GUINT64_FORMAT " %" G_GUINT64_FORMAT "\n", t1 - t0, c1 - c0,
      cfg->tracers && g_str_has_prefix (cfg->tracers, "axprof") ?
      (gint) gst_ax_probe_thread_usage_reader () : 0,
      gst_ax_probe_thread_usage_fallback_threads (), report_ns, reads,
      element_buffers);
  return 0;
}

static gboolean
spawn (const gchar * self, const gchar * mode, guint buffers, RunResult * res)
{
  gchar *count = g_strdup_printf ("%u", buffers);
  gchar *argv[] = { (gchar *) self, (gchar *) "--child", (gchar *) mode,
    count, NULL
  };
  gchar *out = NULL, *err = NULL;
  gint status = 0;
  gboolean ok;

  memset (res, 0, sizeof (*res));
  ok = g_spawn_sync (NULL, argv, NULL, G_SPAWN_DEFAULT, NULL, NULL, &out,
      &err, &status, NULL) && g_spawn_check_wait_status (status, NULL);
  if (ok) {
    gchar *end = NULL;

    res->ns = g_ascii_strtoull (out, &end, 10);
    res->cpu_ns = g_ascii_strtoull (end, &end, 10);
    res->reader = (gint) g_ascii_strtoll (end, &end, 10);
    res->fallback_threads = (guint) g_ascii_strtoull (end, &end, 10);
    res->report_ns = g_ascii_strtod (end, &end);
    res->reads = g_ascii_strtoull (end, &end, 10);
    res->element_buffers = g_ascii_strtoull (end, NULL, 10);
  } else
    g_printerr ("child %s failed:\n%s\n", mode, err ? err : "");
  g_free (out);
  g_free (err);
  g_free (count);
  return ok && res->ns > 0;
}

static gdouble
getrusage_ns (void)
{
  struct rusage ru;
  guint64 t0, t1;
  guint i;

  t0 = gst_ax_probe_now_ns ();
  for (i = 0; i < USAGE_READS; i++)
    getrusage (RUSAGE_THREAD, &ru);
  t1 = gst_ax_probe_now_ns ();
  return (gdouble) (t1 - t0) / USAGE_READS;
}

static gdouble
monotonic_ns (void)
{
  guint64 t0, t1;
  guint i;

  t0 = gst_ax_probe_now_ns ();
  for (i = 0; i < USAGE_READS; i++)
    (void) gst_ax_probe_now_ns ();
  t1 = gst_ax_probe_now_ns ();
  return (gdouble) (t1 - t0) / USAGE_READS;
}

static gdouble
thread_clock_ns (void)
{
  struct timespec ts;
  guint64 t0, t1;
  guint i;

  t0 = gst_ax_probe_now_ns ();
  for (i = 0; i < USAGE_READS; i++)
    clock_gettime (CLOCK_THREAD_CPUTIME_ID, &ts);
  t1 = gst_ax_probe_now_ns ();
  return (gdouble) (t1 - t0) / USAGE_READS;
}

static gdouble
best_of (gdouble (*measure) (void))
{
  gdouble best = G_MAXDOUBLE;
  guint pass;

  for (pass = 0; pass < READ_PASSES; pass++)
    best = MIN (best, measure ());
  return best;
}

/* A perf event group of the task clock and minor faults: one syscall per
 * read instead of two, checked against the exact reader axprof uses.
 * FALSE when perf_event_open() is refused. */
typedef struct
{
  gdouble read_ns;
  guint64 perf_faults;
  glong minflt;
  guint64 pages;
  guint64 task_clock_ns;
  guint64 thread_clock_ns;
} PerfCheck;

#define CHECK_PAGES 2048
#define CHECK_ROUNDS 4
#define CHECK_BUSY_NS 20000000

static guint64
thread_cpu_now_ns (void)
{
  struct timespec ts;

  clock_gettime (CLOCK_THREAD_CPUTIME_ID, &ts);
  return (guint64) ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

static gboolean
perf_group_check (PerfCheck * pc)
{
  struct perf_event_attr attr;
  /* nr, task clock, minor faults */
  guint64 v0[3], v1[3], t0, t1, k0, k1;
  gsize page = sysconf (_SC_PAGESIZE), bytes = CHECK_PAGES * page, off;
  gint leader, faults;
  struct rusage ru0, ru1;
  guint i, pass;

  memset (pc, 0, sizeof (*pc));
  memset (&attr, 0, sizeof (attr));
  attr.size = sizeof (attr);
  attr.type = PERF_TYPE_SOFTWARE;
  attr.config = PERF_COUNT_SW_TASK_CLOCK;
  attr.read_format = PERF_FORMAT_GROUP;
  leader = syscall (SYS_perf_event_open, &attr, 0, -1, -1, 0);
  if (leader < 0)
    return FALSE;
  attr.config = PERF_COUNT_SW_PAGE_FAULTS_MIN;
  faults = syscall (SYS_perf_event_open, &attr, 0, -1, leader, 0);
  if (faults < 0) {
    close (leader);
    return FALSE;
  }
  /* right after opening, as a thread's first spans would be */
  for (i = 0; i < CHECK_ROUNDS; i++) {
    volatile guint8 *p = mmap (NULL, bytes, PROT_READ | PROT_WRITE,
        MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

    if (p == MAP_FAILED)
      break;
    madvise ((gpointer) p, bytes, MADV_NOHUGEPAGE);
    if (read (leader, v0, sizeof (v0)) != sizeof (v0))
      break;
    getrusage (RUSAGE_THREAD, &ru0);
    for (off = 0; off < bytes; off += page)
      p[off] = 1;
    getrusage (RUSAGE_THREAD, &ru1);
    if (read (leader, v1, sizeof (v1)) != sizeof (v1))
      break;
    munmap ((gpointer) p, bytes);
    pc->perf_faults += v1[2] - v0[2];
    pc->minflt += ru1.ru_minflt - ru0.ru_minflt;
    pc->pages += CHECK_PAGES;
  }
  if (read (leader, v0, sizeof (v0)) == sizeof (v0)) {
    k0 = thread_cpu_now_ns ();
    while (thread_cpu_now_ns () - k0 < CHECK_BUSY_NS);
    k1 = thread_cpu_now_ns ();
    if (read (leader, v1, sizeof (v1)) == sizeof (v1)) {
      pc->task_clock_ns = v1[1] - v0[1];
      pc->thread_clock_ns = k1 - k0;
    }
  }
  pc->read_ns = G_MAXDOUBLE;
  for (pass = 0; pass < READ_PASSES; pass++) {
    t0 = gst_ax_probe_now_ns ();
    for (i = 0; i < USAGE_READS; i++)
      if (read (leader, v0, sizeof (v0)) < 0)
        break;
    t1 = gst_ax_probe_now_ns ();
    if (i != USAGE_READS)
      break;
    pc->read_ns = MIN (pc->read_ns, (gdouble) (t1 - t0) / USAGE_READS);
  }
  close (faults);
  close (leader);
  return i == USAGE_READS;
}

static gdouble
ratio (gdouble a, gdouble b)
{
  return b > 0 ? a / b : 0;
}

/* The report's own-cost figure is per element call it measured (the
 * chains: 11 per buffer here); the bench's figures are per element that
 * handles a buffer (12, the source's task loop too): the same total
 * over another count. */
static gdouble
report_per_eb (const RunResult * r, gdouble eb)
{
  return r->report_ns * (gdouble) r->element_buffers / eb;
}

int
main (int argc, char **argv)
{
  RunResult best[N_CONFIGS];
  gdouble per[N_CONFIGS], per_cpu[N_CONFIGS], eb, rusage_read, perf_read,
      cheapest;
  guint buffers = DEFAULT_BUFFERS, rep, i;
  gboolean have_perf;
  PerfCheck pc;
  gchar *self;

  if (argc >= 4 && strcmp (argv[1], "--child") == 0)
    return run_child (argv[2], (guint) g_ascii_strtoull (argv[3], NULL, 10));
  if (argc >= 2)
    buffers = (guint) g_ascii_strtoull (argv[1], NULL, 10);
  if (buffers == 0) {
    g_printerr ("usage: %s [num-buffers]\n", argv[0]);
    return 2;
  }
  self = g_file_read_link ("/proc/self/exe", NULL);
  if (self == NULL)
    self = g_strdup (argv[0]);

  memset (best, 0, sizeof (best));
  for (i = 0; i < N_CONFIGS; i++)
    best[i].ns = best[i].cpu_ns = G_MAXUINT64;
  for (rep = 0; rep < REPEATS; rep++) {
    for (i = 0; i < N_CONFIGS; i++) {
      RunResult res;

      if (!spawn (self, configs[i].name, buffers, &res))
        return 1;
      best[i].ns = MIN (best[i].ns, res.ns);
      /* the report's figures from the run of least CPU, like the cost */
      if (res.cpu_ns < best[i].cpu_ns) {
        guint64 ns = best[i].ns;

        best[i] = res;
        best[i].ns = ns;
      }
    }
  }
  eb = (gdouble) buffers *ELEMENTS;

  for (i = 0; i < N_CONFIGS; i++) {
    per[i] = (gdouble) best[i].ns / eb;
    per_cpu[i] = (gdouble) best[i].cpu_ns / eb;
  }

  /* the reads' costs, measured in this run too */
  rusage_read = best_of (getrusage_ns) + best_of (thread_clock_ns);
  have_perf = perf_group_check (&pc);
  perf_read = have_perf ? pc.read_ns : G_MAXDOUBLE;
  cheapest = MIN (rusage_read, perf_read);

  printf ("axprof overhead: fakesrc num-buffers=%u sizetype=empty ! "
      "identity x%d ! fakesink sync=false\n", buffers, IDENTITIES);
  printf ("  %u element-buffers per run (%d elements), best of %d "
      "interleaved runs per configuration\n", buffers * ELEMENTS, ELEMENTS,
      REPEATS);
  printf ("  wall: best wall time of the run; cpu: best process CPU time, "
      "which other processes on the cores do not inflate\n");
  printf ("  %-30s %8s %8s %9s %9s %9s %8s %8s  %s\n", "configuration",
      "wall us", "cpu us", "wall over", "cpu over", "cpu over", "reads",
      "report", "usage reader");
  printf ("  %-30s %8s %8s %9s %9s %9s %8s %8s\n", "(per element-buffer)",
      "", "", "no tracer", "no tracer", "empty", "", "own cost");
  for (i = 0; i < N_CONFIGS; i++) {
    gboolean ax = configs[i].tracers &&
        g_str_has_prefix (configs[i].tracers, "axprof");
    gchar *reads = ax ? g_strdup_printf ("%.4f", best[i].reads / eb) :
        g_strdup ("");
    gchar *own = ax ? g_strdup_printf ("%.3f", report_per_eb (&best[i], eb) /
        (gdouble) GST_USECOND) : g_strdup ("");

    printf ("  %-30s %8.3f %8.3f %9.3f %9.3f %9.3f %8s %8s  %s%s\n",
        configs[i].label, per[i] / (gdouble) GST_USECOND,
        per_cpu[i] / (gdouble) GST_USECOND,
        (per[i] - per[CFG_NONE]) / (gdouble) GST_USECOND,
        (per_cpu[i] - per_cpu[CFG_NONE]) / (gdouble) GST_USECOND,
        (per_cpu[i] - per_cpu[CFG_EMPTY]) / (gdouble) GST_USECOND, reads, own,
        best[i].reader == GST_AX_PROBE_USAGE_PERF ? "perf group" :
        best[i].reader == GST_AX_PROBE_USAGE_RUSAGE ?
        "thread clock + getrusage" : "",
        best[i].fallback_threads ? " (some threads on the fallback)" : "");
    g_free (reads);
    g_free (own);
  }
  printf ("  (reads: usage reads per element-buffer; report own cost: the "
      "Profiler: line's estimate, over the same element-buffers)\n");
  printf ("exact reads measured here: perf group %.3f us%s, thread clock + "
      "getrusage %.3f us (getrusage %.3f, CLOCK_THREAD_CPUTIME_ID %.3f); "
      "cheapest %.3f us; CLOCK_MONOTONIC %.3f us\n", have_perf ?
      perf_read / (gdouble) GST_USECOND : 0, have_perf ? "" : " (refused)",
      rusage_read / (gdouble) GST_USECOND,
      best_of (getrusage_ns) / (gdouble) GST_USECOND,
      best_of (thread_clock_ns) / (gdouble) GST_USECOND,
      cheapest / (gdouble) GST_USECOND,
      best_of (monotonic_ns) / (gdouble) GST_USECOND);

  for (i = 0; i < 2; i++) {
    const gdouble *v = i == 0 ? per_cpu : per;
    gdouble over_empty = v[CFG_EMPTY] - v[CFG_NONE];
    gdouble over_stats = v[CFG_STATS] - v[CFG_NONE];
    gdouble over_def = v[CFG_AXPROF] - v[CFG_NONE];
    gdouble over_def_ru = v[CFG_AXPROF_RUSAGE] - v[CFG_NONE];
    gdouble over_exact = v[CFG_EXACT] - v[CFG_NONE];
    gdouble over_exact_ru = v[CFG_EXACT_RUSAGE] - v[CFG_NONE];
    gdouble reads_exact = best[CFG_EXACT].reads / eb;
    gdouble reads_exact_ru = best[CFG_EXACT_RUSAGE].reads / eb;
    gdouble floor_exact = over_empty + reads_exact * cheapest;
    gdouble floor_exact_ru = over_empty + reads_exact_ru * cheapest;

    printf ("ratios from %s time, overheads over no tracer in the same run "
        "(baselines in us per element-buffer):\n",
        i == 0 ? "process CPU" : "wall");
    printf ("  default / stats              %6.3f  (target <= 1.00; stats "
        "%.3f, default %.3f)\n", ratio (over_def, over_stats),
        over_stats / GST_USECOND, over_def / GST_USECOND);
    printf ("  default / empty hooks        %6.3f  (the floor any tracer pays: "
        "empty %.3f)\n", ratio (over_def, over_empty),
        over_empty / GST_USECOND);
    printf ("  default, fallback / stats    %6.3f  (default on the fallback "
        "reader %.3f)\n", ratio (over_def_ru, over_stats),
        over_def_ru / GST_USECOND);
    printf ("  exact / its floor            %6.3f  (target <= 1.20; floor = "
        "empty %.3f + %.3f reads x %.3f us = %.3f; exact %.3f)\n",
        ratio (over_exact, floor_exact), over_empty / GST_USECOND,
        reads_exact, cheapest / GST_USECOND, floor_exact / GST_USECOND,
        over_exact / GST_USECOND);
    printf ("  exact, fallback / its floor  %6.3f  (floor %.3f; exact on the "
        "fallback %.3f)\n", ratio (over_exact_ru, floor_exact_ru),
        floor_exact_ru / GST_USECOND, over_exact_ru / GST_USECOND);
    if (best[CFG_EXACT_PERF].reader == GST_AX_PROBE_USAGE_PERF &&
        best[CFG_EXACT_RUSAGE].reads > 0)
      printf ("  exact: perf group - fallback %+6.3f us per read in the "
          "pipeline (%+.3f us per element-buffer); back to back %+.3f us "
          "(the tracer keeps the group only where it times under 2/3 of "
          "the fallback)\n", (v[CFG_EXACT_PERF] - v[CFG_EXACT_RUSAGE]) /
          reads_exact_ru / GST_USECOND, (v[CFG_EXACT_PERF] -
              v[CFG_EXACT_RUSAGE]) / GST_USECOND, (perf_read - rusage_read) /
          (gdouble) GST_USECOND);
    printf ("  report own cost / measured   %6.3f default, %6.3f exact, "
        "%6.3f default fallback, %6.3f exact fallback  (target 0.75-1.25)\n",
        ratio (report_per_eb (&best[CFG_AXPROF], eb), over_def),
        ratio (report_per_eb (&best[CFG_EXACT], eb), over_exact),
        ratio (report_per_eb (&best[CFG_AXPROF_RUSAGE], eb), over_def_ru),
        ratio (report_per_eb (&best[CFG_EXACT_RUSAGE], eb), over_exact_ru));
  }
  if (have_perf) {
    gboolean agreed = pc.perf_faults == (guint64) pc.minflt;

    printf ("perf group check (task clock + minor faults, 1 syscall): "
        "right after opening it counted %" G_GUINT64_FORMAT " faults where "
        "ru_minflt counted %ld (%" G_GUINT64_FORMAT " pages touched); its "
        "task clock ran %+.2f%% from the thread CPU clock over %.0f ms of "
        "CPU; %s (axprof arms each thread's group before use)\n",
        pc.perf_faults, pc.minflt, pc.pages,
        pc.thread_clock_ns ? 100.0 * ((gdouble) pc.task_clock_ns -
            (gdouble) pc.thread_clock_ns) / pc.thread_clock_ns : 0.0,
        pc.thread_clock_ns / (gdouble) GST_MSECOND, agreed ?
        "faults agreed this time" : "an unarmed group misses faults");
  }
  g_free (self);
  return 0;
}
