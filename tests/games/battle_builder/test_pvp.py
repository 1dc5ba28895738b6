"""PvP battles, their triggers, pairings, rewards and variants; the game arc, teams and the
ways to win."""
import pytest

from companion.core.errors import IllegalMoveError

from .helpers import (GAME, battle, do, drive, fresh, play_to_end, set_fighter, set_monster,
                      turn, vote_monsters)


def at_pvp(n=2, seed=1, **options):
    """A state in its first PvP battle, every fighter untouched."""
    st = fresh(n, seed, **options)
    drive(st, lambda s: s.phase == "pvp" and s.data.battles and
          all(b["turn"] == 1 and not s.windows[b["window"]].entries
              for b in s.data.battles.values()) and not any(
              "prepare_pvp" in p["moves"] for p in s.prompts.values()))
    return st


def knock_out(st, winner, loser, card="slash"):
    """``winner`` strikes first and takes ``loser`` from 1 HP to 0."""
    set_fighter(st, loser, hp=1, ddeck=["guard"])
    set_fighter(st, winner, pile=[card, "jab"], stamina=20)
    set_fighter(st, loser, pile=["jab"])
    turn(st, {winner: (card, 5), loser: ("jab", 0)})


def test_arcs_set_the_number_of_battles_and_pvps():
    for arc, battles, pvps in (("9+3", 9, 3), ("6+2", 6, 2), ("4+1", 4, 1)):
        st = fresh(2, 3, arc=arc)
        play_to_end(st)
        assert len(st.data.track["battles"]) == battles
        assert [p["pvp"] for p in st.data.track["pvp"]] == list(range(1, pvps + 1))
        assert [p["id"][:2] for p in st.data.track["pvp"]] == [f"p{i}" for i in
                                                                range(1, pvps + 1)]


def test_pvp_comes_after_every_third_monster_battle():
    st = at_pvp()
    assert st.round == 3 and st.data.pvp_no == 1 and len(st.data.track["battles"]) == 3


def test_fixed_pvp_rewards_and_the_battle_stops_when_one_is_down():
    st = at_pvp()
    vp, tok = list(st.data.vp), [t["skill"] for t in st.data.tokens]
    knock_out(st, 0, 1)
    assert st.data.hp[0] == GAME.rules.setup["hp"] + 5 * st.data.hp_ups[0]   # 1 never acted
    assert st.data.vp == [vp[0] + 2, vp[1]]
    assert [t["skill"] for t in st.data.tokens] == [tok[0] + 4, tok[1] + 2]
    assert st.data.track["pvp"][-1]["winner"] == 0


def test_attack_of_opportunity_acts_again_before_the_foe():
    st = at_pvp(opportunity=True)
    set_fighter(st, 1, hp=6, ddeck=["guard", "guard"], pile=["jab"])
    set_fighter(st, 0, pile=["slash", "jab"], stamina=20)
    turn(st, {0: ("slash", 5), 1: ("jab", 0)})              # 6 - (4 - 2) = 4: below 5
    assert st.prompts[0]["moves"] == ("extra_attack",) and st.data.hp[1] == 4
    assert 1 not in st.prompts
    with pytest.raises(IllegalMoveError, match="not in your attack pile"):
        do(st, 0, "extra_attack", card="slash")
    do(st, 0, "extra_attack", card="jab")                   # 2 - 2 = 0 through
    b = battle(st)
    attackers = [e.get("attacker") for e in b["log"] if "attacker" in e]
    assert attackers == [0, 0, 1]                           # the foe acted after both
    assert b["turn"] == 2


def test_best_of_three_resets_hp_but_keeps_stamina():
    st = at_pvp(best_of_three=True)
    knock_out(st, 0, 1)
    b = battle(st)
    assert not b["over"] and b["round"] == 2 and b["round_wins"] == {"0": 1}
    assert st.data.hp[1] == st.data.max_now[1] and st.data.stamina[0] == 15
    knock_out(st, 0, 1)
    assert b["over"] and b["winner"] == 0


@pytest.mark.parametrize("mode", ["deck-value", "wager", "choice"])
def test_pvp_reward_options(mode):
    st = fresh(2, 1, pvp_rewards=mode)
    drive(st, lambda s: s.phase == "pvp_prep" and s.prompts or s.phase == "pvp")
    if mode == "wager":
        for s in (0, 1):
            st.data.tokens[s]["skill"] = 10
            st.prompts[s]["wager"] = [2, 10]
        do(st, 0, "prepare_pvp", wager=3)
        do(st, 1, "prepare_pvp", wager=2)
        assert [t["skill"] for t in st.data.tokens] == [7, 8]
        assert st.data.pots == {"p1.1": 5}
    vp, tok = list(st.data.vp), [t["skill"] for t in st.data.tokens]
    knock_out(st, 0, 1)
    if mode == "deck-value":
        value = GAME.deck_value(st, 1)
        assert [t["skill"] for t in st.data.tokens] == [tok[0] + value // 3, tok[1] + 2]
        assert st.data.vp == [vp[0] + 2, vp[1]]
    elif mode == "wager":
        assert [t["skill"] for t in st.data.tokens] == [tok[0] + 5, tok[1]]
    else:
        assert st.prompts[0]["moves"] == ("choose_pile",)
        do(st, 0, "choose_pile", pile="b")
        assert [t["skill"] for t in st.data.tokens] == [tok[0] + 10, tok[1] + 5]
        assert st.data.vp == [vp[0], vp[1] + 2]


def test_revenge_token_and_card_value_rewards():
    st = at_pvp(revenge=True, card_value_rewards=True)
    tok = st.data.tokens[0]["skill"]
    knock_out(st, 0, 1)
    assert st.data.revenge == [0, 1]
    assert st.data.tokens[0]["skill"] == tok + 4 + GAME.deck_value(st, 1) // 3
    drive(st, lambda s: s.phase == "pvp_prep" and s.prompts)
    assert st.prompts[1]["revenge"] == ["stamina", "defense", "damage"] and 0 not in st.prompts
    do(st, 1, "prepare_pvp", revenge="damage")
    assert st.data.revenge == [0, 0]
    assert st.data.mods[1] == {"damage": 2}


def test_three_players_one_sits_out_and_may_bet_on_the_match():
    st = fresh(3, 2, spectator_bets=True, pvp_pairing="rotation")
    drive(st, lambda s: s.phase == "shop" and s.round == 3)
    d = st.data
    d.tokens[0]["skill"] = 5
    for seat in sorted(st.prompts):
        do(st, seat, "done_shopping")
    assert st.phase == "pvp_prep"
    assert d.byes == [0] and d.pairings == [[1, 2]]
    assert st.prompts[0]["bet_on"] == [1, 2] and st.prompts[0]["stake"] == [0, 5]
    with pytest.raises(IllegalMoveError, match="Bet on P1 or P2"):
        do(st, 0, "prepare_pvp", bet_on=0, stake=1)
    do(st, 0, "prepare_pvp", bet_on=1, stake=2)
    assert d.tokens[0]["skill"] == 3
    knock_out(st, 1, 2)
    assert d.tokens[0]["skill"] == 3 + 4


def test_four_player_pairings():
    st = fresh(4, 5, pvp_pairing="standing")
    drive(st, lambda s: s.phase == "pvp")
    d = st.data
    by_vp = sorted(range(4), key=lambda s: -d.vp[s])
    assert {d.vp[s] for s in d.pairings[0]} >= {d.vp[by_vp[0]]}
    assert all(d.vp[a] >= d.vp[c] for a in d.pairings[0] for c in d.pairings[1])
    st = fresh(4, 5, pvp_pairing="rotation")
    drive(st, lambda s: s.phase == "pvp")
    assert st.data.pairings == [[0, 1], [2, 3]]
    st = fresh(4, 5, pvp_pairing="draft")
    drive(st, lambda s: s.phase == "pvp_setup" and s.prompts)
    picker = list(st.prompts)[0]
    assert st.data.vp[picker] == min(st.data.vp)
    other = st.prompts[picker]["candidates"][-1]
    do(st, picker, "choose_opponent", opponent=other)
    assert st.data.pairings[0] == [picker, other] and len(st.data.pairings) == 2


def test_teams_rotate_or_stay_fixed():
    st = fresh(4, 1)
    seen = []
    for _ in range(3):
        drive(st, lambda s: s.phase == "select" and len(seen) < s.round)
        seen.append(st.data.teams)
    assert seen == [[[0, 1], [2, 3]], [[0, 2], [1, 3]], [[0, 3], [1, 2]]]
    st = fresh(4, 1, teams="fixed")
    first = st.data.teams
    drive(st, lambda s: s.phase == "select" and s.round == 3)
    assert st.data.teams == first == st.data.fixed_teams
    assert fresh(3, 1).data.teams == [[0, 1, 2]]


def test_pvp_by_vote_needs_a_majority_and_is_forced_at_the_end():
    st = fresh(2, 1, pvp_trigger="vote", arc="4+1")
    drive(st, lambda s: s.phase == "pvp_check" and s.prompts)
    assert st.round == 1
    do(st, 0, "vote_pvp", pvp=True)
    do(st, 1, "vote_pvp", pvp=False)                        # 1 of 2 is no majority
    assert st.phase == "select" and st.round == 2
    drive(st, lambda s: s.phase == "pvp_check" and s.prompts)
    do(st, 0, "vote_pvp", pvp=True)
    do(st, 1, "vote_pvp", pvp=True)
    assert st.phase in ("pvp", "pvp_prep", "pvp_setup")
    st = fresh(2, 1, pvp_trigger="vote", arc="4+1")
    votes = 0
    while st.data.pvp_no == 0:
        drive(st, lambda s: s.phase == "pvp_check" and s.prompts or s.data.pvp_no)
        if st.prompts and st.phase == "pvp_check":
            votes += 1
            for s in (0, 1):
                do(st, s, "vote_pvp", pvp=False)
    assert votes == 3 and st.round == 4                     # no vote after 4: forced


def last_shop(n=2, seed=1, **options):
    st = fresh(n, seed, arc="4+1", **options)
    drive(st, lambda s: s.phase == "shop" and s.round == 4)
    return st


def close_shop(st):
    for s in sorted(st.prompts):
        do(st, s, "done_shopping")


def test_most_vp_wins_with_tiebreaks():
    st = last_shop()
    st.data.vp[:] = [5, 5]
    st.data.tokens[0]["skill"], st.data.tokens[1]["skill"] = 1, 3
    close_shop(st)
    assert st.outcome.winners == [1] and st.outcome.tiebreak == "most skill tokens"
    st = last_shop(tiebreak="shared")
    st.data.vp[:] = [5, 5]
    close_shop(st)
    assert st.outcome.winners == [0, 1]
    st = last_shop(tiebreak="deck-value")
    st.data.vp[:] = [5, 5]
    st.data.attack[1].append("elite-slash")
    close_shop(st)
    assert st.outcome.winners == [1] and st.outcome.tiebreak == "highest deck value"


def test_sudden_death_and_championship_finals():
    st = last_shop(tiebreak="sudden-death")
    st.data.vp[:] = [5, 5]
    close_shop(st)
    assert st.phase == "final" and st.data.ending == {"kind": "sudden-death", "seats": [0, 1]}
    knock_out(st, 1, 0)
    assert st.outcome.winners == [1] and st.outcome.tiebreak == "sudden-death PvP"
    st = last_shop(3, victory="championship")
    st.data.vp[:] = [9, 2, 5]
    close_shop(st)
    assert st.data.ending["seats"] == [0, 2]
    knock_out(st, 2, 0)
    assert st.outcome.winners == [2] and st.outcome.reason == "won the championship final"


def test_threshold_victory_ends_the_game_at_once():
    st = fresh(2, 1, victory="threshold", monster_abilities="none")
    st.data.vp[:] = [11, 3]
    vote_monsters(st, ["slime"])
    set_monster(st, hp=3, deck=[0], discard=[])
    turn(st, {0: ("strike", 4), 1: ("jab", 0)})
    assert st.outcome.winners == [0] and st.outcome.reason == "first to 12 VP"


def test_category_bonuses_at_the_end():
    st = last_shop(victory="categories")
    d = st.data
    d.vp[:] = [0, 0]
    d.monsters_defeated[0]["easy"] = 3
    d.pvp_wins[:] = [0, 1]
    d.hp_ups[:] = [1, 1]
    d.attack[0].append("heavy-strike")
    close_shop(st)
    # seat 0: most monsters 2 + deck value 1 + most HP (tied) 1; seat 1: PvP wins 2 + HP 1
    assert st.outcome.scores == {0: 4, 1: 3}


def test_secret_objectives_are_private_until_the_end():
    st = fresh(2, 4, victory="objectives", arc="4+1")
    assert st.phase == "objectives"
    offer = st.data.objective_offer[0]
    assert GAME.seat_view(st, 0)["objective_offer"][0]["id"] == offer[0]
    import json
    public = json.dumps(GAME.public_view(st))
    assert all(o not in public for o in offer + st.data.objective_offer[1])
    assert offer[0] not in json.dumps(GAME.seat_view(st, 1))
    with pytest.raises(IllegalMoveError, match="from 0 to 1"):
        do(st, 0, "keep_objective", index=2)
    do(st, 0, "keep_objective", index=1)
    do(st, 1, "keep_objective", index=0)
    kept = st.data.objective[0]
    assert kept == offer[1] and kept not in json.dumps(GAME.public_view(st))
    play_to_end(st)
    assert GAME.public_view(st)["objectives"]["0"] == kept


def test_playtest_data_is_recorded_with_times_and_stored_with_the_session(tmp_path):
    from companion.core.clock import FakeClock
    from companion.core.log import SQLiteLog
    import random
    from .helpers import session
    clock = FakeClock(100.0)
    log = SQLiteLog(tmp_path / "sessions.db")
    s = session(2, 7, log=log, clock=clock, arc="4+1")
    rng = random.Random(7)
    while not s.state.is_over():
        seat = min(s.state.prompts)
        s.execute(seat, *GAME.bots["greedy"](GAME, GAME.observe(s.state, seat), rng))
        clock.advance(2.0)
    summ = log.info(s.id).summary
    play = summ["playtest"]
    assert sum(play["monster_choices"].values()) == 4
    assert sum(r["won"] + r["lost"] for r in play["results"].values()) == 4
    assert all(b["seconds"] > 0 for b in play["battles"])
    assert play["seconds_per_battle"] == pytest.approx(
        sum(b["seconds"] for b in play["battles"]) / 4)
    assert play["game_seconds"] == pytest.approx(clock.now() - 100.0 - 2.0)
    assert play["vp_spread"] == max(s.state.data.vp) - min(s.state.data.vp)
    assert play["tokens_per_battle"] > 0 and len(play["pvp"]) == 1
    log.close()
    again = SQLiteLog(tmp_path / "sessions.db")
    assert again.info(s.id).summary["playtest"] == play          # stored, read back
    again.close()


def test_a_closed_pvp_preparation_charges_fighters_the_minimum_and_spectators_nothing():
    from companion.core.game import apply
    st = fresh(3, 2, spectator_bets=True, pvp_pairing="rotation", pvp_rewards="wager")
    drive(st, lambda s: s.phase == "shop" and s.round == 3)
    for seat in range(3):
        st.data.tokens[seat]["skill"] = 6
    for seat in sorted(st.prompts):
        do(st, seat, "done_shopping")
    assert st.phase == "pvp_prep" and sorted(st.prompts) == [0, 1, 2]
    apply(GAME, st, {"kind": "close", "window": f"pvp-{st.data.pvp_no}"})
    assert [t["skill"] for t in st.data.tokens] == [6, 4, 4]   # seat 0 sits out
    assert st.data.pots == {"p1.1": 4} and st.phase == "pvp"


def test_a_pvp_battles_end_is_announced_with_the_winner_and_the_rewards():
    """Issue 22: no PvP winner was ever announced."""
    st = at_pvp()
    knock_out(st, 0, 1)
    said = [n["says"] for n in st.notices if n["kind"] == "PvPEnded"]
    assert said == ["P0 won the PvP battle against P1. P0 +4 tokens, +2 VP; P1 +2 tokens."]


def _out_of_stamina(st):
    set_fighter(st, 0, hp=20, stamina=1, pile=["jab"], ddeck=["guard"] * 40)
    set_fighter(st, 1, hp=18, stamina=1, pile=["jab"], ddeck=["guard"] * 40)
    turn(st, {0: ("jab", 1), 1: ("jab", 1)})      # both spend their last stamina


def test_a_pvp_with_no_stamina_left_on_either_side_is_a_stalemate_said_once():
    """Issue 22: both sides out of stamina ran all 30 turns with nobody told. It is said once
    (the default plays on to the turn limit, as the rulebook's game does)."""
    st = at_pvp()
    _out_of_stamina(st)
    b = battle(st)
    said = [n for n in st.notices if n["kind"] == "PvPStalemate"]
    assert [n["says"] for n in said] == [
        "Stalemate: neither P0 nor P1 has stamina left; the battle plays on until one falls or "
        "turn 30 (then more HP wins)."]
    assert not said[0]["ends"] and not b["over"] and b["turn"] == 2
    turn(st, {0: ("jab", 0), 1: ("jab", 0)})
    assert not any(n["kind"] == "PvPStalemate" for n in st.notices)   # once a battle


def test_the_stalemate_ruling_ends_the_pvp_at_once_when_chosen():
    """``pvp_stalemate = "end"``: both out of stamina ends the battle now, more HP winning."""
    st = at_pvp(pvp_stalemate="end")
    b = battle(st)
    _out_of_stamina(st)
    assert b["over"] and b["winner"] == 0
    assert st.data.track["pvp"][-1]["why"] == "out of stamina: more HP wins"
    said = [n["says"] for n in st.notices if n["kind"] in ("PvPStalemate", "PvPEnded")]
    assert said[0] == ("Stalemate: neither P0 nor P1 has stamina left; the battle ends now: "
                       "more HP wins.")
    assert said[1].startswith("P0 won the PvP battle against P1 (out of stamina: more HP "
                              "wins).")
