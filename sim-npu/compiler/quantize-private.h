/* gst-ax
 * Copyright (C) 2026 gst-ax developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

/* What the files of the compiler's back end share: the compile context
 * (placement and quantisation of every node and tensor), the calibration
 * statistics and the accuracy evaluator, and the steps simnpu__compile()
 * runs.
 *
 * The back end's files, one concern each:
 *   quantize-private.h   the shared records (this file)
 *   quantize.c           the options and simnpu__compile(), the steps in turn
 *   quantize-place.c     what the device runs, placement, the host
 *                        sections
 *   quantize-fallback.c  host fallback's candidates (the tail, the head)
 *   quantize-calib.c     calibration runs and statistics, equalisation
 *   quantize-params.c    scales and zero points
 *   quantize-lower.c     lowering to the int8 device graph
 *   quantize-accuracy.c  SQNR of int8 against float, the accuracy report */

#ifndef __SIMNPU_QUANTIZE_PRIVATE_H__
#define __SIMNPU_QUANTIZE_PRIVATE_H__

#include "compiler.h"

#include <math.h>

G_BEGIN_DECLS
#define I8_MIN (-128)
#define I8_MAX 127
/* Per-channel statistics (the last axis) of a tensor over the
 * calibration set: what equalisation balances and what bias correction
 * needs. */
    typedef struct
{
  int64_t n_ch;                 /* 0: not collected */
  float *min, *max;
  double *sum;
  int64_t count;                /* values per channel summed */
} chan_stats;

/* The mean input under each tap (kernel position and input channel) of a
 * conv over its output positions, padding included as zeros: the exact
 * expectation bias correction needs, borders and all. */
typedef struct _tap_stats
{
  double *sum;                  /* [kh * kw][in channels]; NULL: none */
  int64_t *inside;              /* [kh * kw]: positions not in padding */
  int64_t count;                /* output positions seen */
} tap_stats;

/* A tensor's value histogram over the calibration set: HIST_BINS bins of
 * equal width from lo. It grows to cover each new value by merging bins
 * pairwise (the width doubles), so one pass over the images is enough and
 * the resolution is never coarser than half of what the final min/max
 * would give. */
#define HIST_BINS 2048
typedef struct
{
  double lo, width;             /* width 0: nothing seen yet */
  double *count;                /* [HIST_BINS] */
} range_hist;

typedef struct
{
  simnpu__ir_graph *g;
  const simnpu__compile_options *opts;
  simnpu__section *place;       /* per node */
  bool *force_host;             /* per node: host fallback */
  int *consumers;               /* per tensor: number of consuming nodes */
  int *reader;                  /* per tensor: the last consuming node */
  /* quantisation of every tensor the device sees */
  bool *has_q;
  float *q_scale;
  int32_t *q_zp;                /* internal int8 zero point */
  bool *is_logit;
  /* per tensor: the clamp its only reader applies (relu, clip), which its
   * quantisation range already has; the accuracy report compares within
   * it, since nothing downstream sees beyond it */
  float *clamp_lo, *clamp_hi;
  /* graph input 0 is u8 pixels with the preprocessing folded into its
   * quantisation */
  bool pixel_input;
  /* what the integer zero point of the pixel input loses: the real value
   * the device sees plus this is the model's (mean / scale need not be
   * an integer, e.g. 127.5) */
  float input_offset;
  /* float values of the last executed input, per tensor (the executor's
   * buffers) */
  simnpu__ir_exec *exec;
  /* per node: what each conv tap reads on average, for bias correction */
  struct _tap_stats *taps;
  /* results whose calibrated range was too narrow for the device to
   * requantise to from the node's inputs: how many were widened, the
   * first made by the node's arithmetic, how many were constant because
   * every calibration input was the same and the first of those, and one
   * report line per node */
  unsigned n_widened, n_widened_const;
  int first_widened, first_widened_const;
  GString *widened_text;
  /* per tensor: its histogram, for the tensors whose range
   * SIMNPU_TECHNIQUE_MSE_RANGES chooses (count NULL: none) */
  range_hist *hist;
  /* constants of more than one value that device ops other than conv and
   * matmul read, quantised per tensor (one scale per operand): how many,
   * the first and its reader */
  unsigned n_per_tensor_consts;
  int first_per_tensor_const, first_per_tensor_reader;
  /* calibration keeps the histograms the range search reads */
  bool search_ranges;
  /* how many ranges the search narrowed */
  unsigned n_searched, n_narrowed;
  /* per graph input: the output fed back to it (recurrent state), or -1
   * (input 0, the image) */
  int *state_of;
  /* nodes never on the device (simnpu__quantize_pass_inputs), or NULL */
  bool *host_only;
} compile_ctx;

typedef struct
{
  double sig, noise;            /* sums of squares */
  double fg_sig, fg_noise;
  uint64_t fg_n;
  uint64_t n;
} sqnr_acc;

typedef struct
{
  uint8_t *arena;
  int8_t *scratch;
  int *ir_of_dev;               /* device tensor -> IR tensor or -1 */
  sqnr_acc *acc;                /* per device tensor */
} evaluator;

/* v rounded to int8 at scale and zero point zp (lowering and the
 * accuracy runs quantise alike). */
static inline int8_t
quantize_one (float v, float scale, int32_t zp)
{
  double q = round ((double) v / scale) + zp;
  return (int8_t) CLAMP (q, I8_MIN, I8_MAX);
}

/* quantize-place.c */
SIMNPU_INTERNAL bool simnpu__quantize_is_unary_lut (simnpu__ir_op op);
SIMNPU_INTERNAL bool simnpu__quantize_is_global_mean (const simnpu__ir_graph *
    g, const simnpu__ir_node * n);
SIMNPU_INTERNAL int simnpu__quantize_split_activations (simnpu__ir_graph * g,
    simnpu_error * error);
/* Graph inputs that the postamble would read, passed through the device,
 * or that the preamble and the device would both read, passed through
 * the preamble (copies first, which those readers read); *host_only (a
 * bool per node, or NULL) marks the preamble's copies */
SIMNPU_INTERNAL int simnpu__quantize_pass_inputs (simnpu__ir_graph * g,
    bool **host_only, simnpu_error * error);
SIMNPU_INTERNAL int simnpu__quantize_place_nodes (compile_ctx * c,
    simnpu_error * error);
/* Refuses a placement whose device section cannot fit the device's
 * limits: each device node lowers to at least one op and each of its
 * results to a tensor, so this runs before calibration. */
SIMNPU_INTERNAL int simnpu__quantize_check_device_size (const compile_ctx *
    c, simnpu_error * error);
SIMNPU_INTERNAL void simnpu__quantize_report_placement (compile_ctx * c,
    simnpu__compile_result * r);
/* Per tensor: whether a node placed in section `which` reads it (with
 * `others`: a node placed in another section). g_free the result. */
SIMNPU_INTERNAL bool *simnpu__quantize_read_in (const compile_ctx * c,
    simnpu__section which, bool others);
SIMNPU_INTERNAL int simnpu__quantize_extract_section (compile_ctx * c,
    simnpu__section which, simnpu__ir_graph ** out, simnpu_error * error);

/* quantize-fallback.c */
SIMNPU_INTERNAL unsigned simnpu__quantize_mark_fallback (compile_ctx * c,
    const simnpu__graph * dg, const evaluator * e, GString * text);
SIMNPU_INTERNAL unsigned simnpu__quantize_prefix_cut (const compile_ctx * c,
    uint64_t budget, bool first, uint64_t * macs_out);
SIMNPU_INTERNAL uint64_t simnpu__quantize_total_macs (const compile_ctx * c);

/* quantize-calib.c */
SIMNPU_INTERNAL void simnpu__quantize_tap_stats_free (tap_stats * taps,
    unsigned n);
SIMNPU_INTERNAL void simnpu__quantize_chan_stats_free (chan_stats * stats,
    unsigned n);
SIMNPU_INTERNAL float *simnpu__quantize_random_input (const simnpu__ir_tensor *
    t, const simnpu__compile_options * o, GRand * rand);
/* input: every graph input's values, one after the other (a model of one
 * input: its values) */
SIMNPU_INTERNAL int simnpu__quantize_run_float (compile_ctx * c,
    const float *input, simnpu_error * error);
/* The inputs beyond the image (input 0): each must be a float recurrent
 * state paired with an output of its shape (opts->recurrent_*); sets
 * c->state_of, or an error naming the input and the options that help */
SIMNPU_INTERNAL int simnpu__quantize_check_inputs (compile_ctx * c,
    simnpu_error * error);
/* For a model of several inputs: each image of images (input 0's values)
 * with the states it is run with, zeros for the first image and then the
 * outputs of the previous image's run, in the order of a video (owned
 * float arrays for simnpu__quantize_run_float); NULL on error */
SIMNPU_INTERNAL GPtrArray *simnpu__quantize_input_sets (compile_ctx * c,
    GPtrArray * images, simnpu_error * error);
SIMNPU_INTERNAL chan_stats *simnpu__quantize_stats_for_conv_inputs (compile_ctx
    * c);
SIMNPU_INTERNAL int simnpu__quantize_calibrate (compile_ctx * c,
    GPtrArray * inputs, chan_stats * stats, simnpu_error * error);
SIMNPU_INTERNAL unsigned simnpu__quantize_equalize (compile_ctx * c,
    const chan_stats * stats);
SIMNPU_INTERNAL void simnpu__quantize_hist_free (range_hist * hist, unsigned n);
SIMNPU_INTERNAL bool simnpu__quantize_mse_range (const range_hist * h,
    float clamp_lo, float clamp_hi, float *mn, float *mx);

/* quantize-params.c */
SIMNPU_INTERNAL void simnpu__quantize_range_to_q (float mn, float mx,
    float *scale, int32_t * zp);
SIMNPU_INTERNAL bool simnpu__quantize_op_keeps_quant (simnpu__ir_op op);
SIMNPU_INTERNAL int simnpu__quantize_assign_quant (compile_ctx * c,
    simnpu_error * error);
SIMNPU_INTERNAL void simnpu__quantize_set_postamble_quant (const compile_ctx *
    c, simnpu__graph * dg, int dtype);

/* quantize-lower.c */
SIMNPU_INTERNAL float simnpu__quantize_max_weight_scale (const compile_ctx *
    c, const simnpu__ir_node * n, float in_scale);
SIMNPU_INTERNAL int simnpu__quantize_lower (compile_ctx * c,
    const chan_stats * stats, simnpu__graph ** out, simnpu_error * error);

/* quantize-accuracy.c */
SIMNPU_INTERNAL double simnpu__quantize_sqnr_db (double sig, double noise);
SIMNPU_INTERNAL void simnpu__quantize_evaluator_init (evaluator * e,
    const simnpu__graph * dg, const simnpu__ir_graph * g);
SIMNPU_INTERNAL void simnpu__quantize_evaluator_clear (evaluator * e);
SIMNPU_INTERNAL int simnpu__quantize_evaluate (compile_ctx * c,
    const simnpu__graph * dg, GPtrArray * inputs, evaluator * e,
    simnpu_error * error);
SIMNPU_INTERNAL void simnpu__quantize_report_accuracy (compile_ctx * c,
    const simnpu__graph * dg, const evaluator * calib,
    const evaluator * valid, bool have_valid, simnpu__compile_result * r);
SIMNPU_INTERNAL int simnpu__quantize_evaluate_public (compile_ctx * c,
    const simnpu__graph * dg, GPtrArray * inputs, sqnr_acc * acc,
    simnpu_error * error);
/* Writes the model's float and int8 outputs on INPUTS into DIR, as
 * I-J.float.f32 and I-J.int8.f32 (image I, model output J), and
 * outputs.txt: one line "J NAME DIMS..." per output, then "images N". */
SIMNPU_INTERNAL int simnpu__quantize_dump_outputs (compile_ctx * c,
    const simnpu__graph * dg, GPtrArray * inputs, const char *dir,
    simnpu_error * error);
SIMNPU_INTERNAL void simnpu__quantize_report_public (const simnpu__graph * dg,
    const sqnr_acc * cal, const sqnr_acc * val, GString * s);

G_END_DECLS
#endif /* __SIMNPU_QUANTIZE_PRIVATE_H__ */
