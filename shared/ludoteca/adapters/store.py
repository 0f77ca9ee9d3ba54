"""The Redis repository of live games.

Keys of one game share a hash tag so they live in one Redis Cluster slot::

    <game>:{<id>}:game      hash: version, doc (JSON: seats, options, engine state), and what is
                            due: due ("bot:<version>", "turn:<version>" or "result"), due_at
                            (server ms; a timed turn's: its deadline, :mod:`ludoteca.service_layer.timers`)
    <game>:{<id>}:events    stream: one entry per event, id "<seq>-1" (the global order: the replay's)
    <game>:{<id>}:events:spectators, <game>:{<id>}:events:<seat>
                            streams: one per viewer, the events it may see as it is told them,
                            id "<its number>-1" (:mod:`ludoteca.service_layer.numbering`)
    <game>:{<id>}:log       list: the actions in order (for the replay)
    <game>:{<id>}:idem:<seat>:<key>   string: a stored response for an Idempotency-Key
    <game>:{<id>}:outbox    stream: the notices a commit wrote for the players bound to the seats
                            (issue 23, item 4), id "<version>-<i>", until relayed to the players'
                            streams (:class:`ludoteca.adapters.players.PlayerEvents`)

Every write is one Lua script: a compare-and-set on ``version`` that, in the same atomic step,
writes the new document, appends the events (to the global stream and to each viewer's, numbered
from the viewers' counts the document keeps) and the log entry, stores the idempotency record,
records what the new version makes due (a bot turn, or recording the result) and refreshes the
TTL. Concurrent writers never lose or duplicate anything: exactly one wins a version.

Durable before acknowledged: a write that succeeded (a commit, a creation, an idempotent replay)
is confirmed by a ``PING`` to the same Redis before the service answers 2xx (:meth:`GameStore.confirm`).
Redis writes the append-only file (``write``, not yet ``fsync``) before it sends any reply of that
event-loop turn, and when that write fails (a full disk) it still replies ``OK`` but refuses
``PING`` and every write after it with ``MISCONF``: the confirmation turns that ``OK`` into a 503
(the move may or may not survive: retried with its Idempotency-Key it is applied once), so no
2xx is ever given for a change that is only in Redis's memory (``tests/integration/test_durability.py``).

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
- ``<game>:{outbox}``: the games whose commits wrote notices (hinted before the commit, as
  ``<game>:{due}``), with the same TTL; the sweeper relays each outbox after the grace and
  removes its hint. An outbox is emptied by its relay and expires with its game.
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
import threading
from collections import OrderedDict
from collections.abc import Sequence
from typing import Any

import redis
from ludoteca.core import jsontext
from ludoteca.core.errors import StoreUnavailableError
from ludoteca.service_layer.numbering import numbered, viewer_name
from ludoteca.service_layer.repository import (
    CommitResult,
    Due,
    DueKind,
    DueWork,
    GameMissing,
    Quota,
    Stored,
    UnitOfWork,
    retry_seconds,
)
from redis.cluster import RedisCluster
from redis.exceptions import RedisClusterException, SlotNotCoveredError

__all__ = ["CommitResult", "Due", "GameMissing", "GameStore", "Quota", "Stored", "UnitOfWork", "store_unavailable"]

# Appends the events: ARGV[at] = E, the count; then E records for the global stream (KEYS[2],
# ids first..first+E-1); then, unless ARGV[at + 1] is '0', for each event its told form, the
# number k of viewers that may see it and k pairs (viewer index, its number there): the entry goes
# to that viewer's stream, KEYS[VIEWERS + index].
_APPEND = """
local function append(argv, at, first)
  local e = tonumber(argv[at])
  for i = 1, e do
    redis.call('XADD', KEYS[2], tostring(first + i - 1) .. '-1', 'e', argv[at + 1 + i])
  end
  if argv[at + 1] == '0' then return end
  local pos = at + 2 + e
  for _ = 1, e do
    local told = argv[pos]
    local k = tonumber(argv[pos + 1])
    for j = 1, k do
      local v = tonumber(argv[pos + 2 * j])
      redis.call('XADD', KEYS[VIEWERS + v], argv[pos + 2 * j + 1] .. '-1', 'e', told)
    end
    pos = pos + 2 + 2 * k
  end
end
"""

# Appends the commit's notices (ARGV[at]: a JSON array of [player id, notice JSON], or '') to
# the game's outbox, the last key, with ids "<version>-<i>" (i from 1).
_OUTBOX = """
local function outbox(raw, version)
  if raw == '' then return end
  for i, entry in ipairs(cjson.decode(raw)) do
    redis.call('XADD', KEYS[#KEYS], version .. '-' .. i, 'p', entry[1], 'n', entry[2])
  end
end
"""

_COMMIT = _APPEND.replace("VIEWERS", "6") + _OUTBOX + """
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
append(ARGV, 14, tonumber(ARGV[8]))
outbox(ARGV[13], new)
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
for i = 6, #KEYS do redis.call('EXPIRE', KEYS[i], ttl) end
return {'ok', new}
"""

_CREATE = _APPEND.replace("VIEWERS", "3") + _OUTBOX + """
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
append(ARGV, 6, 1)
outbox(ARGV[5], '1')
redis.call('EXPIRE', KEYS[1], tonumber(ARGV[2]))
for i = 2, #KEYS do redis.call('EXPIRE', KEYS[i], tonumber(ARGV[2])) end
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


class DecodedDocs:
    """The documents of the games this process last read or wrote, each with the bytes it is
    stored as: a read that finds the same bytes is given the same document, not decoded again.

    Decoding is most of a read's cost for a large game (orjson: ~250 us for a late Ludic game's
    34 KB, ~230 us for Speculation's 21 KB); comparing the bytes costs a few us. After a move this
    process committed, the next read of that version (the next seat's listing) is then free, and
    ``GameService.state_of`` finds the state it remembers by the same document.

    The documents are shared, as ``RecentGames`` shares its own: nothing changes a stored
    document in place (a new version is a new document). A committed document is kept as the
    service built it, which is what decoding its bytes gives: plain JSON values (the engines'
    ``dump`` is checked so by ``tests/contract``, the record's by ``tests/shared/test_store.py``).
    At most ``size`` games, least recently used first out."""

    def __init__(self, size: int = 256) -> None:
        self.size = size
        self._docs: OrderedDict[str, tuple[bytes, dict[str, Any]]] = OrderedDict()
        self._lock = threading.Lock()

    def decode(self, game_id: str, raw: bytes) -> dict[str, Any]:
        """The document stored as ``raw``: the one kept for the game if its bytes are the same."""
        with self._lock:
            kept = self._docs.get(game_id)
            if kept is not None and kept[0] == raw:
                self._docs.move_to_end(game_id)
                return kept[1]
        doc: dict[str, Any] = _loads(raw)
        self.keep(game_id, raw, doc)
        return doc

    def keep(self, game_id: str, raw: bytes, doc: dict[str, Any]) -> None:
        with self._lock:
            self._docs[game_id] = (raw, doc)
            self._docs.move_to_end(game_id)
            while len(self._docs) > self.size:
                self._docs.popitem(last=False)


def _appended(args: list[Any], work: UnitOfWork) -> list[Any]:
    """``args`` with the unit's events as the scripts' ``append`` reads them (see ``_APPEND``)."""
    events, shown = work.events, work.shown
    args += [len(events), "1" if shown else "0", *(_dumps(e.to_doc()) for e in events)]
    for s in shown:
        args += [_dumps(s.event), len(s.numbers), *(x for pair in s.numbers for x in pair)]
    return args


def _notices_arg(work: UnitOfWork) -> str:
    """The unit's notices as the scripts' ``outbox`` reads them (``""``: none)."""
    if not work.notices:
        return ""
    return _dumps([[n.player_id, _dumps(n.body).decode()] for n in work.notices]).decode()


def outbox_key(game: str, game_id: str) -> str:
    """The game's outbox (a stream in the game's slot): the notices its commits wrote for the
    players bound to its seats, until they are relayed (:class:`ludoteca.adapters.players.PlayerEvents`)."""
    return f"{game}:{{{game_id}}}:outbox"


def outbox_order(entry_id: bytes | str) -> int:
    """An outbox entry's place in the game's order (``<version>-<i>``: version * 1024 + i)."""
    text = entry_id.decode() if isinstance(entry_id, bytes) else entry_id
    version, _, i = text.partition("-")
    return int(version) * 1024 + int(i)


def read_stream(client: Any, blocking: Any, key: str, after: int, block_ms: int | None,
                count: int) -> list[tuple[int, bytes]]:
    """The entries of stream ``key`` (ids ``<n>-1``) over ``after``: (n, payload), waiting up
    to ``block_ms`` for the first (see :meth:`GameStore.events_after`; ``blocking``: the client
    for long blocks, or None)."""
    if block_ms is not None and block_ms > 0:
        if blocking is not None and block_ms >= LONG_BLOCK_MS:
            res = blocking.xread({key: f"{after}-1"}, count=count, block=LONG_BLOCK_MS)
        else:
            timeout = client.get_connection_kwargs().get("socket_timeout")  # a cluster client has no one pool
            if timeout:
                block_ms = max(1, min(block_ms, int(timeout * 500)))
            res = client.xread({key: f"{after}-1"}, count=count, block=block_ms)
    else:
        res = client.xread({key: f"{after}-1"}, count=count)
    out: list[tuple[int, bytes]] = []
    for _stream, entries in res or []:
        for entry_id, fields in entries:
            sid = entry_id.decode() if isinstance(entry_id, bytes) else entry_id
            out.append((int(sid.split("-")[0]), fields.get(b"e", fields.get("e"))))
    return out


def _due_args(due: DueWork) -> list[Any]:
    """What the scripts read of what is due: its kind's tag and when (``""``: now)."""
    return [due.kind.value, "" if due.at_ms is None else due.at_ms]


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
        self.decoded = DecodedDocs()

    # -- keys -------------------------------------------------------------------------------
    def _key(self, game_id: str, what: str) -> str:
        return f"{self.game}:{{{game_id}}}:{what}"

    def viewer_key(self, game_id: str, index: int) -> str:
        """The stream of viewer ``index`` (:mod:`ludoteca.service_layer.numbering`)."""
        return self._key(game_id, f"events:{viewer_name(index)}")

    def viewer_keys(self, game_id: str, viewers: int) -> list[str]:
        return [self.viewer_key(game_id, i) for i in range(viewers)]

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

    @property
    def outbox_hints_key(self) -> str:
        """The games whose commits wrote notices, maybe not relayed yet (hinted before the commit)."""
        return f"{self.game}:{{outbox}}"

    # -- games ------------------------------------------------------------------------------
    def create(self, work: UnitOfWork) -> bool:
        """A new game at version 1 (``work``'s ``expected_version``, log entry, idempotency
        record and quota are not used); as :meth:`commit` otherwise."""
        game_id = work.game_id
        if work.due:
            self.hint(game_id)
        if work.notices:
            self.hint(game_id, self.outbox_hints_key)
        args: list[Any] = [_dumps(work.doc), self.ttl, *_due_args(work.due), _notices_arg(work)]
        keys = [self._key(game_id, "game"), self._key(game_id, "events"), *self.viewer_keys(game_id, work.viewers)]
        if work.notices:
            keys.append(outbox_key(self.game, game_id))
        created = self._create(keys=keys, args=_appended(args, work))
        if created:
            self.confirm(game_id)
        return bool(created)

    def confirm(self, game_id: str) -> None:
        """Raise (``MISCONF``, mapped to 503 by :func:`store_unavailable`) unless the write just
        made for ``game_id`` reached the append-only file: a ``PING`` to the Redis holding the
        game, which Redis refuses while its last write to the file failed (see the module
        docstring). One round trip a write."""
        client: Any = self.r
        if isinstance(client, RedisCluster):
            client.ping(target_nodes=client.get_node_from_key(self._key(game_id, "game")))  # type: ignore[no-untyped-call]
        else:
            self.r.ping()

    def load(self, game_id: str) -> Stored:
        raw = self.r.hmget(self._key(game_id, "game"), ["version", "doc"])
        if raw[0] is None or raw[1] is None:
            raise GameMissing(game_id)
        return Stored(int(raw[0]), self.decoded.decode(game_id, raw[1]))

    def version(self, game_id: str) -> int | None:
        raw = self.r.hget(self._key(game_id, "game"), "version")
        return None if raw is None else int(raw)

    def commit(self, work: UnitOfWork) -> CommitResult:
        """Compare-and-set on ``work.expected_version``; see the module docstring and
        :class:`~ludoteca.service_layer.repository.UnitOfWork`. What the new version makes due
        (``work.due``) is stored as ``bot:<version>``, ``turn:<version>`` (due at its deadline,
        ``at_ms``) or ``result``, at the server's time unless ``at_ms`` says; when something is
        due, the write-ahead :meth:`hint` goes first, so a crash right after the commit still
        leaves the sweeper its hint. A quota not yet spent: the script spends one unit first and
        commits nothing when it is over (``limited``); its key must be in the game's slot (it
        carries the game's hash tag). The shown events are appended to the streams of the
        viewers that may see them, and every viewer's stream's TTL is refreshed."""
        game_id, quota, idempotency = work.game_id, work.quota, work.idempotency
        if work.due:
            self.hint(game_id)
        if work.notices:  # write-ahead, as the due hint: the sweeper relays what a crash leaves
            self.hint(game_id, self.outbox_hints_key)
        game_key = self._key(game_id, "game")
        idem_key = quota_key = game_key
        idem_flag, idem_value = "0", b""
        if idempotency is not None:
            idem_key = self.idem_key(game_id, idempotency.seat, idempotency.key)
            idem_flag, idem_value = "1", _dumps(idempotency.record)
        limit, window = 0, 0
        if quota is not None and not quota.spent:
            quota_key, limit, window = quota.key, quota.limit, quota.window
        keys = [game_key, self._key(game_id, "events"), self._key(game_id, "log"), idem_key, quota_key,
                *self.viewer_keys(game_id, work.viewers)]
        if work.notices:
            keys.append(outbox_key(self.game, game_id))
        due_tag, due_at = _due_args(work.due)
        doc_bytes = _dumps(work.doc)
        args: list[Any] = [
            str(work.expected_version), doc_bytes, self.ttl, idem_flag, idem_value, self.idem_ttl,
            _dumps(work.log_entry) if work.log_entry is not None else "", work.first_seq, due_tag, limit, window,
            due_at, _notices_arg(work),
        ]
        out = self._commit(keys=keys, args=_appended(args, work))
        if limit:
            quota.spent = True  # type: ignore[union-attr]  # limit is set only with a quota
        status = out[0].decode() if isinstance(out[0], bytes) else out[0]
        if status == "missing":
            raise GameMissing(game_id)
        if status == "limited":
            return CommitResult("limited", retry_after=retry_seconds(int(out[1])))
        if status == "idem":
            self.confirm(game_id)  # the stored answer may be of a write that never reached the file
            return CommitResult("idempotent", replay=_loads(out[1]))
        if status == "stale":  # the current document comes with it: a retry needs no read
            return CommitResult("stale", version=int(out[1]),
                                current=Stored(int(out[1]), self.decoded.decode(game_id, out[2])))
        self.confirm(game_id)
        self.decoded.keep(game_id, doc_bytes, work.doc)  # stored as these bytes: the next read decodes nothing
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
        record = None
        if raw is not None:
            self.confirm(idempotency[0])  # type: ignore[index]  # a record is read only with its key
            record = _loads(raw)
        return retry, record

    def idempotency_record(self, game_id: str, seat: int, key: str) -> dict[str, Any] | None:
        raw = self.r.get(self.idem_key(game_id, seat, key))
        if raw is None:
            return None
        self.confirm(game_id)  # a stored answer is given again only once it is on disk
        record: dict[str, Any] = _loads(raw)
        return record

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
        out: list[tuple[int, dict[str, Any]]] = []
        for seq, payload in self._read(self._key(game_id, "events"), after, block_ms, count):
            out.append((seq, _loads(payload)))
        return out

    def viewer_events(self, game_id: str, viewer: int, after: int, block_ms: int | None = None,
                      count: int = 500) -> list[dict[str, Any]]:
        """The events viewer ``viewer`` may see numbered over ``after`` (its numbers), each with
        its number as ``seq``; waits as :meth:`events_after` does."""
        return [numbered(n, _loads(payload))
                for n, payload in self._read(self.viewer_key(game_id, viewer), after, block_ms, count)]

    def _read(self, key: str, after: int, block_ms: int | None, count: int) -> list[tuple[int, bytes]]:
        """The entries of stream ``key`` over ``after``: (number, payload); see :meth:`events_after`."""
        return read_stream(self.r, self.blocking, key, after, block_ms, count)

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
    def hint(self, game_id: str, index: str | None = None) -> int:
        """Write-ahead hint that ``game_id`` is about to have something due (:meth:`commit` and
        :meth:`create` write it first), or in ``index`` (:attr:`outbox_hints_key`: notices to
        relay). Returns its score, the server time in ms."""
        return int(self._hint(keys=[index or self.hints_key], args=[game_id, self.ttl]))

    def server_ms(self) -> int:
        sec, usec = self.r.time()
        return int(sec) * 1000 + int(usec) // 1000

    def hints_before(self, max_ms: int, count: int = 500, index: str | None = None) -> list[tuple[str, int]]:
        """Hints with a score at most ``max_ms``, oldest first: (game id, score)."""
        raw = self.r.zrangebyscore(index or self.hints_key, "-inf", max_ms, start=0, num=count, withscores=True)
        return [(m.decode() if isinstance(m, bytes) else m, int(score)) for m, score in raw]

    def drop_hint(self, game_id: str, score: int, index: str | None = None) -> bool:
        """Remove the hint if its score is still ``score``."""
        return bool(self._hint_if(keys=[index or self.hints_key], args=[game_id, score, ""]))

    def defer_hint(self, game_id: str, score: int, new_score: int, index: str | None = None) -> bool:
        """Move the hint to ``new_score`` if its score is still ``score``."""
        return bool(self._hint_if(keys=[index or self.hints_key], args=[game_id, score, new_score]))

    def due(self, game_id: str) -> tuple[int | None, Due | None]:
        """The game's version (``None``: gone) and what it has due (``None``: nothing)."""
        version, due, since = self.r.hmget(self._key(game_id, "game"), ["version", "due", "due_at"])
        if version is None:
            return None, None
        if due is None or since is None:
            return int(version), None
        tag = due.decode() if isinstance(due, bytes) else str(due)
        return int(version), Due.from_tag(tag, int(version), int(since))

    def clear_result_due(self, game_id: str) -> bool:
        """The result is recorded: nothing is due any more (only if ``result`` still is)."""
        return bool(self._clear_due(keys=[self._key(game_id, "game")], args=[DueKind.RESULT.value]))

    def try_lock(self, name: str, token: str, ms: int) -> bool:
        """A short lock in the hint index's slot (``<game>:{due}:<name>``)."""
        return bool(self.r.set(f"{self.hints_key}:{name}", token, nx=True, px=ms))

    def unlock(self, name: str, token: str) -> None:
        self._release(keys=[f"{self.hints_key}:{name}"], args=[token])
