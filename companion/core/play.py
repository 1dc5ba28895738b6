"""Driving a session with bots, and simulating many games (pure: no I/O but the log given).

A bot is ``bot(game, view, rng) -> (move, args)`` answering ``view.prompt``: ``view`` is the
seat's observation (:func:`.views.observe`: public facts and the seat's own, never the state);
the table's bot gets the table's (seat ``None``: a confirmation the table would tap).
"""
import math
import random

from .game import apply_move
from .log import MemoryLog
from .session import LeanSession, Session


def resolve_bots(game, spec, n):
    """``spec``: a bot name for all seats ("greedy"), or a comma list per seat
    ("greedy,random,greedy")."""
    from .errors import ConfigError
    names = [s.strip() for s in spec.split(",")] if isinstance(spec, str) else list(spec)
    if len(names) == 1:
        names = names * n
    if len(names) != n:
        raise ConfigError(f"Give one bot for all seats or one per seat ({n}), not {len(names)}.")
    out = []
    for name in names:
        if name not in game.bots:
            raise ConfigError(f"{game.title} has no bot {name!r}. Bots: "
                              f"{', '.join(game.bots)}.")
        out.append(game.bots[name])
    return out


def run_out_the_clock(session):
    """Nobody is asked anything: let the next timer run out (the game waits for it)."""
    state = session.state
    due = state.next_deadline()
    if due is None:
        raise RuntimeError(f"{session.game.title}: nobody is prompted and no timer runs "
                           f"(phase {state.phase})")
    session.clock.set(max(session.clock.now(), due))
    session.tick()


def play_out(session, bots, rng, max_commands=100_000):
    """Let the bots answer every prompt until the game ends."""
    game, table_bot = session.game, getattr(session.game, "table_bot", None)
    if type(session) is LeanSession:
        return _play_out_lean(session, bots, rng, max_commands, table_bot)
    for _ in range(max_commands):
        state = session.state
        if state.outcome is not None:
            return state.outcome
        if not state.prompts:
            run_out_the_clock(session)
            continue
        prompts = state.prompts
        if len(prompts) == 1:
            for seat in prompts:
                break
        else:                                       # the table first, then the lowest seat
            seat = None if None in prompts else min(prompts)
        if seat is None:
            if table_bot is None:
                raise RuntimeError(f"{game.title}: a table prompt but no table bot")
            move, args = table_bot(game, game.observe(state, None), rng)
        else:
            move, args = bots[seat](game, game.observe(state, seat), rng)
        session.execute(seat, move, args)
    raise RuntimeError("the game did not end")


def _play_out_lean(session, bots, rng, max_commands, table_bot):
    """:func:`play_out` on a :class:`~.session.LeanSession` (a simulation's): the same choices
    of who acts and the same commands, each applied as :meth:`LeanSession.execute` applies it,
    without a method call and an observation's detour through ``game.observe`` per command
    (most of a simulated game's time is spent per command)."""
    game, state, clock = session.game, session.state, session.clock
    direct = game.direct_observation()      # None: the game has its own observe()
    now = clock.now
    done = 0                # commands applied here, added to session.commands on the way out
    try:
        for _ in range(max_commands):
            if state.outcome is not None:
                return state.outcome
            prompts = state.prompts
            if not prompts:
                run_out_the_clock(session)
                continue
            if len(prompts) == 1:
                for seat in prompts:
                    break
            else:                                   # the table first, then the lowest seat
                seat = None if None in prompts else min(prompts)
            if seat is None:
                if table_bot is None:
                    raise RuntimeError(f"{game.title}: a table prompt but no table bot")
                bot = table_bot
            else:
                bot = bots[seat]
            move, args = bot(game, direct(game, state, seat) if direct is not None else
                             game.observe(state, seat), rng)
            apply_move(game, state, seat, move, args or {}, None, now())     # execute()
            done += 1
    finally:
        session.commands += done
    raise RuntimeError("the game did not end")


def tap(game, state, seat, rng, any_time_weight=0.15):
    """What a player who only taps what the screen offers might do: a random move from the
    seat's ``legal`` list (:func:`.views.legal`) with arguments sampled from its specs. At a
    table prompt the table taps Next most of the time. Returns ``(move, args)`` or None."""
    from . import choices, views
    p = state.prompts.get(seat)
    if seat is None and p is not None and p.get("next") and rng.random() < 0.7:
        return p["next"], dict(p.get("next_args") or {})
    legal = views.legal(game, state, seat)
    prompted = set(p["moves"]) if p else set()
    pool = [m for m in legal if m["move"] in prompted]
    extra = [m for m in legal if m["move"] not in prompted]
    if extra and (not pool or rng.random() < any_time_weight):
        pool = extra
    rng.shuffle(pool)
    for m in pool:
        args = choices.sample(m["args"], rng)
        if args is not None:
            return m["move"], args
    return None


def play_by_taps(session, rng, max_commands=20_000):
    """Play a session to the end with :func:`tap` for every seat and the table. Returns
    ``(outcome, refused)``: every tapped move the rules refused, as ``(move, args, error)``
    (a legal-choices list that offers something the rules refuse is a bug)."""
    from .errors import IllegalMoveError
    game = session.game
    refused = []
    for _ in range(max_commands):
        state = session.state
        if state.outcome is not None:
            return state.outcome, refused
        if not state.prompts:
            run_out_the_clock(session)
            continue
        seats = sorted(state.prompts, key=lambda s: -1 if s is None else s)
        seat = rng.choice(seats)
        picked = tap(game, state, seat, rng)
        if picked is None:
            raise RuntimeError(f"{game.title}: {seat!r} is prompted in phase {state.phase} "
                               f"but its legal list offers nothing it can send: "
                               f"{state.prompts[seat]}")
        move, args = picked
        try:
            session.execute(seat, move, args)
        except IllegalMoveError as e:
            refused.append((move, args, str(e)))
            if len(refused) > 50:
                return None, refused
    raise RuntimeError("the game did not end")


def wilson(k, n, z=1.96):
    """95% Wilson score interval of a proportion k/n.

    >>> lo, hi = wilson(50, 100)
    >>> round(lo, 3), round(hi, 3)
    (0.404, 0.596)
    """
    if n == 0:
        return (0.0, 1.0)
    p = k / n
    den = 1 + z * z / n
    mid = (p + z * z / (2 * n)) / den
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / den
    return (max(0.0, mid - half), min(1.0, mid + half))


def play_one(game, players, gseed, seat_bots, options=None, lean=False):
    """One bot game; returns (outcome, session). The real session path, or with ``lean`` a
    :class:`~.session.LeanSession` (the same rules and the same game for the same seed, without
    log, commitments or notices: what simulations use)."""
    from .clock import FakeClock
    if lean:
        s = LeanSession(game, players, options=options, seed=gseed, clock=FakeClock())
        return play_out(s, seat_bots, random.Random(gseed ^ 0x5EED)), s
    log = MemoryLog(copy_records=False)
    s = Session.start(game, players, log, options=options, seed=gseed, clock=FakeClock(),
                      entropy=random.Random(gseed).randbytes, session_id="sim")
    return play_out(s, seat_bots, random.Random(gseed ^ 0x5EED)), s


def _game_ref(game):
    """How a worker process builds the same game: its package and the edited data copy it was
    built from (None: the shipped data). A process cannot be handed the game itself."""
    return type(game).__module__.rpartition(".")[0], getattr(game, "data_dir", None)


def _game_from(ref):
    """The game of :func:`_game_ref`: the package's ``GAME``, or its ``from_data(folder)``
    (the games' protocol, companion/games/__init__.py; the core never imports the games)."""
    import importlib
    package, data = ref
    mod = importlib.import_module(package)
    return mod.from_data(data) if data is not None else mod.GAME


def _play_chunk(game, players, seeds, bots, options):
    """Play the games of these seeds; small per-game records only. ``game``: the game, or in a
    worker process its :func:`_game_ref`."""
    if isinstance(game, tuple):
        game = _game_from(game)
    seat_bots = resolve_bots(game, bots, len(players))
    out = []
    for gseed in seeds:
        outcome, s = play_one(game, players, gseed, seat_bots, options, lean=True)
        curve = getattr(s.state.data, "vp_curve", None) or []
        out.append((outcome.winners, [outcome.scores[i] for i in range(len(players))],
                    lead_changes(curve), s.version, game.summary(s.state)))
    return out


def simulate(game, players, games, seed=0, bots="greedy", options=None, progress=None,
             jobs=1, cluster=None):
    """Play ``games`` bot games. Returns a dict of aggregate figures.

    Every game's seed is drawn from ``seed`` first, so the figures do not depend on ``jobs``
    (worker processes; 0 = one per core) or ``cluster`` (where the games run instead: see
    :class:`~.workers.Workers`). Shared wins count 1/k to each winner, so win rates add up to
    1. ``summaries`` holds each game's ``game.summary(state)`` for game reports.
    """
    from .workers import Workers
    n = len(players)
    resolve_bots(game, bots, n)                  # fail early with a clear error
    options = game.resolve_options(options)
    master = random.Random(seed)
    seeds = [master.getrandbits(48) for _ in range(games)]
    results = []
    with Workers(jobs, cluster, games) as w:
        if w.here:
            size, ref = max(1, min(200, games // 20 or 1)), game
        else:
            size, ref = max(10, games // (w.count * 8)), _game_ref(game)
        chunks = [(ref, players, seeds[i:i + size], bots, options)
                  for i in range(0, games, size)]
        for r in w.map(_play_chunk, chunks):
            results.extend(r)
            if progress is not None:
                progress(len(results), games)
    wins = [0.0] * n
    spreads, lead_changes, lengths, summaries = [], [], [], []
    for winners, scores, changes, length, summary in results:
        for w in winners:
            wins[w] += 1.0 / len(winners)
        spreads.append(max(scores) - min(scores))
        lead_changes.append(changes)
        lengths.append(length)
        summaries.append(summary)
    per_seat = []
    for i in range(n):
        lo, hi = wilson(round(wins[i]), games)
        per_seat.append({"seat": i, "player": players[i], "wins": wins[i],
                         "win_rate": wins[i] / games if games else 0.0, "ci95": [lo, hi]})
    return {"game": game.name, "players": n, "games": games, "seed": seed, "bots": bots,
            "options": options, "seats": per_seat,
            "mean_spread": sum(spreads) / games if games else 0.0,
            "mean_lead_changes": sum(lead_changes) / games if games else 0.0,
            "mean_commands": sum(lengths) / games if games else 0.0,
            "summaries": summaries}


def lead_changes(curve) -> int:
    """How often the sole leader changed from one round to the next (ties keep the last one).

    >>> lead_changes([[1, 0], [1, 2], [3, 3], [4, 2], [4, 9]])    # 0 > 1, (tie), 1 > 0, 0 > 1
    3
    """
    changes, leader = 0, None
    for row in curve:
        top = max(row)
        lead = row.index(top) if row.count(top) == 1 else None
        if lead is not None:
            if leader is not None and lead != leader:
                changes += 1
            leader = lead
    return changes
