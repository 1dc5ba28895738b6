"""Game over on the phones (issue 22): players tied on score share their place (a 33/33 tie
is not "2nd and 3rd"), and a phone scrolled down the page when the game ends is brought
back to the winner and the result."""
import random

import pytest

from .conftest import drive, join_all, outcome_rows, start_table


def places(page):
    """{seat: (place text, tied?)} of the final scores panel."""
    return {s: (t, tied) for s, t, tied in page.eval_on_selector_all(
        "[data-panel=outcome] li",
        "ls => ls.map(l => [l.dataset.seat, l.querySelector('.rank').textContent,"
        " l.dataset.tied === '1'])")}


def in_view(page, sel):
    """Is ``sel`` on screen below the sticky bar?"""
    return page.evaluate("""(sel) => {
      const r = document.querySelector(sel).getBoundingClientRect();
      const bar = document.getElementById('bar').getBoundingClientRect();
      return r.top >= bar.bottom - 1 && r.bottom <= window.innerHeight + 1;
    }""", sel)


@pytest.mark.parametrize("game", ["great-powers", "battle-builder"])
def test_tied_players_share_their_place_and_the_result_is_in_view(servers, phones, tmp_path,
                                                                  game):
    srv = start_table(tmp_path, f"over-{game}"[:20], game, 4, seed=2)
    servers(srv)
    ps = join_all(phones, srv, ["Ann", "Bo", "Cy", "Di"], shots=False)
    hub = srv.hub
    # the first sealed choice is played and revealed (by the bots): its reveal, the players
    # and the feed fill the page below the result, as at the end of a real game
    drive(hub, lambda st: any(w.is_revealed() for w in st.windows.values()), random.Random(3))
    # Ann ahead, Bo and Cy level (a 2nd place shared), Di last: 1st, 2nd=, 2nd=, 4th
    base = {s: hub.session.game.get_counter(hub.session.state, s, "vp") for s in range(4)}
    top = max(base.values())
    for s, want in ((0, top + 6), (1, top + 3), (2, top + 3), (3, top)):
        if want != base[s]:
            hub.correct(s, "vp", want - base[s], "test")
    for ph in ps:                                # each player has scrolled down the page
        ph.page.wait_for_selector("#players li")
        ph.page.wait_for_selector(".reveal")
        ph.page.evaluate("window.scrollTo(0, document.body.scrollHeight)")
    hub.end_game()
    o = hub.session.state.outcome
    assert o.winners == [0] and o.scores[3] < o.scores[1] == o.scores[2] < o.scores[0]
    for ph in ps:
        ph.page.wait_for_selector("[data-panel=outcome]")
        assert outcome_rows(ph.page) == sorted((str(s), str(n)) for s, n in o.scores.items())
        got = places(ph.page)
        assert got["0"] == ("1st", False), got
        assert got["1"] == got["2"] == ("2nd=", True), got
        assert got["3"] == ("4th", False), got
        # the winner and the result are on screen, not scrolled past
        ph.page.wait_for_timeout(400)
        assert in_view(ph.page, "[data-panel=outcome] .winner"), \
            f"{ph.name}'s phone stays scrolled past the winner"
        assert not ph.unreadable(), ph.unreadable()
    from .conftest import SHOTS
    SHOTS.mkdir(parents=True, exist_ok=True)
    ps[1].page.screenshot(path=str(SHOTS / f"game-over-{game}-bo-viewport.png"))
    ps[1].shot("tie")


def test_battle_builder_auction_reveal_and_secret_objectives_on_the_phones(servers, phones,
                                                                           tmp_path):
    """Issue 22: the auction's reveal says every bid in tokens, the winner and what was paid,
    and Game over shows each secret objective, whether it was met and its VP."""
    srv = start_table(tmp_path, "bb-moments", "battle-builder", 2, seed=3,
                      options={"monster_select": "auction", "victory": "objectives",
                               "arc": "4+1"})
    servers(srv)
    ps = join_all(phones, srv, ["Ann", "Bo"], shots=False)
    hub = srv.hub
    rng = random.Random(3)
    drive(hub, lambda st: st.round == 2 and st.phase == "select" and
          st.data.auction is None, rng)
    game, st = hub.session.game, hub.session.state
    bids = [min(2, game.wallet(st, 0)), min(1, game.wallet(st, 1))]
    for seat, bid in enumerate(bids):
        hub.submit(seat, "bid_auction", {"tokens": bid})
    lines = hub.public_view()["game_view"]["auction"]["lines"]
    for ph in ps:
        ph.page.wait_for_selector(".reveal[data-window='auction-2'] [data-panel=auction] li")
        shown = ph.page.eval_on_selector_all(
            ".reveal[data-window='auction-2'] li.pcard .choice-text",
            "es => es.map(e => e.textContent)")
        assert shown == [f"{b} token{'s' if b != 1 else ''}" for b in bids]
        assert ph.page.eval_on_selector_all("[data-panel=auction] li",
                                            "es => es.map(e => e.textContent)") == lines
    ps[0].shot("auction-reveal")
    drive(hub, lambda st: st.outcome is not None, rng)
    results = hub.public_view()["game_view"]["objective_results"]
    for ph in ps:
        ph.page.wait_for_selector("[data-panel=outcome] [data-panel=objectives] li")
        assert ph.page.eval_on_selector_all(
            "[data-panel=objectives] li", "es => es.map(e => e.textContent)") == \
            [r["says"] for r in results]
    ps[0].shot("game-over-objectives")
