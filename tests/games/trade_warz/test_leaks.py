"""Leak tests: before the reveal, no view but the owner's depends on a sealed choice.

Non-interference, as in tests/games/great_powers/test_leaks.py: two sessions that differ only
in one seat's sealed choice (a Leader pick, a Policy, a face-down Export, a dispute bid) must
give identical public views, identical views for every other seat and identical histories for
every other viewer (commitments masked, since they differ by design). No unrevealed salt shows
anywhere but in its owner's view.
"""
import copy
import json
import random
import re

import pytest

from companion.core.log import MemoryLog
from companion.core.session import Session, fold

from .helpers import GAME, drive, session

HEX64 = re.compile(r"[0-9a-f]{64}")


def _mask(obj):
    return HEX64.sub("<commitment>", json.dumps(obj, sort_keys=True))


def _views(sess, skip):
    out = {"public": _mask(sess.public_view()), "hpublic": _mask(sess.history(None))}
    for seat in range(sess.state.n):
        if seat != skip:
            out[seat] = _mask(sess.seat_view(seat))
            out[f"h{seat}"] = _mask(sess.history(seat))
    return out


def _alt(sess, owner, move, new_args, window=None):
    """The same session with the owner's last ``move`` carrying ``new_args`` instead."""
    recs = copy.deepcopy(sess.records)
    for r in reversed(recs):
        if r.get("seat") == owner and r.get("move") == move and \
                (window is None or r.get("window") == window):
            r["args"] = new_args
            break
    else:
        raise AssertionError("record not found")
    return Session(GAME, MemoryLog(), sess.id, recs, fold(GAME, recs), sess.clock,
                   sess.entropy, sess.wall)


def _check(sess, alt, owner, secret):
    mine, theirs = _views(sess, owner), _views(alt, owner)
    for key in mine:
        assert mine[key] == theirs[key], f"view {key} depends on seat {owner}'s sealed choice"
    assert secret in json.dumps(sess.seat_view(owner))      # the owner does see it
    for w in sess.state.open_windows():
        for seat, e in w.entries.items():
            for key, text in _views(sess, seat).items():
                assert e.salt not in text, (key, seat)


@pytest.mark.parametrize("edition", ["trade", "tariff"])
def test_leader_pick_does_not_leak(edition):
    for seed in range(4):
        n = 3 + seed
        s = session(n, seed=seed, edition=edition)
        assert s.state.phase == "leaders"
        s.execute(0, "pick_leader", {"leader": "usa", "ranking": ["china"]})
        s.execute(1, "pick_leader", {"leader": "russia"})
        alt = _alt(s, 0, "pick_leader", {"leader": "brazil", "ranking": ["eu"]})
        assert alt.state.windows["leaders"].entries[0].choice["leader"] == "brazil"
        _check(s, alt, 0, '"usa"')


@pytest.mark.parametrize("edition", ["trade", "tariff"])
def test_policy_choice_does_not_leak(edition):
    found = 0
    for seed in range(12):
        n = 2 + seed % 5
        s = session(n, seed=seed, edition=edition)
        rnd = 1 + seed % 3
        try:
            drive(s, lambda st: st.phase == "policy" and st.round == rnd and
                  any(p["moves"] == ("choose_policy",) for k, p in st.prompts.items()
                      if k is not None), rng=random.Random(seed))
        except AssertionError:
            continue
        st = s.state
        owner = min(k for k, p in st.prompts.items() if k is not None)
        ix = GAME.ix(st)
        options = [c for c in dict.fromkeys(st.data.hands[owner]) if c in ix.policies and
                   GAME.cost_of(st, owner, c) <= st.data.gdp[owner] and
                   ix.needs[c] == (None, False)]
        if not options:
            continue
        a = options[0]
        b = options[1] if len(options) > 1 else None
        s.execute(owner, "choose_policy", {"card": a})
        if not s.state.windows[GAME.moves["choose_policy"].sealed(s.state, None)].is_revealed():
            alt = _alt(s, owner, "choose_policy", {"card": b})
            _check(s, alt, owner, json.dumps(a))
            found += 1
    assert found >= 3


def _trade_point(s, seed):
    drive(s, lambda st: st.phase == "trade" and st.prompts and
          any(GAME.can_place(st, k) for k in st.prompts if k is not None),
          rng=random.Random(seed))
    return s.state


@pytest.mark.parametrize("edition", ["trade", "tariff"])
def test_face_down_export_does_not_leak(edition):
    found = 0
    for seed in range(16):
        n = 2 + seed % 5
        s = session(n, seed=seed, edition=edition)
        try:
            st = _trade_point(s, seed)
        except AssertionError:
            continue
        owner = min(k for k in st.prompts if k is not None and GAME.can_place(st, k))
        ix = GAME.ix(st)
        exports = sorted(c for c in set(st.data.hands[owner]) if c in ix.exports)
        budget = GAME.budget(st, owner)
        pair = None
        for p in ix.partners:
            slots = GAME.open_slots(st, owner, p)
            if not slots:
                continue
            for a in exports:
                for b in exports:
                    ca, cb = GAME.cost_of(st, owner, a, p), GAME.cost_of(st, owner, b, p)
                    # Tariff Warz pays on placement, in the open: equal costs only
                    if a != b and ca <= budget and cb <= budget and \
                            (edition == "trade" or ca == cb):
                        pair = (a, b, p, slots[0])
                        break
                if pair:
                    break
            if pair:
                break
        if pair is None:
            continue
        a, b, p, k = pair
        s.execute(owner, "place_export", {"card": a, "partner": p, "slot": k})
        pub = s.public_view()
        assert a not in json.dumps(pub["game_view"]["partners"])
        alt = _alt(s, owner, "place_export", {"card": b, "partner": p, "slot": k})
        _check(s, alt, owner, json.dumps(a))
        found += 1
    assert found >= 4


@pytest.mark.parametrize("edition", ["trade", "tariff"])
def test_dispute_bid_does_not_leak(edition):
    found = 0
    for seed in range(40):
        if found >= 4:
            break
        n = 2 + seed % 5
        s = session(n, seed=seed, edition=edition)
        try:
            drive(s, lambda st: st.phase == "disputes" and any(
                p["moves"] == ("bid",) and p["max"] >= 1
                for k, p in st.prompts.items() if k is not None), rng=random.Random(seed))
        except AssertionError:
            continue
        st = s.state
        owner = min(k for k, p in st.prompts.items() if k is not None and p["max"] >= 1)
        wid = st.prompts[owner]["window"]
        s.execute(owner, "bid", {"amount": 1})
        if s.state.windows[wid].is_revealed():
            continue
        alt = _alt(s, owner, "bid", {"amount": 0}, window=wid)
        _check(s, alt, owner, '"choice": 1')
        found += 1
    assert found >= 2


def test_the_seed_is_not_in_the_public_history_before_the_end():
    s = session(3, seed=123456789)
    assert "123456789" not in json.dumps(s.history(None))
    assert "123456789" not in json.dumps(s.public_view())


def test_hands_and_piles_are_private():
    s = session(4, seed=8, leaders="usa,china,russia,eu")
    drive(s, lambda st: st.phase == "trade")
    st = s.state
    pub = s.public_view()["game_view"]
    assert pub["hand_counts"] == [len(h) for h in st.data.hands]
    for seat in range(4):
        mine = s.seat_view(seat)
        assert [c["id"] for c in mine["private"]["hand"]] == st.data.hands[seat]
        other = s.seat_view((seat + 1) % 4)
        for cid in set(st.data.hands[seat]) - set(st.data.hands[(seat + 1) % 4]):
            assert f'"{cid}"' not in json.dumps(other["private"])
    assert set(pub["decks"]) == {"export", "tactic", "policy"}
    assert all(isinstance(v, int) for v in pub["decks"].values())       # counts, not cards
