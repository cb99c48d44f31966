/* gst-ax
 * Copyright (C) 2026 gst-ax developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

/* Internal to axletterbox (and its tests and bench): the pixel engine that
 * turns a video frame into a model's input tensor in one pass: sampling
 * tables, YUV matrix, row kernels (AVX2 and portable), quantisation and
 * the pad fill. It knows no GStreamer element: axletterbox resolves the
 * tensor spec (properties, the model query) and the geometry, creates a
 * context from them and calls render per frame, as videoconvertscale does
 * with GstVideoConverter. */

#ifndef __GST_AX_LETTERBOX_RENDER_H__
#define __GST_AX_LETTERBOX_RENDER_H__

#include <gst/ax/ax.h>
#include <gst/video/video.h>

G_BEGIN_DECLS

/**
 * GstAxLetterboxRenderParams:
 * @width: tensor width in pixels
 * @height: tensor height in pixels
 * @dtype: element type of the tensor
 * @layout: NHWC or NCHW
 * @scale: quantisation scale, q = round (value / scale) + zero point
 * @zero_point: quantisation zero point
 * @zero_point_offset: added before the rounding: what a u8 "pixel input"
 *   of sim-npu's compiler leaves out of its integer zero point (0.5 for
 *   BlazeFace), 0 for other inputs
 * @preprocess: the model's preprocessing: colour order (gray makes one
 *   channel), fill value, pixel scale, mean and std; @resize is not read
 *   (the geometry says it)
 * @bilinear: bilinear sampling, else nearest
 * @portable: run the portable kernels even on a CPU with AVX2
 */
typedef struct
{
  gint width;
  gint height;
  GstAxTensorDType dtype;
  GstAxTensorLayout layout;
  gfloat scale;
  gint32 zero_point;
  gdouble zero_point_offset;
  GstAxModelPreprocess preprocess;
  gboolean bilinear;
  gboolean portable;
} GstAxLetterboxRenderParams;

typedef struct _GstAxLetterboxRender GstAxLetterboxRender;

/* 3, or 1 for gray */
gint gst_ax_letterbox_render_channels (GstAxColorOrder color);

/* The bytes of a tensor of @params. */
gsize gst_ax_letterbox_render_tensor_size (const GstAxLetterboxRenderParams *
    params);

/* A context for frames of @info (YUV: the matrix and range of its
 * colorimetry; UNKNOWN ones take BT.601 limited range) into tensors of
 * @params, with the region @lb (NULL: set one with _set_region before
 * rendering). All tables and scratch are allocated here, none per frame. */
GstAxLetterboxRender *gst_ax_letterbox_render_new (const GstVideoInfo * info,
    const GstAxLetterboxRenderParams * params, const GstAxLetterboxGeometry * lb);

/* Recomputes the sampling tables for the region @lb of the frame (a ROI
 * crop: src_x, src_y set); its resized size is at most the tensor's. */
void gst_ax_letterbox_render_set_region (GstAxLetterboxRender * render,
    const GstAxLetterboxGeometry * lb);

/* Writes the tensor of @frame (of the context's info) for the current
 * region into @tensor, gst_ax_letterbox_render_tensor_size() bytes. */
void gst_ax_letterbox_render_frame (GstAxLetterboxRender * render,
    const GstVideoFrame * frame, guint8 * tensor);

/* The byte offset in the @buffer_size bytes of @frame's buffer of a
 * tensor that is the frame's own bytes for the current region, or -1:
 * then the tensor must be rendered. */
gssize gst_ax_letterbox_render_shared_offset (const GstAxLetterboxRender *
    render, const GstVideoFrame * frame, gsize buffer_size);

void gst_ax_letterbox_render_free (GstAxLetterboxRender * render);

G_END_DECLS
#endif /* __GST_AX_LETTERBOX_RENDER_H__ */
