"""``arena compare NEW OLD``: is a new version of a bot better than the old one?

Three parts, each alone: :mod:`.sprt` is the sequential test on paired differences (pure, no
playing, so its error rates can be measured in-process by ``bench/compare.py``); :mod:`.play`
plays the paired deals on the arena's worker processes; the command in :mod:`arena.cli` joins
them and prints the verdict.
"""
