/* gst-ax
 * Copyright (C) 2026 gst-ax developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

/* Writing outputs without ever destroying what a path is.
 *
 * A user who passes `json=/dev/stdout`, `-o /dev/null`, a FIFO that a
 * viewer reads, or a symlink into a results folder expects the data to
 * arrive there. Writing through a temporary file and a rename, as
 * g_file_set_contents() does, would replace the FIFO, the link or even a
 * device node by a regular file (as root, /dev/null itself). So only a
 * regular file (or a path that does not exist yet) is replaced
 * atomically; a symlink is followed to its target, which is then treated
 * by the same rules; anything else is opened and written in place.
 *
 * The names of the process's own descriptors (`/dev/stdout`, `/dev/fd/N`,
 * `/proc/self/fd/N`) are written to that descriptor, at its own offset:
 * with `> out.txt` they resolve to the regular file the shell opened, and
 * replacing or reopening that file would lose what the process already
 * wrote to its stdout.
 *
 * An output is compared with the inputs by device and inode, not by name,
 * so that a hard link, a symlink or `./x` for `x` cannot replace an input.
 */

#include "axfile.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <glib/gstdio.h>

/* mode of a new file, before the umask, as fopen() gives it */
#define NEW_FILE_MODE 0666
#define MODE_BITS 07777

static gboolean
set_errno_error (GError ** error, const gchar * what, const gchar * path,
    int err)
{
  g_set_error (error, G_FILE_ERROR, g_file_error_from_errno (err),
      "cannot %s %s: %s", what, path, g_strerror (err));
  return FALSE;
}

static gboolean
write_all (int fd, const gchar * path, const gchar * data, gsize len,
    GError ** error)
{
  while (len > 0) {
    gssize n = write (fd, data, len);

    if (n < 0 && errno == EINTR)
      continue;
    if (n < 0)
      return set_errno_error (error, "write", path, errno);
    if (n == 0)
      return set_errno_error (error, "write", path, ENOSPC);
    data += n;
    len -= (gsize) n;
  }
  return TRUE;
}

/* The descriptor a path names when it is one of the process's own, or -1 */
static int
own_descriptor (const gchar * path)
{
  static const gchar *const prefixes[] = { "/dev/fd/", "/proc/self/fd/" };
  const gchar *digits = NULL;
  gchar *end;
  guint64 fd;
  guint i;

  if (strcmp (path, "/dev/stdout") == 0)
    return STDOUT_FILENO;
  if (strcmp (path, "/dev/stderr") == 0)
    return STDERR_FILENO;
  for (i = 0; i < G_N_ELEMENTS (prefixes); i++)
    if (g_str_has_prefix (path, prefixes[i]))
      digits = path + strlen (prefixes[i]);
  if (digits == NULL || !g_ascii_isdigit (*digits))
    return -1;
  fd = g_ascii_strtoull (digits, &end, 10);
  if (*end != '\0' || fd > G_MAXINT)
    return -1;
  return (int) fd;
}

static gboolean
write_descriptor (int fd, const gchar * path, const gchar * data, gsize len,
    GError ** error)
{
  /* what the process printed through stdio comes first */
  if (fd == STDOUT_FILENO)
    fflush (stdout);
  else if (fd == STDERR_FILENO)
    fflush (stderr);
  return write_all (fd, path, data, len, error);
}

/* Opens an existing non-regular file, or appends to any file, and writes
 * into it where it is. */
static gboolean
write_in_place (const gchar * path, const gchar * data, gsize len,
    int flags, GError ** error)
{
  gboolean ok;
  int fd;

  do
    fd = g_open (path, O_WRONLY | O_CLOEXEC | flags, NEW_FILE_MODE);
  while (fd < 0 && errno == EINTR);
  if (fd < 0)
    return set_errno_error (error, "open", path, errno);
  ok = write_all (fd, path, data, len, error);
  if (close (fd) != 0 && ok)
    ok = set_errno_error (error, "close", path, errno);
  return ok;
}

gboolean
ax_file_write (const gchar * path, const gchar * data, gsize len,
    gboolean append, GError ** error)
{
  gchar *target;
  GStatBuf st;
  gboolean ok;
  int fd;

  g_return_val_if_fail (path != NULL, FALSE);
  g_return_val_if_fail (data != NULL || len == 0, FALSE);

  fd = own_descriptor (path);
  if (fd >= 0)
    return write_descriptor (fd, path, data, len, error);
  if (append)
    return write_in_place (path, data, len, O_CREAT | O_APPEND, error);

  /* resolve a symlink chain so that the link itself survives */
  target = g_canonicalize_filename (path, NULL);
  if (g_file_test (path, G_FILE_TEST_IS_SYMLINK)) {
    gchar *resolved = realpath (path, NULL);

    if (resolved) {
      g_free (target);
      target = g_strdup (resolved);
      free (resolved);
    } else {
      /* a dangling link: create its target by writing through it */
      ok = write_in_place (path, data, len, O_CREAT | O_TRUNC, error);
      g_free (target);
      return ok;
    }
  }

  if (g_stat (target, &st) != 0)
    ok = g_file_set_contents_full (target, data, (gssize) len,
        G_FILE_SET_CONTENTS_CONSISTENT, NEW_FILE_MODE, error);
  else if (!S_ISREG (st.st_mode))
    ok = write_in_place (target, data, len, O_TRUNC, error);
  else
    /* the new file keeps the permissions the old one had */
    ok = g_file_set_contents_full (target, data, (gssize) len,
        G_FILE_SET_CONTENTS_CONSISTENT, (int) (st.st_mode & MODE_BITS), error);
  g_free (target);
  return ok;
}

gboolean
ax_file_is_stream (const gchar * path)
{
  GStatBuf st;

  g_return_val_if_fail (path != NULL, FALSE);

  if (own_descriptor (path) >= 0)
    return TRUE;
  return g_stat (path, &st) == 0 && !S_ISREG (st.st_mode)
      && !S_ISDIR (st.st_mode);
}

gboolean
ax_file_same (const gchar * a, const gchar * b)
{
  GStatBuf sa, sb;
  gchar *ca, *cb;
  gboolean same;

  g_return_val_if_fail (a != NULL && b != NULL, FALSE);

  if (g_stat (a, &sa) == 0 && g_stat (b, &sb) == 0)
    return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
  ca = g_canonicalize_filename (a, NULL);
  cb = g_canonicalize_filename (b, NULL);
  same = strcmp (ca, cb) == 0;
  g_free (ca);
  g_free (cb);
  return same;
}

gboolean
ax_file_replaces (const gchar * output, const gchar * path)
{
  g_return_val_if_fail (output != NULL && path != NULL, FALSE);

  return !ax_file_is_stream (output) && ax_file_same (output, path);
}

gboolean
ax_file_check_output (const gchar * output, const gchar * const *inputs,
    gssize n_inputs, GError ** error)
{
  gssize i;

  g_return_val_if_fail (output != NULL, FALSE);

  for (i = 0; inputs != NULL && (n_inputs < 0 ? inputs[i] != NULL :
          i < n_inputs); i++) {
    if (inputs[i] != NULL && ax_file_replaces (output, inputs[i])) {
      g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_INVAL,
          AX_FILE_SAME_AS_INPUT " %s", inputs[i]);
      return FALSE;
    }
  }
  return TRUE;
}
