/* gst-ax
 * Copyright (C) 2026 gst-ax developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

/* The host-sections test model (host-model.h) by hand: its shape, an
 * input and the outputs it must give, with no libsimnpu internals, for
 * the GStreamer tests as well. */

#ifndef __SIMNPU_TEST_HOST_MODEL_VALUES_H__
#define __SIMNPU_TEST_HOST_MODEL_VALUES_H__

#include <glib.h>
#include <math.h>
#include <stdint.h>

#define HOST_MODEL_ELEMENTS 12
#define HOST_MODEL_SCALE 0.1f
#define HOST_MODEL_U8_ZP 128
#define HOST_MODEL_PRE_MUL 2.0f
#define HOST_MODEL_PRE_ADD 1.0f

static const int64_t host_model_dims[4] = { 1, 2, 2, 3 };

/* Input values away from quantisation ties, over most of the i8 range. */
static inline void
host_model_input (float *image)
{
  unsigned i;

  for (i = 0; i < HOST_MODEL_ELEMENTS; i++)
    image[i] = -4.0f + 0.73f * (float) i;
}

/* The model by hand: x quantised to i8 at scale 0.1 (round to nearest,
 * saturated), relu, then y dequantised into the sigmoid, and z as u8. */
static inline void
host_model_expected (const float *image, float *prob, uint8_t * z)
{
  unsigned i;

  for (i = 0; i < HOST_MODEL_ELEMENTS; i++) {
    double x = (double) image[i] * HOST_MODEL_PRE_MUL + HOST_MODEL_PRE_ADD;
    double q = round (x / HOST_MODEL_SCALE);
    double r;

    q = CLAMP (q, -128.0, 127.0);
    r = MAX (q, 0.0);
    prob[i] = (float) (1.0 / (1.0 + exp (-(r * HOST_MODEL_SCALE))));
    z[i] = (uint8_t) (r + HOST_MODEL_U8_ZP);
  }
}

#endif /* __SIMNPU_TEST_HOST_MODEL_VALUES_H__ */
