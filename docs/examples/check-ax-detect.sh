#!/bin/sh
# Runs the example application (docs/examples/ax-detect.c) on 30 frames of
# videotestsrc's ball and checks what it prints: detections found, and the
# three figures read from the report, without the tracer's own text.
set -u
FRAMES=30

out=$("$1" --frames "$FRAMES" 2>&1)
status=$?
printf '%s\n' "$out"
fail () {
  echo "check-ax-detect: $1" >&2
  exit 1
}
[ "$status" -eq 0 ] || fail "ax-detect exited with status $status"
printf '%s\n' "$out" | grep -Eq "^detections: [1-9][0-9]* in $FRAMES frames \([1-9][0-9]* frames with at least one\)$" ||
  fail "no detections on the ball"
printf '%s\n' "$out" | grep -Eq '^frame [0-9]+: ball [01]\.[0-9]+ at [0-9]+,[0-9]+ [0-9]+x[0-9]+ px$' ||
  fail "no detection printed with its label and box"
printf '%s\n' "$out" | grep -Eq "^fps: [0-9]+\.[0-9] \($FRAMES frames in [0-9]+\.[0-9]+ s\)$" ||
  fail "no fps figure from the report"
printf '%s\n' "$out" | grep -Eq '^bottleneck: (simulator|device|window|backpressure|source|submission|host|live-paced)( \(.+\))?$' ||
  fail "no bottleneck from the report"
printf '%s\n' "$out" | grep -Eq '^  the constraint is .+$' ||
  fail "no constraint from the report"
printf '%s\n' "$out" | grep -Eq '^device occupancy: [0-9]+\.[0-9]% of [0-9]+ cores on metis \(device-id 0\)$' ||
  fail "no device occupancy from the report"
if printf '%s\n' "$out" | grep -q 'axprof report for'; then
  fail "the tracer printed its report although print=false"
fi
exit 0
