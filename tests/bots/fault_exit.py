"""Plays randomly, then exits on the chosen act without answering.

Usage: fault_exit.py [WHEN=3] [STATUS=3] [close]

With ``close`` it closes its stdout instead and keeps running (until killed, or 60 s):
under ``none`` the arena sees the pipe close (an ``exit`` fault); under ``bwrap``,
whose own processes hold the pipe too, only silence (a ``timeout``).
"""
import sys

sys.dont_write_bytecode = True  # keep tests/bots free of __pycache__

import os
import time

from fault_common import Bot, arg


def fault(bot, msg, n):
    sys.stderr.flush()
    if arg(3, "") == "close":
        os.close(1)
        time.sleep(60)
    os._exit(int(arg(2, "3")))


Bot("fault-exit", fault, arg(1, "3")).run()
