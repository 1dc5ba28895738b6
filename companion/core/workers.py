"""Where a sweep's chunks of games are played: in this process, on local worker processes, or on
a cluster the caller hands in (a Dask cluster: companion/lab/cluster.py; the core never imports
dask). Every simulation, pair and restricted-play sweep goes through :class:`Workers`.

The results never depend on where the chunks ran: every game's seed is drawn before the games
are cut into chunks, and :meth:`Workers.map` yields each chunk's result in the order the chunks
were given, never in the order they finished.
"""
import concurrent.futures
import os


SMALL = 50        # games: a sweep this small is played here (a pool would cost more than it saves)


class Workers:
    """``jobs``: worker processes on this machine (0: one per core; 1: this process, no
    workers); ``games``: the sweep's size, if known (fewer than :data:`SMALL`: this process).
    ``cluster``: anything with ``submit(fn, *args)`` returning a future with
    ``result()`` and ``workers`` (how many chunks it runs at once); when given, every chunk
    goes there and ``jobs`` is not used. The local pool starts at the first chunk that needs
    it and stops (its pending chunks cancelled) at :meth:`close`; the cluster is the
    caller's to close."""

    def __init__(self, jobs=1, cluster=None, games=None):
        self.cluster = cluster
        if cluster is not None:
            self.count = max(1, int(cluster.workers))
        elif games is not None and games < SMALL:
            self.count = 1
        else:
            self.count = jobs if jobs > 0 else (os.cpu_count() or 1)
        self._pool = None

    @property
    def here(self) -> bool:
        """Every chunk is played in this process, one after another."""
        return self.cluster is None and self.count == 1

    def map(self, fn, chunks):
        """``fn(*chunk)`` for every argument tuple in ``chunks``, yielded in that order. ``fn``
        must be a module-level function (a worker imports it by name). A single chunk with no
        cluster is played here: a pool would only add its start-up."""
        chunks = list(chunks)
        if self.here or (self.cluster is None and len(chunks) <= 1):
            for c in chunks:
                yield fn(*c)
            return
        ex = self.cluster
        if ex is None:
            if self._pool is None:
                self._pool = concurrent.futures.ProcessPoolExecutor(self.count)
            ex = self._pool
        futures = [ex.submit(fn, *c) for c in chunks]
        try:
            for f in futures:
                yield f.result()
        finally:                        # a stop (or an error) leaves no chunk behind
            for f in futures:
                f.cancel()

    def close(self):
        if self._pool is not None:
            self._pool.shutdown(cancel_futures=True)
            self._pool = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
