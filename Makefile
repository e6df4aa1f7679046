# Two commands take a fresh machine with only Python 3.11 to a running server (`make run`)
# and a green suite (`make test`). Every install step lives here.
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
PORT ?= 8000
HOST ?= 127.0.0.1
STAMP := $(VENV)/.installed

.PHONY: install run test lint serve bench clean chromium

$(STAMP): pyproject.toml constraints.txt
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -c constraints.txt -e ".[dev]"
	touch $(STAMP)

install: $(STAMP)

.local/env: | $(STAMP)
	mkdir -p .local
	$(BIN)/python manage.py init_local_env --path .local/env

run: install .local/env
	$(BIN)/python manage.py migrate --no-input
	$(BIN)/python manage.py setup_local --private-key-out .local/default-api-key.pem --port $(PORT)
	$(BIN)/python manage.py runserver $(HOST):$(PORT)

lint: install
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy .

# The browser tests (tests/browser) drive Debian's Chromium and are never skipped: install it when
# missing if we may (root with apt-get), otherwise say exactly what to run.
chromium:
	@if [ ! -x /usr/bin/chromium ]; then \
		if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then \
			DEBIAN_FRONTEND=noninteractive apt-get update -q && \
			DEBIAN_FRONTEND=noninteractive apt-get install -y -q chromium; \
		else \
			echo "The browser tests need /usr/bin/chromium: run 'sudo apt-get install -y chromium', then 'make test'." >&2; \
			exit 1; \
		fi; \
	fi

test: lint chromium
	mkdir -p .local  # where the embedded database lives; the migration check opens it
	$(BIN)/python manage.py makemigrations --check --dry-run
	$(BIN)/pytest

serve: install
	$(BIN)/python manage.py migrate --no-input
	$(BIN)/python manage.py collectstatic --no-input
	HOST=$(HOST) PORT=$(PORT) $(BIN)/gunicorn config.wsgi --config config/gunicorn.conf.py

bench: install
	$(BIN)/python bench/run.py

clean:
	rm -rf $(VENV) .local staticfiles test-output
