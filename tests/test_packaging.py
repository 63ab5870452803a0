"""An installed arena (a wheel, not this checkout) holds every file the package reads besides its modules."""

from __future__ import annotations

import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_the_wheel_holds_every_data_file_of_the_package(tmp_path: Path) -> None:
    """Templates, assets, starter kits, the luck meter's value file: a file under ``arena/`` that is not a module
    and is missing from the wheel would break ``pip install .`` while every test of the checkout passes."""
    source = tmp_path / "source"  # a copy: a build writes build/ and *.egg-info beside what it builds, and a
    source.mkdir()                # stale build/ would hold files the configuration no longer names
    for name in ("pyproject.toml", "README.md"):
        shutil.copy(ROOT / name, source / name)
    shutil.copytree(ROOT / "arena", source / "arena", ignore=shutil.ignore_patterns("__pycache__"))
    done = subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q",
                           "-w", str(tmp_path / "dist"), str(source)], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    wheel = next((tmp_path / "dist").glob("*.whl"))
    with zipfile.ZipFile(wheel) as archive:
        held = set(archive.namelist())
    data = {str(path.relative_to(ROOT)) for path in (ROOT / "arena").rglob("*")
            if path.is_file() and path.suffix not in (".py", ".pyc") and "__pycache__" not in path.parts}
    assert "arena/luck/values/cabo-v2.json" in data
    assert sorted(data - held) == []
