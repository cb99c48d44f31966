/* gst-ax
 * Copyright (C) 2026 gst-ax developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

#ifndef __GST_AX_DETECTION_H__
#define __GST_AX_DETECTION_H__

#include <gst/ax/ax-prelude.h>
#include <gst/video/video.h>

G_BEGIN_DECLS

/**
 * GST_AX_DETECTION_PARAM_NAME:
 *
 * Name of the parameter structure a detection carries on its
 * #GstVideoRegionOfInterestMeta.
 */
#define GST_AX_DETECTION_PARAM_NAME "detection"

/**
 * GST_AX_LANDMARKS_PARAM_NAME:
 *
 * The name of the ROI parameter structure that holds a detection's
 * keypoints (e.g. BlazeFace's eyes, nose, mouth and ears): a field
 * "points", an array of floats x0, y0, x1, y1, ... normalised to the
 * frame's width and height.
 */
#define GST_AX_LANDMARKS_PARAM_NAME "landmarks"

/**
 * GST_AX_CLASSIFICATION_PARAM_NAME:
 *
 * The name of the ROI parameter structures that hold a classification of
 * the region (e.g. the emotion of a face): fields label (string),
 * label_id (uint) and confidence (double, 0..1). A region classified with
 * top-k > 1 carries one structure per rank, best first.
 */
#define GST_AX_CLASSIFICATION_PARAM_NAME "classification"

/**
 * GST_AX_FRAME_ROI_TYPE:
 *
 * The roi_type of the #GstVideoRegionOfInterestMeta covering the whole
 * frame that carries a classification of the whole frame (a classifier
 * run on a whole-frame tensor). It has no "detection" parameters, so
 * gst_ax_detection_iterate() skips it.
 */
#define GST_AX_FRAME_ROI_TYPE "frame"

/**
 * GstAxClassification:
 * @label_id: the class index
 * @confidence: the class probability, 0..1
 * @label: (nullable): the class name; interned
 *
 * One class of a classification.
 */
typedef struct
{
  guint label_id;
  gfloat confidence;
  const gchar *label;
} GstAxClassification;

/**
 * GstAxDetection:
 * @label_id: the class index
 * @confidence: the score, 0..1
 * @x_min: left edge, normalised to the frame width (0..1)
 * @y_min: top edge, normalised to the frame height
 * @x_max: right edge, normalised
 * @y_max: bottom edge, normalised
 * @label: (nullable): the class name; interned
 *
 * One detection on a frame.
 */
typedef struct
{
  guint label_id;
  gfloat confidence;
  gfloat x_min;
  gfloat y_min;
  gfloat x_max;
  gfloat y_max;
  const gchar *label;
} GstAxDetection;

/**
 * GST_AX_TYPE_DETECTION:
 *
 * The boxed type of #GstAxDetection, for language bindings
 * (gst_ax_detection_get_all()).
 *
 * Since: 0.2
 */
#define GST_AX_TYPE_DETECTION (gst_ax_detection_get_type ())

GST_AX_API GType gst_ax_detection_get_type (void);
GST_AX_API GstAxDetection *gst_ax_detection_copy (const GstAxDetection *
    detection);
GST_AX_API void gst_ax_detection_free (GstAxDetection * detection);
GST_AX_API GList *gst_ax_detection_get_all (GstBuffer * buffer);

GST_AX_API GstVideoRegionOfInterestMeta *gst_ax_detection_add (GstBuffer *
    buffer, const GstAxDetection * detection, guint frame_width,
    guint frame_height);

GST_AX_API gboolean gst_ax_detection_from_roi (GstVideoRegionOfInterestMeta *
    roi, GstAxDetection * detection);

GST_AX_API gboolean gst_ax_detection_iterate (GstBuffer * buffer,
    gpointer * state, GstAxDetection * detection,
    GstVideoRegionOfInterestMeta ** roi);

GST_AX_API guint gst_ax_detection_count (GstBuffer * buffer);

GST_AX_API void gst_ax_detection_set_landmarks (GstVideoRegionOfInterestMeta *
    roi, const gfloat * points, guint n_points);

GST_AX_API guint gst_ax_detection_get_landmarks (GstVideoRegionOfInterestMeta *
    roi, gfloat * points, guint max_points);

GST_AX_API gint gst_ax_roi_next_id (GstBuffer * buffer);

GST_AX_API void
gst_ax_detection_add_classification (GstVideoRegionOfInterestMeta * roi,
    const GstAxClassification * classification);

GST_AX_API gboolean
gst_ax_detection_get_classification (GstVideoRegionOfInterestMeta * roi,
    guint rank, GstAxClassification * classification);

GST_AX_API GstVideoRegionOfInterestMeta *
gst_ax_detection_get_frame_roi (GstBuffer * buffer, gboolean create,
    guint frame_width, guint frame_height);

G_END_DECLS

#endif /* __GST_AX_DETECTION_H__ */
