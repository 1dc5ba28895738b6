"""Home draws a game's first variants and a "More variants (n)" button for the rest (issue 15,
memory: Battle Builder's 31 variant rows cost the table about 20 MB, most tables never look at
them); a tap draws them all, they are set like any other, and picking another game folds the
list again."""
from companion.games import get
from ui.screens.home import SHOWN, option_step
from ui.widgets.common import TButton


def rows(d):
    return [r for r in d.app.screen("home").ids.options.children if hasattr(r, "ids") and
            "name" in r.ids]


def test_a_long_list_of_variants_is_drawn_when_asked(hub, start_app):
    bb = get("battle-builder")
    assert len(bb.options) > SHOWN + 1
    d = start_app(hub)
    d.tap(d.one("Battle Builder", TButton))
    assert len(rows(d)) == SHOWN
    more = d.tid("home:more-variants")
    assert more.text == f"More variants ({len(bb.options) - SHOWN})"
    d.shot("800x480-home-variants-folded")
    assert d.clipped() == []
    d.tap(more)
    assert len(rows(d)) == len(bb.options)
    assert "home:more-variants" not in d.tids()
    # a variant from the unfolded list (the last one, a number) is set like any other and is
    # what the game is set up with
    last = sorted(bb.options, key=lambda o: o.name != "edition")[-1]
    assert isinstance(last.default, int) and not last.choices
    d.tap(d.tid(f"home:option:{last.name}:plus"))
    d.shot("800x480-home-variants-all")
    assert d.clipped() == []
    d.tap(d.one("Set up a new game", TButton))
    assert hub.options[last.name] == last.default + option_step(last)


def test_picking_another_game_folds_the_list_again(hub, start_app):
    d = start_app(hub)
    d.tap(d.one("Battle Builder", TButton))
    d.tap(d.tid("home:more-variants"))
    assert "home:more-variants" not in d.tids()
    d.tap(d.one("Great Powers", TButton))
    assert len(rows(d)) == len(get("great-powers").options)        # few: all drawn
    assert "home:more-variants" not in d.tids()
    d.tap(d.one("Battle Builder", TButton))
    assert len(rows(d)) == SHOWN and d.tid("home:more-variants")


def test_a_timer_in_seconds_steps_by_fifteen(hub, start_app):
    """Issue 22: Battle Builder's "Turn seconds" stepped by 1, sixty taps for a minute. It
    steps by 15 s and reads as m:ss; four taps make a minute."""
    d = start_app(hub)
    d.tap(d.one("Battle Builder", TButton))
    d.tap(d.tid("home:more-variants"))
    assert d.tid("home:option:turn_seconds:minus").disabled       # 0: off, no lower
    for _ in range(4):
        d.tap(d.tid("home:option:turn_seconds:plus"))
    assert d.app.screen("home").options["turn_seconds"] == 60
    d.app.screen("home").ids.scroll.scroll_to(d.tid("home:option:turn_seconds:plus"),
                                               animate=False)
    d.pump()
    assert "1:00" in d.texts()
    d.check("800x480-home-turn-seconds")
    d.tap(d.tid("home:option:turn_seconds:minus"))
    assert d.app.screen("home").options["turn_seconds"] == 45
    d.tap(d.one("Set up a new game", TButton))
    assert hub.options["turn_seconds"] == 45


def test_home_keeps_the_last_choices_after_a_game(hub, clock, start_app):
    """Issue 22: after a game, Home offered the default player count and variants again. It
    keeps the game's: those the hub last set it up with (a new screen after a restart too),
    and each game's own when another game is looked at in between."""
    from .harness import play_until
    hub.configure("great-powers", players=3, names=["Ann", "Bo", "Cy"],
                  options={"turns": 8, "ties": "all"})
    hub.start(seed=1)
    play_until(hub, lambda v: v["outcome"] is not None, clock=clock)
    d = start_app(hub)                        # the table restarted after the game
    assert d.app.screen_name == "victory"
    d.tap(d.tid("victory:new"))
    assert d.app.screen_name == "home"
    home = d.app.screen("home")
    assert home.game == "great-powers" and home.players == 3
    assert home.options["turns"] == 8 and home.options["ties"] == "all"
    assert d.tid("home:players:3").selected and d.tid("home:option:ties=all").selected
    d.check("800x480-home-kept")
    d.tap(d.one("Battle Builder", TButton))
    d.tap(d.tid("home:players:2"))
    d.tap(d.one("Great Powers", TButton))      # back: Great Powers' choices, not defaults
    assert home.players == 3 and home.options["turns"] == 8
    d.tap(d.one("Battle Builder", TButton))    # and Battle Builder's own
    assert home.players == 2
    d.tap(d.one("Great Powers", TButton))
    d.tap(d.one("Set up a new game", TButton))
    assert len(hub.public_view()["hub"]["seats"]) == 3 and hub.options["turns"] == 8


def test_more_variants_keeps_the_list_where_it_was(hub, start_app):
    """Issue 34: "More variants (26)" is at the list's end; tapped, the list jumped to its new
    end, 26 rows further. The rows above stay put, and the first new variant is where the
    button was."""
    d = start_app(hub)
    d.tap(d.one("Battle Builder", TButton))
    home = d.app.screen("home")
    sv, box = home.ids.scroll, home.ids.options
    sv.scroll_y = 0                                   # the player scrolled to the button
    d.pump()
    more = d.tid("home:more-variants")
    last = rows(d)[0]                                 # the last row drawn before the tap
    y_before = last.to_window(*last.pos)[1]
    button_top = more.to_window(*more.pos)[1] + more.height
    d.tap(more)
    d.pump()
    assert len(rows(d)) == len(get("battle-builder").options)
    again = next(r for r in rows(d) if r.ids.name.text == last.ids.name.text)
    assert abs(again.to_window(*again.pos)[1] - y_before) <= 2
    new = rows(d)[len(rows(d)) - SHOWN - 1]          # the first row the tap drew
    assert abs(new.to_window(*new.pos)[1] + new.height - button_top) <= 12
    d.shot("800x480-home-variants-unfolded-in-place")
    assert d.clipped() == []
