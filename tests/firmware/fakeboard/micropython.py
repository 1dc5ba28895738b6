"""CPython stand-in for MicroPython's ``micropython`` module (only what main.py uses)."""
interrupt_char = 3


def kbd_intr(c):
    global interrupt_char
    interrupt_char = c


def const(x):
    return x
