/* gst-ax
 * Copyright (C) 2026 gst-ax developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

/* Model metadata for the axnms test programs: a model's decoder JSON
 * from the source tree, and output tensor metas on a buffer. */

#ifndef __AX_NMS_META_H__
#define __AX_NMS_META_H__

#include <gst/ax/ax.h>
#include <gst/check/gstcheck.h>

static inline gchar *
read_model_json (const gchar * name)
{
  gchar *path = g_build_filename (MODELS_SOURCE_DIR, name, NULL), *text;

  fail_unless (g_file_get_contents (path, &text, NULL, NULL), "%s", path);
  g_free (path);
  return text;
}

/* Output metas of a model, for gst_ax_nms_inputs_from_metas(). */
static inline GstAxTensorMeta *
add_output (GstBuffer * buf, const gchar * name, guint index,
    GstAxTensorDType dtype, guint n_dims, const gint64 * dims, gfloat scale,
    gint32 zp, gconstpointer data)
{
  GstAxTensorMeta *m;
  gsize n = gst_ax_tensor_dtype_size (dtype);
  guint i;

  for (i = 0; i < n_dims; i++)
    n *= dims[i];
  m = gst_buffer_add_ax_tensor_meta (buf, name, GST_AX_TENSOR_ROLE_OUTPUT,
      dtype, GST_AX_TENSOR_LAYOUT_NHWC, n_dims, dims, scale, zp,
      data ? gst_buffer_new_memdup (data, n) :
      gst_buffer_new_allocate (NULL, n, NULL));
  fail_unless (m != NULL);
  m->index = index;
  return m;
}

#endif /* __AX_NMS_META_H__ */
