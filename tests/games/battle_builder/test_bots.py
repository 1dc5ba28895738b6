"""Battle Builder bots: they answer every prompt, whatever the variant (issue 12's crash)."""
import random

from companion.core.clock import FakeClock
from companion.core.log import MemoryLog
from companion.core.play import play_out, resolve_bots
from companion.core.session import Session
from companion.games.battle_builder.bots import win_chance

from .helpers import GAME, fresh


def test_issue12_greedy_bot_survives_hard_dual_monsters_with_every_ability():
    """`companion play battle-builder --players 3 --seed 10 --bots random,greedy,random
    --option monster_pool=hard --option dual_monsters=true --option monster_abilities=all
    --option tokens=D --option earning=betting` raised OverflowError in win_chance."""
    opts = {"monster_pool": "hard", "dual_monsters": True, "monster_abilities": "all",
            "tokens": "D", "earning": "betting"}
    s = Session.start(GAME, ["P1", "P2", "P3"], MemoryLog(), options=opts, seed=10,
                      clock=FakeClock())
    outcome = play_out(s, resolve_bots(GAME, "random,greedy,random", 3), random.Random(10))
    assert outcome.winners


def test_win_chance_is_a_probability_even_for_hopeless_fights():
    st = fresh(3, seed=1, monster_abilities="all")
    hard = [m for m, c in GAME.rules.monsters.items() if c.difficulty == "hard"]
    for s in range(3):                       # a team that barely scratches anything
        st.data.attack[s] = ["jab"]
    view = GAME.observe(st, 0)
    p = win_chance(GAME, view, [0, 1, 2], hard * 4)
    assert 0.0 <= p < 0.01
    easy = [m for m, c in GAME.rules.monsters.items() if c.difficulty == "easy"]
    assert 0.0 <= win_chance(GAME, view, [0, 1, 2], easy[:1]) <= 1.0
