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

.PHONY: install chromium policy run test test-fast lint openapi generate golden load bench bench-full bench-api bench-abuse bench-bots bench-peer bench-follow bench-doors clean

# The OpenAPI lint (spectral, tests/api/test_openapi_lint.py): node packages pinned by the lock file
LINT_DIR   := tools/openapi-lint
LINT_STAMP := $(LINT_DIR)/node_modules/.package-lock.json
# The accessibility scan of tests/browser (axe-core, injected into the page): pinned the same way
BROWSER_DIR   := tools/browser
BROWSER_STAMP := $(BROWSER_DIR)/node_modules/.package-lock.json
# The generated TypeScript clients of tests/clients (typescript, openapi-typescript, openapi-fetch,
# @hey-api/openapi-ts): pinned the same way
CLIENTS_DIR   := tools/clients
CLIENTS_STAMP := $(CLIENTS_DIR)/node_modules/.package-lock.json
# One line a step (tools/step.py, standard library only): what the commands print goes to
# var/log/make.log, or to the terminal with V=1; a failing step shows its output's last lines.
STEP := @$(PYTHON) tools/step.py var/log/make.log

# The games and services: every folder of services/ (each a package declaring a ludoteca.games or
# ludoteca.services entry point), installed editable whether or not `make generate` has written it
# into requirements.txt yet, and its package type-checked by `make lint`: a game is one folder,
# named nowhere here.
GAME_DIRS     := $(patsubst %/pyproject.toml,%,$(wildcard services/*/pyproject.toml))
GAME_PACKAGES := $(patsubst %/__init__.py,%,$(wildcard $(addsuffix /*/__init__.py,$(GAME_DIRS))))
# the folders requirements.txt does not list yet (a game added since the last `make generate`)
NEW_GAME_DIRS := $(filter-out $(patsubst ./%,%,$(filter ./services/%,$(shell cat requirements.txt))),$(GAME_DIRS))

$(STAMP): requirements.txt requirements-dev.txt shared/pyproject.toml $(wildcard services/*/pyproject.toml)
	$(STEP) "creating the virtualenv $(VENV)" $(PYTHON) -m venv $(VENV)
	$(STEP) "installing the Python packages into $(VENV) (first run: a few minutes)" \
	  sh -c '$(BIN)/pip install -q --upgrade pip && $(BIN)/pip install -q -r requirements-dev.txt $(addprefix -e ./,$(NEW_GAME_DIRS))'
	@touch $(STAMP)

$(LINT_STAMP): $(LINT_DIR)/package.json $(LINT_DIR)/package-lock.json
	$(STEP) "installing the OpenAPI lint (npm ci in $(LINT_DIR))" \
	  sh -c 'cd $(LINT_DIR) && npm ci --no-audit --no-fund --ignore-scripts'

$(BROWSER_STAMP): $(BROWSER_DIR)/package.json $(BROWSER_DIR)/package-lock.json
	$(STEP) "installing axe-core (npm ci in $(BROWSER_DIR))" \
	  sh -c 'cd $(BROWSER_DIR) && npm ci --no-audit --no-fund --ignore-scripts'

$(CLIENTS_STAMP): $(CLIENTS_DIR)/package.json $(CLIENTS_DIR)/package-lock.json
	$(STEP) "installing the TypeScript client generators (npm ci in $(CLIENTS_DIR))" \
	  sh -c 'cd $(CLIENTS_DIR) && npm ci --no-audit --no-fund --ignore-scripts'

install: $(STAMP) $(LINT_STAMP) $(BROWSER_STAMP) $(CLIENTS_STAMP) chromium

# Debian packages the tests use: headless Chromium for tests/browser (driven by Playwright, which
# never downloads a browser here), jq for the docs' walkthroughs (tests/integration/test_walkthroughs.py)
# and a Java runtime for openapi-generator (tests/clients/test_generators.py; the jar comes with the
# openapi-generator-cli package of requirements-dev.txt).
# Installed with apt-get only when missing and apt-get exists (CI runs as root; otherwise through
# sudo when there is one); anywhere else the tests that need them say what to do.
CHROMIUM ?= /usr/bin/chromium
chromium:
	@MISSING=; [ -x $(CHROMIUM) ] || MISSING=chromium; command -v jq > /dev/null || MISSING="$$MISSING jq"; \
	command -v java > /dev/null || MISSING="$$MISSING default-jre-headless"; \
	if [ -n "$$MISSING" ] && command -v apt-get > /dev/null; then \
	  if [ "$$(id -u)" = 0 ]; then SUDO=; elif command -v sudo > /dev/null; then SUDO=sudo; \
	  else echo "missing:$$MISSING; run: apt-get install -y$$MISSING" >&2; exit 0; fi; \
	  $(PYTHON) tools/step.py var/log/make.log "installing Debian's$$MISSING (apt-get)" \
	    sh -c "$$SUDO apt-get update -q && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -q $$MISSING"; \
	fi

# Precompute the bots' tables once (cached under $$LUDOTECA_CACHE or ~/.cache/ludoteca): each game's
# warm_up (what its bots precompute: a solved game, a hypothesis space, a compiled simulator...),
# so no move ever waits for them.
policy: install
	@for game in $$($(BIN)/python -c 'from ludoteca.service_layer import registry; print(*registry.names())'); do \
	  $(PYTHON) tools/step.py var/log/make.log "$$game's bots' tables (built on the first run only, up to a minute)" \
	    $(BIN)/python -m ludoteca.entrypoints.devstack --warm-up $$game || exit 1; done

# `make run` needs the Python packages only (not the test tools of `install`, nor `policy`): the
# devstack answers at once and builds the bots' tables beside the services, starting the worker
# (the one process that runs bots) once they are built; bot turns wait in its queue meanwhile.
run: $(STAMP)
	@$(BIN)/python -m ludoteca.entrypoints.devstack --root .

test: install policy
	$(BIN)/python -m pytest -n $(TEST_JOBS) --dist loadfile --durations=20 $(PYTEST_ARGS)

test-fast: install
	$(BIN)/python -m pytest -m "not integration and not slow" $(PYTEST_ARGS)

lint: install
	$(BIN)/ruff check shared services tests loadtest
	$(BIN)/mypy shared/ludoteca $(GAME_PACKAGES) loadtest
	$(BIN)/vulture shared/ludoteca services tests deploy loadtest --min-confidence 100 --ignore-names frame,signum,memo,isolated_tables,client_id

openapi: generate

# Every file derived from the installed games (ludoteca.entrypoints.generate): requirements.txt's
# game lines, deploy/Procfile, docker-compose.yml, deploy/Caddyfile, deploy/k8s/, openapi/; and the
# load kit's Kubernetes Job (loadtest.k8s: deploy/k8s/optional/load.yaml).
# tests/deploy/test_generated.py and tests/load/test_k8s.py fail when one is stale.
generate: install
	$(BIN)/python -m ludoteca.entrypoints.generate
	$(BIN)/python -m loadtest.k8s

# `make load`: every game the running stack serves under load (loadtest/, docs/load-testing.md), e.g.
# `make load SHAPE=ramp USERS=200 DURATION=2m`, `WORKERS=2` for a locust master and 2 workers,
# LOAD_HOST (default the front door of `make run`), MIX (ludix=3,pig=1), SCENARIOS, THINK, METRICS.
# Writes var/load/<run>/ (locust's HTML report, CSV, a summary per game beside the server's figures).
load: install
	$(BIN)/python -m loadtest $(if $(LOAD_HOST),--host $(LOAD_HOST)) $(if $(SHAPE),--shape $(SHAPE)) $(if $(USERS),--users $(USERS)) $(if $(DURATION),--duration $(DURATION)) $(if $(WORKERS),--workers $(WORKERS)) $(if $(MIX),--mix $(MIX)) $(if $(SCENARIOS),--scenarios $(SCENARIOS)) $(if $(THINK),--think $(THINK)) $(if $(METRICS),--metrics $(METRICS))

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

# Pig beside boardgame.io (tests/bench/peer, npm ci on first run), Ludix and the null, in one run
bench-peer: install
	$(BIN)/python tests/bench/bench_peer.py $(BENCH_ARGS)

# the front door's CPU per request beside nginx and Traefik when this machine has them (not part of
# the stack: DESIGN.md asks for a door pip installs), in front of the same null endpoint, in one run
bench-doors: install
	$(BIN)/python tests/bench/bench_doors.py $(BENCH_ARGS)

# one seat against the bots, followed by long-polls or by its stream's turn messages: requests and
# server CPU a human move, side by side in one run (about 5 minutes)
bench-follow: install policy
	$(BIN)/python tests/bench/bench_follow.py $(BENCH_ARGS)

# every bot benchmark; BOT_ARGS=--quick for their quick mode
BOT_ARGS ?=
bench-bots: install policy
	@for f in tests/bench/bench_*_bots.py; do echo "== $$f"; $(BIN)/python $$f $(BOT_ARGS) || exit 1; done

clean:
	rm -rf var .pytest_cache .mypy_cache .ruff_cache .hypothesis
