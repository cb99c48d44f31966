/* gst-ax
 * Copyright (C) 2026 gst-ax developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

/* The model compiler's internal interface: front-ends into the float IR
 * (ir.h), calibration, quantisation and lowering to the device graph. */

#ifndef __SIMNPU_COMPILER_H__
#define __SIMNPU_COMPILER_H__

#include "ir.h"

G_BEGIN_DECLS

/* ------------------------------------------------------------------ */
/* Front-ends. Each returns a graph whose nodes are in execution order and
 * whose shapes are inferred (simnpu__ir_infer_shapes() succeeded), or a
 * SIMNPU_E* code with error naming the node, field or file at fault. */

/* ONNX (opsets 11 to 17), from a file or from memory. Layout: the graph
 * keeps the model's NCHW tensors at its inputs and outputs; spatial ops
 * are wrapped in transposes to NHWC (see ir.h). A dynamic input dimension
 * is set to 1. */
SIMNPU_INTERNAL int simnpu__onnx_load_file (const char *path,
    simnpu__ir_graph ** out, simnpu_error * error);
SIMNPU_INTERNAL int simnpu__onnx_load_data (const void *data, size_t size,
    simnpu__ir_graph ** out, simnpu_error * error);
/* Reads a TensorProto (.pb of ONNX's backend test data) into a new
 * constant-like tensor description: dtype, rank, dims and data
 * (g_malloc'd, *data_out). */
SIMNPU_INTERNAL int simnpu__onnx_read_tensor (const void *data, size_t size,
    char **name_out, simnpu__ir_dtype * dtype_out, unsigned *rank_out,
    int64_t * dims_out, void **data_out, simnpu_error * error);

/* TF.js graph model: model.json (GraphDef as JSON under modelTopology,
 * weightsManifest) and its .bin shards beside it. The graph is NHWC as TF
 * models are; a dynamic batch dimension is set to 1. */
SIMNPU_INTERNAL int simnpu__tfjs_load_file (const char *model_json,
    simnpu__ir_graph ** out, simnpu_error * error);
/* From memory: the model.json text, and a callback that returns a shard's
 * bytes by its manifest path (for the fuzzer and tests). */
typedef GBytes *(*simnpu__tfjs_shard_reader) (const char *path,
    gpointer user_data);
SIMNPU_INTERNAL int simnpu__tfjs_load_data (const char *json, size_t size,
    simnpu__tfjs_shard_reader reader, gpointer user_data,
    simnpu__ir_graph ** out, simnpu_error * error);

G_END_DECLS

#endif /* __SIMNPU_COMPILER_H__ */
