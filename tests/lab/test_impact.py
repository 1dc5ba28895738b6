"""Per-card impact (companion/lab/impact.py): the statistics on known values, the counts of
real Trade Warz games, the live path against the simulated one, and a card made much stronger
in an edited copy being flagged, stably over re-seeded reruns."""
import dataclasses
import random
import shutil
import types

import pytest

from companion import games
from companion.core.clock import FakeClock
from companion.core.log import MemoryLog, SQLiteLog
from companion.core.play import play_out, resolve_bots, wilson
from companion.core.session import Session
from companion.lab import impact
from companion.lab.simulate import seeds_for
from tests.lab.tables import play_table

PLAYERS = ["A", "B", "C"]


def test_wilson_known_values():
    lo, hi = wilson(50, 100)
    assert lo == pytest.approx(0.4038, abs=1e-4) and hi == pytest.approx(0.5962, abs=1e-4)
    r = impact.rate(81, 263)                # Newcombe (1998), Table I: 81/263
    assert r["ci95"] == pytest.approx([0.2553, 0.3662], abs=1e-4)
    assert r["rate"] == pytest.approx(81 / 263)


def test_newcombe_known_values():
    # Newcombe (1998), Statistics in Medicine 17:873-890, Table II, example (a):
    # 56/70 - 48/80, method 10 (score, no continuity correction): 0.0524 to 0.3339.
    ci = impact.newcombe(impact.rate(56, 70), impact.rate(48, 80))
    assert ci == pytest.approx([0.0524, 0.3339], abs=1e-4)
    # (c) 5/56 - 0/29: -0.0381 to 0.1926
    ci = impact.newcombe(impact.rate(5, 56), impact.rate(0, 29))
    assert ci == pytest.approx([-0.0381, 0.1926], abs=1e-4)


def _row(session, seat, share, seen, opening=(), played=(), group=None):
    return impact.SeatCards(session, seat, share, group, frozenset(opening), frozenset(seen),
                            frozenset(played))


def test_card_table_on_made_up_rows():
    # card x: drawn in 40 seat-games winning 30, never in 60 winning 15 -> +45 points
    rows = [_row(f"g{i}", 0, 1.0 if i < 30 else 0.0, {"x"}, opening={"x"} if i < 10 else (),
                 played={"x"} if i < 20 else ()) for i in range(40)]
    rows += [_row(f"h{i}", 0, 1.0 if i < 15 else 0.0, {"y"}) for i in range(60)]
    t = {x["card"]: x for x in impact.card_table(rows)}
    x = t["x"]
    assert x["games"] == 100
    assert (x["drawn"]["wins"], x["drawn"]["games"]) == (30, 40)
    assert (x["never"]["wins"], x["never"]["games"]) == (15, 60)
    assert (x["opening"]["wins"], x["opening"]["games"]) == (10, 10)
    assert (x["played"]["wins"], x["played"]["games"]) == (20, 20)
    assert x["diff"] == pytest.approx(0.75 - 0.25)
    assert x["diff_ci95"] == impact.newcombe(x["drawn"], x["never"])
    assert x["flagged"] and t["y"]["flagged"] and t["y"]["diff"] < 0
    # a difference under 3 points is never flagged, however many games
    rows = [_row(f"g{i}", 0, float(i % 100 < 52), {"z"}) for i in range(100_000)]
    rows += [_row(f"h{i}", 0, float(i % 100 < 50), set()) for i in range(100_000)]
    (z,) = impact.card_table(rows)
    assert z["diff"] == pytest.approx(0.02) and z["diff_ci95"][0] > 0 and not z["flagged"]


def _duels(seed, games=400, x=0.6):
    """Two-seat games in which seat 0 always has card "k" and wins with probability ``x``,
    and seat 1 never has it: one seat wins each game, so the two sides of the difference
    move against each other and the truth is x - (1 - x)."""
    rng = random.Random(seed)
    rows = []
    for i in range(games):
        won = float(rng.random() < x)
        rows += [_row(f"g{i}", 0, won, {"k"}), _row(f"g{i}", 1, 1.0 - won, set())]
    return rows


def test_seat_games_of_one_game_widen_the_interval():
    """Seat-games of one game are not independent. Here the drawn and never sides of every
    game are one win between them: the difference varies twice as much as two independent
    samples (design effect 2), and Newcombe's interval alone covers the truth in about 83-86%
    of replications, not 95%. Widened by the design effect measured from the games, it covers it
    about 95%; rows each from their own game are not widened (design effect 1)."""
    truth = 0.6 - 0.4
    covered, covered_plain, deffs = 0, 0, []
    reps = 300
    for seed in range(reps):
        (k,) = impact.card_table(_duels(seed))
        deffs.append(k["deff"])
        lo, hi = k["diff_ci95"]
        covered += lo <= truth <= hi
        lo, hi = impact.newcombe(k["drawn"], k["never"])
        covered_plain += lo <= truth <= hi
        assert k["p"] >= impact.p_beyond(k["drawn"], k["never"])
    assert 1.8 < sum(deffs) / reps < 2.2
    assert 0.92 <= covered / reps <= 0.98
    assert covered_plain / reps < 0.9
    # the same seat-games, each its own game: nothing to widen
    rows = [dataclasses.replace(r, session=f"{r.session}-{r.seat}") for r in _duels(0)]
    (k,) = impact.card_table(rows)
    assert k["deff"] == 1.0 and k["diff_ci95"] == impact.newcombe(k["drawn"], k["never"])


def test_population_is_the_groups_that_saw_the_card():
    rows = [_row("g1", 0, 1.0, {"usa-card"}, group="USA"),
            _row("g1", 1, 0.0, set(), group="China"),
            _row("g2", 0, 0.0, set(), group="USA")]
    (c,) = impact.card_table(rows)
    assert c["games"] == 2 and c["never"]["games"] == 1     # China's seat is not compared


def test_stability_counts():
    tables = [[{"card": c, "flagged": True} for c in s]
              for s in (["a", "b"], ["a", "b"], ["a"], ["a", "b"], ["a", "b", "c"])]
    st = impact.stability(lambda k: tables[k])
    assert st["counts"] == {"a": 5, "b": 4, "c": 1}
    assert st["stable_set"] == ["a", "b"] and st["modal"] == ["a", "b"]
    assert st["same"] == 3 and not st["stable"]


@pytest.fixture(scope="module")
def shipped():
    g = games.get("trade-warz")
    rows, names = impact.simulate_rows(g, PLAYERS, 30, seed=3)
    return g, rows, names


def test_counts_add_up_on_real_games(shipped):
    g, rows, names = shipped
    assert len(rows) == 30 * 3
    by_game = {}
    for r in rows:
        by_game.setdefault(r.session, []).append(r)
        assert r.opening <= r.seen and r.played <= r.seen and r.opening
        assert r.group                                      # every seat had a Leader
    for seats in by_game.values():
        assert sum(r.share for r in seats) == pytest.approx(1.0)
    table = impact.card_table(rows, names)
    assert table and all(x["name"] != x["card"] for x in table)   # real names
    for x in table:
        assert x["drawn"]["games"] + x["never"]["games"] == x["games"]
        assert x["opening"]["games"] <= x["drawn"]["games"]
        assert x["played"]["games"] <= x["drawn"]["games"]
        assert x["drawn"]["wins"] + x["never"]["wins"] == pytest.approx(
            sum(r.share for r in rows if r.group in {q.group for q in rows if x["card"] in
                                                     q.seen}))
    assert any(x["played"]["games"] for x in table)


def test_live_replay_gives_the_simulated_rows(shipped):
    """The same game played on a real (logged) session and replayed from its log, as a
    table's session is, gives exactly the lean simulation's rows."""
    g, rows, _ = shipped
    seat_bots = resolve_bots(g, "greedy", 3)
    options = g.resolve_options(None)
    log = MemoryLog()
    for gseed in seeds_for(3, 3):
        s = Session.start(g, PLAYERS, log, options=options, seed=gseed, clock=FakeClock(),
                          entropy=random.Random(gseed).randbytes, session_id=f"sim-{gseed}")
        play_out(s, seat_bots, random.Random(gseed ^ 0x5EED))
        live, _ = impact.live_rows(log, [types.SimpleNamespace(id=f"sim-{gseed}")])
        assert live == [r for r in rows if r.session == f"sim-{gseed}"]


def test_live_table_sessions(tmp_path):
    log = SQLiteLog(tmp_path / "s.db")
    s = play_table(log, "trade-warz", 3, seed=31)
    rows, names = impact.live_rows(log, [log.info(s.id)])
    assert len(rows) == 3 and sum(r.share for r in rows) == pytest.approx(1.0)
    played = {(r["seat"], r["args"]["card"]) for r in log.read(s.id)[1:]
              if r.get("move") in impact.TradeWarzCards.moves and (r.get("args") or {}).get(
                  "card")}
    assert played and played == {(r.seat, c) for r in rows for c in r.played}
    table = impact.side_by_side(impact.card_table(rows, names), impact.card_table(rows, names))
    assert all(x["live"] is x["sim"] or x["live"] == x["sim"] for x in table)
    # the report's section: the same live figures beside 5 x 10 bot games
    from companion.lab import report as lab_report
    out = tmp_path / "out"
    lab_report.build(games.get("trade-warz"), log, out=str(out), players=3, impact=10)
    html = (out / "report.html").read_text()
    assert "Per-card impact" in html and "reruns" in html
    lines = (out / "cards.csv").read_text().splitlines()
    live = [ln for ln in lines if ln.startswith("live,")]
    assert len(live) == len(impact.card_table(rows, names))
    assert any(ln.startswith("sim,") for ln in lines)
    assert lines[0].endswith(",p,p_flag,deff")
    assert all(float(ln.rsplit(",", 1)[1]) >= 1.0 for ln in lines[1:] if ln.split(",")[-1])


@pytest.fixture(scope="module")
def strong(tmp_path_factory):
    """A copy where Emergency Stimulus gains 15 GDP instead of 2."""
    d = tmp_path_factory.mktemp("tw") / "data"
    shutil.copytree(games.shipped_data_dir("trade-warz"), d)
    p = d / "tactics.toml"
    old = 'text = "Gain 2 GDP."\neffects = [{ kind = "gain_gdp", amount = 2 }]'
    s = p.read_text()
    assert s.count(old) == 1
    p.write_text(s.replace(old, 'text = "Gain 15 GDP."\n'
                                'effects = [{ kind = "gain_gdp", amount = 15 }]'))
    return games.get("trade-warz", data=d)


@pytest.mark.cpu
def test_a_much_stronger_card_is_flagged_stably(strong):
    """Under the default rule (beyond 3 points at the Holm-corrected level over 93 cards): 200
    games a rerun find it in every rerun, and the whole flagged set is the same in 4 of 5
    (120 games, enough before the correction, found it in 3 of 5: the correction costs games)."""
    def run(k):
        rows, names = impact.simulate_rows(strong, PLAYERS, 200,
                                           seed=impact.rerun_seed(7, k))
        return impact.card_table(rows, names)
    st = impact.stability(run)
    assert st["counts"]["emergency-stimulus"] == 5
    assert "emergency-stimulus" in st["stable_set"]
    assert st["stable"] and st["modal"] == ["emergency-stimulus"]


def test_restricted_play_without_the_strong_card(strong):
    r = impact.restricted(strong, "emergency-stimulus", players=3, games=60, seed=2)
    assert r["games"] == 60 and r["touched"] > 0
    assert r["touched_diff"] < -0.1 and r["diff"] < 0      # (never played: asserted inside)
    # a card that is not in this edition: every pair is the same game twice
    r = impact.restricted(strong, "no-such-card", players=3, games=10, seed=2)
    assert r["diff"] == 0 and r["ci95"] == [0, 0] and r["touched"] == 0


def test_market_trading_improvements():
    g = games.get("market-trading")
    rows, names = impact.simulate_rows(g, ["A", "B"], 20, seed=5)
    assert len(rows) == 40 and any(r.seen for r in rows)
    for r in rows:
        assert not r.opening and r.played <= r.seen
    for x in impact.card_table(rows, names):
        assert x["games"] == 40 and x["name"] in {i.name for i in g.rules.improvements.values()}
        assert x["drawn"]["games"] + x["never"]["games"] == 40


def test_other_games_say_not_built():
    other = types.SimpleNamespace(name="chess", title="Chess")
    with pytest.raises(impact.NotSupported, match="Chess"):
        impact.adapter_for(other)


def test_the_command(capsys):
    import json
    from companion.cli.main import main
    code = main(["impact", "trade-warz", "--games", "6", "--reruns", "2", "--no-live",
                 "--jobs", "1", "--json", "--without", "emergency-stimulus"])
    assert code == 0
    got = json.loads(capsys.readouterr().out)
    assert got["stability"]["reruns"] == 2 and len(got["stability"]["sets"]) == 2
    assert got["games"] == 6 and got["cards"] and got["without"][0]["games"] == 6


# -- the flag rule over many cards -----------------------------------------------------------

def _synthetic(seed, cards=40, seat_games=4000, effect=0.15):
    """Seat-games where each of ``cards`` null cards is drawn with probability 0.3 and has no
    effect, and card ``strong`` (drawn with probability 0.3) adds ``effect`` to the win
    probability (0.3 without it)."""
    rng = random.Random(seed)
    rows = []
    for i in range(seat_games):
        seen = {f"c{k}" for k in range(cards) if rng.random() < 0.3}
        if rng.random() < 0.3:
            seen.add("strong")
        p = 0.3 + (effect if "strong" in seen else 0.0)
        rows.append(_row(f"g{i}", 0, float(rng.random() < p), seen))
    return rows


def test_the_flag_rule_on_many_cards():
    """A true +15 points among 40 cards without an effect: flagged in every rerun, the nulls
    never at the corrected level (both corrected rules), while the uncorrected rule flags
    nulls in some reruns and so changes its set."""
    sets = {rule: [] for rule in ("margin", "holm", "raw")}
    tables = [impact.card_table(_synthetic(seed)) for seed in range(5)]
    for table in tables:
        assert all(x["tested"] == 41 for x in table)
        for rule in sets:
            sets[rule].append(impact.flagged(impact.flag_cards(table, rule=rule)))
    assert sets["margin"] == [{"strong"}] * 5
    strong = [x for x in impact.flag_cards(tables[0]) if x["card"] == "strong"][0]
    assert strong["p_flag"] <= 0.05 / 41 and strong["p_flag"] > strong["p"]
    assert sets["holm"] == [{"strong"}] * 5
    assert all("strong" in s for s in sets["raw"])
    assert sum(len(s) - 1 for s in sets["raw"]) > 0          # chance flags without correction
    st = impact.stability(lambda k: impact.flag_cards(tables[k]))
    assert st["same"] == 5 and st["stable"] and st["modal"] == ["strong"]


def test_p_values_and_holm():
    a, b = impact.rate(56, 70), impact.rate(48, 80)
    # the p-value inverts Newcombe's interval: at 1 - p it just touches 0 (or the margin)
    p = impact.p_beyond(a, b)
    lo, _ = impact.newcombe(a, b, impact.z_of(p))
    assert 0.001 < p < 0.05 and lo == pytest.approx(0, abs=1e-6)
    p3 = impact.p_beyond(a, b, 0.03)
    assert p3 > p and impact.newcombe(a, b, impact.z_of(p3))[0] == pytest.approx(0.03, abs=1e-6)
    assert impact.p_beyond(impact.rate(50, 100), impact.rate(49, 100), 0.03) == 1.0
    assert impact.z_of(0.05) == pytest.approx(1.95996, abs=1e-4)
    # Holm: 0.01 <= 0.05/4, 0.015 <= 0.05/3, 0.03 > 0.05/2 stops (0.04 is not reached)
    assert impact.holm({"a": 0.01, "b": 0.015, "c": 0.03, "d": 0.04}) == {"a", "b"}
    assert impact.holm({}) == set()


# -- Great Powers and Battle Builder ----------------------------------------------------------

def _logged(name, players, gseed):
    """One bot game on a logged session: (its records, its final state, the rows the lean
    simulation gives for the same seed)."""
    g = games.get(name)
    seat_bots = resolve_bots(g, "greedy", len(players))
    log = MemoryLog()
    s = Session.start(g, players, log, options=g.resolve_options(None), seed=gseed,
                      clock=FakeClock(), entropy=random.Random(gseed).randbytes,
                      session_id=f"sim-{gseed}")
    play_out(s, seat_bots, random.Random(gseed ^ 0x5EED))
    lean, _ = impact.play_one(g, players, gseed, seat_bots, g.resolve_options(None))
    live, _ = impact.live_rows(log, [types.SimpleNamespace(id=f"sim-{gseed}")])
    assert live == lean                                     # replayed = simulated
    return log.read(f"sim-{gseed}"), s.state, lean


def _moves(records, *names):
    return [r for r in records[1:] if r.get("kind") == "move" and r.get("move") in names]


def test_great_powers_rows_match_the_records():
    expect_rows = []
    for gseed in seeds_for(11, 3):
        records, state, rows = _logged("great-powers", PLAYERS, gseed)
        o = state.outcome
        for r in rows:
            taken = {m["args"]["card"] for m in _moves(records, "take_action", "resolve_drawn")
                     if m["seat"] == r.seat}
            resolved = {m["args"]["card"] for m in _moves(records, "resolve_drawn")
                        if m["seat"] == r.seat} | {
                m["args"]["card"] for m in _moves(records, "take_action")
                if m["seat"] == r.seat and m["args"].get("resolve", True)}
            bids = [m["args"]["traits"] for m in _moves(records, "submit_bids")
                    if m["seat"] == r.seat]
            assert {c for c in r.seen if not c.startswith("bid:")} == taken
            assert {c for c in r.played if not c.startswith("bid:")} == resolved
            assert {c for c in r.seen if c.startswith("bid:")} == {
                f"bid:{t}" for b in bids for t in b}
            assert r.opening == {f"bid:{t}" for t in bids[0]}             # turn 1's bids
            assert {c for c in r.played if c.startswith("bid:")} == {
                f"bid:{b[0]}" for b in bids if b}
            assert r.group is None and r.share == (
                1 / len(o.winners) if r.seat in o.winners else 0.0)
        expect_rows += rows
    # a card's counts in the table are the seat-games whose records show it
    names = impact.GreatPowersCards(games.get("great-powers")).names(None)
    table = {x["card"]: x for x in impact.card_table(expect_rows, names)}
    for card, x in table.items():
        drawn = [r for r in expect_rows if card in r.seen]
        assert x["games"] == 9 and x["drawn"]["games"] == len(drawn)
        assert x["drawn"]["wins"] == pytest.approx(sum(r.share for r in drawn))
        assert x["never"]["games"] == 9 - len(drawn)
        assert x["played"]["games"] == sum(card in r.played for r in expect_rows)
        assert x["name"] == names[card]
    assert table["bid:navy"]["name"] == "Bid card: Navy"


def test_battle_builder_rows_match_the_records():
    g = games.get("battle-builder")
    cards = g.rules.cards
    all_rows, battles = [], 0
    for gseed in seeds_for(5, 2):
        records, state, rows = _logged("battle-builder", PLAYERS, gseed)
        track = state.data.track["battles"]
        battles += sum(len(b["monsters"]) for b in track)
        for r in rows:
            bought = {m["args"]["card"] for m in _moves(records, "buy") if m["seat"] == r.seat}
            attacked = {m["args"]["card"] for m in _moves(records, "play_turn", "extra_attack")
                        if m["seat"] == r.seat and cards[m["args"]["card"]].tier > 0}
            fought = {f"monster:{m}" for b in track if r.seat in b["seats"]
                      for m in b["monsters"]}
            beaten = {f"monster:{m}" for b in track if r.seat in b["seats"] and b["won"]
                      for m in b["monsters"]}
            mine = {c for c in r.seen if not c.startswith("monster:")}
            assert mine == bought == set(state.data.bought[r.seat])
            assert {c for c in r.seen if c.startswith("monster:")} == fought
            assert {c for c in r.played if c.startswith("monster:")} == beaten
            played_cards = {c for c in r.played if not c.startswith("monster:")}
            assert attacked == {c for c in played_cards if cards[c].kind == "attack"}
            assert played_cards <= bought and not r.opening
            assert r.fights == tuple((b["id"], m, b["won"]) for b in track
                                     if r.seat in b["seats"] for m in b["monsters"])
        all_rows += rows
    mt = impact.monster_table(all_rows, g)
    assert sum(m["battles"]["games"] for m in mt["monsters"]) == battles   # each battle once
    assert sum(d["battles"]["games"] for d in mt["difficulties"]) == battles
    for d in mt["difficulties"]:
        assert d["battles"]["wins"] == sum(m["battles"]["wins"] for m in mt["monsters"]
                                           if m["difficulty"] == d["difficulty"])


@pytest.mark.parametrize("name,players", [("great-powers", 3), ("battle-builder", 2)])
def test_live_sessions_beside_the_bots(tmp_path, name, players):
    """A table's session of the new games goes through the same study, side by side."""
    log = SQLiteLog(tmp_path / "s.db")
    s = play_table(log, name, players, seed=3)
    rows, names = impact.live_rows(log, [log.info(s.id)])
    res = impact.study(games.get(name), players=players, games=4, reruns=2, log=log)
    assert res["live_games"] == 1
    assert [x for x in res["cards"] if x["live"]] and \
        {x["card"] for x in res["live"]} == {c for r in rows for c in r.seen}
    if name == "battle-builder":
        assert res["monsters"]["live"]["monsters"] == impact.monster_table(
            rows, games.get(name))["monsters"]
        assert "Monster battles won" in impact.text(res)
    assert "Flagged when the difference is beyond 3 points" in impact.text(res)
    from companion.lab.report import _impact_html
    page = _impact_html(res)
    assert ("Monster battles won" in page) == (name == "battle-builder")
    assert "Holm-corrected" in page


@pytest.mark.parametrize("name,players", [("great-powers", "3"), ("battle-builder", "2")])
def test_the_command_for_the_new_games(capsys, name, players):
    import json
    from companion.cli.main import main
    code = main(["impact", name, "--players", players, "--games", "4", "--reruns", "2",
                 "--no-live", "--jobs", "1", "--json"])
    assert code == 0
    got = json.loads(capsys.readouterr().out)
    assert got["rule"] == "margin" and got["stability"]["reruns"] == 2 and got["cards"]
    assert (got["monsters"] is not None) == (name == "battle-builder")
    assert main(["impact", name, "--players", players, "--games", "4", "--reruns", "1",
                 "--no-live", "--jobs", "1", "--flag-rule", "raw"]) == 0
    assert "own 95% interval" in capsys.readouterr().out


@pytest.mark.parametrize("name,card,n", [("great-powers", "industrial-revolution", 8),
                                         ("battle-builder", "aegis", 2)])
def test_restricted_play_in_the_new_games(name, card, n):
    """The forbidden seat never takes (Great Powers) or buys (Battle Builder) the card:
    asserted on every restricted game inside; bid cards and monsters cannot be forbidden."""
    g = games.get(name)
    r = impact.restricted(g, card, players=3, games=n, seed=1)
    assert r["games"] == n and r["touched"] == 2          # games where the seat had it
    with pytest.raises(impact.NotSupported):
        impact.restricted(g, "bid:navy" if name == "great-powers" else "monster:troll",
                          players=3, games=1)
