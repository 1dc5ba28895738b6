"""Nothing drawn overflows its box, nothing is too small to read, no QR code sits too close to
the edge or shrinks below a readable module, and a text too long for a card is a sentence for
the designer, not a clipped card. Widths are measured with reportlab's own ``stringWidth``."""
import dataclasses
import shutil

import pytest

from companion.cli.main import main as companion_main
from companion.printing import (CARD_H, CARD_W, PrintError, max_bleed, print_set,
                                render_cards, qr)
from companion.printing.sheets import MIN_PT, SAFE
from companion.printing.text import LEADING, fit, width, wrap
from reportlab.lib.units import mm

from .conftest import RUNS

EPS = 0.01


def overflows(block):
    """What is wrong with one drawn text block (an empty list when nothing is)."""
    out = []
    for line in block.lines:
        w = width(line, block.font, block.size)
        if w > block.w + EPS:
            out.append(f"{block.what}: {line!r} is {w:.1f} pt wide in a {block.w:.1f} pt box")
    if len(block.lines) * block.leading > block.h + EPS:
        out.append(f"{block.what}: {len(block.lines)} lines need "
                   f"{len(block.lines) * block.leading:.1f} pt in a {block.h:.1f} pt box")
    if block.size < MIN_PT - EPS:
        out.append(f"{block.what}: {block.size} pt is too small to read")
    return out


@pytest.mark.parametrize("game, edition, paper", RUNS)
def test_no_text_overflows_and_none_is_too_small(printed, game, edition, paper):
    p = printed[game, edition]
    assert p.report.blocks
    problems = [msg for b in p.report.blocks for msg in overflows(b)]
    assert problems == []
    pw, ph = {"a4": (210 * mm, 297 * mm), "letter": (215.9 * mm, 279.4 * mm)}[paper]
    assert all(0 <= b.x and b.x + b.w <= pw and 0 <= b.y and b.y + b.h <= ph
               for b in p.report.blocks)


@pytest.mark.parametrize("game, edition, paper", RUNS)
def test_the_longest_texts_are_on_their_cards_in_full(printed, game, edition, paper):
    p = printed[game, edition]
    faces = p.ps.faces()
    longest = max(faces, key=lambda f: len(f.text))
    name_longest = max(faces, key=lambda f: len(f.name))
    drawn = {}
    for b in p.report.blocks:
        drawn.setdefault(b.what, b)
    rules = drawn[f"{longest.name} ({longest.card_id}): rules text"]
    assert " ".join(rules.lines).split() == longest.text.split()   # every word, in order
    name = drawn[f"{name_longest.name} ({name_longest.card_id}): name"]
    assert " ".join(name.lines).replace("- ", "-").split() == name_longest.name.split() \
        or "".join(name.lines).replace(" ", "") == name_longest.name.replace(" ", "")
    # every card's rules text and name is drawn whole; only flavour may be left off
    for f in faces:
        if f.text:
            assert f"{f.name} ({f.card_id}): rules text" in drawn
    assert set(p.report.dropped_flavour) <= {f.card_id for f in faces if f.flavour}


@pytest.mark.parametrize("game, edition, paper", RUNS)
def test_qr_codes_keep_their_quiet_zone_inside_the_card(printed, game, edition, paper):
    p = printed[game, edition]
    for q in p.report.qrs:
        x, y, w, h = q.area
        assert (w, h) == pytest.approx((CARD_W * mm, CARD_H * mm))
        assert q.x >= x + SAFE * mm - EPS and q.y >= y + SAFE * mm - EPS
        assert q.x + q.box <= x + w - SAFE * mm + EPS and q.y + q.box <= y + h - SAFE * mm + EPS
        assert q.module / mm >= 0.5                   # docs/printing.md: 0.5 mm or more
    assert p.report.qr_version <= 6
    # the QR square is the only thing in its corner: no text block crosses it
    for b in p.report.blocks:
        for q in (q for q in p.report.qrs if q.page == b.page):
            bottom_of_lines, top_of_lines = b.inked
            apart = (b.x >= q.x + q.box or b.x + b.w <= q.x or
                     bottom_of_lines >= q.y + q.box - EPS or top_of_lines <= q.y)
            assert apart, (b.what, q.code)


def test_fit_never_returns_lines_wider_or_taller_than_the_box():
    text = "Each of your Food routes (this one too) earns +1 GDP at Income. " * 3
    f = fit(text, "TC-Vera", 150, 60, 9, 6)
    assert f is not None and f.size < 9
    assert all(width(line, "TC-Vera", f.size) <= 150 for line in f.lines)
    assert len(f.lines) * f.size * LEADING <= 60
    assert fit(text * 10, "TC-Vera", 150, 60, 9, 6) is None
    # a word wider than the box breaks after a hyphen first
    assert wrap("usa-military-industrial-complex", "TC-Vera", 6, 80)[0].endswith("-")


def _edited_copy(tmp_path, game, folder, change):
    from companion.games.battle_builder import data as bb
    from companion.games.great_powers import data as gp
    src = {"great-powers": gp.DATA, "battle-builder": bb.DATA}[game]
    dst = tmp_path / folder
    shutil.copytree(src, dst)
    change(dst)
    return dst


def only(ps, card_id):
    """The print set with one deck holding just this card's faces (fewer codes to make)."""
    deck = [d for d in ps.decks if any(f.card_id == card_id for f in d.faces)][0]
    faces = tuple(f for f in deck.faces if f.card_id == card_id)
    return dataclasses.replace(ps, decks=(dataclasses.replace(deck, faces=faces),), tokens=())


def test_a_rules_text_too_long_for_a_card_is_refused_with_a_sentence(tmp_path):
    def longer(d):
        f = d / "actions.toml"
        t = f.read_text()
        f.write_text(t.replace('text = "Gain 5 VP and lose 1 Industry Token"',
                               'text = "' + "Gain 5 VP and lose 1 Industry Token. " * 40 + '"'))
    data = _edited_copy(tmp_path, "great-powers", "gp", longer)
    ps = only(print_set("great-powers", data=data), "gilded-age")
    with pytest.raises(PrintError, match=r"Gilded Age \(gilded-age\): rules text: the text does "
                                         r"not fit its box even at 6 pt"):
        render_cards(ps, tmp_path / "x.pdf")
    assert not (tmp_path / "x.pdf").exists()
    out = tmp_path / "cli.pdf"
    assert companion_main(["cards", "print", "great-powers", "--data", str(data), "--out",
                           str(out), "--deck", "actions"]) == 1
    assert not out.exists()                                        # nothing half-written


def test_a_long_text_gets_smaller_but_stays_whole(tmp_path):
    long = ("At the start of each turn, the player with the fewest Colonies may take one "
            "Colony token from the player with the most, and then both lose 1 VP. ") * 2
    def longer(d):
        f = d / "actions.toml"
        f.write_text(f.read_text().replace('text = "Gain 2 Industry Tokens"',
                                           f'text = "{long.strip()}"'))
    ps = only(print_set("great-powers", data=_edited_copy(tmp_path, "great-powers", "gp",
                                                          longer)), "mass-production")
    report = render_cards(ps, tmp_path / "x.pdf")
    block = [b for b in report.blocks if b.what == "Mass Production (mass-production): rules text"]
    assert len(block) == 1 and 6 <= block[0].size < 9
    assert " ".join(block[0].lines).split() == long.split()
    assert [m for b in report.blocks for m in overflows(b)] == []


def test_a_character_the_font_lacks_is_named(tmp_path):
    def emoji(d):
        f = d / "actions.toml"
        f.write_text(f.read_text().replace('name = "Gilded Age"', 'name = "Gilded Age \U0001F451"'))
    ps = only(print_set("great-powers", data=_edited_copy(tmp_path, "great-powers", "gp",
                                                          emoji)), "gilded-age")
    with pytest.raises(PrintError, match=r"U\+1F451.*cannot print"):
        render_cards(ps, tmp_path / "x.pdf")


def test_paper_and_bleed():
    assert max_bleed("a4") == pytest.approx(1.83, abs=0.01)
    assert max_bleed("letter") == pytest.approx(0.9, abs=0.01)
    ps = print_set("market-trading")
    with pytest.raises(PrintError, match="at most 0.9 mm"):
        render_cards(ps, "/dev/null", paper="letter", bleed=2)
    with pytest.raises(PrintError, match="No paper called 'a3'"):
        render_cards(ps, "/dev/null", paper="a3")


def test_bleed_moves_the_cards_apart_and_the_backs_cover_it(tmp_path):
    ps = print_set("battle-builder")
    ps = dataclasses.replace(ps, decks=(ps.deck("arenas"),), tokens=())
    r0 = render_cards(ps, tmp_path / "a.pdf")
    r1 = render_cards(ps, tmp_path / "b.pdf", bleed=1.5)
    gap0 = r0.qrs[1].area[0] - r0.qrs[0].area[0]
    gap1 = r1.qrs[1].area[0] - r1.qrs[0].area[0]
    assert gap0 == pytest.approx(CARD_W * mm) and gap1 == pytest.approx((CARD_W + 3) * mm)


def test_the_qr_module_floor_stops_a_print_that_would_not_scan():
    with pytest.raises(PrintError, match="too small to scan reliably"):
        qr.check_box(24, 12, "a card")
