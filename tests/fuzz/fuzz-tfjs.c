/* gst-ax
 * Copyright (C) 2026 gst-ax developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

/* libFuzzer target: the TF.js graph-model loader on model.json text whose
 * every weight shard is one fixed buffer, then what the compiler does
 * with an accepted graph (fusion, pruning, a run on small graphs). */

#include "fuzz-common.h"
#include "compiler.h"

/* the seeds' manifests need exactly this many bytes per group: small
 * floats first, then a byte ramp (0, 1, 2, ...) that uint8-quantised
 * int32 weights turn into the integers they need, then the paddings of
 * a [4, 2] Pad of the spatial axes of NHWC by 1 */
#define FUZZ_SHARD_BYTES 256
#define FUZZ_FLOAT_BYTES 192
#define FUZZ_PADS_BYTES 8
/* floats cycle through (i % FUZZ_FLOAT_CYCLE - FUZZ_FLOAT_MID) / 4 */
#define FUZZ_FLOAT_CYCLE 7
#define FUZZ_FLOAT_MID 3
#define FUZZ_FLOAT_STEP 0.25f
/* graphs with more tensor bytes than this are not run */
#define FUZZ_MAX_RUN_BYTES (1 << 20)

static GBytes *
fixed_shard (const char *path, gpointer user_data, GError ** error)
{
  static guint8 buf[FUZZ_SHARD_BYTES];
  static bool filled;
  unsigned i;

  if (!filled) {
    for (i = 0; i + 4 <= FUZZ_FLOAT_BYTES; i += 4) {
      float f = (float) ((int) (i / 4 % FUZZ_FLOAT_CYCLE) - FUZZ_FLOAT_MID)
          * FUZZ_FLOAT_STEP;
      memcpy (buf + i, &f, 4);
    }
    for (i = FUZZ_FLOAT_BYTES; i < FUZZ_SHARD_BYTES - FUZZ_PADS_BYTES; i++)
      buf[i] = (guint8) (i - FUZZ_FLOAT_BYTES);
    for (i = 0; i < FUZZ_PADS_BYTES; i++)
      buf[FUZZ_SHARD_BYTES - FUZZ_PADS_BYTES + i] = i >= 2 && i < 6;
    filled = true;
  }
  return g_bytes_new_static (buf, sizeof buf);
}

static void
run_small (const simnpu__ir_graph * g)
{
  simnpu_error error = { 0 };
  simnpu__ir_exec *x;
  size_t total = 0;
  unsigned i;

  for (i = 0; i < g->n_tensors; i++)
    total += simnpu__ir_tensor_bytes (&g->tensors[i]);
  if (total > FUZZ_MAX_RUN_BYTES)
    return;
  x = simnpu__ir_exec_new (g, &error);
  if (x == NULL)
    return;
  for (i = 0; i < g->n_inputs; i++)
    memset (simnpu__ir_exec_data (x, g->inputs[i]), 0,
        simnpu__ir_tensor_bytes (&g->tensors[g->inputs[i]]));
  if (simnpu__ir_exec_run (x, 0, g->n_nodes, &error) < 0
      && error.message[0] == '\0')
    abort ();
  simnpu__ir_exec_free (x);
}

int
LLVMFuzzerTestOneInput (const uint8_t * data, size_t size)
{
  simnpu_error error = { 0 };
  simnpu__ir_graph *g = NULL, *f;
  int ret;

  ret = simnpu__tfjs_load_data ((const char *) data, size, fixed_shard, NULL,
      &g, &error);
  if (ret < 0) {
    if (g != NULL || error.code != ret || error.message[0] == '\0')
      abort ();
    return 0;
  }
  if (g->n_outputs == 0)
    abort ();
  /* an accepted graph is consistent: the passes must take it */
  f = simnpu__ir_graph_copy (g);
  if (simnpu__ir_fuse (f, &error) < 0 || simnpu__ir_prune (f, &error) < 0)
    abort ();
  run_small (f);
  simnpu__ir_graph_free (f);
  run_small (g);
  simnpu__ir_graph_free (g);
  return 0;
}
