"""The Battle Builder battle engine: one turn = one sealed window per battle, revealed together.

A battle is a plain dict in ``state.data.battles`` (so it folds and fingerprints like the rest
of the state); per-seat battle values (HP, stamina, attack pile, defence deck) live in per-seat
lists of :class:`~.game.BBData`, since a seat fights in at most one battle at a time.

Turn order (rulebook "Determine Play Order"): every participant's speed is its stamina bid
(+ the card's speed bonus) for a player, its printed speed for a monster, plus the environment's
speed modifier, never below 0. Highest first; ties are broken by a seeded shuffle. Each actor
resolves in that order; a participant at 0 HP does not act. The end check comes after everyone
has acted (step 6), except that a PvP battle stops the moment one player is down.
"""
from companion.core.game import close_window

NO_CHOICE = {"card": None, "stamina": 0, "target": None}


def effect_of(game, battle):
    eid = battle.get("effect")
    if eid is None:
        return None
    return game.rules.environments.get(eid) or game.rules.arenas.get(eid)


def fresh_stats(hp):
    return {"dealt": 0, "overkill": 0, "blocked": 0, "taken": 0, "hits": 0, "first": 0,
            "before_monster": 0, "damage_actions": 0, "killing_blow": 0, "min_hp": hp,
            "hp_end": hp, "max_hp": hp}


def max_hp(game, state, seat, eff=None):
    r = game.rules
    base = r.setup["hp"] + state.data.hp_ups[seat] * r.shop["hp_step"]
    return max(1, base + (eff.max_hp_mod if eff else 0))


def max_stamina(game, state, seat):
    r = game.rules
    return r.setup["stamina"] + state.data.st_ups[seat] * r.shop["stamina_step"]


def reset_fighter(game, state, seat, eff, mods=None, keep_stamina=False):
    d = state.data
    hp = max_hp(game, state, seat, eff)
    d.max_now[seat] = hp
    d.hp[seat] = hp
    if not keep_stamina:
        d.stamina[seat] = max_stamina(game, state, seat) + (mods or {}).get("stamina", 0)
        d.pile[seat] = sorted(d.attack[seat])
        deck = list(d.defense[seat])
        state.rng.shuffle(deck)
        d.ddeck[seat] = deck
        d.ddiscard[seat] = []
        d.bstats[seat] = fresh_stats(hp)
        d.mods[seat] = dict(mods or {})
    d.negate[seat] = False


def start_battle(game, state, bid, kind, seats, monster_ids, effect=None, mods=None):
    """Set up a battle (monster, pvp or final) and open its first turn."""
    d, r = state.data, game.rules
    eff = effect_of(game, {"effect": effect})
    active = game.active_abilities(state)
    monsters = []
    for mid in monster_ids:
        m = r.monsters[mid]
        deck = list(m.defense)
        state.rng.shuffle(deck)
        monsters.append({"id": mid, "name": m.name, "difficulty": m.difficulty, "hp": m.hp,
                         "max_hp": m.hp, "attack": m.attack, "speed": m.speed,
                         "reward": m.reward,
                         "abilities": [a for a in m.abilities if a in active],
                         "deck": deck, "discard": [], "dealt": {}})
    battle = {"id": bid, "kind": kind, "seats": list(seats), "monsters": monsters, "turn": 0,
              "round": 1, "round_wins": {}, "effect": effect, "over": False, "result": None,
              "winner": None, "started": state.now, "ended": None, "window": None,
              "plays": {}, "speeds": {}, "order": [], "log": [], "fastest": None,
              "opportunity_used": [], "last_ko": None, "turn_dealt": {}}
    d.battles[bid] = battle
    for s in seats:
        reset_fighter(game, state, s, eff, (mods or {}).get(s))
        d.battle_of[s] = bid
    state.note("BattleStarted", battle=bid, battle_kind=kind, seats=list(seats),
               monsters=list(monster_ids), effect=effect)
    open_turn(game, state, battle)
    return battle


def open_turn(game, state, battle):
    d = state.data
    battle["turn"] += 1
    wid = f"{battle['id']}:{battle['round']}.{battle['turn']}"
    battle["window"] = wid
    seats = [s for s in battle["seats"] if d.hp[s] > 0]
    if battle["kind"] == "monster":
        what = " & ".join(m["name"] for m in battle["monsters"])
    else:
        what = "PvP " + " vs ".join(state.players[s] for s in battle["seats"])
    state.open_window(wid, "turn", seats, game._turn_revealed, default=dict(NO_CHOICE),
                      label=f"{what}: turn {battle['turn']}")
    targets = [i for i, m in enumerate(battle["monsters"]) if m["hp"] > 0]
    for s in seats:
        d.win_of[s] = wid
        info = {"window": wid, "battle": battle["id"], "stamina": d.stamina[s],
                "cards": sorted(set(d.pile[s]))}
        if game.must_fumble(state, s):
            info["fumble"] = True
        if len(targets) > 1:
            info["targets"] = targets
        state.prompt(s, ("play_turn",), **info)
    secs = state.config.get("turn_seconds", 0)
    if secs:
        state.start_timer(f"turn:{battle['id']}", secs, warn_before=min(30, secs / 2))


def timeout(game, state, battle):
    """The turn timer ran out: seats that have not locked in pass (no card, no stamina)."""
    w = state.windows.get(battle["window"])
    if w is None or w.is_revealed():
        return
    close_window(game, state, w)


def _cycle(state, seat, cid, card, fumbled=False):
    """Play ``cid`` from the seat's pile: it goes to the discard; an empty pile is refilled from
    the whole deck (the rulebook's deck cycling). A recycling card stays in the pile, unless it
    was fumbled."""
    d = state.data
    pile = d.pile[seat]
    if card.recycle and not fumbled:
        return
    pile.remove(cid)
    if not pile:
        d.pile[seat] = sorted(d.attack[seat])
        state.note("DeckCycled", seat=seat)


def resolve_turn(game, state, battle, choices):
    d, cards = state.data, game.rules.cards
    eff = effect_of(game, battle)
    smod = eff.speed_mod if eff else 0
    stop = f"turn:{battle['id']}"
    if stop in state.timers:
        state.stop_timer(stop)
    plays, speeds = {}, {}
    log = []
    for s in battle["seats"]:
        if d.hp[s] <= 0:
            continue
        ch = choices.get(s) or NO_CHOICE
        cid, st = ch.get("card"), ch.get("stamina", 0) or 0
        if cid is None:
            plays[s] = [None, 0, None]
            speeds[s] = max(0, smod)
            log.append({"seat": s, "passed": True})
            continue
        card = cards[cid]
        d.stamina[s] -= st
        _cycle(state, s, cid, card, fumbled=st < card.min_stamina)
        plays[s] = [cid, st, ch.get("target")]
        if st < card.min_stamina:                    # a fumble: it cycles, deals nothing
            plays[s][0] = None
            log.append({"seat": s, "card": cid, "stamina": st, "fumble": True})
            speeds[s] = max(0, st + smod)
            continue
        speeds[s] = max(0, st + card.speed + smod)
        log.append({"seat": s, "card": cid, "stamina": st})
    order = [["p", s] for s in plays]
    for i, m in enumerate(battle["monsters"]):
        if m["hp"] > 0:
            order.append(["m", i])
            speeds[f"m{i}"] = max(0, m["speed"] + smod)
    state.rng.shuffle(order)                                     # the seeded tiebreak
    order.sort(key=lambda a: -speeds[a[1] if a[0] == "p" else f"m{a[1]}"])
    players_in_order = [a[1] for a in order if a[0] == "p"]
    battle["fastest"] = players_in_order[0] if players_in_order else None
    if battle["kind"] == "monster":
        if order and order[0][0] == "p":
            d.bstats[order[0][1]]["first"] += 1
        first_m = next((k for k, a in enumerate(order) if a[0] == "m"), len(order))
        for k, a in enumerate(order[:first_m]):
            d.bstats[a[1]]["before_monster"] += 1
        drain = [m for m in battle["monsters"] if m["hp"] > 0 and
                 "speed_drain" in m["abilities"]]
        if drain and battle["fastest"] is not None:
            f = battle["fastest"]
            lost = min(d.stamina[f], game.rules.battle["speed_drain"] * len(drain))
            d.stamina[f] -= lost
            log.append({"seat": f, "speed_drain": lost})
    elif players_in_order:
        d.bstats[players_in_order[0]]["first"] += 1
    battle["plays"] = {str(s): p for s, p in plays.items()}
    battle["speeds"] = dict((str(k), v) for k, v in speeds.items())
    battle["order"] = order
    battle["log"] = log
    battle["turn_dealt"] = {}
    battle["opportunity_used"] = []
    state.note("TurnRevealed", battle=battle["id"], turn=battle["turn"],
               order=[a[1] if a[0] == "p" else f"m{a[1]}" for a in order],
               plays={str(s): p for s, p in plays.items()})
    bid = battle["id"]
    state.push([{"step": "act", "battle": bid, "who": list(a)} for a in order] +
               [{"step": "end_turn", "battle": bid}], lane=bid)


# The turn's actions are steps in the battle's own lane of the core's flow (one battle waiting
# for an extra attack never holds up another): each actor in speed order, then the end of turn.
def act_step(game, state, step):
    d = state.data
    battle = d.battles[step["battle"]]
    kind, who = step["who"]
    if "extra" in step:                                  # the attack of opportunity, chosen
        card = step["extra"]
        _cycle(state, who, card, game.rules.cards[card])
        state.note("ExtraAttack", seat=who, card=card, battle=battle["id"])
        player_attack(game, state, battle, who, card, None, extra=True)
        return None
    if kind == "p":
        if d.hp[who] <= 0:
            return None
        cid, _st, target = battle["plays"][str(who)]
        if cid is None:
            return None
        if player_attack(game, state, battle, who, cid, target):
            return state.ask(who, ("extra_attack",), lane=battle["id"], battle=battle["id"],
                             cards=sorted(set(d.pile[who])))
    else:
        monster_attack(game, state, battle, who)
    if battle["kind"] != "monster" and any(d.hp[s] <= 0 for s in battle["seats"]):
        state.flow.drop(battle["id"], keep=lambda st: st["step"] != "act")
    return None


def end_turn_step(game, state, step):
    end_turn(game, state, state.data.battles[step["battle"]])


def _draw_defense(state, seat):
    d = state.data
    if not d.ddeck[seat]:
        if not d.ddiscard[seat]:
            return None
        d.ddeck[seat], d.ddiscard[seat] = d.ddiscard[seat], []
        state.rng.shuffle(d.ddeck[seat])
    cid = d.ddeck[seat].pop()
    d.ddiscard[seat].append(cid)
    return cid


def _monster_block(state, m):
    if not m["deck"]:
        if not m["discard"]:
            return 0
        m["deck"], m["discard"] = m["discard"], []
        state.rng.shuffle(m["deck"])
    b = m["deck"].pop()
    m["discard"].append(b)
    return b


def player_attack(game, state, battle, seat, cid, target, extra=False):
    """Returns True if the seat earned an extra attack (PvP Variant A): the turn waits for
    it."""
    d, r = state.data, game.rules
    card = r.cards[cid]
    eff = effect_of(game, battle)
    damage = card.damage + (eff.damage_mod if eff else 0) + d.mods[seat].get("damage", 0)
    if battle["kind"] == "monster":
        if eff and eff.only_fastest_attacks and seat != battle["fastest"] and not extra:
            battle["log"].append({"seat": seat, "no_room": True})
            return False
        alive = [i for i, m in enumerate(battle["monsters"]) if m["hp"] > 0]
        if not alive:
            return False
        t = target if target in alive else alive[0]
        m = battle["monsters"][t]
        block = 0 if card.ignore_defense else _monster_block(state, m)
        dealt = max(0, damage - block)
        before = m["hp"]
        m["hp"] = max(0, before - dealt)
        actual = before - m["hp"]
        st = d.bstats[seat]
        st["dealt"] += actual
        st["overkill"] += dealt - actual
        key = str(seat)
        battle["turn_dealt"].setdefault(str(t), {})
        battle["turn_dealt"][str(t)][key] = battle["turn_dealt"][str(t)].get(key, 0) + actual
        if dealt > 0:
            st["damage_actions"] += 1
            if card.heal:
                d.hp[seat] = min(d.max_now[seat], d.hp[seat] + card.heal)
            if "counter" in m["abilities"] and d.hp[seat] > 0:
                c = min(d.hp[seat], r.battle["counter"])
                d.hp[seat] -= c
                st["taken"] += c
                st["min_hp"] = min(st["min_hp"], d.hp[seat])
        if before > 0 and m["hp"] == 0:
            st["killing_blow"] += 1
        battle["log"].append({"seat": seat, "card": cid, "target": f"m{t}", "damage": damage,
                              "block": block, "dealt": actual})
        return False
    foe = next(s for s in battle["seats"] if s != seat)
    if d.hp[foe] <= 0:
        return False
    before = d.hp[foe]
    dealt = hit_player(game, state, battle, ("p", seat), foe, damage, card.ignore_defense)
    if dealt > 0 and card.heal and d.hp[seat] > 0:
        d.hp[seat] = min(d.max_now[seat], d.hp[seat] + card.heal)
    d.bstats[seat]["dealt"] += dealt
    if d.hp[foe] == 0:
        battle["last_ko"] = seat
    # Variant A, attack of opportunity: acting before the foe and bringing it below the mark
    below = r.pvp["opportunity_below"]
    if (state.config["opportunity"] and not extra and d.hp[foe] > 0 and before >= below >
            d.hp[foe] and any(st.get("who") == ["p", foe]
                              for st in state.flow.steps(battle["id"])) and
            seat not in battle["opportunity_used"] and d.pile[seat]):
        battle["opportunity_used"].append(seat)
        state.note("AttackOfOpportunity", seat=seat, foe=foe, battle=battle["id"])
        return True
    return False


def hit_player(game, state, battle, attacker, seat, damage, ignore_defense):
    """``attacker`` = ("p", seat) or ("m", index). Returns the damage that got through."""
    d, cards = state.data, game.rules.cards
    st = d.bstats[seat]
    block, counter, drawn = 0, 0, []
    if d.negate[seat]:
        d.negate[seat] = False
        block = damage
        drawn = ["negated"]
    elif not ignore_defense:
        for _ in range(1 + d.mods[seat].get("defense_cards", 0)):
            cid = _draw_defense(state, seat)
            if cid is None:
                break
            c = cards[cid]
            drawn.append(cid)
            block += c.block
            counter += c.counter
            if c.negate_next:
                d.negate[seat] = True
    dealt = max(0, damage - block)
    dealt = min(dealt, d.hp[seat])
    d.hp[seat] -= dealt
    st["blocked"] += min(block, damage)
    st["taken"] += dealt
    if dealt > 0:
        st["hits"] += 1
    st["min_hp"] = min(st["min_hp"], d.hp[seat])
    src = f"m{attacker[1]}" if attacker[0] == "m" else attacker[1]
    battle["log"].append({"attacker": src, "seat": seat, "damage": damage, "defense": drawn,
                          "block": block, "dealt": dealt})
    if counter:
        if attacker[0] == "m":
            m = battle["monsters"][attacker[1]]
            if m["hp"] > 0:
                m["hp"] = max(0, m["hp"] - counter)
                if m["hp"] == 0:
                    st["killing_blow"] += 1
        else:
            a = attacker[1]
            c = min(d.hp[a], counter)
            d.hp[a] -= c
            d.bstats[a]["taken"] += c
            if d.hp[a] == 0:
                battle["last_ko"] = seat
        battle["log"].append({"counter": counter, "by": seat, "to": src})
    return dealt


def monster_attack(game, state, battle, i):
    d, r = state.data, game.rules
    m = battle["monsters"][i]
    if m["hp"] <= 0:
        return
    alive = [s for s in battle["seats"] if d.hp[s] > 0]
    if not alive:
        return
    eff = effect_of(game, battle)
    atk = m["attack"] + (eff.damage_mod if eff else 0)
    if "enrage" in m["abilities"] and battle["turn"] > r.battle["enrage_after"]:
        atk += r.battle["enrage_attack"]
    targets = alive if "aoe" in m["abilities"] else [choose_target(state, battle, i, alive)]
    for t in targets:
        hit_player(game, state, battle, ("m", i), t, atk, "armor_piercing" in m["abilities"])


def choose_target(state, battle, i, alive):
    """The monster's target by the ``targeting`` setting (rulebook Variant A, options 1-4)."""
    d = state.data
    mode = state.config["targeting"]
    speeds = battle["speeds"]

    def slowest(cands):
        low = min(speeds.get(str(s), 0) for s in cands)
        tied = [s for s in cands if speeds.get(str(s), 0) == low]
        return tied[0] if len(tied) == 1 else state.rng.choice(tied)

    if len(alive) == 1:
        return alive[0]
    if mode == "slower":
        return slowest(alive)
    if mode == "top-damage":
        last = battle["monsters"][i]["dealt"]
        vals = {s: last.get(str(s), 0) for s in alive}
    elif mode == "higher-hp":
        vals = {s: d.hp[s] for s in alive}
    else:                                            # "more-vp"
        vals = {s: d.vp[s] for s in alive}
    top = max(vals.values())
    return slowest([s for s in alive if vals[s] == top])


def end_turn(game, state, battle):
    d, r = state.data, game.rules
    eff = effect_of(game, battle)
    for s in battle["seats"]:
        if d.hp[s] > 0 and eff and eff.heal_per_turn:
            d.hp[s] = min(d.max_now[s], d.hp[s] + eff.heal_per_turn)
    for i, m in enumerate(battle["monsters"]):
        m["dealt"] = dict(battle["turn_dealt"].get(str(i), {}))
        if m["hp"] > 0 and "regeneration" in m["abilities"]:
            m["hp"] = min(m["max_hp"], m["hp"] + r.battle["regeneration"])
    for s in battle["seats"]:
        d.bstats[s]["min_hp"] = min(d.bstats[s]["min_hp"], d.hp[s])
    state.note("TurnResolved", battle=battle["id"], turn=battle["turn"], log=battle["log"],
               hp={str(s): d.hp[s] for s in battle["seats"]},
               monsters=[m["hp"] for m in battle["monsters"]])
    if battle["kind"] == "monster":
        if all(m["hp"] <= 0 for m in battle["monsters"]):
            return finish(game, state, battle, "won")
        if any(d.hp[s] <= 0 for s in battle["seats"]):
            return finish(game, state, battle, "lost")
        if battle["turn"] >= r.battle["max_turns"]:
            return finish(game, state, battle, "lost", why="turn limit")
        return open_turn(game, state, battle)
    a, b = battle["seats"]
    winner, why = None, None
    if d.hp[a] <= 0 or d.hp[b] <= 0:
        if d.hp[a] <= 0 and d.hp[b] <= 0:
            winner, why = battle["last_ko"], "both down: the last blow wins"
        else:
            winner = a if d.hp[b] <= 0 else b
    elif battle["turn"] >= r.battle["pvp_max_turns"] or _stalemate(game, state, battle):
        why = ("out of stamina: more HP wins" if battle["turn"] < r.battle["pvp_max_turns"]
               else "turn limit: more HP wins")
        if d.hp[a] != d.hp[b]:
            winner = a if d.hp[a] > d.hp[b] else b
        elif d.stamina[a] != d.stamina[b]:
            winner = a if d.stamina[a] > d.stamina[b] else b
        else:
            winner = state.rng.choice([a, b])
    if winner is None:
        return open_turn(game, state, battle)
    wins = battle["round_wins"]
    wins[str(winner)] = wins.get(str(winner), 0) + 1
    best_of = r.pvp["best_of"] if state.config["best_of_three"] and \
        battle["kind"] == "pvp" else 1
    if wins[str(winner)] * 2 > best_of:
        battle["winner"] = winner
        return finish(game, state, battle, "decided", why=why)
    state.note("PvPRoundWon", battle=battle["id"], round=battle["round"], seat=winner)
    battle["round"] += 1
    battle["turn"] = 0
    eff = effect_of(game, battle)
    for s in battle["seats"]:
        reset_fighter(game, state, s, eff, keep_stamina=True)      # full HP, stamina kept
    open_turn(game, state, battle)


def _stalemate(game, state, battle):
    """Both PvP players are out of stamina (it comes back only in the next battle): said
    once, and with ``pvp_stalemate = "end"`` the battle ends now as at the turn limit."""
    d = state.data
    a, b = battle["seats"]
    if d.stamina[a] > 0 or d.stamina[b] > 0:
        return False
    end = state.config.get("pvp_stalemate") == "end"
    if not battle.get("spent"):
        battle["spent"] = True
        pa, pb = state.players[a], state.players[b]
        limit = game.rules.battle["pvp_max_turns"]
        then = ("the battle ends now: more HP wins" if end else
                f"the battle plays on until one falls or turn {limit} (then more HP wins)")
        state.note("PvPStalemate", battle=battle["id"], seats=[a, b], turn=battle["turn"],
                   ends=end, says=f"Stalemate: neither {pa} nor {pb} has stamina left; "
                                  f"{then}.")
    return end


def finish(game, state, battle, result, why=None):
    d = state.data
    battle["over"] = True
    battle["result"] = result
    battle["ended"] = state.now
    for s in battle["seats"]:
        d.win_of[s] = None
        d.battle_of[s] = None
        d.bstats[s]["hp_end"] = d.hp[s]
        d.bstats[s]["max_hp"] = d.max_now[s]
    state.stop_timer(f"turn:{battle['id']}")
    if battle["kind"] == "monster":
        game.monster_battle_over(state, battle, result == "won", why)
    else:
        game.pvp_over(state, battle, battle["winner"], why)
