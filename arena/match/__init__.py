"""The match layer: one match between bot processes, from bytes to a result, in four steps.

Layered as python-chess layers an engine: :mod:`arena.sandbox` (below this package) moves
bytes and lines to and from a bot process by a deadline and knows nothing of JSON;
:mod:`.protocol` knows the JSON lines (it builds every message and validates every reply) and
nothing of processes; :mod:`.link` (:class:`~.link.BotLink`) asks one seat for an action by a
deadline over a channel and turns every transport or protocol failure into a
:class:`~.faults.BotFault`; :mod:`.runner` referees a match: it takes a picklable
:class:`~.runner.MatchJob`, applies the moves to the game the job names (through the seam,
:mod:`arena.game.seam`; Cabo or any registered game), plays the game's
:mod:`.fallback` policy for a faulted seat under the fault policy, and returns a
:class:`~.runner.MatchOutcome`. Beside them: :mod:`.faults` (what a bot did wrong, in plain
words), :mod:`.seatlog` (a seat's stderr stamped with decisions), :mod:`.helpermark` (the
starter kits' fallback lines in that stderr), :mod:`.replay_notes` (the arena's records in a
replay), :mod:`.seeds` (deal seeds and the ids bots see, derived from a master seed: one
match's, a tournament's and ``arena play``'s alike) and :mod:`.account` (the plain-text account of an outcome or a replay, for the command
line; "report" is only the web site, :mod:`arena.site`). Tournaments (:mod:`arena.tournament`,
:mod:`arena.cluster`) sit above and only hand jobs in and take outcomes out. Two neighbours
are deliberately not here: :mod:`arena.authoring` (``arena bot check`` and its diagnoses) is
a bot author's tool built on this layer, not part of refereeing; :mod:`arena.selfplay` plays
the engine alone, random legal actions with no bot process, so it stays beside the CLI that
runs it. Nothing is imported here, so that importing one module (``faults`` in a worker, say)
loads only what it needs.
"""
