#!/usr/bin/env bash
# Regenerates the Python and TypeScript clients' API types from the
# OpenAPI document of a freshly built askonce. Run it after any change to
# the HTTP API; the clients' tests fail while the committed types differ.
set -euo pipefail
cd "$(dirname "$0")/.."
tmp=$(mktemp -d)
trap 'kill $pid 2>/dev/null || true; rm -rf "$tmp"' EXIT
go build -o "$tmp/askonce" ./cmd/askonce
"$tmp/askonce" serve --addr 127.0.0.1:0 --db "$tmp/askonce.db" >"$tmp/log" 2>&1 &
pid=$!
for _ in $(seq 100); do
  addr=$(grep -o 'addr=127\.0\.0\.1:[0-9]*' "$tmp/log" | head -1 | cut -d= -f2 || true)
  [ -n "$addr" ] && break
  sleep 0.1
done
[ -n "$addr" ] || { cat "$tmp/log" >&2; echo "generate-clients: askonce serve did not start" >&2; exit 1; }
python3 clients/python/generate_models.py "http://$addr"
(cd clients/typescript && npm run --silent generate -- "http://$addr")
