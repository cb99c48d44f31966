/* gst-ax
 * Copyright (C) 2026 gst-ax developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

/**
 * SECTION:gstaxprobe
 * @title: GstAxProbe
 * @short_description: the seam between elements and profilers
 *
 * Elements report their internal stages (a device wait, a dequantisation,
 * a host copy) and device busy intervals through this API. A profiler such
 * as the `axprof` tracer registers a sink with gst_ax_probe_add_sink() and
 * receives the records. With no sink registered every call is a single
 * predictable branch on a global flag.
 *
 * Time stamps use the probe clock, CLOCK_MONOTONIC in nanoseconds
 * (gst_ax_probe_now_ns()).
 */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstaxprobe.h"

#include <string.h>
#include <time.h>
#ifdef __linux__
#include <linux/perf_event.h>
#include <pthread.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>
#endif

#define GST_AX_PROBE_MAX_SINKS 8

typedef struct
{
  /* Written once under sinks_lock before the slot is published through
   * 'funcs'; cleared by gst_ax_probe_remove_sink(). */
  const GstAxProbeSinkFuncs *funcs;
  gpointer user_data;
} GstAxProbeSink;

gint _gst_ax_probe_active = 0;

static GMutex sinks_lock;
static GstAxProbeSink sinks[GST_AX_PROBE_MAX_SINKS];

/**
 * gst_ax_probe_now_ns:
 *
 * Returns: the probe clock, CLOCK_MONOTONIC in nanoseconds
 *
 * Since: 0.2
 */
guint64
gst_ax_probe_now_ns (void)
{
  struct timespec ts;

  clock_gettime (CLOCK_MONOTONIC, &ts);
  return (guint64) ts.tv_sec * G_GUINT64_CONSTANT (1000000000) + ts.tv_nsec;
}

/* The usage reader. CPU always comes from CLOCK_THREAD_CPUTIME_ID (the
 * perf group's task clock keeps the time a hypervisor stole; it only
 * arms the group); faults from one read of a per-thread perf event group
 * (the minor-fault counter, bumped where ru_minflt is) or from
 * getrusage(). Either way two syscalls, and a syscall costs over a
 * microsecond on some VMs.
 *
 * Pitfalls, each handled:
 * - the group counts the thread that opened it: each thread opens its
 *   own on its first read and never reads another's; inherit stays 0;
 * - a forked child inherits the forking thread's descriptors, which
 *   still count the parent's thread: the child reopens;
 * - right after perf_event_open() the software counters can miss events
 *   for a while (measured on a 6.18 VM kernel: all faults of the first
 *   ms, a missed context switch), while the task clock runs: a new group
 *   is armed first, and only used once its fault and context-switch
 *   counters agree with getrusage over a page touch and a sleep, twice
 *   in a row;
 * - the two clocks must agree: arming also requires the task clock and
 *   the thread CPU clock to agree over the sleep within
 *   ARM_CLOCK_SKEW_NS (measured here: under 1 us over a 20 us sleep;
 *   over 20 ms sleeps the thread CPU clock charges the woken thread
 *   7-70 us more, from a scheduler clock not yet brought up to date at
 *   the wake-up, while the task clock starts afresh at the switch);
 * - kernel-side faults (a read() into fresh pages) count in ru_minflt
 *   only with exclude_kernel=0, which perf_event_paranoid >= 2 refuses
 *   without CAP_PERFMON; seccomp filters and some containers refuse
 *   perf_event_open() altogether: then the two-syscall reader runs, for
 *   the whole process;
 * - with paravirtual steal accounting the thread CPU clock leaves out
 *   time the hypervisor stole, the task clock keeps it: the two differ by
 *   the steal, 0 on an idle host. */
#ifdef __linux__
/* nr, task clock ns, minor faults, context switches */
#define PERF_GROUP_VALUES 4
#define PERF_VALUE_CPU 1
#define PERF_VALUE_FAULTS 2
#define PERF_VALUE_SWITCHES 3
#define PERF_FD_UNOPENED (-2)
#define PERF_FD_FAILED (-1)
/* arming: a sleep long enough to block (one context switch); the most
 * the task clock may differ from the thread CPU clock over it (a
 * thread-clock read lies inside the group's window: a few us); and the
 * attempts before giving up on perf */
#define ARM_SLEEP_NS 20000
#define ARM_CLOCK_SKEW_NS 10000
#define ARM_AGREEMENTS 2
#define ARM_ATTEMPTS 32

typedef struct
{
  gint fds[PERF_GROUP_VALUES - 1];
} PerfGroup;

static gint usage_reader = GST_AX_PROBE_USAGE_UNKNOWN;
/* threads that could not arm a group and read with the fallback */
static gint fallback_threads;
static __thread gint perf_leader = PERF_FD_UNOPENED;
static GOnce atfork_once = G_ONCE_INIT;

static void
perf_group_close (PerfGroup * g)
{
  gint i;

  for (i = G_N_ELEMENTS (g->fds) - 1; i >= 0; i--)
    if (g->fds[i] >= 0)
      close (g->fds[i]);
}

static void
perf_group_free (gpointer data)
{
  perf_group_close (data);
  g_free (data);
}

/* Closes the thread's group when the thread exits. */
static GPrivate perf_group_key = G_PRIVATE_INIT (perf_group_free);

static gint
perf_open (guint64 config, gint group_fd)
{
  struct perf_event_attr attr;

  memset (&attr, 0, sizeof (attr));
  attr.size = sizeof (attr);
  attr.type = PERF_TYPE_SOFTWARE;
  attr.config = config;
  attr.read_format = PERF_FORMAT_GROUP;
  /* kernel time and kernel-side faults count, as in the thread CPU clock
   * and ru_minflt; inherit stays 0: this thread only */
  attr.exclude_kernel = 0;
  attr.exclude_hv = 0;
  return syscall (SYS_perf_event_open, &attr, 0, -1, group_fd,
      PERF_FLAG_FD_CLOEXEC);
}

static void
perf_atfork_child (void)
{
  perf_leader = PERF_FD_UNOPENED;
  if (g_private_get (&perf_group_key) != NULL)
    g_private_replace (&perf_group_key, NULL);
}

static gpointer
perf_atfork_install (gpointer data)
{
  pthread_atfork (NULL, NULL, perf_atfork_child);
  return NULL;
}

static gboolean
perf_env_disabled (void)
{
  const gchar *env = g_getenv ("GST_AX_PROBE_USAGE");

  return env != NULL && strcmp (env, "rusage") == 0;
}

static gboolean
perf_read (gint leader, guint64 * values)
{
  return read (leader, values, PERF_GROUP_VALUES * sizeof (guint64)) ==
      (gssize) (PERF_GROUP_VALUES * sizeof (guint64));
}

static guint64
thread_clock_ns (void)
{
  struct timespec ts;

  clock_gettime (CLOCK_THREAD_CPUTIME_ID, &ts);
  return (guint64) ts.tv_sec * G_GUINT64_CONSTANT (1000000000) + ts.tv_nsec;
}

/* One arming attempt: a fresh page touched and a sleep, seen alike by the
 * group, by getrusage and by the thread CPU clock. */
static gboolean
perf_agrees (gint leader)
{
  const struct timespec nap = { 0, ARM_SLEEP_NS };
  guint64 v0[PERF_GROUP_VALUES], v1[PERF_GROUP_VALUES], k0, k1;
  gsize page = sysconf (_SC_PAGESIZE);
  struct rusage ru0, ru1;
  volatile guint8 *p;
  glong faults, switches;
  gint64 skew_ns;

  p = mmap (NULL, page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
      -1, 0);
  if (p == MAP_FAILED)
    return FALSE;
  if (getrusage (RUSAGE_THREAD, &ru0) != 0 || !perf_read (leader, v0)) {
    munmap ((gpointer) p, page);
    return FALSE;
  }
  k0 = thread_clock_ns ();
  p[0] = 1;
  nanosleep (&nap, NULL);
  k1 = thread_clock_ns ();
  perf_read (leader, v1);
  getrusage (RUSAGE_THREAD, &ru1);
  munmap ((gpointer) p, page);
  faults = ru1.ru_minflt - ru0.ru_minflt;
  switches = (ru1.ru_nvcsw + ru1.ru_nivcsw) - (ru0.ru_nvcsw + ru0.ru_nivcsw);
  skew_ns = (gint64) (v1[PERF_VALUE_CPU] - v0[PERF_VALUE_CPU]) -
      (gint64) (k1 - k0);
  return faults >= 1 && switches >= 1 &&
      v1[PERF_VALUE_FAULTS] - v0[PERF_VALUE_FAULTS] == (guint64) faults &&
      v1[PERF_VALUE_SWITCHES] - v0[PERF_VALUE_SWITCHES] == (guint64) switches
      && ABS (skew_ns) <= ARM_CLOCK_SKEW_NS;
}

static gboolean
perf_arm (gint leader)
{
  guint attempt, agreed = 0;

  for (attempt = 0; attempt < ARM_ATTEMPTS && agreed < ARM_AGREEMENTS;
      attempt++)
    agreed = perf_agrees (leader) ? agreed + 1 : 0;
  return agreed == ARM_AGREEMENTS;
}

/* Opens and arms the calling thread's group; FALSE if this thread reads
 * with the fallback. */
static gboolean
perf_thread_open (void)
{
  static const guint64 configs[PERF_GROUP_VALUES - 1] = {
    PERF_COUNT_SW_TASK_CLOCK, PERF_COUNT_SW_PAGE_FAULTS_MIN,
    PERF_COUNT_SW_CONTEXT_SWITCHES,
  };
  PerfGroup g;
  gint reader;
  guint i;

  perf_leader = PERF_FD_FAILED;
  reader = __atomic_load_n (&usage_reader, __ATOMIC_ACQUIRE);
  if (reader == GST_AX_PROBE_USAGE_RUSAGE)
    return FALSE;
  g_once (&atfork_once, perf_atfork_install, NULL);
  if (reader == GST_AX_PROBE_USAGE_UNKNOWN && perf_env_disabled ()) {
    __atomic_store_n (&usage_reader, GST_AX_PROBE_USAGE_RUSAGE,
        __ATOMIC_RELEASE);
    return FALSE;
  }
  for (i = 0; i < G_N_ELEMENTS (g.fds); i++)
    g.fds[i] = -1;
  for (i = 0; i < G_N_ELEMENTS (g.fds); i++) {
    g.fds[i] = perf_open (configs[i], i == 0 ? -1 : g.fds[0]);
    if (g.fds[i] < 0)
      break;
  }
  if (i < G_N_ELEMENTS (g.fds)) {
    perf_group_close (&g);
    /* refused: the whole process reads with the fallback; a thread that
     * is refused after others opened (a descriptor limit) keeps the
     * fallback for itself */
    if (reader == GST_AX_PROBE_USAGE_UNKNOWN &&
        __atomic_compare_exchange_n (&usage_reader, &reader,
            GST_AX_PROBE_USAGE_RUSAGE, FALSE, __ATOMIC_ACQ_REL,
            __ATOMIC_ACQUIRE))
      return FALSE;
    __atomic_add_fetch (&fallback_threads, 1, __ATOMIC_RELAXED);
    return FALSE;
  }
  if (!perf_arm (g.fds[0])) {
    perf_group_close (&g);
    /* the first group never agreeing is taken as this kernel's nature
     * (a clock skew does not go away): the whole process reads with the
     * fallback, and no further thread pays for arming */
    if (reader == GST_AX_PROBE_USAGE_UNKNOWN &&
        __atomic_compare_exchange_n (&usage_reader, &reader,
            GST_AX_PROBE_USAGE_RUSAGE, FALSE, __ATOMIC_ACQ_REL,
            __ATOMIC_ACQUIRE))
      return FALSE;
    __atomic_add_fetch (&fallback_threads, 1, __ATOMIC_RELAXED);
    return FALSE;
  }
  g_private_replace (&perf_group_key, g_memdup2 (&g, sizeof (g)));
  perf_leader = g.fds[0];
  if (reader == GST_AX_PROBE_USAGE_UNKNOWN)
    __atomic_compare_exchange_n (&usage_reader, &reader,
        GST_AX_PROBE_USAGE_PERF, FALSE, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE);
  return TRUE;
}
#endif

static void
rusage_thread_usage (guint64 * cpu_ns, guint64 * faults)
{
  struct timespec ts;
#if defined(__linux__) && defined(RUSAGE_THREAD)
  struct rusage ru;

  /* getrusage's CPU time only advances at scheduler ticks (4 ms with
   * HZ=250), far too coarse for a span; the thread CPU clock is exact.
   * Its fault counters are exact. */
  getrusage (RUSAGE_THREAD, &ru);
  *faults = ru.ru_minflt;
#else
  *faults = 0;
#endif
  clock_gettime (CLOCK_THREAD_CPUTIME_ID, &ts);
  *cpu_ns = (guint64) ts.tv_sec * G_GUINT64_CONSTANT (1000000000) + ts.tv_nsec;
}

/**
 * gst_ax_probe_thread_usage:
 * @cpu_ns: (out): CPU time used by the calling thread
 * @faults: (out): minor page faults taken by the calling thread
 *
 * Reads the calling thread's resource usage: with one read of a per-thread
 * perf event group where perf_event_open() is allowed, else with
 * CLOCK_THREAD_CPUTIME_ID and getrusage(RUSAGE_THREAD). Both are exact on
 * every call and count the same things (see
 * gst_ax_probe_thread_usage_reader()). On systems without per-thread
 * usage, faults read 0, which means "not measured".
 *
 * Since: 0.2
 */
void
gst_ax_probe_thread_usage (guint64 * cpu_ns, guint64 * faults)
{
#ifdef __linux__
  guint64 values[PERF_GROUP_VALUES];

  if (G_UNLIKELY (perf_leader == PERF_FD_UNOPENED))
    perf_thread_open ();
  if (G_LIKELY (perf_leader >= 0) && G_LIKELY (perf_read (perf_leader, values))) {
    /* the task clock keeps the time a hypervisor stole, which the thread
     * CPU clock, getrusage and perf's own accounting of the process leave
     * out (on a busy host the two differed by a third): CPU from the
     * thread clock, faults from the group */
    *cpu_ns = thread_clock_ns ();
    *faults = values[PERF_VALUE_FAULTS];
    return;
  }
#endif
  rusage_thread_usage (cpu_ns, faults);
}

/* Choosing between the two exact readers: best of a few passes of a few
 * hundred reads each, back to back (syscall costs differ between
 * machines by a factor of ten). Among a pipeline's code a perf-group
 * read costs more than back to back, and more than the fallback's two
 * syscalls do: it goes through the file table (shared, so refcounted,
 * once the process has threads), allocates the group's buffer and walks
 * the group's events. On a 2-core VM (Zen 1, 6.18 kernel) it was 4-15 %
 * cheaper back to back and 0.12-0.17 us per read dearer in a pipeline, for 2
 * or 3 events alike. So perf is kept only where it is much cheaper back
 * to back, as on hosts where every syscall is slow and one beats two. */
#define CHOOSE_PASSES 5
#define CHOOSE_ROUNDS 200
#define CHOOSE_PERF_MARGIN 1.5

/**
 * gst_ax_probe_thread_usage_choose_reader:
 *
 * Times both exact readers on the calling thread and keeps, for the
 * whole process, the one expected to cost less among a pipeline's code:
 * the perf event group where it reads in well under two thirds of the
 * fallback's time, else the thread CPU clock with getrusage(). Both
 * count the same things on every read; only their cost differs between
 * machines. Call it once, before other
 * threads read their usage (a profiler does at start); later calls, and
 * calls after GST_AX_PROBE_USAGE chose the reader (`rusage`, or `perf`
 * for the group wherever it opens), change nothing.
 *
 * Returns: the reader the process uses from now on
 *
 * Since: 0.2
 */
GstAxProbeUsageReader
gst_ax_probe_thread_usage_choose_reader (void)
{
#ifdef __linux__
  static gint chosen;
  guint64 cpu, faults, t0, best_perf = G_MAXUINT64, best_ru = G_MAXUINT64;
  guint pass, i;

  if (!g_atomic_int_compare_and_exchange (&chosen, 0, 1) ||
      g_strcmp0 (g_getenv ("GST_AX_PROBE_USAGE"), "perf") == 0)
    return gst_ax_probe_thread_usage_reader ();
  if (perf_leader == PERF_FD_UNOPENED)
    perf_thread_open ();
  if (perf_leader < 0 || __atomic_load_n (&usage_reader, __ATOMIC_ACQUIRE)
      != GST_AX_PROBE_USAGE_PERF)
    return gst_ax_probe_thread_usage_reader ();
  for (pass = 0; pass < CHOOSE_PASSES; pass++) {
    t0 = gst_ax_probe_now_ns ();
    for (i = 0; i < CHOOSE_ROUNDS; i++)
      gst_ax_probe_thread_usage (&cpu, &faults);
    best_perf = MIN (best_perf, gst_ax_probe_now_ns () - t0);
    t0 = gst_ax_probe_now_ns ();
    for (i = 0; i < CHOOSE_ROUNDS; i++)
      rusage_thread_usage (&cpu, &faults);
    best_ru = MIN (best_ru, gst_ax_probe_now_ns () - t0);
  }
  if (best_perf * CHOOSE_PERF_MARGIN > best_ru) {
    /* threads that open later see the choice and never open a group */
    __atomic_store_n (&usage_reader, GST_AX_PROBE_USAGE_RUSAGE,
        __ATOMIC_RELEASE);
    g_private_replace (&perf_group_key, NULL);
    perf_leader = PERF_FD_FAILED;
  }
#endif
  return gst_ax_probe_thread_usage_reader ();
}

/**
 * gst_ax_probe_thread_usage_reader:
 *
 * Which reader gst_ax_probe_thread_usage() uses in this process, deciding
 * it on the calling thread if no thread has read yet.
 *
 * Returns: #GST_AX_PROBE_USAGE_PERF or #GST_AX_PROBE_USAGE_RUSAGE
 *
 * Since: 0.2
 */
GstAxProbeUsageReader
gst_ax_probe_thread_usage_reader (void)
{
#ifdef __linux__
  if (__atomic_load_n (&usage_reader, __ATOMIC_ACQUIRE) ==
      GST_AX_PROBE_USAGE_UNKNOWN && perf_leader == PERF_FD_UNOPENED)
    perf_thread_open ();
  return __atomic_load_n (&usage_reader, __ATOMIC_ACQUIRE) ==
      GST_AX_PROBE_USAGE_PERF ? GST_AX_PROBE_USAGE_PERF :
      GST_AX_PROBE_USAGE_RUSAGE;
#else
  return GST_AX_PROBE_USAGE_RUSAGE;
#endif
}

/**
 * gst_ax_probe_thread_usage_reader_name:
 * @reader: a #GstAxProbeUsageReader
 *
 * Returns: a short description of @reader, for reports
 *
 * Since: 0.2
 */
const gchar *
gst_ax_probe_thread_usage_reader_name (GstAxProbeUsageReader reader)
{
  switch (reader) {
    case GST_AX_PROBE_USAGE_PERF:
      return
          "CLOCK_THREAD_CPUTIME_ID + perf group of minor faults (2 syscalls per read)";
    case GST_AX_PROBE_USAGE_RUSAGE:
      return "CLOCK_THREAD_CPUTIME_ID + getrusage (2 syscalls per read)";
    default:
      return "undecided";
  }
}

/**
 * gst_ax_probe_thread_usage_fallback_threads:
 *
 * Returns: how many threads read with the two-syscall fallback although
 *   the process reads with a perf group (a group that was refused, or
 *   whose counters did not come to agree with getrusage)
 *
 * Since: 0.2
 */
guint
gst_ax_probe_thread_usage_fallback_threads (void)
{
#ifdef __linux__
  return __atomic_load_n (&fallback_threads, __ATOMIC_RELAXED);
#else
  return 0;
#endif
}

/**
 * gst_ax_probe_add_sink: (skip)
 * @funcs: the callbacks; must stay valid until removed
 * @user_data: passed to every callback
 *
 * Registers a profiler. The probe turns active with the first sink.
 *
 * Returns: an id for gst_ax_probe_remove_sink(), or 0 if all slots are
 *   taken
 *
 * Since: 0.2
 */
guint
gst_ax_probe_add_sink (const GstAxProbeSinkFuncs * funcs, gpointer user_data)
{
  guint i, id = 0;

  g_return_val_if_fail (funcs != NULL, 0);

  g_mutex_lock (&sinks_lock);
  for (i = 0; i < GST_AX_PROBE_MAX_SINKS; i++) {
    if (__atomic_load_n (&sinks[i].funcs, __ATOMIC_ACQUIRE) == NULL) {
      sinks[i].user_data = user_data;
      __atomic_store_n (&sinks[i].funcs, funcs, __ATOMIC_RELEASE);
      __atomic_add_fetch (&_gst_ax_probe_active, 1, __ATOMIC_RELEASE);
      id = i + 1;
      break;
    }
  }
  g_mutex_unlock (&sinks_lock);

  if (id == 0)
    g_warning ("gst-ax: more than %d profilers registered; ignoring one",
        GST_AX_PROBE_MAX_SINKS);
  return id;
}

/**
 * gst_ax_probe_remove_sink:
 * @sink_id: an id returned by gst_ax_probe_add_sink()
 *
 * Unregisters a profiler. Callbacks already running on other threads may
 * still complete after this returns, so a profiler removes its sink only
 * once no streaming thread can record any more (at process exit, or after
 * all its pipelines are in NULL).
 *
 * Since: 0.2
 */
void
gst_ax_probe_remove_sink (guint sink_id)
{
  g_return_if_fail (sink_id > 0 && sink_id <= GST_AX_PROBE_MAX_SINKS);

  g_mutex_lock (&sinks_lock);
  if (sinks[sink_id - 1].funcs != NULL) {
    __atomic_store_n (&sinks[sink_id - 1].funcs, NULL, __ATOMIC_RELEASE);
    __atomic_sub_fetch (&_gst_ax_probe_active, 1, __ATOMIC_RELEASE);
  }
  g_mutex_unlock (&sinks_lock);
}

#define EMIT(member, record)                                            \
  G_STMT_START {                                                        \
    guint i_;                                                           \
    for (i_ = 0; i_ < GST_AX_PROBE_MAX_SINKS; i_++) {                   \
      const GstAxProbeSinkFuncs *f_ =                                   \
          __atomic_load_n (&sinks[i_].funcs, __ATOMIC_ACQUIRE);         \
      if (f_ != NULL && f_->member != NULL)                             \
        f_->member (record, sinks[i_].user_data);                       \
    }                                                                   \
  } G_STMT_END

/**
 * _gst_ax_probe_emit_span: (skip)
 * @span: the span
 *
 * The out-of-line half of the inline call of the same name without the
 * underscore, which checks gst_ax_probe_is_active() first; not for direct
 * use.
 *
 * Since: 0.2
 */
void
_gst_ax_probe_emit_span (const GstAxProbeSpan * span)
{
  EMIT (span, span);
}

/**
 * _gst_ax_probe_emit_device_event: (skip)
 * @event: the event
 *
 * The out-of-line half of the inline call of the same name without the
 * underscore, which checks gst_ax_probe_is_active() first; not for direct
 * use.
 *
 * Since: 0.2
 */
void
_gst_ax_probe_emit_device_event (const GstAxProbeDeviceEvent * event)
{
  EMIT (device_event, event);
}

/**
 * _gst_ax_probe_emit_device: (skip)
 * @device: the device
 *
 * The out-of-line half of the inline call of the same name without the
 * underscore, which checks gst_ax_probe_is_active() first; not for direct
 * use.
 *
 * Since: 0.2
 */
void
_gst_ax_probe_emit_device (const GstAxProbeDevice * device)
{
  EMIT (device, device);
}

/**
 * _gst_ax_probe_timer_start: (skip)
 * @timer: the timer
 *
 * The out-of-line half of the inline call of the same name without the
 * underscore, which checks gst_ax_probe_is_active() first; not for direct
 * use.
 *
 * Since: 0.2
 */
void
_gst_ax_probe_timer_start (GstAxProbeTimer * timer)
{
  gst_ax_probe_thread_usage (&timer->cpu_ns, &timer->faults);
  timer->start_ns = gst_ax_probe_now_ns ();
}

/**
 * _gst_ax_probe_emit_span_calls: (skip)
 * @span: the span
 * @n: the calls it stands for
 *
 * @span as @n consecutive calls, each with an equal share of its wall,
 * CPU and faults (the last takes the remainders).
 * The out-of-line half of the inline call of the same name without the
 * underscore, which checks gst_ax_probe_is_active() first; not for direct
 * use.
 *
 * Since: 0.2
 */
void
_gst_ax_probe_emit_span_calls (const GstAxProbeSpan * span, guint n)
{
  GstAxProbeSpan part = *span;
  guint i;

  if (n <= 1) {
    _gst_ax_probe_emit_span (span);
    return;
  }
  for (i = 0; i < n; i++) {
    gboolean last = i + 1 == n;

    part.start_ns = span->start_ns + i * (span->wall_ns / n);
    part.wall_ns = last ? span->wall_ns - i * (span->wall_ns / n) :
        span->wall_ns / n;
    part.cpu_ns = last ? span->cpu_ns - i * (span->cpu_ns / n) :
        span->cpu_ns / n;
    part.faults = last ? span->faults - i * (span->faults / n) :
        span->faults / n;
    _gst_ax_probe_emit_span (&part);
  }
}

/**
 * _gst_ax_probe_timer_stop_calls: (skip)
 * @timer: a started timer
 * @element: the element
 * @group: (nullable): the group
 * @stage: the stage
 * @flags: the stage's flags
 * @n: the calls it stands for
 *
 * The out-of-line half of the inline call of the same name without the
 * underscore, which checks gst_ax_probe_is_active() first; not for direct
 * use.
 *
 * Since: 0.2
 */
void
_gst_ax_probe_timer_stop_calls (GstAxProbeTimer * timer,
    GstElement * element, const gchar * group, const gchar * stage,
    GstAxProbeFlags flags, guint n)
{
  GstAxProbeSpan span;
  guint64 end_ns, cpu_ns, faults;

  end_ns = gst_ax_probe_now_ns ();
  gst_ax_probe_thread_usage (&cpu_ns, &faults);

  span.element = element;
  span.group = group;
  span.stage = stage;
  span.start_ns = timer->start_ns;
  span.wall_ns = end_ns - timer->start_ns;
  span.cpu_ns = cpu_ns - timer->cpu_ns;
  span.faults = faults - timer->faults;
  span.flags = flags;
  _gst_ax_probe_emit_span_calls (&span, n);
}

/**
 * _gst_ax_probe_timer_stop: (skip)
 * @timer: a started timer
 * @element: the element
 * @group: (nullable): the group
 * @stage: the stage
 * @flags: the stage's flags
 *
 * The out-of-line half of the inline call of the same name without the
 * underscore, which checks gst_ax_probe_is_active() first; not for direct
 * use.
 *
 * Since: 0.2
 */
void
_gst_ax_probe_timer_stop (GstAxProbeTimer * timer, GstElement * element,
    const gchar * group, const gchar * stage, GstAxProbeFlags flags)
{
  _gst_ax_probe_timer_stop_calls (timer, element, group, stage, flags, 1);
}
