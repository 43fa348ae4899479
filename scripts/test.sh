#!/usr/bin/env bash
# Install dpviz and its test tools into a fresh .venv, make sure Chromium is there (for the
# image-export and real-browser tests), and run the whole test suite.
set -euo pipefail
cd "$(dirname "$0")/.."
echo "Making a fresh virtual environment in .venv (the previous one, if any, is removed)..."
rm -rf .venv
python3 -m venv .venv
.venv/bin/python -m pip install --quiet --upgrade pip
echo "Installing dpviz's requirements and the test tools with pip (a minute or two on a first run)..."
.venv/bin/python -m pip install --progress-bar on -r requirements.txt -r requirements-dev.txt

# Debian packages the tests drive: Chromium (image export, the real browser, the PDF report),
# HAProxy (the hosted start command's proxy in front of several server processes), poppler
# (pdftotext, pdfimages, pdftoppm: the tests read the PDF report back as a reader's tools do) and
# PostgreSQL (the class store a hosted demo with several server processes shares; the tests start
# and stop a server of their own).
missing=()
command -v chromium >/dev/null 2>&1 || [ -n "${BROWSER_PATH:-}" ] || missing+=(chromium)
command -v haproxy >/dev/null 2>&1 || missing+=(haproxy)
command -v pdftotext >/dev/null 2>&1 || missing+=(poppler-utils)
compgen -G "/usr/lib/postgresql/*/bin/initdb" >/dev/null || command -v initdb >/dev/null 2>&1 || missing+=(postgresql)
if [ "${#missing[@]}" -gt 0 ]; then
  if [ "$(id -u)" = "0" ] && command -v apt-get >/dev/null 2>&1; then
    echo "Installing ${missing[*]} (Debian packages) for the browser, export and serving tests..."
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
  else
    echo "Missing ${missing[*]} and cannot apt-get it here: the tests that need it will be skipped" \
         "(install Debian's 'chromium', 'haproxy', 'poppler-utils' and 'postgresql', or set BROWSER_PATH)." >&2
  fi
fi

# axe-core (the accessibility rules behind Lighthouse's audit), which the accessibility tests run in
# Chromium: npm's own package, unpacked into the venv (npm comes from Debian when missing)
AXE_VERSION=4.10.3
if [ ! -f .venv/axe/axe.min.js ]; then
  if ! command -v npm >/dev/null 2>&1 && [ "$(id -u)" = "0" ] && command -v apt-get >/dev/null 2>&1; then
    echo "Installing npm (Debian) to fetch axe-core for the accessibility tests..."
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq npm >/dev/null
  fi
  if command -v npm >/dev/null 2>&1; then
    echo "Fetching axe-core ${AXE_VERSION} (npm pack) for the accessibility tests..."
    mkdir -p .venv/axe
    (cd .venv/axe && npm pack --silent "axe-core@${AXE_VERSION}" >/dev/null \
      && tar -xzf "axe-core-${AXE_VERSION}.tgz" package/axe.min.js && mv package/axe.min.js . && rm -rf package ./*.tgz)
  else
    echo "npm is missing: the accessibility tests will fail (install Debian's 'npm')." >&2
  fi
fi

# the metric engine's compiled loops are built at install, not at a visitor's first view
.venv/bin/python -m dpviz build

exec .venv/bin/python -m pytest "$@"
