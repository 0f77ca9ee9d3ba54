"""Ludoteca shared library.

Core (pure, no I/O): :mod:`ludoteca.cards`, :mod:`ludoteca.dice`, :mod:`ludoteca.rng`,
:mod:`ludoteca.engine`, :mod:`ludoteca.errors`.
Shell: :mod:`ludoteca.store` (Redis), :mod:`ludoteca.tokens`, :mod:`ludoteca.hosting` (Flask),
:mod:`ludoteca.worker` (Celery).
"""

import os as _os

# The bots' numpy work is many small products: threaded BLAS made one Ludic decision ~20x slower
# on a 2-core host (measured). Each process here is one of many (gunicorn workers, Celery
# children), so one BLAS thread each; an explicit environment setting still wins.
for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    _os.environ.setdefault(_var, "1")
