/* gst-ax
 * Copyright (C) 2026 gst-ax developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

/* simnpu-compile's compile-time trace and debug directory */

#ifndef __SIMNPU_COMPILE_TRACE_H__
#define __SIMNPU_COMPILE_TRACE_H__

#include "compiler.h"
#include "device/device.h"

G_BEGIN_DECLS

/* The compile-time trace CSV at PATH (ID, Start, End, Location, Op Type:
 * one row per action, estimated cycles). Returns 0, or -1 with a message
 * on stderr. */
int simnpu_compile_write_trace (const char *path, const char *src,
    const simnpu__graph * g, const simnpu__schedule * s,
    const simnpu__profile * p);

/* The debug directory DIR: actions.csv (one row per action, keyed by
 * action_id as in the runtime CSV) and device.txt (the device spec and
 * resource names), read back by simnpu-annotate. Returns 0 or -1. */
int simnpu_compile_write_debug_info (const char *dir, const char *src,
    const simnpu__graph * g, const simnpu__schedule * s,
    const simnpu__profile * p);

G_END_DECLS

#endif /* __SIMNPU_COMPILE_TRACE_H__ */
