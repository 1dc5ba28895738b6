"""Every printed card scans as itself: each front page rendered to PNG by poppler's pdftoppm,
every QR code on it decoded by zbar (pyzbar), and each code identified against the table's own
catalog (``companion.games.card_catalog``), as a scan at the table would be."""
import collections
import subprocess

import pytest
from PIL import Image
from pyzbar.pyzbar import ZBarSymbol, decode

from companion import cardcodes, games
from companion.cli.main import main as companion_main
from companion.printing import print_set

from .conftest import RUNS

# 165 dpi gives 3.5 pixels per 0.53 mm module: zbar decodes every card from 150 dpi on; below
# 135 dpi it starts to miss some. A little above the edge, and no more (CI time).
DPI = 165


def fronts(pdf, folder, dpi=DPI, odd=True):
    """The odd pages (faces; the even ones are their backs), or every page, rendered in
    grey."""
    prefix = folder / "page"
    subprocess.run(["pdftoppm", "-r", str(dpi), "-gray", *(["-o"] if odd else []), str(pdf),
                    str(prefix)], check=True, timeout=300)
    return sorted(folder.glob("page-*.pgm"))


def page_number(path):
    return int(path.stem.rsplit("-", 1)[1])


def scan_pages(pdf, folder, dpi=DPI, qrs=(), odd=True):
    """``{page number: [decoded text, ...]}`` from zbar scanning each whole page; and, for
    every QR code the report says it drew (``qrs``), what zbar reads in that square alone:
    ``{code drawn: [decoded text, ...]}``. (zbar's scan of a whole page now and then passes
    over a symbol that it reads at once on its own.)"""
    pages, alone = {}, {}
    by_page = collections.defaultdict(list)
    for q in qrs:
        by_page[q.page].append(q)
    for png in fronts(pdf, folder, dpi, odd):
        n = page_number(png)
        with Image.open(png) as im:
            pages[n] = [s.data.decode("utf-8") for s in decode(im, symbols=[ZBarSymbol.QRCODE])]
            scale = dpi / 72
            for q in by_page.get(n, ()):
                pad = 2
                box = (int(q.x * scale) - pad, int(im.height - (q.y + q.box) * scale) - pad,
                       int((q.x + q.box) * scale) + pad, int(im.height - q.y * scale) + pad)
                alone[q.code] = [s.data.decode("utf-8") for s in
                                 decode(im.crop(box), symbols=[ZBarSymbol.QRCODE])]
    return pages, alone


@pytest.mark.parametrize("game, edition, paper", RUNS)
def test_every_card_of_every_deck_scans_as_itself_once(printed, tmp_path, game, edition,
                                                       paper):
    p = printed[game, edition]
    pages, alone = scan_pages(p.path, tmp_path, qrs=p.report.qrs)
    assert sorted(pages) == p.report.front_pages           # every face page, and only those
    assert p.report.pages == 2 * len(p.report.front_pages)  # each followed by its backs
    expected = [f.code for f in p.ps.faces()]
    assert len(expected) == len(set(expected))              # each copy has its own code
    assert sorted(q.code for q in p.report.qrs) == sorted(expected)
    # each card's square reads as exactly that card's code ...
    wrong = {drawn: read for drawn, read in alone.items() if read != [drawn]}
    assert wrong == {}
    # ... and no page holds a code twice, or one that is not a card of this print
    on_page = {q.code: q.page for q in p.report.qrs}
    seen = collections.Counter(code for codes in pages.values() for code in codes)
    assert [c for c, n in seen.items() if n > 1] == []
    for page, codes in pages.items():
        assert all(on_page.get(code) == page for code in codes), page
    table = games.card_catalog(game)                        # what the table scans against
    faces = {f.code: f for f in p.ps.faces()}
    for code in alone:
        card = cardcodes.identify(code, None, game, table)
        face = faces[code]
        assert (card.card_id, card.copy, card.name) == (face.card_id, face.copy,
                                                        table["cards"][face.card_id])
    per_card = collections.Counter(f.card_id for f in p.ps.faces())
    assert all(f.copies == per_card[f.card_id] for f in p.ps.faces())
    assert set(per_card) <= set(table["cards"])


def test_the_print_command_writes_what_was_scanned(printed, tmp_path, capsys):
    """``companion cards print trade-warz --edition trade``: the same bytes as the PDF the
    test above scanned (the PDFs are invariant: no dates, no random ids)."""
    out = tmp_path / "tw.pdf"
    assert companion_main(["cards", "print", "trade-warz", "--edition", "trade",
                           "--out", str(out)]) == 0
    text = capsys.readouterr().out
    assert out.read_bytes() == printed["trade-warz", "trade"].path.read_bytes()
    ps = printed["trade-warz", "trade"].ps
    assert f"Wrote {out}: 124 cards of Trade Warz in 12 decks, 34 pages." in text
    assert f"db-version {ps.version}" in text and "flip on the long edge" in text
    assert "QR: version 5, error correction M" in text and "0.53 mm modules" in text
    assert out.stat().st_mode & 0o044                       # readable by others, like any file


def test_one_deck_can_be_reprinted_with_the_same_codes(tmp_path):
    ps = print_set("battle-builder")
    out = tmp_path / "m.pdf"
    assert companion_main(["cards", "print", "battle-builder", "--deck", "monsters", "--out",
                           str(out), "--paper", "letter", "--duplex", "short"]) == 0
    pages, _ = scan_pages(out, tmp_path)
    codes = [c for cs in pages.values() for c in cs]
    assert sorted(codes) == sorted(f.code for f in ps.deck("monsters").faces)
