"""A Dask distributed cluster for the lab's sweeps (``--cluster tcp://HOST:PORT``; docs/lab.md,
"On a Dask cluster"). :func:`connect` gives the ``cluster`` that
:class:`companion.core.workers.Workers` sends its chunks to: the same chunk functions, the same
seeds, results taken in the order they were sent, so a sweep on the cluster gives exactly the
figures of a local run. dask is imported only here, and only when a command is given
``--cluster``; the table (core, games, hub) never imports it.

The workers run the chunk functions of their own ``companion``: install the same version on
every worker machine. A data folder is passed as its path: an edited copy must be readable at
the same path on every worker (a shared folder); the shipped data is each worker's own.
"""
import re
import socket

from companion.core.errors import ConfigError

ADDRESS = re.compile(r"^tcp://(\[[0-9a-fA-F:.]+\]|[A-Za-z0-9_.-]+):(\d{1,5})$")

CONNECT_TIMEOUT = 10.0      # seconds for the scheduler to answer
WORKERS_TIMEOUT = 30.0      # seconds for a scheduler without workers to get one


class Cluster:
    """A connected ``distributed.Client``: ``submit(fn, *args)`` and ``workers`` (threads over
    all workers: how many chunks run at once)."""

    def __init__(self, client, address):
        self.client, self.address = client, address

    @property
    def workers(self) -> int:
        return sum(self.client.nthreads().values())

    def submit(self, fn, *args):
        # pure=False: never merged with an equal task; every chunk is played
        return self.client.submit(fn, *args, pure=False)

    def close(self):
        self.client.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


def _probe():
    """Run on each worker: can it import the modules the chunk functions live in?"""
    import importlib
    for name in ("companion.core.play", "companion.lab.calibrate", "companion.lab.impact",
                 "companion.lab.paired"):
        importlib.import_module(name)
    return True


def connect(address, timeout=None, workers_timeout=None) -> Cluster:
    """The cluster whose scheduler listens at ``address`` (``tcp://HOST:PORT``), with at least
    one worker that can import companion; else a :class:`ConfigError` in one sentence."""
    m = ADDRESS.match(address)
    if not m:
        raise ConfigError(f"--cluster wants a Dask scheduler's address, tcp://HOST:PORT (as "
                          f"'dask scheduler' prints it), not {address!r}.")
    try:
        import distributed
    except ImportError:
        raise ConfigError("--cluster needs dask's distributed package: pip install "
                          "'table-companion[lab]' (or pip install distributed).") from None
    host, port = m.group(1).strip("[]"), int(m.group(2))
    try:                    # nothing listening: say so at once (dask would retry until timeout)
        socket.create_connection((host, port), timeout or CONNECT_TIMEOUT).close()
        client = distributed.Client(address, timeout=timeout or CONNECT_TIMEOUT,
                                    set_as_default=False)
    except (OSError, TimeoutError) as e:
        why = (e.strerror if isinstance(e, OSError) and e.strerror else str(e).splitlines()[0]
               if str(e) else type(e).__name__)
        raise ConfigError(f"--cluster {address}: no Dask scheduler answers there ({why}); "
                          f"start one with 'dask scheduler' and give the address it "
                          f"prints.") from None
    except Exception as e:         # noqa: BLE001  (something answers, but not as dask)
        raise ConfigError(f"--cluster {address}: what answers there is not a Dask scheduler "
                          f"({type(e).__name__}).") from None
    try:
        try:
            client.wait_for_workers(1, timeout=workers_timeout or WORKERS_TIMEOUT)
        except (TimeoutError, OSError):
            raise ConfigError(f"--cluster {address}: the scheduler has no workers; start "
                              f"some with 'dask worker {address}'.") from None
        try:
            client.run(_probe)
        except Exception as e:     # noqa: BLE001  (whatever the worker raised, as a sentence)
            raise ConfigError(f"--cluster {address}: a worker cannot run companion's games "
                              f"({e}); install the same companion on "
                              f"every worker.") from None
    except BaseException:
        client.close()
        raise
    return Cluster(client, address)


def maybe(address):
    """:func:`connect` for a ``--cluster`` argument, or None without one (so ``with
    maybe(args.cluster) as cluster:`` reads the same either way)."""
    import contextlib
    if not address:
        return contextlib.nullcontext(None)
    return connect(address)
