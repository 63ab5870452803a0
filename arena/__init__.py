"""Cabo Arena: a tournament runner for bots that play the card game Cabo."""

__version__ = "0.1.0"
