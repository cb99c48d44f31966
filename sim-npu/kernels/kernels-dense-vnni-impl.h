/* gst-ax
 * Copyright (C) 2026 gst-ax developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

/* Dense and pointwise conv2d (groups == 1) on the byte multiply-add of
 * VNNI, the fast kernels behind the seam in kernels-private.h where the
 * CPU has it, for either vector width: included by kernels-dense-vnni.c
 * (AVX-512 VNNI, 512 bits) and kernels-dense-avxvnni.c (AVX-VNNI, 256
 * bits), each of which first defines its width (LANES, VEC_BYTES, MAX_NV,
 * MAX_ROWS, vnni_vec and its load, broadcast and multiply-add, the block
 * table), then the functions declared below.
 *
 * The conv is the matrix product of kernels-dense.c (M pixels by K taps
 * by N channels), output channels along the int32 lanes. vpdpbusd
 * multiplies four unsigned bytes by four signed ones and adds the four
 * products to an int32 lane, without saturation. The taps are made
 * unsigned by flipping their sign bit, x + 128, and the weights stay
 * signed, so the lane gets sum ((x + 128) * w) = sum (x * w) + 128 *
 * sum (w): the pack stores -128 * sum (w) per channel, added to the bias
 * once per run. Every step is exact in int32 (a quad sums to at most 4 *
 * 255 * 128), so the accumulators are the portable kernel's, for every
 * value, -128 included.
 *
 * The taps of a chunk of output pixels are first made unsigned into
 * scratch: for dw == 1 and wide enough rows, one segment per kernel row
 * of an input row read in place (pixels sw * ic bytes apart, a window
 * row's kw * ic taps padded to a multiple of four with zero weights, whose
 * taps read the next bytes); otherwise im2row. Padded taps read the input
 * zero point, as the portable kernel's column buffer does. Panels of up
 * to MAX_NV vectors of output channels run over blocks of pixels with all
 * their accumulators in registers, one broadcast of a pixel's four taps
 * per 1 to MAX_NV multiply-adds. The requantisation is requant_one's
 * (see each width's vnni_store). */

#ifndef __SIMNPU_KERNELS_DENSE_VNNI_IMPL_H__
#define __SIMNPU_KERNELS_DENSE_VNNI_IMPL_H__

/* taps per vpdpbusd lane */
#define QUAD 4
/* target bytes of a chunk's unsigned taps, as in kernels-dense.c: they
 * stay in L1 while every panel runs over them */
#define CHUNK_BYTES (16 * 1024)
/* as kernels-dense.c's DIRECT_MIN_OW */
#define DIRECT_MIN_OW 24
#define SIGN_FLIP 0x80
/* the most kernel rows of a tail quad */
#define TAIL_MAX_ROWS 3

#define ALIGN_UP(n, a) (((n) + (a) - 1) / (a) * (a))

typedef struct
{
  bool direct;
  /* Direct, with the last rem = kw * ic % 4 taps of every kernel row
   * gathered into one quad per pixel (a tail segment) instead of padding
   * each row's last quad: where a few channels waste most of those quads
   * (the first layer's 3 x 3 x 3: 7 quads, not 9). Built by
   * build_tail. */
  bool tail;
  size_t k;                     /* taps */
  size_t n_seg;                 /* segments per pixel */
  size_t seg4;                  /* quads per segment */
  size_t kq;                    /* quads per pixel */
  size_t ocp;                   /* oc padded to LANES */
  size_t chunk;                 /* output pixels per chunk */
  size_t seg_len;               /* direct: bytes per segment */
  size_t w_bytes;               /* packed weights before the corrections */
} VnniShape;

typedef struct
{
  const int32_t *bias;          /* ocp: bias + correction, padded */
  const float *scale;           /* ocp, padded with zeros */
  int32_t lo, zp;
  float hi_f;
  int oc;
} VnniOut;

/* What each vector width defines after including this file. */
/* dst[0..n) = src[0..n) with the sign bits flipped */
VNNI_TARGET static void flip_copy (uint8_t * dst, const int8_t * src, size_t n);
/* whether tail quads can be built (kernel rows of at most TAIL_MAX_RUN
 * taps) */
static bool vnni_tail_ok (void);
/* the tail quads of pixels [0, count) and of the rest of a last block,
 * from the segments (sign-flipped and padded); tail_perm prepares what
 * build_tail needs once per run */
static void tail_perm (const simnpu__conv_params * p, const VnniShape * s,
    TailPerm * tp);
static void build_tail (const simnpu__conv_params * p, const VnniShape * s,
    const TailPerm * tp, const uint8_t * const *seg, size_t count,
    uint8_t * tail);
/* requant_one on LANES lanes from acc and the scales at scale, stored for
 * the channels below oc from channel o */
VNNI_TARGET static inline void vnni_store (const VnniOut * d, vnni_vec acc,
    const float *scale, size_t o, int8_t * dst);
/* a block's stores in a faster form where its shape allows (true), or
 * nothing (false) */
VNNI_TARGET static inline bool vnni_store_block (const VnniOut * d,
    vnni_vec (*c)[MAX_NV], int nv, int rows, int valid, int8_t * out);

static void
vnni_shape (const simnpu__conv_params * p, VnniShape * s)
{
  const size_t ic = (size_t) p->ic;
  const bool pointwise_row = p->kh == 1 && p->kw == 1 && p->sw == 1
      && p->ih == 1 && p->oh == 1;
  size_t per_pixel;

  s->k = (size_t) p->kh * p->kw * ic;
  s->ocp = ALIGN_UP ((size_t) p->oc, LANES);
  s->direct = p->dw == 1 && (p->ow >= DIRECT_MIN_OW || pointwise_row);
  if (s->direct) {
    s->n_seg = (size_t) p->kh;
    s->seg4 = ((size_t) p->kw * ic + QUAD - 1) / QUAD;
    per_pixel = (size_t) p->kh * p->sw * ic;
    s->chunk = MIN ((size_t) p->ow, CHUNK_BYTES / MAX (per_pixel, 1));
  } else {
    s->n_seg = 1;
    s->seg4 = (s->k + QUAD - 1) / QUAD;
    per_pixel = s->seg4 * QUAD;
    s->chunk = MIN ((size_t) p->oh * p->ow, CHUNK_BYTES / per_pixel);
  }
  s->chunk = MAX (s->chunk, 1);
  s->tail = false;
  if (s->direct && p->kh >= 2 && p->kh <= TAIL_MAX_ROWS
      && (size_t) p->kw * ic <= TAIL_MAX_RUN && vnni_tail_ok ()) {
    size_t rem = (size_t) p->kw * ic % QUAD;
    s->tail = rem != 0 && rem * (size_t) p->kh <= QUAD;
    if (s->tail)
      s->seg4 = (size_t) p->kw * ic / QUAD;
  }
  s->kq = s->n_seg * s->seg4 + (s->tail ? 1 : 0);
  /* a last block may run MAX_ROWS - 1 pixels past the chunk; a pixel's
   * last quad reads up to QUAD - 1 bytes past its window row */
  s->seg_len = ((s->chunk + MAX_ROWS - 2) * p->sw + p->kw) * ic + QUAD;
  s->w_bytes = ALIGN_UP (s->ocp * s->kq * QUAD, SIMNPU_KERNEL_ALIGN);
}

/* vectors of channels of the panel starting at channel o0 */
static int
panel_nv (size_t o0, size_t ocp)
{
  return (int) MIN ((ocp - o0) / LANES, MAX_NV);
}

size_t VNNI_NAME (packed_bytes) (const simnpu__conv_params * p)
{
  VnniShape s;

  if (!simnpu__dense_shape_ok (p))
    return 0;
  vnni_shape (p, &s);
  return s.w_bytes + s.ocp * sizeof (int32_t);
}

/* Per panel, per quad of each segment, per channel, the channel's four
 * weights (zero past a segment's taps and past oc); then per channel
 * -128 * sum (w), the correction of the unsigned taps. */
void
VNNI_NAME (pack) (const simnpu__conv_params * p,
    const int8_t * weights, void *packed)
{
  VnniShape s;
  int8_t *dst = packed;
  int32_t *corr;
  size_t o0, sg, q, j, t, o, seg_taps;

  if (!simnpu__dense_shape_ok (p))
    return;
  vnni_shape (p, &s);
  seg_taps = s.k / s.n_seg;
  for (o0 = 0; o0 < s.ocp;) {
    size_t width = (size_t) panel_nv (o0, s.ocp) * LANES;
    for (sg = 0; sg < s.n_seg; sg++)
      for (q = 0; q < s.seg4; q++)
        for (j = 0; j < width; j++)
          for (t = 0; t < QUAD; t++) {
            size_t k = q * QUAD + t;
            o = o0 + j;
            *dst++ = o < (size_t) p->oc && k < seg_taps ?
                weights[o * s.k + sg * seg_taps + k] : 0;
          }
    if (s.tail) {
      /* byte t of the tail quad: kernel row t / rem, the row's tap
       * seg4 * 4 + t % rem */
      const size_t rem = seg_taps % QUAD;
      for (j = 0; j < width; j++)
        for (t = 0; t < QUAD; t++) {
          size_t ky = t / rem;
          o = o0 + j;
          *dst++ = o < (size_t) p->oc && ky < (size_t) p->kh ?
              weights[o * s.k + ky * seg_taps + s.seg4 * QUAD + t % rem] : 0;
        }
    }
    o0 += width;
  }
  corr = (int32_t *) (void *) ((int8_t *) packed + s.w_bytes);
  for (o = 0; o < s.ocp; o++) {
    int32_t sum = 0;
    for (t = 0; o < (size_t) p->oc && t < s.k; t++)
      sum += weights[o * s.k + t];
    corr[o] = -SIGN_FLIP * sum;
  }
}


/* scratch: the chunk's taps, then the bias with the corrections and the
 * scales, padded to ocp; aligned inside */
static size_t
vnni_scratch_layout (const VnniShape * s, size_t *at_bias, size_t *at_scale)
{
  size_t taps = s->direct ? s->n_seg * (ALIGN_UP (s->seg_len,
          SIMNPU_KERNEL_ALIGN) + (s->tail ? TAIL_SLACK : 0)) :
      (s->chunk + MAX_ROWS) * s->seg4 * QUAD;

  if (s->tail)
    taps += (s->chunk + MAX_ROWS) * QUAD + VEC_BYTES;

  *at_bias = ALIGN_UP (taps, SIMNPU_KERNEL_ALIGN);
  *at_scale = *at_bias + ALIGN_UP (s->ocp * sizeof (int32_t),
      SIMNPU_KERNEL_ALIGN);
  return *at_scale + s->ocp * sizeof (float) + SIMNPU_KERNEL_ALIGN;
}

size_t VNNI_NAME (scratch_bytes) (const simnpu__conv_params * p)
{
  VnniShape s;
  size_t at_bias, at_scale;

  if (!simnpu__dense_shape_ok (p))
    return 0;
  vnni_shape (p, &s);
  return vnni_scratch_layout (&s, &at_bias, &at_scale);
}

/* the padding value of the unsigned taps: the input zero point */
static uint8_t
pad_byte (const simnpu__conv_params * p)
{
  return (uint8_t) ((uint8_t) (int8_t) p->in_zp ^ SIGN_FLIP);
}

/* Direct: kernel row's segment from input row iy for output pixels from
 * x0: input columns from x0 * sw - pl, padded */
VNNI_TARGET static void
build_segment (const simnpu__conv_params * p, const VnniShape * s,
    const int8_t * in, int iy, size_t x0, uint8_t * seg)
{
  const size_t ic = (size_t) p->ic, n = s->seg_len;
  const int64_t ix0 = (int64_t) x0 * p->sw - p->pl;
  const uint8_t pad = pad_byte (p);
  size_t a, b;

  if (iy < 0 || iy >= p->ih) {
    memset (seg, pad, n);
    return;
  }
  a = ix0 < 0 ? MIN ((size_t) -ix0 * ic, n) : 0;
  b = ix0 >= p->iw ? a : MAX (a, MIN (n, (size_t) (p->iw - ix0) * ic));
  memset (seg, pad, a);
  if (b > a)
    flip_copy (seg + a, in + ((size_t) iy * p->iw + (size_t) (ix0 +
                (int64_t) (a / ic))) * ic, b - a);
  memset (seg + b, pad, n - b);
}

/* im2row of output pixels [m0, m0 + count): row i holds pixel m0 + i's
 * taps in the weights' order, then zeros to a multiple of four; the rows
 * after count up to a whole last block are zeros */
VNNI_TARGET static void
build_rows (const simnpu__conv_params * p, const VnniShape * s,
    const int8_t * in, size_t m0, size_t count, uint8_t * rows)
{
  const size_t ic = (size_t) p->ic, stride = s->seg4 * QUAD;
  const uint8_t pad = pad_byte (p);
  int oy = (int) (m0 / (size_t) p->ow), ox = (int) (m0 % (size_t) p->ow);
  size_t i;

  for (i = 0; i < count; i++) {
    uint8_t *row = rows + i * stride;
    int ky, kx;
    for (ky = 0; ky < p->kh; ky++) {
      int iy = oy * p->sh - p->pt + ky * p->dh;
      for (kx = 0; kx < p->kw; kx++) {
        int ix = ox * p->sw - p->pl + kx * p->dw;
        uint8_t *dst = row + ((size_t) ky * p->kw + kx) * ic;
        if (iy < 0 || iy >= p->ih || ix < 0 || ix >= p->iw)
          memset (dst, pad, ic);
        else
          flip_copy (dst, in + ((size_t) iy * p->iw + ix) * ic, ic);
      }
    }
    memset (row + s->k, 0, stride - s->k);
    if (++ox == p->ow) {
      ox = 0;
      oy++;
    }
  }
  memset (rows + count * stride, 0, MAX_ROWS * stride);
}

/* One block of rows pixels (pixel r's taps at seg[j] + r * lda) times a
 * panel of nv vectors of channels from o0; stores the first valid. */
VNNI_TARGET static inline __attribute__((always_inline))
     void vnni_block (const uint8_t * const *seg, size_t n_seg, size_t seg4,
    size_t lda, const uint8_t * tail, const int8_t * restrict w,
    const VnniOut * d, size_t o0, int8_t * restrict out, int valid,
    const int nv, const int rows)
{
  vnni_vec c[MAX_ROWS][MAX_NV];
  vnni_vec wv[MAX_NV];
  size_t j, k;
  int r, v;

#pragma GCC unroll 16
  for (r = 0; r < rows; r++)
#pragma GCC unroll 4
    for (v = 0; v < nv; v++)
      c[r][v] = vnni_load (d->bias + o0 + v * LANES);
  for (j = 0; j < n_seg; j++) {
    const uint8_t *a = seg[j];
    for (k = 0; k < seg4; k++) {
#pragma GCC unroll 4
      for (v = 0; v < nv; v++)
        wv[v] = vnni_load (w + v * LANES * QUAD);
      w += (size_t) nv *LANES * QUAD;
#pragma GCC unroll 16
      for (r = 0; r < rows; r++) {
        int32_t t;
        vnni_vec b;
        memcpy (&t, a + r * lda + k * QUAD, sizeof (t));
        b = vnni_set1 (t);
#pragma GCC unroll 4
        for (v = 0; v < nv; v++)
          c[r][v] = vnni_dpbusd (c[r][v], b, wv[v]);
      }
    }
  }
  if (tail != NULL) {
#pragma GCC unroll 4
    for (v = 0; v < nv; v++)
      wv[v] = vnni_load (w + v * LANES * QUAD);
#pragma GCC unroll 16
    for (r = 0; r < rows; r++) {
      int32_t t;
      vnni_vec b;
      memcpy (&t, tail + r * QUAD, sizeof (t));
      b = vnni_set1 (t);
#pragma GCC unroll 4
      for (v = 0; v < nv; v++)
        c[r][v] = vnni_dpbusd (c[r][v], b, wv[v]);
    }
  }
  if (vnni_store_block (d, c, nv, rows, valid, out))
    return;
#pragma GCC unroll 4
  for (v = 0; v < nv; v++) {
    const size_t o = o0 + (size_t) v * LANES;
    if (o >= (size_t) d->oc)
      break;
#pragma GCC unroll 16
    for (r = 0; r < rows; r++)
      if (r < valid)
        vnni_store (d, c[r][v], d->scale + o, o, out + (size_t) r * d->oc + o);
  }
}

/* the block of each panel width, pixels chosen so that the accumulators,
 * the weights and a broadcast fill the registers */
#define BLOCK_FUNC(NV, ROWS) \
VNNI_TARGET __attribute__((noinline)) static void \
vnni_block_##NV (const uint8_t * const *seg, size_t n_seg, size_t seg4, \
    size_t lda, const uint8_t * tail, const int8_t * w, const VnniOut * d, \
    size_t o0, int8_t * out, int valid) \
{ \
  vnni_block (seg, n_seg, seg4, lda, tail, w, d, o0, out, valid, NV, \
      ROWS); \
}
VNNI_BLOCK_FUNCS
#undef BLOCK_FUNC
typedef void (*VnniBlockFunc) (const uint8_t * const *seg, size_t n_seg,
    size_t seg4, size_t lda, const uint8_t * tail, const int8_t * w,
    const VnniOut * d, size_t o0, int8_t * out, int valid);

static const VnniBlockFunc block_funcs[MAX_NV + 1] = VNNI_BLOCK_TABLE;
static const int block_rows[MAX_NV + 1] = VNNI_BLOCK_ROWS;

static void
run_panels (const VnniShape * s, const VnniOut * d, const int8_t * packed,
    const uint8_t * const *seg, size_t lda, const uint8_t * tail,
    size_t count, int8_t * out)
{
  const uint8_t *blk[SIMNPU_MAX_KERNEL_DIM];
  size_t o0, r0, j;

  for (o0 = 0; o0 < s->ocp;) {
    const int nv = panel_nv (o0, s->ocp);
    const size_t rows = (size_t) block_rows[nv];
    const int8_t *w = packed + o0 * s->kq * QUAD;
    for (r0 = 0; r0 < count; r0 += rows) {
      for (j = 0; j < s->n_seg; j++)
        blk[j] = seg[j] + r0 * lda;
      block_funcs[nv] (blk, s->n_seg, s->seg4, lda,
          tail != NULL ? tail + r0 * QUAD : NULL, w, d, o0,
          out + r0 * (size_t) d->oc, (int) MIN (rows, count - r0));
    }
    o0 += (size_t) nv *LANES;
  }
}

void
VNNI_NAME (run) (const simnpu__conv_params * p, const int8_t * input,
    const void *packed, const int32_t * bias, const float *scales,
    int8_t * output, int8_t * scratch)
{
  VnniShape s;
  VnniOut d;
  TailPerm tperm;
  size_t at_bias, at_scale, m, m0, o;
  uint8_t *base = (uint8_t *) ALIGN_UP ((uintptr_t) scratch,
      SIMNPU_KERNEL_ALIGN);
  int32_t *pbias;
  float *pscale;
  const int32_t *corr;
  const size_t in_image = (size_t) p->ih * p->iw * p->ic;
  const size_t out_image = (size_t) p->oh * p->ow * p->oc;
  int b;

  vnni_shape (p, &s);
  vnni_scratch_layout (&s, &at_bias, &at_scale);
  memset (&tperm, 0, sizeof (tperm));
  if (s.tail)
    tail_perm (p, &s, &tperm);
  corr = (const int32_t *) (const void *) ((const int8_t *) packed + s.w_bytes);
  pbias = (int32_t *) (void *) (base + at_bias);
  pscale = (float *) (void *) (base + at_scale);
  for (o = 0; o < s.ocp; o++) {
    bool in = o < (size_t) p->oc;
    /* int32 wraps as the portable kernel's sum does */
    pbias[o] = in ? (int32_t) ((uint32_t) bias[o] + (uint32_t) corr[o]) : 0;
    pscale[o] = in ? scales[o] : 0.0f;
  }
  d.bias = pbias;
  d.scale = pscale;
  d.lo = p->act_min - p->out_zp;
  d.zp = p->out_zp;
  d.hi_f = (float) (p->act_max - p->out_zp);
  d.oc = p->oc;
  m = (size_t) p->oh * p->ow;

  for (b = 0; b < p->n; b++) {
    const int8_t *in = input + (size_t) b * in_image;
    int8_t *out = output + (size_t) b * out_image;
    if (!s.direct) {
      for (m0 = 0; m0 < m; m0 += s.chunk) {
        size_t count = MIN (s.chunk, m - m0);
        const uint8_t *seg[1] = { base };
        build_rows (p, &s, in, m0, count, base);
        run_panels (&s, &d, packed, seg, s.seg4 * QUAD, NULL, count,
            out + m0 * (size_t) p->oc);
      }
      continue;
    }
    {
      const size_t seg_stride = ALIGN_UP (s.seg_len, SIMNPU_KERNEL_ALIGN) +
          (s.tail ? TAIL_SLACK : 0);
      uint8_t *tail = base + (size_t) p->kh * seg_stride;
      const uint8_t *seg[SIMNPU_MAX_KERNEL_DIM];
      /* with one chunk per output row, the input row each buffer holds:
       * an input row shared by consecutive output rows (stride below the
       * kernel's height) is built once */
      int64_t held[SIMNPU_MAX_KERNEL_DIM];
      const bool reuse = s.chunk == (size_t) p->ow;
      int oy, ky, j;
      size_t x0;
      for (j = 0; j < p->kh; j++)
        held[j] = INT64_MIN;
      for (oy = 0; oy < p->oh; oy++)
        for (x0 = 0; x0 < (size_t) p->ow; x0 += s.chunk) {
          size_t count = MIN (s.chunk, (size_t) p->ow - x0);
          bool used[SIMNPU_MAX_KERNEL_DIM] = { false };
          for (ky = 0; ky < p->kh; ky++) {
            const int iy = oy * p->sh - p->pt + ky * p->dh;
            seg[ky] = NULL;
            for (j = 0; reuse && j < p->kh; j++)
              if (held[j] == iy && !used[j]) {
                seg[ky] = base + (size_t) j *seg_stride;
                used[j] = true;
                break;
              }
          }
          for (ky = 0; ky < p->kh; ky++) {
            const int iy = oy * p->sh - p->pt + ky * p->dh;
            uint8_t *sg;
            if (seg[ky] != NULL)
              continue;
            for (j = 0; used[j]; j++);
            used[j] = true;
            held[j] = reuse ? iy : INT64_MIN;
            sg = base + (size_t) j *seg_stride;
            build_segment (p, &s, in, iy, x0, sg);
            seg[ky] = sg;
          }
          if (s.tail)
            build_tail (p, &s, &tperm, seg, count, tail);
          run_panels (&s, &d, packed, seg, (size_t) p->sw * p->ic,
              s.tail ? tail : NULL, count,
              out + ((size_t) oy * p->ow + x0) * p->oc);
        }
    }
  }
}

#endif /* __SIMNPU_KERNELS_DENSE_VNNI_IMPL_H__ */
