"""Market Trading: each player builds an economy on a random terrain board; the common market
is where they meet. The first to empty a 30-token point bowl wins.

Rules: shared/rules/market-trading.md. Rulings (docs/market-trading.md) where the rulebook is
vague, the configurable ones as options:

* Turns go clockwise from seat 0 (``first_player=random`` draws the start player from the seed).
* A turn is six steps, each its own phase with its own prompt: Harvest (automatic), Trade and
  improve (``trade``/``improve``/``end_step``), Build (``build``/``skip_build``), Trade and
  improve again, Forage (``forage``/``skip_forage``), Donation (automatic). A step in which the
  active player can do nothing at all is passed automatically (a trade step with an empty hand,
  a build step with no affordable improvement).
* Trades are with the central market only (the rulebook names no player-to-player trade, and
  nobody holds resources outside their own turn). A trade gives at least one resource and takes
  at least one, never the same resource both ways; the base values taken must not exceed the
  base values given; a given resource may not push its market above four copies.
* Each improvement you own may be used once per trade step (``improve_limit``).
* Forage takes its two resources from the general supply (``forage_source=hand``: from the
  resources you hold).
* Build costs go to the bank (``build_payment=market``: into the market, flooding rules apply).
* The game ends the moment a bowl is empty (``end=equal-turns``: the round is finished so that
  everyone has had as many turns; every emptied bowl then shares the win, ties broken by the
  most points beyond the bowl).
"""
import dataclasses
import functools
from collections import Counter
from itertools import compress

from companion.core.args import is_whole
from companion.core.datadir import DataBacked
from companion.core.errors import IllegalMoveError
from companion.core.game import Game, Move, Option, Phase, pop_rules_version

from . import choices as ch
from .data import DATA, default_rules


@dataclasses.dataclass
class MTData:
    board: list                     # per seat: terrain name per tile (row-major)
    yields: list                    # per seat: the T1 resource of each tile
    tiles_of: list                  # per seat: {terrain: [tiles]} (a lookup table)
    piles: list                     # per seat: resources on each tile
    bowl: list                      # tokens left in each bowl
    earned: list                    # points taken, including any beyond the bowl
    built: list                     # per seat: improvement ids, in build order
    deck: list                      # the improvements deck (order hidden)
    face_up: list
    market: dict
    bank: dict                      # copies that went to the bank (flooded markets, builds)
    first: int
    active: int = -1
    hand: dict = dataclasses.field(default_factory=dict)
    used: list = dataclasses.field(default_factory=list)        # indices into built[active]
    built_now: str | None = None
    turn_trades: int = 0
    turns: int = 0
    idle_rounds: int = 0                                        # whole rounds without a point
    stalled: bool = False
    emptied: list = dataclasses.field(default_factory=list)
    last: dict = dataclasses.field(default_factory=dict)         # what this turn did
    vp_curve: list = dataclasses.field(default_factory=list)     # points per seat, per round
    stats: dict = dataclasses.field(default_factory=dict)


def _amounts(value, what, names):
    if not isinstance(value, dict) or not value:
        raise IllegalMoveError(f"{what} is a table of resources and amounts, e.g. "
                               f'{{"wood": 2}}, not {value!r}.')
    for k, v in value.items():
        if k not in names:
            raise IllegalMoveError(f"{k!r} is not a resource. Resources: {', '.join(names)}.")
        if not is_whole(v) or v <= 0:
            raise IllegalMoveError(f"{what}: the amount of {names[k]} must be a positive "
                                   f"whole number, not {v!r}.")
    return value


RULES_VERSION = 2
# the options of a session logged under rules version 1 (before issue 12's fix: a trade step was
# passed when no trade giving a single copy was possible, even if one giving several was)
V1_OPTIONS = frozenset(("improve_limit", "forage_source", "build_payment", "end",
                        "first_player"))             # (pass_empty_steps came with version 2)


class MarketTrading(DataBacked, Game):
    name = "market-trading"
    title = "Market Trading"
    min_players = 2
    max_players = 6
    start_phase = "harvest"
    counters = ("bowl",)
    shipped_data = DATA
    options = (
        Option("improve_limit", "once-per-step", "How often each improvement you own may be "
               "used: once in each trade step, once per turn, or without limit.",
               ("once-per-step", "once-per-turn", "unlimited")),
        Option("forage_source", "supply", "Forage takes its two resources from the supply, "
               "or from the resources you hold.", ("supply", "hand")),
        Option("build_payment", "bank", "Where the resources paid to build go.",
               ("bank", "market")),
        Option("end", "immediate", "The first empty bowl wins at once, or the round is "
               "finished for equal turns.", ("immediate", "equal-turns")),
        Option("first_player", "seat-1", "Who starts: the first seat, or drawn from the seed.",
               ("seat-1", "random")),
        Option("pass_empty_steps", True, "Pass a step in which the active player can do "
               "nothing without asking (off: every trade, build and forage step waits for "
               "the player, who sees why nothing can be done)."),
    )

    def resolve_options(self, given):
        """The options, plus ``rules``: the rules version the session is played under (a stored
        log keeps it; one recorded before version 2 has exactly the version-1 options, and
        replays under them); and ``data`` (:class:`DataBacked`)."""
        given = dict(given or {})
        version = pop_rules_version(given, V1_OPTIONS, RULES_VERSION)
        out = super().resolve_options(given)
        out["rules"] = version
        return out

    def __init__(self, rules=None, data_dir=None):
        self.rules = r = rules or default_rules()
        self.data_dir = data_dir            # an edited copy of data/ (None: the shipped files)
        self.names = {k: v.name for k, v in r.resources.items()}
        self.value = {k: v.value for k, v in r.resources.items()}
        self.first_value = {k: v.first for k, v in r.resources.items()}
        self.order = list(r.resources)
        self.converts = {k: (dict(i.convert_in), dict(i.convert_out))
                         for k, i in r.improvements.items() if i.convert_in}
        self.costs = {k: tuple(i.cost) for k, i in r.improvements.items()}
        self.converters = frozenset(self.converts)
        self.cost_kinds = {k: frozenset(dict(c)) for k, c in self.costs.items()}
        # usable() asks it of each trade step's player several times, mostly with the same
        # improvements built: cached by the build list (a tuple)
        self._first_converters = functools.lru_cache(maxsize=4096)(self._converters_in)
        self.on_forage = {k: i.on_forage for k, i in r.improvements.items()
                         if i.on_forage is not None}
        self.tiles = range(r.rows * r.cols)
        # what running each converting improvement gains, in base values (the bots' measure)
        self.profit = {k: sum(self.value[x] * n for x, n in cout.items()) -
                       sum(self.value[x] * n for x, n in cin.items())
                       for k, (cin, cout) in self.converts.items()}
        self.phases = {p.name: p for p in (
            Phase("harvest", "trade", on_begin=self._begin_turn, label="Harvest"),
            Phase("trade", "build", on_begin=self._begin_trade, label="Trade and improve"),
            Phase("build", "trade_again", on_begin=self._begin_build, label="Build"),
            Phase("trade_again", "forage", on_begin=self._begin_trade,
                  label="Trade and improve again"),
            Phase("forage", "donate", on_begin=self._begin_forage, label="Forage"),
            Phase("donate", "harvest", on_begin=self._donate, label="Donation"),
        )}

        def spec(fn):
            return lambda state, seat: fn(self, state, seat)

        self.moves = {m.name: m for m in (
            Move("trade", self._trade, "Traded",
                 doc="give: {resource: n} from your hand; take: {resource: n} from the market",
                 label="Trade", choices=spec(ch.trade)),
            Move("improve", self._improve, "Improved", doc="improvement: an id you own",
                 label="Improve", choices=spec(ch.improve)),
            Move("end_step", self._end_step, "StepEnded", label="Done with this step"),
            Move("build", self._build, "Built", doc="improvement: a face-up id",
                 label="Build", choices=spec(ch.build)),
            Move("skip_build", self._skip, "BuildSkipped", label="Don't build"),
            Move("forage", self._forage, "Foraged",
                 doc="tile: a tile number (row-major from 0) or [row, col]",
                 label="Forage", choices=spec(ch.forage)),
            Move("skip_forage", self._skip, "ForageSkipped", label="Don't forage"),
        )}
        from .bots import BOTS, MTObservation
        self.bots = BOTS
        self.observation = MTObservation

    # == set-up ===================================================================================
    def setup(self, state):
        r = self.rules
        rng = state.rng
        tiles = r.rows * r.cols
        boards, yields, piles = [], [], []
        for _ in state.seats():
            board = rng.choices(r.terrains, weights=r.weights, k=tiles)
            pile = [0] * tiles
            for t in rng.sample(range(tiles), r.start_piles):
                pile[t] = r.start_pile_size
            boards.append(board)
            yields.append([r.t1_of[t] for t in board])
            piles.append(pile)
        deck = [i.id for i in r.improvements.values() for _ in range(i.copies)]
        rng.shuffle(deck)
        face_up = [deck.pop() for _ in range(min(r.face_up, len(deck)))]
        market = {k: r.market_start.get(k, 0) for k in r.resources}
        first = rng.randrange(state.n) if state.config["first_player"] == "random" else 0
        tiles_of = []
        for board in boards:
            by = {}
            for t, terrain in enumerate(board):
                by.setdefault(terrain, []).append(t)
            tiles_of.append(by)
        state.data = MTData(
            board=boards, yields=yields, tiles_of=tiles_of, piles=piles, bowl=[r.bowl] * state.n,
            earned=[0] * state.n, built=[[] for _ in state.seats()], deck=deck,
            face_up=face_up, market=market, bank={k: 0 for k in r.resources}, first=first,
            stats={"turn_points": [[] for _ in state.seats()], "trades": 0, "improves": 0,
                   "builds": [0] * state.n, "flooded": 0, "forages": 0})

    # == helpers ==================================================================================
    def _tile(self, state, seat, tile):
        if type(tile) is int and 0 <= tile < len(self.tiles):     # the usual answer, at once
            return tile
        r = self.rules
        n = r.rows * r.cols
        if isinstance(tile, list) and len(tile) == 2 and all(
                is_whole(x) for x in tile):
            row, col = tile
            if not (0 <= row < r.rows and 0 <= col < r.cols):
                raise IllegalMoveError(f"Your board has rows 0-{r.rows - 1} and columns "
                                       f"0-{r.cols - 1}; there is no tile {tile}.")
            return row * r.cols + col
        if not is_whole(tile) or not 0 <= tile < n:
            raise IllegalMoveError(f"Choose a tile 0-{n - 1} (row by row) or [row, col], not "
                                   f"{tile!r}.")
        return tile

    def _has(self, hand, need):
        for k, v in need.items():
            if hand.get(k, 0) < v:
                return False
        return True

    def _take(self, hand, need):
        for k, v in need.items():
            left = hand[k] - v
            if left:
                hand[k] = left
            else:
                del hand[k]

    def _give(self, hand, got):
        for k, v in got.items():
            hand[k] = hand.get(k, 0) + v

    def _points(self, state, seat, n, why):
        d = state.data
        if n <= 0:
            return
        d.earned[seat] += n
        d.bowl[seat] = max(0, d.bowl[seat] - n)
        d.last.setdefault("points", []).append([why, n])
        if d.bowl[seat] == 0 and seat not in d.emptied:
            d.emptied.append(seat)
            then = ("the game is over" if state.config["end"] == "immediate" else
                    "this round is played out so that everyone has as many turns, then the "
                    "game ends")
            state.note("BowlEmptied", seat=seat,
                       says=f"{state.players[seat]} emptied the point bowl: {then}.")
            if state.config["end"] == "immediate":
                self._finish(state, [seat], "emptied the point bowl first")

    def _amounts(self, counts):
        """``2 Wheat and 1 Wood`` (in the order given), or ``nothing``."""
        items = [f"{v} {self.names[k]}" for k, v in counts.items() if v]
        if not items:
            return "nothing"
        return " and ".join(items) if len(items) < 3 else \
            ", ".join(items[:-1]) + " and " + items[-1]

    def standings(self, state):
        """Points taken from the bowls so far (the table ends the game early)."""
        return {s: self.rules.bowl - state.data.bowl[s] for s in state.seats()}

    def _finish(self, state, winners, reason, tiebreak=None, code="emptied_bowl"):
        d = state.data
        if not d.vp_curve or d.vp_curve[-1] != d.earned:
            d.vp_curve.append(list(d.earned))
        scores = {s: self.rules.bowl - d.bowl[s] for s in state.seats()}
        state.finish(winners, reason, scores, tiebreak, code=code)

    def usable(self, state, seat):
        """Improvements ``seat`` may still use in this step: {id: index into built}, in build
        order (read-only: it may be shared)."""
        d = state.data
        built = d.built[seat]
        if not built:
            return {}
        used = d.used
        if not used or state.config["improve_limit"] == "unlimited":
            return self._first_converters(tuple(built))
        return self._converters_in(built, used)

    def _converters_in(self, built, used=()):
        """{id: index into built} of each converting improvement in ``built``: the first copy
        whose index is not in ``used``."""
        converts = self.converts
        out = {}
        for i, cid in enumerate(built):
            if cid in converts and cid not in out and i not in used:
                out[cid] = i
        return out

    def affordable(self, state):
        """Face-up improvements the active player's hand can pay for."""
        hand = state.data.hand
        held, kinds, costs = hand.keys(), self.cost_kinds, self.costs
        out = []
        for c in state.data.face_up:
            if held >= kinds[c]:            # the hand holds each kind the cost names (a quick
                for k, v in costs[c]:       # sieve: most cards fail it), and enough of each?
                    if hand[k] < v:
                        break
                else:
                    out.append(c)
        return out

    # == 1. Harvest ===============================================================================
    def _begin_turn(self, state):
        d = state.data
        if d.active < 0:
            d.active = d.first
            state.round = 1
        else:
            d.active = (d.active + 1) % state.n
            if d.active == d.first:
                still = d.vp_curve and d.vp_curve[-1] == d.earned
                d.idle_rounds = d.idle_rounds + 1 if still else 0
                d.vp_curve.append(list(d.earned))
                if d.emptied:                         # end=equal-turns: the round is over
                    return self._finish_equal(state)
                if d.idle_rounds >= self.rules.stall_rounds:
                    return self._stalled(state, f"no points in {d.idle_rounds} rounds: the "
                                                f"markets are stuck")
                state.round += 1
                if state.round > self.rules.max_rounds:
                    return self._stalled(state, f"stall guard: {self.rules.max_rounds} "
                                                f"rounds played")
                self._warn_last_round(state)
        d.turns += 1
        s = d.active
        d.hand, d.used, d.built_now, d.turn_trades = {}, [], None, 0
        d.last = {"seat": s, "round": state.round}
        piles, yields = d.piles[s], d.yields[s]
        hand = d.hand
        # the tiles with a pile, in tile order (most tiles have none: compress skips them in C;
        # it reads piles[t] before this loop lowers it)
        for t in compress(self.tiles, piles):
            piles[t] -= 1
            res = yields[t]
            hand[res] = hand.get(res, 0) + 1
        d.last["harvest"] = dict(hand)
        if not state.lean:                  # notices: only a table reads them
            state.note("Harvested", seat=s, got=dict(hand),
                       says=f"{state.players[s]} harvested "
                            f"{self._amounts(hand)}.")

    def _warn_last_round(self, state):
        """The round that may be the last is said at its start: one more round without a
        point ends the game (the stall rule), or the stall guard's last round is here."""
        d, r = state.data, self.rules
        if d.idle_rounds and d.idle_rounds == r.stall_rounds - 1:
            n = d.idle_rounds
            state.note("LastRoundWarning", round=state.round, why="stall",
                       says=f"No points in {n} round{'s' if n != 1 else ''}: if nobody scores "
                            f"in round {state.round}, the game ends after it (most points "
                            f"wins).")
        elif state.round == r.max_rounds:
            state.note("LastRoundWarning", round=state.round, why="max_rounds",
                       says=f"Round {state.round} is the last: the game ends after it (most "
                            f"points wins).")

    def _finish_equal(self, state):
        d = state.data
        winners = list(d.emptied)
        tiebreak = None
        if len(winners) > 1:
            best = max(d.earned[s] for s in winners)
            winners = [s for s in winners if d.earned[s] == best]
            tiebreak = "most points beyond the bowl" + (", still tied: shared"
                                                        if len(winners) > 1 else "")
        self._finish(state, winners, "emptied the point bowl (equal turns)", tiebreak)

    def _stalled(self, state, why):
        d = state.data
        best = max(d.earned)
        winners = [s for s in state.seats() if d.earned[s] == best]
        d.stalled = True
        self._finish(state, winners, f"{why}; most points wins",
                     "shared" if len(winners) > 1 else None, code="stalled")

    # == 2 and 4. Trade and improve ===============================================================
    def _begin_trade(self, state):
        d = state.data
        if state.config["improve_limit"] == "once-per-step":
            d.used = []
        # "improve" only for a player who owns an improvement that converts (its picker then
        # lists them, the ones not usable now disabled with the reason); nobody builds during
        # a trade step, so this holds for the whole step
        owns = not self.converters.isdisjoint(d.built[d.active])
        if not self.can_trade_or_improve(state):
            if state.config["pass_empty_steps"]:
                return                               # nothing the player could do
            state.prompt(d.active, ("improve", "end_step") if owns else ("end_step",),
                         step=state.phase)
            return
        state.prompt(d.active, ("trade", "improve", "end_step") if owns else
                     ("trade", "end_step"), step=state.phase)

    def can_trade_or_improve(self, state):
        """Is any trade or improvement possible for the active player right now?"""
        return self.can_improve(state) or self.can_trade(state)

    def can_improve(self, state):
        d = state.data
        hand = d.hand
        if not hand:
            return False
        have, converts = hand.get, self.converts
        for cid in self.usable(state, d.active):
            for k, n in converts[cid][0].items():           # self._has, inlined (hot)
                if have(k, 0) < n:
                    break
            else:
                return True
        return False

    def can_trade(self, state):
        """Is some trade with the market legal for the active player right now?"""
        d = state.data
        hand = d.hand
        if not hand:
            return False
        market, cap, value = d.market, self.rules.market_cap, self.value
        if state.config.get("rules", RULES_VERSION) < 2:
            return self._could_trade_v1(state)
        # the most value the hand can give into each market (room permitting); a trade that
        # takes one copy of k is possible when the other resources can give at least its value
        # (several copies together: 3 Grain + 1 Stone for 1 Planks)
        room, total = {}, 0
        for g, n in hand.items():
            m = market[g]
            if m < cap:
                room[g] = r = (n if n < cap - m else cap - m) * value[g]
                total += r
        if not room:
            return False
        for k, m in market.items():
            if m and value[k] <= total - room.get(k, 0):
                return True
        return False

    def _could_trade_v1(self, state):
        """Rules version 1 (sessions logged before the fix): only trades giving one copy of
        one resource were looked for, so a step whose only trades give several copies (3 Grain
        + 1 Stone for 1 Planks) was passed. Kept so those sessions replay as they were played."""
        d = state.data
        hand, market, cap, value = d.hand, d.market, self.rules.market_cap, self.value
        best_give = max((value[k] for k in hand if market[k] < cap), default=None)
        if best_give is None:
            return False
        for k, m in market.items():
            if m and value[k] <= best_give and (k not in hand or any(
                    g != k and market[g] < cap and value[g] >= value[k] for g in hand)):
                return True
        return False

    def _trade(self, state, seat, give, take):
        d, names = state.data, self.names
        _amounts(give, "give", names)
        _amounts(take, "take", names)
        both = set(give) & set(take)
        if both:
            raise IllegalMoveError(f"You cannot give and take {names[both.pop()]} in the same "
                                   f"trade.")
        hand, market, cap = d.hand, d.market, self.rules.market_cap
        for k, v in give.items():
            if hand.get(k, 0) < v:
                raise IllegalMoveError(f"You have {hand.get(k, 0)} {names[k]} to give, not "
                                       f"{v}.")
            if market[k] + v > cap:
                room = cap - market[k]
                raise IllegalMoveError(
                    f"The {names[k]} market is flooded: it holds {market[k]} of at most {cap}"
                    + (f", room for {room} more." if room else "; it accepts no more."))
        for k, v in take.items():
            if market[k] < v:
                raise IllegalMoveError(f"The market has {market[k]} {names[k]}, not {v}.")
        value = self.value
        vg = sum(value[k] * v for k, v in give.items())
        vt = sum(value[k] * v for k, v in take.items())
        if vt > vg:
            raise IllegalMoveError(f"You would take {vt} points of resources for {vg}; what you "
                                   f"take must be worth no more than what you give.")
        self._take(hand, give)
        self._give(hand, take)
        for k, v in give.items():
            market[k] += v
        for k, v in take.items():
            market[k] -= v
        d.turn_trades += 1
        d.stats["trades"] += 1
        if not state.lean:                  # notices: only a table reads them
            state.note("Traded", seat=seat, give=dict(give), take=dict(take),
                       says=f"{state.players[seat]} traded {self._amounts(give)} to the "
                            f"market for {self._amounts(take)}.")

    def _improve(self, state, seat, improvement):
        d = state.data
        usable = self.usable(state, seat)
        if improvement not in usable:
            imp = self.rules.improvements.get(improvement) if isinstance(improvement, str) \
                else None
            if imp is None or improvement not in d.built[seat]:
                raise IllegalMoveError(f"You have no improvement {improvement!r}; yours: "
                                       f"{', '.join(d.built[seat]) or 'none yet'}.")
            if improvement not in self.converts:
                raise IllegalMoveError(f"{imp.name} converts nothing; it acts on build or "
                                       f"forage.")
            when = "this step" if state.config["improve_limit"] == "once-per-step" else \
                "this turn"
            raise IllegalMoveError(f"You have used your {imp.name} already {when}.")
        cin, cout = self.converts[improvement]
        if not self._has(d.hand, cin):
            need = ", ".join(f"{v} {self.names[k]}" for k, v in cin.items())
            raise IllegalMoveError(f"{self.rules.improvements[improvement].name} needs {need} "
                                   f"in your hand.")
        self._take(d.hand, cin)
        self._give(d.hand, cout)
        if state.config["improve_limit"] != "unlimited":
            d.used.append(usable[improvement])
        d.stats["improves"] += 1
        if not state.lean:
            state.note("Improved", seat=seat, improvement=improvement, used=dict(cin),
                       made=dict(cout),
                       says=f"{state.players[seat]} used {self.rules.improvements[improvement].name}"
                            f": {self._amounts(cin)} into {self._amounts(cout)}.")

    def _end_step(self, state, seat):
        state.clear_prompt(seat)

    def _skip(self, state, seat):
        state.clear_prompt(seat)

    # == 3. Build =================================================================================
    def _begin_build(self, state):
        if self.affordable(state) or not state.config["pass_empty_steps"]:
            state.prompt(state.data.active, ("build", "skip_build"))

    def _build(self, state, seat, improvement):
        d, r = state.data, self.rules
        if improvement not in d.face_up:
            raise IllegalMoveError(f"{improvement!r} is not face up. Face up: "
                                   f"{', '.join(d.face_up)}.")
        imp = r.improvements[improvement]
        cost = dict(imp.cost)
        if not self._has(d.hand, cost):
            need = ", ".join(f"{v} {self.names[k]}" for k, v in imp.cost)
            raise IllegalMoveError(f"{imp.name} costs {need}; you cannot afford it.")
        self._take(d.hand, cost)
        to_market = state.config["build_payment"] == "market"
        for k, v in cost.items():
            room = max(0, r.market_cap - d.market[k]) if to_market else 0
            d.market[k] += min(v, room)
            d.bank[k] += v - min(v, room)
        at = d.face_up.index(improvement)
        if d.deck:
            d.face_up[at] = d.deck.pop()
        else:
            d.face_up.pop(at)
        state.clear_prompt(seat)
        if not state.lean:
            state.note("Built", seat=seat, improvement=improvement,
                       says=f"{state.players[seat]} built {imp.name} for "
                            f"{self._amounts(cost)}.")
        d.built_now = improvement
        d.stats["builds"][seat] += 1
        for cid in list(d.built[seat]):                    # On Build: the existing ones only
            e = r.improvements[cid].on_build
            if e is not None:
                self._effect(state, seat, cid, e, None)
                if state.outcome is not None:
                    break
        d.built[seat].append(improvement)

    def _effect(self, state, seat, cid, e, tile):
        d = state.data
        if e.gain:
            self._give(d.hand, dict(e.gain))
        if e.extra and tile is not None:
            terrain = d.board[seat][tile]
            for t, n in e.extra:
                if t == terrain:
                    d.piles[seat][tile] += n
        if not state.lean:
            extras = ([f"+{self._amounts(dict(e.gain))}"] if e.gain else []) + \
                ([f"+{e.points} point{'s' if e.points != 1 else ''}"] if e.points else [])
            state.note("ImprovementActed", seat=seat, improvement=cid,
                       says=f"{self.rules.improvements[cid].name} acted for "
                            f"{state.players[seat]}"
                            + (": " + ", ".join(extras) if extras else "") + ".")
        if e.points:
            self._points(state, seat, e.points, cid)

    # == 5. Forage ================================================================================
    def _begin_forage(self, state):
        d = state.data
        if state.config["forage_source"] == "hand":
            k = self.rules.forage
            if not any(n >= k and self.rules.resources[r].tier == 1 for r, n in d.hand.items()) \
                    and state.config["pass_empty_steps"]:
                return
        state.prompt(d.active, ("forage", "skip_forage"))

    def _forage(self, state, seat, tile):
        d, r = state.data, self.rules
        t = self._tile(state, seat, tile)
        res = d.yields[seat][t]
        if state.config["forage_source"] == "hand":
            if d.hand.get(res, 0) < r.forage:
                raise IllegalMoveError(f"Foraging tile {t} ({d.board[seat][t]}) places "
                                       f"{r.forage} {self.names[res]} from your hand; you have "
                                       f"{d.hand.get(res, 0)}.")
            self._take(d.hand, {res: r.forage})
        d.piles[seat][t] += r.forage
        state.clear_prompt(seat)
        d.stats["forages"] += 1
        d.last["forage"] = [t, res]
        if not state.lean:                  # notices: only a table reads them
            src = (f"{r.forage} {self.names[res]} from the hand" if
                   state.config["forage_source"] == "hand" else f"{r.forage} {self.names[res]}")
            state.note("Foraged", seat=seat, tile=t, resource=res,
                       says=f"{state.players[seat]} foraged tile {t} ({d.board[seat][t]}): "
                            f"{src} onto its pile, now {d.piles[seat][t]}.")
        on_forage = self.on_forage
        for cid in d.built[seat]:
            e = on_forage.get(cid)
            if e is not None:
                self._effect(state, seat, cid, e, t)
                if state.outcome is not None:
                    return

    # == 6. Donation ==============================================================================
    def _donate(self, state):
        d = state.data
        s = d.active
        cap = self.rules.market_cap
        market, bank, hand = d.market, d.bank, d.hand
        pts = 0
        given = {}
        for k in self.order:
            if k not in hand:
                continue
            n = hand[k]
            if not n:
                continue
            m = market[k]
            room = cap - m if cap > m else 0
            put = n if n < room else room
            if put:
                if m == 0:
                    pts += self.first_value[k] + (put - 1) * self.value[k]
                else:
                    pts += put * self.value[k]
                market[k] = m + put
            if n > put:
                bank[k] += n - put
                d.stats["flooded"] += n - put
            given[k] = [put, n - put]
        d.hand = {}
        d.last["donated"] = given
        d.last["donation_points"] = pts
        d.stats["turn_points"][s].append(pts)
        if not state.lean:                  # notices: only a table reads them
            put = {k: v[0] for k, v in given.items() if v[0]}
            lost = {k: v[1] for k, v in given.items() if v[1]}
            says = (f"{state.players[s]} donated {self._amounts(put)} to the market: "
                    f"{pts} point{'s' if pts != 1 else ''}" if put else
                    f"{state.players[s]} donated nothing: 0 points")
            if lost:
                says += f" ({self._amounts(lost)} to the bank: those markets were full)"
            state.note("Donated", seat=s, given=given, points=pts, says=says + ".")
        self._points(state, s, pts, "donation")

    # == corrections ==============================================================================
    def get_counter(self, state, seat, counter):
        if seat is None:
            raise IllegalMoveError("Say whose bowl to correct.")
        return state.data.bowl[seat]

    def set_counter(self, state, seat, counter, value):
        d = state.data
        d.earned[seat] += d.bowl[seat] - value
        d.bowl[seat] = value

    # == holdings =================================================================================
    def holdings(self, state, seat):
        """The improvements ``seat`` has built, by name, and the resources in its hand (only
        the active player holds any, in the open, from Harvest to Donation). The piles on a
        board are its tiles, not a hand."""
        d, imps, names = state.data, self.rules.improvements, self.names
        out = Counter(imps[cid].name for cid in d.built[seat])
        if seat == d.active:
            for k, n in d.hand.items():
                out[names[k]] += n
        return out

    # == views ====================================================================================
    def public_view(self, state):
        d, r = state.data, self.rules
        return {
            "round": state.round, "active": d.active, "first": d.first,
            "bowl": list(d.bowl), "earned": list(d.earned),
            "boards": [{"terrain": list(d.board[s]), "piles": list(d.piles[s]),
                        "rows": r.rows, "cols": r.cols} for s in state.seats()],
            "built": [list(b) for b in d.built], "face_up": list(d.face_up),
            "deck": len(d.deck), "market": dict(d.market), "market_cap": r.market_cap,
            "bank": dict(d.bank), "hand": dict(d.hand), "used": list(d.used),
            "built_now": d.built_now, "last": dict(d.last), "emptied": list(d.emptied),
            "vp_curve": [list(c) for c in d.vp_curve],
            "improvements": {cid: self._improvement_card(cid) for cid in
                             dict.fromkeys(d.face_up + [c for b in d.built for c in b])},
        }

    def _improvement_card(self, cid):
        """What a player reads about an improvement: name, cost, what it does."""
        imp = self.rules.improvements[cid]
        return {"name": imp.name, "cost": dict(imp.cost),
                "text": imp.text(self.names).replace("->", "→")}

    def seat_view(self, state, seat):
        return {"bowl": state.data.bowl[seat]}

    def board_text(self, state, seat):
        """One player's board as text: terrain letters with the pile on each tile."""
        d, r = state.data, self.rules
        lines = ["     " + " ".join(f"{c:>3}" for c in range(r.cols))]
        for row in range(r.rows):
            cells = []
            for col in range(r.cols):
                t = row * r.cols + col
                n = d.piles[seat][t]
                cells.append(f"{r.letters[d.board[seat][t]]}{n if n else '.':<2}")
            lines.append((f"{row:>3}  " + " ".join(f"{c:>3}" for c in cells)).rstrip())
        legend = ", ".join(f"{r.letters[t]} = {t} ({self.names[r.t1_of[t]].lower()})"
                           for t in r.terrains)
        lines.append(f"     {legend}; the number is the pile on the tile")
        return "\n".join(lines)

    def text_table(self, state):
        d = state.data
        lines = [f"Round {state.round}; market: " + ", ".join(
            f"{self.names[k]} {v}" for k, v in d.market.items() if v)]
        for s in state.seats():
            mark = "*" if s == d.active else " "
            lines.append(f"{mark}{state.players[s]}: bowl {d.bowl[s]} left, improvements: "
                         f"{', '.join(d.built[s]) or 'none'}")
            lines.append(self.board_text(state, s))
        return "\n".join(lines)

    def summary(self, state):
        d = state.data
        st = d.stats
        pts = [p for per in st["turn_points"] for p in per]
        return {"factions": {}, "market_trading": {
            "rounds": state.round, "turns": d.turns, "trades": st["trades"],
            "improves": st["improves"], "builds": list(st["builds"]),
            "flooded_copies": st["flooded"], "forages": st["forages"],
            "points_per_turn": sum(pts) / len(pts) if pts else 0.0,
            "stalled": d.stalled, "bowls": list(d.bowl), "first_player": d.first,
            "first_player_won": (d.first in state.outcome.winners and
                                 1.0 / len(state.outcome.winners)) if state.outcome else None}}

    # == figures for `companion simulate market-trading` (the core's report hook) ===============
    def report(self, summaries):
        """Game length, what ends games, and the first player's share of wins."""
        from companion.core.play import wilson
        ms = [sm["market_trading"] for sm in summaries]
        n = len(ms) or 1
        rounds = sorted(m["rounds"] for m in ms)
        first = sum(m["first_player_won"] or 0.0 for m in ms)
        lo, hi = wilson(round(first), n)
        return {"rounds_mean": sum(rounds) / n, "rounds_median": rounds[len(rounds) // 2]
                if rounds else 0, "rounds_p90": rounds[min(len(rounds) - 1,
                                                         int(0.9 * len(rounds)))]
                if rounds else 0,
                "turns_mean": sum(m["turns"] for m in ms) / n,
                "points_per_turn": sum(m["points_per_turn"] for m in ms) / n,
                "builds_per_game": sum(sum(m["builds"]) for m in ms) / n,
                "trades_per_game": sum(m["trades"] for m in ms) / n,
                "flooded_copies_per_game": sum(m["flooded_copies"] for m in ms) / n,
                "stalled_share": sum(1 for m in ms if m["stalled"]) / n,
                "first_player_win_rate": first / n, "first_player_ci95": [lo, hi]}

    def report_text(self, r):
        lo, hi = r["first_player_ci95"]
        return "\n".join([
            f"game length: {r['rounds_mean']:.1f} rounds on average (median "
            f"{r['rounds_median']}, 90% within {r['rounds_p90']}), {r['turns_mean']:.1f} turns",
            f"first player wins {r['first_player_win_rate']:.1%} ({lo:.1%} - {hi:.1%})",
            f"points per turn {r['points_per_turn']:.2f}; per game {r['builds_per_game']:.1f} "
            f"builds, {r['trades_per_game']:.1f} trades, {r['flooded_copies_per_game']:.1f} "
            f"copies lost to flooded markets",
            f"ended by stuck markets: {r['stalled_share']:.1%}"])
