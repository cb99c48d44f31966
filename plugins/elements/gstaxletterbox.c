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
 * axis on its own (see #GstAxLetterbox), applies the model's
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
 * label is listed in roi-classes), each cropped from the full-resolution
 * frame, with its own instance index and geometry (src_x, src_y set).
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

#include <gst/ax/ax.h>
#include <gst/video/video.h>
#include <math.h>
#include <string.h>

#if defined(__GNUC__) && (defined(__x86_64__) || defined(__i386__))
#define HAVE_X86_SIMD 1
#include <immintrin.h>
#endif

GST_DEBUG_CATEGORY_STATIC (gst_ax_letterbox_element_debug);
#define GST_CAT_DEFAULT gst_ax_letterbox_element_debug

/* Rows are rendered with three colour channels; a gray tensor has one. */
#define N_CHANNELS 3
#define GRAY_CHANNELS 1
/* the luma weights of a gray model's input, as its calibration used */
#define LUMA_R 0.299f
#define LUMA_G 0.587f
#define LUMA_B 0.114f
/* how close 1 / d must be to a pixel scale to be taken for it exactly */
#define DIVISOR_TOLERANCE 1e-6
#define TENSOR_RANK 4
#define MAX_TENSOR_SIDE 16384
#define MAX_PIXEL_VALUE 255
#define MIN_ZERO_POINT (-32768)
#define MAX_ZERO_POINT 32767
/* Buffers kept in the tensor pool; downstream may hold more in flight. */
#define POOL_MIN_BUFFERS 2
#define DEFAULT_TENSOR_NAME "input"
#define CHROMA_OFFSET 128.0f
#define SIGN_BIT 0x80
/* the vector affine map adds the zero point in int32 and saturates to
 * int16 then to the byte range: keep both terms well inside int16 */
#define MIN_AFFINE_ZERO_POINT (-1024)
#define MAX_AFFINE_ZERO_POINT 1024
#define MAX_AFFINE_SCALED 16384.0f
/* set to run the portable kernels on any CPU (tests compare both) */
#define PORTABLE_ENV "GST_AX_LETTERBOX_PORTABLE"
/* the vector kernels load a packed pixel as four bytes */
#define VECTOR_PIXEL_BYTES 4
/* weights of the integer kernels are in 1/64: both taps' weights fit the
 * signed bytes of pmaddubsw, a vertical blend of bytes fits int16 */
#define WEIGHT_BITS 6
#define WEIGHT_ONE (1 << WEIGHT_BITS)
/* packed RGB also runs in integers with weights in 1/128 (1080 rows into
 * 512): pmaddubsw takes (128 - m, m) for m >= 1, and a row with m = 0
 * (both taps the same row) takes (64, 64) */
#define FINE_WEIGHT_BITS 7
#define WEIGHT_PAIR_SHIFT 16
#define PAIRS_PER_VECTOR 4
#define ROW_PAD_FLOATS 4
#define HALF 0.5f
#define BOX_PIXELS 8
#define BOX_LOAD_BYTES 16
#define PERIOD_BLOCK 8
#define AFFINE_BLOCK 32
/* which term of a YUV to RGB channel has a zero coefficient */
#define ZERO_NONE 0
#define ZERO_U 1
#define ZERO_V 2
/* floats from a U (or V) to the next in an NV12 chroma row */
#define UV_STEP 2
/* int16 samples past the last that the fused YUV kernel may load */
#define CHROMA16_PAD 16
/* a vertically blended chroma sample in int16: 128 * WEIGHT_ONE */
#define CHROMA16_OFFSET (128 * WEIGHT_ONE)

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

/* Per-geometry sampling tables, sized once per configuration for the
 * largest geometry (the tensor) so that ROI crops reuse them. Component c
 * is R, G, B for RGB formats and Y, U, V for YUV formats. Indices are
 * byte offsets into a row of the component's plane. */
typedef struct
{
  gint n_planes;
  gint comp_plane[N_CHANNELS];
  gint32 *x0[N_CHANNELS];
  gint32 *x1[N_CHANNELS];
  gfloat *wx[N_CHANNELS];
  gint32 *y0[GST_VIDEO_MAX_PLANES];
  gint32 *y1[GST_VIDEO_MAX_PLANES];
  gfloat *wy[GST_VIDEO_MAX_PLANES];
  /* byte range of a plane row that the x tables read */
  gint col_lo[GST_VIDEO_MAX_PLANES];
  gint col_hi[GST_VIDEO_MAX_PLANES];
  /* vertically blended plane rows, bilinear only */
  gfloat *rowf[GST_VIDEO_MAX_PLANES];
  /* every x weight of the component is 0: one tap suffices */
  gboolean one_tap_x[N_CHANNELS];
  /* one row of each component's samples */
  gfloat *comp[N_CHANNELS];
  /* packed RGB formats: byte offsets of the pixels holding the two taps
   * (component offsets left out) */
  gint32 *px0;
  gint32 *px1;
  /* the leading tensor columns whose 4-byte and 8-byte loads at px0 stay
   * inside the source row, for the vector kernels */
  gint n_vector;
  gint n_vector8;
  /* RGB at exactly 2:1 across: each column averages two consecutive
   * pixels with weight 1/2; n_box columns can load 16 bytes at px0 */
  gboolean halves;
  gint n_box;
  /* columns [period_lo, period_hi) of each component repeat every two
   * columns one sample further on with the same weight (chroma upsampled
   * 2x at 1:1): blocks starting at x with period_lo <= x and x + 6 <=
   * period_hi need no index loads */
  gint period_lo[N_CHANNELS];
  gint period_hi[N_CHANNELS];
  /* in [period_lo, period_hi + 2) the second tap is the next sample (or
   * has weight 0) */
  gboolean period_taps[N_CHANNELS];
  /* YUV, chroma (U, V) rows blended vertically in integers, minus 128, in
   * 1/WEIGHT_ONE, one int16 per chroma sample */
  gint16 *chroma16[2];
  /* every weight of the component (x) or plane (y) is a multiple of
   * 1 / WEIGHT_ONE: the float arithmetic is exact and integers give the
   * same results */
  gboolean dyadic_x[N_CHANNELS];
  gboolean dyadic_y[GST_VIDEO_MAX_PLANES];
  /* packed RGB whose weights in both axes are multiples of 1 / 2^bits
   * (bits WEIGHT_BITS or FINE_WEIGHT_BITS; 0 if none): per column the int16
   * weights (2^bits - m, m) of its taps, repeated four times */
  gint packed_bits;
  gint32 *wx_pair;
  /* one tap in both axes at every column, on consecutive source pixels:
   * rows are copied */
  gboolean contiguous;
} SampleTables;

/* Output channel k = gain * (Y - offset) + from_u[k] * (U - 128) +
 * from_v[k] * (V - 128), rows already in the tensor's channel order. */
typedef struct
{
  gfloat y_offset;
  gfloat y_gain;
  gfloat from_u[N_CHANNELS];
  gfloat from_v[N_CHANNELS];
} YuvMatrix;

struct _GstAxLetterboxElement
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

  /* streaming thread only from here on */
  GstVideoInfo in_info;
  gboolean is_yuv;
  /* YUV to RGB, without the channel order */
  gfloat y_offset;
  gfloat y_gain;
  gfloat r_from_v;
  gfloat g_from_u;
  gfloat g_from_v;
  gfloat b_from_u;

  /* the active configuration */
  gint tensor_width;
  gint tensor_height;
  GstAxTensorDType tensor_dtype;
  GstAxTensorLayout tensor_layout;
  gfloat tensor_scale;
  gint32 tensor_zero_point;
  const gchar *tensor_name;
  gsize tensor_bytes;
  gboolean cfg_centre;
  gboolean cfg_scale_up;
  gboolean cfg_bilinear;
  gboolean cfg_roi_mode;
  gboolean cfg_stretch;
  guint8 cfg_fill;
  /* the model's preprocessing with the properties' overrides applied */
  GstAxModelPreprocess cfg_pp;
  /* 3, or 1 for gray: the rows are still rendered as RGB, then reduced */
  gint tensor_channels;
  gint red_pos;
  gint blue_pos;
  /* YUV to tensor channels, in the configured channel order */
  YuvMatrix matrix;
  /* the u8 quantisation is p ^ flip (flip 0 or 0x80), fused into the
   * kernels' stores, and NHWC: rows are rendered into the tensor */
  gboolean direct_u8;
  guint8 flip;
  /* not direct: the LUT is saturate (round (p * affine_gain +
   * affine_bias) + zero point), checked on every p, and NHWC rows use the
   * vector kernel */
  gboolean affine;
  gfloat affine_gain;
  gfloat affine_bias;
  /* per tensor channel: the model's preprocessing and the quantisation of
   * each pixel value; uniform when the three are the same table */
  guint8 lut_u8[N_CHANNELS][MAX_PIXEL_VALUE + 1];
  gfloat lut_f32[N_CHANNELS][MAX_PIXEL_VALUE + 1];
  gboolean uniform;
  /* the pad value of each tensor channel */
  guint8 qfill_u8[N_CHANNELS];
  gfloat qfill_f32[N_CHANNELS];
  /* gray: value = (luma * pixel_scale - mean) / std, luma in float from
   * the rendered RGB bytes */
  gdouble pixel_divisor;
  /* a pixel input (see pixel_input_offset): what the model's integer zero
   * point leaves out, added before rounding; 0 for other models */
  gdouble zero_point_offset;
  GQuark *roi_class_quarks;
  guint n_roi_classes;

  GstAxLetterbox frame_lb;
  SampleTables tables;
  guint8 *scratch;
  GstBufferPool *pool;
  /* the CPU runs the AVX2 kernels */
  gboolean use_simd;
};

static void gst_ax_letterbox_element_class_init (GstAxLetterboxElementClass *
    klass);
static void gst_ax_letterbox_element_init (GstAxLetterboxElement * self);

static gpointer parent_class = NULL;

static void
gst_ax_letterbox_element_class_intern_init (gpointer klass)
{
  parent_class = g_type_class_peek_parent (klass);
  gst_ax_letterbox_element_class_init (klass);
}

/* Registered by hand rather than with G_DEFINE_TYPE so that the GType is
 * called GstAxLetterbox and instances get the default names axletterbox0,
 * axletterbox1, ... that the profiler report shows; libgstax's
 * GstAxLetterbox is a plain struct without a GType. */
GType
gst_ax_letterbox_element_get_type (void)
{
  static GType type = 0;

  if (g_once_init_enter (&type)) {
    GType t = g_type_register_static_simple (GST_TYPE_BASE_TRANSFORM,
        g_intern_static_string ("GstAxLetterbox"),
        sizeof (GstAxLetterboxElementClass),
        (GClassInitFunc) gst_ax_letterbox_element_class_intern_init,
        sizeof (GstAxLetterboxElement),
        (GInstanceInitFunc) gst_ax_letterbox_element_init, 0);
    g_once_init_leave (&type, t);
  }
  return type;
}

GST_ELEMENT_REGISTER_DEFINE_WITH_CODE (axletterbox, "axletterbox",
    GST_RANK_NONE, GST_TYPE_AX_LETTERBOX_ELEMENT,
    GST_DEBUG_CATEGORY_INIT (gst_ax_letterbox_element_debug, "axletterbox", 0,
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

static void gst_ax_letterbox_element_finalize (GObject * object);
static void gst_ax_letterbox_element_set_property (GObject * object,
    guint prop_id, const GValue * value, GParamSpec * pspec);
static void gst_ax_letterbox_element_get_property (GObject * object,
    guint prop_id, GValue * value, GParamSpec * pspec);
static gboolean gst_ax_letterbox_element_stop (GstBaseTransform * trans);
static gboolean gst_ax_letterbox_element_set_caps (GstBaseTransform * trans,
    GstCaps * incaps, GstCaps * outcaps);
static GstFlowReturn gst_ax_letterbox_element_transform_ip (GstBaseTransform
    * trans, GstBuffer * buf);
static gboolean gst_ax_letterbox_element_src_event (GstBaseTransform * trans,
    GstEvent * event);

static void
gst_ax_letterbox_element_class_init (GstAxLetterboxElementClass * klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  GstElementClass *element_class = GST_ELEMENT_CLASS (klass);
  GstBaseTransformClass *trans_class = GST_BASE_TRANSFORM_CLASS (klass);

  gobject_class->finalize = gst_ax_letterbox_element_finalize;
  gobject_class->set_property = gst_ax_letterbox_element_set_property;
  gobject_class->get_property = gst_ax_letterbox_element_get_property;

  g_object_class_install_property (gobject_class, PROP_WIDTH,
      g_param_spec_uint ("width", "Width",
          "Tensor width in pixels; 0 asks the downstream model",
          0, MAX_TENSOR_SIDE, DEFAULT_PROP_WIDTH,
          G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS));
  g_object_class_install_property (gobject_class, PROP_HEIGHT,
      g_param_spec_uint ("height", "Height",
          "Tensor height in pixels; 0 asks the downstream model",
          0, MAX_TENSOR_SIDE, DEFAULT_PROP_HEIGHT,
          G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS));
  g_object_class_install_property (gobject_class, PROP_FILL,
      g_param_spec_int ("fill", "Fill",
          "Pixel value (0-255, all channels) of the letterbox padding, "
          "preprocessed and quantised like the image; -1 takes the "
          "model's (114 when no model answers)", MODEL_FILL,
          MAX_PIXEL_VALUE, DEFAULT_PROP_FILL,
          G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS));
  g_object_class_install_property (gobject_class, PROP_CHANNEL_ORDER,
      g_param_spec_enum ("channel-order", "Channel order",
          "Order of the colour channels in the tensor (gray: one channel); "
          "auto takes the model's", GST_TYPE_AX_LETTERBOX_CHANNEL_ORDER,
          DEFAULT_PROP_CHANNEL_ORDER,
          G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS));
  g_object_class_install_property (gobject_class, PROP_RESIZE,
      g_param_spec_enum ("resize", "Resize",
          "Letterbox (aspect ratio kept, padded) or stretch (each axis on "
          "its own); auto takes the model's", GST_TYPE_AX_LETTERBOX_RESIZE,
          DEFAULT_PROP_RESIZE, G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS));
  g_object_class_install_property (gobject_class, PROP_DTYPE,
      g_param_spec_enum ("dtype", "Data type",
          "Element type of the tensor", GST_TYPE_AX_LETTERBOX_DTYPE,
          DEFAULT_PROP_DTYPE, G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS));
  g_object_class_install_property (gobject_class, PROP_SCALE,
      g_param_spec_double ("scale", "Quantisation scale",
          "q = round (value / scale) + zero-point, with value the pixel "
          "after the model's preprocessing (pixel / 255 when no model "
          "answers); 0 takes scale and zero-point from the model (else "
          "1/255 for u8 and i8, with zero-point 0 and -128, and 1 for f32)",
          0.0, G_MAXFLOAT, DEFAULT_PROP_SCALE,
          G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS));
  g_object_class_install_property (gobject_class, PROP_ZERO_POINT,
      g_param_spec_int ("zero-point", "Quantisation zero point",
          "Zero point of the quantisation; used only when scale is set",
          MIN_ZERO_POINT, MAX_ZERO_POINT, DEFAULT_PROP_ZERO_POINT,
          G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS));
  g_object_class_install_property (gobject_class, PROP_CENTRE,
      g_param_spec_boolean ("centre", "Centre",
          "Letterbox: centre the image in the tensor (else place it "
          "top-left)",
          DEFAULT_PROP_CENTRE, G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS));
  g_object_class_install_property (gobject_class, PROP_SCALE_UP,
      g_param_spec_boolean ("scale-up", "Scale up",
          "Letterbox: enlarge images smaller than the tensor (else only "
          "shrink)",
          DEFAULT_PROP_SCALE_UP, G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS));
  g_object_class_install_property (gobject_class, PROP_METHOD,
      g_param_spec_enum ("method", "Method", "Resampling method",
          GST_TYPE_AX_LETTERBOX_METHOD, DEFAULT_PROP_METHOD,
          G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS));
  g_object_class_install_property (gobject_class, PROP_ROI_MODE,
      g_param_spec_boolean ("roi-mode", "ROI mode",
          "Make one tensor per region-of-interest meta (cropped from the "
          "frame) instead of one for the whole frame",
          DEFAULT_PROP_ROI_MODE, G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS));
  g_object_class_install_property (gobject_class, PROP_ROI_CLASSES,
      g_param_spec_string ("roi-classes", "ROI classes",
          "Comma-separated labels of the regions used in roi-mode; "
          "empty for all", DEFAULT_PROP_ROI_CLASSES,
          G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS));

  gst_element_class_add_static_pad_template (element_class, &sink_template);
  gst_element_class_add_static_pad_template (element_class, &src_template);
  gst_element_class_set_static_metadata (element_class,
      "Letterbox to tensor", "Filter/Converter/Video/Scaler",
      "Converts, resizes (letterbox or stretch), pads, preprocesses and "
      "quantises each frame into a model input tensor attached as meta",
      "gst-ax developers");

  trans_class->stop = GST_DEBUG_FUNCPTR (gst_ax_letterbox_element_stop);
  trans_class->src_event =
      GST_DEBUG_FUNCPTR (gst_ax_letterbox_element_src_event);
  trans_class->set_caps = GST_DEBUG_FUNCPTR (gst_ax_letterbox_element_set_caps);
  trans_class->transform_ip =
      GST_DEBUG_FUNCPTR (gst_ax_letterbox_element_transform_ip);

  gst_type_mark_as_plugin_api (GST_TYPE_AX_LETTERBOX_CHANNEL_ORDER, 0);
  gst_type_mark_as_plugin_api (GST_TYPE_AX_LETTERBOX_DTYPE, 0);
  gst_type_mark_as_plugin_api (GST_TYPE_AX_LETTERBOX_METHOD, 0);
  gst_type_mark_as_plugin_api (GST_TYPE_AX_LETTERBOX_RESIZE, 0);
}

static void
gst_ax_letterbox_element_init (GstAxLetterboxElement * self)
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
#ifdef HAVE_X86_SIMD
  self->use_simd = __builtin_cpu_supports ("avx2")
      && g_getenv (PORTABLE_ENV) == NULL;
#endif

  /* the frame is only read; the tensor rides on it as meta */
  gst_base_transform_set_in_place (GST_BASE_TRANSFORM (self), TRUE);
  gst_base_transform_set_passthrough (GST_BASE_TRANSFORM (self), FALSE);
}

static void
sample_tables_clear (SampleTables * t)
{
  gint i;

  for (i = 0; i < N_CHANNELS; i++) {
    g_clear_pointer (&t->x0[i], g_free);
    g_clear_pointer (&t->x1[i], g_free);
    g_clear_pointer (&t->wx[i], g_free);
    g_clear_pointer (&t->comp[i], g_free);
  }
  for (i = 0; i < GST_VIDEO_MAX_PLANES; i++) {
    g_clear_pointer (&t->y0[i], g_free);
    g_clear_pointer (&t->y1[i], g_free);
    g_clear_pointer (&t->wy[i], g_free);
    g_clear_pointer (&t->rowf[i], g_free);
  }
  g_clear_pointer (&t->px0, g_free);
  g_clear_pointer (&t->px1, g_free);
  g_clear_pointer (&t->wx_pair, g_free);
  g_clear_pointer (&t->chroma16[0], g_free);
  g_clear_pointer (&t->chroma16[1], g_free);
  t->n_planes = 0;
}

static void
gst_ax_letterbox_element_release (GstAxLetterboxElement * self)
{
  sample_tables_clear (&self->tables);
  g_clear_pointer (&self->scratch, g_free);
  g_clear_pointer (&self->roi_class_quarks, g_free);
  self->n_roi_classes = 0;
  if (self->pool) {
    gst_buffer_pool_set_active (self->pool, FALSE);
    gst_clear_object (&self->pool);
  }
  self->tensor_bytes = 0;
}

static void
gst_ax_letterbox_element_finalize (GObject * object)
{
  GstAxLetterboxElement *self = GST_AX_LETTERBOX_ELEMENT (object);

  gst_ax_letterbox_element_release (self);
  g_free (self->roi_classes);

  G_OBJECT_CLASS (parent_class)->finalize (object);
}

static void
gst_ax_letterbox_element_set_property (GObject * object, guint prop_id,
    const GValue * value, GParamSpec * pspec)
{
  GstAxLetterboxElement *self = GST_AX_LETTERBOX_ELEMENT (object);

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
gst_ax_letterbox_element_get_property (GObject * object, guint prop_id,
    GValue * value, GParamSpec * pspec)
{
  GstAxLetterboxElement *self = GST_AX_LETTERBOX_ELEMENT (object);

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
gst_ax_letterbox_element_stop (GstBaseTransform * trans)
{
  GstAxLetterboxElement *self = GST_AX_LETTERBOX_ELEMENT (trans);

  gst_ax_letterbox_element_release (self);
  self->configured = FALSE;
  GST_OBJECT_LOCK (self);
  self->dirty = TRUE;
  GST_OBJECT_UNLOCK (self);
  return TRUE;
}

/* Sets the YUV to RGB coefficients: R = g (Y - o) + rv V', G = g (Y - o) -
 * gu U' - gv V', B = g (Y - o) + bu U', with U' = U - 128, V' = V - 128,
 * in 0..255 pixel units. */
static void
gst_ax_letterbox_element_setup_matrix (GstAxLetterboxElement * self,
    GstCaps * caps)
{
  const GstStructure *s = gst_caps_get_structure (caps, 0);
  GstVideoColorMatrix matrix = GST_VIDEO_COLOR_MATRIX_BT601;
  GstVideoColorRange range = GST_VIDEO_COLOR_RANGE_16_235;
  gdouble kr, kb, kg;
  gint offset[GST_VIDEO_MAX_COMPONENTS], scale[GST_VIDEO_MAX_COMPONENTS];
  gdouble y_gain, c_gain;

  if (gst_structure_has_field (s, "colorimetry")) {
    const GstVideoColorimetry *cinfo = &self->in_info.colorimetry;

    if (cinfo->matrix != GST_VIDEO_COLOR_MATRIX_UNKNOWN &&
        cinfo->matrix != GST_VIDEO_COLOR_MATRIX_RGB)
      matrix = cinfo->matrix;
    if (cinfo->range != GST_VIDEO_COLOR_RANGE_UNKNOWN)
      range = cinfo->range;
  }

  if (!gst_video_color_matrix_get_Kr_Kb (matrix, &kr, &kb)) {
    matrix = GST_VIDEO_COLOR_MATRIX_BT601;
    gst_video_color_matrix_get_Kr_Kb (matrix, &kr, &kb);
  }
  kg = 1.0 - kr - kb;
  gst_video_color_range_offsets (range, self->in_info.finfo, offset, scale);

  y_gain = (gdouble) MAX_PIXEL_VALUE / scale[0];
  c_gain = (gdouble) MAX_PIXEL_VALUE / scale[1];
  self->y_offset = offset[0];
  self->y_gain = y_gain;
  self->r_from_v = 2.0 * (1.0 - kr) * c_gain;
  self->b_from_u = 2.0 * (1.0 - kb) * c_gain;
  self->g_from_u = 2.0 * (1.0 - kb) * kb / kg * c_gain;
  self->g_from_v = 2.0 * (1.0 - kr) * kr / kg * c_gain;

  GST_DEBUG_OBJECT (self, "YUV matrix %d range %d (Kr %f Kb %f)", matrix,
      range, kr, kb);
}

static gboolean
gst_ax_letterbox_element_set_caps (GstBaseTransform * trans, GstCaps * incaps,
    GstCaps * outcaps)
{
  GstAxLetterboxElement *self = GST_AX_LETTERBOX_ELEMENT (trans);

  if (!gst_video_info_from_caps (&self->in_info, incaps))
    goto invalid_caps;

  self->is_yuv = GST_VIDEO_INFO_IS_YUV (&self->in_info);
  if (self->is_yuv)
    gst_ax_letterbox_element_setup_matrix (self, incaps);

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
gst_ax_letterbox_element_src_event (GstBaseTransform * trans, GstEvent * event)
{
  GstAxLetterboxElement *self = GST_AX_LETTERBOX_ELEMENT (trans);

  if (GST_EVENT_TYPE (event) == GST_EVENT_RECONFIGURE) {
    GST_OBJECT_LOCK (self);
    self->dirty = TRUE;
    GST_OBJECT_UNLOCK (self);
  }
  return GST_BASE_TRANSFORM_CLASS (parent_class)->src_event (trans, event);
}

/* Whether the float bilinear arithmetic on bytes with weight @w is exact:
 * with weights that are multiples of 1 / WEIGHT_ONE (2^-6) every value
 * needs at most 8 + 2 * 6 bits, well inside a float's 24. */
static gboolean
is_dyadic (gfloat w)
{
  const gfloat scaled = w * WEIGHT_ONE;

  return scaled == floorf (scaled);
}

/* Every weight of @w a multiple of 2^-@bits: at 7 bits the float
 * arithmetic still needs at most 8 + 2 * 7 bits, exact too. */
static gboolean
weights_fit (const gfloat * w, gint n, gint bits)
{
  const gfloat one = (gfloat) (1 << bits);
  gint i;

  for (i = 0; i < n; i++)
    if (w[i] * one != floorf (w[i] * one))
      return FALSE;
  return TRUE;
}

/* The source taps of one output sample at @luma (in luma pixels; @sub is
 * the component's subsampling factor), kept inside [@lo, @hi]. At the
 * region's edges the sample clamps to one tap rather than blending in
 * pixels from outside the region. */
static void
sample_taps (gdouble luma, gdouble sub, gint lo, gint hi, gboolean bilinear,
    gint * i0, gint * i1, gdouble * w)
{
  *w = 0.0;
  if (bilinear) {
    gdouble pos = luma / sub - 0.5;

    *i0 = (gint) floor (pos);
    *w = pos - *i0;
    if (*i0 < lo) {
      *i0 = lo;
      *w = 0.0;
    }
    if (*i0 >= hi) {
      *i0 = hi;
      *w = 0.0;
    }
    *i1 = *w > 0.0 ? *i0 + 1 : *i0;
  } else {
    *i0 = CLAMP ((gint) floor (luma / sub), lo, hi);
    *i1 = *i0;
  }
}

/* Fills the sampling tables for the region of @lb. Coordinates follow
 * pixel centres: tensor column x samples the region at (x + 0.5) * w / rw
 * - 0.5 in the component's own grid, where a subsampled chroma sample
 * sits at the centre of the luma samples it covers. Bilinear taps are
 * clamped to the region like OpenCV's resize; nearest takes the sample
 * under the pixel centre. w / rw is 1 / scale_x of the geometry, per axis
 * (letterbox or stretch), the map gst_ax_letterbox_to_source() inverts:
 * the two agree to the last bits of a double. */
static void
sample_tables_compute (SampleTables * t, const GstVideoInfo * info,
    const GstAxLetterbox * lb, gboolean bilinear)
{
  const GstVideoFormatInfo *finfo = info->finfo;
  const gdouble fx = (gdouble) lb->src_width / lb->resized_width;
  const gdouble fy = (gdouble) lb->src_height / lb->resized_height;
  gint c, p, x, y;

  for (p = 0; p < GST_VIDEO_MAX_PLANES; p++) {
    t->col_lo[p] = G_MAXINT;
    t->col_hi[p] = -1;
  }

  for (c = 0; c < N_CHANNELS; c++) {
    const gint plane = GST_VIDEO_FORMAT_INFO_PLANE (finfo, c);
    const gint pstride = GST_VIDEO_FORMAT_INFO_PSTRIDE (finfo, c);
    const gint poffset = GST_VIDEO_FORMAT_INFO_POFFSET (finfo, c);
    const gint wsub = GST_VIDEO_FORMAT_INFO_W_SUB (finfo, c);
    const gint comp_width = GST_VIDEO_INFO_COMP_WIDTH (info, c);
    const gint lo = lb->src_x >> wsub;
    const gint hi = MIN ((lb->src_x + lb->src_width - 1) >> wsub,
        comp_width - 1);
    const gdouble sub = 1 << wsub;

    t->comp_plane[c] = plane;
    t->one_tap_x[c] = TRUE;
    t->dyadic_x[c] = TRUE;
    for (x = 0; x < lb->resized_width; x++) {
      gint i0, i1;
      gdouble w;

      sample_taps (lb->src_x + (x + 0.5) * fx, sub, lo, hi, bilinear, &i0,
          &i1, &w);
      t->x0[c][x] = i0 * pstride + poffset;
      t->x1[c][x] = i1 * pstride + poffset;
      t->wx[c][x] = w;
      if (w != 0.0)
        t->one_tap_x[c] = FALSE;
      if (!is_dyadic (t->wx[c][x]))
        t->dyadic_x[c] = FALSE;
    }
    /* the longest run of columns x with x + 2 one sample on */
    t->period_lo[c] = t->period_hi[c] = 0;
    {
      const gint ps = GST_VIDEO_FORMAT_INFO_PSTRIDE (finfo, c);
      gint run = 0;

      for (x = 0; x + 2 < lb->resized_width; x++) {
        if (t->x0[c][x + 2] == t->x0[c][x] + ps &&
            t->wx[c][x + 2] == t->wx[c][x]) {
          run++;
          if (run > t->period_hi[c] - t->period_lo[c]) {
            t->period_lo[c] = x + 1 - run;
            t->period_hi[c] = x + 1;
          }
        } else {
          run = 0;
        }
      }
    }
    t->period_taps[c] = TRUE;
    for (x = t->period_lo[c]; x < MIN (t->period_hi[c] + 2,
            lb->resized_width); x++)
      if (t->x1[c][x] != t->x0[c][x] + pstride && t->wx[c][x] != 0.0f)
        t->period_taps[c] = FALSE;
    t->col_lo[plane] = MIN (t->col_lo[plane], t->x0[c][0]);
    t->col_hi[plane] = MAX (t->col_hi[plane], t->x1[c][lb->resized_width - 1]);
  }

  t->n_vector = 0;
  t->n_vector8 = 0;
  t->n_box = 0;
  t->halves = FALSE;
  t->contiguous = FALSE;
  if (GST_VIDEO_FORMAT_INFO_IS_RGB (finfo)) {
    /* packed: the components of a pixel share its taps and weights */
    const gint pstride = GST_VIDEO_FORMAT_INFO_PSTRIDE (finfo, 0);
    const gint poffset = GST_VIDEO_FORMAT_INFO_POFFSET (finfo, 0);
    const gint row_bytes = GST_VIDEO_INFO_COMP_WIDTH (info, 0) * pstride;

    t->contiguous = t->one_tap_x[0] && pstride == N_CHANNELS;
    t->halves = pstride == N_CHANNELS;
    for (x = 0; x < lb->resized_width; x++) {
      t->px0[x] = t->x0[0][x] - poffset;
      t->px1[x] = t->x1[0][x] - poffset;
      if (t->px1[x] + VECTOR_PIXEL_BYTES <= row_bytes)
        t->n_vector = x + 1;
      if (t->px0[x] + 2 * VECTOR_PIXEL_BYTES <= row_bytes)
        t->n_vector8 = x + 1;
      if (t->px0[x] + BOX_LOAD_BYTES <= row_bytes)
        t->n_box = x + 1;
      if (t->wx[0][x] != HALF || t->px0[x] != t->px0[0] + 2 * pstride * x)
        t->halves = FALSE;
      if (t->px0[x] != t->px0[0] + x * pstride)
        t->contiguous = FALSE;
    }
  } else if (GST_VIDEO_FORMAT_INFO_PSTRIDE (finfo, 0) == 1) {
    /* YUV: luma taken one to one */
    t->contiguous = t->one_tap_x[0];
    for (x = 0; x < lb->resized_width; x++)
      if (t->x0[0][x] != t->x0[0][0] + x)
        t->contiguous = FALSE;
  }

  for (p = 0; p < t->n_planes; p++) {
    gint comp[GST_VIDEO_MAX_COMPONENTS];
    gint hsub, comp_height, lo, hi;
    gdouble sub;

    gst_video_format_info_component (finfo, p, comp);
    hsub = GST_VIDEO_FORMAT_INFO_H_SUB (finfo, comp[0]);
    comp_height = GST_VIDEO_INFO_COMP_HEIGHT (info, comp[0]);
    lo = lb->src_y >> hsub;
    hi = MIN ((lb->src_y + lb->src_height - 1) >> hsub, comp_height - 1);
    sub = 1 << hsub;

    t->dyadic_y[p] = TRUE;
    for (y = 0; y < lb->resized_height; y++) {
      gint i0, i1;
      gdouble w;

      sample_taps (lb->src_y + (y + 0.5) * fy, sub, lo, hi, bilinear, &i0,
          &i1, &w);
      t->y0[p][y] = i0;
      t->y1[p][y] = i1;
      t->wy[p][y] = w;
      if (!is_dyadic (t->wy[p][y]))
        t->dyadic_y[p] = FALSE;
    }
  }

  t->packed_bits = 0;
  if (GST_VIDEO_FORMAT_INFO_IS_RGB (finfo)) {
    if (t->dyadic_x[0] && t->dyadic_y[0])
      t->packed_bits = WEIGHT_BITS;
    else if (weights_fit (t->wx[0], lb->resized_width, FINE_WEIGHT_BITS) &&
        weights_fit (t->wy[0], lb->resized_height, FINE_WEIGHT_BITS))
      t->packed_bits = FINE_WEIGHT_BITS;
    for (x = 0; x < lb->resized_width && t->packed_bits; x++) {
      const gint one = 1 << t->packed_bits;
      const gint m = (gint) (t->wx[0][x] * one);
      gint k;

      for (k = 0; k < PAIRS_PER_VECTOR; k++)
        t->wx_pair[PAIRS_PER_VECTOR * x + k] =
            (gint32) (((guint32) m << WEIGHT_PAIR_SHIFT) | (guint32) (one - m));
    }
  }
}

static void
sample_tables_alloc (SampleTables * t, const GstVideoInfo * info,
    gint max_width, gint max_height)
{
  const GstVideoFormatInfo *finfo = info->finfo;
  gint row_bytes[GST_VIDEO_MAX_PLANES] = { 0, };
  gint c, p;

  sample_tables_clear (t);
  t->n_planes = GST_VIDEO_INFO_N_PLANES (info);
  for (c = 0; c < N_CHANNELS; c++) {
    const gint plane = GST_VIDEO_FORMAT_INFO_PLANE (finfo, c);
    const gint bytes = (GST_VIDEO_INFO_COMP_WIDTH (info, c) - 1) *
        GST_VIDEO_FORMAT_INFO_PSTRIDE (finfo, c) +
        GST_VIDEO_FORMAT_INFO_POFFSET (finfo, c) + 1;

    row_bytes[plane] = MAX (row_bytes[plane], bytes);
    t->x0[c] = g_new (gint32, max_width);
    t->x1[c] = g_new (gint32, max_width);
    t->wx[c] = g_new (gfloat, max_width);
    t->comp[c] = g_new (gfloat, max_width);
  }
  for (p = 0; p < t->n_planes; p++) {
    t->y0[p] = g_new (gint32, max_height);
    t->y1[p] = g_new (gint32, max_height);
    t->wy[p] = g_new (gfloat, max_height);
    /* the vector kernels load the taps of the last column as a group */
    t->rowf[p] = g_new0 (gfloat, row_bytes[p] + ROW_PAD_FLOATS);
  }
  if (GST_VIDEO_FORMAT_INFO_IS_YUV (finfo)) {
    /* the vector kernels load CHROMA16_PAD samples past the last */
    for (c = 0; c < 2; c++)
      t->chroma16[c] = g_new0 (gint16, GST_VIDEO_INFO_COMP_WIDTH (info, 1) +
          CHROMA16_PAD);
  }
  if (GST_VIDEO_FORMAT_INFO_IS_RGB (finfo)) {
    t->px0 = g_new (gint32, max_width);
    t->px1 = g_new (gint32, max_width);
    t->wx_pair = g_new (gint32, (gsize) max_width * PAIRS_PER_VECTOR);
  }
}

static gboolean
parse_roi_classes (GstAxLetterboxElement * self, const gchar * classes)
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

/* The divisor d of a pixel scale that is 1 / d with 2 d an integer (1/255,
 * 1/127.5, 1, ...), or 0: dividing by d in double gives the exact value
 * that the float scale only approximates, and keeps the default (p / 255)
 * bit-identical with the element's quantisation before preprocessing. */
static gdouble
pixel_divisor (gfloat scale)
{
  const gdouble half_steps = nearbyint (2.0 / scale);
  const gdouble d = half_steps / 2.0;

  if (half_steps >= 1.0 && fabs (d * scale - 1.0) < DIVISOR_TOLERANCE)
    return d;
  return 0.0;
}

/* The real value the model sees for pixel value @p of tensor channel
 * @c: (p * scale - mean) / std. */
static gdouble
preprocess_value (const GstAxLetterboxElement * self, gint c, gdouble p)
{
  const GstAxModelPreprocess *pp = &self->cfg_pp;
  const gdouble v = self->pixel_divisor > 0.0 ? p / self->pixel_divisor :
      p * (gdouble) pp->scale;

  return (v - (gdouble) pp->mean[c]) / (gdouble) pp->std[c];
}

/* The tensor value of real value @real, in double like the LUT. */
static void
quantise_value (const GstAxLetterboxElement * self, gdouble real,
    guint8 * q_u8, gfloat * q_f32)
{
  const gdouble scaled = real / self->tensor_scale;
  const gdouble q = round (scaled + self->zero_point_offset) +
      self->tensor_zero_point;

  *q_u8 = 0;
  *q_f32 = 0.0f;
  switch (self->tensor_dtype) {
    case GST_AX_TENSOR_DTYPE_U8:
      *q_u8 = (guint8) CLAMP (q, 0, G_MAXUINT8);
      break;
    case GST_AX_TENSOR_DTYPE_I8:
      *q_u8 = (guint8) (gint8) CLAMP (q, G_MININT8, G_MAXINT8);
      break;
    case GST_AX_TENSOR_DTYPE_F32:
      *q_f32 = scaled + self->tensor_zero_point;
      break;
  }
}

/* Gray: the luma of a rendered RGB pixel, in float as the compiler's
 * calibration (sim-npu's imageset) computes it. */
static inline gfloat
gray_of (const guint8 * rgb)
{
  return LUMA_R * rgb[0] + LUMA_G * rgb[1] + LUMA_B * rgb[2];
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

static void
compute_quantisation (GstAxLetterboxElement * self)
{
  const gboolean f32 = self->tensor_dtype == GST_AX_TENSOR_DTYPE_F32;
  gboolean shift = !f32;
  gint v, c;

  self->pixel_divisor = pixel_divisor (self->cfg_pp.scale);
  for (c = 0; c < N_CHANNELS; c++)
    for (v = 0; v <= MAX_PIXEL_VALUE; v++)
      quantise_value (self, preprocess_value (self, c, v),
          &self->lut_u8[c][v], &self->lut_f32[c][v]);
  self->uniform = self->tensor_channels == N_CHANNELS;
  for (c = 1; c < N_CHANNELS && self->uniform; c++)
    if (memcmp (self->lut_u8[c], self->lut_u8[0], sizeof (self->lut_u8[0]))
        || memcmp (self->lut_f32[c], self->lut_f32[0],
            sizeof (self->lut_f32[0])))
      self->uniform = FALSE;

  if (self->tensor_channels == N_CHANNELS) {
    for (c = 0; c < N_CHANNELS; c++) {
      self->qfill_u8[c] = self->lut_u8[c][self->cfg_fill];
      self->qfill_f32[c] = self->lut_f32[c][self->cfg_fill];
    }
  } else {
    const guint8 fill[N_CHANNELS] = { self->cfg_fill, self->cfg_fill,
      self->cfg_fill
    };

    quantise_value (self, preprocess_value (self, 0, gray_of (fill)),
        &self->qfill_u8[0], &self->qfill_f32[0]);
  }

  /* u8 with scale 1/255 and zero point 0 is the identity, i8 with zero
   * point -128 flips the top bit: both are an XOR of every byte */
  self->flip = self->lut_u8[0][0];
  if (self->flip != 0 && self->flip != SIGN_BIT)
    shift = FALSE;
  if (!self->uniform)
    shift = FALSE;
  for (v = 0; v <= MAX_PIXEL_VALUE && shift; v++)
    if (self->lut_u8[0][v] != (v ^ self->flip))
      shift = FALSE;
  self->direct_u8 = shift && self->tensor_layout == GST_AX_TENSOR_LAYOUT_NHWC;
  if (!self->direct_u8)
    self->flip = 0;

  /* Other quantisations: the vector kernel computes saturate (nearbyint
   * ((float) p * gain + bias) + zero point) in float; it is used only if
   * it gives the LUT's byte for every one of the 256 pixel values. The
   * bias is the mean folded in, 0 without one (then the sum is the
   * product exactly). */
  self->affine = FALSE;
  if (!self->direct_u8 && !f32 && self->uniform) {
    const gboolean s8 = self->tensor_dtype == GST_AX_TENSOR_DTYPE_I8;
    const gdouble at0 = preprocess_value (self, 0, 0.0);
    const gdouble at1 = preprocess_value (self, 0, 1.0);

    self->affine_gain = (gfloat) ((at1 - at0) / self->tensor_scale);
    self->affine_bias = (gfloat) (at0 / self->tensor_scale +
        self->zero_point_offset);
    self->affine = self->tensor_zero_point >= MIN_AFFINE_ZERO_POINT &&
        self->tensor_zero_point <= MAX_AFFINE_ZERO_POINT;
    for (v = 0; v <= MAX_PIXEL_VALUE && self->affine; v++) {
      const gfloat scaled = (gfloat) v * self->affine_gain + self->affine_bias;
      gint q;

      if (!(fabsf (scaled) < MAX_AFFINE_SCALED))
        self->affine = FALSE;
      q = (gint) nearbyintf (scaled) + self->tensor_zero_point;
      q = s8 ? CLAMP (q, G_MININT8, G_MAXINT8) : CLAMP (q, 0, G_MAXUINT8);
      if ((guint8) q != self->lut_u8[0][v])
        self->affine = FALSE;
    }
  }
  GST_DEBUG_OBJECT (self, "quantisation: %s", self->tensor_channels == 1 ?
      "gray in float" : (self->direct_u8 ? (self->flip ?
              "top bit flipped in the stores" : "identity") :
          (self->affine ? "vector affine map" : (self->uniform ? "LUT" :
                  "per-channel LUT"))));
}

/* The geometry of a @w x @h region in the tensor, letterbox or stretch. */
static gboolean
gst_ax_letterbox_element_geometry (GstAxLetterboxElement * self,
    GstAxLetterbox * lb, gint w, gint h)
{
  if (self->cfg_stretch) {
    if (!gst_ax_letterbox_init_stretch (lb, w, h, self->tensor_width,
            self->tensor_height))
      return FALSE;
    lb->fill = self->cfg_fill;
    return TRUE;
  }
  return gst_ax_letterbox_init (lb, w, h, self->tensor_width,
      self->tensor_height, self->cfg_centre, self->cfg_scale_up,
      self->cfg_fill);
}

/* Resolves the tensor spec from the properties and, for what they leave
 * open, from the downstream model, then builds tables, LUTs and pool. */
static gboolean
gst_ax_letterbox_element_configure (GstAxLetterboxElement * self)
{
  GstQuery *query;
  GstAxModelInput model = { 0, };
  GstAxModelPreprocess *pp = &self->cfg_pp;
  gboolean have_model, have_pp = FALSE;
  guint prop_width, prop_height;
  GstAxLetterboxDType dtype;
  GstAxLetterboxChannelOrder order;
  GstAxLetterboxResize resize;
  gdouble scale;
  gint zero_point, fill;
  gchar *roi_classes;
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
  self->cfg_bilinear = self->method == GST_AX_LETTERBOX_METHOD_BILINEAR;
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
  self->cfg_fill = pp->fill;
  self->cfg_stretch = pp->resize == GST_AX_RESIZE_STRETCH;
  self->tensor_channels = pp->color == GST_AX_COLOR_ORDER_GRAY ?
      GRAY_CHANNELS : N_CHANNELS;
  /* gray is reduced from rows rendered as RGB */
  self->red_pos = pp->color == GST_AX_COLOR_ORDER_BGR ? 2 : 0;
  self->blue_pos = 2 - self->red_pos;
  self->matrix.y_offset = self->y_offset;
  self->matrix.y_gain = self->y_gain;
  self->matrix.from_u[self->red_pos] = 0.0f;
  self->matrix.from_v[self->red_pos] = self->r_from_v;
  self->matrix.from_u[1] = -self->g_from_u;
  self->matrix.from_v[1] = -self->g_from_v;
  self->matrix.from_u[self->blue_pos] = self->b_from_u;
  self->matrix.from_v[self->blue_pos] = 0.0f;

  self->tensor_width = prop_width ? (gint) prop_width :
      (have_model ? model.width : 0);
  self->tensor_height = prop_height ? (gint) prop_height :
      (have_model ? model.height : 0);
  if (self->tensor_width <= 0 || self->tensor_height <= 0)
    goto no_size;
  if (have_model && model.channels != self->tensor_channels)
    goto bad_channels;

  switch (dtype) {
    case GST_AX_LETTERBOX_DTYPE_AUTO:
      self->tensor_dtype = have_model ? model.dtype : GST_AX_TENSOR_DTYPE_U8;
      break;
    case GST_AX_LETTERBOX_DTYPE_U8:
      self->tensor_dtype = GST_AX_TENSOR_DTYPE_U8;
      break;
    case GST_AX_LETTERBOX_DTYPE_I8:
      self->tensor_dtype = GST_AX_TENSOR_DTYPE_I8;
      break;
    case GST_AX_LETTERBOX_DTYPE_F32:
      self->tensor_dtype = GST_AX_TENSOR_DTYPE_F32;
      break;
  }

  self->zero_point_offset = 0.0;
  if (scale > 0.0) {
    self->tensor_scale = scale;
    self->tensor_zero_point = zero_point;
  } else if (have_model && model.dtype == self->tensor_dtype
      && model.scale > 0.0f) {
    self->tensor_scale = model.scale;
    self->tensor_zero_point = model.zero_point;
    self->zero_point_offset = pixel_input_offset (pp, model.dtype,
        model.scale, model.zero_point);
  } else if (self->tensor_dtype == GST_AX_TENSOR_DTYPE_F32) {
    self->tensor_scale = 1.0f;
    self->tensor_zero_point = 0;
  } else {
    self->tensor_scale = 1.0f / MAX_PIXEL_VALUE;
    self->tensor_zero_point =
        self->tensor_dtype == GST_AX_TENSOR_DTYPE_I8 ? G_MININT8 : 0;
  }

  self->tensor_layout = have_model ? model.layout : GST_AX_TENSOR_LAYOUT_NHWC;
  self->tensor_name = have_model && model.name && *model.name ? model.name :
      g_intern_static_string (DEFAULT_TENSOR_NAME);
  compute_quantisation (self);

  sample_tables_alloc (&self->tables, &self->in_info, self->tensor_width,
      self->tensor_height);
  g_free (self->scratch);
  self->scratch = g_new (guint8, (gsize) self->tensor_width * N_CHANNELS);

  if (!self->cfg_roi_mode) {
    gst_ax_letterbox_element_geometry (self, &self->frame_lb,
        GST_VIDEO_INFO_WIDTH (&self->in_info),
        GST_VIDEO_INFO_HEIGHT (&self->in_info));
    sample_tables_compute (&self->tables, &self->in_info, &self->frame_lb,
        self->cfg_bilinear);
    GST_DEBUG_OBJECT (self, "packed integer weights: %d bits",
        self->tables.packed_bits);
  }

  tensor_bytes = (gsize) self->tensor_width * self->tensor_height *
      self->tensor_channels * gst_ax_tensor_dtype_size (self->tensor_dtype);
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
      "%d, %s, %s, fill %u", self->tensor_name, self->tensor_width,
      self->tensor_height, self->tensor_channels,
      gst_ax_tensor_dtype_to_string (self->tensor_dtype),
      self->tensor_layout == GST_AX_TENSOR_LAYOUT_NCHW ? "NCHW" : "NHWC",
      self->tensor_scale, self->tensor_zero_point,
      self->cfg_bilinear ? "bilinear" : "nearest",
      self->cfg_stretch ? "stretch" : "letterbox", self->cfg_fill);
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

#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__)
/* The arithmetic row loops are compiled for AVX2 (8 lanes) and for the
 * baseline; the loader picks one for the CPU. The gather loops stay
 * baseline: AVX2 gathers were no faster on the development machine. */
#define ROW_LOOP __attribute__ ((target_clones ("avx2", "default")))
#else
#define ROW_LOOP
#endif
#define GATHER_LOOP

#ifdef HAVE_X86_SIMD
/* AVX2 kernels, picked at run time. They work on 128-bit vectors of one
 * pixel's four bytes: Zen 1 splits 256-bit operations in two anyway, and
 * a packed pixel fills one vector without shuffles. No FMA: a fused
 * multiply-add would round differently from the portable kernels. */
#define AVX2_FN __attribute__ ((target ("avx2")))
/* bodies instantiated with constant arguments */
#define INLINE_AVX2_FN \
  __attribute__ ((target ("avx2"), always_inline)) static inline
#define PIXELS_PER_STORE 4
#define PIXELS_PER_YMM 8
#define ZERO_BYTE ((gchar) 0x80)
#define BITS_PER_BYTE 8
#define BYTES_PER_XMM 16
/* 16-byte stores of 12 bytes run 4 bytes (under 2 pixels) on */
#define STORE_SLACK_PIXELS 2

AVX2_FN static inline __m128
load_pixel_f32 (const guint8 * p)
{
  gint32 v;

  memcpy (&v, p, sizeof (v));
  return _mm_cvtepi32_ps (_mm_cvtepu8_epi32 (_mm_cvtsi32_si128 (v)));
}

/* lerp_packed_value on the four bytes of a pixel, as four int32 */
AVX2_FN static inline __m128i
lerp_pixel_avx2 (const guint8 * top, const guint8 * bot, gint p0, gint p1,
    __m128 wy, gfloat wx)
{
  const __m128 t0 = load_pixel_f32 (top + p0), t1 = load_pixel_f32 (top + p1);
  const __m128 a = _mm_add_ps (t0,
      _mm_mul_ps (_mm_sub_ps (load_pixel_f32 (bot + p0), t0), wy));
  const __m128 b = _mm_add_ps (t1,
      _mm_mul_ps (_mm_sub_ps (load_pixel_f32 (bot + p1), t1), wy));
  const __m128 v = _mm_add_ps (a, _mm_mul_ps (_mm_sub_ps (b, a),
          _mm_set1_ps (wx)));

  return _mm_cvttps_epi32 (_mm_add_ps (v, _mm_set1_ps (0.5f)));
}

/* lerp_packed for the first @n columns, four at a time; the caller does
 * the rest with lerp_packed. */
AVX2_FN static gint
lerp_packed_avx2 (guint8 * restrict out, const guint8 * restrict top,
    const guint8 * restrict bot, gfloat wy, const gint32 * restrict p0,
    const gint32 * restrict p1, const gfloat * restrict w,
    const gint off[N_CHANNELS], guint8 flip, gint n)
{
  const __m128 vwy = _mm_set1_ps (wy);
  const __m128i vflip = _mm_set1_epi8 ((gchar) flip);
  gchar order[sizeof (__m128i)];
  __m128i vorder;
  gint x, j, k;

  /* four pixels' bytes to twelve tensor bytes in channel order */
  memset (order, ZERO_BYTE, sizeof (order));
  for (j = 0; j < PIXELS_PER_STORE; j++)
    for (k = 0; k < N_CHANNELS; k++)
      order[N_CHANNELS * j + k] = (gchar) (VECTOR_PIXEL_BYTES * j + off[k]);
  vorder = _mm_loadu_si128 ((const __m128i *) order);

  for (x = 0; x + PIXELS_PER_STORE <= n; x += PIXELS_PER_STORE) {
    const __m128i q0 = lerp_pixel_avx2 (top, bot, p0[x], p1[x], vwy, w[x]);
    const __m128i q1 = lerp_pixel_avx2 (top, bot, p0[x + 1], p1[x + 1], vwy,
        w[x + 1]);
    const __m128i q2 = lerp_pixel_avx2 (top, bot, p0[x + 2], p1[x + 2], vwy,
        w[x + 2]);
    const __m128i q3 = lerp_pixel_avx2 (top, bot, p0[x + 3], p1[x + 3], vwy,
        w[x + 3]);
    /* values are 0..255: the saturating packs only narrow */
    __m128i bytes = _mm_packus_epi16 (_mm_packs_epi32 (q0, q1),
        _mm_packs_epi32 (q2, q3));
    guint8 *o = out + N_CHANNELS * x;
    gint32 tail;

    bytes = _mm_xor_si128 (_mm_shuffle_epi8 (bytes, vorder), vflip);
    _mm_storel_epi64 ((__m128i *) o, bytes);
    tail = _mm_cvtsi128_si32 (_mm_srli_si128 (bytes, sizeof (gint64)));
    memcpy (o + sizeof (gint64), &tail, sizeof (tail));
  }
  return x;
}

/* The affine quantisation (see compute_quantisation) of 32 bytes at a
 * time; the caller does the rest with the LUT. */
AVX2_FN static gint
pack_affine_avx2 (guint8 * restrict out, const guint8 * restrict in,
    gfloat gain, gfloat bias, gint zero_point, gboolean s8, gint n)
{
  const __m256 vgain = _mm256_set1_ps (gain);
  const __m256 vbias = _mm256_set1_ps (bias);
  const __m256i vzp = _mm256_set1_epi32 (zero_point);
  gint i, j;

  for (i = 0; i + AFFINE_BLOCK <= n; i += AFFINE_BLOCK) {
    __m256i q[4], w0, w1, bytes;

    for (j = 0; j < 4; j++) {
      const __m256 f = _mm256_cvtepi32_ps (_mm256_cvtepu8_epi32
          (_mm_loadl_epi64 ((const __m128i *) (in + i + PIXELS_PER_YMM * j))));

      /* cvtps2dq rounds half to even, like nearbyintf */
      q[j] = _mm256_add_epi32 (_mm256_cvtps_epi32 (_mm256_add_ps
              (_mm256_mul_ps (f, vgain), vbias)), vzp);
    }
    /* the packs work per 128-bit lane: the permute puts q0 .. q3 back in
     * order */
    w0 = _mm256_packs_epi32 (q[0], q[1]);
    w1 = _mm256_packs_epi32 (q[2], q[3]);
    bytes = s8 ? _mm256_packs_epi16 (w0, w1) : _mm256_packus_epi16 (w0, w1);
    bytes = _mm256_permutevar8x32_epi32 (bytes, _mm256_setr_epi32 (0, 4, 1,
            5, 2, 6, 3, 7));
    _mm256_storeu_si256 ((__m256i *) (out + i), bytes);
  }
  return i;
}

/* Packed RGB with dyadic weights (is_dyadic, or multiples of 1/128 with
 * @bits 7): the float arithmetic of lerp_packed_value is exact there, so
 * it equals the integer, with one = 2^@bits,
 * ((T0 (one - my) + B0 my) (one - mx) + (T1 (one - my) + B1 my) mx +
 * one^2 / 2) >> 2 @bits, done with pmaddubsw (vertical) and pmaddwd
 * (horizontal), two pixels per 256-bit vector. The eight bytes at a
 * pixel hold both horizontal taps (the second is the next pixel, or
 * unused at weight 0); the caller checks that the loads stay in the row
 * (n_vector8) and does the rest with lerp_packed. */
AVX2_FN static gint
dyadic_packed_avx2 (guint8 * restrict out, const guint8 * restrict top,
    const guint8 * restrict bot, gint my, gint bits,
    const gint32 * restrict p0, const gint32 * restrict wx_pair,
    const gint off[N_CHANNELS], gint pstride, guint8 flip, gint n)
{
  const gint one = 1 << bits;
  /* (128, 0) does not fit pmaddubsw's signed bytes; at my = 0 the bottom
   * row is the top row and (64, 64) gives the same sums */
  const gboolean split = my == 0 && one > G_MAXINT8;
  const gint w_top = split ? one / 2 : one - my;
  const gint w_bot = split ? one / 2 : my;
  const __m256i wy = _mm256_set1_epi16 ((gint16) ((w_bot << CHAR_BIT) | w_top));
  const __m256i round = _mm256_set1_epi32 (1 << (2 * bits - 1));
  const __m128i shift = _mm_cvtsi32_si128 (2 * bits);
  const __m128i vflip = _mm_set1_epi8 ((gchar) flip);
  /* pixels x, x + 2, x + 1, x + 3 after the packs, as RGB0 each */
  const __m128i compact = _mm_setr_epi8 (0, 1, 2, 8, 9, 10, 4, 5, 6, 12, 13,
      14, ZERO_BYTE, ZERO_BYTE, ZERO_BYTE, ZERO_BYTE);
  gchar pairs[sizeof (__m128i)];
  __m256i vpairs;
  gint x, k;

  /* per channel: top tap 0, bottom tap 0, top tap 1, bottom tap 1, from
   * eight top then eight bottom bytes */
  memset (pairs, ZERO_BYTE, sizeof (pairs));
  for (k = 0; k < N_CHANNELS; k++) {
    pairs[4 * k] = (gchar) off[k];
    pairs[4 * k + 1] = (gchar) (sizeof (gint64) + off[k]);
    pairs[4 * k + 2] = (gchar) (off[k] + pstride);
    pairs[4 * k + 3] = (gchar) (sizeof (gint64) + off[k] + pstride);
  }
  vpairs = _mm256_broadcastsi128_si256 (_mm_loadu_si128 ((const __m128i *)
          pairs));

  for (x = 0; x + PIXELS_PER_STORE <= n; x += PIXELS_PER_STORE) {
    __m256i v[2];
    __m128i lo, hi, bytes;
    guint8 *o = out + N_CHANNELS * x;
    gint32 tail;
    gint j;

    for (j = 0; j < 2; j++) {
      const gint a = x + 2 * j, b = a + 1;
      const __m128i pa = _mm_unpacklo_epi64 (_mm_loadl_epi64 ((const __m128i
                  *) (top + p0[a])), _mm_loadl_epi64 ((const __m128i *) (bot +
                  p0[a])));
      const __m128i pb = _mm_unpacklo_epi64 (_mm_loadl_epi64 ((const __m128i
                  *) (top + p0[b])), _mm_loadl_epi64 ((const __m128i *) (bot +
                  p0[b])));
      __m256i t = _mm256_inserti128_si256 (_mm256_castsi128_si256 (pa), pb,
          1);

      t = _mm256_maddubs_epi16 (_mm256_shuffle_epi8 (t, vpairs), wy);
      t = _mm256_madd_epi16 (t, _mm256_loadu_si256 ((const __m256i *)
              (wx_pair + PAIRS_PER_VECTOR * a)));
      v[j] = _mm256_sra_epi32 (_mm256_add_epi32 (t, round), shift);
    }
    /* lanes: x, x + 2 | x + 1, x + 3 */
    v[0] = _mm256_packs_epi32 (v[0], v[1]);
    lo = _mm256_castsi256_si128 (v[0]);
    hi = _mm256_extracti128_si256 (v[0], 1);
    bytes = _mm_packus_epi16 (lo, hi);
    bytes = _mm_xor_si128 (_mm_shuffle_epi8 (bytes, compact), vflip);
    _mm_storel_epi64 ((__m128i *) o, bytes);
    tail = _mm_cvtsi128_si32 (_mm_srli_si128 (bytes, sizeof (gint64)));
    memcpy (o + sizeof (gint64), &tail, sizeof (tail));
  }
  return x;
}

/* Horizontal pass from a blended row of one-byte samples (luma, planar
 * chroma): the two taps of a column are adjacent floats, or the second is
 * unused at weight 0, so one 64-bit load fetches both. The row is padded
 * for the last column. */
AVX2_FN static gint
lerp_pairs_avx2 (gfloat * restrict dst, const gfloat * restrict row,
    const gint32 * restrict i0, const gfloat * restrict w, gint n)
{
  gint x;

  for (x = 0; x + PIXELS_PER_STORE <= n; x += PIXELS_PER_STORE) {
    const __m128 p01 = _mm_castsi128_ps (_mm_unpacklo_epi64 (_mm_loadl_epi64
            ((const __m128i *) (row + i0[x])), _mm_loadl_epi64 ((const __m128i
                    *) (row + i0[x + 1]))));
    const __m128 p23 = _mm_castsi128_ps (_mm_unpacklo_epi64 (_mm_loadl_epi64
            ((const __m128i *) (row + i0[x + 2])),
            _mm_loadl_epi64 ((const __m128i *) (row + i0[x + 3]))));
    const __m128 a = _mm_shuffle_ps (p01, p23, _MM_SHUFFLE (2, 0, 2, 0));
    const __m128 b = _mm_shuffle_ps (p01, p23, _MM_SHUFFLE (3, 1, 3, 1));

    _mm_storeu_ps (dst + x, _mm_add_ps (a, _mm_mul_ps (_mm_sub_ps (b, a),
                _mm_loadu_ps (w + x))));
  }
  return x;
}

/* lerp_pairs_avx2 over a periodic run (period_lo, period_hi): even and
 * odd columns each take four consecutive samples, with one weight each.
 * Returns the first column not done. */
AVX2_FN static gint
lerp_period2_avx2 (gfloat * restrict dst, const gfloat * restrict row,
    const gint32 * restrict i0, const gfloat * restrict w, gint from,
    gint run_end)
{
  gint x;

  for (x = from; x + PERIOD_BLOCK - 2 <= run_end; x += PERIOD_BLOCK) {
    const gfloat *e = row + i0[x], *o = row + i0[x + 1];
    const __m128 ea = _mm_loadu_ps (e), eb = _mm_loadu_ps (e + 1);
    const __m128 oa = _mm_loadu_ps (o), ob = _mm_loadu_ps (o + 1);
    const __m128 ev = _mm_add_ps (ea, _mm_mul_ps (_mm_sub_ps (eb, ea),
            _mm_set1_ps (w[x])));
    const __m128 ov = _mm_add_ps (oa, _mm_mul_ps (_mm_sub_ps (ob, oa),
            _mm_set1_ps (w[x + 1])));

    _mm_storeu_ps (dst + x, _mm_unpacklo_ps (ev, ov));
    _mm_storeu_ps (dst + x + PIXELS_PER_STORE, _mm_unpackhi_ps (ev, ov));
  }
  return x;
}

/* Two taps of four interleaved (NV12) columns a sample apart, split into
 * U and V, blended with one weight. */
AVX2_FN static inline void
lerp_uv4 (const gfloat * r, __m128 w, __m128 * u, __m128 * v)
{
  const __m128 a0 = _mm_loadu_ps (r);
  const __m128 a1 = _mm_loadu_ps (r + PIXELS_PER_STORE);
  const __m128 b0 = _mm_loadu_ps (r + UV_STEP);
  const __m128 b1 = _mm_loadu_ps (r + UV_STEP + PIXELS_PER_STORE);
  const __m128 ua = _mm_shuffle_ps (a0, a1, _MM_SHUFFLE (2, 0, 2, 0));
  const __m128 va = _mm_shuffle_ps (a0, a1, _MM_SHUFFLE (3, 1, 3, 1));
  const __m128 ub = _mm_shuffle_ps (b0, b1, _MM_SHUFFLE (2, 0, 2, 0));
  const __m128 vb = _mm_shuffle_ps (b0, b1, _MM_SHUFFLE (3, 1, 3, 1));

  *u = _mm_add_ps (ua, _mm_mul_ps (_mm_sub_ps (ub, ua), w));
  *v = _mm_add_ps (va, _mm_mul_ps (_mm_sub_ps (vb, va), w));
}

/* lerp_period2_avx2 for interleaved chroma (NV12). */
AVX2_FN static gint
lerp_uv_period2_avx2 (gfloat * restrict du, gfloat * restrict dv,
    const gfloat * restrict row, const gint32 * restrict i0,
    const gfloat * restrict w, gint from, gint run_end)
{
  const __m128 we = _mm_set1_ps (w[from]), wo = _mm_set1_ps (w[from + 1]);
  gint x;

  for (x = from; x + PERIOD_BLOCK - 2 <= run_end; x += PERIOD_BLOCK) {
    __m128 ue, ve, uo, vo;

    lerp_uv4 (row + i0[x], we, &ue, &ve);
    lerp_uv4 (row + i0[x + 1], wo, &uo, &vo);
    _mm_storeu_ps (du + x, _mm_unpacklo_ps (ue, uo));
    _mm_storeu_ps (du + x + PIXELS_PER_STORE, _mm_unpackhi_ps (ue, uo));
    _mm_storeu_ps (dv + x, _mm_unpacklo_ps (ve, vo));
    _mm_storeu_ps (dv + x + PIXELS_PER_STORE, _mm_unpackhi_ps (ve, vo));
  }
  return x;
}

/* The same for interleaved chroma (NV12): the four floats at a column's
 * first U tap are U0 V0 U1 V1, both components' taps at once. */
AVX2_FN static gint
lerp_uv_avx2 (gfloat * restrict du, gfloat * restrict dv,
    const gfloat * restrict row, const gint32 * restrict i0,
    const gfloat * restrict w, gint n)
{
  gint x;

  for (x = 0; x + PIXELS_PER_STORE <= n; x += PIXELS_PER_STORE) {
    const __m128 r0 = _mm_loadu_ps (row + i0[x]);
    const __m128 r1 = _mm_loadu_ps (row + i0[x + 1]);
    const __m128 r2 = _mm_loadu_ps (row + i0[x + 2]);
    const __m128 r3 = _mm_loadu_ps (row + i0[x + 3]);
    const __m128 t0 = _mm_unpacklo_ps (r0, r1), t1 = _mm_unpacklo_ps (r2, r3);
    const __m128 t2 = _mm_unpackhi_ps (r0, r1), t3 = _mm_unpackhi_ps (r2, r3);
    const __m128 u0 = _mm_movelh_ps (t0, t1), v0 = _mm_movehl_ps (t1, t0);
    const __m128 u1 = _mm_movelh_ps (t2, t3), v1 = _mm_movehl_ps (t3, t2);
    const __m128 vw = _mm_loadu_ps (w + x);

    _mm_storeu_ps (du + x, _mm_add_ps (u0, _mm_mul_ps (_mm_sub_ps (u1, u0),
                vw)));
    _mm_storeu_ps (dv + x, _mm_add_ps (v0, _mm_mul_ps (_mm_sub_ps (v1, v0),
                vw)));
  }
  return x;
}


/* One channel of combine_yuv: (l + cu * u) + cv * v. A zero coefficient
 * (R has no U term, B no V term) is left out: its product is a signed
 * zero, and adding a signed zero changes at most the sign of a zero sum,
 * which the truncation to an integer does not see. */
INLINE_AVX2_FN __m256i
combine_channel (__m256 l, __m256 u, __m256 v, __m256 cu, __m256 cv, gint zero)
{
  switch (zero) {
    case ZERO_U:
      return _mm256_cvttps_epi32 (_mm256_add_ps (l, _mm256_mul_ps (cv, v)));
    case ZERO_V:
      return _mm256_cvttps_epi32 (_mm256_add_ps (l, _mm256_mul_ps (cu, u)));
    default:
      return _mm256_cvttps_epi32 (_mm256_add_ps (_mm256_add_ps (l,
                  _mm256_mul_ps (cu, u)), _mm256_mul_ps (cv, v)));
  }
}

static gint
zero_term (const YuvMatrix * m, gint k)
{
  if (m->from_u[k] == 0.0f)
    return ZERO_U;
  if (m->from_v[k] == 0.0f)
    return ZERO_V;
  return ZERO_NONE;
}

/* per 128-bit lane: a0..a3 b0..b3 c0..c3 (c again) to a0 b0 c0 a1 ... */
AVX2_FN static inline __m256i
rgb8_interleave (void)
{
  return _mm256_setr_epi8 (0, 4, 8, 1, 5, 9, 2, 6, 10, 3, 7, 11, ZERO_BYTE,
      ZERO_BYTE, ZERO_BYTE, ZERO_BYTE, 0, 4, 8, 1, 5, 9, 2, 6, 10, 3, 7, 11,
      ZERO_BYTE, ZERO_BYTE, ZERO_BYTE, ZERO_BYTE);
}

/* Eight pixels' channels (int32, saturated here to bytes) stored as 24
 * interleaved bytes, xor @vflip. With @room the 4 bytes after them may be
 * overwritten (the caller writes them later): two 16-byte stores. */
AVX2_FN static inline void
store_rgb8 (guint8 * o, __m256i a, __m256i b, __m256i c, __m256i interleave,
    __m256i vflip, gboolean room)
{
  __m256i bytes = _mm256_packus_epi16 (_mm256_packs_epi32 (a, b),
      _mm256_packs_epi32 (c, c));
  __m128i lo, hi;
  gint32 tail;

  bytes = _mm256_xor_si256 (_mm256_shuffle_epi8 (bytes, interleave), vflip);
  lo = _mm256_castsi256_si128 (bytes);
  hi = _mm256_extracti128_si256 (bytes, 1);
  if (room) {
    _mm_storeu_si128 ((__m128i *) o, lo);
    _mm_storeu_si128 ((__m128i *) (o + N_CHANNELS * PIXELS_PER_STORE), hi);
    return;
  }
  _mm_storel_epi64 ((__m128i *) o, lo);
  tail = _mm_cvtsi128_si32 (_mm_srli_si128 (lo, sizeof (gint64)));
  memcpy (o + sizeof (gint64), &tail, sizeof (tail));
  o += N_CHANNELS * PIXELS_PER_STORE;
  _mm_storel_epi64 ((__m128i *) o, hi);
  tail = _mm_cvtsi128_si32 (_mm_srli_si128 (hi, sizeof (gint64)));
  memcpy (o + sizeof (gint64), &tail, sizeof (tail));
}

/* combine_yuv eight pixels at a time, the same operations in the same
 * order; the saturating packs are its clamp to 0..255. Written here
 * because the compiler's version spends most of its time interleaving
 * the three channels. */
INLINE_AVX2_FN gint
combine_yuv_body (guint8 * restrict out, const gfloat * restrict yr,
    const gfloat * restrict ur, const gfloat * restrict vr,
    const YuvMatrix * restrict m, guint8 flip, gint n, gint z0, gint z1,
    gint z2)
{
  const __m256 yo = _mm256_set1_ps (m->y_offset);
  const __m256 yg = _mm256_set1_ps (m->y_gain);
  const __m256 half = _mm256_set1_ps (0.5f);
  const __m256 mid = _mm256_set1_ps (CHROMA_OFFSET);
  const __m256 u0 = _mm256_set1_ps (m->from_u[0]);
  const __m256 u1 = _mm256_set1_ps (m->from_u[1]);
  const __m256 u2 = _mm256_set1_ps (m->from_u[2]);
  const __m256 v0 = _mm256_set1_ps (m->from_v[0]);
  const __m256 v1 = _mm256_set1_ps (m->from_v[1]);
  const __m256 v2 = _mm256_set1_ps (m->from_v[2]);
  const __m256i vflip = _mm256_set1_epi8 ((gchar) flip);
  const __m256i interleave = rgb8_interleave ();
  gint x;

  for (x = 0; x + PIXELS_PER_YMM <= n; x += PIXELS_PER_YMM) {
    const __m256 l = _mm256_add_ps (_mm256_mul_ps (_mm256_sub_ps
            (_mm256_loadu_ps (yr + x), yo), yg), half);
    const __m256 u = _mm256_sub_ps (_mm256_loadu_ps (ur + x), mid);
    const __m256 v = _mm256_sub_ps (_mm256_loadu_ps (vr + x), mid);
    const __m256i a = combine_channel (l, u, v, u0, v0, z0);
    const __m256i b = combine_channel (l, u, v, u1, v1, z1);
    const __m256i c = combine_channel (l, u, v, u2, v2, z2);

    store_rgb8 (out + N_CHANNELS * x, a, b, c, interleave, vflip,
        x + PIXELS_PER_YMM + STORE_SLACK_PIXELS <= n);
  }
  return x;
}

AVX2_FN static gint
combine_yuv_avx2 (guint8 * restrict out, const gfloat * restrict yr,
    const gfloat * restrict ur, const gfloat * restrict vr,
    const YuvMatrix * restrict m, guint8 flip, gint n)
{
  const gint z0 = zero_term (m, 0), z1 = zero_term (m, 1);
  const gint z2 = zero_term (m, 2);

  if (z0 == ZERO_U && z1 == ZERO_NONE && z2 == ZERO_V)
    return combine_yuv_body (out, yr, ur, vr, m, flip, n, ZERO_U, ZERO_NONE,
        ZERO_V);
  if (z0 == ZERO_V && z1 == ZERO_NONE && z2 == ZERO_U)
    return combine_yuv_body (out, yr, ur, vr, m, flip, n, ZERO_V, ZERO_NONE,
        ZERO_U);
  return combine_yuv_body (out, yr, ur, vr, m, flip, n, z0, z1, z2);
}

/* Blends two chroma source rows at @m / WEIGHT_ONE into chroma16 samples
 * [@lo, @hi]: planar (one component's row) or, @interleaved, NV12's UV
 * row split into @du and @dv. Bytes and weights that are multiples of
 * 1 / WEIGHT_ONE make blend_rows exact: these integers are its floats
 * times WEIGHT_ONE, minus CHROMA16_OFFSET. */
AVX2_FN static void
chroma16_rows_avx2 (gint16 * restrict du, gint16 * restrict dv,
    const guint8 * restrict a, const guint8 * restrict b, gint m,
    gboolean interleaved, gint lo, gint hi)
{
  const __m128i w = _mm_set1_epi16 ((gint16) ((m << BITS_PER_BYTE) |
          (WEIGHT_ONE - m)));
  const __m128i off = _mm_set1_epi16 (CHROMA16_OFFSET);
  /* even words (U) to the low half, odd words (V) to the high half */
  const __m128i split = _mm_setr_epi8 (0, 1, 4, 5, 8, 9, 12, 13, 2, 3, 6,
      7, 10, 11, 14, 15);
  const gint per = interleaved ? UV_STEP : 1;
  const gint step = BYTES_PER_XMM / per;
  gint s;

  for (s = lo; s + step <= hi + 1; s += step) {
    const __m128i va = _mm_loadu_si128 ((const __m128i *) (a + per * s));
    const __m128i vb = _mm_loadu_si128 ((const __m128i *) (b + per * s));
    const __m128i r0 = _mm_sub_epi16 (_mm_maddubs_epi16 (_mm_unpacklo_epi8
            (va, vb), w), off);
    const __m128i r1 = _mm_sub_epi16 (_mm_maddubs_epi16 (_mm_unpackhi_epi8
            (va, vb), w), off);

    if (interleaved) {
      const __m128i s0 = _mm_shuffle_epi8 (r0, split);
      const __m128i s1 = _mm_shuffle_epi8 (r1, split);

      _mm_storeu_si128 ((__m128i *) (du + s), _mm_unpacklo_epi64 (s0, s1));
      _mm_storeu_si128 ((__m128i *) (dv + s), _mm_unpackhi_epi64 (s0, s1));
    } else {
      _mm_storeu_si128 ((__m128i *) (du + s), r0);
      _mm_storeu_si128 ((__m128i *) (du + s + step / 2), r1);
    }
  }
  for (; s <= hi; s++) {
    du[s] = (gint16) (a[per * s] * (WEIGHT_ONE - m) + b[per * s] * m -
        CHROMA16_OFFSET);
    if (interleaved)
      dv[s] = (gint16) (a[per * s + 1] * (WEIGHT_ONE - m) +
          b[per * s + 1] * m - CHROMA16_OFFSET);
  }
}

/* Four chroma samples of a period-2 run: columns e, e + 2, e + 4, e + 6
 * blend chroma16 samples (i, i + 1) from i = @s with the pair weights @w;
 * the int32 results are the horizontal float lerp times WEIGHT_ONE^2
 * (exact: dyadic weights). */
AVX2_FN static inline __m128i
chroma16_taps (const gint16 * c, gint s, __m128i w)
{
  const __m128i t0 = _mm_loadu_si128 ((const __m128i *) (c + s));
  const __m128i t1 = _mm_loadu_si128 ((const __m128i *) (c + s + 1));

  return _mm_madd_epi16 (_mm_unpacklo_epi16 (t0, t1), w);
}

AVX2_FN static inline __m256
chroma16_block (const gint16 * c, gint se, gint so, __m128i we, __m128i wo)
{
  const __m128i e = chroma16_taps (c, se, we), o = chroma16_taps (c, so, wo);

  return _mm256_cvtepi32_ps (_mm256_set_m128i (_mm_unpackhi_epi32 (e, o),
          _mm_unpacklo_epi32 (e, o)));
}

INLINE_AVX2_FN gint
yuv_period2_body (guint8 * restrict out, const guint8 * restrict luma,
    const gint16 * restrict u16, const gint16 * restrict v16, gint se,
    gint so, const gfloat * wx, const YuvMatrix * restrict m, guint8 flip,
    gint from, gint run_end, gint n, gint z0, gint z1, gint z2)
{
  const gint me = (gint) (wx[from] * WEIGHT_ONE);
  const gint mo = (gint) (wx[from + 1] * WEIGHT_ONE);
  const __m128i we = _mm_set1_epi32 ((gint32) (((guint32) me <<
              WEIGHT_PAIR_SHIFT) | (WEIGHT_ONE - me)));
  const __m128i wo = _mm_set1_epi32 ((gint32) (((guint32) mo <<
              WEIGHT_PAIR_SHIFT) | (WEIGHT_ONE - mo)));
  const gfloat unit = 1.0f / (WEIGHT_ONE * WEIGHT_ONE);
  const __m256 yo = _mm256_set1_ps (m->y_offset);
  const __m256 yg = _mm256_set1_ps (m->y_gain);
  const __m256 half = _mm256_set1_ps (0.5f);
  const __m256 u0 = _mm256_set1_ps (m->from_u[0] * unit);
  const __m256 u1 = _mm256_set1_ps (m->from_u[1] * unit);
  const __m256 u2 = _mm256_set1_ps (m->from_u[2] * unit);
  const __m256 v0 = _mm256_set1_ps (m->from_v[0] * unit);
  const __m256 v1 = _mm256_set1_ps (m->from_v[1] * unit);
  const __m256 v2 = _mm256_set1_ps (m->from_v[2] * unit);
  const __m256i vflip = _mm256_set1_epi8 ((gchar) flip);
  const __m256i interleave = rgb8_interleave ();
  gint x, last = -1;

  for (x = from; x + PERIOD_BLOCK - 2 <= run_end || last >= 0;
      x += PERIOD_BLOCK) {
    const __m256 u = chroma16_block (u16, se, so, we, wo);
    const __m256 v = chroma16_block (v16, se, so, we, wo);
    const __m256 yf = _mm256_cvtepi32_ps (_mm256_cvtepu8_epi32
        (_mm_loadl_epi64 ((const __m128i *) (luma + x))));
    const __m256 l = _mm256_add_ps (_mm256_mul_ps (_mm256_sub_ps (yf, yo),
            yg), half);
    const __m256i a = combine_channel (l, u, v, u0, v0, z0);
    const __m256i b = combine_channel (l, u, v, u1, v1, z1);
    const __m256i c = combine_channel (l, u, v, u2, v2, z2);

    store_rgb8 (out + N_CHANNELS * x, a, b, c, interleave, vflip,
        x + PIXELS_PER_YMM + STORE_SLACK_PIXELS <= n);
    /* a block is four chroma samples on */
    se += PERIOD_BLOCK / 2;
    so += PERIOD_BLOCK / 2;
    if (last >= 0)
      return last;
    /* the run's last columns: a block overlapping the previous one, at
     * the same phase, rewrites some columns with the same bytes */
    if (x + PERIOD_BLOCK + PERIOD_BLOCK - 2 > run_end &&
        x + PERIOD_BLOCK < run_end + 2) {
      const gint next = from + ((run_end - (PERIOD_BLOCK - 2) - from) & ~1);

      if (next > x) {
        se += (next - x - PERIOD_BLOCK) / 2;
        so += (next - x - PERIOD_BLOCK) / 2;
        last = next + PERIOD_BLOCK;
        x = next - PERIOD_BLOCK;
      }
    }
  }
  return x;
}

/* YUV at 1:1 luma (rows of luma bytes taken as they are) with chroma in a
 * dyadic period-2 run [@from, @run_end) (2x upsampling): chroma from the
 * chroma16 rows, then combine_yuv's operations on the same floats. U - 128
 * is the chroma16 lerp times 2^-2*WEIGHT_BITS exactly, and scaling by a
 * power of two commutes with rounding, so from_u * (U - 128) is computed
 * as (from_u * 2^-2*WEIGHT_BITS) * lerp with the same result. @i0 are the
 * U column taps (byte offsets, @ps bytes a sample). The usual zero terms
 * (RGB or BGR order) get their own loops. Stores stay inside the row's
 * @n columns. Returns the first column not done. */
AVX2_FN static gint
yuv_period2_avx2 (guint8 * restrict out, const guint8 * restrict luma,
    const gint16 * restrict u16, const gint16 * restrict v16,
    const gint32 * restrict i0, gint ps, gint poff, const gfloat * wx,
    const YuvMatrix * restrict m, guint8 flip, gint from, gint run_end, gint n)
{
  const gint z0 = zero_term (m, 0), z1 = zero_term (m, 1);
  const gint z2 = zero_term (m, 2);
  const gint se = (i0[from] - poff) / ps, so = (i0[from + 1] - poff) / ps;

  if (z0 == ZERO_U && z1 == ZERO_NONE && z2 == ZERO_V)
    return yuv_period2_body (out, luma, u16, v16, se, so, wx, m, flip, from,
        run_end, n, ZERO_U, ZERO_NONE, ZERO_V);
  if (z0 == ZERO_V && z1 == ZERO_NONE && z2 == ZERO_U)
    return yuv_period2_body (out, luma, u16, v16, se, so, wx, m, flip, from,
        run_end, n, ZERO_V, ZERO_NONE, ZERO_U);
  return yuv_period2_body (out, luma, u16, v16, se, so, wx, m, flip, from,
      run_end, n, z0, z1, z2);
}

/* Packed RGB at exactly 2:1 in both axes (halves, wy 1/2): the dyadic
 * formula is then (T0 + T1 + B0 + B1 + 2) >> 2, and two tensor pixels
 * read twelve consecutive bytes of each row, so one 16-byte load serves
 * both. pmaddubsw by ones sums the horizontal pairs. Stores stay inside
 * the row's @row_pixels; the bytes after the last column done are left
 * for the caller to write. */
AVX2_FN static gint
box2_packed_avx2 (guint8 * restrict out, const guint8 * restrict top,
    const guint8 * restrict bot, const guint8 * restrict base_px,
    const gint off[N_CHANNELS], guint8 flip, gint n, gint row_pixels)
{
  const __m256i ones = _mm256_set1_epi8 (1);
  const __m256i two = _mm256_set1_epi16 (2);
  const __m128i vflip = _mm_set1_epi8 ((gchar) flip);
  const __m256i compact = _mm256_setr_epi8 (0, 1, 2, 3, 4, 5, 8, 9, 10, 11,
      12, 13, ZERO_BYTE, ZERO_BYTE, ZERO_BYTE, ZERO_BYTE, 0, 1, 2, 3, 4, 5,
      8, 9, 10, 11, 12, 13, ZERO_BYTE, ZERO_BYTE, ZERO_BYTE, ZERO_BYTE);
  const gsize px_off = base_px - top;
  const gint chunk = 2 * 2 * N_CHANNELS;
  gchar pairs[sizeof (__m128i)];
  __m256i vpairs;
  gint x, j, k;

  memset (pairs, ZERO_BYTE, sizeof (pairs));
  for (j = 0; j < 2; j++)
    for (k = 0; k < N_CHANNELS; k++) {
      pairs[2 * (N_CHANNELS * j + k)] = (gchar) (2 * N_CHANNELS * j + off[k]);
      pairs[2 * (N_CHANNELS * j + k) + 1] =
          (gchar) (2 * N_CHANNELS * j + off[k] + N_CHANNELS);
    }
  vpairs = _mm256_broadcastsi128_si256 (_mm_loadu_si128 ((const __m128i *)
          pairs));

  for (x = 0; x + BOX_PIXELS <= n; x += BOX_PIXELS) {
    const gsize at = px_off + (gsize) x * 2 * N_CHANNELS;
    /* lanes: pixels x, x + 1 | x + 4, x + 5, then x + 2, x + 3 | x + 6,
     * x + 7, so that the packs put x .. x + 3 in the low lane */
    const __m256i ta = _mm256_loadu2_m128i ((const __m128i *) (top + at +
            2 * chunk), (const __m128i *) (top + at));
    const __m256i tb = _mm256_loadu2_m128i ((const __m128i *) (top + at +
            3 * chunk), (const __m128i *) (top + at + chunk));
    const __m256i ba = _mm256_loadu2_m128i ((const __m128i *) (bot + at +
            2 * chunk), (const __m128i *) (bot + at));
    const __m256i bb = _mm256_loadu2_m128i ((const __m128i *) (bot + at +
            3 * chunk), (const __m128i *) (bot + at + chunk));
    __m256i a = _mm256_add_epi16 (_mm256_maddubs_epi16 (_mm256_shuffle_epi8
            (ta, vpairs), ones), _mm256_maddubs_epi16 (_mm256_shuffle_epi8
            (ba, vpairs), ones));
    __m256i b = _mm256_add_epi16 (_mm256_maddubs_epi16 (_mm256_shuffle_epi8
            (tb, vpairs), ones), _mm256_maddubs_epi16 (_mm256_shuffle_epi8
            (bb, vpairs), ones));
    __m128i lo, hi;
    guint8 *o = out + N_CHANNELS * x;
    gint32 tail;

    a = _mm256_srli_epi16 (_mm256_add_epi16 (a, two), 2);
    b = _mm256_srli_epi16 (_mm256_add_epi16 (b, two), 2);
    a = _mm256_shuffle_epi8 (_mm256_packus_epi16 (a, b), compact);
    lo = _mm_xor_si128 (_mm256_castsi256_si128 (a), vflip);
    hi = _mm_xor_si128 (_mm256_extracti128_si256 (a, 1), vflip);
    /* the 4 bytes after the block are written later by the caller */
    if (x + BOX_PIXELS + STORE_SLACK_PIXELS <= row_pixels) {
      _mm_storeu_si128 ((__m128i *) o, lo);
      _mm_storeu_si128 ((__m128i *) (o + N_CHANNELS * PIXELS_PER_STORE), hi);
      continue;
    }
    _mm_storel_epi64 ((__m128i *) o, lo);
    tail = _mm_cvtsi128_si32 (_mm_srli_si128 (lo, sizeof (gint64)));
    memcpy (o + sizeof (gint64), &tail, sizeof (tail));
    o += N_CHANNELS * PIXELS_PER_STORE;
    _mm_storel_epi64 ((__m128i *) o, hi);
    tail = _mm_cvtsi128_si32 (_mm_srli_si128 (hi, sizeof (gint64)));
    memcpy (o + sizeof (gint64), &tail, sizeof (tail));
  }
  return x;
}
#endif

/* Vertical pass of bilinear sampling: one plane row blended from two
 * source rows, over the byte range the x tables read. */
ROW_LOOP static void
blend_rows (gfloat * restrict dst, const guint8 * restrict a,
    const guint8 * restrict b, gfloat w, gint n)
{
  gint i;

  for (i = 0; i < n; i++) {
    const gfloat va = a[i];

    dst[i] = va + ((gfloat) b[i] - va) * w;
  }
}

/* One-tap samples on consecutive bytes (luma at 1:1) */
ROW_LOOP static void
widen_u8 (gfloat * restrict dst, const guint8 * restrict row, gint n)
{
  gint i;

  for (i = 0; i < n; i++)
    dst[i] = row[i];
}

/* Horizontal passes, one component at a time: from a source row (u8) or
 * a blended row (float), one tap where every weight is 0, else two. */
GATHER_LOOP static void
gather_u8 (gfloat * restrict dst, const guint8 * restrict row,
    const gint32 * restrict i0, gint n)
{
  gint x;

  for (x = 0; x < n; x++)
    dst[x] = row[i0[x]];
}

GATHER_LOOP static void
lerp_u8 (gfloat * restrict dst, const guint8 * restrict row,
    const gint32 * restrict i0, const gint32 * restrict i1,
    const gfloat * restrict w, gint n)
{
  gint x;

  for (x = 0; x < n; x++) {
    const gfloat a = row[i0[x]];

    dst[x] = a + ((gfloat) row[i1[x]] - a) * w[x];
  }
}

GATHER_LOOP static void
gather_f32 (gfloat * restrict dst, const gfloat * restrict row,
    const gint32 * restrict i0, gint n)
{
  gint x;

  for (x = 0; x < n; x++)
    dst[x] = row[i0[x]];
}

GATHER_LOOP static void
lerp_f32 (gfloat * restrict dst, const gfloat * restrict row,
    const gint32 * restrict i0, const gint32 * restrict i1,
    const gfloat * restrict w, gint n)
{
  gint x;

  for (x = 0; x < n; x++) {
    const gfloat a = row[i0[x]];

    dst[x] = a + (row[i1[x]] - a) * w[x];
  }
}

/* One-tap RGB rows need no arithmetic: bytes are copied into place. */
GATHER_LOOP static void
copy_rgb (guint8 * restrict out, const guint8 * restrict row,
    const gint32 * restrict c0, const gint32 * restrict c1,
    const gint32 * restrict c2, guint8 flip, gint n)
{
  gint x;

  for (x = 0; x < n; x++) {
    out[N_CHANNELS * x] = row[c0[x]] ^ flip;
    out[N_CHANNELS * x + 1] = row[c1[x]] ^ flip;
    out[N_CHANNELS * x + 2] = row[c2[x]] ^ flip;
  }
}

/* Rows of consecutive RGB pixels taken one to one. */
ROW_LOOP static void
copy_flip (guint8 * restrict out, const guint8 * restrict in, guint8 flip,
    gint n)
{
  gint i;

  for (i = 0; i < n; i++)
    out[i] = in[i] ^ flip;
}

/* One tensor value of a packed RGB pixel in both axes at once: the two
 * vertical blends (one per horizontal tap), then the horizontal one, with
 * the very operations of the separate passes, so that a zero weight
 * reduces exactly to a copy of the tap. */
static inline guint8
lerp_packed_value (const guint8 * top, const guint8 * bot, gint i0, gint i1,
    gfloat wy, gfloat wx)
{
  const gfloat t0 = top[i0], t1 = top[i1];
  const gfloat a = t0 + ((gfloat) bot[i0] - t0) * wy;
  const gfloat b = t1 + ((gfloat) bot[i1] - t1) * wy;

  return (guint8) (gint32) (a + (b - a) * wx + 0.5f);
}

/* Packed RGB in, both passes fused; @off are the byte offsets of the
 * tensor's channels inside a pixel. */
static void
lerp_packed (guint8 * restrict out, const guint8 * restrict top,
    const guint8 * restrict bot, gfloat wy, const gint32 * restrict p0,
    const gint32 * restrict p1, const gfloat * restrict w,
    const gint off[N_CHANNELS], guint8 flip, gint from, gint n)
{
  gint x, k;

  for (x = from; x < n; x++)
    for (k = 0; k < N_CHANNELS; k++)
      out[N_CHANNELS * x + k] = lerp_packed_value (top, bot, p0[x] + off[k],
          p1[x] + off[k], wy, w[x]) ^ flip;
}

/* Two-tap RGB from a blended row: the three components of a pixel sit at
 * fixed offsets from its first byte, so one index and one weight serve
 * all three. */
GATHER_LOOP static void
lerp_rgb_f32 (guint8 * restrict out, const gfloat * restrict row,
    const gint32 * restrict i0, const gint32 * restrict i1,
    const gfloat * restrict w, gint d0, gint d1, gint d2, guint8 flip, gint n)
{
  gint x;

  for (x = 0; x < n; x++) {
    const gfloat *a = row + i0[x], *b = row + i1[x];
    const gfloat wx = w[x];

    out[N_CHANNELS * x] = (guint8) (gint32) (a[d0] + (b[d0] - a[d0]) * wx +
        0.5f) ^ flip;
    out[N_CHANNELS * x + 1] = (guint8) (gint32) (a[d1] + (b[d1] - a[d1]) *
        wx + 0.5f) ^ flip;
    out[N_CHANNELS * x + 2] = (guint8) (gint32) (a[d2] + (b[d2] - a[d2]) *
        wx + 0.5f) ^ flip;
  }
}

/* Interleaves three 0..255 float rows into u8 pixels; a convex
 * combination of bytes needs no clamping. */
ROW_LOOP static void
combine_rgb (guint8 * restrict out, const gfloat * restrict c0,
    const gfloat * restrict c1, const gfloat * restrict c2, guint8 flip, gint n)
{
  gint x;

  for (x = 0; x < n; x++) {
    out[N_CHANNELS * x] = (guint8) (gint32) (c0[x] + 0.5f) ^ flip;
    out[N_CHANNELS * x + 1] = (guint8) (gint32) (c1[x] + 0.5f) ^ flip;
    out[N_CHANNELS * x + 2] = (guint8) (gint32) (c2[x] + 0.5f) ^ flip;
  }
}

/* The components of YUV columns [@from, @to) with blend_rows' and
 * lerp_f32's float operations, straight from the source rows: the few
 * columns around a vector kernel's run. */
static void
sample_yuv_columns (SampleTables * t, const guint8 * const *top,
    const guint8 * const *bot, gint y, gint from, gint to)
{
  gint c, x;

  for (c = 0; c < N_CHANNELS; c++) {
    const gint pl = t->comp_plane[c];
    const gfloat wy = t->wy[pl][y];

    for (x = from; x < to; x++) {
      const gfloat a0 = top[pl][t->x0[c][x]], a1 = top[pl][t->x1[c][x]];
      const gfloat a = a0 + ((gfloat) bot[pl][t->x0[c][x]] - a0) * wy;
      const gfloat b = a1 + ((gfloat) bot[pl][t->x1[c][x]] - a1) * wy;

      t->comp[c][x] = a + (b - a) * t->wx[c][x];
    }
  }
}

ROW_LOOP static void
combine_yuv (guint8 * restrict out, const gfloat * restrict yr,
    const gfloat * restrict ur, const gfloat * restrict vr,
    const YuvMatrix * restrict m, guint8 flip, gint n)
{
  const gfloat yo = m->y_offset, yg = m->y_gain;
  const gfloat u0 = m->from_u[0], u1 = m->from_u[1], u2 = m->from_u[2];
  const gfloat v0 = m->from_v[0], v1 = m->from_v[1], v2 = m->from_v[2];
  gint x;

  for (x = 0; x < n; x++) {
    const gfloat l = (yr[x] - yo) * yg + 0.5f;
    const gfloat u = ur[x] - CHROMA_OFFSET;
    const gfloat v = vr[x] - CHROMA_OFFSET;
    /* rounded by truncation; clamped as integers, which vectorises where
     * float clamps (NaN rules) do not */
    gint32 a = (gint32) (l + u0 * u + v0 * v);
    gint32 b = (gint32) (l + u1 * u + v1 * v);
    gint32 c = (gint32) (l + u2 * u + v2 * v);

    a = a < 0 ? 0 : (a > MAX_PIXEL_VALUE ? MAX_PIXEL_VALUE : a);
    b = b < 0 ? 0 : (b > MAX_PIXEL_VALUE ? MAX_PIXEL_VALUE : b);
    c = c < 0 ? 0 : (c > MAX_PIXEL_VALUE ? MAX_PIXEL_VALUE : c);
    out[N_CHANNELS * x] = (guint8) a ^ flip;
    out[N_CHANNELS * x + 1] = (guint8) b ^ flip;
    out[N_CHANNELS * x + 2] = (guint8) c ^ flip;
  }
}

ROW_LOOP static void
pack_lut_u8 (guint8 * restrict out, const guint8 * restrict in,
    const guint8 * restrict lut, gint n)
{
  gint i;

  for (i = 0; i < n; i++)
    out[i] = lut[in[i]];
}

ROW_LOOP static void
pack_lut_f32 (gfloat * restrict out, const guint8 * restrict in,
    const gfloat * restrict lut, gint n)
{
  gint i;

  for (i = 0; i < n; i++)
    out[i] = lut[in[i]];
}

/* NHWC with a table per channel (means or stds that differ) */
static void
pack_lut3_u8 (guint8 * restrict out, const guint8 * restrict in,
    const guint8 (*restrict lut)[MAX_PIXEL_VALUE + 1], gint n)
{
  gint x, k;

  for (x = 0; x < n; x++)
    for (k = 0; k < N_CHANNELS; k++)
      out[N_CHANNELS * x + k] = lut[k][in[N_CHANNELS * x + k]];
}

static void
pack_lut3_f32 (gfloat * restrict out, const guint8 * restrict in,
    const gfloat (*restrict lut)[MAX_PIXEL_VALUE + 1], gint n)
{
  gint x, k;

  for (x = 0; x < n; x++)
    for (k = 0; k < N_CHANNELS; k++)
      out[N_CHANNELS * x + k] = lut[k][in[N_CHANNELS * x + k]];
}

/* Gray: each rendered RGB pixel's luma, preprocessed and quantised in
 * double like the LUTs (the luma is not a byte, so no table). */
static void
pack_gray (const GstAxLetterboxElement * self, guint8 * restrict out,
    const guint8 * restrict in, gint n)
{
  const gboolean f32 = self->tensor_dtype == GST_AX_TENSOR_DTYPE_F32;
  gint x;

  for (x = 0; x < n; x++) {
    guint8 q;
    gfloat f;

    quantise_value (self, preprocess_value (self, 0,
            gray_of (in + N_CHANNELS * x)), &q, &f);
    if (f32)
      memcpy (out + x * sizeof (gfloat), &f, sizeof (f));
    else
      out[x] = q;
  }
}

static void
pack_planar_u8 (guint8 * restrict out, const guint8 * restrict in,
    const guint8 * restrict lut, gint channel, gint n)
{
  gint x;

  for (x = 0; x < n; x++)
    out[x] = lut[in[N_CHANNELS * x + channel]];
}

static void
pack_planar_f32 (gfloat * restrict out, const guint8 * restrict in,
    const gfloat * restrict lut, gint channel, gint n)
{
  gint x;

  for (x = 0; x < n; x++)
    out[x] = lut[in[N_CHANNELS * x + channel]];
}

static void
fill_f32 (gfloat * restrict out, gfloat value, gsize n)
{
  gsize i;

  for (i = 0; i < n; i++)
    out[i] = value;
}

/* Fills a rectangle of the tensor with the quantised fill value. */
static void
fill_rect (GstAxLetterboxElement * self, guint8 * tensor, gint x, gint y,
    gint w, gint h)
{
  const gsize esize = gst_ax_tensor_dtype_size (self->tensor_dtype);
  const gint tw = self->tensor_width, th = self->tensor_height;
  const gint nc = self->tensor_channels;
  const gboolean f32 = self->tensor_dtype == GST_AX_TENSOR_DTYPE_F32;
  const gboolean same = nc == GRAY_CHANNELS ||
      (self->qfill_u8[0] == self->qfill_u8[1] &&
      self->qfill_u8[0] == self->qfill_u8[2] &&
      self->qfill_f32[0] == self->qfill_f32[1] &&
      self->qfill_f32[0] == self->qfill_f32[2]);
  gint row, c, i;

  if (w <= 0 || h <= 0)
    return;

  if (self->tensor_layout == GST_AX_TENSOR_LAYOUT_NHWC || nc == 1) {
    const gsize run = (gsize) w * nc;

    for (row = y; row < y + h; row++) {
      guint8 *p = tensor + (((gsize) row * tw + x) * nc) * esize;

      if (same && f32)
        fill_f32 ((gfloat *) p, self->qfill_f32[0], run);
      else if (same)
        memset (p, self->qfill_u8[0], run);
      else if (f32)
        for (i = 0; i < w; i++)
          memcpy (p + (gsize) i * N_CHANNELS * esize, self->qfill_f32,
              sizeof (self->qfill_f32));
      else
        for (i = 0; i < w; i++)
          memcpy (p + (gsize) i * N_CHANNELS, self->qfill_u8,
              sizeof (self->qfill_u8));
    }
  } else {
    for (c = 0; c < N_CHANNELS; c++) {
      for (row = y; row < y + h; row++) {
        guint8 *p = tensor + (((gsize) c * th + row) * tw + x) * esize;

        if (f32)
          fill_f32 ((gfloat *) p, self->qfill_f32[c], w);
        else
          memset (p, self->qfill_u8[c], w);
      }
    }
  }
}

/* Writes one tensor: content rows in one pass (sample, convert, quantise
 * per row), then the pad bands. */
static void
gst_ax_letterbox_element_render (GstAxLetterboxElement * self,
    const GstVideoFrame * frame, const GstAxLetterbox * lb, guint8 * tensor)
{
  SampleTables *t = &self->tables;
  const gint rw = lb->resized_width, rh = lb->resized_height;
  const gint tw = self->tensor_width, th = self->tensor_height;
  const gint px = lb->pad_x, py = lb->pad_y;
  const gsize esize = gst_ax_tensor_dtype_size (self->tensor_dtype);
  /* components in tensor channel order */
  const gint first = self->red_pos == 0 ? 0 : 2, third = 2 - first;
  const gboolean one_tap_x = t->one_tap_x[0] && t->one_tap_x[1] &&
      t->one_tap_x[2];
  const guint8 flip = self->flip;
  const guint8 *src_row[GST_VIDEO_MAX_PLANES] = { NULL, };
  const guint8 *src_row1[GST_VIDEO_MAX_PLANES] = { NULL, };
  gboolean blended[GST_VIDEO_MAX_PLANES] = { FALSE, };
  gint off[N_CHANNELS] = { 0, };
  const gint pstride = GST_VIDEO_FORMAT_INFO_PSTRIDE (frame->info.finfo, 0);
  gboolean fused = FALSE, in_order = FALSE, dyadic = FALSE;
  gboolean yuv_vector = FALSE, uv_taps = FALSE, yuv_period2 = FALSE;
  gboolean pair_taps[N_CHANNELS] = { FALSE, };
  gint y, p, c;

  if (!self->is_yuv) {
    /* byte offsets of the tensor channels inside a source pixel */
    off[0] = t->x0[first][0] - t->px0[0];
    off[1] = t->x0[1][0] - t->px0[0];
    off[2] = t->x0[third][0] - t->px0[0];
    in_order = off[0] == 0 && off[1] == 1 && off[2] == 2;
    fused = self->use_simd;
    dyadic = t->packed_bits != 0;
  } else if (self->use_simd) {
    const GstVideoFormatInfo *finfo = frame->info.finfo;

    yuv_vector = TRUE;
    for (c = 0; c < N_CHANNELS; c++)
      pair_taps[c] = GST_VIDEO_FORMAT_INFO_PSTRIDE (finfo, c) == 1;
    uv_taps = t->comp_plane[1] == t->comp_plane[2] &&
        GST_VIDEO_FORMAT_INFO_PSTRIDE (finfo, 1) == 2 &&
        GST_VIDEO_FORMAT_INFO_PSTRIDE (finfo, 2) == 2 &&
        t->x0[2][0] == t->x0[1][0] + 1;
    /* 1:1 luma and exact 2x chroma upsampling (dyadic in both axes) in one
     * period-2 run shared by U and V: the fused kernel */
    yuv_period2 = t->contiguous && t->dyadic_x[1] && t->dyadic_x[2] &&
        t->dyadic_y[t->comp_plane[1]] && t->dyadic_y[t->comp_plane[2]] &&
        t->period_lo[1] == t->period_lo[2] &&
        t->period_hi[1] == t->period_hi[2] &&
        t->period_hi[1] - t->period_lo[1] >= PERIOD_BLOCK &&
        t->period_taps[1] && t->period_taps[2] &&
        (uv_taps || (pair_taps[1] && pair_taps[2] &&
            t->comp_plane[1] != t->comp_plane[2] &&
            t->x0[2][0] == t->x0[1][0]));
  }
#ifndef HAVE_X86_SIMD
  /* only the vector kernels look at these */
  (void) dyadic;
  (void) uv_taps;
  (void) pair_taps;
  (void) pstride;
  (void) yuv_period2;
#endif

  for (y = 0; y < rh; y++) {
    const gint ty = py + y;
    guint8 *out;

    if (self->direct_u8)
      out = tensor + ((gsize) ty * tw + px) * N_CHANNELS;
    else
      out = self->scratch;

    for (p = 0; p < t->n_planes; p++) {
      const guint8 *base = GST_VIDEO_FRAME_PLANE_DATA (frame, p);
      const gint stride = GST_VIDEO_FRAME_PLANE_STRIDE (frame, p);

      src_row[p] = base + (gsize) t->y0[p][y] * stride;
      src_row1[p] = base + (gsize) t->y1[p][y] * stride;
      blended[p] = t->wy[p][y] != 0.0f;
    }

    if (!self->is_yuv && t->contiguous && in_order && !blended[0]) {
      copy_flip (out, src_row[0] + t->px0[0], flip, rw * N_CHANNELS);
    } else if (fused) {
      gint done = 0;

#ifdef HAVE_X86_SIMD
      if (t->halves && t->wy[0][y] == HALF)
        done = box2_packed_avx2 (out, src_row[0], src_row1[0],
            src_row[0] + t->px0[0], off, flip, t->n_box, rw);
      if (dyadic && done < t->n_vector8)
        done += dyadic_packed_avx2 (out + N_CHANNELS * done, src_row[0],
            src_row1[0], (gint) (t->wy[0][y] * (1 << t->packed_bits)),
            t->packed_bits, t->px0 + done,
            t->wx_pair + PAIRS_PER_VECTOR * done, off, pstride, flip,
            t->n_vector8 - done);
      else if (!dyadic)
        done = lerp_packed_avx2 (out, src_row[0], src_row1[0], t->wy[0][y],
            t->px0, t->px1, t->wx[0], off, flip, t->n_vector);
#endif
      lerp_packed (out, src_row[0], src_row1[0], t->wy[0][y], t->px0,
          t->px1, t->wx[0], off, flip, done, rw);
#ifdef HAVE_X86_SIMD
    } else if (yuv_period2 && !blended[0]) {
      const gint pu = t->comp_plane[1], pv = t->comp_plane[2];
      const gint ps = GST_VIDEO_FORMAT_INFO_PSTRIDE (frame->info.finfo, 1);
      const gint poff = GST_VIDEO_FORMAT_INFO_POFFSET (frame->info.finfo, 1);
      const gint s_lo = (t->col_lo[pu] - poff) / ps;
      const gint s_hi = (t->col_hi[pu] - poff) / ps;
      const gint lo = t->period_lo[1];
      gint end;

      chroma16_rows_avx2 (t->chroma16[0], t->chroma16[1], src_row[pu],
          src_row1[pu], (gint) (t->wy[pu][y] * WEIGHT_ONE), uv_taps, s_lo,
          s_hi);
      if (!uv_taps)
        chroma16_rows_avx2 (t->chroma16[1], NULL, src_row[pv], src_row1[pv],
            (gint) (t->wy[pv][y] * WEIGHT_ONE), FALSE, s_lo, s_hi);
      end = yuv_period2_avx2 (out, src_row[t->comp_plane[0]] + t->x0[0][0],
          t->chroma16[0], t->chroma16[1], t->x0[1], ps, poff, t->wx[1],
          &self->matrix, flip, lo, t->period_hi[1], rw);
      sample_yuv_columns (t, src_row, src_row1, y, 0, lo);
      combine_yuv (out, t->comp[0], t->comp[1], t->comp[2], &self->matrix,
          flip, lo);
      sample_yuv_columns (t, src_row, src_row1, y, end, rw);
      combine_yuv (out + N_CHANNELS * end, t->comp[0] + end,
          t->comp[1] + end, t->comp[2] + end, &self->matrix, flip, rw - end);
#endif
    } else if (yuv_vector) {
      const gboolean copy_luma = t->contiguous && !blended[0];

      /* every plane blended, at weight 0 too (a copy), for the vector
       * horizontal passes */
      for (p = 0; p < t->n_planes; p++) {
        const gint lo = t->col_lo[p];

        if (p == t->comp_plane[0] && copy_luma)
          continue;
        blend_rows (t->rowf[p] + lo, src_row[p] + lo, src_row1[p] + lo,
            t->wy[p][y], t->col_hi[p] - lo + 1);
      }
      for (c = 0; c < N_CHANNELS; c++) {
        const gint pl = t->comp_plane[c];
        gint done = 0;

        if (c == 0 && copy_luma) {
          widen_u8 (t->comp[0], src_row[pl] + t->x0[0][0], rw);
          continue;
        }
#ifdef HAVE_X86_SIMD
        if (c == 1 && uv_taps && t->period_hi[1] - t->period_lo[1] >=
            PERIOD_BLOCK && t->period_lo[1] == t->period_lo[2] &&
            t->period_hi[1] == t->period_hi[2]) {
          const gint lo = t->period_lo[1];

          done = lerp_uv_avx2 (t->comp[1], t->comp[2], t->rowf[pl], t->x0[1],
              t->wx[1], lo);
          lerp_f32 (t->comp[1] + done, t->rowf[pl], t->x0[1] + done,
              t->x1[1] + done, t->wx[1] + done, lo - done);
          lerp_f32 (t->comp[2] + done, t->rowf[pl], t->x0[2] + done,
              t->x1[2] + done, t->wx[2] + done, lo - done);
          done = lerp_uv_period2_avx2 (t->comp[1], t->comp[2], t->rowf[pl],
              t->x0[1], t->wx[1], lo, t->period_hi[1]);
          done += lerp_uv_avx2 (t->comp[1] + done, t->comp[2] + done,
              t->rowf[pl], t->x0[1] + done, t->wx[1] + done, rw - done);
          lerp_f32 (t->comp[2] + done, t->rowf[pl], t->x0[2] + done,
              t->x1[2] + done, t->wx[2] + done, rw - done);
        } else if (c == 1 && uv_taps) {
          done = lerp_uv_avx2 (t->comp[1], t->comp[2], t->rowf[pl], t->x0[1],
              t->wx[1], rw);
          lerp_f32 (t->comp[2] + done, t->rowf[pl], t->x0[2] + done,
              t->x1[2] + done, t->wx[2] + done, rw - done);
        } else if (c == 2 && uv_taps) {
          continue;
        } else if (pair_taps[c] && t->period_hi[c] - t->period_lo[c] >=
            PERIOD_BLOCK) {
          const gint lo = t->period_lo[c];

          done = lerp_pairs_avx2 (t->comp[c], t->rowf[pl], t->x0[c], t->wx[c],
              lo);
          lerp_f32 (t->comp[c] + done, t->rowf[pl], t->x0[c] + done,
              t->x1[c] + done, t->wx[c] + done, lo - done);
          done = lerp_period2_avx2 (t->comp[c], t->rowf[pl], t->x0[c],
              t->wx[c], lo, t->period_hi[c]);
          done += lerp_pairs_avx2 (t->comp[c] + done, t->rowf[pl],
              t->x0[c] + done, t->wx[c] + done, rw - done);
        } else if (pair_taps[c]) {
          done = lerp_pairs_avx2 (t->comp[c], t->rowf[pl], t->x0[c], t->wx[c],
              rw);
        }
#endif
        lerp_f32 (t->comp[c] + done, t->rowf[pl], t->x0[c] + done,
            t->x1[c] + done, t->wx[c] + done, rw - done);
      }
      {
        gint done = 0;

#ifdef HAVE_X86_SIMD
        done = combine_yuv_avx2 (out, t->comp[0], t->comp[1], t->comp[2],
            &self->matrix, flip, rw);
#endif
        combine_yuv (out + N_CHANNELS * done, t->comp[0] + done,
            t->comp[1] + done, t->comp[2] + done, &self->matrix, flip,
            rw - done);
      }
    } else {
      for (p = 0; p < t->n_planes; p++) {
        if (blended[p]) {
          const gint lo = t->col_lo[p];

          blend_rows (t->rowf[p] + lo, src_row[p] + lo, src_row1[p] + lo,
              t->wy[p][y], t->col_hi[p] - lo + 1);
        }
      }

      if (!self->is_yuv && one_tap_x && !blended[t->comp_plane[0]]) {
        copy_rgb (out, src_row[t->comp_plane[0]], t->x0[first], t->x0[1],
            t->x0[third], flip, rw);
      } else if (!self->is_yuv && blended[t->comp_plane[0]]) {
        /* x0[c] - x0[0] is the component's fixed byte offset */
        lerp_rgb_f32 (out, t->rowf[t->comp_plane[0]], t->x0[0], t->x1[0],
            t->wx[0], t->x0[first][0] - t->x0[0][0],
            t->x0[1][0] - t->x0[0][0], t->x0[third][0] - t->x0[0][0], flip, rw);
      } else {
        for (c = 0; c < N_CHANNELS; c++) {
          const gint pl = t->comp_plane[c];

          if (blended[pl] && t->one_tap_x[c])
            gather_f32 (t->comp[c], t->rowf[pl], t->x0[c], rw);
          else if (blended[pl])
            lerp_f32 (t->comp[c], t->rowf[pl], t->x0[c], t->x1[c], t->wx[c],
                rw);
          else if (t->one_tap_x[c])
            gather_u8 (t->comp[c], src_row[pl], t->x0[c], rw);
          else
            lerp_u8 (t->comp[c], src_row[pl], t->x0[c], t->x1[c], t->wx[c], rw);
        }
        if (self->is_yuv)
          combine_yuv (out, t->comp[0], t->comp[1], t->comp[2],
              &self->matrix, flip, rw);
        else
          combine_rgb (out, t->comp[first], t->comp[1], t->comp[third], flip,
              rw);
      }
    }

    if (self->direct_u8)
      continue;

    if (self->tensor_channels == GRAY_CHANNELS) {
      pack_gray (self, tensor + ((gsize) ty * tw + px) * esize, out, rw);
    } else if (self->tensor_layout == GST_AX_TENSOR_LAYOUT_NHWC) {
      guint8 *dst = tensor + ((gsize) ty * tw + px) * N_CHANNELS * esize;

      if (self->tensor_dtype == GST_AX_TENSOR_DTYPE_F32 && self->uniform)
        pack_lut_f32 ((gfloat *) dst, out, self->lut_f32[0], rw * N_CHANNELS);
      else if (self->tensor_dtype == GST_AX_TENSOR_DTYPE_F32)
        pack_lut3_f32 ((gfloat *) dst, out, self->lut_f32, rw);
      else if (!self->uniform)
        pack_lut3_u8 (dst, out, self->lut_u8, rw);
      else {
        gint done = 0;

#ifdef HAVE_X86_SIMD
        if (self->affine && self->use_simd)
          done = pack_affine_avx2 (dst, out, self->affine_gain,
              self->affine_bias, self->tensor_zero_point,
              self->tensor_dtype == GST_AX_TENSOR_DTYPE_I8, rw * N_CHANNELS);
#endif
        pack_lut_u8 (dst + done, out + done, self->lut_u8[0],
            rw * N_CHANNELS - done);
      }
    } else {
      for (c = 0; c < N_CHANNELS; c++) {
        guint8 *dst = tensor + (((gsize) c * th + ty) * tw + px) * esize;

        if (self->tensor_dtype == GST_AX_TENSOR_DTYPE_F32)
          pack_planar_f32 ((gfloat *) dst, out, self->lut_f32[c], c, rw);
        else
          pack_planar_u8 (dst, out, self->lut_u8[c], c, rw);
      }
    }
  }

  fill_rect (self, tensor, 0, 0, tw, py);
  fill_rect (self, tensor, 0, py + rh, tw, th - py - rh);
  fill_rect (self, tensor, 0, py, px, rh);
  fill_rect (self, tensor, px + rw, py, tw - px - rw, rh);
}

static gboolean
remove_input_tensor (GstBuffer * buffer, GstMeta ** meta, gpointer user_data)
{
  if ((*meta)->info->api == GST_AX_TENSOR_META_API_TYPE &&
      ((GstAxTensorMeta *) * meta)->role == GST_AX_TENSOR_ROLE_INPUT)
    *meta = NULL;
  return TRUE;
}

/* The byte offset in @buf of a tensor that is the frame's own bytes, or
 * -1: packed RGB in the tensor's channel order, u8 without flip, every
 * tensor row one source row taken pixel for pixel (1:1, no padding), and
 * rows without stride padding, so the tensor is one range of the frame. */
static gssize
shared_tensor_offset (GstAxLetterboxElement * self,
    const GstVideoFrame * frame, GstBuffer * buf, const GstAxLetterbox * lb)
{
  const SampleTables *t = &self->tables;
  const gint tw = self->tensor_width, th = self->tensor_height;
  const gint first = self->red_pos == 0 ? 0 : 2, third = 2 - first;
  const gint stride = GST_VIDEO_FRAME_PLANE_STRIDE (frame, 0);
  gsize offset;
  gint y;

  if (self->is_yuv || !self->direct_u8 || self->flip != 0 ||
      !t->contiguous || lb->resized_width != tw || lb->resized_height != th ||
      stride != tw * N_CHANNELS ||
      GST_VIDEO_FORMAT_INFO_PSTRIDE (frame->info.finfo, 0) != N_CHANNELS)
    return -1;
  /* channels in the tensor's order at byte offsets 0, 1, 2 of a pixel */
  if (t->px0[0] != 0 || t->x0[first][0] != 0 || t->x0[1][0] != 1 ||
      t->x0[third][0] != 2)
    return -1;
  for (y = 0; y < th; y++)
    if (t->y0[0][y] != t->y0[0][0] + y || t->wy[0][y] != 0.0f)
      return -1;
  offset = GST_VIDEO_INFO_PLANE_OFFSET (&frame->info, 0) +
      (gsize) t->y0[0][0] * stride;
  if (offset > G_MAXSSIZE || gst_buffer_get_size (buf) < offset +
      self->tensor_bytes)
    return -1;
  return (gssize) offset;
}

static GstFlowReturn
gst_ax_letterbox_element_make_tensor (GstAxLetterboxElement * self,
    const GstVideoFrame * frame, GstBuffer * buf, const GstAxLetterbox * lb,
    guint instance)
{
  GstBuffer *tensor = NULL;
  GstMapInfo map;
  GstAxTensorMeta *meta;
  GstFlowReturn ret;
  gint64 dims[TENSOR_RANK];
  gssize shared;

  shared = shared_tensor_offset (self, frame, buf, lb);
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
    gst_ax_letterbox_element_render (self, frame, lb, map.data);
    gst_buffer_unmap (tensor, &map);
  }

  dims[0] = 1;
  if (self->tensor_layout == GST_AX_TENSOR_LAYOUT_NHWC) {
    dims[1] = self->tensor_height;
    dims[2] = self->tensor_width;
    dims[3] = self->tensor_channels;
  } else {
    dims[1] = self->tensor_channels;
    dims[2] = self->tensor_height;
    dims[3] = self->tensor_width;
  }
  meta = gst_buffer_add_ax_tensor_meta (buf, self->tensor_name,
      GST_AX_TENSOR_ROLE_INPUT, self->tensor_dtype, self->tensor_layout,
      TENSOR_RANK, dims, self->tensor_scale, self->tensor_zero_point, tensor);
  if (meta == NULL)
    goto meta_failed;
  meta->instance = instance;
  meta->index = 0;
  meta->has_letterbox = TRUE;
  meta->letterbox = *lb;
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
roi_class_selected (GstAxLetterboxElement * self, GQuark roi_type)
{
  guint i;

  if (self->n_roi_classes == 0)
    return TRUE;
  for (i = 0; i < self->n_roi_classes; i++)
    if (self->roi_class_quarks[i] == roi_type)
      return TRUE;
  return FALSE;
}

static GstFlowReturn
gst_ax_letterbox_element_roi_tensors (GstAxLetterboxElement * self,
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
    GstAxLetterbox lb;
    gint x0, y0, x1, y1;

    if (!roi_class_selected (self, roi->roi_type))
      continue;
    x0 = MIN ((gint) MIN (roi->x, (guint) G_MAXINT), fw);
    y0 = MIN ((gint) MIN (roi->y, (guint) G_MAXINT), fh);
    x1 = (gint) MIN ((gint64) roi->x + roi->w, (gint64) fw);
    y1 = (gint) MIN ((gint64) roi->y + roi->h, (gint64) fh);
    if (!gst_ax_letterbox_element_geometry (self, &lb, x1 - x0, y1 - y0)) {
      GST_LOG_OBJECT (self, "skipping empty region %u,%u %ux%u", roi->x,
          roi->y, roi->w, roi->h);
      continue;
    }
    lb.src_x = x0;
    lb.src_y = y0;
    sample_tables_compute (&self->tables, &self->in_info, &lb,
        self->cfg_bilinear);
    ret = gst_ax_letterbox_element_make_tensor (self, frame, buf, &lb,
        instance++);
    if (ret != GST_FLOW_OK)
      break;
  }
  return ret;
}

static GstFlowReturn
gst_ax_letterbox_element_transform_ip (GstBaseTransform * trans,
    GstBuffer * buf)
{
  GstAxLetterboxElement *self = GST_AX_LETTERBOX_ELEMENT (trans);
  GstVideoFrame frame;
  GstFlowReturn ret;
  gboolean dirty;

  if (GST_VIDEO_INFO_FORMAT (&self->in_info) == GST_VIDEO_FORMAT_UNKNOWN)
    goto not_negotiated;

  GST_OBJECT_LOCK (self);
  dirty = self->dirty;
  GST_OBJECT_UNLOCK (self);
  if ((dirty || !self->configured)
      && !gst_ax_letterbox_element_configure (self))
    return GST_FLOW_ERROR;

  /* no ref: the buffer must stay writable for the meta */
  if (!gst_video_frame_map (&frame, &self->in_info, buf,
          GST_MAP_READ | GST_VIDEO_FRAME_MAP_FLAG_NO_REF))
    goto map_failed;

  gst_buffer_foreach_meta (buf, remove_input_tensor, NULL);
  if (self->cfg_roi_mode)
    ret = gst_ax_letterbox_element_roi_tensors (self, &frame, buf);
  else
    ret = gst_ax_letterbox_element_make_tensor (self, &frame, buf,
        &self->frame_lb, 0);

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
