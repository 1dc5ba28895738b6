"""A tiny real game for testing the core's flow: each round every seat seals a number in a
sealed window while a 60 s timer runs; when it runs out the table closes the window; the
highest number scores a point. Three rounds."""
from companion.core import choices
from companion.core.errors import IllegalMoveError
from companion.core.game import Game, Move, Option, Phase


class Toy(Game):
    name = "toy"
    title = "Toy"
    min_players = 2
    max_players = 4
    start_phase = "bid"
    counters = ("points",)
    options = (Option("rounds", 3, "rounds"), Option("limit", 9, "highest bid"))

    def __init__(self):
        self.phases = {"bid": Phase("bid", self._next, on_begin=self._begin, label="Bid")}
        self.moves = {
            "bid": Move("bid", self._bid, "NumberSealed", sealed=lambda s, seat: f"r{s.round}",
                        label="Bid",
                        choices=lambda s, seat: [choices.number("n", 0, s.config["limit"],
                                                                "Your bid")]),
            "shout": Move("shout", self._shout, "Shouted", any_time=True),
            "whisper": Move("whisper", self._whisper, "Whispered", any_time=True, private=True),
            "hide": Move("hide", self._hide, "CardHidden", any_time=True,
                         sealed=self._hide_window),
        }
        self.bots = {"random": lambda g, s, seat, rng: ("bid", {"n": rng.randint(0, 9)})}

    def setup(self, state):
        state.data = {"points": [0] * state.n, "last": None, "shouts": 0}

    def _begin(self, state):
        state.round += 1
        w = state.open_window(f"r{state.round}", "number", list(state.seats()), self._revealed,
                              default=0, label=f"Round {state.round}")
        for s in w.seats:
            state.prompt(s, ("bid",))
        state.start_timer("bid", 60, warn_before=30)

    def _next(self, state):
        if state.round >= state.config["rounds"]:
            pts = state.data["points"]
            top = max(pts)
            state.finish([s for s in state.seats() if pts[s] == top], "most points",
                         dict(enumerate(pts)))
        return "bid"

    def standings(self, state):
        return dict(enumerate(state.data["points"]))

    def _bid(self, state, seat, n):
        if not isinstance(n, int) or not 0 <= n <= state.config["limit"]:
            raise IllegalMoveError(f"Bid a whole number from 0 to {state.config['limit']}.")
        return n

    def _whisper(self, state, seat, words):
        state.data.setdefault("whispers", {})[str(seat)] = words

    def _hide_window(self, state, seat):
        wid = f"hidden-{seat}-{state.data.get('hidden', 0)}"
        if wid not in state.windows:
            state.open_window(wid, "hidden", (seat,), self._unhidden, hold=True)
        return wid

    def _hide(self, state, seat, card):
        state.data["hidden"] = state.data.get("hidden", 0) + 1
        return card

    def _unhidden(self, state, w):
        state.data.setdefault("shown", []).extend(w.revealed().values())

    def _shout(self, state, seat):
        state.data["shouts"] += 1

    def on_timer(self, state, name):
        from companion.core.game import close_window
        close_window(self, state, state.windows[f"r{state.round}"])

    def _revealed(self, state, w):
        state.stop_timer("bid")
        bids = w.revealed()
        top = max(bids.values())
        for s, b in bids.items():
            if b == top:
                state.data["points"][s] += 1
        state.data["last"] = {str(k): v for k, v in bids.items()}

    def public_view(self, state):
        return {"points": list(state.data["points"]), "last": state.data["last"]}

    def get_counter(self, state, seat, counter):
        return state.data["points"][seat]

    def set_counter(self, state, seat, counter, value):
        state.data["points"][seat] = value
