/* gst-ax
 * Copyright (C) 2026 gst-ax developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

#include "simnpu-file.h"

#include <errno.h>
#include <fcntl.h>
#include <glib/gstdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* the first allocation of a file whose size fstat does not tell */
#define FILE_FIRST_CHUNK_BYTES 4096

static const char *
kind_of (mode_t mode)
{
  if (S_ISDIR (mode))
    return "a directory";
  if (S_ISFIFO (mode))
    return "a FIFO (named pipe)";
  if (S_ISCHR (mode))
    return "a character device";
  if (S_ISBLK (mode))
    return "a block device";
  if (S_ISSOCK (mode))
    return "a socket";
  return "not a regular file";
}

static gboolean
check_regular (const char *path, const char *what, mode_t mode, GError ** error)
{
  if (S_ISREG (mode))
    return TRUE;
  g_set_error (error, G_FILE_ERROR, S_ISDIR (mode) ? G_FILE_ERROR_ISDIR :
      G_FILE_ERROR_INVAL, "%s '%s' is %s; expected a regular file", what,
      path, kind_of (mode));
  return FALSE;
}

static void
set_errno_error (GError ** error, int err, const char *path,
    const char *what, const char *doing)
{
  g_set_error (error, G_FILE_ERROR, g_file_error_from_errno (err),
      "%s '%s': %s%s", what, path, doing, g_strerror (err));
}

int
simnpu__file_open (const char *path, const char *what, GError ** error)
{
  GStatBuf st;
  int fd, flags;

  /* a device is refused before it is even opened */
  if (g_stat (path, &st) != 0) {
    set_errno_error (error, errno, path, what, "");
    return -1;
  }
  if (!check_regular (path, what, st.st_mode, error))
    return -1;
  /* O_NONBLOCK: should a FIFO have taken the file's place since, opening
   * it would otherwise wait for a writer */
  fd = open (path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) {
    set_errno_error (error, errno, path, what, "cannot open: ");
    return -1;
  }
  if (fstat (fd, &st) != 0) {
    set_errno_error (error, errno, path, what, "");
    close (fd);
    return -1;
  }
  if (!check_regular (path, what, st.st_mode, error)) {
    close (fd);
    return -1;
  }
  flags = fcntl (fd, F_GETFL);
  if (flags < 0 || fcntl (fd, F_SETFL, flags & ~O_NONBLOCK) < 0) {
    set_errno_error (error, errno, path, what, "");
    close (fd);
    return -1;
  }
  return fd;
}

static void
set_too_large (GError ** error, const char *path, const char *what,
    guint64 max_bytes)
{
  g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_FAILED,
      "%s '%s' is larger than %" G_GUINT64_FORMAT " bytes, the most "
      "expected of it", what, path, max_bytes);
}

gboolean
simnpu__file_read (const char *path, const char *what, guint64 max_bytes,
    gchar ** contents, gsize * length, GError ** error)
{
  struct stat st;
  gchar *buf;
  gsize len = 0, cap;
  int fd;

  *contents = NULL;
  if (length != NULL)
    *length = 0;
  max_bytes = MIN (max_bytes, (guint64) G_MAXSIZE - 1);
  fd = simnpu__file_open (path, what, error);
  if (fd < 0)
    return FALSE;
  if (fstat (fd, &st) != 0) {
    set_errno_error (error, errno, path, what, "");
    close (fd);
    return FALSE;
  }
  if ((guint64) st.st_size > max_bytes) {
    set_too_large (error, path, what, max_bytes);
    close (fd);
    return FALSE;
  }
  /* the size fstat gives, but a file can grow while it is read (and some
   * in /proc say 0): read to the end, never past the limit */
  cap = (gsize) (st.st_size > 0 ? st.st_size : FILE_FIRST_CHUNK_BYTES) + 1;
  buf = g_try_malloc (cap);
  if (buf == NULL) {
    g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_NOMEM, "%s '%s': cannot "
        "allocate %" G_GSIZE_FORMAT " bytes to read it", what, path, cap);
    close (fd);
    return FALSE;
  }
  for (;;) {
    gssize n;

    if (len == cap - 1) {
      gchar probe, *more;
      gsize grown;

      if ((guint64) len >= max_bytes) {
        do
          n = read (fd, &probe, 1);
        while (n < 0 && errno == EINTR);
        if (n == 0)
          break;
        if (n > 0)
          set_too_large (error, path, what, max_bytes);
        else
          set_errno_error (error, errno, path, what, "cannot read: ");
        goto failed;
      }
      grown = (gsize) MIN ((guint64) cap * 2, max_bytes + 1);
      more = g_try_realloc (buf, grown);
      if (more == NULL) {
        g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_NOMEM, "%s '%s': "
            "cannot allocate %" G_GSIZE_FORMAT " bytes to read it", what,
            path, grown);
        goto failed;
      }
      buf = more;
      cap = grown;
    }
    n = read (fd, buf + len, cap - 1 - len);
    if (n < 0 && errno == EINTR)
      continue;
    if (n < 0) {
      set_errno_error (error, errno, path, what, "cannot read: ");
      goto failed;
    }
    if (n == 0)
      break;
    len += (gsize) n;
  }
  close (fd);
  buf[len] = '\0';
  *contents = buf;
  if (length != NULL)
    *length = len;
  return TRUE;

failed:
  g_free (buf);
  close (fd);
  return FALSE;
}

gchar *
simnpu__file_resolve_inside (const char *dir, const char *name,
    const char *what, GError ** error)
{
  char *real_dir, *real;
  gchar *joined, *inside = NULL;
  size_t n;

  if (g_path_is_absolute (name)) {
    g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_ACCES, "%s '%s' is an "
        "absolute path; it must be a relative path to a file inside the "
        "model's folder '%s'", what, name, dir);
    return NULL;
  }
  real_dir = realpath (dir, NULL);
  if (real_dir == NULL) {
    set_errno_error (error, errno, dir, "model folder", "");
    return NULL;
  }
  joined = g_build_filename (dir, name, NULL);
  real = realpath (joined, NULL);
  if (real == NULL) {
    set_errno_error (error, errno, joined, what, "");
    goto out;
  }
  n = strlen (real_dir);
  /* strictly below the folder: "/m/x" is inside "/m", "/mx" is not; the
   * root folder "/" is the one that ends in a separator */
  if (strncmp (real, real_dir, n) == 0 && real[n] != '\0'
      && (real[n] == G_DIR_SEPARATOR || (n > 0
              && real_dir[n - 1] == G_DIR_SEPARATOR)))
    inside = g_strdup (real);
  else
    g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_ACCES, "%s '%s' resolves "
        "to '%s', outside the model's folder '%s'; it must lie inside the "
        "model's folder", what, name, real, real_dir);

out:
  free (real);
  free (real_dir);
  g_free (joined);
  return inside;
}
