"""The figures of issue 15's table, collected from the benchmarks of one `python -m benches`
invocation and printed together at its end (`python -m benches hub broker run`).

A benchmark records with :func:`record`; :func:`issue_table` prints what was recorded (a row
whose benchmark did not run is left out). Times are in seconds, sizes in MB.
"""
import statistics

from benches.stats import pct

FIGURES: dict = {}


def record(key, value):
    FIGURES[key] = value


def _ms(values):
    if not values:
        return "-"
    xs = sorted(values)
    return f"{statistics.median(xs) * 1000:.2f} / {pct(xs, 99) * 1000:.2f}"


def _before_after(mode, what):
    """'legacy p50 / p99 -> ack-first p50 / p99 (p99 x ratio)' for one mode, log on disk."""
    a = FIGURES.get(("hub", mode, "legacy", what))
    b = FIGURES.get(("hub", mode, "ack-first", what))
    if a and b:
        return f"{_ms(a)} -> {_ms(b)} ({pct(a, 99) / max(pct(b, 99), 1e-9):.1f}x)"
    return _ms(b or a or [])


def issue_table():
    if not FIGURES:
        return
    modes = ("embedded", "mosquitto")
    rows = []
    if any(k[0] == "broker" for k in FIGURES):
        rows.append(("broker alone, command round trip", [_ms(FIGURES.get(("broker", m), []))
                                                          for m in modes], "-"))
    for what, label, goal in (("ack", "submit -> ack, one phone at a time", "p99 <= 5"),
                              ("burst", "submit -> ack, 8 bids at once", "p99 <= 20"),
                              ("reveal", "reveal spread first -> last phone", "p99 <= 5"),
                              ("handle", "hub handling (rules + append + publishing)", "-"),
                              ("reply", "leg: reply -> phone", "-")):
        if any(k[0] == "hub" and k[3] == what for k in FIGURES):
            rows.append((label, [_before_after(m, what) for m in modes], goal))
    if ("tournament",) in FIGURES:
        tables, rtt = FIGURES[("tournament",)]
        rows.append((f"tournament, {tables} tables x 8 phones, submit -> ack",
                     ["-", _ms(rtt)], "p99 <= 20 (100 tables)"))
    if ("memory",) in FIGURES:
        m = FIGURES[("memory",)]
        before = FIGURES.get(("memory", "before"))
        cell = f"{m['total_mb']:.0f} MB (main {m['main_mb']:.0f})"
        if before:
            cell = (f"{before['total_mb']:.0f} -> {cell} "
                    f"({before['total_mb'] / m['total_mb']:.2f}x)")
        where = 1 if m["broker"] in ("auto", "mosquitto") else 0
        rows.append(("whole `companion run` memory", [cell if i == where else "-"
                                                      for i in range(2)], "<= 200 MB"))
    if not rows:                        # none of issue 15's benches ran
        return
    print("\n===== issue 15's table, this run =====")
    print("ms p50 / p99; 'a -> b (Nx)': before (legacy order, or Mesa/Kivy GL defaults for "
          "memory) -> after, and the p99 (or MB) ratio; log on disk")
    w = max(len(r[0]) for r in rows)
    cw = max(len(c) for r in rows for c in r[1])
    print(f"  {'':{w}}  {'embedded broker':{cw}}  {'mosquitto':{cw}}  goal")
    for label, cells, goal in rows:
        print(f"  {label:{w}}  {cells[0]:{cw}}  {cells[1]:{cw}}  {goal}")
