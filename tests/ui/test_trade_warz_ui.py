"""Trade Warz / Tariff Warz through the real screens: the blind Leader pick in the lobby, the
CMYK Upkeep with a confirm per step and a hand-resolved effect, the Trade timer started by the
first Export, the disputes (poorest first, locks, reveal checked), the GDP track."""
import threading

import pytest
from kivy.core.window import Window

from ui import theme
from ui.widgets.common import TButton

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


@pytest.mark.parametrize("edition", ["trade", "tariff"])
def test_upkeep_steps_confirm_and_a_manual_effect(hub, clock, start_app, edition):
    tw(hub, edition=edition, upkeep_confirm="every")
    d = start_app(hub)
    play_until(hub, lambda v: v["phase"] == "upkeep" and v["table_prompt"], clock=clock)
    d.pump()
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
        if tp is None:
            play_until(hub, lambda v: v["phase"] != "upkeep" or v["table_prompt"],
                       clock=clock)
            d.pump()
            continue
        if tp["step"] == "step":
            steps_seen.append(v["game_view"]["upkeep"]["current"])
            d.check(f"tw-upkeep-{edition}")
            d.tap(d.one(f"Confirm {steps_seen[-1]} \u00b7 "
                        f"{theme.UPKEEP[steps_seen[-1]]['name']}", TButton))
        else:
            assert tp["step"] == "manual"
            targets = tp.get("targets") or [0]
            gdp = list(v["game_view"]["gdp"])
            d.tap(d.one("Adjust GDP\u2026", TButton))
            d.check(f"tw-manual-{edition}")
            dialog = [w for w in Window.children if type(w).__name__ == "ManualDialog"][0]
            row = dialog.ids.rows.children[-1]              # the first target's row
            plus = [b for b in row.children if getattr(b, "text", "") == "+1"][0]
            d.tap(plus)
            d.tap(dialog.ids.ok)
            rec = hub.session.records[-1]
            assert rec["move"] == "confirm_manual"
            assert rec["args"] == {"gdp": {str(targets[0]): 1}}
            assert hub.public_view()["game_view"]["gdp"][targets[0]] >= gdp[targets[0]]
    assert steps_seen and steps_seen == sorted(steps_seen, key="CMYK".index)


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
    assert digits.text == "3:00"
    assert sum("placed" in t for t in d.texts()) == 4      # a status for every player
    clock.advance(150.5)
    d.app._tick()
    d.pump()
    assert digits.text == "0:30" and d.app.screen("timer").mode == "warning"
    assert len(d.app.sounds_played) == 1
    d.check("tw-trade-timer-warning")
    d.tap(d.one("Pause", TButton))
    assert hub.public_view()["timers"]["trade"]["paused"]
    assert "Paused" in d.texts()


def test_a_tap_starts_the_trade_timer(hub, clock, start_app):
    tw(hub)
    d = start_app(hub)
    play_until(hub, lambda v: v["phase"] == "trade", clock=clock)
    d.pump()
    assert hub.public_view()["timers"] == {}
    d.tap(d.one("Start the 3:00 timer", TButton))
    d.pump()
    assert hub.public_view()["timers"]["trade"]["duration"] == 180
    assert d.app.screen("timer").ids.digits.text == "3:00"
    d.check("tw-trade-timer-tapped")


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
    play_until(hub, lambda v: any(c["state"] == "done"
                                  for c in v["game_view"]["disputes"]["contests"]),
               clock=clock, bot="greedy")
    d.pump()
    if hub.public_view()["phase"] == "disputes":
        assert any("\u2713 bids match their commitments" in t for t in d.texts())
        d.check("tw-disputes-settled")


def test_gdp_track_with_the_boom_line_and_income_explained(hub, clock, start_app):
    tw(hub)
    d = start_app(hub)
    play_until(hub, lambda v: v["round"] == 3 and v["phase"] == "draw", clock=clock,
               bot="greedy")
    d.pump()
    d.tap(d.one("Scores", TButton))
    data = d.app.screen("scores").ids.chart.data
    assert data.target[0] == 50 and "50 GDP" in data.target[1]
    assert all(len(s.points) == 2 for s in data.series)
    assert any(t.startswith("Income +") for t in d.texts())
    d.check("tw-scores")


def test_the_round_screen_names_the_reveal_and_next_goes_on(hub, clock, start_app):
    tw(hub)
    d = start_app(hub)
    play_until(hub, lambda v: (v["table_prompt"] or {}).get("step") == "policy_check",
               clock=clock, bot="greedy")
    d.pump()
    assert d.app.screen_name == "round"
    texts = d.texts()
    assert any(t.startswith("Policies revealed: scan them") for t in texts)
    assert "Policies revealed" in texts                 # who revealed which Policy
    ring = d.app.screen("round").ids.ring
    assert ring.phases[ring.current] == "Policy" and "Leader pick" not in ring.phases
    d.check("tw-round-policy")
    d.tap(d.one("Next", TButton))
    assert (hub.public_view()["table_prompt"] or {}).get("step") != "policy_check"
    assert hub.session.records[-1]["move"] == "resolve_policies"
