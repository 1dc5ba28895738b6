"""Battle Builder's greedy bot: the one-turn heuristics (what to buy, what to play, how a fight may
go) that the bots, and the re-deals' rollouts (:mod:`.redeal`), play with. Apart from
:mod:`.bots` so that the re-deals can use it without importing the search bot that uses them.
"""
import math
from companion.core.errors import IllegalMoveError


VP_WORTH = 5.0          # tokens a greedy bot would trade for 1 VP


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
