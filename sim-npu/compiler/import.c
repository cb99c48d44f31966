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
#include "simnpu-file.h"

#include <errno.h>
#include <string.h>
#include <unistd.h>

/* enough to tell JSON from a protobuf */
#define FORMAT_HEAD_BYTES 64

/* Whether the first bytes of a file open a JSON object (after blanks and
 * a UTF-8 byte order mark); an ONNX model starts with a protobuf tag. */
static gboolean
starts_json (const guint8 * head, gsize len)
{
  static const guint8 bom[] = { 0xef, 0xbb, 0xbf };
  gsize i = 0;

  if (len >= sizeof bom && memcmp (head, bom, sizeof bom) == 0)
    i = sizeof bom;
  while (i < len && (head[i] == ' ' || head[i] == '\t' || head[i] == '\r'
          || head[i] == '\n'))
    i++;
  return i == len || head[i] == '{';
}

simnpu__model_format
simnpu__model_format_of (const char *path)
{
  guint8 head[FORMAT_HEAD_BYTES];
  gchar *text = NULL;
  gsize len = 0;
  gssize n;
  simnpu__model_format k = SIMNPU_MODEL_FORMAT_UNKNOWN;
  int fd;

  if (g_str_has_suffix (path, ".onnx"))
    return SIMNPU_MODEL_FORMAT_ONNX;
  /* a file that is not regular or cannot be read is left to the loader
   * the caller then picks, which says why */
  fd = simnpu__file_open (path, "model", NULL);
  if (fd < 0)
    return SIMNPU_MODEL_FORMAT_UNKNOWN;
  do
    n = read (fd, head, sizeof head);
  while (n < 0 && errno == EINTR);
  close (fd);
  if (n <= 0)
    return SIMNPU_MODEL_FORMAT_UNKNOWN;
  if (!starts_json (head, (gsize) n))
    return SIMNPU_MODEL_FORMAT_ONNX;
  /* JSON: read whole for the key that tells its format */
  if (!simnpu__file_read (path, "model", SIMNPU_FILE_MAX_JSON_BYTES, &text,
          &len, NULL))
    return SIMNPU_MODEL_FORMAT_UNKNOWN;
  if (g_strstr_len (text, len, "\"modelTopology\"") != NULL)
    k = SIMNPU_MODEL_FORMAT_TFJS;
  else if (g_strstr_len (text, len, "\"simnpu-graph\"") != NULL)
    k = SIMNPU_MODEL_FORMAT_SIMNPU_JSON;
  g_free (text);
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
