"""Starting the child: :class:`_ChildProcess`, a fresh interpreter (``python -c``) that talks to
the parent over a socket pair, with what :class:`~hardware.worker.link.DeviceLink` uses of a
``multiprocessing`` Process (and without its resource tracker or the parent's main module).
"""
import signal
import socket
import subprocess
import sys
from multiprocessing.connection import Connection


class _ChildProcess:
    """The device process: a fresh interpreter (``python -c``) that talks to us over a socket
    pair with :class:`multiprocessing.connection.Connection` (pickled tuples, as a ``spawn``
    Process's pipe). Not a ``multiprocessing`` spawn Process, because that also starts the
    resource tracker, a third Python process of about 13 MB that tracks shared memory and
    semaphores this child never makes, and re-imports the parent's main module. Offers what
    :class:`DeviceLink` uses of a Process: ``pid``, ``is_alive``, ``join``, ``exitcode``
    (negative: the signal that killed it), ``terminate``, ``kill``."""

    def __init__(self):
        self._popen = None

    def start(self, args):
        """Start the child and hand it ``args`` for :func:`~hardware.worker.child._child_main`;
        returns our end."""
        ours, theirs = socket.socketpair()
        fd = theirs.fileno()
        code = (f"import sys; sys.path[:0] = {list(sys.path)!r}; "
                f"from hardware.worker.child import _subprocess_main; _subprocess_main({fd})")
        try:
            self._popen = subprocess.Popen([sys.executable, "-c", code], pass_fds=(fd,),
                                           stdin=subprocess.DEVNULL)
        finally:
            theirs.close()
        conn = Connection(ours.detach())
        conn.send(args)
        return conn

    @property
    def pid(self):
        return self._popen.pid

    @property
    def exitcode(self):
        return self._popen.poll()

    def is_alive(self):
        return self._popen.poll() is None

    def join(self, timeout=None):
        try:
            self._popen.wait(timeout)
        except subprocess.TimeoutExpired:
            pass

    def terminate(self):
        if self.is_alive():
            self._popen.send_signal(signal.SIGTERM)

    def kill(self):
        if self.is_alive():
            self._popen.kill()
