"""The front door's unix-socket upstreams (``bench_api.py --door-transport``): Caddy dials a
service's unix socket where a route names one (``unix//path``), without the TCP source address
that the other routes keep; anything else that is not ``host:port`` is refused."""

from __future__ import annotations

import pytest
from ludoteca.entrypoints.frontdoor import SOURCE, caddyfile


def route(config: str, prefix: str) -> str:
    start = config.index(f"\thandle @{prefix} {{")
    return config[start:config.index("\n\t}\n", start)]


def test_a_unix_socket_upstream_is_dialed_as_such() -> None:
    config = caddyfile({"ludix": "unix//tmp/bench/ludix.sock", "pig": "127.0.0.1:8005"}, ":8000", source=SOURCE)
    unix, tcp = route(config, "ludix"), route(config, "pig")
    assert "reverse_proxy unix//tmp/bench/ludix.sock {" in unix and "local_address" not in unix
    assert "reverse_proxy 127.0.0.1:8005 {" in tcp and f"local_address {SOURCE}" in tcp
    assert "keepalive 10s" in unix and "keepalive 10s" in tcp


@pytest.mark.parametrize("bad", ["unix/relative.sock", "unix//tmp/a b.sock", "unix//tmp/x;y", "ludix"])
def test_a_bad_upstream_is_refused(bad: str) -> None:
    with pytest.raises(ValueError):
        caddyfile({"ludix": bad})
