"""The table screen tells systemd how it is doing (:mod:`companion.service.notify`):
``READY=1`` once the first frame of the table is on the screen, ``STATUS=`` with what the table
is doing when that changes, and ``WATCHDOG=1`` six times per watchdog interval from Kivy's clock.

The watchdog is petted from the main loop, and only while the hub answers (its lock can be
taken within ``answer_within`` seconds): a frozen screen or a hub stuck in a command stops the
petting, and systemd restarts the table, which resumes the game from its log. Six looks per
interval (not systemd's usual two) so that one busy moment (a long command holding the hub's
lock past ``answer_within``) costs a sixth of the interval, never half of it (on the arm64 test
box, an emulated CPU on a loaded machine, such a moment lasts seconds). Without
``$NOTIFY_SOCKET`` (not under systemd) all of it costs nothing.
"""
import logging

from kivy.clock import Clock

from companion.service import notify

log = logging.getLogger("companion.ui")


class ServiceNotifier:
    """``interval``: the watchdog's (None: ``$WATCHDOG_USEC`` decides; 0: none)."""

    def __init__(self, hub, interval=None, answer_within=1.0):
        self.hub = hub
        self.interval = notify.watchdog_interval() if interval is None else interval
        self.answer_within = answer_within
        self.status = None                  # the last status line sent
        self.ready = False
        self.pets = 0                       # WATCHDOG=1 sent (tests)
        self.missed = 0                     # pets skipped: the hub did not answer
        self._ev = None

    def start(self):
        if self.interval and self._ev is None:
            self.answer_within = min(self.answer_within, self.interval / 4)
            self._ev = Clock.schedule_interval(self.pet, self.interval / 6)
        return self

    def first_frame(self):
        """The table is on the screen: ``READY=1`` (with the status line)."""
        if not self.ready:
            self.ready = True
            notify.ready(self.status)

    def update(self, text):
        """The table's status line, sent when it changes."""
        if text and text != self.status:
            self.status = text
            notify.status(text)

    def pet(self, *_):
        """``WATCHDOG=1``, if the hub answers. Returns whether it was sent."""
        if not self.hub.answers(self.answer_within):
            self.missed += 1
            log.warning("the hub did not answer within %.1f s: no watchdog ping",
                        self.answer_within)
            return False
        notify.watchdog()
        self.pets += 1
        return True

    def stop(self):
        if self._ev is not None:
            self._ev.cancel()
            self._ev = None
