"""Per-card impact (issue 23, part 2): for each card, how the seats that had it fared.

For every *seat-game* (one seat in one game) a :class:`CardWatch` records which cards the seat
had in its **opening** hand, which it ever had in hand (**drawn**), and which it **played**
(what those mean in each game: its adapter's ``columns``). A card's figures are win rates over
the seat-games that could have drawn it (its *population*): the win share (1 for a win, 1/k
for a win shared by k, else 0) averaged over the seat-games where the card was in the opening
hand, drawn, played, and **never seen**, each with its count and 95% Wilson interval. The
**difference** is the IWD-like "improvement when drawn": win rate when drawn minus win rate
when never drawn, with Newcombe's hybrid score interval (built from the two Wilson
intervals). A card is **flagged** (:func:`flag_cards`, by default) when its difference is
beyond :data:`FLAG_POINTS` (3 points) either way at the Holm-corrected level over all the
cards of the table (family-wise :data:`ALPHA`), so chance flags do not grow with the number
of cards. :func:`stability` reruns the whole thing on re-seeded simulations and counts, per
card, in how many reruns it was flagged; the flagged set is *stable* when the same set comes
back in at least 4 of 5.

A card's population: the seat-games whose group (Trade Warz: the Leader) saw the card in at
least one game. A Leader's personal deck is thereby compared only among that Leader's games,
and a shared card among all.

What a difference means: a card drawn more often in longer games, or by a seat that draws
more, looks better or worse for reasons that are not the card (the same caveat as
17lands' IWD). A flag is a place to look, not a verdict; :func:`restricted` play (the same
bot forbidden the card; Trade Warz) is the causal check.

Built for Trade Warz (hands in ``state.data.hands``; cards are played by ``choose_policy``,
``place_export`` and ``play_tactic``; per Leader), Great Powers (Action cards taken and
resolved, Bid cards), Battle Builder (cards bought and played, monsters fought and beaten,
and battles won per monster and difficulty: :func:`monster_table`) and Market Trading's
improvements (drawn = built, played = used; no opening hand).
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

#: The size of a difference worth a flag (a fraction: 3 points), either way.
FLAG_POINTS = 0.03
#: The family-wise error of the flags (Holm over every card of a table).
ALPHA = 0.05
#: The default flag rule (:func:`flag_cards`): the difference is beyond 3 points at the
#: corrected level. ``RULES``: every rule :func:`flag_cards` knows, described.
FLAG_RULE = "margin"
RULES = {
    "margin": "the difference is beyond {points} points at the Holm-corrected level "
              "(family-wise {alpha}% over the {tested} cards)",
    "holm": "a difference of at least {points} points, clear of 0 at the Holm-corrected "
            "level (family-wise {alpha}% over the {tested} cards)",
    "raw": "a difference of at least {points} points whose own 95% interval is clear of 0 "
           "(no correction: about 5% of cards without an effect are flagged)",
}
#: Reruns of :func:`stability` and how many must give the same flagged set.
RERUNS = 5
STABLE = 4


class NotSupported(ConfigError):
    """Per-card impact is not built for this game."""


# -- what a game's cards are ---------------------------------------------------------------

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
    fights: tuple = ()           # Battle Builder: (battle id, monster, won) per monster fought


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
        plays = getattr(self.ad, "plays", None)
        for s in range(state.n):
            hand = self.ad.hand(state, s)
            self.seen[s].update(hand)
            if opened and self.opening[s] is None:
                self.opening[s] = frozenset(hand)
            if plays is not None:
                got = plays(state, s)
                self.played[s].update(got)
                self.seen[s].update(got)

    def move(self, seat, move, args):
        if seat is None:
            return
        card = self.ad.played(move, args)
        if card is not None:
            self.played[seat].add(card)
            self.seen[seat].add(card)
        taken = getattr(self.ad, "taken", None)
        card = taken(move, args) if taken is not None else None
        if card is not None:
            self.seen[seat].add(card)

    def rows(self, state, session) -> list:
        o = state.outcome
        if o is None:
            return []
        if not self.names:
            self.names = self.ad.names(state)
        share = 1.0 / len(o.winners) if o.winners else 0.0
        fights = getattr(self.ad, "fights", None)
        return [SeatCards(session, s, share if s in o.winners else 0.0,
                          self.ad.group(state, s), self.opening[s] or frozenset(),
                          frozenset(self.seen[s]), frozenset(self.played[s]),
                          fights(state, s) if fights is not None else ())
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


def newcombe(a, b, z=1.96, deff=1.0) -> list:
    """Interval of the difference of two rates ``a - b`` (dicts of :func:`rate`):
    Newcombe's hybrid score interval (method 10 of Newcombe 1998), from the two Wilson
    intervals; 95% (``z`` 1.96) unless told. ``deff``: the design effect of the samples
    (:func:`design_effect`): the interval is that of ``z * sqrt(deff)``, as wide as the
    samples' real spread needs. ``[nan, nan]`` if either side has no games."""
    if not a["games"] or not b["games"]:
        return [math.nan, math.nan]
    if deff != 1.0:
        z *= math.sqrt(deff)
    if z == 1.96:
        p1, (l1, u1) = a["rate"], a["ci95"]
        p2, (l2, u2) = b["rate"], b["ci95"]
    else:
        p1, (l1, u1) = a["rate"], wilson(round(a["wins"]), a["games"], z)
        p2, (l2, u2) = b["rate"], wilson(round(b["wins"]), b["games"], z)
    d = p1 - p2
    return [d - math.sqrt((p1 - l1) ** 2 + (u2 - p2) ** 2),
            d + math.sqrt((u1 - p1) ** 2 + (p2 - l2) ** 2)]


def z_of(p) -> float:
    """The two-sided normal quantile of ``p``: ``z_of(0.05)`` = 1.96."""
    lo, hi = 0.0, 40.0
    for _ in range(80):
        mid = (lo + hi) / 2
        if math.erfc(mid / math.sqrt(2)) > p:
            lo = mid
        else:
            hi = mid
    return (lo + hi) / 2


def p_beyond(a, b, margin=0.0, deff=1.0) -> float:
    """Two-sided p-value of "the difference ``a - b`` is at least ``margin`` either way"
    against "it is within ``margin``" (``margin`` 0: against no difference), by inverting
    Newcombe's interval (widened by ``deff``, as :func:`newcombe`): the largest level 1 - p
    at which the interval still clears ``margin`` on the side of the observed difference.
    1.0 if the observed difference is not beyond ``margin`` (or a side has no games)."""
    if not a["games"] or not b["games"]:
        return 1.0
    d = a["rate"] - b["rate"]
    if abs(d) <= margin:
        return 1.0

    def clear(z):
        lo, hi = newcombe(a, b, z, deff)
        return lo > margin if d > 0 else hi < -margin
    lo, hi = 0.0, 40.0
    if clear(hi):
        return 0.0
    for _ in range(60):
        mid = (lo + hi) / 2
        if clear(mid):
            lo = mid
        else:
            hi = mid
    return math.erfc(lo / math.sqrt(2))


def design_effect(rows, card, groups, drawn, never) -> float:
    """How much wider the difference ``drawn - never`` of ``card`` really varies than two
    independent samples of seat-games would (Kish's design effect, at least 1).

    The seat-games of one game are not independent: in a game only one seat wins, so when one
    seat has the card and another has not, their results move against each other and the
    difference varies more than the two rates' own intervals say. The variance is estimated
    with each game as a cluster (the linearised, cluster-robust variance of a difference of
    two ratios) and divided by the same estimate with every seat-game on its own. Measured
    over re-seeded reruns (docs/lab.md, "What is counted"), the clustered spread matches the
    reruns' own within 4% where the independent one was 4-15% too narrow. Never below 1:
    with a handful of table sessions the estimate is rough, and it only ever widens."""
    p1, n1 = drawn["rate"], drawn["games"]
    p0, n0 = never["rate"], never["games"]
    per_game, v_rows = {}, 0.0
    for r in rows:
        if r.group not in groups:
            continue
        u = (r.share - p1) / n1 if card in r.seen else (p0 - r.share) / n0
        v_rows += u * u
        per_game[r.session] = per_game.get(r.session, 0.0) + u
    if v_rows <= 0.0:
        return 1.0
    return max(1.0, sum(u * u for u in per_game.values()) / v_rows)


def holm(pvalues, alpha=ALPHA) -> set:
    """Holm's step-down (Holm 1979) over ``{key: p}``: the keys rejected with family-wise
    error at most ``alpha`` (the chance of flagging any card without the effect)."""
    out = set()
    ranked = sorted(pvalues.items(), key=lambda kv: (kv[1], str(kv[0])))
    m = len(ranked)
    for i, (k, p) in enumerate(ranked):
        if p > alpha / (m - i):
            break
        out.add(k)
    return out


def card_table(rows, names=None, flag=FLAG_POINTS, alpha=ALPHA, rule=FLAG_RULE) -> list:
    """One dict per card seen in ``rows``, largest |difference| first:

    ``{"card", "name", "games", "opening", "drawn", "played", "never", "diff", "diff_ci95",
    "flagged"}``; ``games`` the card's population (seat-games that could have drawn it), each
    of opening/drawn/played/never a :func:`rate`; ``diff`` = drawn - never (None if either is
    empty), its interval ``diff_ci95`` and p-values widened by ``deff`` (:func:`design_effect`:
    seat-games of one game are not independent)."""
    names = names or {}
    groups_of, per_group = {}, {}
    acc = {k: {} for k in ("opening", "drawn", "played")}
    for r in rows:                  # one pass: each seat-game adds to the cards it had
        tot = per_group.setdefault(r.group, [0.0, 0])
        tot[0] += r.share
        tot[1] += 1
        for k, cards in (("opening", r.opening), ("drawn", r.seen), ("played", r.played)):
            got = acc[k]
            for c in cards:
                a = got.get(c)
                if a is None:
                    a = got[c] = [0.0, 0]
                a[0] += r.share
                a[1] += 1
        for c in r.seen:
            groups_of.setdefault(c, set()).add(r.group)
    out = []
    for c, groups in groups_of.items():
        pop_wins = sum(per_group[g][0] for g in groups)
        pop = sum(per_group[g][1] for g in groups)
        drawn = acc["drawn"][c]
        figs = {"opening": rate(*acc["opening"].get(c, (0.0, 0))), "drawn": rate(*drawn),
                "played": rate(*acc["played"].get(c, (0.0, 0))),
                "never": rate(max(0.0, pop_wins - drawn[0]), pop - drawn[1])}
        if figs["drawn"]["games"] and figs["never"]["games"]:
            diff = figs["drawn"]["rate"] - figs["never"]["rate"]
            deff = design_effect(rows, c, groups, figs["drawn"], figs["never"])
            ci = newcombe(figs["drawn"], figs["never"], deff=deff)
            p = p_beyond(figs["drawn"], figs["never"], deff=deff)
        else:
            diff, ci, p, deff = None, [math.nan, math.nan], None, None
        out.append({"card": c, "name": names.get(c, c), "games": pop, **figs,
                    "diff": diff, "diff_ci95": ci, "deff": deff, "p": p, "flagged": False})
    flag_cards(out, flag, alpha, rule)
    out.sort(key=lambda x: (-(abs(x["diff"]) if x["diff"] is not None else -1), x["card"]))
    return out


def flag_cards(table, flag=FLAG_POINTS, alpha=ALPHA, rule=FLAG_RULE):
    """Set ``flagged`` (and ``tested``: how many cards were in the family; ``p_flag``: the
    p-value the rule corrects, None for ``raw``) on every row of a table. ``rule``:

    - ``"margin"`` (the default): the difference is beyond ``flag`` itself at the corrected
      level: the test of "at least ``flag`` either way" against "within ``flag``"
      (:func:`p_beyond` with the margin) passes Holm's correction at ``alpha`` over every
      card with a difference. A card whose true difference is within ``flag`` is flagged
      with probability at most ``alpha`` across the whole table;
    - ``"holm"``: the difference is at least ``flag`` either way, and its test against no
      difference passes Holm's correction (a card with a true difference of 1 point can be
      flagged when its estimate lands above 3);
    - ``"raw"``: the rule before the correction: at least ``flag`` and the 95% interval clear
      of 0 (each card on its own: about 5% of cards with no effect are flagged)."""
    rows = [x for x in table if x["diff"] is not None]
    for x in table:
        x["flagged"], x["tested"], x["p_flag"] = False, len(rows), None
    if rule == "raw":
        for x in rows:
            lo, hi = x["diff_ci95"]
            x["flagged"] = abs(x["diff"]) >= flag and (lo > 0 or hi < 0)
        return table
    if rule == "margin":
        ps = {i: p_beyond(x["drawn"], x["never"], flag, x["deff"]) for i, x in enumerate(rows)}
    elif rule == "holm":
        ps = {i: x["p"] for i, x in enumerate(rows)}
    else:
        raise ValueError(f"unknown flag rule {rule!r}")
    for i, x in enumerate(rows):
        x["p_flag"] = ps[i]
    for i in holm(ps, alpha):
        rows[i]["flagged"] = rule == "margin" or abs(rows[i]["diff"]) >= flag
    return table


def monster_table(rows, game) -> dict:
    """Battle Builder: every monster battle of ``rows`` (each counted once, however many seats
    fought it) by monster and by difficulty: ``{"monsters": [{"monster", "name",
    "difficulty", "battles"}], "difficulties": [{"difficulty", "battles"}]}``, ``battles``
    a :func:`rate` (wins: the battles the team won), the easiest first."""
    from companion.games.battle_builder.data import DIFFICULTIES
    won_of = {}
    for r in rows:
        for bid, m, won in r.fights:
            won_of[(r.session, bid, m)] = won
    by_m = {}
    for (_session, _bid, m), won in won_of.items():
        acc = by_m.setdefault(m, [0, 0])
        acc[0] += won
        acc[1] += 1
    info = game.rules.monsters
    monsters = [{"monster": m, "name": info[m].name if m in info else m,
                 "difficulty": info[m].difficulty if m in info else None,
                 "battles": rate(*wn)} for m, wn in by_m.items()]
    order = {k: i for i, k in enumerate(DIFFICULTIES)}
    monsters.sort(key=lambda x: (order.get(x["difficulty"], len(order)), x["monster"]))
    diffs = []
    for k in DIFFICULTIES:
        got = [x["battles"] for x in monsters if x["difficulty"] == k]
        if got:
            diffs.append({"difficulty": k, "battles": rate(sum(x["wins"] for x in got),
                                                           sum(x["games"] for x in got))})
    return {"monsters": monsters, "difficulties": diffs}


def group_table(rows) -> list:
    """Per Leader (a row's group; Trade Warz): ``[{"group", "seat_games", "win": rate}]``,
    best first; empty when the game has no groups."""
    acc = {}
    for r in rows:
        if r.group is not None:
            a = acc.setdefault(r.group, [0.0, 0])
            a[0] += r.share
            a[1] += 1
    out = [{"group": g, "seat_games": n, "win": rate(w, n)} for g, (w, n) in acc.items()]
    out.sort(key=lambda x: (-x["win"]["rate"], x["group"]))
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
          log=None, sessions=None, progress=None, cluster=None, rule=FLAG_RULE) -> dict:
    """The per-card figures of ``games`` bot games (rerun ``reruns`` times, re-seeded, for the
    flags' stability) and, with ``log``, of the table sessions a report would read
    (:func:`companion.lab.facts.select_live`: finished, not bots, the same data), side by
    side. Returns ``{"sim", "live", "cards", "stability", "live_games", "left_out",
    "groups": {"sim", "live"} (per Leader), "monsters": {"sim", "live"} (Battle Builder's
    battles per monster and difficulty, else None), "rule", ...}``."""
    adapter_for(game)
    if rule not in RULES:
        raise ConfigError(f"Flag rule {rule!r}: one of {', '.join(RULES)}.")
    names = [f"Seat {i + 1}" for i in range(players)]
    tables = {}
    first = {}

    def run(k):
        rows, nm = simulate_rows(game, names, games, seed=rerun_seed(seed, k), bots=bots,
                                 options=options, jobs=jobs, cluster=cluster)
        if k == 0:
            first["rows"] = rows
        tables[k] = card_table(rows, nm, rule=rule)
        if progress is not None:
            progress(k + 1, reruns)
        return tables[k]
    st = stability(run, reruns=max(1, reruns))
    sim = tables[0]
    live, live_games, left_out, live_rows_ = [], 0, [], []
    if log is not None:
        from .facts import select_live
        sel = select_live(log, game, sessions)
        left_out = sel.left_out
        infos = [log.info(f.session) for f in sel.live]
        live_rows_, nm = live_rows(log, infos, games=lambda _n: game)
        live, live_games = card_table(live_rows_, nm, rule=rule), len(infos)
    fights = game.name == "battle-builder"
    return {"sim": sim, "live": live, "cards": side_by_side(live, sim), "stability": st,
            "live_games": live_games, "left_out": left_out, "games": games,
            "players": players, "seed": seed, "bots": bots, "rule": rule,
            "columns": adapter_for(game).columns,
            "tested": sim[0]["tested"] if sim else 0,
            "groups": {"sim": group_table(first["rows"]), "live": group_table(live_rows_)},
            "monsters": {"sim": monster_table(first["rows"], game),
                         "live": monster_table(live_rows_, game)} if fights else None}


def rule_text(result) -> str:
    """The flag rule of a study, in words."""
    return RULES[result.get("rule", FLAG_RULE)].format(
        points=f"{100 * FLAG_POINTS:.0f}", alpha=f"{100 * ALPHA:.0f}",
        tested=result.get("tested", "tested"))


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
             f"Columns: {result.get('columns', '')}",
             f"Flagged when {rule_text(result)}; reruns flagged of {st['reruns']}:"]
    names = {x["card"]: x["name"] for x in result["cards"]}
    for c, k in st["counts"].items():
        lines.append(f"  {names.get(c, c):34} {k}/{st['reruns']}"
                     + ("  stable" if k >= STABLE else ""))
    lines.append(f"The same flagged set in {st['same']} of {st['reruns']} reruns: "
                 + ("stable" if st["stable"] else "NOT stable")
                 + f" (cards flagged in >= {STABLE}: "
                 + (", ".join(names.get(c, c) for c in st["stable_set"]) or "none") + ")")
    if not st["counts"]:
        lines.append("  (no card in any rerun)")
    groups = result.get("groups") or {}
    if groups.get("sim"):
        live_g = {g["group"]: g for g in groups.get("live") or ()}
        lines += ["", "Per Leader: win rate of its seat-games (bots" +
                  (", table" if result["live_games"] else "") + "):"]
        for g in groups["sim"]:
            lines.append(f"  {g['group'][:32]:32} {_pct(g['win']):24}"
                         + (f"  {_pct(live_g[g['group']]['win'])}" if g["group"] in live_g
                            else ""))
    mons = result.get("monsters")
    if mons:
        live_m = {m["monster"]: m for m in mons["live"]["monsters"]}
        live_d = {m["difficulty"]: m for m in mons["live"]["difficulties"]}
        lines += ["", "Monster battles won (each battle once; bots"
                  + (", table" if result["live_games"] else "") + "):"]
        for d in mons["sim"]["difficulties"]:
            lines.append(f"  {d['difficulty']:32} {_pct(d['battles']):24}"
                         + (f"  {_pct(live_d[d['difficulty']]['battles'])}"
                            if d["difficulty"] in live_d else ""))
            for m in mons["sim"]["monsters"]:
                if m["difficulty"] == d["difficulty"]:
                    lines.append(f"    {m['name'][:30]:30} {_pct(m['battles']):24}"
                                 + (f"  {_pct(live_m[m['monster']]['battles'])}"
                                    if m["monster"] in live_m else ""))
    lines.append("")
    deffs = sorted(x["deff"] for x in result["sim"] if x.get("deff") is not None)
    if deffs:
        lines.append(f"drawn - never: Newcombe's 95% interval widened by each card's design "
                     f"effect (the seat-games of one game are not independent; median "
                     f"{deffs[len(deffs) // 2]:.2f}, largest {deffs[-1]:.2f}; docs/lab.md)")
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

class _Forbidding:
    """A seat's view as its bot reads it, with ``card`` forbidden; everything else is the
    view's own (each game's subclass changes the one thing its bots read)."""

    def __init__(self, view, card):
        object.__setattr__(self, "_v", view)
        object.__setattr__(self, "_card", card)

    def __getattr__(self, k):
        return getattr(self._v, k)


class _Without(_Forbidding):
    """Trade Warz: ``card`` taken out of the hand as the bot reads it (``view.hand``), so the
    bot never plays it and picks its next best move. Discards see the whole hand (a forbidden
    card may be discarded: that is not playing it)."""

    @property
    def hand(self):
        return [c for c in self._v.hand if c != self._card]


class _WithoutOffer(_Forbidding):
    """Great Powers: a seat's view whose prompt does not offer ``card`` (face up or among
    the three drawn), so the bot never takes it."""

    @property
    def prompt(self):
        p = self._v.prompt
        if p and "cards" in p:
            p = dict(p, cards=[c for c in p["cards"] if c != self._card])
        return p


class _WithoutShop(_Forbidding):
    """Battle Builder: a seat's view where ``card`` cannot be bought (its price is an
    illegal move, as a card the shop does not have), so the bot buys its next best."""

    def card_cost(self, cid):
        from companion.core.errors import IllegalMoveError
        if cid == self._card:
            raise IllegalMoveError("forbidden")
        return self._v.card_cost(cid)


def forbid(bot, card, game_name="trade-warz"):
    """``bot`` that never plays ``card``: Trade Warz, the card is hidden from its hand (it
    may still be discarded); Great Powers, the card is never offered to it (so never taken,
    and it passes when it was the only one left); Battle Builder, the card cannot be bought
    (so never in its deck)."""
    if game_name == "great-powers":
        def restricted(game, view, rng):
            w = _WithoutOffer(view, card)
            p = w.prompt or {}
            if "take_action" in (p.get("moves") or ()) and not p.get("cards"):
                return "pass_action", {}
            if "resolve_drawn" in (p.get("moves") or ()) and not p.get("cards"):
                return "decline_bonus", {}
            return bot(game, w, rng)
        return restricted
    if game_name == "battle-builder":
        def restricted(game, view, rng):
            return bot(game, _WithoutShop(view, card), rng)
        return restricted

    def restricted(game, view, rng):
        p = view.prompt or {}
        if (p.get("moves") or [None])[0] == "discard_cards":
            return bot(game, view, rng)
        return bot(game, _Without(view, card), rng)
    return restricted


RESTRICTED = ("trade-warz", "great-powers", "battle-builder")


def _restricted_chunk(name, data, players, seeds, bots, options, card):
    from companion.games import get
    game = get(name, data=data)
    if game.name not in RESTRICTED:
        raise NotSupported(f"Restricted play is not built for {game.title}.")
    seat_bots = resolve_bots(game, bots, len(players))
    out = []
    for i, g in seeds:
        seat = i % len(players)
        base, _ = play_one(game, players, g, seat_bots, options)
        bots_r = list(seat_bots)
        bots_r[seat] = forbid(seat_bots[seat], card, game.name)
        watch = CardWatch(game)
        s = LeanSession(game, players, options=options, seed=g, clock=FakeClock())
        play_out(_Watched(s, watch), bots_r, random.Random(g ^ 0x5EED))
        rest = watch.rows(s.state, f"sim-{g}")
        assert card not in (rest[seat].played if game.name == "trade-warz" else
                            rest[seat].seen)
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
    if game.name not in RESTRICTED or str(card).startswith(("bid:", "monster:")):
        raise NotSupported(f"Restricted play is built for Trade Warz's cards, Great Powers' "
                           f"Action cards and Battle Builder's shop cards, not {card!r} in "
                           f"{game.title}.")
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
