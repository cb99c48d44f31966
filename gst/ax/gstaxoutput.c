/* gst-ax
 * Copyright (C) 2026 gst-ax developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

/* Writing a profiler's outputs without ever destroying what a path is:
 * the rules are those of every gst-ax output (common/axfile.c): a
 * regular file is replaced atomically, a symlink is followed, a FIFO or a
 * device is written in place, the process's own descriptors at their
 * offset.
 */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstaxoutput.h"

#include "axfile.h"

#include <string.h>

/**
 * gst_ax_output_write:
 * @path: where to write; a regular file, a path that does not exist yet,
 *   a symlink, a FIFO or a device such as `/dev/stdout`
 * @data: the bytes
 * @len: their length, or -1 for a NUL-terminated string
 * @mode: #GstAxOutputMode
 * @error: (nullable): set on failure, naming the path and the cause
 *
 * Writes @data to @path without ever changing what @path is. In
 * %GST_AX_OUTPUT_REPLACE mode a regular file (or a new path) is replaced
 * atomically, so a reader never sees half a file; a symlink is followed
 * and its target written the same way; a FIFO or a device is written in
 * place; `/dev/stdout`, `/dev/stderr`, `/dev/fd/N` and `/proc/self/fd/N`
 * are written to the descriptor itself, at its offset, in either mode. In
 * %GST_AX_OUTPUT_APPEND mode the data is appended to whatever the path
 * holds, creating a regular file if there is none. Every error,
 * including a short write and a failing close (a full disk), is reported.
 *
 * Returns: %TRUE on success
 */
gboolean
gst_ax_output_write (const gchar * path, const gchar * data, gssize len,
    GstAxOutputMode mode, GError ** error)
{
  g_return_val_if_fail (path != NULL, FALSE);
  g_return_val_if_fail (data != NULL || len == 0, FALSE);

  return ax_file_write (path, data, len < 0 ? strlen (data) : (gsize) len,
      mode == GST_AX_OUTPUT_APPEND, error);
}

/**
 * gst_ax_output_is_stream:
 * @path: a path as given to gst_ax_output_write()
 *
 * Whether @path names something other than a regular file once links are
 * followed: a FIFO, a device, a socket or one of the process's own
 * descriptors. A writer that numbers its later outputs (`PATH.2`, ...)
 * writes each of them to such a path instead: numbering would create
 * regular files beside a device node.
 *
 * Returns: %TRUE for a stream, %FALSE for a regular file or a path that
 *   does not exist
 */
gboolean
gst_ax_output_is_stream (const gchar * path)
{
  g_return_val_if_fail (path != NULL, FALSE);

  return ax_file_is_stream (path);
}
