"""Rewards, token systems, earning variants, monster selection and the shop."""
import pytest

from companion.core.errors import IllegalMoveError

from .helpers import GAME, battle, do, fresh, in_battle, set_monster, turn, vote_monsters


def quick_win(st):
    """Seat 0 kills the (1st team's) monster before it acts."""
    set_monster(st, hp=3, deck=[0], discard=[])
    turn(st, {s: ("strike", 4) if s == 0 else ("jab", 0) for s in battle(st)["seats"]})


def to_shop(amount=20, **options):
    """In the shop after a won battle, every seat holding ``amount`` of each token type."""
    st = in_battle(**options)
    quick_win(st)
    assert st.phase == "shop"
    for s in st.seats():
        for t in st.data.tokens[s]:
            st.data.tokens[s][t] = amount
    return st


def test_system_b_pays_base_round_robin_and_performance_by_category():
    st = in_battle(tokens="B")
    quick_win(st)
    assert st.data.tokens[0] == {"attack": 2, "defense": 1, "speed": 2, "hp": 4}
    assert st.data.tokens[1] == {"attack": 1, "defense": 1, "speed": 1, "hp": 4}


def test_system_c_maps_categories_to_combat_and_training():
    st = in_battle(tokens="C")
    quick_win(st)
    # base 3 round-robin: combat 2, training 1; seat 0: attack 1 -> combat, speed 1 + hp 4
    assert st.data.tokens[0] == {"combat": 3, "training": 6}
    assert st.data.tokens[1] == {"combat": 2, "training": 5}


def test_earning_variant_a_action_based():
    st = in_battle(tokens="B", earning="action")
    quick_win(st)
    assert st.data.tokens[0] == {"attack": 2, "defense": 1, "speed": 2, "hp": 4}
    assert st.data.tokens[1] == {"attack": 1, "defense": 1, "speed": 1, "hp": 4}


def test_earning_variant_b_milestones():
    st = in_battle(tokens="B", earning="milestones")
    quick_win(st)
    assert st.data.tokens[0] == {"attack": 3, "defense": 1, "speed": 1, "hp": 2}
    assert st.data.tokens[1] == {"attack": 1, "defense": 1, "speed": 1, "hp": 2}


def test_earning_variant_c_roles_are_sealed_and_a_shared_role_costs_the_base_reward():
    st = fresh(2, 1, tokens="B", earning="roles", monster_abilities="none")
    vote_monsters(st, ["slime"])
    assert st.phase == "prep" and st.prompts[0]["roles"] == ["striker", "tank", "tactician",
                                                              "survivor"]
    with pytest.raises(IllegalMoveError, match="Choose a role"):
        do(st, 0, "prepare", role="wizard")
    do(st, 0, "prepare", role="striker")
    assert st.data.prep == {}                               # nothing copied before the reveal
    do(st, 1, "prepare", role="striker")
    assert st.data.prep == {0: {"role": "striker"}, 1: {"role": "striker"}}
    quick_win(st)
    assert st.data.tokens[0] == {"attack": 2, "defense": 0, "speed": 1, "hp": 4}
    assert st.data.tokens[1] == {"attack": 0, "defense": 0, "speed": 0, "hp": 4}


def test_earning_variant_d_bets_are_held_and_pay_double():
    st = fresh(2, 1, earning="betting", monster_abilities="none")
    for s in (0, 1):
        st.data.tokens[s]["skill"] = 5
    vote_monsters(st, ["slime"])
    assert st.prompts[0]["most"] == 5
    do(st, 0, "prepare", bet="killing_blow", stake=2)
    do(st, 1, "prepare", bet="no_fall", stake=1)
    assert [t["skill"] for t in st.data.tokens] == [3, 4]
    quick_win(st)
    # standard System A: 3 + 3 (fast) + 2 (perfect) = 8; bets pay 4 and 2
    assert [t["skill"] for t in st.data.tokens] == [3 + 8 + 4, 4 + 8 + 2]


def test_divided_base_reward():
    st = in_battle(reward_split="divided")
    quick_win(st)
    assert [t["skill"] for t in st.data.tokens] == [1 + 3 + 2, 1 + 3 + 2]


def test_draw3_vote_plurality_and_choices_are_tracked():
    st = fresh(4, 2, monster_abilities="none")
    d = st.data
    assert len(d.teams) == 2 and all(len(o) == 3 for o in d.offers)
    for k, team in enumerate(d.teams):
        for s in team:
            do(st, s, "choose_monster", monster=d.offers[k][k])
    assert [p[0] for p in d.picks] == [d.offers[0][0], d.offers[1][1]]
    assert sum(d.track["choices"].values()) == 2
    assert len(d.battles) == 2 and st.phase == "battle"


def test_auction_highest_sealed_bid_picks_first_and_pays():
    st = fresh(2, 1, monster_select="auction", monster_abilities="none")
    d = st.data
    d.tokens[0]["skill"], d.tokens[1]["skill"] = 3, 5
    st.prompts[0]["most"], st.prompts[1]["most"] = 3, 5
    with pytest.raises(IllegalMoveError, match="from 0 to 3"):
        do(st, 0, "bid_auction", tokens=4)
    do(st, 0, "bid_auction", tokens=2)
    do(st, 1, "bid_auction", tokens=1)
    assert list(st.prompts) == [0] and st.prompts[0]["moves"] == ("pick_monster",)
    choice = d.pool[1]
    do(st, 0, "pick_monster", monster=choice)
    assert [t["skill"] for t in d.tokens] == [1, 5]
    assert battle(st)["monsters"][0]["id"] == choice


def test_shop_prices_caps_and_upgrades():
    st = to_shop(amount=10)
    do(st, 0, "buy", card="heavy-strike")
    assert st.data.tokens[0]["skill"] == 6 and "heavy-strike" in st.data.attack[0]
    with pytest.raises(IllegalMoveError, match="costs 8 skill tokens; you have 6"):
        do(st, 0, "buy", card="crushing-blow")
    with pytest.raises(IllegalMoveError, match="not a card in the shop"):
        do(st, 0, "buy", card="jab")
    st.data.tokens[1]["skill"] = 99
    for _ in range(4):
        do(st, 1, "upgrade", stat="hp")
    assert st.data.tokens[1]["skill"] == 99 - 4 * 3
    with pytest.raises(IllegalMoveError, match=r"\+20 above the start"):
        do(st, 1, "upgrade", stat="hp")
    for _ in range(3):
        do(st, 1, "upgrade", stat="stamina")
    with pytest.raises(IllegalMoveError, match=r"\+15 above the start"):
        do(st, 1, "upgrade", stat="stamina")
    from companion.games.battle_builder.battle import max_hp, max_stamina
    assert max_hp(GAME, st, 1) == 40 and max_stamina(GAME, st, 1) == 35


def test_diminishing_returns_raise_each_upgrade():
    st = to_shop(amount=100, diminishing=True)
    paid = []
    for _ in range(4):
        before = st.data.tokens[0]["skill"]
        do(st, 0, "upgrade", stat="hp")
        paid.append(before - st.data.tokens[0]["skill"])
    assert paid == [3, 5, 8, 12]


def test_deck_thinning_removes_a_basic_card():
    st = to_shop(amount=20)
    with pytest.raises(IllegalMoveError, match="deck_thinning"):
        do(st, 0, "buy", card="heavy-strike", remove="jab")
    st = to_shop(amount=20, deck_thinning=True)
    with pytest.raises(IllegalMoveError, match="not a basic attack card"):
        do(st, 0, "buy", card="heavy-strike", remove="guard")
    do(st, 0, "buy", card="heavy-strike", remove="jab")
    assert sorted(st.data.attack[0]) == ["heavy-strike", "jab", "slash", "strike", "strike"]


def test_system_b_cards_cost_their_own_token_type():
    st = to_shop(amount=0, tokens="B")
    st.data.tokens[0].update(attack=4, defense=3)
    do(st, 0, "buy", card="heavy-strike")
    with pytest.raises(IllegalMoveError, match="4 defense tokens; you have 3"):
        do(st, 0, "buy", card="buckler")


def test_limited_and_scarce_shops():
    st = to_shop(amount=50, limited_shop=True)
    pool = st.data.shop_pool
    assert len(pool) == sum(min(6, sum(1 for c in GAME.rules.cards.values() if c.tier == t))
                            for t in (1, 2, 3))
    missing = [c for c, card in GAME.rules.cards.items() if card.tier and c not in pool]
    if missing:
        with pytest.raises(IllegalMoveError, match="not among this shop's revealed cards"):
            do(st, 0, "buy", card=missing[0])
    first = pool[0]
    do(st, 0, "buy", card=first)
    assert first not in st.data.shop_pool and first in st.data.attack[0] + st.data.defense[0]
    st = to_shop(amount=50, scarce_shop=True)
    do(st, 0, "buy", card="heavy-strike")
    do(st, 1, "buy", card="heavy-strike")
    with pytest.raises(IllegalMoveError, match="No copies of Heavy Strike are left"):
        do(st, 0, "buy", card="heavy-strike")


def test_upgrade_trees_need_lower_tier_cards():
    st = to_shop(amount=100, upgrade_trees=True)
    with pytest.raises(IllegalMoveError, match="needs 1 tier 1 attack card; you have 0"):
        do(st, 0, "buy", card="crushing-blow")
    do(st, 0, "buy", card="heavy-strike")
    do(st, 0, "buy", card="crushing-blow")
    with pytest.raises(IllegalMoveError, match="needs 2 tier 2 attack cards; you have 1"):
        do(st, 0, "buy", card="elite-slash")


def test_conversion_only_in_system_d_after_a_pvp():
    st = to_shop(amount=6, tokens="D")
    assert "convert" not in st.prompts[0]["moves"]
    with pytest.raises(IllegalMoveError):
        do(st, 0, "convert", give="attack", get="hp")
    st = to_shop(amount=6, tokens="D", convert_when="any-shop")
    assert "convert" in st.prompts[0]["moves"]
    do(st, 0, "convert", give="attack", get="hp")
    assert st.data.tokens[0]["attack"] == 3 and st.data.tokens[0]["hp"] == 8
    with pytest.raises(IllegalMoveError, match="into another"):
        do(st, 0, "convert", give="hp", get="hp")


def test_shop_ends_when_everyone_is_done_and_the_timer_closes_it():
    st = to_shop(amount=0)
    do(st, 0, "done_shopping")
    assert st.phase == "shop"
    do(st, 1, "done_shopping")
    assert st.phase == "select" and st.round == 2
    st = to_shop(amount=0, shop_seconds=60)
    assert "shop" in st.timers
    st.now = st.timers["shop"].deadline
    from companion.core.game import apply
    apply(GAME, st, {"kind": "timer", "timer": "shop", "at": st.now})
    assert st.phase == "select"
