/* gst-ax
 * Copyright (C) 2026 gst-ax developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

/* The report's projection onto the modelled device: the topology the
 * queueing model needs beyond the report's rows (which thread ran each
 * row, each model's device time scale), handed to libgstax
 * (gst/ax/gstaxprojection.c), which models the pipeline. */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstaxprof-report-private.h"
#include "gstaxprof-thread.h"

#include <gst/ax/gstaxprojection-private.h>

/* The thread slot that made most of @row's calls: the streaming thread it
 * runs on. */
static guint
main_slot (Row * row)
{
  guint64 best_count = 0;
  guint i, best = 0;

  for (i = 0; i < axprof_slot_count (); i++) {
    RowStats *st = axprof_row_slot (row, i);
    guint64 count;

    if (st == NULL || __atomic_load_n (&st->restart_gen, __ATOMIC_ACQUIRE) !=
        __atomic_load_n (&st->gen_seen, __ATOMIC_ACQUIRE))
      continue;
    count = AXPROF_LOAD (st->count);
    if (count > best_count) {
      best_count = count;
      best = i;
    }
  }
  return best;
}

/* What a model's element says of its device: its time scale
 * (axinference's time-scale, 1.0 when it has none or is gone) and what a
 * job asks of the device's resources (its job-resources, or NULL);
 * axprof_global_lock held. */
static gdouble
element_device (ElementState * e, gchar ** resources)
{
  GObjectClass *klass;
  gdouble scale = 1.0;

  *resources = NULL;
  if (e == NULL || e->element == NULL)
    return scale;
  klass = G_OBJECT_GET_CLASS (e->element);
  if (g_object_class_find_property (klass, "time-scale"))
    g_object_get (e->element, "time-scale", &scale, NULL);
  if (g_object_class_find_property (klass, "job-resources"))
    g_object_get (e->element, "job-resources", resources, NULL);
  return scale;
}

void
axprof_build_projection (ReportBuild * b)
{
  GstAxProjectionTopology *t;
  guint i;

  if (b->r->devices->len == 0 || b->r->refusal)
    return;
  t = gst_ax_projection_topology_new ();
  for (i = 0; i < b->merged->len; i++) {
    MergedRow *m = &g_array_index (b->merged, MergedRow, i);
    gchar *name = axprof_row_name (m->row);

    gst_ax_projection_topology_add_row (t, axprof_row_group (m->row),
        m->row->elem->name, name, main_slot (m->row));
    g_free (name);
  }
  /* in the order of the report's devices (axprof_build_devices()) */
  for (i = 0; i < b->p->devices->len; i++) {
    DeviceState *d = g_ptr_array_index (b->p->devices, i);
    gchar *resources;
    gdouble scale = element_device (d->elem, &resources);

    gst_ax_projection_topology_add_device (t, d->group,
        d->elem ? d->elem->name : NULL, scale, resources);
    g_free (resources);
  }
  gst_ax_report_attach_projection (b->r, t);
}
