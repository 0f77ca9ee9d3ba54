"""Which games a load test plays: the registered games whose definition loads here
(:func:`loadable`), those a stack serves (:func:`served_mix`), and a weighted mix of them
(:func:`weights`, ``ludix=3,ludic=1``)."""

from __future__ import annotations

import logging
import urllib.request

from ludoteca.service_layer import registry


def weights(raw: str, known: list[str], default: dict[str, int], what: str) -> dict[str, int]:
    """``name=weight,...`` (a bare name: weight 1) over ``known``; empty: ``default``."""
    if not raw.strip():
        return dict(default)
    out: dict[str, int] = {}
    for item in raw.replace(" ", ",").split(","):
        if not item:
            continue
        name, _, weight = item.partition("=")
        if name not in known:
            raise SystemExit(f"{what}: unknown {name!r}; known: {', '.join(known)}")
        out[name] = int(weight or 1)
    return {k: v for k, v in out.items() if v > 0}


def loadable() -> list[str]:
    """The registered games whose definition loads here (one being installed may not yet)."""
    names = []
    for name in registry.names():
        try:
            registry.game(name)
        except Exception as err:  # an entry point whose package is not importable (yet)
            logging.getLogger("loadtest").warning("game %s left out: its definition does not load (%s)", name, err)
            continue
        names.append(name)
    return names


def served_mix(host: str) -> tuple[str, list[str]]:
    """Every loadable game the stack at ``host`` serves (``/<game>/healthz`` answers 200), weight
    1 each, as ``LOAD_MIX``; and the registered games left out."""
    served: list[str] = []
    missing: list[str] = []
    games = loadable()
    for game in registry.names():
        ok = False
        if game in games:
            try:
                with urllib.request.urlopen(f"{host.rstrip('/')}/{game}/healthz", timeout=5) as r:
                    ok = r.status == 200
            except OSError:
                ok = False
        (served if ok else missing).append(game)
    return ",".join(f"{g}=1" for g in served), missing
