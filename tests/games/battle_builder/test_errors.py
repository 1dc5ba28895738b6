"""Every illegal move gets a specific, readable error and changes nothing (same fingerprint,
same log length)."""
import pytest

from companion.core.errors import (IllegalMoveError, NotYourTurnError, SealedChoiceError,
                                   UnknownMoveError)

from ..tables import play_until
from .helpers import session


def refused(s, seat, move, args, err=IllegalMoveError, match=None):
    before, version = s.state.fingerprint(), s.version
    with pytest.raises(err, match=match) as e:
        s.execute(seat, move, args)
    text = str(e.value)
    assert text and "Traceback" not in text and text[-1] in ".)!'", text
    assert s.state.fingerprint() == before, (move, args)
    assert s.version == version
    return text


def test_general_refusals():
    s = session(2, 1)
    refused(s, 0, "fly", {}, UnknownMoveError, "no move called 'fly'")
    refused(s, 7, "choose_monster", {"monster": "slime"}, NotYourTurnError, "no seat 7")
    refused(s, None, "choose_monster", {"monster": "slime"}, NotYourTurnError)
    refused(s, 0, "choose_monster", ["slime"], IllegalMoveError, "JSON object")
    refused(s, 0, "choose_monster", {"beast": "slime"}, IllegalMoveError, "choose_monster")
    refused(s, 0, "choose_monster", {}, IllegalMoveError, "choose_monster")
    refused(s, 0, "done_shopping", {}, NotYourTurnError, "cannot done shopping now")
    refused(s, 0, "play_turn", {"card": "jab", "stamina": 0}, NotYourTurnError)
    refused(s, 0, "buy", {"card": "aegis"}, NotYourTurnError)


def test_selection_refusals():
    s = session(2, 1)
    refused(s, 0, "choose_monster", {"monster": "dragon-king"}, match="not a monster you can")
    opt = s.state.prompts[0]["options"][0]
    s.execute(0, "choose_monster", {"monster": opt})
    refused(s, 0, "choose_monster", {"monster": opt}, SealedChoiceError, "already locked in")
    s = session(2, 1, monster_select="auction")
    refused(s, 0, "bid_auction", {"tokens": 1}, match="no tokens to bid; bid 0")
    refused(s, 0, "bid_auction", {"tokens": -1}, match="at least 0")
    refused(s, 0, "bid_auction", {"tokens": "all"}, match="whole number")
    refused(s, 0, "pick_monster", {"monster": "slime"}, NotYourTurnError)
    s.execute(0, "bid_auction", {"tokens": 0})
    s.execute(1, "bid_auction", {"tokens": 0})
    picker = min(s.state.prompts)
    refused(s, picker, "pick_monster", {"monster": "nothing"}, match="not in the pool")


def test_preparation_refusals():
    s = session(2, 1, earning="roles")
    play_until(s, lambda st: st.phase == "prep")
    refused(s, 0, "prepare", {"role": "bard"}, match="Choose a role")
    refused(s, 0, "prepare", {"role": "tank", "bet": "no_fall", "stake": 1},
            match="no betting with role cards")
    s = session(2, 1, earning="betting")
    play_until(s, lambda st: st.phase == "prep")
    refused(s, 0, "prepare", {"bet": "jackpot", "stake": 1}, match="killing_blow")
    refused(s, 0, "prepare", {"bet": "no_fall", "stake": 1}, match="no tokens to stake")
    refused(s, 0, "prepare", {"stake": 2}, match="needs a bet")
    refused(s, 0, "prepare", {"role": "tank"}, match="no role cards")


def test_battle_turn_refusals():
    s = session(2, 1, monster_abilities="none")
    play_until(s, lambda st: st.phase == "battle")
    refused(s, 0, "play_turn", {"card": "aegis", "stamina": 0}, match="not in your attack pile")
    refused(s, 0, "play_turn", {"card": "jab", "stamina": 21}, match="from 0 to 20")
    refused(s, 0, "play_turn", {"card": "jab", "stamina": -2}, match="from 0 to 20")
    refused(s, 0, "play_turn", {"card": "jab", "stamina": 1.5}, match="whole number")
    refused(s, 0, "play_turn", {"card": "jab"}, match="play_turn")
    refused(s, 0, "play_turn", {"card": "jab", "stamina": 0, "target": 3},
            match="only one opponent")
    refused(s, 0, "extra_attack", {"card": "jab"}, NotYourTurnError)
    s.execute(0, "play_turn", {"card": "jab", "stamina": 0})
    refused(s, 0, "play_turn", {"card": "jab", "stamina": 0}, SealedChoiceError,
            "already locked in")


def test_shop_refusals():
    s = session(2, 1, tokens="B")
    play_until(s, lambda st: st.phase == "shop" and 0 in st.prompts)
    refused(s, 0, "buy", {"card": "jab"}, match="not a card in the shop")
    refused(s, 0, "buy", {"card": 7}, match="not a card in the shop")
    refused(s, 0, "buy", {"card": "aegis"}, match="costs 12 defense tokens")
    refused(s, 0, "upgrade", {"stat": "luck"}, match="hp or stamina")
    refused(s, 0, "convert", {"give": "attack", "get": "hp"}, NotYourTurnError)
    s.correct(0, "attack", 10, "test")
    refused(s, 0, "buy", {"card": "heavy-strike", "remove": "jab"}, match="deck_thinning")


def test_pvp_refusals():
    s = session(2, 1, pvp_rewards="choice", pvp_trigger="vote")
    play_until(s, lambda st: st.phase == "pvp_check" and st.prompts)
    refused(s, 0, "vote_pvp", {"pvp": "yes"}, match="true")
    play_until(s, lambda st: any("choose_pile" in p["moves"] for p in st.prompts.values()))
    winner = next(x for x, p in s.state.prompts.items() if "choose_pile" in p["moves"])
    refused(s, winner, "choose_pile", {"pile": "c"}, match="pile a or pile b")
    s = session(4, 1, pvp_pairing="draft")
    play_until(s, lambda st: st.phase == "pvp_setup" and st.prompts)
    picker = min(s.state.prompts)
    refused(s, picker, "choose_opponent", {"opponent": picker}, match="Choose your opponent")
    refused(s, picker, "choose_opponent", {"opponent": True}, match="Choose your opponent")
    s = session(2, 2, pvp_rewards="wager")
    play_until(s, lambda st: st.phase == "pvp_prep" and st.prompts)
    lo, hi = s.state.prompts[0]["wager"]
    refused(s, 0, "prepare_pvp", {"wager": hi + 1}, match=f"from {lo} to {hi}")
    refused(s, 0, "prepare_pvp", {"wager": lo, "revenge": "damage"},
            match="no revenge token")
    refused(s, 0, "prepare_pvp", {"wager": lo, "bet_on": 1, "stake": 1},
            match="not a spectator")


def test_objective_refusals():
    s = session(2, 1, victory="objectives")
    refused(s, 0, "keep_objective", {"index": 2}, match="from 0 to 1")
    refused(s, 0, "keep_objective", {"index": "first"}, match="whole number")
    s.execute(0, "keep_objective", {"index": 0})
    refused(s, 0, "keep_objective", {"index": 1}, NotYourTurnError)


def test_a_finished_game_refuses_everything():
    s = session(2, 1, arc="4+1")
    play_until(s, lambda st: st.is_over())
    refused(s, 0, "done_shopping", {}, match="The game is over")
