"""Words wrap at spaces and are never broken inside one, nothing is cut (issue 22): the table
showed "Transcontinen tal Railway", "Categorie s", "Champion ship", "Turn 1: scoring" cut at
the top and the fifth Action card cut off. A word wider than its box shrinks its font (never
below the legible size); where even that is not enough, the layout gives it room (fewer
columns)."""
from ui.widgets.common import TButton

from .harness import play_until


def test_a_long_word_shrinks_rather_than_breaks(hub, start_app):
    d = start_app(hub)
    b = TButton(text="Transcontinental Railway", fs=24, size_hint=(None, None),
                size=(150 * d.app.u, 60 * d.app.u))
    d.app.root.ids.sm.current_screen.add_widget(b)
    d.pump()
    try:
        assert b.word_scale < 1
        assert float(b.font_size) >= 18 * d.app.u - 0.01
        assert d.problems() == [], d.problems()
    finally:
        b.parent.remove_widget(b)


def test_battle_builder_victory_variants_are_whole_words(hub, start_app):
    d = start_app(hub)
    d.tap(d.one("Battle Builder", TButton))
    d.tap(d.tid("home:more-variants"))
    champ = d.tid("home:option:victory=championship")
    d.tap(champ)
    home = d.app.screen("home")
    home.ids.scroll.scroll_to(d.tid("home:option:victory=championship"), animate=False)
    d.pump()
    texts = d.texts()
    assert "Championship" in texts and "Categories" in texts
    d.check("800x480-home-victory-variants")


NAMES = ["Ann", "Eleanor of Aquitaine", "Cyrus", "Bartholomew the Great", "Bo", "Fen",
         "Gus", "Maximiliana Wilhelmina"]


def test_great_powers_scoring_keeps_its_heading_and_whole_card_names(hub, clock, start_app):
    """The score screen under a banner, eight players with long names: "Turn 1: scoring"
    stays in its panel (the awards scroll under it); three drawn Action cards, one of them
    "Transcontinental Railway", are buttons with whole words."""
    hub.configure("great-powers", players=8, names=NAMES)
    hub.start(seed=5)
    d = start_app(hub, simulated_hardware_note="Simulated hardware: a banner above.")
    play_until(hub, lambda v: v["phase"] == "score" and v["waiting"], clock=clock,
               bot="greedy")
    d.pump()
    assert d.app.screen_name == "gp_score"
    screen = d.app.screen("gp_score")
    v = dict(hub.public_view())
    gv = dict(v["game_view"])
    gv["drawn"] = [{"id": "transcontinental-railway", "name": "Transcontinental Railway",
                    "text": "Gain 1 Industry and 2 VP", "target": False},
                   {"id": "invention", "name": "Invention", "text": "Gain 2 Industry Tokens",
                    "target": False},
                   {"id": "x", "name": "Naval Mutiny", "text": "", "target": True}]
    v["game_view"] = gv
    screen.update(v)
    d.app.root.ids.toast.replace()     # as the app does after each view it shows (not this)
    d.pump(1)
    assert any(t.startswith("Turn ") and "scoring" in t for t in d.texts())
    assert "Transcontinental Railway" in d.texts()
    d.check("800x480-gp-score-drawn-long-names")


def test_five_action_cards_are_all_whole_on_screen(hub, clock, start_app):
    """Five players, five face-up Action cards in two rows, the chooser's Pass: every card
    is whole inside its panel at 800x480 (the fifth was cut off at the bottom)."""
    from ui.screens.great_powers import CardTile
    from .harness import window_rect
    hub.configure("great-powers", players=5, names=NAMES[:5])
    hub.start(seed=7)
    d = start_app(hub)
    play_until(hub, lambda v: v["phase"] == "action" and v["waiting"] and
               len(v["game_view"]["face_up"]) >= 5, clock=clock, bot="greedy")
    d.pump()
    for tid in ("gp:continue",):
        if tid in d.tids():
            d.tap(d.tid(tid))
    assert d.app.screen_name == "gp_action"
    tiles = d.widgets(CardTile, clip=False)
    assert len(tiles) >= 5
    view = window_rect(d.app.screen("gp_action").ids.scroll)
    for t in tiles:
        x0, y0, x1, y1 = window_rect(t)
        assert y0 >= view[1] - 1 and y1 <= view[3] + 1, (t.title, (y0, y1), view)
    who = hub.public_view()["players"][hub.public_view()["waiting"][0]]
    assert d.tid("gp:pass").text == f"{who} passes"
    d.check("800x480-gp-action-five-cards")
