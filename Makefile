# Every target a person runs is the one CI runs (.ci/run calls `make lint`, then `make test`).
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
PORT ?= 8000
STAMP := $(VENV)/.installed

.PHONY: install lock chromium run test test-fast test-postgres test-webkit e2e lint bench \
	bench-pairing reliability bench-firstload bench-updates profile

install: $(STAMP)

# The exact versions and their hashes come from requirements.lock (pyproject.toml keeps the
# ranges); the project itself goes in editable, without resolving anything again. Reinstall
# only when the lock or pyproject.toml changes.
$(STAMP): pyproject.toml requirements.lock
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --require-hashes -r requirements.lock
	$(BIN)/pip install --quiet --no-deps -e .
	touch $(STAMP)

# Resolve the ranges in pyproject.toml again into requirements.lock. Pins that still fit stay;
# `make lock UPGRADE=all` moves every package to its newest allowed release, and
# `make lock UPGRADE="flask gevent"` only those. Then `make install` installs the new lock.
LOCK_FLAGS := --quiet --extra test --generate-hashes --strip-extras --allow-unsafe \
	--no-emit-index-url --no-emit-find-links
lock: install
	$(BIN)/pip-compile $(LOCK_FLAGS) -o requirements.lock \
		$(if $(filter all,$(UPGRADE)),--upgrade,$(addprefix --upgrade-package ,$(UPGRADE))) \
		pyproject.toml

# The browsers of the tests: Chromium (Playwright), and WebKit, the iPhone's engine (Debian's
# WebKitGTK through its WebDriver on an Xvfb display; e2e/webkit.py); fonts for CJK, a QR decoder
# (zbarimg) and iproute2 for the phones' network namespace (e2e/hall_world.py).
WEBKIT_PACKAGES := webkit2gtk-driver xvfb libgl1-mesa-dri xauth
chromium:
	@test -x /usr/bin/chromium || (apt-get update && apt-get install -y chromium)
	@dpkg -s $(WEBKIT_PACKAGES) >/dev/null 2>&1 || \
		(apt-get update && apt-get install -y --no-install-recommends $(WEBKIT_PACKAGES))
	@fc-list :lang=ja | grep -q . || (apt-get update && apt-get install -y fonts-noto-cjk)
	@test -x /usr/bin/zbarimg || (apt-get update && apt-get install -y zbar-tools)
	@command -v ip >/dev/null || (apt-get update && apt-get install -y iproute2)

run: install
	PORT=$(PORT) $(BIN)/gunicorn -c server/gunicorn_conf.py 'server:create_app()'

TEST_POSTGRES_URL ?= postgresql://postgres@127.0.0.1:5432/test

# Every test on SQLite files: the server's (tests/), then the browser tests (e2e/); then the
# server's tests again on PostgreSQL. Each runs on TEST_WORKERS processes (pytest-xdist, one
# per core here; `make test TEST_WORKERS=0` runs one test at a time): the browser tests a module
# to a process, then those that make the phones' network namespace (marker `netns`: its link
# changes the host's network under every other Chromium) and WebKit's (marker `webkit`) alone.
# On PostgreSQL each process has a database of its own (conftest.py). From a clean clone here
# (.ci/run, docs/decisions.md): one at a time 38.0 min (earlier that day), two at a time 33.9
# (tests/ 6.9, browser tests 18.2 + 3.7 alone, PostgreSQL 3.2); three processes on these two
# cores were no faster than two, and failed three tests.
TEST_WORKERS ?= 2
BROWSER_ALONE := netns or webkit

test: install chromium
	$(BIN)/pytest tests -n $(TEST_WORKERS)
	$(BIN)/pytest e2e -n $(TEST_WORKERS) --dist loadfile -m "not ($(BROWSER_ALONE))"
	$(BIN)/pytest e2e -m "$(BROWSER_ALONE)"
	$(MAKE) --no-print-directory test-postgres

# The quick loop while changing code: the tests not marked slow, kill or browser (markers in
# pyproject.toml), on SQLite; about two minutes here.
test-fast: install
	$(BIN)/pytest tests -q -m "not slow and not kill and not browser"

# The server's tests on PostgreSQL. The pure rules tests touch no database, and the reliability
# tests already run on both stores, so they run once, above.
test-postgres: install
	@pg_isready -q -h 127.0.0.1 -p 5432 || { echo "PostgreSQL does not answer on 127.0.0.1:5432 (.ci/run starts it)"; exit 1; }
	TEST_DATABASE_URL=$(TEST_POSTGRES_URL) $(BIN)/pytest tests -n $(TEST_WORKERS) \
		--ignore-glob='tests/test_rules_*' --ignore=tests/test_reliability.py

e2e: install chromium
	$(BIN)/pytest e2e

# The player's journeys on WebKit, the iPhone's engine, alone (e2e/test_webkit.py; as root, also
# e2e/test_webkit_in_the_hall.py, its phones in the hall's network namespace).
test-webkit: install chromium
	$(BIN)/pytest e2e -m webkit

# Style and types: ruff's checks and formatting, then mypy on `server/` (strict on the rules and
# the store; pyproject.toml's [tool.mypy]). CI runs it before the tests.
lint: install
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy

# A moderate load run (about 5 minutes); `python -m bench --help` for the full curve.
# `make bench LONG=1`: the long run (30 minutes at 2,500 tables, every stall of the worker's loop;
# make itself refuses `make bench --long`). `make bench BASELINE=<git ref>`: the same load
# against that commit's server too, alternately, and the ratios current/baseline.
bench: install
	$(BIN)/python -m bench $(if $(LONG),--long) $(if $(BASELINE),--baseline-ref $(BASELINE)) \
		$(BENCH_ARGS)
	$(MAKE) --no-print-directory bench-pairing

# Where the worker's time goes at 2,500 tables: py-spy flame graphs (SVG) of the worker over the
# measured window, in bench-results/profiles/ (docs/performance.md).
profile: install
	$(BIN)/python -m bench --tables 2500 --seconds 60 --no-relay --profile bench-results/profiles \
		$(BENCH_ARGS)

# Swiss pairing time for 2,048 players at round 8 (target under 2 s); a few seconds.
bench-pairing: install
	$(BIN)/python -m bench.pairing $(PAIRING_ARGS)

# Crash recovery under SIGKILL (SQLite and PostgreSQL), fuzzing, access checks: a few minutes.
# Prints kills survived, commands acknowledged, lost, duplicated, fuzz messages, unhandled errors.
reliability: install
	$(BIN)/python -m reliability $(RELIABILITY_ARGS)

# Bytes per table-socket update over a scripted 3-duel match with 90 entries, protocol 1 and 2
# (first / median / p95 / last); a couple of seconds, no server.
bench-updates: install
	$(BIN)/python -m bench.updates $(UPDATES_ARGS)

# First load of a seated table page on slow 4G: bytes (budget 150 KB) and time to the keypad.
bench-firstload: install chromium
	$(BIN)/python -m bench.firstload $(BENCH_ARGS)
