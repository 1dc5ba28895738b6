"""Each game's cards printed once per test run (the PDFs are shared by the tests here)."""
import pytest

from companion.printing import print_set, render_cards

RUNS = [("trade-warz", "trade", "a4"), ("trade-warz", "tariff", "letter"),
        ("great-powers", None, "a4"), ("battle-builder", None, "a4"),
        ("market-trading", None, "letter")]


class Printed:
    def __init__(self, ps, report, path, paper):
        self.ps, self.report, self.path, self.paper = ps, report, path, paper


@pytest.fixture(scope="session")
def printed(tmp_path_factory):
    """``{(game, edition): Printed}``: the shipped data of every game and edition, printed."""
    folder = tmp_path_factory.mktemp("printed")
    out = {}
    for game, edition, paper in RUNS:
        ps = print_set(game, edition)
        path = folder / f"{game}-{edition or 'all'}.pdf"
        out[game, edition] = Printed(ps, render_cards(ps, path, paper=paper), path, paper)
    return out
