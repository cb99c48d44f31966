/* gst-ax
 * Copyright (C) 2026 gst-ax developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

/**
 * SECTION:element-axnms
 * @title: axnms
 *
 * Decodes the output tensors of a detection head riding on each frame
 * (#GstAxTensorMeta of role output, as attached by axinference),
 * thresholds them, runs non-maximum suppression per class (or across
 * classes), maps the boxes (and keypoints) back to frame coordinates
 * through the letterbox or stretch geometry of the matching input tensor,
 * and attaches one #GstVideoRegionOfInterestMeta per detection (see
 * gst_ax_detection_add()), with a "landmarks" parameter for keypoints
 * (gst_ax_detection_set_landmarks()). The tensors it consumed are removed
 * from the frame unless #GstAxNms:keep-tensors is set. The frame itself is
 * not changed. Each detection is logged at INFO level
 * (`GST_DEBUG=axnms:4`), which the axprof tracer tolerates.
 *
 * Four head layouts are understood:
 * - `yolov8`: `[1, 4 + classes, anchors]`, class scores already
 *   activated; box rows are xywh (centre and size) by default or ltrb
 *   (corners) with #GstAxNms:box-format.
 * - `yolov5`: `[1, anchors, 5 + classes]`, objectness in column 4; a
 *   detection's score is objectness x class score.
 * - `centernet`: a heat-map `[1, H, W, classes]` and distances
 *   `[1, H, W, 4]`; 3x3 peaks of the heat-map, the best #GstAxNms:top-k,
 *   boxes at the distances from the peak's point.
 * - `ssd`: score and regressor tensors per group of anchors, anchors
 *   generated from MediaPipe-style options, box and keypoint regressors,
 *   sigmoid scores; hard or weighted (#GstAxNms:suppression) NMS.
 *
 * Quantised (int8, uint8) and float tensors are accepted.
 *
 * The decoder configures itself from the model: at caps, axnms asks
 * upstream with the model query (see gst_ax_model_query_new()), and
 * axinference answers with the model's decoder metadata (a JSON object
 * stored in the model: decoder type, output names, strides or anchors,
 * thresholds) and class labels. Properties that the user set override
 * the metadata; the others do not. Without metadata, axnms decodes
 * `yolov8` with the property defaults. Metadata that is malformed, names
 * an output the model does not have, or describes a non-detector is an
 * element error saying what was wrong (unless #GstAxNms:decode is set).
 *
 * Detections are labelled from the #GstAxNms:labels file when it is set,
 * else from the model's labels, so `axinference model=ball-detector !
 * axnms` labels its detections "ball". Classes without a label are
 * labelled classN.
 *
 * ## Example launch line
 * |[
 * gst-launch-1.0 videotestsrc pattern=ball num-buffers=100 ! axletterbox ! \
 *   axinference model=ball-detector ! axnms score-threshold=0.4 ! \
 *   axoverlay ! autovideosink
 * gst-launch-1.0 filesrc location=vtest.avi ! decodebin ! videoconvert ! \
 *   axletterbox ! axinference model=centernet-coco ! axnms ! axoverlay ! \
 *   videoconvert ! autovideosink
 * ]|
 */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstaxnms.h"
#include "gstaxnmsdecode.h"
#include "simnpu-file.h"

#include <gst/ax/ax.h>
#include <gst/video/video.h>
#include <string.h>

GST_DEBUG_CATEGORY_STATIC (gst_ax_nms_debug);
#define GST_CAT_DEFAULT gst_ax_nms_debug

#define GST_TYPE_AX_NMS_DECODE (gst_ax_nms_decode_get_type ())
#define GST_TYPE_AX_NMS_BOX_FORMAT (gst_ax_nms_box_format_get_type ())
#define GST_TYPE_AX_NMS_BOX_UNITS (gst_ax_nms_box_units_get_type ())
#define GST_TYPE_AX_NMS_SUPPRESSION (gst_ax_nms_suppression_get_type ())

typedef enum
{
  GST_AX_NMS_BOX_UNITS_PIXELS,
  GST_AX_NMS_BOX_UNITS_NORMALIZED,
} GstAxNmsBoxUnits;

struct _GstAxNms
{
  GstBaseTransform parent;

  /* properties, protected by the object lock */
  gfloat score_threshold;
  gfloat iou_threshold;
  guint max_detections;
  gboolean class_agnostic;
  gchar *labels_path;
  gboolean keep_tensors;
  GstAxNmsBoxFormat box_format;
  GstAxNmsDecodeKind decode;
  GstAxNmsBoxUnits box_units;
  guint top_k;
  GstAxNmsSuppression suppression;
  /* which of the properties above the user set: those override the
   * model's decoder metadata (one bit per PROP_ id) */
  guint32 props_set;

  /* streaming thread only */
  GstVideoInfo vinfo;
  gboolean have_vinfo;
  GstAxNmsWork *work;
  GstAxNmsResult *results;
  guint results_size;
  GPtrArray *consumed;          /* metas to remove, reused per frame */
  gboolean warned_no_letterbox;

  /* set in start (), read by the streaming thread */
  GPtrArray *labels;            /* interned strings */
  gboolean labels_from_file;
  /* the model's labels when no file is set: asked upstream in set_caps,
   * streaming thread only; interned strings */
  GPtrArray *model_labels;
  /* the defaults updated by the model's decoder metadata (asked upstream
   * in set_caps), before the properties the user set; streaming thread
   * only */
  GstAxNmsParams model_params;
  gboolean have_model_decoder;
  gchar *decoder_error;         /* why the metadata was refused */
};

G_DEFINE_TYPE (GstAxNms, gst_ax_nms, GST_TYPE_BASE_TRANSFORM);
GST_ELEMENT_REGISTER_DEFINE_WITH_CODE (axnms, "axnms", GST_RANK_NONE,
    GST_TYPE_AX_NMS, GST_DEBUG_CATEGORY_INIT (gst_ax_nms_debug, "axnms", 0,
        "Detection decoding and non-maximum suppression"));

#define DEFAULT_PROP_SCORE_THRESHOLD 0.25f
#define DEFAULT_PROP_IOU_THRESHOLD 0.45f
#define DEFAULT_PROP_MAX_DETECTIONS 300
#define DEFAULT_PROP_CLASS_AGNOSTIC FALSE
#define DEFAULT_PROP_LABELS NULL
#define DEFAULT_PROP_KEEP_TENSORS FALSE
#define DEFAULT_PROP_BOX_FORMAT GST_AX_NMS_BOX_XYWH
#define DEFAULT_PROP_DECODE GST_AX_NMS_DECODE_YOLOV8
#define DEFAULT_PROP_BOX_UNITS GST_AX_NMS_BOX_UNITS_PIXELS
#define DEFAULT_PROP_TOP_K 100
#define DEFAULT_PROP_SUPPRESSION GST_AX_NMS_SUPPRESS_HARD

/* CenterNet peaks kept before NMS, at most */
#define MAX_TOP_K 100000
/* output tensors of one model instance the element looks at */
#define MAX_OUTPUTS 32

/* no frame has more detections than this, whatever max-detections says */
#define MAX_DETECTIONS_LIMIT 100000

enum
{
  PROP_0,
  PROP_SCORE_THRESHOLD,
  PROP_IOU_THRESHOLD,
  PROP_MAX_DETECTIONS,
  PROP_CLASS_AGNOSTIC,
  PROP_LABELS,
  PROP_KEEP_TENSORS,
  PROP_BOX_FORMAT,
  PROP_DECODE,
  PROP_BOX_UNITS,
  PROP_TOP_K,
  PROP_SUPPRESSION,
};

#define PROP_BIT(id) (1u << (id))

static GstStaticPadTemplate sink_template = GST_STATIC_PAD_TEMPLATE ("sink",
    GST_PAD_SINK, GST_PAD_ALWAYS, GST_STATIC_CAPS ("video/x-raw(ANY)"));
static GstStaticPadTemplate src_template = GST_STATIC_PAD_TEMPLATE ("src",
    GST_PAD_SRC, GST_PAD_ALWAYS, GST_STATIC_CAPS ("video/x-raw(ANY)"));

/* The values of decode, one per row of the table of decoders
 * (gstaxnmsdecode.c). */
static GType
gst_ax_nms_decode_get_type (void)
{
  static GType type = 0;
  /* the last stays zero: the terminator */
  static GEnumValue values[GST_AX_NMS_DECODE_N_KINDS + 1];

  if (g_once_init_enter (&type)) {
    GType t;
    gint k;

    for (k = 0; k < GST_AX_NMS_DECODE_N_KINDS; k++) {
      values[k].value = k;
      values[k].value_name = gst_ax_nms_decode_kind_description (k);
      values[k].value_nick = gst_ax_nms_decode_kind_name (k);
    }
    t = g_enum_register_static ("GstAxNmsDecode", values);
    g_once_init_leave (&type, t);
  }
  return type;
}

static GType
gst_ax_nms_box_format_get_type (void)
{
  static GType type = 0;
  static const GEnumValue values[] = {
    {GST_AX_NMS_BOX_XYWH, "Centre x, centre y, width, height", "xywh"},
    {GST_AX_NMS_BOX_LTRB, "Corners: left, top, right, bottom", "ltrb"},
    {0, NULL, NULL}
  };

  if (g_once_init_enter (&type)) {
    GType t = g_enum_register_static ("GstAxNmsBoxFormat", values);
    g_once_init_leave (&type, t);
  }
  return type;
}

static GType
gst_ax_nms_suppression_get_type (void)
{
  static GType type = 0;
  static const GEnumValue values[] = {
    {GST_AX_NMS_SUPPRESS_HARD,
        "Greedy: drop every box that overlaps a better one", "hard"},
    {GST_AX_NMS_SUPPRESS_WEIGHTED,
        "MediaPipe's weighted: each kept box is the score-weighted mean of "
          "the boxes it overlaps", "weighted"},
    {0, NULL, NULL}
  };

  if (g_once_init_enter (&type)) {
    GType t = g_enum_register_static ("GstAxNmsSuppression", values);
    g_once_init_leave (&type, t);
  }
  return type;
}

static GType
gst_ax_nms_box_units_get_type (void)
{
  static GType type = 0;
  static const GEnumValue values[] = {
    {GST_AX_NMS_BOX_UNITS_PIXELS, "Pixels of the model input tensor",
        "pixels"},
    {GST_AX_NMS_BOX_UNITS_NORMALIZED,
        "Fractions (0..1) of the model input width and height", "normalized"},
    {0, NULL, NULL}
  };

  if (g_once_init_enter (&type)) {
    GType t = g_enum_register_static ("GstAxNmsBoxUnits", values);
    g_once_init_leave (&type, t);
  }
  return type;
}

static void gst_ax_nms_finalize (GObject * object);
static void gst_ax_nms_set_property (GObject * object, guint prop_id,
    const GValue * value, GParamSpec * pspec);
static void gst_ax_nms_get_property (GObject * object, guint prop_id,
    GValue * value, GParamSpec * pspec);
static gboolean gst_ax_nms_start (GstBaseTransform * trans);
static gboolean gst_ax_nms_stop (GstBaseTransform * trans);
static gboolean gst_ax_nms_set_caps (GstBaseTransform * trans,
    GstCaps * incaps, GstCaps * outcaps);
static GstFlowReturn gst_ax_nms_transform_ip (GstBaseTransform * trans,
    GstBuffer * buf);

static void
gst_ax_nms_class_init (GstAxNmsClass * klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  GstElementClass *element_class = GST_ELEMENT_CLASS (klass);
  GstBaseTransformClass *trans_class = GST_BASE_TRANSFORM_CLASS (klass);

  gobject_class->finalize = gst_ax_nms_finalize;
  gobject_class->set_property = gst_ax_nms_set_property;
  gobject_class->get_property = gst_ax_nms_get_property;

  g_object_class_install_property (gobject_class, PROP_SCORE_THRESHOLD,
      g_param_spec_float ("score-threshold", "Score threshold",
          "Keep anchors (CenterNet: peaks) whose best class score (YOLOv5: "
          "objectness and objectness x class score; SSD: after the sigmoid) "
          "is above this. Default: the model's decoder metadata, else 0.25",
          0.0f, 1.0f,
          DEFAULT_PROP_SCORE_THRESHOLD,
          G_PARAM_READWRITE | GST_PARAM_MUTABLE_PLAYING |
          G_PARAM_STATIC_STRINGS));
  g_object_class_install_property (gobject_class, PROP_IOU_THRESHOLD,
      g_param_spec_float ("iou-threshold", "IoU threshold",
          "Suppress a box whose intersection over union with a better box "
          "of the same class is above this. Default: the model's decoder "
          "metadata, else 0.45", 0.0f, 1.0f,
          DEFAULT_PROP_IOU_THRESHOLD,
          G_PARAM_READWRITE | GST_PARAM_MUTABLE_PLAYING |
          G_PARAM_STATIC_STRINGS));
  g_object_class_install_property (gobject_class, PROP_MAX_DETECTIONS,
      g_param_spec_uint ("max-detections", "Maximum detections",
          "At most this many detections per model instance and frame, best "
          "first. Default: the model's decoder metadata, else 300", 1,
          MAX_DETECTIONS_LIMIT, DEFAULT_PROP_MAX_DETECTIONS,
          G_PARAM_READWRITE | GST_PARAM_MUTABLE_PLAYING |
          G_PARAM_STATIC_STRINGS));
  g_object_class_install_property (gobject_class, PROP_CLASS_AGNOSTIC,
      g_param_spec_boolean ("class-agnostic", "Class agnostic",
          "Suppress overlapping boxes across classes, not only within one. "
          "Default: the model's decoder metadata, else false",
          DEFAULT_PROP_CLASS_AGNOSTIC,
          G_PARAM_READWRITE | GST_PARAM_MUTABLE_PLAYING |
          G_PARAM_STATIC_STRINGS));
  g_object_class_install_property (gobject_class, PROP_LABELS,
      g_param_spec_string ("labels", "Labels file",
          "Path of a text file with one class label per line (class 0 "
          "first); without it the model's labels are asked upstream "
          "(axinference answers), else detections are labelled classN",
          DEFAULT_PROP_LABELS,
          G_PARAM_READWRITE | GST_PARAM_MUTABLE_READY |
          G_PARAM_STATIC_STRINGS));
  g_object_class_install_property (gobject_class, PROP_KEEP_TENSORS,
      g_param_spec_boolean ("keep-tensors", "Keep tensors",
          "Leave the decoded output tensors and their input tensor on the "
          "frame instead of removing them", DEFAULT_PROP_KEEP_TENSORS,
          G_PARAM_READWRITE | GST_PARAM_MUTABLE_PLAYING |
          G_PARAM_STATIC_STRINGS));
  g_object_class_install_property (gobject_class, PROP_BOX_FORMAT,
      g_param_spec_enum ("box-format", "Box format",
          "How the four box values of a YOLOv8/YOLOv5 head are laid out. "
          "Default: the model's decoder metadata, else xywh",
          GST_TYPE_AX_NMS_BOX_FORMAT, DEFAULT_PROP_BOX_FORMAT,
          G_PARAM_READWRITE | GST_PARAM_MUTABLE_PLAYING |
          G_PARAM_STATIC_STRINGS));
  g_object_class_install_property (gobject_class, PROP_DECODE,
      g_param_spec_enum ("decode", "Decode",
          "Layout of the detection head. Default: the \"type\" of the "
          "model's decoder metadata (asked upstream; axinference answers), "
          "else yolov8. Setting it ignores metadata of another type",
          GST_TYPE_AX_NMS_DECODE,
          DEFAULT_PROP_DECODE,
          G_PARAM_READWRITE | GST_PARAM_MUTABLE_PLAYING |
          G_PARAM_STATIC_STRINGS));
  g_object_class_install_property (gobject_class, PROP_BOX_UNITS,
      g_param_spec_enum ("box-units", "Box units",
          "Whether box values are model input pixels or fractions of the "
          "model input size", GST_TYPE_AX_NMS_BOX_UNITS,
          DEFAULT_PROP_BOX_UNITS,
          G_PARAM_READWRITE | GST_PARAM_MUTABLE_PLAYING |
          G_PARAM_STATIC_STRINGS));
  g_object_class_install_property (gobject_class, PROP_TOP_K,
      g_param_spec_uint ("top-k", "Top k",
          "CenterNet: the best peaks kept before NMS. Default: the model's "
          "decoder metadata, else 100", 1, MAX_TOP_K, DEFAULT_PROP_TOP_K,
          G_PARAM_READWRITE | GST_PARAM_MUTABLE_PLAYING |
          G_PARAM_STATIC_STRINGS));
  g_object_class_install_property (gobject_class, PROP_SUPPRESSION,
      g_param_spec_enum ("suppression", "Suppression",
          "How overlapping boxes are suppressed. Default: the model's "
          "decoder metadata, else hard", GST_TYPE_AX_NMS_SUPPRESSION,
          DEFAULT_PROP_SUPPRESSION,
          G_PARAM_READWRITE | GST_PARAM_MUTABLE_PLAYING |
          G_PARAM_STATIC_STRINGS));

  gst_element_class_add_static_pad_template (element_class, &sink_template);
  gst_element_class_add_static_pad_template (element_class, &src_template);
  gst_element_class_set_static_metadata (element_class,
      "Detection decoder and NMS", "Filter/Analyzer/Video",
      "Decodes detection tensors (YOLO, CenterNet, SSD) as the model's "
      "metadata describes, runs non-maximum suppression and attaches the "
      "detections (and keypoints) as region-of-interest metas",
      "gst-ax developers");

  trans_class->start = GST_DEBUG_FUNCPTR (gst_ax_nms_start);
  trans_class->stop = GST_DEBUG_FUNCPTR (gst_ax_nms_stop);
  trans_class->set_caps = GST_DEBUG_FUNCPTR (gst_ax_nms_set_caps);
  trans_class->transform_ip = GST_DEBUG_FUNCPTR (gst_ax_nms_transform_ip);
  trans_class->passthrough_on_same_caps = FALSE;
  trans_class->transform_ip_on_passthrough = FALSE;

  gst_type_mark_as_plugin_api (GST_TYPE_AX_NMS_DECODE, 0);
  gst_type_mark_as_plugin_api (GST_TYPE_AX_NMS_BOX_FORMAT, 0);
  gst_type_mark_as_plugin_api (GST_TYPE_AX_NMS_BOX_UNITS, 0);
  gst_type_mark_as_plugin_api (GST_TYPE_AX_NMS_SUPPRESSION, 0);
}

static void
gst_ax_nms_init (GstAxNms * self)
{
  self->score_threshold = DEFAULT_PROP_SCORE_THRESHOLD;
  self->iou_threshold = DEFAULT_PROP_IOU_THRESHOLD;
  self->max_detections = DEFAULT_PROP_MAX_DETECTIONS;
  self->class_agnostic = DEFAULT_PROP_CLASS_AGNOSTIC;
  self->labels_path = g_strdup (DEFAULT_PROP_LABELS);
  self->keep_tensors = DEFAULT_PROP_KEEP_TENSORS;
  self->box_format = DEFAULT_PROP_BOX_FORMAT;
  self->decode = DEFAULT_PROP_DECODE;
  self->box_units = DEFAULT_PROP_BOX_UNITS;
  self->top_k = DEFAULT_PROP_TOP_K;
  self->suppression = DEFAULT_PROP_SUPPRESSION;
  gst_ax_nms_params_init (&self->model_params);
  self->work = gst_ax_nms_work_new ();
  self->consumed = g_ptr_array_new ();
  gst_video_info_init (&self->vinfo);
  gst_base_transform_set_in_place (GST_BASE_TRANSFORM (self), TRUE);
}

static void
gst_ax_nms_finalize (GObject * object)
{
  GstAxNms *self = GST_AX_NMS (object);

  g_free (self->labels_path);
  g_free (self->decoder_error);
  gst_ax_nms_work_free (self->work);
  g_free (self->results);
  g_ptr_array_unref (self->consumed);
  if (self->labels)
    g_ptr_array_unref (self->labels);
  if (self->model_labels)
    g_ptr_array_unref (self->model_labels);

  G_OBJECT_CLASS (gst_ax_nms_parent_class)->finalize (object);
}

static void
gst_ax_nms_set_property (GObject * object, guint prop_id,
    const GValue * value, GParamSpec * pspec)
{
  GstAxNms *self = GST_AX_NMS (object);

  GST_OBJECT_LOCK (self);
  switch (prop_id) {
    case PROP_SCORE_THRESHOLD:
      self->score_threshold = g_value_get_float (value);
      break;
    case PROP_IOU_THRESHOLD:
      self->iou_threshold = g_value_get_float (value);
      break;
    case PROP_MAX_DETECTIONS:
      self->max_detections = g_value_get_uint (value);
      break;
    case PROP_CLASS_AGNOSTIC:
      self->class_agnostic = g_value_get_boolean (value);
      break;
    case PROP_LABELS:
      g_free (self->labels_path);
      self->labels_path = g_value_dup_string (value);
      break;
    case PROP_KEEP_TENSORS:
      self->keep_tensors = g_value_get_boolean (value);
      break;
    case PROP_BOX_FORMAT:
      self->box_format = g_value_get_enum (value);
      break;
    case PROP_DECODE:
      self->decode = g_value_get_enum (value);
      break;
    case PROP_BOX_UNITS:
      self->box_units = g_value_get_enum (value);
      break;
    case PROP_TOP_K:
      self->top_k = g_value_get_uint (value);
      break;
    case PROP_SUPPRESSION:
      self->suppression = g_value_get_enum (value);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      GST_OBJECT_UNLOCK (self);
      return;
  }
  self->props_set |= PROP_BIT (prop_id);
  GST_OBJECT_UNLOCK (self);
}

static void
gst_ax_nms_get_property (GObject * object, guint prop_id, GValue * value,
    GParamSpec * pspec)
{
  GstAxNms *self = GST_AX_NMS (object);

  GST_OBJECT_LOCK (self);
  switch (prop_id) {
    case PROP_SCORE_THRESHOLD:
      g_value_set_float (value, self->score_threshold);
      break;
    case PROP_IOU_THRESHOLD:
      g_value_set_float (value, self->iou_threshold);
      break;
    case PROP_MAX_DETECTIONS:
      g_value_set_uint (value, self->max_detections);
      break;
    case PROP_CLASS_AGNOSTIC:
      g_value_set_boolean (value, self->class_agnostic);
      break;
    case PROP_LABELS:
      g_value_set_string (value, self->labels_path);
      break;
    case PROP_KEEP_TENSORS:
      g_value_set_boolean (value, self->keep_tensors);
      break;
    case PROP_BOX_FORMAT:
      g_value_set_enum (value, self->box_format);
      break;
    case PROP_DECODE:
      g_value_set_enum (value, self->decode);
      break;
    case PROP_BOX_UNITS:
      g_value_set_enum (value, self->box_units);
      break;
    case PROP_TOP_K:
      g_value_set_uint (value, self->top_k);
      break;
    case PROP_SUPPRESSION:
      g_value_set_enum (value, self->suppression);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
  GST_OBJECT_UNLOCK (self);
}

static GPtrArray *
load_labels (const gchar * path, GError ** error)
{
  gchar *contents, **lines;
  GPtrArray *labels;
  guint i, n;

  /* a regular file of bounded size: a FIFO would block the start until
   * some writer comes, /dev/zero would fill memory */
  if (!simnpu__file_read (path, "labels file", SIMNPU_FILE_MAX_LABELS_BYTES,
          &contents, NULL, error))
    return NULL;
  lines = g_strsplit (contents, "\n", -1);
  g_free (contents);

  n = g_strv_length (lines);
  /* a final newline does not start another label */
  if (n > 0 && lines[n - 1][0] == '\0')
    n--;
  labels = g_ptr_array_sized_new (n);
  for (i = 0; i < n; i++) {
    g_strchomp (lines[i]);
    g_ptr_array_add (labels, (gpointer) g_intern_string (lines[i]));
  }
  g_strfreev (lines);
  return labels;
}

static gboolean
gst_ax_nms_start (GstBaseTransform * trans)
{
  GstAxNms *self = GST_AX_NMS (trans);
  gchar *path;
  GError *err = NULL;

  GST_OBJECT_LOCK (self);
  path = g_strdup (self->labels_path);
  GST_OBJECT_UNLOCK (self);

  if (self->labels) {
    g_ptr_array_unref (self->labels);
    self->labels = NULL;
  }
  if (path != NULL && path[0] != '\0') {
    self->labels = load_labels (path, &err);
    if (self->labels == NULL)
      goto labels_failed;
    GST_INFO_OBJECT (self, "%u labels from %s", self->labels->len, path);
  }
  self->labels_from_file = self->labels != NULL;
  g_clear_pointer (&self->model_labels, g_ptr_array_unref);
  self->warned_no_letterbox = FALSE;
  g_free (path);
  return TRUE;

  /* ERRORS */
labels_failed:
  {
    GST_ELEMENT_ERROR (self, RESOURCE, OPEN_READ,
        ("Could not read the labels file \"%s\".", path),
        ("expected a text file with one label per line: %s", err->message));
    g_clear_error (&err);
    g_free (path);
    return FALSE;
  }
}

static gboolean
gst_ax_nms_stop (GstBaseTransform * trans)
{
  GstAxNms *self = GST_AX_NMS (trans);

  self->have_vinfo = FALSE;
  g_clear_pointer (&self->model_labels, g_ptr_array_unref);
  return TRUE;
}

/* Asks upstream for the model's class labels (without a labels file) and
 * its decoder metadata. Nobody answering is not an error: detections are
 * then labelled classN and decoded with the properties. */
static void
query_model (GstAxNms * self)
{
  GstQuery *query;
  gchar **names = NULL, *json = NULL, *why = NULL;
  gboolean answered;
  guint i;

  g_clear_pointer (&self->model_labels, g_ptr_array_unref);
  g_clear_pointer (&self->decoder_error, g_free);
  gst_ax_nms_params_init (&self->model_params);
  self->have_model_decoder = FALSE;

  query = gst_ax_model_query_new ();
  answered = gst_pad_peer_query (GST_BASE_TRANSFORM_SINK_PAD (self), query);
  if (!self->labels_from_file) {
    if (answered && gst_ax_model_query_parse_labels (query, &names)) {
      self->model_labels = g_ptr_array_sized_new (g_strv_length (names));
      for (i = 0; names[i] != NULL; i++)
        g_ptr_array_add (self->model_labels,
            (gpointer) g_intern_string (names[i]));
      GST_INFO_OBJECT (self, "%u labels from the model upstream",
          self->model_labels->len);
      g_strfreev (names);
    } else {
      GST_INFO_OBJECT (self, "no labels file and no model labels upstream: "
          "detections are labelled classN");
    }
  }
  if (answered && gst_ax_model_query_parse_decoder (query, &json)) {
    GstAxNmsParams p;

    gst_ax_nms_params_init (&p);
    if (gst_ax_nms_params_from_json (&p, json, &why)) {
      self->model_params = p;
      self->have_model_decoder = TRUE;
      GST_INFO_OBJECT (self, "decoder from the model upstream: %s", json);
    } else {
      self->decoder_error = g_strdup_printf ("%s (metadata: %s)", why, json);
      g_free (why);
    }
    g_free (json);
  } else {
    GST_INFO_OBJECT (self, "no decoder metadata upstream: decoding with "
        "the properties (default yolov8)");
  }
  gst_query_unref (query);
}

static const gchar *
decode_nick (GstAxNmsDecodeKind kind)
{
  const gchar *nick = gst_ax_nms_decode_kind_name (kind);

  return nick ? nick : "unknown";
}

static gboolean
gst_ax_nms_set_caps (GstBaseTransform * trans, GstCaps * incaps,
    GstCaps * outcaps)
{
  GstAxNms *self = GST_AX_NMS (trans);
  gboolean decode_set;

  self->have_vinfo = gst_video_info_from_caps (&self->vinfo, incaps);
  if (!self->have_vinfo) {
    GST_ERROR_OBJECT (self, "caps %" GST_PTR_FORMAT " are not raw video "
        "with a size", incaps);
    return FALSE;
  }
  query_model (self);

  GST_OBJECT_LOCK (self);
  decode_set = (self->props_set & PROP_BIT (PROP_DECODE)) != 0;
  GST_OBJECT_UNLOCK (self);
  if (self->decoder_error) {
    if (!decode_set)
      goto bad_metadata;
    GST_WARNING_OBJECT (self, "ignoring the model's decoder metadata, as "
        "decode is set: %s", self->decoder_error);
  }
  return TRUE;

  /* ERRORS */
bad_metadata:
  {
    GST_ELEMENT_ERROR (self, STREAM, FORMAT,
        ("Cannot use the model's decoder metadata: %s.",
            self->decoder_error),
        ("expected a detector's decoder metadata (see "
            "docs/elements-nms-inference.md), or set decode to decode the "
            "outputs anyway"));
    return FALSE;
  }
}

/* The decoder of this frame: the defaults, updated by the model's
 * metadata, then by the properties the user set. Call with the object
 * lock held. */
static void
effective_params (GstAxNms * self, GstAxNmsParams * p)
{
  const guint32 set = self->props_set;

  *p = self->model_params;
  if (set & PROP_BIT (PROP_DECODE)) {
    /* metadata of another decoder says nothing about this one */
    if (!self->have_model_decoder || self->model_params.kind != self->decode)
      gst_ax_nms_params_init (p);
    p->kind = self->decode;
  }
  if (set & PROP_BIT (PROP_SCORE_THRESHOLD))
    p->score_threshold = self->score_threshold;
  if (set & PROP_BIT (PROP_IOU_THRESHOLD))
    p->iou_threshold = self->iou_threshold;
  if (set & PROP_BIT (PROP_MAX_DETECTIONS))
    p->max_detections = self->max_detections;
  if (set & PROP_BIT (PROP_CLASS_AGNOSTIC))
    p->class_agnostic = self->class_agnostic;
  if (set & PROP_BIT (PROP_BOX_FORMAT))
    p->box_format = self->box_format;
  if (set & PROP_BIT (PROP_TOP_K))
    p->top_k = self->top_k;
  if (set & PROP_BIT (PROP_SUPPRESSION))
    p->suppression = self->suppression;
}

/* The output tensors of @instance, by index. */
static guint
gather_outputs (GstBuffer * buf, guint instance, const GstAxTensorMeta ** metas)
{
  GstAxTensorMeta *o;
  gpointer state = NULL;
  guint n = 0, j;

  while ((o = gst_buffer_iterate_ax_tensor_meta (buf, &state,
              GST_AX_TENSOR_ROLE_OUTPUT))) {
    if (o->instance != instance || n == MAX_OUTPUTS)
      continue;
    for (j = n; j > 0 && metas[j - 1]->index > o->index; j--)
      metas[j] = metas[j - 1];
    metas[j] = o;
    n++;
  }
  return n;
}

/* The input tensor of @instance carries the letterbox; axinference may
 * also have copied it onto the outputs. */
static const GstAxLetterboxGeometry *
find_letterbox (GstBuffer * buf, GstAxTensorMeta * out,
    GstAxTensorMeta ** input)
{
  GstAxTensorMeta *in = gst_buffer_get_ax_tensor_meta_by_role (buf,
      GST_AX_TENSOR_ROLE_INPUT, out->instance, 0);

  *input = in;
  if (in && in->has_letterbox)
    return &in->letterbox;
  if (out->has_letterbox)
    return &out->letterbox;
  return NULL;
}

/* Attaches the detections of one instance. */
static void
attach_results (GstAxNms * self, GstBuffer * buf,
    const GstAxLetterboxGeometry * lb, guint instance, guint n,
    GPtrArray * labels, gint frame_w, gint frame_h)
{
  gfloat pts[2 * GST_AX_NMS_MAX_KEYPOINTS];
  guint i, q;

  for (i = 0; i < n; i++) {
    const GstAxNmsResult *r = &self->results[i];
    gdouble tbox[4] = { r->x0, r->y0, r->x1, r->y1 }, sbox[4];
    GstAxDetection det;
    GstVideoRegionOfInterestMeta *roi;

    gst_ax_letterbox_geometry_box_to_source (lb, tbox, sbox, frame_w, frame_h);
    det.label_id = r->class_id;
    det.confidence = r->score;
    det.x_min = sbox[0] / frame_w;
    det.y_min = sbox[1] / frame_h;
    det.x_max = sbox[2] / frame_w;
    det.y_max = sbox[3] / frame_h;
    det.label = (labels && r->class_id < labels->len) ?
        g_ptr_array_index (labels, r->class_id) : NULL;
    roi = gst_ax_detection_add (buf, &det, frame_w, frame_h);
    if (r->n_keypoints > 0) {
      for (q = 0; q < r->n_keypoints; q++) {
        gdouble sx, sy;
        gst_ax_letterbox_geometry_to_source (lb, r->keypoints[2 * q],
            r->keypoints[2 * q + 1], &sx, &sy);
        pts[2 * q] = sx / frame_w;
        pts[2 * q + 1] = sy / frame_h;
      }
      gst_ax_detection_set_landmarks (roi, pts, r->n_keypoints);
    }
    /* INFO, not DEBUG: axprof keeps reporting timings at this level */
    GST_INFO_OBJECT (self, "pts %" GST_TIME_FORMAT " instance %u: %s "
        "%.2f at %.0f,%.0f-%.0f,%.0f (%u keypoints)",
        GST_TIME_ARGS (GST_BUFFER_PTS (buf)), instance,
        g_quark_to_string (roi->roi_type), det.confidence, sbox[0], sbox[1],
        sbox[2], sbox[3], r->n_keypoints);
  }
}

static GstFlowReturn
gst_ax_nms_transform_ip (GstBaseTransform * trans, GstBuffer * buf)
{
  GstAxNms *self = GST_AX_NMS (trans);
  GstAxNmsParams params;
  GstAxTensorMeta *out, *in;
  const GstAxTensorMeta *metas[MAX_OUTPUTS];
  GstAxNmsInput inputs[GST_AX_NMS_MAX_INPUTS];
  GstMapInfo maps[GST_AX_NMS_MAX_INPUTS];
  gpointer state = NULL;
  gboolean keep_tensors;
  GstAxNmsBoxUnits box_units;
  GPtrArray *labels = self->labels ? self->labels : self->model_labels;
  gint frame_w, frame_h;
  guint i, n_mapped = 0;
  gchar *why = NULL;
  const gchar *failed_tensor = NULL;

  if (!self->have_vinfo)
    goto not_negotiated;
  frame_w = GST_VIDEO_INFO_WIDTH (&self->vinfo);
  frame_h = GST_VIDEO_INFO_HEIGHT (&self->vinfo);

  GST_OBJECT_LOCK (self);
  effective_params (self, &params);
  keep_tensors = self->keep_tensors;
  box_units = self->box_units;
  GST_OBJECT_UNLOCK (self);

  if (self->results_size < params.max_detections) {
    g_free (self->results);
    self->results = g_new (GstAxNmsResult, params.max_detections);
    self->results_size = params.max_detections;
  }
  g_ptr_array_set_size (self->consumed, 0);

  while ((out = gst_buffer_iterate_ax_tensor_meta (buf, &state,
              GST_AX_TENSOR_ROLE_OUTPUT))) {
    GstAxLetterboxGeometry identity;
    const GstAxLetterboxGeometry *lb;
    guint n, n_metas, n_inputs;

    /* one decode per instance, at its output 0 */
    if (out->index != 0)
      continue;
    n_metas = gather_outputs (buf, out->instance, metas);

    lb = find_letterbox (buf, out, &in);
    if (lb == NULL) {
      if (!self->warned_no_letterbox) {
        GST_ELEMENT_WARNING (self, STREAM, FORMAT,
            ("Tensor '%s' has no letterbox geometry; treating its "
                "coordinates as frame pixels.", out->name),
            ("expected an input tensor of instance %u with a letterbox, "
                "as made by axletterbox", out->instance));
        self->warned_no_letterbox = TRUE;
      }
      gst_ax_letterbox_geometry_init (&identity, frame_w, frame_h, frame_w,
          frame_h, FALSE, FALSE, GST_AX_LETTERBOX_DEFAULT_FILL);
      lb = &identity;
    }
    /* anchors and strides are in model input pixels */
    if (params.input_width == 0 || params.input_height == 0) {
      params.input_width = lb->tensor_width;
      params.input_height = lb->tensor_height;
    }
    if (box_units == GST_AX_NMS_BOX_UNITS_NORMALIZED) {
      params.box_scale_x = lb->tensor_width;
      params.box_scale_y = lb->tensor_height;
    } else {
      params.box_scale_x = 1.0f;
      params.box_scale_y = 1.0f;
    }

    if (!gst_ax_nms_inputs_from_metas (&params, metas, n_metas, inputs,
            &n_inputs, &why))
      goto bad_tensor;
    for (n_mapped = 0; n_mapped < n_inputs; n_mapped++) {
      const GstAxTensorMeta *m = metas[inputs[n_mapped].meta_index];

      if (!gst_buffer_map (m->data, &maps[n_mapped], GST_MAP_READ)) {
        failed_tensor = m->name;
        goto map_failed;
      }
      if (maps[n_mapped].size < gst_ax_tensor_meta_n_bytes (m)) {
        why = g_strdup_printf ("tensor '%s' holds %" G_GSIZE_FORMAT " bytes;"
            " its shape needs %" G_GSIZE_FORMAT, m->name,
            maps[n_mapped].size, gst_ax_tensor_meta_n_bytes (m));
        gst_buffer_unmap (m->data, &maps[n_mapped]);
        goto bad_tensor;
      }
      inputs[n_mapped].data = maps[n_mapped].data;
    }
    n = gst_ax_nms_run_multi (self->work, &params, inputs, n_inputs,
        self->results, self->results_size);
    for (i = 0; i < n_inputs; i++)
      gst_buffer_unmap (metas[inputs[i].meta_index]->data, &maps[i]);
    n_mapped = 0;

    GST_LOG_OBJECT (self, "instance %u (%s): %u detections", out->instance,
        decode_nick (params.kind), n);
    attach_results (self, buf, lb, out->instance, n, labels, frame_w, frame_h);

    if (!keep_tensors) {
      for (i = 0; i < n_metas; i++)
        g_ptr_array_add (self->consumed, (gpointer) metas[i]);
      if (in)
        g_ptr_array_add (self->consumed, in);
    }
  }

  for (i = 0; i < self->consumed->len; i++)
    gst_buffer_remove_meta (buf, g_ptr_array_index (self->consumed, i));
  g_ptr_array_set_size (self->consumed, 0);
  return GST_FLOW_OK;

  /* ERRORS */
not_negotiated:
  {
    GST_ELEMENT_ERROR (self, CORE, NEGOTIATION,
        ("No caps were set before the first frame."),
        ("expected video/x-raw caps with a width and height"));
    return GST_FLOW_NOT_NEGOTIATED;
  }
bad_tensor:
  {
    for (i = 0; i < n_mapped; i++)
      gst_buffer_unmap (metas[inputs[i].meta_index]->data, &maps[i]);
    GST_ELEMENT_ERROR (self, STREAM, FORMAT,
        ("Cannot decode model output: %s.", why),
        ("decode=%s%s", decode_nick (params.kind), self->have_model_decoder ?
            " (from the model's decoder metadata)" : ""));
    g_free (why);
    g_ptr_array_set_size (self->consumed, 0);
    return GST_FLOW_ERROR;
  }
map_failed:
  {
    for (i = 0; i < n_mapped; i++)
      gst_buffer_unmap (metas[inputs[i].meta_index]->data, &maps[i]);
    GST_ELEMENT_ERROR (self, RESOURCE, READ,
        ("Could not map the data of tensor '%s'.", failed_tensor), (NULL));
    g_ptr_array_set_size (self->consumed, 0);
    return GST_FLOW_ERROR;
  }
}
