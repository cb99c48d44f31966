/* gst-ax
 * Copyright (C) 2026 gst-ax developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

/* Task agreement of int8 with float (sim-npu/tools/task-agree.h): the
 * measure itself on outputs written by hand (the detector and pose
 * decoders' steps each on boxes placed for it), then two real models
 * compiled as the build compiles them, with the six face-api photos as
 * calibration and SIMNPU_COMPILE_DUMP_OUTPUTS: emotion's top-1 class and
 * BlazeFace's detections, int8 against float. The compile is
 * deterministic, so the figures are too.
 *
 *   test-simnpu-task-agreement SIMNPU_COMPILE MODELS_SRC_DIR
 *
 * The real models are skipped without the data dir (GST_AX_DATA_DIR). */

#include "task-agree.h"

#include <glib.h>
#include <glib/gstdio.h>

static const char *compiler, *models_src;

static void
write_floats (const gchar * dir, const gchar * name, const float *v, gsize n)
{
  gchar *file = g_build_filename (dir, name, NULL);

  g_assert_true (g_file_set_contents (file, (const gchar *) v,
          (gssize) (n * sizeof (float)), NULL));
  g_free (file);
}

/* A dump written by hand: image 0 agrees, image 1 does not, for each
 * kind; the measure must tell them apart. */
static void
test_measure (void)
{
  gchar *dir = g_dir_make_tmp ("gst-ax-task-XXXXXX", NULL);
  gchar *file = g_build_filename (dir, "outputs.txt", NULL);
  const float cls_f[3] = { 0.1f, 0.7f, 0.2f };
  const float cls_q0[3] = { 0.12f, 0.66f, 0.22f };
  const float cls_q1[3] = { 0.5f, 0.3f, 0.2f };
  /* 2 anchors: scores (logits) and boxes cx, cy, w, h */
  const float sc_f[2] = { 3.0f, -5.0f };
  const float sc_q0[2] = { 2.5f, -4.0f };
  const float sc_q1[2] = { 2.5f, -4.0f };
  const float bx_f[8] = { 10, 10, 8, 8, 0, 0, 1, 1 };
  const float bx_q0[8] = { 10.5f, 10, 8, 8, 0, 0, 1, 1 };
  const float bx_q1[8] = { 20, 10, 8, 8, 0, 0, 1, 1 };
  const float pt_f[4] = { 10, 10, 5, 5 };
  const float pt_q0[4] = { 10, 13, 5, 9 };
  task_dump d;
  task_figure f = { 0 };
  gchar *text;

  g_assert_true (g_file_set_contents (file, "0 cls 1 3\n1 score 1 2 1\n"
          "2 box 1 2 4\n3 pts 1 4\nimages 2\n", -1, NULL));
  write_floats (dir, "0-0.float.f32", cls_f, 3);
  write_floats (dir, "0-0.int8.f32", cls_q0, 3);
  write_floats (dir, "1-0.float.f32", cls_f, 3);
  write_floats (dir, "1-0.int8.f32", cls_q1, 3);
  write_floats (dir, "0-1.float.f32", sc_f, 2);
  write_floats (dir, "0-1.int8.f32", sc_q0, 2);
  write_floats (dir, "1-1.float.f32", sc_f, 2);
  write_floats (dir, "1-1.int8.f32", sc_q1, 2);
  write_floats (dir, "0-2.float.f32", bx_f, 8);
  write_floats (dir, "0-2.int8.f32", bx_q0, 8);
  write_floats (dir, "1-2.float.f32", bx_f, 8);
  write_floats (dir, "1-2.int8.f32", bx_q1, 8);
  write_floats (dir, "0-3.float.f32", pt_f, 4);
  write_floats (dir, "0-3.int8.f32", pt_q0, 4);
  write_floats (dir, "1-3.float.f32", pt_f, 4);
  write_floats (dir, "1-3.int8.f32", pt_f, 4);
  g_assert_true (task_dump_read (dir, &d));
  g_assert_cmpuint (d.n_images, ==, 2);

  g_assert_true (task_measure (dir, &d, "class @1x3", &f));
  g_assert_cmpuint (f.matched, ==, 1);
  g_assert_cmpuint (f.total, ==, 2);
  text = task_figure_text (&f);
  g_assert_cmpstr (text, ==, "top-1 1/2");
  g_free (text);

  memset (&f, 0, sizeof (f));
  g_assert_true (task_measure (dir, &d, "ssd score box logit", &f));
  /* anchor 0 on both images; image 1's box moved by more than its size */
  g_assert_cmpuint (f.total, ==, 2);
  g_assert_cmpuint (f.matched, ==, 1);

  memset (&f, 0, sizeof (f));
  g_assert_true (task_measure (dir, &d, "points pts 2 2", &f));
  /* image 0: points 3 and 4 apart, times 2 pixels; image 1: 0 */
  g_assert_cmpuint (f.n, ==, 4);
  g_assert_cmpfloat_with_epsilon (f.sum / f.n, (6.0 + 8.0) / 4, 1e-6);

  memset (&f, 0, sizeof (f));
  g_assert_false (task_measure (dir, &d, "class @1x9", &f));
  g_assert_false (task_measure (dir, &d, "nothing cls", &f));

  task_dump_clear (&d);
  g_free (file);
  task_dump_remove (dir);
  g_free (dir);
}

/* image 0's float and int8 values of output OUT */
static void
write_output (const gchar * dir, guint out, const float *fl, const float *q,
    gsize n)
{
  gchar *a = g_strdup_printf ("0-%u.float.f32", out);
  gchar *b = g_strdup_printf ("0-%u.int8.f32", out);

  write_floats (dir, a, fl, n);
  write_floats (dir, b, q, n);
  g_free (a);
  g_free (b);
}

/* LINE's figure on the dump in DIR */
static gchar *
measure_text (const gchar * dir, const task_dump * d, const gchar * line,
    task_figure * f)
{
  memset (f, 0, sizeof (*f));
  g_assert_true (task_measure (dir, d, line, f));
  return task_figure_text (f);
}

/* The detector and pose decoders on one hand-made image, each with one
 * float detection that int8 finds again and one that it does not (moved
 * by a known amount, of another class, or below the threshold), and
 * values that a decoder which skipped one of its steps (NMS, the anchors'
 * places, the 3x3 peak, a skipped class, nanodet's clamp, matching
 * people by their box rather than their slot) would count otherwise. */
static void
test_detectors (void)
{
  gchar *dir = g_dir_make_tmp ("gst-ax-task-XXXXXX", NULL);
  gchar *file = g_build_filename (dir, "outputs.txt", NULL);
  /* boxes (FaceBoxes' layout: ymin, xmin, ymax, xmax, and a score):
   * row 1 is row 0's box (IoU 0.9, above NMS 0.3), row 3 is below 0.2;
   * int8 moves row 2 down by 4 of its 10 (IoU 0.43) */
  const float fb_f[16] = { 0, 0, 10, 10, 0, 0, 9, 10, 20, 20, 30, 30,
    50, 50, 60, 60
  };
  const float fb_q[16] = { 0, 0, 10, 10, 0, 0, 9, 10, 24, 20, 34, 30,
    50, 50, 60, 60
  };
  const float fb_s[4] = { 0.9f, 0.8f, 0.7f, 0.1f };
  /* anchor: an 8-pixel input, grids 2x2 (1 anchor a cell, centres 2 and
   * 6) then 1x1 (2 anchors, centre 4); rows of logit, centre offset, size */
  float hd_f[6 * 19], hd_q[6 * 19];
  /* grid, CenterNet's way: 4x4 cells, 2 classes, distances 0.5 cell a
   * unit */
  float ct_hf[32], ct_hq[32], ct_w[64];
  /* grid, nanodet's way: a 2x2 and a 1x1 grid, 2 classes (class 1
   * skipped), 4 bins a side, 0.5 cell a bin, centred, clamped */
  float nd_s0f[8], nd_s0q[8], nd_d0f[64], nd_d0q[64];
  float nd_s1f[2], nd_s1q[2], nd_d1[16];
  /* people: two rows of 17 keypoints (y, x, score) and a box */
  float mp_f[2 * 56], mp_q[2 * 56];
  task_dump d;
  task_figure f;
  gchar *text;
  guint k;

  memset (hd_f, 0, sizeof (hd_f));
  for (k = 0; k < 6; k++)
    hd_f[k * 19] = -3.0f;
  memcpy (hd_q, hd_f, sizeof (hd_f));
  /* row 3 (anchor 6, 6): box (4.5, 3.5)-(8.5, 7.5); int8 moves it right
   * by 2 (IoU 0.33) */
  hd_f[3 * 19] = hd_q[3 * 19] = 2.0f;
  hd_f[3 * 19 + 1] = 0.5f;
  hd_q[3 * 19 + 1] = 2.5f;
  hd_f[3 * 19 + 2] = hd_q[3 * 19 + 2] = -0.5f;
  hd_f[3 * 19 + 3] = hd_q[3 * 19 + 3] = 4.0f;
  hd_f[3 * 19 + 4] = hd_q[3 * 19 + 4] = 4.0f;
  /* float row 4 (anchor 4, 4): box (3, 3)-(5, 5); int8 has it at row 0
   * (anchor 2, 2) offset by 2, 2: the same box */
  hd_f[4 * 19] = 1.0f;
  hd_f[4 * 19 + 3] = hd_f[4 * 19 + 4] = 2.0f;
  hd_q[0] = 1.0f;
  hd_q[1] = hd_q[2] = hd_q[3] = hd_q[4] = 2.0f;

  memset (ct_hf, 0, sizeof (ct_hf));
  memset (ct_w, 0, sizeof (ct_w));
  /* cell (row 1, column 1), class 0: 0.9, box (0, 0)-(2, 2) cells */
  ct_hf[(1 * 4 + 1) * 2] = 0.9f;
  for (k = 0; k < 4; k++)
    ct_w[(1 * 4 + 1) * 4 + k] = 2.0f;
  /* its neighbour (1, 2), class 0: 0.5, not a peak, box (2, 1)-(3, 2) */
  ct_hf[(1 * 4 + 2) * 2] = 0.5f;
  ct_w[(1 * 4 + 2) * 4 + 2] = ct_w[(1 * 4 + 2) * 4 + 3] = 2.0f;
  /* cell (3, 3), class 1: 0.6, box (2, 2)-(3, 3); int8 has it as class 0 */
  memcpy (ct_hq, ct_hf, sizeof (ct_hf));
  ct_hf[(3 * 4 + 3) * 2 + 1] = 0.6f;
  ct_hq[(3 * 4 + 3) * 2] = 0.6f;
  ct_w[(3 * 4 + 3) * 4] = ct_w[(3 * 4 + 3) * 4 + 1] = 2.0f;

  memset (nd_s0f, 0, sizeof (nd_s0f));
  memset (nd_d0f, 0, sizeof (nd_d0f));
  memset (nd_s1f, 0, sizeof (nd_s1f));
  memset (nd_d1, 0, sizeof (nd_d1));
  /* 2x2 grid, cell 0 (centre 0.25, 0.25): class 0 at 0.9 and the
   * skipped class 1 at 0.95 (int8 0.85: unskipped, the best of the cell
   * would differ); float bins 2, 2, 1, 1: (-0.25, -0.25)-(0.5, 0.5),
   * clamped (0, 0)-(0.75, 0.75); int8 bins 1, 1, 2, 2: (0, 0)-(0.75,
   * 0.75), the clamped box */
  nd_s0f[0] = 0.9f;
  nd_s0f[1] = 0.95f;
  memcpy (nd_s0q, nd_s0f, sizeof (nd_s0f));
  nd_s0q[1] = 0.85f;
  memcpy (nd_d0q, nd_d0f, sizeof (nd_d0f));
  nd_d0f[0 * 4 + 2] = nd_d0f[1 * 4 + 2] = nd_d0f[2 * 4 + 1] =
      nd_d0f[3 * 4 + 1] = 1.0f;
  nd_d0q[0 * 4 + 1] = nd_d0q[1 * 4 + 1] = nd_d0q[2 * 4 + 2] =
      nd_d0q[3 * 4 + 2] = 1.0f;
  /* 1x1 grid, class 0: 0.8, bins 0, 0, 1, 1: (0.5, 0.5)-(1, 1) (IoU 0.08
   * with the first); int8 below 0.2 */
  nd_s1f[0] = 0.8f;
  nd_s1q[0] = 0.1f;
  nd_s1q[1] = 0.0f;
  nd_d1[0 * 4] = nd_d1[1 * 4] = nd_d1[2 * 4 + 1] = nd_d1[3 * 4 + 1] = 1.0f;

  memset (mp_f, 0, sizeof (mp_f));
  /* person 0: keypoints at (0.2, 0.2), score 0.9 but the last (0.1); box
   * (0.1, 0.1)-(0.5, 0.5), score 0.5 */
  for (k = 0; k < 17; k++) {
    mp_f[3 * k] = mp_f[3 * k + 1] = 0.2f;
    mp_f[3 * k + 2] = k < 16 ? 0.9f : 0.1f;
  }
  mp_f[51] = mp_f[52] = 0.1f;
  mp_f[53] = mp_f[54] = 0.5f;
  mp_f[55] = 0.5f;
  /* person 1: score 0.304, 0.30 in hundredths: not above 0.3 */
  memcpy (mp_f + 56, mp_f, 56 * sizeof (float));
  mp_f[56 + 51] = mp_f[56 + 52] = 0.6f;
  mp_f[56 + 53] = mp_f[56 + 54] = 0.9f;
  mp_f[56 + 55] = 0.304f;
  /* int8: the two people in the other order; person 0's first keypoint
   * moved by (3, 4) of 256 pixels, its last (score 0.1) far */
  memcpy (mp_q, mp_f + 56, 56 * sizeof (float));
  memcpy (mp_q + 56, mp_f, 56 * sizeof (float));
  mp_q[56 + 0] += 3.0f / 256;
  mp_q[56 + 1] += 4.0f / 256;
  mp_q[56 + 48] = 0.9f;

  g_assert_true (g_file_set_contents (file, "0 fb_boxes 1 4 4\n"
          "1 fb_scores 1 4\n2 hd 1 6 19\n3 ct_heat 1 4 4 2\n"
          "4 ct_wh 1 4 4 4\n5 nd_s0 1 4 2\n6 nd_d0 1 4 16\n"
          "7 nd_s1 1 1 2\n8 nd_d1 1 1 16\n9 mp 1 2 56\nimages 1\n", -1, NULL));
  write_output (dir, 0, fb_f, fb_q, 16);
  write_output (dir, 1, fb_s, fb_s, 4);
  write_output (dir, 2, hd_f, hd_q, 6 * 19);
  write_output (dir, 3, ct_hf, ct_hq, 32);
  write_output (dir, 4, ct_w, ct_w, 64);
  write_output (dir, 5, nd_s0f, nd_s0q, 8);
  write_output (dir, 6, nd_d0f, nd_d0q, 64);
  write_output (dir, 7, nd_s1f, nd_s1q, 2);
  write_output (dir, 8, nd_d1, nd_d1, 16);
  write_output (dir, 9, mp_f, mp_q, 2 * 56);
  g_assert_true (task_dump_read (dir, &d));

  /* rows 0 and 2 after NMS; row 2 moved */
  text = measure_text (dir, &d, "boxes fb_boxes fb_scores 0.2 0.3 200 "
      "layout=yxYXs", &f);
  g_assert_cmpstr (text, ==, "boxes 1/2");
  g_free (text);
  /* at most one box */
  text = measure_text (dir, &d, "boxes fb_boxes fb_scores 0.2 0.3 1 "
      "layout=yxYXs", &f);
  g_assert_cmpstr (text, ==, "boxes 1/1");
  g_free (text);
  g_assert_false (task_measure (dir, &d, "boxes fb_boxes fb_scores 0.2 0.3 "
          "200", &f));

  /* the float box of row 4 found at int8's row 0; row 3 moved */
  text = measure_text (dir, &d, "anchor hd 0.5 0.2 0 grids=2x1,1x2 size=8", &f);
  g_assert_cmpstr (text, ==, "boxes 1/2");
  g_free (text);
  /* anchors that are not the rows */
  g_assert_false (task_measure (dir, &d, "anchor hd 0.5 0.2 0 "
          "grids=2x1,1x1 size=8", &f));

  /* the peak at (1, 1) found; (1, 2) no peak; (3, 3) of another class */
  text = measure_text (dir, &d, "grid ct_heat ct_wh 0.2 0.4 10 scale=0.5 "
      "peak", &f);
  g_assert_cmpstr (text, ==, "boxes 1/2");
  g_free (text);
  text = measure_text (dir, &d, "grid ct_heat ct_wh 0.2 0.4 10 scale=0.5 "
      "peak top=1", &f);
  g_assert_cmpstr (text, ==, "boxes 1/1");
  g_free (text);

  /* the clamped box found, the 1x1 grid's lost */
  text = measure_text (dir, &d, "grid nd_s0 nd_d0 nd_s1 nd_d1 0.2 0.4 10 "
      "scale=0.5 centre=0.5 clamp skip=1", &f);
  g_assert_cmpstr (text, ==, "boxes 1/2");
  g_free (text);

  /* person 0 found at int8's row 1: 5 pixels over its 16 keypoints */
  text = measure_text (dir, &d, "people mp 0.3 px=256", &f);
  g_assert_cmpuint (f.n, ==, 16);
  g_assert_cmpfloat_with_epsilon (f.sum, 5.0, 1e-3);
  g_assert_cmpstr (text, ==, "people 1/1, 0.3 px");
  g_free (text);

  task_dump_clear (&d);
  g_free (file);
  task_dump_remove (dir);
  g_free (dir);
}

/* handtrack's and the BlazePose detector's decoding on one hand-made
 * image: class scores beside the boxes (a background and a face column
 * that are no class, the best class a box's score and class, one NMS
 * across classes) and anchors whose box grows by a crop factor, with a
 * box cap. Each expected figure differs from what a decoder would give
 * that skipped one of those steps. */
static void
test_class_boxes (void)
{
  gchar *dir = g_dir_make_tmp ("gst-ax-task-XXXXXX", NULL);
  gchar *file = g_build_filename (dir, "outputs.txt", NULL);
  /* handtrack's layout on 4 rows: ymin, xmin, ymax, xmax, then the
   * scores of background, classes 0 and 1, face, class 2 */
  const float ht_b[16] = { 0, 0, 10, 10, 20, 20, 30, 30, 50, 50, 60, 60,
    0, 0, 9, 10
  };
  /* row 0: class 0 at 0.9 under a background of 0.99, found; row 1:
   * class 1 at 0.6 beside a face at 0.95, int8 0.4: lost (a decoder that
   * kept the face found it); row 2: class 2, int8 class 1: lost (found if
   * the class were ignored or the background taken for one); row 3: row
   * 0's box (IoU 0.9 above NMS 0.2) as class 1, which NMS within each
   * class would keep, and int8 too */
  const float ht_sf[20] = { 0.99f, 0.9f, 0.1f, 0.1f, 0.1f,
    0.1f, 0.1f, 0.6f, 0.95f, 0.1f,
    0.99f, 0.1f, 0.2f, 0.1f, 0.7f,
    0.1f, 0.1f, 0.8f, 0.1f, 0.1f
  };
  const float ht_sq[20] = { 0.99f, 0.9f, 0.1f, 0.1f, 0.1f,
    0.1f, 0.1f, 0.4f, 0.95f, 0.1f,
    0.99f, 0.1f, 0.7f, 0.1f, 0.2f,
    0.1f, 0.1f, 0.8f, 0.1f, 0.1f
  };
  /* the BlazePose detector's rows (logit, centre offset, size, then 4
   * keypoints) on an 8-pixel input, one 2x2 grid (centres 2 and 6):
   * row 0 a 2x2 box at (2, 2) that int8 moves right by 2 (IoU 0 as it
   * is, 0.67 at 5 times the size); row 3 a weaker one at (6, 6), 2x2
   * at 5 times its size (IoU 0.04 with row 0's), that int8 loses, beyond
   * the cap of one box */
  float bp_f[4 * 13], bp_q[4 * 13];
  task_dump d;
  task_figure f;
  gchar *text;
  guint k;

  memset (bp_f, 0, sizeof (bp_f));
  for (k = 0; k < 4; k++)
    bp_f[k * 13] = -5.0f;
  bp_f[0] = 2.0f;
  bp_f[3] = bp_f[4] = 2.0f;
  bp_f[3 * 13] = 1.0f;
  bp_f[3 * 13 + 3] = bp_f[3 * 13 + 4] = 0.4f;
  memcpy (bp_q, bp_f, sizeof (bp_f));
  bp_q[1] = 2.0f;
  bp_q[3 * 13] = -5.0f;

  g_assert_true (g_file_set_contents (file, "0 ht_boxes 1 4 4\n"
          "1 ht_scores 1 4 5\n2 bp 1 4 13\nimages 1\n", -1, NULL));
  write_output (dir, 0, ht_b, ht_b, 16);
  write_output (dir, 1, ht_sf, ht_sq, 20);
  write_output (dir, 2, bp_f, bp_q, 4 * 13);
  g_assert_true (task_dump_read (dir, &d));

  /* rows 0, 1 and 2 after NMS; row 0 found */
  text = measure_text (dir, &d, "boxes ht_boxes ht_scores 0.5 0.2 0 "
      "layout=yxYX.cc.c", &f);
  g_assert_cmpstr (text, ==, "boxes 1/3");
  g_free (text);
  /* a score and class scores: no layout */
  g_assert_false (task_measure (dir, &d, "boxes ht_boxes ht_scores 0.5 0.2 "
          "0 layout=yxYXscc.c", &f));

  /* row 0 found at 5 times its size, row 3 beyond the cap */
  text = measure_text (dir, &d, "anchor bp 0.1 0.1 1 grids=2x1 size=8 "
      "scale=5", &f);
  g_assert_cmpstr (text, ==, "boxes 1/1");
  g_free (text);
  text = measure_text (dir, &d, "anchor bp 0.1 0.1 0 grids=2x1 size=8 "
      "scale=5", &f);
  g_assert_cmpstr (text, ==, "boxes 1/2");
  g_free (text);
  text = measure_text (dir, &d, "anchor bp 0.1 0.1 1 grids=2x1 size=8", &f);
  g_assert_cmpstr (text, ==, "boxes 0/1");
  g_free (text);

  task_dump_clear (&d);
  g_free (file);
  task_dump_remove (dir);
  g_free (dir);
}

/* Compiles MODEL (data/human) with ARGS and the six photos as
 * calibration, its outputs dumped; measures TASK on them */
static void
compile_and_measure (const gchar * model, const gchar * const *args,
    const gchar * task, task_figure * f)
{
  const gchar *data = g_getenv ("GST_AX_DATA_DIR");
  gchar *src = g_build_filename (data, "human", model, NULL);
  gchar *photos = g_build_filename (data, "face-api", NULL);
  gchar *dir = g_dir_make_tmp ("gst-ax-task-XXXXXX", NULL);
  gchar *axm = g_build_filename (dir, "model.axm", NULL);
  gchar *calib = g_strdup_printf ("--calibration=%s", photos);
  gchar **envp = g_environ_setenv (g_get_environ (),
      "SIMNPU_COMPILE_DUMP_OUTPUTS", dir, TRUE);
  GPtrArray *argv = g_ptr_array_new ();
  gchar *err = NULL;
  gint status = 0;
  task_dump d;
  guint i;

  g_ptr_array_add (argv, (gpointer) compiler);
  g_ptr_array_add (argv, src);
  g_ptr_array_add (argv, (gpointer) "-o");
  g_ptr_array_add (argv, axm);
  g_ptr_array_add (argv, (gpointer) "--quiet");
  g_ptr_array_add (argv, calib);
  for (i = 0; args[i]; i++)
    g_ptr_array_add (argv, (gpointer) args[i]);
  g_ptr_array_add (argv, NULL);
  g_assert_true (g_spawn_sync (NULL, (gchar **) argv->pdata, envp,
          G_SPAWN_STDOUT_TO_DEV_NULL, NULL, NULL, NULL, &err, &status, NULL));
  if (!g_spawn_check_wait_status (status, NULL))
    g_error ("%s: %s", model, err);
  g_assert_true (task_dump_read (dir, &d));
  g_assert_cmpuint (d.n_images, ==, 6);
  g_assert_true (task_measure (dir, &d, task, f));
  task_dump_clear (&d);
  task_dump_remove (dir);
  g_ptr_array_free (argv, TRUE);
  g_strfreev (envp);
  g_free (err);
  g_free (calib);
  g_free (axm);
  g_free (dir);
  g_free (photos);
  g_free (src);
}

static gboolean
have_models (void)
{
  const gchar *data = g_getenv ("GST_AX_DATA_DIR");
  gchar *f;
  gboolean ok;

  if (data == NULL) {
    g_test_skip ("GST_AX_DATA_DIR is not set (run scripts/fetch-data.sh)");
    return FALSE;
  }
  f = g_build_filename (data, "human", "blazeface.json", NULL);
  ok = g_file_test (f, G_FILE_TEST_EXISTS);
  g_free (f);
  if (!ok)
    g_test_skip ("the real models are not in GST_AX_DATA_DIR");
  return ok;
}

static void
test_emotion (void)
{
  gchar *labels, *decoder;
  task_figure f = { 0 };

  if (!have_models ())
    return;
  labels = g_build_filename (models_src, "emotion.labels", NULL);
  decoder = g_build_filename (models_src, "emotion.decoder.json", NULL);
  {
    const gchar *args[] = { "--preprocess",
      "scale=1/255,mean=0.5,std=0.5,color=gray,resize=stretch",
      "--labels", labels, "--decoder", decoder, NULL
    };
    compile_and_measure ("emotion.json", args, "class @1x7", &f);
  }
  g_test_message ("emotion: top-1 %u of %u", f.matched, f.total);
  g_assert_cmpuint (f.total, ==, 6);
  g_assert_cmpuint (f.matched, ==, 6);
  g_free (labels);
  g_free (decoder);
}

static void
test_blazeface (void)
{
  task_figure f = { 0 }, g = { 0 };

  if (!have_models ())
    return;
  {
    const gchar *args[] = { "--preprocess",
      "scale=1/127.5,mean=1,std=1,resize=letterbox,fill=0",
      "--outputs", "Identity,Identity_1,Identity_2,Identity_3",
      "--logit-outputs", "Identity,Identity_1",
      "--foreground", "Identity,Identity_1:0.5:logit", NULL
    };
    compile_and_measure ("blazeface.json", args,
        "ssd Identity Identity_2 logit", &f);
    compile_and_measure ("blazeface.json", args,
        "ssd Identity_1 Identity_3 logit", &g);
  }
  g_test_message ("blazeface: %u of %u and %u of %u detections found again",
      f.matched, f.total, g.matched, g.total);
  /* the photos hold 22 faces, each found at several anchors (76 in all
   * when this was written, 73 found again) */
  g_assert_cmpuint (f.total + g.total, >=, 22);
  g_assert_cmpuint ((f.matched + g.matched) * 100, >=,
      90 * (f.total + g.total));
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  if (argc < 3) {
    g_printerr ("usage: %s SIMNPU_COMPILE MODELS_SRC_DIR\n", argv[0]);
    return 2;
  }
  compiler = argv[1];
  models_src = argv[2];
  g_test_add_func ("/simnpu/task-agreement/measure", test_measure);
  g_test_add_func ("/simnpu/task-agreement/detectors", test_detectors);
  g_test_add_func ("/simnpu/task-agreement/class-boxes", test_class_boxes);
  g_test_add_func ("/simnpu/task-agreement/emotion", test_emotion);
  g_test_add_func ("/simnpu/task-agreement/blazeface", test_blazeface);
  return g_test_run ();
}
