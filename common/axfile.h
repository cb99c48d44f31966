/* gst-ax
 * Copyright (C) 2026 gst-ax developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

/* How every part of gst-ax writes its outputs and tells them apart from
 * its inputs: libsimnpu (the .axm writer), its tools, libgstax (the
 * profiler's outputs), the elements, the tracer and gst-ax-benchmark.
 * GLib only; a static library linked into each of them, its symbols
 * hidden, so that the rules are written once and never drift apart. */

#ifndef __AX_FILE_H__
#define __AX_FILE_H__

#include <glib.h>

G_BEGIN_DECLS

/* The file names the error message of ax_file_check_output() starts
 * with, for the tests. */
#define AX_FILE_SAME_AS_INPUT "output is the same file as input"

/* Writes @len bytes of @data to @path without ever changing what @path
 * is: a regular file or a path that does not exist yet is replaced
 * atomically (a temporary file and a rename; an existing file keeps its
 * permissions); a symlink is followed and its target written by the same
 * rules; a FIFO or a device (/dev/null) is opened and written in place;
 * /dev/stdout, /dev/stderr, /dev/fd/N and /proc/self/fd/N are written to
 * that descriptor at its offset. With @append the data goes at the end of
 * whatever @path holds, a regular file being created if there is none.
 * Every error, a short write and a failing close included, is reported,
 * naming @path. */
gboolean ax_file_write (const gchar * path, const gchar * data, gsize len,
    gboolean append, GError ** error);

/* Whether @path names something other than a regular file once links
 * are followed: a FIFO, a device, a socket or one of the process's own
 * descriptors. FALSE for a regular file, a directory or a path that does
 * not exist. */
gboolean ax_file_is_stream (const gchar * path);

/* Whether @a and @b name the same file: the same name once made absolute
 * and canonical (./x and x), or, when both exist, the same device and
 * inode (a hard link, a symlink, another spelling of the path). */
gboolean ax_file_same (const gchar * a, const gchar * b);

/* Whether writing @output would replace the file @path: they are the same
 * file and @output is not a stream (a FIFO or a device is written in
 * place and keeps what it is). */
gboolean ax_file_replaces (const gchar * output, const gchar * path);

/* Checks that writing @output replaces none of @inputs (@n_inputs paths,
 * or NULL-terminated when @n_inputs is negative; NULL entries are
 * skipped). If it would, sets @error to "output is the same file as input
 * INPUT" and returns FALSE. */
gboolean ax_file_check_output (const gchar * output,
    const gchar * const *inputs, gssize n_inputs, GError ** error);

G_END_DECLS

#endif /* __AX_FILE_H__ */
