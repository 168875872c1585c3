#!/usr/bin/env bash
# Every test: unit tests, fake-Gemini tests and end-to-end promptfoo runs (all offline), then the
# end-to-end tests once more on the newest promptfoo release under Node 24 (REELJUDGE_PROMPTFOO=latest).
set -euo pipefail
cd "$(dirname "$0")/.."
export PROMPTFOO_DISABLE_TELEMETRY=1 PROMPTFOO_DISABLE_UPDATE=1
.venv/bin/python -m pytest -q -p no:cacheprovider "$@"
echo "== the end-to-end tests again, on promptfoo $(REELJUDGE_PROMPTFOO=latest bash scripts/promptfoo.sh --version 2>/dev/null | tail -n 1) (newest release)"
set +e
REELJUDGE_PROMPTFOO=latest .venv/bin/python -m pytest -q -p no:cacheprovider -m e2e "$@"
status=$?
if [ $status -eq 5 ]; then echo "(no end-to-end test among the selected tests)"; exit 0; fi
exit $status
