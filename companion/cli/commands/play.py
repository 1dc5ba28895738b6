"""`companion play GAME --bots all` and `companion simulate GAME`.

``--data DIR`` plays (or simulates) a designer's edited copy of the game's data folder; the
session records the copy (docs/reports.md). ``play --transcript`` prints the game turn by turn
in words; ``simulate --compare DIR`` plays the same seeds on the shipped data (or ``--data``)
and on the copy in DIR and prints their win rates side by side.
"""
import json
import random
import sys
import time

from companion.cli.common import add_db_arg, final_table, open_log, print_win_rates
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
    s.add_argument("--games", type=int, default=1000)
    s.add_argument("--seed", type=int, default=0)
    s.add_argument("--bots", default="greedy")
    s.add_argument("--option", action="append", help="rule setting key=value (repeatable)")
    s.add_argument("--edition", default=None, help="the game's edition (same as --option "
                   "edition=E), e.g. trade or tariff for trade-warz")
    s.add_argument("--jobs", type=int, default=1, help="worker processes (0 = one per core); "
                   "the figures do not depend on it")
    s.add_argument("--json", action="store_true", help="print the figures as JSON")
    add_data_arg(s, "simulate")
    s.add_argument("--compare", metavar="DIR", default=None,
                   help="also simulate the same games on the edited copy in DIR and print "
                        "both win rates side by side, with 95%% intervals")
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
    if args.games < 1:
        raise ConfigError("--games must be at least 1.")
    players = _players(args.players, None)
    options = _options(args.option)
    if args.edition is not None:
        options["edition"] = args.edition
    if args.compare is not None:
        return _compare(args, game, get(args.game, data=args.compare), players, options)
    r = _simulate(args, game, players, options)
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


def _simulate(args, game, players, options):
    t0 = time.perf_counter()
    r = simulate(game, players, args.games, seed=args.seed, bots=args.bots,
                 options=options, progress=_progress(args.games),
                 jobs=args.jobs)
    r["seconds"] = round(time.perf_counter() - t0, 3)
    summaries = r.pop("summaries")
    report = getattr(game, "report", None)
    if report is not None:
        r["report"] = report(summaries)
    r["data"] = game.data_ref.record()
    return r


def _compare(args, base, edited, players, options):
    """The same seeds on two sets of data: the win rates side by side."""
    if base.data_ref.hash == edited.data_ref.hash:
        raise ConfigError(f"--compare {args.compare}: the same files as "
                          f"{base.data_ref.label}; edit the copy first.")
    a = _simulate(args, base, players, options)
    b = _simulate(args, edited, players, options)
    if args.json:
        print(json.dumps({"base": a, "compare": b}, indent=2))
        return 0
    secs = a["seconds"] + b["seconds"]
    print(f"{base.title}: the same {args.games} games (seed {args.seed}) on two sets of data, "
          f"{args.players} players, bots {args.bots} ({secs:.1f} s)")
    print(f"  A: {base.data_ref.label}")
    print(f"  B: {edited.data_ref.label}")
    print(f"{'seat':>4}  {'A win rate':>10}  {'95% interval':>15}  {'B win rate':>10}  "
          f"{'95% interval':>15}  {'B - A':>7}")
    for ra, rb in zip(a["seats"], b["seats"]):
        print(f"{ra['seat'] + 1:>4}  {ra['win_rate']:10.1%}  "
              f"{ra['ci95'][0]:6.1%} - {ra['ci95'][1]:6.1%}  {rb['win_rate']:10.1%}  "
              f"{rb['ci95'][0]:6.1%} - {rb['ci95'][1]:6.1%}  "
              f"{100 * (rb['win_rate'] - ra['win_rate']):+6.1f}")
    print(f"mean spread (winner - last): A {a['mean_spread']:.1f}, B {b['mean_spread']:.1f}")
    print(f"mean lead changes per game: A {a['mean_lead_changes']:.2f}, "
          f"B {b['mean_lead_changes']:.2f}")
    print(f"mean commands per game: A {a['mean_commands']:.0f}, B {b['mean_commands']:.0f}")
    leaders = _leader_rates(a), _leader_rates(b)
    if leaders[0] or leaders[1]:
        print(f"{'Leader':>22}  {'A win rate':>10}  {'95% interval':>15}  {'B win rate':>10}  "
              f"{'95% interval':>15}")
        for name in sorted(set(leaders[0]) | set(leaders[1])):
            cells = []
            for side in leaders:
                r = side.get(name)
                cells.append(f"{'-':>10}  {'-':>15}" if r is None else
                             f"{r['win_rate']:10.1%}  {r['ci95'][0]:6.1%} - {r['ci95'][1]:6.1%}")
            print(f"{name:>22}  " + "  ".join(cells))
    return 0


def _leader_rates(r):
    """Trade Warz's per-Leader win rates from the game's own report, by Leader name."""
    rows = (r.get("report") or {}).get("leaders") or {}
    return {row.get("name", lid): row for lid, row in rows.items()
            if isinstance(row, dict) and "win_rate" in row and "ci95" in row}
