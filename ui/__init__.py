"""The Kivy touchscreen app of the table (``ui.app.run_app``) and its screens.

Importing this package never opens a window. Kivy's own command-line parsing is switched off
here (``KIVY_NO_ARGS``) so ``companion run --options`` stay the CLI's.
"""
import os

os.environ.setdefault("KIVY_NO_ARGS", "1")
