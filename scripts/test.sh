#!/usr/bin/env bash
# Sets up and builds gst-ax (see scripts/setup.sh), then runs the whole
# test suite. Extra arguments go to `meson test`.
set -euo pipefail
top="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build_dir="${GST_AX_BUILD_DIR:-$top/build}"
"$top/scripts/setup.sh"
meson test -C "$build_dir" --print-errorlogs "$@"
