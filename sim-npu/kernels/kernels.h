/* gst-ax
 * Copyright (C) 2026 gst-ax developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

/* The seam between the portable conv2d (kernels.c) and the fast conv2d
 * kernels picked by CPU feature at run time:
 *
 * - kernels-dense.c: dense and pointwise convs (groups == 1), including
 *   the few-channel first layer;
 * - kernels-dw.c: depthwise convs (groups == ic == oc).
 *
 * Each family answers for a shape: the bytes of its packed weights (0
 * when it does not take the shape on this machine), packs the weights
 * once per model (simnpu__conv2d_pack), says how much scratch it needs,
 * and runs. The packed form is private to the family; the choice of
 * kernel is a pure function of the shape and the CPU, so pack and run
 * agree. Every fast kernel is bit-exact with the portable one, which is
 * itself checked against the reference in tests/simnpu/test-kernels-conv.c. */

#ifndef __SIMNPU_KERNELS_H__
#define __SIMNPU_KERNELS_H__

#include "simnpu-private.h"

/* alignment of packed weights and of scratch (bytes) */
#define SIMNPU_KERNEL_ALIGN 64

SIMNPU_INTERNAL size_t simnpu__dense_packed_bytes (const simnpu__conv_params
    * p);
SIMNPU_INTERNAL void simnpu__dense_pack (const simnpu__conv_params * p,
    const int8_t * weights, void *packed);
SIMNPU_INTERNAL size_t simnpu__dense_scratch_bytes (const simnpu__conv_params
    * p);
SIMNPU_INTERNAL void simnpu__dense_run (const simnpu__conv_params * p,
    const int8_t * input, const void *packed, const int32_t * bias,
    const float *scales, int8_t * output, int8_t * scratch);

SIMNPU_INTERNAL size_t simnpu__dw_packed_bytes (const simnpu__conv_params * p);
SIMNPU_INTERNAL void simnpu__dw_pack (const simnpu__conv_params * p,
    const int8_t * weights, void *packed);
SIMNPU_INTERNAL size_t simnpu__dw_scratch_bytes (const simnpu__conv_params * p);
SIMNPU_INTERNAL void simnpu__dw_run (const simnpu__conv_params * p,
    const int8_t * input, const void *packed, const int32_t * bias,
    const float *scales, int8_t * output, int8_t * scratch);

#endif /* __SIMNPU_KERNELS_H__ */
