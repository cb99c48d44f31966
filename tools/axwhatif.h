/* gst-ax
 * Copyright (C) 2026 gst-ax developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

/* gst-ax-benchmark --what-if (axwhatif.c). */

#ifndef __AX_WHAT_IF_H__
#define __AX_WHAT_IF_H__

#include <gst/ax/ax.h>
#include <gst/ax/gstaxprojection-private.h>

G_BEGIN_DECLS

typedef struct
{
  GstAxProjectionConfig config;
  gchar *device;
  gchar **resources;
} AxWhatIf;

/* Parses "in-flight=N,cores=N,device=PROFILE,host-speed=X,time-scale=X"
 * (any of them, at least one); FALSE with @message set on a bad one. */
gboolean ax_what_if_parse (const gchar * spec, AxWhatIf * w,
    gchar ** message);
void ax_what_if_clear (AxWhatIf * w);
/* The projection's text, or NULL with @message set. */
gchar *ax_what_if_project (const GstAxReport * r, AxWhatIf * w,
    gchar ** message);

G_END_DECLS

#endif /* __AX_WHAT_IF_H__ */
