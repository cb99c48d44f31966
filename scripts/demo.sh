#!/usr/bin/env bash
# Sets up and builds gst-ax (see scripts/setup.sh), then runs a demo on the
# simulated NPU, profiled by the axprof tracer, which prints its benchmark
# report at EOS.
#
#   ./scripts/demo.sh          CenterNet-COCO on the street video vtest.avi
#                              (decodebin, in-flight 4), then a few frames
#                              with their boxes drawn as PNGs in build/demo/
#   ./scripts/demo.sh ball     the ball detector on videotestsrc's ball;
#                              axnms logs each frame's detections
#
# Environment: GST_AX_DEMO_FRAMES (frames of vtest.avi to profile, default
# 200 of its 795; the ball demo's default is 300), GST_AX_DEMO_PNGS
# (annotated frames written, default 4), GST_AX_DATA_DIR, GST_AX_BUILD_DIR.
# A GST_DEBUG at DEBUG level or above makes axprof refuse to print timings,
# by design.
set -euo pipefail
top="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build_dir="${GST_AX_BUILD_DIR:-$top/build}"
data_dir="${GST_AX_DATA_DIR:-$top/data}"

# vtest.avi: 795 frames of 768x576 at 10 fps
clip_frames=795
clip_fps=10
# what one CenterNet frame costs end to end on a 2-core host, start-up
# and the pictures included (sim-npu computes the network on the CPU:
# measured 11 ms of simulator CPU per frame, the whole demo in 13 s); the
# estimate printed below scales with it
centernet_ms_per_frame=50

demo="${1:-centernet}"
case "$demo" in
  centernet|ball) ;;
  -h|--help)
    sed -n '2,17p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'
    exit 0 ;;
  *)
    echo "usage: $0 [centernet|ball]" >&2
    exit 2 ;;
esac

positive_int () {
  case "$2" in
    ''|*[!0-9]*|0) echo "gst-ax demo: $1 must be a positive integer, got '$2'" >&2
      exit 2 ;;
  esac
}

"$top/scripts/setup.sh"
. "$top/scripts/env.sh"

if [ "$demo" = ball ]; then
  frames="${GST_AX_DEMO_FRAMES:-300}"
  positive_int GST_AX_DEMO_FRAMES "$frames"
  echo "gst-ax demo: $frames frames of videotestsrc pattern=ball through"
  echo "axletterbox ! axinference (ball-detector on a simulated 4-core metis)"
  echo "! axnms ! axoverlay, profiled by GST_TRACERS=axprof (a few seconds)"
  echo
  set -x
  GST_DEBUG="${GST_DEBUG:-axnms:4}" GST_TRACERS=axprof gst-launch-1.0 -e \
    videotestsrc pattern=ball num-buffers="$frames" ! \
    video/x-raw,width=1280,height=720,framerate=30/1 ! \
    queue ! axletterbox ! axinference model=ball-detector in-flight=4 ! \
    axnms ! axoverlay ! fakesink
  exit
fi

frames="${GST_AX_DEMO_FRAMES:-200}"
pngs="${GST_AX_DEMO_PNGS:-4}"
positive_int GST_AX_DEMO_FRAMES "$frames"
positive_int GST_AX_DEMO_PNGS "$pngs"
[ "$frames" -le "$clip_frames" ] || frames=$clip_frames
[ "$pngs" -le "$frames" ] || pngs=$frames
video="$data_dir/opencv/vtest.avi"
out="$build_dir/demo"
if [ ! -f "$video" ]; then
  echo "gst-ax demo: $video is missing: run scripts/fetch-data.sh" >&2
  echo "(or ./scripts/demo.sh ball, which needs no data)" >&2
  exit 1
fi
if [ ! -f "$build_dir/models/centernet-coco.axm" ]; then
  echo "gst-ax demo: centernet-coco is not built ($build_dir/models):" >&2
  echo "the build found no data in its data_dir; run scripts/setup.sh" >&2
  exit 1
fi

# the serial latency pass runs 30 more frames, one at a time
seconds=$(( ((frames + 30) * centernet_ms_per_frame + 999) / 1000 ))
echo "gst-ax demo: CenterNet-COCO (80 classes, 512x512 input) on the first"
echo "$frames of the $clip_frames frames of vtest.avi (768x576, DivX, decoded by decodebin),"
echo "4 frames in flight on a simulated 4-core Metis, profiled by GST_TRACERS=axprof."
echo "A serial pass of 30 frames at in-flight 1 measures the latency first."
echo "sim-npu computes the network on this machine's CPU, so this takes about"
echo "${seconds} s on a 2-core host (more when it is busy). Ctrl-C stops it and"
echo "still prints the report. GST_AX_DEMO_FRAMES=$clip_frames runs the whole clip."
echo
# gst-ax-benchmark prints the gst-launch-1.0 line it runs (the same report
# as GST_TRACERS=axprof gst-launch-1.0 -e ... on that line)
gst-ax-benchmark centernet-coco --video "$video" --frames "$frames" \
  --in-flight 4 --overlay --print-pipeline

# The pictures come from a second, short run that is not profiled, so that
# encoding PNGs costs the report nothing: the same model on $pngs frames
# spread over the profiled ones (videorate keeps one frame every
# frames/pngs), drawn by axoverlay. identity's eos-after=N passes N - 1
# buffers (the Nth becomes the EOS), hence pngs + 1.
echo
echo "gst-ax demo: drawing the detections of $pngs of those frames into $out/ ..."
mkdir -p "$out"
rm -f "$out"/frame-*.png
rate="$((pngs * clip_fps))/$frames"
gst-launch-1.0 -q filesrc location="$video" ! decodebin ! videoconvert ! \
  videorate drop-only=true ! "video/x-raw,framerate=$rate" ! \
  identity eos-after="$((pngs + 1))" ! queue ! axletterbox ! \
  axinference model=centernet-coco in-flight=4 ! axnms ! axoverlay ! \
  videoconvert ! pngenc ! multifilesink location="$out/frame-%02d.png"
for ((i = 0; i < pngs; i++)); do
  printf '  %s  (frame %d of vtest.avi)\n' "$(printf '%s/frame-%02d.png' "$out" "$i")" \
    $(( (2 * i * frames + pngs) / (2 * pngs) ))
done
