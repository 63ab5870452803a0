"""The submission server of a ladder: authors upload bots from their own machines (docs/server.md)."""
