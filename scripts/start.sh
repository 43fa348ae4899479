#!/usr/bin/env bash
# Install dpviz into .venv and start the dashboard on its embedded defaults (no downloads by hand).
set -euo pipefail
cd "$(dirname "$0")/.."
python3 -m venv .venv
.venv/bin/python -m pip install --quiet --upgrade pip
.venv/bin/python -m pip install --quiet -r requirements.txt
.venv/bin/python -m pip install --quiet --no-deps -e .  # dpviz itself: the dpviz and dpviz-app commands
.venv/bin/python -m dpviz build  # the metric engine, then every page and its frames on the defaults
echo "dpviz: open http://localhost:${PORT:-8501}"
exec bash scripts/serve.sh "$@"
