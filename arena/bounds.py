"""The range of every number a user gives the arena: in a tournament file and on the command line.

One place, so that a tournament file and the option that overrides it (``workers`` and ``--workers``,
``time.move_ms`` and ``--move-ms``) agree. The bounds are generous for any real tournament and small
enough that nothing overflows (SQLite and the kernel take 64-bit integers) or runs for ever.
"""

from __future__ import annotations

MAX_SCHEDULE_MATCHES = 2_000_000
"""Most matches a round robin or sampled schedule may hold: the whole schedule is built in memory before
the first match (about 350 bytes and 10 microseconds a match), so more would take gigabytes and minutes
before anything is played. A ladder has no total."""
MAX_CYCLES = 100_000
"""Largest ``cycles``."""
MAX_MOVE_MS = 600_000
"""Largest ``time.move_ms`` and ``time.startup_ms``: ten minutes."""
MAX_BANK_MS = 3_600_000
"""Largest ``time.bank_ms``: an hour."""
MAX_WORKERS = 1024
"""Largest ``workers`` (and ``arena run --workers``): worker processes on one machine."""
MAX_MATCHES_PER_PROCESS = 10_000
"""Largest ``matches_per_process``."""
MAX_FAULTS = 1000
"""Largest ``max_faults``."""
MAX_PLACEMENT_MATCHES = 10_000
"""Largest ``placement_matches``."""
SEED_RANGE = (-(2 ** 63), 2 ** 63 - 1)
"""An integer seed is a 64-bit signed integer."""
LIMIT_MAX = {"cpu_seconds": 86_400, "memory_mb": 1_048_576, "file_size_mb": 1_048_576, "open_files": 1_048_576,
             "processes": 32_768, "tmp_mb": 1_048_576}
"""Largest value of each ``limits`` key: a day of CPU, 1 TiB, the kernel's default ``fs.nr_open`` (the most
open files it allows), its default ``pid_max``."""
RATING_MAX = 1_000_000
"""Largest magnitude of a ``rating`` parameter."""
MAX_HOURS = 87_600.0
"""Largest ``arena run --hours``: ten years; finite, so a run always has an end."""
MAX_RUN_MATCHES = 1_000_000_000
"""Largest ``arena run --matches``."""
MAX_SELFPLAY_MATCHES = 1_000_000
"""Largest ``arena selfplay --matches``."""
MAX_CHECK_MATCHES = 1000
"""Largest ``arena bot check --matches`` (per preset)."""
