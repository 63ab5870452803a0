"""A bot author's tools, built on the match layer (:mod:`arena.match`): ``arena bot check``.

:mod:`.check` plays a bot at the tables its manifest supports against the bundled random bot and
reports what went wrong; :mod:`.diagnosis` turns each fault into a line of cause and a line of
remedy. They use the match layer as a tournament does and add nothing to it, so they live in
their own package rather than in :mod:`arena.match`: the referee must not grow advice for authors.
"""
