/* gst-ax
 * Copyright (C) 2026 gst-ax developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

/* What the sim-npu command-line tools share to check their input: numeric
 * options parsed whole and range-checked (GOption's own parsers take nan,
 * inf and any int), and files read at exactly the size expected (a
 * device or a pipe would otherwise be read without end).
 *
 * Each function prints "TOOL: ..." to stderr, naming the option or file
 * and what was expected, and returns -1; 0 on success. */

#ifndef __SIMNPU_TOOLS_UTIL_H__
#define __SIMNPU_TOOLS_UTIL_H__

#include <glib.h>
#include <stddef.h>
#include <stdint.h>

G_BEGIN_DECLS

/* The exit status of a tool given a bad command line. */
#define SIMNPU_TOOLS_EXIT_USAGE 2

int simnpu_tools_parse_int (const char *tool, const char *option,
    const char *text, int64_t min, int64_t max, int64_t * out);

/* Finite values in [min, max] only. */
int simnpu_tools_parse_double (const char *tool, const char *option,
    const char *text, double min, double max, double *out);

/* Reads the regular file @path, which must hold exactly @size bytes, into
 * @buf; @what names it in the message (e.g. "--input x"). */
int simnpu_tools_read_exact (const char *tool, const char *what,
    const char *path, void *buf, size_t size);

/* Refuses an output that would replace one of the tool's inputs: @output
 * (named by @what in the message, e.g. "-o") against @n_inputs paths
 * (NULL entries skipped), compared by device and inode (see axfile.h).
 * Prints "TOOL: WHAT OUTPUT: output is the same file as input NAME". */
int simnpu_tools_check_output (const char *tool, const char *what,
    const char *output, const char *const *inputs, size_t n_inputs);

G_END_DECLS
#endif /* __SIMNPU_TOOLS_UTIL_H__ */
