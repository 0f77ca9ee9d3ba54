# syntax=docker/dockerfile:1
# The one image of Ludoteca: every game service (gunicorn), the Celery worker and the sweeper run
# from it with their own command (docker-compose.yml, deploy/k8s; the same lines as deploy/Procfile).
#
#   docker build -t ludoteca:0.1.0 .
#
# Stage "builder" installs the pinned requirements.txt into /opt/venv once and builds, at build
# time, what the bots would otherwise build on first use: Ludix's solved game and Ludic's
# hypothesis space (files under LUDOTECA_CACHE=/opt/ludoteca/cache) and Ludor's compiled rollouts
# (numba's on-disk cache, /opt/ludoteca/numba). Speculation's joker book ships in its package.
# The runtime stage copies the venv, the source tree and those caches, and nothing else (no
# compiler, no pip cache), and runs as the unprivileged user ludoteca (uid/gid 10001).
#
# Read-only root filesystem: nothing under / is written at run time except
#   /tmp   tmpfs / emptyDir (Python and gunicorn's worker heartbeat files, Celery's scratch, and
#          numba's cache: NUMBA_CACHE_DIR=/tmp/numba, seeded from /opt/ludoteca/numba by
#          deploy/entrypoint.sh, because numba opens its cache directory for writing even to load)
# LUDOTECA_CACHE is only read (the tables are built; a missing one would cost a rebuild per
# process, never an error). HOME is /tmp.
#
# Open files: the image sets no limit (a Dockerfile cannot); each process raises its soft
# RLIMIT_NOFILE to the hard one at start and logs it (ludoteca.adapters.fdlimit), so the hard limit
# the runtime gives the container is what counts: a game service needs about 6,300 (two workers
# of 1,000 connections, 3 descriptors each, 128 more a worker) and sheds past what it has (503).
# docker-compose.yml sets 65,536 (ulimits); on Kubernetes the runtime's default applies
# (ludoteca.entrypoints.manifests says what to check); `docker run --ulimit nofile=65536:65536`.
#
# Probes: the image serves several roles, so it declares no HEALTHCHECK (it would mark a worker
# unhealthy); each role's probe is in docker-compose.yml and deploy/k8s: a game service answers
# GET /healthz (alive) and GET /readyz (Redis answers) on its port, `python deploy/probe.py URL`
# checks one without curl; a worker answers `celery -A ludoteca.adapters.worker inspect ping`; the
# sweeper's probe is `python deploy/probe.py --redis` (see docs/operations.md).

# Pinned by version (python 3.11, as the project's venv; Debian 12). Pin the digest as well
# (python:3.11.14-slim-bookworm@sha256:...) where the registry is reachable to look it up.
ARG PYTHON_IMAGE=python:3.11.14-slim-bookworm

FROM ${PYTHON_IMAGE} AS builder
ENV PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1 \
    PYTHONUNBUFFERED=1 \
    LUDOTECA_CACHE=/opt/ludoteca/cache \
    NUMBA_CACHE_DIR=/opt/ludoteca/numba \
    PATH=/opt/venv/bin:$PATH
# a compiler for any pinned package without a wheel for this platform (builder only)
RUN apt-get update \
    && apt-get install -y --no-install-recommends build-essential \
    && rm -rf /var/lib/apt/lists/*
RUN python -m venv /opt/venv
WORKDIR /app
# The third-party pins first (their layer is kept while only our code changes), then the
# project's own packages (the -e lines) with their sources.
COPY requirements.txt ./
RUN grep -v '^-e ' requirements.txt > /tmp/pins.txt && pip install -r /tmp/pins.txt
COPY shared/ shared/
COPY services/ services/
COPY deploy/ deploy/
RUN pip install -r requirements.txt
# The bots' tables and compiled code of every registered game (its warm_up, as `make policy`
# builds them), then bytecode for everything, so that no process compiles or writes at run time.
RUN for game in $(python -c 'from ludoteca.service_layer import registry; print(*registry.names())'); do \
      python -m ludoteca.entrypoints.devstack --warm-up "$game" || exit 1; \
    done \
    && python -m compileall -q /app/shared /app/services /app/deploy

FROM ${PYTHON_IMAGE} AS runtime
ENV PYTHONUNBUFFERED=1 \
    PYTHONDONTWRITEBYTECODE=1 \
    PATH=/opt/venv/bin:$PATH \
    LUDOTECA_CACHE=/opt/ludoteca/cache \
    NUMBA_CACHE_DIR=/tmp/numba \
    LUDOTECA_NUMBA_SEED=/opt/ludoteca/numba \
    HOME=/tmp
RUN groupadd --system --gid 10001 ludoteca \
    && useradd --system --uid 10001 --gid 10001 --home-dir /tmp --no-create-home \
       --shell /usr/sbin/nologin ludoteca
# The caches and the sources come in one stage's files, keeping their timestamps (numba checks
# the source file's against its cache index).
COPY --from=builder /opt/venv /opt/venv
COPY --from=builder /opt/ludoteca /opt/ludoteca
COPY --from=builder /app /app
WORKDIR /app
USER 10001:10001
EXPOSE 8001 8002 8003 8004
HEALTHCHECK NONE
ENTRYPOINT ["/app/deploy/entrypoint.sh"]
CMD ["gunicorn", "-c", "deploy/gunicorn.conf.py", "-b", "0.0.0.0:8004", "ludoteca.entrypoints.wsgi:make_app()"]
