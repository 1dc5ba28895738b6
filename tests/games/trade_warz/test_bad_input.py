"""Bad input is refused with a sentence a player can read, and nothing changes (the log and the
state stay exactly as they were)."""
import random

import pytest

from companion.core.errors import (
    ConfigError, IllegalMoveError, NotYourTurnError, SealedChoiceError, UnknownMoveError)

from .helpers import GAME, drive, session


def refused(s, seat, move, args, words, error=IllegalMoveError):
    before, n = s.state.fingerprint(), len(s.records)
    with pytest.raises(error) as e:
        s.execute(seat, move, args)
    assert words in str(e.value), str(e.value)
    assert len(str(e.value).split()) >= 4                 # a sentence, not a code
    assert len(s.records) == n and s.state.fingerprint() == before
    return str(e.value)


def at_trade(seed=3, n=3, **opts):
    s = session(n, seed=seed, leaders=",".join(["usa", "china", "russia", "eu"][:n]), **opts)
    drive(s, lambda st: st.phase == "trade" and st.round == 2, rng=random.Random(seed))
    return s


def test_export_to_an_occupied_slot():
    for seed in range(20):
        s = at_trade(seed)
        st = s.state
        taken = [(p, k, r[0]) for p, slots in st.data.board.routes.items() for k, r in slots.items()]
        ix = GAME.ix(st)
        for seat in range(3):
            ex = [c for c in st.data.hands[seat] if c in ix.exports]
            if taken and ex and st.prompts.get(seat):
                p, k, owner = taken[0]
                msg = refused(s, seat, "place_export", {"card": ex[0], "partner": p,
                                                        "slot": k}, "already holds")
                assert "choose an open slot" in msg
                return
    raise AssertionError("no seed had a standing route and an Export in hand")


def test_bid_above_gdp():
    for seed in range(30):
        s = session(3, seed=seed)
        try:
            drive(s, lambda st: st.phase == "disputes" and any(
                p["moves"] == ("bid",) for k, p in st.prompts.items() if k is not None),
                rng=random.Random(seed))
        except AssertionError:
            continue
        st = s.state
        seat = min(k for k in st.prompts if k is not None)
        g = st.data.gdp[seat]
        refused(s, seat, "bid", {"amount": g + 1}, f"You have {g} GDP; you cannot bid {g + 1}")
        refused(s, seat, "bid", {"amount": -1}, "0 GDP or more")
        refused(s, seat, "bid", {"amount": "lots"}, "whole number")
        return
    raise AssertionError("no dispute")


def test_second_policy():
    for seed in range(20):
        s = session(3, seed=seed)
        drive(s, lambda st: st.phase == "policy" and st.round == 1 or st.round > 1,
              rng=random.Random(seed))
        st = s.state
        if st.phase != "policy":
            continue
        seats = [k for k, p in st.prompts.items() if k is not None and
                 p["moves"] == ("choose_policy",)]
        if len(seats) < 2:
            continue
        s.execute(seats[0], "choose_policy", {"card": None})
        refused(s, seats[0], "choose_policy", {"card": None}, "already locked in",
                SealedChoiceError)
        return
    raise AssertionError("no policy phase with two seats")


def test_tactic_after_trade_ended():
    for seed in range(30):
        s = session(3, seed=seed)
        try:
            drive(s, lambda st: st.phase in ("exports", "disputes") and any(
                c in GAME.ix(st).tactics for h in st.data.hands for c in h),
                rng=random.Random(seed))
        except AssertionError:
            continue
        st = s.state
        seat, card = next((x, c) for x, h in enumerate(st.data.hands) for c in h
                          if c in GAME.ix(st).tactics)
        refused(s, seat, "play_tactic", {"card": card}, "only until Trade ends")
        return
    raise AssertionError("never got there")


def test_card_not_in_hand():
    s = at_trade()
    st = s.state
    ix = GAME.ix(st)
    seat = min(k for k in st.prompts if k is not None)
    not_mine = next(c for c in sorted(ix.exports) if c not in st.data.hands[seat])
    refused(s, seat, "place_export", {"card": not_mine, "partner": "neutralia", "slot": 1},
            "is not in your hand")
    tac = next(c for c in sorted(ix.tactics) if c not in st.data.hands[seat])
    refused(s, seat, "play_tactic", {"card": tac}, "is not in your hand")
    refused(s, seat, "play_tactic", {"card": "no-such-card"}, "is not a Trade Warz card")


def test_more_bad_input():
    s = at_trade()
    st = s.state
    ix = GAME.ix(st)
    seat = min(k for k in st.prompts if k is not None)
    ex = next((c for c in st.data.hands[seat] if c in ix.exports), None)
    if ex is not None:
        refused(s, seat, "place_export", {"card": ex, "partner": "atlantis", "slot": 1},
                "is not a Trade Partner")
        refused(s, seat, "place_export", {"card": ex, "partner": "neutralia", "slot": 9},
                "has slots 1 to")
    pol = next((c for c in st.data.hands[seat] if c in ix.policies), None)
    if pol is not None:
        refused(s, seat, "place_export", {"card": pol, "partner": "neutralia", "slot": 1},
                "not an Export")
    refused(s, seat, "fly_to_the_moon", {}, "has no move", UnknownMoveError)
    refused(s, seat, "draw_cards", {"export": 1}, "cannot draw cards now", NotYourTurnError)
    refused(s, None, "resolve_exports", {}, "no flipped Exports")
    refused(s, None, "settle_mismatch", {"keep": "scanned"}, "no scanned card")
    refused(s, seat, "place_export", {"card": ex or "x", "partner": "neutralia"},
            "needs slot: choose it first", IllegalMoveError)    # words, not Python's


def test_bad_options():
    with pytest.raises(ConfigError, match="no edition|must be one of"):
        session(3, edition="deluxe")
    with pytest.raises(ConfigError, match="names 2 Leaders for 3"):
        session(3, leaders="usa,china")
    with pytest.raises(ConfigError, match="no Leader 'atlantis'"):
        session(2, leaders="usa,atlantis")
    with pytest.raises(ConfigError, match="only once"):
        session(2, leaders="usa,usa")
