#!/usr/bin/env bash
# dpviz's tests, in two tiers (docs/testing.md):
#
#   bash scripts/test.sh            every test, from a fresh .venv (what CI runs): installs dpviz's
#                                   requirements and the test tools, the Debian packages the tests
#                                   drive (Chromium and its headless shell, HAProxy, poppler,
#                                   PostgreSQL, Node.js) and
#                                   axe-core, then runs Node's tests of the page's chart script
#                                   and the whole pytest suite
#   bash scripts/test.sh quick      the unit, figure and AppTest tests: no server, browser,
#                                   database, kernel or cluster (the markers in pyproject.toml);
#                                   reuses .venv while the requirements files and pyproject.toml
#                                   are unchanged
#
# Arguments after the tier go to pytest (bash scripts/test.sh quick -k frames; bash scripts/test.sh
# tests/core -x).
set -euo pipefail
cd "$(dirname "$0")/.."
# compiled modules (and pytest's rewritten test modules) are kept in __pycache__, where an
# environment said not to: every test process, server and command-line call compiled dpviz and
# the tests again (7 s of each pytest process's 11-s start)
unset PYTHONDONTWRITEBYTECODE
TIER=full
if [ "${1:-}" = "quick" ]; then
  TIER=quick
  shift
fi

want=$(cat requirements.txt requirements-dev.txt pyproject.toml | sha256sum | cut -d' ' -f1)
if [ "$TIER" = quick ] && [ -x .venv/bin/python ] && [ "$(cat .venv/.requirements 2>/dev/null)" = "$want" ]; then
  echo "Reusing .venv (requirements unchanged since it was made)."
else
  echo "Making a fresh virtual environment in .venv (the previous one, if any, is removed)..."
  rm -rf .venv
  python3 -m venv .venv
  .venv/bin/python -m pip install --quiet --upgrade pip
  echo "Installing dpviz's requirements and the test tools with pip (a minute or two on a first run)..."
  # --no-compile: pip compiles every module of every package (43 s of the install, against 17 s
  # without); the tests compile the modules they import on first import and keep them (__pycache__,
  # about 6 s), a few thousand of plotly's and the others' modules are never imported
  .venv/bin/python -m pip install --no-compile --progress-bar on -r requirements.txt -r requirements-dev.txt
  # dpviz itself, editable (its requirements are the pins above): the dpviz and dpviz-app commands, and
  # the benchmarks import it from any folder
  .venv/bin/python -m pip install --quiet --no-deps -e .
  echo "$want" > .venv/.requirements
fi

apt_install() {  # apt_install PACKAGE...: Debian packages, where this user may install them
  if [ "$(id -u)" = "0" ] && command -v apt-get >/dev/null 2>&1; then
    echo "Installing $* (Debian packages) for the tests..."
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$@" >/dev/null
  else
    echo "Missing $* and cannot apt-get it here: the tests that need it will be skipped or fail" \
         "(install Debian's $*)." >&2
  fi
}

# Node.js runs the page's chart script's own tests (tests/js, node --test)
command -v node >/dev/null 2>&1 || apt_install nodejs

if [ "$TIER" = full ]; then
  # Debian packages the tests drive: Chromium (image export, the real browser, the PDF report),
  # HAProxy (the hosted start command's proxy in front of several server processes), poppler
  # (pdftotext, pdfimages, pdftoppm: the tests read the PDF report back as a reader's tools do) and
  # PostgreSQL (the class store a hosted demo with several server processes shares; the tests start
  # and stop a server of their own).
  missing=()
  command -v chromium >/dev/null 2>&1 || [ -n "${BROWSER_PATH:-}" ] || missing+=(chromium)
  # the browser tests drive Chromium's headless shell (a third less CPU per page than the full browser)
  command -v chromium-headless-shell >/dev/null 2>&1 || missing+=(chromium-headless-shell)
  command -v haproxy >/dev/null 2>&1 || missing+=(haproxy)
  command -v pdftotext >/dev/null 2>&1 || missing+=(poppler-utils)
  compgen -G "/usr/lib/postgresql/*/bin/initdb" >/dev/null || command -v initdb >/dev/null 2>&1 || missing+=(postgresql)
  command -v npm >/dev/null 2>&1 || missing+=(npm)
  [ "${#missing[@]}" -eq 0 ] || apt_install "${missing[@]}"

  # axe-core (the accessibility rules behind Lighthouse's audit), which the accessibility tests run
  # in Chromium: npm's own package, unpacked into the venv
  AXE_VERSION=4.10.3
  if [ ! -f .venv/axe/axe.min.js ]; then
    if command -v npm >/dev/null 2>&1; then
      echo "Fetching axe-core ${AXE_VERSION} (npm pack) for the accessibility tests..."
      mkdir -p .venv/axe
      (cd .venv/axe && npm pack --silent "axe-core@${AXE_VERSION}" >/dev/null \
        && tar -xzf "axe-core-${AXE_VERSION}.tgz" package/axe.min.js && mv package/axe.min.js . && rm -rf package ./*.tgz)
    else
      echo "npm is missing: the accessibility tests will fail (install Debian's 'npm')." >&2
    fi
  fi
fi

# the metric engine's compiled loops are built at install, not at a visitor's first view (the pages and
# their frames, which `dpviz build` also computes at install, the tests compute into caches of their own)
.venv/bin/python -m dpviz build --engine-only

if command -v node >/dev/null 2>&1; then
  echo "Node's tests of the page's chart script (webui/live_js, tests/js):"
  node --test --test-reporter=spec tests/js/
else
  echo "Node.js is missing: the chart script's own tests (tests/js) are not run." >&2
  [ "$TIER" = full ] && exit 1
fi

# the tests spread over the cores: the full run by file (a file's module fixtures, its server, stay
# in one process); the quick tier, which starts no server, test by test, an idle process taking
# tests from the busy one's share (pytest-xdist's worksteal: 2 min 57 s against 3 min 03 s by
# file, whose last file ran on alone). DPVIZ_TEST_WORKERS processes (default 2; 0 runs them in
# this one), DPVIZ_TEST_DIST another of pytest-xdist's ways.
DIST=loadfile
[ "$TIER" = quick ] && DIST=worksteal
WORKERS=(-n "${DPVIZ_TEST_WORKERS:-2}" --dist "${DPVIZ_TEST_DIST:-$DIST}")
[ "${DPVIZ_TEST_WORKERS:-2}" = 0 ] && WORKERS=()
if [ "$TIER" = quick ]; then
  # the fastText stand-in the tests train (25 s) is kept in the venv between quick runs, one folder
  # per version of its training code (tests/shared_models.py); the full run trains it once
  models=$(sha256sum dpviz/data/fasttext_local.py | cut -c1-16)
  export DPVIZ_TEST_MODELS="$PWD/.venv/test-models/$models"
  exec .venv/bin/python -m pytest "${WORKERS[@]}" -m "not (browser or server or postgres or kernel or chromium or cluster or slow)" "$@"
fi
exec .venv/bin/python -m pytest "${WORKERS[@]}" "$@"
