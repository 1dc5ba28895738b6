"""Great Powers on the table screen.

Phase -> screen: Bid -> the Powers board with who has locked; Action -> the bid reveal in
sequence (once per turn, until the table taps Continue), then the action cards; Score (a bonus
choice pending) and the turn's recap -> the score screen; Event with a Great War -> war sides.
"""
from companion.games.great_powers.data import TOKEN_NAMES, TOKENS

from ui import theme
from ui.adapters import GameUI, ScoreData, Series


def turn_recap(notices, turn) -> dict:
    """What the public notices say happened in ``turn`` from its Score phase on: the six
    awards, bonus choices, who peeked (not what), the event and any war."""
    rec = {"turn": turn, "scored": [], "bonuses": [], "peeked": [], "event": None,
           "awarded": None, "picks": [], "war": None, "drawn": []}
    cur = None
    for n in notices:
        k = n.get("kind")
        if k == "PhaseBegan":
            cur = n.get("round")
            continue
        if cur != turn:
            continue
        if k == "Scored":
            rec["scored"].append(n)
        elif k in ("ColonyStolen", "DrawnActionResolved", "BonusDeclined"):
            rec["bonuses"].append(n)
        elif k == "ActionsDrawn":
            rec["drawn"].append(n)
        elif k == "EventPeeked":
            rec["peeked"].append(n)
        elif k == "EventFlipped":
            rec["event"] = n
        elif k == "EventAwarded":
            rec["awarded"] = n
        elif k in ("FoeChosen", "AllyChosen"):
            rec["picks"].append(n)
        elif k in ("WarWon", "WarStalemate"):
            rec["war"] = n
    return rec


class GreatPowersUI(GameUI):
    game = "great-powers"
    round_word = "Turn"
    tabs = (("gp_powers", "Powers"), ("gp_action", "Actions"))
    screens = ("gp_powers", "gp_reveal", "gp_action", "gp_score", "gp_war")

    def route(self, view, acks, journal):
        phase, gv = view.get("phase"), view.get("game_view") or {}
        if phase == "bid":
            key = self._recap(view, journal)
            if key is not None and key not in acks:
                return "gp_score"
            return "gp_powers"
        if phase == "action":
            key = self._reveal(view)
            if key is not None and key not in acks:
                return "gp_reveal"
            return "gp_action"
        if phase == "score":
            return "gp_score"
        if phase == "event":
            return "gp_war" if gv.get("war") else "gp_score"
        return None

    def at_end(self, view, acks, journal):
        """The last turn's scoring is a moment like every other turn's: held before Victory
        until the table taps Continue."""
        key = self._final_recap(view, journal)
        return "gp_score" if key is not None and key not in acks else None

    def moments_now(self, view, journal):
        if view.get("outcome") is not None:
            key = self._final_recap(view, journal)
        else:
            key = self._reveal(view) if view.get("phase") == "action" else \
                self._recap(view, journal) if view.get("phase") == "bid" else None
        return [key] if key is not None else []

    @staticmethod
    def _final_recap(view, journal):
        """The final turn's recap's ack key once the game is over after its turns (not ended
        early by the table), while the journal holds that turn's scoring."""
        gv = view.get("game_view") or {}
        turn = gv.get("turn") or view.get("round") or 0
        if view.get("phase") != "end" or turn < (gv.get("turns") or 0):
            return None
        if turn >= 1 and journal is not None and turn_recap(journal.notices(), turn)["scored"]:
            return ("recap", view.get("session"), turn)
        return None

    @staticmethod
    def _reveal(view):
        """The bid reveal's ack key while this turn has one to show."""
        gv = view.get("game_view") or {}
        if gv.get("results"):
            return ("reveal", view.get("session"), gv.get("turn") or view.get("round"))
        return None

    @staticmethod
    def _recap(view, journal):
        """The last turn's recap's ack key while there is one to show (its scoring is in the
        journal of the notices this screen saw)."""
        gv = view.get("game_view") or {}
        prev = (gv.get("turn") or view.get("round") or 0) - 1
        if prev >= 1 and journal is not None and turn_recap(journal.notices(), prev)["scored"]:
            return ("recap", view.get("session"), prev)
        return None

    def score(self, view, journal=None):
        gv = view.get("game_view") or {}
        players = view.get("players") or []
        curve = gv.get("vp_curve") or []
        tokens = gv.get("tokens") or []
        live = len(curve) < (gv.get("turn") or 0)      # this turn is not on the curve yet
        series = [Series(s, players[s], [row[s] for row in curve],
                         tokens[s]["vp"] if live and s < len(tokens) else None)
                  for s in range(len(players))]
        explain = {}
        if journal is not None and curve:
            last = len(curve)
            rec = turn_recap(list(journal.notices()), last)
            for sc in rec["scored"]:
                for s in sc.get("seats", []):
                    explain.setdefault(s, []).append(
                        f"+{sc['vp']} highest {TOKEN_NAMES[sc['trait']]}")
            aw = rec["awarded"]
            if aw:
                for s in aw.get("seats", []):
                    explain.setdefault(s, []).append(f"+{aw['vp']} event")
            war = rec["war"]
            if war and war.get("kind") == "WarWon":
                for s in war.get("winners", []):
                    explain.setdefault(s, []).append(f"+{war['vp']} war won")
        return ScoreData("Victory points", "VP", series, None, explain,
                         f"Turn {len(curve)} VP" if curve else "", gv.get("turns"))

    def counters(self, game):
        return [(t, theme.GP_TOKENS[t][1], theme.GP_TOKENS[t][2]) for t in TOKENS]

    def counter_value(self, view, seat, counter):
        tokens = (view.get("game_view") or {}).get("tokens") or []
        if seat is None or not 0 <= seat < len(tokens):
            return None
        return tokens[seat].get(counter)


ADAPTER = GreatPowersUI()
