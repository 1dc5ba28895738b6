"""Every Battle Builder move is a tap on what the views' ``legal`` offers (issue 10): whole
games played only from the specs at 2-4 players over the variants, with zero refusals; the
sealed attack (card by name with its numbers, stamina from the card's minimum, the target by
name), the shop with prices, votes, bids, bets and PvP preparations whose parts never add up to
more tokens than a player has; no seat's list names another seat's hidden draws or objectives;
the battle log in words."""
import json
import random

import pytest

from companion.core import choices, views
from companion.core.play import tap

from ...conformance.driver import tapped
from ..tables import play_until
from .helpers import GAME, battle, do, fresh, in_battle, session, set_fighter, vote_monsters
from .test_playthrough import SPREAD

# every move appears in at least one of these (objectives, auction, draft, choice piles,
# opportunity, conversion, thinning, wagers with spectator bets and revenge)
EVERY_MOVE = [
    {"arc": "4+1", "victory": "objectives", "monster_select": "auction", "earning": "betting",
     "pvp_pairing": "draft", "pvp_rewards": "choice", "opportunity": True},
    {"arc": "6+2", "tokens": "D", "convert_when": "any-shop", "deck_thinning": True,
     "pvp_trigger": "vote", "pvp_rewards": "wager", "spectator_bets": True, "revenge": True,
     "earning": "roles", "dual_monsters": True},
]


def _spec(legal, move, name=None):
    m = next(x for x in legal if x["move"] == move)
    if name is None:
        return m
    return [s for s in m["args"] if s["name"] == name]


@pytest.mark.parametrize("n", [2, 3, 4])
def test_whole_games_by_taps_with_zero_refusals_over_the_variants(n):
    for seed in range(len(SPREAD) + len(EVERY_MOVE)):
        opts = (SPREAD + EVERY_MOVE)[seed]
        tapped(GAME, n, seed * 5 + n, opts)


def test_random_variant_mixes_by_taps_with_zero_refusals():
    rng = random.Random(2026)
    for i in range(24):
        opts = {"arc": rng.choice(["4+1", "6+2"])}
        for o in GAME.options:
            if o.name in ("arc", "turn_seconds", "shop_seconds"):
                continue
            if o.choices:
                opts[o.name] = rng.choice(o.choices)
            elif isinstance(o.default, bool):
                opts[o.name] = rng.random() < 0.5
        if i % 4 == 0:
            opts["turn_seconds"] = 30
        tapped(GAME, rng.randint(2, 4), 1000 + i, opts)


def test_the_sealed_attack_card_by_name_stamina_from_its_minimum():
    st = in_battle()
    set_fighter(st, 0, stamina=4, pile=["jab", "blitz", "elite-slash"])
    st.prompts[0]["cards"] = ["blitz", "elite-slash", "jab"]
    cards = GAME.rules.cards
    legal = views.legal(GAME, st, 0)
    m = _spec(legal, "play_turn")
    assert m["label"] == "Attack" and m["sealed"]
    [card] = _spec(legal, "play_turn", "card")
    opts = {o["value"]: o for o in card["options"]}
    assert opts["jab"]["label"] == "Jab" and opts["jab"]["detail"] == "2 damage"
    needy = [c for c in ("blitz", "elite-slash") if cards[c].min_stamina > 4]
    for cid in needy:
        assert opts[cid]["disabled"] == f"Needs {cards[cid].min_stamina} stamina; you have 4."
    stamina = _spec(legal, "play_turn", "stamina")
    for spec in stamina:
        for cid in spec["when"]["card"]:
            assert spec["min"] == cards[cid].min_stamina and spec["max"] == 4
    assert not any(cid in s_["when"]["card"] for s_ in stamina for cid in needy)
    assert not _spec(legal, "play_turn", "target")          # one monster: no target asked
    rng = random.Random(3)
    for _ in range(30):
        args = choices.sample(m["args"], rng)
        assert args["card"] not in needy
        assert cards[args["card"]].min_stamina <= args["stamina"] <= 4
        GAME.moves["play_turn"].fn(st, 0, **args)             # the rules accept it


def test_a_fumble_turn_offers_every_card_at_any_stamina():
    st = in_battle()
    set_fighter(st, 0, stamina=1, pile=["elite-slash"])
    assert GAME.must_fumble(st, 0)
    d = st.data
    st.prompts[0].update(cards=["elite-slash"], stamina=1, fumble=True)
    legal = views.legal(GAME, st, 0)
    [card] = _spec(legal, "play_turn", "card")
    assert "fumble" in card["options"][0]["detail"] and "disabled" not in card["options"][0]
    [stamina] = _spec(legal, "play_turn", "stamina")
    assert (stamina["min"], stamina["max"]) == (0, 1)
    assert d.stamina[0] == 1


def test_two_monsters_are_targeted_by_name():
    st = fresh(2, 1, dual_monsters=True, monster_abilities="none")
    for s in (0, 1):
        st.data.dual_draws[s] = ["slime", "goblin"]
        st.prompts[s]["options"] = ["slime", "goblin"]
    legal = views.legal(GAME, st, 0)
    [pick] = _spec(legal, "choose_monster", "monster")
    assert pick["label"] == "Keep which monster?"
    assert [o["label"] for o in pick["options"]] == ["Slime", "Goblin"]
    assert pick["options"][0]["detail"].startswith("Easy · 13 HP · attack 3")
    do(st, 0, "choose_monster", monster="slime")
    do(st, 1, "choose_monster", monster="slime")
    [target] = _spec(views.legal(GAME, st, 0), "play_turn", "target")
    assert [(o["value"], o["label"]) for o in target["options"]] == [(0, "Slime (1)"),
                                                                     (1, "Slime (2)")]
    assert target["options"][0]["detail"] == "13/13 HP · attack 3 · speed 3"


def _at_shop(seed=1, **opts):
    return play_until(session(2, seed=seed, **opts), lambda st: st.phase == "shop", seed=seed)


def test_the_shop_lists_every_card_by_name_with_its_price_and_why_not():
    s = _at_shop(tokens="B", deck_thinning=True)
    st = s.state
    st.data.tokens[0] = {"attack": 4, "defense": 0, "speed": 0, "hp": 0}
    legal = views.legal(GAME, st, 0)
    [card] = _spec(legal, "buy", "card")
    shop = [cid for cid, c in GAME.rules.cards.items() if c.tier]
    assert [o["value"] for o in card["options"]] == \
        [c for c in shop if GAME.rules.cards[c].kind == "attack"] + \
        [c for c in shop if GAME.rules.cards[c].kind == "defense"]
    for o in card["options"]:
        c = GAME.rules.cards[o["value"]]
        assert o["label"] == c.name and o["tier"] == c.tier
        price = GAME.rules.shop["tier_cost"][c.tier - 1]
        affordable = c.kind == "attack" and price <= 4
        assert ("disabled" not in o) == affordable, o
        if not affordable:
            assert o["disabled"].startswith(f"It costs {price} ")
    removes = _spec(legal, "buy", "remove")
    assert [r["optional"] for r in removes] == [True, True]
    attack_remove = next(r for r in removes if "jab" in [o["value"] for o in r["options"]])
    assert all(GAME.rules.cards[c].kind == "attack" for c in attack_remove["when"]["card"])
    [stat] = _spec(legal, "upgrade", "stat")
    assert [o["label"] for o in stat["options"]] == ["+5 HP", "+5 stamina"]
    assert all(o.get("disabled") for o in stat["options"])      # no HP / speed tokens
    assert _spec(legal, "done_shopping")["label"] == "Done shopping"


def test_limited_and_scarce_shops_show_only_what_is_there():
    s = _at_shop(limited_shop=True, scarce_shop=True)
    st = s.state
    st.data.stock[st.data.shop_pool[0]] = 0
    [card] = _spec(views.legal(GAME, st, 0), "buy", "card")
    assert sorted(o["value"] for o in card["options"]) == sorted(st.data.shop_pool)
    gone = next(o for o in card["options"] if o["value"] == st.data.shop_pool[0])
    assert "No copies" in gone["disabled"] and "0 left" in gone["detail"]


def test_prepare_pvp_never_adds_up_to_more_tokens_than_you_have():
    seen = 0
    for seed in range(40):
        s = session(4, seed=seed, pvp_rewards="wager", spectator_bets=True, revenge=True,
                    arc="4+1")
        rng = random.Random(seed)
        while not s.state.is_over():
            st = s.state
            for seat, p in st.prompts.items():
                if "prepare_pvp" not in p["moves"]:
                    continue
                specs = _spec(views.legal(GAME, st, seat), "prepare_pvp")["args"]
                wallet = GAME.wallet(st, seat)
                for _ in range(40):
                    args = choices.sample(specs, rng, skip_optional=0)
                    assert args.get("wager", 0) + args.get("stake", 0) <= wallet, (args, wallet)
                    GAME.moves["prepare_pvp"].fn(st, seat, **args)
                    seen += 1
            seat = min(st.prompts)
            s.execute(seat, *GAME.bots["random"](GAME, GAME.observe(st, seat), rng))
        if seen > 400:
            break
    assert seen > 100


def test_votes_bids_bets_roles_objectives_and_piles_in_words():
    st = fresh(2, 1, monster_select="auction")
    [bid] = _spec(views.legal(GAME, st, 0), "bid_auction", "tokens")
    assert bid["kind"] == "number" and (bid["min"], bid["max"]) == (0, GAME.wallet(st, 0))
    st = fresh(2, 1, victory="objectives")
    [idx] = _spec(views.legal(GAME, st, 0), "keep_objective", "index")
    offer = st.data.objective_offer[0]
    assert [o["label"] for o in idx["options"]] == [GAME.rules.objectives[o].name
                                                    for o in offer]
    assert [o["value"] for o in idx["options"]] == [0, 1]
    st = fresh(2, 1)
    [vote] = _spec(views.legal(GAME, st, 0), "choose_monster", "monster")
    assert vote["label"] == "Your vote"
    assert [o["label"] for o in vote["options"]] == [GAME.rules.monsters[m].name
                                                     for m in st.prompts[0]["options"]]
    st = fresh(2, 1, earning="betting")
    vote_monsters(st, ["slime"])
    assert st.phase == "prep"
    st.data.tokens[0] = {"skill": 3}
    st.prompts[0]["most"] = 3
    specs = _spec(views.legal(GAME, st, 0), "prepare")["args"]
    assert [o["label"] for o in specs[0]["options"]] == [
        "No bet", "I deal the killing blow", "Nobody on my team drops below 5 HP"]
    assert specs[1]["when"] == {"bet": ["killing_blow", "no_fall"]} and specs[1]["max"] == 3
    st = fresh(2, 1, earning="roles")
    vote_monsters(st, ["slime"])
    [role] = _spec(views.legal(GAME, st, 0), "prepare", "role")
    striker = role["options"][0]
    assert striker["label"] == "Striker" and "attack tokens ×2" in striker["detail"]
    assert [o["label"] for o in GAME.moves["choose_pile"].choices(
        st, 0)[0]["options"]] == ["5 tokens + 2 VP", "10 tokens"]


def test_no_seat_legal_names_another_seat_hidden_draw_or_objective():
    checked = 0
    for seed in range(6):
        s = session(3 + seed % 2, seed=seed, dual_monsters=True, victory="objectives",
                    arc="4+1")
        rng = random.Random(seed)
        while not s.state.is_over():
            st = s.state
            assert s.public_view()["table_legal"] == []
            d = st.data
            for seat in st.seats():
                text = json.dumps(views.legal(GAME, st, seat))
                for other in st.seats():
                    if other == seat:
                        continue
                    hidden = list(d.dual_draws.get(other, [])) if st.phase == "select" else []
                    hidden += d.objective_offer.get(other, [])
                    if d.objective.get(other):
                        hidden.append(d.objective[other])
                    for h in hidden:
                        if h in d.dual_draws.get(seat, []) or h in d.objective_offer.get(
                                seat, []) or h == d.objective.get(seat):
                            continue
                        names = [GAME.rules.monsters[h].name] if h in GAME.rules.monsters \
                            else [GAME.rules.objectives[h].name]
                        assert f'"{h}"' not in text and not any(n in text for n in names)
                        checked += 1
            seat = rng.choice(sorted(st.prompts))
            s.execute(seat, *tap(GAME, st, seat, rng))
    assert checked > 100


def test_a_sealed_attack_does_not_change_any_other_seat_legal_list():
    for seed in range(5):
        a, b = session(3, seed=seed), session(3, seed=seed)
        rng = random.Random(seed)
        while a.state.phase != "battle":
            seat = min(a.state.prompts)
            move, args = GAME.bots["greedy"](GAME, GAME.observe(a.state, seat), rng)
            a.execute(seat, move, args)
            b.execute(seat, move, args)
        p = a.state.prompts[0]
        a.execute(0, "play_turn", {"card": p["cards"][0], "stamina": 0})
        b.execute(0, "play_turn", {"card": p["cards"][-1], "stamina": p["stamina"]})
        for seat in (1, 2):
            assert views.legal(GAME, a.state, seat) == views.legal(GAME, b.state, seat)


def test_the_battle_log_is_in_words_in_the_public_view():
    st = in_battle()
    set_fighter(st, 1, ddeck=["guard"])
    do(st, 0, "play_turn", card="slash", stamina=9)
    do(st, 1, "play_turn", card="jab", stamina=0)
    b = st.data.battles["b1.1"]
    view = GAME.public_view(st)["battles_now"][0]
    lines = view["last_turn"]["lines"]
    assert lines[0] == "P0 plays Slash with 9 stamina."
    assert lines[1] == "P1 plays Jab with 0 stamina."
    assert any(line.startswith("P0 hits Slime with Slash for 4: blocked ") for line in lines)
    assert any(line.startswith("Slime hits P1 for 3: blocked 2 (Guard), 1 taken.")
               for line in lines), lines
    assert len(lines) == len(b["log"])
    assert view["monsters"][0]["name"] == "Slime" and view["monsters"][0]["attack"] == 3
    assert battle(st)["id"] == "b1.1"


def test_offered_monsters_are_in_the_public_view_with_their_numbers():
    st = fresh(4, 1)
    cards = GAME.public_view(st)["monster_cards"]
    for offer in st.data.offers:
        for m in offer:
            assert cards[m]["name"] == GAME.rules.monsters[m].name
            assert cards[m]["hp"] == GAME.rules.monsters[m].hp
