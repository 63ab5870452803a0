"""Announces itself, then never reads stdin, so the arena's writes fill the pipe."""
import sys
import time

sys.stdout.write("ready\n")
sys.stdout.flush()
time.sleep(3600)
