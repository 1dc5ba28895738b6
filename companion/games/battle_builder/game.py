"""Battle Builder: cooperative monster battles and PvP for 2-4 players.

Rules: shared/rules/battle-builder.md. Every ruling where the rulebook is silent or
contradicts itself, and every variant setting, is listed in docs/battle-builder.md; every number
is in data/*.toml. The shape of a game:

    objectives (victory=objectives only) -> [select -> prep -> battle -> shop -> pvp_check
    -> (pvp_setup -> pvp_prep -> pvp)?] x battles -> final

Sealed choices (each a window, revealed together): the monster vote or dual-monster pick
(``choose_monster``), auction bids (``bid_auction``), roles and bets (``prepare``), every battle
turn's card + stamina + target (``play_turn``), the PvP vote (``vote_pvp``) and the PvP wagers,
revenge and spectator bets (``prepare_pvp``).
"""
import dataclasses

from companion.core.args import is_whole
from companion.core.datadir import DataBacked
from companion.core.errors import ConfigError, IllegalMoveError
from companion.core.game import Game, Move, Option, Phase

from . import battle as engine
from . import choices as ch
from .data import CATEGORIES, DATA, DIFFICULTIES, ROLES, default_rules

PAIRINGS_4 = ([[0, 1], [2, 3]], [[0, 2], [1, 3]], [[0, 3], [1, 2]])
TOKEN_NAMES = ("skill", "attack", "defense", "speed", "hp", "combat", "training")
REVENGE_USES = ("stamina", "defense", "damage")


def _and(items):
    """``a``, ``a and b``, ``a, b and c``."""
    items = list(items)
    return " and ".join(items) if len(items) < 3 else ", ".join(items[:-1]) + " and " + items[-1]


def _gained(tokens, vp):
    """``+4 tokens, +1 VP``, or ``nothing``."""
    parts = ([f"+{tokens} token{'s' if tokens != 1 else ''}"] if tokens else []) + \
        ([f"+{vp} VP"] if vp else [])
    return ", ".join(parts) if parts else "nothing"


@dataclasses.dataclass
class BBData:
    vp: list
    tokens: list                    # per seat: {token type: count}
    attack: list                    # per seat: attack card ids owned (the deck)
    defense: list                   # per seat: defence card ids owned
    hp_ups: list
    st_ups: list
    monster_deck: list
    env_deck: list
    arena_deck: list
    fixed_teams: list
    monster_discard: list = dataclasses.field(default_factory=list)
    teams: list = dataclasses.field(default_factory=list)
    offers: list = dataclasses.field(default_factory=list)       # per team, face up (draw3)
    pool: list = dataclasses.field(default_factory=list)         # auction: face up
    dual_draws: dict = dataclasses.field(default_factory=dict)   # seat -> ids (private)
    picks: list = dataclasses.field(default_factory=list)        # per team: chosen monsters
    auction: dict | None = None
    prep: dict = dataclasses.field(default_factory=dict)         # seat -> role / bet (revealed)
    battles: dict = dataclasses.field(default_factory=dict)      # this phase's battles
    # per seat, in the current battle
    hp: list = dataclasses.field(default_factory=list)
    max_now: list = dataclasses.field(default_factory=list)
    stamina: list = dataclasses.field(default_factory=list)
    pile: list = dataclasses.field(default_factory=list)         # attack cards left to play
    ddeck: list = dataclasses.field(default_factory=list)        # defence draw pile (hidden order)
    ddiscard: list = dataclasses.field(default_factory=list)
    negate: list = dataclasses.field(default_factory=list)
    mods: list = dataclasses.field(default_factory=list)         # revenge: damage, defense_cards
    bstats: list = dataclasses.field(default_factory=list)
    win_of: list = dataclasses.field(default_factory=list)       # seat -> open turn window
    battle_of: list = dataclasses.field(default_factory=list)
    # shop
    shop_pool: list = dataclasses.field(default_factory=list)
    stock: dict = dataclasses.field(default_factory=dict)
    convert_ok: bool = False
    bought: list = dataclasses.field(default_factory=list)
    # PvP
    pvp_no: int = 0
    pvp_done: int = 0
    pvp_now: bool = False
    pairings: list = dataclasses.field(default_factory=list)
    byes: list = dataclasses.field(default_factory=list)
    pvp_prep: dict = dataclasses.field(default_factory=dict)
    pots: dict = dataclasses.field(default_factory=dict)         # battle id -> tokens in the pot
    revenge: list = dataclasses.field(default_factory=list)
    last_pvp_winners: list = dataclasses.field(default_factory=list)
    # records for scoring and the playtest log
    monsters_defeated: list = dataclasses.field(default_factory=list)
    pvp_wins: list = dataclasses.field(default_factory=list)
    objective_offer: dict = dataclasses.field(default_factory=dict)   # private
    objective: dict = dataclasses.field(default_factory=dict)         # private until the end
    bonuses: dict = dataclasses.field(default_factory=dict)
    ending: dict | None = None
    vp_curve: list = dataclasses.field(default_factory=list)
    track: dict = dataclasses.field(default_factory=dict)


def _int(value, what, lo, hi=None):
    if not is_whole(value):
        raise IllegalMoveError(f"{what} must be a whole number, not {value!r}.")
    if value < lo or (hi is not None and value > hi):
        rng = f"from {lo} to {hi}" if hi is not None else f"at least {lo}"
        raise IllegalMoveError(f"{what} must be {rng}; {value} is not.")
    return value


class BattleBuilder(DataBacked, Game):
    name = "battle-builder"
    title = "Battle Builder"
    min_players = 2
    max_players = 4
    start_phase = "objectives"
    counters = ("vp", "health") + TOKEN_NAMES
    shipped_data = DATA
    options = (
        Option("arc", "9+3", "Game arc: 9 monster battles with PvP after every third (9+3), the "
               "short arc from the known issues (6+2), or the '4 rounds' reading (4+1).",
               ("9+3", "6+2", "4+1")),
        Option("teams", "rotating", "4 players: partners rotate each battle, or stay fixed "
               "(Variant A). 2 players are always one team, 3 players one team of three.",
               ("rotating", "fixed")),
        Option("monster_select", "draw3", "Draw 3 monsters and vote (sealed), or an auction of "
               "sealed skill-token bids (Variant B).", ("draw3", "auction")),
        Option("monster_pool", "all", "Only monsters of one difficulty (for calibration).",
               ("all",) + DIFFICULTIES),
        Option("dual_monsters", False, "Each player draws 2 monsters and secretly keeps one; "
               "the team fights them all (monster Variant B)."),
        Option("targeting", "slower", "Whom a monster attacks: 1 the slower player, 2 who "
               "dealt it most damage last turn, 3 higher current HP, 4 more VP.",
               ("slower", "top-damage", "higher-hp", "more-vp")),
        Option("monster_abilities", "printed", "Monster special rules: none, the printed ones "
               "(AoE, Enrage), or all including Variant C.", ("none", "printed", "all")),
        Option("environments", False, "Draw an environment card each monster battle "
               "(Variant D)."),
        Option("tokens", "A", "Token system: A unified, B four types, C combat/training, "
               "D four types with conversion.", ("A", "B", "C", "D")),
        Option("earning", "standard", "Earning: standard performance bonuses, or Variant A "
               "action-based, B milestones, C roles, D betting.",
               ("standard", "action", "milestones", "roles", "betting")),
        Option("reward_split", "full", "Base monster reward: each player gets the full amount, "
               "or the team divides it.", ("full", "divided")),
        Option("turn_limit_reward", "defeated", "A monster battle that runs out of turns: "
               "only the monsters defeated pay their reward (the rulebook pays it for "
               "defeating the monster), or every monster's full reward as if won.",
               ("defeated", "full")),
        Option("convert_when", "after-pvp", "System D conversion: only in the shop after a "
               "PvP, or in every shop.", ("after-pvp", "any-shop")),
        Option("diminishing", False, "Upgrade Variant A: each HP/stamina upgrade costs more."),
        Option("upgrade_trees", False, "Upgrade Variant B: tier 2/3 cards need lower-tier "
               "cards of the same kind."),
        Option("card_value_rewards", False, "Upgrade Variant C: a PvP winner also gains 1/3 of "
               "the loser's deck value in tokens."),
        Option("limited_shop", False, "Upgrade Variant D: 6 random cards of each tier per "
               "shop."),
        Option("scarce_shop", False, "Upgrade Variant E: limited copies of each card."),
        Option("deck_thinning", False, "Buying a card may remove one basic card."),
        Option("pvp_trigger", "fixed", "PvP after every third battle, or by majority vote "
               "(Variant C; the arc's PvP count is still played).", ("fixed", "vote")),
        Option("pvp_pairing", "standing", "3-4 players: pair by VP standing (A), rotation "
               "(B) or draft (C, the lowest VP chooses).", ("standing", "rotation", "draft")),
        Option("pvp_rewards", "fixed", "PvP reward Option A fixed, B deck value, C wager pot, "
               "D choice of piles.", ("fixed", "deck-value", "wager", "choice")),
        Option("opportunity", False, "PvP Variant A: attack of opportunity."),
        Option("best_of_three", False, "PvP Variant B: best of three rounds."),
        Option("arenas", False, "PvP Variant C: arena cards."),
        Option("spectator_bets", False, "PvP Variant D: players not in a match bet on it."),
        Option("revenge", False, "PvP Variant E: revenge tokens for PvP losers."),
        Option("pvp_stalemate", "play-on", "A PvP battle where both players are out of "
               "stamina (a ruling; the rulebook is silent): play on to the turn limit, or end "
               "it at once as at the turn limit (more HP wins).", ("play-on", "end")),
        Option("victory", "standard", "Most VP (standard), or Variant A threshold (12 VP), B "
               "category bonuses, C secret objectives, D championship final.",
               ("standard", "threshold", "categories", "objectives", "championship")),
        Option("tiebreak", "tokens", "Equal VP: most skill tokens (A), highest deck value (B), "
               "sudden-death PvP (C), or a shared win.",
               ("tokens", "deck-value", "sudden-death", "shared")),
        Option("turn_seconds", 0, "Battle turn timer in seconds (0 = none); seats not locked "
               "in when it runs out pass."),
        Option("shop_seconds", 0, "Shop timer in seconds (0 = none)."),
    )

    def __init__(self, rules=None, data_dir=None):
        self.rules = rules or default_rules()
        self.data_dir = data_dir            # an edited copy of data/ (None: the shipped files)
        self._ability_sets = {
            "none": frozenset(),
            "printed": self.rules.battle["printed_abilities"],
            "all": self.rules.battle["printed_abilities"] | self.rules.battle[
                "variant_abilities"]}
        self.phases = {p.name: p for p in (
            Phase("objectives", "select", on_begin=self._begin_objectives,
                  label="Secret objectives"),
            Phase("select", "prep", on_begin=self._begin_select, label="Monster selection"),
            Phase("prep", "battle", on_begin=self._begin_prep, label="Roles and bets"),
            Phase("battle", "shop", on_begin=self._begin_battles, on_end=self._end_battles,
                  label="Monster battle"),
            Phase("shop", "pvp_check", on_begin=self._begin_shop, on_end=self._end_shop,
                  label="Shop"),
            Phase("pvp_check", self._after_check, on_begin=self._begin_pvp_check,
                  label="PvP check"),
            Phase("pvp_setup", "pvp_prep", on_begin=self._begin_pvp_setup, label="PvP pairing"),
            Phase("pvp_prep", "pvp", on_begin=self._begin_pvp_prep, label="PvP wagers"),
            Phase("pvp", self._after_pvp, on_begin=self._begin_pvp, on_end=self._end_pvp,
                  label="PvP battle"),
            Phase("final", "final", on_begin=self._begin_final, on_end=self._end_final,
                  label="Final"),
        )}
        def spec(fn):
            return lambda state, seat: fn(self, state, seat)

        self.moves = {m.name: m for m in (
            Move("keep_objective", self._keep_objective, "ObjectiveKept",
                 doc="index: 0 or 1, which of your two secret objectives to keep",
                 label="Keep an objective", choices=spec(ch.keep_objective)),
            Move("choose_monster", self._choose_monster, "MonsterChosen",
                 sealed=lambda s, seat: f"monster-{s.round}",
                 doc="monster: a monster id from your prompt's options",
                 label="Choose a monster", choices=spec(ch.choose_monster)),
            Move("bid_auction", self._bid_auction, "AuctionBidSealed",
                 sealed=lambda s, seat: f"auction-{s.round}",
                 doc="tokens: how many tokens you bid to choose a monster first",
                 label="Bid for first pick", choices=spec(ch.bid_auction)),
            Move("pick_monster", self._pick_monster, "MonsterPicked",
                 doc="monster: a monster id from the pool",
                 label="Pick your monster", choices=spec(ch.pick_monster)),
            Move("prepare", self._prepare, "PreparationSealed",
                 sealed=lambda s, seat: f"prep-{s.round}",
                 doc="role: striker/tank/tactician/survivor; bet: killing_blow/no_fall or "
                     "null; stake: tokens",
                 label="Prepare for battle", choices=spec(ch.prepare)),
            Move("play_turn", self._play_turn, "TurnSealed",
                 sealed=lambda s, seat: s.data.win_of[seat] or "no-battle",
                 doc="card: an attack card id from your pile; stamina: tokens to spend; "
                     "target: a monster index when there are several",
                 label="Attack", choices=spec(ch.play_turn)),
            Move("extra_attack", self._extra_attack, "ExtraAttackMade",
                 doc="card: an attack card id from your pile",
                 label="Extra attack", choices=spec(ch.extra_attack)),
            Move("buy", self._buy, "CardBought",
                 doc="card: a tier 1-3 card id; remove: a basic card to thin out (optional)",
                 label="Buy a card", choices=spec(ch.buy)),
            Move("upgrade", self._upgrade, "Upgraded", doc="stat: hp or stamina",
                 label="Upgrade", choices=spec(ch.upgrade)),
            Move("convert", self._convert, "TokensConverted",
                 doc="give: a token type; get: another token type",
                 label="Convert tokens", choices=spec(ch.convert)),
            Move("done_shopping", self._done_shopping, "ShoppingDone",
                 label="Done shopping"),
            Move("vote_pvp", self._vote_pvp, "PvPVoteSealed",
                 sealed=lambda s, seat: f"vote-{s.round}", doc="pvp: true or false",
                 label="Vote on PvP", choices=spec(ch.vote_pvp)),
            Move("choose_opponent", self._choose_opponent, "OpponentChosen",
                 doc="opponent: a seat", label="Choose your opponent",
                 choices=spec(ch.choose_opponent)),
            Move("prepare_pvp", self._prepare_pvp, "PvPPreparationSealed",
                 sealed=lambda s, seat: f"pvp-{s.data.pvp_no}",
                 doc="wager: tokens; revenge: stamina/defense/damage or null; bet_on: a seat "
                     "or null; stake: tokens",
                 label="Prepare for PvP", choices=spec(ch.prepare_pvp)),
            Move("choose_pile", self._choose_pile, "PileChosen", doc="pile: a or b",
                 label="Choose your reward", choices=spec(ch.choose_pile)),
        )}
        self.steps = {"act": lambda st, step: engine.act_step(self, st, step),
                      "end_turn": lambda st, step: engine.end_turn_step(self, st, step)}
        from .bots import BOTS, BBObservation
        self.bots = BOTS
        self.observation = BBObservation

    # == set-up ===================================================================================
    def setup(self, state):
        r, cfg = self.rules, state.config
        for key in ("turn_seconds", "shop_seconds"):
            if cfg[key] < 0:
                raise ConfigError(f"Option {key} must be 0 (no timer) or more seconds.")
        n = state.n
        system = r.systems[cfg["tokens"]]
        pool = self._monster_pool(state)
        deck = list(pool)
        state.rng.shuffle(deck)
        envs, arenas = list(r.environments), list(r.arenas)
        state.rng.shuffle(envs)
        state.rng.shuffle(arenas)
        fixed = []
        if n == 4:
            fixed = [list(t) for t in PAIRINGS_4[state.rng.randrange(3)]]
        start = r.setup["start_tokens"]
        d = BBData(
            vp=[0] * n, tokens=[{t: start for t in system.types} for _ in range(n)],
            attack=[list(r.setup["attack_deck"]) for _ in range(n)],
            defense=[list(r.setup["defense_deck"]) for _ in range(n)],
            hp_ups=[0] * n, st_ups=[0] * n, monster_deck=deck, env_deck=envs,
            arena_deck=arenas, fixed_teams=fixed)
        d.hp = [r.setup["hp"]] * n
        d.max_now = [r.setup["hp"]] * n
        d.stamina = [r.setup["stamina"]] * n
        d.pile = [[] for _ in range(n)]
        d.ddeck = [[] for _ in range(n)]
        d.ddiscard = [[] for _ in range(n)]
        d.negate = [False] * n
        d.mods = [{} for _ in range(n)]
        d.bstats = [engine.fresh_stats(r.setup["hp"]) for _ in range(n)]
        d.win_of = [None] * n
        d.battle_of = [None] * n
        d.bought = [[] for _ in range(n)]
        d.revenge = [0] * n
        d.monsters_defeated = [{k: 0 for k in DIFFICULTIES} for _ in range(n)]
        d.pvp_wins = [0] * n
        if cfg["scarce_shop"]:
            d.stock = {cid: r.shop["scarce_copies"] for cid, c in r.cards.items() if c.tier}
        d.track = {"started": state.now, "ended": None,
                   "choices": {k: 0 for k in DIFFICULTIES},
                   "results": {k: {"won": 0, "lost": 0} for k in DIFFICULTIES},
                   "battles": [], "pvp": []}
        state.data = d

    # options added after games were logged, with the reading those games were played by
    LEGACY_DEFAULTS = {"turn_limit_reward": "full", "pvp_stalemate": "play-on"}

    def resolve_options(self, given):
        """As :meth:`Game.resolve_options`, but a log's start record (which holds every option
        of its day) that lacks an option added since keeps the reading it was played with, so
        an old session replays to the same state. Plus ``data`` (:class:`DataBacked`)."""
        given = dict(given or {})
        known = {o.name for o in self.options}
        older = known - set(self.LEGACY_DEFAULTS)
        if older <= set(given):
            for name, value in self.LEGACY_DEFAULTS.items():
                given.setdefault(name, value)
        return super().resolve_options(given)

    def _monster_pool(self, state):
        want = state.config["monster_pool"]
        return [mid for mid, m in self.rules.monsters.items()
                if want == "all" or m.difficulty == want]

    def active_abilities(self, state):
        return self._ability_sets[state.config["monster_abilities"]]

    def arc(self, state):
        return self.rules.arcs[state.config["arc"]]

    # == tokens ===================================================================================
    def system(self, state):
        return self.rules.systems[state.config["tokens"]]

    def wallet(self, state, seat):
        return sum(state.data.tokens[seat].values())

    def _gain_spread(self, state, seat, n, offset=0):
        """Pay ``n`` tokens round-robin across the system's types (base rewards, winnings)."""
        types = self.system(state).types
        tok = state.data.tokens[seat]
        for k in range(n):
            tok[types[(offset + k) % len(types)]] += 1

    def _pay_any(self, state, seat, n):
        """Take ``n`` tokens from the seat's largest piles first (bids, wagers, pots)."""
        tok = state.data.tokens[seat]
        types = self.system(state).types
        paid = 0
        while paid < n:
            t = max(types, key=lambda k: (tok[k], -types.index(k)))
            if tok[t] <= 0:
                break
            tok[t] -= 1
            paid += 1
        return paid

    def deck_value(self, state, seat):
        cards, values = self.rules.cards, self.rules.shop["card_value"]
        d = state.data
        return sum(values[cards[c].tier] for c in d.attack[seat] + d.defense[seat])

    # == draws ====================================================================================
    def _draw_monster(self, state):
        d = state.data
        if not d.monster_deck:
            d.monster_deck, d.monster_discard = d.monster_discard, []
            if not d.monster_deck:                # every card is out: shuffle in another set
                d.monster_deck = list(self._monster_pool(state))
            state.rng.shuffle(d.monster_deck)
            state.note("MonsterDeckShuffled", cards=len(d.monster_deck))
        return d.monster_deck.pop()

    def _draw_effect(self, state, key):
        d = state.data
        deck = d.env_deck if key == "environment" else d.arena_deck
        if not deck:
            deck.extend(self.rules.environments if key == "environment" else self.rules.arenas)
            state.rng.shuffle(deck)
        return deck.pop()

    def teams_for(self, state, battle_no):
        n = state.n
        if n < 4:
            return [list(range(n))]
        if state.config["teams"] == "fixed":
            return [list(t) for t in state.data.fixed_teams]
        return [list(t) for t in PAIRINGS_4[(battle_no - 1) % 3]]

    def team_of(self, state, seat):
        for k, team in enumerate(state.data.teams):
            if seat in team:
                return k
        return None

    # == objectives (victory Variant C) =========================================================
    def _begin_objectives(self, state):
        if state.config["victory"] != "objectives":
            return
        d = state.data
        deck = list(self.rules.objectives)
        state.rng.shuffle(deck)
        k = self.rules.victory["objectives_dealt"]
        for s in state.seats():
            d.objective_offer[s] = [deck.pop() for _ in range(k)]
            state.prompt(s, ("keep_objective",), options=list(d.objective_offer[s]))
            state.note("ObjectivesDealt", to=s, objectives=list(d.objective_offer[s]))

    def _keep_objective(self, state, seat, index):
        offer = state.data.objective_offer[seat]
        _int(index, "index", 0, len(offer) - 1)
        state.data.objective[seat] = offer[index]
        state.data.objective_offer[seat] = []
        state.clear_prompt(seat)
        state.note("ObjectiveKept", seat=seat)

    # == monster selection ========================================================================
    def _begin_select(self, state):
        state.round += 1
        d, cfg = state.data, state.config
        d.teams = self.teams_for(state, state.round)
        d.picks = [[] for _ in d.teams]
        d.offers, d.pool, d.dual_draws, d.auction, d.prep = [], [], {}, None, {}
        d.battles = {}
        r = self.rules
        if cfg["dual_monsters"]:
            for s in state.seats():
                d.dual_draws[s] = [self._draw_monster(state) for _ in
                                   range(r.select["dual_draw"])]
            w = state.open_window(f"monster-{state.round}", "monster", list(state.seats()),
                                  self._monsters_revealed, default=None,
                                  label=f"Battle {state.round}: monster picks")
            for s in state.seats():
                state.prompt(s, ("choose_monster",), window=w.id, mode="dual",
                             options=list(d.dual_draws[s]))
                state.note("MonstersDrawn", to=s, monsters=list(d.dual_draws[s]))
            return
        if cfg["monster_select"] == "auction":
            d.pool = [self._draw_monster(state) for _ in
                      range(len(d.teams) + r.select["auction_extra"])]
            w = state.open_window(f"auction-{state.round}", "auction", list(state.seats()),
                                  self._auction_revealed, default=0,
                                  label=f"Battle {state.round}: monster auction")
            for s in state.seats():
                state.prompt(s, ("bid_auction",), window=w.id, most=self.wallet(state, s),
                             pool=list(d.pool))
            state.note("MonstersOffered", pool=list(d.pool))
            return
        d.offers = [[self._draw_monster(state) for _ in range(r.select["draw"])]
                    for _ in d.teams]
        w = state.open_window(f"monster-{state.round}", "monster", list(state.seats()),
                              self._monsters_revealed, default=None,
                              label=f"Battle {state.round}: monster vote")
        for s in state.seats():
            state.prompt(s, ("choose_monster",), window=w.id, mode="vote",
                         options=list(d.offers[self.team_of(state, s)]))
        state.note("MonstersOffered", offers=[list(o) for o in d.offers])

    def _choose_monster(self, state, seat, monster):
        options = state.prompts[seat]["options"]
        if monster not in options:
            names = ", ".join(f"{self.rules.monsters[m].name} ({m})" for m in options)
            raise IllegalMoveError(f"{monster!r} is not a monster you can choose; choose one "
                                   f"of {names}.")
        return monster

    def _monsters_revealed(self, state, window):
        d = state.data
        choices = window.revealed()
        if state.config["dual_monsters"]:
            for k, team in enumerate(d.teams):
                for s in team:
                    draw = d.dual_draws[s]
                    pick = choices.get(s)
                    if pick not in draw:                  # defaulted: the first card drawn
                        pick = draw[0]
                    d.picks[k].append(pick)
                    d.monster_discard.extend(m for m in draw if m != pick)
        else:
            for k, team in enumerate(d.teams):
                offer = d.offers[k]
                votes = {m: 0 for m in offer}
                for s in team:
                    if choices.get(s) in votes:
                        votes[choices[s]] += 1
                top = max(votes.values())
                tied = [m for m in offer if votes[m] == top]
                pick = tied[0] if len(tied) == 1 else state.rng.choice(tied)
                d.picks[k] = [pick]
                d.monster_discard.extend(m for m in offer if m != pick)
                state.note("MonsterVoted", team=team, monster=pick, votes=votes,
                           tie=len(tied) > 1)
        self._count_choices(state)

    def _count_choices(self, state):
        d = state.data
        for picks in d.picks:
            for m in picks:
                d.track["choices"][self.rules.monsters[m].difficulty] += 1

    def _bid_auction(self, state, seat, tokens):
        most = self.wallet(state, seat)
        if most == 0 and tokens != 0:
            _int(tokens, "Your bid", 0)
            raise IllegalMoveError("You have no tokens to bid; bid 0.")
        return _int(tokens, "Your bid", 0, most)

    def _auction_revealed(self, state, window):
        d = state.data
        bids = window.revealed()
        order = list(state.seats())
        state.rng.shuffle(order)                                 # seeded tiebreak
        order.sort(key=lambda s: -(bids.get(s) or 0))
        d.auction = {"bids": {str(s): bids.get(s) or 0 for s in state.seats()},
                     "order": order, "picked": []}
        state.note("AuctionRevealed", bids=d.auction["bids"], order=order)
        self._next_auction_pick(state)

    def _next_auction_pick(self, state):
        d = state.data
        a = d.auction
        for s in a["order"]:
            k = self.team_of(state, s)
            if k not in a["picked"] and d.pool:
                state.prompt(s, ("pick_monster",), pool=list(d.pool),
                             bid=a["bids"][str(s)])
                return
        d.monster_discard.extend(d.pool)
        d.pool = []
        self._count_choices(state)

    def _pick_monster(self, state, seat, monster):
        d = state.data
        if monster not in d.pool:
            raise IllegalMoveError(f"{monster!r} is not in the pool; choose one of "
                                   f"{', '.join(d.pool)}.")
        k = self.team_of(state, seat)
        bid = d.auction["bids"][str(seat)]
        paid = self._pay_any(state, seat, bid)
        d.pool.remove(monster)
        d.picks[k] = [monster]
        d.auction["picked"].append(k)
        state.clear_prompt(seat)
        state.note("MonsterPicked", seat=seat, team=d.teams[k], monster=monster, paid=paid)
        self._next_auction_pick(state)

    # == roles and bets (earning Variants C and D) ================================================
    def _begin_prep(self, state):
        mode = state.config["earning"]
        if mode not in ("roles", "betting"):
            return
        w = state.open_window(f"prep-{state.round}", "prep", list(state.seats()),
                              self._prep_revealed, default={},
                              label=f"Battle {state.round}: " +
                                    ("roles" if mode == "roles" else "bets"))
        b = self.rules.betting
        for s in state.seats():
            if mode == "roles":
                state.prompt(s, ("prepare",), window=w.id, roles=list(ROLES))
            else:
                state.prompt(s, ("prepare",), window=w.id, bets=list(b["kinds"]),
                             most=min(b["max_stake"], self.wallet(state, s)))

    def _prepare(self, state, seat, role=None, bet=None, stake=0):
        if state.config["earning"] == "roles":
            if role not in ROLES:
                raise IllegalMoveError(f"Choose a role: {', '.join(ROLES)} (not {role!r}).")
            if bet is not None or stake:
                raise IllegalMoveError("There is no betting with role cards.")
            return {"role": role}
        if role is not None:
            raise IllegalMoveError("There are no role cards with betting.")
        b = self.rules.betting
        if bet is None:
            if stake:
                raise IllegalMoveError("A stake needs a bet: killing_blow or no_fall.")
            return {"bet": None, "stake": 0}
        if bet not in b["kinds"]:
            raise IllegalMoveError(f"A bet is killing_blow (you deal the killing blow) or "
                                   f"no_fall (nobody on your team drops below "
                                   f"{b['no_fall_hp']} HP), not {bet!r}.")
        most = min(b["max_stake"], self.wallet(state, seat))
        if most < 1:
            raise IllegalMoveError("You have no tokens to stake on a bet.")
        _int(stake, "Your stake", 1, most)
        return {"bet": bet, "stake": stake}

    def _prep_revealed(self, state, window):
        d = state.data
        for s, chosen in window.revealed().items():
            chosen = dict(chosen or {})
            if chosen.get("bet"):
                chosen["stake"] = self._pay_any(state, s, chosen["stake"])   # held until the end
            d.prep[s] = chosen

    # == monster battles ==========================================================================
    def _begin_battles(self, state):
        d = state.data
        for k, team in enumerate(d.teams):
            env = self._draw_effect(state, "environment") if state.config["environments"] \
                else None
            engine.start_battle(self, state, f"b{state.round}.{k + 1}", "monster", team,
                                d.picks[k], effect=env)

    def _play_turn(self, state, seat, card, stamina, target=None):
        d = state.data
        if not isinstance(card, str) or card not in d.pile[seat]:
            have = ", ".join(sorted(set(d.pile[seat])))
            raise IllegalMoveError(f"{card!r} is not in your attack pile this cycle; you can "
                                   f"play {have}.")
        c = self.rules.cards[card]
        _int(stamina, "Stamina", 0, d.stamina[seat])
        if stamina < c.min_stamina and not self.must_fumble(state, seat):
            raise IllegalMoveError(f"{c.name} needs at least {c.min_stamina} stamina; you put "
                                   f"{stamina}.")
        b = d.battles[d.battle_of[seat]]
        alive = [i for i, m in enumerate(b["monsters"]) if m["hp"] > 0]
        if b["kind"] != "monster" or len(alive) <= 1:
            if target is not None and target not in alive:
                raise IllegalMoveError("There is only one opponent to attack; leave target out.")
            target = None
        else:
            if isinstance(target, bool) or target not in alive:
                names = ", ".join(f"{i} ({b['monsters'][i]['name']})" for i in alive)
                raise IllegalMoveError(f"Choose which monster to attack: {names}.")
        return {"card": card, "stamina": stamina, "target": target}

    def must_fumble(self, state, seat):
        """True when the seat cannot pay the stamina minimum of any card left in its pile: it
        then plays one without it, as a fumble (no damage; the card still cycles)."""
        d, cards = state.data, self.rules.cards
        return all(cards[c].min_stamina > d.stamina[seat] for c in d.pile[seat])

    def _turn_revealed(self, state, window):
        battle = state.data.battles[window.id.split(":")[0]]
        engine.resolve_turn(self, state, battle, window.revealed())

    def _extra_attack(self, state, seat, card):
        d = state.data
        step = state.waiting_step(seat, "extra_attack", "You have no extra attack to make now.")
        if not isinstance(card, str) or card not in d.pile[seat]:
            raise IllegalMoveError(f"{card!r} is not in your attack pile; you can play "
                                   f"{', '.join(sorted(set(d.pile[seat])))}.")
        step["extra"] = card
        state.resume(step)

    def on_timer(self, state, name):
        if name.startswith("turn:"):
            battle = state.data.battles.get(name[5:])
            if battle is not None and not battle["over"]:
                engine.timeout(self, state, battle)
        elif name == "shop":
            for s in list(state.prompts):
                if s is not None and "done_shopping" in state.prompts[s]["moves"]:
                    state.clear_prompt(s)
                    state.note("ShoppingDone", seat=s, why="shop timer")

    def _performance(self, state, battle, seat, won):
        """Performance tokens by category (or ``skill`` for System A's standard bonuses)."""
        r, cfg = self.rules, state.config
        st = state.data.bstats[seat]
        mode = cfg["earning"]
        out = {c: 0 for c in CATEGORIES}
        if mode in ("standard", "betting") and cfg["tokens"] == "A":
            if won:
                u = r.unified
                team_taken = sum(state.data.bstats[s]["taken"] for s in battle["seats"])
                fast = max((v for k, v in u["fast_turns"].items() if battle["turn"] <= k),
                           default=0)
                bonus = fast + st["overkill"] // u["overkill_per"] + \
                    (u["perfect"] if team_taken == 0 else 0)
                return {"skill": bonus}
            return {}
        if mode == "action":
            a = r.action
            out["speed"] = st["before_monster"] * a["before_monster"]
            out["attack"] = st["damage_actions"] * a["damage_action"]
            out["defense"] = st["hits"] * a["hit_taken"]
            out["hp"] = st["hp_end"] // a["hp_per"] if st["hp_end"] > 0 else 0
            return out
        if mode == "milestones":
            m = r.milestones
            if st["first"] >= m["speedster_first"]:
                out["speed"] = m["speedster_tokens"]
            if st["killing_blow"]:
                out["attack"] = m["executioner_tokens"]
            if st["taken"] >= m["tank_damage"]:
                out["defense"] = m["tank_tokens"]
            if st["hp_end"] >= m["survivor_share"] * st["max_hp"]:
                out["hp"] = m["survivor_tokens"]
            return out
        sp = r.split
        out["attack"] = st["dealt"] // sp["damage_per"]
        out["defense"] = st["blocked"] // sp["block_per"]
        out["speed"] = st["first"] * sp["first_per"]
        out["hp"] = st["hp_end"] // sp["hp_per"]
        if mode == "roles":
            role = state.data.prep.get(seat, {}).get("role")
            if role in r.roles:
                out = {c: int(v * r.roles[role][c]) for c, v in out.items()}
        return out

    def monster_battle_over(self, state, battle, won, why=None):
        d, r, cfg = state.data, self.rules, state.config
        team = battle["seats"]
        fallen = sum(1 for s in team if d.hp[s] <= 0)
        tier = "full" if fallen == 0 else ("none" if fallen == len(team) else "half")
        base = sum(m["reward"] for m in battle["monsters"])
        if why == "turn limit" and cfg["turn_limit_reward"] == "defeated":
            # the printed reward is for defeating the monster: out of turns, only the monsters
            # the team did beat pay (nobody is down, or the battle would have ended already)
            beaten = [m for m in battle["monsters"] if m["hp"] <= 0]
            base = sum(m["reward"] for m in beaten)
            tier = "none" if not beaten else "partial"
        if tier == "half":
            base //= r.rewards["half_divisor"]
        elif tier == "none":
            base = 0
        if cfg["earning"] == "roles":
            roles = [d.prep.get(s, {}).get("role") for s in team]
            roles = [x for x in roles if x]
            if len(set(roles)) < len(roles):
                base = max(0, base - r.same_role_penalty)
        per = base // len(team) if cfg["reward_split"] == "divided" else base
        system = self.system(state)
        earned = {}
        for s in team:
            before = self.wallet(state, s)
            self._gain_spread(state, s, per, offset=state.round - 1)
            for cat, v in self._performance(state, battle, s, won).items():
                if v > 0:
                    t = cat if cat == "skill" else system.category_type(cat)
                    d.tokens[s][t] += v
            bet = d.prep.get(s, {})
            if bet.get("bet"):
                ok = (d.bstats[s]["killing_blow"] > 0 if bet["bet"] == "killing_blow" else
                      all(d.bstats[x]["min_hp"] >= r.betting["no_fall_hp"] for x in team))
                if ok:
                    self._gain_spread(state, s, bet["stake"] * r.betting["payout"])
                state.note("BetSettled", seat=s, bet=bet["bet"], stake=bet["stake"], won=ok)
            earned[str(s)] = self.wallet(state, s) - before
        if won:                                  # 1 VP per monster, every team member
            for s in team:
                d.vp[s] += r.battle["vp_monster"] * len(battle["monsters"])
                for m in battle["monsters"]:
                    d.monsters_defeated[s][m["difficulty"]] += 1
        for m in battle["monsters"]:
            d.track["results"][m["difficulty"]]["won" if won else "lost"] += 1
            d.monster_discard.append(m["id"])
        d.track["battles"].append({
            "battle": state.round, "id": battle["id"], "seats": list(team),
            "monsters": [m["id"] for m in battle["monsters"]],
            "difficulty": [m["difficulty"] for m in battle["monsters"]], "won": won,
            "reward": tier, "turns": battle["turn"], "tokens": earned,
            "effect": battle["effect"], "seconds": battle["ended"] - battle["started"],
            "why": why})
        if not state.lean:
            state.note("MonsterBattleEnded", battle=battle["id"], won=won, reward=tier,
                       tokens=earned, why=why,
                       says=self._monster_end_words(state, battle, won, tier, earned, why))
        self._check_threshold(state)

    def _monster_end_words(self, state, battle, won, tier, earned, why):
        """A monster battle's end in words: who beat whom, and what each player got."""
        team = _and([state.players[s] for s in battle["seats"]])
        foes = _and([m["name"] for m in battle["monsters"]])
        vp = self.rules.battle["vp_monster"] * len(battle["monsters"]) if won else 0
        head = (f"{team} defeated {foes}" if won else
                f"{foes} {'held out against' if why == 'turn limit' else 'defeated'} {team}"
                + (" (out of turns)" if why == "turn limit" else ""))
        tiers = {"full": "the full reward", "half": "half the reward (someone fell)",
                 "partial": "the reward of the monsters beaten", "none": "no reward"}
        gains = "; ".join(f"{state.players[s]} {_gained(earned.get(str(s), 0), vp)}"
                          for s in battle["seats"])
        return f"{head}: {tiers.get(tier, tier)}. {gains}."

    def _pvp_end_words(self, state, winner, loser, got, vp, why, choosing):
        """A PvP battle's end in words: the winner, why, and what each side got."""
        p = state.players
        gains = "; ".join(f"{p[s]} {_gained(got.get(s, 0), vp if s == winner else 0)}"
                          for s in (winner, loser))
        rest = f" {p[winner]} chooses a reward pile." if choosing else ""
        return (f"{p[winner]} won the PvP battle against {p[loser]}"
                f"{f' ({why})' if why else ''}. {gains}.{rest}")

    def _end_battles(self, state):
        d = state.data
        d.vp_curve.append(list(d.vp))

    # == shop =====================================================================================
    def _begin_shop(self, state):
        d, r, cfg = state.data, self.rules, state.config
        if cfg["limited_shop"]:
            d.shop_pool = []
            for tier in (1, 2, 3):
                ids = [cid for cid, c in r.cards.items() if c.tier == tier and
                       (not cfg["scarce_shop"] or d.stock.get(cid, 0) > 0)]
                k = min(r.shop["limited_reveal"], len(ids))
                d.shop_pool.extend(state.rng.sample(ids, k))
            state.note("ShopRevealed", cards=list(d.shop_pool))
        if cfg["tokens"] == "D":
            d.convert_ok = cfg["convert_when"] == "any-shop" or d.convert_ok
        moves = ("buy", "upgrade", "convert", "done_shopping") if d.convert_ok and \
            cfg["tokens"] == "D" else ("buy", "upgrade", "done_shopping")
        for s in state.seats():
            state.prompt(s, moves, shop=True)
        if cfg["shop_seconds"]:
            state.start_timer("shop", cfg["shop_seconds"], warn_before=min(30, cfg[
                "shop_seconds"] / 2))

    def _end_shop(self, state):
        state.stop_timer("shop")
        state.data.convert_ok = False

    def card_cost(self, state, seat, cid):
        """(token type, price) of a card, or raise with the reason it cannot be bought."""
        r, cfg, d = self.rules, state.config, state.data
        c = r.cards.get(cid) if isinstance(cid, str) else None
        if c is None or c.tier == 0:
            raise IllegalMoveError(f"{cid!r} is not a card in the shop (tier 1-3 cards only).")
        if cfg["limited_shop"] and cid not in d.shop_pool:
            raise IllegalMoveError(f"{c.name} is not among this shop's revealed cards.")
        if cfg["scarce_shop"] and d.stock.get(cid, 0) <= 0:
            raise IllegalMoveError(f"No copies of {c.name} are left.")
        if cfg["upgrade_trees"]:
            need = r.shop["tree_requires"][c.tier - 1]
            own = d.attack[seat] if c.kind == "attack" else d.defense[seat]
            have = sum(1 for x in own if r.cards[x].tier == c.tier - 1)
            if c.tier > 1 and have < need:
                raise IllegalMoveError(f"{c.name} needs {need} tier {c.tier - 1} {c.kind} "
                                       f"card{'s' if need != 1 else ''}; you have {have}.")
        system = self.system(state)
        t = system.attack_cards if c.kind == "attack" else system.defense_cards
        return t, r.shop["tier_cost"][c.tier - 1]

    def upgrade_cost(self, state, seat, stat):
        r, d = self.rules, state.data
        if stat not in ("hp", "stamina"):
            raise IllegalMoveError(f"Upgrade hp or stamina, not {stat!r}.")
        ups = d.hp_ups[seat] if stat == "hp" else d.st_ups[seat]
        step, cap = r.shop[f"{stat}_step"], r.shop[f"{stat}_cap"]
        if (ups + 1) * step > cap:
            raise IllegalMoveError(f"You have the most {stat} upgrades allowed "
                                   f"(+{cap} above the start).")
        if state.config["diminishing"]:
            cost = r.shop[f"{stat}_costs_diminishing"][ups]
        else:
            cost = r.shop[f"{stat}_cost"]
        system = self.system(state)
        return (system.hp if stat == "hp" else system.stamina), cost

    def _buy(self, state, seat, card, remove=None):
        d, r = state.data, self.rules
        t, cost = self.card_cost(state, seat, card)
        c = r.cards[card]
        if d.tokens[seat][t] < cost:
            raise IllegalMoveError(f"{c.name} costs {cost} {t} tokens; you have "
                                   f"{d.tokens[seat][t]}.")
        own = d.attack[seat] if c.kind == "attack" else d.defense[seat]
        if remove is not None:
            if not state.config["deck_thinning"]:
                raise IllegalMoveError("Deck thinning is not in play (option deck_thinning).")
            rc = r.cards.get(remove) if isinstance(remove, str) else None
            if rc is None or rc.tier != 0 or rc.kind != c.kind or remove not in own:
                raise IllegalMoveError(f"{remove!r} is not a basic {c.kind} card in your deck.")
        d.tokens[seat][t] -= cost
        own.append(card)
        if remove is not None:
            own.remove(remove)
        if state.config["limited_shop"]:
            d.shop_pool.remove(card)
        if state.config["scarce_shop"]:
            d.stock[card] -= 1
        d.bought[seat].append(card)
        state.note("CardBought", seat=seat, card=card, cost=cost, token=t, removed=remove)

    def _upgrade(self, state, seat, stat):
        d = state.data
        t, cost = self.upgrade_cost(state, seat, stat)
        if d.tokens[seat][t] < cost:
            raise IllegalMoveError(f"A {stat} upgrade costs {cost} {t} tokens; you have "
                                   f"{d.tokens[seat][t]}.")
        d.tokens[seat][t] -= cost
        if stat == "hp":
            d.hp_ups[seat] += 1
        else:
            d.st_ups[seat] += 1
        state.note("Upgraded", seat=seat, stat=stat, cost=cost, token=t)

    def _convert(self, state, seat, give, get):
        d = state.data
        if state.config["tokens"] != "D":
            raise IllegalMoveError("Token conversion is only in System D.")
        if not d.convert_ok:
            raise IllegalMoveError("Tokens can be converted only in the shop after a PvP.")
        types = self.system(state).types
        if give not in types or get not in types or give == get:
            raise IllegalMoveError(f"Convert one token type into another: {', '.join(types)}.")
        n_give, n_get = self.rules.conversion
        if d.tokens[seat][give] < n_give:
            raise IllegalMoveError(f"Converting takes {n_give} {give} tokens; you have "
                                   f"{d.tokens[seat][give]}.")
        d.tokens[seat][give] -= n_give
        d.tokens[seat][get] += n_get
        state.note("TokensConverted", seat=seat, give=give, get=get)

    def _done_shopping(self, state, seat):
        state.clear_prompt(seat)

    # == PvP ======================================================================================
    def _pvp_left(self, state):
        battles, every = self.arc(state)
        return battles // every - state.data.pvp_done

    def _begin_pvp_check(self, state):
        d = state.data
        battles, every = self.arc(state)
        left = self._pvp_left(state)
        remaining = battles - state.round
        d.pvp_now = False
        if left <= 0:
            return
        if state.config["pvp_trigger"] == "fixed":
            d.pvp_now = state.round % every == 0
            return
        if left > remaining:
            d.pvp_now = True
            state.note("PvPForced", left=left, battles_left=remaining)
            return
        w = state.open_window(f"vote-{state.round}", "vote", list(state.seats()),
                              self._vote_revealed, default=False,
                              label=f"After battle {state.round}: PvP now?")
        for s in state.seats():
            state.prompt(s, ("vote_pvp",), window=w.id)

    def _vote_pvp(self, state, seat, pvp):
        if not isinstance(pvp, bool):
            raise IllegalMoveError("Vote pvp: true (fight now) or false (not yet).")
        return pvp

    def _vote_revealed(self, state, window):
        votes = window.revealed()
        yes = sum(1 for v in votes.values() if v is True)
        state.data.pvp_now = yes * 2 > state.n
        state.note("PvPVote", yes=yes, no=state.n - yes, pvp=state.data.pvp_now)

    def _after_check(self, state):
        if state.data.pvp_now:
            return "pvp_setup"
        return "select" if state.round < self.arc(state)[0] else "final"

    def _after_pvp(self, state):
        return "select" if state.round < self.arc(state)[0] else "final"

    def _ranked(self, state, seats=None):
        """Seats by VP, most first; ties by a seeded shuffle."""
        order = list(state.seats() if seats is None else seats)
        state.rng.shuffle(order)
        order.sort(key=lambda s: -state.data.vp[s])
        return order

    def _begin_pvp_setup(self, state):
        d = state.data
        d.pvp_no += 1
        d.pairings, d.byes, d.pots, d.pvp_prep, d.battles = [], [], {}, {}, {}
        n = state.n
        mode = state.config["pvp_pairing"]
        if n == 2:
            d.pairings = [[0, 1]]
        elif mode == "draft":
            picker = self._ranked(state)[-1]
            state.prompt(picker, ("choose_opponent",),
                         candidates=[s for s in state.seats() if s != picker])
            return
        elif mode == "standing":
            order = self._ranked(state)
            d.pairings = [order[0:2]] if n == 3 else [order[0:2], order[2:4]]
            d.byes = order[2:3] if n == 3 else []
        else:
            k = (d.pvp_no - 1) % 3
            if n == 3:
                d.byes = [k]
                d.pairings = [[s for s in range(3) if s != k]]
            else:
                d.pairings = [list(p) for p in PAIRINGS_4[k]]
        state.note("PvPPaired", pairings=d.pairings, byes=d.byes)

    def _choose_opponent(self, state, seat, opponent):
        cands = state.prompts[seat]["candidates"]
        if isinstance(opponent, bool) or opponent not in cands:
            raise IllegalMoveError(f"Choose your opponent among seats "
                                   f"{', '.join(map(str, cands))}.")
        d = state.data
        d.pairings = [[seat, opponent]]
        rest = [s for s in cands if s != opponent]
        if len(rest) == 2:
            d.pairings.append(rest)
        else:
            d.byes = rest
        state.clear_prompt(seat)
        state.note("PvPPaired", pairings=d.pairings, byes=d.byes, chosen_by=seat)

    def _pvp_fields(self, state, seat):
        """What ``seat`` decides in the sealed PvP preparation (empty: nothing)."""
        d, cfg = state.data, state.config
        fighting = any(seat in p for p in d.pairings)
        fields = {}
        if fighting and cfg["pvp_rewards"] == "wager":
            lo = min(self.rules.pvp["wager_min"], self.wallet(state, seat))
            fields["wager"] = [lo, self.wallet(state, seat)]
        if fighting and cfg["revenge"] and d.revenge[seat] > 0:
            fields["revenge"] = list(REVENGE_USES)
        if cfg["spectator_bets"] and state.n > 2:
            others = [p for p in d.pairings if seat not in p]
            if others and self.wallet(state, seat) > 0:
                fields["bet_on"] = list(others[0])
                fields["stake"] = [0, min(self.rules.pvp["spectator_max_stake"],
                                          self.wallet(state, seat))]
        return fields

    def _begin_pvp_prep(self, state):
        seats = [s for s in state.seats() if self._pvp_fields(state, s)]
        if not seats:
            return
        w = state.open_window(f"pvp-{state.data.pvp_no}", "pvp-prep", seats,
                              self._pvp_prep_revealed, default={},
                              label=f"PvP {state.data.pvp_no}: wagers and bets")
        for s in seats:
            state.prompt(s, ("prepare_pvp",), window=w.id, **self._pvp_fields(state, s))

    def _prepare_pvp(self, state, seat, wager=None, revenge=None, bet_on=None, stake=0):
        f = state.prompts[seat]
        out = {}
        if "wager" in f:
            lo, hi = f["wager"]
            out["wager"] = _int(wager, "Your wager", lo, hi)
        elif wager is not None:
            raise IllegalMoveError("There is no wager for you in this PvP.")
        if revenge is not None:
            if "revenge" not in f:
                raise IllegalMoveError("You have no revenge token to spend here.")
            if revenge not in REVENGE_USES:
                raise IllegalMoveError(f"Spend revenge on {', '.join(REVENGE_USES)}.")
            out["revenge"] = revenge
        if bet_on is not None or stake:
            if "bet_on" not in f:
                raise IllegalMoveError("You are not a spectator of another match.")
            if isinstance(bet_on, bool) or bet_on not in f["bet_on"]:
                raise IllegalMoveError(f"Bet on {state.players[f['bet_on'][0]]} or "
                                       f"{state.players[f['bet_on'][1]]}.")
            out["bet_on"] = bet_on
            out["stake"] = _int(stake, "Your stake", 1, f["stake"][1])
        if out.get("wager", 0) + out.get("stake", 0) > self.wallet(state, seat):
            raise IllegalMoveError("Your wager and stake together are more tokens than you "
                                   "have.")
        return out

    def _pvp_prep_revealed(self, state, window):
        d = state.data
        for s, chosen in window.revealed().items():
            chosen = dict(chosen or {})
            fighting = any(s in p for p in d.pairings)
            if fighting and "wager" not in chosen and state.config["pvp_rewards"] == "wager":
                chosen["wager"] = min(self.rules.pvp["wager_min"], self.wallet(state, s))
            if "wager" in chosen:
                chosen["wager"] = self._pay_any(state, s, chosen["wager"])
            if chosen.get("stake"):
                chosen["stake"] = self._pay_any(state, s, chosen["stake"])
            if chosen.get("revenge"):
                d.revenge[s] -= 1
            d.pvp_prep[s] = chosen
        state.note("PvPPrepared", prep={str(s): c for s, c in d.pvp_prep.items()})

    def _begin_pvp(self, state):
        d, p = state.data, self.rules.pvp
        if state.config["pvp_rewards"] == "wager":
            for s in state.seats():
                if any(s in pr for pr in d.pairings) and s not in d.pvp_prep:
                    d.pvp_prep[s] = {"wager": self._pay_any(
                        state, s, min(p["wager_min"], self.wallet(state, s)))}
        for k, pair in enumerate(d.pairings):
            bid = f"p{d.pvp_no}.{k + 1}"
            mods = {}
            for s in pair:
                use = d.pvp_prep.get(s, {}).get("revenge")
                mods[s] = {"stamina": p["revenge_stamina"]} if use == "stamina" else \
                    {"defense_cards": p["revenge_defense_cards"]} if use == "defense" else \
                    {"damage": p["revenge_damage"]} if use == "damage" else {}
            d.pots[bid] = sum(d.pvp_prep.get(s, {}).get("wager", 0) for s in pair)
            arena = self._draw_effect(state, "arena") if state.config["arenas"] else None
            engine.start_battle(self, state, bid, "pvp", pair, [], effect=arena, mods=mods)

    def pvp_over(self, state, battle, winner, why=None):
        d, r, cfg = state.data, self.rules, state.config
        if battle["kind"] == "final":
            return self._final_won(state, battle, winner)
        loser = next(s for s in battle["seats"] if s != winner)
        p = r.pvp
        d.pvp_wins[winner] += 1
        d.last_pvp_winners.append(winner)
        mode = cfg["pvp_rewards"]
        got = {winner: 0, loser: 0}
        if mode == "choice":
            state.prompt(winner, ("choose_pile",), piles={"a": list(p["pile_a"]),
                                                          "b": list(p["pile_b"])},
                         loser=loser, battle=battle["id"])
        else:
            d.vp[winner] += r.battle["vp_pvp"]
            if mode == "fixed":
                got = {winner: p["fixed_winner_tokens"], loser: p["fixed_loser_tokens"]}
            elif mode == "deck-value":
                got = {winner: self.deck_value(state, loser) // p["deck_value_divisor"],
                       loser: p["consolation"]}
            else:
                got = {winner: d.pots.get(battle["id"], 0), loser: 0}
        if cfg["card_value_rewards"] and mode != "deck-value":
            got[winner] += self.deck_value(state, loser) // p["deck_value_divisor"]
        for s, n in got.items():
            self._gain_spread(state, s, n)
        if cfg["revenge"]:
            d.revenge[loser] += 1
        for s, chosen in d.pvp_prep.items():
            if chosen.get("stake") and chosen.get("bet_on") in battle["seats"]:
                right = chosen["bet_on"] == winner
                if right:
                    self._gain_spread(state, s, 2 * chosen["stake"])
                state.note("SpectatorBetSettled", seat=s, on=chosen["bet_on"],
                           stake=chosen["stake"], won=right)
        d.track["pvp"].append({"pvp": d.pvp_no, "id": battle["id"], "seats": battle["seats"],
                               "winner": winner, "turns": battle["turn"],
                               "rounds": battle["round"], "effect": battle["effect"],
                               "seconds": battle["ended"] - battle["started"], "why": why})
        if not state.lean:
            vp = 0 if mode == "choice" else r.battle["vp_pvp"]
            state.note("PvPEnded", battle=battle["id"], winner=winner, loser=loser,
                       tokens={str(s): n for s, n in got.items()}, why=why,
                       says=self._pvp_end_words(state, winner, loser, got, vp, why,
                                                mode == "choice"))
        self._check_threshold(state)

    def _choose_pile(self, state, seat, pile):
        if pile not in ("a", "b"):
            raise IllegalMoveError("Choose pile a or pile b.")
        d, p = state.data, self.rules.pvp
        info = state.prompts[seat]
        loser = info["loser"]
        mine, theirs = (p["pile_a"], p["pile_b"]) if pile == "a" else (p["pile_b"],
                                                                       p["pile_a"])
        for s, (tokens, vp) in ((seat, mine), (loser, theirs)):
            self._gain_spread(state, s, tokens)
            d.vp[s] += vp
        state.clear_prompt(seat)
        state.note("PileChosen", seat=seat, pile=pile, loser=loser)
        self._check_threshold(state)

    def _end_pvp(self, state):
        d = state.data
        d.pvp_done += 1
        d.convert_ok = True
        d.vp_curve.append(list(d.vp))

    # == the end ==================================================================================
    def _check_threshold(self, state):
        if state.config["victory"] != "threshold" or state.outcome is not None:
            return
        d = state.data
        top = max(d.vp)
        if top < self.rules.victory["threshold"]:
            return
        winners = [s for s in state.seats() if d.vp[s] == top]
        tiebreak = None
        if len(winners) > 1:
            winners, tiebreak = self._break_tie(state, winners, allow_duel=False)
        self._end_game(state, winners, f"first to {self.rules.victory['threshold']} VP",
                       tiebreak)

    def standings(self, state):
        """VP as they stand (the table ends the game early)."""
        return {s: state.data.vp[s] for s in state.seats()}

    def _end_game(self, state, winners, reason, tiebreak=None, code=None):
        """``code``: how it ended, by default the ``victory`` setting (most VP after the arc,
        the threshold, categories, objectives, the championship final)."""
        d = state.data
        d.track["ended"] = state.now
        if not d.vp_curve or d.vp_curve[-1] != d.vp:
            d.vp_curve.append(list(d.vp))
        state.finish(winners, reason, {s: d.vp[s] for s in state.seats()}, tiebreak,
                     code=code or state.config["victory"])

    def _objective_met(self, state, seat, oid):
        o = self.rules.objectives[oid]
        d = state.data
        if o.kind == "defeat_difficulty":
            return d.monsters_defeated[seat][o.difficulty] >= o.count
        if o.kind == "win_final_pvp":
            return bool(d.pvp_no) and any(
                rec["winner"] == seat for rec in d.track["pvp"] if rec["pvp"] == d.pvp_no)
        if o.kind == "tier_cards":
            cards = self.rules.cards
            return sum(1 for c in d.attack[seat] + d.defense[seat]
                       if cards[c].tier >= o.tier) >= o.count
        if o.kind == "pvp_wins":
            return d.pvp_wins[seat] >= o.count
        return sum(d.monsters_defeated[seat].values()) >= o.count

    def _break_tie(self, state, tied, allow_duel=True):
        """Returns (winners, tiebreak text) or (pair, "duel") for a sudden-death battle."""
        mode = state.config["tiebreak"]
        if mode == "shared":
            return tied, "shared win"
        if mode == "sudden-death" and allow_duel:
            pair = tied
            if len(pair) > 2:
                best = max(self.wallet(state, s) for s in pair)
                pair = [s for s in pair if self.wallet(state, s) == best]
                if len(pair) > 2:
                    pair = sorted(state.rng.sample(pair, 2))
                elif len(pair) == 1:
                    return pair, "most skill tokens"
            return pair, "duel"
        key = (lambda s: self.deck_value(state, s)) if mode == "deck-value" else \
            (lambda s: self.wallet(state, s))
        best = max(key(s) for s in tied)
        winners = [s for s in tied if key(s) == best]
        text = "highest deck value" if mode == "deck-value" else "most skill tokens"
        if len(winners) > 1:
            text += ", still tied: shared"
        return winners, text

    def _begin_final(self, state):
        d, v, cfg = state.data, self.rules.victory, state.config
        d.battles = {}
        mode = cfg["victory"]
        if mode == "categories":
            for key, stat in (("most_monsters", lambda s: sum(d.monsters_defeated[s].values())),
                              ("most_pvp_wins", lambda s: d.pvp_wins[s]),
                              ("highest_deck_value", lambda s: self.deck_value(state, s)),
                              ("most_hp", lambda s: d.hp_ups[s])):
                vals = [stat(s) for s in state.seats()]
                top = max(vals)
                if key in ("most_monsters", "most_pvp_wins") and top == 0:
                    continue
                for s in state.seats():
                    if vals[s] == top:
                        d.vp[s] += v[key]
                        d.bonuses.setdefault(str(s), []).append(key)
            state.note("CategoryBonuses", bonuses=dict(d.bonuses))
        elif mode == "objectives":
            for s in state.seats():
                oid = d.objective.get(s)
                if oid and self._objective_met(state, s, oid):
                    d.vp[s] += self.rules.objectives[oid].vp
                    d.bonuses.setdefault(str(s), []).append(oid)
            state.note("ObjectivesRevealed", objectives={str(s): o for s, o in
                                                          d.objective.items()},
                       scored=dict(d.bonuses))
        if mode == "championship":
            order = list(state.seats())
            state.rng.shuffle(order)                         # seeded tiebreak after tokens
            order.sort(key=lambda s: (-d.vp[s], -self.wallet(state, s)))
            top2 = order[:2]
            d.ending = {"kind": "championship", "seats": sorted(top2)}
            state.note("ChampionshipFinal", seats=sorted(top2))
            engine.start_battle(self, state, "final", "final", sorted(top2), [])
            return
        top = max(d.vp)
        winners = [s for s in state.seats() if d.vp[s] == top]
        if len(winners) == 1:
            return self._end_game(state, winners, "most VP")
        winners, text = self._break_tie(state, winners)
        if text == "duel":
            d.ending = {"kind": "sudden-death", "seats": sorted(winners)}
            state.note("SuddenDeath", seats=sorted(winners))
            engine.start_battle(self, state, "final", "final", sorted(winners), [])
            return
        self._end_game(state, winners, "most VP", text)

    def _final_won(self, state, battle, winner):
        d = state.data
        d.ending["winner"] = winner
        d.track["pvp"].append({"pvp": "final", "id": battle["id"], "seats": battle["seats"],
                               "winner": winner, "turns": battle["turn"],
                               "rounds": battle["round"], "effect": None,
                               "seconds": battle["ended"] - battle["started"], "why": None})
        if d.ending["kind"] == "championship":
            self._end_game(state, [winner], "won the championship final")
        else:
            self._end_game(state, [winner], "most VP", "sudden-death PvP",
                           code="sudden_death")

    def _end_final(self, state):
        pass

    # == corrections ==============================================================================
    def get_counter(self, state, seat, counter):
        if seat is None:
            raise IllegalMoveError("Say which player's counter to correct.")
        d = state.data
        if counter == "vp":
            return d.vp[seat]
        if counter == "health":
            if d.battle_of[seat] is None:
                raise IllegalMoveError(f"{state.players[seat]} is not in a battle; HP is only "
                                       f"corrected during one.")
            return d.hp[seat]
        if counter not in d.tokens[seat]:
            raise IllegalMoveError(f"Token system {state.config['tokens']} has no {counter} "
                                   f"tokens; it has {', '.join(d.tokens[seat])}.")
        return d.tokens[seat][counter]

    def set_counter(self, state, seat, counter, value):
        d = state.data
        if counter == "vp":
            d.vp[seat] = value
        elif counter == "health":
            d.hp[seat] = min(value, d.max_now[seat])
        else:
            d.tokens[seat][counter] = value

    # == views ====================================================================================
    def _monster_card(self, mid):
        m = self.rules.monsters[mid]
        return {"id": mid, "name": m.name, "difficulty": m.difficulty, "hp": m.hp,
                "attack": m.attack, "speed": m.speed, "reward": m.reward,
                "abilities": list(m.abilities)}

    def _battle_view(self, state, b):
        d = state.data
        fighters = {}
        for s in b["seats"]:
            fighters[str(s)] = {"hp": d.hp[s], "max_hp": d.max_now[s],
                                "stamina": d.stamina[s], "pile": sorted(d.pile[s]),
                                "defense_left": len(d.ddeck[s]),
                                "defense_played": list(d.ddiscard[s]),
                                "negate": d.negate[s], "mods": dict(d.mods[s])}
        return {"id": b["id"], "kind": b["kind"], "seats": list(b["seats"]), "turn": b["turn"],
                "round": b["round"], "round_wins": dict(b["round_wins"]),
                "effect": b["effect"], "over": b["over"], "result": b["result"],
                "winner": b["winner"], "window": b["window"],
                "monsters": [{k: m[k] for k in ("id", "name", "difficulty", "hp", "max_hp",
                                                "attack", "speed", "reward", "abilities")}
                             for m in b["monsters"]],
                "fighters": fighters, "last_turn": {"plays": dict(b["plays"]),
                                                    "order": [list(a) for a in b["order"]],
                                                    "log": list(b["log"]),
                                                    "lines": self.log_lines(state, b)}}

    def log_lines(self, state, b):
        """The last turn of battle ``b`` in words, one sentence per event, players and
        monsters and cards by name (what the table and phones show as the battle log)."""
        cards, players = self.rules.cards, state.players
        mons = b["monsters"]

        def who(x):
            if isinstance(x, str) and x.startswith("m"):
                i = int(x[1:])
                name = mons[i]["name"]
                same = sum(1 for m in mons if m["name"] == name)
                return name if same == 1 else f"{name} ({i + 1})"
            return players[x]

        def card(cid):
            return cards[cid].name if cid in cards else str(cid)

        out = []
        for e in b["log"]:
            if e.get("passed"):
                out.append(f"{who(e['seat'])} passed.")
            elif e.get("fumble"):
                out.append(f"{who(e['seat'])} fumbled {card(e['card'])} "
                           f"({e['stamina']} stamina): no damage.")
            elif "speed_drain" in e:
                out.append(f"Speed drain: {who(e['seat'])} loses {e['speed_drain']} stamina.")
            elif e.get("no_room"):
                out.append(f"{who(e['seat'])} finds no room to attack.")
            elif "counter" in e:
                out.append(f"{who(e['by'])} counters: {e['counter']} damage to "
                           f"{who(e['to'])}.")
            elif "attacker" in e:
                drew = [d for d in e["defense"] if d != "negated"]
                how = ("negated" if "negated" in e["defense"] else
                       f"blocked {e['block']}" + (f" ({', '.join(card(d) for d in drew)})"
                                                 if drew else ""))
                out.append(f"{who(e['attacker'])} hits {who(e['seat'])} for {e['damage']}: "
                           f"{how}, {e['dealt']} taken.")
            elif "target" in e:
                out.append(f"{who(e['seat'])} hits {who(e['target'])} with {card(e['card'])} "
                           f"for {e['damage']}: blocked {e['block']}, {e['dealt']} dealt.")
            elif "card" in e:
                out.append(f"{who(e['seat'])} plays {card(e['card'])} with "
                           f"{e['stamina']} stamina.")
        return out

    def public_view(self, state):
        d = state.data
        battles, every = self.arc(state)
        over = state.outcome is not None
        return {
            "battle": state.round, "battles": battles, "pvp_every": every,
            "pvp_done": d.pvp_done, "vp": list(d.vp),
            "tokens": [dict(t) for t in d.tokens],
            "decks": [{"attack": sorted(d.attack[s]), "defense": sorted(d.defense[s]),
                       "value": self.deck_value(state, s)} for s in state.seats()],
            "upgrades": [{"hp": d.hp_ups[s], "stamina": d.st_ups[s]} for s in state.seats()],
            "teams": [list(t) for t in d.teams], "offers": [list(o) for o in d.offers],
            "monster_cards": {m: self._monster_card(m) for m in dict.fromkeys(
                [m for o in d.offers for m in o] + list(d.pool) +
                [m for p in d.picks for m in p])},
            "pool": list(d.pool), "picks": [list(p) for p in d.picks],
            "auction": d.auction, "prep": {str(s): c for s, c in d.prep.items()},
            "battles_now": [self._battle_view(state, b) for b in d.battles.values()],
            "shop_pool": list(d.shop_pool), "stock": dict(d.stock),
            "convert_ok": d.convert_ok,
            "pairings": [list(p) for p in d.pairings], "byes": list(d.byes),
            "pvp_prep": {str(s): c for s, c in d.pvp_prep.items()},
            "revenge": list(d.revenge), "pvp_wins": list(d.pvp_wins),
            "monsters_defeated": [dict(m) for m in d.monsters_defeated],
            "monster_deck": len(d.monster_deck), "monster_discard": len(d.monster_discard),
            "objectives": {str(s): o for s, o in d.objective.items()} if over else
            sorted(str(s) for s in d.objective),
            "bonuses": dict(d.bonuses), "ending": d.ending,
            "vp_curve": [list(r) for r in d.vp_curve], "track": self._track_view(state),
        }

    def _track_view(self, state):
        t = state.data.track
        return {"choices": dict(t["choices"]),
                "results": {k: dict(v) for k, v in t["results"].items()},
                "battles": len(t["battles"]), "pvp": len(t["pvp"])}

    def seat_view(self, state, seat):
        d = state.data
        oid = d.objective.get(seat)
        return {"tokens": dict(d.tokens[seat]),
                "dual_draw": list(d.dual_draws.get(seat, [])),
                "dual_draw_cards": [self._monster_card(m) for m in d.dual_draws.get(seat, [])],
                "objective_offer": [self._objective(o) for o in
                                    d.objective_offer.get(seat, [])],
                "objective": self._objective(oid) if oid else None}

    def _objective(self, oid):
        o = self.rules.objectives[oid]
        return {"id": oid, "name": o.name, "text": o.text}

    def text_table(self, state):
        d = state.data
        battles, _ = self.arc(state)
        types = self.system(state).types
        lines = [f"Battle {state.round} of {battles}, PvP {d.pvp_done} played",
                 f"{'player':16}{'VP':>4}" + "".join(f"{t:>9}" for t in types) +
                 f"{'HP':>5}{'stam':>6}  deck"]
        r = self.rules
        for s in state.seats():
            deck = ", ".join(r.cards[c].name for c in sorted(d.attack[s] + d.defense[s])
                             if r.cards[c].tier)
            lines.append(f"{state.players[s]:16}{d.vp[s]:>4}" +
                         "".join(f"{d.tokens[s][t]:>9}" for t in types) +
                         f"{engine.max_hp(self, state, s):>5}"
                         f"{engine.max_stamina(self, state, s):>6}  {deck or 'basic'}")
        return "\n".join(lines)

    # == figures for `companion simulate battle-builder` (the core's report hook) ===============
    def report(self, summaries):
        """Monster win rate per difficulty against the design targets, over many games'
        summaries, with 95% intervals; what was chosen; tokens per battle; VP spread."""
        from companion.core.play import wilson
        won = {k: 0 for k in DIFFICULTIES}
        lost = {k: 0 for k in DIFFICULTIES}
        chosen = {k: 0 for k in DIFFICULTIES}
        tokens, spreads = [], []
        for sm in summaries:
            p = sm["playtest"]
            for k in DIFFICULTIES:
                won[k] += p["results"][k]["won"]
                lost[k] += p["results"][k]["lost"]
                chosen[k] += p["monster_choices"][k]
            tokens.append(p["tokens_per_battle"])
            spreads.append(p["vp_spread"])
        rows = []
        for k in DIFFICULTIES:
            n = won[k] + lost[k]
            target = self.rules.targets[k]
            if not n:
                rows.append({"difficulty": k, "battles": 0, "target": target})
                continue
            lo, hi = wilson(won[k], n)
            rows.append({"difficulty": k, "battles": n, "won": won[k], "win_rate": won[k] / n,
                         "ci95": [lo, hi], "target": target,
                         "verdict": "on target" if lo <= target <= hi else
                         ("too easy" if lo > target else "too hard")})
        total = sum(chosen.values()) or 1
        return {"difficulties": rows, "choices": {k: v / total for k, v in chosen.items()},
                "tokens_per_battle": sum(tokens) / len(tokens) if tokens else 0.0,
                "vp_spread": sum(spreads) / len(spreads) if spreads else 0.0}

    def report_text(self, r):
        lines = [f"{'difficulty':>10}  {'battles':>7}  {'chosen':>6}  {'win rate':>8}  "
                 f"95% interval     target  verdict"]
        for row in r["difficulties"]:
            k = row["difficulty"]
            if not row["battles"]:
                lines.append(f"{k:>10}  {0:>7}  {r['choices'][k]:6.1%}  never fought")
                continue
            lo, hi = row["ci95"]
            lines.append(f"{k:>10}  {row['battles']:>7}  {r['choices'][k]:6.1%}  "
                         f"{row['win_rate']:8.1%}  {lo:6.1%} - {hi:6.1%}  {row['target']:6.0%}"
                         f"  {row['verdict']}")
        lines.append(f"tokens per player per battle: {r['tokens_per_battle']:.1f}; final VP "
                     f"spread: {r['vp_spread']:.2f}")
        return "\n".join(lines)

    def summary(self, state):
        d = state.data
        t = d.track
        battles = t["battles"]
        tokens = [n for b in battles for n in b["tokens"].values()]
        secs = [b["seconds"] for b in battles]
        results = {}
        for k, v in t["results"].items():
            n = v["won"] + v["lost"]
            results[k] = {"won": v["won"], "lost": v["lost"],
                          "win_rate": v["won"] / n if n else None}
        game_secs = (t["ended"] - t["started"]) if t["ended"] is not None else None
        return {"factions": {}, "playtest": {
            "monster_choices": dict(t["choices"]), "results": results,
            "tokens_per_battle": sum(tokens) / len(tokens) if tokens else 0.0,
            "seconds_per_battle": sum(secs) / len(secs) if secs else 0.0,
            "pvp_seconds": [p["seconds"] for p in t["pvp"]],
            "game_seconds": game_secs, "final_vp": list(d.vp),
            "vp_spread": max(d.vp) - min(d.vp), "battles": battles, "pvp": t["pvp"]}}
