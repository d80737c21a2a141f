#!/usr/bin/env bash
# Renders HTML reports as a person sees them: headless Chromium (Debian's `chromium`
# package) loads each page from disk, with networking off, and saves a screenshot of the whole
# page beside it (REPORT.png), to be looked at. The page's height is measured first (the page
# in a same-folder frame, its scroll height read back), so that nothing below the window is
# cut off. Fails if Chromium is missing or writes no image.
#
#   scripts/check-report.sh results/sweep-farm/latest/report.html [more.html ...]
#   WIDTH=1280 scripts/check-report.sh report.html      # HEIGHT=2000 fixes the height instead
#   SCALE=0.5 scripts/check-report.sh report.html       # the image at half size (docs/images)
#
# Install Chromium with: apt-get install chromium (as root it runs with --no-sandbox).
set -euo pipefail
width=${WIDTH:-1280}
scale=${SCALE:-1}
max_height=16384
if ! command -v chromium >/dev/null; then
    echo "chromium is not installed (apt-get install chromium)" >&2
    exit 1
fi
[ "$#" -ge 1 ] || { echo "usage: $0 REPORT.html..." >&2; exit 2; }
headless=(chromium --headless --no-sandbox --disable-gpu --no-first-run
    --disable-background-networking --disable-component-update --disable-sync)

# The scroll height of `page` at `width`, read back through the title of a frame holder.
page_height() {
    local page=$1 profile holder h
    profile=$(mktemp -d)
    holder=$(mktemp --suffix=.html)
    cat >"$holder" <<HTML
<!doctype html><html><head><title>0</title></head><body style="margin:0">
<iframe style="width:${width}px;height:100px;border:0" src="file://$page"
 onload="document.title=this.contentDocument.documentElement.scrollHeight"></iframe>
</body></html>
HTML
    h=$("${headless[@]}" --allow-file-access-from-files --user-data-dir="$profile" \
        --virtual-time-budget=5000 --dump-dom "file://$holder" 2>/dev/null |
        sed -n 's:.*<title>\([0-9]*\)</title>.*:\1:p' | head -n1)
    rm -rf "$profile" "$holder"
    echo "${h:-0}"
}

for page in "$@"; do
    [ -f "$page" ] || { echo "$page: no such file" >&2; exit 2; }
    png="${page%.*}.png"
    height=${HEIGHT:-$(page_height "$(realpath "$page")")}
    if [ "$height" -le 0 ]; then
        echo "$page: could not measure the page's height; using 2000 px" >&2
        height=2000
    elif [ "$height" -gt "$max_height" ]; then
        echo "$page: the page is $height px high; capturing the first $max_height" >&2
        height=$max_height
    fi
    profile=$(mktemp -d)
    rm -f "$png"
    "${headless[@]}" --hide-scrollbars --user-data-dir="$profile" --screenshot="$png" \
        --force-device-scale-factor="$scale" --window-size="$width,$height" \
        "file://$(realpath "$page")" >/dev/null 2>&1 || true
    rm -rf "$profile"
    if [ ! -s "$png" ]; then
        echo "$page: Chromium wrote no screenshot" >&2
        exit 1
    fi
    echo "$png ($width × $height px at scale $scale)"
done
