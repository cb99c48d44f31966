/* gst-ax
 * Copyright (C) 2026 gst-ax developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

/* The OpenCV baseline of benchmark-letterbox, behind a C interface since
 * OpenCV has only a C++ API. What it does per frame is what an
 * Ultralytics-style Python pre-processor does:
 *   NV12 / I420: cv::cvtColor (COLOR_YUV2RGB_NV12 / COLOR_YUV2RGB_I420);
 *   cv::resize (INTER_LINEAR) to the letterboxed content size;
 *   cv::copyMakeBorder (BORDER_CONSTANT, 114) to the tensor size;
 *   s8 only: convertTo (CV_8S, alpha 1, beta -128), the int8 input of a
 *   model quantised with scale 1/255 and zero point -128.
 * All destination Mats live in the context, so after the first frame
 * OpenCV reuses them and allocates nothing. */

#include "letterbox-opencv.h"

#include <opencv2/core.hpp>
#include <opencv2/imgproc.hpp>

#define FILL_VALUE 114
#define S8_SHIFT (-128)

struct _LetterboxOpenCV
{
  int format;
  int src_width, src_height;
  int resized_width, resized_height;
  int top, bottom, left, right;
  int s8;
  cv::Mat rgb, resized, boxed, quantised;
};

extern "C" void
letterbox_opencv_init (void)
{
  cv::setNumThreads (1);
}

extern "C" LetterboxOpenCV *
letterbox_opencv_new (int format, int src_width, int src_height,
    int resized_width, int resized_height, int top, int bottom, int left,
    int right, int s8)
{
  LetterboxOpenCV *cv = new LetterboxOpenCV;

  cv->format = format;
  cv->src_width = src_width;
  cv->src_height = src_height;
  cv->resized_width = resized_width;
  cv->resized_height = resized_height;
  cv->top = top;
  cv->bottom = bottom;
  cv->left = left;
  cv->right = right;
  cv->s8 = s8;
  return cv;
}

extern "C" const unsigned char *
letterbox_opencv_run (LetterboxOpenCV * cv, const unsigned char *data)
{
  const cv::Mat *rgb;
  cv::Mat src;

  if (cv->format == LETTERBOX_OPENCV_RGB) {
    src = cv::Mat (cv->src_height, cv->src_width, CV_8UC3,
        const_cast < unsigned char *>(data));
    rgb = &src;
  } else {
    /* both YUV layouts are one byte plane of 3/2 the luma height */
    src = cv::Mat (cv->src_height * 3 / 2, cv->src_width, CV_8UC1,
        const_cast < unsigned char *>(data));
    cv::cvtColor (src, cv->rgb, cv->format == LETTERBOX_OPENCV_NV12 ?
        cv::COLOR_YUV2RGB_NV12 : cv::COLOR_YUV2RGB_I420);
    rgb = &cv->rgb;
  }
  cv::resize (*rgb, cv->resized, cv::Size (cv->resized_width,
          cv->resized_height), 0, 0, cv::INTER_LINEAR);
  cv::copyMakeBorder (cv->resized, cv->boxed, cv->top, cv->bottom, cv->left,
      cv->right, cv::BORDER_CONSTANT, cv::Scalar (FILL_VALUE, FILL_VALUE,
          FILL_VALUE));
  if (!cv->s8)
    return cv->boxed.data;
  cv->boxed.convertTo (cv->quantised, CV_8S, 1.0, S8_SHIFT);
  return cv->quantised.data;
}

extern "C" void
letterbox_opencv_free (LetterboxOpenCV * cv)
{
  delete cv;
}
