"""One module per sub-command (or family). Each defines ``register(subparsers)`` which adds
its parser and sets ``func=handler``; a handler returns an exit code (0 or None for success)."""
