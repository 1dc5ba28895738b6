"""Draw: Trade Warz draws up to the Leader's hand size from any decks; Tariff Warz draws the
number on the Leader tile, split among the piles. A seat with one pile to draw from draws at
once; the others are asked how many from each pile. Under rules version 2 the count follows the
hand until the seat draws (a Tactic played during Draw counts)."""
from companion.core.errors import IllegalMoveError


class DrawPhase:
    """Mixed into the Game."""

    def _begin_draw(self, state):
        d = state.data
        dr = d.draw
        dr.pending = [True] * state.n
        for s in range(state.n):
            k = dr.to_draw[s] = self.draw_due(state, s)
            have = self.piles_for(state, s)
            if k and len(have) == 1:
                self.draw(state, s, {next(iter(have)): k})
                k = dr.to_draw[s] = 0
            if not k:
                dr.pending[s] = False

    def _draw_done(self, state):
        return not any(state.data.draw.to_draw)

    def draw_due(self, state, s, shared=None):
        """How many cards ``s`` draws now: Trade Warz, up to the hand size as the hand is now
        (a Tactic played during Draw counts; issue 12); Tariff Warz, the Leader's number;
        never more than the piles hold."""
        d = state.data
        ix = self.ix(state)
        lead = ix[d.board.leaders[s]]
        k = max(0, lead.hand_size - len(d.hands[s])) if ix.rules.draw == "up_to_hand_size" \
            else lead.draw
        if k == 0:
            return 0
        return min(k, sum(self.piles_for(state, s, shared).values()))

    def _refresh_draw(self, state):
        """Rules v2: the count of every seat yet to draw follows its hand."""
        dr = state.data.draw
        shared = None
        for s in range(state.n):
            if dr.pending[s]:
                if shared is None:
                    shared = self.piles_for(state, None)
                k = dr.to_draw[s] = self.draw_due(state, s, shared)
                if not k:
                    dr.pending[s] = False
                    state.note("NothingToDraw", seat=s)

    def _draw_cards(self, state, seat, split=None, export=0, tactic=0, policy=0, personal=0):
        d = state.data
        if split is None:
            split = {"export": export, "tactic": tactic, "policy": policy, "personal": personal}
        elif not isinstance(split, dict) or export or tactic or policy or personal:
            raise IllegalMoveError("split: how many cards from each pile, e.g. "
                                   "{\"export\": 2, \"tactic\": 1}.")
        q = state.question()
        if q is not None and q["kind"] == "draw" and q["seat"] == seat:
            step = self.waiting(state, seat, "draw_cards", "draw")
            step["ans"] = self.check_split(state, seat, split, q["count"])
            state.resume(step)
            return
        dr = d.draw
        if state.phase != "draw" or not dr.to_draw[seat]:
            raise IllegalMoveError("You have no cards to draw now.")
        clean = self.check_split(state, seat, split, dr.to_draw[seat])
        self.draw(state, seat, clean)
        dr.to_draw[seat] = 0
        if dr.pending:
            dr.pending[seat] = False
