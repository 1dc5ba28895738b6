"""Whole Trade Warz and Tariff Warz nights (one round: the `rounds` option, with Trade Warz's
Quick Start) from the blind Leader pick to the Victory screen, every move a tap and every
physical card through the reader simulator:

* the table starts with its seats free; three phones join from the QR code on the table
  screen, the fourth joins late (during the Leader pick) and names their seat;
* a phone reloads halfway through its Leader wish;
* the table undoes a draw and every phone is compared with its seat view;
* Policies are chosen face down on the phones and, once revealed, scanned to check them, one
  deliberately wrong card settled on the table screen by a tap;
* Exports are placed by aiming on the phone and scanning the card; the table restarts while
  the Trade timer runs and taps Resume; a seat moves to a fresh phone mid-Trade;
* the flipped Exports are scanned, a dispute is bid on steppers;
* Trade Warz also has a TV on the spectator page (/watch), which never shows a hand or an
  unrevealed choice.
"""
import json
import time

import pytest

from . import minds
from .night import NightPhone, outcome_rows, wait_until



def tw_keys(v, seat):
    p = v["private"]
    lead = p.get("leader")
    hand = len(p.get("hand") or ())
    out = {"GDP": str(p["gdp"]), "Hand": f"{hand} / {lead['hand_size']}" if lead else str(hand)}
    if p.get("budget") is not None and p.get("budget") != p.get("gdp"):
        out["Budget"] = str(p["budget"])
    return out


def prompted(night, move):
    st = night.hub.session.state
    return any(s is not None and move in p["moves"] for s, p in st.prompts.items())


class Reader:
    """The table's card reader and the cards on the table: what is scanned, and the checks
    the table screen shows for it."""

    def __init__(self, night):
        self.night = night
        self.scans = []
        self.mismatch = False

    def scan(self, card_id, expect, secret=False):
        """Put a card on the reader (by its printed name); the hub's scan record says
        ``expect`` (``secret``: about a face-down card it does not name) and the table screen
        acknowledges it."""
        night = self.night
        name = night.hub.session.game.ix(night.hub.session.state).name_of(card_id)
        before = (night.hub.last_scan or {}).get("at")
        said = night.link.type_card(name)
        assert "scann" in said.lower() or "tapp" in said.lower(), said
        scan = wait_until(lambda: (night.hub.last_scan or {}).get("at") != before and
                          night.hub.last_scan, what=f"the scan of {name}")
        assert scan["result"] == expect and scan["card"] == (None if secret else card_id), scan
        night.d.pump()
        self.scans.append((name, expect))
        return scan

    def check_policies(self):
        """The revealed Policies: one wrong card first (a player put down another Policy from
        their hand), settled on the table screen by keeping the phone's choice; then every
        chosen card, each acknowledged as matching."""
        night = self.night
        reveal = night.hub.public_view()["game_view"]["policy_reveal"]
        chosen = {int(s): r["card"] for s, r in reveal.items() if r["card"]}
        st = night.hub.session.state
        ix = night.hub.session.game.ix(st)
        if not self.mismatch:
            for s, card in chosen.items():
                other = [c for c in st.data.hands[s] if c in ix.policies and c != card and
                         sum(c in st.data.hands[x] for x in range(st.n)) == 1 and
                         c not in chosen.values()]
                if other:
                    self.scan(other[0], "mismatch")
                    night.d.pump()
                    assert night.hub.public_view()["table_prompt"]["next"] == "settle_mismatch"
                    night.look("policy-mismatch")
                    assert any(ix.name_of(other[0]) in t for t in night.d.texts())
                    night.tap("table:settle_mismatch:keep=chosen")
                    night.d.wait_for(lambda: night.hub.session.state.data.mismatch is None,
                                     timeout=20)
                    self.mismatch = True
                    break
        for s, card in sorted(chosen.items()):
            if s not in night.hub.session.state.data.pol.confirmed:
                self.scan(card, "matched")
        night.look("policies-checked")

    def check_exports(self):
        """Every flipped Export, put on the reader: each acknowledged as matching."""
        night = self.night
        for x in night.hub.public_view()["game_view"]["flip"]:
            if x.get("card"):
                self.scan(x["card"], "matched")
        assert all(p.get("checked") for p in night.hub.session.state.data.trade.placements
                   if p["state"] == "up")
        night.look("exports-checked")


def tw_night(night, edition, options, seed, tv=False):
    night.open_table(game="trade-warz", players=4, options=dict(edition=edition, **options),
                     seed=seed, start="now")
    night.mind = minds.trade_warz
    reader = Reader(night)
    d = night.d
    assert night.app.screen_name == "lobby"
    url = d.qr("lobby-leader-pick")
    assert url == night.hub.join_url
    watch = None
    if tv:
        watch = night.tv = NightPhone(night.browser, "TV", night.prefix, tv=True)
        watch.page.goto(url.split("?")[0] + "watch")
        watch.page.wait_for_selector("#bar-conn.on")
    ann, bo, cy = night.join(url, ["Ann", "Bo", "Cy"])
    assert [s.name for s in night.hub.seats] == ["Ann", "Bo", "Cy", "Seat 4"]
    night.mark("joined")

    # the blind Leader pick: Ann; Bo's phone reloads halfway through his wishes; Cy
    night.phone_turn(0)
    night.reload_mid_choice(1)
    night.phone_turn(2)
    night.look("lobby-3-picked")
    if watch is not None:
        tv_keeps_secrets(night, watch)
    # the late joiner reads the join QR off the table's Menu, takes the free seat, names it,
    # and picks
    [di] = night.join(night.menu_join_qr(), ["Di"])
    assert night.hub.session.state.players[3] == "Di"
    for ph in (ann, bo, cy):
        ph.page.wait_for_function(
            "() => document.querySelector(\"#players li[data-seat='3'] .pname\")"
            ".textContent === 'Di'")
    night.phone_turn(3)
    night.d.pump()
    assert night.app.screen_name == "tw_leaders"
    night.look()
    night.tap("tw:leaders:continue")
    night.mark("leaders")

    # the Draw: the first player draws; the table undoes it; every phone follows
    night.play(lambda: prompted(night, "draw_cards"), table=lambda: tw_table(night, reader))
    drawer = min(s for s, p in night.hub.session.state.prompts.items()
                 if s is not None and "draw_cards" in p["moves"])
    hand = len(night.hub.seat_view(drawer)["private"]["hand"])
    night.phone_turn(drawer)
    assert len(night.hub.seat_view(drawer)["private"]["hand"]) > hand
    what = night.undo()
    assert night.hub.seats[drawer].name in what, what
    assert len(night.hub.seat_view(drawer)["private"]["hand"]) == hand
    night.in_step(tw_keys)
    night.look("after-undo")
    night.phones[drawer].shot("after-undo")
    night.mark("undo")

    # on to the Trade: the Policies are chosen face down, revealed and scanned
    night.play(lambda: night.hub.session.state.phase == "trade",
               table=lambda: tw_table(night, reader))
    assert reader.mismatch, "no seat held a second Policy to put down by mistake"
    if watch is not None:
        tv_keeps_secrets(night, watch)
    night.mark("policies")

    # Trade: Exports by aiming on the phone and scanning the card; the timer starts with the
    # first one, and the table restarts while it runs
    hook = export_by_scan(night, reader)
    night.play(lambda: night.hub.session.state.timers.get("trade") is not None, hook=hook,
               table=lambda: tw_table(night, reader))
    timer = night.hub.session.state.timers["trade"]
    assert not timer.is_paused()
    night.d.pump()
    night.look("trade-timer")
    if watch is not None:
        tv_keeps_secrets(night, watch)
    # every phone's clock and /watch's follow the table's
    assert night.agree("the Trade timer running") == len(night.screens())
    left, read = night.time_left()["trade"], time.monotonic()
    night.restart()
    timer = night.hub.session.state.timers["trade"]
    # paused with the time it had when the table stopped: the outage is not counted
    assert timer.is_paused() and left - (night.stopped_at - read) <= timer.remaining <= left, \
        (left, night.stopped_at - read, timer.remaining)
    night.d.pump()
    assert night.app.screen_name == "timer"
    night.look("timer-after-restart")
    assert "Resume" in night.d.texts()
    night.tap("timer:pause")                    # it reads Resume
    night.d.wait_for(lambda: not night.hub.session.state.timers["trade"].is_paused(),
                     timeout=20)
    assert night.agree("the Trade timer resumed", feed="The trade timer is running again") \
        == len(night.screens())
    night.in_step(tw_keys)
    night.mark("restart")

    # Cy's phone dies mid-Trade: the seat moves to a new phone
    night.move_seat(2)
    night.in_step(tw_keys)
    night.mark("seat moved")

    # to the end: the rest of the Trade, the flip (scanned), disputes, Income
    night.play(lambda: night.hub.session.state.outcome is not None, hook=hook,
               table=lambda: tw_table(night, reader))
    want = night.final_scores()
    if watch is not None:
        assert outcome_rows(watch.page, "[data-panel=outcome] li[data-seat]") == want
        assert not watch.unreadable(least=18), watch.unreadable(least=18)
        watch.shot("final-scores")
    assert reader.scans and any(e == "recorded" for _, e in reader.scans)
    night.mark("victory")
    disputes = [r for r in night.hub.session.records if r.get("move") == "bid"]
    print(f"\n{edition}: {night.moves} phone moves, {night.table_taps} table taps, "
          f"{len(reader.scans)} scans, {len(disputes)} bids, times {night.marks}, spent "
          f"{ {k: round(v, 1) for k, v in night.spent.items()} }")
    return night


def tw_table(night, reader):
    """The table's turn: before Next after a reveal, the cards are checked on the reader."""
    v = night.hub.public_view()
    nxt = (v["table_prompt"] or {}).get("next")
    if nxt == "resolve_policies":
        reader.check_policies()
    elif nxt == "resolve_exports":
        reader.check_exports()
    night.moments(["tw:leaders:continue"])
    night.table_turn()


def export_by_scan(night, reader):
    """An Export goes down as at the table: the player taps where it goes on the phone (Aim),
    then puts the card on the reader."""
    def hook(seat, move, args, view):
        if move != "place_export":
            return False
        ph = night.phones[seat]
        rev = night.rev()
        ph.play("aim_export", {"partner": args["partner"], "slot": args["slot"]}, view)
        wait_until(lambda: night.rev() > rev, what="the aim")
        # the phone says where the next card goes, and its pickers are closed
        ph.shows_rev(night.rev())
        aim = ph.page.text_content("[data-panel=aim]")
        partner = night.hub.public_view()["game_view"]["partner_names"][args["partner"]]
        assert f"{partner}, slot {args['slot']}" in aim, aim
        assert ph.page.query_selector("[data-form=aim_export]") is None
        key = ("trade", "aim_export")
        if key not in night.seen_phone:
            night.seen_phone.add(key)
            assert not ph.unreadable(), ph.unreadable()
            ph.shot("aimed")
        before = len(night.hub.session.state.data.trade.placements)
        scan = reader.scan(args["card"], "recorded", secret=True)
        # a face-down card: the table screen and the public state say it was placed, and
        # never which card it is
        name = night.hub.session.game.ix(night.hub.session.state).name_of(args["card"])
        assert scan["card"] is None and name not in json.dumps(night.hub.public_view())
        night.d.pump()
        assert not any(name in t for t in night.d.texts(clip=False)), name
        placed = night.hub.session.state.data.trade.placements
        assert len(placed) == before + 1
        assert (placed[-1]["seat"], placed[-1]["partner"], placed[-1]["slot"]) == \
            (seat, args["partner"], args["slot"])
        ph.shows_rev(night.rev())
        ph.page.wait_for_function(
            "(n) => (window.tc.view.private.facedown || []).length >= n", arg=1)
        return True
    return hook


def tv_keeps_secrets(night, watch):
    """The TV shows the public table at the hub's rev and no string that only a seat's view
    holds: hands, face-down Exports, sealed choices not yet revealed."""
    hub = night.hub
    watch.page.wait_for_function(
        "(rev) => Number(document.getElementById('watch').dataset.rev) >= rev", arg=night.rev())
    public = json.dumps(hub.public_view(), ensure_ascii=False)
    hands, facedown = set(), set()
    for s in range(len(hub.seats)):
        p = hub.seat_view(s)["private"] or {}
        hands.update(c["name"] for c in p.get("hand") or ())
        facedown.update(f["name"] for f in p.get("facedown") or () if f.get("name"))
    # a face-down card is named nowhere public (round 1: no copy of it is face up anywhere);
    # a card in a hand may have a public copy (a revealed Policy), so only the others count
    assert not [x for x in facedown if x in public], facedown
    secret = facedown | {x for x in hands if x and x not in public}
    text = watch.visible_text("body")
    doc = json.dumps(watch.page.evaluate("window.tcWatch.state"), ensure_ascii=False)
    leaks = [x for x in secret if x in text or x in doc]
    assert not leaks, leaks
    assert "private" not in json.loads(doc) and "legal" not in json.loads(doc)
    assert watch.fits_the_screen()
    key = ("tv", hub.public_view()["phase"])
    if key not in night.seen_phone:
        night.seen_phone.add(key)
        assert not watch.unreadable(least=18), watch.unreadable(least=18)
        watch.shot(f"tv-{key[1]}")


@pytest.mark.slow
def test_trade_warz_night(night):
    tw_night(night, "trade", {"quick_start": True, "rounds": 1}, seed=3, tv=True)


@pytest.mark.slow
def test_tariff_warz_night(night):
    tw_night(night, "tariff", {"rounds": 1}, seed=4)
