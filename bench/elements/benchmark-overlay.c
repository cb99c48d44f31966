/* gst-ax
 * Copyright (C) 2026 gst-ax developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

/* axoverlay's cost per frame with N labelled detections, against stock
 * textoverlay drawing one text of the same font on the same frames, in
 * the same run.
 *
 * 1280x720 BGRx and NV12 frames through GstHarness. The detections are
 * the same on every frame (a steady stream: every label comes from the
 * cache), on a grid of boxes that do not overlap; "boxes only" is
 * axoverlay with draw-labels=false, the floor for the outlines. The
 * frames are made before each round and freed after it; each is written
 * just before its push (warm in the caches, as an upstream element leaves
 * it), and only the push and pull are timed. A figure is the median
 * frame over all rounds, the contenders alternating round by round (the
 * machine is shared: a preempted frame is slow by a whole time slice).
 * The first frame of a fresh element, which renders
 * every label, is timed on its own and printed with its render count. */

#include <gst/check/gstharness.h>
#include <gst/video/video.h>
#include <gst/ax/ax.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define FRAME_W 1280
#define FRAME_H 720
#define FRAMES_PER_ROUND 30
#define ROUNDS 7
#define GRID_COLS 8
#define GRID_ROWS 4
#define MAX_DETECTIONS (GRID_COLS * GRID_ROWS)
#define FONT_DESC "Sans Bold 10"
#define BASELINE_TEXT "ball 0.87"
#define US_PER_S 1e6
#define NS_PER_S 1000000000
#define BACKGROUND 0x50

static const guint label_counts[] = { 1, 8, 16, 24, MAX_DETECTIONS };

static const gchar *const class_names[] = {
  "person", "bicycle", "car", "motorcycle", "bus", "truck", "dog", "cat",
};

static void
add_detections (GstBuffer * buf, guint n)
{
  guint i;

  for (i = 0; i < n; i++) {
    const gfloat cw = 1.0f / GRID_COLS, ch = 1.0f / GRID_ROWS;
    const guint col = i % GRID_COLS, row = i / GRID_COLS;
    /* a box in the lower part of its cell, with room for the label */
    GstAxDetection det = { i, 0.5f + 0.01f * i,
      col * cw + 0.1f * cw, row * ch + 0.35f * ch,
      col * cw + 0.9f * cw, row * ch + 0.95f * ch,
      class_names[i % G_N_ELEMENTS (class_names)]
    };

    gst_ax_detection_add (buf, &det, FRAME_W, FRAME_H);
  }
}

static GstBuffer *
make_frame (const GstVideoInfo * info, guint n_detections)
{
  GstBuffer *buf = gst_buffer_new_allocate (NULL, info->size, NULL);

  gst_buffer_memset (buf, 0, BACKGROUND, info->size);
  add_detections (buf, n_detections);
  return buf;
}

static GstHarness *
make_axoverlay (const GstVideoInfo * info, gboolean labels)
{
  GstHarness *h = gst_harness_new ("axoverlay");

  g_object_set (h->element, "draw-labels", labels, "font-desc", FONT_DESC,
      NULL);
  gst_harness_set_src_caps (h, gst_video_info_to_caps (info));
  return h;
}

static GstHarness *
make_textoverlay (const GstVideoInfo * info)
{
  GstHarness *h = gst_harness_new_with_padnames ("textoverlay", "video_sink",
      "src");

  g_object_set (h->element, "text", BASELINE_TEXT, "font-desc", FONT_DESC,
      "shaded-background", TRUE, NULL);
  gst_harness_set_src_caps (h, gst_video_info_to_caps (info));
  return h;
}

static gint64
now_ns (void)
{
  struct timespec ts;

  clock_gettime (CLOCK_MONOTONIC, &ts);
  return (gint64) ts.tv_sec * NS_PER_S + ts.tv_nsec;
}

/* Times one round of frames through @h, appending each frame's seconds
 * to @samples. Each frame is written just before it is pushed, as the
 * upstream element that made it would, so that the overlay draws on a
 * frame in the caches rather than one evicted by the round's others. */
static void
time_round (GstHarness * h, const GstVideoInfo * info, guint n_detections,
    gdouble * samples, guint * n_samples)
{
  GstBuffer *frames[FRAMES_PER_ROUND];
  guint i;

  for (i = 0; i < FRAMES_PER_ROUND; i++) {
    frames[i] = make_frame (info, n_detections);
    GST_BUFFER_PTS (frames[i]) = i * GST_MSECOND;
  }
  for (i = 0; i < FRAMES_PER_ROUND; i++) {
    gint64 t0;

    gst_buffer_memset (frames[i], 0, BACKGROUND, info->size);
    t0 = now_ns ();
    frames[i] = gst_harness_push_and_pull (h, frames[i]);
    samples[(*n_samples)++] = (now_ns () - t0) / (gdouble) NS_PER_S;
  }
  /* freed after the clock: unmapping a frame is no part of drawing it */
  for (i = 0; i < FRAMES_PER_ROUND; i++)
    gst_buffer_unref (frames[i]);
}

static gint
compare_doubles (gconstpointer a, gconstpointer b)
{
  const gdouble x = *(const gdouble *) a, y = *(const gdouble *) b;

  return x < y ? -1 : x > y;
}

/* The median frame: a frame that another process preempted is slow by a
 * whole time slice, so the mean of a round on a shared machine is not. */
static gdouble
median (gdouble * v, guint n)
{
  qsort (v, n, sizeof (*v), compare_doubles);
  return v[n / 2];
}

static gdouble
first_frame (const GstVideoInfo * info, guint n, guint * renders)
{
  GstHarness *h = make_axoverlay (info, TRUE);
  GstBuffer *frame = make_frame (info, n);
  gint64 t0, t1;

  t0 = g_get_monotonic_time ();
  frame = gst_harness_push_and_pull (h, frame);
  t1 = g_get_monotonic_time ();
  gst_buffer_unref (frame);
  g_object_get (h->element, "label-renders", renders, NULL);
  gst_harness_teardown (h);
  return (t1 - t0) / US_PER_S;
}

typedef struct
{
  GstHarness *h;
  guint n_detections;
  gdouble samples[ROUNDS * FRAMES_PER_ROUND];
  guint n_samples;
} Contender;

int
main (int argc, char **argv)
{
  static const GstVideoFormat formats[] = { GST_VIDEO_FORMAT_BGRx,
    GST_VIDEO_FORMAT_NV12
  };
  /* the baseline, boxes only, then one per label count */
  enum
  { TEXT, BOXES, FIRST_LABELLED };
  const guint n_contenders = FIRST_LABELLED + G_N_ELEMENTS (label_counts);
  gboolean have_text;
  guint f;

  gst_init (&argc, &argv);
  /* textoverlay is Debian's gstreamer1.0-x (scripts/bench.sh installs it) */
  have_text = gst_registry_check_feature_version (gst_registry_get (),
      "textoverlay", 1, 0, 0);
  if (!have_text)
    printf ("textoverlay baseline unavailable (install gstreamer1.0-x); "
        "no ratios\n");
  printf ("axoverlay against textoverlay (one text \"%s\", shaded), "
      "%dx%d, font \"%s\"; median frame of %d rounds of %d, us per frame\n",
      BASELINE_TEXT, FRAME_W, FRAME_H, FONT_DESC, ROUNDS, FRAMES_PER_ROUND);
  for (f = 0; f < G_N_ELEMENTS (formats); f++) {
    Contender *c = g_new0 (Contender, n_contenders);
    GstVideoInfo info;
    gdouble base = 0.0;
    guint r, k, renders;

    gst_video_info_set_format (&info, formats[f], FRAME_W, FRAME_H);
    c[TEXT].h = have_text ? make_textoverlay (&info) : NULL;
    c[BOXES].h = make_axoverlay (&info, FALSE);
    c[BOXES].n_detections = MAX_DETECTIONS;
    for (k = 0; k < G_N_ELEMENTS (label_counts); k++) {
      c[FIRST_LABELLED + k].h = make_axoverlay (&info, TRUE);
      c[FIRST_LABELLED + k].n_detections = label_counts[k];
    }
    /* alternated in rounds, so that load on the machine hits all alike */
    for (r = 0; r < ROUNDS; r++)
      for (k = 0; k < n_contenders; k++)
        if (c[k].h)
          time_round (c[k].h, &info, c[k].n_detections, c[k].samples,
              &c[k].n_samples);

    printf ("%s:\n", gst_video_format_to_string (formats[f]));
    if (c[TEXT].h) {
      base = median (c[TEXT].samples, c[TEXT].n_samples);
      printf ("  textoverlay, 1 text (baseline)      %8.1f\n", base * US_PER_S);
    }
    for (k = BOXES; k < n_contenders; k++) {
      const gdouble m = median (c[k].samples, c[k].n_samples);

      if (k == BOXES)
        printf ("  axoverlay boxes only, %2u boxes       %8.1f", MAX_DETECTIONS,
            m * US_PER_S);
      else
        printf ("  axoverlay %2u labelled boxes         %8.1f",
            c[k].n_detections, m * US_PER_S);
      if (base > 0.0)
        printf ("  %5.2fx baseline", m / base);
      if (k >= FIRST_LABELLED) {
        g_object_get (c[k].h->element, "label-renders", &renders, NULL);
        printf ("  (%u pieces rendered in %u frames)", renders, c[k].n_samples);
      }
      printf ("\n");
    }
    {
      guint first_renders;
      gdouble first = first_frame (&info, MAX_DETECTIONS, &first_renders);

      printf ("  axoverlay first frame, %2d labels     %8.1f  (renders %u "
          "pieces; later frames none)\n", MAX_DETECTIONS, first * US_PER_S,
          first_renders);
    }
    for (k = 0; k < n_contenders; k++)
      if (c[k].h)
        gst_harness_teardown (c[k].h);
    g_free (c);
  }
  return 0;
}
