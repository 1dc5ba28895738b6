"""QR codes for card codes, made with ``qrcode`` and drawn as vectors.

Every code of one print run uses the same QR version (the smallest that holds the run's
longest code in byte mode at error correction level M), so every card has the same module
size. The symbol is drawn as one filled path of rectangles (one per run of dark modules in a
row: no seams between modules at any resolution) on a white square that includes the
4-module quiet zone the QR standard asks for. docs/printing.md says why M and these sizes.
"""
import functools

import qrcode
from qrcode.constants import ERROR_CORRECT_M

from .model import PrintError

QUIET = 4                       # modules of white around the symbol (ISO/IEC 18004)
ECC = ERROR_CORRECT_M
ECC_NAME = "M (15 % of the symbol can be restored)"
MIN_MODULE_MM = 0.4             # below this a GM65-class reader gets unreliable at arm's length


def modules(version: int) -> int:
    return 17 + 4 * version


def version_for(codes) -> int:
    """The smallest QR version (level M, byte mode) that holds every code."""
    longest = max(codes, key=lambda c: len(c.encode("utf-8")))
    q = qrcode.QRCode(error_correction=ECC, border=0)
    q.add_data(longest, optimize=0)
    q.make(fit=True)
    return q.version


@functools.lru_cache(maxsize=4096)
def matrix(code: str, version: int) -> tuple:
    """Rows of booleans (True = dark), without the quiet zone. (Cached: qrcode tries all
    eight masks for the most readable one, about 25 ms a code.)"""
    q = qrcode.QRCode(version=version, error_correction=ECC, border=0)
    q.add_data(code, optimize=0)
    q.make(fit=False)
    return tuple(tuple(row) for row in q.get_matrix())


def module_mm(box_mm: float, version: int) -> float:
    """The module size when the symbol and its quiet zone fill a square of ``box_mm``."""
    return box_mm / (modules(version) + 2 * QUIET)


def check_box(box_mm: float, version: int, what: str):
    m = module_mm(box_mm, version)
    if m < MIN_MODULE_MM - 1e-9:
        raise PrintError(
            f"The card codes need QR version {version} ({modules(version)} modules), which "
            f"makes {m:.2f} mm modules in the {box_mm:g} mm square of {what}: too small to "
            f"scan reliably (at least {MIN_MODULE_MM} mm). Use shorter card ids or a larger "
            f"label sheet.")
    return m


def draw(canvas, code: str, x: float, y: float, box: float, version: int):
    """Draw ``code`` in the square (``x``, ``y``) .. (+``box``) in points: white, quiet zone,
    symbol. Returns the module size in points."""
    rows = matrix(code, version)
    n = len(rows)
    m = box / (n + 2 * QUIET)
    canvas.saveState()
    canvas.setFillColorRGB(1, 1, 1)
    canvas.rect(x, y, box, box, stroke=0, fill=1)
    canvas.setFillColorRGB(0, 0, 0)
    path = canvas.beginPath()
    x0, top = x + QUIET * m, y + box - QUIET * m
    for r, row in enumerate(rows):
        c = 0
        while c < n:
            if row[c]:
                start = c
                while c < n and row[c]:
                    c += 1
                path.rect(x0 + start * m, top - (r + 1) * m, (c - start) * m, m)
            else:
                c += 1
    canvas.drawPath(path, stroke=0, fill=1)
    canvas.restoreState()
    return m
