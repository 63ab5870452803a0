"""Bot definitions: manifests, command lines, builds."""

from .spec import BotConfigError, BotSpec, build_bot, build_outputs, bot_python, load_bot, resolve_command

__all__ = ["BotConfigError", "BotSpec", "build_bot", "build_outputs", "bot_python", "load_bot", "resolve_command"]
