"""What a game's cards are, per game (its *adapter*): which cards a seat has in hand, which it
had at the opening, which a move plays, the group a seat-game is compared within (Trade Warz:
its Leader), the cards' names, and the figures' columns. Trade Warz, Great Powers, Battle
Builder and Market Trading's improvements; any other game is :class:`NotSupported`.
"""
from companion.core.errors import ConfigError


class NotSupported(ConfigError):
    """Per-card impact is not built for this game."""


class TradeWarzCards:
    """Trade Warz / Tariff Warz: the hands, the opening hand and the card-playing moves."""
    columns = ("drawn: ever in the seat's hand; opening: in hand once round 1's Draw is over; "
               "played: choose_policy, place_export or play_tactic with it")
    moves = ("choose_policy", "place_export", "play_tactic")
    before_opening = ("leaders", "event", "upkeep", "draw")

    def __init__(self, game):
        self.game = game

    def hand(self, state, seat):
        return state.data.hands[seat]

    def opened(self, state):
        """The opening hand: the hand once round 1's Draw is over."""
        return state.round >= 1 and state.phase not in self.before_opening

    def played(self, move, args):
        if move in self.moves:
            return (args or {}).get("card")
        return None

    def group(self, state, seat):
        lid = state.data.board.leaders[seat]
        return self.game.ix(state).name_of(lid) if lid else None

    def names(self, state):
        return dict(self.game.ix(state).card_names)


class MarketTradingImprovements:
    """Market Trading's improvements: "drawn" is *built* (the improvement is the seat's),
    "played" is *used* (the ``improve`` move); there is no opening hand."""
    columns = "drawn: built; played: used (improve); no opening hand"
    moves = ("improve",)

    def __init__(self, game):
        self.game = game

    def hand(self, state, seat):
        return state.data.built[seat]

    def opened(self, state):
        return False

    def played(self, move, args):
        return (args or {}).get("improvement") if move in self.moves else None

    def group(self, state, seat):
        return None

    def names(self, state):
        return {k: i.name for k, i in self.game.rules.improvements.items()}


class GreatPowersCards:
    """Great Powers: the Action cards and the six Bid cards (one per trait).

    Nobody holds a hand of Action cards: each turn n + 1 are dealt face up and each player in
    baton order may take one, then resolve or discard it (the Colony leader may draw three and
    resolve one). So for an Action card "drawn" is *taken* (``take_action``, resolved or
    discarded, or resolved from the three drawn: ``resolve_drawn``), "played" is *resolved*,
    and there is no opening hand. A Bid card ``bid:TRAIT`` is "drawn" in a game where the
    seat bid on that trait in some turn, in the "opening" when it did in turn 1, and "played"
    when it was the seat's first bid of a turn (the first bid on a trait gets the chart's
    first gain). There are no nations or Leaders (the Leader Baton passes round the table),
    so every seat-game is in every card's population."""
    moves = ("take_action", "resolve_drawn")
    columns = ("Action card: drawn = taken (resolved or discarded), played = resolved, no "
               "opening hand; Bid card: drawn = bid on in some turn, opening = bid on in turn "
               "1, played = the seat's first bid of some turn")

    def __init__(self, game):
        self.game = game

    def hand(self, state, seat):
        bids = state.data.bids.get(seat) or ()
        return [f"bid:{t}" for t in bids]

    def plays(self, state, seat):
        bids = state.data.bids.get(seat) or ()
        return [f"bid:{bids[0]}"] if bids else []

    def opened(self, state):
        """Turn 1's bids are revealed (the Results phase of turn 1 is over)."""
        return state.round > 1 or (state.round == 1 and state.phase not in ("deal", "bid",
                                                                              "results"))

    def played(self, move, args):
        args = args or {}
        if move == "resolve_drawn" or (move == "take_action" and args.get("resolve", True)):
            return args.get("card")
        return None

    def taken(self, move, args):
        return (args or {}).get("card") if move == "take_action" else None

    def group(self, state, seat):
        return None

    def names(self, state):
        from companion.games.great_powers.data import TOKEN_NAMES, TRAITS
        out = {k: a.name for k, a in self.game.rules.actions.items()}
        out.update({f"bid:{t}": f"Bid card: {TOKEN_NAMES[t]}" for t in TRAITS})
        return out


class BattleBuilderCards:
    """Battle Builder: the shop's cards and the monsters.

    Every seat starts with the same basic cards (tier 0), so they are not compared: there is
    no opening hand and no seat without them. A tier 1-3 card is "drawn" when the seat
    *bought* it (``state.data.bought``), and "played" when the seat attacked with it (an
    attack card chosen for a turn, or an extra attack) or blocked with it (a defense card
    drawn against an attack), in any battle, monster or PvP. A monster ``monster:ID`` is
    "drawn" when the seat fought it and "played" when the seat's team beat it; the battles
    themselves (each counted once, however many seats fought) are in :func:`monster_table`.
    No Leaders or factions."""
    columns = ("card (tier 1-3): drawn = bought, played = attacked or blocked with it, no "
               "opening hand (every deck starts the same); monster: drawn = fought, played = "
               "beaten")

    def __init__(self, game):
        self.game = game

    def hand(self, state, seat):
        d = state.data
        out = list(d.bought[seat])
        for b in d.track["battles"]:
            if seat in b["seats"]:
                out.extend(f"monster:{m}" for m in b["monsters"])
        return out

    def plays(self, state, seat):
        d, cards = state.data, self.game.rules.cards
        out = []
        for battle in (d.battles or {}).values():
            for e in battle.get("log") or ():
                if e.get("seat") != seat:
                    continue
                if "attacker" in e:
                    got = [c for c in e.get("defense") or () if c in cards]
                elif "card" in e:
                    got = [e["card"]]
                else:
                    continue
                out.extend(c for c in got if cards[c].tier > 0)
        for b in d.track["battles"]:
            if seat in b["seats"] and b["won"]:
                out.extend(f"monster:{m}" for m in b["monsters"])
        return out

    def fights(self, state, seat):
        """``(battle, monster, won)`` for every monster battle the seat fought."""
        return tuple((b["id"], m, bool(b["won"])) for b in state.data.track["battles"]
                     if seat in b["seats"] for m in b["monsters"])

    def opened(self, state):
        return False

    def played(self, move, args):
        return None

    def group(self, state, seat):
        return None

    def names(self, state):
        r = self.game.rules
        out = {k: c.name for k, c in r.cards.items() if c.tier > 0}
        out.update({f"monster:{k}": f"Monster: {m.name} ({m.difficulty})"
                    for k, m in r.monsters.items()})
        return out


ADAPTERS = {"trade-warz": TradeWarzCards, "market-trading": MarketTradingImprovements,
            "great-powers": GreatPowersCards, "battle-builder": BattleBuilderCards}


def adapter_for(game):
    try:
        return ADAPTERS[game.name](game)
    except KeyError:
        raise NotSupported(f"Per-card impact is not built for {game.title} yet "
                           f"(only {', '.join(sorted(ADAPTERS))}).") from None
