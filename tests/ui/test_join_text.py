"""The Menu's join QR says what scanning it does (issue 22): the free seats, the seats whose
phones are offline (their players come back by typing their name: protocol section 9.3), and
the same words the hub acts on."""
import doctest

from companion.core.log import MemoryLog
from companion.service.hub import Hub
from ui import model

from ..service.test_table_control import games


def test_the_doctests():
    assert doctest.testmod(model, verbose=False).failed == 0


def test_the_join_qr_names_the_offline_seats_and_says_how_to_come_back():
    hub = Hub(MemoryLog(), table="t1", games=games)
    hub.configure("toy", players=3)
    for name in ("Ann", "Bo"):
        hub.join(name, hub.room_code)
    hub.set_presence(0, True)
    seats = hub.public_view()["hub"]["seats"]
    text = model.join_seats_text(seats)
    assert text.startswith("Free: Seat 3. A new phone scans this and takes a free seat.")
    assert "Phone offline: Bo. Scan this and type the name to come back to that seat." in text
    assert "Ann" not in text
    assert model.join_seats_text(seats, offline=True) == "Free: Seat 3. Phone offline: Bo."
    everyone = [dict(s, phone=True, online=True) for s in seats]
    assert model.join_seats_text(everyone) == (
        "Every seat has a phone. A player whose phone dropped out scans this and types their "
        "name to come back.")
    assert model.join_seats_text([]) == "Choose a game on Home first."


def test_the_menus_join_qr_names_the_offline_seat_legibly_at_800x480(start_app):
    from companion.games import get
    from ui.widgets.menu import JoinDialog
    hub = Hub(MemoryLog(), table="t1", games=get)
    hub.configure("great-powers", players=5)
    for name in ("Ann", "Bo", "Cy", "Dee"):
        hub.join(name, hub.room_code)
    hub.start(seed=1)
    for seat in range(4):
        hub.set_presence(seat, True)
    hub.set_presence(1, False)                    # Bo's phone dropped out
    hub.join_url = f"http://10.0.0.2:8000/?room={hub.room_code}"
    d = start_app(hub)
    d.tap(d.tid("menu"))
    d.tap(d.tid("menu:join"))
    assert any(isinstance(w, JoinDialog) for w in d.tops())
    want = ("Free: Seat 5. A new phone scans this and takes a free seat. Phone offline: Bo. "
            "Scan this and type the name to come back to that seat.")
    assert want in d.texts()
    d.check("join-dialog-offline-seat")
