"""The submission server under load: 50 uploads at once beside a running ladder.

A ladder of the four bundled bots (tables of 4, ``bwrap``, 2 workers) plays ``--matches`` (120)
matches with ``arena serve LADDER.yaml`` running beside it, twice per round, each time in a fresh
output directory: once with the server idle, once while ``--uploads`` (50) authors each upload a
bot at the same moment over loopback (each author their own token and bot, so the per-author rate
limit lets every one through to the queue). Rounds alternate the order; the best of ``--runs`` (2)
of each counts.

Printed: what the uploads were answered (202 queued, 503 queue full, ...), that the server still
answers afterwards, the ladder's wall time each way, and the CPU the server used while the ladder
played (its own and its checks', from /proc). Last line: ``server: ladder slowdown/server CPU = R``:
the seconds the uploads added to the ladder's run over the CPU seconds the server spent meanwhile
(R <= 1: the uploads slowed the matches by no more than their own CPU).
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from arena.server.archive import pack  # noqa: E402
from tests.server.live import ServerProcess, add_author, copy_bot  # noqa: E402

FIELD = ("random", "heuristic", "js-greedy", "c-random")
TICKS = os.sysconf("SC_CLK_TCK")


def cpu_of(pid: int) -> float:
    """CPU seconds of a process and of the children it has waited for (its checks' bots)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return sum(int(fields[i]) for i in (11, 12, 13, 14)) / TICKS


def write_ladder(home: Path, name: str) -> Path:
    lines = [f"name: {name}", "schedule: ladder", "seats: 4", "seed: 7", "sandbox: bwrap", "workers: 2",
             f"output: {home / name}", "bots:"] + [f"  - {ROOT / 'bots' / bot}" for bot in FIELD]
    path = home / f"{name}.yaml"
    path.write_text("\n".join(lines) + "\n")
    return path


def answers(server: ServerProcess) -> bool:
    """True if the server still answers a request (``/api/me`` without a token: 401)."""
    try:
        with urllib.request.urlopen(server.url + "/api/me", timeout=10) as answer:
            return bool(answer.status)
    except urllib.error.HTTPError as exc:
        return exc.code == 401
    except (urllib.error.URLError, OSError):
        return False


def upload(url: str, token: str, data: bytes, got: list[int]) -> None:
    request = urllib.request.Request(url + "/api/bots", data=data, method="POST",
                                     headers={"Authorization": f"Bearer {token}", "Content-Type": "application/gzip"})
    try:
        with urllib.request.urlopen(request, timeout=120) as answer:
            got.append(answer.status)
    except urllib.error.HTTPError as exc:
        got.append(exc.code)
    except (urllib.error.URLError, OSError):
        got.append(0)


def one_run(home: Path, matches: int, uploads: int, tag: str) -> tuple[float, float, Counter[int], bool]:
    """The ladder's wall time, the server's CPU meanwhile, the uploads' answers, whether it answered after."""
    ladder = write_ladder(home, tag)
    tokens = [add_author(ladder, f"a{i:02d}") for i in range(uploads)]
    archives = [pack(copy_bot(home / f"{tag}-authors" / f"a{i:02d}", f"b{i:02d}")) for i in range(uploads)]
    server = ServerProcess(ladder, home / f"{tag}.log")
    try:
        got: list[int] = []
        threads = [threading.Thread(target=upload, args=(server.url, token, data, got))
                   for token, data in zip(tokens, archives)]
        cpu = cpu_of(server.proc.pid)
        start = time.perf_counter()
        run = subprocess.Popen([sys.executable, "-m", "arena.cli", "run", str(ladder), "--matches", str(matches),
                                "--no-report"], cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        time.sleep(0.5)  # the ladder's workers are playing
        for thread in threads:
            thread.start()
        assert run.wait() == 0, f"the ladder run failed ({tag})"
        wall = time.perf_counter() - start
        spent = cpu_of(server.proc.pid) - cpu
        for thread in threads:
            thread.join()
        return wall, spent, Counter(got), answers(server)
    finally:
        server.stop()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--matches", type=int, default=120)
    parser.add_argument("--uploads", type=int, default=50)
    parser.add_argument("--runs", type=int, default=2)
    args = parser.parse_args()
    if shutil.which("bwrap") is None:
        sys.exit("bench/server.py plays under bwrap: apt-get install bubblewrap")
    best: dict[str, tuple[float, float]] = {}
    with tempfile.TemporaryDirectory() as tmp:
        for number in range(args.runs):
            order = ("idle", "loaded") if number % 2 == 0 else ("loaded", "idle")
            for kind in order:
                home = Path(tmp) / f"{kind}{number}"
                home.mkdir()
                wall, spent, answered, alive = one_run(home, args.matches, args.uploads if kind == "loaded" else 0,
                                                       f"{kind}{number}")
                said = ", ".join(f"{n} x {code or 'no answer'}" for code, n in sorted(answered.items())) or "none"
                print(f"{kind}: {args.matches} ladder matches in {wall:.2f} s; server CPU meanwhile {spent:.2f} s; "
                      f"uploads answered: {said}; server answers afterwards: {'yes' if alive else 'NO'}", flush=True)
                if kind not in best or wall < best[kind][0]:
                    best[kind] = (wall, spent)
    slowdown = best["loaded"][0] - best["idle"][0]
    print(f"best of {args.runs}: ladder alone {best['idle'][0]:.2f} s, with {args.uploads} uploads "
          f"{best['loaded'][0]:.2f} s (+{slowdown:.2f} s); the server's CPU meanwhile {best['loaded'][1]:.2f} s")
    print(f"server: ladder slowdown/server CPU = {max(slowdown, 0.0) / max(best['loaded'][1], 1e-9):.2f}")


if __name__ == "__main__":
    main()
