"""`companion sessions`, `companion replay ID`, `companion stats`, `companion sessions export`,
`companion sessions backup DEST` (docs/store.md: what files make a store, backup, restore).

A session is replayed with the data it was played with (an edited copy is named in its log;
``--data DIR`` points at the copy if it moved). Time per phase comes only from sessions a table
played: a game stored by ``companion play`` ran on a bot's clock that never moves, so its phases
all "took" 0.0 s; it still counts for win rates.
"""
import collections
import json
import os
import pathlib
import sqlite3
import time

from companion.cli.common import add_db_arg, add_filter_args, default_db, final_table, open_log
from companion.core.log import APPLICATION_ID, SQLiteLog
from companion.core.play import wilson
from companion.core.session import fold
from companion.core.errors import ConfigError, SessionFileError
from companion.games import get, shipped
from companion.lab.data import label, load_session
from companion.lab.facts import is_bot_session


def register(sub):
    p = sub.add_parser("sessions", help="list stored sessions; `sessions recover` mends a "
                                        "damaged store; `sessions backup DEST` copies it safely")
    p.add_argument("action", nargs="?", choices=("list", "recover", "export", "backup"),
                   default="list",
                   help="recover: move a damaged store aside (untouched) and put a recovered "
                        "copy in its place; export: write finished sessions as CSV or for BG "
                        "Stats (docs/reports.md); backup: a consistent copy of the store and "
                        "its heads file, safe while the table runs (docs/store.md)")
    p.add_argument("dest", nargs="?", metavar="DEST",
                   help="backup: a folder (it gets sessions-YYYYmmdd-HHMMSS.db and its "
                        "-heads file) or a new file's path; never overwritten")
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
    add_filter_args(s)
    s.set_defaults(func=run_stats)


def run_sessions(args):
    if args.dest is not None and args.action != "backup":
        raise ConfigError(f"`companion sessions {args.action}` takes no {args.dest!r}; only "
                          f"`companion sessions backup DEST` takes a destination.")
    if args.action == "recover":
        from companion.service.recover import recover, report_text
        print(report_text(recover(str(args.db or default_db()))))
        return 0
    if args.action == "export":
        return run_export(args)
    if args.action == "backup":
        return run_backup(args)
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


# -- backup ---------------------------------------------------------------------------------

def _as_the_table(path):
    """The table's own view of the store at ``path``, never opened: its heads file
    (``_read_heads``) and the check it makes at start (``_check(db)``: SQLite's quick_check,
    then the heads file against the records; closes ``db`` when it refuses). A backup refuses
    what the table would refuse, in the same sentence."""
    table = SQLiteLog.__new__(SQLiteLog)
    table.path, table.heads_path = path, path + "-heads"
    return table


def _backup_path(dest):
    """The file to write: ``dest`` itself, or a new name in it when it is a folder (an existing
    one, or a path ending in a slash)."""
    dest = os.path.expanduser(str(dest))
    if os.path.isdir(dest) or dest.endswith(os.sep):
        os.makedirs(dest, exist_ok=True)
        return os.path.join(dest, f"sessions-{time.strftime('%Y%m%d-%H%M%S')}.db")
    parent = os.path.dirname(os.path.abspath(dest))
    if not os.path.isdir(parent):
        raise ConfigError(f"Cannot write the backup to {dest}: there is no folder {parent}.")
    return dest


def _exists(p):
    return ConfigError(f"{p} exists already; a backup never overwrites anything. Choose "
                       f"another name or folder.")


def _refuse_existing(path):
    for p in (path, path + "-heads"):
        if os.path.lexists(p):
            raise _exists(p)


def _fsync(path, directory=False):
    fd = os.open(path, os.O_RDONLY | (os.O_DIRECTORY if directory else 0))
    try:
        os.fsync(fd)
    except OSError:
        pass                        # (some file systems cannot sync a folder)
    finally:
        os.close(fd)


def backup(src, dest) -> dict:
    """Copy the store ``src`` into ``dest`` (a folder or a new file) while the table may be
    running. SQLite's online backup takes one consistent snapshot (readers never block the
    table's writes in WAL mode) into a single self-contained file (rollback journal, no WAL
    needed); beside it, ``<copy>-heads`` names the session the copy played last and the
    records it holds, so a copy that later loses records is refused like the store itself.

    The store is checked first exactly as the table checks it at start (a store that has
    lost records, a torn WAL, is refused in the table's own sentence), opened read-only
    (nothing of it, even a damaged one, is changed). Returns ``{"path", "heads_path",
    "sessions", "records", "head": (session, records) | None}``."""
    src = os.path.expanduser(str(src))
    if not os.path.exists(src):
        raise SessionFileError(f"There is no store at {src} to back up.")
    with open(src, "rb") as f:
        if f.read(16) != b"SQLite format 3\x00":
            raise SessionFileError(f"{src} is not a Table Companion session store (not an "
                                   f"SQLite file).")
    path = _backup_path(dest)
    here = os.path.abspath(src)
    if os.path.abspath(path) in (here, here + "-heads", here + "-wal", here + "-shm"):
        raise ConfigError(f"The backup must go somewhere else than the store itself ({src}).")
    _refuse_existing(path)
    try:
        db = sqlite3.connect(pathlib.Path(here).as_uri() + "?mode=ro", uri=True, timeout=10)
        app_id = db.execute("PRAGMA application_id").fetchone()[0]
        tables = {r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type='table'")}
    except sqlite3.DatabaseError as e:
        raise SessionFileError(f"{src} cannot be read ({e}); nothing was written.") from None
    if app_id != APPLICATION_ID or "events" not in tables:
        db.close()
        raise SessionFileError(f"{src} is not a Table Companion session store; nothing was "
                               f"written.")
    table = _as_the_table(src)
    # the heads file is read before the snapshot is taken: every record it names is in it
    claimed = table._read_heads()
    table._check(db)                # raises (and closes db) where the table would refuse
    tmp = os.path.join(os.path.dirname(os.path.abspath(path)),
                       f".{os.path.basename(path)}.partial-{os.getpid()}")
    out, placed = None, False
    try:
        copy = sqlite3.connect(tmp, isolation_level=None)
        try:
            db.backup(copy)                         # one step: one consistent snapshot
            copy.execute("PRAGMA journal_mode=DELETE")          # one file, no WAL to carry
            problems = [r[0] for r in copy.execute("PRAGMA integrity_check").fetchall()]
            if problems != ["ok"]:
                raise SessionFileError(f"The backup of {src} failed its check "
                                       f"({'; '.join(problems[:2])}); nothing was kept.")
            n_sessions = copy.execute("SELECT COUNT(*) FROM sessions").fetchone()[0]
            n_records = copy.execute("SELECT COUNT(*) FROM events").fetchone()[0]
            if claimed is not None:
                held = copy.execute("SELECT COUNT(*) FROM events WHERE session_id=?",
                                    (claimed[0],)).fetchone()[0]
                if held < claimed[1]:
                    raise SessionFileError(f"The backup of {src} holds {held} records of "
                                           f"session {claimed[0]}, not {claimed[1]}; nothing "
                                           f"was kept.")
            # the session the copy played last (its newest saved record), and its records
            cols = {r[1] for r in copy.execute("PRAGMA table_info(sessions)")}
            last = "COALESCE(s.updated, s.created)" if "updated" in cols else "s.created"
            head = copy.execute(
                "SELECT s.id, COUNT(*) FROM sessions s JOIN events e ON e.session_id = s.id "
                f"GROUP BY s.id ORDER BY {last} DESC, COUNT(*) DESC LIMIT 1").fetchone()
        finally:
            copy.close()
        mode = os.stat(src).st_mode & 0o666         # as private as the store (seat tokens)
        os.chmod(tmp, mode)
        _fsync(tmp)
        out = {"path": path, "heads_path": None, "sessions": n_sessions,
               "records": n_records, "head": tuple(head) if head else None}
        if head:                                    # the claim first: never a copy alone
            try:
                fd = os.open(path + "-heads", os.O_WRONLY | os.O_CREAT | os.O_EXCL, mode)
            except FileExistsError:
                raise _exists(path + "-heads") from None
            out["heads_path"] = path + "-heads"
            with open(fd, "w", encoding="utf-8") as f:
                f.write(f"{head[0]} {head[1]}\n")     # the format SQLiteLog writes
                f.flush()
                os.fsync(f.fileno())
        try:
            os.link(tmp, path)                      # never over an existing file
        except FileExistsError:
            raise _exists(path) from None
        except OSError:                             # (a file system without hard links)
            if os.path.lexists(path):
                raise _exists(path) from None
            os.replace(tmp, path)
        _fsync(os.path.dirname(os.path.abspath(path)), directory=True)
        placed = True
    except sqlite3.DatabaseError as e:
        raise SessionFileError(f"The backup of {src} failed ({e}); nothing was kept.") from None
    except OSError as e:
        raise SessionFileError(f"Cannot write the backup {path}: {e.strerror or e}; nothing "
                               f"was kept.") from None
    finally:
        db.close()
        left = [tmp, tmp + "-journal", tmp + "-wal", tmp + "-shm"]
        if not placed and out and out["heads_path"]:
            left.append(out["heads_path"])          # ours, written above: nothing is kept
        for p in left:
            if os.path.exists(p):
                os.remove(p)
    return out


def run_backup(args):
    if not args.dest:
        raise ConfigError("Say where the backup goes: companion sessions backup DEST (a folder, "
                          "or a new file's path).")
    src = str(args.db or default_db())
    r = backup(src, args.dest)
    s = "" if r["sessions"] == 1 else "s"
    print(f"Backed up {src}: {r['sessions']} session{s}, {r['records']} records.")
    print(f"Wrote {r['path']}")
    if r["heads_path"]:
        sid, n = r["head"]
        print(f"Wrote {r['heads_path']} (session {sid}: {n} records; keep it with the copy)")
    print("To restore: stop the table, then copy both back beside each other as the store "
          "and its -heads file, removing the store's -wal and -shm files (docs/store.md).")
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
