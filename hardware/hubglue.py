"""The table hub and the device process, joined: the buzzer and the light follow the public
view; buttons, scans and the reader's comings and goings become hub calls. Never imports kivy.

    link, text = start_devices(hub)              # the composition root (`companion run`)
    ...
    link.close()                                 # detaches, stops the child and the simulator

or by hand: ``glue = attach(hub, DeviceLink(config, mock=True).start())``.

Hub -> devices (on the glue's own thread, ``hub-devices``; the hub's subscriber only queues). The
glue reads the hub's public view only (and the session clock, ``hub.session_time()``); what is
for the devices is game-neutral, in ``view["hub"]["devices"]``:

* every running timer in ``public_view()["timers"]`` gets a buzzer countdown for its deadline,
  converted from the session clock to the monotonic clock
  (``time.monotonic() + (deadline - hub.session_time())``): the warning chirp
  ``warn_before`` seconds ahead and the 0:00 buzzer. A timer that is paused, stopped, undone or
  moved has its pending cues cancelled (a resume gets a new countdown); one that ran out is left
  to finish its buzzer. A timer that expired without a countdown (it was too late to schedule)
  buzzes when its ``TimerExpired`` notice arrives.
* the 3-2-1 reveal count (``reveal``: three short beeps a second apart, the long one on the
  reveal) for a command whose notices hold ``ChoicesRevealed`` (one count per command, however
  many windows it reveals), starting at once, or after the 0:00 buzzer if that is sounding. A game
  may ask instead: a public notice ``RevealCount`` (optional ``at``: the session time of the
  reveal moment) plays the count for that moment; a game whose ``devices.reveal_count`` is
  ``"notice"`` gets counts only when it asks, ``"off"`` never.
* the light: game over -> ``game-over``; every timer paused -> ``paused``; the game's cue
  ``devices.cue`` (``{"upkeep": "C"}`` while Trade Warz resolves its C step) -> the C/M/Y/K
  cue; else the phase's colour from the config (a phase without one: neutral).
* an alert -> the error blip (at most one every 0.3 s); an accepted scan -> the ``ok`` chirp.

Devices -> hub (on the link's ``device-events`` thread):

* ``ButtonPressed`` -> ``hub.press("next" | "pause" | "undo")`` (refusals become alerts);
* ``CardScanned`` -> ``hub.scan(code, resolve)``; ``resolve`` identifies the card with
  :func:`companion.cardcodes.identify` against ``companion.games.card_catalog(game)`` of the
  table's game (and UID bindings for blank tags). Another game's card, an unknown card or a
  damaged read raise a ``CardCodeError``: the hub shows it as an alert and changes nothing;
* ``ReaderLost`` -> alert ``reader`` ("The card reader is unplugged; use the touchscreen.");
  ``ReaderConnected`` clears it;
* ``WorkerLost`` -> alert ``devices``; ``WorkerStarted`` clears it and sends the state again.
* ``PowerRequested`` (the shutdown button held) -> ``on_power(action)``, see below.

**The power callback.** ``attach(hub, link, on_power=fn)`` and ``start_devices(hub,
on_power=fn)`` take ``fn(action: str) -> None``, called with ``"poweroff"`` once per hold of the
shutdown button (``[buttons] shutdown``), on the link's ``device-events`` thread. It must be
thread-safe and return soon (hand the work to the app; it may close the link, even from within
the call). ``companion run`` passes :func:`companion.service.power.request`. Without a callback
the request is logged and nothing happens. A failing callback is logged, never raised here.
"""
import logging
import math
import queue
import sys
import threading
import time

from companion.cardcodes import UidBindings, identify
from companion.core.errors import CompanionError, IllegalMoveError
from companion.service.hub import GOOD_NEWS
from hardware.config import NEUTRAL, default_path, load_config
from hardware.cues import PATTERNS, UPKEEP_CUES
from hardware.errors import HardwareError
from hardware.events import (ButtonPressed, CardScanned, PowerRequested, ReaderConnected,
                             ReaderFault, ReaderLost)
from hardware.worker import DeviceLink, WorkerLost, WorkerStarted, is_raspberry_pi

log = logging.getLogger(__name__)

READER_ALERT = "The card reader is unplugged; use the touchscreen."
TIMEOUT_SECONDS = max(off + dur for off, dur in PATTERNS["timeout"].beeps)
REVEAL_LEAD = PATTERNS["reveal"].anchor          # 3 s from the first beep to the reveal
BLIP_GAP = 0.3
GAP_AFTER_BUZZER = 0.3


def _card_catalog(game):
    from companion.games import card_catalog
    return card_catalog(game)


class CardResolver:
    """``resolver(event, game) -> card_id`` for a :class:`hardware.events.CardScanned`.

    ``bindings``: :class:`companion.cardcodes.UidBindings` for blank tags (default: in memory).
    Catalogs are loaded once per game. Raises a ``CardCodeError`` (a ``CompanionError``) with a
    sentence for the table when the scan is not a card of ``game``.
    """

    def __init__(self, bindings=None, catalog=_card_catalog):
        self.bindings = bindings if bindings is not None else UidBindings()
        self._catalog_fn = catalog
        self._cache = {}
        self._lock = threading.Lock()

    def catalog(self, game):
        with self._lock:
            if game not in self._cache:
                self._cache[game] = self._catalog_fn(game)
            return self._cache[game]

    def card(self, event, game):
        if not game:
            raise IllegalMoveError("No game is running; the scan was ignored.")
        return identify(event.code, event.uid, game, self.catalog(game), self.bindings,
                        event.problem)

    def __call__(self, event, game):
        return self.card(event, game).card_id


class HubGlue:
    """Keeps the devices in step with one hub. Made by :func:`attach`."""

    def __init__(self, hub, link, card_resolver=None, on_power=None):
        self.hub = hub
        self.link = link
        self.config = link.config
        self.resolver = card_resolver if card_resolver is not None else CardResolver()
        self.on_power = on_power
        self.actions = []                   # what was sent to the devices, newest last
        self._q = queue.Queue()
        self._tls = threading.local()
        self._session_id = None
        self._view = {}                     # the hub's public view, as last reconciled
        self._timers = {}                   # name -> (session deadline, monotonic deadline)
        self._light = None
        self._busy_until = -math.inf        # monotonic end of the last 0:00 buzzer
        self._last_blip = -math.inf
        self._sim_game = object()
        self._closed = False
        self._thread = threading.Thread(target=self._run, name="hub-devices", daemon=True)
        self._thread.start()
        self._unsub_hub = hub.subscribe(self._on_hub)
        self._unsub_link = link.subscribe(self._on_device)
        self._q.put(("sync", None))

    @property
    def reader(self):
        """The reader's last ``ReaderConnected``, None while there is none."""
        return self.link.reader

    # -- plumbing ---------------------------------------------------------------------------------
    def _on_hub(self, event):
        """The hub's subscriber: only queues (it may be called with the hub's lock held)."""
        if event.get("kind") == "alert" and event.get("alert") == "scan" and \
                getattr(self._tls, "scanning", False):
            self._tls.scan_failed = True
        self._q.put(("hub", event))

    def flush(self, timeout=5.0) -> bool:
        """Wait until every hub event so far has reached the devices (tests, start-up)."""
        done = threading.Event()
        self._q.put(("flush", done))
        return done.wait(timeout)

    def detach(self):
        """Stop following the hub; cancel the countdowns this glue scheduled. Idempotent."""
        if self._closed:
            return
        self._closed = True
        self._unsub_hub()
        self._unsub_link()
        self._q.put(None)
        if self._thread is not threading.current_thread():
            self._thread.join(5)
        now = time.monotonic()
        for name, (_, mono) in self._timers.items():
            if mono > now:
                self.link.cancel_countdown(name)
        self._timers = {}

    def _run(self):
        while True:
            item = self._q.get()
            if item is None:
                return
            kind, arg = item
            try:
                if kind == "hub":
                    self._hub_event(arg)
                elif kind == "sync":
                    self._timers, self._light = {}, None     # a fresh device process
                    self._reconcile()
                elif kind == "flush":
                    arg.set()
            except Exception:
                log.exception("driving the devices from hub event %r failed", arg)

    def _do(self, action, *args, **kwargs):
        getattr(self.link, action)(*args, **kwargs)
        self.actions.append((action,) + args + tuple(sorted(kwargs.items())))
        del self.actions[:-200]

    # -- hub -> devices ---------------------------------------------------------------------------
    def _hub_event(self, event):
        kind = event.get("kind")
        if kind == "alert":
            alert = event.get("alert")
            if alert is not None and alert not in GOOD_NEWS:    # (good news is not an error)
                now = time.monotonic()
                if now - self._last_blip >= BLIP_GAP:
                    self._last_blip = now
                    self._do("play", "error")
        elif kind == "changed":
            notices = [n for n in event.get("notices") or () if "to" not in n]
            self._expired(notices)
            offset = self._reconcile()
            self._reveal_count(notices, offset)
        elif kind == "lobby":
            self._reconcile()

    def _expired(self, notices):
        """0:00 for a timer whose countdown never reached the buzzer (too late to schedule)."""
        now = time.monotonic()
        for n in notices:
            if n.get("kind") != "TimerExpired":
                continue
            mine = self._timers.get(n.get("timer"))
            if mine is not None and abs(mine[1] - now) < 2.0:
                self._busy_until = max(self._busy_until, mine[1] + TIMEOUT_SECONDS)
            else:
                self._do("play", "timeout")
                self._busy_until = max(self._busy_until, now + TIMEOUT_SECONDS)

    def _reveal_count(self, notices, offset):
        mode = _devices(self._view).get("reveal_count") or "auto"
        if mode == "off":
            return
        now = time.monotonic()
        start = max(now, self._busy_until + GAP_AFTER_BUZZER)
        asked = [n for n in notices if n.get("kind") == "RevealCount"]
        if asked:
            at = asked[-1].get("at")
            moment = start + REVEAL_LEAD
            if isinstance(at, (int, float)) and offset is not None:
                moment = max(moment, at + offset)
            self._do("play", "reveal", at=moment)
        elif mode == "auto" and any(n.get("kind") == "ChoicesRevealed" for n in notices):
            self._do("play", "reveal", at=start + REVEAL_LEAD)

    def _reconcile(self):
        """Make the countdowns and the light match the hub's public view. Returns the offset
        monotonic - session time (None without a session)."""
        hub = self.hub
        view = self._view = hub.public_view()
        sid = view.get("session")
        clock = hub.session_time() if sid is not None else None
        now = time.monotonic()
        if sid != self._session_id:
            for name, (_, mono) in self._timers.items():
                if mono > now:
                    self._do("cancel_countdown", name)
            self._timers = {}
            self._session_id = sid
        offset = None
        running = {}
        if clock is not None:
            offset = time.monotonic() - clock
        if clock is not None and not view.get("outcome"):     # a finished game's timers
            for name, t in (view.get("timers") or {}).items():    # never buzz (as in the hub)
                if not t.get("paused") and t.get("deadline") is not None:
                    dl = float(t["deadline"])
                    running[name] = (dl, float(t.get("warn_before") or 0.0), dl + offset)
        now = time.monotonic()
        for name in list(self._timers):
            dl, mono = self._timers[name]
            r = running.get(name)
            if r is not None and r[0] == dl:
                continue
            del self._timers[name]
            if mono > now:
                self._do("cancel_countdown", name)      # paused, stopped, undone or moved
            else:
                self._busy_until = max(self._busy_until, mono + TIMEOUT_SECONDS)
        for name, (dl, warn, mono) in running.items():
            if name in self._timers or mono < now - 0.5:
                continue
            self._do("countdown", mono, warn, name=name)
            self._timers[name] = (dl, mono)
        self._show(self._wanted_light(view))
        self._follow_game()
        return offset

    def _wanted_light(self, view):
        if view.get("outcome"):
            return ("phase", "game-over")
        timers = view.get("timers") or {}
        if timers and all(t.get("paused") for t in timers.values()):
            return ("phase", "paused")
        cue = _devices(view).get("cue")
        letter = cue.get("upkeep") if isinstance(cue, dict) else None
        if isinstance(letter, str) and letter.upper() in UPKEEP_CUES:
            return ("upkeep", letter.upper())
        phase = str(view.get("phase") or "lobby").lower()
        if phase in self.config.light.phases:
            return ("phase", phase)
        return ("colour", NEUTRAL)

    def _show(self, want):
        if want == self._light:
            return
        self._light = want
        kind, what = want
        self._do({"phase": "show_phase", "upkeep": "show_upkeep",
                  "colour": "show_colour"}[kind], what)

    def _follow_game(self):
        """Give the reader simulator the table's card list, so typed names become codes."""
        sim = self.link.simulator
        game = self.hub.game_name
        if sim is None or game == self._sim_game:
            return
        self._sim_game = game
        catalog = None
        if game and hasattr(self.resolver, "catalog"):
            try:
                catalog = self.resolver.catalog(game)
            except CompanionError:
                catalog = None
        sim.game, sim.catalog = game, catalog

    # -- devices -> hub ---------------------------------------------------------------------------
    def _on_device(self, event):
        hub = self.hub
        if isinstance(event, ButtonPressed):
            hub.press(event.name)
        elif isinstance(event, CardScanned):
            self._scan(event)
        elif isinstance(event, ReaderLost):
            hub.alert("reader", READER_ALERT, key="reader")
        elif isinstance(event, ReaderConnected):
            hub.clear_alert("reader")
        elif isinstance(event, ReaderFault):
            log.info("card reader fault %s (%d so far): %s", event.kind, event.count,
                     event.detail)
        elif isinstance(event, WorkerLost):
            hub.alert("devices", "The buzzer, light and buttons stopped working (the device "
                      f"process {event.reason})" + ("; starting them again." if
                                                    event.restarting else "."), key="devices")
        elif isinstance(event, WorkerStarted):
            hub.clear_alert("devices")
            self._q.put(("sync", None))
        elif isinstance(event, PowerRequested):
            self._power(event)

    def _power(self, event):
        if self.on_power is None:
            log.warning("the %s asked to %s, but this table has no power callback",
                        "shutdown button" if event.source == "button" else event.source,
                        event.action)
            return
        try:
            self.on_power(event.action)
        except Exception:
            log.exception("the power callback failed on %r", event.action)

    def _scan(self, event):
        club = getattr(self.hub, "club", None)
        if club is not None and club.is_address(event.code):
            try:                        # the club page's QR held to the reader: join it
                club.join(event.code)
            except CompanionError as e:
                self.hub.alert("club", str(e), key="club")
                return
            self._do("play", "ok")
            return
        game = self.hub.public_view()["hub"]["game"]
        resolved = []

        def resolve(code):
            card = self.resolver(event, game)
            resolved.append(card)
            return card

        self._tls.scanning, self._tls.scan_failed = True, False
        try:
            self.hub.scan(event.code, resolve)
        finally:
            self._tls.scanning = False
        if resolved and not self._tls.scan_failed:
            self._do("play", "ok")


def attach(hub, link, *, card_resolver=None, on_power=None) -> HubGlue:
    """Drive ``link``'s devices from ``hub`` and feed its events to the hub. The glue is
    detached when the link closes (or by ``glue.detach()``). ``on_power(action)``: see the
    module docstring (the power callback)."""
    glue = HubGlue(hub, link, card_resolver, on_power)
    link.on_close(glue.detach)
    link.glue = glue
    return glue


#: ``start_devices(reader_url=SIMULATOR)``: the reader simulator, even beside real GPIO parts.
SIMULATOR = "sim"


def _console(sim, stream=None, out=None):
    """Lines typed on ``stream`` (stdin) go to the reader simulator: a card's name or id is
    scanned as its QR code (``help`` lists the rest); what happened is printed on ``out``."""
    stream = stream or sys.stdin
    out = out or sys.stdout
    for line in stream:
        try:
            text = sim.handle_line(line)
        except Exception as e:   # a typed line must never stop the simulator
            text = f"could not do that: {e}"
        if text:
            print("\n".join(f"reader-sim: {x}" for x in text.rstrip("\n").split("\n")),
                  file=out, flush=True)


def start_devices(hub, *, config_path=None, simulate=None, bindings_path=None, console=False,
                  reader=True, reader_url=None, on_power=None, start_timeout=30.0):
    """Start the table's devices for ``hub`` and attach them: returns ``(link, description)``.

    ``simulate=None`` picks for itself: real GPIO on a Raspberry Pi (or a board named by
    ``GPIOZERO_PI_REVISION``), mock pins elsewhere. With simulated hardware and no reader
    configured or plugged in (USB VID/PID), a reader simulator runs on a pty: type into it with
    ``link.type_card("Gilded Age")`` (or ``console=True`` reads lines from stdin), or point
    ``companion reader-sim``'s users at its address. ``reader_url`` (``companion run
    --reader``) names the reader instead of the config file: a serial port, a pty, a
    ``socket://host:port``, or :data:`SIMULATOR` for the simulator even beside real GPIO parts.
    ``console``: True reads typed lines for the simulator from stdin, or give a stream.
    ``on_power(action)``: the power callback (module docstring). ``link.close()`` stops it all.

    Parts that cannot start never stop the table: the description ends with a sentence for each
    part left out (``link.problems``), and if the device process itself cannot start, the link
    is returned without one (``link.alive`` is False; commands are dropped) and the description
    says the table runs with touch and phones only. Raises only
    :class:`hardware.config.HardwareConfigError` (a sentence naming the file and key) for a bad
    config file.
    """
    config = load_config(config_path if config_path is not None else default_path())
    mock = (not is_raspberry_pi()) if simulate is None else bool(simulate)
    wanted = reader_url
    reader_url = None if wanted == SIMULATOR else (wanted or config.reader.port or None)
    sim = None
    if reader and wanted == SIMULATOR:
        from hardware.sim import ReaderSim
        try:
            sim = ReaderSim(transport="pty").start()
            reader_url = sim.url
        except OSError as e:        # no pty to be had: the table goes on without a reader
            log.warning("the reader simulator could not start: %s", e)
    elif reader and mock and reader_url is None:
        from hardware.reader import find_reader_port
        try:
            found = find_reader_port(config.reader.vid_pid)
        except Exception:       # no way to list ports: no real reader to prefer
            found = None
        if found is None:
            from hardware.sim import ReaderSim
            try:
                sim = ReaderSim(transport="pty").start()
                reader_url = sim.url
            except OSError as e:    # no pty to be had: the table goes on without a reader
                log.warning("the reader simulator could not start: %s", e)
        else:
            reader_url = found
    link = DeviceLink(config, mock=mock, reader=reader, reader_url=reader_url, simulator=sim,
                      auto_restart=True, start_timeout=start_timeout)
    try:
        link.start()
        description = link.description()
    except HardwareError as e:
        description = no_devices_sentence(e)
        log.error("%s", description)
    except BaseException:
        link.close()
        raise
    resolver = CardResolver(UidBindings(bindings_path) if bindings_path else None)
    attach(hub, link, card_resolver=resolver, on_power=on_power).flush()
    if console and sim is not None:
        stream = None if console is True else console
        threading.Thread(target=_console, args=(sim, stream), name="reader-sim-console",
                         daemon=True).start()
    return link, description


def no_devices_sentence(error) -> str:
    """The screen's sentence when the device process cannot start at all."""
    reason = str(error).rstrip(".")
    if reason[:1].isupper() and reason[1:2].islower():
        reason = reason[0].lower() + reason[1:]
    return (f"No buzzer, light, buttons or card reader: the device process could not start "
            f"({reason}). The table runs with touch and phones only.")


def _devices(view):
    hub = view.get("hub") if isinstance(view, dict) else None
    got = hub.get("devices") if isinstance(hub, dict) else None
    return got if isinstance(got, dict) else {}
