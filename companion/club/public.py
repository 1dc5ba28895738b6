"""What of a session may leave the box for the club's record: the public history, never a secret.

The live broker has kept the table's secrets since the first build (the room code, a seat's
token, a sealed choice before its reveal, a private move's arguments, a seat's replies, the
seed while the game runs); the record must keep them just as well, because whoever reads the
record (the organiser, a report, anyone who got hold of its login) must not be able to take a
seat or read a hand. So a box ships:

* a session's **meta** without the keys in :data:`SECRET_KEYS`, at any depth (the room code,
  each seat's ``token_hash``, any password or handover code);
* its **records** as the public sees them (:meth:`companion.core.session.Session.history`
  with no viewer, the same rule): the seed only once the game is over (it tells every deck's
  order), a sealed choice's arguments and salt only once its window was revealed and it was not
  undone (a lock-in never revealed keeps its commitment, never its choice or salt), a private
  move's arguments never;
* **no replies** (a seat's own answers: private on the broker, so private here).

A running game's records at the club are what a spectator could see so far; when the game
ends the box sends them again as the end shows them (the seed, the revealed choices), and the
club keeps the newer copy (:meth:`companion.club.record.Record.ingest`).

>>> public_meta({"table": "kitchen", "room": "4711", "seats": [{"name": "Ann", "token_hash": "ab"}]})
{'table': 'kitchen', 'seats': [{'name': 'Ann'}]}
"""
from __future__ import annotations

import json

from companion.core.session import fold

#: Keys that never leave the box, wherever they stand in a session's meta or a record.
#: (Not ``tokens``: a game's pieces are called that, Great Powers' and Battle Builder's.)
SECRET_KEYS = frozenset({"room", "room_code", "token", "token_hash", "password", "passwords",
                         "seat_password", "seat_logins", "handover", "handovers",
                         "handover_code", "join"})


def public_meta(value):
    """``value`` (a session's meta, or any JSON value) without a secret key at any depth."""
    if isinstance(value, dict):
        return {k: public_meta(v) for k, v in value.items() if k not in SECRET_KEYS}
    if isinstance(value, list):
        return [public_meta(v) for v in value]
    return value


def is_over(game, records, status) -> bool:
    """Whether the session is over (its status says so, or its state does)."""
    if status not in (None, "open"):
        return True
    try:
        return fold(game, records).is_over()
    except Exception:
        return False


def public_records(game, records, status="open"):
    """The session's records as they may leave the box (new dicts where anything was left
    out, the same objects where nothing was). ``game`` is the game it was played
    (``companion.games.get(name)``), ``records`` all of its records from version 0; ``status``
    is the session's status in the store. Raises what :func:`fold` raises on a log that does
    not replay (the shipper then ships none of that session's records and says why)."""
    state = fold(game, records)
    over = state.is_over() or status not in (None, "open")
    undone = {r.get("target") for r in records if r.get("type") == "Undone"}
    out = []
    for v, r in enumerate(records):
        item = r
        if v == 0 and not over and "seed" in r:
            item = dict(r)
            item.pop("seed")
        move = game.moves.get(r.get("move")) if r.get("kind") == "move" else None
        if move is not None and move.private and "args" in item:
            item = dict(item)
            item.pop("args")
        if "salt" in r:
            w = state.windows.get(r.get("window"))
            shown = v not in undone and w is not None and w.is_revealed()
            if not shown:
                item = dict(item)
                item.pop("args", None)
                item.pop("salt", None)
        if any(k in SECRET_KEYS for k in item):
            item = {k: val for k, val in item.items() if k not in SECRET_KEYS}
        out.append(item)
    return out


def public_events(game, rows, status="open"):
    """The store's event rows ``(session_id, version, type, data)`` of one session, from version
    0, as they may leave the box: a row whose record changed gets new JSON text, the others keep
    theirs byte for byte."""
    records = [json.loads(d) for _sid, _v, _t, d in rows]
    shown = public_records(game, records, status)
    return [row if s is r else (row[0], row[1], row[2], json.dumps(s))
            for row, r, s in zip(rows, records, shown)]
