"""What both sides of the device process share: the link's own events (:class:`WorkerStarted`,
:class:`WorkerLost`), its error (:class:`DeviceWorkerError`), and whether this machine is a
Raspberry Pi at all (:func:`is_raspberry_pi`: real pins, or simulated ones).
"""
import dataclasses
import os

from hardware.errors import HardwareError
from hardware.pinlib import REVISION_ENV

MODEL_FILES = ("/proc/device-tree/model", "/sys/firmware/devicetree/base/model")


def is_raspberry_pi(model_files=MODEL_FILES, env=None) -> bool:
    """True when the device tree names a Raspberry Pi board ("Raspberry Pi 4 Model B Rev
    1.4"), or ``GPIOZERO_PI_REVISION`` names one (a stand-in board such as the QEMU test VM,
    whose device tree says "linux,dummy-virt"). Any other machine is not one."""
    env = os.environ if env is None else env
    if (env.get(REVISION_ENV) or "").strip():
        return True
    for path in model_files:
        try:
            with open(path, "rb") as f:
                model = f.read().decode("utf-8", "replace")
        except OSError:
            continue
        return "Raspberry Pi" in model
    return False


class DeviceWorkerError(HardwareError):
    """The device process could not start, did not answer, or went away."""


@dataclasses.dataclass(frozen=True)
class WorkerStarted:
    """A device process is running (the first one, or a restart). Re-send any state."""
    pid: int
    mock: bool
    pin_factory: str
    restarts: int


@dataclasses.dataclass(frozen=True)
class WorkerLost:
    """The device process ended without being asked to (crashed, killed)."""
    pid: int
    exitcode: int | None
    reason: str
    restarting: bool
