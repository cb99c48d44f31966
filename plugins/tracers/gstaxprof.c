/* gst-ax
 * Copyright (C) 2026 gst-ax developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

/**
 * SECTION:tracer-axprof
 * @title: axprof
 * @short_description: per-element benchmark report printed at EOS
 *
 * Measures every element's exclusive wall time, thread CPU time and minor
 * page faults per buffer, stage rows reported through the gst/ax probe API,
 * end-to-end latency, queue depth, throughput and device occupancy, and
 * prints the benchmark report when the pipeline reaches EOS (or stops
 * without it).
 *
 * ## Example launch line
 * |[
 * GST_TRACERS=axprof gst-launch-1.0 -e videotestsrc num-buffers=300 ! \
 *     queue ! videoconvert ! fakesink
 * GST_TRACERS="axprof(json=report.json,sample=16)" gst-launch-1.0 -e ...
 * ]|
 *
 * Params: `file=PATH` (append the text report there instead of stdout),
 * `json=PATH` (write the JSON twin; later reports of the same process go
 * to PATH.2, PATH.3, ...), `perfetto=PATH` (a timeline in Chrome
 * trace-event JSON for the Perfetto UI), `sample=N` (CPU and faults on
 * every Nth call per row and thread, wall on every call),
 * `allow-debug=true` (report timings even though DEBUG logging was on).
 *
 * Hot path: state is per thread (a stack of open spans) and per row and
 * thread (sums, min, max; a log-linear latency histogram for sinks), so no
 * lock is taken per buffer except the per-queue lock of queue elements.
 * Everything is merged when the report is made. Memory is bounded: the
 * histogram has a fixed number of buckets whatever the run length.
 */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstaxprof.h"

#include <gst/ax/ax.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>

GST_DEBUG_CATEGORY_STATIC (gst_ax_prof_debug);
#define GST_CAT_DEFAULT gst_ax_prof_debug

/* Threads that can record at the same time; a thread beyond this is not
 * measured and the report says how many records were dropped. */
#define MAX_THREAD_SLOTS 64
/* Nested pushes per thread (chain -> push -> chain ...). */
#define MAX_DEPTH 64
/* End-to-end latency matching (see the latency section): buffers
 * remembered per pad where frames enter, rings per pipeline (a ring per
 * entering pad and stream), entering pads per element, and how far back
 * past a candidate a lookup still looks for a closer running time. */
#define LATENCY_RING_SIZE 1024
#define MAX_LATENCY_RINGS 32
#define MAX_RINGS_PER_ELEMENT 8
#define LATENCY_REORDER_WINDOW 32
#define LATENCY_RING_TIMED 1
#define LATENCY_RING_UNTIMED 2
/* event nesting levels tracked for segment and stream-start pushes */
#define MAX_TRACKED_EVENT_DEPTH 64
/* Log-linear histogram: 2^HIST_SUB_BITS sub-buckets per power of two,
 * so a percentile is within 1/2^(HIST_SUB_BITS+1) (0.8%) of the truth. */
#define HIST_SUB_BITS 6
#define HIST_SUB (1 << HIST_SUB_BITS)
#define HIST_BUCKETS ((64 - HIST_SUB_BITS + 1) * HIST_SUB)
#define CALIBRATION_ROUNDS 256
/* Timeline (perfetto=): the latest events kept per thread slot and per
 * device, so a long run keeps its most recent stretch in bounded memory. */
#define TRACE_RING_SIZE (1 << 15)
#define DEVICE_RING_SIZE (1 << 14)
#define TRACE_PID_HOST 1
#define TRACE_PID_DEVICE 2
#define NS_PER_US 1e3
#define CALIBRATION_PASSES 4
#define NS_PER_MS 1e6
#define NS_PER_S 1e9
#define BYTES_PER_MB (1024.0 * 1024.0)
#define KB_PER_MB 1024.0

/* Verdict thresholds, documented in docs/reading-the-report.md. */
#define DEVICE_BOUND_OCCUPANCY_PERCENT 80.0
#define QUEUE_FULL_PERCENT 50.0
#define QUEUE_EMPTY_PERCENT 50.0
#define SUBMISSION_DEPTH_RATIO 0.8
#define WINDOW_BOUND_DEPTH_RATIO 0.9
#define CHECK_TOLERANCE 0.10
#define ALLOCATING_FAULTS_PER_CALL 10.0
/* The simulator falls behind its device model when its outputs come, per
 * job, later than both this fraction of the modelled device time and
 * this many ms (more than a thread's wake-up). */
#define SIM_LAG_PACE_RATIO 0.10
#define SIM_LAG_PACE_MS 0.5
#define PERCENT 100.0

typedef struct _PipeRec PipeRec;
typedef struct _ElemInfo ElemInfo;

typedef enum
{
  ROW_CHAIN,
  ROW_LOOP,
  ROW_PROBE,
} RowKind;

typedef struct
{
  guint64 n;
  guint64 min_ns;
  guint64 max_ns;
  gdouble sum_ns;
  gdouble sumsq_ns;
  /* sink buffers that matched no entering frame */
  guint64 unmatched;
  guint32 buckets[HIST_BUCKETS];
} LatHist;

/* One row's figures as seen by one thread; written by that thread only. */
typedef struct
{
  guint64 count;
  guint64 items;
  guint64 wall_sum_ns;
  guint64 wall_min_ns;
  guint64 wall_max_ns;
  guint64 usage_count;
  guint64 cpu_sum_ns;
  guint64 faults_sum;
  guint64 reads;
  guint64 blocked_ns;
  guint64 first_seen_ns;
  guint countdown;
  LatHist *lat;
} RowStats;

typedef struct
{
  PipeRec *pipe;
  ElemInfo *elem;
  RowKind kind;
  gchar *stage;
  gchar *group;
  GstAxProbeFlags probe_flags;
  /* slot i written by the thread holding slot i; published atomically */
  RowStats *slots[MAX_THREAD_SLOTS];
} Row;

typedef struct
{
  gchar *name;
  ElemInfo *elem;
  GMutex lock;
  /* protected by lock */
  gint64 depth;
  guint64 last_ns;
  guint64 first_ns;
  gdouble area;
  guint64 at_max_ns;
  gint64 min;
  gint64 max;
  gboolean seen;
  guint max_size_buffers;
} QueueRec;

typedef struct
{
  /* latency_timed_key() or latency_untimed_key(); 0 while written */
  guint64 key;
  /* when the frame entered */
  guint64 ts;
  guint64 dur;
} LatEntry;

typedef struct
{
  /* set before the ring is published, then constant */
  ElemInfo *src;
  GstPad *pad;
  const gchar *stream_id;
  /* written and read by the pad's streaming thread only */
  GstSegment seg;
  gboolean have_seg;
  guint gen;
  /* set once by the writer: the ring holds timed (1) or untimed (2)
   * entries, so that a lookup skips rings that cannot hold its key */
  guint kinds;
  guint64 head;
  LatEntry entries[LATENCY_RING_SIZE];
} LatRing;

typedef struct
{
  guint core;
  guint64 job;
  guint64 start_ns;
  guint64 end_ns;
  guint32 run;
} DeviceTraceEvent;

typedef struct
{
  gchar *group;
  ElemInfo *elem;
  GMutex lock;
  /* protected by lock */
  gchar *device;
  guint n_cores;
  guint window;
  guint64 jobs_done;
  guint64 sim_cpu_ns;
  guint64 lag_ns;
  guint64 busy_ns;
  guint64 events;
  guint64 min_job;
  guint64 max_job;
  guint64 union_ns;
  guint64 cur_start;
  guint64 cur_end;
  guint64 first_start;
  guint64 last_end;
  DeviceTraceEvent *trace;
  guint64 trace_head;
} DevRec;

typedef enum
{
  QUEUE_NONE,
  QUEUE_SINGLE,
  QUEUE_MULTI,
} QueueKind;

struct _ElemInfo
{
  /* cleared under global_lock when the element is finalized */
  GstElement *element;
  gchar *name;
  PipeRec *pipe;
  gboolean is_source;
  gboolean is_sink;
  gboolean is_basesrc;
  QueueKind queue_kind;
  QueueRec *queue;
  /* rings of the pads where frames enter; written under pipe->lock */
  LatRing *pad_rings[MAX_RINGS_PER_ELEMENT];
  gint n_pad_rings;
  /* a sink's stream and segment, written by its streaming thread */
  guint sink_gen;
  GstPad *sink_pad;
  const gchar *sink_stream;
  GstSegment sink_seg;
  gboolean sink_have_seg;
  Row *chain_row;
  Row *loop_row;
  guint order;
  gchar *bin_group;
  /* protected by pipe->lock */
  gchar *model_group;
};

struct _PipeRec
{
  GstElement *pipeline;
  gchar *name;
  gboolean is_pipeline;
  GMutex lock;
  /* protected by lock; entries never freed while the process runs */
  GPtrArray *rows;
  GPtrArray *elems;
  GPtrArray *queues;
  GPtrArray *devices;
  LatRing *rings[MAX_LATENCY_RINGS];
  gint n_rings;
  /* run bounds */
  guint64 first_ts;
  guint64 first_probe_ns;
  guint64 cpu0_ns;
  guint64 end_probe_ns;
  guint64 cpu1_ns;
  gboolean started;
  gboolean reported;
  guint32 run;
  guint64 log_count0;
  gchar *debug_at_start;
};

typedef struct
{
  Row *row;
  RowStats *st;
  GstPad *pull_pad;
  /* buffers the call brought in (a list's length) */
  guint items;
  guint64 open_ts;
  guint64 seg_start;
  gint64 acc_wall;
  gint64 acc_cpu;
  gint64 acc_faults;
  guint64 cpu0;
  guint64 faults0;
  gboolean sampled;
  /* the call brought buffers without timestamps (bytes to a parser) */
  gboolean untimed_in;
} Frame;

typedef struct
{
  Row *row;
  guint64 start;
  guint64 dur;
  guint32 run;
  /* start is on the probe clock (a reported stage), else a hook time */
  gboolean probe_clock;
} TraceEvent;

/* written by the thread holding the slot only */
typedef struct
{
  guint64 head;
  TraceEvent events[TRACE_RING_SIZE];
} TraceRing;

/* Per-thread memo of the last stage rows and devices looked up: the
 * probe API promises static or interned stage strings, so the pointers
 * are the key, and element infos, rows and devices are never freed. */
#define PROBE_CACHE_SIZE 16

typedef struct
{
  ElemInfo *ei;
  const gchar *stage;
  const gchar *group;
  gpointer value;
} ProbeCacheEntry;

/* Per-thread memo of pad parent -> element info, so the per-buffer hooks
 * skip g_object_get_qdata() (a bit lock taken and released, two atomic
 * read-modify-writes, and a list walk). An entry is trusted only while
 * its info still names that parent: an info outlives its element and
 * forgets it when the element is finalized, so an element allocated
 * later at the same address misses and is looked up afresh. Size a power
 * of two. */
#define ELEM_CACHE_SIZE 64
#define ELEM_CACHE_SHIFT 6

typedef struct
{
  GstObject *parent;
  ElemInfo *ei;
} ElemCacheEntry;

typedef struct
{
  gint slot;
  ElemCacheEntry elems[ELEM_CACHE_SIZE];
  ProbeCacheEntry rows[PROBE_CACHE_SIZE];
  ProbeCacheEntry devs[PROBE_CACHE_SIZE];
  guint event_depth;
  /* bit d: the event pushed at nesting level d is a segment or a
   * stream-start */
  guint64 sticky_events;
  guint depth;
  guint skipped;
  Frame stack[MAX_DEPTH];
  Frame loop;
  gboolean loop_open;
  gboolean pending;
  guint64 pending_cpu;
  guint64 pending_faults;
} ThreadState;

struct _GstAxProf
{
  GstTracer parent;

  gchar *file;
  gchar *json;
  gchar *perfetto;
  guint n_perfetto;
  guint sample;
  gboolean allow_debug;
  guint n_json;
  guint probe_sink;
  gdouble read_cost_ns;
  gdouble hook_cost_ns;
};

G_DEFINE_TYPE (GstAxProf, gst_ax_prof, GST_TYPE_TRACER);

static GMutex global_lock;
/* bumped after every segment or stream-start push, so that the latency
 * code re-reads the stream-id and segment of a pad only when they may
 * have changed */
static guint latency_gen;
static GQuark elem_quark;
static GQuark pad_queue_quark;
/* protected by global_lock */
static GPtrArray *pipes;
static GstAxProf *the_tracer;
static guint sample_every = 1;

static GMutex slot_lock;
static gboolean slot_used[MAX_THREAD_SLOTS];
/* one ring per thread slot, allocated on first use when tracing */
static TraceRing *trace_rings[MAX_THREAD_SLOTS];
static gboolean trace_on;
static TraceRing *trace_ring_new (gint slot);
static guint64 dropped_records;

static guint64 debug_log_count;
static GType pad_type;

static void thread_state_free (gpointer data);
static GPrivate thread_key = G_PRIVATE_INIT (thread_state_free);
static __thread ThreadState *tls_state;

/* Shared sink for threads beyond MAX_THREAD_SLOTS: written racily and
 * never reported. */
static RowStats overflow_stats;

/* ---------------------------------------------------------------- threads */

/* CPU time and faults of the calling thread, exactly: the probe API's
 * reader (a per-thread perf group of task clock and minor faults, one
 * syscall, where perf_event_open() is allowed; else the thread CPU clock
 * and getrusage's fault counter), so a stage subtracted from its
 * element's span uses the same clock. */
static inline void
thread_usage (ThreadState * t, guint64 * cpu, guint64 * faults)
{
  gst_ax_probe_thread_usage (cpu, faults);
}

static void
thread_state_free (gpointer data)
{
  ThreadState *t = data;

  if (t->slot >= 0) {
    g_mutex_lock (&slot_lock);
    slot_used[t->slot] = FALSE;
    g_mutex_unlock (&slot_lock);
  }
  g_free (t);
}

static ThreadState *
thread_state_new (void)
{
  ThreadState *t = g_new0 (ThreadState, 1);
  gint i;

  t->slot = -1;
  g_mutex_lock (&slot_lock);
  for (i = 0; i < MAX_THREAD_SLOTS; i++) {
    if (!slot_used[i]) {
      slot_used[i] = TRUE;
      t->slot = i;
      break;
    }
  }
  g_mutex_unlock (&slot_lock);
  if (trace_on && t->slot >= 0 && trace_rings[t->slot] == NULL)
    trace_ring_new (t->slot);
  g_private_set (&thread_key, t);
  return t;
}

static inline ThreadState *
thread_state (void)
{
  if (G_UNLIKELY (tls_state == NULL))
    tls_state = thread_state_new ();
  return tls_state;
}

/* ---------------------------------------------------------------- stats */

static RowStats *
row_stats_new (Row * row, ThreadState * t)
{
  RowStats *st = g_new0 (RowStats, 1);

  st->wall_min_ns = G_MAXUINT64;
  st->first_seen_ns = gst_ax_probe_now_ns ();
  if (row->kind == ROW_CHAIN && row->elem && row->elem->is_sink) {
    st->lat = g_new0 (LatHist, 1);
    st->lat->min_ns = G_MAXUINT64;
  }
  __atomic_store_n (&row->slots[t->slot], st, __ATOMIC_RELEASE);
  return st;
}

static inline RowStats *
row_stats (Row * row, ThreadState * t)
{
  RowStats *st;

  if (G_UNLIKELY (t->slot < 0)) {
    __atomic_add_fetch (&dropped_records, 1, __ATOMIC_RELAXED);
    return &overflow_stats;
  }
  st = row->slots[t->slot];
  if (G_UNLIKELY (st == NULL))
    st = row_stats_new (row, t);
  return st;
}

static inline gboolean
take_sample (RowStats * st)
{
  if (G_LIKELY (st->countdown == 0)) {
    st->countdown = sample_every - 1;
    return TRUE;
  }
  st->countdown--;
  return FALSE;
}

static inline void
read_usage (ThreadState * t, RowStats * st, guint64 * cpu, guint64 * faults)
{
  st->reads++;
  thread_usage (t, cpu, faults);
}

static inline void
stats_add (RowStats * st, gint64 wall, gint64 cpu, gint64 faults,
    gboolean sampled)
{
  guint64 w = wall > 0 ? (guint64) wall : 0;

  st->count++;
  st->wall_sum_ns += w;
  if (w < st->wall_min_ns)
    st->wall_min_ns = w;
  if (w > st->wall_max_ns)
    st->wall_max_ns = w;
  if (sampled) {
    st->usage_count++;
    st->cpu_sum_ns += cpu > 0 ? (guint64) cpu : 0;
    st->faults_sum += faults > 0 ? (guint64) faults : 0;
    if (w > (guint64) MAX (cpu, 0))
      st->blocked_ns += w - MAX (cpu, 0);
  }
}

static inline guint
hist_index (guint64 v)
{
  guint e;

  if (v < HIST_SUB)
    return (guint) v;
  e = 63 - __builtin_clzll (v);
  return (e - HIST_SUB_BITS + 1) * HIST_SUB +
      (guint) ((v >> (e - HIST_SUB_BITS)) & (HIST_SUB - 1));
}

static gdouble
hist_value (guint idx)
{
  guint e, sub;
  gdouble lo, width;

  if (idx < HIST_SUB)
    return idx;
  e = idx / HIST_SUB + HIST_SUB_BITS - 1;
  sub = idx % HIST_SUB;
  width = ldexp (1.0, e - HIST_SUB_BITS);
  lo = ldexp (1.0, e) + sub * width;
  return lo + width / 2;
}

static inline void
hist_add (LatHist * h, guint64 v)
{
  h->n++;
  h->sum_ns += v;
  h->sumsq_ns += (gdouble) v *v;
  if (v < h->min_ns)
    h->min_ns = v;
  if (v > h->max_ns)
    h->max_ns = v;
  h->buckets[hist_index (v)]++;
}

/* ---------------------------------------------------------------- identity */

static void
elem_info_gone (gpointer data)
{
  ElemInfo *ei = data;

  g_mutex_lock (&global_lock);
  ei->element = NULL;
  g_mutex_unlock (&global_lock);
}

static void pipe_rec_gone (gpointer data, GObject * where_the_object_was);

static PipeRec *
pipe_rec_get (GstElement * top)
{
  PipeRec *p;
  guint i;

  for (i = 0; i < pipes->len; i++) {
    p = g_ptr_array_index (pipes, i);
    if (p->pipeline == top)
      return p;
  }
  p = g_new0 (PipeRec, 1);
  p->pipeline = top;
  p->name = gst_object_get_name (GST_OBJECT (top));
  p->is_pipeline = GST_IS_PIPELINE (top);
  g_mutex_init (&p->lock);
  p->rows = g_ptr_array_new ();
  p->elems = g_ptr_array_new ();
  p->queues = g_ptr_array_new ();
  p->devices = g_ptr_array_new ();
  g_ptr_array_add (pipes, p);
  g_object_weak_ref (G_OBJECT (top), pipe_rec_gone, p);
  return p;
}

static void
pipe_rec_gone (gpointer data, GObject * where_the_object_was)
{
  PipeRec *p = data;

  g_mutex_lock (&global_lock);
  p->pipeline = NULL;
  g_mutex_unlock (&global_lock);
}

static Row *
row_new (PipeRec * p, ElemInfo * ei, RowKind kind)
{
  Row *row = g_new0 (Row, 1);

  row->pipe = p;
  row->elem = ei;
  row->kind = kind;
  g_ptr_array_add (p->rows, row);
  return row;
}

static guint
pad_index (GstPad * pad)
{
  const gchar *name = GST_OBJECT_NAME (pad);
  const gchar *us = name ? strrchr (name, '_') : NULL;

  return us ? (guint) g_ascii_strtoull (us + 1, NULL, 10) : 0;
}

static QueueRec *
queue_rec_new (PipeRec * p, ElemInfo * ei, const gchar * name)
{
  QueueRec *q = g_new0 (QueueRec, 1);
  GObjectClass *klass = G_OBJECT_GET_CLASS (ei->element);

  q->name = g_strdup (name);
  q->elem = ei;
  g_mutex_init (&q->lock);
  if (g_object_class_find_property (klass, "max-size-buffers"))
    g_object_get (ei->element, "max-size-buffers", &q->max_size_buffers, NULL);
  g_ptr_array_add (p->queues, q);
  return q;
}

/* global_lock held. Walks up to the top-level bin; the child of the top
 * that contains the element names its group when it is a bin the user
 * built (a plain GstBin). A bin that is an element in its own right
 * (decodebin, autovideosink: a GstBin subclass) plugs its children in on
 * the user's behalf, so they are the pipeline's work, not a group. */
static ElemInfo *
elem_info_create (GstElement * element)
{
  GstObject *obj = GST_OBJECT (element), *parent, *below_top = NULL;
  const gchar *factory_name = NULL;
  GstElementFactory *factory;
  ElemInfo *ei;
  PipeRec *p;

  while ((parent = GST_OBJECT_PARENT (obj)) != NULL && GST_IS_ELEMENT (parent)) {
    below_top = obj;
    obj = parent;
  }
  p = pipe_rec_get (GST_ELEMENT (obj));

  ei = g_new0 (ElemInfo, 1);
  ei->element = element;
  ei->name = gst_object_get_name (GST_OBJECT (element));
  ei->pipe = p;
  ei->is_sink = GST_OBJECT_FLAG_IS_SET (element, GST_ELEMENT_FLAG_SINK);
  ei->is_source = GST_OBJECT_FLAG_IS_SET (element, GST_ELEMENT_FLAG_SOURCE);
  ei->is_basesrc = g_type_is_a (G_OBJECT_TYPE (element),
      g_type_from_name ("GstBaseSrc"));
  if (below_top && below_top != GST_OBJECT (element) &&
      G_OBJECT_TYPE (below_top) == GST_TYPE_BIN)
    ei->bin_group = gst_object_get_name (below_top);

  factory = gst_element_get_factory (element);
  if (factory)
    factory_name = GST_OBJECT_NAME (factory);
  if (g_strcmp0 (factory_name, "queue") == 0 ||
      g_strcmp0 (factory_name, "queue2") == 0)
    ei->queue_kind = QUEUE_SINGLE;
  else if (g_strcmp0 (factory_name, "multiqueue") == 0)
    ei->queue_kind = QUEUE_MULTI;

  g_mutex_lock (&p->lock);
  ei->order = p->elems->len;
  g_ptr_array_add (p->elems, ei);
  ei->chain_row = row_new (p, ei, ROW_CHAIN);
  ei->loop_row = row_new (p, ei, ROW_LOOP);
  if (ei->queue_kind == QUEUE_SINGLE)
    ei->queue = queue_rec_new (p, ei, ei->name);
  g_mutex_unlock (&p->lock);

  g_object_set_qdata_full (G_OBJECT (element), elem_quark, ei, elem_info_gone);
  return ei;
}

static ElemInfo *
elem_info_slow (GstObject * parent)
{
  ElemInfo *ei;

  if (!GST_IS_ELEMENT (parent))
    return NULL;
  g_mutex_lock (&global_lock);
  ei = g_object_get_qdata (G_OBJECT (parent), elem_quark);
  if (ei == NULL)
    ei = elem_info_create (GST_ELEMENT (parent));
  g_mutex_unlock (&global_lock);
  return ei;
}

static inline ElemCacheEntry *
elem_cache_slot (ThreadState * t, GstObject * parent)
{
  guintptr a = (guintptr) parent;

  return &t->elems[((a >> ELEM_CACHE_SHIFT) ^ (a >> (2 * ELEM_CACHE_SHIFT)))
      & (ELEM_CACHE_SIZE - 1)];
}

static inline ElemInfo *
elem_cache_lookup (ElemCacheEntry * c, GstObject * parent)
{
  if (G_LIKELY (c->parent == parent) &&
      G_LIKELY (__atomic_load_n (&c->ei->element, __ATOMIC_RELAXED) ==
          (GstElement *) parent))
    return c->ei;
  return NULL;
}

/* Ghost and proxy pads only forward: the real element's own pad carries
 * the hook we measure, so they are skipped. Unparented pads belong to no
 * element and are skipped too. */
static inline ElemInfo *
elem_of_pad (GstPad * pad)
{
  GType t = G_TYPE_FROM_INSTANCE (pad);
  GstObject *parent;
  ElemCacheEntry *c;
  ElemInfo *ei;

  if (G_UNLIKELY (t != pad_type) && g_type_is_a (t, GST_TYPE_PROXY_PAD))
    return NULL;
  parent = GST_OBJECT_PARENT (pad);
  if (G_UNLIKELY (parent == NULL))
    return NULL;
  c = elem_cache_slot (thread_state (), parent);
  ei = elem_cache_lookup (c, parent);
  if (G_LIKELY (ei != NULL))
    return ei;
  ei = g_object_get_qdata (G_OBJECT (parent), elem_quark);
  if (G_UNLIKELY (ei == NULL))
    ei = elem_info_slow (parent);
  if (ei != NULL) {
    c->parent = parent;
    c->ei = ei;
  }
  return ei;
}

static QueueRec *
queue_of_pad (ElemInfo * ei, GstPad * pad)
{
  QueueRec *q;
  gchar *name;

  if (ei->queue_kind == QUEUE_SINGLE)
    return ei->queue;
  q = g_object_get_qdata (G_OBJECT (pad), pad_queue_quark);
  if (G_LIKELY (q != NULL))
    return q;

  /* multiqueue pairs sink_N with src_N: one record per stream */
  name = g_strdup_printf ("%s:%u", ei->name, pad_index (pad));
  g_mutex_lock (&ei->pipe->lock);
  {
    guint i;

    for (i = 0; i < ei->pipe->queues->len; i++) {
      QueueRec *c = g_ptr_array_index (ei->pipe->queues, i);

      if (c->elem == ei && strcmp (c->name, name) == 0) {
        q = c;
        break;
      }
    }
    if (q == NULL)
      q = queue_rec_new (ei->pipe, ei, name);
  }
  g_mutex_unlock (&ei->pipe->lock);
  g_free (name);
  g_object_set_qdata (G_OBJECT (pad), pad_queue_quark, q);
  return q;
}

static void
queue_change (QueueRec * q, guint64 ts, gint64 delta)
{
  g_mutex_lock (&q->lock);
  if (!q->seen) {
    q->seen = TRUE;
    q->first_ns = q->last_ns = ts;
    q->min = q->max = 0;
  }
  if (ts > q->last_ns) {
    gint64 d = MAX (q->depth, 0);

    if (q->max_size_buffers > 0)
      d = MIN (d, (gint64) q->max_size_buffers);

    q->area += (gdouble) d *(ts - q->last_ns);
    if (q->max_size_buffers > 0 && d >= (gint64) q->max_size_buffers)
      q->at_max_ns += ts - q->last_ns;
    q->last_ns = ts;
  }
  q->depth += delta;
  if (q->depth >= 0) {
    gint64 d = q->depth;

    /* The producer's chain-post can land before the consumer's push-pre
     * of the item the queue already let go: a transient the queue itself
     * never holds. */
    if (q->max_size_buffers > 0)
      d = MIN (d, (gint64) q->max_size_buffers);
    q->min = MIN (q->min, d);
    q->max = MAX (q->max, d);
  }
  g_mutex_unlock (&q->lock);
}

/* ---------------------------------------------------------------- latency */

/* End-to-end latency: how a frame at a sink is matched to the moment it
 * entered the pipeline.
 *
 * Buffer identity does not survive the way (decoders, videoconvert,
 * axletterbox and axinference allocate new buffers), a meta cannot be
 * attached by an observer (the buffers it sees are not writable) and
 * frame order breaks wherever frames are dropped or duplicated (videorate,
 * QoS). What every element that maps frames keeps is the timeline: a new
 * buffer copies its input's timestamp, and a decoder turns a demuxer's
 * DTS-only buffers into PTS on the same timeline. So a frame is known by
 * its running time, PTS else DTS, through the segment of the pad it
 * travels on: at the pad where it enters (a source's, or a demuxer's or
 * parser's, which produce the first timestamps) and at the sink.
 *
 * Entries are kept per entering pad, tagged with the pad's stream-id,
 * which stream-start events carry unchanged through decoders and
 * filters, so that a demuxer's audio never answers for its video. A sink
 * buffer matches the entry of its stream with the largest running time
 * not after its own, if it lies within that entry's duration (or before
 * the next entry when there is no duration): exact for elements that copy
 * timestamps, and the original frame for a duplicate made by videorate.
 * An aggregator starts a new stream, so entries of sources on any stream
 * match too when the running time is exactly equal; of several matches the
 * earliest push is where the frame entered. A sink buffer without any
 * timestamp can only be the very buffer a source pushed (identity).
 * Sink buffers that match nothing are counted and reported. */

static inline guint64
latency_timed_key (guint64 running_time)
{
  /* never 0, which marks an entry being written */
  return (running_time + 1) << 1;
}

static inline guint64
latency_untimed_key (GstBuffer * buf)
{
  return ((guint64) (guintptr) buf) | 1;
}

static inline GstClockTime
latency_buffer_ts (GstBuffer * buf)
{
  return GST_BUFFER_PTS_IS_VALID (buf) ? GST_BUFFER_PTS (buf) :
      GST_BUFFER_DTS (buf);
}

/* The running time of @ts on @seg (a TIME segment), or @ts itself when
 * there is no segment or @ts lies outside it. */
static inline guint64
latency_running_time (const GstSegment * seg, gboolean have_seg,
    GstClockTime ts)
{
  GstClockTime rt;

  if (!have_seg || seg->format != GST_FORMAT_TIME)
    return ts;
  rt = gst_segment_to_running_time (seg, GST_FORMAT_TIME, ts);
  return GST_CLOCK_TIME_IS_VALID (rt) ? rt : ts;
}

/* Reads the current stream-id (interned) and segment of @pad. */
static void
latency_read_sticky (GstPad * pad, const gchar ** stream_id,
    GstSegment * seg, gboolean * have_seg)
{
  gchar *id = gst_pad_get_stream_id (pad);
  GstEvent *ev = gst_pad_get_sticky_event (pad, GST_EVENT_SEGMENT, 0);

  *stream_id = id ? g_intern_string (id) : NULL;
  g_free (id);
  *have_seg = ev != NULL;
  if (ev) {
    gst_event_copy_segment (ev, seg);
    gst_event_unref (ev);
  }
}

/* The ring of entries for @pad of @ei, made or replaced (under the
 * pipeline's lock) when the pad starts a new stream; NULL when the
 * pipeline has no room for another ring. Only the pad's streaming thread
 * writes the ring it returns. */
static LatRing *
latency_ring_for_pad (ElemInfo * ei, GstPad * pad)
{
  guint gen = __atomic_load_n (&latency_gen, __ATOMIC_ACQUIRE);
  gint n = __atomic_load_n (&ei->n_pad_rings, __ATOMIC_ACQUIRE);
  LatRing *r = NULL;
  const gchar *stream_id;
  GstSegment seg;
  gboolean have_seg;
  PipeRec *p = ei->pipe;
  gint i;

  for (i = 0; i < n; i++)
    if (ei->pad_rings[i]->pad == pad) {
      r = ei->pad_rings[i];
      break;
    }
  if (G_LIKELY (r != NULL && r->gen == gen))
    return r;

  latency_read_sticky (pad, &stream_id, &seg, &have_seg);
  if (r != NULL && r->stream_id == stream_id) {
    r->seg = seg;
    r->have_seg = have_seg;
    r->gen = gen;
    return r;
  }
  /* a new pad, or a new stream on it: the entries of the old stream stay
   * readable in the old ring for the frames still on their way */
  g_mutex_lock (&p->lock);
  if (p->n_rings < MAX_LATENCY_RINGS && (r != NULL ||
          ei->n_pad_rings < MAX_RINGS_PER_ELEMENT)) {
    LatRing *nr = g_new0 (LatRing, 1);

    nr->src = ei;
    nr->pad = pad;
    nr->stream_id = stream_id;
    nr->seg = seg;
    nr->have_seg = have_seg;
    nr->gen = gen;
    p->rings[p->n_rings] = nr;
    __atomic_store_n (&p->n_rings, p->n_rings + 1, __ATOMIC_RELEASE);
    if (r != NULL) {
      __atomic_store_n (&ei->pad_rings[i], nr, __ATOMIC_RELEASE);
    } else {
      ei->pad_rings[ei->n_pad_rings] = nr;
      __atomic_store_n (&ei->n_pad_rings, ei->n_pad_rings + 1,
          __ATOMIC_RELEASE);
    }
    r = nr;
  } else {
    r = NULL;
  }
  g_mutex_unlock (&p->lock);
  return r;
}

static void
latency_mark (ElemInfo * ei, GstPad * pad, guint64 ts, GstBuffer * buf)
{
  LatRing *r = latency_ring_for_pad (ei, pad);
  GstClockTime bts = latency_buffer_ts (buf);
  guint64 key, dur = GST_BUFFER_DURATION (buf);
  LatEntry *e;
  guint64 h;

  if (G_UNLIKELY (r == NULL))
    return;
  key = GST_CLOCK_TIME_IS_VALID (bts) ?
      latency_timed_key (latency_running_time (&r->seg, r->have_seg, bts)) :
      latency_untimed_key (buf);
  if (G_UNLIKELY (!(r->kinds & ((key & 1) ? LATENCY_RING_UNTIMED :
                  LATENCY_RING_TIMED))))
    __atomic_or_fetch (&r->kinds, (key & 1) ? LATENCY_RING_UNTIMED :
        LATENCY_RING_TIMED, __ATOMIC_RELAXED);
  h = r->head;
  e = &r->entries[h % LATENCY_RING_SIZE];
  __atomic_store_n (&e->key, 0, __ATOMIC_RELAXED);
  __atomic_store_n (&e->ts, ts, __ATOMIC_RELAXED);
  __atomic_store_n (&e->dur, dur, __ATOMIC_RELAXED);
  __atomic_store_n (&e->key, key, __ATOMIC_RELEASE);
  __atomic_store_n (&r->head, h + 1, __ATOMIC_RELEASE);
}

/* Searches @r for @key (see the comment above); @interval allows the
 * match within an entry's duration, else only an exact one. */
static gboolean
latency_ring_lookup (LatRing * r, guint64 key, gboolean interval,
    guint64 * src_ts)
{
  guint64 head = __atomic_load_n (&r->head, __ATOMIC_ACQUIRE);
  guint64 j, lim = MIN (head, LATENCY_RING_SIZE), best_at = 0;
  guint64 best_key = 0, best_ts = 0, best_dur = GST_CLOCK_TIME_NONE;
  gboolean timed = (key & 1) == 0, have_later = FALSE;
  guint kinds = __atomic_load_n (&r->kinds, __ATOMIC_RELAXED);

  if (!(kinds & (timed ? LATENCY_RING_TIMED : LATENCY_RING_UNTIMED)))
    return FALSE;
  for (j = 1; j <= lim; j++) {
    LatEntry *e = &r->entries[(head - j) % LATENCY_RING_SIZE];
    guint64 k = __atomic_load_n (&e->key, __ATOMIC_ACQUIRE);
    guint64 ts = __atomic_load_n (&e->ts, __ATOMIC_RELAXED);
    guint64 dur = __atomic_load_n (&e->dur, __ATOMIC_RELAXED);

    if (__atomic_load_n (&e->key, __ATOMIC_ACQUIRE) != k || k == 0)
      continue;
    if (k == key) {
      *src_ts = ts;
      return TRUE;
    }
    if (!timed || (k & 1))
      continue;
    if (k > key) {
      have_later = TRUE;
    } else if (best_key == 0 || k > best_key) {
      best_key = k;
      best_ts = ts;
      best_dur = dur;
      best_at = j;
    }
    /* entries come in push order, which a source reorders only a little
     * (PTS of B-frames) */
    if (best_key != 0 && j - best_at > LATENCY_REORDER_WINDOW)
      break;
  }
  if (best_key == 0 || !interval)
    return FALSE;
  if (GST_CLOCK_TIME_IS_VALID (best_dur) ?
      ((key - best_key) >> 1) >= best_dur : !have_later)
    return FALSE;
  *src_ts = best_ts;
  return TRUE;
}

/* The earliest entry of @buf, seen at a sink with @stream_id (interned, or
 * NULL when unknown) and running time from @seg. */
static gboolean
latency_lookup (PipeRec * p, GstBuffer * buf, const gchar * stream_id,
    const GstSegment * seg, gboolean have_seg, guint64 * src_ts)
{
  GstClockTime bts = latency_buffer_ts (buf);
  gboolean timed = GST_CLOCK_TIME_IS_VALID (bts);
  guint64 key = timed ?
      latency_timed_key (latency_running_time (seg, have_seg, bts)) :
      latency_untimed_key (buf);
  gint n = __atomic_load_n (&p->n_rings, __ATOMIC_ACQUIRE);
  gboolean found = FALSE;
  gint i;

  for (i = 0; i < n; i++) {
    LatRing *r = p->rings[i];
    gboolean same = stream_id == NULL || r->stream_id == stream_id;
    guint64 ts;

    if (!same && !r->src->is_source)
      continue;
    if (latency_ring_lookup (r, key, same, &ts) && (!found || ts < *src_ts)) {
      *src_ts = ts;
      found = TRUE;
    }
  }
  return found;
}

/* Records the latency of every buffer that reaches sink @ei through @pad,
 * or counts it unmatched. */
static void
latency_at_sink (ElemInfo * ei, GstPad * pad, guint64 ts, LatHist * lat,
    GstBuffer * buf, GstBufferList * list)
{
  guint gen = __atomic_load_n (&latency_gen, __ATOMIC_ACQUIRE);
  guint i, n = list ? gst_buffer_list_length (list) : 1;

  if (G_UNLIKELY (ei->sink_gen != gen || ei->sink_pad != pad)) {
    latency_read_sticky (pad, &ei->sink_stream, &ei->sink_seg,
        &ei->sink_have_seg);
    ei->sink_gen = gen;
    ei->sink_pad = pad;
  }
  for (i = 0; i < n; i++) {
    GstBuffer *b = list ? gst_buffer_list_get (list, i) : buf;
    guint64 src_ts = 0;

    if (latency_lookup (ei->pipe, b, ei->sink_stream, &ei->sink_seg,
            ei->sink_have_seg, &src_ts) && ts >= src_ts)
      hist_add (lat, ts - src_ts);
    else
      lat->unmatched++;
  }
}

/* ---------------------------------------------------------------- spans */

static inline void
frame_open (Frame * f, Row * row, RowStats * st, guint64 ts, ThreadState * t)
{
  f->row = row;
  f->st = st;
  f->pull_pad = NULL;
  f->open_ts = ts;
  f->seg_start = ts;
  f->acc_wall = f->acc_cpu = f->acc_faults = 0;
  f->sampled = take_sample (st);
  if (f->sampled) {
    if (t->pending) {
      f->cpu0 = t->pending_cpu;
      f->faults0 = t->pending_faults;
    } else {
      read_usage (t, st, &f->cpu0, &f->faults0);
    }
  }
  t->pending = FALSE;
}

/* Ends the running segment of @f; the usage read is kept so the segment
 * that starts next on this thread reuses it instead of reading again. */
static inline void
frame_pause (Frame * f, guint64 ts, ThreadState * t)
{
  f->acc_wall += (gint64) (ts - f->seg_start);
  if (f->sampled) {
    guint64 cpu, faults;

    read_usage (t, f->st, &cpu, &faults);
    f->acc_cpu += (gint64) (cpu - f->cpu0);
    f->acc_faults += (gint64) (faults - f->faults0);
    t->pending = TRUE;
    t->pending_cpu = cpu;
    t->pending_faults = faults;
  } else {
    t->pending = FALSE;
  }
}

static inline void
frame_resume (Frame * f, guint64 ts, ThreadState * t)
{
  f->seg_start = ts;
  if (f->sampled) {
    if (t->pending) {
      f->cpu0 = t->pending_cpu;
      f->faults0 = t->pending_faults;
    } else {
      read_usage (t, f->st, &f->cpu0, &f->faults0);
    }
  }
  t->pending = FALSE;
}

/* The ring's pages are touched when it is made, so that filling it later
 * takes no page faults that the measured spans would be charged with. */
static TraceRing *
trace_ring_new (gint slot)
{
  TraceRing *ring = g_malloc (sizeof (TraceRing));

  memset (ring, 0, sizeof (TraceRing));
  __atomic_store_n (&trace_rings[slot], ring, __ATOMIC_RELEASE);
  return ring;
}

static void
trace_add (ThreadState * t, Row * row, guint64 start, guint64 dur,
    gboolean probe_clock)
{
  TraceRing *ring;
  TraceEvent *e;

  if (t->slot < 0)
    return;
  ring = trace_rings[t->slot];
  if (G_UNLIKELY (ring == NULL))
    ring = trace_ring_new (t->slot);
  e = &ring->events[ring->head % TRACE_RING_SIZE];
  e->row = row;
  e->start = start;
  e->dur = dur;
  e->run = row->pipe->run;
  e->probe_clock = probe_clock;
  __atomic_store_n (&ring->head, ring->head + 1, __ATOMIC_RELEASE);
}

static inline void
frame_record (Frame * f, ThreadState * t, guint64 end_ts)
{
  stats_add (f->st, f->acc_wall, f->acc_cpu, f->acc_faults, f->sampled);
  if (G_UNLIKELY (trace_on) && end_ts > f->open_ts)
    trace_add (t, f->row, f->open_ts, end_ts - f->open_ts, FALSE);
}

/* The thread leaves the element on top of its stack (or its task loop)
 * to run downstream or upstream code. */
static inline void
leave_current (ThreadState * t, ElemInfo * ei, guint64 ts)
{
  if (t->depth > 0) {
    frame_pause (&t->stack[t->depth - 1], ts, t);
  } else if (t->loop_open) {
    Frame *f = &t->loop;

    frame_pause (f, ts, t);
    frame_record (f, t, ts);
    t->loop_open = FALSE;
  } else {
    t->pending = FALSE;
  }
}

/* The thread comes back to the element it left. */
static inline void
return_to_current (ThreadState * t, ElemInfo * ei, guint64 ts)
{
  if (t->depth > 0) {
    frame_resume (&t->stack[t->depth - 1], ts, t);
  } else {
    /* a task loop: time until its next push belongs to the task owner */
    frame_open (&t->loop, ei->loop_row, row_stats (ei->loop_row, t), ts, t);
    t->loop_open = TRUE;
  }
}

static void
mark_first_buffer (PipeRec * p, guint64 ts)
{
  struct rusage ru;
  guint64 zero = 0;

  if (!__atomic_compare_exchange_n (&p->first_ts, &zero, ts, FALSE,
          __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
    return;
  getrusage (RUSAGE_SELF, &ru);
  p->cpu0_ns = ((guint64) ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) *
      1000000000ull + ((guint64) ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) *
      1000ull;
  p->first_probe_ns = gst_ax_probe_now_ns ();
}

static void
do_push_common (guint64 ts, GstPad * pad, GstBuffer * first, guint n)
{
  ElemInfo *ei = elem_of_pad (pad);
  ThreadState *t;

  if (ei == NULL)
    return;
  t = thread_state ();
  /* Where frames enter: sources, the task loops of elements that are
   * not queues (a demuxer pulling from its source, an aggregator), and
   * the first timestamps on a path (a demuxer or parser in push mode, fed
   * bytes): the latency lookup takes the earliest push of a frame, so an
   * aggregator's own pushes never shadow its inputs'. A push from inside
   * an event (a decoder draining at EOS) is not a task loop's. */
  if (first != NULL && (ei->is_source || (t->depth == 0 &&
              t->event_depth == 0 && ei->queue_kind == QUEUE_NONE) ||
          (t->depth > 0 &&
              t->stack[t->depth - 1].untimed_in &&
              t->stack[t->depth - 1].row->elem == ei &&
              GST_CLOCK_TIME_IS_VALID (latency_buffer_ts (first))))) {
    if (G_UNLIKELY (ei->pipe->first_ts == 0))
      mark_first_buffer (ei->pipe, ts);
    latency_mark (ei, pad, ts, first);
  }
  if (ei->queue_kind != QUEUE_NONE && GST_PAD_IS_SRC (pad))
    queue_change (queue_of_pad (ei, pad), ts, -(gint64) n);
  leave_current (t, ei, ts);
}

static void
do_push_pre (GObject * self, GstClockTime ts, GstPad * pad, GstBuffer * buf)
{
  do_push_common (ts, pad, buf, 1);
}

static void
do_push_list_pre (GObject * self, GstClockTime ts, GstPad * pad,
    GstBufferList * list)
{
  guint n = gst_buffer_list_length (list);

  do_push_common (ts, pad, n ? gst_buffer_list_get (list, 0) : NULL, n);
}

static void
do_push_post (GObject * self, GstClockTime ts, GstPad * pad, GstFlowReturn r)
{
  ElemInfo *ei = elem_of_pad (pad);

  if (ei == NULL)
    return;
  return_to_current (thread_state (), ei, ts);
}

/* A task pushes its stream-start, caps and segment events before its
 * first buffer: opening the loop when the outermost event push returns
 * lets the first buffer's create or pull be measured too (events that
 * elements forward from inside it are nested and ignored). An open loop
 * is left alone. */
static void
do_push_event_pre (GObject * self, GstClockTime ts, GstPad * pad,
    GstEvent * event)
{
  ThreadState *t = thread_state ();

  if (t->event_depth < MAX_TRACKED_EVENT_DEPTH &&
      (GST_EVENT_TYPE (event) == GST_EVENT_SEGMENT ||
          GST_EVENT_TYPE (event) == GST_EVENT_STREAM_START))
    t->sticky_events |= G_GUINT64_CONSTANT (1) << t->event_depth;
  t->event_depth++;
}

static void
do_push_event_post (GObject * self, GstClockTime ts, GstPad * pad, gboolean res)
{
  ThreadState *t = thread_state ();
  ElemInfo *ei;

  if (t->event_depth > 0)
    t->event_depth--;
  /* the event is stored on both pads now: readers will see it */
  if (t->event_depth < MAX_TRACKED_EVENT_DEPTH &&
      (t->sticky_events & (G_GUINT64_CONSTANT (1) << t->event_depth))) {
    t->sticky_events &= ~(G_GUINT64_CONSTANT (1) << t->event_depth);
    __atomic_add_fetch (&latency_gen, 1, __ATOMIC_RELEASE);
  }
  if (t->event_depth > 0 || t->depth > 0 || t->loop_open ||
      !GST_PAD_IS_SRC (pad) || (ei = elem_of_pad (pad)) == NULL)
    return;
  return_to_current (t, ei, ts);
}

static void
do_chain_common (guint64 ts, GstPad * pad, GstBuffer * first,
    GstBufferList * list, guint items)
{
  ElemInfo *ei = elem_of_pad (pad);
  ThreadState *t;
  Frame *f;

  if (ei == NULL)
    return;
  t = thread_state ();
  if (G_UNLIKELY (t->depth >= MAX_DEPTH)) {
    t->skipped++;
    return;
  }
  f = &t->stack[t->depth++];
  frame_open (f, ei->chain_row, row_stats (ei->chain_row, t), ts, t);
  f->items = items;
  f->untimed_in = first != NULL &&
      !GST_CLOCK_TIME_IS_VALID (latency_buffer_ts (first));
  if (ei->is_sink && first != NULL && f->st->lat != NULL)
    latency_at_sink (ei, pad, ts, f->st->lat, first, list);
}

static void
do_chain_pre (GObject * self, GstClockTime ts, GstPad * pad, GstBuffer * buf)
{
  do_chain_common (ts, pad, buf, NULL, 1);
}

static void
do_chain_list_pre (GObject * self, GstClockTime ts, GstPad * pad,
    GstBufferList * list)
{
  guint n = gst_buffer_list_length (list);

  do_chain_common (ts, pad, n ? gst_buffer_list_get (list, 0) : NULL, list, n);
}

static void
do_chain_post (GObject * self, GstClockTime ts, GstPad * pad, GstFlowReturn r)
{
  ElemInfo *ei = elem_of_pad (pad);
  ThreadState *t;
  Frame *f;

  if (ei == NULL)
    return;
  t = thread_state ();
  if (G_UNLIKELY (t->skipped > 0)) {
    t->skipped--;
    return;
  }
  if (G_UNLIKELY (t->depth == 0))
    return;
  f = &t->stack[t->depth - 1];
  if (G_UNLIKELY (f->row->elem != ei))
    return;
  frame_pause (f, ts, t);
  frame_record (f, t, ts);
  f->st->items += f->items;
  t->depth--;
  /* a queue stores a list as one item but pushes it as a list, which its
   * push-list hook counts buffer by buffer */
  if (ei->queue_kind != QUEUE_NONE && r == GST_FLOW_OK)
    queue_change (queue_of_pad (ei, pad), ts, f->items);
}

#define MAX_PAD_HOPS 16

/* The real pad upstream of @sinkpad, through ghost and proxy pads (ref'd,
 * or NULL). */
static GstPad *
upstream_pad (GstPad * sinkpad)
{
  GstPad *p = gst_pad_get_peer (sinkpad);
  guint hops;

  for (hops = 0; p != NULL && hops < MAX_PAD_HOPS; hops++) {
    if (GST_IS_GHOST_PAD (p)) {
      GstPad *target = gst_ghost_pad_get_target (GST_GHOST_PAD (p));

      gst_object_unref (p);
      p = target;
    } else if (GST_IS_PROXY_PAD (p)) {
      GstProxyPad *ghost = gst_proxy_pad_get_internal (GST_PROXY_PAD (p));

      gst_object_unref (p);
      p = ghost ? gst_pad_get_peer (GST_PAD (ghost)) : NULL;
      if (ghost)
        gst_object_unref (ghost);
    } else {
      return p;
    }
  }
  if (p)
    gst_object_unref (p);
  return NULL;
}

static void
do_pull_range_pre (GObject * self, GstClockTime ts, GstPad * pad,
    guint64 offset, guint size)
{
  ElemInfo *ei = elem_of_pad (pad), *peer_ei;
  GstPad *peer;
  ThreadState *t;
  Frame *f;

  if (ei == NULL)
    return;
  /* pulls are per chunk, not per frame: resolving ghost pads here with
   * locks and refs is affordable */
  peer = upstream_pad (pad);
  if (peer == NULL)
    return;
  peer_ei = elem_of_pad (peer);
  gst_object_unref (peer);
  if (peer_ei == NULL)
    return;
  t = thread_state ();
  if (t->depth >= MAX_DEPTH)
    return;
  leave_current (t, ei, ts);
  f = &t->stack[t->depth++];
  frame_open (f, peer_ei->chain_row, row_stats (peer_ei->chain_row, t), ts, t);
  f->pull_pad = pad;
}

static void
do_pull_range_post (GObject * self, GstClockTime ts, GstPad * pad,
    GstBuffer * buffer, GstFlowReturn r)
{
  ElemInfo *ei = elem_of_pad (pad);
  ThreadState *t;
  Frame *f;

  if (ei == NULL)
    return;
  t = thread_state ();
  if (t->depth == 0)
    return;
  f = &t->stack[t->depth - 1];
  if (f->pull_pad != pad)
    return;
  frame_pause (f, ts, t);
  if (r == GST_FLOW_OK) {
    frame_record (f, t, ts);
    if (f->row->elem->is_source && G_UNLIKELY (ei->pipe->first_ts == 0))
      mark_first_buffer (ei->pipe, ts);
  }
  t->depth--;
  return_to_current (t, ei, ts);
}

/* ---------------------------------------------------------------- probe */

static ElemInfo *
elem_info_of (GstElement * element)
{
  ElemInfo *ei;

  if (element == NULL)
    return NULL;
  ei = g_object_get_qdata (G_OBJECT (element), elem_quark);
  if (ei == NULL)
    ei = elem_info_slow (GST_OBJECT (element));
  return ei;
}

static inline ProbeCacheEntry *
probe_cache_slot (ProbeCacheEntry * cache, ElemInfo * ei,
    const gchar * stage, const gchar * group)
{
  guintptr h = (guintptr) ei ^ ((guintptr) stage >> 3) ^
      ((guintptr) group >> 5);

  return &cache[(h ^ (h >> 7)) % PROBE_CACHE_SIZE];
}

static Row *
probe_row (ElemInfo * ei, const GstAxProbeSpan * span, ThreadState * t)
{
  ProbeCacheEntry *c = probe_cache_slot (t->rows, ei, span->stage,
      span->group);
  PipeRec *p = ei->pipe;
  Row *row = NULL;
  guint i;

  /* the group string carries no lifetime promise: compare its text */
  if (c->ei == ei && c->stage == span->stage && c->group == span->group &&
      g_strcmp0 (((Row *) c->value)->group, span->group) == 0)
    return c->value;

  g_mutex_lock (&p->lock);
  for (i = 0; i < p->rows->len; i++) {
    Row *r = g_ptr_array_index (p->rows, i);

    if (r->kind == ROW_PROBE && r->elem == ei &&
        strcmp (r->stage, span->stage) == 0 &&
        g_strcmp0 (r->group, span->group) == 0) {
      row = r;
      break;
    }
  }
  if (row == NULL) {
    row = row_new (p, ei, ROW_PROBE);
    row->stage = g_strdup (span->stage);
    row->group = g_strdup (span->group);
    row->probe_flags = span->flags;
  }
  if (span->group && g_strcmp0 (ei->model_group, span->group) != 0) {
    g_free (ei->model_group);
    ei->model_group = g_strdup (span->group);
  }
  g_mutex_unlock (&p->lock);
  c->ei = ei;
  c->stage = span->stage;
  c->group = span->group;
  c->value = row;
  return row;
}

/* Stages run inside an element's own span on the same thread; they are
 * taken out of it, like a nested push, so that no time counts twice. */
static void
on_span (const GstAxProbeSpan * span, gpointer user_data)
{
  ElemInfo *ei = elem_info_of (span->element);
  ThreadState *t;
  Frame *f = NULL;
  Row *row;
  RowStats *st;

  if (ei == NULL || span->stage == NULL)
    return;
  t = thread_state ();
  if (t->depth > 0)
    f = &t->stack[t->depth - 1];
  else if (t->loop_open)
    f = &t->loop;
  if (f && f->row->elem == ei) {
    f->acc_wall -= (gint64) span->wall_ns;
    f->acc_cpu -= (gint64) span->cpu_ns;
    f->acc_faults -= (gint64) span->faults;
  }
  row = probe_row (ei, span, t);
  st = row_stats (row, t);
  stats_add (st, span->wall_ns, span->cpu_ns, span->faults, TRUE);
  if (G_UNLIKELY (trace_on))
    trace_add (t, row, span->start_ns, span->wall_ns, TRUE);
}

static DevRec *
dev_rec (ElemInfo * ei, const gchar * group)
{
  ThreadState *t = thread_state ();
  ProbeCacheEntry *c = probe_cache_slot (t->devs, ei, NULL, group);
  PipeRec *p = ei->pipe;
  DevRec *d = NULL;
  guint i;

  if (c->ei == ei && c->group == group &&
      strcmp (((DevRec *) c->value)->group, group ? group : ei->name) == 0)
    return c->value;

  g_mutex_lock (&p->lock);
  for (i = 0; i < p->devices->len; i++) {
    DevRec *c = g_ptr_array_index (p->devices, i);

    if (c->elem == ei && g_strcmp0 (c->group, group) == 0) {
      d = c;
      break;
    }
  }
  if (d == NULL) {
    d = g_new0 (DevRec, 1);
    d->group = g_strdup (group ? group : ei->name);
    d->elem = ei;
    d->min_job = G_MAXUINT64;
    g_mutex_init (&d->lock);
    g_ptr_array_add (p->devices, d);
  }
  if (group && g_strcmp0 (ei->model_group, group) != 0) {
    g_free (ei->model_group);
    ei->model_group = g_strdup (group);
  }
  g_mutex_unlock (&p->lock);
  c->ei = ei;
  c->group = group;
  c->value = d;
  return d;
}

static void
on_device_event (const GstAxProbeDeviceEvent * ev, gpointer user_data)
{
  ElemInfo *ei = elem_info_of (ev->element);
  DevRec *d;

  if (ei == NULL || ev->end_ns < ev->start_ns)
    return;
  d = dev_rec (ei, ev->group);
  g_mutex_lock (&d->lock);
  d->busy_ns += ev->end_ns - ev->start_ns;
  if (G_UNLIKELY (trace_on)) {
    DeviceTraceEvent *te;

    if (d->trace == NULL)
      d->trace = g_new0 (DeviceTraceEvent, DEVICE_RING_SIZE);
    te = &d->trace[d->trace_head++ % DEVICE_RING_SIZE];
    te->core = ev->resource;
    te->job = ev->job_id;
    te->start_ns = ev->start_ns;
    te->end_ns = ev->end_ns;
    te->run = ei->pipe->run;
  }
  d->events++;
  if (ev->n_resources > d->n_cores)
    d->n_cores = ev->n_resources;
  d->min_job = MIN (d->min_job, ev->job_id);
  d->max_job = MAX (d->max_job, ev->job_id);
  if (d->first_start == 0 || ev->start_ns < d->first_start)
    d->first_start = ev->start_ns;
  d->last_end = MAX (d->last_end, ev->end_ns);
  /* union of busy intervals, for the device-only wall time */
  if (d->cur_end == 0 || ev->start_ns > d->cur_end) {
    d->union_ns += d->cur_end - d->cur_start;
    d->cur_start = ev->start_ns;
    d->cur_end = ev->end_ns;
  } else if (ev->end_ns > d->cur_end) {
    d->cur_end = ev->end_ns;
  }
  g_mutex_unlock (&d->lock);
}

static void
on_device (const GstAxProbeDevice * dev, gpointer user_data)
{
  ElemInfo *ei = elem_info_of (dev->element);
  DevRec *d;

  if (ei == NULL)
    return;
  d = dev_rec (ei, dev->group);
  g_mutex_lock (&d->lock);
  if (dev->device && g_strcmp0 (d->device, dev->device) != 0) {
    g_free (d->device);
    d->device = g_strdup (dev->device);
  }
  if (dev->n_cores > 0)
    d->n_cores = dev->n_cores;
  d->window = dev->in_flight_window;
  d->jobs_done = dev->jobs_done;
  d->sim_cpu_ns = dev->sim_cpu_ns;
  d->lag_ns = dev->lag_ns;
  g_mutex_unlock (&d->lock);
}

static const GstAxProbeSinkFuncs probe_funcs = {
  on_span, on_device_event, on_device
};

/* ---------------------------------------------------------------- debug */

/* The categories that logged at DEBUG or above since the last pipeline
 * start: the ones "the run logs through" at that level. */
#define MAX_NAMED_CATEGORIES 3
static GstDebugCategory *logged_categories[MAX_NAMED_CATEGORIES];

static void
count_debug_log (GstDebugCategory * category, GstDebugLevel level,
    const gchar * file, const gchar * function, gint line, GObject * object,
    GstDebugMessage * message, gpointer user_data)
{
  guint i;

  if (level < GST_LEVEL_DEBUG || category == gst_ax_prof_debug)
    return;
  __atomic_add_fetch (&debug_log_count, 1, __ATOMIC_RELAXED);
  for (i = 0; i < MAX_NAMED_CATEGORIES; i++) {
    GstDebugCategory *expected = NULL;

    if (__atomic_load_n (&logged_categories[i], __ATOMIC_RELAXED) == category
        || __atomic_compare_exchange_n (&logged_categories[i], &expected,
            category, FALSE, __ATOMIC_RELAXED, __ATOMIC_RELAXED))
      break;
  }
}

/* What makes DEBUG logging active for every category, or NULL. */
static gchar *
debug_default_offender (void)
{
  if (gst_debug_get_default_threshold () >= GST_LEVEL_DEBUG)
    return g_strdup_printf ("the default threshold is %s",
        gst_debug_level_get_name (gst_debug_get_default_threshold ()));
  return NULL;
}

static gchar *
debug_logged_offender (gint64 logged)
{
  GString *s = g_string_new ("category ");
  guint i;

  for (i = 0; i < MAX_NAMED_CATEGORIES; i++) {
    GstDebugCategory *c = __atomic_load_n (&logged_categories[i],
        __ATOMIC_RELAXED);

    if (c)
      g_string_append_printf (s, "%s%s", i ? ", " : "",
          gst_debug_category_get_name (c));
  }
  g_string_append_printf (s, " (and any others) logged %" G_GINT64_FORMAT
      " messages at DEBUG or above during the run", logged);
  return g_string_free (s, FALSE);
}

/* ---------------------------------------------------------------- report */

typedef struct
{
  Row *row;
  guint64 count;
  guint64 items;
  guint64 wall_sum_ns;
  guint64 wall_min_ns;
  guint64 wall_max_ns;
  guint64 usage_count;
  guint64 cpu_sum_ns;
  guint64 faults_sum;
  guint64 reads;
  guint64 blocked_ns;
  guint64 first_seen_ns;
  gint rank;
} Merged;

static void
merge_row (Row * row, Merged * m, LatHist * lat)
{
  guint i, b;

  memset (m, 0, sizeof (*m));
  m->row = row;
  m->wall_min_ns = G_MAXUINT64;
  m->first_seen_ns = G_MAXUINT64;
  for (i = 0; i < MAX_THREAD_SLOTS; i++) {
    RowStats *st = __atomic_load_n (&row->slots[i], __ATOMIC_ACQUIRE);

    if (st == NULL)
      continue;
    m->count += st->count;
    m->items += st->items;
    m->wall_sum_ns += st->wall_sum_ns;
    m->wall_min_ns = MIN (m->wall_min_ns, st->wall_min_ns);
    m->wall_max_ns = MAX (m->wall_max_ns, st->wall_max_ns);
    m->usage_count += st->usage_count;
    m->cpu_sum_ns += st->cpu_sum_ns;
    m->faults_sum += st->faults_sum;
    m->reads += st->reads;
    m->blocked_ns += st->blocked_ns;
    if (st->count > 0)
      m->first_seen_ns = MIN (m->first_seen_ns, st->first_seen_ns);
    if (st->lat && lat) {
      lat->n += st->lat->n;
      lat->sum_ns += st->lat->sum_ns;
      lat->sumsq_ns += st->lat->sumsq_ns;
      lat->unmatched += st->lat->unmatched;
      lat->min_ns = MIN (lat->min_ns, st->lat->min_ns);
      lat->max_ns = MAX (lat->max_ns, st->lat->max_ns);
      for (b = 0; b < HIST_BUCKETS; b++)
        lat->buckets[b] += st->lat->buckets[b];
    }
  }
}

static gdouble
hist_percentile (const LatHist * h, gdouble q)
{
  guint64 target = (guint64) ceil (q * h->n), acc = 0;
  guint b;

  if (target == 0)
    target = 1;
  for (b = 0; b < HIST_BUCKETS; b++) {
    acc += h->buckets[b];
    if (acc >= target)
      return CLAMP (hist_value (b), (gdouble) h->min_ns, (gdouble) h->max_ns);
  }
  return h->max_ns;
}

/* Execution order: by distance from the sources along the links, then by
 * the order elements were added; within an element its chain row, then
 * the stages it reported, then its task loop. */
static gint
kind_order (RowKind kind)
{
  switch (kind) {
    case ROW_CHAIN:
      return 0;
    case ROW_PROBE:
      return 1;
    case ROW_LOOP:
    default:
      return 2;
  }
}

static gint
compare_merged (gconstpointer a, gconstpointer b)
{
  const Merged *ma = a, *mb = b;

  if (ma->rank != mb->rank)
    return ma->rank < mb->rank ? -1 : 1;
  if (ma->row->elem != mb->row->elem)
    return ma->row->elem->order < mb->row->elem->order ? -1 : 1;
  if (ma->row->kind != mb->row->kind)
    return kind_order (ma->row->kind) < kind_order (mb->row->kind) ? -1 : 1;
  if (ma->first_seen_ns != mb->first_seen_ns)
    return ma->first_seen_ns < mb->first_seen_ns ? -1 : 1;
  return 0;
}

#define RANK_VISITING (-1)
#define RANK_UNKNOWN G_MAXINT

/* The real element upstream of @sinkpad, through ghost and proxy pads. */
static GstElement *
upstream_element (GstPad * sinkpad)
{
  GstPad *p = upstream_pad (sinkpad);
  GstElement *e;

  if (p == NULL)
    return NULL;
  e = gst_pad_get_parent_element (p);
  gst_object_unref (p);
  return e;
}

static gint
element_rank (GstElement * e, GHashTable * memo)
{
  gpointer v;
  GList *pads = NULL, *l;
  gint rank = 0;

  if (g_hash_table_lookup_extended (memo, e, NULL, &v))
    return GPOINTER_TO_INT (v) == RANK_VISITING ? 0 : GPOINTER_TO_INT (v);
  g_hash_table_insert (memo, e, GINT_TO_POINTER (RANK_VISITING));

  GST_OBJECT_LOCK (e);
  for (l = e->sinkpads; l; l = l->next)
    pads = g_list_prepend (pads, gst_object_ref (l->data));
  GST_OBJECT_UNLOCK (e);
  for (l = pads; l; l = l->next) {
    GstElement *up = upstream_element (l->data);

    if (up) {
      rank = MAX (rank, element_rank (up, memo) + 1);
      gst_object_unref (up);
    }
  }
  g_list_free_full (pads, gst_object_unref);
  g_hash_table_insert (memo, e, GINT_TO_POINTER (rank));
  return rank;
}

static const gchar *
loop_suffix (ElemInfo * ei)
{
  if (ei->queue_kind != QUEUE_NONE)
    return "pull";
  if (ei->is_basesrc)
    return "create";
  return "loop";
}

static gchar *
row_name (Row * row)
{
  switch (row->kind) {
    case ROW_CHAIN:
      return g_strdup (row->elem->name);
    case ROW_LOOP:
      return g_strdup_printf ("%s (%s)", row->elem->name,
          loop_suffix (row->elem));
    case ROW_PROBE:
    default:
      return g_strdup (row->stage);
  }
}

static const gchar *
row_group (Row * row)
{
  if (row->kind == ROW_PROBE && row->group)
    return row->group;
  if (row->elem->model_group)
    return row->elem->model_group;
  if (row->elem->bin_group)
    return row->elem->bin_group;
  return "pipeline";
}

static gboolean
element_bool_prop (GstElement * e, const gchar * name, gboolean * value)
{
  if (e == NULL || !g_object_class_find_property (G_OBJECT_GET_CLASS (e), name))
    return FALSE;
  g_object_get (e, name, value, NULL);
  return TRUE;
}

/* global_lock held (elements are only read while their info says they
 * are alive) */
static gchar *
describe_pacing (PipeRec * p)
{
  GString *synced = g_string_new (NULL);
  gchar *out = NULL;
  guint i;

  for (i = 0; i < p->elems->len; i++) {
    ElemInfo *ei = g_ptr_array_index (p->elems, i);
    gboolean v;

    if (ei->is_source && element_bool_prop (ei->element, "is-live", &v) && v) {
      out = g_strdup_printf ("paced by the live source %s", ei->name);
      break;
    }
    if (ei->is_sink && element_bool_prop (ei->element, "sync", &v) && v)
      g_string_append_printf (synced, "%s%s", synced->len ? ", " : "",
          ei->name);
  }
  if (out == NULL && synced->len)
    out = g_strdup_printf ("paced by clock sync in %s (sync=true)",
        synced->str);
  if (out == NULL)
    out = g_strdup ("free-running: no live source, no sink syncs");
  g_string_free (synced, TRUE);
  return out;
}

static guint64
process_cpu_ns (void)
{
  struct rusage ru;

  getrusage (RUSAGE_SELF, &ru);
  return ((guint64) ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1000000000ull +
      ((guint64) ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) * 1000ull;
}

static gdouble
peak_mem_mb (void)
{
  struct rusage ru;

  getrusage (RUSAGE_SELF, &ru);
  /* ru_maxrss is in KiB on Linux */
  return ru.ru_maxrss / KB_PER_MB;
}

typedef struct
{
  GstAxReport *r;
  GArray *merged;
  PipeRec *p;
  gdouble wall_ns;
} Build;

static Merged *
merged_for (Build * b, Row * row)
{
  guint i;

  for (i = 0; i < b->merged->len; i++) {
    Merged *m = &g_array_index (b->merged, Merged, i);

    if (m->row == row)
      return m;
  }
  return NULL;
}

static void
build_rows (Build * b, LatHist * lat, gdouble * profiled_ns,
    guint64 * element_buffers, guint64 * reads)
{
  GstAxReport *r = b->r;
  GHashTable *memo = g_hash_table_new (NULL, NULL);
  guint i, j;

  for (i = 0; i < b->p->rows->len; i++) {
    Merged m;

    merge_row (g_ptr_array_index (b->p->rows, i), &m, lat);
    if (m.count == 0)
      continue;
    m.rank = m.row->elem->element ?
        element_rank (m.row->elem->element, memo) : RANK_UNKNOWN;
    g_array_append_val (b->merged, m);
  }
  g_hash_table_unref (memo);
  g_array_sort (b->merged, compare_merged);

  for (i = 0; i < b->merged->len; i++) {
    Merged *m = &g_array_index (b->merged, Merged, i);
    const gchar *gname = row_group (m->row);
    GstAxReportGroup *g = NULL;
    GstAxReportRow *row;
    gchar *name;

    for (j = 0; j < r->groups->len; j++) {
      GstAxReportGroup *c = g_ptr_array_index (r->groups, j);

      if (strcmp (c->name, gname) == 0)
        g = c;
    }
    if (g == NULL)
      g = gst_ax_report_add_group (r, gname);
    name = row_name (m->row);
    row = gst_ax_report_group_add_row (g, name);
    g_free (name);
    row->count = m->count;
    row->total_ms = m->wall_sum_ns / NS_PER_MS;
    row->mean_ms = row->total_ms / m->count;
    row->min_ms = m->wall_min_ns / NS_PER_MS;
    row->max_ms = m->wall_max_ns / NS_PER_MS;
    if (m->usage_count > 0) {
      row->cpu_ms = m->cpu_sum_ns / NS_PER_MS / m->usage_count;
      row->faults = (gdouble) m->faults_sum / m->usage_count;
    }
    if (m->row->kind == ROW_LOOP)
      row->flags |= GST_AX_REPORT_ROW_FLAG_STAGE;
    if (m->row->kind == ROW_PROBE) {
      if (m->row->probe_flags & GST_AX_PROBE_FLAG_STAGE)
        row->flags |= GST_AX_REPORT_ROW_FLAG_STAGE;
      if (m->row->probe_flags & GST_AX_PROBE_FLAG_DEVICE_WAIT)
        row->flags |= GST_AX_REPORT_ROW_FLAG_DEVICE_WAIT;
    }
    gst_ax_report_row_classify (row);
    *profiled_ns += m->wall_sum_ns;
    *reads += m->reads;
    if (m->row->kind == ROW_CHAIN)
      *element_buffers += m->count;
  }
  if (b->merged->len == 0)
    r->groups_absent = g_strdup ("no buffer was processed by any element");
  gst_ax_report_finish_groups (r);
}

static void
build_latency (Build * b, LatHist * lat)
{
  GstAxReport *r = b->r;
  GstAxReportLatency *l = &r->latency;
  gdouble mean, var;

  r->latency_unmatched = lat->unmatched;
  if (lat->n == 0) {
    r->latency_absent = lat->unmatched ?
        g_strdup_printf ("none of the %" G_GUINT64_FORMAT " sink buffers "
        "could be matched to the frame they came from (timestamps changed "
        "on the way, or buffers without timestamps replaced)", lat->unmatched)
        : g_strdup ("no buffer reached a sink");
    return;
  }
  mean = lat->sum_ns / lat->n;
  var = lat->sumsq_ns / lat->n - mean * mean;
  l->n = lat->n;
  l->min_ms = lat->min_ns / NS_PER_MS;
  l->max_ms = lat->max_ns / NS_PER_MS;
  l->mean_ms = mean / NS_PER_MS;
  l->stddev_ms = sqrt (MAX (var, 0)) / NS_PER_MS;
  l->jitter_ms = l->max_ms - l->min_ms;
  l->p50_ms = hist_percentile (lat, 0.50) / NS_PER_MS;
  l->p95_ms = hist_percentile (lat, 0.95) / NS_PER_MS;
  l->p99_ms = hist_percentile (lat, 0.99) / NS_PER_MS;
  l->p999_ms = lat->n >= GST_AX_REPORT_MIN_P999_SAMPLES ?
      hist_percentile (lat, 0.999) / NS_PER_MS : NAN;
}

static void
build_queues (Build * b)
{
  GstAxReport *r = b->r;
  guint i;

  for (i = 0; i < b->p->queues->len; i++) {
    QueueRec *q = g_ptr_array_index (b->p->queues, i);
    GstAxReportQueue rq = { 0, };
    Merged *prod, *cons;
    guint64 span;

    g_mutex_lock (&q->lock);
    if (!q->seen || q->last_ns <= q->first_ns) {
      g_mutex_unlock (&q->lock);
      continue;
    }
    span = q->last_ns - q->first_ns;
    rq.name = g_strdup (q->name);
    rq.mean = q->area / span;
    rq.min = q->min;
    rq.max = q->max;
    rq.max_size_buffers = q->max_size_buffers;
    rq.at_max_percent = PERCENT * q->at_max_ns / span;
    g_mutex_unlock (&q->lock);
    prod = merged_for (b, q->elem->chain_row);
    cons = merged_for (b, q->elem->loop_row);
    if (b->wall_ns > 0) {
      /* a multiqueue's streams share the element's rows */
      if (prod && prod->usage_count)
        rq.full_percent = MIN (PERCENT, PERCENT * prod->blocked_ns *
            ((gdouble) prod->count / prod->usage_count) / b->wall_ns);
      if (cons && cons->usage_count)
        rq.empty_percent = MIN (PERCENT, PERCENT * cons->blocked_ns *
            ((gdouble) cons->count / cons->usage_count) / b->wall_ns);
    }
    g_array_append_val (r->queues, rq);
  }
  if (r->queues->len == 0)
    r->queues_absent = g_strdup ("no queue, queue2 or multiqueue carried "
        "buffers in this pipeline");
}

/* Host time per frame over every row that is not waiting: neither the
 * device wait, nor a task loop (STAGE), nor STRONGLY BLOCKED. */
static gdouble
host_ms_per_frame (GstAxReport * r, guint64 frames)
{
  gdouble host = 0;
  guint i, j;

  for (i = 0; i < r->groups->len; i++) {
    GstAxReportGroup *g = g_ptr_array_index (r->groups, i);

    for (j = 0; j < g->rows->len; j++) {
      GstAxReportRow *row = &g_array_index (g->rows, GstAxReportRow, j);

      if (!(row->flags & (GST_AX_REPORT_ROW_FLAG_DEVICE_WAIT |
                  GST_AX_REPORT_ROW_FLAG_STAGE |
                  GST_AX_REPORT_ROW_FLAG_STRONGLY_BLOCKED)))
        host += row->total_ms;
    }
  }
  return frames ? host / frames : 0;
}

/* Summed wall of the model's own host stages (probe spans that are not
 * the device wait): the frames inside the model but not on the device. */
static gdouble
model_host_stage_ns (Build * b, const gchar * group)
{
  gdouble ns = 0;
  guint i;

  for (i = 0; i < b->merged->len; i++) {
    Merged *m = &g_array_index (b->merged, Merged, i);

    if (m->row->kind == ROW_PROBE && g_strcmp0 (m->row->group, group) == 0 &&
        !(m->row->probe_flags & GST_AX_PROBE_FLAG_DEVICE_WAIT))
      ns += m->wall_sum_ns;
  }
  return ns;
}

/* Device figures are taken over the device window, from the first job's
 * start to the last job's end: the time the model was running, without
 * the pipeline's preroll and teardown. */
static void
build_devices (Build * b)
{
  GstAxReport *r = b->r;
  gdouble device_sum = 0;
  guint i;

  for (i = 0; i < b->p->devices->len; i++) {
    DevRec *d = g_ptr_array_index (b->p->devices, i);
    GstAxReportDevice rd = { 0, };
    gdouble events_per_job, fps, expected, window_ns, host_ns;
    guint64 union_ns;

    g_mutex_lock (&d->lock);
    rd.group = g_strdup (d->group);
    rd.device = g_strdup (d->device ? d->device : "device");
    rd.n_cores = MAX (d->n_cores, 1);
    rd.in_flight_window = d->window;
    rd.jobs = d->jobs_done;
    if (rd.jobs == 0 && d->events > 0)
      rd.jobs = d->max_job - d->min_job + 1;
    union_ns = d->union_ns + (d->cur_end - d->cur_start);
    window_ns = d->events ? (gdouble) (d->last_end - d->first_start) : 0;
    rd.sim_cpu_ms = d->sim_cpu_ns / NS_PER_MS;
    rd.lag_ms = d->lag_ns / NS_PER_MS;
    events_per_job = rd.jobs ? MAX ((gdouble) d->events / rd.jobs, 1.0) : 1;
    rd.device_ms = d->events ? d->busy_ns / NS_PER_MS / d->events : 0;
    host_ns = model_host_stage_ns (b, d->group);
    rd.host_ms = rd.jobs ? host_ns / NS_PER_MS / rd.jobs : 0;
    if (window_ns > 0) {
      rd.occupancy_percent = PERCENT * d->busy_ns / (rd.n_cores * window_ns);
      rd.depth = (d->busy_ns / events_per_job + host_ns) / window_ns;
    }
    rd.device_s = union_ns / NS_PER_S;
    rd.device_fps = union_ns > 0 ? rd.jobs / (union_ns / NS_PER_S) : 0;
    if (d->sim_cpu_ns > 0 && b->wall_ns > 0) {
      r->have_sim_cpu = TRUE;
      r->sim_cpu_percent += PERCENT * d->sim_cpu_ns / b->wall_ns;
    }
    g_mutex_unlock (&d->lock);

    rd.frames = rd.jobs;
    device_sum += rd.device_ms;

    if (d->events == 0) {
      gst_ax_report_add_warning (r, "%s reported a device but no device "
          "busy intervals: occupancy and device throughput read 0", rd.group);
    } else if (window_ns > 0) {
      fps = rd.jobs / (window_ns / NS_PER_S);
      /* occupancy x cores == fps x device_ms x cores per job */
      expected = fps * rd.device_ms / 1000.0 * events_per_job;
      if (fabs (rd.occupancy_percent / PERCENT * rd.n_cores - expected) >
          CHECK_TOLERANCE * MAX (expected, 1e-9))
        gst_ax_report_add_warning (r, "%s: occupancy x cores = %.2f but fps "
            "x device_ms = %.2f; they differ by more than %.0f%%: jobs, "
            "frames and busy intervals do not add up", rd.group,
            rd.occupancy_percent / PERCENT * rd.n_cores, expected,
            CHECK_TOLERANCE * PERCENT);
      /* Little's law over the model: depth == fps x time inside it */
      expected = fps * (rd.device_ms + rd.host_ms) / 1000.0;
      if (fabs (rd.depth - expected) > CHECK_TOLERANCE * MAX (expected, 1e-9))
        gst_ax_report_add_warning (r, "%s: achieved depth %.2f but fps x "
            "(device_ms + host_ms) = %.2f; they differ by more than %.0f%%: "
            "jobs and frames do not add up", rd.group, rd.depth, expected,
            CHECK_TOLERANCE * PERCENT);
    }
    g_array_append_val (r->devices, rd);
  }

  if (r->devices->len == 0) {
    r->devices_absent = g_strdup ("no device in this pipeline");
    r->share_absent = g_strdup ("no device in this pipeline");
    return;
  }
  r->share_device_ms = device_sum;
  r->share_host_ms = host_ms_per_frame (r, MAX (r->frames, 1));
}

typedef struct
{
  GstAxReportRow *row;
  const gchar *group;
  guint index;
} RowRef;

static RowRef
costliest_row (GstAxReport * r, gboolean (*accept) (GstAxReportRow *,
        gpointer), gpointer data)
{
  RowRef best = { NULL, NULL, 0 };
  guint i, j, k = 0;

  for (i = 0; i < r->groups->len; i++) {
    GstAxReportGroup *g = g_ptr_array_index (r->groups, i);

    for (j = 0; j < g->rows->len; j++, k++) {
      GstAxReportRow *row = &g_array_index (g->rows, GstAxReportRow, j);

      if (accept && !accept (row, data))
        continue;
      if (best.row == NULL || row->total_ms > best.row->total_ms) {
        best.row = row;
        best.group = g->name;
        best.index = k;
      }
    }
  }
  return best;
}

static gboolean
not_queue_row (GstAxReportRow * row, gpointer data)
{
  GstAxReport *r = data;
  guint i;

  for (i = 0; i < r->queues->len; i++) {
    const gchar *qn = g_array_index (r->queues, GstAxReportQueue, i).name;

    if (g_str_has_prefix (row->name, qn) || g_str_has_prefix (qn, row->name))
      return FALSE;
  }
  return TRUE;
}

static gboolean
computing_row (GstAxReportRow * row, gpointer data)
{
  return !(row->flags & (GST_AX_REPORT_ROW_FLAG_DEVICE_WAIT |
          GST_AX_REPORT_ROW_FLAG_BLOCKED |
          GST_AX_REPORT_ROW_FLAG_STRONGLY_BLOCKED));
}

/* The row that costs most among those that compute upstream of the
 * queue named @queue (smaller distance from the sources), queues apart:
 * what an empty queue is waiting for. */
static gchar *
upstream_culprit (Build * b, const gchar * queue)
{
  Merged *best = NULL;
  gint rank = -1;
  guint i;

  for (i = 0; i < b->p->queues->len; i++) {
    QueueRec *q = g_ptr_array_index (b->p->queues, i);
    Merged *m;

    if (strcmp (q->name, queue) == 0 &&
        (m = merged_for (b, q->elem->chain_row)) != NULL)
      rank = m->rank;
  }
  for (i = 0; i < b->merged->len; i++) {
    Merged *m = &g_array_index (b->merged, Merged, i);

    if (m->rank >= rank || m->row->elem->queue_kind != QUEUE_NONE ||
        m->usage_count == 0 || m->row->kind == ROW_PROBE)
      continue;
    /* computing: CPU at least half of wall, as for the BLOCKED flag */
    if ((gdouble) m->cpu_sum_ns / m->usage_count <
        GST_AX_REPORT_BLOCKED_CPU_RATIO * m->wall_sum_ns / m->count)
      continue;
    if (best == NULL || m->wall_sum_ns > best->wall_sum_ns)
      best = m;
  }
  if (best == NULL)
    return NULL;
  {
    gchar *name = row_name (best->row);
    gchar *out = g_strdup_printf ("%s, %.2f ms per frame", name,
        best->wall_sum_ns / NS_PER_MS / best->count);

    g_free (name);
    return out;
  }
}

static const gchar *
sources_of (PipeRec * p, GString * s)
{
  guint i;

  for (i = 0; i < p->elems->len; i++) {
    ElemInfo *ei = g_ptr_array_index (p->elems, i);

    if (ei->is_source)
      g_string_append_printf (s, "%s%s", s->len ? ", " : "", ei->name);
  }
  return s->len ? s->str : "the source";
}

/* The device whose simulator fell furthest behind its model per job, if
 * any fell behind (SIM_LAG_PACE_RATIO, SIM_LAG_PACE_MS). */
static GstAxReportDevice *
lagging_device (GstAxReport * r, gdouble * lag_per_job_ms)
{
  GstAxReportDevice *worst = NULL;
  guint i;

  *lag_per_job_ms = 0;
  for (i = 0; i < r->devices->len; i++) {
    GstAxReportDevice *d = &g_array_index (r->devices, GstAxReportDevice, i);
    gdouble per_job = d->jobs ? d->lag_ms / d->jobs : 0;

    if (per_job > MAX (SIM_LAG_PACE_RATIO * d->device_ms, SIM_LAG_PACE_MS) &&
        per_job > *lag_per_job_ms) {
      worst = d;
      *lag_per_job_ms = per_job;
    }
  }
  return worst;
}

static void
build_verdict (Build * b)
{
  GstAxReport *r = b->r;
  GString *v = g_string_new (NULL);
  GString *src = g_string_new (NULL);
  RowRef top = costliest_row (r, NULL, NULL);
  RowRef work = costliest_row (r, not_queue_row, r);
  RowRef compute = costliest_row (r, computing_row, NULL);
  GstAxReportQueue *full = NULL, *empty = NULL;
  GstAxReportDevice *dev = NULL;
  gchar *constraint = NULL;
  gdouble lag_per_job_ms, process_cpu_ms;
  gboolean sim_bound = FALSE;
  GstAxReportDevice *lagging = lagging_device (r, &lag_per_job_ms);
  guint i;

  /* 1. trust */
  g_string_append_printf (v, "  1. Trust: %s%s%s; the profiler cost %.1f%% "
      "of the profiled time%s.\n",
      r->status == GST_AX_REPORT_STATUS_CUT_SHORT ? "the run was CUT SHORT" :
      r->status == GST_AX_REPORT_STATUS_RUNNING ? "the run is still going" :
      "complete run", r->allow_debug ? ", DEBUG logging on (allow-debug)" :
      ", no DEBUG logging",
      r->sample > 1 ? ", CPU/faults sampled" : "",
      r->profiler_percent, r->warnings->len ? ", and the arithmetic checks "
      "raised warnings (above)" : "");
  /* the device model's figures stay what the modelled device would do,
   * but the pipeline waits for the host's functional compute */
  if (lagging)
    g_string_append_printf (v, "     WARNING: the simulator cannot keep pace "
        "with the device model: %s's functional compute lagged it by %.1f ms "
        "(%.2f ms per job over %" G_GUINT64_FORMAT " jobs against %.2f ms of "
        "modelled device time). Device figures (device_ms, occupancy, device "
        "fps) are the model's; throughput and latency are the host's.\n",
        lagging->group, lagging->lag_ms, lag_per_job_ms, lagging->jobs,
        lagging->device_ms);
  if (top.row == NULL) {
    g_string_append (v, "  Nothing was measured.");
    r->constraint = g_strdup ("undetermined (no data)");
    r->verdict = g_string_free (v, FALSE);
    g_string_free (src, TRUE);
    return;
  }

  /* 2. where the wall time is */
  {
    GstAxReportGroup *g0 = g_ptr_array_index (r->groups, 0);

    g_string_append_printf (v, "  2. Wall time: group %s holds %.1f%% of the "
        "profiled time; its costliest row overall is %s (%s) with %.1f ms "
        "(%.2f ms x %" G_GUINT64_FORMAT " calls).\n", g0->name, g0->percent,
        top.row->name, top.group, top.row->total_ms, top.row->mean_ms,
        top.row->count);
    if (compute.row && compute.row != top.row)
      g_string_append_printf (v, "     The costliest row that computes is "
          "%s (%s) with %.1f ms (CPU %.2f of %.2f ms per call).\n",
          compute.row->name, compute.group, compute.row->total_ms,
          compute.row->cpu_ms, compute.row->mean_ms);
  }
  /* 3. compute or waiting */
  g_string_append_printf (v, "  3. %s is %s: CPU %.2f of wall %.2f ms per "
      "call.\n", top.row->name,
      top.row->flags & GST_AX_REPORT_ROW_FLAG_DEVICE_WAIT ?
      "waiting on the device by design" :
      top.row->flags & (GST_AX_REPORT_ROW_FLAG_BLOCKED |
          GST_AX_REPORT_ROW_FLAG_STRONGLY_BLOCKED) ? "mostly waiting, "
      "not computing" : "computing", top.row->cpu_ms, top.row->mean_ms);
  /* 4. allocation */
  {
    GstAxReportRow *a = compute.row ? compute.row : work.row;

    if (!r->faults_measured)
      g_string_append (v, "  4. Allocation: faults are not measured on this "
          "system.\n");
    else if (a && a->faults >= ALLOCATING_FAULTS_PER_CALL)
      g_string_append_printf (v, "  4. Allocation: %s takes %.0f page faults "
          "per call: reuse its output buffer (a pool).\n", a->name, a->faults);
    else if (a)
      g_string_append_printf (v, "  4. Allocation: %s takes %.0f faults per "
          "call; allocation is not what costs.\n", a->name, a->faults);
  }

  /* 5. which resource */
  for (i = 0; i < r->devices->len; i++) {
    GstAxReportDevice *d = &g_array_index (r->devices, GstAxReportDevice, i);

    if (dev == NULL || d->occupancy_percent > dev->occupancy_percent)
      dev = d;
  }
  if (dev && r->have_sim_cpu)
    g_string_append_printf (v, "  5. Resource: device occupancy %.1f%% of %u "
        "cores%s; host cores used %.2f of %u, %.2f of them by the simulator's "
        "own threads.\n", dev->occupancy_percent, dev->n_cores,
        lagging ? " (the model's)" : "", r->cores_used, r->cores_available,
        r->sim_cpu_percent / PERCENT);
  else if (dev)
    g_string_append_printf (v, "  5. Resource: device occupancy %.1f%% of %u "
        "cores; host cores used %.2f of %u.\n", dev->occupancy_percent,
        dev->n_cores, r->cores_used, r->cores_available);
  else
    g_string_append_printf (v, "  5. Resource: no device; host cores used "
        "%.2f of %u.\n", r->cores_used, r->cores_available);

  /* 6. who starves whom */
  for (i = 0; i < r->queues->len; i++) {
    GstAxReportQueue *q = &g_array_index (r->queues, GstAxReportQueue, i);

    if (q->full_percent >= QUEUE_FULL_PERCENT &&
        (full == NULL || q->full_percent > full->full_percent))
      full = q;
    if (q->empty_percent >= QUEUE_EMPTY_PERCENT &&
        (empty == NULL || q->empty_percent > empty->empty_percent))
      empty = q;
  }

  /* The simulator's threads are not element rows: when they lag their
   * model and burn more CPU than the costliest computing row, the host
   * computing the network is what the pipeline waits for (in the device
   * wait, upstream queues filling behind it). */
  process_cpu_ms = r->cores_used * r->wall_s * 1000.0;
  if (lagging && lagging->sim_cpu_ms > 0 && (compute.row == NULL ||
          lagging->sim_cpu_ms >= compute.row->cpu_ms * compute.row->count)) {
    constraint = g_strdup_printf ("the simulator's functional compute (%s: "
        "sim-npu's own threads used %.1f ms of CPU, %.1f%% of the process's, "
        "and delivered each job %.2f ms after the device model finished it: "
        "this host computes the network slower than the modelled device "
        "runs it)", lagging->group, lagging->sim_cpu_ms,
        process_cpu_ms > 0 ? PERCENT * lagging->sim_cpu_ms / process_cpu_ms :
        0, lag_per_job_ms);
    sim_bound = TRUE;
  } else if (dev && dev->occupancy_percent >= DEVICE_BOUND_OCCUPANCY_PERCENT) {
    constraint = g_strdup_printf ("the device (%s on %s, %.1f%% occupied)",
        dev->group, dev->device, dev->occupancy_percent);
  } else if (dev && dev->in_flight_window > 0 &&
      dev->depth >= WINDOW_BOUND_DEPTH_RATIO * dev->in_flight_window) {
    constraint = g_strdup_printf ("the device at its in-flight window (%s: "
        "%.1f of %u jobs in flight, %.1f%% of %u cores busy: a larger "
        "in-flight window would use the idle cores)", dev->group, dev->depth,
        dev->in_flight_window, dev->occupancy_percent, dev->n_cores);
  } else if (full) {
    gboolean waits = work.row && (work.row->flags &
        GST_AX_REPORT_ROW_FLAG_STRONGLY_BLOCKED);

    constraint = g_strdup_printf ("back-pressure: %s is full %.1f%% of the "
        "time because %s downstream is slower%s%s%s", full->name,
        full->full_percent, work.row ? work.row->name : "a later element",
        waits ? " (and it mostly waits: " : "",
        waits ? (r->pacing ? r->pacing : "a clock or a lock") : "",
        waits ? ")" : "");
  } else if (empty) {
    gchar *up = upstream_culprit (b, empty->name);

    constraint = g_strdup_printf ("source starvation: %s is empty %.1f%% of "
        "the time, waiting on %s%s%s%s", empty->name, empty->empty_percent,
        sources_of (b->p, src), up ? " (the costliest work upstream of it is "
        : "", up ? up : "", up ? ")" : "");
    g_free (up);
  } else if (dev && dev->in_flight_window > 0 &&
      dev->depth < SUBMISSION_DEPTH_RATIO * dev->in_flight_window) {
    constraint = g_strdup_printf ("the submission loop: %.1f jobs in flight "
        "of a window of %u with the device %.1f%% occupied",
        dev->depth, dev->in_flight_window, dev->occupancy_percent);
  } else if (top.row->flags & GST_AX_REPORT_ROW_FLAG_STAGE &&
      g_str_has_suffix (top.row->name, "(create)")) {
    constraint = g_strdup_printf ("source starvation: %s produces the "
        "frames slowest", top.row->name);
  } else if (top.row->flags & (GST_AX_REPORT_ROW_FLAG_BLOCKED |
          GST_AX_REPORT_ROW_FLAG_STRONGLY_BLOCKED)) {
    constraint = g_strdup_printf ("back-pressure from %s, which waits "
        "rather than computes (%s)", top.row->name,
        r->pacing ? r->pacing : "check its sync/clock");
  } else {
    constraint = g_strdup_printf ("a host element: %s", top.row->name);
  }

  if (full || empty) {
    GstAxReportQueue *q = full ? full : empty;

    g_string_append_printf (v, "  6. Starvation: %s mean depth %.1f (max %.0f"
        "), full %.1f%%, empty %.1f%% of the time%s.\n", q->name, q->mean,
        q->max, q->full_percent, q->empty_percent, sim_bound && full ?
        " (filled behind the simulator's pace: an effect, not the cause)" : "");
  } else if (dev) {
    g_string_append_printf (v, "  6. Starvation: in-flight depth %.1f of a "
        "window of %u.\n", dev->depth, dev->in_flight_window);
  } else {
    g_string_append (v, "  6. Starvation: no queue is mostly full or "
        "mostly empty.\n");
  }
  r->constraint = constraint;
  g_string_truncate (v, v->len - 1);
  r->verdict = g_string_free (v, FALSE);
  g_string_free (src, TRUE);
}

/* global_lock and p->lock held */
static GstAxReport *
make_report (GstAxProf * self, PipeRec * p, GstAxReportStatus status)
{
  GstAxReport *r = gst_ax_report_new ();
  LatHist *lat = g_new0 (LatHist, 1);
  Build b = { r, g_array_new (FALSE, TRUE, sizeof (Merged)), p, 0 };
  gdouble profiled_ns = 0, cost_ns;
  guint64 element_buffers = 0, reads = 0, cpu1, end_ns;
  gchar *offender;
  gint64 logged;

  r->pipeline = p->pipeline ? gst_object_get_name (GST_OBJECT (p->pipeline)) :
      g_strdup (p->name);
  r->status = status;
  r->sample = self->sample;
  r->allow_debug = FALSE;

  offender = p->debug_at_start ? g_strdup (p->debug_at_start) :
      debug_default_offender ();
  logged =
      __atomic_load_n (&debug_log_count,
      __ATOMIC_RELAXED) - (gint64) p->log_count0;
  if (offender == NULL && logged > 0)
    offender = debug_logged_offender (logged);
  if (offender) {
    if (self->allow_debug) {
      r->allow_debug = TRUE;
    } else {
      r->refusal = g_strdup_printf ("DEBUG logging is enabled (%s). Each "
          "DEBUG message is formatted and written on the streaming thread "
          "that logs it: this run logged %" G_GINT64_FORMAT " of them, so "
          "every timing would be inflated by logging rather than measure "
          "the pipeline. No timings are reported. Rerun without GST_DEBUG "
          "(and without -v), or pass allow-debug=true to report anyway.",
          offender, logged);
      g_free (offender);
      g_free (lat);
      g_array_unref (b.merged);
      return r;
    }
    g_free (offender);
  }

  end_ns = status == GST_AX_REPORT_STATUS_RUNNING || p->end_probe_ns == 0 ?
      gst_ax_probe_now_ns () : p->end_probe_ns;
  cpu1 = status == GST_AX_REPORT_STATUS_RUNNING || p->cpu1_ns == 0 ?
      process_cpu_ns () : p->cpu1_ns;
  if (p->first_ts != 0 && end_ns > p->first_probe_ns)
    b.wall_ns = end_ns - p->first_probe_ns;

  lat->min_ns = G_MAXUINT64;
  build_rows (&b, lat, &profiled_ns, &element_buffers, &reads);
  build_latency (&b, lat);
  r->pacing = describe_pacing (p);

  r->cores_available = g_get_num_processors ();
  r->peak_mem_mb = peak_mem_mb ();
  {
    guint i;

    for (i = 0; i < b.merged->len; i++) {
      Merged *m = &g_array_index (b.merged, Merged, i);

      /* buffers, not calls: a list brings several */
      if (m->row->kind == ROW_CHAIN && m->row->elem->is_sink)
        r->frames = MAX (r->frames, m->items);
    }
  }
  if (b.wall_ns > 0) {
    r->wall_s = b.wall_ns / NS_PER_S;
    r->fps = r->frames / r->wall_s;
    r->cores_used = (cpu1 - p->cpu0_ns) / b.wall_ns;
    r->cpu_percent = PERCENT * r->cores_used;
  } else {
    r->throughput_absent = g_strdup ("no source pushed a buffer, so there "
        "is no run to time");
  }
  build_queues (&b);
  build_devices (&b);

  cost_ns = element_buffers * self->hook_cost_ns + reads * self->read_cost_ns;
  r->element_buffers = element_buffers;
  r->profiler_ns_per_element_buffer = element_buffers ?
      cost_ns / element_buffers : 0;
  r->profiler_percent = profiled_ns > 0 ? PERCENT * cost_ns / profiled_ns : 0;
  r->dropped_threads = __atomic_load_n (&dropped_records, __ATOMIC_RELAXED);
  r->usage_reader = g_strdup (gst_ax_probe_thread_usage_reader_name
      (gst_ax_probe_thread_usage_reader ()));

  build_verdict (&b);
  g_free (lat);
  g_array_unref (b.merged);
  return r;
}

static void
json_escape (GString * out, const gchar * str)
{
  const gchar *c;

  for (c = str; *c; c++) {
    if (*c == '"' || *c == '\\')
      g_string_append_printf (out, "\\%c", *c);
    else if ((guchar) * c < 0x20)
      g_string_append_printf (out, "\\u%04x", (guchar) * c);
    else
      g_string_append_c (out, *c);
  }
}

static void
trace_event (GString * out, gboolean * first, const gchar * name,
    const gchar * cat, gdouble ts_us, gdouble dur_us, guint pid, gint tid)
{
  g_string_append (out, *first ? "\n" : ",\n");
  *first = FALSE;
  g_string_append (out, "{\"name\":\"");
  json_escape (out, name);
  g_string_append (out, "\",\"cat\":\"");
  json_escape (out, cat);
  g_string_append_printf (out, "\",\"ph\":\"X\",\"ts\":%.3f,\"dur\":%.3f,"
      "\"pid\":%u,\"tid\":%d}", ts_us, dur_us, pid, tid);
}

/* global_lock and p->lock held. Chrome trace-event JSON, which the
 * Perfetto UI opens: host rows as complete events per thread slot,
 * device busy intervals per core, times in us since the first buffer. */
static gchar *
make_timeline (PipeRec * p)
{
  GString *out = g_string_new ("{\"displayTimeUnit\":\"ms\","
      "\"traceEvents\":[");
  gint64 offset = (gint64) p->first_probe_ns - (gint64) p->first_ts;
  gboolean first = TRUE;
  guint s, i;

  for (s = 0; s < MAX_THREAD_SLOTS; s++) {
    TraceRing *ring = __atomic_load_n (&trace_rings[s], __ATOMIC_ACQUIRE);
    guint64 head, j;

    if (ring == NULL)
      continue;
    head = __atomic_load_n (&ring->head, __ATOMIC_ACQUIRE);
    for (j = head > TRACE_RING_SIZE ? head - TRACE_RING_SIZE : 0; j < head; j++) {
      TraceEvent *e = &ring->events[j % TRACE_RING_SIZE];
      gint64 start;
      gchar *name;

      if (e->row == NULL || e->row->pipe != p || e->run != p->run)
        continue;
      start = e->probe_clock ? (gint64) e->start : (gint64) e->start + offset;
      name = row_name (e->row);
      trace_event (out, &first, name, row_group (e->row),
          (start - (gint64) p->first_probe_ns) / NS_PER_US,
          e->dur / NS_PER_US, TRACE_PID_HOST, s);
      g_free (name);
    }
  }
  for (i = 0; i < p->devices->len; i++) {
    DevRec *d = g_ptr_array_index (p->devices, i);
    guint64 j;

    g_mutex_lock (&d->lock);
    for (j = d->trace_head > DEVICE_RING_SIZE ?
        d->trace_head - DEVICE_RING_SIZE : 0; d->trace && j < d->trace_head;
        j++) {
      DeviceTraceEvent *e = &d->trace[j % DEVICE_RING_SIZE];
      gchar *name;

      if (e->run != p->run)
        continue;
      name = g_strdup_printf ("job %" G_GUINT64_FORMAT, e->job);
      trace_event (out, &first, name, d->group,
          ((gint64) e->start_ns - (gint64) p->first_probe_ns) / NS_PER_US,
          (e->end_ns - e->start_ns) / NS_PER_US, TRACE_PID_DEVICE, e->core);
      g_free (name);
    }
    g_mutex_unlock (&d->lock);
  }
  g_string_append (out, "\n]}\n");
  return g_string_free (out, FALSE);
}

static void
write_output (const gchar * what, const gchar * base, guint * n,
    const gchar * contents)
{
  gchar *path = *n == 0 ? g_strdup (base) : g_strdup_printf ("%s.%u", base,
      *n + 1);
  GError *err = NULL;

  (*n)++;
  if (!g_file_set_contents (path, contents, -1, &err)) {
    g_printerr ("axprof: cannot write %s=%s: %s\n", what, path, err->message);
    g_clear_error (&err);
  }
  g_free (path);
}

static void
write_report (GstAxProf * self, PipeRec * p, GstAxReport * r, gchar * timeline)
{
  gchar *text = gst_ax_report_to_text (r);
  gchar *json = gst_ax_report_to_json (r);
  GstStructure *s;
  GstElement *pipeline;

  if (self->file) {
    FILE *f = fopen (self->file, "a");

    if (f == NULL) {
      g_printerr ("axprof: cannot open file=%s for appending: %s; printing "
          "the report to stdout instead\n", self->file, g_strerror (errno));
      fputs (text, stdout);
      fflush (stdout);
    } else {
      fputs (text, f);
      fclose (f);
    }
  } else {
    fputs (text, stdout);
    fflush (stdout);
  }

  if (self->json)
    write_output ("json", self->json, &self->n_json, json);
  if (self->perfetto && timeline)
    write_output ("perfetto", self->perfetto, &self->n_perfetto, timeline);

  pipeline = p->pipeline ? gst_object_ref (p->pipeline) : NULL;
  if (pipeline) {
    s = gst_structure_new ("axprof-report",
        "pipeline", G_TYPE_STRING, r->pipeline,
        "status", G_TYPE_STRING, r->status == GST_AX_REPORT_STATUS_EOS ?
        "eos" : "cut-short",
        "refused", G_TYPE_BOOLEAN, r->refusal != NULL,
        "constraint", G_TYPE_STRING, r->constraint,
        "text", G_TYPE_STRING, text, "json", G_TYPE_STRING, json,
        "usage-reader", G_TYPE_STRING, gst_ax_probe_thread_usage_reader () ==
        GST_AX_PROBE_USAGE_PERF ? "perf" : "rusage",
        "usage-fallback-threads", G_TYPE_UINT,
        gst_ax_probe_thread_usage_fallback_threads (), NULL);
    gst_element_post_message (pipeline,
        gst_message_new_element (GST_OBJECT (pipeline), s));
    gst_object_unref (pipeline);
  }
  g_free (text);
  g_free (json);
}

static void
finish_run (GstAxProf * self, PipeRec * p, GstAxReportStatus status)
{
  gchar *timeline = NULL;
  GstAxReport *r;

  g_mutex_lock (&global_lock);
  if (p->reported || !p->started) {
    g_mutex_unlock (&global_lock);
    return;
  }
  p->reported = TRUE;
  p->end_probe_ns = gst_ax_probe_now_ns ();
  p->cpu1_ns = process_cpu_ns ();
  g_mutex_lock (&p->lock);
  r = make_report (self, p, status);
  if (self->perfetto && r->refusal == NULL && p->first_ts != 0)
    timeline = make_timeline (p);
  g_mutex_unlock (&p->lock);
  g_mutex_unlock (&global_lock);

  write_report (self, p, r, timeline);
  g_free (timeline);
  gst_ax_report_free (r);
}

static void
reset_stats (PipeRec * p)
{
  guint i, s;

  for (i = 0; i < p->rows->len; i++) {
    Row *row = g_ptr_array_index (p->rows, i);

    for (s = 0; s < MAX_THREAD_SLOTS; s++) {
      RowStats *st = row->slots[s];
      LatHist *lat;

      if (st == NULL)
        continue;
      lat = st->lat;
      memset (st, 0, sizeof (*st));
      st->wall_min_ns = G_MAXUINT64;
      st->first_seen_ns = gst_ax_probe_now_ns ();
      if (lat) {
        memset (lat, 0, sizeof (*lat));
        lat->min_ns = G_MAXUINT64;
        st->lat = lat;
      }
    }
  }
  for (i = 0; i < p->queues->len; i++) {
    QueueRec *q = g_ptr_array_index (p->queues, i);

    g_mutex_lock (&q->lock);
    q->seen = FALSE;
    q->depth = 0;
    q->area = 0;
    q->at_max_ns = 0;
    g_mutex_unlock (&q->lock);
  }
  for (i = 0; i < p->devices->len; i++) {
    DevRec *d = g_ptr_array_index (p->devices, i);

    g_mutex_lock (&d->lock);
    d->busy_ns = d->events = d->union_ns = d->cur_start = d->cur_end = 0;
    d->first_start = d->last_end = 0;
    d->min_job = G_MAXUINT64;
    d->max_job = 0;
    g_mutex_unlock (&d->lock);
  }
  for (i = 0; i < (guint) p->n_rings; i++)
    p->rings[i]->head = 0;
  p->first_ts = 0;
  p->end_probe_ns = p->cpu1_ns = 0;
  p->run++;
}

static PipeRec *
pipe_rec_of_pipeline (GstElement * element, gboolean create)
{
  PipeRec *p = NULL;
  guint i;

  g_mutex_lock (&global_lock);
  for (i = 0; i < pipes->len; i++) {
    PipeRec *c = g_ptr_array_index (pipes, i);

    if (c->pipeline == element)
      p = c;
  }
  if (p == NULL && create)
    p = pipe_rec_get (element);
  g_mutex_unlock (&global_lock);
  return p;
}

static GstAxReport *
report_provider (GstElement * pipeline, gpointer user_data)
{
  GstAxProf *self = user_data;
  GstAxReport *r;
  PipeRec *p = pipe_rec_of_pipeline (pipeline, FALSE);

  if (p == NULL)
    return NULL;
  g_mutex_lock (&global_lock);
  g_mutex_lock (&p->lock);
  r = make_report (self, p,
      p->reported ? GST_AX_REPORT_STATUS_EOS : GST_AX_REPORT_STATUS_RUNNING);
  g_mutex_unlock (&p->lock);
  g_mutex_unlock (&global_lock);
  return r;
}

/* ---------------------------------------------------------------- hooks */

static void
do_element_new (GObject * self, GstClockTime ts, GstElement * element)
{
  if (GST_IS_PIPELINE (element))
    pipe_rec_of_pipeline (element, TRUE);
}

static void
do_bin_add_post (GObject * self, GstClockTime ts, GstBin * bin,
    GstElement * element, gboolean result)
{
  /* Learn elements in the order they are added, which for parsed launch
   * lines is the order of the line; pads added later are found lazily. */
  GstObject *top = GST_OBJECT (bin);

  if (!result || GST_IS_BIN (element) ||
      g_object_get_qdata (G_OBJECT (element), elem_quark) != NULL)
    return;
  while (GST_OBJECT_PARENT (top) != NULL)
    top = GST_OBJECT_PARENT (top);
  /* a bin still being assembled would be taken for the top-level */
  if (GST_IS_PIPELINE (top))
    elem_info_slow (GST_OBJECT (element));
}

static void
do_post_message_pre (GObject * obj, GstClockTime ts, GstElement * element,
    GstMessage * message)
{
  PipeRec *p;

  if (GST_MESSAGE_TYPE (message) == GST_MESSAGE_STREAM_STATUS) {
    GstStreamStatusType type;
    guint64 cpu, faults;

    /* A task's thread posts ENTER itself before its first buffer: its
     * usage reader is opened (and armed, which sleeps) here rather than
     * inside the first measured span. */
    gst_message_parse_stream_status (message, &type, NULL);
    if (type == GST_STREAM_STATUS_TYPE_ENTER) {
      (void) thread_state ();
      gst_ax_probe_thread_usage (&cpu, &faults);
    }
    return;
  }
  if (GST_MESSAGE_TYPE (message) != GST_MESSAGE_EOS ||
      !GST_IS_PIPELINE (element) || GST_OBJECT_PARENT (element) != NULL)
    return;
  p = pipe_rec_of_pipeline (element, TRUE);
  finish_run (GST_AX_PROF (obj), p, GST_AX_REPORT_STATUS_EOS);
}

static void
do_change_state_post (GObject * obj, GstClockTime ts, GstElement * element,
    GstStateChange transition, GstStateChangeReturn result)
{
  PipeRec *p;
  guint i;

  if (!GST_IS_PIPELINE (element) || GST_OBJECT_PARENT (element) != NULL ||
      result == GST_STATE_CHANGE_FAILURE)
    return;
  if (transition == GST_STATE_CHANGE_READY_TO_PAUSED) {
    p = pipe_rec_of_pipeline (element, TRUE);
    g_mutex_lock (&global_lock);
    g_mutex_lock (&p->lock);
    if (p->reported)
      reset_stats (p);
    p->reported = FALSE;
    p->started = TRUE;
    g_free (p->debug_at_start);
    p->debug_at_start = debug_default_offender ();
    p->log_count0 = __atomic_load_n (&debug_log_count, __ATOMIC_RELAXED);
    for (i = 0; i < MAX_NAMED_CATEGORIES; i++)
      __atomic_store_n (&logged_categories[i], NULL, __ATOMIC_RELAXED);
    g_mutex_unlock (&p->lock);
    g_mutex_unlock (&global_lock);
  } else if (transition == GST_STATE_CHANGE_PAUSED_TO_READY) {
    p = pipe_rec_of_pipeline (element, FALSE);
    if (p)
      finish_run (GST_AX_PROF (obj), p, GST_AX_REPORT_STATUS_CUT_SHORT);
  }
}

/* ---------------------------------------------------------------- setup */

/* Measures what one usage read and the bookkeeping of one element-buffer
 * cost on this machine, so the report can state its own overhead. */
static void
calibrate (GstAxProf * self)
{
  ThreadState t = { 0, };
  Row row = { 0, };
  RowStats st = { 0, };
  GObject *dummy = g_object_new (G_TYPE_OBJECT, NULL);
  ElemInfo ei = { 0, };
  ElemCacheEntry *c;
  guint64 cpu, faults, t0, t1;
  guint saved = sample_every, i, pass;

  st.wall_min_ns = G_MAXUINT64;
  /* best of a few passes: the first one pays for cold caches */
  self->read_cost_ns = G_MAXDOUBLE;
  for (pass = 0; pass < CALIBRATION_PASSES; pass++) {
    t0 = gst_ax_probe_now_ns ();
    for (i = 0; i < CALIBRATION_ROUNDS; i++)
      thread_usage (&t, &cpu, &faults);
    t1 = gst_ax_probe_now_ns ();
    self->read_cost_ns = MIN (self->read_cost_ns,
        (gdouble) (t1 - t0) / CALIBRATION_ROUNDS);
  }

  /* sampling off so that only bookkeeping is timed */
  sample_every = G_MAXUINT;
  st.countdown = G_MAXUINT;
  ei.element = GST_ELEMENT_CAST (dummy);
  c = elem_cache_slot (&t, GST_OBJECT_CAST (dummy));
  c->parent = GST_OBJECT_CAST (dummy);
  c->ei = &ei;
  self->hook_cost_ns = G_MAXDOUBLE;
  for (pass = 0; pass < CALIBRATION_PASSES; pass++) {
    t0 = gst_ax_probe_now_ns ();
    for (i = 0; i < CALIBRATION_ROUNDS; i++) {
      Frame *f = &t.stack[0];

      /* four hooks per element-buffer: push-pre, chain-pre, chain-post,
       * push-post, each resolving its pad's element (a cache hit) */
      (void) elem_cache_lookup (elem_cache_slot (&t, GST_OBJECT_CAST (dummy)),
          GST_OBJECT_CAST (dummy));
      (void) elem_cache_lookup (elem_cache_slot (&t, GST_OBJECT_CAST (dummy)),
          GST_OBJECT_CAST (dummy));
      frame_open (f, &row, &st, i, &t);
      (void) elem_cache_lookup (elem_cache_slot (&t, GST_OBJECT_CAST (dummy)),
          GST_OBJECT_CAST (dummy));
      frame_pause (f, i + 1, &t);
      frame_record (f, &t, i + 1);
      (void) elem_cache_lookup (elem_cache_slot (&t, GST_OBJECT_CAST (dummy)),
          GST_OBJECT_CAST (dummy));
      frame_resume (f, i + 1, &t);
    }
    t1 = gst_ax_probe_now_ns ();
    self->hook_cost_ns = MIN (self->hook_cost_ns,
        (gdouble) (t1 - t0) / CALIBRATION_ROUNDS);
  }
  GST_INFO ("calibrated: %.0f ns per usage read (%s), %.0f ns bookkeeping "
      "per element-buffer", self->read_cost_ns,
      gst_ax_probe_thread_usage_reader_name
      (gst_ax_probe_thread_usage_reader ()), self->hook_cost_ns);
  sample_every = saved;
  g_object_unref (dummy);
}

static void
parse_params (GstAxProf * self)
{
  gchar *params = NULL, *tmp;
  GstStructure *s;
  gint n;

  g_object_get (self, "params", &params, NULL);
  if (params == NULL)
    return;
  tmp = g_strdup_printf ("axprof,%s", params);
  s = gst_structure_from_string (tmp, NULL);
  g_free (tmp);
  if (s == NULL) {
    g_warning ("axprof: cannot parse params '%s'; expected key=value pairs "
        "separated by commas: file=PATH, json=PATH, perfetto=PATH, sample=N, "
        "allow-debug=true", params);
    g_free (params);
    return;
  }
  if (gst_structure_has_field (s, "file"))
    self->file = g_strdup (gst_structure_get_string (s, "file"));
  if (gst_structure_has_field (s, "json"))
    self->json = g_strdup (gst_structure_get_string (s, "json"));
  if (gst_structure_has_field (s, "perfetto"))
    self->perfetto = g_strdup (gst_structure_get_string (s, "perfetto"));
  if (gst_structure_has_field (s, "sample")) {
    if (gst_structure_get_int (s, "sample", &n) && n >= 1)
      self->sample = n;
    else
      g_warning ("axprof: sample must be an integer >= 1; got '%s'; "
          "measuring every call", params);
  }
  if (gst_structure_has_field (s, "allow-debug") &&
      !gst_structure_get_boolean (s, "allow-debug", &self->allow_debug))
    g_warning ("axprof: allow-debug must be true or false; got '%s'", params);
  if ((gst_structure_has_field (s, "file") && self->file == NULL) ||
      (gst_structure_has_field (s, "json") && self->json == NULL) ||
      (gst_structure_has_field (s, "perfetto") && self->perfetto == NULL))
    g_warning ("axprof: file=, json= and perfetto= take a path; got '%s'",
        params);
  {
    gint i;

    for (i = 0; i < gst_structure_n_fields (s); i++) {
      const gchar *f = gst_structure_nth_field_name (s, i);

      if (strcmp (f, "file") && strcmp (f, "json") && strcmp (f, "sample") &&
          strcmp (f, "allow-debug") && strcmp (f, "perfetto"))
        g_warning ("axprof: unknown param '%s' ignored; known: file, json, "
            "perfetto, sample, allow-debug", f);
    }
  }
  gst_structure_free (s);
  g_free (params);
}

static void
gst_ax_prof_constructed (GObject * object)
{
  GstAxProf *self = GST_AX_PROF (object);
  GstTracer *tracer = GST_TRACER (object);

  G_OBJECT_CLASS (gst_ax_prof_parent_class)->constructed (object);
  parse_params (self);
  sample_every = self->sample;

  g_mutex_lock (&global_lock);
  if (the_tracer == NULL)
    the_tracer = self;
  g_mutex_unlock (&global_lock);

  calibrate (self);
  trace_on = self->perfetto != NULL;
  gst_tracing_register_hook (tracer, "pad-push-pre", G_CALLBACK (do_push_pre));
  gst_tracing_register_hook (tracer, "pad-push-post",
      G_CALLBACK (do_push_post));
  gst_tracing_register_hook (tracer, "pad-push-list-pre",
      G_CALLBACK (do_push_list_pre));
  gst_tracing_register_hook (tracer, "pad-push-list-post",
      G_CALLBACK (do_push_post));
  gst_tracing_register_hook (tracer, "pad-chain-pre",
      G_CALLBACK (do_chain_pre));
  gst_tracing_register_hook (tracer, "pad-chain-post",
      G_CALLBACK (do_chain_post));
  gst_tracing_register_hook (tracer, "pad-chain-list-pre",
      G_CALLBACK (do_chain_list_pre));
  gst_tracing_register_hook (tracer, "pad-chain-list-post",
      G_CALLBACK (do_chain_post));
  gst_tracing_register_hook (tracer, "pad-push-event-pre",
      G_CALLBACK (do_push_event_pre));
  gst_tracing_register_hook (tracer, "pad-push-event-post",
      G_CALLBACK (do_push_event_post));
  gst_tracing_register_hook (tracer, "pad-pull-range-pre",
      G_CALLBACK (do_pull_range_pre));
  gst_tracing_register_hook (tracer, "pad-pull-range-post",
      G_CALLBACK (do_pull_range_post));
  gst_tracing_register_hook (tracer, "element-post-message-pre",
      G_CALLBACK (do_post_message_pre));
  gst_tracing_register_hook (tracer, "element-new",
      G_CALLBACK (do_element_new));
  gst_tracing_register_hook (tracer, "bin-add-post",
      G_CALLBACK (do_bin_add_post));
  gst_tracing_register_hook (tracer, "element-change-state-post",
      G_CALLBACK (do_change_state_post));

  gst_debug_add_log_function (count_debug_log, NULL, NULL);
  self->probe_sink = gst_ax_probe_add_sink (&probe_funcs, self);
  gst_ax_report_set_provider (report_provider, self);
}

static void
gst_ax_prof_finalize (GObject * object)
{
  GstAxProf *self = GST_AX_PROF (object);

  g_free (self->file);
  g_free (self->json);
  g_free (self->perfetto);
  G_OBJECT_CLASS (gst_ax_prof_parent_class)->finalize (object);
}

static void
gst_ax_prof_class_init (GstAxProfClass * klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);

  gobject_class->constructed = gst_ax_prof_constructed;
  gobject_class->finalize = gst_ax_prof_finalize;

  GST_DEBUG_CATEGORY_INIT (gst_ax_prof_debug, "axprof", 0, "axprof tracer");
  elem_quark = g_quark_from_static_string ("gst-ax-axprof-element");
  pad_queue_quark = g_quark_from_static_string ("gst-ax-axprof-queue");
  pad_type = GST_TYPE_PAD;
  g_mutex_lock (&global_lock);
  if (pipes == NULL)
    pipes = g_ptr_array_new ();
  g_mutex_unlock (&global_lock);
}

static void
gst_ax_prof_init (GstAxProf * self)
{
  self->sample = 1;
}
