"""Every outcome has a sentence: over whole bot games of every game, edition and player count,
every change a command makes to what players can see is told by at least one story line of that
command on the screens of those who may know it: a public line that names the player, or a
line addressed to that player alone. What players can see:

* a player's score or resources: every counter the game lets the table correct (VP, tokens,
  GDP, the point bowl);
* what a player holds (``Game.holdings``): bought, drafted or won cards, face-up cards in front
  of them, markers and pieces ("Crushing Blow", "Leader Baton", "first-player marker"); the
  line that tells it names the thing too;
* what a player holds in secret (``Game.hidden_holdings``: a hand, a secret objective): told to
  that player alone, or by a public line that names the player and says only what everyone may
  know ("Ann drew 3 cards"). A secret's name never reaches a public line: a card that entered
  or left a hand may be named in public only once the table can see it (the game's public view
  names it: a revealed Policy, a flipped Export).

Lines that tell nothing of an outcome do not count: "Now: ...", "Ann locked in.", "Revealed:
...", and the bare name of the move ("Ann: Buy a card."), which is all the story said of a
move whose notices had no words (a bought card, a Colony stolen, an Event's VP, a forage were
once only that, or nothing).

HP inside a battle (Battle Builder's ``health``) is left out: it is shown live on every
screen's battle panel and its turn log; the battle's result, which the story tells, is what
stays.
"""
import functools
import json
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


def _held(game, state):
    """Per seat: (what everyone sees it hold, what only it sees it hold), as multisets."""
    return [(game.holdings(state, s), game.hidden_holdings(state, s)) for s in range(state.n)]


def _tells(game, state, entry, rec):
    says = entry["says"]
    if says.startswith(("Now: ", "Revealed: ")) or says.endswith(" locked in."):
        return False
    return rec is None or says != _story.doing(game, state, rec)


def _for(entry, seat, name):
    """Is ``entry`` addressed to ``seat``, or public and naming its player?"""
    return entry.get("to") == seat or ("to" not in entry and name in entry["says"])


def _holding_findings(game, state, rec, new, before, after):
    """``(untold, leaks)`` of one command's changes to what the seats hold: a public change is
    told by a line naming the thing, addressed to the seat or public and naming the player; a
    secret one by a line to the seat or a public line naming the player; a secret's name (a
    card that entered or left a hand, and was not in sight before or after) stays off the
    public lines unless the game's public view names it now."""
    untold, leaks = [], []
    public_names = set()
    secrets = set()
    for seat, ((pub0, hid0), (pub1, hid1)) in enumerate(zip(before, after)):
        if pub0 == pub1 and hid0 == hid1:
            continue
        name = state.players[seat]
        told = [e for e in new if _tells(game, state, e, rec) and _for(e, seat, name)]
        if pub0 != pub1:
            moved = (pub1 - pub0) + (pub0 - pub1)
            public_names.update(moved)
            for thing in sorted(moved):
                if not any(thing in e["says"] for e in told):
                    untold.append(("holds", seat, thing, pub0[thing], pub1[thing]))
        if hid0 != hid1:
            moved = (hid1 - hid0) + (hid0 - hid1)
            secrets.update(moved)
            if not told:
                untold.append(("holds in secret", seat, dict(hid1 - hid0), dict(hid0 - hid1)))
    secrets -= public_names
    if secrets:
        public = [e["says"] for e in new if "to" not in e]
        named = [(c, says) for c in sorted(secrets) for says in public if c in says]
        if named:
            seen = json.dumps(game.public_view(state), ensure_ascii=False)
            leaks += [(c, says) for c, says in named if c not in seen]
    return untold, leaks


def _play(game, n, seed, options):
    """``(untold counters, untold holdings, leaks)`` of one bot game, each
    ``[(move, ..., lines)]``."""
    s = start(game, n, seed, options)
    bots = dict(enumerate(bots_for(game, n, seed)))
    rng = random.Random(seed)
    s.story()
    counters, holdings, leaks = [], [], []
    for _ in range(20_000):
        if s.state.is_over():
            return counters, holdings, leaks
        before, held0, v0 = _counters(game, s.state), _held(game, s.state), s.version
        one_command(s, rng, bots)
        after, held1 = _counters(game, s.state), _held(game, s.state)
        changed = [k for k in after if before.get(k) != after[k]]
        if not changed and held0 == held1:
            continue
        rec = s.records[-1] if s.version > v0 else None
        move = (rec or {}).get("move")
        new = [e for e in s.story(shown=0) if e["rev"] > v0]
        lines = [e["says"] for e in new]
        for seat, c in changed:
            name = s.state.players[seat]
            if not any(_tells(game, s.state, e, rec) and _for(e, seat, name) for e in new):
                counters.append((move, seat, c, before.get((seat, c)), after[(seat, c)], lines))
        if held0 != held1:
            untold, leaked = _holding_findings(game, s.state, rec, new, held0, held1)
            holdings += [(move, *u, lines) for u in untold]
            leaks += [(move, *x) for x in leaked]
    raise AssertionError("the game did not end")


@functools.cache
def _findings(name):
    """Every configuration's findings (3 option sets a player count), played once for the
    tests below."""
    game = GAMES[name]
    out = []
    for k, (n, options) in enumerate(configurations(game, per_count=3)):
        out.append((n, options, _play(game, n, 7 * k + n, options)))
    assert len(out) >= 3 * len(range(game.min_players, game.max_players + 1))
    return out


@pytest.mark.parametrize("name", NAMES)
def test_every_change_to_a_score_or_resource_is_told_by_a_story_line(name):
    for n, options, (counters, _, _) in _findings(name):
        assert counters == [], (n, options, counters[:3])


@pytest.mark.parametrize("name", NAMES)
def test_every_change_to_what_a_player_holds_is_told_by_a_story_line(name):
    for n, options, (_, holdings, _) in _findings(name):
        assert holdings == [], (n, options, holdings[:3])


@pytest.mark.parametrize("name", NAMES)
def test_no_public_story_line_names_a_secret_card(name):
    for n, options, (_, _, leaks) in _findings(name):
        assert leaks == [], (n, options, leaks[:3])


@pytest.mark.cpu
@pytest.mark.parametrize("name", NAMES)
def test_every_option_set_tells_what_its_commands_change(name):
    """The three checks above over the whole spread of options a table may set (each option's
    every value, and random mixes), once each: the variants the three option sets per count
    leave out (Diplomatic loans and swaps, secret objectives, dual monsters, bets, revenge,
    category bonuses...) tell their changes too."""
    game = GAMES[name]
    for k, (n, options) in enumerate(configurations(game)):
        counters, holdings, leaks = _play(game, n, 1000 + 31 * k, options)
        assert (counters, holdings, leaks) == ([], [], []), (n, options, counters[:2],
                                                             holdings[:2], leaks[:2])
