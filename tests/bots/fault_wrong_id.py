"""Plays randomly, then answers the chosen acts with a legal index but id + OFFSET.

Usage: fault_wrong_id.py [WHEN=3] [OFFSET=7]
"""
import sys

sys.dont_write_bytecode = True  # keep tests/bots free of __pycache__

from fault_common import Bot, arg, send


def fault(bot, msg, n):
    send({"type": "action", "id": msg["id"] + int(arg(2, "7")), "index": 0})


Bot("fault-wrong-id", fault, arg(1, "3")).run()
