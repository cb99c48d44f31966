/* gst-ax
 * Copyright (C) 2026 gst-ax developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstaxprof-private.h"

static void
json_escape (GString * out, const gchar * str)
{
  const gchar *c;

  for (c = str; *c; c++) {
    if (*c == '"' || *c == '\\')
      g_string_append_printf (out, "\\%c", *c);
    else if ((guchar) * c < 0x20)
      g_string_append_printf (out, "\\u%04x", (guchar) * c);
    else
      g_string_append_c (out, *c);
  }
}

static void
trace_event (GString * out, gboolean * first, const gchar * name,
    const gchar * cat, gdouble ts_us, gdouble dur_us, guint pid, gint tid)
{
  g_string_append (out, *first ? "\n" : ",\n");
  *first = FALSE;
  g_string_append (out, "{\"name\":\"");
  json_escape (out, name);
  g_string_append (out, "\",\"cat\":\"");
  json_escape (out, cat);
  g_string_append_printf (out, "\",\"ph\":\"X\",\"ts\":%.3f,\"dur\":%.3f,"
      "\"pid\":%u,\"tid\":%d}", ts_us, dur_us, pid, tid);
}

/* axprof_global_lock and p->lock held. Chrome trace-event JSON, which the
 * Perfetto UI opens: host rows as complete events per thread slot,
 * device busy intervals per core, times in us since the first buffer. */
gchar *
axprof_make_timeline (PipelineState * p)
{
  GString *out = g_string_new ("{\"displayTimeUnit\":\"ms\","
      "\"traceEvents\":[");
  gint64 offset = (gint64) p->first_probe_ns - (gint64) p->first_ts;
  gboolean first = TRUE;
  guint s, i;

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
      trace_event (out, &first, name, axprof_row_group (e->row),
          (start - (gint64) p->first_probe_ns) / NS_PER_US,
          e->dur / NS_PER_US, TRACE_PID_HOST, s);
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
      trace_event (out, &first, name, d->group,
          ((gint64) e->start_ns - (gint64) p->first_probe_ns) / NS_PER_US,
          (e->end_ns - e->start_ns) / NS_PER_US, TRACE_PID_DEVICE, e->core);
      g_free (name);
    }
    g_mutex_unlock (&d->lock);
  }
  g_string_append (out, "\n]}\n");
  return g_string_free (out, FALSE);
}
