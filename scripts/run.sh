#!/usr/bin/env bash
# Set everything up, then start the console headless on 127.0.0.1.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
PORT=${GROUNDWORK_PORT:-8501}
echo "Groundwork console: http://127.0.0.1:${PORT}"
exec .venv/bin/python -m streamlit run app.py --server.headless true \
  --server.address 127.0.0.1 --server.port "$PORT" --browser.gatherUsageStats false
