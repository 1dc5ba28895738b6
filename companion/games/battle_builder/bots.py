"""Battle Builder bots: ``bot(game, view, rng) -> (move, args)`` answering ``view.prompt``;
``view`` is the seat's :class:`BBObservation`: public facts (decks, tokens, HP, monsters, the
battles) and the seat's own prompt, never the state.

* ``random``: any legal answer, uniformly.
* ``greedy``: a reasonable player. Picks the monster with the best expected reward for its
  team's strength, plays its strongest card, spends stamina over the turns it expects the
  battle to last (and all it needs to strike first when a kill is in reach), buys the upgrade
  that adds the most damage, block or HP per token.
"""
import math

from companion.core.errors import IllegalMoveError
from companion.core.views import Observation

VP_WORTH = 5.0          # tokens a greedy bot would trade for 1 VP


class BBObservation(Observation):
    """The table as Battle Builder's bots read it: every seat's decks, tokens and HP, the
    teams, the battles and the monsters picked (all on the table), and what things cost the
    seat; and for the search bot the whole state with what the seat cannot see blanked
    (:meth:`known`)."""
    __slots__ = ("_known",)

    def __init__(self, game, state, seat):
        super().__init__(game, state, seat)
        self._known = None

    def __getattr__(self, name):
        if name in _PUBLIC:
            return getattr(self._state.data, name)
        raise AttributeError(name)

    def known(self):
        """The state as far as this seat knows it: a lean copy with the decks' order, the
        unseen monsters, the others' objectives and locked choices blanked and a fixed random
        stream (:func:`.redeal.blank`). Built once per observation; a search copies it, never
        changes it."""
        if self._known is None:
            from .redeal import blank
            self._known = blank(self.game, self._state, self.seat)
        return self._known

    def active_abilities(self):
        return self.game.active_abilities(self._state)

    def max_hp(self, seat):
        from .battle import max_hp
        return max_hp(self.game, self._state, seat)

    def team_of(self, seat):
        return self.game.team_of(self._state, seat)

    def card_cost(self, cid):
        return self.game.card_cost(self._state, self.seat, cid)

    def upgrade_cost(self, stat):
        return self.game.upgrade_cost(self._state, self.seat, stat)

    def deck_value(self, seat):
        return self.game.deck_value(self._state, seat)

    def wallet(self):
        return self.game.wallet(self._state, self.seat)

    def system(self):
        return self.game.system(self._state)


_PUBLIC = frozenset(("attack", "defense", "tokens", "teams", "battles", "battle_of", "hp",
                     "picks"))


# -- shared helpers ------------------------------------------------------------------------------

def _avg(values, default=0.0):
    values = list(values)
    return sum(values) / len(values) if values else default


def _attack_avg(game, view, seat):
    cards = game.rules.cards
    return _avg(cards[c].damage for c in view.attack[seat])


def _block_avg(game, view, seat):
    cards = game.rules.cards
    return _avg(cards[c].block for c in view.defense[seat])


def win_chance(game, view, team, monster_ids):
    """A rough chance that ``team`` beats these monsters with its current decks."""
    mons = [game.rules.monsters[m] for m in monster_ids]
    active = view.active_abilities()
    dmg = 0.0
    for s in team:
        hit = _attack_avg(game, view, s)
        dmg += max(1.0, hit - _avg([_avg(m.defense) for m in mons]))
    hp_total = sum(m.hp for m in mons)
    regen = sum(game.rules.battle["regeneration"] for m in mons
                if "regeneration" in m.abilities and "regeneration" in active)
    per_turn = max(0.5, dmg - regen)
    turns = math.ceil(hp_total / per_turn)
    weakest = min(team, key=view.max_hp)
    hp = view.max_hp(weakest)
    block = _block_avg(game, view, weakest)
    incoming = 0.0
    for m in mons:
        atk = m.attack
        pierce = "armor_piercing" in m.abilities and "armor_piercing" in active
        per = max(0.0, atk - (0 if pierce else block))
        if "aoe" in m.abilities and "aoe" in active:
            incoming += per
        else:
            incoming += per if len(team) == 1 else per * 0.7      # shared between targets
    danger = turns * incoming / max(1, hp)
    # a hopeless fight (several hard monsters with regeneration against a weak team) makes
    # ``danger`` huge: cap the exponent below exp()'s overflow (the chance is ~0 either way)
    return 1.0 / (1.0 + math.exp(min(5.0 * (danger - 1.0), 700.0)))


def monster_value(game, view, team, monster_ids):
    p = win_chance(game, view, team, monster_ids)
    reward = sum(game.rules.monsters[m].reward for m in monster_ids)
    return p * (reward + VP_WORTH * game.rules.battle["vp_monster"]) + (1 - p) * reward * 0.25


def _team(game, view):
    k = view.team_of(view.seat)
    return view.teams[k] if k is not None else [view.seat]


def _affordable_cards(game, view):
    out = []
    for cid, c in game.rules.cards.items():
        if not c.tier:
            continue
        try:
            t, cost = view.card_cost(cid)
        except IllegalMoveError:
            continue
        if view.tokens[view.seat][t] >= cost:
            out.append((cid, cost))
    return out


def _affordable_upgrades(game, view):
    out = []
    for stat in ("hp", "stamina"):
        try:
            t, cost = view.upgrade_cost(stat)
        except IllegalMoveError:
            continue
        if view.tokens[view.seat][t] >= cost:
            out.append((stat, cost))
    return out


def _thin(game, view, cid):
    """With deck thinning, the weakest basic card of the same kind to drop."""
    if not view.options["deck_thinning"]:
        return None
    cards = game.rules.cards
    kind = cards[cid].kind
    own = view.attack[view.seat] if kind == "attack" else view.defense[view.seat]
    basics = [c for c in own if cards[c].tier == 0]
    if not basics:
        return None
    return min(basics, key=lambda c: (cards[c].damage + cards[c].block, c))


def _play_args(game, view, card, stamina, p):
    args = {"card": card, "stamina": stamina}
    if "targets" in p:
        b = view.battles[view.battle_of[view.seat]]
        args["target"] = min(p["targets"], key=lambda i: (b["monsters"][i]["hp"], i))
    return args


# -- random ----------------------------------------------------------------------------------------

def random_bot(game, view, rng):
    p = view.prompt
    moves = p["moves"]
    seat = view.seat
    if "play_turn" in moves:
        cards = game.rules.cards
        playable = [c for c in p["cards"] if cards[c].min_stamina <= p["stamina"]]
        if not playable:
            return "play_turn", _play_args(game, view, rng.choice(p["cards"]), 0, p)
        card = rng.choice(playable)
        lo = cards[card].min_stamina
        stamina = rng.randint(lo, min(p["stamina"], lo + 8))
        args = {"card": card, "stamina": stamina}
        if "targets" in p:
            args["target"] = rng.choice(p["targets"])
        return "play_turn", args
    if "extra_attack" in moves:
        return "extra_attack", {"card": rng.choice(p["cards"])}
    if "choose_monster" in moves:
        return "choose_monster", {"monster": rng.choice(p["options"])}
    if "bid_auction" in moves:
        return "bid_auction", {"tokens": rng.randint(0, min(3, p["most"]))}
    if "pick_monster" in moves:
        return "pick_monster", {"monster": rng.choice(p["pool"])}
    if "prepare" in moves:
        if "roles" in p:
            return "prepare", {"role": rng.choice(p["roles"])}
        if p["most"] > 0 and rng.random() < 0.5:
            return "prepare", {"bet": rng.choice(p["bets"]),
                               "stake": rng.randint(1, p["most"])}
        return "prepare", {}
    if "done_shopping" in moves:
        options = [("buy", {"card": c}) for c, _ in _affordable_cards(game, view)]
        options += [("upgrade", {"stat": s}) for s, _ in _affordable_upgrades(game, view)]
        if "convert" in moves:
            types = view.system().types
            give = [t for t in types if view.tokens[seat][t] >= game.rules.conversion[0]]
            if give:
                g = rng.choice(give)
                options.append(("convert", {"give": g, "get": rng.choice(
                    [t for t in types if t != g])}))
        if not options or rng.random() < 0.3:
            return "done_shopping", {}
        move, args = rng.choice(options)
        if move == "buy":
            rem = _thin(game, view, args["card"])
            if rem is not None and rng.random() < 0.5:
                args["remove"] = rem
        return move, args
    if "vote_pvp" in moves:
        return "vote_pvp", {"pvp": rng.random() < 0.5}
    if "choose_opponent" in moves:
        return "choose_opponent", {"opponent": rng.choice(p["candidates"])}
    if "prepare_pvp" in moves:
        return "prepare_pvp", _random_pvp_prep(p, rng)
    if "choose_pile" in moves:
        return "choose_pile", {"pile": rng.choice(["a", "b"])}
    if "keep_objective" in moves:
        return "keep_objective", {"index": rng.randrange(len(p["options"]))}
    raise RuntimeError(f"random bot cannot answer {moves}")


def _random_pvp_prep(p, rng):
    args = {}
    budget = None
    if "wager" in p:
        lo, hi = p["wager"]
        args["wager"] = rng.randint(lo, min(hi, lo + 3))
        budget = hi - args["wager"]
    if "revenge" in p and rng.random() < 0.7:
        args["revenge"] = rng.choice(p["revenge"])
    if "bet_on" in p and rng.random() < 0.5:
        hi = p["stake"][1] if budget is None else min(p["stake"][1], budget)
        if hi >= 1:
            args["bet_on"] = rng.choice(p["bet_on"])
            args["stake"] = rng.randint(1, hi)
    return args


# -- greedy ----------------------------------------------------------------------------------------

def greedy_bot(game, view, rng):
    p = view.prompt
    moves = p["moves"]
    seat = view.seat
    if "play_turn" in moves:
        return "play_turn", _greedy_turn(game, view, p)
    if "extra_attack" in moves:
        cards = game.rules.cards
        return "extra_attack", {"card": max(p["cards"], key=lambda c: (cards[c].damage, c))}
    if "choose_monster" in moves:
        team = _team(game, view)
        if p.get("mode") == "dual":
            team_size = len(team)
            best = max(p["options"], key=lambda m: (monster_value(
                game, view, team, [m] * team_size), m))
        else:
            best = max(p["options"], key=lambda m: (monster_value(game, view, team, [m]), m))
        return "choose_monster", {"monster": best}
    if "bid_auction" in moves:
        return "bid_auction", {"tokens": 1 if p["most"] >= 5 else 0}
    if "pick_monster" in moves:
        team = _team(game, view)
        return "pick_monster", {"monster": max(p["pool"], key=lambda m: (
            monster_value(game, view, team, [m]), m))}
    if "prepare" in moves:
        if "roles" in p:
            team = _team(game, view)
            return "prepare", {"role": p["roles"][team.index(seat) % len(p["roles"])]}
        k = view.team_of(seat)
        picks = view.picks[k] if k is not None else []
        if p["most"] > 0 and picks and win_chance(game, view, _team(game, view), picks) > 0.8:
            return "prepare", {"bet": "no_fall", "stake": 1}
        return "prepare", {}
    if "done_shopping" in moves:
        return _greedy_shop(game, view, moves)
    if "vote_pvp" in moves:
        others = [view.deck_value(s) for s in range(view.n) if s != seat]
        return "vote_pvp", {"pvp": view.deck_value(seat) >= _avg(others)}
    if "choose_opponent" in moves:
        return "choose_opponent", {"opponent": min(p["candidates"], key=lambda s: (
            view.deck_value(s), s))}
    if "prepare_pvp" in moves:
        args = {}
        if "wager" in p:
            args["wager"] = p["wager"][0]
        if "revenge" in p:
            args["revenge"] = "damage"
        if "bet_on" in p and p["stake"][1] - args.get("wager", 0) >= 1:
            a, b = p["bet_on"]
            args["bet_on"] = a if view.deck_value(a) >= view.deck_value(b) else b
            args["stake"] = 1
        return "prepare_pvp", args
    if "choose_pile" in moves:
        return "choose_pile", {"pile": "a" if game.rules.pvp["pile_a"][1] >=
                               game.rules.pvp["pile_b"][1] else "b"}
    if "keep_objective" in moves:
        return "keep_objective", {"index": 0}
    raise RuntimeError(f"greedy bot cannot answer {moves}")


def _greedy_turn(game, view, p):
    d, seat = view, view.seat
    cards = game.rules.cards
    b = d.battles[d.battle_of[seat]]
    stamina = p["stamina"]
    playable = [c for c in p["cards"] if cards[c].min_stamina <= stamina]
    if not playable:                                 # a fumble: throw the weakest away
        return _play_args(game, view, min(p["cards"], key=lambda c: (cards[c].damage, c)), 0,
                          p)
    card = max(playable, key=lambda c: (cards[c].damage + (2 if cards[c].recycle else 0), c))
    c = cards[card]
    if b["kind"] == "monster":
        alive = [m for m in b["monsters"] if m["hp"] > 0]
        left = sum(m["hp"] for m in alive)
        team_hit = sum(_attack_avg(game, view, s) for s in b["seats"] if d.hp[s] > 0)
        turns = max(1, math.ceil(left / max(1.0, team_hit)))
        budget = stamina // turns
        target_hp = min(m["hp"] for m in alive)
        speed = max(m["speed"] for m in alive)
        kill = target_hp <= c.damage + team_hit - _attack_avg(game, view, seat)
        bid = budget
        if kill and stamina >= speed + 1 - c.speed:
            bid = max(bid, speed + 1 - c.speed)
    else:
        foe = next(s for s in b["seats"] if s != seat)
        turns = max(1, math.ceil(d.hp[foe] / max(1.0, _attack_avg(game, view, seat))))
        bid = stamina // turns
        if c.damage >= d.hp[foe]:
            bid = stamina
    bid = max(c.min_stamina, min(stamina, bid))
    return _play_args(game, view, card, bid, p)


def _greedy_shop(game, view, moves):
    d, seat = view, view.seat
    cards = game.rules.cards
    r = game.rules
    atk = _attack_avg(game, view, seat)
    blk = _block_avg(game, view, seat)
    best, best_v = None, 0.0
    reserve = r.pvp["wager_min"] + 2 if view.options["pvp_rewards"] == "wager" else 0
    spare = view.wallet() - reserve
    hungry = sum(cards[c].min_stamina for c in d.attack[seat])     # stamina the deck needs
    for cid, cost in _affordable_cards(game, view):
        if cost > spare:
            continue
        c = cards[cid]
        gain = (c.damage - atk) if c.kind == "attack" else 0.8 * (c.block - blk)
        if c.min_stamina:                  # a card that needs stamina is played less often
            gain -= c.min_stamina * (hungry + c.min_stamina) / 10.0
        if c.kind == "attack" and c.recycle:
            gain += 2
        v = gain / max(1, cost)
        if v > best_v:
            best, best_v = ("buy", {"card": cid}), v
    for stat, cost in _affordable_upgrades(game, view):
        if cost > spare:
            continue
        gain = r.shop["hp_step"] * 0.5 if stat == "hp" else r.shop["stamina_step"] * 0.15
        v = gain / max(1, cost)
        if v > best_v:
            best, best_v = ("upgrade", {"stat": stat}), v
    if best is not None:
        if best[0] == "buy":
            rem = _thin(game, view, best[1]["card"])
            if rem is not None:
                best[1]["remove"] = rem
        return best
    if "convert" in moves:
        tok = d.tokens[seat]
        types = view.system().types
        big = max(types, key=lambda t: (tok[t], t))
        small = min(types, key=lambda t: (tok[t], t))
        if tok[big] >= 6 and tok[small] < 4 and big != small:
            return "convert", {"give": big, "get": small}
    return "done_shopping", {}


# -- casual ----------------------------------------------------------------------------------------

#: How often the casual bot answers as the random bot would instead of the greedy one.
CASUAL_SLIPS = 0.2


def casual_bot(game, view, rng):
    """A table of ordinary players: greedy, but one answer in five (``CASUAL_SLIPS``) is any
    legal answer, as a player who misreads a card or tries something. Calibration plays it by
    default (docs/lab.md, "Calibration"): greedy bots alone decide a battle the same way on every
    deal, so their win rate against a monster falls as a staircase, not a slope."""
    if rng.random() < CASUAL_SLIPS:
        return random_bot(game, view, rng)
    return greedy_bot(game, view, rng)


def search_bot(iterations, horizon=0, model=greedy_bot):
    """The information-set search bot (companion/core/search.py) with a thinking budget of
    ``iterations`` re-deals per decision (:mod:`.redeal`); the other seats and the rollouts
    are played by ``model``. A rollout stops ``horizon`` battles after the current one (None:
    at the end of the game; 0: at the end of the current battle's select-battle-shop-PvP
    cycle) and is scored by :func:`.redeal.evaluate`. Horizon 1 won about as often against
    greedy bots in a small run at half the speed (docs/lab.md, "Battle Builder")."""
    from companion.core.search import Searcher

    from . import redeal
    return Searcher(iterations, redeal.redeal, redeal.candidates, redeal.evaluate, model,
                    horizon=horizon)


BOTS = {"random": random_bot, "greedy": greedy_bot, "casual": casual_bot,
        "search-100": search_bot(100), "search-400": search_bot(400)}
__all__ = ["BOTS", "BBObservation"]
