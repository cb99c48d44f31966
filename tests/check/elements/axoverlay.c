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
#include <math.h>
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
#define DEFAULT_FONT_SCALE 2
/* the bar is one font cell plus a font pixel of margin high */
#define GLYPH_HEIGHT 7
#define CELL_WIDTH 6
#define BAR_HEIGHT(s) ((GLYPH_HEIGHT + 2) * (s))
#define YUV_TOLERANCE 1

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

GST_START_TEST (test_label_drawn)
{
  const Rect box = { 40, 60, 120, 100 };
  const gint s = DEFAULT_FONT_SCALE;
  const gchar *text = "ball 0.87";
  /* the label bar sits on top of the box, left-aligned with it */
  const Rect bar = { box.x0, box.y0 - BAR_HEIGHT (s),
    box.x0 + (gint) (strlen (text) * CELL_WIDTH + 1) * s, box.y0
  };
  guint i;

  for (i = 0; i < G_N_ELEMENTS (formats); i++) {
    GstVideoInfo info;
    GstHarness *h = make_harness (formats[i].name, TRUE, DEFAULT_LINE_WIDTH,
        &info);
    GstBuffer *in = make_flat_frame (&info, &formats[i]);
    OverlayRun run;
    GstMapInfo map;
    Rect allowed[2] = { box, bar };
    guint8 bar_luma, ink_luma;
    gint x, y, n_bar = 0, n_ink = 0, n_other = 0;

    add_detection (in, &box, 3, "ball", 0.87f);
    run.info = info;
    overlay_run (&run, formats[i].name, in, h);
    gst_buffer_map (run.out, &map, GST_MAP_READ);
    check_untouched (run.before, map.data, &info, run.f, allowed, 2);

    /* the bar has the box's colour; the glyph pixels another one */
    bar_luma = luma_pixel_comp (map.data, &info, run.f, 0, box.x0, box.y0);
    fail_unless_equals_int (luma_pixel_comp (map.data, &info, run.f, 0,
            bar.x0, bar.y0), bar_luma);
    /* 'B' starts with ink in its top-left pixel: one font pixel in */
    ink_luma = luma_pixel_comp (map.data, &info, run.f, 0, bar.x0 + s,
        bar.y0 + s);
    fail_if (ink_luma == bar_luma, "%s: no glyph ink at the first letter",
        formats[i].name);
    /* ... and no ink in its top-right column */
    fail_unless_equals_int (luma_pixel_comp (map.data, &info, run.f, 0,
            bar.x0 + s + 4 * s, bar.y0 + s), bar_luma);
    for (y = bar.y0; y < bar.y1; y++) {
      for (x = bar.x0; x < bar.x1; x++) {
        guint8 v = luma_pixel_comp (map.data, &info, run.f, 0, x, y);

        if (v == bar_luma)
          n_bar++;
        else if (v == ink_luma)
          n_ink++;
        else
          n_other++;
      }
    }
    GST_INFO ("%s: bar %d ink %d other %d", formats[i].name, n_bar, n_ink,
        n_other);
    fail_unless_equals_int (n_other, 0);
    /* nine characters of a few font pixels each, each 2x2 */
    fail_unless (n_ink > 9 * 8 * s * s, "%s: only %d ink pixels",
        formats[i].name, n_ink);
    fail_unless (n_bar > n_ink);
    gst_buffer_unmap (run.out, &map);
    overlay_run_clear (&run);
    gst_harness_teardown (h);
  }
}

GST_END_TEST;

/* A classified region gets its class ("neutral 0.83") on a second bar
 * right under its box label, i.e. just inside the top of its box; an
 * unclassified one keeps the inside of its box as it was. */
GST_START_TEST (test_classification_drawn)
{
  const Rect boxes[2] = { {4, 30, 76, 80}, {84, 30, 156, 80} };
  const gint s = 1, lw = DEFAULT_LINE_WIDTH;
  const gchar *text = "neutral 0.83";
  const gint bar_w = (gint) (strlen (text) * CELL_WIDTH + 1) * s;
  GstAxClassification cls = { 6, 0.83f, "neutral" };
  GstVideoRegionOfInterestMeta *roi;
  GstVideoInfo info;
  GstHarness *h = make_harness ("RGB", TRUE, lw, &info);
  GstBuffer *in = make_flat_frame (&info, &formats[0]);
  OverlayRun run;
  GstMapInfo map;
  gint b, x, y, changed[2] = { 0, 0 }, outside = 0;
  guint8 bar_luma;

  g_object_set (h->element, "font-scale", s, NULL);
  add_detection (in, &boxes[0], 0, "face", 0.9f);
  add_detection (in, &boxes[1], 0, "face", 0.9f);
  roi = gst_buffer_get_video_region_of_interest_meta_id (in, 0);
  fail_unless (roi != NULL && roi->x == (guint) boxes[0].x0);
  gst_ax_detection_add_classification (roi, &cls);
  run.info = info;
  overlay_run (&run, "RGB", in, h);
  gst_buffer_map (run.out, &map, GST_MAP_READ);
  for (b = 0; b < 2; b++) {
    /* inside the box's ring, one bar high */
    for (y = boxes[b].y0 + lw; y < boxes[b].y0 + BAR_HEIGHT (s); y++)
      for (x = boxes[b].x0 + lw; x < boxes[b].x1 - lw; x++) {
        gboolean diff = FALSE;
        gint c;

        for (c = 0; c < N_COMPS; c++)
          diff |= luma_pixel_comp (map.data, &info, run.f, c, x, y) !=
              luma_pixel_comp (run.before, &info, run.f, c, x, y);
        changed[b] += diff;
      }
  }
  /* below the classification bar the box is untouched */
  for (y = boxes[0].y0 + BAR_HEIGHT (s); y < boxes[0].y1 - lw; y++)
    for (x = boxes[0].x0 + lw + bar_w; x < boxes[0].x1 - lw; x++)
      outside += luma_pixel_comp (map.data, &info, run.f, 0, x, y) !=
          luma_pixel_comp (run.before, &info, run.f, 0, x, y);
  GST_INFO ("changed under the label: classified %d, unclassified %d",
      changed[0], changed[1]);
  fail_unless_equals_int (changed[1], 0);
  fail_unless_equals_int (outside, 0);
  /* the bar covers the row inside the ring, in the box colour */
  fail_unless (changed[0] >= (bar_w - lw) * (BAR_HEIGHT (s) - lw) / 2,
      "only %d pixels changed under the classified box's label", changed[0]);
  bar_luma = luma_pixel_comp (map.data, &info, run.f, 0, boxes[0].x0,
      boxes[0].y0);
  /* 'N' has ink in its top-left pixel, one font pixel into the bar */
  fail_if (luma_pixel_comp (map.data, &info, run.f, 0, boxes[0].x0 + s,
          boxes[0].y0 + s) == bar_luma, "no glyph ink of 'N'");
  gst_buffer_unmap (run.out, &map);
  overlay_run_clear (&run);
  gst_harness_teardown (h);
}

GST_END_TEST;

/* A box at the top edge puts its label inside the box; a box at the right
 * edge shifts the label left so that it stays on the frame. */
GST_START_TEST (test_label_at_frame_edges)
{
  const Rect box = { 130, 0, 160, 30 };
  GstVideoInfo info;
  GstHarness *h = make_harness ("RGB", TRUE, DEFAULT_LINE_WIDTH, &info);
  GstBuffer *in = make_flat_frame (&info, &formats[0]);
  OverlayRun run;
  GstMapInfo map;
  const gint s = DEFAULT_FONT_SCALE;
  const gint bar_w = (int) (strlen ("ball 0.87") * CELL_WIDTH + 1) * s;
  Rect allowed[2] = { box, {FRAME_WIDTH - bar_w, 0, FRAME_WIDTH,
      BAR_HEIGHT (s)}
  };

  add_detection (in, &box, 3, "ball", 0.87f);
  run.info = info;
  overlay_run (&run, "RGB", in, h);
  gst_buffer_map (run.out, &map, GST_MAP_READ);
  check_untouched (run.before, map.data, &info, run.f, allowed, 2);
  /* the bar reaches the left end computed above */
  fail_if (luma_pixel_comp (map.data, &info, run.f, 0, FRAME_WIDTH - bar_w,
          0) == BG_R);
  gst_buffer_unmap (run.out, &map);
  overlay_run_clear (&run);
  gst_harness_teardown (h);
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

  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_box_colours_every_format);
  tcase_add_test (tc, test_line_width_and_foreign_roi);
  tcase_add_test (tc, test_label_drawn);
  tcase_add_test (tc, test_classification_drawn);
  tcase_add_test (tc, test_label_at_frame_edges);
  tcase_add_test (tc, test_no_detections_passes_untouched);
  tcase_add_test (tc, test_unsupported_format);
  tcase_add_test (tc, test_landmarks_drawn);
  return s;
}

GST_CHECK_MAIN (axoverlay);
