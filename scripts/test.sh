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
exec .venv/bin/python -m pytest "$@"
