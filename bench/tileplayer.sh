#!/usr/bin/env bash
# matsite's player beside a tile-per-frame Leaflet page (issue 35 item 4): figures, not a test.
# What it measures and prints: bench/tileplayer.py's docstring and bench/README.md.
#
#   bash bench/tileplayer.sh                     # release build, then every row, 5 runs each
#   QUICK=1 bash bench/tileplayer.sh             # one run, one row, to try it out
#   RUNS=3 ROWS=national:h2 MATSITE_BIN=.build/debug/matsite bash bench/tileplayer.sh
#
# Installs what is missing (Debian: nginx, openssl, chromium, libjs-leaflet; PyPI: numpy,
# Pillow, playwright), builds matsite unless MATSITE_BIN names a binary, and runs
# bench/tileplayer.py, which stops its nginx and chromium when it ends.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/.." && pwd)
need=()
command -v nginx >/dev/null || [ -x /usr/sbin/nginx ] || need+=(nginx)
command -v openssl >/dev/null || need+=(openssl)
[ -x /usr/bin/chromium ] || [ -n "${CHROMIUM:-}" ] || need+=(chromium)
[ -f /usr/share/javascript/leaflet/leaflet.js ] || need+=(libjs-leaflet)
if [ ${#need[@]} -gt 0 ]; then
    echo "installing: ${need[*]}" >&2
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null
fi
pip_install() { python3 -m pip install -q "$@" 2>/dev/null || python3 -m pip install -q --break-system-packages "$@"; }
python3 -c 'import numpy, PIL, playwright' 2>/dev/null || pip_install numpy Pillow playwright
if [ -z "${MATSITE_BIN:-}" ]; then
    (cd "$repo" && swift build -c release --product matsite >&2)
    export MATSITE_BIN=$repo/.build/release/matsite
fi
exec python3 "$here/tileplayer.py"
