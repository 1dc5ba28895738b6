"""The app's only connection to the hub.

* Hub events arrive on any thread (a phone's move, the timer thread, a card scan). They are
  queued and one Kivy trigger (``Clock.create_trigger``) redraws once per frame at most, on the
  main thread.
* The screen's own commands (a tap on Next, Undo, a correction) run on one worker thread, in
  order, so a slow disk write never freezes the screen. A command tapped while another is still
  running is dropped (a double tap on Next must not skip a phase). A refusal from the rules
  (``CompanionError``) comes back as its readable sentence.
"""
import collections
import logging
import queue
import threading

from kivy.clock import Clock

from companion.core.errors import CompanionError

log = logging.getLogger("companion.ui")


class HubBridge:
    def __init__(self, hub, on_change, on_error, on_event=None):
        self.hub = hub
        self.on_change = on_change          # main thread: fn(events)
        self.on_error = on_error            # main thread: fn(message)
        self.on_event = on_event            # any thread: fn(event), e.g. sounds
        self.events = collections.deque()
        self._trigger = Clock.create_trigger(self._flush, 0)
        self._unsubscribe = hub.subscribe(self._hub_event)
        self._jobs = queue.Queue()
        self._busy = threading.Event()
        self._idle = threading.Condition()
        self._pending = 0
        self._worker = threading.Thread(target=self._work, name="ui-commands", daemon=True)
        self._worker.start()
        self.closed = False

    # -- events from the hub (any thread) -------------------------------------------------------
    def _hub_event(self, event):
        self.events.append(event)
        if self.on_event is not None:
            try:
                self.on_event(event)
            except Exception:                      # a sound must never break the hub
                log.exception("ui event hook failed")
        self._trigger()

    def poke(self):
        """Ask for a redraw on the next frame (e.g. after a local navigation change)."""
        self._trigger()

    def _flush(self, _dt):
        events = []
        while self.events:
            events.append(self.events.popleft())
        self.on_change(events)

    # -- commands from the screen ------------------------------------------------------------------
    def call(self, fn, *args, done=None, **kwargs):
        """Run ``fn(*args, **kwargs)`` (a hub method) on the worker. ``done(result)`` runs on the
        main thread after it succeeded. Returns False if another command is still running."""
        with self._idle:
            if self._pending:
                return False
            self._pending += 1
        self._jobs.put((fn, args, kwargs, done))
        return True

    def _work(self):
        while True:
            job = self._jobs.get()
            if job is None:
                return
            fn, args, kwargs, done = job
            try:
                result = fn(*args, **kwargs)
            except CompanionError as e:
                msg = str(e)
                Clock.schedule_once(lambda dt, m=msg: self.on_error(m))
            except Exception as e:                 # a bug: say so, keep the table running
                log.exception("command failed")
                msg = f"Something went wrong ({type(e).__name__}: {e}). The game is unchanged."
                Clock.schedule_once(lambda dt, m=msg: self.on_error(m))
            else:
                if done is not None:
                    Clock.schedule_once(lambda dt, r=result: done(r))
            finally:
                with self._idle:
                    self._pending -= 1
                    self._idle.notify_all()
                self._trigger()

    def busy(self) -> bool:
        return self._pending > 0

    def wait_idle(self, timeout=5.0) -> bool:
        """Block until no command is running (tests and benchmarks)."""
        with self._idle:
            return self._idle.wait_for(lambda: self._pending == 0, timeout)

    def close(self):
        if self.closed:
            return
        self.closed = True
        try:
            self._unsubscribe()
        except ValueError:
            pass
        self._trigger.cancel()
        self._jobs.put(None)
        self._worker.join(timeout=2)
