"""A game's life at the table: choosing the game and its seats in the lobby, starting it,
resuming one from the log (after a crash its running timers come back paused), the list of
open games Home offers to resume, and leaving one (suspended, abandoned or ended now).
"""
from __future__ import annotations

from companion.core.clock import SessionClock, fmt_clock
from companion.core.errors import CompanionError, ConfigError
from companion.core.session import Session

from .seats import Seat


def _last_played(info):
    """Sort key of a stored session: when its last move was saved (then when it began)."""
    return info.updated, info.created


class Lifecycle:
    """The hub's games: configure, start, resume, suspend, abandon, end."""

    def configure(self, game, players=4, options=None, names=None):
        """Choose the game, player count and options before the start (the Home screen)."""
        with self._lock:
            if self.session is not None and not self.session.state.is_over():
                raise ConfigError("A game is running: end it, abandon it or go Home first.")
            g = self.games(game)
            g.check_players(players)
            self.options = g.resolve_options(options)
            self.game_name = g.name
            self.seats = self._next_seats(players)
            for i, name in enumerate(names or ()):
                if self.seats[i].token_hash is None:
                    self.seats[i].name = name
            self.session = None
            self._save_table()
        self._emit({"kind": "lobby"})

    def start(self, seed=None):
        """Start the game set up in the lobby. ``seed``: the deal (default: ``next_seed``
        once, as ``companion serve --seed`` sets it, else a random one)."""
        with self._lock:
            if self.game_name is None:
                raise ConfigError("Choose a game first.")
            if self.session is not None and not self.session.state.is_over():
                # checked under the lock: two starts at once (the table's tap and a server's
                # automatic start) must not make two games
                raise ConfigError("A game is already running: end it or go Home first.")
            game = self.games(self.game_name)
            if seed is None:
                seed = self.next_seed
            self.next_seed = None
            seats = [{"name": s.name, "token_hash": s.token_hash, "phone": s.phone}
                     for s in self.seats]
            self.session = Session.start(
                game, [s.name for s in self.seats], self.log, options=self.options,
                seed=seed, clock=self.clock or SessionClock(), entropy=self.entropy,
                meta={"table": self.table, "seats": seats, "room": self.room_code})
            self._save_table()                  # the lobby became this session
            self._wake.notify_all()
        self._emit({"kind": "changed", "version": self.session.version,
                    "notices": self.session.state.notices})
        return self.session

    def resume(self, session_id=None):
        """Resume a session from the log (by default this table's open one that was played
        last: after a crash, the game that was being played, even if a newer one is open)."""
        restarted = session_id is None         # at the table's start, not from Home
        with self._lock:
            if (self.session is not None and not self.session.state.is_over()
                    and session_id != self.session.id):
                raise ConfigError("A game is running: go Home first, then resume another.")
            if session_id is None:
                open_ = [i for i in self.log.sessions() if i.status == "open"
                         and i.meta.get("table", self.table) == self.table]
                if not open_:
                    return None
                session_id = max(open_, key=_last_played).id
            self.session = Session.load(self.log, session_id, games=self.games,
                                        clock=None if self.clock is None else self.clock)
            meta = self.log.info(session_id).meta
            self.game_name = self.session.game.name
            self.options = dict(self.session.state.config)
            self.room_code = meta.get("room", self.room_code)
            self.seats = [Seat(i, d["name"], d.get("token_hash"), d.get("phone", False),
                               restored=True)
                          for i, d in enumerate(meta.get("seats") or
                                                [{"name": n} for n in
                                                 self.session.state.players])]
            # only the table knows it stopped and came back (the log tells the rest); a game
            # nobody has played a move in yet has nothing to resume: its feed starts with the
            # game, not with "The table restarted."
            if self.session.version > 1:
                self.session.tell("The table restarted." if restarted else
                                  "The table resumed this game.")
            paused = self._pause_after_restart()
            self._wake.notify_all()
        self._emit({"kind": "changed", "version": self.session.version, "notices": []})
        if paused:
            self._alert("restart", "The table restarted: " + "; ".join(paused) + ". Tap "
                        "Resume when everyone is ready.", key="restart")
        return self.session

    def _pause_after_restart(self):
        """A timer that was running when the table stopped comes back paused with the time it
        had left (the outage itself is not counted; nobody could play meanwhile)."""
        s = self.session
        out = []
        if s.state.is_over() or s.abandoned:
            return out
        paused = {}                 # (kind, time left) -> how many: said once per group
        for t in list(s.state.timers.values()):
            if t.deadline is not None:
                s.pause_timer(t.name)
                # "turn:b1.2" (one turn timer per battle) is a turn timer to the players
                kind = t.name.split(":")[0].replace("-", " ")
                key = (kind, fmt_clock(s.state.timers[t.name].remaining))
                paused[key] = paused.get(key, 0) + 1
        for (kind, left), n in paused.items():
            out.append(f"the {kind} timer is paused at {left}" if n == 1 else
                       f"the {n} {kind} timers are paused at {left}")
        return out

    def resumable(self):
        """This table's open sessions, the last played first, as ``{"id", "game", "title",
        "players", "round", "phase_label", "started", "updated", "records"}`` for the Home
        screen (``updated``: the wall-clock time of its last saved move)."""
        out = []
        for info in sorted(self.log.sessions(), key=_last_played, reverse=True):
            if info.status != "open" or info.meta.get("table", self.table) != self.table:
                continue
            if self.session is not None and info.id == self.session.id:
                continue
            item = {"id": info.id, "game": info.game, "title": info.game,
                    "players": list(info.meta.get("players") or []), "round": None,
                    "phase_label": None, "started": info.created, "updated": info.updated,
                    "records": info.length}
            try:
                game = self.games(info.game)
                item["title"] = game.title
                if len(out) < 12:                    # the newest: say where they stand
                    state = Session.load(self.log, info.id, games=self.games).state
                    item.update(players=list(state.players), round=state.round,
                                phase_label=game.phases[state.phase].label or state.phase)
            except CompanionError as e:
                item["problem"] = str(e) or "does not replay"     # e.g. its edited data is gone
            out.append(item)
        return out

    def _leave(self):
        """Back to Home: no game chosen; phones keep their seats for the next game."""
        if self.session is not None and not self.session.abandoned:
            self.session.mark_time()
        self.session = None
        self.game_name = None
        self._save_table()
        self._wake.notify_all()

    def suspend(self):
        """Go Home and leave the running game open: it can be resumed later."""
        with self._lock:
            self._leave()
        self._emit({"kind": "lobby"})

    def abandon(self):
        """Give up the running game (recorded; its log says ``abandoned``) and go Home."""
        with self._lock:
            s = self._need_session()
            s.abandon()
            self._leave()
        self._emit({"kind": "lobby"})

    def end_game(self):
        """End the running game now with the scores as they stand (the Victory screen)."""
        return self._saving(self._need_session().end_early)
