#!/usr/bin/env bash
# Builds dpviz's plotly.js (static/plotly/plotly-dpviz-<version>.min.js, and .gz) from npm's plotly.js:
# its core and the trace types entry.js registers, bundled and minified by esbuild as an ES
# module that sets window.Plotly. The built file is committed (the app must work offline, with
# no Node.js): run this only to change the trace types or plotly.js's version (package.json),
# then update webui/plotly_bundle.py's BUNDLE and its test's size.
#
#   bash scripts/plotly_bundle/build.sh
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
cp "$here/package.json" "$here/entry.js" "$work/"
cd "$work"
npm install --silent --no-audit --no-fund >/dev/null
version="$(node -p 'require("plotly.js/package.json").version')"
out="$here/../../static/plotly/plotly-dpviz-${version}.min.js"
# plotly.js's sources name Node's `global` (the page's globalThis) and require maplibre's CSS for
# map traces, which dpviz does not draw (left out)
npx esbuild entry.js --bundle --minify --format=esm --target=es2020 --define:global=globalThis --loader:.css=empty \
  --legal-comments=eof --log-level=warning --outfile="$out"
# and gzipped, as the page fetches it: served as it is (an archive Streamlit's server does not
# compress again on every request) and unpacked in the browser (webui/plotly_bundle.py)
gzip -9 -n -c "$out" > "$out.gz"
echo "$(basename "$out"): $(wc -c < "$out") bytes, sha256 $(sha256sum "$out" | cut -d' ' -f1); gzipped $(wc -c < "$out.gz")"
