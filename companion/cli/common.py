"""Shared bits of the CLI: where sessions live, printing a game's final table."""
import time

from companion.core.errors import ConfigError, SessionNotFoundError
from companion.core.log import SQLiteLog, default_db


def add_db_arg(p):
    p.add_argument("--db", default=None, help="session store (SQLite file) or a club record "
                   "(postgresql://...); default $COMPANION_DB or "
                   "~/.local/share/table-companion/sessions.db")


def add_filter_args(p):
    """``--table T`` and ``--evening YYYY-MM-DD``: the sessions of one table, one evening."""
    p.add_argument("--table", default=None, metavar="T",
                   help="only the sessions played at this table (a club record's table id; in "
                        "a local store, the table named in the session)")
    p.add_argument("--evening", default=None, metavar="YYYY-MM-DD",
                   help="only the sessions started this evening: from 06:00 local time on "
                        "the day to 06:00 the next (a night past midnight is one evening)")


#: An evening runs from this local hour of its day to the same hour of the next: a club night
#: from 19:00 to 01:30 is one evening, not two calendar days.
EVENING_STARTS = 6


def _evening(text):
    """The evening of the local day ``YYYY-MM-DD`` as (start, end) in seconds since the epoch:
    from :data:`EVENING_STARTS` o'clock that day to the same hour the next (daylight saving
    changes included, by ``mktime``)."""
    try:
        day = time.strptime(text, "%Y-%m-%d")
    except ValueError:
        raise ConfigError(f"--evening wants a date as YYYY-MM-DD, not {text!r}.") from None
    h = EVENING_STARTS
    start = time.mktime((day.tm_year, day.tm_mon, day.tm_mday, h, 0, 0, 0, 0, -1))
    end = time.mktime((day.tm_year, day.tm_mon, day.tm_mday + 1, h, 0, 0, 0, 0, -1))
    return start, end


class _Only:
    """A local store's read side showing only some sessions (``--table``, ``--evening``)."""

    def __init__(self, log, keep):
        self._log, self._keep = log, keep
        self.path = log.path

    def sessions(self):
        return [i for i in self._log.sessions() if self._keep(i)]

    def info(self, session_id):
        info = self._log.info(session_id)
        if not self._keep(info):
            raise SessionNotFoundError(f"No session {session_id} in {self.path} for the "
                                       f"table or evening asked for.")
        return info

    def read(self, session_id):
        self.info(session_id)
        return self._log.read(session_id)

    def __getattr__(self, name):
        return getattr(self._log, name)


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
    """The store ``--db`` names: a local SQLite file, or the club's record
    (``postgresql://...``, read-only), showing only ``--table`` and ``--evening`` if given."""
    db = args.db or default_db()
    table = getattr(args, "table", None)
    since, until = _evening(args.evening) if getattr(args, "evening", None) else (None, None)
    if db.startswith(("postgresql://", "postgres://")):
        from companion.club.record import ClubLog
        return ClubLog(db, table=table, since=since, until=until)
    log = SQLiteLog(db)
    if table is None and since is None:
        return log
    return _Only(log, lambda i: (table is None or (i.meta or {}).get("table") == table)
                 and (since is None or since <= i.created < until))


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
