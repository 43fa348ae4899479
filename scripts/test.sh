#!/usr/bin/env bash
# Install dpviz and its test tools into a fresh .venv, make sure Chromium is there (for the
# image-export and real-browser tests), and run the whole test suite.
set -euo pipefail
cd "$(dirname "$0")/.."
rm -rf .venv
python3 -m venv .venv
.venv/bin/python -m pip install --quiet --upgrade pip
.venv/bin/python -m pip install --quiet -r requirements.txt -r requirements-dev.txt

if ! command -v chromium >/dev/null 2>&1 && [ -z "${BROWSER_PATH:-}" ]; then
  if [ "$(id -u)" = "0" ] && command -v apt-get >/dev/null 2>&1; then
    echo "Installing Chromium (Debian package) for image export and browser tests..."
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null
  else
    echo "No Chromium found and cannot apt-get it here: image-export and browser tests will be skipped" \
         "(install Debian's 'chromium' or set BROWSER_PATH)." >&2
  fi
fi

exec .venv/bin/python -m pytest "$@"
