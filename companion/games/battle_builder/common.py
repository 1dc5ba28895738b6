"""What every part of Battle Builder shares: the game's data (:class:`BBData`), its constants and
small helpers for sentences and whole-number arguments."""
import dataclasses

from companion.core.args import is_whole
from companion.core.errors import IllegalMoveError
from companion.core.story import and_words as _and  # noqa: F401 (the games' modules import it from here)

PAIRINGS_4 = ([[0, 1], [2, 3]], [[0, 2], [1, 3]], [[0, 3], [1, 2]])
TOKEN_NAMES = ("skill", "attack", "defense", "speed", "hp", "combat", "training")
REVENGE_USES = ("stamina", "defense", "damage")


def _or(items):
    """``a``, ``a or b``, ``a, b or c``."""
    items = list(items)
    return " or ".join(items) if len(items) < 3 else ", ".join(items[:-1]) + " or " + items[-1]


def _tokens(n):
    """``1 token``, ``3 tokens``, ``nothing`` for 0 paid."""
    return f"{n} token{'s' if n != 1 else ''}"


def _gained(tokens, vp):
    """``+4 tokens, +1 VP``, or ``nothing``."""
    parts = ([f"+{tokens} token{'s' if tokens != 1 else ''}"] if tokens else []) + \
        ([f"+{vp} VP"] if vp else [])
    return ", ".join(parts) if parts else "nothing"


@dataclasses.dataclass
class BBData:
    vp: list
    tokens: list                    # per seat: {token type: count}
    attack: list                    # per seat: attack card ids owned (the deck)
    defense: list                   # per seat: defence card ids owned
    hp_ups: list
    st_ups: list
    monster_deck: list
    env_deck: list
    arena_deck: list
    fixed_teams: list
    monster_discard: list = dataclasses.field(default_factory=list)
    teams: list = dataclasses.field(default_factory=list)
    offers: list = dataclasses.field(default_factory=list)       # per team, face up (draw3)
    pool: list = dataclasses.field(default_factory=list)         # auction: face up
    dual_draws: dict = dataclasses.field(default_factory=dict)   # seat -> ids (private)
    picks: list = dataclasses.field(default_factory=list)        # per team: chosen monsters
    auction: dict | None = None
    prep: dict = dataclasses.field(default_factory=dict)         # seat -> role / bet (revealed)
    battles: dict = dataclasses.field(default_factory=dict)      # this phase's battles
    # per seat, in the current battle
    hp: list = dataclasses.field(default_factory=list)
    max_now: list = dataclasses.field(default_factory=list)
    stamina: list = dataclasses.field(default_factory=list)
    pile: list = dataclasses.field(default_factory=list)         # attack cards left to play
    ddeck: list = dataclasses.field(default_factory=list)        # defence draw pile (hidden order)
    ddiscard: list = dataclasses.field(default_factory=list)
    negate: list = dataclasses.field(default_factory=list)
    mods: list = dataclasses.field(default_factory=list)         # revenge: damage, defense_cards
    bstats: list = dataclasses.field(default_factory=list)
    win_of: list = dataclasses.field(default_factory=list)       # seat -> open turn window
    battle_of: list = dataclasses.field(default_factory=list)
    # shop
    shop_pool: list = dataclasses.field(default_factory=list)
    stock: dict = dataclasses.field(default_factory=dict)
    convert_ok: bool = False
    bought: list = dataclasses.field(default_factory=list)
    # PvP
    pvp_no: int = 0
    pvp_done: int = 0
    pvp_now: bool = False
    pairings: list = dataclasses.field(default_factory=list)
    byes: list = dataclasses.field(default_factory=list)
    sat_out: list = dataclasses.field(default_factory=list)     # seat -> PvPs sat out (3 players)
    pvp_prep: dict = dataclasses.field(default_factory=dict)
    pots: dict = dataclasses.field(default_factory=dict)         # battle id -> tokens in the pot
    revenge: list = dataclasses.field(default_factory=list)
    last_pvp_winners: list = dataclasses.field(default_factory=list)
    results_said: list = dataclasses.field(default_factory=list)  # the last battles' results
    # records for scoring and the playtest log
    monsters_defeated: list = dataclasses.field(default_factory=list)
    pvp_wins: list = dataclasses.field(default_factory=list)
    objective_offer: dict = dataclasses.field(default_factory=dict)   # private
    objective: dict = dataclasses.field(default_factory=dict)         # private until the end
    bonuses: dict = dataclasses.field(default_factory=dict)
    ending: dict | None = None
    vp_curve: list = dataclasses.field(default_factory=list)
    track: dict = dataclasses.field(default_factory=dict)


def _int(value, what, lo, hi=None):
    if not is_whole(value):
        raise IllegalMoveError(f"{what} must be a whole number, not {value!r}.")
    if value < lo or (hi is not None and value > hi):
        rng = f"from {lo} to {hi}" if hi is not None else f"at least {lo}"
        raise IllegalMoveError(f"{what} must be {rng}; {value} is not.")
    return value
