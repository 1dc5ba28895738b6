"""Market Trading figures from bot games: win rate per seat, game length, and what stops games.

Games run through real sessions (``Session`` + ``play_out``), the same apply path as a table.
"""
import random
import statistics
import time

from companion.core.clock import FakeClock
from companion.core.log import MemoryLog
from companion.core.play import play_out, resolve_bots, wilson
from companion.core.session import Session


def report(game, players, games, seed=0, bots="greedy", options=None):
    names = [f"Player {i + 1}" for i in range(players)]
    seat_bots = resolve_bots(game, bots, players)
    game.resolve_options(options)
    master = random.Random(seed)
    wins = [0.0] * players
    rounds, turns, commands, ppt, builds, flooded, trades = [], [], [], [], [], [], []
    stalled = 0
    first_wins = 0.0
    t0 = time.perf_counter()
    for g in range(games):
        gseed = master.getrandbits(48)
        s = Session.start(game, names, MemoryLog(copy_records=False), options=options,
                          seed=gseed, clock=FakeClock(), entropy=random.Random(gseed).randbytes,
                          session_id=f"report-{g}")
        outcome = play_out(s, seat_bots, random.Random(gseed ^ 0x5EED))
        d = s.state.data
        for w in outcome.winners:
            wins[w] += 1.0 / len(outcome.winners)
            if w == d.first:
                first_wins += 1.0 / len(outcome.winners)
        summ = game.summary(s.state)["market_trading"]
        rounds.append(s.state.round)
        turns.append(d.turns)
        commands.append(len(s.records))
        ppt.append(summ["points_per_turn"])
        builds.append(sum(summ["builds"]))
        flooded.append(summ["flooded_copies"])
        trades.append(summ["trades"])
        stalled += d.stalled
    secs = time.perf_counter() - t0
    seats = []
    for i in range(players):
        lo, hi = wilson(round(wins[i]), games)
        seats.append({"seat": i, "wins": wins[i], "win_rate": wins[i] / games,
                      "ci95": [lo, hi]})
    lo, hi = wilson(round(first_wins), games)
    rounds.sort()
    return {"game": game.name, "players": players, "games": games, "seed": seed,
            "bots": bots, "options": game.resolve_options(options), "seats": seats,
            "first_player_win_rate": first_wins / games, "first_player_ci95": [lo, hi],
            "rounds_mean": statistics.fmean(rounds), "rounds_median": rounds[len(rounds) // 2],
            "rounds_p90": rounds[min(len(rounds) - 1, int(0.9 * len(rounds)))],
            "turns_mean": statistics.fmean(turns), "commands_mean": statistics.fmean(commands),
            "points_per_turn": statistics.fmean(ppt), "builds_per_game": statistics.fmean(
                builds), "trades_per_game": statistics.fmean(trades),
            "flooded_copies_per_game": statistics.fmean(flooded),
            "stalled_share": stalled / games, "seconds": secs, "games_per_second": games / secs}
