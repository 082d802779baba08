# Two entry points that work on a fresh machine with only Python 3.11+ and make:
#   make demo   - play a scripted game on the station (simulated hardware by default)
#   make test   - lint, type-check the engine, and run the whole test suite
PYTHON ?= python3
VENV   ?= .venv
BIN     = $(VENV)/bin
STAMP   = $(VENV)/.installed

.PHONY: demo test lint typecheck pytest bench clean browser

$(STAMP): pyproject.toml
	@$(PYTHON) -c 'import sys; sys.exit(0 if sys.version_info >= (3, 11) else "Python 3.11 or newer is needed (found %s)" % sys.version.split()[0])'
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[test]'
	touch $(STAMP)

demo: $(STAMP)
	$(BIN)/tower demo

lint: $(STAMP)
	$(BIN)/ruff check .

# mypy --strict on every package (pyproject.toml lists them under [tool.mypy])
typecheck: $(STAMP)
	$(BIN)/mypy

# The web page's end-to-end tests drive Debian's chromium: install it when it is missing and we are
# root; without it those tests skip and say why.
browser:
	@if [ ! -x /usr/bin/chromium ] && [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then \
		(apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y chromium) \
		|| echo "chromium could not be installed: the browser tests will skip"; \
	fi

# One worker per core, at most four (pytest-xdist): the suite takes half the time on a 2-core machine.
# A bare `pytest` (one file, one test) runs in one process as before.
pytest: $(STAMP) browser
	$(BIN)/python -m pytest -n auto --maxprocesses 4

test: lint typecheck pytest

bench: $(STAMP)
	@for b in bench/bench_*.py; do echo "== $$b"; $(BIN)/python $$b || exit 1; done

clean:
	rm -rf $(VENV) build *.egg-info .pytest_cache .mypy_cache .ruff_cache
