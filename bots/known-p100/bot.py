"""The heuristic bot diluted: a random legal action with probability 1 (../lib/heuristic_strategy.py)."""

import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))

import cabo_bot  # noqa: E402
from heuristic_strategy import known_strength  # noqa: E402

if __name__ == "__main__":
    cabo_bot.run(known_strength(1))
