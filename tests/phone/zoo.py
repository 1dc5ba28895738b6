"""A small real game whose moves use every kind of argument spec (protocol section 4.7), for
the phone page's picker tests: the real games carry specs too, but only this one has every
kind, ``when`` on a spec and on options, ``optional``, ``default`` and ``disabled`` in one
place.

Each round every seat may, in any order: place a card on a partner's slot (one, one, one with
options that depend on the partner, a flag, an optional note), rank three of four routes
(order), pick one or two goods (subset), split a draw of three between piles (counts), and
then pass. When everyone has passed, a sealed bid (number) closes the round. Two rounds.
Every accepted move is kept in ``state.data["got"]`` so a test sees exactly what the phone
sent; each move checks its arguments against its own specs (``choices.check``).
"""
from companion.core import choices
from companion.core.choices import option
from companion.core.game import Game, Move, Option, Phase, close_window

CARDS = [option("influencer-merch", "Influencer Merch", "cost 3 · +4 GDP"),
         option("solar-panels", "Solar Panels", "cost 2 · +2 GDP"),
         option("vinyl-records", "Vinyl Records", "cost 9 · +7 GDP",
                disabled="You have 5 GDP; it costs 9.")]
PARTNERS = [option("crypto-isle", "Crypto Isle"), option("maple", "Maple Dominion")]
SLOTS = [option(1, "Slot 1", when={"partner": ["crypto-isle"]}),
         option(2, "Slot 2", when={"partner": ["crypto-isle", "maple"]})]
ROUTES = [option(r, r.title()) for r in ("north", "south", "east", "west")]
GOODS = [option("wheat", "Wheat", "worth 1"), option("wool", "Wool", "worth 2"),
         option("ore", "Ore", "worth 3")]
PILES = [option("export", "Export pile", "12 left", max=2),
         option("tactic", "Tactic pile", "8 left", max=2),
         option("policy", "Policy pile", "none left", max=0, disabled="The pile is empty.")]


def place_specs(state, seat):
    return [choices.one("card", CARDS, "Which Export?"),
            choices.one("partner", PARTNERS, "Trade Partner"),
            choices.one("slot", SLOTS, "Slot"),
            choices.number("boost", 0, 3, "Boost", when={"card": ["influencer-merch"]}),
            choices.flag("rush", "Rush it", default=False),
            choices.text("note", "A note for the table", max_len=40, optional=True)]


class Zoo(Game):
    name = "zoo"
    title = "Spec Zoo"
    min_players = 2
    max_players = 4
    start_phase = "build"
    options = (Option("seconds", 0, "a timer on the bid (0: none); when it runs out, seats "
                                    "still out bid 0"),)

    def __init__(self):
        self.phases = {
            "build": Phase("build", "vote", on_begin=self._begin_build, label="Build"),
            "vote": Phase("vote", self._after_vote, on_begin=self._begin_vote, label="Vote"),
        }
        self.moves = {m.name: m for m in (
            Move("place", self._record("place"), "Placed", label="Place an Export",
                 choices=place_specs),
            Move("rank", self._record("rank"), "Ranked", label="Rank routes",
                 choices=lambda s, seat: [choices.order("routes", ROUTES, 2, 3,
                                                        "Routes, best first")]),
            Move("pick", self._record("pick"), "Picked", label="Pick goods",
                 choices=lambda s, seat: [choices.subset("goods", GOODS, 1, 2, "Goods")]),
            Move("draw", self._record("draw"), "Drew", label="Draw cards",
                 choices=lambda s, seat: [choices.counts("split", PILES, "From which piles",
                                                         total=3)]),
            Move("pass_turn", self._pass, "Passed", label="I'm done"),
            Move("cheer", self._cheer, "Cheered", any_time=True, label="Cheer",
                 choices=lambda s, seat: [choices.one("who", choices.seat_options(
                     s, [x for x in s.seats() if x != seat]), "Cheer for")]),
            Move("bid", self._bid, "BidSealed", sealed=lambda s, seat: f"bid-{s.round}",
                 label="Bid", choices=lambda s, seat: [choices.number("n", 0, 12, "Your bid",
                                                                      default=2)]),
        )}

    def any_time_moves(self, state, seat):
        return ("cheer",) if seat is not None and state.phase == "build" else ()

    def setup(self, state):
        state.data = {"got": [], "bids": []}

    def _begin_build(self, state):
        if state.outcome is not None:
            return
        state.round += 1
        for s in state.seats():
            state.prompt(s, ("place", "rank", "pick", "draw", "pass_turn"))

    def _begin_vote(self, state):
        w = state.open_window(f"bid-{state.round}", "number", list(state.seats()), self._revealed,
                              default=0, label=f"Bid {state.round}")
        for s in w.seats:
            state.prompt(s, ("bid",), window=w.id)
        if state.config["seconds"]:
            state.start_timer("bid", state.config["seconds"], warn_before=0)

    def on_timer(self, state, name):
        close_window(self, state, state.windows[f"bid-{state.round}"])

    def _after_vote(self, state):
        if state.round >= 2:
            totals = {s: sum(b.get(str(s), 0) for b in state.data["bids"]) for s in state.seats()}
            top = max(totals.values())
            state.finish([s for s in totals if totals[s] == top], "highest bids", totals)
        return "build"

    def _record(self, name):
        def fn(state, seat, **args):
            choices.check(self.moves[name].choices(state, seat), args)
            state.data["got"].append({"seat": seat, "move": name, "args": args})
        return fn

    def _cheer(self, state, seat, **args):
        """Recorded like the others, and said in words (``says``): in public, and to the
        player cheered for in the second person, as a game announces an effect and tells its
        target (Great Powers' ActionResolved and ActionAgainstYou)."""
        self._record("cheer")(state, seat, **args)
        who, me = state.players[args["who"]], state.players[seat]
        state.note("CheeredFor", seat=seat, who=args["who"], says=f"{me} cheered for {who}.")
        state.note("CheeredForYou", to=args["who"], seat=seat, says=f"{me} cheered for you.")

    def _pass(self, state, seat):
        state.clear_prompt(seat)

    def _bid(self, state, seat, **args):
        choices.check(self.moves["bid"].choices(state, seat), args)
        return args["n"]

    def _revealed(self, state, w):
        if "bid" in state.timers:
            state.stop_timer("bid")
        state.data["bids"].append({str(k): v for k, v in w.revealed().items()})

    def public_view(self, state):
        return {"points": [sum(b.get(str(s), 0) for b in state.data["bids"])
                           for s in state.seats()]}

    def seat_view(self, state, seat):
        return {"moves made": sum(1 for g in state.data["got"] if g["seat"] == seat)}


ZOO = Zoo()


def games(name):
    """The table's game registry with the zoo added."""
    if name == "zoo":
        return ZOO
    from companion.games import get
    return get(name)
