"""Sleeps through startup: never reads stdin, never writes stdout."""
import time

time.sleep(3600)
