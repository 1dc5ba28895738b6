"""Home draws a game's first variants and a "More variants (n)" button for the rest (issue 15,
memory: Battle Builder's 31 variant rows cost the table about 20 MB, most tables never look at
them); a tap draws them all, they are set like any other, and picking another game folds the
list again."""
from companion.games import get
from ui.screens.home import SHOWN
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
    assert hub.options[last.name] == last.default + 1


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
