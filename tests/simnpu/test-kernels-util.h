/* gst-ax
 * Copyright (C) 2026 gst-ax developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

/* What the kernel test programs (test-kernels-conv.c,
 * test-kernels-vector.c and test-kernels-paths.c) share: the seeded random numbers and the
 * fills of int8 buffers. */

#ifndef __SIMNPU_TEST_KERNELS_UTIL_H__
#define __SIMNPU_TEST_KERNELS_UTIL_H__

#include "simnpu-private.h"

#define SEED 20260101

static GRand *rng;

static inline int
rand_int (int lo, int hi)
{
  return g_rand_int_range (rng, lo, hi + 1);
}

static inline void
fill_i8 (int8_t * p, size_t n)
{
  size_t i;

  for (i = 0; i < n; i++)
    p[i] = (int8_t) rand_int (-128, 127);
}

/* int8 values at the ends of the range, where pairs of products are
 * largest (the 16-bit multiply-add of the AVX2 passes) */
static inline void
fill_extremes (int8_t * p, size_t n)
{
  static const int8_t ends[] = { -128, -127, 126, 127 };
  size_t i;

  for (i = 0; i < n; i++)
    p[i] = ends[rand_int (0, G_N_ELEMENTS (ends) - 1)];
}

#endif /* __SIMNPU_TEST_KERNELS_UTIL_H__ */
