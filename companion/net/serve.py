"""One table, headless: the session store, the hub, a broker, the bridge and the phone page,
composed and started in order and stopped in reverse (``companion serve``; ``companion run``
adds the Kivy screen on top of the same :class:`TableServer`). The broker is ``auto`` unless
told otherwise: a mosquitto child when mosquitto is installed, else the embedded broker.

>>> # s = TableServer("kitchen", db="/tmp/s.db", game="great-powers", players=4).start()
>>> # print(s.hub.join_url); ...; s.stop()

A restart with the same ``table`` and ``db`` resumes the open session that table played last from
its log: same game, same seats (the phones reclaim them with their tokens), same room code.

The join address follows the network. Without ``public_host`` (``--host``) the address phones
use is the box's LAN address, and a box switched on before its Wi-Fi is up starts with none
(127.0.0.1). A thread asks :func:`~companion.net.web.lan_ip` again every ``address_poll``
seconds (a UDP ``connect`` that sends nothing: a few system calls); when the answer changes, the
web server, ``hub.join_url`` and every published view take the new address and
:meth:`TableServer.on_address` listeners (the table screen) are told. Polling rather than
netlink: what matters is the source address the routing table picks for the LAN, which moves on
route changes as well as address changes, and reading rtnetlink by hand (or with pyroute2, a
new dependency) for that is more code than the question deserves; a few seconds' lag is less
than the walk from the router to the table.

Phones are ``required`` (``companion serve``: a table nobody can join is no use, so a broker or
phone page that cannot start is an exit with its sentence) or ``optional`` (``companion run``:
the table on the screen works without them). Optional, an error from the phone side (a taken
port, a mosquitto that fails: a ``CompanionError`` or an ``OSError``) leaves the table with the
hub only: no broker, bridge or web server, ``hub.join_url`` None, ``phones_error`` the
sentence, and an alert (key ``"phones"``) beginning "Phones cannot join:" that the screen shows
as a banner; its lobby and Join dialog then say phones cannot join instead of a QR. The box's
unit does not restart a table that cannot take phones: it stays up, by touch.
"""
from __future__ import annotations

import logging
import threading

from companion.core.errors import CompanionError, ConfigError
from companion.core.log import SQLiteLog

from .brokers import auto_mode, make_broker
from .bridge import Bridge
from .topics import check_table_id
from .web import WebServer, is_loopback, lan_ip

log = logging.getLogger(__name__)

START_MODES = ("full", "now", "manual")
PHONES = ("required", "optional")
#: The hub alert (kind and key) that says phones cannot join; its message begins with this.
PHONES_ALERT = "phones"
PHONES_OFF = "Phones cannot join: "
PHONES_OFF_NEXT = "Meanwhile the table works by touch only; restart it once that is done."
MOSQUITTO_ONLY = ("binary", "run_dir", "persistence", "max_queued_messages")


class TableServer:
    """``start``: ``"full"`` starts the game when every seat has a phone, ``"now"`` at once
    (phones then take the free seats), ``"manual"`` leaves it to the table screen
    (:meth:`Hub.start`). ``fresh``: set up ``game`` even when this table has a session to
    resume (that one stays open, resumable from the Home screen). ``phones``: ``"required"``
    (a broker or phone page that cannot start raises) or ``"optional"`` (the table starts
    without them and says why: :attr:`phones_error`, the ``"phones"`` alert)."""

    def __init__(self, table: str, *, db=None, log_store=None, game: str | None = None,
                 players: int | None = None, options: dict | None = None, names=None,
                 start: str = "full", seed: int | None = None, broker: str = "auto",
                 bind: str = "0.0.0.0", http_port: int = 8000, mqtt_port: int = 1883,
                 ws_port: int | None = 9001, public_host: str | None = None,
                 ws_url: str | None = None, hub_password: str | None = None,
                 seat_logins=None, broker_options: dict | None = None, clock=None,
                 games=None, fresh: bool = False, publish_order: str = "ack-first",
                 address_source=None, address_poll: float = 5.0, phones: str = "required"):
        self.table = check_table_id(table)
        if start not in START_MODES:
            raise ConfigError(f"start must be one of {', '.join(START_MODES)}, not {start!r}.")
        if phones not in PHONES:
            raise ConfigError(f"phones must be one of {', '.join(PHONES)}, not {phones!r}.")
        self.phones = phones
        self.phones_error = None        # why phones cannot join (phones="optional"), in words
        if db is None and log_store is None:
            raise ConfigError("Say where the session log lives (db=...).")
        self.db, self._log_store = db, log_store
        self.game, self.players, self.options, self.names = game, players, options, names
        self.start_mode, self.seed = start, seed
        self.broker_spec, self.bind = broker, bind
        self.http_port, self.mqtt_port, self.ws_port = http_port, mqtt_port, ws_port
        self.public_host = public_host
        self.ws_url, self.hub_password, self.seat_logins = ws_url, hub_password, seat_logins
        self.broker_options = dict(broker_options or {})
        self.clock, self.games = clock, games
        self.fresh = fresh              # set up ``game`` even if a session could be resumed
        self.publish_order = publish_order      # the bridge's (benchmarks compare "legacy")
        self.address_source = address_source or lan_ip      # () -> this box's LAN address
        self.address_poll = address_poll
        self._address_listeners = []
        self._address_lock = threading.Lock()
        self._address_stop = threading.Event()
        self._address_thread = None
        self.log = self.hub = self.broker = self.bridge = self.web = None
        self.club = None                # the club's link, started by the club layer's table
        self.resumed = None
        self._unsubscribe = None
        self._started = False

    # -- life -------------------------------------------------------------------------------------
    def start(self) -> "TableServer":
        from companion.service.hub import Hub
        try:
            self.log = self._log_store or SQLiteLog(self.db)
            kw = {} if self.games is None else {"games": self.games}
            self.hub = Hub(self.log, table=self.table, clock=self.clock, **kw)
            self.resumed = None if self.fresh else self.hub.resume()
            self.hub.next_seed = self.seed      # also when the table screen starts the game
            if self.resumed is None:
                if self.game is None and self.start_mode != "manual":
                    raise ConfigError(f"Table {self.table} has no game to resume in "
                                      f"{getattr(self.log, 'path', 'the log')}; give --game and "
                                      f"--players to set one up.")
                if self.game is not None:          # else the table screen chooses one
                    self.hub.configure(self.game, self.players or self._default_players(),
                                       self.options, self.names)
                if self.start_mode == "now":
                    self.hub.start(seed=self.seed)
            try:
                self._start_phones()
            except (CompanionError, OSError) as e:
                if self.phones == "required":
                    raise
                self._without_phones(e)
            self._unsubscribe = self.hub.subscribe(self._on_hub_event)
            self._start_club()
            self.hub.start_timers()
            if self.bridge is not None:
                self.bridge.call_soon(self._maybe_start)
                self.bridge.call_soon(self.bridge._publish_views)      # with the join URL
        except BaseException:
            self.stop()
            raise
        self._started = True
        return self

    def _start_phones(self):
        """The broker, the bridge and the phone page, and the join address."""
        self.broker = self._make_broker().start()
        self.broker.on_change(self._on_broker)
        self.bridge = Bridge(self.hub, self.broker, hub_password=self.hub_password,
                             seat_logins=self.seat_logins, order=self.publish_order).start()
        self.web = WebServer(self.bridge, self.bind, self.http_port,
                             public_host=self.public_host or self.address_source()).start()
        self._set_join_url()
        if self.public_host is None:                # --host is a choice: never moved
            self._watch_address()

    def _start_club(self):
        """A table of the network layer has no club; :class:`companion.club.table.ClubTable`
        (the layer above) starts its links here."""

    @property
    def store_path(self) -> str | None:
        """The session store's file (what the club shipper reads), None for a store in memory."""
        path = getattr(self.log, "path", None)
        return str(path) if path and str(path) != ":memory:" else None

    def _set_join_url(self):
        """The join address into the hub; ``join_offline`` when it is only the loopback found
        on a box with no network yet (a loopback given with --host is a choice: phones on this
        machine, the tests)."""
        self.hub.join_url = self.web.url_for()
        self.hub.join_offline = (self.public_host is None
                                 and is_loopback(self.web.public_host.strip("[]")))

    def _without_phones(self, error):
        """Phones optional and their side failed: stop what of it started, and say so."""
        self._stop_phones()
        self.hub.join_url = None
        self.phones_error = str(error)
        log.info("phones cannot join: %s", error)      # (the caller says it once)
        self.hub.alert(PHONES_ALERT, self.phones_message, key=PHONES_ALERT)

    @property
    def phones_message(self) -> str | None:
        """The alert's words (the console says them too): ``Phones cannot join: <why> <what
        to do>``; None when phones can join."""
        if self.phones_error is None:
            return None
        return f"{PHONES_OFF}{self.phones_error} {PHONES_OFF_NEXT}"

    def _default_players(self):
        return self.hub.games(self.game).min_players

    def _make_broker(self):
        spec = self.broker_spec
        if spec == "auto":                  # mosquitto if installed, else the embedded one
            spec = auto_mode(self.broker_options.get("binary"))
        if spec in ("embedded", "mosquitto"):
            opts = {"host": self.bind, "tcp_port": self.mqtt_port, "ws_port": self.ws_port}
            opts.update(self.broker_options)
            if spec == "embedded":          # options only a mosquitto child takes
                for k in MOSQUITTO_ONLY:
                    opts.pop(k, None)
            elif self._club_bridge() is not None:   # a club joined before: bridged from
                opts.setdefault("bridge", self._club_bridge())      # the start
            return make_broker(spec, **opts)
        return make_broker(spec, ws_url=self.ws_url, **self.broker_options)

    def _club_bridge(self):
        """The bridge to a club the broker starts with; none below the club layer."""
        return None

    def stop(self) -> None:
        """Stop everything that was started, newest first; safe to call twice."""
        self._address_stop.set()
        if self._address_thread is not None:
            self._address_thread.join(5)
            self._address_thread = None
        if self._unsubscribe is not None:
            self._unsubscribe()
            self._unsubscribe = None
        if self.club is not None:
            self.club.stop()
            self.club = None
        if self.hub is not None:
            self.hub.stop()
        self._stop_phones()
        if self.log is not None and self._log_store is None:
            self.log.close()
        self.log = None
        self._started = False

    def _stop_phones(self):
        self._address_stop.set()
        if self._address_thread is not None:
            self._address_thread.join(5)
            self._address_thread = None
        for part in ("web", "bridge", "broker"):
            obj = getattr(self, part)
            if obj is not None:
                try:
                    obj.stop()
                except Exception:
                    log.warning("stopping the %s failed", part, exc_info=True)
                setattr(self, part, None)

    def __enter__(self):
        return self.start()

    def __exit__(self, *exc):
        self.stop()

    def _on_broker(self, up, message):
        """A supervised broker died or came back: the table screen and the console say so."""
        if up:      # said once (the console prints it), then the screen's alert goes away
            self.hub.alert("broker_back", message, key="broker")
            self.hub.clear_alert("broker")
        else:
            self.hub.alert("broker", message, key="broker")

    # -- the join address -----------------------------------------------------------------------
    def on_address(self, fn):
        """Call ``fn(join_url)`` (on the watcher's thread) whenever the join address changes.
        Returns a function that unregisters it."""
        self._address_listeners.append(fn)

        def off():
            if fn in self._address_listeners:
                self._address_listeners.remove(fn)
        return off

    def check_address(self) -> bool:
        """Ask for the LAN address now; if it changed, move the join address to it (the web
        server's, ``hub.join_url``, the published views) and tell the listeners. Returns
        whether it changed. The watcher thread calls this every ``address_poll`` seconds."""
        with self._address_lock:
            web, hub, bridge = self.web, self.hub, self.bridge
            if web is None or hub is None or self.public_host is not None:
                return False
            try:
                host = self.address_source()
            except Exception:                   # a probe that fails is no news
                log.warning("reading the LAN address failed", exc_info=True)
                return False
            if not host or host == web.public_host:
                return False
            old = web.public_host
            web.public_host = host
            self._set_join_url()
            url = hub.join_url
            log.info("the join address moved from %s to %s: phones join at %s", old, host, url)
            if bridge is not None:
                bridge.call_soon(bridge._publish_views)     # every view carries join_url
        for fn in list(self._address_listeners):
            try:
                fn(url)
            except Exception:
                log.exception("an address listener failed")
        return True

    def _watch_address(self):
        self._address_stop.clear()

        def loop():
            while not self._address_stop.wait(self.address_poll):
                self.check_address()
        self._address_thread = threading.Thread(target=loop, name="tc-address", daemon=True)
        self._address_thread.start()

    # -- automatic start --------------------------------------------------------------------------
    def _on_hub_event(self, event):
        if event.get("kind") == "lobby" and self.bridge is not None:
            self.bridge.call_soon(self._maybe_start)
        elif event.get("kind") == "alert" and self.phones_error is not None:
            self._keep_phones_alert()

    def _keep_phones_alert(self):
        """The hub keeps its newest five alerts: the one saying phones cannot join stays (the
        lobby and the Join dialog read it), however many others came since."""
        hub = self.hub
        if hub is not None and not any(a["key"] == PHONES_ALERT for a in hub.alerts):
            hub.alert(PHONES_ALERT, self.phones_message, key=PHONES_ALERT)

    def _maybe_start(self):
        hub = self.hub
        if (self.start_mode == "full" and hub.session is None and hub.game_name and hub.seats
                and all(s.token_hash is not None for s in hub.seats)):
            try:
                hub.start(seed=self.seed)
            except ConfigError:
                pass                        # someone else started it in the meantime

    # -- facts for the operator -------------------------------------------------------------------
    @property
    def join_url(self) -> str | None:
        return self.hub.join_url if self.hub else None

    def wait(self, stop_event: threading.Event | None = None, poll: float = 0.5) -> None:
        """Block until ``stop_event`` is set (signals interrupt the wait)."""
        ev = stop_event or threading.Event()
        while not ev.wait(poll):
            pass
