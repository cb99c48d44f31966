/* gst-ax
 * Copyright (C) 2026 gst-ax developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

/* The OpenMetrics endpoint (the tracer's `metrics=[HOST:]PORT`): an HTTP
 * server (libsoup 3) on a thread of its own, with its own main context,
 * that answers GET /metrics with every pipeline's figures in the
 * OpenMetrics text format (or Prometheus's text format 0.0.4 for a client
 * that does not ask for OpenMetrics).
 *
 * Nothing is counted for it: a scrape makes each pipeline's whole-run
 * report (axprof_make_report_raw(), as gst_ax_report_get_for_pipeline()
 * does) and writes its counters out. The hot path is untouched.
 *
 * Names follow Prometheus's conventions: gst_ax_ prefix, base units
 * (seconds, buffers, bytes) in the name, counters ending in _total,
 * ratios from 0 to 1. docs/monitoring.md lists them. */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstaxprof-thread.h"
#include "gstaxprof-report-private.h"

#include <libsoup/soup.h>
#include <math.h>
#include <string.h>
#include <unistd.h>

/* the latency histogram's buckets (upper bounds, seconds) */
static const gdouble latency_buckets_s[] = {
  0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10
};

static GThread *metrics_thread;
static pid_t metrics_pid;
static GMutex metrics_lock;
static GCond metrics_cond;
static gboolean metrics_ready;
static gchar *metrics_address;
static gchar *metrics_uri;
static const TracerSetup *metrics_setup;
static GMainContext *metrics_context;
static GMainLoop *metrics_loop;

/* A metric family: its description, then its samples. The exposition
 * gives each family's samples together, whatever pipeline or row they
 * come from. */
typedef struct
{
  GString *head;
  GString *body;
} Family;

typedef struct
{
  gboolean openmetrics;
  /* family name -> Family, in the order first described */
  GHashTable *families;
  GPtrArray *order;
} Writer;

static void
family_free (gpointer data)
{
  Family *f = data;

  g_string_free (f->head, TRUE);
  g_string_free (f->body, TRUE);
  g_free (f);
}

static void
append_escaped (GString * s, const gchar * v)
{
  for (; v && *v; v++) {
    if (*v == '\\')
      g_string_append (s, "\\\\");
    else if (*v == '"')
      g_string_append (s, "\\\"");
    else if (*v == '\n')
      g_string_append (s, "\\n");
    else
      g_string_append_c (s, *v);
  }
}

/* "# TYPE" (and "# UNIT", "# HELP") once per family. OpenMetrics names a
 * counter's family without _total, Prometheus's text format with it. */
static void
describe (Writer * w, const gchar * family, const gchar * type,
    const gchar * unit, const gchar * help)
{
  const gchar *name = family;
  gchar *tmp = NULL;
  Family *f;

  if (g_hash_table_contains (w->families, family))
    return;
  f = g_new0 (Family, 1);
  f->head = g_string_new (NULL);
  f->body = g_string_new (NULL);
  g_hash_table_insert (w->families, (gpointer) family, f);
  g_ptr_array_add (w->order, f);
  if (!w->openmetrics && strcmp (type, "counter") == 0)
    name = tmp = g_strconcat (family, "_total", NULL);
  if (!w->openmetrics && strcmp (type, "info") == 0)
    name = tmp = g_strconcat (family, "_info", NULL);
  g_string_append_printf (f->head, "# TYPE %s %s\n", name,
      !w->openmetrics && strcmp (type, "info") == 0 ? "gauge" : type);
  if (w->openmetrics && unit)
    g_string_append_printf (f->head, "# UNIT %s %s\n", name, unit);
  g_string_append_printf (f->head, "# HELP %s %s\n", name, help);
  g_free (tmp);
}

/* One sample of the described @family: its name plus @suffix, labels as
 * NULL-terminated name/value pairs. */
static void
sample (Writer * w, const gchar * family, const gchar * suffix, gdouble v, ...)
{
  Family *f = g_hash_table_lookup (w->families, family);
  const gchar *k, *sep = "{";
  GString *s;
  va_list args;

  g_assert (f != NULL);
  s = f->body;
  g_string_append (s, family);
  g_string_append (s, suffix);
  va_start (args, v);
  while ((k = va_arg (args, const gchar *)) != NULL)
  {
    const gchar *val = va_arg (args, const gchar *);

    g_string_append_printf (s, "%s%s=\"", sep, k);
    append_escaped (s, val ? val : "");
    g_string_append_c (s, '"');
    sep = ",";
  }
  va_end (args);
  if (*sep == ',')
    g_string_append_c (s, '}');
  if (isnan (v))
    g_string_append (s, " NaN\n");
  else if (isinf (v))
    g_string_append (s, v > 0 ? " +Inf\n" : " -Inf\n");
  else
    g_string_append_printf (s, " %.17g\n", v);
}

#define MS_TO_S(x) ((x) / 1000.0)

static void
write_rows (Writer * w, const GstAxReport * r)
{
  guint i, j;

  for (i = 0; i < r->groups->len; i++) {
    GstAxReportGroup *g = g_ptr_array_index (r->groups, i);

    for (j = 0; j < g->rows->len; j++) {
      GstAxReportRow *row = &g_array_index (g->rows, GstAxReportRow, j);
      const gchar *el = row->element ? row->element : row->name;

#define ROW_LABELS "pipeline", r->pipeline, "group", g->name, \
        "element", el, "row", row->name, NULL
      describe (w, "gst_ax_element_wall_seconds", "counter", "seconds",
          "Wall time spent in the row's calls (exclusive of nested "
          "elements).");
      sample (w, "gst_ax_element_wall_seconds", "_total",
          MS_TO_S (row->total_ms), ROW_LABELS);
      describe (w, "gst_ax_element_cpu_seconds", "counter", "seconds",
          "Thread CPU time of the row's calls, its element's worker "
          "threads included.");
      sample (w, "gst_ax_element_cpu_seconds", "_total",
          MS_TO_S (row->cpu_ms * row->count), ROW_LABELS);
      describe (w, "gst_ax_element_calls", "counter", NULL,
          "Calls of the row (buffers or buffer lists, task iterations, "
          "reported stages).");
      sample (w, "gst_ax_element_calls", "_total", row->count, ROW_LABELS);
      describe (w, "gst_ax_element_faults", "counter", NULL,
          "Minor page faults taken in the row's calls.");
      sample (w, "gst_ax_element_faults", "_total",
          round (row->faults * row->count), ROW_LABELS);
#undef ROW_LABELS
    }
  }
}

static void
write_latency (Writer * w, const GstAxReport * r, const LatencyHistogram * h)
{
  guint64 below = 0;
  guint b, k = 0;

  if (h->n == 0)
    return;
  describe (w, "gst_ax_pipeline_latency_seconds", "histogram", "seconds",
      "End-to-end latency of frames from their source to a sink.");
  /* the report's log-linear histogram, summed into fixed buckets; each
   * fine bucket counts at its value, as the report's percentiles do */
  for (b = 0; b < HIST_BUCKETS && k < G_N_ELEMENTS (latency_buckets_s); b++) {
    if (h->buckets[b] == 0)
      continue;
    while (k < G_N_ELEMENTS (latency_buckets_s) &&
        axprof_hist_bucket_value (b) > latency_buckets_s[k] * GST_SECOND) {
      gchar le[32];

      g_ascii_formatd (le, sizeof (le), "%g", latency_buckets_s[k]);
      sample (w, "gst_ax_pipeline_latency_seconds", "_bucket", below,
          "pipeline", r->pipeline, "le", le, NULL);
      k++;
    }
    below += h->buckets[b];
  }
  for (; k < G_N_ELEMENTS (latency_buckets_s); k++) {
    gchar le[32];

    g_ascii_formatd (le, sizeof (le), "%g", latency_buckets_s[k]);
    sample (w, "gst_ax_pipeline_latency_seconds", "_bucket", below,
        "pipeline", r->pipeline, "le", le, NULL);
  }
  sample (w, "gst_ax_pipeline_latency_seconds", "_bucket", h->n,
      "pipeline", r->pipeline, "le", "+Inf", NULL);
  sample (w, "gst_ax_pipeline_latency_seconds", "_count", h->n,
      "pipeline", r->pipeline, NULL);
  sample (w, "gst_ax_pipeline_latency_seconds", "_sum",
      h->sum_ns / GST_SECOND, "pipeline", r->pipeline, NULL);
}

static void
write_pipeline (Writer * w, const GstAxReport * r, const ReportRaw * raw,
    gboolean running, const GArray * levels)
{
  guint i;

  describe (w, "gst_ax_pipeline_running", "gauge", NULL,
      "1 while the pipeline's run goes on, 0 once it has ended (EOS, "
      "error or stop).");
  sample (w, "gst_ax_pipeline_running", "", running, "pipeline",
      r->pipeline, NULL);
  if (r->refusal)
    return;
  describe (w, "gst_ax_pipeline_frames", "counter", NULL,
      "Frames that reached the pipeline's sinks.");
  sample (w, "gst_ax_pipeline_frames", "_total", r->frames, "pipeline",
      r->pipeline, NULL);
  describe (w, "gst_ax_pipeline_wall_seconds", "counter", "seconds",
      "Wall time of the run, from its first buffer.");
  sample (w, "gst_ax_pipeline_wall_seconds", "_total", r->wall_s,
      "pipeline", r->pipeline, NULL);
  describe (w, "gst_ax_pipeline_fps", "gauge", NULL,
      "Frames per second over the whole run (rate() of "
      "gst_ax_pipeline_frames_total gives it over a window).");
  sample (w, "gst_ax_pipeline_fps", "", r->fps, "pipeline", r->pipeline, NULL);
  if (r->cpu_absent == NULL) {
    describe (w, "gst_ax_pipeline_cpu_seconds", "counter", "seconds",
        "CPU time of the pipeline's threads over the run.");
    sample (w, "gst_ax_pipeline_cpu_seconds", "_total",
        MS_TO_S (r->pipeline_cpu_ms), "pipeline", r->pipeline, NULL);
  }
  write_latency (w, r, &raw->lat);
  write_rows (w, r);

  for (i = 0; i < r->queues->len; i++) {
    GstAxReportQueue *q = &g_array_index (r->queues, GstAxReportQueue, i);
    const RawQueue *rq = i < raw->queues->len ?
        &g_array_index (raw->queues, RawQueue, i) : NULL;

#define Q_LABELS "pipeline", r->pipeline, "queue", q->name, NULL
    if (i < levels->len) {
      describe (w, "gst_ax_queue_level_buffers", "gauge", "buffers",
          "Buffers the queue holds now.");
      sample (w, "gst_ax_queue_level_buffers", "",
          g_array_index (levels, gint64, i), Q_LABELS);
    }
    describe (w, "gst_ax_queue_mean_level_buffers", "gauge", "buffers",
        "The queue's time-weighted mean level over the run.");
    sample (w, "gst_ax_queue_mean_level_buffers", "", q->mean, Q_LABELS);
    describe (w, "gst_ax_queue_max_size_buffers", "gauge", "buffers",
        "The queue's max-size-buffers limit (0: none).");
    sample (w, "gst_ax_queue_max_size_buffers", "", q->max_size_buffers,
        Q_LABELS);
    describe (w, "gst_ax_queue_input_buffers", "counter", "buffers",
        "Buffers that entered the queue.");
    sample (w, "gst_ax_queue_input_buffers", "_total", q->input, Q_LABELS);
    describe (w, "gst_ax_queue_dropped_buffers", "counter", "buffers",
        "Buffers the queue dropped (a leaky queue).");
    sample (w, "gst_ax_queue_dropped_buffers", "_total", q->dropped, Q_LABELS);
    if (rq) {
      describe (w, "gst_ax_queue_full_seconds", "counter", "seconds",
          "Time the queue sat at a limit.");
      sample (w, "gst_ax_queue_full_seconds", "_total",
          rq->full_ns / (gdouble) GST_SECOND, Q_LABELS);
      describe (w, "gst_ax_queue_empty_seconds", "counter", "seconds",
          "Time the queue sat empty.");
      sample (w, "gst_ax_queue_empty_seconds", "_total",
          rq->empty_ns / (gdouble) GST_SECOND, Q_LABELS);
    }
#undef Q_LABELS
  }

  for (i = 0; i < r->devices->len; i++) {
    GstAxReportDevice *d = &g_array_index (r->devices, GstAxReportDevice, i);
    const RawDevice *rd = i < raw->devices->len ?
        &g_array_index (raw->devices, RawDevice, i) : NULL;
    gchar id[16];

    g_snprintf (id, sizeof (id), "%u", d->device_id);
#define D_LABELS "pipeline", r->pipeline, "model", d->group, \
        "device", d->device, "device_id", id, NULL
    describe (w, "gst_ax_device_jobs", "counter", NULL,
        "Jobs the model ran on the device.");
    sample (w, "gst_ax_device_jobs", "_total", d->jobs, D_LABELS);
    if (rd) {
      describe (w, "gst_ax_device_busy_seconds", "counter", "seconds",
          "Device time the model's jobs took (summed over cores).");
      sample (w, "gst_ax_device_busy_seconds", "_total",
          rd->busy_ns / (gdouble) GST_SECOND, D_LABELS);
    }
    describe (w, "gst_ax_device_occupancy_ratio", "gauge", "ratio",
        "Share of the device's cores the model kept busy over the run "
        "(0 to 1).");
    sample (w, "gst_ax_device_occupancy_ratio", "",
        d->occupancy_percent / 100.0, D_LABELS);
    describe (w, "gst_ax_device_in_flight", "gauge", NULL,
        "Mean frames inside the model's in-flight window over the run.");
    sample (w, "gst_ax_device_in_flight", "", d->depth, D_LABELS);
#undef D_LABELS
  }

  if (r->constraint_kind != GST_AX_REPORT_CONSTRAINT_UNDETERMINED ||
      r->constraint) {
    describe (w, "gst_ax_pipeline_verdict", "info", NULL,
        "The report's verdict: the kind of constraint and the element it "
        "names.");
    sample (w, "gst_ax_pipeline_verdict", "_info", 1, "pipeline",
        r->pipeline, "kind",
        gst_ax_report_constraint_kind_to_string (r->constraint_kind),
        "element", r->constraint_element ? r->constraint_element : "", NULL);
  }
}

/* The whole exposition, every pipeline seen. */
gchar *
axprof_metrics_text (const TracerSetup * setup, gboolean openmetrics)
{
  Writer w = { openmetrics, g_hash_table_new (g_str_hash, g_str_equal),
    g_ptr_array_new_with_free_func (family_free)
  };
  GString *out = g_string_new (NULL);
  GPtrArray *pipes = axprof_pipelines ();
  ReportRaw *raw = axprof_report_raw_new ();
  guint i, k;

  for (i = 0; i < pipes->len; i++) {
    PipelineState *p = g_ptr_array_index (pipes, i);
    GArray *levels = g_array_new (FALSE, TRUE, sizeof (gint64));
    GstAxReport *r;
    gboolean running;

    g_mutex_lock (&axprof_global_lock);
    if (p->pipeline == NULL || (!p->started && !p->reported)) {
      g_mutex_unlock (&axprof_global_lock);
      g_array_unref (levels);
      continue;
    }
    running = p->started && !p->reported;
    g_mutex_lock (&p->lock);
    r = axprof_make_report_raw (setup, p, p->error_element ?
        GST_AX_REPORT_STATUS_ERROR : running ? GST_AX_REPORT_STATUS_RUNNING :
        GST_AX_REPORT_STATUS_EOS, raw);
    /* the levels now, in the order of the report's queues */
    for (k = 0; k < r->queues->len; k++) {
      const gchar *name = g_array_index (r->queues, GstAxReportQueue, k).name;
      gint64 level = 0;
      guint j;

      for (j = 0; j < p->queues->len; j++) {
        QueueState *q = g_ptr_array_index (p->queues, j);

        if (strcmp (q->name, name) == 0) {
          g_mutex_lock (&q->lock);
          level = running ? MAX (q->depth, 0) : 0;
          g_mutex_unlock (&q->lock);
        }
      }
      g_array_append_val (levels, level);
    }
    g_mutex_unlock (&p->lock);
    g_mutex_unlock (&axprof_global_lock);
    write_pipeline (&w, r, raw, running, levels);
    gst_ax_report_unref (r);
    g_array_unref (levels);
  }
  axprof_report_raw_free (raw);
  g_ptr_array_unref (pipes);
  for (i = 0; i < w.order->len; i++) {
    Family *f = g_ptr_array_index (w.order, i);

    g_string_append_len (out, f->head->str, f->head->len);
    g_string_append_len (out, f->body->str, f->body->len);
  }
  g_hash_table_unref (w.families);
  g_ptr_array_unref (w.order);
  if (openmetrics)
    g_string_append (out, "# EOF\n");
  return g_string_free (out, FALSE);
}

static void
handle_metrics (SoupServer * server, SoupServerMessage * msg,
    const char *path, GHashTable * query, gpointer user_data)
{
  const gchar *accept;
  gboolean openmetrics;
  gchar *body;

  if (strcmp (soup_server_message_get_method (msg), "GET") != 0 &&
      strcmp (soup_server_message_get_method (msg), "HEAD") != 0) {
    soup_server_message_set_status (msg, SOUP_STATUS_METHOD_NOT_ALLOWED, NULL);
    return;
  }
  accept =
      soup_message_headers_get_list (soup_server_message_get_request_headers
      (msg), "Accept");
  openmetrics = accept && strstr (accept, "application/openmetrics-text");
  body = axprof_metrics_text (metrics_setup, openmetrics);
  soup_server_message_set_status (msg, SOUP_STATUS_OK, NULL);
  soup_server_message_set_response (msg, openmetrics ?
      "application/openmetrics-text; version=1.0.0; charset=utf-8" :
      "text/plain; version=0.0.4; charset=utf-8", SOUP_MEMORY_TAKE, body,
      strlen (body));
}

static void
handle_other (SoupServer * server, SoupServerMessage * msg,
    const char *path, GHashTable * query, gpointer user_data)
{
  static const gchar page[] = "gst-ax axprof: the metrics are at /metrics\n";

  soup_server_message_set_status (msg, strcmp (path, "/") == 0 ?
      SOUP_STATUS_OK : SOUP_STATUS_NOT_FOUND, NULL);
  soup_server_message_set_response (msg, "text/plain; charset=utf-8",
      SOUP_MEMORY_STATIC, page, strlen (page));
}

/* HOST:PORT, [V6]:PORT or PORT; HOST a literal address or localhost. */
static GSocketAddress *
parse_address (const gchar * spec, GError ** error)
{
  gchar *host = NULL;
  guint16 port = 0;
  GInetAddress *addr;
  GSocketAddress *sa;
  gchar *end;
  guint64 v;

  if (strchr (spec, ':') == NULL) {
    host = g_strdup ("127.0.0.1");
    v = g_ascii_strtoull (spec, &end, 10);
    if (*spec == '\0' || *end != '\0' || v > 65535) {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT,
          "'%s' is not a port; expected metrics=PORT or metrics=HOST:PORT",
          spec);
      g_free (host);
      return NULL;
    }
    port = (guint16) v;
  } else {
    GSocketConnectable *c = g_network_address_parse (spec, 0, error);

    if (c == NULL)
      return NULL;
    host = g_strdup (g_network_address_get_hostname (G_NETWORK_ADDRESS (c)));
    port = g_network_address_get_port (G_NETWORK_ADDRESS (c));
    g_object_unref (c);
  }
  if (g_strcmp0 (host, "localhost") == 0) {
    g_free (host);
    host = g_strdup ("127.0.0.1");
  }
  addr = g_inet_address_new_from_string (host);
  if (addr == NULL) {
    g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT,
        "'%s' is not an IP address; expected metrics=HOST:PORT with HOST "
        "an address such as 127.0.0.1, 0.0.0.0 or [::1]", host);
    g_free (host);
    return NULL;
  }
  sa = g_inet_socket_address_new (addr, port);
  g_object_unref (addr);
  g_free (host);
  return sa;
}

static gpointer
metrics_loop_thread (gpointer data)
{
  gboolean print = GPOINTER_TO_INT (data);
  SoupServer *server = NULL;
  GSocketAddress *sa;
  GError *err = NULL;
  GSList *uris;

  g_main_context_push_thread_default (metrics_context);
  sa = parse_address (metrics_address, &err);
  if (sa) {
    server = soup_server_new ("server-header", "gst-ax-axprof ", NULL);
    soup_server_add_handler (server, "/metrics", handle_metrics, NULL, NULL);
    soup_server_add_handler (server, NULL, handle_other, NULL, NULL);
    if (!soup_server_listen (server, sa, 0, &err))
      g_clear_object (&server);
    g_object_unref (sa);
  }
  g_mutex_lock (&metrics_lock);
  if (server) {
    uris = soup_server_get_uris (server);
    if (uris) {
      gchar *base = g_uri_to_string (uris->data);

      metrics_uri = g_str_has_suffix (base, "/") ?
          g_strconcat (base, "metrics", NULL) :
          g_strconcat (base, "/metrics", NULL);
      g_free (base);
    }
    g_slist_free_full (uris, (GDestroyNotify) g_uri_unref);
  }
  metrics_ready = TRUE;
  g_cond_broadcast (&metrics_cond);
  g_mutex_unlock (&metrics_lock);

  if (server == NULL) {
    /* a busy port is the user's to fix, not a reason to stop the
     * pipeline */
    g_printerr ("axprof: cannot serve metrics on %s: %s; the pipeline runs "
        "without the endpoint\n", metrics_address, err ? err->message : "?");
    g_clear_error (&err);
    g_main_context_pop_thread_default (metrics_context);
    return NULL;
  }
  if (print)
    g_printerr ("axprof: serving OpenMetrics at %s\n", metrics_uri);
  g_main_loop_run (metrics_loop);
  soup_server_disconnect (server);
  g_object_unref (server);
  g_main_context_pop_thread_default (metrics_context);
  return NULL;
}

void
axprof_metrics_configure (const TracerSetup * setup, const gchar * address)
{
  metrics_setup = setup;
  g_free (metrics_address);
  metrics_address = g_strdup (address);
}

/* A run starts: the server runs from the first run of the process (a
 * process forked after the tracer started has none of its parent's). */
void
axprof_metrics_run_started (gboolean print)
{
  if (metrics_address == NULL)
    return;
  g_mutex_lock (&metrics_lock);
  if (metrics_thread != NULL && metrics_pid == getpid ()) {
    g_mutex_unlock (&metrics_lock);
    return;
  }
  metrics_pid = getpid ();
  metrics_ready = FALSE;
  g_clear_pointer (&metrics_uri, g_free);
  metrics_context = g_main_context_new ();
  metrics_loop = g_main_loop_new (metrics_context, FALSE);
  metrics_thread = g_thread_new ("axprof-metrics", metrics_loop_thread,
      GINT_TO_POINTER (print));
  /* so that the address is known (or the failure said) when the run
   * starts */
  while (!metrics_ready)
    g_cond_wait (&metrics_cond, &metrics_lock);
  g_mutex_unlock (&metrics_lock);
}

/* http://HOST:PORT/metrics once serving, else NULL */
gchar *
axprof_metrics_uri (void)
{
  gchar *uri;

  g_mutex_lock (&metrics_lock);
  uri = metrics_pid == getpid ()? g_strdup (metrics_uri) : NULL;
  g_mutex_unlock (&metrics_lock);
  return uri;
}

static gboolean
quit_loop (gpointer data)
{
  g_main_loop_quit (metrics_loop);
  return G_SOURCE_REMOVE;
}

void
axprof_metrics_stop (void)
{
  if (metrics_thread != NULL && metrics_pid == getpid ()) {
    /* dispatched once the loop runs, if it has not started yet */
    g_main_context_invoke (metrics_context, quit_loop, NULL);
    g_thread_join (metrics_thread);
  }
  metrics_thread = NULL;
  g_clear_pointer (&metrics_loop, g_main_loop_unref);
  g_clear_pointer (&metrics_context, g_main_context_unref);
  g_clear_pointer (&metrics_uri, g_free);
  g_clear_pointer (&metrics_address, g_free);
}
