/* gst-ax
 * Copyright (C) 2026 gst-ax developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

/* libFuzzer target: the JSON graph loader, then what simnpu-compile does
 * with an accepted graph (prepare, schedule for both profiles). */

#include "fuzz-common.h"

int
LLVMFuzzerTestOneInput (const uint8_t * data, size_t size)
{
  static const char *const profiles[] = { "metis", "torq" };
  simnpu_error error = { 0 };
  simnpu__graph *g = NULL;
  unsigned i;
  int ret;

  ret = simnpu__graph_load_json_data ((const char *) data, size, ".", false,
      &g, &error);
  if (ret < 0) {
    if (error.code != ret || error.message[0] == '\0')
      abort ();
    return 0;
  }
  if (simnpu__graph_prepare (g, &error) == 0) {
    for (i = 0; i < G_N_ELEMENTS (profiles); i++) {
      simnpu__profile p;
      simnpu__schedule s = { 0 };
      if (simnpu__profile_parse (profiles[i], &p, &error) < 0)
        abort ();
      if (simnpu__schedule_build (g, &p, &s, &error) < 0)
        abort ();
      if (s.device_ns == 0)
        abort ();
      simnpu__schedule_clear (&s);
    }
  } else if (error.message[0] == '\0') {
    abort ();
  }
  simnpu__graph_free (g);
  return 0;
}
