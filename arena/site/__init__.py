"""The static report site of a tournament (``arena report``, ``arena serve``): data, SVG, pages, build."""
