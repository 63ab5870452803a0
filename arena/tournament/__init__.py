"""Tournaments: configuration, schedule, storage, ratings and leaderboards."""
