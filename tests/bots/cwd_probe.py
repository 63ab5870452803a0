"""Answers one command a line about its working directory and private tmp: ``cwd``, ``env`` (HOME, TMPDIR,
PWD as JSON), ``read PATH`` (``read: `` and the file's first line), ``write PATH`` (``wrote `` and its
absolute path); a failure is ``error: <exception>: <strerror>``. Copied into a bot directory by the tests."""
import json
import os
import sys

for line in sys.stdin:
    cmd, _, arg = line.strip().partition(" ")
    try:
        if cmd == "cwd":
            out = os.getcwd()
        elif cmd == "env":
            out = json.dumps({k: os.environ.get(k) for k in ("HOME", "TMPDIR", "PWD")})
        elif cmd == "read":
            with open(arg) as f:
                out = "read: " + f.readline().strip()
        else:
            with open(arg, "w") as f:
                f.write("written\n")
            out = "wrote " + os.path.abspath(arg)
    except OSError as exc:
        out = f"error: {type(exc).__name__}: {exc.strerror}"
    print(out, flush=True)
