"""Rate limits: flask-limiter over the sessions' Redis, keyed on who the caller really is.

Every request to a game route falls in exactly one bucket (``/healthz``, ``/readyz``,
``/metrics``, ``/docs`` and ``/openapi.json`` are exempt). Limits are requests a minute:

================  ==============================================  ==============  =======  ============================
bucket            what counts                                     keyed on        default  setting (env)
================  ==============================================  ==============  =======  ============================
seat writes       POSTs whose token maps to a seat of the game    game id + seat  600      LUDOTECA_RATE_LIMIT
seat reads        GETs whose token maps to a seat                 game id + seat  1200     LUDOTECA_RATE_LIMIT_READS
new seats         ``POST /games``, ``POST /games/{id}/players``   client address  30       LUDOTECA_RATE_LIMIT_CREATE
token failures    a malformed ``Authorization`` header, or a      client address  10       LUDOTECA_RATE_LIMIT_FAILURES
                  token that maps to no seat (or to no live game)
game extras       POSTs to a game's own routes (Ludic's           client address  120      (the writes / 5)
                  ``/rules/check``): computations, not moves
anonymous writes  other POSTs without a token                     client address  600      LUDOTECA_RATE_LIMIT
anonymous reads   GETs without a token (spectators, the lobby)    client address  1200     LUDOTECA_RATE_LIMIT_READS
================  ==============================================  ==============  =======  ============================

Unset, the reads, new-seat and failure limits derive from ``LUDOTECA_RATE_LIMIT`` (x2, /20, /60;
the game extras always /5: a refused rule's check costs up to ~30 ms of CPU, so one address
within its limit buys at most ~6% of a core, ``tests/bench/bench_rule_check.py``),
so that one knob scales them all; ``LUDOTECA_RATE_LIMIT=0`` turns every limit off (load tests
from one address); a specific limit set to 0 lifts that bucket only.

* The seat key is the seat the token *verifies to* (the token is checked here, once, against the
  game's stored hashes; the route reuses the game read for it, :func:`loaded_game`). The
  header's spelling (``bearer``, ``BEARER``, extra spaces) cannot change it, and a token that
  verifies to nothing writes nothing of its own: it counts in its address's failure bucket.
* The client address is ``request.remote_addr`` after ``ProxyFix(x_for=trusted_proxies)``
  (an IPv6 address counts by its /64 network, :func:`client_address`):
  ``X-Forwarded-For`` is read only behind ``LUDOTECA_TRUSTED_PROXIES`` proxies, each of which
  must append its peer (the last hop decides); the default 0 ignores the header, so a spoofed one
  sent straight to a service changes nothing. The local stack (gateway in front) sets 1.
* Fixed one-minute windows (flask-limiter's ``fixed-window``): one Redis key per bucket and
  window, ``<game>:ratelimit:LIMITER/<bucket>/...``, expiring with its window.
* The seat buckets are counted by the game's own scripts, not by flask-limiter (:func:`seat_quota`,
  a :class:`~ludoteca.service_layer.repository.Quota`), so the hot routes
  (:mod:`ludoteca.adapters.hosting.hotroutes`) count in the very same buckets as Flask's path.
  Their keys, ``<game>:ratelimit:LIMITER/seat/<id>/<seat>/<w|r>/{<id>}/<limit>/1/minute``, carry
  the game's hash tag so each script touches one Redis Cluster slot.
  Seat writes (``POST .../actions`` with a verified token) are counted by the move's own commit
  script: one round trip for the whole move. A write refused before its commit (400, 409, 412,
  422 ...) is counted after it, by :func:`install_rate_limit`'s response hook or the service's
  refusal path; over the limit, the refusal becomes the 429. A seat read is counted before it is
  answered (:func:`spend_read`); over the limit it is the 429 and nothing is read for it.
* Load-test mode (``LUDOTECA_LOAD_TEST_ADDRESSES``, :attr:`~ludoteca.config.Settings.load_test_networks`;
  off by default): a client address in those networks counts in no per-address bucket (new
  seats, token failures, game extras, anonymous writes and reads), so a load generator's
  simulated players, all on its one address, meet only the per-seat limits, as players each on
  their own address would. The per-seat buckets still count. Logged once at start when on.
* Over a limit: :class:`~ludoteca.core.errors.RateLimitedError`, a 429 problem with ``Retry-After``
  (seconds until the window ends), rendered by the one problem renderer; nothing is changed.
"""

from __future__ import annotations

import logging
import time
from dataclasses import dataclass
from typing import Any, cast

import redis
from apispec import BasePlugin
from flask import Flask, Response, g, request
from flask_limiter import ApplicationLimit, Limiter, RequestLimit
from flask_smorest import Api
from flask_smorest.utils import prepare_response
from ludoteca.adapters import observe
from ludoteca.adapters.cluster import limiter_options
from ludoteca.adapters.durability import refuses_writes
from ludoteca.adapters.hosting.identity import GAME_ID, bearer_token
from ludoteca.adapters.hosting.problems import PROBLEM_JSON, At, ProblemSchema, render_ludoteca_error
from ludoteca.adapters.peers import Network, address_key, is_proxy
from ludoteca.config import Settings
from ludoteca.core.errors import AuthenticationError, ConflictError, NotFoundError, RateLimitedError
from ludoteca.service_layer.repository import GameRepository, Quota, Stored

#: Routes that read the caller's seat from the bearer token (routes.py's ``caller``).
SEATED_ENDPOINTS = frozenset({"games.Game", "games.Actions", "games.Events", "games.Stream", "games.Leave"})
#: Routes whose POST creates a seat: creating a game, joining one.
NEW_SEAT_ENDPOINTS = frozenset({"games.Games", "games.Players"})
EXEMPT_BLUEPRINTS = frozenset({"ops", "api-docs"})
#: The routes every game has; a POST to any other blueprint is a game's own computation (an extra).
SHARED_BLUEPRINTS = frozenset({"games", "results"})
READ_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})
RESPONSE = "RATE_LIMITED"
log = logging.getLogger("ludoteca.ratelimit")

@dataclass(frozen=True)
class Limits:
    """The resolved limits, requests a minute (0: that bucket is unlimited)."""

    writes: int
    reads: int
    create: int
    failures: int
    extras: int

    @classmethod
    def from_settings(cls, s: Settings) -> Limits:
        base = s.rate_limit_per_minute

        def pick(value: int | None, default: int) -> int:
            return default if value is None else value

        return cls(writes=base,
                   reads=pick(s.rate_limit_reads_per_minute, 2 * base),
                   create=pick(s.rate_limit_create_per_minute, max(1, base // 20)),
                   failures=pick(s.rate_limit_failures_per_minute, max(1, base // 60)),
                   extras=max(1, base // 5))


@dataclass(frozen=True)
class Bucket:
    """Where one request counts: ``key`` names the caller and the kind, ``what`` reads in a 429."""

    key: str
    per_minute: int
    what: str


def client_address(raw: str | None) -> str:
    """The bucket of a client address (:func:`ludoteca.adapters.peers.address_key`: an IPv4
    address as is, an IPv6 one by its /64), the same grouping as the workers' connection caps."""
    return address_key(raw)


def is_load_test(raw: str | None, networks: tuple[Network, ...]) -> bool:
    """Whether the client address ``raw`` is exempt from the per-address limits (load-test mode:
    :attr:`~ludoteca.config.Settings.load_test_networks`; never when it is empty)."""
    return is_proxy(raw, networks)


def loaded_game(game_id: str) -> Stored | None:
    """The game the limiter read to verify this request's token (None: it read none)."""
    loaded = g.get("ludoteca_loaded")
    if loaded is not None and loaded[0] == game_id:
        return cast(Stored, loaded[1])
    return None


def write_quota() -> Quota | None:
    """The seat-write quota this request spends in its commit (None: not a seat write)."""
    return cast(Quota | None, g.get("ludoteca_quota"))


SEAT_WRITES = "writes a minute per seat"
SEAT_READS = "reads a minute per seat"


def seat_quota(game: str, game_id: str, seat: int, per_minute: int, write: bool = True) -> Quota:
    """The quota a request of ``seat`` spends: a move's (in its commit) or a read's (see the
    module docstring)."""
    kind = "w" if write else "r"
    return Quota(f"{game}:ratelimit:LIMITER/seat/{game_id}/{seat}/{kind}/{{{game_id}}}/{per_minute}/1/minute",
                 per_minute, 60, SEAT_WRITES if write else SEAT_READS)


def fail_open(game: str, bucket: str, err: BaseException) -> bool:
    """Whether a request goes on uncounted after its counter's write failed with ``err``: yes
    when Redis answers but refuses writes (``OOM`` under ``noeviction``, ``MISCONF`` after a
    failed append-only write, :func:`~ludoteca.adapters.durability.refuses_writes`), so what
    needs no write keeps being served while no move can be (a write is refused by itself);
    logged and counted (``ludoteca_ratelimit_fail_open_total``). An outage (Redis down or hung)
    stays a 503: the request itself would fail the same way."""
    refusal = refuses_writes(err)
    if refusal is None:
        return False
    observe.LIMITER_FAIL_OPEN.labels(game, bucket, refusal).inc()
    log.warning("Redis refuses the rate limiter's counter (%s): the request goes on uncounted", refusal)
    return True


def spend_read(store: GameRepository, quota: Quota) -> None:
    """Count a seat's read in its bucket; over the limit, :class:`RateLimitedError` (a 429). A
    counter Redis refuses to write lets the read through (:func:`fail_open`)."""
    try:
        retry, _ = store.spend(quota)
    except redis.RedisError as err:
        if fail_open(quota.key.split(":", 1)[0], "seat", err):
            return
        raise
    if retry is not None:
        raise RateLimitedError(f"At most {quota.limit} {quota.what}; try again in {retry} s.", retry_after=retry)


def spend_refused(store: GameRepository, quota: Quota | None, status: int,
                  at: At | None = None) -> Response | None:
    """A seat write that never reached its commit still counts (its unit is spent here); over
    the limit, a refusal (``status`` >= 400) becomes the 429 returned (None: the answer stands)."""
    if quota is None or quota.spent or status == 503:  # a 503: the store failed; counting would wait on it again
        return None
    try:
        retry, _ = store.spend(quota)
    except redis.RedisError:
        log.warning("could not count a refused write in its bucket", exc_info=True)
        return None
    if retry is not None and status >= 400:
        return render_ludoteca_error(RateLimitedError(
            f"At most {quota.limit} {quota.what}; try again in {retry} s.", retry_after=retry), at)
    return None


def install_rate_limit(app: Flask, client: redis.Redis, game: str, settings: Settings) -> Limiter | None:
    """Install the limits on ``app`` (after the routes and the ops hooks); None when turned off."""
    if settings.rate_limit_per_minute <= 0:
        return None
    limits = Limits.from_settings(settings)
    service = app.extensions["ludoteca"]["service"]
    exempt = settings.load_test_networks
    if exempt:
        log.warning("load-test mode: no per-address rate limit for clients in %s (LUDOTECA_LOAD_TEST_ADDRESSES)",
                    ", ".join(map(str, exempt)))

    def verified_seat(game_id: str) -> int | None:
        """The seat the request's token maps to (a seat its player left included: its reads and
        its refused moves count in that seat's bucket); None for a malformed or unknown token."""
        try:
            token = bearer_token()
        except AuthenticationError:
            return None
        if token is None or not GAME_ID.match(game_id):
            return None
        move = request.endpoint == "games.Actions" and request.method == "POST"
        try:
            if move:  # a move may start from this process's memory of the game (GameService.play)
                try:
                    stored, seat = service.seat_for_move(game_id, token)
                except ConflictError:  # its player left: refused by the route (409), counted as the seat's
                    return cast(int, service.token_seat(service.load(game_id), token))
                g.ludoteca_loaded = (game_id, stored)
                return cast(int, seat)
            stored = service.load(game_id)
            g.ludoteca_loaded = (game_id, stored)
            return cast(int, service.token_seat(stored, token))
        except (NotFoundError, AuthenticationError):
            return None

    def classify() -> Bucket | None:
        if request.blueprint in EXEMPT_BLUEPRINTS or request.endpoint == "static":
            return None
        address = client_address(request.remote_addr)
        writes = request.method not in READ_METHODS
        kind, per_minute = ("w", limits.writes) if writes else ("r", limits.reads)
        load_test = is_load_test(request.remote_addr, exempt)
        if load_test and not (request.endpoint in SEATED_ENDPOINTS and "Authorization" in request.headers):
            return None  # load-test mode: no per-address bucket (a seat's requests still count)
        if request.endpoint in NEW_SEAT_ENDPOINTS and writes:
            return Bucket(f"new/{address}", limits.create, "new games and seats a minute per client address")
        if writes and request.blueprint not in SHARED_BLUEPRINTS:
            return Bucket(f"extra/{address}", limits.extras,
                          "requests a minute per client address to this game's own routes")
        game_id = (request.view_args or {}).get("game_id")
        if request.endpoint in SEATED_ENDPOINTS and game_id is not None and "Authorization" in request.headers:
            seat = verified_seat(str(game_id))
            if seat is None:
                return None if load_test else Bucket(
                    f"fail/{address}", limits.failures,
                    "requests with a malformed or unknown seat token a minute per client address")
            return Bucket(f"seat/{game_id}/{seat}/{kind}", per_minute, SEAT_WRITES if writes else SEAT_READS)
        return Bucket(f"anon/{address}/{kind}", per_minute,
                      f"{'writes' if writes else 'reads'} a minute per client address without a seat token")


    @app.before_request
    def _classify() -> None:
        bucket = classify()
        g.ludoteca_bucket = bucket if bucket is not None and bucket.per_minute > 0 else None
        if g.ludoteca_bucket is None or bucket is None or not bucket.key.startswith("seat/"):
            return
        _, game_id, seat, kind = bucket.key.split("/")
        if kind == "r":  # the game's own scripts count the seat buckets, not flask-limiter
            g.ludoteca_bucket = None
            spend_read(service.store, seat_quota(game, game_id, int(seat), bucket.per_minute, write=False))
        elif request.endpoint == "games.Actions":  # a move: its commit spends it
            g.ludoteca_bucket = None
            g.ludoteca_quota = seat_quota(game, game_id, int(seat), bucket.per_minute)

    @app.after_request
    def _spend_refused(resp: Response) -> Response:
        """A seat write that never reached its commit still counts; over the limit, it is a 429."""
        return spend_refused(service.store, write_quota(), resp.status_code) or resp

    return bucket_limiter(app, client, game, settings)


BUCKET = "ludoteca_bucket"
"""The ``flask.g`` attribute holding a request's bucket (None: not counted by flask-limiter)."""


def bucket_limiter(app: Flask, client: redis.Redis, name: str, settings: Settings) -> Limiter:
    """flask-limiter on ``app``, counting each request in the bucket its service's own
    ``before_request`` hook put in ``g.ludoteca_bucket`` (registered before this is called; None:
    not counted): one fixed one-minute window per bucket over the sessions' Redis, keys
    ``<name>:ratelimit:LIMITER/<bucket>/...``; over its limit a request is a 429 problem with
    ``Retry-After`` and runs nothing. Shared by the games' limits (:func:`install_rate_limit`) and
    the platform's services' (:mod:`ludoteca.adapters.hosting.buckets`)."""

    def current() -> Bucket | None:
        return cast(Bucket | None, g.get(BUCKET))

    def key() -> str:
        bucket = current()
        return bucket.key if bucket is not None else "exempt"

    def limit() -> str:
        bucket = current()
        return f"{bucket.per_minute}/minute" if bucket is not None else ""

    def breached(request_limit: RequestLimit) -> None:
        bucket = current()
        # the window's TTL only (one round trip; RequestLimit.reset_at would read the count too)
        ttl = round(limiter.storage.get_expiry(request_limit.key) - time.time())  # whole seconds left
        retry = max(1, ttl + 1)
        what = f"{bucket.per_minute} {bucket.what}" if bucket is not None else str(request_limit.limit)
        raise RateLimitedError(f"At most {what}; try again in {retry} s.", retry_after=retry)

    storage_options: dict[str, Any] = {**limiter_options(client, settings.redis_url), "key_prefix": f"{name}:ratelimit"}
    limiter = ReadTolerantLimiter(
        name,
        key,
        application_limits=[ApplicationLimit(limit)],
        strategy="fixed-window",
        storage_uri=settings.redis_url,
        storage_options=storage_options,
        on_breach=breached,
        request_identifier=lambda: request.endpoint or "unmatched",
        headers_enabled=False,
        swallow_errors=False,
    )
    limiter.init_app(app)

    @limiter.request_filter
    def _unbucketed() -> bool:  # exempt, or a seat write (its commit counts it)
        return g.get(BUCKET) is None

    return limiter


class ReadTolerantLimiter(Limiter):
    """flask-limiter, except that a request whose counter Redis refuses to write (``OOM``,
    ``MISCONF``: :func:`fail_open`) goes on uncounted; every other storage error still fails the
    request (a 503). Whatever writes nothing is served (the views, the odds, Ludic's
    ``POST /rules/check``, a POST that reads only); whatever writes gets its 503 from its own
    write, which Redis refuses the same way. The uncounted requests are bounded by the refusal's
    duration, and counted (``ludoteca_ratelimit_fail_open_total``)."""

    def __init__(self, game: str, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.game = game

    def _check_request_limit(self, callable_name: str | None = None, in_middleware: bool = True) -> None:
        try:
            super()._check_request_limit(callable_name, in_middleware)
        except redis.RedisError as err:
            bucket = g.get("ludoteca_bucket")
            kind = bucket.key.split("/", 1)[0] if isinstance(bucket, Bucket) else "other"
            if not fail_open(self.game, kind, err):
                raise


class RateLimitDocs(BasePlugin):
    """Documents the 429 (limits, ``Retry-After``) on every operation: every route is limited."""

    def operation_helper(self, path: str | None = None, operations: dict[str, Any] | None = None,
                         **kwargs: Any) -> None:
        for method, operation in (operations or {}).items():
            if method in ("get", "post", "put", "patch", "delete") and isinstance(operation, dict):
                responses = operation.setdefault("responses", {})
                responses.pop(429, None)
                responses["429"] = RESPONSE


def document_rate_limits(api: Api) -> None:
    """Register the 429 response and the plugin that puts it on every operation (call before
    the blueprints are registered)."""
    d = Limits.from_settings(Settings())  # the defaults, whatever this process runs with
    doc = (f"Too many requests: over a rate limit; nothing was changed. `Retry-After` gives the seconds "
           f"until the window ends. Limits are requests a minute in fixed one-minute windows (the "
           f"defaults; the operator may set others): {d.writes} writes and {d.reads} reads per seat, "
           f"counted on the seat the token verifies to; without a token {d.writes} writes and {d.reads} "
           f"reads per client address; {d.create} new games and joins per client address; {d.failures} "
           f"requests with a malformed Authorization header or a token that matches no seat per client "
           f"address.")
    response: dict[str, Any] = {
        "description": doc,
        "schema": ProblemSchema,
        "headers": {"Retry-After": {"description": "Seconds until the limit's window ends",
                                    "schema": {"type": "integer", "minimum": 1}}},
    }
    prepare_response(response, api.spec, PROBLEM_JSON)
    api.spec.components.response(RESPONSE, response)
    plugin = RateLimitDocs()
    plugin.init_spec(api.spec)
    api.spec.plugins.append(plugin)
