#!/usr/bin/env bash
# Installs what gst-ax needs on Debian 12 (when run as root, or with sudo),
# then configures and builds it with meson in ./build (or $GST_AX_BUILD_DIR).
# Safe to run again: it only installs what is missing and rebuilds what
# changed. Extra arguments are passed to `meson setup`.
set -euo pipefail

top="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build_dir="${GST_AX_BUILD_DIR:-$top/build}"

packages=(
  build-essential meson ninja-build pkg-config indent
  libglib2.0-dev libjson-glib-dev libxlsxwriter-dev
  libgstreamer1.0-dev libgstreamer-plugins-base1.0-dev
  gstreamer1.0-tools gstreamer1.0-plugins-base gstreamer1.0-plugins-good
  clang libclang-rt-14-dev
  # x264enc (plugins-ugly), avdec_h264 and avenc_aac (libav): the stock
  # transcode and playback pipelines the tracer tests profile, with perf
  # as their reference
  gstreamer1.0-libav gstreamer1.0-plugins-ugly linux-perf nodejs openssl
  libprotobuf-c-dev protobuf-c-compiler libonnx-dev libonnx-testdata
  libpango1.0-dev libcairo2-dev fonts-dejavu-core
  # axprof's metrics= endpoint, and the Prometheus server its test scrapes
  # it with
  libsoup-3.0-dev prometheus
  # GstAx-1.0.gir and its typelib (-Dintrospection), and the Python
  # example and its test (docs/examples/ax-profile.py)
  gobject-introspection libgirepository1.0-dev python3-gi
  gir1.2-gstreamer-1.0 gir1.2-gst-plugins-base-1.0
)

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed"; then
    missing+=("$p")
  fi
done
# Debian's nodejs comes without npm (a package of its own); other builds of
# nodejs (e.g. NodeSource's) bring it and conflict with Debian's npm.
if ! command -v npm >/dev/null 2>&1; then
  missing+=(npm)
fi

if [ ${#missing[@]} -gt 0 ]; then
  echo "gst-ax setup: installing missing Debian packages: ${missing[*]}"
  if [ "$(id -u)" -eq 0 ]; then
    sudo_cmd=()
  elif command -v sudo >/dev/null 2>&1; then
    sudo_cmd=(sudo)
  else
    echo "gst-ax setup: cannot install packages as a normal user without sudo." >&2
    echo "Run as root:  apt-get update && apt-get install -y ${missing[*]}" >&2
    exit 1
  fi
  export DEBIAN_FRONTEND=noninteractive
  if ! "${sudo_cmd[@]}" apt-get install -y --no-install-recommends "${missing[@]}"; then
    "${sudo_cmd[@]}" apt-get update
    "${sudo_cmd[@]}" apt-get install -y --no-install-recommends "${missing[@]}" || {
      echo "gst-ax setup: apt-get could not install: ${missing[*]}" >&2
      echo "Install them by hand, then run this command again." >&2
      exit 1
    }
  fi
fi

# The models, images and video the compiler tests run on, and the TF.js
# oracle (set GST_AX_FETCH_DATA=0 to skip, e.g. offline on a fresh tree).
data_args=()
if [ "${GST_AX_FETCH_DATA:-1}" != 0 ]; then
  "$top/scripts/fetch-data.sh"
fi
if [ -n "${GST_AX_DATA_DIR:-}" ]; then
  data_args=(-Ddata_dir="$GST_AX_DATA_DIR")
fi
# warnings are errors in CI (.ci/run sets GST_AX_WERROR=1), not by default
if [ "${GST_AX_WERROR:-0}" = 1 ]; then
  data_args+=(-Dwerror=true)
fi

if [ ! -f "$build_dir/build.ninja" ]; then
  echo "gst-ax setup: configuring $build_dir"
  meson setup "$build_dir" "$top" "${data_args[@]}" "$@"
else
  # picks up folders added since the last configure (subdirs are found
  # with fs.is_dir, which meson cannot watch)
  meson setup --reconfigure "$build_dir" "$top" "${data_args[@]}" "$@" >/dev/null
fi
echo "gst-ax setup: building"
meson compile -C "$build_dir"
