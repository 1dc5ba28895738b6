"""Notice a phone that went silent on mosquitto within its keepalive, as the protocol promises.

mosquitto 2.0 (Debian 12 has 2.0.11; upstream's 2.0 branch is the same) checks its clients'
keepalives in one sweep that runs at most every 6 s (``keepalive__check`` in its
``src/keepalive.c``: ``if(last_keepalive_check + 5 < db.now_s)``). A phone with the page's
2 s keepalive that drops off Wi-Fi has overrun its 3 s allowance long before the next sweep,
so its Last Will fired anywhere from 3 to about 10 s after it went quiet, depending on where
the sweep happened to be. (The embedded broker times every client on its own: no watch there.)

:class:`SilenceWatch` reads the same facts mosquitto would: which connection is which client
and its keepalive (mosquitto's log: ``New client connected from <addr>:<port> as <id> (p2,
c1, k<keepalive>, u'<user>').``), and how long each connection has been silent (the kernel:
:func:`companion.net.sockdiag.tcp_silence`). A user all of whose connections have been silent
for longer than 1.5 x keepalive + ``slack`` seconds is reported silent; reported again as
back when one of them speaks before mosquitto drops it. The bridge turns that into the seat's
presence (:meth:`companion.net.bridge.Bridge._on_silence`).
"""
from __future__ import annotations

import logging
import os
import re
import threading

from .sockdiag import tcp_silence

log = logging.getLogger(__name__)

#: Seconds of silence allowed beyond 1.5 x keepalive: mosquitto itself counts whole seconds
#: (``now - last_in <= 1.5 x keepalive``, so up to one more), and paho pings up to 1 s late.
SLACK = 1.0
#: How often the watch looks (seconds).
EVERY = 0.25

_CONNECTED = re.compile(r"New client connected from (.+):(\d+) as (.*) \(p\d+, c\d+, k(\d+)"
                        r"(?:, u'(.*)')?\)\.\s*$")
_GONE = re.compile(r"Client (.*) (?:closed its connection|disconnected|has exceeded timeout)")


class SilenceWatch:
    """Watch the connections of a mosquitto whose log is at ``log_path`` and whose listeners
    are on ``ports()`` (called each time: a restarted broker keeps its ports, but ask).
    ``on_change(user, silent)`` is called on the watch's thread: ``True`` when every
    connection of ``user`` overran its keepalive, ``False`` when one of them spoke again."""

    def __init__(self, log_path, ports, on_change, *, every: float = EVERY,
                 slack: float = SLACK, source=tcp_silence):
        self.log_path = log_path
        self.ports = ports
        self.on_change = on_change
        self.every, self.slack = every, slack
        self.source = source
        self._offset = 0
        self._inode = None
        self._partial = b""
        self._conns: dict[tuple, tuple] = {}     # (address, port) -> (client id, user, keepalive)
        self._silent: set[str] = set()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    # -- life -------------------------------------------------------------------------------------
    def available(self) -> bool:
        """Whether the kernel answers (Linux with ``inet_diag``)."""
        try:
            self.source(set())
        except OSError as e:
            log.info("cannot watch the phones' connections (%s): a silent phone is noticed "
                     "by mosquitto's own keepalive check, within about 10 s", e)
            return False
        return True

    def start(self) -> "SilenceWatch":
        self._stop.clear()
        self._thread = threading.Thread(target=self._run, name="tc-silence", daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(2)
            self._thread = None

    def _run(self):
        while not self._stop.wait(self.every):
            try:
                self.tick()
            except OSError as e:                # the log or the kernel: try again next time
                log.debug("silence watch: %s", e)
            except Exception:                   # never let the watch take the table down
                log.exception("silence watch failed; phones are left to mosquitto's check")
                return

    # -- one look ---------------------------------------------------------------------------------
    def _read_log(self):
        with open(self.log_path, "rb") as f:
            st = os.fstat(f.fileno())
            size = st.st_size
            if size < self._offset or st.st_ino != self._inode:    # a new log: from its start
                self._offset, self._partial, self._inode = 0, b"", st.st_ino
            f.seek(self._offset)
            data = f.read(size - self._offset)
        self._offset += len(data)
        lines = (self._partial + data).split(b"\n")
        self._partial = lines.pop()
        for raw in lines:
            line = raw.decode("utf-8", "replace")
            m = _CONNECTED.search(line)
            if m:
                addr, port, cid, keepalive, user = m.groups()
                self._conns[(addr, int(port))] = (cid, user, int(keepalive))
                continue
            m = _GONE.search(line)
            if m:
                cid = m.group(1)
                for key in [k for k, v in self._conns.items() if v[0] == cid]:
                    del self._conns[key]

    def tick(self) -> None:
        self._read_log()
        live = self.source({p for p in self.ports() if p})
        self._conns = {k: v for k, v in self._conns.items() if k in live}
        quiet: dict[str, bool] = {}             # user -> every connection overran
        for key, (_, user, keepalive) in self._conns.items():
            if user is None:
                continue
            over = keepalive > 0 and live[key].silent > 1.5 * keepalive + self.slack
            quiet[user] = quiet.get(user, True) and over
        silent = {u for u, q in quiet.items() if q}
        for user in sorted(silent - self._silent):
            self.on_change(user, True)
        for user in sorted((self._silent - silent) & quiet.keys()):
            self.on_change(user, False)
        self._silent = silent
