#!/usr/bin/env bash
# Renders the plot gallery (every chart kind of bench/src/plot/, drawn from fixed data by the
# test plot_gallery_renders_every_kind) and the farm paper's Figures 4 and 5 as
# `multicomputer predict farm -t chain:16 --te 1ms --figures` draws them (the CLI's default
# costs) to PNG, for docs/plots/ and for looking at.
#
# Usage: scripts/render-plots.sh [OUT_DIR]   (default docs/plots)
# Environment: RENDERER=rsvg (default: rsvg-convert, Debian's librsvg2-bin) or
#              RENDERER=chromium (Debian's chromium, headless: what a browser shows).
# Needs the font the SVGs name and their layout measured: DejaVu Sans (fonts-dejavu-core).
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:-docs/plots}
renderer=${RENDERER:-rsvg}
mkdir -p "$out"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
svg_dir="$work/svg"
profile="$work/chromium"
mkdir -p "$svg_dir" "$profile"

fc-list | grep -q "DejaVuSans.ttf" || {
  echo "render-plots: DejaVu Sans is not installed (apt-get install fonts-dejavu-core)" >&2
  exit 2
}
case "$renderer" in
  rsvg) command -v rsvg-convert >/dev/null || {
    echo "render-plots: rsvg-convert not found (apt-get install librsvg2-bin)" >&2
    exit 2
  } ;;
  chromium) command -v chromium >/dev/null || {
    echo "render-plots: chromium not found (apt-get install chromium)" >&2
    exit 2
  } ;;
  *) echo "render-plots: RENDERER must be rsvg or chromium, not '$renderer'" >&2; exit 2 ;;
esac

PLOT_GALLERY_DIR="$svg_dir" \
  cargo test --quiet -p multicomputer-bench plot_gallery_renders_every_kind >/dev/null
cargo run --quiet -p multicomputer-bench -- predict farm -t chain:16 --te 1ms --figures \
  --out "$work/out" >/dev/null
cp "$work/out/predict-farm/latest/figure4.svg" "$work/out/predict-farm/latest/figure5.svg" "$svg_dir/"

for svg in "$svg_dir"/*.svg; do
  png="$out/$(basename "${svg%.svg}").png"
  case "$renderer" in
    rsvg) rsvg-convert --background-color=white "$svg" -o "$png" ;;
    chromium)
      # The window is the SVG's own size, read from its root element.
      size=$(grep -o -m1 '<svg[^>]*' "$svg" | sed -E 's/.*width="([0-9]+)".*height="([0-9]+)".*/\1,\2/')
      chromium --headless --no-sandbox --disable-gpu --no-first-run \
        --disable-background-networking --disable-component-update --disable-sync \
        --hide-scrollbars --user-data-dir="$profile" --window-size="$size" \
        --screenshot="$(realpath "$out")/$(basename "$png")" "file://$(realpath "$svg")" \
        >/dev/null 2>&1
      ;;
  esac
  echo "$png"
done
