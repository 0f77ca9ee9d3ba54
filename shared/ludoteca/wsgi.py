"""WSGI entry points for gunicorn: ``gunicorn 'ludoteca.wsgi:make_app()'`` with
``LUDOTECA_GAME=<game>`` (the process hosts that one game)."""

from __future__ import annotations

import os

from flask import Flask
from ludoteca import registry
from ludoteca.hosting import create_app


def make_app(game: str | None = None) -> Flask:
    name = game or os.environ.get("LUDOTECA_GAME")
    if not name:
        raise RuntimeError("set LUDOTECA_GAME to the game this process hosts")
    return create_app(registry.game(name))
