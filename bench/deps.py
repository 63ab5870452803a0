"""What a bot's dependency environment adds to starting it, once that environment is built.

Two Python bots that differ only in where ``pick`` comes from: one defines it, the other
imports it from a package its requirements.txt installs (a local wheel: no network).
Side by side in one run, best of ``--repeats``:

* preparing each bot as a tournament, ``arena play`` or ``arena bot check`` does at start
  (``build_bot``: hashing the declared inputs, finding the built environment), as a fresh
  arena process would (no hashes remembered);
* ``play_match`` of ``--matches`` matches between two copies of each bot under the
  sandbox (default ``auto``): a new process per bot per match, started from the venv,
  with the environment bound into the sandbox.

The overhead per bot is one preparation plus one start more than the plain bot's. Last line:
``deps: start overhead per bot = X s (target <= 0.2)``.
"""

from __future__ import annotations

import argparse
import base64
import hashlib
import os
import sys
import tempfile
import time
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from arena.bots import BotSpec, build_bot, deps, load_bot  # noqa: E402
from arena.bots import cache  # noqa: E402
from arena.game import make_rules  # noqa: E402
from arena.match.runner import MatchJob, play_match  # noqa: E402
from arena.sandbox import resolve_backend  # noqa: E402

TARGET = 0.2
"""Seconds per bot the environment may add to a start."""

BOT = """\
import json
import random
import sys

{pick}

for line in sys.stdin:
    msg = json.loads(line)
    if msg.get("type") == "hello":
        rng = random.Random(f"{{msg.get('match')}}/{{msg.get('seat')}}")
        print(json.dumps({{"type": "ready", "name": "bench"}}), flush=True)
    elif msg.get("type") == "act":
        print(json.dumps({{"type": "action", "id": msg["id"], "index": pick(msg["legal"], rng)}}), flush=True)
"""
PICK = "def pick(legal, rng):\n    return rng.randrange(len(legal))\n"


def wheel(folder: Path) -> None:
    """``benchdep-1.0``, a pure-Python wheel with ``pick``: a zip with METADATA, WHEEL and RECORD."""
    info = "benchdep-1.0.dist-info"
    files = {"benchdep/__init__.py": PICK.encode(),
             f"{info}/METADATA": b"Metadata-Version: 2.1\nName: benchdep\nVersion: 1.0\n",
             f"{info}/WHEEL": b"Wheel-Version: 1.0\nGenerator: bench\nRoot-Is-Purelib: true\nTag: py3-none-any\n"}
    lines = [f"{p},sha256={base64.urlsafe_b64encode(hashlib.sha256(d).digest()).rstrip(b'=').decode()},{len(d)}"
             for p, d in files.items()]
    files[f"{info}/RECORD"] = "\n".join([*lines, f"{info}/RECORD,,", ""]).encode()
    folder.mkdir(parents=True)
    with zipfile.ZipFile(folder / "benchdep-1.0-py3-none-any.whl", "w") as archive:
        for name, data in files.items():
            archive.writestr(name, data)


def make_bots(tmp: Path) -> tuple[BotSpec, BotSpec]:
    """The plain bot and the one with a dependency, both readable by a sandboxed bot's user."""
    plain, withdep = tmp / "plain", tmp / "withdep"
    for directory, pick in ((plain, PICK), (withdep, "from benchdep import pick")):
        directory.mkdir(parents=True)
        (directory / "bot.py").write_text(BOT.format(pick=pick))
        (directory / "bot.yaml").write_text(f'name: {directory.name}\nrun: ["{{python}}", "bot.py"]\n'
                                            'build: "{python} -m compileall -q ."\n')
    wheel(withdep / "wheels")
    (withdep / "requirements.txt").write_text("--no-index\n--find-links wheels\nbenchdep==1.0\n")
    for where, dirs, _ in os.walk(tmp):
        os.chmod(where, 0o755)
    return load_bot(str(plain)), load_bot(str(withdep))


def prepare_seconds(spec: BotSpec, repeats: int) -> float:
    """The fastest ``build_bot`` of an already built bot, as at the start of a new arena process."""
    best = float("inf")
    for _ in range(repeats):
        deps._DIGESTS.clear()
        begun = time.perf_counter()
        build_bot(spec)
        best = min(best, time.perf_counter() - begun)
    return best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--matches", type=int, default=20, help="matches per measurement")
    parser.add_argument("--repeats", type=int, default=5, help="measurements of each bot; the fastest counts")
    parser.add_argument("--sandbox", default="auto")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        os.environ[cache.ENV_VAR] = os.path.join(tmp, "cache")  # a private cache: built below, then reused
        os.chmod(tmp, 0o755)
        plain, withdep = make_bots(Path(tmp) / "bots")
        begun = time.perf_counter()
        for spec in (plain, withdep):
            build_bot(spec)
        print(f"first build of both bots (venv, pip install of a local wheel, compileall): "
              f"{time.perf_counter() - begun:.2f} s")
        backend, _ = resolve_backend(args.sandbox)
        rules = make_rules("standard")
        best = {"plain": float("inf"), "withdep": float("inf")}
        for repeat in range(args.repeats):
            for spec in (plain, withdep):
                pair = (spec, load_bot(spec.directory or "", name=f"{spec.name}-2"))
                begun = time.perf_counter()
                for number in range(args.matches):
                    job = MatchJob(f"bench-{repeat}-{number}", rules, number, pair, sandbox=backend.name)
                    outcome = play_match(job)
                    assert outcome.faults == (), outcome.faults
                best[spec.name] = min(best[spec.name], time.perf_counter() - begun)
        starts = 2 * args.matches
        per_start = (best["withdep"] - best["plain"]) / starts
        prepare = prepare_seconds(withdep, args.repeats) - prepare_seconds(plain, args.repeats)
        print(f"sandbox {backend.name}, {args.matches} matches of 2 bots, best of {args.repeats}: "
              f"plain {best['plain']:.3f} s, with a dependency {best['withdep']:.3f} s "
              f"-> {1000 * per_start:+.1f} ms per bot start")
        print(f"preparing an already built bot at arena start: {1000 * prepare:+.2f} ms over the plain bot")
        print(f"deps: start overhead per bot = {max(0.0, prepare + per_start):.3f} s (target <= {TARGET})")


if __name__ == "__main__":
    main()
