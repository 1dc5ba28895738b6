"""Battle Builder calibration: search a monster's attack, then its HP, until the players' win
rate against that monster sits on its difficulty's target (issue 23, part 4; docs/lab.md).

**The stats: attack, then HP** by default (``stat="attack+hp"``; ``"hp"`` or ``"attack"`` alone).
Attack moves the win rate in big steps and is the only stat that matters against a monster too
weak to down anyone; when the target falls between two attack values, attack is held at the
too-easy one and HP, finer at that attack, closes in. **The players are casual bots** by default
(greedy with one answer in five any legal one): greedy bots decide a battle the same way on every
deal, so their win rate falls as a staircase, not a slope (docs/lab.md, "Calibration"). The
rulebook's tiers give stat ranges per difficulty, so a proposal outside them is itself a finding
for the designer.

**The win rate** of a monster is the share of monster battles won by the players, over every
battle fought against it in bot games (default: 2 players, casual bots, default options), where
the monster deck holds that monster alone: a scratch copy of the data in which it is the only
monster of its difficulty, played with ``monster_pool`` = its difficulty. Every battle of such a
game (9 with the default arc) is against it, the players' decks growing through the shop as in a
game. Each step plays the same game seeds (common random numbers), so two HP values are compared
on the same deals and dice.

**The search** (:func:`search`) is a bracketing search on the integer stat: doubling (or
halving) the value until the target is bracketed, then regula falsi in logit space, halving the
bracket when one end stays put twice (Illinois' cure for regula falsi's slow side). A step is
one value measured; it plays games until the 95% Wilson half-width is at most ``half_width`` at a
rate inside the target band, or stops early once the interval lies wholly outside the band (the
value is clearly off; more battles would not bring it in). The goal is reached when the win rate
is within ``tol`` of the target *and* its half-width is at most ``half_width``. A value that
comes within ``tol`` is measured again to a half-width of ``fine`` (1.5 points) and the search
goes on unless it is within ``aim`` (1.5 points): a value accepted at the band's edge on one
block of seeds is off the band on fresh games about half the time (:func:`check` measures that).
"""
import math
import os
import random
import re
import shutil
import tempfile

from companion.core.clock import FakeClock
from companion.core.play import play_out, resolve_bots, wilson

STAT = "hp"
STATS = {"hp": 1, "attack": 0, "speed": 0}   # the stats that can be searched, and their least
Z = 1.96


def battles_for(p, half_width):
    """Battles for a 95% (Wald) half-width of ``half_width`` at rate ``p``."""
    p = min(max(p, 0.01), 0.99)
    return math.ceil(Z * Z * p * (1 - p) / (half_width * half_width))


def plan(target, tol=0.03, half_width=0.03):
    """Battles a step needs: the half-width goal at the rate of the band [target - tol,
    target + tol] nearest 1/2 (the worst case for a rate that counts as reached)."""
    lo, hi = target - tol, target + tol
    p = 0.5 if lo <= 0.5 <= hi else (hi if hi < 0.5 else lo)
    return battles_for(p, half_width)


def _logit(wins, n):
    p = (wins + 0.5) / (n + 1.0)       # never 0 or 1: 180 of 180 still has a finite logit
    return math.log(p / (1 - p))


def search(measure, start, target, tol=0.03, half_width=0.03, max_steps=8, lo=1, hi=999,
           refine=None, aim=None, grow=2.0):
    """Search the integer ``value`` in [lo, hi] whose win rate is within ``tol`` of ``target``.

    ``measure(value)`` returns ``(wins, n)``; the win rate must *fall* as the value rises (HP).
    ``refine(value)``, if given, measures a value that came within ``tol`` again on more games
    (the same seeds and more, :func:`step_measure` with a finer half-width); the search stops
    only when the refined rate is within ``aim`` (default ``tol / 2``) of the target, and keeps
    going for a nearer value while steps are left otherwise. A refinement is not a step: the
    value does not change. Aiming inside the band is what makes the proposal hold on fresh
    games: a value accepted at the band's edge on one block of seeds is off on the next block
    about half the time (docs/lab.md, "Calibration").
    Returns ``{"start", "proposed", "reached", "why", "steps": [...]}``; ``proposed`` is the
    measured value nearest the target (refined measurements first); ``reached`` when its rate is
    within ``tol`` at a half-width of at most ``half_width``; ``centred`` when the search
    stopped there on purpose (within ``aim``, or without ``refine`` the first value reached). Without a slope yet the value is
    multiplied (or divided) by ``grow`` until the target is bracketed: 2 for a first stat that
    may be far off, less for a finer stat after a coarse one bracketed the target."""
    steps = []
    seen = {}
    aim = tol / 2 if aim is None else aim

    def row_of(v, w, n, **extra):
        a, b = wilson(w, n)
        return dict({"value": v, "wins": w, "battles": n, "win_rate": w / n if n else 0.0,
                     "ci95": [a, b], "half_width": (b - a) / 2}, **extra)

    def record(v):
        w, n = measure(v)
        seen[v] = (w, n)
        steps.append(row_of(v, w, n))
        return steps[-1]

    def near(row, within):
        return abs(row["win_rate"] - target) <= within + 1e-12

    def ok(row):
        return near(row, tol) and row["half_width"] <= half_width

    v = min(max(int(start), lo), hi)
    why = None
    sides = []                          # with a bracket: was each new value too easy?
    while True:
        row = record(v)
        if ok(row) and refine is not None:
            w, n = refine(v)            # the same value on more games: replaces the row
            seen[v] = (w, n)
            row = steps[-1] = row_of(v, w, n, refined=True)
        if ok(row) and (refine is None or near(row, aim)):
            return _result(start, steps, v, True, "reached", target, centred=True)
        if near(row, tol) and row["half_width"] > half_width:
            why = "half-width"          # on target but too few battles for the width
            break
        if len(steps) >= max_steps:
            why = f"{max_steps} steps"
            break
        # the bracket: the largest value still too easy, the smallest already too hard
        easy = [x for x, (w, n) in seen.items() if w / n > target]
        hard = [x for x, (w, n) in seen.items() if w / n < target]
        t = math.log(target / (1 - target))
        if easy and hard:
            a, b = max(easy), min(hard)
            if b - a <= 1:
                why = "between two neighbouring values"
                break
            la, lb = _logit(*seen[a]), _logit(*seen[b])
            sides.append(v == a)
            if len(sides) >= 2 and sides[-1] == sides[-2] or la == lb:
                guess = (a + b) / 2     # one end stuck twice (regula falsi's slow side): halve,
                if (a + b) % 2:         # a half rounded towards the end nearer the target
                    guess += 0.5 if abs(lb - t) < abs(la - t) else -0.5
            else:
                guess = a + (la - t) * (b - a) / (la - lb)
            nxt = min(max(round(guess), a + 1), b - 1)
        else:
            up = bool(easy)            # too easy everywhere so far: more HP
            if up and v >= hi or not up and v <= lo:
                why = f"at the bound {v}"
                break
            if _flat(steps[-3:]):
                why = "flat (the stat no longer moves the win rate)"
                break
            prev = [x for x in seen if x != v]
            guess = None
            if prev:
                u = min(prev, key=lambda x: abs(x - v))      # secant through the nearest
                lu, lv = _logit(*seen[u]), _logit(*seen[v])
                if (lv - lu) * (v - u) < 0:              # falling, as it should
                    guess = v + (lv - t) * (v - u) / (lu - lv)
            if guess is None:          # no slope yet (one value, or a flat stretch): double
                guess = v * grow if up else v / grow    # (or halve) until it brackets
            move = guess - v
            # at least 1; a secant's leap at most the value itself or twice the last move
            last = abs(v - steps[-2]["value"]) if len(steps) > 1 else 0
            move = max(1, min(abs(move), max(v, 2 * last))) * (1 if up else -1)
            nxt = min(max(round(v + move), lo), hi)
            if nxt == v:
                why = f"at the bound {v}"
                break
        v = nxt
    best = min(steps, key=lambda r: (not ok(r), abs(r["win_rate"] - target), r["half_width"]))
    if ok(best):                        # within the band, not centred in it: the nearest there is
        return _result(start, steps, best["value"], True, "reached", target)
    return _result(start, steps, best["value"], False, why, target)


def _flat(rows):
    """Three values in a row, none won or lost nearly always, each inside the others' 95%
    intervals: a plateau (speed beyond the players' own), not the saturation at 0% or 100%
    that doubling walks out of."""
    return len(rows) == 3 and all(0.02 < r["win_rate"] < 0.98 for r in rows) and all(
        r["ci95"][0] <= q["win_rate"] <= r["ci95"][1] for r in rows for q in rows)


def _result(start, steps, proposed, reached, why, target, centred=False):
    final = [r for r in steps if r["value"] == proposed][-1]
    return {"start": start, "proposed": proposed, "reached": reached, "centred": centred,
            "why": why,
            "target": target, "steps": steps, "final": final}


# == the data files ================================================================================

_BLOCK = re.compile(r"(?m)^\[\[monster\]\]\s*$")


def _blocks(text):
    """monsters.toml as (head, [block, ...]); each block starts with its [[monster]] line."""
    starts = [m.start() for m in _BLOCK.finditer(text)]
    if not starts:
        return text, []
    bounds = starts + [len(text)]
    return text[:starts[0]], [text[bounds[i]:bounds[i + 1]] for i in range(len(starts))]


def _field(block, key):
    m = re.search(rf'(?m)^{key}\s*=\s*"?([^"\n#]*?)"?\s*(#.*)?$', block)
    return m.group(1).strip() if m else None


def set_stat(text, monster_id, value, stat=STAT):
    """monsters.toml text with ``stat`` of ``monster_id`` set to ``value``; nothing else moves
    (comments and layout stay)."""
    head, blocks = _blocks(text)
    done = False
    out = []
    for b in blocks:
        if _field(b, "id") == monster_id:
            b, k = re.subn(rf"(?m)^({stat}\s*=\s*)\d+", lambda m: f"{m.group(1)}{value}", b,
                           count=1)
            if k != 1:
                raise ValueError(f"monsters.toml: {monster_id}: no '{stat} = N' line")
            done = True
        out.append(b)
    if not done:
        raise ValueError(f"monsters.toml: no monster {monster_id!r}")
    return head + "".join(out)


def alone(text, monster_id, difficulty):
    """monsters.toml text keeping ``monster_id`` as the only monster of ``difficulty``."""
    head, blocks = _blocks(text)
    keep = [b for b in blocks
            if _field(b, "id") == monster_id or _field(b, "difficulty") != difficulty]
    return head + "".join(keep)


def write_proposal(src, out, values, stat=STAT):
    """Copy the data folder ``src`` to ``out`` with ``stat`` of each monster in ``values``
    ({id: value}) changed in monsters.toml; nothing else differs. ``out`` must not exist or be
    empty, and never be ``src`` or the shipped folder."""
    from companion.games.battle_builder.data import DATA
    src, out = os.path.abspath(src), os.path.abspath(out)
    for forbidden in {src, os.path.abspath(DATA)}:
        if out == forbidden or out.startswith(forbidden + os.sep):
            raise ValueError(f"--out {out}: inside the data folder {forbidden}; give a new "
                             f"folder (the proposal is a copy, the data is never edited)")
    if os.path.exists(out) and os.listdir(out):
        raise ValueError(f"--out {out}: not empty; give a new or empty folder")
    shutil.copytree(src, out, dirs_exist_ok=True,
                    ignore=shutil.ignore_patterns("__pycache__"))
    path = os.path.join(out, "monsters.toml")
    with open(path, encoding="utf-8") as f:
        text = f.read()
    for mid, v in values.items():          # {id: value of ``stat``} or {id: {stat: value}}
        for name, value in (v.items() if isinstance(v, dict) else ((stat, v),)):
            text = set_stat(text, mid, value, name)
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)
    return out


# == measuring a monster ==========================================================================

class Sampler:
    """Win rates of one monster at any HP: bot games on a scratch copy of the data where it is
    the only monster of its difficulty. Games are seeded ``seed``, ``seed`` + 1, ... at every HP
    value (common random numbers); a value measured again continues where it stopped."""

    def __init__(self, src, monster, players=2, bots="greedy", options=None, seed=0,
                 scratch=None, stat=STAT, fixed=None):
        self.src, self.monster, self.stat = src, monster, stat
        self.players = [f"Player {i + 1}" for i in range(players)]
        self.bots, self.seed = bots, seed
        self.options = dict(options or {})
        self.options["monster_pool"] = monster.difficulty
        self.scratch = scratch or tempfile.mkdtemp(prefix=f"calibrate-{monster.id}-")
        with open(os.path.join(src, "monsters.toml"), encoding="utf-8") as f:
            self.text = alone(f.read(), monster.id, monster.difficulty)
        for other, value in (fixed or {}).items():     # a stat settled by an earlier stage
            self.text = set_stat(self.text, monster.id, value, other)
        self.tally = {}                  # value -> [wins, battles, games]
        self.games = 0

    def _game(self, value):
        from companion.games import get
        d = os.path.join(self.scratch, f"{self.stat}-{value}")
        if not os.path.isdir(d):
            shutil.copytree(self.src, d, ignore=shutil.ignore_patterns("__pycache__"))
            with open(os.path.join(d, "monsters.toml"), "w", encoding="utf-8") as f:
                f.write(set_stat(self.text, self.monster.id, value, self.stat))
        return get("battle-builder", data=d)

    def more(self, value, games):
        """Play ``games`` more games at ``value``; returns the running (wins, battles)."""
        from companion.core.session import LeanSession
        game = self._game(value)
        opts = dict(self.options)
        game.resolve_options(opts)
        seat_bots = resolve_bots(game, self.bots, len(self.players))
        t = self.tally.setdefault(value, [0, 0, 0])
        for _ in range(games):
            gseed = self.seed + t[2]
            s = LeanSession(game, self.players, options=opts, seed=gseed, clock=FakeClock())
            play_out(s, seat_bots, random.Random(gseed ^ 0x5EED))
            for b in s.state.data.track["battles"]:
                if self.monster.id in b["monsters"]:
                    t[0] += b["won"]
                    t[1] += 1
            t[2] += 1
            self.games += 1
        return t[0], t[1]

    def close(self):
        shutil.rmtree(self.scratch, ignore_errors=True)


def step_measure(sampler, target, tol=0.03, half_width=0.03, cap=None, chunk=12):
    """``measure(value)`` for :func:`search`: games in chunks until the half-width goal is met
    inside the band, or the interval lies wholly outside the band, or ``cap`` battles."""
    need = plan(target, tol, half_width)

    def measure(value):
        w, n = sampler.tally.get(value, [0, 0])[:2]
        while True:
            if n:
                a, b = wilson(w, n)
                if b < target - tol or a > target + tol:
                    return w, n                    # clearly off the band: move on
                if (b - a) / 2 <= half_width and n >= min(need, cap or need):
                    return w, n
            if cap is not None and n >= cap:
                return w, n
            games = chunk
            if cap is not None:         # no more whole games than the cap needs
                t = sampler.tally.get(value)
                per = t[1] / t[2] if t and t[2] and t[1] else 9
                games = max(1, min(chunk, math.ceil((cap - n) / per)))
            w, n = sampler.more(value, games)
    return measure


def stages(stat):
    """``"hp"``, ``"attack"``, ``"speed"`` or several joined by ``+`` (``"attack+hp"``): the
    stats searched, coarse first."""
    names = [x.strip() for x in str(stat).split("+") if x.strip()]
    bad = [x for x in names if x not in STATS]
    if not names or bad or len(set(names)) != len(names):
        raise ValueError(f"stat {stat!r}: calibrate one of {', '.join(STATS)}, or several "
                         f"joined by + (coarse first: attack+hp)")
    return names


def _neighbours(result, target):
    """The values a coarse stage hands to the next, nearest the target first (in log-odds, by
    the rate measured): the hardest value measured that is still too easy (the next stage makes
    it harder) and the easiest that is already too hard (the next stage makes it easier); else
    the value nearest the target."""
    rows = {r["value"]: r for r in result["steps"]}
    easy = [v for v, r in rows.items() if r["win_rate"] > target]
    hard = [v for v, r in rows.items() if r["win_rate"] < target]
    out = ([max(easy)] if easy else []) + ([min(hard)] if hard else [])
    t = math.log(target / (1 - target))
    out.sort(key=lambda v: abs(_logit(rows[v]["wins"], rows[v]["battles"]) - t))
    return out or [result["proposed"]]


class _Stages:
    """The steps, games and battles of one monster's stages, the budget they share."""

    def __init__(self, src, m, target, players, bots, options, seed, tol, half_width, battles,
                 max_steps, aim=None, fine=None):
        self.args = (src, m, players, bots, options, seed)
        self.m, self.target, self.tol, self.half_width = m, target, tol, half_width
        self.aim, self.fine = aim, fine
        self.battles, self.max_steps = battles, max_steps
        self.rows, self.games, self.battles_n = [], 0, 0
        self.tallies = {}               # (fixed items, stat) -> the sampler's tally

    def _key(self, fixed, name, value):
        """The monster as measured: every searchable stat's value."""
        stats = {k: getattr(self.m, k) for k in STATS}
        stats.update(fixed)
        stats[name] = value
        return tuple(sorted(stats.items()))

    def left(self):
        return self.max_steps - len(self.rows)

    def run(self, name, fixed):
        """Search ``name`` with ``fixed`` stats held; a value measured by an earlier stage
        (the same monster, the same stats) is carried over, not measured again or counted."""
        src, m, players, bots, options, seed = self.args
        start = getattr(m, name)
        sampler = Sampler(src, m, players, bots, options, seed, stat=name, fixed=fixed)
        carried = self.tallies.get(self._key(fixed, name, start))
        if carried is not None:
            sampler.tally[start] = list(carried)
        try:
            refine = None if not self.fine else step_measure(
                sampler, self.target, self.tol, self.fine, self.battles)
            result = search(step_measure(sampler, self.target, self.tol, self.half_width,
                                         self.battles),
                            start, self.target, self.tol, self.half_width,
                            self.left() + (carried is not None), lo=STATS[name],
                            refine=refine, aim=self.aim, grow=1.25 if fixed else 2.0)
        finally:
            sampler.close()
        for v, t in sampler.tally.items():
            self.tallies[self._key(fixed, name, v)] = t
        self.games += sampler.games
        self.battles_n += sum(t[1] for t in sampler.tally.values()) - (
            carried[1] if carried is not None else 0)
        self.rows.extend(dict(r, stat=name, held=dict(fixed))
                         for r in result["steps"][carried is not None:])
        return result


def calibrate_one(src, m, target, players=2, bots="casual", options=None, seed=0, tol=0.03,
                  half_width=0.03, max_steps=8, battles=None, stat="attack+hp", aim=None,
                  fine=None):
    """One monster: the first stat of ``stat``; if the target falls between two of its values,
    the next stat with the first held at its too-easy neighbour, then (steps left) at its
    too-hard one, and so on down the stats, depth first (``attack+hp``: attack brackets, HP
    closes in; ``attack+hp+speed``: speed after HP). All stages share ``max_steps``. A value
    within ``tol`` is measured again to a half-width of ``fine`` (default ``half_width / 2``;
    0: never) and the search goes on unless it is within ``aim`` (:func:`search`).
    Returns the best stage's :func:`search` result with ``proposed`` and
    ``start`` per stat (dicts), every step (each row names its ``stat`` and what was ``held``)
    and the games and battles."""
    names = stages(stat)
    st = _Stages(src, m, target, players, bots, options, seed, tol, half_width, battles,
                 max_steps, aim, half_width / 2 if fine is None else fine)
    tried = []

    def explore(level, fixed):          # depth first: each stat at each neighbour of the last
        r = st.run(names[level], fixed)
        tried.append((fixed, names[level], r))
        if r["centred"] or level == len(names) - 1:
            return r["centred"]     # a finer stat may centre what this one only reached
        for held in _neighbours(r, target):
            if st.left() <= 0:
                return False
            if explore(level + 1, dict(fixed, **{names[level]: held})):
                return True
        return False
    explore(0, {})

    def nearness(t):
        f = t[2]["final"]
        return (not t[2]["reached"], abs(f["win_rate"] - target), f["half_width"])
    fixed, name, result = min(tried, key=nearness)
    proposed = dict(fixed, **{name: result["proposed"]})
    why = result["why"]
    if not result["reached"] and st.left() <= 0:
        why = f"{max_steps} steps"
    return dict(result, why=why, stat="+".join(names),
                start={k: getattr(m, k) for k in proposed}, proposed=proposed,
                steps=st.rows, final=dict(result["final"], stat=name), games=st.games,
                battles=st.battles_n)


def calibrate(src=None, monsters=None, players=2, bots="casual", options=None, seed=0,
              tol=0.03, half_width=0.03, max_steps=8, battles=None, log=None, stat="attack+hp",
              jobs=1, cluster=None, aim=None, fine=None):
    """Calibrate each monster (ids; default all) on the data folder ``src`` (default shipped).
    ``battles``: at most this many battles per step (default: as the half-width goal needs).
    Returns a list of :func:`calibrate_one` results with the monster's id, name, difficulty.
    The monsters are calibrated one per worker (``jobs`` local processes, 0 = one per core, or
    ``cluster``'s: :class:`~companion.core.workers.Workers`); each search plays the same games
    wherever it runs, and ``log(result)`` sees the results in the monsters' order."""
    from companion.core.workers import Workers
    from companion.games import get
    from companion.games.battle_builder.data import DATA
    stages(stat)
    src = os.path.abspath(src or DATA)
    shipped = src == os.path.abspath(DATA)
    game = get("battle-builder") if shipped else get("battle-builder", data=src)
    rules = game.rules
    ids = monsters or list(rules.monsters)
    for mid in ids:
        if mid not in rules.monsters:
            raise ValueError(f"no monster {mid!r}; the monsters are {', '.join(rules.monsters)}")
    out = []
    with Workers(jobs, cluster) as w:        # the shipped data: the worker's own copy of it
        for r in w.map(_calibrate_one, [(None if shipped else src, mid, players, bots, options,
                                         seed, tol, half_width, max_steps, battles, stat,
                                         aim, fine)
                                        for mid in ids]):
            out.append(r)
            if log:
                log(r)
    return out


def _calibrate_one(src, mid, players, bots, options, seed, tol, half_width, max_steps, battles,
                   stat, aim=None, fine=None):
    """One monster's search (a chunk for :class:`~companion.core.workers.Workers`)."""
    from companion.games import get
    from companion.games.battle_builder.data import DATA
    rules = (get("battle-builder", data=src) if src else get("battle-builder")).rules
    m, src = rules.monsters[mid], src or DATA
    r = calibrate_one(src, m, rules.targets[m.difficulty], players, bots, options, seed, tol,
                      half_width, max_steps, battles, stat, aim, fine)
    r.update(id=mid, name=m.name, difficulty=m.difficulty)
    return r


#: Fresh games for :func:`check`: seeds this far from the search's, never played by it.
CHECK_SEED = 1_000_000


def check(out, ids, players=2, bots="casual", options=None, seed=0, tol=0.03, battles=None,
          half_width=0.015, jobs=1, cluster=None):
    """The proposal measured again on fresh games: each monster of ``ids`` as written in the
    data folder ``out``, on seeds the search never played (``seed + CHECK_SEED`` on), with the
    sample a 95% half-width of ``half_width`` plans at the band's edge (or ``battles``). A
    search that kept the value nearest the target out of several tried is a little optimistic
    (the winner's curse); this says by how much. The default half-width is the search's
    refinement's (1.5 points), so a proposal on target fails this check by chance rarely
    (docs/lab.md). Monsters are checked one per worker (as :func:`calibrate`).
    Returns ``[{"id", "name", "target", "wins", "battles", "win_rate", "ci95", "on",
    "band_in_ci"}]``: ``on`` within ``tol`` of the target, ``band_in_ci`` the 95% interval
    reaches the band (the difference may be chance)."""
    from companion.core.workers import Workers
    with Workers(jobs, cluster) as w:
        return list(w.map(_check_one, [(os.path.abspath(out), mid, players, bots, options,
                                        seed, tol, battles, half_width) for mid in ids]))


def _check_one(out, mid, players, bots, options, seed, tol, battles, half_width):
    """One monster's fresh games (a chunk for :class:`~companion.core.workers.Workers`)."""
    from companion.games import get
    m = get("battle-builder", data=out).rules.monsters[mid]
    target = get("battle-builder", data=out).rules.targets[m.difficulty]
    sampler = Sampler(out, m, players, bots, options, seed + CHECK_SEED)
    try:
        want = battles or plan(target, tol, half_width)
        w, n = 0, 0
        while n < want:
            w, n = sampler.more(m.hp, 12)
    finally:
        sampler.close()
    lo, hi = wilson(w, n)
    return {"id": mid, "name": m.name, "target": target, "wins": w, "battles": n,
            "win_rate": w / n, "ci95": [lo, hi], "on": abs(w / n - target) <= tol + 1e-12,
            "band_in_ci": lo <= target + tol and hi >= target - tol}


def check_line(c):
    lo, hi = c["ci95"]
    verdict = ("on target" if c["on"] else
               "off target, its interval reaches the band" if c["band_in_ci"] else
               "off target")
    return (f"{c['name']:<13} fresh games: {c['win_rate']:.1%} [{lo:.1%}, {hi:.1%}] of "
            f"{c['battles']}  {(c['win_rate'] - c['target']) * 100:+.1f} points: {verdict}")


def _label(stat):
    return "HP" if stat == "hp" else stat


def line(r):
    """One printed line per monster."""
    f = r["final"]
    lo, hi = f["ci95"]
    verdict = "reached" if r["reached"] else f"not reached ({r['why']})"
    moves = ", ".join(f"{_label(k)} {r['start'][k]} -> {v}" for k, v in r["proposed"].items())
    return (f"{r['name']:<13} {r['difficulty']:<6} target {r['target']:.0%}  {moves}  "
            f"win {f['win_rate']:.1%} [{lo:.1%}, {hi:.1%}] of {f['battles']}  "
            f"steps {len(r['steps'])}  {verdict}")


def advice(results, stat, steps):
    """What to run next for each monster not reached: one line each, none when all were.
    A target between two values of the stats searched (or out of steps there) needs a finer
    stat after them (attack, then HP, then speed: speed decides who acts first and moves the
    rate in small steps) and the steps for it: Wolf Pack, whose 65% falls between two HP
    values at attack 7 and at attack 8, was placed by ``attack+hp+speed`` in 19 steps of 24.
    On target but short of the width: more battles a step."""
    names, order = stages(stat), ("attack", "hp", "speed")      # coarse to fine
    more = next((s for s in order if s not in names), None)
    finer = "+".join(sorted(names + [more], key=order.index)) if more else "+".join(names)
    out = []
    for r in results:
        if r["reached"]:
            continue
        why = r["why"] or ""
        if why.startswith("half-width"):
            out.append(f"{r['name']}: on target but its sample is short of the width; run it "
                       f"without --battles (or with more): companion calibrate battle-builder "
                       f"--monster {r['id']} --stat {stat} --out NEW_FOLDER")
            continue
        out.append(f"{r['name']}: {'add ' + _label(more) + ' and ' if more else ''}give it more "
                   f"steps: companion calibrate battle-builder --monster {r['id']} --stat "
                   f"{finer} --steps {max(3 * steps, steps + 8)} --out NEW_FOLDER")
    return out
