/* gst-ax
 * Copyright (C) 2026 gst-ax developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

/**
 * SECTION:gstaxletterbox
 * @title: GstAxLetterboxGeometry
 * @short_description: letterbox geometry between frame and tensor
 *
 * The geometry follows the Ultralytics letterbox exactly: one scale factor
 * r = min(tw / w, th / h) (capped at 1 without scale-up), content size
 * round(w * r) x round(h * r) with round-half-to-even, and when centred
 * the pad split as round(pad / 2 - 0.1) before and round(pad / 2 + 0.1)
 * after, so an odd pad puts the extra pixel after the content.
 */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstaxletterboxgeometry.h"

#include <string.h>

#include <math.h>

/* Ultralytics biases the two halves of an odd pad apart by this much so
 * that Python's round-half-to-even cannot give both the same pixel. */
#define PAD_SPLIT_BIAS 0.1

/**
 * gst_ax_letterbox_geometry_init:
 * @lb: the geometry to fill
 * @src_width: source region width, > 0
 * @src_height: source region height, > 0
 * @tensor_width: tensor width, > 0
 * @tensor_height: tensor height, > 0
 * @centre: centre the content (else top-left)
 * @scale_up: allow a scale factor above 1
 * @fill: the pad value
 *
 * Computes the letterbox of a source region into a tensor. The source
 * region starts at (0, 0); set @lb->src_x and @lb->src_y for a crop.
 *
 * Returns: %FALSE if a size is not positive
 *
 * Since: 0.2
 */
gboolean
gst_ax_letterbox_geometry_init (GstAxLetterboxGeometry * lb, gint src_width,
    gint src_height, gint tensor_width, gint tensor_height, gboolean centre,
    gboolean scale_up, guint8 fill)
{
  gdouble r, dw, dh;

  g_return_val_if_fail (lb != NULL, FALSE);
  if (src_width <= 0 || src_height <= 0 || tensor_width <= 0
      || tensor_height <= 0)
    return FALSE;

  r = MIN ((gdouble) tensor_width / src_width,
      (gdouble) tensor_height / src_height);
  if (!scale_up)
    r = MIN (r, 1.0);

  lb->src_x = 0;
  lb->src_y = 0;
  lb->src_width = src_width;
  lb->src_height = src_height;
  lb->tensor_width = tensor_width;
  lb->tensor_height = tensor_height;
  lb->scale = r;
  /* nearbyint rounds half to even in the default mode, like Python */
  lb->resized_width = CLAMP ((gint) nearbyint (src_width * r), 1, tensor_width);
  lb->resized_height = CLAMP ((gint) nearbyint (src_height * r), 1,
      tensor_height);
  lb->fill = fill;
  lb->stretch = FALSE;
  lb->scale_x = (gdouble) lb->resized_width / src_width;
  lb->scale_y = (gdouble) lb->resized_height / src_height;

  if (centre) {
    dw = (tensor_width - lb->resized_width) / 2.0;
    dh = (tensor_height - lb->resized_height) / 2.0;
    lb->pad_x = (gint) nearbyint (dw - PAD_SPLIT_BIAS);
    lb->pad_y = (gint) nearbyint (dh - PAD_SPLIT_BIAS);
  } else {
    lb->pad_x = 0;
    lb->pad_y = 0;
  }
  return TRUE;
}

/**
 * gst_ax_letterbox_geometry_init_stretch:
 * @lb: (out caller-allocates): the geometry
 * @src_width: source width, > 0
 * @src_height: source height, > 0
 * @tensor_width: tensor width, > 0
 * @tensor_height: tensor height, > 0
 *
 * Computes the geometry of a stretch: each axis of the source region is
 * scaled to the tensor on its own, with no padding (the "resize=stretch"
 * preprocessing of models trained on squashed frames). The source region
 * starts at (0, 0); set @lb->src_x and @lb->src_y for a crop.
 *
 * Returns: %FALSE if a size is not positive
 *
 * Since: 0.2
 */
gboolean
gst_ax_letterbox_geometry_init_stretch (GstAxLetterboxGeometry * lb,
    gint src_width, gint src_height, gint tensor_width, gint tensor_height)
{
  g_return_val_if_fail (lb != NULL, FALSE);
  if (src_width <= 0 || src_height <= 0 || tensor_width <= 0
      || tensor_height <= 0)
    return FALSE;

  memset (lb, 0, sizeof (*lb));
  lb->src_width = src_width;
  lb->src_height = src_height;
  lb->tensor_width = tensor_width;
  lb->tensor_height = tensor_height;
  lb->resized_width = tensor_width;
  lb->resized_height = tensor_height;
  lb->stretch = TRUE;
  lb->scale_x = (gdouble) tensor_width / src_width;
  lb->scale_y = (gdouble) tensor_height / src_height;
  lb->scale = MIN (lb->scale_x, lb->scale_y);
  return TRUE;
}

/**
 * gst_ax_letterbox_geometry_to_source:
 * @lb: the geometry
 * @tensor_x: x in tensor pixels
 * @tensor_y: y in tensor pixels
 * @src_x: (out): x in frame pixels
 * @src_y: (out): y in frame pixels
 *
 * Maps a point from tensor to frame coordinates.
 *
 * Since: 0.2
 */
void
gst_ax_letterbox_geometry_to_source (const GstAxLetterboxGeometry * lb,
    gdouble tensor_x, gdouble tensor_y, gdouble * src_x, gdouble * src_y)
{
  *src_x = (tensor_x - lb->pad_x) / lb->scale_x + lb->src_x;
  *src_y = (tensor_y - lb->pad_y) / lb->scale_y + lb->src_y;
}

/**
 * gst_ax_letterbox_geometry_to_tensor:
 * @lb: the geometry
 * @src_x: x in frame pixels
 * @src_y: y in frame pixels
 * @tensor_x: (out): x in tensor pixels
 * @tensor_y: (out): y in tensor pixels
 *
 * Maps a point from frame to tensor coordinates.
 *
 * Since: 0.2
 */
void
gst_ax_letterbox_geometry_to_tensor (const GstAxLetterboxGeometry * lb,
    gdouble src_x, gdouble src_y, gdouble * tensor_x, gdouble * tensor_y)
{
  *tensor_x = (src_x - lb->src_x) * lb->scale_x + lb->pad_x;
  *tensor_y = (src_y - lb->src_y) * lb->scale_y + lb->pad_y;
}

/**
 * gst_ax_letterbox_geometry_box_to_source:
 * @lb: the geometry
 * @tensor_box: (array fixed-size=4): x_min, y_min, x_max, y_max in
 *   tensor pixels
 * @src_box: (out caller-allocates) (array fixed-size=4): the box in
 *   frame pixels
 * @clamp_width: clamp x to [0, clamp_width]; 0 for no clamping
 * @clamp_height: clamp y to [0, clamp_height]; 0 for no clamping
 *
 * Maps a box from tensor to frame coordinates, optionally clamped to the
 * frame.
 *
 * Since: 0.2
 */
void
gst_ax_letterbox_geometry_box_to_source (const GstAxLetterboxGeometry * lb,
    const gdouble tensor_box[4], gdouble src_box[4], gint clamp_width,
    gint clamp_height)
{
  gst_ax_letterbox_geometry_to_source (lb, tensor_box[0], tensor_box[1],
      &src_box[0], &src_box[1]);
  gst_ax_letterbox_geometry_to_source (lb, tensor_box[2], tensor_box[3],
      &src_box[2], &src_box[3]);
  if (clamp_width > 0) {
    src_box[0] = CLAMP (src_box[0], 0.0, (gdouble) clamp_width);
    src_box[2] = CLAMP (src_box[2], 0.0, (gdouble) clamp_width);
  }
  if (clamp_height > 0) {
    src_box[1] = CLAMP (src_box[1], 0.0, (gdouble) clamp_height);
    src_box[3] = CLAMP (src_box[3], 0.0, (gdouble) clamp_height);
  }
}

/**
 * gst_ax_letterbox_geometry_box_to_tensor:
 * @lb: the geometry
 * @src_box: (array fixed-size=4): x_min, y_min, x_max, y_max in frame
 *   pixels
 * @tensor_box: (out caller-allocates) (array fixed-size=4): the box in
 *   tensor pixels
 *
 * Maps a box from frame to tensor coordinates.
 *
 * Since: 0.2
 */
void
gst_ax_letterbox_geometry_box_to_tensor (const GstAxLetterboxGeometry * lb,
    const gdouble src_box[4], gdouble tensor_box[4])
{
  gst_ax_letterbox_geometry_to_tensor (lb, src_box[0], src_box[1],
      &tensor_box[0], &tensor_box[1]);
  gst_ax_letterbox_geometry_to_tensor (lb, src_box[2], src_box[3],
      &tensor_box[2], &tensor_box[3]);
}
