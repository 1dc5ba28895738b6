"""Per-game display adapters: which screen a phase shows, what the score chart plots, how a
game's counters are named. Pure (no Kivy), read only the public view and the public journal.

An adapter never decides a rule. If a screen needs a rule the public view does not carry, the
game's public view is missing something: that is a bug to report, not to reimplement here.

Discovery is by module, like the games: ``ui/adapters/<pkg>.py`` exposing ``ADAPTER`` whose
``game`` is the game's name. A game without one gets :class:`GameUI` (the generic screens).
"""
import dataclasses
import importlib
import pkgutil

from ui import model


@dataclasses.dataclass
class Series:
    seat: int
    name: str
    points: list               # value after each round, in order
    now: float | None = None   # the live value (this round, not yet on the curve)
    short: str = ""            # the name at the line's end on the chart (default: name)


@dataclasses.dataclass
class ScoreData:
    title: str                  # e.g. "Victory points"
    unit: str                   # e.g. "VP"
    series: list                # [Series]
    target: tuple | None = None  # (value, label): a line on the chart, e.g. (50, "50 GDP wins")
    explain: dict = dataclasses.field(default_factory=dict)   # seat -> [line, ...]
    explain_title: str = ""
    rounds: int | None = None    # x axis length


class GameUI:
    """The generic adapter: phase ring, timer, round, scores from the outcome."""
    game = None
    round_word = "Round"
    tabs = ()                    # extra nav tabs: ((screen, label), ...)
    screens = ()                 # extra screens this game uses (see ui.screens registry)

    def route(self, view, acks, journal):
        """The screen for this moment of the game, or None for the generic choice."""
        return None

    def at_end(self, view, acks, journal):
        """The screen of a moment the game's last command made (the final turn's scoring),
        held before the Victory screen until the table has seen it; None: Victory at once."""
        return None

    def moments_now(self, view, journal) -> list:
        """The ack keys of the moments ``route`` would hold on screen now (a reveal, a recap).
        A screen that starts in the middle of a game (a restart, a resumed game) takes them
        as seen: they happened before it, and it shows the game as it is."""
        return []

    def rounds_total(self, view):
        return model.rounds_total(view)

    def title(self, view) -> str:
        return view.get("title") or ""

    def round_text(self, view):
        n, total = view.get("round") or 0, self.rounds_total(view)
        if not n:
            return ""
        return f"{self.round_word} {n} of {total}" if total else f"{self.round_word} {n}"

    def score(self, view, journal=None) -> ScoreData | None:
        o = view.get("outcome")
        if not o:
            return None
        players = view.get("players") or []
        series = [Series(s, players[s], [], o["scores"].get(str(s)))
                  for s in range(len(players))]
        return ScoreData("Score", "", series)

    def counters(self, game) -> list:
        """``[(counter, label, colour or None)]`` for the correction dialog."""
        return [(c, c.upper() if len(c) <= 3 else c.replace("_", " ").capitalize(), None)
                for c in game.counters]

    def counter_value(self, view, seat, counter):
        """The current public value of a counter, or None if the public view does not show it
        (then the dialog does not either: it may be a secret)."""
        return None

    def seat_counters(self, game) -> bool:
        """Whether corrections are per seat (True) or may also be for the table."""
        return True

    def ring(self, game) -> list:
        """``[(phase, label)]`` of the phase ring (default: every phase, declared order)."""
        return model.phase_ring(game)

    def round_info(self, view) -> list:
        """``[(title, text)]`` shown on the Round screen (the event, a reveal, ...)."""
        return []

    def interrupts(self, view) -> bool:
        """Whether the table's question now interrupts what the table was doing (a card
        scanned that nobody asked for): its buttons are drawn apart, never in the place of
        the next action, and that action waits, disabled, where it was."""
        return False

    def table_actions(self, view) -> list:
        """``[(label, callback_name, args)]``: extra table buttons on the Round screen, for a
        table prompt that needs more than Next (``callback_name`` is a screen method or
        ``"move:<name>"`` for a table move with ``args``)."""
        return []

    def timer_rows(self, view) -> list:
        """``[(name, status, colour_key)]`` under the timer, e.g. who is done trading;
        ``colour_key``: ok, muted, accent, warn."""
        return []

    def timer_title(self, name) -> str:
        return model.timer_title(name)

    def timer_idle(self, view) -> str:
        """What the timer screen says when no timer runs yet."""
        return ""

    def timer_start(self, view):
        """``(label, table move)`` that starts the timer by a tap, or None."""
        return None

    def timer_ready(self, view):
        """Seconds the timer will run once started (shown, muted, as its digits until it
        starts), or None: nothing is about to be timed."""
        return None

    def seat_label(self, view, seat) -> str:
        players = view.get("players") or []
        return players[seat] if 0 <= seat < len(players) else f"Seat {seat + 1}"

    def final_notes(self, view) -> dict:
        """``{seat: text}`` shown under each player on the Game over screen (what the game
        revealed at the end, e.g. a secret objective and the points it gave)."""
        return {}

    def lobby_window(self, view):
        """The sealed choice made in the lobby after the start (e.g. a blind Leader pick):
        its public window, or None."""
        return None


_cache = None


def registry() -> dict:
    global _cache
    if _cache is None:
        found = {}
        for info in pkgutil.iter_modules(__path__):
            mod = importlib.import_module(f"{__name__}.{info.name}")
            ad = getattr(mod, "ADAPTER", None)
            if ad is not None and ad.game:
                found[ad.game] = ad
        _cache = found
    return _cache


def adapter_for(game_name) -> GameUI:
    return registry().get(game_name) or GameUI()
