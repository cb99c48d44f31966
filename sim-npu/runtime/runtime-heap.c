/* gst-ax
 * Copyright (C) 2026 gst-ax developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

/* The completion heap: the jobs computed but not yet due, ordered by
 * (due_ns, job id), so the pacer completes them in due order. A plain
 * binary heap of job pointers; each job keeps its index for removal.
 * It knows nothing of threads: a push says whether the head changed, and
 * the caller decides whom to wake. The device lock protects it. */

#include "runtime-private.h"

#define HEAP_MIN_CAPACITY 16

static bool
heap_less (const simnpu_job * a, const simnpu_job * b)
{
  if (a->due_ns != b->due_ns)
    return a->due_ns < b->due_ns;
  return a->result.job_id < b->result.job_id;
}

static void
heap_set (simnpu__job_heap * h, unsigned i, simnpu_job * job)
{
  h->items[i] = job;
  job->heap_index = (int) i;
}

static void
heap_up (simnpu__job_heap * h, unsigned i)
{
  simnpu_job *job = h->items[i];

  while (i > 0 && heap_less (job, h->items[(i - 1) / 2])) {
    heap_set (h, i, h->items[(i - 1) / 2]);
    i = (i - 1) / 2;
  }
  heap_set (h, i, job);
}

static void
heap_down (simnpu__job_heap * h, unsigned i)
{
  simnpu_job *job = h->items[i];

  for (;;) {
    unsigned c = 2 * i + 1;
    if (c >= h->len)
      break;
    if (c + 1 < h->len && heap_less (h->items[c + 1], h->items[c]))
      c++;
    if (!heap_less (h->items[c], job))
      break;
    heap_set (h, i, h->items[c]);
    i = c;
  }
  heap_set (h, i, job);
}

/* Returns whether @job is the new head: only then did the earliest
 * deadline move. */
bool
simnpu__heap_push (simnpu__job_heap * h, simnpu_job * job)
{
  if (h->len == h->cap) {
    h->cap = MAX (HEAP_MIN_CAPACITY, h->cap * 2);
    h->items = g_renew (simnpu_job *, h->items, h->cap);
  }
  heap_set (h, h->len++, job);
  heap_up (h, h->len - 1);
  return h->items[0] == job;
}

void
simnpu__heap_remove (simnpu__job_heap * h, simnpu_job * job)
{
  unsigned i = (unsigned) job->heap_index;
  simnpu_job *last = h->items[--h->len];

  job->heap_index = -1;
  if (i == h->len)
    return;
  heap_set (h, i, last);
  heap_up (h, i);
  heap_down (h, (unsigned) last->heap_index);
}

void
simnpu__heap_clear (simnpu__job_heap * h)
{
  g_free (h->items);
  h->items = NULL;
  h->len = h->cap = 0;
}
