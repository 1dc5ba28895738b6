"""A tiny real game whose table answers questions of every argument kind (docs/protocol.md
4.7), for the table screen's pickers: each round the table ``settles`` with a card (one), a
number, an order of players, a subset of players, a split of 5 tokens (counts), a flag, and a
bonus that is asked only for the card "gold" (a dependent ``when``). Then a 30 s timer runs
with nobody prompted but the table, which may ``ring`` the bell (a move with no questions)."""
from companion.core import choices as C
from companion.core.errors import IllegalMoveError
from companion.core.game import Game, Move, Phase

CARDS = [("gold", "Gold coin", "worth 3"), ("iron", "Iron bar", "worth 1"),
         ("salt", "Salt", "worth 2")]


class Quiz(Game):
    name = "quiz"
    title = "Quiz"
    min_players = 2
    max_players = 4
    start_phase = "settle"
    counters = ("points",)

    def __init__(self):
        self.phases = {
            "settle": Phase("settle", "wait", on_begin=self._ask, label="Settle"),
            "wait": Phase("wait", self._after_wait, on_begin=self._wait, label="Wait",
                          end_if=lambda s: "wait" not in s.timers),
        }
        self.moves = {
            "settle": Move("settle", self._settle, "Settled", table=True,
                           label="Settle the round", choices=self._settle_choices),
            "ring": Move("ring", self._ring, "BellRung", table=True, label="Ring the bell"),
        }
        self.bots = {}

    def setup(self, state):
        state.data = {"points": [0] * state.n, "answers": [], "rings": 0}

    def public_view(self, state):
        return {"points": list(state.data["points"]), "answers": list(state.data["answers"]),
                "rings": state.data["rings"]}

    def standings(self, state):
        return dict(enumerate(state.data["points"]))

    def get_counter(self, state, seat, counter):
        return state.data["points"][seat]

    def set_counter(self, state, seat, counter, value):
        state.data["points"][seat] = value

    # -- the flow ---------------------------------------------------------------------------------
    def _ask(self, state):
        state.round += 1
        state.prompt(None, ("settle",), next="settle",
                     text="The table answers every question, by taps only.")

    def _wait(self, state):
        state.start_timer("wait", 30, warn_before=10)
        state.prompt(None, ("ring",), next="ring")

    def _after_wait(self, state):
        if state.round >= 3:
            pts = state.data["points"]
            top = max(pts)
            state.finish([s for s in state.seats() if pts[s] == top], "most points",
                         dict(enumerate(pts)))
        return "settle"

    def on_timer(self, state, name):
        state.clear_prompt(None)

    def _settle_choices(self, state, seat):
        players = C.seat_options(state, state.seats())
        return [
            C.one("card", [C.option(v, label, detail) for v, label, detail in CARDS],
                  "Which card?"),
            C.number("bonus", 1, 3, "Gold bonus", when={"card": ["gold"]}),
            C.number("steps", -2, 4, "How many steps?"),
            C.order("order", players, 2, 2, "Who goes first, then second?"),
            C.subset("winners", players, 1, state.n, "Who scores?"),
            C.counts("split", [C.option(s, state.players[s], max=3) for s in state.seats()],
                     "Share 5 tokens", total=5),
            C.flag("double", "Double it?", default=False),
        ]

    def _settle(self, state, seat, **args):
        C.check(self._settle_choices(state, seat), args)
        worth = {"gold": 3, "iron": 1, "salt": 2}[args["card"]] + args.get("bonus", 0)
        for s in args["winners"]:
            state.data["points"][s] += worth * (2 if args["double"] else 1)
        state.data["answers"].append(args)
        state.clear_prompt(None)

    def _ring(self, state, seat):
        if "wait" not in state.timers:
            raise IllegalMoveError("The bell rings only while the timer runs.")
        state.data["rings"] += 1
        state.stop_timer("wait")
        state.clear_prompt(None)
