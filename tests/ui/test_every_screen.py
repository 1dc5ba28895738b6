"""The legibility check over every screen of every game at 800x480: each design (and both
editions of Trade Warz) is played to its end by its bots through the real hub while the real
table screen follows; the first time the screen shows each (screen, phase, table question)
it is saved under screenshots/ui/ and checked: every text at least 18 px, nothing cut off,
shortened to a stub, overlapping or crossing the phase ring. Each rail tab, the menu, Undo and
Fix are checked once per game, and the Victory screen at the end. A moment held until the
table taps Continue (a reveal, a recap, the Leader pick result) is checked, then continued."""
import random

import pytest

from .harness import MIN_PX, bot_step

NAMES = ["Ann", "Eleanor of Aquitaine", "Cyrus", "Dmitri", "Bo", "Fen", "Gus", "Hal"]
GAMES = [("great-powers", 5, {}), ("trade-warz", 6, {"edition": "trade"}),
         ("trade-warz", 4, {"edition": "tariff", "rounds": 2}),
         ("battle-builder", 4, {"arc": "4+1"}), ("market-trading", 6, {})]
CONTINUE = ("gp:continue", "gp:recap:continue", "tw:leaders:continue")


def look(d, name, seen):
    path = d.check(name)
    seen.append(path.name)


@pytest.mark.parametrize("game,n,options", GAMES,
                         ids=[f"{g}-{o.get('edition', n)}" for g, n, o in GAMES])
def test_every_screen_of_the_game_is_legible(hub, clock, start_app, game, n, options):
    assert MIN_PX == 18
    hub.configure(game, players=n, names=NAMES[:n], options=options)
    hub.start(seed=7)
    d = start_app(hub)
    rng = random.Random(7)
    tag = f"every-{game}-{options.get('edition', n)}"
    seen, keys = [], set()
    extras_done = False
    for _ in range(6000):
        v = hub.public_view()
        app = d.app
        key = (app.screen_name, v.get("phase"), (v.get("table_prompt") or {}).get("step"),
               bool(v.get("table_prompt")))
        if key not in keys:
            keys.add(key)
            d.pump()
            look(d, f"{tag}-{key[0]}-{key[1]}" + (f"-{key[2]}" if key[2] else ""), seen)
            shown = d.tids()
            for tid in CONTINUE:
                if tid in shown:
                    d.tap(d.tid(tid))
        if not extras_done and v.get("round", 0) >= 2:
            extras_done = True
            for screen, _label in app.tabs:
                d.tap(d.tid(f"tab:{screen}"))
                look(d, f"{tag}-tab-{screen}", seen)
            d.tap(d.tid("tab:now"))
            for opener, closer in (("menu", "menu:close"), ("undo", "undo:cancel"),
                                   ("fix", "fix:cancel")):
                d.tap(d.tid(opener))
                look(d, f"{tag}-{opener}", seen)
                d.tap(d.tid(closer))
        if v.get("outcome") is not None:
            break
        bot_step(hub, rng, clock, "greedy")   # whoever the game waits for
        d.app.bridge._flush(0)          # the screen follows at once; frames only to look
    d.pump()
    assert hub.public_view()["outcome"] is not None, "the game did not end"
    assert d.app.screen_name == "victory"
    texts = d.texts()
    for name in NAMES[:n]:                             # the final scores, at once
        assert any(t.startswith(name[:5]) for t in texts), name
    look(d, f"{tag}-victory", seen)
    assert extras_done and len(keys) >= 4
