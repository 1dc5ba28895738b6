"""Readable CLI (issue 12, item 5): `companion games` names every edition, and `play
--transcript` tells the game in words from what the whole table saw, never a seat's secret
before its reveal."""
import random

import pytest

from companion.cli.main import main
from companion.core.clock import FakeClock
from companion.core.log import MemoryLog
from companion.core.play import play_out, resolve_bots
from companion.core.session import Session
from companion.games import get
from companion.lab.transcript import transcript


def run(capsys, *argv):
    code = main(list(argv))
    return code, capsys.readouterr().out


def test_games_names_each_edition(capsys):
    code, out = run(capsys, "games")
    assert code == 0
    tw = out.split("trade-warz", 1)[1]
    assert "Trade Warz (--option edition=trade, the default)" in tw
    assert "Tariff Warz (--option edition=tariff)" in tw
    assert "3-8 players" in out and "data: gp-2026.11, shipped data" in out


@pytest.mark.parametrize("game, n", [("great-powers", 3), ("trade-warz", 4),
                                     ("battle-builder", 2), ("market-trading", 2)])
def test_play_transcript_tells_the_game(capsys, game, n):
    code, out = run(capsys, "play", game, "--players", str(n), "--seed", "3", "--no-save",
                    "--transcript")
    assert code == 0
    story = out.split("\n\n" + get(game).title + ": session", 1)[0]
    assert "== Round 1 ==" in story and "Game over:" in story
    assert "Winner:" in out                                   # the final table follows
    if game == "great-powers":
        assert "Revealed (Turn 1 bids): Player 1 " in story
        assert "Bids resolved. " in story and "VP (highest level)" in story
    if game == "trade-warz":
        assert "Leaders: Player 1 is " in story and "Policies revealed:" in story
        assert "Exports flipped:" in story and "GDP from routes" in story


def _trade_warz(seed, edition):
    game = get("trade-warz")
    s = Session.start(game, ["Ann", "Bob", "Cat", "Dan"], MemoryLog(), seed=seed,
                      clock=FakeClock(), options={"edition": edition})
    play_out(s, resolve_bots(game, "greedy", 4), random.Random(seed))
    return game, s


@pytest.mark.parametrize("seed, edition", [(1, "trade"), (2, "tariff")])
def test_transcript_keeps_sealed_choices_until_their_reveal(seed, edition):
    """Between a face-down Export, a Policy or a Leader wish and its reveal, the transcript
    told from the log up to that moment never names the card: the count of its name does not
    grow until the reveal."""
    from companion.lab.facts import walk
    game, s = _trade_warz(seed, edition)
    recs = s.records
    at = {id(r): i for i, r in enumerate(recs)}
    revealed = {}                               # window -> index of the revealing record

    def each(rec, state):
        for wid, w in state.windows.items():
            if w.is_revealed() and wid not in revealed:
                revealed[wid] = 0 if rec is None else at[id(rec)]
    walk(game, recs, each)
    ix = game.ix(s.state)

    def story(k):
        return "\n".join(transcript(game, recs[:k + 1]))

    checked = 0
    for k, r in enumerate(recs):
        args = r.get("args") or {}
        card = args.get("card") or args.get("leader")
        if r.get("kind") != "move" or "window" not in r or not isinstance(card, str):
            continue
        name = ix.name_of(card)
        reveal = revealed.get(r["window"], len(recs))
        if reveal <= k:                         # its own command revealed it (the last in)
            continue
        assert story(reveal - 1).count(name) == story(k - 1).count(name), (name, k, reveal)
        assert name in story(reveal) or r["window"] == "leaders"
        checked += 1
    assert checked >= 8


def test_private_notices_stay_out():
    game, s = _trade_warz(3, "trade")
    lines = "\n".join(transcript(game, s.records))
    assert "You drew" not in lines and "Your Export" not in lines     # notices to one seat
    assert "YouDrew" not in lines and "YourExport" not in lines
