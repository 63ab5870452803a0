"""Writes to stdout forever without ever writing a newline."""
import os

chunk = b"x" * 65536
while True:
    os.write(1, chunk)
