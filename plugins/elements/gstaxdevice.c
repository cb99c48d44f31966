/* gst-ax
 * Copyright (C) 2026 gst-ax developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

/* The shared simulated device and its GstContext. An element looks for a
 * device with its key (device string and device-id) in this order: a
 * context already set on it (by the application, or by its bin when it
 * was added), the peers along its links (a context query that carries
 * the key, so that an element of another key forwards it), and the
 * application or the bin (a need-context message, answered
 * synchronously with gst_element_set_context()). Only when all fail does
 * it open a device, and announce it with a have-context message, which
 * the bin keeps for the elements that ask next. */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstaxdevice.h"

GST_DEBUG_CATEGORY_STATIC (gst_ax_device_debug);
#define GST_CAT_DEFAULT gst_ax_device_debug

#define FIELD_DEVICE "device"
#define FIELD_DEVICE_STRING "device-string"
#define FIELD_DEVICE_ID "device-id"

G_DEFINE_TYPE_WITH_CODE (GstAxDevice, gst_ax_device, GST_TYPE_OBJECT,
    GST_DEBUG_CATEGORY_INIT (gst_ax_device_debug, "axdevice", 0,
        "simulated devices shared through GstContext"));

static guint64 last_handle;

static void
gst_ax_device_finalize (GObject * object)
{
  GstAxDevice *self = GST_AX_DEVICE (object);

  GST_DEBUG_OBJECT (self, "closing %s (device-id %u)", self->spec,
      self->device_id);
  /* every user unloaded its model before dropping its reference */
  simnpu_device_close (self->dev);
  g_free (self->spec);

  G_OBJECT_CLASS (gst_ax_device_parent_class)->finalize (object);
}

static void
gst_ax_device_class_init (GstAxDeviceClass * klass)
{
  G_OBJECT_CLASS (klass)->finalize = gst_ax_device_finalize;
}

static void
gst_ax_device_init (GstAxDevice * self)
{
}

/* Opens a device. On failure returns NULL with *rc and *err set. */
GstAxDevice *
gst_ax_device_open (const gchar * spec, guint device_id, int *rc,
    simnpu_error * err)
{
  GstAxDevice *self;
  simnpu_device *dev = NULL;

  *rc = simnpu_device_open (spec, &dev, err);
  if (*rc < 0)
    return NULL;
  self = g_object_new (GST_TYPE_AX_DEVICE, NULL);
  gst_object_ref_sink (self);
  self->dev = dev;
  self->spec = g_strdup (spec);
  self->device_id = device_id;
  self->handle = __atomic_add_fetch (&last_handle, 1, __ATOMIC_RELAXED);
  GST_DEBUG_OBJECT (self, "opened %s (device-id %u)", spec, device_id);
  return self;
}

gboolean
gst_ax_device_matches (GstAxDevice * device, const gchar * spec,
    guint device_id)
{
  return device != NULL && device->device_id == device_id
      && g_strcmp0 (device->spec, spec) == 0;
}

GstContext *
gst_ax_device_context_new (GstAxDevice * device)
{
  /* not persistent: a pipeline going to NULL drops it, so the device
   * closes when its last element does; an application that keeps a
   * device across runs holds the context itself */
  GstContext *context = gst_context_new (GST_AX_DEVICE_CONTEXT_TYPE, FALSE);
  GstStructure *s = gst_context_writable_structure (context);

  gst_structure_set (s, FIELD_DEVICE, GST_TYPE_AX_DEVICE, device,
      FIELD_DEVICE_STRING, G_TYPE_STRING, device->spec,
      FIELD_DEVICE_ID, G_TYPE_UINT, device->device_id, NULL);
  return context;
}

/* The device @context carries, reffed, if it has the key; else NULL. */
GstAxDevice *
gst_ax_device_from_context (GstContext * context, const gchar * spec,
    guint device_id)
{
  const GstStructure *s;
  const GValue *v;
  GstAxDevice *device;

  if (context == NULL || g_strcmp0 (gst_context_get_context_type (context),
          GST_AX_DEVICE_CONTEXT_TYPE) != 0)
    return NULL;
  s = gst_context_get_structure (context);
  v = gst_structure_get_value (s, FIELD_DEVICE);
  if (v == NULL || !G_VALUE_HOLDS (v, GST_TYPE_AX_DEVICE))
    return NULL;
  device = g_value_get_object (v);
  if (!gst_ax_device_matches (device, spec, device_id))
    return NULL;
  return gst_object_ref (device);
}

typedef struct
{
  GstQuery *query;
  gboolean answered;
} PeerQuery;

static gboolean
query_peer (GstElement * element, GstPad * pad, gpointer user_data)
{
  PeerQuery *pq = user_data;

  pq->answered = gst_pad_peer_query (pad, pq->query);
  return !pq->answered;
}

static GstAxDevice *
find_in_element (GstElement * element, const gchar * spec, guint device_id)
{
  GstContext *context = gst_element_get_context (element,
      GST_AX_DEVICE_CONTEXT_TYPE);
  GstAxDevice *device = gst_ax_device_from_context (context, spec,
      device_id);

  if (context)
    gst_context_unref (context);
  return device;
}

/* Asks the peers downstream, then upstream. */
static GstAxDevice *
find_in_peers (GstElement * element, const gchar * spec, guint device_id)
{
  PeerQuery pq = { gst_query_new_context (GST_AX_DEVICE_CONTEXT_TYPE), };
  GstStructure *s = gst_query_writable_structure (pq.query);
  GstAxDevice *device = NULL;
  GstContext *context = NULL;

  gst_structure_set (s, FIELD_DEVICE_STRING, G_TYPE_STRING, spec,
      FIELD_DEVICE_ID, G_TYPE_UINT, device_id, NULL);
  gst_element_foreach_src_pad (element, query_peer, &pq);
  if (!pq.answered)
    gst_element_foreach_sink_pad (element, query_peer, &pq);
  if (pq.answered) {
    gst_query_parse_context (pq.query, &context);
    device = gst_ax_device_from_context (context, spec, device_id);
    if (device)
      gst_element_set_context (element, context);
  }
  gst_query_unref (pq.query);
  return device;
}

/* The device with the key that @element can share, reffed, or NULL when
 * it has to open one. Called in NULL->READY. */
GstAxDevice *
gst_ax_device_find (GstElement * element, const gchar * spec, guint device_id)
{
  GstAxDevice *device;

  if ((device = find_in_element (element, spec, device_id)))
    goto found;
  if ((device = find_in_peers (element, spec, device_id)))
    goto found;
  /* the bin or the application answers with gst_element_set_context()
   * before the post returns */
  gst_element_post_message (element,
      gst_message_new_need_context (GST_OBJECT_CAST (element),
          GST_AX_DEVICE_CONTEXT_TYPE));
  if ((device = find_in_element (element, spec, device_id)))
    goto found;
  return NULL;

found:
  GST_DEBUG_OBJECT (element, "sharing %" GST_PTR_FORMAT " (%s, device-id "
      "%u)", device, spec, device_id);
  return device;
}

/* Sets the context of a newly opened @device on @element and posts it,
 * for the bin to keep and the application to see. */
void
gst_ax_device_announce (GstElement * element, GstAxDevice * device)
{
  GstContext *context = gst_ax_device_context_new (device);

  gst_element_set_context (element, context);
  gst_element_post_message (element,
      gst_message_new_have_context (GST_OBJECT_CAST (element), context));
}

/* Answers a context query for ax.device with @device if the asker wants
 * its key (or names none); FALSE lets the caller forward the query. */
gboolean
gst_ax_device_answer_query (GstAxDevice * device, GstQuery * query)
{
  const gchar *type, *spec;
  const GstStructure *s;
  GstContext *context;
  guint device_id;

  if (device == NULL || GST_QUERY_TYPE (query) != GST_QUERY_CONTEXT
      || !gst_query_parse_context_type (query, &type)
      || g_strcmp0 (type, GST_AX_DEVICE_CONTEXT_TYPE) != 0)
    return FALSE;
  s = gst_query_get_structure (query);
  spec = gst_structure_get_string (s, FIELD_DEVICE_STRING);
  if (spec && g_strcmp0 (spec, device->spec) != 0)
    return FALSE;
  if (gst_structure_get_uint (s, FIELD_DEVICE_ID, &device_id)
      && device_id != device->device_id)
    return FALSE;
  context = gst_ax_device_context_new (device);
  gst_query_set_context (query, context);
  gst_context_unref (context);
  return TRUE;
}
