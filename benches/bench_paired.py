"""Games to a decision: ``simulate --compare --until decided`` against a fixed-size test with
the same error rates (issue 23, part 1; docs/lab.md).

The sequential procedure is run many times on cheap synthetic pairs through the command's own
code path (companion.lab.paired.feed -> Comparison -> PairedTest); only the games are
synthetic. For each scenario: the pairs each rerun took to decide the changed figure
(mean, p50, p90, p99; a pair is two games, one on each data set), the fixed-size two-sided
z-test's pairs for the same alpha, beta and delta (analytic, with the true standard deviation
of the paired differences), their ratio, Wald's approximation of the ratio, and how often each
verdict came out. Then a deck against itself: how often a whole comparison (9 figures) reports
a change. ``--real`` adds one real Trade Warz comparison (a Leader's hand size raised).

    python -m benches paired [--quick] [--real]
"""
import random
import shutil
import statistics
import sys
import tempfile
import time
import zlib

from benches.stats import pct
from companion.core.play import wilson
from companion.lab import paired
from companion.lab.sequential import crn_pairs, crn_sigma, fixed_pairs, wald_asn

KEY = ("leader", "X")
P = 0.33            # the Leader's win rate on A (a 3-player game)
CHANGED = 0.5       # the share of pairs whose B game goes its own way

SCENARIOS = (   # label, delta, true change
    ("+5 points, delta 3 (the default)", 0.03, 0.05),
    ("+5 points, delta 5 (delta = the change)", 0.05, 0.05),
    ("+10 points, delta 3", 0.03, 0.10),
    ("no change, delta 3", 0.03, 0.0),
    ("no change, delta 5", 0.05, 0.0),
)


def _one_leader(rng, effect):
    while True:
        a, b = crn_pairs(rng, P, effect, CHANGED)
        yield {KEY: b - a}


def scenarios(reruns):
    print(f"One Leader's win share (A {P:.0%}, {CHANGED:.0%} of B's games go their own way), "
          f"alpha = beta = 0.05, {reruns} reruns each; pairs to a decision (games = 2 x pairs)")
    print(f"{'scenario':<42} {'mean':>6} {'p50':>6} {'p90':>6} {'p99':>6} {'fixed':>6} "
          f"{'mean/fixed':>10} {'p90/fixed':>9} {'Wald':>5}  verdicts")
    for label, delta, effect in SCENARIOS:
        rng = random.Random(zlib.crc32(label.encode()))
        stops, verdicts = [], {"higher": 0, "same": 0, "lower": 0, "undecided": 0}
        t0 = time.perf_counter()
        for _ in range(reruns):
            c = paired.feed(paired.Comparison(delta=delta), _one_leader(rng, effect), 200_000,
                            until="decided")
            t = c.tests[KEY]
            stops.append(t.decided_at or t.n)
            verdicts[t.verdict] += 1
        sigma = crn_sigma(P, effect, CHANGED)
        fixed = fixed_pairs(delta, sigma)
        mean = statistics.fmean(stops)
        shown = ", ".join(f"{k} {v}" for k, v in verdicts.items() if v)
        print(f"{label:<42} {mean:6.0f} {statistics.median(stops):6.0f} {pct(stops, 90):6.0f} "
              f"{pct(stops, 99):6.0f} {fixed:6.0f} {mean / fixed:10.2f} "
              f"{pct(stops, 90) / fixed:9.2f} {wald_asn(effect, delta, sigma) / fixed:5.2f}  "
              f"{shown} ({time.perf_counter() - t0:.1f} s)")


def against_itself(runs, delta=0.03, changed=0.15):
    rng = random.Random(2399)
    reported, pairs, per_figure = 0, [], 0
    t0 = time.perf_counter()
    for _ in range(runs):
        c = paired.feed(paired.Comparison(delta=delta),
                        paired.synthetic_pairs(rng, changed=changed), 200_000, until="decided")
        reported += bool(c.changed)
        per_figure += len(c.changed)
        pairs.append(c.pairs)
    lo, hi = wilson(reported, runs)
    print(f"A deck against itself (synthetic Trade Warz-shaped games: 3 seats, 6 Leaders, 9 "
          f"figures; {changed:.0%} of B's games redrawn with the same odds), delta "
          f"{delta * 100:g} points, {runs} runs: a change reported in {reported} "
          f"({reported / runs:.1%}, 95% interval {lo:.1%} - {hi:.1%}; {per_figure} figures in "
          f"all); pairs to decide every figure p50 {statistics.median(pairs):.0f}, "
          f"p90 {pct(pairs, 90):.0f}, p99 {pct(pairs, 99):.0f} "
          f"({time.perf_counter() - t0:.1f} s)")


def real(delta=0.05):
    """One real comparison: Trade Warz 3 players, Russia's hand size 6 -> 9 in B."""
    from companion import games
    copy = tempfile.mkdtemp(prefix="bench-paired-")
    try:
        shutil.copytree(games.shipped_data_dir("trade-warz"), copy, dirs_exist_ok=True)
        path = f"{copy}/leaders.toml"
        text = open(path).read()
        old = 'id = "russia"\nname = "Russia"\nhand_size = 6'
        assert old in text
        open(path, "w").write(text.replace(old, old[:-1] + "9"))
        base, edited = games.get("trade-warz"), games.get("trade-warz", data=copy)
        players = ["A", "B", "C"]
        diffs = []
        stream = paired.play_pairs(base, edited, players, seed=0)
        t0 = time.perf_counter()
        c = paired.feed(paired.Comparison(delta=delta),
                        (d for d in stream if diffs.append(d) or True), 6000, until="decided")
        stream.close()
        secs = time.perf_counter() - t0
        key = ("leader", "Russia")
        xs = [d[key] for d in diffs if key in d]
        sigma = statistics.pstdev(xs)
        t = c.tests[key]
        fixed = fixed_pairs(delta, sigma, 0.05 / c.family)
        print(f"Real: Trade Warz 3 players greedy, Russia hand size 6 -> 9, delta "
              f"{delta * 100:g} points, alpha 0.05 over {c.family} figures: Russia "
              f"{t.verdict} ({100 * t.mean:+.1f} points) after {t.decided_at} pairs with Russia "
              f"(pair {c.decided_pair.get(key)} of all); every figure decided by pair "
              f"{max(c.decided_pair.values()) if c.decided else '-'} ({2 * c.pairs} games, "
              f"{secs:.0f} s). Fixed-size test at alpha {0.05 / c.family:.4f}, sigma "
              f"{sigma:.3f} (measured): {fixed:.0f} pairs with Russia; ratio "
              f"{t.decided_at / fixed:.2f}")
        others = {f"{k[1]}": v.verdict for k, v in c.tests.items() if k != key}
        print(f"      the other figures: {others}")
    finally:
        shutil.rmtree(copy, ignore_errors=True)


def main(argv):
    quick = "--quick" in argv
    scenarios(60 if quick else 300)
    against_itself(100 if quick else 1000)
    if "--real" in argv:
        real()


if __name__ == "__main__":
    main(sys.argv[1:])
