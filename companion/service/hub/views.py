"""What the hub shows: the public view (the table screen, spectators) and each seat's view (its
phone, its own secrets only), both with the hub's part (room, seats, scan, alerts, devices),
computed together for one moment by :meth:`views`; and what screens may read besides them
(the game's definition, the history as a viewer may see it, the session clock, the summary).
"""
from __future__ import annotations


class Views:
    """The hub's views, pulled by the bridge and the screens."""

    def _hub_part(self):
        return {"table": self.table, "room": self.room_code, "join_url": self.join_url,
                "join_offline": self.join_offline,
                "game": self.game_name, "title": self._title(), "options": self.options,
                "seats": [s.public() for s in self.seats],
                "scan": self.last_scan,
                "alerts": [{k: a[k] for k in ("key", "kind", "message")} for a in self.alerts],
                "devices": self._devices_part()}

    def _title(self):
        """The name of what this table plays, in its edition (Tariff Warz, not Trade Warz):
        for the lobby, where no game view says it yet."""
        if not self.game_name:
            return None
        try:
            game = self.games(self.game_name)
        except Exception:                   # a game this box does not have
            return None
        from companion.lab.games import edition_of
        return edition_of(game, self.options) or game.title

    def _devices_part(self):
        """What the buzzer and the light follow, game-neutral (the hardware glue reads only
        this view): the game's light cue and how it wants reveals counted down."""
        s = self.session
        if s is None:
            return {"cue": None, "reveal_count": "auto"}
        return {"cue": s.game.cue(s.state), "reveal_count": s.game.reveal_count}

    @property
    def game(self):
        """The game the table plays, as a definition (its rules and data; None at Home): what
        screens may read besides the views. Never its state."""
        s = self.session
        return s.game if s is not None else None

    def history(self, viewer=None):
        """The running game's log as ``viewer`` (a seat, None: the public) may see it ([] at
        Home)."""
        with self._lock:
            return self.session.history(viewer) if self.session is not None else []

    def session_time(self):
        """The session clock now (None without a session), to turn a view's deadlines into
        the devices' monotonic time."""
        with self._lock:
            return self.session.clock.now() if self.session is not None else None

    def summary(self):
        """The finished (or running) game's summary for the table screen: score curve, time
        per phase and per round (:func:`companion.lab.facts.game_summary`); None with no game."""
        with self._lock:
            if self.session is None:
                return None
            from companion.lab.facts import game_summary
            return game_summary(self.session)

    def public_view(self):
        with self._lock:
            hub = self._hub_part()
            if self.session is None:
                return {"v": 1, "hub": hub, "phase": "lobby"}
            view = self.session.public_view()
            view["hub"] = hub
            return view

    def seat_view(self, seat):
        with self._lock:
            hub = self._hub_part()
            hub.pop("alerts")
            hub.pop("devices")
            if self.session is None:
                return {"v": 1, "hub": hub, "phase": "lobby", "seat": seat}
            view = self.session.seat_view(seat)
            view["hub"] = hub
            return view

    def views(self, seats=None):
        """``(public view, {seat: seat view})`` of one moment: what the bridge publishes after
        a change, computed from one public projection."""
        with self._lock:
            hub = self._hub_part()
            seat_hub = dict(hub)
            seat_hub.pop("alerts")
            seat_hub.pop("devices")
            seats = range(len(self.seats)) if seats is None else seats
            if self.session is None:
                return ({"v": 1, "hub": hub, "phase": "lobby"},
                        {s: {"v": 1, "hub": seat_hub, "phase": "lobby", "seat": s}
                         for s in seats})
            pub, per_seat = self.session.views(seats)
            pub["hub"] = hub
            for v in per_seat.values():
                v["hub"] = seat_hub
            return pub, per_seat
