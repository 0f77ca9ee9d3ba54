# Ludoteca: `make run` starts everything, `make test` runs the whole suite (fresh machine: only
# Python 3.11 and pip needed; Redis is embedded unless REDIS_URL is set).
PYTHON ?= python3
VENV   ?= .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed
PYTEST_ARGS ?=
# The suite runs in TEST_JOBS processes (pytest-xdist), a test file per process at a time: the
# integration files start their own Redis, worker and services on free ports.
TEST_JOBS ?= 2

.PHONY: install chromium policy run test test-fast lint openapi golden bench bench-full bench-api bench-abuse bench-bots clean

# The OpenAPI lint (spectral, tests/api/test_openapi_lint.py): node packages pinned by the lock file
LINT_DIR   := tools/openapi-lint
LINT_STAMP := $(LINT_DIR)/node_modules/.package-lock.json

$(STAMP): requirements.txt requirements-dev.txt shared/pyproject.toml $(wildcard services/*/pyproject.toml)
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip
	$(BIN)/pip install -q -r requirements-dev.txt
	touch $(STAMP)

$(LINT_STAMP): $(LINT_DIR)/package.json $(LINT_DIR)/package-lock.json
	cd $(LINT_DIR) && npm ci --no-audit --no-fund --ignore-scripts

install: $(STAMP) $(LINT_STAMP) chromium

# Headless Chromium for tests/browser: Debian's package, driven by Playwright (which never downloads
# a browser here). Installed with apt-get only when it is missing and apt-get exists (CI runs as
# root; otherwise through sudo when there is one); anywhere else the browser tests say what to do.
CHROMIUM ?= /usr/bin/chromium
chromium:
	@if [ ! -x $(CHROMIUM) ] && command -v apt-get > /dev/null; then \
	  if [ "$$(id -u)" = 0 ]; then SUDO=; elif command -v sudo > /dev/null; then SUDO=sudo; \
	  else echo "chromium: $(CHROMIUM) is missing; run: apt-get install -y chromium" >&2; exit 0; fi; \
	  echo "chromium: apt-get install -y chromium"; \
	  $$SUDO apt-get update -q && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -q chromium; \
	fi

# Precompute the bots' tables once (cached under $$LUDOTECA_CACHE or ~/.cache/ludoteca): Ludix's
# solved game, Ludic's hypothesis space, and Ludor's compiled simulator (numba's cache), so no move ever waits for them.
policy: install
	$(BIN)/python -m ludix.policy build
	$(BIN)/python -m ludic.build space
	$(BIN)/python -m ludor.simulation build

run: install policy
	$(BIN)/python -m ludoteca.entrypoints.devstack --root .

test: install policy
	$(BIN)/python -m pytest -n $(TEST_JOBS) --dist loadfile --durations=20 $(PYTEST_ARGS)

test-fast: install
	$(BIN)/python -m pytest -m "not integration and not slow" $(PYTEST_ARGS)

lint: install
	$(BIN)/ruff check shared services tests
	$(BIN)/mypy shared/ludoteca services/ludix/ludix services/ludic/ludic services/speculation/speculation services/ludor/ludor
	$(BIN)/vulture shared/ludoteca services tests deploy --min-confidence 100 --ignore-names frame,signum,memo,isolated_tables

openapi: install
	$(BIN)/python -m ludoteca.entrypoints.openapi openapi

# Record the golden corpus again (tests/golden): only for an intended change of the rules, the views
# or the events; the commit says why. `make golden GAMES=ludix` records one game.
golden: install policy
	$(BIN)/python tests/golden/record.py $(GAMES)

# `make bench`: the quick table (at most 2 minutes): per game and for the null endpoint, moves/s,
# p50/p90/p99, server CPU per move and the ratio to the null, straight and through the front door.
# `make bench FULL=1` (or `make bench-full`): more rounds, gunicorn workers 1/2/4 and the bot tables
# (each bot bench in its --quick mode). BENCH_ARGS: more options (`bench_api.py --help`).
BENCH_ARGS ?=
bench: install policy
	$(BIN)/python tests/bench/bench_api.py $(if $(FULL),--full) $(BENCH_ARGS)

bench-full: install policy
	$(BIN)/python tests/bench/bench_api.py --full $(BENCH_ARGS)

bench-api: bench

# a victim's move p50, quiet and while one abusive client (8 threads) is rate-limited, in one run
bench-abuse: install policy
	$(BIN)/python tests/bench/bench_abuse.py

# every bot benchmark; BOT_ARGS=--quick for their quick mode
BOT_ARGS ?=
bench-bots: install policy
	@for f in tests/bench/bench_*_bots.py; do echo "== $$f"; $(BIN)/python $$f $(BOT_ARGS) || exit 1; done

clean:
	rm -rf var .pytest_cache .mypy_cache .ruff_cache .hypothesis
