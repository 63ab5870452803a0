"""Plays randomly, then answers the chosen acts with JSON that is not an object (``[1,2]``).

Usage: fault_not_object.py [WHEN=3]
"""
import sys

sys.dont_write_bytecode = True  # keep tests/bots free of __pycache__

from fault_common import Bot, arg, send_bytes


def fault(bot, msg, n):
    send_bytes(b"[1,2]\n")


Bot("fault-not-object", fault, arg(1, "3")).run()
