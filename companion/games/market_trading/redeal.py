"""Market Trading for the search bot (companion/core/search.py): what a seat cannot see,
re-dealt; the moves the search weighs; and how a rollout cut short is scored.

What a Market Trading seat cannot see: the order of the improvements deck (it sees how many
cards it holds, and which ones: the box less the face-up and the built improvements), and the
random stream (the core keeps the seed out of the public history until the end; nothing after
the set-up draws from it today, but a blanking must not hand it on). Everything else is on the
table: boards and piles, bowls, the market, the active player's hand, every improvement built
(docs/market-trading.md: "Nothing in this game is secret except the order of the improvements
deck").

:meth:`MTObservation.known <.bots.MTObservation.known>` is the state with the deck blanked
(:func:`blank`, the only place that reads the true state): a list of :data:`UNSEEN` of the
deck's length, with the sorted list of its cards kept as ``unseen`` (the same in every state the
seat cannot tell apart). :func:`redeal` shuffles those cards into a new deck order and gives the
state a new random stream.
"""
import math
import random

from companion.core.search import UNSEEN, blank_the_rest, clone


# -- a copy to play on ---------------------------------------------------------------------------

def copy_data(d):
    """A copy of Market Trading's data that a game may be played on (every list and dict a move
    changes is new; the boards, yields and tiles never change after the set-up and are
    shared)."""
    st = d.stats
    stats = dict(st, turn_points=[list(t) for t in st["turn_points"]],
                 builds=list(st["builds"]))
    last = {k: (list(v) if isinstance(v, list) else dict(v) if isinstance(v, dict) else v)
            for k, v in d.last.items()}
    return type(d)(                      # MTData (its home, .game, imports the bots above us)
        board=d.board, yields=d.yields, tiles_of=d.tiles_of, piles=[list(p) for p in d.piles],
        bowl=list(d.bowl), earned=list(d.earned), built=[list(b) for b in d.built],
        deck=list(d.deck), face_up=list(d.face_up), market=dict(d.market), bank=dict(d.bank),
        first=d.first, active=d.active, hand=dict(d.hand), used=list(d.used),
        built_now=d.built_now, turn_trades=d.turn_trades, turns=d.turns,
        idle_rounds=d.idle_rounds, stalled=d.stalled, emptied=list(d.emptied), last=last,
        vp_curve=list(d.vp_curve), stats=stats)


# -- what the seat cannot see --------------------------------------------------------------------

def blank(game, state, seat):
    """A lean copy of ``state`` with what ``seat`` may not see blanked: the improvements deck as
    a list of :data:`UNSEEN` (its size kept), its cards sorted as ``unseen``, a fixed random
    stream. Two states that differ only in the deck's order or the random stream give equal
    copies (tests/games/market_trading/test_search.py)."""
    s = clone(state, copy_data)
    d = s.data
    s.unseen = sorted(d.deck)
    d.deck = [UNSEEN] * len(d.deck)
    return blank_the_rest(s, seat)


# -- the re-deal ---------------------------------------------------------------------------------

def redeal(game, view, rng):
    """A whole state that agrees with everything ``view`` (an :class:`MTObservation`) shows,
    with the deck's order drawn afresh from ``rng`` (the unseen cards shuffled) and a new random
    stream."""
    s = clone(view.known(), copy_data)
    deck = list(s.unseen)
    rng.shuffle(deck)
    s.data.deck = deck
    s.rng = random.Random(rng.getrandbits(64))
    return s


# -- the moves the search weighs -----------------------------------------------------------------

#: At most this many one-for-one trades weighed in a trade step (those that add the most to
#: the turn's donation), besides the greedy bot's own trade.
TRADES = 4


def donation(game, hand, market):
    """The points ``hand`` would donate to ``market`` now (as the Donation step counts them:
    the first copy into an empty market is worth more, a full market takes nothing)."""
    cap, value, first = game.rules.market_cap, game.value, game.first_value
    pts = 0
    for k, n in hand.items():
        m = market[k]
        put = min(n, cap - m) if cap > m else 0
        if put:
            pts += (first[k] + (put - 1) * value[k]) if m == 0 else put * value[k]
    return pts


def _trades(game, view):
    """One-for-one trades that raise what the hand would donate now, the best first."""
    from .greedy import _legal_trade
    hand, market = view.hand, view.market
    base = donation(game, hand, market)
    scored = []
    for give in hand:
        for take, m in market.items():
            if not m or not _legal_trade(game, view, give, take):
                continue
            h, mk = dict(hand), dict(market)
            h[give] -= 1
            if not h[give]:
                del h[give]
            h[take] = h.get(take, 0) + 1
            mk[give] += 1
            mk[take] -= 1
            gain = donation(game, h, mk) - base
            if gain > 0:
                scored.append((-gain, give, take))
    scored.sort()
    return [("trade", {"give": {g: 1}, "take": {t: 1}}) for _, g, t in scored[:TRADES]]


def candidates(game, view):
    """Every move the search weighs for the seat now, each legal. A trade step: ending it, each
    improvement it can run, the greedy bot's trade and the one-for-one trades that add most to
    the donation (no trade once the turn has made the bots' most). Build: each affordable
    improvement, or none. Forage: on each terrain of the board the tile with the least pile
    (what the greedy bot would pick there); not foraging only when it costs the hand."""
    from .greedy import MAX_TRADES, greedy_bot
    p = view.prompt
    moves = p["moves"]
    seat = view.seat
    if "end_step" in moves:
        out = [("end_step", {})]
        if "improve" in moves:
            hand, converts = view.hand, game.converts
            for cid in view.usable():
                if all(hand.get(k, 0) >= n for k, n in converts[cid][0].items()):
                    out.append(("improve", {"improvement": cid}))
        if "trade" in moves and view.turn_trades < MAX_TRADES:
            move, args = greedy_bot(game, view, random.Random(0))
            extra = _trades(game, view)
            if move == "trade":
                extra = [(move, args)] + [t for t in extra if t[1] != args]
            out += extra
        return out
    if "build" in moves:
        return [("skip_build", {})] + [("build", {"improvement": cid})
                                       for cid in dict.fromkeys(view.affordable())]
    if "forage" in moves:
        piles = view.piles[seat]
        hand = view.hand if view.options["forage_source"] == "hand" else None
        r = game.rules
        out = []
        for terrain, tiles in view.tiles_of[seat].items():
            if hand is not None and hand.get(r.t1_of[terrain], 0) < r.forage:
                continue
            out.append(("forage", {"tile": min(tiles, key=lambda t: (piles[t], t))}))
        if hand is not None or not out:
            out.append(("skip_forage", {}))
        return out
    raise RuntimeError(f"the search bot cannot answer {moves}")


def evaluate(game, state, seat):
    """A rollout cut short, scored for ``seat`` in [0, 1]: its lead in points taken over the
    best other player (the most points wins a stalled game; the first to empty its bowl
    otherwise), through a logistic."""
    earned = state.data.earned
    mine = earned[seat]
    best = max(v for s, v in enumerate(earned) if s != seat)
    return 1.0 / (1.0 + math.exp(-(mine - best) / 3.0))
