"""The moments as data in the public view (issue 10, "Show the moments"): the Leader pick
result, the Policy reveal, the Export flip, the round's contests from the flip on, each
contest's state, and names wherever an id is shown (fields in docs/trade-warz.md, "For the
screens")."""
from .helpers import GAME, Table, session
from .test_round import clean, place_all, policy_table, trade_table


def test_the_leader_pick_result_says_who_got_which_wish():
    s = session(3, seed=11)
    s.execute(0, "pick_leader", {"leader": "usa", "ranking": ["china"]})
    s.execute(1, "pick_leader", {"leader": "usa", "ranking": ["russia", "china"]})
    gv = s.public_view()["game_view"]
    assert gv["leader_pick"] is None                   # nothing before the reveal
    s.execute(2, "pick_leader", {"leader": "usa"})
    lp = s.public_view()["game_view"]["leader_pick"]
    assert lp["how"] == "pick" and sorted(lp["order"]) == [0, 1, 2]
    rows = {r["seat"]: r for r in lp["seats"]}
    first = lp["order"][0]
    assert rows[first]["leader"] == "usa" and rows[first]["wish"] == 1
    assert rows[1]["wishes"][0] == {"id": "usa", "name": "USA"}
    if first != 2:                                       # seat 2 wished only for USA
        assert rows[2]["by_lot"] and rows[2]["wish"] is None
    for r in lp["seats"]:
        assert r["name"] == GAME.ix(s.state).name_of(r["leader"])
        assert r["player"] == f"P{r['seat']}"
        assert r["wish"] is None or r["wishes"][r["wish"] - 1]["id"] == r["leader"]


def test_fixed_leaders_say_so():
    t = Table(3)
    lp = GAME.public_view(t.st)["leader_pick"]
    assert lp["how"] == "fixed" and [r["leader"] for r in lp["seats"]] == ["usa", "china",
                                                                            "russia"]


def test_the_policy_reveal_per_player_has_the_card_its_text_and_target():
    t = policy_table(edition="tariff")
    t.d.hands = [["china-belt-and-road"], ["russia-hybrid-warfare"], []]
    t.set_gdp(10, 10, 10)
    t.begin("policy")
    t.settle()
    t.do(0, "choose_policy", card="china-belt-and-road", partner="petrostan")
    assert GAME.public_view(t.st)["policy_reveal"] == {}        # sealed until all are in
    t.do(1, "choose_policy", card="russia-hybrid-warfare", target=2)
    r = GAME.public_view(t.st)["policy_reveal"]
    ix = GAME.ix(t.st)
    x = r["0"]
    assert (x["card"], x["name"], x["text"], x["player"]) == (
        "china-belt-and-road", ix.name_of("china-belt-and-road"),
        ix["china-belt-and-road"].text, "P0")
    assert (x["partner"], x["partner_name"]) == ("petrostan", "The Sultanate of Petrostan")
    assert (r["1"]["target"], r["1"]["target_name"]) == (2, "P2")
    assert r["1"]["cost"] == ix["russia-hybrid-warfare"].cost


def test_the_flip_lists_every_export_and_the_contests_show_at_once():
    t = trade_table(4)
    t.set_gdp(5, 8, 11, 14)
    plan = [(0, "soybean-surplus", "neutralia", 1), (1, "scrap-metal", "neutralia", 1),
            (2, "bulk-coal", "petrostan", 2), (3, "kale-futures", "petrostan", 2),
            (0, "cat-video-rights", "bananastan", 3)]
    for s, c, p, k in plan:
        t.d.hands[s].append(c)
        t.do(s, "place_export", card=c, partner=p, slot=k)
    gv = GAME.public_view(t.st)
    assert gv["flip"] == []                              # face-down: nothing to list
    for s in range(4):
        t.do(s, "done_trade")
    assert t.st.phase == "exports"                        # the flip, waiting for Next
    gv = GAME.public_view(t.st)
    flip = {(x["seat"], x["partner"], x["slot"]): x for x in gv["flip"]}
    assert len(flip) == 5
    x = flip[0, "neutralia", 1]
    assert (x["card"], x["partner_name"], x["player"], x["contested"]) == \
        ("soybean-surplus", "The Confederation of Neutralia", "P0", True)
    assert not flip[0, "bananastan", 3]["contested"]
    # the contests of this round, already at the flip (not "no contested slots")
    contests = gv["disputes"]["contests"]
    assert [(c["partner"], c["slot"], c["state"]) for c in contests] == [
        ("petrostan", 2, "open"), ("neutralia", 1, "open")]          # in table order
    labels = sorted(c["label"] for c in contests)
    assert labels == ["The Confederation of Neutralia slot 1: P0 vs P1",
                      "The Sultanate of Petrostan slot 2: P2 vs P3"]
    assert all(c["round"] == t.st.round for c in contests)
    assert gv["disputes"]["order"] == [0, 1, 2, 3]        # poorest first, already


def test_contest_states_go_open_bidding_done_with_bids_once_revealed():
    t = trade_table(3)
    t.set_gdp(10, 12, 20)
    place_all(t, [(0, "soybean-surplus", "neutralia", 1), (1, "scrap-metal", "neutralia", 1)])
    c = GAME.public_view(t.st)["disputes"]["contests"][0]
    assert c["state"] == "bidding" and "bids" not in c and "winner" not in c
    t.do(0, "bid", amount=1)
    c = GAME.public_view(t.st)["disputes"]["contests"][0]
    assert c["state"] == "bidding" and "bids" not in c
    t.do(1, "bid", amount=0)
    c = t.d.disputes.contests[0]
    assert c["state"] == "done" and c["winner"] == 0 and c["bids"] == {"0": 1, "1": 0}


def test_names_for_every_partner_and_target_id_on_screen():
    t = trade_table(3)
    gv = GAME.public_view(t.st)
    assert gv["partner_names"]["crypto-isle"] == "Crypto Isle"
    assert set(gv["partner_names"]) == {p["id"] for p in gv["partners"]}
    t.d.hands[0] = ["customs-paperwork"]
    t.set_gdp(10, 10, 10)
    t.do(0, "play_tactic", card="customs-paperwork", target=1)
    tp = GAME.public_view(t.st)["in_play"][0]
    assert (tp["owner_name"], tp["target_name"]) == ("P0", "P1")


def test_an_ask_names_its_options():
    t = clean(Table(3, seed=3))
    t.d.board.policy[0] = "infrastructure-diplomacy"
    r = t.d.board.routes
    r["neutralia"][1] = [0, "bulk-coal"]
    r["petrostan"][1] = [0, "kale-futures"]
    t.st.phase = "upkeep"
    t.begin("upkeep")
    t.settle()
    ask = GAME.public_view(t.st)["ask"]
    assert ask["kind"] == "partner"
    assert dict(zip(ask["options"], ask["option_names"]))["petrostan"] == \
        "The Sultanate of Petrostan"
