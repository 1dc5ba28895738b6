"""Is a paired difference zero, or at least ``delta``? Decided as soon as the games say so.

Issue 23, part 1. ``simulate --compare DIR`` plays every game twice, once on each data set
(the same seed, the same seats: common random numbers), so each *pair* of games gives one
paired difference ``d = x_B - x_A`` per figure (a seat's or a Leader's win share, a Battle
Builder difficulty's battles won). :class:`PairedTest` decides, pair by pair, between

* H0: the mean paired difference is 0 (the edit changed nothing), and
* H1: it is at least ``delta`` in either direction (``+delta`` or ``-delta``),

with error rates written down: P(report a change | H0) <= ``alpha`` (both directions together)
and P(report no change | a change of ``delta``) <= ``beta``; defaults alpha = beta = 0.05.

**The test** (Sobel and Wald's two-sided SPRT, 1949, on a normal approximation; the same
approximation as Fishtest's GSPRT): two one-sided Wald SPRTs run on the same pairs,
H0 (mu = 0) against H+ (mu = +delta) and H0 against H- (mu = -delta), each at ``alpha / 2``.
After n pairs with sum S and variance estimate v, their log likelihood ratios are

    LLR+ = (delta / v) * (S - n * delta / 2)
    LLR- = (delta / v) * (-S - n * delta / 2)

(the normal log likelihood ratio of the pairs' mean, v in place of the unknown variance).
Each one-sided test stops at Wald's bounds: accept its H1 when ``LLR >= log((1 - beta) /
(alpha / 2))``, accept H0 when ``LLR <= log(beta / (1 - alpha / 2))``. The verdict is
"higher" (or "lower") as soon as LLR+ (or LLR-) reaches its upper bound before its test has
accepted H0, and "same" once both tests have accepted H0.

**The variance** v is the pairs' own, with two guards, because common random numbers make most
pairs identical (d = 0) and a plain sample variance of 0 would end the test after a handful of
pairs on no evidence:

    v = max((sum (d - mean)^2 + 1) / (n + 1), delta * (1 - delta))

one pseudo-observation of squared deviation 1 (a paired win-share difference lies in [-1, 1])
keeps the first few pairs from looking certain, and the floor is the least variance a
difference of wins (-1, 0 or +1 a pair) can have when its mean is ``delta``: under H1 the true
variance is at least that, so the floor only ever makes the test more cautious.

**The fixed-size test with the same error rates** (:func:`fixed_pairs`) is the two-sided z-test
of n pairs at level alpha with power 1 - beta at ``delta``:
``n = ((z(1 - alpha/2) + z(1 - beta)) * sigma / delta)^2``. Wald's approximations of the
sequential test's average number of pairs (:func:`wald_asn`) put it at about 0.51 of that when
the true difference is exactly ``delta`` and at about 0.43 when it is 0 (alpha = beta = 0.05,
overshoot of the bounds ignored); larger differences are decided sooner still.

The interval reported beside the verdict is the normal 95% interval of the mean paired
difference with the same v. It is read after a data-dependent stop, so it is a description,
not a guarantee; the verdict carries the error rates.

Why our own statistics: the whole test is the two lines above, a running sum and a normal
quantile (``statistics.NormalDist``, standard library). SciPy is not a dependency of this
project (pyproject.toml), it is a large wheel to install on the box's Raspberry Pi for two
formulas, and writing them here keeps the test readable next to its documentation
(docs/lab.md).

>>> t = PairedTest(delta=0.05)
>>> for d in [0.0] * 400:
...     t.add(d)
>>> t.verdict, t.decided_at
('same', 113)
>>> t = PairedTest(delta=0.05)
>>> for d in [1, 0, 0, 0] * 200:
...     t.add(d)
>>> t.verdict
'higher'
>>> round(fixed_pairs(0.05, sigma=0.3))
468
"""
import math
from statistics import NormalDist

_Z = NormalDist()

#: The verdicts: undecided, no change of delta, B higher, B lower.
UNDECIDED, SAME, HIGHER, LOWER = "undecided", "same", "higher", "lower"


def z(p) -> float:
    """The standard normal quantile: ``z(0.975)`` is 1.96."""
    return _Z.inv_cdf(p)


def bounds(alpha=0.05, beta=0.05) -> tuple:
    """Wald's (lower, upper) bounds on each one-sided LLR, that test at ``alpha / 2``."""
    return math.log(beta / (1 - alpha / 2)), math.log((1 - beta) / (alpha / 2))


def fixed_pairs(delta, sigma, alpha=0.05, beta=0.05) -> float:
    """Pairs a fixed-size two-sided z-test needs: level ``alpha``, power ``1 - beta`` at a
    difference of ``delta``, paired differences of standard deviation ``sigma``."""
    return ((z(1 - alpha / 2) + z(1 - beta)) * sigma / delta) ** 2


def wald_asn(mu, delta, sigma, alpha=0.05, beta=0.05) -> float:
    """Wald's approximation of the pairs :class:`PairedTest` needs on average when the true
    mean difference is ``mu``, overshoot of the bounds ignored, counting one one-sided test:
    the side toward ``mu`` (the other soon accepts H0). For ``mu`` = 0 both sides must accept
    H0, so the true average is larger than this (docs/lab.md measures it)."""
    lo, hi = bounds(alpha, beta)
    drift = (delta / sigma ** 2) * (abs(mu) - delta / 2)   # mean LLR per pair, that side
    if abs(drift) < 1e-12:
        return float("inf")
    if mu == 0:
        return lo / drift                    # both sides drift down alike
    p1 = _oc_h1(mu, delta, sigma, lo, hi)
    return (p1 * hi + (1 - p1) * lo) / drift


def _oc_h1(mu, delta, sigma, lo, hi):
    """Wald's probability that the one-sided test accepts H1 at true mean ``mu``."""
    h = (delta - 2 * abs(mu)) / delta        # exp(h * LLR) is a martingale
    if abs(h) < 1e-12:
        return -lo / (hi - lo)
    a, b = math.exp(h * hi), math.exp(h * lo)
    return (1 - b) / (a - b)


class PairedTest:
    """The sequential test of one paired difference (module docstring): ``add(d)`` pair by
    pair; ``verdict`` is :data:`UNDECIDED` until it is decided, then stays; ``decided_at``
    is the number of this figure's pairs it took. Pairs added after the verdict still count
    in ``mean`` and ``ci95`` (the estimate uses every pair played)."""

    def __init__(self, delta, alpha=0.05, beta=0.05):
        if not 0 < delta <= 1:
            raise ValueError(f"delta is a difference of win shares in (0, 1], not {delta}")
        if not (0 < alpha < 1 and 0 < beta < 1):
            raise ValueError("alpha and beta are probabilities in (0, 1)")
        self.delta, self.alpha, self.beta = delta, alpha, beta
        self.lo, self.hi = bounds(alpha, beta)
        self.n, self.s, self.ss = 0, 0.0, 0.0
        self.sides = {HIGHER: None, LOWER: None}   # None: running; SAME or the side: accepted
        self.verdict, self.decided_at = UNDECIDED, None

    @property
    def mean(self) -> float:
        return self.s / self.n if self.n else 0.0

    @property
    def variance(self) -> float:
        """The pairs' variance with one pseudo-observation of squared deviation 1, at least
        ``delta * (1 - delta)`` (module docstring)."""
        floor = self.delta * (1 - self.delta)
        if not self.n:
            return max(1.0, floor)
        return max((self.ss + 1.0) / (self.n + 1), floor)

    def llr(self, side) -> float:
        sign = 1.0 if side == HIGHER else -1.0
        return (self.delta / self.variance) * (sign * self.s - self.n * self.delta / 2)

    @property
    def ci95(self) -> tuple:
        half = 1.959963984540054 * math.sqrt(self.variance / self.n) if self.n else 1.0
        return (self.mean - half, self.mean + half)

    def add(self, d):
        self.n += 1
        self.s += d
        self.ss += d * d
        if self.verdict != UNDECIDED:
            return
        for side in (HIGHER, LOWER):
            if self.sides[side] is not None:
                continue
            llr = self.llr(side)
            if llr >= self.hi:
                self.sides[side] = side
                self.verdict, self.decided_at = side, self.n
                return
            if llr <= self.lo:
                self.sides[side] = SAME
        if self.sides[HIGHER] == SAME and self.sides[LOWER] == SAME:
            self.verdict, self.decided_at = SAME, self.n

    def row(self) -> dict:
        lo, hi = self.ci95
        return {"pairs": self.n, "mean": self.mean, "ci95": [lo, hi], "verdict": self.verdict,
                "decided_at": self.decided_at, "alpha": self.alpha, "beta": self.beta,
                "delta": self.delta}


def crn_pairs(rng, p, effect=0.0, changed=0.5):
    """One synthetic pair of win indicators ``(a, b)`` as common random numbers give them, for
    checking the test on cheap outcomes (tests/lab/test_sequential.py, benches/bench_paired.py):
    A wins with probability ``p``; with probability ``1 - changed`` the edit leaves the game as
    it was (b = a), otherwise B's game goes its own way and B wins with probability
    ``p + effect / changed``. The mean paired difference is exactly ``effect``."""
    a = 1.0 if rng.random() < p else 0.0
    if rng.random() >= changed:
        return a, a
    return a, (1.0 if rng.random() < p + effect / changed else 0.0)


def crn_sigma(p, effect=0.0, changed=0.5) -> float:
    """The standard deviation of ``b - a`` for :func:`crn_pairs`."""
    pb = p + effect / changed
    up, down = changed * pb * (1 - p), changed * p * (1 - pb)
    return math.sqrt(up + down - (up - down) ** 2)
