"""Battle Builder calibration: the monster win rate per difficulty against the design targets.

Every battle is played by bots through real sessions (``Session`` + ``play_out``, the same
apply path as a table), in whole games with the chosen variants; ``monster_pool`` restricts the
monster deck to one difficulty, so every battle of those games counts. ``free`` plays ordinary
games instead and reports what the bots chose and how each difficulty went.
"""
import math
import random
import time

from companion.core.clock import FakeClock
from companion.core.log import MemoryLog
from companion.core.play import play_out, resolve_bots, wilson
from companion.core.session import Session

from .data import DIFFICULTIES

Z = 1.96


def battles_for(p, half_width=0.03):
    """Battles needed for a 95% interval of +-``half_width`` at a win rate ``p``."""
    p = min(max(p, 0.01), 0.99)
    return math.ceil(Z * Z * p * (1 - p) / (half_width * half_width))


def _games(game, players, options, seed, bots):
    """Bot games, one after another, forever: yields each finished session's state."""
    seat_bots = resolve_bots(game, bots, len(players))
    master = random.Random(seed)
    g = 0
    while True:
        gseed = master.getrandbits(48)
        s = Session.start(game, players, MemoryLog(copy_records=False), options=options,
                          seed=gseed, clock=FakeClock(), entropy=random.Random(gseed).randbytes,
                          session_id=f"calibrate-{g}")
        play_out(s, seat_bots, random.Random(gseed ^ 0x5EED))
        g += 1
        yield s.state, len(s.records)


def calibrate(game, difficulty, battles, players=2, seed=0, bots="greedy", options=None):
    """Play until ``battles`` monster battles at ``difficulty`` are done. Returns figures."""
    names = [f"Player {i + 1}" for i in range(players)]
    opts = dict(options or {})
    opts["monster_pool"] = difficulty
    game.resolve_options(opts)
    won = turns = tokens = token_n = first_won = first_n = games = commands = 0
    n = 0
    t0 = time.perf_counter()
    for state, length in _games(game, names, opts, seed, bots):
        games += 1
        commands += length
        for b in state.data.track["battles"]:
            if n >= battles:
                break
            n += 1
            won += b["won"]
            turns += b["turns"]
            tokens += sum(b["tokens"].values())
            token_n += len(b["tokens"])
            if b["battle"] == 1:
                first_n += 1
                first_won += b["won"]
        if n >= battles:
            break
    rate = won / n
    lo, hi = wilson(won, n)
    target = game.rules.targets[difficulty]
    verdict = "on target" if lo <= target <= hi else ("too easy" if lo > target else
                                                      "too hard")
    return {"difficulty": difficulty, "battles": n, "won": won, "win_rate": rate,
            "ci95": [lo, hi], "target": target, "verdict": verdict,
            "first_battle_win_rate": first_won / first_n if first_n else None,
            "mean_turns": turns / n, "tokens_per_player": tokens / token_n if token_n else 0,
            "games": games, "commands": commands, "battles_for_3_points": battles_for(rate),
            "seconds": time.perf_counter() - t0, "players": players, "bots": bots,
            "options": {k: v for k, v in opts.items()}}


def free_choice(game, battles, players=2, seed=0, bots="greedy", options=None):
    """Ordinary games: the bots' monster choices by difficulty and the result of each."""
    names = [f"Player {i + 1}" for i in range(players)]
    opts = dict(options or {})
    game.resolve_options(opts)
    chosen = {k: 0 for k in DIFFICULTIES}
    won = {k: 0 for k in DIFFICULTIES}
    n = games = 0
    spreads = []
    t0 = time.perf_counter()
    for state, _length in _games(game, names, opts, seed, bots):
        games += 1
        spreads.append(max(state.data.vp) - min(state.data.vp))
        for b in state.data.track["battles"]:
            if n >= battles:
                break
            n += 1
            for diff in b["difficulty"]:
                chosen[diff] += 1
                won[diff] += b["won"]
        if n >= battles:
            break
    rows = []
    for k in DIFFICULTIES:
        lo, hi = wilson(won[k], chosen[k]) if chosen[k] else (None, None)
        rows.append({"difficulty": k, "chosen": chosen[k],
                     "share": chosen[k] / max(1, sum(chosen.values())),
                     "win_rate": won[k] / chosen[k] if chosen[k] else None,
                     "ci95": [lo, hi], "target": game.rules.targets[k]})
    return {"battles": n, "games": games, "rows": rows,
            "mean_vp_spread": sum(spreads) / len(spreads),
            "seconds": time.perf_counter() - t0}
