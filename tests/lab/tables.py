"""Table sessions for the lab's tests: whole games played by bots through the real hub
(``Hub`` on a SQLite store, the session clock running on a fake base clock that the "players"
advance as they think), so the store holds what a table would have written."""
import random

from companion.core.clock import FakeClock, SessionClock
from companion.core.play import resolve_bots
from companion.service.hub import Hub


def play_table(log, game, players, seed, think=(5.0, 40.0), options=None, table="kitchen",
               names=None, data=None):
    """One finished game at a table; returns the session. ``think``: each command comes this
    many seconds (drawn uniformly) after the one before; timers run out on their own time."""
    from companion import games
    base = FakeClock(1000.0)
    rng = random.Random(seed)
    lookup = (lambda n: games.get(n, data=data)) if data else games.get
    hub = Hub(log, table=table, clock=SessionClock(base), games=lookup,
              entropy=random.Random(seed).randbytes)
    hub.configure(game, players, options=options,
                  names=names or [f"Player {i + 1}" for i in range(players)])
    s = hub.start(seed=seed)
    g = s.game
    bots = resolve_bots(g, "greedy", players)
    brng = random.Random(seed ^ 0x5EED)
    for _ in range(20000):
        st = s.state
        if st.outcome is not None:
            return s
        if not st.prompts:
            due = st.next_deadline()
            base.advance(max(0.0, due - s.clock.now()))
            s.tick()
            continue
        due = st.next_deadline()
        step = rng.uniform(*think)
        if due is not None and s.clock.now() + step >= due:
            base.advance(max(0.0, due - s.clock.now()))
            s.tick()
            continue
        base.advance(step)
        seat = min(st.prompts, key=lambda x: -1 if x is None else x)
        if seat is None:
            move, args = g.table_bot(g, g.observe(st, None), brng)
            hub.table_move(move, args)
        else:
            move, args = bots[seat](g, g.observe(st, seat), brng)
            hub.submit(seat, move, args)
    raise RuntimeError("the table game did not end")
