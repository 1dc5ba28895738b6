"""Sessions out of the store: CSV for spreadsheets, and BG Stats' play import format.

CSV (``companion sessions export --format csv``):

* ``sessions.csv``: one row per session (finished, open or abandoned): game, edition, status,
  when, players, winners, the data it was played with;
* ``players.csv``: one row per player per finished session: seat, score, rank, won, played
  first, Leader;
* ``events.csv``: every session's log as the public may see it (a sealed choice only once it
  was revealed; the seed only once the game is over), one row per record.

BG Stats (``--format bgstats``): BG Stats (the board-game play logger, bgstatsapp.com) imports a
play from other apps through a link ``https://app.bgstatsapp.com/createPlay.html?data=<JSON>``,
the JSON URL-encoded; its format is documented at
https://www.bgstatsapp.com/support/push-plays-to-bg-stats-from-other-apps-or-websites/ . Each
finished table session becomes one such play (:func:`bgstats_play`); the export writes them all
as JSON (``bgstats-plays.json``) and as a page of links with a QR code each
(``bgstats-plays.html``): open it on the phone that has BG Stats, or scan a code, and BG Stats
shows its import dialog with the game and players matched. Bot games are not plays and are left
out.
"""
import csv
import datetime
import html
import json
import os
import urllib.parse

from companion.core.errors import CompanionError, ConfigError

from . import games as lab_games
from .data import load_session
from .facts import is_bot_session

BGSTATS_URL = "https://app.bgstatsapp.com/createPlay.html"
SOURCE_NAME = "Table Companion"


def _date(epoch) -> str:
    """BG Stats' playDate: local time, ``YYYY-MM-DD HH:MM:SS``."""
    return datetime.datetime.fromtimestamp(epoch).strftime("%Y-%m-%d %H:%M:%S")


def ranks(scores, winners) -> list:
    """Standard competition ranks (1, 1, 3): the winners first (a tiebreak may have parted
    equal scores), then by score."""
    keys = [(1 if s in winners else 0, scores[s]) for s in range(len(scores))]
    return [1 + sum(1 for k in keys if k > keys[s]) for s in range(len(scores))]


class Played:
    """One stored session, replayed with its own data, and what an export needs of it."""

    def __init__(self, log, info):
        self.info = info
        self.session = load_session(log, info.id)
        self.game = self.session.game
        st = self.session.state
        self.state = st
        self.records = self.session.records
        first = self.records[0]
        self.started = first.get("wall", info.created)
        times = [r["at"] for r in self.records if isinstance(r.get("at"), (int, float))]
        self.bots = is_bot_session(info)
        self.seconds = (max(times) - first.get("at", 0.0)) if times and not self.bots else None
        o = st.outcome
        self.finished = o is not None and not self.session.abandoned
        self.winners = list(o.winners) if o else []
        self.scores = [o.scores.get(s, 0) for s in st.seats()] if o else []
        self.summary = self.game.summary(st) if o else {}
        self.edition = lab_games.edition_of(self.game, st.config)
        self.data = st.config.get("data") or {}

    @property
    def status(self):
        return "abandoned" if self.session.abandoned else ("finished" if self.finished
                                                          else "open")

    def faction(self, seat):
        return (self.summary.get("factions") or {}).get(str(seat), "")

    def first_player(self):
        from .facts import Tracker, walk
        tracker = Tracker(self.game)
        walk(self.game, self.records, lambda rec, st: tracker.see(st))
        return tracker.first


def _selected(log, game=None, sessions=None):
    infos = [i for i in log.sessions() if game is None or i.game == game]
    if sessions:
        known = {i.id: i for i in infos}
        missing = [s for s in sessions if s not in known]
        if missing:
            raise ConfigError(f"No session {missing[0]!r} in {getattr(log, 'path', 'the store')}"
                              + (f" for {game}" if game else "") + ".")
        infos = [known[s] for s in sessions]
    return infos


def _load(log, infos, problems):
    out = []
    for info in infos:
        try:
            out.append(Played(log, info))
        except CompanionError as e:
            problems.append((info.id, str(e)))
    return out


# -- CSV --------------------------------------------------------------------------------------

SESSION_COLUMNS = ["session", "game", "edition", "status", "played_by", "started", "minutes",
                   "players", "winners", "scores", "rounds", "reason", "data_version",
                   "data_hash", "data_dir", "options", "table"]
PLAYER_COLUMNS = ["session", "game", "edition", "started", "played_by", "player", "seat",
                  "score", "rank", "won", "first_player", "leader", "players_in_game"]
EVENT_COLUMNS = ["session", "version", "type", "kind", "at_s", "seat", "player", "move", "args",
                 "undone"]


def write_csv(log, out, game=None, sessions=None) -> list:
    problems = []
    played = _load(log, _selected(log, game, sessions), problems)
    os.makedirs(out, exist_ok=True)
    paths = []
    path = os.path.join(out, "sessions.csv")
    with open(path, "w", newline="", encoding="utf-8") as f:
        w = csv.writer(f)
        w.writerow(SESSION_COLUMNS)
        for p in played:
            w.writerow([p.info.id, p.game.name, p.edition or "", p.status,
                        "bots" if p.bots else "table", _date(p.started),
                        "" if p.seconds is None else round(p.seconds / 60, 2),
                        "; ".join(p.state.players),
                        "; ".join(p.state.players[s] for s in p.winners),
                        " ".join(str(x) for x in p.scores), p.state.round,
                        p.state.outcome.reason if p.state.outcome else "",
                        p.data.get("version", ""), p.data.get("hash", ""),
                        p.data.get("dir", ""),
                        json.dumps({k: v for k, v in p.state.config.items() if k != "data"},
                                   sort_keys=True),
                        (p.info.meta or {}).get("table", "")])
    paths.append((path, f"{len(played)} sessions"))
    path = os.path.join(out, "players.csv")
    rows = 0
    with open(path, "w", newline="", encoding="utf-8") as f:
        w = csv.writer(f)
        w.writerow(PLAYER_COLUMNS)
        for p in played:
            if not p.finished:
                continue
            rk = ranks(p.scores, p.winners)
            first = p.first_player()
            for s, name in enumerate(p.state.players):
                w.writerow([p.info.id, p.game.name, p.edition or "", _date(p.started),
                            "bots" if p.bots else "table", name, s + 1, p.scores[s], rk[s],
                            1 if s in p.winners else 0, 1 if s == first else 0, p.faction(s),
                            p.state.n])
                rows += 1
    paths.append((path, f"{rows} player results"))
    path = os.path.join(out, "events.csv")
    rows = 0
    with open(path, "w", newline="", encoding="utf-8") as f:
        w = csv.writer(f)
        w.writerow(EVENT_COLUMNS)
        for p in played:
            for item in p.session.history(None):
                seat = item.get("seat")
                w.writerow([p.info.id, item["version"], item.get("type", ""),
                            item.get("kind", ""),
                            round(item["at"], 3) if isinstance(item.get("at"), (int, float))
                            else "",
                            "" if not isinstance(seat, int) else seat + 1,
                            p.state.players[seat] if isinstance(seat, int)
                            and 0 <= seat < p.state.n else "",
                            item.get("move", ""),
                            json.dumps(item["args"], sort_keys=True) if "args" in item else "",
                            1 if item.get("undone") else 0])
                rows += 1
    paths.append((path, f"{rows} log records (as the public sees them)"))
    for sid, why in problems:
        paths.append(("(left out)", f"{sid}: {why}"))
    return paths


# -- BG Stats ---------------------------------------------------------------------------------

def bgstats_play(p: "Played") -> dict:
    """One finished session as a BG Stats play (the push format of
    bgstatsapp.com/support/push-plays-to-bg-stats-from-other-apps-or-websites/)."""
    st = p.state
    rk = ranks(p.scores, p.winners)
    first = p.first_player()
    title = p.game.title
    comments = [f"Recorded by Table Companion (session {p.info.id})",
                f"ended: {st.outcome.reason}"]
    if p.data.get("dir"):
        comments.append(f"played with an edited copy of the data ({p.data.get('version')}, "
                        f"data {p.data.get('hash', '')[:12]})")
    play = {
        "sourceName": SOURCE_NAME,
        "sourcePlayId": p.info.id,
        "playDate": _date(p.started),
        "durationMin": int(round((p.seconds or 0) / 60)),
        "board": p.edition or "",
        "comments": "; ".join(comments) + ".",
        "game": {"name": title, "highestWins": True, "noPoints": False,
                 "sourceGameId": p.game.name},
        "players": [{"name": name, "score": p.scores[s], "winner": s in p.winners,
                     "rank": rk[s], "startPlayer": s == first, "role": p.faction(s),
                     "sourcePlayerId": name}
                    for s, name in enumerate(st.players)],
    }
    table = (p.info.meta or {}).get("table")
    if table:
        play["location"] = f"Table Companion ({table})"
    return play


def bgstats_link(play: dict) -> str:
    """The link that opens BG Stats' import dialog for one play."""
    data = json.dumps(play, ensure_ascii=False, separators=(",", ":"))
    return f"{BGSTATS_URL}?data={urllib.parse.quote(data, safe='')}"


def write_bgstats(log, out, game=None, sessions=None) -> list:
    problems = []
    played = [p for p in _load(log, _selected(log, game, sessions), problems)
              if p.finished and not p.bots]
    plays = [bgstats_play(p) for p in played]
    os.makedirs(out, exist_ok=True)
    path = os.path.join(out, "bgstats-plays.json")
    with open(path, "w", encoding="utf-8") as f:
        json.dump(plays, f, indent=2, ensure_ascii=False)
    paths = [(path, f"{len(plays)} plays in BG Stats' import format")]
    path = os.path.join(out, "bgstats-plays.html")
    with open(path, "w", encoding="utf-8") as f:
        f.write(_links_page(plays))
    paths.append((path, "a link and a QR code per play: open on the phone with BG Stats"))
    for sid, why in problems:
        paths.append(("(left out)", f"{sid}: {why}"))
    return paths


def _qr_svg(text) -> str:
    try:
        import qrcode
        import qrcode.image.svg
    except ImportError:
        return ""
    img = qrcode.make(text, image_factory=qrcode.image.svg.SvgPathImage, box_size=4,
                      error_correction=qrcode.constants.ERROR_CORRECT_L)
    svg = img.to_string(encoding="unicode")
    return svg[svg.index("<svg"):]


def _links_page(plays) -> str:
    rows = []
    for play in plays:
        link = bgstats_link(play)
        who = ", ".join(f"{p['name']} {p['score']}" + (" (won)" if p["winner"] else "")
                        for p in play["players"])
        board = play["board"] if play["board"] != play["game"]["name"] else ""
        rows.append(f"<section><h2>{html.escape(play['game']['name'])}"
                    f"{' · ' + html.escape(board) if board else ''} · "
                    f"{html.escape(play['playDate'])}</h2><p>{html.escape(who)}</p>"
                    f"<p><a href=\"{html.escape(link)}\">Add this play to BG Stats</a></p>"
                    f"<div class=qr>{_qr_svg(link)}</div></section>")
    body = "".join(rows) or "<p>No finished table sessions to export.</p>"
    return ("<!DOCTYPE html><html lang=en><head><meta charset=utf-8><meta name=viewport "
            "content='width=device-width,initial-scale=1'><title>Plays for BG Stats</title>"
            "<style>body{font:16px/1.4 system-ui,sans-serif;max-width:760px;margin:auto;"
            "padding:16px}section{border-bottom:1px solid #ddd;padding:8px 0}"
            "h2{font-size:18px;margin:6px 0}.qr svg{width:420px;max-width:100%;height:auto}"
            "</style></head>"
            "<body><h1>Plays for BG Stats</h1><p>On a phone with BG Stats, tap a link (or scan "
            "its code): BG Stats opens its import dialog with the game and the players.</p>"
            + body + "</body></html>")


def write(log, out, fmt, game=None, sessions=None) -> list:
    if fmt == "csv":
        return write_csv(log, out, game, sessions)
    if fmt == "bgstats":
        return write_bgstats(log, out, game, sessions)
    raise ConfigError(f"Export format must be csv or bgstats, not {fmt!r}.")
