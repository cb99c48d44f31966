#!/usr/bin/env python3
# gst-ax
# Copyright (C) 2026 gst-ax developers
#
# This library is free software; you can redistribute it and/or
# modify it under the terms of the GNU Library General Public
# License as published by the Free Software Foundation; either
# version 2 of the License, or (at your option) any later version.

"""gst-ax example in Python: profile a section of a detection pipeline.

It turns the axprof tracer on from code, builds the detection pipeline,
reads each frame's detections through libgstax in a pad probe, profiles
the run after its first frames with a `with` block (holding the source at
the start, so that the section counts exactly the frames after them),
prints one line per row of the report, most expensive first, then reads
the report the tracer posts on the bus at EOS.

    . scripts/env.sh
    python3 docs/examples/ax-profile.py [--model NAME] [--frames N]

It needs PyGObject (Debian python3-gi, gir1.2-gstreamer-1.0,
gir1.2-gst-plugins-base-1.0) and the GstAx-1.0 typelib (built with
-Dintrospection=enabled, found through GI_TYPELIB_PATH uninstalled).
"""

import argparse
import sys
import threading

import gi

gi.require_version("Gst", "1.0")
gi.require_version("GstAx", "1.0")
from gi.repository import GLib, Gst, GstAx  # noqa: E402

WIDTH, HEIGHT, FPS = 320, 240, 30
# the frames left out of the profile: model load, first allocations
WARMUP_FRAMES = 10
# detections printed one by one before only counting them
DETECTIONS_SHOWN = 3


class Profiler:
    """Profiles what a pipeline runs inside a `with` block.

    The block is a section of the axprof tracer (gst_ax_profiler_start()
    and gst_ax_profiler_stop()); summary() reads the section's report.
    """

    def __init__(self, pipeline):
        self.pipeline = pipeline
        self.report = None

    def __enter__(self):
        GstAx.profiler_start(self.pipeline)
        return self

    def __exit__(self, *exc):
        self.report = GstAx.profiler_stop(self.pipeline)
        return False

    def summary(self):
        """One dict per row, keyed model/row (a row of no model by its
        bare name), most expensive (total wall time) first."""
        rows = {}
        for row in self.report.get_rows().unpack():
            key = row["name"]
            if row["group"] != "pipeline":
                key = row["group"] + "/" + key
            rows[key] = row
        return dict(sorted(rows.items(), key=lambda kv: kv[1]["total_ms"],
                           reverse=True))


class Detections:
    """Counts and shows the detections a pad probe reads from each frame's
    region-of-interest metas."""

    def __init__(self):
        self.frames = 0
        self.detections = 0
        self.frames_with = 0
        self.warm = threading.Event()
        self.lines = []

    def on_buffer(self, pad, info):
        # runs on the sink's streaming thread
        found = GstAx.Detection.get_all(info.get_buffer())
        for det in found:
            if self.detections < DETECTIONS_SHOWN:
                # the box is normalised to the frame; the ROI's pixel box
                # is the same box times the frame size
                x, y = det.x_min * WIDTH, det.y_min * HEIGHT
                w = (det.x_max - det.x_min) * WIDTH
                h = (det.y_max - det.y_min) * HEIGHT
                self.lines.append(
                    f"frame {self.frames}: {det.label or '?'} "
                    f"{det.confidence:.2f} at {x:.0f},{y:.0f} "
                    f"{w:.0f}x{h:.0f} px")
            self.detections += 1
        self.frames += 1
        if found:
            self.frames_with += 1
        if self.frames == WARMUP_FRAMES:
            self.warm.set()
        return Gst.PadProbeReturn.OK


class Gate:
    """Holds the source before its first frame after the warm-up until
    the section has started. With no frame moving at the section's start,
    the section counts exactly the frames after the warm-up."""

    def __init__(self):
        self.pushed = 0
        self.held = threading.Event()
        self.opened = threading.Event()

    def on_buffer(self, pad, info):
        # runs on the source's streaming thread
        if self.pushed == WARMUP_FRAMES:
            self.held.set()
            self.opened.wait()
        self.pushed += 1
        return Gst.PadProbeReturn.OK


def idle_event(pad):
    """An event set once PAD is not pushing: at once if it is idle, else
    when its push in progress has returned."""
    idle = threading.Event()

    def on_idle(pad, info):
        idle.set()
        return Gst.PadProbeReturn.REMOVE

    pad.add_probe(Gst.PadProbeType.IDLE, on_idle)
    return idle


def build_pipeline(model, frames, detections, gate):
    pipeline = Gst.parse_launch(
        f"videotestsrc name=src pattern=ball num-buffers={frames} ! "
        f"video/x-raw,format=RGB,width={WIDTH},height={HEIGHT},"
        f"framerate={FPS}/1 ! queue ! axletterbox name=letterbox ! "
        f"axinference name=inference model={model} ! axnms name=nms ! "
        "fakesink name=sink sync=false")
    pad = pipeline.get_by_name("sink").get_static_pad("sink")
    pad.add_probe(Gst.PadProbeType.BUFFER, detections.on_buffer)
    pad = pipeline.get_by_name("src").get_static_pad("src")
    pad.add_probe(Gst.PadProbeType.BUFFER, gate.on_buffer)
    return pipeline


class Bus:
    """Pops a pipeline's bus messages and keeps the report the tracer
    posts at EOS (the axprof-report element message)."""

    def __init__(self, pipeline):
        self.bus = pipeline.get_bus()
        self.eos_report = None

    def wait_for(self, done, poll_ms=20):
        """Pops messages until done() (asked every poll_ms) or EOS;
        raises on an ERROR."""
        while not done():
            msg = self.bus.timed_pop_filtered(
                poll_ms * Gst.MSECOND, Gst.MessageType.ERROR
                | Gst.MessageType.EOS | Gst.MessageType.ELEMENT)
            if msg is None:
                continue
            if msg.type == Gst.MessageType.ERROR:
                err, debug = msg.parse_error()
                raise RuntimeError(f"{msg.src.get_name()}: {err.message}")
            if msg.type == Gst.MessageType.ELEMENT:
                if msg.has_name("axprof-report"):
                    # the message's structure only lends its report:
                    # ref() keeps it once the message is gone
                    s = msg.get_structure()
                    self.eos_report = s.get_value("report").ref()
                continue
            return True
        return False


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", default="ball-detector")
    parser.add_argument("--frames", type=int, default=60)
    args = parser.parse_args()
    if args.frames <= WARMUP_FRAMES:
        parser.error(f"--frames must be over the {WARMUP_FRAMES} warm-up "
                     "frames")

    Gst.init(None)
    # before any pipeline exists, as GST_TRACERS=axprof would; print=false:
    # the report comes as data, not as text on stdout
    try:
        GstAx.profiler_enable("print=false")
    except GLib.Error as e:
        sys.exit(f"cannot enable axprof: {e.message}")

    detections = Detections()
    gate = Gate()
    pipeline = build_pipeline(args.model, args.frames, detections, gate)
    bus = Bus(pipeline)
    try:
        pipeline.set_state(Gst.State.PLAYING)
        # the first frames run outside the profile: the source is held
        # after them until they have all reached the sink. The held call
        # straddles the section's start and counts in it, so the wait is
        # asked about every millisecond, not every 20
        if bus.wait_for(lambda: gate.held.is_set()
                        and detections.warm.is_set(), poll_ms=1):
            sys.exit(f"the run ended before {WARMUP_FRAMES} frames")
        # the sink's probe saw the last warm-up frame before the sink and
        # axnms had finished with it: wait until axinference's output
        # thread has returned from pushing it, which holds both calls
        if bus.wait_for(idle_event(pipeline.get_by_name("inference")
                                   .get_static_pad("src")).is_set,
                        poll_ms=1):
            sys.exit("the run ended during the warm-up")
        prof = Profiler(pipeline)
        with prof:
            gate.opened.set()
            bus.wait_for(lambda: False)
    except RuntimeError as e:
        sys.exit(f"error: {e}")
    finally:
        gate.opened.set()
        pipeline.set_state(Gst.State.NULL)

    for line in detections.lines:
        print(line)
    print(f"detections: {detections.detections} in {detections.frames} "
          f"frames ({detections.frames_with} frames with at least one)")

    report = prof.report
    print(f"section: {GstAx.report_status_to_string(report.status)}, "
          f"{report.frames} frames in {report.wall_s:.2f} s "
          f"({report.fps:.1f} fps)")
    print(f"{'row':40} {'mean':>8} {'CPU':>8} {'faults':>7} {'count':>6} "
          f"{'total':>9}")
    for key, m in prof.summary().items():
        print(f"{key:40} {m['mean_ms']:5.2f} ms {m['cpu_ms']:5.2f} ms "
              f"{m['faults']:7.1f} {m['count']:6d} {m['total_ms']:6.2f} ms")
    verdict = report.get_verdict()
    print(f"the constraint is {verdict.constraint}")

    # the tracer's own report at EOS covers the run from the section's
    # start, as the bus message gives it to any application
    eos = bus.eos_report
    if eos is None:
        sys.exit("no axprof-report message on the bus")
    kind = eos.get_verdict().kind
    print(f"report at EOS: {GstAx.report_status_to_string(eos.status)}, "
          f"{eos.frames} frames, {len(eos.get_rows().unpack())} rows, "
          f"verdict: {GstAx.report_constraint_kind_to_string(kind)}")


if __name__ == "__main__":
    main()
