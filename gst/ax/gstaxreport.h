/* gst-ax
 * Copyright (C) 2026 gst-ax developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

#ifndef __GST_AX_REPORT_H__
#define __GST_AX_REPORT_H__

#include <gst/ax/ax-prelude.h>

G_BEGIN_DECLS

/**
 * GST_AX_REPORT_SCHEMA:
 *
 * The schema identifier written into every JSON report.
 */
#define GST_AX_REPORT_SCHEMA "gst-ax/axprof-report/1"

/**
 * GST_AX_REPORT_MIN_P999_SAMPLES:
 *
 * Below this many latency samples the p99.9 is not reported.
 */
#define GST_AX_REPORT_MIN_P999_SAMPLES 1000

/**
 * GstAxReportRowFlags:
 * @GST_AX_REPORT_ROW_FLAG_NONE: a plain element row
 * @GST_AX_REPORT_ROW_FLAG_DEVICE_WAIT: the row waits on a device by design
 * @GST_AX_REPORT_ROW_FLAG_STAGE: the row is a stage, not an element
 * @GST_AX_REPORT_ROW_FLAG_BLOCKED: CPU is well below wall
 * @GST_AX_REPORT_ROW_FLAG_STRONGLY_BLOCKED: CPU is a small fraction of wall
 * @GST_AX_REPORT_ROW_FLAG_WORKERS: the row's CPU includes threads of its
 *   element's own (codec frame threads, an encoder's pool, a thread pool
 *   its calls hand work to), so it can exceed the wall
 *
 * Classification of a row, printed in the Flag column.
 */
typedef enum
{
  GST_AX_REPORT_ROW_FLAG_NONE = 0,
  GST_AX_REPORT_ROW_FLAG_DEVICE_WAIT = (1 << 0),
  GST_AX_REPORT_ROW_FLAG_STAGE = (1 << 1),
  GST_AX_REPORT_ROW_FLAG_BLOCKED = (1 << 2),
  GST_AX_REPORT_ROW_FLAG_STRONGLY_BLOCKED = (1 << 3),
  GST_AX_REPORT_ROW_FLAG_WORKERS = (1 << 4),
} GstAxReportRowFlags;

/**
 * GST_AX_REPORT_RANK_UNKNOWN:
 *
 * The rank of a row whose distance from the sources is not known; it
 * sorts after every known rank.
 */
#define GST_AX_REPORT_RANK_UNKNOWN G_MAXINT

/**
 * GstAxReportRowKind:
 * @GST_AX_REPORT_ROW_KIND_ELEMENT: an element's chain or getrange function
 * @GST_AX_REPORT_ROW_KIND_TASK: a task loop between two pushes (create,
 *   pull, loop)
 * @GST_AX_REPORT_ROW_KIND_REPORTED: a stage an element reported through
 *   the probe API
 *
 * What a row measures.
 */
typedef enum
{
  GST_AX_REPORT_ROW_KIND_ELEMENT,
  GST_AX_REPORT_ROW_KIND_TASK,
  GST_AX_REPORT_ROW_KIND_REPORTED,
} GstAxReportRowKind;

/**
 * GstAxReportRow:
 * @name: element or stage name
 * @mean_ms: mean exclusive wall time per call
 * @cpu_ms: mean thread CPU time per call
 * @faults: mean minor page faults per call
 * @min_ms: minimum wall time of a call
 * @max_ms: maximum wall time of a call
 * @total_ms: summed wall time of all calls
 * @count: number of calls
 * @flags: #GstAxReportRowFlags
 * @element: (nullable): name of the element the row belongs to
 * @kind: what the row measures
 * @rank: the element's distance from the sources along the pad links,
 *   #GST_AX_REPORT_RANK_UNKNOWN if not known
 * @out_bytes: size of the buffers the row's element pushes (the last one
 *   seen), 0 if not known
 * @inactive: the element only feeds a pad that an input-selector does not
 *   pass on: its time does not reach the sinks
 * @workers: threads of the element's own whose CPU is in @cpu_ms
 *   (#GST_AX_REPORT_ROW_FLAG_WORKERS), 0 if none
 * @worker_cpu_ms: their CPU over the run, in total (included in @cpu_ms,
 *   which is per call)
 * @cpu_wait_ms: mean time per call the row's threads were runnable but
 *   waited for a CPU taken by other work, estimated from the kernel's
 *   per-thread run-queue wait in proportion to @cpu_ms (0 where the
 *   kernel keeps none, and on an idle machine)
 *
 * One row of the per-operator/stage table.
 */
typedef struct
{
  gchar *name;
  gdouble mean_ms;
  gdouble cpu_ms;
  gdouble faults;
  gdouble min_ms;
  gdouble max_ms;
  gdouble total_ms;
  guint64 count;
  GstAxReportRowFlags flags;
  gchar *element;
  GstAxReportRowKind kind;
  gint rank;
  guint64 out_bytes;
  gboolean inactive;
  guint workers;
  gdouble worker_cpu_ms;
  gdouble cpu_wait_ms;

  /*< private >*/
  gpointer _gst_reserved[GST_PADDING];
} GstAxReportRow;

/**
 * GstAxReportThread:
 * @name: the thread's name, as the kernel keeps it
 * @tid: its thread id
 * @kind: "streaming" (runs the pipeline's elements), "worker" (an
 *   element's own), "pool" (a GLib thread pool's, shared), "simulator"
 *   (sim-npu's device threads) or "other"
 * @element: (nullable): the element a worker belongs to
 * @cpu_ms: its CPU time over the run
 * @faults: its minor page faults over the run
 *
 * One thread of the process that worked during the run.
 */
typedef struct
{
  gchar *name;
  gint tid;
  gchar *kind;
  gchar *element;
  gdouble cpu_ms;
  gdouble faults;

  /*< private >*/
  gpointer _gst_reserved[GST_PADDING];
} GstAxReportThread;

/**
 * GstAxReportGroup:
 * @name: model name, child bin name or "pipeline"
 * @total_ms: summed wall time of the rows
 * @percent: share of the profiled time (all groups)
 * @rows: (element-type GstAxReportRow): rows in execution order
 *
 * A block of rows: one model, one named child bin or the pipeline.
 */
typedef struct
{
  gchar *name;
  gdouble total_ms;
  gdouble percent;
  GArray *rows;

  /*< private >*/
  gpointer _gst_reserved[GST_PADDING];
} GstAxReportGroup;

/**
 * GstAxReportQueue:
 * @name: queue element name (with the stream pad for multiqueue)
 * @mean: time-weighted mean depth in buffers
 * @min: minimum depth
 * @max: maximum depth
 * @max_size_buffers: the queue's buffer limit, 0 if unlimited
 * @at_max_percent: share of the time spent at @max_size_buffers
 * @full_percent: share of the time the level was at one of the queue's
 *   limits (@max_size_buffers, @max_size_bytes or @max_size_time_ms,
 *   whichever binds)
 * @empty_percent: share of the time the level was 0
 * @element: (nullable): name of the queue element (@name without the
 *   stream pad)
 * @max_size_bytes: the queue's byte limit, 0 if unlimited
 * @max_size_time_ms: the queue's time limit, 0 if unlimited
 * @full_limit: (nullable): the limit that held the queue full longest
 *   ("max-size-buffers", "max-size-bytes" or "max-size-time"), %NULL if
 *   it never was full
 * @downstream: (nullable): the element the queue (the multiqueue
 *   stream) pushes into, through ghost pads
 * @leaky: (nullable): the queue's leaky mode, "upstream" (it drops the
 *   incoming buffer when full) or "downstream" (the oldest one it holds);
 *   %NULL when it does not leak
 * @input: buffers the queue took in (its chain returned OK)
 * @dropped: buffers it dropped: taken in, never pushed, not flushed by a
 *   flushing seek and not held at the end
 * @dropped_percent: @dropped over @input
 * @branch: (element-type utf8) (nullable): the elements the queue's
 *   output reaches, along the links (its branch of a tee), %NULL when
 *   not known
 *
 * Occupancy of one queue, or of one stream of a multiqueue, from its own
 * level over time: time-weighted over the run from its first buffer.
 */
typedef struct
{
  gchar *name;
  gdouble mean;
  gdouble min;
  gdouble max;
  guint max_size_buffers;
  gdouble at_max_percent;
  gdouble full_percent;
  gdouble empty_percent;
  gchar *element;
  guint64 max_size_bytes;
  gdouble max_size_time_ms;
  gchar *full_limit;
  gchar *downstream;
  gchar *leaky;
  guint64 input;
  guint64 dropped;
  gdouble dropped_percent;
  GPtrArray *branch;

  /*< private >*/
  gpointer _gst_reserved[GST_PADDING];
} GstAxReportQueue;

/**
 * GstAxReportQos:
 * @element: the element that posted the QoS messages
 * @format: the format of @processed and @dropped, as
 *   gst_format_get_name() names it ("buffers", "default", ...)
 * @processed: what the element processed, from its last QoS message
 * @dropped: what it dropped, from its last QoS message
 * @messages: QoS messages it posted during the run
 *
 * Drops an element reported itself through GST_MESSAGE_QOS (a sink
 * dropping late buffers, a decoder skipping frames): the counts of its
 * last message, which GStreamer keeps cumulative.
 */
typedef struct
{
  gchar *element;
  gchar *format;
  guint64 processed;
  guint64 dropped;
  guint64 messages;

  /*< private >*/
  gpointer _gst_reserved[GST_PADDING];
} GstAxReportQos;

/**
 * GstAxReportDevice:
 * @group: model name
 * @device: device profile name
 * @n_cores: device cores
 * @in_flight_window: declared in-flight window
 * @jobs: device jobs completed
 * @frames: frames through the model
 * @device_ms: mean device time per job
 * @host_ms: mean host time per frame in the model's own stages
 * @occupancy_percent: busy core-time / (cores x wall)
 * @depth: achieved in-flight depth: time-weighted frames inside the
 *   element's window, from entering it to their push (finished frames
 *   waiting for the in-order push included)
 * @device_s: wall time during which at least one core was busy
 * @device_fps: @jobs / @device_s
 * @sim_cpu_ms: CPU time of the simulator's own threads
 * @lag_ms: time by which functional compute fell behind the device model
 * @held_depth: the part of @depth that is finished frames waiting for the
 *   in-order push (0 when the element does not measure it)
 * @device_id: which chip of @device (the axinference device-id)
 * @occupancy_index: 1 + the index of the device the model ran on in the
 *   report's device_occupancy, or 0 when it is not listed there
 *
 * One device driven by one model. Several models that share a device
 * each have an entry; the device itself is listed once in
 * device_occupancy.
 */
typedef struct
{
  gchar *group;
  gchar *device;
  guint n_cores;
  guint in_flight_window;
  guint64 jobs;
  guint64 frames;
  gdouble device_ms;
  gdouble host_ms;
  gdouble occupancy_percent;
  gdouble depth;
  gdouble device_s;
  gdouble device_fps;
  gdouble sim_cpu_ms;
  gdouble lag_ms;
  gdouble held_depth;
  guint device_id;
  guint occupancy_index;

  /*< private >*/
  gpointer _gst_reserved[GST_PADDING];
} GstAxReportDevice;

/**
 * GstAxReportModelShare:
 * @group: the model name
 * @busy_ms: busy core time of the model's jobs on the device
 * @share_percent: @busy_ms over the device's busy core time
 *
 * One model's part of a device's busy time.
 */
typedef struct
{
  gchar *group;
  gdouble busy_ms;
  gdouble share_percent;

  /*< private >*/
  gpointer _gst_reserved[GST_PADDING];
} GstAxReportModelShare;

/**
 * GstAxReportDeviceOccupancy:
 * @device: device profile name
 * @device_id: which chip of @device
 * @n_cores: device cores
 * @busy_ms: busy core time of all the models that ran on it
 * @window_s: from the first job's start to the last job's end, over all
 *   its models
 * @occupancy_percent: @busy_ms / (@n_cores x @window_s)
 * @sim_cpu_ms: CPU time of the device's simulator threads
 * @models: (element-type GstAxReportModelShare): the models that ran on
 *   it, in the order of the report's devices
 *
 * One simulated device, listed once however many models share it.
 */
typedef struct
{
  gchar *device;
  guint device_id;
  guint n_cores;
  gdouble busy_ms;
  gdouble window_s;
  gdouble occupancy_percent;
  gdouble sim_cpu_ms;
  GArray *models;

  /*< private >*/
  gpointer _gst_reserved[GST_PADDING];
} GstAxReportDeviceOccupancy;

/**
 * GstAxReportStream:
 * @name: the stream's name, e.g. "stream 1"
 * @sink: (nullable): the sink element the stream ends in
 * @frames: frames that reached @sink
 * @fps: @frames over the report's wall time
 *
 * One of several independent streams of a run, each from its own source
 * into its own sink (gst-ax-benchmark --streams).
 */
typedef struct
{
  gchar *name;
  gchar *sink;
  guint64 frames;
  gdouble fps;

  /*< private >*/
  gpointer _gst_reserved[GST_PADDING];
} GstAxReportStream;

/**
 * GstAxReportLatency:
 * @n: number of samples (buffers arriving at sinks)
 * @min_ms: minimum
 * @mean_ms: mean
 * @p50_ms: median
 * @p95_ms: 95th percentile
 * @p99_ms: 99th percentile
 * @p999_ms: 99.9th percentile, NAN under #GST_AX_REPORT_MIN_P999_SAMPLES
 * @max_ms: maximum
 * @stddev_ms: standard deviation
 * @jitter_ms: max - min
 *
 * End-to-end latency from the source push to the sink.
 */
typedef struct
{
  guint64 n;
  gdouble min_ms;
  gdouble mean_ms;
  gdouble p50_ms;
  gdouble p95_ms;
  gdouble p99_ms;
  gdouble p999_ms;
  gdouble max_ms;
  gdouble stddev_ms;
  gdouble jitter_ms;

  /*< private >*/
  gpointer _gst_reserved[GST_PADDING];
} GstAxReportLatency;

/**
 * GstAxReportStatus:
 * @GST_AX_REPORT_STATUS_EOS: the pipeline reached EOS
 * @GST_AX_REPORT_STATUS_CUT_SHORT: the pipeline stopped without EOS
 * @GST_AX_REPORT_STATUS_RUNNING: taken on demand while running
 * @GST_AX_REPORT_STATUS_SECTION: a profiled section: what ran between
 *   gst_ax_profiler_start() and gst_ax_profiler_stop()
 * @GST_AX_REPORT_STATUS_ERROR: an element posted an ERROR message: the
 *   run is incomplete (the report's error_* fields name it)
 * @GST_AX_REPORT_STATUS_INTERVAL: one interval of a run (the tracer's
 *   `interval=` param): the figures of that interval alone; the report's
 *   interval_index and interval_start_s say which (Since: 0.2)
 *
 * How the run ended when the report was made, or what it covers.
 */
typedef enum
{
  GST_AX_REPORT_STATUS_EOS,
  GST_AX_REPORT_STATUS_CUT_SHORT,
  GST_AX_REPORT_STATUS_RUNNING,
  GST_AX_REPORT_STATUS_SECTION,
  GST_AX_REPORT_STATUS_ERROR,
  GST_AX_REPORT_STATUS_INTERVAL,
} GstAxReportStatus;

/**
 * GstAxReportConstraintKind:
 * @GST_AX_REPORT_CONSTRAINT_UNDETERMINED: nothing was measured, or the run
 *   was refused
 * @GST_AX_REPORT_CONSTRAINT_SIMULATOR: the simulator's functional compute
 *   on the host is slower than the device it models
 * @GST_AX_REPORT_CONSTRAINT_DEVICE: the device is mostly occupied
 * @GST_AX_REPORT_CONSTRAINT_WINDOW: the device's in-flight window is full
 *   while cores are idle
 * @GST_AX_REPORT_CONSTRAINT_BACKPRESSURE: a queue is mostly full, or the
 *   costliest row mostly waits, behind something slower downstream
 * @GST_AX_REPORT_CONSTRAINT_SOURCE: a queue is mostly empty, or a source's
 *   task is the costliest row: upstream cannot keep up
 * @GST_AX_REPORT_CONSTRAINT_SUBMISSION: the device's window is not kept
 *   full
 * @GST_AX_REPORT_CONSTRAINT_HOST: a host element computing
 * @GST_AX_REPORT_CONSTRAINT_LIVE_PACED: the pipeline keeps pace with its
 *   live source, which waits for its clock between frames
 * @GST_AX_REPORT_CONSTRAINT_DROPS: a leaky queue drops buffers: the branch
 *   after it cannot keep up
 *
 * The kind of constraint the verdict names.
 */
typedef enum
{
  GST_AX_REPORT_CONSTRAINT_UNDETERMINED,
  GST_AX_REPORT_CONSTRAINT_SIMULATOR,
  GST_AX_REPORT_CONSTRAINT_DEVICE,
  GST_AX_REPORT_CONSTRAINT_WINDOW,
  GST_AX_REPORT_CONSTRAINT_BACKPRESSURE,
  GST_AX_REPORT_CONSTRAINT_SOURCE,
  GST_AX_REPORT_CONSTRAINT_SUBMISSION,
  GST_AX_REPORT_CONSTRAINT_HOST,
  GST_AX_REPORT_CONSTRAINT_LIVE_PACED,
  GST_AX_REPORT_CONSTRAINT_DROPS,
} GstAxReportConstraintKind;

/**
 * GstAxReportProjection:
 * @time_scale: the device time scale projected: every device job takes
 *   its modelled time multiplied by it (1.0: the modelled device's own
 *   speed)
 * @host_speed: the host rows' speed against this host's (1.0: as
 *   measured; 0.5: a host half as fast)
 * @what_if: (nullable): the configuration changed from the run's, e.g.
 *   "in-flight=8,cores=2"; %NULL for the run's own
 * @fps: frames per second at the busiest sink, as the report's
 * @latency_p50_ms: median end-to-end latency (of a frame alone in the
 *   pipeline when the report's latency comes from a serial pass)
 * @occupancy_percent: occupancy of the busiest device
 * @kind: the constraint on the modelled device
 * @element: (nullable): the element the constraint names
 * @row: (nullable): the row the constraint names
 * @queue: (nullable): the queue it rests on
 * @model: (nullable): the model (device group) it rests on
 * @constraint: (nullable): what follows "the constraint would be", or
 *   why nothing was projected (@kind undetermined)
 *
 * What the pipeline would do on the modelled device: a queueing model of
 * its streaming threads (each serving its rows' CPU per frame as measured
 * on this host, the simulator's threads left out), its queues, in-flight
 * windows and device cores, with every device job taking its modelled
 * time. gst_ax_report_get_projection() reads it.
 *
 * Since: 0.2
 */
typedef struct
{
  gdouble time_scale;
  gdouble host_speed;
  gchar *what_if;
  gdouble fps;
  gdouble latency_p50_ms;
  gdouble occupancy_percent;
  GstAxReportConstraintKind kind;
  gchar *element;
  gchar *row;
  gchar *queue;
  gchar *model;
  gchar *constraint;

  /*< private >*/
  gpointer topology;
  gpointer _gst_reserved[GST_PADDING];
} GstAxReportProjection;

/**
 * GstAxReportVerdict:
 * @kind: the kind of constraint
 * @element: (nullable): the element the verdict names: the computing or
 *   waiting row's element, the row downstream of a full queue, the
 *   costliest computing work upstream of an empty queue (else its first
 *   source); %NULL for the device kinds
 * @row: (nullable): the row the verdict names, when it names one
 * @group: (nullable): the group of @row
 * @queue: (nullable): the mostly full or mostly empty queue it rests on
 * @model: (nullable): the model (device group) it rests on
 * @simulator_lags: a device's simulator fell behind its model (the trust
 *   step warns)
 * @constraint: what follows "the constraint is" in the report
 * @steps: (element-type utf8): the reading steps, one string per step
 *   (a step may hold continuation lines)
 * @text: the steps joined by newlines, as the report prints them
 *
 * The verdict on a report, made by gst_ax_report_make_verdict() from the
 * report's figures alone.
 */
typedef struct
{
  GstAxReportConstraintKind kind;
  gchar *element;
  gchar *row;
  gchar *group;
  gchar *queue;
  gchar *model;
  gboolean simulator_lags;
  gchar *constraint;
  GPtrArray *steps;
  gchar *text;

  /*< private >*/
  gpointer _gst_reserved[GST_PADDING];
} GstAxReportVerdict;

/**
 * GstAxReport:
 * @pipeline: name of the top-level pipeline
 * @status: how the run ended, or that the report covers a section
 * @refusal: (nullable): why no timings are reported (DEBUG logging on),
 *   %NULL when they are
 * @allow_debug: DEBUG logging was on and allow-debug=true overrode the
 *   refusal
 * @sample: 1 = CPU and faults read on every call; N = on every Nth call
 *   per row and thread
 * @faults_measured: %FALSE where per-thread faults cannot be read
 * @profiler_ns_per_element_buffer: the tracer's own cost per
 *   element-buffer
 * @profiler_percent: that cost as a share of the profiled time
 * @element_buffers: element calls measured
 * @dropped_threads: records of threads beyond the per-thread slots
 * @latency: end-to-end latency (gst_ax_report_get_latency())
 * @latency_unmatched: sink buffers not matched to an entering frame, so
 *   not in @latency
 * @pacing: (nullable): how the run was paced (live source, clock-synced
 *   sinks, or free-running)
 * @latency_absent: (nullable): why there is no latency
 * @latency_serial: the latency comes from a serial pass
 *   (gst_ax_report_set_serial_latency()), not from the streamed run the
 *   rest of the report describes
 * @groups: (element-type GstAxReportGroup): the per-operator/stage rows
 *   in groups, ranked by total time (gst_ax_report_get_group())
 * @groups_absent: (nullable): why there are no rows
 * @share_device_ms: device time per frame (host/device share)
 * @share_host_ms: host time per frame of the rows that are not waiting
 * @share_absent: (nullable): why there is no host/device share
 * @frames: video frames at the busiest video sink (buffers at the
 *   busiest sink when no sink negotiated video/ or audio/ caps)
 * @frames_sink: (nullable): the sink @frames were counted at
 * @video_sinks: sinks that negotiated video caps
 * @audio_buffers: buffers at the busiest sink that negotiated audio caps
 *   (not frames)
 * @audio_sink: (nullable): that sink
 * @wall_s: from the first buffer a source pushed to the end of the run
 * @fps: @frames / @wall_s
 * @cpu_percent: process CPU over @wall_s (100 = one core)
 * @cores_used: @cpu_percent / 100
 * @cores_available: online processors
 * @peak_mem_mb: peak resident set of the process
 * @sim_cpu_percent: the simulator's own CPU, when @have_sim_cpu
 * @have_sim_cpu: a sim-npu device reported its CPU time
 * @throughput_absent: (nullable): why there is no throughput
 * @queues: (element-type GstAxReportQueue): each queue (multiqueue
 *   stream)'s level over the run (gst_ax_report_get_queue())
 * @queues_absent: (nullable): why there are no queues
 * @devices: (element-type GstAxReportDevice): one entry per model and
 *   device (gst_ax_report_get_device())
 * @devices_absent: (nullable): why there are no devices
 * @warnings: (element-type utf8): failed cross-checks and other warnings
 * @sources: (element-type utf8): names of the pipeline's source elements
 * @live_source: (nullable): the live source that paces the run
 * @constraint_kind: the verdict's kind (gst_ax_report_set_verdict())
 * @constraint_element: (nullable): the element the verdict names
 * @constraint_row: (nullable): the row the verdict names
 * @constraint_queue: (nullable): the queue the verdict rests on
 * @constraint_model: (nullable): the model the verdict rests on
 * @constraint: (nullable): what follows "the constraint is"
 * @verdict: (nullable): the reading steps, one a line (the verdict's
 *   text; gst_ax_report_get_verdict() splits them)
 * @usage_reader: (nullable): how CPU time and faults were read
 * @device_occupancy: (element-type GstAxReportDeviceOccupancy): each
 *   simulated device once, with its models' shares; empty when
 *   @devices_absent is set (gst_ax_report_get_device_occupancy())
 * @error_element: (nullable): the element whose ERROR message ended the
 *   run (#GST_AX_REPORT_STATUS_ERROR)
 * @error_message: (nullable): that error's message
 * @error_debug: (nullable): that error's debug string
 * @qos: (element-type GstAxReportQos): drops elements reported in QoS
 *   messages, one entry per element (gst_ax_report_get_qos())
 * @projection: (nullable): what the pipeline would do on the modelled
 *   device (gst_ax_report_get_projection()), %NULL when no model ran
 *   (Since: 0.2)
 *
 * The benchmark report: every section as numbers, rendered to text by
 * gst_ax_report_to_text() and to JSON by gst_ax_report_to_json(), read
 * back from JSON by gst_ax_report_new_from_json(). The axprof tracer
 * fills it (gst-ax-benchmark runs the tracer and prints its report);
 * fields are public so that it fills them directly and tests build
 * reports by hand. An application reads them directly or through the
 * accessors: gst_ax_report_get_latency(), gst_ax_report_get_group() and
 * gst_ax_report_group_get_row() (gst_ax_report_find_row() by name),
 * gst_ax_report_get_queue(), gst_ax_report_get_device(),
 * gst_ax_report_get_device_occupancy() (gst_ax_report_device_get_occupancy()
 * for a model's device) and gst_ax_report_get_verdict().
 * gst_ax_report_make_verdict() judges a filled report. Strings and arrays
 * are owned by the report; each member's meaning is that of its JSON
 * member in docs/report-json.md.
 * A string field named `*_absent` holds the one-line reason a section has
 * no data, or %NULL when it has.
 */
typedef struct
{
  gchar *pipeline;
  GstAxReportStatus status;

  /* trustworthiness */
  gchar *refusal;
  gboolean allow_debug;
  guint sample;
  gboolean faults_measured;
  gdouble profiler_ns_per_element_buffer;
  gdouble profiler_percent;
  guint64 element_buffers;
  /* CPU and fault reads the profiler made */
  guint64 usage_reads;
  guint64 dropped_threads;

  /* Latency e2e */
  GstAxReportLatency latency;
  /* sink buffers not matched to an entering frame, so not in latency.n */
  guint64 latency_unmatched;
  gchar *pacing;
  gchar *latency_absent;
  /* %TRUE when the latency comes from a serial pass (one frame in the
   * pipeline at a time, gst_ax_report_set_serial_latency()) rather than
   * from the streamed run the rest of the report describes */
  gboolean latency_serial;
  /* a serial pass's first frames, before the pipeline was warm (model
   * load, first allocations), kept out of @latency: how many, the first
   * one's latency and their mean (0 frames: none were set apart) */
  guint latency_warmup_frames;
  gdouble latency_first_frame_ms;
  gdouble latency_warmup_mean_ms;

  /* Per-operator/stage time; (element-type GstAxReportGroup *) */
  GPtrArray *groups;
  gchar *groups_absent;

  /* Host/device wall-time share */
  gdouble share_device_ms;
  gdouble share_host_ms;
  gchar *share_absent;

  /* Throughput */
  guint64 frames;
  gdouble wall_s;
  gdouble fps;
  gdouble cpu_percent;
  gdouble cores_used;
  guint cores_available;
  gdouble peak_mem_mb;
  gdouble sim_cpu_percent;
  gboolean have_sim_cpu;
  gchar *throughput_absent;
  /* the sink the frames were counted at; video sinks; audio buffers, at
   * the busiest audio sink, counted apart from frames */
  gchar *frames_sink;
  guint video_sinks;
  guint64 audio_buffers;
  gchar *audio_sink;

  /* Queue depth; (element-type GstAxReportQueue) */
  GArray *queues;
  gchar *queues_absent;

  /* Occupancy and Device throughput; (element-type GstAxReportDevice) */
  GArray *devices;
  gchar *devices_absent;

  /* (element-type utf8) */
  GPtrArray *warnings;

  /* names of the pipeline's source elements; (element-type utf8) */
  GPtrArray *sources;
  /* the live source that paces the run, %NULL if none */
  gchar *live_source;

  /* the verdict (gst_ax_report_set_verdict()); the constraint_* names are
   * those of #GstAxReportVerdict, %NULL when it names none */
  GstAxReportConstraintKind constraint_kind;
  gchar *constraint_element;
  gchar *constraint_row;
  gchar *constraint_queue;
  gchar *constraint_model;
  gchar *constraint;
  gchar *verdict;

  /* how CPU time and faults were read (gst_ax_probe_thread_usage_reader) */
  gchar *usage_reader;
  /* what the CPU and fault figures guarantee (the profiler's mode), or
   * %NULL */
  gchar *usage_mode;

  /* each device once, with its models' shares; (element-type
   * GstAxReportDeviceOccupancy); empty when devices_absent is set */
  GArray *device_occupancy;

  /* independent streams, each into its own sink, as whoever ran them
   * listed them (gst_ax_report_add_stream()); empty when the run was not
   * split into streams; (element-type GstAxReportStream) */
  GArray *streams;

  /* CPU accounting over the run: the pipeline's threads (its streaming
   * threads, its elements' workers, sim-npu's threads of its devices,
   * and the process's other threads when no other pipeline ran), the
   * part of it the rows hold (workers included) and the rest; the
   * process's CPU over the same wall; every thread, in
   * (element-type GstAxReportThread) */
  gdouble pipeline_cpu_ms;
  gdouble process_cpu_ms;
  gdouble rows_cpu_ms;
  gdouble other_cpu_ms;
  /* the parts of other_cpu_ms: streaming threads outside element calls,
   * pool threads while no pool-using call ran, sim-npu's threads, other
   * threads, and threads that ended before the report (read from the
   * process's CPU) */
  gdouble streaming_outside_cpu_ms;
  gdouble pool_unattributed_cpu_ms;
  gdouble simulator_cpu_ms;
  gdouble unattributed_cpu_ms;
  gdouble ended_cpu_ms;
  GArray *threads;
  gchar *cpu_absent;
  /* the ERROR message that ended the run (status ERROR), else %NULL */
  gchar *error_element;
  gchar *error_message;
  gchar *error_debug;

  /* drops elements reported in QoS messages; (element-type
   * GstAxReportQos) */
  GArray *qos;

  /* status INTERVAL (axprof's interval=): which interval of the run
   * (1, 2, ...) and when it started, in seconds since the run's first
   * buffer; its length is @wall_s */
  guint interval_index;
  gdouble interval_start_s;

  /*< private >*/
  gint ref_count;

  /*< public >*/
  /* the projection onto the modelled device, or %NULL */
  GstAxReportProjection *projection;

  /*< private >*/
  gpointer _gst_reserved[GST_PADDING_LARGE - 1];
} GstAxReport;

/**
 * GST_AX_REPORT_ERROR:
 *
 * The error domain of gst_ax_report_new_from_json().
 */
#define GST_AX_REPORT_ERROR (gst_ax_report_error_quark ())

/**
 * GstAxReportError:
 * @GST_AX_REPORT_ERROR_PARSE: the text is not JSON, or not a JSON object
 * @GST_AX_REPORT_ERROR_SCHEMA: the JSON is not a report of
 *   #GST_AX_REPORT_SCHEMA
 * @GST_AX_REPORT_ERROR_INVALID: a member is missing, of the wrong type or
 *   out of range; the message names it
 *
 * Why a report could not be read.
 */
typedef enum
{
  GST_AX_REPORT_ERROR_PARSE,
  GST_AX_REPORT_ERROR_SCHEMA,
  GST_AX_REPORT_ERROR_INVALID,
} GstAxReportError;

/**
 * GST_AX_TYPE_REPORT:
 *
 * The boxed type of #GstAxReport, reference-counted: the `report` field
 * of the tracer's `axprof-report` bus message holds one.
 */
#define GST_AX_TYPE_REPORT (gst_ax_report_get_type ())

/**
 * GST_AX_TYPE_REPORT_VERDICT:
 *
 * The boxed type of #GstAxReportVerdict (copied with
 * gst_ax_report_verdict_copy()).
 *
 * Since: 0.2
 */
#define GST_AX_TYPE_REPORT_VERDICT (gst_ax_report_verdict_get_type ())

/**
 * GstAxReportProvider:
 * @pipeline: the pipeline asked about
 * @user_data: the provider's data
 *
 * Makes a report for @pipeline now.
 *
 * Returns: (transfer full) (nullable): the report, or %NULL if the
 *   provider does not know @pipeline
 */
typedef GstAxReport *(*GstAxReportProvider) (GstElement * pipeline,
    gpointer user_data);

GST_AX_API GType gst_ax_report_get_type (void);
GST_AX_API GQuark gst_ax_report_error_quark (void);
GST_AX_API GstAxReport *gst_ax_report_new (void);
GST_AX_API GstAxReport *gst_ax_report_new_from_json (const gchar * json,
    GError ** error);
GST_AX_API GstAxReport *gst_ax_report_ref (GstAxReport * report);
GST_AX_API void gst_ax_report_unref (GstAxReport * report);
GST_AX_API void gst_ax_report_free (GstAxReport * report);
GST_AX_API void gst_ax_report_latency_from_samples (GstAxReportLatency *
    latency, const gdouble * samples_ms, guint n);
GST_AX_API void gst_ax_report_set_serial_latency (GstAxReport * report,
    const GstAxReportLatency * latency, const gchar * absent);
GST_AX_API guint gst_ax_report_serial_warmup (const gdouble * samples_ms,
    guint n);
GST_AX_API void gst_ax_report_set_serial_warmup (GstAxReport * report,
    const gdouble * samples_ms, guint n_warmup);

GST_AX_API GstAxReportGroup *gst_ax_report_add_group (GstAxReport * report,
    const gchar * name);
GST_AX_API GstAxReportRow *gst_ax_report_group_add_row (GstAxReportGroup *
    group, const gchar * name);
GST_AX_API void gst_ax_report_row_classify (GstAxReportRow * row);
GST_AX_API gboolean gst_ax_report_row_is_computing (const GstAxReportRow *
    row);
GST_AX_API gchar *gst_ax_report_row_flags_to_string (GstAxReportRowFlags
    flags);
GST_AX_API void gst_ax_report_finish_groups (GstAxReport * report);
GST_AX_API GstAxReportDeviceOccupancy *
gst_ax_report_add_device_occupancy (GstAxReport * report,
    const gchar * device, guint device_id);
GST_AX_API void gst_ax_report_device_occupancy_add_model
    (GstAxReportDeviceOccupancy * occupancy, const gchar * group,
    gdouble busy_ms);
GST_AX_API GstAxReportStream *gst_ax_report_add_stream (GstAxReport *
    report, const gchar * name, const gchar * sink, guint64 frames);
GST_AX_API void gst_ax_report_add_warning (GstAxReport * report,
    const gchar * format, ...) G_GNUC_PRINTF (2, 3);

GST_AX_API const gchar *
gst_ax_report_constraint_kind_to_string (GstAxReportConstraintKind kind);
GST_AX_API const gchar *gst_ax_report_status_to_string (GstAxReportStatus
    status);
GST_AX_API GstAxReportVerdict *gst_ax_report_make_verdict (const GstAxReport *
    report);
GST_AX_API void gst_ax_report_verdict_free (GstAxReportVerdict * verdict);
GST_AX_API GType gst_ax_report_verdict_get_type (void);
GST_AX_API GstAxReportVerdict *gst_ax_report_verdict_copy (const
    GstAxReportVerdict * verdict);
GST_AX_API void gst_ax_report_set_verdict (GstAxReport * report,
    const GstAxReportVerdict * verdict);

GST_AX_API const GstAxReportLatency *
gst_ax_report_get_latency (const GstAxReport * report);
GST_AX_API guint gst_ax_report_get_n_groups (const GstAxReport * report);
GST_AX_API const GstAxReportGroup *
gst_ax_report_get_group (const GstAxReport * report, guint index);
GST_AX_API guint gst_ax_report_group_get_n_rows (const GstAxReportGroup *
    group);
GST_AX_API const GstAxReportRow *
gst_ax_report_group_get_row (const GstAxReportGroup * group, guint index);
GST_AX_API const GstAxReportRow *
gst_ax_report_find_row (const GstAxReport * report, const gchar * group_name,
    const gchar * name, const GstAxReportGroup ** group);
GST_AX_API guint gst_ax_report_get_n_queues (const GstAxReport * report);
GST_AX_API const GstAxReportQueue *
gst_ax_report_get_queue (const GstAxReport * report, guint index);
GST_AX_API guint gst_ax_report_get_n_streams (const GstAxReport * report);
GST_AX_API const GstAxReportStream *
gst_ax_report_get_stream (const GstAxReport * report, guint index);
GST_AX_API guint gst_ax_report_get_n_threads (const GstAxReport * report);
GST_AX_API const GstAxReportThread *
gst_ax_report_get_thread (const GstAxReport * report, guint index);
GST_AX_API guint gst_ax_report_get_n_qos (const GstAxReport * report);
GST_AX_API const GstAxReportQos *gst_ax_report_get_qos (const GstAxReport *
    report, guint index);
GST_AX_API guint gst_ax_report_get_n_devices (const GstAxReport * report);
GST_AX_API const GstAxReportDevice *
gst_ax_report_get_device (const GstAxReport * report, guint index);
GST_AX_API guint gst_ax_report_get_n_device_occupancy (const GstAxReport *
    report);
GST_AX_API const GstAxReportDeviceOccupancy *
gst_ax_report_get_device_occupancy (const GstAxReport * report, guint index);
GST_AX_API const GstAxReportDeviceOccupancy *
gst_ax_report_device_get_occupancy (const GstAxReport * report,
    const GstAxReportDevice * device);
GST_AX_API GstAxReportVerdict *gst_ax_report_get_verdict (const GstAxReport *
    report);
GST_AX_API GVariant *gst_ax_report_get_rows (const GstAxReport * report);
GST_AX_API const GstAxReportProjection *
gst_ax_report_get_projection (const GstAxReport * report);

GST_AX_API gchar *gst_ax_report_to_text (const GstAxReport * report);
GST_AX_API gchar *gst_ax_report_to_json (const GstAxReport * report);

GST_AX_API void gst_ax_report_set_provider (GstAxReportProvider provider,
    gpointer user_data);
GST_AX_API GstAxReport *gst_ax_report_get_for_pipeline (GstElement *
    pipeline);

G_END_DECLS

#endif /* __GST_AX_REPORT_H__ */
