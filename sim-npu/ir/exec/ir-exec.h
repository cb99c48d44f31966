/* gst-ax
 * Copyright (C) 2026 gst-ax developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

/* Internals shared by the IR core (ir.c, whose op table points at the
 * kernels) and the float executor (ir-exec*.c). Not part of the IR's
 * contract (ir.h). */

#ifndef __SIMNPU_IR_EXEC_H__
#define __SIMNPU_IR_EXEC_H__

#include "ir/ir.h"

G_BEGIN_DECLS struct _simnpu__ir_exec
{
  const simnpu__ir_graph *g;
  /* one buffer per tensor; constants point at their data */
  void **bufs;
  /* per node: weights packed for the kernel (conv2d, matmul), or NULL */
  float **packed;
  /* per node: whether packed holds constant weights packed once */
  bool *packed_const;
  /* per node: zero-padded input copy (conv2d), or NULL */
  float **scratch;
  /* the buffer of empty constants without data */
  uint64_t empty;
  /* made by simnpu__ir_exec_new_planned(): the tensors that are not
   * constants and the conv padded copies (scratch) live in this arena
   * (allocated at arena_mem, aligned at arena), at the offsets of the
   * memory plan; NULL otherwise */
  uint8_t *arena;
  void *arena_mem;
  size_t arena_bytes;
  simnpu__ir_exec_observer observer;
  gpointer observer_data;
};

/* The kernels, one per family of ops; each reads n->op for the member. */
#define SIMNPU_IR_KERNEL(kname) \
  SIMNPU_INTERNAL int simnpu__ir_run_##kname (simnpu__ir_exec * x, \
      const simnpu__ir_node * n, simnpu_error * error)

SIMNPU_IR_KERNEL (conv2d);
SIMNPU_IR_KERNEL (matmul);
SIMNPU_IR_KERNEL (binary);
SIMNPU_IR_KERNEL (nary);
SIMNPU_IR_KERNEL (where);
SIMNPU_IR_KERNEL (unary);
SIMNPU_IR_KERNEL (cast);
SIMNPU_IR_KERNEL (softmax);
SIMNPU_IR_KERNEL (batchnorm);
SIMNPU_IR_KERNEL (reduce);
SIMNPU_IR_KERNEL (arg);
SIMNPU_IR_KERNEL (pool);
SIMNPU_IR_KERNEL (resize);
SIMNPU_IR_KERNEL (depth_to_space);
SIMNPU_IR_KERNEL (space_to_depth);
SIMNPU_IR_KERNEL (copy);
SIMNPU_IR_KERNEL (transpose);
SIMNPU_IR_KERNEL (concat);
SIMNPU_IR_KERNEL (split);
SIMNPU_IR_KERNEL (slice);
SIMNPU_IR_KERNEL (pad);
SIMNPU_IR_KERNEL (gather);
SIMNPU_IR_KERNEL (tile);
SIMNPU_IR_KERNEL (expand);
SIMNPU_IR_KERNEL (shape);
SIMNPU_IR_KERNEL (range);

/* Shape rules shared by infer and the kernels. */

/* numpy broadcast of two shapes; false when they do not broadcast */
SIMNPU_INTERNAL bool simnpu__ir_broadcast (unsigned ra, const int64_t * da,
    unsigned rb, const int64_t * db, unsigned *rank, int64_t * dims);
/* output extent of a pooling/conv window along one axis, ONNX rules;
 * -1 when the window does not fit */
SIMNPU_INTERNAL int64_t simnpu__ir_window_out (int64_t in, int64_t k,
    int64_t stride, int64_t dilation, int64_t pad_begin, int64_t pad_end,
    bool ceil_mode);
/* number of elements of a slice along one axis */
SIMNPU_INTERNAL int64_t simnpu__ir_slice_len (int64_t dim, int64_t start,
    int64_t end, int64_t step, int64_t * first);

G_END_DECLS
#endif /* __SIMNPU_IR_EXEC_H__ */
