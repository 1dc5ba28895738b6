"""Child process for the crash test: plays Great Powers with bots on an SQLite log and prints
"ACK <version>" after every acknowledged command (i.e. after the durable append returned)."""
import random
import sys

from companion.core.log import SQLiteLog
from companion.core.play import resolve_bots
from companion.core.session import Session
from companion.games import get


def main(db, session_id, seed):
    game = get("great-powers")
    log = SQLiteLog(db)
    if session_id == "new":
        s = Session.start(game, ["A", "B", "C", "D"], log, seed=int(seed))
        print(f"SESSION {s.id}", flush=True)
    else:
        s = Session.load(log, session_id, games=get)
    bots = resolve_bots(game, "random", 4)
    rng = random.Random(int(seed) + s.version)
    while not s.state.is_over():
        seat = min(s.state.prompts)
        move, args = bots[seat](game, game.observe(s.state, seat), rng)
        r = s.execute(seat, move, args)
        print(f"ACK {r.version}", flush=True)
    print("DONE", flush=True)


if __name__ == "__main__":
    main(*sys.argv[1:])
