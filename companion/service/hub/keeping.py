"""What a table keeps between runs: its room code and lobby (the game chosen and the seats
taken, before the start) in the store's table record, the other facts it keeps there (the
club it joined), and the table facts kept with a running session (its seats, the bridge's
seat ids), so a restart finds them all.
"""
from __future__ import annotations

from companion.core.errors import CompanionError

from .seats import Seat


class Keeping:
    """The hub's durable table facts, besides the session's own log."""

    def _table_meta(self) -> dict:
        getter = getattr(self.log, "table_meta", None)
        try:
            return (getter(self.table) if getter else None) or {}
        except CompanionError:
            return {}

    def _restore_lobby(self, lobby):
        """A restart before the start keeps the room code, the game chosen and the seats taken
        (the phones reclaim them with their tokens)."""
        if not lobby or not lobby.get("game"):
            return
        try:
            g = self.games(lobby["game"])
            self.options = g.resolve_options(lobby.get("options"))
        except CompanionError:
            return
        self.game_name = g.name
        self.seats = [Seat(i, d["name"], d.get("token_hash"), d.get("phone", False),
                           restored=True) for i, d in enumerate(lobby.get("seats") or [])]

    def _save_table(self):
        """Keep the room code, and the lobby while no game runs, in the store."""
        setter = getattr(self.log, "set_table_meta", None)
        if setter is None:
            return
        lobby = None
        if self.session is None and self.game_name:
            options = {k: v for k, v in self.options.items() if k != "data"}   # which copy
            lobby = {"game": self.game_name, "options": options,        # is the run's --data
                     "seats": [{"name": x.name, "token_hash": x.token_hash, "phone": x.phone}
                               for x in self.seats]}
        try:
            setter(self.table, {**self._kept, "room": self.room_code, "lobby": lobby})
        except CompanionError as e:
            self._alert("storage", str(e), key="storage")

    def kept(self, key, default=None):
        """A fact this table keeps between runs besides its room and lobby (``"club"``)."""
        with self._lock:
            return self._kept.get(key, default)

    def keep(self, key, value):
        """Keep ``value`` under ``key`` (None forgets it) with the room and lobby, durably;
        a storage error raises (the caller says it where it was asked)."""
        with self._lock:
            if value is None:
                self._kept.pop(key, None)
            else:
                self._kept[key] = value
            setter = getattr(self.log, "set_table_meta", None)
            if setter is not None:
                lobby = (self._table_meta() or {}).get("lobby")
                setter(self.table, {**self._kept, "room": self.room_code, "lobby": lobby})

    def update_session_meta(self, **fields):
        """Keep table facts (seats, the bridge's seat ids, ...) with the session, so a restart
        finds them. Thread-safe; a no-op before the game starts."""
        with self._lock:
            if self.session is None:
                return
            meta = dict(self.log.info(self.session.id).meta)
            if all(meta.get(k) == v for k, v in fields.items()):
                return
            meta.update(fields)
            self.log.set_meta(self.session.id, meta)

    def session_meta(self) -> dict:
        with self._lock:
            return dict(self.log.info(self.session.id).meta) if self.session else {}
