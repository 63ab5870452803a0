"""Plays randomly, then kills its parent (under ``sandbox: none``, the arena's worker process) with SIGKILL.

Usage: kill_worker.py [WHEN=1] [SIGNAL=KILL]

WHEN picks the acts as for every fault bot (``1``: the first act of each match). The
kill is deterministic, so a tournament with this bot voids the same matches whatever
the number of workers.
"""
import sys

sys.dont_write_bytecode = True  # keep tests/bots free of __pycache__

import os
import signal
import time

from fault_common import Bot, arg


def fault(bot, msg, n):
    sys.stderr.flush()
    os.kill(os.getppid(), getattr(signal, "SIG" + arg(2, "KILL")))
    time.sleep(5)  # the worker's death takes this process along (it is its parent-death signal)


Bot("kill-worker", fault, arg(1, "1")).run()
