"""Forks children that fork in turn until forking fails (or 2,000 processes exist), then
reports how many it made and keeps them all alive.

The children sleep rather than spin, so without a process cap the test stays bounded and
the machine usable; the tree is killed by the arena. Prints ``forked N`` (N = processes
made, this one excluded) once forking failed or the bound was reached.
"""
import os
import sys
import time

BOUND = 2000
made = 0
failed = ""
while made < BOUND:
    try:
        pid = os.fork()
    except OSError as exc:
        failed = f" ({exc.strerror})"
        break
    if pid == 0:
        time.sleep(120)
        os._exit(0)
    made += 1
sys.stdout.write(f"forked {made}{failed}\n")
sys.stdout.flush()
time.sleep(120)
