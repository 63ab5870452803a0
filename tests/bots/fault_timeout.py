"""Plays randomly, then on the chosen acts sleeps FACTOR x move_ms before answering (late).

Usage: fault_timeout.py [WHEN=3] [FACTOR=2.5] [PHASES]
The late answer carries the right id; a FACTOR below 1 makes a slow but in-time bot.
PHASES (comma list, e.g. ``look_initial,claim``) restricts counting and sleeping to those phases.
"""
import sys

sys.dont_write_bytecode = True  # keep tests/bots free of __pycache__

import time

from fault_common import Bot, arg


def fault(bot, msg, n):
    time.sleep(bot.move_ms * float(arg(2, "2.5")) / 1000.0)
    bot.answer(msg)


Bot("fault-timeout", fault, arg(1, "3"), arg(3, "")).run()
