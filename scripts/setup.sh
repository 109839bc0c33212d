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
# Scanned PDFs are read by the OCR inside PyMuPDF, which needs Tesseract's language data
# (Debian packages, a few MB): installed when we may, else said once.
if ! ls /usr/share/tesseract-ocr/*/tessdata/eng.traineddata >/dev/null 2>&1 && [ -z "${TESSDATA_PREFIX:-}${GROUNDWORK_TESSDATA:-}" ]; then
  if [ "$(id -u)" = "0" ] && command -v apt-get >/dev/null; then
    echo "setup: installing Tesseract's English and Russian data (scanned PDFs)"
    (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq tesseract-ocr-eng tesseract-ocr-rus >/dev/null) \
      || echo "setup: could not install Tesseract's data; scanned PDFs will be refused with a note"
  else
    echo "setup: scanned PDFs need Tesseract's data: apt install tesseract-ocr-eng tesseract-ocr-rus"
  fi
fi
# The demo tenant, if absent (re-running is a no-op: identical bytes are skipped).
if [ "${GROUNDWORK_SKIP_DEMO:-0}" != "1" ]; then
  if ! .venv/bin/python -m core.cli docs list --tenant demo --json 2>/dev/null | grep -q '"ready"'; then
    echo "setup: ingesting the demo corpus into tenant 'demo'"
    .venv/bin/python -m core.cli ingest --tenant demo data/demo
  fi
fi
