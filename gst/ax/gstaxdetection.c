/* gst-ax
 * Copyright (C) 2026 gst-ax developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

/**
 * SECTION:gstaxdetection
 * @title: GstAxDetection
 * @short_description: detections as region-of-interest metas
 *
 * A detection is a #GstVideoRegionOfInterestMeta whose roi_type is the
 * label and which carries a "detection" parameter structure with the
 * fields label_id (uint), confidence (double), x_min, y_min, x_max, y_max
 * (double, normalised to the frame) and label (string). Any element that
 * reads ROI metas can read ours; these helpers read and write them.
 *
 * Each detection gets an id (#GstVideoRegionOfInterestMeta.id) unique on
 * its frame, by which a tensor cropped from it (#GstAxTensorMeta.roi_id)
 * and the classification made of that tensor find their way back to it.
 */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstaxdetection.h"

#include <math.h>

/**
 * gst_ax_detection_add:
 * @buffer: a writable frame
 * @detection: the detection, with normalised coordinates
 * @frame_width: the frame width in pixels
 * @frame_height: the frame height in pixels
 *
 * Attaches a detection to a frame. The ROI's pixel rectangle is the
 * normalised box scaled to the frame, clamped to it.
 *
 * Returns: (transfer none): the ROI meta
 *
 * Since: 0.2
 */
GstVideoRegionOfInterestMeta *
gst_ax_detection_add (GstBuffer * buffer, const GstAxDetection * detection,
    guint frame_width, guint frame_height)
{
  GstVideoRegionOfInterestMeta *roi;
  GstStructure *s;
  gdouble x0, y0, x1, y1;
  const gchar *label;
  gchar label_buf[32];
  gint id;

  g_return_val_if_fail (GST_IS_BUFFER (buffer), NULL);
  g_return_val_if_fail (detection != NULL, NULL);

  x0 = CLAMP (detection->x_min, 0.0, 1.0) * frame_width;
  y0 = CLAMP (detection->y_min, 0.0, 1.0) * frame_height;
  x1 = CLAMP (detection->x_max, 0.0, 1.0) * frame_width;
  y1 = CLAMP (detection->y_max, 0.0, 1.0) * frame_height;

  label = detection->label;
  if (label == NULL) {
    g_snprintf (label_buf, sizeof (label_buf), "class%u", detection->label_id);
    label = label_buf;
  }

  /* taken before adding, so that the new ROI does not count itself */
  id = gst_ax_roi_next_id (buffer);
  roi = gst_buffer_add_video_region_of_interest_meta (buffer, label,
      (guint) lround (x0), (guint) lround (y0),
      (guint) MAX (lround (x1) - lround (x0), 0),
      (guint) MAX (lround (y1) - lround (y0), 0));
  roi->id = id;

  s = gst_structure_new (GST_AX_DETECTION_PARAM_NAME,
      "label_id", G_TYPE_UINT, detection->label_id,
      "confidence", G_TYPE_DOUBLE, (gdouble) detection->confidence,
      "x_min", G_TYPE_DOUBLE, (gdouble) detection->x_min,
      "y_min", G_TYPE_DOUBLE, (gdouble) detection->y_min,
      "x_max", G_TYPE_DOUBLE, (gdouble) detection->x_max,
      "y_max", G_TYPE_DOUBLE, (gdouble) detection->y_max,
      "label", G_TYPE_STRING, label, NULL);
  gst_video_region_of_interest_meta_add_param (roi, s);
  return roi;
}

/**
 * gst_ax_detection_from_roi:
 * @roi: a region-of-interest meta
 * @detection: (out): the detection
 *
 * Reads the detection carried by @roi.
 *
 * Returns: %FALSE if @roi has no "detection" parameters
 *
 * Since: 0.2
 */
gboolean
gst_ax_detection_from_roi (GstVideoRegionOfInterestMeta * roi,
    GstAxDetection * detection)
{
  GstStructure *s;
  gdouble v;

  s = gst_video_region_of_interest_meta_get_param (roi,
      GST_AX_DETECTION_PARAM_NAME);
  if (s == NULL)
    return FALSE;

  if (!gst_structure_get_uint (s, "label_id", &detection->label_id))
    return FALSE;
  if (!gst_structure_get_double (s, "confidence", &v))
    return FALSE;
  detection->confidence = v;
  if (!gst_structure_get_double (s, "x_min", &v))
    return FALSE;
  detection->x_min = v;
  if (!gst_structure_get_double (s, "y_min", &v))
    return FALSE;
  detection->y_min = v;
  if (!gst_structure_get_double (s, "x_max", &v))
    return FALSE;
  detection->x_max = v;
  if (!gst_structure_get_double (s, "y_max", &v))
    return FALSE;
  detection->y_max = v;
  detection->label = g_intern_string (gst_structure_get_string (s, "label"));
  return TRUE;
}

/**
 * gst_ax_detection_iterate: (skip)
 * @buffer: a frame
 * @state: (inout): %NULL-initialised iteration state
 * @detection: (out): the next detection
 * @roi: (out) (optional) (transfer none): its ROI meta
 *
 * Iterates the detections on a frame, in the order they were added.
 * ROI metas without detection parameters are skipped. Bindings, which
 * cannot hold the opaque @state, read gst_ax_detection_get_all() instead.
 *
 * Returns: %FALSE when there are no more detections
 *
 * Since: 0.2
 */
gboolean
gst_ax_detection_iterate (GstBuffer * buffer, gpointer * state,
    GstAxDetection * detection, GstVideoRegionOfInterestMeta ** roi)
{
  GstMeta *meta;

  while ((meta = gst_buffer_iterate_meta_filtered (buffer, state,
              GST_VIDEO_REGION_OF_INTEREST_META_API_TYPE))) {
    GstVideoRegionOfInterestMeta *r = (GstVideoRegionOfInterestMeta *) meta;

    if (gst_ax_detection_from_roi (r, detection)) {
      if (roi)
        *roi = r;
      return TRUE;
    }
  }
  return FALSE;
}

/* the label is interned, so a copy shares it */
G_DEFINE_BOXED_TYPE (GstAxDetection, gst_ax_detection, gst_ax_detection_copy,
    gst_ax_detection_free);

/**
 * gst_ax_detection_copy:
 * @detection: a detection
 *
 * Returns: (transfer full): a copy of @detection, freed with
 *   gst_ax_detection_free()
 *
 * Since: 0.2
 */
GstAxDetection *
gst_ax_detection_copy (const GstAxDetection * detection)
{
  g_return_val_if_fail (detection != NULL, NULL);
  return g_memdup2 (detection, sizeof (GstAxDetection));
}

/**
 * gst_ax_detection_free:
 * @detection: (transfer full) (nullable): a detection from
 *   gst_ax_detection_copy() or gst_ax_detection_get_all()
 *
 * Since: 0.2
 */
void
gst_ax_detection_free (GstAxDetection * detection)
{
  g_free (detection);
}

/**
 * gst_ax_detection_get_all:
 * @buffer: a frame
 *
 * The detections on a frame, in the order they were added, as
 * gst_ax_detection_iterate() walks them, in one list: the form language
 * bindings read (in Python, a list of #GstAxDetection). The pixel box of
 * each is its ROI's: the normalised box times the frame size.
 *
 * Returns: (transfer full) (element-type GstAxDetection): the detections,
 *   %NULL (the empty list) when there are none; free with
 *   `g_list_free_full (list, (GDestroyNotify) gst_ax_detection_free)`
 *
 * Since: 0.2
 */
GList *
gst_ax_detection_get_all (GstBuffer * buffer)
{
  GList *all = NULL;
  gpointer state = NULL;
  GstAxDetection det;

  g_return_val_if_fail (GST_IS_BUFFER (buffer), NULL);

  while (gst_ax_detection_iterate (buffer, &state, &det, NULL))
    all = g_list_prepend (all, gst_ax_detection_copy (&det));
  return g_list_reverse (all);
}

/**
 * gst_ax_detection_count:
 * @buffer: a frame
 *
 * Returns: the number of detections on @buffer
 *
 * Since: 0.2
 */
guint
gst_ax_detection_count (GstBuffer * buffer)
{
  gpointer state = NULL;
  GstAxDetection det;
  guint n = 0;

  while (gst_ax_detection_iterate (buffer, &state, &det, NULL))
    n++;
  return n;
}

/**
 * gst_ax_detection_set_landmarks: (skip)
 * @roi: a detection's ROI meta
 * @points: (array): @n_points pairs x, y, normalised to the frame (0..1)
 * @n_points: how many points
 *
 * Attaches the detection's keypoints to its ROI as the "landmarks"
 * parameter structure, replacing any there.
 *
 * Since: 0.2
 */
void
gst_ax_detection_set_landmarks (GstVideoRegionOfInterestMeta * roi,
    const gfloat * points, guint n_points)
{
  GValue array = G_VALUE_INIT, v = G_VALUE_INIT;
  GstStructure *s;
  GList *l;
  guint i;

  g_return_if_fail (roi != NULL);
  g_return_if_fail (points != NULL || n_points == 0);

  for (l = roi->params; l != NULL; l = l->next)
    if (gst_structure_has_name (l->data, GST_AX_LANDMARKS_PARAM_NAME)) {
      gst_structure_free (l->data);
      roi->params = g_list_delete_link (roi->params, l);
      break;
    }

  gst_value_array_init (&array, 2 * n_points);
  g_value_init (&v, G_TYPE_FLOAT);
  for (i = 0; i < 2 * n_points; i++) {
    g_value_set_float (&v, points[i]);
    gst_value_array_append_value (&array, &v);
  }
  g_value_unset (&v);
  s = gst_structure_new_empty (GST_AX_LANDMARKS_PARAM_NAME);
  gst_structure_take_value (s, "points", &array);
  gst_video_region_of_interest_meta_add_param (roi, s);
}

/**
 * gst_ax_detection_get_landmarks: (skip)
 * @roi: a ROI meta
 * @points: (out caller-allocates) (array) (nullable): room for
 *   @max_points pairs x, y, normalised to the frame
 * @max_points: the room in @points
 *
 * Reads the "landmarks" of a detection. Call with @max_points 0 to count.
 * Bindings, which cannot size an array of pairs, read the "points" field
 * of the ROI's #GST_AX_LANDMARKS_PARAM_NAME parameter structure.
 *
 * Returns: how many points the ROI carries (0 when none or malformed);
 *   at most @max_points of them are written
 *
 * Since: 0.2
 */
guint
gst_ax_detection_get_landmarks (GstVideoRegionOfInterestMeta * roi,
    gfloat * points, guint max_points)
{
  GstStructure *s;
  const GValue *array;
  guint n, i;

  g_return_val_if_fail (roi != NULL, 0);
  g_return_val_if_fail (points != NULL || max_points == 0, 0);

  s = gst_video_region_of_interest_meta_get_param (roi,
      GST_AX_LANDMARKS_PARAM_NAME);
  if (s == NULL)
    return 0;
  array = gst_structure_get_value (s, "points");
  if (array == NULL || !GST_VALUE_HOLDS_ARRAY (array))
    return 0;
  n = gst_value_array_get_size (array);
  if (n % 2 != 0)
    return 0;
  for (i = 0; i < n; i++)
    if (!G_VALUE_HOLDS_FLOAT (gst_value_array_get_value (array, i)))
      return 0;
  for (i = 0; i < MIN (n, 2 * max_points); i++)
    points[i] = g_value_get_float (gst_value_array_get_value (array, i));
  return n / 2;
}

/**
 * gst_ax_roi_next_id:
 * @buffer: a frame
 *
 * Returns: an id that no #GstVideoRegionOfInterestMeta on @buffer has:
 *   one more than the largest, 0 on a frame without ROIs
 *
 * Since: 0.2
 */
gint
gst_ax_roi_next_id (GstBuffer * buffer)
{
  gpointer state = NULL;
  GstMeta *meta;
  gint next = 0;

  g_return_val_if_fail (GST_IS_BUFFER (buffer), 0);

  while ((meta = gst_buffer_iterate_meta_filtered (buffer, &state,
              GST_VIDEO_REGION_OF_INTEREST_META_API_TYPE))) {
    gint id = ((GstVideoRegionOfInterestMeta *) meta)->id;

    if (id >= next && id < G_MAXINT)
      next = id + 1;
  }
  return next;
}

/**
 * gst_ax_detection_add_classification:
 * @roi: a ROI meta (a detection, or the frame's ROI)
 * @classification: one class and its probability
 *
 * Appends a "classification" parameter structure to @roi. Add the ranks
 * of a top-k classification best first.
 *
 * Since: 0.2
 */
void
gst_ax_detection_add_classification (GstVideoRegionOfInterestMeta * roi,
    const GstAxClassification * classification)
{
  GstStructure *s;
  gchar label_buf[32];
  const gchar *label;

  g_return_if_fail (roi != NULL);
  g_return_if_fail (classification != NULL);

  label = classification->label;
  if (label == NULL) {
    g_snprintf (label_buf, sizeof (label_buf), "class%u",
        classification->label_id);
    label = label_buf;
  }
  s = gst_structure_new (GST_AX_CLASSIFICATION_PARAM_NAME,
      "label", G_TYPE_STRING, label,
      "label_id", G_TYPE_UINT, classification->label_id,
      "confidence", G_TYPE_DOUBLE, (gdouble) classification->confidence, NULL);
  gst_video_region_of_interest_meta_add_param (roi, s);
}

/**
 * gst_ax_detection_get_classification:
 * @roi: a ROI meta
 * @rank: 0 for the best class, 1 for the next, ...
 * @classification: (out): the class at @rank
 *
 * Returns: %FALSE if @roi has fewer than @rank + 1 well-formed
 *   "classification" structures
 *
 * Since: 0.2
 */
gboolean
gst_ax_detection_get_classification (GstVideoRegionOfInterestMeta * roi,
    guint rank, GstAxClassification * classification)
{
  GList *l;
  guint n = 0;

  g_return_val_if_fail (roi != NULL, FALSE);
  g_return_val_if_fail (classification != NULL, FALSE);

  for (l = roi->params; l != NULL; l = l->next) {
    GstStructure *s = l->data;
    gdouble confidence;

    if (!gst_structure_has_name (s, GST_AX_CLASSIFICATION_PARAM_NAME))
      continue;
    if (n++ != rank)
      continue;
    if (!gst_structure_get_uint (s, "label_id", &classification->label_id)
        || !gst_structure_get_double (s, "confidence", &confidence))
      return FALSE;
    classification->confidence = confidence;
    classification->label =
        g_intern_string (gst_structure_get_string (s, "label"));
    return TRUE;
  }
  return FALSE;
}

/**
 * gst_ax_detection_get_frame_roi:
 * @buffer: a frame (writable when @create is set)
 * @create: whether to add the frame's ROI when there is none
 * @frame_width: the frame width in pixels (used when creating)
 * @frame_height: the frame height in pixels (used when creating)
 *
 * The ROI of roi_type %GST_AX_FRAME_ROI_TYPE covering the whole frame,
 * which carries the classifications of whole-frame tensors.
 *
 * Returns: (transfer none) (nullable): the frame's ROI
 *
 * Since: 0.2
 */
GstVideoRegionOfInterestMeta *
gst_ax_detection_get_frame_roi (GstBuffer * buffer, gboolean create,
    guint frame_width, guint frame_height)
{
  GQuark frame_type = g_quark_from_static_string (GST_AX_FRAME_ROI_TYPE);
  GstVideoRegionOfInterestMeta *roi;
  gpointer state = NULL;
  GstMeta *meta;
  gint id;

  g_return_val_if_fail (GST_IS_BUFFER (buffer), NULL);

  while ((meta = gst_buffer_iterate_meta_filtered (buffer, &state,
              GST_VIDEO_REGION_OF_INTEREST_META_API_TYPE))) {
    roi = (GstVideoRegionOfInterestMeta *) meta;
    if (roi->roi_type == frame_type)
      return roi;
  }
  if (!create)
    return NULL;
  id = gst_ax_roi_next_id (buffer);
  roi = gst_buffer_add_video_region_of_interest_meta_id (buffer, frame_type,
      0, 0, frame_width, frame_height);
  roi->id = id;
  return roi;
}
