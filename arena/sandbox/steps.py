"""Install and build steps: commands run on a bot's behalf before it plays, walled in like its matches.

pip, npm and a manifest's ``build`` run code the bot's author wrote (``setup.py``, npm
``postinstall`` scripts, the build command itself), so each runs under the same backend
as the bot's matches: as an unprivileged user, seeing play's read-only allowlist plus
what the step needs to read, and writing only into the output it makes (the environment
being installed, the build's private copy of the bot directory). No step has a network of
its own: an install's fetch reaches the package indexes through the fetch gate
(:mod:`arena.sandbox.gate`), and nothing else; builds reach nothing.

A :class:`Step` is plain data; ``Backend.run_step(step, log)`` runs it and returns its exit
status (124 when it ran out of time).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from .limits import Limits

STEP_LIMITS = Limits(cpu_seconds=1800, memory_mb=4096, file_size_mb=1024, open_files=1024, processes=256,
                     tmp_mb=1024)
"""Caps of an install or build: compilers and package managers need far more than a bot at play."""

TIMED_OUT = 124
"""Exit status of a step stopped for taking longer than its timeout (as coreutils' ``timeout``)."""


@dataclass(frozen=True)
class Step:
    """One command run for a bot before it plays (an install or a build)."""

    argv: tuple[str, ...]
    """Program and arguments; the program is an absolute path or a name on the sandbox's PATH."""
    cwd: str
    """Absolute working directory: inside one of ``writable`` or ``readable``."""
    writable: tuple[str, ...] = ()
    """Host directories the step writes (the output it makes), bound read-write at the same path."""
    copies: tuple[tuple[str, str], ...] = ()
    """``(copy, original)`` host directories: the private copy is bound read-write at the original's path
    (a build runs in a copy of the bot directory, where the absolute paths it records stay true)."""
    readable: tuple[str, ...] = ()
    """Host paths it may read besides the system allowlist (inputs, interpreters, package configuration),
    bound read-only at the same path."""
    network: bool = False
    """Whether the step fetches packages: it reaches the indexes through the fetch gate; builds run without."""
    relay: tuple[str, str] | None = None
    """For a step with ``network``: the kind (``python`` or ``node``) and path of the interpreter that runs
    the gate's relay in the step's sandbox (the one that runs the fetch, so it is there)."""
    env: tuple[tuple[str, str], ...] = ()
    """Extra environment variables on top of the sandbox's scrubbed environment."""
    timeout: float = 1800.0
    """Seconds the step may take, wall clock, before it is killed (exit status :data:`TIMED_OUT`)."""
    limits: Limits = field(default_factory=lambda: STEP_LIMITS)
    """Resource caps of the step and everything it starts."""
    image: str | None = None
    """Container image to run it in (``docker`` only)."""
    label: str = ""
    """The step in words, for logs and errors: ``pip install -r requirements.txt``."""
