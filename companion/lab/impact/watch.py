"""Watching games: :class:`CardWatch` follows one game's states and moves and gives one row per
seat-game (opening, drawn, played, the win share); :func:`simulate_rows` plays bot games for
them (the seeds of ``companion simulate``, in chunks on local processes or a cluster) and
:func:`live_rows` replays the table's own sessions.
"""
import dataclasses
import random

from companion.core.clock import FakeClock
from companion.core.play import play_out, resolve_bots
from companion.core.session import LeanSession
from companion.core.workers import Workers

from ..simulate import _Watched, seeds_for
from .cards import adapter_for


@dataclasses.dataclass(frozen=True)
class SeatCards:
    session: str
    seat: int
    share: float                 # win share: 1, 1/k for a shared win, else 0
    group: str | None            # the Leader (Trade Warz)
    opening: frozenset
    seen: frozenset              # ever in hand (includes opening and played)
    played: frozenset
    fights: tuple = ()           # Battle Builder: (battle id, monster, won) per monster fought


class CardWatch:
    """Watches one game state by state (:meth:`see`) and move by move (:meth:`move`)."""

    def __init__(self, game, adapter=None):
        self.game = game
        self.ad = adapter or adapter_for(game)
        self.seen, self.opening, self.played = None, None, None
        self.names = {}

    def _init(self, n):
        self.seen = [set() for _ in range(n)]
        self.played = [set() for _ in range(n)]
        self.opening = [None] * n

    def see(self, state):
        if self.seen is None:
            self._init(state.n)
        opened = self.ad.opened(state)
        plays = getattr(self.ad, "plays", None)
        for s in range(state.n):
            hand = self.ad.hand(state, s)
            self.seen[s].update(hand)
            if opened and self.opening[s] is None:
                self.opening[s] = frozenset(hand)
            if plays is not None:
                got = plays(state, s)
                self.played[s].update(got)
                self.seen[s].update(got)

    def move(self, seat, move, args):
        if seat is None:
            return
        card = self.ad.played(move, args)
        if card is not None:
            self.played[seat].add(card)
            self.seen[seat].add(card)
        taken = getattr(self.ad, "taken", None)
        card = taken(move, args) if taken is not None else None
        if card is not None:
            self.seen[seat].add(card)

    def rows(self, state, session) -> list:
        o = state.outcome
        if o is None:
            return []
        if not self.names:
            self.names = self.ad.names(state)
        share = 1.0 / len(o.winners) if o.winners else 0.0
        fights = getattr(self.ad, "fights", None)
        return [SeatCards(session, s, share if s in o.winners else 0.0,
                          self.ad.group(state, s), self.opening[s] or frozenset(),
                          frozenset(self.seen[s]), frozenset(self.played[s]),
                          fights(state, s) if fights is not None else ())
                for s in range(state.n)]


def play_one(game, players, gseed, seat_bots, options):
    """One bot game, the same game as ``companion simulate`` plays for this seed; its rows."""
    s = LeanSession(game, players, options=options, seed=gseed, clock=FakeClock())
    watch = CardWatch(game)
    play_out(_Watched(s, watch), seat_bots, random.Random(gseed ^ 0x5EED))
    return watch.rows(s.state, f"sim-{gseed}"), watch.names


def _chunk(name, data, players, seeds, bots, options):
    from companion.games import get
    game = get(name, data=data)
    seat_bots = resolve_bots(game, bots, len(players))
    rows, names = [], {}
    for g in seeds:
        r, nm = play_one(game, players, g, seat_bots, options)
        rows.extend(r)
        names.update(nm)
    return rows, names


def simulate_rows(game, players, games, seed=0, bots="greedy", options=None, jobs=1,
                  cluster=None):
    """``(rows, names)`` of ``games`` bot games (the seeds of ``companion simulate``)."""
    adapter_for(game)
    resolve_bots(game, bots, len(players))
    options = game.resolve_options(options)
    data = getattr(game, "data_dir", None)
    seeds = seeds_for(seed, games)
    rows, names = [], {}
    with Workers(jobs, cluster, games) as w:
        size = games if w.here else max(10, games // (w.count * 4))
        for r, nm in w.map(_chunk, [(game.name, data, players, seeds[i:i + size], bots,
                                     options) for i in range(0, games, size)]):
            rows.extend(r)
            names.update(nm)
    return rows, names


def live_rows(log, infos, games=None):
    """``(rows, names)`` of finished sessions from the store, replayed from their logs (the
    seats' own moves are in the log, sealed ones included)."""
    from .. import data as lab_data
    from ..facts import walk
    rows, names = [], {}
    for info in infos:
        records = log.read(info.id)
        game = lab_data.game_for_records(records, games=games)
        watch = CardWatch(game)

        def each(rec, state, watch=watch):
            if rec is not None and rec.get("kind") == "move":
                watch.move(rec.get("seat"), rec.get("move"), rec.get("args"))
            watch.see(state)
        state = walk(game, records, each)
        rows.extend(watch.rows(state, info.id))
        names.update(watch.names)
    return rows, names
