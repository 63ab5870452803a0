"""A process chain that forks and exits without pause, so its pid keeps changing. Argv: MARKER.

The classic way to dodge a killer that reads a pid list and then signals it. The main
process reaps the chain's corpses (it is their subreaper under the none backend).
"""
import os
import sys

sys.stdout.write("ready\n")
sys.stdout.flush()
if os.fork() == 0:
    while True:
        try:
            if os.fork() > 0:
                os._exit(0)
        except OSError:
            pass
while True:
    try:
        os.wait()
    except ChildProcessError:
        pass
