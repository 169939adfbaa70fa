#!/usr/bin/env bash
# matsite as the anchor benchmark runs it (../shared/bench/anchors/run_anchors.sh, MATSITE=),
# with frames put back in loop order for its pixel comparison: the harness copies
# site/loop/frames/*.png in name order, and frames are named by their content, so without
# this it compares frame i with some other frame ("max d=255").
#
#   MATSITE=$PWD/bench/anchors-matsite.sh MATSITE_BIN=.build/release/matsite \
#     bash ../shared/bench/anchors/run_anchors.sh
#   LEVEL=6 ...            # the same job with `compression: 6` (zlib) instead of the default
#
# It is called as `matsite build --config FILE --no-cache --quiet`.
set -euo pipefail
bin=${MATSITE_BIN:-$(dirname "$0")/../.build/release/matsite}
config=$3
if [ -n "${LEVEL:-}" ]; then
  sed -i "s/^    zoom: \(.*\)\$/    zoom: \1\n    compression: $LEVEL/" "$config"
fi
"$bin" "$@"
python3 - "$(dirname "$config")/site/loop" <<'PY'
import json, os, sys
loop = sys.argv[1]
frames_dir = os.path.join(loop, "frames")
ordered = [f["url"] for f in json.load(open(os.path.join(loop, "manifest.json")))["frames"]]
for i, url in enumerate(ordered):
    os.link(os.path.join(loop, url), os.path.join(frames_dir, "%04d.png" % i))
for name in os.listdir(frames_dir):
    if not (len(name) == 8 and name[:4].isdigit()):
        os.unlink(os.path.join(frames_dir, name))
PY
