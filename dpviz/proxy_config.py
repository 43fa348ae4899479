"""The HAProxy configuration ``scripts/serve.sh`` puts in front of several Streamlit processes.

    python -m dpviz.proxy_config --address 0.0.0.0 --port 8501 --backends 40001 40002

Why HAProxy (Debian's ``haproxy``): it keeps a visitor on one process by a cookie it inserts
itself (``cookie ... insert``; a classroom's thirty browsers share one address, so balancing by
client address would put them all on one process), it passes websockets through in HTTP mode
(``timeout tunnel`` bounds an idle one), and it checks each process's ``/_stcore/health``. The
open-source nginx has no cookie-inserting stickiness, and Caddy's is not in every distribution
release dpviz targets. A Streamlit session lives in one process (its widgets, uploads and media),
so every request of a browser tab must reach the same one: the page, the websocket, uploads.
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
    new visitors to the process with the fewest connections, each visitor kept by ``cookie``;
    with ``stats_socket``, HAProxy's admin socket there (``show stat``: sessions per process)."""
    if not backends:
        raise ValueError("at least one backend port is needed")
    for p in [port, *backends]:
        if not 0 < int(p) < 65536:
            raise ValueError(f"ports are 1-65535, got {p}")
    servers = "\n".join(
        f"    server p{i} 127.0.0.1:{p} cookie p{i} check inter 2s fall 3 rise 1"
        for i, p in enumerate(backends, start=1)
    )
    bind = f"[{address}]:{port}" if ":" in address else f"{address}:{port}"
    stats = f"\n    stats socket {stats_socket} mode 600 level user" if stats_socket else ""
    return f"""global
    log stderr format raw local0 warning
    maxconn 4096{stats}

defaults
    mode http
    log global
    option dontlognull
    option redispatch
    retries 2
    timeout connect 5s
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
