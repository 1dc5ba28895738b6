"""Issue 7's scripted round: a whole Trade Warz round through the real stack, from the lobby to
the scores. The table server (session on SQLite, hub, embedded MQTT broker, bridge, phone web
server), the device process with mock pins and the reader simulator, the real table screen,
and four simulated phones that join over HTTP and play over MQTT-over-WebSockets. Exports go
down the way they do at a real table: the phone aims at a slot, the card is scanned."""
import random

from companion.games import card_catalog, get
from companion.net.brokers import free_ports
from companion.net.seat_client import SeatClient
from companion.net.serve import TableServer

from .harness import Driver  # noqa: F401  (the start_app fixture drives it)

NAMES = ["Ann", "Bo", "Cyrus", "Dmitri"]


def test_a_trade_warz_round_from_the_lobby_to_the_scores(tmp_path, start_app):
    from hardware.hubglue import start_devices
    game = get("trade-warz")
    server = TableServer("it-round", db=str(tmp_path / "s.db"), start="manual",
                         bind="127.0.0.1", public_host="127.0.0.1",
                         **dict(zip(("http_port", "mqtt_port", "ws_port"),
                                    free_ports(3, "127.0.0.1"))))
    server.start()
    link = phones = None
    try:
        hub = server.hub
        link, description = start_devices(hub, simulate=True)
        assert "imulated" in description
        hub.configure("trade-warz", players=4, options={"edition": "trade"})
        d = start_app(hub)
        base = f"http://127.0.0.1:{server.web.port}"
        assert hub.join_url.startswith(base)
        phones = [SeatClient.join(base, name, hub.room_code).connect() for name in NAMES]
        assert [p.seat for p in phones] == [0, 1, 2, 3]
        d.pump()
        assert d.app.screen_name == "lobby"
        d.tap(d.one("Start the game"))
        d.wait_for(lambda: hub.session is not None)

        rng = random.Random(5)
        names = card_catalog("trade-warz")["cards"]
        scanned = phone_moves = table_moves = 0
        for _ in range(2000):
            st = hub.session.state
            if st.round >= 2 or st.is_over():
                break
            if None in st.prompts:
                move, args = game.table_bot(game, game.observe(st, None), rng)
                hub.table_move(move, args)
                table_moves += 1
                continue
            seat = min(st.prompts)
            move, args = game.bots["greedy"](game, game.observe(st, seat), rng)
            if move == "place_export":
                reply = phones[seat].send("aim_export", {"partner": args["partner"],
                                                         "slot": args["slot"]}, timeout=30)
                assert reply["ok"], reply
                before = hub.session.version
                said = link.type_card(names[args["card"]])
                assert "scann" in said.lower() or "tapp" in said.lower(), said
                d.wait_for(lambda: hub.session.version > before, timeout=10)
                scanned += 1
            else:
                reply = phones[seat].send(move, args, timeout=30)   # a busy machine
                assert reply["ok"], (move, args, reply)
                phone_moves += 1
            d.pump(1)
        st = hub.session.state
        assert st.round >= 2 or st.is_over()
        assert scanned > 0 and phone_moves > 0 and table_moves > 0
        placed = [r for r in hub.session.records if r.get("move") == "place_export"]
        assert len(placed) == scanned
        # each phone's own view holds its hand; nobody else's does
        for p in phones:
            view = p.wait_view(lambda v: v.get("seq", 0) >= st.seq, timeout=30)
            assert view["seat"] == p.seat
        d.pump()
        d.tap(d.one("Scores"))
        d.pump()
        assert any("GDP" in t for t in d.texts())
        d.check("full-round-scores")
    finally:
        for p in phones or ():
            p.close()
        if link is not None:
            link.close()
        server.stop()
