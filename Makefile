# Two commands for a fresh machine with Python 3.11+: `make run` and `make test`.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
HOST ?= 127.0.0.1:8000

.PHONY: install run test lint bench

install: $(VENV)/.installed

# Reinstalls whenever requirements.txt changes.
$(VENV)/.installed: requirements.txt
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -r requirements.txt
	touch $@

# Migrates the embedded SQLite database, imports the demo corpus (again is harmless:
# known papers are skipped) and serves the site.
run: install
	$(BIN)/python manage.py migrate --verbosity 0
	$(BIN)/python manage.py import_arrow clusters/demo
	$(BIN)/python manage.py runserver $(HOST)

test: install
	$(BIN)/python -m pytest $(PYTEST_ARGS)

lint: install
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/python manage.py check --fail-level WARNING
	$(BIN)/python manage.py makemigrations --check --dry-run

# The benchmark (bench/run.py): generate SIZE papers, import next to the floor, load the
# pages with wrk, time search and curation on SQLite and PostgreSQL; writes BENCHMARKS.md.
SIZE ?= 20000
bench: install
	command -v wrk >/dev/null || apt-get install -y wrk
	$(BIN)/python bench/run.py --papers $(SIZE)
