"""Small helpers for benchmark figures."""
import statistics


def pct(values, q):
    """The q-th percentile (0-100) by nearest rank."""
    xs = sorted(values)
    if not xs:
        return float("nan")
    k = max(0, min(len(xs) - 1, int(round(q / 100 * len(xs) + 0.5)) - 1))
    return xs[k]


def summary_ms(values):
    """'p50 x ms, p99 y ms' for values in seconds."""
    return (f"p50 {statistics.median(values) * 1000:.3f} ms, p99 {pct(values, 99) * 1000:.3f} ms"
            f" (n={len(values)})")
