#!/usr/bin/env bash
# Runs the pinned promptfoo with the project's interpreter, telemetry and update checks off,
# and its database and media store inside the project (.promptfoo/).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
export PROMPTFOO_PYTHON="${PROMPTFOO_PYTHON:-$root/.venv/bin/python}"
export PROMPTFOO_DISABLE_TELEMETRY=1
export PROMPTFOO_DISABLE_UPDATE=1
export PROMPTFOO_DISABLE_SHARING="${PROMPTFOO_DISABLE_SHARING:-1}"
export PROMPTFOO_CONFIG_DIR="${PROMPTFOO_CONFIG_DIR:-$root/.promptfoo}"
export NODE_NO_WARNINGS=1
exec "$root/node_modules/.bin/promptfoo" "$@"
