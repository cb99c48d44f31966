/* gst-ax
 * Copyright (C) 2026 gst-ax developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

/* axprof's outputs never destroy a path, and every write error is
 * reported. The params are read once per process, so meson runs this
 * binary twice: AXPROF_TEST_OUTPUTS=paths (json= into a FIFO a reader
 * drains, perfetto= through a symlink, file= through a symlink) and
 * AXPROF_TEST_OUTPUTS=full (json= and file= on /dev/full). */

#include "axproftest.h"

#include <glib/gstdio.h>
#include <fcntl.h>
#include <poll.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define PIPELINE "fakesrc num-buffers=20 sizetype=fixed sizemax=64 ! " \
  "identity name=work ! fakesink"
#define FIFO_MODE 0600
#define READ_CHUNK 4096
/* how long the FIFO's reader waits for a writer */
#define FIFO_TIMEOUT_MS 60000
#define FULL "/dev/full"

static gchar *tmp, *timeline_target, *timeline_link, *fifo, *text_target,
    *text_link;
static int fifo_fd = -1;
static gboolean full_mode;

static gchar *
read_text (const gchar * path)
{
  gchar *text = NULL;

  fail_unless (g_file_get_contents (path, &text, NULL, NULL), "cannot read %s",
      path);
  return text;
}

static void
assert_symlink (const gchar * path)
{
  GStatBuf st;

  fail_unless (g_lstat (path, &st) == 0);
  fail_unless (S_ISLNK (st.st_mode), "%s is no longer a symlink", path);
}

/* Reads the FIFO until its writer closes it; opened before the run so that
 * the tracer's open does not wait for a reader. */
static gpointer
drain_fifo (gpointer data)
{
  GString *s = g_string_new (NULL);
  struct pollfd pfd = { fifo_fd, POLLIN, 0 };
  gchar buf[READ_CHUNK];

  for (;;) {
    gssize n;

    /* before any writer a FIFO polls as nothing, not as hung up */
    if (poll (&pfd, 1, FIFO_TIMEOUT_MS) <= 0)
      break;
    n = read (fifo_fd, buf, sizeof (buf));
    if (n <= 0)
      break;
    g_string_append_len (s, buf, n);
  }
  return g_string_free (s, FALSE);
}

GST_START_TEST (test_outputs_keep_paths)
{
  GThread *reader = g_thread_new ("fifo", drain_fifo, NULL);
  AxProfReport *r = ax_prof_run (PIPELINE);
  gchar *timeline, *json, *text;
  JsonParser *parser;
  GStatBuf st;

  fail_unless (r->output_errors == NULL, "%s", r->output_errors);
  fail_unless (strstr (r->text, "\nOutput: ") == NULL, "%s", r->text);

  /* the FIFO is still one, and its reader got the JSON twin */
  json = g_thread_join (reader);
  fail_unless (g_lstat (fifo, &st) == 0 && S_ISFIFO (st.st_mode),
      "the FIFO was replaced");
  fail_unless_equals_string (json, r->json);
  g_free (json);

  /* the link survives, its target holds the timeline */
  assert_symlink (timeline_link);
  timeline = read_text (timeline_target);
  parser = json_parser_new ();
  fail_unless (json_parser_load_from_data (parser, timeline, -1, NULL));
  fail_unless (strstr (timeline, "\"traceEvents\"") != NULL, "got '%s'",
      timeline);
  g_object_unref (parser);
  g_free (timeline);

  /* the text is appended through the link */
  assert_symlink (text_link);
  text = read_text (text_target);
  fail_unless (g_str_has_prefix (text, "before the run\n"), "%s", text);
  fail_unless (strstr (text, r->text) != NULL);
  g_free (text);
  ax_prof_report_free (r);
}

GST_END_TEST;

static void
assert_full_reported (AxProfReport * r)
{
  GStatBuf st;

  fail_unless (r->output_errors != NULL, "no output-errors field");
  fail_unless (strstr (r->output_errors, "could not write json=" FULL ": ")
      != NULL, "%s", r->output_errors);
  fail_unless (strstr (r->output_errors, "could not write file=" FULL ": ")
      != NULL, "%s", r->output_errors);
  /* the text says it too, at its end */
  fail_unless (strstr (r->text, "\nOutput: could not write json=" FULL ": ")
      != NULL, "%s", r->text);
  fail_unless (strstr (r->text, "\nOutput: could not write file=" FULL ": ")
      != NULL, "%s", r->text);
  fail_unless (g_str_has_suffix (r->text, "\n"));
  fail_unless (strstr (strstr (r->text, "\nOutput: "), "Verdict") == NULL,
      "the Output lines are not the last ones:\n%s", r->text);
  /* still the device */
  fail_unless (g_stat (FULL, &st) == 0 && S_ISCHR (st.st_mode));
}

GST_START_TEST (test_full_reported)
{
  AxProfReport *r = ax_prof_run (PIPELINE);

  assert_full_reported (r);
  ax_prof_report_free (r);
  /* a second report goes to the device again, never to /dev/full.2 */
  r = ax_prof_run (PIPELINE);
  assert_full_reported (r);
  fail_unless (strstr (r->output_errors, FULL ".2") == NULL, "%s",
      r->output_errors);
  fail_if (g_file_test (FULL ".2", G_FILE_TEST_EXISTS));
  ax_prof_report_free (r);
}

GST_END_TEST;

static Suite *
axprof_outputs_suite (void)
{
  Suite *s = suite_create ("axprof-outputs");
  TCase *tc = tcase_create ("general");

  suite_add_tcase (s, tc);
  if (full_mode)
    tcase_add_test (tc, test_full_reported);
  else
    tcase_add_test (tc, test_outputs_keep_paths);
  return s;
}

static void
set_up_paths (void)
{
  GError *err = NULL;
  gchar *tracers;

  tmp = g_dir_make_tmp ("test-axprof-outputs-XXXXXX", &err);
  g_assert_no_error (err);
  timeline_target = g_build_filename (tmp, "timeline-target.json", NULL);
  timeline_link = g_build_filename (tmp, "timeline-link.json", NULL);
  fifo = g_build_filename (tmp, "report.fifo", NULL);
  text_target = g_build_filename (tmp, "report.txt", NULL);
  text_link = g_build_filename (tmp, "report-link.txt", NULL);
  g_assert_true (g_file_set_contents (timeline_target, "old", -1, NULL));
  g_assert_true (g_file_set_contents (text_target, "before the run\n", -1,
          NULL));
  g_assert_cmpint (symlink (timeline_target, timeline_link), ==, 0);
  g_assert_cmpint (symlink (text_target, text_link), ==, 0);
  g_assert_cmpint (mkfifo (fifo, FIFO_MODE), ==, 0);
  fifo_fd = g_open (fifo, O_RDONLY | O_NONBLOCK, 0);
  g_assert_cmpint (fifo_fd, >=, 0);
  tracers = g_strdup_printf ("axprof(json=%s,perfetto=%s,file=%s)",
      fifo, timeline_link, text_link);
  g_setenv ("GST_TRACERS", tracers, TRUE);
  g_free (tracers);
}

static void
tear_down_paths (void)
{
  const gchar *paths[] = { timeline_target, timeline_link, fifo, text_target,
    text_link
  };
  guint i;

  close (fifo_fd);
  for (i = 0; i < G_N_ELEMENTS (paths); i++) {
    g_unlink (paths[i]);
    g_free ((gchar *) paths[i]);
  }
  g_rmdir (tmp);
  g_free (tmp);
}

int
main (int argc, char **argv)
{
  int ret;

  full_mode = g_strcmp0 (g_getenv ("AXPROF_TEST_OUTPUTS"), "full") == 0;
  if (full_mode)
    g_setenv ("GST_TRACERS", "axprof(json=" FULL ",file=" FULL ")", TRUE);
  else
    set_up_paths ();
  gst_check_init (&argc, &argv);
  ret = gst_check_run_suite (axprof_outputs_suite (), "axprof-outputs",
      __FILE__);
  if (!full_mode)
    tear_down_paths ();
  return ret;
}
