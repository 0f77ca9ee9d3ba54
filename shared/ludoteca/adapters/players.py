"""Players: who a bearer token is, and where a player is kept (issue 23, item 1).

A player is known by one of two kinds of bearer token:

- a **guest token**, made by ``POST /players`` (the players service): ``<player id>.<secret>``,
  shown once, stored only as its hash (:mod:`ludoteca.core.tokens`, as seat tokens are) in the
  player's own record. The id in front lets the check read that one record (one Redis Cluster
  slot), and the whole token is compared in constant time with the stored hash;
- a **JWT of the deployment's OpenID Connect provider** (when :class:`OidcSettings` names one):
  verified with PyJWT against the provider's keys (its JWKS, fetched by ``PyJWKClient``, cached,
  fetched again on a ``kid`` it does not hold, at most once per cooldown), its signature,
  algorithm (an allow-list of asymmetric ones: ``none`` and HMAC, with which a public key would
  be used as a shared secret, are refused before any key is looked at), expiry, issuer and
  audience checked. Its ``sub`` is the player: the player's id is derived from the issuer and the
  subject (:func:`oidc_player_id`), and the player is created on first sight.

A player's keys share the hash tag of its id, ``players:{<id>}:<what>``, so every write of one
player is in one Redis Cluster slot. :class:`Identities` is what the game services use to turn
a bearer token into a player (phase 2 of the issue); the players service serves the rest.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import secrets
import threading
import time
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import jwt
import redis
from ludoteca.adapters.store import outbox_key, outbox_order, read_stream
from ludoteca.core import tokens
from ludoteca.core.engine import GameResult
from ludoteca.core.errors import AuthenticationError, UnavailableError
from ludoteca.core.names import plain_name
from ludoteca.service_layer.mygames import PlayerRef
from ludoteca.service_layer.ratings import MODEL, Rating, rate

PREFIX = "players"
PLAYER_ID = re.compile(r"[0-9a-f]{32}")
"""A player's id: 32 lower-case hex digits (random for a guest, derived for an OIDC subject)."""
PLAYER_TTL_SECONDS = 365 * 24 * 3600
"""How long a player's keys live after its last use (profile, ratings, games, stream): one value
for every store of the player's, which the sweeper and the worker build with their defaults."""
GUEST, OIDC = "guest", "oidc"

ASYMMETRIC = ("RS256", "RS384", "RS512", "PS256", "PS384", "PS512", "ES256", "ES384", "ES512", "EdDSA")
"""The algorithms a provider's JWT may be signed with: asymmetric only. ``none`` and the HMAC
family (``HS*``) are never accepted: a token signed with HMAC and the provider's public key as
the secret would otherwise verify."""


class PlayerAuthenticationError(AuthenticationError):
    """A bearer token that names no player: malformed, unknown, expired, forged."""

    title = "Missing or invalid player token"


@dataclass(frozen=True)
class OidcSettings:
    """The deployment's OpenID Connect provider (all of ``LUDOTECA_OIDC_ISSUER``,
    ``LUDOTECA_OIDC_JWKS_URL`` and ``LUDOTECA_OIDC_AUDIENCE`` set, or none: guests only)."""

    issuer: str
    jwks_url: str
    audience: str
    algorithms: tuple[str, ...] = ("RS256", "ES256")
    """Accepted signing algorithms (``LUDOTECA_OIDC_ALGORITHMS``, comma-separated), a subset of
    :data:`ASYMMETRIC`."""
    leeway_seconds: int = 0
    """Clock skew allowed on ``exp``/``nbf``/``iat`` (``LUDOTECA_OIDC_LEEWAY``)."""
    jwks_lifespan_seconds: int = 300
    """How long the fetched key set is used before it is fetched again (``LUDOTECA_OIDC_JWKS_LIFESPAN``)."""
    refresh_cooldown_seconds: float = 30.0
    """The least time between two fetches of the key set caused by an unknown ``kid``
    (``LUDOTECA_OIDC_REFRESH_COOLDOWN``): a stream of forged ``kid``\\s cannot make every request
    hit the provider; a rotated key is picked up at most this long after the first token signed
    with it."""
    fetch_timeout_seconds: float = 5.0

    def __post_init__(self) -> None:
        refused = [a for a in self.algorithms if a not in ASYMMETRIC]
        if refused or not self.algorithms:
            raise ValueError(f"LUDOTECA_OIDC_ALGORITHMS: {', '.join(refused) or 'none given'} not accepted; "
                             f"choose among {', '.join(ASYMMETRIC)}")

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None) -> OidcSettings | None:
        env = os.environ if env is None else env
        issuer = env.get("LUDOTECA_OIDC_ISSUER", "").strip()
        jwks_url = env.get("LUDOTECA_OIDC_JWKS_URL", "").strip()
        audience = env.get("LUDOTECA_OIDC_AUDIENCE", "").strip()
        given = [v for v in (issuer, jwks_url, audience) if v]
        if not given:
            return None
        if len(given) != 3:
            raise ValueError("set all of LUDOTECA_OIDC_ISSUER, LUDOTECA_OIDC_JWKS_URL and LUDOTECA_OIDC_AUDIENCE, "
                             "or none")
        algorithms = tuple(a.strip() for a in env.get("LUDOTECA_OIDC_ALGORITHMS", "").split(",") if a.strip())
        return cls(issuer, jwks_url, audience, algorithms or cls.algorithms,
                   int(env.get("LUDOTECA_OIDC_LEEWAY") or cls.leeway_seconds),
                   int(env.get("LUDOTECA_OIDC_JWKS_LIFESPAN") or cls.jwks_lifespan_seconds),
                   float(env.get("LUDOTECA_OIDC_REFRESH_COOLDOWN") or cls.refresh_cooldown_seconds))


@dataclass(frozen=True)
class Player:
    id: str
    name: str
    kind: str
    """:data:`GUEST` or :data:`OIDC`."""
    created: int
    """When the player was made, Unix seconds."""


def key(player_id: str, what: str) -> str:
    """A player's key: ``players:{<id>}:<what>`` (one Redis Cluster slot per player)."""
    return f"{PREFIX}:{{{player_id}}}:{what}"


def oidc_player_id(issuer: str, subject: str) -> str:
    """The id of the provider's subject: stable, and never a guest's (a guest's is random)."""
    return hashlib.sha256(f"oidc\0{issuer}\0{subject}".encode()).hexdigest()[:32]


# Create the record if it is not there; refresh its TTL; answer the fields. One script: one slot.
_ENSURE = """
if redis.call('EXISTS', KEYS[1]) == 0 then
  redis.call('HSET', KEYS[1], unpack(ARGV, 2))
end
redis.call('EXPIRE', KEYS[1], ARGV[1])
return redis.call('HMGET', KEYS[1], 'name', 'kind', 'created')
"""


class PlayerStore:
    """The players' records on Redis: ``players:{<id>}:profile`` (a hash: name, kind, created,
    the guest token's hash) and ``players:{<id>}:ratings`` (a hash: game to its JSON rating),
    kept ``ttl_seconds`` after the player's last write."""

    def __init__(self, client: redis.Redis, ttl_seconds: int = PLAYER_TTL_SECONDS) -> None:
        self.client = client
        self.ttl = ttl_seconds
        self._ensure = client.register_script(_ENSURE)

    def create_guest(self, name: str, now: int | None = None) -> tuple[Player, str]:
        """A new guest player named ``name``, and its token (shown once: only its hash is kept)."""
        player_id = secrets.token_hex(16)
        token = f"{player_id}.{secrets.token_urlsafe(32)}"
        created = int(time.time()) if now is None else now
        self._ensure(keys=[key(player_id, "profile")],
                     args=[self.ttl, "name", name, "kind", GUEST, "created", created,
                           "token", tokens.hash_token(token)])
        return Player(player_id, name, GUEST, created), token

    def ensure(self, player_id: str, name: str, kind: str, now: int | None = None) -> Player:
        """The player ``player_id``, made now (``name``, ``kind``) if it is new; its TTL refreshed."""
        created = int(time.time()) if now is None else now
        found = self._ensure(keys=[key(player_id, "profile")],
                             args=[self.ttl, "name", name, "kind", kind, "created", created])
        stored_name, stored_kind, made = _texts(found)
        return Player(player_id, stored_name or name, stored_kind or kind, int(made or created))

    def get(self, player_id: str) -> Player | None:
        if not PLAYER_ID.fullmatch(player_id):
            return None
        return _player(player_id, self.client.hmget(key(player_id, "profile"), PROFILE_FIELDS))

    def guest_token_hash(self, player_id: str) -> tuple[Player, str] | None:
        """The guest ``player_id`` and its token's stored hash (None: no such guest)."""
        name, kind, created, hashed = _texts(self.client.hmget(key(player_id, "profile"),
                                                               ["name", "kind", "created", "token"]))
        if name is None or kind is None or created is None or hashed is None:
            return None
        return Player(player_id, name, kind, int(created)), hashed

    def ratings(self, player_id: str) -> dict[str, Rating]:
        """The player's rating in each game it has played rated games of."""
        raw: dict[bytes, bytes] = self.client.hgetall(key(player_id, "ratings"))  # type: ignore[assignment]
        fields = {k.decode(): v.decode() for k, v in raw.items()}
        games = sorted({f.rpartition(":")[0] for f in fields})
        return {g: Rating(float(fields[f"{g}:mu"]), float(fields[f"{g}:sigma"]), int(fields.get(f"{g}:played", 0)))
                for g in games if f"{g}:mu" in fields and f"{g}:sigma" in fields}

    def rating(self, player_id: str, game: str) -> Rating:
        """The player's rating in ``game`` (the model's default before its first rated game)."""
        return _rating(self.client.hmget(key(player_id, "ratings"), _rating_fields(game)))

    def ranked(self, player_ids: Sequence[str], game: str) -> list[tuple[Player | None, Rating]]:
        """Each player's profile (None: expired, or no such id) and rating in ``game``, read in one
        round trip (a leaderboard of 1,000 rows took two round trips a row: 2,013 commands)."""
        with self.client.pipeline(transaction=False) as pipe:
            for player_id in player_ids:
                pipe.hmget(key(player_id, "profile"), PROFILE_FIELDS)
                pipe.hmget(key(player_id, "ratings"), _rating_fields(game))
            replies = pipe.execute()
        return [(_player(p, replies[2 * i]) if PLAYER_ID.fullmatch(p) else None, _rating(replies[2 * i + 1]))
                for i, p in enumerate(player_ids)]


class GameLists:
    """Each player's games, in the player's slot: ``players:{<id>}:games`` (a sorted set of
    ``<game>/<game id>``, scored by the game's creation time) and ``players:{<id>}:pending`` (the
    same members, scored by when a binding was about to be committed).

    A game's commit never touches a player's slot (issue 23, item 8): a service records the
    player's intent here first (:meth:`intend`), then commits the game (whose record holds the
    binding: the truth), then adds the game to the player's list (:meth:`confirm`). A service
    killed between the commit and the list leaves the intent behind; a read of the list settles
    each intent against the game itself (:meth:`settle`): bound, it joins the list; not bound
    (the commit never happened) and older than the grace, it is dropped."""

    def __init__(self, client: redis.Redis, ttl_seconds: int = PLAYER_TTL_SECONDS) -> None:
        self.client = client
        self.ttl = ttl_seconds

    @staticmethod
    def member(game: str, game_id: str) -> str:
        return f"{game}/{game_id}"

    def intend(self, player_id: str, game: str, game_id: str, now: float | None = None) -> None:
        pipe = self.client.pipeline(transaction=True)
        pipe.zadd(key(player_id, "pending"), {self.member(game, game_id): time.time() if now is None else now})
        pipe.expire(key(player_id, "pending"), self.ttl)
        pipe.execute()

    def confirm(self, player_id: str, game: str, game_id: str, created: float) -> None:
        member = self.member(game, game_id)
        pipe = self.client.pipeline(transaction=True)
        pipe.zadd(key(player_id, "games"), {member: created})
        pipe.zrem(key(player_id, "pending"), member)
        for what in ("games", "profile", "ratings", "rated"):  # a player who plays is kept
            pipe.expire(key(player_id, what), self.ttl)
        pipe.execute()

    def forget(self, player_id: str, game: str, game_id: str) -> None:
        """Drop a game from the player's list and intents (it is gone, or never bound the player)."""
        member = self.member(game, game_id)
        pipe = self.client.pipeline(transaction=True)
        pipe.zrem(key(player_id, "games"), member)
        pipe.zrem(key(player_id, "pending"), member)
        pipe.execute()

    def pending(self, player_id: str) -> list[tuple[str, str, float]]:
        """The player's unsettled intents: (game, game id, when)."""
        found: list[tuple[bytes, float]] = self.client.zrange(  # type: ignore[assignment]
            key(player_id, "pending"), 0, -1, withscores=True)
        return [(*_split(m), float(score)) for m, score in found]

    def page(self, player_id: str, offset: int, limit: int) -> tuple[int, list[tuple[str, str]]]:
        """(how many games the list holds, the ``limit`` games from ``offset``, newest first)."""
        pipe = self.client.pipeline(transaction=False)
        pipe.zcard(key(player_id, "games"))
        pipe.zrevrange(key(player_id, "games"), offset, offset + limit - 1)
        total, members = pipe.execute()
        return int(total), [_split(m) for m in members]


# Apply one game's change to one player's rating, once (the game in the player's rated set); answer
# the rating now (whether or not this call applied it) and its stamp: a number that grows with
# every change of the player's rating in the game, past the server's clock in milliseconds (so a
# rating made again after the player's keys expired, its ``played`` back at 1, still stamps later
# than any before), which the board uses to keep the newest (``_BOARD``).
_APPLY = """
local game = ARGV[2]
local mu = tonumber(redis.call('HGET', KEYS[1], game .. ':mu') or ARGV[3])
local sigma = tonumber(redis.call('HGET', KEYS[1], game .. ':sigma') or ARGV[4])
local played = tonumber(redis.call('HGET', KEYS[1], game .. ':played') or '0')
local stamp = tonumber(redis.call('HGET', KEYS[1], game .. ':stamp') or '0')
local applied = redis.call('SADD', KEYS[2], ARGV[1])
if applied == 1 then
  mu = mu + tonumber(ARGV[5])
  sigma = sigma * tonumber(ARGV[6])
  played = played + 1
  local t = redis.call('TIME')
  stamp = math.max(stamp + 1, t[1] * 1000 + math.floor(t[2] / 1000))
  redis.call('HSET', KEYS[1], game .. ':mu', string.format('%.17g', mu), game .. ':sigma',
             string.format('%.17g', sigma), game .. ':played', played, game .. ':stamp', string.format('%.0f', stamp))
end
redis.call('EXPIRE', KEYS[1], ARGV[7])
redis.call('EXPIRE', KEYS[2], ARGV[7])
return {applied, string.format('%.17g', mu), string.format('%.17g', sigma), played, string.format('%.0f', stamp)}
"""

# Put one player on a game's board at its rating unless the board holds a newer rating of the
# player already: KEYS[1] the board, KEYS[2] its stamps (a hash: player to the stamp of the rating
# the board shows); ARGV: the player, its ordinal, the rating's stamp (``_APPLY``'s), the TTL.
# Answers 1 (written) or 0 (older than what the board shows: left alone).
_BOARD = """
local known = redis.call('HGET', KEYS[2], ARGV[1])
if known and tonumber(known) > tonumber(ARGV[3]) then return 0 end
redis.call('ZADD', KEYS[1], ARGV[2], ARGV[1])
redis.call('HSET', KEYS[2], ARGV[1], ARGV[3])
redis.call('EXPIRE', KEYS[1], ARGV[4])
redis.call('EXPIRE', KEYS[2], ARGV[4])
return 1
"""


class Ratings:
    """Ratings exactly once (issue 23, item 6), however often a finished game's result task runs
    and wherever it was killed:

    1. the game's change to each bound seat's rating is worked out once and kept in the game's
       own slot (``<game>:{<id>}:ratings``: the first task to write it wins, a later one reads
       it), from the players' ratings then;
    2. each player's rating takes that change once, in the player's slot (a script: the game
       joins ``players:{<id>}:rated`` and the rating moves in the same step);
    3. the game's leaderboard (:meth:`board`, a sorted set of player ids by ordinal) is set to
       each player's rating now (a repeat sets the same value), unless it shows a newer rating
       of the player already: step 2 answers the rating with its stamp (a number that grows with
       each change), the board keeps each player's stamp beside it (:meth:`stamps`, in the
       board's slot) and a script writes the place only when its stamp is not older. (The board
       was set by a plain ``ZADD`` after the player's script: with two games of one player
       settled at once, A applied, B applied, B's board write, then A's, the board kept A's
       older rating until the player's next game.)

    A change is kept as a shift of ``mu`` and a factor of ``sigma``, so two games of one player
    settled at once both count. The board and its stamps live ``ttl`` seconds (the players')
    after the last rating set on them; a player taken off the board (:meth:`forget`) leaves both."""

    def __init__(self, store: PlayerStore, game_ttl_seconds: int = 7 * 24 * 3600) -> None:
        self.store = store
        self.client = store.client
        self.game_ttl = game_ttl_seconds
        self._apply = store.client.register_script(_APPLY)
        self._board = store.client.register_script(_BOARD)

    @staticmethod
    def board(game: str) -> str:
        """The game's board: ``players:leaderboard:<game>`` (no hash tag: its whole name is hashed)."""
        return f"{PREFIX}:leaderboard:{game}"

    @classmethod
    def stamps(cls, game: str) -> str:
        """The stamps of the board's ratings: ``{players:leaderboard:<game>}:stamps``, tagged with
        the board's whole name, so in the board's Redis Cluster slot (one script writes both) while
        the board keeps the name it had before it had stamps."""
        return f"{{{cls.board(game)}}}:stamps"

    def settle(self, game: str, game_id: str, bound: Sequence[str | None], result: GameResult,
               forfeits: Collection[int] = ()) -> int:
        """Rate the players ``bound`` to the seats of the finished ``game_id`` (None: an unrated
        seat; ``forfeits``: seats their players did not play, placed last,
        :func:`ludoteca.service_layer.ratings.forfeit_seats`); the number of ratings this
        call moved (0 when done before)."""
        if not any(bound):
            return 0
        changes = self._changes(game, game_id, bound, result, forfeits)
        moved = 0
        for player_id, (shift, factor) in changes.items():
            applied, mu, sigma, _, stamp = self._apply(
                keys=[key(player_id, "ratings"), key(player_id, "rated")],
                args=[f"{game}/{game_id}", game, MODEL.mu, MODEL.sigma, repr(shift), repr(factor), self.store.ttl])
            moved += int(applied)
            self._board(keys=[self.board(game), self.stamps(game)],
                        args=[player_id, repr(float(mu) - 3 * float(sigma)), stamp, self.store.ttl])
        return moved

    def _changes(self, game: str, game_id: str, bound: Sequence[str | None],
                 result: GameResult, forfeits: Collection[int] = ()) -> dict[str, tuple[float, float]]:
        kept = f"{game}:{{{game_id}}}:ratings"
        raw = self.client.get(kept)
        if raw is None:
            before = [None if p is None else self.store.rating(p, game) for p in bound]
            after = rate(before, result, forfeits)
            changes = {p: (a.mu - b.mu, a.sigma / b.sigma) for p, b, a in zip(bound, before, after, strict=True)
                       if p is not None and b is not None and a is not None}
            self.client.set(kept, json.dumps(changes), nx=True, ex=self.game_ttl)
            raw = self.client.get(kept)
        found: dict[str, list[float]] = json.loads(raw)  # type: ignore[arg-type]
        return {p: (float(c[0]), float(c[1])) for p, c in found.items()}

    def forget(self, game: str, player_ids: Sequence[str]) -> None:
        """Take players whose profiles have expired off ``game``'s board, with their stamps."""
        with self.client.pipeline(transaction=True) as pipe:
            pipe.zrem(self.board(game), *player_ids)
            pipe.hdel(self.stamps(game), *player_ids)
            pipe.execute()

    def leaderboard(self, game: str, limit: int) -> list[tuple[str, float]]:
        """The ``limit`` best players of ``game`` by ordinal: (player id, ordinal)."""
        top: list[tuple[bytes, float]] = self.client.zrevrange(  # type: ignore[assignment]
            self.board(game), 0, limit - 1, withscores=True)
        return [(p.decode(), float(score)) for p, score in top]


# Relay one game's notices to one player's stream, each once: KEYS[1] the player's stream,
# KEYS[2] its counter (the stream's numbers, never reused), KEYS[3] the game's last notice relayed
# to the player; ARGV: the stream's cap, its TTL, the counter's TTL, the mark's TTL, then pairs
# (the notice's place in the game's order, its JSON), in that order. Answers how many it added.
_RELAY = """
local done = tonumber(redis.call('GET', KEYS[3]) or '0')
local added = 0
for i = 5, #ARGV, 2 do
  local at = tonumber(ARGV[i])
  if at > done then
    local n = redis.call('INCR', KEYS[2])
    redis.call('XADD', KEYS[1], 'MAXLEN', '~', ARGV[1], string.format('%.0f', n) .. '-1', 'e', ARGV[i + 1])
    done = at
    added = added + 1
  end
end
if added > 0 then
  redis.call('SET', KEYS[3], string.format('%.0f', done), 'EX', ARGV[4])
  redis.call('EXPIRE', KEYS[1], ARGV[2])
  redis.call('EXPIRE', KEYS[2], ARGV[3])
end
return added
"""


class PlayerEvents:
    """Each player's event stream (issue 23, item 4): ``players:{<id>}:events``, a Redis stream
    of the player's notices (:mod:`ludoteca.service_layer.notices`) numbered 1, 2, 3, ... (entry
    ids ``<n>-1``; the numbers come from ``players:{<id>}:events:seq``, kept as long as the
    player, so a number is never reused), capped at ``cap`` entries (approximately: Redis trims
    whole nodes) and expiring ``stream_ttl`` seconds after its last notice.

    The notices come from the games' outboxes (:func:`ludoteca.adapters.store.outbox_key`,
    written in each game's commit, in the game's slot). :meth:`relay` moves one game's outbox to
    its players' streams, each notice once: a script in the player's slot adds the notices
    past the game's mark for that player (``players:{<id>}:relayed:<game>/<id>``, the place in
    the game's order of the last one relayed, expiring with the game) and moves the mark in the
    same step; then the relayed entries are deleted from the outbox. A relay killed anywhere, or
    two at once, tells each notice once: what is left is relayed by the next (the service's
    after its next commit of the game, or the sweeper's, :mod:`ludoteca.adapters.sweeper`), and
    a notice past a player's mark was never added."""

    def __init__(self, client: redis.Redis, game_ttl_seconds: int = 7 * 24 * 3600,
                 player_ttl_seconds: int = PLAYER_TTL_SECONDS, cap: int = 1000,
                 blocking: redis.Redis | None = None) -> None:
        self.client: Any = client
        self.blocking = blocking
        self.game_ttl = game_ttl_seconds
        self.player_ttl = player_ttl_seconds
        self.cap = cap
        self._relay = client.register_script(_RELAY)

    def relay(self, game: str, game_id: str, batch: int = 500) -> int:
        """Relay the notices in ``game_id``'s outbox; the number added to players' streams
        (0: none left, or all told before)."""
        box = outbox_key(game, game_id)
        added = 0
        while True:
            entries = self.client.xrange(box, "-", "+", count=batch)
            if not entries:
                return added
            per_player: dict[str, list[Any]] = {}
            for entry_id, fields in entries:
                player_id = fields[b"p"].decode()
                per_player.setdefault(player_id, []).extend([outbox_order(entry_id), fields[b"n"]])
            for player_id, pairs in per_player.items():
                added += int(self._relay(
                    keys=[key(player_id, "events"), key(player_id, "events:seq"),
                          key(player_id, f"relayed:{game}/{game_id}")],
                    args=[self.cap, self.game_ttl, self.player_ttl, self.game_ttl, *pairs]))
            self.client.xdel(box, *[entry_id for entry_id, _ in entries])
            if len(entries) < batch:
                return added

    def tell(self, player_id: str, mark: str, body: dict[str, Any]) -> int:
        """Add one notice that comes from no game's commit (``matched``), once per ``mark``."""
        return int(self._relay(keys=[key(player_id, "events"), key(player_id, "events:seq"),
                                     key(player_id, f"relayed:{mark}")],
                               args=[self.cap, self.game_ttl, self.player_ttl, self.game_ttl, 1, json.dumps(body)]))

    def read(self, player_id: str, after: int, block_ms: int | None = None, count: int = 500) -> list[dict[str, Any]]:
        """The player's notices numbered over ``after``, each with its number as ``seq``; waits up
        to ``block_ms`` for the first (in slices, as a game's long-poll does)."""
        return [{"seq": n, **json.loads(payload)}
                for n, payload in read_stream(self.client, self.blocking, key(player_id, "events"), after,
                                              block_ms, count)]

    def page(self, player_id: str, after: int, wait: float) -> dict[str, Any]:
        """``GET /players/me/events``: the notices after ``after``, waiting up to ``wait`` seconds
        for one; ``last_seq``: the last number read (``after`` when none came)."""
        deadline = time.monotonic() + max(0.0, wait)
        while True:
            remaining_ms = int((deadline - time.monotonic()) * 1000)
            found = self.read(player_id, after, remaining_ms if remaining_ms > 0 else None)
            if found:
                return {"events": found, "last_seq": found[-1]["seq"]}
            if remaining_ms <= 0 or time.monotonic() >= deadline:
                return {"events": [], "last_seq": after}


def is_player_token(token: str) -> bool:
    """Whether ``token`` is shaped as a player's (a guest token or a JWT: it has a dot; a seat
    token, URL-safe base64, never does)."""
    return "." in token


class Seating:
    """Players for a game service (:class:`~ludoteca.service_layer.mygames.PlayerSeats`): who a
    token is, the players' lists of games, their ratings."""

    def __init__(self, identities: Identities, game_ttl_seconds: int = 7 * 24 * 3600) -> None:
        self.identities = identities
        self.lists = GameLists(identities.store.client, identities.store.ttl)
        self.ratings = Ratings(identities.store, game_ttl_seconds)
        self.events = PlayerEvents(identities.store.client, game_ttl_seconds, identities.store.ttl)

    @classmethod
    def for_client(cls, client: redis.Redis, oidc: OidcSettings | None = None,
                   game_ttl_seconds: int = 7 * 24 * 3600) -> Seating:
        return cls(Identities(PlayerStore(client), oidc), game_ttl_seconds)

    @property
    def games(self) -> GameLists:
        return self.lists

    def identify(self, token: str) -> PlayerRef | None:
        if not is_player_token(token):
            return None
        player = self.identities.verify(token)
        return PlayerRef(player.id, player.name)

    def rate(self, game: str, game_id: str, bound: Sequence[str | None], result: GameResult,
             forfeits: Collection[int] = ()) -> int:
        return self.ratings.settle(game, game_id, bound, result, forfeits)

    def relay(self, game: str, game_id: str) -> int:
        return self.events.relay(game, game_id)

    def tell(self, player_id: str, mark: str, body: dict[str, Any]) -> int:
        return self.events.tell(player_id, mark, body)

    def ordinal(self, player_id: str, game: str) -> float:
        return self.identities.store.rating(player_id, game).ordinal

    def queues(self, game: str) -> MatchQueues:
        return MatchQueues(self.identities.store.client, game)

    def leaderboard(self, game: str, limit: int) -> list[dict[str, Any]]:
        top = [player_id for player_id, _ in self.ratings.leaderboard(game, limit)]
        rows, gone = [], []
        for player_id, (player, r) in zip(top, self.identities.store.ranked(top, game), strict=True):
            if player is None:  # expired since: off the board
                gone.append(player_id)
                continue
            rows.append({"player_id": player_id, "name": player.name, "played": r.played, "rating": r.body()})
        if gone:
            self.ratings.forget(game, gone)
        return rows


def _split(member: bytes | str) -> tuple[str, str]:
    text = member.decode() if isinstance(member, bytes) else member
    game, _, game_id = text.partition("/")
    return game, game_id


PROFILE_FIELDS = ("name", "kind", "created")


def _player(player_id: str, profile: Any) -> Player | None:
    """A player from its profile's :data:`PROFILE_FIELDS` (None: gone)."""
    name, kind, created = _texts(profile)
    if name is None or kind is None or created is None:
        return None
    return Player(player_id, name, kind, int(created))


def _rating_fields(game: str) -> list[str]:
    return [f"{game}:mu", f"{game}:sigma", f"{game}:played"]


def _rating(fields: Any) -> Rating:
    """A rating from its :func:`_rating_fields` (the model's default when there is none)."""
    mu, sigma, played = _texts(fields)
    if mu is None or sigma is None:
        return Rating()
    return Rating(float(mu), float(sigma), int(played or 0))


def _texts(values: Any) -> list[str | None]:
    """A reply's bulk strings as text (None stays None)."""
    return [None if v is None else v.decode() if isinstance(v, bytes) else str(v) for v in values]


FETCH_RETRY_SECONDS = 5.0
"""After a failed fetch of the provider's keys, how long requests use the last good set (or get a
503 at once, without one) before one of them tries the provider again."""


class KeySet:
    """The provider's signing keys by ``kid``, fetched on the request path but never queued behind
    it: one request fetches at a time (``fetch_timeout_seconds`` at most) while the others use the
    last good set, or get a 503 at once if there is none; a failed fetch keeps the last good set
    in use (stale if error) and is not tried again for :data:`FETCH_RETRY_SECONDS`. (PyJWKClient
    fetched under its lock and cached nothing of a failure: with a hung provider, six requests
    waited 5, 10, ... 30 s for their 503s, and known keys were refused once the set had expired.)
    The set is fetched again when its ``jwks_lifespan_seconds`` is over, and for an unknown ``kid``
    at most once per ``refresh_cooldown_seconds``."""

    def __init__(self, oidc: OidcSettings) -> None:
        self.client = jwt.PyJWKClient(oidc.jwks_url, cache_keys=False, cache_jwk_set=False,
                                      timeout=oidc.fetch_timeout_seconds)
        self.lifespan, self.cooldown = oidc.jwks_lifespan_seconds, oidc.refresh_cooldown_seconds
        self.keys: dict[str, jwt.PyJWK] = {}
        self.fetched: float | None = None  # time.monotonic() of the last good fetch
        self.failed: float | None = None  # ... of the last failed one
        self.fetching = threading.Lock()

    def key(self, kid: str) -> jwt.PyJWK:
        """The key ``kid`` names: 401 when the provider has none, 503 when its keys cannot be had."""
        now = time.monotonic()
        known = self.keys.get(kid)
        age = None if self.fetched is None else now - self.fetched
        if known is not None and age is not None and age < self.lifespan:
            return known
        if known is None and age is not None and age < min(self.cooldown, self.lifespan):
            raise PlayerAuthenticationError("The JWT's key is not one of the identity provider's.")
        if self.failed is not None and now - self.failed < FETCH_RETRY_SECONDS:
            return self._last_good(known)
        if not self.fetching.acquire(blocking=False):  # another request is fetching: never wait on it
            return self._last_good(known)
        try:
            try:
                found = jwt.PyJWKSet.from_dict(self.client.fetch_data())
            except (jwt.PyJWKClientError, jwt.PyJWKSetError, ValueError, OSError):
                self.failed = time.monotonic()
                return self._last_good(known)
            self.keys = {k.key_id: k for k in found.keys if k.key_id and k.public_key_use in ("sig", None)}
            self.fetched, self.failed = time.monotonic(), None
        finally:
            self.fetching.release()
        fresh = self.keys.get(kid)
        if fresh is None:
            raise PlayerAuthenticationError("The JWT's key is not one of the identity provider's.")
        return fresh

    @staticmethod
    def _last_good(known: jwt.PyJWK | None) -> jwt.PyJWK:
        if known is not None:
            return known
        raise UnavailableError("The identity provider's keys cannot be fetched just now.")


class Identities:
    """Bearer token -> :class:`Player`: a guest token, or (with ``oidc``) a JWT of the provider."""

    def __init__(self, store: PlayerStore, oidc: OidcSettings | None = None) -> None:
        self.store = store
        self.oidc = oidc
        self.jwks = None if oidc is None else KeySet(oidc)

    def verify(self, token: str) -> Player:
        """The player ``token`` names; :class:`PlayerAuthenticationError` (401) when it names none,
        :class:`~ludoteca.core.errors.UnavailableError` (503) when the provider's keys cannot be
        fetched."""
        dots = token.count(".")
        if dots == 1:
            return self._guest(token)
        if dots == 2:
            return self._provider(token)
        raise PlayerAuthenticationError("The token is neither a guest token nor a JWT.")

    def _guest(self, token: str) -> Player:
        player_id = token.partition(".")[0]
        found = self.store.guest_token_hash(player_id) if PLAYER_ID.fullmatch(player_id) else None
        # an unknown player is compared with a hash of nothing, so both answers cost the same
        player, stored = found if found is not None else (None, tokens.hash_token(""))
        if not tokens.matches(token, stored) or player is None:
            raise PlayerAuthenticationError("The guest token matches no player.")
        return player

    def _provider(self, token: str) -> Player:
        oidc, jwks = self.oidc, self.jwks
        if oidc is None or jwks is None:
            raise PlayerAuthenticationError("This deployment accepts no identity provider's tokens; use a guest "
                                            "token (POST /players).")
        try:
            header = jwt.get_unverified_header(token)
        except jwt.PyJWTError:
            raise PlayerAuthenticationError("The JWT is malformed.") from None
        alg, kid = header.get("alg"), header.get("kid")
        if alg not in oidc.algorithms:
            raise PlayerAuthenticationError(f"The JWT's algorithm {alg!r} is not accepted (accepted: "
                                            f"{', '.join(oidc.algorithms)}).")
        if not isinstance(kid, str) or not kid:
            raise PlayerAuthenticationError("The JWT names no key ('kid').")
        signing = jwks.key(kid)
        declared = signing._jwk_data.get("alg")
        if declared is not None and declared != alg:
            raise PlayerAuthenticationError(f"The JWT's algorithm {alg!r} is not its key's ({declared}).")
        try:
            # the key as a PyJWK: PyJWT refuses a header `alg` that is not the key's own (a key of
            # another family, published without an `alg`, made the raw key's check a TypeError: a 500)
            claims = jwt.decode(token, signing, algorithms=[alg], audience=oidc.audience, issuer=oidc.issuer,
                                leeway=oidc.leeway_seconds, options={"require": ["exp", "iss", "aud", "sub"]})
        except jwt.ExpiredSignatureError:
            raise PlayerAuthenticationError("The JWT has expired.") from None
        except jwt.InvalidAudienceError:
            raise PlayerAuthenticationError("The JWT is not meant for this service (audience).") from None
        except jwt.InvalidIssuerError:
            raise PlayerAuthenticationError("The JWT is not from this deployment's identity provider.") from None
        except (jwt.PyJWTError, TypeError, ValueError):  # the key cannot verify this algorithm, say
            raise PlayerAuthenticationError("The JWT does not verify.") from None
        subject = claims["sub"]
        if not isinstance(subject, str) or not 0 < len(subject) <= 255:
            raise PlayerAuthenticationError("The JWT's subject is not a string of 1 to 255 characters.")
        player_id = oidc_player_id(oidc.issuer, subject)
        name = next((n for n in (plain_name(claims.get(c)) for c in ("name", "preferred_username", "nickname"))
                     if n is not None), f"player-{player_id[:6]}")
        return self.store.ensure(player_id, name, OIDC)


# Matchmaking (issue 23, item 5): every key of one game type's matchmaking shares the hash tag
# ``{mm}`` of that game (one Redis Cluster slot: a claim is one script): ``<game>:{mm}:queue:<pool>``
# (the waiting tickets of one pool, scored by rating ordinal), ``<game>:{mm}:ticket:<id>`` (a
# ticket, JSON, with a TTL) and ``<game>:{mm}:player:<player id>`` (the player's waiting ticket).
# The scripts name the ticket keys from ARGV[1], the prefix ``<game>:{mm}:``: in the same slot.

# What both scripts below hold abandoned, one definition (included in both): a queued ticket whose
# key is gone (expired: ``ticket_ttl`` after its last change) or that no longer waits, dropped
# from the queue; or one whose player stopped polling (not seen for the poll timeout), marked
# expired and dropped. ``sweep`` goes over the whole queue (its size is bounded by the cap) and
# answers the live tickets, by ordinal: {id, ord, t}.
_SWEEP = """
local function save(prefix, id, t, ttl)
  redis.call('SET', prefix .. 'ticket:' .. id, cjson.encode(t), 'EX', ttl)
end
local function sweep(queue, prefix, now, timeout, ttl)
  local live = {}
  local ids = redis.call('ZRANGE', queue, 0, -1, 'WITHSCORES')
  for i = 1, #ids, 2 do
    local raw = redis.call('GET', prefix .. 'ticket:' .. ids[i])
    local t = raw and cjson.decode(raw)
    if not t or t.state ~= 'waiting' then
      redis.call('ZREM', queue, ids[i])
    elseif now - t.seen > timeout then
      t.state = 'expired'
      save(prefix, ids[i], t, ttl)
      redis.call('ZREM', queue, ids[i])
    else
      table.insert(live, {id = ids[i], ord = tonumber(ids[i + 1]), t = t})
    end
  end
  return live
end
"""

# KEYS[1] the pool's queue, KEYS[2] the new ticket, KEYS[3] the player's mark; ARGV: prefix, ticket
# id, its JSON, its ordinal, the ticket TTL, the queue's cap, now (s), the poll timeout. Answers
# {'ok'} or {'mine', ticket id} (the player waits already) or {'full'}: the cap counts live
# tickets only, so a queue at its cap is swept first (``_SWEEP``; before, the abandoned tickets
# counted until a claim dropped them, and a claim runs only after an enqueue let in or a poll: a
# pool of abandoned tickets refused every new player until its queue key expired).
_ENQUEUE = _SWEEP + """
local mine = redis.call('GET', KEYS[3])
if mine and redis.call('EXISTS', ARGV[1] .. 'ticket:' .. mine) == 1 then
  local t = cjson.decode(redis.call('GET', ARGV[1] .. 'ticket:' .. mine))
  if t.state == 'waiting' or t.state == 'claimed' then return {'mine', mine} end
end
local cap = tonumber(ARGV[6])
if redis.call('ZCARD', KEYS[1]) >= cap
    and #sweep(KEYS[1], ARGV[1], tonumber(ARGV[7]), tonumber(ARGV[8]), ARGV[5]) >= cap then
  return {'full'}
end
redis.call('SET', KEYS[2], ARGV[3], 'EX', ARGV[5])
redis.call('ZADD', KEYS[1], ARGV[4], ARGV[2])
redis.call('EXPIRE', KEYS[1], ARGV[5])
redis.call('SET', KEYS[3], ARGV[2], 'EX', ARGV[5])
return {'ok'}
"""

# Claim the groups of one pool that may play now: KEYS[1] the queue; ARGV: prefix, seats n, now
# (s), the window's base, its widening a second, the poll timeout, the most groups, the ticket
# TTL. Drops what is abandoned (``_SWEEP``); then, while a group is found: the n consecutive
# tickets (by ordinal) of smallest spread whose spread is within the window of the group's longest
# wait; then every ticket whose fill-with-bots time has come, alone. Each claimed ticket leaves
# the queue, marked claimed in the same step: no ticket is claimed twice. Answers a flat list:
# per group its kind ('match' or 'fill'), its size, its ticket ids.
_CLAIM = _SWEEP + """
local prefix, n, now = ARGV[1], tonumber(ARGV[2]), tonumber(ARGV[3])
local base, widen, timeout = tonumber(ARGV[4]), tonumber(ARGV[5]), tonumber(ARGV[6])
local most, ttl = tonumber(ARGV[7]), ARGV[8]
local live = sweep(KEYS[1], prefix, now, timeout, ttl)
local out = {}
local function claim(kind, first, count)
  table.insert(out, kind)
  table.insert(out, count)
  for _ = 1, count do
    local e = table.remove(live, first)
    e.t.state = 'claimed'
    e.t.claimed = now
    save(prefix, e.id, e.t, ttl)
    redis.call('ZREM', KEYS[1], e.id)
    table.insert(out, e.id)
  end
end
for _ = 1, most do
  local best, spread = nil, nil
  for i = 1, #live - n + 1 do
    local s = live[i + n - 1].ord - live[i].ord
    local oldest, players, twice = now, {}, false
    for j = i, i + n - 1 do
      oldest = math.min(oldest, live[j].t.created)
      if players[live[j].t.player] then twice = true end  -- never one player against itself
      players[live[j].t.player] = true
    end
    if not twice and s <= base + widen * (now - oldest) and (best == nil or s < spread) then best, spread = i, s end
  end
  if best == nil then break end
  claim('match', best, n)
end
local i = 1
while i <= #live do
  local t = live[i].t
  if t.fill_after ~= nil and t.fill_after ~= cjson.null and now - t.created >= t.fill_after then
    claim('fill', i, 1)
  else
    i = i + 1
  end
end
return out
"""

# A ticket's change of state (a poll is one): KEYS[1] the ticket; ARGV: its TTL, the states it may
# be in, the prefix, the ticket's id, then field/value pairs (JSON values) to set. While it waits
# or is claimed, its pool's queue and its player's mark live as long as it does (they expired 600 s
# after the enqueue while the ticket, polled, lived on: never matched, its fill-with-bots never
# due, and a second ticket of the same player let in, then paired with the first). Answers the
# ticket after (or nil: gone or not allowed).
_UPDATE = """
local raw = redis.call('GET', KEYS[1])
if not raw then return nil end
local t = cjson.decode(raw)
local allowed = false
for s in string.gmatch(ARGV[2], '[^,]+') do if t.state == s then allowed = true end end
if not allowed then return raw end
for i = 5, #ARGV, 2 do t[ARGV[i]] = cjson.decode(ARGV[i + 1]) end
raw = cjson.encode(t)
redis.call('SET', KEYS[1], raw, 'EX', ARGV[1])
if t.state == 'waiting' or t.state == 'claimed' then
  redis.call('EXPIRE', ARGV[3] .. 'queue:' .. t.pool, ARGV[1])
  local mark = ARGV[3] .. 'player:' .. t.player
  if redis.call('GET', mark) == ARGV[4] then redis.call('EXPIRE', mark, ARGV[1]) end
end
return raw
"""


class MatchQueues:
    """One game type's matchmaking tickets on Redis (keys above, one slot a game type), at most
    ``cap`` live tickets a pool."""

    def __init__(self, client: redis.Redis, game: str, ticket_ttl: int = 600, cap: int = 1000) -> None:
        self.client: Any = client
        self.game = game
        self.prefix = f"{game}:{{mm}}:"
        self.ttl = ticket_ttl
        self.cap = cap
        self._enqueue = client.register_script(_ENQUEUE)
        self._claim = client.register_script(_CLAIM)
        self._update = client.register_script(_UPDATE)

    def queue(self, pool: str) -> str:
        return f"{self.prefix}queue:{pool}"

    def ticket_key(self, ticket: str) -> str:
        return f"{self.prefix}ticket:{ticket}"

    def enqueue(self, ticket: str, body: dict[str, Any], ordinal: float, timeout: float) -> tuple[str, str | None]:
        """Queue a new ticket: ('ok', None), ('mine', the player's waiting ticket) or ('full', None:
        the pool holds ``cap`` live tickets). Now is the ticket's ``created`` (the matcher's clock);
        a ticket not seen for ``timeout`` seconds (the matcher's poll timeout) is abandoned, as
        for :meth:`claim`."""
        out = self._enqueue(keys=[self.queue(body["pool"]), self.ticket_key(ticket),
                                  f"{self.prefix}player:{body['player']}"],
                            args=[self.prefix, ticket, json.dumps(body), repr(ordinal), self.ttl, self.cap,
                                  repr(float(body["created"])), repr(float(timeout))])
        status = out[0].decode() if isinstance(out[0], bytes) else out[0]
        mine = out[1].decode() if len(out) > 1 and isinstance(out[1], bytes) else None
        return status, mine

    def claim(self, pool: str, seats: int, now: float, base: float, widen: float, timeout: float,
              most: int = 10) -> list[tuple[str, list[str]]]:
        """Claim the groups that may play now (see ``_CLAIM``): (kind, ticket ids)."""
        flat = [x.decode() if isinstance(x, bytes) else x for x in self._claim(
            keys=[self.queue(pool)], args=[self.prefix, seats, repr(now), repr(base), repr(widen), repr(timeout),
                                           most, self.ttl])]
        groups, i = [], 0
        while i < len(flat):
            kind, count = str(flat[i]), int(flat[i + 1])
            groups.append((kind, [str(t) for t in flat[i + 2:i + 2 + count]]))
            i += 2 + count
        return groups

    def get(self, ticket: str) -> dict[str, Any] | None:
        raw = self.client.get(self.ticket_key(ticket))
        return None if raw is None else dict(json.loads(raw))

    def update(self, ticket: str, states: Sequence[str], **changes: Any) -> dict[str, Any] | None:
        """Set ``changes`` on the ticket if it is in one of ``states``; the ticket after (unchanged
        when it was not), None when it is gone."""
        args: list[Any] = [self.ttl, ",".join(states), self.prefix, ticket]
        for name, value in changes.items():
            args += [name, json.dumps(value)]
        raw = self._update(keys=[self.ticket_key(ticket)], args=args)
        return None if raw is None else dict(json.loads(raw))

    def requeue(self, ticket: str, body: dict[str, Any]) -> None:
        """Back in its queue (a claim whose game was never made), the queue living as long as a ticket."""
        with self.client.pipeline(transaction=True) as pipe:
            pipe.zadd(self.queue(body["pool"]), {ticket: float(body["ordinal"])})
            pipe.expire(self.queue(body["pool"]), self.ttl)
            pipe.execute()

    def dequeue(self, ticket: str, pool: str) -> None:
        self.client.zrem(self.queue(pool), ticket)
