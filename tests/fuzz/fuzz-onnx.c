/* gst-ax
 * Copyright (C) 2026 gst-ax developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

/* libFuzzer target: the ONNX front-end (ModelProto and TensorProto
 * parsing, import, shape inference, folding), then the transpose
 * cancellation pass on an accepted graph. */

#include "fuzz-common.h"
#include "compiler.h"

int
LLVMFuzzerTestOneInput (const uint8_t * data, size_t size)
{
  simnpu_error error = { 0 };
  simnpu__ir_graph *g = NULL;
  simnpu__ir_dtype dtype;
  unsigned rank;
  int64_t dims[SIMNPU_IR_MAX_RANK];
  void *tdata = NULL;
  char *name = NULL;
  int ret;

  ret = simnpu__onnx_load_data (data, size, &g, &error);
  if (ret < 0) {
    if (error.code != ret || error.message[0] == '\0' || g != NULL)
      abort ();
  } else {
    /* the pass keeps a valid graph valid */
    if (simnpu__ir_cancel_transposes (g, &error) < 0)
      abort ();
    simnpu__ir_graph_free (g);
  }

  memset (&error, 0, sizeof error);
  ret = simnpu__onnx_read_tensor (data, size, &name, &dtype, &rank, dims,
      &tdata, &error);
  if (ret < 0) {
    if (error.code != ret || error.message[0] == '\0')
      abort ();
  } else {
    if (rank > SIMNPU_IR_MAX_RANK || dtype >= SIMNPU_IR_N_DTYPES
        || tdata == NULL || name == NULL)
      abort ();
    g_free (tdata);
    g_free (name);
  }
  return 0;
}
