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
 * `allow-debug=true` (report timings even though DEBUG logging was on),
 * `print=false` (write no text report to stdout: an application or
 * gst-ax-benchmark takes the report from the `axprof-report` bus message,
 * whose `report` field holds it as a #GstAxReport).
 * One instance per process profiles: a second axprof in GST_TRACERS
 * warns once and is ignored.
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

#include "gstaxprof-private.h"
#include "gstaxprof-params.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

GST_DEBUG_CATEGORY (gst_ax_prof_debug);

G_DEFINE_TYPE (GstAxProf, gst_ax_prof, GST_TYPE_TRACER);

/* The instance that profiles: run state lives in the registry and the
 * per-thread state once per process, so a second instance would count
 * every buffer again into the same records. Protected by
 * axprof_global_lock. */
static GstAxProf *active_instance;
guint64 axprof_debug_log_count;

/* ---------------------------------------------------------------- debug */

/* The categories that logged at DEBUG or above since the last pipeline
 * start: the ones "the run logs through" at that level. */
#define MAX_NAMED_CATEGORIES 3
static GstDebugCategory *logged_categories[MAX_NAMED_CATEGORIES];
/* the tracers' records (the latency tracer's GST_TRACER:7) are output the
 * user asked for, not logging that voids a run */
static GstDebugCategory *tracer_category;

static void
count_debug_log (GstDebugCategory * category, GstDebugLevel level,
    const gchar * file, const gchar * function, gint line, GObject * object,
    GstDebugMessage * message, gpointer user_data)
{
  guint i;

  if (level < GST_LEVEL_DEBUG || category == gst_ax_prof_debug
      || category == tracer_category)
    return;
  __atomic_add_fetch (&axprof_debug_log_count, 1, __ATOMIC_RELAXED);
  for (i = 0; i < MAX_NAMED_CATEGORIES; i++) {
    GstDebugCategory *expected = NULL;

    if (__atomic_load_n (&logged_categories[i], __ATOMIC_RELAXED) == category
        || __atomic_compare_exchange_n (&logged_categories[i], &expected,
            category, FALSE, __ATOMIC_RELAXED, __ATOMIC_RELAXED))
      break;
  }
}

/* What the thresholds say will log per frame on the data path, or NULL:
 * the decision before the run (gst/ax/gstaxdebugcheck.c). */
gchar *
axprof_debug_default_offender (void)
{
  return gst_ax_debug_check_threshold ();
}

gchar *
axprof_debug_logged_offender (gint64 logged, guint64 frames)
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
      " messages at DEBUG or above during the run, %.1f per frame over %"
      G_GUINT64_FORMAT " frames", logged, frames ? logged / (gdouble) frames
      : (gdouble) logged, frames);
  return g_string_free (s, FALSE);
}

/* Writes one output; a failure is printed at once and added to errors,
 * one line each, for the report's text and its bus message. A FIFO or a
 * device takes every report of the process; numbering (PATH.2, ...) is for
 * files. */
static void
write_output (const gchar * what, const gchar * base, guint * n,
    const gchar * contents, GstAxOutputMode mode, GString * errors)
{
  gchar *path = *n == 0 || gst_ax_output_is_stream (base) ? g_strdup (base) :
      g_strdup_printf ("%s.%u", base, *n + 1);
  GError *err = NULL;

  (*n)++;
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

static void
write_report (GstAxProf * self, PipelineState * p, GstAxReport * r,
    gchar * timeline)
{
  gchar *text = gst_ax_report_to_text (r);
  gchar *json = gst_ax_report_to_json (r);
  GString *errors = g_string_new (NULL);
  gchar *full;
  GstStructure *s;
  GstElement *pipeline;
  guint n_file = 0;

  /* the files first, so that the text can say which could not be written */
  if (self->json)
    write_output ("json", self->json, &self->n_json, json,
        GST_AX_OUTPUT_REPLACE, errors);
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

  pipeline = p->pipeline ? gst_object_ref (p->pipeline) : NULL;
  if (pipeline) {
    s = gst_structure_new ("axprof-report",
        "pipeline", G_TYPE_STRING, r->pipeline,
        "status", G_TYPE_STRING, r->status == GST_AX_REPORT_STATUS_EOS ?
        "eos" : "cut-short",
        "refused", G_TYPE_BOOLEAN, r->refusal != NULL,
        "constraint", G_TYPE_STRING, r->constraint,
        "verdict-kind", G_TYPE_STRING,
        gst_ax_report_constraint_kind_to_string (r->constraint_kind),
        "verdict-element", G_TYPE_STRING, r->constraint_element,
        "text", G_TYPE_STRING, full, "json", G_TYPE_STRING, json,
        "report", GST_AX_TYPE_REPORT, r,
        "output-errors", G_TYPE_STRING, errors->len ? errors->str : NULL,
        "usage-reader", G_TYPE_STRING, gst_ax_probe_thread_usage_reader () ==
        GST_AX_PROBE_USAGE_PERF ? "perf" : "rusage",
        "usage-fallback-threads", G_TYPE_UINT,
        gst_ax_probe_thread_usage_fallback_threads (), NULL);
    gst_element_post_message (pipeline,
        gst_message_new_element (GST_OBJECT (pipeline), s));
    gst_object_unref (pipeline);
  }
  g_string_free (errors, TRUE);
  g_free (full);
  g_free (text);
  g_free (json);
}

static void
finish_run (GstAxProf * self, PipelineState * p, GstAxReportStatus status)
{
  gchar *timeline = NULL;
  GstAxReport *r;

  g_mutex_lock (&axprof_global_lock);
  if (p->reported || !p->started) {
    g_mutex_unlock (&axprof_global_lock);
    return;
  }
  p->reported = TRUE;
  p->end_probe_ns = gst_ax_probe_now_ns ();
  p->cpu1_ns = axprof_process_cpu_ns ();
  g_mutex_lock (&p->lock);
  r = axprof_make_report (self, p, status);
  if (self->perfetto && r->refusal == NULL && p->first_ts != 0)
    timeline = axprof_make_timeline (p);
  g_mutex_unlock (&p->lock);
  g_mutex_unlock (&axprof_global_lock);

  write_report (self, p, r, timeline);
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
  r = axprof_make_report (self, p,
      p->reported ? GST_AX_REPORT_STATUS_EOS : GST_AX_REPORT_STATUS_RUNNING);
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

static void
do_post_message_pre (GObject * obj, GstClockTime ts, GstElement * element,
    GstMessage * message)
{
  PipelineState *p;

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

static void
do_change_state_post (GObject * obj, GstClockTime ts, GstElement * element,
    GstStateChange transition, GstStateChangeReturn result)
{
  PipelineState *p;
  guint i;

  if (!GST_IS_PIPELINE (element) || GST_OBJECT_PARENT (element) != NULL ||
      result == GST_STATE_CHANGE_FAILURE)
    return;
  if (transition == GST_STATE_CHANGE_READY_TO_PAUSED) {
    p = axprof_pipeline_of (element, TRUE);
    g_mutex_lock (&axprof_global_lock);
    g_mutex_lock (&p->lock);
    if (p->reported)
      axprof_pipeline_reset (p);
    p->reported = FALSE;
    p->started = TRUE;
    g_free (p->debug_at_start);
    p->debug_at_start = axprof_debug_default_offender ();
    p->log_count0 = __atomic_load_n (&axprof_debug_log_count, __ATOMIC_RELAXED);
    for (i = 0; i < MAX_NAMED_CATEGORIES; i++)
      __atomic_store_n (&logged_categories[i], NULL, __ATOMIC_RELAXED);
    /* decided now: say so at once rather than after a wasted run */
    if (p->debug_at_start && !GST_AX_PROF (obj)->allow_debug)
      g_printerr ("axprof: DEBUG logging is enabled (%s): the report of %s "
          "will carry no timings. Rerun without GST_DEBUG.\n",
          p->debug_at_start, GST_OBJECT_NAME (element));
    g_mutex_unlock (&p->lock);
    g_mutex_unlock (&axprof_global_lock);
  } else if (transition == GST_STATE_CHANGE_PAUSED_TO_READY) {
    p = axprof_pipeline_of (element, FALSE);
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
  ElementState ei = { 0, };
  ElementCacheEntry *c;
  guint64 cpu, faults, t0, t1;
  guint saved = axprof_sample_every, i, pass;

  st.wall_min_ns = G_MAXUINT64;
  /* best of a few passes: the first one pays for cold caches */
  self->read_cost_ns = G_MAXDOUBLE;
  for (pass = 0; pass < CALIBRATION_PASSES; pass++) {
    t0 = gst_ax_probe_now_ns ();
    for (i = 0; i < CALIBRATION_ROUNDS; i++)
      gst_ax_probe_thread_usage (&cpu, &faults);
    t1 = gst_ax_probe_now_ns ();
    self->read_cost_ns = MIN (self->read_cost_ns,
        (gdouble) (t1 - t0) / CALIBRATION_ROUNDS);
  }

  /* sampling off so that only bookkeeping is timed */
  axprof_sample_every = G_MAXUINT;
  st.countdown = G_MAXUINT;
  ei.element = GST_ELEMENT_CAST (dummy);
  c = axprof_element_cache_slot (&t, GST_OBJECT_CAST (dummy));
  c->parent = GST_OBJECT_CAST (dummy);
  c->ei = &ei;
  self->hook_cost_ns = G_MAXDOUBLE;
  for (pass = 0; pass < CALIBRATION_PASSES; pass++) {
    t0 = gst_ax_probe_now_ns ();
    for (i = 0; i < CALIBRATION_ROUNDS; i++) {
      Span *f = &t.stack[0];

      /* four hooks per element-buffer: push-pre, chain-pre, chain-post,
       * push-post, each resolving its pad's element (a cache hit) */
      (void) axprof_element_cache_lookup (axprof_element_cache_slot (&t,
              GST_OBJECT_CAST (dummy)), GST_OBJECT_CAST (dummy));
      (void) axprof_element_cache_lookup (axprof_element_cache_slot (&t,
              GST_OBJECT_CAST (dummy)), GST_OBJECT_CAST (dummy));
      axprof_span_open (f, &row, &st, i, &t);
      (void) axprof_element_cache_lookup (axprof_element_cache_slot (&t,
              GST_OBJECT_CAST (dummy)), GST_OBJECT_CAST (dummy));
      axprof_span_pause (f, i + 1, &t);
      axprof_span_record (f, &t, i + 1);
      (void) axprof_element_cache_lookup (axprof_element_cache_slot (&t,
              GST_OBJECT_CAST (dummy)), GST_OBJECT_CAST (dummy));
      axprof_span_resume (f, i + 1, &t);
    }
    t1 = gst_ax_probe_now_ns ();
    self->hook_cost_ns = MIN (self->hook_cost_ns,
        (gdouble) (t1 - t0) / CALIBRATION_ROUNDS);
  }
  GST_INFO ("calibrated: %.0f ns per usage read (%s), %.0f ns bookkeeping "
      "per element-buffer", self->read_cost_ns,
      gst_ax_probe_thread_usage_reader_name
      (gst_ax_probe_thread_usage_reader ()), self->hook_cost_ns);
  axprof_sample_every = saved;
  g_object_unref (dummy);
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
  p.sample = self->sample;
  p.allow_debug = self->allow_debug;
  p.print = self->print;
  axprof_params_parse (params, &p, warnings);
  self->file = p.file;
  self->json = p.json;
  self->perfetto = p.perfetto;
  self->sample = p.sample;
  self->allow_debug = p.allow_debug;
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
gst_ax_prof_constructed (GObject * object)
{
  GstAxProf *self = GST_AX_PROF (object);
  GstTracer *tracer = GST_TRACER (object);
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
  axprof_sample_every = self->sample;

  calibrate (self);
  axprof_trace_on = self->perfetto != NULL;
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
  gst_tracing_register_hook (tracer, "element-change-state-post",
      G_CALLBACK (do_change_state_post));

  gst_debug_add_log_function (count_debug_log, NULL, NULL);
  self->probe_sink = gst_ax_probe_add_sink (&axprof_probe_sink_funcs, self);
  gst_ax_report_set_provider (report_provider, self);
}

static void
gst_ax_prof_finalize (GObject * object)
{
  GstAxProf *self = GST_AX_PROF (object);

  g_free (self->file);
  g_free (self->json);
  g_free (self->perfetto);
  g_mutex_lock (&axprof_global_lock);
  if (active_instance == self)
    active_instance = NULL;
  g_mutex_unlock (&axprof_global_lock);
  G_OBJECT_CLASS (gst_ax_prof_parent_class)->finalize (object);
}

static void
gst_ax_prof_class_init (GstAxProfClass * klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);

  gobject_class->constructed = gst_ax_prof_constructed;
  gobject_class->finalize = gst_ax_prof_finalize;

  GST_DEBUG_CATEGORY_INIT (gst_ax_prof_debug, "axprof", 0, "axprof tracer");
  GST_DEBUG_CATEGORY_GET (tracer_category, GST_AX_DEBUG_TRACER_CATEGORY);
  axprof_registry_init ();
}

static void
gst_ax_prof_init (GstAxProf * self)
{
  self->sample = 1;
  self->print = TRUE;
}
