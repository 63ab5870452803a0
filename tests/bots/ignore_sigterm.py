"""Ignores SIGTERM and EOF on stdin; only SIGKILL gets rid of it."""
import signal
import sys
import time

signal.signal(signal.SIGTERM, signal.SIG_IGN)
signal.signal(signal.SIGHUP, signal.SIG_IGN)
signal.signal(signal.SIGINT, signal.SIG_IGN)
sys.stdout.write("ready\n")
sys.stdout.flush()
sys.stdin.read()  # returns at EOF; we keep going anyway
while True:
    time.sleep(3600)
