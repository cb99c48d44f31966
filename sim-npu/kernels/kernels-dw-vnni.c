/* gst-ax
 * Copyright (C) 2026 gst-ax developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

#include "kernels-private.h"

#ifdef SIMNPU_VNNI

size_t
simnpu__dw_vnni_packed_bytes (const simnpu__conv_params * p)
{
  (void) p;
  return 0;
}

void
simnpu__dw_vnni_pack (const simnpu__conv_params * p, const int8_t * weights,
    void *packed)
{
  (void) p;
  (void) weights;
  (void) packed;
}

size_t
simnpu__dw_vnni_scratch_bytes (const simnpu__conv_params * p)
{
  (void) p;
  return 0;
}

void
simnpu__dw_vnni_run (const simnpu__conv_params * p, const int8_t * input,
    const void *packed, const int32_t * bias, const float *scales,
    int8_t * output, int8_t * scratch)
{
  (void) p;
  (void) input;
  (void) packed;
  (void) bias;
  (void) scales;
  (void) output;
  (void) scratch;
}

#endif /* SIMNPU_VNNI */
