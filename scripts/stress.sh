#!/usr/bin/env bash
# Runs the long forms of the stress tests (tests/check/stress): 10,000
# frames through in-flight=16 with a flushing seek every 500, 100 state
# cycles under the axprof tracer, eight pipelines of 100 frames on one
# shared device, and 90,000 frames (an hour at 25 fps) sampling RSS every
# 10,000. Prints each test's figures; exits non-zero if one fails. Takes
# some minutes. The build dir is GST_AX_BUILD_DIR (default build/).
set -euo pipefail
top="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${GST_AX_BUILD_DIR:-$top/build}"

meson compile -C "$build" tests/check/stress/stress
# the long forms outlast the suite's timeout: let meson wait for them
GST_AX_STRESS=full meson test -C "$build" --timeout-multiplier 0 \
  --verbose stress 2>&1 | grep -E '^stress |:[EF]:|OK|FAIL'
