"""QR labels on the supported label sheets: each label lands inside its die-cut rectangle,
every code on it reads back (pdftoppm + zbar) as its own card, and nothing overflows."""
import pytest
from reportlab.lib.units import mm

from companion import cardcodes, games
from companion.cli.main import main as companion_main
from companion.printing import LABEL_SHEETS, PAPERS, PrintError, print_set, render_stickers

from .test_layout import overflows
from .test_scan import scan_pages


def label_rects(sheet, ph):
    for k in range(sheet.per_page):
        col, row = k % sheet.cols, k // sheet.cols
        x = (sheet.left + col * sheet.pitch_x) * mm
        y = ph - (sheet.top + row * sheet.pitch_y + sheet.h) * mm
        yield x, y, sheet.w * mm, sheet.h * mm


@pytest.mark.parametrize("layout", sorted(LABEL_SHEETS))
def test_label_sheet_geometry(layout):
    """The labels fit the paper, with the margins the product's template has."""
    s = LABEL_SHEETS[layout]
    _, pw, ph = PAPERS[s.paper]
    right = pw - (s.left + (s.cols - 1) * s.pitch_x + s.w)
    bottom = ph - (s.top + (s.rows - 1) * s.pitch_y + s.h)
    assert right == pytest.approx(s.left, abs=0.2) and bottom == pytest.approx(s.top, abs=0.2)
    assert s.pitch_x >= s.w and s.pitch_y >= s.h
    assert (s.per_page, s.paper) in ((65, "a4"), (24, "a4"), (30, "letter"))


@pytest.mark.parametrize("layout", sorted(LABEL_SHEETS))
def test_stickers_scan_and_stay_on_their_labels(tmp_path, layout):
    sheet = LABEL_SHEETS[layout]
    ps = print_set("market-trading")                   # 28 improvement cards
    report = render_stickers(ps, tmp_path / "s.pdf", layout)
    assert report.faces == 28 and len(report.qrs) == 28
    ph = PAPERS[sheet.paper][2] * mm
    rects = list(label_rects(sheet, ph))
    for i, q in enumerate(report.qrs):
        assert q.area == pytest.approx(rects[i % sheet.per_page])
        x, y, w, h = q.area
        assert x <= q.x and q.x + q.box <= x + w and y <= q.y and q.y + q.box <= y + h
        assert q.module / mm >= 0.4
    for b in report.blocks:                            # every text inside one label
        assert any(x - 0.01 <= b.x and b.x + b.w <= x + w + 0.01 and
                   y - 0.01 <= b.y and b.y + b.h <= y + h + 0.01 for x, y, w, h in rects)
    assert [m for b in report.blocks for m in overflows(b)] == []
    # the smallest modules (65-up, 0.42 mm) need a little more resolution than the cards
    pages, alone = scan_pages(tmp_path / "s.pdf", tmp_path, dpi=200, qrs=report.qrs,
                              odd=False)                 # labels have no backs
    assert sorted(pages) == report.front_pages == list(range(1, report.pages + 1))
    assert {code: read for code, read in alone.items() if read != [code]} == {}
    table = games.card_catalog("market-trading")
    got = sorted((cardcodes.identify(c, None, "market-trading", table).card_id,
                  cardcodes.parse_code(c).copy) for c in alone)
    assert got == sorted((f.card_id, f.copy) for f in ps.faces())


def test_stickers_command(tmp_path, capsys):
    out = tmp_path / "labels.pdf"
    assert companion_main(["cards", "print", "great-powers", "--deck", "events", "--stickers",
                           "letter-30", "--out", str(out)]) == 0
    text = capsys.readouterr().out
    assert "Labels: 30 labels of 2 5/8 x 1 in" in text and "Avery 5160" in text
    assert out.exists()
    assert companion_main(["cards", "print", "great-powers", "--stickers", "a4-24",
                           "--paper", "letter", "--out", str(out)]) == 1
    assert "leave out --paper" in capsys.readouterr().err
    with pytest.raises(PrintError, match="No label sheet called 'a5-8'"):
        render_stickers(print_set("great-powers"), tmp_path / "x.pdf", "a5-8")
