/* gst-ax
 * Copyright (C) 2026 gst-ax developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

/* The ops' attributes in the JSON graph format: each op type's parser of
 * its "attrs" member, in one table by op type (json.c reads the rest of
 * the op and calls simnpu__op_parse_attrs). */

#include "format-private.h"

#include <math.h>
#include <string.h>

#define RELU6_MAX 6.0
/* ONNX's and TF's defaults */
#define HARD_SIGMOID_ALPHA 0.2
#define HARD_SIGMOID_BETA 0.5
#define LEAKY_RELU_ALPHA 0.01
#define ELU_ALPHA 1.0
/* pad: before and after, per NHWC dimension */
#define N_PADS (2 * SIMNPU_MAX_DIMS)
/* a fused clip's [min, max] */
#define N_CLIP_BOUNDS 2
/* the largest groups and out_channels of a conv2d */
#define MAX_CONV_CHANNELS (1 << 16)

/* "linear" is ONNX's name of bilinear */
static const char *const resize_modes[] = { "nearest", "bilinear", "linear" };

static const char *const coord_modes[SIMNPU_N_COORD_MODES] = {
  [SIMNPU_COORD_HALF_PIXEL] = "half_pixel",
  [SIMNPU_COORD_PYTORCH_HALF_PIXEL] = "pytorch_half_pixel",
  [SIMNPU_COORD_ALIGN_CORNERS] = "align_corners",
  [SIMNPU_COORD_ASYMMETRIC] = "asymmetric",
  [SIMNPU_COORD_TF_HALF_PIXEL_FOR_NN] = "tf_half_pixel_for_nn",
};

static const char *const nearest_modes[SIMNPU_N_NEAREST_MODES] = {
  [SIMNPU_NEAREST_ROUND_PREFER_FLOOR] = "round_prefer_floor",
  [SIMNPU_NEAREST_ROUND_PREFER_CEIL] = "round_prefer_ceil",
  [SIMNPU_NEAREST_FLOOR] = "floor",
  [SIMNPU_NEAREST_CEIL] = "ceil",
};

static const char *const pad_modes[] = { "constant", "edge" };

/* depth_to_space's channel orders, ONNX's names */
static const char *const d2s_modes[] = {
  [SIMNPU_D2S_DCR] = "DCR",
  [SIMNPU_D2S_CRD] = "CRD",
};

static const int64_t ones2[2] = { 1, 1 };
static const int64_t zeros4[4] = { 0, 0, 0, 0 };

/* kernel, stride and padding of pools and convs */
static int
parse_window (simnpu__json_op * j)
{
  int32_t *at = simnpu__json_op_get (j)->attrs;
  int ret;

  if ((ret = simnpu__json_attr_ints (j, "kernel", 2, 1,
              SIMNPU_MAX_KERNEL_DIM, NULL, &at[SIMNPU_A_KH])) < 0
      || (ret = simnpu__json_attr_ints (j, "stride", 2, 1,
              SIMNPU_MAX_KERNEL_DIM, ones2, &at[SIMNPU_A_SH])) < 0
      || (ret = simnpu__json_attr_ints (j, "pad", 4, 0,
              SIMNPU_MAX_KERNEL_DIM, zeros4, &at[SIMNPU_A_PT])) < 0)
    return ret;
  return 0;
}

static int
parse_conv (simnpu__json_op * j)
{
  int32_t *at = simnpu__json_op_get (j)->attrs;
  const char *act;
  int ret;

  if ((ret = parse_window (j)) < 0
      || (ret = simnpu__json_attr_ints (j, "dilation", 2, 1,
              SIMNPU_MAX_KERNEL_DIM, ones2, &at[SIMNPU_A_DH])) < 0
      || (ret = simnpu__json_attr_int (j, "groups", 1, MAX_CONV_CHANNELS, 1,
              false, &at[SIMNPU_A_GROUPS])) < 0
      || (ret = simnpu__json_attr_int (j, "out_channels", 1,
              MAX_CONV_CHANNELS, 0, true, &at[SIMNPU_A_OC])) < 0)
    return ret;
  act = simnpu__json_attr_string (j, "activation");
  if (act == NULL || strcmp (act, "none") == 0) {
    at[SIMNPU_A_ACT] = SIMNPU_ACT_NONE;
  } else if (strcmp (act, "relu") == 0) {
    at[SIMNPU_A_ACT] = SIMNPU_ACT_RELU;
  } else if (strcmp (act, "relu6") == 0) {
    at[SIMNPU_A_ACT] = SIMNPU_ACT_CLIP;
    simnpu__json_pending_clip (j, 0.0, RELU6_MAX);
  } else if (strcmp (act, "clip") == 0) {
    double c[N_CLIP_BOUNDS];
    if ((ret = simnpu__json_attr_reals (j, "clip", N_CLIP_BOUNDS,
                "expected [min, max] (real values) with \"activation\": "
                "\"clip\"", c)) < 0)
      return ret;
    if (c[0] > c[1])
      return simnpu__json_fail (j, SIMNPU_EFORMAT, "attrs.clip",
          "min must be <= max");
    at[SIMNPU_A_ACT] = SIMNPU_ACT_CLIP;
    simnpu__json_pending_clip (j, c[0], c[1]);
  } else {
    return simnpu__json_fail (j, SIMNPU_EUNSUPPORTED, "attrs.activation",
        "expected \"none\", \"relu\", \"relu6\" or \"clip\" (use a separate "
        "sigmoid or silu op)");
  }
  return simnpu__json_conv_params (j);
}

static int
parse_axis (simnpu__json_op * j)
{
  int ret;

  if ((ret = simnpu__json_attr_int (j, "axis", -SIMNPU_MAX_DIMS,
              SIMNPU_MAX_DIMS - 1, -1, false,
              &simnpu__json_op_get (j)->attrs[SIMNPU_A_AXIS])) < 0)
    return ret;
  return simnpu__json_normalise_axis (j);
}

/* gather's axis has no default: ONNX's is the first, TF's a parameter */
static int
parse_gather (simnpu__json_op * j)
{
  int ret;

  if ((ret = simnpu__json_attr_int (j, "axis", -SIMNPU_MAX_DIMS,
              SIMNPU_MAX_DIMS - 1, 0, true,
              &simnpu__json_op_get (j)->attrs[SIMNPU_A_AXIS])) < 0)
    return ret;
  return simnpu__json_normalise_axis (j);
}

static int
parse_split (simnpu__json_op * j)
{
  int32_t *at = simnpu__json_op_get (j)->attrs;
  int64_t sizes[SIMNPU_N_ATTRS];
  unsigned n = 0, i;
  int ret;

  if ((ret = parse_axis (j)) < 0)
    return ret;
  if (!simnpu__json_has_attrs (j))
    return simnpu__json_fail (j, SIMNPU_EFORMAT, "attrs", "missing \"sizes\"");
  if ((ret = simnpu__json_attr_int_array (j, "sizes", 1, SIMNPU_N_ATTRS - 1,
              1, SIMNPU_MAX_TENSOR_ELEMENTS, sizes, &n)) < 0)
    return ret;
  if (simnpu__json_n_outputs (j) != (int) n)
    return simnpu__json_fail (j, SIMNPU_EFORMAT, "attrs",
        "\"sizes\" must have one entry per output");
  for (i = 0; i < n; i++)
    at[SIMNPU_A_SIZES0 + i] = (int32_t) sizes[i];
  return 0;
}

static int
parse_slice (simnpu__json_op * j)
{
  int32_t *at = simnpu__json_op_get (j)->attrs;
  int64_t begin[SIMNPU_MAX_DIMS], size[SIMNPU_MAX_DIMS];
  unsigned rank = simnpu__json_input_rank (j), nb = 0, ns = 0, i, pad;
  int ret;

  if (!simnpu__json_has_attrs (j))
    return simnpu__json_fail (j, SIMNPU_EFORMAT, "attrs",
        "missing \"begin\" and \"size\"");
  if ((ret = simnpu__json_attr_int_array (j, "begin", rank, rank, 0,
              SIMNPU_MAX_TENSOR_ELEMENTS, begin, &nb)) < 0
      || (ret = simnpu__json_attr_int_array (j, "size", rank, rank, 1,
              SIMNPU_MAX_TENSOR_ELEMENTS, size, &ns)) < 0)
    return ret;
  pad = SIMNPU_MAX_DIMS - rank;
  for (i = 0; i < SIMNPU_MAX_DIMS; i++) {
    at[SIMNPU_A_BEGIN0 + i] = i < pad ? 0 : (int32_t) begin[i - pad];
    at[SIMNPU_A_SIZE0 + i] = i < pad ? 1 : (int32_t) size[i - pad];
  }
  return 0;
}

static int
parse_resize (simnpu__json_op * j)
{
  int32_t *at = simnpu__json_op_get (j)->attrs;
  bool sized = simnpu__json_has_attr (j, "size");
  int ret;

  if ((ret = simnpu__json_attr_ints (j, "scale", 2, 1,
              SIMNPU_MAX_KERNEL_DIM, sized ? ones2 : NULL,
              &at[SIMNPU_A_SCALE_H])) < 0
      || (sized && (ret = simnpu__json_attr_ints (j, "size", 2, 1,
                  SIMNPU_MAX_TENSOR_ELEMENTS, NULL, &at[SIMNPU_A_OUT_H])) < 0)
      || (ret = simnpu__json_attr_choice (j, "mode", resize_modes,
              G_N_ELEMENTS (resize_modes), SIMNPU_RESIZE_MODE_NEAREST,
              &at[SIMNPU_A_RESIZE_MODE])) < 0
      || (ret = simnpu__json_attr_choice (j,
              "coordinate_transformation_mode", coord_modes,
              G_N_ELEMENTS (coord_modes), SIMNPU_COORD_HALF_PIXEL,
              &at[SIMNPU_A_COORD])) < 0
      || (ret = simnpu__json_attr_choice (j, "nearest_mode", nearest_modes,
              G_N_ELEMENTS (nearest_modes),
              SIMNPU_NEAREST_ROUND_PREFER_FLOOR, &at[SIMNPU_A_NEAREST])) < 0)
    return ret;
  if (at[SIMNPU_A_RESIZE_MODE] > SIMNPU_RESIZE_MODE_BILINEAR)
    at[SIMNPU_A_RESIZE_MODE] = SIMNPU_RESIZE_MODE_BILINEAR;
  return 0;
}

static void
set_float_params (simnpu__json_op * j, double p0, double p1)
{
  int32_t *at = simnpu__json_op_get (j)->attrs;

  at[SIMNPU_A_F0] = simnpu__float_attr ((float) p0);
  at[SIMNPU_A_F1] = simnpu__float_attr ((float) p1);
}

static int
parse_clip (simnpu__json_op * j)
{
  double p0 = 0.0, p1 = 0.0;
  int ret;

  if ((ret = simnpu__json_attr_number (j, "min", -INFINITY, &p0)) < 0
      || (ret = simnpu__json_attr_number (j, "max", INFINITY, &p1)) < 0)
    return ret;
  if (p0 > p1)
    return simnpu__json_fail (j, SIMNPU_EFORMAT, "attrs", "min must be <= max");
  set_float_params (j, p0, p1);
  return 0;
}

static int
parse_hard_sigmoid (simnpu__json_op * j)
{
  double p0 = 0.0, p1 = 0.0;
  int ret;

  if ((ret = simnpu__json_attr_number (j, "alpha", HARD_SIGMOID_ALPHA,
              &p0)) < 0
      || (ret = simnpu__json_attr_number (j, "beta", HARD_SIGMOID_BETA,
              &p1)) < 0)
    return ret;
  set_float_params (j, p0, p1);
  return 0;
}

/* ops with one real parameter alpha */
static int
parse_alpha (simnpu__json_op * j, double def)
{
  double p0 = 0.0;
  int ret;

  if ((ret = simnpu__json_attr_number (j, "alpha", def, &p0)) < 0)
    return ret;
  set_float_params (j, p0, 0.0);
  return 0;
}

static int
parse_leaky_relu (simnpu__json_op * j)
{
  return parse_alpha (j, LEAKY_RELU_ALPHA);
}

static int
parse_elu (simnpu__json_op * j)
{
  return parse_alpha (j, ELU_ALPHA);
}

static int
parse_pad (simnpu__json_op * j)
{
  int32_t *at = simnpu__json_op_get (j)->attrs;
  int64_t pads[N_PADS];
  double value = 0.0;
  unsigned n = 0, i;
  int ret;

  if (!simnpu__json_has_attrs (j))
    return simnpu__json_fail (j, SIMNPU_EFORMAT, "attrs", "missing \"pads\"");
  if ((ret = simnpu__json_attr_int_array (j, "pads", N_PADS, N_PADS, 0,
              SIMNPU_MAX_TENSOR_ELEMENTS, pads, &n)) < 0
      || (ret = simnpu__json_attr_choice (j, "mode", pad_modes,
              G_N_ELEMENTS (pad_modes), SIMNPU_PAD_CONSTANT,
              &at[SIMNPU_A_PAD_MODE])) < 0
      || (ret = simnpu__json_attr_number (j, "value", 0.0, &value)) < 0)
    return ret;
  for (i = 0; i < N_PADS; i++)
    at[SIMNPU_A_PAD0 + i] = (int32_t) pads[i];
  simnpu__json_pending_pad_value (j, value);
  return 0;
}

static int
parse_reshape (simnpu__json_op * j)
{
  int32_t *at = simnpu__json_op_get (j)->attrs;
  int64_t shape[SIMNPU_MAX_DIMS];
  unsigned n = 0, i;
  int ret;

  if (!simnpu__json_has_attrs (j))
    return simnpu__json_fail (j, SIMNPU_EFORMAT, "attrs", "missing \"shape\"");
  if ((ret = simnpu__json_attr_int_array (j, "shape", 1, SIMNPU_MAX_DIMS, -1,
              SIMNPU_MAX_TENSOR_ELEMENTS, shape, &n)) < 0)
    return ret;
  at[SIMNPU_A_RANK] = (int32_t) n;
  for (i = 0; i < n; i++)
    at[SIMNPU_A_DIM0 + i] = (int32_t) shape[i];
  return 0;
}

static int
parse_transpose (simnpu__json_op * j)
{
  int32_t *at = simnpu__json_op_get (j)->attrs;
  int64_t perm[SIMNPU_MAX_DIMS];
  unsigned rank = simnpu__json_input_rank (j), n = 0, i;
  int ret;

  if (!simnpu__json_has_attrs (j))
    return simnpu__json_fail (j, SIMNPU_EFORMAT, "attrs", "missing \"perm\"");
  if ((ret = simnpu__json_attr_int_array (j, "perm", rank, rank, 0,
              SIMNPU_MAX_DIMS - 1, perm, &n)) < 0)
    return ret;
  for (i = 0; i < n; i++)
    at[SIMNPU_A_PERM0 + i] = (int32_t) perm[i];
  return 0;
}

static int
parse_depth_space (simnpu__json_op * j)
{
  int32_t *at = simnpu__json_op_get (j)->attrs;
  int ret;

  if ((ret = simnpu__json_attr_int (j, "block", 2, SIMNPU_MAX_KERNEL_DIM, 2,
              true, &at[SIMNPU_A_BLOCK])) < 0)
    return ret;
  if (simnpu__json_op_get (j)->type == SIMNPU_OP_DEPTH_TO_SPACE)
    return simnpu__json_attr_choice (j, "mode", d2s_modes,
        G_N_ELEMENTS (d2s_modes), SIMNPU_D2S_DCR, &at[SIMNPU_A_D2S_MODE]);
  return 0;
}

/* each op's attribute parser, NULL for ops without attributes */
static int (*const parsers[SIMNPU_N_OP_TYPES]) (simnpu__json_op * j) = {
  [SIMNPU_OP_CONV2D] = parse_conv,
  [SIMNPU_OP_CONCAT] = parse_axis,
  [SIMNPU_OP_SPLIT] = parse_split,
  [SIMNPU_OP_SLICE] = parse_slice,
  [SIMNPU_OP_MAXPOOL] = parse_window,
  [SIMNPU_OP_AVGPOOL] = parse_window,
  [SIMNPU_OP_RESIZE] = parse_resize,
  [SIMNPU_OP_RESHAPE] = parse_reshape,
  [SIMNPU_OP_TRANSPOSE] = parse_transpose,
  [SIMNPU_OP_SOFTMAX] = parse_axis,
  [SIMNPU_OP_HARD_SIGMOID] = parse_hard_sigmoid,
  [SIMNPU_OP_LEAKY_RELU] = parse_leaky_relu,
  [SIMNPU_OP_CLIP] = parse_clip,
  [SIMNPU_OP_ELU] = parse_elu,
  [SIMNPU_OP_PAD] = parse_pad,
  [SIMNPU_OP_DEPTH_TO_SPACE] = parse_depth_space,
  [SIMNPU_OP_SPACE_TO_DEPTH] = parse_depth_space,
  [SIMNPU_OP_GATHER] = parse_gather,
};

int
simnpu__op_parse_attrs (simnpu__json_op * j)
{
  simnpu__op_type type = simnpu__json_op_get (j)->type;

  if ((unsigned) type >= SIMNPU_N_OP_TYPES || parsers[type] == NULL)
    return 0;
  return parsers[type] (j);
}
