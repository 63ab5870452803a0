"""The submission server: authors upload bots from their own machines (``arena serve``)."""
