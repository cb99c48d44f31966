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

#include "graph/graph.h"
#include "ir/ir.h"

G_BEGIN_DECLS
/* ------------------------------------------------------------------ */
/* Front-ends. Each returns a graph whose nodes are in execution order and
 * whose shapes are inferred (simnpu__ir_infer_shapes() succeeded), or a
 * SIMNPU_E* code with error naming the node, field or file at fault. */
/* The shape a user gives an input whose shape the model leaves open
 * (simnpu-compile --input-shape NAME=DIMS). */
    typedef struct
{
  char *name;                   /* NULL: the model's only input */
  unsigned rank;
  int64_t dims[SIMNPU_IR_MAX_RANK];
} simnpu__input_shape;

/* The value a user fixes an input to (simnpu-compile --input-value
 * NAME=NUMBER): the input becomes a constant of that value in every
 * element, of the shape --input-shape gives it, else of the model's
 * static shape, else (an input of unknown rank) a scalar. */
typedef struct
{
  char *name;
  double value;
} simnpu__input_value;

typedef struct
{
  const simnpu__input_shape *items;
  unsigned n;
  /* set by the front-end: which items an input took */
  bool used[SIMNPU_IR_MAX_INPUTS];
  /* the inputs fixed to a value (may be NULL), and which an input took */
  const simnpu__input_value *values;
  unsigned n_values;
  bool values_used[SIMNPU_IR_MAX_INPUTS];
} simnpu__input_shapes;

/* Parses "NAME=1x3x480x640" or "1x3x480x640" into *out (name g_malloc'd
 * or NULL); false with a message in error for anything else. */
SIMNPU_INTERNAL bool simnpu__input_shape_parse (const char *spec,
    simnpu__input_shape * out, simnpu_error * error);
/* The shape of a model input declared with rank (rank_known false: any)
 * and dims (-1: dynamic), from the shapes the user gave: the given shape
 * must agree with every static dim; without one, a dynamic dim 0 (the
 * batch) becomes 1, said in a note, and any other dynamic dim, or an
 * unknown rank, is an error naming the input, the dim and the option.
 * n_model_inputs is the model's count of inputs (an unnamed shape is for
 * the only one). For the front-ends. */
SIMNPU_INTERNAL int simnpu__input_shape_resolve (simnpu__input_shapes *
    shapes, unsigned n_model_inputs, const char *input, bool rank_known,
    unsigned *rank, int64_t * dims, simnpu_error * error);
/* Parses "NAME=NUMBER" (a finite decimal number) into *out (name
 * g_malloc'd); false with a message in error for anything else. */
SIMNPU_INTERNAL bool simnpu__input_value_parse (const char *spec,
    simnpu__input_value * out, simnpu_error * error);
/* The value given for the input of that name, or NULL; marks it used. */
SIMNPU_INTERNAL const simnpu__input_value
    *simnpu__input_value_find (simnpu__input_shapes * shapes,
    const char *input);
/* The constant an input fixed to value becomes: its shape as
 * simnpu__input_shape_resolve() gives it, except that an unknown rank
 * without a given shape is a scalar; its data (g_malloc'd, *data_out)
 * value in every element of dtype, which must hold it (a whole number for
 * an integer dtype, 0 or 1 for a bool). */
SIMNPU_INTERNAL int simnpu__input_value_resolve (simnpu__input_shapes *
    shapes, unsigned n_model_inputs, const simnpu__input_value * v,
    simnpu__ir_dtype dtype, bool rank_known, unsigned *rank, int64_t * dims,
    void **data_out, simnpu_error * error);
/* Whether each tensor's value depends on the graph inputs' values (a
 * Shape's does not): what is left once a graph is cut before its control
 * flow is computed from them, the rest folds to constants. g_free() the
 * array (one per tensor). */
SIMNPU_INTERNAL bool *simnpu__import_data_dependent (const simnpu__ir_graph *
    g);
/* An error when a given shape or value named no input of the model. */
SIMNPU_INTERNAL int simnpu__input_shapes_check_used (const
    simnpu__input_shapes * shapes, const simnpu__ir_graph * g,
    simnpu_error * error);

/* ONNX (opsets 7 to 21), from a file or from memory. Layout: the graph
 * keeps the model's NCHW tensors at its inputs and outputs; spatial ops
 * are wrapped in transposes to NHWC (see ir.h). A dynamic input dimension
 * takes its size from shapes (may be NULL); see
 * simnpu__input_shape_resolve(). */
SIMNPU_INTERNAL int simnpu__onnx_load_file (const char *path,
    simnpu__ir_graph ** out, simnpu_error * error);
SIMNPU_INTERNAL int simnpu__onnx_load_file_shaped (const char *path,
    simnpu__input_shapes * shapes, simnpu__ir_graph ** out,
    simnpu_error * error);
SIMNPU_INTERNAL int simnpu__onnx_load_data (const void *data, size_t size,
    simnpu__ir_graph ** out, simnpu_error * error);
SIMNPU_INTERNAL int simnpu__onnx_load_data_shaped (const void *data,
    size_t size, simnpu__input_shapes * shapes, simnpu__ir_graph ** out,
    simnpu_error * error);
/* Reads a TensorProto (.pb of ONNX's backend test data) into a new
 * constant-like tensor description: dtype, rank, dims and data
 * (g_malloc'd, *data_out). */
SIMNPU_INTERNAL int simnpu__onnx_read_tensor (const void *data, size_t size,
    char **name_out, simnpu__ir_dtype * dtype_out, unsigned *rank_out,
    int64_t * dims_out, void **data_out, simnpu_error * error);

/* TF.js graph model: model.json (GraphDef as JSON under modelTopology,
 * weightsManifest) and its .bin shards beside it. The graph is NHWC as TF
 * models are; a placeholder's dynamic dims and unknown rank take their
 * sizes from shapes (may be NULL), as ONNX's inputs do. Control flow
 * (while loops, conds) is cut off with what depends on it, and what it
 * reads becomes the outputs, said in a note. */
SIMNPU_INTERNAL int simnpu__tfjs_load_file (const char *model_json,
    simnpu__ir_graph ** out, simnpu_error * error);
SIMNPU_INTERNAL int simnpu__tfjs_load_file_shaped (const char *model_json,
    simnpu__input_shapes * shapes, simnpu__ir_graph ** out,
    simnpu_error * error);
/* From memory: the model.json text, and a callback that returns a shard's
 * bytes by its manifest path (for the fuzzer and tests), or NULL, setting
 * @error (or leaving it NULL for "missing or unreadable"). */
typedef GBytes *(*simnpu__tfjs_shard_reader) (const char *path,
    gpointer user_data, GError ** error);
SIMNPU_INTERNAL int simnpu__tfjs_load_data (const char *json, size_t size,
    simnpu__tfjs_shard_reader reader, gpointer user_data,
    simnpu__ir_graph ** out, simnpu_error * error);
SIMNPU_INTERNAL int simnpu__tfjs_load_data_shaped (const char *json,
    size_t size, simnpu__tfjs_shard_reader reader, gpointer user_data,
    simnpu__input_shapes * shapes, simnpu__ir_graph ** out,
    simnpu_error * error);

typedef enum
{
  SIMNPU_MODEL_FORMAT_UNKNOWN = 0,
  SIMNPU_MODEL_FORMAT_SIMNPU_JSON,      /* our int8 JSON graph */
  SIMNPU_MODEL_FORMAT_ONNX,
  SIMNPU_MODEL_FORMAT_TFJS,
} simnpu__model_format;

/* By the file name and its first bytes. */
SIMNPU_INTERNAL simnpu__model_format simnpu__model_format_of (const char *path);
/* Imports an ONNX or TF.js model and prepares it for simnpu__compile():
 * cuts at inputs / outputs (comma-separated tensor names, or NULL), folds
 * constants, cancels layout transposes, fuses and prunes. */
SIMNPU_INTERNAL int simnpu__import_model (const char *path,
    const char *inputs, const char *outputs, simnpu__ir_graph ** out,
    simnpu_error * error);
/* The same, with the shapes of inputs the model leaves open (may be
 * NULL). */
SIMNPU_INTERNAL int simnpu__import_model_shaped (const char *path,
    const char *inputs, const char *outputs, simnpu__input_shapes * shapes,
    simnpu__ir_graph ** out, simnpu_error * error);

/* ------------------------------------------------------------------ */
/* Partition, calibration, quantisation and lowering (quantize.c) */

/* Where a node runs: the public section kinds of a compiled model. */
typedef simnpu_section_kind simnpu__section;

/* The ways the compiler protects accuracy where per-tensor int8 loses it. */
typedef enum
{
  SIMNPU_TECHNIQUE_NONE = 0,
  /* bias correction (Nagel et al. 2019): each conv's expected output
   * error from its own weight rounding, from its input's per-channel means
   * on the calibration set, is removed from its bias */
  SIMNPU_TECHNIQUE_BIAS_CORRECTION = 1 << 0,
  /* cross-layer equalisation of conv -> (relu) -> conv pairs (Nagel et
   * al. 2019) before weight quantisation */
  SIMNPU_TECHNIQUE_EQUALIZATION = 1 << 1,
  /* the layers that make an output whose int8 SQNR stays below
   * fallback_db run on the host in float (in the postamble) */
  SIMNPU_TECHNIQUE_HOST_FALLBACK = 1 << 2,
  /* each activation's range chosen from its histogram on the calibration
   * set to minimise the expected squared error of int8 rounding plus
   * clipping, instead of its min/max (outputs and logits keep min/max) */
  SIMNPU_TECHNIQUE_MSE_RANGES = 1 << 3,
  /* SIMNPU_TECHNIQUE_MSE_RANGES where it measures better: ranges fitted
   * on half the calibration images, both ways, judged on the model's
   * outputs on the other half */
  SIMNPU_TECHNIQUE_MEASURED_RANGES = 1 << 4,
} simnpu__technique;

typedef struct
{
  const char *name;             /* model name (default: the graph's) */
  const char *device;           /* device profile spec (default metis) */
  bool has_preprocess;
  simnpu__preprocess preprocess;
  /* graph input 0's calibration and validation tensors (float, that
   * input's element count each); an empty calibration set means random
   * data */
  GPtrArray *calibration;
  GPtrArray *validation;
  /* the model's other inputs, recurrent states: recurrent_inputs[i] is
   * fed, image after image, what the previous image gave output
   * recurrent_outputs[i] (zeros for the first image), in each set's
   * order; NULL-terminated alike, or NULL. Any other input beyond input
   * 0 is an error. */
  char **recurrent_inputs;
  char **recurrent_outputs;
  /* lower bound of the range of logits that feed a sigmoid or softmax,
   * inside the graph or (logit_outputs) in the decoder */
  float logit_floor;
  char **logit_outputs;
  /* dtype of the model's outputs seen by the caller: SIMNPU_DTYPE_I8
   * (the decoder dequantises) or SIMNPU_DTYPE_F32; with i8 the device
   * outputs keep their int8 quantisation and the postamble's outputs are
   * quantised at its end from their calibrated ranges */
  int output_dtype;
  unsigned techniques;          /* simnpu__technique flags */
  double fallback_db;           /* SIMNPU_TECHNIQUE_HOST_FALLBACK's bar */
  /* foreground for the accuracy report: outputs whose float value above
   * fg_threshold marks an object at a position (all axes but the last);
   * each output with as many positions shares that mask. NULL: no
   * foreground figures. */
  char **fg_outputs;
  float fg_threshold;
  bool fg_logit;                /* fg_output holds logits: compare sigmoid */
  char **labels;
  const char *decoder;          /* JSON object text, or NULL */
  /* the share of the model's MACs (0..1) that host fallback may move to
   * the postamble beyond each low-SQNR output's own layers */
  double fallback_mac_share;
} simnpu__compile_options;

typedef struct
{
  char *name;
  double sqnr_calib_db, sqnr_valid_db;
  double fg_sqnr_calib_db, fg_sqnr_valid_db;    /* NAN when none */
  uint64_t fg_elements_valid;
} simnpu__output_accuracy;

typedef struct
{
  /* node placement, indexed like the input graph's nodes */
  unsigned n_nodes;
  simnpu__section *placement;
  uint64_t device_macs, host_macs;
  unsigned n_outputs;
  simnpu__output_accuracy *outputs;
  unsigned techniques_applied;
  unsigned n_fallback;          /* layers moved to the host by it */
  unsigned n_equalized;         /* conv pairs equalised */
  /* the whole human-readable report (placement table, accuracy) */
  GString *text;
} simnpu__compile_result;

SIMNPU_INTERNAL void simnpu__compile_options_init (simnpu__compile_options *
    opts);
/* Compiles a float graph (front-end output, fused and cut) into a device
 * graph with host sections, quantised with the options' calibration set.
 * The graph is modified (ranges recorded). On success *out holds a
 * prepared graph for simnpu__schedule_build() and simnpu__axm_write(). */
SIMNPU_INTERNAL int simnpu__compile (simnpu__ir_graph * g,
    const simnpu__compile_options * opts, simnpu__graph ** out,
    simnpu__compile_result * result, simnpu_error * error);
SIMNPU_INTERNAL void simnpu__compile_result_clear (simnpu__compile_result *
    result);
/* Why a node cannot run on the device, or NULL when it can. */
/* A transposed convolution (NHWC, one stride s for both axes, no
 * dilation, one group) as pad, a stride-1 conv of s * s * M output
 * channels, depth_to_space (block s, DCR) and a slice (import-deconv.c).
 * Per axis (h, w): the caller sets in, kernel, out (the output size) and
 * crop (where the output starts in the full output x * s + k, the
 * transposed conv's begin padding; may be negative); make fills the rest,
 * or returns false when the plan would need a negative padding. */
typedef struct
{
  int64_t in[2], kernel[2], out[2], crop[2];
  int64_t stride;
  /* set by simnpu__deconv_plan_make () */
  int64_t taps[2];              /* the conv's kernel: ceil (kernel / s) */
  int32_t pad_before[2], pad_after[2];
  int64_t conv_out[2];
  int64_t slice_begin[2];       /* in depth_to_space's output */
} simnpu__deconv_plan;

/* index of the strides of a transposed conv's weights, by axis */
enum
{
  SIMNPU_DECONV_W_IN = 0, SIMNPU_DECONV_W_OUT, SIMNPU_DECONV_W_H,
  SIMNPU_DECONV_W_W, SIMNPU_DECONV_W_N_STRIDES
};

SIMNPU_INTERNAL bool simnpu__deconv_plan_make (simnpu__deconv_plan * p);
/* whether the depth_to_space's output differs from the output */
SIMNPU_INTERNAL bool simnpu__deconv_needs_slice (const simnpu__deconv_plan * p);
/* The conv's OHWI weights [s * s * cout][taps h][taps w][cin] and bias
 * [s * s * cout] (bias NULL: zeros; out_bias NULL: none) from the
 * transposed conv's weights w, element (in c, out m, h, w) at
 * w[sum of index * w_strides[SIMNPU_DECONV_W_*]]. */
SIMNPU_INTERNAL void simnpu__deconv_weights (const simnpu__deconv_plan * p,
    const float *w, const int64_t * w_strides, int64_t cin, int64_t cout,
    const float *bias, float *ohwi, float *out_bias);
SIMNPU_INTERNAL const char *simnpu__device_refusal (const simnpu__ir_graph *
    g, const simnpu__ir_node * n);

G_END_DECLS
#endif /* __SIMNPU_COMPILER_H__ */
