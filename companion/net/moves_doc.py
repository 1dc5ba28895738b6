"""``docs/moves.md``: every game's moves and their arguments, generated from the code.

For each game (and edition) it lists each move with its label, who makes it (a seat or the
table), whether it is sealed, any-time or private, the arguments its function takes, the kinds
of choice its legal list offers for each argument, and one example command that was really
accepted: the examples come from whole games played by tapping only what ``legal`` offered
(:func:`companion.core.play.tap`), with fixed seeds, so they are valid by construction.

Regenerate with ``python -m companion.net.moves_doc > docs/moves.md``; a test fails when the
committed file differs from what the code generates, so the doc cannot drift.
"""
import inspect
import json
import random

from companion.core.clock import FakeClock
from companion.core.errors import CompanionError
from companion.core.log import MemoryLog
from companion.core.play import tap
from companion.core.session import Session

#: (game, options, players, seeds) played to collect the choices and examples.
PLAYS = (
    ("great-powers", {}, 4, (1, 2, 3)),
    ("trade-warz", {"edition": "trade"}, 4, (1, 2, 3, 4)),
    ("trade-warz", {"edition": "trade", "diplomatic": True}, 3, (3, 5, 6)),
    ("trade-warz", {"edition": "trade", "chill": True}, 3, (7,)),
    ("trade-warz", {"edition": "tariff"}, 4, (1, 2, 3, 4)),
    ("battle-builder", {}, 3, (1, 2)),
    ("battle-builder", {"pvp_trigger": "vote", "earning": "betting"}, 2, (3,)),
    ("battle-builder", {"monster_select": "auction", "pvp_pairing": "draft",
                        "pvp_rewards": "choice", "tokens": "D", "convert_when": "any-shop",
                        "victory": "objectives", "earning": "roles"}, 4, (1, 2)),
    ("battle-builder", {"pvp_rewards": "wager", "spectator_bets": True, "revenge": True,
                        "arc": "4+1"}, 3, (2, 4)),
    ("market-trading", {}, 2, (1, 2, 3, 4)),
    ("market-trading", {}, 3, (5,)),
)


def _signature(fn):
    ps = list(inspect.signature(fn).parameters.values())[2:]
    req = [p.name for p in ps if p.default is p.empty and p.kind is not p.VAR_KEYWORD]
    opt = [p.name for p in ps if p.default is not p.empty and p.kind is not p.VAR_KEYWORD]
    return req, opt


def collect(plays=PLAYS, max_commands=3000):
    """Play the games by taps; return ``{title: {move: {"kinds": {arg: set}, "example":
    args, "count": n}}}`` in order of the games' titles."""
    from companion.games import get
    out = {}
    for name, options, players, seeds in plays:
        game = get(name)
        title = game.title
        if name == "trade-warz":
            title = "Trade Warz" if options.get("edition") == "trade" else "Tariff Warz"
        book = out.setdefault(title, {"game": game, "moves": {}})
        for seed in seeds:
            s = Session.start(game, [f"P{i}" for i in range(players)], MemoryLog(),
                              options=options, seed=seed, clock=FakeClock(),
                              entropy=random.Random(seed).randbytes, session_id="doc")
            rng = random.Random(seed)
            for _ in range(max_commands):
                st = s.state
                if st.outcome is not None:
                    break
                if not st.prompts:
                    s.clock.set(max(s.clock.now(), st.next_deadline()))
                    s.tick()
                    continue
                seat = rng.choice(sorted(st.prompts, key=lambda x: -1 if x is None else x))
                from companion.core import views
                legal = {m["move"]: m for m in views.legal(game, st, seat)}
                picked = tap(game, st, seat, rng)
                if picked is None:
                    break
                move, args = picked
                try:
                    s.execute(seat, move, args)
                except CompanionError:
                    continue
                entry = book["moves"].setdefault(move, {"kinds": {}, "example": None,
                                                        "count": 0})
                entry["count"] += 1
                for spec in (legal.get(move) or {}).get("args", ()):
                    entry["kinds"].setdefault(spec["name"], set()).add(spec["kind"])
                if entry["example"] is None or (args and not entry["example"]):
                    entry["example"] = args
    return out


def render(seen=None) -> str:
    from companion.games import registry
    seen = seen if seen is not None else collect()
    lines = [
        "# Moves of every game (generated)",
        "",
        "Generated from the code by `python -m companion.net.moves_doc > docs/moves.md`; a test "
        "fails when this file and the code disagree. A client does not need this page to play: "
        "each seat's `legal` list (protocol section 4.7) says at every moment which moves are "
        "allowed and what each argument may be. This page is the reference behind it: every "
        "move, who makes it, the arguments its function takes, and a command that was really "
        "accepted in a game played by tapping only what `legal` offered.",
        "",
        "A move is sent as `{\"v\": 1, \"tx\": ..., \"move\": <name>, \"args\": {...}}` "
        "(section 5.1). *Seat*: sent by a phone; *table*: the box's own screen or reader; "
        "*sealed*: a secret choice (section 4.4); *any time*: allowed without a prompt when the "
        "rules say so; *private*: its arguments stay out of the others' history; *—* under "
        "choices or example: not met in the sample games (a rare situation, such as a "
        "dispute), not unknown to `legal`.",
        "",
    ]
    titles = {g.title: g for g in registry().values()}
    order = sorted(set(seen) | set(titles))
    for title in order:
        book = seen.get(title)
        game = book["game"] if book else titles[title]
        lines += [f"## {title}", ""]
        lines += ["| move | label | by | flags | takes | choices seen | example `args` |",
                  "|---|---|---|---|---|---|---|"]
        for name in sorted(game.moves):
            m = game.moves[name]
            req, opt = _signature(m.fn)
            takes = ", ".join(req + [f"{o}?" for o in opt]) or "nothing"
            flags = ", ".join(f for f, on in (("sealed", m.sealed is not None),
                                              ("any time", m.any_time),
                                              ("private", m.private)) if on) or "—"
            entry = (book or {}).get("moves", {}).get(name) if book else None
            kinds = "; ".join(f"{a}: {'/'.join(sorted(k))}"
                              for a, k in sorted((entry or {}).get("kinds", {}).items()))
            example = "—"
            if entry and entry["example"] is not None:
                example = "`" + json.dumps(entry["example"], sort_keys=True,
                                           ensure_ascii=False).replace("|", "\\|") + "`"
            lines.append(f"| `{name}` | {m.title()} | {'table' if m.table else 'seat'} | "
                         f"{flags} | {takes} | {kinds or '—'} | {example} |")
        lines.append("")
    return "\n".join(lines)


if __name__ == "__main__":
    print(render(), end="")
