#!/usr/bin/env bash
# Installs what matsite needs on a Debian machine with Swift already installed, and only
# what is missing. Usage: scripts/install-deps.sh [build|test]
#   build: the C libraries matsite links (libpng, libdeflate, libjpeg-turbo, libwebp, libxml2, libcrypto,
#          giflib, FreeType), Leaflet for the player, for exported loops (export:) the
#          label font (DejaVu) and ffmpeg (MP4), and rclone, the transfer engine
#          `matsite deploy` drives
#   test:  also headless Chromium and Python's Playwright, pytest, axe-playwright-python,
#          Pillow and numpy for the browser tests; OpenSSH's server and client and
#          moto[server] (an S3 API server: Debian packages none) for the deploy tests
set -euo pipefail
mode=${1:-build}
packages=(pkg-config libpng-dev libdeflate-dev libjpeg62-turbo-dev libwebp-dev libxml2-dev libssl-dev zlib1g-dev libjs-leaflet
          libgif-dev libfreetype-dev fonts-dejavu-core ffmpeg rclone)
if [ "$mode" = test ]; then
    packages+=(chromium openssh-server openssh-client)
fi
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
if [ "$mode" = test ]; then
    python3 -c 'import playwright, pytest, axe_playwright_python, PIL, numpy, moto.server, boto3' 2>/dev/null ||
        python3 -m pip install -q playwright pytest axe-playwright-python Pillow numpy 'moto[server]'
fi
command -v swift >/dev/null || { echo "swift is not on PATH: install Swift 6.3 first" >&2; exit 1; }
