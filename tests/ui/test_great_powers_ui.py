"""Great Powers through the real screens: touches on Home, Lobby, the board, the reveal, the
action cards, Undo, Fix and the banners; phones play from other threads as they would."""
import threading

from kivy.core.window import Window

from companion.core.errors import IllegalMoveError
from ui.widgets.common import TButton
from ui.widgets.dialogs import CorrectionDialog, UndoDialog


def phone(fn, *args):
    """Run a hub call on another thread, as the MQTT bridge would."""
    t = threading.Thread(target=fn, args=args)
    t.start()
    t.join()


def button(d, text):
    return d.one(text, TButton)


def test_home_to_lobby_to_the_board_by_touch(hub, start_app):
    d = start_app(hub)
    assert d.app.screen_name == "home"
    d.tap(button(d, "Great Powers"))
    d.tap(button(d, "5"))
    d.tap(button(d, "All"))                     # the "ties" variant
    d.tap(button(d, "Set up a new game"))
    assert d.app.screen_name == "lobby"
    assert hub.game_name == "great-powers" and len(hub.seats) == 5
    assert hub.options["ties"] == "all"
    assert d.find(hub.room_code, exact=False)
    for name in ("Ann", "Bo", "Cy"):
        phone(hub.join, name, hub.room_code)
    phone(hub.set_presence, 0, True)
    d.pump()
    assert "3 of 5 phones joined" in d.texts()
    assert "online" in d.texts() and "no phone yet" in d.texts()
    d.tap(button(d, "Start the game"))
    assert d.app.screen_name == "gp_powers"
    assert hub.session.state.players[:3] == ["Ann", "Bo", "Cy"]
    assert "Bids: 0 of 5 locked in" in d.texts()


def test_back_from_the_lobby_keeps_the_choice(hub, start_app):
    hub.configure("great-powers", players=4)
    d = start_app(hub)
    assert d.app.screen_name == "lobby"
    d.tap(button(d, "Back"))
    assert d.app.screen_name == "home"
    assert button(d, "4").selected and button(d, "Great Powers").selected


def test_the_join_qr_code_reads_back_as_the_join_link(hub, start_app, tmp_path):
    from PIL import Image
    from pyzbar.pyzbar import decode
    hub.configure("great-powers", players=3)
    hub.join_url = f"http://table.local:8080/j/{hub.room_code}"
    d = start_app(hub)
    path = d.check("lobby-qr-check")
    codes = decode(Image.open(path))
    assert [c.data.decode() for c in codes] == [hub.join_url]


def start_gp(hub, n=4, seed=5):
    hub.configure("great-powers", players=n, names=["Ann", "Bo", "Cy", "Di", "Ed"][:n])
    hub.start(seed=seed)


def bid_all(hub, d=None, threads=True):
    v = hub.public_view()
    for seat in v["waiting"]:
        allowed = [t for t in ("navy", "army", "colony", "industry", "population",
                               "nationalism") if t not in v["game_view"]["blocked"][seat]]
        n = v["game_view"]["bid_slots"][seat]
        args = (seat, "submit_bids", {"traits": allowed[seat % 2:][:n]})
        if threads:
            phone(hub.submit, *args)
        else:
            hub.submit(*args)


def test_locks_fill_in_then_the_reveal_plays_in_sequence(hub, start_app):
    start_gp(hub)
    d = start_app(hub)
    phone(hub.submit, 1, "submit_bids", {"traits": ["navy", "army", "colony"]})
    d.pump()
    texts = d.texts()
    assert "Bids: 1 of 4 locked in" in texts
    assert texts.count("\u2713 locked") == 1 and texts.count("choosing 3") == 3
    bid_all(hub)
    d.pump()
    assert d.app.screen_name == "gp_reveal"
    reveal = d.app.screen("gp_reveal")
    assert reveal.shown == 1 and reveal.total == 12
    reveal._advance()
    d.pump()
    assert reveal.shown == 2
    d.tap(button(d, "Show all"))
    assert reveal.shown == 12
    assert any("4 sealed bids match their commitments" in t for t in d.texts())
    d.tap(button(d, "Continue"))
    assert d.app.screen_name == "gp_action"


def test_closing_the_bids_takes_two_taps(hub, start_app):
    start_gp(hub, n=3)
    d = start_app(hub)
    phone(hub.submit, 0, "submit_bids", {"traits": ["navy", "army", "colony"]})
    d.pump()
    d.tap(button(d, "Close the bids"))
    assert hub.public_view()["phase"] == "bid"          # armed, not fired
    d.tap(button(d, "Tap again: missing bids = none"))
    assert hub.public_view()["phase"] == "action"
    assert any("No bid from Bo, Cy (closed by the table)" in t for t in d.texts())


def test_an_action_card_by_touch_then_undo_then_pass(hub, start_app):
    start_gp(hub)
    d = start_app(hub)                  # the screen sees the reveal happen, and moves on
    bid_all(hub, threads=False)
    d.pump()
    d.tap(button(d, "Continue"))
    v = hub.public_view()
    seat = v["waiting"][0]
    card = next(c for c in v["game_view"]["face_up"] if not c["target"])
    d.tap(d.one(card["name"]))
    d.check("gp-action-dialog")
    d.tap(button(d, "Take and discard"))
    v2 = hub.public_view()
    assert v2["game_view"]["taken"][str(seat)] == {"card": card["id"], "resolved": False,
                                                  "target": None}
    d.tap(button(d, "Undo"))
    dialogs = [w for w in Window.children if isinstance(w, UndoDialog)]
    assert dialogs and dialogs[0].what == f"Action taken by {v['players'][seat]}"
    # beside Undo, what happened lately: the table's story, as the phones and /watch show it
    story = [e["says"] for e in reversed(hub.public_view()["story"])]
    assert dialogs[0].story == story[:UndoDialog.LINES] and len(dialogs[0].story) >= 2
    assert dialogs[0].story[0] in d.texts()
    d.check("undo-dialog")
    d.tap(dialogs[0].ids.go)
    assert str(seat) not in hub.public_view()["game_view"]["taken"]
    assert any("Undone: Action taken" in t for t in d.texts())
    d.tap(button(d, f"{v['players'][seat]} passes"))
    assert hub.public_view()["game_view"]["taken"][str(seat)] is None


def test_a_refused_move_says_why_and_changes_nothing(hub, start_app):
    start_gp(hub)
    d = start_app(hub)                  # the screen sees the reveal happen, and moves on
    bid_all(hub, threads=False)
    d.pump()
    d.tap(button(d, "Continue"))
    v = hub.public_view()
    card = next(c for c in v["game_view"]["face_up"] if c["target"])
    d.tap(d.one(card["name"]))
    resolve = button(d, "Resolve")
    assert resolve.disabled                          # a target first
    seat = v["waiting"][0]
    other = next(n for s, n in enumerate(v["players"]) if s != seat)
    d.tap(button(d, other))
    assert not resolve.disabled
    hub.session.state.data.tokens[seat].update({t: 0 for t in ("industry", "population",
                                                                "nationalism", "navy",
                                                                "army", "colony")})
    before = hub.session.state.fingerprint()
    d.tap(resolve)
    if hub.session.state.fingerprint() == before:    # the card had a cost: refused, said why
        assert d.app.toast and "costs" in d.app.toast
    else:
        assert hub.public_view()["game_view"]["taken"][str(seat)]["resolved"]


def test_fix_a_count_through_the_dialog(hub, start_app):
    start_gp(hub)
    d = start_app(hub)
    d.tap(button(d, "Fix"))
    dlg = next(w for w in Window.children if isinstance(w, CorrectionDialog))
    assert not dlg.ids.apply.disabled is True or dlg.delta == 0
    d.tap(button(d, "Bo"))
    d.tap(button(d, "Navy"))
    d.tap(button(d, "+1"))
    d.tap(button(d, "+1"))
    d.tap(button(d, "Card misread"))
    assert "Bo: Navy 5 +2 = 7" in d.texts()
    d.check("fix-dialog")
    d.tap(dlg.ids.apply)
    assert hub.public_view()["game_view"]["tokens"][1]["navy"] == 7
    assert hub.session.records[-1]["reason"] == "Card misread"


def unknown_card(code):
    raise IllegalMoveError(f"Unknown card: {code} is not a card of this game.")


def test_banners_for_alerts_and_dismiss(hub, start_app):
    start_gp(hub)
    d = start_app(hub, simulated_hardware_note="Reader and buttons are simulated.")
    assert "Simulated hardware" in d.texts()
    phone(hub.alert, "reader", "The card reader was unplugged.")
    phone(hub.scan, "tc1:zz", unknown_card)
    _, token = hub.join("Ann", hub.room_code)
    phone(hub.set_presence, 0, True)
    phone(hub.set_presence, 0, False)
    d.pump()
    texts = d.texts()                       # the newest one, and how many more there are
    assert "Card not recognised" in texts and "Phone disconnected" not in texts
    assert "+3 more" in texts
    assert d.clipped() == []
    d.check("banners")
    d.tap(d.in_banner("Card not recognised", "Dismiss"))
    assert "Card not recognised" not in d.texts()
    assert "Phone disconnected" in d.texts() and "+2 more" in d.texts()
    d.tap(d.in_banner("Phone disconnected", "Dismiss"))
    assert "Phone disconnected" not in d.texts()
    assert len(hub.public_view()["hub"]["alerts"]) == 3      # hidden here, not cleared
    assert "Card reader" in d.texts() and "+1 more" in d.texts()
    d.tap(d.in_banner("Card reader", "Dismiss"))
    assert "Simulated hardware" in d.texts()
    phone(hub.set_presence, 0, True)        # back online: the hub clears its alert ...
    d.pump()
    phone(hub.set_presence, 0, False)       # ... and a new disconnection shows again
    d.pump()
    assert "Phone disconnected" in d.texts()  # a dismissal lasts while the alert does


def test_a_real_box_missing_a_part_says_hardware_not_simulated(hub, start_app):
    start_gp(hub)
    d = start_app(hub, simulated_hardware_note="The undo button on GPIO 13 could not be opened "
                                                "(/dev/gpiochip0 has only lines 0-7).")
    texts = d.texts()
    assert "Hardware" in texts and "Simulated hardware" not in texts
    assert any("GPIO 13" in t for t in texts)


def test_the_last_turns_scoring_is_shown_before_the_victory_screen(hub, start_app):
    """Issue 22: the last turn's scoring was skipped (straight to Game over). It is held like
    every other turn's recap until the table taps Continue, then Victory."""
    from .harness import play_until
    hub.configure("great-powers", players=3, names=["Ann", "Bo", "Cy"], options={"turns": 2})
    hub.start(seed=5)
    d = start_app(hub)
    play_until(hub, lambda v: v["phase"] == "bid" and v["round"] == 2)
    d.pump()
    d.tap(button(d, "Continue"))                       # turn 1's recap, as before
    play_until(hub, lambda v: v["outcome"] is not None)
    d.pump()
    assert d.app.screen_name == "gp_score"
    assert any(t.startswith("Turn 2: scoring") for t in d.texts())
    d.tap(button(d, "Continue"))
    assert d.app.screen_name == "victory"
