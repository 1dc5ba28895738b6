"""Commands on the running game: a seat's move, the table's move, undo, corrections, closing a
sealed window, pause, the Next and physical buttons, and group commit (:meth:`batch`). Every
command goes through the session (rules, sealed choices, the durable log); a store that
cannot save becomes one alert on every screen and the same refusal for the caller.
"""
from __future__ import annotations

import contextlib
import time

from companion.core.errors import CompanionError, IllegalMoveError, StorageError


class Commands:
    """The hub's commands, each applied through the session."""

    def _need_session(self):
        if self.session is None:
            raise IllegalMoveError("No game is running at this table yet.")
        return self.session

    def _after(self, result):
        with self._lock:
            self._wake.notify_all()
            settled = next((n for n in result.notices if n.get("kind") == "MismatchSettled"),
                           None)
            if settled is not None and (self.last_scan or {}).get("result") == "mismatch":
                # the table settled the scanned card: the red banner has done its work; the
                # screens say what was kept
                kept = "the scanned card" if settled.get("keep") == "scanned" else \
                    "the phone's choice"
                self.last_scan = dict(self.last_scan, result="settled", at=time.time(),
                                      message=f"Settled: the table kept {kept}.")
        self.clear_alert("storage")                 # it saved: writing works again
        self._emit({"kind": "changed", "version": result.version, "seq": self.session.state.seq,
                    "notices": result.notices})
        return result

    def _saving(self, fn, *args, **kw):
        """Run a session command; a store that cannot save becomes an alert on every screen
        (once per kind of failure, not once per move) and the same refusal for the caller."""
        try:
            return self._after(fn(*args, **kw))
        except StorageError as e:
            self._alert("storage", str(e), key="storage")
            raise

    @contextlib.contextmanager
    def batch(self):
        """Commands inside share one save (group commit: one fsync for the commands that
        arrived together, see :meth:`SQLiteLog.batch`); the hub stays locked meanwhile, so no
        other writer joins. Nothing inside may be acknowledged before the block ends. If the
        save fails, the session goes back to what the log holds (every command of the block
        is forgotten), the screens get the storage alert, and :class:`StorageError` is raised
        for the caller to answer each of them "not saved"."""
        lost = None
        with self._lock:
            s = self.session
            mark = s.version if s is not None else None
            try:
                with self.log.batch():
                    yield
            except StorageError as e:
                lost = e
                if s is not None and self.session is s:
                    s.rewind(mark)
                self._wake.notify_all()
        if lost is not None:
            self._alert("storage", str(lost), key="storage")
            if s is not None and self.session is s:
                self._emit({"kind": "changed", "version": s.version, "seq": s.state.seq,
                            "notices": []})
            raise lost

    def submit(self, seat, move, args=None, tx=None):
        """A seat's move (from its phone or a touch on its part of the screen). ``tx``: the
        phone's transaction id, recorded with the move (see :meth:`Session.find_tx`)."""
        return self._saving(self._need_session().execute, seat, move, args or {}, tx=tx)

    def table_move(self, move, args=None):
        return self._saving(self._need_session().execute, None, move, args or {})

    def undo(self):
        return self._saving(self._need_session().undo)

    def correct(self, seat, counter, delta, reason):
        return self._saving(self._need_session().correct, seat, counter, delta, reason)

    def close_window(self, window_id):
        return self._saving(self._need_session().close_window, window_id)

    def toggle_pause(self):
        """Pause every running timer, or resume every paused one."""
        self.clear_alert("restart")
        s = self._need_session()
        timers = s.state.timers
        running = [t.name for t in timers.values() if not t.is_paused()]
        if running:
            return [self._saving(s.pause_timer, n) for n in running]
        return [self._saving(s.resume_timer, t.name) for t in list(timers.values())]

    def next(self):
        """The table's Next button: confirm the table prompt if there is one."""
        s = self._need_session()
        p = s.state.prompts.get(None)
        if p is None:
            waiting = ", ".join(s.state.players[x] for x in s.state.prompts if x is not None)
            raise IllegalMoveError(f"Waiting for {waiting}." if waiting else
                                   "Nothing to confirm.")
        move = p.get("next") or p["moves"][0]
        return self.table_move(move, p.get("next_args") or {})

    def press(self, button):
        """A physical button: ``next``, ``pause`` or ``undo``. Errors become alerts."""
        try:
            {"next": self.next, "pause": self.toggle_pause, "undo": self.undo}[button]()
        except CompanionError as e:
            self._alert("button", str(e), key="button")
