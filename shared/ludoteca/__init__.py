"""Ludoteca shared library.

Core (pure, no I/O): :mod:`ludoteca.cards`, :mod:`ludoteca.dice`, :mod:`ludoteca.rng`,
:mod:`ludoteca.engine`, :mod:`ludoteca.errors`.
Shell: :mod:`ludoteca.store` (Redis), :mod:`ludoteca.tokens`, :mod:`ludoteca.hosting` (Flask),
:mod:`ludoteca.worker` (Celery).
"""
