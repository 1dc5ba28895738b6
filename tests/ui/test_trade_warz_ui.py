"""Trade Warz / Tariff Warz through the real screens, by touch: the blind Leader pick in the
lobby and its result per seat; the CMYK Upkeep with a confirm per step; a by-hand effect
answered with the drawn picker (no "Adjust GDP" form); the Trade timer; the Policy reveal as
a card per player; every scan acknowledged, a mismatch under its own heading settled by a tap
and gone when the phase ends; the Export flip listing every Export on its partner and slot;
the disputes (poorest first, locks, reveal checked), listed from the flip on; the GDP track."""
import threading

import pytest

from ui import theme

from .harness import play_until

NAMES = ["Ann", "Bo", "Cyrus", "Dmitri"]


def tw(hub, edition="trade", seed=3, **options):
    hub.configure("trade-warz", players=4, names=NAMES, options=dict(edition=edition,
                                                                      **options))
    hub.start(seed=seed)


def phone(fn, *args):
    t = threading.Thread(target=fn, args=args)
    t.start()
    t.join()


def past_leaders(d):
    """Tap Continue on the Leader pick result if the screen is showing it."""
    if d.app.screen_name == "tw_leaders":
        d.tap(d.tid("tw:leaders:continue"))


def test_the_blind_leader_pick_fills_in_on_the_lobby(hub, start_app):
    tw(hub)
    d = start_app(hub)
    assert d.app.screen_name == "lobby"
    assert "Leader pick" in d.texts() and "0 of 4 picked" in d.texts()
    phone(hub.submit, 2, "pick_leader", {"leader": "usa", "ranking": ["china", "russia"]})
    d.pump()
    assert "1 of 4 picked" in d.texts()
    assert d.texts().count("\u2713 picked") == 1
    assert "usa" not in " ".join(d.texts()).lower()        # nobody sees the pick yet
    d.check("tw-leader-pick")


def test_the_lobby_names_the_edition_as_the_phones_do(hub, start_app):
    """Issue 34: the lobby said "Trade Warz · Edition: Tariff" where phones say "Tariff
    Warz": one name for the game everywhere."""
    hub.configure("trade-warz", players=4, names=NAMES,
                  options=dict(edition="tariff", rounds=4))
    d = start_app(hub)                                  # the lobby, before the start
    assert d.app.screen_name == "lobby"
    assert any(t.startswith("4 players") and "Rounds: 4" in t for t in d.texts())
    texts = " ".join(d.texts())
    assert "Tariff Warz" in texts and "Edition: Tariff" not in texts
    assert "Tariff Warz · setting up" in texts and "Trade Warz" not in texts
    d.check("tw-lobby-tariff")


def test_the_leader_pick_result_shows_each_seat_until_continue(hub, clock, start_app):
    tw(hub)
    d = start_app(hub)
    for s, (lead, rank) in enumerate([("usa", ["china"]), ("usa", ["russia", "china"]),
                                      ("china", ["usa"]), ("eu", ["india"])]):
        phone(hub.submit, s, "pick_leader", {"leader": lead, "ranking": rank})
    d.pump()
    assert d.app.screen_name == "tw_leaders"
    lp = hub.public_view()["game_view"]["leader_pick"]
    texts = d.texts()
    wish_words = {1: "1st wish", 2: "2nd wish", 3: "3rd wish"}
    for r in lp["seats"]:
        assert r["player"] in texts and r["name"] in texts
        assert (wish_words[r["wish"]] if r["wish"] else "by lot") in texts
    assert sum(t in ("1st wish", "2nd wish", "3rd wish", "by lot") for t in texts) == 4
    # the lot's pick order is shown: a first wish that lost to another's second is explained
    names = hub.public_view()["players"]
    order = ", ".join(names[s] for s in lp["order"])
    assert any(t.startswith(f"Blind pick. The lot set the pick order: {order}. Each in turn "
                            f"took the first of their wishes still free") for t in texts)
    d.check("tw-leaders")
    d.tap(d.tid("tw:leaders:continue"))
    assert d.app.screen_name != "tw_leaders"


@pytest.mark.parametrize("edition", ["trade", "tariff"])
def test_upkeep_steps_confirmed_by_touch(hub, clock, start_app, edition):
    tw(hub, edition=edition, upkeep_confirm="every")
    d = start_app(hub)
    play_until(hub, lambda v: v["phase"] == "upkeep" and v["table_prompt"], clock=clock)
    d.pump()
    past_leaders(d)
    assert d.app.screen_name == "tw_upkeep"
    texts = d.texts()
    for letter, look in theme.UPKEEP.items():           # colour always with letter and name
        assert letter in texts and look["name"] in texts
    assert d.app.adapter.title(d.app.view) == ("Tariff Warz" if edition == "tariff"
                                               else "Trade Warz")
    steps_seen = []
    for _ in range(12):
        v = hub.public_view()
        if v["phase"] != "upkeep":
            break
        tp = v["table_prompt"]
        if tp is None or tp.get("step") != "step":
            play_until(hub, lambda v: v["phase"] != "upkeep" or
                       (v["table_prompt"] or {}).get("step") == "step", clock=clock)
            d.pump()
            continue
        steps_seen.append(v["game_view"]["upkeep"]["current"])
        d.check(f"tw-upkeep-{edition}")
        button = d.tid("table:confirm_step")
        assert button.text == f"Confirm {steps_seen[-1]} \u00b7 " \
                              f"{theme.UPKEEP[steps_seen[-1]]['name']}"
        d.tap(button)
        assert hub.session.records[-1]["move"] == "confirm_step"
    assert steps_seen and steps_seen == sorted(steps_seen, key="CMYK".index)


def test_a_by_hand_effect_is_answered_with_the_drawn_picker(hub, clock, start_app):
    tw(hub, upkeep_confirm="every")
    d = start_app(hub)
    play_until(hub, lambda v: (v["table_prompt"] or {}).get("step") == "manual", clock=clock)
    d.pump()
    v = hub.public_view()
    # the Now screen (whatever it is) shows the table's question with its buttons
    assert d.find(v["table_prompt"]["text"]) or \
        any(v["table_prompt"]["text"] in t for t in d.texts())
    assert "Adjust GDP\u2026" not in d.texts()
    done = d.tid("table:confirm_manual")
    d.tap(d.tid("table:adjust"))
    d.tap(d.tid("pick:what=gdp"))
    d.tap(d.tid("pick:player=2"))
    d.tap(d.tid("pick:by:plus"))
    d.tap(d.tid("pick:by:plus"))
    d.check("tw-adjust-picker")
    before = hub.public_view()["game_view"]["gdp"][2]
    d.tap(d.tid("pick:send"))
    rec = hub.session.records[-1]
    assert rec["move"] == "adjust" and rec["args"] == {"what": "gdp", "player": 2, "by": 2}
    assert hub.public_view()["game_view"]["gdp"][2] == before + 2
    assert done.text
    d.tap(d.tid("table:confirm_manual"))
    assert hub.session.records[-1]["move"] == "confirm_manual"


def test_the_trade_timer_starts_with_the_first_export(hub, clock, start_app):
    tw(hub)
    d = start_app(hub)
    play_until(hub, lambda v: v["phase"] == "trade", clock=clock)
    d.pump()
    assert d.app.screen_name == "timer"
    assert any("starts when the first Export is placed" in t for t in d.texts())
    assert hub.public_view()["timers"] == {}
    play_until(hub, lambda v: v["timers"], clock=clock, bot="greedy")
    d.pump()
    digits = d.app.screen("timer").ids.digits
    trade = hub.public_view()["timers"]["trade"]
    assert digits.text == f"{int(trade['duration']) // 60}:00"
    # a status for every player ("trading · 1 placed"; the toast tells the placement too)
    assert sum(t.endswith(" placed") for t in d.texts()) == 4
    clock.advance(trade["duration"] - 29.5)
    d.app._tick()
    d.pump()
    assert digits.text == "0:30" and d.app.screen("timer").mode == "warning"
    assert len(d.app.sounds_played) == 1
    d.check("tw-trade-timer-warning")
    d.tap(d.tid("timer:pause"))
    assert hub.public_view()["timers"]["trade"]["paused"]
    assert "Paused" in d.texts()


def test_a_tap_starts_the_trade_timer(hub, clock, start_app):
    tw(hub)
    d = start_app(hub)
    play_until(hub, lambda v: v["phase"] == "trade", clock=clock)
    d.pump()
    assert hub.public_view()["timers"] == {}
    d.tap(d.tid("timer:start"))
    d.pump()
    t = hub.public_view()["timers"]["trade"]
    assert t["duration"] in (120, 180)                  # 2:00 under Port Strike
    assert d.app.screen("timer").ids.digits.text == f"{int(t['duration']) // 60}:00"
    d.check("tw-trade-timer-tapped")


def policy_check(hub, clock, d):
    play_until(hub, lambda v: (v["table_prompt"] or {}).get("step") == "policy_check",
               clock=clock, bot="greedy")
    d.pump()


def test_the_policy_reveal_is_a_card_per_player(hub, clock, start_app):
    tw(hub)
    d = start_app(hub)
    policy_check(hub, clock, d)
    assert d.app.screen_name == "tw_policies"
    reveal = hub.public_view()["game_view"]["policy_reveal"]
    texts = d.texts(clip=len(reveal) <= 4)            # four cards fit without scrolling
    for r in reveal.values():
        assert (r["name"] or "No Policy") in texts or "Fast-Pass" in texts
        if r["text"]:
            assert r["text"] in texts                   # the card's text, whole
    d.check("tw-policies")
    d.tap(d.tid("table:resolve_policies"))
    assert hub.session.records[-1]["move"] == "resolve_policies"


def test_every_scan_is_acknowledged_and_a_mismatch_is_settled_by_a_tap(hub, clock, start_app):
    tw(hub)
    d = start_app(hub)
    policy_check(hub, clock, d)
    st = hub.session.state
    reveal = {int(k): r for k, r in hub.public_view()["game_view"]["policy_reveal"].items()}
    chosen = [s for s, r in reveal.items() if r["card"]]
    # a matching scan: acknowledged with the card's name
    s0 = chosen[0]
    phone(hub.scan, reveal[s0]["card"])
    d.pump()
    assert "Card scanned \u2713" in d.texts()
    assert any(reveal[s0]["name"] in t and "Matches" in t for t in d.texts())
    d.check("tw-scan-matched")
    # a Policy someone holds but did not choose: a mismatch, under its own heading
    ix = hub.session.game.ix(st)
    other = next((s, c) for s in chosen[1:] for c in st.data.hands[s]
                 if c in ix.policies and c != reveal[s]["card"])
    phone(hub.scan, other[1])
    d.pump()
    assert "Scanned card does not match" in d.texts()
    assert "Card not recognised" not in d.texts()
    v = hub.public_view()
    assert v["table_prompt"]["step"] == "mismatch"
    keep = d.tid("table:settle_mismatch:keep=chosen")
    assert keep.text.startswith("Keep the phone's choice")
    d.check("tw-scan-mismatch")
    d.tap(keep)
    rec = hub.session.records[-1]
    assert rec["move"] == "settle_mismatch" and rec["args"]["keep"] == "chosen"
    # settled: the red banner has done its work (issue 34: it stayed until the phase ended);
    # the screen says what the table kept
    assert "Scanned card does not match" not in d.texts()
    assert "Scanned card settled" in d.texts()
    assert any("Settled: the table kept the phone's choice." in t for t in d.texts())
    d.check("tw-scan-settled")
    d.tap(d.tid("table:resolve_policies"))
    play_until(hub, lambda v: v["phase"] != "policy", clock=clock, bot="greedy")
    d.pump()
    assert "Scanned card does not match" not in d.texts()   # its phase ended: gone


def test_the_flip_lists_every_export_and_the_disputes_show_at_once(hub, clock, start_app):
    tw(hub)
    d = start_app(hub)
    play_until(hub, lambda v: v["phase"] == "exports", clock=clock, bot="greedy")
    d.pump()
    assert d.app.screen_name == "tw_flip"
    gv = hub.public_view()["game_view"]
    texts = d.texts(clip=False)                        # a long list scrolls
    assert gv["flip"]
    for x in gv["flip"]:
        assert x["partner_name"] in texts and f"Slot {x['slot']}" in texts
        assert x["player"] in texts and (x["name"] or "no card") in texts
    d.check("tw-flip")
    # every flipped card on the reader: each row says so on one line ("contested · scanned")
    for x in gv["flip"]:
        if x.get("card"):
            phone(hub.scan, x["card"])
    d.pump()
    from ui.screens.trade_warz import FlipRow
    rows = d.widgets(FlipRow, clip=False)
    assert rows and all(r.state.endswith("\u00b7 scanned") for r in rows if r.card != "no card")
    for r in rows:
        assert r.contested == (r.state.startswith("contested"))
    d.check("tw-flip-scanned")
    contests = gv["disputes"]["contests"]
    d.tap(d.tid("tab:tw_disputes"))
    if contests:
        assert "No contested slots this round." not in d.texts()
        for c in contests:
            assert c["label"] in d.texts(clip=False)
    d.check("tw-disputes-at-flip")


def test_disputes_order_locks_and_checked_reveal(hub, clock, start_app):
    tw(hub)
    d = start_app(hub)
    play_until(hub, lambda v: v["phase"] == "disputes" and any(
        c["state"] == "bidding" for c in v["game_view"]["disputes"]["contests"]),
        clock=clock, bot="greedy")
    d.pump()
    assert d.app.screen_name == "tw_disputes"
    v = hub.public_view()
    gv = v["game_view"]
    order = [v["players"][s] for s in gv["disputes"]["order"]]
    chips = [w.name for w in d.widgets() if type(w).__name__ == "TWOrderChip"][::-1]
    assert chips == order                                   # poorest first
    gdps = [gv["gdp"][s] for s in gv["disputes"]["order"]]
    assert gdps == sorted(gdps)
    assert any("bidding\u2026" in t for t in d.texts())
    waiting = v["waiting"]
    phone(hub.submit, waiting[0], "bid", {"amount": 0})
    d.pump()
    assert "\u2713 bid locked" in d.texts()
    d.check("tw-disputes-bidding")
    play_until(hub, lambda v: any(c["state"] in ("revealed", "done")
                                  for c in v["game_view"]["disputes"]["contests"]),
               clock=clock, bot="greedy")
    d.pump()
    if hub.public_view()["phase"] == "disputes":
        texts = d.texts()
        settled = [c for c in hub.public_view()["game_view"]["disputes"]["contests"]
                   if c["state"] in ("revealed", "done")]
        assert any("\u2713 bids match their commitments" in t for t in texts)
        assert sum(" = " in t for t in texts) >= sum(len(c["seats"]) for c in settled)
        # the chips give the GDP the order was set by (bids paid since change it): still
        # poorest first, as the headline says
        details = [w.detail for w in d.widgets() if type(w).__name__ == "TWOrderChip"][::-1]
        then = [int(x.split(" ")[0]) for x in details]
        assert then == sorted(then), details
        d.check("tw-disputes-settled")


def test_gdp_track_with_the_boom_line_and_income_explained(hub, clock, start_app):
    tw(hub)
    d = start_app(hub)
    play_until(hub, lambda v: v["round"] == 3 and v["phase"] == "draw", clock=clock,
               bot="greedy")
    d.pump()
    d.tap(d.tid("tab:scores"))
    data = d.app.screen("scores").ids.chart.data
    assert data.target[0] == 50 and "50 GDP" in data.target[1]
    assert all(len(s.points) == 2 for s in data.series)
    assert any(t.startswith("Income +") for t in d.texts())
    d.check("tw-scores")


def test_the_round_screen_names_the_reveal_and_next_goes_on(hub, clock, start_app):
    tw(hub)
    d = start_app(hub)
    policy_check(hub, clock, d)
    d.tap(d.tid("tab:round"))
    assert d.app.screen_name == "round"
    texts = d.texts(clip=False)
    assert any(t.startswith("Policies revealed: scan them") for t in texts)
    assert "Policies revealed" in texts                 # who revealed which Policy
    ring = d.app.screen("round").ids.ring
    assert ring.phases[ring.current] == "Policy" and "Leader pick" not in ring.phases
    d.check("tw-round-policy")
    d.tap(d.tid("table:resolve_policies"))
    assert (hub.public_view()["table_prompt"] or {}).get("step") != "policy_check"
    assert hub.session.records[-1]["move"] == "resolve_policies"


def test_check_a_card_without_the_reader_lists_this_rounds_exports(hub, clock, start_app):
    """Issue 22: the button looked the same a round later and kept its first round's
    question, so "Check a card without the reader" listed the previous round's Exports. And
    a few long answers ("Ann at The Confederation of Neutralia slot 1") overflowed their
    buttons."""
    tw(hub)
    d = start_app(hub)

    def listed():
        return sorted(b.text.split("\n")[0] for b in d.widgets(clip=False)
                      if getattr(b, "tid", "").startswith("pick:card="))

    def legal():
        v = hub.public_view()
        m = next(m for m in v["table_legal"] if m["move"] == "scan_card")
        return sorted(o["label"] for o in m["args"][0]["options"])

    seen = []
    for rnd in (1, 2):
        play_until(hub, lambda v: v["phase"] == "exports" and v["round"] == rnd and
                   v["table_prompt"], clock=clock, bot="greedy")
        d.pump()
        assert d.app.screen_name == "tw_flip"
        d.tap(d.tid("table:scan_card"))
        assert listed() == legal()
        seen.append(listed())
        d.check(f"tw-check-card-round-{rnd}")
        d.tap(d.tid("pick:cancel"))
    assert seen[0] != seen[1]
    # a short list of long answers: every button holds its words
    st = hub.session.state
    left = [p for p in st.data.trade.placements if p["state"] == "up" and not p.get("checked")]
    for p in left[2:]:
        phone(hub.scan, p["card"])
    d.pump()
    d.tap(d.tid("table:scan_card"))
    assert len(listed()) == min(2, len(left))
    d.check("tw-check-card-few")


def test_a_later_round_s_trade_shows_its_time_before_the_timer_starts(hub, clock, start_app):
    """Round 2's Trade, before the first Export: the digits' place shows the time the timer
    will run, muted, "Not started" (issue 22: the panel above the player rows was blank), and
    the Start button names the same time."""
    tw(hub, seed=3)
    d = start_app(hub)
    v = play_until(hub, lambda v: v["round"] == 2 and v["phase"] == "trade", clock=clock,
                   bot="greedy")
    d.pump()
    past_leaders(d)
    assert d.app.screen_name == "timer"
    seconds = v["game_view"]["trade"]["seconds"]
    shown = f"{int(seconds) // 60}:{int(seconds) % 60:02d}"
    texts = d.texts()
    assert shown in texts and "Not started" in texts, texts
    assert f"Start the {shown} timer" in texts
    d.check("tw-trade-round-2-ready")
    d.tap(d.tid("timer:start"))
    d.pump()
    assert "Not started" not in d.texts() and "Pause" in d.texts()
