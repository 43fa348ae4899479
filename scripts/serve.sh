#!/usr/bin/env bash
# Start the dashboard (the one start command: Docker, a local run and the browser tests use it).
# PORT (default 8501) and DPVIZ_ADDRESS (default 0.0.0.0) choose where it listens;
# DPVIZ_HOSTED=1 caps compute-heavy parameters for a public demo.
#
# DPVIZ_PROCESSES server processes (default: one per core in hosted mode, one otherwise). With more
# than one, each Streamlit process listens on a loopback port of its own and HAProxy (Debian's
# `haproxy`) listens on PORT in front of them: it keeps each browser on its process by a cookie
# (a classroom is thirty browsers behind one address, so not by client address), passes the
# websocket through, and checks each process's health. One Streamlit process runs every visitor's
# Python under one interpreter lock, so this is how a second core (and every core of a bigger
# machine) serves visitors. The processes share the disk cache (DPVIZ_CACHE_DIR). Stopping this
# script (SIGTERM, Ctrl-C) stops them all; if one of them exits, the others are stopped too.
set -euo pipefail
cd "$(dirname "$0")/.."
# One numeric thread per computation: the server's parallelism is its sessions. With more, BLAS
# and OpenMP threads spin for a core that visitors' work already holds; under load one metric-page
# computation took 20-29 s instead of 3-7 s (benchmarks/bench_threads.py). Set DPVIZ_THREADS to change.
export OMP_NUM_THREADS="${DPVIZ_THREADS:-1}" OPENBLAS_NUM_THREADS="${DPVIZ_THREADS:-1}" MKL_NUM_THREADS="${DPVIZ_THREADS:-1}"
PY="${PYTHON:-python3}"
[ -x .venv/bin/python ] && [ -z "${PYTHON:-}" ] && PY=.venv/bin/python
HOSTED=0
[ -n "${DPVIZ_HOSTED:-}" ] && [ "${DPVIZ_HOSTED}" != "0" ] && HOSTED=1
# A public demo shows visitors no traceback or server path, whatever fails (the log keeps it).
DETAILS=full
[ "$HOSTED" = 1 ] && DETAILS=none
PORT="${PORT:-8501}"
ADDRESS="${DPVIZ_ADDRESS:-0.0.0.0}"
if [ "$HOSTED" = 1 ]; then
  # (nproc without the OpenMP variables above, which it would obey)
  PROCESSES="${DPVIZ_PROCESSES:-$(env -u OMP_NUM_THREADS -u OMP_THREAD_LIMIT nproc)}"
else
  PROCESSES="${DPVIZ_PROCESSES:-1}"
fi
case "$PROCESSES" in
  '' | *[!0-9]* | 0) echo "DPVIZ_PROCESSES must be a whole number >= 1, got '$PROCESSES'." >&2; exit 2 ;;
esac
if [ "$PROCESSES" -gt 1 ] && ! command -v haproxy >/dev/null 2>&1; then
  echo "DPVIZ_PROCESSES=$PROCESSES needs HAProxy in front of the processes (Debian: apt-get install -y haproxy);" \
       "serving with one process." >&2
  PROCESSES=1
fi

streamlit_run() {  # streamlit_run PORT ADDRESS [extra args]; run it with &: the subshell becomes the server (exec)
  local port="$1" address="$2"
  shift 2
  exec "$PY" -m streamlit run app.py --client.showErrorDetails "$DETAILS" --server.port "$port" \
    --server.address "$address" --server.headless true --browser.gatherUsageStats false "$@"
}

wait_healthy() {  # wait_healthy PORT...: until each loopback port answers /_stcore/health (3 min at most)
  "$PY" - "$@" <<'EOF'
import sys, time, urllib.request
deadline = time.monotonic() + 180
for port in sys.argv[1:]:
    while time.monotonic() < deadline:
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/_stcore/health", timeout=2) as r:
                if r.read().strip() == b"ok":
                    break
        except OSError:
            time.sleep(0.2)
EOF
}

wake() {  # wake PORT...: a hosted demo's processes start their warm-up now, not at a student's first view
  wait_healthy "$@" && "$PY" -m webui.session_client --wake "$@" || true
}

if [ "$PROCESSES" = 1 ]; then
  [ "$HOSTED" = 1 ] && wake "$PORT" &
  exec "$PY" -m streamlit run app.py --client.showErrorDetails "$DETAILS" --server.port "$PORT" \
    --server.address "$ADDRESS" --server.headless true --browser.gatherUsageStats false "$@"
fi

# Several processes behind HAProxy: free loopback ports for the processes, a generated config.
RUN_DIR="$(mktemp -d "${TMPDIR:-/tmp}/dpviz-serve.XXXXXX")"
mapfile -t BACKEND_PORTS < <("$PY" - "$PROCESSES" <<'EOF'
import socket, sys
socks = []
for _ in range(int(sys.argv[1])):
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    socks.append(s)
for s in socks:
    print(s.getsockname()[1])
EOF
)
"$PY" -m dpviz.proxy_config --address "$ADDRESS" --port "$PORT" --backends "${BACKEND_PORTS[@]}" \
  --stats-socket "$RUN_DIR/haproxy.sock" > "$RUN_DIR/haproxy.cfg"

pids=()
stop_all() {
  trap - TERM INT EXIT
  kill -TERM "${pids[@]}" 2>/dev/null || true
  wait 2>/dev/null || true
  rm -rf "$RUN_DIR"
}
trap 'stop_all; exit 143' TERM INT
trap stop_all EXIT
for p in "${BACKEND_PORTS[@]}"; do
  streamlit_run "$p" 127.0.0.1 "$@" &
  pids+=($!)
done
# the proxy starts once every process answers its health check (else it logs them down first)
wait_healthy "${BACKEND_PORTS[@]}"
haproxy -db -f "$RUN_DIR/haproxy.cfg" &
pids+=($!)
[ "$HOSTED" = 1 ] && wake "${BACKEND_PORTS[@]}" &
echo "dpviz: $PROCESSES server processes on 127.0.0.1:${BACKEND_PORTS[*]} behind HAProxy on $ADDRESS:$PORT" \
  "(sessions per process: echo 'show stat' | socat - $RUN_DIR/haproxy.sock)" >&2
# the first of them to exit (a crash, or a stop) ends the whole server
wait -n "${pids[@]}" || true
exit 1
