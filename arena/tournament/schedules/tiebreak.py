"""What breaks ties when sampled tables are drawn: a generator keyed with a hash of the master seed.

The tables must be the same on every resume, also after Python was upgraded between two
runs, or a resumed tournament would play other tables under the same fingerprint.
Python promises that only ``random()`` keeps its sequence for an integer seed from
version to version (``randrange``, ``choice`` and ``shuffle`` may change), so every draw
is made from ``random()`` alone.
"""

from __future__ import annotations

import hashlib
import hmac
import random


class TieBreaker:
    """Uniform picks among ``n`` equal candidates, the same for the same master seed."""

    def __init__(self, master: int | str) -> None:
        """Keyed with an HMAC of the master seed: Python's generator is not one-way, and the tables it
        draws must say nothing about the seed of the deals. ``1`` and ``"1"`` draw the same tables, as
        they deal the same cards."""
        key = hmac.new(str(master).encode(), b"cabo-arena/sampled-tables", hashlib.sha256).digest()
        self._random = random.Random(int.from_bytes(key, "big"))

    def below(self, n: int) -> int:
        """A number from 0 to ``n - 1``, each as likely (to 53 bits of precision)."""
        return min(int(self._random.random() * n), n - 1)
