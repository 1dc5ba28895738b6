"""Battle mechanics: one sealed card+stamina per seat, order by stamina with the monster at its
speed, damage against a drawn defence card, HP, the end check, deck cycling, targeting,
monster abilities and environments."""
import pytest

from companion.core.errors import IllegalMoveError

from .helpers import GAME, battle, do, fresh, in_battle, set_fighter, set_monster, turn


def test_a_turn_is_one_sealed_choice_per_seat_revealed_together():
    st = in_battle()
    do(st, 0, "play_turn", card="slash", stamina=5)
    b = battle(st)
    assert b["turn"] == 1 and st.data.battles["b1.1"]["log"] == []      # nothing resolved yet
    assert st.windows["b1.1:1.1"].has_locked(0) and not st.windows["b1.1:1.1"].is_revealed()
    do(st, 1, "play_turn", card="jab", stamina=0)
    assert st.windows["b1.1:1.1"].is_revealed()
    assert b["turn"] == 2 and "b1.1:1.2" in st.windows


def test_order_by_stamina_monster_at_its_speed_then_damage_block_and_hp():
    st = in_battle()                                        # slime: 13 HP, attack 3, speed 3
    set_monster(st, deck=[1], discard=[])                   # its defence always blocks 1
    set_fighter(st, 1, ddeck=["guard"])                     # seat 1 will block 2
    turn(st, {0: ("slash", 5), 1: ("jab", 0)})
    b = battle(st)
    assert b["order"] == [["p", 0], ["m", 0], ["p", 1]]
    m = b["monsters"][0]
    assert m["hp"] == 13 - (4 - 1) - (2 - 1)                # slash 4, jab 2, each minus 1
    assert st.data.hp[1] == 20 - (3 - 2)                    # the slower seat is attacked
    assert st.data.hp[0] == 20
    assert st.data.stamina == [15, 20]
    assert st.data.bstats[0]["first"] == 1 and st.data.bstats[0]["before_monster"] == 1
    assert st.data.bstats[1]["before_monster"] == 0
    assert "slash" not in st.data.pile[0] and st.data.pile[0].count("jab") == 2


def test_ties_are_broken_by_the_seeded_shuffle():
    firsts = set()
    for seed in range(30):
        st = in_battle(seed=seed)
        set_monster(st, deck=[0], discard=[])
        turn(st, {0: ("jab", 3), 1: ("jab", 0)})            # seat 0 ties the monster (3)
        order = battle(st)["order"]
        firsts.add(tuple(order[0]))
        again = in_battle(seed=seed)
        set_monster(again, deck=[0], discard=[])
        turn(again, {0: ("jab", 3), 1: ("jab", 0)})
        assert battle(again)["order"] == order              # same seed, same tiebreak
    assert firsts == {("p", 0), ("m", 0)}


def test_deck_cycling_refills_the_pile_when_it_runs_out():
    st = in_battle()
    set_monster(st, hp=99, max_hp=99, deck=[0], discard=[])
    set_fighter(st, 0, pile=["strike"])
    turn(st, {0: ("strike", 0), 1: ("jab", 0)})
    assert st.data.pile[0] == sorted(GAME.rules.setup["attack_deck"])
    with pytest.raises(IllegalMoveError, match="not in your attack pile"):
        set_fighter(st, 1, pile=["strike"])
        do(st, 1, "play_turn", card="jab", stamina=0)


def test_a_card_needs_its_minimum_stamina_unless_none_can_be_paid():
    st = in_battle()
    set_fighter(st, 0, pile=["lunge", "jab"], stamina=10)
    with pytest.raises(IllegalMoveError, match="at least 3 stamina"):
        do(st, 0, "play_turn", card="lunge", stamina=2)
    set_fighter(st, 0, pile=["lunge"], stamina=2)           # cannot pay for any card: fumble
    set_monster(st, hp=30, max_hp=30)
    do(st, 0, "play_turn", card="lunge", stamina=0)
    do(st, 1, "play_turn", card="jab", stamina=0)
    b = battle(st)
    assert any(e.get("fumble") for e in b["log"])
    assert b["monsters"][0]["hp"] >= 30 - 2                 # only the jab could land
    set_fighter(st, 0, pile=["whirlwind", "lunge"], stamina=1)  # a recycling card, fumbled,
    set_fighter(st, 1, pile=["jab"])                             # still leaves the pile
    do(st, 0, "play_turn", card="whirlwind", stamina=1)
    do(st, 1, "play_turn", card="jab", stamina=0)
    assert st.data.pile[0] == ["lunge"]


def test_monster_defeated_is_a_win_with_full_rewards_and_a_vp_each():
    st = in_battle()
    set_monster(st, hp=3, deck=[0], discard=[])
    turn(st, {0: ("strike", 4), 1: ("jab", 0)})             # seat 0 kills it before it acts
    d = st.data
    assert d.vp == [1, 1]
    rec = d.track["battles"][-1]
    assert rec["won"] and rec["reward"] == "full" and rec["turns"] == 1
    # System A: base 3 + won in <= 2 turns 3 + perfect battle 2 (+ overkill 0)
    assert d.tokens == [{"skill": 8}, {"skill": 8}]
    assert rec["tokens"] == {"0": 8, "1": 8}
    assert d.track["results"]["easy"] == {"won": 1, "lost": 0}
    assert st.phase == "shop"


def test_one_player_down_ends_the_battle_with_half_rewards_and_no_vp():
    st = in_battle()
    set_monster(st, hp=40, max_hp=40, deck=[0], discard=[])
    set_fighter(st, 1, hp=1, ddeck=["guard"])
    turn(st, {0: ("jab", 5), 1: ("jab", 0)})
    d = st.data
    assert d.hp[1] == 0 and d.vp == [0, 0]
    rec = d.track["battles"][-1]
    assert not rec["won"] and rec["reward"] == "half"
    assert d.tokens == [{"skill": 1}, {"skill": 1}]         # 3 // 2, no bonus on a loss
    assert d.track["results"]["easy"] == {"won": 0, "lost": 1}


def test_everyone_down_gives_nothing():
    st = in_battle("bat-swarm", monster_abilities="printed")   # AoE hits both
    set_monster(st, hp=40, max_hp=40, deck=[0], discard=[])
    for s in (0, 1):
        set_fighter(st, s, hp=1, ddeck=["guard"])
    turn(st, {0: ("jab", 0), 1: ("jab", 0)})
    rec = st.data.track["battles"][-1]
    assert rec["reward"] == "none" and st.data.tokens == [{"skill": 0}, {"skill": 0}]


def test_the_turn_limit_loses_the_battle():
    st = in_battle()
    set_monster(st, hp=999, max_hp=999, attack=0, deck=[0], discard=[])
    for _ in range(GAME.rules.battle["max_turns"]):
        turn(st, {0: ("jab", 0) if "jab" in st.data.pile[0] else (st.data.pile[0][0], 0),
                  1: ("jab", 0) if "jab" in st.data.pile[1] else (st.data.pile[1][0], 0)})
    rec = st.data.track["battles"][-1]
    assert not rec["won"] and rec["why"] == "turn limit"


def _stall_to_the_turn_limit(st):
    for _ in range(GAME.rules.battle["max_turns"]):
        plays = {}
        for s in st.data.battles["b1.1"]["seats"]:
            pile = st.data.pile[s]
            plays[s] = ("jab", 0) if "jab" in pile else (pile[0], 0)
        turn(st, plays)


def test_a_monster_not_beaten_by_the_turn_limit_pays_no_reward():
    """Issue 12: the rulebook pays the printed reward for *defeating* the monster; a battle that
    runs out of turns with nobody down used to pay it in full."""
    st = in_battle()
    set_monster(st, hp=999, max_hp=999, attack=0, deck=[0], discard=[])
    _stall_to_the_turn_limit(st)
    rec = st.data.track["battles"][-1]
    assert not rec["won"] and rec["why"] == "turn limit" and rec["reward"] == "none"
    assert st.data.tokens == [{"skill": 0}, {"skill": 0}] and st.data.vp == [0, 0]


def test_the_old_reading_pays_the_full_reward_at_the_turn_limit_as_an_option():
    st = in_battle(turn_limit_reward="full")
    set_monster(st, hp=999, max_hp=999, attack=0, deck=[0], discard=[])
    _stall_to_the_turn_limit(st)
    rec = st.data.track["battles"][-1]
    assert not rec["won"] and rec["reward"] == "full"
    assert st.data.tokens == [{"skill": 3}, {"skill": 3}] and st.data.vp == [0, 0]


def test_dual_monsters_at_the_turn_limit_pay_for_the_defeated_one_only():
    st = fresh(2, 1, dual_monsters=True, monster_abilities="none", tokens="B")
    for s in (0, 1):
        st.data.dual_draws[s] = ["slime", "goblin"]
        st.prompts[s]["options"] = ["slime", "goblin"]
    do(st, 0, "choose_monster", monster="slime")
    do(st, 1, "choose_monster", monster="goblin")
    assert st.phase == "battle"
    set_monster(st, 0, hp=0)                                # the Slime is beaten ...
    set_monster(st, 1, hp=999, max_hp=999, attack=0, deck=[0], discard=[])    # ... not this
    before = [dict(t) for t in st.data.tokens]
    _stall_to_the_turn_limit(st)
    rec = st.data.track["battles"][-1]
    assert not rec["won"] and rec["reward"] == "partial"
    slime = GAME.rules.monsters["slime"].reward
    base = [sum(st.data.tokens[s].values()) - sum(before[s].values()) for s in (0, 1)]
    perf = [GAME._performance(st, st.data.battles["b1.1"], s, False) for s in (0, 1)]
    assert base == [slime + sum(perf[s].values()) for s in (0, 1)]


@pytest.mark.parametrize("mode,setup,expected", [
    ("slower", {}, 1),
    ("higher-hp", {"hp": [20, 15]}, 0),
    ("more-vp", {"vp": [3, 1]}, 0),
])
def test_monster_targeting_options(mode, setup, expected):
    st = in_battle(targeting=mode)
    set_monster(st, hp=99, max_hp=99, deck=[0], discard=[])
    if "hp" in setup:
        st.data.hp[:] = setup["hp"]
    if "vp" in setup:
        st.data.vp[:] = setup["vp"]
    for s in (0, 1):
        set_fighter(st, s, ddeck=["guard"])
    before = list(st.data.hp)
    turn(st, {0: ("jab", 2), 1: ("jab", 1)})                # both slower than the monster
    hit = [s for s in (0, 1) if st.data.hp[s] < before[s]]
    assert hit == [expected]


def test_targeting_top_damage_attacks_who_hurt_it_most_last_turn():
    st = in_battle(targeting="top-damage")
    set_monster(st, hp=99, max_hp=99, deck=[0], discard=[])
    for s in (0, 1):
        set_fighter(st, s, ddeck=["guard", "guard", "guard"])
    turn(st, {0: ("jab", 0), 1: ("slash", 4)})              # seat 1 deals 4, seat 0 deals 2
    hp = list(st.data.hp)
    turn(st, {0: ("jab", 0), 1: ("jab", 0)})
    assert st.data.hp[1] < hp[1] and st.data.hp[0] == hp[0]


def test_variant_c_abilities():
    # regeneration: +2 at the end of each turn
    st = in_battle("slime", monster_abilities="all")
    set_monster(st, hp=20, max_hp=20, deck=[0], discard=[])
    turn(st, {0: ("jab", 0), 1: ("jab", 0)})
    assert battle(st)["monsters"][0]["hp"] == 20 - 4 + 2
    # counter: 1 damage to the attacker when hit
    st = in_battle("goblin", monster_abilities="all")
    set_monster(st, hp=50, max_hp=50, deck=[0], discard=[], attack=0)
    turn(st, {0: ("jab", 5), 1: ("jab", 5)})
    assert st.data.hp == [19, 19]
    # armour piercing: no defence card is drawn
    st = in_battle("dragon-whelp", monster_abilities="all")
    set_monster(st, hp=50, max_hp=50, deck=[0], discard=[])
    for s in (0, 1):
        set_fighter(st, s, ddeck=["shield"])
    turn(st, {0: ("jab", 0), 1: ("jab", 0)})                # AoE 7 through, shield unused
    assert st.data.hp == [13, 13] and st.data.ddeck[0] == ["shield"]
    # speed drain: the fastest player loses 2 more stamina
    st = in_battle("harpy", monster_abilities="all")
    set_monster(st, hp=50, max_hp=50, deck=[0], discard=[])
    turn(st, {0: ("jab", 6), 1: ("jab", 1)})
    assert st.data.stamina == [20 - 6 - 2, 19]


def test_enrage_adds_attack_after_turn_three():
    st = in_battle("orc-brute", monster_abilities="printed")
    set_monster(st, hp=999, max_hp=999, deck=[0], discard=[])
    dealt = []
    for t in range(4):
        set_fighter(st, 1, ddeck=["guard"])
        hp = st.data.hp[1]
        p1 = "jab" if "jab" in st.data.pile[1] else st.data.pile[1][0]
        p0 = "jab" if "jab" in st.data.pile[0] else st.data.pile[0][0]
        turn(st, {0: (p0, 1), 1: (p1, 0)})
        dealt.append(hp - st.data.hp[1])
    assert dealt == [3, 3, 3, 5]                            # 5 - 2, then 7 - 2 from turn 4


def test_environments():
    st = in_battle(environments=True)
    b = battle(st)
    b["effect"] = "high-ground"
    set_monster(st, hp=50, max_hp=50, deck=[0], discard=[])
    for s in (0, 1):
        set_fighter(st, s, ddeck=["guard"])
    turn(st, {0: ("jab", 5), 1: ("jab", 0)})
    assert b["monsters"][0]["hp"] == 50 - 4 - 4             # +2 on each attack
    assert st.data.hp[1] == 20 - (3 + 2 - 2)

    st = in_battle(environments=True)
    battle(st)["effect"] = "narrow-passage"
    set_monster(st, hp=50, max_hp=50, deck=[0], discard=[])
    turn(st, {0: ("jab", 5), 1: ("slash", 0)})
    assert battle(st)["monsters"][0]["hp"] == 48            # only the faster player hits

    st = in_battle(environments=True)
    battle(st)["effect"] = "sandstorm"
    set_monster(st, hp=50, max_hp=50, deck=[0], discard=[])
    turn(st, {0: ("jab", 1), 1: ("jab", 0)})
    assert battle(st)["speeds"] == {"0": 0, "1": 0, "m0": 1}

    st = in_battle(environments=True)
    battle(st)["effect"] = "healing-springs"
    set_monster(st, hp=50, max_hp=50, deck=[0], discard=[])
    set_fighter(st, 1, hp=10, ddeck=["guard"])
    turn(st, {0: ("jab", 5), 1: ("jab", 0)})
    assert st.data.hp[1] == 10 - 1 + 1


def test_dual_monsters_each_player_picks_one_and_targets_are_chosen():
    st = fresh(2, 3, dual_monsters=True, monster_abilities="none")
    d = st.data
    picks = {s: d.dual_draws[s][0] for s in (0, 1)}
    for s in (0, 1):
        do(st, s, "choose_monster", monster=picks[s])
    b = battle(st)
    assert [m["id"] for m in b["monsters"]] == [picks[0], picks[1]]
    assert st.prompts[0]["targets"] == [0, 1]
    with pytest.raises(IllegalMoveError, match="which monster"):
        do(st, 0, "play_turn", card="jab", stamina=0)
    for i in (0, 1):
        set_monster(st, i, hp=50, max_hp=50, deck=[0], discard=[])
    turn(st, {0: ("slash", 0, 1), 1: ("jab", 0, 1)})
    assert b["monsters"][1]["hp"] == 50 - 6 and b["monsters"][0]["hp"] == 50
    for i in (0, 1):
        set_monster(st, i, hp=1, deck=[0], discard=[])
    turn(st, {0: (st.data.pile[0][0], 20, 0), 1: (st.data.pile[1][0], 20, 1)})
    assert st.data.vp == [2, 2]                             # 1 VP per monster defeated
    rec = st.data.track["battles"][-1]
    assert rec["won"] and rec["reward"] == "full" and len(rec["difficulty"]) == 2


def test_a_log_from_before_the_turn_limit_option_replays_with_the_old_reading():
    from companion.core.session import fold
    from .helpers import session
    s = session(2, 4, arc="4+1")
    assert s.state.config["turn_limit_reward"] == "defeated"
    old = [dict(r) for r in s.records]
    old[0] = dict(old[0], options={k: v for k, v in old[0]["options"].items()
                                   if k != "turn_limit_reward"})
    assert fold(GAME, old).config["turn_limit_reward"] == "full"
    assert GAME.resolve_options({"arc": "4+1"})["turn_limit_reward"] == "defeated"


def _said(st, kind):
    return [n["says"] for n in st.notices if n["kind"] == kind]


def test_a_monster_battles_end_is_announced_with_who_won_and_the_rewards():
    """Issue 22: a battle's end was never announced (no "Slime defeated", no rewards)."""
    st = in_battle()
    set_monster(st, hp=3, deck=[0], discard=[])
    turn(st, {0: ("strike", 4), 1: ("jab", 0)})
    assert _said(st, "MonsterBattleEnded") == [
        "P0 and P1 defeated Slime: the full reward. P0 +8 tokens, +1 VP; P1 +8 tokens, +1 VP."]
    st = in_battle()
    set_monster(st, hp=40, max_hp=40, deck=[0], discard=[])
    set_fighter(st, 1, hp=1, ddeck=["guard"])
    turn(st, {0: ("jab", 5), 1: ("jab", 0)})
    assert _said(st, "MonsterBattleEnded") == [
        "Slime defeated P0 and P1: half the reward (someone fell). P0 +1 token; P1 +1 token."]
