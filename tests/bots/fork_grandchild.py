"""Forks a child that forks a sleeping grandchild; all three ignore SIGTERM. Argv: MARKER."""
import os
import signal
import sys
import time

signal.signal(signal.SIGTERM, signal.SIG_IGN)
ready_r, ready_w = os.pipe()
if os.fork() == 0:
    if os.fork() == 0:
        os.close(ready_r)
        os.write(ready_w, f"{os.getpid()}".encode())
        os.close(ready_w)
        time.sleep(3600)
        os._exit(0)
    time.sleep(3600)
    os._exit(0)
os.close(ready_w)
grandchild = os.read(ready_r, 64).decode()
sys.stdout.write(f"ready {grandchild}\n")
sys.stdout.flush()
for raw in sys.stdin.buffer:
    sys.stdout.buffer.write(raw)
    sys.stdout.flush()
time.sleep(3600)
