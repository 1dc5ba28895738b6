"""Trade Warz's game data (``state.data``), grouped by what it is for.

* :class:`Board`: what is in play, the sources of every modifier (Leaders, slotted Policies,
  routes, this round's Tactics, the Event). It is a core :class:`~companion.core.derived.Tracked`
  record: the modifier lists and the route index derived from it are recomputed by the core
  after any change to it (``state.derived``), never kept right by hand.
* one record per phase that keeps something between commands: :class:`LeaderPick`,
  :class:`DrawRound`, :class:`PolicyRound`, :class:`TradeRound`, :class:`DisputeRound`;
* the rest (:class:`TWData`): GDP, hands, piles and decks, influence, the round's flags, the
  curves ``companion stats`` reads.

What the flow still has to resolve (effects, Policies in order, disputes, income...) is not
here: it is the core's pending steps (``state.flow``).
"""
import dataclasses

from companion.core.derived import Tracked


def _list():
    return dataclasses.field(default_factory=list)


def _dict():
    return dataclasses.field(default_factory=dict)


@dataclasses.dataclass(eq=False)
class Board(Tracked):
    leaders: list                 # seat -> Leader id (None until picked)
    policy: list                  # seat -> slotted Policy
    policy_ch: list               # seat -> its target / partner
    routes: dict                  # partner -> {slot: [seat, card]}
    in_play: list = _list()       # Tactics this round: {card, owner, ch}
    event: str | None = None      # this round's Event


@dataclasses.dataclass
class LeaderPick:
    order: list | None = None     # the order the lot settled clashes in
    result: list | None = None    # per seat: {seat, leader, wish (1.. or None: by lot), wishes}


@dataclasses.dataclass
class DrawRound:
    to_draw: list                 # shown count; 0: drawn
    pending: list = _list()       # rules v2: seats yet to draw


@dataclasses.dataclass
class PolicyRound:
    left: list                    # seat -> Policies it may still play this round
    k: int = 0                    # the window number within the round
    done: bool = False
    check: bool = False           # the reveal waits for the table (scans, Next)
    revealed: dict = _dict()      # seat -> {card, fast_pass, target, partner, draw}
    confirmed: list = _list()     # seats whose scan matched
    kept: dict = dataclasses.field(default_factory=dict)   # seat -> a settled mismatch kept


@dataclasses.dataclass
class TradeRound:
    nplaced: list                 # seat -> face-down Exports placed this round
    done: list                    # seat -> pressed Done
    placements: list = _list()    # {seat, partner, slot, window, card, paid, state}
    aims: dict = _dict()          # seat -> [partner, slot] for the next scanned Export
    over: bool = False
    timer_started: bool = False
    turn: int = 0                 # Chill: whose turn it is to place
    passes: int = 0               # Chill: passes in a row
    offers: list = _list()        # open influence offers and card swaps


@dataclasses.dataclass
class DisputeRound:
    check: bool = False           # the flip waits for the table (scans, Next)
    contests: list = _list()
    order: list = _list()         # who chooses, poorest first
    order_gdp: list = _list()     # their GDP when the order was set (it changes as bids are paid)
    dturn: int = 0
    chooser: int | None = None
    current: int | None = None    # the contest being bid for
    done: bool = False
    count: int = 0                # disputes this round (for the report)


@dataclasses.dataclass
class TWData:
    edition: str
    rounds: int                   # the last round (4 in Quick Start, else 5)
    win: int                      # the instant-win line (50)
    boom_first: bool              # Trade Warz: the first to reach the line wins
    board: Board
    gdp: list
    hands: list                   # private: seat -> card ids
    piles: list                   # private order: seat -> own draw pile (Leader deck / pile)
    fast_pass: list               # seat -> token ready (Tariff Warz)
    influence: list               # seat -> {partner: n}
    locked: list                  # board locked this round
    activated: list               # Leader ability used this round
    extra_policy: list            # extra Policies this round
    draw: DrawRound
    pol: PolicyRound
    trade: TradeRound
    income: list                  # seat -> {routes, route_total, effects}, for the screens
    first: int = 0                # first-player marker
    decks: dict = _dict()         # private order: kind -> ids
    discards: dict = _dict()
    out: list = _list()           # Leader cards out of the game
    events: list = _list()
    event_discard: list = _list()
    pick: LeaderPick = dataclasses.field(default_factory=LeaderPick)
    disputes: DisputeRound = dataclasses.field(default_factory=DisputeRound)
    upkeep: list = _list()        # the CMYK steps of this Upkeep, for the screens
    mismatch: dict | None = None  # a scanned card that disagrees, for the table to settle
    offer_seq: int = 0
    loans: list = _list()
    defer_boom: bool = False      # Income: the line is checked once, at its end
    boom_tie: list | None = None
    end: str | None = None        # how the game ended: boom (the line) or close (last round)
    gdp_curve: list = _list()
    disputes_per_round: list = _list()

    @property
    def vp_curve(self):
        """The GDP after each round, under the name ``companion simulate`` reads."""
        return self.gdp_curve


def blank_income():
    return {"routes": [], "route_total": 0, "effects": []}
