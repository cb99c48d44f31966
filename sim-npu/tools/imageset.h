/* gst-ax
 * Copyright (C) 2026 gst-ax developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

/* Images for calibration and tests: decoded with GStreamer (any format a
 * decodebin can read: JPEG, PNG, AVI/MPEG-4, ...) into packed RGB, and
 * turned into float model inputs the way a compiled model's preprocess
 * record (simnpu__preprocess) says.
 *
 * Linked by the tools and tests through imageset_dep (sim-npu/tools);
 * not part of libsimnpu, which does not depend on GStreamer. */

#ifndef __SIMNPU_IMAGESET_H__
#define __SIMNPU_IMAGESET_H__

#include "simnpu-private.h"

#include <glib.h>
#include <stdint.h>

G_BEGIN_DECLS
/* Pictures larger than this (64 Mpixel, e.g. 8192x8192) are refused. The
 * size a file declares is checked before anything is decoded: a PNG's
 * header (IHDR), and the width and height GStreamer finds in a JPEG's
 * header or a video container's stream caps; a picture whose size only
 * its decoder knows is refused after decoding, before it is copied. */
#define SIMNPU_IMAGESET_MAX_PIXELS (1u << 26)
/* How long decoding may make no progress before it counts as hung. */
#define SIMNPU_IMAGESET_STALL_TIMEOUT_MS 20000
#define SIMNPU_IMAGESET_ERROR (simnpu_imageset_error_quark ())
    typedef enum
{
  SIMNPU_IMAGESET_ERROR_INVALID,        /* bad argument */
  SIMNPU_IMAGESET_ERROR_NOT_FOUND,      /* no such file or directory */
  SIMNPU_IMAGESET_ERROR_EMPTY,  /* a directory without images, a video
                                 * without frames */
  SIMNPU_IMAGESET_ERROR_DECODE, /* GStreamer could not decode the file */
  SIMNPU_IMAGESET_ERROR_TOO_LARGE,      /* above SIMNPU_IMAGESET_MAX_PIXELS */
} simnpu_imageset_error_code;

/* What simnpu_imageset_load_tensors() did. */
typedef struct
{
  unsigned frames_read;         /* pictures that came out of the decoders,
                                 * the skipped video frames included */
  gsize peak_image_bytes;       /* the most bytes of decoded pictures
                                 * (simnpu_image) held at once */
} simnpu_imageset_stats;

/* One decoded picture: width * height pixels, 3 bytes each (R, G, B),
 * rows top to bottom without padding (row stride 3 * width). */
typedef struct
{
  char *source;                 /* the file; for a video "FILE#N", N the
                                 * 0-based index of the decoded frame */
  unsigned width, height;
  uint8_t *rgb;
} simnpu_image;

GQuark simnpu_imageset_error_quark (void);

void simnpu_image_free (simnpu_image * image);

/* Decodes PATH_OR_DIR and appends simnpu_image pointers to OUT_IMAGES
 * (which takes ownership: create it with
 * g_ptr_array_new_with_free_func ((GDestroyNotify) simnpu_image_free)).
 *
 * - a directory: every regular file in it whose name ends in .jpg, .jpeg or
 *   .png (any case), in strcmp() order of the names; not recursive;
 * - a file named *.jpg, *.jpeg or *.png: that image (its first frame);
 * - any other file (a video, e.g. .avi): decoded frames 0, VIDEO_STRIDE,
 *   2 * VIDEO_STRIDE, ... in decoding order (timestamps are not used, so
 *   streams with DTS only are fine), at most MAX_VIDEO_FRAMES of them.
 *
 * VIDEO_STRIDE and MAX_VIDEO_FRAMES must be at least 1 (they do not affect
 * still images). Decoding: filesrc ! decodebin ! videoconvert !
 * video/x-raw,format=RGB ! appsink; audio streams are ignored. Calls
 * gst_init_check() itself. Pixel values are GStreamer's: JPEGs decoded by
 * jpegdec (libjpeg's fast IDCT) and videoconvert's chroma upsampling can
 * differ from other decoders' by a few levels.
 *
 * A file declaring more than SIMNPU_IMAGESET_MAX_PIXELS pixels is refused
 * (SIMNPU_IMAGESET_ERROR_TOO_LARGE) without being decoded.
 *
 * Returns the number of images appended (>= 1), or -1 with ERROR set
 * (domain SIMNPU_IMAGESET_ERROR, the message naming the file and what went
 * wrong); on error OUT_IMAGES is left as it was. */
int simnpu_imageset_load (const char *path_or_dir, unsigned max_video_frames,
    unsigned video_stride, GPtrArray * out_images, GError ** error);

/* Decodes PATH_OR_DIR as simnpu_imageset_load() does, and appends to
 * OUT_TENSORS (which takes ownership: g_ptr_array_new_with_free_func
 * (g_free)) one float tensor of DST_W x DST_H x CHANNELS values per
 * picture, made by simnpu_image_to_tensor() with PP, in NHWC order, or
 * NCHW (DST[(c * DST_H + y) * DST_W + x]) when NCHW is TRUE.
 *
 * Each picture becomes its tensor as soon as it is decoded and is freed
 * then: however many frames a video gives, at most one decoded picture is
 * held at a time, and decoding stops once MAX_VIDEO_FRAMES are taken.
 * STATS, if not NULL, is filled in (also on error).
 *
 * Returns the number of tensors appended (>= 1), or -1 with ERROR set as
 * simnpu_imageset_load() does (SIMNPU_IMAGESET_ERROR_INVALID for a
 * geometry or PP that simnpu_image_to_tensor() refuses); on error
 * OUT_TENSORS is left as it was. */
int simnpu_imageset_load_tensors (const char *path_or_dir,
    unsigned max_video_frames, unsigned video_stride,
    const simnpu__preprocess * pp, unsigned dst_w, unsigned dst_h,
    unsigned channels, gboolean nchw, GPtrArray * out_tensors,
    simnpu_imageset_stats * stats, GError ** error);

/* Makes a DST_W x DST_H x CHANNELS float tensor (NHWC, N = 1, row-major:
 * DST[(y * DST_W + x) * CHANNELS + c]) from IMAGE as PP says. No
 * GStreamer, no allocation.
 *
 * Geometry, with w x h the image's size:
 * - SIMNPU_RESIZE_LETTERBOX: s = min (DST_W / w, DST_H / h) (float); the
 *   picture covers new_w x new_h = round (w * s) x round (h * s) (each
 *   clamped to 1 .. DST_W or DST_H) at pad_x = (DST_W - new_w) / 2,
 *   pad_y = (DST_H - new_h) / 2 (integer division: any odd pixel goes to
 *   the right / bottom); the pixels outside it are PP->fill in every
 *   channel. *OUT_SCALE = s.
 * - SIMNPU_RESIZE_STRETCH: new_w = DST_W, new_h = DST_H, pad 0;
 *   *OUT_SCALE = DST_W / w (the horizontal scale; the vertical one is
 *   DST_H / h).
 * Inside the picture, destination pixel (x, y) samples the image at
 *   sx = (x - pad_x + 0.5) * w / new_w - 0.5,
 *   sy = (y - pad_y + 0.5) * h / new_h - 0.5
 * (half-pixel centres), bilinearly from the four nearest pixels, the
 * coordinates clamped to 0 .. w - 1 and 0 .. h - 1 (edge pixels repeat).
 * Nothing is rounded: interpolated values stay float.
 *
 * Colour, with R, G, B the interpolated (or fill) values in 0 .. 255:
 * - SIMNPU_COLOR_RGB: channels R, G, B;  SIMNPU_COLOR_BGR: B, G, R;
 *   both need CHANNELS == 3;
 * - SIMNPU_COLOR_GRAY: one channel 0.299 R + 0.587 G + 0.114 B
 *   (ITU-R BT.601 luma), needs CHANNELS == 1.
 * Then each value v of destination channel c becomes
 *   (v * PP->scale - PP->mean[c]) / PP->std[c].
 *
 * OUT_SCALE, OUT_PAD_X and OUT_PAD_Y may be NULL. Returns 0, or
 * SIMNPU_EINVAL (nothing written) for a NULL or empty image, a zero
 * destination size, CHANNELS not matching PP->color, an unknown colour or
 * resize kind, or a zero or non-finite std. */
int simnpu_image_to_tensor (const simnpu_image * image,
    const simnpu__preprocess * pp, unsigned dst_w, unsigned dst_h,
    unsigned channels, float *dst, float *out_scale, int *out_pad_x,
    int *out_pad_y);

/* Parses a number written as a decimal or a fraction ("0.0039", "1/255")
 * into OUT. Returns FALSE (OUT untouched) for anything else, a zero
 * divisor or a value that is not a finite float. */
gboolean simnpu_parse_fraction (const char *s, float *out);

/* Parses a preprocessing spec, the value of simnpu-compile's --preprocess:
 * comma-separated KEY=VALUE items, scale=NUMBER (a fraction as
 * simnpu_parse_fraction() reads it), mean=M or M:M:M, std=S or S:S:S
 * (non-zero), color=rgb|bgr|gray, resize=letterbox|stretch and
 * fill=0..255. Keys left out keep the defaults: RGB 0..255 (scale 1, mean
 * 0, std 1), letterboxed with fill 114. SPEC NULL gives the defaults.
 * COLOR_GIVEN (may be NULL) says whether color= was given. Returns 0, or
 * -1 with ERROR (SIMNPU_IMAGESET_ERROR_INVALID) naming the bad item and
 * what was expected. */
int simnpu_preprocess_parse (const char *spec, simnpu__preprocess * pp,
    bool *color_given, GError ** error);

G_END_DECLS
#endif /* __SIMNPU_IMAGESET_H__ */
