#!/usr/bin/env bash
# Checks that every C source tracked by git is in GStreamer's layout
# (headers are left alone, as GStreamer's own hook does, since indent
# misreads G_BEGIN_DECLS). Prints
# the diff of each file that is not and exits 1. Run scripts/gst-indent on
# a file to fix it.
set -euo pipefail
top="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$top"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
status=0
while IFS= read -r f; do
  mkdir -p "$tmp/$(dirname "$f")"
  cp "$f" "$tmp/$f"
  "$top/scripts/gst-indent" "$tmp/$f"
  if ! diff -u "$f" "$tmp/$f" >"$tmp/diff"; then
    cat "$tmp/diff"
    status=1
  fi
done < <(git ls-files '*.c')
[ $status -eq 0 ] && echo "check-format: all files are formatted"
exit $status
