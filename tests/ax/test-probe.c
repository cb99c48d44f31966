/* gst-ax
 * Copyright (C) 2026 gst-ax developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

#include <gst/check/gstcheck.h>
#include <gst/ax/ax.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

typedef struct
{
  guint n_spans, n_events, n_devices;
  GstAxProbeSpan last_span;
  GstAxProbeDeviceEvent last_event;
  GstAxProbeDevice last_device;
} Recorder;

static void
record_span (const GstAxProbeSpan * span, gpointer user_data)
{
  Recorder *r = user_data;

  r->n_spans++;
  r->last_span = *span;
}

static void
record_event (const GstAxProbeDeviceEvent * ev, gpointer user_data)
{
  Recorder *r = user_data;

  r->n_events++;
  r->last_event = *ev;
}

static void
record_device (const GstAxProbeDevice * dev, gpointer user_data)
{
  Recorder *r = user_data;

  r->n_devices++;
  r->last_device = *dev;
}

static const GstAxProbeSinkFuncs recorder_funcs = {
  record_span, record_event, record_device
};

GST_START_TEST (test_inactive_records_nothing)
{
  Recorder r = { 0, };
  GstAxProbeSpan span = { NULL, "m", "stage", 0, 1, 1, 0, 0 };
  GstAxProbeTimer t;
  guint id;

  fail_if (gst_ax_probe_is_active ());
  gst_ax_probe_span (&span);
  gst_ax_probe_timer_start (&t);
  fail_if (t.active);
  gst_ax_probe_timer_stop (&t, NULL, "m", "stage", 0);

  id = gst_ax_probe_add_sink (&recorder_funcs, &r);
  fail_unless (id != 0);
  fail_unless (gst_ax_probe_is_active ());
  gst_ax_probe_remove_sink (id);
  fail_if (gst_ax_probe_is_active ());
  gst_ax_probe_span (&span);
  fail_unless_equals_int (r.n_spans, 0);
}

GST_END_TEST;

GST_START_TEST (test_records_reach_sink)
{
  Recorder r = { 0, }, r2 = { 0, };
  GstAxProbeSpan span = { NULL, "model", "dequant", 5, 1000, 800, 3,
    GST_AX_PROBE_FLAG_STAGE
  };
  GstAxProbeDeviceEvent ev = { NULL, "model", 2, 4, 17, 100, 4100 };
  GstAxProbeDevice dev = { NULL, "model", "metis", 4, 8, 10, 5000, 0 };
  guint id, id2;

  id = gst_ax_probe_add_sink (&recorder_funcs, &r);
  id2 = gst_ax_probe_add_sink (&recorder_funcs, &r2);
  gst_ax_probe_span (&span);
  gst_ax_probe_device_event (&ev);
  gst_ax_probe_device (&dev);
  gst_ax_probe_remove_sink (id2);
  gst_ax_probe_span (&span);
  gst_ax_probe_remove_sink (id);

  fail_unless_equals_int (r.n_spans, 2);
  fail_unless_equals_int (r2.n_spans, 1);
  fail_unless_equals_int (r.n_events, 1);
  fail_unless_equals_int (r.n_devices, 1);
  fail_unless_equals_string (r.last_span.stage, "dequant");
  fail_unless_equals_int (r.last_span.wall_ns, 1000);
  fail_unless_equals_int (r.last_span.faults, 3);
  fail_unless_equals_int (r.last_span.flags, GST_AX_PROBE_FLAG_STAGE);
  fail_unless_equals_int (r.last_event.resource, 2);
  fail_unless_equals_int (r.last_event.end_ns, 4100);
  fail_unless_equals_int (r.last_device.n_cores, 4);
  fail_unless_equals_string (r.last_device.device, "metis");
}

GST_END_TEST;

#define SLEEP_US 20000
#define TOUCH_PAGES 64

GST_START_TEST (test_timer_measures)
{
  Recorder r = { 0, };
  GstAxProbeTimer t;
  gsize page = sysconf (_SC_PAGESIZE);
  guint8 *mem;
  guint i, id;

  id = gst_ax_probe_add_sink (&recorder_funcs, &r);

  /* a sleep is wall time, not CPU time */
  gst_ax_probe_timer_start (&t);
  fail_unless (t.active);
  g_usleep (SLEEP_US);
  gst_ax_probe_timer_stop (&t, NULL, "m", "sleep",
      GST_AX_PROBE_FLAG_DEVICE_WAIT);
  fail_unless_equals_int (r.n_spans, 1);
  fail_unless (r.last_span.wall_ns >= SLEEP_US * 1000);
  fail_unless (r.last_span.cpu_ns < r.last_span.wall_ns / 2);
  fail_unless_equals_int (r.last_span.flags, GST_AX_PROBE_FLAG_DEVICE_WAIT);

  /* touching fresh anonymous pages costs one minor fault each */
  mem = mmap (NULL, page * TOUCH_PAGES, PROT_READ | PROT_WRITE,
      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  fail_unless (mem != MAP_FAILED);
  gst_ax_probe_timer_start (&t);
  for (i = 0; i < TOUCH_PAGES; i++)
    mem[i * page] = 1;
  gst_ax_probe_timer_stop (&t, NULL, "m", "touch", 0);
  munmap (mem, page * TOUCH_PAGES);
  fail_unless (r.last_span.faults >= TOUCH_PAGES,
      "faults %" G_GUINT64_FORMAT, r.last_span.faults);
  fail_unless (r.last_span.faults < TOUCH_PAGES * 2);

  gst_ax_probe_remove_sink (id);
}

GST_END_TEST;

static Suite *
probe_suite (void)
{
  Suite *s = suite_create ("ax-probe");
  TCase *tc = tcase_create ("general");

  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_inactive_records_nothing);
  tcase_add_test (tc, test_records_reach_sink);
  tcase_add_test (tc, test_timer_measures);
  return s;
}

GST_CHECK_MAIN (probe);
