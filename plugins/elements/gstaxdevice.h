/* gst-ax
 * Copyright (C) 2026 gst-ax developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

/* A simulated device shared by the axinference elements that name the
 * same device string and device-id, and the GstContext that carries it
 * from one element to the next, the way VA, GL and CUDA share their
 * displays and devices. Plugin-internal: libgstax knows nothing of the
 * simulator. */

#ifndef __GST_AX_DEVICE_H__
#define __GST_AX_DEVICE_H__

#include <gst/gst.h>
#include <simnpu/simnpu.h>

G_BEGIN_DECLS

/* The context type; its structure holds "device" (a GstAxDevice, as a
 * GstObject), "device-string" (the device property) and "device-id". */
#define GST_AX_DEVICE_CONTEXT_TYPE "ax.device"

#define GST_TYPE_AX_DEVICE (gst_ax_device_get_type ())
G_DECLARE_FINAL_TYPE (GstAxDevice, gst_ax_device, GST, AX_DEVICE, GstObject);

/* Constant from creation until finalize. */
struct _GstAxDevice
{
  GstObject parent;

  simnpu_device *dev;
  gchar *spec;
  guint device_id;
  /* unique in the process, never 0, for profilers to tell devices apart */
  guint64 handle;

  /* protected by the object lock */
  gpointer profiler;            /* the element that started a host profile */
};

GstAxDevice *gst_ax_device_open (const gchar * spec, guint device_id,
    int *rc, simnpu_error * err);
gboolean gst_ax_device_matches (GstAxDevice * device, const gchar * spec,
    guint device_id);
GstContext *gst_ax_device_context_new (GstAxDevice * device);
GstAxDevice *gst_ax_device_from_context (GstContext * context,
    const gchar * spec, guint device_id);
GstAxDevice *gst_ax_device_find (GstElement * element, const gchar * spec,
    guint device_id);
void gst_ax_device_announce (GstElement * element, GstAxDevice * device);
gboolean gst_ax_device_answer_query (GstAxDevice * device, GstQuery * query);

G_END_DECLS

#endif /* __GST_AX_DEVICE_H__ */
