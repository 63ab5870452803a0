"""Plays randomly, then exits on the chosen act without answering.

Usage: fault_exit.py [WHEN=3] [STATUS=3]
"""
import sys

sys.dont_write_bytecode = True  # keep tests/bots free of __pycache__

import os

from fault_common import Bot, arg


def fault(bot, msg, n):
    sys.stderr.flush()
    os._exit(int(arg(2, "3")))


Bot("fault-exit", fault, arg(1, "3")).run()
