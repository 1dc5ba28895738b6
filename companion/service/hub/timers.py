"""The timer thread: it sleeps until the next deadline (or 0:30 warning) and ticks the session,
notes the session clock in the store once a second while a timer runs (so a crash loses at
most that second), and stops cleanly; and :meth:`answers`, the watchdog's question whether the
hub is free to take a command.
"""
from __future__ import annotations

import threading
import time

from companion.core.errors import CompanionError


class Timers:
    """The hub's timers and its liveness."""

    def start_timers(self):
        """Run the timer thread: ticks deadlines and announces 0:30 warnings."""
        if self._timer_thread is None:
            self._stopping = False
            self._timer_thread = threading.Thread(target=self._timer_loop, name="hub-timers",
                                                  daemon=True)
            self._timer_thread.start()

    def _next_wakeup(self):
        s = self.session
        if s is None or s.state.is_over():
            return None, None
        soon = None
        for t in s.state.timers.values():
            if t.deadline is None:
                continue
            for at, what in ((t.deadline - t.warn_before, ("warn", t.name, t.deadline)),
                             (t.deadline, ("due", t.name, t.deadline))):
                if what[0] == "warn" and (t.warn_before <= 0 or t.warned):
                    continue
                if soon is None or at < soon[0]:
                    soon = (at, what)
        return soon if soon else (None, None)

    def _timer_loop(self):
        while True:
            events = []
            with self._lock:
                if self._stopping:
                    return
                at, what = self._next_wakeup()
                if at is None:
                    self._wake.wait(1.0)
                    continue
                self._heartbeat()
                wait = at - self.session.clock.now()
                if wait > 0:
                    self._wake.wait(min(wait, 1.0))
                    continue
                if what[0] == "warn":
                    try:
                        r = self.session.warn(what[1])
                        events.append({"kind": "changed", "version": r.version,
                                       "seq": self.session.state.seq, "notices": r.notices})
                        events.append({"kind": "timer_warning", "timer": what[1]})
                    except CompanionError as e:
                        events.append({"kind": "alert", "alert": "timer", "message": str(e)})
                else:
                    try:
                        for r in self.session.tick():
                            events.append({"kind": "changed", "version": r.version,
                                           "seq": self.session.state.seq,
                                           "notices": r.notices})
                    except CompanionError as e:
                        events.append({"kind": "alert", "alert": "timer", "message": str(e)})
            for e in events:
                self._emit(e)

    def _heartbeat(self, every=1.0):
        """While a timer runs, note the session clock in the store once a second: after a
        crash the timer comes back with the time it had left (to within that second)."""
        s = self.session
        if s is None or not any(t.deadline is not None for t in s.state.timers.values()):
            return
        now = time.monotonic()
        if now - self._marked >= every:
            self._marked = now
            try:
                s.mark_time()
            except Exception as e:          # a full disk must not stop the timers
                self._alert("storage", f"Cannot save the clock: {e}", key="storage")

    def answers(self, within: float) -> bool:
        """Is the hub free to take a command within ``within`` seconds (not stuck)? For a
        watchdog: the systemd unit's pings stop while this says no."""
        if not self._lock.acquire(timeout=within):
            return False
        self._lock.release()
        return True

    def stop(self):
        with self._lock:
            self._stopping = True
            s = self.session
            if s is not None and not s.abandoned:
                try:
                    s.mark_time()           # a clean stop: timers keep exactly their time
                except Exception:
                    pass
            self._wake.notify_all()
        if self._timer_thread is not None:
            self._timer_thread.join(timeout=2)
            self._timer_thread = None
