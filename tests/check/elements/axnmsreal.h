/* gst-ax
 * Copyright (C) 2026 gst-ax developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

/* A real model's outputs on a real frame, for axnms's test and bench:
 * decodes one frame of a file, resizes it to the model input as the
 * model's stored preprocessing says (stretch or centred letterbox with its
 * fill, nearest pixel; RGB models only), maps pixel p to the real value
 * (p x scale - mean) / std, quantises it with the input's scale and zero
 * point, and runs it through axinference in a harness. It does not use
 * axletterbox, so that the decoder is checked on its own. */

#ifndef __AX_NMS_REAL_H__
#define __AX_NMS_REAL_H__

#include <gst/app/gstappsink.h>
#include <gst/ax/ax.h>
#include <gst/check/gstharness.h>
#include <math.h>

/* The @index-th frame of @path as packed RGB, or NULL. */
static inline GstSample *
real_load_rgb_frame (const gchar * path, guint index)
{
  gchar *desc = g_strdup_printf ("filesrc location=\"%s\" ! decodebin ! "
      "videoconvert ! video/x-raw,format=RGB ! appsink name=sink sync=false",
      path);
  GstElement *pipe = gst_parse_launch (desc, NULL);
  GstSample *sample = NULL;
  GstElement *sink;
  guint i;

  g_free (desc);
  if (pipe == NULL)
    return NULL;
  sink = gst_bin_get_by_name (GST_BIN (pipe), "sink");
  gst_element_set_state (pipe, GST_STATE_PLAYING);
  for (i = 0; i <= index; i++) {
    if (sample)
      gst_sample_unref (sample);
    sample = gst_app_sink_pull_sample (GST_APP_SINK (sink));
    if (sample == NULL)
      break;
  }
  gst_element_set_state (pipe, GST_STATE_NULL);
  gst_object_unref (sink);
  gst_object_unref (pipe);
  return sample;
}

/* @sample's frame with the input tensor of the model of @h (a harness
 * whose first element is axinference) and its geometry; sets the
 * harness's caps. NULL if the model does not answer or is not RGB. */
static inline GstBuffer *
real_model_input (GstHarness * h, GstSample * sample)
{
  GstVideoInfo vi;
  GstVideoFrame vf;
  GstQuery *q;
  GstAxModelInput spec;
  GstAxModelPreprocess pp;
  GstAxLetterboxGeometry lb;
  GstBuffer *frame, *tdata;
  GstMapInfo map;
  GstAxTensorMeta *m;
  gint64 dims[4];
  gint x, y, c;

  gst_video_info_from_caps (&vi, gst_sample_get_caps (sample));
  gst_harness_set_src_caps (h, gst_caps_copy (gst_sample_get_caps (sample)));
  q = gst_ax_model_query_new ();
  if (!gst_pad_peer_query (h->srcpad, q)
      || !gst_ax_model_query_parse_input (q, &spec)
      || spec.channels != 3) {
    gst_query_unref (q);
    return NULL;
  }

  if (!gst_ax_model_query_parse_preprocess (q, &pp))
    gst_ax_model_preprocess_init_default (&pp);
  if (pp.color != GST_AX_COLOR_ORDER_RGB) {
    gst_query_unref (q);
    return NULL;
  }
  if (pp.resize == GST_AX_RESIZE_STRETCH)
    gst_ax_letterbox_geometry_init_stretch (&lb, vi.width, vi.height,
        spec.width, spec.height);
  else
    gst_ax_letterbox_geometry_init (&lb, vi.width, vi.height, spec.width,
        spec.height, TRUE, TRUE, pp.fill);

  tdata = gst_buffer_new_allocate (NULL, (gsize) spec.width * spec.height *
      3 * gst_ax_tensor_dtype_size (spec.dtype), NULL);
  gst_buffer_map (tdata, &map, GST_MAP_WRITE);
  gst_video_frame_map (&vf, &vi, gst_sample_get_buffer (sample), GST_MAP_READ);
  for (y = 0; y < spec.height; y++) {
    for (x = 0; x < spec.width; x++) {
      gdouble fx, fy;
      gint sx, sy;
      const guint8 *px = NULL;

      gst_ax_letterbox_geometry_to_source (&lb, x + 0.5, y + 0.5, &fx, &fy);
      sx = (gint) floor (fx);
      sy = (gint) floor (fy);
      if (sx >= 0 && sy >= 0 && sx < vi.width && sy < vi.height)
        px = (const guint8 *) GST_VIDEO_FRAME_PLANE_DATA (&vf, 0)
        + (gsize) sy *GST_VIDEO_FRAME_PLANE_STRIDE (&vf, 0) + 3 * sx;
      for (c = 0; c < 3; c++) {
        gdouble p = px ? px[c] : pp.fill;
        gdouble real = (p * pp.scale - pp.mean[c]) / pp.std[c];
        glong v = lrint (real / spec.scale) + spec.zero_point;
        gsize i = ((gsize) y * spec.width + x) * 3 + c;
        /* a model with a preamble takes the float input, unrounded */
        if (spec.dtype == GST_AX_TENSOR_DTYPE_F32)
          ((gfloat *) map.data)[i] = (gfloat) (real / spec.scale +
              spec.zero_point);
        else if (spec.dtype == GST_AX_TENSOR_DTYPE_I8)
          ((gint8 *) map.data)[i] = CLAMP (v, G_MININT8, G_MAXINT8);
        else
          map.data[i] = CLAMP (v, 0, G_MAXUINT8);
      }
    }
  }
  gst_video_frame_unmap (&vf);
  gst_buffer_unmap (tdata, &map);

  frame = gst_buffer_copy (gst_sample_get_buffer (sample));
  dims[0] = 1;
  dims[1] = spec.height;
  dims[2] = spec.width;
  dims[3] = 3;
  m = gst_buffer_add_ax_tensor_meta (frame, spec.name,
      GST_AX_TENSOR_ROLE_INPUT, spec.dtype, spec.layout, 4, dims, spec.scale,
      spec.zero_point, tdata);
  m->letterbox = lb;
  m->has_letterbox = TRUE;
  gst_query_unref (q);
  return frame;
}

/* Runs @model on @sample's frame; returns the frame with the output
 * tensor metas, or NULL if the model is not available. */
static inline GstBuffer *
real_model_outputs (const gchar * model, GstSample * sample)
{
  gchar *desc = g_strdup_printf ("axinference model=%s", model);
  GstHarness *h = gst_harness_new_parse (desc);
  GstBuffer *frame, *out = NULL;

  g_free (desc);
  frame = real_model_input (h, sample);
  if (frame)
    out = gst_harness_push_and_pull (h, frame);
  gst_harness_teardown (h);
  return out;
}

#endif /* __AX_NMS_REAL_H__ */
