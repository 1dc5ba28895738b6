"""A card put on the table's reader: the game's ``scan_move`` turns it into a command, and the
screens acknowledge every scan without naming a card that may be from someone's hand (only a
face-up card, or one that matched or failed to match a revealed choice, is named).
"""
from __future__ import annotations

import json
import time

from companion.core.errors import CompanionError, IllegalMoveError


def _unnamed(message: str, name) -> str:
    """A scan's message without the card's name (a card in someone's hand is private)."""
    if not name or name not in message:
        return message
    out = message.replace(name, "this card")
    return out[0].upper() + out[1:] if out.startswith("this card") else out


class Scans:
    """The hub's card scans."""

    def scan(self, code, resolve=None):
        """A card was scanned. ``resolve(code) -> card_id`` checks the code (see
        ``companion.cardcodes``); problems become an alert and change nothing."""
        s = self.session
        card = None
        try:
            card = resolve(code) if resolve else code
            if s is None:
                raise IllegalMoveError("No game is running; the scan was ignored.")
            hook = getattr(s.game, "scan_move", None)
            cmd = hook(s.state, card) if hook else None
            if cmd is None:
                # a card nobody asked about may be in someone's hand: acknowledge the scan
                # without naming it on the public screens
                self._scanned(None, "read", "Read; nothing to check with it now.",
                              name="A card")
                return None
            seat, move, args = cmd
            result = s.execute(seat, move, args)
        except CompanionError as e:
            # a refused scan may be a card from someone's hand: its name stays off the public
            # screens (whoever holds it to the reader knows which card it is) - unless the
            # card is face up for everyone already (on the board, flipped, in play)
            if card is not None and self._face_up(card):
                message = str(e)
                self._scanned(card, "refused", message)
            else:
                message = _unnamed(str(e), self._card_name(card))
                if card is not None:
                    message = message.rstrip(".") + ". (Its name stays off the screens: it " \
                                                     "may be from someone's hand.)"
                self._scanned(None, "unknown" if card is None else "refused", message)
            self._alert("scan", message, key="scan")
            return None
        kinds = {n["kind"] for n in result.notices}
        sealed = getattr(s.game.moves.get(move), "sealed", None) is not None
        if sealed and seat is not None:
            # a card put down face down (a Trade Warz Export) is a sealed choice: the screens
            # say that it was placed, never which card it is, until its reveal
            self._scanned(None, "recorded", f"Placed for {s.state.players[seat]}; it stays "
                                            f"secret until it is revealed.",
                          name="Face-down card")
        elif "ScanMismatch" in kinds:
            self._scanned(card, "mismatch", "Does not match what was chosen on the phone: "
                                            "the table decides which card counts.")
        elif "ScanConfirmed" in kinds:
            self._scanned(card, "matched", "Matches what was chosen on the phone.")
        else:
            self._scanned(card, "recorded", "Recorded.")
        self.clear_alert("scan")
        return self._after(result)

    def _face_up(self, card) -> bool:
        """Is ``card`` named in the public view already (face up for everyone)?"""
        s = self.session
        if s is None or not isinstance(card, str):
            return False
        try:
            return json.dumps(s.public_view().get("game_view")).find(f'"{card}"') >= 0
        except (TypeError, ValueError, CompanionError):
            return False

    def _card_name(self, card):
        if card is None or not self.game_name:
            return None
        try:
            from companion.games import card_catalog
            return ((card_catalog(self.game_name) or {}).get("cards") or {}).get(card)
        except CompanionError:
            return None

    def _scanned(self, card, result, message, name=None):
        """Remember and announce a scan, so the screens can acknowledge every one. Only a
        card whose identity is public (it matched, or failed to match, a revealed choice) is
        named."""
        if card is not None:
            name = self._card_name(card) or name
        scan = {"card": card, "name": name or card, "result": result, "message": message,
                "at": time.time()}
        with self._lock:
            self.last_scan = scan
        self._emit(dict(scan, kind="scan"))
