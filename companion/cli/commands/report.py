"""`companion report GAME`: the playtest report, a self-contained HTML page with plots and CSV
files, from the table sessions in the store and, with ``--simulate N``, N bot games of the same
setup beside them (docs/reports.md):

    companion report great-powers --simulate 10000 --out gp-report
    companion report trade-warz --sessions ID,ID --data my-cards/

Battle Builder and Market Trading also keep their game-specific text figures from bot games
(used when none of --sessions/--simulate/--out is given):

    companion report battle-builder --battles 1000 --difficulty all [--option k=v ...]
    companion report market-trading --players 2 --games 1000
"""

import json
import os
import sys
import time

from companion.cli.common import (add_cluster_arg, add_db_arg, add_filter_args, cluster,
                                  open_log, print_win_rates)
from companion.core.errors import ConfigError
from companion.games import get

PAGE_GAMES = ("great-powers", "trade-warz")
DIFFS = ("easy", "medium", "hard", "all", "free")


def _options(pairs):
    """``--option key=value`` pairs; values read as JSON where they can be (true, 3, "x")."""
    out = {}
    for pair in pairs or ():
        if "=" not in pair:
            raise ConfigError(f"--option wants key=value, not {pair!r}.")
        k, v = pair.split("=", 1)
        try:
            out[k.strip()] = json.loads(v)
        except ValueError:
            out[k.strip()] = v
    return out


def _common(p):
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--bots", default="greedy", help="a bot name for all seats, or one per "
                   "seat: greedy,random,...")
    p.add_argument("--option", action="append", help="rule setting key=value (repeatable)")
    p.add_argument("--json", action="store_true", help="print the figures as JSON")


def _page_args(p, default_players=None):
    p.add_argument("--sessions", default=None, metavar="ID,ID",
                   help="only these stored sessions (default: every finished table session of "
                        "the game played with the same data)")
    p.add_argument("--simulate", type=int, default=0, metavar="N",
                   help="add N bot games of the same setup (players, options, data)")
    p.add_argument("--out", default=None, metavar="DIR",
                   help="where to write report.html and the CSV files (default: "
                        "./GAME-report)")
    p.add_argument("--jobs", type=int, default=0,
                   help="simulation worker processes (default 0: one per core; the games and "
                        "figures do not depend on it)")
    add_cluster_arg(p)
    p.add_argument("--impact", type=int, default=0, metavar="N", help="add per-card impact "
                   "(Trade Warz, Great Powers, Battle Builder, Market Trading): N bot games "
                   "per rerun, 5 reruns (docs/lab.md)")
    p.add_argument("--balance", type=int, default=0, metavar="N", help="add balance under "
                   "the greedy bots and under the search bot side by side: N "
                   "search-bot games, and --simulate's greedy games (at least 1,000)")
    add_db_arg(p)
    add_filter_args(p)
    if default_players is None:
        p.add_argument("--players", type=int, default=None,
                       help="player count to simulate (default: the table sessions' most "
                            "played count)")
        p.add_argument("--data", default=None, metavar="DIR",
                       help="report on a designer's edited copy of the data folder")
        _common(p)


def register(sub):
    p = sub.add_parser("report", help="playtest report: an HTML page with plots and CSV from "
                                      "table sessions and bot games (and Battle Builder's "
                                      "calibration, Market Trading's length)")
    games = p.add_subparsers(dest="report_game", metavar="GAME")
    for name in PAGE_GAMES:
        gp = games.add_parser(name, help="the playtest report page (HTML and CSV)")
        _page_args(gp)
        gp.set_defaults(func=run_page, page_game=name)
    bb = games.add_parser("battle-builder", help="monster win rate per difficulty against "
                                                 "the design targets, with 95%% intervals")
    bb.add_argument("--battles", type=int, default=1000,
                    help="monster battles per difficulty (default 1000: about +-3 points)")
    bb.add_argument("--difficulty", default="all", choices=DIFFS,
                    help="one difficulty, all three, or free (ordinary games: what the bots "
                         "choose and how it goes)")
    bb.add_argument("--players", type=int, default=None, help="players (default 2; the page: "
                    "the table sessions' most played count)")
    bb.add_argument("--data", default=None, help="a directory of alternative data files "
                    "(rules.toml, monsters.toml, cards.toml, effects.toml) to calibrate")
    _common(bb)
    _page_args(bb, default_players=2)
    bb.set_defaults(func=run_battle_builder, page_game="battle-builder")
    mt = games.add_parser("market-trading", help="win rate per seat, game length, stalls")
    mt.add_argument("--players", type=int, default=None, help="players (default 2; the page: "
                    "the table sessions' most played count)")
    mt.add_argument("--games", type=int, default=1000)
    mt.add_argument("--show-board", action="store_true",
                    help="also print the first game's boards as text")
    mt.add_argument("--data", default=None, help="a directory of alternative data files "
                    "(improvements.toml, resources.toml, rules.toml)")
    _common(mt)
    _page_args(mt, default_players=2)
    mt.set_defaults(func=run_market_trading, page_game="market-trading")
    p.set_defaults(func=lambda args: (p.print_help(), 2)[1])


def _check(game, players, count, what):
    game.check_players(players)
    if count < 1:
        raise ConfigError(f"--{what} must be at least 1.")


def _wants_page(args):
    if args.sessions or args.simulate or args.out or getattr(args, "balance", 0):
        return True
    if getattr(args, "cluster", None):
        raise ConfigError("--cluster plays a report page's games (--simulate N); this report "
                          "plays its games in this process.")
    return False


def run_battle_builder(args):
    if _wants_page(args):
        return run_page(args)
    from companion.games.battle_builder.report import calibrate, free_choice
    game = get("battle-builder", data=args.data)
    args.players = 2 if args.players is None else args.players
    _check(game, args.players, args.battles, "battles")
    options = _options(args.option)
    if "monster_pool" in options and args.difficulty != "free":
        raise ConfigError("--difficulty sets monster_pool; do not give it as an --option.")
    if args.difficulty == "free":
        r = free_choice(game, args.battles, args.players, args.seed, args.bots, options)
        if args.json:
            print(json.dumps(r, indent=2))
            return 0
        print(f"Battle Builder, ordinary games: {r['battles']} battles in {r['games']} games, "
              f"{args.players} players, bots {args.bots} ({r['seconds']:.1f} s)")
        print(f"{'difficulty':>10}  {'chosen':>7}  {'share':>6}  {'win rate':>8}  "
              f"95% interval     target")
        for row in r["rows"]:
            if row["chosen"]:
                lo, hi = row["ci95"]
                print(f"{row['difficulty']:>10}  {row['chosen']:>7}  {row['share']:6.1%}  "
                      f"{row['win_rate']:8.1%}  {lo:6.1%} - {hi:6.1%}  {row['target']:6.0%}")
            else:
                print(f"{row['difficulty']:>10}  {0:>7}  {0:6.1%}  never chosen")
        print(f"mean final VP spread: {r['mean_vp_spread']:.2f}")
        return 0
    diffs = ("easy", "medium", "hard") if args.difficulty == "all" else (args.difficulty,)
    rows = [calibrate(game, d, args.battles, args.players, args.seed, args.bots, options)
            for d in diffs]
    if args.json:
        print(json.dumps(rows, indent=2))
        return 0
    total = sum(r["seconds"] for r in rows)
    shown = ", ".join(f"{k}={v}" for k, v in sorted(options.items())) or "defaults"
    print(f"Battle Builder calibration: {args.battles} battles per difficulty, "
          f"{args.players} players, bots {args.bots}, seed {args.seed}, options: {shown} "
          f"({total:.1f} s)")
    print(f"{'difficulty':>10}  {'win rate':>8}  95% interval     target  {'verdict':10} "
          f"1st battle  turns  tokens  n for +-3")
    for r in rows:
        lo, hi = r["ci95"]
        first = "-" if r["first_battle_win_rate"] is None else \
            f"{r['first_battle_win_rate']:.0%}"
        print(f"{r['difficulty']:>10}  {r['win_rate']:8.1%}  {lo:6.1%} - {hi:6.1%}  "
              f"{r['target']:6.0%}  {r['verdict']:10} {first:>10}  {r['mean_turns']:5.1f}  "
              f"{r['tokens_per_player']:6.1f}  {r['battles_for_3_points']:>9}")
    return 0


def run_market_trading(args):
    if _wants_page(args):
        return run_page(args)
    from companion.games.market_trading.report import report
    game = get("market-trading", data=args.data)
    args.players = 2 if args.players is None else args.players
    _check(game, args.players, args.games, "games")
    options = _options(args.option)
    r = report(game, args.players, args.games, args.seed, args.bots, options)
    if args.json:
        print(json.dumps(r, indent=2))
        return 0
    print(f"Market Trading: {args.games} games, {args.players} players, bots {args.bots}, "
          f"seed {args.seed} ({r['seconds']:.1f} s, {r['games_per_second']:,.0f} games/s)")
    print_win_rates(r["seats"])
    lo, hi = r["first_player_ci95"]
    print(f"first player wins {r['first_player_win_rate']:.1%} ({lo:.1%} - {hi:.1%})")
    print(f"game length: {r['rounds_mean']:.1f} rounds on average (median "
          f"{r['rounds_median']}, 90% within {r['rounds_p90']}), {r['turns_mean']:.1f} turns, "
          f"{r['commands_mean']:.0f} commands")
    print(f"points per turn {r['points_per_turn']:.2f}; per game: {r['builds_per_game']:.1f} "
          f"builds, {r['trades_per_game']:.1f} trades, {r['flooded_copies_per_game']:.1f} "
          f"copies lost to flooded markets")
    print(f"games ended by stuck markets (no points for "
          f"{game.rules.stall_rounds} rounds): {r['stalled_share']:.1%}")
    if args.show_board:
        from companion.core.game import new_state
        st = new_state(game, [f"Player {i + 1}" for i in range(args.players)], options,
                       args.seed)
        for s in st.seats():
            print(f"\n{st.players[s]}'s board (seed {args.seed}):")
            print(game.board_text(st, s))
    return 0


def _progress(total):
    if total < 2000 or not sys.stderr.isatty():
        return None
    start = time.perf_counter()

    def show(done, total=total):
        rate = done / max(time.perf_counter() - start, 1e-9)
        print(f"\rsimulating: {done}/{total} games, {rate:,.0f}/s", end="", file=sys.stderr)
        if done == total:
            print(file=sys.stderr)
    return show


def run_page(args):
    from companion.lab.report import build
    name = args.page_game
    game = get(name, data=getattr(args, "data", None))
    if args.simulate < 0:
        raise ConfigError("--simulate must be 0 or more.")
    if args.balance < 0:
        raise ConfigError("--balance must be 0 or more.")
    sessions = [x.strip() for x in args.sessions.split(",") if x.strip()] \
        if args.sessions else None
    out = args.out or f"{name}-report"
    log = open_log(args)
    with cluster(args) as on:
        r = build(game, log, out=out, sessions=sessions, simulate=args.simulate,
                  players=args.players, options=_options(args.option), seed=args.seed,
                  bots=args.bots, jobs=args.jobs, progress=_progress(args.simulate),
                  impact=args.impact, cluster=on, balance=args.balance)
    if args.json:
        print(json.dumps(r, indent=2, default=str))
        return 0
    secs = r["seconds"]
    print(f"{game.title} playtest report: {os.path.join(out, 'report.html')} (and "
          f"{len(r['files']) - 1} CSV files in {out})")
    print(f"  data: {game.data_ref.label}")
    print(f"  table sessions: {r['live']} with this data, {r['matching']} of them with "
          f"{r['players']} players and the compared options")
    if r["simulated"]:
        print(f"  simulated: {r['simulated']} games in {secs['simulate']:.1f} s "
              f"({r['simulated'] / max(secs['simulate'], 1e-9):,.0f} games/s, "
              f"{'cluster ' + args.cluster if args.cluster else f'jobs {args.jobs}'})")
    print(f"  page and CSV written in {secs['write']:.1f} s; {secs['total']:.1f} s in all")
    if r["bots"]:
        print(f"  left out: {r['bots']} bot games stored by companion play")
    for sid, why in r["left_out"]:
        print(f"  left out: {sid}: {why}")
    return 0
