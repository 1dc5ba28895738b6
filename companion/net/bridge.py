"""The hub's side of protocol v1: the one link between the table :class:`~companion.service.hub.Hub`
and the MQTT broker (docs/protocol.md, sections 4-7 and 9).

* **Commands in.** The bridge logs in as ``hub`` and subscribes to every seat's ``cmd`` and
  ``presence``. Each command is parsed (:func:`companion.net.protocol.parse_command`), checked
  against the seat registry, de-duplicated by ``tx`` and handed to :meth:`Hub.submit`. Commands
  flagged *retained* are never applied (the broker replays those on subscribe; the bridge
  clears them).
* **Acknowledge first, then draw.** After a command that came over MQTT the bridge publishes,
  in this order: one ``events`` message per *public* notice, the commanding seat's own ``view``
  (retained, on that seat's private topic only), its ``reply``; then, once the commands already
  waiting have had theirs, every other ``view`` that changed and the public ``state`` (the
  *fan-out*, one for all the commands it covers). Any other change (a timer, a touch on the
  screen, a join) publishes its events and then the fan-out. A retained document is published
  only when it changed apart from ``rev``, ``now`` and the timers' ``left``.
  ``Bridge(order="legacy")`` keeps protocol v1's first order (events, every view, the state,
  then the reply, per command) for the benchmark's before/after comparison.
* **Commands that arrive together are saved together** (group commit): the worker takes every
  command already waiting in its queue (up to :data:`MAX_GROUP`), applies them one by one in one
  log transaction, and makes them durable with one fsync (:meth:`Hub.batch`). Nothing of the
  group leaves before that: then its events, each commanding seat's own view and the replies,
  in arrival order. If the save fails, every command of the group is forgotten and answered
  ``cannot_save`` (safe to retry). ``group_commit=False`` saves each command alone (the
  benchmark's before).
* **Seats.** Each seat number gets a seat id (= its MQTT username, ``s<n>-<random>``) when a
  phone first joins; the ids are kept in the session's log meta so a restarted hub gives the
  same seats the same ids. A join or a reclaim issues a fresh password (and drops any
  connection still using the old one: one seat, one device). On an external broker the
  operator's seat logins are handed out instead (they cannot be rotated).
* **Presence.** Each seat's ``presence`` topic becomes ``hub.seats[i].online``. On mosquitto,
  whose keepalive sweep runs only every 6 s, a :class:`~companion.net.silence.SilenceWatch`
  reports a seat whose connections went silent past their keepalive, and the bridge publishes
  its offline presence as the Last Will would (taken back if the phone speaks again).

Threads: everything the bridge publishes is published from one worker thread, so messages
leave in the order above even when the Kivy screen or the timer thread changes the hub. Hub
events raised on other threads are queued to that worker; the ones raised by the worker's own
``submit`` are handled in line, before the reply.

Safety: the bridge publishes a private notice or a seat view only on that seat's ``view``
topic (the broker's wall keeps everyone else off it); the public ``state`` and ``events`` are
built from the core's public projection only.
"""
from __future__ import annotations

import collections
import dataclasses
import json
import logging
import queue
import threading
import time

from companion.core.errors import CompanionError, ConfigError, StorageError
from companion.service.hub import (BadNameError, JoinError, NameTakenError, SeatMovedError,
                                   TableFullError)

from . import credentials as cred
from . import protocol
from .brokers import MosquittoBroker
from .client import ConnectError, MqttClient
from .silence import SilenceWatch
from .topics import HUB_USER, TableTopics, check_seat_id

log = logging.getLogger(__name__)
_UNSET = object()

#: How many recent ``tx`` per seat the bridge remembers to answer a repeat without applying it.
RECENT_TX = 256
#: The largest JSON body ``POST /join`` accepts.
MAX_JOIN_BYTES = 4096
#: A presence message is ``{"v":1,"online":true}``; anything much longer is not one.
MAX_PRESENCE_BYTES = 64
#: Table facts alone (presence, alerts, a scan) republish the public state at most this often.
STATE_EVERY = 1.0
#: How the bridge orders what it publishes after a command (module docstring).
ORDERS = ("ack-first", "legacy")
#: Seconds the worker waits for the broker to take a reply before it starts a fan-out.
REPLY_WAIT = 0.05
#: The most commands one save covers (group commit); the rest wait for the next group.
MAX_GROUP = 64
#: Fields of a retained document that change with every record without anything a player
#: sees changing: a document that differs only in them (and in a running timer's ``left``) is
#: not published again.
VOLATILE = ("seq", "rev", "now")


def _tx_of(payload):
    try:
        return json.loads(payload).get("tx")
    except (ValueError, AttributeError, TypeError, RecursionError):
        return None


class JoinRefused(CompanionError):
    """A ``POST /join`` the table refuses; ``status`` and ``code`` as in protocol section 9.5."""

    def __init__(self, status: int, code: str, message: str):
        super().__init__(message)
        self.status, self.code, self.message = status, code, message

    def body(self) -> dict:
        return {"v": 1, "error": {"code": self.code, "message": self.message}}


class BridgeStopped(CompanionError):
    """The bridge is not running (the table is stopping or restarting)."""


@dataclasses.dataclass
class SeatLogin:
    seat_id: str
    password: str | None = dataclasses.field(default=None, repr=False)


class Bridge:
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
        self._revs: dict[str, int | None] = {}     # topic -> its rev (ack-first order)
        self._fanout_queued = False                # a fan-out job waits in the queue
        self._dirty = False                        # views changed since the last fan-out
        self._session_id = _UNSET
        self._join_lock = threading.Lock()
        self._presence_seen = threading.Condition()
        self._presence_log: dict[int, int] = collections.Counter()
        self._watch: SilenceWatch | None = None    # mosquitto: phones silent past keepalive
        self._silenced: set[str] = set()           # seat ids the hub said offline for
        self._outage = False                       # the broker is down and we said so
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
        if isinstance(self.broker, MosquittoBroker):
            watch = SilenceWatch(self.broker.log_path,
                                 lambda: (self.broker.tcp_port, self.broker.ws_port),
                                 self._silence_seen)
            if watch.available():
                self._watch = watch.start()
        return self

    def stop(self) -> None:
        """Say the hub is offline (retained), then disconnect cleanly."""
        if self._worker is None:
            return
        if self._watch is not None:
            self._watch.stop()
            self._watch = None
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
                log.warning("The table cannot reach its message broker, so phones miss what "
                            "changes until it is back (it is restarted by itself).")
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

    def _republish(self):
        if self._outage:
            self._outage = False
            log.warning("The table reached its message broker again.")
        self._last.clear()
        self._publish_everything()

    # -- hub events (any thread) ------------------------------------------------------------------
    def _on_hub_event(self, event):
        # The seq is read now, on the thread that made the change, so each event carries the
        # seq of the command that caused it even when the worker publishes it a little later.
        item = (event, self._seq())
        self._pending.append(item)
        if self._in_worker():
            if self._held is not None:
                self._held["events"].append(item)   # published once the group is saved
                return
            self._flush_hub_events()
        else:
            self._jobs.put((self._flush_hub_events, (), None))

    def _flush_hub_events(self):
        """Publish the notices of every hub event so far, in order, then the views.

        Views are computed when published, so they may already show a later change than the
        event being handled; publishing all pending events first keeps "a command's events
        come before any view that shows its effects" (a phone must see ChoiceLocked before a
        view that reveals the window). In the ack-first order the views follow in the fan-out,
        after the commands already waiting have had their replies."""
        views, state = self._publish_events()
        if views:
            if self.order == "legacy":
                self._publish_views()
            else:
                self._views_soon()
        elif state:
            self._state_soon()

    def _publish_events(self):
        """Every pending hub event's public notices; ``(views changed, state changed)``."""
        views = state = False
        while self._pending:
            event, seq = self._pending.popleft()
            kind = event.get("kind")
            if kind == "changed":
                self._check_session()
                for notice in event.get("notices") or ():
                    if "to" in notice:
                        continue                # private: only inside that seat's view
                    self._publish(self.topics.events, protocol.event(seq, notice))
                views = True
            elif kind == "lobby":
                views = True
            elif kind in ("alert", "scan", "presence"):
                state = True                    # table facts: the public state only
        return views, state

    def _views_soon(self):
        """The fan-out, after the jobs already queued (commands waiting get their replies
        first; one fan-out then covers them all)."""
        self._dirty = True
        if not self._fanout_queued:
            self._fanout_queued = True
            self.call_soon(self._fanout)

    def _fanout(self):
        self._fanout_queued = False
        if self._dirty:
            self._publish_views()

    def _state_soon(self):
        """The public state after a change of table facts (presence, alerts, a scan), at most
        once a second: a seat toggling its presence cannot make the hub fan out."""
        wait = STATE_EVERY - (time.monotonic() - self._state_at)
        if wait <= 0:
            self._publish_state()
        elif not self._state_timer:
            self._state_timer = True
            t = threading.Timer(wait, lambda: self.call_soon(self._deferred_state))
            t.daemon = True
            t.start()

    def _deferred_state(self):
        self._state_timer = False
        self._publish_state()

    def _publish_state(self):
        self._state_at = time.monotonic()
        self._publish_retained(self.topics.state, self.public_state())

    def _seq(self):
        s = self.hub.session
        return s.state.seq if s is not None else 0

    def _rev(self):
        s = self.hub.session
        return (id(s), s.version) if s is not None else None

    def _check_session(self):
        """A new session (start, resume): persist the seat ids and announce it."""
        s = self.hub.session
        sid = s.id if s is not None else None
        if sid == self._session_id:
            return
        self._session_id = sid
        if s is not None:
            self._load_seat_ids()
            self._save_seat_ids()
        self._publish(self.topics.hub_status, protocol.hub_status(True, sid), retain=True)

    # -- publishing -------------------------------------------------------------------------------
    def _publish(self, topic, message, retain=False, force=True):
        data = protocol.encode(message) if isinstance(message, dict) else message
        if len(data) > protocol.MAX_PAYLOAD_BYTES:
            # the broker would drop it silently; say so loudly instead
            log.error("not publishing %d bytes on %s: over the %d-byte limit", len(data), topic,
                      protocol.MAX_PAYLOAD_BYTES)
            self.stats["oversize"] += 1
            return
        if retain and not force and self._last.get(topic) == data:
            return
        if retain:
            self._last[topic] = data
        info = self._client.publish(topic, data, qos=1, retain=retain, wait=False)
        self.stats["published"] += 1
        return info

    def _publish_doc(self, topic, doc):
        """A retained document (a view, the state), unless all that changed since we last
        sent it on ``topic`` is :data:`VOLATILE` or a running timer's ``left``.

        The document is encoded once: everything but those fields first (that is what is
        compared), then the fields are appended to the same JSON object."""
        tail = {k: doc[k] for k in VOLATILE if k in doc}
        body = protocol.encode({k: v for k, v in doc.items() if k not in VOLATILE})
        key = body
        timers = doc.get("timers")
        if timers and isinstance(timers, dict) and any(
                isinstance(t, dict) and "left" in t for t in timers.values()):
            # the timers go last, with the volatile fields; compared without their "left"
            body = protocol.encode({k: v for k, v in doc.items()
                                    if k not in VOLATILE and k != "timers"})
            key = body + b"\n" + protocol.encode(
                {n: {k: v for k, v in t.items() if k != "left"} if isinstance(t, dict) else t
                 for n, t in timers.items()})
            tail = {"timers": timers, **tail}
        if self._last.get(topic) == key:
            self.stats["unchanged"] += 1
            return
        if not tail:
            data = body
        elif body == b"{}":
            data = protocol.encode(tail)
        else:
            data = body[:-1] + b"," + protocol.encode(tail)[1:]
        if len(data) > protocol.MAX_PAYLOAD_BYTES:
            self._publish(topic, data, retain=True)          # says it is too large
            return
        self._last[topic] = key
        self._revs[topic] = doc.get("rev")
        self._client.publish(topic, data, qos=1, retain=True, wait=False)
        self.stats["published"] += 1

    def _decorate(self, view):
        view["table"] = self.topics.table
        view["seat_ids"] = self.seat_ids()
        return view

    def seat_ids(self) -> list:
        return [self.logins[n].seat_id if n in self.logins else None
                for n in range(len(self.hub.seats))]

    def seat_view(self, seat: int, view=None) -> dict:
        """The seat's view as its phone gets it: the hub's view with the table and seat ids."""
        return self._decorate(self.hub.seat_view(seat) if view is None else view)

    def public_state(self) -> dict:
        return self._decorate(self.hub.public_view())

    def _publish_retained(self, topic, doc):
        if self.order == "legacy":
            self._publish(topic, doc, retain=True, force=False)
            self._revs[topic] = doc.get("rev")
        else:
            self._publish_doc(topic, doc)

    def _publish_views(self):
        """Every seat's view and then the public state, each only if it changed."""
        self._dirty = False
        self._publish_events()          # events of changes these views may already show
        seats = [n for n in sorted(self.logins) if n < len(self.hub.seats)]
        pub, per_seat = self.hub.views(seats)        # one moment, one public projection
        for n in seats:
            self._publish_retained(self.topics.view(self.logins[n].seat_id),
                                   self.seat_view(n, per_seat[n]))
        self._publish_retained(self.topics.state, self._decorate(pub))
        self._state_at = time.monotonic()

    def _publish_own_view(self, seat):
        """The commanding seat's view, before its reply: when the reply arrives the phone
        already shows what its command did (its lock-in, its card played)."""
        if self._held is not None:
            if seat not in self._held["views"]:
                self._held["views"].append(seat)    # after the group's save
            return
        self._publish_events()
        login = self.logins.get(seat)
        if login is None or seat >= len(self.hub.seats):
            return
        _, per_seat = self.hub.views([seat])     # built as the fan-out builds it: the same
        self._publish_retained(self.topics.view(login.seat_id),     # bytes are not sent twice
                               self.seat_view(seat, per_seat[seat]))
        self.stats["own_views"] += 1

    def _publish_everything(self):
        self._session_id = _UNSET
        self._check_session()
        self._publish_views()

    # -- commands ---------------------------------------------------------------------------------
    def _handle_group(self, group):
        """Commands that arrived together: applied in arrival order, saved by one fsync, then
        published: their events, then in arrival order each commanding seat's own view and its
        reply, and (ack-first) once the broker has taken the replies, the fan-out."""
        t0 = time.perf_counter()
        held = self._held = {"replies": [], "views": [], "memos": [], "events": [],
                             "marks": []}
        lost = None
        try:
            with self.hub.batch():
                for args in group:
                    self._handle_command(*args)
                    if self.trace is not None:
                        held["marks"].append((time.perf_counter(), len(held["replies"])))
        except StorageError as e:
            lost = e
        finally:
            self._held = None
        saved = time.perf_counter()
        if lost is None:
            for seat_id, tx, data in held["memos"]:
                self._remember(seat_id, tx, data)
            self._flush_hub_events()
            views = held["views"]
            answered = {self._by_id.get(seat_id) for seat_id, _ in held["replies"]}
            for seat in list(views):
                if seat not in answered:
                    self._publish_own_view(seat)
            replies = held["replies"]
        else:
            # nothing of the group was kept: its events never happened, every answer that
            # said "ok" becomes "not saved" (a retry with the same tx will run again)
            self.stats["groups_lost"] += 1
            mine = {id(item) for item in held["events"]}
            self._pending = collections.deque(i for i in self._pending if id(i) not in mine)
            for seat_id, tx, data in held["memos"]:
                if not json.loads(data).get("ok"):
                    self._remember(seat_id, tx, data)
            replies = []
            for seat_id, data in held["replies"]:
                reply = json.loads(data)
                if reply.get("ok"):
                    data = protocol.encode(protocol.error_reply(reply.get("tx"), "cannot_save",
                                                                str(lost)))
                replies.append((seat_id, data))
            self._views_soon()
        info, sent = None, []
        for seat_id, data in replies:
            seat = self._by_id.get(seat_id)
            if lost is None and seat in views:
                views.remove(seat)
                self._publish_own_view(seat)            # each seat's view, then its reply
            info = self._publish(self.topics.reply(seat_id), data)
            sent.append(time.perf_counter())
        taken = None
        if self.order != "legacy" and info is not None and self._fanout_queued:
            # The fan-out that follows is Python work holding the GIL: paho's thread (and the
            # embedded broker's) would wait for it before the replies leave. Wait until the
            # broker has them (the last one's PUBACK: paho sends in order; bounded, a slow
            # broker must not stall us).
            try:
                info.wait_for_publish(REPLY_WAIT)
                taken = time.perf_counter()
            except (RuntimeError, ValueError):      # not connected: paho says so; carry on
                pass
            self.stats["reply_waits"] += 1
        self.stats["groups"] += 1
        self.stats["grouped"] += len(group) - 1
        if self.trace is not None:
            before = 0
            for args, (applied, n) in zip(group, held["marks"]):
                replied = sent[n - 1] if n > before else None
                before = n
                self.trace.append((_tx_of(args[1]), args[3], t0, applied, saved, replied,
                                   taken))

    def _reply(self, seat_id, message):
        """Every answer to a command goes through here: held until its group is saved."""
        data = protocol.encode(message) if isinstance(message, dict) else message
        if self._held is not None:
            self._held["replies"].append((seat_id, data))
        else:
            self._publish(self.topics.reply(seat_id), data)

    def _handle_command(self, seat_id, payload, retained, received_at=None):
        """Every payload on a command topic gets an answer; none can stop the bridge."""
        try:
            self._command(seat_id, payload, retained)
        except Exception:
            log.exception("a command from %s could not be handled", seat_id)
            self.stats["internal"] += 1
            try:
                tx = protocol.parse_command(payload).tx
            except Exception:
                tx = None
            self._reply(seat_id, protocol.error_reply(tx, "internal",
                                                      protocol.ERROR_CODES["internal"]))

    def _command(self, seat_id, payload, retained):
        self.stats["commands"] += 1
        if retained:
            # a retained command is a replay from the broker, never a new move: clear it, and
            # remember its tx, since a broker may still deliver the same publish live (amqtt
            # does when the hub subscribes while the publish waits in its broadcast queue)
            self._clearing[seat_id] += 1
            self._client.publish(self.topics.cmd(seat_id), b"", qos=1, retain=True, wait=False)
            self.stats["retained_ignored"] += 1
            try:
                tx = protocol.parse_command(payload).tx
            except protocol.ProtocolError:
                return
            self._remember(seat_id, tx, None)
            return
        if not payload and self._clearing[seat_id] > 0:
            self._clearing[seat_id] -= 1         # our own clearing of a retained command
            self.stats["retained_cleared"] += 1
            return
        seat = self._by_id.get(seat_id)
        try:
            cmd = protocol.parse_command(payload)
        except protocol.ProtocolError as e:
            self._reply(seat_id, protocol.error_reply(e.tx, e.code, e.message))
            return
        if seat is None:
            self._reply(seat_id, protocol.error_reply(
                cmd.tx, "not_seated", "This phone no longer has a seat at the table; join "
                                      "again."))
            return
        recent = self._recent.get(seat_id, {})
        if cmd.tx in recent:
            self.stats["duplicates"] += 1
            if recent[cmd.tx] is not None:           # None: a retained replay, never applied
                self._reply(seat_id, recent[cmd.tx])
            return
        first = self._first_answer(seat, cmd.tx)
        if first is not None:                        # answered before a restart
            self.stats["duplicates"] += 1
            self._remember(seat_id, cmd.tx, first)
            self._reply(seat_id, first)
            return
        rev = self._rev()
        reply = self._apply(seat, cmd)
        if self.order != "legacy" and self._rev() != rev:
            self._publish_own_view(seat)            # acknowledge first, then draw the rest
        data = protocol.encode(reply)
        if reply["ok"] or reply["error"]["code"] not in ("internal", "cannot_save"):
            self._remember(seat_id, cmd.tx, data)   # a retry of those must run again
            s = self.hub.session
            if not reply["ok"] and s is not None:
                try:
                    self.hub.log.put_reply(s.id, seat, cmd.tx, data.decode())
                except Exception:                   # a refusal changes nothing: best effort
                    log.warning("could not keep the answer to %s", cmd.tx, exc_info=True)
        self._reply(seat_id, data)

    def _first_answer(self, seat, tx) -> bytes | None:
        """The answer a command with this ``tx`` got before (from the session's log, which
        outlives a restart): its record if it was applied, its refusal if it was refused."""
        s = self.hub.session
        if s is None:
            return None
        rec = s.find_tx(seat, tx)
        if rec is not None:
            return protocol.encode(protocol.ok_reply(tx, {"seq": rec.get("seq")}))
        stored = self.hub.log.get_reply(s.id, seat, tx)
        return stored.encode() if stored is not None else None

    def _remember(self, seat_id, tx, reply):
        if self._held is not None and reply is not None:
            self._held["memos"].append((seat_id, tx, reply))     # once the group is saved
            return
        recent = self._recent.setdefault(seat_id, collections.OrderedDict())
        recent[tx] = reply
        while len(recent) > RECENT_TX:
            recent.popitem(last=False)

    def _apply(self, seat, cmd) -> dict:
        s = self.hub.session
        if s is not None and s.state.outcome is not None:
            return protocol.error_reply(cmd.tx, "game_over", "The game has ended; no more "
                                                             "moves.")
        try:
            self.hub.submit(seat, cmd.move, cmd.args, tx=cmd.tx)
        except CompanionError as e:
            self.stats["refused"] += 1
            return protocol.reply_for(cmd.tx, e)
        except Exception as e:                   # a bug in a game: refuse, keep running
            log.exception("seat %s move %s failed", seat, cmd.move)
            return protocol.reply_for(cmd.tx, e)
        return protocol.ok_reply(cmd.tx, {"seq": self._seq()})

    # -- presence ---------------------------------------------------------------------------------
    def _handle_presence(self, seat_id, payload):
        seat = self._by_id.get(seat_id)
        online = None
        if len(payload) <= MAX_PRESENCE_BYTES:
            try:
                obj = json.loads(payload.decode("utf-8"))
                online = obj.get("online") if isinstance(obj, dict) else None
            except (ValueError, UnicodeDecodeError, RecursionError):
                online = None
        if seat is None:
            return
        if not isinstance(online, bool):
            # junk retained on a seat's presence topic would reach every phone that
            # subscribes later: replace it with what the hub knows
            self.stats["presence_refused"] += 1
            if payload:
                self._client.publish(self.topics.presence(seat_id), protocol.encode(
                    protocol.presence(self.presence_of(seat))), qos=1, retain=True, wait=False)
            return
        if online:
            self._silenced.discard(seat_id)     # the phone speaks for itself again
        self.hub.set_presence(seat, online)
        with self._presence_seen:
            self._presence_log[seat] += 1
            self._presence_seen.notify_all()

    def _silence_seen(self, user, silent):
        """The silence watch (its thread): hand over to the worker."""
        self._jobs.put((self._on_silence, (user, silent), None))

    def _on_silence(self, seat_id, silent):
        """Every connection of a seat overran its keepalive (``silent``), or spoke again: say
        what its Last Will will say (mosquitto fires it only at its next sweep, up to 6 s
        later), or take that back. Retained, on the seat's presence topic, as the Will."""
        seat = self._by_id.get(seat_id)
        if seat is None or seat >= len(self.hub.seats):
            return
        if silent:
            if not self.presence_of(seat):
                return
            self._silenced.add(seat_id)
            self.stats["silent"] += 1
        elif seat_id in self._silenced and not self.presence_of(seat):
            self._silenced.discard(seat_id)
            self.stats["silence_ended"] += 1
        else:
            return
        online = not silent
        self.hub.set_presence(seat, online)
        self._client.publish(self.topics.presence(seat_id), protocol.encode(
            protocol.presence(online)), qos=1, retain=True, wait=False)

    def _publish_offline(self, seat):
        """A seat's offline presence, published by the hub (a dropped login fires no Will on
        mosquitto); returns once the hub has seen it come back."""
        login = self.logins[seat]
        with self._presence_seen:
            before = self._presence_log[seat]
        self._client.publish(self.topics.presence(login.seat_id),
                             protocol.encode(protocol.presence(False)), qos=1, retain=True,
                             wait=True)
        with self._presence_seen:
            self._presence_seen.wait_for(lambda: self._presence_log[seat] > before, 2.0)

    # -- seats and logins ------------------------------------------------------------------------
    def _meta(self):
        try:
            return self.hub.session_meta() or None
        except CompanionError:
            return None

    def _load_seat_ids(self):
        """Seat ids kept in the session's meta by an earlier run of this table."""
        meta = self._meta() or {}
        for n, sid in enumerate(meta.get("seat_ids") or ()):
            if sid and n not in self.logins:
                self._set_login(n, SeatLogin(sid))

    def _save_seat_ids(self):
        self.hub.update_session_meta(seat_ids=self.seat_ids())

    def _set_login(self, seat, login):
        old = self.logins.get(seat)
        if old is not None and old.seat_id != login.seat_id:
            self._by_id.pop(old.seat_id, None)
        self.logins[seat] = login
        self._by_id[login.seat_id] = seat

    def _issue_login(self, seat) -> SeatLogin:
        """A fresh login for ``seat``: a new password; the old one and any connection using it
        stop working. On an external broker: the operator's login for that seat."""
        if self._operator_logins is not None:
            if seat >= len(self._operator_logins):
                raise JoinRefused(409, "table_full", "The broker's operator gave this table "
                                                     "fewer seat logins than seats.")
            login = self._operator_logins[seat]
            self.call(self._set_login, seat, login)
            return login
        login = self.logins.get(seat)
        if login is None:
            taken = set(self._by_id)
            sid = cred.new_seat_id(seat + 1)
            while sid in taken:
                sid = cred.new_seat_id(seat + 1)
            login = SeatLogin(sid)
        rotating = login.password is not None or login.seat_id in self.broker.users()
        if rotating:
            self.broker.remove_user(login.seat_id)      # drops the old device's connection
        login = SeatLogin(login.seat_id, cred.new_password())
        self.broker.add_user(login.seat_id, login.password)
        self.call(self._set_login, seat, login)
        if rotating:
            self._publish_offline(seat)
        return login

    def _answer(self, seat, token, host) -> dict:
        login = self.logins[seat]
        t = self.topics
        sid = login.seat_id
        ws = self.broker.ws_url_for(host) if host else self.broker.ws_url
        return {"v": 1, "table": t.table, "seat": seat, "seat_id": sid, "username": sid,
                "password": login.password, "token": token, "ws_url": ws, "base": t.base,
                "name": self.hub.seats[seat].name,
                "topics": {"state": t.state, "events": t.events, "hub_status": t.hub_status,
                           "presence": t.presence(sid), "all_presence": t.all_presence,
                           "view": t.view(sid), "cmd": t.cmd(sid), "reply": t.reply(sid)}}

    def join(self, name, room, host=None) -> dict:
        """``POST /join`` with a name and the room code: a seat and its login (section 9.1)."""
        if not isinstance(name, str) or not isinstance(room, str):
            raise JoinRefused(400, "bad_request", "Send your name and the room code.")
        if len(room) > 16:
            raise JoinRefused(400, "bad_request", "That is not a room code.")
        hub = self.hub
        self._need_broker()
        with self._join_lock:
            if room.strip().upper() != hub.room_code:
                raise JoinRefused(403, "wrong_room", "That room code is not this table's. "
                                                     "Check the code on the table screen.")
            s = hub.session
            if s is not None and s.state.outcome is not None:
                raise JoinRefused(410, "game_over", "The game at this table has ended.")
            if not hub.seats:
                raise JoinRefused(409, "no_game", "The table has not chosen a game yet; try "
                                                  "again in a moment.")
            try:
                seat, token = hub.join(name, room)
            except BadNameError as e:
                raise JoinRefused(400, "bad_request", str(e)) from None
            except NameTakenError as e:
                raise JoinRefused(409, "name_taken", str(e)) from None
            except JoinError as e:
                raise JoinRefused(409, "table_full", str(e)) from None
            return self._seat_login(seat, token, host)

    def _need_broker(self):
        """No seat is taken or handed out while the broker is down (it is being restarted)."""
        if not self.broker.alive():
            raise JoinRefused(503, "unavailable", "The table is restarting its connection for "
                                                  "phones; try again in a few seconds.")

    def _seat_login(self, seat, token, host) -> dict:
        self._issue_login(seat)
        self.call_soon(self._save_seat_ids)
        self.call_soon(self._publish_views)
        return self._answer(seat, token, host)

    def reclaim(self, token, host=None) -> dict:
        """``POST /join`` with the token of an earlier join: the same seat, a new password."""
        if not isinstance(token, str) or not 1 <= len(token) <= 128:
            raise JoinRefused(400, "bad_request", "Send the token this phone was given.")
        self._need_broker()
        with self._join_lock:
            try:
                seat = self.hub.reclaim(token)
            except SeatMovedError as e:
                raise JoinRefused(404, "moved", str(e)) from None
            except CompanionError:
                raise JoinRefused(404, "unknown_token", "This phone's seat is not at this "
                                                        "table any more; join again.") from None
            return self._seat_login(seat, token, host)

    def claim_handover(self, code, host=None) -> dict:
        """``POST /join`` with a one-seat code from the table screen: that seat moves to this
        phone; the old phone's login stops working at once."""
        if not isinstance(code, str) or not 1 <= len(code) <= 32:
            raise JoinRefused(400, "bad_request", "Send the seat code from the table screen.")
        self._need_broker()
        with self._join_lock:
            try:
                seat, token = self.hub.claim_handover(code)
            except JoinError as e:
                raise JoinRefused(404, "unknown_code", str(e)) from None
            return self._seat_login(seat, token, host)

    def rename(self, token, name) -> dict:
        """``POST /rename``: the seat holding ``token`` takes a new name."""
        if not isinstance(token, str) or not 1 <= len(token) <= 128:
            raise JoinRefused(400, "bad_request", "Send the token this phone was given.")
        try:
            seat = self.hub.reclaim(token)
        except SeatMovedError as e:
            raise JoinRefused(404, "moved", str(e)) from None
        except JoinError:
            raise JoinRefused(404, "unknown_token", "This phone's seat is not at this table "
                                                    "any more; join again.") from None
        try:
            name = self.hub.rename(seat, name)
        except BadNameError as e:
            raise JoinRefused(400, "bad_request", str(e)) from None
        except NameTakenError as e:
            raise JoinRefused(409, "name_taken", str(e)) from None
        except CompanionError as e:
            raise JoinRefused(409, "refused", str(e)) from None
        return {"v": 1, "ok": True, "seat": seat, "name": name}

    def handle_join(self, body: bytes, host=None) -> dict:
        """The whole ``POST /join``: the JSON body in, the answer out (or :class:`JoinRefused`)."""
        obj = self._json_body(body)
        if obj.get("handover") is not None:
            return self.claim_handover(obj.get("handover"), host)
        if obj.get("token") is not None:
            return self.reclaim(obj.get("token"), host)
        return self.join(obj.get("name"), obj.get("room"), host)

    def handle_rename(self, body: bytes) -> dict:
        """The whole ``POST /rename``."""
        obj = self._json_body(body)
        return self.rename(obj.get("token"), obj.get("name"))

    @staticmethod
    def _json_body(body: bytes) -> dict:
        if len(body) > MAX_JOIN_BYTES:
            raise JoinRefused(400, "bad_request", "The request is too large.")
        try:
            obj = json.loads(body.decode("utf-8"))
        except (ValueError, UnicodeDecodeError):
            raise JoinRefused(400, "bad_request", "The request is not JSON.") from None
        if not isinstance(obj, dict):
            raise JoinRefused(400, "bad_request", "The request must be a JSON object.")
        return obj

    # -- for tests and the bench ------------------------------------------------------------------
    def wait_idle(self, timeout: float = 5.0) -> None:
        """Return once every job queued before this call has run."""
        self.call(lambda: None, timeout=timeout)

    def retained_revs(self) -> dict:
        """``{"state": rev, seat: rev, ...}``: the ``rev`` of the retained documents as last
        published (ack-first order; a document that did not change keeps an older rev)."""
        def get():
            out = {"state": self._revs.get(self.topics.state)}
            for n, login in self.logins.items():
                out[n] = self._revs.get(self.topics.view(login.seat_id))
            return out
        return self.call(get)

    def presence_of(self, seat) -> bool:
        return bool(self.hub.seats[seat].online)

