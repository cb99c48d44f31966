/* gst-ax
 * Copyright (C) 2026 gst-ax developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

/* axprof's metrics= endpoint scraped by a real Prometheus (Debian's
 * prometheus package): the test starts the server on loopback ports with
 * a scrape config pointing at the pipeline, runs a live stock pipeline,
 * and asks Prometheus's HTTP API for what it stored: the frames, the
 * latency histogram's count and an element's CPU must be the pipeline's
 * EOS report's, and Prometheus must have parsed every scrape (up == 1).
 * With AXPROF_TEST_BUSY_PORT set, the endpoint's port is held by another
 * socket: a warning, and the run goes on. Skipped (77) without the
 * prometheus binary. */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <gst/check/gstcheck.h>
#include <gst/ax/ax.h>
#include <json-glib/json-glib.h>
#include <libsoup/soup.h>

#include <math.h>
#include <signal.h>
#include <string.h>
#include <sys/prctl.h>

#define PROMETHEUS "/usr/bin/prometheus"
#define FRAMES 120
#define WAIT_US (90 * G_TIME_SPAN_SECOND)

static void
die_with_test (gpointer data)
{
  prctl (PR_SET_PDEATHSIG, SIGTERM);
}

static GObject *
axprof_tracer (void)
{
  GList *tracers = gst_tracing_get_active_tracers (), *l;
  GObject *found = NULL;

  for (l = tracers; l; l = l->next)
    if (g_strcmp0 (G_OBJECT_TYPE_NAME (l->data), "GstAxProf") == 0 &&
        found == NULL)
      found = g_object_ref (l->data);
  g_list_free_full (tracers, gst_object_unref);
  fail_unless (found != NULL, "axprof is not active");
  return found;
}

/* a loopback port free now */
static guint16
free_port (void)
{
  GSocket *sock = g_socket_new (G_SOCKET_FAMILY_IPV4, G_SOCKET_TYPE_STREAM,
      G_SOCKET_PROTOCOL_TCP, NULL);
  GInetAddress *lo = g_inet_address_new_loopback (G_SOCKET_FAMILY_IPV4);
  GSocketAddress *sa = g_inet_socket_address_new (lo, 0), *bound;
  guint16 port;

  fail_unless (g_socket_bind (sock, sa, FALSE, NULL));
  bound = g_socket_get_local_address (sock, NULL);
  port = g_inet_socket_address_get_port (G_INET_SOCKET_ADDRESS (bound));
  g_object_unref (bound);
  g_object_unref (sa);
  g_object_unref (lo);
  g_object_unref (sock);
  return port;
}

static gchar *
http_get (SoupSession * session, const gchar * url, guint * status)
{
  SoupMessage *msg = soup_message_new ("GET", url);
  GBytes *body;
  gchar *out = NULL;

  fail_unless (msg != NULL, "bad URL %s", url);
  body = soup_session_send_and_read (session, msg, NULL, NULL);
  *status = soup_message_get_status (msg);
  if (body) {
    out = g_strndup (g_bytes_get_data (body, NULL), g_bytes_get_size (body));
    g_bytes_unref (body);
  }
  g_object_unref (msg);
  return out;
}

/* The value of an instant query with one result, NAN when it has none
 * (yet). */
static gdouble
prom_query (SoupSession * session, guint16 port, const gchar * query)
{
  gchar *q = g_uri_escape_string (query, NULL, FALSE);
  gchar *url = g_strdup_printf ("http://127.0.0.1:%u/api/v1/query?query=%s",
      port, q);
  JsonParser *parser = json_parser_new ();
  JsonObject *root, *data;
  JsonArray *result;
  gdouble v = NAN;
  guint status = 0;
  gchar *body = http_get (session, url, &status);

  if (body && status == 200 && json_parser_load_from_data (parser, body, -1,
          NULL)) {
    root = json_node_get_object (json_parser_get_root (parser));
    fail_unless_equals_string (json_object_get_string_member (root,
            "status"), "success");
    data = json_object_get_object_member (root, "data");
    result = json_object_get_array_member (data, "result");
    fail_unless (json_array_get_length (result) <= 1, "%s: %u series",
        query, json_array_get_length (result));
    if (json_array_get_length (result) == 1) {
      JsonArray *value = json_object_get_array_member
          (json_array_get_object_element (result, 0), "value");

      v = g_ascii_strtod (json_array_get_string_element (value, 1), NULL);
    }
  }
  g_object_unref (parser);
  g_free (body);
  g_free (url);
  g_free (q);
  return v;
}

/* Polls @query until Prometheus holds @want (to @rel) or the wait ends. */
static gdouble
prom_wait_for (SoupSession * session, guint16 port, const gchar * query,
    gdouble want, gdouble rel)
{
  gint64 end = g_get_monotonic_time () + WAIT_US;
  gdouble v;

  do {
    v = prom_query (session, port, query);
    if (!isnan (v) && fabs (v - want) <= rel * MAX (fabs (want), 1e-12))
      return v;
    g_usleep (250 * 1000);
  } while (g_get_monotonic_time () < end);
  return v;
}

static GstAxReport *
run_to_eos (GstElement * pipeline)
{
  GstBus *bus = gst_element_get_bus (pipeline);
  GstAxReport *report = NULL;
  GstMessage *msg;

  while ((msg = gst_bus_timed_pop_filtered (bus, GST_CLOCK_TIME_NONE,
              GST_MESSAGE_EOS | GST_MESSAGE_ERROR | GST_MESSAGE_ELEMENT))) {
    const GstStructure *s = gst_message_get_structure (msg);
    GstMessageType type = GST_MESSAGE_TYPE (msg);

    if (type == GST_MESSAGE_ELEMENT && gst_structure_has_name (s,
            "axprof-report")) {
      g_clear_pointer (&report, gst_ax_report_unref);
      gst_structure_get (s, "report", GST_AX_TYPE_REPORT, &report, NULL);
    }
    gst_message_unref (msg);
    fail_unless (type != GST_MESSAGE_ERROR);
    if (type == GST_MESSAGE_EOS)
      break;
  }
  gst_object_unref (bus);
  fail_unless (report != NULL && report->status == GST_AX_REPORT_STATUS_EOS);
  return report;
}

GST_START_TEST (test_prometheus_stores_the_report)
{
  gchar *dir = g_dir_make_tmp ("axprof-prometheus-XXXXXX", NULL);
  gchar *config, *config_path, *data_path, *log_path, *uri = NULL, *q;
  gchar *web, *body;
  GstElement *pipeline;
  GObject *tracer;
  GUri *parsed;
  guint16 target_port, prom_port;
  GSubprocessLauncher *launcher;
  GSubprocess *prom;
  /* loopback only: no proxy (an http_proxy in the environment would
   * take the requests elsewhere) */
  SoupSession *session = soup_session_new_with_options ("proxy-resolver",
      NULL, NULL);
  GstAxReport *report;
  const GstAxReportRow *convert;
  GError *err = NULL;
  guint status = 0;
  gdouble v;
  gint64 end;

  fail_unless (dir != NULL);
  pipeline = gst_parse_launch ("videotestsrc is-live=true num-buffers="
      G_STRINGIFY (FRAMES) " ! video/x-raw,width=320,height=240,"
      "framerate=30/1 ! queue ! videoconvert name=convert ! "
      "video/x-raw,format=I420 ! fakesink sync=false", NULL);
  fail_unless (pipeline != NULL);
  gst_object_set_name (GST_OBJECT (pipeline), "camera");
  fail_unless (gst_element_set_state (pipeline, GST_STATE_PLAYING) !=
      GST_STATE_CHANGE_FAILURE);

  /* the endpoint bound port 0: the tracer says which port it got */
  tracer = axprof_tracer ();
  g_object_get (tracer, "metrics-uri", &uri, NULL);
  g_object_unref (tracer);
  fail_unless (uri != NULL, "the metrics endpoint is not serving");
  parsed = g_uri_parse (uri, G_URI_FLAGS_NONE, NULL);
  fail_unless (parsed != NULL);
  target_port = (guint16) g_uri_get_port (parsed);
  fail_unless_equals_string (g_uri_get_host (parsed), "127.0.0.1");
  fail_unless_equals_string (g_uri_get_path (parsed), "/metrics");
  g_uri_unref (parsed);

  prom_port = free_port ();
  config_path = g_build_filename (dir, "prometheus.yml", NULL);
  data_path = g_build_filename (dir, "data", NULL);
  log_path = g_build_filename (dir, "prometheus.log", NULL);
  config = g_strdup_printf ("global:\n  scrape_interval: 1s\n"
      "  scrape_timeout: 1s\nscrape_configs:\n  - job_name: gst-ax\n"
      "    static_configs:\n      - targets: ['127.0.0.1:%u']\n", target_port);
  fail_unless (g_file_set_contents (config_path, config, -1, NULL));
  web = g_strdup_printf ("--web.listen-address=127.0.0.1:%u", prom_port);
  launcher = g_subprocess_launcher_new (G_SUBPROCESS_FLAGS_STDOUT_SILENCE);
  /* a test that fails (or crashes) does not leave the server running */
  g_subprocess_launcher_set_child_setup (launcher, die_with_test, NULL, NULL);
  g_subprocess_launcher_set_stderr_file_path (launcher, log_path);
  {
    gchar *config_arg = g_strconcat ("--config.file=", config_path, NULL);
    gchar *data_arg = g_strconcat ("--storage.tsdb.path=", data_path, NULL);

    prom = g_subprocess_launcher_spawn (launcher, &err, PROMETHEUS,
        config_arg, data_arg, web, "--log.level=warn", NULL);
    g_free (config_arg);
    g_free (data_arg);
  }
  fail_unless (prom != NULL, "cannot start prometheus: %s",
      err ? err->message : "?");

  report = run_to_eos (pipeline);
  fail_unless_equals_int (report->frames, FRAMES);
  convert = gst_ax_report_find_row (report, NULL, "convert", NULL);
  fail_unless (convert != NULL);

  /* Prometheus is up and stores what it scrapes; after EOS the counters
   * hold still, so a scrape then is the report */
  end = g_get_monotonic_time () + WAIT_US;
  q = g_strdup_printf ("http://127.0.0.1:%u/-/ready", prom_port);
  do {
    g_free (http_get (session, q, &status));
    if (status == 200)
      break;
    g_usleep (250 * 1000);
  } while (g_get_monotonic_time () < end);
  g_free (q);
  fail_unless_equals_int (status, 200);

  v = prom_wait_for (session, prom_port,
      "gst_ax_pipeline_frames_total{pipeline=\"camera\"}", FRAMES, 0);
  fail_unless (v == FRAMES, "Prometheus holds %g frames, the report %d", v,
      FRAMES);
  v = prom_wait_for (session, prom_port,
      "gst_ax_pipeline_running{pipeline=\"camera\"}", 0, 0);
  fail_unless (v == 0, "running is %g after EOS", v);
  v = prom_query (session, prom_port, "up{job=\"gst-ax\"}");
  fail_unless (v == 1, "Prometheus could not scrape or parse: up is %g", v);
  v = prom_query (session, prom_port,
      "gst_ax_pipeline_latency_seconds_count{pipeline=\"camera\"}");
  fail_unless (v == report->latency.n, "latency count %g, report %"
      G_GUINT64_FORMAT, v, report->latency.n);
  v = prom_query (session, prom_port,
      "gst_ax_pipeline_latency_seconds_bucket{pipeline=\"camera\","
      "le=\"+Inf\"}");
  fail_unless (v == report->latency.n);
  q = g_strdup ("gst_ax_element_calls_total{pipeline=\"camera\","
      "element=\"convert\",row=\"convert\"}");
  v = prom_query (session, prom_port, q);
  fail_unless (v == convert->count, "convert calls %g, report %"
      G_GUINT64_FORMAT, v, convert->count);
  g_free (q);
  q = g_strdup ("gst_ax_element_cpu_seconds_total{pipeline=\"camera\","
      "element=\"convert\",row=\"convert\"}");
  v = prom_query (session, prom_port, q);
  fail_unless (fabs (v - convert->cpu_ms * convert->count / 1000.0) <=
      1e-9 + 1e-6 * v, "convert CPU %g s in Prometheus, %g s in the report",
      v, convert->cpu_ms * convert->count / 1000.0);
  fail_unless (v > 0);
  g_free (q);

  /* the text format any client gets */
  body = http_get (session, uri, &status);
  fail_unless_equals_int (status, 200);
  fail_unless (strstr (body, "# TYPE gst_ax_element_cpu_seconds_total "
          "counter\n") != NULL);
  g_free (body);

  g_subprocess_send_signal (prom, SIGTERM);
  fail_unless (g_subprocess_wait (prom, NULL, NULL));
  g_object_unref (prom);
  g_object_unref (launcher);
  gst_ax_report_unref (report);
  gst_element_set_state (pipeline, GST_STATE_NULL);
  gst_object_unref (pipeline);
  g_object_unref (session);
  {
    gchar *argv[] = { (gchar *) "rm", (gchar *) "-rf", dir, NULL };

    g_spawn_sync (NULL, argv, NULL, G_SPAWN_SEARCH_PATH, NULL, NULL, NULL,
        NULL, NULL, NULL);
  }
  g_free (web);
  g_free (config);
  g_free (config_path);
  g_free (data_path);
  g_free (log_path);
  g_free (uri);
  g_free (dir);
}

GST_END_TEST;

/* metrics= on a port another socket holds: the run goes on without the
 * endpoint, and says why on stderr */
GST_START_TEST (test_busy_port_is_a_warning)
{
  GstElement *pipeline = gst_parse_launch ("videotestsrc num-buffers=10 ! "
      "fakesink", NULL);
  GObject *tracer;
  GstAxReport *report;
  gchar *uri = NULL;

  fail_unless (gst_element_set_state (pipeline, GST_STATE_PLAYING) !=
      GST_STATE_CHANGE_FAILURE);
  report = run_to_eos (pipeline);
  fail_unless_equals_int (report->frames, 10);
  tracer = axprof_tracer ();
  g_object_get (tracer, "metrics-uri", &uri, NULL);
  fail_unless (uri == NULL, "serving at %s on a busy port", uri);
  g_object_unref (tracer);
  gst_ax_report_unref (report);
  gst_element_set_state (pipeline, GST_STATE_NULL);
  gst_object_unref (pipeline);
}

GST_END_TEST;

static GSocket *busy;

static Suite *
axprof_metrics_suite (void)
{
  Suite *s = suite_create ("axprof-metrics");
  TCase *tc = tcase_create ("general");

  suite_add_tcase (s, tc);
  tcase_set_timeout (tc, 300);
  if (busy)
    tcase_add_test (tc, test_busy_port_is_a_warning);
  else
    tcase_add_test (tc, test_prometheus_stores_the_report);
  return s;
}

int
main (int argc, char **argv)
{
  GError *err = NULL;

  if (!g_file_test (PROMETHEUS, G_FILE_TEST_IS_EXECUTABLE)) {
    g_print ("SKIP: %s is missing (Debian's prometheus package; "
        "scripts/setup.sh installs it)\n", PROMETHEUS);
    return 77;
  }
  gchar *params = g_strdup ("print=false,metrics=127.0.0.1:0");

  g_unsetenv ("GST_TRACERS");
  gst_check_init (&argc, &argv);
  if (g_getenv ("AXPROF_TEST_BUSY_PORT")) {
    /* a listening socket the endpoint cannot share */
    GInetAddress *lo = g_inet_address_new_loopback (G_SOCKET_FAMILY_IPV4);
    GSocketAddress *sa = g_inet_socket_address_new (lo, 0), *bound;

    busy = g_socket_new (G_SOCKET_FAMILY_IPV4, G_SOCKET_TYPE_STREAM,
        G_SOCKET_PROTOCOL_TCP, NULL);
    if (!g_socket_bind (busy, sa, FALSE, &err) || !g_socket_listen (busy, &err))
      g_error ("cannot hold a port: %s", err->message);
    bound = g_socket_get_local_address (busy, NULL);
    g_free (params);
    params = g_strdup_printf ("print=false,metrics=127.0.0.1:%u",
        g_inet_socket_address_get_port (G_INET_SOCKET_ADDRESS (bound)));
    g_object_unref (bound);
    g_object_unref (sa);
    g_object_unref (lo);
  }
  if (!gst_ax_profiler_enable (params, &err))
    g_error ("gst_ax_profiler_enable: %s", err->message);
  g_free (params);
  {
    gint ret = gst_check_run_suite (axprof_metrics_suite (), "axprof-metrics",
        __FILE__);

    g_clear_object (&busy);
    return ret;
  }
}
