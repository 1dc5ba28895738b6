"""The table answers every kind of question by taps, drawn from the public view's
``table_legal`` (docs/protocol.md 4.7), through the real hub: one, number, order, subset,
counts, flag and a question that depends on an earlier answer. Nothing is typed; Send stays
off until the answers are legal; what is sent is exactly what was tapped. And a table move
with no questions is one button, on whichever screen the game is on."""
import pytest

from companion.core.log import MemoryLog
from companion.games import get
from companion.service.hub import Hub
from ui import model

from .quiz_game import Quiz

PLAYERS = ["Ann", "Bo", "Cy"]


@pytest.fixture
def quiz_hub(clock):
    h = Hub(MemoryLog(), table="q", clock=clock,
            games=lambda n: Quiz() if n == "quiz" else get(n))
    h.configure("quiz", players=3, names=PLAYERS)
    h.start(seed=1)
    yield h
    h.stop()


def test_every_kind_of_question_is_answered_by_taps(quiz_hub, start_app):
    d = start_app(quiz_hub, catalog={"quiz": Quiz()})
    assert d.app.screen_name == "round"
    d.tap(d.tid("table:settle"))
    send = d.tid("pick:send")
    assert send.disabled                                  # nothing answered yet
    assert "Gold bonus" not in d.texts(clip=False)        # asked only for the gold card
    d.tap(d.tid("pick:card=gold"))
    assert d.tid("pick:card=gold").selected
    assert "Gold bonus" in d.texts(clip=False)
    d.tap(d.tid("pick:bonus:plus"))                       # 1 (its lowest) -> 2
    d.tap(d.tid("pick:steps:minus"))                      # 0 -> -1
    d.tap(d.tid("pick:order=2"))
    d.tap(d.tid("pick:order=0"))
    assert d.tid("pick:order=2").text == "1. Cy" and d.tid("pick:order=0").text == "2. Ann"
    d.tap(d.tid("pick:order=1"))                          # a full order takes no more
    assert d.tid("pick:order=1").text == "Bo"
    d.tap(d.tid("pick:winners=0"))
    d.tap(d.tid("pick:winners=1"))
    d.tap(d.tid("pick:winners=1"))                        # a toggle: Bo out again
    for _ in range(4):                                    # Ann may hold 3 at most
        d.tap(d.tid("pick:split=0:plus"))
    assert "3 of 5" in d.texts(clip=False)
    assert send.disabled                                  # the split must make 5
    d.tap(d.tid("pick:split=2:plus"))
    d.tap(d.tid("pick:split=2:plus"))
    assert "5 of 5" in d.texts(clip=False)
    assert d.tid("pick:split=1:plus").disabled            # the total is reached
    d.tap(d.tid("pick:double"))
    assert not send.disabled
    d.check("picker-every-kind")
    d.tap(send)
    rec = quiz_hub.session.records[-1]
    assert rec["move"] == "settle"
    assert rec["args"] == {"card": "gold", "bonus": 2, "steps": -1, "order": [2, 0],
                           "winners": [0], "split": {"0": 3, "2": 2}, "double": True}
    assert quiz_hub.public_view()["game_view"]["points"] == [10, 0, 0]


def test_changing_an_answer_drops_the_questions_it_no_longer_asks(quiz_hub, start_app):
    d = start_app(quiz_hub, catalog={"quiz": Quiz()})
    d.tap(d.tid("table:settle"))
    d.tap(d.tid("pick:card=gold"))
    d.tap(d.tid("pick:bonus:plus"))
    d.tap(d.tid("pick:card=iron"))
    assert "Gold bonus" not in d.texts(clip=False)
    d.tap(d.tid("pick:order=1"))
    d.tap(d.tid("pick:order=2"))
    d.tap(d.tid("pick:winners=2"))
    for _ in range(3):
        d.tap(d.tid("pick:split=1:plus"))
    d.tap(d.tid("pick:split=2:plus"))
    d.tap(d.tid("pick:split=2:plus"))
    d.tap(d.tid("pick:send"))
    args = quiz_hub.session.records[-1]["args"]
    assert "bonus" not in args and args["card"] == "iron" and args["double"] is False


def test_cancel_sends_nothing(quiz_hub, start_app):
    d = start_app(quiz_hub, catalog={"quiz": Quiz()})
    before = len(quiz_hub.session.records)
    d.tap(d.tid("table:settle"))
    d.tap(d.tid("pick:card=salt"))
    d.tap(d.tid("pick:cancel"))
    assert len(quiz_hub.session.records) == before
    assert "pick:send" not in d.tids()


def settle(hub):
    hub.table_move("settle", {"card": "salt", "steps": 0, "order": [0, 1], "winners": [1],
                              "split": {"0": 3, "1": 2}, "double": False})


def test_a_table_move_without_questions_is_a_button_on_any_screen(quiz_hub, start_app):
    d = start_app(quiz_hub, catalog={"quiz": Quiz()})
    settle(quiz_hub)
    d.pump()
    assert d.app.screen_name == "timer"                # the timer screen asks nothing itself
    bell = d.tid("table:ring")
    assert bell.text == "Ring the bell"
    d.check("table-bar-on-the-timer")
    d.tap(bell)
    assert quiz_hub.session.records[-1]["move"] == "ring"
    assert quiz_hub.public_view()["game_view"]["rings"] == 1


def test_the_pick_helpers_keep_answers_legal():
    specs = Quiz()._settle_choices(type("S", (), {"players": PLAYERS, "n": 3,
                                                   "seats": lambda self: range(3)})(), None)
    args = model.pick_defaults(specs)
    assert args == {"steps": 0, "order": [], "winners": [], "split": {}, "double": False}
    assert model.pick_problem(specs, args) == "Still to answer: Which card."   # not "?: missing."
    args["card"] = "gold"
    args = model.pick_prune(specs, args, fill=True)
    assert args["bonus"] == 1                            # 0 is out of its range: the lowest
    args["card"] = "iron"
    assert "bonus" not in model.pick_prune(specs, args, fill=True)
    order = specs[3]
    assert model.pick_toggle(order, [0, 1], 2) == [0, 1]   # full
    assert model.pick_toggle(order, [0, 1], 0) == [1]
    split = specs[5]
    opts = split["options"]
    assert model.pick_step_count(split, {"0": 3}, "0", 1, opts) == {"0": 3}   # its max
    assert model.pick_step_count(split, {"0": 3, "1": 2}, "2", 1, opts) == {"0": 3, "1": 2}
    assert model.pick_clean(specs, {"card": "iron", "steps": 0, "order": [1, 0],
                                    "winners": [0], "split": {"0": 3, "1": 2, "2": 0},
                                    "double": False})["split"] == {"0": 3, "1": 2}
    assert model.pick_summary(split, {"0": 2, "2": 3}, opts) == "2 Ann, 3 Cy"


def test_a_split_is_filled_in_a_tap_or_two(quiz_hub, start_app):
    """Issue 22: a split (Trade Warz's Draw: eight cards among the piles) took a tap per card.
    Each pile's "+n here" puts all that is left on it, within its own limit."""
    d = start_app(quiz_hub, catalog={"quiz": Quiz()})
    d.tap(d.tid("table:settle"))
    d.tap(d.tid("pick:card=salt"))
    d.tap(d.tid("pick:order=0"))
    d.tap(d.tid("pick:order=1"))
    d.tap(d.tid("pick:winners=0"))
    rest = d.tid("pick:split=0:rest")
    assert rest.text == "+3 here"                  # Ann may hold 3 of the 5
    d.tap(rest)
    assert "3 of 5" in d.texts(clip=False)
    assert d.tid("pick:split=1:rest").text == "+2 here"
    d.tap(d.tid("pick:split=1:rest"))              # two taps for the whole split
    assert "5 of 5" in d.texts(clip=False)
    assert d.tid("pick:split=2:rest").disabled and d.tid("pick:split=2:rest").text == "+0 here"
    d.check("picker-split-rest")
    d.tap(d.tid("pick:send"))
    assert quiz_hub.session.records[-1]["args"]["split"] == {"0": 3, "1": 2}


def test_fill_count_keeps_a_split_legal():
    specs = Quiz()._settle_choices(type("S", (), {"players": PLAYERS, "n": 3,
                                                   "seats": lambda self: range(3)})(), None)
    split = specs[5]
    opts = split["options"]
    assert model.pick_fill_count(split, {}, "0", opts) == {"0": 3}          # its own max
    assert model.pick_fill_count(split, {"0": 3}, "1", opts) == {"0": 3, "1": 2}   # the total
    assert model.pick_fill_count(split, {"0": 3, "1": 2}, "2", opts) == {"0": 3, "1": 2}
