/* gst-ax
 * Copyright (C) 2026 gst-ax developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

/* The memory plan of a graph's intermediate buffers: one arena, each
 * buffer at an offset such that buffers whose live ranges overlap never
 * share a byte. Greedy by size, as TensorFlow Lite's and XNNPACK's
 * planners: the largest buffer is placed first, each next one in the
 * smallest gap between the buffers already placed that are live at the
 * same time, or after the last of them. The device graph
 * (graph/graph-prepare.c) and the host sections' float executor
 * (ir/exec/ir-exec.c) both plan through it. */

#include "base.h"

#include <string.h>

static int
by_size_desc (const void *a, const void *b, void *user_data)
{
  const simnpu__live_buffer *bufs = user_data;
  const simnpu__live_buffer *x = &bufs[*(const unsigned *) a];
  const simnpu__live_buffer *y = &bufs[*(const unsigned *) b];
  unsigned ia = *(const unsigned *) a, ib = *(const unsigned *) b;

  if (x->bytes != y->bytes)
    return x->bytes > y->bytes ? -1 : 1;
  if (x->first != y->first)
    return x->first < y->first ? -1 : 1;
  return ia < ib ? -1 : (ia > ib ? 1 : 0);
}

static size_t
align_up (size_t v, size_t align)
{
  return (v + align - 1) / align * align;
}

size_t
simnpu__memplan_flat (simnpu__live_buffer * bufs, unsigned n, size_t align)
{
  size_t offset = 0;
  unsigned i;

  for (i = 0; i < n; i++) {
    offset = align_up (offset, align);
    bufs[i].offset = offset;
    offset += bufs[i].bytes;
  }
  return offset;
}

size_t
simnpu__memplan (simnpu__live_buffer * bufs, unsigned n, size_t align)
{
  /* placed: the buffers placed so far, by offset, so that those live at
   * the same time as the next one are met in the order of their offsets */
  unsigned *order, *placed, n_placed = 0, i, k;
  size_t arena = 0;

  for (i = 0, k = 0; i < n; i++)
    k += bufs[i].bytes > 0;
  if (k > SIMNPU_MEMPLAN_MAX_BUFFERS)
    return simnpu__memplan_flat (bufs, n, align);
  order = g_new (unsigned, MAX (n, 1));
  placed = g_new (unsigned, MAX (n, 1));
  for (i = 0; i < n; i++)
    order[i] = i;
  g_qsort_with_data (order, (gint) n, sizeof (unsigned), by_size_desc, bufs);
  for (i = 0; i < n; i++) {
    simnpu__live_buffer *b = &bufs[order[i]];
    size_t at = 0, best = 0, best_gap = SIZE_MAX;
    bool found = false;

    if (b->bytes == 0) {
      /* takes no space, shares none */
      b->offset = 0;
      continue;
    }
    /* the smallest gap between the buffers live at the same time that
     * holds this one, else the space after the last of them */
    for (k = 0; k < n_placed; k++) {
      const simnpu__live_buffer *p = &bufs[placed[k]];
      if (p->first > b->last || b->first > p->last)
        continue;
      if (p->offset >= at && p->offset - at >= b->bytes
          && p->offset - at < best_gap) {
        best = at;
        best_gap = p->offset - at;
        found = true;
      }
      at = MAX (at, align_up (p->offset + p->bytes, align));
    }
    b->offset = found ? best : at;
    arena = MAX (arena, b->offset + b->bytes);
    for (k = n_placed; k > 0 && bufs[placed[k - 1]].offset > b->offset; k--)
      placed[k] = placed[k - 1];
    placed[k] = order[i];
    n_placed++;
  }
  g_free (order);
  g_free (placed);
  return arena;
}
