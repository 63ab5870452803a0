"""Plays like bots/random, then takes SECONDS to exit after stdin closes (cleanup work).

Usage: slow_exit.py [SECONDS=0.5]
"""
import sys

sys.dont_write_bytecode = True  # keep tests/bots free of __pycache__

import time

from fault_common import Bot, arg

Bot("slow-exit", lambda bot, msg, n: None, "0").run()
time.sleep(float(arg(1, "0.5")))
