"""Who a connection or a request counts for: the TCP peer, or, behind a proxy we trust, the client
the proxy names in ``X-Forwarded-For``.

* ``LUDOTECA_PROXY_ADDRESSES``: comma-separated addresses or networks (``10.0.0.7``,
  ``10.0.0.0/8``, ``fd00::/8``) of the proxies in front of a service (the front door, an
  Ingress). Empty by default: no peer is a proxy, and ``X-Forwarded-For`` counts for nothing.
  A connection from one of them carries many clients' requests, so it is exempt from the
  per-address connection cap (:mod:`ludoteca.entrypoints.admission`), and only its
  ``X-Forwarded-For`` is believed.
* ``LUDOTECA_TRUSTED_PROXIES`` (:class:`ludoteca.config.Settings.trusted_proxies`): how many
  ``X-Forwarded-For`` hops the proxies add; the client is the hops-th address from the end (as
  werkzeug's ``ProxyFix(x_for=hops)`` reads it).

Addresses group as the rate limiter's buckets do (:func:`address_key`): an IPv4 address as is, an
IPv6 one by its /64 (one subscriber's allocation: rotating addresses within it gains nothing).

Pure functions of the standard library: gunicorn's worker imports this before any Flask.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Mapping

Network = ipaddress.IPv4Network | ipaddress.IPv6Network
PROXY_ADDRESSES = "LUDOTECA_PROXY_ADDRESSES"


def proxy_networks(env: Mapping[str, str]) -> tuple[Network, ...]:
    """The networks of ``LUDOTECA_PROXY_ADDRESSES`` (empty: none). A malformed entry raises
    ``ValueError`` naming it: a proxy that silently stops being trusted would count every client
    of the front door as one address."""
    nets: list[Network] = []
    for item in env.get(PROXY_ADDRESSES, "").replace(" ", ",").split(","):
        item = item.strip()
        if not item:
            continue
        try:
            nets.append(ipaddress.ip_network(item, strict=False))
        except ValueError as exc:
            raise ValueError(f"{PROXY_ADDRESSES}: {item!r} is not an address or a network ({exc})") from None
    return tuple(nets)


def _ip(addr: str) -> ipaddress.IPv4Address | ipaddress.IPv6Address | None:
    try:
        ip = ipaddress.ip_address(addr.strip().strip("[]"))
    except ValueError:
        return None
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        return ip.ipv4_mapped
    return ip


def is_proxy(addr: str | None, nets: tuple[Network, ...]) -> bool:
    """Whether the peer ``addr`` is one of the proxies ``nets`` (never for an unparsable address)."""
    if not nets or not addr:
        return False
    ip = _ip(addr)
    return ip is not None and any(ip.version == net.version and ip in net for net in nets)


def client_of(peer: str, forwarded_for: str | None, hops: int, nets: tuple[Network, ...]) -> str:
    """The address a request counts for: the peer; when the peer is a proxy and ``hops`` > 0,
    the ``hops``-th address from the end of ``X-Forwarded-For`` (the peer when the header has
    fewer, as ``ProxyFix`` does). A client that reaches the service directly cannot choose its
    address with the header."""
    if hops <= 0 or not forwarded_for or not is_proxy(peer, nets):
        return peer
    values = [v.strip() for v in forwarded_for.split(",")]
    if len(values) < hops or not values[-hops]:
        return peer
    return values[-hops]


def address_key(raw: str | None) -> str:
    """The bucket of a client address: an IPv4 address as is, an IPv6 one by its /64 network
    (one subscriber's allocation: rotating addresses within it does not give new buckets)."""
    if not raw:
        return "unknown"
    ip = _ip(raw)
    if ip is None:
        return raw[:64]
    if isinstance(ip, ipaddress.IPv6Address):
        return str(ipaddress.IPv6Network((ip, 64), strict=False).network_address) + "/64"
    return str(ip)
