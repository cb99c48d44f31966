/* gst-ax
 * Copyright (C) 2026 gst-ax developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

/* The device's op vocabulary, shared by the kernels, the device graph, the
 * cost model and the model formats: op types and names (base/ops.c),
 * attribute slots and their values. */

#ifndef __SIMNPU_OPS_H__
#define __SIMNPU_OPS_H__

#include "base/base.h"

G_BEGIN_DECLS

/* The device ops, in the order of their numbers (stored in .axm files:
 * append, never reorder): X (ID, "name") for SIMNPU_OP_ID. */
/* *INDENT-OFF* */
#define SIMNPU_DEVICE_OPS(X) \
  X (CONV2D, "conv2d") \
  X (ADD, "add") \
  X (MUL, "mul") \
  X (CONCAT, "concat") \
  X (SPLIT, "split") \
  X (SLICE, "slice") \
  X (MAXPOOL, "maxpool") \
  X (AVGPOOL, "avgpool") \
  X (RESIZE, "resize") \
  X (RESHAPE, "reshape") \
  X (TRANSPOSE, "transpose") \
  X (RELU, "relu") \
  X (SIGMOID, "sigmoid") \
  X (SILU, "silu") \
  X (SOFTMAX, "softmax") \
  X (TANH, "tanh") \
  X (HARD_SWISH, "hard_swish") \
  X (HARD_SIGMOID, "hard_sigmoid") \
  X (LEAKY_RELU, "leaky_relu") \
  X (CLIP, "clip") \
  X (ELU, "elu") \
  X (LUT, "lut") \
  X (MEAN, "mean") \
  X (PAD, "pad") \
  X (SUB, "sub") \
  X (MAXIMUM, "maximum") \
  X (MINIMUM, "minimum") \
  X (PRELU, "prelu") \
  X (DEPTH_TO_SPACE, "depth_to_space") \
  X (SPACE_TO_DEPTH, "space_to_depth") \
  X (GATHER, "gather") \
  X (SELECT, "select")
/* *INDENT-ON* */

#define SIMNPU__OP_ENUM(id, name) SIMNPU_OP_##id,
typedef enum
{
  SIMNPU_DEVICE_OPS (SIMNPU__OP_ENUM)
  SIMNPU_N_OP_TYPES
} simnpu__op_type;
#undef SIMNPU__OP_ENUM

/* the op's name in JSON graphs and messages; "unknown" when out of range */
SIMNPU_INTERNAL const char *simnpu__op_type_name (simnpu__op_type type);
SIMNPU_INTERNAL int simnpu__op_type_from_name (const char *name);

/* Attribute slots, by op type. */
enum
{
  /* conv2d */
  SIMNPU_A_KH = 0, SIMNPU_A_KW, SIMNPU_A_SH, SIMNPU_A_SW,
  SIMNPU_A_PT, SIMNPU_A_PL, SIMNPU_A_PB, SIMNPU_A_PR,
  SIMNPU_A_DH, SIMNPU_A_DW, SIMNPU_A_GROUPS, SIMNPU_A_OC,
  SIMNPU_A_ACT,
  /* conv2d with SIMNPU_ACT_CLIP: inclusive output bounds, quantised */
  SIMNPU_A_ACT_QMIN = 13, SIMNPU_A_ACT_QMAX = 14,
  /* resize: integer scale factors (used when OUT_H/OUT_W are 0), mode
   * (simnpu__resize_mode), explicit output size, coordinate mode
   * (simnpu__coord_mode) and nearest rounding (simnpu__nearest_mode) */
  SIMNPU_A_SCALE_H = 0, SIMNPU_A_SCALE_W = 1,
  SIMNPU_A_RESIZE_MODE = 2, SIMNPU_A_OUT_H = 3, SIMNPU_A_OUT_W = 4,
  SIMNPU_A_COORD = 5, SIMNPU_A_NEAREST = 6,
  /* unary LUT ops' float parameters as IEEE bits (memcpy): hard_sigmoid
   * alpha, beta; leaky_relu and elu alpha; clip min, max */
  SIMNPU_A_F0 = 0, SIMNPU_A_F1 = 1,
  /* pad: before[0..3] then after[0..3], mode (simnpu__pad_mode), the
   * constant in the output's quantised domain */
  SIMNPU_A_PAD0 = 0, SIMNPU_A_PAD_MODE = 8, SIMNPU_A_PAD_VALUE = 9,
  /* reshape: rank then dims (-1 infers one dimension) */
  SIMNPU_A_RANK = 0, SIMNPU_A_DIM0 = 1,
  /* concat, split, slice, softmax, gather (the input's axis; gather's
   * indices are its second input, an i32 constant, and replace that
   * axis by their count) */
  SIMNPU_A_AXIS = 0,
  /* split: output sizes along the axis follow */
  SIMNPU_A_SIZES0 = 1,
  /* slice: begin per dimension of the input (rank-4 padded) in 0..3,
   * size in 4..7 */
  SIMNPU_A_BEGIN0 = 0, SIMNPU_A_SIZE0 = 4,
  /* transpose: permutation in 0..3 */
  SIMNPU_A_PERM0 = 0,
  /* depth_to_space, space_to_depth: block size; depth_to_space's
   * channel order (simnpu__d2s_mode) */
  SIMNPU_A_BLOCK = 0, SIMNPU_A_D2S_MODE = 1,
};

/* depth_to_space: ONNX's modes; output (h * b + i, w * b + j, c) reads
 * input channel (i * b + j) * C + c (DCR, TF's only order) or
 * c * b * b + i * b + j (CRD) */
typedef enum
{
  SIMNPU_D2S_DCR = 0,
  SIMNPU_D2S_CRD = 1,
} simnpu__d2s_mode;

typedef enum
{
  SIMNPU_ACT_NONE = 0,
  SIMNPU_ACT_RELU = 1,
  SIMNPU_ACT_CLIP = 2,
} simnpu__activation;

typedef enum
{
  SIMNPU_RESIZE_MODE_NEAREST = 0,
  SIMNPU_RESIZE_MODE_BILINEAR = 1,
} simnpu__resize_mode;

/* ONNX Resize-13 coordinate_transformation_mode */
typedef enum
{
  SIMNPU_COORD_HALF_PIXEL = 0,
  SIMNPU_COORD_PYTORCH_HALF_PIXEL = 1,
  SIMNPU_COORD_ALIGN_CORNERS = 2,
  SIMNPU_COORD_ASYMMETRIC = 3,
  SIMNPU_COORD_TF_HALF_PIXEL_FOR_NN = 4,
  SIMNPU_N_COORD_MODES
} simnpu__coord_mode;

/* ONNX Resize-13 nearest_mode */
typedef enum
{
  SIMNPU_NEAREST_ROUND_PREFER_FLOOR = 0,
  SIMNPU_NEAREST_ROUND_PREFER_CEIL = 1,
  SIMNPU_NEAREST_FLOOR = 2,
  SIMNPU_NEAREST_CEIL = 3,
  SIMNPU_N_NEAREST_MODES
} simnpu__nearest_mode;

typedef enum
{
  SIMNPU_PAD_CONSTANT = 0,
  SIMNPU_PAD_EDGE = 1,
} simnpu__pad_mode;

G_END_DECLS

#endif /* __SIMNPU_OPS_H__ */
