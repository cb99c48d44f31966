/* gst-ax
 * Copyright (C) 2026 gst-ax developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

/* Writes the host-sections test model (see host-model.h) to the path
 * given, for the axinference test and the fuzz seed. */

#include "host-model.h"

#include <stdio.h>
#include <stdlib.h>

int
main (int argc, char **argv)
{
  simnpu_error error = { 0 };

  if (argc != 2) {
    fprintf (stderr, "usage: %s OUTPUT.axm\n", argv[0]);
    return EXIT_FAILURE;
  }
  if (host_model_write (argv[1], &error) < 0) {
    fprintf (stderr, "%s: %s\n", argv[0], error.message);
    return EXIT_FAILURE;
  }
  return EXIT_SUCCESS;
}
