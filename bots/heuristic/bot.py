"""Heuristic Cabo bot (both presets); the strategy lives in ../lib/heuristic_strategy.py."""

import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "lib"))

import cabo_bot  # noqa: E402
from heuristic_strategy import HeuristicPolicy  # noqa: E402

if __name__ == "__main__":
    cabo_bot.run(HeuristicPolicy)
