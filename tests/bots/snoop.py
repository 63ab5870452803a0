"""Tries to read, write and reach what a bot must not, then exits 3 without playing.

Argv: paths to try to read besides the fixed ones (a file under the arena's working
directory, another bot's directory, the results directory). Each attempt is reported
on stderr as one line, ``SNOOP <name> ok|denied <detail>``, with at most 60 characters
of what was read, so a test (or a person reading the fault's stderr tail) can see
exactly what got through.
"""
import ctypes
import os
import socket
import sys

CLONE_NEWUSER = 0x10000000


def read(path: str) -> str:
    if os.path.isdir(path):
        return " ".join(sorted(os.listdir(path)))
    with open(path, "rb") as f:
        return f.read(4096).decode("utf-8", "replace")


def write_outside() -> str:
    for path in ("/usr/snoop", "/snoop", "/etc/snoop"):
        try:
            with open(path, "w") as f:
                f.write("x")
            return f"wrote {path}"
        except OSError:
            continue
    raise PermissionError("no path outside /tmp is writable")


def connect(host: str, port: int) -> str:
    with socket.create_connection((host, port), timeout=2):
        return "connected"


def user_namespace() -> str:
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.unshare(CLONE_NEWUSER) != 0:
        raise OSError(ctypes.get_errno(), os.strerror(ctypes.get_errno()))
    return "created a user namespace"


def report(name: str, fn, *args) -> None:
    try:
        got = fn(*args)
        outcome = "ok " + " ".join(str(got).split())[:60]
    except BaseException as exc:  # every failure is an outcome to report
        outcome = f"denied {type(exc).__name__}: {exc}"[:160]
    sys.stderr.write(f"SNOOP {name} {outcome}\n")


attempts = [
    ("shadow", read, "/etc/shadow"),
    ("root", read, "/root"),
    ("home", read, "/home"),
    ("proc1_environ", read, "/proc/1/environ"),
    ("write_outside_tmp", write_outside),
    ("connect_loopback", connect, "127.0.0.1", 22),
    ("connect_public", connect, "1.1.1.1", 53),
    ("user_namespace", user_namespace),
]
attempts += [(f"arg{i}", read, path) for i, path in enumerate(sys.argv[1:])]
for attempt in attempts:
    report(*attempt)
sys.stderr.flush()
sys.exit(3)
