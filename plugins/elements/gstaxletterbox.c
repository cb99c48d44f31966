/* gst-ax
 * Copyright (C) 2026 gst-ax developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

/**
 * SECTION:element-axletterbox
 * @title: axletterbox
 *
 * Makes a model's input tensor from each video frame: in one pass over
 * the tensor it converts the colour to RGB, BGR or gray, resizes the frame
 * (nearest or bilinear) either keeping its aspect ratio and padding it
 * with a fill value (Ultralytics letterbox geometry) or stretching each
 * axis on its own (see #GstAxLetterboxGeometry), applies the model's
 * preprocessing and quantises it. The tensor is attached to the frame as
 * a #GstAxTensorMeta of role INPUT carrying the geometry; the frame
 * itself passes through unchanged.
 *
 * With width, height, dtype and scale left at their defaults the element
 * asks downstream for the model's input spec (a custom query that
 * axinference answers), so a plain axletterbox needs no properties. The
 * same answer carries the model's preprocessing (#GstAxModelPreprocess):
 * colour order, letterbox or stretch, fill value, and the pixel scale,
 * mean and std that make the model's real input value of a pixel. The
 * channel-order, resize and fill properties override the model's when
 * set (their defaults, auto and -1, take it); a model that stores no
 * preprocessing, or no model at all, gets RGB, letterbox, fill 114 and
 * value = pixel / 255.
 *
 * YUV input is converted with the matrix and range of the caps'
 * colorimetry field; when the caps carry none, BT.601 limited range is
 * assumed. Chroma samples are taken as centred between the luma samples
 * they cover.
 *
 * The quantised value of a pixel p (0..255) in tensor channel c is
 * q = round (value / scale) + zero-point, saturated to the dtype, with
 * value = (p * pixel-scale - mean[c]) / std[c] the model's preprocessing
 * (a pixel scale of 1 / d, d = 255 or 127.5, is an exact division by d);
 * for f32 tensors it is value / scale + zero-point without rounding. Pad
 * pixels are the fill value passed through the same maths. Both are
 * folded into a table per channel, made when the configuration changes.
 * Gray is 0.299 R + 0.587 G + 0.114 B of the RGB pixel in float, then
 * quantised the same way. A u8 "pixel input" of sim-npu's compiler (scale
 * pixel-scale / std, zero point lround (mean / pixel-scale), the rest of
 * mean / pixel-scale folded into a bias) gets that rest added before the
 * rounding: it holds the pixel values themselves.
 *
 * On x86 CPUs with AVX2 the rows are made by vector kernels picked at run
 * time, bit-exact with the portable ones (integer arithmetic where every
 * bilinear weight is a multiple of 1/64, which makes the float arithmetic
 * exact); set GST_AX_LETTERBOX_PORTABLE in the environment to use the
 * portable kernels. A table that is the identity (u8 pixel values) or
 * flips the top bit (the default value into i8 with zero point -128) is
 * done in the kernels' stores; other NHWC quantisations with the same
 * table in every channel use a vector affine map, round (p * gain +
 * bias), where it gives the table's byte for all 256 pixel values
 * (checked when configuring), else the table.
 *
 * YUV with luma at 1:1 and chroma upsampled 2x (dyadic weights) takes one
 * fused kernel per row: the chroma rows are blended in integers, which
 * are exactly the floats of the general path scaled by a power of two,
 * and the YUV to RGB step then does the general path's float operations
 * on them, so the bytes are the same.
 *
 * When the tensor is the frame's own bytes (packed RGB in the tensor's
 * channel order into a u8 tensor of the frame's size, rows without
 * stride padding) the tensor shares the frame's memory instead of being
 * copied; an element that later writes the frame gets a copy of the
 * memory on mapping it for writing, so the tensor keeps the bytes.
 *
 * With roi-mode=true the element makes one tensor per
 * #GstVideoRegionOfInterestMeta on the frame (optionally only those whose
 * label is listed in roi-classes; without roi-classes, all but the
 * "frame" region of a whole frame's classification), each cropped from
 * the full-resolution
 * frame, with its own instance index and geometry (src_x, src_y set),
 * and the region's id as the tensor's roi_id (regions of one frame that
 * share an id get fresh ones first, so that a classification finds its
 * way back). When the model's decoder metadata has a "crop" member, e.g.
 * `"crop": { "square": true, "scale": 1.2 }`, each region is first
 * enlarged about its centre by "scale" (default 1) and, with "square",
 * made a square of its longer side, then moved inside the frame (and
 * clipped if larger than it): the crop the classifier was trained on,
 * from a detector's tighter box.
 *
 * ## Example launch line
 * |[
 * gst-launch-1.0 videotestsrc num-buffers=10 ! \
 *   video/x-raw,width=1280,height=720 ! \
 *   axletterbox width=640 height=640 ! fakesink
 * ]|
 */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstaxletterbox.h"
#include "gstaxletterboxrender.h"

#include <gst/ax/ax.h>
#include <gst/video/video.h>
#include <json-glib/json-glib.h>
#include <math.h>
#include <string.h>

GST_DEBUG_CATEGORY_STATIC (gst_ax_letterbox_debug);
#define GST_CAT_DEFAULT gst_ax_letterbox_debug

#define TENSOR_RANK 4
#define MAX_TENSOR_SIDE 16384
#define MAX_PIXEL_VALUE 255
#define MIN_ZERO_POINT (-32768)
#define MAX_ZERO_POINT 32767
/* Buffers kept in the tensor pool; downstream may hold more in flight. */
#define POOL_MIN_BUFFERS 2
#define DEFAULT_TENSOR_NAME "input"
/* set to run the portable kernels on any CPU (tests compare both) */
#define PORTABLE_ENV "GST_AX_LETTERBOX_PORTABLE"

/* the first three are GstAxColorOrder's values */
typedef enum
{
  GST_AX_LETTERBOX_CHANNEL_ORDER_RGB = GST_AX_COLOR_ORDER_RGB,
  GST_AX_LETTERBOX_CHANNEL_ORDER_BGR = GST_AX_COLOR_ORDER_BGR,
  GST_AX_LETTERBOX_CHANNEL_ORDER_GRAY = GST_AX_COLOR_ORDER_GRAY,
  GST_AX_LETTERBOX_CHANNEL_ORDER_AUTO,
} GstAxLetterboxChannelOrder;

typedef enum
{
  GST_AX_LETTERBOX_RESIZE_AUTO,
  GST_AX_LETTERBOX_RESIZE_LETTERBOX,
  GST_AX_LETTERBOX_RESIZE_STRETCH,
} GstAxLetterboxResize;

typedef enum
{
  GST_AX_LETTERBOX_DTYPE_AUTO,
  GST_AX_LETTERBOX_DTYPE_U8,
  GST_AX_LETTERBOX_DTYPE_I8,
  GST_AX_LETTERBOX_DTYPE_F32,
} GstAxLetterboxDType;

typedef enum
{
  GST_AX_LETTERBOX_METHOD_NEAREST,
  GST_AX_LETTERBOX_METHOD_BILINEAR,
} GstAxLetterboxMethod;

struct _GstAxLetterbox
{
  GstBaseTransform parent;

  /* properties, protected by OBJECT_LOCK */
  guint prop_width;
  guint prop_height;
  /* -1: the model's */
  gint fill;
  GstAxLetterboxChannelOrder channel_order;
  GstAxLetterboxResize resize;
  GstAxLetterboxDType dtype;
  gdouble scale;
  gint zero_point;
  gboolean centre;
  gboolean scale_up;
  GstAxLetterboxMethod method;
  gboolean roi_mode;
  gchar *roi_classes;
  /* properties or caps changed since the last configuration */
  gboolean dirty;
  /* the last configuration succeeded; streaming thread only */
  gboolean configured;
  /* GST_AX_LETTERBOX_PORTABLE was set when the element was made */
  gboolean portable;

  /* streaming thread only from here on */
  GstVideoInfo in_info;

  /* the active configuration: the tensor spec the engine renders */
  GstAxLetterboxRenderParams params;
  gint tensor_channels;
  const gchar *tensor_name;
  gsize tensor_bytes;
  gboolean cfg_centre;
  gboolean cfg_scale_up;
  gboolean cfg_roi_mode;
  gboolean cfg_stretch;
  GQuark *roi_class_quarks;
  guint n_roi_classes;
  /* the model's crop of each region: enlarged by crop_scale, squared */
  gboolean crop_square;
  gdouble crop_scale;

  GstAxLetterboxGeometry frame_lb;
  GstAxLetterboxRender *render;
  GstBufferPool *pool;
};

G_DEFINE_TYPE (GstAxLetterbox, gst_ax_letterbox, GST_TYPE_BASE_TRANSFORM);

GST_ELEMENT_REGISTER_DEFINE_WITH_CODE (axletterbox, "axletterbox",
    GST_RANK_NONE, GST_TYPE_AX_LETTERBOX,
    GST_DEBUG_CATEGORY_INIT (gst_ax_letterbox_debug, "axletterbox", 0,
        "ax letterbox"));

#define DEFAULT_PROP_WIDTH 0
#define DEFAULT_PROP_HEIGHT 0
/* -1 and auto: the model's (114 and rgb without a model) */
#define DEFAULT_PROP_FILL (-1)
#define MODEL_FILL (-1)
#define DEFAULT_PROP_CHANNEL_ORDER GST_AX_LETTERBOX_CHANNEL_ORDER_AUTO
#define DEFAULT_PROP_RESIZE GST_AX_LETTERBOX_RESIZE_AUTO
#define DEFAULT_PROP_DTYPE GST_AX_LETTERBOX_DTYPE_AUTO
#define DEFAULT_PROP_SCALE 0.0
#define DEFAULT_PROP_ZERO_POINT 0
#define DEFAULT_PROP_CENTRE TRUE
#define DEFAULT_PROP_SCALE_UP TRUE
#define DEFAULT_PROP_METHOD GST_AX_LETTERBOX_METHOD_BILINEAR
#define DEFAULT_PROP_ROI_MODE FALSE
#define DEFAULT_PROP_ROI_CLASSES NULL
/* the decoder metadata's member with the crop of each region */
#define CROP_MEMBER "crop"
#define CROP_SQUARE_MEMBER "square"
#define CROP_SCALE_MEMBER "scale"
#define DEFAULT_CROP_SCALE 1.0
/* a crop scale outside this is a metadata error, not a crop */
#define MIN_CROP_SCALE 0.1
#define MAX_CROP_SCALE 10.0

enum
{
  PROP_0,
  PROP_WIDTH,
  PROP_HEIGHT,
  PROP_FILL,
  PROP_CHANNEL_ORDER,
  PROP_DTYPE,
  PROP_SCALE,
  PROP_ZERO_POINT,
  PROP_CENTRE,
  PROP_SCALE_UP,
  PROP_METHOD,
  PROP_ROI_MODE,
  PROP_ROI_CLASSES,
  PROP_RESIZE,
};

#define LETTERBOX_FORMATS \
  "{ RGB, BGR, RGBx, BGRx, RGBA, BGRA, NV12, I420, YUY2 }"

static GstStaticPadTemplate sink_template = GST_STATIC_PAD_TEMPLATE ("sink",
    GST_PAD_SINK,
    GST_PAD_ALWAYS,
    GST_STATIC_CAPS (GST_VIDEO_CAPS_MAKE (LETTERBOX_FORMATS)));

static GstStaticPadTemplate src_template = GST_STATIC_PAD_TEMPLATE ("src",
    GST_PAD_SRC,
    GST_PAD_ALWAYS,
    GST_STATIC_CAPS (GST_VIDEO_CAPS_MAKE (LETTERBOX_FORMATS)));

#define GST_TYPE_AX_LETTERBOX_CHANNEL_ORDER \
  (gst_ax_letterbox_channel_order_get_type ())
static GType
gst_ax_letterbox_channel_order_get_type (void)
{
  static GType type = 0;
  static const GEnumValue values[] = {
    {GST_AX_LETTERBOX_CHANNEL_ORDER_RGB, "Red, green, blue", "rgb"},
    {GST_AX_LETTERBOX_CHANNEL_ORDER_BGR, "Blue, green, red", "bgr"},
    {GST_AX_LETTERBOX_CHANNEL_ORDER_GRAY,
        "One channel, 0.299 R + 0.587 G + 0.114 B", "gray"},
    {GST_AX_LETTERBOX_CHANNEL_ORDER_AUTO,
        "The model's order (rgb when no model answers)", "auto"},
    {0, NULL, NULL},
  };

  if (g_once_init_enter (&type)) {
    GType t = g_enum_register_static ("GstAxLetterboxChannelOrder", values);
    g_once_init_leave (&type, t);
  }
  return type;
}

#define GST_TYPE_AX_LETTERBOX_DTYPE (gst_ax_letterbox_dtype_get_type ())
static GType
gst_ax_letterbox_dtype_get_type (void)
{
  static GType type = 0;
  static const GEnumValue values[] = {
    {GST_AX_LETTERBOX_DTYPE_AUTO,
        "The model's input type (u8 when no model answers)", "auto"},
    {GST_AX_LETTERBOX_DTYPE_U8, "Unsigned 8-bit integers", "u8"},
    {GST_AX_LETTERBOX_DTYPE_I8, "Signed 8-bit integers", "i8"},
    {GST_AX_LETTERBOX_DTYPE_F32, "32-bit floats", "f32"},
    {0, NULL, NULL},
  };

  if (g_once_init_enter (&type)) {
    GType t = g_enum_register_static ("GstAxLetterboxDType", values);
    g_once_init_leave (&type, t);
  }
  return type;
}

#define GST_TYPE_AX_LETTERBOX_RESIZE (gst_ax_letterbox_resize_get_type ())
static GType
gst_ax_letterbox_resize_get_type (void)
{
  static GType type = 0;
  static const GEnumValue values[] = {
    {GST_AX_LETTERBOX_RESIZE_AUTO,
        "The model's (letterbox when no model answers)", "auto"},
    {GST_AX_LETTERBOX_RESIZE_LETTERBOX,
        "Keep the aspect ratio, pad with the fill value", "letterbox"},
    {GST_AX_LETTERBOX_RESIZE_STRETCH,
        "Scale each axis to the tensor on its own, no padding", "stretch"},
    {0, NULL, NULL},
  };

  if (g_once_init_enter (&type)) {
    GType t = g_enum_register_static ("GstAxLetterboxResize", values);
    g_once_init_leave (&type, t);
  }
  return type;
}

#define GST_TYPE_AX_LETTERBOX_METHOD (gst_ax_letterbox_method_get_type ())
static GType
gst_ax_letterbox_method_get_type (void)
{
  static GType type = 0;
  static const GEnumValue values[] = {
    {GST_AX_LETTERBOX_METHOD_NEAREST, "Nearest neighbour", "nearest"},
    {GST_AX_LETTERBOX_METHOD_BILINEAR, "Bilinear", "bilinear"},
    {0, NULL, NULL},
  };

  if (g_once_init_enter (&type)) {
    GType t = g_enum_register_static ("GstAxLetterboxMethod", values);
    g_once_init_leave (&type, t);
  }
  return type;
}

static void gst_ax_letterbox_finalize (GObject * object);
static void gst_ax_letterbox_set_property (GObject * object,
    guint prop_id, const GValue * value, GParamSpec * pspec);
static void gst_ax_letterbox_get_property (GObject * object,
    guint prop_id, GValue * value, GParamSpec * pspec);
static gboolean gst_ax_letterbox_stop (GstBaseTransform * trans);
static gboolean gst_ax_letterbox_set_caps (GstBaseTransform * trans,
    GstCaps * incaps, GstCaps * outcaps);
static GstFlowReturn gst_ax_letterbox_transform_ip (GstBaseTransform
    * trans, GstBuffer * buf);
static gboolean gst_ax_letterbox_src_event (GstBaseTransform * trans,
    GstEvent * event);

static void
gst_ax_letterbox_class_init (GstAxLetterboxClass * klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  GstElementClass *element_class = GST_ELEMENT_CLASS (klass);
  GstBaseTransformClass *trans_class = GST_BASE_TRANSFORM_CLASS (klass);

  gobject_class->finalize = gst_ax_letterbox_finalize;
  gobject_class->set_property = gst_ax_letterbox_set_property;
  gobject_class->get_property = gst_ax_letterbox_get_property;

  g_object_class_install_property (gobject_class, PROP_WIDTH,
      g_param_spec_uint ("width", "Width",
          "Tensor width in pixels; 0 asks the downstream model",
          0, MAX_TENSOR_SIDE, DEFAULT_PROP_WIDTH,
          G_PARAM_READWRITE | GST_PARAM_MUTABLE_PLAYING |
          G_PARAM_STATIC_STRINGS));
  g_object_class_install_property (gobject_class, PROP_HEIGHT,
      g_param_spec_uint ("height", "Height",
          "Tensor height in pixels; 0 asks the downstream model",
          0, MAX_TENSOR_SIDE, DEFAULT_PROP_HEIGHT,
          G_PARAM_READWRITE | GST_PARAM_MUTABLE_PLAYING |
          G_PARAM_STATIC_STRINGS));
  g_object_class_install_property (gobject_class, PROP_FILL,
      g_param_spec_int ("fill", "Fill",
          "Pixel value (0-255, all channels) of the letterbox padding, "
          "preprocessed and quantised like the image; -1 takes the "
          "model's (114 when no model answers)", MODEL_FILL,
          MAX_PIXEL_VALUE, DEFAULT_PROP_FILL,
          G_PARAM_READWRITE | GST_PARAM_MUTABLE_PLAYING |
          G_PARAM_STATIC_STRINGS));
  g_object_class_install_property (gobject_class, PROP_CHANNEL_ORDER,
      g_param_spec_enum ("channel-order", "Channel order",
          "Order of the colour channels in the tensor (gray: one channel); "
          "auto takes the model's", GST_TYPE_AX_LETTERBOX_CHANNEL_ORDER,
          DEFAULT_PROP_CHANNEL_ORDER,
          G_PARAM_READWRITE | GST_PARAM_MUTABLE_PLAYING |
          G_PARAM_STATIC_STRINGS));
  g_object_class_install_property (gobject_class, PROP_RESIZE,
      g_param_spec_enum ("resize", "Resize",
          "Letterbox (aspect ratio kept, padded) or stretch (each axis on "
          "its own); auto takes the model's", GST_TYPE_AX_LETTERBOX_RESIZE,
          DEFAULT_PROP_RESIZE, G_PARAM_READWRITE | GST_PARAM_MUTABLE_PLAYING |
          G_PARAM_STATIC_STRINGS));
  g_object_class_install_property (gobject_class, PROP_DTYPE,
      g_param_spec_enum ("dtype", "Data type",
          "Element type of the tensor", GST_TYPE_AX_LETTERBOX_DTYPE,
          DEFAULT_PROP_DTYPE, G_PARAM_READWRITE | GST_PARAM_MUTABLE_PLAYING |
          G_PARAM_STATIC_STRINGS));
  g_object_class_install_property (gobject_class, PROP_SCALE,
      g_param_spec_double ("scale", "Quantisation scale",
          "q = round (value / scale) + zero-point, with value the pixel "
          "after the model's preprocessing (pixel / 255 when no model "
          "answers); 0 takes scale and zero-point from the model (else "
          "1/255 for u8 and i8, with zero-point 0 and -128, and 1 for f32)",
          0.0, G_MAXFLOAT, DEFAULT_PROP_SCALE,
          G_PARAM_READWRITE | GST_PARAM_MUTABLE_PLAYING |
          G_PARAM_STATIC_STRINGS));
  g_object_class_install_property (gobject_class, PROP_ZERO_POINT,
      g_param_spec_int ("zero-point", "Quantisation zero point",
          "Zero point of the quantisation; used only when scale is set",
          MIN_ZERO_POINT, MAX_ZERO_POINT, DEFAULT_PROP_ZERO_POINT,
          G_PARAM_READWRITE | GST_PARAM_MUTABLE_PLAYING |
          G_PARAM_STATIC_STRINGS));
  g_object_class_install_property (gobject_class, PROP_CENTRE,
      g_param_spec_boolean ("centre", "Centre",
          "Letterbox: centre the image in the tensor (else place it "
          "top-left)",
          DEFAULT_PROP_CENTRE, G_PARAM_READWRITE | GST_PARAM_MUTABLE_PLAYING |
          G_PARAM_STATIC_STRINGS));
  g_object_class_install_property (gobject_class, PROP_SCALE_UP,
      g_param_spec_boolean ("scale-up", "Scale up",
          "Letterbox: enlarge images smaller than the tensor (else only "
          "shrink)",
          DEFAULT_PROP_SCALE_UP, G_PARAM_READWRITE | GST_PARAM_MUTABLE_PLAYING |
          G_PARAM_STATIC_STRINGS));
  g_object_class_install_property (gobject_class, PROP_METHOD,
      g_param_spec_enum ("method", "Method", "Resampling method",
          GST_TYPE_AX_LETTERBOX_METHOD, DEFAULT_PROP_METHOD,
          G_PARAM_READWRITE | GST_PARAM_MUTABLE_PLAYING |
          G_PARAM_STATIC_STRINGS));
  g_object_class_install_property (gobject_class, PROP_ROI_MODE,
      g_param_spec_boolean ("roi-mode", "ROI mode",
          "Make one tensor per region-of-interest meta (cropped from the "
          "frame) instead of one for the whole frame",
          DEFAULT_PROP_ROI_MODE, G_PARAM_READWRITE | GST_PARAM_MUTABLE_PLAYING |
          G_PARAM_STATIC_STRINGS));
  g_object_class_install_property (gobject_class, PROP_ROI_CLASSES,
      g_param_spec_string ("roi-classes", "ROI classes",
          "Comma-separated labels of the regions used in roi-mode; "
          "empty for all", DEFAULT_PROP_ROI_CLASSES,
          G_PARAM_READWRITE | GST_PARAM_MUTABLE_PLAYING |
          G_PARAM_STATIC_STRINGS));

  gst_element_class_add_static_pad_template (element_class, &sink_template);
  gst_element_class_add_static_pad_template (element_class, &src_template);
  gst_element_class_set_static_metadata (element_class,
      "Letterbox to tensor", "Filter/Video/Metadata",
      "Passes each frame through unchanged and attaches the model input "
      "tensor made from it: converted, resized (letterbox or stretch), "
      "padded, preprocessed and quantised", "gst-ax developers");

  trans_class->stop = GST_DEBUG_FUNCPTR (gst_ax_letterbox_stop);
  trans_class->src_event = GST_DEBUG_FUNCPTR (gst_ax_letterbox_src_event);
  trans_class->set_caps = GST_DEBUG_FUNCPTR (gst_ax_letterbox_set_caps);
  trans_class->transform_ip = GST_DEBUG_FUNCPTR (gst_ax_letterbox_transform_ip);

  gst_type_mark_as_plugin_api (GST_TYPE_AX_LETTERBOX_CHANNEL_ORDER, 0);
  gst_type_mark_as_plugin_api (GST_TYPE_AX_LETTERBOX_DTYPE, 0);
  gst_type_mark_as_plugin_api (GST_TYPE_AX_LETTERBOX_METHOD, 0);
  gst_type_mark_as_plugin_api (GST_TYPE_AX_LETTERBOX_RESIZE, 0);
}

static void
gst_ax_letterbox_init (GstAxLetterbox * self)
{
  self->prop_width = DEFAULT_PROP_WIDTH;
  self->prop_height = DEFAULT_PROP_HEIGHT;
  self->fill = DEFAULT_PROP_FILL;
  self->channel_order = DEFAULT_PROP_CHANNEL_ORDER;
  self->resize = DEFAULT_PROP_RESIZE;
  self->dtype = DEFAULT_PROP_DTYPE;
  self->scale = DEFAULT_PROP_SCALE;
  self->zero_point = DEFAULT_PROP_ZERO_POINT;
  self->centre = DEFAULT_PROP_CENTRE;
  self->scale_up = DEFAULT_PROP_SCALE_UP;
  self->method = DEFAULT_PROP_METHOD;
  self->roi_mode = DEFAULT_PROP_ROI_MODE;
  self->roi_classes = g_strdup (DEFAULT_PROP_ROI_CLASSES);
  self->dirty = TRUE;
  self->portable = g_getenv (PORTABLE_ENV) != NULL;

  /* the frame is only read; the tensor rides on it as meta */
  gst_base_transform_set_in_place (GST_BASE_TRANSFORM (self), TRUE);
  gst_base_transform_set_passthrough (GST_BASE_TRANSFORM (self), FALSE);
}

static void
gst_ax_letterbox_release (GstAxLetterbox * self)
{
  g_clear_pointer (&self->render, gst_ax_letterbox_render_free);
  g_clear_pointer (&self->roi_class_quarks, g_free);
  self->n_roi_classes = 0;
  if (self->pool) {
    gst_buffer_pool_set_active (self->pool, FALSE);
    gst_clear_object (&self->pool);
  }
  self->tensor_bytes = 0;
}

static void
gst_ax_letterbox_finalize (GObject * object)
{
  GstAxLetterbox *self = GST_AX_LETTERBOX (object);

  gst_ax_letterbox_release (self);
  g_free (self->roi_classes);

  G_OBJECT_CLASS (gst_ax_letterbox_parent_class)->finalize (object);
}

static void
gst_ax_letterbox_set_property (GObject * object, guint prop_id,
    const GValue * value, GParamSpec * pspec)
{
  GstAxLetterbox *self = GST_AX_LETTERBOX (object);

  GST_OBJECT_LOCK (self);
  switch (prop_id) {
    case PROP_WIDTH:
      self->prop_width = g_value_get_uint (value);
      break;
    case PROP_HEIGHT:
      self->prop_height = g_value_get_uint (value);
      break;
    case PROP_FILL:
      self->fill = g_value_get_int (value);
      break;
    case PROP_RESIZE:
      self->resize = g_value_get_enum (value);
      break;
    case PROP_CHANNEL_ORDER:
      self->channel_order = g_value_get_enum (value);
      break;
    case PROP_DTYPE:
      self->dtype = g_value_get_enum (value);
      break;
    case PROP_SCALE:
      self->scale = g_value_get_double (value);
      break;
    case PROP_ZERO_POINT:
      self->zero_point = g_value_get_int (value);
      break;
    case PROP_CENTRE:
      self->centre = g_value_get_boolean (value);
      break;
    case PROP_SCALE_UP:
      self->scale_up = g_value_get_boolean (value);
      break;
    case PROP_METHOD:
      self->method = g_value_get_enum (value);
      break;
    case PROP_ROI_MODE:
      self->roi_mode = g_value_get_boolean (value);
      break;
    case PROP_ROI_CLASSES:
      g_free (self->roi_classes);
      self->roi_classes = g_value_dup_string (value);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
  self->dirty = TRUE;
  GST_OBJECT_UNLOCK (self);
}

static void
gst_ax_letterbox_get_property (GObject * object, guint prop_id,
    GValue * value, GParamSpec * pspec)
{
  GstAxLetterbox *self = GST_AX_LETTERBOX (object);

  GST_OBJECT_LOCK (self);
  switch (prop_id) {
    case PROP_WIDTH:
      g_value_set_uint (value, self->prop_width);
      break;
    case PROP_HEIGHT:
      g_value_set_uint (value, self->prop_height);
      break;
    case PROP_FILL:
      g_value_set_int (value, self->fill);
      break;
    case PROP_RESIZE:
      g_value_set_enum (value, self->resize);
      break;
    case PROP_CHANNEL_ORDER:
      g_value_set_enum (value, self->channel_order);
      break;
    case PROP_DTYPE:
      g_value_set_enum (value, self->dtype);
      break;
    case PROP_SCALE:
      g_value_set_double (value, self->scale);
      break;
    case PROP_ZERO_POINT:
      g_value_set_int (value, self->zero_point);
      break;
    case PROP_CENTRE:
      g_value_set_boolean (value, self->centre);
      break;
    case PROP_SCALE_UP:
      g_value_set_boolean (value, self->scale_up);
      break;
    case PROP_METHOD:
      g_value_set_enum (value, self->method);
      break;
    case PROP_ROI_MODE:
      g_value_set_boolean (value, self->roi_mode);
      break;
    case PROP_ROI_CLASSES:
      g_value_set_string (value, self->roi_classes);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
  GST_OBJECT_UNLOCK (self);
}

static gboolean
gst_ax_letterbox_stop (GstBaseTransform * trans)
{
  GstAxLetterbox *self = GST_AX_LETTERBOX (trans);

  gst_ax_letterbox_release (self);
  self->configured = FALSE;
  GST_OBJECT_LOCK (self);
  self->dirty = TRUE;
  GST_OBJECT_UNLOCK (self);
  return TRUE;
}

static gboolean
gst_ax_letterbox_set_caps (GstBaseTransform * trans, GstCaps * incaps,
    GstCaps * outcaps)
{
  GstAxLetterbox *self = GST_AX_LETTERBOX (trans);

  if (!gst_video_info_from_caps (&self->in_info, incaps))
    goto invalid_caps;

  /* caps without colorimetry mean BT.601 limited range, not the default
   * that gst_video_info_from_caps() picks by frame size: the engine takes
   * an unknown matrix and range for that */
  if (!gst_structure_has_field (gst_caps_get_structure (incaps, 0),
          "colorimetry")) {
    self->in_info.colorimetry.matrix = GST_VIDEO_COLOR_MATRIX_UNKNOWN;
    self->in_info.colorimetry.range = GST_VIDEO_COLOR_RANGE_UNKNOWN;
  }

  GST_OBJECT_LOCK (self);
  self->dirty = TRUE;
  GST_OBJECT_UNLOCK (self);
  return TRUE;

  /* ERRORS */
invalid_caps:
  {
    GST_ERROR_OBJECT (self, "invalid video caps %" GST_PTR_FORMAT, incaps);
    return FALSE;
  }
}

/* Downstream asks to renegotiate (a model replaced, say): the model query
 * is asked again before the next frame. */
static gboolean
gst_ax_letterbox_src_event (GstBaseTransform * trans, GstEvent * event)
{
  GstAxLetterbox *self = GST_AX_LETTERBOX (trans);

  if (GST_EVENT_TYPE (event) == GST_EVENT_RECONFIGURE) {
    GST_OBJECT_LOCK (self);
    self->dirty = TRUE;
    GST_OBJECT_UNLOCK (self);
  }
  return
      GST_BASE_TRANSFORM_CLASS (gst_ax_letterbox_parent_class)->src_event
      (trans, event);
}

static gboolean
parse_roi_classes (GstAxLetterbox * self, const gchar * classes)
{
  gchar **names;
  guint i, n = 0;

  g_clear_pointer (&self->roi_class_quarks, g_free);
  self->n_roi_classes = 0;
  if (classes == NULL || *classes == '\0')
    return TRUE;

  names = g_strsplit (classes, ",", -1);
  self->roi_class_quarks = g_new0 (GQuark, g_strv_length (names));
  for (i = 0; names[i]; i++) {
    g_strstrip (names[i]);
    if (*names[i])
      self->roi_class_quarks[n++] = g_quark_from_string (names[i]);
  }
  self->n_roi_classes = n;
  g_strfreev (names);
  return TRUE;
}

/* sim-npu's compiler folds a model's preprocessing into a u8 "pixel
 * input" when mean and std are the same in every channel: scale = pixel
 * scale / std and zero point lround (mean / pixel scale), both in float,
 * and the part of mean / pixel scale that the integer zero point loses
 * (the half of 127.5 for p / 127.5 - 1) goes into the first convolution's
 * bias. Such an input wants the pixel value itself, not the value
 * rounded about the integer zero point: returns that lost part (0.5 for
 * BlazeFace), 0 for any other input. */
static gdouble
pixel_input_offset (const GstAxModelPreprocess * pp, GstAxTensorDType dtype,
    gfloat scale, gint zero_point)
{
  gfloat steps;

  if (dtype != GST_AX_TENSOR_DTYPE_U8 || pp->mean[0] != pp->mean[1] ||
      pp->mean[0] != pp->mean[2] || pp->std[0] != pp->std[1] ||
      pp->std[0] != pp->std[2] || !(pp->std[0] > 0.0f) ||
      scale != pp->scale / pp->std[0])
    return 0.0;
  steps = pp->mean[0] / pp->scale;
  if (lroundf (steps) != zero_point)
    return 0.0;
  return (gdouble) steps - zero_point;
}

/* The geometry of a @w x @h region in the tensor, letterbox or stretch. */
static gboolean
gst_ax_letterbox_geometry (GstAxLetterbox * self,
    GstAxLetterboxGeometry * lb, gint w, gint h)
{
  if (self->cfg_stretch) {
    if (!gst_ax_letterbox_geometry_init_stretch (lb, w, h, self->params.width,
            self->params.height))
      return FALSE;
    lb->fill = self->params.preprocess.fill;
    return TRUE;
  }
  return gst_ax_letterbox_geometry_init (lb, w, h, self->params.width,
      self->params.height, self->cfg_centre, self->cfg_scale_up,
      self->params.preprocess.fill);
}

/* Resolves the tensor spec from the properties and, for what they leave
 * open, from the downstream model, then builds tables, LUTs and pool. */
/* The crop policy of the model's decoder metadata; a malformed one is
 * warned about and ignored (the region as it is). */
static void
parse_crop (GstAxLetterbox * self, const gchar * json)
{
  JsonParser *parser = json_parser_new ();
  JsonNode *root, *crop;
  JsonObject *o;

  if (!json_parser_load_from_data (parser, json, -1, NULL))
    goto done;
  root = json_parser_get_root (parser);
  if (root == NULL || !JSON_NODE_HOLDS_OBJECT (root))
    goto done;
  crop = json_object_get_member (json_node_get_object (root), CROP_MEMBER);
  if (crop == NULL)
    goto done;
  if (!JSON_NODE_HOLDS_OBJECT (crop))
    goto bad;
  o = json_node_get_object (crop);
  if (json_object_has_member (o, CROP_SQUARE_MEMBER)) {
    JsonNode *n = json_object_get_member (o, CROP_SQUARE_MEMBER);

    if (!JSON_NODE_HOLDS_VALUE (n)
        || json_node_get_value_type (n) != G_TYPE_BOOLEAN)
      goto bad;
    self->crop_square = json_node_get_boolean (n);
  }
  if (json_object_has_member (o, CROP_SCALE_MEMBER)) {
    JsonNode *n = json_object_get_member (o, CROP_SCALE_MEMBER);
    gdouble v;

    if (!JSON_NODE_HOLDS_VALUE (n)
        || (json_node_get_value_type (n) != G_TYPE_DOUBLE
            && json_node_get_value_type (n) != G_TYPE_INT64))
      goto bad;
    v = json_node_get_double (n);
    if (!(v >= MIN_CROP_SCALE && v <= MAX_CROP_SCALE))
      goto bad;
    self->crop_scale = v;
  }
  GST_INFO_OBJECT (self, "model crop of each region: scale %g%s",
      self->crop_scale, self->crop_square ? ", square" : "");
  goto done;

bad:
  GST_WARNING_OBJECT (self, "ignoring the model's \"" CROP_MEMBER "\": "
      "expected { \"" CROP_SQUARE_MEMBER "\": bool, \"" CROP_SCALE_MEMBER
      "\": %g to %g } (metadata: %s)", MIN_CROP_SCALE, MAX_CROP_SCALE, json);
  self->crop_square = FALSE;
  self->crop_scale = DEFAULT_CROP_SCALE;
done:
  g_object_unref (parser);
}

static gboolean
gst_ax_letterbox_configure (GstAxLetterbox * self)
{
  GstQuery *query;
  GstAxModelInput model = { 0, };
  GstAxModelPreprocess *pp = &self->params.preprocess;
  gboolean have_model, have_pp = FALSE;
  guint prop_width, prop_height;
  GstAxLetterboxDType dtype;
  GstAxLetterboxChannelOrder order;
  GstAxLetterboxResize resize;
  gdouble scale;
  gint zero_point, fill;
  gchar *roi_classes;
  gchar *decoder = NULL;
  gsize tensor_bytes;
  GstStructure *config;

  self->configured = FALSE;
  GST_OBJECT_LOCK (self);
  prop_width = self->prop_width;
  prop_height = self->prop_height;
  dtype = self->dtype;
  scale = self->scale;
  zero_point = self->zero_point;
  fill = self->fill;
  order = self->channel_order;
  resize = self->resize;
  self->cfg_centre = self->centre;
  self->cfg_scale_up = self->scale_up;
  self->params.bilinear = self->method == GST_AX_LETTERBOX_METHOD_BILINEAR;
  self->cfg_roi_mode = self->roi_mode;
  roi_classes = g_strdup (self->roi_classes);
  self->dirty = FALSE;
  GST_OBJECT_UNLOCK (self);

  parse_roi_classes (self, roi_classes);
  g_free (roi_classes);

  query = gst_ax_model_query_new ();
  have_model = gst_pad_peer_query (GST_BASE_TRANSFORM_SRC_PAD (self), query)
      && gst_ax_model_query_parse_input (query, &model);
  /* a model that stores none gets the default: RGB, letterbox, fill 114,
   * pixel / 255 */
  if (have_model)
    have_pp = gst_ax_model_query_parse_preprocess (query, pp);
  else
    gst_ax_model_preprocess_init_default (pp);
  self->crop_square = FALSE;
  self->crop_scale = DEFAULT_CROP_SCALE;
  if (have_model && gst_ax_model_query_parse_decoder (query, &decoder)) {
    parse_crop (self, decoder);
    g_free (decoder);
  }
  gst_query_unref (query);
  if (have_model)
    GST_INFO_OBJECT (self, "model '%s' input '%s': %dx%dx%d %s scale %g "
        "zero point %d; %s preprocessing: colour %d, %s, fill %u, scale %g, "
        "mean %g %g %g, std %g %g %g", model.model_name, model.name,
        model.width, model.height, model.channels,
        gst_ax_tensor_dtype_to_string (model.dtype), model.scale,
        model.zero_point, have_pp ? "stored" : "default", pp->color,
        pp->resize == GST_AX_RESIZE_STRETCH ? "stretch" : "letterbox",
        pp->fill, pp->scale, pp->mean[0], pp->mean[1], pp->mean[2],
        pp->std[0], pp->std[1], pp->std[2]);
  else
    GST_INFO_OBJECT (self, "no model answered the input query");

  /* the properties set override the model's */
  if (order != GST_AX_LETTERBOX_CHANNEL_ORDER_AUTO)
    pp->color = (GstAxColorOrder) order;
  if (resize != GST_AX_LETTERBOX_RESIZE_AUTO)
    pp->resize = resize == GST_AX_LETTERBOX_RESIZE_STRETCH ?
        GST_AX_RESIZE_STRETCH : GST_AX_RESIZE_LETTERBOX;
  if (fill != MODEL_FILL)
    pp->fill = (guint8) fill;
  self->cfg_stretch = pp->resize == GST_AX_RESIZE_STRETCH;
  self->tensor_channels = gst_ax_letterbox_render_channels (pp->color);

  self->params.width = prop_width ? (gint) prop_width :
      (have_model ? model.width : 0);
  self->params.height = prop_height ? (gint) prop_height :
      (have_model ? model.height : 0);
  if (self->params.width <= 0 || self->params.height <= 0)
    goto no_size;
  if (have_model && model.channels != self->tensor_channels)
    goto bad_channels;

  switch (dtype) {
    case GST_AX_LETTERBOX_DTYPE_AUTO:
      self->params.dtype = have_model ? model.dtype : GST_AX_TENSOR_DTYPE_U8;
      break;
    case GST_AX_LETTERBOX_DTYPE_U8:
      self->params.dtype = GST_AX_TENSOR_DTYPE_U8;
      break;
    case GST_AX_LETTERBOX_DTYPE_I8:
      self->params.dtype = GST_AX_TENSOR_DTYPE_I8;
      break;
    case GST_AX_LETTERBOX_DTYPE_F32:
      self->params.dtype = GST_AX_TENSOR_DTYPE_F32;
      break;
  }

  self->params.zero_point_offset = 0.0;
  if (scale > 0.0) {
    self->params.scale = scale;
    self->params.zero_point = zero_point;
  } else if (have_model && model.dtype == self->params.dtype
      && model.scale > 0.0f) {
    self->params.scale = model.scale;
    self->params.zero_point = model.zero_point;
    self->params.zero_point_offset = pixel_input_offset (pp, model.dtype,
        model.scale, model.zero_point);
  } else if (self->params.dtype == GST_AX_TENSOR_DTYPE_F32) {
    self->params.scale = 1.0f;
    self->params.zero_point = 0;
  } else {
    self->params.scale = 1.0f / MAX_PIXEL_VALUE;
    self->params.zero_point =
        self->params.dtype == GST_AX_TENSOR_DTYPE_I8 ? G_MININT8 : 0;
  }

  self->params.layout = have_model ? model.layout : GST_AX_TENSOR_LAYOUT_NHWC;
  self->tensor_name = have_model && model.name && *model.name ? model.name :
      g_intern_static_string (DEFAULT_TENSOR_NAME);
  self->params.portable = self->portable;

  if (!self->cfg_roi_mode)
    gst_ax_letterbox_geometry (self, &self->frame_lb,
        GST_VIDEO_INFO_WIDTH (&self->in_info),
        GST_VIDEO_INFO_HEIGHT (&self->in_info));
  gst_ax_letterbox_render_free (self->render);
  /* ROI mode sets the region of each crop before rendering it */
  self->render = gst_ax_letterbox_render_new (&self->in_info, &self->params,
      self->cfg_roi_mode ? NULL : &self->frame_lb);

  tensor_bytes = gst_ax_letterbox_render_tensor_size (&self->params);
  if (self->pool == NULL || tensor_bytes != self->tensor_bytes) {
    if (self->pool) {
      gst_buffer_pool_set_active (self->pool, FALSE);
      gst_object_unref (self->pool);
    }
    self->pool = gst_buffer_pool_new ();
    config = gst_buffer_pool_get_config (self->pool);
    gst_buffer_pool_config_set_params (config, NULL, tensor_bytes,
        POOL_MIN_BUFFERS, 0);
    if (!gst_buffer_pool_set_config (self->pool, config) ||
        !gst_buffer_pool_set_active (self->pool, TRUE))
      goto pool_failed;
    self->tensor_bytes = tensor_bytes;
  }

  GST_INFO_OBJECT (self, "tensor '%s' %dx%dx%d %s %s scale %g zero point "
      "%d, %s, %s, fill %u", self->tensor_name, self->params.width,
      self->params.height, self->tensor_channels,
      gst_ax_tensor_dtype_to_string (self->params.dtype),
      self->params.layout == GST_AX_TENSOR_LAYOUT_NCHW ? "NCHW" : "NHWC",
      self->params.scale, self->params.zero_point,
      self->params.bilinear ? "bilinear" : "nearest",
      self->cfg_stretch ? "stretch" : "letterbox",
      self->params.preprocess.fill);
  self->configured = TRUE;
  return TRUE;

  /* ERRORS */
no_size:
  {
    GST_ELEMENT_ERROR (self, CORE, NEGOTIATION,
        ("No tensor size: set the width and height properties, or link "
            "axletterbox to a model (axinference) that answers the model "
            "input query."), ("width=%u height=%u, model answered: %s",
            prop_width, prop_height, have_model ? "yes" : "no"));
    return FALSE;
  }
bad_channels:
  {
    GST_ELEMENT_ERROR (self, CORE, NEGOTIATION,
        ("Model '%s' wants %d input channels, axletterbox makes %d (channel "
            "order %s).", model.model_name, model.channels,
            self->tensor_channels, pp->color == GST_AX_COLOR_ORDER_GRAY ?
            "gray" : (pp->color == GST_AX_COLOR_ORDER_BGR ? "bgr" : "rgb")),
        ("the model's preprocessing is %s; set channel-order to match the "
            "model's input", have_pp ? "stored" : "the default (rgb)"));
    return FALSE;
  }
pool_failed:
  {
    GST_ELEMENT_ERROR (self, RESOURCE, FAILED,
        ("Could not set up a pool of %" G_GSIZE_FORMAT "-byte tensors.",
            tensor_bytes), (NULL));
    gst_clear_object (&self->pool);
    return FALSE;
  }
}

static gboolean
remove_input_tensor (GstBuffer * buffer, GstMeta ** meta, gpointer user_data)
{
  if ((*meta)->info->api == GST_AX_TENSOR_META_API_TYPE &&
      ((GstAxTensorMeta *) * meta)->role == GST_AX_TENSOR_ROLE_INPUT)
    *meta = NULL;
  return TRUE;
}

static GstFlowReturn
gst_ax_letterbox_make_tensor (GstAxLetterbox * self,
    const GstVideoFrame * frame, GstBuffer * buf,
    const GstAxLetterboxGeometry * lb, guint instance, gint roi_id)
{
  GstBuffer *tensor = NULL;
  GstMapInfo map;
  GstAxTensorMeta *meta;
  GstFlowReturn ret;
  gint64 dims[TENSOR_RANK];
  gssize shared;

  shared = gst_ax_letterbox_render_shared_offset (self->render, frame,
      gst_buffer_get_size (buf));
  /* the tensor refs the frame's memory: nothing to render; a writer of
   * the frame downstream gets its own copy of the memory */
  if (shared >= 0)
    tensor = gst_buffer_copy_region (buf, GST_BUFFER_COPY_MEMORY, shared,
        self->tensor_bytes);
  if (tensor == NULL) {
    ret = gst_buffer_pool_acquire_buffer (self->pool, &tensor, NULL);
    if (ret != GST_FLOW_OK)
      goto no_tensor;
    if (!gst_buffer_map (tensor, &map, GST_MAP_WRITE))
      goto map_failed;
    gst_ax_letterbox_render_frame (self->render, frame, map.data);
    gst_buffer_unmap (tensor, &map);
  }

  dims[0] = 1;
  if (self->params.layout == GST_AX_TENSOR_LAYOUT_NHWC) {
    dims[1] = self->params.height;
    dims[2] = self->params.width;
    dims[3] = self->tensor_channels;
  } else {
    dims[1] = self->tensor_channels;
    dims[2] = self->params.height;
    dims[3] = self->params.width;
  }
  meta = gst_buffer_add_ax_tensor_meta (buf, self->tensor_name,
      GST_AX_TENSOR_ROLE_INPUT, self->params.dtype, self->params.layout,
      TENSOR_RANK, dims, self->params.scale, self->params.zero_point, tensor);
  if (meta == NULL)
    goto meta_failed;
  meta->instance = instance;
  meta->index = 0;
  meta->has_letterbox = TRUE;
  meta->letterbox = *lb;
  meta->roi_id = roi_id;
  return GST_FLOW_OK;

  /* ERRORS */
no_tensor:
  {
    GST_DEBUG_OBJECT (self, "no tensor from the pool: %s",
        gst_flow_get_name (ret));
    return ret;
  }
map_failed:
  {
    gst_buffer_unref (tensor);
    GST_ELEMENT_ERROR (self, RESOURCE, FAILED,
        ("Could not map a tensor for writing."), (NULL));
    return GST_FLOW_ERROR;
  }
meta_failed:
  {
    GST_ELEMENT_ERROR (self, CORE, FAILED,
        ("Could not attach the tensor meta."), (NULL));
    return GST_FLOW_ERROR;
  }
}

static gboolean
roi_class_selected (GstAxLetterbox * self, GQuark roi_type)
{
  guint i;

  /* the region carrying a whole frame's classes is not one to crop,
   * unless asked for by name */
  if (self->n_roi_classes == 0)
    return roi_type != g_quark_from_static_string (GST_AX_FRAME_ROI_TYPE);
  for (i = 0; i < self->n_roi_classes; i++)
    if (self->roi_class_quarks[i] == roi_type)
      return TRUE;
  return FALSE;
}

/* One axis of a region's crop: [*lo, *hi) of @size frame pixels, made
 * @len long about its centre and moved inside the frame. */
static void
crop_axis (gdouble centre, gdouble len, gint size, gint * lo, gint * hi)
{
  gdouble a = centre - len / 2.0, b = centre + len / 2.0;

  if (a < 0.0) {
    b -= a;
    a = 0.0;
  }
  if (b > size) {
    a -= b - size;
    b = size;
  }
  *lo = (gint) CLAMP (floor (a + 0.5), 0.0, (gdouble) size);
  *hi = (gint) CLAMP (floor (b + 0.5), 0.0, (gdouble) size);
}

/* Whether an earlier region of the frame than @roi has its id. */
static gboolean
roi_id_taken (GstBuffer * buf, GstVideoRegionOfInterestMeta * roi)
{
  gpointer state = NULL;
  GstMeta *m;

  while ((m = gst_buffer_iterate_meta_filtered (buf, &state,
              GST_VIDEO_REGION_OF_INTEREST_META_API_TYPE))) {
    GstVideoRegionOfInterestMeta *r = (GstVideoRegionOfInterestMeta *) m;

    if (r == roi)
      return FALSE;
    if (r->id == roi->id)
      return TRUE;
  }
  return FALSE;
}

static GstFlowReturn
gst_ax_letterbox_roi_tensors (GstAxLetterbox * self,
    const GstVideoFrame * frame, GstBuffer * buf)
{
  const gint fw = GST_VIDEO_FRAME_WIDTH (frame);
  const gint fh = GST_VIDEO_FRAME_HEIGHT (frame);
  gpointer state = NULL;
  GstMeta *m;
  guint instance = 0;
  GstFlowReturn ret = GST_FLOW_OK;

  while ((m = gst_buffer_iterate_meta_filtered (buf, &state,
              GST_VIDEO_REGION_OF_INTEREST_META_API_TYPE))) {
    GstVideoRegionOfInterestMeta *roi = (GstVideoRegionOfInterestMeta *) m;
    GstAxLetterboxGeometry lb;
    gint x0, y0, x1, y1;

    if (!roi_class_selected (self, roi->roi_type))
      continue;
    if (self->crop_square || self->crop_scale != DEFAULT_CROP_SCALE) {
      gdouble w = roi->w * self->crop_scale, h = roi->h * self->crop_scale;

      if (self->crop_square)
        w = h = MAX (w, h);
      crop_axis (roi->x + roi->w / 2.0, w, fw, &x0, &x1);
      crop_axis (roi->y + roi->h / 2.0, h, fh, &y0, &y1);
    } else {
      x0 = MIN ((gint) MIN (roi->x, (guint) G_MAXINT), fw);
      y0 = MIN ((gint) MIN (roi->y, (guint) G_MAXINT), fh);
      x1 = (gint) MIN ((gint64) roi->x + roi->w, (gint64) fw);
      y1 = (gint) MIN ((gint64) roi->y + roi->h, (gint64) fh);
    }
    if (!gst_ax_letterbox_geometry (self, &lb, x1 - x0, y1 - y0)) {
      GST_LOG_OBJECT (self, "skipping empty region %u,%u %ux%u", roi->x,
          roi->y, roi->w, roi->h);
      continue;
    }
    lb.src_x = x0;
    lb.src_y = y0;
    /* the tensor's result must find this region, and only this one */
    if (roi_id_taken (buf, roi))
      roi->id = gst_ax_roi_next_id (buf);
    gst_ax_letterbox_render_set_region (self->render, &lb);
    ret = gst_ax_letterbox_make_tensor (self, frame, buf, &lb, instance++,
        roi->id);
    if (ret != GST_FLOW_OK)
      break;
  }
  return ret;
}

static GstFlowReturn
gst_ax_letterbox_transform_ip (GstBaseTransform * trans, GstBuffer * buf)
{
  GstAxLetterbox *self = GST_AX_LETTERBOX (trans);
  GstVideoFrame frame;
  GstFlowReturn ret;
  gboolean dirty;

  if (GST_VIDEO_INFO_FORMAT (&self->in_info) == GST_VIDEO_FORMAT_UNKNOWN)
    goto not_negotiated;

  GST_OBJECT_LOCK (self);
  dirty = self->dirty;
  GST_OBJECT_UNLOCK (self);
  if ((dirty || !self->configured)
      && !gst_ax_letterbox_configure (self))
    return GST_FLOW_ERROR;

  /* no ref: the buffer must stay writable for the meta */
  if (!gst_video_frame_map (&frame, &self->in_info, buf,
          GST_MAP_READ | GST_VIDEO_FRAME_MAP_FLAG_NO_REF))
    goto map_failed;

  gst_buffer_foreach_meta (buf, remove_input_tensor, NULL);
  if (self->cfg_roi_mode)
    ret = gst_ax_letterbox_roi_tensors (self, &frame, buf);
  else
    ret = gst_ax_letterbox_make_tensor (self, &frame, buf, &self->frame_lb, 0,
        GST_AX_TENSOR_ROI_NONE);

  gst_video_frame_unmap (&frame);
  return ret;

  /* ERRORS */
not_negotiated:
  {
    GST_ELEMENT_ERROR (self, CORE, NEGOTIATION,
        ("axletterbox received a frame before its caps."), (NULL));
    return GST_FLOW_NOT_NEGOTIATED;
  }
map_failed:
  {
    GST_ELEMENT_ERROR (self, STREAM, FAILED,
        ("Could not map the input frame for reading."),
        ("buffer of %" G_GSIZE_FORMAT " bytes for caps of %" G_GSIZE_FORMAT,
            gst_buffer_get_size (buf), GST_VIDEO_INFO_SIZE (&self->in_info)));
    return GST_FLOW_ERROR;
  }
}
