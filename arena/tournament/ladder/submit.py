"""Entering bots into a ladder with ``arena submit``, checked first (the file's starting field is entered
unchecked by a run: :meth:`.kind.LadderRun.enter_field`).

A submission past the ladder's size limits (:mod:`.limits`) is refused before anything else.
A submission is checked with ``check_bot`` before anything is written, so a bot that
fails leaves no trace; its files are listed before the check (which builds the bot in
its directory) and exactly those are snapshotted. The store is written in one
transaction, so a running ladder sees the new entry whole at its next table.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from ...bots import BotConfigError, load_bot
from ...bots.spec import unsandboxed_refusal
from ...authoring.check import CheckReport, check_bot
from ...sandbox import resolve_backend
from ..schedules import LADDER
from ..schedules.kind import TournamentConfig
from .kind import own_field, settings_of
from ..store import DB_NAME, ResultStore
from .entries import Entered, Entry, NameTaken, enter, entries, playing
from .limits import refusal
from .snapshot import bot_files, digest_of, outside_link, snapshot

CHECK_MATCHES = 2
"""Matches per preset of the check a submission must pass."""


class Refused(Exception):
    """The submission was not entered; the message says why in one line."""


class CheckFailed(Refused):
    """The bot failed its check; ``report`` holds the findings."""

    def __init__(self, report: CheckReport) -> None:
        super().__init__("refused: the bot failed its check (findings above); nothing was entered")
        self.report = report


@dataclass(frozen=True)
class Submission:
    """What ``arena submit`` did."""

    entered: Entered
    checked: bool
    """False when nothing needed checking (an identical resubmission)."""


def require_ladder(config: TournamentConfig) -> None:
    """Submitting and retiring only make sense for ``schedule: ladder``."""
    if config.schedule != LADDER:
        raise Refused(f"{config.path.name} is not a ladder (schedule: {config.schedule}); "
                      f"bots are submitted only to a file with schedule: {LADDER}")


def field_refusal(config: TournamentConfig, name: str, source: str | None = None) -> str | None:
    """Why ``name`` cannot be entered from the directory ``source`` (None: an upload to the server), in one line:
    it is a name of the file's own field, which only the directory the file names may enter, whether a run has
    entered it yet or not (else an upload before the first run would take it and the file's bot never play)."""
    own = own_field(config).get(name)
    if own is None or own == source:
        return None
    return (f"the name {name} belongs to the ladder's own field ({config.path.name} bots:); choose another name "
            "with --name")


def _stored_entries(output: Path) -> list[Entry]:
    """The entries already stored, read without creating a store: a refused bot must leave no trace."""
    path = Path(output) / DB_NAME
    if not path.exists():
        return []
    store = ResultStore(Path(output), readonly=True)  # a damaged store: StoreDamaged, one line
    try:
        return list(entries(store.ladder))
    finally:
        store.close()


def submit(config: TournamentConfig, directory: str, name: str | None = None,
           echo: Callable[[str], None] | None = None) -> Submission:
    """Check the bot in ``directory`` and enter it as ``name`` (default: its manifest's), or say why not."""
    require_ladder(config)
    settings = settings_of(config)
    too_big = refusal(name or str(directory), str(directory), settings.submission, config.path.name) \
        if Path(directory).is_dir() else None
    if too_big is not None:  # before anything is read, built or copied
        raise Refused(too_big)
    try:
        spec = load_bot(directory, None, name)
    except BotConfigError as exc:
        raise Refused(str(exc)) from None
    if spec.directory is None:
        raise Refused(f"{directory}: a ladder takes bot directories, not command lines")
    source = str(Path(spec.directory).resolve())
    taken = field_refusal(config, spec.name, source)
    if taken is not None:
        raise Refused(taken)
    listed = bot_files(source)
    leaving = outside_link(spec.directory, listed)  # as the submission server refuses the same directory
    if leaving is not None:
        raise Refused(leaving)
    digest = digest_of(listed)
    mine = [e for e in _stored_entries(config.output) if e.name == spec.name]
    if mine and mine[-1].source != source:
        raise Refused(f"the name {spec.name} is taken by a bot submitted from {mine[-1].source}; "
                      "choose another name with --name")
    same = playing(mine, digest)
    if same is not None:
        return Submission(Entered(same, False), False)
    backend, _ = resolve_backend(config.sandbox)
    refused = None if settings.unsandboxed_builds else unsandboxed_refusal(spec, backend)
    if refused:
        raise Refused(refused)
    report = check_bot(spec, backend.name, config.time, CHECK_MATCHES, echo=echo, venue=config.rules,
                       seats=config.seats, unsandboxed_builds=settings.unsandboxed_builds, game=config.game)
    if not report.ok:
        raise CheckFailed(report)
    store = ResultStore(config.output)
    try:
        digest, path = snapshot(source, config.output, spec.name, listed)
        try:
            entered = enter(store.ladder, spec.name, digest, str(path), source, settings.keep_versions)
        except NameTaken as exc:
            raise Refused(str(exc)) from None
    finally:
        store.close()
    return Submission(entered, True)



def outcome_line(done: Submission, where: bool = True) -> str:
    """The last line ``arena submit`` prints for a bot it entered (or found entered already): the same words
    locally and through the submission server (``where`` False: without the snapshot's path, which names the
    server's directories to an author on another machine)."""
    entry = done.entered.entry
    if not done.entered.new:
        return f"{entry.name}: these files are already entered as {entry.key} ({entry.status}); nothing changed"
    gone = ", ".join(f"v{v}" for v in done.entered.replaced)
    back = done.entered.back
    return (f"entered {entry.key}" + (f" (snapshot {entry.path})" if where else "") + (f"; it replaces {gone}" if gone else "")
            + (f"; the same files as {back.key} ({back.status}), back as a new version" if back else ""))
