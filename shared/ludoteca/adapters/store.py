"""The Redis repository of live games.

Keys of one game share a hash tag so they live in one Redis Cluster slot::

    <game>:{<id>}:game      hash: version, doc (JSON: seats, options, engine state), and what is
                            due: due ("bot:<version>", "turn:<version>" or "result"), due_at
                            (server ms; a timed turn's: its deadline, :mod:`ludoteca.service_layer.timers`)
    <game>:{<id>}:events    stream: one entry per event, id "<seq>-1"
    <game>:{<id>}:log       list: the actions in order (for the replay)
    <game>:{<id>}:idem:<seat>:<key>   string: a stored response for an Idempotency-Key

Every write is one Lua script: a compare-and-set on ``version`` that, in the same atomic step,
writes the new document, appends the events and the log entry, stores the idempotency record,
records what the new version makes due (a bot turn, or recording the result) and refreshes the
TTL. Concurrent writers never lose or duplicate anything: exactly one wins a version.

Liveness: a commit that makes something due is always preceded by a hint in the game type's
index ``<game>:{due}`` (a sorted set of game ids by server time in ms, a slot of its own). If
the process dies between the commit and the enqueue of the task, or the queue is lost, the hint
is still there: the sweeper (:mod:`ludoteca.adapters.sweeper`) reads the game's ``due`` field and
re-dispatches. A hint whose game has nothing due is harmless; the sweeper removes it only if its
score is still the one it read (a newer hint is never dropped).

Every key expires or has a documented bound (a test scans them all after a random workload):

- the game's keys above, and the idempotency records: a TTL, refreshed on every write.
- ``<game>:{due}``: a TTL (the game TTL, refreshed on every hint); members are games with
  something due, or that had within the sweeper's grace; the sweeper removes the others.
- ``<game>:{due}:lock``: the sweepers' short lock, with a TTL of a few seconds.
- ``<game>:lobby``: sorted set of waiting games by creation time, with a TTL (the game TTL,
  refreshed on every add); every add trims entries created longer ago than the game TTL (a game
  that waits that long for players leaves the lobby); expired games are dropped when read.
- ``<game>:{board}:recorded``: sorted set of the games whose result is recorded, by server time
  (ms); a TTL (the game TTL, refreshed on every record), and trimmed of entries older than the
  game TTL on every record: by then the game itself has expired and can never be recorded again.
- ``<game>:{board}:wins`` (sorted set: wins by player name) and ``<game>:{board}:players``
  (hash: ``<name>:played``, ``<name>:points``): no TTL (the leaderboard lasts), capped to
  ``max_players`` names (``Settings.leaderboard_players``, env ``LUDOTECA_LEADERBOARD_PLAYERS``,
  10,000 by default): past it, the players with the fewest wins are dropped from both, so
  ``wins`` has at most ``max_players`` members and ``players`` twice as many fields.
- The rate limiter's counters (:mod:`ludoteca.adapters.hosting.ratelimit`): a TTL.
- The Celery broker's keys live in another database (``Settings.broker_url``): the queues (one
  list per game, holding the tasks not yet taken: bounded by the games with something due and
  the sweeper's backoff), ``unacked``/``unacked_index`` (the tasks being run: at most the
  workers' concurrency times their prefetch), ``unacked_mutex`` (a TTL) and kombu's routing tables
  (``_kombu.binding.*``, ``_kombu.binding_permanent.*``, ``_kombu.binding_deadlines``: one
  entry per queue, exchange and worker mailbox; kombu sweeps the expiring ones).
- ``<game>:{board}:stats`` (hash): no TTL, bounded by construction: ``games``, ``shared_wins``
  and one ``seat_wins:<seat>`` per seat (at most the game's maximum number of seats).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

import redis
from ludoteca.core import jsontext
from ludoteca.core.errors import StoreUnavailableError
from ludoteca.service_layer.repository import CommitResult, Due, GameMissing, Quota, Stored, retry_seconds
from redis.exceptions import RedisClusterException, SlotNotCoveredError

__all__ = ["CommitResult", "Due", "GameMissing", "GameStore", "Quota", "Stored", "store_unavailable"]

_COMMIT = """
local limit = tonumber(ARGV[10])
if limit > 0 then
  local n = redis.call('INCR', KEYS[5])
  if n == 1 then redis.call('EXPIRE', KEYS[5], tonumber(ARGV[11])) end
  if n > limit then return {'limited', tostring(redis.call('PTTL', KEYS[5]))} end
end
local cur = redis.call('HGET', KEYS[1], 'version')
if not cur then return {'missing'} end
if ARGV[4] == '1' then
  local existing = redis.call('GET', KEYS[4])
  if existing then return {'idem', existing} end
end
if cur ~= ARGV[1] then return {'stale', cur, redis.call('HGET', KEYS[1], 'doc')} end
local new = tostring(tonumber(cur) + 1)
redis.call('HSET', KEYS[1], 'version', new, 'doc', ARGV[2])
local seq = tonumber(ARGV[8])
for i = 13, #ARGV do
  redis.call('XADD', KEYS[2], tostring(seq) .. '-1', 'e', ARGV[i])
  seq = seq + 1
end
if ARGV[7] ~= '' then redis.call('RPUSH', KEYS[3], ARGV[7]) end
if ARGV[4] == '1' then redis.call('SET', KEYS[4], ARGV[5], 'EX', tonumber(ARGV[6])) end
if ARGV[9] == '' then
  redis.call('HDEL', KEYS[1], 'due', 'due_at')
else
  local due = ARGV[9]
  local at = ARGV[12]
  if at == '' then
    local t = redis.call('TIME')
    at = string.format('%.0f', t[1] * 1000 + math.floor(t[2] / 1000))
  end
  if due == 'bot' or due == 'turn' then due = due .. ':' .. new end
  redis.call('HSET', KEYS[1], 'due', due, 'due_at', at)
end
local ttl = tonumber(ARGV[3])
redis.call('EXPIRE', KEYS[1], ttl)
redis.call('EXPIRE', KEYS[2], ttl)
redis.call('EXPIRE', KEYS[3], ttl)
return {'ok', new}
"""

_CREATE = """
if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
redis.call('HSET', KEYS[1], 'version', '1', 'doc', ARGV[1])
if ARGV[3] ~= '' then
  local due = ARGV[3]
  local at = ARGV[4]
  if at == '' then
    local t = redis.call('TIME')
    at = string.format('%.0f', t[1] * 1000 + math.floor(t[2] / 1000))
  end
  if due == 'bot' or due == 'turn' then due = due .. ':1' end
  redis.call('HSET', KEYS[1], 'due', due, 'due_at', at)
end
local seq = 1
for i = 5, #ARGV do
  redis.call('XADD', KEYS[2], tostring(seq) .. '-1', 'e', ARGV[i])
  seq = seq + 1
end
redis.call('EXPIRE', KEYS[1], tonumber(ARGV[2]))
if #ARGV >= 5 then redis.call('EXPIRE', KEYS[2], tonumber(ARGV[2])) end
return 1
"""

_RECORD_RESULT = """
local t = redis.call('TIME')
local now = t[1] * 1000 + math.floor(t[2] / 1000)
local ttl = tonumber(ARGV[3])
if redis.call('ZSCORE', KEYS[1], ARGV[1]) then return 0 end
redis.call('ZADD', KEYS[1], string.format('%.0f', now), ARGV[1])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', '(' .. string.format('%.0f', now - ttl * 1000))
redis.call('EXPIRE', KEYS[1], ttl)
redis.call('HINCRBY', KEYS[4], 'games', 1)
local n = (#ARGV - 4) / 3
for i = 0, n - 1 do
  local name = ARGV[5 + 3 * i]
  local won = tonumber(ARGV[6 + 3 * i])
  local score = ARGV[7 + 3 * i]
  redis.call('ZINCRBY', KEYS[2], won, name)
  redis.call('HINCRBY', KEYS[3], name .. ':played', 1)
  redis.call('HINCRBYFLOAT', KEYS[3], name .. ':points', score)
  if won > 0 then redis.call('HINCRBY', KEYS[4], 'seat_wins:' .. tostring(i), 1) end
end
if ARGV[2] == '1' then redis.call('HINCRBY', KEYS[4], 'shared_wins', 1) end
local cap = tonumber(ARGV[4])
local size = redis.call('ZCARD', KEYS[2])
if cap > 0 and size > cap then
  local gone = redis.call('ZRANGE', KEYS[2], 0, size - cap - 1)
  for _, name in ipairs(gone) do redis.call('HDEL', KEYS[3], name .. ':played', name .. ':points') end
  redis.call('ZREMRANGEBYRANK', KEYS[2], 0, size - cap - 1)
end
return 1
"""

# The hint index (one key, one slot): a hint at server time, kept for as long as the games.
_HINT = """
local t = redis.call('TIME')
local ms = t[1] * 1000 + math.floor(t[2] / 1000)
redis.call('ZADD', KEYS[1], ms, ARGV[1])
redis.call('EXPIRE', KEYS[1], tonumber(ARGV[2]))
return string.format('%.0f', ms)
"""

# Remove (ARGV[3] == '') or move (to score ARGV[3]) a hint only if its score is still ARGV[2].
_HINT_IF = """
local cur = redis.call('ZSCORE', KEYS[1], ARGV[1])
if not cur or tonumber(cur) ~= tonumber(ARGV[2]) then return 0 end
if ARGV[3] == '' then redis.call('ZREM', KEYS[1], ARGV[1])
else redis.call('ZADD', KEYS[1], ARGV[3], ARGV[1]) end
return 1
"""

# One unit of a seat's quota (ludoteca.adapters.hosting.ratelimit): a read's, or a write's that
# failed before its commit could spend it; returns the count and the window's milliseconds left.
_SPEND = """
local out = {false, false, false}
if ARGV[2] == '1' then
  local n = redis.call('INCR', KEYS[1])
  if n == 1 then redis.call('EXPIRE', KEYS[1], tonumber(ARGV[1])) end
  out[1] = n
  out[2] = redis.call('PTTL', KEYS[1])
end
if ARGV[3] == '1' then out[3] = redis.call('GET', KEYS[2]) end
return out
"""

_CLEAR_DUE = """
if redis.call('HGET', KEYS[1], 'due') == ARGV[1] then
  redis.call('HDEL', KEYS[1], 'due', 'due_at')
  return 1
end
return 0
"""

_RELEASE = """
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0
"""

MAX_PLAYERS = 10_000
LONG_BLOCK_SECONDS = 5.0
"""A long blocking read's slice (``GameStore.events_after`` with its ``blocking`` client)."""
LONG_BLOCK_MS = int(LONG_BLOCK_SECONDS * 1000)
"""The default cap on the names a leaderboard keeps (see the module docstring)."""


# Redis error replies that say "not now" rather than "wrong command": loading the dataset after
# a restart, a replica or cluster not ready, a failed snapshot blocking writes, out of memory
# under noeviction, a busy script. Inside a Lua script they come back as "... -OOM ...".
_TRANSIENT_CODES = frozenset({"LOADING", "MASTERDOWN", "MISCONF", "READONLY", "OOM", "TRYAGAIN",
                              "CLUSTERDOWN", "NOREPLICAS", "BUSY"})
_TRANSIENT_REPLY = re.compile(r"(?:^|[\s-])(?:" + "|".join(sorted(_TRANSIENT_CODES)) + r")\b")


def store_unavailable(err: BaseException) -> StoreUnavailableError | None:
    """The 503 a Redis failure maps to, or ``None`` when it is not a store outage (a
    programming error, e.g. a wrong reply type: that stays a 500).

    Connection errors (refused, reset, closed, loading) and timeouts (a hung or overloaded
    Redis) are outages; so are the transient error replies above. On a Redis Cluster, so are
    the client's own ``RedisClusterException`` for no node reachable (raised from the
    connection error) and for slots no node serves (``SlotNotCoveredError``, "All slots are
    not covered"); its other ones (keys of several slots in one call) are programming errors."""
    transient = isinstance(err, (redis.ConnectionError, redis.TimeoutError, SlotNotCoveredError)) or (
        isinstance(err, RedisClusterException)
        and (isinstance(err.__cause__, (redis.ConnectionError, redis.TimeoutError)) or "not covered" in str(err)))
    if not transient and isinstance(err, redis.ResponseError):
        code = getattr(err, "status_code", None)
        transient = code in _TRANSIENT_CODES or bool(_TRANSIENT_REPLY.search(str(err)))
    if not transient:
        return None
    return StoreUnavailableError(
        "The game store is not answering right now (down, hung or restarting); try again in a "
        "moment. A move sent with an Idempotency-Key is applied once however often it is retried.")


_dumps = jsontext.dumps
_loads = jsontext.loads


class GameStore:
    """Repository of one game type's live sessions."""

    def __init__(self, client: redis.Redis, game: str, ttl_seconds: int, idempotency_ttl: int,
                 max_players: int = MAX_PLAYERS, blocking: redis.Redis | None = None) -> None:
        self.r: Any = client  # redis-py's return types are too loose to be useful here
        self.blocking: Any = blocking  # long blocking reads (events_after), if given
        self.game = game
        self.ttl = ttl_seconds
        self.idem_ttl = idempotency_ttl
        self.max_players = max_players
        self._commit = client.register_script(_COMMIT)
        self._create = client.register_script(_CREATE)
        self._record = client.register_script(_RECORD_RESULT)
        self._hint = client.register_script(_HINT)
        self._hint_if = client.register_script(_HINT_IF)
        self._clear_due = client.register_script(_CLEAR_DUE)
        self._release = client.register_script(_RELEASE)
        self._spend = client.register_script(_SPEND)

    # -- keys -------------------------------------------------------------------------------
    def _key(self, game_id: str, what: str) -> str:
        return f"{self.game}:{{{game_id}}}:{what}"

    def idem_key(self, game_id: str, seat: int, key: str) -> str:
        return self._key(game_id, f"idem:{seat}:{key}")

    @property
    def lobby_key(self) -> str:
        return f"{self.game}:lobby"

    def _board(self, what: str) -> str:
        return f"{self.game}:{{board}}:{what}"

    @property
    def hints_key(self) -> str:
        return f"{self.game}:{{due}}"

    # -- games ------------------------------------------------------------------------------
    def create(self, game_id: str, doc: dict[str, Any], events: Sequence[dict[str, Any]], due: str = "",
               due_at: int | None = None) -> bool:
        """A new game at version 1; ``due`` and ``due_at`` as in :meth:`commit`."""
        if due:
            self.hint(game_id)
        args: list[Any] = [_dumps(doc), self.ttl, due, "" if due_at is None else due_at, *(_dumps(e) for e in events)]
        created = self._create(keys=[self._key(game_id, "game"), self._key(game_id, "events")], args=args)
        return bool(created)

    def load(self, game_id: str) -> Stored:
        raw = self.r.hmget(self._key(game_id, "game"), ["version", "doc"])
        if raw[0] is None or raw[1] is None:
            raise GameMissing(game_id)
        return Stored(int(raw[0]), _loads(raw[1]))

    def version(self, game_id: str) -> int | None:
        raw = self.r.hget(self._key(game_id, "game"), "version")
        return None if raw is None else int(raw)

    def commit(
        self,
        game_id: str,
        expected_version: int,
        doc: dict[str, Any],
        events: Sequence[dict[str, Any]],
        first_seq: int,
        log_entry: dict[str, Any] | None = None,
        idempotency: tuple[int, str, dict[str, Any]] | None = None,
        due: str = "",
        quota: Quota | None = None,
        due_at: int | None = None,
    ) -> CommitResult:
        """Compare-and-set on ``expected_version``; see the module docstring. ``due``: what the
        new version makes due, ``"bot"`` (a bot turn at the new version), ``"turn"`` (a human's
        turn with a timer, :mod:`ludoteca.service_layer.timers`: due at ``due_at``, its deadline in ms),
        ``"result"``, or ``""`` (nothing); ``due_at`` defaults to the server's time. When
        something is due, the write-ahead :meth:`hint` goes first, so a crash right after the
        commit still leaves the sweeper its hint. ``quota`` (not yet
        spent): the script spends one unit first and commits nothing when it is over
        (``limited``); its key must be in the game's slot (it carries the game's hash tag)."""
        if due:
            self.hint(game_id)
        game_key = self._key(game_id, "game")
        idem_key = quota_key = game_key
        idem_flag, idem_value = "0", b""
        if idempotency is not None:
            seat, key, record = idempotency
            idem_key = self.idem_key(game_id, seat, key)
            idem_flag, idem_value = "1", _dumps(record)
        limit, window = 0, 0
        if quota is not None and not quota.spent:
            quota_key, limit, window = quota.key, quota.limit, quota.window
        keys = [game_key, self._key(game_id, "events"), self._key(game_id, "log"), idem_key, quota_key]
        args: list[Any] = [
            str(expected_version), _dumps(doc), self.ttl, idem_flag, idem_value, self.idem_ttl,
            _dumps(log_entry) if log_entry is not None else "", first_seq, due, limit, window,
            "" if due_at is None else due_at, *(_dumps(e) for e in events),
        ]
        out = self._commit(keys=keys, args=args)
        if limit:
            quota.spent = True  # type: ignore[union-attr]  # limit is set only with a quota
        status = out[0].decode() if isinstance(out[0], bytes) else out[0]
        if status == "missing":
            raise GameMissing(game_id)
        if status == "limited":
            return CommitResult("limited", retry_after=retry_seconds(int(out[1])))
        if status == "idem":
            return CommitResult("idempotent", replay=_loads(out[1]))
        if status == "stale":  # the current document comes with it: a retry needs no read
            return CommitResult("stale", version=int(out[1]), current=Stored(int(out[1]), _loads(out[2])))
        return CommitResult("ok", version=int(out[1]))

    def spend(self, quota: Quota, idempotency: tuple[str, int, str] | None = None
              ) -> tuple[int | None, dict[str, Any] | None]:
        """Spend one unit of ``quota`` (unless a commit did): a seat's read, or a write that
        failed before its commit, which also reads, in the same round trip, the idempotency record
        ``(game id, seat, key)``. Returns (``Retry-After`` seconds if over the quota else
        ``None``, the record)."""
        spend = not quota.spent
        if not spend and idempotency is None:
            return None, None
        # one script, not a pipeline: a cluster pipeline refuses EVALSHA; both keys carry the
        # game's hash tag, so the script touches one slot
        idem_key = self.idem_key(*idempotency) if idempotency is not None else quota.key
        count, pttl, raw = self._spend(keys=[quota.key, idem_key],
                                       args=[quota.window, "1" if spend else "0", "0" if idempotency is None else "1"])
        retry = None
        if spend:
            quota.spent = True
            if int(count) > quota.limit:
                retry = retry_seconds(int(pttl))
        record = _loads(raw) if raw is not None else None
        return retry, record

    def idempotency_record(self, game_id: str, seat: int, key: str) -> dict[str, Any] | None:
        raw = self.r.get(self.idem_key(game_id, seat, key))
        return None if raw is None else _loads(raw)

    def action_log(self, game_id: str) -> list[dict[str, Any]]:
        return [_loads(x) for x in self.r.lrange(self._key(game_id, "log"), 0, -1)]

    def events_after(self, game_id: str, after: int, block_ms: int | None = None,
                     count: int = 500) -> list[tuple[int, dict[str, Any]]]:
        """Events with sequence number greater than ``after``; with ``block_ms`` waits for the
        first one (Redis ``XREAD BLOCK``) in slices: an empty answer may come before ``block_ms``
        and the caller blocks again (``GameService.events`` loops to its deadline), so a hung
        Redis is noticed within a slice and the timeout, not after the whole wait.

        While at least :data:`LONG_BLOCK_SECONDS` of the wait are left and the store has its
        ``blocking`` client (socket timeout: that slice plus the usual timeout,
        :func:`ludoteca.adapters.connect.blocking_client`), a slice is that long; else, and for
        the rest of a wait, it is half the fail-fast client's socket timeout (0.5 s by default).
        Each slice wakes the waiting request and Redis: with 0.5 s slices a parked long-poll cost
        ~1.1 ms of CPU a second (docs/scaling.md), the largest cost at scale; a request never
        waits longer than its wait and the timeout, and a blocked read never holds a connection
        of the pool the moves use."""
        key = self._key(game_id, "events")
        if block_ms is not None and block_ms > 0:
            if self.blocking is not None and block_ms >= LONG_BLOCK_MS:
                res = self.blocking.xread({key: f"{after}-1"}, count=count, block=LONG_BLOCK_MS)
            else:
                timeout = self.r.get_connection_kwargs().get("socket_timeout")  # a cluster client has no one pool
                if timeout:
                    block_ms = max(1, min(block_ms, int(timeout * 500)))
                res = self.r.xread({key: f"{after}-1"}, count=count, block=block_ms)
        else:
            res = self.r.xread({key: f"{after}-1"}, count=count)
        out: list[tuple[int, dict[str, Any]]] = []
        for _stream, entries in res or []:
            for entry_id, fields in entries:
                sid = entry_id.decode() if isinstance(entry_id, bytes) else entry_id
                payload = fields.get(b"e", fields.get("e"))
                out.append((int(sid.split("-")[0]), _loads(payload)))
        return out

    # -- lobby ------------------------------------------------------------------------------
    def lobby_add(self, game_id: str, created: float) -> None:
        """Add a waiting game; trims the entries created longer ago than the game TTL."""
        pipe = self.r.pipeline(transaction=False)
        pipe.zadd(self.lobby_key, {game_id: created})
        pipe.zremrangebyscore(self.lobby_key, "-inf", f"({created - self.ttl}")
        pipe.expire(self.lobby_key, self.ttl)
        pipe.execute()

    def lobby_remove(self, game_id: str) -> None:
        self.r.zrem(self.lobby_key, game_id)

    def lobby_page(self, offset: int, limit: int) -> tuple[int, list[str]]:
        """Oldest open games first. Expired games are dropped lazily."""
        total = int(self.r.zcard(self.lobby_key))
        ids = [i.decode() if isinstance(i, bytes) else i
               for i in self.r.zrange(self.lobby_key, offset, offset + limit - 1)]
        live = []
        for gid in ids:
            if self.r.exists(self._key(gid, "game")):
                live.append(gid)
            else:
                self.lobby_remove(gid)
                total -= 1
        return total, live

    # -- results ----------------------------------------------------------------------------
    def record_result(self, game_id: str, entries: Sequence[tuple[str, bool, float]], shared: bool) -> bool:
        """Record a finished game's result once (a second call for the same game does nothing).
        ``entries`` is one (player name, won, score) per seat, in seat order."""
        args: list[Any] = [game_id, "1" if shared else "0", self.ttl, self.max_players]
        for name, won, score in entries:
            args.extend([name, 1 if won else 0, repr(float(score))])
        keys = [self._board("recorded"), self._board("wins"), self._board("players"), self._board("stats")]
        return bool(self._record(keys=keys, args=args))

    def is_recorded(self, game_id: str) -> bool:
        return self.r.zscore(self._board("recorded"), game_id) is not None

    def leaderboard(self, limit: int) -> list[dict[str, Any]]:
        top = self.r.zrevrange(self._board("wins"), 0, limit - 1, withscores=True)
        names = [n.decode() if isinstance(n, bytes) else n for n, _ in top]
        fields = [f"{n}:{w}" for n in names for w in ("played", "points")]
        values = self.r.hmget(self._board("players"), fields) if fields else []
        rows = []
        for i, (name, (_, wins)) in enumerate(zip(names, top, strict=True)):
            played = int(values[2 * i] or 0)
            points = float(values[2 * i + 1] or 0.0)
            rows.append({
                "player": name, "wins": int(wins), "played": played,
                "win_rate": (wins / played) if played else 0.0,
                "mean_score": (points / played) if played else 0.0,
            })
        return rows

    def stats(self) -> dict[str, int]:
        raw = self.r.hgetall(self._board("stats"))
        return {(k.decode() if isinstance(k, bytes) else k): int(v) for k, v in raw.items()}


    # -- liveness ---------------------------------------------------------------------------
    def hint(self, game_id: str) -> int:
        """Write-ahead hint that ``game_id`` is about to have something due (:meth:`commit` and
        :meth:`create` write it first). Returns its score, the server time in ms."""
        return int(self._hint(keys=[self.hints_key], args=[game_id, self.ttl]))

    def server_ms(self) -> int:
        sec, usec = self.r.time()
        return int(sec) * 1000 + int(usec) // 1000

    def hints_before(self, max_ms: int, count: int = 500) -> list[tuple[str, int]]:
        """Hints with a score at most ``max_ms``, oldest first: (game id, score)."""
        raw = self.r.zrangebyscore(self.hints_key, "-inf", max_ms, start=0, num=count, withscores=True)
        return [(m.decode() if isinstance(m, bytes) else m, int(score)) for m, score in raw]

    def drop_hint(self, game_id: str, score: int) -> bool:
        """Remove the hint if its score is still ``score``."""
        return bool(self._hint_if(keys=[self.hints_key], args=[game_id, score, ""]))

    def defer_hint(self, game_id: str, score: int, new_score: int) -> bool:
        """Move the hint to ``new_score`` if its score is still ``score``."""
        return bool(self._hint_if(keys=[self.hints_key], args=[game_id, score, new_score]))

    def due(self, game_id: str) -> tuple[int | None, Due | None]:
        """The game's version (``None``: gone) and what it has due (``None``: nothing)."""
        version, due, since = self.r.hmget(self._key(game_id, "game"), ["version", "due", "due_at"])
        if version is None:
            return None, None
        if due is None or since is None:
            return int(version), None
        tag = due.decode() if isinstance(due, bytes) else str(due)
        kind, _, at = tag.partition(":")
        return int(version), Due(kind, int(at or version), int(since))

    def clear_result_due(self, game_id: str) -> bool:
        """The result is recorded: nothing is due any more (only if ``result`` still is)."""
        return bool(self._clear_due(keys=[self._key(game_id, "game")], args=["result"]))

    def try_lock(self, name: str, token: str, ms: int) -> bool:
        """A short lock in the hint index's slot (``<game>:{due}:<name>``)."""
        return bool(self.r.set(f"{self.hints_key}:{name}", token, nx=True, px=ms))

    def unlock(self, name: str, token: str) -> None:
        self._release(keys=[f"{self.hints_key}:{name}"], args=[token])
