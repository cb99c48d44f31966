/* gst-ax
 * Copyright (C) 2026 gst-ax developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

/* Every layer's interface, for the tools, tests, fuzzers and benchmarks
 * of libsimnpu; no file of the library includes it (each includes the
 * headers of the layers it stands on, see docs/architecture.md). Not
 * installed. */

#ifndef __SIMNPU_PRIVATE_H__
#define __SIMNPU_PRIVATE_H__

#include "base/base.h"
#include "base/ops.h"
#include "kernels/kernels.h"
#include "graph/graph.h"
#include "device/device.h"
#include "format/format.h"
#include "runtime/runtime.h"

#endif /* __SIMNPU_PRIVATE_H__ */
