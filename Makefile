# Two commands take a fresh machine with only Python 3.11 to a running server (`make run`)
# and a green suite (`make test`). Every install step lives here.
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
PORT ?= 8000
HOST ?= 127.0.0.1
STAMP := $(VENV)/.installed
# Extra arguments for the suite's pytest (`.ci/run` asks for a JUnit report of each run).
PYTEST_ARGS ?=
NODE_STAMP := node_modules/.installed

.PHONY: install run worker test quick lint serve bench clean chromium nginx contracts

$(STAMP): pyproject.toml constraints.txt
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -c constraints.txt -e ".[dev]"
	touch $(STAMP)

# The test suite's one processor double that is not Python (Prism, which mocks Adyen's API from the project's contract
# of it in contracts/) installs from package.json and its lockfile into node_modules/: `make test` needs node and npm,
# the server does not.
# .npmrc runs no install scripts. A machine without npm gets Debian's node and npm when we may install them (root with
# apt-get), as the browser tests get Chromium; otherwise the message says what to run.
$(NODE_STAMP): package.json package-lock.json
	@if ! command -v npm >/dev/null; then \
		if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then \
			DEBIAN_FRONTEND=noninteractive apt-get update -q && \
			DEBIAN_FRONTEND=noninteractive apt-get install -y -q nodejs npm; \
		else \
			echo "The suite's Adyen mock (Prism) needs node and npm: run 'sudo apt-get install -y nodejs npm', then 'make test'." >&2; \
			exit 1; \
		fi; \
	fi
	npm ci --no-audit --no-fund --loglevel=error
	touch $(NODE_STAMP)

install: $(STAMP) $(NODE_STAMP)

.local/env: | $(STAMP)
	mkdir -p .local
	$(BIN)/python manage.py init_local_env --path .local/env

# The background worker (webhook deliveries, scheduled jobs) runs beside the development server; Ctrl-C stops
# both (the trap also stops the worker when the server exits on its own).
run: $(STAMP) .local/env
	$(BIN)/python manage.py migrate --no-input
	$(BIN)/python manage.py setup_local --private-key-out .local/default-api-key.pem --port $(PORT)
	@trap 'kill $$worker 2>/dev/null; wait $$worker 2>/dev/null' EXIT INT TERM; \
	$(BIN)/python manage.py run_worker --verbosity 0 & worker=$$!; \
	echo "Background worker started (pid $$worker): webhook deliveries and scheduled jobs. Ctrl-C stops both."; \
	$(BIN)/python manage.py runserver $(HOST):$(PORT)

# One worker process; run as many as you like on as many hosts as you like (docs/deploy.md).
worker: $(STAMP)
	$(BIN)/python manage.py run_worker

lint: install
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy .
	$(BIN)/lint-imports

# A Debian package a test needs and never skips for: installed when missing if we may (root with apt-get),
# otherwise the message says exactly what to run. $(1): the program, $(2): the package, $(3): who needs it.
define debian_program
	@if [ ! -x $(1) ]; then \
		if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then \
			DEBIAN_FRONTEND=noninteractive apt-get update -q && \
			DEBIAN_FRONTEND=noninteractive apt-get install -y -q $(2); \
		else \
			echo "$(3) need $(1): run 'sudo apt-get install -y $(2)', then 'make test'." >&2; \
			exit 1; \
		fi; \
	fi
endef

# The browser tests (tests/browser) drive Debian's Chromium.
chromium:
	$(call debian_program,/usr/bin/chromium,chromium,The browser tests)

# tests/test_nginx.py runs Debian's nginx with config/nginx.conf in front of gunicorn (the production layout,
# docs/deploy.md).
nginx:
	$(call debian_program,/usr/sbin/nginx,nginx,The production layout's tests)

# The facts-only contracts of the published API documents (contracts/, docs/contracts.md), derived again from
# ../shared/reference/: run after a document there changes, and commit the result.
contracts: $(STAMP)
	$(BIN)/python -m contracts.derive

# `contracts.derive --check` fails when a committed contract is not what its document beside the repository derives;
# on a clone with nothing beside it, it says there is nothing to compare (never a skip, never a failure).
test: lint chromium nginx $(NODE_STAMP)
	mkdir -p .local  # where the embedded database lives; the migration check opens it
	$(BIN)/python manage.py makemigrations --check --dry-run
	$(BIN)/python -m contracts.derive --check
	$(BIN)/pytest $(PYTEST_ARGS)

# The fast loop while working: the tests named in T (default: the suite but its browser tests and the fuzzer) on one
# worker per core (pytest-xdist), keeping the test database between runs (pytest-django's --reuse-db: a PostgreSQL
# DATABASE_URL's test databases are migrated once, not each run; add T=--create-db after a new migration). No lint, no
# browsers, no contracts check: `make test` stays the whole thing. Examples: `make quick`,
# `make quick T=paymentservices`, `make quick T="transactions -k refund"`.
# Leave REDIS_URL unset here: workers sharing one Redis database clear each other's rate-limit counters.
T ?= --ignore=tests/test_fuzz.py
QUICK_WORKERS ?= auto
quick: $(STAMP) $(NODE_STAMP)
	mkdir -p .local
	$(BIN)/pytest -n $(QUICK_WORKERS) --reuse-db -m "not browser" $(T) $(PYTEST_ARGS)

# preflight first: a missing or wrong setting (secrets, DATABASE_URL) is one line naming it, before anything runs.
serve: $(STAMP)
	@$(BIN)/python manage.py preflight
	$(BIN)/python manage.py migrate --no-input
	$(BIN)/python manage.py collectstatic --no-input
	HOST=$(HOST) PORT=$(PORT) $(BIN)/gunicorn config.wsgi --config config/gunicorn.conf.py

# The benchmark's app-server stage also runs granian (the `bench` extra), which the server itself does not need.
BENCH_STAMP := $(VENV)/.bench-installed
$(BENCH_STAMP): $(STAMP)
	$(BIN)/pip install --quiet -c constraints.txt -e ".[dev,bench]"
	touch $(BENCH_STAMP)

# `make bench STAGE=scale`: the lists and desk pages at 10k, 100k and 1M rows (bench/scale.py, docs/performance.md).
STAGE ?= run
bench: install $(BENCH_STAMP)
	$(BIN)/python bench/$(STAGE).py

clean:
	rm -rf $(VENV) .local staticfiles test-output node_modules
