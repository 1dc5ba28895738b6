"""`companion play GAME --bots all` and `companion simulate GAME`."""
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
    s.set_defaults(func=run_simulate)


def run_play(args):
    game = get(args.game)
    players = _players(args.players, args.names)
    bots = resolve_bots(game, "greedy" if args.bots == "all" else args.bots, len(players))
    if args.no_save:
        from companion.core.log import MemoryLog
        log = MemoryLog()
    else:
        log = open_log(args)
    seed = args.seed if args.seed is not None else random.SystemRandom().getrandbits(32)
    session = Session.start(game, players, log, options=_options(args.option), seed=seed,
                            clock=FakeClock(), meta={"bots": args.bots})
    play_out(session, bots, random.Random(seed))
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
    game = get(args.game)
    if args.games < 1:
        raise ConfigError("--games must be at least 1.")
    players = _players(args.players, None)
    options = _options(args.option)
    if args.edition is not None:
        options["edition"] = args.edition
    t0 = time.perf_counter()
    r = simulate(game, players, args.games, seed=args.seed, bots=args.bots,
                 options=options, progress=_progress(args.games),
                 jobs=args.jobs)
    r["seconds"] = round(time.perf_counter() - t0, 3)
    summaries = r.pop("summaries")
    report = getattr(game, "report", None)
    if report is not None:
        r["report"] = report(summaries)
    if args.json:
        print(json.dumps(r, indent=2))
        return 0
    print(f"{game.title}: {args.games} games, {args.players} players, bots {args.bots}, "
          f"seed {args.seed} ({r['seconds']:.1f} s, {args.games / r['seconds']:,.0f} games/s)")
    print_win_rates(r["seats"])
    print(f"mean VP spread (winner - last): {r['mean_spread']:.1f}")
    print(f"mean lead changes per game: {r['mean_lead_changes']:.2f}")
    if r.get("report"):
        text = getattr(game, "report_text", None)
        print(text(r["report"]) if text else json.dumps(r["report"], indent=2))
    return 0
