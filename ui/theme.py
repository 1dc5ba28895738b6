"""Colours and sizes of the table screen. Plain values (no Kivy import), used from .kv files
through ``#:import T ui.theme`` and from Python.

Everything is designed at 800x480 (the official 7" display) in *units*; the app multiplies
by ``app.u`` = min(width / 800, height / 480), so 1280x720 and 1920x1080 get the same layout,
bigger. Colour is never the only cue: every colour shown is paired with a letter or a name.
"""


def rgba(hex_colour: str, alpha: float = 1.0) -> tuple:
    h = hex_colour.lstrip("#")
    return tuple(int(h[i:i + 2], 16) / 255 for i in (0, 2, 4)) + (alpha,)


BG = rgba("#0f1317")
PANEL = rgba("#1a2028")
PANEL_HI = rgba("#252e3a")
LINE = rgba("#3a4554")
TEXT = rgba("#f2f4f6")
MUTED = rgba("#a3afbd")
DIM = rgba("#66717e")
ACCENT = rgba("#3fa7ff")
ACCENT_DIM = rgba("#1d4f7a")
OK = rgba("#3ecf8e")
WARN = rgba("#ffb020")
DANGER = rgba("#ff5a5f")
BLACK = rgba("#000000")
WHITE = rgba("#ffffff")

# Seat colours: the Okabe-Ito palette (distinguishable with the common colour-vision
# deficiencies) plus a light grey; always shown with the player's name.
SEATS = [rgba(c) for c in ("#E69F00", "#56B4E9", "#009E73", "#F0E442", "#0072B2",
                           "#D55E00", "#CC79A7", "#BBBBBB")]


def seat_colour(seat: int) -> tuple:
    return SEATS[seat % len(SEATS)]


def text_on(colour) -> tuple:
    """Black or white text, whichever reads better on ``colour``."""
    r, g, b = colour[:3]
    return BLACK if (0.299 * r + 0.587 * g + 0.114 * b) > 0.55 else WHITE


# Upkeep steps of Trade Warz / Tariff Warz (DESIGN.md): ring colour, fill colour, letter, name.
UPKEEP = {
    "C": {"letter": "C", "name": "Canary", "ring": rgba("#00B7EB"), "fill": rgba("#FFE34D"),
          "scope": "global effects"},
    "M": {"letter": "M", "name": "Mint", "ring": rgba("#E4007C"), "fill": rgba("#98FFCC"),
          "scope": "personal effects"},
    "Y": {"letter": "Y", "name": "Yeti", "ring": rgba("#FFE600"), "fill": rgba("#C9F1FF"),
          "scope": "effects on opponents"},
    "K": {"letter": "K", "name": "Kraken", "ring": rgba("#000000"), "fill": rgba("#7B3FA0"),
          "scope": "trading-partner effects"},
}

# Great Powers token colours (rulebook: White VP, Black Industry, Green Population, Red
# Nationalism, Blue Navy, Brown Army, Yellow Colony), with a short name for the header.
GP_TOKENS = {
    "vp": ("VP", "VP", rgba("#f5f5f5")),
    "industry": ("Ind", "Industry", rgba("#1c1c1c")),
    "population": ("Pop", "Population", rgba("#2e9e44")),
    "nationalism": ("Nat", "Nationalism", rgba("#d93a3a")),
    "navy": ("Navy", "Navy", rgba("#2f6fd6")),
    "army": ("Army", "Army", rgba("#8b5a2b")),
    "colony": ("Col", "Colony", rgba("#f2c300")),
}

FONT = "Roboto"
FONT_BOLD = "Roboto-Bold"
FONT_SYM = "DejaVuSans"          # ships with Kivy: has the check mark, arrows and dots
FONT_MONO = "RobotoMono-Regular"

# Signs Roboto does not have (it draws them as empty boxes): a label in Roboto that shows one
# takes markup from ``sym`` so the sign comes from FONT_SYM.
SYMBOLS = frozenset("\u2713\u2717\u26a0\u25b6\u25a0\u25cf\u2605\u2190\u2192\u2191\u2193\u232b")


def sym(text: str) -> str:
    """``text`` as Kivy markup (set ``markup: True``), its signs drawn in FONT_SYM."""
    out = []
    for ch in text or "":
        esc = {"&": "&amp;", "[": "&bl;", "]": "&br;"}.get(ch, ch)
        out.append(f"[font={FONT_SYM}]{esc}[/font]" if ch in SYMBOLS else esc)
    return "".join(out)

# Type sizes in units (x app.u). Nothing a player reads is smaller than SIZE_MIN (18 px on the
# 800x480 screen): the table is read at arm's length (tests/ui/harness.py checks every label).
SIZE_MIN = 18
SIZE_SMALL = 18
SIZE_BODY = 20
SIZE_TITLE = 24
SIZE_BIG = 40
SIZE_HUGE = 150                  # the trade timer: readable from across the table


TONES = {
    "normal": (PANEL_HI, TEXT),
    "primary": (rgba("#2d8fe6"), WHITE),
    "ok": (rgba("#2fb37a"), BLACK),
    "warn": (WARN, BLACK),
    "danger": (rgba("#d9464b"), WHITE),
    "ghost": (rgba("#000000", 0.0), TEXT),
    "selected": (ACCENT_DIM, WHITE),
}


def tone_bg(tone: str, selected: bool = False) -> tuple:
    return TONES["selected" if selected else tone][0] if (selected or tone in TONES) \
        else TONES["normal"][0]


def tone_fg(tone: str, selected: bool = False) -> tuple:
    return TONES["selected" if selected else tone][1] if (selected or tone in TONES) \
        else TONES["normal"][1]


def with_alpha(colour, alpha) -> tuple:
    return tuple(colour[:3]) + (alpha,)


BANNER = {"warn": (WARN, rgba("#3a2c0c")), "danger": (DANGER, rgba("#3d1416")),
          "info": (ACCENT, rgba("#10273b")), "ok": (OK, rgba("#0f3324"))}


def banner_strip(tone):
    return BANNER.get(tone, BANNER["warn"])[0]


def banner_bg(tone):
    return BANNER.get(tone, BANNER["warn"])[1]


TIMER_COLOURS = {"running": TEXT, "warning": WARN, "paused": MUTED, "done": DANGER,
                 "ready": MUTED, "": TEXT}


def timer_colour(mode):
    return TIMER_COLOURS.get(mode, TEXT)


def lw(width, visible) -> float:
    """A Line width that keeps Kivy off its slow path: a thick line in a colour that is not
    fully opaque is drawn through the stencil buffer, which costs a frame dearly on a
    software renderer. Invisible outlines are drawn 1 px wide (plain GL lines) instead."""
    return width if visible else 1.0
