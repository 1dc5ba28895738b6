"""Telling: the hub's subscribers (the bridge, the Kivy app, the devices' glue), called after
every change on the caller's thread, and the alerts every screen shows (storage, a button, a
scan, a phone disconnected; the club's good news). The alert kinds that are good news are
owned here: the club raises them, a view shows them as such.
"""
from __future__ import annotations

import time


#: Alert kinds that are good news (the table joined its club): a view shows them as such, the
#: reader's speaker does not blip an error for them. The club raises them; the hub owns the kinds.
CLUB_JOINED = "club_joined"
GOOD_NEWS = frozenset({CLUB_JOINED})


class Alerts:
    """The hub's subscribers and alerts."""

    def subscribe(self, fn):
        """``fn(event)`` after every change. Events: ``{"kind": "changed", "version", "seq",
        "notices"}``
        (a command was applied), ``{"kind": "lobby"}``, ``{"kind": "alert", ...}``,
        ``{"kind": "handover", "seat", "claimed": True}`` (a new phone took a handed-over seat),
        ``{"kind": "presence", "seat", "online"}``, ``{"kind": "timer_warning", "timer"}``."""
        self._subs.append(fn)
        return lambda: self._subs.remove(fn)

    def _emit(self, event):
        for fn in list(self._subs):
            fn(event)

    def _alert(self, kind, message, key=None):
        with self._lock:
            key = key or kind
            self.alerts = [a for a in self.alerts if a["key"] != key][-4:]
            self.alerts.append({"key": key, "kind": kind, "message": message,
                                "at": time.time()})
        self._emit({"kind": "alert", "alert": kind, "message": message})

    def alert(self, kind, message, key=None):
        """An alert from outside the core (reader unplugged, ...)."""
        self._alert(kind, message, key)

    def clear_alert(self, key):
        with self._lock:
            before = len(self.alerts)
            self.alerts = [a for a in self.alerts if a["key"] != key]
            changed = len(self.alerts) != before
        if changed:
            self._emit({"kind": "alert", "alert": None, "message": None})
