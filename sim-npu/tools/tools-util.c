/* gst-ax
 * Copyright (C) 2026 gst-ax developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

#include "tools-util.h"

#include "axfile.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int
simnpu_tools_parse_int (const char *tool, const char *option,
    const char *text, int64_t min, int64_t max, int64_t * out)
{
  char *end = NULL;
  gint64 v;

  errno = 0;
  v = text ? g_ascii_strtoll (text, &end, 10) : 0;
  if (text == NULL || end == text || *end != '\0' || errno == ERANGE
      || v < min || v > max) {
    fprintf (stderr, "%s: %s: '%s' is not an integer in [%" G_GINT64_FORMAT
        ", %" G_GINT64_FORMAT "]\n", tool, option, text ? text : "",
        (gint64) min, (gint64) max);
    return -1;
  }
  *out = v;
  return 0;
}

int
simnpu_tools_parse_double (const char *tool, const char *option,
    const char *text, double min, double max, double *out)
{
  char *end = NULL;
  double v;

  errno = 0;
  v = text ? g_ascii_strtod (text, &end) : 0.0;
  /* !(v >= min) also refuses nan */
  if (text == NULL || end == text || *end != '\0' || errno == ERANGE
      || !isfinite (v) || !(v >= min) || v > max) {
    fprintf (stderr, "%s: %s: '%s' is not a number in [%g, %g]\n", tool,
        option, text ? text : "", min, max);
    return -1;
  }
  *out = v;
  return 0;
}

int
simnpu_tools_read_exact (const char *tool, const char *what,
    const char *path, void *buf, size_t size)
{
  struct stat st;
  size_t got = 0;
  /* O_NONBLOCK: opening a FIFO would otherwise wait for a writer (it has
   * no effect on the regular files read) */
  int fd = open (path, O_RDONLY | O_NONBLOCK);

  if (fd < 0) {
    fprintf (stderr, "%s: %s: cannot open '%s': %s\n", tool, what, path,
        g_strerror (errno));
    return -1;
  }
  /* the size is checked before reading: a device or a pipe has none */
  if (fstat (fd, &st) < 0 || !S_ISREG (st.st_mode)) {
    fprintf (stderr, "%s: %s: '%s' is not a regular file; expected %zu "
        "bytes of raw tensor data\n", tool, what, path, size);
    close (fd);
    return -1;
  }
  if ((uint64_t) st.st_size != (uint64_t) size) {
    fprintf (stderr, "%s: %s: '%s' has %" G_GUINT64_FORMAT " bytes; "
        "expected exactly %zu\n", tool, what, path, (guint64) st.st_size, size);
    close (fd);
    return -1;
  }
  while (got < size) {
    ssize_t n = read (fd, (char *) buf + got, size - got);
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0) {
      fprintf (stderr, "%s: %s: '%s': read %zu of %zu bytes%s%s\n", tool,
          what, path, got, size, n < 0 ? ": " : "",
          n < 0 ? g_strerror (errno) : "");
      close (fd);
      return -1;
    }
    got += (size_t) n;
  }
  close (fd);
  return 0;
}

int
simnpu_tools_check_output (const char *tool, const char *what,
    const char *output, const char *const *inputs, size_t n_inputs)
{
  GError *err = NULL;

  if (output == NULL
      || ax_file_check_output (output, inputs, (gssize) n_inputs, &err))
    return 0;
  fprintf (stderr, "%s: %s %s: %s; write it elsewhere\n", tool, what, output,
      err->message);
  g_error_free (err);
  return -1;
}
