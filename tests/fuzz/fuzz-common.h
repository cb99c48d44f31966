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
#include "ir/ir.h"

#include <stdlib.h>
#include <string.h>

#define FUZZ_JOB_TIMEOUT_NS (G_GINT64_CONSTANT (20) * 1000000000)

int LLVMFuzzerTestOneInput (const uint8_t * data, size_t size);

/* Runs a host section (if any) on zeroed buffers: the executor runs on
 * whatever IR graphs get through validation. Runs never abort: a float
 * kernel may refuse a graph (an error, not a crash). */
static inline void
fuzz_run_section (simnpu_model * model, simnpu_section_kind kind,
    size_t max_bytes)
{
  simnpu_host_section *s = simnpu_model_get_host_section (model, kind);
  simnpu_host_section_info info;
  simnpu_tensor_spec spec;
  simnpu_error error = { 0 };
  void *in[SIMNPU_IR_MAX_INPUTS] = { NULL };
  void *out[SIMNPU_IR_MAX_OUTPUTS] = { NULL };
  size_t total = 0;
  unsigned j;

  if (s == NULL)
    return;
  simnpu_host_section_get_info (s, &info);
  for (j = 0; j < info.n_inputs; j++) {
    simnpu_host_section_get_input (s, j, &spec, NULL);
    total += spec.size_bytes;
  }
  for (j = 0; j < info.n_outputs; j++) {
    simnpu_host_section_get_output (s, j, &spec, NULL);
    total += spec.size_bytes;
  }
  if (total > max_bytes)
    return;
  for (j = 0; j < info.n_inputs; j++) {
    simnpu_host_section_get_input (s, j, &spec, NULL);
    in[j] = calloc (1, MAX (spec.size_bytes, 1));
  }
  for (j = 0; j < info.n_outputs; j++) {
    simnpu_host_section_get_output (s, j, &spec, NULL);
    out[j] = calloc (1, MAX (spec.size_bytes, 1));
  }
  if (simnpu_host_section_run (s, (const void *const *) in, out, &error) < 0
      && (error.code >= 0 || error.message[0] == '\0'))
    abort ();
  for (j = 0; j < info.n_inputs; j++)
    free (in[j]);
  for (j = 0; j < info.n_outputs; j++)
    free (out[j]);
}

/* Runs one job with zeroed device inputs when the buffers stay under
 * max_bytes, and the model's host sections on zeroed buffers. */
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
  fuzz_run_section (model, SIMNPU_SECTION_PREAMBLE, max_bytes);
  fuzz_run_section (model, SIMNPU_SECTION_POSTAMBLE, max_bytes);
  for (i = 0; i < info.n_device_inputs; i++) {
    simnpu_model_get_device_input (model, i, &spec);
    total += spec.size_bytes;
  }
  for (i = 0; i < info.n_device_outputs; i++) {
    simnpu_model_get_device_output (model, i, &spec);
    total += spec.size_bytes;
  }
  if (total > max_bytes)
    return;
  for (i = 0; i < info.n_device_inputs; i++) {
    simnpu_model_get_device_input (model, i, &spec);
    in[i].size_bytes = spec.size_bytes;
    in[i].data = calloc (1, spec.size_bytes);
  }
  for (i = 0; i < info.n_device_outputs; i++) {
    simnpu_model_get_device_output (model, i, &spec);
    out[i].size_bytes = spec.size_bytes;
    out[i].data = calloc (1, spec.size_bytes);
  }
  if (simnpu_job_submit (model, in, info.n_device_inputs, out,
          info.n_device_outputs, NULL, NULL, &job, &error) < 0)
    abort ();
  if (simnpu_job_wait (job, FUZZ_JOB_TIMEOUT_NS, NULL) != 0)
    abort ();
  simnpu_job_free (job);
  for (i = 0; i < info.n_device_inputs; i++)
    free ((void *) in[i].data);
  for (i = 0; i < info.n_device_outputs; i++)
    free (out[i].data);
}

#endif /* __SIMNPU_FUZZ_COMMON_H__ */
