/* gst-ax
 * Copyright (C) 2026 gst-ax developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

/* The per-op shape rules (ir-infer.c) that the op table (ir.c) points at:
 * one per family of ops; each reads n->op for the member. */

#ifndef __SIMNPU_IR_PRIVATE_H__
#define __SIMNPU_IR_PRIVATE_H__

#include "ir.h"

#define SIMNPU_IR_INFER(iname) \
  SIMNPU_INTERNAL int simnpu__ir_infer_##iname (simnpu__ir_graph * g, \
      simnpu__ir_node * n, simnpu_error * error)

SIMNPU_IR_INFER (conv2d);
SIMNPU_IR_INFER (matmul);
SIMNPU_IR_INFER (binary);
SIMNPU_IR_INFER (where);
SIMNPU_IR_INFER (unary);
SIMNPU_IR_INFER (cast);
SIMNPU_IR_INFER (softmax);
SIMNPU_IR_INFER (batchnorm);
SIMNPU_IR_INFER (reduce);
SIMNPU_IR_INFER (arg);
SIMNPU_IR_INFER (pool);
SIMNPU_IR_INFER (resize);
SIMNPU_IR_INFER (depth_space);
SIMNPU_IR_INFER (reshape);
SIMNPU_IR_INFER (transpose);
SIMNPU_IR_INFER (concat);
SIMNPU_IR_INFER (split);
SIMNPU_IR_INFER (slice);
SIMNPU_IR_INFER (pad);
SIMNPU_IR_INFER (gather);
SIMNPU_IR_INFER (tile);
SIMNPU_IR_INFER (expand);
SIMNPU_IR_INFER (shape);
SIMNPU_IR_INFER (range);

#endif /* __SIMNPU_IR_PRIVATE_H__ */
