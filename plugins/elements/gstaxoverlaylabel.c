/* gst-ax
 * Copyright (C) 2026 gst-ax developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

/* axoverlay's labels. Laying out and rasterising text with Pango costs
 * tens of microseconds per string, far more than blending its few hundred
 * pixels, so each distinct string is rendered once into a Cairo ARGB
 * surface, converted to the frame's colour space (premultiplied) and kept
 * in an LRU cache of bounded size; a frame only looks labels up and
 * blends them. */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstaxoverlay-private.h"

#include <pango/pangocairo.h>
#include <string.h>

#define MAX_PIXEL_VALUE 255
#define BYTES_PER_LABEL_PIXEL 4
/* the longest text looked up; longer ones are cut */
#define MAX_KEY_CHARS 128
#define DEFAULT_FONT_DESC GST_AX_OVERLAY_DEFAULT_FONT
#define ARGB_ALPHA_SHIFT 24
#define ARGB_RED_SHIFT 16
#define ARGB_GREEN_SHIFT 8
/* a label is moved by whole label heights at most this many times up and
 * down before it is left where it overlaps */
#define MAX_SHIFT_STEPS 8

typedef struct
{
  GstAxOverlayLabel label;
  gchar *key;
  GList link;
} CacheEntry;

struct _GstAxOverlayLabelCache
{
  guint max_labels;
  PangoFontMap *font_map;
  PangoContext *context;
  PangoLayout *layout;
  gint line_height;
  GstAxOverlayColourSpace space;
  /* key -> CacheEntry; most recently used at the head of lru */
  GHashTable *entries;
  GQueue lru;
  guint n_renders;
};

static void
cache_entry_free (gpointer data)
{
  CacheEntry *e = data;

  gst_ax_overlay_label_clear (&e->label);
  g_free (e->key);
  g_free (e);
}

static void
cache_clear (GstAxOverlayLabelCache * cache)
{
  g_queue_init (&cache->lru);
  g_hash_table_remove_all (cache->entries);
}

static void
update_line_height (GstAxOverlayLabelCache * cache)
{
  PangoRectangle logical;

  /* a string with an ascender and a descender: the height every label of
   * this font gets */
  pango_layout_set_text (cache->layout, "Ag", -1);
  pango_layout_get_pixel_extents (cache->layout, NULL, &logical);
  cache->line_height = MAX (logical.height, 1);
}

GstAxOverlayLabelCache *
gst_ax_overlay_label_cache_new (guint max_labels)
{
  GstAxOverlayLabelCache *cache = g_new0 (GstAxOverlayLabelCache, 1);
  cairo_font_options_t *options = cairo_font_options_create ();

  cache->max_labels = MAX (max_labels, 1);
  /* a font map of our own: Pango's default one belongs to one thread */
  cache->font_map = pango_cairo_font_map_new ();
  cache->context = pango_font_map_create_context (cache->font_map);
  /* the same metrics when measuring and when drawing, whatever the
   * machine's fontconfig defaults: greyscale antialiasing, whole-pixel
   * advances */
  cairo_font_options_set_antialias (options, CAIRO_ANTIALIAS_GRAY);
  cairo_font_options_set_hint_style (options, CAIRO_HINT_STYLE_SLIGHT);
  cairo_font_options_set_hint_metrics (options, CAIRO_HINT_METRICS_ON);
  pango_cairo_context_set_font_options (cache->context, options);
  cairo_font_options_destroy (options);
  cache->layout = pango_layout_new (cache->context);
  cache->entries = g_hash_table_new_full (g_str_hash, g_str_equal, NULL,
      cache_entry_free);
  g_queue_init (&cache->lru);
  /* until told: packed RGBx */
  cache->space.is_yuv = FALSE;
  cache->space.plane0_pstride = BYTES_PER_LABEL_PIXEL;
  cache->space.plane0_offset[0] = 0;
  cache->space.plane0_offset[1] = 1;
  cache->space.plane0_offset[2] = 2;
  gst_ax_overlay_label_cache_set_font (cache, DEFAULT_FONT_DESC);
  return cache;
}

void
gst_ax_overlay_label_cache_free (GstAxOverlayLabelCache * cache)
{
  if (!cache)
    return;
  cache_clear (cache);
  g_hash_table_unref (cache->entries);
  g_object_unref (cache->layout);
  g_object_unref (cache->context);
  g_object_unref (cache->font_map);
  g_free (cache);
}

void
gst_ax_overlay_label_cache_set_font (GstAxOverlayLabelCache * cache,
    const gchar * font_desc)
{
  PangoFontDescription *desc =
      pango_font_description_from_string (font_desc && *font_desc ?
      font_desc : DEFAULT_FONT_DESC);

  pango_layout_set_font_description (cache->layout, desc);
  pango_font_description_free (desc);
  cache_clear (cache);
  update_line_height (cache);
}

void
gst_ax_overlay_label_cache_set_colour_space (GstAxOverlayLabelCache * cache,
    const GstAxOverlayColourSpace * space)
{
  if (!memcmp (&cache->space, space, sizeof (*space)))
    return;
  cache->space = *space;
  cache_clear (cache);
}

gint
gst_ax_overlay_label_cache_get_line_height (GstAxOverlayLabelCache * cache)
{
  return cache->line_height;
}

guint
gst_ax_overlay_label_cache_get_n_renders (GstAxOverlayLabelCache * cache)
{
  return cache->n_renders;
}

guint
gst_ax_overlay_label_cache_get_n_cached (GstAxOverlayLabelCache * cache)
{
  return g_hash_table_size (cache->entries);
}

static guint8
round_unit (gdouble v)
{
  return (guint8) CLAMP ((gint) (v + 0.5), 0, MAX_PIXEL_VALUE);
}

/* One premultiplied ARGB pixel into alpha and the frame's premultiplied
 * components. The Y'CbCr conversion is affine, so the premultiplied value
 * is alpha times the offset plus the scaled conversion of the
 * premultiplied R'G'B'. */
static void
convert_pixel (const GstAxOverlayColourSpace * space, guint32 argb,
    guint8 * out)
{
  const guint a = argb >> ARGB_ALPHA_SHIFT;
  const gdouble r = ((argb >> ARGB_RED_SHIFT) & 0xff) / 255.0;
  const gdouble g = ((argb >> ARGB_GREEN_SHIFT) & 0xff) / 255.0;
  const gdouble b = (argb & 0xff) / 255.0;
  const gdouble af = a / 255.0;
  gdouble ey, comp[GST_AX_OVERLAY_N_COMPONENTS];
  gint c;

  out[0] = a;
  if (!space->is_yuv) {
    out[1] = round_unit (r * MAX_PIXEL_VALUE);
    out[2] = round_unit (g * MAX_PIXEL_VALUE);
    out[3] = round_unit (b * MAX_PIXEL_VALUE);
    return;
  }
  ey = space->kr * r + (1.0 - space->kr - space->kb) * g + space->kb * b;
  comp[0] = ey;
  comp[1] = (b - ey) / (2.0 * (1.0 - space->kb));
  comp[2] = (r - ey) / (2.0 * (1.0 - space->kr));
  for (c = 0; c < GST_AX_OVERLAY_N_COMPONENTS; c++)
    out[1 + c] = round_unit (space->offset[c] * af + space->scale[c] * comp[c]);
}

void
gst_ax_overlay_label_init_from_argb (GstAxOverlayLabel * label,
    const GstAxOverlayColourSpace * space, gint width, gint height,
    const guint8 * argb, gint stride)
{
  const gint ps = MAX (space->plane0_pstride, 1);
  const gsize n = (gsize) width * height;
  gint x, y, c;

  label->width = width;
  label->height = height;
  label->plane0_pstride = ps;
  label->pixels = g_malloc (n * BYTES_PER_LABEL_PIXEL);
  label->plane0_pre = g_malloc0 (n * ps);
  label->plane0_inv = g_malloc (n * ps);
  memset (label->plane0_inv, MAX_PIXEL_VALUE, n * ps);
  for (y = 0; y < height; y++) {
    for (x = 0; x < width; x++) {
      const gsize i = (gsize) y * width + x;
      guint8 *px = label->pixels + i * BYTES_PER_LABEL_PIXEL;
      guint32 word;

      /* native-endian 32-bit words; memcpy: no alignment assumed */
      memcpy (&word, argb + (gsize) y * stride + x * sizeof (word),
          sizeof (word));
      convert_pixel (space, word, px);
      for (c = 0; c < GST_AX_OVERLAY_N_COMPONENTS; c++) {
        const gint off = space->plane0_offset[c];

        if (off < 0 || off >= ps)
          continue;
        label->plane0_pre[i * ps + off] = px[1 + c];
        label->plane0_inv[i * ps + off] = MAX_PIXEL_VALUE - px[0];
      }
    }
  }
}

void
gst_ax_overlay_label_clear (GstAxOverlayLabel * label)
{
  g_free (label->pixels);
  g_free (label->plane0_pre);
  g_free (label->plane0_inv);
  memset (label, 0, sizeof (*label));
}

static CacheEntry *
render_label (GstAxOverlayLabelCache * cache, const gchar * text,
    gboolean dark_ink)
{
  CacheEntry *e = g_new0 (CacheEntry, 1);
  const gdouble ink = dark_ink ? 0.0 : 1.0;
  PangoRectangle logical;
  cairo_surface_t *surface;
  cairo_t *cr;
  gint w, h;

  pango_layout_set_text (cache->layout, text, -1);
  pango_layout_get_pixel_extents (cache->layout, NULL, &logical);
  w = MAX (logical.width, 1);
  h = cache->line_height;

  surface = cairo_image_surface_create (CAIRO_FORMAT_ARGB32, w, h);
  cr = cairo_create (surface);
  cairo_set_source_rgb (cr, ink, ink, ink);
  cairo_move_to (cr, -logical.x, -logical.y);
  pango_cairo_show_layout (cr, cache->layout);
  cairo_destroy (cr);
  cairo_surface_flush (surface);

  gst_ax_overlay_label_init_from_argb (&e->label, &cache->space, w, h,
      cairo_image_surface_get_data (surface),
      cairo_image_surface_get_stride (surface));
  cairo_surface_destroy (surface);
  cache->n_renders++;
  return e;
}

const GstAxOverlayLabel *
gst_ax_overlay_label_cache_get (GstAxOverlayLabelCache * cache,
    const gchar * text, gboolean dark_ink)
{
  gchar key[MAX_KEY_CHARS];
  CacheEntry *e;

  /* the ink is part of the key: "d" or "l", then the text */
  key[0] = dark_ink ? 'd' : 'l';
  g_strlcpy (key + 1, text, sizeof (key) - 1);
  e = g_hash_table_lookup (cache->entries, key);
  if (e) {
    g_queue_unlink (&cache->lru, &e->link);
    g_queue_push_head_link (&cache->lru, &e->link);
    return &e->label;
  }

  if (g_queue_get_length (&cache->lru) >= cache->max_labels) {
    GList *oldest = g_queue_pop_tail_link (&cache->lru);

    g_hash_table_remove (cache->entries, ((CacheEntry *) oldest->data)->key);
  }
  e = render_label (cache, key + 1, dark_ink);
  e->key = g_strdup (key);
  e->link.data = e;
  g_hash_table_insert (cache->entries, e->key, e);
  g_queue_push_head_link (&cache->lru, &e->link);
  return &e->label;
}

/* (v + 127) / 255 for v in [0, 255 * 255], without a division */
static inline guint
div255 (guint v)
{
  v += 128;
  return (v + (v >> 8)) >> 8;
}

/* Plane 0 byte by byte: out = pre + dst * inv / 255 on every byte of
 * the label's rows, padding bytes included (pre 0, inv 255: unchanged). */
static void
blend_plane0 (guint8 * base, gint stride, const GstAxOverlayLabel * label,
    gint x, gint y, gint x0, gint y0, gint x1, gint y1)
{
  const gint ps = label->plane0_pstride;
  const gint n = (x1 - x0) * ps;
  gint py, i;

  for (py = y0; py < y1; py++) {
    const gsize src_off = ((gsize) (py - y) * label->width + (x0 - x)) * ps;
    const guint8 *restrict pre = label->plane0_pre + src_off;
    const guint8 *restrict inv = label->plane0_inv + src_off;
    guint8 *restrict dst = base + (gsize) py * stride + (gsize) x0 * ps;

    for (i = 0; i < n; i++) {
      guint v = pre[i] + div255 (dst[i] * inv[i]);

      dst[i] = MIN (v, MAX_PIXEL_VALUE);
    }
  }
}

static void
blend_full (guint8 * base, gint stride, gint pstride, gint poffset,
    const GstAxOverlayLabel * label, gint comp, gint x, gint y,
    gint x0, gint y0, gint x1, gint y1)
{
  gint px, py;

  for (py = y0; py < y1; py++) {
    const guint8 *src = label->pixels + ((gsize) (py - y) * label->width +
        (x0 - x)) * BYTES_PER_LABEL_PIXEL;
    guint8 *dst = base + (gsize) py * stride + x0 * pstride + poffset;

    /* branchless: the text's coverage is too irregular to predict */
    for (px = x0; px < x1; px++) {
      guint v = src[1 + comp] + div255 (*dst * (MAX_PIXEL_VALUE - src[0]));

      *dst = MIN (v, MAX_PIXEL_VALUE);
      src += BYTES_PER_LABEL_PIXEL;
      dst += pstride;
    }
  }
}

/* A subsampled component: each sample takes the mean alpha and the mean
 * premultiplied value of the label pixels of its block (pixels of the
 * block outside the label count as transparent). */
static void
blend_subsampled (guint8 * base, gint stride, gint pstride, gint poffset,
    gint wsub, gint hsub, const GstAxOverlayLabel * label, gint comp,
    gint x, gint y, gint x0, gint y0, gint x1, gint y1)
{
  const gint bw = 1 << wsub, bh = 1 << hsub;
  const guint n = (guint) (bw * bh) * MAX_PIXEL_VALUE;
  const gint cx0 = x0 >> wsub, cx1 = (x1 - 1) >> wsub;
  const gint cy0 = y0 >> hsub, cy1 = (y1 - 1) >> hsub;
  gint cx, cy, px, py;

  for (cy = cy0; cy <= cy1; cy++) {
    guint8 *dst = base + (gsize) cy * stride + cx0 * pstride + poffset;

    for (cx = cx0; cx <= cx1; cx++, dst += pstride) {
      guint sum_a = 0, sum_v = 0;

      for (py = cy << hsub; py < (cy + 1) << hsub; py++) {
        if (py < y || py >= y + label->height)
          continue;
        for (px = cx << wsub; px < (cx + 1) << wsub; px++) {
          const guint8 *src;

          if (px < x || px >= x + label->width)
            continue;
          src = label->pixels + ((gsize) (py - y) * label->width + (px - x)) *
              BYTES_PER_LABEL_PIXEL;
          sum_a += src[0];
          sum_v += src[1 + comp];
        }
      }
      if (sum_a) {
        /* v = mean premultiplied + dst * (1 - mean alpha), rounded */
        guint v = (sum_v * MAX_PIXEL_VALUE + *dst * (n - sum_a) + n / 2) / n;
        *dst = MIN (v, MAX_PIXEL_VALUE);
      }
    }
  }
}

void
gst_ax_overlay_blend_label (GstVideoFrame * frame,
    const GstAxOverlayLabel * label, gint x, gint y)
{
  const GstVideoFormatInfo *finfo = frame->info.finfo;
  const gint x0 = MAX (x, 0), y0 = MAX (y, 0);
  const gint x1 = MIN (x + label->width, GST_VIDEO_FRAME_WIDTH (frame));
  const gint y1 = MIN (y + label->height, GST_VIDEO_FRAME_HEIGHT (frame));
  gint c;

  g_return_if_fail (label->plane0_pstride ==
      GST_VIDEO_FORMAT_INFO_PSTRIDE (finfo, 0));
  if (x1 <= x0 || y1 <= y0)
    return;
  blend_plane0 (GST_VIDEO_FRAME_PLANE_DATA (frame, 0),
      GST_VIDEO_FRAME_PLANE_STRIDE (frame, 0), label, x, y, x0, y0, x1, y1);
  for (c = 0; c < GST_AX_OVERLAY_N_COMPONENTS; c++) {
    const gint plane = GST_VIDEO_FORMAT_INFO_PLANE (finfo, c);
    const gint pstride = GST_VIDEO_FORMAT_INFO_PSTRIDE (finfo, c);
    const gint poffset = GST_VIDEO_FORMAT_INFO_POFFSET (finfo, c);
    const gint wsub = GST_VIDEO_FORMAT_INFO_W_SUB (finfo, c);
    const gint hsub = GST_VIDEO_FORMAT_INFO_H_SUB (finfo, c);
    const gint stride = GST_VIDEO_FRAME_PLANE_STRIDE (frame, plane);
    guint8 *base = GST_VIDEO_FRAME_PLANE_DATA (frame, plane);

    /* done with the whole of plane 0 above */
    if (plane == 0)
      continue;
    if (wsub == 0 && hsub == 0)
      blend_full (base, stride, pstride, poffset, label, c, x, y, x0, y0,
          x1, y1);
    else
      blend_subsampled (base, stride, pstride, poffset, wsub, hsub, label,
          c, x, y, x0, y0, x1, y1);
  }
}

static gboolean
rects_overlap (const GstAxOverlayRect * a, const GstAxOverlayRect * b)
{
  return a->x < b->x + b->w && b->x < a->x + a->w &&
      a->y < b->y + b->h && b->y < a->y + a->h;
}

static gboolean
is_free (const GstAxOverlayRect * r, const GstAxOverlayRect * placed,
    guint n_placed)
{
  guint i;

  for (i = 0; i < n_placed; i++)
    if (rects_overlap (r, &placed[i]))
      return FALSE;
  return TRUE;
}

/* The rule (documented in the element): left-aligned with the box and
 * shifted left to stay on the frame; then the first free position of
 * above the box, below it, inside its top edge; then, from the first of
 * those that fits on the frame, moved up or down by whole label heights,
 * nearest first, up before down; if none is free, that first position,
 * overlapping. */
void
gst_ax_overlay_place_label (const GstAxOverlayRect * box, gint w, gint h,
    gint fw, gint fh, const GstAxOverlayRect * placed, guint n_placed,
    GstAxOverlayRect * out)
{
  const gint candidates[] = { box->y - h, box->y + box->h, box->y };
  GstAxOverlayRect r;
  gboolean have_base = FALSE;
  gint base_y = 0, i, step;

  r.w = w;
  r.h = h;
  r.x = MAX (MIN (box->x, fw - w), 0);
  for (i = 0; i < (gint) G_N_ELEMENTS (candidates); i++) {
    r.y = candidates[i];
    if (r.y < 0 || r.y + h > fh)
      continue;
    if (!have_base) {
      base_y = r.y;
      have_base = TRUE;
    }
    if (is_free (&r, placed, n_placed)) {
      *out = r;
      return;
    }
  }
  if (!have_base)
    base_y = MAX (MIN (box->y, fh - h), 0);
  for (step = 1; step <= MAX_SHIFT_STEPS; step++) {
    gint dir;

    for (dir = -1; dir <= 1; dir += 2) {
      r.y = base_y + dir * step * h;
      if (r.y >= 0 && r.y + h <= fh && is_free (&r, placed, n_placed)) {
        *out = r;
        return;
      }
    }
  }
  r.y = base_y;
  *out = r;
}
