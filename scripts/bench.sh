#!/usr/bin/env bash
# Installs the libraries the benchmarks compare against (bench-only: the
# product never links them), sets up and builds gst-ax (see
# scripts/setup.sh), then runs every benchmark and prints what each one
# measured. Extra arguments go to `meson test` (e.g. a benchmark's name:
# simnpu, tracer, probe, ...). docs/benchmarks.md says what they print.
set -euo pipefail

top="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build_dir="${GST_AX_BUILD_DIR:-$top/build}"

# oneDNN and XNNPACK (int8 convolutions), OpenCV (letterbox), textoverlay
# (overlay)
packages=(libdnnl-dev libxnnpack-dev libpthreadpool-dev libopencv-dev
  gstreamer1.0-x)

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed"; then
    missing+=("$p")
  fi
done

if [ ${#missing[@]} -gt 0 ]; then
  echo "gst-ax bench: installing missing Debian packages: ${missing[*]}"
  if [ "$(id -u)" -eq 0 ]; then
    sudo_cmd=()
  elif command -v sudo >/dev/null 2>&1; then
    sudo_cmd=(sudo)
  else
    echo "gst-ax bench: cannot install packages as a normal user without sudo." >&2
    echo "Run as root:  apt-get update && apt-get install -y ${missing[*]}" >&2
    exit 1
  fi
  export DEBIAN_FRONTEND=noninteractive
  if ! "${sudo_cmd[@]}" apt-get install -y --no-install-recommends "${missing[@]}"; then
    "${sudo_cmd[@]}" apt-get update
    "${sudo_cmd[@]}" apt-get install -y --no-install-recommends "${missing[@]}" || {
      echo "gst-ax bench: apt-get could not install: ${missing[*]}" >&2
      echo "Install them by hand, then run this command again." >&2
      exit 1
    }
  fi
fi

# setup.sh reconfigures an existing build, so the baselines installed
# above are found
"$top/scripts/setup.sh"
# the compiler's corpus (bench/zoo), which the tests do not need
"$top/scripts/fetch-data.sh" --corpus
# meson shows a benchmark's output only with --verbose (it runs them one
# at a time)
meson test -C "$build_dir" --benchmark --print-errorlogs --verbose "$@"
