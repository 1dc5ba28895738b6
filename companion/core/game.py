"""A game definition (fixed rules and options) apart from its state, and the flow engine that
applies one recorded command to a state.

A game module subclasses :class:`Game` and declares:

* ``name``, ``title``, ``min_players``, ``max_players``, ``options`` (its settings and variants);
* ``phases``: :class:`Phase` objects as configuration: ``on_begin``, ``end_if``, ``next``;
* ``moves``: :class:`Move` objects: a function that validates *before* it changes anything,
  raising :class:`IllegalMoveError` with a readable sentence;
* ``setup(state)``, ``public_view(state)``, ``seat_view(state, seat)``;
* optionally ``counters`` for manual corrections, ``on_timer``, ``bots``, and ``holdings`` /
  ``hidden_holdings``: what each seat holds in the open and in secret (every change of them
  is told by the story; tests/conformance/test_told.py).

Who may act is always ``state.prompts``: a seat acts only with a move its prompt lists
(``Move.any_time`` moves excepted). Sealed moves return the choice; the core seals it, publishes
the commitment, and reveals the window when every seat is in.
"""
import dataclasses
import inspect
from collections import Counter
from typing import Any, Callable

from .args import is_whole
from .datafile import is_kind
from .errors import (BadArgumentsError, ConfigError, IllegalMoveError, NotYourTurnError,
                     UnknownMoveError)
from .flow import run as run_steps
from .sealed import Entry
from .state import State
from .views import Observation


def _nobody_to_prompt(state) -> bool:
    return not state.prompts


@dataclasses.dataclass(frozen=True)
class Option:
    """A rule setting or variant. ``choices`` limits the values; ``kind`` checks the type."""
    name: str
    default: Any
    doc: str
    choices: tuple = ()
    kind: type | None = None

    def check(self, value):
        if self.choices and value not in self.choices:
            raise ConfigError(f"Option {self.name} must be one of "
                              f"{', '.join(map(str, self.choices))}, not {value!r}.")
        kind = self.kind or type(self.default)
        if kind is float and is_whole(value):
            value = float(value)
        if not is_kind(value, kind):
            raise ConfigError(f"Option {self.name} must be a {kind.__name__}, "
                              f"not {value!r}.")
        return value


@dataclasses.dataclass(frozen=True)
class Phase:
    """A phase as configuration. ``on_begin`` sets it up (it may queue steps); ``end_if`` is a
    pure question, asked only when no step is pending (default: nobody is prompted); then
    ``on_end`` and ``next`` (a name, or a function of the state). ``prompts(state) -> {seat:
    prompt}``, if given, derives who is asked what from the data each time the flow settles
    (an open question of a pending step takes the place of them all)."""
    name: str
    next: str | Callable[[State], str]
    on_begin: Callable[[State], None] | None = None
    end_if: Callable[[State], bool] = _nobody_to_prompt
    on_end: Callable[[State], None] | None = None
    label: str = ""
    prompts: Callable[[State], dict] | None = None


@dataclasses.dataclass(frozen=True)
class Move:
    """``fn(state, seat, **args)``. For a sealed move ``fn`` returns the normalised choice and
    ``sealed(state, seat)`` names the window it goes into. ``event`` is the past-tense name the
    log records. ``table`` moves come from the table (seat ``None``), not from a seat.
    ``private`` keeps the arguments out of everyone else's history view (the game decides what
    its seat views show, e.g. a swap offer to its addressee)."""
    name: str
    fn: Callable
    event: str
    sealed: Callable[[State, int], str] | None = None
    table: bool = False
    any_time: bool = False
    private: bool = False         # its arguments are the acting seat's secret (history view)
    doc: str = ""
    label: str = ""               # what a button says ("Place an Export")
    choices: Callable | None = None   # (state, seat) -> argument specs (core/choices.py)
    # (required, allowed, takes_any) argument names of ``fn``, checked on every command
    params: tuple = dataclasses.field(init=False, repr=False, compare=False)

    def __post_init__(self):
        object.__setattr__(self, "params", _params(self.fn))

    def title(self) -> str:
        return self.label or self.name.replace("_", " ").capitalize()


def pop_rules_version(given: dict, v1_options, current: int) -> int:
    """Take ``rules`` (the rules version a session is played under) out of ``given``, options
    as a log's first record or a table gives them. None given: a session recorded before
    version 2 has exactly the version-1 options (and replays under them); anything else is
    new and plays the current rules."""
    version = given.pop("rules", None)
    if version is None:
        version = 1 if set(given) - {"data"} == v1_options else current
    if version not in (1, current):
        raise ConfigError(f"rules must be 1 or {current}, not {version!r}.")
    return version


class Game:
    name = "game"
    title = "Game"
    min_players = 2
    max_players = 8
    options: tuple = ()
    phases: dict = {}
    start_phase = ""
    moves: dict = {}
    counters: tuple = ()          # names a manual correction may change
    bots: dict = {}               # name -> bot(game, observation, rng) -> (move, args)
    observation = Observation     # what a bot is shown (core/views.py); games subclass it
    steps: dict = {}              # step kind -> fn(state, step) (core/flow.py)
    reveal_count = "auto"         # the 3-2-1 beeps: at every reveal, when a notice asks, off

    # -- set-up -----------------------------------------------------------------------------
    def resolve_options(self, given: dict | None) -> dict:
        given = dict(given or {})
        known = {o.name: o for o in self.options}
        unknown = sorted(set(given) - set(known))
        if unknown:
            raise ConfigError(f"{self.title} has no option {unknown[0]!r}. Options: "
                              f"{', '.join(sorted(known)) or 'none'}.")
        return {name: (o.check(given[name]) if name in given else o.default)
                for name, o in known.items()}

    def check_players(self, n: int):
        if not self.min_players <= n <= self.max_players:
            raise ConfigError(f"{self.title} is for {self.min_players}-{self.max_players} "
                              f"players, not {n}.")

    def setup(self, state: State) -> None:
        raise NotImplementedError

    # -- views ------------------------------------------------------------------------------
    def public_view(self, state: State) -> dict:
        raise NotImplementedError

    def seat_view(self, state: State, seat: int) -> dict:
        return {}

    # -- corrections and timers ---------------------------------------------------------------
    def get_counter(self, state: State, seat: int, counter: str) -> int:
        raise NotImplementedError

    def set_counter(self, state: State, seat: int, counter: str, value: int) -> None:
        raise NotImplementedError

    def holdings(self, state: State, seat: int) -> Counter:
        """What ``seat`` holds that every player can see, as a multiset of the names a story
        line would use ("Crushing Blow", "Leader Baton", "Wheat"): bought, drafted or won
        cards, face-up cards in front of it, markers and pieces it holds. Default: nothing
        (a game without holdings). Pure: read from the state, never changed."""
        return Counter()

    def hidden_holdings(self, state: State, seat: int) -> Counter:
        """What ``seat`` holds that only its own view shows (a hand, a secret objective), by
        name. Default: nothing. A story line telling a change of it is addressed to that seat
        (or says only what everyone may know, e.g. a count); a name of it reaches a public line
        only once the table sees the card (a Policy revealed, an Export flipped)."""
        return Counter()

    def observe(self, state: State, seat):
        """What ``seat`` (None: the table) may know now, for a bot (:class:`Observation`)."""
        return self.observation(self, state, seat)

    def direct_observation(self):
        """The observation class, called as ``cls(game, state, seat)``, when :meth:`observe`
        is this default (a hot loop then skips the method's detour per command), else None."""
        return self.observation if type(self).observe is Game.observe else None

    def cue(self, state: State) -> dict | None:
        """What the table's light should show now besides the phase, game-neutral (e.g.
        ``{"upkeep": "C"}`` while the C step of Trade Warz's Upkeep resolves). Default: none."""
        return None

    def any_time_moves(self, state: State, seat) -> tuple:
        """Names of ``any_time`` moves ``seat`` may make now although no prompt asks for them
        (a Tactic "any time before Trade ends"). They join ``legal`` in the seat's view."""
        return ()

    def after_command(self, state: State) -> None:
        """React to what just happened (boardgame.io's ``onMove``): called after every command
        once the steps it queued have run, and again after each phase begins, before the
        phase's ``end_if`` is asked. Default: nothing."""

    def on_timer(self, state: State, name: str) -> None:
        """A timer reached zero. Default: nothing more than the notice."""

    def standings(self, state: State) -> dict | None:
        """The score of each seat as it stands (``{seat: score}``, higher is better), for a
        table that ends the game early; None if the game cannot tell (then it can only be
        abandoned)."""
        return None

    def summary(self, state: State) -> dict:
        """Per-seat facts stored with a finished session for `companion stats`
        (e.g. ``{"factions": {0: "USA"}}``)."""
        return {}


# -- the flow engine --------------------------------------------------------------------------

def new_state(game: Game, players, options=None, seed=0, now=0.0, lean=False) -> State:
    """The state after set-up. ``lean``: a simulation's state (no notices, no commitments;
    see :class:`~.session.LeanSession`)."""
    game.check_players(len(players))
    state = State(game, players, game.resolve_options(options), seed, lean=lean)
    state.now = now
    game.setup(state)
    enter(game, state, game.start_phase)
    advance(game, state)
    return state


def enter(game: Game, state: State, name: str) -> None:
    log, now = state.phase_log, state.now
    if log and log[-1][3] is None:
        log[-1][3] = now
    state.phase = name
    log.append([name, state.round, now, None])
    if not state.lean:
        state.note("PhaseBegan", phase=name, round=state.round)
    on_begin = game.phases[name].on_begin
    if on_begin is not None:
        on_begin(state)


_REACTS = {}


def _reacts(game) -> bool:
    """Does the game's class have an ``after_command`` of its own (else nothing to call)?"""
    t = type(game)
    got = _REACTS.get(t)
    if got is None:
        got = _REACTS[t] = getattr(t, "after_command", None) is not Game.after_command
    return got


def settle(game: Game, state: State) -> None:
    """Let the flow settle without ending the phase: run the pending steps, let the game react
    (``after_command``) and derive the prompts (the phase's ``prompts``; an open question of a
    pending step takes the place of them)."""
    flow = state.flow
    if flow.lanes:
        run_steps(game, state)
        if state.outcome is not None:
            return
    reacts = _REACTS.get(type(game))
    if reacts is None:
        reacts = _reacts(game)
    if reacts:
        game.after_command(state)
        if state.outcome is not None:
            return
    ph = game.phases[state.phase]
    if ph.prompts is not None:
        state.prompts = flow.prompts() if flow.asks else ph.prompts(state)


def advance(game: Game, state: State) -> None:
    """Settle the flow (:func:`settle`), and while no step is pending and the phase's
    ``end_if`` says so, end the phase and enter the next one (and settle again)."""
    lanes = state.flow.lanes            # (changed in place, never replaced)
    reacts = _REACTS.get(type(game))
    if reacts is None:
        reacts = _reacts(game)
    phases = game.phases
    for _ in range(10_000):
        # settle, unless it has nothing to do (no step pending, no after-command hook, no
        # derived prompts): the usual case after most moves of most games
        if state.outcome is None and (lanes or reacts or
                                      phases[state.phase].prompts is not None):
            settle(game, state)
        if state.outcome is not None:
            if state.phase_log and state.phase_log[-1][3] is None:
                state.phase_log[-1][3] = state.now
            return
        if lanes:
            return
        ph = phases[state.phase]
        end_if = ph.end_if
        if (state.prompts if end_if is _nobody_to_prompt else not end_if(state)):
            return
        if ph.on_end is not None:
            ph.on_end(state)
        if state.outcome is not None:
            continue
        nxt = ph.next(state) if callable(ph.next) else ph.next
        enter(game, state, nxt)
    raise RuntimeError(f"{game.title}: the phases loop without waiting for anyone")


def seat_name(state: State, seat) -> str:
    return "The table" if seat is None else state.players[seat]


def apply(game: Game, state: State, rec: dict) -> None:
    """Apply one command record (as stored in the log) to the state.

    Kinds: ``move`` (seat, move, args, salt), ``close`` (window), ``timer`` (name: it ran
    out), ``warn`` (name: its warning was given),
    ``pause``/``resume`` (timer), ``correct`` (seat, counter, delta, reason), ``rename``
    (seat, name), ``end`` (the table ends the game early with the scores as they stand).
    """
    kind = rec["kind"]
    if kind == "move":
        apply_move(game, state, rec["seat"], rec["move"], rec.get("args") or {},
                   rec.get("salt"), rec.get("at"))
        return
    state.notices = []
    state.now = rec.get("at", state.now)
    if state.outcome is not None and kind != "correct":
        raise IllegalMoveError("The game is over.")
    if kind == "close":
        close_window(game, state, state.window(rec["window"]))
    elif kind == "timer":
        name = rec["timer"]
        t = state.timers.get(name)
        if t is None or t.deadline is None or t.deadline > state.now + 1e-9:
            raise IllegalMoveError(f"The {name} timer has not run out.")
        del state.timers[name]
        state.note("TimerExpired", timer=name)
        game.on_timer(state, name)
    elif kind == "warn":
        name = rec["timer"]
        t = state.timers.get(name)
        if t is None or t.deadline is None or t.warned or t.warn_before <= 0:
            raise IllegalMoveError(f"The {name} timer has no warning to give now.")
        t.warned = True
        state.note("TimerWarning", timer=name, left=round(t.left(state.now), 3))
    elif kind == "pause":
        state.pause_timer(rec["timer"])
    elif kind == "resume":
        state.resume_timer(rec["timer"])
    elif kind == "correct":
        _correct(game, state, rec["seat"], rec["counter"], rec["delta"], rec.get("reason", ""))
    elif kind == "rename":
        seat = rec["seat"]
        if not isinstance(seat, int) or not 0 <= seat < state.n:
            raise IllegalMoveError(f"There is no seat {seat!r} at this table (seats are "
                                   f"numbered from 0 to {state.n - 1}).")
        old, state.players[seat] = state.players[seat], rec["name"]
        state.note("SeatRenamed", seat=seat, old=old, name=rec["name"])
    elif kind == "end":
        end_early(game, state)
    else:
        raise IllegalMoveError(f"Unknown command kind {kind!r}.")
    advance(game, state)
    state.seq += 1


def apply_move(game: Game, state: State, seat, name: str, args: dict, salt=None,
               at=None) -> None:
    """Apply one ``move`` command: what :func:`apply` does with ``{"kind": "move", ...}``,
    without the record (a simulation's :class:`~.session.LeanSession` calls it for each of its
    commands, most of a game's work)."""
    if not state.lean:          # (a lean state's notices stay the empty list: nobody keeps one)
        state.notices = []
    if at is not None:
        state.now = at
    if state.outcome is not None:
        raise IllegalMoveError("The game is over.")
    # -- the checks every move passes, then the move (one function: it runs for every command)
    move = game.moves.get(name)
    if move is None:
        raise UnknownMoveError(f"{game.title} has no move called {name!r}.")
    sealed = move.sealed
    if move.table:
        if seat is not None:
            raise NotYourTurnError(f"Only the table can {name.replace('_', ' ')}.")
    else:
        if not isinstance(seat, int) or not 0 <= seat < state.n:
            raise NotYourTurnError(f"There is no seat {seat!r} at this table (seats are "
                                   f"numbered from 0 to {state.n - 1}).")
        if not move.any_time:
            p = state.prompts.get(seat)
            if p is None and sealed is not None:
                w = state.windows.get(sealed(state, seat))
                if w is not None and w.has_locked(seat):
                    w.seal(seat, None, "0" * 32, state.players[seat])   # "already locked in"
            if p is None or name not in p["moves"]:
                raise NotYourTurnError(f"{state.players[seat]} cannot "
                                       f"{name.replace('_', ' ')} now.")
    if not isinstance(args, dict):
        raise BadArgumentsError("A move's arguments must be a JSON object.")
    required, allowed, any_ = move.params
    if (args.keys() == required if required is allowed and not any_ else
            (not required.difference(args) and (any_ or allowed.issuperset(args)))):
        pass                                    # the usual case: the right names
    else:
        _check_arg_names(move, args)            # says what is wrong
    if sealed is None:
        move.fn(state, seat, **args)
    else:
        _seal_move(game, state, move, seat, args, salt)
    # -- advance(), unless its first look would return at once: the game goes on, no step is
    # pending, the game has no after_command, the phase derives no prompts and ends when
    # nobody is prompted, and somebody still is (most moves: one seat of several has acted)
    if (state.prompts and state.outcome is None and not state.flow.lanes
            and _REACTS.get(type(game)) is False):
        ph = game.phases[state.phase]
        if ph.end_if is not _nobody_to_prompt or ph.prompts is not None:
            advance(game, state)
    else:
        advance(game, state)
    state.seq += 1


def _seal_move(game, state, move, seat, args, salt):
    """A sealed move, its arguments checked: the choice locked into its window (revealed when
    it is complete)."""
    wid = move.sealed(state, seat)
    w = state.windows.get(wid) or state.window(wid)     # (state.window says what is missing)
    # Window.is_revealed / has_locked, read directly: every sealed choice passes here
    if w.revealed_flag or seat in w.entries or seat not in w.seats:
        w.seal(seat, None, "0" * 32, state.players[seat])    # the right SealedChoiceError
    choice = move.fn(state, seat, **args)
    if salt is None and state.lean:
        if w.revealed_flag or seat in w.entries or seat not in w.seats:   # Window.put, inline
            w.seal(seat, choice, "0" * 32)             # (the right error)
        w.entries[seat] = Entry(choice, "", "")
        digest = ""
    else:
        digest = w.seal(seat, choice, salt, state.players[seat])
    state.prompts.pop(seat, None)
    if not state.lean:
        state.note("ChoiceLocked", window=w.id, seat=seat, commitment=digest)
    if len(w.entries) == len(w.seats) and not w.hold:       # w.is_complete(), inline
        _reveal(game, state, w)


def _params(fn):
    """``(required, allowed, takes_any)`` argument names of a move function (frozensets)."""
    ps = list(inspect.signature(fn).parameters.values())[2:]     # after state, seat
    any_ = any(p.kind is p.VAR_KEYWORD for p in ps)
    named = [p for p in ps if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)]
    required = frozenset(p.name for p in named if p.default is p.empty)
    allowed = frozenset(p.name for p in named)
    # one object when they are equal (no optional argument): _apply_move then checks the
    # names with one comparison (``required is allowed``)
    return (required, required if allowed == required else allowed, any_)


def _check_arg_names(move, args):
    """Wrong or missing argument names, in a sentence (never Python's own words)."""
    required, allowed, any_ = move.params
    keys = args.keys()
    if required <= keys and (any_ or keys <= allowed):
        return                              # the usual case: nothing to say
    what = f"{move.title()} ({move.name})" if move.label else move.name.replace("_", " ")
    extra = sorted(keys - allowed) if not any_ else []
    if extra:
        takes = ", ".join(sorted(allowed)) or "nothing"
        raise BadArgumentsError(f"{what} does not take {', '.join(map(repr, extra))}; it "
                                f"takes {takes}.")
    missing = sorted(required - keys)
    if missing:
        raise BadArgumentsError(f"{what} needs {', '.join(missing)}: choose "
                                f"{'it' if len(missing) == 1 else 'them'} first.")


def close_window(game: Game, state: State, w) -> None:
    """Close a sealed window before everyone is in (the table's call, or a game's timer in
    ``on_timer``): seats that have not locked in get the window's default; then all reveal."""
    if w.is_revealed():
        raise IllegalMoveError(f"{w.label or w.id} is already revealed.")
    missing = w.waiting_on()
    w.fill_defaults()
    for s in missing:
        state.clear_prompt(s)
    state.note("WindowClosed", window=w.id, defaulted=missing)
    _reveal(game, state, w)


def _reveal(game, state, w):
    w.reveal()
    state.last_reveal_seq = state.seq + 1
    if not state.lean:                  # a lean state keeps no notices: not built for nobody
        state.note("ChoicesRevealed", window=w.id, choices={
            str(s): {"choice": e.choice, "salt": e.salt, "commitment": e.commitment,
                     "defaulted": e.defaulted} for s, e in w.entries.items()})
    w.on_reveal(state, w)


def end_early(game, state):
    """The table ends the game now: the best standing wins (ties share the win)."""
    scores = game.standings(state)
    if not scores:
        raise IllegalMoveError(f"{game.title} cannot score a game that is not finished; "
                               f"abandon it instead.")
    top = max(scores.values())
    state.finish([s for s in sorted(scores) if scores[s] == top],
                 "The table ended the game early; the scores as they stood.",
                 scores, code="ended_early")


def _correct(game, state, seat, counter, delta, reason):
    if counter not in game.counters:
        raise IllegalMoveError(f"{game.title} has no counter {counter!r} to correct. "
                               f"Counters: {', '.join(game.counters)}.")
    if seat is not None and (not isinstance(seat, int) or not 0 <= seat < state.n):
        raise IllegalMoveError(f"There is no seat {seat!r} at this table.")
    if not is_whole(delta) or delta == 0:
        raise IllegalMoveError("A correction needs a whole, non-zero amount.")
    if not reason or not str(reason).strip():
        raise IllegalMoveError("A correction needs a reason, e.g. 'card misread'.")
    old = game.get_counter(state, seat, counter)
    if old + delta < 0:
        raise IllegalMoveError(f"{seat_name(state, seat)} has {old} {counter}; "
                               f"cannot take away {-delta}.")
    game.set_counter(state, seat, counter, old + delta)
    state.note("Corrected", seat=seat, counter=counter, delta=delta, reason=reason,
               value=old + delta)
