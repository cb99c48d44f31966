/* gst-ax
 * Copyright (C) 2026 gst-ax developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

/* Decoding of calibration and test images with GStreamer, and their
 * preprocessing into float model inputs (see imageset.h). */

#include "imageset.h"
#include "simnpu-file.h"

#include <glib/gstdio.h>
#include <gst/app/gstappsink.h>
#include <gst/gst.h>
#include <gst/video/video.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#define RGB_BYTES 3
/* the PNG signature and the IHDR chunk that must follow it (ISO/IEC 15948
 * 5.2, 11.2.2): length, "IHDR", then width and height, big-endian */
#define PNG_SIGNATURE_BYTES 8
#define PNG_IHDR_TYPE_OFFSET 12
#define PNG_IHDR_WIDTH_OFFSET 16
#define PNG_IHDR_HEIGHT_OFFSET 20
#define PNG_HEADER_BYTES 24
/* how often the bus is looked at while waiting for a frame */
#define POLL_INTERVAL_MS 100
/* ITU-R BT.601 luma weights */
#define LUMA_R 0.299f
#define LUMA_G 0.587f
#define LUMA_B 0.114f

/* G_DEFINE_QUARK's first argument is the name itself, not a string:
 * gst-indent would read it as a subtraction and space it out */
/* *INDENT-OFF* */
G_DEFINE_QUARK (simnpu-imageset-error-quark, simnpu_imageset_error);
/* *INDENT-ON* */

/* the error messages spell the limit out */
G_STATIC_ASSERT (SIMNPU_IMAGESET_MAX_PIXELS == 8192u * 8192u);

void
simnpu_image_free (simnpu_image * image)
{
  if (image == NULL)
    return;
  g_free (image->source);
  g_free (image->rgb);
  g_free (image);
}

static gboolean
is_image_name (const char *name)
{
  static const char *const exts[] = { ".jpg", ".jpeg", ".png" };
  gsize len = strlen (name);
  unsigned i;

  for (i = 0; i < G_N_ELEMENTS (exts); i++) {
    gsize n = strlen (exts[i]);
    if (len > n && g_ascii_strcasecmp (name + len - n, exts[i]) == 0)
      return TRUE;
  }
  return FALSE;
}

static gboolean
too_many_pixels (guint64 width, guint64 height)
{
  return width * height > SIMNPU_IMAGESET_MAX_PIXELS;
}

static void
set_too_large (GError ** error, const char *path, guint64 width, guint64 height)
{
  g_set_error (error, SIMNPU_IMAGESET_ERROR, SIMNPU_IMAGESET_ERROR_TOO_LARGE,
      "%s: declares %" G_GUINT64_FORMAT "x%" G_GUINT64_FORMAT " pixels, "
      "more than the limit of %u (8192x8192); not decoded", path, width,
      height, SIMNPU_IMAGESET_MAX_PIXELS);
}

/* The size in the header of a PNG file, read without decoding anything;
 * FALSE if PATH is no PNG (or too short to be one). */
static gboolean
png_declared_size (const char *path, guint32 * width, guint32 * height)
{
  static const guint8 signature[PNG_SIGNATURE_BYTES] = {
    0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'
  };
  guint8 head[PNG_HEADER_BYTES];
  FILE *f = g_fopen (path, "rb");
  size_t n;

  if (f == NULL)
    return FALSE;
  n = fread (head, 1, sizeof (head), f);
  fclose (f);
  if (n < sizeof (head) || memcmp (head, signature, sizeof (signature)) != 0
      || memcmp (head + PNG_IHDR_TYPE_OFFSET, "IHDR", 4) != 0)
    return FALSE;
  *width = GST_READ_UINT32_BE (head + PNG_IHDR_WIDTH_OFFSET);
  *height = GST_READ_UINT32_BE (head + PNG_IHDR_HEIGHT_OFFSET);
  return TRUE;
}

/* Video frames into an appsink, pulled one by one; a decodebin pad that
 * is not video (audio, subtitles) is left unlinked. */
typedef struct
{
  GstElement *pipeline;
  GstElement *convert;
  GstAppSink *sink;
  GstBus *bus;
  /* set from a streaming thread: a stream declared too many pixels */
  GMutex lock;
  gboolean too_large;
  guint64 declared_width, declared_height;
} decoder;

/* decodebin asks before it looks for an element to handle each stream it
 * finds (typefind's, a demuxer's or parser's output): a stream whose caps
 * declare too many pixels (a JPEG's header, a video's track) goes no
 * further, so no decoder is ever plugged for it. */
static gboolean
on_autoplug_continue (GstElement * decodebin, GstPad * pad, GstCaps * caps,
    gpointer user_data)
{
  decoder *d = user_data;
  guint i;

  for (i = 0; i < gst_caps_get_size (caps); i++) {
    const GstStructure *st = gst_caps_get_structure (caps, i);
    gint w, h;
    if (gst_structure_get_int (st, "width", &w)
        && gst_structure_get_int (st, "height", &h) && w > 0 && h > 0
        && too_many_pixels ((guint64) w, (guint64) h)) {
      g_mutex_lock (&d->lock);
      if (!d->too_large) {
        d->too_large = TRUE;
        d->declared_width = (guint64) w;
        d->declared_height = (guint64) h;
      }
      g_mutex_unlock (&d->lock);
      return FALSE;
    }
  }
  return TRUE;
}

/* Whether a stream declared too many pixels (ERROR set then). */
static gboolean
decoder_too_large (decoder * d, const char *path, GError ** error)
{
  gboolean hit;
  guint64 w, h;

  g_mutex_lock (&d->lock);
  hit = d->too_large;
  w = d->declared_width;
  h = d->declared_height;
  g_mutex_unlock (&d->lock);
  if (hit)
    set_too_large (error, path, w, h);
  return hit;
}

static void
on_pad_added (GstElement * decodebin, GstPad * pad, gpointer user_data)
{
  decoder *d = user_data;
  GstCaps *caps = gst_pad_get_current_caps (pad);
  GstPad *sinkpad;
  const char *media;

  if (caps == NULL)
    caps = gst_pad_query_caps (pad, NULL);
  media = gst_structure_get_name (gst_caps_get_structure (caps, 0));
  if (g_str_has_prefix (media, "video/")) {
    sinkpad = gst_element_get_static_pad (d->convert, "sink");
    if (!gst_pad_is_linked (sinkpad))
      gst_pad_link (pad, sinkpad);
    gst_object_unref (sinkpad);
  }
  gst_caps_unref (caps);
}

static void
decoder_clear (decoder * d)
{
  if (d->pipeline != NULL) {
    gst_element_set_state (d->pipeline, GST_STATE_NULL);
    gst_object_unref (d->pipeline);
  }
  if (d->bus != NULL)
    gst_object_unref (d->bus);
  /* no streaming thread is left to take the lock */
  g_mutex_clear (&d->lock);
  memset (d, 0, sizeof (*d));
}

static GstElement *
make_element (const char *factory, const char *path, GError ** error)
{
  GstElement *e = gst_element_factory_make (factory, NULL);

  if (e == NULL)
    g_set_error (error, SIMNPU_IMAGESET_ERROR, SIMNPU_IMAGESET_ERROR_DECODE,
        "%s: the GStreamer element '%s' is missing (install "
        "gstreamer1.0-plugins-base/-good/-libav)", path, factory);
  return e;
}

static gboolean
decoder_open (decoder * d, const char *path, GError ** error)
{
  GstElement *src, *decodebin, *filter;
  GstCaps *caps;

  memset (d, 0, sizeof (*d));
  g_mutex_init (&d->lock);
  d->pipeline = gst_pipeline_new (NULL);
  if (!(src = make_element ("filesrc", path, error)))
    goto fail;
  gst_bin_add (GST_BIN (d->pipeline), src);
  if (!(decodebin = make_element ("decodebin", path, error)))
    goto fail;
  gst_bin_add (GST_BIN (d->pipeline), decodebin);
  if (!(d->convert = make_element ("videoconvert", path, error)))
    goto fail;
  gst_bin_add (GST_BIN (d->pipeline), d->convert);
  if (!(filter = make_element ("capsfilter", path, error)))
    goto fail;
  gst_bin_add (GST_BIN (d->pipeline), filter);
  {
    GstElement *sink = make_element ("appsink", path, error);
    if (sink == NULL)
      goto fail;
    gst_bin_add (GST_BIN (d->pipeline), sink);
    d->sink = GST_APP_SINK (sink);
  }

  g_object_set (src, "location", path, NULL);
  caps = gst_caps_new_simple ("video/x-raw", "format", G_TYPE_STRING, "RGB",
      NULL);
  g_object_set (filter, "caps", caps, NULL);
  gst_caps_unref (caps);
  /* as fast as decoding goes, and the decoder waits for us rather than
   * queueing a whole video */
  g_object_set (d->sink, "sync", FALSE, "max-buffers", 2, "drop", FALSE, NULL);
  if (!gst_element_link (src, decodebin)
      || !gst_element_link_many (d->convert, filter, GST_ELEMENT (d->sink),
          NULL)) {
    g_set_error (error, SIMNPU_IMAGESET_ERROR, SIMNPU_IMAGESET_ERROR_DECODE,
        "%s: cannot link the decoding pipeline", path);
    goto fail;
  }
  g_signal_connect (decodebin, "pad-added", G_CALLBACK (on_pad_added), d);
  g_signal_connect (decodebin, "autoplug-continue",
      G_CALLBACK (on_autoplug_continue), d);
  d->bus = gst_element_get_bus (d->pipeline);
  /* a failed state change posts the reason on the bus, read below */
  gst_element_set_state (d->pipeline, GST_STATE_PLAYING);
  return TRUE;

fail:
  decoder_clear (d);
  return FALSE;
}

/* The first error on the bus, as a GError naming PATH; FALSE if none. */
static gboolean
decoder_bus_error (decoder * d, const char *path, GError ** error)
{
  GstMessage *msg = gst_bus_pop_filtered (d->bus, GST_MESSAGE_ERROR);
  GError *gerr = NULL;
  gchar *dbg = NULL;

  if (msg == NULL)
    return FALSE;
  gst_message_parse_error (msg, &gerr, &dbg);
  g_set_error (error, SIMNPU_IMAGESET_ERROR, SIMNPU_IMAGESET_ERROR_DECODE,
      "%s: cannot decode: %s (%s: %s)", path, gerr->message,
      GST_OBJECT_NAME (GST_MESSAGE_SRC (msg)), dbg ? dbg : "no details");
  g_error_free (gerr);
  g_free (dbg);
  gst_message_unref (msg);
  return TRUE;
}

/* The next decoded frame, NULL at the end of the stream (*error unset) or
 * on an error (*error set). */
static GstSample *
decoder_pull (decoder * d, const char *path, GError ** error)
{
  guint waited_ms = 0;

  for (;;) {
    GstSample *sample = gst_app_sink_try_pull_sample (d->sink,
        POLL_INTERVAL_MS * GST_MSECOND);
    GError *bus_error = NULL;
    gboolean failed, eos;

    if (sample != NULL)
      return sample;
    failed = decoder_bus_error (d, path, &bus_error);
    eos = !failed && gst_app_sink_is_eos (d->sink);
    /* a stream refused for its size ends in a not-linked error or an
     * early EOS; its flag is set before either, so it is seen here */
    if (decoder_too_large (d, path, error)) {
      g_clear_error (&bus_error);
      return NULL;
    }
    if (failed) {
      g_propagate_error (error, bus_error);
      return NULL;
    }
    if (eos)
      return NULL;
    waited_ms += POLL_INTERVAL_MS;
    if (waited_ms >= SIMNPU_IMAGESET_STALL_TIMEOUT_MS) {
      g_set_error (error, SIMNPU_IMAGESET_ERROR,
          SIMNPU_IMAGESET_ERROR_DECODE,
          "%s: decoding made no progress for %u ms", path,
          SIMNPU_IMAGESET_STALL_TIMEOUT_MS);
      return NULL;
    }
  }
}

static simnpu_image *
image_from_sample (GstSample * sample, const char *source, GError ** error)
{
  GstVideoInfo info;
  GstVideoFrame frame;
  GstCaps *caps = gst_sample_get_caps (sample);
  GstBuffer *buffer = gst_sample_get_buffer (sample);
  simnpu_image *image;
  unsigned y;

  if (caps == NULL || buffer == NULL || !gst_video_info_from_caps (&info,
          caps) || GST_VIDEO_INFO_FORMAT (&info) != GST_VIDEO_FORMAT_RGB) {
    g_set_error (error, SIMNPU_IMAGESET_ERROR, SIMNPU_IMAGESET_ERROR_DECODE,
        "%s: the decoder gave no RGB video frame", source);
    return NULL;
  }
  if (GST_VIDEO_INFO_WIDTH (&info) <= 0 || GST_VIDEO_INFO_HEIGHT (&info) <= 0
      || (guint64) GST_VIDEO_INFO_WIDTH (&info) * GST_VIDEO_INFO_HEIGHT (&info)
      > SIMNPU_IMAGESET_MAX_PIXELS) {
    g_set_error (error, SIMNPU_IMAGESET_ERROR,
        SIMNPU_IMAGESET_ERROR_TOO_LARGE,
        "%s: %dx%d pixels; expected 1 to %u pixels", source,
        GST_VIDEO_INFO_WIDTH (&info), GST_VIDEO_INFO_HEIGHT (&info),
        SIMNPU_IMAGESET_MAX_PIXELS);
    return NULL;
  }
  if (!gst_video_frame_map (&frame, &info, buffer, GST_MAP_READ)) {
    g_set_error (error, SIMNPU_IMAGESET_ERROR, SIMNPU_IMAGESET_ERROR_DECODE,
        "%s: cannot map the decoded frame", source);
    return NULL;
  }
  image = g_new0 (simnpu_image, 1);
  image->source = g_strdup (source);
  image->width = GST_VIDEO_INFO_WIDTH (&info);
  image->height = GST_VIDEO_INFO_HEIGHT (&info);
  image->rgb = g_malloc ((gsize) image->width * image->height * RGB_BYTES);
  for (y = 0; y < image->height; y++) {
    const guint8 *row = (const guint8 *) GST_VIDEO_FRAME_PLANE_DATA (&frame,
        0) + (gsize) y * GST_VIDEO_FRAME_PLANE_STRIDE (&frame, 0);
    memcpy (image->rgb + (gsize) y * image->width * RGB_BYTES, row,
        (gsize) image->width * RGB_BYTES);
  }
  gst_video_frame_unmap (&frame);
  return image;
}

/* Where decoded pictures go: kept (simnpu_imageset_load), or each made
 * into a tensor and freed at once (simnpu_imageset_load_tensors). */
typedef struct
{
  GPtrArray *images;            /* keeps the pictures, or NULL */
  /* else: the tensors and their geometry */
  GPtrArray *tensors;
  const simnpu__preprocess *pp;
  unsigned w, h, ch;
  gboolean nchw;
  gsize held_bytes;             /* of the pictures made and not freed */
  simnpu_imageset_stats stats;
} image_sink;

/* Takes IMAGE (decoded from SOURCE) into S. */
static gboolean
sink_take (image_sink * s, simnpu_image * image, GError ** error)
{
  gsize bytes = (gsize) image->width * image->height * RGB_BYTES;
  gsize n = (gsize) s->w * s->h * s->ch, k;
  float *tensor;

  s->held_bytes += bytes;
  s->stats.peak_image_bytes = MAX (s->stats.peak_image_bytes, s->held_bytes);
  if (s->images != NULL) {
    g_ptr_array_add (s->images, image);
    return TRUE;
  }
  tensor = g_new (float, n);
  if (simnpu_image_to_tensor (image, s->pp, s->w, s->h, s->ch, tensor, NULL,
          NULL, NULL) < 0) {
    g_set_error (error, SIMNPU_IMAGESET_ERROR, SIMNPU_IMAGESET_ERROR_INVALID,
        "%s: cannot make a %ux%u tensor of %u channel%s of it with this "
        "preprocessing", image->source, s->w, s->h, s->ch,
        s->ch == 1 ? "" : "s");
    g_free (tensor);
    simnpu_image_free (image);
    s->held_bytes -= bytes;
    return FALSE;
  }
  simnpu_image_free (image);
  s->held_bytes -= bytes;
  if (s->nchw) {
    float *planar = g_new (float, n);
    for (k = 0; k < n; k++)
      planar[(k % s->ch) * s->h * s->w + k / s->ch] = tensor[k];
    g_free (tensor);
    tensor = planar;
  }
  g_ptr_array_add (s->tensors, tensor);
  return TRUE;
}

/* Decodes frames 0, STRIDE, 2 * STRIDE, ... of PATH, at most MAX_FRAMES,
 * into OUT (a still image is a one-frame stream). */
static gboolean
decode_file (const char *path, gboolean is_video, unsigned max_frames,
    unsigned stride, image_sink * out, GError ** error)
{
  decoder d;
  unsigned index = 0, taken = 0;
  guint32 png_w, png_h;
  GError *err = NULL;
  /* filesrc would wait on a FIFO for a writer and read a device without
   * end: a regular file only */
  int fd = simnpu__file_open (path, is_video ? "video" : "image", &err);

  if (fd < 0) {
    g_set_error (error, SIMNPU_IMAGESET_ERROR,
        SIMNPU_IMAGESET_ERROR_NOT_FOUND, "%s", err->message);
    g_error_free (err);
    return FALSE;
  }
  close (fd);
  /* GStreamer finds no size in a PNG before decoding it (there is no PNG
   * parser in plugins-base or -good): its header is read here */
  if (png_declared_size (path, &png_w, &png_h)
      && too_many_pixels (png_w, png_h)) {
    set_too_large (error, path, png_w, png_h);
    return FALSE;
  }
  if (!decoder_open (&d, path, error))
    return FALSE;
  while (taken < max_frames) {
    GstSample *sample = decoder_pull (&d, path, &err);
    if (sample == NULL)
      break;
    out->stats.frames_read++;
    if (index % stride == 0) {
      gchar *source = is_video ? g_strdup_printf ("%s#%u", path, index)
          : g_strdup (path);
      simnpu_image *image = image_from_sample (sample, source, &err);
      g_free (source);
      if (image == NULL || !sink_take (out, image, &err)) {
        gst_sample_unref (sample);
        break;
      }
      taken++;
    }
    gst_sample_unref (sample);
    index++;
  }
  if (err == NULL && taken == 0)
    g_set_error (&err, SIMNPU_IMAGESET_ERROR, SIMNPU_IMAGESET_ERROR_EMPTY,
        "%s: no video frames decoded", path);
  decoder_clear (&d);
  if (err != NULL) {
    g_propagate_error (error, err);
    return FALSE;
  }
  return TRUE;
}

static gint
compare_names (gconstpointer a, gconstpointer b)
{
  return strcmp (*(const char *const *) a, *(const char *const *) b);
}

static gboolean
load_dir (const char *dir_path, image_sink * out, GError ** error)
{
  GError *gerr = NULL;
  GDir *dir = g_dir_open (dir_path, 0, &gerr);
  GPtrArray *names;
  const char *name;
  gboolean ok = TRUE;
  unsigned i;

  if (dir == NULL) {
    g_set_error (error, SIMNPU_IMAGESET_ERROR,
        SIMNPU_IMAGESET_ERROR_NOT_FOUND, "%s: cannot read the directory: %s",
        dir_path, gerr->message);
    g_error_free (gerr);
    return FALSE;
  }
  names = g_ptr_array_new_with_free_func (g_free);
  while ((name = g_dir_read_name (dir)) != NULL) {
    gchar *path = g_build_filename (dir_path, name, NULL);
    if (is_image_name (name) && g_file_test (path, G_FILE_TEST_IS_REGULAR))
      g_ptr_array_add (names, g_strdup (name));
    g_free (path);
  }
  g_dir_close (dir);
  if (names->len == 0) {
    g_set_error (error, SIMNPU_IMAGESET_ERROR, SIMNPU_IMAGESET_ERROR_EMPTY,
        "%s: no .jpg, .jpeg or .png files in the directory", dir_path);
    g_ptr_array_free (names, TRUE);
    return FALSE;
  }
  g_ptr_array_sort (names, compare_names);
  for (i = 0; i < names->len && ok; i++) {
    gchar *path = g_build_filename (dir_path, names->pdata[i], NULL);
    ok = decode_file (path, FALSE, 1, 1, out, error);
    g_free (path);
  }
  g_ptr_array_free (names, TRUE);
  return ok;
}

/* simnpu_imageset_load() and simnpu_imageset_load_tensors(): whatever
 * PATH_OR_DIR names into OUT, whose array (OUT->images or OUT->tensors)
 * is left as it was on error. */
static int
load_into (const char *path_or_dir, unsigned max_video_frames,
    unsigned video_stride, image_sink * out, GError ** error)
{
  GPtrArray *array = out->images ? out->images : out->tensors;
  guint before;
  gboolean ok;

  g_return_val_if_fail (error == NULL || *error == NULL, -1);
  if (path_or_dir == NULL || array == NULL || max_video_frames == 0
      || video_stride == 0) {
    g_set_error (error, SIMNPU_IMAGESET_ERROR, SIMNPU_IMAGESET_ERROR_INVALID,
        "%s: expected a path, an output array, and a video frame count "
        "and stride of at least 1", path_or_dir ? path_or_dir : "(null)");
    return -1;
  }
  if (!gst_init_check (NULL, NULL, error))
    return -1;

  before = array->len;
  if (g_file_test (path_or_dir, G_FILE_TEST_IS_DIR))
    ok = load_dir (path_or_dir, out, error);
  else if (!g_file_test (path_or_dir, G_FILE_TEST_EXISTS)) {
    g_set_error (error, SIMNPU_IMAGESET_ERROR,
        SIMNPU_IMAGESET_ERROR_NOT_FOUND, "%s: no such file or directory",
        path_or_dir);
    ok = FALSE;
  } else if (is_image_name (path_or_dir))
    ok = decode_file (path_or_dir, FALSE, 1, 1, out, error);
  else
    ok = decode_file (path_or_dir, TRUE, max_video_frames, video_stride,
        out, error);

  if (!ok) {
    g_ptr_array_remove_range (array, before, array->len - before);
    return -1;
  }
  return (int) (array->len - before);
}

int
simnpu_imageset_load (const char *path_or_dir, unsigned max_video_frames,
    unsigned video_stride, GPtrArray * out_images, GError ** error)
{
  image_sink out = { 0 };

  out.images = out_images;
  return load_into (path_or_dir, max_video_frames, video_stride, &out, error);
}

int
simnpu_imageset_load_tensors (const char *path_or_dir,
    unsigned max_video_frames, unsigned video_stride,
    const simnpu__preprocess * pp, unsigned dst_w, unsigned dst_h,
    unsigned channels, gboolean nchw, GPtrArray * out_tensors,
    simnpu_imageset_stats * stats, GError ** error)
{
  image_sink out = { 0 };
  int ret;

  if (pp == NULL || dst_w == 0 || dst_h == 0 || channels == 0) {
    g_set_error (error, SIMNPU_IMAGESET_ERROR, SIMNPU_IMAGESET_ERROR_INVALID,
        "%s: expected preprocessing and a tensor size of at least 1x1x1",
        path_or_dir ? path_or_dir : "(null)");
    return -1;
  }
  out.tensors = out_tensors;
  out.pp = pp;
  out.w = dst_w;
  out.h = dst_h;
  out.ch = channels;
  out.nchw = nchw;
  ret = load_into (path_or_dir, max_video_frames, video_stride, &out, error);
  if (stats)
    *stats = out.stats;
  return ret;
}

/* The bilinear sample of channel CH at (sx, sy), coordinates already
 * clamped to the image. */
static float
sample_bilinear (const simnpu_image * image, float sx, float sy, unsigned ch)
{
  unsigned x0 = (unsigned) sx, y0 = (unsigned) sy;
  unsigned x1 = x0 + 1 < image->width ? x0 + 1 : x0;
  unsigned y1 = y0 + 1 < image->height ? y0 + 1 : y0;
  float fx = sx - (float) x0, fy = sy - (float) y0;
  gsize row0 = (gsize) y0 * image->width, row1 = (gsize) y1 *image->width;
  float p00 = image->rgb[(row0 + x0) * RGB_BYTES + ch];
  float p01 = image->rgb[(row0 + x1) * RGB_BYTES + ch];
  float p10 = image->rgb[(row1 + x0) * RGB_BYTES + ch];
  float p11 = image->rgb[(row1 + x1) * RGB_BYTES + ch];
  float top = p00 + (p01 - p00) * fx;
  float bottom = p10 + (p11 - p10) * fx;

  return top + (bottom - top) * fy;
}

static float
clampf (float v, float lo, float hi)
{
  return v < lo ? lo : (v > hi ? hi : v);
}

static unsigned
clamp_extent (float v, unsigned max)
{
  long r = lroundf (v);
  return r < 1 ? 1 : ((unsigned long) r > max ? max : (unsigned) r);
}

int
simnpu_image_to_tensor (const simnpu_image * image,
    const simnpu__preprocess * pp, unsigned dst_w, unsigned dst_h,
    unsigned channels, float *dst, float *out_scale, int *out_pad_x,
    int *out_pad_y)
{
  unsigned new_w, new_h, pad_x, pad_y, x, y, c;
  float s, step_x, step_y;

  if (image == NULL || pp == NULL || dst == NULL || image->rgb == NULL
      || image->width == 0 || image->height == 0 || dst_w == 0 || dst_h == 0)
    return SIMNPU_EINVAL;
  if ((pp->color == SIMNPU_COLOR_GRAY && channels != 1)
      || ((pp->color == SIMNPU_COLOR_RGB || pp->color == SIMNPU_COLOR_BGR)
          && channels != RGB_BYTES)
      || (pp->color != SIMNPU_COLOR_GRAY && pp->color != SIMNPU_COLOR_RGB
          && pp->color != SIMNPU_COLOR_BGR))
    return SIMNPU_EINVAL;
  for (c = 0; c < channels; c++)
    if (!isfinite (pp->std[c]) || pp->std[c] == 0.0f)
      return SIMNPU_EINVAL;

  if (pp->resize == SIMNPU_RESIZE_LETTERBOX) {
    float sw = (float) dst_w / (float) image->width;
    float sh = (float) dst_h / (float) image->height;
    s = sw < sh ? sw : sh;
    new_w = clamp_extent ((float) image->width * s, dst_w);
    new_h = clamp_extent ((float) image->height * s, dst_h);
    pad_x = (dst_w - new_w) / 2;
    pad_y = (dst_h - new_h) / 2;
  } else if (pp->resize == SIMNPU_RESIZE_STRETCH) {
    s = (float) dst_w / (float) image->width;
    new_w = dst_w;
    new_h = dst_h;
    pad_x = pad_y = 0;
  } else {
    return SIMNPU_EINVAL;
  }
  step_x = (float) image->width / (float) new_w;
  step_y = (float) image->height / (float) new_h;

  for (y = 0; y < dst_h; y++) {
    gboolean row_inside = y >= pad_y && y < pad_y + new_h;
    float sy = clampf (((float) (y - pad_y) + 0.5f) * step_y - 0.5f, 0.0f,
        (float) (image->height - 1));

    for (x = 0; x < dst_w; x++) {
      float *out = dst + ((gsize) y * dst_w + x) * channels;
      float rgb[RGB_BYTES];

      if (row_inside && x >= pad_x && x < pad_x + new_w) {
        float sx = clampf (((float) (x - pad_x) + 0.5f) * step_x - 0.5f,
            0.0f, (float) (image->width - 1));
        for (c = 0; c < RGB_BYTES; c++)
          rgb[c] = sample_bilinear (image, sx, sy, c);
      } else {
        rgb[0] = rgb[1] = rgb[2] = pp->fill;
      }

      if (pp->color == SIMNPU_COLOR_GRAY) {
        float v = LUMA_R * rgb[0] + LUMA_G * rgb[1] + LUMA_B * rgb[2];
        out[0] = (v * pp->scale - pp->mean[0]) / pp->std[0];
      } else {
        for (c = 0; c < RGB_BYTES; c++) {
          float v = pp->color == SIMNPU_COLOR_BGR ? rgb[RGB_BYTES - 1 - c]
              : rgb[c];
          out[c] = (v * pp->scale - pp->mean[c]) / pp->std[c];
        }
      }
    }
  }

  if (out_scale)
    *out_scale = s;
  if (out_pad_x)
    *out_pad_x = (int) pad_x;
  if (out_pad_y)
    *out_pad_y = (int) pad_y;
  return 0;
}

gboolean
simnpu_parse_fraction (const char *s, float *out)
{
  char *end;
  double v;

  if (s == NULL)
    return FALSE;
  v = g_ascii_strtod (s, &end);
  if (end == s)
    return FALSE;
  if (*end == '/') {
    const char *d = end + 1;
    double div = g_ascii_strtod (d, &end);
    if (end == d || div == 0.0)
      return FALSE;
    v /= div;
  }
  if (*end != '\0' || !isfinite (v) || fabs (v) > FLT_MAX)
    return FALSE;
  *out = (float) v;
  return TRUE;
}

/* one value, or three separated by ':' */
static gboolean
parse_triple (const char *s, float *v)
{
  gchar **parts = g_strsplit (s, ":", -1);
  guint n = g_strv_length (parts), i;
  gboolean ok = n == 1 || n == 3;

  for (i = 0; ok && i < 3; i++)
    ok = simnpu_parse_fraction (parts[n == 1 ? 0 : i], &v[i]);
  g_strfreev (parts);
  return ok;
}

int
simnpu_preprocess_parse (const char *spec, simnpu__preprocess * pp,
    bool *color_given, GError ** error)
{
  gchar **items;
  guint i;
  int ret = 0;

  /* pixels enter unchanged: RGB 0..255, letterboxed with fill 114 (the
   * other members, e.g. the layout, are the caller's) */
  pp->color = SIMNPU_COLOR_RGB;
  if (color_given)
    *color_given = false;
  pp->resize = SIMNPU_RESIZE_LETTERBOX;
  pp->fill = 114;
  pp->scale = 1.0f;
  for (i = 0; i < 3; i++) {
    pp->mean[i] = 0.0f;
    pp->std[i] = 1.0f;
  }
  if (spec == NULL)
    return 0;
  items = g_strsplit (spec, ",", -1);
  for (i = 0; items[i] && ret == 0; i++) {
    gchar *eq = strchr (items[i], '=');
    const char *key = items[i], *val;
    float f;
    if (items[i][0] == '\0')
      continue;
    if (eq == NULL) {
      g_set_error (error, SIMNPU_IMAGESET_ERROR,
          SIMNPU_IMAGESET_ERROR_INVALID, "'%s': expected KEY=VALUE", items[i]);
      ret = -1;
      break;
    }
    *eq = '\0';
    val = eq + 1;
    if (strcmp (key, "scale") == 0 && simnpu_parse_fraction (val, &f)
        && f > 0.0f) {
      pp->scale = f;
    } else if (strcmp (key, "mean") == 0 && parse_triple (val, pp->mean)) {
    } else if (strcmp (key, "std") == 0 && parse_triple (val, pp->std)
        && pp->std[0] != 0.0f && pp->std[1] != 0.0f && pp->std[2] != 0.0f) {
    } else if (strcmp (key, "color") == 0 && (strcmp (val, "rgb") == 0
            || strcmp (val, "bgr") == 0 || strcmp (val, "gray") == 0)) {
      pp->color = val[0] == 'r' ? SIMNPU_COLOR_RGB : val[0] == 'b' ?
          SIMNPU_COLOR_BGR : SIMNPU_COLOR_GRAY;
      if (color_given)
        *color_given = true;
    } else if (strcmp (key, "resize") == 0 && (strcmp (val, "letterbox") == 0
            || strcmp (val, "stretch") == 0)) {
      pp->resize = val[0] == 'l' ? SIMNPU_RESIZE_LETTERBOX :
          SIMNPU_RESIZE_STRETCH;
    } else if (strcmp (key, "fill") == 0 && simnpu_parse_fraction (val, &f)
        && f >= 0.0f && f <= 255.0f && f == floorf (f)) {
      pp->fill = (uint8_t) f;
    } else {
      g_set_error (error, SIMNPU_IMAGESET_ERROR,
          SIMNPU_IMAGESET_ERROR_INVALID, "%s=%s: expected scale=NUMBER "
          "(e.g. 1/255), mean=M or M:M:M, std=S or S:S:S (non-zero), "
          "color=rgb|bgr|gray, resize=letterbox|stretch, fill=0..255",
          key, val);
      ret = -1;
    }
  }
  g_strfreev (items);
  return ret;
}
