"""Ludoteca shared library, one folder per layer (innermost first; a layer imports only itself and
the layers inside it, which ``tests/architecture/test_imports.py`` checks):

- :mod:`ludoteca.core`: pure, no I/O: cards, dice, the provably fair rng, the engine contract,
  the codec, the errors, seat tokens, JSON text;
- :mod:`ludoteca.service_layer`: the use cases (:mod:`~ludoteca.service_layer.service`), the game
  record, the presenter, the repository interface (and its in-memory implementation), the
  registry of installed games;
- :mod:`ludoteca.adapters`: the Redis store (and Redis Cluster), Redis connections, the Celery
  worker and the sweeper, the HTTP hosting (Flask + flask-smorest), metrics and logs;
- :mod:`ludoteca.entrypoints`: the processes and tools: ``wsgi`` (gunicorn), gunicorn's worker
  classes, the devstack (``make run``), the writers of the front door's configuration and of the
  Kubernetes manifests, the OpenAPI exporter.

:mod:`ludoteca.config` (the settings) sits beside them, read by every layer but the core.
"""

import os as _os

# The bots' numpy work is many small products: threaded BLAS made one Ludic decision ~20x slower
# on a 2-core host (measured). Each process here is one of many (gunicorn workers, Celery
# children), so one BLAS thread each; an explicit environment setting still wins.
for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    _os.environ.setdefault(_var, "1")
