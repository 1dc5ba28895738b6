"""Pending steps: what the flow still has to resolve, in order, pausing to ask one seat (or the
table) and resuming with the answer.

A *step* is a plain dict naming its kind, ``{"step": "bonus", "seat": 2, ...}``, so a state
with steps in flight folds and fingerprints like the rest. The game lists what each kind does in
``Game.steps`` (``{"bonus": self._bonus_step}``: a table, never a name built from strings). A
step function ``fn(state, step)`` does its work and returns None (done: the next step runs), or
returns :meth:`Flow.ask` (it waits: nothing after it runs until the answer comes). The answer is
a move: it finds the waiting step with :meth:`Flow.waiting_step`, validates its arguments, puts
what it decided into the step and calls :meth:`Flow.resume`; the step then runs again and
finishes with what it was told.

Steps live in *lanes*. Most games need one (``MAIN``); a game with independent things in
flight at once (Battle Builder's battles) gives each its own lane, so one battle waiting for an
extra attack never holds up another.

The core drains the lanes whenever the flow settles (after every command, and after each phase
begins); a phase cannot end while any step is pending. See docs/core-api.md, "The flow".

>>> f = Flow()
>>> f.push([{"step": "a"}, {"step": "b"}])
>>> f.push([{"step": "a2"}], front=True)      # right after the running step
>>> [s["step"] for s in f.steps()]
['a', 'a2', 'b']
"""
from .errors import IllegalMoveError

#: What a step returns when it waits for an answer (:meth:`Flow.ask` returns it).
ASK = "ask"
MAIN = "main"


class Flow:
    """The pending steps of one state and the questions they wait on."""
    __slots__ = ("lanes", "asks")

    def __init__(self):
        self.lanes = {}             # lane -> [step, ...]; the head is the running one
        self.asks = {}              # lane -> question: {"seat", "moves", **info}

    # -- questions ------------------------------------------------------------------------------
    def busy(self) -> bool:
        """Is any step pending (running, waiting for an answer, or queued)?"""
        return bool(self.lanes)

    def steps(self, lane=MAIN) -> list:
        return self.lanes.get(lane, [])

    def question(self, lane=MAIN):
        """The open question of ``lane`` (``{"seat", "moves", ...}``), or None."""
        return self.asks.get(lane)

    def questions(self) -> dict:
        return self.asks

    def prompts(self) -> dict:
        """The prompt of every open question, by seat."""
        return {q["seat"]: prompt_of(q) for q in self.asks.values()}

    # -- changes --------------------------------------------------------------------------------
    def push(self, steps, front=False, lane=MAIN):
        """Queue ``steps``: at the end of the lane, or (``front``) right after the running step,
        so they resolve before anything queued earlier."""
        if not steps:
            return
        q = self.lanes.get(lane)
        if q is None:
            self.lanes[lane] = list(steps)
        elif front:
            q[1:1] = steps
        else:
            q.extend(steps)

    def drop(self, lane=MAIN, keep=None):
        """Forget the lane's pending steps (all, or all but those ``keep(step)`` is true for)
        and its question."""
        q = self.lanes.get(lane)
        if q is None:
            return
        q[:] = [s for s in q if keep(s)] if keep is not None else []
        if not q:
            del self.lanes[lane]
        self.asks.pop(lane, None)

    def waiting_step(self, seat, move, refusal=None):
        """The step waiting for ``seat``'s ``move``; ``refusal`` (a sentence) if none is."""
        for lane, q in self.asks.items():
            if q["seat"] == seat and move in q["moves"]:
                return self.lanes[lane][0]
        raise IllegalMoveError(refusal or "There is nothing for you to decide now.")

    def lane_of(self, step):
        for lane, q in self.lanes.items():
            if q and q[0] is step:
                return lane
        raise IllegalMoveError("That step is not waiting for anything.")


def prompt_of(q) -> dict:
    p = dict(q)
    del p["seat"]
    return p


def ask(state, seat, moves, lane=MAIN, **info):
    """Pause the running step of ``lane``: ``seat`` (None: the table) is prompted with
    ``moves`` and ``info``. Returns :data:`ASK` for the step to return."""
    q = {"seat": seat, "moves": tuple(moves), **info}
    state.flow.asks[lane] = q
    state.prompts[seat] = prompt_of(q)
    return ASK


def resume(state, step):
    """The answer is in ``step``: its question closes and the step runs again when the flow
    settles."""
    lane = state.flow.lane_of(step)
    q = state.flow.asks.pop(lane, None)
    if q is not None:
        state.prompts.pop(q["seat"], None)


def run(game, state) -> None:
    """Run pending steps until every lane is empty or waits for an answer (or the game ends)."""
    flow = state.flow
    lanes, asks, steps = flow.lanes, flow.asks, game.steps     # (changed in place, never replaced)
    progressed = True
    while progressed and state.outcome is None:
        progressed = False
        for lane in list(lanes):
            q = lanes.get(lane)
            while q and lane not in asks and state.outcome is None:
                step = q[0]
                fn = steps.get(step["step"])
                if fn is None:
                    raise RuntimeError(f"{game.title} has no step {step['step']!r}")
                if fn(state, step) is ASK or lane in asks:
                    break
                progressed = True
                if q and q[0] is step:          # the usual case: it is still at the head
                    del q[0]
                    continue
                for i, x in enumerate(q):       # the step changed its lane (drop): find it
                    if x is step:
                        del q[i]
                        break
            if not q and lanes.get(lane) is q:
                del lanes[lane]
