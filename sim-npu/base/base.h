/* gst-ax
 * Copyright (C) 2026 gst-ax developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

/* What every layer of libsimnpu shares: the hidden-symbol marker, the
 * limits that keep malformed models from over-allocating, error reports,
 * the clock, the internal element types (base/errors.c, clock.c,
 * types.c). */

#ifndef __SIMNPU_BASE_H__
#define __SIMNPU_BASE_H__

#include <glib.h>
#include <simnpu/simnpu.h>

G_BEGIN_DECLS

#define SIMNPU_INTERNAL __attribute__ ((visibility ("hidden"))) extern

/* Limits that keep malformed models from over-allocating. */
#define SIMNPU_MAX_TENSORS 4096
#define SIMNPU_MAX_OPS 2048
#define SIMNPU_MAX_IO 16
#define SIMNPU_MAX_OP_INPUTS 8
#define SIMNPU_MAX_OP_OUTPUTS 8
#define SIMNPU_MAX_TENSOR_ELEMENTS (G_GINT64_CONSTANT (1) << 26)
#define SIMNPU_MAX_ARENA_BYTES (G_GUINT64_CONSTANT (1) << 26)
#define SIMNPU_MAX_KERNEL_DIM 64
#define SIMNPU_MAX_NAME_BYTES 256
/* class labels of a model: at most this many, each a non-empty UTF-8
 * string under SIMNPU_MAX_NAME_BYTES without control characters */
#define SIMNPU_MAX_LABELS 4096
/* per-row dequantisation scales of an f32 output (axis 1) */
#define SIMNPU_MAX_ROW_SCALES 65536
#define SIMNPU_N_ATTRS 16

#define SIMNPU_NS_PER_S G_GUINT64_CONSTANT (1000000000)
#define SIMNPU_NS_PER_MS G_GUINT64_CONSTANT (1000000)
#define SIMNPU_NS_PER_US G_GUINT64_CONSTANT (1000)

/* Fixed-point precision of the requantisation multipliers of add, mul and
 * concat (kernels/kernels-eltwise.c). */
#define SIMNPU_ELTWISE_SHIFT 24
/* The requantisation ratios a graph may ask for (graph/graph-prepare.c),
 * which the compiler keeps its scales within: a conv's input scale * weight
 * scale / output scale below SIMNPU_MAX_REQUANT_SCALE; the input / output
 * scale of add, sub, maximum, minimum, concat, resize and pad (input *
 * input2 / output for mul) at most SIMNPU_MAX_ELTWISE_RATIO. */
#define SIMNPU_MAX_REQUANT_SCALE 65536.0
#define SIMNPU_MAX_ELTWISE_RATIO 4096.0
/* prelu's input / output scale times its largest |slope| (or 1): its
 * kernel multiplies in 32 bits (kernels/kernels-eltwise.c) */
#define SIMNPU_MAX_PRELU_RATIO 128.0

SIMNPU_INTERNAL int simnpu__set_error (simnpu_error * error, int code,
    const char *format, ...) G_GNUC_PRINTF (3, 4);
SIMNPU_INTERNAL uint64_t simnpu__monotonic_ns (void);

/* Internal element types: the public ones plus i32 for biases. */
#define SIMNPU__DTYPE_I32 3

SIMNPU_INTERNAL size_t simnpu__dtype_size (int dtype);

/* The memory plan of a graph's intermediate buffers (base/memplan.c). A
 * buffer is live from step first to step last, both included (the step
 * that produces it to the last that reads it, in execution order): an
 * op's inputs and outputs are live at its step, so they never share
 * bytes. */
typedef struct
{
  size_t bytes;
  int first, last;
  /* set by the planner: where the buffer starts in the arena, a multiple
   * of the alignment */
  size_t offset;
} simnpu__live_buffer;

/* Above this many buffers that take space the plan is the flat layout:
 * the greedy planner's time grows with the square of the count (0.6 s at
 * this count when all are live at once). */
#define SIMNPU_MEMPLAN_MAX_BUFFERS 8192

/* Places @bufs in one arena so that buffers whose live ranges overlap
 * never share a byte, reusing the space otherwise (greedy by size, best
 * fit); @align is a power of two. Returns the arena's size in bytes. */
SIMNPU_INTERNAL size_t simnpu__memplan (simnpu__live_buffer * bufs,
    unsigned n, size_t align);
/* Each buffer in its own space, one after another: what the arena would
 * be without the plan. Returns its size in bytes. */
SIMNPU_INTERNAL size_t simnpu__memplan_flat (simnpu__live_buffer * bufs,
    unsigned n, size_t align);

G_END_DECLS

#endif /* __SIMNPU_BASE_H__ */
