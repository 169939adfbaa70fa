#!/usr/bin/env bash
# What a failing or hung tile host costs one build (and one check) of 400 tiles (25 frames
# of 16) with the default http: settings: requests the server got, seconds, exit code.
# MATSITE= the binary (default .build/debug/matsite); PORT= the server's port (18765).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
matsite=${MATSITE:-$here/../.build/debug/matsite}
port=${PORT:-18765}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cat > "$work/matsite.yml" <<YAML
title: Failing host
output: site
cache: cache
animations:
  - id: radar
    bbox: [-10.0, 40.0, 10.0, 52.0]
    zoom: 6
    source: { url: "http://127.0.0.1:$port/{frame}/{z}/{x}/{y}.png" }
    frames: { count: 25 }
YAML
printf '%-8s %-6s %5s %10s %8s %4s\n' mode cmd tiles requests seconds exit
for mode in vary same mixed hung; do
  for command in build check; do
    rm -rf "$work/cache" "$work/site"; : > "$work/counts"
    python3 "$here/failing_host.py" "$mode" "$port" "$work/counts" & server=$!
    for _ in $(seq 50); do (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null && break; sleep 0.1; done
    start=$(date +%s.%N)
    status=0; (cd "$work" && "$matsite" "$command" > /dev/null 2>&1) || status=$?
    end=$(date +%s.%N)
    kill "$server"; wait "$server" 2>/dev/null || true
    read -r total frame0 < "$work/counts" || true
    tiles=$([ "$command" = build ] && echo 400 || echo 25)
    printf '%-8s %-6s %5s %10s %8.1f %4s\n' "$mode" "$command" "$tiles" "${total:-0} (${frame0:-0} f0)" "$(echo "$end - $start" | bc)" "$status"
  done
done
