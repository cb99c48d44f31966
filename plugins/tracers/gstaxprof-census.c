/* gst-ax
 * Copyright (C) 2026 gst-ax developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

/* Every thread of the process, not only the streaming threads the pad
 * hooks run on: codec frame threads, encoder pools, GLib thread pools,
 * sim-npu's device threads, the application's own.
 *
 * The census lists /proc/self/task when the tracer starts, around each
 * caps or EOS event an element receives and each element's state change
 * (decoders and encoders open their codec, and start its threads, there),
 * and at each element's first buffer (caps that decodebin's queues hand
 * on as sticky events take no hook). During such a context the thread
 * running it carries a tag as its name, which a thread it starts
 * inherits (Linux copies the name into a new thread): the census gives
 * that thread to the context's element, whichever thread lists it, and
 * then gives both their own names back. A thread found outside a context
 * is the running element's only when it has the scanning thread's name
 * and no other streaming thread has that name. GLib's thread pools
 * (GstTaskPool, GstSharedTaskPool: the video converter's and the
 * compositor's workers) name their threads "pool-*" and share them
 * between elements, so their CPU is attributed by time instead: to the
 * pool-using calls running while they compute (axprof_pool_boundary()).
 *
 * A thread whose CPU is someone's has a perf counter group of its own
 * (task clock and minor faults), which keeps its figures after it ends;
 * otherwise its CPU is read from the kernel by its thread id while it
 * lives. Nothing here runs per buffer except the pool accounting, and
 * that only for pool-using elements. The census keeps a record of every
 * thread the process had (a few hundred bytes each).
 *
 * The census lock is a leaf: nothing else is locked while it is held. */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstaxprof-private.h"
#include "gstaxprof-census.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>
#ifdef __linux__
#include <linux/perf_event.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#endif

#define CENSUS_MAX_PIPES 4

/* One thread of the process, as the census found it; never freed. */
struct _CensusThread
{
  gint tid;
  guint index;
  gchar name[TRACE_THREAD_NAME_SIZE];
  CensusKind kind;
  gboolean hooked;
  gboolean gone;
  ElementState *owner;
  /* 1 + the context tag it was born with, 0 if none */
  guint tag;
  /* the pipelines a hooked thread wrote rows of */
  PipelineState *pipes[CENSUS_MAX_PIPES];
  guint n_pipes;
  /* its perf counter group (task clock, minor faults), or -1 */
  gint perf_fd;
  gint perf_member_fd;
  /* its usage when they were opened */
  guint64 perf_cpu0_ns;
  guint64 perf_faults0;
  /* the last listing that saw it */
  guint listed;
  /* its usage when it ended, where known */
  gboolean final_known;
  guint64 final_cpu_ns;
  guint64 final_faults;
  /* pool accounting: its CPU at the last boundary */
  guint64 pool_last_ns;
};

/* A thread's usage when a run began */
typedef struct
{
  CensusThread *thread;
  guint64 cpu_ns;
  guint64 faults;
} ThreadBase;

#define TASK_DIR "/proc/self/task"
#define SIMULATOR_THREAD_PREFIX "simnpu-"
#define POOL_THREAD_PREFIX "pool"
/* a pool-using element scans for new pool threads at the end of its
 * first calls (pools start their threads on first use), then on one call
 * in this many */
#define POOL_SCAN_FIRST_CALLS 16
#define POOL_SCAN_EVERY 64
/* stat fields: minflt is the 10th, counted from the state (3rd) after
 * the name's closing parenthesis */
#define STAT_MINFLT_AFTER_STATE 7

static GMutex census_lock;
/* bumped by every listing of the task folder; a thread that a listing
 * did not see has ended */
static guint census_listing;
/* (element-type CensusThread), never shrinks; protected by census_lock */
static GPtrArray *census;
static GHashTable *census_by_tid;

/* pool accounting, protected by census_lock: the pool threads' summed
 * CPU at the last boundary, and the pool-using segments running now */
#define MAX_OPEN_POOL_SEGMENTS 16
static ElementState *pool_open[MAX_OPEN_POOL_SEGMENTS];
static guint n_pool_open;
static guint64 pool_unattributed_ns;

/* Context tags. While a thread runs a context (an element receiving caps
 * or EOS, or changing state), it carries the name "ax~" and the
 * context's number: a thread it starts then inherits that name, so the
 * census knows exactly whose it is, whichever thread lists it first. The
 * new thread gets the creator's own name back at once, and the creator
 * gets it back when the context ends. Protected by census_lock. */
#define TAG_PREFIX "ax~"
typedef struct
{
  ElementState *owner;
  gchar name[TRACE_THREAD_NAME_SIZE];
} ContextTag;
static GArray *context_tags;
/* tags whose context ended, to use again (guint indices) */
static GArray *free_tags;

gint
axprof_gettid (void)
{
#ifdef __linux__
  return (gint) syscall (SYS_gettid);
#else
  return 0;
#endif
}

/* The process's CPU time, user and system, over all its threads, ended
 * ones included. */
guint64
axprof_process_cpu_ns (void)
{
  struct rusage ru;

  getrusage (RUSAGE_SELF, &ru);
  return GST_TIMEVAL_TO_TIME (ru.ru_utime) + GST_TIMEVAL_TO_TIME (ru.ru_stime);
}

/* The CPU clock of thread @tid of this process: the kernel's
 * MAKE_THREAD_CPUCLOCK (tid, CPUCLOCK_SCHED), computed unsigned. */
static gboolean
thread_cpu_ns (gint tid, guint64 * ns)
{
#ifdef __linux__
  struct timespec ts;
  clockid_t clock = (clockid_t) ((~(guint32) tid << 3) | 6u);

  if (clock_gettime (clock, &ts) != 0)
    return FALSE;
  *ns = (guint64) ts.tv_sec * GST_SECOND + (guint64) ts.tv_nsec;
  return TRUE;
#else
  return FALSE;
#endif
}

/* minor faults of thread @tid, from its stat line */
static gboolean
thread_faults (gint tid, guint64 * faults)
{
  gchar path[64], buf[1024], *p;
  FILE *f;
  size_t n;
  guint field;

  g_snprintf (path, sizeof (path), TASK_DIR "/%d/stat", tid);
  f = fopen (path, "re");
  if (f == NULL)
    return FALSE;
  n = fread (buf, 1, sizeof (buf) - 1, f);
  fclose (f);
  buf[n] = '\0';
  p = strrchr (buf, ')');
  if (p == NULL)
    return FALSE;
  p++;
  for (field = 0; field <= STAT_MINFLT_AFTER_STATE && p; field++)
    p = strchr (p + 1, ' ');
  if (p == NULL)
    return FALSE;
  *faults = g_ascii_strtoull (p + 1, NULL, 10);
  return TRUE;
}

/* A thread's CPU and faults outlive it in a perf counter group attached
 * to it (task clock and minor faults, read together): a codec that
 * closes, an encoder that reopens at EOS or a pool thread that idles out
 * take their CPU with them otherwise. Where perf_event_open() is not
 * allowed the kernel's clock by thread id serves while the thread lives.
 * Returns the group's leader, or -1. */
static gint
counters_open (gint tid, gint * member)
{
#ifdef __linux__
  static const guint64 configs[] = { PERF_COUNT_SW_TASK_CLOCK,
    PERF_COUNT_SW_PAGE_FAULTS_MIN
  };
  gint leader = -1;
  guint i;

  *member = -1;
  for (i = 0; i < G_N_ELEMENTS (configs); i++) {
    struct perf_event_attr attr;
    gint fd;

    memset (&attr, 0, sizeof (attr));
    attr.size = sizeof (attr);
    attr.type = PERF_TYPE_SOFTWARE;
    attr.config = configs[i];
    attr.read_format = PERF_FORMAT_GROUP;
    fd = (gint) syscall (SYS_perf_event_open, &attr, (pid_t) tid, -1, leader,
        PERF_FLAG_FD_CLOEXEC);
    if (fd < 0) {
      if (leader >= 0)
        close (leader);
      return -1;
    }
    if (leader < 0)
      leader = fd;
    else
      *member = fd;
  }
  return leader;
#else
  *member = -1;
  return -1;
#endif
}


static gboolean
counters_read (gint leader, guint64 * cpu_ns, guint64 * faults)
{
  /* nr, then the values in the order they joined */
  guint64 values[3];

  if (read (leader, values, sizeof (values)) != (gssize) sizeof (values) ||
      values[0] != 2)
    return FALSE;
  *cpu_ns = values[1];
  *faults = values[2];
  return TRUE;
}

/* A thread's CPU (and faults, when @faults is set) now, or as it ended.
 * census_lock held. */
static gboolean
census_read (CensusThread * c, guint64 * cpu_ns, guint64 * faults)
{
  guint64 f = 0;

  if (c->final_known) {
    *cpu_ns = c->final_cpu_ns;
    f = c->final_faults;
  } else if (c->perf_fd >= 0) {
    guint64 task_clock;

    if (!counters_read (c->perf_fd, &task_clock, &f))
      return FALSE;
    /* the counters count from their opening; CPU from the thread's clock
     * while it lives (the task clock keeps the time a hypervisor stole,
     * which the thread clock and getrusage leave out) */
    if (c->gone || !thread_cpu_ns (c->tid, cpu_ns))
      *cpu_ns = task_clock + c->perf_cpu0_ns;
    f += c->perf_faults0;
  } else if (c->gone || !thread_cpu_ns (c->tid, cpu_ns)) {
    return FALSE;
  } else if (faults) {
    (void) thread_faults (c->tid, &f);
  }
  if (faults)
    *faults = f;
  return TRUE;
}

/* @c is no longer in the task list: its last figures are kept, its
 * counters closed, and its id freed for a thread that reuses it.
 * census_lock held. */
static void
census_gone (CensusThread * c)
{
  if (c->perf_fd >= 0) {
    c->final_known = counters_read (c->perf_fd, &c->final_cpu_ns,
        &c->final_faults);
    c->final_cpu_ns += c->perf_cpu0_ns;
    c->final_faults += c->perf_faults0;
    close (c->perf_fd);
    close (c->perf_member_fd);
    c->perf_fd = c->perf_member_fd = -1;
  }
  c->gone = TRUE;
  g_hash_table_remove (census_by_tid, GINT_TO_POINTER (c->tid));
}

static void
thread_name (gint tid, gchar * name)
{
  gchar path[64];
  gchar *contents = NULL;
  gsize len = 0;

  g_snprintf (path, sizeof (path), TASK_DIR "/%d/comm", tid);
  name[0] = '\0';
  if (g_file_get_contents (path, &contents, &len, NULL)) {
    g_strchomp (contents);
    g_strlcpy (name, contents, TRACE_THREAD_NAME_SIZE);
  }
  g_free (contents);
}

static void
own_name (gchar * name)
{
  name[0] = '\0';
#ifdef __linux__
  if (prctl (PR_GET_NAME, name, 0, 0, 0) != 0)
    name[0] = '\0';
  name[TRACE_THREAD_NAME_SIZE - 1] = '\0';
#endif
}

/* Attaches @c's perf counters, so that its CPU outlives it: for the
 * threads whose CPU is someone's (workers, pools, the simulator's), not
 * for every thread the census lists, as opening them costs a hundred us.
 * census_lock held. */
static void
census_watch (CensusThread * c)
{
  if (c->perf_fd >= 0 || c->gone)
    return;
  c->perf_fd = counters_open (c->tid, &c->perf_member_fd);
  /* what the thread used before its counters were opened */
  if (c->perf_fd >= 0 && (!thread_cpu_ns (c->tid, &c->perf_cpu0_ns) ||
          !thread_faults (c->tid, &c->perf_faults0))) {
    close (c->perf_fd);
    close (c->perf_member_fd);
    c->perf_fd = c->perf_member_fd = -1;
  }
}

/* census_lock held */
static CensusThread *
census_add (gint tid)
{
  CensusThread *c = g_new0 (CensusThread, 1);

  c->tid = tid;
  c->index = census->len;
  c->perf_fd = c->perf_member_fd = -1;
  thread_name (tid, c->name);
  if (g_str_has_prefix (c->name, SIMULATOR_THREAD_PREFIX))
    c->kind = CENSUS_SIMULATOR;
  else if (g_str_has_prefix (c->name, POOL_THREAD_PREFIX))
    c->kind = CENSUS_POOL;
  if (c->kind != CENSUS_OTHER)
    census_watch (c);
  g_ptr_array_add (census, c);
  g_hash_table_insert (census_by_tid, GINT_TO_POINTER (tid), c);
  return c;
}

/* @name is a context's tag: the context it names, or NULL. census_lock
 * held. */
static ContextTag *
context_tag_of (const gchar * name)
{
  gchar *end = NULL;
  guint64 id;

  if (context_tags == NULL || !g_str_has_prefix (name, TAG_PREFIX))
    return NULL;
  id = g_ascii_strtoull (name + strlen (TAG_PREFIX), &end, 16);
  if (end == name + strlen (TAG_PREFIX) || *end != '\0' ||
      id >= context_tags->len)
    return NULL;
  return &g_array_index (context_tags, ContextTag, id);
}

/* Whether another live thread that runs the hooks has @name: a thread
 * with that name could be either's. census_lock held. */
static gboolean
name_shared (const gchar * name, gint self_tid)
{
  guint i;

  for (i = 0; i < census->len; i++) {
    CensusThread *c = g_ptr_array_index (census, i);

    if (c->hooked && !c->gone && c->tid != self_tid &&
        strcmp (c->name, name) == 0)
      return TRUE;
  }
  return FALSE;
}

/* Lists the threads; those not seen before are added and attributed: to
 * the context whose tag they carry, else, when they carry the scanning
 * thread's name and no other streaming thread has that name, to @owner.
 * Returns how many were new. census_lock held. */
static guint
census_scan_locked (ElementState * owner, const gchar * how)
{
  gchar self_name[TRACE_THREAD_NAME_SIZE];
  struct dirent *de;
  DIR *dir;
  guint added = 0, i;
  gint self_tid = axprof_gettid ();
  ContextTag *tag;

  dir = opendir (TASK_DIR);
  if (dir == NULL)
    return 0;
  own_name (self_name);
  /* a tagged thread's own name is the one it had */
  tag = context_tag_of (self_name);
  if (tag != NULL)
    g_strlcpy (self_name, tag->name, sizeof (self_name));
  census_listing++;
  while ((de = readdir (dir)) != NULL) {
    gint tid;
    CensusThread *c;

    if (de->d_name[0] < '0' || de->d_name[0] > '9')
      continue;
    tid = (gint) g_ascii_strtoll (de->d_name, NULL, 10);
    c = g_hash_table_lookup (census_by_tid, GINT_TO_POINTER (tid));
    if (c != NULL) {
      c->listed = census_listing;
      continue;
    }
    c = census_add (tid);
    c->listed = census_listing;
    added++;
    tag = context_tag_of (c->name);
    if (tag != NULL) {
      gchar path[64];
      FILE *f;

      c->tag = (guint) (tag - &g_array_index (context_tags, ContextTag, 0)) + 1;
      c->owner = tag->owner;
      /* its creator's name, as it would have had */
      g_strlcpy (c->name, tag->name, sizeof (c->name));
      g_snprintf (path, sizeof (path), TASK_DIR "/%d/comm", tid);
      if ((f = fopen (path, "we")) != NULL) {
        fputs (c->name, f);
        fclose (f);
      }
      if (c->kind == CENSUS_OTHER)
        c->kind = CENSUS_WORKER;
      census_watch (c);
    } else if (owner != NULL && c->kind != CENSUS_POOL &&
        self_name[0] != '\0' && (c->kind == CENSUS_SIMULATOR ||
            (strcmp (c->name, self_name) == 0 &&
                !name_shared (self_name, self_tid)))) {
      c->owner = owner;
      if (c->kind == CENSUS_OTHER)
        c->kind = CENSUS_WORKER;
      census_watch (c);
    }
    GST_INFO ("thread %d '%s' found by '%s' (%s): %s", tid, c->name,
        self_name, how ? how : "scan", c->owner ? c->owner->name : "nobody's");
  }
  closedir (dir);
  /* a listing can skip a live thread while others exit (the folder is
   * read by position): one it missed is gone only if the kernel no
   * longer knows its clock */
  for (i = 0; i < census->len; i++) {
    CensusThread *c = g_ptr_array_index (census, i);
    guint64 cpu;

    if (!c->gone && c->listed != census_listing &&
        !thread_cpu_ns (c->tid, &cpu))
      census_gone (c);
  }
  return added;
}

/* GLib names its pool threads once they run: one found before that is a
 * pool's all the same. Before the pool accounting and the report only:
 * it reads a file per thread. census_lock held. */
static void
census_find_late_pools_locked (void)
{
  guint i;

  for (i = 0; i < census->len; i++) {
    CensusThread *c = g_ptr_array_index (census, i);

    if (!c->gone && !c->hooked && c->kind == CENSUS_OTHER &&
        c->owner == NULL && c->tag == 0) {
      thread_name (c->tid, c->name);
      if (g_str_has_prefix (c->name, POOL_THREAD_PREFIX)) {
        c->kind = CENSUS_POOL;
        census_watch (c);
      }
    }
  }
}

void
axprof_census_init (void)
{
  g_mutex_lock (&census_lock);
  if (census == NULL) {
    census = g_ptr_array_new ();
    census_by_tid = g_hash_table_new (NULL, NULL);
    /* what runs before the tracer is nobody's worker */
    census_scan_locked (NULL, NULL);
  }
  g_mutex_unlock (&census_lock);
}

void
axprof_census_hooked (ThreadState * t)
{
  gint tid = axprof_gettid ();
  CensusThread *c;

  g_mutex_lock (&census_lock);
  if (census == NULL) {
    g_mutex_unlock (&census_lock);
    return;
  }
  c = g_hash_table_lookup (census_by_tid, GINT_TO_POINTER (tid));
  if (c == NULL)
    c = census_add (tid);
  /* a pool thread that runs a task now is a streaming thread; what it
   * computed for a pool before stays attributed */
  c->hooked = TRUE;
  t->census = c;
  g_mutex_unlock (&census_lock);
}

/* A hooked thread ends: its CPU and faults are kept as they are now. */
void
axprof_census_thread_exit (ThreadState * t)
{
  CensusThread *c = t->census;
  guint64 cpu = 0, faults = 0;

  if (c == NULL)
    return;
  /* the thread's own clocks: the probe's reader may be torn down first */
  (void) thread_cpu_ns (c->tid, &cpu);
  (void) thread_faults (c->tid, &faults);
  g_mutex_lock (&census_lock);
  if (c->perf_fd < 0) {
    c->final_cpu_ns = cpu;
    c->final_faults = faults;
    c->final_known = TRUE;
  }
  g_mutex_unlock (&census_lock);
}

/* The pipeline a hooked thread works for (on its first row of it). */
void
axprof_census_thread_serves (ThreadState * t, PipelineState * p)
{
  CensusThread *c = t->census;
  guint i;

  if (c == NULL)
    return;
  g_mutex_lock (&census_lock);
  for (i = 0; i < c->n_pipes; i++)
    if (c->pipes[i] == p)
      break;
  if (i == c->n_pipes && c->n_pipes < CENSUS_MAX_PIPES)
    c->pipes[c->n_pipes++] = p;
  g_mutex_unlock (&census_lock);
}

void
axprof_census_scan (ElementState * owner, const gchar * how)
{
  g_mutex_lock (&census_lock);
  if (census != NULL)
    census_scan_locked (owner, how);
  g_mutex_unlock (&census_lock);
}

/* The element whose work @t is doing: its innermost creation context
 * (an element receiving caps or EOS, or changing state) where it is
 * known, else its open call. */
static ElementState *
census_current_owner (ThreadState * t)
{
  ElementState *ctx = t->n_ctx > 0 ?
      t->ctx[MIN (t->n_ctx, MAX_CENSUS_CONTEXTS) - 1] : NULL;

  /* an event whose receiver is not known (no element behind the pad)
   * leaves the element that is running on the thread */
  if (ctx != NULL)
    return ctx;
  if (t->depth > 0)
    return t->stack[t->depth - 1].row->elem;
  if (t->loop_open)
    return t->loop.row->elem;
  return NULL;
}

/* Names the calling thread after a new context of @owner; its name
 * before goes to @saved. */
static guint
context_tag_enter (ElementState * owner, gchar * saved)
{
#ifdef __linux__
  ContextTag tag = { owner, "" };
  gchar name[TRACE_THREAD_NAME_SIZE];
  ContextTag *outer;
  guint id;

  own_name (saved);
  g_mutex_lock (&census_lock);
  if (context_tags == NULL)
    context_tags = g_array_new (FALSE, TRUE, sizeof (ContextTag));
  /* nested: the name under the outer context's tag */
  outer = context_tag_of (saved);
  g_strlcpy (tag.name, outer ? outer->name : saved, sizeof (tag.name));
  if (free_tags != NULL && free_tags->len > 0) {
    id = g_array_index (free_tags, guint, free_tags->len - 1);
    g_array_set_size (free_tags, free_tags->len - 1);
    g_array_index (context_tags, ContextTag, id) = tag;
  } else {
    id = context_tags->len;
    g_array_append_val (context_tags, tag);
  }
  g_snprintf (name, sizeof (name), TAG_PREFIX "%x", id);
  g_mutex_unlock (&census_lock);
  (void) prctl (PR_SET_NAME, name, 0, 0, 0);
  return id + 1;
#else
  saved[0] = '\0';
  return 0;
#endif
}

static void
context_tag_leave (const gchar * saved)
{
#ifdef __linux__
  if (saved[0] != '\0')
    (void) prctl (PR_SET_NAME, saved, 0, 0, 0);
#endif
}

void
axprof_census_context_enter (ThreadState * t, ElementState * ei,
    const gchar * how)
{
  axprof_census_scan (census_current_owner (t), how);
  if (t->n_ctx < MAX_CENSUS_CONTEXTS) {
    t->ctx[t->n_ctx] = ei;
    t->ctx_tags[t->n_ctx] = context_tag_enter (ei, t->ctx_names[t->n_ctx]);
  }
  t->n_ctx++;
}

void
axprof_census_context_leave (ThreadState * t, const gchar * how)
{
  guint top, tag, i;

  if (t->n_ctx == 0)
    return;
  top = t->n_ctx - 1;
  tag = top < MAX_CENSUS_CONTEXTS ? t->ctx_tags[top] : 0;
  /* an owner learnt only now (see the pad hooks) is the tag's too, for
   * the threads listed before */
  if (tag > 0 && t->ctx[top]) {
    g_mutex_lock (&census_lock);
    g_array_index (context_tags, ContextTag, tag - 1).owner = t->ctx[top];
    g_mutex_unlock (&census_lock);
  }
  axprof_census_scan (census_current_owner (t), how);
  t->n_ctx--;
  if (t->n_ctx < MAX_CENSUS_CONTEXTS)
    context_tag_leave (t->ctx_names[t->n_ctx]);
  if (tag == 0)
    return;
  /* every thread the context started is listed now: the tag's owner is
   * theirs, and the tag can name another context */
  g_mutex_lock (&census_lock);
  for (i = 0; census != NULL && i < census->len; i++) {
    CensusThread *c = g_ptr_array_index (census, i);

    if (c->tag == tag) {
      if (c->owner == NULL)
        c->owner = g_array_index (context_tags, ContextTag, tag - 1).owner;
      c->tag = 0;
    }
  }
  if (free_tags == NULL)
    free_tags = g_array_new (FALSE, FALSE, sizeof (guint));
  tag--;
  g_array_append_val (free_tags, tag);
  g_mutex_unlock (&census_lock);
}

/* ---------------------------------------------------------------- pools */

static gboolean
is_pool_candidate (const CensusThread * c)
{
  return c->kind == CENSUS_POOL && !c->hooked && !c->gone;
}

/* Called where a segment of a pool-using element's call starts (@begin)
 * or ends: the pool threads' CPU since the last boundary goes to the
 * segments that were running, in equal parts, or is left unattributed
 * when none was. */
void
axprof_pool_boundary (ElementState * ei, gboolean begin)
{
  guint64 delta_total = 0;
  guint i;

  g_mutex_lock (&census_lock);
  if (census == NULL) {
    g_mutex_unlock (&census_lock);
    return;
  }
  if (!begin) {
    guint calls = ++ei->pool_calls;

    if (calls <= POOL_SCAN_FIRST_CALLS || calls % POOL_SCAN_EVERY == 0) {
      census_scan_locked (NULL, NULL);
      census_find_late_pools_locked ();
    }
  }
  for (i = 0; i < census->len; i++) {
    CensusThread *c = g_ptr_array_index (census, i);
    guint64 cpu, d;
    guint k;

    if (!is_pool_candidate (c) || !census_read (c, &cpu, NULL))
      continue;
    d = cpu > c->pool_last_ns ? cpu - c->pool_last_ns : 0;
    c->pool_last_ns = cpu;
    if (d == 0)
      continue;
    delta_total += d;
    for (k = 0; k < n_pool_open; k++)
      pool_open[k]->pool_threads |= G_GUINT64_CONSTANT (1) << (c->index % 64);
  }
  if (n_pool_open == 0) {
    pool_unattributed_ns += delta_total;
  } else {
    guint64 share = delta_total / n_pool_open, given = 0;

    for (i = 0; i < n_pool_open; i++) {
      guint64 part = i + 1 == n_pool_open ? delta_total - given : share;

      pool_open[i]->pool_cpu_ns += part;
      given += part;
    }
  }
  if (begin) {
    if (n_pool_open < MAX_OPEN_POOL_SEGMENTS)
      pool_open[n_pool_open++] = ei;
  } else {
    for (i = 0; i < n_pool_open; i++) {
      if (pool_open[i] == ei) {
        pool_open[i] = pool_open[--n_pool_open];
        break;
      }
    }
  }
  g_mutex_unlock (&census_lock);
}

/* Whether @element hands its work to a GLib thread pool: the video
 * converter's n-threads, the compositor's max-threads (0 = one per
 * core). Read at registration and at each caps event, never per
 * buffer. */
static gboolean
element_uses_pool (GstElement * element)
{
  GObjectClass *klass = G_OBJECT_GET_CLASS (element);
  GParamSpec *pspec;
  guint n = 1;

  if ((pspec = g_object_class_find_property (klass, "n-threads")) != NULL &&
      pspec->value_type == G_TYPE_UINT) {
    g_object_get (element, "n-threads", &n, NULL);
    return n != 1;
  }
  if ((pspec = g_object_class_find_property (klass, "max-threads")) != NULL &&
      pspec->value_type == G_TYPE_UINT &&
      g_type_is_a (G_OBJECT_TYPE (element),
          g_type_from_name ("GstVideoAggregator"))) {
    g_object_get (element, "max-threads", &n, NULL);
    return n != 1;
  }
  return FALSE;
}

void
axprof_element_check_pool (ElementState * ei)
{
  GstElement *e = ei->element;
  gboolean pool;

  if (e == NULL)
    return;
  pool = element_uses_pool (e);
  /* an aggregator's sink pads only queue: it works in its task loop */
  __atomic_store_n (&ei->chain_row->pool, pool && !ei->is_aggregator,
      __ATOMIC_RELAXED);
  __atomic_store_n (&ei->loop_row->pool, pool, __ATOMIC_RELAXED);
}

/* ---------------------------------------------------------------- runs */

/* Where a run starts (READY to PAUSED, a section's start): every
 * thread's CPU and faults now, which the report subtracts, the pool CPU
 * its elements had, and the process's CPU. p->lock held. */
void
axprof_census_snapshot (PipelineState * p)
{
  guint i;

  g_mutex_lock (&census_lock);
  if (census == NULL) {
    g_mutex_unlock (&census_lock);
    return;
  }
  census_scan_locked (NULL, NULL);
  if (p->thread_base == NULL)
    p->thread_base = g_array_new (FALSE, TRUE, sizeof (ThreadBase));
  g_array_set_size (p->thread_base, 0);
  for (i = 0; i < census->len; i++) {
    CensusThread *c = g_ptr_array_index (census, i);
    ThreadBase b = { c, 0, 0 };

    if (c->gone || !census_read (c, &b.cpu_ns, &b.faults))
      continue;
    g_array_append_val (p->thread_base, b);
  }
  for (i = 0; i < p->elems->len; i++) {
    ElementState *ei = g_ptr_array_index (p->elems, i);

    ei->pool_cpu_base_ns = ei->pool_cpu_ns;
    ei->pool_threads = 0;
  }
  p->pool_unattributed_base_ns = pool_unattributed_ns;
  p->census_len_at_start = census->len;
  g_mutex_unlock (&census_lock);
  p->acct_cpu0_ns = axprof_process_cpu_ns ();
}

static const ThreadBase *
base_of (const PipelineState * p, const CensusThread * c)
{
  guint i;

  for (i = 0; p->thread_base && i < p->thread_base->len; i++) {
    const ThreadBase *b = &g_array_index (p->thread_base, ThreadBase, i);

    if (b->thread == c)
      return b;
  }
  return NULL;
}

static gboolean
serves (const CensusThread * c, const PipelineState * p)
{
  guint i;

  for (i = 0; i < c->n_pipes; i++)
    if (c->pipes[i] == p)
      return TRUE;
  return FALSE;
}

/* Each thread's CPU and faults over @p's run, with whom it belongs to:
 * @p's streaming threads, its elements' workers (created ones and the
 * pool CPU their calls took), sim-npu's threads of its devices, and,
 * when @alone (no other pipeline ran meanwhile), the threads nobody
 * owns. Threads that ended without a hook reading them last are not
 * listed (the report counts the process's CPU apart). axprof_global_lock
 * and p->lock held. */
void
axprof_census_account (PipelineState * p, gboolean alone, GArray * out)
{
  guint i;

  g_array_set_size (out, 0);
  g_mutex_lock (&census_lock);
  if (census == NULL) {
    g_mutex_unlock (&census_lock);
    return;
  }
  census_scan_locked (NULL, NULL);
  census_find_late_pools_locked ();
  for (i = 0; i < census->len; i++) {
    CensusThread *c = g_ptr_array_index (census, i);
    const ThreadBase *b = base_of (p, c);
    ThreadUse u = { 0, };
    guint64 cpu = 0, faults = 0;
    gboolean mine;

    /* a context whose receiver was linked only as it ended */
    if (c->owner == NULL && c->tag > 0)
      c->owner = g_array_index (context_tags, ContextTag, c->tag - 1).owner;
    if (c->kind == CENSUS_WORKER && c->owner == NULL)
      c->kind = CENSUS_OTHER;
    if (c->hooked)
      mine = serves (c, p) || (alone && c->n_pipes == 0);
    else if (c->owner)
      mine = c->owner->pipe == p;
    else
      mine = alone;
    /* known then but not in the snapshot: it had ended before the run
     * (or belongs to the process this one was forked from) */
    if (!mine || (b == NULL && c->index < p->census_len_at_start))
      continue;
    if (!census_read (c, &cpu, &faults))
      continue;
    /* a task's thread takes its task's name once it runs it; a thread in
     * a context is known by its own name */
    if (!c->gone) {
      gchar name[TRACE_THREAD_NAME_SIZE];
      ContextTag *t;

      thread_name (c->tid, name);
      t = context_tag_of (name);
      g_strlcpy (c->name, t ? t->name : name, sizeof (c->name));
    }
    u.tid = c->tid;
    g_strlcpy (u.name, c->name, sizeof (u.name));
    u.kind = c->hooked ? CENSUS_HOOKED : c->kind;
    u.owner = c->hooked ? NULL : c->owner;
    u.cpu_ns = b && cpu > b->cpu_ns ? cpu - b->cpu_ns : (b ? 0 : cpu);
    u.faults = b && faults > b->faults ? faults - b->faults : (b ? 0 : faults);
    g_array_append_val (out, u);
  }
  g_mutex_unlock (&census_lock);
}

/* Pool CPU nobody's call was running for, over @p's run (census_lock
 * taken here). */
guint64
axprof_pool_unattributed_ns (PipelineState * p)
{
  guint64 v;

  g_mutex_lock (&census_lock);
  v = pool_unattributed_ns - p->pool_unattributed_base_ns;
  g_mutex_unlock (&census_lock);
  return v;
}

/* The pool CPU @ei's calls took over its pipeline's run, and how many
 * pool threads computed for it (census_lock taken here). */
void
axprof_pool_share (ElementState * ei, guint64 * cpu_ns, guint * threads)
{
  g_mutex_lock (&census_lock);
  *cpu_ns = ei->pool_cpu_ns - ei->pool_cpu_base_ns;
  *threads = (guint) __builtin_popcountll (ei->pool_threads);
  g_mutex_unlock (&census_lock);
}
