/* gst-ax
 * Copyright (C) 2026 gst-ax developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

/* The choice of the conv kernels' path: once per process, at the first
 * conv packed, the fastest path the CPU has whose kernels give the
 * portable kernel's bytes on the self-test's convs (edge values, odd
 * sizes, channel tails, padding, each kernel kind); SIMNPU_KERNELS names
 * another. Packed weights say which kernel packed them (kernels.c), so a
 * later choice never mixes forms. */

#include "kernels-private.h"

#include <string.h>

/* the self-test's convs: one per shape class the fast kernels take */
typedef struct
{
  const char *label;
  int ih, iw, ic, oc, k, stride, pad, groups;
  int32_t in_zp;
} SelftestConv;

static const SelftestConv selftest_convs[] = {
  /* a pointwise conv as the graph runs it, one long row */
  {"1x1 row", 1, 37, 13, 37, 1, 1, 0, 1, 3},
  {"1x1 70 channels", 5, 7, 20, 70, 1, 1, 0, 1, -128},
  {"3x3 pad 1", 4, 29, 9, 85, 3, 1, 1, 1, -128},
  {"3x3 stride 2 short rows", 9, 11, 6, 19, 3, 2, 1, 1, 127},
  {"first layer 3x3 stride 2", 11, 50, 3, 16, 3, 2, 1, 1, -128},
  {"depthwise 3x3", 6, 13, 83, 83, 3, 1, 1, 83, -128},
  {"depthwise 5x5 stride 2", 9, 10, 19, 19, 5, 2, 2, 19, 127},
};

#define SELFTEST_SEED 0x2545F491u
/* per-channel scales: ordinary ones, then a saturating and a tiny one */
#define SELFTEST_SCALE 0.002f
#define SELFTEST_BIG_SCALE 1000.0f
#define SELFTEST_TINY_SCALE 1e-8f
#define SELFTEST_BIAS_RANGE 40000
#define SELFTEST_OUT_ZP (-3)

typedef enum
{
  SELFTEST_NOT_RUN,
  SELFTEST_PASSED,
  SELFTEST_FAILED,
} SelftestState;

static GMutex select_lock;
/* protected by select_lock */
static SelftestState selftest_state[SIMNPU_KERNELS_N_PATHS];
static int chosen = -1;

int simnpu__kernels_fault_mask;

static const char *const path_names[SIMNPU_KERNELS_N_PATHS] = {
  "portable", "avx2", "avxvnni", "avx512vnni"
};

const char *
simnpu__kernels_path_name (simnpu__kernels_path path)
{
  return path < SIMNPU_KERNELS_N_PATHS ? path_names[path] : "?";
}

bool
simnpu__kernels_cpu_has (simnpu__kernels_path path)
{
  switch (path) {
    case SIMNPU_KERNELS_PORTABLE:
      return true;
    case SIMNPU_KERNELS_AVX2:
#ifdef SIMNPU_MAC_AVX2
      return __builtin_cpu_supports ("avx2");
#else
      return false;
#endif
    case SIMNPU_KERNELS_AVXVNNI:
#ifdef SIMNPU_AVXVNNI
      return __builtin_cpu_supports ("avx2")
          && __builtin_cpu_supports ("avxvnni")
          && __builtin_cpu_supports ("bmi2");
#else
      return false;
#endif
    case SIMNPU_KERNELS_AVX512VNNI:
#ifdef SIMNPU_VNNI
      return __builtin_cpu_supports ("avx512f")
          && __builtin_cpu_supports ("avx512bw")
          && __builtin_cpu_supports ("avx512vl")
          && __builtin_cpu_supports ("avx512vnni")
          && __builtin_cpu_supports ("bmi2");
#else
      return false;
#endif
    default:
      return false;
  }
}

/* tests only: set before packing, kept until the convs ran */
static bool vbmi_disabled;

void
simnpu__kernels_disable_vbmi (bool disable)
{
  vbmi_disabled = disable;
}

bool
simnpu__kernels_cpu_has_vbmi (void)
{
#ifdef SIMNPU_VNNI
  return !vbmi_disabled && simnpu__kernels_cpu_has (SIMNPU_KERNELS_AVX512VNNI)
      && __builtin_cpu_supports ("avx512vbmi");
#else
  return false;
#endif
}

static uint32_t
selftest_rand (uint32_t * state)
{
  *state = *state * 1664525u + 1013904223u;
  return *state >> 8;
}

/* path's kernel against the portable one on c; true if the same bytes
 * or if path does not take c */
static bool
selftest_conv (simnpu__kernels_path path, const SelftestConv * c)
{
  simnpu__conv_params p = { 0 };
  size_t in_n, w_n, out_n, packed_n, i;
  int klen, o;
  int8_t *in, *w, *got, *ref, *scratch;
  int32_t *bias;
  float *scales;
  void *packed;
  uint32_t seed = SELFTEST_SEED;
  bool same;

  p.n = 1;
  p.ih = c->ih;
  p.iw = c->iw;
  p.ic = c->ic;
  p.oc = c->oc;
  p.kh = p.kw = c->k;
  p.sh = p.sw = c->stride;
  p.dh = p.dw = 1;
  p.pt = p.pl = c->pad;
  p.groups = c->groups;
  p.oh = (p.ih + 2 * p.pt - p.kh) / p.sh + 1;
  p.ow = (p.iw + 2 * p.pl - p.kw) / p.sw + 1;
  p.in_zp = c->in_zp;
  p.out_zp = SELFTEST_OUT_ZP;
  p.act_min = I8_MIN;
  p.act_max = I8_MAX;
  packed_n = simnpu__conv2d_packed_bytes_for (&p, path);
  if (packed_n == 0 || simnpu__kernels_path_of_packing (&p, path) != path)
    return true;
  klen = p.kh * p.kw * (p.ic / p.groups);
  in_n = (size_t) p.ih * p.iw * p.ic;
  w_n = (size_t) p.oc * klen;
  out_n = (size_t) p.oh * p.ow * p.oc;
  in = g_malloc (in_n);
  w = g_malloc (w_n);
  got = g_malloc (out_n);
  ref = g_malloc (out_n);
  bias = g_new (int32_t, p.oc);
  scales = g_new (float, p.oc);
  scratch = g_malloc (simnpu__conv2d_scratch_bytes (&p));
  packed = g_aligned_alloc (packed_n, 1, SIMNPU_KERNEL_ALIGN);
  /* the extremes first, then anything */
  for (i = 0; i < in_n; i++)
    in[i] = (int8_t) (i % 5 == 0 ? I8_MIN : i % 5 == 1 ? I8_MAX : i % 5 == 2
        ? 0 : (int) (selftest_rand (&seed) & 0xff) - 128);
  for (i = 0; i < w_n; i++)
    w[i] = (int8_t) (i % 7 == 0 ? I8_MIN : i % 7 == 3 ? I8_MAX :
        (int) (selftest_rand (&seed) & 0xff) - 128);
  for (o = 0; o < p.oc; o++) {
    bias[o] = (int32_t) (selftest_rand (&seed) % (2 * SELFTEST_BIAS_RANGE))
        - SELFTEST_BIAS_RANGE;
    scales[o] = o == 1 ? SELFTEST_BIG_SCALE : o == 2 ? SELFTEST_TINY_SCALE :
        SELFTEST_SCALE * (float) (1 + o % 4);
  }
  simnpu__conv2d_pack_for (&p, w, packed, path);
  simnpu__conv2d (&p, in, w, packed, bias, scales, got, scratch);
  simnpu__conv2d_portable (&p, in, w, bias, scales, ref, scratch);
  same = memcmp (got, ref, out_n) == 0;
  g_free (in);
  g_free (w);
  g_free (got);
  g_free (ref);
  g_free (bias);
  g_free (scales);
  g_free (scratch);
  g_aligned_free (packed);
  return same;
}

/* under select_lock */
static bool
path_ok_locked (simnpu__kernels_path path)
{
  size_t i;

  if (path >= SIMNPU_KERNELS_N_PATHS || !simnpu__kernels_cpu_has (path))
    return false;
  if (path == SIMNPU_KERNELS_PORTABLE)
    return true;
  if (selftest_state[path] == SELFTEST_NOT_RUN) {
    selftest_state[path] = SELFTEST_PASSED;
    for (i = 0; i < G_N_ELEMENTS (selftest_convs); i++)
      if (!selftest_conv (path, &selftest_convs[i])) {
        g_warning ("sim-npu: the %s int8 conv kernels do not give the "
            "portable kernel's results in their self-test (%s): they are "
            "turned off", path_names[path], selftest_convs[i].label);
        selftest_state[path] = SELFTEST_FAILED;
        break;
      }
  }
  return selftest_state[path] == SELFTEST_PASSED;
}

bool
simnpu__kernels_path_ok (simnpu__kernels_path path)
{
  bool ok;

  g_mutex_lock (&select_lock);
  ok = path_ok_locked (path);
  g_mutex_unlock (&select_lock);
  return ok;
}

/* under select_lock */
static void
decide_locked (void)
{
  int want = SIMNPU_KERNELS_N_PATHS - 1, path;
  const char *env = g_getenv ("SIMNPU_KERNELS");

  if (env != NULL && env[0] != '\0') {
    for (path = 0; path < SIMNPU_KERNELS_N_PATHS; path++)
      if (strcmp (env, path_names[path]) == 0)
        break;
    if (path == SIMNPU_KERNELS_N_PATHS)
      g_warning ("sim-npu: SIMNPU_KERNELS=%s is none of portable, avx2, "
          "avxvnni, avx512vnni: using the fastest path", env);
    else
      want = path;
  }
  for (path = want; path > SIMNPU_KERNELS_PORTABLE; path--)
    if (path_ok_locked ((simnpu__kernels_path) path))
      break;
  if (want != path && want != SIMNPU_KERNELS_N_PATHS - 1)
    g_warning ("sim-npu: SIMNPU_KERNELS=%s: this CPU lacks it or it failed "
        "its self-test, using %s", env, path_names[path]);
  if (path == SIMNPU_KERNELS_PORTABLE && want == SIMNPU_KERNELS_PORTABLE)
    simnpu__kernels_disable_avx2 (true);
  chosen = path;
}

simnpu__kernels_path
simnpu__kernels_packing_path (void)
{
  simnpu__kernels_path path;

  g_mutex_lock (&select_lock);
  if (chosen < 0)
    decide_locked ();
  path = (simnpu__kernels_path) chosen;
  g_mutex_unlock (&select_lock);
  return path;
}

simnpu__kernels_path
simnpu__kernels_path_chosen (void)
{
  return simnpu__kernels_packing_path ();
}

bool
simnpu__kernels_use_path (simnpu__kernels_path path)
{
  bool ok;

  g_mutex_lock (&select_lock);
  ok = path_ok_locked (path);
  if (ok)
    chosen = path;
  g_mutex_unlock (&select_lock);
  return ok;
}

void
simnpu__kernels_inject_fault (simnpu__kernels_path path, bool on)
{
  int i;

  g_mutex_lock (&select_lock);
  if (on)
    simnpu__kernels_fault_mask |= 1 << path;
  else
    simnpu__kernels_fault_mask &= ~(1 << path);
  for (i = 0; i < SIMNPU_KERNELS_N_PATHS; i++)
    selftest_state[i] = SELFTEST_NOT_RUN;
  chosen = -1;
  g_mutex_unlock (&select_lock);
}
