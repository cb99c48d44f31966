/* gst-ax
 * Copyright (C) 2026 gst-ax developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

/* The axprof tracer's records, which all its files share. Its files,
 * from the top down (a file calls only files below it):
 *   gstaxprof.c           the GstTracer: params, calibration, hooks, the
 *                         action signals, the lifecycle (start, EOS, stop)
 *                         and the bus message
 *   gstaxprof-section.c   a pipeline's records started afresh: a new run,
 *                         a profiled section
 *   gstaxprof-report.c    the GstAxReport of a pipeline's run, judged by
 *                         gst_ax_report_make_verdict() (gst/ax); its queues
 *                         and devices in gstaxprof-report-queues.c and
 *                         gstaxprof-report-devices.c
 *   gstaxprof-timeline.c  the perfetto= timeline's JSON
 *   gstaxprof-pads.c      the pad hooks and the probe sink
 *   gstaxprof-thread.c    per-thread state: slots, span stacks, usage
 *                         reads, histograms (the fast path inline in
 *                         gstaxprof-thread.h)
 *   gstaxprof-registry.c  pipelines, elements, rows, queues and devices
 *   gstaxprof-latency.c   end-to-end latency matching
 *   gstaxprof-census.c    every thread of the process and its CPU
 *   gstaxprof-trace.c     what the perfetto= timeline records
 *   gstaxprof-debug.c     what the run logs at DEBUG
 * Headers: this one (the records, and the calls into the registry, the
 * latency matching, the census and the pad hooks); gstaxprof-thread.h
 * (the hot path's fast path); gstaxprof-trace.h (the timeline's
 * recording); gstaxprof-census.h and gstaxprof-report-private.h (what
 * only the report side reads: included by no file of the hot path).
 *
 * Locks and threads. Lock order: axprof_global_lock, then a pipeline's
 * lock (PipelineState.lock), then a queue's or a device's lock
 * (QueueState.lock, DeviceState.lock); never the other way round, and
 * never two pipelines' or two queues'/devices' locks at once.
 * - axprof_global_lock guards the list of pipelines and the liveness of
 *   the GStreamer objects the records point to (ElementState.element,
 *   PipelineState.pipeline are cleared under it when the object goes).
 * - A pipeline's lock guards its arrays of rows, elements, queues,
 *   devices and latency rings, which only grow: a record, once
 *   published, is never freed while the process runs, so a pointer read
 *   without the lock stays valid.
 * - The per-buffer hooks take no lock but a queue's (queue elements
 *   only): a thread writes its own ThreadState and the RowStats in its
 *   slot of every Row, published with release stores; the report merges
 *   the slots with acquire loads. A latency ring is written by the
 *   streaming thread of its pad only, entry by entry, so readers skip an
 *   entry whose key changed under them.
 * - Report and timeline are made with the global and the pipeline's lock
 *   held, and take queue and device locks one at a time.
 */

#ifndef __GST_AX_PROF_PRIVATE_H__
#define __GST_AX_PROF_PRIVATE_H__

#include <gst/gst.h>

#include <gst/ax/ax.h>
#include <gst/ax/gstax-private.h>

G_BEGIN_DECLS GST_DEBUG_CATEGORY_EXTERN (gst_ax_prof_debug);
#define GST_CAT_DEFAULT gst_ax_prof_debug

/* Threads that can record at the same time: a row keeps a thread's
 * figures in slot chunks, allocated as threads come. A thread beyond the
 * last slot is not measured; the report counts its records as dropped,
 * warns, and its Trust step calls the figures incomplete. */
#define SLOTS_PER_CHUNK 64
#define SLOT_CHUNKS 64
#define MAX_THREAD_SLOTS (SLOTS_PER_CHUNK * SLOT_CHUNKS)
/* Nested pushes per thread (chain -> push -> chain ...) the span stack
 * holds before it first grows; it grows with the pipeline's depth. */
#define SPAN_STACK_INITIAL 64
/* End-to-end latency matching (see gstaxprof-latency.c): buffers
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
/* Timeline (perfetto=): the latest events kept per thread slot and per
 * device, so a long run keeps its most recent stretch in bounded memory. */
#define TRACE_RING_SIZE (1 << 15)
#define DEVICE_RING_SIZE (1 << 14)
#define QUEUE_RING_SIZE (1 << 14)
/* hook times paired with the probe clock per thread, to find the offset
 * between the two clocks (see gstaxprof-timeline.c) */
#define TRACE_CLOCK_SAMPLES 4096
/* a thread's name as the kernel keeps it (TASK_COMM_LEN) */
#define TRACE_THREAD_NAME_SIZE 16
/* nested caps events and state changes a thread's census context keeps */
#define MAX_CENSUS_CONTEXTS 8

typedef struct _PipelineState PipelineState;
typedef struct _ElementState ElementState;
typedef struct _LatencyRelay LatencyRelay;
/* the census's record of a thread (gstaxprof-census.c) */
typedef struct _CensusThread CensusThread;

typedef enum
{
  ROW_CHAIN,
  ROW_LOOP,
  ROW_PROBE,
} RowKind;

/* Log-linear histogram of a sink's end-to-end latencies. */
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
} LatencyHistogram;

/* One row's figures as seen by one thread; written by that thread only.
 * CPU and faults are signed: a stage reported through the probe API is
 * taken out of its element's call, which in the default mode may get its
 * share of a read only later; the report clamps a row's total at 0. */
typedef struct
{
  guint64 count;
  guint64 items;
  guint64 wall_sum_ns;
  guint64 wall_min_ns;
  guint64 wall_max_ns;
  gint64 cpu_sum_ns;
  gint64 faults_sum;
  guint64 reads;
  /* reads timed where they ran (one in READ_TIMING_EVERY per thread) and
   * their summed cost: the report's own-cost figure, cold caches and all */
  guint64 reads_timed;
  guint64 read_timed_ns;
  guint64 first_seen_ns;
  /* default mode: wall of this row's segments since the thread's last
   * usage read, and whether the row is in the thread's batch */
  guint64 batch_wall;
  gboolean in_batch;
  LatencyHistogram *lat;
  /* a section's restart from another thread bumps restart_gen (with
   * restart_ns, when it happened); the owning thread clears its own
   * figures before its next write and sets gen_seen, so no write races
   * the clear and none is lost (axprof_stats_own()) */
  guint restart_gen;
  guint gen_seen;
  guint64 restart_ns;
} RowStats;

/* A line of the report: an element's chain, its task loop, or a stage it
 * reports through the probe API. */
typedef struct
{
  PipelineState *pipe;
  ElementState *elem;
  RowKind kind;
  gchar *stage;
  gchar *group;
  GstAxProbeFlags probe_flags;
  /* slot i (chunk i / SLOTS_PER_CHUNK) is written by the thread holding
   * slot i; chunks and slots are published atomically (axprof_row_slot()) */
  RowStats **slot_chunks[SLOT_CHUNKS];
  /* timeline: submissions (GST_AX_PROBE_FLAG_SUBMIT) so far this run */
  guint64 trace_submits;
  /* the element hands work to a GLib thread pool: its segments are
   * boundaries of the pool accounting (relaxed atomic) */
  gboolean pool;
} Row;

/* A queue's limits, its max-size-* properties (a multiqueue's apply to
 * each of its streams); 0 where unlimited. */
typedef struct
{
  guint buffers;
  guint64 bytes;
  guint64 time_ns;
  /* a queue's leaky mode (GstQueueLeaky: 0 no, 1 upstream, 2
   * downstream): it drops buffers without a push */
  guint leaky;
} QueueLimits;

/* A queue's level at a time, for the timeline's counter tracks. */
typedef struct
{
  guint64 ts;
  gint64 buffers;
  gint64 bytes;
  guint32 run;
} QueueTraceSample;

/* Level over time of a queue (a multiqueue has one per stream), followed
 * from the buffers that enter (its chain returning) and leave (its push)
 * and the flushes that empty it. */
typedef struct
{
  gchar *name;
  ElementState *elem;
  /* a multiqueue's stream: its pads are sink_N and src_N */
  guint stream;
  GMutex lock;
  /* protected by lock */
  gint64 depth;
  gint64 bytes;
  /* end (timestamp + duration) of the last buffer in and out: within a
   * segment their difference is the queue's time level, as its own
   * running-time difference is */
  GstClockTime in_end;
  GstClockTime out_end;
  guint64 last_ns;
  guint64 first_ns;
  gdouble area;
  /* time at each limit, at any limit, and at level 0 */
  guint64 at_max_ns;
  guint64 at_max_bytes_ns;
  guint64 at_max_time_ns;
  guint64 full_ns;
  guint64 empty_ns;
  gint64 min;
  gint64 max;
  gboolean seen;
  QueueLimits limits;
  /* buffers taken in (the chain returned OK), pushed out, and held when a
   * flush emptied the queue: what is left is what it dropped or holds */
  guint64 in_buffers;
  guint64 out_buffers;
  guint64 flushed;
  /* limits.leaky, also readable without the lock (relaxed atomic): the
   * chain-post hook reads a leaky queue's own level (never a normal
   * queue's) */
  guint leaky;
  /* the timeline's samples of the level (perfetto=) */
  QueueTraceSample *trace;
  guint64 trace_head;
} QueueState;

/* When a frame entered the pipeline, keyed by its running time. */
typedef struct
{
  /* latency_timed_key() or latency_untimed_key(); 0 while written */
  guint64 key;
  /* when the frame entered */
  guint64 ts;
  guint64 dur;
} LatencyEntry;

typedef struct
{
  /* set before the ring is published, then constant */
  ElementState *src;
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
  LatencyEntry entries[LATENCY_RING_SIZE];
} LatencyRing;

typedef struct
{
  guint core;
  guint64 job;
  guint64 start_ns;
  guint64 end_ns;
  guint32 run;
  /* its place among the element's device events this run, from 1: the
   * job of its submission of the same place */
  guint64 seq;
} DeviceTraceEvent;

/* The element's own books of its device (GstAxProbeDevice), which only
 * grow while it streams: a section counts them from what they held when
 * it began (gstaxprof-section.c). */
typedef struct
{
  guint64 jobs_done;
  guint64 sim_cpu_ns;
  guint64 lag_ns;
  guint64 in_window_ns;
  guint64 held_in_window_ns;
  guint64 window_span_ns;
} DeviceBooks;

/* A device (a model group of an element) and its busy intervals. */
typedef struct
{
  gchar *group;
  ElementState *elem;
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
  guint64 trace_seq;
  /* the element's own books of its window (GstAxProbeDevice) */
  guint64 in_window_ns;
  guint64 held_in_window_ns;
  guint64 window_span_ns;
  /* the simulated device it ran on: models with the same handle shared
   * one (0: the element's own) */
  guint device_id;
  guint64 device_handle;
  /* the books when the current section began; zero outside one */
  DeviceBooks base;
} DeviceState;

typedef enum
{
  QUEUE_NONE,
  QUEUE_SINGLE,
  QUEUE_MULTI,
} QueueKind;

/* What the tracer knows of an element; outlives it. */
struct _ElementState
{
  /* cleared under axprof_global_lock when the element is finalized */
  GstElement *element;
  gchar *name;
  PipelineState *pipe;
  gboolean is_source;
  gboolean is_sink;
  gboolean is_basesrc;
  /* a GstAggregator: its sink pads queue, its task loop works */
  gboolean is_aggregator;
  QueueKind queue_kind;
  QueueState *queue;
  /* rings of the pads where frames enter; written under pipe->lock */
  LatencyRing *pad_rings[MAX_RINGS_PER_ELEMENT];
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
  /* size of the last buffer the element pushed (relaxed atomic): what
   * the verdict weighs its page faults against */
  guint64 out_bytes;
  /* pushes, counted (relaxed) so that out_bytes is taken only on every
   * OUT_BYTES_EVERY-th */
  guint pushes;
  /* pool threads' CPU taken while its calls ran, its calls so far, and
   * the pool threads that computed for it (bits by census index);
   * protected by the census lock (gstaxprof-census.c) */
  guint64 pool_cpu_ns;
  guint64 pool_cpu_base_ns;
  guint pool_calls;
  guint64 pool_threads;
  /* the census looked for its threads at its first buffer (relaxed
   * atomic, set by the streaming thread that brought it; a race only
   * scans twice) */
  gboolean census_seen;
  /* a sink's media, from the caps of its sink pad, read by its streaming
   * thread with the stream and segment (relaxed atomic) */
  guint sink_media;
  /* a muxer (an aggregator whose output is not raw media) passes its
   * input frames' entering times on to the buffers it pushes: a FIFO of
   * them, in the order they came in (gstaxprof-latency.c) */
  LatencyRelay *relay;
  /* QoS messages the element posted this run, and the counts of the last
   * one; protected by pipe->lock */
  guint64 qos_messages;
  GstFormat qos_format;
  guint64 qos_processed;
  guint64 qos_dropped;
};

/* ElementState.sink_media */
enum
{
  SINK_MEDIA_UNKNOWN,
  SINK_MEDIA_VIDEO,
  SINK_MEDIA_AUDIO,
  /* caps that are neither, or a container format under video/ */
  SINK_MEDIA_OTHER,
};

/* A top-level bin and its records: the unit of a report. */
struct _PipelineState
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
  LatencyRing *rings[MAX_LATENCY_RINGS];
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
  /* (element-type ThreadBase): every thread's usage at the run's first
   * buffer, and the pool CPU nobody's call ran for then */
  GArray *thread_base;
  guint64 pool_unattributed_base_ns;
  /* the process's CPU then: the accounting's window starts with the run,
   * the throughput's at its first buffer */
  guint64 acct_cpu0_ns;
  /* the census's length then: a thread it held without a snapshot had
   * ended */
  guint census_len_at_start;
  /* the first ERROR message an element of the pipeline posted this run;
   * protected by axprof_global_lock */
  gchar *error_element;
  gchar *error_message;
  gchar *error_debug;
};

/* An open span on a thread's stack: an element's chain (or a pull from
 * it) or its task loop, with the time and usage accumulated so far
 * outside the nested calls. */
typedef struct
{
  Row *row;
  RowStats *st;
  GstPad *pull_pad;
  /* the sink pad of a chain call: its chain-post is matched by pointer */
  GstPad *chain_pad;
  /* buffers the call brought in (a list's length) */
  guint items;
  guint64 open_ts;
  guint64 seg_start;
  gint64 acc_wall;
  gint64 acc_cpu;
  gint64 acc_faults;
  guint64 cpu0;
  guint64 faults0;
  /* the call brought buffers without timestamps (bytes to a parser) */
  gboolean untimed_in;
  /* its row's pool flag when it opened */
  gboolean pool;
  /* into a queue: what the call brings, counted if it returns OK */
  guint64 queue_bytes;
  GstClockTime queue_start;
  GstClockTime queue_end;
} Span;

typedef struct
{
  Row *row;
  guint64 start;
  guint64 dur;
  guint32 run;
  /* start is on the probe clock (a reported stage), else a hook time */
  gboolean probe_clock;
  /* a submission's place among its row's this run, from 1; else 0 */
  guint64 submit_seq;
} TraceEvent;

/* written by the thread holding the slot only */
typedef struct
{
  guint64 head;
  /* the least probe clock minus hook time seen on this thread, over
   * clock_samples pairs (relaxed atomics: read by the timeline) */
  gint64 clock_offset;
  guint clock_samples;
  /* the name of the thread that holds the slot, or held it last */
  gchar thread_name[TRACE_THREAD_NAME_SIZE];
  TraceEvent events[TRACE_RING_SIZE];
} TraceRing;

/* Per-thread memo of the last stage rows and devices looked up: the
 * probe API promises static or interned stage strings, so the pointers
 * are the key, and element infos, rows and devices are never freed. */
#define PROBE_CACHE_SIZE 16

typedef struct
{
  ElementState *ei;
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
#define ELEMENT_CACHE_SIZE 128
#define ELEMENT_CACHE_BITS 7
/* Fibonacci hashing spreads object addresses (which differ by their
 * allocation size) over the sets; two ways per set take a collision */
#define ELEMENT_CACHE_MULTIPLIER G_GUINT64_CONSTANT (0x9E3779B97F4A7C15)
#define ELEMENT_CACHE_WAYS 2
/* the size of the last buffer an element pushed is kept on one push in
 * this many: the verdict needs a recent one, not every one */
#define OUT_BYTES_EVERY 16

typedef struct
{
  GstObject *parent;
  ElementState *ei;
} ElementCacheEntry;

/* Default mode: the rows that ran since the thread's last usage read,
 * each with its wall time in RowStats.batch_wall. A full batch forces a
 * read; a row repeats in steady state, so 32 is plenty. */
#define USAGE_BATCH_ROWS 32

typedef struct
{
  gint slot;
  /* the kernel's schedstat of the thread when it was first seen: CPU run
   * and time runnable waiting for a CPU (axprof_slot_wait_ratios()) */
  gint tid;
  gboolean sched_ok;
  guint64 sched_cpu0_ns;
  guint64 sched_wait0_ns;
  /* usage reads made, for timing one in READ_TIMING_EVERY */
  guint reads_done;
  /* default mode: hook time and values of the thread's last usage read */
  guint64 last_read_ts;
  guint64 last_cpu;
  guint64 last_faults;
  gboolean have_read;
  guint n_batch;
  guint64 batch_wall;
  RowStats *batch[USAGE_BATCH_ROWS];
  ElementCacheEntry elems[ELEMENT_CACHE_SIZE];
  ProbeCacheEntry rows[PROBE_CACHE_SIZE];
  ProbeCacheEntry devs[PROBE_CACHE_SIZE];
  guint event_depth;
  /* bit d: the event pushed at nesting level d is a segment or a
   * stream-start */
  guint64 sticky_events;
  /* bit d: the event pushed at nesting level d is a caps or an EOS
   * event, which the receiver may start threads for */
  guint64 context_events;
  guint depth;
  /* the open calls, innermost last: stack_size spans, grown by
   * axprof_span_push() */
  guint stack_size;
  Span *stack;
  Span loop;
  gboolean loop_open;
  gboolean pending;
  guint64 pending_cpu;
  guint64 pending_faults;
  /* a buffer push left the top call at push_ts and has not reached the
   * next element's chain yet: the pushing pad's probes run meanwhile,
   * and are the pusher's */
  gboolean push_pending;
  /* the census's record of this thread, and the elements whose caps or
   * state change it is running (innermost last; n_ctx may exceed the
   * array, which then keeps the outer ones) */
  CensusThread *census;
  ElementState *ctx[MAX_CENSUS_CONTEXTS];
  guint n_ctx;
  /* the thread's name before each context's tag (empty: not tagged) */
  gchar ctx_names[MAX_CENSUS_CONTEXTS][TRACE_THREAD_NAME_SIZE];
  /* each context's tag, 1 + its index (gstaxprof-census.c) */
  guint ctx_tags[MAX_CENSUS_CONTEXTS];
} ThreadState;

/* ---------------------------------------------------------------- atomics */

/* A per-thread statistic is written only by its thread but read by the
 * report at any time (gst_ax_report_get_for_pipeline() on a running
 * pipeline), so the writes and the report's reads are relaxed atomics:
 * plain moves on x86-64, and no torn or invented values elsewhere. The
 * writer's own read of the old value is not shared and stays plain. */
#define AXPROF_STORE(field, value) \
  G_STMT_START { \
    __typeof__ (field) axprof_v_ = (value); \
    __atomic_store (&(field), &axprof_v_, __ATOMIC_RELAXED); \
  } G_STMT_END
#define AXPROF_ADD(field, delta) AXPROF_STORE (field, (field) + (delta))
#define AXPROF_LOAD(field) \
  ({ \
    __typeof__ (field) axprof_v_; \
    __atomic_load (&(field), &axprof_v_, __ATOMIC_RELAXED); \
    axprof_v_; \
  })

/* ---------------------------------------------------------------- latency */

static inline guint
axprof_hist_index (guint64 v)
{
  guint e;

  if (v < HIST_SUB)
    return (guint) v;
  e = 63 - __builtin_clzll (v);
  return (e - HIST_SUB_BITS + 1) * HIST_SUB +
      (guint) ((v >> (e - HIST_SUB_BITS)) & (HIST_SUB - 1));
}

static inline void
axprof_hist_add (LatencyHistogram * h, guint64 v)
{
  AXPROF_ADD (h->n, 1);
  AXPROF_ADD (h->sum_ns, v);
  AXPROF_ADD (h->sumsq_ns, (gdouble) v * v);
  if (v < h->min_ns)
    AXPROF_STORE (h->min_ns, v);
  if (v > h->max_ns)
    AXPROF_STORE (h->max_ns, v);
  AXPROF_ADD (h->buckets[axprof_hist_index (v)], 1);
}

static inline GstClockTime
axprof_latency_buffer_ts (GstBuffer * buf)
{
  return GST_BUFFER_PTS_IS_VALID (buf) ? GST_BUFFER_PTS (buf) :
      GST_BUFFER_DTS (buf);
}

/* ---------------------------------------------------------------- calls */

/* gstaxprof-registry.c */
void axprof_registry_init (void);
ElementState *axprof_element_state_slow (GstObject * parent);
QueueState *axprof_queue_of_pad (ElementState * ei, GstPad * pad);
void axprof_queue_in (QueueState * q, guint64 ts, guint n, guint64 bytes,
    GstClockTime start, GstClockTime end);
void axprof_queue_in_leaky (QueueState * q, GstObject * queue, guint64 ts,
    guint n, GstClockTime start, GstClockTime end);
void axprof_element_qos (ElementState * ei, GstMessage * message);
void axprof_queue_out (QueueState * q, guint64 ts, guint n, guint64 bytes,
    GstClockTime end);
void axprof_queue_flush (QueueState * q, guint64 ts);
void axprof_queue_advance (QueueState * q, guint64 ts);
Row *axprof_pipeline_stage_row (PipelineState * p, ElementState * ei,
    const GstAxProbeSpan * span);
DeviceState *axprof_pipeline_device (PipelineState * p, ElementState * ei,
    const gchar * group);
PipelineState *axprof_pipeline_of (GstElement * element, gboolean create);
GPtrArray *axprof_pipelines (void);
gboolean axprof_pipeline_alone (PipelineState * p);
GstPad *axprof_upstream_pad (GstPad * sinkpad);
GstElement *axprof_upstream_element (GstPad * sinkpad);
gchar *axprof_row_name (Row * row);
const gchar *axprof_row_group (Row * row);

/* gstaxprof-latency.c */
void axprof_latency_mark (ElementState * ei, GstPad * pad, guint64 ts,
    GstBuffer * buf);
void axprof_latency_at_sink (ElementState * ei, GstPad * pad, guint64 ts,
    LatencyHistogram * lat, GstBuffer * buf, GstBufferList * list);
LatencyRelay *axprof_latency_relay_new (GstElement * element);
void axprof_latency_relay_in (ElementState * ei, GstPad * pad,
    GstBuffer * buf);
guint64 axprof_latency_relay_out (ElementState * ei, guint64 ts);
void axprof_latency_streams_changed (void);

/* gstaxprof-census.c: what the hooks and the thread state call (what the
 * report reads: gstaxprof-census.h) */
gint axprof_gettid (void);
void axprof_census_init (void);
void axprof_census_hooked (ThreadState * t);
void axprof_census_thread_exit (ThreadState * t);
void axprof_census_thread_serves (ThreadState * t, PipelineState * p);
void axprof_census_scan (ElementState * owner, const gchar * how);
void axprof_census_context_enter (ThreadState * t, ElementState * ei,
    const gchar * how);
void axprof_census_context_leave (ThreadState * t, const gchar * how);
void axprof_pool_boundary (ElementState * ei, gboolean begin);
void axprof_element_check_pool (ElementState * ei);
guint64 axprof_process_cpu_ns (void);

/* gstaxprof-pads.c: the hooks and the probe sink that gstaxprof.c
 * registers */
guint axprof_probe_sink_add (gpointer user_data);
void axprof_pad_push_pre (GObject * self, GstClockTime ts, GstPad * pad,
    GstBuffer * buf);
void axprof_pad_push_list_pre (GObject * self, GstClockTime ts,
    GstPad * pad, GstBufferList * list);
void axprof_pad_push_post (GObject * self, GstClockTime ts, GstPad * pad,
    GstFlowReturn r);
void axprof_pad_push_event_pre (GObject * self, GstClockTime ts,
    GstPad * pad, GstEvent * event);
void axprof_pad_push_event_post (GObject * self, GstClockTime ts,
    GstPad * pad, gboolean res);
void axprof_pad_chain_pre (GObject * self, GstClockTime ts, GstPad * pad,
    GstBuffer * buf);
void axprof_pad_chain_list_pre (GObject * self, GstClockTime ts,
    GstPad * pad, GstBufferList * list);
void axprof_pad_chain_post (GObject * self, GstClockTime ts, GstPad * pad,
    GstFlowReturn r);
void axprof_pad_pull_range_pre (GObject * self, GstClockTime ts,
    GstPad * pad, guint64 offset, guint size);
void axprof_pad_pull_range_post (GObject * self, GstClockTime ts,
    GstPad * pad, GstBuffer * buffer, GstFlowReturn r);

G_END_DECLS
#endif /* __GST_AX_PROF_PRIVATE_H__ */
