/* gst-ax
 * Copyright (C) 2026 gst-ax developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

/**
 * SECTION:element-axoverlay
 * @title: axoverlay
 *
 * Draws the detections on each frame, in place: for every
 * #GstVideoRegionOfInterestMeta a box outline in the colour of its class
 * and, by it, a label ("label 0.87") on a bar of the same colour.
 * Detections made by axnms are read through the gst/ax detection helpers
 * (class id, confidence, normalised box); other region metas are drawn
 * from their pixel rectangle with their roi_type as label, coloured by a
 * hash of it.
 *
 * Class colours step the hue by the golden ratio, so neighbouring class
 * ids get distant hues. Text is rendered with Pango and Cairo in the font
 * of #GstAxOverlay:font-desc, black on light bars and white on dark ones.
 * Each distinct piece of text (a label, a confidence " 0.87") is rendered
 * once and kept in a cache of up to 512 pieces; a frame only blends the
 * cached pixels, so in a steady stream no text is laid out per frame.
 *
 * A region classified by axclassify (a "classification" parameter, see
 * gst_ax_detection_get_classification()) gets its best class ("neutral
 * 0.83") on a second bar under the box label; the classification of a
 * whole frame (the region of roi_type "frame") is drawn at the frame's
 * top-left corner, without a box.
 *
 * Labels keep clear of each other: each label (with its classification
 * bar, if any) goes left-aligned with its box, shifted left to stay on
 * the frame, at the first free position of above the box, below it, and
 * inside its top edge; when all three overlap labels placed before it, it
 * moves up or down from the first of them on the frame by whole label
 * heights, nearest first, until it is free. Whole-frame classes are
 * placed first, then the regions in the order of their metas. All boxes
 * are drawn before any label, so no outline crosses a label.
 *
 * Detections with keypoints (a "landmarks" parameter, as axnms attaches
 * for BlazeFace's eyes, ears, nose and mouth; see
 * gst_ax_detection_get_landmarks()) also get a filled dot of
 * #GstAxOverlay:landmark-radius on each point, in the box colour, unless
 * #GstAxOverlay:draw-landmarks is off.
 *
 * On NV12 and I420 the luma of the outline is exact; chroma is set on
 * every 2x2 chroma block the outline touches, so colour can bleed one
 * pixel outward. Antialiased text is blended on every component; a
 * subsampled chroma sample blends the mean of its block.
 *
 * ## Example launch line
 * |[
 * gst-launch-1.0 videotestsrc pattern=ball num-buffers=100 ! \
 *   axletterbox ! axinference model=ball-detector ! axnms ! axoverlay ! \
 *   videoconvert ! autovideosink
 * ]|
 */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstaxoverlay.h"
#include "gstaxoverlay-private.h"

#include <gst/ax/ax.h>
#include <gst/video/video.h>
#include <math.h>
#include <string.h>

GST_DEBUG_CATEGORY_STATIC (gst_ax_overlay_debug);
#define GST_CAT_DEFAULT gst_ax_overlay_debug

#define N_COLOUR_COMPONENTS 3
#define MAX_PIXEL_VALUE 255
#define MAX_LINE_WIDTH 64
#define MAX_LABEL_CHARS 64
/* " 0.87" and its terminator */
#define MAX_CONFIDENCE_CHARS 16
/* the text pieces cached at most: a few hundred classes, and the 101
 * confidences in black and in white ink */
#define MAX_CACHED_LABELS 512
#define LABEL_PAD_X GST_AX_OVERLAY_LABEL_PAD_X
#define LABEL_PAD_Y GST_AX_OVERLAY_LABEL_PAD_Y
/* a box label and, for a classified region, its class under it */
#define MAX_LABEL_ROWS 2
/* hue step between consecutive class ids: the golden ratio conjugate */
#define HUE_STEP 0.6180339887498949
#define CLASS_SATURATION 0.85
#define CLASS_VALUE 0.95
/* label text is dark on bars brighter than this luma (0..1) */
#define TEXT_DARK_ABOVE_LUMA 0.55
#define MAX_LANDMARK_RADIUS 64
/* points read from one detection, at most */
#define MAX_LANDMARKS 64

struct _GstAxOverlay
{
  GstVideoFilter parent;

  /* properties, protected by OBJECT_LOCK */
  guint line_width;
  gboolean draw_labels;
  gboolean show_confidence;
  gchar *font_desc;
  gboolean font_changed;
  /* read-only: the label cache's render count after the last frame */
  guint label_renders;
  gboolean draw_landmarks;
  guint landmark_radius;

  /* streaming thread only */
  gboolean is_yuv;
  gdouble kr;
  gdouble kb;
  gint range_offset[GST_VIDEO_MAX_COMPONENTS];
  gint range_scale[GST_VIDEO_MAX_COMPONENTS];
  GstAxOverlayLabelCache *labels;
  /* OverlayItem per region of the current frame; its storage is reused */
  GArray *items;
  GArray *placed;
};

#define gst_ax_overlay_parent_class parent_class
G_DEFINE_TYPE (GstAxOverlay, gst_ax_overlay, GST_TYPE_VIDEO_FILTER);

GST_ELEMENT_REGISTER_DEFINE_WITH_CODE (axoverlay, "axoverlay",
    GST_RANK_NONE, GST_TYPE_AX_OVERLAY,
    GST_DEBUG_CATEGORY_INIT (gst_ax_overlay_debug, "axoverlay", 0,
        "ax overlay"));

#define DEFAULT_PROP_LINE_WIDTH 2
#define DEFAULT_PROP_DRAW_LABELS TRUE
#define DEFAULT_PROP_SHOW_CONFIDENCE TRUE
#define DEFAULT_PROP_FONT_DESC GST_AX_OVERLAY_DEFAULT_FONT
#define DEFAULT_PROP_DRAW_LANDMARKS TRUE
#define DEFAULT_PROP_LANDMARK_RADIUS 3

enum
{
  PROP_0,
  PROP_LINE_WIDTH,
  PROP_DRAW_LABELS,
  PROP_SHOW_CONFIDENCE,
  PROP_FONT_DESC,
  PROP_DRAW_LANDMARKS,
  PROP_LANDMARK_RADIUS,
  PROP_LABEL_RENDERS,
};

#define OVERLAY_FORMATS "{ RGB, BGR, RGBx, BGRx, RGBA, BGRA, NV12, I420 }"

static GstStaticPadTemplate sink_template = GST_STATIC_PAD_TEMPLATE ("sink",
    GST_PAD_SINK,
    GST_PAD_ALWAYS,
    GST_STATIC_CAPS (GST_VIDEO_CAPS_MAKE (OVERLAY_FORMATS)));

static GstStaticPadTemplate src_template = GST_STATIC_PAD_TEMPLATE ("src",
    GST_PAD_SRC,
    GST_PAD_ALWAYS,
    GST_STATIC_CAPS (GST_VIDEO_CAPS_MAKE (OVERLAY_FORMATS)));

typedef struct
{
  /* per format component: R, G, B or Y, U, V */
  guint8 value[N_COLOUR_COMPONENTS];
} OverlayColour;

/* One row of a label: its text in two cached pieces, so that the
 * confidence of every frame does not make the whole string new. */
typedef struct
{
  gchar name[MAX_LABEL_CHARS];
  gchar confidence[MAX_CONFIDENCE_CHARS];
  gint width;
} LabelRow;

typedef struct
{
  gint x0, y0, x1, y1;
  gboolean whole_frame;
  OverlayColour bar;
  gboolean dark_ink;
  guint n_rows;
  LabelRow rows[MAX_LABEL_ROWS];
} OverlayItem;

static void gst_ax_overlay_set_property (GObject * object, guint prop_id,
    const GValue * value, GParamSpec * pspec);
static void gst_ax_overlay_get_property (GObject * object, guint prop_id,
    GValue * value, GParamSpec * pspec);
static gboolean gst_ax_overlay_set_info (GstVideoFilter * filter,
    GstCaps * incaps, GstVideoInfo * in_info, GstCaps * outcaps,
    GstVideoInfo * out_info);
static GstFlowReturn gst_ax_overlay_transform_frame_ip (GstVideoFilter *
    filter, GstVideoFrame * frame);
static void gst_ax_overlay_finalize (GObject * object);

static void
gst_ax_overlay_class_init (GstAxOverlayClass * klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  GstElementClass *element_class = GST_ELEMENT_CLASS (klass);
  GstVideoFilterClass *filter_class = GST_VIDEO_FILTER_CLASS (klass);

  gobject_class->set_property = gst_ax_overlay_set_property;
  gobject_class->get_property = gst_ax_overlay_get_property;
  gobject_class->finalize = gst_ax_overlay_finalize;

  g_object_class_install_property (gobject_class, PROP_LINE_WIDTH,
      g_param_spec_uint ("line-width", "Line width",
          "Thickness of the box outline in pixels, drawn inside the box",
          1, MAX_LINE_WIDTH, DEFAULT_PROP_LINE_WIDTH,
          G_PARAM_READWRITE | GST_PARAM_MUTABLE_PLAYING |
          G_PARAM_STATIC_STRINGS));
  g_object_class_install_property (gobject_class, PROP_DRAW_LABELS,
      g_param_spec_boolean ("draw-labels", "Draw labels",
          "Draw each detection's label by its box (above it where there is "
          "room), clear of the other labels",
          DEFAULT_PROP_DRAW_LABELS,
          G_PARAM_READWRITE | GST_PARAM_MUTABLE_PLAYING |
          G_PARAM_STATIC_STRINGS));
  g_object_class_install_property (gobject_class, PROP_SHOW_CONFIDENCE,
      g_param_spec_boolean ("show-confidence", "Show confidence",
          "Append the confidence (0.00-1.00) to the label",
          DEFAULT_PROP_SHOW_CONFIDENCE,
          G_PARAM_READWRITE | GST_PARAM_MUTABLE_PLAYING |
          G_PARAM_STATIC_STRINGS));
  g_object_class_install_property (gobject_class, PROP_FONT_DESC,
      g_param_spec_string ("font-desc", "Font description",
          "Pango font description of the label text, as textoverlay's "
          "(family, style, size: \"Sans Bold 10\", \"Monospace 16px\")",
          DEFAULT_PROP_FONT_DESC,
          G_PARAM_READWRITE | GST_PARAM_MUTABLE_PLAYING |
          G_PARAM_STATIC_STRINGS));
  g_object_class_install_property (gobject_class, PROP_DRAW_LANDMARKS,
      g_param_spec_boolean ("draw-landmarks", "Draw landmarks",
          "Draw a dot on each keypoint of detections that carry landmarks "
          "(e.g. BlazeFace's six face points)", DEFAULT_PROP_DRAW_LANDMARKS,
          G_PARAM_READWRITE | GST_PARAM_MUTABLE_PLAYING |
          G_PARAM_STATIC_STRINGS));
  g_object_class_install_property (gobject_class, PROP_LANDMARK_RADIUS,
      g_param_spec_uint ("landmark-radius", "Landmark radius",
          "Radius of the landmark dots in pixels (0: a single pixel)", 0,
          MAX_LANDMARK_RADIUS, DEFAULT_PROP_LANDMARK_RADIUS,
          G_PARAM_READWRITE | GST_PARAM_MUTABLE_PLAYING |
          G_PARAM_STATIC_STRINGS));

  g_object_class_install_property (gobject_class, PROP_LABEL_RENDERS,
      g_param_spec_uint ("label-renders", "Label renders",
          "Text pieces laid out and rendered with Pango so far (label cache "
          "misses); the same labels frame after frame add none", 0,
          G_MAXUINT, 0, G_PARAM_READABLE | G_PARAM_STATIC_STRINGS));

  gst_element_class_add_static_pad_template (element_class, &sink_template);
  gst_element_class_add_static_pad_template (element_class, &src_template);
  gst_element_class_set_static_metadata (element_class,
      "Detection overlay", "Filter/Effect/Video",
      "Draws detection boxes and labels from region-of-interest metas "
      "onto the frame", "gst-ax developers");

  filter_class->set_info = GST_DEBUG_FUNCPTR (gst_ax_overlay_set_info);
  filter_class->transform_frame_ip =
      GST_DEBUG_FUNCPTR (gst_ax_overlay_transform_frame_ip);
}

static void
gst_ax_overlay_init (GstAxOverlay * self)
{
  self->line_width = DEFAULT_PROP_LINE_WIDTH;
  self->draw_labels = DEFAULT_PROP_DRAW_LABELS;
  self->show_confidence = DEFAULT_PROP_SHOW_CONFIDENCE;
  self->font_desc = g_strdup (DEFAULT_PROP_FONT_DESC);
  self->font_changed = TRUE;
  self->labels = gst_ax_overlay_label_cache_new (MAX_CACHED_LABELS);
  self->items = g_array_new (FALSE, FALSE, sizeof (OverlayItem));
  self->placed = g_array_new (FALSE, FALSE, sizeof (GstAxOverlayRect));
  self->draw_landmarks = DEFAULT_PROP_DRAW_LANDMARKS;
  self->landmark_radius = DEFAULT_PROP_LANDMARK_RADIUS;
}

static void
gst_ax_overlay_finalize (GObject * object)
{
  GstAxOverlay *self = GST_AX_OVERLAY (object);

  gst_ax_overlay_label_cache_free (self->labels);
  g_array_unref (self->items);
  g_array_unref (self->placed);
  g_free (self->font_desc);
  G_OBJECT_CLASS (parent_class)->finalize (object);
}

static void
gst_ax_overlay_set_property (GObject * object, guint prop_id,
    const GValue * value, GParamSpec * pspec)
{
  GstAxOverlay *self = GST_AX_OVERLAY (object);

  GST_OBJECT_LOCK (self);
  switch (prop_id) {
    case PROP_LINE_WIDTH:
      self->line_width = g_value_get_uint (value);
      break;
    case PROP_DRAW_LABELS:
      self->draw_labels = g_value_get_boolean (value);
      break;
    case PROP_SHOW_CONFIDENCE:
      self->show_confidence = g_value_get_boolean (value);
      break;
    case PROP_FONT_DESC:
      g_free (self->font_desc);
      self->font_desc = g_value_dup_string (value);
      self->font_changed = TRUE;
      break;
    case PROP_DRAW_LANDMARKS:
      self->draw_landmarks = g_value_get_boolean (value);
      break;
    case PROP_LANDMARK_RADIUS:
      self->landmark_radius = g_value_get_uint (value);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
  GST_OBJECT_UNLOCK (self);
}

static void
gst_ax_overlay_get_property (GObject * object, guint prop_id, GValue * value,
    GParamSpec * pspec)
{
  GstAxOverlay *self = GST_AX_OVERLAY (object);

  GST_OBJECT_LOCK (self);
  switch (prop_id) {
    case PROP_LINE_WIDTH:
      g_value_set_uint (value, self->line_width);
      break;
    case PROP_DRAW_LABELS:
      g_value_set_boolean (value, self->draw_labels);
      break;
    case PROP_SHOW_CONFIDENCE:
      g_value_set_boolean (value, self->show_confidence);
      break;
    case PROP_FONT_DESC:
      g_value_set_string (value, self->font_desc);
      break;
    case PROP_LABEL_RENDERS:
      g_value_set_uint (value, self->label_renders);
      break;
    case PROP_DRAW_LANDMARKS:
      g_value_set_boolean (value, self->draw_landmarks);
      break;
    case PROP_LANDMARK_RADIUS:
      g_value_set_uint (value, self->landmark_radius);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
  GST_OBJECT_UNLOCK (self);
}

static gboolean
gst_ax_overlay_set_info (GstVideoFilter * filter, GstCaps * incaps,
    GstVideoInfo * in_info, GstCaps * outcaps, GstVideoInfo * out_info)
{
  GstAxOverlay *self = GST_AX_OVERLAY (filter);
  const GstStructure *s = gst_caps_get_structure (incaps, 0);
  GstVideoColorMatrix matrix = GST_VIDEO_COLOR_MATRIX_BT601;
  GstVideoColorRange range = GST_VIDEO_COLOR_RANGE_16_235;

  self->is_yuv = GST_VIDEO_INFO_IS_YUV (in_info);
  /* the same rule as axletterbox: BT.601 limited unless the caps say */
  if (gst_structure_has_field (s, "colorimetry")) {
    if (in_info->colorimetry.matrix != GST_VIDEO_COLOR_MATRIX_UNKNOWN &&
        in_info->colorimetry.matrix != GST_VIDEO_COLOR_MATRIX_RGB)
      matrix = in_info->colorimetry.matrix;
    if (in_info->colorimetry.range != GST_VIDEO_COLOR_RANGE_UNKNOWN)
      range = in_info->colorimetry.range;
  }
  if (!gst_video_color_matrix_get_Kr_Kb (matrix, &self->kr, &self->kb))
    gst_video_color_matrix_get_Kr_Kb (GST_VIDEO_COLOR_MATRIX_BT601,
        &self->kr, &self->kb);
  gst_video_color_range_offsets (range, in_info->finfo, self->range_offset,
      self->range_scale);
  {
    GstAxOverlayColourSpace space;
    gint c;

    memset (&space, 0, sizeof (space));
    space.is_yuv = self->is_yuv;
    space.plane0_pstride = GST_VIDEO_INFO_COMP_PSTRIDE (in_info, 0);
    for (c = 0; c < N_COLOUR_COMPONENTS; c++)
      space.plane0_offset[c] = GST_VIDEO_INFO_COMP_PLANE (in_info, c) == 0 ?
          (gint) GST_VIDEO_INFO_COMP_POFFSET (in_info, c) : -1;
    if (self->is_yuv) {
      space.kr = self->kr;
      space.kb = self->kb;
      for (c = 0; c < N_COLOUR_COMPONENTS; c++) {
        space.offset[c] = self->range_offset[c];
        space.scale[c] = self->range_scale[c];
      }
    }
    /* the cached labels are in the frame's components */
    gst_ax_overlay_label_cache_set_colour_space (self->labels, &space);
  }
  return TRUE;
}

static guint8
unit_to_byte (gdouble v)
{
  return (guint8) CLAMP (lround (v), 0, MAX_PIXEL_VALUE);
}

/* Converts an RGB colour (0..1) into the frame's components. */
static void
gst_ax_overlay_make_colour (GstAxOverlay * self, gdouble r, gdouble g,
    gdouble b, OverlayColour * colour)
{
  gdouble ey, pb, pr;

  if (!self->is_yuv) {
    colour->value[0] = unit_to_byte (r * MAX_PIXEL_VALUE);
    colour->value[1] = unit_to_byte (g * MAX_PIXEL_VALUE);
    colour->value[2] = unit_to_byte (b * MAX_PIXEL_VALUE);
    return;
  }
  ey = self->kr * r + (1.0 - self->kr - self->kb) * g + self->kb * b;
  pb = (b - ey) / (2.0 * (1.0 - self->kb));
  pr = (r - ey) / (2.0 * (1.0 - self->kr));
  colour->value[0] = unit_to_byte (self->range_offset[0] +
      self->range_scale[0] * ey);
  colour->value[1] = unit_to_byte (self->range_offset[1] +
      self->range_scale[1] * pb);
  colour->value[2] = unit_to_byte (self->range_offset[2] +
      self->range_scale[2] * pr);
}

/* The class colour: hue stepped by the golden ratio per class id, and
 * whether black text (else white) reads on it. */
static void
gst_ax_overlay_class_colours (GstAxOverlay * self, guint class_id,
    OverlayColour * bar, gboolean * dark_ink)
{
  const gdouble h = fmod (class_id * HUE_STEP, 1.0) * 6.0;
  const gdouble v = CLASS_VALUE, s = CLASS_SATURATION;
  const gdouble c = v * s;
  const gdouble x = c * (1.0 - fabs (fmod (h, 2.0) - 1.0));
  const gdouble m = v - c;
  gdouble r, g, b, luma;

  switch ((gint) h) {
    case 0:
      r = c, g = x, b = 0;
      break;
    case 1:
      r = x, g = c, b = 0;
      break;
    case 2:
      r = 0, g = c, b = x;
      break;
    case 3:
      r = 0, g = x, b = c;
      break;
    case 4:
      r = x, g = 0, b = c;
      break;
    default:
      r = c, g = 0, b = x;
      break;
  }
  r += m;
  g += m;
  b += m;
  gst_ax_overlay_make_colour (self, r, g, b, bar);

  luma = self->kr * r + (1.0 - self->kr - self->kb) * g + self->kb * b;
  *dark_ink = luma > TEXT_DARK_ABOVE_LUMA;
}

static void
set_bytes (guint8 * restrict p, gint pstride, guint8 value, gint n)
{
  gint i;

  for (i = 0; i < n; i++)
    p[i * pstride] = value;
}

/* Paints components [0, n_comp) of a rectangle (frame pixels, clipped)
 * with @colour. Subsampled components cover every sample the rectangle
 * touches. */
static void
paint_rect (GstVideoFrame * frame, gint x, gint y, gint w, gint h,
    const OverlayColour * colour, gint n_comp)
{
  const GstVideoFormatInfo *finfo = frame->info.finfo;
  const gint fw = GST_VIDEO_FRAME_WIDTH (frame);
  const gint fh = GST_VIDEO_FRAME_HEIGHT (frame);
  gint x0 = MAX (x, 0), y0 = MAX (y, 0);
  gint x1 = MIN (x + w, fw), y1 = MIN (y + h, fh);
  gint c, row;

  if (x1 <= x0 || y1 <= y0)
    return;

  for (c = 0; c < n_comp; c++) {
    const gint plane = GST_VIDEO_FORMAT_INFO_PLANE (finfo, c);
    const gint pstride = GST_VIDEO_FORMAT_INFO_PSTRIDE (finfo, c);
    const gint poffset = GST_VIDEO_FORMAT_INFO_POFFSET (finfo, c);
    const gint wsub = GST_VIDEO_FORMAT_INFO_W_SUB (finfo, c);
    const gint hsub = GST_VIDEO_FORMAT_INFO_H_SUB (finfo, c);
    const gint stride = GST_VIDEO_FRAME_PLANE_STRIDE (frame, plane);
    guint8 *base = GST_VIDEO_FRAME_PLANE_DATA (frame, plane);
    const gint cx0 = x0 >> wsub, cx1 = (x1 - 1) >> wsub;
    const gint cy0 = y0 >> hsub, cy1 = (y1 - 1) >> hsub;

    for (row = cy0; row <= cy1; row++)
      set_bytes (base + (gsize) row * stride + cx0 * pstride + poffset,
          pstride, colour->value[c], cx1 - cx0 + 1);
  }
}

static void
draw_box (GstVideoFrame * frame, gint x0, gint y0, gint x1, gint y1,
    gint line_width, const OverlayColour * colour)
{
  const gint w = x1 - x0, h = y1 - y0;
  const gint lw_x = MIN (line_width, w), lw_y = MIN (line_width, h);

  if (w <= 0 || h <= 0)
    return;
  paint_rect (frame, x0, y0, w, lw_y, colour, N_COLOUR_COMPONENTS);
  paint_rect (frame, x0, y1 - lw_y, w, lw_y, colour, N_COLOUR_COMPONENTS);
  paint_rect (frame, x0, y0, lw_x, h, colour, N_COLOUR_COMPONENTS);
  paint_rect (frame, x1 - lw_x, y0, lw_x, h, colour, N_COLOUR_COMPONENTS);
}

/* A filled disc of @radius around pixel (@cx, @cy), clipped: one run per
 * row, half-width floor (sqrt (r^2 - dy^2)). */
static void
draw_dot (GstVideoFrame * frame, gint cx, gint cy, gint radius,
    const OverlayColour * colour)
{
  gint dy;

  for (dy = -radius; dy <= radius; dy++) {
    gint hw = (gint) floor (sqrt ((gdouble) radius * radius - dy * dy));
    paint_rect (frame, cx - hw, cy + dy, 2 * hw + 1, 1, colour,
        N_COLOUR_COMPONENTS);
  }
}

/* Fills @row's text: the label and, with @show_confidence, " 0.87". */
static void
label_row_set (LabelRow * row, const gchar * name, gboolean show_confidence,
    gfloat confidence)
{
  g_strlcpy (row->name, name ? name : "", sizeof (row->name));
  row->confidence[0] = '\0';
  if (show_confidence) {
    gchar conf[G_ASCII_DTOSTR_BUF_SIZE];

    /* locale-independent: always a decimal point */
    g_ascii_formatd (conf, sizeof (conf), "%.2f", confidence);
    g_snprintf (row->confidence, sizeof (row->confidence), "%s%s",
        row->name[0] ? " " : "", conf);
  }
}

static gint
piece_width (GstAxOverlay * self, const gchar * text, gboolean dark_ink)
{
  if (!text[0])
    return 0;
  return gst_ax_overlay_label_cache_get (self->labels, text, dark_ink)->width;
}

static gint
row_height (GstAxOverlay * self)
{
  return gst_ax_overlay_label_cache_get_line_height (self->labels) +
      2 * LABEL_PAD_Y;
}

/* Draws the bars and text of @item at @where (rows stacked downwards,
 * each bar as wide as its own text). */
static void
draw_label (GstAxOverlay * self, GstVideoFrame * frame,
    const OverlayItem * item, const GstAxOverlayRect * where)
{
  const gint bar_h = row_height (self);
  guint r;

  for (r = 0; r < item->n_rows; r++) {
    const LabelRow *row = &item->rows[r];
    const gint y = where->y + (gint) r * bar_h;
    gint x = where->x + LABEL_PAD_X;

    if (row->width == 0)
      continue;
    paint_rect (frame, where->x, y, row->width, bar_h, &item->bar,
        N_COLOUR_COMPONENTS);
    /* looked up again: a miss since the sizes were taken may have evicted
     * the piece */
    if (row->name[0]) {
      const GstAxOverlayLabel *l = gst_ax_overlay_label_cache_get
          (self->labels, row->name, item->dark_ink);

      gst_ax_overlay_blend_label (frame, l, x, y + LABEL_PAD_Y);
      x += l->width;
    }
    if (row->confidence[0])
      gst_ax_overlay_blend_label (frame,
          gst_ax_overlay_label_cache_get (self->labels, row->confidence,
              item->dark_ink), x, y + LABEL_PAD_Y);
  }
}

/* Sizes the rows of every item, places the labels (whole-frame classes
 * first) and draws them. */
static void
draw_labels (GstAxOverlay * self, GstVideoFrame * frame)
{
  const gint fw = GST_VIDEO_FRAME_WIDTH (frame);
  const gint fh = GST_VIDEO_FRAME_HEIGHT (frame);
  const gint bar_h = row_height (self);
  guint pass, i, r;

  g_array_set_size (self->placed, 0);
  for (pass = 0; pass < 2; pass++) {
    for (i = 0; i < self->items->len; i++) {
      OverlayItem *item = &g_array_index (self->items, OverlayItem, i);
      GstAxOverlayRect box = { item->x0, item->y0, item->x1 - item->x0,
        item->y1 - item->y0
      };
      GstAxOverlayRect where;
      gint w = 0;

      if (item->whole_frame != (pass == 0))
        continue;
      for (r = 0; r < item->n_rows; r++) {
        LabelRow *row = &item->rows[r];
        gint text_w = piece_width (self, row->name, item->dark_ink) +
            piece_width (self, row->confidence, item->dark_ink);

        row->width = text_w ? text_w + 2 * LABEL_PAD_X : 0;
        w = MAX (w, row->width);
      }
      if (w == 0)
        continue;
      gst_ax_overlay_place_label (&box, w, bar_h * (gint) item->n_rows, fw,
          fh, (const GstAxOverlayRect *) self->placed->data,
          self->placed->len, &where);
      g_array_append_val (self->placed, where);
      GST_LOG_OBJECT (self, "label '%s%s' at %d,%d %dx%d", item->rows[0].name,
          item->rows[0].confidence, where.x, where.y, where.w, where.h);
      draw_label (self, frame, item, &where);
    }
  }
}

static GstFlowReturn
gst_ax_overlay_transform_frame_ip (GstVideoFilter * filter,
    GstVideoFrame * frame)
{
  GstAxOverlay *self = GST_AX_OVERLAY (filter);
  const gint fw = GST_VIDEO_FRAME_WIDTH (frame);
  const gint fh = GST_VIDEO_FRAME_HEIGHT (frame);
  guint line_width, landmark_radius;
  gboolean draw_labels_on, show_confidence, draw_landmarks;
  gchar *font_desc = NULL;
  gfloat points[2 * MAX_LANDMARKS];
  gpointer state = NULL;
  GstMeta *meta;
  const GQuark frame_roi_type =
      g_quark_from_static_string (GST_AX_FRAME_ROI_TYPE);

  GST_OBJECT_LOCK (self);
  line_width = self->line_width;
  draw_labels_on = self->draw_labels;
  show_confidence = self->show_confidence;
  draw_landmarks = self->draw_landmarks;
  landmark_radius = self->landmark_radius;
  if (self->font_changed) {
    font_desc = g_strdup (self->font_desc);
    self->font_changed = FALSE;
  }
  GST_OBJECT_UNLOCK (self);

  if (font_desc) {
    gst_ax_overlay_label_cache_set_font (self->labels, font_desc);
    g_free (font_desc);
  }

  g_array_set_size (self->items, 0);
  while ((meta = gst_buffer_iterate_meta_filtered (frame->buffer, &state,
              GST_VIDEO_REGION_OF_INTEREST_META_API_TYPE))) {
    GstVideoRegionOfInterestMeta *roi = (GstVideoRegionOfInterestMeta *) meta;
    GstAxDetection det;
    GstAxClassification cls;
    OverlayItem item;
    gboolean classified;
    const gchar *label;
    guint class_id;

    memset (&item, 0, sizeof (item));
    classified = gst_ax_detection_get_classification (roi, 0, &cls);
    if (roi->roi_type == frame_roi_type) {
      /* a whole frame's class: no box, the text in the corner */
      if (classified && draw_labels_on) {
        gst_ax_overlay_class_colours (self, cls.label_id, &item.bar,
            &item.dark_ink);
        item.whole_frame = TRUE;
        item.x1 = fw;
        item.y1 = fh;
        item.n_rows = 1;
        label_row_set (&item.rows[0], cls.label, show_confidence,
            cls.confidence);
        g_array_append_val (self->items, item);
      }
      continue;
    }

    if (gst_ax_detection_from_roi (roi, &det)) {
      class_id = det.label_id;
      item.x0 = (gint) lround (CLAMP (det.x_min, 0.0f, 1.0f) * fw);
      item.y0 = (gint) lround (CLAMP (det.y_min, 0.0f, 1.0f) * fh);
      item.x1 = (gint) lround (CLAMP (det.x_max, 0.0f, 1.0f) * fw);
      item.y1 = (gint) lround (CLAMP (det.y_max, 0.0f, 1.0f) * fh);
      label = det.label ? det.label : g_quark_to_string (roi->roi_type);
      label_row_set (&item.rows[0], label, show_confidence, det.confidence);
    } else {
      label = g_quark_to_string (roi->roi_type);
      class_id = label ? g_str_hash (label) : 0;
      item.x0 = (gint) MIN (roi->x, (guint) fw);
      item.y0 = (gint) MIN (roi->y, (guint) fh);
      item.x1 = (gint) MIN ((gint64) roi->x + roi->w, (gint64) fw);
      item.y1 = (gint) MIN ((gint64) roi->y + roi->h, (gint64) fh);
      label_row_set (&item.rows[0], label, FALSE, 0.0f);
    }
    item.n_rows = 1;
    if (classified)
      label_row_set (&item.rows[item.n_rows++], cls.label, show_confidence,
          cls.confidence);

    gst_ax_overlay_class_colours (self, class_id, &item.bar, &item.dark_ink);
    GST_LOG_OBJECT (self, "box %d,%d-%d,%d class %u '%s'", item.x0, item.y0,
        item.x1, item.y1, class_id, item.rows[0].name);
    draw_box (frame, item.x0, item.y0, item.x1, item.y1, line_width, &item.bar);
    if (draw_landmarks) {
      guint n = MIN (gst_ax_detection_get_landmarks (roi, points,
              MAX_LANDMARKS), MAX_LANDMARKS), k;

      for (k = 0; k < n; k++) {
        gdouble px = points[2 * k] * fw, py = points[2 * k + 1] * fh;

        /* far outside the frame: nothing to draw, and no int overflow */
        if (!(px > -(gdouble) MAX_LANDMARK_RADIUS
                && px < fw + (gdouble) MAX_LANDMARK_RADIUS
                && py > -(gdouble) MAX_LANDMARK_RADIUS
                && py < fh + (gdouble) MAX_LANDMARK_RADIUS))
          continue;
        draw_dot (frame, (gint) floor (px), (gint) floor (py),
            landmark_radius, &item.bar);
      }
    }
    if (draw_labels_on && item.x1 > item.x0 && item.y1 > item.y0)
      g_array_append_val (self->items, item);
  }
  /* after every box, so that no outline crosses a label */
  if (draw_labels_on)
    draw_labels (self, frame);
  GST_OBJECT_LOCK (self);
  self->label_renders = gst_ax_overlay_label_cache_get_n_renders (self->labels);
  GST_OBJECT_UNLOCK (self);
  return GST_FLOW_OK;
}
