/* gst-ax
 * Copyright (C) 2026 gst-ax developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

/* Whole compiled models, fast kernels against portable ones: each model
 * given on the command line (.axm) runs its device graph on the same
 * random inputs twice, once as the runtime runs it (packed weights, AVX2
 * kernels where the CPU has them) and once with every op on its portable
 * kernel; every tensor of the arena must be the same byte for byte. This
 * covers the real layer shapes, the fused activations and the chains
 * that the per-kernel tests in test-kernels-{conv,vector}.c draw at random. */

#include "simnpu-private.h"

#include <string.h>

#define INPUT_SEED 20261201
#define N_FRAMES 2

static const char *const *model_paths;
static int n_models;
/* ops on packed fast kernels over all the models */
static unsigned total_fast;

static void
fill_random (int8_t * p, size_t n, GRand * rng)
{
  size_t i;

  for (i = 0; i < n; i++)
    p[i] = (int8_t) g_rand_int_range (rng, INT8_MIN, INT8_MAX + 1);
}

/* Runs g on arena with the fast kernels, or with the portable ones when
 * portable (the packed weights hidden from the conv dispatch and the
 * memory-bound kernels' AVX2 forms off). */
static void
run_graph (simnpu__graph * g, uint8_t * arena, int8_t * scratch, bool portable)
{
  int8_t **packed = g_new0 (int8_t *, g->n_ops);
  unsigned i;

  for (i = 0; i < g->n_ops && portable; i++) {
    packed[i] = g->ops[i].weights_packed;
    g->ops[i].weights_packed = NULL;
  }
  simnpu__kernels_disable_avx2 (portable);
  g_assert_cmpint (simnpu__graph_run (g, arena, scratch), ==, 0);
  simnpu__kernels_disable_avx2 (false);
  for (i = 0; i < g->n_ops && portable; i++)
    g->ops[i].weights_packed = packed[i];
  g_free (packed);
}

static void
test_model (gconstpointer data)
{
  const char *path = data;
  gchar *contents = NULL;
  gsize len = 0;
  simnpu__graph *g = NULL;
  simnpu__schedule sched = { 0 };
  simnpu_error error = { 0 };
  uint8_t *fast, *portable;
  int8_t *scratch;
  GRand *rng = g_rand_new_with_seed (INPUT_SEED);
  unsigned i, n_fast = 0;
  int f;

  if (!g_file_get_contents (path, &contents, &len, NULL)) {
    g_test_skip ("the model was not built");
    g_rand_free (rng);
    return;
  }
  g_assert_cmpint (simnpu__axm_read (contents, len, &g, &sched, &error), ==, 0);
  /* every tensor is compared, not only the outputs */
  g->keep_tensors = true;
  g_assert_cmpint (simnpu__graph_prepare (g, &error), ==, 0);
  if (g->estimate_only) {
    /* a timing-only model has no weights to compute with */
    g_test_skip ("the model is timing-only");
    goto out;
  }
  for (i = 0; i < g->n_ops; i++)
    n_fast += g->ops[i].weights_packed != NULL;
  total_fast += n_fast;
  if (!__builtin_cpu_supports ("avx2"))
    g_test_message ("no AVX2: both runs are portable");
  fast = g_malloc0 (MAX (g->arena_bytes, 1));
  portable = g_malloc0 (MAX (g->arena_bytes, 1));
  scratch = g_malloc0 (MAX (g->scratch_bytes, 1));
  for (f = 0; f < N_FRAMES; f++) {
    for (i = 0; i < g->n_inputs; i++) {
      const simnpu__tensor *t = &g->tensors[g->inputs[i]];
      fill_random ((int8_t *) fast + t->offset, simnpu__tensor_bytes (t), rng);
      memcpy (portable + t->offset, fast + t->offset, simnpu__tensor_bytes (t));
    }
    run_graph (g, fast, scratch, false);
    run_graph (g, portable, scratch, true);
    for (i = 0; i < g->n_ops; i++) {
      const simnpu__op *op = &g->ops[i];
      const simnpu__tensor *t = &g->tensors[op->outputs[0]];
      size_t n = simnpu__tensor_bytes (t), k;
      if (memcmp (fast + t->offset, portable + t->offset, n) == 0)
        continue;
      for (k = 0; fast[t->offset + k] == portable[t->offset + k]; k++);
      g_error ("%s, frame %d: op %u (%s, %s) output byte %zu is %d with "
          "the fast kernels, %d with the portable ones", path, f, i,
          simnpu__op_type_name (op->type), op->name, k,
          (int8_t) fast[t->offset + k], (int8_t) portable[t->offset + k]);
    }
  }
  g_test_message ("%s: %u of %u ops on packed fast kernels, outputs equal",
      path, n_fast, g->n_ops);
  g_free (fast);
  g_free (portable);
  g_free (scratch);
out:
  g_rand_free (rng);
  simnpu__graph_free (g);
  simnpu__schedule_clear (&sched);
  g_free (contents);
}

/* runs last: on an AVX2 machine the real models' convs must have run on
 * the fast kernels, or the comparisons above compared portable with
 * portable */
static void
test_any_fast (void)
{
  if (!__builtin_cpu_supports ("avx2")) {
    g_test_skip ("no AVX2: no fast kernels");
    return;
  }
  if (n_models == 0) {
    g_test_skip ("no model given");
    return;
  }
  g_assert_cmpuint (total_fast, >, 0);
}

int
main (int argc, char **argv)
{
  int i;

  g_test_init (&argc, &argv, NULL);
  model_paths = (const char *const *) argv + 1;
  n_models = argc - 1;
  for (i = 0; i < n_models; i++) {
    gchar *base = g_path_get_basename (model_paths[i]);
    gchar *name = g_strdup_printf ("/simnpu/fast-models/%s", base);
    g_test_add_data_func (name, model_paths[i], test_model);
    g_free (name);
    g_free (base);
  }
  g_test_add_func ("/simnpu/fast-models/any-fast", test_any_fast);
  return g_test_run ();
}
