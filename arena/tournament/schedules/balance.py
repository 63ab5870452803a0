"""Neighbour-balanced seatings: who plays directly after whom goes round, so that seating order decides nothing.

Cabo's next player lives on your discards, so the bot that sits directly after another has
an edge over it that has nothing to do with skill. Rotating one seating through its ``n``
rotations moves every bot through every seat, but keeps the cyclic order: a table played
only as ``a b c d`` and its rotations always has ``b`` after ``a``. Two byte-identical bots
then do not tie: the one after the other placed ahead in 56% of their results.

So a table is played in the cyclic orders of a *design*: a set of cyclic orders of its ``n``
seats in which every ordered pair of seats is adjacent (the second directly after the first)
equally often. One cyclic order holds ``n`` ordered adjacent pairs and there are ``n(n - 1)``,
so a design has at least ``n - 1`` orders, each pair exactly once: a decomposition of the
complete directed graph into directed Hamiltonian cycles. It exists for every ``n`` but 4 and
6 (Tillson, 1980). For 4 seats the smallest design holds each pair twice: all 6 cyclic orders.

=====  ==========================================  ============================
seats  orders (each starting at seat 0)            each ordered pair adjacent
=====  ==========================================  ============================
2      0 1                                         once
3      0 1 2, 0 2 1                                once
4      all six cyclic orders of 0 1 2 3            twice (none with 3 exists)
5      0 1 2 3 4, 0 2 4 1 3, 0 3 1 4 2, 0 4 3 2 1  once
=====  ==========================================  ============================

The designs for 3 and 5 seats are the cycles ``i -> i + k (mod n)``, ``k = 1 .. n - 1``: in them
every ordered pair sits at every distance (directly after, two after, ...) exactly once, not
only adjacent; for 4 seats, every cyclic order is there, so that holds too. A size this table
does not list (the game has none today) takes every cyclic order, which is balanced at every
size, only longer.

Each order is still played under all its ``n`` rotations with one deal, so every bot holds
every seat's cards once and duplicate deals stay duplicate: a *seating* here is the cyclic
order, and the rotations of a match are unchanged.
"""

from __future__ import annotations

from collections import Counter
from itertools import permutations
from typing import Mapping, Sequence, TypeVar

T = TypeVar("T")

Order = tuple[int, ...]
"""A cyclic order of a table's seat positions 0..n-1, starting at 0: ``(0, 2, 1)`` seats position 2 after 0."""

BALANCED = "balanced"
"""``seating`` of a tournament begun by this arena: each table goes round the design (:func:`design`)."""
CYCLIC = "cyclic"
"""``seating`` of a tournament begun before balanced seatings: one cyclic order per table (its rotations)."""


def _steps(n: int) -> tuple[Order, ...]:
    """The cycles ``i -> i + k (mod n)`` for ``k = 1 .. n - 1``: a design when ``n`` is prime."""
    return tuple(tuple(k * i % n for i in range(n)) for k in range(1, n))


def every_order(n: int) -> tuple[Order, ...]:
    """Every cyclic order of ``n`` positions, starting at 0, in lexicographic order: ``(n - 1)!`` of them."""
    if n < 1:
        raise ValueError(f"a table has at least one seat, got {n}")
    return tuple((0, *rest) for rest in permutations(range(1, n)))


_DESIGNS: dict[int, tuple[Order, ...]] = {1: ((0,),), 2: ((0, 1),), 3: _steps(3), 4: every_order(4), 5: _steps(5)}


def design(n: int) -> tuple[Order, ...]:
    """The smallest neighbour-balanced set of cyclic orders of ``n`` seats known here (module docstring);
    the identity order comes first."""
    return _DESIGNS.get(n) or every_order(n)


def adjacent(order: Sequence[T]) -> list[tuple[T, T]]:
    """The ordered pairs ``(x, y)`` of a cyclic order with ``y`` directly after ``x`` (the last before the first)."""
    return [(order[i], order[(i + 1) % len(order)]) for i in range(len(order))] if len(order) > 1 else []


def adjacency(orders: Sequence[Sequence[T]]) -> Counter[tuple[T, T]]:
    """How often each ordered pair is adjacent over ``orders``."""
    counts: Counter[tuple[T, T]] = Counter()
    for order in orders:
        counts.update(adjacent(order))
    return counts


def seated(table: Sequence[T], order: Order) -> tuple[T, ...]:
    """``table`` (its bots in name order) in the cyclic order ``order`` of its positions."""
    return tuple(table[i] for i in order)


def rotated(seating: Sequence[T], rotation: int) -> tuple[T, ...]:
    """Rotation ``rotation`` of a seating: the bot at its seat ``rotation`` takes seat 0."""
    return tuple(seating[rotation:]) + tuple(seating[:rotation])


def unrotated(seats: Sequence[T], rotation: int) -> tuple[T, ...]:
    """The seating whose rotation ``rotation`` is ``seats``: the inverse of :func:`rotated`."""
    n = len(seats)
    return rotated(seats, (n - rotation % n) % n) if n else ()


def block_order(n: int, step: int, seating: str = BALANCED) -> Order:
    """The cyclic order of a table of ``n`` at ``step`` (cycle plus table number, counted from 0): the design
    taken in turn, so that any ``len(design(n))`` consecutive steps of one table play each order once. A
    :data:`CYCLIC` tournament plays the identity order at every step, as the arena did before."""
    if seating == CYCLIC:
        return tuple(range(n))
    orders = design(n)
    return orders[step % len(orders)]


def least_imbalanced(table: Sequence[T], counts: Mapping[tuple[T, T], int]) -> Order:
    """The order of the design for ``table`` (bots in name order) that most evens out who sat directly after
    whom so far (``counts``): the one whose adjacent pairs ``(x, y)`` are least often ahead of their
    reverse, ``counts[x, y] - counts[y, x]`` summed; ties go to the first in the design. For a schedule
    whose tables are not known in advance (a ladder): a table of the same bots drawn again and again
    goes round the whole design, and every pair's two directions stay within a few tables of each other."""
    def excess(order: Order) -> int:
        return sum(counts.get((x, y), 0) - counts.get((y, x), 0) for x, y in adjacent(seated(table, order)))
    return min(design(len(table)), key=excess)
