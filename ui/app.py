"""The table screen: a Kivy app that is only a view of the hub and an input to it.

Entry points:

* :func:`run_app` for ``companion run``: blocking, returns when the window closes, with the
  exit status: 0, or :data:`~companion.service.power.POWEROFF` / ``REBOOT`` after Shut down or
  Restart (the Menu's, in appliance mode, or a :func:`companion.service.power.request` from the
  GPIO button).
* :class:`TableApp` for tests and benchmarks: ``TableApp(hub)``; ``build()`` gives the root
  widget without running the event loop.

The app reads ``hub.public_view()`` only (never a seat view: this screen faces every player),
subscribes to hub events (marshalled to the main thread and batched, see :mod:`ui.bridge`) and
calls hub commands. It holds no game truth: killed and restarted, it resumes the open session
from the log and shows the game where it was.
"""
import importlib
import os
import time

from kivy.app import App
from kivy.clock import Clock
from kivy.properties import (BooleanProperty, DictProperty, ListProperty, NumericProperty,
                             ObjectProperty, StringProperty)

from companion.service import power
from ui import model, theme
from ui.adapters import GameUI, adapter_for
from ui.kvload import ASSETS, KV, load_kv
from ui.screens import SCREENS

BASE = 800, 480


class TableApp(App):
    """The table screen's app. Kivy properties hold the navigation state; the game is in the
    hub."""
    u = NumericProperty(1.0)                 # layout unit: min(w / 800, h / 480)
    view = DictProperty({})                  # the latest public view
    screen_name = StringProperty("")
    following = BooleanProperty(True)        # the screen follows the game's phase
    top_title = StringProperty("Table Companion")
    top_status = StringProperty("")
    top_status_short = StringProperty("")    # the status when the bar has no room for all
    timer_text = StringProperty("")
    timer_mode = StringProperty("")
    now = NumericProperty(0.0)               # session time, refreshed while a timer runs
    tabs = ListProperty([])                  # [(screen, label)] of the nav rail
    rail_visible = BooleanProperty(False)
    toast = StringProperty("")
    note = StringProperty("")                # simulated-hardware note
    adapter = ObjectProperty(GameUI(), rebind=True)

    moment = DictProperty({})                # a moment held on screen ("Time!"), or {}
    appliance = BooleanProperty(False)       # the box: the Menu offers Shut down and Restart

    def __init__(self, hub, *, catalog=None, auto_resume=True, simulated_hardware_note=None,
                 sound=True, reveal_step=0.9, time_hold=2.5, appliance=False,
                 address_feed=None, notifier=None, tap_guard=0.5, network=None, **kwargs):
        super().__init__(**kwargs)
        self.title = "Table Companion"
        self.hub = hub
        self._catalog = catalog
        self.auto_resume = auto_resume
        self.open_handovers = {}            # seat -> its handover QR dialog, while shown
        self.note = simulated_hardware_note or ""
        self.sound_on = sound
        self.reveal_step = reveal_step       # seconds between revealed steps; None: by hand
        self.time_hold = time_hold           # seconds "Time!" stays on screen (>= 2); 0: off
        self.tap_guard = tap_guard           # seconds a table button that just appeared or
        #                                      changed in another's place ignores taps; 0: off
        self.moved_until = 0.0               # until then, buttons that an alert moved
        #                                      ignore taps (TButton.rest)
        self._moment_ev = None
        self.scan_hold = 8.0                 # seconds a matched scan stays acknowledged
        self._scans = {}                     # scan "at" -> where the game was when seen
        self._faded = set()
        self.nav = model.Nav()
        self.journal = model.Journal()
        self.dismissed = set()
        self.sounds_played = []              # (timer, deadline) of every warning sounded
        self._warned = set()
        self._session = None
        self._screens = {}
        self._ticker = None
        self._stop_ev = None                 # the clock's look at request_stop()
        self._toast_ev = None
        self._sound = None
        self._fades = []                     # the scan banners' pending fades (Clock events)
        self.closed = False
        self.bridge = None
        self.frames = 0                      # screen updates applied (tests, benchmarks)
        self.last_update = 0.0               # perf_counter() of the last applied update
        self.appliance = appliance
        self.address_feed = address_feed     # fn(callback) -> unregister: the join address moved
        self.notifier = notifier             # ui.notifier.ServiceNotifier, or None
        self.network = network               # companion.net.wifi.Network, or None
        self.exit_status = 0                 # what run_app returns: power.POWEROFF / REBOOT
        self.power_action = None             # "poweroff" / "reboot" once asked for
        self._unhook = []                    # unregister functions (power, address)
        self._power_ev = None

    # -- set-up -------------------------------------------------------------------------------
    @property
    def catalog(self) -> dict:
        """``{name: Game}`` the Home screen offers."""
        if self._catalog is None:
            from companion.games import registry
            self._catalog = registry()
        return self._catalog

    def build(self):
        from kivy.core.window import Window
        from ui.bridge import HubBridge
        import ui.widgets.banner  # noqa: F401  (registers the widget classes the .kv uses)
        import ui.widgets.common  # noqa: F401
        import ui.widgets.dialogs  # noqa: F401
        import ui.widgets.picker  # noqa: F401
        for name in ("theme.kv", "app.kv", "dialogs.kv"):
            load_kv(KV / name)
        Window.clearcolor = theme.BG
        Window.bind(size=self._resize)
        self._resize(Window, Window.size)
        from ui.widgets.root import TableRoot
        self._claim_kv_app()
        self.root = TableRoot()
        self.bridge = HubBridge(self.hub, self._on_change, self.show_error, self._hub_event)
        self._unhook.append(power.on_request(self._power_requested))
        if self.address_feed is not None:   # a new join address: redraw the QR codes
            self._unhook.append(self.address_feed(lambda _url: self.bridge.poke()))
        if self.auto_resume and self.hub.game is None:
            try:
                self.hub.resume()
            except Exception as e:             # a broken log must not keep the table dark
                self.show_error(f"Could not resume the last game: {e}")
        self.refresh()
        return self.root

    def on_start(self):
        self._stop_ev = Clock.schedule_interval(self._stop_if_asked, 0.2)

    def _stop_if_asked(self, _dt):
        """A SIGTERM (:func:`request_stop`) is answered here, on the clock: the app stops as
        closing the window does and :func:`run_app` returns ``128 + signal``."""
        if _stop_signal is not None and not self.closed:
            self.exit_status = 128 + _stop_signal
            self.stop()

    def on_stop(self):
        self.close()

    def close(self):
        """Stop listening to the hub and the window, and cancel everything this app still
        had scheduled (a toast to clear, a scan to fade, a held moment), so nothing of it runs
        once it is gone (idempotent)."""
        self.closed = True
        if self.root is not None:
            from kivy.core.window import Window
            Window.unbind(size=self._resize)
        for ev in (self._ticker, self._moment_ev, self._toast_ev, self._stop_ev, *self._fades):
            if ev is not None:
                ev.cancel()
        self._ticker = self._moment_ev = self._toast_ev = self._stop_ev = None
        self._fades = []
        while self._unhook:
            self._unhook.pop()()
        if self._power_ev is not None:
            self._power_ev.cancel()
            self._power_ev = None
        if self.notifier is not None:
            self.notifier.stop()
        for screen in self._screens.values():     # a reveal stepping on by itself
            stop = getattr(screen, "stop", None)
            if stop is not None:
                stop()
        if self.bridge is not None:
            self.bridge.close()
        self._release_kv_app()

    # kv's ``app`` (a ``kivy.lang.parser.ProxyApp``) takes whichever app is the running one the
    # first time a rule asks, and lets go only at that app's ``on_stop``: an app made after
    # another one was closed without ``on_stop`` (tests, a restart in the same process) would
    # have its rules read the old app for good. The app claims the proxy when it builds its
    # root, and lets go of it when it closes.
    def _kv_proxy(self):
        from kivy.lang import global_idmap
        return global_idmap.get("app")

    def _claim_kv_app(self):
        proxy = self._kv_proxy()
        if proxy is not None:
            object.__setattr__(proxy, "_obj", self)

    def _release_kv_app(self):
        proxy = self._kv_proxy()
        if proxy is not None and object.__getattribute__(proxy, "_obj") is self:
            object.__setattr__(proxy, "_obj", None)

    def _resize(self, _win, size):
        w, h = size
        self.u = max(0.5, min(w / BASE[0], h / BASE[1]))

    # -- the view -----------------------------------------------------------------------------
    def _on_change(self, events):
        self.refresh(events)

    def refresh(self, events=()):
        """Read the public view and show it (main thread)."""
        if self.closed or self.root is None:
            return
        view = self.hub.public_view()
        sid = view.get("session")
        first_sight = sid != self._session
        if first_sight:
            self.journal.clear()
            self._session = sid
            self._warned = set()
            if sid is not None:
                self.journal.add(view["rev"] - 1, view.get("notices"))
        for ev in events:
            if ev.get("kind") == "changed" and sid is not None:
                self.journal.add(ev.get("version", 0), ev.get("notices"))
                self._moments(view, ev.get("notices") or ())
        game = view.get("game") or (view.get("hub") or {}).get("game")
        if self.adapter.game != game:
            self.adapter = adapter_for(game)
        if first_sight and sid is not None and not any(
                ev.get("kind") == "changed" for ev in events):
            # a screen that meets a game already under way (a restart, a resumed game) shows
            # it as it is: a moment held for the table (a reveal) happened before it
            self.nav.acks.update(self.adapter.moments_now(view, self.journal))
        self.view = view
        name = "timer" if self.moment.get("kind") == "time" and view.get("session") == \
            self.moment.get("session") and not self.nav.home else \
            model.route(view, self.nav, self.adapter, self.journal)
        self.following = self.nav.tab is None
        self._top(view, name)
        self._show(name)
        from ui.widgets.root import banner_rows
        live = {(a.get("kind"), a.get("message")) for a in
                (view.get("hub") or {}).get("alerts") or []} | {("note", self.note)}
        scan = (view.get("hub") or {}).get("scan")
        if scan:
            live.add(("scan", scan.get("at")))
        self.dismissed &= live          # an alert that went away may come back: show it again
        self.root.ids.banners.rows = banner_rows(self, view, self.note)
        self.root.ids.rail.mark()
        screen = self._screens.get(name)
        self.root.ids.table_bar.show(view, not getattr(screen, "table_moves", False))
        self.root.ids.toast.replace()       # (after the layout: a trigger runs next frame)
        self._schedule_ticker(view)
        if self.notifier is not None and self.power_action is None:
            g = self.catalog.get((view.get("hub") or {}).get("game"))
            self.notifier.update(model.service_status(view, name, g.title if g else ""))
        self.frames += 1
        self.last_update = time.perf_counter()

    def _top(self, view, name=None):
        hubpart = view.get("hub") or {}
        if name == "home" or view.get("session") is None:
            # Home is Home, whatever game the hub last held (one just over, one left open
            # to resume): the game's title and "Game over" belong to that game's screens
            self.top_title = "Table Companion"
            g = hubpart.get("game")
            game = self.catalog.get(g) if g and name == "lobby" else None
            from ui.screens.lobby import edition_title
            title = edition_title(game, (hubpart.get("options") or {}).get("edition")) or \
                (game.title if game else "")
            self.top_status = f"{title} · setting up" if game else ""
            self.top_status_short = "Setting up" if game else ""
            self.rail_visible = False
            self.tabs = []
        else:
            self.top_title = self.adapter.title(view)
            parts = [self.adapter.round_text(view), view.get("phase_label") or ""]
            if view.get("outcome") is not None:
                parts = ["Game over"]
            parts = [p for p in parts if p]
            self.top_status = " · ".join(parts)
            self.top_status_short = parts[-1] if parts else ""
            self.rail_visible = not self.nav.home
            tabs = [("round", "Round")]
            own = dict(self.adapter.tabs)
            if view.get("timers") and "timer" not in own:
                tabs.append(("timer", "Timer"))
            tabs += list(self.adapter.tabs)
            tabs.append(("scores", "Scores"))
            self.tabs = tabs
        self._tick_timer_chip()

    def screen(self, name):
        """The screen object called ``name`` (created, and its .kv loaded, on first use)."""
        s = self._screens.get(name)
        if s is None:
            module, cls = SCREENS[name]
            for other, (mod, _cls) in SCREENS.items():    # a module's screens share rules
                if mod == module:                         # (a dialog of one on another)
                    load_kv(KV / f"{other}.kv")
            s = getattr(importlib.import_module(module), cls)(name=name)
            self._screens[name] = s
            self.root.ids.sm.add_widget(s)
        return s

    def _show(self, name):
        sm = self.root.ids.sm
        s = self.screen(name)
        if sm.current != name:
            sm.current = name
        self.screen_name = name
        s.update(self.view)

    # -- navigation ---------------------------------------------------------------------------
    def go(self, name):
        """A player tapped a tab: show that screen until the phase changes (a held moment
        ends)."""
        if self.moment:
            self.moment = {}
        if name == "now":
            self.nav.tab = self.nav.tab_at = None
        else:
            self.nav.tab = name
            self.nav.tab_at = model.where(self.view)
        self.refresh()

    def ack(self, key):
        """The table has seen a moment (a reveal, a recap): move on."""
        self.nav.acks.add(key)
        self.nav.tab = self.nav.tab_at = None
        self.refresh()

    def go_home(self):
        self.nav.home = True
        self.nav.tab = self.nav.tab_at = None
        self.refresh()

    def leave_home(self):
        self.nav.home = False
        self.refresh()

    # -- commands -----------------------------------------------------------------------------
    def command(self, fn, *args, done=None, **kwargs):
        """Run a hub command off the main thread; refusals come back as a toast."""
        if self.bridge is None:
            return False
        return self.bridge.call(fn, *args, done=done, **kwargs)

    def show_error(self, message):
        self.show_toast(message)

    def story_lines(self) -> list:
        """What happened, newest first: the public story of the latest view, the same lines
        every phone and /watch show (the Undo dialog lists the newest)."""
        return [e["says"] for e in reversed(self.view.get("story") or ())
                if isinstance(e, dict) and "to" not in e and isinstance(e.get("says"), str)]

    def show_toast(self, message, seconds=5):
        if self.closed:
            return
        self.toast = message
        if self._toast_ev is not None:
            self._toast_ev.cancel()
        self._toast_ev = Clock.schedule_once(lambda dt: setattr(self, "toast", ""), seconds)

    def dismiss_alert(self, key):
        self.dismissed.add(tuple(key))
        self.refresh()

    def content_moved(self):
        """An alert is coming or going (before the layout moves anything): each button's
        place now is noted, and for ``tap_guard`` seconds a button that is no longer there
        ignores taps (the tap was aimed at what was there)."""
        if not self.tap_guard or self.root is None:
            return
        from ui.widgets.common import TButton
        for w in self.root.walk(restrict=True):
            if isinstance(w, TButton):
                w.rest = w.window_rect()
        self.moved_until = time.monotonic() + self.tap_guard

    # -- the table in charge ---------------------------------------------------------------------
    def open_menu(self):
        from ui.widgets.menu import TableMenu
        TableMenu().open()

    def playing(self) -> bool:
        v = self.view
        return v.get("session") is not None and v.get("outcome") is None

    def table_home(self):
        """Home from the menu: a running game is left open to resume (``hub.suspend``)."""
        if self.playing() and not self.nav.home:
            self.command(self.hub.suspend, done=lambda _r: self.go_home())
        else:
            self.go_home()

    def end_game(self):
        """End the game now with the scores as they stand; the Victory screen follows."""
        def done(_r):
            self.nav.tab = self.nav.tab_at = None
            self.refresh()
        self.command(self.hub.end_game, done=done)

    def abandon_game(self):
        """Give the game up (recorded, left out of stats) and go Home."""
        self.command(self.hub.abandon, done=lambda _r: self.go_home())

    # -- the box: Shut down and Restart ----------------------------------------------------------
    def _power_requested(self, action):
        """``power.request`` (any thread: the GPIO button): the same stop as the Menu's,
        on the main thread."""
        Clock.schedule_once(lambda dt: self.power_stop(action))

    def power_stop(self, action):
        """Shut down (``"poweroff"``) or restart (``"reboot"``) the box: cover the screen with
        what is happening, let the command being written finish, then stop the app as closing
        the window does; :func:`run_app` returns the exit status the systemd unit turns into
        ``systemctl poweroff`` / ``reboot``. The first request wins."""
        if self.power_action is not None or self.closed:
            return
        self.exit_status = power.exit_status(action)
        self.power_action = action
        from kivy.core.window import Window
        from kivy.uix.modalview import ModalView
        from ui.widgets.menu import PowerCover
        for w in list(Window.children):               # the Menu, a confirmation, a picker
            if isinstance(w, ModalView):
                w.dismiss(animation=False)
        PowerCover(action=action).open()
        if self.notifier is not None:
            self.notifier.update("Shutting down" if action == "poweroff" else "Restarting")

        def drawn(*_):                                  # the cover is on the screen: stop
            Window.unbind(on_flip=drawn)
            if self._power_ev is not None:
                self._power_ev.cancel()
            self._power_ev = Clock.schedule_once(lambda dt: self._stop_for_power())
        Window.bind(on_flip=drawn)
        self._power_ev = Clock.schedule_once(drawn, 1.0)    # in case no frame is drawn

    def _stop_for_power(self):
        if self.closed:
            return
        if self.bridge is not None:
            self.bridge.wait_idle(10)          # a tap's command still being written: kept
        self.stop()

    def open_undo(self):
        from ui.widgets.dialogs import UndoDialog
        UndoDialog(app=self).open()

    def open_correction(self):
        from ui.widgets.dialogs import CorrectionDialog
        if self.hub.game is None:
            return
        CorrectionDialog(app=self).open()

    # -- moments --------------------------------------------------------------------------------
    def scan_shown(self, view):
        """The banner of the last scan while it is news: a match or a plain read for
        ``scan_hold`` seconds; a mismatch or a refusal until the phase (or round) ends."""
        scan = (view.get("hub") or {}).get("scan")
        row = model.scan_row(scan)
        if row is None:
            return None
        at = scan.get("at")
        if at not in self._scans:
            self._scans = {at: model.where(view)}
            if scan.get("result") not in model.SCAN_STICKY:
                self._fades = [e for e in self._fades if e.is_triggered]
                self._fades.append(Clock.schedule_once(lambda dt: self._fade(at),
                                                       self.scan_hold))
        if at in self._faded:
            return None
        if scan.get("result") in model.SCAN_STICKY and self._scans[at] != model.where(view):
            return None
        return row

    def _fade(self, at):
        self._faded.add(at)
        self.refresh()

    def _moments(self, view, notices):
        """A timer ran out: the Timer screen holds 0:00 and "Time!" for ``time_hold`` seconds
        (at least two), whatever the game does next, so the buzzer moment is seen."""
        if any(n.get("kind") == "SeatRenamed" for n in notices or ()) and self.toast:
            # a seat was named (a late joiner took a free seat): a toast still naming its
            # placeholder ("Seat 4 harvested ...") goes; the story keeps what happened
            self.toast = ""
        said = model.says(notices)
        if said:                    # what just happened, in the game's words, long enough to read
            self.show_toast("\n".join(said[-3:]),
                            seconds=max(5, sum(len(t.split()) for t in said[-3:]) / 3))
        for n in notices:
            if n.get("kind") == "TimerExpired" and "to" not in n and self.time_hold:
                now = Clock.get_boottime()
                self.moment = {"kind": "time", "timer": n.get("timer") or "",
                               "session": view.get("session"), "since": now,
                               "until": now + max(2.0, self.time_hold)}
                if self._moment_ev is not None:
                    self._moment_ev.cancel()
                self._moment_ev = Clock.schedule_once(self.end_moment,
                                                      max(2.0, self.time_hold))

    def end_moment(self, *_):
        """The held moment is over: the screen follows the game again."""
        if self._moment_ev is not None:
            self._moment_ev.cancel()
            self._moment_ev = None
        if self.moment:
            self.moment = {}
            if self.root is not None:
                self.refresh()

    # -- timers and sound -----------------------------------------------------------------------
    def clock_now(self):
        return self.hub.session_time()

    def _schedule_ticker(self, view):
        running = any(not t.get("paused") for t in (view.get("timers") or {}).values())
        if running and self._ticker is None:
            self._ticker = Clock.schedule_interval(self._tick, 0.1)
        elif not running and self._ticker is not None:
            self._ticker.cancel()
            self._ticker = None
        self._tick()

    def _tick(self, _dt=None):
        now = self.clock_now()
        if now is not None:
            self.now = now
        self._tick_timer_chip()
        s = self._screens.get(self.screen_name)
        if s is not None and now is not None:
            s.tick(now)

    def _tick_timer_chip(self):
        if self.moment.get("kind") == "time":        # the buzzer moment: 0:00 everywhere
            self.timer_text, self.timer_mode = "0:00", "done"
            return
        name, t = model.main_timer(self.view)
        if t is None or self.nav.home:          # Home shows no game's timer
            self.timer_text, self.timer_mode = "", ""
            return
        left = model.timer_left(t, self.clock_now())
        mode = model.timer_mode(t, left)
        self.timer_text = model.fmt_clock(left)
        self.timer_mode = mode
        if mode == "warning":
            self.warn(name)

    def _hub_event(self, event):
        if event.get("kind") == "timer_warning":
            Clock.schedule_once(lambda dt: self._warn_from_hub(event.get("timer")))
        elif event.get("kind") == "handover" and event.get("claimed"):
            Clock.schedule_once(lambda dt: self._handover_claimed(event.get("seat")))

    def _handover_claimed(self, seat):
        dialog = self.open_handovers.get(seat)
        if dialog is not None:
            dialog.claimed()
            players = self.view.get("players") or []
            name = players[seat] if seat is not None and seat < len(players) else "The"
            self.show_toast(f"{name}'s seat moved to the new phone.")

    def _warn_from_hub(self, name):
        """The hub's 0:30 warning, if that timer is still in its warning window when the
        screen gets to it (the game may have moved on meanwhile: then it is no news)."""
        t = (self.view.get("timers") or {}).get(name)
        if t is not None and model.timer_mode(t, model.timer_left(t, self.clock_now())) \
                == "warning":
            self.warn(name)

    def warn(self, name):
        """The 0:30 warning: a sound (the colour is on the timer), once per timer per phase
        and round, however often it is paused and resumed or the hub announces it."""
        v = self.view
        key = (v.get("session"), name, v.get("round"), v.get("phase"))
        if key in self._warned:
            return
        self._warned.add(key)
        self.sounds_played.append(key)
        if self.sound_on:
            self._play_warning()

    def _play_warning(self):
        try:
            if self._sound is None:
                from kivy.core.audio import SoundLoader
                self._sound = SoundLoader.load(str(ASSETS / "warning.wav")) or False
            if self._sound:
                self._sound.stop()
                self._sound.play()
        except Exception:                       # no audio device: the colour still warns
            self._sound = False


#: The signal :func:`request_stop` was given (None: none), and whether :func:`run_app`'s app is
#: running, so the signal has someone to read it.
_stop_signal = None
_running = False


def request_stop(signum) -> bool:
    """Ask the running table app to stop, from a signal handler: returns False when there is
    no running app to ask, or it was asked already (the caller then raises ``SystemExit``).

    Only a flag is set; the app reads it on its clock (``TableApp._stop_if_asked``). A handler
    that raised ``SystemExit`` in the middle of Kivy's loop was sometimes swallowed there (a
    SIGTERM lost, the table running on until systemd's kill: seen under load in
    tests/cli/test_run_reader.py), and one that scheduled on Kivy's clock could wait for a lock
    the interrupted code holds."""
    global _stop_signal
    if not _running or _stop_signal is not None:
        return False
    _stop_signal = signum
    return True


def configure_window(fullscreen=True, size=None, display=None):
    """Window settings; must run before the window exists (before ``kivy.core.window``).

    ``display``: a ``hardware.config.DisplayConfig`` (rotation and touch); default: the
    ``[display]`` section of the hardware config (:func:`ui.display.load`). The touch gets
    exactly one input path and the rotation is applied once (:mod:`ui.display`)."""
    from kivy.config import Config
    from ui import display as screen
    w, h = size or BASE
    Config.set("graphics", "width", str(int(w)))
    Config.set("graphics", "height", str(int(h)))
    Config.set("graphics", "fullscreen", "auto" if fullscreen else "0")
    Config.set("graphics", "resizable", "1")
    screen.configure(display)
    Config.set("kivy", "exit_on_escape", "0" if fullscreen else "1")
    # No multisampling (Kivy asks for it by default): its colour and depth buffers cost the
    # table 10 MB on Mesa's software GL (benches/bench_run.py, 204 -> 196 MB) and GPU memory,
    # carved from RAM, on a Pi; flat buttons on an 800x480 screen show no difference beyond a
    # pixel on a rounded corner. KCFG_GRAPHICS_MULTISAMPLES=4 asks for it again.
    if "KCFG_GRAPHICS_MULTISAMPLES" not in os.environ:
        Config.set("graphics", "multisamples", "0")


def _on_first_frame(fn):
    from kivy.core.window import Window

    def flipped(*_):
        Window.unbind(on_flip=flipped)
        fn()
    Window.bind(on_flip=flipped)


def _report_first_frame(path):
    import json
    import time

    def write():                # whole or not at all: the bench polls for the file, and
        tmp = f"{path}.tmp"     # on the emulated arm64 box read it once between its creation
        with open(tmp, "w") as f:                       # and its first byte
            json.dump({"wall": time.time(), "monotonic": time.monotonic()}, f)
        os.replace(tmp, path)
    _on_first_frame(write)


def run_app(hub, *, fullscreen=True, size=None, simulated_hardware_note=None, appliance=False,
            address_feed=None, network=None):
    """Show the table screen for ``hub`` until the window closes (blocking). Returns the exit
    status: 0, or ``power.POWEROFF`` / ``power.REBOOT`` after Shut down or Restart.

    ``size``: a window size such as ``(800, 480)`` (ignored when fullscreen). Starts the hub's
    timer thread (idempotent) so deadlines and 0:30 warnings reach the screen. ``appliance``:
    the Menu offers Shut down and Restart. ``address_feed(fn)``: calls ``fn(join_url)`` when
    the join address changes (``TableServer.on_address``). ``network``: the box's network
    (``companion.net.wifi.Network``) for the Menu's Network dialog and the lobby's Wi-Fi QR, or
    None (this machine's network is not the table's). Under systemd (``$NOTIFY_SOCKET``)
    the app says READY=1 at its first frame, its status as it changes, and pets the watchdog.
    """
    from ui.notifier import ServiceNotifier
    os.environ.setdefault("KIVY_NO_ARGS", "1")
    configure_window(fullscreen, size)
    hub.start_timers()
    notifier = ServiceNotifier(hub)
    app = TableApp(hub, simulated_hardware_note=simulated_hardware_note, appliance=appliance,
                   address_feed=address_feed, notifier=notifier, network=network)
    report = os.environ.get("COMPANION_FIRST_FRAME_FILE")
    if report:                      # for benches/bench_run.py: when the first frame is shown
        _report_first_frame(report)
    _on_first_frame(notifier.first_frame)
    notifier.start()
    global _running, _stop_signal
    _stop_signal, _running = None, True
    try:
        app.run()
    finally:
        _running = False
        app.close()
    return app.exit_status
