"""Trade Warz and Tariff Warz: one game, two editions (shared/rules/trade-warz.md and
tariff-warz.md; rulings in docs/trade-warz.md).

The editions differ only in rule settings: the card database's ``[editions.*.rules]`` (draw
rule, when Exports are paid, influence, Fast-Pass, hand limit, which cards) and ``rules.toml``
(instant-win rule, tiebreak chain, variants). Variants are options: ``chill``, ``quick_start``,
``diplomatic`` (Trade Warz only).

A round: Event -> Upkeep (C, M, Y, K) -> Draw -> Policy (sealed, 3-2-1 reveal) -> Trade (3:00
from the first Export placed; each face-down Export is its own sealed choice) -> Exports (the
flip; the table checks the cards) -> Disputes (poorest chooses; blind bids as sealed choices)
-> Income -> Cleanup. Before round 1, the Leader pick (a sealed choice).
"""
import dataclasses

from companion.core.datadir import ref_for, settle
from companion.core.errors import ConfigError, IllegalMoveError
from companion.core.game import Game, Move, Option, Phase, close_window

from .cards import CMYK, DATA_DIR, UPKEEP_ORDER, default_db
from .choices import Choices
from .computed import Computed
from .engine import DONE, Engine
from .rules import Index, default_rules, index

PHASE_LABELS = {"leaders": "Leader pick", "event": "Event", "upkeep": "Upkeep", "draw": "Draw",
                "policy": "Policy", "trade": "Trade", "exports": "Flip", "disputes": "Disputes",
                "income": "Income", "cleanup": "Cleanup"}
BEFORE_TRADE_ENDS = ("event", "upkeep", "draw", "policy", "trade")
TIEBREAK_TEXT = {"partners_influenced": "most Trade Partners influenced",
                 "active_routes": "most active routes",
                 "gdp_in_hand": "most GDP in hand (printed value of the Exports in hand)"}
# The rules engine's version, kept in every session's options as ``rules`` (not an Option: it
# is set by the game, never chosen). Version 2 computes the effects whose inputs it tracks and
# counts a Trade Warz Draw when the player draws; a log recorded before (its options are exactly
# the version-1 options) replays under version 1. docs/trade-warz.md, "Rules versions".
RULES_VERSION = 2
V1_OPTIONS = frozenset(("edition", "chill", "quick_start", "diplomatic", "fast_pass", "leaders",
                        "leader_pick", "rounds", "influence_gain", "policy_order",
                        "upkeep_confirm", "check_reveals", "export_slot_limit",
                        "pass_first_player"))
ASK_MOVES = {"target": "choose_target", "partner": "choose_partner",
             "optional": "choose_optional", "draw": "draw_cards", "discard": "discard_cards",
             "routes": "choose_routes", "order": "order_policies", "manual": "confirm_manual",
             "step": "confirm_step"}


@dataclasses.dataclass
class TWData:
    edition: str
    rounds: int                   # the last round (4 in Quick Start, else 5)
    win: int                      # the instant-win line (50)
    boom_first: bool              # Trade Warz: the first to reach the line wins
    leaders: list                 # seat -> Leader id (None until picked)
    gdp: list
    hands: list                   # private: seat -> card ids
    piles: list                   # private order: seat -> own draw pile (Leader deck / pile)
    fast_pass: list               # seat -> token ready (Tariff Warz)
    first: int = 0                # first-player marker
    decks: dict = dataclasses.field(default_factory=dict)      # private order: kind -> ids
    discards: dict = dataclasses.field(default_factory=dict)
    out: list = dataclasses.field(default_factory=list)        # Leader cards out of the game
    events: list = dataclasses.field(default_factory=list)
    event_discard: list = dataclasses.field(default_factory=list)
    event: str | None = None
    routes: dict = dataclasses.field(default_factory=dict)     # partner -> {slot: [seat, card]}
    influence: list = dataclasses.field(default_factory=list)  # seat -> {partner: n}
    policy: list = dataclasses.field(default_factory=list)     # seat -> slotted Policy
    policy_ch: list = dataclasses.field(default_factory=list)  # its target / partner
    locked: list = dataclasses.field(default_factory=list)     # board locked this round
    in_play: list = dataclasses.field(default_factory=list)    # Tactics this round
    activated: list = dataclasses.field(default_factory=list)
    extra_policy: list = dataclasses.field(default_factory=list)
    v: int = 0                    # bumped whenever a source of modifiers changes
    queue: list = dataclasses.field(default_factory=list)
    ask: dict | None = None
    defer_boom: bool = False
    boom_tie: list | None = None
    pick_order: list | None = None
    pick_result: list | None = None   # per seat: {seat, leader, wish (1.. or None: by lot), wishes}
    # draw
    to_draw: list = dataclasses.field(default_factory=list)     # shown count; 0: drawn
    draw_pending: list = dataclasses.field(default_factory=list)  # v2: seats yet to draw
    # policy
    policy_k: int = 0
    policy_left: list = dataclasses.field(default_factory=list)
    policy_done: bool = False
    policy_check: bool = False
    revealed: dict = dataclasses.field(default_factory=dict)
    confirmed: list = dataclasses.field(default_factory=list)   # seats whose scan matched
    # trade
    placements: list = dataclasses.field(default_factory=list)
    nplaced: list = dataclasses.field(default_factory=list)
    aims: dict = dataclasses.field(default_factory=dict)
    done: list = dataclasses.field(default_factory=list)
    trade_over: bool = False
    timer_started: bool = False
    turn: int = 0
    passes: int = 0
    offers: list = dataclasses.field(default_factory=list)
    offer_seq: int = 0
    loans: list = dataclasses.field(default_factory=list)
    # flip and disputes
    check: bool = False
    mismatch: dict | None = None
    contests: list = dataclasses.field(default_factory=list)
    dispute_order: list = dataclasses.field(default_factory=list)
    dturn: int = 0
    chooser: int | None = None
    current: int | None = None
    disputes_done: bool = False
    round_disputes: int = 0
    # upkeep and income, for the screens
    upkeep: list = dataclasses.field(default_factory=list)
    income: list = dataclasses.field(default_factory=list)
    end: str | None = None        # how the game ended: boom (the line) or close (last round)
    gdp_curve: list = dataclasses.field(default_factory=list)
    disputes_per_round: list = dataclasses.field(default_factory=list)

    @property
    def vp_curve(self):
        """The GDP after each round, under the name ``companion simulate`` reads."""
        return self.gdp_curve


def _int(v, what):
    if isinstance(v, bool) or not isinstance(v, int):
        raise IllegalMoveError(f"{what} must be a whole number, not {v!r}.")
    return v


class TradeWarz(Choices, Computed, Engine, Game):
    name = "trade-warz"
    title = "Trade Warz"
    min_players = 2
    max_players = 6
    start_phase = "leaders"
    counters = ("gdp",)
    options = (
        Option("edition", "trade", "Which rulebook: trade (Trade Warz) or tariff (Tariff Warz).",
               ("trade", "tariff")),
        Option("chill", False, "Chill variant (Trade Warz): no timer; Exports are placed one "
                               "at a time, clockwise, until everyone passes in a row."),
        Option("quick_start", False, "Quick Start variant (Trade Warz): 15 GDP, no Event in "
                                     "round 1, 4 rounds."),
        Option("diplomatic", False, "Diplomatic variant (Trade Warz): swap cards 1:1 and note "
                                    "GDP loans during Trade."),
        Option("fast_pass", True, "Tariff Warz's Fast-Pass token (the rulebook: 'might cut')."),
        Option("leaders", "", "Fixed Leaders by seat, comma-separated ids (usa,china,...); "
                              "empty: the Leader pick."),
        Option("leader_pick", "sealed", "sealed: everyone picks at once in secret (ranked "
                                        "wishes, clashes settled by lot); random: Leaders "
                                        "dealt face-down at random.", ("sealed", "random")),
        Option("rounds", 0, "Rounds (0: the edition's: 5, or 4 in Quick Start)."),
        Option("influence_gain", "printed", "Influence each route adds at Income (Trade "
                                            "Warz): its Export's printed influence, or one.",
               ("printed", "one")),
        Option("policy_order", "poorest_chooses", "Order of revealed Policies: the poorest "
                                                  "player chooses, or poorest first.",
               ("poorest_chooses", "poorest_first")),
        Option("upkeep_confirm", "manual", "Which Upkeep steps wait for the table: those with "
                                           "a manual effect, or every step with effects.",
               ("manual", "every")),
        Option("check_reveals", True, "After the Policy reveal and the Export flip, wait for "
                                      "the table (scan cards to check them, Next to go on)."),
        Option("export_slot_limit", True, "A Leader's Export slots cap its routes plus its "
                                          "face-down Exports."),
        Option("pass_first_player", True, "Pass the first-player marker clockwise at Cleanup."),
        Option("auto_effects", True, "Effects whose inputs the companion tracks (Crypto Isle, "
                                     "Maple Dominion, Port Strike, ...) resolve by themselves; "
                                     "false: the table resolves them by hand."),
        Option("poorer_ties", "each", "The Polite Maple Dominion when the poorest players in "
                                      "a dispute are tied: each gets +1 dispute power, or none "
                                      "does (nobody is the poorer).", ("each", "none")),
    )

    def resolve_options(self, given):
        """The options, plus ``rules``: the rules version the session is played under (a stored
        log keeps it; one recorded before version 2 has exactly the version-1 options); and
        ``data``: the card data the session is played with (a recorded session must be replayed
        with the same)."""
        given = dict(given or {})
        data = given.pop("data", None)
        version = given.pop("rules", None)
        out = super().resolve_options(given)
        if version is None:
            version = 1 if set(given) == V1_OPTIONS else RULES_VERSION
        if version not in (1, RULES_VERSION):
            raise ConfigError(f"rules must be 1 or {RULES_VERSION}, not {version!r}.")
        out["rules"] = version
        out["data"] = settle(self.title, self.data_ref, data)
        return out

    @property
    def data_ref(self):
        """The card data this game plays with (:mod:`companion.core.datadir`)."""
        if self._data_ref is None:
            self._data_ref = ref_for(self.data_dir or DATA_DIR, self.db.version,
                                     shipped=self.data_dir is None)
        return self._data_ref

    def index(self, edition):
        """One edition of this game's card database, indexed (shared for the shipped cards)."""
        if self.data_dir is None:
            return index(edition)
        got = self._edited_ix.get(edition)
        if got is None:
            got = self._edited_ix[edition] = Index(self.db, edition)
        return got

    @staticmethod
    def v2(state):
        """Rules version 2 or later (computed effects, the Draw counted when drawn)."""
        return state.config.get("rules", RULES_VERSION) >= 2

    def __init__(self, rules=None, db=None, data_dir=None):
        self.rules = rules or default_rules()
        self.db = db or default_db()
        self.data_dir = data_dir            # an edited copy of data/ (None: the shipped files)
        self._data_ref = None
        self._edited_ix = {}                # edition -> Index of an edited copy's cards
        self._ix = {}
        self._moves_cache = {}
        P = Phase
        end = self._end_if
        self.phases = {
            "leaders": P("leaders", "event", on_begin=self._begin_leaders, end_if=end,
                         label=PHASE_LABELS["leaders"]),
            "event": P("event", "upkeep", on_begin=self._begin_event, end_if=end,
                       label="Event"),
            "upkeep": P("upkeep", "draw", on_begin=self._begin_upkeep, end_if=end,
                        on_end=self._end_upkeep, label="Upkeep"),
            "draw": P("draw", "policy", on_begin=self._begin_draw, end_if=end, label="Draw"),
            "policy": P("policy", "trade", on_begin=self._begin_policy, end_if=end,
                        label="Policy"),
            "trade": P("trade", "exports", on_begin=self._begin_trade, end_if=end,
                       on_end=self._end_trade, label="Trade"),
            "exports": P("exports", "disputes", on_begin=self._begin_exports, end_if=end,
                         label="Flip"),
            "disputes": P("disputes", "income", on_begin=self._begin_disputes, end_if=end,
                          label="Disputes"),
            "income": P("income", "cleanup", on_begin=self._begin_income, end_if=end,
                        label="Income"),
            "cleanup": P("cleanup", "event", on_begin=self._begin_cleanup, end_if=end,
                         on_end=self._end_cleanup, label="Cleanup"),
        }
        self._done = {
            "leaders": lambda st: all(x is not None for x in st.data.leaders),
            "event": lambda st: True, "upkeep": lambda st: True,
            "draw": lambda st: not any(st.data.to_draw),
            "policy": lambda st: st.data.policy_done and not st.data.policy_check,
            "trade": lambda st: st.data.trade_over,
            "exports": lambda st: not st.data.check,
            "disputes": lambda st: st.data.disputes_done,
            "income": lambda st: True, "cleanup": lambda st: True,
        }
        def M(name, fn, event, label, **kw):
            return Move(name, fn, event, label=label,
                        choices=getattr(self, "_ch_" + name, None), **kw)
        self.moves = {m.name: m for m in (
            M("pick_leader", self._pick_leader, "LeaderPicked", "Pick your Leader",
              sealed=lambda s, seat: "leaders",
              doc="leader: a Leader id; ranking: more Leader ids, in order, if it is taken"),
            M("draw_cards", self._draw_cards, "CardsDrawn", "Draw cards",
              doc="split: {pile: how many} (export, tactic, policy, personal); older logs "
                  "give the piles as arguments"),
            M("choose_policy", self._choose_policy, "PolicyChosen", "Choose your Policy",
              sealed=lambda s, seat: self._policy_wid(s),
              doc="card: a Policy in hand, or null to play none; fast_pass: true to lock "
                  "your board (Tariff Warz); target, partner, draw: what the card needs"),
            M("order_policies", self._order_policies, "PoliciesOrdered", "Order the Policies",
              doc="order: the seats whose Policies resolve, first to last"),
            M("place_export", self._place_export, "ExportPlaced", "Place an Export",
              sealed=lambda s, seat: self._export_wid(s, seat),
              doc="card: an Export in hand; partner: a Trade Partner id; slot: 1, 2, ..."),
            M("aim_export", self._aim_export, "ExportAimed", "Aim your next scanned Export",
              doc="partner, slot: where the next scanned Export goes (null to clear)"),
            M("play_tactic", self._play_tactic, "TacticPlayed", "Play a Tactic", any_time=True,
              doc="card; target, partner, draw, discard, routes: what the card needs"),
            M("activate_ability", self._activate, "AbilityActivated",
              "Use your Leader's ability", any_time=True,
              doc="target, draw, discard: what the Leader's ability needs"),
            M("use_fast_pass", self._use_fast_pass, "FastPassUsed", "Use your Fast-Pass",
              any_time=True),
            M("offer_influence", self._offer_influence, "InfluenceOffered",
              "Offer an influence deal", any_time=True,
              doc="to: a seat; partner; amount; price (GDP); side: sell or buy"),
            M("answer_offer", self._answer_offer, "OfferAnswered", "Answer an influence offer",
              any_time=True, doc="offer: its number; accept: true or false"),
            M("offer_swap", self._offer_swap, "SwapOffered", "Offer a card swap",
              any_time=True, private=True,
              doc="to: a seat; give: a card in your hand (Diplomatic)"),
            M("answer_swap", self._answer_swap, "SwapAnswered", "Answer a card swap",
              any_time=True, private=True,
              doc="offer: its number; give: a card in your hand, or null to decline"),
            M("note_loan", self._note_loan, "LoanNoted", "Lend GDP", any_time=True,
              doc="to: a seat; amount: GDP handed over now; terms: text (Diplomatic)"),
            M("start_trade_timer", self._start_trade_timer, "TradeTimerStarted",
              "Start the Trade timer", table=True,
              doc="the table starts the 3:00 Trade timer by a tap, before any Export"),
            M("done_trade", self._done_trade, "TradeDone", "I'm done trading"),
            M("pass_turn", self._pass_turn, "TurnPassed", "Pass"),
            M("choose_dispute", self._choose_dispute, "DisputeChosen", "Choose a dispute",
              doc="contest: its number (older logs: partner, slot)"),
            M("bid", self._bid, "BidSealed", "Bid", sealed=lambda s, seat: self._bid_wid(s),
              doc="amount: GDP, 0 up to what you have"),
            M("choose_target", self._choose_target, "TargetChosen", "Choose a target",
              doc="target: a seat"),
            M("choose_partner", self._choose_partner, "PartnerChosen",
              "Choose a Trade Partner", doc="partner: an id"),
            M("choose_optional", self._choose_optional, "OptionChosen", "Decide",
              doc="accept: bool"),
            M("discard_cards", self._discard_cards, "CardsDiscarded", "Discard cards",
              doc="cards: ids, or {id: how many}"),
            M("choose_routes", self._choose_routes, "RoutesChosen", "Choose routes",
              doc="routes: [[partner, slot], ...]"),
            # the table (touchscreen, Next button, card reader)
            M("resolve_policies", self._resolve_policies, "PoliciesChecked",
              "Next: resolve the Policies", table=True),
            M("resolve_exports", self._resolve_exports, "ExportsChecked",
              "Next: on to the disputes", table=True),
            M("confirm_step", self._confirm_step, "UpkeepStepConfirmed",
              "Confirm this Upkeep step", table=True),
            M("confirm_manual", self._confirm_manual, "ManualEffectResolved", "Done",
              table=True, doc="(older logs and the by-hand dialog: gdp: {seat: change}; "
                              "power: {seat: change} in a dispute)"),
            M("adjust", self._adjust, "AdjustedByHand", "Adjust by hand", table=True,
              doc="what: gdp, power (in a dispute) or influence; player: a seat; partner "
                  "(influence); by: the change"),
            M("scan_card", self._scan_card, "CardScanned", "Check a card without the reader",
              table=True, doc="card: an id"),
            M("settle_mismatch", self._settle_mismatch, "MismatchSettled",
              "Settle the scanned card", table=True,
              doc="keep: scanned or chosen; placement: which face-down Export (if asked)"),
        )}
        from .bots import BOTS, table_bot
        self.bots = BOTS
        self.table_bot = table_bot

    # -- helpers ----------------------------------------------------------------------------------
    def ix(self, state):
        try:
            return state._tw_ix
        except AttributeError:
            got = state._tw_ix = self.index(state.config["edition"])
            return got

    def seat_name(self, state, s):
        if s is None:
            return "The table"
        lid = state.data.leaders[s] if state.data else None
        if lid:
            return f"{state.players[s]} ({self.ix(state).name_of(lid)})"
        return state.players[s]

    def _seat(self, state, v, what="target"):
        if isinstance(v, bool) or not isinstance(v, int) or not 0 <= v < state.n:
            raise IllegalMoveError(f"Choose a player as the {what} (a seat from 0 to "
                                   f"{state.n - 1}), not {v!r}.")
        return v

    def _partner(self, state, p):
        ix = self.ix(state)
        if not isinstance(p, str) or p not in ix.partner_order:
            raise IllegalMoveError(f"{p!r} is not a Trade Partner at this table. Partners: "
                                   f"{', '.join(ix.partners)}.")
        return p

    def _in_hand(self, state, seat, cid, kind=None):
        ix = self.ix(state)
        if not isinstance(cid, str) or cid not in ix.items or \
                getattr(ix[cid], "kind", None) not in ("export", "policy", "tactic"):
            raise IllegalMoveError(f"{cid!r} is not a {ix.edition.title} card.")
        if cid not in state.data.hands[seat]:
            raise IllegalMoveError(f"{ix.name_of(cid)} is not in your hand.")
        if kind is not None and ix[cid].kind != kind:
            raise IllegalMoveError(f"{ix.name_of(cid)} is a{'n' if ix[cid].kind[0] == 'e' else ''}"
                                   f" {ix[cid].title}, not a{'n' if kind[0] == 'e' else ''} "
                                   f"{kind.title()}.")
        return cid

    def _choices(self, state, seat, cid, target, partner, draw=None, discard=None,
                 routes=None, what=None):
        """Check what a card needs chosen as it is played; returns the job's choices."""
        ix = self.ix(state)
        mode, needs_partner = ix.needs[cid]
        name = what or ix.name_of(cid)
        ch = {}
        if mode is not None:
            legal = self.legal_targets(state, seat, mode)
            if target is None:
                if len(legal) > 1:
                    raise IllegalMoveError(f"{name} needs a target: choose "
                                           + ("a player" if mode == "any" else "an opponent")
                                           + f" ({', '.join(map(str, legal))}).")
                target = legal[0] if legal else None
            else:
                self._seat(state, target)
                if target not in legal:
                    if target == seat:
                        raise IllegalMoveError(f"{name} targets an opponent, not yourself.")
                    raise IllegalMoveError(f"{self.seat_name(state, target)} cannot be "
                                           f"targeted this round (board locked).")
            ch["target"] = target
        elif target is not None:
            raise IllegalMoveError(f"{name} has no target.")
        if needs_partner:
            if partner is None:
                raise IllegalMoveError(f"{name} needs a Trade Partner: choose one.")
            ch["partner"] = self._partner(state, partner)
        elif partner is not None:
            raise IllegalMoveError(f"{name} does not name a Trade Partner.")
        if draw is not None:
            if not isinstance(draw, dict):
                raise IllegalMoveError("draw: how many cards from each pile, e.g. "
                                       "{\"export\": 1}.")
            ch["draw"] = dict(draw)
        if discard is not None:
            if not isinstance(discard, list):
                raise IllegalMoveError("discard: a list of card ids.")
            ch["discard"] = list(discard)
        if routes is not None:
            if not isinstance(routes, list):
                raise IllegalMoveError("routes: a list of [partner, slot] pairs.")
            ch["routes"] = [list(r) if isinstance(r, (list, tuple)) else r for r in routes]
        return ch

    # -- set-up -----------------------------------------------------------------------------------
    def setup(self, state):
        cfg = state.config
        ed = cfg["edition"]
        ix = self.index(ed)
        self._ix[ed] = ix
        play = self.rules.edition(ed)
        for v in ("chill", "quick_start", "diplomatic"):
            if cfg[v] and v not in play.variants:
                raise ConfigError(f"{ix.edition.title} has no {v.replace('_', ' ').title()} "
                                  f"variant (variants: "
                                  f"{', '.join(play.variants) or 'none'}).")
        if not 2 <= state.n <= min(6, len(ix.leaders)):
            raise ConfigError(f"{ix.edition.title} is for 2-{len(ix.leaders)} players.")
        fixed = None
        if cfg["leaders"]:
            fixed = [x.strip() for x in cfg["leaders"].split(",")]
            if len(fixed) != state.n:
                raise ConfigError(f"leaders names {len(fixed)} Leaders for {state.n} "
                                  f"players.")
            for lid in fixed:
                if lid not in ix.leaders:
                    raise ConfigError(f"{ix.edition.title} has no Leader {lid!r}. Leaders: "
                                      f"{', '.join(ix.leaders)}.")
            if len(set(fixed)) != len(fixed):
                raise ConfigError("Each Leader can sit at the table only once.")
        if cfg["rounds"] < 0:
            raise ConfigError("rounds must be 0 (the edition's) or more.")
        quick = cfg["quick_start"]
        r = self.rules
        n = state.n
        state.data = TWData(
            edition=ed,
            rounds=cfg["rounds"] or (r.quick_start_rounds if quick else r.rounds),
            win=r.win_gdp, boom_first=play.boom == "first",
            leaders=[None] * n,
            gdp=[r.quick_start_gdp if quick else r.start_gdp] * n,
            hands=[[] for _ in range(n)], piles=[[] for _ in range(n)],
            fast_pass=[bool(ix.rules.fast_pass and cfg["fast_pass"])] * n,
            routes={p: {} for p in ix.partners},
            influence=[{} for _ in range(n)], policy=[None] * n,
            policy_ch=[{} for _ in range(n)], locked=[False] * n, activated=[False] * n,
            extra_policy=[0] * n, to_draw=[0] * n, policy_left=[0] * n, nplaced=[0] * n,
            done=[False] * n, income=[self._blank_income() for _ in range(n)])

    @staticmethod
    def _blank_income():
        return {"routes": [], "route_total": 0, "effects": []}

    # -- the driver (every command ends here) -----------------------------------------------------
    def _end_if(self, state):
        d = state.data
        self.run_queue(state)
        if not d.boom_first and not d.defer_boom and d.queue == [] and state.outcome is None:
            self.check_boom(state)          # a GDP change outside the queue (a move's cost)
        if state.outcome is not None:
            return False
        if state.phase == "draw" and d.draw_pending and self.v2(state):
            self._refresh_draw(state)
        self._sync(state)
        if d.queue or d.ask is not None or d.mismatch is not None:
            return False
        return self._done[state.phase](state)

    # -- Leader pick ------------------------------------------------------------------------------
    def _begin_leaders(self, state):
        d = state.data
        ix = self.ix(state)
        if state.config["leaders"]:
            self._seat_leaders(state, [x.strip() for x in state.config["leaders"].split(",")])
            return
        if state.config["leader_pick"] == "random":
            self._seat_leaders(state, state.rng.sample(list(ix.leaders), state.n))
            return
        state.open_window("leaders", "leader", list(range(state.n)), "_leaders_revealed",
                          default=None, label="Leader pick")

    def _pick_leader(self, state, seat, leader, ranking=None):
        ix = self.ix(state)
        if leader not in ix.leaders:
            raise IllegalMoveError(f"{leader!r} is not a Leader. Leaders: "
                                   f"{', '.join(ix.leaders)}.")
        ranking = [] if ranking is None else ranking
        if not isinstance(ranking, list) or any(x not in ix.leaders for x in ranking):
            raise IllegalMoveError(f"ranking: more Leader ids, in order of preference "
                                   f"({', '.join(ix.leaders)}).")
        wishes = [leader] + [x for x in ranking if x != leader]
        if len(set(wishes)) != len(wishes):
            raise IllegalMoveError("Name each Leader only once in your ranking.")
        return {"leader": leader, "ranking": wishes[1:]}

    def _leaders_revealed(self, state, window):
        ix = self.ix(state)
        picks = window.revealed()
        order = state.rng.sample(range(state.n), state.n)
        taken, out = set(), [None] * state.n
        result = [None] * state.n
        for s in order:
            c = picks.get(s) or {}
            wishes = ([c["leader"]] + list(c.get("ranking", ()))) if c.get("leader") else []
            got = next((w for w in wishes if w not in taken), None)
            wish = wishes.index(got) + 1 if got is not None else None
            if got is None:
                got = state.rng.choice([x for x in ix.leaders if x not in taken])
            taken.add(got)
            out[s] = got
            result[s] = {"seat": s, "leader": got, "wish": wish, "wishes": wishes}
        state.data.pick_order = order
        state.data.pick_result = result
        self._seat_leaders(state, out)

    def _seat_leaders(self, state, ids):
        d = state.data
        ix = self.ix(state)
        db = self.db
        ed = d.edition
        d.leaders = list(ids)
        d.v += 1
        for kind in ix.draw_piles:
            if kind == "personal":
                continue
            deck = list(db.deck(ed, kind, leaders=ids))
            state.rng.shuffle(deck)
            d.decks[kind] = deck
            d.discards[kind] = []
        for s, lid in enumerate(ids):
            pile = list(db.leader_deck(ed, lid))
            state.rng.shuffle(pile)
            d.piles[s] = pile
        ev = list(db.deck(ed, "event"))
        state.rng.shuffle(ev)
        d.events = ev
        d.first = state.rng.randrange(state.n)
        state.note("LeadersSeated", leaders={str(s): l for s, l in enumerate(ids)},
                   first=d.first)
        if self.rules.opening_hand:
            for s in range(state.n):
                self.draw(state, s, {"export": self.rules.opening_hand})
        jobs = [self.fx_job(state, lid, s, "immediate") for s, lid in enumerate(ids)]
        jobs += [self.fx_job(state, p, None, "immediate", {"this": p}) for p in ix.partners]
        self.push(state, [j for j in jobs if j], front=False)

    # -- Event ------------------------------------------------------------------------------------
    def _begin_event(self, state):
        state.round += 1
        d = state.data
        n = state.n
        d.extra_policy = [0] * n
        d.activated = [False] * n
        d.round_disputes = 0
        if state.config["quick_start"] and state.round == 1 and \
                self.rules.quick_start_skip_event:
            state.note("EventSkipped", why="Quick Start")
            return
        if not d.events:
            d.events, d.event_discard = d.event_discard, []
            state.rng.shuffle(d.events)
            state.note("DeckReshuffled", deck="event", cards=len(d.events))
        if not d.events:
            return
        eid = d.events.pop()
        d.event = eid
        d.v += 1
        state.note("EventFlipped", event=eid, name=self.ix(state).name_of(eid))
        job = self.fx_job(state, eid, None, "immediate")
        if job:
            self.push(state, [job], front=False)

    # -- Upkeep -----------------------------------------------------------------------------------
    def _begin_upkeep(self, state):
        d = state.data
        ix = self.ix(state)
        n = state.n
        entries = []
        for s, lid in enumerate(d.leaders):
            if ix.steps_of(lid, "upkeep"):
                entries.append((ix[lid].cmyk or "M", s, lid, {}))
        for s, pid in enumerate(d.policy):
            if pid is not None and ix.steps_of(pid, "upkeep"):
                entries.append((ix[pid].cmyk, s, pid, {}))
        for p in ix.partners:
            for slot, (s, cid) in sorted(d.routes[p].items()):
                if ix.steps_of(cid, "upkeep"):
                    entries.append((ix[cid].cmyk, s, cid, {"route": p}))
        for t in d.in_play:
            if ix.steps_of(t["card"], "upkeep"):
                entries.append((ix[t["card"]].cmyk, t["owner"], t["card"], dict(t["ch"])))
        if d.event is not None and ix.steps_of(d.event, "upkeep"):
            entries.append((ix[d.event].cmyk, None, d.event, {}))
        for p in ix.partners:
            if ix.steps_of(p, "upkeep"):
                entries.append(("K", None, p, {"this": p}))
        steps, jobs = [], []
        computing = self.computing(state)
        for letter in UPKEEP_ORDER:
            cat = CMYK[letter]
            es = [e for e in entries if e[0] == letter]
            es.sort(key=lambda e: (-1, 0) if e[1] is None else (d.gdp[e[1]],
                                                                (e[1] - d.first) % n))
            effects = []
            for _, owner, src, ch in es:
                item = ix[src]
                for i in ix.steps_of(src, "upkeep"):
                    e = item.effects[i]
                    computed = bool(e.compute) and computing
                    effects.append({"source": src, "name": item.name, "owner": owner,
                                    "text": e.text or item.text,
                                    "manual": e.is_manual and not computed,
                                    "computed": computed})
            steps.append({"letter": letter, "name": cat.name, "resolves": cat.resolves,
                          "ring": cat.ring, "fill": cat.fill, "effects": effects,
                          "state": "pending" if es else "empty"})
            if es:
                jobs.append({"t": "step", "letter": letter})
                jobs += [self.fx_job(state, src, owner, "upkeep", ch)
                         for _, owner, src, ch in es]
        d.upkeep = steps
        self.push(state, jobs, front=False)

    def _job_step(self, state, job):
        d = state.data
        for st in d.upkeep:
            if st["state"] == "current":
                st["state"] = "done"
        cur = next(st for st in d.upkeep if st["letter"] == job["letter"])
        cur["state"] = "current"
        if state.config["upkeep_confirm"] == "every" and not job.get("ok"):
            return self.ask(state, None, "step", letter=job["letter"], name=cur["name"])
        state.note("UpkeepStep", letter=cur["letter"], name=cur["name"],
                   effects=len(cur["effects"]))
        return DONE

    def _end_upkeep(self, state):
        for st in state.data.upkeep:
            if st["state"] == "current":
                st["state"] = "done"

    def _confirm_step(self, state, seat):
        job = self.head(state, "step", None, "Upkeep step to confirm")
        job["ok"] = True
        self.answered(state)

    # -- Draw -------------------------------------------------------------------------------------
    def _begin_draw(self, state):
        d = state.data
        d.draw_pending = [True] * state.n
        for s in range(state.n):
            k = d.to_draw[s] = self.draw_due(state, s)
            have = self.piles_for(state, s)
            if k and len(have) == 1:
                self.draw(state, s, {next(iter(have)): k})
                k = d.to_draw[s] = 0
            if not k:
                d.draw_pending[s] = False

    def draw_due(self, state, s):
        """How many cards ``s`` draws now: Trade Warz, up to the hand size as the hand is now
        (a Tactic played during Draw counts; issue 12); Tariff Warz, the Leader's number;
        never more than the piles hold."""
        d = state.data
        ix = self.ix(state)
        lead = ix[d.leaders[s]]
        k = max(0, lead.hand_size - len(d.hands[s])) if ix.rules.draw == "up_to_hand_size" \
            else lead.draw
        return min(k, sum(self.piles_for(state, s).values()))

    def _refresh_draw(self, state):
        """Rules v2: the count of every seat yet to draw follows its hand."""
        d = state.data
        for s in range(state.n):
            if d.draw_pending[s]:
                k = d.to_draw[s] = self.draw_due(state, s)
                if not k:
                    d.draw_pending[s] = False
                    state.note("NothingToDraw", seat=s)

    def _draw_cards(self, state, seat, split=None, export=0, tactic=0, policy=0, personal=0):
        d = state.data
        if split is None:
            split = {"export": export, "tactic": tactic, "policy": policy, "personal": personal}
        elif not isinstance(split, dict) or export or tactic or policy or personal:
            raise IllegalMoveError("split: how many cards from each pile, e.g. "
                                   "{\"export\": 2, \"tactic\": 1}.")
        a = d.ask
        if a is not None and a["kind"] == "draw" and a["seat"] == seat:
            clean = self.check_split(state, seat, split, a["count"])
            d.queue[0]["ans"] = clean
            self.answered(state)
            return
        if state.phase != "draw" or not d.to_draw[seat]:
            raise IllegalMoveError("You have no cards to draw now.")
        clean = self.check_split(state, seat, split, d.to_draw[seat])
        self.draw(state, seat, clean)
        d.to_draw[seat] = 0
        if d.draw_pending:
            d.draw_pending[seat] = False

    # -- Policy -----------------------------------------------------------------------------------
    def _policy_wid(self, state):
        return f"policy-r{state.round}-{state.data.policy_k}"

    def _begin_policy(self, state):
        d = state.data
        ix = self.ix(state)
        d.policy_k = 0
        d.policy_done = False
        d.policy_check = False
        d.confirmed = []
        extra = [0] * state.n
        for s, pid in enumerate(d.policy):
            for _, e in ix.has_extra_policy.get(pid, ()):
                extra[s] += e.count
        d.policy_left = [1 + d.extra_policy[s] + extra[s] for s in range(state.n)]
        self._open_policy(state)

    def _open_policy(self, state):
        d = state.data
        ix = self.ix(state)
        pol = ix.policies
        seats = [s for s in range(state.n) if d.policy_left[s] > 0 and
                 any(c in pol for c in d.hands[s])]
        if not seats:
            d.policy_done = True
            return
        d.policy_k += 1
        d.revealed = {}
        d.confirmed = []
        k = d.policy_k
        state.open_window(self._policy_wid(state), "policy", seats, "_policy_revealed",
                          default={"card": None, "fast_pass": False},
                          label=f"Round {state.round} Policy" + (f" ({k})" if k > 1 else ""))

    def _choose_policy(self, state, seat, card=None, fast_pass=False, target=None,
                       partner=None, draw=None):
        d = state.data
        if not isinstance(fast_pass, bool):
            raise IllegalMoveError("fast_pass must be true or false.")
        if fast_pass:
            self._fast_pass_ok(state, seat)
        ch = {}
        if card is not None:
            self._in_hand(state, seat, card, "policy")
            cost = self.cost_of(state, seat, card)
            if cost > d.gdp[seat]:
                raise IllegalMoveError(f"{self.ix(state).name_of(card)} costs {cost} GDP; "
                                       f"you have {d.gdp[seat]}.")
            ch = self._choices(state, seat, card, target, partner, draw)
        elif target is not None or partner is not None:
            raise IllegalMoveError("Choose a Policy card before its target.")
        return {"card": card, "fast_pass": fast_pass, "target": ch.get("target"),
                "partner": ch.get("partner"), "draw": ch.get("draw")}

    def _fast_pass_ok(self, state, seat):
        ix = self.ix(state)
        if not (ix.rules.fast_pass and state.config["fast_pass"]):
            raise IllegalMoveError(f"{ix.edition.title} is played without Fast-Pass tokens.")
        if not state.data.fast_pass[seat]:
            raise IllegalMoveError("Your Fast-Pass token is spent; a card must refresh it.")

    def _policy_revealed(self, state, window):
        d = state.data
        got = window.revealed()
        d.revealed = {s: (c or {"card": None, "fast_pass": False}) for s, c in got.items()}
        for s in sorted(d.revealed):
            c = d.revealed[s]
            if c.get("fast_pass") and d.fast_pass[s]:
                d.fast_pass[s] = False
                d.locked[s] = True
                state.note("FastPassUsed", seat=s)
            if c.get("card"):
                d.policy_left[s] -= 1
            else:
                d.policy_left[s] = 0
        state.note("PoliciesRevealed", cards={str(s): c.get("card")
                                              for s, c in d.revealed.items()})
        if state.config["check_reveals"] and any(c.get("card") for c in d.revealed.values()):
            d.policy_check = True
            return
        self._queue_policies(state)

    def _resolve_policies(self, state, seat):
        d = state.data
        if state.phase != "policy" or not d.policy_check:
            raise IllegalMoveError("There are no revealed Policies to resolve now.")
        if d.mismatch is not None:
            raise IllegalMoveError("Settle the scanned card first.")
        d.policy_check = False
        self._queue_policies(state)

    def _queue_policies(self, state):
        d = state.data
        ix = self.ix(state)
        played = [s for s, c in d.revealed.items() if c.get("card")]
        with_now = [s for s in played if ix.steps_of(d.revealed[s]["card"], "immediate")]
        if state.config["policy_order"] == "poorest_chooses" and len(with_now) >= 2:
            self.push(state, [{"t": "order", "seats": self.order(state, played)},
                              {"t": "policy_next"}], front=False)
        else:
            self.push(state, self._policy_jobs(state, self.order(state, played)) +
                      [{"t": "policy_next"}], front=False)

    def _policy_jobs(self, state, seats):
        d = state.data
        out = []
        for s in seats:
            c = d.revealed[s]
            ch = {k: c[k] for k in ("target", "partner", "draw") if c.get(k) is not None}
            out.append({"t": "policy", "seat": s, "card": c["card"], "ch": ch})
        return out

    def _job_order(self, state, job):
        if "ans" not in job:
            chooser = self.order(state, range(state.n))[0]
            return self.ask(state, chooser, "order", seats=list(job["seats"]))
        self.push(state, self._policy_jobs(state, job["ans"]))
        state.note("PoliciesOrdered", order=list(job["ans"]))
        return DONE

    def _order_policies(self, state, seat, order):
        job = self.head(state, "order", seat, "Policy order")
        want = sorted(job["seats"])
        if not isinstance(order, list) or sorted(o for o in order if isinstance(o, int)) != want \
                or len(order) != len(want):
            raise IllegalMoveError(f"Give the order as a list of these seats, each once: "
                                   f"{want}.")
        job["ans"] = list(order)
        self.answered(state)

    def _job_policy(self, state, job):
        d = state.data
        ix = self.ix(state)
        s, cid, ch = job["seat"], job["card"], job["ch"]
        name = ix.name_of(cid)
        if "paid" not in job:
            if cid not in d.hands[s]:
                state.note("PolicyMissing", seat=s, card=cid)
                return DONE
            cost = self.cost_of(state, s, cid)
            if cost > d.gdp[s]:
                state.note("PolicyUnaffordable", seat=s, card=cid, cost=cost)
                return DONE
            d.hands[s].remove(cid)
            job["paid"] = self.lose(state, s, cost)
        mode, needs_partner = ix.needs[cid]
        if needs_partner and ch.get("partner") not in ix.partner_order:
            return self.ask(state, s, "partner", source=cid, options=list(ix.partners))
        if mode is not None:
            legal = self.legal_targets(state, s, mode)
            if ch.get("target") not in legal and legal:
                if len(legal) == 1:
                    ch["target"] = legal[0]
                else:
                    return self.ask(state, s, "target", source=cid, options=legal, mode=mode)
        slotted = ix.slotted[cid]
        if slotted:
            old = d.policy[s]
            if old is not None:
                self.to_discard(state, old)
                state.note("PolicyReplaced", seat=s, card=old)
            d.policy[s] = cid
            d.policy_ch[s] = {k: ch[k] for k in ("target", "partner") if k in ch}
            d.v += 1
        else:
            self.to_discard(state, cid)
        state.note("PolicyPlayed", seat=s, card=cid, name=name, cost=job["paid"],
                   slotted=slotted)
        fx = self.fx_job(state, cid, s, "immediate", ch)
        if fx:
            self.push(state, [fx])
        return DONE

    def _job_policy_next(self, state, job):
        self._open_policy(state)
        return DONE

    # -- Trade ------------------------------------------------------------------------------------
    def _begin_trade(self, state):
        d = state.data
        n = state.n
        d.trade_over = False
        d.done = [False] * n
        d.placements = []
        d.contests = []                     # last round's contests leave the screens
        d.nplaced = [0] * n
        d.aims = {}
        d.timer_started = False
        d.offers = []
        if state.config["chill"]:
            d.turn = d.first
            d.passes = 0
            self._chill_skip(state)

    def _chill_skip(self, state):
        """Chill: seats that cannot place an Export pass by themselves."""
        d = state.data
        while d.passes < state.n and not self.can_place(state, d.turn):
            state.note("TurnPassed", seat=d.turn, auto=True)
            d.passes += 1
            d.turn = state.left_of(d.turn)
        if d.passes >= state.n:
            d.trade_over = True

    def _chill_next(self, state, placed):
        d = state.data
        d.passes = 0 if placed else d.passes + 1
        d.turn = state.left_of(d.turn)
        if d.passes >= state.n:
            d.trade_over = True
        else:
            self._chill_skip(state)

    def _job_chill_next(self, state, job):
        self._chill_next(state, True)
        return DONE

    def _trade_open(self, state):
        if state.phase != "trade" or state.data.trade_over:
            raise IllegalMoveError("Trade is over for this round.")

    def _export_wid(self, state, seat):
        d = state.data
        wid = f"export-r{state.round}-s{seat}-{d.nplaced[seat] + 1}"
        if wid not in state.windows:
            # One window per face-down Export, held sealed until the flip closes it.
            state.open_window(wid, "export", (seat,), "_export_revealed", default=None,
                              hold=True,
                              label=f"{state.players[seat]}'s face-down Export "
                                    f"{d.nplaced[seat] + 1}")
        return wid

    def open_slots(self, state, seat, partner):
        d = state.data
        taken = set(d.routes[partner])
        mine = {p["slot"] for p in d.placements if p["seat"] == seat and
                p["partner"] == partner}
        return [k for k in range(1, self.slots_at(state, partner) + 1)
                if k not in taken and k not in mine]

    def open_slots_all(self, state, seat):
        """``{partner: [open slot, ...]}`` for ``seat``, every Trade Partner in one pass."""
        d = state.data
        mine = {(p["partner"], p["slot"]) for p in d.placements if p["seat"] == seat}
        out = {}
        for partner in self.ix(state).partners:
            taken = d.routes[partner]
            out[partner] = [k for k in range(1, self.slots_at(state, partner) + 1)
                            if k not in taken and (partner, k) not in mine]
        return out

    def slots_left(self, state, seat):
        if not state.config["export_slot_limit"]:
            return 99
        d = state.data
        used = self.route_count(state, seat) + sum(
            1 for p in d.placements if p["seat"] == seat and p["state"] in ("down", "up"))
        return self.ix(state)[d.leaders[seat]].export_slots - used

    def committed(self, state, seat):
        """GDP promised to face-down Exports that are paid after the disputes (Trade Warz)."""
        d = state.data
        total = 0
        for p in d.placements:
            if p["seat"] == seat and p["state"] in ("down", "up"):
                cid = p["card"] or state.windows[p["window"]].entries[seat].choice["card"]
                total += self.cost_of(state, seat, cid, p["partner"])
        return total

    def budget(self, state, seat):
        d = state.data
        if self.ix(state).rules.export_cost == "on_placement":
            return d.gdp[seat]
        return d.gdp[seat] - self.committed(state, seat)

    def can_place(self, state, seat):
        d = state.data
        ix = self.ix(state)
        exports = [c for c in d.hands[seat] if c in ix.exports]
        if not exports or self.slots_left(state, seat) <= 0:
            return False
        budget = self.budget(state, seat)
        table = self.export_options(state, seat, exports)
        for p, slots in self.open_slots_all(state, seat).items():
            if slots:
                for c in exports:
                    if table[c, p][0] <= budget:
                        return True
        return False

    def _place_export(self, state, seat, card, partner, slot):
        d = state.data
        ix = self.ix(state)
        self._trade_open(state)
        if state.config["chill"] and d.turn != seat:
            raise IllegalMoveError(f"It is {self.seat_name(state, d.turn)}'s turn to place.")
        self._in_hand(state, seat, card, "export")
        self._partner(state, partner)
        pname = ix.name_of(partner)
        _int(slot, "slot")
        n_slots = self.slots_at(state, partner)
        if not 1 <= slot <= n_slots:
            raise IllegalMoveError(f"{pname} has slots 1 to {n_slots} this round, not {slot}.")
        if slot in d.routes[partner]:
            owner = d.routes[partner][slot][0]
            raise IllegalMoveError(f"Slot {slot} at {pname} already holds "
                                   f"{self.seat_name(state, owner)}'s route; choose an open "
                                   f"slot.")
        if any(p["seat"] == seat and p["partner"] == partner and p["slot"] == slot
               for p in d.placements):
            raise IllegalMoveError(f"You already have a card on slot {slot} at {pname}.")
        if self.slots_left(state, seat) <= 0:
            lead = ix[d.leaders[seat]]
            raise IllegalMoveError(f"{lead.name} has {lead.export_slots} Export slots, all in "
                                   f"use (routes and face-down Exports).")
        cost = self.cost_of(state, seat, card, partner)
        budget = self.budget(state, seat)
        if cost > budget:
            if ix.rules.export_cost == "on_placement":
                raise IllegalMoveError(f"{ix.name_of(card)} costs {cost} GDP at {pname}; "
                                       f"you have {d.gdp[seat]}.")
            raise IllegalMoveError(f"{ix.name_of(card)} costs {cost} GDP at {pname}; you have "
                                   f"{d.gdp[seat]} GDP and {d.gdp[seat] - budget} of it is "
                                   f"promised to your other face-down Exports.")
        # -- changes
        wid = f"export-r{state.round}-s{seat}-{d.nplaced[seat] + 1}"
        d.hands[seat].remove(card)
        paid = 0
        if ix.rules.export_cost == "on_placement":
            paid = self.lose(state, seat, cost)
        d.placements.append({"seat": seat, "partner": partner, "slot": slot, "window": wid,
                             "card": None, "paid": paid, "state": "down"})
        d.nplaced[seat] += 1
        d.aims.pop(seat, None)
        state.note("ExportPlaced", seat=seat, partner=partner, slot=slot, paid=paid)
        state.note("YourExport", to=seat, card=card, partner=partner, slot=slot)
        if state.config["chill"]:
            # the turn moves on once the card is sealed (the next seat's budget reads it)
            self.push(state, [{"t": "chill_next"}], front=False)
        elif not d.timer_started:
            d.timer_started = True
            state.start_timer("trade", self.trade_seconds(state),
                              warn_before=self.rules.warn_seconds)
        return {"card": card}

    def _start_trade_timer(self, state, seat):
        """A tap on the table starts the Trade timer before the first Export (same 3:00)."""
        d = state.data
        self._trade_open(state)
        if state.config["chill"]:
            raise IllegalMoveError("The Chill variant plays Trade without a timer.")
        if d.timer_started:
            raise IllegalMoveError("The Trade timer is already running.")
        d.timer_started = True
        state.start_timer("trade", self.trade_seconds(state),
                          warn_before=self.rules.warn_seconds)

    def _export_revealed(self, state, window):
        d = state.data
        for p in d.placements:
            if p["window"] == window.id:
                c = window.revealed().get(p["seat"])
                p["card"] = c["card"] if c else None
                p["state"] = "up" if p["card"] else "void"
                return

    def _aim_export(self, state, seat, partner=None, slot=None):
        self._trade_open(state)
        if partner is None and slot is None:
            state.data.aims.pop(seat, None)
            return
        self._partner(state, partner)
        _int(slot, "slot")
        if slot not in self.open_slots(state, seat, partner):
            raise IllegalMoveError(f"Slot {slot} at {self.ix(state).name_of(partner)} is not "
                                   f"open for you.")
        state.data.aims[seat] = [partner, slot]
        state.note("ExportAimed", seat=seat, partner=partner, slot=slot)

    def _done_trade(self, state, seat):
        d = state.data
        self._trade_open(state)
        d.done[seat] = True
        state.note("TradeDone", seat=seat)
        if all(d.done):
            d.trade_over = True

    def _pass_turn(self, state, seat):
        d = state.data
        self._trade_open(state)
        if not state.config["chill"] or d.turn != seat:
            raise IllegalMoveError("Only the player whose turn it is may pass.")
        state.note("TurnPassed", seat=seat)
        self._chill_next(state, False)

    def on_timer(self, state, name):
        d = state.data
        if name == "trade" and state.phase == "trade":
            d.trade_over = True
            state.note("Buzzer")

    def _end_trade(self, state):
        d = state.data
        state.stop_timer("trade")
        d.aims = {}
        d.offers = []

    # tactics, abilities and the side deals ---------------------------------------------------
    def _before_trade_ends(self, state, what):
        d = state.data
        if state.phase == "leaders" or state.round == 0:
            raise IllegalMoveError("The game has not started yet.")
        if state.phase not in BEFORE_TRADE_ENDS or (state.phase == "trade" and d.trade_over):
            raise IllegalMoveError(f"{what} can be played only until Trade ends; Trade is "
                                   f"over this round.")
        if d.ask is not None or d.mismatch is not None:
            who = "the table" if d.ask is None or d.ask["seat"] is None else \
                self.seat_name(state, d.ask["seat"])
            raise IllegalMoveError(f"Wait until {who} has decided.")

    def _play_tactic(self, state, seat, card, target=None, partner=None, draw=None,
                     discard=None, routes=None):
        d = state.data
        ix = self.ix(state)
        self._before_trade_ends(state, "Tactics")
        self._in_hand(state, seat, card, "tactic")
        quiet = self.silenced(state, seat)
        if quiet is not None:
            raise IllegalMoveError(f"You may not play Tactics for the rest of this round "
                                   f"({ix.name_of(quiet)}).")
        cost = self.cost_of(state, seat, card)
        if cost > d.gdp[seat]:
            raise IllegalMoveError(f"{ix.name_of(card)} costs {cost} GDP; you have "
                                   f"{d.gdp[seat]}.")
        ch = self._choices(state, seat, card, target, partner, draw, discard, routes)
        d.hands[seat].remove(card)
        self.lose(state, seat, cost)
        d.in_play.append({"card": card, "owner": seat,
                          "ch": {k: ch[k] for k in ("target", "partner") if k in ch}})
        d.v += 1
        state.note("TacticPlayed", seat=seat, card=card, name=ix.name_of(card), cost=cost,
                   target=ch.get("target"), partner=ch.get("partner"))
        job = self.fx_job(state, card, seat, "immediate", ch)
        if job:
            self.push(state, [job], front=False)

    def _activate(self, state, seat, target=None, partner=None, draw=None, discard=None,
                  routes=None):
        d = state.data
        ix = self.ix(state)
        self._before_trade_ends(state, "Leader abilities")
        lid = d.leaders[seat]
        lead = ix[lid]
        if not ix.steps_of(lid, "activated"):
            raise IllegalMoveError(f"{lead.ability} is not an ability you activate; it works "
                                   f"by itself.")
        if d.activated[seat]:
            raise IllegalMoveError(f"{lead.ability} works once per round; it is used.")
        ch = self._choices(state, seat, lid, target, partner, draw, discard, routes,
                           what=lead.ability)
        if any(lead.effects[i].kind == "discard" and lead.effects[i].target == "self"
               for i in ix.steps_of(lid, "activated")) and not d.hands[seat]:
            raise IllegalMoveError(f"{lead.ability} needs a card in your hand to discard.")
        d.activated[seat] = True
        state.note("AbilityActivated", seat=seat, leader=lid, ability=lead.ability,
                   target=ch.get("target"))
        self.push(state, [self.fx_job(state, lid, seat, "activated", ch)], front=False)

    def _use_fast_pass(self, state, seat):
        d = state.data
        self._fast_pass_ok(state, seat)
        if state.phase != "trade" or d.trade_over:
            raise IllegalMoveError("Toss your Fast-Pass in with your Policy, or during Trade.")
        d.fast_pass[seat] = False
        d.locked[seat] = True
        state.note("FastPassUsed", seat=seat)

    def _trade_deal(self, state, seat, what):
        d = state.data
        self._trade_open(state)
        if d.ask is not None:
            raise IllegalMoveError("Wait until the decision on the table is made.")
        if self.v2(state) and not state.config["chill"] and d.done[seat]:
            raise IllegalMoveError("You are done trading: Done is final for deals too.")

    def _offer_influence(self, state, seat, to, partner, amount, price, side="sell"):
        d = state.data
        ix = self.ix(state)
        if not ix.rules.influence_accumulates:
            raise IllegalMoveError(f"{ix.edition.title} does not track influence beyond the "
                                   f"printed values; it cannot be traded.")
        self._trade_deal(state, seat, "influence")
        self._seat(state, to, "buyer" if side == "sell" else "seller")
        if to == seat:
            raise IllegalMoveError("Trade influence with another player.")
        self._partner(state, partner)
        if _int(amount, "amount") < 1:
            raise IllegalMoveError("Trade at least 1 influence.")
        if _int(price, "price") < 0:
            raise IllegalMoveError("A price is 0 GDP or more.")
        if side not in ("sell", "buy"):
            raise IllegalMoveError("side: sell or buy.")
        seller = seat if side == "sell" else to
        have = d.influence[seller].get(partner, 0)
        if have < amount:
            raise IllegalMoveError(f"{self.seat_name(state, seller)} has {have} influence "
                                   f"with {ix.name_of(partner)}, not {amount}.")
        d.offer_seq += 1
        d.offers.append({"id": d.offer_seq, "kind": "influence", "from": seat, "to": to,
                         "side": side, "partner": partner, "amount": amount, "price": price})
        state.note("InfluenceOffered", offer=d.offer_seq, seat=seat, to=to, side=side,
                   partner=partner, amount=amount, price=price)

    def _find_offer(self, state, seat, offer, kind):
        for o in state.data.offers:
            if o["id"] == offer and o["kind"] == kind:
                if o["to"] != seat:
                    raise IllegalMoveError("That offer was not made to you.")
                return o
        raise IllegalMoveError(f"There is no open offer {offer!r}.")

    def _answer_offer(self, state, seat, offer, accept):
        d = state.data
        ix = self.ix(state)
        self._trade_deal(state, seat, "influence")
        o = self._find_offer(state, seat, offer, "influence")
        if not isinstance(accept, bool):
            raise IllegalMoveError("accept must be true or false.")
        if not accept:
            d.offers.remove(o)
            state.note("OfferDeclined", offer=o["id"], seat=seat)
            return
        seller, buyer = (o["from"], o["to"]) if o["side"] == "sell" else (o["to"], o["from"])
        p = o["partner"]
        short_inf = d.influence[seller].get(p, 0) < o["amount"]
        short_gdp = d.gdp[buyer] < o["price"]
        if seller == seat and short_inf:
            raise IllegalMoveError(f"You have {d.influence[seat].get(p, 0)} influence with "
                                   f"{ix.name_of(p)}, not the {o['amount']} asked.")
        if buyer == seat and short_gdp:
            raise IllegalMoveError(f"You have {d.gdp[seat]} GDP, not the {o['price']} asked.")
        d.offers.remove(o)
        if short_inf or short_gdp:
            # the offer's maker can no longer keep it: it lapses
            state.note("OfferLapsed", offer=o["id"], seat=o["from"])
            return
        d.influence[seller][p] -= o["amount"]
        d.influence[buyer][p] = d.influence[buyer].get(p, 0) + o["amount"]
        self.lose(state, buyer, o["price"])
        state.note("InfluenceTraded", seller=seller, buyer=buyer, partner=p,
                   amount=o["amount"], price=o["price"])
        self.gain(state, seller, o["price"])

    def _diplomatic(self, state, seat):
        if not state.config["diplomatic"]:
            raise IllegalMoveError("Card swaps and loans are for the Diplomatic variant.")
        self._trade_deal(state, seat, "diplomacy")

    def _offer_swap(self, state, seat, to, give):
        d = state.data
        self._diplomatic(state, seat)
        self._seat(state, to, "player to swap with")
        if to == seat:
            raise IllegalMoveError("Swap cards with another player.")
        self._in_hand(state, seat, give)
        d.offer_seq += 1
        d.offers.append({"id": d.offer_seq, "kind": "swap", "from": seat, "to": to,
                         "give": give})
        state.note("SwapOffered", offer=d.offer_seq, seat=seat, to=to)
        state.note("SwapOffer", to=to, offer=d.offer_seq, card=give)

    def _answer_swap(self, state, seat, offer, give=None):
        d = state.data
        self._diplomatic(state, seat)
        o = self._find_offer(state, seat, offer, "swap")
        if give is None:
            d.offers.remove(o)
            state.note("OfferDeclined", offer=o["id"], seat=seat)
            return
        self._in_hand(state, seat, give)
        if o["give"] not in d.hands[o["from"]]:
            d.offers.remove(o)
            state.note("OfferLapsed", offer=o["id"], seat=o["from"])
            return
        d.hands[o["from"]].remove(o["give"])
        d.hands[seat].remove(give)
        d.hands[o["from"]].append(give)
        d.hands[seat].append(o["give"])
        d.offers.remove(o)
        state.note("CardsSwapped", seats=[o["from"], seat])
        state.note("SwapDone", to=o["from"], got=give, gave=o["give"])
        state.note("SwapDone", to=seat, got=o["give"], gave=give)

    def _note_loan(self, state, seat, to, amount, terms=""):
        d = state.data
        self._diplomatic(state, seat)
        self._seat(state, to, "borrower")
        if to == seat:
            raise IllegalMoveError("Lend to another player.")
        if _int(amount, "amount") < 1 or amount > d.gdp[seat]:
            raise IllegalMoveError(f"Lend from 1 to {d.gdp[seat]} GDP.")
        if not isinstance(terms, str) or len(terms) > 200:
            raise IllegalMoveError("terms: a short text.")
        self.lose(state, seat, amount)
        d.loans.append({"round": state.round, "from": seat, "to": to, "amount": amount,
                        "terms": terms})
        state.note("LoanNoted", seat=seat, to=to, amount=amount, terms=terms)
        self.gain(state, to, amount)

    # -- Flip -------------------------------------------------------------------------------------
    def _begin_exports(self, state):
        d = state.data
        ix = self.ix(state)
        for p in d.placements:
            if p["state"] == "down":
                w = state.windows.get(p["window"])
                if w is not None and not w.is_revealed():
                    close_window(self, state, w)      # the flip: every card is in already
        state.note("ExportsFlipped", cards=[[p["seat"], p["partner"], p["slot"], p["card"]]
                                            for p in d.placements])
        if ix.rules.export_cost == "on_placement":
            for p in self.order_placements(state):
                if p["state"] != "up":
                    continue
                s = p["seat"]
                owe = self.cost_of(state, s, p["card"], p["partner"]) - p["paid"]
                if owe <= 0:
                    continue
                if d.gdp[s] >= owe:
                    p["paid"] += self.lose(state, s, owe)
                    state.note("ExportTopUp", seat=s, card=p["card"], paid=owe)
                else:
                    p["state"] = "discarded"
                    self.to_discard(state, p["card"])
                    state.note("ExportDiscarded", seat=s, card=p["card"], partner=p["partner"],
                               slot=p["slot"], why="unpaid at the buzzer")
        d.check = bool(state.config["check_reveals"] and
                       any(p["state"] == "up" for p in d.placements))
        self._find_contests(state)          # the screens show this round's contests at once

    def order_placements(self, state):
        d = state.data
        po = self.ix(state).partner_order
        rank = {s: i for i, s in enumerate(self.order(state, range(state.n)))}
        return sorted(d.placements, key=lambda p: (rank[p["seat"]], po[p["partner"]],
                                                   p["slot"]))

    def _resolve_exports(self, state, seat):
        d = state.data
        if state.phase != "exports" or not d.check:
            raise IllegalMoveError("There are no flipped Exports to check now.")
        if d.mismatch is not None:
            raise IllegalMoveError("Settle the scanned card first.")
        d.check = False
        state.note("ExportsChecked")

    # -- Disputes ---------------------------------------------------------------------------------
    def _bid_wid(self, state):
        return f"bid-r{state.round}-{state.data.current}"

    def _begin_disputes(self, state):
        d = state.data
        self._find_contests(state)
        d.round_disputes = len(d.contests)
        d.dispute_order = self.order(state, range(state.n))
        d.dturn = 0
        d.chooser = None
        d.current = None
        d.disputes_done = False
        if d.contests:
            state.note("DisputesFound", count=len(d.contests), order=list(d.dispute_order))
        self._next_dispute(state)

    def _find_contests(self, state):
        """This round's contested slots, from the flipped Exports (at the flip, for the
        screens, and again when the disputes begin: a settled scan may change a card)."""
        d = state.data
        po = self.ix(state).partner_order
        groups = {}
        for i, p in enumerate(d.placements):
            if p["state"] == "up":
                groups.setdefault((p["partner"], p["slot"]), []).append(i)
        d.contests = []
        for (partner, slot), idx in sorted(groups.items(), key=lambda kv: (po[kv[0][0]],
                                                                         kv[0][1])):
            if len(idx) < 2:
                continue
            seats = [d.placements[i]["seat"] for i in idx]
            d.contests.append({"id": len(d.contests), "round": state.round,
                               "partner": partner, "slot": slot,
                               "seats": seats, "placements": idx,
                               "cards": {str(d.placements[i]["seat"]): d.placements[i]["card"]
                                         for i in idx},
                               "state": "open", "chooser": None, "bids": None, "power": None,
                               "winner": None})

    def _next_dispute(self, state):
        d = state.data
        d.current = None
        d.chooser = None
        live = [c for c in d.contests if c["state"] == "open"]
        if not live:
            self.push(state, [{"t": "establish"}], front=False)
            return
        order = d.dispute_order
        for k in range(state.n):
            s = order[(d.dturn + k) % state.n]
            mine = [c for c in live if s in c["seats"]]
            if mine:
                d.dturn = (d.dturn + k + 1) % state.n
                break
        if len(mine) == 1:
            self._start_contest(state, mine[0], s)
        else:
            d.chooser = s

    def _choose_dispute(self, state, seat, contest=None, partner=None, slot=None):
        d = state.data
        if state.phase != "disputes" or d.chooser != seat:
            raise IllegalMoveError("It is not your turn to choose a dispute.")
        for c in d.contests:
            if (c["id"] == contest if contest is not None else
                    c["partner"] == partner and c["slot"] == slot) and \
                    c["state"] == "open" and seat in c["seats"]:
                self._start_contest(state, c, seat)
                return
        if contest is not None:
            raise IllegalMoveError(f"You are in no open dispute number {contest!r}.")
        raise IllegalMoveError(f"You are in no open dispute at {partner!r} slot {slot!r}.")

    def contest_label(self, state, c):
        """ "Crypto Isle slot 2: Ann vs Bo" """
        return (f"{self.ix(state).name_of(c['partner'])} slot {c['slot']}: "
                + " vs ".join(state.players[s] for s in c["seats"]))

    def _start_contest(self, state, c, chooser):
        d = state.data
        c["state"] = "bidding"
        c["chooser"] = chooser
        d.chooser = None
        d.current = c["id"]
        state.note("DisputeChosen", seat=chooser, partner=c["partner"], slot=c["slot"],
                   seats=list(c["seats"]))
        bidders = [s for s in c["seats"] if d.gdp[s] > 0]
        if bidders:
            state.open_window(self._bid_wid(state), "bid", bidders, "_bids_revealed",
                              default=0, label=f"Dispute at {self.ix(state).name_of(c['partner'])}"
                                               f" slot {c['slot']}")
        else:
            self.push(state, [{"t": "dispute", "contest": c["id"], "bids": {}}], front=False)

    def _bid(self, state, seat, amount):
        d = state.data
        _int(amount, "A bid")
        if amount < 0:
            raise IllegalMoveError("A bid is 0 GDP or more.")
        if amount > d.gdp[seat]:
            raise IllegalMoveError(f"You have {d.gdp[seat]} GDP; you cannot bid {amount}.")
        return amount

    def _bids_revealed(self, state, window):
        bids = {str(s): v for s, v in window.revealed().items()}
        self.push(state, [{"t": "dispute", "contest": state.data.current, "bids": bids}],
                  front=False)

    def _job_dispute(self, state, job):
        d = state.data
        ix = self.ix(state)
        c = d.contests[job["contest"]]
        partner = c["partner"]
        if "power" not in job:
            power, parts = {}, {}
            for i in c["placements"]:
                p = d.placements[i]
                s = p["seat"]
                card = ix[p["card"]]
                acc = d.influence[s].get(partner, 0) if ix.rules.influence_accumulates else 0
                mod = self.dispute_bonus(state, s, p["card"], partner)
                bid = int(job["bids"].get(str(s), 0))
                power[str(s)] = card.influence + acc + mod + bid
                parts[str(s)] = {"printed": card.influence, "influence": acc, "effects": mod,
                                 "bid": bid}
            job["power"], job["parts"] = power, parts
            texts = self.dispute_computed(state, c, power, parts)
            if texts:
                job["manual"] = texts
            # the bids are open now: screens show them (and the power so far) at once
            c["state"] = "revealed"
            c["bids"] = dict(job["bids"])
            c["power"] = dict(power)
            c["parts"] = parts
        if job.get("manual") and "adj" not in job:
            return self.ask(state, None, "manual", dispute=c["id"], text=" ".join(job["manual"]),
                            name=ix.name_of(partner), targets=list(c["seats"]),
                            source=partner, power=dict(job["power"]))
        power = dict(job["power"])
        for s, delta in (job.get("adj") or {}).items():
            power[str(s)] = power.get(str(s), 0) + delta
        top = max(power.values())
        tied = [int(s) for s, v in power.items() if v == top]
        rank = {s: i for i, s in enumerate(d.dispute_order)}
        winner = min(tied, key=lambda s: (d.gdp[s], rank[s]))
        tiebreak = None
        if len(tied) > 1:
            tiebreak = "poorest" if len({d.gdp[s] for s in tied}) > 1 else "dispute order"
        c["bids"] = dict(job["bids"])
        c["power"] = power
        c["parts"] = job["parts"]
        c["winner"] = winner
        c["tiebreak"] = tiebreak
        c["state"] = "done"
        paid = self.lose(state, winner, int(job["bids"].get(str(winner), 0)))
        for i in c["placements"]:
            p = d.placements[i]
            if p["seat"] == winner:
                p["state"] = "won"
            else:
                p["state"] = "lost"
                d.hands[p["seat"]].append(p["card"])
                if p["paid"]:
                    self.gain(state, p["seat"], p["paid"])
                    p["paid"] = 0
        state.note("DisputeResolved", contest=c["id"], partner=partner, slot=c["slot"],
                   winner=winner, bids=c["bids"], power=power, paid=paid, tiebreak=tiebreak)
        if state.outcome is None:
            self._next_dispute(state)
        return DONE

    def _job_establish(self, state, job):
        d = state.data
        ix = self.ix(state)
        after = ix.rules.export_cost == "after_disputes"
        jobs = []
        for p in self.order_placements(state):
            if p["state"] not in ("up", "won"):
                continue
            s, cid, partner, slot = p["seat"], p["card"], p["partner"], p["slot"]
            if after:
                cost = self.cost_of(state, s, cid, partner)
                if cost > d.gdp[s]:
                    p["state"] = "unpaid"
                    d.hands[s].append(cid)
                    state.note("ExportUnpaid", seat=s, card=cid, partner=partner, slot=slot,
                               cost=cost)
                    continue
                p["paid"] = self.lose(state, s, cost)
            d.routes[partner][slot] = [s, cid]
            d.v += 1
            p["state"] = "established"
            state.note("RouteEstablished", seat=s, card=cid, partner=partner, slot=slot,
                       paid=p["paid"])
            fx = self.fx_job(state, cid, s, "immediate", {"route": partner})
            if fx:
                jobs.append(fx)
        d.disputes_done = True
        self.push(state, jobs)
        return DONE

    # -- Income -----------------------------------------------------------------------------------
    def _begin_income(self, state):
        d = state.data
        ix = self.ix(state)
        d.income = [self._blank_income() for _ in range(state.n)]
        d.defer_boom = not d.boom_first
        jobs = []
        for s in self.order(state, range(state.n)):
            jobs.append({"t": "income", "seat": s})
            srcs = [d.leaders[s]] + ([d.policy[s]] if d.policy[s] else [])
            srcs += [cid for _, _, cid in self.routes_of(state, s)]
            srcs += [t["card"] for t in d.in_play if t["owner"] == s]
            for src in srcs:
                j = self.fx_job(state, src, s, "income")
                if j:
                    jobs.append(j)
        for src in ([d.event] if d.event else []) + list(ix.partners):
            j = self.fx_job(state, src, None, "income", {"this": src})
            if j:
                jobs.append(j)
        if ix.rules.influence_accumulates:
            jobs.append({"t": "influence"})
        jobs.append({"t": "boom"})
        self.push(state, jobs, front=False)

    def _job_income(self, state, job):
        d = state.data
        s = job["seat"]
        rows, total = [], 0
        for p, slot, cid in self.routes_of(state, s):
            v, why = self.route_value(state, s, cid, p, explain=True)
            rows.append({"partner": p, "slot": slot, "card": cid, "total": v, **why})
            total += v
        inc = d.income[s]
        inc["routes"], inc["route_total"] = rows, total
        state.note("IncomeCollected", seat=s, routes=total)
        self.gain(state, s, total)
        return DONE

    def _job_influence(self, state, job):
        d = state.data
        ix = self.ix(state)
        one = state.config["influence_gain"] == "one"
        for p in ix.partners:
            for slot, (s, cid) in d.routes[p].items():
                d.influence[s][p] = d.influence[s].get(p, 0) + (1 if one else
                                                                  ix[cid].influence)
        state.note("InfluenceAccrued")
        return DONE

    def _job_boom(self, state, job):
        d = state.data
        d.defer_boom = False
        if not d.boom_first:
            self.check_boom(state)
        return DONE

    # -- Cleanup ----------------------------------------------------------------------------------
    def _begin_cleanup(self, state):
        d = state.data
        ix = self.ix(state)
        d.gdp_curve.append(list(d.gdp))
        d.disputes_per_round.append(d.round_disputes)
        if d.event is not None:
            d.event_discard.append(d.event)
            d.event = None
        for t in d.in_play:
            self.to_discard(state, t["card"])
        d.in_play = []
        d.v += 1
        d.locked = [False] * state.n
        d.offers = []
        limit = ix.rules.hand_limit
        if limit:
            jobs = [{"t": "hand", "seat": s} for s in self.order(state, range(state.n))
                    if len(d.hands[s]) > limit]
            self.push(state, jobs, front=False)

    def _job_hand(self, state, job):
        d = state.data
        s = job["seat"]
        limit = self.ix(state).rules.hand_limit
        extra = len(d.hands[s]) - limit
        if extra <= 0:
            return DONE
        cards = job.pop("ans", None)
        if cards is None:
            return self.ask(state, s, "discard", count=extra, source="hand-limit")
        for c in cards:
            self.discard_card(state, s, c)
        state.note("CardsDiscarded", seat=s, count=len(cards), source="hand-limit",
                   cards=list(cards))
        return DONE

    def _end_cleanup(self, state):
        d = state.data
        if state.round >= d.rounds:
            self._final(state)
            if state.outcome is not None:
                return
        if state.config["pass_first_player"]:
            d.first = state.left_of(d.first)
            state.note("FirstPlayerPassed", seat=d.first)

    def _final(self, state):
        d = state.data
        play = self.rules.edition(d.edition)
        g = d.gdp
        top = max(g)
        who = [s for s in range(state.n) if g[s] == top]
        if not d.boom_first and top >= d.win and len(who) > 1:
            if state.round < d.rounds + play.extra_rounds:
                state.note("PlayContinues", seats=who, gdp=top,
                           why="tied at the top above the line")
                return
            self._finish(state, who, f"tied at {top} GDP after round {state.round} "
                                     f"(the tie was never broken)", "shared win")
            return
        tiebreak = None
        if len(who) > 1:
            used = []
            for rule in play.tiebreak:
                vals = {s: self._tiebreak_value(state, s, rule) for s in who}
                best = max(vals.values())
                who = [s for s in who if vals[s] == best]
                used.append(TIEBREAK_TEXT[rule])
                if len(who) == 1:
                    break
            tiebreak = ", then ".join(used)
            if len(who) > 1:
                tiebreak += "; still tied: shared win"
        self._finish(state, who, f"highest GDP after round {state.round} (Global Close)",
                     tiebreak)

    def _tiebreak_value(self, state, s, rule):
        d = state.data
        ix = self.ix(state)
        if rule == "partners_influenced":
            return self.partners_influenced(state, s)
        if rule == "active_routes":
            return len(self.routes_of(state, s))
        if rule == "gdp_in_hand":
            return sum(ix[c].value or 0 for c in d.hands[s] if c in ix.exports)
        raise ValueError(rule)

    def partners_influenced(self, state, s):
        d = state.data
        ix = self.ix(state)
        return sum(1 for p in ix.partners
                   if d.influence[s].get(p, 0) > 0 or
                   any(r[0] == s for r in d.routes[p].values()))

    def win_now(self, state, seats):
        d = state.data
        ph = PHASE_LABELS.get(state.phase, state.phase)
        s = seats[0]
        if not d.gdp_curve or len(d.gdp_curve) < state.round:
            d.gdp_curve.append(list(d.gdp))
            d.disputes_per_round.append(d.round_disputes)
        self._finish(state, seats, f"{self.seat_name(state, s)} reached {d.gdp[s]} GDP "
                                   f"(Economic Boom, round {state.round}, {ph} phase)", None)

    def _finish(self, state, winners, reason, tiebreak):
        d = state.data
        d.end = "boom" if "Economic Boom" in reason else "close"
        state.finish(winners, reason, {s: d.gdp[s] for s in range(state.n)}, tiebreak)

    # -- answers to asks --------------------------------------------------------------------------
    def _choose_target(self, state, seat, target):
        job = self.head(state, "target", seat, "target to choose")
        if target not in state.data.ask["options"]:
            raise IllegalMoveError(f"Choose one of seats {state.data.ask['options']}.")
        job["ch"]["target"] = target
        self.answered(state)

    def _choose_partner(self, state, seat, partner):
        job = self.head(state, "partner", seat, "Trade Partner to choose")
        self._partner(state, partner)
        options = state.data.ask.get("options")
        if options and partner not in options:
            names = ", ".join(self.ix(state).name_of(p) for p in options)
            raise IllegalMoveError(f"Choose one of these Trade Partners: {names}.")
        job["ch"]["partner"] = partner
        self.answered(state)

    def _choose_optional(self, state, seat, accept):
        job = self.head(state, "optional", seat, "choice")
        if not isinstance(accept, bool):
            raise IllegalMoveError("accept must be true or false.")
        job["ch"][f"opt{state.data.ask['effect']}"] = accept
        self.answered(state)

    def _discard_cards(self, state, seat, cards):
        job = self.head(state, "discard", seat, "discard")
        if isinstance(cards, dict):         # {card: how many}, for a hand with copies
            if not all(isinstance(v, int) and not isinstance(v, bool) and v >= 0
                       for v in cards.values()):
                raise IllegalMoveError("cards: how many of each card, e.g. {\"bulk-coal\": 2}.")
            cards = [c for c, k in cards.items() for _ in range(k)]
        job["ans"] = self.check_discard(state, seat, cards, state.data.ask["count"])
        self.answered(state)

    def _choose_routes(self, state, seat, routes):
        a = state.data.ask
        job = self.head(state, "routes", seat, "route choice")
        if not isinstance(routes, list) or len(routes) != a["count"]:
            raise IllegalMoveError(f"Choose {a['count']} route(s) from {a['options']}.")
        picks = []
        for r in routes:
            r = list(r) if isinstance(r, (list, tuple)) else r
            if r not in a["options"] or r in picks:
                raise IllegalMoveError(f"Choose {a['count']} different route(s) from "
                                       f"{a['options']}.")
            picks.append(r)
        job["ans"] = picks
        self.answered(state)

    def _confirm_manual(self, state, seat, gdp=None, power=None):
        d = state.data
        a = d.ask
        job = self.head(state, "manual", None, "manual effect to confirm")
        changes = {}
        for name, given in (("gdp", gdp), ("power", power)):
            if given is None:
                continue
            if not isinstance(given, dict):
                raise IllegalMoveError(f"{name}: changes by seat, e.g. {{\"1\": 2}}.")
            clean = {}
            for k, v in given.items():
                try:
                    s = int(k)
                except (TypeError, ValueError):
                    raise IllegalMoveError(f"{name}: {k!r} is not a seat.") from None
                self._seat(state, s, "player")
                _int(v, f"{name} change")
                clean[s] = v
            changes[name] = clean
        if "power" in changes and "dispute" not in a:
            raise IllegalMoveError("Power changes belong to a dispute.")
        if "dispute" in a:
            adj = job.setdefault("adj", {})
            for s, v in changes.get("power", {}).items():
                adj[str(s)] = adj.get(str(s), 0) + v
        else:
            job["ch"][f"man{a['effect']}"] = True
        state.note("ManualResolved", source=a.get("source"), text=a.get("text"),
                   gdp={str(s): v for s, v in changes.get("gdp", {}).items()},
                   power={str(s): v for s, v in changes.get("power", {}).items()})
        self.answered(state)
        for s, v in sorted(changes.get("gdp", {}).items()):
            if v > 0:
                self.gain(state, s, v, self.ix(state).name_of(a.get("source")))
            elif v < 0:
                self.lose(state, s, -v, self.ix(state).name_of(a.get("source")))

    def _adjust(self, state, seat, what, player, by, partner=None):
        """A by-hand change while a manual effect waits for the table: GDP, dispute power (in
        a dispute: added to the power before the result) or influence (Trade Warz)."""
        d = state.data
        a = d.ask
        job = self.head(state, "manual", None, "manual effect to adjust for")
        ix = self.ix(state)
        if what not in ("gdp", "power", "influence"):
            raise IllegalMoveError("what: gdp, power (in a dispute) or influence.")
        s = self._seat(state, player, "player")
        _int(by, "by")
        if what == "power":
            if "dispute" not in a:
                raise IllegalMoveError("Dispute power changes belong to a dispute.")
            if s not in d.contests[a["dispute"]]["seats"]:
                raise IllegalMoveError(f"{state.players[s]} is not in this dispute.")
        if what == "influence":
            if not ix.rules.influence_accumulates:
                raise IllegalMoveError(f"{ix.edition.title} does not track influence.")
            self._partner(state, partner)
        elif partner is not None:
            raise IllegalMoveError("Only an influence change names a Trade Partner.")
        if by == 0:
            return
        name = ix.name_of(a.get("source"))
        if what == "power":
            adj = job.setdefault("adj", {})
            adj[str(s)] = adj.get(str(s), 0) + by
        elif what == "influence":
            have = d.influence[s].get(partner, 0)
            d.influence[s][partner] = max(0, have + by)
        state.note("AdjustedByHand", what=what, seat=s, by=by, partner=partner,
                   source=a.get("source"))
        if what == "gdp":
            if by > 0:
                self.gain(state, s, by, name)
            else:
                self.lose(state, s, -by, name)

    # -- the card reader: physical and hidden agree -----------------------------------------------
    def scan_move(self, state, card_id):
        """A scanned card, as a command (see docs/trade-warz.md, "Scanning cards").

        * Trade: an Export held by the one seat that has aimed (``aim_export``) places it there,
          face-down, as that seat's sealed move.
        * Policy reveal / Export flip: the table checks the card against what the phones said
          (``scan_card``): it confirms, or flags a mismatch for the table to settle.
        * Anything else: not a command (None); the hub shows the scan.
        """
        d = state.data
        if d is None or state.outcome is not None or not isinstance(card_id, str):
            return None
        ix = self.ix(state)
        if card_id not in ix.items:
            return None
        if state.phase == "trade" and card_id in ix.exports and not d.trade_over:
            holders = [s for s, aim in sorted(d.aims.items()) if card_id in d.hands[s]]
            if len(holders) == 1:
                s = holders[0]
                partner, slot = d.aims[s]
                return s, "place_export", {"card": card_id, "partner": partner, "slot": slot}
            return None, "scan_card", {"card": card_id}
        if (state.phase == "policy" and d.policy_check) or \
                (state.phase == "exports" and d.check):
            return None, "scan_card", {"card": card_id}
        return None

    def _scan_card(self, state, seat, card):
        d = state.data
        ix = self.ix(state)
        if not isinstance(card, str) or card not in ix.items:
            raise IllegalMoveError(f"{card!r} is not a {ix.edition.title} card.")
        if d.mismatch is not None:
            raise IllegalMoveError("Settle the card already flagged first.")
        if state.phase == "trade" and card in ix.exports and not d.trade_over:
            raise IllegalMoveError("To place an Export by scanning it, first choose its Trade "
                                   "Partner and slot on your phone, then scan it (only one "
                                   "player holding that card may be aiming).")
        if state.phase == "policy" and d.policy_check:
            return self._check_policy_scan(state, card)
        if state.phase == "exports" and d.check:
            return self._check_export_scan(state, card)
        raise IllegalMoveError("Nothing to check now: scan Policies when they are revealed and "
                               "Exports when they are flipped.")

    def _check_policy_scan(self, state, card):
        d = state.data
        ix = self.ix(state)
        if card not in ix.policies:
            raise IllegalMoveError(f"{ix.name_of(card)} is not a Policy.")
        chosen = {s: c.get("card") for s, c in d.revealed.items()}
        for s in sorted(chosen):
            if chosen[s] == card and s not in d.confirmed:
                d.confirmed.append(s)
                state.note("ScanConfirmed", seat=s, card=card)
                return
        holders = [s for s in range(state.n) if card in d.hands[s] and chosen.get(s) != card
                   and s not in d.confirmed]
        if len(holders) != 1:
            raise IllegalMoveError(f"{ix.name_of(card)} is not the Policy anyone chose, and the "
                                   f"table cannot tell whose card it is; check it by hand.")
        s = holders[0]
        d.mismatch = {"kind": "policy", "seat": s, "chosen": chosen.get(s), "scanned": card}
        state.note("ScanMismatch", what="policy", seat=s, chosen=chosen.get(s), scanned=card)

    def _check_export_scan(self, state, card):
        d = state.data
        ix = self.ix(state)
        if card not in ix.exports:
            raise IllegalMoveError(f"{ix.name_of(card)} is not an Export.")
        live = [i for i, p in enumerate(d.placements) if p["state"] == "up"]
        for i in live:
            p = d.placements[i]
            if p["card"] == card and not p.get("checked"):
                p["checked"] = True
                state.note("ScanConfirmed", seat=p["seat"], card=card, partner=p["partner"],
                           slot=p["slot"])
                return
        holders = {s for s in range(state.n) if card in d.hands[s]}
        options = [i for i in live if d.placements[i]["seat"] in holders and
                   not d.placements[i].get("checked")]
        if not options:
            raise IllegalMoveError(f"No face-down Export was {ix.name_of(card)}, and nobody "
                                   f"who holds it has an unchecked Export; check it by hand.")
        i = options[0]
        p = d.placements[i]
        d.mismatch = {"kind": "export", "seat": p["seat"], "placement": i, "options": options,
                      "chosen": p["card"], "scanned": card}
        state.note("ScanMismatch", what="export", seat=p["seat"], chosen=p["card"],
                   scanned=card, partner=p["partner"], slot=p["slot"])

    def _settle_mismatch(self, state, seat, keep, placement=None):
        d = state.data
        ix = self.ix(state)
        m = d.mismatch
        if m is None:
            raise IllegalMoveError("There is no scanned card to settle.")
        if keep not in ("scanned", "chosen"):
            raise IllegalMoveError("keep: scanned (the card on the table) or chosen (the "
                                   "phone's choice).")
        s = m["seat"]
        if m["kind"] == "policy":
            if keep == "scanned":
                card = m["scanned"]
                if card not in d.hands[s]:
                    raise IllegalMoveError(f"{ix.name_of(card)} is not in "
                                           f"{self.seat_name(state, s)}'s hand; keep the "
                                           f"chosen card.")
                cost = self.cost_of(state, s, card)
                if cost > d.gdp[s]:
                    raise IllegalMoveError(f"{ix.name_of(card)} costs {cost} GDP; "
                                           f"{self.seat_name(state, s)} has {d.gdp[s]}. Keep "
                                           f"the chosen card.")
                old = d.revealed.get(s) or {"card": None, "fast_pass": False}
                if old.get("card") is None:
                    d.policy_left[s] = max(0, d.policy_left[s] - 1)
                d.revealed[s] = {"card": card, "fast_pass": old.get("fast_pass", False),
                                 "target": None, "partner": None, "draw": None}
            d.confirmed.append(s)
        else:
            i = m["placement"]
            if placement is not None:
                if placement not in m["options"]:
                    raise IllegalMoveError(f"placement: one of {m['options']}.")
                i = placement
            p = d.placements[i]
            s = p["seat"]
            if keep == "scanned":
                card = m["scanned"]
                if card not in d.hands[s]:
                    raise IllegalMoveError(f"{ix.name_of(card)} is not in "
                                           f"{self.seat_name(state, s)}'s hand; keep the "
                                           f"chosen card.")
                if ix.rules.export_cost == "on_placement":
                    cost = self.cost_of(state, s, card, p["partner"])
                    if cost > d.gdp[s] + p["paid"]:
                        raise IllegalMoveError(f"{ix.name_of(card)} costs {cost} GDP; "
                                               f"{self.seat_name(state, s)} cannot pay it. "
                                               f"Keep the chosen card.")
                    self.gain(state, s, p["paid"])
                    p["paid"] = self.lose(state, s, cost)
                d.hands[s].remove(card)
                d.hands[s].append(p["card"])
                p["card"] = card
            p["checked"] = True
        kept = m["scanned"] if keep == "scanned" else m["chosen"]
        d.mismatch = None
        state.note("MismatchSettled", what=m["kind"], seat=s, keep=keep, card=kept,
                   scanned=m["scanned"], chosen=m["chosen"])

    # -- prompts ----------------------------------------------------------------------------------
    def _sync(self, state):
        d = state.data
        P = {}
        a = d.ask
        if a is not None:
            P[a["seat"]] = self._ask_prompt(state, a)
        elif d.mismatch is not None:
            m = d.mismatch
            ix = self.ix(state)
            P[None] = {"moves": ("settle_mismatch",), "next": "settle_mismatch",
                       "next_args": {"keep": "scanned"}, "step": "mismatch",
                       "text": f"{self.seat_name(state, m['seat'])}: the phone chose "
                               f"{ix.name_of(m['chosen']) if m['chosen'] else 'no card'}, "
                               f"the scanned card is {ix.name_of(m['scanned'])}. Keep which?"}
        else:
            getattr(self, "_prompts_" + state.phase)(state, P)
        state.prompts = P

    def _ask_prompt(self, state, a):
        p = {k: v for k, v in a.items() if k not in ("seat",)}
        p["moves"] = (ASK_MOVES[a["kind"]],) if a["kind"] != "manual" else \
            ("confirm_manual", "adjust")
        if a["seat"] is None:
            p["next"] = p["moves"][0]
            p["step"] = a["kind"]
        return p

    def _window_prompts(self, state, P, wid, move, **info):
        w = state.windows.get(wid)
        if w is None or w.is_revealed():
            return
        mv = (move,)
        for s in w.seats:
            if s not in w.entries:
                P[s] = {"moves": mv, "window": wid, **info}

    def _prompts_leaders(self, state, P):
        self._window_prompts(state, P, "leaders", "pick_leader",
                             options=list(self.ix(state).leaders))

    def _prompts_event(self, state, P):
        pass

    _prompts_upkeep = _prompts_income = _prompts_cleanup = _prompts_event

    def _prompts_draw(self, state, P):
        d = state.data
        for s in range(state.n):
            if d.to_draw[s]:
                P[s] = {"moves": ("draw_cards",), "count": d.to_draw[s],
                        "piles": self.piles_for(state, s)}

    def _prompts_policy(self, state, P):
        d = state.data
        if d.policy_check:
            P[None] = {"moves": ("resolve_policies", "scan_card"), "next": "resolve_policies",
                       "step": "policy_check",
                       "text": "Policies revealed: scan them to check, then Next to resolve."}
            return
        if not d.policy_done:
            self._window_prompts(state, P, self._policy_wid(state), "choose_policy")

    def _trade_moves(self, state, s, facts):
        d = state.data
        ix = self.ix(state)
        cfg = state.config
        key = (cfg["chill"], self.can_activate(state, s),
               bool(d.fast_pass[s] and ix.rules.fast_pass and cfg["fast_pass"]),
               self.deal_moves(state, s, facts))
        got = self._moves_cache.get(key)
        if got is None:
            chill, can_activate, can_pass, deals = key
            mv = ["place_export", "pass_turn" if chill else "done_trade", "play_tactic",
                  "aim_export"]
            if can_activate:
                mv.append("activate_ability")
            if can_pass:
                mv.append("use_fast_pass")
            mv += deals
            got = self._moves_cache[key] = tuple(mv)
        return got

    def _prompts_trade(self, state, P):
        d = state.data
        if d.trade_over:
            return
        facts = self.deal_facts(state)
        if state.config["chill"]:
            P[d.turn] = {"moves": self._trade_moves(state, d.turn, facts), "chill": True}
            return
        for s in range(state.n):
            if not d.done[s]:
                P[s] = {"moves": self._trade_moves(state, s, facts), "chill": False}

    def _prompts_exports(self, state, P):
        if state.data.check:
            P[None] = {"moves": ("resolve_exports", "scan_card"), "next": "resolve_exports",
                       "step": "export_check",
                       "text": "Exports flipped: scan them to check, then Next for the "
                               "disputes."}

    def _prompts_disputes(self, state, P):
        d = state.data
        if d.chooser is not None:
            mine = [c for c in d.contests if c["state"] == "open" and d.chooser in c["seats"]]
            P[d.chooser] = {"moves": ("choose_dispute",),
                            "options": [[c["partner"], c["slot"]] for c in mine],
                            "contests": [c["id"] for c in mine]}
        elif d.current is not None:
            self._window_prompts(state, P, self._bid_wid(state), "bid",
                                 contest=d.current)
            for s, p in P.items():
                if s is not None:
                    p["max"] = d.gdp[s]

    def standings(self, state):
        """GDP as it stands (the table ends the game early)."""
        return {s: state.data.gdp[s] for s in range(state.n)}

    # -- corrections ------------------------------------------------------------------------------
    def get_counter(self, state, seat, counter):
        if seat is None:
            raise IllegalMoveError("Say which player's GDP to correct.")
        return state.data.gdp[seat]

    def set_counter(self, state, seat, counter, value):
        d = state.data
        d.gdp[seat] = value
        if d.boom_first and value >= d.win and state.outcome is None:
            self.win_now(state, [seat])     # a corrected GDP that reaches the line wins

    # -- views ------------------------------------------------------------------------------------
    def public_view(self, state):
        from .views import public_view
        return public_view(self, state)

    def seat_view(self, state, seat):
        from .views import seat_view
        return seat_view(self, state, seat)

    def text_table(self, state):
        from .views import text_table
        return text_table(self, state)

    def summary(self, state):
        """Per-game facts for `companion stats` (factions = Leader names by seat) and for
        :func:`report` (Leaders, winners, GDP curve, disputes per round, how it ended)."""
        d = state.data
        ix = self.ix(state)
        o = state.outcome
        return {"factions": {str(s): ix.name_of(l) for s, l in enumerate(d.leaders) if l},
                "leaders": {str(s): l for s, l in enumerate(d.leaders) if l},
                "leader_names": {l: ix.name_of(l) for l in d.leaders if l},
                "winners": list(o.winners) if o else [],
                "reason": d.end, "edition": d.edition,
                "gdp_curve": [list(r) for r in d.gdp_curve],
                "disputes_per_round": list(d.disputes_per_round), "rounds": state.round}

    def report(self, summaries):
        """Balance figures over many games (see :mod:`.report`)."""
        from .report import report
        return report(summaries)

    def report_text(self, r):
        from .report import report_text
        return report_text(r)

