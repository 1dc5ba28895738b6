"""Effects that resolve as steps (docs/trade-warz-cards.md): at a moment (``immediate``,
``upkeep``, ``income``, ``activated``) a card's effects become an ``fx`` step of the core's flow.
A step that needs a decision (whom to target, which piles to draw from, which cards to discard,
which routes to destroy, a manual effect for the table) asks it (:meth:`Effects.ask`) and waits;
the answer (:mod:`.asks`) puts the decision into the step and the flow runs it again. Everything
in a step is plain data, so a session replays exactly.
"""
from companion.core.args import is_whole
from companion.core.errors import IllegalMoveError
from companion.core.flow import ASK

DONE = None                      # what a step returns when it is done

PILES = ("export", "tactic", "policy", "personal")
PILE_TITLES = {"export": "Export deck", "tactic": "Tactic deck", "policy": "Policy deck",
               "personal": "your own pile"}
#: The move that answers each kind of question (a manual effect: Done, or adjust by hand).
ASK_MOVES = {"target": ("choose_target",), "partner": ("choose_partner",),
             "optional": ("choose_optional",), "draw": ("draw_cards",),
             "discard": ("discard_cards",), "routes": ("choose_routes",),
             "order": ("order_policies",), "manual": ("confirm_manual", "adjust"),
             "step": ("confirm_step",)}


class Effects:
    """Mixed into the Game."""

    # -- questions ------------------------------------------------------------------------------
    def ask(self, state, seat, kind, **info):
        """Pause the running step: ``seat`` (None: the table) decides ``kind``."""
        moves = ASK_MOVES[kind]
        if seat is None:
            info["next"], info["step"] = moves[0], kind
        return state.ask(seat, moves, kind=kind, **info)

    def waiting(self, state, seat, move, what):
        """The step waiting for ``seat``'s ``move``, or "There is no {what} to make now."."""
        return state.waiting_step(seat, move, f"There is no {what} to make now.")

    def fx_job(self, state, src, owner, when, ch=None, label=None):
        """The ``fx`` step of ``src``'s effects at ``when`` (None if it has none)."""
        idx = self.ix(state).steps_of(src, when)
        if not idx:
            return None
        return {"step": "fx", "src": src, "owner": owner, "when": when, "idx": list(idx),
                "ch": dict(ch or {}), "label": label}

    # -- the effect step --------------------------------------------------------------------------
    def _fx_step(self, state, job):
        item = self.ix(state)[job["src"]]
        idx = job["idx"]
        while idx:
            i = idx[0]
            if self._effect(state, job, i, item.effects[i]) == ASK:
                return ASK
            idx.pop(0)
            job.pop("tq", None)
            if state.outcome is not None:
                return DONE
        return DONE

    def _effect(self, state, job, i, e):
        owner = job["owner"]
        ch = job["ch"]
        if "tq" not in job:
            if e.condition is not None and owner is not None and \
                    not self.cond(state, e.condition, owner):
                self._note_fx(state, job, e, skipped="its condition is not met")
                return DONE
            if e.optional and owner is not None and e.kind != "extra_policy":
                key = f"opt{i}"
                if key not in ch:
                    return self.ask(state, owner, "optional", effect=i, text=e.text or
                                    e.describe(), source=job["src"])
                if not ch[key]:
                    self._note_fx(state, job, e, skipped="declined")
                    return DONE
            if e.partner == "chosen" and ch.get("partner") is None:
                return self.ask(state, owner, "partner", source=job["src"],
                                options=list(self.ix(state).partners))
            tg = self._targets(state, e, owner, ch, job)
            if tg == ASK:
                return ASK
            if e.kind == "manual":
                if e.compute and self.computing(state):
                    return self._compute(state, job, i, e, tg)
                if not ch.get(f"man{i}"):
                    return self.ask(state, None, "manual", effect=i, source=job["src"],
                                    owner=owner, targets=tg, text=e.text,
                                    name=self.ix(state).name_of(job["src"]))
                return DONE
            job["tq"] = tg
        tq = job["tq"]
        while tq:
            if self._apply(state, job, i, e, tq[0]) == ASK:
                return ASK
            tq.pop(0)
            if state.outcome is not None:
                break
        return DONE

    def _targets(self, state, e, owner, ch, job):
        t = e.target
        n = state.n
        if owner is None:
            if t == "all":
                return self.order(state, range(n))
            if t == "richest":
                return self.order(state, self.richest(state))
            if t == "poorest":
                return self.order(state, self.poorest(state))
            return []
        if t == "self":
            return [owner]
        if t == "all":
            return self.order(state, range(n))
        if t == "each_opponent":
            return self.order(state, [s for s in range(n) if s != owner and
                                      not self.shielded(state, s)])
        if t in ("richest", "poorest"):
            base = self.richest(state) if t == "richest" else self.poorest(state)
            return self.order(state, [s for s in base if s == owner or
                                      not self.shielded(state, s)])
        legal = self.legal_targets(state, owner, t)
        x = ch.get("target")
        if x in legal:
            return [x]
        if not legal:
            return []
        if len(legal) == 1:
            ch["target"] = legal[0]
            return legal
        return self.ask(state, owner, "target", source=job["src"], options=legal,
                        mode=t)

    def _note_fx(self, state, job, e, **extra):
        state.note("EffectResolved", source=job["src"], owner=job["owner"],
                   effect=e.kind, **extra)

    def _apply(self, state, job, i, e, x):
        d = state.data
        ix = self.ix(state)
        owner = job["owner"]
        src = job["src"]
        name = ix.name_of(src)
        k = e.kind
        hostile = owner is not None and x != owner
        if k == "gain_gdp":
            self.gain(state, x, e.amount, name)
            state.note("GdpGained", seat=x, amount=e.amount, source=src,
                       says=self.gdp_words(state, x, e.amount, name))
        elif k == "lose_gdp":
            if hostile and self.protected(state, x, "gdp"):
                state.note("Shielded", seat=x, source=src, what="gdp")
            else:
                lost = self.lose(state, x, e.amount, name)
                state.note("GdpLost", seat=x, amount=lost, source=src,
                           **({"says": self.gdp_words(state, x, -lost, name)} if lost else {}))
        elif k == "steal_gdp":
            if hostile and self.protected(state, x, "gdp"):
                state.note("Shielded", seat=x, source=src, what="gdp")
            elif owner is not None and x != owner:
                got = self.lose(state, x, e.amount, name)
                state.note("GdpStolen", seat=owner, victim=x, amount=got, source=src,
                           **({"says": f"{state.players[owner]} took {got} GDP from "
                                       f"{state.players[x]} ({name}): "
                                       f"{state.players[owner]} {d.gdp[owner] + got}, "
                                       f"{state.players[x]} {d.gdp[x]}."} if got else {}))
                self.gain(state, owner, got, name)
        elif k == "draw":
            return self._apply_draw(state, job, e, x)
        elif k == "discard":
            return self._apply_discard(state, job, e, x)
        elif k in ("gain_influence", "steal_influence"):
            if not ix.rules.influence_accumulates:
                return DONE
            p = self.partner_of(e, job["ch"])
            if p is None:
                return DONE
            if k == "gain_influence":
                self.gain_influence(state, x, p, e.amount, src)
            elif owner is not None and x != owner:
                got = min(e.amount, d.influence[x].get(p, 0))
                if got:
                    d.influence[x][p] -= got
                    d.influence[owner][p] = d.influence[owner].get(p, 0) + got
                pl = state.players
                state.note("InfluenceStolen", seat=owner, victim=x, partner=p, amount=got,
                           source=src,
                           **({"says": f"{pl[owner]} took {got} influence with "
                                       f"{ix.name_of(p)} from {pl[x]} ({name}): {pl[owner]} "
                                       f"{d.influence[owner][p]}, {pl[x]} {d.influence[x][p]}."}
                              if got else {}))
        elif k in ("destroy_route", "remove_route"):
            return self._apply_routes(state, job, i, e, x)
        elif k == "extra_policy":
            d.extra_policy[x] += e.count
            state.note("ExtraPolicy", seat=x, count=e.count, source=src)
        elif k == "refresh_fast_pass":
            if ix.rules.fast_pass and not d.fast_pass[x]:
                d.fast_pass[x] = True
                state.note("FastPassRefreshed", seat=x, source=src,
                           says=f"{state.players[x]}'s Fast-Pass token is ready again "
                                f"({name}).")
        return DONE

    # draw ----------------------------------------------------------------------------------------
    def piles_for(self, state, seat, shared=None):
        """{pile: cards available} for the piles ``seat`` may draw from (non-empty only).
        ``seat`` None: the shared decks only (``shared``: those, worked out already)."""
        d = state.data
        draw_piles = self.ix(state).draw_piles
        if shared is None:
            shared = {}
            for p in draw_piles:
                if p != "personal":
                    n = len(d.decks[p]) + len(d.discards[p])
                    if n:
                        shared[p] = n
            if seat is None:
                return shared
        n = len(d.piles[seat])
        if not n:
            return dict(shared)
        out = {}
        for p in draw_piles:
            if p == "personal":
                out[p] = n
            elif p in shared:
                out[p] = shared[p]
        return out

    def check_split(self, state, seat, split, count):
        """Validate a draw split ``{pile: n}``; returns the clean split. Draws must add up to
        ``count`` (or to every card left, if fewer)."""
        if not isinstance(split, dict):
            raise IllegalMoveError("Say how many cards to draw from each pile, e.g. "
                                   "{\"export\": 2, \"tactic\": 1}.")
        have = self.piles_for(state, seat)
        clean = {}
        for p, v in split.items():
            if p not in PILES:
                raise IllegalMoveError(f"{p!r} is not a pile. Piles: "
                                       f"{', '.join(self.ix(state).draw_piles)}.")
            if not is_whole(v) or v < 0:
                raise IllegalMoveError(f"Draw a whole number of cards from the "
                                       f"{PILE_TITLES[p]}, not {v!r}.")
            if v == 0:
                continue
            if p not in have:
                raise IllegalMoveError(f"You cannot draw from the {PILE_TITLES[p]}: it is "
                                       f"empty or not in this edition.")
            if v > have[p]:
                raise IllegalMoveError(f"The {PILE_TITLES[p]} has only {have[p]} "
                                       f"card{'s' if have[p] != 1 else ''}.")
            clean[p] = v
        want = min(count, sum(have.values()))
        got = sum(clean.values())
        if got != want:
            raise IllegalMoveError(f"Draw exactly {want} card{'s' if want != 1 else ''} "
                                   f"in all, not {got}.")
        return clean

    def draw(self, state, seat, split):
        """Draw for ``seat``: ``{pile: n}`` in pile order. Returns the card ids."""
        d = state.data
        got = []
        for p in PILES:
            k = split.get(p, 0)
            for _ in range(k):
                if p == "personal":
                    if not d.piles[seat]:
                        break
                    got.append(d.piles[seat].pop())
                    continue
                deck = d.decks[p]
                if not deck:
                    if not d.discards[p]:
                        break
                    deck.extend(d.discards[p])
                    d.discards[p] = []
                    state.rng.shuffle(deck)
                    state.note("DeckReshuffled", deck=p, cards=len(deck))
                got.append(deck.pop())
        d.hands[seat].extend(got)
        if got and not state.lean:          # notices: only a table reads them
            piles = {p: ("their own pile" if p == "personal" else f"the {PILE_TITLES[p]}")
                     for p in PILES if split.get(p)}
            whence = (f" from {next(iter(piles.values()))}" if len(piles) == 1 else
                      ": " + self.and_words(f"{split[p]} from {t}" for p, t in piles.items()))
            state.note("CardsDrawn", seat=seat, piles=dict(split), count=len(got),
                       says=f"{state.players[seat]} drew {self.cards_count(len(got))}"
                            f"{whence}.")
            state.note("YouDrew", to=seat, cards=list(got),
                       says=f"You drew {self.card_names(state, got)}.")
        return got

    def _apply_draw(self, state, job, e, x):
        deck = e.deck or "any"
        if deck == "policy" and "policy" not in self.ix(state).draw_piles:
            deck = "personal"
        if deck != "any":
            self.draw(state, x, {deck: e.count})
            return DONE
        ans = job.pop("ans", None)
        have = self.piles_for(state, x)
        if not have:
            return DONE
        split = None
        if ans is not None:
            split = ans
        elif len(have) == 1:
            split = {next(iter(have)): e.count}
        elif x == job["owner"] and job["ch"].get("draw") is not None:
            try:
                split = self.check_split(state, x, job["ch"]["draw"], e.count)
            except IllegalMoveError:
                split = None
            job["ch"].pop("draw", None)
        if split is None:
            return self.ask(state, x, "draw", count=min(e.count, sum(have.values())),
                            piles=have, source=job["src"])
        if len(have) == 1:
            p = next(iter(have))
            split = {p: min(e.count, have[p])}
        self.draw(state, x, split)
        return DONE

    # discard -------------------------------------------------------------------------------------
    def discard_card(self, state, seat, cid):
        """A card leaves ``seat``'s hand for its discard pile."""
        d = state.data
        d.hands[seat].remove(cid)
        self.to_discard(state, cid)

    def to_discard(self, state, cid):
        ix = self.ix(state)
        card = ix[cid]
        d = state.data
        if card.kind in d.discards and (card.deck == "global" or (
                card.signature and ix.rules.signature_to_global)):
            d.discards[card.kind].append(cid)
        else:
            d.out.append(cid)

    def check_discard(self, state, seat, cards, count):
        if not isinstance(cards, list) or not all(isinstance(c, str) for c in cards):
            raise IllegalMoveError("Name the cards to discard, as a list of card ids.")
        want = min(count, len(state.data.hands[seat]))
        if len(cards) != want:
            raise IllegalMoveError(f"Discard exactly {want} card{'s' if want != 1 else ''}, "
                                   f"not {len(cards)}.")
        hand = list(state.data.hands[seat])
        for c in cards:
            if c not in hand:
                raise IllegalMoveError(f"{self.ix(state).name_of(c)} is not in your hand.")
            hand.remove(c)
        return list(cards)

    def _apply_discard(self, state, job, e, x):
        d = state.data
        hand = d.hands[x]
        src = job["src"]
        if not hand:
            return DONE
        if e.random:
            k = min(e.count, len(hand))
            picks = state.rng.sample(range(len(hand)), k)
            cards = [hand[i] for i in sorted(picks, reverse=True)]
        elif len(hand) <= e.count:
            cards = list(hand)
        else:
            cards = job.pop("ans", None)
            if cards is None and x == job["owner"] and job["ch"].get("discard") is not None:
                try:
                    cards = self.check_discard(state, x, job["ch"]["discard"], e.count)
                except IllegalMoveError:
                    cards = None
                job["ch"].pop("discard", None)
            if cards is None:
                return self.ask(state, x, "discard", count=e.count, source=src)
        for c in cards:
            self.discard_card(state, x, c)
        self.note_discarded(state, x, cards, src, random=bool(e.random))
        return DONE

    def note_discarded(self, state, seat, cards, source, random=False):
        """Cards left ``seat``'s hand for the discard, in words: how many in public (the public
        view shows the discards as counts), which in a line to that player alone."""
        ix = self.ix(state)
        why = "the hand limit" if source == "hand-limit" else ix.name_of(source)
        how = " at random" if random else ""
        state.note("CardsDiscarded", seat=seat, count=len(cards), source=source,
                   **({"random": random} if source != "hand-limit" else {}), cards=list(cards),
                   says=f"{state.players[seat]} discarded {self.cards_count(len(cards))}{how} "
                        f"({why}).")
        state.note("YouDiscarded", to=seat, cards=list(cards),
                   says=f"You discarded {self.card_names(state, cards)}{how} ({why}).")

    # routes --------------------------------------------------------------------------------------
    def route_targets(self, state, e, x):
        ix = self.ix(state)
        out = []
        for p, slot, cid in self.routes_of(state, x):
            card = ix[cid]
            if e.tag is not None and e.tag not in card.tags:
                continue
            if e.partner is not None and e.partner not in ("chosen", "this") and \
                    e.partner != p:
                continue
            if e.max_cost is not None and card.cost > e.max_cost:
                continue
            if self.protected(state, x, "routes", p):
                continue
            out.append([p, slot])
        return out

    def _apply_routes(self, state, job, i, e, x):
        d = state.data
        cands = self.route_targets(state, e, x)
        if e.partner == "chosen":
            cands = [c for c in cands if c[0] == job["ch"].get("partner")]
        if not cands:
            state.note("NoRouteToHit", seat=x, source=job["src"])
            return DONE
        if len(cands) <= e.count:
            picks = cands
        else:
            picks = job.pop("ans", None)
            given = job["ch"].get("routes")
            if picks is None and given is not None:
                ok = [r for r in given if isinstance(r, list) and r in cands]
                if len(ok) == e.count and len({tuple(r) for r in ok}) == len(ok):
                    picks = ok
            if picks is None:
                return self.ask(state, job["owner"], "routes", count=e.count,
                                options=cands, victim=x, source=job["src"],
                                how=e.kind)
        for p, slot in picks:
            s, cid = d.board.routes[p].pop(slot)
            ix = self.ix(state)
            route = (f"{state.players[s]}'s route {ix.name_of(cid)} at {ix.name_of(p)} slot "
                     f"{slot}")
            if e.kind == "destroy_route":
                self.to_discard(state, cid)
                state.note("RouteDestroyed", seat=s, partner=p, slot=slot, card=cid,
                           source=job["src"],
                           says=f"{route} is destroyed ({ix.name_of(job['src'])}).")
            else:
                d.hands[s].append(cid)
                state.note("RouteRemoved", seat=s, partner=p, slot=slot, card=cid,
                           source=job["src"],
                           says=f"{route} goes back to their hand "
                                f"({ix.name_of(job['src'])}).")
        return DONE

    # -- the instant win -------------------------------------------------------------------------
    def check_boom(self, state):
        """Tariff Warz: whoever alone has the most GDP at or above the line wins; a tie at the
        top above the line plays on."""
        d = state.data
        if state.outcome is not None:
            return
        g = d.gdp
        top = max(g)
        if top < d.win:
            return
        who = [s for s in range(state.n) if g[s] == top]
        if len(who) == 1:
            self.win_now(state, who)
        elif d.boom_tie != who:
            d.boom_tie = who
            state.note("BoomTie", seats=who, gdp=top)
