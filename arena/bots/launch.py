"""How the runner starts a bot: its command and what of its environment the sandbox must show it."""

from __future__ import annotations

from collections.abc import Sequence

from ..sandbox import LaunchSpec, Limits
from . import env
from .errors import BotConfigError
from .spec import BotSpec, missing_run_file, resolve_command


def launch_spec(spec: BotSpec, limits: Limits, hidden: Sequence[str] = ()) -> LaunchSpec:
    """``spec`` as a :class:`LaunchSpec`: ``{python}`` filled, its dependency environments readable.

    Raises :class:`arena.bots.BotConfigError` when a declared environment is not built or a file ``run``
    names is missing (the runner records either as a start-up fault of the bot).
    """
    missing = missing_run_file(spec)
    if missing:
        raise BotConfigError(missing)
    found = env.environment(spec)
    variables = (("NODE_PATH", found.node_modules),) if found.node_modules else ()
    return LaunchSpec(tuple(resolve_command(spec)), spec.directory, limits, env=variables, image=spec.image,
                      hidden=tuple(hidden), extra_paths=found.paths)
