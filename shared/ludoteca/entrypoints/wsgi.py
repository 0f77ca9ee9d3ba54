"""WSGI entry points for gunicorn: ``gunicorn 'ludoteca.entrypoints.wsgi:make_app()'`` with
``LUDOTECA_GAME=<game>`` (the process hosts that one game), or the name of a service of the
platform (a ``ludoteca.services`` entry point, ``players``: its module's ``make_app()``, which
reads its own settings from the environment).

The entry point builds what the app runs on, from the environment: its settings and its
dispatcher (the Celery worker's queues on ``Settings.broker_url``); ``create_app`` is given them.
"""

from __future__ import annotations

import gc
import importlib
import os
from importlib.metadata import entry_points

from flask import Flask
from ludoteca.adapters.hosting import create_app
from ludoteca.adapters.observe import configure_logging
from ludoteca.adapters.worker import CeleryDispatcher
from ludoteca.config import Settings
from ludoteca.entrypoints.gunicorn_workers import install_body_errors
from ludoteca.service_layer import registry


def make_app(game: str | None = None) -> Flask:
    name = game or os.environ.get("LUDOTECA_GAME")
    if not name:
        raise RuntimeError("set LUDOTECA_GAME to the game this process hosts")
    services = {ep.name: ep for ep in entry_points(group="ludoteca.services")}
    if name in services and name not in registry.names():
        app: Flask = importlib.import_module(services[name].module).make_app()
    else:
        configure_logging(name)  # every line names the service and the pid; access logs at INFO
        settings = Settings.from_env()
        app = create_app(registry.game(name), settings, dispatcher=CeleryDispatcher.for_url(settings.broker_url))
    install_body_errors(app)  # gunicorn's body parser errors: 400 problem+json
    # What the process holds from now on (the modules, the schemas, the bots' tables: ~150k
    # objects) moves out of the collector's generations: a full collection no longer walks it
    # (60-90 ms each, 11-15 a thousand moves of Speculation, ~0.9 ms of CPU a move; frozen: 1/15).
    # A platform service (players) alike: its start-up heap is as long-lived as a game's
    gc.freeze()
    return app
