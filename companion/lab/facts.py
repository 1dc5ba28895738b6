"""The facts of one game, live or simulated, in one shape: who sat where, who won, the scores
round by round, who played first, how long it took and where the time went.

A *live* game is a session from the store, played at a table: its times are the log's own
(each record's ``at`` is the session clock, the monotonic time the table has run; the first
record's ``wall`` dates it). A game stored by ``companion play`` was played by bots on a clock
that only jumps to timer deadlines: its facts carry ``timed=False`` and no time is read from it.
A *simulated* game is played here by bots and never stored.

:func:`game_summary` is the touchscreen's end-of-game summary of one session (score curve,
time per phase and per round): a pure function of the session's state.
"""
import dataclasses

from companion.core.datadir import DataRef
from companion.core.errors import CompanionError, ConfigError
from companion.core.game import apply, new_state
from companion.core.play import lead_changes  # noqa: F401  (the lab's name for it too)
from companion.core.session import COMMAND_KINDS

from . import games as lab_games

#: Meta keys of a stored session that say bots played it on a simulated clock.
BOT_META = ("bots",)


@dataclasses.dataclass
class Facts:
    source: str                      # "live" (a table), "bots" (companion play), "sim"
    session: str
    game: str
    players: list                    # names, seat order
    options: dict                    # the rule settings (the data record left out)
    data: dict | None                # the DataRef record the game was played with
    winners: list                    # seats
    scores: list                     # final score per seat
    reason: str
    factions: dict                   # seat (str) -> Leader / faction name
    first: int | None                # who played first in round 1
    rounds: int
    commands: int
    curve: list                      # score per seat after each round
    timed: bool                      # the times below are a table's real times
    started: float | None = None     # wall time (epoch seconds) of the start
    seconds: float | None = None     # session time from the first record to the last
    phases: list = dataclasses.field(default_factory=list)   # [phase, round, start, end]
    summary: dict = dataclasses.field(default_factory=dict)  # game.summary(state)

    @property
    def n(self) -> int:
        return len(self.players)

    @property
    def spread(self) -> float:
        return max(self.scores) - min(self.scores) if self.scores else 0

    @property
    def lead_changes(self) -> int:
        return lead_changes(self.curve)

    @property
    def data_ref(self):
        return DataRef.of(self.data)


class Tracker:
    """Watches a game command by command for what the final state forgets (the first player
    of round 1)."""

    def __init__(self, game):
        self.game = game
        self.first = None

    def see(self, state):
        if self.first is None and state.round >= 1:
            self.first = lab_games.first_player(self.game, state)


def walk(game, records, each=None):
    """Replay a session's records exactly as :func:`companion.core.session.fold` does, calling
    ``each(record, state)`` after the start (record None) and after every command in effect.
    Returns the final state."""
    start = records[0]
    undone = {r["target"] for r in records if r.get("type") == "Undone"}
    state = new_state(game, start["players"], start["options"], start["seed"],
                      now=start.get("at", 0.0))
    if each is not None:
        each(None, state)
    for version, rec in enumerate(records):
        if version == 0 or version in undone or rec.get("kind") not in COMMAND_KINDS:
            continue
        apply(game, state, rec)
        if each is not None:
            each(rec, state)
    return state


def _options(config) -> dict:
    return {k: v for k, v in config.items() if k != "data"}


def _factions(summary) -> dict:
    return {str(k): v for k, v in (summary.get("factions") or {}).items()}


def from_state(game, state, *, source, session, first, commands, started=None,
               seconds=None, timed=False) -> Facts:
    o = state.outcome
    summary = game.summary(state) if o is not None else {}
    return Facts(
        source=source, session=session, game=game.name, players=list(state.players),
        options=_options(state.config), data=state.config.get("data"),
        winners=list(o.winners) if o else [],
        scores=[o.scores.get(s, o.scores.get(str(s), 0)) for s in state.seats()] if o else [],
        reason=o.reason if o else "", factions=_factions(summary), first=first,
        rounds=state.round, commands=commands, curve=lab_games.curve(state), timed=timed,
        started=started, seconds=seconds,
        phases=[list(p) for p in state.phase_log] if timed else [], summary=summary)


def is_bot_session(info) -> bool:
    """A session stored by ``companion play``: bots on a clock that never runs."""
    meta = info.meta or {}
    return meta.get("timing") == "simulated" or any(k in meta for k in BOT_META)


def live_facts(log, info, games=None) -> Facts:
    """The facts of one finished session from the store (replayed from its log)."""
    from . import data as lab_data
    records = log.read(info.id)
    game = lab_data.game_for_records(records, games=games)
    tracker = Tracker(game)
    state = walk(game, records, lambda rec, st: tracker.see(st))
    bots = is_bot_session(info)
    start = records[0]
    times = [r["at"] for r in records if isinstance(r.get("at"), (int, float))]
    commands = sum(1 for r in records[1:] if r.get("kind") in COMMAND_KINDS)
    return from_state(game, state, source="bots" if bots else "live", session=info.id,
                      first=tracker.first, commands=commands,
                      started=start.get("wall", info.created),
                      seconds=(max(times) - start.get("at", 0.0)) if times and not bots
                      else None, timed=not bots)


# -- the touchscreen's summary of one game ---------------------------------------------------

def phase_times(game, phase_log) -> list:
    """Time per phase of one game: ``[{"phase", "label", "count", "seconds"}]`` in order of
    first appearance (entries still running are left out)."""
    out = {}
    for phase, _round, start, end in phase_log:
        if end is None:
            continue
        row = out.setdefault(phase, {"phase": phase, "label": _label(game, phase), "count": 0,
                                     "seconds": 0.0})
        row["count"] += 1
        row["seconds"] += end - start
    return list(out.values())


def round_times(phase_log) -> list:
    """Time per round of one game: ``[{"round", "seconds"}]`` (the phases each round holds;
    what happens before round 1, such as picking Leaders, is round 0)."""
    out = {}
    for _phase, rnd, start, end in phase_log:
        if end is None:
            continue
        out[rnd] = out.get(rnd, 0.0) + (end - start)
    return [{"round": r, "seconds": s} for r, s in sorted(out.items())]


def _label(game, phase):
    ph = game.phases.get(phase)
    return (ph.label if ph is not None and ph.label else phase.replace("_", " ").capitalize())


def game_summary(session) -> dict:
    """The end-of-game summary the table screen shows (pure; reads the session's state):

    ``{"game", "title", "unit", "players", "winners", "scores", "curve", "phases", "rounds",
    "seconds"}`` where ``curve`` is the score of every seat after each round, ``phases`` the
    time per phase (:func:`phase_times`) and ``rounds`` the time per round
    (:func:`round_times`), in seconds of the session clock.
    """
    game, st = session.game, session.state
    o = st.outcome
    log = st.phase_log
    starts = [p[2] for p in log]
    ends = [p[3] for p in log if p[3] is not None]
    return {
        "game": game.name, "title": game.title, "unit": lab_games.unit(game),
        "players": list(st.players),
        "winners": list(o.winners) if o else [],
        "scores": [o.scores.get(s, 0) for s in st.seats()] if o else None,
        "curve": lab_games.curve(st),
        "phases": phase_times(game, log), "rounds": round_times(log),
        "seconds": (max(ends) - min(starts)) if starts and ends else 0.0,
    }


# -- which live sessions a study reads (the report, the impact study) ---------------------------
def data_ref(game) -> DataRef:
    """The data a game was built with (every game records it; see core/datadir.py)."""
    return game.data_ref


class Selection:
    """The table sessions a report reads, and what it leaves out and why."""

    def __init__(self):
        self.live = []                  # Facts
        self.left_out = []              # (session id, reason)
        self.bots = 0                   # games stored by companion play


def select_live(log, game, sessions=None) -> Selection:
    want = data_ref(game)
    infos = [i for i in log.sessions() if i.game == game.name]
    if sessions:
        known = {i.id: i for i in infos}
        missing = [s for s in sessions if s not in known]
        if missing:
            raise ConfigError(f"No {game.title} session {missing[0]!r} in "
                              f"{getattr(log, 'path', 'the store')}. `companion sessions` lists "
                              f"them.")
        infos = [known[s] for s in sessions]
    sel = Selection()
    for info in infos:
        if info.status != "finished":
            if sessions:
                sel.left_out.append((info.id, f"not finished ({info.status})"))
            continue
        if is_bot_session(info):
            sel.bots += 1
            continue
        ref = DataRef.of((info.meta.get("options") or {}).get("data"))
        if ref is None:
            sel.left_out.append((info.id, "its data was not recorded (played before data "
                                          "tracking)"))
            continue
        if ref.hash != want.hash:
            sel.left_out.append((info.id, f"played with other data: {ref.label}"))
            continue
        try:
            sel.live.append(live_facts(log, info, games=lambda _n: game))
        except CompanionError as e:
            sel.left_out.append((info.id, f"does not replay: {e}"))
    return sel
