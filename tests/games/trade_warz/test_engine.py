"""The effect engine's fast paths agree with the plain ones, and the modifier cache follows
every change of what is in play."""
import random

from companion.core.play import play_out

from .helpers import GAME, drive, session


def test_export_options_agree_with_cost_of_and_route_value():
    checked = 0
    for seed in range(10):
        ed = ("trade", "tariff")[seed % 2]
        s = session(4, seed=seed, edition=ed)
        ix = None
        for rnd in (1, 2, 3):
            try:
                drive(s, lambda st: st.phase == "trade" and st.round == rnd,
                      rng=random.Random(seed))
            except AssertionError:
                break
            st = s.state
            ix = GAME.ix(st)
            cards = sorted(ix.exports)
            for seat in range(4):
                table = GAME.export_options(st, seat, cards)
                for c in cards:
                    for p in ix.partners:
                        assert table[c, p] == (GAME.cost_of(st, seat, c, p),
                                               GAME.route_value(st, seat, c, p)), (seed, c, p)
                        checked += 1
    assert checked > 10_000


def test_modifier_cache_follows_policies_routes_tactics_and_events():
    s = session(3, seed=4, leaders="usa,china,russia")
    drive(s, lambda st: st.phase == "trade")
    st = s.state
    d = st.data
    before = GAME.cost_of(st, 1, "discount-sneakers", "neutralia")
    d.board.policy[0] = "buy-local-campaign"            # opponents' Exports +1
    assert GAME.cost_of(st, 1, "discount-sneakers", "neutralia") == before + 1
    d.board.policy[0] = None
    assert GAME.cost_of(st, 1, "discount-sneakers", "neutralia") == before
    # China's own ability: Manufactured Exports cost 1 less
    assert GAME.cost_of(st, 1, "discount-sneakers") == max(0, 2 - 1) + (
        1 if d.board.event == "supply-chain-hiccup" else 0)
    play_out(s, [GAME.bots["greedy"]] * 3, random.Random(1))
