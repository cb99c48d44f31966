/* gst-ax
 * Copyright (C) 2026 gst-ax developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

/* The perfetto= timeline: the trace rings of every thread slot and the
 * device busy intervals of a run, as Chrome trace-event JSON. */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstaxprof-private.h"

#include <json-glib/json-glib.h>

/* One complete event ("ph":"X") of the Chrome trace-event format. */
static void
trace_event (JsonBuilder * b, const gchar * name, const gchar * cat,
    gdouble ts_us, gdouble dur_us, guint pid, gint tid)
{
  json_builder_begin_object (b);
  json_builder_set_member_name (b, "name");
  json_builder_add_string_value (b, name);
  json_builder_set_member_name (b, "cat");
  json_builder_add_string_value (b, cat);
  json_builder_set_member_name (b, "ph");
  json_builder_add_string_value (b, "X");
  json_builder_set_member_name (b, "ts");
  json_builder_add_double_value (b, ts_us);
  json_builder_set_member_name (b, "dur");
  json_builder_add_double_value (b, dur_us);
  json_builder_set_member_name (b, "pid");
  json_builder_add_int_value (b, pid);
  json_builder_set_member_name (b, "tid");
  json_builder_add_int_value (b, tid);
  json_builder_end_object (b);
}

/* axprof_global_lock and p->lock held. Chrome trace-event JSON, which the
 * Perfetto UI opens: host rows as complete events per thread slot,
 * device busy intervals per core, times in us since the first buffer. */
gchar *
axprof_make_timeline (PipelineState * p)
{
  JsonBuilder *b = json_builder_new ();
  JsonGenerator *gen;
  JsonNode *root;
  gint64 offset = (gint64) p->first_probe_ns - (gint64) p->first_ts;
  gchar *json, *out;
  guint s, i;

  json_builder_begin_object (b);
  json_builder_set_member_name (b, "displayTimeUnit");
  json_builder_add_string_value (b, "ms");
  json_builder_set_member_name (b, "traceEvents");
  json_builder_begin_array (b);

  for (s = 0; s < MAX_THREAD_SLOTS; s++) {
    TraceRing *ring =
        __atomic_load_n (&axprof_trace_rings[s], __ATOMIC_ACQUIRE);
    guint64 head, j;

    if (ring == NULL)
      continue;
    head = __atomic_load_n (&ring->head, __ATOMIC_ACQUIRE);
    for (j = head > TRACE_RING_SIZE ? head - TRACE_RING_SIZE : 0; j < head; j++) {
      TraceEvent *e = &ring->events[j % TRACE_RING_SIZE];
      gint64 start;
      gchar *name;

      if (e->row == NULL || e->row->pipe != p || e->run != p->run)
        continue;
      start = e->probe_clock ? (gint64) e->start : (gint64) e->start + offset;
      name = axprof_row_name (e->row);
      trace_event (b, name, axprof_row_group (e->row),
          (start - (gint64) p->first_probe_ns) / (gdouble) GST_USECOND,
          e->dur / (gdouble) GST_USECOND, TRACE_PID_HOST, s);
      g_free (name);
    }
  }
  for (i = 0; i < p->devices->len; i++) {
    DeviceState *d = g_ptr_array_index (p->devices, i);
    guint64 j;

    g_mutex_lock (&d->lock);
    for (j = d->trace_head > DEVICE_RING_SIZE ?
        d->trace_head - DEVICE_RING_SIZE : 0; d->trace && j < d->trace_head;
        j++) {
      DeviceTraceEvent *e = &d->trace[j % DEVICE_RING_SIZE];
      gchar *name;

      if (e->run != p->run)
        continue;
      name = g_strdup_printf ("job %" G_GUINT64_FORMAT, e->job);
      trace_event (b, name, d->group,
          ((gint64) e->start_ns -
              (gint64) p->first_probe_ns) / (gdouble) GST_USECOND,
          (e->end_ns - e->start_ns) / (gdouble) GST_USECOND, TRACE_PID_DEVICE,
          e->core);
      g_free (name);
    }
    g_mutex_unlock (&d->lock);
  }
  json_builder_end_array (b);
  json_builder_end_object (b);

  root = json_builder_get_root (b);
  gen = json_generator_new ();
  json_generator_set_root (gen, root);
  json = json_generator_to_data (gen, NULL);
  out = g_strconcat (json, "\n", NULL);
  g_free (json);
  g_object_unref (gen);
  json_node_unref (root);
  g_object_unref (b);
  return out;
}
