#!/usr/bin/env bash
# The project's pinned uv (set-up installs it into .tools/uv), e.g. `bash scripts/uv.sh lock`
# after changing the dependencies in pyproject.toml (npm run lock).
set -euo pipefail
cd "$(dirname "$0")/.."
[ -x .tools/uv/bin/uv ] || bash scripts/setup.sh
export UV_PYTHON_DOWNLOADS=never
exec .tools/uv/bin/uv "$@"
