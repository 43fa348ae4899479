#!/usr/bin/env bash
# Start the dashboard (the one start command: Docker, a local run and the browser tests use it).
# PORT (default 8501) and DPVIZ_ADDRESS (default 0.0.0.0) choose where it listens;
# DPVIZ_HOSTED=1 caps compute-heavy parameters for a public demo.
set -euo pipefail
cd "$(dirname "$0")/.."
PY="${PYTHON:-python3}"
[ -x .venv/bin/python ] && [ -z "${PYTHON:-}" ] && PY=.venv/bin/python
exec "$PY" -m streamlit run app.py --server.port "${PORT:-8501}" --server.address "${DPVIZ_ADDRESS:-0.0.0.0}" \
  --server.headless true --browser.gatherUsageStats false "$@"
