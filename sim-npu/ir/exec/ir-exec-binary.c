/* gst-ax
 * Copyright (C) 2026 gst-ax developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

/* The broadcasting element-wise ops of two or more inputs (arithmetic,
 * comparisons, logic, where), in any dtype: numpy broadcasting walks the
 * inputs by innermost runs, the common f32 runs as vectorisable loops. */

#include "ir-exec-private.h"

/* ------------------------------------------------------------------ */
/* Broadcasting iteration over up to SIMNPU_IR_MAX_INPUTS inputs */

typedef struct
{
  unsigned rank, n_in;
  int64_t dims[SIMNPU_IR_MAX_RANK];
  int64_t strides[SIMNPU_IR_MAX_INPUTS][SIMNPU_IR_MAX_RANK];
  int64_t total;
} bcast;

static void
bcast_init (bcast * b, const simnpu__ir_tensor * out, unsigned n_in,
    const simnpu__ir_tensor * const *ins)
{
  unsigned i, k, r = 0;
  int64_t dims[SIMNPU_IR_MAX_RANK];
  int64_t st[SIMNPU_IR_MAX_INPUTS][SIMNPU_IR_MAX_RANK];

  b->n_in = n_in;
  b->total = elems (out);
  for (k = 0; k < n_in; k++) {
    const simnpu__ir_tensor *t = ins[k];
    unsigned off = out->rank - t->rank;
    int64_t s = 1;
    for (i = out->rank; i-- > 0;) {
      int64_t d = i < off ? 1 : t->dims[i - off];
      st[k][i] = d == 1 ? 0 : s;
      s *= d;
    }
  }
  for (i = 0; i < out->rank; i++)
    dims[i] = out->dims[i];
  /* merge each axis into the previous kept one when every input walks
   * them as one */
  for (i = 0; i < out->rank; i++) {
    bool merge = r > 0;
    if (dims[i] == 1)
      continue;
    for (k = 0; merge && k < n_in; k++)
      merge = st[k][i] * dims[i] == b->strides[k][r - 1];
    if (merge) {
      b->dims[r - 1] *= dims[i];
      for (k = 0; k < n_in; k++)
        b->strides[k][r - 1] = st[k][i];
      continue;
    }
    b->dims[r] = dims[i];
    for (k = 0; k < n_in; k++)
      b->strides[k][r] = st[k][i];
    r++;
  }
  if (r == 0) {
    b->dims[0] = 1;
    for (k = 0; k < n_in; k++)
      b->strides[k][0] = 0;
    r = 1;
  }
  b->rank = r;
}

/* calls fn on every innermost run: out offset, input offsets, input
 * strides along the run, run length */
typedef void (*bcast_fn) (void *ctx, int64_t o, const int64_t * offs,
    const int64_t * inner_strides, int64_t len);

static void
bcast_run (const bcast * b, bcast_fn fn, void *ctx)
{
  int64_t idx[SIMNPU_IR_MAX_RANK] = { 0 }, offs[SIMNPU_IR_MAX_INPUTS] = { 0 };
  int64_t inner_st[SIMNPU_IR_MAX_INPUTS], inner = b->dims[b->rank - 1], o;
  unsigned i, k;

  if (b->total == 0)
    return;
  for (k = 0; k < b->n_in; k++)
    inner_st[k] = b->strides[k][b->rank - 1];
  for (o = 0; o < b->total; o += inner) {
    fn (ctx, o, offs, inner_st, inner);
    for (i = b->rank - 1; i-- > 0;) {
      bool wrap = ++idx[i] >= b->dims[i];
      for (k = 0; k < b->n_in; k++)
        offs[k] += wrap ? -b->strides[k][i] * (b->dims[i] - 1)
            : b->strides[k][i];
      if (!wrap)
        break;
      idx[i] = 0;
    }
  }
}

/* ------------------------------------------------------------------ */
/* Binary element-wise ops */

typedef struct
{
  simnpu__ir_op op;
  simnpu__ir_dtype dtype;       /* of the inputs */
  simnpu__ir_dtype dtype_b;     /* pow's exponent may differ */
  const void *a, *b;
  void *out;
} binary_ctx;

static inline float
f32_binary (simnpu__ir_op op, float a, float b)
{
  float r;

  switch (op) {
    case SIMNPU_IR_ADD:
      return a + b;
    case SIMNPU_IR_SUB:
      return a - b;
    case SIMNPU_IR_MUL:
      return a * b;
    case SIMNPU_IR_DIV:
      return a / b;
    case SIMNPU_IR_FLOOR_DIV:
      return floorf (a / b);
    case SIMNPU_IR_FLOOR_MOD:
      r = fmodf (a, b);
      if (r != 0 && ((r < 0) != (b < 0)))
        r += b;
      return r;
    case SIMNPU_IR_POW:
      return powf (a, b);
    case SIMNPU_IR_MAXIMUM:
      return isnan (a) || a > b ? a : b;
    case SIMNPU_IR_MINIMUM:
      return isnan (a) || a < b ? a : b;
    case SIMNPU_IR_PRELU:
      return a < 0 ? a * b : a;
    case SIMNPU_IR_ATAN2:
      return atan2f (a, b);
    default:
      return 0;
  }
}

static bool
is_compare (simnpu__ir_op op)
{
  return op >= SIMNPU_IR_EQUAL && op <= SIMNPU_IR_GREATER_EQUAL;
}

static inline bool
compare (simnpu__ir_op op, double a, double b)
{
  switch (op) {
    case SIMNPU_IR_EQUAL:
      return a == b;
    case SIMNPU_IR_LESS:
      return a < b;
    case SIMNPU_IR_LESS_EQUAL:
      return a <= b;
    case SIMNPU_IR_GREATER:
      return a > b;
    default:
      return a >= b;
  }
}

static inline bool
compare_int (simnpu__ir_op op, int64_t a, int64_t b)
{
  switch (op) {
    case SIMNPU_IR_EQUAL:
      return a == b;
    case SIMNPU_IR_LESS:
      return a < b;
    case SIMNPU_IR_LESS_EQUAL:
      return a <= b;
    case SIMNPU_IR_GREATER:
      return a > b;
    default:
      return a >= b;
  }
}

/* the common f32 cases as plain loops GCC vectorises */
static ALWAYS_INLINE void
f32_binary_body (simnpu__ir_op op, float *o, const float *a,
    int64_t sa, const float *b, int64_t sb, int64_t len)
{
  int64_t i;

  if (sa == 1 && sb == 1) {
    switch (op) {
      case SIMNPU_IR_ADD:
        for (i = 0; i < len; i++)
          o[i] = a[i] + b[i];
        return;
      case SIMNPU_IR_SUB:
        for (i = 0; i < len; i++)
          o[i] = a[i] - b[i];
        return;
      case SIMNPU_IR_MUL:
        for (i = 0; i < len; i++)
          o[i] = a[i] * b[i];
        return;
      case SIMNPU_IR_DIV:
        for (i = 0; i < len; i++)
          o[i] = a[i] / b[i];
        return;
      case SIMNPU_IR_PRELU:
        for (i = 0; i < len; i++)
          o[i] = a[i] < 0 ? a[i] * b[i] : a[i];
        return;
      case SIMNPU_IR_MAXIMUM:
        for (i = 0; i < len; i++)
          o[i] = isnan (a[i]) || a[i] > b[i] ? a[i] : b[i];
        return;
      case SIMNPU_IR_MINIMUM:
        for (i = 0; i < len; i++)
          o[i] = isnan (a[i]) || a[i] < b[i] ? a[i] : b[i];
        return;
      default:
        break;
    }
  } else if (sa == 1 && sb == 0) {
    const float bv = b[0];
    switch (op) {
      case SIMNPU_IR_ADD:
        for (i = 0; i < len; i++)
          o[i] = a[i] + bv;
        return;
      case SIMNPU_IR_SUB:
        for (i = 0; i < len; i++)
          o[i] = a[i] - bv;
        return;
      case SIMNPU_IR_MUL:
        for (i = 0; i < len; i++)
          o[i] = a[i] * bv;
        return;
      case SIMNPU_IR_DIV:
        for (i = 0; i < len; i++)
          o[i] = a[i] / bv;
        return;
      case SIMNPU_IR_PRELU:
        for (i = 0; i < len; i++)
          o[i] = a[i] < 0 ? a[i] * bv : a[i];
        return;
      case SIMNPU_IR_MAXIMUM:
        for (i = 0; i < len; i++)
          o[i] = isnan (a[i]) || a[i] > bv ? a[i] : bv;
        return;
      case SIMNPU_IR_MINIMUM:
        for (i = 0; i < len; i++)
          o[i] = isnan (a[i]) || a[i] < bv ? a[i] : bv;
        return;
      default:
        break;
    }
  }
  for (i = 0; i < len; i++)
    o[i] = f32_binary (op, a[i * sa], b[i * sb]);
}

/* rows runs of len elements: out rows contiguous, the inputs' rows
 * ra and rb apart (a per-channel operand of NHWC has rb 0), one call
 * for the whole tensor instead of one per row */
IR_CLONES static void
f32_binary_rows (simnpu__ir_op op, float *o, const float *a, int64_t ra,
    int64_t sa, const float *b, int64_t rb, int64_t sb, int64_t rows,
    int64_t len)
{
  int64_t r;

  for (r = 0; r < rows; r++)
    f32_binary_body (op, o + r * len, a + r * ra, sa, b + r * rb, sb, len);
}

static void
binary_fn (void *ctx, int64_t o, const int64_t * offs, const int64_t * st,
    int64_t len)
{
  const binary_ctx *c = ctx;
  int64_t i;

  if (is_compare (c->op)) {
    uint8_t *out = (uint8_t *) c->out + o;
    if (c->dtype == SIMNPU_IR_F32) {
      const float *a = (const float *) c->a + offs[0];
      const float *b = (const float *) c->b + offs[1];
      for (i = 0; i < len; i++)
        out[i] = compare (c->op, a[i * st[0]], b[i * st[1]]);
    } else {
      for (i = 0; i < len; i++)
        out[i] = compare_int (c->op, load_int (c->dtype, c->a,
                offs[0] + i * st[0]), load_int (c->dtype, c->b,
                offs[1] + i * st[1]));
    }
    return;
  }
  if (c->dtype != c->dtype_b) {
    /* pow with an exponent of another dtype */
    for (i = 0; i < len; i++) {
      int64_t ia = offs[0] + i * st[0], ib = offs[1] + i * st[1];
      if (c->dtype == SIMNPU_IR_F32)
        ((float *) c->out)[o + i] = powf (((const float *) c->a)[ia],
            (float) load_f64 (c->dtype_b, c->b, ib));
      else if (c->dtype_b == SIMNPU_IR_F32)
        store_int (c->dtype, c->out, o + i, f2i (powf ((float)
                    load_int (c->dtype, c->a, ia),
                    ((const float *) c->b)[ib])));
      else
        store_int (c->dtype, c->out, o + i, int_pow (load_int (c->dtype,
                    c->a, ia), load_int (c->dtype_b, c->b, ib)));
    }
    return;
  }
  if (c->dtype == SIMNPU_IR_F32) {
    f32_binary_rows (c->op, (float *) c->out + o,
        (const float *) c->a + offs[0], 0, st[0],
        (const float *) c->b + offs[1], 0, st[1], 1, len);
    return;
  }
  for (i = 0; i < len; i++)
    store_int (c->dtype, c->out, o + i, int_binary (c->op,
            load_int (c->dtype, c->a, offs[0] + i * st[0]),
            load_int (c->dtype, c->b, offs[1] + i * st[1])));
}

static void
binary_apply (const simnpu__ir_tensor * out, void *od,
    const simnpu__ir_tensor * ta, const void *a,
    const simnpu__ir_tensor * tb, const void *b, simnpu__ir_op op)
{
  const simnpu__ir_tensor *ins[2] = { ta, tb };
  binary_ctx c = { op, ta->dtype, tb->dtype, a, b, od };
  bcast bc;

  bcast_init (&bc, out, 2, ins);
  if (bc.rank == 2 && ta->dtype == SIMNPU_IR_F32
      && tb->dtype == SIMNPU_IR_F32 && !is_compare (op)) {
    f32_binary_rows (op, od, a, bc.strides[0][0], bc.strides[0][1], b,
        bc.strides[1][0], bc.strides[1][1], bc.dims[0], bc.dims[1]);
    return;
  }
  bcast_run (&bc, binary_fn, &c);
}

int
simnpu__ir_run_binary (simnpu__ir_exec * x, const simnpu__ir_node * n,
    simnpu_error * error)
{
  binary_apply (tout (x, n, 0), dout (x, n, 0), tin (x, n, 0), din (x, n,
          0), tin (x, n, 1), din (x, n, 1), n->op);
  return 0;
}

int
simnpu__ir_run_nary (simnpu__ir_exec * x, const simnpu__ir_node * n,
    simnpu_error * error)
{
  const simnpu__ir_tensor *out = tout (x, n, 0);
  void *od = dout (x, n, 0);
  unsigned i;

  if (n->n_inputs == 1) {
    if (od != din (x, n, 0))
      memcpy (od, din (x, n, 0), simnpu__ir_tensor_bytes (out));
    return 0;
  }
  binary_apply (out, od, tin (x, n, 0), din (x, n, 0), tin (x, n, 1),
      din (x, n, 1), n->op);
  /* the output, already of the broadcast shape, is the left operand of
   * the next input: element i reads only element i before writing it */
  for (i = 2; i < n->n_inputs; i++)
    binary_apply (out, od, out, od, tin (x, n, i), din (x, n, i), n->op);
  return 0;
}

typedef struct
{
  size_t esize;
  const uint8_t *c;
  const uint8_t *a, *b;
  uint8_t *out;
} where_ctx;

static void
where_fn (void *ctx, int64_t o, const int64_t * offs, const int64_t * st,
    int64_t len)
{
  const where_ctx *w = ctx;
  int64_t i, es = (int64_t) w->esize;

  for (i = 0; i < len; i++) {
    bool c = w->c[offs[0] + i * st[0]] != 0;
    const uint8_t *src = c ? w->a + (offs[1] + i * st[1]) * es
        : w->b + (offs[2] + i * st[2]) * es;
    memcpy (w->out + (o + i) * es, src, w->esize);
  }
}

int
simnpu__ir_run_where (simnpu__ir_exec * x, const simnpu__ir_node * n,
    simnpu_error * error)
{
  const simnpu__ir_tensor *ins[3] = { tin (x, n, 0), tin (x, n, 1),
    tin (x, n, 2)
  };
  where_ctx w = { simnpu__ir_dtype_size (ins[1]->dtype), din (x, n, 0),
    din (x, n, 1), din (x, n, 2), dout (x, n, 0)
  };
  bcast bc;

  bcast_init (&bc, tout (x, n, 0), 3, ins);
  bcast_run (&bc, where_fn, &w);
  return 0;
}
