"""What each Great Powers move may be, as argument specs (companion/core/choices.py) for the
phone and the table: traits by name, cards by name with their text, players by name.

Computed only for views (``Move.choices``), never in simulation. A seat's specs name only what
that seat may see: its own tokens and prompt, the face-up or its own drawn cards, and public
token counts.
"""
from companion.core import choices as c

from .data import TOKEN_NAMES, TRAITS


def _tokens(d, seat, traits):
    tok = d.tokens[seat]
    return " · ".join(f"{TOKEN_NAMES[t]} {tok[t]}" for t in traits)


def bids(game, state, seat):
    """``traits``: an ordered pick of exactly ``count`` traits; a trait where you alone have
    the most tokens is shown but disabled, with the reason."""
    p = state.prompts[seat]
    n = p["count"]
    d = state.data
    opts = []
    for t in TRAITS:
        mine = d.tokens[seat][t]
        others = [d.tokens[s][t] for s in state.seats() if s != seat]
        top = max(others) if others else mine
        detail = f"you have {mine}; others up to {top}"
        if t in p["blocked"]:
            opts.append(c.option(t, TOKEN_NAMES[t], detail,
                                 disabled=f"You have the highest {TOKEN_NAMES[t]} level "
                                          f"({mine}): you may not bid on it."))
        else:
            opts.append(c.option(t, TOKEN_NAMES[t], detail))
    label = "Your bid" if n == 1 else f"Your {n} bids, first to last"
    return [c.order("traits", opts, n, n, label)]


def _card_option(game, cid, state=None, seat=None, must_resolve=False):
    a = game.rules.actions[cid]
    extra = {"target": a.needs_target}
    if must_resolve:
        why = unpaid(game, state, seat, cid)
        if why:
            extra["disabled"] = why
    return c.option(cid, a.name, a.text, **extra)


def unpaid(game, state, seat, cid):
    """Why ``seat`` may not resolve ``cid`` (its own cost is more than it has), or None."""
    if not state.config["require_payment"]:
        return None
    a = game.rules.actions[cid]
    tok = state.data.tokens[seat]
    short = [f"{n} {TOKEN_NAMES[t]}" for t, n in a.cost.items() if tok[t] < n]
    if not short:
        return None
    have = ", ".join(f"{tok[t]} {TOKEN_NAMES[t]}" for t in a.cost)
    return f"Resolving it costs {' and '.join(short)}; you have {have}."


def _targets(game, state, seat, cards, when_extra=None):
    """One ``target`` spec per card that needs one, listing the other players by name with
    the tokens that card takes from them."""
    d = state.data
    specs = []
    for cid in cards:
        a = game.rules.actions[cid]
        if not a.needs_target:
            continue
        hit = [t for t in (*a.target_loses, *a.steal) if t in TOKEN_NAMES]
        opts = []
        for s in state.seats():
            if s == seat:
                continue
            detail = _tokens(d, s, hit) if hit else None
            opts.append(c.option(s, state.players[s], detail))
        when = {"card": [cid]}
        when.update(when_extra or {})
        specs.append(c.one("target", opts, f"Whom does {a.name} target?", when=when))
    return specs


def take_action(game, state, seat):
    """``card`` (a face-up card by name), ``resolve`` (resolve it or discard it; resolving
    is disabled when you cannot pay the card's own cost) and, for a card that targets a
    player and is resolved, ``target`` (another player by name)."""
    cards = list(state.prompts[seat]["cards"])
    payable = [cid for cid in cards if not unpaid(game, state, seat, cid)]
    resolve = []
    if payable:
        resolve.append(c.option(True, "Resolve it", "Apply its effect now.",
                                when={"card": payable}))
    for cid in cards:
        why = unpaid(game, state, seat, cid)
        if why:
            resolve.append(c.option(True, "Resolve it", disabled=why, when={"card": [cid]}))
    resolve.append(c.option(False, "Discard it", "Take it and discard it: no effect."))
    return [c.one("card", [_card_option(game, cid) for cid in cards], "Which card?"),
            c.one("resolve", resolve, "Resolve it or discard it?"),
            *_targets(game, state, seat, cards, {"resolve": [True]})]


def resolve_drawn(game, state, seat):
    """``card``: one of the three drawn cards (disabled when you cannot pay it); ``target``
    for a card that needs one."""
    cards = list(state.prompts[seat]["cards"])
    return [c.one("card", [_card_option(game, cid, state, seat, must_resolve=True)
                           for cid in cards], "Which card do you resolve?"),
            *_targets(game, state, seat, cards)]


def steal_colony(game, state, seat):
    d = state.data
    opts = [c.option(s, state.players[s], f"{d.tokens[s]['colony']} Colonies")
            for s in state.prompts[seat]["targets"]]
    return [c.one("target", opts, "Steal a Colony from whom?")]


def pick_side(game, state, seat):
    p = state.prompts[seat]
    d = state.data
    opts = [c.option(s, state.players[s],
                     _tokens(d, s, ("army", "navy", "industry", "nationalism")))
            for s in p["candidates"]]
    label = "Your foe in the war" if p.get("pick") == "foe" else "Your ally in the war"
    return [c.one("player", opts, label)]
