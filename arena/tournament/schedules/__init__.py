"""The schedules a tournament can follow, each a kind behind one registry, all behind one interface.

The driver asks a schedule (:class:`.base.Schedule`) for batches of matches and tells it
which finished; it never looks at which schedule it has. Each value of ``schedule:`` is a
kind (:class:`.kind.ScheduleKind`) in a module of its own: ``round_robin`` (every table, the
default) and ``sampled`` (a given number of balanced tables) are known in full before the first
match and share :mod:`.fixed`; ``ladder`` is open-ended, fed with bots while a run is going
(its matchmaking is :mod:`.matchmaking`). A kind declares its config keys, its fingerprint part,
how its schedule is built and the hooks a run calls; :mod:`.registry` finds it by name.
"""

ROUND_ROBIN = "round_robin"
"""Every table of every size, every cycle (the default)."""
SAMPLED = "sampled"
"""``tables`` tables, chosen so that bots play equally often and meet evenly."""
LADDER = "ladder"
"""Open-ended: bots are submitted and retired while it runs; tables are drawn from the ratings so far."""
