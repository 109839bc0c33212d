#!/usr/bin/env bash
# Set up Groundwork on a fresh machine: .venv with pinned requirements, demo tenant ingested.
# Idempotent: a second run only checks.
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PYTHON:-python3}
if [ ! -x .venv/bin/python ]; then
  echo "setup: creating .venv"
  "$PY" -m venv .venv
fi
stamp=.venv/.requirements.sha256
want=$(sha256sum requirements.txt | cut -d' ' -f1)
if [ "$(cat "$stamp" 2>/dev/null)" != "$want" ]; then
  echo "setup: installing requirements (about a minute)"
  .venv/bin/python -m pip install -q --upgrade pip >/dev/null
  .venv/bin/python -m pip install -q -r requirements.txt
  echo "$want" > "$stamp"
fi
# The demo tenant, if absent (re-running is a no-op: identical bytes are skipped).
if [ "${GROUNDWORK_SKIP_DEMO:-0}" != "1" ]; then
  if ! .venv/bin/python -m core.cli docs list --tenant demo --json 2>/dev/null | grep -q '"ready"'; then
    echo "setup: ingesting the demo corpus into tenant 'demo'"
    .venv/bin/python -m core.cli ingest --tenant demo data/demo
  fi
fi
