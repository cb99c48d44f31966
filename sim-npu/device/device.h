/* gst-ax
 * Copyright (C) 2026 gst-ax developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

/* The simulated device (device/): its profiles (profiles.c), the cost
 * model and the schedule of a graph on a profile (schedule.c). */

#ifndef __SIMNPU_DEVICE_H__
#define __SIMNPU_DEVICE_H__

#include "graph/graph.h"

G_BEGIN_DECLS

typedef struct
{
  char name[32];
  char description[128];
  unsigned cores;
  double clock_mhz;
  uint32_t macs_per_cycle;
  uint32_t vector_bytes_per_cycle;
  double compute_efficiency;
  uint64_t onchip_memory_bytes;
  double dma_bytes_per_s;
  double host_copy_bytes_per_s;
  uint64_t job_overhead_ns;
  uint32_t op_overhead_cycles;
  /* separate DMA-in/DMA-out engines plus CDMA and CSS (Torq), or one
   * shared DMA engine (Metis) */
  bool split_dma;
  bool has_cdma_css;
} simnpu__profile;

SIMNPU_INTERNAL int simnpu__profile_parse (const char *spec,
    simnpu__profile * profile, simnpu_error * error);
SIMNPU_INTERNAL void simnpu__profile_to_spec (const simnpu__profile *
    profile, char *buf, size_t size);
SIMNPU_INTERNAL unsigned simnpu__profile_resources (const simnpu__profile *
    profile, simnpu_resource_info * resources, char names[][16]);
SIMNPU_INTERNAL int simnpu__profile_resource_of_kind (const simnpu__profile
    * profile, simnpu_resource_kind kind);

/* Resource slot SIMNPU__RES_CORE means "the core the job is placed on". */
#define SIMNPU__RES_CORE (-1)
#define SIMNPU__NO_DEP (-1)

typedef struct
{
  simnpu_action_kind kind;
  int32_t resource;
  int32_t op_index;
  int32_t dep;
  int32_t dep2;
  uint64_t bytes;
  uint64_t cycles;
  uint64_t device_ns;
} simnpu__action;

typedef struct
{
  char spec[256];
  unsigned n_actions;
  simnpu__action *actions;
  uint64_t device_ns;
} simnpu__schedule;

SIMNPU_INTERNAL int simnpu__schedule_build (const simnpu__graph * graph,
    const simnpu__profile * profile, simnpu__schedule * schedule,
    simnpu_error * error);
SIMNPU_INTERNAL void simnpu__schedule_finish (simnpu__schedule * schedule,
    const simnpu__profile * profile);
SIMNPU_INTERNAL void simnpu__schedule_clear (simnpu__schedule * schedule);
SIMNPU_INTERNAL void simnpu__schedule_estimate (const simnpu__schedule *
    schedule, const simnpu__profile * profile, uint64_t * start_cycles,
    uint64_t * end_cycles);

G_END_DECLS

#endif /* __SIMNPU_DEVICE_H__ */
