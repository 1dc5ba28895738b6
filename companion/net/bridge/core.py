"""The bridge's life: :class:`Bridge` itself (its state, start and stop), the one worker
thread everything is published from, and what comes in over MQTT (queued to that worker).
The package's docstring says what the bridge does; the other parts are mixed in here."""
from __future__ import annotations

import collections
import logging
import queue
import secrets
import threading
import time

from companion.core.errors import CompanionError, ConfigError

from .. import credentials as cred
from .. import protocol
from ..client import ConnectError, MqttClient
from ..topics import HUB_USER, TableTopics, check_seat_id
from .commands import MAX_GROUP, Commands
from .joining import Joining, SeatLogin
from .presence import Presence
from .publishing import _UNSET, Publishing

log = logging.getLogger(__name__)

#: How the bridge orders what it publishes after a command (the package's docstring).
ORDERS = ("ack-first", "legacy")


class BridgeStopped(CompanionError):
    """The bridge is not running (the table is stopping or restarting)."""


class Bridge(Joining, Presence, Commands, Publishing):
    """Connects one :class:`Hub` to one broker. ``start()`` / ``stop()``, or a context manager.

    ``broker``: a started :class:`companion.net.brokers.Broker`. For brokers we run, the bridge
    adds the hub's login and the seats' logins itself; for an external broker pass
    ``hub_password`` and ``seat_logins`` (the operator's ``[(username, password), ...]``).
    """

    def __init__(self, hub, broker, *, hub_password: str | None = None, seat_logins=None,
                 keepalive: int = 10, order: str = "ack-first", group_commit: bool = True):
        if order not in ORDERS:
            raise ConfigError(f"order must be one of {', '.join(ORDERS)}, not {order!r}.")
        self.order = order
        # the legacy order is the benchmark's "before": one save per command, as it was
        self.group_commit = group_commit and order != "legacy"
        self.hub = hub
        self.broker = broker
        self.topics = TableTopics(hub.table)
        self.keepalive = keepalive
        if broker.manages_users:
            self._hub_cred = cred.hub_credential(hub_password)
            self._operator_logins = None
        else:
            if not hub_password:
                raise ConfigError("An external broker needs the hub's password (the "
                                  "operator's 'hub' login).")
            self._hub_cred = cred.hub_credential(hub_password)
            self._operator_logins = [SeatLogin(check_seat_id(u), p)
                                     for u, p in cred.as_pairs(seat_logins)]
        self.logins: dict[int, SeatLogin] = {}
        self._by_id: dict[str, int] = {}
        self._recent: dict[str, collections.OrderedDict] = {}
        self._clearing: collections.Counter = collections.Counter()   # seat id -> our clears
        self._state_at = 0.0                 # monotonic time of the last public state
        self._state_timer = False
        self._jobs: queue.Queue = queue.Queue()
        self._pending: collections.deque = collections.deque()     # hub events to publish
        self._worker: threading.Thread | None = None
        self._client: MqttClient | None = None
        self._unsubscribe = None
        self._last: dict[str, bytes] = {}          # topic -> last retained document we sent
        self.outside = False                # a club is attached: publish the outside state too
        self._outside_topic = None
        self._revs: dict[str, int | None] = {}     # topic -> its rev (ack-first order)
        self._fanout_queued = False                # a fan-out job waits in the queue
        self._dirty = False                        # views changed since the last fan-out
        self._session_id = _UNSET
        self._join_lock = threading.Lock()
        self._presence_seen = threading.Condition()
        self._presence_log: dict[int, int] = collections.Counter()
        self._watch = None                         # mosquitto: a SilenceWatch (presence)
        self._silenced: set[str] = set()           # seat ids the hub said offline for
        self._outage = False                       # the broker is down and we said so
        self._planned_until = 0.0                  # a restart asked for (monotonic deadline)
        self._stopped = threading.Event()
        self._held = None              # inside a group: the replies, own views and memos held
        self.stats = collections.Counter()
        #: a list to collect one timing row per command (the benchmark sets it), else None:
        #: ``(tx, received, start, applied, saved, replied, taken)``, perf_counter seconds:
        #: handed over by paho, its group began, its rules and append done, the group's save
        #: done, its reply handed to paho, the broker's PUBACK of the group's replies (None
        #: when not waited for)
        self.trace = None

    # -- life -------------------------------------------------------------------------------------
    def start(self) -> "Bridge":
        if self.broker.manages_users:
            self.broker.add_credential(self._hub_cred)
        self._load_seat_ids()
        self.boot = secrets.token_hex(4)         # hub_status: a new id at every start
        offline = protocol.encode(protocol.hub_status(False))
        self._client = MqttClient(self.broker.url, HUB_USER, self._hub_cred.password,
                                  will=(self.topics.hub_status, offline, 1, True),
                                  keepalive=self.keepalive, on_message=self._on_message,
                                  reconnect=True, max_inflight=1000,
                                  on_reconnect=self._on_reconnect)
        self._client.connect()
        self._stopped.clear()
        self._worker = threading.Thread(target=self._work, name="tc-bridge", daemon=True)
        self._worker.start()
        self._unsubscribe = self.hub.subscribe(self._on_hub_event)
        self._client.subscribe(self.topics.hub_subscriptions())
        self.call(self._publish_everything)
        self._start_watch()
        return self

    def stop(self) -> None:
        """Say the hub is offline (retained), then disconnect cleanly."""
        if self._worker is None:
            return
        self._stop_watch()
        if self._unsubscribe is not None:
            self._unsubscribe()
            self._unsubscribe = None
        try:
            self.call(lambda: self._publish(self.topics.hub_status,
                                            protocol.hub_status(False), retain=True), timeout=5)
        except Exception:                       # stopping must not fail on a dead broker
            log.warning("could not publish the hub's offline status", exc_info=True)
        self._jobs.put(None)
        self._worker.join(5)
        self._worker = None
        if self._client is not None:
            self._client.close()
            self._client = None
        self._stopped.set()

    def __enter__(self):
        return self.start()

    def __exit__(self, *exc):
        self.stop()

    # -- the worker -------------------------------------------------------------------------------
    def _work(self):
        while True:
            job = self._jobs.get()
            if job is None:
                return
            if job[0] == self._handle_command:
                # the commands already waiting behind this one are saved with it
                group, job = [job[1]], _UNSET
                while self.group_commit and len(group) < MAX_GROUP:
                    try:
                        nxt = self._jobs.get_nowait()
                    except queue.Empty:
                        break
                    if nxt is None or nxt[0] != self._handle_command:
                        job = nxt                   # the next job, run after the group
                        break
                    group.append(nxt[1])
                self._run_job(self._handle_group, (group,), None)
                if job is _UNSET:
                    continue
                if job is None:
                    return
            self._run_job(*job)

    def _run_job(self, fn, args, done):
        try:
            result = fn(*args)
            if done is not None:
                done.put((True, result))
        except ConnectError as e:           # the broker is down: expected, said once
            if done is not None:
                done.put((False, e))
            elif not self._outage:
                self._outage = True
                if time.monotonic() < self._planned_until:      # asked for: no alarm
                    log.info("The table's message broker restarts to link to the club; "
                             "phones reconnect by themselves.")
                else:
                    log.warning("The table cannot reach its message broker, so phones miss "
                                "what changes until it is back (it is restarted by itself).")
        except BaseException as e:          # a bad job must never stop the bridge
            if done is not None:
                done.put((False, e))
            else:
                log.exception("bridge job %r failed", getattr(fn, "__name__", fn))

    def _in_worker(self) -> bool:
        return threading.current_thread() is self._worker

    def call_soon(self, fn, *args) -> None:
        """Run ``fn(*args)`` on the bridge's worker, after what is already queued."""
        self._jobs.put((fn, args, None))

    def call(self, fn, *args, timeout: float = 10.0):
        """Run ``fn(*args)`` on the worker and return its result (or raise its error)."""
        if self._in_worker():
            return fn(*args)
        worker = self._worker
        if worker is None or not worker.is_alive():
            raise BridgeStopped("The table is stopping; try again in a moment.")
        done: queue.Queue = queue.Queue(1)
        self._jobs.put((fn, args, done))
        try:
            ok, value = done.get(timeout=timeout)
        except queue.Empty:
            raise BridgeStopped("The table did not answer in time; try again.") from None
        if not ok:
            raise value
        return value

    # -- MQTT in (paho's thread: only queue) ------------------------------------------------------
    def _on_message(self, m):
        try:
            info = self.topics.parse(m.topic)
        except CompanionError:
            return
        if info.kind.name == "cmd":
            self._jobs.put((self._handle_command, (info.seat, m.payload, m.retain,
                                                    m.received_at), None))
        elif info.kind.name == "presence":
            self._jobs.put((self._handle_presence, (info.seat, m.payload), None))

    def _on_reconnect(self):
        """Back after a lost connection: our Will said offline, and a restarted broker may
        have lost every retained document: publish them all again."""
        self.stats["reconnects"] += 1
        self._jobs.put((self._republish, (), None))

    def planned_restart(self, within: float = 30.0) -> None:
        """The broker is about to be restarted on purpose (a club bridge added or dropped:
        mosquitto reads bridges only at start): the loss of it within ``within`` seconds is
        no outage, and is not reported as one (issue 35)."""
        self._planned_until = time.monotonic() + within

    def _republish(self):
        if self._outage:
            self._outage = False
            if time.monotonic() < self._planned_until:
                log.info("The table's message broker is back, linked to the club.")
            else:
                log.warning("The table reached its message broker again.")
            self._planned_until = 0.0
        self._last.clear()
        self._publish_everything()

    # -- for tests and the bench ------------------------------------------------------------------
    def wait_idle(self, timeout: float = 5.0) -> None:
        """Return once every job queued before this call has run."""
        self.call(lambda: None, timeout=timeout)
