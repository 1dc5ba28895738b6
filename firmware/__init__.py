"""Firmware of the Table Companion card reader (Raspberry Pi Pico, MicroPython).

Every module here except ``main.py`` runs under both MicroPython and CPython: the frame codec
(:mod:`firmware.protocol`) is the same code the hub's driver imports. Drivers take bus objects
(anything with ``write``/``read``/``any``), never pin numbers.
"""

from firmware.version import FW_VERSION  # noqa: F401
