#!/usr/bin/env bash
# Renders HTML reports as a person sees them: headless Chromium (Debian's `chromium`
# package) loads each page from disk, with networking off, and saves a screenshot beside it
# (REPORT.png), to be looked at. Fails if Chromium is missing or writes no image.
#
#   scripts/check-report.sh results/sweep-farm/latest/report.html [more.html ...]
#   WIDTH=1280 HEIGHT=2000 scripts/check-report.sh report.html
#
# Install Chromium with: apt-get install chromium (as root it runs with --no-sandbox).
set -euo pipefail
width=${WIDTH:-1280}
height=${HEIGHT:-2000}
if ! command -v chromium >/dev/null; then
    echo "chromium is not installed (apt-get install chromium)" >&2
    exit 1
fi
[ "$#" -ge 1 ] || { echo "usage: $0 REPORT.html..." >&2; exit 2; }
for page in "$@"; do
    [ -f "$page" ] || { echo "$page: no such file" >&2; exit 2; }
    png="${page%.*}.png"
    profile=$(mktemp -d)
    rm -f "$png"
    chromium --headless --no-sandbox --disable-gpu --no-first-run \
        --disable-background-networking --disable-component-update --disable-sync \
        --user-data-dir="$profile" --screenshot="$png" --window-size="$width,$height" \
        "file://$(realpath "$page")" >/dev/null 2>&1 || true
    rm -rf "$profile"
    if [ ! -s "$png" ]; then
        echo "$page: Chromium wrote no screenshot" >&2
        exit 1
    fi
    echo "$png"
done
