"""Uniform random Cabo bot: every legal action equally likely.

Seeded with ``random.Random(f"{match}/{seat}")`` from ``hello``, so a match replays
identically. ``RandomPolicy`` can also be used in-process (tests, benchmarks).
"""

import os
import random
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))

import cabo_bot  # noqa: E402


class RandomPolicy:
    name = "random"

    def __init__(self, hello):
        self.rng = random.Random(f"{hello.get('match')}/{hello.get('seat')}")

    def act(self, state, legal, events):
        return self.rng.randrange(len(legal))


if __name__ == "__main__":
    cabo_bot.run(RandomPolicy)
