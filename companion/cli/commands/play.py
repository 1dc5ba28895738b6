"""`companion play GAME --bots all` and `companion simulate GAME`.

``--data DIR`` plays (or simulates) a designer's edited copy of the game's data folder; the
session records the copy (docs/reports.md). ``play --transcript`` prints the game turn by turn
in words; ``simulate --compare DIR`` plays the same seeds and seat rotations on the shipped
data (or ``--data``) and on the copy in DIR, game for game, and prints the paired difference of
every win rate with its interval and a sequential test's verdict (``--until decided`` stops
when every one is decided: companion/lab/paired.py, docs/lab.md).
"""
import json
import random
import sys
import time

from companion.cli.common import (add_cluster_arg, add_db_arg, cluster, final_table, open_log,
                                  print_win_rates)
from companion.core.clock import FakeClock
from companion.core.errors import ConfigError
from companion.core.play import play_out, resolve_bots, simulate
from companion.core.session import Session
from companion.games import get


def add_data_arg(p, what="play"):
    p.add_argument("--data", metavar="DIR", default=None,
                   help=f"{what} a designer's edited copy of the game's data folder (every "
                        f".toml file) instead of the shipped data")


def use_table_data(args):
    """``run``/``serve --data DIR``: this process plays the edited copy (for ``--game``, else for
    the game whose data folder DIR copies): the hub, the card reader's catalog and the screens
    all see it, and the sessions record it. Returns a sentence for the console, or None."""
    if not getattr(args, "data", None):
        return None
    from companion import games
    name = args.game or games.detect(args.data)
    game = games.use_data(name, args.data)
    return f"{game.title} plays {game.data_ref.label}."


def _options(pairs):
    """``--option key=value`` pairs; values parsed as JSON where they can be."""
    out = {}
    for pair in pairs or ():
        if "=" not in pair:
            raise ConfigError(f"--option wants key=value, not {pair!r}.")
        k, v = pair.split("=", 1)
        try:
            out[k] = json.loads(v)
        except ValueError:
            out[k] = v
    return out


def _players(n, names):
    if names:
        names = [s.strip() for s in names.split(",")]
        if len(names) != n:
            raise ConfigError(f"--names gives {len(names)} names for {n} players.")
        return names
    return [f"Player {i + 1}" for i in range(n)]


def register(sub):
    p = sub.add_parser("play", help="play a whole game with bots and print the final table")
    p.add_argument("game")
    p.add_argument("--players", type=int, required=True)
    p.add_argument("--seed", type=int, default=None)
    p.add_argument("--bots", default="all", help="'all' (greedy at every seat), a bot name, "
                   "or one per seat: greedy,random,...")
    p.add_argument("--names", default=None, help="comma-separated player names")
    p.add_argument("--option", action="append", help="rule setting key=value (repeatable)")
    p.add_argument("--no-save", action="store_true", help="do not store the session")
    p.add_argument("--transcript", action="store_true",
                   help="print the game turn by turn in words (what the whole table saw)")
    add_data_arg(p)
    add_db_arg(p)
    p.set_defaults(func=run_play)

    s = sub.add_parser("simulate", help="many bot games: win rate per seat with 95%% "
                                        "intervals, VP spread, lead changes")
    s.add_argument("game")
    s.add_argument("--players", type=int, required=True)
    s.add_argument("--games", type=int, default=None,
                   help="games to play (default 1000); with --compare, pairs of games (one on "
                        "each data set), and with --until decided the most it may play "
                        "(default 20000)")
    s.add_argument("--seed", type=int, default=0)
    s.add_argument("--bots", default="greedy")
    s.add_argument("--option", action="append", help="rule setting key=value (repeatable)")
    s.add_argument("--edition", default=None, help="the game's edition (same as --option "
                   "edition=E), e.g. trade or tariff for trade-warz")
    s.add_argument("--jobs", type=int, default=1, help="worker processes (0 = one per core); "
                   "the figures do not depend on it")
    add_cluster_arg(s)
    s.add_argument("--json", action="store_true", help="print the figures as JSON")
    add_data_arg(s, "simulate")
    s.add_argument("--compare", metavar="DIR", default=None,
                   help="play every game also on the edited copy in DIR (the same seed and "
                        "seats) and print the paired difference of each win rate, with its "
                        "95%% interval and a sequential test's verdict")
    s.add_argument("--until", choices=("decided",), default=None,
                   help="with --compare: stop as soon as every difference is decided (no "
                        "change, or a change of at least --delta), or --games pairs are played")
    s.add_argument("--delta", type=float, default=3.0,
                   help="with --compare: the smallest change worth finding, in win-rate "
                        "points (default 3)")
    s.add_argument("--alpha", type=float, default=0.05,
                   help="with --compare: the chance of reporting a change when there is none "
                        "(over all the figures together; default 0.05)")
    s.add_argument("--beta", type=float, default=0.05,
                   help="with --compare: the chance of missing a change of --delta, per "
                        "figure (default 0.05)")
    s.set_defaults(func=run_simulate)


def run_play(args):
    game = get(args.game, data=args.data)
    players = _players(args.players, args.names)
    bots = resolve_bots(game, "greedy" if args.bots == "all" else args.bots, len(players))
    if args.no_save:
        from companion.core.log import MemoryLog
        log = MemoryLog()
    else:
        log = open_log(args)
    seed = args.seed if args.seed is not None else random.SystemRandom().getrandbits(32)
    # Bots play on a clock that only jumps to timer deadlines: the session says so, so that
    # time per phase is never read from it (companion stats, companion report).
    session = Session.start(game, players, log, options=_options(args.option), seed=seed,
                            clock=FakeClock(), meta={"bots": args.bots, "timing": "simulated"})
    play_out(session, bots, random.Random(seed))
    if args.transcript:
        from companion.lab.transcript import transcript
        print("\n".join(transcript(game, session.records)))
        print()
    print(final_table(session))
    if not args.no_save:
        print(f"Saved as {session.id} in {log.path}")
    return 0


def _progress(total):
    if total < 2000 or not sys.stderr.isatty():
        return None
    start = time.perf_counter()

    def show(done, total=total):
        if done % 200 and done != total:
            return
        frac = done / total
        bar = "#" * int(frac * 30)
        rate = done / max(time.perf_counter() - start, 1e-9)
        print(f"\r[{bar:30}] {done}/{total} games, {rate:,.0f}/s", end="", file=sys.stderr)
        if done == total:
            print(file=sys.stderr)
    return show


def run_simulate(args):
    game = get(args.game, data=args.data)
    if args.games is None:
        args.games = 20000 if args.until else 1000
    if args.games < 1:
        raise ConfigError("--games must be at least 1.")
    if args.until and args.compare is None:
        raise ConfigError("--until decided goes with --compare DIR.")
    players = _players(args.players, None)
    options = _options(args.option)
    if args.edition is not None:
        options["edition"] = args.edition
    if args.compare is not None:
        edited = get(args.game, data=args.compare)
        with cluster(args) as on:
            return _compare(args, game, edited, players, options, on)
    with cluster(args) as on:
        r = _simulate(args, game, players, options, on)
    if args.json:
        print(json.dumps(r, indent=2))
        return 0
    print(f"{game.title}: {args.games} games, {args.players} players, bots {args.bots}, "
          f"seed {args.seed} ({r['seconds']:.1f} s, {args.games / r['seconds']:,.0f} games/s)")
    if args.data:
        print(f"data: {game.data_ref.label}")
    print_win_rates(r["seats"])
    print(f"mean VP spread (winner - last): {r['mean_spread']:.1f}")
    print(f"mean lead changes per game: {r['mean_lead_changes']:.2f}")
    if r.get("report"):
        text = getattr(game, "report_text", None)
        print(text(r["report"]) if text else json.dumps(r["report"], indent=2))
    return 0


def _simulate(args, game, players, options, on=None):
    t0 = time.perf_counter()
    r = simulate(game, players, args.games, seed=args.seed, bots=args.bots,
                 options=options, progress=_progress(args.games),
                 jobs=args.jobs, cluster=on)
    r["seconds"] = round(time.perf_counter() - t0, 3)
    summaries = r.pop("summaries")
    report = getattr(game, "report", None)
    if report is not None:
        r["report"] = report(summaries)
    r["data"] = game.data_ref.record()
    return r


def _compare(args, base, edited, players, options, on=None):
    """The same seeds and seat rotations on two sets of data, game for game: the paired
    difference of every win rate (companion/lab/paired.py)."""
    from companion.lab import paired
    if base.data_ref.hash == edited.data_ref.hash:
        raise ConfigError(f"--compare {args.compare}: the same files as "
                          f"{base.data_ref.label}; edit the copy first.")
    if not 0 < args.delta <= 100:
        raise ConfigError(f"--delta is in win-rate points (0-100], not {args.delta}.")
    for name in ("alpha", "beta"):
        if not 0 < getattr(args, name) < 0.5:
            raise ConfigError(f"--{name} is a probability below 0.5, not {getattr(args, name)}.")
    resolve_bots(base, args.bots, len(players))
    resolve_bots(edited, args.bots, len(players))
    lineups = paired.rotations(len(players), args.bots, options)
    sides = paired.Sides()
    t0 = time.perf_counter()
    stream = paired.play_pairs(base, edited, players, bots=args.bots, options=options,
                               seed=args.seed, jobs=args.jobs, sink=sides.see,
                               cluster=on)
    c = paired.feed(paired.Comparison(args.delta / 100, args.alpha, args.beta), stream,
                    args.games, until=args.until)
    stream.close()
    secs = time.perf_counter() - t0
    rows = [dict(r, a=sides.mean(r["kind"], r["key"], 0), b=sides.mean(r["kind"], r["key"], 1))
            for r in c.rows()]
    r = {"game": base.name, "players": len(players), "bots": args.bots, "seed": args.seed,
         "pairs": c.pairs, "games": 2 * c.pairs, "rotations": len(lineups),
         "until": args.until, "budget": args.games, "decided": c.decided,
         "seconds": round(secs, 3),
         "test": {"delta": args.delta / 100, "alpha": args.alpha, "beta": args.beta,
                  "figures": c.family},
         "base": sides.side(0, players, base.data_ref.record()),
         "compare": sides.side(1, players, edited.data_ref.record()),
         "figures": rows, "changed": [r for r in rows if r["verdict"] in ("higher", "lower")]}
    if args.json:
        print(json.dumps(r, indent=2))
        return 0
    rot = f"{len(lineups)} seat rotation{'s' if len(lineups) > 1 else ''}"
    print(f"{base.title}: {c.pairs:,} pairs of games on two sets of data, the same seed and "
          f"seats in each pair ({2 * c.pairs:,} games; seed {args.seed}, {rot}), "
          f"{args.players} players, bots {args.bots} ({secs:.1f} s)")
    print(f"  A: {base.data_ref.label}")
    print(f"  B: {edited.data_ref.label}")
    print(f"Sequential test per figure (docs/lab.md): no change, or a change of at least "
          f"{args.delta:g} points; alpha {args.alpha:g} over all {c.family} figures, "
          f"beta {args.beta:g}.")
    print(f"{'':>22}  {'A':>6}  {'B':>6}  {'B - A':>6}  {'95% interval':>15}  verdict")
    for row in rows:
        lo, hi = row["ci95"]
        print(f"{_figure(row):>22}  {row['a']:6.1%}  {row['b']:6.1%}  "
              f"{100 * row['mean']:+6.1f}  {100 * lo:+6.1f} - {100 * hi:+5.1f}  "
              f"{_verdict(row)}")
    if c.decided:
        print(f"Every figure decided by pair {max(r['decided_pair'] for r in rows):,}.")
    else:
        left = sum(1 for r in rows if r["verdict"] == "undecided")
        print(f"{left} figure{'s' if left > 1 else ''} undecided after {c.pairs:,} pairs"
              + (" (the budget, --games)." if args.until else
                 "; --until decided plays on until they are."))
    print(f"mean spread (winner - last): A {r['base']['mean_spread']:.1f}, "
          f"B {r['compare']['mean_spread']:.1f}")
    return 0


def _figure(row):
    if row["kind"] == "seat":
        return f"seat {row['key'] + 1}"
    if row["kind"] == "difficulty":
        return f"{row['key']} battles won"
    return f"Leader {row['key']}"


def _verdict(row):
    v, at = row["verdict"], row["decided_pair"]
    if v == "same":
        return f"no change (at pair {at:,})"
    if v in ("higher", "lower"):
        return f"B {v} (at pair {at:,})"
    return f"undecided ({row['pairs']:,} pairs)"
