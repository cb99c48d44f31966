/* gst-ax
 * Copyright (C) 2026 gst-ax developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

/* What the files of the model formats share (json.c, json-attrs.c,
 * json-scan.c, axm.c): the op being read from a JSON graph and its attribute
 * readers. */

#ifndef __SIMNPU_FORMAT_PRIVATE_H__
#define __SIMNPU_FORMAT_PRIVATE_H__

#include "format/format.h"
#include "graph/graph.h"

G_BEGIN_DECLS

/* The graph format nests a handful of levels; json-glib's recursive
 * parser would exhaust the stack on absurdly deep input. */
#define SIMNPU__MAX_JSON_DEPTH 64

/* One op being read from a JSON graph (json.c). The op table's attribute
 * parsers (json-attrs.c) read the op's "attrs" member through
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

G_END_DECLS

#endif /* __SIMNPU_FORMAT_PRIVATE_H__ */
