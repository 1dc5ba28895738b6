"""The device process: buzzer, light, buttons and card reader in a child process of their own.

Why: the buzzer's edges are timed by a Python thread. Beside a busy UI thread in the same
process (Kivy at 60 fps) that thread waits for the GIL and its edges land 2-9 ms late; in a
process of its own it keeps its ~0.1 ms (``benches/bench_devices.py``). Linux's monotonic clock
is the same in every process, so the parent can hand the child absolute deadlines.

Parent side (the ``companion run`` process; it never imports gpiozero)::

    link = DeviceLink(config, mock=True, reader_url=sim.url, on_event=print)
    link.start()                                   # spawns the child, waits for "ready"
    link.countdown(time.monotonic() + 180, 30)     # 0:30 chirp and 0:00 buzzer
    link.show_phase("trade"); link.show_upkeep("M"); link.play("reveal")
    link.close()                                   # idempotent; also a context manager

Commands are small tuples over a socket pair (:class:`multiprocessing.connection.Connection`);
``play``, ``countdown``, ``show_*`` are fire-and-forget (they never block the caller on the
child), ``status``,
``reader_command``, ``pin_edges`` wait for the answer. Events from the child
(:mod:`hardware.events`: ``ButtonPressed``, ``CardScanned``, ``ReaderConnected``,
``ReaderLost``, ``ReaderFault``, ``CommandAnswered``) and the link's own :class:`WorkerStarted`
/ :class:`WorkerLost` reach ``on_event`` (and every :meth:`DeviceLink.subscribe` listener) on one
parent thread, ``device-events``, in order. The child's log records are re-logged in the parent
under their own logger names.

Child side: a fresh interpreter (``python -c``, :class:`~hardware.worker.process._ChildProcess`:
nothing of the UI is inherited, and no multiprocessing resource tracker beside it) running
:class:`hardware.devices.TableDevices` on the pin library :func:`hardware.pinlib.open_pin_library`
picks (lgpio first), or on ``MockFactory(pin_class=MockPWMPin)`` with ``mock=True`` (simulated
hardware on a machine that is not a Raspberry Pi), and optionally
:class:`hardware.reader.CardReader`. **The child starts whatever fails:** a part that cannot be
opened is left out, no pin library at all means no GPIO parts, a reader driver that cannot start
means no reader; each is a sentence in ``link.problems`` (and in :meth:`DeviceLink.description`,
which the screen shows), and ``link.status()["pin_library"]`` says which library is in use and
why the others were not. If the parent dies
the child sees its pipe close and exits; if the child dies the parent emits
:class:`WorkerLost` and, with ``auto_restart``, starts a new one (then :class:`WorkerStarted`).

The child imports only this package and what the devices need (not the parent's main script:
``status()["kivy"]`` checks that no Kivy came along, and a warning is logged if it did).

The package, one module a side (each opens with what it owns):

* ``shared``: what both sides share: the link's events and error, ``is_raspberry_pi``;
* ``link``: the parent side, :class:`DeviceLink`;
* ``process``: starting the child as a fresh interpreter;
* ``child``: the child side: its entry point, the command loop and ``_Worker``'s handlers.

The names others use (``DeviceLink``, ``WorkerStarted``, ``WorkerLost``, ``DeviceWorkerError``,
``is_raspberry_pi``) are importable from ``hardware.worker`` as ever.
"""
from .link import DeviceLink
from .shared import MODEL_FILES, DeviceWorkerError, WorkerLost, WorkerStarted, is_raspberry_pi

__all__ = ["DeviceLink", "DeviceWorkerError", "WorkerLost", "WorkerStarted", "is_raspberry_pi",
           "MODEL_FILES"]
