/* gst-ax
 * Copyright (C) 2026 gst-ax developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

/* Internals of libsimnpu, shared by the library, its tools, tests, fuzzers
 * and benchmarks. Not installed. */

#ifndef __SIMNPU_PRIVATE_H__
#define __SIMNPU_PRIVATE_H__

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
 * concat (see kernels.c). */
#define SIMNPU_ELTWISE_SHIFT 24
/* The requantisation ratios a graph may ask for (graph-prepare.c), which
 * the compiler keeps its scales within: a conv's input scale * weight
 * scale / output scale below SIMNPU_MAX_REQUANT_SCALE; the input / output
 * scale of add, sub, maximum, minimum, concat, resize and pad (input *
 * input2 / output for mul) at most SIMNPU_MAX_ELTWISE_RATIO. */
#define SIMNPU_MAX_REQUANT_SCALE 65536.0
#define SIMNPU_MAX_ELTWISE_RATIO 4096.0

SIMNPU_INTERNAL int simnpu__set_error (simnpu_error * error, int code,
    const char *format, ...) G_GNUC_PRINTF (3, 4);
SIMNPU_INTERNAL uint64_t simnpu__monotonic_ns (void);

/* ------------------------------------------------------------------ */
/* Device profiles                                                      */

typedef struct
{
  char name[32];
  char description[128];
  unsigned cores;
  double clock_mhz;
  uint32_t macs_per_cycle;
  uint32_t vector_bytes_per_cycle;
  double compute_efficiency;
  uint64_t onchip_memory_bytes;
  double dma_bytes_per_s;
  double host_copy_bytes_per_s;
  uint64_t job_overhead_ns;
  uint32_t op_overhead_cycles;
  /* separate DMA-in/DMA-out engines plus CDMA and CSS (Torq), or one
   * shared DMA engine (Metis) */
  bool split_dma;
  bool has_cdma_css;
} simnpu__profile;

SIMNPU_INTERNAL int simnpu__profile_parse (const char *spec,
    simnpu__profile * profile, simnpu_error * error);
SIMNPU_INTERNAL void simnpu__profile_to_spec (const simnpu__profile *
    profile, char *buf, size_t size);
SIMNPU_INTERNAL unsigned simnpu__profile_resources (const simnpu__profile *
    profile, simnpu_resource_info * resources, char names[][16]);
SIMNPU_INTERNAL int simnpu__profile_resource_of_kind (const simnpu__profile
    * profile, simnpu_resource_kind kind);

/* ------------------------------------------------------------------ */
/* Graph IR, shared by the JSON loader, the .axm reader and writer and
 * the interpreter. */

typedef enum
{
  SIMNPU_OP_CONV2D = 0,
  SIMNPU_OP_ADD,
  SIMNPU_OP_MUL,
  SIMNPU_OP_CONCAT,
  SIMNPU_OP_SPLIT,
  SIMNPU_OP_SLICE,
  SIMNPU_OP_MAXPOOL,
  SIMNPU_OP_AVGPOOL,
  SIMNPU_OP_RESIZE,
  SIMNPU_OP_RESHAPE,
  SIMNPU_OP_TRANSPOSE,
  SIMNPU_OP_RELU,
  SIMNPU_OP_SIGMOID,
  SIMNPU_OP_SILU,
  SIMNPU_OP_SOFTMAX,
  SIMNPU_OP_TANH,
  SIMNPU_OP_HARD_SWISH,
  SIMNPU_OP_HARD_SIGMOID,
  SIMNPU_OP_LEAKY_RELU,
  SIMNPU_OP_CLIP,
  SIMNPU_OP_ELU,
  SIMNPU_OP_LUT,
  SIMNPU_OP_MEAN,
  SIMNPU_OP_PAD,
  SIMNPU_OP_SUB,
  SIMNPU_OP_MAXIMUM,
  SIMNPU_OP_MINIMUM,
  SIMNPU_N_OP_TYPES
} simnpu__op_type;

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
  /* concat, split, slice, softmax */
  SIMNPU_A_AXIS = 0,
  /* split: output sizes along the axis follow */
  SIMNPU_A_SIZES0 = 1,
  /* slice: begin per dimension of the input (rank-4 padded) in 0..3,
   * size in 4..7 */
  SIMNPU_A_BEGIN0 = 0, SIMNPU_A_SIZE0 = 4,
  /* transpose: permutation in 0..3 */
  SIMNPU_A_PERM0 = 0,
};

typedef enum
{
  SIMNPU_TENSOR_ACTIVATION = 0,
  SIMNPU_TENSOR_INPUT = 1,
  SIMNPU_TENSOR_OUTPUT = 2,
  SIMNPU_TENSOR_CONSTANT = 3,
} simnpu__tensor_kind;

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

/* Fixed-point precision of bilinear resize weights, per axis. */
#define SIMNPU_RESIZE_WEIGHT_BITS 11
/* A resize's index table (simnpu__op.table): per output row, then per
 * output column, the source indices i0, i1 and the weight of i1. */
#define SIMNPU_RESIZE_TAB_I0 0
#define SIMNPU_RESIZE_TAB_I1 1
#define SIMNPU_RESIZE_TAB_W 2
#define SIMNPU_RESIZE_TAB_STRIDE 3

/* Internal element types: the public ones plus i32 for biases. */
#define SIMNPU__DTYPE_I32 3

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
  int n, ih, iw, ic;
  int oh, ow, oc;
  int kh, kw, sh, sw, pt, pl, dh, dw, groups;
  int32_t in_zp, out_zp;
  int32_t act_min, act_max;
} simnpu__conv_params;

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
  /* of a rank-4 image input made by the preamble (the float IR does not
   * say): NHWC or NCHW */
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
  /* set by simnpu__graph_prepare() */
  size_t arena_bytes;
  size_t scratch_bytes;
  uint64_t total_macs;
  uint64_t weight_bytes;
} simnpu__graph;

SIMNPU_INTERNAL simnpu__graph *simnpu__graph_new (void);
SIMNPU_INTERNAL void simnpu__graph_free (simnpu__graph * graph);
SIMNPU_INTERNAL const char *simnpu__label_problem (const char *label);
SIMNPU_INTERNAL size_t simnpu__dtype_size (int dtype);
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
SIMNPU_INTERNAL int simnpu__graph_run (const simnpu__graph * graph,
    uint8_t * arena, int8_t * scratch);
/* as simnpu__graph_run, reading input i from @inputs[i] (one pointer per
 * graph input, 64-byte aligned like the arena) instead of the arena; NULL
 * means the arena */
/* Allocations made on the path of a job (runtime.c): the job records and
 * their buffers, the host sections' executors. Flat once a stream is in
 * its steady state; for the tests. */
SIMNPU_INTERNAL void simnpu__count_job_path_allocation (void);
SIMNPU_INTERNAL unsigned simnpu__job_path_allocations (void);
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

SIMNPU_INTERNAL int simnpu__graph_load_json_file (const char *path,
    bool estimate_only, simnpu__graph ** out, simnpu_error * error);
SIMNPU_INTERNAL int simnpu__graph_load_json_data (const char *data,
    size_t size, const char *base_dir, bool estimate_only,
    simnpu__graph ** out, simnpu_error * error);
/* The deepest array/object nesting of a JSON text, strings skipped (to
 * refuse input that would exhaust json-glib's recursive parser). */
SIMNPU_INTERNAL unsigned simnpu__json_depth (const char *data, size_t size);
/* Whether a JSON text holds an integer literal outside int64 (json-glib
 * wraps those silently: 10^30 reads as -1); if so, @msg names its path
 * ("$.inputs[0].zero_point: 1000...") and the range. */
SIMNPU_INTERNAL bool simnpu__json_find_bad_int (const char *data,
    size_t size, char *msg, size_t msg_size);

/* One op being read from a JSON graph (json.c). The op table's attribute
 * parsers (simnpu__op_parse_attrs) read the op's "attrs" member through
 * these; errors name the op's path in the file. */
typedef struct simnpu__json_op simnpu__json_op;

/* the op's JSON attributes into op->attrs, by the op's table entry */
SIMNPU_INTERNAL int simnpu__op_parse_attrs (simnpu__json_op * j);

SIMNPU_INTERNAL simnpu__op *simnpu__json_op_get (simnpu__json_op * j);
SIMNPU_INTERNAL unsigned simnpu__json_input_rank (simnpu__json_op * j);
SIMNPU_INTERNAL bool simnpu__json_has_attrs (simnpu__json_op * j);
SIMNPU_INTERNAL bool simnpu__json_has_attr (simnpu__json_op * j,
    const char *member);
/* NULL when absent or not a string */
SIMNPU_INTERNAL const char *simnpu__json_attr_string (simnpu__json_op * j,
    const char *member);
/* fails at the op's path followed by "." and where ("attrs", ...) */
SIMNPU_INTERNAL int simnpu__json_fail (simnpu__json_op * j, int code,
    const char *where, const char *what);
/* exactly len integers in [min, max]; defaults when absent, or an error
 * when defaults is NULL */
SIMNPU_INTERNAL int simnpu__json_attr_ints (simnpu__json_op * j,
    const char *member, unsigned len, int64_t min, int64_t max,
    const int64_t * defaults, int32_t * out);
SIMNPU_INTERNAL int simnpu__json_attr_int (simnpu__json_op * j,
    const char *member, int64_t min, int64_t max, int64_t def,
    bool required, int32_t * out);
/* a finite real; def when absent */
SIMNPU_INTERNAL int simnpu__json_attr_number (simnpu__json_op * j,
    const char *member, double def, double *out);
/* one of names[n] (its index); def when absent */
SIMNPU_INTERNAL int simnpu__json_attr_choice (simnpu__json_op * j,
    const char *member, const char *const *names, unsigned n, int def,
    int32_t * out);
/* min_len to max_len integers in [min_v, max_v]; the attrs must exist */
SIMNPU_INTERNAL int simnpu__json_attr_int_array (simnpu__json_op * j,
    const char *member, unsigned min_len, unsigned max_len, int64_t min_v,
    int64_t max_v, int64_t * out, unsigned *len);
/* exactly n finite reals; missing is the message when the member is
 * absent or not an array of n */
SIMNPU_INTERNAL int simnpu__json_attr_reals (simnpu__json_op * j,
    const char *member, unsigned n, const char *missing, double *out);
/* SIMNPU_A_AXIS made non-negative against the input's rank */
SIMNPU_INTERNAL int simnpu__json_normalise_axis (simnpu__json_op * j);
/* the length of the op's "outputs" array, -1 when it is not an array */
SIMNPU_INTERNAL int simnpu__json_n_outputs (simnpu__json_op * j);
/* real bounds of a fused clip (SIMNPU_A_ACT_QMIN/QMAX) and a pad value
 * (SIMNPU_A_PAD_VALUE), quantised once the output's quantisation is
 * known */
SIMNPU_INTERNAL void simnpu__json_pending_clip (simnpu__json_op * j,
    double min, double max);
SIMNPU_INTERNAL void simnpu__json_pending_pad_value (simnpu__json_op * j,
    double value);
/* conv2d's "weights" and "bias" members: constant tensors <name>.weights
 * and <name>.bias become the op's inputs 1 and 2 */
SIMNPU_INTERNAL int simnpu__json_conv_params (simnpu__json_op * j);

/* ------------------------------------------------------------------ */
/* Schedule and cost model                                              */

/* Resource slot SIMNPU__RES_CORE means "the core the job is placed on". */
#define SIMNPU__RES_CORE (-1)
#define SIMNPU__NO_DEP (-1)

typedef struct
{
  simnpu_action_kind kind;
  int32_t resource;
  int32_t op_index;
  int32_t dep;
  int32_t dep2;
  uint64_t bytes;
  uint64_t cycles;
  uint64_t device_ns;
} simnpu__action;

typedef struct
{
  char spec[256];
  unsigned n_actions;
  simnpu__action *actions;
  uint64_t device_ns;
} simnpu__schedule;

SIMNPU_INTERNAL int simnpu__schedule_build (const simnpu__graph * graph,
    const simnpu__profile * profile, simnpu__schedule * schedule,
    simnpu_error * error);
SIMNPU_INTERNAL void simnpu__schedule_finish (simnpu__schedule * schedule,
    const simnpu__profile * profile);
SIMNPU_INTERNAL void simnpu__schedule_clear (simnpu__schedule * schedule);
SIMNPU_INTERNAL void simnpu__schedule_estimate (const simnpu__schedule *
    schedule, const simnpu__profile * profile, uint64_t * start_cycles,
    uint64_t * end_cycles);

/* ------------------------------------------------------------------ */
/* .axm container                                                       */

#define SIMNPU_AXM_MAGIC "SNPUAXM\0"
#define SIMNPU_AXM_MAGIC_BYTES 8
#define SIMNPU_AXM_VERSION_MAJOR 1
/* 1.1 added the labels section; 1.0 files (six sections) still load.
 * 1.2 added the optional host sections (preamble, postamble), the
 * preprocessing record and the decoder JSON. */
#define SIMNPU_AXM_VERSION_MINOR 2
/* 1.3 added the quantisation of the postamble's outputs; a file without
 * it is still written as 1.2 */
#define SIMNPU_AXM_VERSION_MINOR_POSTAMBLE_QUANT 3
/* the decoder parameters of a compiled model (a JSON object) */
#define SIMNPU_MAX_DECODER_BYTES (64 * 1024)
#define SIMNPU_MAX_DECODER_DEPTH 16

SIMNPU_INTERNAL int simnpu__axm_write (const simnpu__graph * graph,
    const simnpu__schedule * schedule, const char *path,
    simnpu_error * error);
SIMNPU_INTERNAL int simnpu__axm_read (const void *data, size_t size,
    simnpu__graph ** out_graph, simnpu__schedule * schedule,
    simnpu_error * error);

/* ------------------------------------------------------------------ */
/* Kernels (kernels.c). Activations are int8 with a per-tensor zero
 * point; all shapes NHWC. */


/* conv2d: weights [oc][kh][kw][ic / groups]; bias with the input zero
 * point folded in (bias - in_zp * sum (w)); scratch of
 * simnpu__conv2d_scratch_bytes. packed: NULL, or the weights packed by
 * simnpu__conv2d_pack into simnpu__conv2d_packed_bytes (64-byte
 * aligned), which runs the fast kernel for the shape (kernels.h); the
 * results are the same bit for bit. */
SIMNPU_INTERNAL void simnpu__conv2d (const simnpu__conv_params * p,
    const int8_t * input, const int8_t * weights, const void *packed,
    const int32_t * bias, const float *scales, int8_t * output,
    int8_t * scratch);
/* the portable kernel alone (the oracle of the fast ones) */
SIMNPU_INTERNAL void simnpu__conv2d_portable (const simnpu__conv_params * p,
    const int8_t * input, const int8_t * weights, const int32_t * bias,
    const float *scales, int8_t * output, int8_t * scratch);
SIMNPU_INTERNAL size_t simnpu__conv2d_scratch_bytes (const
    simnpu__conv_params * p);
/* 0 when no fast kernel takes the shape on this machine */
SIMNPU_INTERNAL size_t simnpu__conv2d_packed_bytes (const
    simnpu__conv_params * p);
SIMNPU_INTERNAL void simnpu__conv2d_pack (const simnpu__conv_params * p,
    const int8_t * weights, void *packed);
SIMNPU_INTERNAL void simnpu__lut (const int8_t * lut, const int8_t * input,
    int8_t * output, size_t n);
SIMNPU_INTERNAL void simnpu__eltwise (simnpu__op_type type,
    const int64_t * in_dims_a, const int8_t * a, int32_t zp_a,
    const int64_t * in_dims_b, const int8_t * b, int32_t zp_b,
    const int64_t * out_dims, int8_t * out, int32_t zp_out,
    int64_t mult_a, int64_t mult_b);
SIMNPU_INTERNAL void simnpu__resize_nearest (const int64_t * in_dims,
    const int8_t * in, const int64_t * out_dims, int8_t * out,
    const int32_t * table, int32_t zp_in, int32_t zp_out, int64_t mult);
/* rows: NULL, or scratch for two rows of horizontal taps, 2 * out_dims[2]
 * * out_dims[3] int32 (see simnpu__resize_bilinear_scratch_bytes) */
SIMNPU_INTERNAL void simnpu__resize_bilinear (const int64_t * in_dims,
    const int8_t * in, const int64_t * out_dims, int8_t * out,
    const int32_t * table, int32_t zp_in, int32_t zp_out, float scale,
    int32_t * rows);
SIMNPU_INTERNAL size_t simnpu__resize_bilinear_scratch_bytes (const int64_t
    * out_dims);
SIMNPU_INTERNAL void simnpu__mean (const int64_t * in_dims, const int8_t * in,
    int8_t * out, int32_t * acc, int32_t zp_in, int32_t zp_out,
    double rescale);
SIMNPU_INTERNAL void simnpu__pad (const int64_t * in_dims, const int8_t * in,
    const int64_t * out_dims, int8_t * out, const int32_t * before,
    bool edge, int8_t value, int32_t zp_in, int32_t zp_out, int64_t mult);
SIMNPU_INTERNAL void simnpu__pool (bool max, const int64_t * in_dims,
    const int8_t * in, const int64_t * out_dims, int8_t * out,
    int kh, int kw, int sh, int sw, int pt, int pl, int32_t zp);
SIMNPU_INTERNAL void simnpu__flip_sign_copy (uint8_t * dst,
    const uint8_t * src, size_t n);
SIMNPU_INTERNAL void simnpu__dequantize (float *dst, const int8_t * src,
    size_t n, float scale, int32_t zp);
SIMNPU_INTERNAL void simnpu__requant_copy (const int8_t * in, int8_t * out,
    size_t n, int32_t zp_in, int32_t zp_out, int64_t mult);
SIMNPU_INTERNAL void simnpu__copy_box (const int8_t * src,
    const int64_t * src_dims, const int64_t * src_begin, int8_t * dst,
    const int64_t * dst_dims, const int64_t * dst_begin,
    const int64_t * size, int32_t zp_in, int32_t zp_out, int64_t mult);
SIMNPU_INTERNAL void simnpu__transpose (const int8_t * in,
    const int64_t * in_strides, const int64_t * out_dims, int8_t * out);
/* for tests: the memory-bound kernels (all but conv2d) run their portable
 * loops even where AVX2 is available */
SIMNPU_INTERNAL void simnpu__kernels_disable_avx2 (bool disable);

G_END_DECLS

#endif /* __SIMNPU_PRIVATE_H__ */
