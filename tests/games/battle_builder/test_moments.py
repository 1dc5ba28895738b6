"""Moments nobody saw (issue 22): the auction named neither its lot nor the unit of a bid and
its reveal read "0 / 0 / 0" with no winner; secret objectives were never shown at the end nor
their VP explained; nothing said what stamina does."""
from companion.core import views

from .helpers import GAME, do, drive, fresh, in_battle


def _said(st, kind):
    return [n["says"] for n in st.notices if n["kind"] == kind]


def _spec(st, seat, move, arg):
    m = next(x for x in views.legal(GAME, st, seat) if x["move"] == move)
    return next(s for s in m["args"] if s["name"] == arg)


def _names(ids):
    return [GAME.rules.monsters[m].name for m in ids]


def _auction(bids, tokens=(3, 5), n=2, seed=1):
    st = fresh(n, seed, monster_select="auction", monster_abilities="none")
    d = st.data
    for s in st.seats():
        d.tokens[s]["skill"] = tokens[s]
        st.prompts[s]["most"] = tokens[s]
    for s, b in enumerate(bids):
        do(st, s, "bid_auction", tokens=b)
    return st


def test_the_auction_prompt_names_the_lot_and_the_unit_of_a_bid():
    st = fresh(2, 1, monster_select="auction")
    bid = _spec(st, 0, "bid_auction", "tokens")
    a, b, c = _names(st.data.pool)
    assert bid["label"] == (f"Your bid, in tokens, for the first pick of {a}, {b} or {c} "
                            f"(the highest bid picks and pays it; a tie goes by lot)")
    # four players: two teams, the top bidder of each picks for it
    st = fresh(4, 1, monster_select="auction")
    label = _spec(st, 0, "bid_auction", "tokens")["label"]
    assert label.startswith("Your bid, in tokens, for your team's pick of ")
    assert all(name in label for name in _names(st.data.pool))
    assert "the top bidder of each team picks, highest bid first" in label
    # other token systems: a bid is paid from any type, largest pile first
    st = fresh(2, 1, monster_select="auction", tokens="B")
    assert _spec(st, 0, "bid_auction", "tokens")["label"].startswith(
        "Your bid, in tokens of any type (your largest piles pay), for the first pick of ")


def test_the_auction_reveal_says_every_bid_with_its_unit_the_winner_and_what_they_paid():
    st = _auction([2, 1])
    revealed = _said(st, "AuctionRevealed")
    assert revealed == [
        "Auction for the first pick: P0 bid 2 tokens, P1 1 token. P0 wins the first pick "
        "and pays 2 tokens."]
    pool = list(st.data.pool)
    do(st, 0, "pick_monster", monster=pool[1])
    rest = [n for i, n in enumerate(_names(pool)) if i != 1]
    assert _said(st, "MonsterPicked") == [
        f"P0 won the auction: {_names(pool)[1]} for P0 and P1, paid 2 tokens. Not picked: "
        f"{rest[0]} and {rest[1]}."]
    lines = GAME.public_view(st)["auction"]["lines"]
    assert lines == revealed + _said(st, "MonsterPicked") and st.phase == "battle"
    assert [t["skill"] for t in st.data.tokens] == [1, 5]


def test_a_tied_auction_says_the_lot_decided_and_nobody_bidding_is_said_too():
    st = _auction([2, 2])
    first = st.data.auction["order"][0]
    other = 1 - first
    assert _said(st, "AuctionRevealed") == [
        f"Auction for the first pick: P0 bid 2 tokens, P1 2 tokens. P0 and P1 tied at 2 "
        f"tokens: by lot, P{first} wins the first pick and pays 2 tokens."]
    assert other != first
    st = _auction([0, 0])
    first = st.data.auction["order"][0]
    assert _said(st, "AuctionRevealed") == [
        f"Auction for the first pick: P0 bid 0 tokens, P1 0 tokens. Nobody bid: by lot, "
        f"P{first} picks first and pays nothing."]


def test_a_four_player_auction_says_who_picks_for_each_team():
    st = _auction([3, 1, 2, 0], tokens=(5, 5, 5, 5), n=4)
    d = st.data
    [said] = _said(st, "AuctionRevealed")
    assert said.startswith("Auction for the teams' picks: P0 bid 3 tokens, P1 1 token, "
                           "P2 2 tokens, P3 0 tokens. ")
    t0 = " and ".join(f"P{s}" for s in d.teams[GAME.team_of(st, 0)])
    t2 = " and ".join(f"P{s}" for s in d.teams[GAME.team_of(st, 2)])
    if GAME.team_of(st, 0) != GAME.team_of(st, 2):
        assert said.endswith(f"P0 picks first for {t0} and pays 3 tokens; then P2 for {t2}, "
                             f"paying 2 tokens.")
    do(st, 0, "pick_monster", monster=d.pool[0])
    [said] = _said(st, "MonsterPicked")
    assert said.startswith("P0 won the auction: ") and said.endswith("paid 3 tokens.")


def test_secret_objectives_are_revealed_at_the_end_with_whether_met_and_the_vp():
    st = fresh(2, 4, victory="objectives", arc="4+1")
    do(st, 0, "keep_objective", index=1)
    do(st, 1, "keep_objective", index=0)
    drive(st, lambda s: s.outcome is not None)
    d = st.data
    results = GAME.public_view(st)["objective_results"]
    assert [r["seat"] for r in results] == [0, 1]
    for r in results:
        o = GAME.rules.objectives[d.objective[r["seat"]]]
        met = o.id in d.bonuses.get(str(r["seat"]), [])
        assert (r["id"], r["name"], r["text"], r["met"]) == (o.id, o.name, o.text, met)
        assert r["vp"] == (o.vp if met else 0)
        head = f"P{r['seat']}'s secret objective: {o.name} ({o.text}): "
        assert r["says"].startswith(head + ("met (" if met else "not met ("))
        assert r["says"].endswith(f"), +{o.vp} VP." if met else "), no VP.")
    [said] = _said(st, "ObjectivesRevealed")
    assert said == " ".join(r["says"] for r in results)


def test_an_objective_says_how_far_the_player_got():
    st = fresh(2, 4, victory="objectives", arc="4+1")
    do(st, 0, "keep_objective", index=0)
    do(st, 1, "keep_objective", index=0)
    d = st.data
    d.objective[0], d.objective[1] = "easy-hunter", "duelist"
    drive(st, lambda s: s.phase == "final" or s.outcome is not None)
    d.monsters_defeated[0]["easy"] = 4
    d.pvp_wins[1] = 1
    got = {s: GAME.objective_words(st, s) for s in (0, 1)}
    assert got[0] == ("P0's secret objective: Easy Hunter (Defeat 4+ easy monsters: +3 VP): "
                      "met (4 easy monsters defeated), +3 VP.")
    assert got[1] == ("P1's secret objective: Duelist (Win 2+ PvP battles: +2 VP): not met "
                      "(1 PvP win), no VP.")


def test_no_objective_results_before_the_end_or_without_objectives():
    st = fresh(2, 4, victory="objectives", arc="4+1")
    assert GAME.public_view(st)["objective_results"] is None
    st = fresh(2, 4)
    drive(st, lambda s: s.outcome is not None)
    assert GAME.public_view(st)["objective_results"] is None
    # the table ended the game early: the objectives are shown, not scored
    st = fresh(2, 4, victory="objectives", arc="4+1")
    do(st, 0, "keep_objective", index=0)
    do(st, 1, "keep_objective", index=0)
    st.finish([0], "ended by the table", {0: 0, 1: 0})
    [r0, r1] = GAME.public_view(st)["objective_results"]
    assert r0["says"].endswith(": not scored (the game was ended early).") and r0["vp"] == 0


def test_the_stamina_question_says_what_stamina_does():
    st = in_battle()
    stamina = _spec(st, 0, "play_turn", "stamina")
    assert stamina["label"] == ("Stamina to spend (the most stamina acts first, and what "
                                "you spend comes back only next battle; you have 20)")
    # the page's answer words drop a closing parenthesis: the lock-in button reads
    # "Lock in <card> · Stamina to spend: 4" (it was five lines long with the help in it)
    assert stamina["label"].endswith(")") and stamina["label"].count("(") == 1
