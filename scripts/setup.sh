#!/usr/bin/env bash
# Idempotent set-up: the project's Python environment (.venv) and npm packages (node_modules).
# Re-installs only when pyproject.toml or package-lock.json changed since the last set-up.
set -euo pipefail
cd "$(dirname "$0")/.."

find_python() {
  for candidate in "${PYTHON:-}" python3 python3.13 python3.12 python3.11 python; do
    [ -n "$candidate" ] || continue
    command -v "$candidate" >/dev/null 2>&1 || continue
    if "$candidate" -c 'import sys; sys.exit(0 if sys.version_info >= (3, 11) else 1)' 2>/dev/null; then
      echo "$candidate"; return 0
    fi
  done
  echo "reeljudge set-up: Python 3.11 or newer is required (set PYTHON=/path/to/python3.11)" >&2
  return 1
}

hash_of() { "$1" -c 'import hashlib,sys; print(hashlib.sha256(open(sys.argv[1],"rb").read()).hexdigest())' "$2"; }

# Headless Chromium for the A/B rating-page tests: Debian's package, never a browser download.
# Installed only when missing and only where apt-get can run (root, as in CI).
if [ ! -x /usr/bin/chromium ] && command -v apt-get >/dev/null 2>&1; then
  if [ "$(id -u)" -eq 0 ]; then
    echo "reeljudge set-up: installing Debian's chromium for the browser tests…" >&2
    DEBIAN_FRONTEND=noninteractive apt-get update -qq >&2
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends chromium >&2
  else
    echo "reeljudge set-up: /usr/bin/chromium is missing; install it with: sudo apt-get install chromium" >&2
  fi
fi

py=$(find_python)
stamp=.venv/.reeljudge-setup
want="$(hash_of "$py" pyproject.toml)"
if [ ! -x .venv/bin/python ] || [ "$(cat "$stamp" 2>/dev/null)" != "$want" ]; then
  echo "reeljudge set-up: creating .venv and installing Python packages…" >&2
  [ -x .venv/bin/python ] || "$py" -m venv .venv
  .venv/bin/python -m pip install --quiet --disable-pip-version-check --upgrade pip >&2
  .venv/bin/python -m pip install --quiet --disable-pip-version-check -e ".[test]" >&2
  echo "$want" > "$stamp"
fi

node_major=$(node -p 'process.versions.node.split(".").map(Number).join(" ")' 2>/dev/null || echo "0 0 0")
read -r major minor _ <<<"$node_major"
if [ "$major" -lt 20 ] || { [ "$major" -eq 20 ] && [ "$minor" -lt 20 ]; }; then
  echo "reeljudge set-up: Node 20.20 or newer is required (found $(node --version 2>/dev/null || echo none))" >&2
  exit 1
fi
nstamp=node_modules/.reeljudge-setup
nwant="$(hash_of .venv/bin/python package-lock.json)"
if [ ! -x node_modules/.bin/promptfoo ] || [ "$(cat "$nstamp" 2>/dev/null)" != "$nwant" ]; then
  echo "reeljudge set-up: installing npm packages (promptfoo)…" >&2
  # `npm ci` trips on an npm 11 lockfile bug (platform-specific optional deps of @swc/core are
  # missing from any lock it writes); `npm install --no-save` installs the locked versions anyway.
  npm install --no-audit --no-fund --no-save --loglevel=error >&2
  echo "$nwant" > "$nstamp"
fi
