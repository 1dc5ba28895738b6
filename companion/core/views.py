"""Views are projections of the state, one public and one per seat.

The only place a sealed choice lives before its reveal is its :class:`~.sealed.Window`, and
:meth:`Window.view` shows a choice only to its owner until the reveal. Game modules build their
part of a view from ``state.data``, into which a sealed choice is copied only by the game's
``on_reveal``, so no projection but the owner's can hold an unrevealed choice.
"""


def _timers(state):
    return {t.name: {"duration": t.duration, "deadline": t.deadline, "paused": t.is_paused(),
                     "left": round(t.left(state.now), 3), "warn_before": t.warn_before,
                     "warned": t.warned}
            for t in state.timers.values()}


def _windows(state, viewer):
    ws = list(state.windows.values())
    shown = [w for w in ws if not w.is_revealed()]
    shown += [w for w in ws if w.is_revealed()][-2:]
    return [w.view(viewer) for w in shown]


def _outcome(state):
    o = state.outcome
    if o is None:
        return None
    return {"winners": o.winners, "reason": o.reason, "scores": {str(k): v for k, v in
                                                                 o.scores.items()},
            "tiebreak": o.tiebreak}


def legal(game, state, seat) -> list:
    """Every move ``seat`` (``None``: the table) may make now, each with what its arguments may
    be: ``[{"move", "label", "sealed", "args": [spec, ...]}]`` (see :mod:`.choices`). Drawn
    from the prompt's moves plus the game's :meth:`~.game.Game.any_time_moves`."""
    if state.outcome is not None:
        return []
    p = state.prompts.get(seat)
    names = list(p["moves"]) if p else []
    for name in game.any_time_moves(state, seat):
        if name not in names:
            names.append(name)
    out = []
    for name in names:
        m = game.moves.get(name)
        if m is None:
            continue
        out.append({"move": name, "label": m.title(), "sealed": m.sealed is not None,
                    "args": m.choices(state, seat) if m.choices is not None else []})
    return out


def public(game, state) -> dict:
    table_prompt = state.prompts.get(None)
    return {
        "v": 1, "game": game.name, "title": game.title, "players": state.players,
        "phase": state.phase, "phase_label": game.phases[state.phase].label or state.phase,
        "round": state.round, "seq": state.seq, "now": state.now,
        "waiting": sorted(s for s in state.prompts if s is not None),
        "table_prompt": dict(table_prompt) if table_prompt else None,
        "table_legal": legal(game, state, None),
        "timers": _timers(state), "windows": _windows(state, None),
        "outcome": _outcome(state),
        "notices": [n for n in state.notices if "to" not in n],
        "game_view": game.public_view(state),
    }


def seat(game, state, seat_no: int, public_view=None) -> dict:
    """The seat's view. Pass the state's ``public_view`` to build several seat views from one
    public projection (it is shallow-copied, never changed)."""
    view = dict(public_view) if public_view is not None else public(game, state)
    view["seat"] = seat_no
    view["windows"] = _windows(state, seat_no)
    view["notices"] = [n for n in state.notices if n.get("to", seat_no) == seat_no]
    p = state.prompts.get(seat_no)
    view["prompt"] = dict(p) if p else None
    view["legal"] = legal(game, state, seat_no)
    view["private"] = game.seat_view(state, seat_no)
    return view


class Observation:
    """What one seat (``None``: the table) may know now, as OpenSpiel hands an agent its
    observation: bots decide from this, never from the state. It gives the seat's prompt, its
    ``legal`` moves and its whole view (:func:`seat`, or the public view for the table), each
    built when first read; a game subclasses it (``Game.observation``) with cheap accessors
    for what its bots read: public facts and the seat's own, nothing else.

    Everything it returns is read-only by convention: a bot never changes what it is shown."""

    __slots__ = ("game", "_state", "seat", "_view", "_legal")

    def __init__(self, game, state, seat):
        self.game, self._state, self.seat = game, state, seat
        self._view = self._legal = None

    @property
    def prompt(self):
        """What the seat is asked (``{"moves": (...), ...}``), or None."""
        return self._state.prompts.get(self.seat)

    @property
    def players(self):
        return self._state.players

    @property
    def n(self):
        return self._state.n

    @property
    def options(self):
        """The table's options (public: everyone agreed on them)."""
        return self._state.config

    @property
    def phase(self):
        return self._state.phase

    @property
    def round(self):
        return self._state.round

    @property
    def legal(self):
        if self._legal is None:
            self._legal = legal(self.game, self._state, self.seat)
        return self._legal

    @property
    def view(self):
        """The seat's view as its phone gets it (the public view for the table)."""
        if self._view is None:
            self._view = public(self.game, self._state) if self.seat is None else \
                seat(self.game, self._state, self.seat)
        return self._view


def observe(game, state, seat):
    """The observation of ``seat`` (None: the table) that bots decide from."""
    return game.observe(state, seat)
