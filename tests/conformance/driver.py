"""Playing any registered game in tests: sessions, bots, a spread of options drawn from the
game's own ``options`` (so a new game needs nothing written for it)."""
import itertools
import random

from companion.core.clock import FakeClock
from companion.core.errors import ConfigError
from companion.core.log import MemoryLog
from companion.core.play import play_by_taps, play_out, run_out_the_clock
from companion.core.session import Session, fold
from companion.games import registry

GAMES = registry()


def players(n):
    return [f"P{i}" for i in range(n)]


def counts(game):
    return range(game.min_players, game.max_players + 1)


def start(game, n, seed, options=None, log=None, session_id=None):
    return Session.start(game, players(n), log or MemoryLog(copy_records=False),
                         options=options, seed=seed, clock=FakeClock(),
                         entropy=random.Random(seed).randbytes,
                         session_id=session_id or f"c{seed}")


def _alternatives(option):
    if option.choices:
        return [c for c in option.choices if c != option.default]
    if isinstance(option.default, bool):
        return [not option.default]
    return []


def option_spread(game, extra_mixes=6, seed=0):
    """The defaults; every option set to each of its other values in turn; and a few random
    mixes of several options. (Free-form options, a number or a text, keep their default.)"""
    alts = {o.name: _alternatives(o) for o in game.options}
    out = [{}]
    for name, values in alts.items():
        out += [{name: v} for v in values]
    rng = random.Random(seed)
    names = [n for n, v in alts.items() if v]
    for _ in range(extra_mixes if names else 0):
        pick = rng.sample(names, min(len(names), rng.randint(2, 5)))
        out.append({n: rng.choice(alts[n]) for n in pick})
    return out


def playable(game, n, options):
    """Can a table of ``n`` start with these options (a clear refusal otherwise)?"""
    try:
        start(game, n, 0, options)
        return True
    except ConfigError:
        return False


def configurations(game, per_count=None):
    """``(n, options)`` for every player count and the spread of options it accepts, in a
    stable order; ``per_count`` keeps that many per count (cycling through the spread)."""
    spread = option_spread(game)
    out = []
    for n in counts(game):
        ok = [o for o in spread if playable(game, n, o)]
        if per_count is not None:
            ok = list(itertools.islice(itertools.cycle(ok), per_count)) if ok else []
        out += [(n, o) for o in ok]
    return out


def bots_for(game, n, seed):
    """The fast bots in turn (a search bot, which has a thinking budget of ``iterations``,
    takes seconds a game: the stored games and these checks are the fast bots')."""
    names = sorted(k for k, b in game.bots.items() if not getattr(b, "iterations", None))
    return [game.bots[names[(seed + i) % len(names)]] for i in range(n)]


def play(game, n, seed, options=None):
    s = start(game, n, seed, options)
    play_out(s, bots_for(game, n, seed), random.Random(seed))
    return s


def tapped(game, n, seed, options=None, taps=None):
    """A session of ``game`` played to the end by players who only tap what ``legal`` offers
    (their taps drawn from ``taps``, the seed by default), checked: zero refusals, winners,
    and its log replays to the identical state."""
    s = start(game, n, seed, options)
    outcome, refused = play_by_taps(s, random.Random(seed if taps is None else taps))
    assert refused == [], (game.name, n, seed, options, refused[:3])
    assert outcome is not None and outcome.winners, (game.name, n, seed, options)
    assert fold(game, s.records).fingerprint() == s.state.fingerprint(), (n, seed, options)
    return s


def one_command(s, rng, bots=None):
    """Whoever is asked answers with a bot (the table with the game's table bot); with nobody
    asked, the next timer runs out."""
    state, game = s.state, s.game
    if not state.prompts:
        run_out_the_clock(s)
        return
    seat = min(state.prompts, key=lambda x: -1 if x is None else x)
    if seat is None:
        move, args = game.table_bot(game, game.observe(state, None), rng)
    else:
        bot = (bots or {}).get(seat) or game.bots["random"]
        move, args = bot(game, game.observe(state, seat), rng)
    s.execute(seat, move, args)
