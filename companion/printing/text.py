"""Fonts and fitting text into boxes.

The fonts are Bitstream Vera (regular, bold, oblique), the TrueType files that ship inside the
reportlab package itself (``reportlab/fonts/Vera*.ttf``), embedded (subset) in every PDF: the
output is the same on every machine, whatever fonts it has. Vera covers Latin-1 and common
typography; a character it lacks is replaced where a plain one means the same (arrows, stars),
otherwise the print stops with a sentence naming the card.

:func:`fit` wraps words (greedy, measuring with reportlab's ``stringWidth``) and tries sizes
from large to small until the lines fit the box; it never returns lines wider or taller than
the box.
"""
import dataclasses
import functools
import os

from .model import PrintError

REGULAR, BOLD, ITALIC = "TC-Vera", "TC-Vera-Bold", "TC-Vera-Oblique"
_FILES = {REGULAR: "Vera.ttf", BOLD: "VeraBd.ttf", ITALIC: "VeraIt.ttf"}
LEADING = 1.2           # line height / font size
SUBSTITUTES = {"\u2192": "->", "\u2190": "<-", "\u2605": "*", "\u26a1": "", "\u2713": "v",
               "\u00ad": "", "\u200b": ""}


@functools.cache
def register() -> dict:
    """Register the three fonts with reportlab (once); ``{font name: file path}``."""
    import reportlab
    from reportlab.pdfbase import pdfmetrics
    from reportlab.pdfbase.ttfonts import TTFont
    folder = os.path.join(os.path.dirname(reportlab.__file__), "fonts")
    out = {}
    for name, file in _FILES.items():
        path = os.path.join(folder, file)
        pdfmetrics.registerFont(TTFont(name, path))
        out[name] = path
    return out


def width(text: str, font: str, size: float) -> float:
    from reportlab.pdfbase import pdfmetrics
    register()
    return pdfmetrics.stringWidth(text, font, size)


@functools.cache
def _glyphs(font: str) -> frozenset:
    from reportlab.pdfbase import pdfmetrics
    register()
    return frozenset(pdfmetrics.getFont(font).face.charToGlyph)


def clean(text: str, where: str, font: str = REGULAR) -> str:
    """``text`` with the replaceable characters replaced; PrintError naming ``where`` for a
    character the font cannot show."""
    text = "".join(SUBSTITUTES.get(c, c) for c in text)
    have = _glyphs(font)
    bad = sorted({c for c in text if ord(c) not in have and c not in "\n"})
    if bad:
        shown = ", ".join(f"{c!r} (U+{ord(c):04X})" for c in bad)
        raise PrintError(f"{where} uses {shown}, which the card font (Bitstream Vera) cannot "
                         f"print. Replace {'it' if len(bad) == 1 else 'them'} in the data.")
    return text


@dataclasses.dataclass(frozen=True)
class Fit:
    size: float
    lines: tuple
    leading: float

    @property
    def height(self) -> float:
        return len(self.lines) * self.leading


def wrap(text: str, font: str, size: float, max_width: float) -> list:
    """Greedy word wrap; a word wider than the box is split after a hyphen, or else between
    characters. Paragraphs
    (``\\n``) start new lines."""
    lines = []
    for para in text.split("\n"):
        line = ""
        for word in para.split():
            trial = f"{line} {word}" if line else word
            if width(trial, font, size) <= max_width:
                line = trial
                continue
            if line:
                lines.append(line)
            while width(word, font, size) > max_width:
                cut = 1
                while cut < len(word) and width(word[:cut + 1], font, size) <= max_width:
                    cut += 1
                hyphen = word.rfind("-", 0, cut)
                if hyphen > 0:
                    cut = hyphen + 1            # break after a hyphen where one fits
                lines.append(word[:cut])
                word = word[cut:]
            line = word
        lines.append(line)
    return lines


def fit(text: str, font: str, box_w: float, box_h: float, max_size: float, min_size: float,
        max_lines: int | None = None, step: float = 0.25) -> Fit | None:
    """The largest size from ``max_size`` down to ``min_size`` at which ``text`` wraps into the
    box (at most ``max_lines`` lines), or None. Sizes in points, box in points. Sizes at which
    every word fits whole on a line are preferred; only when none does is a word split."""
    for split in (False, True):
        # a word has to be split: do it small, where the fewest words need it
        size = min(max_size, min_size + 1.0) if split else max_size
        while size >= min_size - 1e-9:
            lines = wrap(text, font, size, box_w)
            lead = size * LEADING
            whole = split or all(width(w, font, size) <= box_w for w in text.split())
            if whole and (max_lines is None or len(lines) <= max_lines) \
                    and len(lines) * lead <= box_h + 1e-6:
                return Fit(size, tuple(lines), lead)
            size = round(size - step, 4)
    return None
