/* gst-ax
 * Copyright (C) 2026 gst-ax developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

/* The front-end step shared by simnpu-compile and the tests: pick the
 * front-end by the file, cut, fold, cancel layout transposes, fuse,
 * prune. */

#include "compiler.h"

#include <string.h>

simnpu__model_format
simnpu__model_format_of (const char *path)
{
  gchar *head = NULL;
  gsize len = 0;
  simnpu__model_format k = SIMNPU_MODEL_FORMAT_UNKNOWN;

  if (g_str_has_suffix (path, ".onnx"))
    return SIMNPU_MODEL_FORMAT_ONNX;
  if (!g_file_get_contents (path, &head, &len, NULL))
    return SIMNPU_MODEL_FORMAT_UNKNOWN;
  if (g_strstr_len (head, len, "\"modelTopology\"") != NULL)
    k = SIMNPU_MODEL_FORMAT_TFJS;
  else if (g_strstr_len (head, len, "\"simnpu-graph\"") != NULL)
    k = SIMNPU_MODEL_FORMAT_SIMNPU_JSON;
  else if (len > 0 && head[0] != '{')
    k = SIMNPU_MODEL_FORMAT_ONNX;
  g_free (head);
  return k;
}

int
simnpu__import_model (const char *path, const char *inputs,
    const char *outputs, simnpu__ir_graph ** out, simnpu_error * error)
{
  simnpu__model_format k = simnpu__model_format_of (path);
  simnpu__ir_graph *g = NULL;
  int ret;

  *out = NULL;
  if (k == SIMNPU_MODEL_FORMAT_ONNX)
    ret = simnpu__onnx_load_file (path, &g, error);
  else if (k == SIMNPU_MODEL_FORMAT_TFJS)
    ret = simnpu__tfjs_load_file (path, &g, error);
  else
    return simnpu__set_error (error, SIMNPU_EFORMAT, "%s: not an ONNX model "
        "nor a TF.js graph model (model.json with modelTopology)", path);
  if (ret == 0 && inputs)
    ret = simnpu__ir_cut_inputs (g, inputs, error);
  if (ret == 0 && outputs)
    ret = simnpu__ir_cut_outputs (g, outputs, error);
  if (ret == 0)
    ret = simnpu__ir_fold_constants (g, error);
  if (ret == 0)
    ret = simnpu__ir_cancel_transposes (g, error);
  if (ret == 0)
    ret = simnpu__ir_fuse (g, error);
  if (ret == 0)
    ret = simnpu__ir_prune (g, error);
  if (ret < 0) {
    simnpu__ir_graph_free (g);
    return ret;
  }
  *out = g;
  return 0;
}
