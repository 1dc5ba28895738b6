"""Checks every Trade Warz move shares: a seat, a Trade Partner, a card in hand, and what a
card needs chosen as it is played (target, partner, piles to draw from, cards to discard,
routes)."""
from companion.core import args
from companion.core.errors import IllegalMoveError


class Checks:
    """Mixed into the Game."""

    def seat_name(self, state, s):
        if s is None:
            return "The table"
        lid = state.data.board.leaders[s] if state.data else None
        if lid:
            return f"{state.players[s]} ({self.ix(state).name_of(lid)})"
        return state.players[s]

    def _seat(self, state, v, what="target"):
        return args.seat(state, v, what)

    def _partner(self, state, p):
        ix = self.ix(state)
        if not isinstance(p, str) or p not in ix.partner_order:
            raise IllegalMoveError(f"{p!r} is not a Trade Partner at this table. Partners: "
                                   f"{', '.join(ix.partners)}.")
        return p

    def _in_hand(self, state, seat, cid, kind=None):
        ix = self.ix(state)
        if not isinstance(cid, str) or cid not in ix.items or \
                getattr(ix[cid], "kind", None) not in ("export", "policy", "tactic"):
            raise IllegalMoveError(f"{cid!r} is not a {ix.edition.title} card.")
        if cid not in state.data.hands[seat]:
            raise IllegalMoveError(f"{ix.name_of(cid)} is not in your hand.")
        if kind is not None and ix[cid].kind != kind:
            raise IllegalMoveError(f"{ix.name_of(cid)} is a{'n' if ix[cid].kind[0] == 'e' else ''}"
                                   f" {ix[cid].title}, not a{'n' if kind[0] == 'e' else ''} "
                                   f"{kind.title()}.")
        return cid

    def _choices(self, state, seat, cid, target, partner, draw=None, discard=None,
                 routes=None, what=None):
        """Check what a card needs chosen as it is played; returns the job's choices."""
        ix = self.ix(state)
        mode, needs_partner = ix.needs[cid]
        name = what or ix.name_of(cid)
        ch = {}
        if mode is not None:
            legal = self.legal_targets(state, seat, mode)
            if target is None:
                if len(legal) > 1:
                    raise IllegalMoveError(f"{name} needs a target: choose "
                                           + ("a player" if mode == "any" else "an opponent")
                                           + f" ({', '.join(map(str, legal))}).")
                target = legal[0] if legal else None
            else:
                self._seat(state, target)
                if target not in legal:
                    if target == seat:
                        raise IllegalMoveError(f"{name} targets an opponent, not yourself.")
                    raise IllegalMoveError(f"{self.seat_name(state, target)} cannot be "
                                           f"targeted this round (board locked).")
            ch["target"] = target
        elif target is not None:
            raise IllegalMoveError(f"{name} has no target.")
        if needs_partner:
            if partner is None:
                raise IllegalMoveError(f"{name} needs a Trade Partner: choose one.")
            ch["partner"] = self._partner(state, partner)
        elif partner is not None:
            raise IllegalMoveError(f"{name} does not name a Trade Partner.")
        if draw is not None:
            if not isinstance(draw, dict):
                raise IllegalMoveError("draw: how many cards from each pile, e.g. "
                                       "{\"export\": 1}.")
            ch["draw"] = dict(draw)
        if discard is not None:
            if not isinstance(discard, list):
                raise IllegalMoveError("discard: a list of card ids.")
            ch["discard"] = list(discard)
        if routes is not None:
            if not isinstance(routes, list):
                raise IllegalMoveError("routes: a list of [partner, slot] pairs.")
            ch["routes"] = [list(r) if isinstance(r, (list, tuple)) else r for r in routes]
        return ch
