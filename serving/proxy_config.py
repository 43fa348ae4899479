"""The HAProxy configuration ``scripts/serve.sh`` puts in front of several Streamlit processes.

    python -m serving.proxy_config --address 0.0.0.0 --port 8501 --backends 40001 40002

Why HAProxy (Debian's ``haproxy``): it keeps a visitor on one process by a cookie it inserts
itself (``cookie ... insert``; a classroom's thirty browsers share one address, so balancing by
client address would put them all on one process), it passes websockets through in HTTP mode
(``timeout tunnel`` bounds an idle one), and it checks each process's ``/_stcore/health``. The
open-source nginx has no cookie-inserting stickiness, and Caddy's is not in every distribution
release dpviz targets. A Streamlit session lives in one process (its widgets, uploads and media),
so every request of a browser tab must reach the same one: the page, the websocket, uploads.

When a process dies (see ``serving.supervision``, which starts it again): a connection to it is
refused at once, HAProxy retries the request on another process (``retry-on conn-failure
empty-response``, ``option redispatch 1``: every retry may go elsewhere) after its turn-around
delay, which is ``timeout connect`` (250 ms: a loopback connection to a live process takes well
under a millisecond; at the default of 1 s the proxy's health endpoint went unanswered for 1.0 s
after a kill) and marks the dead one
down on that first refused connection (``observe layer4 ... on-error mark-down``) or by its
health check within a second (``inter 1s fastinter 250ms fall 2``); a browser whose cookie named
the dead process is sent to a live one and its cookie rewritten. So the proxy's health endpoint
keeps answering and the browser's own reconnection lands on a live process. A restarted process
takes visitors again after two passed checks (``rise 2``). ``option forwardfor`` passes the
client's address on (``X-Forwarded-For``), for the class store's limits per client.
"""

from __future__ import annotations

import argparse
import sys

COOKIE = "DPVIZ_SERVER"
"""The cookie HAProxy sets to keep a browser on its server process."""


def haproxy_config(
    address: str, port: int, backends: list[int], cookie: str = COOKIE, stats_socket: str | None = None
) -> str:
    """The configuration text: one frontend on ``address:port``, one backend per loopback port,
    new visitors to the process with the fewest connections, each visitor kept by ``cookie`` (and
    sent elsewhere when its process is down); with ``stats_socket``, HAProxy's admin socket there
    (``show stat``: sessions per process; ``set server``: a rolling restart's maintenance)."""
    if not backends:
        raise ValueError("at least one backend port is needed")
    for p in [port, *backends]:
        if not 0 < int(p) < 65536:
            raise ValueError(f"ports are 1-65535, got {p}")
    servers = "\n".join(
        f"    server p{i} 127.0.0.1:{p} cookie p{i} check inter 1s fastinter 250ms downinter 500ms fall 2 rise 2 "
        "observe layer4 error-limit 1 on-error mark-down"
        for i, p in enumerate(backends, start=1)
    )
    bind = f"[{address}]:{port}" if ":" in address else f"{address}:{port}"
    stats = f"\n    stats socket {stats_socket} mode 600 level admin" if stats_socket else ""
    return f"""global
    log stderr format raw local0 warning
    maxconn 4096{stats}

defaults
    mode http
    log global
    option dontlognull
    option redispatch 1
    option forwardfor
    retries 3
    retry-on conn-failure empty-response
    timeout connect 250ms
    timeout client 1h
    timeout server 1h
    timeout tunnel 1h
    timeout http-request 30s
    timeout client-fin 30s

frontend dpviz
    bind {bind}
    default_backend streamlit

backend streamlit
    balance leastconn
    cookie {cookie} insert indirect nocache httponly
    option httpchk GET /_stcore/health
    http-check expect string ok
{servers}
"""


def main(argv: list[str] | None = None) -> int:
    """Print the configuration for the command line's address, port and backend ports."""
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--address", default="0.0.0.0")
    ap.add_argument("--port", type=int, default=8501)
    ap.add_argument("--backends", type=int, nargs="+", required=True)
    ap.add_argument("--stats-socket", help="a path for HAProxy's admin socket (sessions per process)")
    args = ap.parse_args(argv)
    sys.stdout.write(haproxy_config(args.address, args.port, args.backends, stats_socket=args.stats_socket))
    return 0


if __name__ == "__main__":
    sys.exit(main())
