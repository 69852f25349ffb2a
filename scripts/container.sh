#!/usr/bin/env bash
# Container image: the Containerfile's context staged from a release build
# of askonce and the host's CA certificates, then built with Podman (or
# Docker when Podman is missing). Nothing is pulled: the image is FROM
# scratch.
#
#   scripts/container.sh [-v VERSION] [-b BINARY] [-t TAG] [-a ARCH]
#
# VERSION defaults to `git describe --tags --always --dirty`; BINARY to a
# fresh scripts/release.sh build for linux/ARCH (ARCH: this machine's);
# TAG to askonce:VERSION. CONTAINER_ENGINE picks the engine and its global
# flags, e.g. "podman --runtime /usr/sbin/runc --cgroup-manager=cgroupfs".
# CA_BUNDLE names the CA certificates (default /etc/ssl/certs/ca-certificates.crt).
set -euo pipefail
start=$PWD
cd "$(dirname "$0")/.."

usage() { sed -n '2,13p' "$0" | sed 's/^# \{0,1\}//'; }
version="" binary="" tag="" arch=""
while getopts "v:b:t:a:h" opt; do
  case $opt in
    v) version=$OPTARG ;;
    b) binary=$OPTARG; [[ $binary = /* ]] || binary="$start/$binary" ;;
    t) tag=$OPTARG ;;
    a) arch=$OPTARG ;;
    h) usage; exit 0 ;;
    *) usage >&2; exit 2 ;;
  esac
done
shift $((OPTIND - 1))
[ $# -eq 0 ] || { usage >&2; exit 2; }
[ -n "$version" ] || version=$(git describe --tags --always --dirty 2>/dev/null || echo devel)
[ -n "$arch" ] || arch=$(go env GOARCH)
[ -n "$tag" ] || tag="askonce:$version"
engine=${CONTAINER_ENGINE:-}
if [ -z "$engine" ]; then
  if command -v podman >/dev/null; then engine=podman
  elif command -v docker >/dev/null; then engine=docker
  else echo "container: neither podman nor docker is installed" >&2; exit 1
  fi
fi
ca=${CA_BUNDLE:-/etc/ssl/certs/ca-certificates.crt}
[ -s "$ca" ] || { echo "container: no CA certificates at $ca (set CA_BUNDLE)" >&2; exit 1; }

ctx=$(mktemp -d)
trap 'rm -rf "$ctx"' EXIT
if [ -z "$binary" ]; then
  scripts/release.sh -B -v "$version" -o "$ctx/dist" "linux/$arch"
  binary="$ctx/dist/askonce_${version}_linux_${arch}"
fi
[ -x "$binary" ] || { echo "container: $binary is not an executable" >&2; exit 1; }
cp "$binary" "$ctx/askonce"
cp "$ca" "$ctx/ca-certificates.crt"
mkdir "$ctx/data" "$ctx/tmp"
echo 'askonce:x:65532:65532:askonce:/data:/askonce' > "$ctx/passwd"
echo 'askonce:x:65532:' > "$ctx/group"

flags=(--platform "linux/$arch" -f "$PWD/Containerfile" -t "$tag")
# Podman writes OCI images by default, which have no HEALTHCHECK.
case $engine in podman*) flags+=(--format docker) ;; esac
$engine build "${flags[@]}" "$ctx" >&2
echo "$tag"
