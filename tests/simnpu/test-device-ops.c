/* gst-ax
 * Copyright (C) 2026 gst-ax developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

/* The device ops that models beyond the first detectors need (unary LUT
 * ops, conv2d's clip, resize with sizes, bilinear and the ONNX coordinate
 * modes, mean, pad, sub, maximum, minimum): each a small graph through the
 * JSON loader and the interpreter, compared with a float reference
 * computed here from the dequantised inputs, exactly where the int8
 * arithmetic is exact (LUTs, clip, pad, nearest resize) and within one
 * quantisation step otherwise. Also the .axm round trip of the new ops
 * and the rejection of bad attributes. */

#include "simnpu-test-util.h"

#include <math.h>

#define SEED 20261201
#define N_LEVELS 256

static GRand *rng;

static int
rand_int (int lo, int hi)
{
  return g_rand_int_range (rng, lo, hi + 1);
}

static void
fill_i8 (int8_t * p, size_t n)
{
  size_t i;

  for (i = 0; i < n; i++)
    p[i] = (int8_t) rand_int (-128, 127);
}

/* ------------------------------------------------------------------ */
/* Graphs                                                              */

/* A graph with the given inputs, outputs, constants (JSON array bodies)
 * and one op. */
static gchar *
graph_json (const char *inputs, const char *outputs, const char *constants,
    const char *op)
{
  return g_strdup_printf ("{\"format\": \"simnpu-graph\", \"version\": 1, "
      "\"name\": \"device-ops\", \"inputs\": [%s], \"outputs\": [%s], "
      "\"constants\": [%s], \"ops\": [%s]}", inputs, outputs,
      constants ? constants : "", op);
}

static gchar *
io_json (const char *name, const int64_t * shape, float scale, int zp)
{
  if (shape == NULL)
    return g_strdup_printf ("{\"name\": \"%s\", \"dtype\": \"i8\", "
        "\"scale\": %.9g, \"zero_point\": %d}", name, scale, zp);
  return g_strdup_printf ("{\"name\": \"%s\", \"shape\": [%" G_GINT64_FORMAT
      ", %" G_GINT64_FORMAT ", %" G_GINT64_FORMAT ", %" G_GINT64_FORMAT "], "
      "\"dtype\": \"i8\", \"scale\": %.9g, \"zero_point\": %d}", name,
      (gint64) shape[0], (gint64) shape[1], (gint64) shape[2],
      (gint64) shape[3], scale, zp);
}

/* One op from input x (shape, si, zi) to output y (so, zo). */
static gchar *
unary_graph (const char *type, const char *attrs, const int64_t * shape,
    float si, int zi, float so, int zo)
{
  gchar *in = io_json ("x", shape, si, zi);
  gchar *out = io_json ("y", NULL, so, zo);
  gchar *op = g_strdup_printf ("{\"name\": \"op\", \"type\": \"%s\", "
      "\"inputs\": [\"x\"], \"outputs\": [\"y\"], \"attrs\": {%s}}", type,
      attrs ? attrs : "");
  gchar *json = graph_json (in, out, NULL, op);

  g_free (in);
  g_free (out);
  g_free (op);
  return json;
}

static simnpu__graph *
load (const char *json)
{
  simnpu__graph *g = NULL;
  simnpu_error error = { 0 };

  if (simnpu__graph_load_json_data (json, strlen (json), ".", false, &g,
          &error) < 0)
    g_error ("load: %s\n%s", error.message, json);
  if (simnpu__graph_prepare (g, &error) < 0)
    g_error ("prepare: %s", error.message);
  return g;
}

/* Runs g on its inputs; returns its outputs (g_free each). */
static void
run (const simnpu__graph * g, const int8_t * const *inputs, int8_t ** outputs)
{
  uint8_t *arena = g_malloc0 (MAX (g->arena_bytes, 1));
  int8_t *scratch = g_malloc0 (MAX (g->scratch_bytes, 1));
  unsigned i;

  for (i = 0; i < g->n_inputs; i++) {
    const simnpu__tensor *t = &g->tensors[g->inputs[i]];
    memcpy (arena + t->offset, inputs[i], simnpu__tensor_bytes (t));
  }
  g_assert_cmpint (simnpu__graph_run (g, arena, scratch), ==, 0);
  for (i = 0; i < g->n_outputs; i++) {
    const simnpu__tensor *t = &g->tensors[g->outputs[i]];
    outputs[i] = g_memdup2 (arena + t->offset, simnpu__tensor_bytes (t));
  }
  g_free (arena);
  g_free (scratch);
}

static const simnpu__tensor *
in_tensor (const simnpu__graph * g, unsigned i)
{
  return &g->tensors[g->inputs[i]];
}

static const simnpu__tensor *
out_tensor (const simnpu__graph * g, unsigned i)
{
  return &g->tensors[g->outputs[i]];
}

static double
deq (const simnpu__tensor * t, int8_t q)
{
  return (double) t->scale * (q - t->zero_point);
}

/* round half away from zero, saturated */
static int
quant (const simnpu__tensor * t, double y)
{
  return (int) CLAMP (round (y / t->scale) + t->zero_point, -128, 127);
}

/* Loads json, expecting failure with code. */
static void
expect_reject (const char *json, int code, const char *what)
{
  simnpu__graph *g = NULL;
  simnpu_error error = { 0 };
  int ret = simnpu__graph_load_json_data (json, strlen (json), ".", false,
      &g, &error);

  if (ret == 0)
    ret = simnpu__graph_prepare (g, &error);
  if (ret != code)
    g_error ("%s: got %d (%s), expected %d", what, ret, error.message, code);
  g_assert_nonnull (strstr (error.message, "op"));
  simnpu__graph_free (g);
}

/* ------------------------------------------------------------------ */
/* Unary LUT ops                                                        */

typedef struct
{
  const char *type;
  const char *attrs;
  /* the parameters as the graph stores them (float) */
  float p0, p1;
} unary_case;

static double
ref_unary (const char *type, double x, double p0, double p1)
{
  if (strcmp (type, "tanh") == 0)
    return tanh (x);
  if (strcmp (type, "hard_swish") == 0)
    return x * fmin (fmax (x + 3.0, 0.0), 6.0) / 6.0;
  if (strcmp (type, "hard_sigmoid") == 0)
    return fmax (0.0, fmin (1.0, p0 * x + p1));
  if (strcmp (type, "leaky_relu") == 0)
    return x >= 0.0 ? x : p0 * x;
  if (strcmp (type, "clip") == 0)
    return fmin (fmax (x, p0), p1);
  g_assert_cmpstr (type, ==, "elu");
  return x >= 0.0 ? x : p0 * (exp (x) - 1.0);
}

static void
test_unary (void)
{
  static const unary_case cases[] = {
    {"tanh", NULL, 0, 0},
    {"hard_swish", NULL, 0, 0},
    {"hard_sigmoid", NULL, 0.2f, 0.5f},
    {"hard_sigmoid", "\"alpha\": 0.16666667, \"beta\": 0.5", 0.16666667f,
        0.5f},
    {"leaky_relu", NULL, 0.01f, 0},
    {"leaky_relu", "\"alpha\": -0.3", -0.3f, 0},
    {"clip", "\"min\": -1, \"max\": 2.5", -1.0f, 2.5f},
    {"clip", "\"min\": 0.3", 0.3f, INFINITY},
    {"elu", NULL, 1.0f, 0},
    {"elu", "\"alpha\": 0.5", 0.5f, 0},
  };
  /* input and output quantisations, including odd scales and zero
   * points at the ends of the range */
  static const struct
  {
    float si;
    int zi;
    float so;
    int zo;
  } quants[] = {
    {0.05f, 3, 0.04f, -20},
    {0.0371f, -77, 0.0123f, 100},
    {0.2f, 127, 0.01f, -128},
    {1.0f / 128, -128, 1.0f / 256, 0},
  };
  const int64_t shape[4] = { 1, 1, 16, 16 };
  int8_t x[N_LEVELS];
  unsigned c, k;
  int i;

  for (i = 0; i < N_LEVELS; i++)
    x[i] = (int8_t) (i - 128);
  for (c = 0; c < G_N_ELEMENTS (cases); c++)
    for (k = 0; k < G_N_ELEMENTS (quants); k++) {
      gchar *json = unary_graph (cases[c].type, cases[c].attrs, shape,
          quants[k].si, quants[k].zi, quants[k].so, quants[k].zo);
      simnpu__graph *g = load (json);
      const int8_t *ins[1] = { x };
      int8_t *y;
      run (g, ins, &y);
      for (i = 0; i < N_LEVELS; i++) {
        double ref = ref_unary (cases[c].type, deq (in_tensor (g, 0), x[i]),
            cases[c].p0, cases[c].p1);
        int want = quant (out_tensor (g, 0), ref);
        if (y[i] != want)
          g_error ("%s (%s) quant %u: x %d -> %d, expected %d",
              cases[c].type, cases[c].attrs ? cases[c].attrs : "", k, x[i],
              y[i], want);
      }
      g_free (y);
      simnpu__graph_free (g);
      g_free (json);
    }
}

/* The generic LUT: out = table[x + 128], the output's quantisation being
 * the table's business. */
static void
test_lut (void)
{
  int8_t table[N_LEVELS], x[3 * 5 * 7];
  const int64_t shape[4] = { 1, 3, 5, 7 };
  gchar *t64, *in, *out, *con, *op, *json;
  simnpu__graph *g;
  int8_t *y;
  const int8_t *ins[1] = { x };
  unsigned i;

  fill_i8 (table, sizeof (table));
  fill_i8 (x, sizeof (x));
  x[0] = -128;
  x[1] = 127;
  t64 = g_base64_encode ((const guchar *) table, sizeof (table));
  in = io_json ("x", shape, 0.1f, -3);
  out = io_json ("y", NULL, 0.7f, 11);
  con = g_strdup_printf ("{\"name\": \"t\", \"shape\": [256], \"dtype\": "
      "\"i8\", \"data\": {\"base64\": \"%s\"}}", t64);
  op = g_strdup ("{\"type\": \"lut\", \"inputs\": [\"x\", \"t\"], "
      "\"outputs\": [\"y\"]}");
  json = graph_json (in, out, con, op);
  g = load (json);
  run (g, ins, &y);
  for (i = 0; i < sizeof (x); i++)
    g_assert_cmpint (y[i], ==, table[(uint8_t) (x[i] + 128)]);
  g_free (y);
  simnpu__graph_free (g);
  g_free (json);
  g_free (op);

  /* a table of the wrong shape, or not a constant */
  op = g_strdup ("{\"type\": \"lut\", \"inputs\": [\"x\", \"x\"], "
      "\"outputs\": [\"y\"]}");
  json = graph_json (in, out, con, op);
  expect_reject (json, SIMNPU_EFORMAT, "lut of a non-constant");
  g_free (json);
  g_free (op);
  g_free (con);
  con = g_strdup_printf ("{\"name\": \"t\", \"shape\": [16, 16], "
      "\"dtype\": \"i8\", \"data\": {\"base64\": \"%s\"}}", t64);
  op = g_strdup ("{\"type\": \"lut\", \"inputs\": [\"x\", \"t\"], "
      "\"outputs\": [\"y\"]}");
  json = graph_json (in, out, con, op);
  expect_reject (json, SIMNPU_EFORMAT, "lut of a [16, 16] table");
  g_free (json);
  g_free (op);
  g_free (con);
  g_free (in);
  g_free (out);
  g_free (t64);
}

/* ------------------------------------------------------------------ */
/* conv2d with clip                                                     */

static void
check_conv_clip (const char *act, double lo, double hi, float so)
{
  const int n = 21, ic = 3, oc = 4;
  const float si = 0.05f, ws = 0.02f;
  const int zi = 5, zo = -10;
  int8_t x[21 * 21 * 3], w[4 * 3 * 3 * 3], *y;
  int32_t b[4];
  gchar *w64, *b64, *json;
  simnpu__graph *g;
  const int8_t *ins[1] = { x };
  int qlo, qhi, oy, ox, o, ky, kx, c, at_lo = 0, at_hi = 0;

  fill_i8 (x, sizeof (x));
  fill_i8 (w, sizeof (w));
  for (o = 0; o < oc; o++)
    b[o] = rand_int (-2000, 2000);
  w64 = g_base64_encode ((const guchar *) w, sizeof (w));
  b64 = g_base64_encode ((const guchar *) b, sizeof (b));
  json = g_strdup_printf ("{\"format\": \"simnpu-graph\", \"version\": 1, "
      "\"name\": \"cc\", \"inputs\": [{\"name\": \"x\", \"shape\": [1, %d, "
      "%d, %d], \"dtype\": \"i8\", \"scale\": %.9g, \"zero_point\": %d}], "
      "\"outputs\": [{\"name\": \"y\", \"dtype\": \"i8\", \"scale\": %.9g, "
      "\"zero_point\": %d}], \"ops\": [{\"name\": \"c\", \"type\": "
      "\"conv2d\", \"inputs\": [\"x\"], \"outputs\": [\"y\"], \"attrs\": "
      "{\"kernel\": [3, 3], \"pad\": [1, 1, 1, 1], \"out_channels\": %d, "
      "%s}, \"weights\": {\"scale\": %.9g, \"data\": {\"base64\": \"%s\"}}, "
      "\"bias\": {\"data\": {\"base64\": \"%s\"}}}]}", n, n, ic, si, zi, so,
      zo, oc, act, ws, w64, b64);
  g = load (json);
  g_assert_cmpint (g->ops[0].attrs[SIMNPU_A_ACT], ==, SIMNPU_ACT_CLIP);
  qlo = (int) CLAMP (nearbyint (lo / so) + zo, -128, 127);
  qhi = (int) CLAMP (nearbyint (hi / so) + zo, -128, 127);
  g_assert_cmpint (g->ops[0].attrs[SIMNPU_A_ACT_QMIN], ==, qlo);
  g_assert_cmpint (g->ops[0].attrs[SIMNPU_A_ACT_QMAX], ==, qhi);
  run (g, ins, &y);
  for (oy = 0; oy < n; oy++)
    for (ox = 0; ox < n; ox++)
      for (o = 0; o < oc; o++) {
        double acc = b[o], real;
        int got = y[(oy * n + ox) * oc + o], want;
        for (ky = 0; ky < 3; ky++)
          for (kx = 0; kx < 3; kx++)
            for (c = 0; c < ic; c++) {
              int iy = oy + ky - 1, ix = ox + kx - 1;
              if (iy < 0 || iy >= n || ix < 0 || ix >= n)
                continue;
              acc += (double) (x[(iy * n + ix) * ic + c] - zi) *
                  w[((o * 3 + ky) * 3 + kx) * ic + c];
            }
        real = fmin (fmax (acc * si * ws, lo), hi);
        want = (int) CLAMP (nearbyint (real / so) + zo, -128, 127);
        g_assert_cmpint (abs (got - want), <=, 1);
        /* the bounds themselves are exact */
        g_assert_cmpint (got, >=, qlo);
        g_assert_cmpint (got, <=, qhi);
        at_lo += got == qlo;
        at_hi += got == qhi;
      }
  /* the data reach both bounds, so the clip is exercised */
  g_assert_cmpint (at_lo, >, 0);
  g_assert_cmpint (at_hi, >, 0);
  g_free (y);
  simnpu__graph_free (g);
  g_free (json);
  g_free (w64);
  g_free (b64);
}

static void
test_conv_clip (void)
{
  check_conv_clip ("\"activation\": \"relu6\"", 0.0, 6.0, 0.06f);
  check_conv_clip ("\"activation\": \"clip\", \"clip\": [-0.5, 0.7]", -0.5,
      0.7, 0.03f);
  check_conv_clip ("\"activation\": \"clip\", \"clip\": [0.1, 1.2]", 0.1,
      1.2, 0.01f);
}

/* ------------------------------------------------------------------ */
/* resize                                                               */

static const char *const coord_names[] = { "half_pixel",
  "pytorch_half_pixel", "align_corners", "asymmetric", "tf_half_pixel_for_nn"
};

static const char *const nearest_names[] = { "round_prefer_floor",
  "round_prefer_ceil", "floor", "ceil"
};

/* ONNX Resize-13's source coordinate, in double (exact for the small
 * sizes here, ties included) */
static double
ref_coord (int coord, int x, int in, int out)
{
  switch (coord) {
    case 0:
      return (x + 0.5) * in / out - 0.5;
    case 1:
      return out > 1 ? (x + 0.5) * in / out - 0.5 : 0.0;
    case 2:
      return out == 1 ? 0.0 : x * (double) (in - 1) / (out - 1);
    case 3:
      return x * (double) in / out;
    default:
      return (x + 0.5) * in / out;
  }
}

static int
ref_nearest (int mode, double v, int in)
{
  double f = floor (v);
  int i;

  switch (mode) {
    case 0:
      i = (int) (v - f == 0.5 ? f : round (v));
      break;
    case 1:
      i = (int) (v - f == 0.5 ? f + 1 : round (v));
      break;
    case 2:
      i = (int) f;
      break;
    default:
      i = (int) ceil (v);
      break;
  }
  return CLAMP (i, 0, in - 1);
}

static gchar *
resize_attrs (const char *mode, int oh, int ow, int coord, int nearest)
{
  return g_strdup_printf ("\"mode\": \"%s\", \"size\": [%d, %d], "
      "\"coordinate_transformation_mode\": \"%s\", \"nearest_mode\": \"%s\"",
      mode, oh, ow, coord_names[coord], nearest_names[nearest]);
}

static void
test_resize_nearest (void)
{
  static const int sizes[][4] = {
    /* ih, iw, oh, ow */
    {4, 5, 8, 10}, {5, 7, 7, 3}, {3, 3, 9, 2}, {6, 4, 3, 4}, {1, 4, 3, 1},
    {2, 3, 5, 8},
  };
  unsigned s, coord, nm;

  for (s = 0; s < G_N_ELEMENTS (sizes); s++)
    for (coord = 0; coord < G_N_ELEMENTS (coord_names); coord++)
      for (nm = 0; nm < G_N_ELEMENTS (nearest_names); nm++) {
        const int ih = sizes[s][0], iw = sizes[s][1];
        const int oh = sizes[s][2], ow = sizes[s][3], ch = 1 + (int) s % 3;
        const int64_t shape[4] = { 2, ih, iw, ch };
        gchar *attrs = resize_attrs ("nearest", oh, ow, coord, nm);
        /* equal quantisation: the values are copied */
        gchar *json = unary_graph ("resize", attrs, shape, 0.1f, 2, 0.1f, 2);
        simnpu__graph *g = load (json);
        int8_t *x = g_malloc (2 * ih * iw * ch), *y;
        const int8_t *ins[1] = { x };
        int n, oy, ox, c;
        fill_i8 (x, 2 * ih * iw * ch);
        run (g, ins, &y);
        g_assert_cmpint (out_tensor (g, 0)->dims[1], ==, oh);
        g_assert_cmpint (out_tensor (g, 0)->dims[2], ==, ow);
        for (n = 0; n < 2; n++)
          for (oy = 0; oy < oh; oy++)
            for (ox = 0; ox < ow; ox++) {
              int sy = ref_nearest (nm, ref_coord (coord, oy, ih, oh), ih);
              int sx = ref_nearest (nm, ref_coord (coord, ox, iw, ow), iw);
              for (c = 0; c < ch; c++)
                if (y[((n * oh + oy) * ow + ox) * ch + c] !=
                    x[((n * ih + sy) * iw + sx) * ch + c])
                  g_error ("nearest %dx%d->%dx%d %s %s: (%d,%d) wrong",
                      ih, iw, oh, ow, coord_names[coord], nearest_names[nm],
                      oy, ox);
            }
        g_free (x);
        g_free (y);
        simnpu__graph_free (g);
        g_free (json);
        g_free (attrs);
      }
}

/* Integer scale factors keep their old meaning (floor (y / scale)), and
 * a requantising nearest resize matches the float reference. */
static void
test_resize_scale (void)
{
  const int64_t shape[4] = { 1, 3, 4, 5 };
  gchar *json = unary_graph ("resize", "\"scale\": [3, 2]", shape, 0.1f, 0,
      0.1f, 0);
  simnpu__graph *g = load (json);
  int8_t x[3 * 4 * 5], *y;
  const int8_t *ins[1] = { x };
  int oy, ox, c;

  fill_i8 (x, sizeof (x));
  run (g, ins, &y);
  for (oy = 0; oy < 9; oy++)
    for (ox = 0; ox < 8; ox++)
      for (c = 0; c < 5; c++)
        g_assert_cmpint (y[(oy * 8 + ox) * 5 + c], ==,
            x[((oy / 3) * 4 + ox / 2) * 5 + c]);
  g_free (y);
  simnpu__graph_free (g);
  g_free (json);

  json = unary_graph ("resize", "\"size\": [6, 8]", shape, 0.1f, 4, 0.07f, -9);
  g = load (json);
  run (g, ins, &y);
  for (oy = 0; oy < 6; oy++)
    for (ox = 0; ox < 8; ox++)
      for (c = 0; c < 5; c++) {
        double v = deq (in_tensor (g, 0), x[((oy / 2) * 4 + ox / 2) * 5 + c]);
        g_assert_cmpint (abs (y[(oy * 8 + ox) * 5 + c] -
                quant (out_tensor (g, 0), v)), <=, 1);
      }
  g_free (y);
  simnpu__graph_free (g);
  g_free (json);
}

static void
test_resize_bilinear (void)
{
  static const int sizes[][5] = {
    /* ih, iw, oh, ow, channels */
    {4, 5, 8, 10, 3}, {5, 7, 7, 3, 16}, {3, 3, 9, 2, 1}, {6, 4, 3, 4, 8},
    {1, 4, 3, 1, 2}, {7, 9, 13, 17, 32},
  };
  static const float quants[][4] = {
    {0.1f, 2, 0.1f, 2}, {0.05f, -20, 0.08f, 30}, {0.3f, 100, 0.17f, -128},
  };
  unsigned s, coord, q;
  int exact = 0, total = 0;

  for (s = 0; s < G_N_ELEMENTS (sizes); s++)
    /* the four modes of linear resizes */
    for (coord = 0; coord < 4; coord++)
      for (q = 0; q < G_N_ELEMENTS (quants); q++) {
        const int ih = sizes[s][0], iw = sizes[s][1];
        const int oh = sizes[s][2], ow = sizes[s][3], ch = sizes[s][4];
        const int64_t shape[4] = { 1, ih, iw, ch };
        gchar *attrs = resize_attrs (q == 1 ? "linear" : "bilinear", oh, ow,
            coord, 0);
        gchar *json = unary_graph ("resize", attrs, shape, quants[q][0],
            (int) quants[q][1], quants[q][2], (int) quants[q][3]);
        simnpu__graph *g = load (json);
        int8_t *x = g_malloc (ih * iw * ch), *y;
        const int8_t *ins[1] = { x };
        int oy, ox, c;
        fill_i8 (x, ih * iw * ch);
        run (g, ins, &y);
        for (oy = 0; oy < oh; oy++)
          for (ox = 0; ox < ow; ox++) {
            double fy = CLAMP (ref_coord (coord, oy, ih, oh), 0, ih - 1);
            double fx = CLAMP (ref_coord (coord, ox, iw, ow), 0, iw - 1);
            int y0 = (int) floor (fy), x0 = (int) floor (fx);
            int y1 = MIN (y0 + 1, ih - 1), x1 = MIN (x0 + 1, iw - 1);
            double wy = fy - y0, wx = fx - x0;
            for (c = 0; c < ch; c++) {
#define X(yy, xx) deq (in_tensor (g, 0), x[((yy) * iw + (xx)) * ch + c])
              double v = (1 - wy) * ((1 - wx) * X (y0, x0) + wx * X (y0, x1))
                  + wy * ((1 - wx) * X (y1, x0) + wx * X (y1, x1));
#undef X
              int want = quant (out_tensor (g, 0), v);
              int got = y[(oy * ow + ox) * ch + c];
              if (abs (got - want) > 1)
                g_error ("bilinear %dx%d->%dx%d %s quant %u: (%d,%d,%d) "
                    "%d, expected %d", ih, iw, oh, ow, coord_names[coord], q,
                    oy, ox, c, got, want);
              exact += got == want;
              total++;
            }
          }
        g_free (x);
        g_free (y);
        simnpu__graph_free (g);
        g_free (json);
        g_free (attrs);
      }
  /* off by one only near ties */
  g_assert_cmpint (exact, >, total * 9 / 10);
}

/* The kernel's two passes (cached rows of horizontal taps, or per pixel
 * without scratch) compute the same integers. */
static void
test_resize_bilinear_paths (void)
{
  static const int sizes[][5] = {
    {4, 5, 8, 10, 3}, {9, 7, 4, 3, 16}, {3, 3, 9, 2, 1}, {6, 4, 13, 11, 8},
  };
  unsigned s, coord;

  for (s = 0; s < G_N_ELEMENTS (sizes); s++)
    for (coord = 0; coord < 4; coord++) {
      const int ih = sizes[s][0], iw = sizes[s][1];
      const int oh = sizes[s][2], ow = sizes[s][3], ch = sizes[s][4];
      const int64_t shape[4] = { 2, ih, iw, ch };
      gchar *attrs = resize_attrs ("bilinear", oh, ow, coord, 0);
      gchar *json = unary_graph ("resize", attrs, shape, 0.05f, -3, 0.04f,
          7);
      simnpu__graph *g = load (json);
      const simnpu__op *op = &g->ops[0];
      const simnpu__tensor *out = out_tensor (g, 0);
      size_t ni = (size_t) 2 * ih * iw * ch, no = (size_t) 2 *oh * ow * ch;
      int8_t *x = g_malloc (ni), *a = g_malloc (no), *b = g_malloc (no);
      int32_t *rows = g_malloc (simnpu__resize_bilinear_scratch_bytes
          (out->dims));
      float scale = (float) (op->rescale / (1 << (2 *
                  SIMNPU_RESIZE_WEIGHT_BITS)));
      fill_i8 (x, ni);
      simnpu__resize_bilinear (in_tensor (g, 0)->dims, x, out->dims, a,
          op->table, -3, 7, scale, rows);
      simnpu__resize_bilinear (in_tensor (g, 0)->dims, x, out->dims, b,
          op->table, -3, 7, scale, NULL);
      g_assert_cmpmem (a, no, b, no);
      g_free (x);
      g_free (a);
      g_free (b);
      g_free (rows);
      simnpu__graph_free (g);
      g_free (json);
      g_free (attrs);
    }
}

/* ------------------------------------------------------------------ */
/* mean                                                                 */

static void
test_mean (void)
{
  static const int64_t shapes[][4] = {
    {2, 5, 7, 3}, {1, 13, 13, 64}, {1, 1, 1, 8}, {1, 9, 11, 1},
    {3, 20, 20, 5},
  };
  static const float quants[][4] = {
    {0.1f, 2, 0.1f, 2}, {0.05f, -20, 0.01f, 30}, {0.3f, 127, 0.9f, -128},
  };
  unsigned s, q;

  for (s = 0; s < G_N_ELEMENTS (shapes); s++)
    for (q = 0; q < G_N_ELEMENTS (quants); q++) {
      const int64_t *d = shapes[s];
      size_t n = (size_t) (d[0] * d[1] * d[2] * d[3]);
      gchar *json = unary_graph ("mean", NULL, d, quants[q][0],
          (int) quants[q][1], quants[q][2], (int) quants[q][3]);
      simnpu__graph *g = load (json);
      int8_t *x = g_malloc (n), *y;
      const int8_t *ins[1] = { x };
      int64_t b, i, c;
      fill_i8 (x, n);
      run (g, ins, &y);
      g_assert_cmpint (out_tensor (g, 0)->dims[1], ==, 1);
      g_assert_cmpint (out_tensor (g, 0)->dims[2], ==, 1);
      g_assert_cmpint (out_tensor (g, 0)->dims[3], ==, d[3]);
      for (b = 0; b < d[0]; b++)
        for (c = 0; c < d[3]; c++) {
          double sum = 0;
          int want;
          for (i = 0; i < d[1] * d[2]; i++)
            sum += deq (in_tensor (g, 0), x[(b * d[1] * d[2] + i) * d[3] + c]);
          want = quant (out_tensor (g, 0), sum / (double) (d[1] * d[2]));
          g_assert_cmpint (abs (y[b * d[3] + c] - want), <=, 1);
        }
      g_free (x);
      g_free (y);
      simnpu__graph_free (g);
      g_free (json);
    }
}

/* ------------------------------------------------------------------ */
/* pad                                                                  */

static void
test_pad (void)
{
  unsigned t;

  for (t = 0; t < 40; t++) {
    int64_t d[4], o[4];
    int before[4], after[4];
    bool edge = t % 2 == 1, requant = t % 5 == 4;
    float so = requant ? 0.13f : 0.1f;
    int zo = requant ? -7 : 3;
    double value = t % 3 == 0 ? 0.0 : 0.35;
    gchar *pads, *attrs, *json;
    simnpu__graph *g;
    int8_t *x, *y;
    const int8_t *ins[1];
    int qv;
    int64_t i0, i1, i2, i3;
    size_t n;
    int k;

    for (k = 0; k < 4; k++) {
      d[k] = rand_int (1, k == 0 ? 2 : 5);
      /* channel padding on a third of the cases */
      before[k] = k == 3 && t % 3 != 2 ? 0 : rand_int (0, 3);
      after[k] = k == 3 && t % 3 != 2 ? 0 : rand_int (0, 3);
      o[k] = d[k] + before[k] + after[k];
    }
    n = (size_t) (d[0] * d[1] * d[2] * d[3]);
    pads = g_strdup_printf ("[%d, %d, %d, %d, %d, %d, %d, %d]", before[0],
        before[1], before[2], before[3], after[0], after[1], after[2],
        after[3]);
    attrs = g_strdup_printf ("\"pads\": %s, \"mode\": \"%s\", \"value\": %g",
        pads, edge ? "edge" : "constant", value);
    json = unary_graph ("pad", attrs, d, 0.1f, 3, so, zo);
    g = load (json);
    x = g_malloc (n);
    fill_i8 (x, n);
    ins[0] = x;
    run (g, ins, &y);
    qv = (int) CLAMP (nearbyint (value / so) + zo, -128, 127);
    for (k = 0; k < 4; k++)
      g_assert_cmpint (out_tensor (g, 0)->dims[k], ==, o[k]);
    for (i0 = 0; i0 < o[0]; i0++)
      for (i1 = 0; i1 < o[1]; i1++)
        for (i2 = 0; i2 < o[2]; i2++)
          for (i3 = 0; i3 < o[3]; i3++) {
            int64_t s[4] = { i0 - before[0], i1 - before[1], i2 - before[2],
              i3 - before[3]
            };
            bool inside = true;
            int got = y[((i0 * o[1] + i1) * o[2] + i2) * o[3] + i3], want;
            for (k = 0; k < 4; k++) {
              if (s[k] < 0 || s[k] >= d[k])
                inside = false;
              s[k] = CLAMP (s[k], 0, d[k] - 1);
            }
            if (!inside && !edge) {
              want = qv;
            } else {
              double v = deq (in_tensor (g, 0),
                  x[((s[0] * d[1] + s[1]) * d[2] + s[2]) * d[3] + s[3]]);
              want = quant (out_tensor (g, 0), v);
            }
            /* exact with one quantisation, the requantisation's rounding
             * otherwise */
            if (requant)
              g_assert_cmpint (abs (got - want), <=, 1);
            else
              g_assert_cmpint (got, ==, want);
          }
    g_free (x);
    g_free (y);
    simnpu__graph_free (g);
    g_free (json);
    g_free (attrs);
    g_free (pads);
  }
}

/* ------------------------------------------------------------------ */
/* sub, maximum, minimum                                                */

static void
test_binary (void)
{
  static const char *const types[] = { "sub", "maximum", "minimum" };
  static const int64_t shapes[][2][4] = {
    {{1, 4, 5, 6}, {1, 4, 5, 6}},
    {{1, 4, 5, 6}, {1, 1, 1, 6}},
    {{2, 3, 1, 7}, {1, 1, 4, 7}},
    {{1, 1, 1, 1}, {1, 3, 3, 37}},
    {{1, 64, 1, 33}, {1, 64, 1, 33}},
  };
  static const float quants[][6] = {
    {0.1f, 0, 0.1f, 0, 0.1f, 0},
    {0.05f, -20, 0.08f, 30, 0.12f, 5},
    {0.3f, 100, 0.02f, -128, 0.2f, -3},
  };
  unsigned t, s, q;

  for (t = 0; t < G_N_ELEMENTS (types); t++)
    for (s = 0; s < G_N_ELEMENTS (shapes); s++)
      for (q = 0; q < G_N_ELEMENTS (quants); q++) {
        const int64_t *da = shapes[s][0], *db = shapes[s][1];
        int64_t dout[4], i0, i1, i2, i3;
        size_t na = (size_t) (da[0] * da[1] * da[2] * da[3]);
        size_t nb = (size_t) (db[0] * db[1] * db[2] * db[3]);
        gchar *ia = io_json ("a", da, quants[q][0], (int) quants[q][1]);
        gchar *ib = io_json ("b", db, quants[q][2], (int) quants[q][3]);
        gchar *ins_j = g_strdup_printf ("%s, %s", ia, ib);
        gchar *out = io_json ("y", NULL, quants[q][4], (int) quants[q][5]);
        gchar *op = g_strdup_printf ("{\"type\": \"%s\", \"inputs\": "
            "[\"a\", \"b\"], \"outputs\": [\"y\"]}", types[t]);
        gchar *json = graph_json (ins_j, out, NULL, op);
        simnpu__graph *g = load (json);
        int8_t *a = g_malloc (na), *b = g_malloc (nb), *y;
        const int8_t *ins[2] = { a, b };
        int k;
        fill_i8 (a, na);
        fill_i8 (b, nb);
        run (g, ins, &y);
        for (k = 0; k < 4; k++)
          dout[k] = MAX (da[k], db[k]);
        for (i0 = 0; i0 < dout[0]; i0++)
          for (i1 = 0; i1 < dout[1]; i1++)
            for (i2 = 0; i2 < dout[2]; i2++)
              for (i3 = 0; i3 < dout[3]; i3++) {
#define AT(d, v0, v1, v2, v3) \
  ((((d[0] > 1 ? v0 : 0) * d[1] + (d[1] > 1 ? v1 : 0)) * d[2] \
    + (d[2] > 1 ? v2 : 0)) * d[3] + (d[3] > 1 ? v3 : 0))
                double va = deq (in_tensor (g, 0), a[AT (da, i0, i1, i2, i3)]);
                double vb = deq (in_tensor (g, 1), b[AT (db, i0, i1, i2, i3)]);
#undef AT
                double r = t == 0 ? va - vb : t == 1 ? MAX (va, vb) :
                    MIN (va, vb);
                int got = y[((i0 * dout[1] + i1) * dout[2] + i2) * dout[3]
                    + i3];
                int want = quant (out_tensor (g, 0), r);
                /* one quantisation throughout: maximum and minimum are
                 * exact */
                if (q == 0 && t > 0)
                  g_assert_cmpint (got, ==, want);
                else
                  g_assert_cmpint (abs (got - want), <=, 1);
              }
        g_free (a);
        g_free (b);
        g_free (y);
        simnpu__graph_free (g);
        g_free (json);
        g_free (op);
        g_free (out);
        g_free (ins_j);
        g_free (ia);
        g_free (ib);
      }
}

/* ------------------------------------------------------------------ */
/* Container round trip and bad attributes                              */

/* every new op, chained; the .axm written and read back must keep the
 * op types and attributes and compute the same */
/* ------------------------------------------------------------------ */
/* gather, select                                                       */

/* a constant of dtype i8 or i32 with its bytes in base64 */
static gchar *
const_json (const char *name, const char *dtype, const int64_t * shape,
    unsigned rank, const void *data, size_t bytes)
{
  gchar *b64 = g_base64_encode ((const guchar *) data, bytes);
  GString *s = g_string_new (NULL);
  unsigned i;

  g_string_append_printf (s, "{\"name\": \"%s\", \"shape\": [", name);
  for (i = 0; i < rank; i++)
    g_string_append_printf (s, "%s%" G_GINT64_FORMAT, i ? ", " : "",
        (gint64) shape[i]);
  g_string_append_printf (s, "], \"dtype\": \"%s\", \"data\": {\"base64\": "
      "\"%s\"}}", dtype, b64);
  g_free (b64);
  return g_string_free (s, FALSE);
}

static gchar *
gather_graph (const int64_t * shape, int axis_attr, const void *idx,
    int64_t n_idx, const char *idx_dtype, float so, int zo)
{
  gchar *in = io_json ("x", shape, 0.1f, 3);
  gchar *out = io_json ("y", NULL, so, zo);
  gchar *con = const_json ("idx", idx_dtype, &n_idx, 1, idx,
      (size_t) n_idx * (strcmp (idx_dtype, "i32") == 0 ? 4 : 1));
  gchar *op = g_strdup_printf ("{\"name\": \"op\", \"type\": \"gather\", "
      "\"inputs\": [\"x\", \"idx\"], \"outputs\": [\"y\"], \"attrs\": "
      "{\"axis\": %d}}", axis_attr);
  gchar *json = graph_json (in, out, con, op);

  g_free (in);
  g_free (out);
  g_free (con);
  g_free (op);
  return json;
}

static void
test_gather (void)
{
  const int64_t shape[4] = { 2, 3, 4, 5 };
  int axis;

  /* every axis, given from the front and from the back, with repeated
   * and unordered indices; each output byte is its source byte */
  for (axis = 0; axis < 4; axis++) {
    int32_t idx[7];
    int64_t n_idx = rand_int (1, 7), k, o[4], i0, i1, i2, i3;
    int8_t x[2 * 3 * 4 * 5], *y;
    const int8_t *ins[1] = { x };
    gchar *json;
    simnpu__graph *g;

    for (k = 0; k < n_idx; k++)
      idx[k] = rand_int (0, (int) shape[axis] - 1);
    idx[0] = (int32_t) shape[axis] - 1;
    fill_i8 (x, sizeof (x));
    json = gather_graph (shape, axis % 2 ? axis - 4 : axis, idx, n_idx,
        "i32", 0.1f, 3);
    g = load (json);
    g_assert_cmpint (g->ops[0].attrs[SIMNPU_A_AXIS], ==, axis);
    memcpy (o, shape, sizeof o);
    o[axis] = n_idx;
    for (k = 0; k < 4; k++)
      g_assert_cmpint (out_tensor (g, 0)->dims[k], ==, o[k]);
    run (g, ins, &y);
    for (i0 = 0; i0 < o[0]; i0++)
      for (i1 = 0; i1 < o[1]; i1++)
        for (i2 = 0; i2 < o[2]; i2++)
          for (i3 = 0; i3 < o[3]; i3++) {
            int64_t s[4] = { i0, i1, i2, i3 };
            s[axis] = idx[s[axis]];
            g_assert_cmpint (y[((i0 * o[1] + i1) * o[2] + i2) * o[3] + i3],
                ==, x[((s[0] * shape[1] + s[1]) * shape[2] + s[2]) *
                    shape[3] + s[3]]);
          }
    g_free (y);
    simnpu__graph_free (g);
    g_free (json);
  }

  /* a hand-made case: rows 2, 0, 2 of a 3 x 2 matrix */
  {
    const int64_t m[4] = { 1, 1, 3, 2 };
    const int32_t idx[3] = { 2, 0, 2 };
    const int8_t x[6] = { 1, -2, 3, -4, 5, -128 };
    const int8_t want[6] = { 5, -128, 1, -2, 5, -128 };
    const int8_t *ins[1] = { x };
    gchar *json = gather_graph (m, 2, idx, 3, "i32", 0.1f, 3);
    simnpu__graph *g = load (json);
    int8_t *y;
    run (g, ins, &y);
    g_assert_cmpmem (y, 6, want, 6);
    g_free (y);
    simnpu__graph_free (g);
    g_free (json);
  }
}

static void
test_gather_bad (void)
{
  const int64_t shape[4] = { 1, 2, 3, 4 };
  const int32_t out_of_range[2] = { 0, 4 }, negative[2] = { -1, 0 };
  const int32_t ok[2] = { 1, 0 };
  const int8_t ok8[2] = { 1, 0 };
  gchar *json;
  simnpu__graph *g = NULL;
  simnpu_error error = { 0 };

  json = gather_graph (shape, 3, out_of_range, 2, "i32", 0.1f, 3);
  expect_reject (json, SIMNPU_EFORMAT, "gather index past the axis");
  g_free (json);
  json = gather_graph (shape, 3, negative, 2, "i32", 0.1f, 3);
  expect_reject (json, SIMNPU_EFORMAT, "gather of a negative index");
  g_free (json);
  json = gather_graph (shape, 3, ok8, 2, "i8", 0.1f, 3);
  expect_reject (json, SIMNPU_EFORMAT, "gather of i8 indices");
  g_free (json);
  json = gather_graph (shape, 3, ok, 2, "i32", 0.2f, 3);
  expect_reject (json, SIMNPU_EFORMAT, "gather that requantises");
  g_free (json);
  json = gather_graph (shape, 4, ok, 2, "i32", 0.1f, 3);
  expect_reject (json, SIMNPU_EFORMAT, "gather along axis 4 of rank 4");
  g_free (json);

  /* an index and an axis edited after loading, as a hand-edited .axm
   * would present them */
  json = gather_graph (shape, 3, ok, 2, "i32", 0.1f, 3);
  g_assert_cmpint (simnpu__graph_load_json_data (json, strlen (json), ".",
          false, &g, &error), ==, 0);
  ((int32_t *) g->tensors[g->ops[0].inputs[1]].data)[1] = 4;
  g_assert_cmpint (simnpu__graph_infer_shapes (g, &error), ==, SIMNPU_EFORMAT);
  g_assert_nonnull (strstr (error.message, "out of range"));
  ((int32_t *) g->tensors[g->ops[0].inputs[1]].data)[1] = 0;
  g->ops[0].attrs[SIMNPU_A_AXIS] = 4;
  g_assert_cmpint (simnpu__graph_infer_shapes (g, &error), ==, SIMNPU_EFORMAT);
  g->ops[0].attrs[SIMNPU_A_AXIS] = 3;
  g_assert_cmpint (simnpu__graph_infer_shapes (g, &error), ==, 0);
  simnpu__graph_free (g);
  g = NULL;
  g_free (json);

  /* the message says which index; the axis is required */
  json = gather_graph (shape, 3, out_of_range, 2, "i32", 0.1f, 3);
  g_assert_cmpint (simnpu__graph_load_json_data (json, strlen (json), ".",
          false, &g, &error), ==, SIMNPU_EFORMAT);
  g_assert_nonnull (strstr (error.message, "index 4"));
  g_free (json);
  {
    gchar *in = io_json ("x", shape, 0.1f, 3);
    gchar *out = io_json ("y", NULL, 0.1f, 3);
    gchar *con = const_json ("idx", "i32", (const int64_t[]) { 2 }, 1, ok,
        sizeof ok);
    json = graph_json (in, out, con, "{\"type\": \"gather\", \"inputs\": "
        "[\"x\", \"idx\"], \"outputs\": [\"y\"]}");
    g_assert_cmpint (simnpu__graph_load_json_data (json, strlen (json), ".",
            false, &g, &error), ==, SIMNPU_EFORMAT);
    g_assert_nonnull (strstr (error.message, "axis"));
    g_free (json);
    /* indices that are not a constant */
    json = graph_json (in, out, NULL, "{\"type\": \"gather\", \"inputs\": "
        "[\"x\", \"x\"], \"outputs\": [\"y\"], \"attrs\": {\"axis\": 0}}");
    expect_reject (json, SIMNPU_EFORMAT, "gather of run-time indices");
    g_free (json);
    g_free (in);
    g_free (out);
    g_free (con);
  }
}

/* the device's requantisation of q (zero point zi) by the ratio r to the
 * output's zero point zo: round half up in 24-bit fixed point */
static int
requant_ref (int q, int zi, double r, int zo)
{
  int64_t m = llround (r * (double) (1 << 24));
  int64_t v = ((int64_t) (q - zi) * m + (1 << 23)) >> 24;

  return (int) CLAMP (v + zo, -128, 127);
}

static gchar *
select_graph (const int64_t * dc, const int8_t * cond, const int64_t * dx,
    float sx, int zx, const int64_t * dy, float sy, int zy, float so, int zo)
{
  gchar *ix = io_json ("x", dx, sx, zx);
  gchar *iy = io_json ("y", dy, sy, zy);
  gchar *ins = g_strdup_printf ("%s, %s", ix, iy);
  gchar *out = io_json ("z", NULL, so, zo);
  gchar *con = cond ? const_json ("c", "i8", dc, 4, cond, (size_t) (dc[0] *
          dc[1] * dc[2] * dc[3])) : NULL;
  gchar *json = graph_json (ins, out, con, cond ? "{\"type\": \"select\", "
      "\"inputs\": [\"c\", \"x\", \"y\"], \"outputs\": [\"z\"]}" :
      "{\"type\": \"select\", \"inputs\": [\"x\", \"x\", \"y\"], "
      "\"outputs\": [\"z\"]}");

  g_free (ix);
  g_free (iy);
  g_free (ins);
  g_free (out);
  g_free (con);
  return json;
}

static void
test_select (void)
{
  /* the condition and y broadcast along different axes; the same
   * quantisation throughout (a copy), one requantisation within 32-bit
   * multipliers and one beyond (ratio 200) */
  static const struct
  {
    float sx, sy, so;
    int zx, zy, zo;
  } q[] = {
    {0.1f, 0.1f, 0.1f, 3, 3, 3},
    {0.1f, 0.25f, 0.2f, 3, -2, 5},
    {0.1f, 0.05f, 0.0005f, -7, 0, 1},
  };
  const int64_t dc[4] = { 1, 1, 4, 1 }, dx[4] = { 2, 3, 4, 5 };
  const int64_t dy[4] = { 1, 3, 1, 5 };
  unsigned t;

  for (t = 0; t < G_N_ELEMENTS (q); t++) {
    int8_t cond[4] = { 1, 0, 2, 0 }, x[120], y[15], *z;
    const int8_t *ins[2] = { x, y };
    gchar *json = select_graph (dc, cond, dx, q[t].sx, q[t].zx, dy, q[t].sy,
        q[t].zy, q[t].so, q[t].zo);
    simnpu__graph *g = load (json);
    int64_t i0, i1, i2, i3;

    fill_i8 (x, sizeof x);
    fill_i8 (y, sizeof y);
    run (g, ins, &z);
    for (i0 = 0; i0 < 2; i0++)
      for (i1 = 0; i1 < 3; i1++)
        for (i2 = 0; i2 < 4; i2++)
          for (i3 = 0; i3 < 5; i3++) {
            int64_t o = ((i0 * 3 + i1) * 4 + i2) * 5 + i3;
            int got = z[o], want;
            double real;
            if (cond[i2]) {
              want = requant_ref (x[o], q[t].zx, (double) q[t].sx / q[t].so,
                  q[t].zo);
              real = (double) q[t].sx * (x[o] - q[t].zx);
            } else {
              int yv = y[i1 * 5 + i3];
              want = requant_ref (yv, q[t].zy, (double) q[t].sy / q[t].so,
                  q[t].zo);
              real = (double) q[t].sy * (yv - q[t].zy);
            }
            g_assert_cmpint (got, ==, want);
            /* and the int8 value is the real one, rounded and saturated */
            g_assert_cmpint (abs (got - quant (out_tensor (g, 0), real)), <=,
                1);
            if (t == 0)
              g_assert_cmpint (got, ==, cond[i2] ? x[o] : y[i1 * 5 + i3]);
          }
    g_free (z);
    simnpu__graph_free (g);
    g_free (json);
  }
}

static void
test_select_bad (void)
{
  const int64_t dc[4] = { 1, 1, 4, 1 }, dx[4] = { 2, 3, 4, 5 };
  const int64_t bad[4] = { 1, 3, 2, 5 }, dy[4] = { 1, 3, 1, 5 };
  const int8_t cond[4] = { 1, 0, 1, 0 };
  gchar *json;

  json = select_graph (dc, NULL, dx, 0.1f, 0, dy, 0.1f, 0, 0.1f, 0);
  expect_reject (json, SIMNPU_EFORMAT, "select of a run-time condition");
  g_free (json);
  json = select_graph (dc, cond, dx, 0.1f, 0, bad, 0.1f, 0, 0.1f, 0);
  expect_reject (json, SIMNPU_ESHAPE, "select of shapes that do not "
      "broadcast");
  g_free (json);
  json = select_graph (dc, cond, dx, 0.1f, 0, dy, 500.0f, 0, 0.1f, 0);
  expect_reject (json, SIMNPU_EFORMAT, "select with a scale ratio of 5000");
  g_free (json);
}

static const char chain_json[] =
    "{\"format\": \"simnpu-graph\", \"version\": 1, \"name\": \"chain\","
    "\"inputs\": [{\"name\": \"x\", \"shape\": [1, 6, 7, 4], \"dtype\": "
    "\"i8\", \"scale\": 0.05, \"zero_point\": 3}],"
    "\"outputs\": [{\"name\": \"y\", \"dtype\": \"i8\", \"scale\": 0.02, "
    "\"zero_point\": -4}, {\"name\": \"z\", \"dtype\": \"i8\", \"scale\": "
    "0.05, \"zero_point\": 3}],"
    "\"constants\": [{\"name\": \"t\", \"shape\": [256], \"dtype\": \"i8\", "
    "\"data\": {\"base64\": \"%s\"}}],"
    "\"ops\": ["
    " {\"type\": \"tanh\", \"inputs\": [\"x\"], \"outputs\": [\"a\"],"
    "  \"quant\": {\"scale\": 0.0079, \"zero_point\": 0}},"
    " {\"type\": \"hard_swish\", \"inputs\": [\"x\"], \"outputs\": [\"b\"]},"
    " {\"type\": \"hard_sigmoid\", \"inputs\": [\"b\"], \"outputs\": [\"c\"],"
    "  \"attrs\": {\"alpha\": 0.25}, \"quant\": {\"scale\": 0.004, "
    "  \"zero_point\": -128}},"
    " {\"type\": \"leaky_relu\", \"inputs\": [\"x\"], \"outputs\": [\"d\"]},"
    " {\"type\": \"clip\", \"inputs\": [\"d\"], \"outputs\": [\"e\"],"
    "  \"attrs\": {\"min\": -0.5, \"max\": 1.5}},"
    " {\"type\": \"elu\", \"inputs\": [\"e\"], \"outputs\": [\"f\"]},"
    " {\"type\": \"lut\", \"inputs\": [\"f\", \"t\"], \"outputs\": [\"g\"]},"
    " {\"type\": \"sub\", \"inputs\": [\"g\", \"a\"], \"outputs\": [\"h\"],"
    "  \"quant\": {\"scale\": 0.05, \"zero_point\": 0}},"
    " {\"type\": \"maximum\", \"inputs\": [\"h\", \"c\"], \"outputs\": "
    "  [\"i\"]},"
    " {\"type\": \"minimum\", \"inputs\": [\"i\", \"b\"], \"outputs\": "
    "  [\"j\"]},"
    " {\"type\": \"pad\", \"inputs\": [\"j\"], \"outputs\": [\"k\"],"
    "  \"attrs\": {\"pads\": [0, 1, 2, 0, 0, 2, 1, 1], \"mode\": \"edge\"}},"
    " {\"type\": \"resize\", \"inputs\": [\"k\"], \"outputs\": [\"l\"],"
    "  \"attrs\": {\"mode\": \"bilinear\", \"size\": [11, 13],"
    "  \"coordinate_transformation_mode\": \"align_corners\"}},"
    " {\"type\": \"resize\", \"inputs\": [\"l\"], \"outputs\": [\"m\"],"
    "  \"attrs\": {\"size\": [5, 4], \"nearest_mode\": \"ceil\","
    "  \"coordinate_transformation_mode\": \"asymmetric\"}},"
    " {\"type\": \"mean\", \"inputs\": [\"m\"], \"outputs\": [\"y\"]},"
    " {\"type\": \"pad\", \"inputs\": [\"x\"], \"outputs\": [\"z\"],"
    "  \"attrs\": {\"pads\": [0, 1, 1, 0, 0, 1, 1, 0], \"value\": -1}}]}";

static void
test_axm_round_trip (void)
{
  int8_t table[N_LEVELS], x[6 * 7 * 4];
  gchar *t64, *json, *path, *data = NULL;
  gsize size = 0;
  simnpu__graph *g, *back = NULL;
  simnpu__schedule sched = { 0 };
  simnpu_error error = { 0 };
  int8_t *y1[2], *y2[2];
  const int8_t *ins[1] = { x };
  unsigned i, k;

  fill_i8 (table, sizeof (table));
  fill_i8 (x, sizeof (x));
  t64 = g_base64_encode ((const guchar *) table, sizeof (table));
  json = g_strdup_printf (chain_json, t64);
  g = load (json);
  g_assert_cmpuint (g->n_ops, ==, 15);
  run (g, ins, y1);

  path = test_compile_json (json, "torq", false, &error);
  if (path == NULL)
    g_error ("compile: %s", error.message);
  g_assert_true (g_file_get_contents (path, &data, &size, NULL));
  g_assert_cmpint (simnpu__axm_read (data, size, &back, &sched, &error), ==, 0);
  g_assert_cmpint (simnpu__graph_prepare (back, &error), ==, 0);
  g_assert_cmpuint (back->n_ops, ==, g->n_ops);
  for (i = 0; i < g->n_ops; i++) {
    g_assert_cmpint (back->ops[i].type, ==, g->ops[i].type);
    for (k = 0; k < SIMNPU_N_ATTRS; k++)
      g_assert_cmpint (back->ops[i].attrs[k], ==, g->ops[i].attrs[k]);
  }
  /* the schedule has one compute (or CDMA) action per op */
  {
    unsigned per_op = 0;
    for (i = 0; i < sched.n_actions; i++)
      if (sched.actions[i].kind == SIMNPU_ACTION_COMPUTE
          || sched.actions[i].kind == SIMNPU_ACTION_CDMA)
        per_op++;
    g_assert_cmpuint (per_op, ==, g->n_ops);
  }
  run (back, ins, y2);
  for (i = 0; i < 2; i++) {
    size_t n = simnpu__tensor_bytes (out_tensor (g, i));
    g_assert_cmpint (out_tensor (back, i)->dims[3], ==,
        out_tensor (g, i)->dims[3]);
    g_assert_cmpmem (y1[i], n, y2[i], n);
    g_free (y1[i]);
    g_free (y2[i]);
  }
  g_assert_cmpint (out_tensor (g, 0)->dims[1], ==, 1);
  g_assert_cmpint (out_tensor (g, 1)->dims[1], ==, 8);
  g_assert_cmpint (out_tensor (g, 1)->dims[2], ==, 9);

  simnpu__schedule_clear (&sched);
  simnpu__graph_free (back);
  simnpu__graph_free (g);
  g_unlink (path);
  g_free (path);
  g_free (data);
  g_free (json);
  g_free (t64);
}

/* The cost model: the new ops cost like comparable ones (bytes over the
 * vector width plus the per-op overhead), mean its input, bilinear four
 * taps per output; on Torq pad and nearest resize move data on the CDMA
 * engine, bilinear resize computes. */
static void
test_cost (void)
{
  static const char json[] =
      "{\"format\": \"simnpu-graph\", \"version\": 1, \"name\": \"cost\","
      "\"inputs\": [{\"name\": \"x\", \"shape\": [1, 8, 8, 16], \"dtype\": "
      "\"i8\", \"scale\": 0.1}],"
      "\"outputs\": [{\"name\": \"y\", \"dtype\": \"i8\", \"scale\": 0.1}, "
      "{\"name\": \"z\", \"dtype\": \"i8\", \"scale\": 0.1}],"
      "\"ops\": ["
      " {\"type\": \"resize\", \"inputs\": [\"x\"], \"outputs\": [\"b\"],"
      "  \"attrs\": {\"mode\": \"bilinear\", \"size\": [16, 16]}},"
      " {\"type\": \"resize\", \"inputs\": [\"b\"], \"outputs\": [\"n\"],"
      "  \"attrs\": {\"scale\": [2, 2]}},"
      " {\"type\": \"mean\", \"inputs\": [\"n\"], \"outputs\": [\"y\"]},"
      " {\"type\": \"pad\", \"inputs\": [\"x\"], \"outputs\": [\"p\"],"
      "  \"attrs\": {\"pads\": [0, 1, 1, 0, 0, 1, 1, 0]}},"
      " {\"type\": \"hard_swish\", \"inputs\": [\"p\"], \"outputs\": [\"z\"]}"
      "]}";
  /* bytes each op's cost counts, and whether Torq runs it on the CDMA */
  static const struct
  {
    uint64_t bytes;
    bool cdma;
  } want[] = {
    {4 * 16 * 16 * 16, false},
    {32 * 32 * 16, true},
    {32 * 32 * 16, false},
    {10 * 10 * 16, true},
    {10 * 10 * 16, false},
  };
  simnpu__graph *g = load (json);
  simnpu__profile p;
  simnpu__schedule s = { 0 };
  simnpu_error error = { 0 };
  unsigned i, seen = 0;

  g_assert_cmpint (simnpu__profile_parse ("torq", &p, &error), ==, 0);
  g_assert_cmpint (simnpu__schedule_build (g, &p, &s, &error), ==, 0);
  for (i = 0; i < s.n_actions; i++) {
    const simnpu__action *a = &s.actions[i];
    uint64_t cycles;
    if (a->op_index < 0 || (a->kind != SIMNPU_ACTION_COMPUTE
            && a->kind != SIMNPU_ACTION_CDMA))
      continue;
    g_assert_cmpint (a->op_index, <, (int) G_N_ELEMENTS (want));
    cycles = (want[a->op_index].bytes + p.vector_bytes_per_cycle - 1) /
        p.vector_bytes_per_cycle + p.op_overhead_cycles;
    g_assert_cmpuint (a->cycles, ==, cycles);
    g_assert_cmpint (a->kind, ==, want[a->op_index].cdma ?
        SIMNPU_ACTION_CDMA : SIMNPU_ACTION_COMPUTE);
    seen++;
  }
  g_assert_cmpuint (seen, ==, G_N_ELEMENTS (want));
  simnpu__schedule_clear (&s);
  simnpu__graph_free (g);
}

static void
test_bad_attrs (void)
{
  const int64_t shape[4] = { 1, 4, 4, 2 };
  static const struct
  {
    const char *type;
    const char *attrs;
    int code;
  } cases[] = {
    {"resize", "\"mode\": \"cubic\", \"size\": [2, 2]", SIMNPU_EFORMAT},
    {"resize", "\"size\": [2, 2], \"coordinate_transformation_mode\": "
          "\"tf_crop_and_resize\"", SIMNPU_EFORMAT},
    {"resize", "\"size\": [0, 2]", SIMNPU_EFORMAT},
    {"resize", "\"size\": [2]", SIMNPU_EFORMAT},
    {"pad", "\"pads\": [0, 1, 1, 0]", SIMNPU_EFORMAT},
    {"pad", "\"pads\": [0, -1, 1, 0, 0, 0, 0, 0]", SIMNPU_EFORMAT},
    {"pad", "\"pads\": [0, 1, 1, 0, 0, 0, 0, 0], \"mode\": \"reflect\"",
        SIMNPU_EFORMAT},
    {"clip", "\"min\": 2, \"max\": 1", SIMNPU_EFORMAT},
    {"leaky_relu", "\"alpha\": \"x\"", SIMNPU_EFORMAT},
  };
  unsigned i;

  for (i = 0; i < G_N_ELEMENTS (cases); i++) {
    gchar *json = unary_graph (cases[i].type, cases[i].attrs, shape, 0.1f, 0,
        0.1f, 0);
    simnpu__graph *g = NULL;
    simnpu_error error = { 0 };
    int ret = simnpu__graph_load_json_data (json, strlen (json), ".", false,
        &g, &error);
    if (ret != cases[i].code)
      g_error ("%s {%s}: got %d (%s)", cases[i].type, cases[i].attrs, ret,
          error.message);
    g_assert_null (g);
    g_assert_nonnull (strstr (error.message, "attrs"));
    g_free (json);
  }

  /* graphs that parse but whose attributes the graph checks reject, as
   * a hand-edited .axm would present them */
  {
    gchar *json = unary_graph ("clip", "\"min\": 0, \"max\": 1", shape,
        0.1f, 0, 0.1f, 0);
    simnpu__graph *g = NULL;
    simnpu_error error = { 0 };
    g_assert_cmpint (simnpu__graph_load_json_data (json, strlen (json), ".",
            false, &g, &error), ==, 0);
    g->ops[0].attrs[SIMNPU_A_F0] = simnpu__float_attr (NAN);
    g_assert_cmpint (simnpu__graph_prepare (g, &error), ==, SIMNPU_EFORMAT);
    simnpu__graph_free (g);
    g_free (json);

    json = unary_graph ("resize", "\"size\": [3, 3]", shape, 0.1f, 0, 0.1f, 0);
    g_assert_cmpint (simnpu__graph_load_json_data (json, strlen (json), ".",
            false, &g, &error), ==, 0);
    g->ops[0].attrs[SIMNPU_A_COORD] = SIMNPU_N_COORD_MODES;
    g_assert_cmpint (simnpu__graph_infer_shapes (g, &error), ==,
        SIMNPU_EFORMAT);
    g->ops[0].attrs[SIMNPU_A_COORD] = 0;
    g->ops[0].attrs[SIMNPU_A_RESIZE_MODE] = 2;
    g_assert_cmpint (simnpu__graph_infer_shapes (g, &error), ==,
        SIMNPU_EFORMAT);
    simnpu__graph_free (g);
    g_free (json);

    json = unary_graph ("pad", "\"pads\": [0, 1, 1, 0, 0, 0, 0, 0]", shape,
        0.1f, 0, 0.1f, 0);
    g_assert_cmpint (simnpu__graph_load_json_data (json, strlen (json), ".",
            false, &g, &error), ==, 0);
    g->ops[0].attrs[SIMNPU_A_PAD_VALUE] = 128;
    g_assert_cmpint (simnpu__graph_infer_shapes (g, &error), ==,
        SIMNPU_EFORMAT);
    simnpu__graph_free (g);
    g_free (json);
  }
}

int
main (int argc, char **argv)
{
  int ret;

  g_test_init (&argc, &argv, NULL);
  rng = g_rand_new_with_seed (SEED);
  g_test_add_func ("/simnpu/device-ops/unary", test_unary);
  g_test_add_func ("/simnpu/device-ops/lut", test_lut);
  g_test_add_func ("/simnpu/device-ops/conv-clip", test_conv_clip);
  g_test_add_func ("/simnpu/device-ops/resize-nearest", test_resize_nearest);
  g_test_add_func ("/simnpu/device-ops/resize-scale", test_resize_scale);
  g_test_add_func ("/simnpu/device-ops/resize-bilinear", test_resize_bilinear);
  g_test_add_func ("/simnpu/device-ops/resize-bilinear-paths",
      test_resize_bilinear_paths);
  g_test_add_func ("/simnpu/device-ops/mean", test_mean);
  g_test_add_func ("/simnpu/device-ops/pad", test_pad);
  g_test_add_func ("/simnpu/device-ops/binary", test_binary);
  g_test_add_func ("/simnpu/device-ops/gather", test_gather);
  g_test_add_func ("/simnpu/device-ops/gather-bad", test_gather_bad);
  g_test_add_func ("/simnpu/device-ops/select", test_select);
  g_test_add_func ("/simnpu/device-ops/select-bad", test_select_bad);
  g_test_add_func ("/simnpu/device-ops/axm-round-trip", test_axm_round_trip);
  g_test_add_func ("/simnpu/device-ops/cost", test_cost);
  g_test_add_func ("/simnpu/device-ops/bad-attrs", test_bad_attrs);
  ret = g_test_run ();
  g_rand_free (rng);
  return ret;
}
