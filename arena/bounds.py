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
"""Largest magnitude of ``rating.mu``, and largest ``rating.beta``.

Every rating model rates the same when mu, sigma, beta and tau are scaled together (beta, one performance's
noise, is their unit), so sigma and tau are bounded in units of beta (:data:`SIGMA_PER_BETA`), and mu and beta
only so far as a double keeps a rating step: |mu| / beta is at most 10**9, so a step of one beta on a mu of
10**6 keeps about seven significant digits."""
MIN_BETA = 0.001
"""Smallest ``rating.beta``: ratings differ by a few beta, which a board prints to two decimals, so with beta
smaller every difference prints as 0.00; and |mu| / beta would pass the 10**9 of :data:`RATING_MAX`."""
SIGMA_PER_BETA = (0.001, 10.0)
"""Smallest and largest ``rating.sigma``, and largest ``rating.tau``, in units of ``rating.beta``.

Above: TrueSkill divides by the chance of each observed order. A new bot's sigma far above beta spreads the
first matches' mus over many times the spread the later, narrower posteriors expect, and an upset then has a
chance that underflows to 0 (``FloatingPointError``): never at 20 beta, first at 30, on tables of 2, 4 and 5
seats whose order follows fixed skills (``bench/rating_bounds.py``, which also rates at the ends of every range).
10 leaves a factor of 2, also with tau at its largest (a sigma of sqrt(10**2 + 10**2) = 14 beta before a match).
The default is 2.
Below: a rating that moves by less than a thousandth of beta a match never changes a board; it also keeps
TrueSkill's precision 1 / sigma**2 within 10**12 (it overflows below sigma = 1e-154: ``sigma: 1.0e-300``)."""
MAX_DRAW_PROBABILITY = 0.99
"""Largest ``rating.draw_probability``. TrueSkill's draw margin is beta * sqrt(2) * Phi^-1((1 + p) / 2), infinite
once (1 + p) / 2 rounds to 1 (p within 2**-53 of 1), and far above what it meets at the tables before that (a
tie in 99 of 100 pairs; Cabo's seats tie in fewer than 1 in 100)."""
MAX_HOURS = 87_600.0
"""Largest ``arena run --hours``: ten years; finite, so a run always has an end."""
MAX_RUN_MATCHES = 1_000_000_000
"""Largest ``arena run --matches``."""
MAX_SELFPLAY_MATCHES = 1_000_000
"""Largest ``arena selfplay --matches``."""
MAX_CHECK_MATCHES = 1000
"""Largest ``arena bot check --matches`` (per preset)."""
