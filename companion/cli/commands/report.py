"""`companion report battle-builder ...` and `companion report market-trading ...`:
game-specific figures from bot games (the generic `companion simulate GAME` gives win rate per
seat, VP spread and lead changes for every game).

    companion report battle-builder --battles 1000 --difficulty all [--option k=v ...]
    companion report market-trading --players 2 --games 1000
"""
import json

from companion.cli.common import print_win_rates
from companion.core.errors import ConfigError
from companion.games import get

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


def register(sub):
    p = sub.add_parser("report", help="game-specific figures from bot games "
                                      "(Battle Builder calibration, Market Trading length)")
    games = p.add_subparsers(dest="report_game", metavar="GAME")
    bb = games.add_parser("battle-builder", help="monster win rate per difficulty against "
                                                 "the design targets, with 95%% intervals")
    bb.add_argument("--battles", type=int, default=1000,
                    help="monster battles per difficulty (default 1000: about +-3 points)")
    bb.add_argument("--difficulty", default="all", choices=DIFFS,
                    help="one difficulty, all three, or free (ordinary games: what the bots "
                         "choose and how it goes)")
    bb.add_argument("--players", type=int, default=2)
    bb.add_argument("--data", default=None, help="a directory of alternative data files "
                    "(rules.toml, monsters.toml, cards.toml, effects.toml) to calibrate")
    _common(bb)
    bb.set_defaults(func=run_battle_builder)
    mt = games.add_parser("market-trading", help="win rate per seat, game length, stalls")
    mt.add_argument("--players", type=int, default=2)
    mt.add_argument("--games", type=int, default=1000)
    mt.add_argument("--show-board", action="store_true",
                    help="also print the first game's boards as text")
    _common(mt)
    mt.set_defaults(func=run_market_trading)
    p.set_defaults(func=lambda args: (p.print_help(), 2)[1])


def _check(game, players, count, what):
    game.check_players(players)
    if count < 1:
        raise ConfigError(f"--{what} must be at least 1.")


def run_battle_builder(args):
    from companion.games.battle_builder.report import calibrate, free_choice
    game = get("battle-builder")
    if args.data:
        from companion.games.battle_builder.data import load_rules
        from companion.games.battle_builder.game import BattleBuilder
        game = BattleBuilder(load_rules(args.data))
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
    from companion.games.market_trading.report import report
    game = get("market-trading")
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
