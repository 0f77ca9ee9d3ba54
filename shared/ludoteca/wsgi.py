"""WSGI entry points for gunicorn: ``gunicorn 'ludoteca.wsgi:make_app()'`` with
``LUDOTECA_GAME=<game>`` (the process hosts that one game)."""

from __future__ import annotations

import os

from flask import Flask
from ludoteca import registry
from ludoteca.gunicorn_workers import install_body_errors
from ludoteca.hosting import create_app


def make_app(game: str | None = None) -> Flask:
    name = game or os.environ.get("LUDOTECA_GAME")
    if not name:
        raise RuntimeError("set LUDOTECA_GAME to the game this process hosts")
    app = create_app(registry.game(name))
    install_body_errors(app)  # gunicorn's body parser errors: 400 problem+json
    return app
