/* gst-ax
 * Copyright (C) 2026 gst-ax developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

/* Model files (format/): JSON graphs and the .axm container. */

#ifndef __SIMNPU_FORMAT_H__
#define __SIMNPU_FORMAT_H__

#include "device/device.h"

G_BEGIN_DECLS

SIMNPU_INTERNAL int simnpu__graph_load_json_file (const char *path,
    bool estimate_only, simnpu__graph ** out, simnpu_error * error);
SIMNPU_INTERNAL int simnpu__graph_load_json_data (const char *data,
    size_t size, const char *base_dir, bool estimate_only,
    simnpu__graph ** out, simnpu_error * error);
/* The deepest array/object nesting of a JSON text, strings skipped (to
 * refuse input that would exhaust json-glib's recursive parser). */
SIMNPU_INTERNAL unsigned simnpu__json_depth (const char *data, size_t size);
/* Whether a JSON text holds an integer literal outside int64 (json-glib
 * wraps those silently: 10^30 reads as -1); if so, @msg names its path
 * ("$.inputs[0].zero_point: 1000...") and the range. */
SIMNPU_INTERNAL bool simnpu__json_find_bad_int (const char *data,
    size_t size, char *msg, size_t msg_size);

#define SIMNPU_AXM_MAGIC "SNPUAXM\0"
#define SIMNPU_AXM_MAGIC_BYTES 8
#define SIMNPU_AXM_VERSION_MAJOR 1
/* 1.1 added the labels section; 1.0 files (six sections) still load.
 * 1.2 added the optional host sections (preamble, postamble), the
 * preprocessing record and the decoder JSON. */
#define SIMNPU_AXM_VERSION_MINOR 2
/* 1.3 added the quantisation of the postamble's outputs; a file without
 * it is still written as 1.2 */
#define SIMNPU_AXM_VERSION_MINOR_POSTAMBLE_QUANT 3
/* the decoder parameters of a compiled model (a JSON object) */
#define SIMNPU_MAX_DECODER_BYTES (64 * 1024)
#define SIMNPU_MAX_DECODER_DEPTH 16

/* The .axm container of a graph and its schedule, as bytes. */
SIMNPU_INTERNAL GByteArray *simnpu__axm_serialize (const simnpu__graph *
    graph, const simnpu__schedule * schedule);
/* Writes a container's bytes to @path (a regular file atomically: never
 * a partial file). */
SIMNPU_INTERNAL int simnpu__axm_write_data (const void *data, size_t size,
    const char *path, simnpu_error * error);
SIMNPU_INTERNAL int simnpu__axm_write (const simnpu__graph * graph,
    const simnpu__schedule * schedule, const char *path,
    simnpu_error * error);
SIMNPU_INTERNAL int simnpu__axm_read (const void *data, size_t size,
    simnpu__graph ** out_graph, simnpu__schedule * schedule,
    simnpu_error * error);

G_END_DECLS

#endif /* __SIMNPU_FORMAT_H__ */
