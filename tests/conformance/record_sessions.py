"""Record (or refresh) the stored sessions that pin the games' behaviour: ``data/sessions.json.gz``.

Each entry is one session's log (played through :class:`Session` by the bots, by a player who
only taps what ``legal`` offers, with undos and corrections mixed in) and, for every version of
that log, a digest of what the views showed then: the public view and every seat's view (as
canonical JSON), plus the outcome. The legacy log fixtures in ``tests/games/*/data`` are pinned
the same way.

``test_stored_sessions.py`` replays every log on the code under test and compares the views
and the outcome at every version: a refactor may restructure ``state.data`` (fingerprints may
change) but never what anyone sees.

    python -m tests.conformance.record_sessions            # play new logs and pin them
    python -m tests.conformance.record_sessions --refresh  # re-pin the stored logs' views

``--refresh`` is for a deliberate change of behaviour (a rule fix from main): run it on the
code *before* your own change (a worktree of main), never to make a failing test pass.
"""
import argparse
import gzip
import hashlib
import json
import pathlib
import random
import sys

from companion.core import views
from companion.core.clock import FakeClock
from companion.core.errors import CompanionError
from companion.core.log import MemoryLog
from companion.core.play import play_by_taps, play_out
from companion.core.session import Session, fold
from companion.games import get

HERE = pathlib.Path(__file__).parent
OUT = HERE / "data" / "sessions.json.gz"
LEGACY = sorted((HERE.parent / "games").glob("*/data/legacy-logs-v*.json.gz"))

#: (game, players, options, how); how: bots "greedy"/"random"/"mixed"; "taps" (a player who
#: only taps what legal offers); "edits" (random bots, undos and corrections); "clock" (taps,
#: and timers that run out or warn now and then, as at a real table)
PLAN = [
    ("great-powers", 3, {}, "mixed"),
    ("great-powers", 4, {"ties": "all", "turns": 5}, "greedy"),
    ("great-powers", 5, {"require_payment": False}, "random"),
    ("great-powers", 6, {"bid_block": "tied-highest", "turns": 4}, "taps"),
    ("great-powers", 8, {"final_tiebreak": "shared", "turns": 3}, "edits"),
    ("great-powers", 4, {}, "taps"),
    ("trade-warz", 2, {}, "greedy"),
    ("trade-warz", 3, {"chill": True}, "random"),
    ("trade-warz", 4, {}, "taps"),
    ("trade-warz", 4, {"diplomatic": True}, "taps"),
    ("trade-warz", 5, {"quick_start": True, "upkeep_confirm": "every"}, "mixed"),
    ("trade-warz", 6, {"leader_pick": "random", "check_reveals": False,
                       "policy_order": "poorest_first"}, "edits"),
    ("trade-warz", 4, {"chill": True, "quick_start": True, "diplomatic": True}, "taps"),
    ("trade-warz", 3, {"auto_effects": False}, "taps"),
    ("trade-warz", 4, {"edition": "tariff"}, "greedy"),
    ("trade-warz", 4, {"edition": "tariff"}, "taps"),
    ("trade-warz", 3, {"edition": "tariff", "fast_pass": False,
                       "upkeep_confirm": "every"}, "random"),
    ("trade-warz", 5, {"edition": "tariff", "poorer_ties": "none"}, "taps"),
    ("trade-warz", 2, {"edition": "tariff", "rounds": 3}, "edits"),
    ("battle-builder", 2, {"arc": "4+1"}, "mixed"),
    ("battle-builder", 3, {"arc": "6+2", "tokens": "B", "earning": "action",
                           "monster_select": "auction"}, "taps"),
    ("battle-builder", 4, {"arc": "4+1", "tokens": "C", "earning": "milestones",
                           "dual_monsters": True, "targeting": "top-damage",
                           "environments": True}, "random"),
    ("battle-builder", 3, {"arc": "6+2", "tokens": "D", "earning": "roles",
                           "convert_when": "any-shop", "pvp_trigger": "vote",
                           "pvp_rewards": "wager", "spectator_bets": True}, "taps"),
    ("battle-builder", 4, {"arc": "6+2", "limited_shop": True, "scarce_shop": True,
                           "pvp_pairing": "draft", "pvp_rewards": "choice",
                           "opportunity": True, "victory": "categories"}, "taps"),
    ("battle-builder", 2, {"arc": "4+1", "teams": "fixed", "best_of_three": True,
                           "arenas": True, "revenge": True, "card_value_rewards": True,
                           "victory": "objectives", "tiebreak": "sudden-death"}, "edits"),
    ("battle-builder", 4, {"arc": "4+1", "earning": "betting", "monster_abilities": "all",
                           "targeting": "higher-hp", "diminishing": True,
                           "upgrade_trees": True, "deck_thinning": True,
                           "opportunity": True}, "greedy"),
    ("battle-builder", 3, {"turn_seconds": 30, "shop_seconds": 60}, "taps"),
    ("market-trading", 2, {}, "greedy"),
    ("market-trading", 3, {"improve_limit": "once-per-turn", "end": "equal-turns"}, "taps"),
    ("market-trading", 4, {"improve_limit": "unlimited", "forage_source": "hand"}, "random"),
    ("market-trading", 5, {"build_payment": "market", "first_player": "random"}, "taps"),
    ("market-trading", 6, {"forage_source": "hand", "pass_empty_steps": False}, "edits"),
    ("market-trading", 2, {}, "taps"),
    ("trade-warz", 4, {}, "clock"),
    ("trade-warz", 3, {"edition": "tariff"}, "clock"),
    ("battle-builder", 3, {"arc": "4+1", "turn_seconds": 20, "shop_seconds": 40}, "clock"),
    ("battle-builder", 4, {"arc": "6+2", "turn_seconds": 20, "opportunity": True,
                           "pvp_rewards": "wager"}, "clock"),
]


def digest(value) -> str:
    text = json.dumps(value, sort_keys=True, separators=(",", ":"), default=list)
    return hashlib.sha256(text.encode()).hexdigest()[:24]


def outcome_of(state):
    o = state.outcome
    if o is None:
        return None
    return {"winners": list(o.winners), "reason": o.reason, "tiebreak": o.tiebreak,
            "scores": {str(k): v for k, v in o.scores.items()}}


def seen(game, state) -> str:
    """What everyone sees of ``state``: the public view and every seat's view.

    A lock-in's ``rev`` (in its window's entry and its ChoiceLocked notice) is left out: it is
    the revision of the log that holds the lock-in (a session's bookkeeping, docs/protocol.md
    4.4), not an outcome of the rules, and the pins were taken before lock-ins carried it."""
    vs = [views.public(game, state)] + [views.seat(game, state, s) for s in range(state.n)]
    return digest([_without_lock_revs(v) for v in vs])


def _without_lock_revs(view):
    out = dict(view)
    if view.get("windows"):
        out["windows"] = [dict(w, locked={s: _no_rev(e) for s, e in w["locked"].items()})
                          for w in view["windows"]]
    if view.get("notices"):
        out["notices"] = [_no_rev(n) if n.get("kind") == "ChoiceLocked" else n
                          for n in view["notices"]]
    return out


def _no_rev(d):
    return {k: v for k, v in d.items() if k != "rev"}


def pin(game, records):
    """``[digest of the views after version v]`` for v = 1..len(records), and the outcome."""
    has_undo = any(r.get("type") == "Undone" for r in records)
    out = []
    if has_undo:
        for v in range(1, len(records) + 1):
            out.append(seen(game, fold(game, records, upto=v)))
        st = fold(game, records)
    else:
        from companion.core.game import apply
        from companion.core.session import COMMAND_KINDS
        st = fold(game, records[:1])
        out.append(seen(game, st))
        for rec in records[1:]:
            if rec.get("kind") in COMMAND_KINDS:
                apply(game, st, rec)
            out.append(seen(game, st))
    return out, outcome_of(st)


def _edits(s, rng):
    """Now and then an undo or a correction, as a table would."""
    game = s.game
    r = rng.random()
    if r < 0.04:
        try:
            s.undo()
        except CompanionError:
            pass
    elif r < 0.06 and game.counters and s.state.outcome is None:
        seat = rng.randrange(s.state.n)
        try:
            s.correct(seat, game.counters[0], rng.choice((1, 2, -1)), "card misread")
        except CompanionError:
            pass


def play(game_name, n, options, how, seed):
    game = get(game_name)
    s = Session.start(game, [f"P{i}" for i in range(n)], MemoryLog(), options=options,
                      seed=seed, clock=FakeClock(), entropy=random.Random(seed).randbytes,
                      wall=lambda: 1_700_000_000.0, session_id=f"pin-{seed}")
    rng = random.Random(seed ^ 0xC0FFEE)
    if how == "taps":
        outcome, refused = play_by_taps(s, rng)
        assert not refused, refused[:3]
    elif how == "clock":
        _taps_with_clock(s, rng)
    elif how == "edits":
        from .driver import one_command          # (recording only: --refresh runs on old code)
        for _ in range(50_000):
            if s.state.outcome is not None:
                break
            _edits(s, rng)
            one_command(s, rng)
    else:
        names = {"greedy": ["greedy"] * n, "random": ["random"] * n,
                 "mixed": ["greedy" if i % 2 else "random" for i in range(n)]}[how]
        play_out(s, [game.bots[b] for b in names], rng)
    return s


def _taps_with_clock(s, rng):
    from companion.core.play import tap
    game = s.game
    for _ in range(50_000):
        state = s.state
        if state.outcome is not None:
            return
        due = state.next_deadline()
        if due is not None and (not state.prompts or rng.random() < 0.08):
            t = next(t for t in state.timers.values() if t.deadline == due)
            if t.warn_before and not t.warned and rng.random() < 0.5:
                s.clock.set(max(s.clock.now(), due - t.warn_before))
                s.warn(t.name)
            else:
                s.clock.set(max(s.clock.now(), due))
                s.tick()
            continue
        s.clock.set(s.clock.now() + rng.choice((0.5, 2.0, 7.0)))
        seat = rng.choice(sorted(state.prompts, key=lambda x: -1 if x is None else x))
        move, args = tap(game, state, seat, rng)
        s.execute(seat, move, args)
    raise RuntimeError("the game did not end")


def record():
    entries = []
    for i, (name, n, options, how) in enumerate(PLAN):
        seed = 1000 + 17 * i
        s = play(name, n, options, how, seed)
        pins, outcome = pin(s.game, s.records)
        assert outcome is not None, (name, options, how)
        entries.append({"game": name, "how": how, "options": options, "records": s.records,
                        "views": pins, "outcome": outcome})
        print(f"{name:15} {n}p {how:6} {len(s.records):5} records  {options}", flush=True)
    for path in LEGACY:
        game_dir = path.parent.parent.name.replace("_", "-")
        with gzip.open(path, "rt") as f:
            logs = json.load(f)
        for k, log in enumerate(logs):
            game = get(game_dir)
            pins, outcome = pin(game, log["records"])
            entries.append({"game": game_dir, "how": f"legacy {path.name} #{k}",
                            "options": log["records"][0].get("options"), "legacy": True,
                            "records": None, "source": [str(path.relative_to(HERE.parent)), k],
                            "views": pins, "outcome": outcome})
            print(f"{game_dir:15} legacy #{k}: {len(log['records'])} records", flush=True)
    return entries


def refresh(entries):
    for e in entries:
        game = get(e["game"])
        records = e["records"] if e["records"] is not None else legacy_records(e)
        e["views"], e["outcome"] = pin(game, records)
    return entries


def legacy_log(entry):
    rel, k = entry["source"]
    with gzip.open(HERE.parent / rel, "rt") as f:
        return json.load(f)[k]


def legacy_records(entry):
    return legacy_log(entry)["records"]


def load():
    with gzip.open(OUT, "rt") as f:
        return json.load(f)


def save(entries):
    OUT.parent.mkdir(exist_ok=True)
    with gzip.open(OUT, "wt", compresslevel=9) as f:
        json.dump(entries, f, separators=(",", ":"))


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--refresh", action="store_true")
    a = ap.parse_args(argv)
    save(refresh(load()) if a.refresh else record())
    print(f"wrote {OUT}")


if __name__ == "__main__":
    main(sys.argv[1:])
