#!/usr/bin/env bash
# Runs the element, tracer and sim-npu runtime tests under ThreadSanitizer
# in their own build dir (build-tsan, or $GST_AX_TSAN_BUILD_DIR), building
# only those tests and what they load. Any TSan report fails the test it
# happens in (halt_on_error), so the script exits non-zero on any report.
# Reports inside GStreamer and GLib themselves, which are not built with
# TSan, are suppressed by tests/tsan.supp (each entry says why).
#
#   scripts/tsan.sh                 the element, tracer and runtime tests
#   scripts/tsan.sh --ci            the short CI subset
#   scripts/tsan.sh NAME...         the named tests (meson test names)
set -euo pipefail
top="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build_dir="${GST_AX_TSAN_BUILD_DIR:-$top/build-tsan}"

# the sim-npu runtime (its worker threads and queues), the tracer tests
# that report on running pipelines (on demand, sections) and that run
# several streams, the interval and metrics threads, and one element test
# of threaded pipelines to EOS
ci_tests=(simnpu/runtime tracers/axprof tracers/axprof-embed tracers/axprof-streams
  tracers/axprof-interval tracers/axprof-metrics
  elements/axshare)

tests=()
suites=(elements tracers)
if [ $# -gt 0 ] && [ "$1" = --ci ]; then
  tests=("${ci_tests[@]}")
  suites=()
  shift
fi
if [ $# -gt 0 ]; then
  tests=("$@")
  suites=()
elif [ ${#suites[@]} -gt 0 ]; then
  tests=(simnpu/runtime)
fi

if [ ! -f "$build_dir/build.ninja" ]; then
  # no data dir: the tests on the real models (minutes under TSan) skip
  meson setup "$build_dir" "$top" -Db_sanitize=thread -Db_lundef=false \
    -Dbenchmarks=disabled -Dfuzzing=disabled \
    -Dwerror="$([ "${GST_AX_WERROR:-0}" = 1 ] && echo true || echo false)" \
    -Ddata_dir="$build_dir/no-data" >/dev/null
fi

# The selected tests by name and suite, and the ninja outputs they need.
mapfile -t selected < <(meson introspect "$build_dir" --tests --targets \
  | python3 -c '
import json, os, sys
info = json.load(sys.stdin)
names = set(sys.argv[2].split()) if sys.argv[2] else set()
suites = set(sys.argv[3].split()) if sys.argv[3] else set()
build = sys.argv[1]
outputs = {}
for t in info["targets"]:
    outputs[t["id"]] = [os.path.relpath(f, build) for f in t["filename"]]
picked = []
for t in info["tests"]:
    short = {s.split(":", 1)[-1] for s in t["suite"]}
    # the real-model tests would only skip here; the usage-probe and
    # verdict tests compare CPU clocks and pacing that the TSan 5-15x
    # slowdown moves out of their tolerances (no race involved)
    slow_sensitive = t["name"].startswith(("tracers/axprobe-usage",
        "tracers/axprof-verdict"))
    if t["name"] in names or (short & suites and "real" not in short
                              and not slow_sensitive):
        picked.append(t)
for t in picked:
    print("test " + t["name"])
for t in picked:
    for d in t["depends"]:
        for f in outputs.get(d, []):
            print("target " + f)
' "$build_dir" "${tests[*]}" "${suites[*]}")

names=()
targets=()
for line in "${selected[@]}"; do
  case "$line" in
    test\ *) names+=("${line#test }") ;;
    target\ *) targets+=("${line#target }") ;;
  esac
done
if [ ${#names[@]} -eq 0 ]; then
  echo "tsan: no test matches: ${tests[*]} ${suites[*]}" >&2
  exit 2
fi

# GMutex, GCond and g_once as TSan sees them (tests/tsan/glib-sync.c)
preload=libtsan-glib-sync.so
targets+=("$preload")

echo "tsan: building ${#targets[@]} targets for ${#names[@]} tests"
ninja -C "$build_dir" $(printf '%s\n' "${targets[@]}" | sort -u) | tail -n 20

# second_deadlock_stack: both stacks of a lock-order report;
# history_size: enough history for the other access of a race found late
# in a long test
export TSAN_OPTIONS="suppressions=$top/tests/tsan.supp:halt_on_error=1:second_deadlock_stack=1:history_size=4:exitcode=66${TSAN_OPTIONS:+:$TSAN_OPTIONS}"
export GST_REGISTRY_FORK=no
# GSlice hands memory from thread to thread behind locks TSan cannot see
export G_SLICE=always-malloc
# in-process tests: a forked check test would report in the child only
export CK_FORK=no
# TSan runs 5-15x slower
meson test -C "$build_dir" --no-rebuild --print-errorlogs \
  --timeout-multiplier 4 --wrapper "env LD_PRELOAD=$build_dir/$preload" \
  "${names[@]}"
