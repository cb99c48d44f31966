/* gst-ax
 * Copyright (C) 2026 gst-ax developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */


/* The clock of the simulation and of the runtime's timestamps. */

#include "base/base.h"

#include <time.h>

uint64_t
simnpu__monotonic_ns (void)
{
  struct timespec ts;

  clock_gettime (CLOCK_MONOTONIC, &ts);
  return (uint64_t) ts.tv_sec * SIMNPU_NS_PER_S + (uint64_t) ts.tv_nsec;
}
