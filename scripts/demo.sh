#!/usr/bin/env bash
# Sets up and builds gst-ax (see scripts/setup.sh), then runs the demo: a
# detection pipeline profiled by the axprof tracer, which prints its
# benchmark report at EOS.
set -euo pipefail
top="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
"$top/scripts/setup.sh"
. "$top/scripts/env.sh"

frames="${GST_AX_DEMO_FRAMES:-300}"
echo "gst-ax demo: $frames frames of videotestsrc through a profiled pipeline"
set -x
GST_TRACERS=axprof gst-launch-1.0 -e \
  videotestsrc pattern=ball num-buffers="$frames" ! \
  video/x-raw,width=1280,height=720,framerate=30/1 ! \
  queue ! videoconvert ! video/x-raw,format=RGB ! fakesink
