"""Per-card impact (issue 23, part 2): for each card, how the seats that had it fared.

For every *seat-game* (one seat in one game) a :class:`CardWatch` records which cards the seat
had in its **opening** hand, which it ever had in hand (**drawn**), and which it **played**.
A card's figures are win rates over the seat-games that could have drawn it (its
*population*): the win share (1 for a win, 1/k for a win shared by k, else 0) averaged over
the seat-games where the card was in the opening hand, drawn, played, and **never seen**, each
with its count and 95% Wilson interval. The **difference** is the IWD-like "improvement when
drawn": win rate when drawn minus win rate when never drawn, with Newcombe's hybrid score
interval (built from the two Wilson intervals). A card is **flagged** when the difference is
at least :data:`FLAG_POINTS` (3 points) either way and its interval is clear of 0.
:func:`stability` reruns the whole thing on re-seeded simulations and counts, per card, in how
many reruns it was flagged; the flagged set is *stable* when the same set comes back in at
least 4 of 5.

A card's population: the seat-games whose group (Trade Warz: the Leader) saw the card in at
least one game. A Leader's personal deck is thereby compared only among that Leader's games,
and a shared card among all.

What a difference means: a card drawn more often in longer games, or by a seat that draws
more, looks better or worse for reasons that are not the card (the same caveat as
17lands' IWD). A flag is a place to look, not a verdict; ``restricted`` play (the same bot
forbidden the card) is the causal check, and is not built yet.

Built for Trade Warz (hands in ``state.data.hands``; cards are played by ``choose_policy``,
``place_export`` and ``play_tactic``) and Market Trading's improvements (drawn = built, played
= used; no opening hand). Great Powers and Battle Builder raise :class:`NotSupported`.
"""
import dataclasses
import math
import random

from companion.core.clock import FakeClock
from companion.core.errors import ConfigError
from companion.core.play import play_out, resolve_bots, wilson
from companion.core.session import LeanSession
from companion.core.workers import Workers

from .simulate import _Watched, seeds_for

#: A card is flagged when its difference is at least this (a fraction: 3 points) either way
#: and its 95% interval is clear of 0.
FLAG_POINTS = 0.03
#: Reruns of :func:`stability` and how many must give the same flagged set.
RERUNS = 5
STABLE = 4


class NotSupported(ConfigError):
    """Per-card impact is not built for this game."""


# -- what a game's cards are ---------------------------------------------------------------

class TradeWarzCards:
    """Trade Warz / Tariff Warz: the hands, the opening hand and the card-playing moves."""
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


ADAPTERS = {"trade-warz": TradeWarzCards, "market-trading": MarketTradingImprovements}


def adapter_for(game):
    try:
        return ADAPTERS[game.name](game)
    except KeyError:
        raise NotSupported(f"Per-card impact is not built for {game.title} yet "
                           f"(only {', '.join(sorted(ADAPTERS))}).") from None


# -- watching one game ---------------------------------------------------------------------

@dataclasses.dataclass(frozen=True)
class SeatCards:
    session: str
    seat: int
    share: float                 # win share: 1, 1/k for a shared win, else 0
    group: str | None            # the Leader (Trade Warz)
    opening: frozenset
    seen: frozenset              # ever in hand (includes opening and played)
    played: frozenset


class CardWatch:
    """Watches one game state by state (:meth:`see`) and move by move (:meth:`move`)."""

    def __init__(self, game, adapter=None):
        self.game = game
        self.ad = adapter or adapter_for(game)
        self.seen, self.opening, self.played = None, None, None
        self.names = {}

    def _init(self, n):
        self.seen = [set() for _ in range(n)]
        self.played = [set() for _ in range(n)]
        self.opening = [None] * n

    def see(self, state):
        if self.seen is None:
            self._init(state.n)
        opened = self.ad.opened(state)
        for s in range(state.n):
            hand = self.ad.hand(state, s)
            self.seen[s].update(hand)
            if opened and self.opening[s] is None:
                self.opening[s] = frozenset(hand)

    def move(self, seat, move, args):
        card = self.ad.played(move, args)
        if card is not None and seat is not None:
            self.played[seat].add(card)
            self.seen[seat].add(card)

    def rows(self, state, session) -> list:
        o = state.outcome
        if o is None:
            return []
        if not self.names:
            self.names = self.ad.names(state)
        share = 1.0 / len(o.winners) if o.winners else 0.0
        return [SeatCards(session, s, share if s in o.winners else 0.0,
                          self.ad.group(state, s), self.opening[s] or frozenset(),
                          frozenset(self.seen[s]), frozenset(self.played[s]))
                for s in range(state.n)]


def play_one(game, players, gseed, seat_bots, options):
    """One bot game, the same game as ``companion simulate`` plays for this seed; its rows."""
    s = LeanSession(game, players, options=options, seed=gseed, clock=FakeClock())
    watch = CardWatch(game)
    play_out(_Watched(s, watch), seat_bots, random.Random(gseed ^ 0x5EED))
    return watch.rows(s.state, f"sim-{gseed}"), watch.names


def _chunk(name, data, players, seeds, bots, options):
    from companion.games import get
    game = get(name, data=data)
    seat_bots = resolve_bots(game, bots, len(players))
    rows, names = [], {}
    for g in seeds:
        r, nm = play_one(game, players, g, seat_bots, options)
        rows.extend(r)
        names.update(nm)
    return rows, names


def simulate_rows(game, players, games, seed=0, bots="greedy", options=None, jobs=1,
                  cluster=None):
    """``(rows, names)`` of ``games`` bot games (the seeds of ``companion simulate``)."""
    adapter_for(game)
    resolve_bots(game, bots, len(players))
    options = game.resolve_options(options)
    data = getattr(game, "data_dir", None)
    seeds = seeds_for(seed, games)
    rows, names = [], {}
    with Workers(jobs, cluster, games) as w:
        size = games if w.here else max(10, games // (w.count * 4))
        for r, nm in w.map(_chunk, [(game.name, data, players, seeds[i:i + size], bots,
                                     options) for i in range(0, games, size)]):
            rows.extend(r)
            names.update(nm)
    return rows, names


def live_rows(log, infos, games=None):
    """``(rows, names)`` of finished sessions from the store, replayed from their logs (the
    seats' own moves are in the log, sealed ones included)."""
    from . import data as lab_data
    from .facts import walk
    rows, names = [], {}
    for info in infos:
        records = log.read(info.id)
        game = lab_data.game_for_records(records, games=games)
        watch = CardWatch(game)

        def each(rec, state, watch=watch):
            if rec is not None and rec.get("kind") == "move":
                watch.move(rec.get("seat"), rec.get("move"), rec.get("args"))
            watch.see(state)
        state = walk(game, records, each)
        rows.extend(watch.rows(state, info.id))
        names.update(watch.names)
    return rows, names


# -- the figures ---------------------------------------------------------------------------

def rate(wins, games) -> dict:
    """A win rate with its count and 95% Wilson interval (wins may be fractional: shared
    wins; the interval rounds them, as the report's rates do)."""
    lo, hi = wilson(round(wins), games)
    return {"wins": wins, "games": games, "rate": wins / games if games else None,
            "ci95": [lo, hi]}


def newcombe(a, b) -> list:
    """95% interval of the difference of two rates ``a - b`` (dicts of :func:`rate`):
    Newcombe's hybrid score interval (method 10 of Newcombe 1998), from the two Wilson
    intervals. ``[nan, nan]`` if either side has no games."""
    if not a["games"] or not b["games"]:
        return [math.nan, math.nan]
    p1, (l1, u1) = a["rate"], a["ci95"]
    p2, (l2, u2) = b["rate"], b["ci95"]
    d = p1 - p2
    return [d - math.sqrt((p1 - l1) ** 2 + (u2 - p2) ** 2),
            d + math.sqrt((u1 - p1) ** 2 + (p2 - l2) ** 2)]


def card_table(rows, names=None, flag=FLAG_POINTS) -> list:
    """One dict per card seen in ``rows``, largest |difference| first:

    ``{"card", "name", "games", "opening", "drawn", "played", "never", "diff", "diff_ci95",
    "flagged"}``; ``games`` the card's population (seat-games that could have drawn it), each
    of opening/drawn/played/never a :func:`rate`; ``diff`` = drawn - never (None if either is
    empty)."""
    names = names or {}
    groups_of = {}
    for r in rows:
        for c in r.seen:
            groups_of.setdefault(c, set()).add(r.group)
    out = []
    for c, groups in groups_of.items():
        pop = [r for r in rows if r.group in groups]
        acc = {k: [0.0, 0] for k in ("opening", "drawn", "played", "never")}
        for r in pop:
            for k, inside in (("opening", c in r.opening), ("drawn", c in r.seen),
                              ("played", c in r.played), ("never", c not in r.seen)):
                if inside:
                    acc[k][0] += r.share
                    acc[k][1] += 1
        figs = {k: rate(*v) for k, v in acc.items()}
        if figs["drawn"]["games"] and figs["never"]["games"]:
            diff = figs["drawn"]["rate"] - figs["never"]["rate"]
            ci = newcombe(figs["drawn"], figs["never"])
        else:
            diff, ci = None, [math.nan, math.nan]
        flagged = diff is not None and abs(diff) >= flag and (ci[0] > 0 or ci[1] < 0)
        out.append({"card": c, "name": names.get(c, c), "games": len(pop), **figs,
                    "diff": diff, "diff_ci95": ci, "flagged": flagged})
    out.sort(key=lambda x: (-(abs(x["diff"]) if x["diff"] is not None else -1), x["card"]))
    return out


def flagged(table) -> frozenset:
    return frozenset(x["card"] for x in table if x["flagged"])


def stability(run, reruns=RERUNS, stable=STABLE) -> dict:
    """``run(k)`` -> a :func:`card_table` for rerun k (0..reruns-1, each re-seeded).

    Returns ``{"reruns", "sets": [flagged set per rerun], "counts": {card: reruns flagged},
    "stable_set": the cards flagged in at least ``stable`` reruns, "same": how many reruns
    gave exactly the most common set, "modal": that set, "stable": same >= stable}``."""
    sets = [flagged(run(k)) for k in range(reruns)]
    counts = {}
    for s in sets:
        for c in s:
            counts[c] = counts.get(c, 0) + 1
    tally = {}
    for s in sets:
        tally[s] = tally.get(s, 0) + 1
    modal, same = max(tally.items(), key=lambda kv: (kv[1], -len(kv[0]))) if tally else \
        (frozenset(), 0)
    return {"reruns": reruns, "sets": [sorted(s) for s in sets],
            "counts": dict(sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))),
            "stable_set": sorted(c for c, k in counts.items() if k >= stable),
            "modal": sorted(modal), "same": same, "stable": same >= stable}


def rerun_seed(seed, k):
    """The seed of rerun k (rerun 0 is the run itself)."""
    return seed if k == 0 else random.Random(f"impact-{seed}-{k}").getrandbits(48)


def side_by_side(live, sim) -> list:
    """Join two :func:`card_table` results by card: ``[{"card", "name", "live", "sim"}]``
    (a side is None where the card was not seen), in the simulated table's order, then the
    cards only the live games saw."""
    by_live = {x["card"]: x for x in live}
    out = [{"card": x["card"], "name": x["name"], "live": by_live.pop(x["card"], None),
            "sim": x} for x in sim]
    out += [{"card": c, "name": x["name"], "live": x, "sim": None} for c, x in by_live.items()]
    return out


# -- a whole study: simulated games, reruns and the table's sessions -------------------------

def study(game, *, players, games, seed=0, bots="greedy", options=None, jobs=1, reruns=RERUNS,
          log=None, sessions=None, progress=None, cluster=None) -> dict:
    """The per-card figures of ``games`` bot games (rerun ``reruns`` times, re-seeded, for the
    flags' stability) and, with ``log``, of the table sessions a report would read
    (:func:`companion.lab.report.select_live`: finished, not bots, the same data), side by
    side. Returns ``{"sim", "live", "cards", "stability", "live_games", "left_out"}``."""
    adapter_for(game)
    names = [f"Seat {i + 1}" for i in range(players)]
    tables = {}

    def run(k):
        rows, nm = simulate_rows(game, names, games, seed=rerun_seed(seed, k), bots=bots,
                                 options=options, jobs=jobs, cluster=cluster)
        tables[k] = card_table(rows, nm)
        if progress is not None:
            progress(k + 1, reruns)
        return tables[k]
    st = stability(run, reruns=max(1, reruns))
    sim = tables[0]
    live, live_games, left_out = [], 0, []
    if log is not None:
        from .report import select_live
        sel = select_live(log, game, sessions)
        left_out = sel.left_out
        infos = [log.info(f.session) for f in sel.live]
        rows, nm = live_rows(log, infos, games=lambda _n: game)
        live, live_games = card_table(rows, nm), len(infos)
    return {"sim": sim, "live": live, "cards": side_by_side(live, sim), "stability": st,
            "live_games": live_games, "left_out": left_out, "games": games,
            "players": players, "seed": seed, "bots": bots}


def _pct(r):
    if r is None or not r["games"]:
        return "-"
    lo, hi = r["ci95"]
    return f"{100 * r['rate']:.0f}% [{100 * lo:.0f}-{100 * hi:.0f}] n={r['games']}"


def _diff(x):
    if x is None or x["diff"] is None:
        return "-"
    lo, hi = x["diff_ci95"]
    return f"{100 * x['diff']:+.1f} [{100 * lo:+.1f}, {100 * hi:+.1f}]" + \
        (" FLAG" if x["flagged"] else "")


def text(result, top=None) -> str:
    """The study as plain text: the flags and their stability, then the table."""
    st = result["stability"]
    lines = [f"{result['games']} bot games x {st['reruns']} reruns, {result['players']} players,"
             f" bots {result['bots']}, seed {result['seed']}; table sessions: "
             f"{result['live_games']}",
             f"Flagged (difference >= {100 * FLAG_POINTS:.0f} points, 95% interval clear of 0),"
             f" reruns flagged of {st['reruns']}:"]
    names = {x["card"]: x["name"] for x in result["cards"]}
    for c, k in st["counts"].items():
        lines.append(f"  {names.get(c, c):34} {k}/{st['reruns']}"
                     + ("  stable" if k >= STABLE else ""))
    lines.append(f"The same flagged set in {st['same']} of {st['reruns']} reruns: "
                 + ("stable" if st["stable"] else "NOT stable")
                 + f" (cards flagged in >= {STABLE}: "
                 + (", ".join(names.get(c, c) for c in st["stable_set"]) or "none") + ")")
    lines.append("")
    head = f"{'card':34} {'games':>6}  {'drawn':24} {'never':24} {'opening':24} {'played':24} " \
           f"{'drawn - never (points)':28}"
    lines.append(head + ("  live: drawn - never" if result["live_games"] else ""))
    rows = result["cards"] if top is None else result["cards"][:top]
    for row in rows:
        x = row["sim"]
        if x is None:
            lines.append(f"{row['name'][:34]:34} {'':6}  (only at the table) "
                         f"{_diff(row['live'])}")
            continue
        line = f"{row['name'][:34]:34} {x['games']:6}  {_pct(x['drawn']):24} " \
               f"{_pct(x['never']):24} {_pct(x['opening']):24} {_pct(x['played']):24} " \
               f"{_diff(x):28}"
        if result["live_games"]:
            line += f"  {_diff(row['live'])}"
        lines.append(line)
    return "\n".join(lines)


# -- restricted play: the same bot forbidden a card (Jaffe) -------------------------------

class _Without:
    """A seat's view with ``card`` taken out of its hand as its bot reads it (``view.hand``),
    so the bot never plays it and picks its next best move. Discards see the whole hand (a
    forbidden card may be discarded: that is not playing it)."""

    def __init__(self, view, card):
        object.__setattr__(self, "_v", view)
        object.__setattr__(self, "_card", card)

    def __getattr__(self, k):
        return getattr(self._v, k)

    @property
    def hand(self):
        return [c for c in self._v.hand if c != self._card]


def forbid(bot, card):
    """``bot`` that never plays ``card`` (Trade Warz: the card is hidden from its hand)."""
    def restricted(game, view, rng):
        p = view.prompt or {}
        if (p.get("moves") or [None])[0] == "discard_cards":
            return bot(game, view, rng)
        return bot(game, _Without(view, card), rng)
    return restricted


def _restricted_chunk(name, data, players, seeds, bots, options, card):
    from companion.games import get
    game = get(name, data=data)
    if game.name != "trade-warz":
        raise NotSupported(f"Restricted play is built for Trade Warz only, not {game.title}.")
    seat_bots = resolve_bots(game, bots, len(players))
    out = []
    for i, g in seeds:
        seat = i % len(players)
        base, _ = play_one(game, players, g, seat_bots, options)
        bots_r = list(seat_bots)
        bots_r[seat] = forbid(seat_bots[seat], card)
        watch = CardWatch(game)
        s = LeanSession(game, players, options=options, seed=g, clock=FakeClock())
        play_out(_Watched(s, watch), bots_r, random.Random(g ^ 0x5EED))
        rest = watch.rows(s.state, f"sim-{g}")
        assert card not in rest[seat].played
        out.append((base[seat].share, rest[seat].share, card in base[seat].seen))
    return out


def restricted(game, card, *, players, games, seed=0, bots="greedy", options=None, jobs=1,
               cluster=None):
    """Jaffe's restricted play: ``games`` seeds, each played as usual and again with one seat
    (rotating: seat i mod n) forbidden ``card``, the same seed and bots otherwise (common
    random numbers: a game where the seat never holds the card is the same game twice).
    Returns ``{"card", "games", "touched", "normal", "without", "diff", "ci95"}``: the seat's
    win share as usual and without the card, and the paired difference without - normal
    (mean and normal 95% interval; a card that helps its holder gives a negative
    difference). ``touched``: games where the seat had the card in the normal game, and
    ``touched_diff`` the mean difference over them (the other games differ only where the
    card would have come to hand after the two games parted)."""
    names = [f"Seat {i + 1}" for i in range(players)]
    options = game.resolve_options(options)
    data = getattr(game, "data_dir", None)
    seeds = list(enumerate(seeds_for(seed, games)))
    got = []
    with Workers(jobs, cluster, games) as w:
        size = games if w.here else max(10, games // (w.count * 4))
        for r in w.map(_restricted_chunk, [(game.name, data, names, seeds[i:i + size], bots,
                                            options, card) for i in range(0, games, size)]):
            got.extend(r)
    n = len(got)
    d = [w - b for b, w, _ in got]
    mean = sum(d) / n
    var = sum((x - mean) ** 2 for x in d) / (n - 1) if n > 1 else 0.0
    half = 1.96 * math.sqrt(var / n)
    dt = [w - b for b, w, t in got if t]
    return {"card": card, "games": n, "touched": len(dt),
            "touched_diff": sum(dt) / len(dt) if dt else None,
            "normal": rate(sum(b for b, *_ in got), n),
            "without": rate(sum(w for _, w, _ in got), n),
            "diff": mean, "ci95": [mean - half, mean + half]}
