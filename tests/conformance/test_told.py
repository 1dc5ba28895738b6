"""Every outcome has a sentence: over whole bot games of every game, edition and player count,
every change a command makes to a player's score or resources (every counter the game lets the
table correct: VP, tokens, GDP, the point bowl) is told by at least one story line of that
command on the screens of those who may know it: a public line that names the player, or a
line addressed to that player alone.

Lines that tell nothing of an outcome do not count: "Now: ...", "Ann locked in.", "Revealed:
...", and the bare name of the move ("Ann: Buy a card."), which is all the story said of a
move whose notices had no words (a bought card, a Colony stolen, an Event's VP, a forage were
once only that, or nothing).

HP inside a battle (Battle Builder's ``health``) is left out: it is shown live on every
screen's battle panel and its turn log; the battle's result, which the story tells, is what
stays.
"""
import random

import pytest

from companion.core import story as _story

from .driver import GAMES, bots_for, configurations, one_command, start

NAMES = sorted(GAMES)
LIVE_ONLY = {"health"}


def _counters(game, state):
    out = {}
    for seat in range(state.n):
        for c in game.counters:
            if c in LIVE_ONLY:
                continue
            try:
                out[(seat, c)] = game.get_counter(state, seat, c)
            except Exception:          # not a counter of this edition or moment
                pass
    return out


def _tells(game, state, entry, rec):
    says = entry["says"]
    if says.startswith(("Now: ", "Revealed: ")) or says.endswith(" locked in."):
        return False
    return rec is None or says != _story.doing(game, state, rec)


def _untold(game, n, seed, options):
    """``[(move, seat, counter, before, after, lines)]``: the changes no story line told."""
    s = start(game, n, seed, options)
    bots = dict(enumerate(bots_for(game, n, seed)))
    rng = random.Random(seed)
    s.story()
    out = []
    for _ in range(20_000):
        if s.state.is_over():
            return out
        before, v0 = _counters(game, s.state), s.version
        one_command(s, rng, bots)
        after = _counters(game, s.state)
        changed = [k for k in after if before.get(k) != after[k]]
        if not changed:
            continue
        rec = s.records[-1] if s.version > v0 else None
        new = [e for e in s.story(shown=0) if e["rev"] > v0]
        for seat, c in changed:
            name = s.state.players[seat]
            if not any(_tells(game, s.state, e, rec) and
                       (e.get("to") == seat or ("to" not in e and name in e["says"]))
                       for e in new):
                out.append(((rec or {}).get("move"), seat, c, before.get((seat, c)),
                            after[(seat, c)], [e["says"] for e in new]))
    raise AssertionError("the game did not end")


@pytest.mark.parametrize("name", NAMES)
def test_every_change_to_a_score_or_resource_is_told_by_a_story_line(name):
    game = GAMES[name]
    games = 0
    for k, (n, options) in enumerate(configurations(game, per_count=3)):
        untold = _untold(game, n, 7 * k + n, options)
        assert untold == [], (n, options, untold[:3])
        games += 1
    assert games >= 3 * len(range(game.min_players, game.max_players + 1))
