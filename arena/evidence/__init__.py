"""Sequential evidence on paired deals: the one place the arena decides what its results show.

``arena run --until settled``, every board's tiers, ``next`` and ``P(>next)``, and ``arena compare`` all
read paired differences (two bots, or two versions, at the same deal) through :mod:`.sequential`, and
make their claims through :mod:`.claims` (a board's neighbours) or :class:`.sequential.Sprt` (a
comparison). docs/tournaments.md ("How sure is this ranking") and docs/bots.md (``arena compare``) say
what each claim promises and give the measured error rates.
"""

from .sequential import Answer, Running, Sprt, SprtPlan, llr, regularised_variance

__all__ = ["Answer", "Running", "Sprt", "SprtPlan", "llr", "regularised_variance"]
