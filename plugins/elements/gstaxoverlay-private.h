/* gst-ax
 * Copyright (C) 2026 gst-ax developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

/* axoverlay's label engine: text rendered once with Pango/Cairo and kept
 * in a bounded cache, blended onto the frame per frame, and the greedy
 * placement that keeps labels clear of each other. Internal to the
 * axelements plugin; its tests and bench compile gstaxoverlaylabel.c. */

#ifndef __GST_AX_OVERLAY_PRIVATE_H__
#define __GST_AX_OVERLAY_PRIVATE_H__

#include <gst/video/video.h>

G_BEGIN_DECLS

#define GST_AX_OVERLAY_N_COMPONENTS 3
#define GST_AX_OVERLAY_DEFAULT_FONT "Sans Bold 10"
/* space between a label's text and the edges of its bar, in pixels */
#define GST_AX_OVERLAY_LABEL_PAD_X 3
#define GST_AX_OVERLAY_LABEL_PAD_Y 1

typedef struct
{
  gint x, y, w, h;
} GstAxOverlayRect;

/* How an RGB colour becomes the frame's three components: RGB as it is,
 * or Y'CbCr with the matrix (kr, kb) and the range's offset and scale;
 * and where the components sit in the frame's first plane. */
typedef struct
{
  gboolean is_yuv;
  gdouble kr, kb;
  gint offset[GST_AX_OVERLAY_N_COMPONENTS];
  gint scale[GST_AX_OVERLAY_N_COMPONENTS];
  /* bytes per pixel of plane 0, and the byte of component c in such a
   * pixel (-1: the component is in another plane) */
  gint plane0_pstride;
  gint plane0_offset[GST_AX_OVERLAY_N_COMPONENTS];
} GstAxOverlayColourSpace;

/* One line of text rendered once, premultiplied, in two forms.
 * pixels: width x height pixels of 4 bytes, the coverage alpha then the
 * frame's three components (R, G, B or Y, U, V in that order), each
 * premultiplied by alpha; the subsampled planes blend from it.
 * plane0_pre and plane0_inv: width x height pixels of plane0_pstride bytes,
 * laid out as the frame's plane 0: the premultiplied byte, and 255 minus
 * alpha (bytes of no component: 0 and 255, so they keep their value);
 * plane 0 blends from them one byte at a time, a loop the compiler
 * vectorises. */
typedef struct
{
  gint width, height;
  guint8 *pixels;
  gint plane0_pstride;
  guint8 *plane0_pre;
  guint8 *plane0_inv;
} GstAxOverlayLabel;

/* Fills @label (freed with gst_ax_overlay_label_clear()) from @argb, a
 * @width x @height image of premultiplied ARGB32 words (Cairo's
 * CAIRO_FORMAT_ARGB32) with rows @stride bytes apart. */
void gst_ax_overlay_label_init_from_argb (GstAxOverlayLabel * label,
    const GstAxOverlayColourSpace * space, gint width, gint height,
    const guint8 * argb, gint stride);
void gst_ax_overlay_label_clear (GstAxOverlayLabel * label);

typedef struct _GstAxOverlayLabelCache GstAxOverlayLabelCache;

GstAxOverlayLabelCache *gst_ax_overlay_label_cache_new (guint max_labels);
void gst_ax_overlay_label_cache_free (GstAxOverlayLabelCache * cache);
/* A Pango font description ("Sans Bold 10"); drops every cached label when
 * it changes. */
void gst_ax_overlay_label_cache_set_font (GstAxOverlayLabelCache * cache,
    const gchar * font_desc);
/* Drops every cached label when the colour space changes. */
void gst_ax_overlay_label_cache_set_colour_space (GstAxOverlayLabelCache *
    cache, const GstAxOverlayColourSpace * space);
/* The label of @text in black (@dark_ink) or white ink, rendered on the
 * first request and then returned from the cache. The pointer stays valid
 * until the next call that renders or drops labels. */
const GstAxOverlayLabel *gst_ax_overlay_label_cache_get (GstAxOverlayLabelCache
    * cache, const gchar * text, gboolean dark_ink);
/* The height of one line of text in the current font, in pixels. */
gint gst_ax_overlay_label_cache_get_line_height (GstAxOverlayLabelCache *
    cache);
/* How many labels were laid out and rendered with Pango (cache misses). */
guint gst_ax_overlay_label_cache_get_n_renders (GstAxOverlayLabelCache * cache);
guint gst_ax_overlay_label_cache_get_n_cached (GstAxOverlayLabelCache * cache);

/* Blends @label with its top-left corner at (@x, @y), clipped to the
 * frame; subsampled chroma takes the mean of the pixels of its block. */
void gst_ax_overlay_blend_label (GstVideoFrame * frame,
    const GstAxOverlayLabel * label, gint x, gint y);

/* Places a @w x @h label for @box on a @fw x @fh frame, clear of the
 * @n_placed labels already placed if it can. */
void gst_ax_overlay_place_label (const GstAxOverlayRect * box, gint w, gint h,
    gint fw, gint fh, const GstAxOverlayRect * placed, guint n_placed,
    GstAxOverlayRect * out);

G_END_DECLS
#endif /* __GST_AX_OVERLAY_PRIVATE_H__ */
