"""Echo bot with a few introspection commands, for round-trip and environment tests."""
import json
import os
import resource
import sys


def main() -> None:
    for raw in sys.stdin.buffer:
        line = raw.rstrip(b"\n").decode("utf-8", "replace")
        cmd, _, arg = line.partition(" ")
        if cmd == "env":
            out = json.dumps(dict(os.environ))
        elif cmd == "cwd":
            out = os.getcwd()
        elif cmd == "limits":
            names = ("RLIMIT_CPU", "RLIMIT_AS", "RLIMIT_FSIZE", "RLIMIT_NOFILE")
            out = json.dumps({n: resource.getrlimit(getattr(resource, n)) for n in names})
        elif cmd == "touch":
            with open(arg, "w") as f:
                f.write("hello\n")
            out = os.path.abspath(arg)
        elif cmd == "read":
            try:
                with open(arg) as f:
                    out = "read: " + f.read().strip()
            except OSError as exc:
                out = f"error: {type(exc).__name__}"
        elif cmd == "noreply":
            continue
        elif cmd == "exit":
            sys.stdout.flush()
            sys.exit(int(arg))
        else:
            out = line
        sys.stdout.write(out + "\n")
        sys.stdout.flush()


main()
