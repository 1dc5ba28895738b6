"""What each Battle Builder move may be, as argument specs (companion/core/choices.py): cards
and monsters by name with their numbers, players by name, tokens and stamina as steppers.

Computed only for views (``Move.choices``), never in simulation. A seat's specs name only what
that seat may see: its own prompt (its private dual-monster draw and objectives included), its
own attack pile, tokens and decks, and public facts (monsters in play, the shop, other players'
VP and decks).
"""
from companion.core import choices as c

from .data import CATEGORIES

ABILITY_NAMES = {"aoe": "AoE (hits every player)", "enrage": "Enrage",
                 "regeneration": "Regeneration", "counter": "Counter",
                 "armor_piercing": "Armor piercing", "speed_drain": "Speed drain"}
BET_TEXT = {"killing_blow": "I deal the killing blow",
            "no_fall": "Nobody on my team drops below {hp} HP"}
PVP_USES = {"stamina": "+{stamina} stamina this battle",
            "defense": "Draw {defense} more defence card(s) when hit",
            "damage": "+{damage} damage on every attack"}
# what stamina does (rulebook: "Highest stamina acts first"; stamina resets each battle)
STAMINA_HELP = "the most stamina acts first, and what you spend comes back only next battle"
TOKEN_WORDS = {"skill": "tokens", "attack": "attack tokens", "defense": "defence tokens",
               "speed": "speed tokens", "hp": "HP tokens", "combat": "combat tokens",
               "training": "training tokens"}


def _tokens(n, t):
    return f"{n} {TOKEN_WORDS.get(t, t + ' tokens')}"


def monster_text(game, state, mid):
    """"Easy · 13 HP · attack 3 · speed 3 · reward 3 · Regeneration" (abilities in play only)."""
    m = game.rules.monsters[mid]
    active = game.active_abilities(state)
    bits = [m.difficulty.capitalize(), f"{m.hp} HP", f"attack {m.attack}",
            f"speed {m.speed}", f"reward {m.reward}"]
    bits += [ABILITY_NAMES.get(a, a) for a in m.abilities if a in active]
    return " · ".join(bits)


def _monster_options(game, state, ids):
    return [c.option(mid, game.rules.monsters[mid].name, monster_text(game, state, mid),
                     difficulty=game.rules.monsters[mid].difficulty) for mid in ids]


def keep_objective(game, state, seat):
    offer = state.prompts[seat]["options"]
    objs = game.rules.objectives
    return [c.one("index", [c.option(i, objs[o].name, objs[o].text)
                            for i, o in enumerate(offer)], "Keep which objective?")]


def choose_monster(game, state, seat):
    p = state.prompts[seat]
    label = "Keep which monster?" if p.get("mode") == "dual" else "Your vote"
    return [c.one("monster", _monster_options(game, state, p["options"]), label)]


def bid_auction(game, state, seat):
    p = state.prompts[seat]
    return [c.number("tokens", 0, p["most"], game.auction_question(state, p["pool"]))]


def pick_monster(game, state, seat):
    return [c.one("monster", _monster_options(game, state, state.prompts[seat]["pool"]),
                  "Your team fights")]


def prepare(game, state, seat):
    p = state.prompts[seat]
    r = game.rules
    if "roles" in p:
        opts = []
        for role in p["roles"]:
            mult = r.roles[role]
            detail = ", ".join(f"{k} tokens ×{mult[k]:g}" for k in CATEGORIES
                               if mult.get(k, 1.0) != 1.0)
            opts.append(c.option(role, role.capitalize(), detail))
        return [c.one("role", opts, "Your role card")]
    b = r.betting
    most = p["most"]
    opts = [c.option(None, "No bet")]
    for kind in p["bets"]:
        text = BET_TEXT.get(kind, kind.replace("_", " ")).format(hp=b["no_fall_hp"])
        extra = {} if most >= 1 else {"disabled": "You have no tokens to stake."}
        opts.append(c.option(kind, text, f"right: {b['payout']}× your stake back", **extra))
    specs = [c.one("bet", opts, "Your bet")]
    if most >= 1:
        specs.append(c.number("stake", 1, most, "Your stake, in tokens",
                              when={"bet": list(p["bets"])}))
    return specs


def _card_detail(card):
    return card.text()


def play_turn(game, state, seat):
    """``card`` from your attack pile (by name, with damage and needs), ``stamina`` 0 to what
    you have left (at least the card's minimum), ``target`` among the monsters still standing
    when there are several."""
    p = state.prompts[seat]
    cards = game.rules.cards
    have = p["stamina"]
    fumble = p.get("fumble", False)
    opts, by_min = [], {}
    for cid in p["cards"]:
        card = cards[cid]
        extra = {"damage": card.damage, "min_stamina": card.min_stamina}
        detail = _card_detail(card)
        if fumble:
            detail += " · a fumble: no damage (no card can be paid for)"
        elif card.min_stamina > have:
            extra["disabled"] = f"Needs {card.min_stamina} stamina; you have {have}."
        if not extra.get("disabled"):
            by_min.setdefault(0 if fumble else card.min_stamina, []).append(cid)
        opts.append(c.option(cid, card.name, detail, **extra))
    specs = [c.one("card", opts, "Your attack")]
    for lo, ids in sorted(by_min.items()):
        # the help in one closing parenthesis: a lock-in button names the answer by the label
        # without it ("Lock in Crushing Blow · Stamina to spend: 4", not five lines of help)
        specs.append(c.number("stamina", lo, have, f"Stamina to spend ({STAMINA_HELP}; you "
                              f"have {have})", when={"card": ids}))
    if "targets" in p:
        d = state.data
        b = d.battles[d.battle_of[seat]]
        names = [b["monsters"][i]["name"] for i in p["targets"]]
        topts = []
        for i, name in zip(p["targets"], names):
            m = b["monsters"][i]
            label = name if names.count(name) == 1 else f"{name} ({i + 1})"
            topts.append(c.option(i, label, f"{m['hp']}/{m['max_hp']} HP · attack "
                                            f"{m['attack']} · speed {m['speed']}"))
        specs.append(c.one("target", topts, "Attack which monster?"))
    return specs


def extra_attack(game, state, seat):
    cards = game.rules.cards
    return [c.one("card", [c.option(cid, cards[cid].name, _card_detail(cards[cid]))
                           for cid in state.prompts[seat]["cards"]], "Your extra attack")]


def buy(game, state, seat):
    """``card``: every card the shop offers, by name with its price (disabled when you cannot
    buy it, with the reason); ``remove`` (deck thinning): a basic card of the same kind to
    drop, optional."""
    from companion.core.errors import IllegalMoveError
    r, cfg, d = game.rules, state.config, state.data
    opts = {"attack": [], "defense": []}
    ids = [cid for cid, card in r.cards.items() if card.tier]
    if cfg["limited_shop"]:
        ids = [cid for cid in ids if cid in d.shop_pool]
    for cid in ids:
        card = r.cards[cid]
        extra = {"kind": card.kind, "tier": card.tier}
        try:
            t, cost = game.card_cost(state, seat, cid)
        except IllegalMoveError as e:
            extra["disabled"] = str(e)
            price = None
        else:
            price = _tokens(cost, t)
            extra["cost"] = cost
            if d.tokens[seat][t] < cost:
                extra["disabled"] = f"It costs {price}; you have {d.tokens[seat][t]}."
        kind = "Attack" if card.kind == "attack" else "Defence"
        detail = f"{kind}, tier {card.tier}: {_card_detail(card)}"
        if price:
            detail += f" · {price}"
        if cfg["scarce_shop"]:
            detail += f" · {d.stock.get(cid, 0)} left"
        opts[card.kind].append(c.option(cid, card.name, detail, **extra))
    specs = [c.one("card", opts["attack"] + opts["defense"], "Buy which card?")]
    if cfg["deck_thinning"]:
        for kind in ("attack", "defense"):
            own = d.attack[seat] if kind == "attack" else d.defense[seat]
            basics = sorted({x for x in own if r.cards[x].tier == 0})
            buyable = [o["value"] for o in opts[kind]]
            if basics and buyable:
                specs.append(c.one("remove", [
                    c.option(x, r.cards[x].name, f"drop it from your deck: "
                                                 f"{_card_detail(r.cards[x])}")
                    for x in basics], "Drop a basic card? (deck thinning)",
                    optional=True, when={"card": buyable}))
    return specs


def upgrade(game, state, seat):
    from companion.core.errors import IllegalMoveError
    r, d = game.rules, state.data
    opts = []
    for stat, label in (("hp", f"+{r.shop['hp_step']} HP"),
                        ("stamina", f"+{r.shop['stamina_step']} stamina")):
        try:
            t, cost = game.upgrade_cost(state, seat, stat)
        except IllegalMoveError as e:
            opts.append(c.option(stat, label, disabled=str(e)))
            continue
        extra = {"cost": cost}
        if d.tokens[seat][t] < cost:
            extra["disabled"] = f"It costs {_tokens(cost, t)}; you have {d.tokens[seat][t]}."
        opts.append(c.option(stat, label, f"costs {_tokens(cost, t)}", **extra))
    return [c.one("stat", opts, "Upgrade what?")]


def convert(game, state, seat):
    types = game.system(state).types
    n_give, n_get = game.rules.conversion
    tok = state.data.tokens[seat]
    give = []
    for t in types:
        extra = {} if tok[t] >= n_give else {
            "disabled": f"You have {tok[t]} {TOKEN_WORDS.get(t, t)}; it takes {n_give}."}
        give.append(c.option(t, TOKEN_WORDS.get(t, t).capitalize(),
                             f"give {n_give} of your {tok[t]}", **extra))
    get = [c.option(t, TOKEN_WORDS.get(t, t).capitalize(), f"get {n_get}",
                    when={"give": [g for g in types if g != t]}) for t in types]
    return [c.one("give", give, f"Give {n_give} of"), c.one("get", get, f"Get {n_get} of")]


def vote_pvp(game, state, seat):
    return [c.one("pvp", [c.option(True, "Fight now", "PvP after this battle"),
                          c.option(False, "Not yet", "Another monster battle first")],
                  "PvP now?")]


def choose_opponent(game, state, seat):
    d = state.data
    opts = [c.option(s, state.players[s], f"{d.vp[s]} VP · deck value "
                                          f"{game.deck_value(state, s)}")
            for s in state.prompts[seat]["candidates"]]
    return [c.one("opponent", opts, "Your opponent")]


def prepare_pvp(game, state, seat):
    """The sealed PvP preparation: ``wager`` (wager pots), ``revenge`` (a revenge token to
    spend), ``bet_on`` and ``stake`` (a spectator's bet); wager and stake together never
    exceed your tokens."""
    p = state.prompts[seat]
    r = game.rules
    wallet = game.wallet(state, seat)
    specs = []
    wagers = None
    if "wager" in p:
        lo, hi = p["wager"]
        wagers = list(range(lo, hi + 1))
        specs.append(c.number("wager", lo, hi, "Your wager for the pot, in tokens"))
    if "revenge" in p:
        opts = [c.option(None, "Keep it", "Save your revenge token for later")]
        pv = r.pvp
        for use in p["revenge"]:
            text = PVP_USES.get(use, use).format(stamina=pv["revenge_stamina"],
                                                 defense=pv["revenge_defense_cards"],
                                                 damage=pv["revenge_damage"])
            opts.append(c.option(use, text))
        specs.append(c.one("revenge", opts, "Spend your revenge token?"))
    if "bet_on" in p:
        smax = p["stake"][1]

        def cap(w):
            return min(smax, wallet - w)

        can = [w for w in wagers if cap(w) >= 1] if wagers is not None else None
        opts = [c.option(None, "No bet")]
        for s in p["bet_on"]:
            when = {"wager": can} if can is not None and len(can) < len(wagers) else None
            if can == []:
                opts.append(c.option(s, state.players[s], disabled="Your wager leaves no "
                                                                   "tokens to stake."))
            else:
                opts.append(c.option(s, state.players[s], "right: double your stake back",
                                     when=when))
        match = " v ".join(state.players[s] for s in p["bet_on"])
        other = "the other match" if len(state.data.pairings) > 1 else "the match"
        specs.append(c.one("bet_on", opts, f"Bet on {other}, {match}?"))
        if wagers is None:
            if cap(0) >= 1:
                specs.append(c.number("stake", 1, cap(0), "Your stake, in tokens",
                                      when={"bet_on": list(p["bet_on"])}))
        else:
            groups = {}
            for w in can:
                groups.setdefault(cap(w), []).append(w)
            for hi, ws in sorted(groups.items(), reverse=True):
                specs.append(c.number("stake", 1, hi, "Your stake, in tokens",
                                      when={"bet_on": list(p["bet_on"]), "wager": ws}))
    return specs


def choose_pile(game, state, seat):
    pv = game.rules.pvp
    opts = []
    for key in ("a", "b"):
        tokens, vp = pv[f"pile_{key}"]
        label = f"{tokens} tokens" + (f" + {vp} VP" if vp else "")
        opts.append(c.option(key, label, "the loser takes the other pile"))
    return [c.one("pile", opts, "Your pile")]
