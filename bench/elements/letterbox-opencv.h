/* gst-ax
 * Copyright (C) 2026 gst-ax developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

#ifndef __LETTERBOX_OPENCV_H__
#define __LETTERBOX_OPENCV_H__

#ifdef __cplusplus
extern "C" {
#endif

/* source layouts: RGB packed, NV12 and I420 as one contiguous buffer */
enum
{
  LETTERBOX_OPENCV_RGB,
  LETTERBOX_OPENCV_NV12,
  LETTERBOX_OPENCV_I420,
};

typedef struct _LetterboxOpenCV LetterboxOpenCV;

void letterbox_opencv_init (void);
LetterboxOpenCV *letterbox_opencv_new (int format, int src_width,
    int src_height, int resized_width, int resized_height, int top,
    int bottom, int left, int right, int s8);
/* Returns the tensor (HWC RGB, u8 or s8), valid until the next call. */
const unsigned char *letterbox_opencv_run (LetterboxOpenCV * cv,
    const unsigned char *data);
void letterbox_opencv_free (LetterboxOpenCV * cv);

#ifdef __cplusplus
}
#endif

#endif /* __LETTERBOX_OPENCV_H__ */
