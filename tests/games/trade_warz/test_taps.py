"""Every move a tap (issue 10): whole games played by players who only tap what ``legal`` offers
(``companion.core.play.play_by_taps``) end with no refusal, for 2-6 players, both editions and
the variants; no seat's pickers name a card only another seat may know, and the table's name
nothing private."""
import json
import random

import pytest

from companion.core import choices as C
from companion.core import views
from companion.core.play import tap
from companion.core.session import fold

from ...conformance.driver import tapped
from .helpers import GAME, drive, session
from .test_scan import hub_at, reveal_with, trade_with_two_exports, two_policies

VARIANTS = {
    "trade": [{}, {"diplomatic": True}, {"chill": True}, {"quick_start": True},
              {"auto_effects": False, "upkeep_confirm": "every"},
              {"diplomatic": True, "chill": True, "policy_order": "poorest_first",
               "influence_gain": "one"},
              {"leader_pick": "random", "check_reveals": False, "export_slot_limit": False}],
    "tariff": [{}, {"fast_pass": False}, {"auto_effects": False, "upkeep_confirm": "every"},
               {"leader_pick": "random", "policy_order": "poorest_first"}],
}


@pytest.mark.parametrize("edition", ["trade", "tariff"])
@pytest.mark.parametrize("n", [2, 3, 4, 5, 6])
def test_games_played_only_by_taps_end_without_a_refusal(edition, n):
    for k in range(3):
        seed = n * 100 + k
        opts = VARIANTS[edition][(n + k) % len(VARIANTS[edition])]
        tapped(GAME, n, seed, dict(opts, edition=edition))


# -- what a seat's pickers may name -------------------------------------------------------------

def _values(obj):
    """Every option value, label and detail in a legal list."""
    if isinstance(obj, dict):
        for k, v in obj.items():
            if k in ("value", "label", "detail"):
                yield v
            yield from _values(v)
    elif isinstance(obj, list):
        for v in obj:
            yield from _values(v)


def _facedown(st, seat):
    out = []
    for p in st.data.trade.placements:
        if p["seat"] == seat and p["state"] == "down":
            e = st.windows[p["window"]].entries.get(seat)
            if e is not None and e.choice:
                out.append(e.choice["card"])
    return out


def _sealed_cards(st, seat):
    """Cards in ``seat``'s unrevealed sealed choices (a Policy, a face-down Export)."""
    out = _facedown(st, seat)
    for w in st.open_windows():
        e = w.entries.get(seat)
        if e is not None and isinstance(e.choice, dict) and e.choice.get("card"):
            out.append(e.choice["card"])
    return out


def _check_no_leak(st):
    d = st.data
    ix = GAME.ix(st)
    pub = views.public(GAME, st)
    table_legal = pub.pop("table_legal")
    public_text = json.dumps(pub["game_view"])
    public_cards = {c for c in ix.items if f'"{c}"' in public_text}
    names = {cid: ix.name_of(cid) for cid in ix.items}
    for seat in range(st.n):
        mine = set(d.hands[seat]) | set(_sealed_cards(st, seat))
        mine |= {o["give"] for o in d.trade.offers if o["kind"] == "swap" and o["to"] == seat}
        secret = set()
        for other in range(st.n):
            if other != seat:
                secret |= set(d.hands[other]) | set(_sealed_cards(st, other))
        secret -= mine | public_cards
        got = list(_values(views.legal(GAME, st, seat)))
        for cid in secret:
            assert cid not in got and names[cid] not in got, (seat, cid, st.phase)
    everyone = set()
    for seat in range(st.n):
        everyone |= set(d.hands[seat]) | set(_sealed_cards(st, seat))
    got = list(_values(table_legal))
    for cid in everyone - public_cards:
        assert cid not in got and names[cid] not in got, ("table", cid, st.phase)
    for v in got:                                       # every card the table names is public
        if isinstance(v, str) and v in ix.items and ix[v].kind in ("export", "policy",
                                                                    "tactic"):
            assert v in public_cards, ("table", v, st.phase)


@pytest.mark.parametrize("edition, opts", [("trade", {"diplomatic": True}),
                                           ("tariff", {}), ("trade", {"chill": True})])
def test_no_seat_is_offered_what_only_another_seat_knows(edition, opts):
    for seed in range(1):
        s = session(4, seed=seed + 7, edition=edition, **opts)
        rng = random.Random(seed)
        for _ in range(4000):
            st = s.state
            if st.outcome is not None:
                break
            _check_no_leak(st)
            if not st.prompts:
                s.clock.set(st.next_deadline())
                s.tick()
                continue
            seat = rng.choice(sorted(st.prompts, key=lambda x: -1 if x is None else x))
            s.execute(seat, *tap(GAME, st, seat, rng))
        assert s.state.outcome is not None


# -- pickers the tap games seldom reach ----------------------------------------------------------

def _every_answer(specs, rng, tries=60):
    seen = []
    for _ in range(tries):
        a = C.sample(specs, rng, skip_optional=0.5)
        if a is not None and a not in seen:
            seen.append(a)
    return seen


def _all_legal(sess, seat, move, rng):
    """Each distinct sampled answer of ``move`` is accepted (tried on a copy of the log)."""
    st = sess.state
    m = next(x for x in views.legal(GAME, st, seat) if x["move"] == move)
    answers = _every_answer(m["args"], rng)
    assert answers
    for args in answers:
        C.check(m["args"], args)
        alt = fold(GAME, sess.records)
        from companion.core.game import apply
        apply(GAME, alt, {"kind": "move", "seat": seat, "move": move, "args": args,
                          "salt": "00" * 16, "at": sess.clock.now()})
    return answers


@pytest.mark.parametrize("keep", ["scanned", "chosen"])
def test_settling_a_policy_mismatch_offers_both_cards_by_name(keep):
    hub, (seat, a, b) = hub_at(two_policies)
    reveal_with(hub, seat, a)
    tl = hub.public_view()["table_legal"]
    assert [m["move"] for m in tl] == ["resolve_policies", "scan_card"]
    scan = next(m for m in tl if m["move"] == "scan_card")["args"][0]
    assert [o["value"] for o in scan["options"]] == [a]             # what is expected
    hub.scan(b)
    tl = hub.public_view()["table_legal"]
    assert [m["move"] for m in tl] == ["settle_mismatch"]
    keep_spec = tl[0]["args"][-1]
    ix = GAME.ix(hub.session.state)
    labels = {o["value"]: o["label"] for o in keep_spec["options"]}
    assert ix.name_of(b) in labels["scanned"] and ix.name_of(a) in labels["chosen"]
    answers = _all_legal(hub.session, None, "settle_mismatch", random.Random(1))
    assert {x["keep"] for x in answers} == {"scanned", "chosen"}
    hub.table_move("settle_mismatch", {"keep": keep})


def test_settling_an_export_mismatch_and_scanning_without_a_reader():
    hub, (seat, a, b, p, k) = hub_at(trade_with_two_exports)
    s = hub.session
    hub.submit(seat, "place_export", {"card": a, "partner": p, "slot": k})
    for x in range(s.state.n):
        if s.state.phase == "trade" and s.state.prompts.get(x):
            hub.submit(x, "done_trade")
    tl = hub.public_view()["table_legal"]
    scan = next(m for m in tl if m["move"] == "scan_card")["args"][0]
    assert a in [o["value"] for o in scan["options"]]
    _all_legal(s, None, "scan_card", random.Random(2))
    hub.scan(b)
    answers = _all_legal(s, None, "settle_mismatch", random.Random(3))
    assert {x["keep"] for x in answers} == {"scanned", "chosen"}


def test_the_table_may_start_the_trade_timer_until_the_first_export():
    s = session(3, seed=4)
    drive(s, lambda st: st.phase == "trade")
    st = s.state
    assert GAME.any_time_moves(st, None) == ("start_trade_timer",)
    assert [m["move"] for m in views.legal(GAME, st, None)] == ["start_trade_timer"]
    s.execute(None, "start_trade_timer", {})
    assert GAME.any_time_moves(s.state, None) == ()


def test_tactics_show_up_any_time_before_trade_ends_and_not_after():
    s = session(3, seed=4)
    drive(s, lambda st: st.phase == "draw")
    st = s.state
    st.data.hands[0].append("emergency-stimulus")
    moves = [m["move"] for m in views.legal(GAME, st, 0)]
    assert "draw_cards" in moves and "play_tactic" in moves
    drive(s, lambda st: st.phase == "exports" or st.phase == "disputes" or
          st.phase == "income")
    assert "play_tactic" not in GAME.any_time_moves(s.state, 0)


def test_choosing_a_dispute_names_the_slot_and_the_players():
    s = None
    for seed in range(60):
        s = session(4, seed=seed)
        try:
            drive(s, lambda st: st.phase == "disputes" and any(
                p["moves"] == ("choose_dispute",) for k, p in st.prompts.items()
                if k is not None), rng=random.Random(seed))
            break
        except AssertionError:
            continue
    st = s.state
    seat = next(k for k, p in st.prompts.items() if p["moves"] == ("choose_dispute",))
    spec = views.legal(GAME, st, seat)[0]["args"][0]
    assert spec["name"] == "contest" and len(spec["options"]) >= 2
    for o in spec["options"]:
        c = st.data.disputes.contests[o["value"]]
        assert o["label"].startswith(GAME.ix(st).name_of(c["partner"]) + f" slot {c['slot']}:")
        assert " vs " in o["label"] and st.players[seat] in o["label"]
    _all_legal(s, seat, "choose_dispute", random.Random(4))


def test_adjust_changes_power_gdp_or_influence_while_a_manual_effect_waits():
    from .test_round import place_all, trade_table
    t = trade_table(3, auto_effects=False)
    t.set_gdp(8, 12, 20)
    place_all(t, [(0, "soybean-surplus", "maple-dominion", 1),
                  (1, "soybean-surplus", "maple-dominion", 1)])
    t.do(0, "bid", amount=0)
    t.do(1, "bid", amount=0)
    m = next(x for x in views.legal(GAME, t.st, None) if x["move"] == "adjust")
    what = m["args"][0]
    assert [o["value"] for o in what["options"]] == ["gdp", "power", "influence"]
    assert [o["value"] for o in m["args"][1]["options"]] == [0, 1]     # the dispute's seats
    t.table("adjust", what="power", player=0, by=1)
    t.table("adjust", what="influence", player=1, partner="neutralia", by=2)
    t.table("confirm_manual")
    c = t.d.disputes.contests[0]
    assert c["power"] == {"0": 2, "1": 1} and c["winner"] == 0
    assert t.d.influence[1]["neutralia"] >= 2
