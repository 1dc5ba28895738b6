"""The report's plots: matplotlib on its Agg/SVG backends (no display needed), each figure
returned as an inline ``<svg>`` element so the page needs no other file and no network.

matplotlib is imported here only, lazily, and only by the report: the core never needs it
(``pip install table-companion[lab]``).
"""
import io
import re

from companion.core.errors import CompanionError

# Colour-blind-safe (Okabe-Ito), in seat order; live and simulated games are told apart by
# hatching and by their labels, never by colour alone.
SEAT_COLOURS = ("#0072B2", "#E69F00", "#009E73", "#D55E00", "#CC79A7", "#56B4E9", "#F0E442",
                "#000000")
LIVE, SIM = "#0072B2", "#999999"


class PlotsUnavailable(CompanionError, RuntimeError):
    """matplotlib is not installed: the report is written without its plots."""


def _plt():
    try:
        import matplotlib
    except ImportError:
        raise PlotsUnavailable(
            "The report's plots need matplotlib: pip install 'table-companion[lab]' (or "
            "matplotlib) into the companion's Python.") from None
    matplotlib.use("Agg", force=True)
    import matplotlib.pyplot as plt
    plt.rcParams.update({"svg.fonttype": "none", "font.size": 10, "axes.spines.top": False,
                         "axes.spines.right": False, "svg.hashsalt": "table-companion"})
    return plt


def _svg(fig) -> str:
    plt = _plt()
    buf = io.StringIO()
    fig.savefig(buf, format="svg", bbox_inches="tight", metadata={"Date": None})
    plt.close(fig)
    text = buf.getvalue()
    text = text[text.index("<svg"):]                      # drop the XML prolog and DOCTYPE
    return re.sub(r"<svg ", '<svg class="plot" ', text, count=1)


def _ci_bars(ax, labels, groups, ylabel, fair=None):
    """Grouped bars with 95% intervals: ``groups`` = [(name, colour, hatch, [row|None])]."""
    k = len(groups)
    width = 0.8 / max(k, 1)
    for g, (name, colour, hatch, rows) in enumerate(groups):
        xs, ys, lo, hi = [], [], [], []
        for i, r in enumerate(rows):
            if r is None:
                continue
            xs.append(i - 0.4 + width * (g + 0.5))
            ys.append(r["win_rate"])
            lo.append(max(0.0, r["win_rate"] - r["ci95"][0]))     # 0.99999... vs 1.0
            hi.append(max(0.0, r["ci95"][1] - r["win_rate"]))
        ax.bar(xs, ys, width * 0.92, color=colour, hatch=hatch, edgecolor="#333333",
               linewidth=0.5, label=name, yerr=[lo, hi], capsize=3, ecolor="#222222")
    if fair is not None:
        ax.axhline(fair, color="#444444", linestyle="--", linewidth=1,
                   label=f"fair share {fair:.0%}")
    _xlabels(ax, labels)
    ax.set_ylabel(ylabel)
    ax.yaxis.set_major_formatter(_percent())
    ax.set_ylim(0, 1)
    _legend(ax)


def _xlabels(ax, labels):
    tilt = len(labels) > 6 and max(len(str(x)) for x in labels) > 4
    ax.set_xticks(range(len(labels)), labels, rotation=30 if tilt else 0,
                  ha="right" if tilt else "center")


def _legend(ax):
    """Beside the plot, never over the bars."""
    ax.legend(frameon=False, fontsize=9, loc="upper left", bbox_to_anchor=(1.01, 1.0))


def _percent():
    from matplotlib.ticker import PercentFormatter
    return PercentFormatter(1.0, decimals=0)


def win_rates(labels, groups, title, fair=None, ylabel="win rate") -> str:
    plt = _plt()
    fig, ax = plt.subplots(figsize=(max(5.5, 0.9 * len(labels) + 2.5), 3.4))
    _ci_bars(ax, labels, groups, ylabel, fair)
    ax.set_title(title, loc="left", fontsize=11)
    return _svg(fig)


def curves(panels, unit, players) -> str:
    """Score per round, one line per seat: ``panels`` = [(title, curve)]."""
    plt = _plt()
    panels = [(t, c) for t, c in panels if c]
    fig, axes = plt.subplots(1, len(panels), figsize=(5.2 * len(panels), 3.4), squeeze=False,
                             sharey=True)
    for ax, (title, curve) in zip(axes[0], panels):
        rounds = list(range(1, len(curve) + 1))
        n = len(curve[0])
        styles = ("-", "--", "-.", ":")
        for s in range(n):
            name = players[s] if s < len(players) else f"Seat {s + 1}"
            ax.plot(rounds, [row[s] for row in curve], marker="o", markersize=3,
                    color=SEAT_COLOURS[s % len(SEAT_COLOURS)], linestyle=styles[s % 4],
                    label=name)
        ax.set_title(title, loc="left", fontsize=11)
        ax.set_xlabel("round")
        ax.set_xticks(rounds)
        ax.set_ylabel(f"mean {unit}")
        ax.grid(axis="y", color="#dddddd")
    _legend(axes[0][-1])
    return _svg(fig)


def bars(labels, values, title, ylabel, colour=LIVE, note=None) -> str:
    plt = _plt()
    fig, ax = plt.subplots(figsize=(max(5.5, 0.8 * len(labels) + 2.5), 3.2))
    ax.bar(range(len(labels)), values, 0.7, color=colour, edgecolor="#333333", linewidth=0.5)
    _xlabels(ax, labels)
    ax.set_ylabel(ylabel)
    ax.set_title(title, loc="left", fontsize=11)
    for i, v in enumerate(values):
        ax.annotate(_short(v), (i, v), ha="center", va="bottom", fontsize=8,
                    xytext=(0, 2), textcoords="offset points")
    if note:
        ax.text(0, -0.28, note, transform=ax.transAxes, fontsize=8, color="#555555")
    return _svg(fig)


def _short(v):
    if v >= 90:
        return f"{v / 60:.1f} min"
    return f"{v:.0f} s" if v >= 10 else f"{v:.1f} s"


def histograms(panels, title, xlabel) -> str:
    """Share of games per value, live and simulated side by side: ``panels`` =
    [(name, colour, hatch, values)]. Empty when every game has the same value (the table
    beside it says it)."""
    panels = [p for p in panels if p[3]]
    if len({v for p in panels for v in p[3]}) < 2:
        return ""
    plt = _plt()
    fig, ax = plt.subplots(figsize=(6, 3.2))
    lo = min(min(p[3]) for p in panels)
    hi = max(max(p[3]) for p in panels)
    span = hi - lo
    whole = all(float(v).is_integer() for p in panels for v in p[3])
    if whole and span <= 40:
        edges = [x - 0.5 for x in range(int(lo), int(hi) + 2)]
    else:
        edges = 20
    if whole:
        from matplotlib.ticker import MaxNLocator
        ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    ax.hist([p[3] for p in panels], bins=edges,
            weights=[[1.0 / len(p[3])] * len(p[3]) for p in panels],
            color=[p[1] for p in panels], edgecolor="#333333", linewidth=0.5,
            label=[f"{p[0]} ({len(p[3])} games)" for p in panels])
    ax.set_xlabel(xlabel)
    ax.set_ylabel("share of games")
    ax.yaxis.set_major_formatter(_percent())
    ax.set_title(title, loc="left", fontsize=11)
    _legend(ax)
    return _svg(fig)
