"""Daemonises a grandchild the classic way: fork, setsid, fork, let the middle one exit.

Argv: MARKER (digits) [--scrub-env] [--main-exits]
--scrub-env   the grandchild execs /bin/sleep with an EMPTY environment (drops the
              arena's token); its argv carries MARKER so tests can still find it.
--main-exits  the main process prints "ready" and exits right away (orphans remain).
"""
import os
import signal
import sys
import time

marker = sys.argv[1]
scrub = "--scrub-env" in sys.argv
main_exits = "--main-exits" in sys.argv

# The pipe is close-on-exec: EOF arrives once the middle process has exited and the
# grandchild has exec'd (or closed it), so "ready" means the daemon is in place.
r, w = os.pipe()
if os.fork() == 0:
    os.close(r)
    os.setsid()
    if os.fork() == 0:
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
        signal.signal(signal.SIGHUP, signal.SIG_IGN)
        os.write(w, f"{os.getpid()}".encode())
        if scrub:
            os.execve("/bin/sleep", ["sleep", f"3600.{marker}"], {})
        os.close(w)
        time.sleep(3600)
        os._exit(0)
    os._exit(0)
os.close(w)
pid = b""
while True:
    chunk = os.read(r, 64)
    if not chunk:
        break
    pid += chunk
os.wait()  # reap the middle process
sys.stdout.write(f"ready {pid.decode()}\n")
sys.stdout.flush()
if main_exits:
    sys.exit(0)
for raw in sys.stdin.buffer:
    sys.stdout.buffer.write(raw)
    sys.stdout.flush()
time.sleep(3600)
