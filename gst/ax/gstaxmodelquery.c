/* gst-ax
 * Copyright (C) 2026 gst-ax developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

/**
 * SECTION:gstaxmodelquery
 * @title: GstAxModelQuery
 * @short_description: asking downstream for the model's input spec
 *
 * A custom downstream query. axletterbox sends it when its size or dtype
 * is left to default; axinference answers it with the loaded model's
 * input tensor spec, so a plain `axletterbox ! axinference model=...`
 * needs no properties.
 */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstaxmodelquery.h"

/**
 * gst_ax_model_query_new:
 *
 * Returns: (transfer full): an unanswered model input query
 */
GstQuery *
gst_ax_model_query_new (void)
{
  return gst_query_new_custom (GST_QUERY_CUSTOM,
      gst_structure_new_empty (GST_AX_MODEL_QUERY_NAME));
}

/**
 * gst_ax_model_query_is:
 * @query: a query
 *
 * Returns: whether @query is a model input query
 */
gboolean
gst_ax_model_query_is (GstQuery * query)
{
  const GstStructure *s;

  if (GST_QUERY_TYPE (query) != GST_QUERY_CUSTOM)
    return FALSE;
  s = gst_query_get_structure (query);
  return s != NULL && gst_structure_has_name (s, GST_AX_MODEL_QUERY_NAME);
}

/**
 * gst_ax_model_query_set_input:
 * @query: a writable model input query
 * @input: the answer
 *
 * Answers the query.
 */
void
gst_ax_model_query_set_input (GstQuery * query, const GstAxModelInput * input)
{
  GstStructure *s;

  g_return_if_fail (gst_ax_model_query_is (query));

  s = gst_query_writable_structure (query);
  gst_structure_set (s,
      "width", G_TYPE_INT, input->width,
      "height", G_TYPE_INT, input->height,
      "channels", G_TYPE_INT, input->channels,
      "dtype", G_TYPE_STRING, gst_ax_tensor_dtype_to_string (input->dtype),
      "layout", G_TYPE_STRING,
      input->layout == GST_AX_TENSOR_LAYOUT_NCHW ? "nchw" : "nhwc",
      "scale", G_TYPE_DOUBLE, (gdouble) input->scale,
      "zero-point", G_TYPE_INT, input->zero_point,
      "name", G_TYPE_STRING, input->name ? input->name : "",
      "model-name", G_TYPE_STRING,
      input->model_name ? input->model_name : "", NULL);
}

/**
 * gst_ax_model_query_parse_input:
 * @query: an answered model input query
 * @input: (out): the answer
 *
 * Returns: %FALSE if nobody answered the query or the answer is incomplete
 */
gboolean
gst_ax_model_query_parse_input (GstQuery * query, GstAxModelInput * input)
{
  const GstStructure *s;
  const gchar *dtype, *layout;
  gdouble scale;

  g_return_val_if_fail (gst_ax_model_query_is (query), FALSE);

  s = gst_query_get_structure (query);
  dtype = gst_structure_get_string (s, "dtype");
  layout = gst_structure_get_string (s, "layout");
  if (!gst_structure_get_int (s, "width", &input->width) ||
      !gst_structure_get_int (s, "height", &input->height) ||
      !gst_structure_get_int (s, "channels", &input->channels) ||
      !gst_structure_get_double (s, "scale", &scale) ||
      !gst_structure_get_int (s, "zero-point", &input->zero_point) ||
      dtype == NULL || layout == NULL ||
      !gst_ax_tensor_dtype_from_string (dtype, &input->dtype))
    return FALSE;

  input->scale = scale;
  input->layout = g_str_equal (layout, "nchw") ?
      GST_AX_TENSOR_LAYOUT_NCHW : GST_AX_TENSOR_LAYOUT_NHWC;
  input->name = g_intern_string (gst_structure_get_string (s, "name"));
  input->model_name =
      g_intern_string (gst_structure_get_string (s, "model-name"));
  return TRUE;
}
