"""``companion report GAME``: a playtest report as one self-contained HTML page and CSV files.

The page opens offline in any browser: the plots are inline SVG (matplotlib, see
:mod:`.plots`), the style is in the page, nothing is fetched. Beside it, CSV files hold every
figure and every game, for a spreadsheet.

What goes in: the finished table sessions of the game in the store that were played with the
same data (same fingerprint) as the report's (the shipped data, or ``--data DIR``); sessions
played with other data, bot games stored by ``companion play`` and sessions that do not replay
are listed as left out, never mixed in. ``--simulate N`` adds N bot games with the same player
count, options and data as the table sessions, shown beside them.
"""
import collections
import csv
import datetime
import html
import json
import os
import time

from . import games as lab_games
from . import stats
from .facts import Selection, data_ref, select_live  # noqa: F401  (the report's names too)


def choose_setup(game, live, players=None, given=None):
    """The player count and options of the simulated games: those asked for, else those of
    the most played table setup, else the game's defaults at four players (or its nearest)."""
    given = dict(given or {})
    if players is None:
        counts = collections.Counter(f.n for f in live)
        players = counts.most_common(1)[0][0] if counts else \
            min(max(4, game.min_players), game.max_players)
    game.check_players(players)
    same_n = [f for f in live if f.n == players]
    base = {}
    if same_n:
        keyed = collections.Counter(json.dumps(f.options, sort_keys=True) for f in same_n)
        base = json.loads(keyed.most_common(1)[0][0])
    base.update(given)
    resolved = game.resolve_options(base)
    return players, {k: v for k, v in resolved.items() if k != "data"}, resolved


def build(game, log, *, out, sessions=None, simulate=0, players=None, options=None, seed=0,
          bots="greedy", jobs=1, progress=None, impact=0, cluster=None, balance=0) -> dict:
    """Write ``report.html`` and the CSV files into the folder ``out``; returns what was
    written and how long each part took."""
    t0 = time.perf_counter()
    sel = select_live(log, game, sessions)
    n, opts, resolved = choose_setup(game, sel.live, players, options)
    t1 = time.perf_counter()
    sim = []
    if simulate:
        from .simulate import simulate as run_sim
        names = [f"Seat {i + 1}" for i in range(n)]
        sim = run_sim(game, names, simulate, seed=seed, bots=bots, options=resolved, jobs=jobs,
                      progress=progress, cluster=cluster)
    t2 = time.perf_counter()
    match = [f for f in sel.live if f.n == n and f.options == opts]
    page = Page(game, data_ref(game), sel, match, sim, n, opts, seed, bots)
    if impact:                      # per-card impact: ``impact`` bot games per rerun
        from . import impact as lab_impact
        page.impact = lab_impact.study(game, players=n, games=impact, seed=seed, bots=bots,
                                       options=resolved, jobs=jobs, log=log,
                                       sessions=sessions, cluster=cluster)
    if balance:                     # greedy vs search balance: ``balance`` search games
        from . import ladder
        if ladder.STRONG not in game.bots:
            from companion.core.errors import ConfigError
            raise ConfigError(f"--balance: {game.title} has no search bot yet (Great Powers, "
                              f"Trade Warz, Battle Builder and Market Trading have one); the "
                              f"balance section needs it.")
        names = [f"Seat {i + 1}" for i in range(n)]
        weak = max(simulate, 1000)      # --simulate's games are these games when enough
        page.balance = ladder.balance(game, names, weak, weak=bots, strong=ladder.STRONG,
                                      seed=seed, options=resolved, jobs=jobs,
                                      strong_games=balance,
                                      weak_facts=sim if len(sim) == weak else None)
    os.makedirs(out, exist_ok=True)
    written = page.write(out)
    t3 = time.perf_counter()
    return {"files": written, "live": len(sel.live), "matching": len(match),
            "simulated": len(sim), "left_out": sel.left_out, "bots": sel.bots,
            "players": n, "options": opts,
            "seconds": {"select": round(t1 - t0, 3), "simulate": round(t2 - t1, 3),
                        "write": round(t3 - t2, 3), "total": round(t3 - t0, 3)}}


# -- formatting -------------------------------------------------------------------------------

def pct(x):
    return "-" if x is None else f"{x:.1%}"


def ci(r):
    return f"{r['ci95'][0]:.1%} – {r['ci95'][1]:.1%}"


def _e(x):
    return html.escape(str(x))


def _when(epoch):
    if not epoch:
        return "-"
    return datetime.datetime.fromtimestamp(epoch).strftime("%Y-%m-%d %H:%M")


def _mins(seconds):
    """A duration as a clock: 0:07, 3:12, 1:02:05."""
    if seconds is None:
        return "-"
    h, rest = divmod(int(round(seconds)), 3600)
    m, s = divmod(rest, 60)
    return f"{h}:{m:02d}:{s:02d}" if h else f"{m}:{s:02d}"


CSS = """
body{font:15px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;margin:0;color:#1d1d1d;
background:#fafafa}
main{max-width:1080px;margin:0 auto;padding:24px 28px 60px;background:#fff}
h1{font-size:26px;margin:0 0 4px}h2{font-size:19px;margin:32px 0 8px;border-bottom:2px solid
#e3e3e3;padding-bottom:4px}h3{font-size:15px;margin:18px 0 6px}
p.sub{color:#555;margin:0 0 12px}.note{color:#555;font-size:13px}
table{border-collapse:collapse;margin:6px 0 12px;font-size:14px}
th,td{padding:3px 10px;text-align:right;border-bottom:1px solid #e6e6e6}
th:first-child,td:first-child{text-align:left}th{background:#f2f2f2;font-weight:600}
td.l,th.l{text-align:left}td.id,td.when{white-space:nowrap}
.cards{display:flex;flex-wrap:wrap;gap:12px;margin:10px 0}
.card{border:1px solid #ddd;border-radius:6px;padding:8px 14px;min-width:150px}
.card b{display:block;font-size:22px}.card span{color:#555;font-size:13px}
svg.plot{max-width:100%;height:auto;display:block;margin:6px 0 14px}
pre{background:#f6f6f6;padding:10px;overflow-x:auto;font-size:13px}
.warn{background:#fff4e0;border-left:4px solid #e69f00;padding:6px 12px}
"""


class Page:
    def __init__(self, game, ref, sel, match, sim, n, opts, seed, bots):
        self.game, self.ref, self.sel = game, ref, sel
        self.match, self.sim = match, sim
        self.n, self.opts, self.seed, self.bots = n, opts, seed, bots
        self.unit = lab_games.unit(game)
        self.live_stats = stats.summarise(game, match)
        self.all_live_stats = stats.summarise(game, sel.live)
        self.sim_stats = stats.summarise(game, sim)
        self.impact = None              # companion.lab.impact.study(), when asked for
        self.balance = None             # companion.lab.ladder.balance(), when asked for

    # -- the files --------------------------------------------------------------------------
    def write(self, out) -> list:
        files = []
        for name, header, rows in self.tables():
            path = os.path.join(out, name)
            with open(path, "w", newline="", encoding="utf-8") as f:
                w = csv.writer(f)
                w.writerow(header)
                w.writerows(rows)
            files.append(path)
        path = os.path.join(out, "report.html")
        with open(path, "w", encoding="utf-8") as f:
            f.write(self.html())
        return [path] + files

    def groups(self):
        """(name, stats, colour, hatch) of the groups shown side by side."""
        from .plots import LIVE, SIM
        out = []
        if self.match:
            out.append(("table sessions", self.live_stats, LIVE, None))
        if self.sim:
            out.append((f"simulated ({self.bots})", self.sim_stats, SIM, "//"))
        return out

    def tables(self):
        games = ["source", "session", "started", "players", "seats", "winners", "winner_seats",
                 "scores", "first_player", "factions", "rounds", "commands", "minutes",
                 "lead_changes", "spread", "reason", "data_version", "data_hash", "options"]
        rows = []
        for f in self.sel.live + self.sim:
            ref = f.data_ref
            rows.append([f.source, f.session, _when(f.started) if f.started else "",
                         "; ".join(f.players), f.n,
                         "; ".join(f.players[w] for w in f.winners),
                         " ".join(str(w + 1) for w in f.winners),
                         " ".join(str(s) for s in f.scores),
                         "" if f.first is None else f.first + 1,
                         "; ".join(f"{int(k) + 1}:{v}" for k, v in sorted(f.factions.items())),
                         f.rounds, f.commands,
                         "" if f.seconds is None else round(f.seconds / 60, 2),
                         f.lead_changes, f.spread, f.reason,
                         ref.version if ref else "", ref.hash if ref else "",
                         json.dumps(f.options, sort_keys=True)])
        yield "games.csv", games, rows

        rate_head = ["source", "seat", "games", "wins", "win_rate", "ci95_low", "ci95_high"]
        rows = []
        for name, st, _c, _h in self.groups():
            for r in st["seats"]:
                rows.append([name, r["seat"] + 1, r["games"], round(r["wins"], 3),
                             round(r["win_rate"], 4), round(r["ci95"][0], 4),
                             round(r["ci95"][1], 4)])
        yield "seats.csv", rate_head, rows

        rows = []
        for name, st, _c, _h in self.groups():
            for kind in ("factions", "difficulties"):
                for r in st[kind]:
                    rows.append([name, "leader" if kind == "factions" else "difficulty",
                                 r["key"], r["games"], round(r["wins"], 3),
                                 round(r["win_rate"], 4), round(r["ci95"][0], 4),
                                 round(r["ci95"][1], 4)])
            fp = st["first_player"]
            if fp:
                rows.append([name, "first player", "first player", fp["games"],
                             round(fp["wins"], 3), round(fp["win_rate"], 4),
                             round(fp["ci95"][0], 4), round(fp["ci95"][1], 4)])
        yield "groups.csv", ["source", "kind", "key", "games", "wins", "win_rate", "ci95_low",
                             "ci95_high"], rows

        yield "phases.csv", ["phase", "label", "times_entered", "mean_s", "median_s",
                             "total_s"], [
            [r["phase"], r["label"], r["count"], round(r["mean_s"], 2),
             round(r["median_s"], 2), round(r["total_s"], 1)]
            for r in self.all_live_stats["phases"]]
        yield "rounds.csv", ["round", "games", "mean_s", "median_s"], [
            [r["round"], r["games"], round(r["mean_s"], 2), round(r["median_s"], 2)]
            for r in self.all_live_stats["rounds"]]

        rows = []
        for f in self.sel.live:
            for r, row in enumerate(f.curve, 1):
                for s, v in enumerate(row):
                    rows.append([f.source, f.session, r, s + 1, v])
        for name, st, _c, _h in self.groups():
            if name != "table sessions":
                for r, row in enumerate(st["curve"], 1):
                    for s, v in enumerate(row):
                        rows.append([name, "mean", r, s + 1, round(v, 3)])
        yield "curves.csv", ["source", "session", "round", "seat", self.unit], rows
        if self.impact:
            yield "cards.csv", *_impact_csv(self.impact)
        if self.balance:
            yield "balance.csv", *_balance_csv(self.balance)

    # -- the page ---------------------------------------------------------------------------
    def html(self) -> str:
        parts = [self._head(), self._overview(), self._win_rates(), self._groups_section(),
                 self._curves(), self._length(), self._time(), self._sessions(),
                 self._game_figures(), _impact_html(self.impact), _balance_html(self.balance),
                 "</main></body></html>"]
        return "\n".join(p for p in parts if p)

    def _head(self):
        g = self.game
        title = f"{g.title}: playtest report"
        return (f"<!DOCTYPE html><html lang=en><head><meta charset=utf-8>"
                f"<meta name=viewport content='width=device-width,initial-scale=1'>"
                f"<title>{_e(title)}</title><style>{CSS}</style></head><body><main>"
                f"<h1>{_e(title)}</h1><p class=sub>Written "
                f"{_e(datetime.datetime.now().strftime('%Y-%m-%d %H:%M'))} by Table Companion. "
                f"Data: {_e(self.ref.label)}.</p>")

    def _overview(self):
        g, sel = self.game, self.sel
        opts = ", ".join(f"{k}={json.dumps(v)}" for k, v in sorted(self.opts.items()))
        edition = lab_games.edition_of(g, self.opts)
        cards = [(len(sel.live), "table sessions with this data"),
                 (len(self.match), f"of them with {self.n} players and these options"),
                 (len(self.sim), f"simulated games ({self.bots} bots, seed {self.seed})")]
        out = ["<h2>What this report reads</h2><div class=cards>"]
        out += [f"<div class=card><b>{v}</b><span>{_e(t)}</span></div>" for v, t in cards]
        out.append("</div>")
        out.append(f"<p>Compared setup: <b>{self.n} players</b>"
                   + (f", edition <b>{_e(edition)}</b>" if edition else "")
                   + f"; options {_e(opts) or 'the defaults'}.</p>")
        notes = []
        if sel.bots:
            notes.append(f"{sel.bots} bot game{'s' if sel.bots != 1 else ''} stored by "
                         f"<code>companion play</code> (not table games; their clock never "
                         f"ran)")
        for sid, why in sel.left_out:
            notes.append(f"{_e(sid)}: {_e(why)}")
        if notes:
            out.append("<h3>Left out</h3><ul class=note>" +
                       "".join(f"<li>{n}</li>" for n in notes) + "</ul>")
        if not self.match and not self.sim:
            out.append("<p class=warn>No games to show: play a game at the table with this "
                       "data, or add <code>--simulate N</code>.</p>")
        return "\n".join(out)

    def _rate_table(self, key_head, keys, per_group, fair=None):
        head = "".join(f"<th colspan=3>{_e(name)}</th>" for name, *_ in per_group)
        sub = "".join("<th>games</th><th>win rate</th><th>95% interval</th>"
                      for _ in per_group)
        rows = []
        for key in keys:
            cells = []
            for _name, lookup in per_group:
                r = lookup.get(key)
                cells.append("<td>-</td><td>-</td><td>-</td>" if r is None else
                             f"<td>{r['games']}</td><td>{pct(r['win_rate'])}</td>"
                             f"<td>{ci(r)}</td>")
            rows.append(f"<tr><td>{_e(key)}</td>{''.join(cells)}</tr>")
        return (f"<table><tr><th rowspan=2>{_e(key_head)}</th>{head}</tr><tr>{sub}</tr>"
                + "".join(rows) + "</table>")

    def _win_rates(self):
        from . import plots
        groups = self.groups()
        if not groups:
            return ""
        out = ["<h2>Win rate per seat</h2>",
               f"<p class=note>Each bar with its 95% interval (Wilson); shared wins count 1/k "
               f"to each winner. The dashed line is the fair share, 1/{self.n}.</p>"]
        labels = [f"Seat {s + 1}" for s in range(self.n)]
        bar_groups = []
        per = []
        for name, st, colour, hatch in groups:
            by = {r["seat"]: r for r in st["seats"]}
            bar_groups.append((name, colour, hatch, [by.get(s) for s in range(self.n)]))
            per.append((name, {f"Seat {k + 1}": v for k, v in by.items()}))
        out.append(plots.win_rates(labels, bar_groups, "Win rate per seat", fair=1 / self.n))
        out.append(self._rate_table("seat", labels, per))
        fps = [(name, st["first_player"]) for name, st, *_ in groups if st["first_player"]]
        if fps:
            out.append("<h3>First-player advantage</h3>")
            note = ("Battle Builder has no start player: seat 1 stands in for it. "
                    if self.game.name == "battle-builder" else
                    "The player who plays first in round 1 (the Baton in Great Powers, the "
                    "first-player marker in Trade Warz and Market Trading). ")
            out.append(f"<p class=note>{_e(note)}</p>")
            out.append(self._rate_table("", ["first player"], [
                (name, {"first player": fp}) for name, fp in fps]))
            out.append("<p class=note>Fair share: " + ", ".join(
                f"{_e(name)} {fp['fair']:.1%}" for name, fp in fps) + ".</p>")
        return "\n".join(out)

    def _groups_section(self):
        from . import plots
        groups = self.groups()
        out = []
        for kind, title, head in (("factions", "Win rate per Leader", "Leader"),
                                  ("difficulties", "Monster battles won per difficulty",
                                   "difficulty")):
            keys = []
            for _n, st, *_ in groups:
                keys += [r["key"] for r in st[kind] if r["key"] not in keys]
            if not keys:
                continue
            out.append(f"<h2>{_e(title)}</h2>")
            if kind == "difficulties":
                out.append("<p class=note>How often the players beat the monster, per "
                           "difficulty (the rulebook's targets: docs/battle-builder.md).</p>")
            bar_groups, per = [], []
            for name, st, colour, hatch in groups:
                by = {r["key"]: r for r in st[kind]}
                bar_groups.append((name, colour, hatch, [by.get(k) for k in keys]))
                per.append((name, by))
            out.append(plots.win_rates(keys, bar_groups, title,
                                       fair=1 / self.n if kind == "factions" else None,
                                       ylabel="win rate" if kind == "factions"
                                       else "battles won"))
            out.append(self._rate_table(head, keys, per))
        return "\n".join(out)

    def _curves(self):
        from . import plots
        panels = [(f"{name} ({st['games']} games)", st["curve"])
                  for name, st, *_ in self.groups() if st["curve"]]
        if not panels:
            return ""
        names = [f"Seat {s + 1}" for s in range(self.n)]
        out = ["<h2>Score per round</h2>",
               f"<p class=note>Mean {self.unit} of each seat after each round (over the games "
               f"that reached that round).</p>",
               plots.curves(panels, self.unit, names)]
        rows = []
        for name, st, *_ in self.groups():
            sp, lc = st["spreads"]["spread"], st["spreads"]["lead_changes"]
            if sp:
                rows.append(f"<tr><td>{_e(name)}</td><td>{sp['mean']:.1f}</td>"
                            f"<td>{sp['median']:g}</td><td>{lc['mean']:.2f}</td>"
                            f"<td>{lc['median']:g}</td><td>{lc['max']}</td></tr>")
        out.append(f"<h3>Lead changes and final spread</h3><table><tr><th></th>"
                   f"<th>mean spread ({_e(self.unit)}, winner − last)</th><th>median</th>"
                   f"<th>mean lead changes</th><th>median</th><th>most</th></tr>"
                   + "".join(rows) + "</table>")
        hist = [(f"{name}", colour, hatch, [f.lead_changes for f in fs])
                for (name, _st, colour, hatch), fs in zip(self.groups(), self._group_facts())]
        if any(h[3] for h in hist):
            out.append(plots.histograms(hist, "Lead changes per game", "lead changes"))
        hist = [(name, colour, hatch, [f.spread for f in fs])
                for (name, _st, colour, hatch), fs in zip(self.groups(), self._group_facts())]
        if any(h[3] for h in hist):
            out.append(plots.histograms(hist, f"Final spread ({self.unit})",
                                        f"winner − last ({self.unit})"))
        return "\n".join(out)

    def _group_facts(self):
        out = []
        if self.match:
            out.append(self.match)
        if self.sim:
            out.append(self.sim)
        return out

    def _length(self):
        from . import plots
        groups = self.groups()
        if not groups:
            return ""
        rows = []
        for name, st, *_ in groups:
            ln = st["length"]
            r, c, m = ln["rounds"], ln["commands"], ln["minutes"]
            minutes = "-" if not m else f"{m['mean']:.1f}"
            rows.append(f"<tr><td>{_e(name)}</td><td>{r['mean']:.1f}</td><td>{r['median']:g}"
                        f"</td><td>{r['p90']}</td><td>{c['mean']:.0f}</td><td>{minutes}</td>"
                        f"</tr>")
        out = ["<h2>Game length</h2>",
               "<table><tr><th></th><th>mean rounds</th><th>median</th><th>90% within</th>"
               "<th>mean commands</th><th>mean minutes</th></tr>" + "".join(rows) + "</table>"]
        hist = [(name, colour, hatch, [f.rounds for f in fs])
                for (name, _st, colour, hatch), fs in zip(groups, self._group_facts())]
        out.append(plots.histograms(hist, "Rounds per game", "rounds"))
        return "\n".join(out)

    def _time(self):
        from . import plots
        st = self.all_live_stats
        timed = [f for f in self.sel.live if f.timed]
        out = ["<h2>Where the time goes</h2>"]
        if not timed:
            out.append("<p class=note>No timed table sessions yet: time per phase and per round "
                       "come from the log of games played at the table (bots take no table "
                       "time).</p>")
            return "\n".join(out)
        out.append(f"<p class=note>From the log's own timestamps (the session clock) of "
                   f"{len(timed)} table session{'s' if len(timed) != 1 else ''} with this data, "
                   f"any player count and options.</p>")
        ph = [r for r in st["phases"]]
        out.append(plots.bars([r["label"] for r in ph], [r["mean_s"] for r in ph],
                              "Mean time per phase (each time it is played)", "seconds"))
        out.append("<table><tr><th>phase</th><th>times played</th><th>mean</th><th>median</th>"
                   "<th>total</th></tr>" + "".join(
                       f"<tr><td>{_e(r['label'])}</td><td>{r['count']}</td>"
                       f"<td>{_mins(r['mean_s'])}</td><td>{_mins(r['median_s'])}</td>"
                       f"<td>{_mins(r['total_s'])}</td></tr>" for r in ph) + "</table>")
        rd = st["rounds"]
        if rd:
            out.append(plots.bars([str(r["round"]) for r in rd], [r["mean_s"] for r in rd],
                                  "Mean time per round", "seconds",
                                  note="Round 0 is what happens before round 1 (the deal, "
                                       "choosing Leaders)." if rd[0]["round"] == 0 else None))
        return "\n".join(out)

    def _sessions(self):
        if not self.sel.live:
            return ""
        rows = []
        for f in sorted(self.sel.live, key=lambda f: f.started or 0):
            scores = ", ".join(f"{_e(p)} {s}" for p, s in zip(f.players, f.scores))
            winners = ", ".join(_e(f.players[w]) for w in f.winners)
            rows.append(f"<tr><td class='l id'>{_e(f.session)}</td>"
                        f"<td class=when>{_when(f.started)}</td>"
                        f"<td>{f.n}</td><td class=l>{winners}</td><td class=l>{scores}</td>"
                        f"<td>{f.rounds}</td><td>{_mins(f.seconds)}</td>"
                        f"<td>{'yes' if f in self.match else 'no'}</td></tr>")
        return ("<h2>Table sessions</h2><table><tr><th>session</th><th>started</th>"
                "<th>players</th><th class=l>won</th><th class=l>scores</th><th>rounds</th>"
                "<th>time</th><th>compared</th></tr>" + "".join(rows) + "</table>")

    def _game_figures(self):
        g = self.game
        report, text = getattr(g, "report", None), getattr(g, "report_text", None)
        if report is None or text is None:
            return ""
        out = []
        for name, _st, *_ in self.groups():
            fs = self.match if name == "table sessions" else self.sim
            try:
                body = text(report([f.summary for f in fs]))
            except (KeyError, ValueError, ZeroDivisionError, TypeError):
                continue
            out.append(f"<h3>{_e(name)}</h3><pre>{_e(body)}</pre>")
        if not out:
            return ""
        return f"<h2>{_e(g.title)}'s own figures</h2>" + "\n".join(out)


# -- per-card impact (companion/lab/impact.py) ---------------------------------------------

_FIGS = ("drawn", "never", "opening", "played")


def _impact_csv(res):
    head = ["source", "card", "name", "games"]
    for k in _FIGS:
        head += [f"{k}_games", f"{k}_wins", f"{k}_rate", f"{k}_ci95_low", f"{k}_ci95_high"]
    head += ["diff", "diff_ci95_low", "diff_ci95_high", "flagged", "reruns_flagged", "p",
             "p_flag", "deff"]
    counts = res["stability"]["counts"]
    rows = []
    for row in res["cards"]:
        for src in ("live", "sim"):
            x = row[src]
            if x is None:
                continue
            r = [src, x["card"], x["name"], x["games"]]
            for k in _FIGS:
                f = x[k]
                r += [f["games"], round(f["wins"], 3),
                      "" if f["rate"] is None else round(f["rate"], 4),
                      round(f["ci95"][0], 4), round(f["ci95"][1], 4)]
            d, (lo, hi) = x["diff"], x["diff_ci95"]
            r += ["" if d is None else round(d, 4), "" if lo != lo else round(lo, 4),
                  "" if hi != hi else round(hi, 4), int(x["flagged"]),
                  counts.get(x["card"], 0) if src == "sim" else "",
                  "" if x.get("p") is None else f"{x['p']:.3g}",
                  "" if x.get("p_flag") is None else f"{x['p_flag']:.3g}",
                  "" if x.get("deff") is None else round(x["deff"], 3)]
            rows.append(r)
    return head, rows


def _impact_cell(f):
    if f is None or not f["games"]:
        return "<td>-</td>"
    return f"<td>{pct(f['rate'])} <small>{ci({'ci95': f['ci95']})} n={f['games']}</small></td>"


def _impact_diff(x):
    if x is None or x["diff"] is None:
        return "<td>-</td>"
    lo, hi = x["diff_ci95"]
    flag = " <b>flagged</b>" if x["flagged"] else ""
    return (f"<td>{100 * x['diff']:+.1f} <small>[{100 * lo:+.1f}, {100 * hi:+.1f}]</small>"
            f"{flag}</td>")


def _balance_csv(res):
    header = ["kind", "key", "bots", "games", "win_rate", "ci95_low", "ci95_high"]
    rows = []
    for r in res["rows"]:
        for side in ("weak", "strong"):
            x = r[side]
            rows.append([r["kind"], r["key"], res[side], res["games"][side],
                         round(x["win_rate"], 4), round(x["ci95"][0], 4), round(x["ci95"][1], 4)])
    return header, rows


def _balance_html(res):
    """Win rates per seat, Leader and turn position under the greedy bots and under the search
    bot, side by side, with their rank correlation (companion/lab/ladder.py)."""
    if not res:
        return ""
    from .ladder import cell
    w, s = res["weak"], res["strong"]
    out = [f"<h2>Balance under {_e(w)} and under {_e(s)} bots</h2><p>Every seat played by the "
           f"same bot: {res['games']['weak']} games with {_e(w)}, {res['games']['strong']} with "
           f"{_e(s)} (a search bot thinks: it plays fewer games). Fair share "
           f"{100 * res['fair']:.1f}%; 95% Wilson intervals. Balance that holds only under the "
           f"weaker bots is a finding: the Spearman rank correlation says whether the two "
           f"agree on the order (+1 the same order, 0 none, -1 reversed).</p>",
           f"<table><tr><th>figure</th><th>{_e(w)}</th><th>{_e(s)}</th></tr>"]
    for r in res["rows"]:
        out.append(f"<tr><td>{_e(r['kind'])} {_e(str(r['key']))}</td><td>{cell(r['weak'])}</td>"
                   f"<td>{cell(r['strong'])}</td></tr>")
    out.append("</table><p>Spearman rank correlation: " + ", ".join(
        f"{_e(k)} {'undefined' if v is None else f'{v:+.2f}'}"
        for k, v in res["spearman"].items()) + ".</p>")
    return "".join(out)


def _impact_html(res, top=40):
    if not res:
        return ""
    from .impact import STABLE, rule_text
    st = res["stability"]
    names = {r["card"]: r["name"] for r in res["cards"]}
    out = [f"<h2>Per-card impact</h2><p>For each card, the win rate of the seats that had it "
           f"in hand (drawn), never had it, had it in the opening hand, and played it, with 95% "
           f"Wilson intervals; the difference is drawn minus never, in points, with Newcombe's "
           f"95% interval widened by the card's design effect (the seats of one game share one "
           f"winner, so they are not independent samples; cards.csv gives it). What the "
           f"columns mean here: {_e(res.get('columns', ''))}. Flagged "
           f"when {_e(rule_text(res))}. Simulated: {res['games']} games per rerun, "
           f"{st['reruns']} re-seeded reruns; table sessions: {res['live_games']}. A difference "
           f"is an association, not a cause (docs/lab.md).</p>"]
    steady = ", ".join(names.get(c, c) for c in st["stable_set"]) or "none"
    out.append(f"<p>Flagged set the same in <b>{st['same']} of {st['reruns']}</b> reruns: "
               f"<b>{'stable' if st['stable'] else 'not stable'}</b>. Cards flagged in at "
               f"least {STABLE}: {_e(steady)}.</p>")
    if st["counts"]:
        out.append("<table><tr><th>card</th><th>reruns flagged</th></tr>" + "".join(
            f"<tr><td>{_e(names.get(c, c))}</td><td>{k} of {st['reruns']}</td></tr>"
            for c, k in st["counts"].items()) + "</table>")
    groups = res.get("groups") or {}
    if groups.get("sim"):
        live_g = {g["group"]: g["win"] for g in groups.get("live") or ()}
        out.append("<h3>Per Leader</h3><table><tr><th>Leader</th><th>win rate (sim)</th>"
                   "<th>win rate (table)</th></tr>" + "".join(
                       f"<tr><td>{_e(g['group'])}</td>{_impact_cell(g['win'])}"
                       f"{_impact_cell(live_g.get(g['group']))}</tr>" for g in groups["sim"])
                   + "</table>")
    mons = res.get("monsters")
    if mons:
        live_m = {m["monster"]: m["battles"] for m in mons["live"]["monsters"]}
        live_d = {d["difficulty"]: d["battles"] for d in mons["live"]["difficulties"]}
        rows_m = []
        for d in mons["sim"]["difficulties"]:
            rows_m.append(f"<tr><td><b>{_e(d['difficulty'])}</b></td>"
                          f"{_impact_cell(d['battles'])}"
                          f"{_impact_cell(live_d.get(d['difficulty']))}</tr>")
            rows_m += [f"<tr><td>{_e(m['name'])}</td>{_impact_cell(m['battles'])}"
                       f"{_impact_cell(live_m.get(m['monster']))}</tr>"
                       for m in mons["sim"]["monsters"] if m["difficulty"] == d["difficulty"]]
        out.append("<h3>Monster battles won</h3><p>Each battle once, however many seats "
                   "fought it.</p><table><tr><th>monster</th><th>won (sim)</th>"
                   "<th>won (table)</th></tr>" + "".join(rows_m) + "</table>")
    head = "".join(f"<th>{h}</th>" for h in ("card", "games", "drawn", "never", "opening",
                                             "played", "drawn - never (sim)",
                                             "drawn - never (table)"))
    rows = []
    for row in res["cards"][:top]:
        x = row["sim"]
        cells = "".join(_impact_cell(None if x is None else x[k]) for k in _FIGS)
        rows.append(f"<tr><td>{_e(row['name'])}</td><td>{'-' if x is None else x['games']}"
                    f"</td>{cells}{_impact_diff(x)}{_impact_diff(row['live'])}</tr>")
    out.append(f"<table><tr>{head}</tr>{''.join(rows)}</table><p class=sub>The "
               f"{min(top, len(res['cards']))} largest simulated differences; every card is in "
               f"cards.csv.</p>")
    return "\n".join(out)
