/* gst-ax
 * Copyright (C) 2026 gst-ax developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

#include <gst/check/gstcheck.h>
#include <gst/check/gstharness.h>
#include <gst/video/video.h>
#include <gst/ax/ax.h>
#include <fontconfig/fontconfig.h>
#include <math.h>

#include "gstaxoverlay-private.h"
#include <string.h>

#define N_COMPS 3
#define FRAME_WIDTH 160
#define FRAME_HEIGHT 120
#define BG_R 40
#define BG_G 50
#define BG_B 60
#define BG_Y 60
#define BG_U 110
#define BG_V 140
#define BG_PAD 0x11
#define DEFAULT_LINE_WIDTH 2
#define YUV_TOLERANCE 1
#define PAD_X GST_AX_OVERLAY_LABEL_PAD_X
#define PAD_Y GST_AX_OVERLAY_LABEL_PAD_Y
/* antialiased text: a pixel within this of the ink colour is ink */
#define INK_TOLERANCE 2
/* fully covered pixels a short bold label has at least */
#define MIN_INK_PIXELS 20
/* label luma (0..1) above which the text is black */
#define TEXT_DARK_ABOVE_LUMA 0.55
#define CACHE_TEST_SIZE 4
#define CACHE_TEST_LABELS 10

typedef struct
{
  gint plane, pstride, poffset, wsub, hsub;
} CompLayout;

typedef struct
{
  const gchar *name;
  gboolean yuv;
  CompLayout comp[N_COMPS];
} FormatLayout;

static const FormatLayout formats[] = {
  {"RGB", FALSE, {{0, 3, 0, 0, 0}, {0, 3, 1, 0, 0}, {0, 3, 2, 0, 0}}},
  {"BGR", FALSE, {{0, 3, 2, 0, 0}, {0, 3, 1, 0, 0}, {0, 3, 0, 0, 0}}},
  {"RGBx", FALSE, {{0, 4, 0, 0, 0}, {0, 4, 1, 0, 0}, {0, 4, 2, 0, 0}}},
  {"BGRx", FALSE, {{0, 4, 2, 0, 0}, {0, 4, 1, 0, 0}, {0, 4, 0, 0, 0}}},
  {"NV12", TRUE, {{0, 1, 0, 0, 0}, {1, 2, 0, 1, 1}, {1, 2, 1, 1, 1}}},
  {"I420", TRUE, {{0, 1, 0, 0, 0}, {1, 1, 0, 1, 1}, {2, 1, 0, 1, 1}}},
};

typedef struct
{
  gint x0, y0, x1, y1;          /* exclusive right and bottom */
} Rect;

static guint8 *
comp_ptr (guint8 * data, const GstVideoInfo * info, const CompLayout * c,
    gint cx, gint cy)
{
  return data + GST_VIDEO_INFO_PLANE_OFFSET (info, c->plane) +
      cy * GST_VIDEO_INFO_PLANE_STRIDE (info, c->plane) + cx * c->pstride +
      c->poffset;
}

static guint8
luma_pixel_comp (guint8 * data, const GstVideoInfo * info,
    const FormatLayout * f, gint c, gint x, gint y)
{
  const CompLayout *l = &f->comp[c];

  return *comp_ptr (data, info, l, x >> l->wsub, y >> l->hsub);
}

static GstBuffer *
make_flat_frame (const GstVideoInfo * info, const FormatLayout * f)
{
  GstBuffer *buf = gst_buffer_new_allocate (NULL, info->size, NULL);
  const guint8 bg[N_COMPS] = { f->yuv ? BG_Y : BG_R, f->yuv ? BG_U : BG_G,
    f->yuv ? BG_V : BG_B
  };
  GstMapInfo map;
  gint c, x, y;

  gst_buffer_map (buf, &map, GST_MAP_WRITE);
  memset (map.data, BG_PAD, map.size);
  for (c = 0; c < N_COMPS; c++) {
    const CompLayout *l = &f->comp[c];
    gint cw = (FRAME_WIDTH + (1 << l->wsub) - 1) >> l->wsub;
    gint ch = (FRAME_HEIGHT + (1 << l->hsub) - 1) >> l->hsub;

    for (y = 0; y < ch; y++)
      for (x = 0; x < cw; x++)
        *comp_ptr (map.data, info, l, x, y) = bg[c];
  }
  gst_buffer_unmap (buf, &map);
  return buf;
}

static gboolean
block_touches (const Rect * r, gint x0, gint y0, gint x1, gint y1)
{
  return x0 < r->x1 && x1 > r->x0 && y0 < r->y1 && y1 > r->y0;
}

/* Every byte outside @allowed (for subsampled chroma: every sample whose
 * block misses @allowed) must be as before. */
static void
check_untouched (guint8 * before, guint8 * after, const GstVideoInfo * info,
    const FormatLayout * f, const Rect * allowed, guint n_allowed)
{
  gint c, x, y;
  guint i;
  gsize b;

  for (c = 0; c < N_COMPS; c++) {
    const CompLayout *l = &f->comp[c];
    gint cw = (FRAME_WIDTH + (1 << l->wsub) - 1) >> l->wsub;
    gint ch = (FRAME_HEIGHT + (1 << l->hsub) - 1) >> l->hsub;

    for (y = 0; y < ch; y++) {
      for (x = 0; x < cw; x++) {
        gboolean may_change = FALSE;

        for (i = 0; i < n_allowed; i++)
          may_change |= block_touches (&allowed[i], x << l->wsub,
              y << l->hsub, (x + 1) << l->wsub, (y + 1) << l->hsub);
        if (!may_change && *comp_ptr (before, info, l, x, y) !=
            *comp_ptr (after, info, l, x, y))
          fail ("%s: component %d at sample (%d,%d) changed from %u to %u",
              f->name, c, x, y, *comp_ptr (before, info, l, x, y),
              *comp_ptr (after, info, l, x, y));
      }
    }
  }
  /* padding and alpha bytes never change */
  if (!f->yuv) {
    for (b = 0; b < info->size; b++) {
      gsize in_row = b % GST_VIDEO_INFO_PLANE_STRIDE (info, 0);
      gsize pstride = f->comp[0].pstride;

      if (pstride == 4 && in_row < (gsize) FRAME_WIDTH * 4 && in_row % 4 == 3)
        fail_unless_equals_int (after[b], BG_PAD);
    }
  }
}

static void
expected_yuv (const guint8 rgb[3], gdouble yuv[3])
{
  const gdouble kr = 0.299, kb = 0.114;
  gdouble r = rgb[0] / 255.0, g = rgb[1] / 255.0, b = rgb[2] / 255.0;
  gdouble ey = kr * r + (1 - kr - kb) * g + kb * b;

  yuv[0] = 16 + 219 * ey;
  yuv[1] = 128 + 224 * (b - ey) / (2 * (1 - kb));
  yuv[2] = 128 + 224 * (r - ey) / (2 * (1 - kr));
}

typedef struct
{
  GstBuffer *out;
  guint8 *before;
  GstVideoInfo info;
  const FormatLayout *f;
} OverlayRun;

static void
overlay_run (OverlayRun * run, const gchar * format, GstBuffer * in,
    GstHarness * h)
{
  GstMapInfo map;

  run->f = NULL;
  for (guint i = 0; i < G_N_ELEMENTS (formats); i++)
    if (!strcmp (formats[i].name, format))
      run->f = &formats[i];
  fail_unless (run->f != NULL);
  gst_buffer_map (in, &map, GST_MAP_READ);
  run->before = g_memdup2 (map.data, map.size);
  gst_buffer_unmap (in, &map);
  run->out = gst_harness_push_and_pull (h, in);
  fail_unless (run->out != NULL);
}

static GstHarness *
make_harness (const gchar * format, gboolean labels, guint line_width,
    GstVideoInfo * info)
{
  GstHarness *h = gst_harness_new ("axoverlay");
  GstVideoFormat fmt = gst_video_format_from_string (format);

  g_object_set (h->element, "draw-labels", labels, "line-width", line_width,
      NULL);
  gst_video_info_set_format (info, fmt, FRAME_WIDTH, FRAME_HEIGHT);
  /* BT.601 limited range, stated in the caps */
  if (GST_VIDEO_INFO_IS_YUV (info))
    gst_video_colorimetry_from_string (&info->colorimetry, "bt601");
  gst_harness_set_src_caps (h, gst_video_info_to_caps (info));
  return h;
}

static void
add_detection (GstBuffer * buf, const Rect * r, guint class_id,
    const gchar * label, gfloat confidence)
{
  GstAxDetection det = { class_id, confidence,
    (gfloat) r->x0 / FRAME_WIDTH, (gfloat) r->y0 / FRAME_HEIGHT,
    (gfloat) r->x1 / FRAME_WIDTH, (gfloat) r->y1 / FRAME_HEIGHT, label
  };

  gst_ax_detection_add (buf, &det, FRAME_WIDTH, FRAME_HEIGHT);
}

/* Checks the outline of @box: every ring pixel carries one colour, which
 * is returned in RGB (or compared with @rgb_expect for YUV formats); the
 * inside of the ring keeps the background. */
static void
check_ring (OverlayRun * run, const Rect * box, gint lw, guint8 rgb[3])
{
  const FormatLayout *f = run->f;
  GstMapInfo map;
  guint8 ring[N_COMPS];
  gint x, y, c;

  gst_buffer_map (run->out, &map, GST_MAP_READ);
  for (c = 0; c < N_COMPS; c++)
    ring[c] = luma_pixel_comp (map.data, &run->info, f, c, box->x0, box->y0);

  if (!f->yuv) {
    fail_if (ring[0] == BG_R && ring[1] == BG_G && ring[2] == BG_B,
        "%s: the outline kept the background colour", f->name);
    memcpy (rgb, ring, N_COMPS);
  } else {
    gdouble want[N_COMPS];

    expected_yuv (rgb, want);
    for (c = 0; c < N_COMPS; c++)
      fail_unless (fabs (ring[c] - want[c]) <= YUV_TOLERANCE,
          "%s: outline component %d is %u, expected %.2f from RGB "
          "%u,%u,%u", f->name, c, ring[c], want[c], rgb[0], rgb[1], rgb[2]);
  }

  for (y = box->y0; y < box->y1; y++) {
    for (x = box->x0; x < box->x1; x++) {
      gboolean on_ring = x < box->x0 + lw || x >= box->x1 - lw ||
          y < box->y0 + lw || y >= box->y1 - lw;
      /* luma (or all of RGB) is exact per pixel */
      gint n_exact = f->yuv ? 1 : N_COMPS;

      for (c = 0; c < n_exact; c++) {
        guint8 v = luma_pixel_comp (map.data, &run->info, f, c, x, y);
        guint8 bg = f->yuv ? BG_Y : (c == 0 ? BG_R : c == 1 ? BG_G : BG_B);

        if (on_ring && v != ring[c])
          fail ("%s: ring pixel (%d,%d) component %d is %u, not %u",
              f->name, x, y, c, v, ring[c]);
        if (!on_ring && x >= box->x0 + lw + 1 && x < box->x1 - lw - 1 &&
            y >= box->y0 + lw + 1 && y < box->y1 - lw - 1 && v != bg)
          fail ("%s: inside pixel (%d,%d) component %d changed to %u",
              f->name, x, y, c, v);
      }
    }
  }
  gst_buffer_unmap (run->out, &map);
}

static void
overlay_run_clear (OverlayRun * run)
{
  gst_buffer_unref (run->out);
  g_free (run->before);
}

GST_START_TEST (test_box_colours_every_format)
{
  const Rect box = { 40, 60, 120, 100 };
  const Rect box2 = { 10, 10, 31, 33 };
  guint8 rgb[N_COMPS] = { 0, }, rgb2[N_COMPS] = { 0, };
  guint i;

  for (i = 0; i < G_N_ELEMENTS (formats); i++) {
    GstVideoInfo info;
    GstHarness *h = make_harness (formats[i].name, FALSE, DEFAULT_LINE_WIDTH,
        &info);
    GstBuffer *in = make_flat_frame (&info, &formats[i]);
    OverlayRun run;
    guint8 got[N_COMPS], got2[N_COMPS];
    GstMapInfo map;
    Rect allowed[2] = { box, box2 };

    add_detection (in, &box, 3, "ball", 0.87f);
    add_detection (in, &box2, 4, "cat", 0.5f);
    run.info = info;
    overlay_run (&run, formats[i].name, in, h);

    memcpy (got, rgb, N_COMPS);
    memcpy (got2, rgb2, N_COMPS);
    check_ring (&run, &box, DEFAULT_LINE_WIDTH, got);
    check_ring (&run, &box2, DEFAULT_LINE_WIDTH, got2);
    if (i == 0) {
      memcpy (rgb, got, N_COMPS);
      memcpy (rgb2, got2, N_COMPS);
      fail_if (!memcmp (rgb, rgb2, N_COMPS), "classes 3 and 4 share a colour");
    } else if (!formats[i].yuv) {
      /* the class colour does not depend on the byte order */
      fail_unless (!memcmp (got, rgb, N_COMPS), "%s colour differs",
          formats[i].name);
      fail_unless (!memcmp (got2, rgb2, N_COMPS), "%s colour differs",
          formats[i].name);
    }

    gst_buffer_map (run.out, &map, GST_MAP_READ);
    check_untouched (run.before, map.data, &info, run.f, allowed, 2);
    gst_buffer_unmap (run.out, &map);
    overlay_run_clear (&run);
    gst_harness_teardown (h);
  }
}

GST_END_TEST;

GST_START_TEST (test_line_width_and_foreign_roi)
{
  const Rect box = { 21, 17, 77, 59 };
  guint i;

  for (i = 0; i < G_N_ELEMENTS (formats); i++) {
    GstVideoInfo info;
    GstHarness *h = make_harness (formats[i].name, FALSE, 5, &info);
    GstBuffer *in = make_flat_frame (&info, &formats[i]);
    OverlayRun run;
    GstMapInfo map;
    guint8 rgb[N_COMPS] = { 0, };

    /* a region meta from some other element: no detection parameters */
    gst_buffer_add_video_region_of_interest_meta (in, "face", box.x0, box.y0,
        box.x1 - box.x0, box.y1 - box.y0);
    run.info = info;
    overlay_run (&run, formats[i].name, in, h);
    if (!formats[i].yuv) {
      check_ring (&run, &box, 5, rgb);
    } else {
      /* the RGB run of the same label gives the colour */
      gst_buffer_map (run.out, &map, GST_MAP_READ);
      fail_if (luma_pixel_comp (map.data, &info, run.f, 0, box.x0 + 4,
              box.y0 + 4) == BG_Y);
      fail_unless_equals_int (luma_pixel_comp (map.data, &info, run.f, 0,
              box.x0 + 5, box.y0 + 5), BG_Y);
      gst_buffer_unmap (run.out, &map);
    }
    gst_buffer_map (run.out, &map, GST_MAP_READ);
    check_untouched (run.before, map.data, &info, run.f, &box, 1);
    gst_buffer_unmap (run.out, &map);
    overlay_run_clear (&run);
    gst_harness_teardown (h);
  }
}

GST_END_TEST;

/* Label geometry measured with the element's own label cache (same font,
 * same Pango setup), so that the expected rectangles follow the font the
 * machine has. */
typedef struct
{
  const gchar *name;
  const gchar *confidence;
} TestRow;

static gint
row_width (GstAxOverlayLabelCache * c, const TestRow * row)
{
  gint w = gst_ax_overlay_label_cache_get (c, row->name, TRUE)->width;

  if (row->confidence)
    w += gst_ax_overlay_label_cache_get (c, row->confidence, TRUE)->width;
  return w + 2 * PAD_X;
}

static gint
bar_height (GstAxOverlayLabelCache * c)
{
  return gst_ax_overlay_label_cache_get_line_height (c) + 2 * PAD_Y;
}

/* Where the element puts the label block of @box (@n_rows rows) after
 * the blocks in @placed; appends it there and fills @rows_out with each
 * row's bar. */
static void
expect_label (GstAxOverlayLabelCache * c, const Rect * box,
    const TestRow * rows, guint n_rows, GstAxOverlayRect * placed,
    guint * n_placed, Rect * rows_out)
{
  GstAxOverlayRect b = { box->x0, box->y0, box->x1 - box->x0,
    box->y1 - box->y0
  }, where;
  gint w = 0, bh = bar_height (c);
  guint r;

  for (r = 0; r < n_rows; r++)
    w = MAX (w, row_width (c, &rows[r]));
  gst_ax_overlay_place_label (&b, w, bh * (gint) n_rows, FRAME_WIDTH,
      FRAME_HEIGHT, placed, *n_placed, &where);
  placed[(*n_placed)++] = where;
  for (r = 0; r < n_rows; r++) {
    Rect row = { where.x, where.y + (gint) r * bh,
      where.x + row_width (c, &rows[r]), where.y + (gint) (r + 1) * bh
    };
    rows_out[r] = row;
  }
}

static gboolean
between (gint v, gint a, gint b)
{
  return v >= MIN (a, b) && v <= MAX (a, b);
}

/* Inside the bar @row: its corners (padding) have the bar colour, every
 * pixel lies between the bar colour and the ink colour (luma only on
 * YUV), and enough pixels are ink. Returns the ink pixel count. */
static gint
check_label_row (const OverlayRun * run, guint8 * data, const Rect * row,
    const guint8 bar[N_COMPS])
{
  const FormatLayout *f = run->f;
  const gint n_exact = f->yuv ? 1 : N_COMPS;
  gdouble luma = f->yuv ? (bar[0] - 16) / 219.0 :
      (0.299 * bar[0] + 0.587 * bar[1] + 0.114 * bar[2]) / 255.0;
  const gboolean dark = luma > TEXT_DARK_ABOVE_LUMA;
  guint8 ink[N_COMPS];
  gint x, y, c, n_ink = 0;

  for (c = 0; c < N_COMPS; c++)
    ink[c] = f->yuv ? (c == 0 ? (dark ? 16 : 235) : 128) : (dark ? 0 : 255);
  for (c = 0; c < n_exact; c++) {
    fail_unless_equals_int (luma_pixel_comp (data, &run->info, f, c,
            row->x0, row->y0), bar[c]);
    fail_unless_equals_int (luma_pixel_comp (data, &run->info, f, c,
            row->x1 - 1, row->y1 - 1), bar[c]);
  }
  for (y = row->y0; y < row->y1; y++) {
    for (x = row->x0; x < row->x1; x++) {
      gboolean is_ink = TRUE;

      for (c = 0; c < n_exact; c++) {
        guint8 v = luma_pixel_comp (data, &run->info, f, c, x, y);

        if (!between (v, bar[c], ink[c]))
          fail ("%s: label pixel (%d,%d) component %d is %u, not between "
              "the bar's %u and the ink's %u", f->name, x, y, c, v, bar[c],
              ink[c]);
        is_ink &= ABS ((gint) v - ink[c]) <= INK_TOLERANCE;
      }
      n_ink += is_ink;
    }
  }
  fail_unless (n_ink >= MIN_INK_PIXELS, "%s: only %d ink pixels in the "
      "label at %d,%d", f->name, n_ink, row->x0, row->y0);
  return n_ink;
}

static void
ring_colour (const OverlayRun * run, guint8 * data, const Rect * box,
    guint8 out[N_COMPS])
{
  gint c;

  for (c = 0; c < N_COMPS; c++)
    out[c] = luma_pixel_comp (data, &run->info, run->f, c, box->x0, box->y0);
}

/* The label "ball 0.87" sits on a bar of the box colour right above the
 * box, left-aligned with it, on every format; nothing else changes. */
GST_START_TEST (test_label_drawn)
{
  const Rect box = { 40, 60, 120, 100 };
  const TestRow text = { "ball", " 0.87" };
  GstAxOverlayLabelCache *c = gst_ax_overlay_label_cache_new (16);
  guint i;

  for (i = 0; i < G_N_ELEMENTS (formats); i++) {
    GstVideoInfo info;
    GstHarness *h = make_harness (formats[i].name, TRUE, DEFAULT_LINE_WIDTH,
        &info);
    GstBuffer *in = make_flat_frame (&info, &formats[i]);
    OverlayRun run;
    GstMapInfo map;
    GstAxOverlayRect placed[1];
    guint n_placed = 0;
    Rect allowed[2], bar;
    guint8 ring[N_COMPS];

    expect_label (c, &box, &text, 1, placed, &n_placed, &bar);
    fail_unless_equals_int (bar.x0, box.x0);
    fail_unless_equals_int (bar.y1, box.y0);
    allowed[0] = box;
    allowed[1] = bar;
    add_detection (in, &box, 3, "ball", 0.87f);
    run.info = info;
    overlay_run (&run, formats[i].name, in, h);
    gst_buffer_map (run.out, &map, GST_MAP_READ);
    check_untouched (run.before, map.data, &info, run.f, allowed, 2);
    ring_colour (&run, map.data, &box, ring);
    GST_INFO ("%s: %d ink pixels", formats[i].name,
        check_label_row (&run, map.data, &bar, ring));
    gst_buffer_unmap (run.out, &map);
    overlay_run_clear (&run);
    gst_harness_teardown (h);
  }
  gst_ax_overlay_label_cache_free (c);
}

GST_END_TEST;

/* A classified region gets its class ("neutral 0.83") on a second bar
 * right under its box label; an unclassified one has one bar only. */
GST_START_TEST (test_classification_drawn)
{
  const Rect boxes[2] = { {4, 60, 70, 100}, {100, 60, 150, 100} };
  const TestRow rows0[2] = { {"face", " 0.90"}, {"neutral", " 0.83"} };
  const TestRow rows1[1] = { {"face", " 0.90"} };
  GstAxClassification cls = { 6, 0.83f, "neutral" };
  GstAxOverlayLabelCache *c = gst_ax_overlay_label_cache_new (16);
  GstVideoRegionOfInterestMeta *roi;
  GstVideoInfo info;
  GstHarness *h = make_harness ("RGB", TRUE, DEFAULT_LINE_WIDTH, &info);
  GstBuffer *in = make_flat_frame (&info, &formats[0]);
  GstAxOverlayRect placed[2];
  guint n_placed = 0;
  Rect bars0[2], bars1[1], allowed[5];
  OverlayRun run;
  GstMapInfo map;
  guint8 ring[N_COMPS];

  expect_label (c, &boxes[0], rows0, 2, placed, &n_placed, bars0);
  expect_label (c, &boxes[1], rows1, 1, placed, &n_placed, bars1);
  /* the class bar is under the label bar */
  fail_unless_equals_int (bars0[1].y0, bars0[0].y1);
  add_detection (in, &boxes[0], 0, "face", 0.9f);
  add_detection (in, &boxes[1], 0, "face", 0.9f);
  roi = gst_buffer_get_video_region_of_interest_meta_id (in, 0);
  fail_unless (roi != NULL && roi->x == (guint) boxes[0].x0);
  gst_ax_detection_add_classification (roi, &cls);
  run.info = info;
  overlay_run (&run, "RGB", in, h);
  gst_buffer_map (run.out, &map, GST_MAP_READ);
  allowed[0] = boxes[0];
  allowed[1] = boxes[1];
  allowed[2] = bars0[0];
  allowed[3] = bars0[1];
  allowed[4] = bars1[0];
  check_untouched (run.before, map.data, &info, run.f, allowed, 5);
  ring_colour (&run, map.data, &boxes[0], ring);
  check_label_row (&run, map.data, &bars0[0], ring);
  check_label_row (&run, map.data, &bars0[1], ring);
  check_label_row (&run, map.data, &bars1[0], ring);
  gst_buffer_unmap (run.out, &map);
  overlay_run_clear (&run);
  gst_harness_teardown (h);
  gst_ax_overlay_label_cache_free (c);
}

GST_END_TEST;

/* A box at the top edge has no room above: its label goes below it; at
 * the right edge the label is shifted left to stay on the frame. */
GST_START_TEST (test_label_at_frame_edges)
{
  const Rect box = { 130, 0, 160, 30 };
  const TestRow text = { "ball", " 0.87" };
  GstAxOverlayLabelCache *c = gst_ax_overlay_label_cache_new (16);
  GstVideoInfo info;
  GstHarness *h = make_harness ("RGB", TRUE, DEFAULT_LINE_WIDTH, &info);
  GstBuffer *in = make_flat_frame (&info, &formats[0]);
  const gint w = row_width (c, &text), bh = bar_height (c);
  Rect allowed[2] = { box, {FRAME_WIDTH - w, box.y1, FRAME_WIDTH,
      box.y1 + bh}
  };
  OverlayRun run;
  GstMapInfo map;
  guint8 ring[N_COMPS];

  add_detection (in, &box, 3, "ball", 0.87f);
  run.info = info;
  overlay_run (&run, "RGB", in, h);
  gst_buffer_map (run.out, &map, GST_MAP_READ);
  check_untouched (run.before, map.data, &info, run.f, allowed, 2);
  ring_colour (&run, map.data, &box, ring);
  check_label_row (&run, map.data, &allowed[1], ring);
  gst_buffer_unmap (run.out, &map);
  overlay_run_clear (&run);
  gst_harness_teardown (h);
  gst_ax_overlay_label_cache_free (c);
}

GST_END_TEST;

static gboolean
rects_overlap (const GstAxOverlayRect * a, const GstAxOverlayRect * b)
{
  return a->x < b->x + b->w && b->x < a->x + a->w &&
      a->y < b->y + b->h && b->y < a->y + a->h;
}

/* Two overlapping boxes: the second label cannot go above its box (the
 * first label is there) nor below (no room), so it goes inside its top;
 * the two label rectangles do not overlap, and the frame shows both, each
 * in its box's colour, and nothing where the second label would have
 * collided. */
GST_START_TEST (test_labels_keep_clear)
{
  const Rect boxes[2] = { {40, 60, 120, 100}, {50, 66, 130, 106} };
  const TestRow rows[2] = { {"ball", " 0.87"}, {"cat", " 0.50"} };
  GstAxOverlayLabelCache *c = gst_ax_overlay_label_cache_new (16);
  GstVideoInfo info;
  GstHarness *h = make_harness ("BGRx", TRUE, DEFAULT_LINE_WIDTH, &info);
  GstBuffer *in = make_flat_frame (&info, &formats[3]);
  GstAxOverlayRect placed[2];
  guint n_placed = 0;
  Rect bars[2], allowed[4];
  OverlayRun run;
  GstMapInfo map;
  guint8 ring[N_COMPS];
  gint b;

  expect_label (c, &boxes[0], &rows[0], 1, placed, &n_placed, &bars[0]);
  expect_label (c, &boxes[1], &rows[1], 1, placed, &n_placed, &bars[1]);
  fail_unless_equals_int (bars[0].y1, boxes[0].y0);
  fail_unless_equals_int (bars[1].y0, boxes[1].y0);
  fail_if (rects_overlap (&placed[0], &placed[1]));

  add_detection (in, &boxes[0], 3, "ball", 0.87f);
  add_detection (in, &boxes[1], 4, "cat", 0.5f);
  run.info = info;
  overlay_run (&run, "BGRx", in, h);
  gst_buffer_map (run.out, &map, GST_MAP_READ);
  allowed[0] = boxes[0];
  allowed[1] = boxes[1];
  allowed[2] = bars[0];
  allowed[3] = bars[1];
  check_untouched (run.before, map.data, &info, run.f, allowed, 4);
  for (b = 0; b < 2; b++) {
    ring_colour (&run, map.data, &boxes[b], ring);
    check_label_row (&run, map.data, &bars[b], ring);
  }
  gst_buffer_unmap (run.out, &map);
  overlay_run_clear (&run);
  gst_harness_teardown (h);
  gst_ax_overlay_label_cache_free (c);
}

GST_END_TEST;

/* The placement rule on its own: above, below, inside, then shifted by
 * whole label heights; a crowd of boxes at one spot gets labels that
 * neither overlap nor leave the frame while there is room. */
#define PLACE_W 40
#define PLACE_H 10
#define PLACE_FW 200
#define PLACE_FH 120
#define CROWD 8

GST_START_TEST (test_place_label_rule)
{
  const GstAxOverlayRect box = { 50, 40, 60, 30 };
  GstAxOverlayRect placed[CROWD], r;
  guint i, j;

  gst_ax_overlay_place_label (&box, PLACE_W, PLACE_H, PLACE_FW, PLACE_FH,
      placed, 0, &r);
  fail_unless (r.x == 50 && r.y == 30 && r.w == PLACE_W && r.h == PLACE_H);
  placed[0] = r;
  gst_ax_overlay_place_label (&box, PLACE_W, PLACE_H, PLACE_FW, PLACE_FH,
      placed, 1, &r);
  fail_unless_equals_int (r.y, 70);     /* below */
  placed[1] = r;
  gst_ax_overlay_place_label (&box, PLACE_W, PLACE_H, PLACE_FW, PLACE_FH,
      placed, 2, &r);
  fail_unless_equals_int (r.y, 40);     /* inside */
  placed[2] = r;
  gst_ax_overlay_place_label (&box, PLACE_W, PLACE_H, PLACE_FW, PLACE_FH,
      placed, 3, &r);
  fail_unless_equals_int (r.y, 20);     /* shifted up from above */
  /* right edge: shifted left onto the frame */
  {
    const GstAxOverlayRect edge = { 190, 40, 10, 10 };

    gst_ax_overlay_place_label (&edge, PLACE_W, PLACE_H, PLACE_FW,
        PLACE_FH, placed, 0, &r);
    fail_unless_equals_int (r.x, PLACE_FW - PLACE_W);
  }

  for (i = 0; i < CROWD; i++) {
    gst_ax_overlay_place_label (&box, PLACE_W, PLACE_H, PLACE_FW, PLACE_FH,
        placed, i, &placed[i]);
    fail_unless (placed[i].y >= 0 && placed[i].y + PLACE_H <= PLACE_FH);
    for (j = 0; j < i; j++)
      fail_if (rects_overlap (&placed[i], &placed[j]),
          "labels %u and %u overlap", i, j);
  }
}

GST_END_TEST;

/* The cache renders each text once per ink, evicts the least recently
 * used beyond its size, and a font change drops everything. */
GST_START_TEST (test_label_cache)
{
  GstAxOverlayLabelCache *c = gst_ax_overlay_label_cache_new (CACHE_TEST_SIZE);
  const GstAxOverlayLabel *a, *b;
  gchar text[16];
  guint i;

  a = gst_ax_overlay_label_cache_get (c, "ball", TRUE);
  fail_unless (a->width > 0 && a->height > 0);
  fail_unless_equals_int (gst_ax_overlay_label_cache_get_n_renders (c), 1);
  b = gst_ax_overlay_label_cache_get (c, "ball", TRUE);
  fail_unless (a == b);
  fail_unless_equals_int (gst_ax_overlay_label_cache_get_n_renders (c), 1);
  gst_ax_overlay_label_cache_get (c, "ball", FALSE);
  fail_unless_equals_int (gst_ax_overlay_label_cache_get_n_renders (c), 2);
  /* a longer text is wider, and every label has the line height */
  b = gst_ax_overlay_label_cache_get (c, "ball ball", TRUE);
  fail_unless (b->width > 2 * gst_ax_overlay_label_cache_get (c, "ball",
          TRUE)->width);
  fail_unless_equals_int (b->height,
      gst_ax_overlay_label_cache_get_line_height (c));

  for (i = 0; i < CACHE_TEST_LABELS; i++) {
    g_snprintf (text, sizeof (text), "label %u", i);
    gst_ax_overlay_label_cache_get (c, text, TRUE);
  }
  fail_unless_equals_int (gst_ax_overlay_label_cache_get_n_cached (c),
      CACHE_TEST_SIZE);
  fail_unless_equals_int (gst_ax_overlay_label_cache_get_n_renders (c),
      3 + CACHE_TEST_LABELS);
  /* the newest is still there, the oldest was evicted */
  gst_ax_overlay_label_cache_get (c, "label 9", TRUE);
  fail_unless_equals_int (gst_ax_overlay_label_cache_get_n_renders (c),
      3 + CACHE_TEST_LABELS);
  gst_ax_overlay_label_cache_get (c, "label 0", TRUE);
  fail_unless_equals_int (gst_ax_overlay_label_cache_get_n_renders (c),
      4 + CACHE_TEST_LABELS);

  gst_ax_overlay_label_cache_set_font (c, "Sans 20px");
  fail_unless_equals_int (gst_ax_overlay_label_cache_get_n_cached (c), 0);
  fail_unless (gst_ax_overlay_label_cache_get_line_height (c) >= 20);
  gst_ax_overlay_label_cache_free (c);
}

GST_END_TEST;

/* The element renders a label once and then only blends it: the same
 * detections on many frames cost two renders ("ball" and " 0.87"), and
 * the frames come out identical. */
GST_START_TEST (test_label_rendered_once)
{
  const Rect box = { 40, 60, 120, 100 };
  GstVideoInfo info;
  GstHarness *h = make_harness ("I420", TRUE, DEFAULT_LINE_WIDTH, &info);
  GstBuffer *first = NULL;
  guint k;

  for (k = 0; k < 3; k++) {
    GstBuffer *in = make_flat_frame (&info, &formats[5]), *out;

    add_detection (in, &box, 3, "ball", 0.87f);
    out = gst_harness_push_and_pull (h, in);
    fail_unless (out != NULL);
    if (!first)
      first = out;
    else {
      GstMapInfo a, b;

      gst_buffer_map (first, &a, GST_MAP_READ);
      gst_buffer_map (out, &b, GST_MAP_READ);
      fail_unless (a.size == b.size && !memcmp (a.data, b.data, a.size));
      gst_buffer_unmap (out, &b);
      gst_buffer_unmap (first, &a);
      gst_buffer_unref (out);
    }
  }
  {
    guint renders;

    g_object_get (h->element, "label-renders", &renders, NULL);
    fail_unless_equals_int (renders, 2);
  }
  gst_buffer_unref (first);
  gst_harness_teardown (h);
}

GST_END_TEST;

/* Blending a premultiplied label: on RGB out = pre + dst * (1 - a); on
 * NV12 a chroma sample blends the mean of its 2x2 block. */
static void
space_for (GstVideoFormat format, gboolean yuv, GstAxOverlayColourSpace * space)
{
  const GstVideoFormatInfo *finfo = gst_video_format_get_info (format);
  gint c;

  memset (space, 0, sizeof (*space));
  space->is_yuv = yuv;
  /* full range, BT.601 */
  space->kr = 0.299;
  space->kb = 0.114;
  for (c = 0; c < N_COMPS; c++) {
    space->offset[c] = c == 0 ? 0 : 128;
    space->scale[c] = 255;
    space->plane0_offset[c] = GST_VIDEO_FORMAT_INFO_PLANE (finfo, c) == 0 ?
        (gint) GST_VIDEO_FORMAT_INFO_POFFSET (finfo, c) : -1;
  }
  space->plane0_pstride = GST_VIDEO_FORMAT_INFO_PSTRIDE (finfo, 0);
}

GST_START_TEST (test_blend_premultiplied)
{
  /* 2x2 premultiplied ARGB: opaque red, half-transparent grey,
   * transparent, opaque blue */
  const guint32 argb[4] = { 0xffff0000, 0x80404040, 0x00000000, 0xff0000ff };
  /* NV12: an opaque grey row over a transparent one */
  const guint32 grey[4] = { 0xffc8c8c8, 0xffc8c8c8, 0, 0 };
  GstAxOverlayColourSpace space;
  GstAxOverlayLabel label;
  GstVideoInfo info;
  GstBuffer *buf;
  GstVideoFrame frame;
  guint8 *p, *uv;
  gint stride;

  space_for (GST_VIDEO_FORMAT_RGB, FALSE, &space);
  gst_ax_overlay_label_init_from_argb (&label, &space, 2, 2,
      (const guint8 *) argb, 2 * sizeof (guint32));
  gst_video_info_set_format (&info, GST_VIDEO_FORMAT_RGB, 4, 4);
  buf = gst_buffer_new_allocate (NULL, info.size, NULL);
  gst_buffer_memset (buf, 0, 100, info.size);
  fail_unless (gst_video_frame_map (&frame, &info, buf, GST_MAP_READWRITE));
  gst_ax_overlay_blend_label (&frame, &label, 1, 1);
  p = GST_VIDEO_FRAME_PLANE_DATA (&frame, 0);
  stride = GST_VIDEO_FRAME_PLANE_STRIDE (&frame, 0);
  /* (1,1) opaque red */
  fail_unless (p[stride + 3] == 255 && p[stride + 4] == 0 &&
      p[stride + 5] == 0);
  /* (2,1): 64 + 100 * 127 / 255 = 64 + 50 */
  fail_unless_equals_int (p[stride + 6], 114);
  fail_unless_equals_int (p[stride + 8], 114);
  /* (1,2) transparent: untouched; (2,2) blue */
  fail_unless_equals_int (p[2 * stride + 3], 100);
  fail_unless (p[2 * stride + 6] == 0 && p[2 * stride + 8] == 255);
  /* outside the label */
  fail_unless_equals_int (p[0], 100);
  fail_unless_equals_int (p[3 * stride + 9], 100);
  gst_video_frame_unmap (&frame);
  gst_buffer_unref (buf);
  gst_ax_overlay_label_clear (&label);

  /* BGRx: the padding byte keeps its value */
  space_for (GST_VIDEO_FORMAT_BGRx, FALSE, &space);
  gst_ax_overlay_label_init_from_argb (&label, &space, 2, 2,
      (const guint8 *) argb, 2 * sizeof (guint32));
  gst_video_info_set_format (&info, GST_VIDEO_FORMAT_BGRx, 4, 4);
  buf = gst_buffer_new_allocate (NULL, info.size, NULL);
  gst_buffer_memset (buf, 0, 100, info.size);
  fail_unless (gst_video_frame_map (&frame, &info, buf, GST_MAP_READWRITE));
  gst_ax_overlay_blend_label (&frame, &label, 0, 0);
  p = GST_VIDEO_FRAME_PLANE_DATA (&frame, 0);
  fail_unless (p[0] == 0 && p[1] == 0 && p[2] == 255 && p[3] == 100);
  gst_video_frame_unmap (&frame);
  gst_buffer_unref (buf);
  gst_ax_overlay_label_clear (&label);

  /* NV12, full range: grey 200 is Y 200, U = V = 128 */
  space_for (GST_VIDEO_FORMAT_NV12, TRUE, &space);
  gst_ax_overlay_label_init_from_argb (&label, &space, 2, 2,
      (const guint8 *) grey, 2 * sizeof (guint32));
  gst_video_info_set_format (&info, GST_VIDEO_FORMAT_NV12, 4, 4);
  buf = gst_buffer_new_allocate (NULL, info.size, NULL);
  gst_buffer_memset (buf, 0, 0, info.size);
  fail_unless (gst_video_frame_map (&frame, &info, buf, GST_MAP_READWRITE));
  gst_ax_overlay_blend_label (&frame, &label, 0, 0);
  p = GST_VIDEO_FRAME_PLANE_DATA (&frame, 0);
  stride = GST_VIDEO_FRAME_PLANE_STRIDE (&frame, 0);
  fail_unless (p[0] == 200 && p[1] == 200 && p[stride] == 0 && p[2] == 0);
  uv = GST_VIDEO_FRAME_PLANE_DATA (&frame, 1);
  /* the block's mean: alpha 1/2 and premultiplied U 64, over 0 */
  fail_unless_equals_int (uv[0], 64);
  fail_unless_equals_int (uv[1], 64);
  fail_unless_equals_int (uv[2], 0);
  gst_video_frame_unmap (&frame);
  gst_buffer_unref (buf);
  gst_ax_overlay_label_clear (&label);
}

GST_END_TEST;

/* gst-inspect metadata: a real origin, and klass strings that say what
 * each element does (draft-klass: functional keyword first). */
GST_START_TEST (test_plugin_metadata)
{
  static const struct
  {
    const gchar *element;
    const gchar *klass;
  } expect[] = {
    {"axletterbox", "Filter/Video/Metadata"},
    {"axinference", "Filter/Analyzer/Video"},
    {"axnms", "Filter/Analyzer/Video"},
    {"axclassify", "Filter/Analyzer/Video"},
    {"axoverlay", "Filter/Effect/Video"},
  };
  GstPlugin *plugin = gst_registry_find_plugin (gst_registry_get (),
      "axelements");
  guint i;

  fail_unless (plugin != NULL);
  fail_if (strstr (gst_plugin_get_origin (plugin), ".invalid") != NULL,
      "origin %s", gst_plugin_get_origin (plugin));
  gst_object_unref (plugin);
  for (i = 0; i < G_N_ELEMENTS (expect); i++) {
    GstElementFactory *f = gst_element_factory_find (expect[i].element);

    fail_unless (f != NULL, "%s", expect[i].element);
    fail_unless_equals_string (gst_element_factory_get_metadata (f,
            GST_ELEMENT_METADATA_KLASS), expect[i].klass);
    gst_object_unref (f);
  }
}

GST_END_TEST;

GST_START_TEST (test_no_detections_passes_untouched)
{
  GstVideoInfo info;
  GstHarness *h = make_harness ("NV12", TRUE, DEFAULT_LINE_WIDTH, &info);
  GstBuffer *in = make_flat_frame (&info, &formats[4]);
  OverlayRun run;
  GstMapInfo map;

  run.info = info;
  overlay_run (&run, "NV12", in, h);
  gst_buffer_map (run.out, &map, GST_MAP_READ);
  fail_unless (memcmp (map.data, run.before, map.size) == 0);
  gst_buffer_unmap (run.out, &map);
  overlay_run_clear (&run);
  gst_harness_teardown (h);
}

GST_END_TEST;

/* Landmarks: a filled dot of the box colour on each point (radius 3:
 * rows of half-width 3, 2, 2, 0 at |dy| = 0, 1, 2, 3), nothing else
 * touched; draw-landmarks=false leaves them out. */
#define LM_RADIUS 3

GST_START_TEST (test_landmarks_drawn)
{
  const Rect box = { 20, 20, 100, 90 };
  static const gint pts[2][2] = { {40, 50}, {70, 61} };
  static const gint half[LM_RADIUS + 1] = { 3, 2, 2, 0 };
  guint i, off;

  for (off = 0; off < 2; off++) {
    for (i = 0; i < G_N_ELEMENTS (formats); i++) {
      const FormatLayout *f = &formats[i];
      GstVideoInfo info;
      GstHarness *h = make_harness (f->name, FALSE, DEFAULT_LINE_WIDTH, &info);
      GstBuffer *in = make_flat_frame (&info, f);
      GstVideoRegionOfInterestMeta *roi;
      OverlayRun run;
      GstMapInfo map;
      gfloat norm[4];
      Rect allowed[1 + 2 * (2 * LM_RADIUS + 1)];
      guint8 ring[N_COMPS];
      gint k, dy, dx, c, n_allowed = 1;
      const gint n_exact = f->yuv ? 1 : N_COMPS;

      if (off)
        g_object_set (h->element, "draw-landmarks", FALSE, NULL);
      add_detection (in, &box, 3, "face", 0.9f);
      roi = gst_buffer_get_video_region_of_interest_meta (in);
      for (k = 0; k < 2; k++) {
        /* the centre of pixel (x, y) */
        norm[2 * k] = (pts[k][0] + 0.5f) / FRAME_WIDTH;
        norm[2 * k + 1] = (pts[k][1] + 0.5f) / FRAME_HEIGHT;
      }
      gst_ax_detection_set_landmarks (roi, norm, 2);
      run.info = info;
      overlay_run (&run, f->name, in, h);

      gst_buffer_map (run.out, &map, GST_MAP_READ);
      for (c = 0; c < N_COMPS; c++)
        ring[c] = luma_pixel_comp (map.data, &info, f, c, box.x0, box.y0);
      allowed[0] = box;
      for (k = 0; k < 2; k++) {
        for (dy = -LM_RADIUS - 1; dy <= LM_RADIUS + 1; dy++) {
          gint hw = ABS (dy) <= LM_RADIUS ? half[ABS (dy)] : -1;
          for (dx = -LM_RADIUS - 1; dx <= LM_RADIUS + 1; dx++) {
            gboolean on = !off && ABS (dx) <= hw;
            for (c = 0; c < n_exact; c++) {
              guint8 v = luma_pixel_comp (map.data, &info, f, c,
                  pts[k][0] + dx, pts[k][1] + dy);
              guint8 bg = f->yuv ? BG_Y : (c == 0 ? BG_R : c == 1 ? BG_G :
                  BG_B);
              fail_unless_equals_int (v, on ? ring[c] : bg);
            }
          }
          if (hw >= 0 && !off) {
            Rect r = { pts[k][0] - hw, pts[k][1] + dy, pts[k][0] + hw + 1,
              pts[k][1] + dy + 1
            };
            allowed[n_allowed++] = r;
          }
        }
      }
      check_untouched (run.before, map.data, &info, f, allowed, n_allowed);
      gst_buffer_unmap (run.out, &map);
      overlay_run_clear (&run);
      gst_harness_teardown (h);
    }
  }
}

GST_END_TEST;

GST_START_TEST (test_unsupported_format)
{
  GstHarness *h = gst_harness_new ("axoverlay");

  gst_harness_set_src_caps_str (h,
      "video/x-raw,format=YUY2,width=64,height=48,framerate=30/1");
  fail_unless_equals_int (gst_harness_push (h,
          gst_buffer_new_allocate (NULL, 64 * 48 * 2, NULL)),
      GST_FLOW_NOT_NEGOTIATED);
  gst_harness_teardown (h);
}

GST_END_TEST;

static Suite *
axoverlay_suite (void)
{
  Suite *s = suite_create ("axoverlay");
  TCase *tc = tcase_create ("general");

  /* fontconfig reads its configuration and font cache once, here, for
   * every forked test to inherit. FcInit() alone: Pango's font map would
   * start threads of its own, and a fork while one of them holds a lock
   * (the allocator's, under AddressSanitizer) leaves the test child
   * waiting for ever */
  if (!FcInit ())
    g_error ("fontconfig cannot load its configuration");

  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_box_colours_every_format);
  tcase_add_test (tc, test_line_width_and_foreign_roi);
  tcase_add_test (tc, test_label_drawn);
  tcase_add_test (tc, test_classification_drawn);
  tcase_add_test (tc, test_label_at_frame_edges);
  tcase_add_test (tc, test_no_detections_passes_untouched);
  tcase_add_test (tc, test_unsupported_format);
  tcase_add_test (tc, test_landmarks_drawn);
  tcase_add_test (tc, test_labels_keep_clear);
  tcase_add_test (tc, test_place_label_rule);
  tcase_add_test (tc, test_label_cache);
  tcase_add_test (tc, test_label_rendered_once);
  tcase_add_test (tc, test_blend_premultiplied);
  tcase_add_test (tc, test_plugin_metadata);
  return s;
}

GST_CHECK_MAIN (axoverlay);
