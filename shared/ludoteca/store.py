"""The Redis repository of live games.

Keys of one game share a hash tag so they live in one Redis Cluster slot::

    <game>:{<id>}:game      hash: version, doc (JSON: seats, options, engine state)
    <game>:{<id>}:events    stream: one entry per event, id "<seq>-1"
    <game>:{<id>}:log       list: the actions in order (for the replay)
    <game>:{<id>}:idem:<seat>:<key>   string: a stored response for an Idempotency-Key

Every write is one Lua script: a compare-and-set on ``version`` that, in the same atomic step,
writes the new document, appends the events and the log entry, stores the idempotency record and
refreshes the TTL. Concurrent writers never lose or duplicate anything: exactly one wins a
version. Cross-game indexes (the lobby, the leaderboard) have keys of their own.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import redis

_COMMIT = """
local cur = redis.call('HGET', KEYS[1], 'version')
if not cur then return {'missing'} end
if ARGV[4] == '1' then
  local existing = redis.call('GET', KEYS[4])
  if existing then return {'idem', existing} end
end
if cur ~= ARGV[1] then return {'stale', cur} end
local new = tostring(tonumber(cur) + 1)
redis.call('HSET', KEYS[1], 'version', new, 'doc', ARGV[2])
local seq = tonumber(ARGV[8])
for i = 9, #ARGV do
  redis.call('XADD', KEYS[2], tostring(seq) .. '-1', 'e', ARGV[i])
  seq = seq + 1
end
if ARGV[7] ~= '' then redis.call('RPUSH', KEYS[3], ARGV[7]) end
if ARGV[4] == '1' then redis.call('SET', KEYS[4], ARGV[5], 'EX', tonumber(ARGV[6])) end
local ttl = tonumber(ARGV[3])
redis.call('EXPIRE', KEYS[1], ttl)
redis.call('EXPIRE', KEYS[2], ttl)
redis.call('EXPIRE', KEYS[3], ttl)
return {'ok', new}
"""

_CREATE = """
if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
redis.call('HSET', KEYS[1], 'version', '1', 'doc', ARGV[1])
local seq = 1
for i = 3, #ARGV do
  redis.call('XADD', KEYS[2], tostring(seq) .. '-1', 'e', ARGV[i])
  seq = seq + 1
end
redis.call('EXPIRE', KEYS[1], tonumber(ARGV[2]))
if #ARGV >= 3 then redis.call('EXPIRE', KEYS[2], tonumber(ARGV[2])) end
return 1
"""

_RECORD_RESULT = """
if redis.call('SADD', KEYS[1], ARGV[1]) == 0 then return 0 end
redis.call('HINCRBY', KEYS[4], 'games', 1)
local n = (#ARGV - 2) / 3
for i = 0, n - 1 do
  local name = ARGV[3 + 3 * i]
  local won = tonumber(ARGV[4 + 3 * i])
  local score = ARGV[5 + 3 * i]
  redis.call('ZINCRBY', KEYS[2], won, name)
  redis.call('HINCRBY', KEYS[3], name .. ':played', 1)
  redis.call('HINCRBYFLOAT', KEYS[3], name .. ':points', score)
  if won > 0 then redis.call('HINCRBY', KEYS[4], 'seat_wins:' .. tostring(i), 1) end
end
if ARGV[2] == '1' then redis.call('HINCRBY', KEYS[4], 'shared_wins', 1) end
return 1
"""


class GameMissing(LookupError):
    """No live game with that id (never existed, or expired)."""


@dataclass(frozen=True)
class Stored:
    version: int
    doc: dict[str, Any]


@dataclass(frozen=True)
class CommitResult:
    """``status`` is ``ok`` (``version`` is the new one), ``stale`` (``version`` is the current
    one), or ``idempotent`` (``replay`` holds the record stored earlier for that key)."""

    status: str
    version: int = 0
    replay: dict[str, Any] | None = None


def _dumps(obj: Any) -> str:
    return json.dumps(obj, separators=(",", ":"), sort_keys=True)


class GameStore:
    """Repository of one game type's live sessions."""

    def __init__(self, client: redis.Redis, game: str, ttl_seconds: int, idempotency_ttl: int) -> None:
        self.r: Any = client  # redis-py's return types are too loose to be useful here
        self.game = game
        self.ttl = ttl_seconds
        self.idem_ttl = idempotency_ttl
        self._commit = client.register_script(_COMMIT)
        self._create = client.register_script(_CREATE)
        self._record = client.register_script(_RECORD_RESULT)

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

    # -- games ------------------------------------------------------------------------------
    def create(self, game_id: str, doc: dict[str, Any], events: Sequence[dict[str, Any]]) -> bool:
        args: list[Any] = [_dumps(doc), self.ttl, *(_dumps(e) for e in events)]
        created = self._create(keys=[self._key(game_id, "game"), self._key(game_id, "events")], args=args)
        return bool(created)

    def load(self, game_id: str) -> Stored:
        raw = self.r.hmget(self._key(game_id, "game"), ["version", "doc"])
        if raw[0] is None or raw[1] is None:
            raise GameMissing(game_id)
        return Stored(int(raw[0]), json.loads(raw[1]))

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
    ) -> CommitResult:
        """Compare-and-set on ``expected_version``; see the module docstring."""
        idem_key = self._key(game_id, "game")
        idem_flag, idem_value = "0", ""
        if idempotency is not None:
            seat, key, record = idempotency
            idem_key = self.idem_key(game_id, seat, key)
            idem_flag, idem_value = "1", _dumps(record)
        keys = [self._key(game_id, "game"), self._key(game_id, "events"), self._key(game_id, "log"), idem_key]
        args: list[Any] = [
            str(expected_version), _dumps(doc), self.ttl, idem_flag, idem_value, self.idem_ttl,
            _dumps(log_entry) if log_entry is not None else "", first_seq,
            *(_dumps(e) for e in events),
        ]
        out = self._commit(keys=keys, args=args)
        status = out[0].decode() if isinstance(out[0], bytes) else out[0]
        if status == "missing":
            raise GameMissing(game_id)
        if status == "idem":
            return CommitResult("idempotent", replay=json.loads(out[1]))
        if status == "stale":
            return CommitResult("stale", version=int(out[1]))
        return CommitResult("ok", version=int(out[1]))

    def idempotency_record(self, game_id: str, seat: int, key: str) -> dict[str, Any] | None:
        raw = self.r.get(self.idem_key(game_id, seat, key))
        return None if raw is None else json.loads(raw)

    def action_log(self, game_id: str) -> list[dict[str, Any]]:
        return [json.loads(x) for x in self.r.lrange(self._key(game_id, "log"), 0, -1)]

    def events_after(self, game_id: str, after: int, block_ms: int | None = None,
                     count: int = 500) -> list[tuple[int, dict[str, Any]]]:
        """Events with sequence number greater than ``after``; with ``block_ms`` waits for the
        first one (Redis ``XREAD BLOCK``), but never longer than half the client's socket
        timeout: an empty answer may come before ``block_ms`` and the caller blocks again
        (``GameService.events`` loops to its deadline). So a long-poll runs on the same
        fail-fast client as every other call: a hung Redis is noticed within the timeout, not
        after the whole wait, and no second pool with a long timeout is needed."""
        key = self._key(game_id, "events")
        if block_ms is not None and block_ms > 0:
            timeout = self.r.connection_pool.connection_kwargs.get("socket_timeout")
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
                out.append((int(sid.split("-")[0]), json.loads(payload)))
        return out

    # -- lobby ------------------------------------------------------------------------------
    def lobby_add(self, game_id: str, created: float) -> None:
        self.r.zadd(self.lobby_key, {game_id: created})

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
        args: list[Any] = [game_id, "1" if shared else "0"]
        for name, won, score in entries:
            args.extend([name, 1 if won else 0, repr(float(score))])
        keys = [self._board("scored"), self._board("wins"), self._board("players"), self._board("stats")]
        return bool(self._record(keys=keys, args=args))

    def is_recorded(self, game_id: str) -> bool:
        return bool(self.r.sismember(self._board("scored"), game_id))

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

