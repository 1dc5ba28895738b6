"""Issue 34 on real phones (headless Chromium): the Battle Builder player sitting out a PvP is
told so on her phone and asked to bet on the one match, by the fighters' names; Market
Trading's phones show every player's points during the game."""
import random

from .conftest import drive, join_all, start_table


def test_the_player_sitting_out_a_pvp_is_told_so_and_bets_on_the_match_by_name(
        servers, phones, tmp_path):
    srv = start_table(tmp_path, "bb-bye", "battle-builder", 3, seed=2,
                      options={"spectator_bets": True})
    servers(srv)
    ps = join_all(phones, srv, ["Ann", "Bo", "Cy"], shots=False)
    hub = srv.hub
    rng = random.Random(1)
    st = drive(hub, lambda s: s.phase == "pvp_prep" and any(
        "bet_on" in (s.prompts.get(b) or {}) for b in s.data.byes), rng, limit=3000,
        skip=())
    bye = st.data.byes[0]
    a, b = st.data.pairings[0]
    names = st.players
    me = ps[bye]
    me.page.wait_for_function(
        "() => [...document.querySelectorAll('#feed li.mine')].some("
        "(li) => li.textContent.startsWith('You sit this PvP out: '))", timeout=15_000)
    me.page.wait_for_selector("text=Bet on the match, " + f"{names[a]} v {names[b]}?")
    feed = me.visible_text("#feed")
    assert f"PvP {st.data.pvp_no}: {names[a]} fights {names[b]}; {names[bye]} sits this one " \
           f"out." in feed
    # the fighters are told nothing of sitting out, and are asked nothing about bets
    for s in (a, b):
        assert "You sit this PvP out" not in ps[s].visible_text("#feed")
        assert "Bet on the" not in ps[s].visible_text("body")
    assert not me.unreadable(), me.unreadable()
    me.shot("bb-sitting-out")


def test_market_trading_phones_show_every_players_points(servers, phones, tmp_path):
    srv = start_table(tmp_path, "mt-points", "market-trading", 2, seed=3)
    servers(srv)
    ps = join_all(phones, srv, ["Ann", "Bo"], shots=False)
    gv = srv.hub.public_view()["game_view"]
    for ph in ps:
        for s in range(2):
            ph.page.wait_for_selector(f"#players li[data-seat='{s}'] .score")
            assert ph.page.text_content(f"#players li[data-seat='{s}'] .score") == \
                f"{gv['earned'][s]} pts · {gv['bowl'][s]} left"
    ps[0].shot("mt-points")


def test_a_battles_result_stays_in_sight_on_the_phone_after_the_battle(servers, phones,
                                                                          tmp_path):
    """The result was one feed line below the fold: it stays at the top of the phone (under
    the player's own figures) until the next battle; tokens are called tokens."""
    srv = start_table(tmp_path, "bb-result", "battle-builder", 2, seed=2)
    servers(srv)
    ps = join_all(phones, srv, ["Ann", "Bo"], shots=False)
    st = drive(srv.hub, lambda s: s.phase == "shop", random.Random(1), limit=3000)
    said = st.data.results_said
    assert len(said) == 1
    ph = ps[0]
    ph.page.wait_for_selector("#me [data-stat=last-battle]")
    assert ph.page.text_content("#me [data-stat=last-battle]") == "Last battle: " + said[0]
    assert ph.page.text_content("#me [data-stat='Skill tokens'] .k") == "Skill tokens"
    assert not ph.unreadable(), ph.unreadable()
    ph.shot("bb-last-battle")
