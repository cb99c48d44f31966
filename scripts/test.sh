#!/usr/bin/env bash
# Sets up and builds gst-ax (see scripts/setup.sh), then runs the whole
# test suite. Extra arguments go to `meson test`.
#
#   --under-load   run the suite on a machine kept busy by other work: four
#                  CPU hogs per core (stress-ng where installed, else busy
#                  shell loops) for the whole run, as on a shared CI host.
#                  GST_AX_LOAD_PER_CORE sets how many hogs per core.
set -euo pipefail
top="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build_dir="${GST_AX_BUILD_DIR:-$top/build}"
under_load=0
if [ "${1:-}" = "--under-load" ]; then
  under_load=1
  shift
fi
"$top/scripts/setup.sh"
if [ "$under_load" = 1 ]; then
  hogs=$(( $(nproc) * ${GST_AX_LOAD_PER_CORE:-4} ))
  pids=()
  if command -v stress-ng > /dev/null; then
    stress-ng --cpu "$hogs" --quiet &
    pids+=($!)
    echo "gst-ax test: under load: stress-ng --cpu $hogs"
  else
    for _ in $(seq "$hogs"); do
      ( while :; do :; done ) &
      pids+=($!)
    done
    echo "gst-ax test: under load: $hogs busy loops on $(nproc) cores"
  fi
  trap 'kill "${pids[@]}" 2> /dev/null || true' EXIT
fi
meson test -C "$build_dir" --print-errorlogs "$@"
