"""Battle Builder and Market Trading through the real screens: HP and stamina, the monster,
who has locked a turn, the turn order after the reveal; the markets with counts and flooded
markers, the point bowls."""
import threading

from ui.widgets.bar import Bar
from ui.widgets.common import TButton

from .harness import play_until

NAMES = ["Ann", "Bo", "Cyrus", "Dmitri"]


def phone(fn, *args):
    t = threading.Thread(target=fn, args=args)
    t.start()
    t.join()


def test_battle_screen_hp_stamina_locks_and_turn_order(hub, clock, start_app):
    hub.configure("battle-builder", players=4, names=NAMES)
    hub.start(seed=3)
    d = start_app(hub)
    play_until(hub, lambda v: v["phase"] == "battle", clock=clock)
    d.pump()
    assert d.app.screen_name == "bb_battle"
    v = hub.public_view()
    battle = v["game_view"]["battles_now"][0]
    monster = battle["monsters"][0]
    bars = [b.text for b in d.widgets(Bar)]
    assert f"{monster['hp']} / {monster['max_hp']} HP  \u00b7  ATK {monster['attack']}" \
           f"  \u00b7  SPD {monster['speed']}" in bars
    for s in battle["seats"]:
        f = battle["fighters"][str(s)]
        assert f"{f['hp']} / {f['max_hp']} HP" in bars
        assert f"ST {f['stamina']}" in d.texts()
    assert f"Turn 1 \u00b7 0 of {len(battle['seats'])} locked" in d.texts()
    seat = battle["seats"][0]
    s = hub.session
    move, args = s.game.bots["random"](s.game, s.game.observe(s.state, seat), __import__("random").Random(1))
    phone(hub.submit, seat, move, args)
    d.pump()
    assert f"Turn 1 \u00b7 1 of {len(battle['seats'])} locked" in d.texts()
    assert "\u2713" in d.texts()
    play_until(hub, lambda v: v["phase"] != "battle" or any(
        b["last_turn"]["order"] for b in v["game_view"]["battles_now"]), clock=clock)
    d.pump()
    v = hub.public_view()
    assert v["phase"] == "battle"                     # the first turn never ends a battle
    b = next(b for b in v["game_view"]["battles_now"] if b["last_turn"]["order"])
    first = b["last_turn"]["order"][0]
    who = b["monsters"][first[1]]["name"] if first[0] == "m" else v["players"][first[1]]
    assert any(t.startswith("Turn order: " + who) for t in d.texts())
    d.check("bb-battle")


def test_markets_counts_flooded_and_bowls(hub, clock, start_app):
    hub.configure("market-trading", players=3, names=NAMES[:3])
    hub.start(seed=3)
    d = start_app(hub)
    v = play_until(hub, lambda v: any(n >= v["game_view"]["market_cap"]
                                      for n in v["game_view"]["market"].values()),
                   clock=clock)
    d.pump()
    assert d.app.screen_name == "mt_market"
    gv = v["game_view"]
    full = [k for k, n in gv["market"].items() if n >= gv["market_cap"]]
    assert d.texts().count("FLOODED") == len(full)
    partial = sorted(n for n in gv["market"].values() if n < gv["market_cap"])
    assert f"{partial[-1]} / {gv['market_cap']}" in d.texts()     # a full one says FLOODED
    for s, name in enumerate(v["players"]):
        assert f"{gv['bowl'][s]} left of {gv['bowl'][s] + gv['earned'][s]}" in \
            [b.text for b in d.widgets(Bar)]
    active = v["players"][gv["active"]]
    assert any(t.startswith(f"{active}'s turn") for t in d.texts())
    d.check("mt-market")
    d.tap(d.one("Scores", TButton))
    data = d.app.screen("scores").ids.chart.data
    assert data.target[0] == gv["bowl"][0] + gv["earned"][0]
    d.check("mt-scores")


def test_battle_builder_auction_reveal_and_secret_objectives_at_the_end(hub, clock, start_app):
    """Issue 22: the table names what the auction is for, says every bid with its unit and the
    winner, and the Game over screen shows each secret objective and the VP it gave."""
    hub.configure("battle-builder", players=2, names=NAMES[:2],
                  options={"monster_select": "auction", "victory": "objectives", "arc": "4+1"})
    hub.start(seed=3)
    d = start_app(hub)
    play_until(hub, lambda v: v["phase"] == "select" and v["round"] == 2 and
               not v["game_view"]["auction"], clock=clock)
    d.pump()
    v = hub.public_view()
    names = [v["game_view"]["monster_cards"][m]["name"] for m in v["game_view"]["pool"]]
    info = [t for t in d.texts() if t.startswith("Sealed bids in tokens for the first pick of")]
    assert info and all(n in info[0] for n in names)
    s = hub.session
    wallets = [s.game.wallet(s.state, x) for x in (0, 1)]
    bids = [min(2, wallets[0]), min(1, wallets[1])]
    for seat, bid in enumerate(bids):
        phone(hub.submit, seat, "bid_auction", {"tokens": bid})
    d.pump()
    v = hub.public_view()
    reveal = v["game_view"]["auction"]["lines"][0]
    assert reveal.startswith(f"Auction for the first pick: Ann bid {bids[0]} token")
    assert any(t == reveal for t in d.texts(clip=False))
    d.check("bb-auction-reveal")
    play_until(hub, lambda v: v.get("outcome") is not None, clock=clock)
    d.pump()
    assert d.app.screen_name == "victory"
    results = hub.public_view()["game_view"]["objective_results"]
    for r in results:
        note = f"Objective {r['name']}: {r['outcome']}"
        assert any(note in t for t in d.texts(clip=False)), note
    d.check("bb-game-over-objectives")


def test_a_three_player_pvp_by_vote_counts_pvps_and_says_who_sits_out(hub, clock, start_app):
    hub.configure("battle-builder", players=3, names=NAMES[:3],
                  options={"pvp_trigger": "vote", "arc": "6+2"})
    hub.start(seed=2)
    d = start_app(hub)
    v = play_until(hub, lambda v: v["phase"] == "pvp" and v["game_view"]["battles_now"],
                   clock=clock)
    d.pump()
    gv = v["game_view"]
    assert d.app.screen_name == "bb_battle"
    # PvPs are counted on their own, never as "PvP battle 3 of 6" (the monster battle's number)
    assert f"PvP 1 of 2 \u00b7 after battle {gv['battle']} of 6" in d.texts()
    d.check("bb-pvp-three-players")
    a, b = gv["pairings"][0]
    bye = gv["byes"][0]
    d.tap(d.one("Round", TButton))
    texts = " ".join(d.texts())
    assert "A PvP battle after every" not in texts
    assert ("By vote after each battle, forced once the PvPs left outnumber the battles "
            "left; 0 of 2 played.") in texts
    assert (f"Waiting for {NAMES[a]} and {NAMES[b]}: their PvP battle; {NAMES[bye]} sits "
            f"this PvP out.") in texts
    d.check("bb-round-pvp-three-players")


def test_markets_and_round_tabs_say_game_over_once_the_game_has_ended(hub, clock, start_app):
    """After Game over the Markets and Round tabs no longer say "Ann's turn · Harvest"; the
    Round tab shows what happened at a glance."""
    hub.configure("market-trading", players=3, names=NAMES[:3])
    hub.start(seed=4)
    d = start_app(hub)
    v = play_until(hub, lambda v: v["outcome"] is not None, clock=clock, limit=20000)
    d.pump()
    winners = v["outcome"]["winners"]
    over = "Game over: " + " and ".join(v["players"][w] for w in winners) + \
        (" wins." if len(winners) == 1 else " win.")
    d.tap(d.one("Markets", TButton))
    texts = d.texts()
    assert over in texts and not any("'s turn" in t for t in texts)
    d.check("mt-market-game-over")
    d.tap(d.one("Round", TButton))
    texts = d.texts()
    assert over in texts and "Harvest" not in texts
    assert "What happened" in texts
    assert not any(t.endswith("is playing.") for t in texts)
    d.check("mt-round-game-over")
