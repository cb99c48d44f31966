/* gst-ax
 * Copyright (C) 2026 gst-ax developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

/* The conv kernel paths (sim-npu/kernels/kernels-select.c): every path
 * this CPU has against the portable kernel, bit for bit, on random and
 * edge inputs for each shape class (dense 1x1, 3x3 at strides 1 and 2
 * with padding, depthwise 3x3 and 5x5 at strides 1 and 2, the
 * three-channel first layer; AVX-VNNI's depthwise convs are AVX2's); the
 * paths the CPU lacks are named as skipped. Then the self-test: a path whose results are wrong is turned
 * off, with a warning, and SIMNPU_KERNELS picks a path. */

#include "test-kernels-util.h"

#include <stdio.h>
#include <string.h>

/* random cases per shape class and path */
#define CASES_PER_CLASS 12

typedef struct
{
  const char *name;
  int k, stride, depthwise, ic_lo, ic_hi;
  /* every other case has exactly 16 output channels, as a first layer
   * often does (the kernels store four such pixels at once) */
  int oc16;
} ShapeClass;

static const ShapeClass classes[] = {
  {"dense 1x1", 1, 1, 0, 1, 150},
  {"dense 3x3 stride 1", 3, 1, 0, 1, 70},
  {"dense 3x3 stride 2", 3, 2, 0, 1, 70},
  {"first layer 3x3 stride 2, 3 channels", 3, 2, 0, 3, 3, 1},
  /* (one channel is a dense conv) */
  {"depthwise 3x3 stride 1", 3, 1, 1, 2, 200},
  {"depthwise 3x3 stride 2", 3, 2, 1, 2, 200},
  {"depthwise 5x5 stride 1", 5, 1, 1, 2, 200},
  {"depthwise 5x5 stride 2", 5, 2, 1, 2, 200},
};

/* edge: every value -128 or 127 (inputs and weights), else random with
 * some -128, 127 and 0 */
static int8_t
value (int edge)
{
  if (edge)
    return (int8_t) (rand_int (0, 1) ? -128 : 127);
  switch (rand_int (0, 9)) {
    case 0:
      return -128;
    case 1:
      return 127;
    case 2:
      return 0;
    default:
      return (int8_t) rand_int (-128, 127);
  }
}

static void
random_shape (const ShapeClass * c, simnpu__conv_params * p, int t)
{
  int pb, pr;

  memset (p, 0, sizeof (*p));
  p->n = t % 5 == 4 ? 2 : 1;
  p->kh = p->kw = c->k;
  p->sh = p->sw = c->stride;
  p->dh = p->dw = 1;
  p->ic = rand_int (c->ic_lo, c->ic_hi);
  if (c->depthwise) {
    p->groups = p->oc = p->ic;
  } else {
    p->groups = 1;
    /* past the 8 channels below which the dense kernels leave thin convs
     * to the portable one, often not a multiple of 16 */
    p->oc = rand_int (9, t % 3 == 0 ? 200 : 70);
    if (c->oc16 && t % 2 == 0)
      p->oc = 16;
  }
  p->pt = p->pl = c->k / 2;
  pb = rand_int (0, c->k / 2);
  pr = rand_int (0, c->k / 2);
  if (c->k == 1 && t % 2 == 0) {
    /* a pointwise conv as the graph runs it: one long row */
    p->ih = 1;
    p->iw = rand_int (1, 900);
    p->pt = p->pl = pb = pr = 0;
  } else {
    p->ih = rand_int (c->k, 20);
    /* short rows (im2row) and wide ones (read in place) */
    p->iw = rand_int (c->k, t % 2 ? 20 : 70);
    /* rows wide enough to be read in place at stride 2 */
    if (c->oc16 && t % 4 == 0)
      p->iw = rand_int (48, 70);
  }
  p->oh = (p->ih + p->pt + pb - p->kh) / p->sh + 1;
  p->ow = (p->iw + p->pl + pr - p->kw) / p->sw + 1;
  p->in_zp = t % 4 == 0 ? -128 : t % 4 == 1 ? 127 : rand_int (-128, 127);
  p->out_zp = rand_int (-128, 127);
  p->act_min = rand_int (0, 1) ? -128 : rand_int (-128, p->out_zp);
  p->act_max =
      rand_int (0, 3) ? 127 : rand_int (MAX (p->act_min, p->out_zp), 127);
}

/* path's kernel against the portable one on p: false if path does not
 * pack p with its own kernel */
static bool
check_path (simnpu__kernels_path path, const simnpu__conv_params * p,
    int edge, const char *what)
{
  const int klen = p->kh * p->kw * (p->ic / p->groups);
  const size_t in_n = (size_t) p->n * p->ih * p->iw * p->ic;
  const size_t w_n = (size_t) p->oc * klen;
  const size_t out_n = (size_t) p->n * p->oh * p->ow * p->oc;
  const size_t packed_n = simnpu__conv2d_packed_bytes_for (p, path);
  size_t scratch_n = simnpu__conv2d_scratch_bytes (p), i;
  int8_t *in, *w, *got, *ref, *scratch;
  int32_t *bias;
  float *scales;
  void *packed;
  int o;

  if (packed_n == 0)
    return false;
  in = g_malloc (in_n);
  w = g_malloc (w_n);
  got = g_malloc (out_n);
  ref = g_malloc (out_n);
  bias = g_new (int32_t, p->oc);
  scales = g_new (float, p->oc);
  scratch = g_malloc (scratch_n + 1);
  packed = g_aligned_alloc (packed_n, 1, 64);
  for (i = 0; i < in_n; i++)
    in[i] = value (edge);
  for (i = 0; i < w_n; i++)
    w[i] = value (edge);
  for (o = 0; o < p->oc; o++) {
    bias[o] = rand_int (0, 9) == 0 ? rand_int (-(1 << 30), 1 << 30) :
        rand_int (-50000, 50000);
    scales[o] = rand_int (0, 9) == 0 ? (float) g_rand_double_range (rng, 1.0,
        100.0) : (float) g_rand_double_range (rng, 1e-5, 3e-3);
  }
  simnpu__conv2d_pack_for (p, w, packed, path);
  g_assert_cmpint (simnpu__conv2d_packed_path (packed), ==, path);
  memset (scratch, 0x5a, scratch_n + 1);
  /* misaligned scratch on purpose */
  simnpu__conv2d (p, in, w, packed, bias, scales, got, scratch + 1);
  simnpu__conv2d_portable (p, in, w, bias, scales, ref, scratch);
  if (memcmp (got, ref, out_n) != 0) {
    for (i = 0; got[i] == ref[i]; i++);
    g_error ("%s, path %s (n%d %dx%dx%d -> %dx%dx%d k%d s%d p%d zp %d,%d "
        "act %d..%d%s): element %zu (channel %zu) is %d, portable %d", what,
        simnpu__kernels_path_name (path), p->n, p->ih, p->iw, p->ic, p->oh,
        p->ow, p->oc, p->kh, p->sh, p->pt, p->in_zp, p->out_zp, p->act_min,
        p->act_max, edge ? ", edge values" : "", i, i % p->oc, got[i], ref[i]);
  }
  g_free (in);
  g_free (w);
  g_free (got);
  g_free (ref);
  g_free (bias);
  g_free (scales);
  g_free (scratch);
  g_aligned_free (packed);
  return true;
}

/* every shape class on path */
static void
check_classes (simnpu__kernels_path path, const char *name)
{
  unsigned c;

  for (c = 0; c < G_N_ELEMENTS (classes); c++) {
    int t, taken = 0;
    if (classes[c].depthwise && path == SIMNPU_KERNELS_AVXVNNI) {
      /* AVX-VNNI has a dense kernel only: its depthwise convs are AVX2's */
      simnpu__conv_params p;
      size_t n;
      int8_t *w;
      void *packed;
      random_shape (&classes[c], &p, 0);
      n = simnpu__conv2d_packed_bytes_for (&p, path);
      g_assert_cmpuint (n, >, 0);
      w = g_malloc0 ((size_t) p.oc * p.kh * p.kw);
      packed = g_aligned_alloc (n, 1, 64);
      simnpu__conv2d_pack_for (&p, w, packed, path);
      g_assert_cmpint (simnpu__conv2d_packed_path (packed), ==,
          SIMNPU_KERNELS_AVX2);
      g_free (w);
      g_aligned_free (packed);
      printf ("# path %s, %s: the avx2 kernels\n", name, classes[c].name);
      continue;
    }
    for (t = 0; t < CASES_PER_CLASS; t++) {
      simnpu__conv_params p;
      random_shape (&classes[c], &p, t);
      taken += check_path (path, &p, t % 6 == 5, classes[c].name);
    }
    /* each class is one the path's own kernels take */
    g_assert_cmpint (taken, ==, CASES_PER_CLASS);
    printf ("# path %s, %s: %d cases bit-exact\n", name, classes[c].name,
        taken);
  }
}

static void
test_paths_bit_exact (void)
{
  int path, ran = 0;

  rng = g_rand_new_with_seed (SEED);
  for (path = SIMNPU_KERNELS_AVX2; path < SIMNPU_KERNELS_N_PATHS; path++) {
    simnpu__kernels_path k = (simnpu__kernels_path) path;
    const char *name = simnpu__kernels_path_name (k);
    if (!simnpu__kernels_cpu_has (k)) {
      printf ("# path %s skipped: this CPU lacks it\n", name);
      continue;
    }
    g_assert_true (simnpu__kernels_path_ok (k));
    check_classes (k, name);
    ran++;
    if (k != SIMNPU_KERNELS_AVX512VNNI)
      continue;
    /* the VNNI dense kernel's form for CPUs without AVX-512 VBMI */
    if (!__builtin_cpu_supports ("avx512vbmi")) {
      printf ("# path %s with AVX-512 VBMI skipped: this CPU lacks it\n", name);
      continue;
    }
    simnpu__kernels_disable_vbmi (true);
    check_classes (k, "avx512vnni without VBMI");
    simnpu__kernels_disable_vbmi (false);
  }
  printf ("# fast paths run: %d\n", ran);
  g_rand_free (rng);
}

/* a wrong kernel is caught by the self-test and its path turned off, with
 * one warning; then it comes back once the fault is gone */
static void
test_selftest_rejects_fault (void)
{
  int path;

  for (path = SIMNPU_KERNELS_AVX2; path < SIMNPU_KERNELS_N_PATHS; path++) {
    simnpu__kernels_path k = (simnpu__kernels_path) path;
    if (!simnpu__kernels_cpu_has (k)) {
      printf ("# path %s skipped: this CPU lacks it\n",
          simnpu__kernels_path_name (k));
      continue;
    }
    simnpu__kernels_inject_fault (k, true);
    g_test_expect_message (NULL, G_LOG_LEVEL_WARNING, "*self-test*");
    g_assert_false (simnpu__kernels_path_ok (k));
    g_test_assert_expected_messages ();
    /* logged once: no second warning */
    g_assert_false (simnpu__kernels_path_ok (k));
    g_assert_cmpint (simnpu__kernels_path_chosen (), !=, path);
    g_assert_false (simnpu__kernels_use_path (k));
    simnpu__kernels_inject_fault (k, false);
    g_assert_true (simnpu__kernels_path_ok (k));
    g_assert_true (simnpu__kernels_use_path (k));
    g_assert_cmpint (simnpu__kernels_path_chosen (), ==, path);
  }
}

/* SIMNPU_KERNELS names the path packed for */
static void
test_env_forces_path (void)
{
  simnpu__conv_params p = { 0 };
  int path;

  p.n = 1;
  p.ih = p.iw = 8;
  p.ic = p.oc = 32;
  p.kh = p.kw = 3;
  p.sh = p.sw = p.dh = p.dw = 1;
  p.pt = p.pl = 1;
  p.oh = p.ow = 8;
  p.groups = 1;
  p.act_min = -128;
  p.act_max = 127;
  for (path = 0; path < SIMNPU_KERNELS_N_PATHS; path++) {
    simnpu__kernels_path k = (simnpu__kernels_path) path;
    g_setenv ("SIMNPU_KERNELS", simnpu__kernels_path_name (k), TRUE);
    /* forgets the choice made so far */
    simnpu__kernels_inject_fault (k, false);
    if (!simnpu__kernels_cpu_has (k))
      g_test_expect_message (NULL, G_LOG_LEVEL_WARNING, "*lacks it*");
    if (simnpu__kernels_cpu_has (k)) {
      g_assert_cmpint (simnpu__kernels_path_chosen (), ==, path);
      if (k == SIMNPU_KERNELS_PORTABLE)
        g_assert_cmpuint (simnpu__conv2d_packed_bytes (&p), ==, 0);
      else
        g_assert_cmpuint (simnpu__conv2d_packed_bytes (&p), >, 0);
    } else {
      g_assert_cmpint (simnpu__kernels_path_chosen (), <, path);
      g_test_assert_expected_messages ();
    }
    simnpu__kernels_disable_avx2 (false);
  }
  g_setenv ("SIMNPU_KERNELS", "no-such-path", TRUE);
  simnpu__kernels_inject_fault (SIMNPU_KERNELS_PORTABLE, false);
  g_test_expect_message (NULL, G_LOG_LEVEL_WARNING, "*none of*");
  g_assert_cmpint (simnpu__kernels_path_chosen (), >=, 0);
  g_test_assert_expected_messages ();
  g_unsetenv ("SIMNPU_KERNELS");
  simnpu__kernels_inject_fault (SIMNPU_KERNELS_PORTABLE, false);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/simnpu/kernels/paths-bit-exact", test_paths_bit_exact);
  g_test_add_func ("/simnpu/kernels/selftest-rejects-fault",
      test_selftest_rejects_fault);
  g_test_add_func ("/simnpu/kernels/env-forces-path", test_env_forces_path);
  return g_test_run ();
}
