"""The gateway: one port (8000) in front of the game services, routing ``/<game>/...``.

A small WSGI reverse proxy over a pooled HTTP client (urllib3), so it adds well under a
millisecond per request. It strips nothing the services need: the upstream sees the path
without the prefix and ``X-Forwarded-Prefix: /<game>``, so the services' links, ``Location``
headers and docs point back through the gateway; the client's address is appended to
``X-Forwarded-For``. Chunked request bodies are passed on chunked, large or chunked answers
are streamed as they come. Under the gevent worker a long-poll in flight holds a greenlet, not a
thread. Errors of its own are problem+json (gunicorn's too: ``ludoteca.gunicorn_workers``).
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Iterable, Iterator, Mapping
from typing import Any

import urllib3

DEFAULT_ROUTES = {"ludic": 8001, "speculation": 8002, "ludor": 8003, "ludix": 8004}
HOP_BY_HOP = {"connection", "keep-alive", "proxy-authenticate", "proxy-authorization", "te", "trailers",
              "transfer-encoding", "upgrade", "content-length", "host", "expect"}
STREAM_CHUNK = 64 * 1024  # bodies up to this size are relayed whole, larger ones piece by piece

StartResponse = Callable[..., Any]


def routes_from_env() -> dict[str, str]:
    """``LUDOTECA_ROUTES="ludix=http://127.0.0.1:8004,ludic=..."``; default: the four local ports."""
    raw = os.environ.get("LUDOTECA_ROUTES")
    if not raw:
        return {g: f"http://127.0.0.1:{p}" for g, p in DEFAULT_ROUTES.items()}
    out = {}
    for part in raw.split(","):
        name, _, url = part.strip().partition("=")
        if name and url:
            out[name] = url.rstrip("/")
    return out


def _problem(status: int, title: str, detail: str, start_response: StartResponse) -> list[bytes]:
    body = json.dumps({"type": f"https://ludoteca.dev/problems/{title.lower().replace(' ', '-')}",
                       "title": title, "status": status, "detail": detail}).encode()
    start_response(f"{status} {title}", [("Content-Type", "application/problem+json"),
                                         ("Content-Length", str(len(body)))])
    return [body]


class _Relay:
    """The upstream body, passed on as it arrives (a long-poll, a large or chunked answer),
    never buffered whole; the upstream connection goes back to the pool once read through."""

    def __init__(self, resp: urllib3.BaseHTTPResponse) -> None:
        self.resp = resp
        self.done = False

    def __iter__(self) -> Iterator[bytes]:
        for chunk in self.resp.stream(STREAM_CHUNK, decode_content=False):
            if chunk:
                yield chunk
        self.done = True

    def close(self) -> None:
        if not self.done:  # the client went away mid-body: this connection cannot be reused
            self.resp.close()
        self.resp.release_conn()


def _request_body(environ: dict[str, Any]) -> tuple[Iterator[bytes] | bytes | None, bool, int | None]:
    """(body, chunked, length): small bodies whole, larger or chunked ones streamed upstream."""
    stream = environ["wsgi.input"]
    if "chunked" in environ.get("HTTP_TRANSFER_ENCODING", "").lower():
        return _blocks(stream, None), True, None
    length = int(environ.get("CONTENT_LENGTH") or 0)
    if length <= 0:
        return None, False, None
    if length <= STREAM_CHUNK:
        return stream.read(length), False, length
    return _blocks(stream, length), False, length


def _blocks(stream: Any, length: int | None) -> Iterator[bytes]:
    left = length
    while left is None or left > 0:
        block = stream.read(STREAM_CHUNK if left is None else min(STREAM_CHUNK, left))
        if not block:
            return
        if left is not None:
            left -= len(block)
        yield block


class Gateway:
    """WSGI app. Run it under gunicorn's gevent worker (``deploy/gunicorn.conf.py``): a request
    waiting on a service (a long-poll) is then a parked greenlet and an open socket, not a thread."""

    def __init__(self, routes: Mapping[str, str], timeout: float = 75.0, pool_size: int = 1024) -> None:
        self.routes = dict(routes)
        # A pool per service, as large as the connections a worker may serve at once: under gevent
        # hundreds of long-polls are in flight together, each on its own upstream connection.
        self.http = urllib3.PoolManager(num_pools=len(self.routes) + 1, maxsize=pool_size, block=False,
                                        timeout=urllib3.Timeout(connect=2.0, read=timeout))
        # A kept-alive connection the service closed meanwhile: retry once where that is safe
        # (nothing sent yet, or an idempotent method); a POST is never sent twice.
        self.retries = urllib3.Retry(total=1, connect=1, read=1, status=0, other=0, redirect=False,
                                     raise_on_redirect=False, raise_on_status=False)
        # A streamed body cannot be sent again once read: only failures to connect are retried.
        self.streamed_retries = urllib3.Retry(total=1, connect=1, read=0, status=0, other=0, redirect=False,
                                              raise_on_redirect=False, raise_on_status=False)

    def __call__(self, environ: dict[str, Any], start_response: StartResponse) -> Iterable[bytes]:
        path = environ.get("PATH_INFO", "") or "/"
        if path in ("/", ""):
            body = json.dumps({"games": {g: f"/{g}/" for g in sorted(self.routes)}}).encode()
            start_response("200 OK", [("Content-Type", "application/json"), ("Content-Length", str(len(body)))])
            return [body]
        if path == "/healthz":
            start_response("200 OK", [("Content-Type", "application/json")])
            return [b'{"status":"ok","service":"gateway"}']
        game, _, rest = path.lstrip("/").partition("/")
        upstream = self.routes.get(game)
        if upstream is None:
            return _problem(404, "Not Found", f"No game service is mounted at /{game}.", start_response)
        query = environ.get("QUERY_STRING", "")
        url = f"{upstream}/{rest}" + (f"?{query}" if query else "")
        headers = {}
        for key, value in environ.items():
            if key.startswith("HTTP_"):
                name = key[5:].replace("_", "-").title()
                if name.lower() not in HOP_BY_HOP:
                    headers[name] = value
        if environ.get("CONTENT_TYPE"):
            headers["Content-Type"] = environ["CONTENT_TYPE"]
        headers["X-Forwarded-Prefix"] = f"/{game}"
        # Append the peer to the chain (never replace it): the services trust a configured number
        # of proxies from the right of X-Forwarded-For.
        peer = environ.get("REMOTE_ADDR", "")
        earlier = environ.get("HTTP_X_FORWARDED_FOR", "").strip()
        headers["X-Forwarded-For"] = f"{earlier}, {peer}" if earlier else peer
        headers["X-Forwarded-Proto"] = environ.get("wsgi.url_scheme", "http")
        headers["X-Forwarded-Host"] = environ.get("HTTP_HOST", "")
        payload, chunked, length = _request_body(environ)
        if length is not None:
            headers["Content-Length"] = str(length)
        try:
            resp = self.http.request(environ["REQUEST_METHOD"], url, body=payload, headers=headers, chunked=chunked,
                                     redirect=False, preload_content=False,
                                     retries=self.retries if payload is None or isinstance(payload, bytes)
                                     else self.streamed_retries,
                                     decode_content=False)
        except urllib3.exceptions.HTTPError as err:
            return _problem(502, "Bad Gateway", f"The {game} service is not reachable ({type(err).__name__}).",
                            start_response)
        out_headers = [(k, v) for k, v in resp.headers.items() if k.lower() not in HOP_BY_HOP]
        size = resp.headers.get("Content-Length")
        if size is not None and "chunked" not in resp.headers.get("Transfer-Encoding", "").lower():
            out_headers.append(("Content-Length", size))
            if size.isdigit() and int(size) <= STREAM_CHUNK:  # the common case: one small JSON body
                try:
                    data = resp.read()
                except urllib3.exceptions.HTTPError as err:
                    resp.close()
                    resp.release_conn()
                    return _problem(502, "Bad Gateway", f"The {game} service broke off its answer "
                                    f"({type(err).__name__}).", start_response)
                resp.release_conn()
                start_response(f"{resp.status} {resp.reason or ''}".strip(), out_headers)
                return [data]
        start_response(f"{resp.status} {resp.reason or ''}".strip(), out_headers)
        return _Relay(resp)


def make_app() -> Gateway:
    return Gateway(routes_from_env())
