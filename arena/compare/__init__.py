"""``arena compare NEW OLD``: is a new version of a bot better than the old one?

Three parts, each alone: :mod:`.stats` is the question, fishtest's SPRT on the paired gains, asked
through :mod:`arena.evidence.sequential` (pure, no playing, so its error rates can be measured
in-process by ``bench/compare.py``); :mod:`.play` plays the paired deals on the arena's worker
processes; :mod:`.run` joins them and writes the lines, and the command in :mod:`arena.cli` prints
the verdict.
"""
