/* gst-ax
 * Copyright (C) 2026 gst-ax developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

/* Internal to axnms (and its tests and bench): decoding of YOLO detection
 * heads and greedy NMS, free of GStreamer objects so it can be measured and
 * checked on its own. */

#ifndef __GST_AX_NMS_DECODE_H__
#define __GST_AX_NMS_DECODE_H__

#include <glib.h>
#include <gst/ax/gstaxtensormeta.h>

G_BEGIN_DECLS

/**
 * GstAxNmsDecodeKind:
 * @GST_AX_NMS_DECODE_YOLOV8: `[1, 4 + nc, anchors]`, class scores only
 * @GST_AX_NMS_DECODE_YOLOV5: `[1, anchors, 5 + nc]`, objectness at 4,
 *   score = objectness x class score
 */
typedef enum
{
  GST_AX_NMS_DECODE_YOLOV8,
  GST_AX_NMS_DECODE_YOLOV5,
} GstAxNmsDecodeKind;

/**
 * GstAxNmsBoxFormat:
 * @GST_AX_NMS_BOX_XYWH: centre x, centre y, width, height
 * @GST_AX_NMS_BOX_LTRB: corners left, top, right, bottom
 */
typedef enum
{
  GST_AX_NMS_BOX_XYWH,
  GST_AX_NMS_BOX_LTRB,
} GstAxNmsBoxFormat;

typedef struct
{
  GstAxNmsDecodeKind kind;
  GstAxNmsBoxFormat box_format;
  gfloat score_threshold;
  gfloat iou_threshold;
  guint max_detections;
  gboolean class_agnostic;
  /* decoded coordinates are multiplied by these: 1 for boxes in tensor
   * pixels, the tensor size for boxes normalised to 0..1 */
  gfloat box_scale_x;
  gfloat box_scale_y;
} GstAxNmsParams;

/* One model output, already validated against the decode kind. */
typedef struct
{
  gconstpointer data;
  GstAxTensorDType dtype;
  gfloat scale;
  gint32 zero_point;
  guint n_anchors;
  guint n_classes;
} GstAxNmsInput;

typedef struct
{
  gfloat x0, y0, x1, y1;
  gfloat score;
  guint class_id;
  guint anchor;
} GstAxNmsResult;

typedef struct _GstAxNmsWork GstAxNmsWork;

GstAxNmsWork *gst_ax_nms_work_new (void);
void gst_ax_nms_work_free (GstAxNmsWork * work);

gboolean gst_ax_nms_input_from_meta (const GstAxTensorMeta * meta,
    GstAxNmsDecodeKind kind, GstAxNmsInput * input, gchar ** error);

guint gst_ax_nms_run (GstAxNmsWork * work, const GstAxNmsParams * params,
    const GstAxNmsInput * input, GstAxNmsResult * results, guint max_results);

G_END_DECLS

#endif /* __GST_AX_NMS_DECODE_H__ */
