"""The package and the benchmarks type-check under the strict mypy settings of pyproject.toml.

Type hints are how readers (and mypy) learn what a function takes; hints that no tool
checks drift into lies, so the suite runs the checker.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_strict_mypy_passes(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "mypy", "--config-file", str(ROOT / "pyproject.toml"),
         "--cache-dir", str(tmp_path / "cache"), "arena", "bench"],
        cwd=ROOT, capture_output=True, text=True, timeout=1800,
    )
    assert done.returncode == 0, done.stdout + done.stderr
