"""The pure display helpers (no window): formatting, timers, routing, the public journal,
commitment checks, alerts, and the Great Powers recap from notices."""
import pytest

from companion.core.clock import FakeClock
from companion.core.log import MemoryLog
from companion.core.sealed import commitment
from companion.service.hub import Hub
from ui import model
from ui.adapters import GameUI, adapter_for
from ui.adapters.great_powers import ADAPTER as GP, turn_recap


@pytest.mark.parametrize("seconds,text", [(180, "3:00"), (179.01, "3:00"), (30, "0:30"),
                                          (29.4, "0:30"), (0.2, "0:01"), (0, "0:00"),
                                          (-5, "0:00"), (3600, "60:00")])
def test_countdown_rounds_up_like_a_game_clock(seconds, text):
    assert model.fmt_clock(seconds) == text


def test_timer_left_and_mode():
    t = {"deadline": 130.0, "left": 60.0, "paused": False, "warn_before": 30.0,
         "duration": 60.0}
    assert model.timer_left(t, 70.0) == 60.0
    assert model.timer_mode(t, 60.0) == "running"
    assert model.timer_mode(t, 30.0) == "warning"
    assert model.timer_mode(t, 0.0) == "done"
    paused = dict(t, deadline=None, paused=True, left=12.0)
    assert model.timer_left(paused, 999.0) == 12.0
    assert model.timer_mode(paused, 12.0) == "paused"
    no_warning = dict(t, warn_before=0)
    assert model.timer_mode(no_warning, 5.0) == "running"


def test_main_timer_prefers_a_running_one():
    view = {"timers": {"a": {"paused": True, "left": 5.0},
                       "b": {"paused": False, "left": 50.0}}}
    assert model.main_timer(view)[0] == "b"
    assert model.main_timer({"timers": {}}) == (None, None)


def test_public_notices_never_carry_a_private_one():
    ns = [{"kind": "EventPeeked", "seat": 1}, {"kind": "NextEvent", "to": 1, "name": "War"}]
    assert model.public_notices(ns) == [{"kind": "EventPeeked", "seat": 1}]


def test_journal_drops_private_notices_and_undo_takes_back_the_last_command():
    j = model.Journal()
    j.add(1, [{"kind": "A"}])
    j.add(2, [{"kind": "B"}, {"kind": "Secret", "to": 0}])
    j.add(2, [{"kind": "B"}])                        # the same version again: ignored
    assert [n["kind"] for n in j.notices()] == ["A", "B"]
    j.add(3, [{"kind": "Undone", "what": "B"}])
    assert [n["kind"] for n in j.notices()] == ["A"]


def test_window_locks_check_each_revealed_choice_against_its_commitment():
    c0 = commitment("w", 0, ["navy"], "ab" * 16)
    view = {"players": ["Ann", "Bo", "Cy"]}
    sealed = {"id": "w", "seats": [0, 1, 2], "revealed": False,
              "locked": {"0": {"commitment": c0, "defaulted": False}}}
    states = [x.state for x in model.window_locks(view, sealed)]
    assert states == ["locked", "choosing", "choosing"]
    revealed = {"id": "w", "seats": [0, 1, 2], "revealed": True, "locked": {
        "0": {"commitment": c0, "defaulted": False, "choice": ["navy"], "salt": "ab" * 16},
        "1": {"commitment": c0, "defaulted": False, "choice": ["army"], "salt": "ab" * 16},
        "2": {"commitment": "", "defaulted": True, "choice": [], "salt": ""}}}
    states = [x.state for x in model.window_locks(view, revealed)]
    assert states == ["revealed", "mismatch", "defaulted"]


def test_alert_rows_name_the_problem_and_respect_dismissal():
    view = {"hub": {"alerts": [{"kind": "scan", "message": "Unknown card"},
                               {"kind": "reader", "message": "Reader unplugged"}]}}
    rows = model.alert_rows(view)
    assert [(r[0], r[2]) for r in rows] == [("Card not recognised", "warn"),
                                           ("Card reader", "danger")]
    assert len(model.alert_rows(view, {("scan", "Unknown card")})) == 1


def test_rounds_total_from_the_view_or_the_options():
    assert model.rounds_total({"game_view": {"turns": 10}}) == 10
    assert model.rounds_total({"game_view": {}, "hub": {"options": {"rounds": 5}}}) == 5
    assert model.rounds_total({"game_view": {"rounds": True}}) is None


def _hub():
    h = Hub(MemoryLog(), clock=FakeClock(5.0))
    h.configure("great-powers", players=3, names=["Ann", "Bo", "Cy"])
    return h


def test_routing_follows_the_game_and_a_tab_holds_until_the_phase_changes():
    h = _hub()
    nav = model.Nav()
    assert model.route(h.public_view(), nav, GameUI()) == "lobby"
    nav.home = True
    assert model.route(h.public_view(), nav, GameUI()) == "home"
    nav.home = False
    h.start(seed=2)
    v = h.public_view()
    assert model.route(v, nav, GP, model.Journal()) == "gp_powers"
    nav.tab, nav.tab_at = "scores", model.where(v)
    assert model.route(v, nav, GP, model.Journal()) == "scores"
    for seat, traits in enumerate((["navy", "army", "colony"], ["navy", "army", "colony"],
                                   ["army", "navy", "industry"])):
        h.submit(seat, "submit_bids", {"traits": traits})
    v = h.public_view()
    assert v["phase"] == "action"
    assert model.route(v, nav, GP, model.Journal()) == "gp_reveal"      # the tab let go
    assert nav.tab is None
    nav.acks.add(("reveal", v["session"], 1))
    assert model.route(v, nav, GP, model.Journal()) == "gp_action"


def test_generic_route_is_the_timer_while_there_is_one_else_the_round():
    view = {"session": "s", "phase": "p", "round": 1, "outcome": None,
            "timers": {"t": {"paused": False, "left": 3}}}
    assert model.route(view, model.Nav(), GameUI()) == "timer"
    view["timers"]["t"]["paused"] = True
    assert model.route(view, model.Nav(), GameUI()) == "timer"
    view["timers"] = {}
    assert model.route(view, model.Nav(), GameUI()) == "round"
    view["outcome"] = {"winners": [0]}
    assert model.route(view, model.Nav(), GameUI()) == "victory"


def test_great_powers_recap_reads_the_turn_from_public_notices():
    ns = [{"kind": "PhaseBegan", "phase": "score", "round": 2},
          {"kind": "Scored", "trait": "army", "seats": [1], "vp": 7},
          {"kind": "EventPeeked", "seat": 0, "why": "highest Nationalism"},
          {"kind": "PhaseBegan", "phase": "event", "round": 2},
          {"kind": "EventFlipped", "event": "x", "name": "Exports", "text": "t"},
          {"kind": "EventAwarded", "event": "x", "seats": [], "vp": 10},
          {"kind": "PhaseBegan", "phase": "bid", "round": 3},
          {"kind": "Scored", "trait": "navy", "seats": [0], "vp": 5}]
    rec = turn_recap(ns, 2)
    assert [s["trait"] for s in rec["scored"]] == ["army"]
    assert rec["event"]["name"] == "Exports" and rec["awarded"]["seats"] == []
    assert rec["peeked"][0]["seat"] == 0
    assert adapter_for("great-powers") is GP
    assert type(adapter_for("no-such-game")) is GameUI


def test_the_game_ending_takes_over_a_tab_tapped_before():
    nav = model.Nav()
    playing = {"session": "s", "phase": "income", "round": 5, "outcome": None}
    nav.tab, nav.tab_at = "scores", model.where(playing)
    over = dict(playing, outcome={"winners": [0], "reason": "", "scores": {}})
    assert model.route(over, nav, GameUI()) == "victory"     # at once, same phase and round
    nav.tab, nav.tab_at = "scores", model.where(over)          # a tab tapped after the end
    assert model.route(over, nav, GameUI()) == "scores"


@pytest.mark.parametrize("result,title,tone", [
    ("matched", "Card scanned \u2713", "ok"), ("recorded", "Card scanned", "info"),
    ("read", "Card scanned", "info"), ("mismatch", "Scanned card does not match", "danger"),
    ("refused", "Scan not accepted", "warn"), ("unknown", "Card not recognised", "warn")])
def test_every_scan_has_a_banner_under_its_own_heading(result, title, tone):
    scan = {"card": "kale", "name": "Organic Kale Futures", "result": result,
            "message": "Matches what was chosen on the phone.", "at": 12.5}
    row = model.scan_row(scan)
    assert row[0] == title and row[2] == tone and row[3] == ("scan", 12.5)
    if result != "unknown":
        assert row[1].startswith("Organic Kale Futures: ")
    assert model.scan_row(None) is None


def test_a_refused_scan_shows_once_under_the_scan_heading_not_as_an_alert():
    view = {"hub": {"alerts": [{"kind": "scan", "message": "Not a card of this game."},
                               {"kind": "reader", "message": "Reader unplugged"}],
                    "scan": {"card": None, "result": "unknown", "at": 3.0,
                             "message": "Not a card of this game."}}}
    assert [r[0] for r in model.alert_rows(view)] == ["Card reader"]
    assert model.scan_row(view["hub"]["scan"])[0] == "Card not recognised"


def test_great_powers_last_turns_scoring_is_held_before_victory_until_seen():
    """The final turn's scoring is a moment like every other turn's (issue 22): the table shows
    the recap, and Victory only once it has been seen; the recap screen shows that turn."""
    ns = [{"kind": "PhaseBegan", "phase": "score", "round": 10},
          {"kind": "Scored", "trait": "army", "seats": [1], "vp": 7},
          {"kind": "PhaseBegan", "phase": "event", "round": 10},
          {"kind": "EventFlipped", "event": "x", "name": "Exports", "text": "t"},
          {"kind": "PhaseBegan", "phase": "end", "round": 10},
          {"kind": "GameEnded", "winners": [1], "reason": "most VP after turn 10"}]
    journal = model.Journal()
    journal.add(1, ns)
    over = {"session": "s", "phase": "end", "round": 10, "game": "great-powers",
            "outcome": {"winners": [1], "reason": "", "scores": {}},
            "game_view": {"turn": 10, "turns": 10}}
    nav = model.Nav()
    assert model.route(over, nav, GP, journal) == "gp_score"
    assert GP.moments_now(over, journal) == [("recap", "s", 10)]
    nav.acks.add(("recap", "s", 10))                           # the table tapped Continue
    assert model.route(over, nav, GP, journal) == "victory"
    # ended early by the table (an earlier turn): Victory at once
    early = dict(over, phase="bid", round=4, game_view={"turn": 4, "turns": 10})
    assert model.route(early, model.Nav(), GP, journal) == "victory"
    # a screen that never saw the scoring (started after the end): Victory at once
    assert model.route(over, model.Nav(), GP, model.Journal()) == "victory"


def test_the_table_says_what_happened_from_public_notices_only():
    """The table screen shows the words of the notices that carry them (issue 22), never a
    private one (a target's ActionAgainstYou)."""
    ns = [{"kind": "ActionTaken", "seat": 1},
          {"kind": "ActionResolved", "seat": 1, "says": "Bo played Assassination on Ann: ..."},
          {"kind": "ActionAgainstYou", "to": 0, "says": "Bo played Assassination on you: ..."},
          {"kind": "LastRoundWarning", "says": "No points in 1 round: ..."}]
    assert model.says(ns) == ["Bo played Assassination on Ann: ...", "No points in 1 round: ..."]
    assert model.says([]) == []
