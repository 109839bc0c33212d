#!/usr/bin/env bash
# Run the whole test suite (sets up first if needed). Browser tests need Debian's chromium.
set -euo pipefail
cd "$(dirname "$0")/.."
GROUNDWORK_SKIP_DEMO=1 bash scripts/setup.sh
if [ ! -x /usr/bin/chromium ] && [ "$(id -u)" = "0" ]; then
  echo "test: installing Debian's chromium for the browser tests"
  (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null) \
    || echo "test: could not install chromium; browser tests will be skipped"
fi
if ! ls /usr/share/tesseract-ocr/*/tessdata/rus.traineddata >/dev/null 2>&1 && [ "$(id -u)" = "0" ]; then
  echo "test: installing Tesseract's English and Russian data for the OCR tests"
  (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq tesseract-ocr-eng tesseract-ocr-rus >/dev/null) \
    || echo "test: could not install Tesseract's data; OCR tests will be skipped"
fi
# Two workers, one test file each at a time (a file's module fixtures, such as a console server,
# stay in one process); GROUNDWORK_TEST_WORKERS=0 runs everything in this process.
exec .venv/bin/python -m pytest -n "${GROUNDWORK_TEST_WORKERS:-2}" --dist loadfile "$@"
