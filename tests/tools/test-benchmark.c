/* gst-ax
 * Copyright (C) 2026 gst-ax developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

/* gst-ax-benchmark as a user runs it: its options, the messages and exit
 * status of bad ones, and short real runs (the ball detector always; the
 * real models on vtest.avi and the face photos when the data dir is
 * configured). The tool's path is the first argument. */

#include <gst/gst.h>
#include <json-glib/json-glib.h>
#include <glib/gstdio.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

/* gst-ax-benchmark's exit statuses */
#define EXIT_USAGE 2
#define EXIT_RUN_FAILED 1
#define EXIT_INTERRUPTED 130

/* long enough that Ctrl-C always comes first */
#define ENDLESS_FRAMES "1000000"
#define EXIT_REFUSED 3
#define EXIT_OUTPUT_FAILED 4

/* few frames: the suite also runs under sanitizers, 5-10x slower */
#define BALL_FRAMES 4
#define VIDEO_FRAMES 3

static const gchar *tool;
static gchar *tmp;

typedef struct
{
  gint status;
  gchar *out;
  gchar *err;
} Result;

static void
result_clear (Result * r)
{
  g_free (r->out);
  g_free (r->err);
}

/* Runs the tool with the NULL-terminated arguments after argv[0]. */
static Result
run_tool (const gchar * first, ...)
{
  GPtrArray *argv = g_ptr_array_new ();
  Result r = { 0, NULL, NULL };
  GError *error = NULL;
  const gchar *arg;
  gint wait_status = 0;
  va_list ap;

  g_ptr_array_add (argv, (gpointer) tool);
  va_start (ap, first);
  for (arg = first; arg != NULL; arg = va_arg (ap, const gchar *))
      g_ptr_array_add (argv, (gpointer) arg);
  va_end (ap);
  g_ptr_array_add (argv, NULL);
  g_assert_true (g_spawn_sync (NULL, (gchar **) argv->pdata, NULL, 0, NULL,
          NULL, &r.out, &r.err, &wait_status, &error));
  g_assert_no_error (error);
  g_assert_true (WIFEXITED (wait_status));
  r.status = WEXITSTATUS (wait_status);
  g_ptr_array_free (argv, TRUE);
  return r;
}

static void
assert_usage_error (Result r, const gchar * message)
{
  if (r.status != EXIT_USAGE || strstr (r.err, message) == NULL)
    g_error ("expected exit %d and \"%s\" on stderr, got exit %d:\n%s",
        EXIT_USAGE, message, r.status, r.err);
  /* refused before anything ran: no report */
  g_assert_null (strstr (r.out, "Latency"));
  if (strstr (r.err, "--help") == NULL)
    g_error ("no usage hint with \"%s\":\n%s", message, r.err);
  result_clear (&r);
}

static void
test_bad_options (void)
{
  assert_usage_error (run_tool (NULL), "expected one MODEL argument, got 0");
  assert_usage_error (run_tool ("ball-detector", "extra", NULL),
      "expected one MODEL argument, got 2");
  assert_usage_error (run_tool ("ball-detector", "--frames", "0", NULL),
      "--frames must be positive, got 0");
  assert_usage_error (run_tool ("ball-detector", "--frames", "-3", NULL),
      "--frames must be positive, got -3");
  assert_usage_error (run_tool ("ball-detector", "--frames", "12x", NULL),
      "12x");
  assert_usage_error (run_tool ("ball-detector", "--in-flight", "0", NULL),
      "--in-flight must be positive, got 0");
  assert_usage_error (run_tool ("ball-detector", "--in-flight", "100000",
          NULL), "--in-flight is out of range (axinference takes 0 to");
  assert_usage_error (run_tool ("ball-detector", "--time-scale", "-1", NULL),
      "--time-scale must be a number, 0 or more, got \"-1\"");
  assert_usage_error (run_tool ("ball-detector", "--time-scale", "nan", NULL),
      "--time-scale must be a number, 0 or more, got \"nan\"");
  assert_usage_error (run_tool ("ball-detector", "--time-scale", "fast",
          NULL), "got \"fast\"");
  assert_usage_error (run_tool ("ball-detector", "--no-such-option", NULL),
      "--no-such-option");
  assert_usage_error (run_tool ("ball-detector", "--video", "a.avi",
          "--images", tmp, NULL), "give --video or --images, not both");
  assert_usage_error (run_tool ("ball-detector", "--json",
          "/nonexistent/r.json", NULL),
      "--json /nonexistent/r.json: no such directory /nonexistent");
  assert_usage_error (run_tool ("ball-detector", "--report", "", NULL),
      "--report: the path may not be empty");
  assert_usage_error (run_tool ("ball-detector", "--serial-frames", "-1",
          NULL), "--serial-frames must be 0 (no serial pass) or more, got -1");
  assert_usage_error (run_tool ("ball-detector", "--serial-frames", "many",
          NULL), "many");
  assert_usage_error (run_tool ("ball-detector", "--max-regression", "5",
          NULL), "needs --baseline");
  assert_usage_error (run_tool ("ball-detector", "--baseline",
          "/nonexistent/old.json", NULL), "--baseline: ");
  assert_usage_error (run_tool ("ball-detector", "--eos-timeout", "-2",
          NULL), "--eos-timeout must be 0 to 3600 seconds, got -2");
}

static void
test_bad_model (void)
{
  assert_usage_error (run_tool ("no-such-model", NULL),
      "model \"no-such-model\" not found (tried ");
  assert_usage_error (run_tool ("/nonexistent/m.axm", NULL),
      "model \"/nonexistent/m.axm\" not found (tried /nonexistent/m.axm");
}

static void
test_bad_video (void)
{
  gchar *missing = g_build_filename (tmp, "missing.avi", NULL);
  gchar *msg = g_strdup_printf ("--video %s: no such file", missing);
  gchar *dir_msg = g_strdup_printf ("--video %s: is a directory", tmp);
  gchar *junk = g_build_filename (tmp, "junk.avi", NULL);
  Result r;

  assert_usage_error (run_tool ("ball-detector", "--video", missing, NULL),
      msg);
  assert_usage_error (run_tool ("ball-detector", "--video", tmp, NULL),
      dir_msg);

  /* a file that is no video passes the checks and fails in decodebin:
   * GStreamer's error, and the run's failure status */
  g_assert_true (g_file_set_contents (junk, "not a video\n", -1, NULL));
  r = run_tool ("ball-detector", "--video", junk, "--quiet", NULL);
  g_assert_cmpint (r.status, ==, EXIT_RUN_FAILED);
  g_assert_nonnull (strstr (r.err, "gst-ax-benchmark: error from "));
  result_clear (&r);
  g_unlink (junk);

  g_free (missing);
  g_free (msg);
  g_free (dir_msg);
  g_free (junk);
}

static void
test_bad_images (void)
{
  gchar *empty = g_build_filename (tmp, "no-images", NULL);
  gchar *text = g_build_filename (empty, "notes.txt", NULL);
  gchar *fake_dir = g_build_filename (empty, "dir.jpg", NULL);
  gchar *missing = g_build_filename (tmp, "missing-dir", NULL);
  gchar *msg = g_strdup_printf ("--images %s: no JPEG or PNG images there",
      empty);
  gchar *missing_msg = g_strdup_printf ("--images %s: no such directory",
      missing);
  gchar *file_msg = g_strdup_printf ("--images %s: not a directory", text);

  g_assert_cmpint (g_mkdir_with_parents (empty, 0755), ==, 0);
  g_assert_true (g_file_set_contents (text, "no photo\n", -1, NULL));
  /* a folder named like a photo is not one */
  g_assert_cmpint (g_mkdir_with_parents (fake_dir, 0755), ==, 0);

  assert_usage_error (run_tool ("ball-detector", "--images", empty, NULL), msg);
  assert_usage_error (run_tool ("ball-detector", "--images", missing, NULL),
      missing_msg);
  assert_usage_error (run_tool ("ball-detector", "--images", text, NULL),
      file_msg);

  g_rmdir (fake_dir);
  g_unlink (text);
  g_rmdir (empty);
  g_free (empty);
  g_free (text);
  g_free (fake_dir);
  g_free (missing);
  g_free (msg);
  g_free (missing_msg);
  g_free (file_msg);
}

/* The report's throughput line: "  N frames in ..." */
static gint
report_frames (const gchar * out)
{
  const gchar *p = strstr (out, "Throughput");
  gint n = -1;

  g_assert_nonnull (p);
  p = strchr (p, '\n');
  g_assert_nonnull (p);
  g_assert_cmpint (sscanf (p, " %d frames in", &n), ==, 1);
  return n;
}

static void
assert_ran (Result r, const gchar * group, gint frames)
{
  gchar *header = g_strdup_printf ("\n  %s ", group);
  const gchar *latency;

  if (r.status != 0)
    g_error ("gst-ax-benchmark failed (exit %d):\n%s\n%s", r.status, r.out,
        r.err);
  g_assert_nonnull (strstr (r.out, "gst-launch-1.0 -e "));
  /* every frame at the sink has its latency, or is one of the serial
   * pass's warm-up frames that the header counts apart */
  latency = strstr (r.out, "Latency e2e (ms, N=");
  if (latency == NULL)
    g_error ("no latency in the report:\n%s", r.out);
  {
    gint n = -1;
    guint warmup = 0;
    const gchar *after = strstr (latency, ", after ");

    g_assert_cmpint (sscanf (latency, "Latency e2e (ms, N=%d,", &n), ==, 1);
    if (after && after < strchr (latency, '\n'))
      g_assert_cmpint (sscanf (after, ", after %u warm-up", &warmup), ==, 1);
    if (n + (gint) warmup != frames)
      g_error ("latency of %d frames and %u warm-up frames, not %d:\n%s", n,
          warmup, frames, r.out);
  }
  if (strstr (r.out, header) == NULL)
    g_error ("no %s group in the report:\n%s", group, r.out);
  g_assert_nonnull (strstr (r.out, "DEVICE WAIT"));
  /* the rows carry the names gst-launch-1.0 would give the elements */
  g_assert_nonnull (strstr (r.out, "\n    axinference0 "));
  g_assert_cmpint (report_frames (r.out), ==, frames);
  g_assert_nonnull (strstr (r.out, "Verdict: the constraint is "));
  g_free (header);
}

static void
test_ball_run (void)
{
  gchar *frames = g_strdup_printf ("%d", BALL_FRAMES);
  gchar *json = g_build_filename (tmp, "ball.json", NULL);
  gchar *contents = NULL;
  Result r = run_tool ("ball-detector", "--frames", frames, "--in-flight",
      "2", "--time-scale", "0", "--json", json, "--print-pipeline",
      "--quiet", NULL);

  assert_ran (r, "ball-detector", BALL_FRAMES);
  /* the report's JSON twin, written by the tracer */
  g_assert_true (g_file_get_contents (json, &contents, NULL, NULL));
  g_assert_nonnull (strstr (contents, "\"verdict\""));
  g_assert_nonnull (strstr (contents, "\"ball-detector\""));
  /* a run not split into streams has no streams member */
  g_assert_null (strstr (contents, "\"streams\""));
  g_free (contents);
  g_assert_nonnull (strstr (r.out, "videotestsrc pattern=ball num-buffers=4 "
          "! video/x-raw,width=1280,height=720 ! queue ! axletterbox ! "
          "axinference model=\"ball-detector\" in-flight=2 time-scale=0 ! "
          "axnms ! fakesink sync=false"));
  result_clear (&r);

  /* the same run against that report as its baseline, with a gate no
   * run-to-run noise reaches: the comparison follows the report */
  r = run_tool ("ball-detector", "--frames", frames, "--in-flight", "2",
      "--time-scale", "0", "--baseline", json, "--max-regression", "100000",
      "--noise-floor-ms", "1000", "--print-pipeline", "--quiet", NULL);
  assert_ran (r, "ball-detector", BALL_FRAMES);
  g_assert_nonnull (strstr (r.out, "Against the baseline:"));
  g_assert_nonnull (strstr (r.out, "axnms0 (pipeline)"));
  g_assert_nonnull (strstr (r.out, "B: this run (1 run)"));
  g_assert_nonnull (strstr (r.out, "gate: no regression over 100000.0 %"));
  result_clear (&r);
  g_unlink (json);
  g_free (json);
  g_free (frames);
}

/* The fps of the first "On the modelled device" section after @after in
 * @out. */
static gdouble
projected_fps (const gchar * out, const gchar * after)
{
  const gchar *at = strstr (out, after), *section;
  gdouble fps = -1;

  g_assert_nonnull (at);
  section = strstr (at, "On the modelled device (");
  g_assert_nonnull (section);
  section = strchr (section, '\n');
  g_assert_nonnull (section);
  g_assert_cmpint (sscanf (section, " %lf fps", &fps), ==, 1);
  return fps;
}

/* --what-if: the run's measured host rows projected onto another
 * configuration, after the report or from a saved one; bad values are
 * usage errors. */
static void
test_what_if (void)
{
  gchar *frames = g_strdup_printf ("%d", BALL_FRAMES);
  gchar *json = g_build_filename (tmp, "what-if.json", NULL);
  gdouble own, slower;
  Result r;

  assert_usage_error (run_tool ("ball-detector", "--what-if", "in-flight=0",
          NULL), "--what-if: in-flight must be a whole number from 1 to 64, "
      "got \"0\"");
  assert_usage_error (run_tool ("ball-detector", "--what-if", "speed=2",
          NULL), "--what-if: unknown key \"speed\"");
  assert_usage_error (run_tool ("ball-detector", "--what-if", "cores",
          NULL), "--what-if: \"cores\" is not KEY=VALUE");
  assert_usage_error (run_tool ("ball-detector", "--what-if",
          "host-speed=0", NULL), "--what-if: host-speed must be a number "
      "from 0.01 to 100, got \"0\"");
  assert_usage_error (run_tool ("ball-detector", "--what-if",
          "device=nosuch", NULL), "--what-if: device \"nosuch\"");
  assert_usage_error (run_tool ("--from-report", json, NULL),
      "--from-report needs --what-if");

  r = run_tool ("ball-detector", "--frames", frames, "--in-flight", "2",
      "--serial-frames", "0", "--json", json, "--what-if", "host-speed=0.5",
      "--print-pipeline", "--quiet", NULL);
  assert_ran (r, "ball-detector", BALL_FRAMES);
  own = projected_fps (r.out, "axprof report");
  slower = projected_fps (r.out, "What if:");
  g_assert_nonnull (strstr (r.out, ", host-speed=0.5;"));
  /* a host half as fast: never faster, at most twice as slow */
  g_assert_cmpfloat (slower, <=, own * 1.001);
  g_assert_cmpfloat (slower, >=, own * 0.499);
  result_clear (&r);

  /* from the saved report, on another device profile */
  r = run_tool ("--from-report", json, "--what-if", "device=metis:cores=1",
      NULL);
  g_assert_cmpint (r.status, ==, 0);
  g_assert_nonnull (strstr (r.out, "What if:"));
  g_assert_nonnull (strstr (r.out, "device=metis:cores=1"));
  result_clear (&r);
  g_unlink (json);
  g_free (json);
  g_free (frames);
}

/* The serial latency pass, then the streamed pass, on one pipeline: the
 * latency counts the serial pass's frames, everything else the streamed
 * pass's; --serial-frames 0 takes the latency from the streamed pass. */
static void
test_serial_pass (void)
{
  gchar *json = g_build_filename (tmp, "serial.json", NULL);
  JsonParser *parser = json_parser_new ();
  GError *error = NULL;
  JsonObject *latency;
  Result r = run_tool ("ball-detector", "--frames", "7", "--serial-frames",
      "3", "--in-flight", "4", "--time-scale", "0", "--json", json,
      "--quiet", NULL);

  if (r.status != 0)
    g_error ("gst-ax-benchmark failed (exit %d):\n%s\n%s", r.status, r.out,
        r.err);
  g_assert_cmpint (report_frames (r.out), ==, 7);
  g_assert_true (json_parser_load_from_file (parser, json, &error));
  g_assert_no_error (error);
  latency = json_object_get_object_member (json_node_get_object
      (json_parser_get_root (parser)), "latency");
  g_assert_cmpstr (json_object_get_string_member (latency, "pass"), ==,
      "serial");
  /* the first frame (the model's first job) is set apart as warm-up; the
   * rest of the 3 are the latency */
  g_assert_cmpint (json_object_get_int_member (latency, "warmup_frames"), ==,
      1);
  g_assert_cmpint (json_object_get_int_member (latency, "n"), ==, 2);
  g_assert_cmpfloat (json_object_get_double_member (latency,
          "first_frame_ms"), >, 0);
  if (strstr (r.out, "Latency e2e (ms, N=2, serial, after 1 warm-up frame: "
          "the first took ") == NULL)
    g_error ("no serial latency of 2 frames after 1 warm-up frame in the "
        "report:\n%s", r.out);
  g_assert_cmpfloat (json_object_get_double_member (latency, "min_ms"), >, 0);
  g_assert_cmpfloat (json_object_get_double_member (latency, "min_ms"), <=,
      json_object_get_double_member (latency, "p50_ms"));
  result_clear (&r);

  r = run_tool ("ball-detector", "--frames", "5", "--serial-frames", "0",
      "--time-scale", "0", "--quiet", NULL);
  g_assert_cmpint (r.status, ==, 0);
  g_assert_null (strstr (r.out, "serial"));
  g_assert_nonnull (strstr (r.out, "Latency e2e (ms, N=5, free-running"));
  result_clear (&r);

  g_object_unref (parser);
  g_unlink (json);
  g_free (json);
}

static void
test_bad_streams (void)
{
  assert_usage_error (run_tool ("ball-detector", "--streams", "0", NULL),
      "--streams must be 1 to 64, got 0");
  assert_usage_error (run_tool ("ball-detector", "--streams", "65", NULL),
      "--streams must be 1 to 64, got 65");
  assert_usage_error (run_tool ("ball-detector", "--streams", "-2", NULL),
      "--streams must be 1 to 64, got -2");
  assert_usage_error (run_tool ("ball-detector", "--streams", "two", NULL),
      "--streams");
}

/* --streams 2: two branches into one device. The serial pass runs stream
 * 1 alone; the report lists each stream with the frames asked, and the
 * device once, its busy time the sum of its two models' shares. */
static void
test_streams_run (void)
{
  gchar *json = g_build_filename (tmp, "streams.json", NULL);
  JsonParser *parser = json_parser_new ();
  GError *error = NULL;
  JsonObject *root, *dev;
  JsonArray *streams, *occupancy, *models;
  gdouble busy = 0, wall_s;
  Result r = run_tool ("ball-detector", "--streams", "2", "--frames", "3",
      "--serial-frames", "2", "--json", json, "--print-pipeline", "--quiet",
      NULL);
  guint i;

  if (r.status != 0)
    g_error ("gst-ax-benchmark failed (exit %d):\n%s\n%s", r.status, r.out,
        r.err);
  /* one pipeline, each branch with its own source and sink */
  g_assert_nonnull (strstr (r.out, "gst-launch-1.0 -e videotestsrc "
          "pattern=ball num-buffers=3 ! video/x-raw,width=1280,height=720 ! "
          "queue ! axletterbox ! axinference model=\"ball-detector\" ! axnms "
          "! fakesink name=sink-1 sync=false  videotestsrc pattern=ball "
          "num-buffers=3 ! "));
  g_assert_nonnull (strstr (r.out, "! fakesink name=sink-2 sync=false\n"));
  g_assert_nonnull (strstr (r.out, "of stream 1 alone)"));
  if (strstr (r.out, "Latency e2e (ms, N=1, serial, after 1 warm-up "
          "frame: ") == NULL)
    g_error ("no serial latency of stream 1's 2 frames:\n%s", r.out);
  g_assert_nonnull (strstr (r.out, "Streams (2, each from its own source "));
  g_assert_nonnull (strstr (r.out, "\n  stream 1   sink-1 "));
  g_assert_nonnull (strstr (r.out, "        6 frames "));
  g_assert_nonnull (strstr (r.out, "shared by 2 models:\n"));

  g_assert_true (json_parser_load_from_file (parser, json, &error));
  g_assert_no_error (error);
  root = json_node_get_object (json_parser_get_root (parser));
  wall_s = json_object_get_double_member (json_object_get_object_member
      (root, "throughput"), "wall_s");
  streams = json_object_get_array_member (root, "streams");
  g_assert_nonnull (streams);
  g_assert_cmpuint (json_array_get_length (streams), ==, 2);
  for (i = 0; i < 2; i++) {
    JsonObject *st = json_array_get_object_element (streams, i);
    gchar *name = g_strdup_printf ("stream %u", i + 1);
    gchar *sink = g_strdup_printf ("sink-%u", i + 1);

    g_assert_cmpstr (json_object_get_string_member (st, "name"), ==, name);
    g_assert_cmpstr (json_object_get_string_member (st, "sink"), ==, sink);
    g_assert_cmpint (json_object_get_int_member (st, "frames"), ==, 3);
    /* its frames over the run's wall time */
    g_assert_cmpfloat (wall_s, >, 0);
    g_assert_cmpfloat_with_epsilon (json_object_get_double_member (st,
            "fps"), 3 / wall_s, 1e-9 * 3 / wall_s);
    g_free (name);
    g_free (sink);
  }
  /* one device for the two axinference elements */
  g_assert_cmpuint (json_array_get_length (json_object_get_array_member
          (root, "devices")), ==, 2);
  occupancy = json_object_get_array_member (root, "device_occupancy");
  g_assert_cmpuint (json_array_get_length (occupancy), ==, 1);
  dev = json_array_get_object_element (occupancy, 0);
  models = json_object_get_array_member (dev, "models");
  g_assert_cmpuint (json_array_get_length (models), ==, 2);
  for (i = 0; i < 2; i++) {
    JsonObject *m = json_array_get_object_element (models, i);

    g_assert_cmpstr (json_object_get_string_member (m, "group"), ==,
        "ball-detector");
    g_assert_cmpfloat (json_object_get_double_member (m, "busy_ms"), >, 0);
    busy += json_object_get_double_member (m, "busy_ms");
  }
  g_assert_cmpfloat_with_epsilon (json_object_get_double_member (dev,
          "busy_ms"), busy, 1e-6 * busy);
  result_clear (&r);
  g_object_unref (parser);
  g_unlink (json);
  g_free (json);
}

/* Starts the tool on an endless run, waits until its streamed pass has
 * begun, then sends Ctrl-C (SIGINT). */
#define INTERRUPT_AFTER_US (G_USEC_PER_SEC / 2)

static Result
interrupt_tool (const gchar * eos_timeout, const gchar * time_scale)
{
  const gchar *argv[] = { tool, "ball-detector", "--frames", ENDLESS_FRAMES,
    "--serial-frames", "0", "--time-scale", time_scale, "--eos-timeout",
    eos_timeout, NULL
  };
  Result r = { 0, NULL, NULL };
  GError *error = NULL;
  GString *err = g_string_new (NULL), *out = g_string_new (NULL);
  gint out_fd, err_fd, wait_status;
  GPid pid;
  gchar buf[4096];
  gssize n;

  g_assert_true (g_spawn_async_with_pipes (NULL, (gchar **) argv, NULL,
          G_SPAWN_DO_NOT_REAP_CHILD, NULL, NULL, &pid, NULL, &out_fd, &err_fd,
          &error));
  g_assert_no_error (error);
  /* stdout is read after the tool stops: a report is far smaller than a
   * pipe's buffer */
  while (strstr (err->str, "streamed pass:") == NULL) {
    n = read (err_fd, buf, sizeof (buf));
    g_assert_cmpint (n, >, 0);
    g_string_append_len (err, buf, n);
  }
  /* let some frames through first */
  g_usleep (INTERRUPT_AFTER_US);
  g_assert_cmpint (kill (pid, SIGINT), ==, 0);
  while ((n = read (err_fd, buf, sizeof (buf))) > 0)
    g_string_append_len (err, buf, n);
  while ((n = read (out_fd, buf, sizeof (buf))) > 0)
    g_string_append_len (out, buf, n);
  r.out = g_string_free (out, FALSE);
  g_assert_cmpint (waitpid (pid, &wait_status, 0), ==, pid);
  g_spawn_close_pid (pid);
  close (out_fd);
  close (err_fd);
  g_assert_true (WIFEXITED (wait_status));
  r.status = WEXITSTATUS (wait_status);
  r.err = g_string_free (err, FALSE);
  return r;
}

/* Ctrl-C ends the run with EOS and prints the report of what ran; if EOS
 * does not arrive in time, the report is marked CUT SHORT. */
static void
test_interrupt (void)
{
  Result r = interrupt_tool ("30", "1");

  if (r.status != 0 || strstr (r.out, "axprof report for pipeline0 (EOS)")
      == NULL)
    g_error ("expected exit 0 and a report at EOS, got exit %d:\n%s\n%s",
        r.status, r.out, r.err);
  g_assert_nonnull (strstr (r.err, "interrupted; sending EOS"));
  /* on a loaded machine Ctrl-C may come before the first buffer: the
   * report then says so instead of giving a rate */
  if (strstr (r.out, "Throughput: no source pushed a buffer") == NULL) {
    g_assert_cmpint (report_frames (r.out), >, 0);
    g_assert_cmpint (report_frames (r.out), <, atoi (ENDLESS_FRAMES));
  }
  result_clear (&r);

  /* no time for EOS: a device paced 200 times slower than real time holds
   * frames ahead of it. Should EOS still reach the sinks first (a main
   * thread held off the CPU for that long), the run is told as the EOS it
   * was: exit status, report and message always agree. */
  r = interrupt_tool ("0", "200");
  if (r.status == EXIT_INTERRUPTED) {
    if (strstr (r.out, "(CUT SHORT") == NULL ||
        strstr (r.err, "EOS did not arrive within 0 s (--eos-timeout); the "
            "report is cut short") == NULL)
      g_error ("exit %d but no report cut short:\n%s\n%s", r.status, r.out,
          r.err);
  } else if (r.status != 0 || strstr (r.out, "axprof report for pipeline0 "
          "(EOS)") == NULL || strstr (r.err, "cut short") != NULL) {
    g_error ("expected exit %d and a report cut short, or exit 0 and a "
        "report at EOS, got exit %d:\n%s\n%s", EXIT_INTERRUPTED, r.status,
        r.out, r.err);
  } else {
    g_test_message ("EOS arrived at once despite the paced device");
  }
  result_clear (&r);
}

static const gchar *
data_dir (void)
{
  const gchar *dir = g_getenv ("GST_AX_DATA_DIR");

  if (dir == NULL || *dir == '\0') {
    g_test_skip ("GST_AX_DATA_DIR is not set (run scripts/fetch-data.sh "
        "and reconfigure)");
    return NULL;
  }
  return dir;
}

/* Whether this build's axnms has the decoder a model's metadata asks for
 * (until it has, axnms refuses the model and the run cannot succeed). */
static gboolean
axnms_decodes (const gchar * nick)
{
  GstElement *nms = gst_element_factory_make ("axnms", NULL);
  GParamSpec *pspec;
  gboolean found;

  g_assert_nonnull (nms);
  pspec = g_object_class_find_property (G_OBJECT_GET_CLASS (nms), "decode");
  g_assert_true (G_IS_PARAM_SPEC_ENUM (pspec));
  found = g_enum_get_value_by_nick (G_PARAM_SPEC_ENUM (pspec)->enum_class,
      nick) != NULL;
  gst_object_unref (nms);
  if (!found) {
    gchar *msg = g_strdup_printf ("axnms has no %s decoder in this build",
        nick);

    g_test_skip (msg);
    g_free (msg);
  }
  return found;
}

static void
test_video_run (void)
{
  const gchar *dir = data_dir ();
  gchar *video, *frames, *limit;
  Result r;

  if (dir == NULL || !axnms_decodes ("centernet"))
    return;
  video = g_build_filename (dir, "opencv", "vtest.avi", NULL);
  frames = g_strdup_printf ("%d", VIDEO_FRAMES);
  /* identity passes eos-after - 1 buffers */
  limit = g_strdup_printf ("identity name=frame-limit eos-after=%d ",
      VIDEO_FRAMES + 1);
  r = run_tool ("centernet-coco", "--video", video, "--frames", frames,
      "--in-flight", "4", "--time-scale", "0", "--overlay",
      "--print-pipeline", "--quiet", NULL);
  assert_ran (r, "centernet-coco", VIDEO_FRAMES);
  g_assert_nonnull (strstr (r.out, "! decodebin ! videoconvert ! "));
  g_assert_nonnull (strstr (r.out, limit));
  g_assert_nonnull (strstr (r.out, "in-flight=4 "));
  g_assert_nonnull (strstr (r.out, "! axoverlay ! fakesink"));
  result_clear (&r);
  g_free (video);
  g_free (frames);
  g_free (limit);
}

/* The held-out photos, one frame each, linked into a folder of their own
 * next to a file that is no photo. */
static void
test_images_run (void)
{
  const gchar *dir = data_dir ();
  const gchar *photos[] = { "sample5.jpg", "sample6.jpg" };
  gchar *folder, *note;
  GPtrArray *links;
  Result r;
  guint i;

  if (dir == NULL)
    return;
  folder = g_build_filename (tmp, "photos", NULL);
  g_assert_cmpint (g_mkdir_with_parents (folder, 0755), ==, 0);
  links = g_ptr_array_new_with_free_func (g_free);
  for (i = 0; i < G_N_ELEMENTS (photos); i++) {
    gchar *target = g_build_filename (dir, "face-api", photos[i], NULL);
    /* upper case: the extension test ignores case */
    gchar *upper = g_ascii_strup (photos[i], -1);
    gchar *link = g_build_filename (folder, upper, NULL);

    g_assert_cmpint (symlink (target, link), ==, 0);
    g_ptr_array_add (links, link);
    g_free (target);
    g_free (upper);
  }
  note = g_build_filename (folder, "README.txt", NULL);
  g_assert_true (g_file_set_contents (note, "not a photo\n", -1, NULL));

  r = run_tool ("blazeface", "--images", folder, "--in-flight", "2",
      "--time-scale", "0", "--print-pipeline", "--quiet", NULL);
  assert_ran (r, "blazeface", G_N_ELEMENTS (photos));
  g_assert_nonnull (strstr (r.out, "multifilesrc location="));
  g_assert_nonnull (strstr (r.out, "start-index=0 stop-index=1 "
          "caps=\"image/jpeg,framerate=30/1\" ! decodebin ! videoconvert ! "
          "queue ! axletterbox"));
  result_clear (&r);

  /* --frames takes the first photos in name order */
  r = run_tool ("blazeface", "--images", folder, "--frames", "1",
      "--time-scale", "0", "--print-pipeline", "--quiet", NULL);
  g_assert_nonnull (strstr (r.out, "start-index=0 stop-index=0 "));
  assert_ran (r, "blazeface", 1);
  result_clear (&r);

  for (i = 0; i < links->len; i++)
    g_unlink (g_ptr_array_index (links, i));
  g_ptr_array_free (links, TRUE);
  g_unlink (note);
  g_rmdir (folder);
  g_free (note);
  g_free (folder);
}

/* Runs the tool with @variable=@value added to the environment. */
static Result
run_tool_env (const gchar * variable, const gchar * value,
    const gchar * const *args)
{
  gchar **envp = g_environ_setenv (g_get_environ (), variable, value, TRUE);
  GPtrArray *argv = g_ptr_array_new ();
  Result r = { 0, NULL, NULL };
  GError *error = NULL;
  gint wait_status = 0;

  /* the log goes to stderr, where the test reads it */
  envp = g_environ_unsetenv (envp, "GST_DEBUG_FILE");
  g_ptr_array_add (argv, (gpointer) tool);
  for (; *args; args++)
    g_ptr_array_add (argv, (gpointer) * args);
  g_ptr_array_add (argv, NULL);
  g_assert_true (g_spawn_sync (NULL, (gchar **) argv->pdata, envp, 0, NULL,
          NULL, &r.out, &r.err, &wait_status, &error));
  g_assert_no_error (error);
  g_assert_true (WIFEXITED (wait_status));
  r.status = WEXITSTATUS (wait_status);
  g_ptr_array_free (argv, TRUE);
  g_strfreev (envp);
  return r;
}

static void
assert_refused (const gchar * gst_debug, const gchar * why)
{
  const gchar *args[] = { "ball-detector", "--frames", "2", "--quiet",
    NULL
  };
  Result r = run_tool_env ("GST_DEBUG", gst_debug, args);

  if (r.status != EXIT_REFUSED || strstr (r.err, why) == NULL)
    g_error ("GST_DEBUG=%s: expected exit %d and \"%s\", got exit %d:\n%s",
        gst_debug, EXIT_REFUSED, why, r.status, r.err);
  g_assert_nonnull (strstr (r.err, "% of throughput (measured "));
  g_assert_nonnull (strstr (r.err, "Rerun without GST_DEBUG"));
  /* refused before the pipeline was built: no report, and the element
   * that would have opened the device and loaded the model never logged
   * a line, although its category was at DEBUG */
  g_assert_null (strstr (r.out, "axprof report"));
  g_assert_null (strstr (r.err, "gstaxinference.c"));
  g_assert_null (strstr (r.err, "simnpu"));
  result_clear (&r);
}

static void
test_refuses_debug (void)
{
  assert_refused ("axinference:5", "refused: DEBUG logging is enabled "
      "(category axinference is at DEBUG)");
  assert_refused ("5", "(the default threshold is DEBUG)");
  assert_refused ("GST_PADS:6", "(category GST_PADS is at LOG)");
}

/* the stock latency tracer's own category is not DEBUG logging */
static void
test_tracer_category_runs (void)
{
  gchar *frames = g_strdup_printf ("%d", BALL_FRAMES);
  const gchar *args[] = { "ball-detector", "--frames", frames,
    "--time-scale", "0", "--print-pipeline", "--quiet", NULL
  };
  Result r = run_tool_env ("GST_DEBUG", "GST_TRACER:7", args);

  assert_ran (r, "ball-detector", BALL_FRAMES);
  result_clear (&r);
  g_free (frames);
}

/* --json and --report that cannot be written fail the run */
static void
test_output_errors (void)
{
  const gchar *json_args[] = { "ball-detector", "--frames", "2",
    "--time-scale", "0", "--quiet", "--json", "/dev/full", NULL
  };
  const gchar *report_args[] = { "ball-detector", "--frames", "2",
    "--time-scale", "0", "--quiet", "--report", "/dev/full", NULL
  };
  Result r = run_tool_env ("GST_AX_TEST_UNUSED", "1", json_args);

  if (r.status != EXIT_OUTPUT_FAILED
      || strstr (r.err, "could not write --json /dev/full") == NULL)
    g_error ("--json /dev/full: expected exit %d, got %d:\n%s",
        EXIT_OUTPUT_FAILED, r.status, r.err);
  /* the report itself was printed, and says where it could not write */
  g_assert_nonnull (strstr (r.out, "\nOutput: could not write --json "
          "/dev/full: "));
  result_clear (&r);

  r = run_tool_env ("GST_AX_TEST_UNUSED", "1", report_args);
  if (r.status != EXIT_OUTPUT_FAILED
      || strstr (r.err, "could not write --report /dev/full") == NULL)
    g_error ("--report /dev/full: expected exit %d, got %d:\n%s",
        EXIT_OUTPUT_FAILED, r.status, r.err);
  /* printed on stdout instead */
  g_assert_nonnull (strstr (r.out, "Verdict: "));
  g_assert_nonnull (strstr (r.out, "\nOutput: could not write --report "
          "/dev/full: "));
  result_clear (&r);
}

/* --json through a symlink writes its target and keeps the link */
static void
test_json_through_symlink (void)
{
  gchar *target = g_build_filename (tmp, "kept-target.json", NULL);
  gchar *link = g_build_filename (tmp, "kept-link.json", NULL);
  const gchar *args[] = { "ball-detector", "--frames", "2", "--time-scale",
    "0", "--quiet", "--json", link, NULL
  };
  gchar *contents = NULL;
  GStatBuf st;
  Result r;

  g_assert_true (g_file_set_contents (target, "old", -1, NULL));
  g_assert_cmpint (symlink (target, link), ==, 0);
  r = run_tool_env ("GST_AX_TEST_UNUSED", "1", args);
  if (r.status != 0)
    g_error ("exit %d:\n%s", r.status, r.err);
  g_assert_cmpint (g_lstat (link, &st), ==, 0);
  g_assert_true (S_ISLNK (st.st_mode));
  g_assert_true (g_file_get_contents (target, &contents, NULL, NULL));
  g_assert_nonnull (strstr (contents, "\"verdict\""));
  g_free (contents);
  result_clear (&r);
  g_unlink (link);
  g_unlink (target);
  g_free (link);
  g_free (target);
}

/* The run with @args (the model first) is refused before it starts with
 * @message, and @victim keeps its bytes */
static void
assert_refused_output (const gchar * const *args, const gchar * victim,
    const gchar * message)
{
  GPtrArray *argv = g_ptr_array_new ();
  gchar *before = NULL, *after = NULL;
  gsize before_len = 0, after_len = 0;
  GError *error = NULL;
  Result r = { 0, NULL, NULL };
  gint wait_status = 0;

  g_assert_true (g_file_get_contents (victim, &before, &before_len, NULL));
  g_ptr_array_add (argv, (gpointer) tool);
  for (; *args; args++)
    g_ptr_array_add (argv, (gpointer) * args);
  /* if it ran, it would be short */
  g_ptr_array_add (argv, (gpointer) "--frames");
  g_ptr_array_add (argv, (gpointer) "2");
  g_ptr_array_add (argv, (gpointer) "--time-scale");
  g_ptr_array_add (argv, (gpointer) "0");
  g_ptr_array_add (argv, (gpointer) "--quiet");
  g_ptr_array_add (argv, NULL);
  g_assert_true (g_spawn_sync (NULL, (gchar **) argv->pdata, NULL, 0, NULL,
          NULL, &r.out, &r.err, &wait_status, &error));
  g_assert_no_error (error);
  g_assert_true (WIFEXITED (wait_status));
  r.status = WEXITSTATUS (wait_status);
  g_ptr_array_free (argv, TRUE);
  assert_usage_error (r, message);
  g_assert_true (g_file_get_contents (victim, &after, &after_len, NULL));
  g_assert_cmpmem (after, after_len, before, before_len);
  g_free (before);
  g_free (after);
}

/* --json and --report onto the model (by its path or a hard link), the
 * video or a photo of --images are refused before the run, the input
 * keeping its bytes; so are --json and --report on one file */
static void
test_outputs_onto_inputs (void)
{
  gchar *model = g_build_filename (tmp, "model.axm", NULL);
  gchar *linked = g_build_filename (tmp, "model-link.axm", NULL);
  gchar *video = g_build_filename (tmp, "clip.avi", NULL);
  gchar *photos = g_build_filename (tmp, "photos", NULL);
  gchar *photo = g_build_filename (photos, "a.png", NULL);
  gchar *report = g_build_filename (tmp, "same-report.txt", NULL);
  gchar *dotted = g_strdup_printf ("%s/./same-report.txt", tmp);
  gchar *built = g_build_filename (g_getenv ("GST_AX_MODEL_PATH"),
      "ball-detector.axm", NULL);
  gchar *contents = NULL, *msg;
  gsize len = 0;
  const gchar *json_model[] = { model, "--json", model, NULL };
  const gchar *report_link[] = { model, "--report", linked, NULL };
  const gchar *json_video[] = { model, "--video", video, "--json", video,
    NULL
  };
  const gchar *report_photo[] = { model, "--images", photos, "--report",
    photo, NULL
  };
  const gchar *both[] = { model, "--json", report, "--report", dotted, NULL };

  g_assert_true (g_file_get_contents (built, &contents, &len, NULL));
  g_assert_true (g_file_set_contents (model, contents, (gssize) len, NULL));
  g_assert_cmpint (link (model, linked), ==, 0);
  g_assert_true (g_file_set_contents (video, "a video\n", -1, NULL));
  g_assert_cmpint (g_mkdir_with_parents (photos, 0755), ==, 0);
  g_assert_true (g_file_set_contents (photo, "a photo\n", -1, NULL));
  g_assert_true (g_file_set_contents (report, "old report\n", -1, NULL));

  msg = g_strdup_printf ("--json %s: output is the same file as input %s",
      model, model);
  assert_refused_output (json_model, model, msg);
  g_free (msg);
  msg = g_strdup_printf ("--report %s: output is the same file as input %s",
      linked, model);
  assert_refused_output (report_link, model, msg);
  g_free (msg);
  msg = g_strdup_printf ("--json %s: output is the same file as input %s",
      video, video);
  assert_refused_output (json_video, video, msg);
  g_free (msg);
  msg = g_strdup_printf ("--report %s: output is the same file as input ",
      photo);
  assert_refused_output (report_photo, photo, msg);
  g_free (msg);
  msg = g_strdup_printf ("--json %s and --report %s name the same file",
      report, dotted);
  assert_refused_output (both, report, msg);
  g_free (msg);

  g_unlink (report);
  g_unlink (photo);
  g_rmdir (photos);
  g_unlink (video);
  g_unlink (linked);
  g_unlink (model);
  g_free (contents);
  g_free (built);
  g_free (dotted);
  g_free (report);
  g_free (photo);
  g_free (photos);
  g_free (video);
  g_free (linked);
  g_free (model);
}

int
main (int argc, char **argv)
{
  GError *error = NULL;
  int ret;

  g_test_init (&argc, &argv, NULL);
  gst_init (NULL, NULL);
  if (argc < 2)
    g_error ("usage: %s GST-AX-BENCHMARK", argv[0]);
  tool = argv[1];
  tmp = g_dir_make_tmp ("test-benchmark-XXXXXX", &error);
  g_assert_no_error (error);

  g_test_add_func ("/benchmark/bad-options", test_bad_options);
  g_test_add_func ("/benchmark/bad-model", test_bad_model);
  g_test_add_func ("/benchmark/bad-video", test_bad_video);
  g_test_add_func ("/benchmark/bad-images", test_bad_images);
  g_test_add_func ("/benchmark/ball-run", test_ball_run);
  g_test_add_func ("/benchmark/serial-pass", test_serial_pass);
  g_test_add_func ("/benchmark/what-if", test_what_if);
  g_test_add_func ("/benchmark/bad-streams", test_bad_streams);
  g_test_add_func ("/benchmark/streams-run", test_streams_run);
  g_test_add_func ("/benchmark/interrupt", test_interrupt);
  g_test_add_func ("/benchmark/video-run", test_video_run);
  g_test_add_func ("/benchmark/images-run", test_images_run);
  g_test_add_func ("/benchmark/refuses-debug", test_refuses_debug);
  g_test_add_func ("/benchmark/tracer-category-runs",
      test_tracer_category_runs);
  g_test_add_func ("/benchmark/output-errors", test_output_errors);
  g_test_add_func ("/benchmark/json-through-symlink",
      test_json_through_symlink);
  g_test_add_func ("/benchmark/outputs-onto-inputs", test_outputs_onto_inputs);
  ret = g_test_run ();
  g_rmdir (tmp);
  g_free (tmp);
  return ret;
}
