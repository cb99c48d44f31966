/* gst-ax
 * Copyright (C) 2026 gst-ax developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

/* The float32 reference executor: kernels are being written. */

#include "ir-exec.h"

#define STUB(kname) \
  int simnpu__ir_run_##kname (simnpu__ir_exec * x, const simnpu__ir_node * n, \
      simnpu_error * error) \
  { \
    return simnpu__set_error (error, SIMNPU_EUNSUPPORTED, \
        "node '%s' (%s): no kernel yet", n->name, simnpu__ir_op_name (n->op)); \
  }

STUB (conv2d)
STUB (matmul)
STUB (binary)
STUB (nary)
STUB (where)
STUB (unary)
STUB (cast)
STUB (softmax)
STUB (batchnorm)
STUB (reduce)
STUB (arg)
STUB (pool)
STUB (resize)
STUB (depth_to_space)
STUB (space_to_depth)
STUB (copy)
STUB (transpose)
STUB (concat)
STUB (split)
STUB (slice)
STUB (pad)
STUB (gather)
STUB (tile)
STUB (expand)
STUB (shape)
STUB (range)
