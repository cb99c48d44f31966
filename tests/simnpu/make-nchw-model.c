/* gst-ax
 * Copyright (C) 2026 gst-ax developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

/* Writes a small NCHW ONNX detector, laid out as every PyTorch export is
 * (input images [1, 3, 32, 32]), with a YOLOv8-style head [1, 4 + 1, 64]:
 * one anchor per 4x4 cell of the input, its box the cell (centre and
 * size in input pixels) and its score a sigmoid of the cell's mean
 * normalised colour, 2 R - G - B - 4, which is above 0.5 for a red cell
 * (after ImageNet's mean and std) and below it for black or grey ones.
 * The build compiles it (tests/simnpu/meson.build) for the pipeline test
 * of an NCHW model (tests/check/elements/axnchw.c).
 *
 *   make-nchw-model OUT.onnx */

#include "onnx-builder.h"

#include <stdio.h>

#define OPSET 11
#define SIZE 32
#define CELL 4
#define GRID (SIZE / CELL)
#define ANCHORS (GRID * GRID)
#define BOX_ROWS 4
#define CHANNELS 3

static const float score_weights[CHANNELS] = { 2.0f, -1.0f, -1.0f };
static const float score_bias[1] = { -4.0f };

int
main (int argc, char **argv)
{
  static const int64_t in_dims[] = { 1, CHANNELS, SIZE, SIZE };
  static const int64_t w_dims[] = { 1, CHANNELS, 1, 1 }, b_dims[] = { 1 };
  static const int64_t box_dims[] = { 1, BOX_ROWS, ANCHORS };
  static const int64_t shape[] = { 1, 1, ANCHORS };
  static const int64_t kernel[] = { CELL, CELL };
  static const char *const pool_in[] = { "images" };
  static const char *const conv_in[] = { "cells", "score_w", "score_b" };
  static const char *const sig_in[] = { "logits" };
  static const char *const reshape_in[] = { "scores", "shape" };
  static const char *const concat_in[] = { "boxes", "score_row" };
  float boxes[BOX_ROWS * ANCHORS];
  onnx_builder b;
  Onnx__NodeProto *n;
  GError *err = NULL;
  guint8 *bytes;
  size_t len;
  int i, j;

  if (argc != 2) {
    fprintf (stderr, "usage: make-nchw-model OUT.onnx\n");
    return 2;
  }
  for (i = 0; i < GRID; i++)
    for (j = 0; j < GRID; j++) {
      int k = i * GRID + j;
      boxes[0 * ANCHORS + k] = (j + 0.5f) * CELL;
      boxes[1 * ANCHORS + k] = (i + 0.5f) * CELL;
      boxes[2 * ANCHORS + k] = CELL;
      boxes[3 * ANCHORS + k] = CELL;
    }
  onnx_builder_init (&b, OPSET);
  onnx_builder_input (&b, "images", 4, in_dims);
  onnx_builder_output (&b, "output0");
  onnx_builder_floats (&b, "score_w", 4, w_dims, score_weights);
  onnx_builder_floats (&b, "score_b", 1, b_dims, score_bias);
  onnx_builder_floats (&b, "boxes", 3, box_dims, boxes);
  onnx_builder_int64s (&b, "shape", shape, G_N_ELEMENTS (shape));
  n = onnx_builder_node (&b, "AveragePool", pool_in, 1, "cells");
  onnx_builder_attr_ints (&b, n, "kernel_shape", kernel, 2);
  onnx_builder_attr_ints (&b, n, "strides", kernel, 2);
  onnx_builder_node (&b, "Conv", conv_in, 3, "logits");
  onnx_builder_node (&b, "Sigmoid", sig_in, 1, "scores");
  onnx_builder_node (&b, "Reshape", reshape_in, 2, "score_row");
  n = onnx_builder_node (&b, "Concat", concat_in, 2, "output0");
  onnx_builder_attr_int (&b, n, "axis", 1);
  bytes = onnx_builder_pack (&b, &len);
  if (!g_file_set_contents (argv[1], (const gchar *) bytes, len, &err)) {
    fprintf (stderr, "make-nchw-model: %s\n", err->message);
    g_error_free (err);
    return 1;
  }
  g_free (bytes);
  onnx_builder_clear (&b);
  return 0;
}
