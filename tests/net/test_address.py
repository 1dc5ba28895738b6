"""The join address follows the network: a table started before its Wi-Fi is up (127.0.0.1)
moves its join URL to the LAN address when one appears, and a phone's published views carry
the new one; an address given with --host never moves."""
from companion.net.seat_client import SeatClient
from companion.net.serve import TableServer


class Network:
    """The box's address as the test says it is."""

    def __init__(self, ip="127.0.0.1"):
        self.ip = ip
        self.asked = 0

    def __call__(self):
        self.asked += 1
        return self.ip


def table(tmp_path, net, **kw):
    kw = {"game": "great-powers", "players": 3, "broker": "embedded", "http_port": 0,
          "mqtt_port": 0, "ws_port": 0, "start": "manual", "address_source": net,
          "address_poll": 3600.0, **kw}          # the test polls by hand: check_address()
    return TableServer("addr", db=tmp_path / "a.db", **kw)


def test_the_join_url_moves_to_the_new_address_and_the_views_carry_it(tmp_path):
    net = Network("127.0.0.1")
    with table(tmp_path, net) as srv:
        port = srv.web.port
        room = srv.hub.room_code
        assert srv.join_url == f"http://127.0.0.1:{port}/?room={room}"
        heard = []
        srv.on_address(heard.append)
        assert srv.check_address() is False and heard == []          # nothing new
        phone = SeatClient.join(f"http://127.0.0.1:{port}", "Ann", room).connect()
        try:
            phone.wait_state(lambda s: s["hub"]["join_url"].startswith("http://127.0.0.1:"))
            net.ip = "10.1.2.3"                                       # the Wi-Fi is up
            assert srv.check_address() is True
            new = f"http://10.1.2.3:{port}/?room={room}"
            assert srv.join_url == new and srv.hub.join_url == new and heard == [new]
            assert srv.web.public_host == "10.1.2.3"
            assert srv.hub.public_view()["hub"]["join_url"] == new
            state = phone.wait_state(lambda s: s["hub"]["join_url"] == new)   # republished
            assert state["hub"]["room"] == room
            phone.wait_view(lambda v: v["hub"]["join_url"] == new)
            assert srv.hub.handover(0)["url"].startswith("http://10.1.2.3:")
        finally:
            phone.close()
    assert srv._address_thread is None                  # the watcher stopped with the table


def test_the_watcher_thread_polls_by_itself(tmp_path):
    from ..waiting import wait_until
    net = Network("127.0.0.1")
    with table(tmp_path, net, address_poll=0.05) as srv:
        assert srv._address_thread.is_alive()
        net.ip = "192.168.7.20"
        wait_until(lambda: srv.join_url.startswith("http://192.168.7.20:"),
                   what="the watcher seeing the new address")


def test_an_address_given_with_host_never_moves(tmp_path):
    net = Network("10.1.2.3")
    with table(tmp_path, net, public_host="10.9.8.7") as srv:
        assert srv.join_url.startswith("http://10.9.8.7:")
        assert srv._address_thread is None and net.asked == 0
        assert srv.check_address() is False and srv.join_url.startswith("http://10.9.8.7:")
