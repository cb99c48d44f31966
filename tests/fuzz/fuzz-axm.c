/* gst-ax
 * Copyright (C) 2026 gst-ax developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

/* libFuzzer target: the .axm loader, and a job on every model it
 * accepts, so that the interpreter runs on whatever graphs get through
 * validation. */

#include "fuzz-common.h"

/* keeps one fuzz input fast: bigger models are loaded but not run */
#define MAX_RUN_MACS 2000000
#define MAX_RUN_BYTES (1 << 20)

int
LLVMFuzzerTestOneInput (const uint8_t * data, size_t size)
{
  static simnpu_device *dev;
  simnpu_error error = { 0 };
  simnpu_model *model = NULL;
  simnpu_model_info info;
  int ret;

  if (dev == NULL) {
    if (simnpu_device_open ("metis", &dev, &error) < 0)
      abort ();
    simnpu_device_set_time_scale (dev, 0.0);
  }
  ret = simnpu_model_load_from_memory (dev, data, size, &model, &error);
  if (ret < 0) {
    /* every rejection says what was wrong */
    if (error.code != ret || error.message[0] == '\0')
      abort ();
    return 0;
  }
  simnpu_model_get_info (model, &info);
  if (!info.estimate_only && info.total_macs <= MAX_RUN_MACS)
    fuzz_run_model (model, MAX_RUN_BYTES);
  simnpu_model_unload (model);
  return 0;
}
