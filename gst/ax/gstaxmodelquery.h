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
 *   value the real input the model's preprocessing makes of a pixel (see
 *   #GstAxModelPreprocess)
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

/**
 * GstAxColorOrder:
 * @GST_AX_COLOR_ORDER_RGB: three channels, red first
 * @GST_AX_COLOR_ORDER_BGR: three channels, blue first
 * @GST_AX_COLOR_ORDER_GRAY: one channel of luma
 *
 * The channel order of a model's input image.
 */
typedef enum
{
  GST_AX_COLOR_ORDER_RGB = 0,
  GST_AX_COLOR_ORDER_BGR = 1,
  GST_AX_COLOR_ORDER_GRAY = 2,
} GstAxColorOrder;

/**
 * GstAxResizeMode:
 * @GST_AX_RESIZE_LETTERBOX: keep the aspect ratio, pad centred with the
 *   fill value
 * @GST_AX_RESIZE_STRETCH: scale each axis to the input size on its own
 *
 * How a frame is resized to a model's input.
 */
typedef enum
{
  GST_AX_RESIZE_LETTERBOX = 0,
  GST_AX_RESIZE_STRETCH = 1,
} GstAxResizeMode;

/**
 * GstAxModelPreprocess:
 * @color: channel order
 * @resize: letterbox or stretch
 * @fill: letterbox pad value of every channel, 0 to 255
 * @scale: pixel scale
 * @mean: per-channel mean (in channel order)
 * @std: per-channel standard deviation, never 0
 *
 * How the model was trained to see pixels: channel c of a pixel value p
 * (0 to 255) becomes the real value (p * @scale - @mean[c]) / @std[c],
 * which the input's own scale and zero point then quantise. A model that
 * stores no preprocessing is read as RGB, letterbox, fill 114, @scale
 * 1/255, mean 0 and std 1 (gst_ax_model_preprocess_init_default()).
 */
typedef struct
{
  GstAxColorOrder color;
  GstAxResizeMode resize;
  guint8 fill;
  gfloat scale;
  gfloat mean[3];
  gfloat std[3];
} GstAxModelPreprocess;

/**
 * GST_AX_MODEL_PATH_ENV:
 *
 * The environment variable of extra model directories (colon-separated),
 * searched first for a model given by name.
 */
#define GST_AX_MODEL_PATH_ENV "GST_AX_MODEL_PATH"

/**
 * GST_AX_MODEL_SUFFIX:
 *
 * The file name suffix of compiled models.
 */
#define GST_AX_MODEL_SUFFIX ".axm"

GST_AX_API gchar *gst_ax_model_find (const gchar * model, gchar ** tried);

GST_AX_API void gst_ax_model_preprocess_init_default (GstAxModelPreprocess *
    preprocess);
GST_AX_API void gst_ax_model_query_set_preprocess (GstQuery * query,
    const GstAxModelPreprocess * preprocess);
GST_AX_API gboolean gst_ax_model_query_parse_preprocess (GstQuery * query,
    GstAxModelPreprocess * preprocess);
GST_AX_API void gst_ax_model_query_set_decoder (GstQuery * query,
    const gchar * decoder_json);
GST_AX_API gboolean gst_ax_model_query_parse_decoder (GstQuery * query,
    gchar ** decoder_json);

G_END_DECLS

#endif /* __GST_AX_MODEL_QUERY_H__ */
