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
 * and, above it, a label ("label 0.87") on a bar of the same colour.
 * Detections made by axnms are read through the gst/ax detection helpers
 * (class id, confidence, normalised box); other region metas are drawn
 * from their pixel rectangle with their roi_type as label, coloured by a
 * hash of it.
 *
 * Class colours step the hue by the golden ratio, so neighbouring class
 * ids get distant hues. Text uses a built-in 5x7 bitmap font (digits,
 * letters shown in capitals, and common punctuation), scaled by an
 * integer factor; it needs no font library and draws the same on every
 * machine.
 *
 * Detections with keypoints (a "landmarks" parameter, as axnms attaches
 * for BlazeFace's eyes, ears, nose and mouth; see
 * A region classified by axclassify (a "classification" parameter, see
 * gst_ax_detection_get_classification()) gets its best class ("neutral
 * 0.83") on a second bar under the box label; the classification of a
 * whole frame (the region of roi_type "frame") is drawn at the frame's
 * top-left corner, without a box.
 *
 * Detections with keypoints (a "landmarks" parameter, as axnms attaches
 * for BlazeFace's eyes, ears, nose and mouth; see
 * gst_ax_detection_get_landmarks()) also get a filled dot of
 * #GstAxOverlay:landmark-radius on each point, in the box colour, unless
 * #GstAxOverlay:draw-landmarks is off.
 *
 * On NV12 and I420 the luma of the outline is exact; chroma is set on
 * every 2x2 chroma block the outline touches, so colour can bleed one
 * pixel outward. Text sets luma only, on the label bar's colour.
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

#include <gst/ax/ax.h>
#include <gst/video/video.h>
#include <math.h>
#include <string.h>

GST_DEBUG_CATEGORY_STATIC (gst_ax_overlay_debug);
#define GST_CAT_DEFAULT gst_ax_overlay_debug

#define N_COLOUR_COMPONENTS 3
#define MAX_PIXEL_VALUE 255
#define MAX_LINE_WIDTH 64
#define MAX_FONT_SCALE 16
#define MAX_LABEL_CHARS 64
#define GLYPH_WIDTH 5
#define GLYPH_HEIGHT 7
/* glyph plus one blank column and row */
#define CELL_WIDTH (GLYPH_WIDTH + 1)
#define CELL_HEIGHT (GLYPH_HEIGHT + 1)
#define N_GLYPH_CODES 128
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
  guint font_scale;
  gboolean draw_landmarks;
  guint landmark_radius;

  /* streaming thread only */
  gboolean is_yuv;
  gdouble kr;
  gdouble kb;
  gint range_offset[GST_VIDEO_MAX_COMPONENTS];
  gint range_scale[GST_VIDEO_MAX_COMPONENTS];
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
#define DEFAULT_PROP_FONT_SCALE 2
#define DEFAULT_PROP_DRAW_LANDMARKS TRUE
#define DEFAULT_PROP_LANDMARK_RADIUS 3

enum
{
  PROP_0,
  PROP_LINE_WIDTH,
  PROP_DRAW_LABELS,
  PROP_SHOW_CONFIDENCE,
  PROP_FONT_SCALE,
  PROP_DRAW_LANDMARKS,
  PROP_LANDMARK_RADIUS,
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

/* The built-in font: each glyph is GLYPH_HEIGHT rows of GLYPH_WIDTH
 * columns, '#' set. Lower-case letters are drawn as capitals; characters
 * without a glyph as '?'. */
typedef struct
{
  gchar code;
  const gchar *rows[GLYPH_HEIGHT];
} GlyphSource;

static const GlyphSource glyph_sources[] = {
  {'0', {".###.", "#...#", "#..##", "#.#.#", "##..#", "#...#", ".###."}},
  {'1', {"..#..", ".##..", "..#..", "..#..", "..#..", "..#..", ".###."}},
  {'2', {".###.", "#...#", "....#", "...#.", "..#..", ".#...", "#####"}},
  {'3', {"#####", "...#.", "..#..", "...#.", "....#", "#...#", ".###."}},
  {'4', {"...#.", "..##.", ".#.#.", "#..#.", "#####", "...#.", "...#."}},
  {'5', {"#####", "#....", "####.", "....#", "....#", "#...#", ".###."}},
  {'6', {"..##.", ".#...", "#....", "####.", "#...#", "#...#", ".###."}},
  {'7', {"#####", "....#", "...#.", "..#..", ".#...", ".#...", ".#..."}},
  {'8', {".###.", "#...#", "#...#", ".###.", "#...#", "#...#", ".###."}},
  {'9', {".###.", "#...#", "#...#", ".####", "....#", "...#.", ".##.."}},
  {'A', {".###.", "#...#", "#...#", "#####", "#...#", "#...#", "#...#"}},
  {'B', {"####.", "#...#", "#...#", "####.", "#...#", "#...#", "####."}},
  {'C', {".###.", "#...#", "#....", "#....", "#....", "#...#", ".###."}},
  {'D', {"###..", "#..#.", "#...#", "#...#", "#...#", "#..#.", "###.."}},
  {'E', {"#####", "#....", "#....", "####.", "#....", "#....", "#####"}},
  {'F', {"#####", "#....", "#....", "####.", "#....", "#....", "#...."}},
  {'G', {".###.", "#...#", "#....", "#.###", "#...#", "#...#", ".####"}},
  {'H', {"#...#", "#...#", "#...#", "#####", "#...#", "#...#", "#...#"}},
  {'I', {".###.", "..#..", "..#..", "..#..", "..#..", "..#..", ".###."}},
  {'J', {"..###", "...#.", "...#.", "...#.", "...#.", "#..#.", ".##.."}},
  {'K', {"#...#", "#..#.", "#.#..", "##...", "#.#..", "#..#.", "#...#"}},
  {'L', {"#....", "#....", "#....", "#....", "#....", "#....", "#####"}},
  {'M', {"#...#", "##.##", "#.#.#", "#.#.#", "#...#", "#...#", "#...#"}},
  {'N', {"#...#", "#...#", "##..#", "#.#.#", "#..##", "#...#", "#...#"}},
  {'O', {".###.", "#...#", "#...#", "#...#", "#...#", "#...#", ".###."}},
  {'P', {"####.", "#...#", "#...#", "####.", "#....", "#....", "#...."}},
  {'Q', {".###.", "#...#", "#...#", "#...#", "#.#.#", "#..#.", ".##.#"}},
  {'R', {"####.", "#...#", "#...#", "####.", "#.#..", "#..#.", "#...#"}},
  {'S', {".####", "#....", "#....", ".###.", "....#", "....#", "####."}},
  {'T', {"#####", "..#..", "..#..", "..#..", "..#..", "..#..", "..#.."}},
  {'U', {"#...#", "#...#", "#...#", "#...#", "#...#", "#...#", ".###."}},
  {'V', {"#...#", "#...#", "#...#", "#...#", "#...#", ".#.#.", "..#.."}},
  {'W', {"#...#", "#...#", "#...#", "#.#.#", "#.#.#", "#.#.#", ".#.#."}},
  {'X', {"#...#", "#...#", ".#.#.", "..#..", ".#.#.", "#...#", "#...#"}},
  {'Y', {"#...#", "#...#", ".#.#.", "..#..", "..#..", "..#..", "..#.."}},
  {'Z', {"#####", "....#", "...#.", "..#..", ".#...", "#....", "#####"}},
  {'.', {".....", ".....", ".....", ".....", ".....", ".##..", ".##.."}},
  {'-', {".....", ".....", ".....", "#####", ".....", ".....", "....."}},
  {'_', {".....", ".....", ".....", ".....", ".....", ".....", "#####"}},
  {':', {".....", ".##..", ".##..", ".....", ".##..", ".##..", "....."}},
  {'%', {"##...", "##..#", "...#.", "..#..", ".#...", "#..##", "...##"}},
  {'/', {".....", "....#", "...#.", "..#..", ".#...", "#....", "....."}},
  {'(', {"...#.", "..#..", ".#...", ".#...", ".#...", "..#..", "...#."}},
  {')', {".#...", "..#..", "...#.", "...#.", "...#.", "..#..", ".#..."}},
  {'+', {".....", "..#..", "..#..", "#####", "..#..", "..#..", "....."}},
  {'?', {".###.", "#...#", "....#", "...#.", "..#..", ".....", "..#.."}},
  {' ', {".....", ".....", ".....", ".....", ".....", ".....", "....."}},
};

/* bit (GLYPH_WIDTH - 1 - col) of font_bits[code][row] is set when the
 * pixel is ink; written once in class_init */
static guint8 font_bits[N_GLYPH_CODES][GLYPH_HEIGHT];
static gboolean font_has_glyph[N_GLYPH_CODES];

typedef struct
{
  /* per format component: R, G, B or Y, U, V */
  guint8 value[N_COLOUR_COMPONENTS];
} OverlayColour;

static void gst_ax_overlay_set_property (GObject * object, guint prop_id,
    const GValue * value, GParamSpec * pspec);
static void gst_ax_overlay_get_property (GObject * object, guint prop_id,
    GValue * value, GParamSpec * pspec);
static gboolean gst_ax_overlay_set_info (GstVideoFilter * filter,
    GstCaps * incaps, GstVideoInfo * in_info, GstCaps * outcaps,
    GstVideoInfo * out_info);
static GstFlowReturn gst_ax_overlay_transform_frame_ip (GstVideoFilter *
    filter, GstVideoFrame * frame);

static void
build_font (void)
{
  guint i, row, col;

  for (i = 0; i < G_N_ELEMENTS (glyph_sources); i++) {
    const GlyphSource *g = &glyph_sources[i];
    const guint code = (guchar) g->code;

    for (row = 0; row < GLYPH_HEIGHT; row++) {
      guint8 bits = 0;

      for (col = 0; col < GLYPH_WIDTH; col++)
        if (g->rows[row][col] == '#')
          bits |= 1 << (GLYPH_WIDTH - 1 - col);
      font_bits[code][row] = bits;
    }
    font_has_glyph[code] = TRUE;
  }
}

static void
gst_ax_overlay_class_init (GstAxOverlayClass * klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  GstElementClass *element_class = GST_ELEMENT_CLASS (klass);
  GstVideoFilterClass *filter_class = GST_VIDEO_FILTER_CLASS (klass);

  gobject_class->set_property = gst_ax_overlay_set_property;
  gobject_class->get_property = gst_ax_overlay_get_property;

  g_object_class_install_property (gobject_class, PROP_LINE_WIDTH,
      g_param_spec_uint ("line-width", "Line width",
          "Thickness of the box outline in pixels, drawn inside the box",
          1, MAX_LINE_WIDTH, DEFAULT_PROP_LINE_WIDTH,
          G_PARAM_READWRITE | GST_PARAM_MUTABLE_PLAYING |
          G_PARAM_STATIC_STRINGS));
  g_object_class_install_property (gobject_class, PROP_DRAW_LABELS,
      g_param_spec_boolean ("draw-labels", "Draw labels",
          "Draw each detection's label above its box",
          DEFAULT_PROP_DRAW_LABELS,
          G_PARAM_READWRITE | GST_PARAM_MUTABLE_PLAYING |
          G_PARAM_STATIC_STRINGS));
  g_object_class_install_property (gobject_class, PROP_SHOW_CONFIDENCE,
      g_param_spec_boolean ("show-confidence", "Show confidence",
          "Append the confidence (0.00-1.00) to the label",
          DEFAULT_PROP_SHOW_CONFIDENCE,
          G_PARAM_READWRITE | GST_PARAM_MUTABLE_PLAYING |
          G_PARAM_STATIC_STRINGS));
  g_object_class_install_property (gobject_class, PROP_FONT_SCALE,
      g_param_spec_uint ("font-scale", "Font scale",
          "Size of a font pixel in frame pixels (glyphs are 5x7)",
          1, MAX_FONT_SCALE, DEFAULT_PROP_FONT_SCALE,
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

  gst_element_class_add_static_pad_template (element_class, &sink_template);
  gst_element_class_add_static_pad_template (element_class, &src_template);
  gst_element_class_set_static_metadata (element_class,
      "Detection overlay", "Filter/Effect/Video",
      "Draws detection boxes and labels from region-of-interest metas "
      "onto the frame", "gst-ax developers");

  filter_class->set_info = GST_DEBUG_FUNCPTR (gst_ax_overlay_set_info);
  filter_class->transform_frame_ip =
      GST_DEBUG_FUNCPTR (gst_ax_overlay_transform_frame_ip);

  build_font ();
}

static void
gst_ax_overlay_init (GstAxOverlay * self)
{
  self->line_width = DEFAULT_PROP_LINE_WIDTH;
  self->draw_labels = DEFAULT_PROP_DRAW_LABELS;
  self->show_confidence = DEFAULT_PROP_SHOW_CONFIDENCE;
  self->font_scale = DEFAULT_PROP_FONT_SCALE;
  self->draw_landmarks = DEFAULT_PROP_DRAW_LANDMARKS;
  self->landmark_radius = DEFAULT_PROP_LANDMARK_RADIUS;
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
    case PROP_FONT_SCALE:
      self->font_scale = g_value_get_uint (value);
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
    case PROP_FONT_SCALE:
      g_value_set_uint (value, self->font_scale);
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

/* The class colour: hue stepped by the golden ratio per class id, then
 * the text colour that reads on it. */
static void
gst_ax_overlay_class_colours (GstAxOverlay * self, guint class_id,
    OverlayColour * bar, OverlayColour * text)
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
  if (luma > TEXT_DARK_ABOVE_LUMA)
    gst_ax_overlay_make_colour (self, 0.0, 0.0, 0.0, text);
  else
    gst_ax_overlay_make_colour (self, 1.0, 1.0, 1.0, text);
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

/* Draws @text on a bar above the box at @box_x, @box_y (below its top
 * edge when there is no room above), @line bars further down: line 0 is
 * the box label, line 1 the classification under it. */
static void
draw_label (GstAxOverlay * self, GstVideoFrame * frame, const gchar * text,
    gint box_x, gint box_y, guint line, guint scale,
    const OverlayColour * bar, const OverlayColour * ink)
{
  const gint fw = GST_VIDEO_FRAME_WIDTH (frame);
  const gint s = scale;
  const gint n = strlen (text);
  const gint bar_w = (n * CELL_WIDTH + 1) * s;
  const gint bar_h = (CELL_HEIGHT + 1) * s;
  /* YUV text sets luma only, keeping the bar's chroma */
  const gint ink_comps = self->is_yuv ? 1 : N_COLOUR_COMPONENTS;
  gint bx, by, i, row, col;

  if (n == 0)
    return;
  bx = box_x;
  if (bx + bar_w > fw)
    bx = fw - bar_w;
  bx = MAX (bx, 0);
  by = box_y - bar_h;
  if (by < 0)
    by = box_y;
  by += bar_h * (gint) line;

  paint_rect (frame, bx, by, bar_w, bar_h, bar, N_COLOUR_COMPONENTS);

  for (i = 0; i < n; i++) {
    guint code = (guchar) g_ascii_toupper (text[i]);

    if (code >= N_GLYPH_CODES || !font_has_glyph[code])
      code = '?';
    for (row = 0; row < GLYPH_HEIGHT; row++) {
      const guint8 bits = font_bits[code][row];

      for (col = 0; col < GLYPH_WIDTH; col++) {
        if (bits & (1 << (GLYPH_WIDTH - 1 - col)))
          paint_rect (frame, bx + (1 + i * CELL_WIDTH + col) * s,
              by + (1 + row) * s, s, s, ink, ink_comps);
      }
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
  guint line_width, font_scale, landmark_radius;
  gboolean draw_labels, show_confidence, draw_landmarks;
  gfloat points[2 * MAX_LANDMARKS];
  gpointer state = NULL;
  GstMeta *meta;
  const GQuark frame_roi_type =
      g_quark_from_static_string (GST_AX_FRAME_ROI_TYPE);

  GST_OBJECT_LOCK (self);
  line_width = self->line_width;
  font_scale = self->font_scale;
  draw_labels = self->draw_labels;
  show_confidence = self->show_confidence;
  draw_landmarks = self->draw_landmarks;
  landmark_radius = self->landmark_radius;
  GST_OBJECT_UNLOCK (self);

  while ((meta = gst_buffer_iterate_meta_filtered (frame->buffer, &state,
              GST_VIDEO_REGION_OF_INTEREST_META_API_TYPE))) {
    GstVideoRegionOfInterestMeta *roi = (GstVideoRegionOfInterestMeta *) meta;
    GstAxDetection det;
    OverlayColour bar, ink;
    gchar text[MAX_LABEL_CHARS], class_text[MAX_LABEL_CHARS];
    GstAxClassification cls;
    gboolean classified;
    const gchar *label;
    gint x0, y0, x1, y1;
    guint class_id;

    classified = gst_ax_detection_get_classification (roi, 0, &cls);
    if (classified) {
      if (show_confidence) {
        gchar conf[G_ASCII_DTOSTR_BUF_SIZE];

        g_ascii_formatd (conf, sizeof (conf), "%.2f", cls.confidence);
        g_snprintf (class_text, sizeof (class_text), "%s %s",
            cls.label ? cls.label : "", conf);
      } else
        g_snprintf (class_text, sizeof (class_text), "%s",
            cls.label ? cls.label : "");
    }
    if (roi->roi_type == frame_roi_type) {
      /* a whole frame's class: no box, the text in the corner */
      if (classified && draw_labels) {
        gst_ax_overlay_class_colours (self, cls.label_id, &bar, &ink);
        draw_label (self, frame, class_text, 0, 0, 0, font_scale, &bar, &ink);
      }
      continue;
    }

    if (gst_ax_detection_from_roi (roi, &det)) {
      class_id = det.label_id;
      x0 = (gint) lround (CLAMP (det.x_min, 0.0f, 1.0f) * fw);
      y0 = (gint) lround (CLAMP (det.y_min, 0.0f, 1.0f) * fh);
      x1 = (gint) lround (CLAMP (det.x_max, 0.0f, 1.0f) * fw);
      y1 = (gint) lround (CLAMP (det.y_max, 0.0f, 1.0f) * fh);
      label = det.label ? det.label : g_quark_to_string (roi->roi_type);
      if (show_confidence) {
        gchar conf[G_ASCII_DTOSTR_BUF_SIZE];

        /* locale-independent: always a decimal point */
        g_ascii_formatd (conf, sizeof (conf), "%.2f", det.confidence);
        g_snprintf (text, sizeof (text), "%s %s", label ? label : "", conf);
      } else
        g_snprintf (text, sizeof (text), "%s", label ? label : "");
    } else {
      label = g_quark_to_string (roi->roi_type);
      class_id = label ? g_str_hash (label) : 0;
      x0 = (gint) MIN (roi->x, (guint) fw);
      y0 = (gint) MIN (roi->y, (guint) fh);
      x1 = (gint) MIN ((gint64) roi->x + roi->w, (gint64) fw);
      y1 = (gint) MIN ((gint64) roi->y + roi->h, (gint64) fh);
      g_snprintf (text, sizeof (text), "%s", label ? label : "");
    }

    gst_ax_overlay_class_colours (self, class_id, &bar, &ink);
    GST_LOG_OBJECT (self, "box %d,%d-%d,%d class %u '%s'", x0, y0, x1, y1,
        class_id, text);
    draw_box (frame, x0, y0, x1, y1, line_width, &bar);
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
            landmark_radius, &bar);
      }
    }
    if (draw_labels && x1 > x0 && y1 > y0) {
      draw_label (self, frame, text, x0, y0, 0, font_scale, &bar, &ink);
      if (classified)
        draw_label (self, frame, class_text, x0, y0, 1, font_scale, &bar, &ink);
    }
  }
  return GST_FLOW_OK;
}
