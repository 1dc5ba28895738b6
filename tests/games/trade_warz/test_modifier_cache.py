"""What a modifier does to a seat is worked out once per modifier table and kept
(``Modifiers.standing``, modifiers.py) until something it depends on changes: the modifiers in
play, the Fast-Pass locks (a shield), and GDP when a modifier in play reads it (a condition,
the richest or the poorest). Each test changes one of these between two reads of a cost and
requires the second read to follow the rules, not the kept value."""
import shutil

from companion.core.game import new_state
from companion.games.trade_warz import from_data
from companion.games.trade_warz.cards import DATA_DIR

from .helpers import GAME, names
from .test_cards import edit

TACTIC = "eu-cookie-consent-banner"     # "This round, one opponent's Tactics cost 2 GDP more."
PEG = "china-currency-peg"              # Tariff Warz: "Your Exports cost 1 GDP less."


def table(game=GAME, edition="trade"):
    st = new_state(game, names(4), {"edition": edition,
                                    "leaders": "usa,china,russia,eu"}, seed=5)
    return st, st.data


def fresh_cost(seat, cid, *changes):
    """``cid``'s cost to ``seat`` on a new table with ``changes`` (functions of its data) made
    before anything is worked out: what the kept values must equal."""
    st, d = table()
    for change in changes:
        change(d)
    return GAME.cost_of(st, seat, cid)


def banner_on(target):
    def change(d):
        d.board.in_play.append({"card": TACTIC, "owner": 3, "ch": {"target": target}})
    return change


def lock(seat, on=True):
    def change(d):
        d.locked[seat] = on
    return change


def test_a_fast_pass_lock_shields_a_seat_from_a_modifier_already_worked_out():
    st, d = table()
    base = GAME.cost_of(st, 0, TACTIC)
    banner_on(0)(d)
    assert GAME.cost_of(st, 0, TACTIC) == base + 2          # worked out and kept
    assert GAME.cost_of(st, 1, TACTIC) == fresh_cost(1, TACTIC, banner_on(0))
    lock(0)(d)                                              # not a board change
    shielded = GAME.cost_of(st, 0, TACTIC)
    assert shielded == fresh_cost(0, TACTIC, banner_on(0), lock(0)) < base + 2
    lock(0, False)(d)
    assert GAME.cost_of(st, 0, TACTIC) == base + 2


def test_the_same_modifier_aimed_at_another_seat_is_a_new_table():
    st, d = table()
    base = [GAME.cost_of(st, s, TACTIC) for s in range(4)]
    banner_on(0)(d)
    assert GAME.cost_of(st, 0, TACTIC) == base[0] + 2
    d.board.in_play[0]["ch"]["target"] = 2                  # changed in place
    assert [GAME.cost_of(st, s, TACTIC) for s in (0, 2)] == [base[0], base[2] + 2]
    d.board.in_play.pop()
    assert GAME.cost_of(st, 2, TACTIC) == base[2]


def test_a_modifier_with_a_gdp_condition_follows_gdp(tmp_path):
    data = tmp_path / "data"
    shutil.copytree(DATA_DIR, data)
    edit(data / "deck-china.toml", PEG, 'amount = -1 }', 'amount = -1, condition = "poorest" }')
    game = from_data(data)
    st, d = table(game, "tariff")
    export = next(c for c, item in game.ix(st).items.items()
                  if item.kind == "export" and item.cost >= 2)
    base = game.cost_of(st, 1, export)
    d.board.policy[1] = PEG                                 # China's Policy, in play
    d.gdp[:] = [9, 3, 8, 7]
    assert game.cost_of(st, 1, export) == base - 1          # China is the poorest
    d.gdp[1] = 12                                           # GDP is not on the board
    assert game.cost_of(st, 1, export) == base
    d.gdp[1] = 1
    assert game.cost_of(st, 1, export) == base - 1
