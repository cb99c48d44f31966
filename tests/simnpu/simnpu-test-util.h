/* gst-ax
 * Copyright (C) 2026 gst-ax developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

/* Helpers shared by the sim-npu tests: small JSON graphs with random
 * weights, compiled to .axm in a temporary file. */

#ifndef __SIMNPU_TEST_UTIL_H__
#define __SIMNPU_TEST_UTIL_H__

#include "simnpu-private.h"

#include <glib/gstdio.h>
#include <string.h>
#include <unistd.h>

/* A conv2d graph: input [1, size, size, in_ch] i8, one kxk conv (same
 * padding) to out_ch channels with relu, output i8. Weights random from
 * seed, inline base64. */
static inline gchar *
test_conv_graph_json (const char *name, int size, int in_ch, int out_ch,
    int k, guint32 seed)
{
  GRand *rng = g_rand_new_with_seed (seed);
  size_t wn = (size_t) out_ch * k * k * in_ch, i;
  int8_t *w = g_malloc (wn);
  int32_t *b = g_new (int32_t, out_ch);
  gchar *w64, *b64, *json;

  for (i = 0; i < wn; i++)
    w[i] = (int8_t) g_rand_int_range (rng, -127, 128);
  for (i = 0; i < (size_t) out_ch; i++)
    b[i] = g_rand_int_range (rng, -1000, 1000);
  w64 = g_base64_encode ((const guchar *) w, wn);
  b64 = g_base64_encode ((const guchar *) b, out_ch * sizeof (int32_t));
  json = g_strdup_printf ("{\"format\": \"simnpu-graph\", \"version\": 1, "
      "\"name\": \"%s\","
      "\"inputs\": [{\"name\": \"x\", \"shape\": [1, %d, %d, %d], "
      "\"dtype\": \"i8\", \"scale\": 0.05, \"zero_point\": 3}],"
      "\"outputs\": [{\"name\": \"y\", \"dtype\": \"i8\", "
      "\"scale\": 0.1, \"zero_point\": -5}],"
      "\"ops\": [{\"name\": \"conv\", \"type\": \"conv2d\", "
      "\"inputs\": [\"x\"], \"outputs\": [\"y\"], "
      "\"attrs\": {\"kernel\": [%d, %d], \"pad\": [%d, %d, %d, %d], "
      "\"out_channels\": %d, \"activation\": \"relu\"}, "
      "\"weights\": {\"scale\": 0.01, \"data\": {\"base64\": \"%s\"}}, "
      "\"bias\": {\"data\": {\"base64\": \"%s\"}}}]}", name, size, size,
      in_ch, k, k, k / 2, k / 2, k / 2, k / 2, out_ch, w64, b64);
  g_free (w);
  g_free (b);
  g_free (w64);
  g_free (b64);
  g_rand_free (rng);
  return json;
}

/* Compiles JSON to an .axm for profile; returns the file name (to
 * g_unlink and g_free) or NULL with error set. */
static inline gchar *
test_compile_json (const char *json, const char *profile, bool estimate_only,
    simnpu_error * error)
{
  simnpu__graph *g = NULL;
  simnpu__profile p;
  simnpu__schedule s = { 0 };
  gchar *path = NULL;
  int fd;

  if (simnpu__profile_parse (profile, &p, error) < 0
      || simnpu__graph_load_json_data (json, strlen (json), ".",
          estimate_only, &g, error) < 0
      || simnpu__graph_prepare (g, error) < 0
      || simnpu__schedule_build (g, &p, &s, error) < 0)
    goto out;
  fd = g_file_open_tmp ("simnpu-test-XXXXXX.axm", &path, NULL);
  g_assert_cmpint (fd, >=, 0);
  close (fd);
  if (simnpu__axm_write (g, &s, path, error) < 0) {
    g_unlink (path);
    g_clear_pointer (&path, g_free);
  }
out:
  simnpu__schedule_clear (&s);
  simnpu__graph_free (g);
  return path;
}

#endif /* __SIMNPU_TEST_UTIL_H__ */
