/* gst-ax
 * Copyright (C) 2026 gst-ax developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

#ifndef __GST_AX_MODEL_QUERY_H__
#define __GST_AX_MODEL_QUERY_H__

#include <gst/ax/ax-prelude.h>
#include <gst/ax/gstaxtensormeta.h>

G_BEGIN_DECLS

/**
 * GST_AX_MODEL_QUERY_NAME:
 *
 * Name of the structure of the custom query by which axletterbox asks
 * downstream for the model's input spec, and axnms asks upstream for the
 * model's class labels.
 */
#define GST_AX_MODEL_QUERY_NAME "GstAxModelInputQuery"

/**
 * GstAxModelInput:
 * @width: input tensor width
 * @height: input tensor height
 * @channels: input channels (3 for RGB)
 * @dtype: element type
 * @layout: memory layout
 * @scale: quantisation scale: q = round(value / scale) + zero_point, with
 *   value the 0..255 pixel value divided by 255
 * @zero_point: quantisation zero point
 * @name: the model input tensor name
 * @model_name: the model name
 *
 * The input spec of a model, as answered by axinference.
 */
typedef struct
{
  gint width;
  gint height;
  gint channels;
  GstAxTensorDType dtype;
  GstAxTensorLayout layout;
  gfloat scale;
  gint32 zero_point;
  const gchar *name;
  const gchar *model_name;
} GstAxModelInput;

GST_AX_API GstQuery *gst_ax_model_query_new (void);
GST_AX_API gboolean gst_ax_model_query_is (GstQuery * query);
GST_AX_API void gst_ax_model_query_set_input (GstQuery * query,
    const GstAxModelInput * input);
GST_AX_API gboolean gst_ax_model_query_parse_input (GstQuery * query,
    GstAxModelInput * input);
GST_AX_API void gst_ax_model_query_set_labels (GstQuery * query,
    const gchar * const *labels, guint n_labels);
GST_AX_API gboolean gst_ax_model_query_parse_labels (GstQuery * query,
    gchar *** labels);

G_END_DECLS

#endif /* __GST_AX_MODEL_QUERY_H__ */
