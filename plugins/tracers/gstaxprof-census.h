/* gst-ax
 * Copyright (C) 2026 gst-ax developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

/* What the census (gstaxprof-census.c) hands the report: each thread's
 * usage over a run and whom it is attributed to. What the hooks and the
 * thread state call of it is in gstaxprof-private.h. */

#ifndef __GST_AX_PROF_CENSUS_H__
#define __GST_AX_PROF_CENSUS_H__

#include "gstaxprof-private.h"

G_BEGIN_DECLS

typedef enum
{
  /* not attributed to anyone */
  CENSUS_OTHER,
  /* created while an element's call or state change ran, with its name */
  CENSUS_WORKER,
  /* a GLib thread pool's ("pool-*"), shared between elements */
  CENSUS_POOL,
  /* sim-npu's device threads ("simnpu-*") */
  CENSUS_SIMULATOR,
  /* runs the pad hooks: a streaming or application thread */
  CENSUS_HOOKED,
} CensusKind;

/* A thread's usage over a run, for the report */
typedef struct
{
  gint tid;
  gchar name[TRACE_THREAD_NAME_SIZE];
  CensusKind kind;
  ElementState *owner;
  guint64 cpu_ns;
  guint64 faults;
} ThreadUse;

void axprof_census_snapshot (PipelineState * p);
void axprof_census_account (PipelineState * p, gboolean alone, GArray * out);
guint64 axprof_pool_unattributed_ns (PipelineState * p);
void axprof_pool_share (ElementState * ei, guint64 * cpu_ns,
    guint * threads);

G_END_DECLS
#endif /* __GST_AX_PROF_CENSUS_H__ */
