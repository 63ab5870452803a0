"""The one owner of ``results.sqlite``: every SQL statement the arena runs is in this package.

- :mod:`.results`: :class:`ResultStore`, a tournament's finished and voided matches, their logs
  and its ``meta`` (what tournament this directory holds), and the refusal of a damaged file;
- :mod:`.ladder`: :class:`LadderStore`, a ladder's entries, kept ratings and pruned snapshots;
- :mod:`.schema`: the layout and its migrations.

Everything else (the driver, the ladder's rules, ``arena bot log``, the report) asks these
classes by name, so the layout can change in one place and a damaged file is refused the
same way whoever reads it.
"""

from .ladder import LadderStore
from .results import (DB_NAME, REPLAY_DIR, ResultStore, StoreDamaged, StoreMismatch, check_output, connect,
                      decode_match)

__all__ = ["DB_NAME", "REPLAY_DIR", "LadderStore", "ResultStore", "StoreDamaged", "StoreMismatch", "check_output",
           "connect",
           "decode_match"]
