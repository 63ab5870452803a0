"""The active field's ratings kept in order, so a table is picked without a pass over a thousand bots.

The matchmaker asks two things before each table: who is most uncertain (largest sigma),
and who is closest in mean to a given bot. Both lists are kept sorted and updated only for
the bots whose ratings moved, so each question costs a binary search and a short walk.
Equal values (every newcomer has the same rating) are broken with the table's generator,
never by name, so no bot is favoured for sorting first.
"""

from __future__ import annotations

import random
from bisect import bisect_left, insort
from typing import Container

from ..rating import Rating


class RatingIndex:
    """Mean and sigma of every active bot, each in a sorted list."""

    def __init__(self) -> None:
        self.mu: dict[str, float] = {}
        self.sigma: dict[str, float] = {}
        self._by_mu: list[tuple[float, str]] = []
        self._by_sigma: list[tuple[float, str]] = []

    def set(self, key: str, rating: Rating) -> None:
        """Enter ``key`` or move it to its new rating."""
        self.drop(key)
        self.mu[key], self.sigma[key] = float(rating.mu), float(rating.sigma)
        insort(self._by_mu, (self.mu[key], key))
        insort(self._by_sigma, (self.sigma[key], key))

    def drop(self, key: str) -> None:
        """``key`` left the field."""
        if key in self.mu:
            del self._by_mu[bisect_left(self._by_mu, (self.mu.pop(key), key))]
            del self._by_sigma[bisect_left(self._by_sigma, (self.sigma.pop(key), key))]

    def most_uncertain(self, allowed: Container[str], rng: random.Random) -> str:
        """The allowed bot with the largest sigma (ties drawn with ``rng``); there must be one."""
        ties: list[str] = []
        top = None
        for sigma, key in reversed(self._by_sigma):
            if top is not None and sigma < top:
                break
            if key in allowed:
                top = sigma
                ties.append(key)
        return ties[0] if len(ties) == 1 else rng.choice(sorted(ties))

    def nearest(self, mu: float, count: int, allowed: Container[str], taken: Container[str],
                rng: random.Random) -> list[str]:
        """``count`` allowed bots not taken whose means are closest to ``mu``, the nearest first; bots
        as far as the last one chosen are drawn with ``rng``."""
        if count <= 0:
            return []
        order = self._by_mu
        right = bisect_left(order, (mu, ""))
        left = right - 1
        found: list[tuple[float, str]] = []
        limit = None
        while left >= 0 or right < len(order):
            go_left = right >= len(order) or (left >= 0 and mu - order[left][0] <= order[right][0] - mu)
            value, key = order[left] if go_left else order[right]
            if go_left:
                left -= 1
            else:
                right += 1
            distance = abs(value - mu)
            if limit is not None and distance > limit:
                break
            if key in allowed and key not in taken:
                found.append((distance, key))
                if len(found) == count:
                    limit = distance  # go on only for bots exactly as far: they have an equal claim
        sure = [key for distance, key in found if limit is None or distance < limit]
        tied = sorted(key for distance, key in found if limit is not None and distance == limit)
        return sure + rng.sample(tied, min(len(tied), count - len(sure)))
