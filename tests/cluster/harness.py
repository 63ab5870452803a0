"""Real Dask schedulers and workers on loopback for the cluster tests: each worker in its own empty
working directory with its own arena cache, so nothing reaches a worker but what Dask carries."""

from __future__ import annotations

import os
import shutil
import signal
import socket
import sqlite3
import subprocess
import sys
import threading
import time
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator

import pytest

from .harness_paths import BOTS, copy_bots, reference, results, stored, write_tournament

__all__ = ["BOTS", "Cluster", "copy_bots", "make_tls", "reference", "results", "stored", "watched_cluster", "write_tournament"]

DASK = Path(sys.executable).with_name("dask")
WATCHDOG_SECONDS = 150
"""A test still running after this long has hung: its cluster is shut down, so the run it waits on stops
with "lost the Dask scheduler" and the test fails, instead of holding the whole suite."""

pytest.importorskip("distributed")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class Cluster:
    """A ``dask scheduler`` and ``dask worker`` processes; :meth:`close` kills whatever is left."""

    def __init__(self, root: Path, tls: list[str] | None = None) -> None:
        """``tls``: the ``--tls-ca-file/--tls-cert/--tls-key`` options every process gets (a ``tls://`` cluster)."""
        self.root = root
        self.port = free_port()
        self.tls = tls or []
        self.address = f"{'tls' if tls else 'tcp'}://127.0.0.1:{self.port}"
        self.scheduler: subprocess.Popen[bytes] | None = None
        self.workers: list[subprocess.Popen[bytes]] = []
        self.worker_dirs: list[Path] = []

    def start_scheduler(self, **env_vars: str) -> None:
        log = open(self.root / f"scheduler-{self.port}.log", "ab")
        self.scheduler = subprocess.Popen([str(DASK), "scheduler", "--host", "127.0.0.1", "--port", str(self.port),
                                           "--no-dashboard", *self.tls], stdout=log, stderr=log, cwd=self.root,
                                          env={**os.environ, **env_vars}, start_new_session=True)

    def start_worker(self, name: str, nanny: bool = False, **env_vars: str) -> None:
        """A single-threaded worker in an empty directory (``nanny``: under a nanny that restarts it when it dies,
        as ``dask worker`` runs by default)."""
        cwd = self.root / name
        cwd.mkdir()
        env = {**os.environ, "ARENA_CACHE": str(cwd / "cache"), **env_vars}
        log = open(self.root / f"{name}.log", "ab")
        self.workers.append(subprocess.Popen(
            [str(DASK), "worker", self.address, "--nworkers", "1", "--nthreads", "1",
             *([] if nanny else ["--no-nanny"]), "--no-dashboard", "--host", "127.0.0.1", "--name", name, *self.tls],
            stdout=log, stderr=log, cwd=cwd, env=env, start_new_session=True))
        self.worker_dirs.append(cwd)

    def start(self, workers: int = 2, nanny: bool = False, scheduler_env: dict[str, str] | None = None,
              **env_vars: str) -> "Cluster":
        self.start_scheduler(**(scheduler_env or {}))
        for n in range(workers):
            self.start_worker(f"w{len(self.worker_dirs)}", nanny, **env_vars)
        self.wait_for(workers)
        return self

    def wait_for(self, workers: int, timeout: float = 300.0) -> None:
        from distributed import Client

        until = time.monotonic() + timeout
        with Client(self.address, timeout=timeout) as client:
            while len(client.scheduler_info(n_workers=-1)["workers"]) < workers:
                if time.monotonic() > until:
                    raise TimeoutError(f"{workers} Dask workers did not come up; logs in {self.root}")
                time.sleep(0.1)

    def kill(self, process: subprocess.Popen[bytes] | None) -> None:
        if process is not None and process.poll() is None:
            try:
                os.killpg(process.pid, signal.SIGKILL)  # the worker and the bots it started
            except ProcessLookupError:
                pass
            process.wait(timeout=10)

    def close(self) -> None:
        for process in [*self.workers, self.scheduler]:
            self.kill(process)
        self.workers = []
        self.scheduler = None


@contextmanager
def watched_cluster(tmp_path: Path, tls: list[str] | None = None) -> Iterator[Cluster]:
    """A cluster (not started yet) under ``tmp_path/cluster``, shut down at the end or after
    :data:`WATCHDOG_SECONDS`, whichever comes first."""
    root = tmp_path / "cluster"
    root.mkdir()
    cluster = Cluster(root, tls)
    watchdog = threading.Timer(WATCHDOG_SECONDS, cluster.close)
    watchdog.daemon = True
    watchdog.start()
    try:
        yield cluster
    finally:
        watchdog.cancel()
        cluster.close()


def make_tls(folder: Path) -> dict[str, Path]:
    """A throwaway CA and one certificate for 127.0.0.1 signed by it, made with openssl: ``ca``, ``cert``, ``key``."""
    if shutil.which("openssl") is None:
        pytest.skip("needs openssl to make test certificates (Debian: apt-get install openssl)")
    folder.mkdir()
    (folder / "ext.cnf").write_text("subjectAltName=IP:127.0.0.1\n")
    for command in (
            ["req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", "ca.key", "-out", "ca.pem", "-days", "2",
             "-subj", "/CN=cabo-arena test CA"],
            ["req", "-newkey", "rsa:2048", "-nodes", "-keyout", "node.key", "-out", "node.csr", "-subj", "/CN=127.0.0.1"],
            ["x509", "-req", "-in", "node.csr", "-CA", "ca.pem", "-CAkey", "ca.key", "-CAcreateserial", "-out",
             "node.pem", "-days", "2", "-extfile", "ext.cnf"]):
        subprocess.run(["openssl", *command], cwd=folder, check=True, capture_output=True, timeout=60)
    return {"ca": folder / "ca.pem", "cert": folder / "node.pem", "key": folder / "node.key"}
