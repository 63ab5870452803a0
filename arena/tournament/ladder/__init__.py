"""A living ladder: bots submitted and retired while ``arena run`` plays, rated as they go.

:mod:`.entries` is the field in ``results.sqlite``; :mod:`.snapshot` copies a bot's files
so that what was rated is what stays on disk; :mod:`.submit` checks and enters a bot;
:mod:`.lock` keeps one run per ladder; :mod:`.board` is its leaderboard; :mod:`.tables` finds
the tables a new version replays and :mod:`.paired` says on the board how it did there
against the old one. The matchmaking is :mod:`.matchmaking`, behind the same
interface as every schedule; :mod:`.kind` declares the kind: its keys and the
hooks a run calls (lock, starting field, kept ratings, board).
"""
