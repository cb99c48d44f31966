/* gst-ax
 * Copyright (C) 2026 gst-ax developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

/* The float IR's data movement (slice, pad, gather, transpose and the
 * other rearrangements), and the index arithmetic of broadcasting,
 * movement and reductions on random shapes. */

#include "test-ir-util.h"

/* ------------------------------------------------------------------ */
/* data movement */

static void
test_slice (void)
{
  float x[10] = { 0, 1, 2, 3, 4, 5, 6, 7, 8, 9 };
  float s1[3] = { 8, 5, 2 }, rev[10] = { 9, 8, 7, 6, 5, 4, 3, 2, 1, 0 };
  float m[6] = { 0, 1, 2, 3, 4, 5 }, s2[2] = { 5, 3 };
  int64_t i8[3] = { 1, 2, 3 }, i8s[1] = { 2 };
  in_spec in[1] = { {F32 (1, 10),.data = x} };
  in_spec in2[1] = { {F32 (2, 2, 3),.data = m} };
  in_spec ini[1] = { {SIMNPU_IR_I64, 1, {3},.data = i8} };
  one_op o;

  one_op_init (&o, SIMNPU_IR_SLICE, 1, in, 1);
  o.n->attrs.n_ints = 2;
  o.n->attrs.ints[0] = 8;
  o.n->attrs.ints[1] = 1;
  o.n->attrs.steps[0] = -3;
  one_op_check_f32 (&o, s1, 3, 0);
  /* the whole axis reversed: end -1 is "before index 0" once resolved */
  one_op_init (&o, SIMNPU_IR_SLICE, 1, in, 1);
  o.n->attrs.n_ints = 2;
  o.n->attrs.ints[0] = G_MAXINT64;
  o.n->attrs.ints[1] = -1;
  o.n->attrs.steps[0] = -1;
  one_op_check_f32 (&o, rev, 10, 0);
  /* [2, 3]: row 1, columns 2 down to 0 step -2 */
  one_op_init (&o, SIMNPU_IR_SLICE, 1, in2, 1);
  o.n->attrs.n_ints = 4;
  o.n->attrs.ints[0] = 1;
  o.n->attrs.ints[1] = 2;
  o.n->attrs.ints[2] = 2;
  o.n->attrs.ints[3] = -1;
  o.n->attrs.steps[0] = 1;
  o.n->attrs.steps[1] = -2;
  one_op_check_f32 (&o, s2, 2, 0);
  one_op_init (&o, SIMNPU_IR_SLICE, 1, ini, 1);
  o.n->attrs.n_ints = 2;
  o.n->attrs.ints[0] = 1;
  o.n->attrs.ints[1] = 2;
  o.n->attrs.steps[0] = 1;
  one_op_check_bytes (&o, SIMNPU_IR_I64, i8s, 1);
}

static void
test_pad (void)
{
  float x[3] = { 1, 2, 3 };
  float reflect[7] = { 3, 2, 1, 2, 3, 2, 1 };
  float edge[6] = { 1, 1, 2, 3, 3, 3 };
  float cst[5] = { 9, 1, 2, 3, 9 };
  float m[6] = { 1, 2, 3, 4, 5, 6 };
  /* [2, 3] reflect by 1 on both axes -> [4, 5] */
  float m_reflect[20] = { 5, 4, 5, 6, 5, 2, 1, 2, 3, 2, 5, 4, 5, 6, 5, 2, 1,
    2, 3, 2
  };
  uint8_t u[2] = { 7, 8 }, upad[4] = { 5, 7, 8, 5 };
  in_spec in[1] = { {F32 (1, 3),.data = x} };
  in_spec in2[1] = { {F32 (2, 2, 3),.data = m} };
  in_spec inu[1] = { {SIMNPU_IR_U8, 1, {2},.data = u} };
  one_op o;
  int i;

  one_op_init (&o, SIMNPU_IR_PAD, 1, in, 1);
  o.n->attrs.mode = SIMNPU_IR_PAD_REFLECT;
  o.n->attrs.n_ints = 2;
  o.n->attrs.ints[0] = 2;
  o.n->attrs.ints[1] = 2;
  one_op_check_f32 (&o, reflect, 7, 0);
  one_op_init (&o, SIMNPU_IR_PAD, 1, in, 1);
  o.n->attrs.mode = SIMNPU_IR_PAD_EDGE;
  o.n->attrs.n_ints = 2;
  o.n->attrs.ints[0] = 1;
  o.n->attrs.ints[1] = 2;
  one_op_check_f32 (&o, edge, 6, 0);
  one_op_init (&o, SIMNPU_IR_PAD, 1, in, 1);
  o.n->attrs.n_ints = 2;
  o.n->attrs.ints[0] = 1;
  o.n->attrs.ints[1] = 1;
  o.n->attrs.f[0] = 9;
  one_op_check_f32 (&o, cst, 5, 0);
  /* negative pads crop, also next to positive ones */
  for (i = 0; i < 3; i++) {
    static const int64_t after[3] = { -1, 0, 1 };
    static const float crops[3][3] = { {2}, {2, 3}, {2, 3, 9} };
    one_op_init (&o, SIMNPU_IR_PAD, 1, in, 1);
    o.n->attrs.n_ints = 2;
    o.n->attrs.ints[0] = -1;
    o.n->attrs.ints[1] = after[i];
    o.n->attrs.f[0] = 9;
    one_op_check_f32 (&o, crops[i], (size_t) i + 1, 0);
  }
  {
    /* ONNX crops first and reflects within what is kept: [1, 2, 3, 4]
     * with pads 3, -2 -> reflect [1, 2] by 3 */
    float x4[4] = { 1, 2, 3, 4 }, want4[5] = { 2, 1, 2, 1, 2 };
    in_spec in4[1] = { {F32 (1, 4),.data = x4} };
    one_op_init (&o, SIMNPU_IR_PAD, 1, in4, 1);
    o.n->attrs.mode = SIMNPU_IR_PAD_REFLECT;
    o.n->attrs.n_ints = 2;
    o.n->attrs.ints[0] = 3;
    o.n->attrs.ints[1] = -2;
    one_op_check_f32 (&o, want4, 5, 0);
  }
  one_op_init (&o, SIMNPU_IR_PAD, 1, in2, 1);
  o.n->attrs.mode = SIMNPU_IR_PAD_REFLECT;
  o.n->attrs.n_ints = 4;
  o.n->attrs.ints[0] = o.n->attrs.ints[1] = o.n->attrs.ints[2] =
      o.n->attrs.ints[3] = 1;
  one_op_check_f32 (&o, m_reflect, 20, 0);
  one_op_init (&o, SIMNPU_IR_PAD, 1, inu, 1);
  o.n->attrs.n_ints = 2;
  o.n->attrs.ints[0] = o.n->attrs.ints[1] = 1;
  o.n->attrs.f[0] = 5;
  one_op_check_bytes (&o, SIMNPU_IR_U8, upad, 4);
}

static void
test_gather (void)
{
  float x[6] = { 1, 2, 3, 4, 5, 6 };
  int64_t idx[3] = { -1, 0, 1 };
  int32_t idx32[2] = { 2, -3 };
  float rows[9] = { 4, 5, 6, 1, 2, 3, 4, 5, 6 };
  float cols[4] = { 3, 1, 6, 4 };
  in_spec in[2] = { {F32 (2, 2, 3),.data = x},
  {SIMNPU_IR_I64, 1, {3},.data = idx,.is_const = true}
  };
  in_spec in32[2] = { {F32 (2, 2, 3),.data = x},
  {SIMNPU_IR_I32, 1, {2},.data = idx32}
  };
  int64_t bad = 2;
  in_spec inb[2] = { {F32 (2, 2, 3),.data = x},
  {SIMNPU_IR_I64, 0,.data = &bad}
  };
  simnpu_error error = { 0 };
  one_op o;

  one_op_init (&o, SIMNPU_IR_GATHER, 2, in, 1);
  one_op_check_f32 (&o, rows, 9, 0);
  one_op_init (&o, SIMNPU_IR_GATHER, 2, in32, 1);
  o.n->attrs.axis = 1;
  one_op_check_f32 (&o, cols, 4, 0);
  /* out of range at run time: an error, not a read past the data */
  one_op_init (&o, SIMNPU_IR_GATHER, 2, inb, 1);
  g_assert_cmpint (simnpu__ir_infer_shapes (o.g, &error), ==, 0);
  g_assert_cmpint (one_op_out (&o, 0)->rank, ==, 1);
  o.x = simnpu__ir_exec_new (o.g, &error);
  memcpy (simnpu__ir_exec_data (o.x, o.g->inputs[0]), x, sizeof (x));
  memcpy (simnpu__ir_exec_data (o.x, o.g->inputs[1]), &bad, sizeof (bad));
  g_assert_cmpint (simnpu__ir_exec_run (o.x, 0, 1, &error), ==, SIMNPU_EINVAL);
  g_assert_nonnull (strstr (error.message, "node 'op' (gather)"));
  one_op_clear (&o);
}

static void
test_movement (void)
{
  /* NCHW [1, 8, 2, 3] = 0..47 of ONNX's DepthToSpace example, as NHWC */
  static const float dcr[2][4][6] = {
    {{0, 12, 1, 13, 2, 14}, {24, 36, 25, 37, 26, 38}, {3, 15, 4, 16, 5, 17},
        {27, 39, 28, 40, 29, 41}},
    {{6, 18, 7, 19, 8, 20}, {30, 42, 31, 43, 32, 44}, {9, 21, 10, 22, 11, 23},
        {33, 45, 34, 46, 35, 47}}
  };
  static const float crd[2][4][6] = {
    {{0, 6, 1, 7, 2, 8}, {12, 18, 13, 19, 14, 20}, {3, 9, 4, 10, 5, 11},
        {15, 21, 16, 22, 17, 23}},
    {{24, 30, 25, 31, 26, 32}, {36, 42, 37, 43, 38, 44},
        {27, 33, 28, 34, 29, 35}, {39, 45, 40, 46, 41, 47}}
  };
  float x[48], want[48], m[6] = { 1, 2, 3, 4, 5, 6 };
  float tr[6] = { 1, 4, 2, 5, 3, 6 };
  float cat[12] = { 1, 2, 3, 1, 2, 3, 4, 5, 6, 4, 5, 6 };
  float tile[12] = { 1, 2, 3, 1, 2, 3, 4, 5, 6, 4, 5, 6 };
  float expd[12] = { 1, 2, 3, 4, 5, 6, 1, 2, 3, 4, 5, 6 };
  float split1[2] = { 1, 4 }, split2[4] = { 2, 3, 5, 6 };
  in_spec in[1] = { {F32 (4, 1, 2, 3, 8),.data = x} };
  in_spec im[1] = { {F32 (2, 2, 3),.data = m} };
  in_spec im2[2] = { {F32 (2, 2, 3),.data = m}, {F32 (2, 2, 3),.data = m} };
  int64_t shape[2] = { 2, 3 };
  one_op o;
  int c, y, xx, mode;

  for (c = 0; c < 8; c++)
    for (y = 0; y < 2; y++)
      for (xx = 0; xx < 3; xx++)
        x[(y * 3 + xx) * 8 + c] = (float) (c * 6 + y * 3 + xx);
  for (mode = 0; mode < 2; mode++) {
    for (c = 0; c < 2; c++)
      for (y = 0; y < 4; y++)
        for (xx = 0; xx < 6; xx++)
          want[(y * 6 + xx) * 2 + c] = mode == 0 ? dcr[c][y][xx]
              : crd[c][y][xx];
    one_op_init (&o, SIMNPU_IR_DEPTH_TO_SPACE, 1, in, 1);
    o.n->attrs.mode = mode;
    o.n->attrs.n_ints = 1;
    o.n->attrs.ints[0] = 2;
    one_op_check_f32 (&o, want, 48, 0);
  }
  {
    /* space_to_depth undoes depth_to_space (DCR) */
    in_spec ind[1] = { {F32 (4, 1, 4, 6, 2),.data = want}
    };
    for (c = 0; c < 2; c++)
      for (y = 0; y < 4; y++)
        for (xx = 0; xx < 6; xx++)
          want[(y * 6 + xx) * 2 + c] = dcr[c][y][xx];
    one_op_init (&o, SIMNPU_IR_SPACE_TO_DEPTH, 1, ind, 1);
    o.n->attrs.n_ints = 1;
    o.n->attrs.ints[0] = 2;
    one_op_check_f32 (&o, x, 48, 0);
  }
  one_op_init (&o, SIMNPU_IR_TRANSPOSE, 1, im, 1);
  o.n->attrs.n_ints = 2;
  o.n->attrs.ints[0] = 1;
  o.n->attrs.ints[1] = 0;
  one_op_check_f32 (&o, tr, 6, 0);
  one_op_init (&o, SIMNPU_IR_CONCAT, 2, im2, 1);
  o.n->attrs.axis = 1;
  one_op_check_f32 (&o, cat, 12, 0);
  one_op_init (&o, SIMNPU_IR_TILE, 1, im, 1);
  o.n->attrs.n_ints = 2;
  o.n->attrs.ints[0] = 1;
  o.n->attrs.ints[1] = 2;
  one_op_check_f32 (&o, tile, 12, 0);
  one_op_init (&o, SIMNPU_IR_EXPAND, 1, im, 1);
  o.n->attrs.n_ints = 3;
  o.n->attrs.ints[0] = 2;
  o.n->attrs.ints[1] = 1;
  o.n->attrs.ints[2] = 3;
  one_op_check_f32 (&o, expd, 12, 0);
  one_op_init (&o, SIMNPU_IR_SPLIT, 1, im, 2);
  o.n->attrs.axis = 1;
  o.n->attrs.n_ints = 2;
  o.n->attrs.ints[0] = 1;
  o.n->attrs.ints[1] = 2;
  one_op_run (&o);
  assert_close (simnpu__ir_exec_data (o.x, o.outs[0]), split1, 2, 0);
  assert_close (simnpu__ir_exec_data (o.x, o.outs[1]), split2, 4, 0);
  one_op_clear (&o);
  one_op_init (&o, SIMNPU_IR_SHAPE, 1, im, 1);
  one_op_check_bytes (&o, SIMNPU_IR_I64, shape, 2);
  {
    int64_t s = 10, l = 1, d = -3, r[3] = { 10, 7, 4 };
    in_spec ir[3] = { {SIMNPU_IR_I64, 0,.data = &s,.is_const = true},
    {SIMNPU_IR_I64, 0,.data = &l,.is_const = true},
    {SIMNPU_IR_I64, 0,.data = &d,.is_const = true}
    };
    one_op_init (&o, SIMNPU_IR_RANGE, 3, ir, 1);
    one_op_check_bytes (&o, SIMNPU_IR_I64, r, 3);
  }
  {
    int64_t r3[6];
    in_spec ir[1] = { {SIMNPU_IR_I64, 2, {2, 3},.data = r3}
    };
    int64_t want_r[6] = { 1, 2, 3, 4, 5, 6 };
    for (c = 0; c < 6; c++)
      r3[c] = c + 1;
    one_op_init (&o, SIMNPU_IR_RESHAPE, 1, ir, 1);
    o.n->attrs.n_ints = 3;
    o.n->attrs.ints[0] = 3;
    o.n->attrs.ints[1] = -1;
    o.n->attrs.ints[2] = 1;
    one_op_run (&o);
    g_assert_cmpint (one_op_out (&o, 0)->dims[1], ==, 2);
    g_assert_cmpmem (simnpu__ir_exec_data (o.x, o.outs[0]), 48, want_r, 48);
    one_op_clear (&o);
  }
}

/* ------------------------------------------------------------------ */
/* random shapes against index arithmetic */

#define RANDOM_ROUNDS 200
#define RANDOM_RANK 4
#define RANDOM_DIM 4

/* flat index of a multi-index in a shape, broadcast axes (size 1) read 0 */
static int64_t
flat_index (unsigned rank, const int64_t * dims, unsigned out_rank,
    const int64_t * idx)
{
  int64_t f = 0;
  unsigned i, off = out_rank - rank;

  for (i = 0; i < rank; i++)
    f = f * dims[i] + (dims[i] == 1 ? 0 : idx[i + off]);
  return f;
}

static bool
next_index (unsigned rank, const int64_t * dims, int64_t * idx)
{
  unsigned i;

  for (i = rank; i-- > 0;) {
    if (++idx[i] < dims[i])
      return true;
    idx[i] = 0;
  }
  return false;
}

static void
test_random_broadcast (void)
{
  GRand *rng = g_rand_new_with_seed (SEED);
  unsigned round;

  for (round = 0; round < RANDOM_ROUNDS; round++) {
    unsigned ro = (unsigned) g_rand_int_range (rng, 0, RANDOM_RANK + 1);
    unsigned ra = (unsigned) g_rand_int_range (rng, 0, ro + 1);
    unsigned rb = (unsigned) g_rand_int_range (rng, 0, ro + 1), i;
    int64_t od[RANDOM_RANK], ad[RANDOM_RANK] = { 0 }, bd[RANDOM_RANK] = { 0 };
    int64_t idx[RANDOM_RANK] = { 0 }, na = 1, nb = 1, no = 1, k = 0;
    float *a, *b, *want;
    in_spec in[2];
    one_op o;

    for (i = 0; i < ro; i++)
      od[i] = g_rand_int_range (rng, 1, RANDOM_DIM + 1);
    /* each operand takes the trailing axes, some of them as 1 */
    for (i = 0; i < ra; i++) {
      ad[i] = g_rand_boolean (rng) ? od[ro - ra + i] : 1;
      na *= ad[i];
    }
    for (i = 0; i < rb; i++) {
      bd[i] = g_rand_boolean (rng) ? od[ro - rb + i] : 1;
      nb *= bd[i];
    }
    /* the output keeps an axis only where an operand has it */
    for (i = 0; i < ro; i++) {
      int64_t da = i >= ro - ra ? ad[i - (ro - ra)] : 1;
      int64_t db = i >= ro - rb ? bd[i - (ro - rb)] : 1;
      od[i] = MAX (da, db);
      no *= od[i];
    }
    a = random_floats (rng, (size_t) na);
    b = random_floats (rng, (size_t) nb);
    want = g_new (float, no);
    do {
      want[k++] = a[flat_index (ra, ad, ro, idx)]
          - b[flat_index (rb, bd, ro, idx)];
    } while (ro > 0 && next_index (ro, od, idx));
    g_assert_cmpint (k, ==, no);
    in[0] = (in_spec) {
    SIMNPU_IR_F32, ra,.data = a};
    memcpy (in[0].dims, ad, sizeof (ad));
    in[1] = (in_spec) {
    SIMNPU_IR_F32, rb,.data = b};
    memcpy (in[1].dims, bd, sizeof (bd));
    one_op_init (&o, SIMNPU_IR_SUB, 2, in, 1);
    one_op_run (&o);
    g_assert_cmpuint (one_op_out (&o, 0)->rank, ==, MAX (ra, rb));
    one_op_clear (&o);
    one_op_init (&o, SIMNPU_IR_SUB, 2, in, 1);
    one_op_check_f32 (&o, want, (size_t) no, 0);
    g_free (a);
    g_free (b);
    g_free (want);
  }
  g_rand_free (rng);
}

static void
test_random_movement (void)
{
  GRand *rng = g_rand_new_with_seed (SEED + 1);
  unsigned round;

  for (round = 0; round < RANDOM_ROUNDS; round++) {
    unsigned r = (unsigned) g_rand_int_range (rng, 1, RANDOM_RANK + 1), i;
    int64_t d[RANDOM_RANK] = { 0 }, st[RANDOM_RANK], perm[RANDOM_RANK];
    int64_t start[RANDOM_RANK], step[RANDOM_RANK], len[RANDOM_RANK];
    int64_t before[RANDOM_RANK], after[RANDOM_RANK], pd[RANDOM_RANK];
    int64_t kept[RANDOM_RANK];
    int64_t idx[RANDOM_RANK] = { 0 }, n = 1, k, no;
    float *x, *want;
    in_spec in[1];
    one_op o;
    int mode = g_rand_int_range (rng, 0, 3);

    for (i = r; i-- > 0;) {
      d[i] = g_rand_int_range (rng, 1, RANDOM_DIM + 2);
      st[i] = n;
      n *= d[i];
      perm[i] = i;
    }
    for (i = r; i > 1; i--) {
      unsigned j = (unsigned) g_rand_int_range (rng, 0, (gint32) i);
      int64_t tmp = perm[i - 1];
      perm[i - 1] = perm[j];
      perm[j] = tmp;
    }
    x = random_floats (rng, (size_t) n);
    in[0] = (in_spec) {
    SIMNPU_IR_F32, r,.data = x};
    memcpy (in[0].dims, d, sizeof (d));

    /* transpose */
    {
      int64_t od[RANDOM_RANK];
      for (i = 0; i < r; i++)
        od[i] = d[perm[i]];
      want = g_new (float, n);
      k = 0;
      memset (idx, 0, sizeof (idx));
      do {
        int64_t f = 0;
        for (i = 0; i < r; i++)
          f += idx[i] * st[perm[i]];
        want[k++] = x[f];
      } while (next_index (r, od, idx));
      one_op_init (&o, SIMNPU_IR_TRANSPOSE, 1, in, 1);
      o.n->attrs.n_ints = r;
      memcpy (o.n->attrs.ints, perm, r * sizeof (int64_t));
      one_op_check_f32 (&o, want, (size_t) n, 0);
      g_free (want);
    }

    /* slice with steps of either sign */
    no = 1;
    for (i = 0; i < r; i++) {
      step[i] = g_rand_int_range (rng, 1, 3) * (g_rand_boolean (rng) ? 1 : -1);
      start[i] = g_rand_int_range (rng, 0, (gint32) d[i]);
      if (step[i] > 0)
        len[i] = (d[i] - start[i] + step[i] - 1) / step[i];
      else
        len[i] = (start[i] + 1 + (-step[i]) - 1) / (-step[i]);
      no *= len[i];
    }
    want = g_new (float, no);
    k = 0;
    memset (idx, 0, sizeof (idx));
    do {
      int64_t f = 0;
      for (i = 0; i < r; i++)
        f += (start[i] + idx[i] * step[i]) * st[i];
      want[k++] = x[f];
    } while (next_index (r, len, idx));
    one_op_init (&o, SIMNPU_IR_SLICE, 1, in, 1);
    o.n->attrs.n_ints = 2 * r;
    for (i = 0; i < r; i++) {
      o.n->attrs.ints[i] = start[i];
      o.n->attrs.ints[r + i] = step[i] > 0 ? d[i] : -1;
      o.n->attrs.steps[i] = step[i];
    }
    one_op_check_f32 (&o, want, (size_t) no, 0);
    g_free (want);

    /* pad, pads in [-1, 2] that leave at least one element */
    no = 1;
    for (i = 0; i < r; i++) {
      before[i] = g_rand_int_range (rng, -1, 3);
      after[i] = g_rand_int_range (rng, -1, 3);
      if (d[i] + MIN (before[i], 0) + MIN (after[i], 0) <= 0)
        before[i] = after[i] = 0;
      kept[i] = d[i] + MIN (before[i], 0) + MIN (after[i], 0);
      if (mode == SIMNPU_IR_PAD_REFLECT) {
        before[i] = MIN (before[i], kept[i] - 1);
        after[i] = MIN (after[i], kept[i] - 1);
      }
      pd[i] = d[i] + before[i] + after[i];
      no *= pd[i];
    }
    want = g_new (float, no);
    k = 0;
    memset (idx, 0, sizeof (idx));
    do {
      int64_t f = 0;
      bool cst = false;
      /* ONNX: crop by the negative pads, then pad what is kept */
      for (i = 0; i < r; i++) {
        int64_t s = idx[i] - MAX (before[i], 0);
        if (s < 0 || s >= kept[i]) {
          if (mode == SIMNPU_IR_PAD_CONSTANT)
            cst = true;
          else if (mode == SIMNPU_IR_PAD_EDGE)
            s = s < 0 ? 0 : kept[i] - 1;
          else
            s = s < 0 ? -s : 2 * (kept[i] - 1) - s;
        }
        f += (s + MAX (-before[i], 0)) * st[i];
      }
      want[k++] = cst ? 0.25f : x[f];
    } while (next_index (r, pd, idx));
    one_op_init (&o, SIMNPU_IR_PAD, 1, in, 1);
    o.n->attrs.mode = mode;
    o.n->attrs.f[0] = 0.25f;
    o.n->attrs.n_ints = 2 * r;
    for (i = 0; i < r; i++) {
      o.n->attrs.ints[i] = before[i];
      o.n->attrs.ints[r + i] = after[i];
    }
    one_op_check_f32 (&o, want, (size_t) no, 0);
    g_free (want);
    g_free (x);
  }
  g_rand_free (rng);
}

static void
test_random_reduce (void)
{
  GRand *rng = g_rand_new_with_seed (SEED + 2);
  static const simnpu__ir_op ops[4] = { SIMNPU_IR_REDUCE_SUM,
    SIMNPU_IR_REDUCE_MEAN, SIMNPU_IR_REDUCE_MAX, SIMNPU_IR_REDUCE_PROD
  };
  unsigned round;

  for (round = 0; round < RANDOM_ROUNDS; round++) {
    unsigned r = (unsigned) g_rand_int_range (rng, 1, RANDOM_RANK + 1), i;
    simnpu__ir_op op = ops[round % G_N_ELEMENTS (ops)];
    int64_t d[RANDOM_RANK] = { 0 }, od[RANDOM_RANK], ost[RANDOM_RANK];
    int64_t idx[RANDOM_RANK] = { 0 }, n = 1, no = 1, s = 1, k = 0;
    bool mask[RANDOM_RANK];
    unsigned n_axes = 0;
    int64_t axes[RANDOM_RANK];
    float *x, *want;
    double *acc;
    in_spec in[1];
    one_op o;

    for (i = 0; i < r; i++) {
      d[i] = g_rand_int_range (rng, 1, RANDOM_DIM + 2);
      n *= d[i];
      mask[i] = g_rand_boolean (rng);
      if (mask[i])
        axes[n_axes++] = i;
    }
    for (i = r; i-- > 0;) {
      od[i] = mask[i] ? 1 : d[i];
      ost[i] = mask[i] ? 0 : s;
      s *= od[i];
      no *= od[i];
    }
    if (n_axes == 0)
      no = 1;
    x = random_floats (rng, (size_t) n);
    acc = g_new (double, no);
    want = g_new (float, no);
    for (i = 0; i < no; i++)
      acc[i] = op == SIMNPU_IR_REDUCE_MAX ? -INFINITY
          : op == SIMNPU_IR_REDUCE_PROD ? 1 : 0;
    do {
      int64_t f = 0, j;
      for (i = 0; i < r; i++)
        f += n_axes == 0 ? 0 : idx[i] * ost[i];
      j = f;
      if (op == SIMNPU_IR_REDUCE_MAX)
        acc[j] = MAX (acc[j], x[k]);
      else if (op == SIMNPU_IR_REDUCE_PROD)
        acc[j] *= x[k];
      else
        acc[j] += x[k];
      k++;
    } while (next_index (r, d, idx));
    for (i = 0; i < no; i++)
      want[i] = (float) (op == SIMNPU_IR_REDUCE_MEAN ? acc[i] * no / n
          : acc[i]);
    in[0] = (in_spec) {
    SIMNPU_IR_F32, r,.data = x};
    memcpy (in[0].dims, d, sizeof (d));
    one_op_init (&o, op, 1, in, 1);
    o.n->attrs.n_ints = n_axes;
    memcpy (o.n->attrs.ints, axes, n_axes * sizeof (int64_t));
    o.n->attrs.keepdims = true;
    one_op_check_f32 (&o, want, (size_t) no, 1e-5f);
    g_free (x);
    g_free (acc);
    g_free (want);
  }
  g_rand_free (rng);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/ir/slice", test_slice);
  g_test_add_func ("/ir/pad", test_pad);
  g_test_add_func ("/ir/gather", test_gather);
  g_test_add_func ("/ir/movement", test_movement);
  g_test_add_func ("/ir/random-broadcast", test_random_broadcast);
  g_test_add_func ("/ir/random-movement", test_random_movement);
  g_test_add_func ("/ir/random-reduce", test_random_reduce);
  return g_test_run ();
}
