/* gst-ax
 * Copyright (C) 2026 gst-ax developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

/* Ground truth for gst_ax_probe_thread_usage(), the reader behind axprof's
 * spans and GstAxProbeTimer, whichever reader runs: its CPU time against
 * CLOCK_THREAD_CPUTIME_ID over CPU burnt and sleeps, on this thread only
 * while other threads burn, in a forked child, and its faults against
 * getrusage's ru_minflt and the pages touched. Run twice by meson: as
 * found (a perf group where perf_event_open() is allowed) and with
 * GST_AX_PROBE_USAGE=rusage (the fallback, which must then run). */

#include <gst/check/gstcheck.h>
#include <gst/ax/ax.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define BUSY_NS (30 * GST_MSECOND)
#define SLEEP_US 20000
/* Both clocks are the scheduler's runtime of the thread. What separates
 * them over CPU burnt: the reads themselves (a few microseconds) and, for
 * the perf task clock, time a hypervisor stole, which the thread CPU
 * clock leaves out (0.1-0.6% measured on this VM). Over a sleep the
 * thread CPU clock also charges the woken thread from a scheduler clock
 * that may not have moved since before the wake-up: measured 7-70 us over
 * a 20 ms sleep on this VM, once 0.6 ms; the task clock starts afresh at
 * the switch. */
#define CPU_TOLERANCE_NS (300 * GST_USECOND)
#define CPU_TOLERANCE_RATIO 0.03
#define SLEEP_TOLERANCE_NS (1 * GST_MSECOND)
#define SLEEP_CPU_MAX_NS (2 * GST_MSECOND)
#define PAGES 512
#define FAULT_TOLERANCE 2
#define CHILD_EXIT_OK 0
#define CHILD_EXIT_BAD 3

static guint64
thread_clock_ns (void)
{
  struct timespec ts;

  clock_gettime (CLOCK_THREAD_CPUTIME_ID, &ts);
  return (guint64) ts.tv_sec * GST_SECOND + ts.tv_nsec;
}

static glong
minflt (void)
{
  struct rusage ru;

  getrusage (RUSAGE_THREAD, &ru);
  return ru.ru_minflt;
}

/* burns @ns of this thread's CPU, whatever the load of the machine */
static void
busy (guint64 ns)
{
  guint64 t0 = thread_clock_ns ();
  volatile guint64 sink = 0;

  while (thread_clock_ns () - t0 < ns) {
    guint i;

    for (i = 0; i < 1000; i++)
      sink += i;
  }
}

/* CPU over [a, b] by the probe reader and by the thread CPU clock */
typedef struct
{
  guint64 probe_ns;
  guint64 clock_ns;
  guint64 faults;
  glong minflt;
} Delta;

typedef void (*Work) (gpointer data);

static Delta
measure (Work work, gpointer data)
{
  guint64 c0, c1, f0, f1, k0, k1;
  glong m0, m1;
  Delta d;

  /* first calls bind symbols and open the reader: not what is compared */
  gst_ax_probe_thread_usage (&c0, &f0);
  (void) minflt ();
  (void) thread_clock_ns ();
  k0 = thread_clock_ns ();
  m0 = minflt ();
  gst_ax_probe_thread_usage (&c0, &f0);
  work (data);
  gst_ax_probe_thread_usage (&c1, &f1);
  m1 = minflt ();
  k1 = thread_clock_ns ();
  d.probe_ns = c1 - c0;
  d.clock_ns = k1 - k0;
  d.faults = f1 - f0;
  d.minflt = m1 - m0;
  return d;
}

static void
work_busy (gpointer data)
{
  busy (BUSY_NS);
}

static void
work_sleep (gpointer data)
{
  g_usleep (SLEEP_US);
}

static void
work_touch (gpointer data)
{
  gsize bytes = PAGES * (gsize) sysconf (_SC_PAGESIZE);
  gsize off, page = sysconf (_SC_PAGESIZE);
  volatile guint8 *p = mmap (NULL, bytes, PROT_READ | PROT_WRITE,
      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

  fail_unless (p != MAP_FAILED);
  /* one fault per page: no transparent huge page */
  madvise ((gpointer) p, bytes, MADV_NOHUGEPAGE);
  for (off = 0; off < bytes; off += page)
    p[off] = 1;
  munmap ((gpointer) p, bytes);
}

static gboolean
agrees (const Delta * d, guint64 tolerance_ns)
{
  return ABS ((gint64) d->probe_ns - (gint64) d->clock_ns) <
      tolerance_ns + CPU_TOLERANCE_RATIO * d->clock_ns;
}

GST_START_TEST (test_reader_in_use)
{
  GstAxProbeUsageReader r = gst_ax_probe_thread_usage_reader ();
  const gchar *env = g_getenv ("GST_AX_PROBE_USAGE");

  g_print ("usage reader: %s\n", gst_ax_probe_thread_usage_reader_name (r));
  fail_unless (r == GST_AX_PROBE_USAGE_PERF || r == GST_AX_PROBE_USAGE_RUSAGE);
  if (env != NULL && strcmp (env, "rusage") == 0)
    fail_unless_equals_int (r, GST_AX_PROBE_USAGE_RUSAGE);
}

GST_END_TEST;

GST_START_TEST (test_cpu_busy_and_sleep)
{
  Delta d;

  d = measure (work_busy, NULL);
  fail_unless (agrees (&d, CPU_TOLERANCE_NS), "busy: probe %"
      G_GUINT64_FORMAT " ns, thread clock %" G_GUINT64_FORMAT " ns",
      d.probe_ns, d.clock_ns);
  fail_unless (d.probe_ns >= BUSY_NS / 2);

  d = measure (work_sleep, NULL);
  fail_unless (agrees (&d, SLEEP_TOLERANCE_NS), "sleep: probe %"
      G_GUINT64_FORMAT " ns, thread clock %" G_GUINT64_FORMAT " ns",
      d.probe_ns, d.clock_ns);
  fail_unless (d.probe_ns < SLEEP_CPU_MAX_NS);
}

GST_END_TEST;

GST_START_TEST (test_faults)
{
  Delta d = measure (work_touch, NULL);

  fail_unless (ABS ((gint64) d.faults - d.minflt) <= FAULT_TOLERANCE,
      "probe faults %" G_GUINT64_FORMAT ", ru_minflt %ld", d.faults, d.minflt);
  fail_unless (d.faults >= PAGES, "faults %" G_GUINT64_FORMAT, d.faults);
}

GST_END_TEST;

static gpointer
burner (gpointer data)
{
  Delta *d = data;

  *d = measure (work_busy, NULL);
  return NULL;
}

/* Each thread reads its own usage: another thread's work is never in it,
 * and a thread started after the first read gets its own counters. */
GST_START_TEST (test_threads_apart)
{
  Delta mine, theirs[2];
  GThread *th[2];
  guint64 c, f;
  guint i;

  gst_ax_probe_thread_usage (&c, &f);
  for (i = 0; i < G_N_ELEMENTS (th); i++)
    th[i] = g_thread_new ("burner", burner, &theirs[i]);
  mine = measure (work_sleep, NULL);
  for (i = 0; i < G_N_ELEMENTS (th); i++)
    g_thread_join (th[i]);

  fail_unless (agrees (&mine, SLEEP_TOLERANCE_NS));
  fail_unless (mine.probe_ns < SLEEP_CPU_MAX_NS, "the sleeping thread read "
      "%" G_GUINT64_FORMAT " ns of CPU", mine.probe_ns);
  for (i = 0; i < G_N_ELEMENTS (th); i++) {
    fail_unless (agrees (&theirs[i], CPU_TOLERANCE_NS), "thread %u: probe %"
        G_GUINT64_FORMAT " ns, thread clock %" G_GUINT64_FORMAT " ns", i,
        theirs[i].probe_ns, theirs[i].clock_ns);
    fail_unless (theirs[i].probe_ns >= BUSY_NS / 2);
  }
}

GST_END_TEST;

/* A forked child must not read the parent thread's counters. */
GST_START_TEST (test_fork)
{
  guint64 c, f;
  pid_t pid;
  gint status = 0;

  gst_ax_probe_thread_usage (&c, &f);
  busy (BUSY_NS);
  pid = fork ();
  fail_unless (pid >= 0);
  if (pid == 0) {
    guint64 c0, f0;

    /* the child's thread starts from zero; the parent's has burnt
     * BUSY_NS */
    gst_ax_probe_thread_usage (&c0, &f0);
    _exit (c0 < BUSY_NS / 2 ? CHILD_EXIT_OK : CHILD_EXIT_BAD);
  }
  fail_unless (waitpid (pid, &status, 0) == pid);
  fail_unless (WIFEXITED (status));
  fail_unless_equals_int (WEXITSTATUS (status), CHILD_EXIT_OK);
}

GST_END_TEST;

static Suite *
axprobe_usage_suite (void)
{
  Suite *s = suite_create ("axprobe-usage");
  TCase *tc = tcase_create ("general");

  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_reader_in_use);
  tcase_add_test (tc, test_cpu_busy_and_sleep);
  tcase_add_test (tc, test_faults);
  tcase_add_test (tc, test_threads_apart);
  tcase_add_test (tc, test_fork);
  return s;
}

GST_CHECK_MAIN (axprobe_usage);
