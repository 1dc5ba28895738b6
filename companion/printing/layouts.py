"""Paper sizes and label sheets: the printing tables the command line offers as choices,
without reportlab (so `companion` starts without loading a PDF library; sheets.py draws)."""
import dataclasses

PAPERS = {"a4": ("A4", 210.0, 297.0), "letter": ("US Letter", 215.9, 279.4)}


@dataclasses.dataclass(frozen=True)
class LabelSheet:
    key: str
    title: str
    paper: str
    cols: int
    rows: int
    w: float                        # label size, mm
    h: float
    left: float                     # from the page's left edge to the first label, mm
    top: float                      # from the page's top edge to the first label, mm
    pitch_x: float                  # from one label's left edge to the next one's, mm
    pitch_y: float
    products: str

    @property
    def per_page(self) -> int:
        return self.cols * self.rows


LABEL_SHEETS = {s.key: s for s in (
    LabelSheet("a4-65", "65 labels of 38.1 x 21.2 mm on A4 (5 x 13)", "a4", 5, 13, 38.1, 21.2,
               4.75, 10.7, 40.6, 21.2, "Avery L7651 / J8651 and compatible"),
    LabelSheet("a4-24", "24 labels of 63.5 x 33.9 mm on A4 (3 x 8)", "a4", 3, 8, 63.5, 33.9,
               7.25, 12.9, 66.0, 33.9, "Avery L7159 / J8159 and compatible"),
    LabelSheet("letter-30", "30 labels of 2 5/8 x 1 in (66.7 x 25.4 mm) on US Letter (3 x 10)",
               "letter", 3, 10, 66.675, 25.4, 4.7625, 12.7, 69.85, 25.4,
               "Avery 5160 / 8160 and compatible"),
)}
