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
 * GST_TRACERS="axprof(json=report.json,exact=true)" gst-launch-1.0 -e ...
 * ]|
 *
 * Params: `file=PATH` (append the text report there instead of stdout),
 * `json=PATH` (write the JSON twin; later reports of the same process go
 * to PATH.2, PATH.3, ...), `perfetto=PATH` (a timeline in Chrome
 * trace-event JSON for the Perfetto UI), `exact=true` (read CPU and
 * faults at every span boundary instead of once per read interval),
 * `read-interval-us=N` (the default mode's read interval; by default 50
 * reads' cost, so the reads stay near 2% of the profiled time),
 * `sample=N` (deprecated and ignored, with a warning),
 * `allow-debug=true` (report timings even though DEBUG logging was on),
 * `print=false` (write no text report to stdout: an application or
 * gst-ax-benchmark takes the report from the `axprof-report` bus message,
 * whose `report` field holds it as a #GstAxReport),
 * `interval=SECONDS` (every interval, the report of that interval alone:
 * a line appended to json=, which becomes a JSON Lines file, a short
 * block in file= or on stdout, and the bus message with status
 * "interval"; the report at EOS still covers the whole run),
 * `metrics=[HOST:]PORT` (serve the OpenMetrics text format for
 * Prometheus at http://HOST:PORT/metrics; HOST defaults to 127.0.0.1).
 * One instance per process profiles: a second axprof in GST_TRACERS
 * warns once and is ignored.
 *
 * From code, gst_ax_profiler_enable() creates the tracer without
 * GST_TRACERS, and gst_ax_profiler_start() / gst_ax_profiler_stop() profile
 * a section of a run through its action signals `section-start` and
 * `section-stop` (gstaxprof-section.c).
 *
 * CPU and faults, default mode: wall time comes from the hooks' own time
 * stamps; the thread's CPU and faults are read at a span boundary only
 * once the read interval has passed since its last read (or when its
 * batch of rows is full), and each read's deltas are split over the rows
 * that ran since, in proportion to their wall time. Thread totals are
 * exact; a call at least as long as the interval is measured at its own
 * boundaries, short calls share their neighbours' reads. exact=true
 * reads at every boundary.
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
#include "gstaxprof-params.h"
#include "gstaxprof-private.h"
#include "gstaxprof-thread.h"
#include "gstaxprof-census.h"
#include "gstaxprof-report-private.h"

#include <json-glib/json-glib.h>

#include <errno.h>
#include <stdio.h>
#include <string.h>

/* The calibration times this many reads in a row, and keeps the best of
 * this many passes. */
#define CALIBRATION_ROUNDS 256
#define CALIBRATION_PASSES 4

GST_DEBUG_CATEGORY (gst_ax_prof_debug);

struct _GstAxProf
{
  GstTracer parent;

  gchar *file;
  gchar *json;
  gchar *perfetto;
  guint n_perfetto;
  /* sample=N is deprecated and kept only for the JSON's "sample" (1) */
  guint sample;
  gboolean read_interval_set;
  /* print=false: the text report goes nowhere but file= and the bus */
  gboolean print;
  /* interval=: seconds between interval reports, 0 for none */
  gdouble interval_s;
  /* metrics=: the OpenMetrics endpoint's address */
  gchar *metrics;
  guint n_json;
  guint probe_sink;
  /* the mode and the calibrated costs, which every report states */
  TracerSetup setup;
};

G_DEFINE_TYPE (GstAxProf, gst_ax_prof, GST_TYPE_TRACER);

enum
{
  PROP_0,
  PROP_METRICS_URI,
};

/* The instance that profiles: run state lives in the registry and the
 * per-thread state once per process, so a second instance would count
 * every buffer again into the same records. Protected by
 * axprof_global_lock. */
static GstAxProf *active_instance;

/* Writes one output; a failure is printed at once and added to errors,
 * one line each, for the report's text and its bus message. A FIFO or a
 * device takes every report of the process; numbering (PATH.2, ...) is for
 * files. */
static void
write_output (const gchar * what, const gchar * base, guint * n,
    const gchar * contents, GstAxOutputMode mode, GString * errors)
{
  /* pipelines that finish at the same time write their reports from
   * their own threads: each claims its own number */
  guint k = __atomic_fetch_add (n, 1, __ATOMIC_RELAXED);
  gchar *path = k == 0 || gst_ax_output_is_stream (base) ? g_strdup (base) :
      g_strdup_printf ("%s.%u", base, k + 1);
  GError *err = NULL;

  if (!gst_ax_output_write (path, contents, -1, mode, &err)) {
    g_printerr ("axprof: cannot write %s=%s: %s\n", what, path, err->message);
    g_string_append_printf (errors, "%scould not write %s=%s: %s",
        errors->len ? "\n" : "", what, path, err->message);
    g_clear_error (&err);
  }
  g_free (path);
}

/* The report's last line(s) when an output could not be written. */
static gchar *
text_with_errors (const gchar * text, const GString * errors)
{
  gchar **lines;
  GString *s;
  guint i;

  if (errors->len == 0)
    return g_strdup (text);
  s = g_string_new (text);
  lines = g_strsplit (errors->str, "\n", -1);
  for (i = 0; lines[i]; i++)
    g_string_append_printf (s, "Output: %s\n", lines[i]);
  g_strfreev (lines);
  return g_string_free (s, FALSE);
}

/* The `axprof-report` element message on @p's bus. */
static void
post_report (PipelineState * p, GstAxReport * r, const gchar * text,
    const gchar * json, const GString * errors)
{
  GstElement *pipeline;
  GstStructure *s;

  g_mutex_lock (&axprof_global_lock);
  pipeline = p->pipeline ? gst_object_ref (p->pipeline) : NULL;
  g_mutex_unlock (&axprof_global_lock);
  if (pipeline == NULL)
    return;
  s = gst_structure_new ("axprof-report",
      "pipeline", G_TYPE_STRING, r->pipeline,
      "status", G_TYPE_STRING, gst_ax_report_status_to_string (r->status),
      "error-element", G_TYPE_STRING, r->error_element,
      "error-message", G_TYPE_STRING, r->error_message,
      "refused", G_TYPE_BOOLEAN, r->refusal != NULL,
      "constraint", G_TYPE_STRING, r->constraint,
      "verdict-kind", G_TYPE_STRING,
      gst_ax_report_constraint_kind_to_string (r->constraint_kind),
      "verdict-element", G_TYPE_STRING, r->constraint_element,
      "text", G_TYPE_STRING, text, "json", G_TYPE_STRING, json,
      "report", GST_AX_TYPE_REPORT, r,
      "output-errors", G_TYPE_STRING, errors->len ? errors->str : NULL,
      "usage-reader", G_TYPE_STRING, gst_ax_probe_thread_usage_reader () ==
      GST_AX_PROBE_USAGE_PERF ? "perf" : "rusage",
      "usage-fallback-threads", G_TYPE_UINT,
      gst_ax_probe_thread_usage_fallback_threads (), NULL);
  if (r->status == GST_AX_REPORT_STATUS_INTERVAL)
    gst_structure_set (s, "interval", G_TYPE_UINT, r->interval_index, NULL);
  gst_element_post_message (pipeline,
      gst_message_new_element (GST_OBJECT (pipeline), s));
  gst_object_unref (pipeline);
}

/* @json on one line, for a JSON Lines file */
static gchar *
json_line (const gchar * json)
{
  JsonParser *parser = json_parser_new ();
  JsonGenerator *gen;
  gchar *line, *out;

  if (!json_parser_load_from_data (parser, json, -1, NULL)) {
    g_object_unref (parser);
    return g_strconcat (json, "\n", NULL);
  }
  gen = json_generator_new ();
  json_generator_set_root (gen, json_parser_get_root (parser));
  line = json_generator_to_data (gen, NULL);
  out = g_strconcat (line, "\n", NULL);
  g_free (line);
  g_object_unref (gen);
  g_object_unref (parser);
  return out;
}

/* In interval mode json= is a JSON Lines file: every report of the
 * process, the intervals' and the runs', is a line appended to it. */
static void
write_json (GstAxProf * self, const gchar * json, GString * errors)
{
  guint n = 0;
  gchar *line;

  if (self->json == NULL)
    return;
  if (self->interval_s <= 0) {
    write_output ("json", self->json, &self->n_json, json,
        GST_AX_OUTPUT_REPLACE, errors);
    return;
  }
  line = json_line (json);
  /* the first write of the process replaces what an earlier process left */
  write_output ("json", self->json, &n, line, self->n_json++ == 0 ?
      GST_AX_OUTPUT_REPLACE : GST_AX_OUTPUT_APPEND, errors);
  g_free (line);
}

static void
write_report (GstAxProf * self, PipelineState * p, GstAxReport * r,
    gchar * timeline)
{
  gchar *text = gst_ax_report_to_text (r);
  gchar *json = gst_ax_report_to_json (r);
  GString *errors = g_string_new (NULL);
  gchar *full;
  guint n_file = 0;

  /* the files first, so that the text can say which could not be written */
  write_json (self, json, errors);
  if (self->perfetto && timeline)
    write_output ("perfetto", self->perfetto, &self->n_perfetto, timeline,
        GST_AX_OUTPUT_REPLACE, errors);

  full = text_with_errors (text, errors);
  if (self->file) {
    gsize before = errors->len;

    /* every report of the process is appended to the same file */
    write_output ("file", self->file, &n_file, full, GST_AX_OUTPUT_APPEND,
        errors);
    if (errors->len != before) {
      g_free (full);
      full = text_with_errors (text, errors);
      g_printerr ("axprof: printing the report to stdout instead\n");
      fputs (full, stdout);
      fflush (stdout);
    }
  } else if (self->print) {
    fputs (full, stdout);
    fflush (stdout);
  }
  post_report (p, r, full, json, errors);
  g_string_free (errors, TRUE);
  g_free (full);
  g_free (text);
  g_free (json);
}

/* An interval's report: a line of json=, a short block in file= (or on
 * stdout) and the bus message with status "interval". */
static void
emit_interval (gpointer user_data, PipelineState * p, GstAxReport * r)
{
  GstAxProf *self = user_data;
  gchar *text = axprof_interval_text (r);
  gchar *json = gst_ax_report_to_json (r);
  GString *errors = g_string_new (NULL);
  guint n_file = 0;

  write_json (self, json, errors);
  if (self->file)
    write_output ("file", self->file, &n_file, text, GST_AX_OUTPUT_APPEND,
        errors);
  else if (self->print) {
    fputs (text, stdout);
    fflush (stdout);
  }
  post_report (p, r, text, json, errors);
  g_string_free (errors, TRUE);
  g_free (text);
  g_free (json);
}

static void
finish_run (GstAxProf * self, PipelineState * p, GstAxReportStatus status)
{
  gchar *timeline = NULL;
  ReportRaw *raw;
  GstAxReport *r, *tail;

  /* an interval report in progress comes first */
  axprof_interval_lock ();
  g_mutex_lock (&axprof_global_lock);
  if (p->reported || !p->started) {
    g_mutex_unlock (&axprof_global_lock);
    axprof_interval_unlock ();
    return;
  }
  p->reported = TRUE;
  /* an ERROR posted before EOS (or the stop) ends the run in error */
  if (p->error_element != NULL)
    status = GST_AX_REPORT_STATUS_ERROR;
  p->end_probe_ns = gst_ax_probe_now_ns ();
  p->cpu1_ns = axprof_process_cpu_ns ();
  g_mutex_lock (&p->lock);
  raw = axprof_interval_enabled ()? axprof_report_raw_new () : NULL;
  r = axprof_make_report_raw (&self->setup, p, status, raw);
  if (self->perfetto && r->refusal == NULL && p->first_ts != 0)
    timeline = axprof_make_timeline (p);
  tail = raw ? axprof_interval_finish (p, r, raw) : NULL;
  g_mutex_unlock (&p->lock);
  g_mutex_unlock (&axprof_global_lock);

  /* the run's last interval, then the whole run */
  if (tail) {
    emit_interval (self, p, tail);
    gst_ax_report_unref (tail);
  }
  if (raw)
    axprof_report_raw_free (raw);
  write_report (self, p, r, timeline);
  axprof_interval_unlock ();
  g_free (timeline);
  gst_ax_report_free (r);
}

static GstAxReport *
report_provider (GstElement * pipeline, gpointer user_data)
{
  GstAxProf *self = user_data;
  GstAxReport *r;
  PipelineState *p = axprof_pipeline_of (pipeline, FALSE);

  if (p == NULL)
    return NULL;
  g_mutex_lock (&axprof_global_lock);
  g_mutex_lock (&p->lock);
  r = axprof_make_report (&self->setup, p, p->error_element ?
      GST_AX_REPORT_STATUS_ERROR : p->reported ? GST_AX_REPORT_STATUS_EOS :
      GST_AX_REPORT_STATUS_RUNNING);
  g_mutex_unlock (&p->lock);
  g_mutex_unlock (&axprof_global_lock);
  return r;
}

/* ---------------------------------------------------------------- hooks */

static void
do_element_new (GObject * self, GstClockTime ts, GstElement * element)
{
  if (GST_IS_PIPELINE (element))
    axprof_pipeline_of (element, TRUE);
}

static void
do_bin_add_post (GObject * self, GstClockTime ts, GstBin * bin,
    GstElement * element, gboolean result)
{
  /* Learn elements in the order they are added, which for parsed launch
   * lines is the order of the line; pads added later are found lazily. */
  GstObject *top = GST_OBJECT (bin);

  if (!result || GST_IS_BIN (element) ||
      g_object_get_qdata (G_OBJECT (element), axprof_element_quark) != NULL)
    return;
  while (GST_OBJECT_PARENT (top) != NULL)
    top = GST_OBJECT_PARENT (top);
  /* a bin still being assembled would be taken for the top-level */
  if (GST_IS_PIPELINE (top))
    axprof_element_state_slow (GST_OBJECT (element));
}

/* The top-level pipeline @element belongs to, when axprof knows it. */
static PipelineState *
pipeline_of_element (GstElement * element)
{
  GstObject *top = GST_OBJECT (element), *parent;

  /* the poster is streaming or changing state: its parents outlive the
   * call */
  while ((parent = GST_OBJECT_PARENT (top)) != NULL)
    top = parent;
  if (!GST_IS_PIPELINE (top))
    return NULL;
  return axprof_pipeline_of (GST_ELEMENT (top), FALSE);
}

/* An ERROR ends the run: the first one is the report's, which is made
 * now, before the message reaches the bus (so an application that stops
 * on ERROR has the report, as it has it before EOS). An ERROR after the
 * report was made (at EOS, or after an earlier error) does not make
 * another: it is said on stderr, and a report taken later
 * (gst_ax_report_get_for_pipeline()) has the error status. */
static void
on_error (GstAxProf * self, GstElement * element, GstMessage * message)
{
  PipelineState *p = pipeline_of_element (element);
  GError *err = NULL;
  gchar *debug = NULL;
  gboolean report = FALSE, late = FALSE;

  if (p == NULL)
    return;
  gst_message_parse_error (message, &err, &debug);
  g_mutex_lock (&axprof_global_lock);
  if (p->started && p->error_element == NULL) {
    p->error_element = gst_object_get_name (GST_OBJECT (element));
    p->error_message = g_strdup (err ? err->message : NULL);
    p->error_debug = debug;
    debug = NULL;
    report = !p->reported;
    late = p->reported;
  }
  g_mutex_unlock (&axprof_global_lock);
  if (late)
    g_printerr ("axprof: %s posted an ERROR after the report of %s was "
        "made; the report stands for the run until then: %s\n",
        GST_OBJECT_NAME (element), p->name, err ? err->message : "");
  if (report)
    finish_run (self, p, GST_AX_REPORT_STATUS_ERROR);
  g_clear_error (&err);
  g_free (debug);
}

static void
do_post_message_pre (GObject * obj, GstClockTime ts, GstElement * element,
    GstMessage * message)
{
  PipelineState *p;

  /* a bin posts its children's messages again as its own: the poster's
   * own post counts */
  if (G_UNLIKELY (GST_MESSAGE_TYPE (message) == GST_MESSAGE_ERROR) &&
      GST_MESSAGE_SRC (message) == GST_OBJECT (element)) {
    on_error (GST_AX_PROF (obj), element, message);
    return;
  }
  if (G_UNLIKELY (GST_MESSAGE_TYPE (message) == GST_MESSAGE_QOS) &&
      GST_MESSAGE_SRC (message) == GST_OBJECT (element)) {
    ElementState *ei = g_object_get_qdata (G_OBJECT (element),
        axprof_element_quark);

    if (ei == NULL)
      ei = axprof_element_state_slow (GST_OBJECT (element));
    if (ei != NULL)
      axprof_element_qos (ei, message);
    return;
  }

  if (GST_MESSAGE_TYPE (message) == GST_MESSAGE_STREAM_STATUS) {
    GstStreamStatusType type;
    guint64 cpu, faults;

    /* A task's thread posts ENTER itself before its first buffer: its
     * usage reader is opened (and armed, which sleeps) here rather than
     * inside the first measured span. */
    gst_message_parse_stream_status (message, &type, NULL);
    if (type == GST_STREAM_STATUS_TYPE_ENTER) {
      (void) axprof_thread_state ();
      gst_ax_probe_thread_usage (&cpu, &faults);
    }
    return;
  }
  if (GST_MESSAGE_TYPE (message) != GST_MESSAGE_EOS ||
      !GST_IS_PIPELINE (element) || GST_OBJECT_PARENT (element) != NULL)
    return;
  p = axprof_pipeline_of (element, TRUE);
  finish_run (GST_AX_PROF (obj), p, GST_AX_REPORT_STATUS_EOS);
}

/* A run starts before the pipeline goes to PAUSED: its sources start
 * streaming inside that change, and a sink prerolls the first buffer
 * before the pipeline's own change returns. */
/* An element's state change is where it starts the threads it keeps
 * (gstaxprof-census.c): the census looks before and after. Elements
 * of no pipeline the tracer knows are nobody's. */
static void
census_state_change_enter (GstElement * element)
{
  ElementState *ei;
  GstObject *top = GST_OBJECT (element);

  if (GST_IS_BIN (element))
    return;
  ei = g_object_get_qdata (G_OBJECT (element), axprof_element_quark);
  /* an element a bin plugs in while it streams (decodebin's decoders) is
   * synced to its parent's state before its first buffer: known now */
  if (ei == NULL) {
    while (GST_OBJECT_PARENT (top) != NULL)
      top = GST_OBJECT_PARENT (top);
    if (top != GST_OBJECT (element) && GST_IS_PIPELINE (top))
      ei = axprof_element_state_slow (GST_OBJECT (element));
  }
  axprof_census_context_enter (axprof_thread_state (), ei, "state change");
}

static void
census_state_change_leave (GstElement * element)
{
  if (GST_IS_BIN (element))
    return;
  axprof_census_context_leave (axprof_thread_state (), "state change");
}

static void
do_change_state_pre (GObject * obj, GstClockTime ts, GstElement * element,
    GstStateChange transition)
{
  PipelineState *p;

  census_state_change_enter (element);
  if (!GST_IS_PIPELINE (element) || GST_OBJECT_PARENT (element) != NULL)
    return;
  if (transition == GST_STATE_CHANGE_READY_TO_PAUSED) {
    p = axprof_pipeline_of (element, TRUE);
    g_mutex_lock (&axprof_global_lock);
    g_mutex_lock (&p->lock);
    if (p->reported)
      axprof_pipeline_reset (p);
    p->reported = FALSE;
    g_clear_pointer (&p->error_element, g_free);
    g_clear_pointer (&p->error_message, g_free);
    g_clear_pointer (&p->error_debug, g_free);
    p->started = TRUE;
    /* the rows count from here (a source's first create comes before its
     * first push), and so does the threads' CPU */
    axprof_census_snapshot (p);
    axprof_debug_run_start (p);
    axprof_interval_run_started ();
    axprof_metrics_run_started (GST_AX_PROF (obj)->print);
    /* decided now: say so at once rather than after a wasted run */
    if (p->debug_at_start && !GST_AX_PROF (obj)->setup.allow_debug)
      g_printerr ("axprof: DEBUG logging is enabled (%s): the report of %s "
          "will carry no timings. Rerun without GST_DEBUG.\n",
          p->debug_at_start, GST_OBJECT_NAME (element));
    g_mutex_unlock (&p->lock);
    g_mutex_unlock (&axprof_global_lock);
  }
}

static void
do_change_state_post (GObject * obj, GstClockTime ts, GstElement * element,
    GstStateChange transition, GstStateChangeReturn result)
{
  PipelineState *p;

  census_state_change_leave (element);
  if (!GST_IS_PIPELINE (element) || GST_OBJECT_PARENT (element) != NULL ||
      result == GST_STATE_CHANGE_FAILURE)
    return;
  if (transition == GST_STATE_CHANGE_PAUSED_TO_READY) {
    p = axprof_pipeline_of (element, FALSE);
    if (p)
      finish_run (GST_AX_PROF (obj), p, GST_AX_REPORT_STATUS_CUT_SHORT);
  }
}

/* ---------------------------------------------------------------- sections */

/* The action signals that gst_ax_profiler_start() and
 * gst_ax_profiler_stop() (gst/ax/gstaxprofiler.c) emit, so that libgstax
 * reaches the tracer without linking it (gstaxprof-section.c). */
static gboolean
section_start (GstAxProf * self, GstElement * pipeline)
{
  /* an instance that does not profile (a second axprof) has no sink */
  if (!GST_IS_ELEMENT (pipeline) || self->probe_sink == 0)
    return FALSE;
  axprof_section_start (pipeline);
  return TRUE;
}

static GstAxReport *
section_stop (GstAxProf * self, GstElement * pipeline)
{
  if (!GST_IS_ELEMENT (pipeline) || self->probe_sink == 0)
    return NULL;
  return axprof_section_stop (pipeline, &self->setup);
}

/* ---------------------------------------------------------------- setup */

/* A pad pair with nothing behind it: pushing a buffer through it runs
 * the four hooks of an element-buffer (push and chain, pre and post),
 * which axprof leaves at once for unparented pads. */
static GstFlowReturn
calibration_chain (GstPad * pad, GstObject * parent, GstBuffer * buf)
{
  gst_buffer_unref (buf);
  return GST_FLOW_OK;
}

/* ns per push through such a pair, best of a few passes */
static gdouble
time_pushes (GstPad * src, GstBuffer * buf)
{
  gdouble best = G_MAXDOUBLE;
  guint64 t0, t1;
  guint i, pass;

  for (pass = 0; pass < CALIBRATION_PASSES; pass++) {
    t0 = gst_ax_probe_now_ns ();
    for (i = 0; i < CALIBRATION_ROUNDS; i++)
      (void) gst_pad_push (src, gst_buffer_ref (buf));
    t1 = gst_ax_probe_now_ns ();
    best = MIN (best, (gdouble) (t1 - t0) / CALIBRATION_ROUNDS);
  }
  return best;
}

/* A stand-in element for the pad pair, with records on the stack and a
 * call of it open on the thread, so that pushes through the pair run
 * axprof's whole per-buffer path (inside a call: no latency or queue
 * record is touched) with no read due. */
typedef struct
{
  GstElement *element;
  PipelineState pipe;
  ElementState ei;
  Row row;
  RowStats st;
  RowStats *chunk[SLOTS_PER_CHUNK];
  guint64 saved_interval;
  gboolean saved_exact;
  gboolean saved_trace_on;
  gboolean entered;
} StandIn;

static void
stand_in_enter (StandIn * s, ThreadState * t, GstPad * src, GstPad * sink)
{
  ElementCacheEntry *c;
  Span *outer;

  memset (s, 0, sizeof (*s));
  if (t->slot < 0 || t->depth > 0 || t->loop_open)
    return;
  s->element = gst_object_ref_sink (gst_bin_new (NULL));
  gst_object_set_parent (GST_OBJECT (src), GST_OBJECT (s->element));
  gst_object_set_parent (GST_OBJECT (sink), GST_OBJECT (s->element));
  s->st.wall_min_ns = G_MAXUINT64;
  s->row.pipe = &s->pipe;
  s->row.elem = &s->ei;
  s->row.slot_chunks[t->slot / SLOTS_PER_CHUNK] = s->chunk;
  s->chunk[t->slot % SLOTS_PER_CHUNK] = &s->st;
  s->ei.element = s->element;
  s->ei.pipe = &s->pipe;
  s->ei.chain_row = s->ei.loop_row = &s->row;
  c = axprof_element_cache_slot (t, GST_OBJECT (s->element));
  c->parent = GST_OBJECT (s->element);
  c->ei = &s->ei;
  s->saved_exact = axprof_exact;
  s->saved_interval = axprof_read_interval_ns;
  /* the timeline would keep the stand-in's row, which lives on the stack;
   * the timeline's own cost is left out of the calibration */
  s->saved_trace_on = axprof_trace_on;
  axprof_trace_on = FALSE;
  axprof_exact = FALSE;
  axprof_read_interval_ns = G_MAXUINT64;
  t->have_read = TRUE;
  outer = axprof_span_push (t);
  axprof_span_open (outer, &s->row, &s->st, 0, t);
  outer->items = 0;
  outer->untimed_in = FALSE;
  s->entered = TRUE;
}

/* Nothing of the stand-in stays in the thread's state. */
static void
stand_in_leave (StandIn * s, ThreadState * t, GstPad * src, GstPad * sink)
{
  if (!s->entered)
    return;
  t->depth = 0;
  t->n_batch = 0;
  t->batch_wall = 0;
  t->have_read = FALSE;
  t->last_read_ts = 0;
  t->pending = FALSE;
  memset (t->elems, 0, sizeof (t->elems));
  axprof_exact = s->saved_exact;
  axprof_read_interval_ns = s->saved_interval;
  axprof_trace_on = s->saved_trace_on;
  gst_object_unparent (GST_OBJECT (src));
  gst_object_unparent (GST_OBJECT (sink));
  gst_object_unref (s->element);
}

/* GStreamer's own cost of dispatching the hooks to the tracers plus
 * axprof's bookkeeping, in GStreamer's own push path: pushes timed before
 * axprof registers its hooks, then after, through a stand-in element.
 * @register_hooks registers them. */
static void
calibrate_dispatch (GstAxProf * self, void (*register_hooks) (GstTracer *))
{
  /* owned here; the stand-in takes its own reference while they are its */
  GstPad *src = gst_object_ref_sink (gst_pad_new ("axprof-calibration-src",
          GST_PAD_SRC));
  GstPad *sink = gst_object_ref_sink (gst_pad_new ("axprof-calibration-sink",
          GST_PAD_SINK));
  GstBuffer *buf = gst_buffer_new ();
  ThreadState *t = axprof_thread_state ();
  StandIn stand_in;
  GstSegment seg;
  gdouble before, after;

  gst_pad_set_chain_function (sink, calibration_chain);
  /* linked unparented: pads of one element cannot be linked */
  gst_pad_link (src, sink);
  gst_pad_set_active (sink, TRUE);
  gst_pad_set_active (src, TRUE);
  gst_pad_push_event (src, gst_event_new_stream_start ("axprof-calibration"));
  gst_segment_init (&seg, GST_FORMAT_TIME);
  gst_pad_push_event (src, gst_event_new_segment (&seg));
  before = time_pushes (src, buf);
  register_hooks (GST_TRACER (self));
  stand_in_enter (&stand_in, t, src, sink);
  after = time_pushes (src, buf);
  stand_in_leave (&stand_in, t, src, sink);
  self->setup.dispatch_cost_ns = MAX (after - before, 0);
  gst_pad_set_active (src, FALSE);
  gst_pad_set_active (sink, FALSE);
  gst_buffer_unref (buf);
  gst_object_unref (src);
  gst_object_unref (sink);
}

/* Measures what one usage read and one clock read cost on this machine,
 * so the report can state its own overhead. */
static void
calibrate (GstAxProf * self)
{
  guint64 cpu, faults, t0, t1;
  guint i, pass;

  /* the cheaper of the two exact readers on this machine */
  gst_ax_probe_thread_usage_choose_reader ();
  /* best of a few passes: the first one pays for cold caches */
  self->setup.read_cost_ns = G_MAXDOUBLE;
  for (pass = 0; pass < CALIBRATION_PASSES; pass++) {
    t0 = gst_ax_probe_now_ns ();
    for (i = 0; i < CALIBRATION_ROUNDS; i++)
      gst_ax_probe_thread_usage (&cpu, &faults);
    t1 = gst_ax_probe_now_ns ();
    self->setup.read_cost_ns = MIN (self->setup.read_cost_ns,
        (gdouble) (t1 - t0) / CALIBRATION_ROUNDS);
  }

  self->setup.clock_cost_ns = G_MAXDOUBLE;
  for (pass = 0; pass < CALIBRATION_PASSES; pass++) {
    t0 = gst_ax_probe_now_ns ();
    for (i = 0; i < CALIBRATION_ROUNDS; i++)
      (void) gst_ax_probe_now_ns ();
    t1 = gst_ax_probe_now_ns ();
    self->setup.clock_cost_ns = MIN (self->setup.clock_cost_ns,
        (gdouble) (t1 - t0) / CALIBRATION_ROUNDS);
  }
}

static void
parse_params (GstAxProf * self)
{
  gchar *params = NULL, **lines, **l;
  AxProfParams p;
  GString *warnings = g_string_new (NULL);

  g_object_get (self, "params", &params, NULL);
  if (params == NULL) {
    g_string_free (warnings, TRUE);
    return;
  }
  p.file = self->file;
  p.json = self->json;
  p.perfetto = self->perfetto;
  p.exact = self->setup.exact;
  p.read_interval_ns = self->setup.read_interval_ns;
  p.read_interval_set = self->read_interval_set;
  p.allow_debug = self->setup.allow_debug;
  p.print = self->print;
  p.interval_s = self->interval_s;
  p.metrics = self->metrics;
  axprof_params_parse (params, &p, warnings);
  self->interval_s = p.interval_s;
  self->metrics = p.metrics;
  self->file = p.file;
  self->json = p.json;
  self->perfetto = p.perfetto;
  self->setup.exact = p.exact;
  self->setup.read_interval_ns = p.read_interval_ns;
  self->read_interval_set = p.read_interval_set;
  self->setup.allow_debug = p.allow_debug;
  self->print = p.print;
  lines = g_strsplit (warnings->str, "\n", -1);
  for (l = lines; *l != NULL; l++)
    if (**l != '\0')
      g_warning ("%s", *l);
  g_strfreev (lines);
  g_string_free (warnings, TRUE);
  g_free (params);
}

static void
register_hooks (GstTracer * tracer)
{
  gst_tracing_register_hook (tracer, "pad-push-pre",
      G_CALLBACK (axprof_pad_push_pre));
  gst_tracing_register_hook (tracer, "pad-push-post",
      G_CALLBACK (axprof_pad_push_post));
  gst_tracing_register_hook (tracer, "pad-push-list-pre",
      G_CALLBACK (axprof_pad_push_list_pre));
  gst_tracing_register_hook (tracer, "pad-push-list-post",
      G_CALLBACK (axprof_pad_push_post));
  gst_tracing_register_hook (tracer, "pad-chain-pre",
      G_CALLBACK (axprof_pad_chain_pre));
  gst_tracing_register_hook (tracer, "pad-chain-post",
      G_CALLBACK (axprof_pad_chain_post));
  gst_tracing_register_hook (tracer, "pad-chain-list-pre",
      G_CALLBACK (axprof_pad_chain_list_pre));
  gst_tracing_register_hook (tracer, "pad-chain-list-post",
      G_CALLBACK (axprof_pad_chain_post));
  gst_tracing_register_hook (tracer, "pad-push-event-pre",
      G_CALLBACK (axprof_pad_push_event_pre));
  gst_tracing_register_hook (tracer, "pad-push-event-post",
      G_CALLBACK (axprof_pad_push_event_post));
  gst_tracing_register_hook (tracer, "pad-pull-range-pre",
      G_CALLBACK (axprof_pad_pull_range_pre));
  gst_tracing_register_hook (tracer, "pad-pull-range-post",
      G_CALLBACK (axprof_pad_pull_range_post));
  gst_tracing_register_hook (tracer, "element-post-message-pre",
      G_CALLBACK (do_post_message_pre));
  gst_tracing_register_hook (tracer, "element-new",
      G_CALLBACK (do_element_new));
  gst_tracing_register_hook (tracer, "bin-add-post",
      G_CALLBACK (do_bin_add_post));
  gst_tracing_register_hook (tracer, "element-change-state-pre",
      G_CALLBACK (do_change_state_pre));
  gst_tracing_register_hook (tracer, "element-change-state-post",
      G_CALLBACK (do_change_state_post));

}

static void
gst_ax_prof_constructed (GObject * object)
{
  GstAxProf *self = GST_AX_PROF (object);
  gboolean refused;

  G_OBJECT_CLASS (gst_ax_prof_parent_class)->constructed (object);
  g_mutex_lock (&axprof_global_lock);
  refused = active_instance != NULL;
  if (!refused)
    active_instance = self;
  g_mutex_unlock (&axprof_global_lock);
  if (refused) {
    gchar *params = NULL;

    g_object_get (self, "params", &params, NULL);
    g_warning ("axprof: GST_TRACERS names axprof more than once; only the "
        "first one profiles (the tracer keeps one run state per process), "
        "so this one (params '%s') is ignored and registers no hooks",
        params ? params : "");
    g_free (params);
    return;
  }
  parse_params (self);
  axprof_exact = self->setup.exact;
  /* the threads that exist now, before any is the pipeline's */
  axprof_census_init ();

  calibrate (self);
  axprof_read_outlier_ns =
      (guint64) (self->setup.read_cost_ns * READ_TIMING_OUTLIER);
  if (!self->read_interval_set)
    self->setup.read_interval_ns = CLAMP ((guint64) (self->setup.read_cost_ns *
            READ_INTERVAL_PER_READ), READ_INTERVAL_MIN_NS,
        READ_INTERVAL_MAX_NS);
  axprof_read_interval_ns = self->setup.read_interval_ns;
  axprof_trace_on = self->perfetto != NULL;
  calibrate_dispatch (self, register_hooks);
  GST_INFO ("calibrated: %.0f ns per usage read (%s), %.0f ns hook "
      "dispatch and bookkeeping per element-buffer; %s mode",
      self->setup.read_cost_ns, gst_ax_probe_thread_usage_reader_name
      (gst_ax_probe_thread_usage_reader ()), self->setup.dispatch_cost_ns,
      self->setup.exact ? "exact" : "default");
  if (!self->setup.exact)
    GST_INFO ("default mode: a usage read once %" G_GUINT64_FORMAT " ns of "
        "wall time has passed", self->setup.read_interval_ns);

  axprof_debug_watch ();
  self->probe_sink = axprof_probe_sink_add (self);
  gst_ax_report_set_provider (report_provider, self);
  if (self->interval_s > 0)
    axprof_interval_start (&self->setup, self->interval_s, emit_interval, self);
  if (self->metrics)
    axprof_metrics_configure (&self->setup, self->metrics);
}

static void
gst_ax_prof_finalize (GObject * object)
{
  GstAxProf *self = GST_AX_PROF (object);

  g_free (self->file);
  g_free (self->json);
  g_free (self->perfetto);
  g_free (self->metrics);
  g_mutex_lock (&axprof_global_lock);
  if (active_instance == self) {
    active_instance = NULL;
    g_mutex_unlock (&axprof_global_lock);
    axprof_interval_stop ();
    axprof_metrics_stop ();
    g_mutex_lock (&axprof_global_lock);
  }
  g_mutex_unlock (&axprof_global_lock);
  G_OBJECT_CLASS (gst_ax_prof_parent_class)->finalize (object);
}

static void
gst_ax_prof_get_property (GObject * object, guint prop_id, GValue * value,
    GParamSpec * pspec)
{
  switch (prop_id) {
    case PROP_METRICS_URI:
      g_value_take_string (value, axprof_metrics_uri ());
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
}

static void
gst_ax_prof_class_init (GstAxProfClass * klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);

  gobject_class->constructed = gst_ax_prof_constructed;
  gobject_class->finalize = gst_ax_prof_finalize;
  gobject_class->get_property = gst_ax_prof_get_property;

  /**
   * GstAxProf:metrics-uri:
   *
   * Where the OpenMetrics endpoint (`metrics=`) serves, as
   * http://HOST:PORT/metrics, once the first run of the process has
   * started it; %NULL before, without `metrics=`, or when it could not
   * bind. With `metrics=HOST:0` the port is the one the system chose.
   */
  g_object_class_install_property (gobject_class, PROP_METRICS_URI,
      g_param_spec_string ("metrics-uri", "Metrics URI",
          "Where the OpenMetrics endpoint serves (metrics=), once started",
          NULL, G_PARAM_READABLE | G_PARAM_STATIC_STRINGS));

  /**
   * GstAxProf::section-start:
   * @tracer: the axprof tracer
   * @pipeline: the top-level pipeline to profile
   *
   * Starts a section of @pipeline's run: its figures count from now.
   * gst_ax_profiler_start() emits it.
   *
   * Returns: %TRUE if this instance profiles and the section started
   */
  g_signal_new_class_handler ("section-start", G_TYPE_FROM_CLASS (klass),
      G_SIGNAL_RUN_LAST | G_SIGNAL_ACTION, G_CALLBACK (section_start),
      NULL, NULL, NULL, G_TYPE_BOOLEAN, 1, GST_TYPE_ELEMENT);
  /**
   * GstAxProf::section-stop:
   * @tracer: the axprof tracer
   * @pipeline: the pipeline of a started section
   *
   * Ends the section of @pipeline. gst_ax_profiler_stop() emits it.
   *
   * Returns: (transfer full) (nullable): the report of what ran in the
   *   section (status #GST_AX_REPORT_STATUS_SECTION), %NULL when no
   *   section of @pipeline was started
   */
  g_signal_new_class_handler ("section-stop", G_TYPE_FROM_CLASS (klass),
      G_SIGNAL_RUN_LAST | G_SIGNAL_ACTION, G_CALLBACK (section_stop),
      NULL, NULL, NULL, GST_AX_TYPE_REPORT, 1, GST_TYPE_ELEMENT);


  GST_DEBUG_CATEGORY_INIT (gst_ax_prof_debug, "axprof", 0, "axprof tracer");
  axprof_registry_init ();
}

static void
gst_ax_prof_init (GstAxProf * self)
{
  self->sample = 1;
  self->print = TRUE;
  self->setup.read_interval_ns = READ_INTERVAL_FALLBACK_NS;
}
