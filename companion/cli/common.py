"""Shared bits of the CLI: where sessions live, printing a game's final table."""
import os
import pathlib

from companion.core.log import SQLiteLog


def default_db() -> str:
    env = os.environ.get("COMPANION_DB")
    if env:
        return env
    base = os.environ.get("XDG_DATA_HOME") or os.path.join(os.path.expanduser("~"), ".local",
                                                           "share")
    return str(pathlib.Path(base) / "table-companion" / "sessions.db")


def add_db_arg(p):
    p.add_argument("--db", default=None, help="session store (SQLite file); default "
                   "$COMPANION_DB or ~/.local/share/table-companion/sessions.db")


def add_cluster_arg(p):
    p.add_argument("--cluster", default=None, metavar="tcp://HOST:PORT",
                   help="play the games on the Dask cluster whose scheduler listens here "
                        "instead of local processes (needs the lab extra; the figures are "
                        "those of a local run: docs/lab.md)")


def cluster(args):
    """The ``--cluster`` to send games to, as a context manager (None without the flag)."""
    from companion.lab.cluster import maybe
    return maybe(getattr(args, "cluster", None))


def open_log(args):
    return SQLiteLog(args.db or default_db())


def final_table(session) -> str:
    """The final (or current) table of a session as text."""
    from companion.core import views
    st, game = session.state, session.game
    view = views.public(game, st)
    lines = [f"{game.title}: session {session.id}, {len(session.records)} records"]
    text_fn = getattr(game, "text_table", None)
    if text_fn is not None:
        lines.append(text_fn(st))
    if st.outcome:
        names = ", ".join(st.players[w] for w in st.outcome.winners)
        lines.append(f"Winner: {names} ({st.outcome.reason}"
                     + (f"; tiebreak: {st.outcome.tiebreak}" if st.outcome.tiebreak else "")
                     + ")")
    else:
        lines.append(f"Not finished: phase {view['phase_label']}, round {st.round}.")
    return "\n".join(lines)


def print_win_rates(seats):
    """The win rate per seat with its 95% interval, one line a seat."""
    print(f"{'seat':>4}  {'win rate':>8}  95% interval")
    for s in seats:
        lo, hi = s["ci95"]
        print(f"{s['seat'] + 1:>4}  {s['win_rate']:8.1%}  {lo:6.1%} - {hi:6.1%}")
