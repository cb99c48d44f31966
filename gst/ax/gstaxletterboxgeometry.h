/* gst-ax
 * Copyright (C) 2026 gst-ax developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

#ifndef __GST_AX_LETTERBOX_GEOMETRY_H__
#define __GST_AX_LETTERBOX_GEOMETRY_H__

#include <gst/ax/ax-prelude.h>

G_BEGIN_DECLS
/**
 * GST_AX_LETTERBOX_DEFAULT_FILL:
 *
 * The pad value used by Ultralytics-style letterboxing.
 */
#define GST_AX_LETTERBOX_DEFAULT_FILL 114
/**
 * GstAxLetterboxGeometry:
 * @src_x: left edge of the region of the frame that was letterboxed (0
 *   unless a crop, e.g. one ROI of a cascade)
 * @src_y: top edge of that region
 * @src_width: width of the region in pixels
 * @src_height: height of the region in pixels
 * @tensor_width: width of the tensor
 * @tensor_height: height of the tensor
 * @scale: the nominal source-to-tensor scale factor: the same in x and y
 *   for a letterbox, the smaller of the two for a stretch
 * @resized_width: width of the image content inside the tensor
 * @resized_height: height of the image content inside the tensor
 * @pad_x: pad columns to the left of the image content
 * @pad_y: pad rows above the image content
 * @fill: the pad value
 * @stretch: %TRUE when each axis was scaled to the tensor on its own
 *   (no padding, the aspect ratio not kept)
 * @scale_x: the exact x scale, @resized_width / @src_width: the one the
 *   resampler used and the mappings use
 * @scale_y: the exact y scale, @resized_height / @src_height
 *
 * Where a source region landed inside a model input tensor. Tensor
 * coordinates are in tensor pixels, source coordinates in frame pixels.
 * Pixel centres map to pixel centres: tensor column x samples the source
 * at (x + 0.5 - @pad_x) / @scale_x - 0.5 + @src_x, and the mappings below
 * are the same affine map on edge coordinates.
 */
    typedef struct
{
  gint src_x;
  gint src_y;
  gint src_width;
  gint src_height;
  gint tensor_width;
  gint tensor_height;
  gdouble scale;
  gint resized_width;
  gint resized_height;
  gint pad_x;
  gint pad_y;
  guint8 fill;
  gboolean stretch;
  gdouble scale_x;
  gdouble scale_y;
} GstAxLetterboxGeometry;

GST_AX_API gboolean gst_ax_letterbox_geometry_init (GstAxLetterboxGeometry * lb,
    gint src_width, gint src_height, gint tensor_width, gint tensor_height,
    gboolean centre, gboolean scale_up, guint8 fill);

GST_AX_API gboolean
gst_ax_letterbox_geometry_init_stretch (GstAxLetterboxGeometry * lb,
    gint src_width, gint src_height, gint tensor_width, gint tensor_height);

GST_AX_API void gst_ax_letterbox_geometry_to_source (const
    GstAxLetterboxGeometry * lb, gdouble tensor_x, gdouble tensor_y,
    gdouble * src_x, gdouble * src_y);

GST_AX_API void gst_ax_letterbox_geometry_to_tensor (const
    GstAxLetterboxGeometry * lb, gdouble src_x, gdouble src_y,
    gdouble * tensor_x, gdouble * tensor_y);

GST_AX_API void gst_ax_letterbox_geometry_box_to_source (const
    GstAxLetterboxGeometry * lb, const gdouble tensor_box[4],
    gdouble src_box[4], gint clamp_width, gint clamp_height);

GST_AX_API void gst_ax_letterbox_geometry_box_to_tensor (const
    GstAxLetterboxGeometry * lb, const gdouble src_box[4],
    gdouble tensor_box[4]);

G_END_DECLS
#endif /* __GST_AX_LETTERBOX_GEOMETRY_H__ */
