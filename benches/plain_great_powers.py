"""A plain Python Great Powers for the benches: a yardstick, never used by the companion.

It plays the rules of companion/games/great_powers with its default options (10 turns, the
sole highest blocks a bid, a tie for highest scores nobody, costs must be payable, ties at the
end broken by trait tokens) and the same greedy players, from the same data files, in plain
loops over lists and dicts: no session, no log, no commitments, no prompts, no views, no
argument checks. It is what the engine is measured against (issue 12: "the engine within 2x of
a plain implementation"); it is not a second copy the companion could drift to, because nothing
but bench_sim imports it. It plays the very games the engine plays for the same seeds (a test
holds it to that), so the ratio compares the same work; and it is written as tightly as the
engine's own hot paths (card worths once per table size, itemgetter over the others' tokens),
so the ratio does not flatter the engine.
"""
import random
from operator import itemgetter

from companion.games.great_powers.bots import TRAIT_VP
from companion.games.great_powers.data import TRAITS, default_rules

RULES = default_rules()
ACTIONS = RULES.actions
EVENTS = RULES.events


def _value(a, n):
    v = a.gain.get("vp", 0) + 1.2 * sum(x for t, x in a.gain.items() if t != "vp")
    v -= 1.2 * sum(a.cost.values())
    v += 0.9 * sum(a.target_loses.values()) + 2.0 * sum(a.steal.values())
    v += 0.5 * (n - 1) * sum(a.others_lose.values())
    v += 3.0 * a.extra_bids + 2.0 * a.target_fewer_bids + (1.0 if a.peek_event else 0)
    return v


_VALUES = {}     # n -> {card id: worth}: once per table size, as the engine's greedy bot does


def play(n, seed):
    """One game of ``n`` greedy players; returns the winners' seats and every seat's VP (the
    same game the engine plays for this seed: tests/lab/test_plain_yardstick.py)."""
    rng = random.Random(seed)
    bot_rng = random.Random(seed ^ 0x5EED)
    values = _VALUES.get(n)
    if values is None:
        values = _VALUES[n] = {cid: _value(a, n) for cid, a in ACTIONS.items()}
    tok = [{t: RULES.start_tokens for t in ("vp",) + TRAITS} for _ in range(n)]
    deck = list(ACTIONS)
    rng.shuffle(deck)
    events = list(EVENTS)
    rng.shuffle(events)
    discard, ev_discard = [], []
    baton = rng.randrange(n)
    bid_mod = [0] * n

    def lose(s, t, k):
        k = min(k, tok[s][t])
        tok[s][t] -= k
        return k

    def draw(k):
        nonlocal deck, discard
        out = []
        for _ in range(k):
            if not deck:
                if not discard:
                    break
                deck, discard = discard, []
                rng.shuffle(deck)
            out.append(deck.pop())
        return out

    def highest(t):
        vals = [x[t] for x in tok]
        top = max(vals)
        who = [s for s in range(n) if vals[s] == top]
        return who if len(who) == 1 else []

    def leader(me):
        return max((s for s in range(n) if s != me), key=lambda s: (tok[s]["vp"], -s))

    def resolve(s, a, target):
        for t, k in a.cost.items():
            lose(s, t, k)
        for t, k in a.gain.items():
            tok[s][t] += k
        for t, k in a.target_loses.items():
            lose(target, t, k)
        for t, k in a.steal.items():
            tok[s][t] += lose(target, t, k)
        for t, k in a.others_lose.items():
            for o in range(n):
                if o != s:
                    lose(o, t, k)
        bid_mod[s] += a.extra_bids
        if a.target_fewer_bids:
            bid_mod[target] -= a.target_fewer_bids

    def payable(s, a):
        return all(tok[s][t] >= k for t, k in a.cost.items())

    for _turn in range(RULES.turns):
        face_up = draw(n + 1)
        # bid: the greedy choice, sealed and revealed at once
        blocked = [[] for _ in range(n)]
        for t in TRAITS:
            vals = [x[t] for x in tok]
            top = max(vals)
            holders = [s for s in range(n) if vals[s] == top]
            if len(holders) == 1:
                blocked[holders[0]].append(t)
        slots = [max(0, min(RULES.bids_per_turn + bid_mod[s], len(TRAITS) - len(blocked[s])))
                 for s in range(n)]
        bid_mod = [0] * n
        bids = {}
        for s in range(n):
            if slots[s]:
                scored = []
                others = [tok[o] for o in range(n) if o != s]
                for t in TRAITS:
                    if t in blocked[s]:
                        continue
                    gap = max(map(itemgetter(t), others)) - tok[s][t]
                    scored.append((TRAIT_VP[t] / (1.0 + max(gap, 0)) + bot_rng.random() * 0.5,
                                   t))
                scored.sort(reverse=True)
                bids[s] = [t for _, t in scored[:slots[s]]]
        order = [(baton + i) % n for i in range(n)]
        counts = {}
        for k in range(max((len(b) for b in bids.values()), default=0)):
            for s in order:
                b = bids.get(s, ())
                if k >= len(b):
                    continue
                t = b[k]
                nth = counts[t] = counts.get(t, 0) + 1
                delta = RULES.gains[nth - 1] if nth <= len(RULES.gains) else RULES.beyond
                if delta > 0:
                    tok[s][t] += delta
                elif delta < 0:
                    lose(s, t, -delta)
                if nth == 3:
                    lose(s, RULES.third_loses[t][0], 1)
        # action
        for s in order:
            if not face_up:
                break
            best, best_v = None, None
            for c in face_up:
                v = values[c] if payable(s, ACTIONS[c]) else -99
                if best_v is None or v > best_v:
                    best, best_v = c, v
            face_up.remove(best)
            discard.append(best)
            if best_v > 0:
                a = ACTIONS[best]
                resolve(s, a, leader(s) if a.needs_target else None)
        discard.extend(face_up)
        # score
        for trait, vp, gain, bonus in RULES.score:
            for w in highest(trait):
                tok[w]["vp"] += vp
                for t, k in gain.items():
                    tok[w][t] += k
                if bonus == "extra_bid":
                    bid_mod[w] += 1
                elif bonus == "steal_colony":
                    targets = [s for s in range(n) if s != w and tok[s]["colony"] > 0]
                    if targets:
                        target = max(targets, key=lambda s: (tok[s]["vp"], -s))
                        tok[w]["colony"] += lose(target, "colony", 1)
                elif bonus == "draw_three":
                    drawn = draw(3)
                    playable = [c for c in drawn if payable(w, ACTIONS[c])]
                    if playable:
                        best = max(playable, key=lambda c: (values[c], c))
                        if values[best] > 0:
                            a = ACTIONS[best]
                            resolve(w, a, leader(w) if a.needs_target else None)
                    discard.extend(drawn)
        # event
        if not events:
            events, ev_discard = ev_discard, []
            rng.shuffle(events)
        ev = EVENTS[events.pop()]
        ev_discard.append(ev.id)
        if ev.war is None:
            vals = [sum(x[t] for t in ev.award_traits) for x in tok]
            top = max(vals)
            who = [s for s in range(n) if vals[s] == top]
            if len(who) == 1:
                tok[who[0]]["vp"] += ev.award_vp
        else:
            if ev.war == "great":
                free = [s for s in range(n) if s != baton]
                foe = max(free, key=lambda s: (tok[s]["army"] + tok[s]["navy"], -s))
                sides, picker = [[baton], [foe]], 1       # the foe's side picks first
                free.remove(foe)
                while free:
                    if len(free) > 1:
                        p = max(free, key=lambda s: (tok[s]["army"] + tok[s]["navy"], -s))
                    else:
                        p = free[0]
                    sides[picker].append(p)
                    free.remove(p)
                    picker = 1 - picker
            else:
                foe = (baton - 1) % n if ev.war == "east" else (baton + 1) % n
                sides = [[baton], [foe]]
            winner = None
            for traits in (("army", "navy"), ("industry",), ("nationalism",)):
                a = sum(tok[s][t] for s in sides[0] for t in traits)
                b = sum(tok[s][t] for s in sides[1] for t in traits)
                if a != b:
                    winner = 0 if a > b else 1
                    break
            if winner is None:
                for s in sides[0] + sides[1]:
                    for t in ("army", "navy"):
                        lose(s, t, tok[s][t] // 2)
            else:
                for s in sides[winner]:
                    tok[s]["vp"] += RULES.war_vp
                    for t in ("army", "navy"):
                        lose(s, t, tok[s][t] // 2)
                for s in sides[1 - winner]:
                    for t in ("army", "navy"):
                        lose(s, t, max(0, tok[s][t] - 1))
        baton = (baton + 1) % n
    vp = [x["vp"] for x in tok]
    top = max(vp)
    winners = [s for s in range(n) if vp[s] == top]
    if len(winners) > 1:
        totals = {s: sum(tok[s][t] for t in TRAITS) for s in winners}
        best = max(totals.values())
        winners = [s for s in winners if totals[s] == best]
    return winners, vp
