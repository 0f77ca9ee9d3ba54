"""Provably fair, replayable randomness.

A game's randomness comes from one secret seed (32 random bytes, hex). Draw number ``n`` is
``HMAC-SHA256(seed, n)``; integers are taken from it by rejection sampling, so every draw is
uniform and the whole sequence is a pure function of the seed. The public view of a game carries
:func:`commitment` (``sha256`` of the seed bytes) from the start; the replay reveals the seed, and
anyone can redeal: ``Rng(seed)`` followed by the same calls gives the same values.

The generator's whole state is ``(seed, counter)``: it lives inside the game state, is dumped with
it and never reaches a client view.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
from collections.abc import MutableSequence, Sequence
from typing import Any, TypeVar

T = TypeVar("T")


def new_seed() -> str:
    """A fresh secret seed (shell only: the core never calls this)."""
    return secrets.token_hex(32)


def commitment(seed: str) -> str:
    """The public commitment to a seed: hex SHA-256 of its 32 bytes."""
    return hashlib.sha256(bytes.fromhex(seed)).hexdigest()


class Rng:
    """Deterministic generator over ``HMAC-SHA256(seed, counter)``."""

    __slots__ = ("_key", "counter", "seed")

    def __init__(self, seed: str, counter: int = 0) -> None:
        key = bytes.fromhex(seed)
        if len(key) < 16:
            raise ValueError("seed must be at least 16 bytes of hex")
        self.seed = seed
        self.counter = counter
        self._key = key

    def _block(self) -> int:
        mac = hmac.digest(self._key, self.counter.to_bytes(8, "big"), "sha256")  # HMAC-SHA256, one call
        self.counter += 1
        return int.from_bytes(mac, "big")

    def randbelow(self, n: int) -> int:
        """Uniform integer in ``[0, n)``."""
        if n <= 0:
            raise ValueError("n must be positive")
        limit = (1 << 256) - ((1 << 256) % n)
        while True:
            x = self._block()
            if x < limit:
                return x % n

    def randint(self, lo: int, hi: int) -> int:
        """Uniform integer in ``[lo, hi]``."""
        return lo + self.randbelow(hi - lo + 1)

    def choice(self, items: Sequence[T]) -> T:
        return items[self.randbelow(len(items))]

    def shuffle(self, items: MutableSequence[Any]) -> None:
        """Fisher-Yates in place."""
        for i in range(len(items) - 1, 0, -1):
            j = self.randbelow(i + 1)
            items[i], items[j] = items[j], items[i]

    def shuffled(self, items: Sequence[T]) -> list[T]:
        out = list(items)
        self.shuffle(out)
        return out

    def random(self) -> float:
        """Uniform float in ``[0, 1)`` with 53 bits."""
        return (self._block() >> 203) / float(1 << 53)

    # -- codec -----------------------------------------------------------------------------
    def dump(self) -> dict[str, Any]:
        return {"seed": self.seed, "counter": self.counter}

    @classmethod
    def load(cls, data: dict[str, Any]) -> Rng:
        return cls(str(data["seed"]), int(data["counter"]))

    def __deepcopy__(self, memo: dict[int, Any]) -> Rng:
        return Rng(self.seed, self.counter)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Rng) and (self.seed, self.counter) == (other.seed, other.counter)

    def __repr__(self) -> str:  # never print the seed
        return f"Rng(commitment={commitment(self.seed)[:12]}..., counter={self.counter})"
