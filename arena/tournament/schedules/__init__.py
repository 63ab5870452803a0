"""The schedules a tournament can follow, all behind one interface (:class:`.base.Schedule`).

The driver asks a schedule for batches of matches and tells it which finished; it
never looks at which schedule it has. ``round_robin`` (every table) and ``sampled``
(a given number of balanced tables) are known in full before the first match and
share :class:`.fixed.FixedSchedule`; an open-ended schedule (a ladder, fed with bots
while a run is going) goes behind the same interface. :func:`.build.schedule_for`
picks the one a configuration names.
"""

ROUND_ROBIN = "round_robin"
"""Every table of every size, every cycle (the default)."""
SAMPLED = "sampled"
"""``tables`` tables, chosen so that bots play equally often and meet evenly."""
LADDER = "ladder"
"""Open-ended: bots are submitted and retired while it runs; tables are drawn from the ratings so far."""
KINDS = (ROUND_ROBIN, SAMPLED, LADDER)
"""The values ``schedule`` may take, the default first."""
NOT_YET: tuple[str, ...] = ()
"""Schedule names kept for schedules to come: refused with a message saying so, not as typos."""
