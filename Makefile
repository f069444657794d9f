# Two commands do everything: `make run` serves the site, `make test` runs the whole suite.
# Both create .venv with the pinned dependencies on first use; only Python 3.11+ is needed.

PYTHON ?= python3
VENV   := .venv
PY     := $(VENV)/bin/python
PORT   ?= 8000

.PHONY: help run test lint format typecheck bench messages lock clean stack stack-stop

help:
	@echo "make run        serve the site on 127.0.0.1:$(PORT) (embedded: SQLite, no Redis; or"
	@echo "                PostgreSQL and Redis when DATABASE_URL and REDIS_URL are set)"
	@echo "make stack      the multi-node stack under var/stack: nginx on 127.0.0.1:8480 in front of"
	@echo "                three gunicorn nodes, its own PostgreSQL and Redis, the Celery workers"
	@echo "                and beat (installs nginx, postgresql, redis-server when missing)"
	@echo "make stack-stop stop it (its data stays under var/stack)"
	@echo "make test       the whole suite (PYTEST_ARGS=... passes arguments to pytest)"
	@echo "make lint       ruff, ruff format --check, import-linter's layers, mypy on the apps,"
	@echo "                tsc on the page's scripts (JSDoc types; needs Node.js and npm)"
	@echo "make format     fix what ruff can fix itself (imports, formatting)"
	@echo "make typecheck  mypy --strict on the engine"
	@echo "make bench      the engine's benchmark (docs/benchmarks.md lists the others)"
	@echo "make messages   refresh and compile the translation catalogs (needs gettext)"
	@echo "make lock       re-pin requirements*.txt from requirements*.in"
	@echo "make clean      remove the virtualenv, var/ and the caches"

$(PY):
	@$(PYTHON) -c 'import sys; sys.exit(0 if sys.version_info >= (3, 11) else "Python 3.11 or newer is needed (set PYTHON=...).")'
	$(PYTHON) -m venv $(VENV)

$(VENV)/.installed-run: requirements.txt | $(PY)
	$(PY) -m pip install --quiet --disable-pip-version-check -r requirements.txt
	@touch $@

$(VENV)/.installed-dev: requirements.txt requirements-dev.txt | $(PY)
	$(PY) -m pip install --quiet --disable-pip-version-check -r requirements-dev.txt
	@touch $@ $(VENV)/.installed-run

# The solver's hot modules compiled with mypyc (games/engine/solver/native.py), first thing in
# every command that runs it: a no-op when the build matches the engine's sources; without a C
# compiler the solver runs them as Python (KLONDIKE_SOLVER_STRICT=1: a failure instead).
COMPILE_SOLVER = $(PY) tools/compile_solver.py $(if $(filter-out 0,$(KLONDIKE_SOLVER_STRICT)),--strict)

# Embedded mode unless DATABASE_URL / REDIS_URL are set: SQLite under var/, no Redis.
run: export DJANGO_DEBUG ?= 1
run: $(VENV)/.installed-run
	$(COMPILE_SOLVER)
	$(PY) manage.py migrate --noinput
	$(PY) manage.py runserver 127.0.0.1:$(PORT)

# Several nodes behind nginx on this machine, all set up by tools/stack.py (docs/operations.md).
stack: $(VENV)/.installed-run
	$(COMPILE_SOLVER)
	$(PY) tools/stack.py start

stack-stop:
	$(PYTHON) tools/stack.py stop

# Debug off, as in production, with a new random key each run: no published key starts the
# service with debug off (config/env.py refuses them).
test: export DJANGO_SECRET_KEY ?= $(shell $(PYTHON) -c 'import secrets; print(secrets.token_urlsafe(50))')
test: export DJANGO_HTTPS ?= 0
test: $(VENV)/.installed-dev
	$(COMPILE_SOLVER)
	$(PY) -m pytest $(PYTEST_ARGS)

# Fix what the linters can fix themselves (imports, formatting), then `make lint` the rest.
format: $(VENV)/.installed-dev
	$(PY) -m ruff check --fix .
	$(PY) -m ruff format .

lint: $(VENV)/.installed-dev node_modules/.installed
	$(PY) -m ruff check .
	$(PY) -m ruff format --check .
	$(VENV)/bin/lint-imports --no-logo
	DJANGO_DEBUG=1 $(PY) -m mypy --config-file mypy-apps.ini accounts config games
	node_modules/.bin/tsc -p frontend/jsconfig.json

# TypeScript, only to check the page's scripts (they are served as written, with no build).
node_modules/.installed: package.json package-lock.json
	npm ci --no-audit --no-fund
	touch $@

typecheck: $(VENV)/.installed-dev
	$(PY) -m mypy --strict games/engine

bench: $(VENV)/.installed-dev
	$(COMPILE_SOLVER)
	$(PY) bench/engine.py

# Refresh the catalogs under locale/ from the sources (needs system gettext: a developer's tool,
# not part of set-up), then compile them in Python; both .po and .mo are committed (docs/i18n.md).
LANGUAGE_FLAGS := -l en -l hr -l sk -l pl
MESSAGES_FLAGS := $(LANGUAGE_FLAGS) --no-obsolete --add-location file --ignore 'var/*' --ignore 'tests/*' --ignore 'bench/*'
messages: $(VENV)/.installed-dev
	$(PY) manage.py makemessages -d django $(MESSAGES_FLAGS)
	$(PY) manage.py makemessages -d djangojs $(MESSAGES_FLAGS)
	$(VENV)/bin/pybabel compile --statistics -d locale -D django
	$(VENV)/bin/pybabel compile --statistics -d locale -D djangojs

# Re-pin after editing requirements*.in (needs network access to PyPI).
lock:
	rm -rf /tmp/klondike-lock && $(PYTHON) -m venv /tmp/klondike-lock
	/tmp/klondike-lock/bin/pip install --quiet -r requirements.in
	{ echo "# Generated from requirements.in: every runtime package, pinned exactly. Regenerate with 'make lock'."; /tmp/klondike-lock/bin/pip freeze --all | grep -v "^pip=="; } > requirements.txt
	/tmp/klondike-lock/bin/pip install --quiet -r requirements-dev.in
	{ echo "# Generated from requirements-dev.in: test and tooling packages not already in requirements.txt."; echo "-r requirements.txt"; /tmp/klondike-lock/bin/pip freeze | grep -vxFf requirements.txt; } > requirements-dev.txt

clean:
	rm -rf $(VENV) var .pytest_cache .mypy_cache .ruff_cache games/engine/solver/_native* node_modules
