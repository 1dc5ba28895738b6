"""Restricted play, the causal check of a flag (Jaffe): the same bot forbidden one card (never
playing it, never taking it from an offer or a shop), played on the same seeds, so the
difference it makes is the card's (:func:`restricted`, :func:`forbid`).
"""
import math
import random

from companion.core.clock import FakeClock
from companion.core.play import play_out, resolve_bots
from companion.core.session import LeanSession
from companion.core.workers import Workers

from ..simulate import _Watched, seeds_for
from .cards import NotSupported
from .figures import rate
from .watch import CardWatch, play_one


class _Forbidding:
    """A seat's view as its bot reads it, with ``card`` forbidden; everything else is the
    view's own (each game's subclass changes the one thing its bots read)."""

    def __init__(self, view, card):
        object.__setattr__(self, "_v", view)
        object.__setattr__(self, "_card", card)

    def __getattr__(self, k):
        return getattr(self._v, k)


class _Without(_Forbidding):
    """Trade Warz: ``card`` taken out of the hand as the bot reads it (``view.hand``), so the
    bot never plays it and picks its next best move. Discards see the whole hand (a forbidden
    card may be discarded: that is not playing it)."""

    @property
    def hand(self):
        return [c for c in self._v.hand if c != self._card]


class _WithoutOffer(_Forbidding):
    """Great Powers: a seat's view whose prompt does not offer ``card`` (face up or among
    the three drawn), so the bot never takes it."""

    @property
    def prompt(self):
        p = self._v.prompt
        if p and "cards" in p:
            p = dict(p, cards=[c for c in p["cards"] if c != self._card])
        return p


class _WithoutShop(_Forbidding):
    """Battle Builder: a seat's view where ``card`` cannot be bought (its price is an
    illegal move, as a card the shop does not have), so the bot buys its next best."""

    def card_cost(self, cid):
        from companion.core.errors import IllegalMoveError
        if cid == self._card:
            raise IllegalMoveError("forbidden")
        return self._v.card_cost(cid)


def forbid(bot, card, game_name="trade-warz"):
    """``bot`` that never plays ``card``: Trade Warz, the card is hidden from its hand (it
    may still be discarded); Great Powers, the card is never offered to it (so never taken,
    and it passes when it was the only one left); Battle Builder, the card cannot be bought
    (so never in its deck)."""
    if game_name == "great-powers":
        def restricted(game, view, rng):
            w = _WithoutOffer(view, card)
            p = w.prompt or {}
            if "take_action" in (p.get("moves") or ()) and not p.get("cards"):
                return "pass_action", {}
            if "resolve_drawn" in (p.get("moves") or ()) and not p.get("cards"):
                return "decline_bonus", {}
            return bot(game, w, rng)
        return restricted
    if game_name == "battle-builder":
        def restricted(game, view, rng):
            return bot(game, _WithoutShop(view, card), rng)
        return restricted

    def restricted(game, view, rng):
        p = view.prompt or {}
        if (p.get("moves") or [None])[0] == "discard_cards":
            return bot(game, view, rng)
        return bot(game, _Without(view, card), rng)
    return restricted


RESTRICTED = ("trade-warz", "great-powers", "battle-builder")


def _restricted_chunk(name, data, players, seeds, bots, options, card):
    from companion.games import get
    game = get(name, data=data)
    if game.name not in RESTRICTED:
        raise NotSupported(f"Restricted play is not built for {game.title}.")
    seat_bots = resolve_bots(game, bots, len(players))
    out = []
    for i, g in seeds:
        seat = i % len(players)
        base, _ = play_one(game, players, g, seat_bots, options)
        bots_r = list(seat_bots)
        bots_r[seat] = forbid(seat_bots[seat], card, game.name)
        watch = CardWatch(game)
        s = LeanSession(game, players, options=options, seed=g, clock=FakeClock())
        play_out(_Watched(s, watch), bots_r, random.Random(g ^ 0x5EED))
        rest = watch.rows(s.state, f"sim-{g}")
        assert card not in (rest[seat].played if game.name == "trade-warz" else
                            rest[seat].seen)
        out.append((base[seat].share, rest[seat].share, card in base[seat].seen))
    return out


def restricted(game, card, *, players, games, seed=0, bots="greedy", options=None, jobs=1,
               cluster=None):
    """Jaffe's restricted play: ``games`` seeds, each played as usual and again with one seat
    (rotating: seat i mod n) forbidden ``card``, the same seed and bots otherwise (common
    random numbers: a game where the seat never holds the card is the same game twice).
    Returns ``{"card", "games", "touched", "normal", "without", "diff", "ci95"}``: the seat's
    win share as usual and without the card, and the paired difference without - normal
    (mean and normal 95% interval; a card that helps its holder gives a negative
    difference). ``touched``: games where the seat had the card in the normal game, and
    ``touched_diff`` the mean difference over them (the other games differ only where the
    card would have come to hand after the two games parted)."""
    if game.name not in RESTRICTED or str(card).startswith(("bid:", "monster:")):
        raise NotSupported(f"Restricted play is built for Trade Warz's cards, Great Powers' "
                           f"Action cards and Battle Builder's shop cards, not {card!r} in "
                           f"{game.title}.")
    names = [f"Seat {i + 1}" for i in range(players)]
    options = game.resolve_options(options)
    data = getattr(game, "data_dir", None)
    seeds = list(enumerate(seeds_for(seed, games)))
    got = []
    with Workers(jobs, cluster, games) as w:
        size = games if w.here else max(10, games // (w.count * 4))
        for r in w.map(_restricted_chunk, [(game.name, data, names, seeds[i:i + size], bots,
                                            options, card) for i in range(0, games, size)]):
            got.extend(r)
    n = len(got)
    d = [w - b for b, w, _ in got]
    mean = sum(d) / n
    var = sum((x - mean) ** 2 for x in d) / (n - 1) if n > 1 else 0.0
    half = 1.96 * math.sqrt(var / n)
    dt = [w - b for b, w, t in got if t]
    return {"card": card, "games": n, "touched": len(dt),
            "touched_diff": sum(dt) / len(dt) if dt else None,
            "normal": rate(sum(b for b, *_ in got), n),
            "without": rate(sum(w for _, w, _ in got), n),
            "diff": mean, "ci95": [mean - half, mean + half]}
