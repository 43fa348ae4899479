#!/usr/bin/env bash
# Start the dashboard (the one start command: Docker, a local run and the browser tests use it).
# PORT (default 8501) and DPVIZ_ADDRESS (default 0.0.0.0) choose where it listens;
# DPVIZ_HOSTED=1 caps compute-heavy parameters for a public demo.
set -euo pipefail
cd "$(dirname "$0")/.."
# One numeric thread per computation: the server's parallelism is its sessions. With more, BLAS
# and OpenMP threads spin for a core that visitors' work already holds; under load one metric-page
# computation took 20-29 s instead of 3-7 s (benchmarks/bench_threads.py). Set DPVIZ_THREADS to change.
export OMP_NUM_THREADS="${DPVIZ_THREADS:-1}" OPENBLAS_NUM_THREADS="${DPVIZ_THREADS:-1}" MKL_NUM_THREADS="${DPVIZ_THREADS:-1}"
PY="${PYTHON:-python3}"
[ -x .venv/bin/python ] && [ -z "${PYTHON:-}" ] && PY=.venv/bin/python
# A public demo shows visitors no traceback or server path, whatever fails (the log keeps it).
DETAILS=full
[ -n "${DPVIZ_HOSTED:-}" ] && [ "${DPVIZ_HOSTED}" != "0" ] && DETAILS=none
exec "$PY" -m streamlit run app.py --client.showErrorDetails "$DETAILS" --server.port "${PORT:-8501}" --server.address "${DPVIZ_ADDRESS:-0.0.0.0}" \
  --server.headless true --browser.gatherUsageStats false "$@"
