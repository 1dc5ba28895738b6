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
from companion.core.datadir import DataBacked
from companion.core.errors import ConfigError, IllegalMoveError
from companion.core.flow import ASK
from companion.core.game import Game, Move, Option, Phase, pop_rules_version

from .asks import Answers
from .cards import DATA_DIR, default_db
from .checks import Checks
from .choices import Choices
from .computed import Computed
from .data import Board, DrawRound, PolicyRound, TradeRound, TWData, blank_income
from .deals import AnyTime
from .disputes import FlipAndDisputes
from .draw import DrawPhase
from .effects import Effects
from .income import PHASE_LABELS, IncomeAndCleanup
from .leaders import LeaderPhase
from .modifiers import Modifiers
from .policy import PolicyPhase
from .prompts import Prompts
from .rules import Index, default_rules, index
from .scan import Scans
from .trade import TradePhase
from .upkeep import EventAndUpkeep

# The rules engine's version, kept in every session's options as ``rules`` (not an Option: it
# is set by the game, never chosen). Version 2 computes the effects whose inputs it tracks and
# counts a Trade Warz Draw when the player draws; a log recorded before (its options are exactly
# the version-1 options) replays under version 1. docs/trade-warz.md, "Rules versions".
RULES_VERSION = 2
V1_OPTIONS = frozenset(("edition", "chill", "quick_start", "diplomatic", "fast_pass", "leaders",
                        "leader_pick", "rounds", "influence_gain", "policy_order",
                        "upkeep_confirm", "check_reveals", "export_slot_limit",
                        "pass_first_player"))


class TradeWarz(LeaderPhase, EventAndUpkeep, DrawPhase, PolicyPhase, TradePhase, AnyTime,
                FlipAndDisputes, IncomeAndCleanup, Answers, Scans, Prompts, Choices, Computed,
                Effects, Modifiers, Checks, DataBacked, Game):
    name = "trade-warz"
    title = "Trade Warz"
    min_players = 2
    max_players = 6
    start_phase = "leaders"
    counters = ("gdp",)
    shipped_data = DATA_DIR
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
        """The options, plus ``rules``: the rules version the session is played under
        (:func:`~companion.core.game.pop_rules_version`); and ``data`` (:class:`DataBacked`:
        the card data the session is played with)."""
        given = dict(given or {})
        version = pop_rules_version(given, V1_OPTIONS, RULES_VERSION)
        out = super().resolve_options(given)
        out["rules"] = version
        return out

    def data_version(self):
        return self.db.version

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
        self._edited_ix = {}                # edition -> Index of an edited copy's cards
        self._ix = {}                       # edition -> the Index this game plays (ix())
        self._moves_cache = {}
        self._last_mods = {}                # id(a game's data) -> (weakref, its last modifiers)

        def P(name, nxt, begin, done=None, end=None, prompts=None):
            def end_if(state):
                return state.data.mismatch is None and (done is None or done(state))
            return Phase(name, nxt, on_begin=begin, end_if=end_if, on_end=end,
                         label=PHASE_LABELS[name],
                         prompts=self.prompts_of(prompts or self._prompts_none))
        self.phases = {
            "leaders": P("leaders", "event", self._begin_leaders, self._leaders_done,
                         prompts=self._prompts_leaders),
            "event": P("event", "upkeep", self._begin_event),
            "upkeep": P("upkeep", "draw", self._begin_upkeep, end=self._end_upkeep),
            "draw": P("draw", "policy", self._begin_draw, self._draw_done,
                      prompts=self._prompts_draw),
            "policy": P("policy", "trade", self._begin_policy, self._policy_over,
                        prompts=self._prompts_policy),
            "trade": P("trade", "exports", self._begin_trade, self._trade_over,
                       end=self._end_trade, prompts=self._prompts_trade),
            "exports": P("exports", "disputes", self._begin_exports, self._flip_checked,
                         prompts=self._prompts_exports),
            "disputes": P("disputes", "income", self._begin_disputes, self._disputes_over,
                          prompts=self._prompts_disputes),
            "income": P("income", "cleanup", self._begin_income),
            "cleanup": P("cleanup", "event", self._begin_cleanup, end=self._end_cleanup),
        }
        # What each kind of pending step does (core/flow.py); the instant win is checked after
        # every step (Tariff Warz: outside Income).
        self.steps = {name: self._then_boom(fn) for name, fn in (
            ("fx", self._fx_step), ("upkeep_letter", self._letter_step),
            ("policy_order", self._order_step), ("policy", self._policy_step),
            ("policy_next", self._policy_next_step), ("chill_next", self._chill_next_step),
            ("dispute", self._dispute_step), ("establish", self._establish_step),
            ("income", self._income_step), ("influence", self._influence_step),
            ("boom", self._boom_step), ("hand", self._hand_step))}
        def M(name, fn, event, label, **kw):
            return Move(name, fn, event, label=label, **kw)

        self.moves = {m.name: m for m in (
            M("pick_leader", self._pick_leader, "LeaderPicked", "Pick your Leader",
              choices=self._ch_pick_leader,
              sealed=lambda s, seat: "leaders",
              doc="leader: a Leader id; ranking: more Leader ids, in order, if it is taken"),
            M("draw_cards", self._draw_cards, "CardsDrawn", "Draw cards",
              choices=self._ch_draw_cards,
              doc="split: {pile: how many} (export, tactic, policy, personal); older logs "
                  "give the piles as arguments"),
            M("choose_policy", self._choose_policy, "PolicyChosen", "Choose your Policy",
              choices=self._ch_choose_policy,
              sealed=lambda s, seat: self._policy_wid(s),
              doc="card: a Policy in hand, or null to play none; fast_pass: true to lock "
                  "your board (Tariff Warz); target, partner, draw: what the card needs"),
            M("order_policies", self._order_policies, "PoliciesOrdered", "Order the Policies",
              choices=self._ch_order_policies,
              doc="order: the seats whose Policies resolve, first to last"),
            M("place_export", self._place_export, "ExportPlaced", "Place an Export",
              choices=self._ch_place_export,
              sealed=lambda s, seat: self._export_wid(s, seat),
              doc="card: an Export in hand; partner: a Trade Partner id; slot: 1, 2, ..."),
            M("aim_export", self._aim_export, "ExportAimed", "Aim your next scanned Export",
              choices=self._ch_aim_export,
              doc="partner, slot: where the next scanned Export goes (null to clear)"),
            M("play_tactic", self._play_tactic, "TacticPlayed", "Play a Tactic",
              choices=self._ch_play_tactic, any_time=True,
              doc="card; target, partner, draw, discard, routes: what the card needs"),
            M("activate_ability", self._activate, "AbilityActivated",
              "Use your Leader's ability",
              choices=self._ch_activate_ability, any_time=True,
              doc="target, draw, discard: what the Leader's ability needs"),
            M("use_fast_pass", self._use_fast_pass, "FastPassUsed", "Use your Fast-Pass",
              any_time=True),
            M("offer_influence", self._offer_influence, "InfluenceOffered",
              "Offer an influence deal",
              choices=self._ch_offer_influence, any_time=True,
              doc="to: a seat; partner; amount; price (GDP); side: sell or buy"),
            M("answer_offer", self._answer_offer, "OfferAnswered", "Answer an influence offer",
              choices=self._ch_answer_offer,
              any_time=True, doc="offer: its number; accept: true or false"),
            M("offer_swap", self._offer_swap, "SwapOffered", "Offer a card swap",
              choices=self._ch_offer_swap,
              any_time=True, private=True,
              doc="to: a seat; give: a card in your hand (Diplomatic)"),
            M("answer_swap", self._answer_swap, "SwapAnswered", "Answer a card swap",
              choices=self._ch_answer_swap,
              any_time=True, private=True,
              doc="offer: its number; give: a card in your hand, or null to decline"),
            M("note_loan", self._note_loan, "LoanNoted", "Lend GDP",
              choices=self._ch_note_loan, any_time=True,
              doc="to: a seat; amount: GDP handed over now; terms: text (Diplomatic)"),
            M("start_trade_timer", self._start_trade_timer, "TradeTimerStarted",
              "Start the Trade timer", table=True,
              doc="the table starts the 3:00 Trade timer by a tap, before any Export"),
            M("done_trade", self._done_trade, "TradeDone", "I'm done trading"),
            M("pass_turn", self._pass_turn, "TurnPassed", "Pass"),
            M("choose_dispute", self._choose_dispute, "DisputeChosen", "Choose a dispute",
              choices=self._ch_choose_dispute,
              doc="contest: its number (older logs: partner, slot)"),
            M("bid", self._bid, "BidSealed", "Bid",
              choices=self._ch_bid, sealed=lambda s, seat: self._bid_wid(s),
              doc="amount: GDP, 0 up to what you have"),
            M("choose_target", self._choose_target, "TargetChosen", "Choose a target",
              choices=self._ch_choose_target,
              doc="target: a seat"),
            M("choose_partner", self._choose_partner, "PartnerChosen",
              "Choose a Trade Partner",
              choices=self._ch_choose_partner, doc="partner: an id"),
            M("choose_optional", self._choose_optional, "OptionChosen", "Decide",
              choices=self._ch_choose_optional,
              doc="accept: bool"),
            M("discard_cards", self._discard_cards, "CardsDiscarded", "Discard cards",
              choices=self._ch_discard_cards,
              doc="cards: ids, or {id: how many}"),
            M("choose_routes", self._choose_routes, "RoutesChosen", "Choose routes",
              choices=self._ch_choose_routes,
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
            M("adjust", self._adjust, "AdjustedByHand", "Adjust by hand",
              choices=self._ch_adjust, table=True,
              doc="what: gdp, power (in a dispute) or influence; player: a seat; partner "
                  "(influence); by: the change"),
            M("scan_card", self._scan_card, "CardScanned", "Check a card without the reader",
              choices=self._ch_scan_card,
              table=True, doc="card: an id"),
            M("settle_mismatch", self._settle_mismatch, "MismatchSettled",
              "Settle the scanned card",
              choices=self._ch_settle_mismatch, table=True,
              doc="keep: scanned or chosen; placement: which face-down Export (if asked)"),
        )}
        from .bots import BOTS, TWObservation, table_bot
        self.bots = BOTS
        self.table_bot = table_bot
        self.observation = TWObservation

    def setup(self, state):
        cfg = state.config
        ed = cfg["edition"]
        ix = self.index(ed)
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
            board=Board(leaders=[None] * n, policy=[None] * n,
                        policy_ch=[{} for _ in range(n)],
                        routes={p: {} for p in ix.partners}),
            gdp=[r.quick_start_gdp if quick else r.start_gdp] * n,
            hands=[[] for _ in range(n)], piles=[[] for _ in range(n)],
            fast_pass=[bool(ix.rules.fast_pass and cfg["fast_pass"])] * n,
            influence=[{} for _ in range(n)], locked=[False] * n, activated=[False] * n,
            extra_policy=[0] * n, draw=DrawRound(to_draw=[0] * n),
            pol=PolicyRound(left=[0] * n), trade=TradeRound(nplaced=[0] * n, done=[False] * n),
            income=[blank_income() for _ in range(n)])

    # -- the flow -------------------------------------------------------------------------------
    def _then_boom(self, fn):
        def step(state, job):
            got = fn(state, job)
            if got is not ASK and not state.data.boom_first and not state.data.defer_boom:
                self.check_boom(state)
            return got
        step.__name__ = fn.__name__
        return step

    def after_command(self, state):
        """A GDP change outside the steps (a move's cost) may reach the line (Tariff Warz); in
        the Draw (rules v2) the count of every seat yet to draw follows its hand."""
        d = state.data
        if not d.boom_first and not d.defer_boom and not state.flow.busy():
            self.check_boom(state)
        if state.outcome is None and state.phase == "draw" and d.draw.pending and \
                self.v2(state):
            self._refresh_draw(state)

    def cue(self, state):
        """The light follows the Upkeep step that is resolving (C, M, Y or K)."""
        if state.data is None or state.phase != "upkeep":
            return None
        letter = next((st["letter"] for st in state.data.upkeep if st["state"] == "current"),
                      None)
        return {"upkeep": letter} if letter else None

    def _flip_checked(self, state):
        return not state.data.disputes.check

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

    # -- holdings ---------------------------------------------------------------------------------
    def holdings(self, state, seat):
        from .views import holdings
        return holdings(self, state, seat)

    def hidden_holdings(self, state, seat):
        from .views import hidden_holdings
        return hidden_holdings(self, state, seat)

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
        leaders = d.board.leaders
        return {"factions": {str(s): ix.name_of(lid) for s, lid in enumerate(leaders) if lid},
                "leaders": {str(s): lid for s, lid in enumerate(leaders) if lid},
                "leader_names": {lid: ix.name_of(lid) for lid in leaders if lid},
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

