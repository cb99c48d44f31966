/* gst-ax
 * Copyright (C) 2026 gst-ax developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

/* Image loading (sim-npu/tools/imageset.c) on the real photos and video
 * of the data dir, checked against a JPEG header parsed here and against
 * frames decoded by a separate gst-launch-1.0 process; and the
 * preprocessing into tensors on synthetic images with known answers. */

#include "imageset.h"

#include <glib/gstdio.h>
#include <math.h>
#include <string.h>

/* frames decoded past the one compared (see test_video) */
#define VIDEO_SPARE_FRAMES 3
#define RGB 3
#define VTEST_WIDTH 768
#define VTEST_HEIGHT 576
#define VTEST_FRAMES 5
#define VTEST_STRIDE 10
#define FLOAT_TOL 1e-5f
/* Mean R, G, B of face-api/sample1.jpg as decoded by another decoder,
 * Debian 12's python3-pil 9.4.0 (Image.open (...).convert ("RGB")).
 * GStreamer's jpegdec uses libjpeg's fast integer IDCT and videoconvert
 * upsamples the chroma itself, so the means agree to a few levels only. */
static const double sample1_pil_mean[RGB] = { 45.796, 35.306, 30.977 };

#define PIL_MEAN_TOL 2.0
/* JPEG markers (ITU-T T.81 table B.1) */
#define JPEG_MARKER 0xff
#define JPEG_SOI 0xd8
#define JPEG_SOF0 0xc0
#define JPEG_SOF15 0xcf
#define JPEG_DHT 0xc4
#define JPEG_JPG 0xc8
#define JPEG_DAC 0xcc
#define JPEG_SOF_HEIGHT 3
#define JPEG_SOF_WIDTH 5

static const char *data_dir;

static gboolean
need_data (void)
{
  if (data_dir == NULL) {
    g_test_skip ("GST_AX_DATA_DIR is unset (run scripts/fetch-data.sh)");
    return FALSE;
  }
  return TRUE;
}

static GPtrArray *
new_images (void)
{
  return g_ptr_array_new_with_free_func ((GDestroyNotify) simnpu_image_free);
}

static guint
be16 (const guint8 * p)
{
  return (guint) p[0] << 8 | p[1];
}

/* The frame size from the JPEG's start-of-frame header, read without any
 * decoder. */
static void
jpeg_size (const char *path, unsigned *width, unsigned *height)
{
  gchar *data;
  gsize len, i = 2;
  const guint8 *p;

  g_assert_true (g_file_get_contents (path, &data, &len, NULL));
  p = (const guint8 *) data;
  g_assert_true (len > 4 && p[0] == JPEG_MARKER && p[1] == JPEG_SOI);
  while (i + 4 <= len) {
    guint marker, seg;
    g_assert_cmpuint (p[i], ==, JPEG_MARKER);
    marker = p[i + 1];
    seg = be16 (p + i + 2);
    if (marker >= JPEG_SOF0 && marker <= JPEG_SOF15 && marker != JPEG_DHT
        && marker != JPEG_JPG && marker != JPEG_DAC) {
      g_assert_cmpuint (i + 2 + JPEG_SOF_WIDTH + 2, <=, len);
      *height = be16 (p + i + 2 + JPEG_SOF_HEIGHT);
      *width = be16 (p + i + 2 + JPEG_SOF_WIDTH);
      g_free (data);
      return;
    }
    i += 2 + seg;
  }
  g_error ("%s: no start-of-frame marker", path);
}

static gchar *
tmp_path (void)
{
  gchar *path = g_build_filename (g_get_tmp_dir (),
      "test-imageset-ref-XXXXXX", NULL);
  gint fd = g_mkstemp (path);

  g_assert_cmpint (fd, >=, 0);
  close (fd);
  return path;
}

/* Runs PIPELINE in a gst-launch-1.0 process and returns what it wrote to
 * OUT (removed). */
static guint8 *
reference_decode (const char *pipeline, const char *out, gsize * len)
{
  gchar *cmd = g_strdup_printf ("gst-launch-1.0 -q %s", pipeline);
  gchar *data, *err = NULL;
  gint status;

  g_assert_true (g_spawn_command_line_sync (cmd, NULL, &err, &status, NULL));
  if (!g_spawn_check_wait_status (status, NULL))
    g_error ("%s failed: %s", cmd, err);
  g_assert_true (g_file_get_contents (out, &data, len, NULL));
  g_unlink (out);
  g_free (err);
  g_free (cmd);
  return (guint8 *) data;
}

static void
mean_colour (const guint8 * rgb, gsize n_pixels, double mean[RGB])
{
  double sum[RGB] = { 0 };
  gsize i;
  unsigned c;

  for (i = 0; i < n_pixels; i++)
    for (c = 0; c < RGB; c++)
      sum[c] += rgb[i * RGB + c];
  for (c = 0; c < RGB; c++)
    mean[c] = sum[c] / (double) n_pixels;
}

static void
test_jpeg (void)
{
  GPtrArray *images;
  GError *error = NULL;
  gchar *path, *out, *pipeline;
  simnpu_image *img;
  unsigned w = 0, h = 0, c;
  guint8 *ref;
  gsize ref_len, n;
  double mean[RGB], ref_mean[RGB];

  if (!need_data ())
    return;
  path = g_build_filename (data_dir, "face-api", "sample1.jpg", NULL);
  images = new_images ();
  g_assert_cmpint (simnpu_imageset_load (path, 1, 1, images, &error), ==, 1);
  g_assert_no_error (error);
  g_assert_cmpuint (images->len, ==, 1);
  img = images->pdata[0];
  g_assert_cmpstr (img->source, ==, path);

  jpeg_size (path, &w, &h);
  g_assert_cmpuint (img->width, ==, w);
  g_assert_cmpuint (img->height, ==, h);

  out = tmp_path ();
  pipeline = g_strdup_printf ("filesrc location=%s ! jpegdec ! "
      "videoconvert ! video/x-raw,format=RGB ! filesink location=%s", path,
      out);
  ref = reference_decode (pipeline, out, &ref_len);
  g_free (pipeline);
  g_free (out);
  n = (gsize) w *h;
  g_assert_cmpuint (ref_len, ==, n * RGB);
  mean_colour (img->rgb, n, mean);
  mean_colour (ref, n, ref_mean);
  for (c = 0; c < RGB; c++) {
    g_test_message ("mean colour channel %u: %.3f (reference %.3f)", c,
        mean[c], ref_mean[c]);
    g_assert_cmpfloat_with_epsilon (mean[c], ref_mean[c], 0.5);
    g_assert_cmpfloat_with_epsilon (mean[c], sample1_pil_mean[c], PIL_MEAN_TOL);
  }
  /* same libjpeg underneath: the pixels agree exactly */
  g_assert_true (memcmp (img->rgb, ref, n * RGB) == 0);

  g_free (ref);
  g_ptr_array_unref (images);
  g_free (path);
}

static void
test_video (void)
{
  GPtrArray *images;
  GError *error = NULL;
  gchar *path, *expect;
  simnpu_image *first, *last, *img;
  guint8 *ref;
  gsize ref_len, frame_bytes = (gsize) VTEST_WIDTH * VTEST_HEIGHT * RGB;
  unsigned i;

  if (!need_data ())
    return;
  path = g_build_filename (data_dir, "opencv", "vtest.avi", NULL);
  images = new_images ();
  g_assert_cmpint (simnpu_imageset_load (path, VTEST_FRAMES, VTEST_STRIDE,
          images, &error), ==, VTEST_FRAMES);
  g_assert_no_error (error);
  g_assert_cmpuint (images->len, ==, VTEST_FRAMES);
  for (i = 0; i < images->len; i++) {
    img = images->pdata[i];
    g_assert_cmpuint (img->width, ==, VTEST_WIDTH);
    g_assert_cmpuint (img->height, ==, VTEST_HEIGHT);
    expect = g_strdup_printf ("%s#%u", path, i * VTEST_STRIDE);
    g_assert_cmpstr (img->source, ==, expect);
    g_free (expect);
  }
  first = images->pdata[0];
  last = images->pdata[VTEST_FRAMES - 1];
  /* people walk: 40 frames later the picture has changed */
  g_assert_false (memcmp (first->rgb, last->rgb, frame_bytes) == 0);

  /* frames 0 and 40 from separate processes: the decoder outputs the
   * same frames in the same order. The last buffers identity lets through
   * before its EOS are not reliably written (their pixels, and how many
   * get written, vary from run to run with GStreamer 1.22), so a few more
   * frames are decoded, each to a file of its own, and all are removed. */
  for (i = 0; i < 2; i++) {
    unsigned index = i ? (VTEST_FRAMES - 1) * VTEST_STRIDE : 0;
    gchar *base = tmp_path (), *out = g_strdup_printf ("%s.%u", base, index);
    gchar *pipeline = g_strdup_printf ("filesrc location=%s ! decodebin ! "
        "videoconvert ! video/x-raw,format=RGB ! identity eos-after=%u ! "
        "multifilesink location=%s.%%d", path, index + VIDEO_SPARE_FRAMES,
        base);
    unsigned k;

    ref = reference_decode (pipeline, out, &ref_len);
    g_assert_cmpuint (ref_len, ==, frame_bytes);
    g_assert_true (memcmp ((i ? last : first)->rgb, ref, frame_bytes) == 0);
    g_free (ref);
    for (k = 0; k <= index + VIDEO_SPARE_FRAMES; k++) {
      gchar *f = g_strdup_printf ("%s.%u", base, k);
      g_unlink (f);
      g_free (f);
    }
    g_unlink (base);
    g_free (pipeline);
    g_free (out);
    g_free (base);
  }
  g_ptr_array_unref (images);
  g_free (path);
}

#define PNG_W 63
#define PNG_H 37
/* GStreamer's RGB rows are padded to 4 bytes */
#define GST_RGB_STRIDE(w) (((w) * RGB + 3) & ~3u)

/* A PNG written by pngenc from a test pattern, whose raw frame is written
 * by the same process: lossless, so the loaded pixels must equal it; an
 * odd width makes the decoder's rows padded, which the image's are not. */
static void
test_png (void)
{
  gchar *png = tmp_path (), *raw = tmp_path (), *pipeline;
  GPtrArray *images = new_images ();
  GError *error = NULL;
  simnpu_image *img;
  guint8 *ref;
  gsize ref_len;
  unsigned y;

  pipeline = g_strdup_printf ("videotestsrc num-buffers=1 pattern=smpte ! "
      "video/x-raw,format=RGB,width=%u,height=%u ! tee name=t "
      "t. ! queue ! pngenc ! filesink location=%s "
      "t. ! queue ! filesink location=%s", PNG_W, PNG_H, png, raw);
  ref = reference_decode (pipeline, raw, &ref_len);
  g_assert_cmpuint (ref_len, ==, (gsize) GST_RGB_STRIDE (PNG_W) * PNG_H);
  /* the name has no image extension: loaded as a one-frame "video" */
  g_assert_cmpint (simnpu_imageset_load (png, 1, 1, images, &error), ==, 1);
  g_assert_no_error (error);
  img = images->pdata[0];
  g_assert_cmpuint (img->width, ==, PNG_W);
  g_assert_cmpuint (img->height, ==, PNG_H);
  for (y = 0; y < PNG_H; y++)
    g_assert_true (memcmp (img->rgb + (gsize) y * PNG_W * RGB,
            ref + (gsize) y * GST_RGB_STRIDE (PNG_W), PNG_W * RGB) == 0);

  g_unlink (png);
  g_ptr_array_unref (images);
  g_free (ref);
  g_free (pipeline);
  g_free (raw);
  g_free (png);
}

/* A calibration video as the compiler reads it: every frame converted to
 * the model's input size as it is decoded. However many frames are taken,
 * one decoded picture at most is held at a time, and decoding stops at
 * the last frame taken. */
#define TENSOR_W 8
#define TENSOR_H 8
#define TENSOR_STRIDE 25
#define TENSOR_FEW 4

static void
test_video_tensors (void)
{
  GPtrArray *tensors = g_ptr_array_new_with_free_func (g_free);
  GPtrArray *images = new_images ();
  simnpu__preprocess pp = { 0 };
  simnpu_imageset_stats stats = { 0 };
  GError *error = NULL;
  gchar *path;
  gsize frame_bytes = (gsize) VTEST_WIDTH * VTEST_HEIGHT * RGB;
  float ref[TENSOR_W * TENSOR_H * RGB];
  const float *t;
  unsigned c, p;
  int n;

  if (!need_data ())
    goto out;
  path = g_build_filename (data_dir, "opencv", "vtest.avi", NULL);
  pp.color = SIMNPU_COLOR_RGB;
  pp.resize = SIMNPU_RESIZE_LETTERBOX;
  pp.fill = 114;
  pp.scale = 1.0f / 255.0f;
  for (c = 0; c < RGB; c++)
    pp.std[c] = 1.0f;

  /* as many frames as the video has (--max-frames 100000) */
  n = simnpu_imageset_load_tensors (path, 100000, TENSOR_STRIDE, &pp,
      TENSOR_W, TENSOR_H, RGB, TRUE, tensors, &stats, &error);
  g_assert_no_error (error);
  g_test_message ("%d tensors of %u frames; peak %" G_GSIZE_FORMAT
      " bytes of pictures held", n, stats.frames_read, stats.peak_image_bytes);
  g_assert_cmpuint (stats.frames_read, >, TENSOR_STRIDE * TENSOR_FEW);
  g_assert_cmpint (n, ==, (stats.frames_read + TENSOR_STRIDE - 1) /
      TENSOR_STRIDE);
  g_assert_cmpuint (tensors->len, ==, (guint) n);
  g_assert_cmpuint (stats.peak_image_bytes, ==, frame_bytes);

  /* tensor 1 is frame 25, planar (NCHW) */
  g_assert_cmpint (simnpu_imageset_load (path, 2, TENSOR_STRIDE, images,
          &error), ==, 2);
  g_assert_cmpint (simnpu_image_to_tensor (images->pdata[1], &pp, TENSOR_W,
          TENSOR_H, RGB, ref, NULL, NULL, NULL), ==, 0);
  t = tensors->pdata[1];
  for (p = 0; p < TENSOR_W * TENSOR_H; p++)
    for (c = 0; c < RGB; c++)
      g_assert_cmpfloat (t[c * TENSOR_W * TENSOR_H + p], ==, ref[p * RGB + c]);

  /* a few frames: decoding stops at the last one taken */
  n = simnpu_imageset_load_tensors (path, TENSOR_FEW, TENSOR_STRIDE, &pp,
      TENSOR_W, TENSOR_H, RGB, FALSE, tensors, &stats, &error);
  g_assert_no_error (error);
  g_assert_cmpint (n, ==, TENSOR_FEW);
  g_assert_cmpuint (stats.frames_read, ==, (TENSOR_FEW - 1) * TENSOR_STRIDE
      + 1);
  g_assert_cmpuint (stats.peak_image_bytes, ==, frame_bytes);
  g_free (path);
out:
  g_ptr_array_unref (images);
  g_ptr_array_unref (tensors);
}

/* Runs gst-launch-1.0 PIPELINE, which must succeed. */
static void
run_gst_launch (const char *pipeline)
{
  gchar *cmd = g_strdup_printf ("gst-launch-1.0 -q %s", pipeline);
  gchar *err = NULL;
  gint status;

  g_assert_true (g_spawn_command_line_sync (cmd, NULL, &err, &status, NULL));
  if (!g_spawn_check_wait_status (status, NULL))
    g_error ("%s failed: %s", cmd, err);
  g_free (err);
  g_free (cmd);
}

/* Decompression bombs are refused from their headers. A valid PNG of
 * 8193x8193 black grey pixels is 67 MB of pixels in a file of about
 * 70 kB, just above the limit of 8192x8192: a size whose full decoding
 * (what happened before the header was read, and the size was only
 * checked afterwards, with another message) takes a few hundred MB, not
 * the gigabytes of a 30000x30000 one, so this test stays cheap even where
 * the check is missing. And a JPEG header declaring 30000x30000 with no
 * image data, whose size GStreamer's type finder reads. */
#define BOMB_SIDE 8193
#define JPEG_BOMB_SIDE 30000

static void
check_refused (const char *path, unsigned w, unsigned h)
{
  GPtrArray *images = new_images ();
  GError *error = NULL;
  gchar *expect = g_strdup_printf ("%s: declares %ux%u pixels, more than "
      "the limit of %u (8192x8192); not decoded", path, w, h,
      SIMNPU_IMAGESET_MAX_PIXELS);

  g_assert_cmpint (simnpu_imageset_load (path, 1, 1, images, &error), ==, -1);
  g_assert_nonnull (error);
  g_test_message ("%s", error->message);
  g_assert_cmpstr (error->message, ==, expect);
  g_assert_error (error, SIMNPU_IMAGESET_ERROR,
      SIMNPU_IMAGESET_ERROR_TOO_LARGE);
  g_assert_cmpuint (images->len, ==, 0);
  g_clear_error (&error);
  g_free (expect);
  g_ptr_array_unref (images);
}

static void
test_bombs (void)
{
  gchar *dir = g_dir_make_tmp ("test-imageset-bomb-XXXXXX", NULL);
  gchar *png = g_build_filename (dir, "bomb.png", NULL);
  gchar *jpg = g_build_filename (dir, "bomb.jpg", NULL);
  gchar *pipeline = g_strdup_printf ("videotestsrc num-buffers=1 "
      "pattern=black ! video/x-raw,format=GRAY8,width=%u,height=%u ! "
      "pngenc compression-level=9 ! filesink location=%s", BOMB_SIDE,
      BOMB_SIDE, png);
  /* SOI, SOF0 (8 bits, height, width, one component), EOI */
  const guint8 jpeg[] = { 0xff, JPEG_SOI, 0xff, JPEG_SOF0, 0x00, 0x0b, 0x08,
    JPEG_BOMB_SIDE >> 8, JPEG_BOMB_SIDE & 0xff,
    JPEG_BOMB_SIDE >> 8, JPEG_BOMB_SIDE & 0xff, 0x01, 0x01, 0x11, 0x00,
    0xff, 0xd9
  };
  GStatBuf st;

  run_gst_launch (pipeline);
  g_assert_cmpint (g_stat (png, &st), ==, 0);
  g_test_message ("%s: %" G_GINT64_FORMAT " bytes", png, (gint64) st.st_size);
  check_refused (png, BOMB_SIDE, BOMB_SIDE);
  g_assert_true (g_file_set_contents (jpg, (const gchar *) jpeg,
          sizeof (jpeg), NULL));
  check_refused (jpg, JPEG_BOMB_SIDE, JPEG_BOMB_SIDE);

  g_unlink (png);
  g_unlink (jpg);
  g_rmdir (dir);
  g_free (pipeline);
  g_free (jpg);
  g_free (png);
  g_free (dir);
}

static void
copy_file (const char *from, const char *to)
{
  gchar *data;
  gsize len;

  g_assert_true (g_file_get_contents (from, &data, &len, NULL));
  g_assert_true (g_file_set_contents (to, data, len, NULL));
  g_free (data);
}

static void
test_dir_and_errors (void)
{
  gchar *tmp, *a, *b, *txt, *bad, *s1, *s2, *missing, *empty;
  GPtrArray *images;
  GError *error = NULL;
  unsigned w1, h1, w2, h2;

  if (!need_data ())
    return;
  tmp = g_dir_make_tmp ("test-imageset-XXXXXX", NULL);
  g_assert_nonnull (tmp);
  s1 = g_build_filename (data_dir, "face-api", "sample1.jpg", NULL);
  s2 = g_build_filename (data_dir, "face-api", "sample2.jpg", NULL);
  jpeg_size (s1, &w1, &h1);
  jpeg_size (s2, &w2, &h2);
  g_assert_false (w1 == w2 && h1 == h2);
  /* names out of creation order; one upper-case extension; a non-image */
  b = g_build_filename (tmp, "b.jpg", NULL);
  a = g_build_filename (tmp, "a.JPG", NULL);
  txt = g_build_filename (tmp, "notes.txt", NULL);
  copy_file (s1, b);
  copy_file (s2, a);
  g_assert_true (g_file_set_contents (txt, "not an image", -1, NULL));

  images = new_images ();
  g_assert_cmpint (simnpu_imageset_load (tmp, 1, 1, images, &error), ==, 2);
  g_assert_no_error (error);
  g_assert_cmpstr (((simnpu_image *) images->pdata[0])->source, ==, a);
  g_assert_cmpuint (((simnpu_image *) images->pdata[0])->width, ==, w2);
  g_assert_cmpuint (((simnpu_image *) images->pdata[1])->width, ==, w1);
  g_assert_cmpuint (((simnpu_image *) images->pdata[1])->height, ==, h1);

  /* an undecodable image fails the whole directory, naming the file, and
   * leaves the array as it was */
  bad = g_build_filename (tmp, "c.png", NULL);
  g_assert_true (g_file_set_contents (bad, "this is no PNG", -1, NULL));
  g_assert_cmpint (simnpu_imageset_load (tmp, 1, 1, images, &error), ==, -1);
  g_assert_error (error, SIMNPU_IMAGESET_ERROR, SIMNPU_IMAGESET_ERROR_DECODE);
  g_assert_nonnull (strstr (error->message, bad));
  g_test_message ("%s", error->message);
  g_clear_error (&error);
  g_assert_cmpuint (images->len, ==, 2);

  missing = g_build_filename (tmp, "missing.jpg", NULL);
  g_assert_cmpint (simnpu_imageset_load (missing, 1, 1, images, &error), ==,
      -1);
  g_assert_error (error, SIMNPU_IMAGESET_ERROR,
      SIMNPU_IMAGESET_ERROR_NOT_FOUND);
  g_assert_nonnull (strstr (error->message, missing));
  g_clear_error (&error);

  /* a non-image file that is no video either */
  g_assert_cmpint (simnpu_imageset_load (txt, 1, 1, images, &error), ==, -1);
  g_assert_error (error, SIMNPU_IMAGESET_ERROR, SIMNPU_IMAGESET_ERROR_DECODE);
  g_assert_nonnull (strstr (error->message, txt));
  g_clear_error (&error);

  empty = g_build_filename (tmp, "empty", NULL);
  g_assert_cmpint (g_mkdir (empty, 0700), ==, 0);
  g_assert_cmpint (simnpu_imageset_load (empty, 1, 1, images, &error), ==, -1);
  g_assert_error (error, SIMNPU_IMAGESET_ERROR, SIMNPU_IMAGESET_ERROR_EMPTY);
  g_assert_nonnull (strstr (error->message, empty));
  g_clear_error (&error);

  g_assert_cmpint (simnpu_imageset_load (s1, 1, 0, images, &error), ==, -1);
  g_assert_error (error, SIMNPU_IMAGESET_ERROR, SIMNPU_IMAGESET_ERROR_INVALID);
  g_clear_error (&error);
  g_assert_cmpuint (images->len, ==, 2);

  g_rmdir (empty);
  g_unlink (a);
  g_unlink (b);
  g_unlink (bad);
  g_unlink (txt);
  g_rmdir (tmp);
  g_ptr_array_unref (images);
  g_free (empty);
  g_free (missing);
  g_free (bad);
  g_free (txt);
  g_free (a);
  g_free (b);
  g_free (s1);
  g_free (s2);
  g_free (tmp);
}

/* A synthetic image, every pixel the same colour. */
static simnpu_image *
solid_image (unsigned w, unsigned h, guint8 r, guint8 g, guint8 b)
{
  simnpu_image *img = g_new0 (simnpu_image, 1);
  gsize i;

  img->source = g_strdup ("solid");
  img->width = w;
  img->height = h;
  img->rgb = g_malloc ((gsize) w * h * RGB);
  for (i = 0; i < (gsize) w * h; i++) {
    img->rgb[i * RGB] = r;
    img->rgb[i * RGB + 1] = g;
    img->rgb[i * RGB + 2] = b;
  }
  return img;
}

static simnpu__preprocess
identity_pp (simnpu__color_order color, simnpu__resize_kind resize, guint8 fill)
{
  simnpu__preprocess pp = { 0 };
  unsigned c;

  pp.color = color;
  pp.resize = resize;
  pp.fill = fill;
  pp.scale = 1.0f;
  for (c = 0; c < RGB; c++)
    pp.std[c] = 1.0f;
  return pp;
}

#define LB_SRC_W 200
#define LB_SRC_H 100
#define LB_DST 64
#define LB_PAD 16
#define LB_FILL 114

static void
test_letterbox (void)
{
  simnpu_image *img = solid_image (LB_SRC_W, LB_SRC_H, 10, 20, 30);
  simnpu__preprocess pp = identity_pp (SIMNPU_COLOR_RGB,
      SIMNPU_RESIZE_LETTERBOX, LB_FILL);
  float *t = g_new (float, LB_DST * LB_DST * RGB), scale = 0;
  int pad_x = -1, pad_y = -1;
  unsigned x, y, c;
  const float colour[RGB] = { 10, 20, 30 };

  pp.scale = 1.0f / 255.0f;
  pp.mean[0] = 0.5f;
  pp.mean[1] = 0.25f;
  pp.mean[2] = 0.0f;
  pp.std[0] = 0.5f;
  pp.std[1] = 2.0f;
  pp.std[2] = 1.0f;
  g_assert_cmpint (simnpu_image_to_tensor (img, &pp, LB_DST, LB_DST, RGB, t,
          &scale, &pad_x, &pad_y), ==, 0);
  g_assert_cmpfloat_with_epsilon (scale, (float) LB_DST / LB_SRC_W, FLOAT_TOL);
  g_assert_cmpint (pad_x, ==, 0);
  g_assert_cmpint (pad_y, ==, LB_PAD);
  for (y = 0; y < LB_DST; y++) {
    gboolean pad = y < LB_PAD || y >= LB_DST - LB_PAD;
    for (x = 0; x < LB_DST; x++)
      for (c = 0; c < RGB; c++) {
        float v = pad ? LB_FILL : colour[c];
        float want = (v * pp.scale - pp.mean[c]) / pp.std[c];
        g_assert_cmpfloat_with_epsilon (t[(y * LB_DST + x) * RGB + c], want,
            FLOAT_TOL);
      }
  }

  /* portrait: the padding goes left and right */
  simnpu_image_free (img);
  img = solid_image (LB_SRC_H, LB_SRC_W, 10, 20, 30);
  pp = identity_pp (SIMNPU_COLOR_RGB, SIMNPU_RESIZE_LETTERBOX, LB_FILL);
  g_assert_cmpint (simnpu_image_to_tensor (img, &pp, LB_DST, LB_DST, RGB, t,
          NULL, &pad_x, &pad_y), ==, 0);
  g_assert_cmpint (pad_x, ==, LB_PAD);
  g_assert_cmpint (pad_y, ==, 0);
  g_assert_cmpfloat (t[(5 * LB_DST + LB_PAD - 1) * RGB], ==, LB_FILL);
  g_assert_cmpfloat (t[(5 * LB_DST + LB_PAD) * RGB], ==, 10.0f);
  g_assert_cmpfloat (t[(5 * LB_DST + LB_DST - LB_PAD - 1) * RGB], ==, 10.0f);
  g_assert_cmpfloat (t[(5 * LB_DST + LB_DST - LB_PAD) * RGB], ==, LB_FILL);

  g_free (t);
  simnpu_image_free (img);
}

static void
test_bilinear (void)
{
  /* 2x2: left column 0, right column 100 (red); green 0 top, 200 bottom */
  simnpu_image *img = solid_image (2, 2, 0, 0, 7);
  simnpu__preprocess pp = identity_pp (SIMNPU_COLOR_RGB,
      SIMNPU_RESIZE_STRETCH, 0);
  float t[4 * 4 * RGB], scale;
  /* half-pixel centres, 2 -> 4: x = 0, 1, 2, 3 sample at -0.25 (clamped
   * to 0), 0.25, 0.75, 1.25 (clamped to 1) */
  const float want_x[4] = { 0.0f, 25.0f, 75.0f, 100.0f };
  const float want_y[4] = { 0.0f, 50.0f, 150.0f, 200.0f };
  unsigned x, y;

  img->rgb[(0 * 2 + 1) * RGB] = 100;
  img->rgb[(1 * 2 + 1) * RGB] = 100;
  img->rgb[(1 * 2 + 0) * RGB + 1] = 200;
  img->rgb[(1 * 2 + 1) * RGB + 1] = 200;
  g_assert_cmpint (simnpu_image_to_tensor (img, &pp, 4, 4, RGB, t, &scale,
          NULL, NULL), ==, 0);
  g_assert_cmpfloat_with_epsilon (scale, 2.0f, FLOAT_TOL);
  for (y = 0; y < 4; y++)
    for (x = 0; x < 4; x++) {
      g_assert_cmpfloat_with_epsilon (t[(y * 4 + x) * RGB], want_x[x],
          FLOAT_TOL);
      g_assert_cmpfloat_with_epsilon (t[(y * 4 + x) * RGB + 1], want_y[y],
          FLOAT_TOL);
      g_assert_cmpfloat_with_epsilon (t[(y * 4 + x) * RGB + 2], 7.0f,
          FLOAT_TOL);
    }
  simnpu_image_free (img);
}

static void
test_colour_orders (void)
{
  simnpu_image *img = solid_image (3, 3, 100, 150, 200);
  simnpu__preprocess pp = identity_pp (SIMNPU_COLOR_BGR,
      SIMNPU_RESIZE_STRETCH, 0);
  float t[3 * 3 * RGB], g[3 * 3];
  unsigned i;

  g_assert_cmpint (simnpu_image_to_tensor (img, &pp, 3, 3, RGB, t, NULL,
          NULL, NULL), ==, 0);
  g_assert_cmpfloat (t[0], ==, 200.0f);
  g_assert_cmpfloat (t[1], ==, 150.0f);
  g_assert_cmpfloat (t[2], ==, 100.0f);

  pp = identity_pp (SIMNPU_COLOR_GRAY, SIMNPU_RESIZE_LETTERBOX, 0);
  pp.scale = 1.0f / 255.0f;
  pp.mean[0] = 0.5f;
  pp.std[0] = 0.25f;
  g_assert_cmpint (simnpu_image_to_tensor (img, &pp, 3, 3, 1, g, NULL, NULL,
          NULL), ==, 0);
  /* 0.299 * 100 + 0.587 * 150 + 0.114 * 200 = 140.75 */
  for (i = 0; i < 9; i++)
    g_assert_cmpfloat_with_epsilon (g[i], (140.75f / 255.0f - 0.5f) / 0.25f,
        FLOAT_TOL);

  /* the channel count must match the colour order; bad std refused */
  g_assert_cmpint (simnpu_image_to_tensor (img, &pp, 3, 3, RGB, t, NULL,
          NULL, NULL), ==, SIMNPU_EINVAL);
  pp.color = SIMNPU_COLOR_RGB;
  g_assert_cmpint (simnpu_image_to_tensor (img, &pp, 3, 3, 1, g, NULL, NULL,
          NULL), ==, SIMNPU_EINVAL);
  pp.std[1] = 0.0f;
  g_assert_cmpint (simnpu_image_to_tensor (img, &pp, 3, 3, RGB, t, NULL,
          NULL, NULL), ==, SIMNPU_EINVAL);
  pp.std[1] = 1.0f;
  g_assert_cmpint (simnpu_image_to_tensor (img, &pp, 0, 3, RGB, t, NULL,
          NULL, NULL), ==, SIMNPU_EINVAL);
  simnpu_image_free (img);
}

/* The error domain's name, as GError prints it: gst-indent once spaced
 * it out ("simnpu - imageset - error - quark") */
static void
test_error_domain_name (void)
{
  g_assert_cmpstr (g_quark_to_string (SIMNPU_IMAGESET_ERROR), ==,
      "simnpu-imageset-error-quark");
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  data_dir = g_getenv ("GST_AX_DATA_DIR");
  if (data_dir != NULL && *data_dir == '\0')
    data_dir = NULL;

  g_test_add_func ("/imageset/jpeg", test_jpeg);
  g_test_add_func ("/imageset/video", test_video);
  g_test_add_func ("/imageset/video-tensors", test_video_tensors);
  g_test_add_func ("/imageset/png", test_png);
  g_test_add_func ("/imageset/bombs", test_bombs);
  g_test_add_func ("/imageset/dir-and-errors", test_dir_and_errors);
  g_test_add_func ("/imageset/letterbox", test_letterbox);
  g_test_add_func ("/imageset/bilinear", test_bilinear);
  g_test_add_func ("/imageset/colour-orders", test_colour_orders);
  g_test_add_func ("/imageset/error-domain-name", test_error_domain_name);
  return g_test_run ();
}
