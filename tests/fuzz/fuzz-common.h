/* gst-ax
 * Copyright (C) 2026 gst-ax developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

#ifndef __SIMNPU_FUZZ_COMMON_H__
#define __SIMNPU_FUZZ_COMMON_H__

#include "simnpu-private.h"

#include <stdlib.h>
#include <string.h>

#define FUZZ_JOB_TIMEOUT_NS (G_GINT64_CONSTANT (20) * 1000000000)

int LLVMFuzzerTestOneInput (const uint8_t * data, size_t size);

/* Runs one job with zeroed inputs when the buffers stay under max_bytes;
 * any failure of an accepted model is a bug. */
static inline void
fuzz_run_model (simnpu_model * model, size_t max_bytes)
{
  simnpu_model_info info;
  simnpu_input_buffer in[SIMNPU_MAX_IO];
  simnpu_output_buffer out[SIMNPU_MAX_IO];
  simnpu_tensor_spec spec;
  simnpu_error error = { 0 };
  simnpu_job *job = NULL;
  size_t total = 0;
  unsigned i;

  simnpu_model_get_info (model, &info);
  for (i = 0; i < info.n_inputs; i++) {
    simnpu_model_get_input (model, i, &spec);
    total += spec.size_bytes;
  }
  for (i = 0; i < info.n_outputs; i++) {
    simnpu_model_get_output (model, i, &spec);
    total += spec.size_bytes;
  }
  if (total > max_bytes)
    return;
  for (i = 0; i < info.n_inputs; i++) {
    simnpu_model_get_input (model, i, &spec);
    in[i].size_bytes = spec.size_bytes;
    in[i].data = calloc (1, spec.size_bytes);
  }
  for (i = 0; i < info.n_outputs; i++) {
    simnpu_model_get_output (model, i, &spec);
    out[i].size_bytes = spec.size_bytes;
    out[i].data = calloc (1, spec.size_bytes);
  }
  if (simnpu_job_submit (model, in, info.n_inputs, out, info.n_outputs, NULL,
          NULL, &job, &error) < 0)
    abort ();
  if (simnpu_job_wait (job, FUZZ_JOB_TIMEOUT_NS, NULL) != 0)
    abort ();
  simnpu_job_free (job);
  for (i = 0; i < info.n_inputs; i++)
    free ((void *) in[i].data);
  for (i = 0; i < info.n_outputs; i++)
    free (out[i].data);
}

#endif /* __SIMNPU_FUZZ_COMMON_H__ */
