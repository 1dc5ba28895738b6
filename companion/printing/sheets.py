"""Drawing a :class:`~companion.printing.model.PrintSet` into a PDF with reportlab.

* :func:`render_cards`: poker cards (63 x 88 mm), nine to an A4 or US Letter page, cut marks
  in the margins, an optional bleed; each deck starts on a new sheet, and after every sheet of
  faces comes the sheet of its backs, mirrored for double-sided printing (docs/printing.md).
  Then the tokens (Market Trading's resources), faces and mirrored faces.
* :func:`render_stickers`: QR labels only (name, copy, code) on a label sheet from
  :data:`LABEL_SHEETS`, for cards that are already printed.

Both return a :class:`Report` that lists every text block and QR code drawn with its box, so
the tests can check that nothing overflows. The PDFs are invariant (no dates, no random ids):
the same data and options give the same bytes.
"""
import dataclasses
import io
import os

from reportlab.lib.colors import HexColor
from reportlab.lib.units import mm
from reportlab.pdfgen.canvas import Canvas

from . import qr
from .layouts import LABEL_SHEETS, PAPERS, LabelSheet  # noqa: F401  (part of this module's API)
from .model import PrintError
from .text import BOLD, ITALIC, REGULAR, clean, fit, register, width

CARD_W, CARD_H = 63.0, 88.0         # poker size, mm
COLS, ROWS = 3, 3
MARGIN_MIN = 5.0                    # mm kept free around the grid (printers' own margin, marks)
SAFE = 3.0                          # mm inside the trim where nothing important is drawn
QR_BOX = 24.0                       # mm: the QR square on a card, quiet zone included
MIN_PT = 6.0                        # no text smaller than this
TOKEN = 20.0                        # mm: a resource token square


@dataclasses.dataclass(frozen=True)
class TextBlock:
    """One fitted text: its box (points, page coordinates; the lines are drawn from its top)
    and the lines drawn in it."""
    page: int
    what: str
    x: float
    y: float                        # the box's bottom
    w: float
    h: float
    font: str
    size: float
    leading: float
    lines: tuple
    valign: str = "top"

    @property
    def inked(self) -> tuple:
        """(bottom, top) of the lines actually drawn in the box."""
        used = len(self.lines) * self.leading
        if self.valign == "top":
            return self.y + self.h - used, self.y + self.h
        return self.y, self.y + used


@dataclasses.dataclass(frozen=True)
class QRMark:
    page: int
    code: str
    x: float
    y: float
    box: float                      # points, quiet zone included
    module: float                   # points
    area: tuple                     # (x, y, w, h): the card or label it sits on, points


@dataclasses.dataclass
class Report:
    path: str
    pages: int = 0
    front_pages: list = dataclasses.field(default_factory=list)   # 1-based page numbers
    faces: int = 0
    qr_version: int = 0
    module_mm: float = 0.0
    blocks: list = dataclasses.field(default_factory=list)
    qrs: list = dataclasses.field(default_factory=list)
    dropped_flavour: list = dataclasses.field(default_factory=list)
    sheets: list = dataclasses.field(default_factory=list)        # (deck title, sheets)


def _rgb(hexcolour):
    return HexColor(hexcolour)


def _luma(hexcolour) -> float:
    c = _rgb(hexcolour)
    return 0.2126 * c.red + 0.7152 * c.green + 0.0722 * c.blue


def _ink(hexcolour):
    return HexColor("#000000") if _luma(hexcolour) > 0.55 else HexColor("#FFFFFF")


def _lighter(hexcolour, t):
    c = _rgb(hexcolour)
    return (c.red + (1 - c.red) * t, c.green + (1 - c.green) * t, c.blue + (1 - c.blue) * t)


class _Pdf:
    def __init__(self, out, ps, report, paper):
        register()
        if isinstance(out, os.PathLike):
            out = os.fspath(out)
        self.ps = ps
        self.report = report
        self.paper_name, pw, ph = PAPERS[paper]
        self.pw, self.ph = pw * mm, ph * mm
        self.c = Canvas(out, pagesize=(self.pw, self.ph), invariant=1, pageCompression=1)
        ed = f" ({ps.edition})" if ps.edition else ""
        self.c.setTitle(f"{ps.title}{ed} cards, {ps.version}")
        self.c.setAuthor("Table Companion")
        self.c.setSubject(f"tc1 card codes for {ps.game}, db-version {ps.version}")
        self.c.setCreator("companion cards print")
        self.page = 1

    def next_page(self):
        self.c.showPage()
        self.page += 1

    def save(self):
        self.c.save()
        self.report.pages = self.page

    # -- text --------------------------------------------------------------------------------
    def block(self, what, text, font, x, y, w, h, max_size, min_size=MIN_PT, max_lines=None,
              colour=None, align="left", required=True, valign="top"):
        """Fit ``text`` into the box (x, y bottom; points), draw it top-aligned (or
        bottom-aligned), record it. Returns the Fit, or None when it cannot fit and is not
        ``required``."""
        text = clean(text, what, font)
        f = fit(text, font, w, h, max_size, min_size, max_lines)
        if f is None:
            if not required:
                return None
            raise PrintError(f"{what}: the text does not fit its box even at {min_size:g} pt "
                             f"({len(text)} characters). Shorten it in the data.")
        top = y + h if valign == "top" else y + f.height
        self.draw_lines(f, font, x, top, w, colour, align)
        self.report.blocks.append(TextBlock(self.page, what, x, y, w, h, font, f.size,
                                            f.leading, f.lines, valign))
        return f

    def draw_lines(self, f, font, x, top, w, colour=None, align="left"):
        c = self.c
        c.setFont(font, f.size)
        c.setFillColor(colour or HexColor("#000000"))
        for i, line in enumerate(f.lines):
            base = top - i * f.leading - 0.95 * f.size
            if align == "center":
                c.drawCentredString(x + w / 2, base, line)
            elif align == "right":
                c.drawRightString(x + w, base, line)
            else:
                c.drawString(x, base, line)

    # -- page furniture ------------------------------------------------------------------------
    def header(self, text, grid_top, centre_x, max_w):
        """A small line in the top margin, between the cut marks of the middle column."""
        room = self.ph - grid_top
        size = 6.5
        if room < 9 * mm:
            return
        text = clean(text, "the page header")
        while width(text, REGULAR, size) > max_w and len(text) > 8:
            text = text[:-2]
        self.c.setFont(REGULAR, size)
        self.c.setFillColor(HexColor("#555555"))
        self.c.drawCentredString(centre_x, grid_top + room / 2 - size / 3, text)

    def cut_marks(self, xs, ys, left, bottom, right, top):
        c = self.c
        c.saveState()
        c.setStrokeColor(HexColor("#000000"))
        c.setLineWidth(0.4)
        gap = 1 * mm

        def length(room):
            return max(0.0, min(5 * mm, room - 1.5 * mm - gap))
        top_len, bottom_len = length(self.ph - top), length(bottom)
        left_len, right_len = length(left), length(self.pw - right)
        for x in xs:
            if top_len:
                c.line(x, top + gap, x, top + gap + top_len)
            if bottom_len:
                c.line(x, bottom - gap, x, bottom - gap - bottom_len)
        for y in ys:
            if left_len:
                c.line(left - gap, y, left - gap - left_len, y)
            if right_len:
                c.line(right + gap, y, right + gap + right_len, y)
        c.restoreState()


class _Grid:
    """Where the nine cards of a sheet go (trim boxes, points)."""

    def __init__(self, pdf, bleed):
        self.pdf = pdf
        self.bleed = bleed * mm
        self.cell_w = CARD_W * mm + 2 * self.bleed
        self.cell_h = CARD_H * mm + 2 * self.bleed
        self.left = (pdf.pw - COLS * self.cell_w) / 2
        self.bottom = (pdf.ph - ROWS * self.cell_h) / 2
        self.right = self.left + COLS * self.cell_w
        self.top = self.bottom + ROWS * self.cell_h

    def trim(self, col, row):
        """(x, y) of the trim box's bottom-left; row 0 is the top row."""
        x = self.left + col * self.cell_w + self.bleed
        y = self.top - (row + 1) * self.cell_h + self.bleed
        return x, y

    def marks(self):
        xs, ys = [], []
        for col in range(COLS):
            x, _ = self.trim(col, 0)
            xs += [x, x + CARD_W * mm]
        for row in range(ROWS):
            _, y = self.trim(0, row)
            ys += [y, y + CARD_H * mm]
        xs, ys = sorted(set(round(v, 3) for v in xs)), sorted(set(round(v, 3) for v in ys))
        self.pdf.cut_marks(xs, ys, self.left, self.bottom, self.right, self.top)


def max_bleed(paper: str) -> float:
    """The largest bleed (mm) with which nine cards and their margins fit on ``paper``."""
    _, pw, ph = PAPERS[paper]
    return round(min((pw - 2 * MARGIN_MIN - COLS * CARD_W) / (2 * COLS),
                     (ph - 2 * MARGIN_MIN - ROWS * CARD_H) / (2 * ROWS)), 2)


def _check_paper(paper, bleed):
    if paper not in PAPERS:
        raise PrintError(f"No paper called {paper!r}. Papers: {', '.join(PAPERS)}.")
    if bleed < 0:
        raise PrintError("--bleed cannot be negative.")
    most = max_bleed(paper)
    if bleed > most + 1e-9:
        raise PrintError(f"A bleed of {bleed:g} mm does not fit nine {CARD_W:g} x {CARD_H:g} mm "
                         f"cards on {PAPERS[paper][0]} with {MARGIN_MIN:g} mm margins: at most "
                         f"{most:g} mm.")


# -- cards ---------------------------------------------------------------------------------------

def render_cards(ps, out, paper="a4", bleed=0.0, duplex="long") -> Report:
    """Write the card sheets of ``ps`` to ``out`` (a path or a binary file)."""
    _check_paper(paper, bleed)
    if duplex not in ("long", "short"):
        raise PrintError("--duplex is long (flip on the long edge) or short.")
    report = Report(str(out) if not isinstance(out, io.IOBase) else "(stream)")
    faces = ps.faces()
    report.faces = len(faces)
    version = qr.version_for([f.code for f in faces]) if faces else 1
    report.qr_version = version
    report.module_mm = qr.check_box(QR_BOX, version, "a card")
    pdf = _Pdf(out, ps, report, paper)
    grid = _Grid(pdf, bleed)
    first = True
    for deck in ps.decks:
        sheets = [deck.faces[i:i + COLS * ROWS] for i in range(0, len(deck.faces), COLS * ROWS)]
        report.sheets.append((deck.title, len(sheets)))
        for n, sheet in enumerate(sheets, 1):
            if not first:
                pdf.next_page()
            first = False
            report.front_pages.append(pdf.page)
            for i, face in enumerate(sheet):
                x, y = grid.trim(i % COLS, i // COLS)
                _draw_face(pdf, face, x, y, version)
            grid.marks()
            mid_x = grid.trim(1, 0)[0]
            pdf.header(f"{ps.title}: {deck.title} {n}/{len(sheets)}, faces",
                       grid.top, mid_x + CARD_W * mm / 2, CARD_W * mm - 4 * mm)
            pdf.next_page()
            for i in range(len(sheet)):
                col, row = i % COLS, i // COLS
                if duplex == "long":
                    col = COLS - 1 - col
                else:
                    row = ROWS - 1 - row
                x, y = grid.trim(col, row)
                _draw_back(pdf, deck.back, ps, x, y, grid.bleed)
            pdf.header(f"{deck.title} {n}/{len(sheets)}, backs ({duplex}-edge flip)", grid.top,
                       mid_x + CARD_W * mm / 2, CARD_W * mm - 4 * mm)
    if ps.tokens:
        _draw_tokens(pdf, ps, first, duplex)
    pdf.save()
    return report


def _draw_face(pdf, f, x, y, version):
    c = pdf.c
    W, H = CARD_W * mm, CARD_H * mm
    what = f"{f.name} ({f.card_id})"
    accent = _rgb(f.accent)
    ink = _ink(f.accent)
    c.saveState()
    c.setStrokeColor(accent)
    c.setLineWidth(0.8)
    c.roundRect(x + 2 * mm, y + 2 * mm, W - 4 * mm, H - 4 * mm, 2.5 * mm, stroke=1, fill=0)
    # header band: kind, name, and the C/M/Y/K badge
    hx, htop, hw, hh = x + SAFE * mm, y + H - SAFE * mm, W - 2 * SAFE * mm, 15 * mm
    c.setFillColor(accent)
    c.roundRect(hx, htop - hh, hw, hh, 1.8 * mm, stroke=0, fill=1)
    badge_w = 12.5 * mm if f.corner else 0
    tx, tw = hx + 2 * mm, hw - 4 * mm - badge_w
    kind = f.kind.upper()
    if f.bolt:
        _bolt(c, tx, htop - 5 * mm, 3.2 * mm, ink)
        pdf.block(f"{what}: kind", kind, BOLD, tx + 3.2 * mm, htop - 5 * mm, tw - 3.2 * mm,
                  3.6 * mm, 7, max_lines=1, colour=ink)
    else:
        pdf.block(f"{what}: kind", kind, BOLD, tx, htop - 5 * mm, tw, 3.6 * mm, 7, max_lines=1,
                  colour=ink)
    pdf.block(f"{what}: name", f.name, BOLD, tx, htop - hh + 1.2 * mm, tw, 8.6 * mm, 12, 7,
              max_lines=2, colour=ink)
    if f.corner:
        _corner(pdf, f.corner, hx + hw - badge_w, htop - hh, badge_w, hh, ink, what)
    cursor = htop - hh - 1.2 * mm
    if f.subtitle:
        pdf.block(f"{what}: subtitle", f.subtitle, ITALIC, hx, cursor - 3.6 * mm, hw, 3.6 * mm,
                  8, max_lines=1)
        cursor -= 4.4 * mm
    if f.stats:
        cursor = _stats(pdf, f.stats, hx, cursor, hw, what) - 1.2 * mm
    # the bottom zone: QR code, and beside it rarity, copy, deck, version, id
    qx, qy = x + SAFE * mm, y + SAFE * mm
    m = qr.draw(c, f.code, qx, qy, QR_BOX * mm, version)
    pdf.report.qrs.append(QRMark(pdf.page, f.code, qx, qy, QR_BOX * mm, m, (x, y, W, H)))
    _side(pdf, f, qx + QR_BOX * mm + 1.8 * mm, qy, W - 2 * SAFE * mm - QR_BOX * mm - 1.8 * mm,
          QR_BOX * mm, what)
    # notes just above the bottom zone; rules text and flavour between the stats and them
    bottom = qy + QR_BOX * mm + 1.5 * mm
    tx, tw = hx + 0.6 * mm, hw - 1.2 * mm
    for i, note in reversed(list(enumerate(f.notes))):
        nf = pdf.block(f"{what}: note {i + 1}", note, REGULAR, tx, bottom,
                       tw, max(0.0, cursor - bottom), 6.5, max_lines=2,
                       colour=HexColor("#222222"), valign="bottom")
        bottom += nf.height + 0.4 * mm
    _rules(pdf, f, tx, bottom + 0.8 * mm, tw, cursor - bottom - 0.8 * mm, what)
    c.restoreState()


def _rules(pdf, f, x, y, w, h, what):
    """The rules text as large as fits (9 pt down to 6 pt), then the flavour text below it in
    what room is left. The rules text gives up size for the flavour only down to 7 pt; below
    that the flavour is left off (and reported), never the rules."""
    text, flavour = f.text.strip(), f.flavour.strip()
    if not text and not flavour:
        return
    if h <= 0:
        raise PrintError(f"{what}: the name, numbers and notes leave no room for the rules "
                         f"text. Shorten them in the data.")
    gap = 1.6 * mm
    text_c = clean(text, f"{what}: rules text") if text else ""
    flav_c = clean(flavour, f"{what}: flavour text", ITALIC) if flavour else ""
    chosen = None
    if flav_c:
        size = 9.0
        while size >= 7.0 - 1e-9:
            a = fit(text_c, REGULAR, w, h, size, size) if text_c else None
            if text_c and a is None:
                size = round(size - 0.25, 2)
                continue
            room = h - (a.height + gap if a else 0)
            b = fit(flav_c, ITALIC, w, room, min(size - 1, 7.5), MIN_PT) if room > 0 else None
            if b is not None:
                chosen = (a, b)
                break
            size = round(size - 0.25, 2)
    top = y + h
    if chosen is None:
        if flav_c:
            pdf.report.dropped_flavour.append(f.card_id)
        if text_c:
            pdf.block(f"{what}: rules text", text_c, REGULAR, x, y, w, h, 9.0)
        return
    a, b = chosen
    if a is not None:
        pdf.block(f"{what}: rules text", text_c, REGULAR, x, top - a.height, w, a.height,
                  a.size, a.size)
        top -= a.height + gap
    pdf.block(f"{what}: flavour text", flav_c, ITALIC, x, top - b.height, w, b.height,
              b.size, b.size, colour=HexColor("#444444"))


def _stats(pdf, stats, x, top, w, what):
    """Chips (label over value) flowing in rows; returns the y below the last row."""
    c = pdf.c
    pad, gap, ch = 1.4 * mm, 1.2 * mm, 7.6 * mm
    lsize, vsize, sw = 6.0, 8.5, 2.6 * mm
    chips = []
    for s in stats:
        label = clean(s.label, f"{what}: {s.label}")
        value = clean(s.value, f"{what}: {s.label}")
        vs = vsize
        extra = (sw + 0.8 * mm) if s.swatch else 0
        inner = max(width(label, REGULAR, lsize), width(value, BOLD, vs) + extra)
        while inner + 2 * pad > w and vs > MIN_PT:
            vs -= 0.25
            inner = max(width(label, REGULAR, lsize), width(value, BOLD, vs) + extra)
        if inner + 2 * pad > w:
            raise PrintError(f"{what}: {s.label} {s.value!r} is too long for the card.")
        chips.append((s, label, value, vs, inner + 2 * pad + 0.5, extra))
    cx, cy = x, top - ch
    for s, label, value, vs, cw, extra in chips:
        if cx > x and cx + cw > x + w:
            cx, cy = x, cy - ch - gap
        c.setFillColor(HexColor("#F1F1F1"))
        c.setStrokeColor(HexColor("#BBBBBB"))
        c.setLineWidth(0.4)
        c.roundRect(cx, cy, cw, ch, 1.2 * mm, stroke=1, fill=1)
        pdf.block(f"{what}: {s.label} (label)", label, REGULAR, cx + pad, cy + ch - 3.0 * mm,
                  cw - 2 * pad, 2.6 * mm, lsize, lsize, max_lines=1,
                  colour=HexColor("#444444"))
        vx = cx + pad
        if s.swatch:
            c.setFillColor(_rgb(s.swatch))
            c.setStrokeColor(HexColor("#333333"))
            c.circle(vx + sw / 2, cy + 2.45 * mm, sw / 2, stroke=1, fill=1)
            vx += extra
        pdf.block(f"{what}: {s.label}", value, BOLD, vx, cy + 0.6 * mm, cw - 2 * pad - extra,
                  4.0 * mm, vs, vs, max_lines=1)
        cx += cw + gap
    return cy


def _side(pdf, f, x, y, w, h, what):
    """Beside the QR code: rarity and copy at the top; the deck, the data version and the
    card's id at the bottom."""
    c = pdf.c
    items = []
    if f.rarity:
        items.append(("rarity", f.rarity.title(), BOLD, 7.5))
    items.append(("copy", f"Copy {f.copy} of {f.copies}", REGULAR, 7.0))
    tail = [("deck", f.deck, ITALIC, 6.5), ("version", pdf.ps.version, REGULAR, 6.0),
            ("id", f.card_id, REGULAR, 6.0)]
    for shrink in [i * 0.25 for i in range(0, 7)]:
        fits = []
        total = 0.0
        for key, text, font, size in items + tail:
            s = max(MIN_PT, size - shrink)
            tx = clean(text, f"{what}: {key}", font)
            ww = w - (3.6 * mm if key == "rarity" else 0)
            r = fit(tx, font, ww, 10 * h, s, s)
            fits.append((key, tx, font, r, ww))
            total += r.height + 0.5 * mm
        if total <= h + 1e-6:
            break
    else:
        raise PrintError(f"{what}: the lines beside the QR code do not fit (shorten the deck "
                         f"title, the version or the card's id in the data).")
    top = y + h
    for key, tx, font, r, ww in fits:
        if key in ("deck", "version", "id"):
            continue
        if key == "rarity":
            _rarity_shape(c, f.rarity, x + 1.4 * mm, top - r.size * 0.42, 1.4 * mm)
            pdf.block(f"{what}: {key}", tx, font, x + 3.6 * mm, top - r.height, ww, r.height,
                      r.size, r.size)
        else:
            pdf.block(f"{what}: {key}", tx, font, x, top - r.height, ww, r.height, r.size,
                      r.size, colour=HexColor("#222222"))
        top -= r.height + 0.5 * mm
    bottom = y
    for key, tx, font, r, ww in reversed([t for t in fits if t[0] in ("deck", "version",
                                                                         "id")]):
        pdf.block(f"{what}: {key}", tx, font, x, bottom, ww, r.height, r.size, r.size,
                  colour=HexColor("#555555"))
        bottom += r.height + 0.5 * mm


def _rarity_shape(c, rarity, cx, cy, r):
    """Common: a circle; uncommon: a diamond; rare: a star (shape and word, never colour)."""
    c.saveState()
    c.setFillColor(HexColor("#222222"))
    if rarity == "common":
        c.circle(cx, cy, r * 0.85, stroke=0, fill=1)
    else:
        import math
        p = c.beginPath()
        if rarity == "uncommon":
            pts = [(cx, cy + r), (cx + r, cy), (cx, cy - r), (cx - r, cy)]
        else:
            pts = []
            for k in range(10):
                a = math.pi / 2 + k * math.pi / 5
                rr = r * 1.1 if k % 2 == 0 else r * 0.45
                pts.append((cx + rr * math.cos(a), cy + rr * math.sin(a)))
        p.moveTo(*pts[0])
        for pt in pts[1:]:
            p.lineTo(*pt)
        p.close()
        c.drawPath(p, stroke=0, fill=1)
    c.restoreState()


def _bolt(c, x, y, size, colour):
    """A lightning bolt (Trade Warz Tactics) in the square (x, y) .. (+size)."""
    pts = [(0.55, 1.0), (0.15, 0.45), (0.45, 0.45), (0.3, 0.0), (0.85, 0.6), (0.55, 0.6),
           (0.75, 1.0)]
    c.saveState()
    c.setFillColor(colour)
    p = c.beginPath()
    p.moveTo(x + pts[0][0] * size * 0.8, y + pts[0][1] * size * 0.9)
    for px, py in pts[1:]:
        p.lineTo(x + px * size * 0.8, y + py * size * 0.9)
    p.close()
    c.drawPath(p, stroke=0, fill=1)
    c.restoreState()


def _corner(pdf, corner, x, y, w, h, ink, what):
    """The C/M/Y/K badge: ring colour, fill colour, the letter, and the name under it."""
    c = pdf.c
    r = 4.0 * mm
    cx, cy = x + w / 2, y + h - 1.0 * mm - r
    c.saveState()
    c.setFillColor(HexColor("#FFFFFF"))
    c.circle(cx, cy, r + 0.7 * mm, stroke=0, fill=1)
    c.setFillColor(_rgb(corner.fill))
    c.setStrokeColor(_rgb(corner.ring))
    c.setLineWidth(1.1 * mm)
    c.circle(cx, cy, r - 0.55 * mm, stroke=1, fill=1)
    c.restoreState()
    size = 12
    c.setFont(BOLD, size)
    c.setFillColor(_rgb(corner.ink))
    c.drawCentredString(cx, cy - size * 0.36, corner.letter)
    pdf.block(f"{what}: upkeep name", corner.name, BOLD, x, y + 0.6 * mm, w,
              h - 2 * r - 2.4 * mm, 7, MIN_PT, max_lines=1, colour=ink, align="center")


def _draw_back(pdf, back, ps, x, y, bleed):
    c = pdf.c
    W, H = CARD_W * mm, CARD_H * mm
    colour = _rgb(back.colour)
    ink = _ink(back.colour)
    c.saveState()
    c.setFillColor(colour)
    c.rect(x - bleed, y - bleed, W + 2 * bleed, H + 2 * bleed, stroke=0, fill=1)
    # a quiet diagonal texture, lighter than the colour, inside the frame (a miscut edge
    # shows only plain colour)
    p = c.beginPath()
    p.roundRect(x + 4 * mm, y + 4 * mm, W - 8 * mm, H - 8 * mm, 3 * mm)
    c.clipPath(p, stroke=0, fill=0)
    c.setStrokeColorRGB(*_lighter(back.colour, 0.12))
    c.setLineWidth(1.2 * mm)
    step = 6 * mm
    k = -H
    while k < W:
        c.line(x + k, y, x + k + H, y + H)
        k += step
    c.restoreState()
    c.saveState()
    c.setStrokeColor(ink)
    c.setLineWidth(0.8 * mm)
    c.roundRect(x + 4 * mm, y + 4 * mm, W - 8 * mm, H - 8 * mm, 3 * mm, stroke=1, fill=0)
    c.restoreState()
    what = f"the back of {back.title}"
    inner_x, inner_w = x + 7 * mm, W - 14 * mm
    pdf.block(f"{what}: game", ps.title.upper(), BOLD, inner_x, y + H - 16 * mm, inner_w,
              8 * mm, 10, 7, max_lines=1, colour=ink, align="center")
    pdf.block(f"{what}: title", back.title, BOLD, inner_x, y + 30 * mm, inner_w, 28 * mm, 22,
              10, max_lines=3, colour=ink, align="center")
    if back.subtitle:
        pdf.block(f"{what}: subtitle", back.subtitle, REGULAR, inner_x, y + 22 * mm, inner_w,
                  7 * mm, 10, 7, max_lines=1, colour=ink, align="center")
    pdf.block(f"{what}: colour", f"{back.colour_name} back", REGULAR, inner_x, y + 8 * mm,
              inner_w, 4 * mm, 7.5, MIN_PT, max_lines=1, colour=ink, align="center")


def _draw_tokens(pdf, ps, first, duplex):
    """Token squares in a grid with cut marks; after each page, the same tokens mirrored, so
    a double-sided print gives tokens that read from both sides."""
    tokens = [t for t, n in ps.tokens for _ in range(n)]
    size = TOKEN * mm
    cols = int((pdf.pw - 2 * MARGIN_MIN * mm) / size + 1e-6)
    rows = int((pdf.ph - 2 * MARGIN_MIN * mm - 6 * mm) / size + 1e-6)
    per = cols * rows
    left = (pdf.pw - cols * size) / 2
    pages = [tokens[i:i + per] for i in range(0, len(tokens), per)]
    pdf.report.sheets.append((ps.token_title, len(pages)))
    for page in pages:
        used_rows = (len(page) + cols - 1) // cols
        top = pdf.ph - (pdf.ph - rows * size) / 2
        for side in ("faces", "backs"):
            if not first:
                pdf.next_page()
            first = False
            if side == "faces":
                pdf.report.front_pages.append(pdf.page)
            for i, t in enumerate(page):
                col, row = i % cols, i // cols
                if side == "backs":
                    if duplex == "long":
                        col = cols - 1 - col
                    else:
                        row = rows - 1 - row
                _token(pdf, t, left + col * size, top - (row + 1) * size, size)
            if side == "faces":
                xs = [left + k * size for k in range(cols + 1)]
                ys = [top - k * size for k in range(used_rows + 1)]
                pdf.cut_marks(xs, ys, left, top - used_rows * size, left + cols * size, top)


def _token(pdf, t, x, y, size):
    c = pdf.c
    c.saveState()
    c.setFillColor(_rgb(t.colour))
    c.setStrokeColor(HexColor("#999999"))
    c.setLineWidth(0.3)
    c.rect(x, y, size, size, stroke=1, fill=1)
    c.restoreState()
    what = f"the {t.name} token"
    pad = 1.3 * mm
    w = size - 2 * pad
    pdf.block(f"{what}: name", t.name, BOLD, x + pad, y + size - pad - 3.2 * mm, w, 3.2 * mm,
              7.5, MIN_PT, max_lines=1, align="center")
    pdf.block(f"{what}: value", t.big, BOLD, x + pad, y + 7.4 * mm, w, 6.6 * mm, 16, 10,
              max_lines=1, align="center")
    pdf.block(f"{what}: first", t.small, REGULAR, x + pad, y + 3.6 * mm, w, 3.6 * mm, 8.5,
              MIN_PT, max_lines=1, align="center")
    pdf.block(f"{what}: line", t.line, REGULAR, x + pad, y + pad * 0.6, w, 2.9 * mm, 6,
              MIN_PT, max_lines=1, align="center", colour=HexColor("#333333"))


# -- stickers ----------------------------------------------------------------------------------

def render_stickers(ps, out, layout) -> Report:
    """Write QR labels (name, copy, code) for every face of ``ps`` on label sheet ``layout``."""
    sheet = LABEL_SHEETS.get(layout)
    if sheet is None:
        raise PrintError(f"No label sheet called {layout!r}. Label sheets: "
                         + "; ".join(f"{s.key} ({s.title}: {s.products})"
                                     for s in LABEL_SHEETS.values()) + ".")
    report = Report(str(out) if not isinstance(out, io.IOBase) else "(stream)")
    faces = ps.faces()
    report.faces = len(faces)
    version = qr.version_for([f.code for f in faces]) if faces else 1
    report.qr_version = version
    pad = 1.2 * mm
    box = min(sheet.h * mm - 2 * pad, sheet.w * mm * 0.55)
    report.module_mm = qr.check_box(box / mm, version, f"a {sheet.key} label")
    pdf = _Pdf(out, ps, report, sheet.paper)
    for i, f in enumerate(faces):
        k = i % sheet.per_page
        if i and k == 0:
            pdf.next_page()
        if k == 0:
            report.front_pages.append(pdf.page)
        col, row = k % sheet.cols, k // sheet.cols
        lx = sheet.left * mm + col * sheet.pitch_x * mm
        ly = pdf.ph - sheet.top * mm - row * sheet.pitch_y * mm - sheet.h * mm
        _label(pdf, f, lx, ly, sheet, pad, box, version)
    pdf.save()
    return report


def _label(pdf, f, x, y, sheet, pad, box, version):
    lw, lh = sheet.w * mm, sheet.h * mm
    qx, qy = x + pad, y + (lh - box) / 2
    m = qr.draw(pdf.c, f.code, qx, qy, box, version)
    pdf.report.qrs.append(QRMark(pdf.page, f.code, qx, qy, box, m, (x, y, lw, lh)))
    tx = qx + box + 0.8 * mm
    tw = x + lw - pad - tx
    th = lh - 2 * pad
    what = f"the label of {f.name} ({f.card_id}) copy {f.copy}"
    name = clean(f.name, what, BOLD)
    copy_line = f"Copy {f.copy} of {f.copies}"
    reserve = MIN_PT * 1.2 + 0.4 * mm            # at least the copy line under the name
    n = fit(name, BOLD, tw, th - reserve, 9.0, MIN_PT, max_lines=5)
    if n is None:
        raise PrintError(f"{what}: the card name does not fit a {sheet.key} label even at "
                         f"{MIN_PT:g} pt. Use a larger label sheet, or a shorter name.")
    top = y + lh - pad
    pdf.block(f"{what}: name", name, BOLD, tx, top - n.height, tw, n.height, n.size, n.size)
    top -= n.height + 0.4 * mm
    room = th - n.height - 0.4 * mm
    for text, font in ((copy_line, REGULAR), (f.deck, ITALIC), (pdf.ps.version, REGULAR)):
        text = clean(text, what, font)
        r = fit(text, font, tw, room, MIN_PT + 0.5, MIN_PT, max_lines=2)
        if r is None:
            break                       # the deck and version are left off a small label
        pdf.block(f"{what}: line", text, font, tx, top - r.height, tw, r.height, r.size,
                  r.size, colour=HexColor("#333333"))
        top -= r.height
        room -= r.height
