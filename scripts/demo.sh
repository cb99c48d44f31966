#!/usr/bin/env bash
# Sets up and builds gst-ax (see scripts/setup.sh), then runs the demo: the
# detection pipeline on the simulated NPU, profiled by the axprof tracer,
# which prints its benchmark report at EOS. axnms logs each frame's
# detections at INFO level (set GST_DEBUG yourself to change that; DEBUG
# level or above makes axprof refuse to print timings, by design).
set -euo pipefail
top="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
"$top/scripts/setup.sh"
. "$top/scripts/env.sh"

frames="${GST_AX_DEMO_FRAMES:-300}"
echo "gst-ax demo: $frames frames of videotestsrc pattern=ball through"
echo "axletterbox ! axinference (ball-detector on a simulated 4-core metis)"
echo "! axnms ! axoverlay, profiled by GST_TRACERS=axprof"
echo
set -x
GST_DEBUG="${GST_DEBUG:-axnms:4}" GST_TRACERS=axprof gst-launch-1.0 -e \
  videotestsrc pattern=ball num-buffers="$frames" ! \
  video/x-raw,width=1280,height=720,framerate=30/1 ! \
  queue ! axletterbox ! axinference model=ball-detector in-flight=4 ! \
  axnms ! axoverlay ! fakesink
