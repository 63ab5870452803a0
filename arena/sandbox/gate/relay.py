"""The inside end of the fetch gate: runs in the fetch step's sandbox, before pip.

Usage: ``python relay.py GATE_SOCKET -- COMMAND ...``. It listens on the sandbox's own
loopback, points the command's proxy settings there and carries each connection to the
gate's Unix socket, bound into the sandbox; it exits with the command's status. Standard
library only, for whatever Python runs pip (the arena's, or a container's, perhaps older).
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import threading

PROXY_VARIABLES = ("HTTP_PROXY", "HTTPS_PROXY", "http_proxy", "https_proxy", "PIP_PROXY",
                   "npm_config_proxy", "npm_config_https_proxy")
NO_PROXY_VARIABLES = ("NO_PROXY", "no_proxy", "npm_config_noproxy", "ALL_PROXY", "all_proxy")


def main(argv: list[str]) -> int:
    if len(argv) < 4 or argv[2] != "--":
        sys.stderr.write("usage: relay.py GATE_SOCKET -- COMMAND ...\n")
        return 2
    gate, command = argv[1], argv[3:]
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(64)
    proxy = "http://127.0.0.1:%d" % listener.getsockname()[1]
    env = dict(os.environ)
    env.update({name: proxy for name in PROXY_VARIABLES})
    env.update({name: "" for name in NO_PROXY_VARIABLES})
    threading.Thread(target=serve, args=(listener, gate), daemon=True).start()
    try:
        child = subprocess.Popen(command, env=env)
    except OSError as exc:
        sys.stderr.write("cannot run %s: %s\n" % (command[0], exc))
        return 127
    code = child.wait()
    return code if code >= 0 else 128 - code


def serve(listener: socket.socket, gate: str) -> None:
    while True:
        client, _ = listener.accept()
        threading.Thread(target=link, args=(client, gate), daemon=True).start()


def link(client: socket.socket, gate: str) -> None:
    upstream = socket.socket(socket.AF_UNIX)
    try:
        upstream.connect(gate)
    except OSError:
        client.close()
        upstream.close()
        return
    back = threading.Thread(target=copy, args=(upstream, client), daemon=True)
    back.start()
    copy(client, upstream)
    back.join()
    client.close()
    upstream.close()


def copy(source: socket.socket, target: socket.socket) -> None:
    try:
        while True:
            data = source.recv(65536)
            if not data:
                break
            target.sendall(data)
        target.shutdown(socket.SHUT_WR)
    except OSError:
        source.close()
        target.close()


if __name__ == "__main__":
    sys.exit(main(sys.argv))
