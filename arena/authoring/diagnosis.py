"""What a bot author reads when ``arena bot check`` finds a fault: its cause and its remedy.

A fault's detail is written for the arena's records (``failed to start: bot exited
(exit status 1)``); an author needs the cause in plain words, with the line of stderr
that explains it, and what to change. Each diagnosis is one line of each.
"""

from __future__ import annotations

import re
import signal
from dataclasses import dataclass

from ..match.faults import Fault, FaultKind
from ..match.helpermark import MARKER
from ..sandbox.allowlist import SANDBOX_PATH

STDERR_LINES = 5
"""Last lines of a bot's stderr shown with a finding."""

_STATUS = re.compile(r"\s*\((exit status (\d+)|killed by signal (\d+))\)")
_NOISE = frozenset({"Traceback (most recent call last):"})
"""Lines of stderr that take a place in the tail without saying anything."""
_NO_MODULE = re.compile(r"(?:ModuleNotFoundError|ImportError): No module named '([\w.]+)'")
_TIMES = re.compile(r"(once|\d+ times) in this match")
_UNREADABLE = re.compile(r"Permission denied: '([^']+)'"  # Python's open()
                         r"|can't open file '([^']+)': \[Errno 13\]"  # python3 given an unreadable script
                         r"|EACCES: permission denied, \w+ '([^']+)'"  # Node
                         r"|(?:execvp|failed to execute) (\S+): Permission denied")  # bwrap, setpriv: the program
_READ_ONLY = re.compile(r"Read-only file system|EROFS")
_NO_PROGRAM = re.compile(r"(?:execvp|failed to execute) (\S+): No such file or directory")  # bwrap, setpriv


@dataclass(frozen=True)
class Diagnosis:
    """A fault explained for the bot's author."""

    title: str
    """Short name of what went wrong, e.g. ``the bot never started``."""
    cause: str
    """One line: what happened, with the stderr line that says why when there is one."""
    remedy: str
    """One line: what to change."""


def stderr_tail(fault: Fault) -> list[str]:
    """The last lines of the bot's stderr when the fault happened, those that say something."""
    return [line for line in fault.stderr.splitlines() if line.strip() and line not in _NOISE][-STDERR_LINES:]


def diagnose(fault: Fault, never_started: bool = False, reuse: bool = False, move_ms: int = 1000) -> Diagnosis:
    """Cause and remedy of ``fault``: ``never_started`` if it happened as the bot's first match began,
    ``reuse`` if it answered a second ``hello`` on a process that had finished a match."""
    detail, last = fault.detail, (stderr_tail(fault) or [""])[-1].strip()
    if fault.kind is FaultKind.STARTUP:
        title = "the bot never started" if never_started else "the bot failed to start a match"
        if reuse:
            cause = f"after 'over', the bot {_status_text(detail, 'instead of answering a new hello')}" \
                if detail.startswith("failed to start") else f"after 'over', a new 'hello' got no 'ready': {detail}"
            return Diagnosis("the bot did not take a second hello on the same process", cause,
                             "keep reading stdin after 'over' and start a fresh game on the next 'hello' (tournaments "
                             "reuse processes; the kits' helpers and bots/lib/cabo_bot.py do this)")
        return _startup(title, detail, last, fault.stderr)
    if fault.kind is FaultKind.TIMEOUT:
        if detail.startswith("stopped reading"):
            return Diagnosis("the bot stopped reading its input", f"the bot {detail}",
                             "read every line from stdin as it arrives, also while thinking and after replying")
        return Diagnosis("timeout", f"{detail} (move_ms is {move_ms})",
                         "answer every 'act' within move_ms and flush stdout after each line (a reply left in a "
                         "buffer never arrives); log timings to stderr to find the slow decision")
    if fault.kind is FaultKind.EXIT:
        return Diagnosis("the bot exited during a match",
                         _with_reason(f"the bot {_status_text(detail, 'in the middle of a match')}", last),
                         _sandbox_remedy(fault.stderr)
                         or "fix the error its stderr shows; a bot keeps running until its stdin closes")
    if fault.kind in (FaultKind.BAD_JSON, FaultKind.NOT_OBJECT):
        return Diagnosis("a reply that is not a JSON object", detail,
                         "write only protocol replies to stdout, one JSON object per line; print logs to stderr")
    if fault.kind is FaultKind.LINE_TOO_LONG:
        return Diagnosis("a reply line too long", detail,
                         "end every reply with a newline; a reply is one small JSON object")
    if fault.kind is FaultKind.HELPER_FALLBACK:
        return _helper_fallback(fault)
    if fault.kind is FaultKind.WRONG_ID:
        return Diagnosis("a reply with the wrong id", detail,
                         "echo the 'id' of the 'act' you are answering, as the integer it was sent")
    return Diagnosis("an illegal reply", f"the reply named no legal action: {detail}",
                     "answer with an 'index' into this act's 'legal' list (0 to its length - 1), or repeat one of "
                     "its entries exactly")


def _helper_fallback(fault: Fault) -> Diagnosis:
    """What failed, as the helper's marker line says (the traceback's last line, for Python and JavaScript)."""
    marker = MARKER.decode()
    said = [line.removeprefix(marker) for line in fault.stderr.splitlines() if line.startswith(marker)]
    what = said[-1].removesuffix("; sent legal index 0") if said else "see its stderr"
    times = _TIMES.search(fault.detail)
    often = f", {times.group(1)} in that match" if times else ""
    remedy = ("make on_act return an index into msg->legal (0 to legal_count - 1)" if what.startswith("on_act")
              else "fix the error its stderr shows (the traceback above the marker line)")
    return Diagnosis("the bot's code failed and its helper played for it",
                     f"the helper sent legal index 0 instead of the bot's answer{often}: {what}",
                     f"{remedy}; the helper keeps the bot in the match, but the bot does not play while it fails")


def _startup(title: str, detail: str, last: str, stderr: str) -> Diagnosis:
    if detail.startswith("could not start"):
        unreadable = "chmod" in detail
        if "'run' names" in detail:  # arena.bots.spec.missing_run_file: a file of the bot that is not there
            return Diagnosis(title, f"the arena could not start the bot: {detail.split(']: ', 1)[-1]}",
                             "correct the path in bot.yaml's 'run': it is relative to the bot directory, the bot's "
                             "working directory (a compiled program must be made by 'build')")
        return Diagnosis(title, f"the arena could not start the bot: {detail.removeprefix('could not start ')}",
                         "make the bot's files readable by others (chmod -R o+rX on its directory)" if unreadable else
                         "check 'run' in bot.yaml: its program must exist and be executable (a file in the bot "
                         "directory, made by 'build' if it is compiled, or a program on PATH)")
    if detail.startswith("failed to start"):
        cause = _with_reason(f"the bot {_status_text(detail, 'during start-up')}", last)
        return Diagnosis(title, cause, _sandbox_remedy(stderr) or _startup_remedy(last))
    if detail.startswith("no valid 'ready'"):
        said = detail.removeprefix("no valid 'ready' to hello: ")
        return Diagnosis(title, f"the bot's first line after 'hello' was not a 'ready': {said}",
                         "answer 'hello' with {\"type\": \"ready\"} before writing anything else to stdout; "
                         "print logs and banners to stderr")
    if detail.startswith("no 'ready' within"):
        return Diagnosis(title, f"the bot did not answer 'hello' with 'ready' in time ({detail})",
                         "read stdin line by line, answer 'hello' at once and flush stdout; do slow set-up after "
                         "'ready' or make it faster")
    return Diagnosis(title, f"the bot {detail}", "read 'hello' from stdin as soon as the bot starts")


def _sandbox_remedy(stderr: str) -> str | None:
    """Advice for an error the sandbox caused, from the bot's stderr (its last such line); None for others.

    Under ``bwrap`` run by root and under ``docker`` the bot runs as uid 65534, not as the owner of its
    files, so a file without read permission for others fails there and nowhere else. Its directory is
    read-only there, so writing a file in it fails too. A program that is not there is named by bwrap or
    setpriv, as ``run`` names it (under ``none`` and ``docker`` the start itself fails and says so).
    """
    found = list(_UNREADABLE.finditer(stderr))
    if found:
        path = next(group for group in found[-1].groups() if group)
        mode = "o+rx" if found[-1].group(4) is not None else "o+r"  # a program must be executable too
        where = "" if path.startswith("/") else " in the bot directory"
        return (f"make the file readable by others: chmod {mode} {path}{where}, and the "
                "folders that lead to it o+x (under bwrap and docker the bot runs as uid 65534, not as its files' "
                "owner)")
    missing = list(_NO_PROGRAM.finditer(stderr))
    if missing:
        return (f"check 'run' in bot.yaml: {missing[-1].group(1)} is neither a file in the bot directory nor a program on the "
                f"sandbox's PATH ({SANDBOX_PATH}), or it is a script whose #! line names an interpreter that is "
                "not there")
    if _READ_ONLY.search(stderr):
        return ("write files to the folder TMPDIR names (Python: tempfile.gettempdir(); Node: os.tmpdir()), not "
                "to the bot directory: under bwrap and docker the bot's directory is its working directory and "
                "read-only, and TMPDIR is private to the bot's process and emptied when it ends")
    return None


def _startup_remedy(last: str) -> str:
    missing = _NO_MODULE.search(last)
    if missing and missing.group(1).split(".")[0] == "cabo_bot":
        return ("copy cabo_bot.py next to bot.py (a bot outside the arena's repository has no ../lib), "
                "or start from a kit: arena bot new DIR --lang python")
    if missing:
        return (f"the bot's Python has no module {missing.group(1)!r}: declare it in requirements.txt beside "
                "bot.yaml (docs/bots.md, \"Bots with dependencies\"), or use only the standard library")
    if "Cannot find module" in last:
        return ("keep the bot's own modules in its directory and require them by a relative path ('./helper.js'); "
                "npm packages go in package.json with its lockfile (docs/bots.md, \"Bots with dependencies\")")
    return ("run the bot's command by hand in its directory, paste a 'hello' line (docs/protocol.md) "
            "and fix the error it prints")


def _status_text(detail: str, when: str) -> str:
    """``bot exited (exit status 1)`` -> ``exited WHEN (exit status 1)``; signals named."""
    match = _STATUS.search(detail)
    if match is None:
        return f"exited or closed its stdout {when}"
    if match.group(2) is not None:
        return f"exited {when} (exit status {match.group(2)})"
    number = int(match.group(3))
    try:
        name = signal.Signals(number).name
    except ValueError:
        name = f"signal {number}"
    why = {"SIGXCPU": " (it used up its CPU time)", "SIGKILL": " (perhaps by a limit of the sandbox)",
           "SIGSEGV": " (a segmentation fault)"}.get(name, "")
    return f"was killed by {name} {when}{why}"


def _with_reason(cause: str, last: str) -> str:
    """The cause, followed by the stderr line that explains it (the last one) when the bot wrote any."""
    return f"{cause}: {last}" if last else cause
