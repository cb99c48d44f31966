/* gst-ax
 * Copyright (C) 2026 gst-ax developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

/**
 * SECTION:gstaxtensormeta
 * @title: GstAxTensorMeta
 * @short_description: tensors riding on video frames
 *
 * Frames flow through the ax elements unchanged; the model input made by
 * axletterbox and the outputs made by axinference travel with them as
 * #GstAxTensorMeta. The tensor bytes are a #GstBuffer so that pools recycle
 * them; copying a frame shares the bytes rather than copying them.
 *
 * The meta carries the "video" and "size" tags: a conversion that changes
 * the frame size drops it, since the letterbox geometry would no longer
 * hold.
 */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstaxtensormeta.h"

#include <gst/video/video.h>
#include <string.h>

/**
 * gst_ax_tensor_meta_api_get_type:
 *
 * Returns: the API type of #GstAxTensorMeta, for gst_buffer_get_meta()
 *
 * Since: 0.2
 */
GType
gst_ax_tensor_meta_api_get_type (void)
{
  static GType type = 0;
  static const gchar *tags[] = { GST_META_TAG_VIDEO_STR,
    GST_META_TAG_VIDEO_SIZE_STR, NULL
  };

  if (g_once_init_enter (&type)) {
    GType _type = gst_meta_api_type_register ("GstAxTensorMetaAPI", tags);
    g_once_init_leave (&type, _type);
  }
  return type;
}

static gboolean
gst_ax_tensor_meta_init (GstMeta * meta, gpointer params, GstBuffer * buffer)
{
  GstAxTensorMeta *tmeta = (GstAxTensorMeta *) meta;

  tmeta->name = NULL;
  tmeta->role = GST_AX_TENSOR_ROLE_INPUT;
  tmeta->index = 0;
  tmeta->instance = 0;
  tmeta->dtype = GST_AX_TENSOR_DTYPE_U8;
  tmeta->layout = GST_AX_TENSOR_LAYOUT_NHWC;
  tmeta->n_dims = 0;
  memset (tmeta->dims, 0, sizeof (tmeta->dims));
  tmeta->scale = 1.0f;
  tmeta->zero_point = 0;
  tmeta->data = NULL;
  tmeta->has_letterbox = FALSE;
  memset (&tmeta->letterbox, 0, sizeof (tmeta->letterbox));
  tmeta->roi_id = GST_AX_TENSOR_ROI_NONE;
  return TRUE;
}

static void
gst_ax_tensor_meta_free (GstMeta * meta, GstBuffer * buffer)
{
  GstAxTensorMeta *tmeta = (GstAxTensorMeta *) meta;

  gst_clear_buffer (&tmeta->data);
}

static gboolean
gst_ax_tensor_meta_transform (GstBuffer * dest, GstMeta * meta,
    GstBuffer * buffer, GQuark type, gpointer data)
{
  GstAxTensorMeta *src = (GstAxTensorMeta *) meta;
  GstAxTensorMeta *dst;

  if (!GST_META_TRANSFORM_IS_COPY (type))
    return FALSE;

  dst = (GstAxTensorMeta *) gst_buffer_add_meta (dest,
      GST_AX_TENSOR_META_INFO, NULL);
  if (dst == NULL)
    return FALSE;

  dst->name = src->name;
  dst->role = src->role;
  dst->index = src->index;
  dst->instance = src->instance;
  dst->dtype = src->dtype;
  dst->layout = src->layout;
  dst->n_dims = src->n_dims;
  memcpy (dst->dims, src->dims, sizeof (dst->dims));
  dst->scale = src->scale;
  dst->zero_point = src->zero_point;
  /* shared, not copied: a tensor is immutable once attached */
  dst->data = src->data ? gst_buffer_ref (src->data) : NULL;
  dst->has_letterbox = src->has_letterbox;
  dst->letterbox = src->letterbox;
  dst->roi_id = src->roi_id;
  return TRUE;
}

/**
 * gst_ax_tensor_meta_get_info:
 *
 * Returns: (transfer none): the registered implementation of
 *   #GstAxTensorMeta
 *
 * Since: 0.2
 */
const GstMetaInfo *
gst_ax_tensor_meta_get_info (void)
{
  static const GstMetaInfo *info = NULL;

  if (g_once_init_enter ((GstMetaInfo **) & info)) {
    const GstMetaInfo *meta = gst_meta_register (GST_AX_TENSOR_META_API_TYPE,
        "GstAxTensorMeta", sizeof (GstAxTensorMeta),
        gst_ax_tensor_meta_init, gst_ax_tensor_meta_free,
        gst_ax_tensor_meta_transform);
    g_once_init_leave ((GstMetaInfo **) & info, (GstMetaInfo *) meta);
  }
  return info;
}

/**
 * gst_buffer_add_ax_tensor_meta:
 * @buffer: a writable frame
 * @name: the tensor name
 * @role: input or output
 * @dtype: element type
 * @layout: memory layout
 * @n_dims: rank, 1 to %GST_AX_TENSOR_MAX_DIMS
 * @dims: (array length=n_dims): the shape
 * @scale: quantisation scale
 * @zero_point: quantisation zero point
 * @data: (transfer full): the tensor bytes, at least as large as the shape
 *
 * Attaches a tensor to a frame. Set @index, @instance and the letterbox on
 * the returned meta as needed.
 *
 * Returns: (transfer none): the meta, or %NULL if the arguments are
 *   inconsistent (the data buffer is then unreffed)
 *
 * Since: 0.2
 */
GstAxTensorMeta *
gst_buffer_add_ax_tensor_meta (GstBuffer * buffer, const gchar * name,
    GstAxTensorRole role, GstAxTensorDType dtype, GstAxTensorLayout layout,
    guint n_dims, const gint64 * dims, gfloat scale, gint32 zero_point,
    GstBuffer * data)
{
  GstAxTensorMeta *meta;
  guint i;

  g_return_val_if_fail (GST_IS_BUFFER (buffer), NULL);
  g_return_val_if_fail (gst_buffer_is_writable (buffer), NULL);
  g_return_val_if_fail (n_dims >= 1 && n_dims <= GST_AX_TENSOR_MAX_DIMS, NULL);
  g_return_val_if_fail (dims != NULL, NULL);
  g_return_val_if_fail (GST_IS_BUFFER (data), NULL);

  meta = (GstAxTensorMeta *) gst_buffer_add_meta (buffer,
      GST_AX_TENSOR_META_INFO, NULL);
  meta->name = g_intern_string (name ? name : "");
  meta->role = role;
  meta->dtype = dtype;
  meta->layout = layout;
  meta->n_dims = n_dims;
  for (i = 0; i < n_dims; i++)
    meta->dims[i] = dims[i];
  meta->scale = scale;
  meta->zero_point = zero_point;
  meta->data = data;

  if (gst_buffer_get_size (data) < gst_ax_tensor_meta_n_bytes (meta)) {
    g_warning ("tensor '%s' data is %" G_GSIZE_FORMAT " bytes, its shape "
        "needs %" G_GSIZE_FORMAT, meta->name, gst_buffer_get_size (data),
        gst_ax_tensor_meta_n_bytes (meta));
    gst_buffer_remove_meta (buffer, (GstMeta *) meta);
    return NULL;
  }
  return meta;
}

/**
 * gst_buffer_iterate_ax_tensor_meta: (skip)
 * @buffer: a frame
 * @state: (inout): %NULL-initialised iteration state
 * @role: the role to look for
 *
 * Bindings, which cannot hold the opaque @state, take the tensors by
 * name (gst_buffer_get_ax_tensor_meta_by_name()) or by instance and
 * index (gst_buffer_get_ax_tensor_meta_by_role() until it returns
 * %NULL).
 *
 * Returns: (transfer none) (nullable): the next tensor of @role
 *
 * Since: 0.2
 */
GstAxTensorMeta *
gst_buffer_iterate_ax_tensor_meta (GstBuffer * buffer, gpointer * state,
    GstAxTensorRole role)
{
  GstMeta *meta;

  while ((meta = gst_buffer_iterate_meta_filtered (buffer, state,
              GST_AX_TENSOR_META_API_TYPE))) {
    if (((GstAxTensorMeta *) meta)->role == role)
      return (GstAxTensorMeta *) meta;
  }
  return NULL;
}

/**
 * gst_buffer_get_ax_tensor_meta_by_name:
 * @buffer: a frame
 * @name: the tensor name
 *
 * Returns: (transfer none) (nullable): the first tensor called @name
 *
 * Since: 0.2
 */
GstAxTensorMeta *
gst_buffer_get_ax_tensor_meta_by_name (GstBuffer * buffer, const gchar * name)
{
  gpointer state = NULL;
  GstMeta *meta;
  const gchar *iname = g_intern_string (name);

  while ((meta = gst_buffer_iterate_meta_filtered (buffer, &state,
              GST_AX_TENSOR_META_API_TYPE))) {
    if (((GstAxTensorMeta *) meta)->name == iname)
      return (GstAxTensorMeta *) meta;
  }
  return NULL;
}

/**
 * gst_buffer_get_ax_tensor_meta_by_role:
 * @buffer: a frame
 * @role: input or output
 * @instance: which input (ROI) the tensor belongs to
 * @index: position among the tensors of that role and instance
 *
 * Returns: (transfer none) (nullable): the matching tensor
 *
 * Since: 0.2
 */
GstAxTensorMeta *
gst_buffer_get_ax_tensor_meta_by_role (GstBuffer * buffer,
    GstAxTensorRole role, guint instance, guint index)
{
  gpointer state = NULL;
  GstAxTensorMeta *meta;

  while ((meta = gst_buffer_iterate_ax_tensor_meta (buffer, &state, role))) {
    if (meta->instance == instance && meta->index == index)
      return meta;
  }
  return NULL;
}

/**
 * gst_buffer_count_ax_tensor_meta:
 * @buffer: a frame
 * @role: input or output
 *
 * Returns: the number of tensors of @role on @buffer
 *
 * Since: 0.2
 */
guint
gst_buffer_count_ax_tensor_meta (GstBuffer * buffer, GstAxTensorRole role)
{
  gpointer state = NULL;
  guint n = 0;

  while (gst_buffer_iterate_ax_tensor_meta (buffer, &state, role))
    n++;
  return n;
}

/**
 * gst_ax_tensor_dtype_size:
 * @dtype: an element type
 *
 * Returns: the size of one element in bytes
 *
 * Since: 0.2
 */
gsize
gst_ax_tensor_dtype_size (GstAxTensorDType dtype)
{
  switch (dtype) {
    case GST_AX_TENSOR_DTYPE_U8:
    case GST_AX_TENSOR_DTYPE_I8:
      return 1;
    case GST_AX_TENSOR_DTYPE_F32:
      return 4;
  }
  g_return_val_if_reached (0);
}

static const gchar *const dtype_names[] = { "u8", "i8", "f32" };

/**
 * gst_ax_tensor_dtype_to_string:
 * @dtype: an element type
 *
 * Returns: "u8", "i8" or "f32"
 *
 * Since: 0.2
 */
const gchar *
gst_ax_tensor_dtype_to_string (GstAxTensorDType dtype)
{
  g_return_val_if_fail ((guint) dtype < G_N_ELEMENTS (dtype_names), "?");
  return dtype_names[dtype];
}

/**
 * gst_ax_tensor_dtype_from_string:
 * @str: "u8", "i8" or "f32" (also "uint8", "int8", "float32")
 * @dtype: (out): the element type
 *
 * Returns: %FALSE if @str names no element type
 *
 * Since: 0.2
 */
gboolean
gst_ax_tensor_dtype_from_string (const gchar * str, GstAxTensorDType * dtype)
{
  if (!g_strcmp0 (str, "u8") || !g_strcmp0 (str, "uint8"))
    *dtype = GST_AX_TENSOR_DTYPE_U8;
  else if (!g_strcmp0 (str, "i8") || !g_strcmp0 (str, "int8"))
    *dtype = GST_AX_TENSOR_DTYPE_I8;
  else if (!g_strcmp0 (str, "f32") || !g_strcmp0 (str, "float32"))
    *dtype = GST_AX_TENSOR_DTYPE_F32;
  else
    return FALSE;
  return TRUE;
}

/**
 * gst_ax_tensor_meta_n_elements:
 * @meta: a tensor
 *
 * Returns: the product of the dims
 *
 * Since: 0.2
 */
gsize
gst_ax_tensor_meta_n_elements (const GstAxTensorMeta * meta)
{
  gsize n = 1;
  guint i;

  for (i = 0; i < meta->n_dims; i++)
    n *= (gsize) MAX (meta->dims[i], 0);
  return n;
}

/**
 * gst_ax_tensor_meta_n_bytes:
 * @meta: a tensor
 *
 * Returns: the size of the tensor's data in bytes
 *
 * Since: 0.2
 */
gsize
gst_ax_tensor_meta_n_bytes (const GstAxTensorMeta * meta)
{
  return gst_ax_tensor_meta_n_elements (meta) *
      gst_ax_tensor_dtype_size (meta->dtype);
}
