"""Great Powers: simultaneous ordered bidding for 3-8 players, 10 turns of 7 phases.

Rulings where the rulebook is silent (all are options; see docs/great-powers.md):

* ``bid_block`` (default ``sole-highest``): you may not bid on a trait where you alone have the
  most tokens. A tie for the most does not block (at the start everyone is tied at 5, so
  ``tied-highest`` blocks every trait in turn 1; it is there for designers to try).
* ``ties`` (default ``nobody``): when the Score phase or an Event asks for "the player with the
  highest level" and two or more players tie for it, nobody gets it (``all``: every tied player
  does).
* Tokens never go below zero: a loss takes what there is; a steal takes what the target has.
  ``require_payment`` (default on): you may resolve an Action card only if you can pay its
  own cost; a target's loss is never limited.
* A war where both sides tie on Army + Navy, Industry and Nationalism is a stalemate: no VP,
  everyone involved loses half (rounded down) of their Armies and Navies.
* ``final_tiebreak`` (default ``tokens``): equal VP after turn 10 goes to the most tokens of the
  six traits; ``shared`` makes it a shared win.
"""
import dataclasses
from collections import Counter
from operator import itemgetter

from companion.core.args import is_whole
from companion.core.datadir import DataBacked
from companion.core.errors import IllegalMoveError
from companion.core.game import Game, Move, Option, Phase
from companion.core.story import and_words as _and

from . import choices as ch
from .data import DATA, TOKEN_NAMES, TOKENS, TRAITS, default_rules


@dataclasses.dataclass
class GPData:
    tokens: list                 # per seat: {token: count}
    baton: int
    action_deck: list
    action_discard: list = dataclasses.field(default_factory=list)
    face_up: list = dataclasses.field(default_factory=list)
    event_deck: list = dataclasses.field(default_factory=list)
    event_discard: list = dataclasses.field(default_factory=list)
    event: str | None = None
    bid_mod: list = dataclasses.field(default_factory=list)       # extra (or fewer) next turn
    bid_slots: list = dataclasses.field(default_factory=list)     # bid cards this turn
    bids: dict = dataclasses.field(default_factory=dict)          # revealed: seat -> traits
    bid_counts: dict = dataclasses.field(default_factory=dict)    # trait -> bids so far
    results: list = dataclasses.field(default_factory=list)       # the reveal, in sequence
    order: list = dataclasses.field(default_factory=list)
    action_at: int = 0
    taken: dict = dataclasses.field(default_factory=dict)
    drawn: list = dataclasses.field(default_factory=list)
    peeks: dict = dataclasses.field(default_factory=dict)          # seat -> event id (private)
    war: dict | None = None
    vp_curve: list = dataclasses.field(default_factory=list)       # VP per seat after each turn


#: itemgetter(token) made once: the rules read one token of every seat many times a turn
_GET = {t: itemgetter(t) for t in TOKENS}


_GET_TRAITS = itemgetter(*TRAITS)
_is_str = str.__instancecheck__         # isinstance(x, str), for map()


def _name(t):
    return TOKEN_NAMES[t]


class GreatPowers(DataBacked, Game):
    name = "great-powers"
    title = "Great Powers"
    min_players = 3
    max_players = 8
    start_phase = "deal"
    counters = TOKENS
    shipped_data = DATA
    options = (
        Option("turns", 10, "Number of turns (the rulebook: 10)."),
        Option("bid_block", "sole-highest", "Which 'highest level' blocks a bid on a trait.",
               ("sole-highest", "tied-highest")),
        Option("ties", "nobody", "Who scores 'the highest level' when players tie.",
               ("nobody", "all")),
        Option("require_payment", True, "An Action card's own cost must be payable to "
                                        "resolve it."),
        Option("final_tiebreak", "tokens", "Equal VP at the end: most trait tokens, or a "
                                           "shared win.", ("tokens", "shared")),
    )

    def __init__(self, rules=None, data_dir=None):
        self.rules = rules or default_rules()
        self.data_dir = data_dir            # an edited copy of data/ (None: the shipped files)
        self.phases = {
            "deal": Phase("deal", "bid", on_begin=self._deal, label="Deal"),
            "bid": Phase("bid", "results", on_begin=self._begin_bid, label="Bid"),
            "results": Phase("results", "action", on_begin=self._resolve_bids,
                             label="Results"),
            "action": Phase("action", "score", on_begin=self._begin_action,
                            on_end=self._end_action, label="Action"),
            "score": Phase("score", "event", on_begin=self._begin_score, label="Score"),
            "event": Phase("event", "end", on_begin=self._begin_event, label="Event"),
            "end": Phase("end", "deal", on_begin=self._end_turn, label="End"),
        }
        def spec(fn):
            return lambda state, seat: fn(self, state, seat)

        self.moves = {m.name: m for m in (
            Move("submit_bids", self._submit_bids, "BidsSealed",
                 sealed=lambda s, seat: f"bids-t{s.round}",
                 doc="traits: your bid cards in order, first to last",
                 label="Bid on traits", choices=spec(ch.bids)),
            Move("take_action", self._take_action, "ActionTaken",
                 doc="card: a face-up card id; resolve: true (default) or false to discard; "
                     "target: a seat for cards that target a player",
                 label="Take a card", choices=spec(ch.take_action)),
            Move("pass_action", self._pass_action, "ActionPassed", label="Take no card"),
            Move("steal_colony", self._steal_colony, "ColonyStolen", doc="target: a seat",
                 label="Steal a Colony", choices=spec(ch.steal_colony)),
            Move("resolve_drawn", self._resolve_drawn, "DrawnActionResolved",
                 doc="card: one of the three drawn; target: a seat if the card needs one",
                 label="Resolve a drawn card", choices=spec(ch.resolve_drawn)),
            Move("decline_bonus", self._decline_bonus, "BonusDeclined",
                 label="Decline the bonus"),
            Move("pick_side", self._pick_side, "SidePicked", doc="player: a seat",
                 label="Pick a side", choices=spec(ch.pick_side)),
        )}
        self.steps = {"score": self._score_step, "bonus": self._bonus_step}
        from .bots import BOTS, GPObservation
        self.bots = BOTS
        self.observation = GPObservation

    # -- set-up ---------------------------------------------------------------------------------
    def setup(self, state):
        r = self.rules
        deck = list(r.actions)
        state.rng.shuffle(deck)
        events = list(r.events)
        state.rng.shuffle(events)
        state.data = GPData(
            tokens=[{t: r.start_tokens for t in TOKENS} for _ in state.seats()],
            baton=state.rng.randrange(state.n), action_deck=deck, event_deck=events,
            bid_mod=[0] * state.n, bid_slots=[0] * state.n)

    # -- helpers ----------------------------------------------------------------------------------
    def level(self, state, seat, traits):
        tok = state.data.tokens[seat]
        return sum(tok[t] for t in traits)

    def highest(self, state, traits, mode=None):
        """Seats that count as 'the player with the highest level' of ``traits``."""
        if len(traits) == 1:
            t = traits[0]
            vals = list(map(_GET.get(t) or itemgetter(t), state.data.tokens))
        else:
            vals = [sum(tok[t] for t in traits) for tok in state.data.tokens]
        top = max(vals)
        if vals.count(top) == 1:                        # the usual case, read six times a turn
            return [vals.index(top)]
        if (mode or state.config["ties"]) == "all":
            return [s for s, v in enumerate(vals) if v == top]
        return []

    def blocked(self, state, seat):
        """Traits this seat may not bid on this turn."""
        return self.blocked_all(state)[seat]

    def blocked_all(self, state):
        """For every seat, the traits it may not bid on (it has the highest level)."""
        tied_blocks = state.config["bid_block"] == "tied-highest"
        tokens = state.data.tokens
        out = [[] for _ in tokens]
        # every seat's level of each trait, trait by trait (one pass in C)
        for t, vals in zip(TRAITS, zip(*map(_GET_TRAITS, tokens))):
            top = max(vals)
            if vals.count(top) == 1:
                out[vals.index(top)].append(t)
            elif tied_blocks:
                for s, v in enumerate(vals):
                    if v == top:
                        out[s].append(t)
        return out

    def baton_order(self, state):
        b = state.data.baton
        return [(b + i) % state.n for i in range(state.n)]

    def _gain(self, state, seat, token, n):
        state.data.tokens[seat][token] += n

    def _lose(self, state, seat, token, n):
        tok = state.data.tokens[seat]
        taken = min(n, tok[token])
        tok[token] -= taken
        return taken

    def _draw_actions(self, state, k):
        d = state.data
        out = []
        for _ in range(k):
            if not d.action_deck:
                if not d.action_discard:
                    break
                d.action_deck, d.action_discard = d.action_discard, []
                state.rng.shuffle(d.action_deck)
                state.note("ActionDeckReshuffled", cards=len(d.action_deck))
            out.append(d.action_deck.pop())
        return out

    def _next_event(self, state):
        d = state.data
        if not d.event_deck:
            d.event_deck, d.event_discard = d.event_discard, []
            state.rng.shuffle(d.event_deck)
            state.note("EventDeckReshuffled", cards=len(d.event_deck))
        return d.event_deck[-1] if d.event_deck else None

    def _peek(self, state, seat, why):
        eid = self._next_event(state)
        if eid is not None:
            state.data.peeks[seat] = eid
            ev = self.rules.events[eid]
            if not state.lean:                  # (notices: only a table reads them)
                state.note("EventPeeked", seat=seat, why=why)                 # public: who looked
                state.note("NextEvent", to=seat, event=eid, name=ev.name, text=ev.text)

    def _card_names(self, cards):
        """``Gilded Age, Shipyards and Jazz``: Action cards by name."""
        return _and(self.rules.actions[c].name for c in cards)

    def _seat_arg(self, state, value, what="target"):
        if not is_whole(value) or not 0 <= value < state.n:
            raise IllegalMoveError(f"Choose a player as the {what} (a seat from 0 to "
                                   f"{state.n - 1}), not {value!r}.")
        return value

    # -- Deal -------------------------------------------------------------------------------------
    def _deal(self, state):
        state.round += 1
        d = state.data
        d.face_up = self._draw_actions(state, state.n + 1)
        d.bids, d.bid_counts, d.results, d.taken, d.drawn = {}, {}, [], {}, []
        if not state.lean:                  # (a copy nobody would read)
            state.note("ActionsDealt", cards=list(d.face_up))

    # -- Bid --------------------------------------------------------------------------------------
    def _begin_bid(self, state):
        d = state.data
        blocked_all = self.blocked_all(state)
        per_turn, mod = self.rules.bids_per_turn, d.bid_mod
        slots = d.bid_slots = [max(0, min(per_turn + mod[s], len(TRAITS) - len(blocked_all[s])))
                               for s in range(state.n)]
        d.bid_mod = [0] * state.n
        seats = [s for s in range(state.n) if slots[s] > 0]
        if not seats:
            state.note("NoBids")
            return
        w = state.open_window(f"bids-t{state.round}", "bids", seats, self._bids_revealed,
                              default=[], label=f"Turn {state.round} bids")
        prompts, wid = state.prompts, w.id
        for s in seats:
            blocked = blocked_all[s]
            # state.prompt(s, ("submit_bids",), ...), inline: the same dict, in the same order
            prompts[s] = {"window": wid, "count": slots[s],
                          "allowed": [t for t in TRAITS if t not in blocked] if blocked
                          else list(TRAITS), "blocked": blocked, "moves": ("submit_bids",)}

    def _submit_bids(self, state, seat, traits):
        if not isinstance(traits, list) or not all(map(_is_str, traits)):
            raise IllegalMoveError("Bids are a list of traits, first to last.")
        n = state.data.bid_slots[seat]
        if len(traits) != n:
            raise IllegalMoveError(f"{state.players[seat]} plays exactly {n} bid card"
                                   f"{'s' if n != 1 else ''} this turn, not {len(traits)}.")
        if len(set(traits)) != len(traits):
            raise IllegalMoveError("Each trait has one bid card; you cannot bid on the same "
                                   "trait twice.")
        blocked = state.prompts[seat]["blocked"]
        for t in traits:
            if t not in TRAITS:
                raise IllegalMoveError(f"{t!r} is not a trait. Traits: {', '.join(TRAITS)}.")
            if t in blocked:
                raise IllegalMoveError(f"You may not bid on {_name(t)}: you have the highest "
                                       f"{_name(t)} level "
                                       f"({state.data.tokens[seat][t]}).")
        return list(traits)

    def _bids_revealed(self, state, window):
        state.data.bids = {s: list(c) for s, c in window.revealed().items()}

    # -- Results ----------------------------------------------------------------------------------
    def _resolve_bids(self, state):
        d, r = state.data, self.rules
        order = self.baton_order(state)
        all_bids, counts, results, tokens = d.bids, d.bid_counts, d.results, d.tokens
        gains, beyond, n_gains = r.gains, r.beyond, len(r.gains)
        depth = max((len(b) for b in all_bids.values()), default=0)
        bidders = [(seat, all_bids[seat]) for seat in order if seat in all_bids]
        add = results.append
        for k in range(depth):
            card = k + 1
            for seat, bids in bidders:
                if k >= len(bids):
                    continue
                t = bids[k]
                nth = counts.get(t, 0) + 1
                counts[t] = nth
                delta = gains[nth - 1] if nth <= n_gains else beyond
                step = {"seat": seat, "bid": card, "trait": t, "nth": nth, "change": delta}
                tok = tokens[seat]                      # _gain and _lose, inline
                if delta > 0:
                    tok[t] += delta
                elif delta < 0:
                    taken = min(-delta, tok[t])
                    tok[t] -= taken
                    step["change"] = -taken
                if nth == 3:
                    token, why = r.third_loses[t]
                    taken = min(1, tok[token])
                    tok[token] -= taken
                    step["lost"] = {"token": token, "count": taken, "why": why}
                add(step)
        if not state.lean:                  # (a copy nobody would read)
            state.note("BidsResolved", steps=list(d.results),
                       says=self._bids_words(state, d.results))

    @staticmethod
    def _bids_words(state, steps):
        """The bids' results in words: what each player's tokens did, in seat order."""
        per = {}
        for st in steps:
            mine = per.setdefault(st["seat"], {"gain": {}, "lost": []})
            if st["change"]:
                mine["gain"][st["trait"]] = mine["gain"].get(st["trait"], 0) + st["change"]
            lost = st.get("lost")
            if lost and lost["count"]:
                mine["lost"].append(f"{lost['count']} {_name(lost['token'])} ("
                                    f"third {_name(st['trait'])} bid)")
        parts = []
        for seat in sorted(per):
            got = [f"{_name(t)} {'+' if n > 0 else ''}{n}" for t, n in per[seat]["gain"].items()
                   if n]
            if per[seat]["lost"]:
                got.append("loses " + _and(per[seat]["lost"]))
            parts.append(f"{state.players[seat]} " + (", ".join(got) if got else "nothing"))
        return f"Turn {state.round} bids: " + "; ".join(parts) + "." if parts else \
            f"Turn {state.round} bids: nobody bid."

    # -- Action -----------------------------------------------------------------------------------
    def _begin_action(self, state):
        d = state.data
        d.order = self.baton_order(state)
        d.action_at = 0
        self._prompt_action(state)

    def _prompt_action(self, state):
        d = state.data
        if d.action_at < len(d.order) and d.face_up:
            # state.prompt(seat, ("take_action", "pass_action"), cards=...), inline: the same
            # dict in the same order (once for every card taken)
            state.prompts[d.order[d.action_at]] = {"cards": list(d.face_up),
                                                   "moves": ("take_action", "pass_action")}

    def _after_action(self, state, seat):
        state.prompts.pop(seat, None)           # state.clear_prompt(seat), inline
        state.data.action_at += 1
        self._prompt_action(state)

    def _check_card(self, state, seat, card, target, options):
        a = self.rules.actions.get(card) if isinstance(card, str) else None
        if a is None or card not in options:
            raise IllegalMoveError(f"{card!r} is not one of the cards you can take: "
                                   f"{', '.join(self.rules.actions[c].name for c in options)}.")
        if a.needs_target:
            self._seat_arg(state, target)
            if target == seat:
                raise IllegalMoveError(f"{a.name} targets another player, not yourself.")
        elif target is not None:
            raise IllegalMoveError(f"{a.name} has no target.")
        if state.config["require_payment"]:
            tok = state.data.tokens[seat]
            for t, n in a.cost.items():
                if tok[t] < n:
                    raise IllegalMoveError(f"Resolving {a.name} costs {n} {_name(t)}; you "
                                           f"have {tok[t]}. Take it and discard it instead.")
        return a

    def _resolve_card(self, state, seat, a, target):
        # _gain and _lose, inline (a card resolves about five times a turn); the same changes
        # in the same order: pay, gain, the target's losses, steals, the others' losses
        tokens = state.data.tokens
        tok = tokens[seat]
        for t, n in a.cost.items():
            tok[t] -= min(n, tok[t])
        for t, n in a.gain.items():
            tok[t] += n
        if a.target_loses:
            hit = tokens[target]
            for t, n in a.target_loses.items():
                hit[t] -= min(n, hit[t])
        if a.steal:
            hit = tokens[target]
            for t, n in a.steal.items():
                taken = min(n, hit[t])
                hit[t] -= taken
                tok[t] += taken
        for t, n in a.others_lose.items():
            for s in range(state.n):
                if s != seat:
                    other = tokens[s]
                    other[t] -= min(n, other[t])
        if a.extra_bids:
            state.data.bid_mod[seat] += a.extra_bids
        if a.target_fewer_bids:
            state.data.bid_mod[target] -= a.target_fewer_bids
        if a.peek_event:
            self._peek(state, seat, a.name)

    def _announce(self, state, seat, a, target, before, drawn=False):
        """Say what an Action card did, in words (who did what to whom), as a public notice
        (``ActionResolved``), and tell its target privately (``ActionAgainstYou``). ``before``:
        every seat's tokens before the card resolved, so the words give what was really lost
        (a loss takes only what there is)."""
        tokens = state.data.tokens
        moved = {s: {t: tokens[s][t] - before[s][t] for t in tokens[s]
                     if tokens[s][t] != before[s][t]} for s in state.seats()}
        moved = {s: d for s, d in moved.items() if d}
        changes = {str(s): d for s, d in moved.items()}
        state.note("ActionResolved", seat=seat, card=a.id, name=a.name, target=target,
                   changes=changes, says=self._effect_words(state, seat, a, target, moved,
                                                            drawn),
                   **({} if target is None else {"not_for": target}))
        if target is not None:
            state.note("ActionAgainstYou", to=target, seat=seat, card=a.id, name=a.name,
                       changes=changes, says=self._effect_words(state, seat, a, target, moved,
                                                                drawn, you=target))

    @staticmethod
    def _effect_words(state, seat, a, target, moved, drawn, you=None):
        """The sentence of an Action card's effect; ``you``: the seat it is told to."""
        def p(s):
            return "you" if s == you else state.players[s]

        def does(s, verb, verb_you):
            return f"{p(s)} {verb_you if s == you else verb}"

        def amounts(d, sign):
            return _and([f"{abs(n)} {_name(t)}" for t, n in d.items() if n * sign > 0])

        parts = []
        stolen = {t: n for t, n in moved.get(seat, {}).items() if t in a.steal and n > 0}
        if stolen and target is not None:
            parts.append(f"{p(seat)} took {amounts(stolen, 1)} from {p(target)}")
        mine = {t: n for t, n in moved.get(seat, {}).items() if t not in stolen}
        if amounts(mine, -1):
            parts.append(f"{p(seat)} paid {amounts(mine, -1)}")
        if amounts(mine, 1):
            parts.append(f"{p(seat)} gained {amounts(mine, 1)}")
        for s, d in moved.items():
            if s != seat and amounts(d, -1):
                parts.append(f"{p(s)} lost {amounts(d, -1)}")
        for s, n, more in ((seat, a.extra_bids, "more"), (target, a.target_fewer_bids, "fewer")):
            if n and s is not None:
                parts.append(f"{does(s, 'plays', 'play')} {n} {more} Bid card"
                             f"{'s' if n != 1 else ''} next turn")
        if a.peek_event:
            parts.append(f"{p(seat)} looked at the next Event")
        whom = f" on {p(target)}" if target is not None else ""
        return (f"{p(seat)} played {a.name}{whom}{' (a drawn card)' if drawn else ''}: "
                + ("; ".join(parts) if parts else "no effect") + ".")

    def _take_action(self, state, seat, card, resolve=True, target=None):
        if not isinstance(resolve, bool):
            raise IllegalMoveError("resolve must be true or false.")
        d = state.data
        if resolve:
            a = self._check_card(state, seat, card, target, d.face_up)
        else:
            a = self.rules.actions.get(card) if isinstance(card, str) else None
            if a is None or card not in d.face_up:
                raise IllegalMoveError(f"{card!r} is not face up.")
        d.face_up.remove(card)
        d.action_discard.append(card)
        before = None if state.lean or not resolve else [dict(t) for t in d.tokens]
        if resolve:
            self._resolve_card(state, seat, a, target)
        d.taken[seat] = {"card": card, "resolved": resolve, "target": target}
        if not state.lean:
            state.note("ActionTaken", seat=seat, card=card, name=a.name, resolved=resolve,
                       target=target)
            if before is not None:
                self._announce(state, seat, a, target, before)
        self._after_action(state, seat)

    def _pass_action(self, state, seat):
        state.data.taken[seat] = None
        if not state.lean:                  # (notices: only a table reads them)
            state.note("ActionPassed", seat=seat)
        self._after_action(state, seat)

    def _end_action(self, state):
        d = state.data
        if d.face_up:
            if not state.lean:
                state.note("ActionsDiscarded", cards=list(d.face_up))
        d.action_discard.extend(d.face_up)
        d.face_up = []

    # -- Score ------------------------------------------------------------------------------------
    # The rows of the score track, in order, in one step; a row's bonuses that need a decision
    # (steal a Colony, resolve one of three drawn Actions) are steps right after it, each asking
    # its winner, and the rows below wait in a step after those.
    def _begin_score(self, state):
        if self.rules.score:
            state.push([{"step": "score", "row": 0}])

    def _score_step(self, state, step):
        d = state.data
        rows = self.rules.score
        tokens = d.tokens
        said = None if state.lean else list(step.get("said", ()))
        for row in range(step["row"], len(rows)):
            trait, vp, gain, bonus = rows[row]
            vals = list(map(_GET.get(trait) or itemgetter(trait), tokens))
            top = max(vals)
            if vals.count(top) == 1:                    # self.highest's usual case, inline
                winners = [vals.index(top)]
            else:
                winners = self.highest(state, (trait,))
            if said is not None:                        # notices: only a table reads them
                state.note("Scored", trait=trait, seats=winners, vp=vp)
                said.append(f"{_name(trait)}: " + (
                    f"{_and(state.players[w] for w in winners)} +{vp} VP" if winners else
                    "tied, nobody scores"))
                if row + 1 == len(rows):
                    state.note("TurnScored", turn=state.round,
                               says=f"Turn {state.round} scoring: " + "; ".join(said) + ".")
            later = None
            for w in winners:
                tok = d.tokens[w]                       # _gain, inline: six rows a turn
                tok["vp"] += vp
                for t, n in gain.items():
                    tok[t] += n
                if bonus == "extra_bid":
                    d.bid_mod[w] += 1
                elif bonus == "peek_event":
                    self._peek(state, w, f"highest {_name(trait)}")
                elif bonus is not None:
                    if later is None:
                        later = []
                    later.append({"step": "bonus", "seat": w, "bonus": bonus})
            if later:
                if row + 1 < len(rows):
                    nxt = {"step": "score", "row": row + 1}
                    if said is not None:
                        # a bonus stops the scoring for a choice: say the rows scored so far
                        # now (their VP are on the screens); TurnScored says the whole turn
                        # after the last row
                        asked = _and(state.players[x["seat"]] for x in later)
                        state.note("ScoringPaused", turn=state.round,
                                   says=f"Turn {state.round} scoring so far: "
                                        + "; ".join(said) + f" ({asked} first chooses a bonus).")
                        nxt["said"] = said              # the turn's words so far
                    later.append(nxt)
                state.push(later, front=True)
                return

    def _bonus_step(self, state, step):
        d = state.data
        seat, bonus = step["seat"], step["bonus"]
        if bonus == "steal_colony":
            if "target" in step:
                target = step["target"]
                self._gain(state, seat, "colony", self._lose(state, target, "colony", 1))
                if not state.lean:                  # (notices: only a table reads them)
                    tok, pl = d.tokens, state.players
                    state.note("ColonyStolen", seat=seat, target=target,
                               says=f"{pl[seat]} took a Colony from {pl[target]} (the "
                                    f"highest Navy's bonus): {pl[target]}'s Colony "
                                    f"{tok[target]['colony'] + 1} to {tok[target]['colony']}, "
                                    f"{pl[seat]}'s {tok[seat]['colony'] - 1} to "
                                    f"{tok[seat]['colony']}.")
                return None
            if step.get("declined"):
                return None
            targets = [s for s in state.seats() if s != seat and d.tokens[s]["colony"] > 0]
            if targets:
                return state.ask(seat, ("steal_colony", "decline_bonus"), bonus=bonus,
                                 targets=targets)
            return None
        if bonus == "draw_three":
            if "drawn" not in step:
                step["drawn"] = True
                d.drawn = self._draw_actions(state, 3)
                if not d.drawn:
                    return None
                if not state.lean:                  # (notices: only a table reads them)
                    pl = state.players[seat]
                    state.note("ActionsDrawn", seat=seat, cards=list(d.drawn),
                               says=f"{pl} drew {self._card_names(d.drawn)} (the highest "
                                    f"Colony's bonus) and may resolve one.")
                return state.ask(seat, ("resolve_drawn", "decline_bonus"), bonus=bonus,
                                 cards=list(d.drawn))
            if "card" in step:
                a = self.rules.actions[step["card"]]
                before = None if state.lean else [dict(t) for t in d.tokens]
                self._resolve_card(state, seat, a, step["target"])
                state.note("DrawnActionResolved", seat=seat, card=step["card"], name=a.name,
                           target=step["target"])
                if before is not None:
                    self._announce(state, seat, a, step["target"], before, drawn=True)
                    rest = list(d.drawn)
                    rest.remove(step["card"])
                    if rest:
                        state.note("DrawnActionsDiscarded", seat=seat, cards=rest,
                                   says=f"{state.players[seat]} discards the other drawn "
                                        f"card{'s' if len(rest) != 1 else ''}: "
                                        f"{self._card_names(rest)}.")
            d.action_discard.extend(d.drawn)
            d.drawn = []
        return None

    def _steal_colony(self, state, seat, target):
        step = state.waiting_step(seat, "steal_colony", "You have no Colony to steal now.")
        self._seat_arg(state, target)
        if target not in state.question()["targets"]:
            raise IllegalMoveError(f"{state.players[target]} has no Colony you can steal.")
        step["target"] = target
        state.resume(step)

    def _resolve_drawn(self, state, seat, card, target=None):
        step = state.waiting_step(seat, "resolve_drawn",
                                  "You have no drawn Action cards to resolve.")
        self._check_card(state, seat, card, target, state.data.drawn)
        step["card"], step["target"] = card, target
        state.resume(step)

    def _decline_bonus(self, state, seat):
        step = state.waiting_step(seat, "decline_bonus", "You have no bonus to decline.")
        if not state.lean:                  # (notices: only a table reads them)
            drawn = f"the drawn Action cards ({self._card_names(state.data.drawn)})"
            what = {"steal_colony": "the Colony steal",
                    "draw_three": drawn}.get(step["bonus"], step["bonus"])
            state.note("BonusDeclined", seat=seat, bonus=step["bonus"],
                       says=f"{state.players[seat]} declined {what}.")
        step["declined"] = True
        state.resume(step)

    # -- Event ------------------------------------------------------------------------------------
    def _begin_event(self, state):
        d = state.data
        eid = self._next_event(state)
        if eid is None:
            return
        d.event_deck.pop()
        d.event = eid
        d.event_discard.append(eid)
        d.peeks = {}
        ev = self.rules.events[eid]
        if not state.lean:                  # (notices: only a table reads them)
            state.note("EventFlipped", event=eid, name=ev.name, text=ev.text,
                       says=f"Event: {ev.name}. {ev.text}")
        if ev.war is None:
            winners = self.highest(state, ev.award_traits)
            for w in winners:
                self._gain(state, w, "vp", ev.award_vp)
            if not state.lean:                  # (notices: only a table reads them)
                state.note("EventAwarded", event=eid, seats=winners, vp=ev.award_vp,
                           says=f"{ev.name}: " + (
                               f"+{ev.award_vp} VP to "
                               f"{_and(state.players[w] for w in winners)}." if winners else
                               "nobody has the most; no VP."))
            return
        leader = d.baton
        if ev.war == "great":
            d.war = {"event": eid, "sides": [[leader], []], "free": [
                s for s in state.seats() if s != leader], "picker": 0, "foe": None}
            state.prompt(leader, ("pick_side",), war=eid, pick="foe",
                         candidates=list(d.war["free"]))
        else:
            foe = state.right_of(leader) if ev.war == "east" else state.left_of(leader)
            d.war = {"event": eid, "sides": [[leader], [foe]], "free": [], "picker": None,
                     "foe": foe}
            self._resolve_war(state)

    def _pick_side(self, state, seat, player):
        d = state.data
        war = d.war
        self._seat_arg(state, player, "player")
        if player not in war["free"]:
            raise IllegalMoveError(f"{state.players[player]} is already on a side.")
        if war["foe"] is None:
            war["foe"] = player
            war["sides"][1].append(player)
            state.note("FoeChosen", seat=seat, foe=player,
                       says=f"{state.players[seat]} chose {state.players[player]} as the foe "
                            f"in the war.")
            war["picker"] = 1
        else:
            war["sides"][war["picker"]].append(player)
            state.note("AllyChosen", seat=seat, ally=player,
                       says=f"{state.players[seat]} chose {state.players[player]} as an ally "
                            f"in the war.")
            war["picker"] = 1 - war["picker"]
        war["free"].remove(player)
        state.clear_prompt(seat)
        while len(war["free"]) == 1:            # the last one has no choice to make
            last = war["free"].pop()
            war["sides"][war["picker"]].append(last)
            state.note("AllyChosen", seat=None, ally=last, forced=True,
                       says=f"{state.players[last]}, the last one left, joins "
                            f"{state.players[war['sides'][war['picker']][0]]}'s side.")
        if war["free"]:
            picker = war["sides"][war["picker"]][0]
            state.prompt(picker, ("pick_side",), war=war["event"], pick="ally",
                         candidates=list(war["free"]))
        else:
            self._resolve_war(state)

    def _resolve_war(self, state):
        d = state.data
        sides = d.war["sides"]

        def strength(side, traits):
            return sum(self.level(state, s, traits) for s in side)

        before = [dict(t) for t in d.tokens]
        winner = None
        for traits in (("army", "navy"), ("industry",), ("nationalism",)):
            a, b = strength(sides[0], traits), strength(sides[1], traits)
            if a != b:
                winner = 0 if a > b else 1
                break
        if winner is None:
            for s in sides[0] + sides[1]:
                for t in ("army", "navy"):
                    self._lose(state, s, t, d.tokens[s][t] // 2)
            state.note("WarStalemate", sides=sides,
                       says=self._war_words(state, sides, None, before))
        else:
            for s in sides[winner]:
                self._gain(state, s, "vp", self.rules.war_vp)
                for t in ("army", "navy"):
                    self._lose(state, s, t, d.tokens[s][t] // 2)
            for s in sides[1 - winner]:
                for t in ("army", "navy"):
                    self._lose(state, s, t, max(0, d.tokens[s][t] - 1))
            state.note("WarWon", winners=sides[winner], losers=sides[1 - winner],
                       vp=self.rules.war_vp, says=self._war_words(state, sides, winner, before))
        d.war["result"] = winner
        d.war["done"] = True

    def _war_words(self, state, sides, winner, before):
        """A war's result in words: who won, the VP, and each side's Army and Navy after."""
        d, pl = state.data, state.players
        ev = self.rules.events[d.war["event"]]

        def side(ss):
            return _and(pl[s] for s in ss)

        def left(ss):
            return "; ".join(f"{pl[s]} Army {before[s]['army']} to {d.tokens[s]['army']}, "
                             f"Navy {before[s]['navy']} to {d.tokens[s]['navy']}" for s in ss)
        if winner is None:
            return (f"{ev.name}: {side(sides[0])} against {side(sides[1])} is a stalemate; "
                    f"everyone in it loses half their Army and Navy ("
                    f"{left(sides[0] + sides[1])}).")
        won, lost = sides[winner], sides[1 - winner]
        return (f"{ev.name}: {side(won)} won the war against {side(lost)}: +"
                f"{self.rules.war_vp} VP each ({left(won)}); {side(lost)} keep"
                f"{'s' if len(lost) == 1 else ''} at most 1 Army and 1 Navy ({left(lost)}).")

    # -- End --------------------------------------------------------------------------------------
    def _end_turn(self, state):
        d = state.data
        d.vp_curve.append([d.tokens[s]["vp"] for s in state.seats()])
        d.war = None
        if state.round >= state.config["turns"]:
            self._finish(state)
            return
        was, d.baton = d.baton, state.left_of(d.baton)
        if not state.lean:                  # (notices: only a table reads them)
            pl = state.players
            state.note("BatonPassed", seat=d.baton,
                       says=f"{pl[was]} passes the Leader Baton to {pl[d.baton]}, who goes "
                            f"first in turn {state.round + 1}.")

    def standings(self, state):
        """VP as they stand (the table ends the game early)."""
        return {s: state.data.tokens[s]["vp"] for s in state.seats()}

    def _finish(self, state):
        d = state.data
        vp = [d.tokens[s]["vp"] for s in state.seats()]
        top = max(vp)
        winners = [s for s in state.seats() if vp[s] == top]
        tiebreak = None
        if len(winners) > 1 and state.config["final_tiebreak"] == "tokens":
            tiebreak = "most trait tokens"
            totals = {s: self.level(state, s, TRAITS) for s in winners}
            best = max(totals.values())
            winners = [s for s in winners if totals[s] == best]
        reason = "most VP after turn %d" % state.round
        if len(winners) > 1:
            tiebreak = (tiebreak + ", still tied: shared") if tiebreak else "shared win"
        state.finish(winners, reason, {s: vp[s] for s in state.seats()}, tiebreak,
                     code="last_turn")

    # -- corrections ------------------------------------------------------------------------------
    def get_counter(self, state, seat, counter):
        if seat is None:
            raise IllegalMoveError("Say which player's tokens to correct.")
        return state.data.tokens[seat][counter]

    def set_counter(self, state, seat, counter, value):
        state.data.tokens[seat][counter] = value

    # -- holdings ---------------------------------------------------------------------------------
    def holdings(self, state, seat):
        """The Leader Baton, and the three Action cards the highest Colony drew while they
        choose one (face up: the table sees them). Tokens are counters; an Action card taken
        from the row is resolved or discarded at once, never held."""
        d = state.data
        out = Counter()
        if seat == d.baton:
            out["Leader Baton"] += 1
        if d.drawn:
            q = state.question()
            if q is not None and q.get("seat") == seat:
                out.update(self.rules.actions[c].name for c in d.drawn)
        return out

    # -- views ------------------------------------------------------------------------------------
    def _card(self, cid):
        a = self.rules.actions[cid]
        return {"id": cid, "name": a.name, "text": a.text, "target": a.needs_target}

    def public_view(self, state):
        d = state.data
        ev = self.rules.events.get(d.event) if d.event else None
        return {
            "turn": state.round, "turns": state.config["turns"], "baton": d.baton,
            "tokens": [dict(t) for t in d.tokens],
            "face_up": [self._card(c) for c in d.face_up],
            "drawn": [self._card(c) for c in d.drawn],
            "event": {"id": d.event, "name": ev.name, "text": ev.text} if ev else None,
            "bid_slots": list(d.bid_slots),
            "blocked": self.blocked_all(state),
            "bids": {str(s): b for s, b in d.bids.items()},
            "results": list(d.results), "bid_counts": dict(d.bid_counts),
            "order": list(d.order), "taken": {str(s): t for s, t in d.taken.items()},
            "peeked": sorted(d.peeks), "war": d.war, "vp_curve": [list(r) for r in d.vp_curve],
            "decks": {"actions": len(d.action_deck), "action_discard": len(d.action_discard),
                      "events": len(d.event_deck)},
        }

    def seat_view(self, state, seat):
        eid = state.data.peeks.get(seat)
        ev = self.rules.events[eid] if eid else None
        return {"tokens": dict(state.data.tokens[seat]),
                "next_event": {"id": eid, "name": ev.name, "text": ev.text} if ev else None}

    def text_table(self, state):
        d = state.data
        cols = ("vp",) + TRAITS
        head = f"{'player':16}" + "".join(f"{TOKEN_NAMES[t]:>12}" for t in cols)
        lines = [f"Turn {state.round} of {state.config['turns']}", head]
        for s in state.seats():
            mark = "*" if s == d.baton else " "
            lines.append(f"{mark}{state.players[s]:15}" +
                         "".join(f"{d.tokens[s][t]:>12}" for t in cols))
        return "\n".join(lines)

    def summary(self, state):
        return {"factions": {}}
