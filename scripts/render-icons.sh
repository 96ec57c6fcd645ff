#!/usr/bin/env bash
# Renders the application icon (resources/icons/attention-workbench.svg) into the PNG sizes the hicolor
# theme and the window use (resources/icons/hicolor/NxN/apps/attention-workbench.png). Run after editing
# the SVG; the PNGs are committed so that a build needs no SVG renderer. Needs rsvg-convert
# (Debian: librsvg2-bin).
set -euo pipefail
cd "$(dirname "$0")/../resources/icons"
command -v rsvg-convert >/dev/null || { echo "render-icons.sh: needs rsvg-convert (apt-get install librsvg2-bin)" >&2; exit 2; }
for n in 16 24 32 48 64 128 256 512; do
  mkdir -p "hicolor/${n}x${n}/apps"
  rsvg-convert -w "$n" -h "$n" attention-workbench.svg -o "hicolor/${n}x${n}/apps/attention-workbench.png"
done
echo "render-icons.sh: $(ls hicolor | wc -l) sizes written under resources/icons/hicolor"
