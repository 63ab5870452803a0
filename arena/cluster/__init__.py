"""Playing a tournament's matches on other machines: bots travel as content-addressed archives.

:mod:`.archive` packs a bot version into bytes named by its digest and unpacks it once per
machine; :mod:`.portable` turns a :class:`arena.runner.MatchJob` into one that names bots by
version and carries no host path, and plays it on a worker; :mod:`.dask_executor` runs the
driver's batches on a Dask distributed cluster (``pip install 'cabo-arena[dask]'``).
"""
