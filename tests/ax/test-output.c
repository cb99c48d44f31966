/* gst-ax
 * Copyright (C) 2026 gst-ax developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

/* gst_ax_output_write(): a regular file is replaced atomically, anything
 * else (a symlink's target, a FIFO, a device, the process's stdout) is
 * written where it is, and every error is reported. */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <gst/ax/gstax-private.h>
#include <glib/gstdio.h>

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define OLD_TEXT "old contents, longer than the new ones\n"
#define NEW_TEXT "new\n"
#define KEPT_MODE 0640
#define MODE_BITS 07777
#define FIFO_MODE 0600
#define READ_CHUNK 4096

typedef struct
{
  gchar *dir;
} Fixture;

static void
fixture_set_up (Fixture * f, gconstpointer data)
{
  GError *err = NULL;

  f->dir = g_dir_make_tmp ("test-ax-output-XXXXXX", &err);
  g_assert_no_error (err);
}

static void
remove_all (const gchar * dir)
{
  GDir *d = g_dir_open (dir, 0, NULL);
  const gchar *name;

  if (d == NULL)
    return;
  while ((name = g_dir_read_name (d)) != NULL) {
    gchar *path = g_build_filename (dir, name, NULL);

    g_unlink (path);
    g_free (path);
  }
  g_dir_close (d);
  g_rmdir (dir);
}

static void
fixture_tear_down (Fixture * f, gconstpointer data)
{
  remove_all (f->dir);
  g_free (f->dir);
}

static gchar *
read_text (const gchar * path)
{
  gchar *text = NULL;
  GError *err = NULL;

  g_file_get_contents (path, &text, NULL, &err);
  g_assert_no_error (err);
  return text;
}

static gchar *
read_fd (int fd)
{
  GString *s = g_string_new (NULL);
  gchar buf[READ_CHUNK];
  gssize n;

  while ((n = read (fd, buf, sizeof (buf))) > 0)
    g_string_append_len (s, buf, n);
  g_assert_cmpint (n, ==, 0);
  return g_string_free (s, FALSE);
}

static void
write_ok (const gchar * path, const gchar * text, GstAxOutputMode mode)
{
  GError *err = NULL;

  g_assert_true (gst_ax_output_write (path, text, -1, mode, &err));
  g_assert_no_error (err);
}

/* A reader that opened the old file keeps reading the old contents: the
 * new ones came in by a rename, never by truncating the file it reads. */
static void
test_regular_replaced_atomically (Fixture * f, gconstpointer data)
{
  gchar *path = g_build_filename (f->dir, "report.json", NULL);
  gchar *text;
  GStatBuf before, after;
  int fd;

  write_ok (path, OLD_TEXT, GST_AX_OUTPUT_REPLACE);
  g_assert_cmpint (g_chmod (path, KEPT_MODE), ==, 0);
  g_assert_cmpint (g_stat (path, &before), ==, 0);
  fd = g_open (path, O_RDONLY, 0);
  g_assert_cmpint (fd, >=, 0);

  write_ok (path, NEW_TEXT, GST_AX_OUTPUT_REPLACE);

  text = read_text (path);
  g_assert_cmpstr (text, ==, NEW_TEXT);
  g_free (text);
  text = read_fd (fd);
  g_assert_cmpstr (text, ==, OLD_TEXT);
  g_free (text);
  close (fd);
  g_assert_cmpint (g_stat (path, &after), ==, 0);
  g_assert_cmpuint (after.st_ino, !=, before.st_ino);
  g_assert_cmpuint (after.st_mode & MODE_BITS, ==, KEPT_MODE);
  g_assert_false (gst_ax_output_is_stream (path));
  g_free (path);
}

static void
test_new_file_created (Fixture * f, gconstpointer data)
{
  gchar *path = g_build_filename (f->dir, "new.json", NULL);
  gchar *text;

  g_assert_false (gst_ax_output_is_stream (path));
  write_ok (path, NEW_TEXT, GST_AX_OUTPUT_REPLACE);
  text = read_text (path);
  g_assert_cmpstr (text, ==, NEW_TEXT);
  g_free (text);
  g_free (path);
}

static void
test_symlink_kept (Fixture * f, gconstpointer data)
{
  gchar *target = g_build_filename (f->dir, "target.json", NULL);
  gchar *link = g_build_filename (f->dir, "link.json", NULL);
  gchar *dangling = g_build_filename (f->dir, "dangling.json", NULL);
  gchar *missing = g_build_filename (f->dir, "made-through-link.json", NULL);
  gchar *text;
  GStatBuf st;

  write_ok (target, OLD_TEXT, GST_AX_OUTPUT_REPLACE);
  g_assert_cmpint (symlink (target, link), ==, 0);
  write_ok (link, NEW_TEXT, GST_AX_OUTPUT_REPLACE);
  g_assert_cmpint (g_lstat (link, &st), ==, 0);
  g_assert_true (S_ISLNK (st.st_mode));
  text = read_text (target);
  g_assert_cmpstr (text, ==, NEW_TEXT);
  g_free (text);

  /* a link to nothing yet: its target is made */
  g_assert_cmpint (symlink (missing, dangling), ==, 0);
  write_ok (dangling, NEW_TEXT, GST_AX_OUTPUT_REPLACE);
  g_assert_cmpint (g_lstat (dangling, &st), ==, 0);
  g_assert_true (S_ISLNK (st.st_mode));
  text = read_text (missing);
  g_assert_cmpstr (text, ==, NEW_TEXT);
  g_free (text);

  g_free (target);
  g_free (link);
  g_free (dangling);
  g_free (missing);
}

static gpointer
fifo_reader (gpointer data)
{
  int fd = g_open (data, O_RDONLY, 0);
  gchar *text;

  g_assert_cmpint (fd, >=, 0);
  text = read_fd (fd);
  close (fd);
  return text;
}

static void
test_fifo_in_place (Fixture * f, gconstpointer data)
{
  gchar *path = g_build_filename (f->dir, "viewer.fifo", NULL);
  GThread *reader;
  gchar *text;
  GStatBuf st;

  g_assert_cmpint (mkfifo (path, FIFO_MODE), ==, 0);
  g_assert_true (gst_ax_output_is_stream (path));
  reader = g_thread_new ("fifo-reader", fifo_reader, path);
  write_ok (path, NEW_TEXT, GST_AX_OUTPUT_REPLACE);
  text = g_thread_join (reader);
  g_assert_cmpstr (text, ==, NEW_TEXT);
  g_free (text);
  g_assert_cmpint (g_lstat (path, &st), ==, 0);
  g_assert_true (S_ISFIFO (st.st_mode));
  g_free (path);
}

static void
test_full_device_reported (void)
{
  GstAxOutputMode modes[] = { GST_AX_OUTPUT_REPLACE, GST_AX_OUTPUT_APPEND };
  GStatBuf st;
  guint i;

  if (g_stat ("/dev/full", &st) != 0 || !S_ISCHR (st.st_mode)) {
    g_test_skip ("no /dev/full here");
    return;
  }
  g_assert_true (gst_ax_output_is_stream ("/dev/full"));
  for (i = 0; i < G_N_ELEMENTS (modes); i++) {
    GError *err = NULL;

    g_assert_false (gst_ax_output_write ("/dev/full", NEW_TEXT, -1, modes[i],
            &err));
    g_assert_error (err, G_FILE_ERROR, G_FILE_ERROR_NOSPC);
    g_assert_nonnull (strstr (err->message, "/dev/full"));
    g_clear_error (&err);
    g_assert_cmpint (g_stat ("/dev/full", &st), ==, 0);
    g_assert_true (S_ISCHR (st.st_mode));
  }
}

static void
test_append (Fixture * f, gconstpointer data)
{
  gchar *path = g_build_filename (f->dir, "report.txt", NULL);
  gchar *text;

  write_ok (path, "first\n", GST_AX_OUTPUT_APPEND);
  write_ok (path, "second\n", GST_AX_OUTPUT_APPEND);
  text = read_text (path);
  g_assert_cmpstr (text, ==, "first\nsecond\n");
  g_free (text);
  g_free (path);
}

static void
test_missing_directory_reported (Fixture * f, gconstpointer data)
{
  gchar *path = g_build_filename (f->dir, "no-such-dir", "x.json", NULL);
  GError *err = NULL;

  g_assert_false (gst_ax_output_write (path, NEW_TEXT, -1,
          GST_AX_OUTPUT_APPEND, &err));
  g_assert_error (err, G_FILE_ERROR, G_FILE_ERROR_NOENT);
  g_clear_error (&err);
  g_assert_false (gst_ax_output_write (path, NEW_TEXT, -1,
          GST_AX_OUTPUT_REPLACE, &err));
  g_assert_nonnull (err);
  g_clear_error (&err);
  g_free (path);
}

/* `> out.txt` then /dev/stdout: it resolves to out.txt, which must be
 * neither replaced nor rewritten from its start. */
static void
test_stdout_written_at_its_offset (Fixture * f, gconstpointer data)
{
  gchar *path = g_build_filename (f->dir, "stdout.txt", NULL);
  int fd, saved;
  gchar *text;
  GStatBuf before, after;

  fflush (stdout);
  saved = dup (STDOUT_FILENO);
  g_assert_cmpint (saved, >=, 0);
  fd = g_open (path, O_WRONLY | O_CREAT | O_TRUNC, FIFO_MODE);
  g_assert_cmpint (fd, >=, 0);
  g_assert_cmpint (dup2 (fd, STDOUT_FILENO), ==, STDOUT_FILENO);
  close (fd);
  g_assert_cmpint (g_stat (path, &before), ==, 0);

  g_assert_true (gst_ax_output_is_stream ("/dev/stdout"));
  fputs ("printed first\n", stdout);
  write_ok ("/dev/stdout", NEW_TEXT, GST_AX_OUTPUT_REPLACE);
  write_ok ("/dev/fd/1", NEW_TEXT, GST_AX_OUTPUT_APPEND);

  fflush (stdout);
  g_assert_cmpint (dup2 (saved, STDOUT_FILENO), ==, STDOUT_FILENO);
  close (saved);
  text = read_text (path);
  g_assert_cmpstr (text, ==, "printed first\n" NEW_TEXT NEW_TEXT);
  g_free (text);
  g_assert_cmpint (g_stat (path, &after), ==, 0);
  g_assert_cmpuint (after.st_ino, ==, before.st_ino);
  g_free (path);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
#define ADD(name, func) \
  g_test_add ("/ax/output/" name, Fixture, NULL, fixture_set_up, func, \
      fixture_tear_down)
  ADD ("regular-replaced-atomically", test_regular_replaced_atomically);
  ADD ("new-file-created", test_new_file_created);
  ADD ("symlink-kept", test_symlink_kept);
  ADD ("fifo-in-place", test_fifo_in_place);
  ADD ("append", test_append);
  ADD ("missing-directory-reported", test_missing_directory_reported);
  ADD ("stdout-written-at-its-offset", test_stdout_written_at_its_offset);
#undef ADD
  g_test_add_func ("/ax/output/full-device-reported",
      test_full_device_reported);
  return g_test_run ();
}
