"""Luck taken out of results: what the cards gave each seat over expectation, from what the referee knows.

At every card the deck gives (:mod:`arena.game.chance`), the referee's :class:`.meter.Meter` records per seat
``V(after) - E[V(after)]``, the expectation taken exactly over the cards that could have come, ``V`` the fixed
:class:`.value.ValueModel`. Each term has mean zero whatever ``V`` is, so a result minus its seat's luck is an
unbiased estimate of the result with the cards' luck taken out (docs/tournaments.md, "Luck and skill").
"""
