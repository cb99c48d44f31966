/* gst-ax
 * Copyright (C) 2026 gst-ax developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

/* axprof's threads against perf's on the same run: a stock transcode
 * (qtdemux, avdec_h264, x264enc threads=2, mp4mux) under gst-launch-1.0
 * as perf's child, sampling every millisecond of task clock. Each thread
 * that computed gets the CPU perf counts for it, and the threads axprof
 * gives an element as workers are those perf finds in that element's
 * library: libx264 for x264enc, libavcodec for avdec_h264. Exits 77
 * (skipped) with the reason where perf, its permission or the codecs are
 * missing. */

#include <gst/gst.h>
#include <json-glib/json-glib.h>
#include <glib/gstdio.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define EXIT_SKIP 77
#define CLIP_FRAMES 120
/* perf samples one task-clock millisecond */
#define SAMPLE_NS "1000000"
/* a thread's CPU by axprof against perf's samples of it. perf samples the
 * task clock, which keeps the time a hypervisor stole from the thread;
 * axprof reads the thread CPU clock, which leaves it out (as getrusage
 * does). So axprof may read below perf by the steal of the run: the host's
 * stolen share of its busy time (/proc/stat), counted twice because it
 * falls unevenly on the threads. */
#define THREAD_TOLERANCE 0.04
#define STEAL_SPREAD 2.0
#define THREAD_SLACK_MS 20.0
/* threads that computed at least this long are compared */
#define MIN_THREAD_MS 100.0

typedef struct
{
  gint tid;
  gdouble samples;
  /* samples in the element's library */
  gdouble x264;
  gdouble avcodec;
} PerfThread;

static gchar *dir;

static void
skip (const gchar * why)
{
  g_print ("SKIP: %s\n", why);
  exit (EXIT_SKIP);
}

static gchar *
run (const gchar * const *argv, gint * status)
{
  gchar *out = NULL, *err = NULL;
  GError *error = NULL;

  if (!g_spawn_sync (NULL, (gchar **) argv, NULL, G_SPAWN_SEARCH_PATH, NULL,
          NULL, &out, &err, status, &error)) {
    g_printerr ("cannot run %s: %s\n", argv[0], error->message);
    g_clear_error (&error);
    *status = -1;
  } else if (*status != 0) {
    g_printerr ("%s failed:\n%s\n", argv[0], err);
  }
  g_free (err);
  return out;
}

/* busy and stolen jiffies of all CPUs, from /proc/stat's first line */
static void
host_ticks (guint64 * busy, guint64 * steal)
{
  gchar *text = NULL;
  guint64 v[8] = { 0 };

  *busy = *steal = 0;
  if (!g_file_get_contents ("/proc/stat", &text, NULL, NULL))
    return;
  /* user nice system idle iowait irq softirq steal */
  if (sscanf (text, "cpu %" G_GUINT64_FORMAT " %" G_GUINT64_FORMAT " %"
          G_GUINT64_FORMAT " %" G_GUINT64_FORMAT " %" G_GUINT64_FORMAT " %"
          G_GUINT64_FORMAT " %" G_GUINT64_FORMAT " %" G_GUINT64_FORMAT,
          &v[0], &v[1], &v[2], &v[3], &v[4], &v[5], &v[6], &v[7]) == 8) {
    *busy = v[0] + v[1] + v[2] + v[5] + v[6];
    *steal = v[7];
  }
  g_free (text);
}

static gboolean
have_element (const gchar * name)
{
  GstElementFactory *f = gst_element_factory_find (name);

  if (f)
    gst_object_unref (f);
  return f != NULL;
}

static PerfThread *
perf_thread (GArray * threads, gint tid)
{
  PerfThread t = { tid, 0, 0, 0 };
  guint i;

  for (i = 0; i < threads->len; i++)
    if (g_array_index (threads, PerfThread, i).tid == tid)
      return &g_array_index (threads, PerfThread, i);
  g_array_append_val (threads, t);
  return &g_array_index (threads, PerfThread, threads->len - 1);
}

/* perf report --sort pid,dso -n: "  21.82%  838  16960:name  libx264.so" */
static GArray *
parse_perf (const gchar * report)
{
  GArray *threads = g_array_new (FALSE, TRUE, sizeof (PerfThread));
  gchar **lines = g_strsplit (report, "\n", -1);
  guint i;

  for (i = 0; lines[i]; i++) {
    gdouble pct, samples;
    gint tid;
    gchar comm[64], dso[256];
    PerfThread *t;

    if (sscanf (lines[i], " %lf%% %lf %d:%63s %255s", &pct, &samples, &tid,
            comm, dso) != 5)
      continue;
    t = perf_thread (threads, tid);
    t->samples += samples;
    if (g_str_has_prefix (dso, "libx264"))
      t->x264 += samples;
    else if (g_str_has_prefix (dso, "libavcodec"))
      t->avcodec += samples;
  }
  g_strfreev (lines);
  return threads;
}

int
main (int argc, char **argv)
{
  gchar *clip, *out_mp4, *data, *json_path, *tracers, *report;
  gint status, i;
  JsonParser *parser;
  JsonArray *jthreads;
  GArray *threads;
  guint j, compared = 0, enc_workers = 0, dec_workers = 0;
  guint64 busy0, steal0, busy1, steal1;
  gdouble stolen = 0;
  GError *error = NULL;

  gst_init (&argc, &argv);
  if (!g_find_program_in_path ("perf"))
    skip ("perf is not installed (Debian's linux-perf)");
  if (!have_element ("x264enc") || !have_element ("avdec_h264") ||
      !have_element ("mp4mux"))
    skip ("x264enc, avdec_h264 or mp4mux is not installed");
  dir = g_dir_make_tmp ("axprof-perf-XXXXXX", NULL);
  g_assert_nonnull (dir);
  clip = g_build_filename (dir, "clip.mp4", NULL);
  out_mp4 = g_build_filename (dir, "out.mp4", NULL);
  data = g_build_filename (dir, "perf.data", NULL);
  {
    const gchar *probe[] = { "perf", "record", "-q", "-e", "task-clock",
      "-c", SAMPLE_NS, "-o", data, "--", "true", NULL
    };

    g_free (run (probe, &status));
    if (status != 0) {
      g_rmdir (dir);
      skip ("perf record cannot run here (perf_event_paranoid, or no "
          "task-clock)");
    }
  }
  json_path = g_build_filename (dir, "report.json", NULL);
  {
    gchar *loc = g_strdup_printf ("location=%s", clip);
    gchar *nb = g_strdup_printf ("num-buffers=%d", CLIP_FRAMES);
    const gchar *make[] = { "gst-launch-1.0", "-q", "videotestsrc", nb,
      "pattern=ball", "!", "video/x-raw,width=640,height=480", "!",
      "x264enc", "speed-preset=ultrafast", "!", "mp4mux", "!", "filesink",
      loc, NULL
    };

    g_free (run (make, &status));
    g_assert_cmpint (status, ==, 0);
    g_free (loc);
    g_free (nb);
  }

  tracers = g_strdup_printf ("GST_TRACERS=axprof(json=%s,print=false)",
      json_path);
  {
    gchar *loc = g_strdup_printf ("location=%s", clip);
    gchar *oloc = g_strdup_printf ("location=%s", out_mp4);
    const gchar *rec[] = { "perf", "record", "-q", "-e", "task-clock", "-c",
      SAMPLE_NS, "-o", data, "--", "env", tracers, "gst-launch-1.0", "-q",
      "filesrc", loc, "!", "qtdemux", "!", "avdec_h264",
      "name=dec", "!", "videoconvert", "!", "x264enc", "name=enc",
      "threads=2", "!", "mp4mux", "!", "filesink", oloc, NULL
    };

    host_ticks (&busy0, &steal0);
    g_free (run (rec, &status));
    host_ticks (&busy1, &steal1);
    if (busy1 + steal1 > busy0 + steal0)
      stolen = (gdouble) (steal1 - steal0) / (busy1 + steal1 - busy0 - steal0);
    g_free (loc);
    g_free (oloc);
    /* perf itself was shown to work: this is the pipeline's failure */
    g_assert_cmpint (status, ==, 0);
  }
  {
    const gchar *rep[] = { "perf", "report", "-i", data, "--sort", "pid,dso",
      "--stdio", "-q", "-n", NULL
    };

    report = run (rep, &status);
    g_assert_cmpint (status, ==, 0);
  }
  threads = parse_perf (report);
  g_assert_cmpuint (threads->len, >, 0);

  parser = json_parser_new ();
  if (!json_parser_load_from_file (parser, json_path, &error))
    g_error ("no report from axprof: %s", error->message);
  jthreads = json_object_get_array_member (json_object_get_object_member
      (json_node_get_object (json_parser_get_root (parser)), "cpu"), "threads");
  for (j = 0; j < json_array_get_length (jthreads); j++) {
    JsonObject *t = json_array_get_object_element (jthreads, j);
    gint tid = (gint) json_object_get_int_member (t, "tid");
    gdouble ms = json_object_get_double_member (t, "cpu_ms");
    const gchar *kind = json_object_get_string_member (t, "kind");
    const gchar *element = json_object_get_string_member (t, "element");
    PerfThread *p = perf_thread (threads, tid);

    /* perf counts the main thread's start-up (registry, plugins) too,
     * which comes before the run: the threads the run made are compared */
    if (ms >= MIN_THREAD_MS && g_strcmp0 (json_object_get_string_member (t,
                "name"), "gst-launch-1.0") != 0) {
      gdouble margin = THREAD_TOLERANCE * p->samples + THREAD_SLACK_MS;

      if (ms > p->samples + margin ||
          ms < p->samples * (1 - STEAL_SPREAD * stolen) - margin)
        g_error ("thread %d (%s): axprof %.1f ms, perf %.0f ms (the host "
            "lost %.1f %% of its busy time to steal)", tid, kind, ms,
            p->samples, 100 * stolen);
      compared++;
    }
    /* a worker computes in its element's library */
    if (g_strcmp0 (kind, "worker") == 0 && g_strcmp0 (element, "enc") == 0) {
      if (p->x264 < 0.5 * p->samples)
        g_error ("enc's worker %d: %.0f of its %.0f samples in libx264", tid,
            p->x264, p->samples);
      enc_workers++;
    }
    if (g_strcmp0 (kind, "worker") == 0 && g_strcmp0 (element, "dec") == 0) {
      if (p->avcodec < 0.5 * p->samples)
        g_error ("dec's worker %d: %.0f of its %.0f samples in libavcodec",
            tid, p->avcodec, p->samples);
      dec_workers++;
    }
  }
  /* and every thread perf finds mostly in libx264 is enc's (its worker, or
   * the streaming thread that runs its calls) */
  for (j = 0; j < threads->len; j++) {
    PerfThread *p = &g_array_index (threads, PerfThread, j);
    gboolean known = FALSE;

    if (p->samples < MIN_THREAD_MS || p->x264 < 0.5 * p->samples)
      continue;
    for (i = 0; i < (gint) json_array_get_length (jthreads); i++) {
      JsonObject *t = json_array_get_object_element (jthreads, i);

      if (json_object_get_int_member (t, "tid") != p->tid)
        continue;
      known = g_strcmp0 (json_object_get_string_member (t, "kind"),
          "streaming") == 0 || g_strcmp0 (json_object_get_string_member (t,
              "element"), "enc") == 0;
    }
    if (!known)
      g_error ("thread %d runs libx264 (%.0f of %.0f samples) but axprof "
          "does not give it to enc", p->tid, p->x264, p->samples);
  }
  g_assert_cmpuint (enc_workers, >=, 2);
  g_assert_cmpuint (compared, >=, 3);
  g_print ("%u threads within %.0f%% of perf (steal %.1f %% of the host's "
      "busy time); enc has %u workers, dec %u\n", compared,
      THREAD_TOLERANCE * 100, 100 * stolen, enc_workers, dec_workers);

  g_object_unref (parser);
  g_array_unref (threads);
  g_free (report);
  g_free (tracers);
  g_unlink (clip);
  g_unlink (out_mp4);
  g_unlink (data);
  g_unlink (json_path);
  g_rmdir (dir);
  g_free (clip);
  g_free (out_mp4);
  g_free (data);
  g_free (json_path);
  g_free (dir);
  return 0;
}
