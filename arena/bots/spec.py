"""A bot is a directory with a ``bot.yaml`` manifest, or a plain command line.

:class:`BotSpec` is a frozen, picklable description (what to run, where, how to
build), so a match job can carry its bots to another process or machine.
"""

from __future__ import annotations

import difflib
import os
import re
import shlex
import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .. import yamlsafe
from ..sandbox import allowlist
from ..sandbox.backends import Backend, NoneBackend
from ..sandbox.errors import SandboxError
from ..sandbox.steps import TIMED_OUT, Step
from ..suggest import did_you_mean
from . import buildcopy, cache, deps, env, files, inside
from .buildlock import BotBusy, bot_lock
from .deps import bot_python as bot_python  # where it was defined before; re-exported
from .errors import BotConfigError as BotConfigError  # likewise
from .supports import EVERYTHING, Supports, SupportsError, parse_supports

MANIFEST = "bot.yaml"
NAME_RE = re.compile(r"^[a-z0-9][a-z0-9_.-]{0,63}$")
KIT_LANGUAGES = ("python", "javascript", "c")
"""The languages ``arena bot new --lang`` writes a starter bot in (:data:`arena.kits.LANGUAGES`, one template
directory each): named here, as the messages below point to them and the kits sit above this package."""
_FIELDS = {"name", "description", "language", "build", "run", "image", "supports", "requirements", "python"}
_PYTHON_PLACEHOLDER = "{python}"


@dataclass(frozen=True)
class BotSpec:
    """How to start one bot."""

    name: str
    """Unique name in a tournament (lowercase letters, digits, ``-_.``)."""
    command: tuple[str, ...]
    """argv; relative paths are relative to ``directory``; ``{python}`` is the arena's Python for bots."""
    directory: str | None = None
    """Absolute path of the bot's directory (None for a plain command line)."""
    build: str | None = None
    """Shell command run in ``directory`` before the first match."""
    image: str | None = None
    """Container image for the docker sandbox."""
    description: str = ""
    """One line for humans."""
    language: str = ""
    """Informational."""
    requirements: str | None = None
    """Python requirements file, relative to ``directory`` (None: ``requirements.txt`` if there is one),
    installed into the bot's environment (:mod:`arena.bots.env`)."""
    python: str | None = None
    """Absolute path of the interpreter ``{python}`` stands for and the environment is made with
    (None: :func:`bot_python`)."""
    supports: Supports = EVERYTHING
    """Rule presets and table sizes the bot plays (its manifest's ``supports``; default all)."""


def resolve_command(spec: BotSpec) -> list[str]:
    """The argv to execute, placeholders filled and the bot directory's files made absolute."""
    python = env.python_for(spec) if _PYTHON_PLACEHOLDER in spec.command else ""
    argv = [python if part == _PYTHON_PLACEHOLDER else part for part in spec.command]
    if spec.directory:
        base = Path(spec.directory)
        argv = [str(base / a) if not os.path.isabs(a) and (base / a).exists() else a for a in argv]
    return argv


_FILE_ARG = re.compile(r"^[\w.+@/-]+$")
"""What a file name in ``run`` looks like: no spaces, quotes or shell syntax (those are code, e.g. ``-c``'s)."""
_SCRIPT_SUFFIXES = frozenset({".py", ".js", ".mjs", ".cjs", ".ts", ".rb", ".pl", ".php", ".lua", ".jar", ".sh",
                              ".r", ".jl", ".exs", ".class", ".wasm"})
"""Suffixes of the files interpreters run: an argument ending so names a file of the bot."""


def missing_run_file(spec: BotSpec) -> str | None:
    """One line naming a file that the manifest's ``run`` names relative to the bot directory and that is
    not there (a typo, or a build that did not make it), as the author wrote it; None when all are there.

    Checked before the bot starts: once started, the program would name the file by the path it resolved
    (``/abs/bot/bots.py``), or a sandbox's ``execvp`` would fail with no word of ``bot.yaml``.
    """
    if not spec.directory:
        return None
    base = Path(spec.directory)
    for index, arg in enumerate(spec.command):
        if arg == _PYTHON_PLACEHOLDER or os.path.isabs(arg) or arg.startswith("-") or not _FILE_ARG.match(arg):
            continue
        names_file = arg.startswith(("./", "../")) or Path(arg).suffix.lower() in _SCRIPT_SUFFIXES \
            or (index == 0 and "/" in arg)
        if not names_file or (base / arg).exists():
            continue
        folder, _, leaf = arg.rpartition("/")
        try:
            near = difflib.get_close_matches(leaf, sorted(os.listdir(base / folder)), n=1)
        except OSError:
            near = []
        hint = f" (did you mean {(folder + '/' if folder else '') + near[0]!r}?)" if near else ""
        made = "; if 'build' makes it, the build did not" if spec.build else ""
        return f"{base / MANIFEST}: 'run' names {arg!r}, which is not a file in the bot directory{hint}{made}"
    return None


def load_bot(ref: str, base_dir: str | Path | None = None, name: str | None = None) -> BotSpec:
    """Turn a reference into a spec: a bot directory, ``name=command line``, or a command line."""
    base = Path(base_dir or ".")
    if name is None:
        head, sep, rest = ref.partition("=")
        if sep and NAME_RE.match(head) and " " not in head:
            name, ref = head, rest
    path = (base / ref).expanduser()
    if path.is_dir():
        return _from_manifest(path.resolve(), name)
    if path.suffix in (".yaml", ".yml") and path.is_file():
        return _from_manifest(path.parent.resolve(), name, path)
    try:
        argv = shlex.split(ref)
    except ValueError as exc:
        raise BotConfigError(f"bot {ref!r}: cannot parse the command line ({exc})") from None
    if not argv:
        raise BotConfigError("bot: empty command line")
    program = argv[0]
    if program != _PYTHON_PLACEHOLDER and not shutil.which(program if os.sep in program else program) \
            and not (base / program).is_file():
        if len(argv) == 1:  # one word that is neither: most likely a bot directory mistyped or not made yet
            nor = "" if os.sep in ref else ", nor a program of that name"
            raise BotConfigError(f"bot {ref!r}: no such directory ({path.absolute()}){nor}; give a bot directory "
                                 f"(arena bot new {ref} --lang {_languages()} makes one) or a command line")
        raise BotConfigError(f"bot {ref!r}: not a bot directory (with {MANIFEST}) and {program!r} is not an "
                             "executable program; give a bot directory or a command line")
    # The bot runs in a private directory: paths that exist here are made absolute.
    argv = [str((base / a).resolve()) if not os.path.isabs(a) and os.sep in a and (base / a).exists() else a
            for a in argv]
    if name is None:
        name = _derived_name(argv)
    _check_name(name, ref)
    return BotSpec(name=name, command=tuple(argv))


def _derived_name(argv: list[str]) -> str:
    words = [a for a in argv if not a.startswith("-")]
    interpreters = ("python", "python3", _PYTHON_PLACEHOLDER, "node", "sh", "bash")
    word = next((w for w in words if os.path.basename(w) not in interpreters), words[0] if words else "bot")
    stem = Path(word).stem.lower()
    return re.sub(r"[^a-z0-9_.-]", "-", stem).strip("-._") or "bot"


def _check_name(name: str, where: str) -> None:
    if not NAME_RE.match(name):
        raise BotConfigError(f"{where}: bot name {name!r} must be 1-64 of a-z 0-9 - _ . starting with a letter or digit")


def _from_manifest(directory: Path, name: str | None, manifest: Path | None = None) -> BotSpec:
    file = manifest or directory / MANIFEST
    if not directory.is_dir():
        raise BotConfigError(f"{directory}: no such bot directory; give a directory that holds a {MANIFEST}")
    if file.exists() and not file.is_file():
        raise BotConfigError(f"{file}: not a file; a bot's {MANIFEST} manifest is a YAML file")
    if not file.is_file():
        start = (f"arena bot new {directory} --lang {_languages()} writes a starter bot into it" if _empty(directory)
                 else f"arena bot new NEW_DIR --lang {_languages()} writes a starter bot with one to copy from")
        raise BotConfigError(f"{directory}: no {MANIFEST} manifest in this bot directory; {start} "
                             "(docs/bots.md lists its fields)")
    inside.check_file(str(directory), file.name, f"the {MANIFEST} manifest")  # never a file outside the bot
    try:  # the bot's own file: its content may be shown
        document = yamlsafe.read(os.path.realpath(file), str(file), "bot manifest")
    except yamlsafe.YamlError as exc:
        raise BotConfigError(str(exc)) from None
    data = document.data
    if not isinstance(data, dict):
        raise BotConfigError(f"{file}: the manifest must be a mapping with at least 'name' and 'run'")
    unknown = [key for key in data if key not in _FIELDS]  # in file order: the first one is reported
    if unknown:
        allowed = sorted(_FIELDS)
        raise BotConfigError(f"{file}{_line_of(document.root, unknown[0])}: unknown field {str(unknown[0])!r}"
                             f"{did_you_mean(unknown[0], allowed)}; allowed: {', '.join(allowed)}")
    for key in ("description", "language", "build", "image", "requirements", "python"):
        if data.get(key) is not None and not isinstance(data[key], str):
            raise BotConfigError(f"{file}: field {key!r} must be a string")
    run = data.get("run")
    if isinstance(run, str):
        run = shlex.split(run)
    if not isinstance(run, list) or not run or not all(isinstance(a, str) for a in run):
        raise BotConfigError(f"{file}: field 'run' must be a command: a list of strings like [\"{{python}}\", \"bot.py\"] or a string")
    final = name or data.get("name")
    if not isinstance(final, str):
        raise BotConfigError(f"{file}: field 'name' is required and must be a string")
    _check_name(final, f"the name given for {directory}" if name else str(file))  # not the manifest's fault
    try:
        supports = parse_supports(data.get("supports"))
    except SupportsError as exc:
        raise BotConfigError(f"{file}: {exc}") from None
    spec = BotSpec(name=final, command=tuple(run), directory=str(directory), build=data.get("build"),
                   image=data.get("image"), description=data.get("description") or "",
                   language=data.get("language") or "", supports=supports, requirements=data.get("requirements"),
                   python=deps.python_of(data.get("python"), str(file)))
    deps.declared(str(directory), spec.requirements, spec.python, str(file))  # refuse a bad declaration now
    return spec


def _languages() -> str:
    return "|".join(KIT_LANGUAGES)


def _empty(directory: Path) -> bool:
    try:
        return not any(directory.iterdir())
    except OSError:
        return False


def _line_of(root: Any, key: object) -> str:
    """``:LINE`` of ``key`` in a manifest's top-level mapping node ("" if unknown)."""
    for key_node, _ in getattr(root, "value", None) or ():
        if str(getattr(key_node, "value", None)) == str(key) and hasattr(key_node, "start_mark"):
            return f":{key_node.start_mark.line + 1}"
    return ""


_built: dict[tuple[str, str], frozenset[str]] = {}
"""Builds run by this process: (directory, command) -> files the build wrote."""


def build_bot(spec: BotSpec, backend: Backend | None = None, timeout: float = 300.0,
              allow_unsandboxed: bool = True) -> None:
    """Install the bot's dependencies unless built already (:mod:`arena.bots.env`), then run its build
    command once per process; raise :class:`BotConfigError` with the output on failure.

    Both run under ``backend``, the sandbox the bot plays under (None: ``none``). A walled-in build
    (:attr:`Backend.contains_steps`) runs without network in a private copy of the bot directory,
    and only the files it made come back (:mod:`arena.bots.buildcopy`); under ``none`` it runs in
    the bot directory itself. Without ``allow_unsandboxed`` an install or build that ``backend``
    would not wall in is refused with one :class:`BotConfigError` (a ladder's submissions).
    """
    backend = backend or NoneBackend()
    env.prepare(spec, backend, allow_unsandboxed=allow_unsandboxed)
    if not spec.build or not spec.directory:
        return
    key = (spec.directory, spec.build)
    if key in _built:
        return
    if not allow_unsandboxed and not backend.contains_steps:
        raise BotConfigError(env.unsandboxed_refusal(spec.name, f"its build command {spec.build!r}", backend))
    python = env.python_for(spec)
    command = spec.build.replace(_PYTHON_PLACEHOLDER, shlex.quote(python))
    try:
        with bot_lock([spec.directory], exclusive=True, timeout=timeout):  # no other arena is starting it
            before = files.stamps(spec.directory)
            code, output = _run_build(spec, command, python, backend, timeout)
            outputs = files.changed_by(before, files.stamps(spec.directory))
    except BotBusy as exc:
        raise BotConfigError(f"bot {spec.name!r}: {exc}") from None
    except SandboxError as exc:
        raise BotConfigError(f"bot {spec.name!r}: build command {spec.build!r} under sandbox {backend.name}: "
                             f"{exc}") from None
    except buildcopy.OutputTooLarge as exc:
        raise BotConfigError(f"bot {spec.name!r}: build command {spec.build!r}: {exc}") from None
    if code == TIMED_OUT:
        raise BotConfigError(f"bot {spec.name!r}: build command {spec.build!r} took over {timeout:.0f} s") from None
    if code != 0:
        tail = output.strip()[-800:]
        raise BotConfigError(f"bot {spec.name!r}: build command {spec.build!r} failed (exit {code}):\n{tail}")
    _built[key] = outputs


def unsandboxed_refusal(spec: BotSpec, backend: Backend) -> str | None:
    """The one line refusing what ``backend`` would run of ``spec`` without walls (an install not in the
    cache yet, a build command); None when it walls them in or nothing would run."""
    if backend.contains_steps:
        return None
    for d in env.declared(spec):
        if cache.lookup(deps.key(d)) is None:
            return env.unsandboxed_refusal(spec.name, f"installing its {d.what}", backend)
    if spec.build and spec.directory and (spec.directory, spec.build) not in _built:
        return env.unsandboxed_refusal(spec.name, f"its build command {spec.build!r}", backend)
    return None


def _run_build(spec: BotSpec, command: str, python: str, backend: Backend, timeout: float) -> tuple[int, str]:
    """Run the build command under ``backend``: its exit status and output. A walled-in build gets a
    private copy of the bot directory at its own path, no network, and reads its environments and
    interpreter; what it made is copied back."""
    assert spec.directory
    label = f"build command {spec.build!r}"
    with tempfile.TemporaryFile("w+", errors="replace") as log:
        if not backend.contains_steps:
            code = backend.run_step(Step(argv=("/bin/sh", "-c", command), cwd=spec.directory, timeout=timeout,
                                         label=label), log)
        else:
            holder, pairs = buildcopy.make(spec.directory, backend.step_uid)
            try:
                readable = [*env.environment(spec).paths, *allowlist.program_paths(python)]
                before = buildcopy.stamps(pairs)
                code = backend.run_step(Step(argv=("/bin/sh", "-c", command), cwd=os.path.realpath(spec.directory),
                                             copies=tuple(pairs), readable=tuple(readable), network=False,
                                             timeout=timeout, image=spec.image, label=label), log)
                if code == 0:
                    for note in buildcopy.copy_back(pairs, before):
                        log.write(note + "\n")
            finally:
                shutil.rmtree(holder, ignore_errors=True)
        log.seek(0)
        return code, log.read()


def build_outputs(spec: BotSpec) -> frozenset[str]:
    """Files (named as in :func:`arena.bots.files.digests`) that this process's build of ``spec`` wrote."""
    if not spec.build or not spec.directory:
        return frozenset()
    return _built.get((spec.directory, spec.build), frozenset())


def describe(spec: BotSpec) -> dict[str, Any]:
    """A JSON-able summary for results and logs."""
    return {"name": spec.name, "command": list(spec.command), "directory": spec.directory}
