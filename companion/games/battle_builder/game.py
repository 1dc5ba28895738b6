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

This module composes the game from its parts (as Trade Warz does): its options, moves and
phases, set-up and corrections here; ``selection`` (objectives, the monster vote, auction and
dual pick), ``battles`` (roles and bets, monster battles and their rewards; the turn engine is
``battle``), ``shop``, ``pvp`` (check, pairing, wagers, PvP battles), ``final`` (the ways a game
ends), ``views`` (views, the battle log in words, summaries), ``basics`` (arc, tokens, decks,
teams) and ``common`` (the game's data and small helpers).
"""
from companion.core.datadir import DataBacked
from companion.core.errors import ConfigError, IllegalMoveError
from companion.core.game import Game, Move, Option, Phase

from . import battle as engine
from . import choices as ch
from .basics import Basics
from .battles import MonsterBattles
from .common import PAIRINGS_4, TOKEN_NAMES, BBData
from .data import DATA, DIFFICULTIES, default_rules
from .final import Ending
from .pvp import PvPPhases
from .selection import Selection
from .shop import ShopPhase
from .views import Views


class BattleBuilder(Selection, MonsterBattles, ShopPhase, PvPPhases, Ending, Views, Basics,
                    DataBacked, Game):
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
        Option("pvp_byes", "in-turn", "3 players (a ruling; the rulebook covers 2 and 4): "
               "who sits a PvP out. in-turn: only a player who has sat out the fewest PvPs, "
               "so everyone sits out once and fights everyone once in three PvPs; by-pairing: "
               "whoever the pairing rule leaves over (sessions logged before this option).",
               ("in-turn", "by-pairing")),
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
        d.sat_out = [0] * n
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
    LEGACY_DEFAULTS = {"turn_limit_reward": "full", "pvp_stalemate": "play-on",
                       "pvp_byes": "by-pairing"}

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
