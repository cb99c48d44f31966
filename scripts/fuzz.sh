#!/usr/bin/env bash
# Builds the libFuzzer targets of tests/fuzz with clang, AddressSanitizer
# and UndefinedBehaviorSanitizer in their own build dir, then runs each for
# FUZZ_SECONDS (default 30) on a scratch copy of its seed corpus. Works
# offline. Exits non-zero, with the fuzzer's report, on any crash, leak,
# timeout or sanitizer error. Targets named on the command line run alone:
#   FUZZ_SECONDS=600 scripts/fuzz.sh decode annotate
set -euo pipefail
top="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${GST_AX_FUZZ_BUILD_DIR:-$top/build-fuzz}"
seconds="${FUZZ_SECONDS:-30}"
targets=(axm json ir tfjs onnx axprof annotate input decode)
if [ $# -gt 0 ]; then
  targets=("$@")
fi
onnx_node_dir=/usr/share/libonnx-testdata/data/node

if ! command -v clang >/dev/null 2>&1; then
  echo "fuzz.sh: clang is missing; install it with: apt-get install clang libclang-rt-14-dev" >&2
  exit 1
fi
if [ ! -f "$build/build.ninja" ]; then
  CC=clang meson setup "$build" "$top" -Dfuzzing=enabled \
    -Dwerror="$([ "${GST_AX_WERROR:-0}" = 1 ] && echo true || echo false)" \
    -Db_sanitize=address,undefined -Db_lundef=false -Dbenchmarks=disabled
fi
meson compile -C "$build" $(printf 'tests/fuzz/fuzz-%s ' "${targets[@]}")

status=0
for t in "${targets[@]}"; do
  work="$(mktemp -d)"
  cp -r "$top/tests/fuzz/corpus/$t/." "$work/"
  if [ "$t" = onnx ]; then
    # ONNX's node tests, from Debian's libonnx-testdata (not in the tree)
    while read -r seed; do
      case "$seed" in ''|'#'*) continue ;; esac
      if [ -f "$onnx_node_dir/$seed" ]; then
        cp "$onnx_node_dir/$seed" "$work/${seed//\//_}"
      fi
    done < "$top/tests/fuzz/onnx-node-seeds.txt"
  fi
  log="$build/fuzz-$t.log"
  echo "fuzz.sh: fuzz-$t for ${seconds}s on $(ls "$work" | wc -l) seeds"
  # Leaks are checked after each input; not at exit, where GLib's
  # constructor-time tables (grown by gst_init) would show as one.
  if UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
      ASAN_OPTIONS=abort_on_error=1:leak_check_at_exit=0 \
      "$build/tests/fuzz/fuzz-$t" -max_total_time="$seconds" \
      -timeout=25 -rss_limit_mb=2048 -print_final_stats=1 \
      -artifact_prefix="$build/fuzz-$t-" "$work" >"$log" 2>&1; then
    grep -E "stat::number_of_executed_units|Done" "$log" | sed "s/^/  /" || true
  else
    echo "fuzz.sh: fuzz-$t FAILED; the report ($log) ends with:" >&2
    tail -n 40 "$log" >&2
    status=1
  fi
  rm -rf "$work"
done
exit $status
