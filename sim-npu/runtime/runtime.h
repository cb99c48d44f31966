/* gst-ax
 * Copyright (C) 2026 gst-ax developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

/* What the runtime (runtime/) shows below the public API: for the tests. */

#ifndef __SIMNPU_RUNTIME_H__
#define __SIMNPU_RUNTIME_H__

#include "base/base.h"

G_BEGIN_DECLS

/* Allocations made on the path of a job (runtime-job.c): the job records
 * and their buffers, the host sections' executors. Flat once a stream is in
 * its steady state; for the tests. */
SIMNPU_INTERNAL void simnpu__count_job_path_allocation (void);
SIMNPU_INTERNAL unsigned simnpu__job_path_allocations (void);

G_END_DECLS

#endif /* __SIMNPU_RUNTIME_H__ */
