#!/usr/bin/env bash
# The project's pinned uv (set-up installs it into .tools/uv), e.g. `bash scripts/uv.sh lock`
# after changing the dependencies in pyproject.toml (npm run lock).
set -euo pipefail
cd "$(dirname "$0")/.."
# (a stale lock stops set-up after uv is in place, which is all this needs)
[ -x .tools/uv/bin/uv ] || bash scripts/setup.sh --python-only || [ -x .tools/uv/bin/uv ]
export UV_PYTHON_DOWNLOADS=never
exec .tools/uv/bin/uv "$@"
