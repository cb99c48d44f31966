/* gst-ax
 * Copyright (C) 2026 gst-ax developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

/* conv2d (grouped and depthwise) and matmul: the weights packed so that
 * the output channel vectors are contiguous, then PIXEL_BLOCK x OC_BLOCK
 * register tiles, in plain, AVX2 and AVX2+FMA copies. */

#include "ir-exec-private.h"

/* output pixels (matmul: rows) of one tile */
#define PIXEL_BLOCK 6
/* channels of one depthwise block: DW_VECS vectors */
#define DW_VECS 4
#define DW_BLOCK (DW_VECS * OC_HALF)

typedef float v8sf __attribute__((vector_size (OC_HALF * sizeof (float))));

/* unaligned vector loads and stores: a vector type of float alignment
 * that may alias the float data (macros: vectors passed by value would
 * change the ABI between the clones) */
typedef float v8sf_u __attribute__((vector_size (OC_HALF * sizeof (float)),
        aligned (sizeof (float)), may_alias));
#define LOAD8(v, p) ((v) = *(const v8sf_u *) (const void *) (p))
#define STORE8(p, v) (*(v8sf_u *) (void *) (p) = (v))

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
 * it (less padding for heads of a few channels), else two; vectors of
 * 16 floats on the AVX-512 path */
static int64_t
block_width (int64_t oc, bool wide)
{
  if (wide)
    return oc <= WIDE_HALF ? WIDE_HALF : WIDE_BLOCK;
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
  int64_t bw;                   /* channels per packed block */
  bool wide;                    /* packed for the AVX-512 tiles */
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
  const int64_t bw = j->bw;
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
            simnpu__ir_apply_act (o, nc, j->attrs);
        }
      }
    }
    if (row_act)
      simnpu__ir_apply_act (j->out + y * j->out_row, j->cols * j->oc, j->attrs);
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

#ifdef IR_HAVE_FMA_PATH
/* The AVX-512 tiles: WIDE_PIXELS pixels x one or two 16-float vectors of
 * channels (24 accumulators of the 32 registers), on weights packed in
 * blocks of WIDE_BLOCK channels. Used only where the CPU has AVX-512F
 * and a self-test (gemm_wide_ok) agreed with the AVX2 tiles. */
typedef float v16sf __attribute__((vector_size (WIDE_HALF * sizeof (float))));
typedef float v16sf_u __attribute__((vector_size (WIDE_HALF * sizeof (float)),
        aligned (sizeof (float)), may_alias));
#define LOAD16(v, p) ((v) = *(const v16sf_u *) (const void *) (p))
#define STORE16(p, v) (*(v16sf_u *) (void *) (p) = (v))

static ALWAYS_INLINE void
gemm_tile_wide (const float *in, int64_t px, int64_t row, int64_t col, int kh,
    int kw, int64_t k, const float *w, const float *bias, float *acc_out,
    int64_t ostride, const int np, const int nv)
{
  const int bw = nv * WIDE_HALF;
  v16sf acc[WIDE_PIXELS][WIDE_BLOCK / WIDE_HALF];
  int p, v, ky, kx;
  int64_t c;

  for (p = 0; p < np; p++)
    for (v = 0; v < nv; v++)
      LOAD16 (acc[p][v], bias + v * WIDE_HALF);
  for (ky = 0; ky < kh; ky++) {
    for (kx = 0; kx < kw; kx++) {
      const float *ip = in + ky * row + kx * col;
      const float *wk = w + ((int64_t) ky * kw + kx) * k * bw;
      for (c = 0; c < k; c++) {
        v16sf wv[WIDE_BLOCK / WIDE_HALF];
        for (v = 0; v < nv; v++)
          LOAD16 (wv[v], wk + c * bw + v * WIDE_HALF);
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
      STORE16 (acc_out + p * ostride + v * WIDE_HALF, acc[p][v]);
}

#define GEMM_WIDE_CASE(n) \
  case n: \
    if (bw == WIDE_BLOCK) \
      gemm_tile_wide (in, j->px, j->row, j->col, j->kh, j->kw, j->k, w, \
          bias, dst, dst_px, n, 2); \
    else \
      gemm_tile_wide (in, j->px, j->row, j->col, j->kh, j->kw, j->k, w, \
          bias, dst, dst_px, n, 1); \
    break

IR_AVX512 static void
gemm_run_wide (const gemm_job * j)
{
  const int64_t bw = j->bw;
  int64_t blocks = (j->oc + bw - 1) / bw;
  int64_t wblock = (int64_t) j->kh * j->kw * j->k * bw;
  float tile[WIDE_PIXELS * WIDE_BLOCK];
  int64_t y, b, x0;
  bool act = j->attrs->act != SIMNPU_IR_ACT_NONE;
  bool row_act = act && j->out_px == j->oc;

  for (y = 0; y < j->rows; y++) {
    for (b = 0; b < blocks; b++) {
      const float *w = j->w + b * wblock;
      const float *bias = j->bias + b * bw;
      int64_t nc = MIN (bw, j->oc - b * bw);
      for (x0 = 0; x0 < j->cols; x0 += WIDE_PIXELS) {
        const float *in = j->in + y * j->in_row + x0 * j->px;
        int np = (int) MIN (WIDE_PIXELS, j->cols - x0), p;
        float *o0 = j->out + y * j->out_row + x0 * j->out_px + b * bw;
        bool whole = nc == bw;
        float *dst = whole ? o0 : tile;
        int64_t dst_px = whole ? j->out_px : bw;
        switch (np) {
            GEMM_WIDE_CASE (12);
            GEMM_WIDE_CASE (11);
            GEMM_WIDE_CASE (10);
            GEMM_WIDE_CASE (9);
            GEMM_WIDE_CASE (8);
            GEMM_WIDE_CASE (7);
            GEMM_WIDE_CASE (6);
            GEMM_WIDE_CASE (5);
            GEMM_WIDE_CASE (4);
            GEMM_WIDE_CASE (3);
            GEMM_WIDE_CASE (2);
          default:
            GEMM_WIDE_CASE (1);
        }
        for (p = 0; p < np; p++) {
          float *o = o0 + p * j->out_px;
          if (!whole)
            memcpy (o, tile + p * bw, (size_t) nc * sizeof (float));
          if (act && !row_act)
            simnpu__ir_apply_act (o, nc, j->attrs);
        }
      }
    }
    if (row_act)
      simnpu__ir_apply_act (j->out + y * j->out_row, j->cols * j->oc, j->attrs);
  }
}
#endif

static void
gemm_run (const gemm_job * j)
{
#ifdef IR_HAVE_FMA_PATH
  if (j->wide) {
    gemm_run_wide (j);
    return;
  }
  if (have_fma ()) {
    gemm_run_fma (j);
    return;
  }
#endif
  gemm_run_plain (j);
}

#ifdef IR_HAVE_FMA_PATH
/* The self-test of the AVX-512 tiles: a 3x3 conv whose channels fill
 * neither kind of block, its pixels neither kind of tile, packed both
 * ways; the wide tiles must agree with the AVX2 (or plain) ones within
 * float reassociation */
#define SELFTEST_IC 13
#define SELFTEST_OC 40
#define SELFTEST_K 3
#define SELFTEST_ROWS 3
#define SELFTEST_COLS 17
#define SELFTEST_TOLERANCE 1e-4f

static void
selftest_pack (const float *w, bool wide, float *packed, float *bias)
{
  conv_geom cg = { 0 };
  int64_t j;

  cg.groups = 1;
  cg.ocg = SELFTEST_OC;
  cg.icg = SELFTEST_IC;
  cg.kh = cg.kw = SELFTEST_K;
  cg.bw = block_width (SELFTEST_OC, wide);
  cg.blocks = (cg.ocg + cg.bw - 1) / cg.bw;
  simnpu__ir_conv_pack_weights (&cg, w, packed);
  for (j = 0; j < cg.blocks * cg.bw; j++)
    bias[j] = j < SELFTEST_OC ? 0.25f * (float) (j % 5) : 0.0f;
}

static bool
gemm_selftest (void)
{
  enum
  {
    WP = SELFTEST_COLS + SELFTEST_K - 1,
    HP = SELFTEST_ROWS + SELFTEST_K - 1,
    IN_N = HP * WP * SELFTEST_IC,
    W_N = SELFTEST_OC * SELFTEST_K * SELFTEST_K * SELFTEST_IC,
    OUT_N = SELFTEST_ROWS * SELFTEST_COLS * SELFTEST_OC,
    BLOCKS_MAX = SELFTEST_OC / OC_HALF + 1,
  };
  static const simnpu__ir_attrs attrs;
  float *in = g_new (float, IN_N), *w = g_new (float, W_N);
  float *packed = g_new0 (float, BLOCKS_MAX * WIDE_BLOCK * W_N / SELFTEST_OC);
  float *bias = g_new0 (float, BLOCKS_MAX * WIDE_BLOCK);
  float *ref = g_new (float, OUT_N), *got = g_new (float, OUT_N);
  guint32 seed = 1;
  bool ok = true;
  int i, pass;

  for (i = 0; i < IN_N; i++) {
    seed = seed * 1664525u + 1013904223u;
    in[i] = (float) (seed >> 8) / (float) (1u << 23) - 1.0f;
  }
  for (i = 0; i < W_N; i++) {
    seed = seed * 1664525u + 1013904223u;
    w[i] = (float) (seed >> 8) / (float) (1u << 23) - 1.0f;
  }
  for (pass = 0; pass < 2; pass++) {
    bool wide = pass == 1;
    gemm_job j = {
      .in = in,.in_row = WP * SELFTEST_IC,.px = SELFTEST_IC,
      .row = WP * SELFTEST_IC,.col = SELFTEST_IC,
      .kh = SELFTEST_K,.kw = SELFTEST_K,.k = SELFTEST_IC,
      .w = packed,.bias = bias,.out = wide ? got : ref,
      .out_row = SELFTEST_COLS * SELFTEST_OC,.out_px = SELFTEST_OC,
      .oc = SELFTEST_OC,.rows = SELFTEST_ROWS,.cols = SELFTEST_COLS,
      .attrs = &attrs,.bw = block_width (SELFTEST_OC, wide),.wide = wide,
    };
    selftest_pack (w, wide, packed, bias);
    gemm_run (&j);
  }
  for (i = 0; i < OUT_N && ok; i++)
    ok = fabsf (got[i] - ref[i]) <= SELFTEST_TOLERANCE * (1.0f +
        fabsf (ref[i]));
  g_free (in);
  g_free (w);
  g_free (packed);
  g_free (bias);
  g_free (ref);
  g_free (got);
  return ok;
}
#endif

static gpointer
gemm_wide_decide (gpointer unused)
{
  bool ok = false;

#ifdef IR_HAVE_FMA_PATH
  const char *env = g_getenv ("SIMNPU_IR_NO_AVX512");
  if ((env == NULL || env[0] == '\0' || strcmp (env, "0") == 0)
      && have_fma () && __builtin_cpu_supports ("avx512f"))
    ok = gemm_selftest ();
#endif
  return GINT_TO_POINTER (ok ? 2 : 1);
}

/* whether conv2d and matmul pack for and run the AVX-512 tiles: decided
 * once per process, before any weights are packed */
static bool
gemm_use_wide (void)
{
  static GOnce once = G_ONCE_INIT;

  return GPOINTER_TO_INT (g_once (&once, gemm_wide_decide, NULL)) == 2;
}

/* depthwise (one input and one output channel per group): the inner
 * loop runs over the channels of NHWC. It reads the unpadded input: each
 * output pixel sums only its taps inside the image (the padding's taps
 * add zero), so no padded copy of the input is made. */
typedef struct
{
  const float *in;              /* one image, [h][w][c] */
  int64_t h, w, c;
  const float *wt;              /* [kh][kw][c] */
  const float *bias;
  float *out;                   /* [oh][ow][c] */
  int64_t oh, ow;
  const simnpu__ir_attrs *at;
} dw_job;

static ALWAYS_INLINE void
depthwise_pixel_from (const dw_job * j, int64_t y, int64_t x0, int64_t ch0)
{
  const simnpu__ir_attrs *at = j->at;
  const int64_t c = j->c;
  int kh = at->kernel[0], kw = at->kernel[1];
  int64_t dh = at->dilation[0], dw = at->dilation[1];
  int64_t iy = y * at->stride[0] - at->pads[0];
  int64_t ix = x0 * at->stride[1] - at->pads[1];
  float *restrict o = j->out + (y * j->ow + x0) * c;
  const float *w = j->wt, *bias = j->bias;
  int ky0 = 0, ky1 = kh, kx0 = 0, kx1 = kw, ky, kx;
  int64_t ch;

  /* the taps inside the image */
  while (ky0 < kh && iy + ky0 * dh < 0)
    ky0++;
  while (ky1 > ky0 && iy + (ky1 - 1) * dh >= j->h)
    ky1--;
  while (kx0 < kw && ix + kx0 * dw < 0)
    kx0++;
  while (kx1 > kx0 && ix + (kx1 - 1) * dw >= j->w)
    kx1--;
  /* blocks of DW_BLOCK channels accumulate in registers over the taps */
  for (ch = ch0; ch + DW_BLOCK <= c; ch += DW_BLOCK) {
    v8sf acc[DW_VECS];
    int v;
    for (v = 0; v < DW_VECS; v++)
      LOAD8 (acc[v], bias + ch + v * OC_HALF);
    for (ky = ky0; ky < ky1; ky++) {
      for (kx = kx0; kx < kx1; kx++) {
        const float *ip = j->in + ((iy + ky * dh) * j->w + ix + kx * dw) * c
            + ch;
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
    for (ky = ky0; ky < ky1; ky++) {
      for (kx = kx0; kx < kx1; kx++) {
        v8sf a, b;
        LOAD8 (a, j->in + ((iy + ky * dh) * j->w + ix + kx * dw) * c + ch);
        LOAD8 (b, w + ((int64_t) ky * kw + kx) * c + ch);
        acc += a * b;
      }
    }
    STORE8 (o + ch, acc);
  }
  for (; ch < c; ch++) {
    float acc = bias[ch];
    for (ky = ky0; ky < ky1; ky++)
      for (kx = kx0; kx < kx1; kx++)
        acc += j->in[((iy + ky * dh) * j->w + ix + kx * dw) * c + ch]
            * w[((int64_t) ky * kw + kx) * c + ch];
    o[ch] = acc;
  }
}

/* whether every tap of output pixel (y, x0) is inside the image */
static inline bool
depthwise_inside (const dw_job * j, int64_t y, int64_t x0)
{
  const simnpu__ir_attrs *at = j->at;
  int64_t iy = y * at->stride[0] - at->pads[0];
  int64_t ix = x0 * at->stride[1] - at->pads[1];

  return iy >= 0 && iy + (at->kernel[0] - 1) * at->dilation[0] < j->h
      && ix >= 0 && ix + (at->kernel[1] - 1) * at->dilation[1] < j->w;
}

/* two neighbouring pixels inside the image at once: twice the
 * independent sums in flight (the taps' sums are a chain of dependent
 * multiply-adds) and the weights loaded once for both; each pixel sums
 * in the same order as depthwise_pixel_from */
static ALWAYS_INLINE void
depthwise_pair (const dw_job * j, int64_t y, int64_t x0)
{
  const simnpu__ir_attrs *at = j->at;
  const int64_t c = j->c;
  int kh = at->kernel[0], kw = at->kernel[1];
  int64_t dh = at->dilation[0], dw = at->dilation[1];
  int64_t iy = y * at->stride[0] - at->pads[0];
  int64_t ix = x0 * at->stride[1] - at->pads[1];
  int64_t next = at->stride[1] * c;
  float *restrict o = j->out + (y * j->ow + x0) * c;
  int ky, kx, v;
  int64_t ch;

  for (ch = 0; ch + DW_BLOCK <= c; ch += DW_BLOCK) {
    v8sf acc0[DW_VECS], acc1[DW_VECS];
    for (v = 0; v < DW_VECS; v++) {
      LOAD8 (acc0[v], j->bias + ch + v * OC_HALF);
      acc1[v] = acc0[v];
    }
    for (ky = 0; ky < kh; ky++) {
      for (kx = 0; kx < kw; kx++) {
        const float *ip = j->in + ((iy + ky * dh) * j->w + ix + kx * dw) * c
            + ch;
        const float *wk = j->wt + ((int64_t) ky * kw + kx) * c + ch;
        for (v = 0; v < DW_VECS; v++) {
          v8sf a0, a1, b;
          LOAD8 (b, wk + v * OC_HALF);
          LOAD8 (a0, ip + v * OC_HALF);
          LOAD8 (a1, ip + next + v * OC_HALF);
          acc0[v] += a0 * b;
          acc1[v] += a1 * b;
        }
      }
    }
    for (v = 0; v < DW_VECS; v++) {
      STORE8 (o + ch + v * OC_HALF, acc0[v]);
      STORE8 (o + c + ch + v * OC_HALF, acc1[v]);
    }
  }
  if (ch < c) {
    depthwise_pixel_from (j, y, x0, ch);
    depthwise_pixel_from (j, y, x0 + 1, ch);
  }
}

static ALWAYS_INLINE void
depthwise_body (const dw_job * j)
{
  int64_t y, x0;

  for (y = 0; y < j->oh; y++) {
    for (x0 = 0; x0 < j->ow;) {
      if (x0 + 1 < j->ow && depthwise_inside (j, y, x0)
          && depthwise_inside (j, y, x0 + 1)) {
        depthwise_pair (j, y, x0);
        x0 += 2;
      } else {
        depthwise_pixel_from (j, y, x0, 0);
        x0++;
      }
    }
    simnpu__ir_apply_act (j->out + y * j->ow * j->c, j->ow * j->c, j->at);
  }
}

IR_CLONES static void
depthwise_plain (const dw_job * j)
{
  depthwise_body (j);
}

#ifdef IR_HAVE_FMA_PATH
IR_FMA static void
depthwise_fma (const dw_job * j)
{
  depthwise_body (j);
}
#endif

static void
depthwise_run (const dw_job * j)
{
#ifdef IR_HAVE_FMA_PATH
  if (have_fma ()) {
    depthwise_fma (j);
    return;
  }
#endif
  depthwise_plain (j);
}

void
simnpu__ir_conv_geometry (const simnpu__ir_exec * x, const simnpu__ir_node * n,
    conv_geom * cg)
{
  const simnpu__ir_tensor *w = tin (x, n, 1);

  cg->groups = n->attrs.groups;
  cg->ocg = w->dims[0] / cg->groups;
  cg->kh = w->dims[1];
  cg->kw = w->dims[2];
  cg->icg = w->dims[3];
  cg->wide = gemm_use_wide ();
  cg->bw = block_width (cg->ocg, cg->wide);
  cg->blocks = (cg->ocg + cg->bw - 1) / cg->bw;
  cg->depthwise = cg->icg == 1 && cg->ocg == 1;
}

/* floats of packed weights and bias */
int64_t
simnpu__ir_conv_packed_size (const conv_geom * cg, int64_t * wsize)
{
  if (cg->depthwise) {
    *wsize = cg->kh * cg->kw * cg->groups;
    return *wsize + cg->groups;
  }
  *wsize = cg->groups * cg->blocks * cg->kh * cg->kw * cg->icg * cg->bw;
  return *wsize + cg->groups * cg->blocks * cg->bw;
}

void
simnpu__ir_conv_pack_weights (const conv_geom * cg, const float *w, float *dst)
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

  simnpu__ir_conv_geometry (x, n, &cg);
  simnpu__ir_conv_packed_size (&cg, &wsize);
  pb = packed + wsize;
  if (!x->packed_const[id])
    simnpu__ir_conv_pack_weights (&cg, din (x, n, 1), packed);
  conv_pack_bias (&cg, din (x, n, 2), pb);
  if (x->scratch[id] != NULL && !cg.depthwise) {
    /* the borders are zeroed on every run: in a planned arena, other
     * tensors use these bytes between runs of the node (depthwise reads
     * the unpadded input) */
    float *pad = x->scratch[id];
    const size_t row = (size_t) (wp * c);
    for (i = 0; i < nb; i++) {
      float *img = pad + i * hp * wp * c;
      memset (img, 0, (size_t) at->pads[0] * row * sizeof (float));
      memset (img + (at->pads[0] + h) * wp * c, 0,
          (size_t) at->pads[2] * row * sizeof (float));
    }
    for (i = 0; i < nb * h; i++) {
      int64_t b = i / h, y = i % h;
      float *line = pad + (b * hp + y + at->pads[0]) * wp * c;
      memset (line, 0, (size_t) (at->pads[1] * c) * sizeof (float));
      memcpy (line + at->pads[1] * c, src + i * w * c,
          (size_t) (w * c) * sizeof (float));
      memset (line + (at->pads[1] + w) * c, 0,
          (size_t) (at->pads[3] * c) * sizeof (float));
    }
    src = pad;
  }
  for (i = 0; i < nb; i++) {
    const float *img = src + i * hp * wp * c;
    float *oimg = out + i * oh * ow * oc;
    if (cg.depthwise) {
      dw_job j = {
        .in = din (x, n, 0),.h = h,.w = w,.c = c,.wt = packed,.bias = pb,
        .out = oimg,.oh = oh,.ow = ow,.at = at,
      };
      j.in += i * h * w * c;
      depthwise_run (&j);
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
        .rows = oh,.cols = ow,.attrs = at,.bw = cg.bw,.wide = cg.wide,
      };
      /* where the output pixels are evenly spaced in the input across
       * rows too (1x1, stride 1, unpadded), one row of all of them: no
       * partial tile at the end of every short row (7x7, 14x14) */
      if (cg.kh == 1 && cg.kw == 1 && j.in_row == ow * j.px) {
        j.cols = oh * ow;
        j.rows = 1;
      }
      gemm_run (&j);
    }
  }
  return 0;
}

void
simnpu__ir_matmul_geometry (const simnpu__ir_tensor * a,
    const simnpu__ir_tensor * b, mm_geom * mg)
{
  unsigned ra = a->rank > 2 ? a->rank - 2 : 0;
  unsigned rb = b->rank > 2 ? b->rank - 2 : 0, i;
  int64_t sa, sb;

  mg->k = a->dims[a->rank - 1];
  mg->m = a->rank == 1 ? 1 : a->dims[a->rank - 2];
  mg->nn = b->rank == 1 ? 1 : b->dims[b->rank - 1];
  mg->wide = gemm_use_wide ();
  mg->bw = block_width (mg->nn, mg->wide);
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

void
simnpu__ir_matmul_pack (const mm_geom * mg, const float *b, float *dst)
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

/* TF's int32 (and ONNX's int64) MatMul: sums in 64 bits, wrapped to the
 * type by the store as TF's int32 arithmetic wraps; index arithmetic,
 * small and usually folded, so a plain loop over the batch walk */
static void
run_int_matmul (simnpu__ir_exec * x, const simnpu__ir_node * n,
    const mm_geom * mg)
{
  simnpu__ir_dtype dt = tout (x, n, 0)->dtype;
  const void *a = din (x, n, 0), *b = din (x, n, 1);
  void *out = dout (x, n, 0);
  int64_t idx[SIMNPU_IR_MAX_RANK] = { 0 }, i, oa = 0, ob = 0, r, c, k;
  unsigned d;

  for (i = 0; i < mg->n_batch; i++) {
    for (r = 0; r < mg->m; r++)
      for (c = 0; c < mg->nn; c++) {
        uint64_t acc = 0;
        for (k = 0; k < mg->k; k++)
          acc += (uint64_t) load_int (dt, a, oa + r * mg->k + k)
              * (uint64_t) load_int (dt, b, ob + k * mg->nn + c);
        store_int (dt, out, (i * mg->m + r) * mg->nn + c, (int64_t) acc);
      }
    for (d = mg->batch_rank; d-- > 0;) {
      bool wrap = ++idx[d] >= mg->batch[d];
      oa += wrap ? -mg->a_st[d] * (mg->batch[d] - 1) : mg->a_st[d];
      ob += wrap ? -mg->b_st[d] * (mg->batch[d] - 1) : mg->b_st[d];
      if (!wrap)
        break;
      idx[d] = 0;
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

  simnpu__ir_matmul_geometry (tin (x, n, 0), tin (x, n, 1), &mg);
  if (tout (x, n, 0)->dtype != SIMNPU_IR_F32) {
    run_int_matmul (x, n, &mg);
    return 0;
  }
  bmat = mg.blocks * mg.k * mg.bw;
  pb = packed + mg.n_bmats * bmat;
  if (!x->packed_const[id])
    simnpu__ir_matmul_pack (&mg, din (x, n, 1), packed);
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
      .bw = mg.bw,.wide = mg.wide,
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
