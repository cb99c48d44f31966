/* gst-ax
 * Copyright (C) 2026 gst-ax developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

/* A small compiled model with host sections, for the tests of the 1.2
 * container, the host-section API, axinference and the fuzz seed:
 *
 *   image f32 [1, 2, 2, 3]
 *     -> preamble: x = image * 2 + 1            (float, on the host)
 *     -> device:   y = relu (x) i8, z = relu (x) u8, scale 0.1
 *     -> postamble: prob = sigmoid (y)          (float, on the host)
 *
 * Public inputs: image. Public outputs: prob (the postamble's), then z
 * (a device output the postamble does not consume). The expected values
 * are computed by hand in host-model-values.h. */

#ifndef __SIMNPU_TEST_HOST_MODEL_H__
#define __SIMNPU_TEST_HOST_MODEL_H__

#include "simnpu-private.h"
#include "ir/ir.h"
#include "host-model-values.h"

#include <string.h>

#define HOST_MODEL_DECODER "{\"type\": \"test\", \"threshold\": 0.5}"
#define HOST_MODEL_FILL 114
#define HOST_MODEL_PIXEL_SCALE (1.0f / 255.0f)

#define HOST_MODEL_DEVICE_JSON \
  "{\"format\": \"simnpu-graph\", \"version\": 1, \"name\": " \
  "\"host-sections\", \"inputs\": [{\"name\": \"x\", \"shape\": " \
  "[1, 2, 2, 3], \"dtype\": \"i8\", \"scale\": 0.1}], \"outputs\": " \
  "[{\"name\": \"y\", \"dtype\": \"i8\", \"scale\": 0.1}, {\"name\": " \
  "\"z\", \"dtype\": \"u8\", \"scale\": 0.1, \"zero_point\": 128}], " \
  "\"ops\": [{\"name\": \"r1\", \"type\": \"relu\", \"inputs\": [\"x\"], " \
  "\"outputs\": [\"y\"]}, {\"name\": \"r2\", \"type\": \"relu\", " \
  "\"inputs\": [\"x\"], \"outputs\": [\"z\"]}]}"

static inline int
host_model_scalar (simnpu__ir_graph * g, const char *name, float v)
{
  float *data = g_new (float, 1);

  *data = v;
  return simnpu__ir_add_const (g, name, SIMNPU_IR_F32, 0, NULL, data);
}

/* image -> x = image * 2 + 1 */
static inline simnpu__ir_graph *
host_model_preamble (void)
{
  simnpu__ir_graph *g = simnpu__ir_graph_new ("pre");
  int image = simnpu__ir_add_tensor (g, "image", SIMNPU_IR_F32, 4,
      host_model_dims);
  int two = host_model_scalar (g, "two", HOST_MODEL_PRE_MUL);
  int one = host_model_scalar (g, "one", HOST_MODEL_PRE_ADD);
  int scaled = simnpu__ir_add_tensor (g, "scaled", SIMNPU_IR_F32, 0, NULL);
  int x = simnpu__ir_add_tensor (g, "x", SIMNPU_IR_F32, 0, NULL);
  int in_mul[2] = { image, two }, in_add[2] = { scaled, one };

  simnpu__ir_add_node (g, SIMNPU_IR_MUL, "mul", 2, in_mul, 1, &scaled);
  simnpu__ir_add_node (g, SIMNPU_IR_ADD, "add", 2, in_add, 1, &x);
  g->n_inputs = 1;
  g->inputs[0] = image;
  g->n_outputs = 1;
  g->outputs[0] = x;
  return g;
}

/* y -> prob = sigmoid (y) */
static inline simnpu__ir_graph *
host_model_postamble (void)
{
  simnpu__ir_graph *g = simnpu__ir_graph_new ("post");
  int y = simnpu__ir_add_tensor (g, "y", SIMNPU_IR_F32, 4, host_model_dims);
  int prob = simnpu__ir_add_tensor (g, "prob", SIMNPU_IR_F32, 0, NULL);

  simnpu__ir_add_node (g, SIMNPU_IR_SIGMOID, "sigmoid", 1, &y, 1, &prob);
  g->n_inputs = 1;
  g->inputs[0] = y;
  g->n_outputs = 1;
  g->outputs[0] = prob;
  return g;
}

/* The device graph with both host sections, preprocessing and a decoder
 * attached, ready to write (shapes inferred, graph prepared). */
static inline simnpu__graph *
host_model_graph (simnpu_error * error)
{
  simnpu__graph *g = NULL;
  const char *json = HOST_MODEL_DEVICE_JSON;
  unsigned c;

  if (simnpu__graph_load_json_data (json, strlen (json), ".", false, &g,
          error) < 0 || simnpu__graph_prepare (g, error) < 0) {
    simnpu__graph_free (g);
    return NULL;
  }
  g->preamble = host_model_preamble ();
  g->postamble = host_model_postamble ();
  if (simnpu__ir_infer_shapes (g->preamble, error) < 0
      || simnpu__ir_infer_shapes (g->postamble, error) < 0) {
    simnpu__graph_free (g);
    return NULL;
  }
  g->has_preprocess = true;
  g->preprocess.color = SIMNPU_COLOR_BGR;
  g->preprocess.resize = SIMNPU_RESIZE_LETTERBOX;
  g->preprocess.fill = HOST_MODEL_FILL;
  g->preprocess.scale = HOST_MODEL_PIXEL_SCALE;
  g->preprocess.layout = SIMNPU_LAYOUT_NHWC;
  for (c = 0; c < 3; c++) {
    g->preprocess.mean[c] = 0.1f * (float) c;
    g->preprocess.std[c] = 1.0f + (float) c;
  }
  g->decoder = g_strdup (HOST_MODEL_DECODER);
  return g;
}

/* Writes the model for the "metis" profile. */
static inline int
host_model_write_graph (simnpu__graph * g, const char *path,
    simnpu_error * error)
{
  simnpu__profile p;
  simnpu__schedule s = { 0 };
  int ret;

  if ((ret = simnpu__profile_parse ("metis", &p, error)) < 0
      || (ret = simnpu__schedule_build (g, &p, &s, error)) < 0)
    return ret;
  ret = simnpu__axm_write (g, &s, path, error);
  simnpu__schedule_clear (&s);
  return ret;
}

static inline int
host_model_write (const char *path, simnpu_error * error)
{
  simnpu__graph *g = host_model_graph (error);
  int ret;

  if (g == NULL)
    return error ? error->code : SIMNPU_EINTERNAL;
  ret = host_model_write_graph (g, path, error);
  simnpu__graph_free (g);
  return ret;
}

#endif /* __SIMNPU_TEST_HOST_MODEL_H__ */
