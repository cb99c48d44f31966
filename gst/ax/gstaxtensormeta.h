/* gst-ax
 * Copyright (C) 2026 gst-ax developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

#ifndef __GST_AX_TENSOR_META_H__
#define __GST_AX_TENSOR_META_H__

#include <gst/ax/ax-prelude.h>
#include <gst/ax/gstaxletterboxgeometry.h>

G_BEGIN_DECLS
/**
 * GST_AX_TENSOR_MAX_DIMS:
 *
 * The maximum rank of a tensor.
 */
#define GST_AX_TENSOR_MAX_DIMS 4
/**
 * GstAxTensorDType:
 * @GST_AX_TENSOR_DTYPE_U8: unsigned 8-bit integers
 * @GST_AX_TENSOR_DTYPE_I8: signed 8-bit integers
 * @GST_AX_TENSOR_DTYPE_F32: 32-bit floats
 *
 * Element type of a tensor.
 */
    typedef enum
{
  GST_AX_TENSOR_DTYPE_U8,
  GST_AX_TENSOR_DTYPE_I8,
  GST_AX_TENSOR_DTYPE_F32,
} GstAxTensorDType;

/**
 * GstAxTensorLayout:
 * @GST_AX_TENSOR_LAYOUT_NHWC: channels last
 * @GST_AX_TENSOR_LAYOUT_NCHW: channels first
 *
 * Memory layout of a 4-D image tensor. Other ranks use NHWC to mean
 * "row-major as listed in dims".
 */
typedef enum
{
  GST_AX_TENSOR_LAYOUT_NHWC,
  GST_AX_TENSOR_LAYOUT_NCHW,
} GstAxTensorLayout;

/**
 * GstAxTensorRole:
 * @GST_AX_TENSOR_ROLE_INPUT: a model input, e.g. made by axletterbox
 * @GST_AX_TENSOR_ROLE_OUTPUT: a model output, made by axinference
 *
 * What a tensor on a frame is for.
 */
typedef enum
{
  GST_AX_TENSOR_ROLE_INPUT,
  GST_AX_TENSOR_ROLE_OUTPUT,
} GstAxTensorRole;

/**
 * GST_AX_TENSOR_ROI_NONE:
 *
 * The #GstAxTensorMeta.roi_id of a tensor made from the whole frame
 * rather than from a region of it.
 */
#define GST_AX_TENSOR_ROI_NONE (-1)

typedef struct _GstAxTensorMeta GstAxTensorMeta;

/**
 * GstAxTensorMeta:
 * @meta: parent #GstMeta
 * @name: the tensor name, interned
 * @role: #GstAxTensorRole
 * @index: position among the tensors of the same role and @instance
 *   (output 0, 1, ... of a model)
 * @instance: which input the tensor belongs to when a frame carries
 *   several (one per ROI in a cascade); 0 otherwise
 * @dtype: #GstAxTensorDType
 * @layout: #GstAxTensorLayout
 * @n_dims: number of valid entries in @dims
 * @dims: the shape
 * @scale: quantisation scale (real = scale * (q - zero_point))
 * @zero_point: quantisation zero point
 * @data: the tensor bytes, refcounted so that a pool can recycle them
 * @has_letterbox: whether @letterbox is valid
 * @letterbox: where the frame (or ROI) landed in the model input
 * @roi_id: the id (#GstVideoRegionOfInterestMeta.id) of the region the
 *   tensor was cropped from, or %GST_AX_TENSOR_ROI_NONE for a tensor of
 *   the whole frame; a model's outputs keep the id of their input
 *
 * One tensor riding on a video frame. Copying a buffer shares @data.
 */
struct _GstAxTensorMeta
{
  GstMeta meta;

  const gchar *name;
  GstAxTensorRole role;
  guint index;
  guint instance;
  GstAxTensorDType dtype;
  GstAxTensorLayout layout;
  guint n_dims;
  gint64 dims[GST_AX_TENSOR_MAX_DIMS];
  gfloat scale;
  gint32 zero_point;
  GstBuffer *data;

  gboolean has_letterbox;
  GstAxLetterboxGeometry letterbox;

  gint roi_id;
};

GST_AX_API GType gst_ax_tensor_meta_api_get_type (void);
#define GST_AX_TENSOR_META_API_TYPE (gst_ax_tensor_meta_api_get_type ())

GST_AX_API const GstMetaInfo *gst_ax_tensor_meta_get_info (void);
#define GST_AX_TENSOR_META_INFO (gst_ax_tensor_meta_get_info ())

GST_AX_API GstAxTensorMeta *gst_buffer_add_ax_tensor_meta (GstBuffer * buffer,
    const gchar * name, GstAxTensorRole role, GstAxTensorDType dtype,
    GstAxTensorLayout layout, guint n_dims, const gint64 * dims,
    gfloat scale, gint32 zero_point, GstBuffer * data);

GST_AX_API GstAxTensorMeta *gst_buffer_get_ax_tensor_meta_by_name (GstBuffer *
    buffer, const gchar * name);

GST_AX_API GstAxTensorMeta *gst_buffer_get_ax_tensor_meta_by_role (GstBuffer *
    buffer, GstAxTensorRole role, guint instance, guint index);

GST_AX_API GstAxTensorMeta *gst_buffer_iterate_ax_tensor_meta (GstBuffer *
    buffer, gpointer * state, GstAxTensorRole role);

GST_AX_API guint gst_buffer_count_ax_tensor_meta (GstBuffer * buffer,
    GstAxTensorRole role);

GST_AX_API gsize gst_ax_tensor_dtype_size (GstAxTensorDType dtype);
GST_AX_API const gchar *gst_ax_tensor_dtype_to_string (GstAxTensorDType dtype);
GST_AX_API gboolean gst_ax_tensor_dtype_from_string (const gchar * str,
    GstAxTensorDType * dtype);

GST_AX_API gsize gst_ax_tensor_meta_n_elements (const GstAxTensorMeta * meta);
GST_AX_API gsize gst_ax_tensor_meta_n_bytes (const GstAxTensorMeta * meta);

G_END_DECLS
#endif /* __GST_AX_TENSOR_META_H__ */
