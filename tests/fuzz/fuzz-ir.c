/* gst-ax
 * Copyright (C) 2026 gst-ax developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

/* libFuzzer target: the float IR's binary form (host sections of the
 * .axm). An accepted graph must serialise back to the same bytes, and
 * small ones must run through the reference executor. */

#include "fuzz-common.h"
#include "ir/ir.h"

/* graphs run only under these bounds (elements of any tensor, multiply-
 * accumulates of the whole run, window attributes) */
#define FUZZ_MAX_ELEMENTS 4096
#define FUZZ_MAX_COST 1000000
#define FUZZ_MAX_WINDOW 16

static bool
small_enough (const simnpu__ir_graph * g)
{
  uint64_t cost = 0;
  unsigned i, k;

  for (i = 0; i < g->n_tensors; i++)
    if (simnpu__ir_tensor_elements (&g->tensors[i]) > FUZZ_MAX_ELEMENTS)
      return false;
  for (i = 0; i < g->n_nodes; i++) {
    const simnpu__ir_node *n = &g->nodes[i];
    const simnpu__ir_attrs *a = &n->attrs;
    for (k = 0; k < 2; k++)
      if (a->kernel[k] > FUZZ_MAX_WINDOW || a->stride[k] > FUZZ_MAX_WINDOW
          || a->dilation[k] > FUZZ_MAX_WINDOW)
        return false;
    for (k = 0; k < 4; k++)
      if (a->pads[k] > FUZZ_MAX_WINDOW)
        return false;
    cost += simnpu__ir_op_get (n->op)->cost (g, n);
    if (cost > FUZZ_MAX_COST)
      return false;
  }
  return true;
}

int
LLVMFuzzerTestOneInput (const uint8_t * data, size_t size)
{
  simnpu_error error = { 0 };
  simnpu__ir_graph *g = NULL, *g2 = NULL;
  GByteArray *a, *b;
  int ret;

  ret = simnpu__ir_deserialize (data, size, &g, &error);
  if (ret < 0) {
    if (error.code != ret || error.message[0] == '\0' || g != NULL)
      abort ();
    return 0;
  }
  a = g_byte_array_new ();
  b = g_byte_array_new ();
  simnpu__ir_serialize (g, a);
  if (simnpu__ir_deserialize (a->data, a->len, &g2, &error) < 0)
    abort ();
  simnpu__ir_serialize (g2, b);
  if (a->len != b->len || memcmp (a->data, b->data, a->len) != 0)
    abort ();
  if (small_enough (g)) {
    simnpu__ir_exec *x = simnpu__ir_exec_new (g, &error);
    /* zeroed inputs; a kernel may refuse (gather index) but never crash */
    if (x != NULL) {
      simnpu__ir_exec_run (x, 0, g->n_nodes, &error);
      simnpu__ir_exec_free (x);
    }
  }
  g_byte_array_unref (a);
  g_byte_array_unref (b);
  simnpu__ir_graph_free (g);
  simnpu__ir_graph_free (g2);
  return 0;
}
