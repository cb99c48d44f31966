#!/usr/bin/env bash
# Runs the tracer and pipeline tests under valgrind memcheck in the normal
# build (./build, or $GST_AX_BUILD_DIR): fails on any invalid read or
# write, use of uninitialised memory, or definitely lost block. "Possibly
# lost" and "still reachable" blocks are GLib's and GStreamer's type and
# registry data kept until exit by design, and are not errors here.
#
#   scripts/valgrind.sh             the tracer and pipeline tests
#   scripts/valgrind.sh NAME...     the named tests (meson test names)
set -euo pipefail
top="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build_dir="${GST_AX_BUILD_DIR:-$top/build}"

if [ ! -f "$build_dir/build.ninja" ]; then
  "$top/scripts/setup.sh"
fi
ninja -C "$build_dir" | tail -n 20

# The tests' registry, built at native speed: under valgrind the tests
# only read it (a scan loads every installed plugin, minutes under memcheck)
GST_PLUGIN_SYSTEM_PATH_1_0='' \
  GST_PLUGIN_PATH_1_0="$build_dir/plugins:$(pkg-config --variable=pluginsdir gstreamer-1.0)" \
  GST_REGISTRY_1_0="$build_dir/tests/registry.dat" GST_REGISTRY_FORK=no \
  gst-inspect-1.0 >/dev/null

supps=(--suppressions="$top/tests/valgrind.supp")
# Debian ships GLib's suppressions (GStreamer's gst.supp is not packaged)
if [ -f /usr/share/glib-2.0/valgrind/glib.supp ]; then
  supps+=(--suppressions=/usr/share/glib-2.0/valgrind/glib.supp)
fi

# plain malloc for every GLib allocation, and freed memory cleared, so that
# memcheck sees each block
export G_SLICE=always-malloc
export G_DEBUG=gc-friendly
# in-process: a forked check test or registry scan would hide the errors
export CK_FORK=no
export GST_REGISTRY_FORK=no

wrapper="env GST_REGISTRY_UPDATE=no valgrind --tool=memcheck --error-exitcode=99 --leak-check=full
  --errors-for-leak-kinds=definite --show-leak-kinds=definite
  --track-origins=no --num-callers=30 ${supps[*]}"

if [ $# -gt 0 ]; then
  tests=("$@")
else
  # the tracer and pipeline tests, less those that assert timings against
  # a ground truth (CPU time, blocked time, queue depth, pacing): memcheck
  # runs 20-50x slower, their assertions fail, and check's abort of a
  # failed test leaves its report unfreed, which would read as a leak
  mapfile -t tests < <(meson introspect "$build_dir" --tests | python3 -c '
import json, sys
timed = ("tracers/axprof", "tracers/axprof-rusage", "tracers/axprof-verdict",
         "tracers/axprof-queues", "tracers/axprobe-usage",
         "tracers/axprobe-usage-rusage")
for t in json.load(sys.stdin):
    short = {s.split(":", 1)[-1] for s in t["suite"]}
    if short & {"tracers", "pipelines"} and t["name"] not in timed:
        print(t["name"])
')
fi
meson test -C "$build_dir" --no-rebuild --print-errorlogs \
  --timeout-multiplier 20 --wrapper "$wrapper" "${tests[@]}"
