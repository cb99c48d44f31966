/* gst-ax
 * Copyright (C) 2026 gst-ax developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

/* Cost of the probe API per call, with no profiler and with one, against
 * the baseline of a bare loop iteration and of reading the clocks that an
 * active probe needs. */

#include <gst/ax/ax.h>
#include <stdio.h>

#define ITERATIONS_INACTIVE 200000000u
#define ITERATIONS_ACTIVE 2000000u
#define TARGET_INACTIVE_NS 2.0

static volatile guint64 sink_counter;
static volatile guint64 loop_counter;

static void
count_span (const GstAxProbeSpan * span, gpointer user_data)
{
  sink_counter += span->wall_ns;
}

static const GstAxProbeSinkFuncs counting_funcs = { count_span, NULL, NULL };

static gdouble
ns_per_iteration (guint64 start_ns, guint n)
{
  return (gdouble) (gst_ax_probe_now_ns () - start_ns) / n;
}

static gdouble
bench_empty_loop (void)
{
  guint64 t0 = gst_ax_probe_now_ns ();
  guint i;

  for (i = 0; i < ITERATIONS_INACTIVE; i++)
    loop_counter++;
  return ns_per_iteration (t0, ITERATIONS_INACTIVE);
}

static gdouble
bench_inactive_span (void)
{
  GstAxProbeSpan span = { NULL, "model", "stage", 0, 0, 0, 0, 0 };
  guint64 t0 = gst_ax_probe_now_ns ();
  guint i;

  for (i = 0; i < ITERATIONS_INACTIVE; i++) {
    loop_counter++;
    span.wall_ns = i;
    gst_ax_probe_span (&span);
  }
  return ns_per_iteration (t0, ITERATIONS_INACTIVE);
}

static gdouble
bench_timer (guint n)
{
  GstAxProbeTimer t;
  guint64 t0 = gst_ax_probe_now_ns ();
  guint i;

  for (i = 0; i < n; i++) {
    loop_counter++;
    gst_ax_probe_timer_start (&t);
    gst_ax_probe_timer_stop (&t, NULL, "model", "stage", 0);
  }
  return ns_per_iteration (t0, n);
}

int
main (int argc, char **argv)
{
  gdouble empty, inactive, inactive_timer, active_timer;
  guint id;

  gst_init (&argc, &argv);

  empty = bench_empty_loop ();
  inactive = bench_inactive_span ();
  inactive_timer = bench_timer (ITERATIONS_INACTIVE);

  id = gst_ax_probe_add_sink (&counting_funcs, NULL);
  active_timer = bench_timer (ITERATIONS_ACTIVE);
  gst_ax_probe_remove_sink (id);

  printf ("probe API, no profiler active (target < %.1f ns per call):\n",
      TARGET_INACTIVE_NS);
  printf ("  baseline: bare loop iteration        %6.2f ns\n", empty);
  printf ("  gst_ax_probe_span()                  %6.2f ns per call  "
      "(%.2f ns above baseline, ratio %.2fx)\n", inactive, inactive - empty,
      inactive / empty);
  printf ("  gst_ax_probe_timer_start()+stop()    %6.2f ns per pair  "
      "(%.2f ns above baseline)\n", inactive_timer, inactive_timer - empty);
  printf ("probe API, profiler active:\n");
  printf ("  gst_ax_probe_timer_start()+stop()    %6.1f ns per pair  "
      "(%.0fx the inactive pair)\n", active_timer,
      active_timer / inactive_timer);
  printf ("verdict: inactive span %s the %.1f ns target\n",
      inactive - empty < TARGET_INACTIVE_NS ? "meets" : "MISSES",
      TARGET_INACTIVE_NS);
  return 0;
}
