"""Paired comparisons of two data sets with common random numbers (issue 23, part 1).

``companion simulate GAME --compare DIR`` plays every *pair* of games, one on each data set
(A: the shipped data or ``--data``; B: the copy in DIR), with the same seed and the same seats,
and for every seed each distinct *seat rotation* of the line-up: the bots of ``--bots`` (and
Trade Warz's fixed ``--option leaders=...``) shifted one seat at a time, so that every bot (and
Leader) plays every seat. With the same bot at every seat all rotations are the same game and
one is played.

Each pair gives one paired difference ``B - A`` per figure (:func:`values`):

* ``("seat", i)``: seat i's win share (1 for a win, 1/k for a win shared by k, else 0);
* ``("leader", name)``: the win share of the seat playing that Leader (Trade Warz), over the
  pairs where the Leader played in both games;
* ``("difficulty", d)``: Battle Builder's share of monster battles won at difficulty d, over
  the pairs with such battles in both games.

:class:`Comparison` keeps one :class:`~.sequential.PairedTest` per figure, with ``alpha`` split
evenly over them (Bonferroni), so the chance that *any* figure reports a change when the two
data sets play alike stays at most ``alpha``. ``until="decided"`` stops as soon as every
figure is decided, or the budget of pairs runs out.

Pairs are fed to the tests one at a time in a fixed order (seed by seed, rotation by
rotation), so the verdicts and the pairs each took do not depend on the batch size or on
``jobs``.
"""
import itertools
import random

from .sequential import UNDECIDED, PairedTest

#: How many pairs are played before the tests are set up (their count sets Bonferroni's split).
FIRST_BATCH = 50


def values(facts) -> dict:
    """The figures of one game (module docstring) as ``{key: value}``."""
    share = 1.0 / len(facts.winners) if facts.winners else 0.0
    out = {("seat", s): (share if s in facts.winners else 0.0) for s in range(facts.n)}
    for s, name in facts.factions.items():
        out[("leader", name)] = share if int(s) in facts.winners else 0.0
    for diff, r in ((facts.summary.get("playtest") or {}).get("results") or {}).items():
        fought = r.get("won", 0) + r.get("lost", 0)
        if fought:
            out[("difficulty", diff)] = r.get("won", 0) / fought
    return out


def differences(a, b) -> dict:
    """``{key: b - a}`` over the figures both games have."""
    return {k: b[k] - a[k] for k in a if k in b}


def rotations(n, bots, options) -> list:
    """The distinct seat rotations ``[(bots, options)]`` of a line-up: ``bots`` a name for all
    seats or one per seat (comma list), ``options`` the options as given (Trade Warz's
    ``leaders`` rotated with the seats; each game resolves them with its own data)."""
    names = [s.strip() for s in bots.split(",")] if isinstance(bots, str) else list(bots)
    if len(names) == 1:
        names = names * n
    leaders = [x.strip() for x in (options.get("leaders") or "").split(",") if x.strip()]
    out, seen = [], set()
    for r in range(n):
        line = tuple(names[r:] + names[:r])
        fixed = tuple(leaders[r:] + leaders[:r]) if len(leaders) == n else tuple(leaders)
        if (line, fixed) in seen:
            continue
        seen.add((line, fixed))
        opts = dict(options)
        if fixed:
            opts["leaders"] = ",".join(fixed)
        out.append((",".join(line), opts))
    return out


class Comparison:
    """One sequential test per figure (module docstring). ``family``: how many figures alpha
    is split over (:func:`feed` counts those of the first batch of pairs); a figure first seen
    later gets ``alpha / k`` for the k figures known by then."""

    def __init__(self, delta=0.03, alpha=0.05, beta=0.05, family=1):
        self.delta, self.alpha, self.beta = delta, alpha, beta
        self.family = max(1, family)
        self.tests = {}
        self.pairs = 0
        self.decided_pair = {}       # key -> the pair (counted over all pairs) that decided it

    def add(self, diffs):
        """One pair's ``{key: b - a}``."""
        self.pairs += 1
        new = [k for k in diffs if k not in self.tests]
        if new:
            self.family = max(self.family, len(self.tests) + len(new))
        for k in new:
            self.tests[k] = PairedTest(self.delta, self.alpha / self.family, self.beta)
        for k, d in diffs.items():
            t = self.tests[k]
            t.add(d)
            if t.verdict != UNDECIDED and k not in self.decided_pair:
                self.decided_pair[k] = self.pairs

    @property
    def decided(self) -> bool:
        return bool(self.tests) and all(t.verdict != UNDECIDED for t in self.tests.values())

    @property
    def changed(self) -> list:
        """The keys whose verdict is a change."""
        return [k for k, t in self.tests.items() if t.verdict not in (UNDECIDED, "same")]

    def rows(self) -> list:
        order = {"seat": 0, "leader": 1, "difficulty": 2}
        diff_order = ("easy", "medium", "hard")

        def sort_key(k):
            kind, name = k
            if kind == "difficulty" and name in diff_order:
                name = diff_order.index(name)
            return (order.get(kind, 9), name if not isinstance(name, str) else 0, str(name))
        return [{"kind": k[0], "key": k[1], **self.tests[k].row(),
                 "decided_pair": self.decided_pair.get(k)}
                for k in sorted(self.tests, key=sort_key)]


def feed(comparison, diff_stream, budget, until=None, first_batch=FIRST_BATCH):
    """Feed pairs from ``diff_stream`` (an iterable of ``{key: b - a}``, one per pair) until
    ``budget`` pairs, or with ``until="decided"`` until every figure is decided. The first
    ``first_batch`` pairs are read before any test is set up, so that alpha is split over the
    figures they show. Returns the comparison. The command feeds it real games, the tests and
    the bench synthetic pairs: one code path."""
    it = iter(diff_stream)
    if not comparison.tests:
        held = list(itertools.islice(it, min(first_batch, budget)))
        if held:
            comparison.family = max(comparison.family, len(set().union(*held)))
        for diffs in held:
            comparison.add(diffs)
    while comparison.pairs < budget and not (until == "decided" and comparison.decided):
        diffs = next(it, None)
        if diffs is None:
            break
        comparison.add(diffs)
    return comparison


class Sides:
    """Each side's own figures over the pairs played (``sink`` of :func:`play_pairs`): the
    mean of every figure over the pairs where both games have it, each seat's win rate with
    its Wilson interval, the mean score spread."""

    def __init__(self):
        self.sums = {}
        self.spreads = [0.0, 0.0]
        self.pairs = 0

    def see(self, record):
        a, b, spread_a, spread_b = record
        self.pairs += 1
        self.spreads[0] += spread_a
        self.spreads[1] += spread_b
        for k in a:
            if k in b:
                row = self.sums.setdefault(k, [0, 0.0, 0.0])
                row[0] += 1
                row[1] += a[k]
                row[2] += b[k]

    def mean(self, kind, key, side) -> float:
        n, *sums = self.sums.get((kind, key), (0, 0.0, 0.0))
        return sums[side] / n if n else 0.0

    def side(self, side, players, data) -> dict:
        from companion.core.play import wilson
        seats = []
        for s, name in enumerate(players):
            n, *sums = self.sums.get(("seat", s), (0, 0.0, 0.0))
            lo, hi = wilson(round(sums[side]), n)
            seats.append({"seat": s, "player": name, "wins": sums[side], "games": n,
                          "win_rate": sums[side] / n if n else 0.0, "ci95": [lo, hi]})
        return {"data": data, "seats": seats,
                "mean_spread": self.spreads[side] / self.pairs if self.pairs else 0.0}


# -- real games ------------------------------------------------------------------------------

def _pair_chunk(name, data_a, data_b, players, items, lineups, games=None):
    """Play the pairs ``items`` (``(seed, rotation)``): each on A then on B. Returns small
    records ``(values A, values B, spread A, spread B)``. ``games``: the two games (in this
    process), else built from their data folders (a worker process)."""
    from companion.core.play import resolve_bots

    from .simulate import play_one
    if games is None:
        from companion.games import get
        games = get(name, data=data_a), get(name, data=data_b)
    bots = {}
    out = []
    for gseed, r in items:
        line, options = lineups[r]
        row = []
        for side, game in enumerate(games):
            if (side, r) not in bots:
                bots[side, r] = resolve_bots(game, line, len(players))
            f = play_one(game, players, gseed, bots[side, r], game.resolve_options(options))
            row.append(f)
        out.append((values(row[0]), values(row[1]), row[0].spread, row[1].spread))
    return out


def play_pairs(base, edited, players, bots="greedy", options=None, seed=0, jobs=1,
               batch=None, sink=None, cluster=None):
    """Pairs of real games, lazily: yields ``{key: b - a}`` pair by pair (seed by seed from
    ``seed``, as ``companion simulate`` draws them, every distinct rotation of each), playing
    ``batch`` pairs at a time (split over ``jobs`` worker processes, 0 = one per core, or over
    ``cluster``'s workers: :class:`~companion.core.workers.Workers`; default 20 in this
    process, 100 a worker). A stop wastes at most the rest of one batch:
    only the pairs taken from the iterator count. ``sink(record)`` sees every taken pair's
    ``(values A, values B, spread A, spread B)``."""
    n = len(players)
    lineups = rotations(n, bots, dict(options or {}))
    master = random.Random(seed)
    name = base.name
    data = getattr(base, "data_dir", None), getattr(edited, "data_dir", None)
    from companion.core.workers import Workers
    w = Workers(jobs, cluster)
    batch = batch or (20 if w.here else 100 * w.count)
    try:
        while True:
            items = []
            while len(items) < batch:
                gseed = master.getrandbits(48)
                items.extend((gseed, r) for r in range(len(lineups)))
            if w.here:
                records = _pair_chunk(name, *data, players, items, lineups, (base, edited))
            else:
                size = max(10, len(items) // (w.count * 2))
                records = [rec for got in w.map(_pair_chunk, [
                    (name, *data, players, items[i:i + size], lineups)
                    for i in range(0, len(items), size)]) for rec in got]
            for rec in records:
                if sink is not None:
                    sink(rec)
                yield differences(rec[0], rec[1])
    finally:
        w.close()


# -- synthetic games, for checking the procedure ---------------------------------------------

def synthetic_pairs(rng, n=3, leaders=("A", "B", "C", "D", "E", "F"), strength=None,
                    changed=0.5, boost=None):
    """Endless cheap pairs shaped like Trade Warz's, through the same :func:`values` and
    :func:`differences` as real games (tests/lab/test_paired.py, benches/bench_paired.py).
    Each game seats ``n`` of ``leaders`` at random and draws the winner with odds
    ``strength[leader]`` (default all 1). B's game is A's (the same winner) except with
    probability ``changed``, when its winner is drawn afresh: with the same odds (a deck
    compared with itself) or with ``boost`` (``{leader: odds}``) in place of some."""
    from types import SimpleNamespace
    strength = dict(strength or {x: 1.0 for x in leaders})
    edited = dict(strength, **(boost or {}))

    def game(seated, odds, winner=None):
        if winner is None:
            winner = rng.choices(range(n), weights=[odds[x] for x in seated])[0]
        return SimpleNamespace(n=n, winners=[winner], summary={},
                               factions={str(s): x for s, x in enumerate(seated)}), winner

    while True:
        seated = rng.sample(list(leaders), n)
        a, w = game(seated, strength)
        b, _ = game(seated, edited, None if rng.random() < changed else w)
        yield differences(values(a), values(b))
