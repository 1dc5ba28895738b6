"""The table's hardware layer: electrical facts in, neutral events out. Never imports kivy.

* :mod:`hardware.events` - the frozen event dataclasses the hub consumes.
* :mod:`hardware.config` - the TOML hardware config (pins, parts, reader port) with defaults.
* :mod:`hardware.devices` - ``TableDevices(config, pin_factory)``: buzzer, light, buttons over
  gpiozero (the pin factory is always passed in); a part that cannot be built is left out with
  a sentence.
* :mod:`hardware.pinlib` - which pin library opens the GPIO (lgpio first), and why the others
  were not used.
* :mod:`hardware.cues` - what the light and buzzer mean (C/M/Y/K cues, buzzer patterns); no GPIO.
* :mod:`hardware.reader` - ``CardReader``: the serial card reader driver (pyserial).
* :mod:`hardware.sim` - ``ReaderSim``: the reader's firmware on fake parts behind a pty/TCP port.
* :mod:`hardware.timing` - checking buzzer edges against deadlines from MockPin histories.
* :mod:`hardware.doctor` - the checks behind ``companion doctor``.
"""
