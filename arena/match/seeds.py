"""Deal seeds and match ids derived from the master seed, the same for every schedule kind, for
``arena play`` and for the training environment (so it sits in the match layer, below them all).

A match id never contains its seed: the id is sent to the bots in ``hello``, and a bot
that knew the seed could recompute every card of the deal with the engine. So both are
HMACs keyed with the master seed, each of its own label.
"""

from __future__ import annotations

import hashlib
import hmac


def deal_seed(master: int | str, label: str) -> str:
    """The seed of one table's deals: ``d-`` and 32 hex digits of HMAC-SHA256 keyed with the master seed.

    Whoever deals a match needs its seed: a Dask worker, its operator, a replay file. From
    it nobody can recover the master seed, nor the seed of any other table. ``label``
    names the table (``c1/a+b``, ``L40/a@v1+b@v2``).
    """
    mac = hmac.new(str(master).encode(), b"cabo-arena/deal\0" + label.encode(), hashlib.sha256)
    return "d-" + mac.hexdigest()[:32]


def opaque_match_id(master: int | str, match_id: str) -> str:
    """The id bots get instead of ``match_id``: ``m-`` and 16 hex digits of HMAC-SHA256 keyed with the master seed.

    Unique per match and the same on every run and resume, but without the key a bot can
    recover neither the id (which names the bots at its table) nor the key (the seed of
    every deal). ``1`` and ``"1"`` give the same ids, as they give the same deals.
    """
    mac = hmac.new(str(master).encode(), b"cabo-arena/match-id\0" + match_id.encode(), hashlib.sha256)
    return "m-" + mac.hexdigest()[:16]


def play_match_id(seed: int | str) -> str:
    """The id of the one match ``arena play`` plays with deal seed ``seed``: opaque as a tournament's
    (the seed is its key), its own for each seed and the same whenever that seed is played again. A
    bot that seeds its randomness from the match id then plays differently in every match a league
    manager drives through ``arena play``, and the same in a match played again."""
    return opaque_match_id(seed, "play")
