"""The shared screen never shows a secret. Non-interference: two tables play the same game
(same seed, same salts) except that one seat's sealed choice differs; until the reveal, every
screen of one shows exactly what the other shows. And a privately peeked Event never appears."""
import random


from companion.core.clock import FakeClock
from companion.core.log import MemoryLog
from companion.service.hub import Hub
from ui.widgets.bar import Bar

from .harness import play_until


def twin_hub():
    rng = random.Random(11)
    state = rng.getstate()
    rng2 = random.Random()
    rng2.setstate(state)
    clock = FakeClock(50.0)
    return Hub(MemoryLog(), table="t", clock=clock, room_code="ABCD",
               entropy=lambda n: bytes(rng2.randrange(256) for _ in range(n))), clock


def everything_shown(d):
    """The texts of every screen the rail offers, and of the screen the game is on."""
    out = {}
    tabs = ["now"] + [t for t, _ in d.app.tabs]
    for tab in tabs:
        d.app.go(tab)
        d.pump()
        out[tab] = sorted(d.texts()) + sorted(b.text for b in d.widgets(Bar))
    d.app.go("now")
    d.pump()
    return out


def screens_for(start_app, setup, secret_a, secret_b):
    seen = []
    for secret in (secret_a, secret_b):
        hub, clock = twin_hub()
        setup(hub, clock)
        secret(hub)
        d = start_app(hub)
        seen.append(everything_shown(d))
        hub.stop()
    return seen


def test_great_powers_bids(start_app):
    def setup(hub, clock):
        hub.configure("great-powers", players=3, names=["Ann", "Bo", "Cy"])
        hub.start(seed=4)
    a, b = screens_for(
        start_app, setup,
        lambda h: h.submit(0, "submit_bids", {"traits": ["navy", "army", "colony"]}),
        lambda h: h.submit(0, "submit_bids", {"traits": ["population", "industry",
                                                         "nationalism"]}))
    assert a == b
    assert any("\u2713 locked" in texts for texts in a.values())


def tw_setup(until, seed=6):
    def setup(hub, clock):
        hub.configure("trade-warz", players=3, names=["Ann", "Bo", "Cy"])
        hub.start(seed=seed)
        play_until(hub, until, clock=clock, bot="greedy")
    return setup


def test_trade_warz_leader_pick(start_app):
    a, b = screens_for(
        start_app, tw_setup(lambda v: True),
        lambda h: h.submit(0, "pick_leader", {"leader": "usa", "ranking": ["china"]}),
        lambda h: h.submit(0, "pick_leader", {"leader": "china", "ranking": ["usa"]}))
    assert a == b and "\u2713 picked" in a["now"]


def test_trade_warz_policy(start_app):
    def policy_card(h):
        hand = h.seat_view(0)["private"]["hand"]
        card = next(c["id"] for c in hand if c.get("kind") == "policy" and
                    not c.get("target") and not c.get("partner"))
        h.submit(0, "choose_policy", {"card": card})    # the seed deals one: a refusal fails
    a, b = screens_for(
        start_app, tw_setup(lambda v: v["phase"] == "policy" and 0 in v["waiting"]),
        lambda h: h.submit(0, "choose_policy", {"card": None}), policy_card)
    assert a == b


def test_trade_warz_dispute_bids(start_app):
    def until(v):
        return v["phase"] == "disputes" and v["game_view"]["disputes"]["current"] is not None \
            and len(v["waiting"]) >= 2
    state = {}

    def first_bid(amount):
        def bid(h):
            v = h.public_view()
            seat = v["waiting"][0]
            state["seat"] = seat
            h.submit(seat, "bid", {"amount": min(amount, v["game_view"]["gdp"][seat])})
        return bid
    a, b = screens_for(start_app, tw_setup(until, seed=2), first_bid(0), first_bid(4))
    assert a == b
    assert any("\u2713 bid locked" in texts for texts in a.values())


def test_a_peeked_event_stays_off_the_table(start_app, clock, hub):
    hub.configure("great-powers", players=4, names=["Ann", "Bo", "Cy", "Di"])
    hub.start(seed=2)

    def peeked_before_the_event(v):         # e.g. Nationalism's peek, a Colony bonus pending
        return v["game_view"]["peeked"] and v["phase"] in ("action", "score")
    v = play_until(hub, peeked_before_the_event, seed=1, clock=clock)
    seat = v["game_view"]["peeked"][0]
    secret = hub.seat_view(seat)["private"]["next_event"]
    assert secret is not None
    d = start_app(hub)
    shown = everything_shown(d)
    for texts in shown.values():
        joined = "\n".join(texts)
        assert secret["name"] not in joined and secret["text"] not in joined
