"""What the table's lights and buzzer mean: pure data, no GPIO (the screen may import it too).

* :data:`UPKEEP_CUES`: the C/M/Y/K upkeep cues of Trade Warz / Tariff Warz, each with its
  letter, name, what it resolves, and its ring and fill colours. Always show the letter and the
  name beside the colour, for colour-blind players.
* :data:`PATTERNS`: the buzzer's named patterns as (on offset, duration) pairs in seconds, plus
  the ``anchor``: the offset of the moment the pattern marks (the reveal, the 0:00), so
  ``play(name, at=moment)`` lands that edge exactly on the moment.
"""
from dataclasses import dataclass


@dataclass(frozen=True)
class UpkeepCue:
    letter: str
    name: str
    resolves: str
    ring: tuple
    fill: tuple


UPKEEP_CUES = {
    "C": UpkeepCue("C", "Canary", "global effects", ring=(0, 255, 255), fill=(255, 220, 0)),
    "M": UpkeepCue("M", "Mint", "personal effects", ring=(255, 0, 255), fill=(62, 180, 137)),
    "Y": UpkeepCue("Y", "Yeti", "opponent-targeting effects", ring=(255, 255, 0),
                   fill=(165, 242, 243)),
    "K": UpkeepCue("K", "Kraken", "trading-partner effects", ring=(0, 0, 0),
                   fill=(128, 0, 255)),
}


@dataclass(frozen=True)
class Pattern:
    name: str
    beeps: tuple          # ((on offset s, duration s), ...), sorted, not overlapping
    anchor: float = 0.0   # offset of the moment the pattern marks
    hz: int = 2700        # tone for passive buzzers
    doc: str = ""

    def edges(self, anchor_at: float):
        """``[(time, on?)...]`` in order, for the pattern's anchor at ``anchor_at``."""
        start = anchor_at - self.anchor
        out = []
        for off, dur in self.beeps:
            out.append((start + off, True))
            out.append((start + off + dur, False))
        return out


PATTERNS = {
    "reveal": Pattern("reveal", ((0.0, 0.12), (1.0, 0.12), (2.0, 0.12), (3.0, 0.6)), anchor=3.0,
                      hz=2700, doc="3, 2, 1 short beeps one second apart, then a long one "
                                   "on the reveal"),
    "warning": Pattern("warning", ((0.0, 0.06), (0.12, 0.06)), hz=3200,
                       doc="the 0:30 warning chirp: two quick chirps"),
    "timeout": Pattern("timeout", ((0.0, 1.2),), hz=2000, doc="the 0:00 buzzer: 1.2 s"),
    "error": Pattern("error", ((0.0, 0.04),), hz=1500, doc="an error blip (bad scan, refused)"),
    "tick": Pattern("tick", ((0.0, 0.01),), hz=3000, doc="a 10 ms click (optional countdown)"),
    "ok": Pattern("ok", ((0.0, 0.03), (0.08, 0.03)), hz=3000, doc="a scan was accepted"),
}
