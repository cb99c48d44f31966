/* gst-ax
 * Copyright (C) 2026 gst-ax developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

/* The float32 reference executor of the IR: one buffer per tensor,
 * allocated once, and a kernel for every op (ONNX semantics).
 *
 * Built at -O3 like kernels.c: conv2d and matmul run through one
 * register-blocked tile (PIXEL_BLOCK outputs x OC_BLOCK channels, the
 * weights packed once so that the channel vectors are contiguous), which
 * GCC keeps in vector registers; the hot loops are also cloned for AVX2.
 * Where the CPU has AVX2 and FMA, conv2d, depthwise and matmul run a
 * third copy built with FMA (the accumulations contract: sums may differ
 * in their last bits from other machines'), and exp, sigmoid, SiLU, ELU,
 * SELU and tanh run vectorised: exp in float within 1 ulp of the exact
 * value (checked on every float argument against libm's double exp),
 * tanh and exp's extreme arguments in double precision, within 0.5 +
 * 2^-20 ulp (as close as libm's). */

#include "ir-exec.h"

#include <math.h>
#include <string.h>

#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__) \
    && defined(__has_attribute)
#if __has_attribute (target_clones)
#define IR_CLONES __attribute__ ((target_clones ("avx2", "default")))
#endif
#endif
#ifndef IR_CLONES
#define IR_CLONES
#endif

#if defined(__GNUC__) && defined(__x86_64__)
#include <immintrin.h>
#define IR_HAVE_FMA_PATH 1
#define IR_FMA __attribute__ ((target ("avx2,fma")))
#endif

#define ALWAYS_INLINE inline __attribute__ ((always_inline))

/* output channels of one conv/matmul tile: two 8-float vectors */
#define OC_BLOCK 16
#define OC_HALF 8
/* output pixels (matmul: rows) of one tile */
#define PIXEL_BLOCK 6
/* ONNX HardSwish's fixed slope and offset */
#define HARD_SWISH_ALPHA (1.0f / 6.0f)
#define HARD_SWISH_BETA 0.5f
/* the centre of a pixel (resize coordinates), and the fraction that
 * nearest rounding treats as a tie */
#define HALF 0.5
/* channels of one depthwise block: DW_VECS vectors */
#define DW_VECS 4
#define DW_BLOCK (DW_VECS * OC_HALF)
/* a strided view may split every axis in two (tile) */
#define MAX_VIEW (2 * SIMNPU_IR_MAX_RANK)

typedef float v8sf __attribute__((vector_size (OC_HALF * sizeof (float))));

/* unaligned vector loads and stores: a vector type of float alignment
 * that may alias the float data (macros: vectors passed by value would
 * change the ABI between the clones) */
typedef float v8sf_u __attribute__((vector_size (OC_HALF * sizeof (float)),
        aligned (sizeof (float)), may_alias));
#define LOAD8(v, p) ((v) = *(const v8sf_u *) (const void *) (p))
#define STORE8(p, v) (*(v8sf_u *) (void *) (p) = (v))

#ifdef IR_HAVE_FMA_PATH
/* run-time choice of the AVX2+FMA copies (cheap: a load of what
 * libgcc's constructor found) */
static inline bool
have_fma (void)
{
  return __builtin_cpu_supports ("avx2") && __builtin_cpu_supports ("fma");
}
#endif

static const simnpu__ir_tensor *
tin (const simnpu__ir_exec * x, const simnpu__ir_node * n, unsigned i)
{
  if (i >= n->n_inputs || n->inputs[i] == SIMNPU_IR_NONE)
    return NULL;
  return &x->g->tensors[n->inputs[i]];
}

static const simnpu__ir_tensor *
tout (const simnpu__ir_exec * x, const simnpu__ir_node * n, unsigned i)
{
  return &x->g->tensors[n->outputs[i]];
}

static const void *
din (const simnpu__ir_exec * x, const simnpu__ir_node * n, unsigned i)
{
  if (i >= n->n_inputs || n->inputs[i] == SIMNPU_IR_NONE)
    return NULL;
  return x->bufs[n->inputs[i]];
}

static void *
dout (const simnpu__ir_exec * x, const simnpu__ir_node * n, unsigned i)
{
  return x->bufs[n->outputs[i]];
}

static int64_t
elems (const simnpu__ir_tensor * t)
{
  return simnpu__ir_tensor_elements (t);
}

static int
run_error (simnpu_error * error, int code, const simnpu__ir_node * n,
    const char *what)
{
  return simnpu__set_error (error, code, "node '%s' (%s): %s", n->name,
      simnpu__ir_op_name (n->op), what);
}

/* float to integer as numpy on x86: truncation toward zero; values out of
 * range saturate and NaN gives 0 instead of undefined behaviour */
static inline int64_t
f2i (float v)
{
  /* 2^63 as a float */
  const float limit = 9223372036854775808.0f;

  if (isnan (v))
    return 0;
  if (v >= limit)
    return G_MAXINT64;
  if (v <= -limit)
    return G_MININT64;
  return (int64_t) v;
}

static inline int64_t
load_int (simnpu__ir_dtype d, const void *p, int64_t i)
{
  switch (d) {
    case SIMNPU_IR_I64:
      return ((const int64_t *) p)[i];
    case SIMNPU_IR_I32:
      return ((const int32_t *) p)[i];
    case SIMNPU_IR_I8:
      return ((const int8_t *) p)[i];
    case SIMNPU_IR_F32:
      return f2i (((const float *) p)[i]);
    default:
      return ((const uint8_t *) p)[i];
  }
}

static inline double
load_f64 (simnpu__ir_dtype d, const void *p, int64_t i)
{
  if (d == SIMNPU_IR_F32)
    return ((const float *) p)[i];
  return (double) load_int (d, p, i);
}

/* integer stores wrap modulo the type's width, as numpy */
static inline void
store_int (simnpu__ir_dtype d, void *p, int64_t i, int64_t v)
{
  switch (d) {
    case SIMNPU_IR_I64:
      ((int64_t *) p)[i] = v;
      break;
    case SIMNPU_IR_I32:
      ((int32_t *) p)[i] = (int32_t) (uint32_t) (uint64_t) v;
      break;
    case SIMNPU_IR_I8:
      ((int8_t *) p)[i] = (int8_t) (uint8_t) (uint64_t) v;
      break;
    case SIMNPU_IR_BOOL:
      ((uint8_t *) p)[i] = v != 0;
      break;
    case SIMNPU_IR_F32:
      ((float *) p)[i] = (float) v;
      break;
    default:
      ((uint8_t *) p)[i] = (uint8_t) (uint64_t) v;
      break;
  }
}

/* ------------------------------------------------------------------ */
/* Strided views: dst (contiguous, row-major over dims) gathers
 * src[sum (i_k * strides[k])] */

static unsigned
coalesce_view (unsigned rank, int64_t * dims, int64_t * strides)
{
  unsigned r = 0, i;

  for (i = 0; i < rank; i++) {
    if (dims[i] == 1)
      continue;
    if (r > 0 && strides[r - 1] == strides[i] * dims[i]) {
      dims[r - 1] *= dims[i];
      strides[r - 1] = strides[i];
      continue;
    }
    dims[r] = dims[i];
    strides[r] = strides[i];
    r++;
  }
  return r;
}

static void
strided_copy (void *dst, const void *src, size_t esize, unsigned rank,
    const int64_t * dims_in, const int64_t * strides_in)
{
  int64_t dims[MAX_VIEW], strides[MAX_VIEW], idx[MAX_VIEW] = { 0 };
  int64_t total = 1, inner, in_stride, off = 0, done;
  uint8_t *d = dst;
  const uint8_t *s = src;
  unsigned i, r;

  for (i = 0; i < rank; i++) {
    total *= dims_in[i];
    dims[i] = dims_in[i];
    strides[i] = strides_in[i];
  }
  if (total == 0)
    return;
  r = coalesce_view (rank, dims, strides);
  if (r == 0) {
    memcpy (d, s, esize);
    return;
  }
  inner = dims[r - 1];
  in_stride = strides[r - 1];
  for (done = 0; done < total; done += inner) {
    const uint8_t *p = s + off * (int64_t) esize;
    int64_t j;
    if (in_stride == 1) {
      memcpy (d, p, (size_t) inner * esize);
    } else if (esize == sizeof (float)) {
      for (j = 0; j < inner; j++)
        memcpy (d + j * 4, p + j * in_stride * 4, 4);
    } else if (esize == sizeof (int64_t)) {
      for (j = 0; j < inner; j++)
        memcpy (d + j * 8, p + j * in_stride * 8, 8);
    } else {
      for (j = 0; j < inner; j++)
        memcpy (d + j * (int64_t) esize, p + j * in_stride * (int64_t) esize,
            esize);
    }
    d += inner * (int64_t) esize;
    for (i = r - 1; i-- > 0;) {
      off += strides[i];
      if (++idx[i] < dims[i])
        break;
      off -= strides[i] * dims[i];
      idx[i] = 0;
    }
  }
}

/* row-major element strides of a shape */
static void
contiguous_strides (unsigned rank, const int64_t * dims, int64_t * strides)
{
  int64_t s = 1;
  unsigned i;

  for (i = rank; i-- > 0;) {
    strides[i] = s;
    s *= dims[i];
  }
}

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
    default:
      return 0;
  }
}

static inline int64_t
int_pow (int64_t a, int64_t e)
{
  uint64_t r = 1, base = (uint64_t) a;

  if (e < 0)
    return a == 1 ? 1 : a == -1 ? ((e & 1) ? -1 : 1) : 0;
  while (e > 0) {
    if (e & 1)
      r *= base;
    base *= base;
    e >>= 1;
  }
  return (int64_t) r;
}

/* integer arithmetic in 64 bits, wrapping (the store truncates to the
 * type); division by zero gives 0 instead of a trap */
static inline int64_t
int_binary (simnpu__ir_op op, int64_t a, int64_t b)
{
  int64_t q, r;

  switch (op) {
    case SIMNPU_IR_ADD:
      return (int64_t) ((uint64_t) a + (uint64_t) b);
    case SIMNPU_IR_SUB:
      return (int64_t) ((uint64_t) a - (uint64_t) b);
    case SIMNPU_IR_MUL:
      return (int64_t) ((uint64_t) a * (uint64_t) b);
    case SIMNPU_IR_DIV:
      if (b == 0)
        return 0;
      if (b == -1)
        return (int64_t) (0 - (uint64_t) a);
      return a / b;
    case SIMNPU_IR_FLOOR_DIV:
      if (b == 0)
        return 0;
      if (b == -1)
        return (int64_t) (0 - (uint64_t) a);
      q = a / b;
      if (a % b != 0 && ((a < 0) != (b < 0)))
        q--;
      return q;
    case SIMNPU_IR_FLOOR_MOD:
      if (b == 0 || b == -1)
        return 0;
      r = a % b;
      if (r != 0 && ((r < 0) != (b < 0)))
        r += b;
      return r;
    case SIMNPU_IR_POW:
      return int_pow (a, b);
    case SIMNPU_IR_MAXIMUM:
      return MAX (a, b);
    case SIMNPU_IR_MINIMUM:
      return MIN (a, b);
    case SIMNPU_IR_AND:
      return a != 0 && b != 0;
    case SIMNPU_IR_OR:
      return a != 0 || b != 0;
    case SIMNPU_IR_XOR:
      return (a != 0) != (b != 0);
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
IR_CLONES static void
f32_binary_run (simnpu__ir_op op, float *o, const float *a,
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
      default:
        break;
    }
  }
  for (i = 0; i < len; i++)
    o[i] = f32_binary (op, a[i * sa], b[i * sb]);
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
    f32_binary_run (c->op, (float *) c->out + o,
        (const float *) c->a + offs[0], st[0],
        (const float *) c->b + offs[1], st[1], len);
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

/* ------------------------------------------------------------------ */
/* Unary element-wise ops and activations */

static inline float
sigmoidf (float v)
{
  return 1.0f / (1.0f + expf (-v));
}

static inline float
hard_swishf (float v)
{
  float g = v * HARD_SWISH_ALPHA + HARD_SWISH_BETA;

  g = g < 0 ? 0 : g > 1 ? 1 : g;
  return v * g;
}

#ifdef IR_HAVE_FMA_PATH
/* exp of float arguments where the result is not a normal float, and
 * tanh's core, computed in double: x = k ln2 + r with |r| <= ln2 / 2,
 * e^r - 1 by its Taylor series to degree EXP_DEGREE (truncation below
 * 1.1e-14 relative on that interval), times 2^k. Rounding errors of the
 * reduction (ln2's own error times |k| <= 217) and of the polynomial's
 * evaluation (all terms of one sign but for r < 0, where the sum is at
 * least e^-0.35 of their magnitudes) stay below 2^-44 relative;
 * rounding that to float gives at most 0.5 + 2^-20 ulp, the correctly
 * rounded value but when the exact one lies within 2^-20 ulp of a tie
 * (glibc's expf: 0.502 ulp). Arguments are clamped where the float
 * result is already 0 or infinity: the double result rounds to them,
 * subnormal results included. */
/* odd: Estrin's scheme below pairs the coefficients after the first */
#define EXP_DEGREE 11
#define EXP_ARG_MIN (-150.0)
#define EXP_ARG_MAX 128.0
/* tanh (x) rounds to 1 in float from x = 9.01 on: 2x beyond this is
 * clamped */
#define TANH_2X_MAX 20.0
#define DBL_EXP_BIAS 1023
#define DBL_MANT_BITS 52
#define HALF_VEC 4

static const double exp_taylor[EXP_DEGREE + 1] = {
  1.0, 1.0, 1.0 / 2, 1.0 / 6, 1.0 / 24, 1.0 / 120, 1.0 / 720, 1.0 / 5040,
  1.0 / 40320, 1.0 / 362880, 1.0 / 3628800, 1.0 / 39916800,
};

/* e^r - 1 for x = k ln2 + r (x clamped), and 2^k in *scale */
static ALWAYS_INLINE IR_FMA __m256d
expm1_reduced (__m256d x, __m256d * scale)
{
  const __m256d inv_ln2 = _mm256_set1_pd (1.0 / M_LN2);
  const __m256d ln2 = _mm256_set1_pd (M_LN2);
  __m256d kd = _mm256_round_pd (_mm256_mul_pd (x, inv_ln2),
      _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
  __m256d r = _mm256_fnmadd_pd (kd, ln2, x);
  __m256d r2 = _mm256_mul_pd (r, r), r4 = _mm256_mul_pd (r2, r2);
  __m256d r8 = _mm256_mul_pd (r4, r4), c[EXP_DEGREE / 2], q0, q1, q2;
  __m256i k = _mm256_cvtepi32_epi64 (_mm256_cvtpd_epi32 (kd));
  int i;

  *scale = _mm256_castsi256_pd (_mm256_slli_epi64 (_mm256_add_epi64 (k,
              _mm256_set1_epi64x (DBL_EXP_BIAS)), DBL_MANT_BITS));
  /* (e^r - 1) / r = sum of r^i / (i + 1)!, by Estrin's scheme (depth 5
   * instead of Horner's 10: the loop is latency-bound) */
  for (i = 0; i < EXP_DEGREE / 2; i++)
    c[i] = _mm256_fmadd_pd (_mm256_set1_pd (exp_taylor[2 * i + 2]), r,
        _mm256_set1_pd (exp_taylor[2 * i + 1]));
  q0 = _mm256_fmadd_pd (c[1], r2, c[0]);
  q1 = _mm256_fmadd_pd (c[3], r2, c[2]);
  q2 = _mm256_fmadd_pd (_mm256_set1_pd (exp_taylor[EXP_DEGREE]), r2, c[4]);
  q0 = _mm256_fmadd_pd (q1, r4, q0);
  return _mm256_mul_pd (_mm256_fmadd_pd (q2, r8, q0), r);
}

static ALWAYS_INLINE IR_FMA __m256d
exp_pd (__m256d x)
{
  __m256d s, q;

  x = _mm256_max_pd (_mm256_min_pd (x, _mm256_set1_pd (EXP_ARG_MAX)),
      _mm256_set1_pd (EXP_ARG_MIN));
  q = expm1_reduced (x, &s);
  return _mm256_mul_pd (s, _mm256_add_pd (q, _mm256_set1_pd (1.0)));
}

/* tanh (|x|) = expm1 (2|x|) / (expm1 (2|x|) + 2): no cancellation for
 * small x, and expm1 = 2^k (e^r - 1) + (2^k - 1) loses at most a factor
 * 2 of its accuracy where k > 0 */
static ALWAYS_INLINE IR_FMA __m256d
tanh_abs_pd (__m256d ax)
{
  __m256d t = _mm256_min_pd (_mm256_add_pd (ax, ax),
      _mm256_set1_pd (TANH_2X_MAX));
  __m256d s, q, em1;

  q = expm1_reduced (t, &s);
  em1 = _mm256_fmadd_pd (s, q, _mm256_sub_pd (s, _mm256_set1_pd (1.0)));
  return _mm256_div_pd (em1, _mm256_add_pd (em1, _mm256_set1_pd (2.0)));
}

/* exp in float for arguments whose result is a normal float: x = n ln2
 * + r, x - n EXPF_LN2_HI exact under FMA (Cody and Waite), then e^r by
 * its Taylor series to degree EXPF_DEGREE (truncation below 2^-27 on
 * |r| <= ln2 / 2), times 2^n. The error, mostly the rounding of r and of
 * the result, stays within 1 ulp of (float) exp ((double) x), checked
 * on every float (it differs from glibc's expf, by 1 ulp, on 0.24 % of
 * them). */
#define EXPF_DEGREE 7
#define EXPF_ARG_MIN (-87.0f)
#define EXPF_ARG_MAX 88.0f
#define FLT_EXP_BIAS 127
#define FLT_MANT_BITS 23
/* ln2 = EXPF_LN2_HI + EXPF_LN2_LO: the float nearest ln2 and the rest */
#define EXPF_LN2_HI 0x1.62e430p-1f
#define EXPF_LN2_LO -0x1.05c610p-29f

static ALWAYS_INLINE IR_FMA __m256
expf_normal (__m256 x)
{
  static const float taylor[EXPF_DEGREE + 1] = {
    1.0f, 1.0f, 1.0f / 2, 1.0f / 6, 1.0f / 24, 1.0f / 120, 1.0f / 720,
    1.0f / 5040,
  };
  __m256 n = _mm256_round_ps (_mm256_mul_ps (x,
          _mm256_set1_ps ((float) M_LOG2E)),
      _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
  __m256 r = _mm256_fnmadd_ps (n, _mm256_set1_ps (EXPF_LN2_HI), x);
  __m256 p = _mm256_set1_ps (taylor[EXPF_DEGREE]);
  __m256i e = _mm256_slli_epi32 (_mm256_add_epi32 (_mm256_cvtps_epi32 (n),
          _mm256_set1_epi32 (FLT_EXP_BIAS)), FLT_MANT_BITS);
  int i;

  r = _mm256_fnmadd_ps (n, _mm256_set1_ps (EXPF_LN2_LO), r);
  for (i = EXPF_DEGREE - 1; i >= 0; i--)
    p = _mm256_fmadd_ps (p, r, _mm256_set1_ps (taylor[i]));
  return _mm256_mul_ps (p, _mm256_castsi256_ps (e));
}

static ALWAYS_INLINE IR_FMA __m256
exp_ps_double (__m256 x)
{
  __m128 lo = _mm256_cvtpd_ps (exp_pd (_mm256_cvtps_pd
          (_mm256_castps256_ps128 (x))));
  __m128 hi = _mm256_cvtpd_ps (exp_pd (_mm256_cvtps_pd
          (_mm256_extractf128_ps (x, 1))));
  __m256 r = _mm256_insertf128_ps (_mm256_castps128_ps256 (lo), hi, 1);

  /* NaN in, NaN out (the clamp dropped it) */
  return _mm256_blendv_ps (r, _mm256_add_ps (x, x), _mm256_cmp_ps (x, x,
          _CMP_UNORD_Q));
}

static ALWAYS_INLINE IR_FMA __m256
exp_ps (__m256 x)
{
  __m256 ok = _mm256_and_ps (_mm256_cmp_ps (x, _mm256_set1_ps (EXPF_ARG_MIN),
          _CMP_GE_OQ), _mm256_cmp_ps (x, _mm256_set1_ps (EXPF_ARG_MAX),
          _CMP_LE_OQ));
  if (_mm256_movemask_ps (ok) == 0xff)
    return expf_normal (x);
  return exp_ps_double (x);
}

static ALWAYS_INLINE IR_FMA __m256
tanh_ps (__m256 x)
{
  const __m256 sign = _mm256_set1_ps (-0.0f);
  __m256 ax = _mm256_andnot_ps (sign, x);
  __m128 lo = _mm256_cvtpd_ps (tanh_abs_pd (_mm256_cvtps_pd
          (_mm256_castps256_ps128 (ax))));
  __m128 hi = _mm256_cvtpd_ps (tanh_abs_pd (_mm256_cvtps_pd
          (_mm256_extractf128_ps (ax, 1))));
  __m256 r = _mm256_insertf128_ps (_mm256_castps128_ps256 (lo), hi, 1);

  r = _mm256_or_ps (r, _mm256_and_ps (x, sign));
  return _mm256_blendv_ps (r, _mm256_add_ps (x, x), _mm256_cmp_ps (x, x,
          _CMP_UNORD_Q));
}

/* the scalar formulas of f32_unary_run, with exp and tanh vectorised
 * (the float arithmetic around them is the same) */
static ALWAYS_INLINE IR_FMA __m256
unary_vec (simnpu__ir_op op, __m256 v, __m256 f0, __m256 f1)
{
  const __m256 one = _mm256_set1_ps (1.0f), zero = _mm256_setzero_ps ();
  __m256 neg, e;

  switch (op) {
    case SIMNPU_IR_EXP:
      return exp_ps (v);
    case SIMNPU_IR_TANH:
      return tanh_ps (v);
    case SIMNPU_IR_SIGMOID:
      /* 0 - v is not -v for v = 0 and NaN, but both give the same exp */
      e = exp_ps (_mm256_sub_ps (zero, v));
      return _mm256_div_ps (one, _mm256_add_ps (one, e));
    case SIMNPU_IR_SILU:
      e = exp_ps (_mm256_sub_ps (zero, v));
      return _mm256_mul_ps (v, _mm256_div_ps (one, _mm256_add_ps (one, e)));
    case SIMNPU_IR_ELU:
      neg = _mm256_cmp_ps (v, zero, _CMP_LT_OQ);
      e = _mm256_mul_ps (f0, _mm256_sub_ps (exp_ps (v), one));
      return _mm256_blendv_ps (v, e, neg);
    default:                   /* SELU */
      neg = _mm256_cmp_ps (v, zero, _CMP_LE_OQ);
      e = _mm256_mul_ps (f0, _mm256_sub_ps (exp_ps (v), one));
      return _mm256_mul_ps (f1, _mm256_blendv_ps (v, e, neg));
  }
}

IR_FMA static void
unary_fma (simnpu__ir_op op, const simnpu__ir_attrs * at, float *o,
    const float *in, int64_t len)
{
  const __m256 f0 = _mm256_set1_ps (at->f[0]), f1 = _mm256_set1_ps (at->f[1]);
  float tail[OC_HALF] = { 0 };
  int64_t i;

  /* two vectors at a time: independent chains to overlap */
  for (i = 0; i + 2 * OC_HALF <= len; i += 2 * OC_HALF) {
    __m256 a = unary_vec (op, _mm256_loadu_ps (in + i), f0, f1);
    __m256 b = unary_vec (op, _mm256_loadu_ps (in + i + OC_HALF), f0, f1);
    _mm256_storeu_ps (o + i, a);
    _mm256_storeu_ps (o + i + OC_HALF, b);
  }
  for (; i + OC_HALF <= len; i += OC_HALF)
    _mm256_storeu_ps (o + i, unary_vec (op, _mm256_loadu_ps (in + i), f0, f1));
  if (i < len) {
    /* the last few through a copy: no load past the end */
    memcpy (tail, in + i, (size_t) (len - i) * sizeof (float));
    _mm256_storeu_ps (tail, unary_vec (op, _mm256_loadu_ps (tail), f0, f1));
    memcpy (o + i, tail, (size_t) (len - i) * sizeof (float));
  }
}

static bool
unary_has_fma_path (simnpu__ir_op op)
{
  return op == SIMNPU_IR_EXP || op == SIMNPU_IR_TANH
      || op == SIMNPU_IR_SIGMOID || op == SIMNPU_IR_SILU
      || op == SIMNPU_IR_ELU || op == SIMNPU_IR_SELU;
}
#endif

IR_CLONES static void
f32_unary_run (simnpu__ir_op op, const simnpu__ir_attrs * at,
    float *o, const float *in, int64_t len)
{
  const float f0 = at->f[0], f1 = at->f[1];
  int64_t i;

#ifdef IR_HAVE_FMA_PATH
  if (unary_has_fma_path (op) && have_fma ()) {
    unary_fma (op, at, o, in, len);
    return;
  }
#endif
  switch (op) {
    case SIMNPU_IR_RELU:
      for (i = 0; i < len; i++)
        o[i] = in[i] < 0 ? 0 : in[i];
      break;
    case SIMNPU_IR_CLIP:
      for (i = 0; i < len; i++) {
        float v = in[i] < f0 ? f0 : in[i];
        o[i] = v > f1 ? f1 : v;
      }
      break;
    case SIMNPU_IR_LEAKY_RELU:
      for (i = 0; i < len; i++)
        o[i] = in[i] < 0 ? in[i] * f0 : in[i];
      break;
    case SIMNPU_IR_ELU:
      for (i = 0; i < len; i++)
        o[i] = in[i] < 0 ? f0 * (expf (in[i]) - 1.0f) : in[i];
      break;
    case SIMNPU_IR_SELU:
      for (i = 0; i < len; i++)
        o[i] = f1 * (in[i] <= 0 ? f0 * (expf (in[i]) - 1.0f) : in[i]);
      break;
    case SIMNPU_IR_SIGMOID:
      for (i = 0; i < len; i++)
        o[i] = sigmoidf (in[i]);
      break;
    case SIMNPU_IR_HARD_SIGMOID:
      for (i = 0; i < len; i++) {
        float v = f0 * in[i] + f1;
        o[i] = v < 0 ? 0 : v > 1 ? 1 : v;
      }
      break;
    case SIMNPU_IR_HARD_SWISH:
      for (i = 0; i < len; i++)
        o[i] = hard_swishf (in[i]);
      break;
    case SIMNPU_IR_SILU:
      for (i = 0; i < len; i++)
        o[i] = in[i] * sigmoidf (in[i]);
      break;
    case SIMNPU_IR_TANH:
      for (i = 0; i < len; i++)
        o[i] = tanhf (in[i]);
      break;
    case SIMNPU_IR_SOFTPLUS:
      /* log (1 + exp (x)) without overflow for large x */
      for (i = 0; i < len; i++)
        o[i] = in[i] > 0 ? in[i] + log1pf (expf (-in[i]))
            : log1pf (expf (in[i]));
      break;
    case SIMNPU_IR_SOFTSIGN:
      for (i = 0; i < len; i++)
        o[i] = in[i] / (1.0f + fabsf (in[i]));
      break;
    case SIMNPU_IR_EXP:
      for (i = 0; i < len; i++)
        o[i] = expf (in[i]);
      break;
    case SIMNPU_IR_LOG:
      for (i = 0; i < len; i++)
        o[i] = logf (in[i]);
      break;
    case SIMNPU_IR_SQRT:
      for (i = 0; i < len; i++)
        o[i] = sqrtf (in[i]);
      break;
    case SIMNPU_IR_RSQRT:
      for (i = 0; i < len; i++)
        o[i] = 1.0f / sqrtf (in[i]);
      break;
    case SIMNPU_IR_RECIPROCAL:
      for (i = 0; i < len; i++)
        o[i] = 1.0f / in[i];
      break;
    case SIMNPU_IR_NEG:
      for (i = 0; i < len; i++)
        o[i] = -in[i];
      break;
    case SIMNPU_IR_ABS:
      for (i = 0; i < len; i++)
        o[i] = fabsf (in[i]);
      break;
    case SIMNPU_IR_FLOOR:
      for (i = 0; i < len; i++)
        o[i] = floorf (in[i]);
      break;
    case SIMNPU_IR_CEIL:
      for (i = 0; i < len; i++)
        o[i] = ceilf (in[i]);
      break;
    case SIMNPU_IR_ROUND:
      /* the default rounding mode rounds halves to even */
      for (i = 0; i < len; i++)
        o[i] = rintf (in[i]);
      break;
    case SIMNPU_IR_SIGN:
      for (i = 0; i < len; i++)
        o[i] = in[i] > 0 ? 1.0f : in[i] < 0 ? -1.0f : in[i];
      break;
    case SIMNPU_IR_ERF:
      for (i = 0; i < len; i++)
        o[i] = erff (in[i]);
      break;
    case SIMNPU_IR_SIN:
      for (i = 0; i < len; i++)
        o[i] = sinf (in[i]);
      break;
    case SIMNPU_IR_COS:
      for (i = 0; i < len; i++)
        o[i] = cosf (in[i]);
      break;
    default:
      memmove (o, in, (size_t) len * sizeof (float));
      break;
  }
}

static inline int64_t
int_unary (simnpu__ir_op op, const simnpu__ir_attrs * at, int64_t v)
{
  switch (op) {
    case SIMNPU_IR_RELU:
      return v < 0 ? 0 : v;
    case SIMNPU_IR_CLIP:
      /* integer bounds stored as floats: ceil of the min, floor of the
       * max keep the result inside them */
      if (v < (double) at->f[0])
        v = f2i (ceilf (at->f[0]));
      if (v > (double) at->f[1])
        v = f2i (floorf (at->f[1]));
      return v;
    case SIMNPU_IR_NEG:
      return (int64_t) (0 - (uint64_t) v);
    case SIMNPU_IR_ABS:
      return v < 0 ? (int64_t) (0 - (uint64_t) v) : v;
    case SIMNPU_IR_SIGN:
      return (v > 0) - (v < 0);
    case SIMNPU_IR_NOT:
      return v == 0;
    default:
      return v;
  }
}

void
simnpu__ir_f32_unary (simnpu__ir_op op, const simnpu__ir_attrs * at,
    float *o, const float *in, int64_t len)
{
  f32_unary_run (op, at, o, in, len);
}

int
simnpu__ir_run_unary (simnpu__ir_exec * x, const simnpu__ir_node * n,
    simnpu_error * error)
{
  const simnpu__ir_tensor *t = tin (x, n, 0);
  int64_t len = elems (t), i;
  const void *in = din (x, n, 0);
  void *o = dout (x, n, 0);

  if (t->dtype == SIMNPU_IR_F32) {
    f32_unary_run (n->op, &n->attrs, o, in, len);
    return 0;
  }
  for (i = 0; i < len; i++)
    store_int (t->dtype, o, i, int_unary (n->op, &n->attrs,
            load_int (t->dtype, in, i)));
  return 0;
}

int
simnpu__ir_run_cast (simnpu__ir_exec * x, const simnpu__ir_node * n,
    simnpu_error * error)
{
  const simnpu__ir_tensor *t = tin (x, n, 0);
  simnpu__ir_dtype to = n->attrs.dtype;
  const void *in = din (x, n, 0);
  void *o = dout (x, n, 0);
  int64_t len = elems (t), i;

  if (t->dtype == to) {
    if (o != in)
      memcpy (o, in, simnpu__ir_tensor_bytes (t));
    return 0;
  }
  if (t->dtype == SIMNPU_IR_F32) {
    const float *f = in;
    if (to == SIMNPU_IR_BOOL) {
      for (i = 0; i < len; i++)
        ((uint8_t *) o)[i] = f[i] != 0;
    } else {
      for (i = 0; i < len; i++)
        store_int (to, o, i, f2i (f[i]));
    }
    return 0;
  }
  if (to == SIMNPU_IR_F32) {
    for (i = 0; i < len; i++)
      ((float *) o)[i] = (float) load_int (t->dtype, in, i);
    return 0;
  }
  for (i = 0; i < len; i++)
    store_int (to, o, i, load_int (t->dtype, in, i));
  return 0;
}

int
simnpu__ir_run_copy (simnpu__ir_exec * x, const simnpu__ir_node * n,
    simnpu_error * error)
{
  const void *in = din (x, n, 0);
  void *o = dout (x, n, 0);

  if (o != in)
    memcpy (o, in, simnpu__ir_tensor_bytes (tout (x, n, 0)));
  return 0;
}

/* fused activation of conv2d and matmul, in place */
static void
apply_act (float *p, int64_t len, const simnpu__ir_attrs * at)
{
  simnpu__ir_attrs a = *at;

  switch (at->act) {
    case SIMNPU_IR_ACT_NONE:
      return;
    case SIMNPU_IR_ACT_RELU:
      f32_unary_run (SIMNPU_IR_RELU, at, p, p, len);
      return;
    case SIMNPU_IR_ACT_CLIP:
      a.f[0] = at->act_min;
      a.f[1] = at->act_max;
      f32_unary_run (SIMNPU_IR_CLIP, &a, p, p, len);
      return;
    case SIMNPU_IR_ACT_LEAKY_RELU:
      a.f[0] = at->act_alpha;
      f32_unary_run (SIMNPU_IR_LEAKY_RELU, &a, p, p, len);
      return;
    case SIMNPU_IR_ACT_SIGMOID:
      f32_unary_run (SIMNPU_IR_SIGMOID, at, p, p, len);
      return;
    case SIMNPU_IR_ACT_TANH:
      f32_unary_run (SIMNPU_IR_TANH, at, p, p, len);
      return;
    case SIMNPU_IR_ACT_HARD_SWISH:
      f32_unary_run (SIMNPU_IR_HARD_SWISH, at, p, p, len);
      return;
    case SIMNPU_IR_ACT_ELU:
      a.f[0] = at->act_alpha;
      f32_unary_run (SIMNPU_IR_ELU, &a, p, p, len);
      return;
  }
}

/* ------------------------------------------------------------------ */
/* conv2d and matmul: PIXEL_BLOCK x OC_BLOCK register tiles */

/* One tile: np output pixels and nv vectors of output channels (both
 * compile-time constants after inlining; nv * OC_HALF = the block width
 * bw). in points at the first pixel's first tap; successive pixels are
 * px apart, taps row/col apart; w is [kh][kw][k][bw]. */
static ALWAYS_INLINE void
gemm_tile (const float *in, int64_t px, int64_t row, int64_t col, int kh,
    int kw, int64_t k, const float *w, const float *bias, float *acc_out,
    int64_t ostride, const int np, const int nv)
{
  const int bw = nv * OC_HALF;
  v8sf acc[PIXEL_BLOCK][OC_BLOCK / OC_HALF];
  int p, v, ky, kx;
  int64_t c;

  for (p = 0; p < np; p++)
    for (v = 0; v < nv; v++)
      LOAD8 (acc[p][v], bias + v * OC_HALF);
  for (ky = 0; ky < kh; ky++) {
    for (kx = 0; kx < kw; kx++) {
      const float *ip = in + ky * row + kx * col;
      const float *wk = w + ((int64_t) ky * kw + kx) * k * bw;
      for (c = 0; c < k; c++) {
        v8sf wv[OC_BLOCK / OC_HALF];
        for (v = 0; v < nv; v++)
          LOAD8 (wv[v], wk + c * bw + v * OC_HALF);
        for (p = 0; p < np; p++) {
          float a = ip[p * px + c];
          for (v = 0; v < nv; v++)
            acc[p][v] += a * wv[v];
        }
      }
    }
  }
  for (p = 0; p < np; p++)
    for (v = 0; v < nv; v++)
      STORE8 (acc_out + p * ostride + v * OC_HALF, acc[p][v]);
}

/* channels per packed block: one vector when the output channels fit in
 * it (less padding for heads of a few channels), else two */
static int64_t
block_width (int64_t oc)
{
  return oc <= OC_HALF ? OC_HALF : OC_BLOCK;
}

typedef struct
{
  const float *in;              /* input of output (0, 0), first channel */
  int64_t in_row;               /* input floats between output rows */
  int64_t px, row, col;         /* see gemm_tile */
  int kh, kw;
  int64_t k;                    /* channels reduced per tap */
  const float *w;               /* [blocks][kh][kw][k][bw] */
  const float *bias;            /* [blocks * bw] */
  float *out;
  int64_t out_row, out_px;      /* output floats between rows, pixels */
  int64_t oc;                   /* channels to write */
  int64_t rows, cols;
  const simnpu__ir_attrs *attrs;
} gemm_job;

#define GEMM_TILE_CASE(n) \
  case n: \
    if (bw == OC_BLOCK) \
      gemm_tile (in, j->px, j->row, j->col, j->kh, j->kw, j->k, w, bias, \
          dst, dst_px, n, 2); \
    else \
      gemm_tile (in, j->px, j->row, j->col, j->kh, j->kw, j->k, w, bias, \
          dst, dst_px, n, 1); \
    break

static ALWAYS_INLINE void
gemm_run_body (const gemm_job * j)
{
  const int64_t bw = block_width (j->oc);
  int64_t blocks = (j->oc + bw - 1) / bw;
  int64_t wblock = (int64_t) j->kh * j->kw * j->k * bw;
  float tile[PIXEL_BLOCK * OC_BLOCK];
  int64_t y, b, x0;
  /* the activation in one call per output row where the row is
   * contiguous (not a group's share of the channels) */
  bool act = j->attrs->act != SIMNPU_IR_ACT_NONE;
  bool row_act = act && j->out_px == j->oc;

  for (y = 0; y < j->rows; y++) {
    for (b = 0; b < blocks; b++) {
      const float *w = j->w + b * wblock;
      const float *bias = j->bias + b * bw;
      int64_t nc = MIN (bw, j->oc - b * bw);
      for (x0 = 0; x0 < j->cols; x0 += PIXEL_BLOCK) {
        const float *in = j->in + y * j->in_row + x0 * j->px;
        int np = (int) MIN (PIXEL_BLOCK, j->cols - x0), p;
        float *o0 = j->out + y * j->out_row + x0 * j->out_px + b * bw;
        /* whole blocks straight to the output, a partial one through the
         * tile */
        bool whole = nc == bw;
        float *dst = whole ? o0 : tile;
        int64_t dst_px = whole ? j->out_px : bw;
        switch (np) {
            GEMM_TILE_CASE (6);
            GEMM_TILE_CASE (5);
            GEMM_TILE_CASE (4);
            GEMM_TILE_CASE (3);
            GEMM_TILE_CASE (2);
          default:
            GEMM_TILE_CASE (1);
        }
        for (p = 0; p < np; p++) {
          float *o = o0 + p * j->out_px;
          if (!whole)
            memcpy (o, tile + p * bw, (size_t) nc * sizeof (float));
          if (act && !row_act)
            apply_act (o, nc, j->attrs);
        }
      }
    }
    if (row_act)
      apply_act (j->out + y * j->out_row, j->cols * j->oc, j->attrs);
  }
}

IR_CLONES static void
gemm_run_plain (const gemm_job * j)
{
  gemm_run_body (j);
}

#ifdef IR_HAVE_FMA_PATH
/* the same with acc += a * w contracted */
IR_FMA static void
gemm_run_fma (const gemm_job * j)
{
  gemm_run_body (j);
}
#endif

static void
gemm_run (const gemm_job * j)
{
#ifdef IR_HAVE_FMA_PATH
  if (have_fma ()) {
    gemm_run_fma (j);
    return;
  }
#endif
  gemm_run_plain (j);
}

/* depthwise (one input and one output channel per group): the inner
 * loop runs over the channels of NHWC */
static ALWAYS_INLINE void
depthwise_body (const float *in, int64_t wp, int64_t c, const float *w,
    const float *bias, float *out, int64_t oh, int64_t ow,
    const simnpu__ir_attrs * at)
{
  int kh = at->kernel[0], kw = at->kernel[1];
  int64_t sh = at->stride[0], sw = at->stride[1];
  int64_t dh = at->dilation[0], dw = at->dilation[1];
  int64_t y, x0, ch;
  int ky, kx;

  for (y = 0; y < oh; y++) {
    for (x0 = 0; x0 < ow; x0++) {
      float *restrict o = out + (y * ow + x0) * c;
      const float *base = in + (y * sh * wp + x0 * sw) * c;
      /* blocks of DW_BLOCK channels accumulate in registers over the
       * taps */
      for (ch = 0; ch + DW_BLOCK <= c; ch += DW_BLOCK) {
        v8sf acc[DW_VECS];
        int v;
        for (v = 0; v < DW_VECS; v++)
          LOAD8 (acc[v], bias + ch + v * OC_HALF);
        for (ky = 0; ky < kh; ky++) {
          for (kx = 0; kx < kw; kx++) {
            const float *ip = base + (ky * dh * wp + kx * dw) * c + ch;
            const float *wk = w + ((int64_t) ky * kw + kx) * c + ch;
            for (v = 0; v < DW_VECS; v++) {
              v8sf a, b;
              LOAD8 (a, ip + v * OC_HALF);
              LOAD8 (b, wk + v * OC_HALF);
              acc[v] += a * b;
            }
          }
        }
        for (v = 0; v < DW_VECS; v++)
          STORE8 (o + ch + v * OC_HALF, acc[v]);
      }
      /* then single vectors, then what is left */
      for (; ch + OC_HALF <= c; ch += OC_HALF) {
        v8sf acc;
        LOAD8 (acc, bias + ch);
        for (ky = 0; ky < kh; ky++) {
          for (kx = 0; kx < kw; kx++) {
            v8sf a, b;
            LOAD8 (a, base + (ky * dh * wp + kx * dw) * c + ch);
            LOAD8 (b, w + ((int64_t) ky * kw + kx) * c + ch);
            acc += a * b;
          }
        }
        STORE8 (o + ch, acc);
      }
      for (; ch < c; ch++) {
        float acc = bias[ch];
        for (ky = 0; ky < kh; ky++)
          for (kx = 0; kx < kw; kx++)
            acc += base[(ky * dh * wp + kx * dw) * c + ch]
                * w[((int64_t) ky * kw + kx) * c + ch];
        o[ch] = acc;
      }
    }
    apply_act (out + y * ow * c, ow * c, at);
  }
}

IR_CLONES static void
depthwise_plain (const float *in, int64_t wp, int64_t c, const float *w,
    const float *bias, float *out, int64_t oh, int64_t ow,
    const simnpu__ir_attrs * at)
{
  depthwise_body (in, wp, c, w, bias, out, oh, ow, at);
}

#ifdef IR_HAVE_FMA_PATH
IR_FMA static void
depthwise_fma (const float *in, int64_t wp, int64_t c, const float *w,
    const float *bias, float *out, int64_t oh, int64_t ow,
    const simnpu__ir_attrs * at)
{
  depthwise_body (in, wp, c, w, bias, out, oh, ow, at);
}
#endif

static void
depthwise_run (const float *in, int64_t wp, int64_t c, const float *w,
    const float *bias, float *out, int64_t oh, int64_t ow,
    const simnpu__ir_attrs * at)
{
#ifdef IR_HAVE_FMA_PATH
  if (have_fma ()) {
    depthwise_fma (in, wp, c, w, bias, out, oh, ow, at);
    return;
  }
#endif
  depthwise_plain (in, wp, c, w, bias, out, oh, ow, at);
}

typedef struct
{
  int64_t groups, ocg, icg, kh, kw, blocks, bw;
  bool depthwise;
} conv_geom;

static void
conv_geometry (const simnpu__ir_exec * x, const simnpu__ir_node * n,
    conv_geom * cg)
{
  const simnpu__ir_tensor *w = tin (x, n, 1);

  cg->groups = n->attrs.groups;
  cg->ocg = w->dims[0] / cg->groups;
  cg->kh = w->dims[1];
  cg->kw = w->dims[2];
  cg->icg = w->dims[3];
  cg->bw = block_width (cg->ocg);
  cg->blocks = (cg->ocg + cg->bw - 1) / cg->bw;
  cg->depthwise = cg->icg == 1 && cg->ocg == 1;
}

/* floats of packed weights and bias */
static int64_t
conv_packed_size (const conv_geom * cg, int64_t * wsize)
{
  if (cg->depthwise) {
    *wsize = cg->kh * cg->kw * cg->groups;
    return *wsize + cg->groups;
  }
  *wsize = cg->groups * cg->blocks * cg->kh * cg->kw * cg->icg * cg->bw;
  return *wsize + cg->groups * cg->blocks * cg->bw;
}

static void
conv_pack_weights (const conv_geom * cg, const float *w, float *dst)
{
  int64_t g, b, ky, kx, c, j;

  if (cg->depthwise) {
    for (g = 0; g < cg->groups; g++)
      for (ky = 0; ky < cg->kh; ky++)
        for (kx = 0; kx < cg->kw; kx++)
          dst[(ky * cg->kw + kx) * cg->groups + g] =
              w[(g * cg->kh + ky) * cg->kw + kx];
    return;
  }
  for (g = 0; g < cg->groups; g++)
    for (b = 0; b < cg->blocks; b++)
      for (ky = 0; ky < cg->kh; ky++)
        for (kx = 0; kx < cg->kw; kx++)
          for (c = 0; c < cg->icg; c++)
            for (j = 0; j < cg->bw; j++) {
              int64_t oc = b * cg->bw + j;
              *dst++ = oc < cg->ocg ?
                  w[(((g * cg->ocg + oc) * cg->kh + ky) * cg->kw + kx)
                  * cg->icg + c] : 0.0f;
            }
}

static void
conv_pack_bias (const conv_geom * cg, const float *bias, float *dst)
{
  int64_t g, j, per = cg->depthwise ? 1 : cg->blocks * cg->bw;

  for (g = 0; g < cg->groups; g++)
    for (j = 0; j < per; j++)
      dst[g * per + j] = bias != NULL && j < cg->ocg ?
          bias[g * cg->ocg + j] : 0.0f;
}

int
simnpu__ir_run_conv2d (simnpu__ir_exec * x, const simnpu__ir_node * n,
    simnpu_error * error)
{
  const simnpu__ir_tensor *ti = tin (x, n, 0), *to = tout (x, n, 0);
  const simnpu__ir_attrs *at = &n->attrs;
  const unsigned id = (unsigned) (n - x->g->nodes);
  int64_t nb = ti->dims[0], h = ti->dims[1], w = ti->dims[2];
  int64_t c = ti->dims[3], oh = to->dims[1], ow = to->dims[2];
  int64_t oc = to->dims[3], hp = h + at->pads[0] + at->pads[2];
  int64_t wp = w + at->pads[1] + at->pads[3], wsize, i, g;
  const float *src = din (x, n, 0);
  float *out = dout (x, n, 0), *packed = x->packed[id], *pb;
  conv_geom cg;

  conv_geometry (x, n, &cg);
  conv_packed_size (&cg, &wsize);
  pb = packed + wsize;
  if (!x->packed_const[id])
    conv_pack_weights (&cg, din (x, n, 1), packed);
  conv_pack_bias (&cg, din (x, n, 2), pb);
  if (x->scratch[id] != NULL) {
    /* the borders of the padded copy stay zero from exec_new */
    float *pad = x->scratch[id];
    for (i = 0; i < nb * h; i++) {
      int64_t b = i / h, y = i % h;
      memcpy (pad + ((b * hp + y + at->pads[0]) * wp + at->pads[1]) * c,
          src + i * w * c, (size_t) (w * c) * sizeof (float));
    }
    src = pad;
  }
  for (i = 0; i < nb; i++) {
    const float *img = src + i * hp * wp * c;
    float *oimg = out + i * oh * ow * oc;
    if (cg.depthwise) {
      depthwise_run (img, wp, c, packed, pb, oimg, oh, ow, at);
      continue;
    }
    for (g = 0; g < cg.groups; g++) {
      gemm_job j = {
        .in = img + g * cg.icg,
        .in_row = at->stride[0] * wp * c,
        .px = at->stride[1] * c,
        .row = at->dilation[0] * wp * c,
        .col = at->dilation[1] * c,
        .kh = (int) cg.kh,.kw = (int) cg.kw,.k = cg.icg,
        .w = packed + g * cg.blocks * cg.kh * cg.kw * cg.icg * cg.bw,
        .bias = pb + g * cg.blocks * cg.bw,
        .out = oimg + g * cg.ocg,
        .out_row = ow * oc,.out_px = oc,.oc = cg.ocg,
        .rows = oh,.cols = ow,.attrs = at,
      };
      gemm_run (&j);
    }
  }
  return 0;
}

typedef struct
{
  int64_t m, k, nn;
  unsigned batch_rank;
  int64_t batch[SIMNPU_IR_MAX_RANK];
  int64_t a_st[SIMNPU_IR_MAX_RANK], b_st[SIMNPU_IR_MAX_RANK];
  int64_t n_batch, n_bmats, blocks, bw;
} mm_geom;

static void
matmul_geometry (const simnpu__ir_tensor * a, const simnpu__ir_tensor * b,
    mm_geom * mg)
{
  unsigned ra = a->rank > 2 ? a->rank - 2 : 0;
  unsigned rb = b->rank > 2 ? b->rank - 2 : 0, i;
  int64_t sa, sb;

  mg->k = a->dims[a->rank - 1];
  mg->m = a->rank == 1 ? 1 : a->dims[a->rank - 2];
  mg->nn = b->rank == 1 ? 1 : b->dims[b->rank - 1];
  mg->bw = block_width (mg->nn);
  mg->blocks = (mg->nn + mg->bw - 1) / mg->bw;
  simnpu__ir_broadcast (ra, a->dims, rb, b->dims, &mg->batch_rank, mg->batch);
  mg->n_batch = 1;
  mg->n_bmats = 1;
  sa = mg->m * mg->k;
  sb = mg->k * mg->nn;
  /* batch strides in matrices; 0 where an operand is broadcast */
  for (i = mg->batch_rank; i-- > 0;) {
    unsigned offa = mg->batch_rank - ra, offb = mg->batch_rank - rb;
    int64_t da = i < offa ? 1 : a->dims[i - offa];
    int64_t db = i < offb ? 1 : b->dims[i - offb];
    mg->a_st[i] = da == 1 ? 0 : sa;
    mg->b_st[i] = db == 1 ? 0 : sb;
    sa *= da;
    sb *= db;
    mg->n_batch *= mg->batch[i];
    mg->n_bmats *= db;
  }
}

static void
matmul_pack (const mm_geom * mg, const float *b, float *dst)
{
  int64_t m, blk, k, j;

  for (m = 0; m < mg->n_bmats; m++) {
    const float *bm = b + m * mg->k * mg->nn;
    for (blk = 0; blk < mg->blocks; blk++)
      for (k = 0; k < mg->k; k++)
        for (j = 0; j < mg->bw; j++) {
          int64_t col = blk * mg->bw + j;
          *dst++ = col < mg->nn ? bm[k * mg->nn + col] : 0.0f;
        }
  }
}

int
simnpu__ir_run_matmul (simnpu__ir_exec * x, const simnpu__ir_node * n,
    simnpu_error * error)
{
  const unsigned id = (unsigned) (n - x->g->nodes);
  const float *a = din (x, n, 0), *bias = din (x, n, 2);
  float *out = dout (x, n, 0), *packed = x->packed[id], *pb;
  int64_t idx[SIMNPU_IR_MAX_RANK] = { 0 }, i, oa = 0, ob = 0, j;
  int64_t bmat;
  mm_geom mg;
  unsigned d;

  matmul_geometry (tin (x, n, 0), tin (x, n, 1), &mg);
  bmat = mg.blocks * mg.k * mg.bw;
  pb = packed + mg.n_bmats * bmat;
  if (!x->packed_const[id])
    matmul_pack (&mg, din (x, n, 1), packed);
  for (j = 0; j < mg.blocks * mg.bw; j++)
    pb[j] = bias != NULL && j < mg.nn ? bias[j] : 0.0f;
  for (i = 0; i < mg.n_batch; i++) {
    /* the packed matrices are numbered over B's own batch dims: ob
     * counts them in B's layout */
    gemm_job jb = {
      .in = a + oa,.in_row = 0,.px = mg.k,.row = 0,.col = 0,
      .kh = 1,.kw = 1,.k = mg.k,
      .w = packed + (ob / MAX (mg.k * mg.nn, 1)) * bmat,.bias = pb,
      .out = out + i * mg.m * mg.nn,.out_row = 0,.out_px = mg.nn,
      .oc = mg.nn,.rows = 1,.cols = mg.m,.attrs = &n->attrs,
    };
    if (mg.k * mg.nn == 0)
      jb.w = packed;
    gemm_run (&jb);
    for (d = mg.batch_rank; d-- > 0;) {
      bool wrap = ++idx[d] >= mg.batch[d];
      oa += wrap ? -mg.a_st[d] * (mg.batch[d] - 1) : mg.a_st[d];
      ob += wrap ? -mg.b_st[d] * (mg.batch[d] - 1) : mg.b_st[d];
      if (!wrap)
        break;
      idx[d] = 0;
    }
  }
  return 0;
}

/* ------------------------------------------------------------------ */
/* Normalisation, reductions */

/* [outer, axis, inner] view of a tensor around one axis */
static void
axis_view (const simnpu__ir_tensor * t, unsigned axis, int64_t * outer,
    int64_t * len, int64_t * inner)
{
  unsigned i;

  *outer = 1;
  *inner = 1;
  *len = t->rank > 0 ? t->dims[axis] : 1;
  for (i = 0; i < axis && i < t->rank; i++)
    *outer *= t->dims[i];
  for (i = axis + 1; i < t->rank; i++)
    *inner *= t->dims[i];
}

int
simnpu__ir_run_softmax (simnpu__ir_exec * x, const simnpu__ir_node * n,
    simnpu_error * error)
{
  const float *in = din (x, n, 0);
  float *o = dout (x, n, 0);
  int64_t outer, len, inner, a, b, i;
  bool log_sm = n->op == SIMNPU_IR_LOG_SOFTMAX;

  axis_view (tin (x, n, 0), (unsigned) n->attrs.axis, &outer, &len, &inner);
  for (a = 0; a < outer; a++) {
    for (b = 0; b < inner; b++) {
      const float *p = in + a * len * inner + b;
      float *q = o + a * len * inner + b;
      float mx = -INFINITY, sum = 0;
      for (i = 0; i < len; i++)
        mx = p[i * inner] > mx ? p[i * inner] : mx;
      for (i = 0; i < len; i++) {
        float e = expf (p[i * inner] - mx);
        sum += e;
        if (!log_sm)
          q[i * inner] = e;
      }
      if (log_sm) {
        float l = logf (sum);
        for (i = 0; i < len; i++)
          q[i * inner] = p[i * inner] - mx - l;
      } else {
        float inv = 1.0f / sum;
        for (i = 0; i < len; i++)
          q[i * inner] *= inv;
      }
    }
  }
  return 0;
}

int
simnpu__ir_run_batchnorm (simnpu__ir_exec * x, const simnpu__ir_node * n,
    simnpu_error * error)
{
  const simnpu__ir_tensor *t = tin (x, n, 0);
  const float *in = din (x, n, 0), *scale = din (x, n, 1);
  const float *bias = din (x, n, 2), *mean = din (x, n, 3);
  const float *var = din (x, n, 4);
  const unsigned id = (unsigned) (n - x->g->nodes);
  int64_t c = t->dims[t->rank - 1], rows, r, i;
  float *o = dout (x, n, 0), *mul = x->scratch[id], *add = mul + c;

  rows = c > 0 ? elems (t) / c : 0;
  for (i = 0; i < c; i++) {
    mul[i] = scale[i] / sqrtf (var[i] + n->attrs.f[0]);
    add[i] = bias[i] - mean[i] * mul[i];
  }
  for (r = 0; r < rows; r++) {
    const float *p = in + r * c;
    float *q = o + r * c;
    for (i = 0; i < c; i++)
      q[i] = p[i] * mul[i] + add[i];
  }
  return 0;
}

/* The common f32 reductions as [outer, reduced, inner] blocks (after
 * merging neighbouring axes of the same kind), the inner loop over
 * contiguous kept elements; false when the axes do not form one such
 * block. Accumulates into o, which holds the identities. */
IR_CLONES static bool
reduce_f32_blocks (simnpu__ir_op op, const simnpu__ir_tensor * t,
    const bool *mask, const float *in, float *o)
{
  int64_t size[SIMNPU_IR_MAX_RANK], outer = 1, red = 1, inner = 1, a, r, i;
  bool red_axis[SIMNPU_IR_MAX_RANK];
  unsigned d, ng = 0, g = 0;

  for (d = 0; d < t->rank; d++) {
    if (t->dims[d] == 1)
      continue;
    if (ng > 0 && red_axis[ng - 1] == mask[d]) {
      size[ng - 1] *= t->dims[d];
      continue;
    }
    size[ng] = t->dims[d];
    red_axis[ng++] = mask[d];
  }
  if (g < ng && !red_axis[g])
    outer = size[g++];
  if (g < ng && red_axis[g])
    red = size[g++];
  if (g < ng && !red_axis[g])
    inner = size[g++];
  if (g != ng)
    return false;
  for (a = 0; a < outer; a++) {
    float *q = o + a * inner;
    for (r = 0; r < red; r++) {
      const float *p = in + (a * red + r) * inner;
      switch (op) {
        case SIMNPU_IR_REDUCE_MAX:
          for (i = 0; i < inner; i++)
            q[i] = p[i] > q[i] || isnan (p[i]) ? p[i] : q[i];
          break;
        case SIMNPU_IR_REDUCE_MIN:
          for (i = 0; i < inner; i++)
            q[i] = p[i] < q[i] || isnan (p[i]) ? p[i] : q[i];
          break;
        case SIMNPU_IR_REDUCE_PROD:
          for (i = 0; i < inner; i++)
            q[i] *= p[i];
          break;
        default:
          for (i = 0; i < inner; i++)
            q[i] += p[i];
          break;
      }
    }
  }
  return true;
}

int
simnpu__ir_run_reduce (simnpu__ir_exec * x, const simnpu__ir_node * n,
    simnpu_error * error)
{
  const simnpu__ir_tensor *t = tin (x, n, 0), *to = tout (x, n, 0);
  const void *in = din (x, n, 0);
  void *o = dout (x, n, 0);
  bool mask[SIMNPU_IR_MAX_RANK] = { false };
  int64_t ost[SIMNPU_IR_MAX_RANK], dims[SIMNPU_IR_MAX_RANK];
  int64_t idx[SIMNPU_IR_MAX_RANK] = { 0 }, s = 1, total = elems (t);
  int64_t n_out = elems (to), count, off = 0, e, i;
  const bool f = t->dtype == SIMNPU_IR_F32;
  unsigned d;

  for (d = 0; d < t->rank; d++)
    mask[d] = n->attrs.n_ints == 0;
  for (i = 0; i < n->attrs.n_ints; i++) {
    int64_t ax = n->attrs.ints[i];
    mask[ax < 0 ? ax + t->rank : ax] = true;
  }
  for (d = t->rank; d-- > 0;) {
    dims[d] = t->dims[d];
    ost[d] = mask[d] ? 0 : s;
    if (!mask[d])
      s *= t->dims[d];
  }
  count = n_out > 0 ? total / n_out : 0;
  /* identities of each reduction */
  for (i = 0; i < n_out; i++) {
    switch (n->op) {
      case SIMNPU_IR_REDUCE_MAX:
        if (f)
          ((float *) o)[i] = -INFINITY;
        else
          store_int (t->dtype, o, i, t->dtype == SIMNPU_IR_U8 ? 0
              : t->dtype == SIMNPU_IR_I8 ? G_MININT8
              : t->dtype == SIMNPU_IR_I32 ? G_MININT32 : G_MININT64);
        break;
      case SIMNPU_IR_REDUCE_MIN:
        if (f)
          ((float *) o)[i] = INFINITY;
        else
          store_int (t->dtype, o, i, t->dtype == SIMNPU_IR_U8 ? G_MAXUINT8
              : t->dtype == SIMNPU_IR_I8 ? G_MAXINT8
              : t->dtype == SIMNPU_IR_I32 ? G_MAXINT32 : G_MAXINT64);
        break;
      case SIMNPU_IR_REDUCE_PROD:
        if (f)
          ((float *) o)[i] = 1;
        else
          store_int (t->dtype, o, i, 1);
        break;
      default:
        if (f)
          ((float *) o)[i] = 0;
        else
          store_int (t->dtype, o, i, 0);
        break;
    }
  }
  if (f && reduce_f32_blocks (n->op, t, mask, in, o))
    total = 0;
  for (e = 0; e < total; e++) {
    if (f) {
      float v = ((const float *) in)[e], *r = (float *) o + off;
      switch (n->op) {
        case SIMNPU_IR_REDUCE_MAX:
          *r = v > *r || isnan (v) ? v : *r;
          break;
        case SIMNPU_IR_REDUCE_MIN:
          *r = v < *r || isnan (v) ? v : *r;
          break;
        case SIMNPU_IR_REDUCE_PROD:
          *r *= v;
          break;
        default:
          *r += v;
          break;
      }
    } else {
      int64_t v = load_int (t->dtype, in, e), r = load_int (t->dtype, o, off);
      switch (n->op) {
        case SIMNPU_IR_REDUCE_MAX:
          r = MAX (r, v);
          break;
        case SIMNPU_IR_REDUCE_MIN:
          r = MIN (r, v);
          break;
        case SIMNPU_IR_REDUCE_PROD:
          r = int_binary (SIMNPU_IR_MUL, r, v);
          break;
        default:
          r = int_binary (SIMNPU_IR_ADD, r, v);
          break;
      }
      store_int (t->dtype, o, off, r);
    }
    for (d = t->rank; d-- > 0;) {
      off += ost[d];
      if (++idx[d] < dims[d])
        break;
      off -= ost[d] * dims[d];
      idx[d] = 0;
    }
  }
  if (n->op == SIMNPU_IR_REDUCE_MEAN && count > 0) {
    for (i = 0; i < n_out; i++) {
      if (f)
        ((float *) o)[i] /= (float) count;
      else
        store_int (t->dtype, o, i, load_int (t->dtype, o, i) / count);
    }
  } else if (n->op == SIMNPU_IR_REDUCE_MEAN && f) {
    for (i = 0; i < n_out; i++)
      ((float *) o)[i] = NAN;
  }
  return 0;
}

int
simnpu__ir_run_arg (simnpu__ir_exec * x, const simnpu__ir_node * n,
    simnpu_error * error)
{
  const simnpu__ir_tensor *t = tin (x, n, 0);
  const void *in = din (x, n, 0);
  int64_t *o = dout (x, n, 0);
  int64_t outer, len, inner, a, b, i;
  const bool is_max = n->op == SIMNPU_IR_ARGMAX;

  axis_view (t, (unsigned) n->attrs.axis, &outer, &len, &inner);
  for (a = 0; a < outer; a++) {
    for (b = 0; b < inner; b++) {
      int64_t base = a * len * inner + b, best = 0;
      double bv = load_f64 (t->dtype, in, base);
      for (i = 1; i < len; i++) {
        double v = load_f64 (t->dtype, in, base + i * inner);
        /* strict: the first index wins ties */
        if (is_max ? v > bv : v < bv) {
          bv = v;
          best = i;
        }
      }
      o[a * inner + b] = best;
    }
  }
  return 0;
}

/* ------------------------------------------------------------------ */
/* Pooling, NHWC */

IR_CLONES static void
pool_run (const float *in, int64_t h, int64_t w, int64_t c, float *out,
    int64_t oh, int64_t ow, const simnpu__ir_attrs * at, bool is_max)
{
  const int64_t kh = at->kernel[0], kw = at->kernel[1];
  const int64_t sh = at->stride[0], sw = at->stride[1];
  const int64_t dh = at->dilation[0], dw = at->dilation[1];
  const int64_t pt = at->pads[0], pl = at->pads[1];
  const int64_t hend = h + at->pads[2], wend = w + at->pads[3];
  int64_t y, x0, ky, kx, ch;

  for (y = 0; y < oh; y++) {
    for (x0 = 0; x0 < ow; x0++) {
      float *restrict o = out + (y * ow + x0) * c;
      int64_t valid = 0, padded = 0;
      for (ch = 0; ch < c; ch++)
        o[ch] = is_max ? -INFINITY : 0.0f;
      for (ky = 0; ky < kh; ky++) {
        int64_t iy = y * sh - pt + ky * dh;
        if (iy >= hend)
          break;
        for (kx = 0; kx < kw; kx++) {
          int64_t ix = x0 * sw - pl + kx * dw;
          const float *restrict ip;
          if (ix >= wend)
            break;
          /* inside the explicit padding (not beyond it, ceil_mode) */
          padded++;
          if (iy < 0 || iy >= h || ix < 0 || ix >= w)
            continue;
          valid++;
          ip = in + (iy * w + ix) * c;
          if (is_max) {
            for (ch = 0; ch < c; ch++)
              o[ch] = ip[ch] > o[ch] ? ip[ch] : o[ch];
          } else {
            for (ch = 0; ch < c; ch++)
              o[ch] += ip[ch];
          }
        }
      }
      if (!is_max) {
        int64_t div = at->count_include_pad ? padded : valid;
        float inv = div > 0 ? 1.0f / (float) div : 0.0f;
        for (ch = 0; ch < c; ch++)
          o[ch] *= inv;
      }
    }
  }
}

/* max pooling of u8 and i8 */
static void
pool_max_int (const simnpu__ir_tensor * t, const void *in,
    const simnpu__ir_tensor * to, void *out, const simnpu__ir_attrs * at)
{
  const int64_t h = t->dims[1], w = t->dims[2], c = t->dims[3];
  const int64_t oh = to->dims[1], ow = to->dims[2];
  int64_t b, y, x0, ky, kx, ch;

  for (b = 0; b < t->dims[0]; b++)
    for (y = 0; y < oh; y++)
      for (x0 = 0; x0 < ow; x0++)
        for (ch = 0; ch < c; ch++) {
          int64_t best = G_MININT64;
          for (ky = 0; ky < at->kernel[0]; ky++) {
            int64_t iy = y * at->stride[0] - at->pads[0]
                + ky * at->dilation[0];
            if (iy < 0 || iy >= h)
              continue;
            for (kx = 0; kx < at->kernel[1]; kx++) {
              int64_t ix = x0 * at->stride[1] - at->pads[1]
                  + kx * at->dilation[1];
              if (ix >= 0 && ix < w)
                best = MAX (best, load_int (t->dtype, in,
                        ((b * h + iy) * w + ix) * c + ch));
            }
          }
          store_int (t->dtype, out, ((b * oh + y) * ow + x0) * c + ch,
              best == G_MININT64 ? 0 : best);
        }
}

int
simnpu__ir_run_pool (simnpu__ir_exec * x, const simnpu__ir_node * n,
    simnpu_error * error)
{
  const simnpu__ir_tensor *t = tin (x, n, 0), *to = tout (x, n, 0);
  const float *in = din (x, n, 0);
  float *o = dout (x, n, 0);
  int64_t b;

  if (t->dtype != SIMNPU_IR_F32) {
    pool_max_int (t, in, to, o, &n->attrs);
    return 0;
  }
  for (b = 0; b < t->dims[0]; b++)
    pool_run (in + b * t->dims[1] * t->dims[2] * t->dims[3], t->dims[1],
        t->dims[2], t->dims[3], o + b * to->dims[1] * to->dims[2] *
        to->dims[3], to->dims[1], to->dims[2], &n->attrs,
        n->op == SIMNPU_IR_MAXPOOL);
  return 0;
}

/* ------------------------------------------------------------------ */
/* Resize, NHWC */

/* ONNX Resize-13 coordinate transformation: the source coordinate of
 * output coordinate o */
static double
resize_coord (int coord, int64_t o, int64_t in_len, int64_t out_len,
    float given_scale)
{
  /* a model's explicit scale (output / input) maps coordinates rather
   * than the ratio of the rounded sizes */
  double scale = given_scale > 0 ? (double) given_scale
      : (double) out_len / (double) in_len;
  /* ONNX's reference takes the resized length unrounded when given a
   * scale */
  double len = given_scale > 0 ? (double) in_len * scale : (double) out_len;

  switch (coord) {
    case SIMNPU_IR_COORD_PYTORCH_HALF_PIXEL:
      return len > 1 ? ((double) o + HALF) / scale - HALF : 0.0;
    case SIMNPU_IR_COORD_ALIGN_CORNERS:
      return len == 1 ? 0.0 : (double) o *(double) (in_len - 1) / (len - 1);
    case SIMNPU_IR_COORD_ASYMMETRIC:
      return (double) o / scale;
    case SIMNPU_IR_COORD_TF_HALF_PIXEL_FOR_NN:
      return ((double) o + HALF) / scale;
    default:
      return ((double) o + HALF) / scale - HALF;
  }
}

static int64_t
resize_nearest (int mode, double v, int64_t in_len)
{
  double fl;
  int64_t i;

  /* far outside (or NaN, from a degenerate scale) clamps like the edge */
  if (!(v >= 0))
    v = 0;
  if (v > (double) in_len)
    v = (double) in_len;
  fl = floor (v);
  switch (mode) {
    case SIMNPU_IR_NEAREST_ROUND_PREFER_CEIL:
      i = (int64_t) (v - fl == HALF ? fl + 1 : floor (v + HALF));
      break;
    case SIMNPU_IR_NEAREST_FLOOR:
      i = (int64_t) fl;
      break;
    case SIMNPU_IR_NEAREST_CEIL:
      i = (int64_t) ceil (v);
      break;
    default:
      i = (int64_t) (v - fl == HALF ? fl : floor (v + HALF));
      break;
  }
  return CLAMP (i, 0, in_len - 1);
}

/* the two taps and the weight of the second along one axis; the source
 * coordinate clamps to the edge as ONNX's linear mode does */
static void
resize_linear (double v, int64_t in_len, int64_t * i0, int64_t * i1,
    float *frac)
{
  double fl;

  if (!(v >= 0))
    v = 0;
  if (v > (double) (in_len - 1))
    v = (double) (in_len - 1);
  fl = floor (v);
  *i0 = (int64_t) fl;
  *i1 = MIN (*i0 + 1, in_len - 1);
  *frac = (float) (v - fl);
}

IR_CLONES static void
resize_run (const float *in, int64_t h, int64_t w, int64_t c, float *out,
    int64_t oh, int64_t ow, const simnpu__ir_attrs * at)
{
  /* f[1], f[2]: the model's height and width scales, 0 when it gave
   * sizes */
  const bool scales = at->f[1] > 0 && at->f[2] > 0;
  int64_t y, x0, ch;

  for (y = 0; y < oh; y++) {
    double sy = resize_coord (at->coord, y, h, oh, scales ? at->f[1] : 0);
    for (x0 = 0; x0 < ow; x0++) {
      double sx = resize_coord (at->coord, x0, w, ow,
          scales ? at->f[2] : 0);
      float *restrict o = out + (y * ow + x0) * c;
      if (at->mode == SIMNPU_IR_RESIZE_NEAREST) {
        int64_t iy = resize_nearest (at->nearest, sy, h);
        int64_t ix = resize_nearest (at->nearest, sx, w);
        memcpy (o, in + (iy * w + ix) * c, (size_t) c * sizeof (float));
      } else {
        int64_t y0, y1, xa, xb;
        float fy, fx;
        const float *p00, *p01, *p10, *p11;
        resize_linear (sy, h, &y0, &y1, &fy);
        resize_linear (sx, w, &xa, &xb, &fx);
        p00 = in + (y0 * w + xa) * c;
        p01 = in + (y0 * w + xb) * c;
        p10 = in + (y1 * w + xa) * c;
        p11 = in + (y1 * w + xb) * c;
        for (ch = 0; ch < c; ch++) {
          float top = p00[ch] * (1.0f - fx) + p01[ch] * fx;
          float bot = p10[ch] * (1.0f - fx) + p11[ch] * fx;
          o[ch] = top * (1.0f - fy) + bot * fy;
        }
      }
    }
  }
}

int
simnpu__ir_run_resize (simnpu__ir_exec * x, const simnpu__ir_node * n,
    simnpu_error * error)
{
  const simnpu__ir_tensor *t = tin (x, n, 0), *to = tout (x, n, 0);
  const float *in = din (x, n, 0);
  float *o = dout (x, n, 0);
  int64_t b;

  for (b = 0; b < t->dims[0]; b++)
    resize_run (in + b * t->dims[1] * t->dims[2] * t->dims[3], t->dims[1],
        t->dims[2], t->dims[3], o + b * to->dims[1] * to->dims[2] *
        to->dims[3], to->dims[1], to->dims[2], &n->attrs);
  return 0;
}

/* ------------------------------------------------------------------ */
/* Data movement, any dtype */

int
simnpu__ir_run_depth_to_space (simnpu__ir_exec * x, const simnpu__ir_node * n,
    simnpu_error * error)
{
  const simnpu__ir_tensor *t = tin (x, n, 0);
  int64_t bs = n->attrs.ints[0], nb = t->dims[0], h = t->dims[1];
  int64_t w = t->dims[2], c = t->dims[3], oc = c / (bs * bs);
  /* output viewed as [N, H, bs, W, bs, C'] */
  int64_t dims[6] = { nb, h, bs, w, bs, oc };
  int64_t st[6] = { h * w * c, w * c, 0, c, 0, 0 };

  if (n->attrs.mode == 0) {
    /* DCR: input channel (i * bs + j) * C' + c */
    st[2] = bs * oc;
    st[4] = oc;
    st[5] = 1;
  } else {
    /* CRD: input channel c * bs * bs + i * bs + j */
    st[2] = bs;
    st[4] = 1;
    st[5] = bs * bs;
  }
  strided_copy (dout (x, n, 0), din (x, n, 0),
      simnpu__ir_dtype_size (t->dtype), 6, dims, st);
  return 0;
}

int
simnpu__ir_run_space_to_depth (simnpu__ir_exec * x, const simnpu__ir_node * n,
    simnpu_error * error)
{
  const simnpu__ir_tensor *t = tin (x, n, 0);
  int64_t bs = n->attrs.ints[0], nb = t->dims[0], h = t->dims[1];
  int64_t w = t->dims[2], c = t->dims[3];
  /* output [N, H/bs, W/bs, bs, bs, C]: channel (i * bs + j) * C + c */
  int64_t dims[6] = { nb, h / bs, w / bs, bs, bs, c };
  int64_t st[6] = { h * w * c, bs * w * c, bs * c, w * c, c, 1 };

  strided_copy (dout (x, n, 0), din (x, n, 0),
      simnpu__ir_dtype_size (t->dtype), 6, dims, st);
  return 0;
}

int
simnpu__ir_run_transpose (simnpu__ir_exec * x, const simnpu__ir_node * n,
    simnpu_error * error)
{
  const simnpu__ir_tensor *t = tin (x, n, 0), *to = tout (x, n, 0);
  int64_t st[SIMNPU_IR_MAX_RANK], ost[SIMNPU_IR_MAX_RANK];
  unsigned i;

  contiguous_strides (t->rank, t->dims, st);
  for (i = 0; i < t->rank; i++)
    ost[i] = st[n->attrs.ints[i]];
  strided_copy (dout (x, n, 0), din (x, n, 0),
      simnpu__ir_dtype_size (t->dtype), to->rank, to->dims, ost);
  return 0;
}

int
simnpu__ir_run_concat (simnpu__ir_exec * x, const simnpu__ir_node * n,
    simnpu_error * error)
{
  const simnpu__ir_tensor *to = tout (x, n, 0);
  size_t es = simnpu__ir_dtype_size (to->dtype);
  int64_t outer, len, inner, a;
  uint8_t *o = dout (x, n, 0);
  unsigned i;

  axis_view (to, (unsigned) n->attrs.axis, &outer, &len, &inner);
  for (a = 0; a < outer; a++) {
    for (i = 0; i < n->n_inputs; i++) {
      const simnpu__ir_tensor *t = tin (x, n, i);
      size_t row = (size_t) (t->dims[n->attrs.axis] * inner) * es;
      memcpy (o, (const uint8_t *) din (x, n, i) + (size_t) a * row, row);
      o += row;
    }
  }
  return 0;
}

int
simnpu__ir_run_split (simnpu__ir_exec * x, const simnpu__ir_node * n,
    simnpu_error * error)
{
  const simnpu__ir_tensor *t = tin (x, n, 0);
  size_t es = simnpu__ir_dtype_size (t->dtype);
  int64_t outer, len, inner, a;
  const uint8_t *in = din (x, n, 0);
  unsigned i;

  axis_view (t, (unsigned) n->attrs.axis, &outer, &len, &inner);
  for (a = 0; a < outer; a++) {
    for (i = 0; i < n->n_outputs; i++) {
      size_t row = (size_t) (n->attrs.ints[i] * inner) * es;
      memcpy ((uint8_t *) dout (x, n, i) + (size_t) a * row, in, row);
      in += row;
    }
  }
  return 0;
}

int
simnpu__ir_run_slice (simnpu__ir_exec * x, const simnpu__ir_node * n,
    simnpu_error * error)
{
  const simnpu__ir_tensor *t = tin (x, n, 0), *to = tout (x, n, 0);
  int64_t st[SIMNPU_IR_MAX_RANK], ost[SIMNPU_IR_MAX_RANK], base = 0;
  size_t es = simnpu__ir_dtype_size (t->dtype);
  unsigned i, r = t->rank;

  if (elems (to) == 0)
    return 0;
  contiguous_strides (r, t->dims, st);
  for (i = 0; i < r; i++) {
    int64_t first, step = n->attrs.steps[i] == 0 ? 1 : n->attrs.steps[i];
    simnpu__ir_slice_len (t->dims[i], n->attrs.ints[i], n->attrs.ints[r + i],
        step, &first);
    base += first * st[i];
    /* a one-element axis never steps (its step may be huge) */
    ost[i] = to->dims[i] > 1 ? st[i] * step : 0;
  }
  strided_copy (dout (x, n, 0), (const uint8_t *) din (x, n, 0) + base *
      (int64_t) es, es, r, to->dims, ost);
  return 0;
}

/* source index of padded index i along an axis of d elements, or -1 for
 * the constant */
static int64_t
pad_map (int64_t i, int64_t d, int mode)
{
  int64_t period;

  if (i >= 0 && i < d)
    return i;
  switch (mode) {
    case SIMNPU_IR_PAD_EDGE:
      return i < 0 ? 0 : d - 1;
    case SIMNPU_IR_PAD_REFLECT:
      if (d == 1)
        return 0;
      period = 2 * (d - 1);
      i %= period;
      if (i < 0)
        i += period;
      return i >= d ? period - i : i;
    default:
      return -1;
  }
}

int
simnpu__ir_run_pad (simnpu__ir_exec * x, const simnpu__ir_node * n,
    simnpu_error * error)
{
  const simnpu__ir_tensor *t = tin (x, n, 0), *to = tout (x, n, 0);
  const int64_t *ints = n->attrs.ints;
  size_t es = simnpu__ir_dtype_size (t->dtype);
  int64_t st[SIMNPU_IR_MAX_RANK], idx[SIMNPU_IR_MAX_RANK] = { 0 };
  /* per axis, as ONNX: negative pads crop first (keeping kept elements
   * from first), then the kept part is padded by pad */
  int64_t first[SIMNPU_IR_MAX_RANK], kept[SIMNPU_IR_MAX_RANK];
  int64_t pad[SIMNPU_IR_MAX_RANK];
  int64_t total = elems (to), inner, done, j, lo, hi;
  const uint8_t *in = din (x, n, 0);
  uint8_t *o = dout (x, n, 0), value[sizeof (int64_t)];
  unsigned r = t->rank, d;
  const int mode = n->attrs.mode;

  if (total == 0)
    return 0;
  if (t->dtype == SIMNPU_IR_F32)
    memcpy (value, &n->attrs.f[0], sizeof (float));
  else
    store_int (t->dtype, value, 0, f2i (n->attrs.f[0]));
  if (r == 0) {
    memcpy (o, in, es);
    return 0;
  }
  contiguous_strides (r, t->dims, st);
  for (d = 0; d < r; d++) {
    first[d] = MAX (0, -ints[d]);
    kept[d] = t->dims[d] + MIN (ints[d], 0) + MIN (ints[r + d], 0);
    pad[d] = MAX (ints[d], 0);
  }
  inner = to->dims[r - 1];
  /* the output positions of the last axis that copy straight */
  lo = pad[r - 1];
  hi = lo + MAX (kept[r - 1], 0);
  for (done = 0; done < total; done += inner) {
    int64_t src = 0;
    bool constant = false;
    for (d = 0; d + 1 < r; d++) {
      int64_t s = pad_map (idx[d] - pad[d], kept[d], mode);
      if (s < 0)
        constant = true;
      else
        src += (first[d] + s) * st[d];
    }
    src += first[r - 1];
    for (j = 0; j < inner; j++) {
      int64_t s;
      if (j == lo && !constant && hi > lo) {
        memcpy (o + j * (int64_t) es, in + src * (int64_t) es,
            (size_t) (hi - lo) * es);
        j = hi - 1;
        continue;
      }
      s = constant ? -1 : pad_map (j - lo, kept[r - 1], mode);
      memcpy (o + j * (int64_t) es, s < 0 ? value : in + (src + s) *
          (int64_t) es, es);
    }
    o += inner * (int64_t) es;
    for (d = r - 1; d-- > 0;) {
      if (++idx[d] < to->dims[d])
        break;
      idx[d] = 0;
    }
  }
  return 0;
}

int
simnpu__ir_run_gather (simnpu__ir_exec * x, const simnpu__ir_node * n,
    simnpu_error * error)
{
  const simnpu__ir_tensor *t = tin (x, n, 0), *ti = tin (x, n, 1);
  size_t es = simnpu__ir_dtype_size (t->dtype);
  int64_t outer, len, inner, a, j, n_idx = elems (ti);
  const uint8_t *in = din (x, n, 0);
  const void *idx = din (x, n, 1);
  uint8_t *o = dout (x, n, 0);
  size_t row;

  axis_view (t, (unsigned) n->attrs.axis, &outer, &len, &inner);
  row = (size_t) inner *es;
  for (j = 0; j < n_idx; j++) {
    int64_t v = load_int (ti->dtype, idx, j);
    if (v < -len || v >= len)
      return run_error (error, SIMNPU_EINVAL, n, "index out of range");
  }
  for (a = 0; a < outer; a++) {
    for (j = 0; j < n_idx; j++) {
      int64_t v = load_int (ti->dtype, idx, j);
      if (v < 0)
        v += len;
      memcpy (o, in + ((size_t) (a * len + v)) * row, row);
      o += row;
    }
  }
  return 0;
}

int
simnpu__ir_run_tile (simnpu__ir_exec * x, const simnpu__ir_node * n,
    simnpu_error * error)
{
  const simnpu__ir_tensor *t = tin (x, n, 0);
  int64_t st[SIMNPU_IR_MAX_RANK], dims[MAX_VIEW], vst[MAX_VIEW];
  unsigned i;

  /* each axis d as [repeats, d] with the repeat axis not moving */
  contiguous_strides (t->rank, t->dims, st);
  for (i = 0; i < t->rank; i++) {
    dims[2 * i] = n->attrs.ints[i];
    vst[2 * i] = 0;
    dims[2 * i + 1] = t->dims[i];
    vst[2 * i + 1] = st[i];
  }
  strided_copy (dout (x, n, 0), din (x, n, 0),
      simnpu__ir_dtype_size (t->dtype), 2 * t->rank, dims, vst);
  return 0;
}

int
simnpu__ir_run_expand (simnpu__ir_exec * x, const simnpu__ir_node * n,
    simnpu_error * error)
{
  const simnpu__ir_tensor *t = tin (x, n, 0), *to = tout (x, n, 0);
  int64_t st[SIMNPU_IR_MAX_RANK], vst[SIMNPU_IR_MAX_RANK];
  unsigned i, off = to->rank - t->rank;

  contiguous_strides (t->rank, t->dims, st);
  for (i = 0; i < to->rank; i++)
    vst[i] = i < off || t->dims[i - off] == 1 ? 0 : st[i - off];
  strided_copy (dout (x, n, 0), din (x, n, 0),
      simnpu__ir_dtype_size (t->dtype), to->rank, to->dims, vst);
  return 0;
}

int
simnpu__ir_run_shape (simnpu__ir_exec * x, const simnpu__ir_node * n,
    simnpu_error * error)
{
  const simnpu__ir_tensor *t = tin (x, n, 0);
  int64_t *o = dout (x, n, 0);
  unsigned i;

  for (i = 0; i < t->rank; i++)
    o[i] = t->dims[i];
  return 0;
}

int
simnpu__ir_run_range (simnpu__ir_exec * x, const simnpu__ir_node * n,
    simnpu_error * error)
{
  const simnpu__ir_tensor *t = tin (x, n, 0), *to = tout (x, n, 0);
  int64_t len = elems (to), i;
  void *o = dout (x, n, 0);

  if (t->dtype == SIMNPU_IR_F32) {
    float s = *(const float *) din (x, n, 0);
    float d = *(const float *) din (x, n, 2);
    for (i = 0; i < len; i++)
      ((float *) o)[i] = s + (float) i *d;
  } else {
    int64_t s = load_int (t->dtype, din (x, n, 0), 0);
    int64_t d = load_int (t->dtype, din (x, n, 2), 0);
    for (i = 0; i < len; i++)
      store_int (t->dtype, o, i, (int64_t) ((uint64_t) s +
              (uint64_t) i * (uint64_t) d));
  }
  return 0;
}

/* ------------------------------------------------------------------ */
/* The executor */

static void *
try_alloc0 (int64_t bytes)
{
  return g_try_malloc0 ((gsize) MAX (bytes, 1));
}

/* per-node buffers: packed weights, padded input copies */
static int
exec_node_buffers (simnpu__ir_exec * x, unsigned id, simnpu_error * error)
{
  const simnpu__ir_node *n = &x->g->nodes[id];
  const simnpu__ir_attrs *at = &n->attrs;

  if (n->op == SIMNPU_IR_CONV2D) {
    const simnpu__ir_tensor *ti = tin (x, n, 0), *tw = tin (x, n, 1);
    int64_t wsize, size;
    conv_geom cg;
    conv_geometry (x, n, &cg);
    size = conv_packed_size (&cg, &wsize);
    if (size > SIMNPU_IR_MAX_ELEMENTS
        || (x->packed[id] = try_alloc0 (size * (int64_t) sizeof (float)))
        == NULL)
      return run_error (error, SIMNPU_ENOMEM, n, "packed weights too large");
    if (tw->is_const) {
      conv_pack_weights (&cg, tw->data, x->packed[id]);
      x->packed_const[id] = true;
    }
    if (at->pads[0] || at->pads[1] || at->pads[2] || at->pads[3]) {
      int64_t hp = ti->dims[1] + at->pads[0] + at->pads[2];
      int64_t wp = ti->dims[2] + at->pads[1] + at->pads[3];
      int64_t e = ti->dims[0] * hp;
      if (e > SIMNPU_IR_MAX_ELEMENTS || (e *= wp) > SIMNPU_IR_MAX_ELEMENTS
          || (e *= ti->dims[3]) > SIMNPU_IR_MAX_ELEMENTS
          || (x->scratch[id] = try_alloc0 (e * (int64_t) sizeof (float)))
          == NULL)
        return run_error (error, SIMNPU_ENOMEM, n, "padded input too large");
    }
  } else if (n->op == SIMNPU_IR_MATMUL) {
    const simnpu__ir_tensor *tb = tin (x, n, 1);
    int64_t size;
    mm_geom mg;
    matmul_geometry (tin (x, n, 0), tb, &mg);
    size = mg.n_bmats * mg.blocks * mg.k;
    if (size > SIMNPU_IR_MAX_ELEMENTS / OC_BLOCK
        || (x->packed[id] = try_alloc0 ((size + mg.blocks) * mg.bw *
                (int64_t) sizeof (float))) == NULL)
      return run_error (error, SIMNPU_ENOMEM, n, "packed weights too large");
    if (tb->is_const) {
      matmul_pack (&mg, tb->data, x->packed[id]);
      x->packed_const[id] = true;
    }
  } else if (n->op == SIMNPU_IR_BATCHNORM) {
    const simnpu__ir_tensor *t = tin (x, n, 0);
    x->scratch[id] = try_alloc0 (2 * t->dims[t->rank - 1] *
        (int64_t) sizeof (float));
    if (x->scratch[id] == NULL)
      return run_error (error, SIMNPU_ENOMEM, n, "out of memory");
  }
  return 0;
}

simnpu__ir_exec *
simnpu__ir_exec_new (const simnpu__ir_graph * g, simnpu_error * error)
{
  simnpu__ir_exec *x;
  unsigned i;

  if (g == NULL) {
    simnpu__set_error (error, SIMNPU_EINVAL, "no graph");
    return NULL;
  }
  x = g_new0 (simnpu__ir_exec, 1);
  x->g = g;
  x->bufs = g_new0 (void *, MAX (g->n_tensors, 1));
  x->packed = g_new0 (float *, MAX (g->n_nodes, 1));
  x->packed_const = g_new0 (bool, MAX (g->n_nodes, 1));
  x->scratch = g_new0 (float *, MAX (g->n_nodes, 1));
  for (i = 0; i < g->n_tensors; i++) {
    const simnpu__ir_tensor *t = &g->tensors[i];
    if (simnpu__ir_tensor_elements (t) < 0) {
      simnpu__set_error (error, SIMNPU_ESHAPE,
          "tensor '%s': invalid shape (were shapes inferred?)", t->name);
      goto fail;
    }
    if (t->is_const) {
      x->bufs[i] = t->data != NULL ? t->data : &x->empty;
      continue;
    }
    x->bufs[i] = try_alloc0 ((int64_t) simnpu__ir_tensor_bytes (t));
    if (x->bufs[i] == NULL) {
      simnpu__set_error (error, SIMNPU_ENOMEM,
          "tensor '%s': out of memory for %zu bytes", t->name,
          simnpu__ir_tensor_bytes (t));
      goto fail;
    }
  }
  for (i = 0; i < g->n_nodes; i++) {
    const simnpu__ir_node *n = &g->nodes[i];
    if ((unsigned) n->op >= SIMNPU_IR_N_OPS) {
      simnpu__set_error (error, SIMNPU_EUNSUPPORTED,
          "node '%s': unknown op %d", n->name, (int) n->op);
      goto fail;
    }
    if (exec_node_buffers (x, i, error) < 0)
      goto fail;
  }
  return x;
fail:
  simnpu__ir_exec_free (x);
  return NULL;
}

void
simnpu__ir_exec_free (simnpu__ir_exec * x)
{
  unsigned i;

  if (x == NULL)
    return;
  for (i = 0; i < x->g->n_tensors; i++)
    if (!x->g->tensors[i].is_const)
      g_free (x->bufs[i]);
  for (i = 0; i < x->g->n_nodes; i++) {
    g_free (x->packed[i]);
    g_free (x->scratch[i]);
  }
  g_free (x->bufs);
  g_free (x->packed);
  g_free (x->packed_const);
  g_free (x->scratch);
  g_free (x);
}

const simnpu__ir_graph *
simnpu__ir_exec_graph (const simnpu__ir_exec * x)
{
  return x != NULL ? x->g : NULL;
}

void *
simnpu__ir_exec_data (simnpu__ir_exec * x, int t)
{
  if (x == NULL || t < 0 || (unsigned) t >= x->g->n_tensors)
    return NULL;
  return x->bufs[t];
}

void *
simnpu__ir_exec_bind (simnpu__ir_exec * x, int t, void *data)
{
  void *was;

  if (x == NULL || t < 0 || (unsigned) t >= x->g->n_tensors
      || x->g->tensors[t].is_const)
    return NULL;
  was = x->bufs[t];
  x->bufs[t] = data;
  return was;
}

/* calloc hands out fresh pages untouched: writing zeros keeps the
 * contents and maps them */
void
simnpu__ir_exec_prefault (simnpu__ir_exec * x, const bool *skip)
{
  unsigned i;

  if (x == NULL)
    return;
  for (i = 0; i < x->g->n_tensors; i++) {
    const simnpu__ir_tensor *t = &x->g->tensors[i];
    if (t->is_const || (skip != NULL && skip[i]))
      continue;
    memset (x->bufs[i], 0, simnpu__ir_tensor_bytes (t));
  }
  for (i = 0; i < x->g->n_nodes; i++) {
    const simnpu__ir_node *n = &x->g->nodes[i];
    int64_t bytes;
    /* the sizes are the ones exec_node_buffers allocated */
    if (x->scratch[i] != NULL && n->op == SIMNPU_IR_CONV2D) {
      const simnpu__ir_tensor *ti = tin (x, n, 0);
      const simnpu__ir_attrs *at = &n->attrs;
      bytes = ti->dims[0] * (ti->dims[1] + at->pads[0] + at->pads[2]) *
          (ti->dims[2] + at->pads[1] + at->pads[3]) * ti->dims[3] *
          (int64_t) sizeof (float);
      memset (x->scratch[i], 0, (size_t) bytes);
    }
    if (x->packed[i] != NULL && !x->packed_const[i]
        && n->op == SIMNPU_IR_CONV2D) {
      int64_t wsize;
      conv_geom cg;
      conv_geometry (x, n, &cg);
      bytes = conv_packed_size (&cg, &wsize) * (int64_t) sizeof (float);
      memset (x->packed[i], 0, (size_t) bytes);
    }
  }
}

int
simnpu__ir_exec_run (simnpu__ir_exec * x, unsigned first, unsigned last,
    simnpu_error * error)
{
  unsigned i;

  if (x == NULL || first > last || last > x->g->n_nodes)
    return simnpu__set_error (error, SIMNPU_EINVAL,
        "ir exec: node range [%u, %u) invalid", first, last);
  for (i = first; i < last; i++) {
    const simnpu__ir_node *n = &x->g->nodes[i];
    bool empty = true;
    unsigned k;
    int ret;
    /* nothing to compute, and the loops over the other axes of an empty
     * tensor could still be long */
    for (k = 0; k < n->n_outputs && empty; k++)
      empty = simnpu__ir_tensor_elements (&x->g->tensors[n->outputs[k]])
          == 0;
    if (!empty && (ret = simnpu__ir_op_get (n->op)->run (x, n, error)) < 0)
      return ret;
    if (x->observer != NULL)
      x->observer (x, n, x->observer_data);
  }
  return 0;
}

void
simnpu__ir_exec_set_observer (simnpu__ir_exec * x,
    simnpu__ir_exec_observer observer, gpointer user_data)
{
  x->observer = observer;
  x->observer_data = user_data;
}
