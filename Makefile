# Two entry points: `make league` runs the main job, `make test` runs the suite.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin

.PHONY: league test venv bench

$(BIN)/arena: pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip
	$(BIN)/python -m pip install -q -e '.[test]'
	touch $(BIN)/arena

venv: $(BIN)/arena

league: venv
	$(BIN)/arena selfplay --rules standard --players 4 --matches 200 --seed 1
	$(BIN)/arena selfplay --rules espanola --players 4 --matches 200 --seed 1

test: venv
	$(BIN)/python -m pytest -q

bench: venv
	$(BIN)/python bench/engine.py
