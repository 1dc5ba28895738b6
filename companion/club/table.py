"""A table that is, or may become, a member of a club: the network layer's
:class:`~companion.net.serve.TableServer` with the club's two links (the record shipped, the
public topics bridged; docs/club.md) started beside the hub. It lives here, in the club layer,
so that the network layer below never imports the club: the CLI (the composition root) builds
this one, a test of the network alone builds the plain server.
"""
from __future__ import annotations

from companion.net.serve import TableServer

from .membership import ClubLink, bridge_to, parse_address


class ClubTable(TableServer):
    """``club``: join this club at start (an address from the club page); a club joined before
    stays joined. Every other argument is :class:`TableServer`'s."""

    def __init__(self, table: str, *, club: str | None = None, **kw):
        super().__init__(table, **kw)
        self.club_address = club

    def _start_club(self):
        """Ship to and bridge to the club this table joined (or is told to join now); never
        waits for the club (docs/club.md)."""
        self.club = ClubLink(self).start()
        self.hub.club = self.club           # the table's Club dialog and a scanned club QR
        m = self.club.membership
        if self.club_address and (m is None or
                                  m.get("address") != parse_address(self.club_address)[0]):
            self.club.join(self.club_address)

    def _club_bridge(self):
        m = self.hub.kept("club") if self.hub is not None else None
        return bridge_to(m, self.table) if m else None
