"""Bot games for reports and comparisons, as :class:`~companion.lab.facts.Facts`.

The games are those of ``companion simulate`` for the same arguments: the same seeds drawn the
same way, played by :func:`companion.core.play.play_out` with the same rules, on a lean session
(no log, commitments or notices; tests/conformance/test_lean.py shows it plays the same games).
Here each game also yields its score curve, who played first and the game's own summary.
``data``: an edited copy of the game's data folder (the workers build the game from it too).
"""
import random

from companion.core.clock import FakeClock
from companion.core.log import MemoryLog
from companion.core.play import play_out, resolve_bots
from companion.core.session import LeanSession, Session

from .facts import Tracker, from_state


class _Watched:
    """A session as :func:`play_out` drives it, with a watcher looking on: a
    :class:`Tracker` (``see(state)`` after every command), or anything with ``see`` and,
    optionally, ``move(seat, move, args)`` told each move first (per-card impact's watch)."""

    def __init__(self, session, tracker):
        self._s, self._t = session, tracker
        self._move = getattr(tracker, "move", None)
        self.game, self.clock = session.game, session.clock
        tracker.see(session.state)

    @property
    def state(self):
        return self._s.state

    def execute(self, seat, move, args=None):
        r = self._s.execute(seat, move, args)
        if self._move is not None:
            self._move(seat, move, args)
        self._t.see(self._s.state)
        return r

    def tick(self):
        r = self._s.tick()
        self._t.see(self._s.state)
        return r


def play_one(game, players, gseed, seat_bots, options, lean=True):
    """One bot game (as :func:`companion.core.play.play_one`) and its facts. ``lean``: on a
    :class:`~companion.core.session.LeanSession` (the same game, without log, commitments or
    notices), else on a real session."""
    if lean:
        s = LeanSession(game, players, options=options, seed=gseed, clock=FakeClock())
    else:
        s = Session.start(game, players, MemoryLog(copy_records=False), options=options,
                          seed=gseed, clock=FakeClock(), entropy=random.Random(gseed).randbytes,
                          session_id="sim")
    tracker = Tracker(game)
    play_out(_Watched(s, tracker), seat_bots, random.Random(gseed ^ 0x5EED))
    return from_state(game, s.state, source="sim", session=f"sim-{gseed}",
                      first=tracker.first, commands=s.version - 1)


def _chunk(name, data, players, seeds, bots, options):
    from companion.games import get
    game = get(name, data=data)
    seat_bots = resolve_bots(game, bots, len(players))
    return [play_one(game, players, g, seat_bots, options) for g in seeds]


def seeds_for(seed, games):
    master = random.Random(seed)
    return [master.getrandbits(48) for _ in range(games)]


def simulate(game, players, games, seed=0, bots="greedy", options=None, jobs=1,
             progress=None, cluster=None) -> list:
    """``games`` bot games of ``game`` (built from whatever data it was built from); a list of
    :class:`Facts`. ``jobs``: worker processes (0 = one per core), ``cluster``: where the games
    run instead (:class:`~companion.core.workers.Workers`); the games depend on neither."""
    from companion.core.workers import Workers
    resolve_bots(game, bots, len(players))
    options = game.resolve_options(options)
    data = getattr(game, "data_dir", None)
    seeds = seeds_for(seed, games)
    out = []
    with Workers(jobs, cluster, games) as w:
        size = (max(1, min(200, games // 20 or 1)) if w.here
                else max(10, games // (w.count * 8)))
        chunks = [(game.name, data, players, seeds[i:i + size], bots, options)
                  for i in range(0, games, size)]
        for r in w.map(_chunk, chunks):
            out.extend(r)
            if progress is not None:
                progress(len(out), games)
    return out
