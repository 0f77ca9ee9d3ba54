"""Load shapes (locust's ``LoadTestShape``), chosen by name: ``--shape`` or ``LOAD_SHAPE``.

Each is a function of the elapsed time ``t``, the run's length ``length`` (``--run-time``),
the users ``users`` (``--users``) and the spawn rate ``rate`` (``--spawn-rate``) to (users now,
spawn rate), or None when the run is over:

* ``steady``: ``users`` as fast as ``rate`` allows, held to the end;
* ``ramp``: from 0 to ``users`` linearly over the first 80 % of the run, then held;
* ``spike``: a fifth of ``users`` for the first third, all of them (spawned at once) for the
  second, a fifth again for the last: what a tournament's start does, and whether the stack
  comes back;
* ``soak``: ``users`` for a long time (default 30 min, ``--run-time`` sets it): leaks, queues
  and keys that only grow show up here.
"""

from __future__ import annotations

from collections.abc import Callable

Shape = Callable[[float, float, int, float], tuple[int, float] | None]

SOAK_LENGTH = 1800.0
DEFAULT_LENGTH = 60.0


def steady(t: float, length: float, users: int, rate: float) -> tuple[int, float] | None:
    return None if t >= length else (users, rate)


def ramp(t: float, length: float, users: int, rate: float) -> tuple[int, float] | None:
    if t >= length:
        return None
    climb = 0.8 * length
    now = users if t >= climb else max(1, round(users * t / climb))
    return now, max(rate, users / climb)


def spike(t: float, length: float, users: int, rate: float) -> tuple[int, float] | None:
    if t >= length:
        return None
    base = max(1, users // 5)
    if length / 3 <= t < 2 * length / 3:
        return users, max(rate, float(users))  # all of them within about a second
    return base, max(rate, float(users))


def soak(t: float, length: float, users: int, rate: float) -> tuple[int, float] | None:
    return steady(t, length, users, rate)


SHAPES: dict[str, Shape] = {"steady": steady, "ramp": ramp, "spike": spike, "soak": soak}


def default_length(shape: str) -> float:
    return SOAK_LENGTH if shape == "soak" else DEFAULT_LENGTH
