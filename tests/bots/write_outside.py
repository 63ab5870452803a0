"""Tries to create each path given on the command line; prints {path: "ok" | "error: ..."}."""
import json
import sys

result = {}
for path in sys.argv[1:]:
    try:
        with open(path, "w") as f:
            f.write("pwned\n")
        result[path] = "ok"
    except OSError as exc:
        result[path] = f"error: {exc}"
sys.stdout.write(json.dumps(result) + "\n")
sys.stdout.flush()
sys.stdin.read()
