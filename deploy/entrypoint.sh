#!/bin/sh
# The image's entry point (Dockerfile): seed numba's cache from the one built into the image, then
# run the role's command in its place (exec: it is PID 1, so signals reach it).
#
# numba opens its cache directory for writing even to load from it, so the cache that the build
# compiled (LUDOTECA_NUMBA_SEED, read-only) is copied into NUMBA_CACHE_DIR (under /tmp: a tmpfs or
# emptyDir when the root filesystem is read-only). A few megabytes, once per container start; a
# copy that fails (no room) only means Ludor's expert compiles on its first turn.
#
# Open files: the soft limit is raised to the hard one the runtime gives (Docker's soft default is
# 1024 on many hosts; a game service needs about 6,300), for every role (the services raise theirs
# again in deploy/gunicorn.conf.py, ludoteca.adapters.fdlimit); a refusal keeps the old limit.
set -eu
ulimit -S -n "$(ulimit -H -n)" 2>/dev/null || true
if [ -n "${LUDOTECA_NUMBA_SEED:-}" ] && [ -d "${LUDOTECA_NUMBA_SEED}" ] && [ -n "${NUMBA_CACHE_DIR:-}" ]; then
    mkdir -p "${NUMBA_CACHE_DIR}" && cp -R -p "${LUDOTECA_NUMBA_SEED}/." "${NUMBA_CACHE_DIR}/" 2>/dev/null \
        || echo "[entrypoint] could not seed ${NUMBA_CACHE_DIR}; numba compiles on first use" >&2
fi
exec "$@"
