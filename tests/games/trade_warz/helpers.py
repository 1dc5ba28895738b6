"""Test helpers for Trade Warz: sessions, a hand-driven table on the real flow engine, and
bots that drive a game to a chosen moment."""
import random

from companion.core.game import apply, new_state, settle
from companion.games import get

from .. import tables

GAME = get("trade-warz")
SALT = "5a" * 16


def names(n):
    return [f"P{i}" for i in range(n)]


def session(n=4, seed=1, log=None, **options):
    return tables.session(GAME, n, seed, log, **options)


class Table:
    """A state driven command by command through the real flow engine (``apply``), without a
    log, so a test may arrange hands and boards by hand between commands."""

    def __init__(self, n=4, seed=1, **options):
        options.setdefault("leaders", ",".join(["usa", "china", "russia", "eu", "india",
                                                "brazil"][:n]))
        self.st = new_state(GAME, names(n), options, seed)
        self.now = 0.0
        self.rng = random.Random(seed)

    @property
    def d(self):
        return self.st.data

    def do(self, seat, move, **args):
        apply(GAME, self.st, {"kind": "move", "seat": seat, "move": move, "args": args,
                              "salt": SALT, "at": self.now})
        return self.st.notices

    def begin(self, phase):
        """Run ``phase``'s ``on_begin`` on this state (the phase is not entered: ``st.phase``
        stays as the test set it). :meth:`settle` runs what it queued."""
        GAME.phases[phase].on_begin(self.st)

    def settle(self):
        """Let the flow settle, as after a command: pending steps run, the prompts follow."""
        settle(GAME, self.st)

    def table(self, move, **args):
        return self.do(None, move, **args)

    def tick(self, seconds):
        self.now += seconds
        out = []
        for name in self.st.due_timers(self.now):
            apply(GAME, self.st, {"kind": "timer", "timer": name, "at": self.now})
            out.extend(self.st.notices)
        return out

    def bot_step(self, bot="greedy"):
        st = self.st
        seat = min(st.prompts, key=lambda s: -1 if s is None else s)
        if seat is None:
            move, args = GAME.table_bot(GAME, GAME.observe(st, None), self.rng)
        else:
            move, args = GAME.bots[bot](GAME, GAME.observe(st, seat), self.rng)
        return self.do(seat, move, **args)

    def until(self, pred, bot="greedy", limit=5000):
        """Let bots answer every prompt until ``pred(state)`` holds."""
        for _ in range(limit):
            if pred(self.st):
                return self
            if self.st.outcome is not None:
                raise AssertionError(f"the game ended first: {self.st.outcome}")
            if not self.st.prompts:
                self.tick(self.st.next_deadline() - self.now)
                continue
            self.bot_step(bot)
        raise AssertionError("never got there")

    def to_phase(self, phase, rnd=None, bot="greedy"):
        return self.until(lambda st: st.phase == phase and (rnd is None or st.round == rnd),
                          bot=bot)

    def give(self, seat, *cards):
        self.d.hands[seat].extend(cards)

    def set_gdp(self, *values):
        self.d.gdp[:len(values)] = list(values)


def drive(sess, pred, bot="greedy", rng=None, limit=20000):
    """Let bots answer a Session's prompts until ``pred(state)`` holds."""
    rng = rng or random.Random(0)
    for _ in range(limit):
        st = sess.state
        if pred(st):
            return sess
        if st.outcome is not None:
            raise AssertionError(f"the game ended first: {st.outcome}")
        if not st.prompts:
            sess.clock.set(st.next_deadline())
            sess.tick()
            continue
        seat = min(st.prompts, key=lambda s: -1 if s is None else s)
        if seat is None:
            mv = GAME.table_bot(GAME, GAME.observe(st, None), rng)
        else:
            mv = GAME.bots[bot](GAME, GAME.observe(st, seat), rng)
        sess.execute(seat, *mv)
    raise AssertionError("never got there")
