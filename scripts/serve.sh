#!/usr/bin/env bash
# Start the dashboard (the one start command: Docker, a local run and the browser tests use it).
#
#   bash scripts/serve.sh            start (PORT, DPVIZ_ADDRESS, DPVIZ_HOSTED, DPVIZ_PROCESSES below)
#   bash scripts/serve.sh restart    replace a running supervised server's processes one at a time
#                                    (a new version mid-term); the proxy keeps answering throughout
#   bash scripts/serve.sh status     each process's state, as supervisord and HAProxy see it
#
# PORT (default 8501) and DPVIZ_ADDRESS (default 0.0.0.0) choose where it listens;
# DPVIZ_HOSTED=1 caps compute-heavy parameters for a public demo.
#
# DPVIZ_PROCESSES server processes (default: one per core in hosted mode, one otherwise). With more
# than one, each Streamlit process listens on a loopback port of its own and HAProxy (Debian's
# `haproxy`) listens on PORT in front of them: it keeps each browser on its process by a cookie
# (a classroom is thirty browsers behind one address, so not by client address), passes the
# websocket through, checks each process's health and sends the visitors of a dead process to a
# live one (serving/proxy_config.py). One Streamlit process runs every visitor's Python under one
# interpreter lock, so this is how a second core (and every core of a bigger machine) serves
# visitors. The processes share the disk cache (DPVIZ_CACHE_DIR).
#
# Hosted, or with more than one process, supervisord (Python's `supervisor` package) runs the
# processes and the proxy (serving/supervision.py): one that dies is started again (with backoff if
# it keeps dying at start, and a log line saying why it ended) while the others serve; the start
# command never ends because one child did. Stopping it (SIGTERM, Ctrl-C) stops them all. The
# control files live in DPVIZ_RUN_DIR (default: $TMPDIR/dpviz-serve-PORT), where `restart` and
# `status` find them.
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
export DPVIZ_RUN_DIR="${DPVIZ_RUN_DIR:-${TMPDIR:-/tmp}/dpviz-serve-$PORT}"

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

case "${1:-}" in
  restart | status)
    exec "$PY" -m serving.supervision "$1" "$DPVIZ_RUN_DIR" ;;
  proxy)
    # HAProxy, once every server process answers (else it starts by logging them all down)
    mapfile -t ports < <(awk '{print $2}' "$DPVIZ_RUN_DIR/backends")
    wait_healthy "${ports[@]}"
    # ended with its supervisor, should that be killed (util-linux's setpriv: the parent-death signal)
    DEATH=()
    command -v setpriv >/dev/null 2>&1 && DEATH=(setpriv --pdeathsig TERM)
    exec "${DEATH[@]}" haproxy -db -f "$DPVIZ_RUN_DIR/haproxy.cfg" ;;
  '') ;;
  *)
    echo "usage: bash scripts/serve.sh [restart | status] (see the comment at the top of this script)" >&2
    exit 2 ;;
esac

if [ "$HOSTED" = 1 ]; then
  # (nproc without the OpenMP variables above, which it would obey)
  PROCESSES="${DPVIZ_PROCESSES:-$(env -u OMP_NUM_THREADS -u OMP_THREAD_LIMIT nproc)}"
else
  PROCESSES="${DPVIZ_PROCESSES:-1}"
fi
case "$PROCESSES" in
  '' | *[!0-9]* | 0) echo "DPVIZ_PROCESSES must be a whole number >= 1, got '$PROCESSES'." >&2; exit 2 ;;
esac
# frame worker processes per server process (webui/frames_pool.py): the cores shared among them
if [ -z "${DPVIZ_FRAME_WORKERS:-}" ]; then
  CORES="$(env -u OMP_NUM_THREADS -u OMP_THREAD_LIMIT nproc)"
  DPVIZ_FRAME_WORKERS=$(( CORES / PROCESSES > 0 ? CORES / PROCESSES : 1 ))
  export DPVIZ_FRAME_WORKERS
fi
if [ "$PROCESSES" -gt 1 ] && ! command -v haproxy >/dev/null 2>&1; then
  echo "DPVIZ_PROCESSES=$PROCESSES needs HAProxy in front of the processes (Debian: apt-get install -y haproxy);" \
       "serving with one process." >&2
  PROCESSES=1
fi
SUPERVISE=0
{ [ "$HOSTED" = 1 ] || [ "$PROCESSES" -gt 1 ]; } && SUPERVISE=1
if [ "$SUPERVISE" = 1 ] && ! "$PY" -c "import supervisor" 2>/dev/null; then
  echo "supervisord (pip install supervisor, in requirements.txt) is missing: serving without restarts." >&2
  SUPERVISE=0
  [ "$PROCESSES" -gt 1 ] && PROCESSES=1
fi

if [ "$SUPERVISE" = 0 ]; then
  exec "$PY" -m streamlit run app.py --client.showErrorDetails "$DETAILS" --server.port "$PORT" \
    --server.address "$ADDRESS" --server.headless true --browser.gatherUsageStats false "$@"
fi

if [ -f "$DPVIZ_RUN_DIR/supervisord.pid" ] && kill -0 "$(cat "$DPVIZ_RUN_DIR/supervisord.pid")" 2>/dev/null; then
  echo "dpviz: a server still runs with $DPVIZ_RUN_DIR (port $PORT); stop it first, or set DPVIZ_RUN_DIR." >&2
  exit 2
fi
rm -rf "$DPVIZ_RUN_DIR"
mkdir -p "$DPVIZ_RUN_DIR"
chmod 700 "$DPVIZ_RUN_DIR"
PROXY=()
if [ "$PROCESSES" = 1 ]; then
  # one supervised process, listening on ADDRESS:PORT itself (no proxy)
  BACKEND_PORTS=("$PORT")
  BACKEND_ADDRESS="$ADDRESS"
else
  # several processes behind HAProxy: free loopback ports for the processes, a generated config
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
  "$PY" -m serving.proxy_config --address "$ADDRESS" --port "$PORT" --backends "${BACKEND_PORTS[@]}" \
    --stats-socket "$DPVIZ_RUN_DIR/haproxy.sock" > "$DPVIZ_RUN_DIR/haproxy.cfg"
  PROXY=(--proxy)
  BACKEND_ADDRESS=127.0.0.1
  export DPVIZ_BEHIND_PROXY=1
fi
i=0
for p in "${BACKEND_PORTS[@]}"; do
  i=$((i + 1))
  echo "p$i $p" >> "$DPVIZ_RUN_DIR/backends"
done
"$PY" -m serving.supervision config "$DPVIZ_RUN_DIR" --address "$BACKEND_ADDRESS" --backends "${BACKEND_PORTS[@]}" "${PROXY[@]}" \
  > "$DPVIZ_RUN_DIR/supervisord.conf"
if [ "$PROCESSES" -gt 1 ]; then
  echo "dpviz: $PROCESSES server processes on 127.0.0.1:${BACKEND_PORTS[*]} behind HAProxy on $ADDRESS:$PORT" \
    "(sessions per process: echo 'show stat' | socat - $DPVIZ_RUN_DIR/haproxy.sock; supervised: bash scripts/serve.sh status)" >&2
else
  echo "dpviz: 1 supervised server process on 127.0.0.1:$PORT (bash scripts/serve.sh status)" >&2
fi
# supervisord opens /dev/stdout again for its programs' output, in append mode; a log file this
# script writes to must be appended to as well, or the two would write over each other's lines
if [ -f /proc/self/fd/1 ]; then exec 1>>/proc/self/fd/1; fi
if [ -f /proc/self/fd/2 ]; then exec 2>>/proc/self/fd/2; fi
exec "$PY" -m supervisor.supervisord -c "$DPVIZ_RUN_DIR/supervisord.conf"
