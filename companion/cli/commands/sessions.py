"""`companion sessions`, `companion replay ID`, `companion stats`, `companion sessions export`.

A session is replayed with the data it was played with (an edited copy is named in its log;
``--data DIR`` points at the copy if it moved). Time per phase comes only from sessions a table
played: a game stored by ``companion play`` ran on a bot's clock that never moves, so its phases
all "took" 0.0 s; it still counts for win rates.
"""
import collections
import json
import time

from companion.cli.common import add_db_arg, final_table, open_log
from companion.core.play import wilson
from companion.core.session import fold
from companion.core.errors import ConfigError, SessionFileError
from companion.games import get, shipped
from companion.lab.data import label, load_session
from companion.lab.facts import is_bot_session


def register(sub):
    p = sub.add_parser("sessions", help="list stored sessions; `sessions recover` mends a "
                                        "damaged store")
    p.add_argument("action", nargs="?", choices=("list", "recover", "export"), default="list",
                   help="recover: move a damaged store aside (untouched) and put a recovered "
                        "copy in its place; export: write finished sessions as CSV or for BG "
                        "Stats (docs/reports.md)")
    p.add_argument("--format", choices=("csv", "bgstats"), default="csv",
                   help="export: csv (one row per player per session, and every session's "
                        "public log) or bgstats (BG Stats' play import format)")
    p.add_argument("--out", metavar="DIR", default=None,
                   help="export: the folder to write into (default: the current folder)")
    p.add_argument("--game", default=None, help="export: only this game's sessions")
    p.add_argument("--session", action="append", metavar="ID",
                   help="export: only this session (repeatable)")
    add_db_arg(p)
    p.set_defaults(func=run_sessions)

    r = sub.add_parser("replay", help="rebuild a session from its log and print its state")
    r.add_argument("id")
    r.add_argument("--data", metavar="DIR", default=None,
                   help="the edited data copy the session was played with, if it has moved "
                        "(it must hold the same files)")
    r.add_argument("--transcript", action="store_true",
                   help="also print the game turn by turn in words")
    add_db_arg(r)
    r.set_defaults(func=run_replay)

    s = sub.add_parser("stats", help="win rate per seat and faction, time per phase, across "
                                     "stored sessions")
    s.add_argument("--game", default=None, help="only this game")
    s.add_argument("--json", action="store_true")
    add_db_arg(s)
    s.set_defaults(func=run_stats)


def run_sessions(args):
    if args.action == "recover":
        from companion.cli.common import default_db
        from companion.service.recover import recover, report_text
        print(report_text(recover(str(args.db or default_db()))))
        return 0
    if args.action == "export":
        return run_export(args)
    log = open_log(args)
    rows = log.sessions()
    if not rows:
        print(f"No sessions in {log.path}.")
        return 0
    for info in rows:
        when = time.strftime("%Y-%m-%d %H:%M", time.localtime(info.created))
        players = ", ".join(info.meta.get("players", []))
        result = ""
        if info.summary:
            result = "won by " + ", ".join(info.summary["players"][w]
                                           for w in info.summary["winners"])
        data = ((info.meta.get("options") or {}).get("data") or {})
        edited = f"  [edited data {data['dir']}]" if data.get("dir") else ""
        bots = "  [bots]" if is_bot_session(info) else ""
        print(f"{info.id:40} {when}  {info.game:14} {info.status:8} {info.length:5} records  "
              f"{players}  {result}{bots}{edited}")
    return 0


def run_replay(args):
    log = open_log(args)
    session = load_session(log, args.id, data=args.data)
    again = fold(session.game, session.records)
    if again.fingerprint() != session.state.fingerprint():
        raise SessionFileError(f"{log.path}: session {args.id} does not replay to the same "
                               f"state twice.")
    if args.transcript:
        from companion.lab.transcript import transcript
        print("\n".join(transcript(session.game, session.records)))
        print()
    print(final_table(session))
    data = session.state.config.get("data")
    if data and data.get("dir"):
        print(f"Data: {label(data)}")
    return 0


def collect_stats(log, game=None):
    seats = collections.defaultdict(lambda: [0.0, 0])          # (game, seat) -> wins, games
    factions = collections.defaultdict(lambda: [0.0, 0])       # (game, faction)
    phase_time = collections.defaultdict(list)                 # (game, phase) -> durations
    games = collections.Counter()
    ends = collections.Counter()                               # (game, outcome code)
    timed = collections.Counter()                              # sessions a table played
    datas = collections.defaultdict(collections.Counter)       # game -> data label -> count
    for info in log.sessions():
        if game and info.game != game:
            continue
        if not info.summary:
            continue
        summ = info.summary
        games[info.game] += 1
        ends[(info.game, summ.get("code") or "unrecorded")] += 1
        datas[info.game][label((info.meta.get("options") or {}).get("data"))] += 1
        n = len(summ["players"])
        winners = summ["winners"]
        share = 1.0 / len(winners) if winners else 0.0
        for seat in range(n):
            w = share if seat in winners else 0.0
            seats[(info.game, seat)][0] += w
            seats[(info.game, seat)][1] += 1
            fac = (summ.get("factions") or {}).get(str(seat))
            if fac:
                factions[(info.game, fac)][0] += w
                factions[(info.game, fac)][1] += 1
        if is_bot_session(info):
            continue            # bots ran on a clock that never moves: no table time to read
        timed[info.game] += 1
        for phase, _round, start, end in summ.get("phase_log", []):
            if end is not None:
                phase_time[(info.game, phase)].append(end - start)

    def rows(table):
        out = []
        for (g, key), (w, n) in sorted(table.items(), key=lambda kv: (kv[0][0], str(kv[0][1]))):
            lo, hi = wilson(round(w), n)
            out.append({"game": g, "key": key, "wins": w, "games": n, "win_rate": w / n,
                        "ci95": [lo, hi]})
        return out

    phases = []
    for (g, phase), ds in sorted(phase_time.items()):
        ds = sorted(ds)
        shown = _phase_label(g, phase)
        phases.append({"game": g, "phase": phase, "label": shown, "count": len(ds),
                       "total_s": sum(ds), "mean_s": sum(ds) / len(ds),
                       "median_s": ds[len(ds) // 2]})
    endings = [{"game": g, "code": code, "games": k, "share": k / games[g]}
               for (g, code), k in sorted(ends.items(), key=lambda kv: (kv[0][0], -kv[1]))]
    return {"sessions": dict(games), "timed": dict(timed), "seats": rows(seats),
            "factions": rows(factions), "phases": phases, "endings": endings,
            "data": {g: dict(c) for g, c in datas.items()}}


def _phase_label(game, phase):
    try:
        ph = shipped(game).phases.get(phase)
    except ConfigError:
        return phase
    return ph.label if ph is not None and ph.label else phase


def run_stats(args):
    log = open_log(args)
    if args.game:
        get(args.game)
    st = collect_stats(log, args.game)
    if args.json:
        print(json.dumps(st, indent=2))
        return 0
    if not st["sessions"]:
        print(f"No finished sessions in {log.path}" + (f" for {args.game}." if args.game
                                                         else "."))
        return 0
    for g, count in st["sessions"].items():
        print(f"{get(g).title}: {count} finished session{'s' if count != 1 else ''}")
        print("  ended: " + ", ".join(f"{r['code'].replace('_', ' ')} {r['games']} "
                                      f"({r['share']:.0%})"
                                      for r in st["endings"] if r["game"] == g))
        seen = st["data"].get(g) or {}
        if len(seen) > 1:           # say it: these figures mix decks (companion report won't)
            print("  played with more than one set of data (`companion report` keeps them "
                  "apart): " + "; ".join(f"{n} with {d}" for d, n in seen.items()))
        print(f"  {'seat':>6} {'win rate':>9}  95% interval   games")
        for r in (r for r in st["seats"] if r["game"] == g):
            print(f"  {r['key'] + 1:>6} {r['win_rate']:9.1%}  {r['ci95'][0]:5.1%} - "
                  f"{r['ci95'][1]:5.1%}  {r['games']:5}")
        facs = [r for r in st["factions"] if r["game"] == g]
        if facs:
            print(f"  {'faction':>12} {'win rate':>9}  95% interval   games")
            for r in facs:
                print(f"  {r['key']:>12} {r['win_rate']:9.1%}  {r['ci95'][0]:5.1%} - "
                      f"{r['ci95'][1]:5.1%}  {r['games']:5}")
        n_timed = st["timed"].get(g, 0)
        if not n_timed:
            print("  time per phase: no table sessions yet (games stored by `companion play` "
                  "are played by bots, which take no table time)")
            continue
        print(f"  time per phase, from {n_timed} table session{'s' if n_timed != 1 else ''}:")
        print(f"  {'phase':>24} {'mean':>8} {'median':>8} {'total':>9}")
        for r in (r for r in st["phases"] if r["game"] == g):
            print(f"  {r['label']:>24} {_clock(r['mean_s']):>8} {_clock(r['median_s']):>8} "
                  f"{_clock(r['total_s']):>9}")
    return 0


def _clock(seconds):
    """3.4s, 3:12, 1:02:05: a table's times read better as a clock than as 192.3s."""
    if seconds < 10:
        return f"{seconds:.1f}s"
    s = int(round(seconds))
    h, rest = divmod(s, 3600)
    m, s = divmod(rest, 60)
    return f"{h}:{m:02d}:{s:02d}" if h else f"{m}:{s:02d}"


def run_export(args):
    from companion.lab import export
    log = open_log(args)
    if args.game:
        get(args.game)
    out = args.out or "."
    written = export.write(log, out, args.format, game=args.game, sessions=args.session)
    for path, what in written:
        print(f"Wrote {path}: {what}")
    return 0
