/* gst-ax
 * Copyright (C) 2026 gst-ax developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

/* libFuzzer target: simnpu-run-module's --input specification strings
 * (DIMSxDTYPE=VALUE or DIMSxDTYPE=@FILE), parsed by the tool's own
 * parse_input() against a model input whose shape comes from the data.
 *
 * Input: byte 0 the dtype, byte 1 the rank, bytes 2..5 the dimensions
 * (each 1 to FUZZ_MAX_DIM), then the spec string up to a newline; what
 * follows the newline is the contents of the file an @FILE spec names
 * (any path after the @ is replaced by a scratch file, so that the
 * fuzzer never opens files of its own choosing). */

#include "fuzz-common.h"

#include <glib/gstdio.h>
#include <unistd.h>

/* the tool itself, with its main renamed */
int simnpu_run_module_main (int argc, char **argv);
#define main simnpu_run_module_main
#include "../../sim-npu/tools/simnpu-run-module.c"
#undef main

#define FUZZ_HEADER_BYTES (2 + SIMNPU_MAX_DIMS)
#define FUZZ_MAX_DIM 16
#define FUZZ_MSG_SIZE 512
#define FUZZ_N_DTYPES 3

static gchar *scratch_path;

static void
remove_scratch (void)
{
  g_unlink (scratch_path);
}

static const char *
scratch_file (const uint8_t * data, size_t size)
{
  if (scratch_path == NULL) {
    int fd = g_file_open_tmp ("fuzz-input-XXXXXX", &scratch_path, NULL);

    if (fd < 0)
      abort ();
    close (fd);
    atexit (remove_scratch);
  }
  if (!g_file_set_contents (scratch_path, (const gchar *) data,
          (gssize) size, NULL))
    abort ();
  return scratch_path;
}

int
LLVMFuzzerTestOneInput (const uint8_t * data, size_t size)
{
  simnpu_tensor_spec spec = { 0 };
  const uint8_t *text, *nl, *file_data = NULL;
  size_t text_len, file_len = 0, count = 1;
  char msg[FUZZ_MSG_SIZE];
  gchar *arg, *at;
  gboolean from_file;
  void *buf;
  unsigned i;

  if (size < FUZZ_HEADER_BYTES)
    return 0;
  spec.name = "input";
  spec.dtype = (simnpu_dtype) (data[0] % FUZZ_N_DTYPES);
  spec.n_dims = 1 + data[1] % SIMNPU_MAX_DIMS;
  for (i = 0; i < spec.n_dims; i++) {
    spec.dims[i] = 1 + data[2 + i] % FUZZ_MAX_DIM;
    count *= (size_t) spec.dims[i];
  }
  spec.scale = 1.0f;
  spec.size_bytes = count * simnpu_dtype_size (spec.dtype);

  text = data + FUZZ_HEADER_BYTES;
  text_len = size - FUZZ_HEADER_BYTES;
  nl = memchr (text, '\n', text_len);
  if (nl != NULL) {
    file_data = nl + 1;
    file_len = (size_t) (text + text_len - file_data);
    text_len = (size_t) (nl - text);
  }
  arg = g_strndup ((const gchar *) text, text_len);
  at = strchr (arg, '=');
  from_file = at != NULL && at[1] == '@';
  if (from_file) {
    gchar *spec_arg;

    at[1] = '\0';
    spec_arg = g_strconcat (arg, "@", scratch_file (file_data ? file_data :
            (const uint8_t *) "", file_len), NULL);
    g_free (arg);
    arg = spec_arg;
  }
  /* exactly the tensor's size: ASan catches a write past it */
  buf = g_malloc0 (spec.size_bytes);
  msg[0] = '\0';
  /* a refusal always says why: in @msg, or on stderr for a file (the
   * tool's file reader prints its own message) */
  if (parse_input (arg, &spec, buf, msg, sizeof (msg)) < 0) {
    if (msg[0] == '\0' && !from_file)
      abort ();
  }
  g_free (buf);
  g_free (arg);
  return 0;
}
