/* gst-ax
 * Copyright (C) 2026 gst-ax developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

/* The device graph (graph/): tensors, ops, the graph with its host
 * sections, and what the layers above do with it: validate, prepare,
 * run. */

#ifndef __SIMNPU_GRAPH_H__
#define __SIMNPU_GRAPH_H__

#include "kernels/kernels.h"

G_BEGIN_DECLS

typedef enum
{
  SIMNPU_TENSOR_ACTIVATION = 0,
  SIMNPU_TENSOR_INPUT = 1,
  SIMNPU_TENSOR_OUTPUT = 2,
  SIMNPU_TENSOR_CONSTANT = 3,
} simnpu__tensor_kind;

typedef struct
{
  char *name;
  int dtype;
  simnpu_layout layout;
  unsigned n_dims;
  int64_t dims[SIMNPU_MAX_DIMS];
  float scale;
  int32_t zero_point;
  simnpu__tensor_kind kind;
  /* inputs and outputs: the dtype seen by the caller; dtype, scale and
   * zero_point above are the internal int8 representation */
  int io_dtype;
  /* conv weights and bias declared without a full shape in JSON: the
   * shape comes from the op during shape inference */
  bool shape_from_op;
  /* constants: data (may be NULL in shape-only graphs), per-channel scales
   * (n_channel_scales == dims[0], or 0) */
  void *data;
  size_t data_bytes;
  float *channel_scales;
  unsigned n_channel_scales;
  /* set by simnpu__graph_prepare() */
  size_t offset;
  int producer;
} simnpu__tensor;

typedef struct
{
  simnpu__op_type type;
  char *name;
  char *location;
  unsigned n_inputs;
  unsigned inputs[SIMNPU_MAX_OP_INPUTS];
  unsigned n_outputs;
  unsigned outputs[SIMNPU_MAX_OP_OUTPUTS];
  int32_t attrs[SIMNPU_N_ATTRS];
  /* set by simnpu__graph_prepare() */
  uint64_t macs;
  uint64_t weight_bytes;
  float *requant_scales;
  int32_t *bias_folded;
  int8_t *weights_packed;
  int8_t lut[256];
  simnpu__conv_params conv;
  int64_t eltwise_mult[SIMNPU_MAX_OP_INPUTS];
  /* resize: its index table (SIMNPU_RESIZE_TAB_*); resize and mean: input
   * scale / output scale */
  int32_t *table;
  double rescale;
} simnpu__op;

/* How pixels become the model's input, stored in compiled models so that
 * axletterbox applies exactly what calibration used: each channel's value
 * is (pixel * scale - mean[c]) / std[c], pixel in 0..255. */
typedef enum
{
  SIMNPU_COLOR_RGB = 0,
  SIMNPU_COLOR_BGR,
  SIMNPU_COLOR_GRAY,
} simnpu__color_order;

typedef enum
{
  SIMNPU_RESIZE_LETTERBOX = 0,  /* keep aspect ratio, pad centred */
  SIMNPU_RESIZE_STRETCH,
} simnpu__resize_kind;

typedef struct
{
  simnpu__color_order color;
  simnpu__resize_kind resize;
  uint8_t fill;                 /* letterbox padding, each channel */
  float scale;
  float mean[3];
  float std[3];
  /* the model's layout (the float IR does not say), NHWC or NCHW: that of
   * its rank-4 image input, which its rank-4 outputs share */
  simnpu_layout layout;
} simnpu__preprocess;

struct _simnpu__ir_graph;

typedef struct
{
  char *name;
  bool estimate_only;
  unsigned n_tensors;
  simnpu__tensor *tensors;
  unsigned n_ops;
  simnpu__op *ops;
  unsigned n_inputs;
  unsigned inputs[SIMNPU_MAX_IO];
  unsigned n_outputs;
  unsigned outputs[SIMNPU_MAX_IO];
  unsigned n_labels;
  char **labels;                /* n_labels + 1, NULL-terminated */
  /* Compiled models (.axm >= 1.2). Host sections run on the host around
   * the device graph, bound by tensor name: the preamble's outputs are
   * device inputs, the postamble's inputs are device outputs. NULL when
   * absent. */
  struct _simnpu__ir_graph *preamble;
  struct _simnpu__ir_graph *postamble;
  /* how the caller gets each postamble output (.axm >= 1.3): f32, or
   * quantised at the postamble's end into u8/i8 with this scale and zero
   * point; when !has_postamble_quant all are f32 */
  bool has_postamble_quant;
  struct
  {
    simnpu_dtype dtype;
    float scale;
    int32_t zero_point;
  } postamble_quant[SIMNPU_MAX_IO];
  bool has_preprocess;
  simnpu__preprocess preprocess;
  /* decoder type and parameters, a JSON object ({"type": "ssd", ...}),
   * or NULL */
  char *decoder;
  /* the files besides its own that the source model names (a JSON
   * graph's weights_file), NULL-terminated; NULL if none. A tool must
   * not write over them. */
  char **model_files;
  /* set before simnpu__graph_prepare() by a caller that reads every
   * tensor of the arena after a run (the compiler's accuracy report):
   * each tensor then has bytes of its own instead of the memory plan's */
  bool keep_tensors;
  /* set by simnpu__graph_prepare(): the arena of the layout in use, and
   * the planned and flat (each tensor apart) sizes; the runtime's limit
   * applies to the planned one */
  size_t arena_bytes;
  size_t arena_planned_bytes;
  size_t arena_flat_bytes;
  size_t scratch_bytes;
  uint64_t total_macs;
  uint64_t weight_bytes;
} simnpu__graph;

SIMNPU_INTERNAL simnpu__graph *simnpu__graph_new (void);
SIMNPU_INTERNAL void simnpu__graph_free (simnpu__graph * graph);
SIMNPU_INTERNAL const char *simnpu__label_problem (const char *label);
SIMNPU_INTERNAL int64_t simnpu__tensor_elements (const simnpu__tensor * t);
SIMNPU_INTERNAL size_t simnpu__tensor_bytes (const simnpu__tensor * t);
SIMNPU_INTERNAL int simnpu__graph_infer_shapes (simnpu__graph * graph,
    simnpu_error * error);
SIMNPU_INTERNAL int simnpu__graph_infer_op (simnpu__graph * graph,
    unsigned op_index, const bool * avail, simnpu_error * error);
SIMNPU_INTERNAL int simnpu__graph_validate (simnpu__graph * graph,
    simnpu_error * error);
SIMNPU_INTERNAL int simnpu__graph_prepare (simnpu__graph * graph,
    simnpu_error * error);
/* The arena's size with the memory plan (tensors whose live ranges, from
 * the op making them to the last op reading them, overlap never share
 * bytes; inputs live from the first op, outputs past the last) and
 * without it (each tensor apart); either pointer may be NULL. */
SIMNPU_INTERNAL void simnpu__graph_plan_memory (const simnpu__graph * graph,
    size_t *planned_bytes, size_t *flat_bytes);
/* the alignment of every tensor in an arena: vector loads stay aligned */
#define SIMNPU_ARENA_ALIGN 64
SIMNPU_INTERNAL int simnpu__graph_run (const simnpu__graph * graph,
    uint8_t * arena, int8_t * scratch);
/* as simnpu__graph_run, reading input i from @inputs[i] (one pointer per
 * graph input, 64-byte aligned like the arena) instead of the arena; NULL
 * means the arena */
SIMNPU_INTERNAL int simnpu__graph_run_inputs (const simnpu__graph * graph,
    uint8_t * arena, int8_t * scratch, const int8_t * const *inputs);
SIMNPU_INTERNAL void simnpu__build_lut (simnpu__op_type type, float in_scale,
    int32_t in_zp, float out_scale, int32_t out_zp, int8_t * lut);
/* as simnpu__build_lut, with the op's float parameters p0, p1 (the values
 * of SIMNPU_A_F0 and SIMNPU_A_F1) */
SIMNPU_INTERNAL void simnpu__build_lut_params (simnpu__op_type type,
    float p0, float p1, float in_scale, int32_t in_zp, float out_scale,
    int32_t out_zp, int8_t * lut);
/* float <-> attribute bits */
SIMNPU_INTERNAL float simnpu__attr_float (int32_t bits);
SIMNPU_INTERNAL int32_t simnpu__float_attr (float value);

/* how the cost model counts an op's work */
typedef enum
{
  SIMNPU__COST_MACS,            /* on the MAC array */
  SIMNPU__COST_OUTPUT_BYTES,    /* vector unit, once per output byte */
  SIMNPU__COST_WINDOW_BYTES,    /* once per output byte and window tap */
  SIMNPU__COST_INPUT_BYTES,     /* a reduction reads its whole input */
  SIMNPU__COST_RESIZE           /* bilinear reads four taps per output */
} simnpu__op_cost;

/* which ops a copy engine (CDMA) may run: bilinear resize computes,
 * nearest resize only moves data */
typedef enum
{
  SIMNPU__COMPUTES,
  SIMNPU__MOVES_DATA,
  SIMNPU__MOVES_DATA_IF_NEAREST
} simnpu__op_movement;

/* the op table's cost and movement of @type (SIMNPU__COST_OUTPUT_BYTES and
 * SIMNPU__COMPUTES when out of range) */
SIMNPU_INTERNAL simnpu__op_cost simnpu__op_cost_of (simnpu__op_type type);
SIMNPU_INTERNAL simnpu__op_movement simnpu__op_movement_of (simnpu__op_type
    type);
/* the taps a bilinear resize reads per output */
#define SIMNPU__RESIZE_BILINEAR_TAPS 4

/* Host sections of a compiled model (graph-host.c): the binding rule
 * between the float preamble and postamble and the device graph. */
#define SIMNPU__N_HOST_SECTIONS 2

/* Checks the host sections of a validated device graph: every preamble
 * output is a distinct device input of the same element count, every
 * postamble input a distinct device output of the same element count,
 * section inputs and outputs are f32, public tensors have rank 1 to 4 and
 * distinct names, and at most SIMNPU_MAX_IO of each. */
SIMNPU_INTERNAL int simnpu__host_check (const simnpu__graph * g,
    simnpu_error * error);
/* index of the device input (@inputs) or output named @name, or -1 */
SIMNPU_INTERNAL int simnpu__graph_find_io (const simnpu__graph * g,
    bool inputs, const char *name);

G_END_DECLS

#endif /* __SIMNPU_GRAPH_H__ */
