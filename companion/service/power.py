"""Power off or restart the box: a request, and whoever stops the table for it.

The table does not power anything off itself. ``companion run`` stops cleanly (the same path as
closing the window: every acknowledged command is in the session store before it is closed)
and exits with :data:`POWEROFF` or :data:`REBOOT`; the appliance's systemd unit turns those
exit statuses into ``systemctl poweroff`` / ``systemctl reboot`` (its ``ExecStopPost=`` reads
``$EXIT_STATUS``). Outside the appliance the status is only a number the shell sees.

Who asks: the table's Menu (Shut down, Restart, each confirmed on screen) and the GPIO shutdown
button held for 3 s (hardware glue, any thread). Who answers: the table screen registers a
handler (:func:`on_request`) that stops the app on Kivy's main thread. Standard library only.

>>> seen = []
>>> off = on_request(seen.append)
>>> request("poweroff"), seen
(True, ['poweroff'])
>>> off(); request("reboot")
False
"""
from __future__ import annotations

import logging
import threading

log = logging.getLogger(__name__)

POWEROFF = 70           # companion run's exit status: power the box off
REBOOT = 71             # companion run's exit status: restart the box
STATUS = {"poweroff": POWEROFF, "reboot": REBOOT}
ACTIONS = tuple(STATUS)

#: The registered handlers, oldest first: ``fn(action)``. Change it through :func:`on_request`.
handlers: list = []
_lock = threading.Lock()


def exit_status(action: str) -> int:
    """The exit status that asks the unit for ``action`` (``"poweroff"`` or ``"reboot"``)."""
    try:
        return STATUS[action]
    except KeyError:
        raise ValueError(f"action must be one of {', '.join(ACTIONS)}, not {action!r}") \
            from None


def on_request(fn):
    """Call ``fn(action)`` on every request, on the requesting thread (a handler that touches a
    screen hands the work to its own thread). Returns a function that unregisters it."""
    with _lock:
        handlers.append(fn)

    def off():
        with _lock:
            if fn in handlers:
                handlers.remove(fn)
    return off


def request(action: str) -> bool:
    """Ask for the box to be powered off (``"poweroff"``) or restarted (``"reboot"``), from any
    thread. Calls every handler; returns whether any was there to take it (a headless table
    has none: nothing then happens). A handler that fails is logged, never raised here: a
    button's thread must not die of it."""
    exit_status(action)                         # refuse an unknown action, in words
    with _lock:
        todo = list(handlers)
    for fn in todo:
        try:
            fn(action)
        except Exception:
            log.exception("power handler %r failed for %s", fn, action)
    return bool(todo)
