#!/usr/bin/env bash
# Release build: static, stripped askonce binaries with the version
# stamped, the clients for other languages, and a SHA-256 checksums file.
#
#   scripts/release.sh [-v VERSION] [-o DIR] [-B] [TARGET ...]
#
# TARGET is GOOS/GOARCH; without any, all six of linux, darwin and windows
# on amd64 and arm64. VERSION defaults to `git describe --tags --always
# --dirty`. DIR defaults to dist/. Each binary is DIR/askonce_VERSION_GOOS_GOARCH[.exe].
# Beside them: the TypeScript client as `npm pack` makes it
# (askonce-client-X.Y.Z.tgz, needs npm) and the Python client's wheel
# (askonce-X.Y.Z-py3-none-any.whl, needs python3 with pip; no package
# index); -B builds the binaries only. DIR/checksums.txt lists them all in
# `sha256sum -c` form.
set -euo pipefail
cd "$(dirname "$0")/.."

usage() { sed -n '2,15p' "$0" | sed 's/^# \{0,1\}//'; }
version="" out=dist clients=1
while getopts "v:o:Bh" opt; do
  case $opt in
    v) version=$OPTARG ;;
    o) out=$OPTARG ;;
    B) clients="" ;;
    h) usage; exit 0 ;;
    *) usage >&2; exit 2 ;;
  esac
done
shift $((OPTIND - 1))
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(linux/amd64 linux/arm64 darwin/amd64 darwin/arm64 windows/amd64 windows/arm64)
if [ -z "$version" ]; then
  version=$(git describe --tags --always --dirty 2>/dev/null || echo devel)
fi
case $version in
  *[!A-Za-z0-9._+-]*) echo "release: version $version: only letters, digits and . _ + - please" >&2; exit 2 ;;
esac

mkdir -p "$out"
: > "$out/checksums.txt.new"
for t in "${targets[@]}"; do
  goos=${t%/*} goarch=${t#*/}
  if [ -z "$goos" ] || [ -z "$goarch" ] || [ "$goos" = "$t" ]; then
    echo "release: target $t is not GOOS/GOARCH" >&2; exit 2
  fi
  ext=""; [ "$goos" = windows ] && ext=.exe
  name="askonce_${version}_${goos}_${goarch}${ext}"
  echo "release: $name" >&2
  CGO_ENABLED=0 GOOS=$goos GOARCH=$goarch go build -trimpath \
    -ldflags "-s -w -X github.com/askonce/askonce/internal/buildinfo.Version=$version" \
    -o "$out/$name" ./cmd/askonce
  (cd "$out" && sha256sum "$name") >> "$out/checksums.txt.new"
done
if [ -n "$clients" ]; then
  abs_out=$(cd "$out" && pwd)
  echo "release: the TypeScript client (npm pack) and the Python wheel" >&2
  tgz=$(cd clients/typescript && npm pack --silent --pack-destination "$abs_out" | tail -1)
  python3 -m pip wheel --no-deps --no-index --disable-pip-version-check -q -w "$out" ./clients/python
  whl=$(cd "$out" && ls -t ./*.whl | head -1)
  (cd "$out" && sha256sum "$tgz" "${whl#./}") >> "$out/checksums.txt.new"
fi
mv "$out/checksums.txt.new" "$out/checksums.txt"
ls -l "$out" >&2
