/* gst-ax
 * Copyright (C) 2026 gst-ax developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

/* Reading the files a user or a model names: libsimnpu, the compiler,
 * the tools and the elements all read through these, so that
 *
 * - only a regular file is read: a FIFO would block the reader until some
 *   writer comes (opened without blocking, then checked), and a device
 *   such as /dev/zero never ends;
 * - each kind of file is read up to a size that fits it, never until
 *   memory runs out;
 * - a file that a model names (a JSON graph's weights_file, a TF.js
 *   shard) is one inside the model's own folder once symlinks are
 *   resolved, so a hostile model cannot pull the user's other files into
 *   its output.
 *
 * Errors are in the G_FILE_ERROR domain and name the file, what it was
 * and what was expected. GLib only; not installed. */

#ifndef __SIMNPU_FILE_H__
#define __SIMNPU_FILE_H__

#include <glib.h>

G_BEGIN_DECLS

/* Labels, one a line: a model has at most 4096 of 256 bytes each. */
#define SIMNPU_FILE_MAX_LABELS_BYTES (G_GUINT64_CONSTANT (4) << 20)
/* JSON: graphs, TF.js model.json, decoders, and the tools' own text. */
#define SIMNPU_FILE_MAX_JSON_BYTES (G_GUINT64_CONSTANT (256) << 20)
/* Weights: a JSON graph's weights_file, a TF.js shard, an .axm model. */
#define SIMNPU_FILE_MAX_WEIGHTS_BYTES (G_GUINT64_CONSTANT (4) << 30)

/* Opens @path for reading, which must be a regular file once symlinks are
 * followed; @what names the kind of file in messages (e.g. "labels
 * file"). Returns a blocking descriptor, or -1 with @error set. */
G_GNUC_INTERNAL int simnpu__file_open (const char *path, const char *what,
    GError ** error);

/* Reads all of the regular file @path, at most @max_bytes of it, into a
 * new NUL-terminated buffer (as g_file_get_contents() does). */
G_GNUC_INTERNAL gboolean simnpu__file_read (const char *path,
    const char *what, guint64 max_bytes, gchar ** contents, gsize * length,
    GError ** error);

/* The real path of @name, relative to the folder @dir, if it lies inside
 * that folder once both are resolved (symlinks, "..", "."); %NULL with
 * @error set if @name is absolute, resolves outside @dir or does not
 * exist. */
G_GNUC_INTERNAL gchar *simnpu__file_resolve_inside (const char *dir,
    const char *name, const char *what, GError ** error);

G_END_DECLS
#endif /* __SIMNPU_FILE_H__ */
