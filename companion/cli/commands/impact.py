"""`companion impact GAME`: per-card impact from bot games and the table's sessions, side by
side, with the flagged cards' stability over re-seeded reruns (docs/lab.md, "Per-card
impact"):

    companion impact trade-warz --players 3 --games 2000 --reruns 5
    companion impact trade-warz --data ~/tw-try --top 20 --json
"""
import json
import math
import sys

from companion.cli.common import add_cluster_arg, add_db_arg, cluster, open_log
from companion.games import get


def register(sub):
    p = sub.add_parser("impact", help="per-card impact: win rate when a card is drawn, "
                                      "played, in the opening hand or never seen, from bot "
                                      "games and table sessions (Trade Warz, Great Powers, Battle "
                                      "Builder, Market Trading)")
    p.add_argument("game")
    p.add_argument("--players", type=int, default=3)
    p.add_argument("--games", type=int, default=2000, help="bot games per rerun")
    p.add_argument("--reruns", type=int, default=5,
                   help="re-seeded reruns for the flags' stability (default 5)")
    p.add_argument("--data", default=None, metavar="DIR", help="an edited copy of the data")
    p.add_argument("--bots", default="greedy")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--option", action="append", help="rule setting key=value (repeatable)")
    p.add_argument("--jobs", type=int, default=0,
                   help="worker processes (0: one per core; the figures do not depend on it)")
    add_cluster_arg(p)
    p.add_argument("--sessions", default=None, metavar="ID,ID",
                   help="only these table sessions (default: every finished table session "
                        "of the game played with the same data)")
    p.add_argument("--no-live", action="store_true", help="bot games only")
    p.add_argument("--flag-rule", default=None, choices=("margin", "holm", "raw"),
                   help="margin (default): the difference is beyond 3 points at the "
                        "Holm-corrected level; holm: at least 3 points and clear of 0 at that "
                        "level; raw: at least 3 points and its own 95%% interval clear of 0")
    p.add_argument("--top", type=int, default=None, help="show only the N largest differences")
    p.add_argument("--without", default=None, metavar="CARD,CARD",
                   help="restricted play (Trade Warz cards, Great Powers Action cards, Battle "
                        "Builder shop cards): also play --games seeds with one seat "
                        "forbidden each card, against the same games as usual")
    p.add_argument("--without-flagged", action="store_true",
                   help="restricted play for the cards flagged in at least 4 of the reruns")
    p.add_argument("--json", action="store_true")
    add_db_arg(p)
    p.set_defaults(func=run)


def _clean(x):
    if isinstance(x, float) and math.isnan(x):
        return None
    if isinstance(x, dict):
        return {k: _clean(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [_clean(v) for v in x]
    return x


def run(args):
    from companion.cli.commands.report import _options
    from companion.lab import impact
    game = get(args.game, data=args.data)
    game.check_players(args.players)
    log = None if args.no_live else open_log(args)
    sessions = [s for s in args.sessions.split(",") if s] if args.sessions else None
    with cluster(args) as on:
        result = impact.study(game, players=args.players, games=args.games, seed=args.seed,
                              bots=args.bots, options=_options(args.option), jobs=args.jobs,
                              reruns=args.reruns, log=log, sessions=sessions, cluster=on,
                              rule=args.flag_rule or impact.FLAG_RULE,
                              progress=lambda k, n: print(f"  rerun {k}/{n}", file=sys.stderr))
        cards = [c for c in (args.without or "").split(",") if c]
        if args.without_flagged:
            cards += [c for c in result["stability"]["stable_set"] if c not in cards
                      and not c.startswith(("bid:", "monster:"))]   # (no restricted play)
        result["without"] = [impact.restricted(game, c, players=args.players, games=args.games,
                                               seed=args.seed, bots=args.bots,
                                               options=_options(args.option), jobs=args.jobs,
                                               cluster=on)
                             for c in cards]
    if args.json:
        print(json.dumps(_clean(result)))
    else:
        print(impact.text(result, top=args.top))
        for r in result["without"]:
            lo, hi = r["ci95"]
            td = "-" if r["touched_diff"] is None else f"{100 * r['touched_diff']:+.1f}"
            print(f"Without {r['card']} (one seat, {r['games']} paired games): win share "
                  f"{100 * r['normal']['rate']:.1f}% -> {100 * r['without']['rate']:.1f}%, "
                  f"difference {100 * r['diff']:+.1f} points [{100 * lo:+.1f}, {100 * hi:+.1f}];"
                  f" {r['touched']} games where the seat had it: {td} points")
    return 0
