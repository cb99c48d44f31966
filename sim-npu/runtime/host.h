/* gst-ax
 * Copyright (C) 2026 gst-ax developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

/* Host sections of a compiled model (host.c): the binding rule between
 * the float preamble and postamble and the device graph, the model's
 * public tensors, and the executors that run the sections on the
 * caller's thread. */

#ifndef __SIMNPU_HOST_H__
#define __SIMNPU_HOST_H__

#include "ir/ir.h"

G_BEGIN_DECLS

#define SIMNPU__N_HOST_SECTIONS 2

/* Checks the host sections of a validated device graph: every preamble
 * output is a distinct device input of the same element count, every
 * postamble input a distinct device output of the same element count,
 * section inputs and outputs are f32, public tensors have rank 1 to 4 and
 * distinct names, and at most SIMNPU_MAX_IO of each. */
SIMNPU_INTERNAL int simnpu__host_check (const simnpu__graph * g,
    simnpu_error * error);

/* The public face of a loaded model: its public inputs and outputs (the
 * preamble's inputs then the device inputs it does not produce; the
 * postamble's outputs then the device outputs it does not consume) and
 * one executor per host section. */
typedef struct
{
  unsigned n_inputs, n_outputs;
  simnpu_tensor_spec inputs[SIMNPU_MAX_IO];
  simnpu_tensor_spec outputs[SIMNPU_MAX_IO];
  simnpu_binding in_bind[SIMNPU_MAX_IO];
  simnpu_binding out_bind[SIMNPU_MAX_IO];
  simnpu_host_section *sections[SIMNPU__N_HOST_SECTIONS];
} simnpu__host_view;

/* @dev_in and @dev_out are the device graph's tensor specs; the view
 * points into them and into @g, which must outlive it. */
SIMNPU_INTERNAL int simnpu__host_view_init (simnpu__host_view * v,
    const simnpu__graph * g, const simnpu_tensor_spec * dev_in,
    const simnpu_tensor_spec * dev_out, simnpu_error * error);
SIMNPU_INTERNAL void simnpu__host_view_clear (simnpu__host_view * v);

G_END_DECLS

#endif /* __SIMNPU_HOST_H__ */
