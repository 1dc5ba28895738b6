"""The table is in charge, by touch, against a real hub: the Menu ends the game now (the
Victory screen with the final scores at once), abandons it, goes Home leaving it resumable;
Home starts another game and resumes an older one; a seat tapped on the screen moves to a new
phone (the one-seat QR decodes to the hub's handover URL) or is renamed with the on-screen
keyboard."""
from urllib.parse import parse_qs, urlsplit

import pytest

from companion.service.hub import JoinError, SeatMovedError
from ui.screens.home import last_played
from ui.widgets.menu import HandoverDialog

NAMES = ["Ann", "Bo", "Cy", "Di"]


def start_gp(hub, seed=5):
    hub.configure("great-powers", players=4, names=NAMES)
    hub.start(seed=seed)


def test_the_menu_ends_the_game_now_with_the_scores_as_they_stand(hub, start_app):
    start_gp(hub)
    d = start_app(hub)
    hub.correct(2, "vp", 3, "Table agreed")          # Cy leads by 3
    d.pump()
    d.tap(d.tid("menu"))
    d.check("menu-playing")
    d.tap(d.tid("menu:end"))
    d.check("menu-end-confirm")
    d.tap(d.tid("confirm:cancel"))                   # a second thought: nothing happens
    assert hub.public_view()["outcome"] is None
    d.tap(d.tid("menu"))
    d.tap(d.tid("menu:end"))
    d.tap(d.tid("confirm:end"))
    o = hub.public_view()["outcome"]
    assert o is not None and o["winners"] == [2] and "early" in o["reason"]
    assert d.app.screen_name == "victory"
    texts = d.texts()
    assert "Cy wins!" in texts
    for s, name in enumerate(NAMES):                 # the final scores, at once
        assert name in texts and str(o["scores"][str(s)]) in texts
    d.check("victory-ended-early")


def test_the_menu_abandons_the_game_and_goes_home(hub, start_app):
    start_gp(hub)
    sid = hub.session.id
    d = start_app(hub)
    d.tap(d.tid("menu"))
    d.tap(d.tid("menu:abandon"))
    d.check("menu-abandon-confirm")
    d.tap(d.tid("confirm:abandon"))
    assert hub.session is None and d.app.screen_name == "home"
    assert hub.log.info(sid).status == "abandoned"
    assert all(i["id"] != sid for i in hub.resumable())
    assert f"home:resume:{sid}" not in d.tids()
    assert "No game to resume." in d.texts()


def test_home_leaves_the_game_open_starts_another_and_resumes_the_older(hub, start_app):
    start_gp(hub)
    first = hub.session.id
    hub.submit(0, "submit_bids", {"traits": ["navy", "army", "colony"]})
    d = start_app(hub)
    d.tap(d.tid("menu"))
    d.tap(d.tid("menu:home"))
    assert d.app.screen_name == "home" and hub.session is None
    card = d.tid(f"home:resume:{first}")             # listed with where it stands
    texts = d.texts(clip=False)
    assert "Great Powers" in texts and "Ann, Bo, Cy, Di" in texts
    assert "Round 1 \u00b7 Bid" in texts
    d.check("home-with-an-open-game")
    d.tap(d.tid("home:game:trade-warz"))
    d.tap(d.tid("home:players:4"))
    d.tap(d.tid("home:setup"))
    assert d.app.screen_name == "lobby" and hub.game_name == "trade-warz"
    d.tap(d.tid("lobby:start"))
    second = hub.session.id
    assert second != first and hub.session.game.name == "trade-warz"
    d.tap(d.tid("menu"))
    d.tap(d.tid("menu:home"))
    ids = [i["id"] for i in hub.resumable()]
    assert ids[:2] == [second, first]                # the last played first
    assert d.tid(f"home:resume:{second}") and d.tid(f"home:resume:{first}")
    d.tap(d.tid(f"home:resume:{first}"))
    assert hub.session.id == first and d.app.screen_name == "gp_powers"
    assert "Bids: 1 of 4 locked in" in d.texts()     # where it was left
    assert card is not None
    hub.submit(1, "submit_bids", {"traits": ["navy", "army", "colony"]})   # played on...
    d.tap(d.tid("menu"))
    d.tap(d.tid("menu:home"))
    listed = hub.resumable()
    assert [i["id"] for i in listed[:2]] == [first, second]   # ...so it heads the list again
    top = d.tid(f"home:resume:{first}")
    assert top.to_window(*top.pos)[1] > d.tid(f"home:resume:{second}").to_window(
        *d.tid(f"home:resume:{second}").pos)[1]         # drawn above the other
    assert last_played(listed[0]["updated"]) in d.texts(clip=False)
    d.pump()
    card = top.parent                                 # (top is its Resume button)
    view = card.parent.parent                         # the list's ScrollView: the game played
    _x, card_top = card.to_window(card.x, card.top)   # last is in sight at its top, not
    _x, view_top = view.to_window(view.x, view.top)   # scrolled past
    assert abs(card_top - view_top) < 1
    d.check("home-two-open-games-last-played-first")


def test_a_seat_moves_to_a_new_phone_by_its_qr(hub, start_app):
    from PIL import Image
    from pyzbar.pyzbar import decode
    hub.configure("great-powers", players=4, names=NAMES)
    hub.join_url = f"http://table.local:8080/?room={hub.room_code}"
    _seat, token = hub.join("Ann", hub.room_code)
    hub.start(seed=5)
    d = start_app(hub)
    d.tap(d.tid("tab:round"))
    d.tap(d.tid("seat:0"))
    d.check("seat-dialog")
    d.tap(d.tid("seat:handover"))
    dlg = next(w for w in d.tops() if isinstance(w, HandoverDialog))
    assert "Ann" in d.texts()
    path = d.check("handover-qr")
    codes = [c.data.decode() for c in decode(Image.open(path))]
    assert codes == [dlg.url]                        # the QR is the hub's handover URL
    url = urlsplit(dlg.url)
    assert url.netloc == "table.local:8080" and url.path == "/"
    code = parse_qs(url.query)["seat"][0]
    seat, new_token = hub.claim_handover(code)       # the new phone opens it
    assert seat == 0 and new_token != token
    with pytest.raises(SeatMovedError):
        hub.reclaim(token)                           # the old phone is cut off
    d.wait_for(lambda: not [w for w in d.tops() if isinstance(w, HandoverDialog)])
    assert any("Ann's seat moved to the new phone" in t for t in d.texts())   # it closed


def test_cancel_withdraws_the_handover_code(hub, start_app):
    hub.configure("great-powers", players=4, names=NAMES)
    hub.join_url = f"http://table.local:8080/?room={hub.room_code}"
    d = start_app(hub)
    d.tap(d.tid("seat:2"))                           # from the lobby
    d.tap(d.tid("seat:handover"))
    dlg = next(w for w in d.tops() if isinstance(w, HandoverDialog))
    code = parse_qs(urlsplit(dlg.url).query)["seat"][0]
    d.tap(d.tid("handover:cancel"))
    with pytest.raises(JoinError):
        hub.claim_handover(code)


def type_name(d, name):
    for ch in name:
        d.tap(d.tid("key:space" if ch == " " else f"key:{ch.upper()}"))


def test_a_seat_is_renamed_with_the_on_screen_keyboard(hub, start_app):
    hub.configure("great-powers", players=4, names=NAMES)
    d = start_app(hub)
    d.tap(d.tid("seat:1"))
    d.tap(d.tid("seat:rename"))
    type_name(d, "zoe b")
    assert d.tid("rename:save").disabled is False
    d.tap(d.tid("key:back"))
    d.tap(d.tid("key:back"))
    type_name(d, "q")
    d.check("rename-keyboard")
    d.tap(d.tid("rename:save"))
    assert hub.seats[1].name == "Zoeq"                # capital first, then small letters
    assert "Zoeq" in d.texts()
    hub.start(seed=1)                                 # and during the game: in the log
    d.pump()
    d.tap(d.tid("tab:round"))
    d.tap(d.tid("seat:3"))
    d.tap(d.tid("seat:rename"))
    type_name(d, "dee")
    d.tap(d.tid("rename:save"))
    assert hub.session.state.players[3] == "Dee"
    assert any(r.get("kind") == "rename" for r in hub.session.records)
    assert "Dee" in d.texts()
