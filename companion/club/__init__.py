"""The club: many boxes, one live picture and one playtest record (issue 24; docs/club.md).

Every box stays whole at its table: it plays, stores and answers on its own, and the club is
added on top with existing servers, never one of ours in the command path:

* **the record**: PostgreSQL (psycopg 3). A box ships every stored session (its records, its
  replies, its meta with the data it was played with) store-and-forward: its own SQLite store
  *is* the queue; :class:`companion.club.shipper.Shipper` (a thread beside the table, never in
  the command path) copies what the club does not have yet, keyed by
  ``(table, session_id, version)`` with ``ON CONFLICT DO NOTHING``, so a record arrives once
  however often it is sent (a box crash, a club restart, the same box shipping twice).
  ``companion.club.record``: the schema, the ingest and the read side (``ClubLog``: the read
  contract of :mod:`companion.core.log`, so ``companion report`` and ``companion stats`` read it
  with ``--db postgresql://...``).
* **the live picture**: the box's mosquitto bridges its *public* topics (state, events,
  hub/status, seat/+/presence; never a view, cmd or reply) out to the club's mosquitto
  (mosquitto's own bridge, ``companion.net.brokers.BridgeTo``). The club broker's ACL lets the
  login named like a table write only that table's public topics; the club page reads them
  over WebSockets with a read-only login.
* **joining**: one address, ``http://CLUB:PORT/join/CODE`` (the organiser gives it: the
  console and the organiser's page show it and its QR, the public page never does). A box POSTs
  ``{"table": TABLE, "request": TOKEN}`` there and waits (202) until the organiser lets it in;
  then it gets what it needs (the record's ``postgresql://`` address with a role of its own,
  the club broker and a login for its table); it keeps that reply in its store's table meta
  (``club``), so a box that joined once ships and bridges after a restart even while the club
  is away, and comes back in without asking by proving its last login.
* **least privilege** (issue 35): the organiser's role ``tc_club`` owns the record; a table's
  role may add its own rows and bring its own session rows up to date, nothing else (row-level
  security, :mod:`companion.club.record`); what a box ships is the public history, never a
  secret (:mod:`companion.club.public`).

Logins on the club broker: a table's bridge logs in with the table id as its username (so one
``pattern`` rule with ``%u`` covers every table); ``_viewer`` (the club page: read the public
topics of every table) and ``_club`` (the club's own tools: read everything) cannot be table
ids (table ids have no ``_``).
"""
