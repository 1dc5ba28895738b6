"""The frame around every screen, from the game nights' findings: Home's left column with
eight player counts and a banner, the top bar on Home after a game, the toast (centred, and
nothing of a closed app's toast reaching the next app), a refused Undo that says why, signs
the fonts cannot draw, the join QR in the Menu."""
import threading
import time

from kivy.base import EventLoop
from kivy.core.window import Window
from kivy.uix.modalview import ModalView
from PIL import Image
from pyzbar.pyzbar import decode

from ui.theme import FONT_BOLD, FONT_SYM, sym
from ui.widgets.common import TLabel
from ui.widgets.dialogs import UndoDialog

from .conftest import kv_app
from .harness import missing_glyphs, play_until

NAMES = ["Ann", "Bo", "Cy", "Di"]


def start_gp(hub, seed=5):
    hub.configure("great-powers", players=4, names=NAMES)
    hub.start(seed=seed)


def test_home_keeps_its_heading_with_eight_player_counts_and_a_banner(hub, start_app):
    d = start_app(hub, simulated_hardware_note="Simulated hardware: the card reader is the "
                                               "keyboard and the buzzer is a beep.")
    d.tap(d.tid("home:game:great-powers"))        # 3-8 players: two rows of counts
    d.check("frame-home-gp-banner")
    [head] = d.find("Game")
    sm = d.app.root.ids.sm
    assert head.to_window(*head.pos)[1] + head.height <= sm.to_window(*sm.pos)[1] + sm.height
    d.tap(d.tid("home:players:8"))                # the last count: scrolled to, and tapped
    d.wait_for(lambda: d.app.screen("home").players == 8)  # (a scroll view's tap: 0.2 s)
    d.tap(d.tid("banner:dismiss"))
    d.check("frame-home-gp")


def test_home_top_bar_shows_home_after_a_game_is_over(hub, start_app):
    start_gp(hub)
    d = start_app(hub)
    hub.end_game()
    d.pump()
    assert d.app.screen_name == "victory" and "Game over" in d.texts()
    d.tap(d.tid("victory:new"))
    assert d.app.screen_name == "home"
    texts = d.texts()
    assert d.app.top_title == "Table Companion" and "Table Companion" in texts
    assert not any("Game over" in t or "Turn " in t for t in texts), texts
    d.check("frame-home-after-game")


def test_the_toast_is_whole_and_covers_no_button_whatever_its_length(hub, start_app):
    """The toast is as wide as its text (wrapped at 80% of the screen) and goes where it covers
    no button (issue 34: low in the middle it covered Home's "Set up a new game", Victory's
    Scores and New game)."""
    d = start_app(hub)
    root = d.app.root
    for text in ("Short.", "A much longer message that the table has to read in full, "
                 "so it wraps onto a second line inside the toast box."):
        d.app.show_toast(text)
        d.pump()
        toast = root.ids.toast
        assert toast.opacity == 1 and toast.room, text
        assert 0 <= toast.x and toast.right <= root.width and 0 <= toast.y and \
            toast.top <= root.height, (text, toast.pos)
        assert toast.width <= root.width * 0.8 + d.app.u * 36 + 1
        assert d.problems() == []           # legible, and over no button (Driver.covered)
    d.check("frame-toast")


def test_a_closed_apps_toast_does_not_take_the_next_apps_kv_rules(hub, start_app):
    """A toast still showing when its app closes used to fire into the next test's frames:
    kv's ``app`` proxy then took the old app for good and the new screen read a closed
    table."""
    first = start_app(hub)
    first.app.show_toast("Still showing when the app closes.", seconds=0.2)
    first.pump()
    Window.remove_widget(first.app.root)
    first.app.close()
    first.app.dispatch("on_stop")
    time.sleep(0.3)
    for _ in range(5):                             # frames with no app on screen
        EventLoop.idle()
    assert kv_app() is not first.app
    second = start_app(hub)                        # (asserts its rules talk to it)
    for _ in range(3):
        EventLoop.idle()
    assert kv_app() is second.app and second.app.root.ids.toast.text == ""


def test_a_refused_undo_says_why_and_can_be_tapped_again(hub, start_app):
    start_gp(hub)
    d = start_app(hub)
    hub.submit(0, "submit_bids", {"traits": ["navy", "army", "colony"]})
    d.pump()
    seq = hub.session.state.seq
    d.tap(d.tid("undo"))
    [dlg] = [w for w in Window.children if isinstance(w, UndoDialog)]
    gate = threading.Event()
    assert d.app.command(gate.wait, 30)            # a slow command still running
    d.tap(d.tid("undo:go"), pump=False)
    EventLoop.idle()
    assert dlg in Window.children, "the dialog closed as if it had undone"
    assert dlg.refused == UndoDialog.BUSY and UndoDialog.BUSY in d.texts()
    assert hub.session.state.seq == seq
    d.check("frame-undo-refused")
    gate.set()
    d.pump()
    d.tap(d.tid("undo:go"))
    assert hub.session.state.seq == seq - 1
    assert dlg not in Window.children


def test_the_check_finds_signs_a_font_cannot_draw(hub, start_app):
    start_app(hub)
    assert missing_glyphs(TLabel(text="\u2713 done", font_name=FONT_BOLD)) == ["\u2713"]
    assert missing_glyphs(TLabel(text="\u2713 done", font_name=FONT_SYM)) == []
    assert missing_glyphs(TLabel(text=sym("Card scanned \u2713"), markup=True,
                                 font_name=FONT_BOLD)) == []
    assert missing_glyphs(TLabel(text="Turn 1 of 1 \u00b7 Action \u2212", font_name=FONT_BOLD)) \
        == []


def test_the_menu_shows_the_join_qr_during_a_game(hub, start_app):
    start_gp(hub)
    hub.join_url = f"http://table.local:8080/?room={hub.room_code}"
    d = start_app(hub)
    d.tap(d.tid("menu"))
    d.check("frame-menu-playing")
    d.tap(d.tid("menu:join"))
    assert not any(type(w).__name__ == "TableMenu" for w in Window.children)
    path = d.check("frame-join-qr")
    codes = decode(Image.open(path))
    assert [c.data.decode() for c in codes] == [hub.join_url]
    assert hub.room_code in " ".join(d.texts())
    d.tap(d.tid("join:close"))
    assert not [w for w in Window.children if isinstance(w, ModalView)]


def test_a_paused_timer_and_an_alert_leave_the_digits_and_the_top_bar_legible(hub, clock,
                                                                              start_app):
    """The night's restart: Battle Builder's turn timer paused ("Paused 1:59" on the top bar,
    beside "Battle 1 of 4 · Monster battle") under the restart alert's two lines."""
    hub.configure("battle-builder", players=4, names=NAMES,
                  options={"arc": "4+1", "turn_seconds": 120})
    hub.start(seed=8)
    d = start_app(hub)
    play_until(hub, lambda v: v["phase"] == "battle" and any(
        not t["paused"] for t in v["timers"].values()), clock=clock)
    hub.toggle_pause()
    hub.alert("restart", "The table restarted: the 2 turn timers are paused at 1:59. Tap "
                         "Resume when everyone is ready.")
    d.pump()
    assert d.app.timer_mode == "paused"
    d.check("frame-battle-paused-alert")
    status = d.app.root.ids.top.ids.status
    assert status.text in (d.app.top_status, d.app.top_status_short)
    d.tap(d.tid("timer-chip"))
    assert d.app.screen_name == "timer" and "Resume" in d.texts()
    digits = d.app.screen("timer").ids.digits
    assert digits.texture_size[1] <= digits.height + 2
    d.check("frame-timer-paused-alert")
    for size in ((1280, 720), (1920, 1080)):
        Window.size = size
        d.pump()
        d.check(f"frame-timer-paused-alert-{size[0]}")


def test_the_score_charts_names_never_pile_up_at_its_top(hub, start_app):
    """Close scores near the top of a short chart: the names at the line ends were nudged up
    and then each clamped to the top, so two were drawn over each other (seen once in the
    full-round test on a loaded machine). The stack now moves down instead."""
    from ui.adapters import ScoreData, Series
    from ui.widgets.chart import ScoreChart
    start_app(hub)
    chart = ScoreChart(size_hint=(None, None), size=(420, 160), pos=(0, 0))
    chart.data = ScoreData("GDP", "GDP", [Series(s, n, [10, v]) for s, (n, v) in
                                          enumerate(zip(NAMES, [50, 49, 50, 48]))])
    chart.redraw()
    names = [r for r in chart.text_rects if r[0] > 300]      # the ones right of the lines
    assert len(names) == 4
    for i, a in enumerate(names):
        for b in names[i + 1:]:
            assert a[3] <= b[1] or b[3] <= a[1], (a, b)        # one above the other
