#!/usr/bin/env bash
# Every test: unit tests, fake-Gemini tests and end-to-end promptfoo runs (all offline).
set -euo pipefail
cd "$(dirname "$0")/.."
export PROMPTFOO_DISABLE_TELEMETRY=1 PROMPTFOO_DISABLE_UPDATE=1
exec .venv/bin/python -m pytest -q -p no:cacheprovider "$@"
