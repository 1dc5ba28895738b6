"""Behaviour pinned: every stored session replays, on the code under test, to the same views
(public and every seat's) at every version of its log, and to the same outcome.

The sessions (``data/sessions.json.gz``, see ``record_sessions.py``) were played by bots, by a
player who taps only what ``legal`` offers, with undos, corrections and timers, for every game,
edition and a spread of options; the legacy log fixtures of ``tests/games/*/data`` are pinned the
same way. State fingerprints may change when a game restructures its data; views may not.
"""
import pytest

from companion.games import get

from . import record_sessions as rec

ENTRIES = rec.load()


def _name(e):
    return f"{e['game']}-{e['how']}-{len(e['views'])}"


@pytest.mark.parametrize("i", range(len(ENTRIES)), ids=[_name(e) for e in ENTRIES])
def test_a_stored_session_replays_to_the_same_views_and_outcome(i):
    e = ENTRIES[i]
    game = get(e["game"])
    records = e["records"] if e["records"] is not None else rec.legacy_records(e)
    pins, outcome = rec.pin(game, records)
    assert len(pins) == len(e["views"])
    for v, (got, want) in enumerate(zip(pins, e["views"])):
        assert got == want, (f"the views differ after version {v + 1} of {len(pins)}: "
                             f"{records[v]}")
    assert outcome == e["outcome"]
    if e.get("legacy"):                 # and as it ended on the code that recorded it
        recorded = rec.legacy_log(e)["outcome"]
        assert {k: outcome[k] for k in recorded} == recorded
