/* gst-ax
 * Copyright (C) 2026 gst-ax developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

/* Internal to axnms (and its tests and bench): decoding of detection heads
 * (YOLO, CenterNet, anchor-based SSD) and NMS, free of GStreamer objects so
 * it can be measured and checked on its own. The pipeline accuracy tests
 * run the float executor's outputs through this same code. */

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
 * @GST_AX_NMS_DECODE_CENTERNET: a heat-map `[1, H, W, nc]` (scores after
 *   their sigmoid) and distances `[1, H, W, 4]` (left, top, right, bottom
 *   in input pixels from the cell's point, stride x cell): 3x3 peaks,
 *   top-k, then NMS
 * @GST_AX_NMS_DECODE_SSD: per level of anchors, score logits
 *   `[1, anchors, 1]` and regressors `[1, anchors, 4 + 2 x keypoints]`
 *   (centre offset and size, then keypoint offsets, in input pixels from
 *   the anchor centre), anchors generated from strides and anchors per
 *   cell
 * @GST_AX_NMS_DECODE_N_KINDS: not a kind: the number of kinds, the size
 *   of the table of decoders (gstaxnmsdecode.c)
 *
 * Each kind is a row of that table, defined in its own file.
 */
typedef enum
{
  GST_AX_NMS_DECODE_YOLOV8,
  GST_AX_NMS_DECODE_YOLOV5,
  GST_AX_NMS_DECODE_CENTERNET,
  GST_AX_NMS_DECODE_SSD,
  GST_AX_NMS_DECODE_N_KINDS,
} GstAxNmsDecodeKind;

/* Bounds of what the metadata may ask for. */
#define GST_AX_NMS_MAX_INPUTS 8
#define GST_AX_NMS_MAX_LEVELS 8
#define GST_AX_NMS_MAX_KEYPOINTS 16
#define GST_AX_NMS_MAX_NAME 128

/**
 * GstAxNmsSuppression:
 * @GST_AX_NMS_SUPPRESS_HARD: greedy NMS: drop every box that overlaps a
 *   kept, better one
 * @GST_AX_NMS_SUPPRESS_WEIGHTED: MediaPipe's weighted NMS: each kept box
 *   (and its keypoints) is the score-weighted mean of the boxes it
 *   suppresses
 */
typedef enum
{
  GST_AX_NMS_SUPPRESS_HARD,
  GST_AX_NMS_SUPPRESS_WEIGHTED,
} GstAxNmsSuppression;

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

  /* the model's outputs, in the order the decode kind reads them (YOLO:
   * the one head; CenterNet: heat-map, distances; SSD: the score tensor
   * of each level, then the regressor tensor of each level); empty names
   * take the outputs in the model's order */
  guint n_input_names;
  gchar input_names[GST_AX_NMS_MAX_INPUTS][GST_AX_NMS_MAX_NAME];
  /* the model input size, in tensor pixels */
  guint input_width;
  guint input_height;
  GstAxNmsSuppression suppression;

  /* CenterNet */
  guint stride;
  guint peak_kernel;
  guint top_k;

  /* SSD */
  guint n_levels;
  guint strides[GST_AX_NMS_MAX_LEVELS];
  guint anchors_per_cell[GST_AX_NMS_MAX_LEVELS];
  /* anchor centre of cell (x, y): ((x + anchor_offset) x input width /
   * grid width, (y + anchor_offset_y) x ...), grid = ceil (input / stride),
   * as MediaPipe's anchor_offset_x / anchor_offset_y */
  gfloat anchor_offset;
  gfloat anchor_offset_y;
  guint n_keypoints;
  gboolean sigmoid_scores;
} GstAxNmsParams;

/* One model output, already validated against the decode kind. For SSD,
 * n_classes is the values per anchor (classes of a score tensor,
 * regressors of a box tensor). */
typedef struct
{
  gconstpointer data;
  GstAxTensorDType dtype;
  gfloat scale;
  gint32 zero_point;
  guint n_anchors;
  guint n_classes;
  /* the spatial grid of a CenterNet output (n_anchors = height x width);
   * 0 for the other kinds */
  guint height;
  guint width;
  /* which of the metas given to gst_ax_nms_inputs_from_metas() it is
   * (the caller maps that tensor's data into @data) */
  guint meta_index;
} GstAxNmsInput;

typedef struct
{
  gfloat x0, y0, x1, y1;
  gfloat score;
  guint class_id;
  guint anchor;
  /* keypoints x, y in tensor pixels (SSD with keypoints; else 0) */
  guint n_keypoints;
  gfloat keypoints[2 * GST_AX_NMS_MAX_KEYPOINTS];
} GstAxNmsResult;

typedef struct _GstAxNmsWork GstAxNmsWork;

GstAxNmsWork *gst_ax_nms_work_new (void);
void gst_ax_nms_work_free (GstAxNmsWork * work);

gboolean gst_ax_nms_input_from_meta (const GstAxTensorMeta * meta,
    GstAxNmsDecodeKind kind, GstAxNmsInput * input, gchar ** error);

guint gst_ax_nms_run (GstAxNmsWork * work, const GstAxNmsParams * params,
    const GstAxNmsInput * input, GstAxNmsResult * results, guint max_results);

/* The name of a kind (the "type" of its metadata, the nick of axnms's
 * decode property) and a line saying what it decodes; NULL for a value
 * that is no kind. */
const gchar *gst_ax_nms_decode_kind_name (GstAxNmsDecodeKind kind);
const gchar *gst_ax_nms_decode_kind_description (GstAxNmsDecodeKind kind);

/* Defaults of every field (YOLOv8, the element's property defaults). */
void gst_ax_nms_params_init (GstAxNmsParams * params);

/* Sets the decode kind and its parameters from a model's decoder metadata
 * (gst_ax_model_query_parse_decoder()); fields the metadata does not name
 * keep their values. FALSE with a message naming what is wrong for
 * malformed or unsupported metadata. */
gboolean gst_ax_nms_params_from_json (GstAxNmsParams * params,
    const gchar * decoder_json, gchar ** error);

/* Every output the decode kind reads, from a frame's output tensors
 * (picked by the names in params, or in order), validated. */
gboolean gst_ax_nms_inputs_from_metas (const GstAxNmsParams * params,
    const GstAxTensorMeta * const *metas, guint n_metas,
    GstAxNmsInput * inputs, guint * n_inputs, gchar ** error);

/* Decodes and suppresses any kind; results (in tensor pixels) best
 * first. Allocates nothing once the work has grown to the model. */
guint gst_ax_nms_run_multi (GstAxNmsWork * work,
    const GstAxNmsParams * params, const GstAxNmsInput * inputs,
    guint n_inputs, GstAxNmsResult * results, guint max_results);

G_END_DECLS

#endif /* __GST_AX_NMS_DECODE_H__ */
