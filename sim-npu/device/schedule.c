/* gst-ax
 * Copyright (C) 2026 gst-ax developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

/* The cost model: the cycles of each op on a device profile, the job's
 * overhead, the schedule of device actions a job runs and its idle-device
 * time (device_ns). */

#include "device/device.h"

#include <math.h>
#include <string.h>

static bool
op_is_data_movement (const simnpu__op * op)
{
  simnpu__op_movement movement = simnpu__op_movement_of (op->type);

  return movement == SIMNPU__MOVES_DATA
      || (movement == SIMNPU__MOVES_DATA_IF_NEAREST
      && op->attrs[SIMNPU_A_RESIZE_MODE] == SIMNPU_RESIZE_MODE_NEAREST);
}

static uint64_t
cycles_to_ns (uint64_t cycles, const simnpu__profile * p)
{
  return (uint64_t) llround ((double) cycles * 1000.0 / p->clock_mhz);
}

static uint64_t
bytes_to_ns (uint64_t bytes, double bytes_per_s)
{
  return (uint64_t) llround ((double) bytes * 1e9 / bytes_per_s);
}

static uint64_t
op_cycles (const simnpu__graph * g, const simnpu__op * op,
    const simnpu__profile * p)
{
  simnpu__op_cost cost = simnpu__op_cost_of (op->type);
  uint64_t c;

  if (cost == SIMNPU__COST_MACS) {
    double rate = p->macs_per_cycle * p->compute_efficiency;
    c = (uint64_t) ceil ((double) op->macs / rate);
  } else {
    uint64_t bytes = 0;
    unsigned i;
    for (i = 0; i < op->n_outputs; i++)
      bytes += simnpu__tensor_bytes (&g->tensors[op->outputs[i]]);
    if (cost == SIMNPU__COST_WINDOW_BYTES)
      bytes *= (uint64_t) op->attrs[SIMNPU_A_KH] * op->attrs[SIMNPU_A_KW];
    if (cost == SIMNPU__COST_INPUT_BYTES)
      bytes = simnpu__tensor_bytes (&g->tensors[op->inputs[0]]);
    if (cost == SIMNPU__COST_RESIZE && op->attrs[SIMNPU_A_RESIZE_MODE] ==
        SIMNPU_RESIZE_MODE_BILINEAR)
      bytes *= SIMNPU__RESIZE_BILINEAR_TAPS;
    c = (bytes + p->vector_bytes_per_cycle - 1) / p->vector_bytes_per_cycle;
  }
  return c + p->op_overhead_cycles;
}

void
simnpu__schedule_clear (simnpu__schedule * s)
{
  g_free (s->actions);
  memset (s, 0, sizeof (*s));
}

static void
push_action (GArray * a, simnpu_action_kind kind, int32_t res, int32_t op,
    int32_t dep, int32_t dep2, uint64_t bytes, uint64_t cycles,
    uint64_t device_ns)
{
  simnpu__action act = {
    .kind = kind,.resource = res,.op_index = op,.dep = dep,.dep2 = dep2,
    .bytes = bytes,.cycles = cycles,.device_ns = device_ns,
  };
  g_array_append_val (a, act);
}

/* Idle-device makespan of the schedule; per-action start and end in ns
 * relative to the first action when starts/ends are given. */
static uint64_t
simulate_idle (const simnpu__schedule * s, unsigned n_resources,
    uint64_t * starts, uint64_t * ends)
{
  uint64_t free_at[SIMNPU_MAX_RESOURCES + 1] = { 0 };
  uint64_t *end = g_new0 (uint64_t, s->n_actions + 1);
  uint64_t makespan = 0;
  unsigned i;

  for (i = 0; i < s->n_actions; i++) {
    const simnpu__action *a = &s->actions[i];
    unsigned r = a->resource < 0 ? 0 : (unsigned) a->resource;
    uint64_t start = free_at[MIN (r, n_resources)];
    if (a->dep >= 0)
      start = MAX (start, end[a->dep]);
    if (a->dep2 >= 0)
      start = MAX (start, end[a->dep2]);
    end[i] = start + a->device_ns;
    free_at[MIN (r, n_resources)] = end[i];
    makespan = MAX (makespan, end[i]);
    if (starts)
      starts[i] = start;
    if (ends)
      ends[i] = end[i];
  }
  g_free (end);
  return makespan;
}

int
simnpu__schedule_build (const simnpu__graph * g, const simnpu__profile * p,
    simnpu__schedule * s, simnpu_error * error)
{
  GArray *a = g_array_new (FALSE, TRUE, sizeof (simnpu__action));
  int dma_in = simnpu__profile_resource_of_kind (p, SIMNPU_RESOURCE_DMA_IN);
  int dma_out = simnpu__profile_resource_of_kind (p, SIMNPU_RESOURCE_DMA_OUT);
  int cdma = simnpu__profile_resource_of_kind (p, SIMNPU_RESOURCE_CDMA);
  int css = simnpu__profile_resource_of_kind (p, SIMNPU_RESOURCE_CSS);
  bool stream_weights = g->weight_bytes > p->onchip_memory_bytes;
  int32_t last_compute = SIMNPU__NO_DEP, last_in = SIMNPU__NO_DEP;
  simnpu_resource_info res[SIMNPU_MAX_RESOURCES];
  char names[SIMNPU_MAX_RESOURCES][16];
  unsigned n_res = simnpu__profile_resources (p, res, names);
  unsigned i;

  simnpu__schedule_clear (s);
  simnpu__profile_to_spec (p, s->spec, sizeof (s->spec));

  if (css >= 0) {
    uint64_t cyc = (uint64_t) llround (p->job_overhead_ns * p->clock_mhz /
        1000.0);
    push_action (a, SIMNPU_ACTION_CSS, css, -1, SIMNPU__NO_DEP,
        SIMNPU__NO_DEP, 0, cyc, p->job_overhead_ns);
    last_in = 0;
  }
  for (i = 0; i < g->n_inputs; i++) {
    uint64_t bytes = simnpu__tensor_bytes (&g->tensors[g->inputs[i]]);
    push_action (a, SIMNPU_ACTION_DMA_IN, dma_in, -1, last_in,
        SIMNPU__NO_DEP, bytes, 0, bytes_to_ns (bytes, p->dma_bytes_per_s));
    last_in = (int32_t) a->len - 1;
  }
  last_compute = last_in;
  for (i = 0; i < g->n_ops; i++) {
    const simnpu__op *op = &g->ops[i];
    int32_t wdep = SIMNPU__NO_DEP;
    uint64_t cyc;
    if (stream_weights && op->weight_bytes > 0) {
      push_action (a, SIMNPU_ACTION_DMA_IN, dma_in, (int32_t) i, last_in,
          SIMNPU__NO_DEP, op->weight_bytes, 0,
          bytes_to_ns (op->weight_bytes, p->dma_bytes_per_s));
      wdep = last_in = (int32_t) a->len - 1;
    }
    cyc = op_cycles (g, op, p);
    if (cdma >= 0 && op_is_data_movement (op))
      push_action (a, SIMNPU_ACTION_CDMA, cdma, (int32_t) i, last_compute,
          wdep, 0, cyc, cycles_to_ns (cyc, p));
    else
      push_action (a, SIMNPU_ACTION_COMPUTE, SIMNPU__RES_CORE, (int32_t) i,
          last_compute, wdep, 0, cyc, cycles_to_ns (cyc, p));
    last_compute = (int32_t) a->len - 1;
  }
  for (i = 0; i < g->n_outputs; i++) {
    uint64_t bytes = simnpu__tensor_bytes (&g->tensors[g->outputs[i]]);
    push_action (a, SIMNPU_ACTION_DMA_OUT, dma_out, -1, last_compute,
        SIMNPU__NO_DEP, bytes, 0, bytes_to_ns (bytes, p->dma_bytes_per_s));
  }
  s->n_actions = a->len;
  s->actions = (simnpu__action *) g_array_free (a, FALSE);
  (void) n_res;
  (void) error;
  simnpu__schedule_finish (s, p);
  return 0;
}

void
simnpu__schedule_finish (simnpu__schedule * s, const simnpu__profile * p)
{
  simnpu_resource_info res[SIMNPU_MAX_RESOURCES];
  char names[SIMNPU_MAX_RESOURCES][16];
  unsigned n_res = simnpu__profile_resources (p, res, names);

  s->device_ns = simulate_idle (s, n_res, NULL, NULL);
  /* without a CSS engine the per-job overhead is the driver's setup of
   * the job on its core before the first action (the runtime holds the
   * core for it): device time, though no action of the schedule */
  if (!p->has_cdma_css)
    s->device_ns += p->job_overhead_ns;
}

void
simnpu__schedule_estimate (const simnpu__schedule * s,
    const simnpu__profile * p, uint64_t * start_cycles, uint64_t * end_cycles)
{
  simnpu_resource_info res[SIMNPU_MAX_RESOURCES];
  char names[SIMNPU_MAX_RESOURCES][16];
  unsigned n_res = simnpu__profile_resources (p, res, names);
  unsigned i;

  simulate_idle (s, n_res, start_cycles, end_cycles);
  for (i = 0; i < s->n_actions; i++) {
    start_cycles[i] = (uint64_t) llround (start_cycles[i] * p->clock_mhz /
        1000.0);
    end_cycles[i] = (uint64_t) llround (end_cycles[i] * p->clock_mhz / 1000.0);
  }
}
