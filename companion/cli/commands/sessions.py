"""`companion sessions`, `companion replay ID`, `companion stats`."""
import collections
import json
import time

from companion.cli.common import add_db_arg, final_table, open_log
from companion.core.play import wilson
from companion.core.session import Session, fold
from companion.core.errors import SessionFileError
from companion.games import get


def register(sub):
    p = sub.add_parser("sessions", help="list stored sessions; `sessions recover` mends a "
                                        "damaged store")
    p.add_argument("action", nargs="?", choices=("list", "recover"), default="list",
                   help="recover: move a damaged store aside (untouched) and put a recovered "
                        "copy in its place")
    add_db_arg(p)
    p.set_defaults(func=run_sessions)

    r = sub.add_parser("replay", help="rebuild a session from its log and print its state")
    r.add_argument("id")
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
        print(f"{info.id:40} {when}  {info.game:14} {info.status:8} {info.length:5} records  "
              f"{players}  {result}")
    return 0


def run_replay(args):
    log = open_log(args)
    session = Session.load(log, args.id, games=get)
    again = fold(session.game, session.records)
    if again.fingerprint() != session.state.fingerprint():
        raise SessionFileError(f"{log.path}: session {args.id} does not replay to the same "
                               f"state twice.")
    print(final_table(session))
    return 0


def collect_stats(log, game=None):
    seats = collections.defaultdict(lambda: [0.0, 0])          # (game, seat) -> wins, games
    factions = collections.defaultdict(lambda: [0.0, 0])       # (game, faction)
    phase_time = collections.defaultdict(list)                 # (game, phase) -> durations
    games = collections.Counter()
    ends = collections.Counter()                               # (game, outcome code)
    for info in log.sessions():
        if game and info.game != game:
            continue
        if not info.summary:
            continue
        summ = info.summary
        games[info.game] += 1
        ends[(info.game, summ.get("code") or "unrecorded")] += 1
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
        phases.append({"game": g, "phase": phase, "count": len(ds), "total_s": sum(ds),
                       "mean_s": sum(ds) / len(ds), "median_s": ds[len(ds) // 2]})
    endings = [{"game": g, "code": code, "games": k, "share": k / games[g]}
               for (g, code), k in sorted(ends.items(), key=lambda kv: (kv[0][0], -kv[1]))]
    return {"sessions": dict(games), "seats": rows(seats), "factions": rows(factions),
            "phases": phases, "endings": endings}


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
        print(f"  {'phase':>12} {'mean':>8} {'median':>8} {'total':>9}")
        for r in (r for r in st["phases"] if r["game"] == g):
            print(f"  {r['phase']:>12} {r['mean_s']:7.1f}s {r['median_s']:7.1f}s "
                  f"{r['total_s']:8.0f}s")
    return 0
