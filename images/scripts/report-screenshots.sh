#!/usr/bin/env bash
# make report-screenshots: renders the conformance report of a run (ARTIFACTS,
# default _artifacts) in headless Chromium, Debian's package (installed when missing
# and root, see scripts/prereqs.sh SCREENSHOT_PREREQS), and saves
#   <artifacts>/screenshot-matrix.png        the top of report.html: verdicts, suites, matrix
#   <artifacts>/screenshot-timing-chart.png  the first crash-loop delay chart
# It fails when the page logs anything to the browser console.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/steps.sh   # CACHE_DIR and its logs/
. scripts/docker.sh  # is_root
. scripts/prereqs.sh
ensure_root_prereqs "make report-screenshots" "$CACHE_DIR/logs/apt-screenshot-prereqs.log" "${SCREENSHOT_PREREQS[@]}"

artifacts=$(cd "$OLDPWD" && realpath "${1:-_artifacts}")
[ -f "$artifacts/report.html" ] || { echo "error: no $artifacts/report.html; run make e2e or make report first" >&2; exit 1; }

# shot URL FILE WIDTH HEIGHT: a screenshot of URL; the console goes to $console.
console=$(mktemp); trap 'rm -f "$console"' EXIT
shot() {
  timeout 120 chromium --headless=new --no-sandbox --disable-gpu --hide-scrollbars \
    --enable-logging=stderr --v=0 --window-size="$3,$4" --screenshot="$2" "$1" 2>>"$console" >/dev/null
  echo "  $2"
}
shot "file://$artifacts/report.html" "$artifacts/screenshot-matrix.png" 1400 2400
chart=$(find "$artifacts/report-charts" -name 'delays-*.svg' 2>/dev/null | sort -V | head -n 1)
if [ -n "$chart" ]; then shot "file://$chart" "$artifacts/screenshot-timing-chart.png" 700 450; fi
if grep -q 'CONSOLE' "$console"; then
  echo "error: report.html logged to the browser console:" >&2; grep 'CONSOLE' "$console" >&2; exit 1
fi
echo "report.html rendered with no console messages"
