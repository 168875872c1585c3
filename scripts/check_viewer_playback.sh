#!/usr/bin/env bash
# Real-browser check that clips play in the promptfoo web viewer: runs the video suite into a
# scratch promptfoo folder, starts `promptfoo view`, and opens it in headless Chromium.
# Needs Chromium (Debian: apt-get install chromium) and playwright-core (installed to a temp dir).
set -euo pipefail
cd "$(dirname "$0")/.."
work=$(mktemp -d)
port=${PORT:-15577}
export PROMPTFOO_CONFIG_DIR="$work/promptfoo"
npm install --prefix "$work/pw" --no-audit --no-fund --loglevel=error playwright-core@1.65.1 >/dev/null
bash scripts/promptfoo.sh eval -c promptfooconfig.video.yaml -o "$work/video.json" --no-progress-bar --no-table >/dev/null || true
bash scripts/promptfoo.sh view -p "$port" -n >"$work/view.log" 2>&1 &
view=$!
trap 'kill $view 2>/dev/null || true' EXIT
for _ in $(seq 60); do curl -sf "http://127.0.0.1:$port/" >/dev/null && break; sleep 1; done
NODE_PATH="$work/pw/node_modules" node scripts/check_viewer_playback.cjs "http://127.0.0.1:$port/eval" "${SCREENSHOT:-$work/viewer.png}"
