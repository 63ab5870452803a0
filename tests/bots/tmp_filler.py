"""Writes 1 MiB files into its private tmp until a write fails (or 64 MiB are written),
then prints ``wrote N (reason)`` and waits to be killed."""
import os
import time

CHUNK = b"x" * (1 << 20)
written = 0
reason = "bound reached"
for n in range(64):
    try:
        with open(os.path.join(os.environ.get("TMPDIR", "."), f"fill-{n}"), "wb") as f:
            written += f.write(CHUNK)
    except OSError as exc:
        reason = exc.strerror or str(exc)
        break
print(f"wrote {written} ({reason})", flush=True)
time.sleep(60)
