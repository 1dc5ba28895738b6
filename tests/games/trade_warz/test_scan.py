"""Physical and hidden agree: scans through the real table hub confirm what the phones chose, a
mismatch is flagged with both cards named and the table decides (recorded in the log)."""
import json
import random

import pytest

from companion.core.clock import FakeClock
from companion.core.errors import IllegalMoveError
from companion.core.log import MemoryLog
from companion.service.hub import Hub

from .helpers import GAME, drive


def hub_at(pred, n=3, edition="trade", seeds=range(40)):
    """A started hub whose session has reached ``pred``; the first seed that gets there."""
    for seed in seeds:
        hub = Hub(MemoryLog(), clock=FakeClock(), entropy=random.Random(seed).randbytes)
        leaders = ",".join(["usa", "china", "russia"][:n])
        hub.configure("trade-warz", n, options={"edition": edition, "leaders": leaders})
        hub.start(seed=seed)
        try:
            drive(hub.session, pred, rng=random.Random(seed))
        except AssertionError:
            continue
        got = pred(hub.session.state)
        if got:
            return hub, got
    raise AssertionError("no seed got there")


def two_policies(st):
    """In the Policy phase: (seat, a, b), two plain affordable Policies in one hand."""
    if st.phase != "policy" or not st.prompts:
        return None
    ix = GAME.ix(st)
    for s, p in st.prompts.items():
        if s is None or p["moves"] != ("choose_policy",):
            continue
        ok = [c for c in dict.fromkeys(st.data.hands[s]) if c in ix.policies and
              ix.needs[c] == (None, False) and GAME.cost_of(st, s, c) <= st.data.gdp[s]]
        if len(ok) >= 2:
            return s, ok[0], ok[1]
    return None


def reveal_with(hub, seat, card):
    """``seat`` chooses ``card``; every other seat chooses none; the Policies are revealed."""
    st = hub.session.state
    hub.submit(seat, "choose_policy", {"card": card})
    for s in list(st.prompts):
        if s is not None and hub.session.state.prompts.get(s, {}).get("moves") == (
                "choose_policy",):
            hub.submit(s, "choose_policy", {"card": None})
    assert hub.session.state.data.pol.check


def test_policy_scan_that_matches_confirms():
    hub, (seat, a, b) = hub_at(two_policies)
    reveal_with(hub, seat, a)
    r = hub.scan(a)
    assert any(n["kind"] == "ScanConfirmed" and n["card"] == a for n in r.notices)
    hub.next()                                           # resolve
    assert hub.session.state.data.board.policy[seat] in (a, None)


@pytest.mark.parametrize("keep", ["scanned", "chosen"])
def test_policy_scan_that_disagrees_is_flagged_and_the_table_decides(keep):
    hub, (seat, a, b) = hub_at(two_policies)
    s = hub.session
    ix = GAME.ix(s.state)
    reveal_with(hub, seat, a)
    hub.scan(b)                                          # the card on the table is b
    st = s.state
    m = st.data.mismatch
    assert m == {"kind": "policy", "seat": seat, "chosen": a, "scanned": b}
    p = st.prompts[None]
    assert p["moves"][0] == "settle_mismatch"
    assert ix.name_of(a) in p["text"] and ix.name_of(b) in p["text"]     # both named
    view = hub.public_view()
    assert view["game_view"]["check"]["mismatch"]["scanned"] == b
    with pytest.raises(IllegalMoveError, match="Settle the scanned card first"):
        hub.table_move("resolve_policies")
    hub.table_move("settle_mismatch", {"keep": keep})
    rec = s.records[-1]
    assert rec["type"] == "MismatchSettled" and rec["args"] == {"keep": keep}
    notes = list(hub.next().notices)                     # resolve the Policies
    kept = b if keep == "scanned" else a
    other = a if kept == b else b
    played = [n["card"] for n in notes if n["kind"] == "PolicyPlayed" and n["seat"] == seat]
    assert played == [kept]
    assert kept not in s.state.data.hands[seat] and other in s.state.data.hands[seat]


def test_scan_of_a_card_nobody_chose_nor_holds_becomes_an_alert():
    hub, (seat, a, b) = hub_at(two_policies)
    reveal_with(hub, seat, a)
    st = hub.session.state
    ix = GAME.ix(st)
    stray = next(c for c in sorted(ix.policies) if all(c not in h for h in st.data.hands))
    version = hub.session.version
    assert hub.scan(stray) is None
    assert hub.alerts[-1]["kind"] == "scan" and "check it by hand" in hub.alerts[-1]["message"]
    assert hub.session.version == version                # nothing changed


def trade_with_two_exports(st):
    if st.phase != "trade" or not st.prompts:
        return None
    ix = GAME.ix(st)
    for s in sorted(k for k in st.prompts if k is not None):
        ex = sorted(c for c in set(st.data.hands[s]) if c in ix.exports)
        if len(ex) < 2 or GAME.slots_left(st, s) <= 0:
            continue
        budget = GAME.budget(st, s)
        for p in ix.partners:
            slots = GAME.open_slots(st, s, p)
            ok = [c for c in ex if GAME.cost_of(st, s, c, p) <= budget]
            if slots and len(ok) >= 2:
                return s, ok[0], ok[1], p, slots[0]
    return None


def test_export_scanned_during_trade_is_placed_face_down_by_its_holder():
    hub, (seat, a, b, p, k) = hub_at(trade_with_two_exports)
    s = hub.session
    assert hub.scan(a) is None                               # where? not said yet
    assert "choose its Trade Partner and slot" in hub.alerts[-1]["message"]
    assert GAME.ix(s.state).name_of(a) not in hub.alerts[-1]["message"]      # no leak
    hub.submit(seat, "aim_export", {"partner": p, "slot": k})
    r = hub.scan(a)
    assert r is not None
    rec = s.records[-1]
    assert rec["seat"] == seat and rec["move"] == "place_export" and "commitment" in rec
    placed = s.state.data.trade.placements[-1]
    assert (placed["seat"], placed["partner"], placed["slot"], placed["card"]) == (
        seat, p, k, None)
    assert a not in json.dumps(s.history(None)[-1])          # sealed: only a commitment
    assert a not in json.dumps(hub.public_view()["game_view"]["partners"])
    assert any(f["card"] == a for f in hub.seat_view(seat)["private"]["facedown"])


def test_export_mismatch_at_the_flip_keep_scanned():
    hub, (seat, a, b, p, k) = hub_at(trade_with_two_exports)
    s = hub.session
    hub.submit(seat, "place_export", {"card": a, "partner": p, "slot": k})   # phone says a
    for x in range(s.state.n):
        if s.state.phase == "trade" and s.state.prompts.get(x):
            hub.submit(x, "done_trade")
    st = s.state
    assert st.phase == "exports" and st.data.disputes.check
    hub.scan(b)                                          # the card under the strip is b
    m = st.data.mismatch
    assert m["kind"] == "export" and (m["chosen"], m["scanned"]) == (a, b)
    assert m["seat"] == seat
    hub.table_move("settle_mismatch", {"keep": "scanned"})
    pl = next(x for x in st.data.trade.placements if x["seat"] == seat and x["slot"] == k and
              x["partner"] == p)
    assert pl["card"] == b and pl["checked"]
    assert a in st.data.hands[seat] and b not in st.data.hands[seat]
    notes = [n for n in s.state.notices if n["kind"] == "MismatchSettled"]
    assert notes and notes[0]["card"] == b and notes[0]["chosen"] == a


def test_export_scan_that_matches_is_checked():
    hub, (seat, a, b, p, k) = hub_at(trade_with_two_exports)
    s = hub.session
    hub.submit(seat, "place_export", {"card": a, "partner": p, "slot": k})
    for x in range(s.state.n):
        if s.state.phase == "trade" and s.state.prompts.get(x):
            hub.submit(x, "done_trade")
    hub.scan(a)
    pl = next(x for x in s.state.data.trade.placements if x["card"] == a)
    assert pl["checked"] and s.state.data.mismatch is None
    hub.next()
    assert s.state.phase != "exports"


def test_scan_outside_a_check_is_just_shown():
    hub, _ = hub_at(lambda st: st.phase == "draw" and st.round == 1 or None)
    events = []
    hub.subscribe(events.append)
    assert hub.scan("usa") is None
    last = events[-1]
    # a card nobody asked about may be in a hand: acknowledged, never named in public
    assert (last["kind"], last["card"], last["name"], last["result"]) == \
        ("scan", None, "A card", "read")
    assert hub.public_view()["hub"]["scan"]["card"] is None
    assert GAME.scan_move(hub.session.state, "not-a-card") is None


@pytest.mark.parametrize("edition", ["trade", "tariff"])
def test_whole_game_through_the_hub_with_next_for_every_table_prompt(edition):
    clock = FakeClock()
    hub = Hub(MemoryLog(), clock=clock, entropy=random.Random(7).randbytes)
    hub.configure("trade-warz", 4, options={"edition": edition, "upkeep_confirm": "every"})
    s = hub.start(seed=7)
    rng = random.Random(7)
    steps = set()
    while not s.state.is_over():
        st = s.state
        if not st.prompts:
            clock.set(st.next_deadline())
            s.tick()
            continue
        if None in st.prompts:
            steps.add(st.prompts[None].get("step"))
            hub.next()                                   # the table's Next button
            continue
        seat = min(st.prompts)
        hub.submit(seat, *GAME.bots["random"](GAME, GAME.observe(st, seat), rng))
    assert {"policy_check", "export_check"} <= steps
    assert hub.public_view()["outcome"]["winners"]


def test_a_refused_scan_names_a_face_up_card_and_keeps_a_hidden_one_off_the_screens():
    """Issue 34: "Scan not accepted: A card: ..." named nothing. A card face up for everyone
    (here a flipped Export scanned a second time) is named; one that may be in a hand is
    not, and the message says why."""
    hub, (seat, a, b, p, k) = hub_at(trade_with_two_exports)
    s = hub.session
    hub.submit(seat, "place_export", {"card": a, "partner": p, "slot": k})
    for x in range(s.state.n):
        if s.state.phase == "trade" and s.state.prompts.get(x):
            hub.submit(x, "done_trade")
    hub.scan(a)
    hub.scan(a)                                   # again: it is checked already
    last = hub.public_view()["hub"]["scan"]
    assert last["result"] == "refused", last
    assert last["name"] == GAME.ix(s.state).name_of(a) and last["card"] == a
    hub.scan(b)                                   # still in a hand: never named
    last = hub.public_view()["hub"]["scan"]
    assert last["result"] == "refused" and last["card"] is None, last
    name_b = GAME.ix(s.state).name_of(b)
    assert name_b not in str(hub.public_view())
    assert last["message"].endswith("(Its name stays off the screens: it may be from "
                                    "someone's hand.)")


def test_keeping_the_phones_choice_ends_the_red_banner_and_is_not_called_scanned():
    """Issue 34: after "Keep the phone's choice" the kept card was labelled "scanned" and the
    red mismatch banner stayed."""
    hub, (seat, a, b, p, k) = hub_at(trade_with_two_exports)
    s = hub.session
    hub.submit(seat, "place_export", {"card": a, "partner": p, "slot": k})
    for x in range(s.state.n):
        if s.state.phase == "trade" and s.state.prompts.get(x):
            hub.submit(x, "done_trade")
    hub.scan(b)
    assert hub.public_view()["hub"]["scan"]["result"] == "mismatch"
    hub.table_move("settle_mismatch", {"keep": "chosen"})
    scan = hub.public_view()["hub"]["scan"]
    assert scan["result"] == "settled" and scan["message"] == \
        "Settled: the table kept the phone's choice."
    flip = next(f for f in hub.public_view()["game_view"]["flip"]
                if f["seat"] == seat and f["partner"] == p and f["slot"] == k)
    assert flip["card"] == a and flip["kept"] == "chosen"
