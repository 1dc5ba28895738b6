"""Leak tests: before the reveal, no view but the owner's depends on a sealed bid.

Non-interference: two sessions that differ only in one seat's sealed bid must give identical
public views, identical views for every other seat, and identical histories for every other
viewer (commitments masked, since they differ by design). And no unrevealed salt appears
anywhere but in its owner's view.
"""
import copy
import json
import random
import re

from companion.core.log import MemoryLog
from companion.core.play import play_out
from companion.core.session import Session, fold

from .helpers import GAME, session

HEX64 = re.compile(r"[0-9a-f]{64}")


def _mask(obj):
    return HEX64.sub("<commitment>", json.dumps(obj, sort_keys=True))


def _views(sess, skip):
    out = {"public": _mask(sess.public_view())}
    for seat in range(sess.state.n):
        if seat != skip:
            out[seat] = _mask(sess.seat_view(seat))
            out[f"h{seat}"] = _mask(sess.history(seat))
    out["hpublic"] = _mask(sess.history(None))
    return out


def _rebuild(like, records):
    """A second session with the same id and these records (one sealed choice changed)."""
    return Session(GAME, MemoryLog(), like.id, records, fold(GAME, records), like.clock,
                   like.entropy, like.wall)


def test_sealed_bids_do_not_interfere_with_any_other_view():
    for seed in range(12):
        n = 3 + seed % 6
        s = session(n, seed=seed)
        rng = random.Random(seed)
        # play into a random turn's bid phase
        target_turn = 1 + seed % 4
        bots = [GAME.bots["greedy"]] * n
        while not (s.state.phase == "bid" and s.state.round == target_turn and s.state.prompts):
            seat = min(s.state.prompts)
            s.execute(seat, *bots[seat](GAME, s.state, seat, rng))
        waiting = sorted(s.state.prompts)
        owner = waiting[0]
        p = s.state.prompts[owner]
        a = rng.sample(p["allowed"], p["count"])
        b = list(reversed(a)) if len(a) > 1 else [t for t in p["allowed"] if t not in a][:1]
        s.execute(owner, "submit_bids", {"traits": a})
        # a second seat locks in too (if any), so the check runs with several sealed entries
        if len(waiting) > 2:
            q = s.state.prompts[waiting[1]]
            s.execute(waiting[1], "submit_bids", {"traits": q["allowed"][:q["count"]]})
        alt_records = copy.deepcopy(s.records)
        for r in alt_records:
            if r.get("seat") == owner and r.get("move") == "submit_bids" and \
                    r.get("window") == f"bids-t{target_turn}":
                r["args"] = {"traits": b}
        alt = _rebuild(s, alt_records)
        assert alt.state.windows[f"bids-t{target_turn}"].entries[owner].choice == b
        mine, theirs = _views(s, owner), _views(alt, owner)
        assert mine == theirs, f"seed {seed}: a view depends on seat {owner}'s sealed bid"
        # the owner's own view does show it
        assert json.dumps(a) in json.dumps(s.seat_view(owner))
        # salts of unrevealed entries appear nowhere else
        for w in s.state.open_windows():
            for seat, e in w.entries.items():
                for key, text in _views(s, seat).items():
                    assert e.salt not in text, (key, seat)


def test_peeked_event_is_private_to_the_peeker():
    st_session = session(4, seed=3)
    rng = random.Random(3)
    bots = [GAME.bots["greedy"]] * 4
    seen = 0
    while not st_session.state.is_over():
        st = st_session.state
        for seat, eid in st.data.peeks.items():
            name = GAME.rules.events[eid].name
            assert st_session.seat_view(seat)["private"]["next_event"]["id"] == eid
            for other in range(4):
                if other != seat and other not in st.data.peeks:
                    assert eid not in json.dumps(st_session.seat_view(other)), name
            assert eid not in json.dumps(st_session.public_view()["game_view"])
            seen += 1
        seat = min(st.prompts)
        st_session.execute(seat, *bots[seat](GAME, st, seat, rng))
    assert seen > 0


def test_the_seed_is_not_in_the_public_history_before_the_end():
    s = session(3, seed=123456789)
    assert "123456789" not in json.dumps(s.history(None))
    assert "123456789" not in json.dumps(s.public_view())
    play_out(s, [GAME.bots["greedy"]] * 3, random.Random(0))
    assert "123456789" in json.dumps(s.history(None))
