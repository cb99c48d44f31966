/* gst-ax
 * Copyright (C) 2026 gst-ax developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

/* The scratch of a stream (GstAxNmsWork), shared by every decoder: grown
 * to the largest tensor seen, never shrunk. */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstaxnmsdecode-private.h"

GstAxNmsWork *
gst_ax_nms_work_new (void)
{
  return g_new0 (GstAxNmsWork, 1);
}

static void
work_free_arrays (GstAxNmsWork * w)
{
  g_free (w->best_class);
  g_free (w->best_u8);
  g_free (w->best_f32);
  g_free (w->touched);
  g_free (w->cx0);
  g_free (w->cy0);
  g_free (w->cx1);
  g_free (w->cy1);
  g_free (w->cscore);
  g_free (w->cclass);
  g_free (w->canchor);
  g_free (w->key);
  g_free (w->key_tmp);
  g_free (w->order);
  g_free (w->order_tmp);
  g_free (w->kx0);
  g_free (w->ky0);
  g_free (w->kx1);
  g_free (w->ky1);
  g_free (w->karea);
  g_free (w->kclass);
  g_free (w->consumed);
}

void
gst_ax_nms_work_free (GstAxNmsWork * work)
{
  if (work == NULL)
    return;
  work_free_arrays (work);
  g_free (work);
}

/* Grows the arrays only when a larger tensor arrives, so a stream of
 * same-shaped tensors allocates once. */
void
gst_ax_nms_decode_work_ensure (GstAxNmsWork * w, guint n_anchors)
{
  guint n, i;

  if (n_anchors <= w->capacity)
    return;
  work_free_arrays (w);
  n = n_anchors;
  w->best_class = g_new (guint32, n);
  for (i = 0; i < n; i++)
    w->best_class[i] = NO_CLASS;
  w->best_u8 = g_new (guint8, n);
  w->best_f32 = g_new (gfloat, n);
  w->n_touched_words = (n + 63) / 64;
  w->touched = g_new0 (guint64, w->n_touched_words);
  w->cx0 = g_new (gfloat, n);
  w->cy0 = g_new (gfloat, n);
  w->cx1 = g_new (gfloat, n);
  w->cy1 = g_new (gfloat, n);
  w->cscore = g_new (gfloat, n);
  w->cclass = g_new (guint32, n);
  w->canchor = g_new (guint32, n);
  w->key = g_new (guint32, n);
  w->key_tmp = g_new (guint32, n);
  w->order = g_new (guint32, n);
  w->order_tmp = g_new (guint32, n);
  /* room for a partial block of padding after the last kept box */
  w->kx0 = g_new (gfloat, n + IOU_BLOCK);
  w->ky0 = g_new (gfloat, n + IOU_BLOCK);
  w->kx1 = g_new (gfloat, n + IOU_BLOCK);
  w->ky1 = g_new (gfloat, n + IOU_BLOCK);
  w->karea = g_new (gfloat, n + IOU_BLOCK);
  w->kclass = g_new (guint32, n + IOU_BLOCK);
  w->consumed = g_new (guint8, n);
  w->capacity = n;
}
