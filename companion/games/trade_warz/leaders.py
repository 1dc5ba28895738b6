"""The Leader pick, before round 1: fixed Leaders (an option), dealt at random, or a sealed pick
(ranked wishes, clashes settled by lot). Seating the Leaders deals the decks and resolves every
Leader's and Trade Partner's ``immediate`` effects."""
from companion.core.errors import IllegalMoveError


class LeaderPhase:
    """Mixed into the Game."""

    def _begin_leaders(self, state):
        ix = self.ix(state)
        if state.config["leaders"]:
            self._seat_leaders(state, [x.strip() for x in state.config["leaders"].split(",")])
            return
        if state.config["leader_pick"] == "random":
            self._seat_leaders(state, state.rng.sample(list(ix.leaders), state.n))
            return
        state.open_window("leaders", "leader", list(range(state.n)), self._leaders_revealed,
                          default=None, label="Leader pick")

    def _leaders_done(self, state):
        return all(x is not None for x in state.data.board.leaders)

    def _pick_leader(self, state, seat, leader, ranking=None):
        ix = self.ix(state)
        if leader not in ix.leaders:
            raise IllegalMoveError(f"{leader!r} is not a Leader. Leaders: "
                                   f"{', '.join(ix.leaders)}.")
        ranking = [] if ranking is None else ranking
        if not isinstance(ranking, list) or any(x not in ix.leaders for x in ranking):
            raise IllegalMoveError(f"ranking: more Leader ids, in order of preference "
                                   f"({', '.join(ix.leaders)}).")
        wishes = [leader] + [x for x in ranking if x != leader]
        if len(set(wishes)) != len(wishes):
            raise IllegalMoveError("Name each Leader only once in your ranking.")
        return {"leader": leader, "ranking": wishes[1:]}

    def _leaders_revealed(self, state, window):
        ix = self.ix(state)
        picks = window.revealed()
        order = state.rng.sample(range(state.n), state.n)
        taken, out = set(), [None] * state.n
        result = [None] * state.n
        for s in order:
            c = picks.get(s) or {}
            wishes = ([c["leader"]] + list(c.get("ranking", ()))) if c.get("leader") else []
            got = next((w for w in wishes if w not in taken), None)
            wish = wishes.index(got) + 1 if got is not None else None
            if got is None:
                got = state.rng.choice([x for x in ix.leaders if x not in taken])
            taken.add(got)
            out[s] = got
            result[s] = {"seat": s, "leader": got, "wish": wish, "wishes": wishes}
        state.data.pick.order = order
        state.data.pick.result = result
        self._seat_leaders(state, out)

    def _seat_leaders(self, state, ids):
        d = state.data
        ix = self.ix(state)
        db = self.db
        ed = d.edition
        d.board.leaders = list(ids)
        for kind in ix.draw_piles:
            if kind == "personal":
                continue
            deck = list(db.deck(ed, kind, leaders=ids))
            state.rng.shuffle(deck)
            d.decks[kind] = deck
            d.discards[kind] = []
        for s, lid in enumerate(ids):
            pile = list(db.leader_deck(ed, lid))
            state.rng.shuffle(pile)
            d.piles[s] = pile
        ev = list(db.deck(ed, "event"))
        state.rng.shuffle(ev)
        d.events = ev
        d.first = state.rng.randrange(state.n)
        state.note("LeadersSeated", leaders={str(s): lid for s, lid in enumerate(ids)},
                   first=d.first, says=self._leaders_words(state, ids))
        if self.rules.opening_hand:
            for s in range(state.n):
                self.draw(state, s, {"export": self.rules.opening_hand})
        steps = [self.fx_job(state, lid, s, "immediate") for s, lid in enumerate(ids)]
        steps += [self.fx_job(state, p, None, "immediate", {"this": p}) for p in ix.partners]
        state.push([j for j in steps if j])

    def _leaders_words(self, state, ids):
        """Who leads whom, how each got their Leader (the lot's pick order for a sealed
        pick), and who plays first."""
        ix, pl, d = self.ix(state), state.players, state.data
        got = d.pick.result or [None] * state.n
        how = {}
        for s in range(state.n):
            r = got[s] or {}
            if r.get("wish"):
                how[s] = f" ({r['wish']}{ {1: 'st', 2: 'nd', 3: 'rd'}.get(r['wish'], 'th')} wish)"
            elif r:
                how[s] = " (every wish taken: by lot)"
        lead = "; ".join(f"{pl[s]}: {ix.name_of(lid)}{how.get(s, '')}"
                         for s, lid in enumerate(ids))
        order = ""
        if d.pick.order and d.pick.result:
            order = (" The lot set the pick order " + ", ".join(pl[s] for s in d.pick.order) +
                     "; each in turn took the first of their wishes still free.")
        return (f"Leaders: {lead}.{order} {pl[d.first]} takes the first-player marker and "
                f"plays first.")
