"""`companion ladder GAME`: the skill ladder random < greedy < search-100 < search-400 (each
rung one seat of the stronger bot against the others of the one below it, the seat rotated on
the same deals: it holds when the 95% interval's lower bound is above the fair share), and with
``--balance`` the win rates per seat, Leader and turn position under a weak and a strong bot
side by side with their rank correlation (companion/lab/ladder.py, docs/lab.md):

    companion ladder great-powers --games 400 --search-games 100 --jobs 0
    companion ladder great-powers --search-games 400 --until decided --cluster tcp://host:8786
    companion ladder great-powers --balance --games 2000 --search-games 200
"""
import json
import sys

from companion.cli.common import add_cluster_arg, cluster
from companion.games import get


def register(sub):
    p = sub.add_parser("ladder", help="the bots' skill ladder (random < greedy < search-100 < "
                                      "search-400), and balance under weak and strong bots")
    p.add_argument("game")
    p.add_argument("--players", type=int, default=4)
    p.add_argument("--games", type=int, default=400,
                   help="games per rung (the seat rotated over them), or with --balance the "
                        "games of the weak bot")
    p.add_argument("--search-games", type=int, default=None, metavar="N",
                   help="games for the rungs and balance runs of search bots (slower; "
                        "default --games)")
    p.add_argument("--rungs", default=None, metavar="BOT,BOT,...",
                   help="the bots, weakest first (default random,greedy,search-100,"
                        "search-400)")
    p.add_argument("--balance", action="store_true",
                   help="balance under --weak and --strong bots instead of the ladder")
    p.add_argument("--weak", default="greedy")
    p.add_argument("--strong", default="search-100")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--jobs", type=int, default=1, help="worker processes (0 = one per core); "
                   "the figures do not depend on it")
    p.add_argument("--until", choices=["decided"], default=None,
                   help="decided: --games / --search-games are a budget, played in blocks of "
                        "new deals until each rung's interval clears the fair share "
                        "(Bonferroni over the looks: docs/lab.md)")
    add_cluster_arg(p)
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=run)


def run(args):
    from companion.lab import ladder
    game = get(args.game)
    game.check_players(args.players)
    players = [f"P{i + 1}" for i in range(args.players)]
    sg = args.search_games or args.games
    if args.balance:
        res = ladder.balance(game, players, args.games, weak=args.weak, strong=args.strong,
                             seed=args.seed, jobs=args.jobs,
                             strong_games=sg if args.strong.startswith("search") else None,
                             progress=lambda b, n: print(f"  {b}: {n} games played",
                                                         file=sys.stderr))
        if args.json:
            print(json.dumps(res, default=str))
        else:
            print(ladder.balance_text(res))
        return 0
    rungs = tuple(r.strip() for r in args.rungs.split(",")) if args.rungs else ladder.RUNGS
    per = {r: sg for r in rungs if r.startswith("search")}
    with cluster(args) as on:
        rows = ladder.ladder(game, players, args.games, rungs=rungs, seed=args.seed,
                             jobs=args.jobs, per_rung=per, until=args.until, cluster=on,
                             progress=lambda s, w, k, n: print(f"  {s} vs {w}: {k}/{n}",
                                                               file=sys.stderr))
    if args.json:
        print(json.dumps(rows))
    else:
        print(f"{game.title}, {args.players} players, seed {args.seed}")
        print(ladder.text(rows))
    return 0
