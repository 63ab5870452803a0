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
	$(BIN)/arena run tournaments/league.yaml

test: venv
	$(BIN)/python -m pytest -q

bench: venv
	$(BIN)/python bench/engine.py
	$(BIN)/python bench/heuristic.py
	$(BIN)/python bench/protocol.py
	$(BIN)/python bench/tournament.py
	$(BIN)/python bench/deps.py
	$(BIN)/python bench/ladder.py
	$(BIN)/python bench/report.py
	$(BIN)/python bench/cluster.py
	$(BIN)/python bench/calibration.py
	$(BIN)/python bench/settle.py
	$(BIN)/python bench/luck.py
