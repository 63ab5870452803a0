"""Bot manifests: the build step's ``{python}`` and the bytecode the bundled Python bots ship."""

from __future__ import annotations

import os
import stat
import sys
from pathlib import Path

from arena.bots import build_bot, load_bot
from arena.bots.spec import bot_python

ROOT = Path(__file__).resolve().parents[1]


def test_python_placeholder_in_build_is_the_bots_interpreter(tmp_path: Path) -> None:
    (tmp_path / "bot.yaml").write_text(
        "name: p\nbuild: \"{python} -c 'import sys; open(\\\"built\\\", \\\"w\\\").write(sys.executable)'\"\n"
        "run: [\"{python}\", \"bot.py\"]\n")
    (tmp_path / "bot.py").write_text("")
    build_bot(load_bot(str(tmp_path)))
    assert (tmp_path / "built").read_text() == bot_python()


def test_bundled_python_bots_build_bytecode_a_sandboxed_bot_can_read() -> None:
    """Under bwrap a bot runs as another user: unreadable or missing bytecode means compiling at every start."""
    for name in ("random", "heuristic"):
        build_bot(load_bot(str(ROOT / "bots" / name)))
    tag = sys.implementation.cache_tag if bot_python() == sys.executable else None
    for module in (ROOT / "bots" / "lib" / "cabo_bot.py", ROOT / "bots" / "heuristic" / "strategy.py"):
        cache = module.parent / "__pycache__"
        compiled = [p for p in cache.glob(f"{module.stem}.*.pyc") if tag is None or tag in p.name]
        assert compiled, f"no bytecode for {module}"
        for path in (cache, *compiled):
            mode = os.stat(path).st_mode
            assert mode & stat.S_IROTH, f"{path} is not readable by other users ({oct(mode)})"
        assert all(p.stat().st_mtime >= module.stat().st_mtime for p in compiled)
