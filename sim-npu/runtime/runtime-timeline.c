/* gst-ax
 * Copyright (C) 2026 gst-ax developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

/* The device timeline: per resource, the future reservations made by
 * submitted jobs, and the placement of a job's actions on them. */

#include "runtime-private.h"

static unsigned
first_ending_after (GArray * a, uint64_t t)
{
  unsigned lo = 0, hi = a->len;

  /* reservations are disjoint and sorted, so their ends are sorted too */
  while (lo < hi) {
    unsigned mid = lo + (hi - lo) / 2;
    if (g_array_index (a, simnpu__interval, mid).end_ns <= t)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo;
}

/* Reserves dur of resource r at or after ready, in the earliest free time:
 * engines serve requests in the order they become ready, so an action may
 * run in a gap before reservations made by earlier jobs. Compute needs one
 * gap of the whole length; a transfer (split) may be cut into pieces that
 * fill several gaps, as a DMA engine interleaves descriptor chains. Sets
 * the end of the last piece and returns the start of the first. Lock
 * held. */
static uint64_t
reserve (simnpu_device * dev, unsigned r, uint64_t ready, uint64_t dur,
    bool split, uint64_t * end)
{
  GArray *a = dev->reserved[r];
  uint64_t t = ready, first = G_MAXUINT64, left = dur;
  unsigned i = first_ending_after (a, ready);
  simnpu__interval iv;

  if (dur == 0) {
    *end = ready;
    return ready;
  }
  while (left > 0) {
    uint64_t gap_end = i < a->len ? g_array_index (a, simnpu__interval,
        i).start_ns : G_MAXUINT64;
    if (t < gap_end && (split || gap_end - t >= left)) {
      uint64_t piece = MIN (left, gap_end - t);
      iv.start_ns = t;
      iv.end_ns = t + piece;
      g_array_insert_val (a, i, iv);
      i++;
      first = MIN (first, t);
      left -= piece;
      t += piece;
    }
    if (left > 0) {
      t = MAX (t, g_array_index (a, simnpu__interval, i).end_ns);
      i++;
    }
  }
  dev->free_at_ns[r] = MAX (dev->free_at_ns[r], t);
  *end = t;
  return first;
}

/* Drops reservations that ended before now; they are disjoint and
 * sorted, so they form a prefix. */
static void
prune_reservations (simnpu_device * dev, uint64_t now)
{
  unsigned r, n;

  for (r = 0; r < dev->n_resources; r++) {
    GArray *a = dev->reserved[r];
    for (n = 0;
        n < a->len && g_array_index (a, simnpu__interval, n).end_ns <= now;
        n++);
    if (n > 0)
      g_array_remove_range (a, 0, n);
  }
}

/* Places the job's actions on the device resources in action order, each
 * after its dependencies, in the earliest free slot of its resource. The
 * job goes to the core that frees up first. Lock held. */
void
simnpu__timeline_schedule_job (simnpu_device * dev, simnpu_job * job,
    uint64_t now)
{
  const simnpu__schedule *s = &job->model->schedule;
  double scale = dev->virtual_clock ? 1.0 : dev->time_scale;
  unsigned cores = dev->profile.cores, best = 0, i;
  uint64_t t0 = now, first = G_MAXUINT64, last = 0;

  if (!dev->virtual_clock)
    prune_reservations (dev, now);
  for (i = 1; i < cores; i++) {
    if (dev->free_at_ns[i] < dev->free_at_ns[best]
        || (dev->free_at_ns[i] == dev->free_at_ns[best]
            && dev->queues[i].length < dev->queues[best].length))
      best = i;
  }
  job->core = best;
  job->scale = scale;
  /* Without a command processor (CSS) the host driver sets each job up on
   * the core it runs on, so the fixed per-job overhead holds that core
   * before the job's first transfer: it is device time, as simnpu-compile
   * and the model info count it, and busy time in the occupancy. */
  if (!dev->profile.has_cdma_css)
    first = reserve (dev, best, now,
        (uint64_t) ((double) dev->profile.job_overhead_ns * scale), false, &t0);
  for (i = 0; i < s->n_actions; i++) {
    const simnpu__action *a = &s->actions[i];
    unsigned r = a->resource < 0 ? best : (unsigned) a->resource;
    uint64_t ready = t0, dur = (uint64_t) ((double) a->device_ns * scale);
    if (a->dep >= 0)
      ready = MAX (ready, job->act_end[a->dep]);
    if (a->dep2 >= 0)
      ready = MAX (ready, job->act_end[a->dep2]);
    job->act_start[i] = reserve (dev, r, ready, dur,
        a->kind != SIMNPU_ACTION_COMPUTE && a->kind != SIMNPU_ACTION_CSS,
        &job->act_end[i]);
    first = MIN (first, job->act_start[i]);
    last = MAX (last, job->act_end[i]);
  }
  if (s->n_actions == 0)
    first = last = t0;
  job->result.core_start_ns = G_MAXUINT64;
  job->result.core_end_ns = 0;
  job->result.core_busy_ns = 0;
  for (i = 0; i < s->n_actions; i++) {
    if (s->actions[i].resource != SIMNPU__RES_CORE)
      continue;
    job->result.core_start_ns = MIN (job->result.core_start_ns,
        job->act_start[i]);
    job->result.core_end_ns = MAX (job->result.core_end_ns, job->act_end[i]);
    job->result.core_busy_ns += job->act_end[i] - job->act_start[i];
  }
  if (job->result.core_start_ns == G_MAXUINT64)
    job->result.core_start_ns = job->result.core_end_ns = first;
  job->result.device_start_ns = first;
  job->result.device_end_ns = last;
  job->result.device_ns = s->device_ns;
  job->result.core = best;
}
