"""Alert banners on every screen of every game at 800x480 (issue 34): with two banners up (the
hardware note and a long alert, the most the stack shows), each game is played to its end by its
bots while the real table screen follows; the first time the screen shows each (screen, phase,
table question) it is saved under screenshots/ui/ and checked as test_every_screen checks it,
and no button a player may tap is covered (the banners squash the screen below them, they must
not push its buttons under themselves or off the screen). Each rail tab and the Victory screen
are checked too."""
import random

import pytest

from .harness import bot_step

NAMES = ["Ann", "Eleanor of Aquitaine", "Cyrus", "Dmitri", "Bo", "Fen"]
GAMES = [("great-powers", 5, {}), ("trade-warz", 6, {"edition": "trade"}),
         ("battle-builder", 3, {"arc": "4+1"}), ("market-trading", 4, {})]
CONTINUE = ("gp:continue", "gp:recap:continue", "tw:leaders:continue")
NOTE = "Simulated hardware: buzzer, lights, buttons and card reader are simulated here."
ALERT = ("The card reader was unplugged. Plug it in again, or type the card's code on a "
         "phone; the game goes on.")


@pytest.mark.parametrize("game,n,options", GAMES,
                         ids=[f"{g}-{o.get('edition', n)}" for g, n, o in GAMES])
def test_two_banners_cover_no_button(hub, clock, start_app, game, n, options):
    hub.configure(game, players=n, names=NAMES[:n], options=options)
    hub.start(seed=11)
    d = start_app(hub, simulated_hardware_note=NOTE)
    hub.alert("reader", ALERT)
    d.pump()
    rng = random.Random(11)
    tag = f"banners-{game}-{options.get('edition', n)}"
    keys, tabs_done = set(), False
    for _ in range(6000):
        v = hub.public_view()
        app = d.app
        assert [b.more for b in app.root.ids.banners.children] == ["+1 more"], "the banners went"
        key = (app.screen_name, v.get("phase"), (v.get("table_prompt") or {}).get("step"))
        if key not in keys:
            keys.add(key)
            d.check(f"{tag}-{key[0]}-{key[1]}" + (f"-{key[2]}" if key[2] else ""))
            shown = d.tids()
            for tid in CONTINUE:
                if tid in shown:
                    d.tap(d.tid(tid))
        if not tabs_done and v.get("round", 0) >= 2:
            tabs_done = True
            for screen, _label in app.tabs:
                d.tap(d.tid(f"tab:{screen}"))
                d.check(f"{tag}-tab-{screen}")
            d.tap(d.tid("tab:now"))
        if v.get("outcome") is not None:
            break
        bot_step(hub, rng, clock, "greedy")
        d.app.bridge._flush(0)
    d.pump()
    assert d.app.screen_name == "victory"
    d.check(f"{tag}-victory")
    assert tabs_done and len(keys) >= 4


def test_a_dismissed_banner_moves_nothing_under_a_finger(hub, start_app):
    """Issue 34: dismissing the Home screen's hardware note moved everything up 54 px, and a
    tap meant for "3" players missed. The banner's room stays until the screen changes."""
    d = start_app(hub, simulated_hardware_note=NOTE)
    from ui.widgets.common import TButton
    d.tap(d.one("Battle Builder", TButton))
    assert "Simulated hardware" in d.texts()

    def places():
        return {w.tid: w.window_rect() for w in d.widgets(TButton)
                if w.tid and not w.tid.startswith("banner:")}
    before = places()
    assert "home:players:3" in before and "home:setup" in before, before
    d.tap(d.tid("banner:dismiss"))
    assert "Simulated hardware" not in d.texts()
    assert places() == before
    d.check("home-banner-dismissed")
    d.tap(d.one("Set up a new game", TButton))          # another screen: the room goes
    assert d.app.root.ids.banners.height == 0
